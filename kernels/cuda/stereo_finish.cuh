/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-pixel code of the texture row sums (stereo_texture.cu) and of
 * the finish (stereo_finish.cu): __host__ __device__, so that the host
 * emulation (kernels/testing) runs the same code.
 */
#pragma once

#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace finish_detail {

/* tex[r][x] = sum over |i| <= hw of |Ref(cl(x+i+1), r) - Ref(cl(x+i-1), r)|
 * (<= 31 * 255: fits 16 bits). */
__host__ __device__ __forceinline__ void texture_row_sum(const StereoPlan& p,
                                                         const StereoFrameArgs& a, int x,
                                                         int r) {
  const uint8_t* row = a.ref + static_cast<size_t>(r) * a.img_pitch;
  const int w1 = a.width - 1;
  int s = 0;
  for (int i = -p.hw; i <= p.hw; ++i)
    s += stage_absi(row[stage_clampi(x + i + 1, 0, w1)] -
                    row[stage_clampi(x + i - 1, 0, w1)]);
  a.tex[static_cast<size_t>(r) * a.width + x] = static_cast<uint16_t>(s);
}

__host__ __device__ __forceinline__ void finish_pixel(const StereoPlan& p,
                                                      const StereoFrameArgs& a, int x,
                                                      int y) {
  const size_t i = static_cast<size_t>(y) * a.width + x;
  const uint32_t pre = a.pre[i];
  uint32_t v = pre & 0xFFFFu;
  if (a.texture_threshold > 0) {
    int s = 0;
    for (int j = -p.hh; j <= p.hh; ++j)
      s += a.tex[static_cast<size_t>(stage_clampi(y + j, 0, a.height - 1)) * a.width + x];
    if (s < a.texture_threshold) v = kInvalidDisparity;
  }
  if (v != kInvalidDisparity && a.lr_max_diff >= 0) {
    const int d = p.dmin + static_cast<int>((pre >> 16) & 0xFFu);
    const int pp = x + p.sign * d;
    if (pp < 0 || pp >= a.width) {
      v = kInvalidDisparity;
    } else {
      const uint32_t key = a.dkey[static_cast<size_t>(y) * a.width + pp];
      const int dp = p.dmin + static_cast<int>(key & 0xFFu);
      if (stage_absi(dp - d) > a.lr_max_diff) v = kInvalidDisparity;
    }
  }
  a.out[static_cast<size_t>(y) * a.out_pitch + x] = static_cast<uint16_t>(v);
}

}  // namespace finish_detail
}  // namespace cuda
}  // namespace match
