/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Shared by the CUDA backends (host code only): CUDA errors as match::Status
 * (house style 2.2: every call checked, never just printed), and RAII pinned
 * host and device buffers that grow only when a geometry needs more.
 */
#pragma once

#include <cstddef>
#include <cstdio>

#include <cuda_runtime.h>

#include <string>

#include "internal.h"
#include "match/log.h"
#include "match/status.h"

namespace match {
namespace cuda {

inline Status cuda_status(cudaError_t e, const char* what) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "CUDA: %s failed: %s (%s)", what, cudaGetErrorString(e),
                cudaGetErrorName(e));
  const StatusCode code = (e == cudaErrorMemoryAllocation) ? StatusCode::kOutOfMemory
                          : (e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
                             e == cudaErrorInvalidDevice)
                              ? StatusCode::kUnavailable
                              : StatusCode::kInternal;
  return Status(code, buf);
}

}  // namespace cuda
}  // namespace match

#define CUDA_TRY(expr)                                                   \
  do {                                                                   \
    cudaError_t e_ = (expr);                                             \
    if (e_ != cudaSuccess) return ::match::cuda::cuda_status(e_, #expr); \
  } while (0)

namespace match {
namespace cuda {

/* Pinned host memory, portable across devices. */
struct HostBuffer {
  void* p = nullptr;
  size_t size = 0;
  ~HostBuffer() { release(); }
  void release() {
    if (p) cudaFreeHost(p);
    p = nullptr;
    size = 0;
  }
  Status ensure(size_t n) {
    if (n <= size) return Status::ok();
    release();
    CUDA_TRY(cudaHostAlloc(&p, n, cudaHostAllocPortable));
    size = n;
    return Status::ok();
  }
};

struct DeviceBuffer {
  void* p = nullptr;
  size_t size = 0;
  int device = -1;
  ~DeviceBuffer() { release(); }
  void release() {
    if (p) {
      cudaSetDevice(device);
      cudaFree(p);
    }
    p = nullptr;
    size = 0;
  }
  Status ensure(int dev, size_t n) {
    if (n <= size && dev == device) return Status::ok();
    release();
    device = dev;
    CUDA_TRY(cudaMalloc(&p, n));
    size = n;
    return Status::ok();
  }
  template <typename T>
  T* as() const {
    return static_cast<T*>(p);
  }
};

/* The GPU of a one-device matcher (POC, stereo): devices.devices[0], 0 when
 * none is listed (`what` names the matcher in the log when more are).
 * kUnavailable, with the reason, without a usable device or for an ordinal
 * that does not exist. */
inline Status pick_one_device(const DeviceOptions& devices, const char* what, int* dev) {
  const int count = device_count();
  if (count == 0)
    return Status(StatusCode::kUnavailable,
                  "no CUDA device (no GPU, no NVIDIA driver, or the driver is "
                  "too old for CUDA " +
                      std::to_string(CUDART_VERSION / 1000) + ")");
  const int d = devices.devices.empty() ? 0 : devices.devices[0];
  if (d < 0 || d >= count)
    return Status(StatusCode::kUnavailable,
                  "CUDA device " + std::to_string(d) + " does not exist (" +
                      std::to_string(count) + " device(s) found)");
  if (devices.devices.size() > 1)
    log(LogLevel::kInfo, "%s runs on one GPU: cuda:%d of the %zu listed", what, d,
        devices.devices.size());
  *dev = d;
  return Status::ok();
}

}  // namespace cuda
}  // namespace match
