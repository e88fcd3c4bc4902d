/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Entry points shared between kernels/ translation units (not installed).
 */
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "match/blockmatch.h"
#include "match/change.h"
#include "match/log.h"
#include "match/poc.h"
#include "match/stereo.h"

#if defined(_OPENMP)
#include <omp.h>
#define MATCH_PRAGMA(x) _Pragma(#x)
#define MATCH_OMP(x) MATCH_PRAGMA(omp x)
#else
#define MATCH_OMP(x)
#endif

namespace match {

/* Every config's frame-size check (validate()): 1..kMaxFrameSize a side.
 * `what` prefixes the message ("" or e.g. "change: "). */
inline Status check_frame_size(int width, int height, const char* what = "") {
  if (width >= 1 && height >= 1 && width <= kMaxFrameSize && height <= kMaxFrameSize)
    return Status::ok();
  return Status(StatusCode::kInvalidArgument,
                std::string(what) + "frame size " + std::to_string(width) + "x" +
                    std::to_string(height) + " out of range 1.." +
                    std::to_string(kMaxFrameSize));
}

/* Threads for a CUDA backend's host-side copy of a frame (into pinned
 * staging, or out of it): `requested` when the caller set its runtime's
 * thread count (an element's n-threads), else at most 4. One thread moves
 * about 10 GB/s, so 4 copy a 4K frame in ~0.2 ms; more would only add
 * OpenMP teams when many streams share a machine (each streaming thread
 * gets its own team, and idle team threads spin). */
inline int host_copy_threads(int requested) {
#if defined(_OPENMP)
  if (requested > 0) return requested;
  const int n = omp_get_max_threads();
  return n < 4 ? n : 4;
#else
  (void)requested;
  return 1;
#endif
}

/* The OpenMP change stage (cpu/change_cpu.cpp). */
std::unique_ptr<ChangeDetector> make_change_cpu(const ChangeConfig& config);

namespace cpu {
Status create_block_matcher(const BlockMatchConfig& config,
                            std::unique_ptr<BlockMatcher>* out);

/* The OpenMP POC matcher (cpu/poc_cpu.cpp). */
Status create_poc_matcher(const PocConfig& config, std::unique_ptr<PocMatcher>* out);

/* The OpenMP SAD stereo matcher (cpu/stereo_cpu.cpp). */
Status create_stereo_matcher(const StereoConfig& config,
                             std::unique_ptr<StereoMatcher>* out);
}  // namespace cpu

namespace cuda {
/* Device probing and the primary contexts (cuda/device_cuda.cu). */
bool available();
int device_count();
std::string device_name(int ordinal);
/* match::cuda_primary_context(). */
void* primary_context(int ordinal);
Status create_block_matcher(const BlockMatchConfig& config, const DeviceOptions& devices,
                            std::unique_ptr<BlockMatcher>* out);
/* The CUDA POC matcher (cuda/poc_cuda.cu); kUnavailable without a device
 * or without cuFFT (loaded at run time). */
Status create_poc_matcher(const PocConfig& config, const DeviceOptions& devices,
                          std::unique_ptr<PocMatcher>* out);
/* The GPU change stage (cuda/change_cuda.cu); kUnavailable without the
 * device or the CUDA backend. */
Status create_change_detector(const ChangeConfig& config, int device,
                              std::unique_ptr<ChangeDetector>* out);
/* The CUDA SAD stereo matcher (cuda/stereo_cuda.cu); kUnavailable without a
 * device or for a nonexistent ordinal (one GPU: the first listed). */
Status create_stereo_matcher(const StereoConfig& config, const DeviceOptions& devices,
                             std::unique_ptr<StereoMatcher>* out);
/* The CUDA POC backend's paths: kFused (poc_fused.cu, windows of 32 and
 * 64), kTiled (poc_tiled.cu, 128 and 256) and kCufft (batched cuFFT, every
 * size); kAuto picks as the GPU matcher does (resolve_path in
 * cuda/poc_sequence.cuh). The test-only host emulation of the backend
 * takes one too (kernels/testing/poc_emulation.h). */
enum class PocCudaPath { kAuto, kCufft, kFused, kTiled };
}  // namespace cuda

/* The per-pair argument checks every stereo backend and the reference make
 * (stereo_dispatch.cpp): both views and the output config.width x height,
 * runtime thresholds in range. */
Status check_stereo_frame(const StereoConfig& config, const ImageView& left,
                          const ImageView& right, const StereoRuntime& rt,
                          const DisparityView& out);

namespace ref {
/* Stages of ref::stereo_match (ref/stereo_ref.cpp), for the tests that
 * check the reference itself by hand. The per-pixel image A of one view
 * (match/stereo.h: the luma, the clipped x-Sobel or the census string),
 * W x H row-major. */
std::vector<uint64_t> stereo_pixel_image(const ImageView& img,
                                         const StereoConfig& config);
/* C(x, y, d) of the reference view (kBlock's window sums, kSgm's S) at
 * (y W + x) n + (d - min_disparity). */
Status stereo_cost_volume(const ImageView& left, const ImageView& right,
                          const StereoConfig& config, const StereoRuntime& rt,
                          std::vector<int64_t>* volume);
/* kSgm's cost cb(x, y, d) at (y W + x) n + (d - min_disparity). */
Status stereo_sgm_costs(const ImageView& left, const ImageView& right,
                        const StereoConfig& config, std::vector<int32_t>* costs);
/* The post-filters, in place. */
void stereo_median3(const DisparityView& map);
void stereo_speckle(const DisparityView& map, int size, int range);
void stereo_fill_invalid(const DisparityView& map);
/* ref: the reference view's luma. */
void stereo_joint_median(const DisparityView& map, const ImageView& ref, int radius,
                         int range);
}  // namespace ref

}  // namespace match
