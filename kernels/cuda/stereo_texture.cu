/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The texture test's row sums (match/stereo.h), from the reference luma:
 *   tex[r][x] = sum_i |Ref(x+i+1, r) - Ref(x+i-1, r)|,
 * summed over the window rows in the finish kernel (stereo_finish.cu).
 * One thread per pixel. Launched before the matching, which may point the
 * frame's ref at the per-pixel images.
 */
#include "stereo_finish.cuh"

namespace match {
namespace cuda {
namespace {

using namespace finish_detail;

__global__ void stereo_texture_kernel(const StereoPlan p, const StereoFrameArgs a) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < a.width) texture_row_sum(p, a, x, blockIdx.y);
}

}  // namespace

cudaError_t launch_stereo_texture(const StereoPlan& p, const StereoFrameArgs& a,
                                  cudaStream_t stream) {
  const dim3 grid((a.width + 127) / 128, a.height);
  stereo_texture_kernel<<<grid, 128, 0, stream>>>(p, a);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
