/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The finish stage of both methods: the texture and left-right tests per
 * pixel from the matching's pre and dkey (block: stereo_block.cu; SGM:
 * stereo_wta.cu) and the texture row sums (stereo_texture.cu), into the
 * 16-bit map. The tests only ever turn a value into kInvalidDisparity, so
 * their order cannot change the output. One thread per pixel.
 */
#include "stereo_finish.cuh"

namespace match {
namespace cuda {
namespace {

using namespace finish_detail;

__global__ void stereo_finish_kernel(const StereoPlan p, const StereoFrameArgs a) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < a.width) finish_pixel(p, a, x, blockIdx.y);
}

}  // namespace

cudaError_t launch_stereo_finish(const StereoPlan& p, const StereoFrameArgs& a,
                                 cudaStream_t stream) {
  const dim3 grid((a.width + 127) / 128, a.height);
  stereo_finish_kernel<<<grid, 128, 0, stream>>>(p, a);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
