/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only entry points of kernels/testing (the match_testing library,
 * built by tests/kernels/meson.build and linked only by the tests).
 */
#pragma once

#include <cstdint>
#include <vector>

#include "internal.h"
#include "match/poc.h"

namespace match {
namespace cuda {

/* The CUDA POC backend's per-frame sequence (cuda/poc_sequence.cuh) run on
 * the host: the kernels' code CTA by CTA and a host FFT in place of cuFFT
 * (tests without a GPU), then the device's poc_finish stage
 * (cuda/poc_finish.cu) likewise.
 * out[config.num_blocks()] gets the vectors that process(first) then
 * process(second) would give; chunk > 0 forces the
 * blocks per chunk (else one chunk). coarse_cache: the coarsest layer's
 * spectra through the per-frame cache (both made in this call), as the GPU
 * matcher does; false: directly. chunk and coarse_cache apply to the cuFFT
 * path only. kUnavailable in builds without the CUDA backend. */
Status emulate_poc_match(const ImageView& first, const ImageView& second,
                         const PocConfig& config, const PocRuntime& rt, PocVector* out,
                         int chunk = 0, bool coarse_cache = true,
                         PocCudaPath path = PocCudaPath::kAuto);

/* The device's poc_finish stage (cuda/poc_finish.cu) on the host: both
 * frames prepared into layer 0 as the matcher does, then the kernels' code
 * block by block (emulate_poc_finish_stage). Same arguments as
 * poc_finish(); kUnavailable in builds without the CUDA backend. */
Status emulate_poc_finish(const ImageView& earlier, const ImageView& later,
                          const PocConfig& config, const PocRuntime& rt, PocVector* v,
                          const ImageView* before = nullptr);

/* poc_finish() through the CUDA kernels on the GPU (cuda/poc_finish.cu,
 * launch_poc_finish_stage): both frames uploaded with their strides into
 * pitched device memory and prepared into layer 0 as the matcher does, `v`
 * (config.num_blocks() POC vectors) uploaded, the stage run on a stream of
 * its own, the results copied back into v. Same arguments as poc_finish().
 * kUnavailable without a CUDA device or in builds without the CUDA
 * backend. */
Status device_poc_finish(const ImageView& earlier, const ImageView& later,
                         const PocConfig& config, const PocRuntime& rt, PocVector* v,
                         const ImageView* before = nullptr);

/* The summed-area table (LayerView::sat) of a w x h layer at layer index
 * l, (w + 1) x (h + 1) words: emulated, or by the device's kernels when
 * `device` (kUnavailable without a GPU). */
Status poc_integral(const float* layer, int w, int h, int l, bool device,
                    std::vector<uint32_t>* sat);

/* The n x n clamp-to-edge window sum at (x0, y0) from such a table, as the
 * tiled path's sums take it. */
long long poc_table_window_sum(const float* layer, const uint32_t* sat, int w, int h,
                               int x0, int y0, int n);

}  // namespace cuda
}  // namespace match
