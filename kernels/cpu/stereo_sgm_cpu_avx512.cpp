/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The SGM row kernels (stereo_sgm_cpu_impl.h) compiled for AVX-512BW with
 * VPOPCNTDQ: the census costs' popcounts vectorised, 8 per instruction
 * (they are about a third of the AVX2 build's time), and the paths at 32
 * uint16 lanes. Only called when cpuid reports both
 * (cpu::isa_has_avx512_vpopcntdq).
 */
#include "stereo_sgm_cpu_impl.h"

namespace match {
namespace cpu {

SgmKernels sgm_kernels_avx512() { return sgm_kernel_table(); }

}  // namespace cpu
}  // namespace match
