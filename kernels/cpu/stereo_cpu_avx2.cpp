/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The stereo rolling-sum loops (stereo_cpu_impl.h) compiled with -mavx2:
 * the compiler vectorises them over 16 (uint16) or 8 (uint32) disparities
 * per instruction. Only called when cpuid reports AVX2 (cpu::detect_isa).
 */
#include "stereo_cpu_impl.h"

namespace match {
namespace cpu {

StereoKernels stereo_kernels_avx2() {
  return StereoKernels{stereo_strip<uint16_t>, stereo_strip<uint32_t>};
}

}  // namespace cpu
}  // namespace match
