/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * AVX2 search loop. This file alone is compiled with -mavx2; it is only
 * called when cpuid reports AVX2 (cpu::detect_isa).
 */
#include <immintrin.h>

#include <cstring>

#include "sad_cpu.h"
#include "sad_cpu_impl.h"

namespace match {
namespace cpu {
namespace {

/* Mask keeping the first `n` (1..16) bytes of a chunk. */
inline __m128i tail_mask(int n) {
  alignas(16) uint8_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = i < n ? 0xff : 0;
  return _mm_load_si128(reinterpret_cast<const __m128i*>(m));
}

/* AVX2: rows r and r+1 share one 256-bit register. The block is re-packed
 * once per block so each pair of rows is one aligned load; the candidate's
 * two rows cost one load and one 128-bit insert. An odd last row goes
 * through the 128-bit path. */
BlockVector search_avx2(const BlockSearch& s) {
  const __m128i m128 = tail_mask(s.w - (s.chunks - 1) * 16);
  const __m256i mask = _mm256_broadcastsi128_si256(m128);
  const int last = s.chunks - 1;
  const int pitch = s.chunks * 16;
  const int pairs = s.h / 2;
  const bool odd = s.h & 1;
  const std::ptrdiff_t stride = s.stride;

  /* Pre-pair the block rows: pair p, chunk k = 32 contiguous bytes. At most
   * 128 pairs x 16 chunks; kept on the stack (64 KiB). */
  alignas(32) uint8_t paired[kMaxBlockSize / 2 * kMaxBlockSize * 2];
  for (int p = 0; p < pairs; ++p)
    for (int k = 0; k < s.chunks; ++k) {
      std::memcpy(paired + (p * s.chunks + k) * 32, s.block + 2 * p * pitch + 16 * k, 16);
      std::memcpy(paired + (p * s.chunks + k) * 32 + 16,
                  s.block + (2 * p + 1) * pitch + 16 * k, 16);
    }
  const uint8_t* odd_row = s.block + (s.h - 1) * pitch;

  auto load2 = [stride](const uint8_t* p) {
    return _mm256_inserti128_si256(
        _mm256_castsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p))),
        _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + stride)), 1);
  };
  auto sad = [&](const uint8_t* cand) {
    __m256i acc = _mm256_setzero_si256();
    const uint8_t* b = paired;
    for (int p = 0; p < pairs; ++p, cand += 2 * stride) {
      for (int k = 0; k < last; ++k, b += 32)
        acc = _mm256_add_epi32(
            acc, _mm256_sad_epu8(_mm256_load_si256(reinterpret_cast<const __m256i*>(b)),
                                 load2(cand + 16 * k)));
      acc = _mm256_add_epi32(
          acc, _mm256_sad_epu8(_mm256_load_si256(reinterpret_cast<const __m256i*>(b)),
                               _mm256_and_si256(load2(cand + 16 * last), mask)));
      b += 32;
    }
    __m128i acc128 =
        _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    if (odd) {
      for (int k = 0; k < last; ++k)
        acc128 = _mm_add_epi32(
            acc128,
            _mm_sad_epu8(
                _mm_load_si128(reinterpret_cast<const __m128i*>(odd_row + 16 * k)),
                _mm_loadu_si128(reinterpret_cast<const __m128i*>(cand + 16 * k))));
      acc128 = _mm_add_epi32(
          acc128,
          _mm_sad_epu8(
              _mm_load_si128(reinterpret_cast<const __m128i*>(odd_row + 16 * last)),
              _mm_and_si128(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(cand + 16 * last)),
                  m128)));
    }
    return static_cast<uint32_t>(_mm_cvtsi128_si32(acc128) +
                                 _mm_cvtsi128_si32(_mm_srli_si128(acc128, 8)));
  };
  return search(s, sad);
}
/* Blocks at most 16 pixels wide: several candidates per 32-byte load.
 * PSADBW sums each 8-byte group on its own, so with the block row repeated
 * across the register, one unaligned load at candidate offset k yields the
 * row costs of candidates k, k+8, k+16, k+24 (width <= 8) or, pairing the
 * 8-byte halves, k and k+16 (width <= 16). Bytes past the block width are
 * masked in every group. Measured on 1280x720, one thread, integer grid:
 * 8x8 blocks 74 -> 15 ms and 16x16 28 -> 14 ms per frame (bench/). */
BlockVector search_avx2_narrow(const BlockSearch& s) {
  const bool w8 = s.w <= 8;
  const int group = w8 ? 8 : 16;
  alignas(32) uint8_t rep[kMaxBlockSize][32];
  alignas(32) uint8_t maskb[32];
  for (int i = 0; i < 32; ++i) maskb[i] = (i % group) < s.w ? 0xff : 0;
  for (int r = 0; r < s.h; ++r)
    for (int i = 0; i < 32; ++i)
      rep[r][i] = (i % group) < s.w ? s.block[r * 16 + i % group] : 0;
  const __m256i mask = _mm256_load_si256(reinterpret_cast<const __m256i*>(maskb));
  const __m128i mask16 = _mm256_castsi256_si128(mask);
  const std::ptrdiff_t stride = s.stride;
  const int h = s.h;

  auto sad = [&](const uint8_t* cand) {
    __m128i acc = _mm_setzero_si128();
    for (int r = 0; r < h; ++r, cand += stride)
      acc = _mm_add_epi64(
          acc, _mm_sad_epu8(
                   _mm_load_si128(reinterpret_cast<const __m128i*>(rep[r])),
                   _mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(cand)),
                                 mask16)));
    /* width <= 8: only the low group is the candidate */
    return static_cast<uint32_t>(w8 ? _mm_cvtsi128_si64(acc)
                                    : _mm_cvtsi128_si64(acc) + _mm_extract_epi64(acc, 1));
  };
  auto accumulate = [&](const uint8_t* p) {
    __m256i acc = _mm256_setzero_si256();
    for (int r = 0; r < h; ++r, p += stride)
      acc = _mm256_add_epi64(
          acc, _mm256_sad_epu8(
                   _mm256_and_si256(
                       _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), mask),
                   _mm256_load_si256(reinterpret_cast<const __m256i*>(rep[r]))));
    return acc;
  };
  auto row_costs = [&](const uint8_t* base, int n, uint32_t* out) {
    alignas(32) uint64_t l[4];
    for (int b = 0; b < n; b += 32) {
      if (w8) {
        for (int k = 0; k < 8 && b + k < n; ++k) {
          _mm256_store_si256(reinterpret_cast<__m256i*>(l), accumulate(base + b + k));
          for (int j = 0; j < 4; ++j) out[b + k + 8 * j] = static_cast<uint32_t>(l[j]);
        }
      } else {
        for (int k = 0; k < 16 && b + k < n; ++k) {
          _mm256_store_si256(reinterpret_cast<__m256i*>(l), accumulate(base + b + k));
          out[b + k] = static_cast<uint32_t>(l[0] + l[1]);
          out[b + k + 16] = static_cast<uint32_t>(l[2] + l[3]);
        }
      }
    }
  };
  return search_rows(s, sad, row_costs);
}

BlockVector search_avx2_dispatch(const BlockSearch& s) {
  return s.w <= 16 ? search_avx2_narrow(s) : search_avx2(s);
}

}  // namespace

SearchFn search_fn_avx2() { return search_avx2_dispatch; }

}  // namespace cpu
}  // namespace match
