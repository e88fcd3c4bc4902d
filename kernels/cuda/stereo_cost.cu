/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * SGM's cost stage: the per-pixel costs, averaged over the cost window,
 * into the cost volume cb(x, y, k), [y][x][np] bytes, computed once for
 * all paths (stereo_paths.cu reads it). Computing the costs on the fly in
 * every path (two popcounts per census cost, 16 per SM and clock) made the
 * path kernel bound by popcounts and instruction issue at ~4 ms for
 * 1080p/128/8 paths, while reading 128 B per warp step costs a fraction of
 * that in DRAM bandwidth.
 *
 * One or two kernels:
 *  - sgm_cost_kernel: c(x, y, k) into [y][x][np] bytes (the cost volume,
 *    or with a cost window path 0's volume, which sgm_box_kernel reads).
 *  - sgm_box_kernel (cost_window 5, 7): cb, the rounded mean of c over the
 *    window; c is written first into path 0's volume, unused until the
 *    path kernel, so the cost window needs no memory of its own.
 *  - sgm_cost_box3_kernel (cost_window 3, the default) instead of both:
 *    c computed and averaged in registers, cb written once (its per-lane
 *    code is in stereo_cost.cuh, shared with the host emulation).
 */
#include "stereo_cost.cuh"

namespace match {
namespace cuda {
namespace {

using namespace sgm_detail;

/* The cost volume c(x, y, k), [y][x][np] bytes, once for all paths: one
 * warp per kSeg pixels of a row walking x up, lane l computing its PER
 * consecutive disparities k = PER l + j (one PER-byte store per pixel, the
 * warp's coalesced, in the layout the path kernel reads). The other view's
 * column of (x, k) is x + sign (dmin + k), so pixel x + 1's columns are
 * pixel x's shifted by one disparity: the lane keeps its PER values of the
 * other view in registers and loads one new one per pixel (left
 * reference: k = PER l; right: k = PER l + PER - 1), reads clamped to the
 * row as before, so every slot holds the value of the same clamped
 * column. The pixel loop is unrolled by PER and the reference is a
 * template parameter, so that the slots' rotation is a renaming, not
 * moves. On the H100 at 1080p/128: 0.180 ms, 83 M warp instructions
 * (lanes owning k = l + 32 s, PER loads and PER byte stores per pixel:
 * 0.255 ms, 158 M; sliding without the unrolling: 0.233 ms, 159 M). */
template <typename F, int PER, bool kLeft>
__global__ void __launch_bounds__(32 * kWarps) sgm_cost_kernel(const SgmArgs a) {
  const int lane = threadIdx.x & 31;
  const int segs = (a.width + kSeg - 1) / kSeg;
  const int id = blockIdx.x * kWarps + threadIdx.x / 32;
  const int y = id / segs;
  if (y >= a.height) return;
  const int x0 = (id % segs) * kSeg;
  const int x1 = min(a.width, x0 + kSeg);
  const F* rrow = static_cast<const F*>(a.fref) + static_cast<size_t>(y) * a.fpitch;
  const F* orow = static_cast<const F*>(a.foth) + static_cast<size_t>(y) * a.fpitch;
  constexpr int kNp = 32 * PER;
  using Costs = decltype(Pack<uint8_t, PER>::v);
  Costs* out =
      reinterpret_cast<Costs*>(a.cost + (static_cast<size_t>(y) * a.width + x0) * kNp) +
      lane;
  /* kCensusAd: the lumas of the same pixels (a.ad is uniform). */
  const uint8_t* lref = a.luma + static_cast<size_t>(y) * a.img_pitch;
  const uint8_t* loth = a.luma_oth + static_cast<size_t>(y) * a.img_pitch;
  const int k0 = a.dmin + PER * lane;
  CostSlots<F, PER, kLeft> slots;
  slots.start(a, orow, loth, k0, x0 - 1);
  /* Unrolled by PER so that the slots' rotation is a renaming. */
#pragma unroll PER
  for (int x = x0; x < x1; ++x, out += kNp / PER) {
    Pack<uint8_t, PER> c;
    slots.next(a, rrow, orow, lref, loth, k0, x, x, c);
    *out = c.v;
  }
}

/* cb = the rounded mean of c over the B x B square read clamped
 * (match/stereo.h), from c in path 0's volume to the cost volume. A
 * thread owns one 32-bit word (4 disparities) of one pixel x and walks
 * kBoxRows rows down: each input row's horizontal sum (B words, the
 * neighbouring pixels' same word: a warp reads B coalesced lines,
 * L1-shared by the CTA's neighbouring pixels) enters a ring of B row sums
 * in registers, and the window's sum is kept running (add the entering
 * row, subtract the leaving one), so every input word is read B times
 * instead of B B and DRAM sees c about once. The bytes are summed two to a
 * word (u16x2: even and odd bytes apart, at most 7 x 7 x 255 < 2^16, no
 * carry). kWords (words per pixel, a power of two) and B are compile-time:
 * shifts, static ring indices. (A thread per output word summing its B B
 * words took 0.78 ms of 3.8 per 1080p/128 pair on the H100.) */
constexpr int kBoxRows = 32;

template <int kWords, int B>
__global__ void __launch_bounds__(256) sgm_box_kernel(const SgmArgs a) {
  constexpr int R = (B - 1) / 2, kArea = B * B;
  const int t = blockIdx.x * 256 + threadIdx.x;
  if (t >= a.width * kWords) return;
  const int x = t / kWords, wd = t % kWords;
  const int y0 = blockIdx.y * kBoxRows, y1 = min(a.height, y0 + kBoxRows);
  const uint32_t* in = static_cast<const uint32_t*>(a.vol); /* c */
  uint32_t* out = reinterpret_cast<uint32_t*>(a.cost);
  const size_t row_words = static_cast<size_t>(a.width) * kWords;
  int col[B]; /* the B columns' word offsets, clamped */
#pragma unroll
  for (int i = 0; i < B; ++i)
    col[i] = stage_clampi(x + i - R, 0, a.width - 1) * kWords + wd;
  /* Horizontal sum of row yy: even bytes in *e, odd bytes in *o. */
  auto hsum = [&](int yy, uint32_t* e, uint32_t* o) {
    const uint32_t* row = in + stage_clampi(yy, 0, a.height - 1) * row_words;
    uint32_t se = 0, so = 0;
#pragma unroll
    for (int i = 0; i < B; ++i) {
      const uint32_t v = __ldg(row + col[i]);
      se += v & 0x00FF00FFu;
      so += (v >> 8) & 0x00FF00FFu;
    }
    *e = se;
    *o = so;
  };
  uint32_t re[B], ro[B];   /* ring: the row sums of the window's rows */
  uint32_t we = 0, wo = 0; /* their total */
#pragma unroll
  for (int j = 0; j < B - 1; ++j) {
    hsum(y0 - R + j, &re[j], &ro[j]);
    we += re[j];
    wo += ro[j];
  }
  re[B - 1] = ro[B - 1] = 0;
  for (int y = y0; y < y1; y += B) {
#pragma unroll
    for (int s = 0; s < B; ++s) {
      if (y + s >= y1) break;
      /* Row y + s + R enters slot (s + B - 1) % B; row y + s - R, in
       * slot s, leaves after this output. */
      const int in_slot = (s + B - 1) % B;
      hsum(y + s + R, &re[in_slot], &ro[in_slot]);
      we += re[in_slot];
      wo += ro[in_slot];
      out[(y + s) * row_words + t] = rounded_means<kArea>(we, wo);
      we -= re[s];
      wo -= ro[s];
    }
  }
}

template <typename F, int PER, bool kLeft>
__global__ void __launch_bounds__(32 * kWarps, fit_ctas(kBox3Ctas, 32 * kWarps))
    sgm_cost_box3_kernel(const SgmArgs a) {
  constexpr int kX = Box3Tile<PER>::kX;
  const int tiles_x = (a.width + kX - 1) / kX;
  const int id = blockIdx.x * kWarps + threadIdx.x / 32;
  const int ty = id / tiles_x;
  if (ty * kBox3Band >= a.height) return;
  box3_tile<F, PER, kLeft>(a, (id % tiles_x) * kX, ty * kBox3Band, threadIdx.x & 31);
}

template <typename F, int PER>
cudaError_t launch_cost_box3(const SgmArgs& a, cudaStream_t stream) {
  constexpr int kX = Box3Tile<PER>::kX;
  const int warps = ((a.width + kX - 1) / kX) * ((a.height + kBox3Band - 1) / kBox3Band);
  const int ctas = (warps + kWarps - 1) / kWarps;
  if (a.sign < 0)
    sgm_cost_box3_kernel<F, PER, true><<<ctas, 32 * kWarps, 0, stream>>>(a);
  else
    sgm_cost_box3_kernel<F, PER, false><<<ctas, 32 * kWarps, 0, stream>>>(a);
  return cudaGetLastError();
}

/* cost_window 5 or 7: 3 takes the fused kernel (launch_cost_box3), 1 no
 * mean at all (launch_cost_typed). */
template <int kWords>
cudaError_t launch_box(const SgmArgs& a, cudaStream_t stream) {
  const dim3 grid((a.width * kWords + 255) / 256, (a.height + kBoxRows - 1) / kBoxRows);
  switch (a.cost_window) {
    case 5:
      sgm_box_kernel<kWords, 5><<<grid, 256, 0, stream>>>(a);
      break;
    case 7:
      sgm_box_kernel<kWords, 7><<<grid, 256, 0, stream>>>(a);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

template <typename F, int PER>
cudaError_t launch_cost_typed(const SgmArgs& a, cudaStream_t stream) {
  const int warps = a.height * ((a.width + kSeg - 1) / kSeg);
  const int ctas = (warps + kWarps - 1) / kWarps;
  /* cost_window 5, 7: c goes to path 0's volume first (at least W H np
   * bytes), free until the path kernel, which runs after the mean. */
  cudaError_t e;
  if (a.cost_window == 3) return launch_cost_box3<F, PER>(a, stream);
  SgmArgs acost = a;
  if (a.cost_window > 1) acost.cost = static_cast<uint8_t*>(a.vol);
  if (a.sign < 0)
    sgm_cost_kernel<F, PER, true><<<ctas, 32 * kWarps, 0, stream>>>(acost);
  else
    sgm_cost_kernel<F, PER, false><<<ctas, 32 * kWarps, 0, stream>>>(acost);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if (a.cost_window > 1) return launch_box<8 * PER>(a, stream);
  return cudaSuccess;
}

template <typename F>
cudaError_t launch_cost_per(const SgmPlan& p, const SgmArgs& a, cudaStream_t s) {
  switch (p.per) {
    case 2:
      return launch_cost_typed<F, 2>(a, s);
    case 4:
      return launch_cost_typed<F, 4>(a, s);
    case 8:
      return launch_cost_typed<F, 8>(a, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_sgm_cost(const SgmPlan& p, StereoCost cost, const SgmArgs& a,
                            cudaStream_t s) {
  return stereo_cost_uses_census(cost) ? launch_cost_per<uint64_t>(p, a, s)
                                       : launch_cost_per<uint8_t>(p, a, s);
}

}  // namespace cuda
}  // namespace match
