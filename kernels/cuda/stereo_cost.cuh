/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-lane code of SGM's cost stage (stereo_cost.cu) that the host
 * emulation of the fused cost and cost-window kernel runs too
 * (kernels/testing): __host__ __device__, lanes independent (no shuffles).
 */
#pragma once

#include "stereo_sgm.cuh"

namespace match {
namespace cuda {
namespace sgm_detail {

__host__ __device__ __forceinline__ int rho(uint8_t a, uint8_t b) {
  return abs(static_cast<int>(a) - static_cast<int>(b));
}
__host__ __device__ __forceinline__ int rho(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
  return __popcll(a ^ b);
#else
  return __builtin_popcountll(a ^ b);
#endif
}

/* A lane's values of the other view for its PER disparities k0 + j along
 * a row (sgm_cost_kernel, box3_tile). Slot j holds the other view at
 * x + sign (k0 + j), the sign being kLeft's, read clamped to the row, so
 * pixel x + 1's slots are pixel x's shifted by one disparity and one new
 * value (slot jn's) is loaded per pixel; the callers' unrolled loops make
 * the shift a renaming. */
template <typename F, int PER, bool kLeft>
struct CostSlots {
  static constexpr int sign = kLeft ? -1 : 1, jn = kLeft ? 0 : PER - 1;
  F o[PER];
  int lo[PER]; /* kCensusAd: the other view's luma of the slot */

  __host__ __device__ __forceinline__ static int column(const SgmArgs& a, int k0, int x,
                                                        int j) {
    return stage_clampi(x + sign * (k0 + j), 0, a.width - 1);
  }

  /* The slots of pixel x (the row's: orow, its luma loth). */
  __host__ __device__ __forceinline__ void start(const SgmArgs& a, const F* orow,
                                                 const uint8_t* loth, int k0, int x) {
    MATCH_UNROLL
    for (int j = 0; j < PER; ++j) {
      const int xo = column(a, k0, x, j);
      o[j] = orow[xo];
      lo[j] = a.ad ? loth[xo] : 0;
    }
  }

  /* Slides to pixel x and returns its costs c(x, k0 + j) in c.s[j], the
   * reference view's value and luma (a.ad uniform) read at column xr. */
  __host__ __device__ __forceinline__ void next(const SgmArgs& a, const F* rrow,
                                                const F* orow, const uint8_t* lref,
                                                const uint8_t* loth, int k0, int x,
                                                int xr, Pack<uint8_t, PER>& c) {
    MATCH_UNROLL
    for (int j = 0; j < PER - 1; ++j) {
      const int d = kLeft ? PER - 1 - j : j; /* the slot written */
      o[d] = o[d + sign];
      lo[d] = lo[d + sign];
    }
    const int xo = column(a, k0, x, jn);
    o[jn] = orow[xo];
    const F av = rrow[xr];
    if (a.ad) {
      lo[jn] = loth[xo];
      const int lr = lref[xr];
      MATCH_UNROLL
      for (int j = 0; j < PER; ++j)
        c.s[j] = static_cast<uint8_t>(rho(av, o[j]) +
                                      (min(abs(lr - lo[j]), kCensusAdCap) >> 1));
    } else {
      MATCH_UNROLL
      for (int j = 0; j < PER; ++j) c.s[j] = static_cast<uint8_t>(rho(av, o[j]));
    }
  }
};

/* Four byte sums of a window of kArea costs, even bytes' in e and odd
 * bytes' in o (u16x2: kArea x 255 < 2^16), as one word of their rounded
 * means, (sum + kArea / 2) / kArea as in the reference, in the bytes'
 * order (sgm_box_kernel, box3_tile). */
template <int kArea>
__host__ __device__ __forceinline__ uint32_t rounded_means(uint32_t e, uint32_t o) {
  constexpr uint32_t kHalf = kArea / 2;
  const uint32_t b0 = ((e & 0xFFFFu) + kHalf) / kArea;
  const uint32_t b2 = ((e >> 16) + kHalf) / kArea;
  const uint32_t b1 = ((o & 0xFFFFu) + kHalf) / kArea;
  const uint32_t b3 = ((o >> 16) + kHalf) / kArea;
  return b0 | b1 << 8 | b2 << 16 | b3 << 24;
}

/* The default cost window (B = 3) in one pass with the costs
 * (sgm_cost_box3_kernel): cb straight into the cost volume, c never stored
 * (sgm_cost_kernel and sgm_box_kernel write c, read it back and write cb:
 * 3 volumes of traffic instead of 1). A warp
 * owns a tile of kX pixels x kBox3Band rows; lane l the PER consecutive
 * disparities k = PER l + j, as in sgm_cost_kernel and the volume. The
 * warp walks the tile's rows (and one above and below, read clamped),
 * computing c for its kX + 2 columns with sgm_cost_kernel's sliding slots
 * (one load of the other view per pixel), and keeps the last three rows'
 * c in registers (shifted by one row per row: 2 (kX + 2) moves against
 * the row's few hundred instructions); each row's output is then the
 * 3 x 3 sum, even and odd bytes summed apart in u16x2 words (9 x 255 <
 * 2^16), and its rounded means (rounded_means). c is computed
 * (kX + 2) / kX x (kBox3Band + 2) / kBox3Band = 1.33 times per output. Lanes
 * are independent (no shuffles), so the host emulation runs the same
 * code lane by lane. With 16-pixel tiles or without the cap of 128
 * registers ptxas spilled; larger windows (B x (kX + B - 1) ring words)
 * keep the two kernels. */
constexpr int kBox3Band = 32;
constexpr int kBox3Ctas = 4; /* per SM: at most 128 registers */

template <int PER>
struct Box3Tile {
  static constexpr int kX = 8; /* output pixels per warp */
  static constexpr int kCols = kX + 2;
  static constexpr int kWd = PER == 8 ? 2 : 1; /* c words per column */
};

/* The warp of tile (x0, y0), lane `lane`. */
template <typename F, int PER, bool kLeft>
__host__ __device__ __forceinline__ void box3_tile(const SgmArgs& a, int x0, int y0,
                                                   int lane) {
  using T = Box3Tile<PER>;
  constexpr int kCols = T::kCols, kWd = T::kWd, kNp = 32 * PER;
  constexpr uint32_t kLow = 0x00FF00FFu;
  const int w = a.width, h = a.height;
  const int k0 = a.dmin + PER * lane;
  const int y1 = min(h, y0 + kBox3Band);
  using Costs = decltype(Pack<uint8_t, PER>::v);
  /* c of row yy (read clamped) at the columns xs - 1 + i into cw[i]; the
   * columns outside the image take their nearest inside one's words. */
  auto costs = [&](int yy, int xs, uint32_t(&cw)[kCols][kWd]) {
    yy = stage_clampi(yy, 0, h - 1);
    const F* rrow = static_cast<const F*>(a.fref) + static_cast<size_t>(yy) * a.fpitch;
    const F* orow = static_cast<const F*>(a.foth) + static_cast<size_t>(yy) * a.fpitch;
    const uint8_t* lref = a.luma + static_cast<size_t>(yy) * a.img_pitch;
    const uint8_t* loth = a.luma_oth + static_cast<size_t>(yy) * a.img_pitch;
    CostSlots<F, PER, kLeft> slots;
    slots.start(a, orow, loth, k0, xs - 2);
    MATCH_UNROLL
    for (int i = 0; i < kCols; ++i) {
      const int x = xs - 1 + i;
      Pack<uint8_t, PER> c;
      slots.next(a, rrow, orow, lref, loth, k0, x, stage_clampi(x, 0, w - 1), c);
      if constexpr (PER == 8) {
        cw[i][0] = c.v.x;
        cw[i][1] = c.v.y;
      } else {
        cw[i][0] = c.v; /* PER 2: the high half 0 */
      }
    }
    if (xs == 0) {
      MATCH_UNROLL
      for (int q = 0; q < kWd; ++q) cw[0][q] = cw[1][q];
    }
    MATCH_UNROLL
    for (int i = 1; i < kCols; ++i)
      if (xs - 1 + i >= w) {
        MATCH_UNROLL
        for (int q = 0; q < kWd; ++q) cw[i][q] = cw[i - 1][q];
      }
  };
  /* cb of row y from the ring's three rows: column i's vertical sums
   * enter a window of three columns. */
  auto emit = [&](int y, const uint32_t(&r0)[kCols][kWd], const uint32_t(&r1)[kCols][kWd],
                  const uint32_t(&r2)[kCols][kWd]) {
    Costs* out = reinterpret_cast<Costs*>(
        a.cost + (static_cast<size_t>(y) * w + x0) * kNp + lane * PER);
    uint32_t ve[3][kWd], vo[3][kWd]; /* columns i - 2, i - 1, i (mod 3) */
    MATCH_UNROLL
    for (int i = 0; i < kCols; ++i) {
      MATCH_UNROLL
      for (int q = 0; q < kWd; ++q) {
        ve[i % 3][q] = (r0[i][q] & kLow) + (r1[i][q] & kLow) + (r2[i][q] & kLow);
        vo[i % 3][q] = ((r0[i][q] >> 8) & kLow) + ((r1[i][q] >> 8) & kLow) +
                       ((r2[i][q] >> 8) & kLow);
      }
      const int t = i - 2; /* the output pixel whose window is complete */
      if (t < 0) continue;
      if (x0 + t >= w) break;
      uint32_t cb[kWd];
      MATCH_UNROLL
      for (int q = 0; q < kWd; ++q) {
        cb[q] = rounded_means<9>(ve[0][q] + ve[1][q] + ve[2][q],
                                 vo[0][q] + vo[1][q] + vo[2][q]);
      }
      Costs v;
      if constexpr (PER == 8)
        v = make_uint2(cb[0], cb[1]);
      else
        v = static_cast<Costs>(cb[0]);
      out[t * (kNp / PER)] = v;
    }
  };
  uint32_t ring[3][kCols][kWd]; /* rows y - 1, y, y + 1 */
  costs(y0 - 1, x0, ring[1]);
  costs(y0, x0, ring[2]);
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  for (int y = y0; y < y1; ++y) {
    MATCH_UNROLL
    for (int i = 0; i < kCols; ++i) MATCH_UNROLL
    for (int q = 0; q < kWd; ++q) {
      ring[0][i][q] = ring[1][i][q];
      ring[1][i][q] = ring[2][i][q];
    }
    /* x0 through an empty asm: the columns' indices are recomputed per
     * row (a few integer ops) instead of hoisted out of the loop, which
     * held them in ~40 registers and made the kernel spill. */
    int xs = x0;
#ifdef __CUDA_ARCH__
    asm volatile("" : "+r"(xs));
#endif
    costs(y + 1, xs, ring[2]);
    emit(y, ring[0], ring[1], ring[2]);
  }
}

}  // namespace sgm_detail
}  // namespace cuda
}  // namespace match
