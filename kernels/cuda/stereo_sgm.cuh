/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Device code that the three SGM stages share (stereo_cost.cu,
 * stereo_paths.cu, stereo_wta.cu; the volumes' layout is in
 * stereo_stages.cuh): the launch shape, the warp minimum and the vector
 * packing of PER values.
 *
 * Work split, for all three: one warp per scan line (paths) or per segment
 * of kSeg pixels of a row (cost, WTA); lane l owns the PER consecutive
 * disparities k = l PER + j (PER = 2, 4 or 8: n <= 32 PER, padded ones
 * held at a large value that never wins a minimum).
 *
 * Bounds: L_r <= cmax + max(P2, P1) <= 255 + 4095 and S <= 8 of those <
 * 2^16, so keys (S << 8) | k fit 32 bits and int arithmetic never wraps.
 */
#pragma once

#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace sgm_detail {

constexpr int kWarps = 4; /* warps (lines, segments) per CTA */
constexpr int kSeg = 64;  /* pixels per warp (cost and WTA kernels) */
constexpr unsigned kFull = 0xFFFFFFFFu;

/* A __launch_bounds__ minimum of CTAs that the target can hold: sm_75
 * runs at most 1,024 threads per SM (the others 1,536 or 2,048), and
 * ptxas ignores a minimum beyond that with a warning. */
constexpr int fit_ctas(int ctas, int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return ctas * threads > 1024 ? 1024 / threads : ctas;
#else
  return (void)threads, ctas;
#endif
}

__device__ __forceinline__ unsigned warp_min(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(kFull, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFull, v, o));
  return v;
#endif
}

/* PER values of type St as one vector access. */
template <int B>
struct Raw;
template <>
struct Raw<2> {
  using T = uint16_t;
};
template <>
struct Raw<4> {
  using T = uint32_t;
};
template <>
struct Raw<8> {
  using T = uint2;
};
template <>
struct Raw<16> {
  using T = uint4;
};
template <typename St, int PER>
union Pack {
  typename Raw<sizeof(St) * PER>::T v;
  St s[PER];
};

/* Elements of one path's volume (and of the cost volume) for PER. */
template <int PER>
size_t dir_elems(const SgmArgs& a) {
  return static_cast<size_t>(a.width) * a.height * 32 * PER;
}

}  // namespace sgm_detail
}  // namespace cuda
}  // namespace match
