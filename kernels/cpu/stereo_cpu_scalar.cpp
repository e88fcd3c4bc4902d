/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The stereo rolling-sum loops (stereo_cpu_impl.h) built with the
 * vectoriser off (see kernels/meson.build): the portable one-disparity-at-
 * a-time path that MATCH_CPU_ISA=scalar selects, so the tests check the
 * loop logic apart from what the vectoriser makes of it.
 */
#include "stereo_cpu_impl.h"

namespace match {
namespace cpu {

StereoKernels stereo_kernels_scalar() {
  return StereoKernels{stereo_strip<uint16_t>, stereo_strip<uint32_t>,
                       stereo_strip<uint16_t, uint32_t>,
                       stereo_strip<uint16_t, uint64_t>};
}

}  // namespace cpu
}  // namespace match
