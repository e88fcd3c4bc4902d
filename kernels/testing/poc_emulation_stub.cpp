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
                         const PocRuntime&, PocVector*, int, bool, PocCudaPath) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status emulate_poc_finish(const ImageView&, const ImageView&, const PocConfig&,
                          const PocRuntime&, PocVector*, const ImageView*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status device_poc_finish(const ImageView&, const ImageView&, const PocConfig&,
                         const PocRuntime&, PocVector*, const ImageView*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status poc_integral(const float*, int, int, int, bool, std::vector<uint32_t>*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

// Unreachable: poc_integral gives no table to sum in this build.
long long poc_table_window_sum(const float*, const uint32_t*, int, int, int, int, int) {
  return -1;
}

}  // namespace cuda
}  // namespace match
