/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Why it is fast: full search is the same small SAD repeated over a regular
 * grid, so the block is packed once into 16-byte chunks (zero beyond its
 * width) and each candidate costs one unaligned load and one PSADBW per
 * chunk and row (SSE2), or per chunk and PAIR of rows (AVX2: rows r and r+1
 * side by side in one 256-bit register). Bytes past a partial block's width
 * are masked out of the candidate so the zero padding of the block adds
 * nothing. Candidates are visited in raster order with the tie rule of
 * match/blockmatch.h, so every path returns the reference's vectors.
 */
#include "sad_cpu.h"
#include "sad_cpu_impl.h"

#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define MATCH_X86 1
#endif

namespace match {
namespace cpu {
namespace {

BlockVector search_scalar(const BlockSearch& s) {
  const int pitch = s.chunks * 16;
  auto sad = [&s, pitch](const uint8_t* cand) {
    uint32_t sum = 0;
    for (int y = 0; y < s.h; ++y) {
      const uint8_t* b = s.block + y * pitch;
      const uint8_t* c = cand + y * s.stride;
      for (int x = 0; x < s.w; ++x)
        sum += static_cast<uint32_t>(std::abs(int(b[x]) - int(c[x])));
    }
    return sum;
  };
  return search(s, sad);
}

#if MATCH_X86
/* Mask keeping the first `n` (1..16) bytes of a chunk. */
inline __m128i tail_mask(int n) {
  alignas(16) uint8_t m[16];
  for (int i = 0; i < 16; ++i) m[i] = i < n ? 0xff : 0;
  return _mm_load_si128(reinterpret_cast<const __m128i*>(m));
}

BlockVector search_sse2(const BlockSearch& s) {
  const __m128i mask = tail_mask(s.w - (s.chunks - 1) * 16);
  const int last = s.chunks - 1;
  auto sad = [&](const uint8_t* cand) {
    __m128i acc = _mm_setzero_si128();
    const uint8_t* b = s.block;
    for (int y = 0; y < s.h; ++y, cand += s.stride) {
      for (int k = 0; k < last; ++k, b += 16) {
        const __m128i c =
            _mm_loadu_si128(reinterpret_cast<const __m128i*>(cand + 16 * k));
        acc = _mm_add_epi32(
            acc, _mm_sad_epu8(_mm_load_si128(reinterpret_cast<const __m128i*>(b)), c));
      }
      const __m128i c = _mm_and_si128(
          _mm_loadu_si128(reinterpret_cast<const __m128i*>(cand + 16 * last)), mask);
      acc = _mm_add_epi32(
          acc, _mm_sad_epu8(_mm_load_si128(reinterpret_cast<const __m128i*>(b)), c));
      b += 16;
    }
    return static_cast<uint32_t>(_mm_cvtsi128_si32(acc) +
                                 _mm_cvtsi128_si32(_mm_srli_si128(acc, 8)));
  };
  return search(s, sad);
}

#endif

}  // namespace

SearchFn search_fn_scalar() { return search_scalar; }
#if MATCH_X86
SearchFn search_fn_sse2() { return search_sse2; }
#else
SearchFn search_fn_sse2() { return search_scalar; }
#endif
#if !defined(MATCH_HAVE_AVX2_TU)
SearchFn search_fn_avx2() { return search_fn_sse2(); }
#endif

}  // namespace cpu
}  // namespace match
