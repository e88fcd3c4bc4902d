/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Backend choice, shared by the create() of every matcher (the
 * *_dispatch.cpp files); backend.cpp defines the public side of it
 * (match/common.h: backend_name, backend_available, the CUDA device
 * helpers). Not installed.
 */
#pragma once

#include <exception>
#include <memory>
#include <new>
#include <string>

#include "internal.h"
#include "match/common.h"
#include "match/log.h"
#include "match/status.h"

namespace match {

/* What the default submit_device() of every matcher returns: backends
 * without device input (CPU) refuse device frames, and the caller falls
 * back to host memory. */
Status host_memory_only(Backend backend);

/* create() of every matcher: validation, the backend choice and the
 * exception barrier (nothing thrown inside the kernels crosses into gst/).
 * kCuda goes to `cuda_create` and its error is returned; kAuto tries
 * `cuda_create` when a CUDA device exists and falls back to `cpu_create`
 * (logged) when it fails, e.g. without cuFFT or with too little device
 * memory. `what` names the matcher in messages. */
template <typename Matcher, typename Config, typename CudaCreate, typename CpuCreate>
Status create_preferring_cuda(const char* what, Backend backend, const Config& config,
                              std::unique_ptr<Matcher>* out, const DeviceOptions& devices,
                              CudaCreate cuda_create, CpuCreate cpu_create) {
  try {
    if (!out) return Status(StatusCode::kInvalidArgument, "no output pointer");
    Status st = config.validate();
    if (!st) return st;
    if (backend == Backend::kCuda || (backend == Backend::kAuto && cuda::available())) {
      st = cuda_create(config, devices, out);
      if (st || backend == Backend::kCuda) return st;
      log(LogLevel::kInfo, "%s: CUDA backend not used (%s); using the CPU", what,
          st.message().c_str());
    }
    return cpu_create(config, out);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  std::string("out of memory creating the ") + what + " matcher");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, e.what());
  }
}

}  // namespace match
