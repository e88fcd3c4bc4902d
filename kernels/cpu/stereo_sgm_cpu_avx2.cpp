/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The SGM row kernels (stereo_sgm_cpu_impl.h) compiled with -mavx2
 * -mpopcnt: 16 disparities per instruction, POPCNT for the census costs.
 * Only called when cpuid reports AVX2 (cpu::detect_isa), which implies
 * POPCNT.
 */
#include "stereo_sgm_cpu_impl.h"

namespace match {
namespace cpu {

SgmKernels sgm_kernels_avx2() { return sgm_kernel_table(); }

}  // namespace cpu
}  // namespace match
