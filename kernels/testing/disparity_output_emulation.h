/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only entry point of kernels/testing for the CUDA disparity output
 * conversion (the match_testing library, linked only by the tests).
 */
#pragma once

#include "match/disparity_output.h"
#include "match/status.h"

namespace match {
namespace cuda {

/* The CUDA conversion kernel's per-pixel code (cuda/disparity_output_cuda.cuh)
 * run on the host over every pixel, with the table the GPU gets: for the
 * tests without a GPU. kUnavailable in builds without the CUDA backend. */
Status emulate_disparity_output(const ConstDisparityView& in,
                                const DisparityOutputParams& params,
                                const DisparityOutputView& out);

}  // namespace cuda
}  // namespace match
