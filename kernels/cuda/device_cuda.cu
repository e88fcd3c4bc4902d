/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA device probing and primary contexts, shared by the three CUDA
 * backends (blockmatch_cuda.cu, poc_cuda.cu, stereo_cuda.cu) and behind
 * match::cuda_device_count(), cuda_device_name() and
 * cuda_primary_context().
 *
 * The CUDA runtime is linked statically (meson: cudart_static); it opens
 * libcuda.so.1 when first used, so the plugin loads without a driver and
 * available() simply reports no device.
 */
#include <cstdio>
#include <mutex>
#include <string>
#include <vector>

#include <cuda.h> /* CUcontext, for the primary context's handle */
#include <cuda_runtime.h>

#include "internal.h"
#include "match/log.h"

namespace match {
namespace cuda {
namespace {

/* Probed once per process: the first CUDA call loads the driver, and the
 * count is then fixed for the process's life. */
int probe_device_count() {
  static std::once_flag once;
  static int count = 0;
  std::call_once(once, [] {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
      cudaGetLastError(); /* clear the sticky-free error */
      log(LogLevel::kInfo, "no CUDA device: %s", cudaGetErrorString(e));
      n = 0;
    }
    count = n;
  });
  return count;
}

}  // namespace

/* The runtime has no call that returns its CUcontext, so the driver's
 * cuCtxGetCurrent() is fetched through the runtime (no link against
 * libcuda: the plugin must load without a driver) and asked right after
 * cudaSetDevice() + cudaFree(0), which make the device's primary context
 * current on this thread. The thread's previous current context (often
 * none: GStreamer calls this from the application's thread at NULL->READY)
 * is put back with cuCtxSetCurrent(), so that an application using CUDA on
 * that thread keeps its device; our own calls always cudaSetDevice() first.
 * The static runtime keeps the primary context until the process exits,
 * so the handle is cached. */
namespace {
template <typename Fn>
Fn driver_entry_point(const char* symbol) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t e =
      cudaGetDriverEntryPointByVersion(symbol, &fn, 12000, cudaEnableDefault, &found);
#else
  cudaError_t e = cudaGetDriverEntryPoint(symbol, &fn, cudaEnableDefault, &found);
#endif
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess) {
    cudaGetLastError();
    return nullptr;
  }
  return reinterpret_cast<Fn>(fn);
}
}  // namespace

void* primary_context(int ordinal) {
  static std::mutex mu;
  static std::vector<void*> cache;
  const int n = device_count();
  if (ordinal < 0 || ordinal >= n) return nullptr;
  std::lock_guard<std::mutex> lock(mu);
  if (cache.size() < static_cast<size_t>(n)) cache.resize(n, nullptr);
  if (cache[ordinal]) return cache[ordinal];

  using CtxGetCurrent = CUresult(CUDAAPI*)(CUcontext*);
  using CtxSetCurrent = CUresult(CUDAAPI*)(CUcontext);
  const auto get_current = driver_entry_point<CtxGetCurrent>("cuCtxGetCurrent");
  const auto set_current = driver_entry_point<CtxSetCurrent>("cuCtxSetCurrent");
  if (!get_current || !set_current) {
    log(LogLevel::kWarning, "cuda:%d: no cuCtxGetCurrent/cuCtxSetCurrent in the driver",
        ordinal);
    return nullptr;
  }
  CUcontext previous = nullptr;
  if (get_current(&previous) != CUDA_SUCCESS) previous = nullptr;
  cudaError_t e;
  if ((e = cudaSetDevice(ordinal)) != cudaSuccess ||
      (e = cudaFree(nullptr)) != cudaSuccess) {
    cudaGetLastError();
    log(LogLevel::kWarning, "cuda:%d: could not open the primary context: %s", ordinal,
        cudaGetErrorString(e));
    set_current(previous);
    return nullptr;
  }
  CUcontext ctx = nullptr;
  const CUresult r = get_current(&ctx);
  set_current(previous);
  if (r != CUDA_SUCCESS || !ctx) {
    log(LogLevel::kWarning, "cuda:%d: cuCtxGetCurrent failed (%d)", ordinal,
        static_cast<int>(r));
    return nullptr;
  }
  log(LogLevel::kDebug, "cuda:%d: primary context %p", ordinal, static_cast<void*>(ctx));
  cache[ordinal] = ctx;
  return ctx;
}

bool available() { return probe_device_count() > 0; }

int device_count() { return probe_device_count(); }

std::string device_name(int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return std::string();
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) return std::string();
  char buf[320];
  std::snprintf(buf, sizeof buf, "%s, sm_%d%d, %d SMs, %zu MiB", prop.name, prop.major,
                prop.minor, prop.multiProcessorCount, prop.totalGlobalMem >> 20);
  return buf;
}

}  // namespace cuda
}  // namespace match
