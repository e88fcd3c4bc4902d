/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Entry points shared between kernels/ translation units (not installed).
 */
#pragma once

#include <memory>
#include <string>

#include "match/blockmatch.h"
#include "match/poc.h"
#include "match/stereo.h"

#if defined(_OPENMP)
#define MATCH_PRAGMA(x) _Pragma(#x)
#define MATCH_OMP(x) MATCH_PRAGMA(omp x)
#else
#define MATCH_OMP(x)
#endif

namespace match {

namespace cpu {
/* Instruction set used by the CPU backend's SAD loops. Chosen at run time
 * (cpuid); the environment variable MATCH_CPU_ISA=scalar|sse2|avx2 forces a
 * lower one, which the tests use to check every path against ref/. */
enum class Isa { kScalar = 0, kSse2 = 1, kAvx2 = 2 };
Isa detect_isa();
const char* isa_name(Isa isa);

Status create_block_matcher(const BlockMatchConfig& config,
                            std::unique_ptr<BlockMatcher>* out);

/* The OpenMP POC matcher (cpu/poc_cpu.cpp). */
Status create_poc_matcher(const PocConfig& config,
                          std::unique_ptr<PocMatcher>* out);

/* The OpenMP SAD stereo matcher (cpu/stereo_cpu.cpp). */
Status create_stereo_matcher(const StereoConfig& config,
                             std::unique_ptr<StereoMatcher>* out);
}  // namespace cpu

namespace cuda {
bool available();
int device_count();
std::string device_name(int ordinal);
Status create_block_matcher(const BlockMatchConfig& config,
                            const DeviceOptions& devices,
                            std::unique_ptr<BlockMatcher>* out);
/* The CUDA POC matcher (cuda/poc_cuda.cu); kUnavailable without a device
 * or without cuFFT (loaded at run time). */
Status create_poc_matcher(const PocConfig& config, const DeviceOptions& devices,
                          std::unique_ptr<PocMatcher>* out);
/* The CUDA SAD stereo matcher (cuda/stereo_cuda.cu); kUnavailable without a
 * device or for a nonexistent ordinal (one GPU: the first listed). */
Status create_stereo_matcher(const StereoConfig& config,
                             const DeviceOptions& devices,
                             std::unique_ptr<StereoMatcher>* out);
/* The CUDA stereo kernels' code run on the host, CTA by CTA (tests without
 * a GPU); band_rows > 0 forces the row bands of the cost kernel.
 * kUnavailable in builds without the CUDA backend. */
Status emulate_stereo_match(const ImageView& left, const ImageView& right,
                            const StereoConfig& config,
                            const StereoRuntime& rt, const DisparityView& out,
                            int band_rows = 0);
}  // namespace cuda

}  // namespace match
