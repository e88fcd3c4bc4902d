/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The vocabulary every matcher (blockmatch.h, poc.h, stereo.h) shares:
 * which backend runs it and on which GPUs, its timing, how many frames it
 * takes ahead of collect(), the direction and flags of motion vectors, and
 * the CUDA device helpers the elements use to offer a context to producers.
 * Algorithm headers include this one, never each other.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace match {

/* Where a matcher runs. kAuto: CUDA when a device opens (and, for POC,
 * cuFFT loads), else the CPU. */
enum class Backend { kAuto = 0, kCpu = 1, kCuda = 2 };

/* True when `backend` is compiled in and usable on this machine. */
bool backend_available(Backend backend);
/* "auto", "cpu" or "cuda". */
const char* backend_name(Backend backend);

/* Which frame the blocks tile (see blockmatch.h and poc.h for the sign
 * conventions): kForward the earlier one, kBackward the later one. */
enum class Direction { kForward = 0, kBackward = 1 };

/* Largest accepted frame side, in pixels, for every matcher. */
constexpr int kMaxFrameSize = 16384;

/* Per-vector flags of BlockVector and PocVector. */
enum BlockFlags : uint32_t {
  kFlagNone = 0,
  kFlagSuppressed = 1u << 0, /* J(0) within the noise threshold: v = 0 */
  kFlagNoEstimate = 1u << 1, /* no reference frame yet: no vector */
  kFlagUnreliable = 1u << 2, /* confidence below the caller's threshold */
};

/* How several GPUs share the work (paper [A]). */
enum class MultiGpuMode {
  kParallel = 0, /* the block rows of each frame pair spread over the GPUs */
  kSerial = 1,   /* successive frame pairs on successive GPUs (pipelined) */
};

/* Where a CUDA matcher runs; ignored by the CPU backend. */
struct DeviceOptions {
  std::vector<int> devices; /* CUDA device ordinals; empty = {0} */
  MultiGpuMode mode = MultiGpuMode::kParallel;
};

/* Timing of the last collected frame, for benchmarks and debug logs. */
struct MatcherStats {
  /* Device time of the last collected frame's GPU work (frame preparation,
   * search, result reduction; not the host<->device copies), from CUDA
   * events; -1 where unknown (CPU backend). Reading it never waits. */
  double kernel_ms = -1.0;
};

/* Most frames (or stereo pairs) a matcher accepts through submit() before
 * collect(). */
constexpr int kMaxInFlight = 8;

/* CUDA devices usable here: 0 without the CUDA backend, a driver or a GPU.
 * Never fails to link or load: the CUDA runtime is linked statically and
 * finds the driver (libcuda.so.1) at run time. */
int cuda_device_count();
/* "NVIDIA H100 80GB HBM3, sm_90, 132 SMs"; empty when there is no such device. */
std::string cuda_device_name(int ordinal);
/* The CUcontext (as void *) of CUDA device `ordinal`'s primary context: the
 * one the CUDA backend runs in (it uses the runtime API) and the one whose
 * device pointers submit_device() takes. Created on first use and alive
 * until the process exits (nothing here calls cudaDeviceReset()). The
 * calling thread's current CUDA context is left as it was. nullptr without the
 * CUDA backend, a driver or that device. GStreamer elements wrap it in a
 * GstCudaContext so that CUDA producers (decoders, cudaupload) allocate
 * their frames where the matcher reads them directly. */
void* cuda_primary_context(int ordinal);

}  // namespace match
