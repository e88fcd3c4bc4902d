/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The stages of CUDA stereo (definitions in match/stereo.h), one .cu each,
 * in the order the matcher (stereo_cuda.cu) runs them for a pair:
 *   stereo_census.cu   per-pixel images A of both views: clipped x-Sobel
 *                      (8-bit) or census (64-bit), one launch;
 *   stereo_texture.cu  the texture test's row sums;
 * then the block method:
 *   stereo_block.cu    window costs, winner-take-all, sub-pixel, uniqueness
 *                      and the other view's map D', one kernel;
 * or SGM:
 *   stereo_cost.cu     the cost volume (costs averaged over the window);
 *   stereo_paths.cu    the aggregation, one volume per path;
 *   stereo_wta.cu      their sum S, winner-take-all, sub-pixel, uniqueness
 *                      and D';
 * then, for both:
 *   stereo_finish.cu   the texture and left-right tests -> the 16-bit map;
 *   stereo_median.cu   the 3x3 median of the valid values;
 *   stereo_fill.cu     the fill of invalid pixels from their row;
 *   stereo_joint_median.cu  the median gated by the reference luma.
 * Device code that several stages share, or that the host emulation
 * (kernels/testing) runs too, is in stereo_sgm.cuh, stereo_cost.cuh,
 * stereo_block.cuh and stereo_finish.cuh.
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "match/stereo.h"
#include "stereo_sgm_plan.h"
#include "unroll.cuh"

namespace match {
namespace cuda {

__host__ __device__ __forceinline__ int stage_clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
__host__ __device__ __forceinline__ int stage_absi(int v) {
#if defined(__CUDA_ARCH__)
  return abs(v); /* one IABS */
#else
  return v < 0 ? -v : v;
#endif
}
/* floor(a / b) for b > 0 (C++ division truncates). */
__host__ __device__ __forceinline__ int stage_floor_div(int a, int b) {
  int q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

/* ---- Per-pixel images (stereo_census.cu) ---- */

/* Both views (index 0: left, 1: right). */
struct FeatureArgs {
  const uint8_t* img[2] = {nullptr, nullptr}; /* luma, img_pitch B/row */
  int img_pitch = 0;
  int width = 0, height = 0;
  int hcw = 0, hch = 0;              /* census half sides */
  void* out[2] = {nullptr, nullptr}; /* uint8 or uint64, out_pitch elems */
  int out_pitch = 0;
};

cudaError_t launch_stereo_features(StereoCost cost, const FeatureArgs& a,
                                   cudaStream_t stream);

/* Bytes of one view's per-pixel image A per element (0: A is the luma). */
inline int feature_bytes(StereoCost cost) {
  return stereo_cost_uses_census(cost) ? 8 : (cost == StereoCost::kSobel ? 1 : 0);
}

/* ---- Texture, block method, finish (stereo_texture.cu, stereo_block.cu,
 * stereo_finish.cu) ---- */

/* Output columns per thread (S) of the block kernel: each thread rolls
 * S + 2 hw column sums of one disparity in registers. A multiple of 4 (the
 * reference rows are read as 32-bit words). */
constexpr int kStereoSegCols = 32;
constexpr int kStereoMaxThreads = 256;
constexpr int kStereoMaxHalfWidth = (kMaxStereoWindow - 1) / 2;

/* Per-configuration launch shape and shared-memory layout of the block
 * kernel; the window and disparities for texture and finish too. */
struct StereoPlan {
  int hw = 0, hh = 0;  /* window half sides */
  int n = 1, dmin = 0; /* disparities */
  int sign = -1;       /* partner of ref pixel x at d: x + sign d */
  int segs = 1;        /* P: column segments per CTA (n < 32) */
  int threads = 1;     /* T = n P: thread t owns disparity t % n and
                        * segment t / n */
  int strip = 32;      /* SP = P S output columns per CTA */
  int key_stride = 33; /* SP + 1 (odd: see the bank notes) */
  int ref_bytes = 0;   /* RB: one staged reference row, elements, 4k */
  int oth_bytes = 0;   /* OB: one staged other-view row, elements, 4k */
  bool census = false; /* elements: 64-bit census words, else bytes */
  size_t smem_bytes = 0;

  /* Elements of one row step (Ref in, out; Oth in, out). */
  __host__ __device__ int stage_bytes() const { return 2 * ref_bytes + 2 * oth_bytes; }
};

StereoPlan plan_stereo(const StereoConfig& config);

/* Per-frame arguments (device pointers on the GPU, host pointers in the
 * emulation). */
struct StereoFrameArgs {
  /* The per-pixel images the window sums read, img_pitch elements per
   * row: bytes (the luma for kSad, the Sobel image for kSobel; ref is also
   * the texture kernel's luma) or, with plan.census, 64-bit census words. */
  const uint8_t* ref = nullptr;
  const uint8_t* oth = nullptr;
  const uint64_t* cref = nullptr;
  const uint64_t* coth = nullptr;
  int img_pitch = 0;
  int width = 0, height = 0;
  /* Cost-kernel grid: strips of plan.strip columns from column cbeg (the
   * left-right check needs columns outside [0, width), see stereo_block.cu),
   * bands of band_rows rows. */
  int cbeg = 0;
  int strips = 1, bands = 1, band_rows = 1;
  int subpixel = 1;
  int uniqueness = 0;
  int lr_max_diff = -1;
  int texture_threshold = 0;
  uint32_t* pre = nullptr;  /* width x height: value | d index << 16 */
  uint32_t* dkey = nullptr; /* width x height: other view's WTA key */
  uint16_t* tex = nullptr;  /* width x height: texture row sums */
  uint16_t* out = nullptr;  /* out_pitch elements per row */
  int out_pitch = 0;
};

/* The frame's arguments for a pair (stereo_cuda.cu): the views' lumas
 * (img_pitch bytes per row; ref and oth as config.reference says), the
 * runtime's tests, the scratch (width x height each) and the map `out`
 * (out_pitch elements per row). The block kernel's grid fields are
 * plan_stereo_frame's. */
StereoFrameArgs stereo_frame_args(const StereoConfig& config, const StereoRuntime& rt,
                                  const uint8_t* left, const uint8_t* right,
                                  int img_pitch, uint32_t* pre, uint32_t* dkey,
                                  uint16_t* tex, uint16_t* out, int out_pitch);

/* Points the block kernel at the per-pixel images (fref, foth: the
 * reference view's and the other's, img_pitch elements per row); the
 * texture kernel has read a.ref (the luma) by then. kSad keeps the lumas. */
void set_block_inputs(StereoCost cost, const void* fref, const void* foth,
                      StereoFrameArgs* a);

/* Fills the grid fields of `a` for this frame: `target_ctas` is how many
 * CTAs keep the device busy (about 2 waves); band_rows > 0 forces the band
 * height (tests). */
void plan_stereo_frame(const StereoPlan& plan, bool lr_check, int width, int height,
                       int target_ctas, int band_rows, StereoFrameArgs* a);

/* Raises the block kernel's dynamic shared-memory limit on the current
 * device and reports how many of its CTAs fit on one SM. */
cudaError_t stereo_prepare_device(const StereoPlan& plan, int* ctas_per_sm);

cudaError_t launch_stereo_texture(const StereoPlan& plan, const StereoFrameArgs& a,
                                  cudaStream_t stream);
cudaError_t launch_stereo_block(const StereoPlan& plan, const StereoFrameArgs& a,
                                cudaStream_t stream);
cudaError_t launch_stereo_finish(const StereoPlan& plan, const StereoFrameArgs& a,
                                 cudaStream_t stream);

/* ---- SGM (stereo_cost.cu, stereo_paths.cu, stereo_wta.cu) ---- */

/* Volumes hold one L_r per path, layout [path][y][x][np] (np: disparities
 * padded to the warp's), 8-bit when cmax + P2 fits, else 16-bit
 * (stereo_sgm_plan.h), then the cost volume, [y][x][np] bytes. */
/* Passed by value to every SGM kernel: keep it within 128 bytes (checked
 * below). At 144 bytes nvcc 13 stopped unswitching sgm_cost_kernel's pixel
 * loop, 0.21 -> 0.32 ms at 1080p/128 on the H100. */
struct SgmArgs {
  const void* fref = nullptr;        /* A of Ref and Oth: uint8 (kSad: the luma, */
  const void* foth = nullptr;        /* kSobel) or uint64 (kCensus) */
  const uint8_t* luma = nullptr;     /* Ref's luma, img_pitch (p2_edge) */
  const uint8_t* luma_oth = nullptr; /* Oth's luma (kCensusAd) */
  int fpitch = 0;                    /* elements per row of fref, foth */
  int img_pitch = 0;
  int width = 0, height = 0;
  int n = 1, dmin = 0, sign = -1;
  int paths = 8;
  int p1 = 0, p2 = 0, p2_edge = 0;
  int ad = 0;          /* kCensusAd: add the lumas' truncated difference */
  int cost_window = 1; /* the side b of cb's mean (1: cb = c) */
  int subpixel = 1, uniqueness = 0, lr = 0;
  void* vol = nullptr;      /* the paths' volumes, then the costs; with a
                             * cost window, path 0's volume holds c first */
  uint8_t* cost = nullptr;  /* [y][x][np]: the cost volume */
  uint32_t* pre = nullptr;  /* width x height: value | k* << 16 */
  uint32_t* dkey = nullptr; /* width x height: D' as (S << 8) | k */
};
static_assert(sizeof(SgmArgs) <= 128, "SgmArgs: see the comment above");

/* SGM's arguments for a pair (stereo_cuda.cu): A of both views (a_left,
 * a_right, pitch elements per row: the lumas for kSad), the lumas (pitch
 * bytes per row), the runtime's penalties and tests, pre and dkey, and the
 * volumes of `plan` at vol (the cost volume after the paths'; null: the
 * caller sets cost). */
SgmArgs sgm_args(const StereoConfig& config, const StereoRuntime& rt, const SgmPlan& plan,
                 const void* a_left, const void* a_right, const uint8_t* left,
                 const uint8_t* right, int pitch, uint32_t* pre, uint32_t* dkey,
                 void* vol);

/* The cost volume cb from A (stereo_cost.cu). */
cudaError_t launch_sgm_cost(const SgmPlan& plan, StereoCost cost, const SgmArgs& a,
                            cudaStream_t stream);
/* Every path's L_r from the cost volume (stereo_paths.cu). */
cudaError_t launch_sgm_paths(const SgmPlan& plan, const SgmArgs& a, cudaStream_t stream);
/* S, the winner-take-all into pre and, with the left-right check, D' into
 * dkey (reset first) (stereo_wta.cu); then pre and dkey are ready for
 * launch_stereo_finish. */
cudaError_t launch_sgm_wta(const SgmPlan& plan, const SgmArgs& a, cudaStream_t stream);

/* ---- Post-filters ---- */

/* 3x3 median of the valid values (stereo_median.cu), in -> out (pitches in
 * elements), both width x height. */
cudaError_t launch_stereo_median(const uint16_t* in, int in_pitch, uint16_t* out,
                                 int out_pitch, int width, int height,
                                 cudaStream_t stream);

/* The fill (stereo_fill.cu), in -> out; in == out is allowed (each row is
 * read whole before it is written). */
cudaError_t launch_stereo_fill(const uint16_t* in, int in_pitch, uint16_t* out,
                               int out_pitch, int width, int height, cudaStream_t stream);

/* The joint median (stereo_joint_median.cu), in -> out (in != out); luma:
 * the reference view, luma_pitch bytes per row; radius 1..5. */
cudaError_t launch_stereo_joint_median(const uint16_t* in, int in_pitch,
                                       const uint8_t* luma, int luma_pitch, uint16_t* out,
                                       int out_pitch, int width, int height, int radius,
                                       int range, cudaStream_t stream);

}  // namespace cuda
}  // namespace match
