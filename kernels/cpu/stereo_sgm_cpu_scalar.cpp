/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The SGM row kernels (stereo_sgm_cpu_impl.h) with the vectoriser off: the
 * portable path MATCH_CPU_ISA=scalar selects, so the tests check the loop
 * logic apart from what the vectoriser makes of it.
 */
#include "stereo_sgm_cpu_impl.h"

namespace match {
namespace cpu {

SgmKernels sgm_kernels_scalar() { return sgm_kernel_table(); }

}  // namespace cpu
}  // namespace match
