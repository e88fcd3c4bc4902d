/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Built when the CUDA backend is not (-Dcuda=disabled, or no nvcc):
 * backend=cuda then fails with a clear message and backend=auto uses the CPU.
 */
#include "internal.h"

namespace match {
namespace cuda {

bool available() { return false; }
int device_count() { return 0; }
std::string device_name(int) { return std::string(); }
void* primary_context(int) { return nullptr; }

Status create_block_matcher(const BlockMatchConfig&, const DeviceOptions&,
                            std::unique_ptr<BlockMatcher>*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status create_poc_matcher(const PocConfig&, const DeviceOptions&,
                          std::unique_ptr<PocMatcher>*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status create_stereo_matcher(const StereoConfig&, const DeviceOptions&,
                             std::unique_ptr<StereoMatcher>*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

Status create_change_detector(const ChangeConfig&, int,
                              std::unique_ptr<ChangeDetector>*) {
  return Status(StatusCode::kUnavailable,
                "this build has no CUDA backend (configured without nvcc)");
}

}  // namespace cuda
}  // namespace match
