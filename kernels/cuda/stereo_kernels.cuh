/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * SAD block-matching stereo kernels (design in stereo_kernels.cu,
 * definitions in match/stereo.h). Host-side interface shared by the CUDA
 * stereo matcher (stereo_cuda.cu) and by the host emulation of the same
 * kernels (emulate_*), which runs every CTA's code on the CPU so that the
 * kernels' indexing and arithmetic can be checked against ref/ without a GPU.
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "match/stereo.h"

namespace match {
namespace cuda {

/* Output columns per thread (S): each thread rolls S + 2 hw column sums of
 * one disparity in registers. A multiple of 4 (the reference rows are read
 * as 32-bit words). */
constexpr int kStereoSegCols = 32;
constexpr int kStereoMaxThreads = 256;
constexpr int kStereoMaxHalfWidth = (kMaxStereoWindow - 1) / 2;

/* Per-configuration launch shape and shared-memory layout. */
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
  __host__ __device__ int stage_bytes() const {
    return 2 * ref_bytes + 2 * oth_bytes;
  }
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
   * left-right check needs columns outside [0, width), see the .cu), bands
   * of band_rows rows. */
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

/* Fills the grid fields of `a` for this frame: `target_ctas` is how many
 * CTAs keep the device busy (about 2 waves); band_rows > 0 forces the band
 * height (tests). */
void plan_stereo_frame(const StereoPlan& plan, bool lr_check, int width,
                       int height, int target_ctas, int band_rows,
                       StereoFrameArgs* a);

/* Raises the cost kernel's dynamic shared-memory limit on the current
 * device and reports how many of its CTAs fit on one SM. */
cudaError_t stereo_prepare_device(const StereoPlan& plan, int* ctas_per_sm);

cudaError_t launch_stereo_texture(const StereoPlan& plan,
                                  const StereoFrameArgs& a,
                                  cudaStream_t stream);
cudaError_t launch_stereo_cost(const StereoPlan& plan, const StereoFrameArgs& a,
                               cudaStream_t stream);
cudaError_t launch_stereo_finish(const StereoPlan& plan,
                                 const StereoFrameArgs& a, cudaStream_t stream);

/* The same kernels run CTA by CTA, thread by thread on the host (phases
 * between barriers in order), on host buffers. */
void emulate_stereo_texture(const StereoPlan& plan, const StereoFrameArgs& a);
void emulate_stereo_cost(const StereoPlan& plan, const StereoFrameArgs& a);
void emulate_stereo_finish(const StereoPlan& plan, const StereoFrameArgs& a);

}  // namespace cuda
}  // namespace match
