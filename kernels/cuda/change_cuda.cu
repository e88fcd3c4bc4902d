/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage on a GPU (match/change.h): the reference's definitions
 * (ref/change_arith.h, the same integer arithmetic) as small kernels on
 * the stage's own stream: the working image at push (); at analyse (), the
 * warped previous image with the histograms of W - P and W / P, their
 * medians (with a still camera's noise and threshold), where a gain is
 * proposed the gained images and the choice, for a moving camera the differences
 * with their histogram and the threshold, and the projections (a CTA a
 * box, a warp a tile, with its light sums) and the listed tiles' extents
 * (a CTA a tile),
 * written into pinned host memory, then one wait.
 * Tested equal to the reference (tests/kernels/test_change_cuda.cpp).
 *
 * Why the kernels read the boxes from and write the results into pinned
 * host memory (mapped: unified addressing lets a kernel use it), and why
 * the stage's streams have the device's greatest priority: inside the
 * element the decision's requests (a few small kernels each) wait behind
 * the estimator's work on the next frames, the likeliest reading being
 * the copy of the boxes behind a 1080p frame's upload on the copy engine
 * and the kernels behind its CTAs (no profiler ran). With both, 1080p
 * through the element went from 1,600-2,060 to 2,170-2,460 fps in
 * alternated rounds on an H200 (bench/README.md); with either alone it
 * did not move. Boxes wider than kSharedColumns working cells sum their
 * columns with atomics in the results, which host memory over PCIe does
 * not take: frames that wide (a working width over 2048) keep device
 * buffers and copies.
 */
#include <algorithm>
#include <climits>
#include <cstddef>
#include <memory>
#include <vector>

#include "cuda_check.h"
#include "internal.h"
#include "ref/change_arith.h"

namespace match {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kOffsetBins = 511; /* W - P + 255 */
constexpr int kDiffBins = 256;
constexpr int kGainSlots = kChangeGainBins + 1; /* W / P, and the dark cells */
/* The histograms of an analysis, one after the other: W - P, d, W / P and
 * W - P gained. */
constexpr int kHistBins = kOffsetBins + kDiffBins + kGainSlots + kOffsetBins;
constexpr int kRatioAt = kOffsetBins + kDiffBins, kGainedAt = kRatioAt + kGainSlots;

/* The analysis' scalars on the device: b, noise, t and g, then what the
 * gain's choice needs (change_gain ()), and the images as taken. */
struct Params {
  int offset;
  int noise;
  int threshold;
  int gain;
  int proposed;       /* the ratios' gain, kChangeGainOne when none */
  int noise0;         /* the noise with b alone, P not gained */
  const uint8_t* ref; /* the compared image (gained where the gain is taken) */
  const uint8_t* p;   /* P (a still camera's is ref) */
};
/* What one analysis copies back, in one piece: Params' first words, then
 * the boxes' counts, then the tiles' pixels, then their extents (uint32
 * each). */
constexpr int kParamWords = 4;
static_assert(offsetof(Params, proposed) == kParamWords * 4, "Params: four words first");

/* The first thread of a grid copies the scalars into the results. */
__device__ void copy_params(const Params* params, uint32_t* results) {
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    results[0] = (uint32_t)params->offset;
    results[1] = (uint32_t)params->noise;
    results[2] = (uint32_t)params->threshold;
    results[3] = (uint32_t)params->gain;
  }
}

struct Motion {
  int64_t m[6];
};

/* Working pixel (x, y): the rounded mean of its cell, as
 * change_cell_mean (), and the background's step with it (`step`, a
 * ChangeBackground::Step). One thread a working pixel. */
__global__ void __launch_bounds__(kThreads)
    change_cells_kernel(const uint8_t* __restrict__ src, size_t pitch, int width,
                        int height, int scale, uint8_t* __restrict__ work, int ww, int wh,
                        uint8_t* __restrict__ background, int step) {
  const int x = blockIdx.x * kThreads + threadIdx.x, y = blockIdx.y;
  if (x >= ww) return;
  const int x0 = x * scale, y0 = y * scale;
  const int x1 = min(x0 + scale, width), y1 = min(y0 + scale, height);
  uint32_t sum = 0;
  for (int yy = y0; yy < y1; ++yy)
    for (int xx = x0; xx < x1; ++xx) sum += src[(size_t)yy * pitch + xx];
  const uint32_t n = (uint32_t)(x1 - x0) * (uint32_t)(y1 - y0);
  const uint8_t w = (uint8_t)((sum + n / 2) / n);
  const size_t i = (size_t)y * ww + x;
  work[i] = w;
  if (step == ChangeBackground::kSet)
    background[i] = w;
  else if (step == ChangeBackground::kMove)
    background[i] = change_background_step(background[i], w);
}

/* The scene image's step at its cell (x, y): change_scene_step () towards
 * the working image `w`. One thread a cell. */
__global__ void __launch_bounds__(kThreads)
    change_scene_kernel(const uint8_t* __restrict__ w, int ww, int wh, Motion motion,
                        bool set, uint8_t* __restrict__ scene) {
  const int x = blockIdx.x * kThreads + threadIdx.x, y = blockIdx.y;
  if (x >= ww) return;
  /* Set: the image's old cells are not read (a first set finds them
   * uninitialised). */
  uint8_t& s = scene[(size_t)y * ww + x];
  s = change_scene_step(set ? 0 : s, w, ww, wh, motion.m, x, y, set);
}

/* Whether this CTA is its grid's last to finish: the others' atomics
 * into the histograms are visible to it, and the grid's reduction runs in
 * it instead of in a kernel of its own (one launch less a step; launches
 * in a chain cost as much as these steps' work). The counter goes back to
 * 0 for the next grid. */
__device__ bool last_cta(unsigned* counter) {
  __shared__ bool last;
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    last = atomicAdd(counter, 1u) == gridDim.x * gridDim.y - 1;
    if (last) *counter = 0;
  }
  __syncthreads();
  return last;
}

__device__ void offset_and_gain(const uint32_t* hist, uint64_t total,
                                uint64_t ratio_cells, bool moves, int min_threshold,
                                const uint8_t* prev, const uint8_t* p, Params* params);

/* P (the previous image warped by the motion, or as it is for a still
 * camera) and the histograms of W - P and W / P, per block in shared
 * memory; the last CTA then takes b and proposes the gain
 * (offset_and_gain ()). */
__global__ void __launch_bounds__(kThreads)
    change_warp_kernel(const uint8_t* __restrict__ cur, const uint8_t* __restrict__ prev,
                       int ww, int wh, Motion motion, bool moves, bool ratios,
                       uint64_t total, int min_threshold, uint8_t* __restrict__ p,
                       uint32_t* __restrict__ hist, Params* params,
                       unsigned* __restrict__ counter) {
  __shared__ uint32_t h[kOffsetBins], g[kGainSlots];
  for (int i = threadIdx.x; i < kOffsetBins; i += kThreads) h[i] = 0;
  for (int i = threadIdx.x; i < kGainSlots; i += kThreads) g[i] = 0;
  __syncthreads();
  const int x = blockIdx.x * kThreads + threadIdx.x, y = blockIdx.y;
  if (x < ww) {
    const size_t i = (size_t)y * ww + x;
    const int v = moves ? change_warp_sample(prev, ww, wh, motion.m, x, y) : prev[i];
    if (moves) p[i] = (uint8_t)v; /* a still camera's P is prev itself */
    if (change_sampled(x, y)) atomicAdd(&h[cur[i] - v + 255], 1u);
    if (ratios && change_gain_sampled(x, y))
      atomicAdd(
          &g[v < kChangeGainDark ? kChangeGainBins
                                 : change_gain_bin(cur[i], change_gain_reciprocal(v))],
          1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kOffsetBins; i += kThreads)
    if (h[i]) atomicAdd(&hist[i], h[i]);
  for (int i = threadIdx.x; i < kGainSlots; i += kThreads)
    if (g[i]) atomicAdd(&hist[kRatioAt + i], g[i]);
  if (last_cta(counter))
    offset_and_gain(hist, total, ratios ? change_gain_samples(ww, wh) : 0, moves,
                    min_threshold, prev, p, params);
}

/* change_lower_median () of s[0 .. n) in shared memory, by the 32 lanes
 * of one warp (all of them call it; each gets the result): one lane a run
 * of bins, their sums scanned across the warp, then the lane whose run
 * reaches the median walks it. One thread walking the bins in global
 * memory waited for each (about 30 us at 511 bins on an H200). */
__device__ int warp_lower_median(const uint32_t* s, int n, uint64_t total) {
  const int lane = threadIdx.x % 32;
  const int run = (n + 31) / 32;
  const int v0 = min(lane * run, n), v1 = min(v0 + run, n);
  uint64_t sum = 0;
  for (int v = v0; v < v1; ++v) sum += s[v];
  uint64_t cum = sum; /* inclusive scan over the lanes */
  for (int o = 1; o < 32; o *= 2) {
    const uint64_t up = __shfl_up_sync(0xffffffffu, cum, o);
    if (lane >= o) cum += up;
  }
  /* The first v whose cumulative count reaches the half and is not 0. */
  const uint64_t half = (total + 1) / 2, reach = half > 0 ? half : 1;
  const unsigned hit = __ballot_sync(0xffffffffu, cum >= reach);
  if (!hit) return n - 1;
  const int owner = __ffs(hit) - 1;
  int median = n - 1;
  if (lane == owner) {
    uint64_t c = cum - sum;
    for (int v = v0; v < v1; ++v) {
      c += s[v];
      if (c >= reach) {
        median = v;
        break;
      }
    }
  }
  return __shfl_sync(0xffffffffu, median, owner);
}

/* The histograms zeroed by a CTA for the next analysis (no memset to
 * launch before it). */
__device__ void clear_hists(uint32_t* hist) {
  for (int i = threadIdx.x; i < kHistBins; i += blockDim.x) hist[i] = 0;
}

/* By one CTA, the histograms complete: b, the noise with it alone
 * (change_still_noise ()) and the ratios' gain (none with no ratio
 * cells: the background compared); the images as they are. With no gain
 * proposed and a still camera, its noise and t too, and the histograms
 * cleared: the camera's d needs no pass of its own. */
__device__ void offset_and_gain(const uint32_t* hist, uint64_t total,
                                uint64_t ratio_cells, bool moves, int min_threshold,
                                const uint8_t* prev, const uint8_t* p, Params* params) {
  __shared__ uint32_t s[kOffsetBins], r[kGainSlots];
  __shared__ int offset, gain;
  /* Past L1: the other CTAs' atomics are in L2. */
  for (int i = threadIdx.x; i < kOffsetBins; i += kThreads) s[i] = __ldcg(&hist[i]);
  for (int i = threadIdx.x; i < kGainSlots; i += kThreads)
    r[i] = __ldcg(&hist[kRatioAt + i]);
  __syncthreads();
  /* The medians by warps, not a thread walking the bins (change_gain ()'s
   * definition in its two parts). */
  const int warp = threadIdx.x / 32;
  if (warp == 0) {
    const int b = warp_lower_median(s, kOffsetBins, total) - 255;
    if (threadIdx.x == 0) {
      offset = b;
      params->offset = b;
    }
  } else if (warp == 1) {
    const uint64_t dark = r[kChangeGainBins];
    const uint64_t n = dark < ratio_cells ? ratio_cells - dark : 0;
    const int g = change_gain_enough(n, ratio_cells)
                      ? change_gain_of_median(warp_lower_median(r, kChangeGainBins, n))
                      : kChangeGainOne;
    if (threadIdx.x == 32) gain = g;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int g = gain;
    /* The noise with b alone: a still camera's, and what a gain must beat. */
    const int noise =
        !moves || g != kChangeGainOne ? change_still_noise(s, offset, total) : 0;
    params->proposed = g;
    params->gain = kChangeGainOne;
    params->noise0 = noise;
    params->ref = prev;
    params->p = moves ? p : prev;
    if (!moves && g == kChangeGainOne) {
      params->noise = noise;
      params->threshold = change_threshold(noise, min_threshold);
    }
  }
  if (moves) return; /* change_threshold_kernel () after the differences */
  __syncthreads();
  if (params->proposed == kChangeGainOne) clear_hists(const_cast<uint32_t*>(hist));
}

__device__ void gain_choice(uint32_t* hist, uint64_t total, bool moves, int min_threshold,
                            const uint8_t* ref_gained, const uint8_t* p_gained,
                            Params* params);

/* With a gain proposed (all CTAs return at once otherwise): the compared
 * image and P gained (`ref_gained`, `p_gained`), and the histogram of W -
 * P gained; the last CTA then chooses (gain_choice ()). */
__global__ void __launch_bounds__(kThreads)
    change_gain_kernel(const uint8_t* __restrict__ cur, const uint8_t* __restrict__ prev,
                       const uint8_t* __restrict__ p, int ww, bool moves, uint64_t total,
                       int min_threshold, Params* params,
                       uint8_t* __restrict__ ref_gained, uint8_t* __restrict__ p_gained,
                       uint32_t* __restrict__ hist, unsigned* __restrict__ counter) {
  const int g = params->proposed;
  if (g == kChangeGainOne) return;
  __shared__ uint32_t h[kOffsetBins];
  for (int i = threadIdx.x; i < kOffsetBins; i += kThreads) h[i] = 0;
  __syncthreads();
  const int x = blockIdx.x * kThreads + threadIdx.x, y = blockIdx.y;
  if (x < ww) {
    const size_t i = (size_t)y * ww + x;
    const int r = change_gained(prev[i], g);
    ref_gained[i] = (uint8_t)r;
    int v = r;
    if (moves) {
      v = change_gained(p[i], g);
      p_gained[i] = (uint8_t)v;
    }
    if (change_sampled(x, y)) atomicAdd(&h[cur[i] - v + 255], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kOffsetBins; i += kThreads)
    if (h[i]) atomicAdd(&hist[kGainedAt + i], h[i]);
  if (last_cta(counter))
    gain_choice(hist, total, moves, min_threshold, ref_gained, p_gained, params);
}

/* By one CTA, the gained histogram complete: the gain taken when P gained
 * leaves less noise (its own b and noise, the gained images), else left
 * (b and the images as they are); for a still camera the noise and t, and
 * the histograms cleared. */
__device__ void gain_choice(uint32_t* hist, uint64_t total, bool moves, int min_threshold,
                            const uint8_t* ref_gained, const uint8_t* p_gained,
                            Params* params) {
  __shared__ uint32_t s[kOffsetBins];
  __shared__ int offset;
  for (int i = threadIdx.x; i < kOffsetBins; i += kThreads)
    s[i] = __ldcg(&hist[kGainedAt + i]);
  __syncthreads();
  if (threadIdx.x < 32) {
    const int b = warp_lower_median(s, kOffsetBins, total) - 255;
    if (threadIdx.x == 0) offset = b;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    const int gained = change_still_noise(s, offset, total);
    int noise = params->noise0;
    if (gained < noise) {
      noise = gained;
      params->gain = params->proposed;
      params->offset = offset;
      params->ref = ref_gained;
      params->p = moves ? p_gained : ref_gained;
    }
    if (!moves) {
      params->noise = noise;
      params->threshold = change_threshold(noise, min_threshold);
    }
  }
  if (moves) return;
  __syncthreads();
  clear_hists(hist);
}

/* A moving camera's d = |W - P - b|, the smallest over P's 3 x 3
 * neighbourhood, and its histogram. */
__global__ void __launch_bounds__(kThreads)
    change_diff_kernel(const uint8_t* __restrict__ cur, int ww, int wh,
                       const Params* __restrict__ params, uint8_t* __restrict__ d,
                       uint32_t* __restrict__ hist) {
  __shared__ uint32_t h[kDiffBins];
  for (int i = threadIdx.x; i < kDiffBins; i += kThreads) h[i] = 0;
  __syncthreads();
  const int x = blockIdx.x * kThreads + threadIdx.x, y = blockIdx.y;
  if (x < ww) {
    const int b = params->offset;
    const uint8_t* p = params->p;
    const size_t i = (size_t)y * ww + x;
    const int w = cur[i];
    int best = 255;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int qx = min(max(x + dx, 0), ww - 1);
        const int qy = min(max(y + dy, 0), wh - 1);
        best = min(best, change_abs_diff(w, p[(size_t)qy * ww + qx], b));
      }
    d[i] = (uint8_t)best;
    if (change_sampled(x, y)) atomicAdd(&h[best], 1u);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < kDiffBins; i += kThreads)
    if (h[i]) atomicAdd(&hist[i], h[i]);
}

/* A moving camera's noise (the lower median of d) and t, then the
 * histograms cleared. */
__global__ void __launch_bounds__(kThreads)
    change_threshold_kernel(uint32_t* __restrict__ hist, uint64_t total,
                            int min_threshold, Params* params) {
  __shared__ uint32_t s[kDiffBins];
  for (int i = threadIdx.x; i < kDiffBins; i += kThreads) s[i] = hist[kOffsetBins + i];
  __syncthreads();
  if (threadIdx.x < 32) {
    const int noise = warp_lower_median(s, kDiffBins, total);
    if (threadIdx.x == 0) {
      params->noise = noise;
      params->threshold = change_threshold(noise, min_threshold);
    }
  }
  __syncthreads();
  clear_hists(hist);
}

/* A cell's change at working pixel i: d, kept for a moving camera, else
 * taken from W and P (the compared frame itself); where `sharp` (a moving
 * camera's ChangeRequest::sharp: the warped P) from W and that. */
__device__ __forceinline__ int difference(const uint8_t* __restrict__ d,
                                          const uint8_t* __restrict__ sharp,
                                          const uint8_t* __restrict__ cur,
                                          const uint8_t* __restrict__ ref, bool moves,
                                          size_t i, int off) {
  if (sharp) return change_abs_diff(cur[i], sharp[i], off);
  return moves ? d[i] : change_abs_diff(cur[i], ref[i], off);
}

/* One warp's projections of a box's changed cells (x0, y0, cols, rows),
 * explained by the shift (sx, sy) where `explain`, into rows[0 .. rows)
 * and cols[0 .. cols), which it zeroes first (no other warp touches
 * them). */
__device__ void warp_project(const uint8_t* __restrict__ d,
                             const uint8_t* __restrict__ sharp,
                             const uint8_t* __restrict__ cur,
                             const uint8_t* __restrict__ ref,
                             const uint8_t* __restrict__ bg, bool moves, int ww, int wh,
                             int t, int off, int x0, int y0, int n_cols, int n_rows,
                             bool explain, int sx, int sy, uint32_t* rows,
                             uint32_t* cols) {
  const int lane = threadIdx.x % 32;
  for (int i = lane; i < n_rows; i += 32) rows[i] = 0;
  for (int i = lane; i < n_cols; i += 32) cols[i] = 0;
  __syncwarp();
  const int n = n_cols * n_rows;
  for (int k = lane; k < n; k += 32) {
    const int j = k / n_cols, i = k % n_cols;
    const int x = x0 + i, y = y0 + j;
    if (difference(d, sharp, cur, ref, moves, (size_t)y * ww + x, off) > t &&
        (!explain ||
         change_counts_explained(cur, ref, bg, ww, wh, x, y, sx, sy, off, t))) {
      atomicAdd(&rows[j], 1u);
      atomicAdd(&cols[i], 1u);
    }
  }
  __syncwarp();
}

/* A CTA a box (the decision's regions: few, up to the whole frame): the
 * projections of its changed cells (those its motion explains, where it
 * asks: change_explained()), into the box's slice of `counts` (rows, then
 * columns). A warp a row at a time, its count by ballot (no atomics);
 * the column counts in shared memory where they fit, else summed in the
 * slice. items[k] is box k's cells (x0, y0, cols, rows), items[n + k] its
 * slice and motion (offset, explain, shift_x, shift_y). */
constexpr int kSharedColumns = 2048;

__global__ void __launch_bounds__(kThreads)
    change_project_kernel(const uint8_t* __restrict__ d, bool sharp_on,
                          const uint8_t* __restrict__ cur, const uint8_t* __restrict__ bg,
                          bool moves, int ww, int wh, const Params* __restrict__ params,
                          const int4* __restrict__ items, int n_boxes,
                          uint32_t* __restrict__ results) {
  __shared__ uint32_t shared_cols[kSharedColumns];
  copy_params(params, results);
  const uint8_t* ref = params->ref;
  const uint8_t* sharp = sharp_on ? params->p : nullptr;
  const int4 b = items[blockIdx.x];           /* x0, y0, cols, rows */
  const int4 e = items[n_boxes + blockIdx.x]; /* offset, explain, shift_x, shift_y */
  uint32_t* rows = results + kParamWords + e.x;
  const bool in_shared = b.z <= kSharedColumns;
  uint32_t* cols = in_shared ? shared_cols : rows + b.w;
  for (int i = threadIdx.x; i < b.z; i += kThreads) cols[i] = 0;
  __syncthreads();
  const int t = params->threshold, off = params->offset;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int j = warp; j < b.w; j += kThreads / 32) {
    const int y = b.y + j;
    uint32_t n = 0;
    for (int i0 = 0; i0 < b.z; i0 += 32) {
      const int i = i0 + lane, x = b.x + i;
      const bool on =
          i < b.z && difference(d, sharp, cur, ref, moves, (size_t)y * ww + x, off) > t &&
          (!e.y || change_counts_explained(cur, ref, bg, ww, wh, x, y, e.z, e.w, off, t));
      n += __popc(__ballot_sync(0xffffffffu, on));
      if (on) atomicAdd(&cols[i], 1u);
    }
    if (lane == 0) rows[j] = n;
  }
  if (!in_shared) return;
  __syncthreads();
  for (int i = threadIdx.x; i < b.z; i += kThreads) rows[b.w + i] = cols[i];
}

/* Tiles: kBoxesPerCta to a CTA, a warp each (a block of the field, a few
 * dozen cells). */
constexpr int kBoxesPerCta = 4;

/* The light sums of a tile (change_light_sums (), ChangeLightSums'
 * order) by a warp: the lanes over its cells, then summed across the warp
 * (integers: the order does not matter); written from `out` on as nine
 * (low, high) word pairs, the results being words, not aligned for 8
 * bytes. */
constexpr int kLightWords = 18;
__device__ void warp_light_sums(const uint8_t* __restrict__ cur,
                                const uint8_t* __restrict__ p, int ww,
                                const ChangeBoxCells& cells, uint32_t* __restrict__ out) {
  const int lane = threadIdx.x % 32;
  long long s[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = lane; i < cells.cols * cells.rows; i += 32) {
    const int x = i % cells.cols, y = i / cells.cols;
    const size_t at = (size_t)(cells.y0 + y) * ww + cells.x0 + x;
    const long long w = cur[at], q = p[at];
    s[0] += q;
    s[1] += w;
    s[2] += q * q;
    s[3] += w * w;
    s[4] += q * w;
    s[5] += x * q;
    s[6] += y * q;
    s[7] += x * w;
    s[8] += y * w;
  }
  for (int o = 16; o > 0; o /= 2)
    for (int j = 0; j < 9; ++j) s[j] += __shfl_down_sync(0xffffffffu, s[j], o);
  /* Lane l writes word l: one store of the warp, not 18 of a lane (over
   * PCIe into mapped memory). */
  unsigned long long mine = 0;
  for (int j = 0; j < 9; ++j) {
    const long long v = __shfl_sync(0xffffffffu, s[j], 0);
    if (lane / 2 == j) mine = (unsigned long long)v;
  }
  if (lane < kLightWords) out[lane] = (uint32_t)(lane % 2 ? mine >> 32 : mine);
}

/* One warp a tile asked (ChangeRequest::tile_width, tile_height;
 * kBoxesPerCta to a CTA): the projections of its changed (explained) cells
 * in shared memory, then its trimmed changed pixels (change_trim ()) by the
 * first lane, and where they are not zero and `light` is not null its
 * light sums (P as d sees it: Params::p) into light[kLightWords k ..]. asks[k] is
 * the k-th listed tile (index, explain, shift_x, shift_y); null: tile k,
 * explain off. */
__global__ void __launch_bounds__(32 * kBoxesPerCta)
    change_tiles_kernel(const uint8_t* __restrict__ d, bool sharp_on,
                        const uint8_t* __restrict__ cur, const uint8_t* __restrict__ bg,
                        bool moves, int ww, int wh, int scale, int width, int height,
                        int tile_width, int tile_height, int columns,
                        const int4* __restrict__ asks, int n_tiles,
                        const Params* __restrict__ params, uint32_t* __restrict__ results,
                        uint32_t* __restrict__ tiles, uint32_t* __restrict__ light) {
  copy_params(params, results);
  const uint8_t* ref = params->ref;
  const uint8_t* p = params->p;
  const uint8_t* sharp = sharp_on ? p : nullptr;
  __shared__ uint32_t proj[kBoxesPerCta][2 * kChangeMaxTileCells];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int k = blockIdx.x * kBoxesPerCta + warp;
  if (k >= n_tiles) return;
  const int4 ask = asks ? asks[k] : make_int4(k, 0, 0, 0);
  const ChangeBox box =
      change_tile(width, height, tile_width, tile_height, columns, ask.x);
  const ChangeBoxCells cells = change_box_cells(scale, ww, wh, box);
  uint32_t* rows = proj[warp];
  uint32_t* cols = rows + cells.rows;
  warp_project(d, sharp, cur, ref, bg, moves, ww, wh, params->threshold, params->offset,
               cells.x0, cells.y0, cells.cols, cells.rows, ask.y, ask.z, ask.w, rows,
               cols);
  uint32_t pixels = 0;
  if (lane == 0) {
    ChangeTrim trim;
    pixels =
        change_trim(box, cells, rows, cols, scale, &trim) ? (uint32_t)trim.pixels : 0;
    tiles[k] = pixels;
  }
  if (light && __shfl_sync(0xffffffffu, pixels, 0) > 0)
    warp_light_sums(cur, p, ww, cells, light + kLightWords * (size_t)k);
}

/* Union-find on a window's labels (change_extent_kernel ()): a label
 * names a cell of a smaller or equal index, a root itself. Every access is
 * atomic: threads link roots at once (Playne and Hawick, 2018). A root
 * found, the path to it is pointed at it (labels only fall, so a cell
 * still names one of its component's cells below it), so that no chain is
 * walked twice. */
__device__ __forceinline__ int extent_root(int* labels, int i) {
  int root = i;
  for (int up = atomicOr(&labels[root], 0); up != root; up = atomicOr(&labels[root], 0))
    root = up;
  while (i > root) i = atomicMin(&labels[i], root);
  return root;
}
__device__ __forceinline__ void extent_union(int* labels, int a, int b) {
  for (;;) {
    a = extent_root(labels, a);
    b = extent_root(labels, b);
    if (a == b) return;
    /* The larger root under the smaller, unless another thread linked
     * it first: then again from what it was linked to. */
    const int hi = a > b ? a : b, lo = a > b ? b : a;
    const int was = atomicMin(&labels[hi], lo);
    if (was == hi) return;
    a = was;
    b = lo;
  }
}

/* A CTA a listed tile: its extent (change_extent ()'s definition), from
 * the window's components labelled in parallel: each counting cell a
 * root of its own, linked to its counting neighbours above and to the
 * left (union-find), each cell's root, each root's bounding box by
 * atomics, the largest extent among the roots of the tile's cells, at
 * most the reach. The time is each thread's chain of loads and atomics, so
 * a CTA has a thread a window cell, up to kExtentMaxThreads
 * (extent_threads ()): on the H200 (ncu, the decision's reach of 10) 256
 * or 512 threads a CTA took 68 or 43 us a frame at 320 x 240 and 74 or
 * 58 at 1080p; a thread a cell 30-35 and 48-50 us (1024 and 640
 * threads). Labels spread a cell a step took as long, a walk a thread as
 * the CPU does 2 ms.
 * The six arrays of the window's cells in shared memory where they fit
 * (kExtentShared), else in `scratch`, six windows a tile. */
constexpr int kExtentMaxThreads = 1024;
/* Under the 48 KB a CTA has without opting in, with `best`. */
constexpr size_t kExtentShared = 47 * 1024;
constexpr int kExtentArrays = 6; /* labels, roots, x and y ranges */

__global__ void __launch_bounds__(kExtentMaxThreads)
    change_extent_kernel(const uint8_t* __restrict__ d, bool sharp_on,
                         const uint8_t* __restrict__ cur, const uint8_t* __restrict__ bg,
                         bool moves, int ww, int wh, int scale, int width, int height,
                         int tile_width, int tile_height, int columns,
                         const int4* __restrict__ asks, int reach, size_t window,
                         bool in_shared, const Params* __restrict__ params,
                         int* __restrict__ scratch, uint32_t* __restrict__ extents) {
  extern __shared__ int shared_cells[];
  __shared__ int best;
  const int4 ask = asks[blockIdx.x];
  const ChangeBox box =
      change_tile(width, height, tile_width, tile_height, columns, ask.x);
  const ChangeBoxCells cells = change_box_cells(scale, ww, wh, box);
  const ChangeWindow win = change_extent_bounds(cells, ww, wh, reach);
  const int cols = win.x1 - win.x0, n = cols * (win.y1 - win.y0);
  int* labels = in_shared ? shared_cells : scratch + blockIdx.x * kExtentArrays * window;
  int* roots = labels + n;
  int* lo_x = roots + n;
  int* hi_x = lo_x + n;
  int* lo_y = hi_x + n;
  int* hi_y = lo_y + n;
  const int t = params->threshold, off = params->offset;
  const uint8_t* ref = params->ref;
  const uint8_t* sharp = sharp_on ? params->p : nullptr;
  if (threadIdx.x == 0) best = 0;
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int x = win.x0 + i % cols, y = win.y0 + i / cols;
    const bool on = difference(d, sharp, cur, ref, moves, (size_t)y * ww + x, off) > t &&
                    (!ask.y || change_counts_explained(cur, ref, bg, ww, wh, x, y, ask.z,
                                                       ask.w, off, t));
    labels[i] = on ? i : -1;
    lo_x[i] = lo_y[i] = INT_MAX;
    hi_x[i] = hi_y[i] = -1;
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    if (atomicOr(&labels[i], 0) < 0) continue;
    const int x = i % cols, y = i / cols;
    /* The left, upper left, upper and upper right neighbours. */
    const int near[4][2] = {{-1, 0}, {-1, -1}, {0, -1}, {1, -1}};
    for (const auto& q : near) {
      const int nx = x + q[0], ny = y + q[1];
      if (nx < 0 || nx >= cols || ny < 0) continue;
      const int j = ny * cols + nx;
      if (atomicOr(&labels[j], 0) >= 0) extent_union(labels, i, j);
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x)
    roots[i] = labels[i] < 0 ? -1 : extent_root(labels, i);
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) {
    const int r = roots[i];
    if (r < 0) continue;
    const int x = i % cols, y = i / cols;
    atomicMin(&lo_x[r], x);
    atomicMax(&hi_x[r], x);
    atomicMin(&lo_y[r], y);
    atomicMax(&hi_y[r], y);
  }
  __syncthreads();
  for (int i = threadIdx.x; i < cells.cols * cells.rows; i += blockDim.x) {
    const int x = cells.x0 - win.x0 + i % cells.cols;
    const int y = cells.y0 - win.y0 + i / cells.cols;
    const int r = roots[y * cols + x];
    if (r >= 0) atomicMax(&best, max(hi_x[r] - lo_x[r], hi_y[r] - lo_y[r]) + 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) extents[blockIdx.x] = (uint32_t)min(best, reach);
}

/* change_extent_kernel ()'s CTA: a thread a cell of a `window`-cell
 * window, in whole warps, at most kExtentMaxThreads. */
unsigned extent_threads(size_t window) {
  return (unsigned)std::min<size_t>(kExtentMaxThreads, (window + 31) / 32 * 32);
}

template <typename T>
Status ensure(DeviceBuffer* b, size_t n, int device) {
  return b->ensure(device, n * sizeof(T));
}

class ChangeCuda final : public ChangeDetector {
 public:
  ChangeCuda(const ChangeConfig& c, int device)
      : ChangeDetector(c), device_(device), ring_(c.history) {}
  ~ChangeCuda() override {
    if (stream_) {
      cudaSetDevice(device_);
      if (ahead_done_) cudaEventDestroy(ahead_done_);
      if (pushed_) cudaEventDestroy(pushed_);
      if (ahead_stream_) cudaStreamDestroy(ahead_stream_);
      cudaStreamDestroy(stream_);
    }
  }

  Status init() {
    const ChangeConfig& c = config_;
    CUDA_TRY(cudaSetDevice(device_));
    int least = 0, greatest = 0, unified = 0;
    CUDA_TRY(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CUDA_TRY(cudaStreamCreateWithPriority(&stream_, cudaStreamNonBlocking, greatest));
    CUDA_TRY(
        cudaStreamCreateWithPriority(&ahead_stream_, cudaStreamNonBlocking, greatest));
    CUDA_TRY(cudaDeviceGetAttribute(&unified, cudaDevAttrUnifiedAddressing, device_));
    mapped_ = unified && c.work_width() <= kSharedColumns;
    CUDA_TRY(cudaEventCreateWithFlags(&ahead_done_, cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreateWithFlags(&pushed_, cudaEventDisableTiming));
    const size_t n = (size_t)c.work_width() * c.work_height();
    Status st = Status::ok();
    ring_.for_each([&](DeviceBuffer& work) {
      if (st) st = ensure<uint8_t>(&work, n, device_);
    });
    if (st) st = ensure<uint8_t>(&frame_, (size_t)c.width * c.height, device_);
    if (st && c.background_every > 0) st = ensure<uint8_t>(&background_, n, device_);
    for (Scratch* sc : {&main_, &ahead_}) {
      if (st) st = ensure<uint8_t>(&sc->p, n, device_);
      if (st) st = ensure<uint8_t>(&sc->d, n, device_);
      if (st) st = ensure<uint8_t>(&sc->ref_gained, n, device_);
      if (st) st = ensure<uint8_t>(&sc->p_gained, n, device_);
      if (st) st = ensure<uint32_t>(&sc->hist, kHistBins, device_);
      if (st) st = ensure<unsigned>(&sc->counters, 2, device_);
      if (st && cudaMemset(sc->counters.p, 0, 2 * sizeof(unsigned)) != cudaSuccess)
        st = Status(StatusCode::kDeviceError, "change: cudaMemset");
      if (st) st = ensure<Params>(&sc->params, 1, device_);
    }
    return st;
  }

  Status push(const ImageView& luma, uint64_t frame, int) override {
    const ChangeConfig& c = config_;
    if (luma.width != c.width || luma.height != c.height || !luma.data)
      return Status(StatusCode::kInvalidArgument, "change: frame size");
    CUDA_TRY(cudaSetDevice(device_));
    /* From pageable memory this returns once the frame is in the driver's
     * staging memory (CUDA runtime API, "API synchronization behavior"), so
     * the caller may reuse it; the rest waits for nothing. */
    CUDA_TRY(cudaMemcpy2DAsync(frame_.p, c.width, luma.data, luma.stride_bytes, c.width,
                               c.height, cudaMemcpyHostToDevice, stream_));
    return push_from((const uint8_t*)frame_.p, c.width, frame, false);
  }

  Status push_device(const DeviceImageView& luma, uint64_t frame) override {
    const ChangeConfig& c = config_;
    if (luma.width != c.width || luma.height != c.height || !luma.data)
      return Status(StatusCode::kInvalidArgument, "change: frame size");
    if (luma.device != device_)
      return Status(StatusCode::kUnsupported, "change: frame on another GPU");
    CUDA_TRY(cudaSetDevice(device_));
    return push_from(luma.data, (size_t)luma.pitch_bytes, frame, true);
  }

  Status prefetch(const ChangeRequest& r) override {
    if (Status st = ChangeDetector::prefetch(r); !st) return st;
    CUDA_TRY(cudaSetDevice(device_));
    ChangeResult layout;
    size_t n_counts = 0;
    ahead_pending_ = false;
    /* On a stream of its own, after the last push: the requests that
     * analyse () makes meanwhile do not queue behind it. */
    CUDA_TRY(cudaStreamWaitEvent(ahead_stream_, pushed_, 0));
    if (Status st = enqueue(r, &ahead_, &layout, &n_counts, ahead_stream_); !st)
      return st;
    CUDA_TRY(cudaEventRecord(ahead_done_, ahead_stream_));
    ahead_request_ = r;
    ahead_pending_ = true;
    return Status::ok();
  }

  Status analyse(const ChangeRequest& r, ChangeResult* out, int) override {
    CUDA_TRY(cudaSetDevice(device_));
    if (ahead_pending_ && prefetched(r)) {
      /* Done by now, most often: the wait returns at once. */
      ahead_pending_ = false;
      CUDA_TRY(cudaEventSynchronize(ahead_done_));
      out->boxes.clear();
      take(ahead_, 0, change_tiles_count(config_, r), 0, 0, out);
      return Status::ok();
    }
    size_t n_counts = 0;
    if (Status st = enqueue(r, &main_, out, &n_counts, stream_); !st) return st;
    CUDA_TRY(cudaStreamSynchronize(stream_));
    const size_t n_tiles = change_tiles_count(config_, r);
    take(main_, n_counts, n_tiles, r.extent_reach > 0 ? n_tiles : 0,
         r.light ? n_tiles : 0, out);
    return Status::ok();
  }

  void reset() override {
    ring_.reset();
    main_.key.valid = ahead_.key.valid = false;
    ahead_pending_ = false;
    schedule_.valid = false;
    scene_valid_ = false;
  }

  void restart_background() override { schedule_.valid = false; }

  Status scene(uint64_t frame, const int64_t m[6], bool set, int) override {
    const ChangeConfig& c = config_;
    const DeviceBuffer* w = ring_.find(frame);
    if (!w || (!set && !scene_valid_))
      return Status(StatusCode::kInvalidArgument,
                    "change: scene frame not kept or unset");
    CUDA_TRY(cudaSetDevice(device_));
    const int ww = c.work_width(), wh = c.work_height();
    if (Status st = ensure<uint8_t>(&scene_, (size_t)ww * wh, device_); !st) return st;
    Motion motion;
    for (int k = 0; k < 6; ++k) motion.m[k] = m[k];
    /* On the requests' stream, after the frame's push: no wait. */
    change_scene_kernel<<<dim3((ww + kThreads - 1) / kThreads, wh), kThreads, 0,
                          stream_>>>((const uint8_t*)w->p, ww, wh, motion, set,
                                     (uint8_t*)scene_.p);
    CUDA_TRY(cudaGetLastError());
    scene_valid_ = true;
    if (main_.key.scene) main_.key.valid = false;
    return Status::ok();
  }

 private:
  /* What one request needs on the device: P, d and their histograms, the
   * scalars, and the results (pinned host memory, and where not mapped_ a
   * device buffer copied into it). */
  struct Scratch {
    DeviceBuffer p, d, hist, params, results;
    DeviceBuffer ref_gained, p_gained; /* the images under a gain taken */
    DeviceBuffer counters;             /* last_cta ()'s: the warp's, the gain's */
    DeviceBuffer extent; /* change_extent_kernel ()'s windows, where not shared */
    HostBuffer h_results;
    ChangeKey key;          /* what d and params hold */
    bool hist_zero = false; /* hist is all zero (the last analysis cleared it) */
  };

  /* An analyse () that prefetch () already answered: the same frames,
   * motion, floor and tiles, no boxes and no list. */
  bool prefetched(const ChangeRequest& r) const {
    const ChangeRequest& a = ahead_request_;
    return ahead_.key.matches(r) && r.n_boxes == 0 && !r.tiles &&
           r.departed == a.departed && r.sharp == a.sharp &&
           r.tile_width == a.tile_width && r.tile_height == a.tile_height;
  }

  /* The results of the request enqueued in `sc`, once done. */
  static void take(const Scratch& sc, size_t n_counts, size_t n_tiles, size_t n_extents,
                   size_t n_light, ChangeResult* out) {
    const uint32_t* h = (const uint32_t*)sc.h_results.p;
    out->offset = (int)h[0];
    out->noise = (int)h[1];
    out->threshold = (int)h[2];
    out->gain = (int)h[3];
    out->counts.assign(h + kParamWords, h + kParamWords + n_counts);
    const uint32_t* tiles = h + kParamWords + n_counts;
    out->tiles.assign(tiles, tiles + n_tiles);
    out->extents.assign(tiles + n_tiles, tiles + n_tiles + n_extents);
    /* Written for the tiles that changed only. */
    const uint32_t* light = tiles + n_tiles + n_extents;
    out->light.assign(n_light, ChangeLightSums{});
    for (size_t k = 0; k < n_light; ++k) {
      if (tiles[k] == 0) continue;
      int64_t v[9];
      for (int j = 0; j < 9; ++j)
        v[j] = (int64_t)(light[kLightWords * k + 2 * j] |
                         (uint64_t)light[kLightWords * k + 2 * j + 1] << 32);
      out->light[k] =
          ChangeLightSums{v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]};
    }
  }

  /* Request `r` on `stream` with `sc`, down to the copy of its results
   * into sc->h_results; out->boxes gets the boxes' layout, *counts the
   * number of their counts. */
  Status enqueue(const ChangeRequest& r, Scratch* sc, ChangeResult* out, size_t* counts,
                 cudaStream_t stream) {
    const ChangeConfig& c = config_;
    const DeviceBuffer* cur = ring_.find(r.frame);
    const DeviceBuffer* prev =
        change_compared(r, schedule_, &background_, scene_valid_ ? &scene_ : nullptr,
                        [&](uint64_t n) { return ring_.find(n); });
    if (!cur || !prev)
      return Status(StatusCode::kInvalidArgument, "change: frame not kept");
    if (Status st = change_check_tiles(c, r); !st) return st;
    Status bg_status;
    const DeviceBuffer* departed =
        change_departed_background(r, schedule_, &background_, &bg_status);
    if (!bg_status) return bg_status;
    const uint8_t* bg = departed ? (const uint8_t*)departed->p : nullptr;
    const int ww = c.work_width(), wh = c.work_height();

    /* The boxes' cells and their slices of the counts; the results. */
    const size_t n_counts = change_layout(c, r.boxes, r.n_boxes, out);
    *counts = n_counts;
    const int columns = change_tile_columns(c, r);
    const size_t n_tiles = change_tiles_count(c, r);
    const size_t n_asks = r.tiles ? n_tiles : 0;
    const size_t n_items = std::max<size_t>(2 * (size_t)r.n_boxes + n_asks, 1);
    const size_t window = change_extent_window(c, r);
    const size_t n_extents = window ? n_tiles : 0;
    const size_t n_light = r.light ? n_tiles : 0;
    const size_t n_results =
        kParamWords + n_counts + n_tiles + n_extents + kLightWords * n_light;
    Status st = Status::ok();
    const bool extent_shared = window * kExtentArrays * sizeof(int) <= kExtentShared;
    if (n_extents && !extent_shared)
      st = ensure<int>(&sc->extent, n_extents * kExtentArrays * window, device_);
    if (!mapped_) st = ensure<uint32_t>(&sc->results, n_results, device_);
    if (st && !mapped_) st = ensure<int4>(&items_, n_items, device_);
    if (st) st = h_items_.ensure(n_items * sizeof(int4));
    if (st) st = sc->h_results.ensure(n_results * 4);
    if (!st) return st;
    int4* hi = (int4*)h_items_.p;
    for (int k = 0; k < r.n_boxes; ++k) {
      const ChangeBoxCells& cells = out->boxes[k];
      const ChangeBox& box = r.boxes[k];
      hi[k] = make_int4(cells.x0, cells.y0, cells.cols, cells.rows);
      hi[r.n_boxes + k] =
          make_int4((int)cells.offset, box.explain ? 1 : 0, box.shift_x, box.shift_y);
    }
    int4* asks = hi + 2 * (size_t)r.n_boxes; /* the listed tiles */
    for (size_t k = 0; k < n_asks; ++k) {
      const ChangeTile& a = r.tiles[k];
      asks[k] = make_int4(a.index, a.explain ? 1 : 0, a.shift_x, a.shift_y);
    }

    Motion motion;
    for (int k = 0; k < 6; ++k) motion.m[k] = r.motion[k];
    const bool moves = change_motion_nonzero(r.motion);
    const uint64_t total = change_samples(ww, wh);
    uint32_t* hist = (uint32_t*)sc->hist.p;
    Params* params = (Params*)sc->params.p;
    const dim3 grid((ww + kThreads - 1) / kThreads, wh);
    /* The difference image (and the scalars) of this request, unless the
     * scratch already holds it. */
    if (!sc->key.matches(r)) {
      if (!sc->hist_zero) CUDA_TRY(cudaMemsetAsync(hist, 0, kHistBins * 4, stream));
      sc->hist_zero = false;
      sc->key.valid = false;
      const uint8_t *w = (const uint8_t*)cur->p, *compared = (const uint8_t*)prev->p;
      uint8_t *p = (uint8_t*)sc->p.p, *ref_gained = (uint8_t*)sc->ref_gained.p,
              *p_gained = (uint8_t*)sc->p_gained.p;
      unsigned* counters = (unsigned*)sc->counters.p;
      /* Against the background or the scene, no ratios: no gain. */
      change_warp_kernel<<<grid, kThreads, 0, stream>>>(
          w, compared, ww, wh, motion, moves, change_gain_sought(r), total,
          r.min_threshold, p, hist, params, counters);
      CUDA_TRY(cudaGetLastError());
      /* It returns at once where no gain is proposed (most frames): the
       * host does not wait to know. */
      if (change_gain_sought(r)) {
        change_gain_kernel<<<grid, kThreads, 0, stream>>>(
            w, compared, p, ww, moves, total, r.min_threshold, params, ref_gained,
            p_gained, hist, counters + 1);
        CUDA_TRY(cudaGetLastError());
      }
      /* A still camera keeps no d (the projections take it), and its
       * scalars are done. */
      if (moves) {
        change_diff_kernel<<<grid, kThreads, 0, stream>>>(
            w, ww, wh, params, (uint8_t*)sc->d.p, hist + kOffsetBins);
        CUDA_TRY(cudaGetLastError());
        change_threshold_kernel<<<1, kThreads, 0, stream>>>(hist, total, r.min_threshold,
                                                            params);
        CUDA_TRY(cudaGetLastError());
      }
      sc->hist_zero = true;
      sc->key.set(r);
    }
    /* Each projection kernel copies the scalars into the results too: no
     * copy of its own (a launch and a copy cost about as much as the work
     * at these sizes). */
    const uint8_t* d = (const uint8_t*)sc->d.p;
    /* A moving camera's P (Params::p, kept in the scratch with d). */
    const bool sharp = r.sharp && moves;
    uint32_t* results = (uint32_t*)(mapped_ ? sc->h_results.p : sc->results.p);
    const int4* items = (const int4*)(mapped_ ? h_items_.p : items_.p);
    /* The tiles that did not change get no light sums: a device buffer,
     * copied whole, is cleared for them. */
    if (!mapped_ && n_light > 0)
      CUDA_TRY(cudaMemsetAsync(results + kParamWords + n_counts + n_tiles + n_extents, 0,
                               kLightWords * n_light * 4, stream));
    if (!mapped_ && (n_counts > 0 || n_asks > 0))
      CUDA_TRY(cudaMemcpyAsync(items_.p, h_items_.p,
                               (2 * (size_t)r.n_boxes + n_asks) * sizeof(int4),
                               cudaMemcpyHostToDevice, stream));
    if (n_counts > 0) {
      change_project_kernel<<<r.n_boxes, kThreads, 0, stream>>>(
          d, sharp, (const uint8_t*)cur->p, bg, moves, ww, wh, params, items, r.n_boxes,
          results);
      CUDA_TRY(cudaGetLastError());
    }
    if (n_tiles > 0) {
      change_tiles_kernel<<<(unsigned)((n_tiles + kBoxesPerCta - 1) / kBoxesPerCta),
                            32 * kBoxesPerCta, 0, stream>>>(
          d, sharp, (const uint8_t*)cur->p, bg, moves, ww, wh, c.scale, c.width, c.height,
          r.tile_width, r.tile_height, columns,
          n_asks ? items + 2 * (size_t)r.n_boxes : nullptr, (int)n_tiles, params, results,
          results + kParamWords + n_counts,
          n_light ? results + kParamWords + n_counts + n_tiles + n_extents : nullptr);
      CUDA_TRY(cudaGetLastError());
    }
    if (n_extents > 0) {
      const size_t shared = extent_shared ? window * kExtentArrays * sizeof(int) : 0;
      change_extent_kernel<<<(unsigned)n_extents, extent_threads(window), shared,
                             stream>>>(
          d, sharp, (const uint8_t*)cur->p, bg, moves, ww, wh, c.scale, c.width, c.height,
          r.tile_width, r.tile_height, columns, items + 2 * (size_t)r.n_boxes,
          r.extent_reach, window, extent_shared, params, (int*)sc->extent.p,
          results + kParamWords + n_counts + n_tiles);
      CUDA_TRY(cudaGetLastError());
    }
    if (n_counts == 0 && n_tiles == 0)
      CUDA_TRY(
          cudaMemcpyAsync(results, params, kParamWords * 4, cudaMemcpyDefault, stream));
    if (!mapped_)
      CUDA_TRY(cudaMemcpyAsync(sc->h_results.p, results, n_results * 4,
                               cudaMemcpyDeviceToHost, stream));
    return Status::ok();
  }

  /* The working image of a frame in device memory (pitch in bytes) into
   * the next ring slot; `wait`: until `src` has been read. */
  Status push_from(const uint8_t* src, size_t pitch, uint64_t frame, bool wait) {
    const ChangeConfig& c = config_;
    DeviceBuffer* slot = ring_.next(frame);
    if (!slot) return Status(StatusCode::kInvalidArgument, "change: frame order");
    const int ww = c.work_width(), wh = c.work_height();
    /* The slot may be one that a prefetch still reads. */
    CUDA_TRY(cudaStreamWaitEvent(stream_, ahead_done_, 0));
    const ChangeBackground::Step step = schedule_.next(c.background_every);
    change_cells_kernel<<<dim3((ww + kThreads - 1) / kThreads, wh), kThreads, 0,
                          stream_>>>(src, pitch, c.width, c.height, c.scale,
                                     (uint8_t*)slot->p, ww, wh, (uint8_t*)background_.p,
                                     (int)step);
    CUDA_TRY(cudaGetLastError());
    CUDA_TRY(cudaEventRecord(pushed_, stream_));
    /* The caller's device frame may be released when this returns. */
    if (wait) CUDA_TRY(cudaStreamSynchronize(stream_));
    ring_.commit(frame);
    /* A pushed frame takes a slot (perhaps one a difference image was
     * of): no kept image or prefetched result counts any more. */
    main_.key.valid = ahead_.key.valid = false;
    ahead_pending_ = false;
    return Status::ok();
  }

  int device_;
  cudaStream_t stream_ = nullptr;       /* pushes and analyse () */
  cudaStream_t ahead_stream_ = nullptr; /* prefetch () */
  cudaEvent_t ahead_done_ = nullptr;    /* prefetch ()'s results are in */
  cudaEvent_t pushed_ = nullptr;        /* the last push is done */
  ChangeRing<DeviceBuffer> ring_;
  Scratch main_, ahead_; /* analyse ()'s and prefetch ()'s */
  ChangeRequest ahead_request_;
  bool ahead_pending_ = false;
  DeviceBuffer frame_, items_;
  DeviceBuffer background_; /* with background_every > 0 */
  DeviceBuffer scene_;      /* allocated by the first scene () */
  bool scene_valid_ = false;
  ChangeBackground schedule_;
  HostBuffer h_items_; /* pinned */
  /* The kernels read h_items_ and write the scratches' h_results (see the
   * top); else they use items_ and results, and copies. */
  bool mapped_ = false;
};

}  // namespace

Status create_change_detector(const ChangeConfig& config, int device,
                              std::unique_ptr<ChangeDetector>* out) {
  if (!available() || device < 0 || device >= device_count())
    return Status(StatusCode::kUnavailable,
                  "change: CUDA device " + std::to_string(device) + " not available");
  auto d = std::make_unique<ChangeCuda>(config, device);
  Status st = d->init();
  if (!st) return st;
  *out = std::move(d);
  return Status::ok();
}

}  // namespace cuda
}  // namespace match
