/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Which backends exist here, and the CUDA device helpers of
 * match/common.h (the device work itself is in cuda/device_cuda.cu, or
 * cuda/cuda_stub.cpp in builds without CUDA).
 */
#include "backend.h"

#include <string>

#include "internal.h"
#include "match/common.h"

namespace match {

const char* backend_name(Backend backend) {
  switch (backend) {
    case Backend::kAuto:
      return "auto";
    case Backend::kCpu:
      return "cpu";
    case Backend::kCuda:
      return "cuda";
  }
  return "unknown";
}

bool backend_available(Backend backend) {
  switch (backend) {
    case Backend::kAuto:
    case Backend::kCpu:
      return true;
    case Backend::kCuda:
      return cuda::available();
  }
  return false;
}

Status host_memory_only(Backend backend) {
  return Status(StatusCode::kUnsupported,
                std::string("the ") + backend_name(backend) +
                    " backend takes frames in host memory only");
}

int cuda_device_count() { return cuda::device_count(); }
void* cuda_primary_context(int ordinal) { return cuda::primary_context(ordinal); }
std::string cuda_device_name(int ordinal) { return cuda::device_name(ordinal); }

}  // namespace match
