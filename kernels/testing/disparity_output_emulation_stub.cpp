/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only, for builds without the CUDA backend: the emulation of the CUDA
 * disparity output kernel is unavailable.
 */
#include "testing/disparity_output_emulation.h"

namespace match {
namespace cuda {

Status emulate_disparity_output(const ConstDisparityView&, const DisparityOutputParams&,
                                const DisparityOutputView&) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

}  // namespace cuda
}  // namespace match
