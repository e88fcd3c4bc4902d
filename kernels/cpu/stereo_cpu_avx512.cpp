/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The hand-written stereo loop (stereo_cpu_simd.h) compiled with
 * -mavx512bw: 32 disparities per instruction for 16-bit costs (32-bit
 * costs keep the AVX2 build). Only called when cpuid reports AVX-512BW and
 * MATCH_CPU_ISA does not ask for a lower set (stereo_cpu.cpp).
 */
#include "stereo_cpu_simd.h"

namespace match {
namespace cpu {

StereoStripFn stereo_kernel_avx512_cost16() {
  return stereo_strip_simd_entry<StereoVecAvx512>;
}

}  // namespace cpu
}  // namespace match
