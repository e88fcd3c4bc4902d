/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Built when the CUDA backend is not (as cuda_stub.cpp): the emulation of
 * the CUDA disparity output kernel is unavailable.
 */
#include "disparity_output_internal.h"

namespace match {
namespace cuda {

Status emulate_disparity_output(const ConstDisparityView&,
                                const DisparityOutputParams&,
                                const DisparityOutputView&) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

}  // namespace cuda
}  // namespace match
