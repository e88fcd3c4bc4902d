/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Device helpers shared by the block-matching kernels (blockmatch_kernels.cu: full
 * search; blockmatch_fast.cu: the fast searches).
 */
#pragma once

#include <cstdint>

namespace match {
namespace cuda {

/* acc + sum over the 4 bytes of |a - b| (one VABSDIFF4). */
__device__ __forceinline__ uint32_t sad4(uint32_t a, uint32_t b, uint32_t acc) {
  uint32_t r;
  asm("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(acc));
  return r;
}

/* The candidate order of match/blockmatch.h as one 64-bit key, whose
 * minimum is the lowest cost, then the smallest |v|^2, then the smallest
 * v_y, then the smallest v_x:
 *   cost (24 bits) | |v|^2 (22) | v_y + ry_s (12) | v_x > 0 (1)
 * (v = (vxs, vys) in any fixed unit, |v| <= ry_s <= 2047 along y; for equal
 * |v|^2 and v_y the two possible v_x are +-|v_x|, the negative first). Keys
 * of distinct vectors differ. */
__device__ __forceinline__ unsigned long long make_key(uint32_t cost, int vxs, int vys,
                                                       int ry_s) {
  const unsigned long long norm = static_cast<unsigned long long>(vxs * vxs) +
                                  static_cast<unsigned long long>(vys * vys);
  return (static_cast<unsigned long long>(cost) << 35) | (norm << 13) |
         (static_cast<unsigned long long>(vys + ry_s) << 1) |
         static_cast<unsigned long long>(vxs > 0);
}

}  // namespace cuda
}  // namespace match
