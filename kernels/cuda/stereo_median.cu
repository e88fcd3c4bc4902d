/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The 3x3 median of the valid values (match/stereo.h): a valid pixel takes
 * the lower median of the valid values among its neighbours inside the
 * image, itself included; invalid pixels stay invalid. One thread per
 * pixel, an insertion sort of at most 9 values in registers; the reads of
 * neighbouring threads overlap, which L1 absorbs (the pass moves 4 bytes
 * per pixel: it is far from mattering next to the aggregation).
 */
#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace {

__global__ void stereo_median_kernel(const uint16_t* in, int in_pitch,
                                     uint16_t* out, int out_pitch, int w,
                                     int h) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  const uint16_t c = in[static_cast<size_t>(y) * in_pitch + x];
  uint16_t r = c;
  if (c != kInvalidDisparity) {
    uint16_t v[9];
    int cnt = 0;
    for (int yy = max(y - 1, 0); yy <= min(y + 1, h - 1); ++yy)
      for (int xx = max(x - 1, 0); xx <= min(x + 1, w - 1); ++xx) {
        const uint16_t d = in[static_cast<size_t>(yy) * in_pitch + xx];
        if (d == kInvalidDisparity) continue;
        int i = cnt++;
        for (; i > 0 && v[i - 1] > d; --i) v[i] = v[i - 1];
        v[i] = d;
      }
    r = v[(cnt - 1) / 2];
  }
  out[static_cast<size_t>(y) * out_pitch + x] = r;
}

}  // namespace

cudaError_t launch_stereo_median(const uint16_t* in, int in_pitch,
                                 uint16_t* out, int out_pitch, int width,
                                 int height, cudaStream_t stream) {
  const dim3 block(32, 8);
  const dim3 grid((width + 31) / 32, (height + 7) / 8);
  stereo_median_kernel<<<grid, block, 0, stream>>>(in, in_pitch, out,
                                                   out_pitch, width, height);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
