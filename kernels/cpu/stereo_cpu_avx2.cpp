/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The stereo loops compiled with -mavx2: the hand-written loop of
 * stereo_cpu_simd.h for 16-bit costs (16 disparities per instruction), and
 * the rolling-sum loop of stereo_cpu_impl.h, vectorised by the compiler,
 * for 32-bit costs (windows whose area x 255 does not fit 16 bits). Only
 * called when cpuid reports AVX2 (cpu::detect_isa).
 */
#include "stereo_cpu_simd.h"

namespace match {
namespace cpu {

StereoKernels stereo_kernels_avx2() {
  return StereoKernels{stereo_strip_simd_entry<StereoVecAvx2>, stereo_strip<uint32_t>,
                       stereo_strip<uint16_t, uint32_t>,
                       stereo_strip<uint16_t, uint64_t>};
}

}  // namespace cpu
}  // namespace match
