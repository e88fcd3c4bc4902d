/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CPU backend's fast searches (kHierarchical, kThreeStep, kDiamond,
 * kHexagon, kPredictive; match/blockmatch.h defines them, ref/ is the
 * source of truth). They visit a few dozen candidates per block instead of
 * the whole window, so the work is one SAD per candidate:
 * - the block is packed once (per level) into an aligned buffer, zero past
 *   its width: 8 bytes per row for blocks at most 8 wide (two rows per
 *   16-byte register), else 16-byte chunks with rows r and r + 1 of a chunk
 *   side by side (one 32-byte AVX2 register);
 * - a candidate is a plain strided block of the prepared frame's padded
 *   planes (blockmatch_cpu.cpp's FrameSlot: clamp-to-edge by the replicated
 *   border; the sub-pel phase planes for the sub-pixel stage; the pyramid
 *   levels below for kHierarchical), so no bounds are tested. Its bytes
 *   past the block width are masked before PSADBW (SSE2, AVX2 by a target
 *   attribute, chosen at run time as the full search's loops are);
 * - integer candidates already costed for the block are looked up in a
 *   small per-thread hash table (the descents revisit points, predictors
 *   repeat); kHierarchical's coarsest window is costed a row of
 *   candidates per call.
 * Every choice uses the total order of match/blockmatch.h, so the result is
 * independent of the evaluation order, and blocks (of one pass) are
 * independent, so it does not depend on the thread count either.
 */
#include "blockmatch_fast_cpu.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if (defined(__x86_64__) || defined(__i386__)) && \
    (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define MATCH_FAST_X86 1
#endif

namespace match {
namespace cpu {
namespace {

constexpr int kAlign = 64;

int ceil_shift(int v, int k) { return (v + (1 << k) - 1) >> k; }

/* ---- Packed blocks and the SAD of one candidate ------------------------ */

/* A block's pixels, packed (see the top comment):
 * narrow (w <= 8): row y at px + 8 y, rows rounded up to an even count;
 * wide: chunk k of row y at px + ((y / 2) chunks + k) 32 + (y % 2) 16.
 * Zero past the width and in the padding row. 32-byte aligned. */
struct Packed {
  const uint8_t* px;
  int w, h, chunks;
  bool narrow;
};

/* Largest packed level-0 block, and a level >= 1 block (at most
 * kMaxBlockSize / 2 + 1 pixels each way). */
constexpr int kPackBytes = (kMaxBlockSize + 1) / 2 * ((kMaxBlockSize + 15) / 16) * 32;
constexpr int kLevelDim = kMaxBlockSize / 2 + 1;
constexpr int kLevelPackBytes = (kLevelDim + 1) / 2 * ((kLevelDim + 15) / 16) * 32;

Packed pack(const uint8_t* src, std::ptrdiff_t stride, int w, int h, uint8_t* dst) {
  Packed p{dst, w, h, (w + 15) / 16, w <= 8};
  if (p.narrow) {
    /* 8 bytes a row, those past w cleared by a mask: the source is a
     * padded plane (>= 64 bytes right of any block), so reading them is
     * valid (variable-size copies cost more than the SADs of the
     * quarter-resolution blocks of kPredictive's coarse predictor) */
    const uint64_t keep = w == 8 ? ~0ull : (1ull << (8 * w)) - 1;
    for (int y = 0; y < h; ++y) {
      uint64_t row;
      std::memcpy(&row, src + y * stride, 8);
      row &= keep;
      std::memcpy(dst + 8 * y, &row, 8);
    }
    if (h & 1) std::memset(dst + 8 * h, 0, 8);
  } else if (w % 16 == 0 && h % 2 == 0) {
    /* Whole chunks and rows (the usual 16x16 block): nothing to zero, and
     * fixed-size copies, a pair of rows of a chunk at a time (this runs
     * once per block and pass: the variable-size copies below cost as much
     * as the SADs, and the per-row addressing did about 400 instructions
     * for a 16x16 block) */
    uint8_t* d = dst;
    for (int y = 0; y < h; y += 2, src += 2 * stride)
      for (int k = 0; k < p.chunks; ++k, d += 32) {
        std::memcpy(d, src + 16 * k, 16);
        std::memcpy(d + 16, src + stride + 16 * k, 16);
      }
  } else {
    std::memset(dst, 0, static_cast<size_t>((h + 1) / 2) * p.chunks * 32);
    for (int y = 0; y < h; ++y)
      for (int k = 0; k < p.chunks; ++k)
        std::memcpy(dst + ((y >> 1) * p.chunks + k) * 32 + (y & 1) * 16,
                    src + y * stride + 16 * k, std::min(16, w - 16 * k));
  }
  return p;
}

/* SAD of block b against the candidate whose top-left pixel is `cand`.
 * Reads up to 15 bytes past the candidate's width. */
using SadFn = uint32_t (*)(const Packed& b, const uint8_t* cand, std::ptrdiff_t stride);
/* out[i] = SAD at first + i, i < n (one call for a row of candidates). */
using SadRowFn = void (*)(const Packed& b, const uint8_t* first, std::ptrdiff_t stride,
                          int n, uint32_t* out);
struct SadOps {
  SadFn one;
  SadRowFn row;
};

inline uint32_t sad_scalar(const Packed& b, const uint8_t* cand, std::ptrdiff_t stride) {
  uint32_t sum = 0;
  for (int y = 0; y < b.h; ++y, cand += stride) {
    if (b.narrow) {
      const uint8_t* r = b.px + 8 * y;
      for (int x = 0; x < b.w; ++x)
        sum += static_cast<uint32_t>(std::abs(int(r[x]) - int(cand[x])));
      continue;
    }
    const uint8_t* r = b.px + (y >> 1) * b.chunks * 32 + (y & 1) * 16;
    for (int k = 0; k < b.chunks; ++k) {
      const int n = std::min(16, b.w - 16 * k);
      for (int x = 0; x < n; ++x)
        sum +=
            static_cast<uint32_t>(std::abs(int(r[32 * k + x]) - int(cand[16 * k + x])));
    }
  }
  return sum;
}

#if MATCH_FAST_X86
/* 32 x 0xff then 32 x 0: loading at 32 - n keeps the first n bytes. */
alignas(64) const uint8_t kMaskBytes[64] = {
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

inline __m128i keep_first(int n) { /* n = 1..16 */
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(kMaskBytes + 32 - n));
}
inline __m128i load16(const uint8_t* p) {
  return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
}
inline __m128i load16a(const uint8_t* p) {
  return _mm_load_si128(reinterpret_cast<const __m128i*>(p));
}
inline __m128i load8(const uint8_t* p) {
  return _mm_loadl_epi64(reinterpret_cast<const __m128i*>(p));
}
inline uint32_t hsum(__m128i acc) {
  return static_cast<uint32_t>(_mm_cvtsi128_si32(acc)) +
         static_cast<uint32_t>(_mm_cvtsi128_si32(_mm_srli_si128(acc, 8)));
}

/* Blocks <= 8 wide: two rows per register. */
inline uint32_t sad_sse2_narrow(const Packed& b, const uint8_t* cand,
                                std::ptrdiff_t stride) {
  __m128i m = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(kMaskBytes + 32 - b.w));
  m = _mm_unpacklo_epi64(m, m);
  __m128i acc = _mm_setzero_si128();
  const uint8_t* r = b.px;
  const int pairs = b.h >> 1;
  for (int p = 0; p < pairs; ++p, r += 16, cand += 2 * stride) {
    const __m128i c = _mm_unpacklo_epi64(load8(cand), load8(cand + stride));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(load16a(r), _mm_and_si128(c, m)));
  }
  if (b.h & 1) /* the upper halves are zero on both sides */
    acc = _mm_add_epi64(acc, _mm_sad_epu8(load16a(r), _mm_and_si128(load8(cand), m)));
  return hsum(acc);
}

inline uint32_t sad_sse2(const Packed& b, const uint8_t* cand, std::ptrdiff_t stride) {
  if (b.narrow) return sad_sse2_narrow(b, cand, stride);
  const __m128i m = keep_first(b.w - 16 * (b.chunks - 1));
  const int last = b.chunks - 1;
  __m128i acc = _mm_setzero_si128();
  for (int y = 0; y < b.h; ++y, cand += stride) {
    const uint8_t* r = b.px + (y >> 1) * b.chunks * 32 + (y & 1) * 16;
    for (int k = 0; k < last; ++k)
      acc = _mm_add_epi64(acc, _mm_sad_epu8(load16a(r + 32 * k), load16(cand + 16 * k)));
    acc = _mm_add_epi64(acc, _mm_sad_epu8(load16a(r + 32 * last),
                                          _mm_and_si128(load16(cand + 16 * last), m)));
  }
  return hsum(acc);
}

/* AVX2: rows r and r + 1 of a chunk in one register (wide blocks); narrow
 * ones as SSE2. Only called when cpuid reports AVX2 (detect_isa). */
__attribute__((target("avx2"))) inline uint32_t sad_avx2(const Packed& b,
                                                         const uint8_t* cand,
                                                         std::ptrdiff_t stride) {
  if (b.narrow) return sad_sse2_narrow(b, cand, stride);
  const __m128i m128 = keep_first(b.w - 16 * (b.chunks - 1));
  const __m256i m = _mm256_broadcastsi128_si256(m128);
  const int last = b.chunks - 1, pairs = b.h >> 1;
  __m256i acc = _mm256_setzero_si256();
  const uint8_t* r = b.px;
  for (int p = 0; p < pairs; ++p, cand += 2 * stride) {
    for (int k = 0; k < last; ++k, r += 32) {
      const __m256i c =
          _mm256_inserti128_si256(_mm256_castsi128_si256(load16(cand + 16 * k)),
                                  load16(cand + stride + 16 * k), 1);
      acc = _mm256_add_epi64(
          acc,
          _mm256_sad_epu8(_mm256_load_si256(reinterpret_cast<const __m256i*>(r)), c));
    }
    const __m256i c =
        _mm256_inserti128_si256(_mm256_castsi128_si256(load16(cand + 16 * last)),
                                load16(cand + stride + 16 * last), 1);
    acc = _mm256_add_epi64(
        acc, _mm256_sad_epu8(_mm256_load_si256(reinterpret_cast<const __m256i*>(r)),
                             _mm256_and_si256(c, m)));
    r += 32;
  }
  __m128i a =
      _mm_add_epi64(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
  if (b.h & 1) { /* the last row: first halves of the last pair's chunks */
    for (int k = 0; k < last; ++k)
      a = _mm_add_epi64(a, _mm_sad_epu8(load16a(r + 32 * k), load16(cand + 16 * k)));
    a = _mm_add_epi64(a, _mm_sad_epu8(load16a(r + 32 * last),
                                      _mm_and_si128(load16(cand + 16 * last), m128)));
  }
  return hsum(a);
}
#endif

/* The entry points of each instruction set: the kernels above inlined. */
uint32_t one_scalar(const Packed& b, const uint8_t* c, std::ptrdiff_t s) {
  return sad_scalar(b, c, s);
}
void row_scalar(const Packed& b, const uint8_t* c, std::ptrdiff_t s, int n,
                uint32_t* out) {
  for (int i = 0; i < n; ++i) out[i] = sad_scalar(b, c + i, s);
}
#if MATCH_FAST_X86
uint32_t one_sse2(const Packed& b, const uint8_t* c, std::ptrdiff_t s) {
  return sad_sse2(b, c, s);
}
void row_sse2(const Packed& b, const uint8_t* c, std::ptrdiff_t s, int n, uint32_t* out) {
  for (int i = 0; i < n; ++i) out[i] = sad_sse2(b, c + i, s);
}
__attribute__((target("avx2"))) uint32_t one_avx2(const Packed& b, const uint8_t* c,
                                                  std::ptrdiff_t s) {
  return sad_avx2(b, c, s);
}
__attribute__((target("avx2"))) void row_avx2(const Packed& b, const uint8_t* c,
                                              std::ptrdiff_t s, int n, uint32_t* out) {
  for (int i = 0; i < n; ++i) out[i] = sad_avx2(b, c + i, s);
}
#endif

/* ---- The pyramid's reduction, one row at a time ------------------------ */

/* o[x] = s[2x - 1] + 3 (s[2x] + s[2x + 1]) + s[2x + 2] for x < w. The SIMD
 * versions compute whole steps of kReduceStep columns past w (their sums
 * are never used) and read up to 2 (w + kReduceStep) bytes of s. */
constexpr int kReduceStep = 16;
using HsumFn = void (*)(const uint8_t* s, int w, uint16_t* o);
/* o[x] = (a[x] + 3 (b[x] + c[x]) + e[x] + 32) >> 6 for x < w (SIMD: up to
 * kReduceStep - 1 bytes past w written). */
using VsumFn = void (*)(const uint16_t* a, const uint16_t* b, const uint16_t* c,
                        const uint16_t* e, int w, uint8_t* o);

void hsum_scalar(const uint8_t* s, int w, uint16_t* o) {
  for (int x = 0; x < w; ++x)
    o[x] = static_cast<uint16_t>(s[2 * x - 1] + 3 * (s[2 * x] + s[2 * x + 1]) +
                                 s[2 * x + 2]);
}
void vsum_scalar(const uint16_t* a, const uint16_t* b, const uint16_t* c,
                 const uint16_t* e, int w, uint8_t* o) {
  for (int x = 0; x < w; ++x)
    o[x] = static_cast<uint8_t>((a[x] + 3 * (b[x] + c[x]) + e[x] + 32) >> 6);
}
#if MATCH_FAST_X86
/* The even bytes s[2x] and odd ones s[2x + 1] as words; loaded 2 bytes
 * earlier, the odd ones are s[2x - 1]; 2 bytes later, the even s[2x + 2]. */
void hsum_sse2(const uint8_t* s, int w, uint16_t* o) {
  const __m128i lo = _mm_set1_epi16(0x00ff);
  for (int x = 0; x < w; x += 8) {
    const __m128i m = load16(s + 2 * x);
    const __m128i l = load16(s + 2 * x - 2);
    const __m128i r = load16(s + 2 * x + 2);
    const __m128i mid = _mm_add_epi16(_mm_and_si128(m, lo), _mm_srli_epi16(m, 8));
    const __m128i sum =
        _mm_add_epi16(_mm_add_epi16(_mm_srli_epi16(l, 8), _mm_and_si128(r, lo)),
                      _mm_add_epi16(mid, _mm_add_epi16(mid, mid)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(o + x), sum);
  }
}
void vsum_sse2(const uint16_t* a, const uint16_t* b, const uint16_t* c, const uint16_t* e,
               int w, uint8_t* o) {
  const __m128i k32 = _mm_set1_epi16(32);
  for (int x = 0; x < w; x += 8) {
    auto ld = [x](const uint16_t* p) {
      return _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + x));
    };
    const __m128i bc = _mm_add_epi16(ld(b), ld(c));
    const __m128i sum =
        _mm_add_epi16(_mm_add_epi16(ld(a), ld(e)),
                      _mm_add_epi16(k32, _mm_add_epi16(bc, _mm_add_epi16(bc, bc))));
    const __m128i v = _mm_srli_epi16(sum, 6); /* sums <= 64 x 255 + 32: 16 bits */
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o + x), _mm_packus_epi16(v, v));
  }
}
/* PMADDUBSW of the byte pairs (s[2x - 1], s[2x]) by (1, 3) plus that of
 * (s[2x + 1], s[2x + 2]) by (3, 1): 16 sums per step, in order. */
__attribute__((target("avx2"))) void hsum_avx2(const uint8_t* s, int w, uint16_t* o) {
  const __m256i w13 = _mm256_set1_epi16(0x0301), w31 = _mm256_set1_epi16(0x0103);
  for (int x = 0; x < w; x += 16) {
    const __m256i l = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 2 * x - 1));
    const __m256i r = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + 2 * x + 1));
    _mm256_storeu_si256(
        reinterpret_cast<__m256i*>(o + x),
        _mm256_add_epi16(_mm256_maddubs_epi16(l, w13), _mm256_maddubs_epi16(r, w31)));
  }
}
__attribute__((target("avx2"))) void vsum_avx2(const uint16_t* a, const uint16_t* b,
                                               const uint16_t* c, const uint16_t* e,
                                               int w, uint8_t* o) {
  const __m256i k32 = _mm256_set1_epi16(32);
  /* (no lambda for the loads: it would not inherit the target) */
#define MATCH_LD(p) _mm256_loadu_si256(reinterpret_cast<const __m256i*>((p) + x))
  for (int x = 0; x < w; x += 16) {
    const __m256i bc = _mm256_add_epi16(MATCH_LD(b), MATCH_LD(c));
    const __m256i sum = _mm256_add_epi16(
        _mm256_add_epi16(MATCH_LD(a), MATCH_LD(e)),
        _mm256_add_epi16(k32, _mm256_add_epi16(bc, _mm256_add_epi16(bc, bc))));
    const __m256i v = _mm256_srli_epi16(sum, 6);
    _mm_storeu_si128(
        reinterpret_cast<__m128i*>(o + x),
        _mm_packus_epi16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1)));
  }
#undef MATCH_LD
}
#endif

SadOps sad_for(Isa isa) {
#if MATCH_FAST_X86
  switch (isa) {
    case Isa::kScalar:
      return SadOps{one_scalar, row_scalar};
    case Isa::kSse2:
      return SadOps{one_sse2, row_sse2};
    case Isa::kAvx2:
      return SadOps{one_avx2, row_avx2};
  }
#endif
  (void)isa;
  return SadOps{one_scalar, row_scalar};
}

/* ---- Candidates ---------------------------------------------------------- */

/* Whole pixels in the integer stage, quarter pixels in the sub-pel one. */
struct Cand {
  uint32_t cost;
  int dx, dy;
};
/* match/blockmatch.h's order: cost, |v|^2, dy, dx (the same order in whole
 * and in quarter pixels). */
inline bool better(const Cand& a, const Cand& b) {
  if (a.cost != b.cost) return a.cost < b.cost;
  const long long na = 1LL * a.dx * a.dx + 1LL * a.dy * a.dy;
  const long long nb = 1LL * b.dx * b.dx + 1LL * b.dy * b.dy;
  if (na != nb) return na < nb;
  if (a.dy != b.dy) return a.dy < b.dy;
  return a.dx < b.dx;
}

/* Costs of the integer candidates met so far for one block, open addressing with a generation stamp so that
 * clearing is O(1). Inserts stop at half load: later candidates are then
 * costed again, which changes nothing but time. */
class EvalCache {
 public:
  static constexpr int kBits = 10, kSize = 1 << kBits;
  void init() {
    std::memset(gen_, 0, sizeof gen_);
    cur_ = 0;
    clear();
  }
  void clear() {
    if (++cur_ == 0) {
      std::memset(gen_, 0, sizeof gen_);
      cur_ = 1;
    }
    count_ = 0;
  }
  /* true and *cost when (dx, dy) is known; else *slot is where it goes. */
  bool find(int dx, int dy, uint32_t* cost, int* slot) const {
    const uint32_t key = key_of(dx, dy);
    for (uint32_t h = (key * 2654435761u) >> (32 - kBits);; h = (h + 1) & (kSize - 1)) {
      if (gen_[h] != cur_) {
        *slot = static_cast<int>(h);
        return false;
      }
      if (key_[h] == key) {
        *cost = cost_[h];
        return true;
      }
    }
  }
  /* Returns false (and stores nothing) when the table is half full. */
  bool insert(int slot, int dx, int dy, uint32_t cost) {
    if (count_ >= kSize / 2) return false;
    gen_[slot] = cur_;
    key_[slot] = key_of(dx, dy);
    cost_[slot] = cost;
    ++count_;
    return true;
  }
  void put(int dx, int dy, uint32_t cost) {
    uint32_t c;
    int slot;
    if (!find(dx, dy, &c, &slot)) insert(slot, dx, dy, cost);
  }

 private:
  static uint32_t key_of(int dx, int dy) { /* |d| <= kMaxSearchRange */
    return (static_cast<uint32_t>(dy + 1024) << 16) | static_cast<uint32_t>(dx + 1024);
  }
  uint32_t gen_[kSize];
  uint32_t key_[kSize];
  uint32_t cost_[kSize];
  uint32_t cur_ = 0;
  int count_ = 0;
};

const int kSmallDiamond[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
const int kLargeDiamond[8][2] = {{2, 0}, {-2, 0}, {0, 2},  {0, -2},
                                 {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
const int kHexagon[6][2] = {{2, 0}, {-2, 0}, {1, 2}, {1, -2}, {-1, 2}, {-1, -2}};

inline int round_q(int vq) { return (vq + 2) >> 2; } /* quarter -> whole, floor */

/* A whole-pixel vector as one word (y high, x low, 16 bits each), so that
 * predictors compare as integers; (0, 0) is 0. */
inline uint32_t key_of(int x, int y) {
  return (static_cast<uint32_t>(y) << 16) | (static_cast<uint32_t>(x) & 0xffffu);
}
inline int key_x(uint32_t k) { return static_cast<int16_t>(k & 0xffffu); }
inline int key_y(uint32_t k) { return static_cast<int16_t>(k >> 16); }
/* A field's vector rounded to whole pixels, as a word. */
inline uint32_t whole_key(const BlockVector& v) {
  return key_of(round_q(v.dx), round_q(v.dy));
}

/* kPredictive's later passes skip the predictors a block has costed
 * before: none of them can win, because the block's vector is the best of
 * everything it has costed (every step keeps the better of the current
 * vector and the candidate, in a total order). Known as costed without a
 * record: (0, 0) (pass 1 starts there), the vector itself and its four
 * neighbours (every pass ends with the small diamond around it). The
 * others are recorded, the last kSeen per block (a forgotten one is only
 * costed again, which changes nothing but time). */
constexpr int kSeen = 8;

/* Whether k is among a block's kSeen recorded vectors. */
inline bool in_seen(const uint32_t* seen, uint32_t k) {
#if MATCH_FAST_X86
  const __m128i kk = _mm_set1_epi32(static_cast<int>(k));
  const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(seen));
  const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(seen + 4));
  return _mm_movemask_epi8(
             _mm_or_si128(_mm_cmpeq_epi32(a, kk), _mm_cmpeq_epi32(b, kk))) != 0;
#else
  bool hit = false;
  for (int t = 0; t < kSeen; ++t) hit |= seen[t] == k;
  return hit;
#endif
}

/* Ascending insertion sort of n <= 9 values (std::sort trips GCC 12's
 * -Warray-bounds on so short an array). */
inline void sort_small(int* v, int n) {
  for (int i = 1; i < n; ++i)
    for (int j = i; j > 0 && v[j] < v[j - 1]; --j) std::swap(v[j], v[j - 1]);
}

/* One thread's searcher: its scratch lives on that thread's stack. */
class Worker {
 public:
  Worker(const BlockMatchConfig& cfg, const BlockMatchRuntime& rt, SadOps sad,
         const FastFrame& tiled, const FastFrame& searched, uint8_t* pack0,
         uint8_t* packk, EvalCache* cache, EvalCache* coarse_cache = nullptr,
         uint32_t* seen = nullptr, uint8_t* nseen = nullptr)
      : cfg_(cfg),
        rt_(rt),
        sad_(sad.one),
        row_(sad.row),
        t_(tiled),
        s_(searched),
        pack0_(pack0),
        packk_(packk),
        cache_(cache),
        coarse_cache_(coarse_cache),
        seen_(seen),
        nseen_(nseen) {
    cols_ = cfg.columns();
    rows_ = cfg.rows();
    rate_steps_ = predictive_rate_steps(rt);
  }

  /* Every method but kPredictive. */
  BlockVector search(int b) {
    start(b);
    const uint32_t zero = eval_new(0, 0);
    cache_->put(0, 0, zero);
    if (suppressed(zero)) return BlockVector{0, 0, zero, kFlagSuppressed};
    Cand c{zero, 0, 0};
    switch (cfg_.method) {
      case SearchMethod::kHierarchical:
        c = hierarchical();
        break;
      case SearchMethod::kThreeStep:
        for (int m = (std::max(cfg_.range_x, cfg_.range_y) + 1) / 2; m >= 1; m /= 2) {
          const int off[8][2] = {{-m, -m}, {0, -m}, {m, -m}, {-m, 0},
                                 {m, 0},   {-m, m}, {0, m},  {m, m}};
          c = best_around(c, off, 8);
        }
        break;
      case SearchMethod::kDiamond:
        c = best_around(descend(c, kLargeDiamond, 8), kSmallDiamond, 4);
        break;
      case SearchMethod::kHexagon:
        c = best_around(descend(c, kHexagon, 6), kSmallDiamond, 4);
        break;
      default:
        break;
    }
    return subpel(c);
  }

  /* kPredictive, pass 1: (0, 0) and, with `prev` (null: none), its
   * vectors of the block, its four neighbours and their median; unless the
   * best is good enough, the coarse predictor (coarse_predictor()); unless
   * the best is then good enough, the large diamond descent, then the
   * small one. Integer result (quarter units). The previous field's
   * predictors and the coarse one are costed once each (most are equal)
   * and recorded. */
  BlockVector predictive1(int b, const BlockVector* prev) {
    begin(b);
    nseen_[b] = 0;
    std::fill_n(seen_ + static_cast<size_t>(b) * kSeen, kSeen, 0u); /* (0, 0): costed */
    const uint32_t zero = sad_zero();
    cache_->put(0, 0, zero);
    if (suppressed(zero)) return BlockVector{0, 0, zero, kFlagSuppressed};
    Cand c{zero, 0, 0};
    uint32_t k[6];
    int nk = 0;
    if (prev) {
      const int cc = b % cols_, r = b / cols_;
      auto add = [&](int x, int y) { /* clamped, new, not (0, 0) */
                                     const uint32_t key = key_of(
                                         std::clamp(x, -cfg_.range_x, cfg_.range_x),
                                         std::clamp(y, -cfg_.range_y, cfg_.range_y));
                                     if (key == 0) return;
                                     for (int i = 0; i < nk; ++i)
                                       if (k[i] == key) return;
                                     k[nk++] = key;
      };
      add(round_q(prev[b].dx), round_q(prev[b].dy));
      const int nbr[4][2] = {{cc - 1, r}, {cc + 1, r}, {cc, r - 1}, {cc, r + 1}};
      for (const auto& q : nbr)
        if (q[0] >= 0 && q[0] < cols_ && q[1] >= 0 && q[1] < rows_) {
          const BlockVector& v = prev[q[1] * cols_ + q[0]];
          add(round_q(v.dx), round_q(v.dy));
        }
      int m[2];
      if (median_of(b, prev, m)) add(m[0], m[1]);
      for (int i = 0; i < nk; ++i) {
        const Cand e = eval(key_x(k[i]), key_y(k[i]));
        if (better(e, c)) c = e;
        remember(b, k[i]);
      }
    }
    if (good_enough(c.cost, w_, h_))
      return BlockVector{4 * c.dx, 4 * c.dy, c.cost, kFlagNone};
    const uint32_t q = coarse_predictor();
    bool known = q == 0; /* (0, 0), or a predictor above: costed, recorded */
    for (int i = 0; i < nk; ++i) known |= k[i] == q;
    if (!known) {
      const Cand e = eval(key_x(q), key_y(q));
      if (better(e, c)) c = e;
      remember(b, q);
    }
    if (!good_enough(c.cost, w_, h_))
      c = descend(descend(c, kLargeDiamond, 8), kSmallDiamond, 4);
    return BlockVector{4 * c.dx, 4 * c.dy, c.cost, kFlagNone};
  }

  /* kPredictive, pass k > 1 over pass k - 1's field `p1` (`whole`: its
   * vectors as words): the neighbours `d` blocks away (d = 2^(passes -
   * k)), the median of the adjacent ones when d = 1; the last pass
   * (`last`, d = 1) goes on to the sub-pel stage, the others stay integer.
   * Only predictors the block has not costed before are costed (see
   * kSeen). p1[b] is either good enough or the end of a small diamond
   * descent, so when none of them wins, the pass keeps it (no descent or
   * one that changes nothing), and when there are none, nothing is costed
   * at all (on the integer grid the last pass then has nothing to add
   * either: p1[b] is already the result, integer, unflagged). Most blocks
   * are in that case; the common one, every neighbour with the block's own
   * vector, is tested first, branch-free. */
  BlockVector predictive2(int b, const BlockVector* p1, const uint32_t* whole, int d,
                          bool last) {
    if (p1[b].flags & kFlagSuppressed) return p1[b]; /* the same test again */
    const bool sub = last && cfg_.subpel > 1;
    const uint32_t own = whole[b];
    const int cc = b % cols_, r = b / cols_;
    const bool inner = cc >= d && cc + d < cols_ && r >= d && r + d < rows_;
    if (inner && !sub) {
      const uint32_t* up = whole + (b - d * cols_);
      const uint32_t* dn = whole + (b + d * cols_);
      if (((up[-d] ^ own) | (up[0] ^ own) | (up[d] ^ own) | (whole[b - d] ^ own) |
           (whole[b + d] ^ own) | (dn[-d] ^ own) | (dn[0] ^ own) | (dn[d] ^ own)) == 0)
        return p1[b];
    }
    const int px = key_x(own), py = key_y(own); /* in range: passes never leave it */
    /* Its four neighbours are costed unless it is good enough (it may have
     * taken no descent). */
    const bool descended = !good_enough(
        p1[b].cost, std::min(cfg_.block_width, cfg_.width - cc * cfg_.block_width),
        std::min(cfg_.block_height, cfg_.height - r * cfg_.block_height));
    /* The neighbours' words, then the median's (d = 1). */
    uint32_t nb[9];
    int nn = 0;
    if (inner) {
      const uint32_t* up = whole + (b - d * cols_);
      const uint32_t* dn = whole + (b + d * cols_);
      const uint32_t w8[8] = {up[-d],       up[0],  up[d], whole[b - d],
                              whole[b + d], dn[-d], dn[0], dn[d]};
      for (int i = 0; i < 8; ++i) nb[i] = w8[i];
      nn = 8;
    } else {
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) {
          const int x = cc + i * d, y = r + j * d;
          if ((i | j) != 0 && x >= 0 && x < cols_ && y >= 0 && y < rows_)
            nb[nn++] = whole[y * cols_ + x];
        }
    }
    if (d == 1) {
      int mx[3], my[3], m = 0;
      auto take = [&](uint32_t k) {
        mx[m] = key_x(k);
        my[m] = key_y(k);
        ++m;
      };
      if (cc > 0) take(whole[b - 1]);
      if (r > 0) take(whole[b - cols_]);
      if (r > 0 && cc + 1 < cols_) take(whole[b - cols_ + 1]);
      if (m > 0) {
        sort_small(mx, m);
        sort_small(my, m);
        nb[nn++] = key_of(mx[(m - 1) / 2], my[(m - 1) / 2]); /* in range */
      }
    }
    /* The last pass's rate predictor p: the component-wise median of the
     * block's and its adjacent neighbours' vectors. With p != the block's
     * vector, what the block costed before may now win: every predictor is
     * costed, and the small diamond runs from the best unless it is good
     * enough. With p = its vector, J(v) >= SAD(v) >= SAD(own) = J(own) for
     * what it costed, so the pruning below still holds. */
    const bool rated = last && rate_steps_ > 0;
    uint32_t pred_key = own;
    if (rated) {
      int mx[9], my[9], m = 0;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) {
          const int x = cc + i, y = r + j;
          if (x >= 0 && x < cols_ && y >= 0 && y < rows_) {
            const uint32_t k = whole[y * cols_ + x];
            mx[m] = key_x(k);
            my[m] = key_y(k);
            ++m;
          }
        }
      sort_small(mx, m);
      sort_small(my, m);
      pred_key = key_of(mx[(m - 1) / 2], my[(m - 1) / 2]);
    }
    const bool moved = pred_key != own;
    /* Only what the block has not costed (its seen list is whole: pass 1
     * fills it with (0, 0)). */
    const uint32_t* seen = seen_ + static_cast<size_t>(b) * kSeen;
    uint32_t pred[9];
    int np = 0;
    for (int i = 0; i < nn; ++i) {
      const uint32_t k = nb[i];
      if (k == own) continue;
      if (!moved) {
        if (k == 0) continue;
        if (descended && std::abs(key_x(k) - px) + std::abs(key_y(k) - py) == 1) continue;
        if (in_seen(seen, k)) continue;
      }
      bool dup = false;
      for (int t = 0; t < np; ++t) dup |= pred[t] == k;
      if (!dup) pred[np++] = k;
    }
    if (np == 0 && !sub && !moved) return p1[b];
    start(b);
    if (rated) {
      rate_ = static_cast<int64_t>(rate_steps_) * w_ * h_;
      pxq_ = 4 * key_x(pred_key);
      pyq_ = 4 * key_y(pred_key);
    }
    cache_->put(px, py, p1[b].cost); /* the previous pass's result, costed */
    Cand c{p1[b].cost, px, py};
    for (int i = 0; i < np; ++i) {
      const Cand e = eval(key_x(pred[i]), key_y(pred[i]));
      if (pick(e, c, 4)) c = e;
      remember(b, pred[i]);
    }
    if ((moved || c.dx != px || c.dy != py) && !good_enough(c.cost, w_, h_))
      c = descend(c, kSmallDiamond, 4);
    if (!last) return BlockVector{4 * c.dx, 4 * c.dy, c.cost, kFlagNone};
    return subpel(c);
  }

 private:
  /* Records that block b has costed vector k (see kSeen). */
  void remember(int b, uint32_t k) {
    const int n = nseen_[b]; /* a ring: the next slot */
    seen_[static_cast<size_t>(b) * kSeen + n] = k;
    nseen_[b] = static_cast<uint8_t>((n + 1) % kSeen);
  }
  void start(int b) {
    begin(b);
    ensure_packed();
  }
  /* start() without packing the block: eval() packs it when first needed
   * (kPredictive's pass 1, where most blocks stop at their first SAD). */
  void begin(int b) {
    x0_ = (b % cols_) * cfg_.block_width;
    y0_ = (b / cols_) * cfg_.block_height;
    w_ = std::min(cfg_.block_width, cfg_.width - x0_);
    h_ = std::min(cfg_.block_height, cfg_.height - y0_);
    packed_ = false;
    base_ = s_.phases[0] + y0_ * s_.stride + x0_;
    cache_->clear();
    rate_ = 0;
  }
  void ensure_packed() {
    if (packed_) return;
    blk_ = pack(t_.phases[0] + y0_ * t_.stride + x0_, t_.stride, w_, h_, pack0_);
    packed_ = true;
  }
  /* The SAD at (0, 0): from the frames' rows for a 16-wide block (no
   * packing, SSE2), else through the packed block. */
  uint32_t sad_zero() {
#if MATCH_FAST_X86
    if (w_ == 16 && !packed_) {
      const uint8_t* t = t_.phases[0] + y0_ * t_.stride + x0_;
      const uint8_t* c = base_;
      __m128i acc = _mm_setzero_si128();
      for (int y = 0; y < h_; ++y, t += t_.stride, c += s_.stride)
        acc = _mm_add_epi64(acc, _mm_sad_epu8(load16(t), load16(c)));
      return hsum(acc);
    }
#endif
    ensure_packed();
    return eval_new(0, 0);
  }
  /* `better`, or by kPredictive's J while rate_ > 0 (the last pass); a
   * and b in whole (unit 4) or quarter (unit 1) pixels. */
  bool pick(const Cand& a, const Cand& b, int unit) const {
    if (rate_ == 0) return better(a, b);
    const int64_t ja =
        a.cost +
        ((rate_ * (std::abs(a.dx * unit - pxq_) + std::abs(a.dy * unit - pyq_))) >> 8);
    const int64_t jb =
        b.cost +
        ((rate_ * (std::abs(b.dx * unit - pxq_) + std::abs(b.dy * unit - pyq_))) >> 8);
    if (ja != jb) return ja < jb;
    return better(Cand{0, a.dx, a.dy}, Cand{0, b.dx, b.dy});
  }
  /* kPredictive's coarse predictor of the current block (match/blockmatch.h)
   * as a key_of() word: kDiamond's descents from (0, 0) at level K =
   * kPredictiveCoarseLevel of the pyramid (its SADs looked up in their own
   * cache), times 2^K, clamped to the range. */
  uint32_t coarse_predictor() {
    constexpr int k = kPredictiveCoarseLevel;
    const LevelBlock lb = level_block(k);
    const Packed& pb = lb.pb;
    const uint8_t* base = lb.base;
    const std::ptrdiff_t stride = lb.stride;
    const int rx = lb.rx, ry = lb.ry;
    EvalCache& cache = *coarse_cache_;
    cache.clear();
    auto eval_k = [&](int dx, int dy) {
      uint32_t cost;
      int slot;
      if (!cache.find(dx, dy, &cost, &slot)) {
        cost = sad_(pb, base + dy * stride + dx, stride);
        cache.insert(slot, dx, dy, cost);
      }
      return Cand{cost, dx, dy};
    };
    auto descend_k = [&](Cand c, const int(*off)[2], int n) {
      for (;;) {
        Cand best = c;
        for (int i = 0; i < n; ++i) {
          const int dx = c.dx + off[i][0], dy = c.dy + off[i][1];
          if (std::abs(dx) > rx || std::abs(dy) > ry) continue;
          const Cand e = eval_k(dx, dy);
          if (better(e, best)) best = e;
        }
        if (best.dx == c.dx && best.dy == c.dy) return c;
        c = best;
      }
    };
    const Cand c = descend_k(descend_k(eval_k(0, 0), kLargeDiamond, 8), kSmallDiamond, 4);
    return key_of(std::clamp(c.dx * (1 << k), -cfg_.range_x, cfg_.range_x),
                  std::clamp(c.dy * (1 << k), -cfg_.range_y, cfg_.range_y));
  }
  /* kPredictive's "good enough" for a block of w x h (0 = never). */
  bool good_enough(uint32_t cost, int w, int h) const {
    return rt_.predictive_stop > 0.0 &&
           static_cast<double>(cost) <= rt_.predictive_stop * w * h;
  }
  bool suppressed(uint32_t zero) const {
    return rt_.threshold > 0.0 && static_cast<double>(zero) <= rt_.threshold * w_ * h_;
  }
  bool in_range(int dx, int dy) const {
    return std::abs(dx) <= cfg_.range_x && std::abs(dy) <= cfg_.range_y;
  }
  /* The level-0 SAD at whole-pixel (dx, dy), uncached. */
  uint32_t eval_new(int dx, int dy) const {
    return sad_(blk_, base_ + dy * s_.stride + dx, s_.stride);
  }
  Cand eval(int dx, int dy) {
    uint32_t cost;
    int slot;
    if (!cache_->find(dx, dy, &cost, &slot)) {
      ensure_packed();
      cost = eval_new(dx, dy);
      cache_->insert(slot, dx, dy, cost);
    }
    return Cand{cost, dx, dy};
  }
  /* The best of c + offsets (in range); c is in range. */
  Cand best_around(const Cand& c, const int (*off)[2], int n) {
    Cand best = c;
    for (int i = 0; i < n; ++i) {
      const int dx = c.dx + off[i][0], dy = c.dy + off[i][1];
      if (!in_range(dx, dy)) continue;
      const Cand k = eval(dx, dy);
      if (pick(k, best, 4)) best = k;
    }
    return best;
  }
  /* Moves c with the pattern until c stays the best. */
  Cand descend(Cand c, const int (*off)[2], int n) {
    for (;;) {
      const Cand b = best_around(c, off, n);
      if (b.dx == c.dx && b.dy == c.dy) return c;
      c = b;
    }
  }
  /* That median (whole pixels, not clamped) in m; false when b has none
   * of the three neighbours. */
  bool median_of(int b, const BlockVector* field, int* m) const {
    const int cc = b % cols_, r = b / cols_;
    int mx[3], my[3], n = 0;
    const int med[3][2] = {{cc - 1, r}, {cc, r - 1}, {cc + 1, r - 1}};
    for (const auto& q : med)
      if (q[0] >= 0 && q[0] < cols_ && q[1] >= 0) {
        mx[n] = round_q(field[q[1] * cols_ + q[0]].dx);
        my[n] = round_q(field[q[1] * cols_ + q[0]].dy);
        ++n;
      }
    if (n == 0) return false;
    sort_small(mx, n);
    sort_small(my, n);
    m[0] = mx[(n - 1) / 2];
    m[1] = my[(n - 1) / 2];
    return true;
  }

  /* Offers c to the `keep` best (sorted, distinct vectors). */
  static void offer(Cand* best, int* n, int keep, const Cand& c) {
    if (*n == keep && !better(c, best[keep - 1])) return;
    int i = *n < keep ? (*n)++ : keep - 1;
    for (; i > 0 && better(c, best[i - 1]); --i) best[i] = best[i - 1];
    best[i] = c;
  }

  /* The current block at level k (0: the block itself, packed by
   * start()): its packed pixels (level k > 0: packed into packk_), the
   * searched plane at its position and the range, as kHierarchical's
   * level k (match/blockmatch.h). */
  struct LevelBlock {
    Packed pb;
    const uint8_t* base;
    std::ptrdiff_t stride;
    int rx, ry;
  };
  LevelBlock level_block(int k) {
    if (k == 0) return LevelBlock{blk_, base_, s_.stride, cfg_.range_x, cfg_.range_y};
    const int bx = x0_ >> k, by = y0_ >> k;
    const int bw = std::max((x0_ + w_) >> k, bx + 1) - bx;
    const int bh = std::max((y0_ + h_) >> k, by + 1) - by;
    const FastPlane& lt = t_.pyramid->level(k);
    const FastPlane& ls = s_.pyramid->level(k);
    return LevelBlock{pack(lt.origin + by * lt.stride + bx, lt.stride, bw, bh, packk_),
                      ls.origin + by * ls.stride + bx, ls.stride,
                      ceil_shift(cfg_.range_x, k), ceil_shift(cfg_.range_y, k)};
  }

  Cand hierarchical() {
    const int L = cfg_.levels, P = cfg_.predictors;
    Cand kept[kMaxPredictors];
    int nk = 0;
    for (int k = L - 1; k >= 0; --k) {
      const LevelBlock lb = level_block(k);
      const Packed& pb = lb.pb;
      const uint8_t* base = lb.base;
      const std::ptrdiff_t stride = lb.stride;
      const int rx = lb.rx, ry = lb.ry;
      Cand next[kMaxPredictors];
      int nn = 0;
      const int keep = k == 0 ? 1 : P;
      if (k == L - 1) { /* the whole coarse window: distinct by construction */
        uint32_t costs[2 * kMaxSearchRange + 1];
        for (int dy = -ry; dy <= ry; ++dy) {
          row_(pb, base + dy * stride - rx, stride, 2 * rx + 1, costs);
          for (int dx = -rx; dx <= rx; ++dx)
            offer(next, &nn, keep, Cand{costs[dx + rx], dx, dy});
        }
      } else {
        /* 2p + {-1, 0, 1}^2, each vector once: the kept p are distinct, so
         * a candidate of p_i repeats one of an earlier p_j exactly when it
         * lies within one pixel of 2 p_j (only p_j next to p_i can). */
        for (int i = 0; i < nk; ++i) {
          const int cx = 2 * kept[i].dx, cy = 2 * kept[i].dy;
          int near[kMaxPredictors][2], nnear = 0;
          for (int q = 0; q < i; ++q)
            if (std::abs(2 * kept[q].dx - cx) <= 2 &&
                std::abs(2 * kept[q].dy - cy) <= 2) {
              near[nnear][0] = 2 * kept[q].dx;
              near[nnear][1] = 2 * kept[q].dy;
              ++nnear;
            }
          for (int j = -1; j <= 1; ++j)
            for (int l = -1; l <= 1; ++l) {
              const int dx = cx + l, dy = cy + j;
              if (std::abs(dx) > rx || std::abs(dy) > ry) continue;
              bool seen = false;
              for (int q = 0; q < nnear && !seen; ++q)
                seen = std::abs(dx - near[q][0]) <= 1 && std::abs(dy - near[q][1]) <= 1;
              if (seen) continue;
              offer(next, &nn, keep,
                    Cand{sad_(pb, base + dy * stride + dx, stride), dx, dy});
            }
        }
      }
      std::copy(next, next + nn, kept);
      nk = nn;
    }
    return kept[0];
  }

  /* The grid points strictly within one pixel of the integer vector c. */
  BlockVector subpel(const Cand& ci) {
    Cand best{ci.cost, 4 * ci.dx, 4 * ci.dy};
    if (cfg_.subpel > 1) {
      const int sp = cfg_.subpel, step = kSubpelScale / sp;
      const int rxq = cfg_.range_x * kSubpelScale, ryq = cfg_.range_y * kSubpelScale;
      const int cx = best.dx, cy = best.dy;
      const std::ptrdiff_t stride = s_.stride;
      for (int j = -(sp - 1); j <= sp - 1; ++j)
        for (int i = -(sp - 1); i <= sp - 1; ++i) {
          if (i == 0 && j == 0) continue; /* c itself, costed */
          const int dxq = cx + i * step, dyq = cy + j * step;
          if (std::abs(dxq) > rxq || std::abs(dyq) > ryq) continue;
          const uint8_t* plane = s_.phases[((dyq & 3) / step) * sp + (dxq & 3) / step];
          const uint32_t cost =
              sad_(blk_, plane + (y0_ + (dyq >> 2)) * stride + x0_ + (dxq >> 2), stride);
          const Cand k{cost, dxq, dyq};
          if (better(k, best)) best = k; /* SADs, kPredictive's too */
        }
    }
    return BlockVector{best.dx, best.dy, best.cost, kFlagNone};
  }

  const BlockMatchConfig& cfg_;
  const BlockMatchRuntime& rt_;
  SadFn sad_;
  SadRowFn row_;
  const FastFrame& t_;
  const FastFrame& s_;
  uint8_t* pack0_;
  uint8_t* packk_;
  EvalCache* cache_;
  EvalCache* coarse_cache_; /* kPredictive: coarse_predictor()'s */
  uint32_t* seen_;          /* kPredictive: kSeen vectors per block */
  uint8_t* nseen_;          /* its next slot */
  int cols_ = 0, rows_ = 0;
  int rate_steps_ = 0;    /* predictive_rate_steps() */
  int64_t rate_ = 0;      /* r * w * h while J decides, else 0 */
  int pxq_ = 0, pyq_ = 0; /* J's predictor, quarter pixels */
  int x0_ = 0, y0_ = 0, w_ = 0, h_ = 0;
  Packed blk_{};
  bool packed_ = false;           /* blk_ holds the current block (begin()) */
  const uint8_t* base_ = nullptr; /* the searched block at v = 0 */
};

}  // namespace

/* ---- Pyramid --------------------------------------------------------------- */

void Pyramid::allocate(const BlockMatchConfig& c) {
  isa_ = detect_isa();
  planes_.clear();
  pad_x_.clear();
  pad_y_.clear();
  std::vector<uint8_t>().swap(storage_);
  const int levels = c.method == SearchMethod::kHierarchical ? c.levels
                     : c.method == SearchMethod::kPredictive ? kPredictiveCoarseLevel + 1
                                                             : 1;
  if (levels < 2) return;
  std::vector<size_t> offset;
  size_t total = 0;
  int w = c.width, h = c.height;
  for (int k = 1; k < levels; ++k) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    const int px = ceil_shift(c.range_x, k) + 64;
    const int py = ceil_shift(c.range_y, k) + 2;
    FastPlane p;
    p.stride = (w + 2 * px + kAlign - 1) / kAlign * kAlign;
    p.width = w;
    p.height = h;
    offset.push_back(total);
    total += static_cast<size_t>(p.stride) * (h + 2 * py);
    planes_.push_back(p);
    pad_x_.push_back(px);
    pad_y_.push_back(py);
  }
  storage_.assign(total + kAlign, 0);
  uint8_t* base = storage_.data();
  base += (kAlign - reinterpret_cast<uintptr_t>(base) % kAlign) % kAlign;
  for (size_t i = 0; i < planes_.size(); ++i)
    planes_[i].origin = base + offset[i] + pad_y_[i] * planes_[i].stride + pad_x_[i];
}

void Pyramid::build(const FastPlane& level0, int pad0, int threads, const RowFill& fill) {
  if (planes_.empty()) return;
  HsumFn hsum_row = hsum_scalar;
  VsumFn vsum_row = vsum_scalar;
#if MATCH_FAST_X86
  if (isa_ == Isa::kAvx2) {
    hsum_row = hsum_avx2;
    vsum_row = vsum_avx2;
  } else if (isa_ == Isa::kSse2) {
    hsum_row = hsum_sse2;
    vsum_row = vsum_sse2;
  }
#endif
  (void)threads; /* unused without OpenMP */
  /* Each band's ring of horizontal sums (level 1's rows are the widest)
   * and, with `fill`, its scratch source row: grown here, so only when the
   * thread count grows, not per frame. */
  const int max_bands = std::max(1, std::min(threads, planes_[0].height));
  const size_t ring_stride =
      static_cast<size_t>(4) *
      ((planes_[0].width + kReduceStep - 1) / kReduceStep * kReduceStep);
  const size_t scratch_stride = fill ? static_cast<size_t>(level0.stride) : 0;
  if (ring_.size() < max_bands * ring_stride) ring_.resize(max_bands * ring_stride);
  if (scratch_.size() < max_bands * scratch_stride)
    scratch_.resize(max_bands * scratch_stride);
  FastPlane src = level0;
  for (size_t i = 0; i < planes_.size(); ++i) {
    const FastPlane& dst = planes_[i];
    uint8_t* d0 = const_cast<uint8_t*>(dst.origin); /* our own storage */
    const int w = dst.width, h = dst.height, px = pad_x_[i], py = pad_y_[i];
    const std::ptrdiff_t ds = dst.stride, ss = src.stride;
    /* a row of horizontal sums, whole SIMD steps */
    const int hw = (w + kReduceStep - 1) / kReduceStep * kReduceStep;
    /* Output row y needs the [1 3 3 1] sums over source columns 2x - 1 ..
     * 2x + 2 of source rows 2y - 1 .. 2y + 2 (the source's replicated
     * border is its clamp-to-edge: they reach at most 2 pixels past its
     * edge; the SIMD steps past the width read up to 2 kReduceStep + 2
     * more, within its padding of >= 64), kept in a ring of 4 rows (source
     * row r in slot (r + 1) & 3) so that they stay in the L1 cache (a whole
     * plane of them went through memory: as slow again as the rest of the
     * reduction); each thread takes a band of output rows and starts its
     * ring afresh. Rows past the source's top and bottom are its edge rows
     * (clamp-to-edge).
     * With `fill`, level 1 also writes level 0: a band writes the source
     * rows 2 yb .. 2 ye - 1 of its output rows yb .. ye - 1 (all rows
     * between the bands) just before it sums them, while they are in the
     * L1 cache (read back from memory afterwards, they cost as much again
     * as the rest of the reduction), and the one or two rows it needs of
     * the neighbouring bands into a scratch row of its own. */
    const bool fused = i == 0 && fill;
    /* Level 1 on every thread; the next ones (a quarter of its work and
     * less) on one: a fork and join costs more than they do, and much more
     * when another process holds a core (the threads wait for it). */
    const int lt = i == 0 ? threads : 1;
    const int bands = std::max(1, std::min(lt, h));
    MATCH_OMP(parallel for schedule(static, 1) num_threads(lt) if (lt != 1))
    for (int band = 0; band < bands; ++band) {
      uint16_t* const ring = ring_.data() + band * ring_stride;
      auto slot = [&](int r) { return ring + static_cast<size_t>((r + 1) & 3) * hw; };
      const int yb = static_cast<int>(static_cast<long long>(h) * band / bands);
      const int ye = static_cast<int>(static_cast<long long>(h) * (band + 1) / bands);
      const int own_b = std::min(2 * yb, src.height),
                own_e = std::min(2 * ye, src.height);
      int next = own_b; /* fused: the next own source row to write */
      uint8_t* const scratch = scratch_.data() + band * scratch_stride;
      auto hsum = [&](int r) {
        const int rc = std::clamp(r, 0, src.height - 1);
        const uint8_t* row = src.origin + rc * ss;
        if (fused && rc >= own_b && rc < own_e) {
          for (; next <= rc; ++next)
            fill(next, const_cast<uint8_t*>(src.origin) + next * ss);
        } else if (fused) {
          row = scratch + pad0;
          fill(rc, scratch + pad0);
        }
        hsum_row(row, w, slot(r));
      };
      hsum(2 * yb - 1);
      hsum(2 * yb);
      for (int y = yb; y < ye; ++y) {
        hsum(2 * y + 1);
        hsum(2 * y + 2);
        uint8_t* o = d0 + y * ds;
        /* (the SIMD steps write up to kReduceStep - 1 bytes past the
         * width, into the right border written next) */
        vsum_row(slot(2 * y - 1), slot(2 * y), slot(2 * y + 1), slot(2 * y + 2), w, o);
        std::memset(o - px, o[0], px);
        std::memset(o + w, o[w - 1], ds - px - w);
      }
      if (fused)
        for (; next < own_e; ++next)
          fill(next, const_cast<uint8_t*>(src.origin) + next * ss);
    }
    for (int y = 1; y <= py; ++y) {
      std::memcpy(d0 - y * ds - px, d0 - px, ds);
      std::memcpy(d0 + (h - 1 + y) * ds - px, d0 + (h - 1) * ds - px, ds);
    }
    src = dst;
  }
}

/* ---- FastSearch ---------------------------------------------------------- */

/* kPredictive's previous vectors are the matcher's output for the previous
 * frame pair. They are kept across reconfigure() only when they still mean
 * the same thing for the new configuration: the same block grid (block
 * size; the frame size cannot change), the same direction (the sign of the
 * vectors) and the method staying kPredictive (other methods record
 * nothing). A new range or sub-pel grid keeps them: predictors are rounded
 * and clamped to the range anyway. */
void FastSearch::configure(const BlockMatchConfig& c, Isa isa) {
  const bool keep = have_prev_ && c.method == SearchMethod::kPredictive &&
                    cfg_.method == SearchMethod::kPredictive && c.width == cfg_.width &&
                    c.height == cfg_.height && c.block_width == cfg_.block_width &&
                    c.block_height == cfg_.block_height && c.direction == cfg_.direction;
  cfg_ = c;
  isa_ = isa;
  if (c.method == SearchMethod::kPredictive) {
    prev_.resize(c.num_blocks());
    pass1_.resize(c.num_blocks());
    pass2_.resize(c.num_blocks());
    whole1_.resize(c.num_blocks());
    whole2_.resize(c.num_blocks());
    seen_.resize(static_cast<size_t>(c.num_blocks()) * kSeen);
    nseen_.resize(c.num_blocks());
  } else {
    std::vector<BlockVector>().swap(prev_);
    std::vector<BlockVector>().swap(pass1_);
    std::vector<BlockVector>().swap(pass2_);
    std::vector<uint32_t>().swap(whole1_);
    std::vector<uint32_t>().swap(whole2_);
    std::vector<uint32_t>().swap(seen_);
    std::vector<uint8_t>().swap(nseen_);
  }
  have_prev_ = keep;
}

void FastSearch::estimate(const FastFrame& tiled, const FastFrame& searched,
                          const BlockMatchRuntime& rt, int threads, BlockVector* out) {
  (void)threads; /* unused without OpenMP */
  const SadOps sad = sad_for(isa_);
  const int n = cfg_.num_blocks();
  const bool predictive = cfg_.method == SearchMethod::kPredictive;
  const BlockVector* prev = predictive && have_prev_ ? prev_.data() : nullptr;
  BlockVector* pass1 = pass1_.data();
  BlockVector* pass2 = pass2_.data();
  uint32_t* whole1 = whole1_.data();
  uint32_t* whole2 = whole2_.data();
  MATCH_OMP(parallel num_threads(threads) if (threads != 1)) {
    alignas(kAlign) uint8_t pack0[kPackBytes];
    alignas(kAlign) uint8_t packk[kLevelPackBytes];
    EvalCache cache, coarse_cache;
    cache.init();
    if (predictive) coarse_cache.init();
    Worker wk(cfg_, rt, sad, tiled, searched, pack0, packk, &cache, &coarse_cache,
              seen_.data(), nseen_.data());
    if (predictive) {
      /* Chunks of 64 blocks: the per-block words (whole-pixel fields, seen
       * counters) of two threads then rarely share a cache line. */
      constexpr int kPassChunk = 64;
      MATCH_OMP(for schedule(dynamic, kPassChunk))
      for (int b = 0; b < n; ++b) {
        pass1[b] = wk.predictive1(b, prev);
        whole1[b] = whole_key(pass1[b]);
      }
      /* the implicit barriers: pass k reads pass k - 1's whole field */
      for (int k = 2; k < cfg_.passes; ++k) {
        const bool odd = k % 2 != 0;
        const BlockVector* in = odd ? pass2 : pass1;
        BlockVector* o = odd ? pass1 : pass2;
        const uint32_t* win = odd ? whole2 : whole1;
        uint32_t* wo = odd ? whole1 : whole2;
        const int d = 1 << (cfg_.passes - k);
        MATCH_OMP(for schedule(dynamic, kPassChunk))
        for (int b = 0; b < n; ++b) {
          o[b] = wk.predictive2(b, in, win, d, false);
          wo[b] = whole_key(o[b]);
        }
      }
      const bool odd = cfg_.passes % 2 != 0;
      const BlockVector* in = odd ? pass2 : pass1;
      const uint32_t* win = odd ? whole2 : whole1;
      MATCH_OMP(for schedule(dynamic, kPassChunk))
      for (int b = 0; b < n; ++b) out[b] = wk.predictive2(b, in, win, 1, true);
    } else {
      MATCH_OMP(for schedule(dynamic, 8))
      for (int b = 0; b < n; ++b) out[b] = wk.search(b);
    }
  }
  if (predictive) {
    std::copy(out, out + n, prev_.begin());
    have_prev_ = true;
  }
}

}  // namespace cpu
}  // namespace match
