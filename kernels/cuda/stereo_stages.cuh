/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The stereo stages beyond block SAD (definitions in match/stereo.h), one
 * .cu each, driven by stereo_cuda.cu:
 *   stereo_census.cu  per-pixel images A: clipped x-Sobel (8-bit) or census
 *                     (64-bit), both views in one launch;
 *   stereo_sgm.cu     semi-global matching: path aggregation, then the sum
 *                     S, winner-take-all, sub-pixel, uniqueness and the
 *                     other view's map D';
 *   stereo_median.cu  the 3x3 median of the valid values;
 *   stereo_fill.cu    the fill of invalid pixels from their row;
 *   stereo_joint_median.cu  the median gated by the reference luma.
 * The block method's Hamming window sums are stereo_kernels.cu's rolling
 * sums over census rows (StereoPlan::census).
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "match/stereo.h"
#include "unroll.cuh"

namespace match {
namespace cuda {

__host__ __device__ __forceinline__ int stage_clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/* A(x, y) of one view for kSobel (returns 0..62) or kCensus (the bit
 * string), reads clamped; `img` has `pitch` bytes per row. Shared with the
 * host emulation of the block kernels. */
__host__ __device__ __forceinline__ uint8_t sobel_at(const uint8_t* img,
                                                     int pitch, int w, int h,
                                                     int x, int y) {
  const int xl = stage_clampi(x - 1, 0, w - 1), xr = stage_clampi(x + 1, 0, w - 1);
  const uint8_t* r0 = img + static_cast<size_t>(stage_clampi(y - 1, 0, h - 1)) * pitch;
  const uint8_t* r1 = img + static_cast<size_t>(y) * pitch;
  const uint8_t* r2 = img + static_cast<size_t>(stage_clampi(y + 1, 0, h - 1)) * pitch;
  const int gx = (r0[xr] + 2 * r1[xr] + r2[xr]) - (r0[xl] + 2 * r1[xl] + r2[xl]);
  return static_cast<uint8_t>(stage_clampi(gx + 31, 0, 62));
}

__host__ __device__ __forceinline__ uint64_t census_at(const uint8_t* img,
                                                       int pitch, int w, int h,
                                                       int x, int y, int hcw,
                                                       int hch) {
  const int c = img[static_cast<size_t>(y) * pitch + x];
  uint64_t v = 0;
  int k = 0;
  for (int j = -hch; j <= hch; ++j) {
    const uint8_t* row =
        img + static_cast<size_t>(stage_clampi(y + j, 0, h - 1)) * pitch;
    for (int i = -hcw; i <= hcw; ++i) {
      if (i == 0 && j == 0) continue;
      if (row[stage_clampi(x + i, 0, w - 1)] < c) v |= uint64_t{1} << k;
      ++k;
    }
  }
  return v;
}

/* Per-pixel images of both views (index 0: left, 1: right). */
struct FeatureArgs {
  const uint8_t* img[2] = {nullptr, nullptr}; /* luma, img_pitch B/row */
  int img_pitch = 0;
  int width = 0, height = 0;
  int hcw = 0, hch = 0; /* census half sides */
  void* out[2] = {nullptr, nullptr}; /* uint8 or uint64, out_pitch elems */
  int out_pitch = 0;
};

cudaError_t launch_stereo_features(StereoCost cost, const FeatureArgs& a,
                                   cudaStream_t stream);

/* SGM (stereo_sgm.cu). Volumes hold one L_r per path, layout
 * [path][y][x][np] (np: disparities padded to the warp's), 8-bit when
 * cmax + P2 fits, else 16-bit (sgm_volume_bytes). */
/* Passed by value to every SGM kernel: keep it within 128 bytes (checked
 * below). At 144 bytes nvcc 13 stopped unswitching sgm_cost_kernel's pixel
 * loop, 0.21 -> 0.32 ms at 1080p/128 on the H100. */
struct SgmArgs {
  const void* fref = nullptr; /* A of Ref and Oth: uint8 (kSad: the luma, */
  const void* foth = nullptr; /* kSobel) or uint64 (kCensus) */
  const uint8_t* luma = nullptr; /* Ref's luma, img_pitch (p2_edge) */
  const uint8_t* luma_oth = nullptr; /* Oth's luma (kCensusAd) */
  int fpitch = 0;             /* elements per row of fref, foth */
  int img_pitch = 0;
  int width = 0, height = 0;
  int n = 1, dmin = 0, sign = -1;
  int paths = 8;
  int p1 = 0, p2 = 0, p2_edge = 0;
  int ad = 0; /* kCensusAd: add the lumas' truncated difference */
  int cost_window = 1; /* the side b of cb's mean (1: cb = c) */
  int subpixel = 1, uniqueness = 0, lr = 0;
  void* vol = nullptr;      /* the paths' volumes, then the costs; with a
                             * cost window, path 0's volume holds c first */
  uint8_t* cost = nullptr;  /* [y][x][np] (set by launch_stereo_sgm) */
  uint32_t* pre = nullptr;  /* width x height: value | k* << 16 */
  uint32_t* dkey = nullptr; /* width x height: D' as (S << 8) | k */
};
static_assert(sizeof(SgmArgs) <= 128, "SgmArgs: see the comment above");

struct SgmPlan {
  int per = 4;       /* disparities per lane: 2, 4 or 8 */
  int np = 128;      /* 32 per */
  bool wide = false; /* 16-bit L volumes */
};

SgmPlan plan_sgm(const StereoConfig& config, const StereoRuntime& rt);
/* Bytes of the volumes for this plan. */
size_t sgm_volume_bytes(const StereoConfig& config, const SgmPlan& plan);
/* Both kernels (and dkey's reset with the left-right check); afterwards
 * pre and dkey are ready for stereo_finish. */
cudaError_t launch_stereo_sgm(const SgmPlan& plan, StereoCost cost,
                              const SgmArgs& a, cudaStream_t stream);

/* The costs with the default cost window (cost_window 3), the device's
 * code run lane by lane on the host (every pointer of `a` in host
 * memory): cb into a.cost, [y][x][np] bytes. */
void emulate_sgm_cost_box3(const SgmPlan& plan, StereoCost cost,
                           const SgmArgs& a);

/* 3x3 median of the valid values (stereo_median.cu), in -> out (pitches in
 * elements), both width x height. */
cudaError_t launch_stereo_median(const uint16_t* in, int in_pitch,
                                 uint16_t* out, int out_pitch, int width,
                                 int height, cudaStream_t stream);

/* The fill (stereo_fill.cu), in -> out; in == out is allowed (each row is
 * read whole before it is written). */
cudaError_t launch_stereo_fill(const uint16_t* in, int in_pitch, uint16_t* out,
                               int out_pitch, int width, int height,
                               cudaStream_t stream);

/* The joint median (stereo_joint_median.cu), in -> out (in != out); luma:
 * the reference view, luma_pitch bytes per row; radius 1..5. */
cudaError_t launch_stereo_joint_median(const uint16_t* in, int in_pitch,
                                       const uint8_t* luma, int luma_pitch,
                                       uint16_t* out, int out_pitch,
                                       int width, int height, int radius,
                                       int range, cudaStream_t stream);

}  // namespace cuda
}  // namespace match
