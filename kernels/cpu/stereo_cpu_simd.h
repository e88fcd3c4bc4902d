/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The hand-written SIMD stereo loop for 16-bit costs (the usual case: the
 * window area x 255 fits), one template over a small vector-traits class,
 * compiled once per instruction set: stereo_cpu_avx2.cpp (-mavx2, L = 16
 * disparities per vector) and stereo_cpu_avx512.cpp (-mavx512bw, L = 32).
 * It gives the numbers of stereo_cpu_impl.h and of the reference exactly
 * (same column and block sums, same tie rules); what differs is the
 * organisation, chosen by measurement on a Zen 5 core:
 *
 * - One fused pass per row: for every column x and every chunk of L
 *   disparities the entering column sum is rolled down (S += a(row in) -
 *   a(row out)), the block cost is rolled along the row (C += S(x + hw) -
 *   S(x - hw - 1)), the per-lane minimum (cost, k) is updated, and so is
 *   the other view's running minimum for the left-right check. No cost row
 *   makes a round trip through memory: C(x) is stored once, into a ring of
 *   kStereoCostRing rows, only to be read back for sub-pixel/uniqueness.
 * - With AVX-512 the chunk count is a template argument (1..8, one build
 *   each), so the rolling C and the left-right state live in registers for
 *   the whole row. AVX2 (16 registers) does so for C alone, without the
 *   left-right check, up to 8 chunks; otherwise the generic build (any
 *   count) keeps both in L1.
 * - WTA: per lane (cost, k) with "keep the old one on ties" (chunks run in
 *   increasing d, so each lane keeps its smallest d); per pixel the
 *   minimum 32-bit key cost << 16 | k over the lanes is the lowest cost
 *   with the smallest d. That reduction and the per-pixel scalar work
 *   (sub-pixel neighbours, uniqueness) run kDefer columns late, from the
 *   rings, so their long dependency chains overlap the next columns'
 *   vector work instead of stalling it.
 * - Sub-pixel, uniqueness and left-right flags are turned into the output
 *   8 pixels at a time after the row (float division, exact: see
 *   stereo_subpixel_frac).
 * - Right reference = left reference on both views mirrored: R(x) vs
 *   L(x + d) is R'(x~) vs L'(x~ - d) with x~ = W - 1 - x; clamping, the
 *   window, the tie rules and every test are symmetric. The rows are
 *   mirrored while they are copied into the clamped strips anyway and the
 *   output row is written mirrored, so one loop serves both references.
 * - Left-right check: the other view's D'(x') = argmin_d C(x' + d, d)
 *   (stereo_cpu_impl.h), kept as a shift register over the chunks (see
 *   column()). Past the image (x >= W) only the chunks that still reach a
 *   slot in [0, W) are updated; the column sums they skip are never read.
 * - Lanes k >= n (the last chunk's padding) are forced to 0xFFFF. Every
 *   real cost is below that (16-bit costs are used only when the window
 *   area x 255 < 65536, so a cost is at most 256 x 255 = 65280), so
 *   padding never wins, never replaces a slot of the other view, and
 *   reads as "no candidate" in the uniqueness minimum.
 *
 * Everything is in an anonymous namespace (see stereo_cpu_impl.h).
 */
#pragma once

#include <immintrin.h>

#include <cmath>
#include <type_traits>

#include "stereo_cpu_impl.h"

namespace match {
namespace cpu {
namespace {

#if defined(__AVX2__)
struct StereoVecAvx2 {
  using V = __m256i;
  static constexpr int kLanes = 16;
  static V load(const uint16_t* p) {
    return _mm256_load_si256(reinterpret_cast<const __m256i*>(p));
  }
  static V loadu(const uint16_t* p) {
    return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
  }
  static void store(uint16_t* p, V v) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(p), v);
  }
  static void storeu(uint16_t* p, V v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v);
  }
  /* L bytes widened to uint16. */
  static V widen(const uint8_t* p) {
    return _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
  }
  static V set1(int v) { return _mm256_set1_epi16(static_cast<short>(v)); }
  static V zero() { return _mm256_setzero_si256(); }
  static V ones() { return _mm256_set1_epi32(-1); }
  static V add(V a, V b) { return _mm256_add_epi16(a, b); }
  static V sub(V a, V b) { return _mm256_sub_epi16(a, b); }
  static V vor(V a, V b) { return _mm256_or_si256(a, b); }
  static V vmin(V a, V b) { return _mm256_min_epu16(a, b); }
  /* |a - b| of values in 0..255. */
  static V absd(V a, V b) { return _mm256_abs_epi16(_mm256_sub_epi16(a, b)); }
  /* (bc, bi) = (c, k) where c < bc; ties keep the old pair. */
  static void take_lt(V& bc, V& bi, V c, V k) {
    const V m = _mm256_min_epu16(bc, c);
    bi = _mm256_blendv_epi8(k, bi, _mm256_cmpeq_epi16(m, bc));
    bc = m;
  }
  /* Horizontal: the lowest bc, and the lowest bi among its lanes, as the
   * minimum of the 32-bit keys bc << 16 | bi (a short dependency chain). */
  static void hmin(V bc, V bi, int* c0, int* k0) {
    const V m =
        _mm256_min_epu32(_mm256_unpacklo_epi16(bi, bc), _mm256_unpackhi_epi16(bi, bc));
    __m128i r = _mm_min_epu32(_mm256_castsi256_si128(m), _mm256_extracti128_si256(m, 1));
    r = _mm_min_epu32(r, _mm_shuffle_epi32(r, 0x4E));
    r = _mm_min_epu32(r, _mm_shuffle_epi32(r, 0xB1));
    const uint32_t key = static_cast<uint32_t>(_mm_cvtsi128_si32(r));
    *c0 = static_cast<int>(key >> 16);
    *k0 = static_cast<int>(key & 0xFFFF);
  }
  /* [prev[L - 1], cur[0 .. L - 2]]: the lanes moved up by one, the top
   * lane of the chunk below carried in. */
  static V shift1(V cur, V prev) {
    return _mm256_alignr_epi8(cur, _mm256_permute2x128_si256(prev, cur, 0x21), 14);
  }
  static int top(V v) { return _mm256_extract_epi16(v, 15); }
  /* v with the lanes where |k - kb| <= 1 set to 0xFFFF. */
  static V mask_near(V v, V k, V kb) {
    return _mm256_or_si256(v,
                           _mm256_cmpgt_epi16(_mm256_set1_epi16(2),
                                              _mm256_abs_epi16(_mm256_sub_epi16(k, kb))));
  }
  static int hmin1(V v) {
    return _mm_extract_epi16(
        _mm_minpos_epu16(
            _mm_min_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1))),
        0);
  }
};
#endif

#if defined(__AVX512BW__)
struct StereoVecAvx512 {
  using V = __m512i;
  static constexpr int kLanes = 32;
  static V load(const uint16_t* p) { return _mm512_load_si512(p); }
  static V loadu(const uint16_t* p) { return _mm512_loadu_si512(p); }
  static void store(uint16_t* p, V v) { _mm512_store_si512(p, v); }
  static void storeu(uint16_t* p, V v) { _mm512_storeu_si512(p, v); }
  static V widen(const uint8_t* p) {
    return _mm512_cvtepu8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  }
  static V set1(int v) { return _mm512_set1_epi16(static_cast<short>(v)); }
  static V zero() { return _mm512_setzero_si512(); }
  static V ones() { return _mm512_set1_epi32(-1); }
  static V add(V a, V b) { return _mm512_add_epi16(a, b); }
  static V sub(V a, V b) { return _mm512_sub_epi16(a, b); }
  static V vor(V a, V b) { return _mm512_or_si512(a, b); }
  static V vmin(V a, V b) { return _mm512_min_epu16(a, b); }
  static V absd(V a, V b) { return _mm512_abs_epi16(_mm512_sub_epi16(a, b)); }
  static void take_lt(V& bc, V& bi, V c, V k) {
    const __mmask32 lt = _mm512_cmplt_epu16_mask(c, bc);
    bi = _mm512_mask_mov_epi16(bi, lt, k);
    bc = _mm512_min_epu16(bc, c);
  }
  static __m256i min_halves(V v) {
    return _mm256_min_epu16(_mm512_castsi512_si256(v), _mm512_extracti64x4_epi64(v, 1));
  }
  static __m128i min_halves(__m256i v) {
    return _mm_min_epu16(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
  }
  static void hmin(V bc, V bi, int* c0, int* k0) {
    const V m =
        _mm512_min_epu32(_mm512_unpacklo_epi16(bi, bc), _mm512_unpackhi_epi16(bi, bc));
    const __m256i h =
        _mm256_min_epu32(_mm512_castsi512_si256(m), _mm512_extracti64x4_epi64(m, 1));
    __m128i r = _mm_min_epu32(_mm256_castsi256_si128(h), _mm256_extracti128_si256(h, 1));
    r = _mm_min_epu32(r, _mm_shuffle_epi32(r, 0x4E));
    r = _mm_min_epu32(r, _mm_shuffle_epi32(r, 0xB1));
    const uint32_t key = static_cast<uint32_t>(_mm_cvtsi128_si32(r));
    *c0 = static_cast<int>(key >> 16);
    *k0 = static_cast<int>(key & 0xFFFF);
  }
  static V shift1(V cur, V prev) {
    const V idx =
        _mm512_set_epi16(30, 29, 28, 27, 26, 25, 24, 23, 22, 21, 20, 19, 18, 17, 16, 15,
                         14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 63);
    return _mm512_permutex2var_epi16(cur, idx, prev);
  }
  static int top(V v) { return _mm_extract_epi16(_mm512_extracti32x4_epi32(v, 3), 7); }
  static V mask_near(V v, V k, V kb) {
    const __mmask32 near = _mm512_cmplt_epu16_mask(
        _mm512_abs_epi16(_mm512_sub_epi16(k, kb)), _mm512_set1_epi16(2));
    return _mm512_mask_mov_epi16(v, near, ones());
  }
  static int hmin1(V v) {
    return _mm_extract_epi16(_mm_minpos_epu16(min_halves(min_halves(v))), 0);
  }
};
#endif

/* dst[t] = src[cl(start + step t)] for t in [0, len), step = +/-1: the
 * clamped borders filled, the interior copied (reversed for step -1). */
inline void stereo_copy_clamped(uint8_t* dst, int len, const uint8_t* src, int w,
                                int start, int step) {
  /* t range whose source lies in [0, w). */
  int t0, t1;
  if (step > 0) {
    t0 = std::max(0, -start);
    t1 = std::min(len, w - start);
  } else {
    t0 = std::max(0, start - (w - 1));
    t1 = std::min(len, start + 1);
  }
  if (t1 <= t0) {
    /* Entirely on one side. */
    const int u = start + step * (len / 2);
    std::memset(dst, src[u < 0 ? 0 : w - 1], len);
    return;
  }
  /* Before t0 the source is below 0 (step +1) or above w - 1 (step -1). */
  std::memset(dst, src[step > 0 ? 0 : w - 1], t0);
  std::memset(dst + t1, src[step > 0 ? w - 1 : 0], len - t1);
  const uint8_t* p = src + start + step * t0;
  uint8_t* d = dst + t0;
  const int m = t1 - t0;
  if (step > 0) {
    std::memcpy(d, p, m);
    return;
  }
  /* Reversed: 32 bytes at a time (p - 31 .. p reversed into d .. d + 31). */
  const __m256i rev =
      _mm256_setr_epi8(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13,
                       12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0);
  int t = 0;
  for (; t + 32 <= m; t += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p - t - 31));
    const __m256i r = _mm256_permute4x64_epi64(_mm256_shuffle_epi8(v, rev), 0x4E);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(d + t), r);
  }
  for (; t < m; ++t) d[t] = p[-t];
}

/* The row strips of the views as the loop reads them (left-reference
 * form, mirrored for the right reference): rx[i] = Ref~(cl(i - hw)) and
 * ox[t] = Oth~(cl(uend - 1 - dmin - t)), so that for column i the other
 * view at disparity dmin + k is ox[ucount - 1 - i + k]. Ref~(u) =
 * Ref(W - 1 - u) for the right reference (the clamp commutes). */
inline void stereo_simd_fill(const StereoStrip& s, int r, int ucount, int olen,
                             uint8_t* rx, uint8_t* ox) {
  const int w = s.width, hw = s.hw;
  const int rc = stereo_clamp(r, s.height - 1);
  const uint8_t* rp = s.ref_a->row(rc);
  const uint8_t* op = s.oth_a->row(rc);
  const int ostart = ucount - hw - 1 - s.dmin;
  if (s.left_ref) {
    stereo_copy_clamped(rx, ucount, rp, w, -hw, 1);
    stereo_copy_clamped(ox, olen, op, w, ostart, -1);
  } else {
    stereo_copy_clamped(rx, ucount, rp, w, w - 1 + hw, -1);
    stereo_copy_clamped(ox, olen, op, w, w - 1 - ostart, 1);
  }
}

/* floor((num + den) / (2 den)) clamped to [-8, 8], for den > 0. The
 * operands are exact in float (|num + den| < 2^21, 2 den < 2^18) and the
 * true quotient is 0 or at least 1 / (2 den) >= 2^-18 away from every
 * integer, more than float's rounding error near |q| <= 9 (2^-20), so the
 * floor of the rounded quotient is the exact one; beyond 9 both clamp. */
inline int stereo_subpixel_frac(int c0, int cm, int cp) {
  const int den = cm + cp - 2 * c0;
  if (den <= 0) return 0;
  const float q =
      std::floor(static_cast<float>(16 * (cm - cp) + den) / static_cast<float>(2 * den));
  return q < -8.f ? -8 : (q > 8.f ? 8 : static_cast<int>(q));
}

/* One strip of rows. kLr: the left-right check is on. kN > 0: the number
 * of chunks, known at compile time, so that the rolling C and the
 * left-right shift register stay in registers (AVX-512: 32 of them);
 * kN = 0: any number, both kept in memory (L1). */
template <class T, bool kLr, int kN>
void stereo_strip_simd(const StereoStrip& s) {
  using V = typename T::V;
  constexpr int L = T::kLanes;
  const int w = s.width, np = s.n_pad, n = s.n, dmin = s.dmin, hw = s.hw;
  const int hh = s.hh, height = s.height;
  const int nch = kN > 0 ? kN : (n + L - 1) / L;
  const int last = nch - 1;
  /* Columns x in [0, xend) (left-reference form); for the LR check up to
   * the largest disparity past the image. */
  const int xend = kLr ? w + dmin + n - 1 : w;
  const int ucount = xend + 2 * hw;
  const int olen = ucount + np;
  const bool flip = !s.left_ref;
  const bool subpixel = s.subpixel;
  const int uniq = s.uniqueness_ratio, tex_thr = s.texture_threshold;
  const int lr_max = s.lr_max_diff;
  /* Column i (u = i - hw) at S + i np; column -1 stays zero. */
  uint16_t* const S = s.colsum + np;
  /* C(x) in row x mod kStereoCostRing of a ring: the horizontal minimum
   * and the look-ups of sub-pixel and uniqueness are done kDefer columns
   * later. Done right away, their long dependency chain (about 35 cycles
   * behind the column's own) fills the out-of-order window and stalls the
   * vector loop, and the scalar reads of just-stored vectors stall on the
   * store-to-load path. */
  constexpr int kDefer = kStereoCostRing - 2;
  uint16_t* const Cring = static_cast<uint16_t*>(s.cost);
  /* The per-lane minima of the same columns, reduced with them. */
  alignas(64) uint16_t bcr[kStereoCostRing * L];
  alignas(64) uint16_t bir[kStereoCostRing * L];
  auto crow = [&](int x) {
    return Cring + static_cast<std::ptrdiff_t>(x & (kStereoCostRing - 1)) * np;
  };
  uint8_t* const ref_in = s.ref_ext;
  uint8_t* const ref_out = s.ref_ext + ucount;
  uint8_t* const oth_in = s.oth_ext;
  uint8_t* const oth_out = s.oth_ext + olen;
  /* The other view's running minima as a shift register (see below):
   * costs and k of nch L slots, and the finished D' - dmin per x'. */
  uint16_t* const dcost = reinterpret_cast<uint16_t*>(s.diag);
  uint16_t* const didx = dcost + np;
  uint16_t* const dres = dcost + 2 * np;
  /* Per pixel of the row: the flags (uniqueness), C(d*), C(d* - 1),
   * C(d* + 1), and k*. */
  uint16_t* const flag = s.value;
  uint16_t* const c0a = s.value + w;
  uint16_t* const cma = s.value + 2 * w;
  uint16_t* const cpa = s.value + 3 * w;
  int32_t* const kba = s.best_d;
  uint32_t* const tcol = s.tex_col;

  /* k of every lane, and the padding mask of the last chunk. */
  alignas(64) uint16_t kidx[kMaxDisparities + 64];
  alignas(64) uint16_t padm[L];
  for (int k = 0; k < nch * L; ++k) kidx[k] = static_cast<uint16_t>(k);
  for (int j = 0; j < L; ++j) padm[j] = last * L + j < n ? 0 : 0xFFFF;
  const V pad = T::load(padm);

  /* One column x of one row: roll S(x + hw), C(x), then the per-lane
   * minimum (kIn: x inside the image) and the diagonal (kLr). */
  auto column = [&](auto prime_c, auto in_c, int x, int clo, V& bc, V& bi) {
    constexpr bool kPrime = decltype(prime_c)::value;
    constexpr bool kIn = decltype(in_c)::value;
    const int i_in = x + 2 * hw;
    uint16_t* const cin = S + static_cast<std::ptrdiff_t>(i_in) * np;
    const uint16_t* const cout = S + static_cast<std::ptrdiff_t>(x - 1) * np;
    const uint8_t* const oi = oth_in + (ucount - 1 - i_in);
    const uint8_t* const oo = oth_out + (ucount - 1 - i_in);
    const V ri = T::set1(ref_in[i_in]), ro = T::set1(ref_out[i_in]);
    const uint16_t* const cprev = crow(x - 1);
    uint16_t* const ccur = crow(x);
    /* Left-right check: global lane g = c L + k of the register holds
     * slot x' = x - dmin - g, so from x - 1 to x every slot moves up one
     * lane (a fresh one enters at g = 0, the one at the top is final) and
     * then takes C(x, dmin + g) where that is lower (ties keep the old
     * one: a slot sees its candidates in increasing d). pc/pk: the state
     * of the chunk below before its update. Chunks below clo are no
     * longer updated; the one just below still carries its top lane. */
    V pc = T::ones(), pk = T::ones();
    if (kLr && clo > 0) {
      pc = T::load(dcost + (clo - 1) * L);
      pk = T::load(didx + (clo - 1) * L);
    }
    auto chunk = [&](int c, bool is_last) {
      V sv = T::load(cin + c * L);
      if (!kPrime) {
        const V a = T::absd(ri, T::widen(oi + c * L));
        const V b = T::absd(ro, T::widen(oo + c * L));
        sv = T::add(sv, T::sub(a, b));
        T::store(cin + c * L, sv);
      }
      V cv = T::add(T::load(cprev + c * L), T::sub(sv, T::load(cout + c * L)));
      if (is_last) cv = T::vor(cv, pad);
      T::store(ccur + c * L, cv);
      const V kv = T::load(kidx + c * L);
      if (kIn) T::take_lt(bc, bi, cv, kv);
      if (kLr) {
        const V oc = T::load(dcost + c * L), ok = T::load(didx + c * L);
        V sc = T::shift1(oc, pc), sk = T::shift1(ok, pk);
        pc = oc;
        pk = ok;
        T::take_lt(sc, sk, cv, kv);
        T::store(dcost + c * L, sc);
        T::store(didx + c * L, sk);
      }
    };
    for (int c = clo; c < last; ++c) chunk(c, false);
    chunk(last, true);
    if (kLr) {
      /* The slot that left the top lane is final. */
      const int xp = x - 1 - dmin - (nch * L - 1);
      if (xp >= 0 && xp < w) dres[xp] = static_cast<uint16_t>(T::top(pk));
    }
  };

  auto row = [&](auto prime_c, int y) {
    /* C(x = -1) = the first 2 hw columns (column -1 is zero). */
    uint16_t* const C = crow(-1);
    for (int c = 0; c < nch; ++c) T::store(C + c * L, T::zero());
    for (int i = 0; i < 2 * hw; ++i) {
      uint16_t* col = S + static_cast<std::ptrdiff_t>(i) * np;
      const V ri = T::set1(ref_in[i]), ro = T::set1(ref_out[i]);
      const uint8_t* const oi = oth_in + (ucount - 1 - i);
      const uint8_t* const oo = oth_out + (ucount - 1 - i);
      for (int c = 0; c < nch; ++c) {
        V sv = T::load(col + c * L);
        if (!decltype(prime_c)::value) {
          sv = T::add(sv, T::sub(T::absd(ri, T::widen(oi + c * L)),
                                 T::absd(ro, T::widen(oo + c * L))));
          T::store(col + c * L, sv);
        }
        T::store(C + c * L, T::add(T::load(C + c * L), sv));
      }
    }
    const std::integral_constant<bool, true> yes;
    const std::integral_constant<bool, false> no;
    /* The scalar part of pixel p, kDefer columns after its costs. */
    auto pixel = [&](int p) {
      const uint16_t* const Cp = crow(p);
      const std::ptrdiff_t r = (p & (kStereoCostRing - 1)) * L;
      int c0, kb;
      T::hmin(T::load(bcr + r), T::load(bir + r), &c0, &kb);
      c0a[p] = static_cast<uint16_t>(c0);
      kba[p] = kb;
      if (subpixel) {
        cma[p] = Cp[kb > 0 ? kb - 1 : 0];
        cpa[p] = Cp[kb + 1];
      }
      uint16_t f = 0;
      if (uniq > 0) {
        /* The lowest cost at least two steps from the winner: the three
         * around it masked to 0xFFFF, as the padding already is. */
        const V kbv = T::set1(kb);
        V m = T::ones();
        for (int c = 0; c < nch; ++c)
          m = T::vmin(m, T::mask_near(T::load(Cp + c * L), T::load(kidx + c * L), kbv));
        const int m2 = T::hmin1(m);
        if (m2 != 0xFFFF && 100 * int64_t{m2} <= (100 + int64_t{uniq}) * int64_t{c0})
          f = 1;
      }
      flag[p] = f;
    };
    if constexpr (kN > 0) {
      /* The same column step as column(), with C and the shift register
       * in registers for the whole row. */
      constexpr bool kPrime = decltype(prime_c)::value;
      V creg[kN > 0 ? kN : 1], dcr[kN > 0 ? kN : 1], dkr[kN > 0 ? kN : 1];
      /* (With 8 chunks and the left-right check that is 24 registers and
       * the compiler spills a few temporaries; keeping C or the k half of
       * the shift register in memory instead measured slower.) */
#pragma GCC unroll 16
      for (int c = 0; c < kN; ++c) {
        creg[c] = T::load(C + c * L);
        dcr[c] = T::ones();
        dkr[c] = T::ones();
      }
      auto step = [&](int x, auto in_c, int clo) {
        constexpr bool kIn = decltype(in_c)::value;
        const int i_in = x + 2 * hw;
        uint16_t* const cin = S + static_cast<std::ptrdiff_t>(i_in) * np;
        const uint16_t* const cout = S + static_cast<std::ptrdiff_t>(x - 1) * np;
        const uint8_t* const oi = oth_in + (ucount - 1 - i_in);
        const uint8_t* const oo = oth_out + (ucount - 1 - i_in);
        const V ri = T::set1(ref_in[i_in]), ro = T::set1(ref_out[i_in]);
        uint16_t* const ccur = crow(x);
        V bc = T::ones(), bi = T::zero(), pc = T::ones(), pk = T::ones();
#pragma GCC unroll 16
        for (int c = 0; c < kN; ++c) {
          if (!kIn && c < clo) {
            /* No longer updated (as in column()); its top lane still
             * carries into the next chunk. */
            if (kLr) {
              pc = dcr[c];
              pk = dkr[c];
            }
            continue;
          }
          V sv = T::load(cin + c * L);
          if (!kPrime) {
            const V a = T::absd(ri, T::widen(oi + c * L));
            const V b = T::absd(ro, T::widen(oo + c * L));
            sv = T::add(sv, T::sub(a, b));
            T::store(cin + c * L, sv);
          }
          V cv = T::add(creg[c], T::sub(sv, T::load(cout + c * L)));
          if (c == kN - 1) cv = T::vor(cv, pad);
          creg[c] = cv;
          if (kIn) T::store(ccur + c * L, cv);
          const V kv = T::load(kidx + c * L);
          if (kIn) T::take_lt(bc, bi, cv, kv);
          if (kLr) {
            const V oc = dcr[c], ok = dkr[c];
            V sc = T::shift1(oc, pc), sk = T::shift1(ok, pk);
            pc = oc;
            pk = ok;
            T::take_lt(sc, sk, cv, kv);
            dcr[c] = sc;
            dkr[c] = sk;
          }
        }
        if (kLr) {
          const int xp = x - 1 - dmin - (kN * L - 1);
          if (xp >= 0 && xp < w) dres[xp] = static_cast<uint16_t>(T::top(pk));
        }
        if (kIn) {
          const std::ptrdiff_t r = (x & (kStereoCostRing - 1)) * L;
          T::store(bcr + r, bc);
          T::store(bir + r, bi);
          if (x >= kDefer) pixel(x - kDefer);
        }
      };
      for (int x = 0; x < w; ++x) step(x, yes, 0);
      for (int p = std::max(0, w - kDefer); p < w; ++p) pixel(p);
      if (kLr) {
        for (int x = w; x < xend; ++x) {
          const int need = x - w + 1 - dmin;
          step(x, no, need <= 0 ? 0 : need / L);
        }
#pragma GCC unroll 16
        for (int c = 0; c < kN; ++c) T::store(didx + c * L, dkr[c]);
        for (int g = 0; g < nch * L; ++g) {
          const int xp = xend - 1 - dmin - g;
          if (xp >= 0 && xp < w) dres[xp] = didx[g];
        }
      }
      (void)y;
      return;
    }
    for (int x = 0; x < w; ++x) {
      V bc = T::ones(), bi = T::zero();
      column(prime_c, yes, x, 0, bc, bi);
      const std::ptrdiff_t r = (x & (kStereoCostRing - 1)) * L;
      T::store(bcr + r, bc);
      T::store(bir + r, bi);
      if (x >= kDefer) pixel(x - kDefer);
    }
    for (int p = std::max(0, w - kDefer); p < w; ++p) pixel(p);
    if (kLr) {
      V bc, bi;
      for (int x = w; x < xend; ++x) {
        /* Past the image only chunks with some k >= x - W + 1 - dmin. */
        const int need = x - w + 1 - dmin;
        column(prime_c, no, x, need <= 0 ? 0 : need / L, bc, bi);
      }
      /* The slots still in the register (those of the chunks no longer
       * updated are all past the image). */
      for (int g = 0; g < nch * L; ++g) {
        const int xp = xend - 1 - dmin - g;
        if (xp >= 0 && xp < w) dres[xp] = didx[g];
      }
    }
    (void)y;
  };

  for (int y = s.y0; y < s.y1; ++y) {
    const bool prime = y == s.y0;
    if (prime) {
      std::memset(s.colsum, 0, sizeof(uint16_t) * (ucount + 1) * np);
      for (int j = -hh; j <= hh; ++j) {
        stereo_simd_fill(s, y + j, ucount, olen, ref_in, oth_in);
        for (int i = 0; i < ucount; ++i) {
          uint16_t* col = S + static_cast<std::ptrdiff_t>(i) * np;
          const uint8_t* oi = oth_in + (ucount - 1 - i);
          const V ri = T::set1(ref_in[i]);
          for (int c = 0; c < nch; ++c)
            T::store(col + c * L,
                     T::add(T::load(col + c * L), T::absd(ri, T::widen(oi + c * L))));
        }
      }
    } else {
      stereo_simd_fill(s, y + hh, ucount, olen, ref_in, oth_in);
      stereo_simd_fill(s, y - hh - 1, ucount, olen, ref_out, oth_out);
    }
    if (tex_thr > 0) texture_rows(s, y, prime, tcol);
    if (kLr) std::fill(dcost, dcost + np, uint16_t{0xFFFF});
    if (prime)
      row(std::integral_constant<bool, true>(), y);
    else
      row(std::integral_constant<bool, false>(), y);

    /* Sub-pixel, uniqueness and left-right tests (8 pixels at a time),
     * then texture (original coordinates) while the row is written. */
    uint16_t* const val = flag;
    const __m256i vdmin = _mm256_set1_epi32(dmin);
    const __m256i lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    const __m256i zero = _mm256_setzero_si256();
    int xf = 0;
    for (; xf + 8 <= w; xf += 8) {
      const __m256i kb = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(kba + xf));
      const __m256i d = _mm256_add_epi32(kb, vdmin);
      __m256i v = _mm256_slli_epi32(d, kDisparityFracBits);
      if (subpixel) {
        auto ld = [&](const uint16_t* a) {
          return _mm256_cvtepu16_epi32(
              _mm_loadu_si128(reinterpret_cast<const __m128i*>(a + xf)));
        };
        const __m256i c0 = ld(c0a), cm = ld(cma), cp = ld(cpa);
        const __m256i den =
            _mm256_sub_epi32(_mm256_add_epi32(cm, cp), _mm256_add_epi32(c0, c0));
        const __m256i a =
            _mm256_add_epi32(_mm256_slli_epi32(_mm256_sub_epi32(cm, cp), 4), den);
        /* stereo_subpixel_frac, in float (exact, see there); den <= 0
         * lanes are masked below. */
        __m256i q = _mm256_cvttps_epi32(_mm256_floor_ps(_mm256_div_ps(
            _mm256_cvtepi32_ps(a), _mm256_cvtepi32_ps(_mm256_add_epi32(den, den)))));
        q = _mm256_min_epi32(_mm256_max_epi32(q, _mm256_set1_epi32(-8)),
                             _mm256_set1_epi32(8));
        const __m256i ok = _mm256_and_si256(
            _mm256_and_si256(_mm256_cmpgt_epi32(den, zero), _mm256_cmpgt_epi32(kb, zero)),
            _mm256_cmpgt_epi32(_mm256_set1_epi32(n - 1), kb));
        v = _mm256_add_epi32(v, _mm256_and_si256(q, ok));
      }
      __m256i bad = _mm256_cmpgt_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(
                                           reinterpret_cast<const __m128i*>(flag + xf))),
                                       zero);
      if (kLr) {
        /* Partner x' = xf - d; D'(x') = dmin + dres[x'] (read as the low
         * half of a 32-bit gather; dres has room past w). */
        const __m256i p =
            _mm256_sub_epi32(_mm256_add_epi32(_mm256_set1_epi32(xf), lane), d);
        const __m256i pin = _mm256_cmpgt_epi32(zero, p);
        const __m256i g =
            _mm256_and_si256(_mm256_i32gather_epi32(reinterpret_cast<const int*>(dres),
                                                    _mm256_andnot_si256(pin, p), 2),
                             _mm256_set1_epi32(0xFFFF));
        const __m256i diff =
            _mm256_abs_epi32(_mm256_sub_epi32(_mm256_add_epi32(g, vdmin), d));
        bad = _mm256_or_si256(
            bad,
            _mm256_or_si256(pin, _mm256_cmpgt_epi32(diff, _mm256_set1_epi32(lr_max))));
      }
      /* 0xFFFF, not -1: the pack below saturates signed values. */
      v = _mm256_blendv_epi8(v, _mm256_set1_epi32(kInvalidDisparity), bad);
      const __m256i packed = _mm256_permute4x64_epi64(_mm256_packus_epi32(v, v), 0x08);
      _mm_storeu_si128(reinterpret_cast<__m128i*>(val + xf),
                       _mm256_castsi256_si128(packed));
    }
    for (; xf < w; ++xf) {
      const int kb = kba[xf];
      const int frac = subpixel && kb > 0 && kb < n - 1
                           ? stereo_subpixel_frac(c0a[xf], cma[xf], cpa[xf])
                           : 0;
      uint16_t v = flag[xf] ? kInvalidDisparity
                            : static_cast<uint16_t>(kDisparityScale * (dmin + kb) + frac);
      if (kLr && v != kInvalidDisparity) {
        const int d = dmin + kb;
        const int p = xf - d;
        if (p < 0 || std::abs(dmin + dres[p] - d) > lr_max) v = kInvalidDisparity;
      }
      val[xf] = v;
    }
    uint16_t* o = s.out->row(y);
    if (tex_thr > 0) {
      uint32_t tex = 0;
      for (int c = 0; c <= 2 * hw; ++c) tex += tcol[c];
      for (int x = 0; x < w; ++x) {
        if (x > 0) tex += tcol[x + 2 * hw] - tcol[x - 1];
        const uint16_t v = val[flip ? w - 1 - x : x];
        o[x] = tex < static_cast<uint32_t>(tex_thr) ? kInvalidDisparity : v;
      }
    } else if (flip) {
      for (int x = 0; x < w; ++x) o[x] = val[w - 1 - x];
    } else {
      std::memcpy(o, val, sizeof(uint16_t) * w);
    }
  }
  (void)height;
}

/* The build for `chunks` register chunks (1 to 8), else the general one
 * (0). */
template <class T, bool kLr>
void stereo_strip_simd_chunks(const StereoStrip& s, int chunks) {
  switch (chunks) {
    case 1:
      return stereo_strip_simd<T, kLr, 1>(s);
    case 2:
      return stereo_strip_simd<T, kLr, 2>(s);
    case 3:
      return stereo_strip_simd<T, kLr, 3>(s);
    case 4:
      return stereo_strip_simd<T, kLr, 4>(s);
    case 5:
      return stereo_strip_simd<T, kLr, 5>(s);
    case 6:
      return stereo_strip_simd<T, kLr, 6>(s);
    case 7:
      return stereo_strip_simd<T, kLr, 7>(s);
    case 8:
      return stereo_strip_simd<T, kLr, 8>(s);
    default:
      return stereo_strip_simd<T, kLr, 0>(s);
  }
}

template <class T, bool kLr>
void stereo_strip_simd_n(const StereoStrip& s) {
  if constexpr (T::kLanes == 32)
    /* 32 lanes: up to 8 chunks, each count its own build (registers). */
    stereo_strip_simd_chunks<T, kLr>(s, (s.n + 31) / 32);
  else if constexpr (!kLr)
    /* 16 lanes, 16 registers: C alone fits in registers up to 8 chunks. */
    stereo_strip_simd_chunks<T, kLr>(s, (s.n + 15) / 16);
  else
    stereo_strip_simd<T, kLr, 0>(s);
}

template <class T>
void stereo_strip_simd_entry(const StereoStrip& s) {
  if (s.lr_max_diff >= 0)
    stereo_strip_simd_n<T, true>(s);
  else
    stereo_strip_simd_n<T, false>(s);
}

}  // namespace
}  // namespace cpu
}  // namespace match
