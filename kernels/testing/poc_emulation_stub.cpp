/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only, for builds without the CUDA backend: the POC emulation needs
 * the kernels' host code, which only nvcc builds here.
 */
#include "testing/poc_emulation.h"

namespace match {
namespace cuda {

Status emulate_poc_match(const ImageView&, const ImageView&, const PocConfig&,
                         const PocRuntime&, PocVector*, int, bool,
                         PocCudaPath) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status emulate_poc_finish(const ImageView&, const ImageView&,
                          const PocConfig&, const PocRuntime&, PocVector*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status device_poc_finish(const ImageView&, const ImageView&,
                         const PocConfig&, const PocRuntime&, PocVector*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

}  // namespace cuda
}  // namespace match
