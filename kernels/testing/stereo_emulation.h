/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only entry points of kernels/testing for CUDA stereo (the
 * match_testing library, built by tests/kernels/meson.build and linked only
 * by the tests).
 */
#pragma once

#include <cstdint>
#include <vector>

#include "match/stereo.h"

namespace match {
namespace cuda {

/* The CUDA stereo stages' code run on the host, CTA by CTA (tests without
 * a GPU): the block method's texture, block and finish kernels, then the
 * post-filters as the matcher runs them; band_rows > 0 forces the row
 * bands of the block kernel. kUnavailable in builds without the CUDA
 * backend. */
Status emulate_stereo_match(const ImageView& left, const ImageView& right,
                            const StereoConfig& config, const StereoRuntime& rt,
                            const DisparityView& out, int band_rows = 0);

/* kSgm's cost volume cb as the device's fused cost and cost-window kernel
 * (cost_window 3) computes it, run lane by lane on the host: [y][x][np]
 * bytes, np = the disparities padded to a warp's (*np); the padded ones
 * hold costs of their own columns, unused. kUnsupported for other
 * windows, kUnavailable in builds without the CUDA backend. */
Status emulate_sgm_costs(const ImageView& left, const ImageView& right,
                         const StereoConfig& config, std::vector<uint8_t>* cb, int* np);

}  // namespace cuda
}  // namespace match
