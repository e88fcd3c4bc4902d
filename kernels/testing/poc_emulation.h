/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only entry points of kernels/testing (the match_testing library,
 * built by tests/kernels/meson.build and linked only by the tests).
 */
#pragma once

#include "internal.h"
#include "match/poc.h"

namespace match {
namespace cuda {

/* The CUDA POC backend's per-frame sequence (cuda/poc_sequence.cuh) run on
 * the host: the kernels' code CTA by CTA and a host FFT in place of cuFFT
 * (tests without a GPU), then poc_finish() as every matcher does.
 * out[config.num_blocks()] gets the vectors that process(first) then
 * process(second) would give; chunk > 0 forces the
 * blocks per chunk (else one chunk). coarse_cache: the coarsest layer's
 * spectra through the per-frame cache (both made in this call), as the GPU
 * matcher does; false: directly. chunk and coarse_cache apply to the cuFFT
 * path only. kUnavailable in builds without the CUDA backend. */
Status emulate_poc_match(const ImageView& first, const ImageView& second,
                         const PocConfig& config, const PocRuntime& rt,
                         PocVector* out, int chunk = 0,
                         bool coarse_cache = true,
                         PocCudaPath path = PocCudaPath::kAuto);

}  // namespace cuda
}  // namespace match
