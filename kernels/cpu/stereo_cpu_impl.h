/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The rolling-sum SAD stereo loop of the CPU backend (paper [D], after Di
 * Stefano et al. 2004), shared by every instruction set: each
 * stereo_cpu*.cpp includes this file and is compiled with its own flags
 * (-mavx2; baseline x86-64 = SSE2; the vectoriser off for the scalar path),
 * so the same source is vectorised over disparities by the compiler at each
 * level. Everything is in an anonymous namespace on purpose, as in
 * sad_cpu_impl.h: a merged inline function could run AVX2 code on a CPU
 * without it.
 *
 * Layout and why it gives the reference's numbers exactly:
 * - a(u, r, d) = rho(A_Ref(cl(u), r), A_Oth(cl(u -/+ d), r)) (rho = |.|
 *   of uint8 images, the popcount of XOR of census strings) for an UNclamped
 *   column u: the cost's two reads clamp independently, so columns outside
 *   the image are kept as columns of their own (u in [xbeg - hw, xend + hw)).
 * - Column sums S(u, y, d) = sum_j a(u, cl(y + j), d) (at most 31 x 255:
 *   uint16) roll down a strip of rows: S(u, y + 1) = S(u, y) +
 *   a(u, cl(y + 1 + hh)) - a(u, cl(y - hh)). Each strip primes its own.
 * - C(x, y, d) = sum_i S(x + i, y, d), rolled along the row: C(x + 1) =
 *   C(x) + S(x + 1 + hw) - S(x - hw). CostT is uint16 when the largest
 *   cost (ww wh 255) fits, else uint32; wrap-around in the intermediate
 *   sums is harmless because every final value fits.
 * - Disparities are the innermost, contiguous axis, so every update is a
 *   plain loop over d. For that the other view's row is copied once per row
 *   into a clamped (and, for the left reference, reversed) strip in which
 *   Oth(cl(u -/+ d)) is contiguous in d.
 * - WTA and the other view's map use one key, C << 8 | k (costs < 2^24,
 *   k < 256): the minimum key is the lowest cost with the smallest d.
 * - Left-right check without a second cost volume: the other view's cost
 *   C'(x', d) is the sum over the very same pixel pairs as C(x' +/- d, d)
 *   (also at the clamped borders, since both reads clamp on their own), so
 *   D'(x') = argmin_d C(x' +/- d, d). For every x each key is folded into
 *   slot x' = x -/+ d of a per-row array (contiguous in d when stored
 *   reversed for the left reference). The x range is widened by the largest
 *   disparity so that every x' in [0, W) sees all its candidates.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "match/stereo.h"

namespace match {
namespace cpu {

/* Rows of 16-bit costs the SIMD loop keeps (a power of two, >= 2). */
constexpr int kStereoCostRing = 8;

/* One strip of rows and everything it needs; scratch belongs to one thread
 * and is sized by the matcher (stereo_cpu.cpp). */
struct StereoStrip {
  const ImageView* ref; /* luma of the reference view (texture test) */
  /* The per-pixel images A the cost compares (match/stereo.h): the luma
   * (kSad), the clipped Sobel (kSobel), both uint8; or census strings, one
   * uint32_t or uint64_t per pixel (the P of stereo_strip), whose rows
   * row(y) reinterpret. */
  const ImageView* ref_a;
  const ImageView* oth_a;
  bool left_ref;
  int width, height, hw, hh, dmin, n, n_pad;
  int xbeg, xend; /* cost columns; wider than [0, W) for the LR check */
  int y0, y1;
  bool subpixel;
  int lr_max_diff, uniqueness_ratio, texture_threshold;
  /* Scratch. */
  uint16_t* colsum;  /* (xend - xbeg + 2 hw + 1) x n_pad */
  void* cost;        /* kStereoCostRing x n_pad uint16 (>= n_pad CostT) */
  uint8_t* ref_ext;  /* 2 x (xend - xbeg + 2 hw) P */
  uint8_t* oth_ext;  /* 2 x (xend - xbeg + 2 hw + n_pad) P */
  uint32_t* diag;    /* xend - xbeg + 2 n_pad: the other view's minima */
  int32_t* best_d;   /* width */
  uint16_t* value;   /* 4 x width (the SIMD loop uses all four) */
  uint32_t* tex_col; /* width + 2 hw */
  const DisparityView* out;
};

using StereoStripFn = void (*)(const StereoStrip& s);

/* Per instruction set: the uint16 and uint32 cost variants of the uint8
 * images (kSad, kSobel), and the census ones (16-bit costs: a census cost
 * is at most 63 per pixel, 31 x 31 x 63 < 65536) for 32- and 64-bit
 * strings. */
struct StereoKernels {
  StereoStripFn cost16;
  StereoStripFn cost32;
  StereoStripFn census32;
  StereoStripFn census64;
};
StereoKernels stereo_kernels_scalar();
StereoKernels stereo_kernels_sse2();
StereoKernels stereo_kernels_avx2();
/* The 16-bit loop for AVX-512BW (stereo_cpu_avx512.cpp). */
StereoStripFn stereo_kernel_avx512_cost16();

namespace {

inline int stereo_clamp(int v, int hi) { return v < 0 ? 0 : (v > hi ? hi : v); }

inline uint16_t absdiff_u8(uint8_t a, uint8_t b) {
  return static_cast<uint16_t>(a > b ? a - b : b - a);
}

/* The per-pixel cost rho of match/stereo.h for each kind of image A. */
inline uint16_t stereo_rho(uint8_t a, uint8_t b) { return absdiff_u8(a, b); }
inline uint16_t stereo_rho(uint32_t a, uint32_t b) {
  return static_cast<uint16_t>(__builtin_popcount(a ^ b));
}
inline uint16_t stereo_rho(uint64_t a, uint64_t b) {
  return static_cast<uint16_t>(__builtin_popcountll(a ^ b));
}

/* out[k] += min(|r - o[k]|, kCensusAdCap) / 2 for k < np (kCensusAd; the
 * compiler vectorises it). */
inline void stereo_add_ad_row(uint8_t r, const uint8_t* __restrict o, int np,
                              uint8_t* __restrict out) {
  for (int k = 0; k < np; ++k) {
    const int d = r > o[k] ? r - o[k] : o[k] - r;
    out[k] = static_cast<uint8_t>(out[k] + ((d < kCensusAdCap ? d : kCensusAdCap) >> 1));
  }
}

/* out[k] = rho(r, o[k]) for k < np. */
template <typename P>
inline void stereo_rho_row(P r, const P* __restrict o, int np, uint8_t* __restrict out) {
  for (int k = 0; k < np; ++k) out[k] = static_cast<uint8_t>(stereo_rho(r, o[k]));
}

#if defined(__AVX2__) && !defined(__AVX512VPOPCNTDQ__)
/* 64-bit census with AVX2, which has no vector popcount (the compiler
 * leaves the loop above scalar; a third of the SGM time): 16 disparities
 * at a time, the popcount of each byte from a nibble table (vpshufb), the
 * bytes of each 64-bit lane summed by vpsadbw, and the 16 sums packed
 * back into 16 bytes in order. */
template <>
inline void stereo_rho_row(uint64_t r, const uint64_t* __restrict o, int np,
                           uint8_t* __restrict out) {
  const __m256i lut = _mm256_setr_epi8(0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4, 0,
                                       1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4);
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  const __m256i rv = _mm256_set1_epi64x(static_cast<long long>(r));
  const __m256i zero = _mm256_setzero_si256();
  /* After the packs the bytes hold k = 0 4 1 5 8 12 9 13 2 6 3 7 10 14 11
   * 15; byte j of the result takes k = j from there. */
  const __m128i order =
      _mm_setr_epi8(0, 2, 8, 10, 1, 3, 9, 11, 4, 6, 12, 14, 5, 7, 13, 15);
  auto count = [&](const uint64_t* p) {
    const __m256i x =
        _mm256_xor_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)), rv);
    const __m256i n = _mm256_add_epi8(
        _mm256_shuffle_epi8(lut, _mm256_and_si256(x, low4)),
        _mm256_shuffle_epi8(lut, _mm256_and_si256(_mm256_srli_epi16(x, 4), low4)));
    return _mm256_sad_epu8(n, zero); /* 4 sums of 8 bytes, one per lane */
  };
  for (int k = 0; k < np; k += 16) {
    const __m256i t01 =
        _mm256_or_si256(count(o + k), _mm256_slli_epi64(count(o + k + 4), 32));
    const __m256i t23 =
        _mm256_or_si256(count(o + k + 8), _mm256_slli_epi64(count(o + k + 12), 32));
    const __m256i w = _mm256_packus_epi32(t01, t23);
    const __m256i b = _mm256_packus_epi16(w, w);
    const __m128i q = _mm256_castsi256_si128(_mm256_permute4x64_epi64(b, 0x08));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + k), _mm_shuffle_epi8(q, order));
  }
}
#endif

/* The sub-pixel offset in sixteenths of match/stereo.h from C(d*) = c0,
 * C(d* - 1) = cm and C(d* + 1) = cp: floor((16 (cm - cp) + den) / (2
 * den)) clamped to [-8, 8] where den = cm + cp - 2 c0 > 0, else 0. */
inline int stereo_frac(int64_t c0, int64_t cm, int64_t cp) {
  const int64_t den = cm + cp - 2 * c0;
  if (den <= 0) return 0;
  const int64_t num = 16 * (cm - cp), d2 = 2 * den;
  int64_t q = (num + den) / d2;
  if ((num + den) % d2 != 0 && num + den < 0) --q; /* floor */
  return static_cast<int>(std::min<int64_t>(8, std::max<int64_t>(-8, q)));
}

/* Texture column sums rolled like the cost's: tex_col[u + hw] holds
 * sum_j |Ref(cl(u + 1)) - Ref(cl(u - 1))| over the window's rows. */
inline void texture_rows(const StereoStrip& s, int y, bool prime, uint32_t* tcol) {
  const int w = s.width, cols = w + 2 * s.hw;
  auto add_row = [&](int r, int sign) {
    const uint8_t* p = s.ref->row(stereo_clamp(r, s.height - 1));
    for (int c = 0; c < cols; ++c) {
      const int u = c - s.hw;
      const uint32_t g =
          absdiff_u8(p[stereo_clamp(u + 1, w - 1)], p[stereo_clamp(u - 1, w - 1)]);
      tcol[c] += sign > 0 ? g : 0u - g;
    }
  };
  if (prime) {
    std::fill(tcol, tcol + cols, 0u);
    for (int j = -s.hh; j <= s.hh; ++j) add_row(y + j, 1);
  } else {
    add_row(y + s.hh, 1);
    add_row(y - s.hh - 1, -1);
  }
}

template <typename CostT, typename P = uint8_t>
void stereo_strip(const StereoStrip& s) {
  const int w = s.width, np = s.n_pad, n = s.n, dmin = s.dmin;
  const int ucount = s.xend - s.xbeg + 2 * s.hw;
  const int ubeg = s.xbeg - s.hw, uend = ubeg + ucount;
  const int olen = ucount + np;
  const bool lr = s.lr_max_diff >= 0;
  uint16_t* const S = s.colsum;
  CostT* const C = static_cast<CostT*>(s.cost);
  P* const ref_in = reinterpret_cast<P*>(s.ref_ext);
  P* const ref_out = ref_in + ucount;
  P* const oth_in = reinterpret_cast<P*>(s.oth_ext);
  P* const oth_out = oth_in + olen;

  /* Row r of both views as the clamped strips described on top:
   * oth[obase(i) + k] = Oth(cl(u -/+ (dmin + k))) for u = ubeg + i. */
  auto fill = [&](int r, P* rx, P* ox) {
    const int rc = stereo_clamp(r, s.height - 1);
    const P* rp = reinterpret_cast<const P*>(s.ref_a->row(rc));
    const P* op = reinterpret_cast<const P*>(s.oth_a->row(rc));
    for (int i = 0; i < ucount; ++i) rx[i] = rp[stereo_clamp(ubeg + i, w - 1)];
    if (s.left_ref)
      for (int t = 0; t < olen; ++t) ox[t] = op[stereo_clamp(uend - 1 - dmin - t, w - 1)];
    else
      for (int t = 0; t < olen; ++t) ox[t] = op[stereo_clamp(ubeg + dmin + t, w - 1)];
  };
  auto obase = [&](int i) { return s.left_ref ? ucount - 1 - i : i; };

  /* S(i) += a(entering row) - a(leaving row), over all n_pad lanes (a
   * multiple of 32, so the fixed inner trip count vectorises without
   * tails; lanes >= n are never read). */
  alignas(64) uint8_t a_in[kMaxDisparities + 32], a_out[kMaxDisparities + 32];
  auto roll_column = [&](int i) {
    uint16_t* __restrict col = S + static_cast<std::ptrdiff_t>(i) * np;
    const P ri = ref_in[i], ro = ref_out[i];
    const P* __restrict oi = oth_in + obase(i);
    const P* __restrict oo = oth_out + obase(i);
    if constexpr (sizeof(P) > 1) {
      /* Census: the popcounts of both rows first (stereo_rho_row). */
      stereo_rho_row(ri, oi, np, a_in);
      stereo_rho_row(ro, oo, np, a_out);
      for (int k0 = 0; k0 < np; k0 += 32)
        for (int k = k0; k < k0 + 32; ++k)
          col[k] = static_cast<uint16_t>(col[k] + a_in[k] - a_out[k]);
      return;
    }
    for (int k0 = 0; k0 < np; k0 += 32)
      for (int k = k0; k < k0 + 32; ++k)
        col[k] =
            static_cast<uint16_t>(col[k] + stereo_rho(ri, oi[k]) - stereo_rho(ro, oo[k]));
  };

  for (int y = s.y0; y < s.y1; ++y) {
    const bool prime = y == s.y0;
    if (prime) {
      std::memset(S, 0, sizeof(uint16_t) * ucount * np);
      for (int j = -s.hh; j <= s.hh; ++j) {
        fill(y + j, ref_in, oth_in);
        for (int i = 0; i < ucount; ++i) {
          uint16_t* __restrict col = S + static_cast<std::ptrdiff_t>(i) * np;
          const P ri = ref_in[i];
          const P* __restrict oi = oth_in + obase(i);
          for (int k0 = 0; k0 < np; k0 += 32)
            for (int k = k0; k < k0 + 32; ++k)
              col[k] = static_cast<uint16_t>(col[k] + stereo_rho(ri, oi[k]));
        }
      }
    } else {
      fill(y + s.hh, ref_in, oth_in);
      fill(y - s.hh - 1, ref_out, oth_out);
    }
    if (s.texture_threshold > 0) texture_rows(s, y, prime, s.tex_col);
    if (lr) std::fill(s.diag, s.diag + (s.xend - s.xbeg) + np, UINT32_MAX);

    /* C for x = xbeg from the first 2 hw + 1 columns. */
    std::fill(C, C + np, CostT(0));
    for (int i = 0; i <= 2 * s.hw; ++i) {
      if (!prime) roll_column(i);
      const uint16_t* __restrict col = S + static_cast<std::ptrdiff_t>(i) * np;
      for (int k0 = 0; k0 < np; k0 += 32)
        for (int k = k0; k < k0 + 32; ++k) C[k] = static_cast<CostT>(C[k] + col[k]);
    }
    for (int x = s.xbeg; x < s.xend; ++x) {
      if (x > s.xbeg) {
        const int i_in = x - s.xbeg + 2 * s.hw, i_out = x - s.xbeg - 1;
        if (!prime) roll_column(i_in);
        const uint16_t* __restrict cin = S + static_cast<std::ptrdiff_t>(i_in) * np;
        const uint16_t* __restrict cout = S + static_cast<std::ptrdiff_t>(i_out) * np;
        for (int k0 = 0; k0 < np; k0 += 32)
          for (int k = k0; k < k0 + 32; ++k)
            C[k] = static_cast<CostT>(C[k] + cin[k] - cout[k]);
      }
      const bool inside = x >= 0 && x < w;
      const CostT* __restrict cc = C;
      uint32_t best = UINT32_MAX;
      if (lr) {
        /* Slot of k = 0; slot q holds x' = xend - 1 - dmin - q (left
         * reference) or q + xbeg + dmin (right reference). */
        uint32_t* __restrict dg = s.diag + (s.left_ref ? s.xend - 1 - x : x - s.xbeg);
        if (inside) {
          for (int k = 0; k < n; ++k) {
            const uint32_t key =
                static_cast<uint32_t>(cc[k]) << 8 | static_cast<uint32_t>(k);
            best = std::min(best, key);
            dg[k] = std::min(dg[k], key);
          }
        } else {
          for (int k = 0; k < n; ++k) {
            const uint32_t key =
                static_cast<uint32_t>(cc[k]) << 8 | static_cast<uint32_t>(k);
            dg[k] = std::min(dg[k], key);
          }
        }
      } else {
        for (int k = 0; k < n; ++k) {
          const uint32_t key =
              static_cast<uint32_t>(cc[k]) << 8 | static_cast<uint32_t>(k);
          best = std::min(best, key);
        }
      }
      if (!inside) continue;

      const int kb = static_cast<int>(best & 255u);
      const int64_t c0 = best >> 8;
      const int frac =
          s.subpixel && kb > 0 && kb < n - 1 ? stereo_frac(c0, C[kb - 1], C[kb + 1]) : 0;
      uint16_t v = static_cast<uint16_t>(kDisparityScale * (dmin + kb) + frac);
      if (s.uniqueness_ratio > 0) {
        /* The lowest cost at least two steps away from the winner. */
        uint32_t m2 = UINT32_MAX;
        for (int k = 0; k < kb - 1; ++k) m2 = std::min<uint32_t>(m2, C[k]);
        for (int k = kb + 2; k < n; ++k) m2 = std::min<uint32_t>(m2, C[k]);
        if (m2 != UINT32_MAX &&
            100 * int64_t{m2} <= (100 + int64_t{s.uniqueness_ratio}) * c0)
          v = kInvalidDisparity;
      }
      s.value[x] = v;
      s.best_d[x] = dmin + kb;
    }

    /* Texture and left-right tests (uniqueness was applied above). */
    uint16_t* o = s.out->row(y);
    uint32_t tex = 0;
    if (s.texture_threshold > 0)
      for (int c = 0; c <= 2 * s.hw; ++c) tex += s.tex_col[c];
    for (int x = 0; x < w; ++x) {
      if (s.texture_threshold > 0 && x > 0)
        tex += s.tex_col[x + 2 * s.hw] - s.tex_col[x - 1];
      uint16_t v = s.value[x];
      if (s.texture_threshold > 0 && tex < static_cast<uint32_t>(s.texture_threshold))
        v = kInvalidDisparity;
      if (v != kInvalidDisparity && lr) {
        const int d = s.best_d[x];
        const int p = s.left_ref ? x - d : x + d;
        if (p < 0 || p >= w) {
          v = kInvalidDisparity;
        } else {
          const int q = s.left_ref ? s.xend - 1 - dmin - p : p - s.xbeg - dmin;
          const int dp = dmin + static_cast<int>(s.diag[q] & 255u);
          if (std::abs(dp - d) > s.lr_max_diff) v = kInvalidDisparity;
        }
      }
      o[x] = v;
    }
  }
}

}  // namespace

}  // namespace cpu
}  // namespace match
