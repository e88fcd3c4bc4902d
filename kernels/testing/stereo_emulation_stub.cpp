/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only, for builds without the CUDA backend: the stereo emulation
 * needs the kernels' host code, which only nvcc builds here.
 */
#include "testing/stereo_emulation.h"

namespace match {
namespace cuda {

Status emulate_stereo_match(const ImageView&, const ImageView&, const StereoConfig&,
                            const StereoRuntime&, const DisparityView&, int) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status emulate_sgm_costs(const ImageView&, const ImageView&, const StereoConfig&,
                         std::vector<uint8_t>*, int*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

}  // namespace cuda
}  // namespace match
