/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The disparity output conversion on the GPU: one thread per pixel gathers
 * its output bytes from the table that the CPU conversion uses
 * (host::build_disparity_output_lut, built on the host and uploaded by the
 * matcher when the params change), so the bytes are the CPU's by
 * construction: no floating point runs on the device. The table (64 to 192
 * KB) stays in L2; its reads go through the read-only cache (__ldg).
 *
 * The per-pixel code is __host__ __device__ (disparity_output_cuda.cuh):
 * the test-only host emulation (kernels/testing) runs it on the CPU over
 * every pixel, for the tests without a GPU.
 */
#include "disparity_output_cuda.cuh"

namespace match {
namespace cuda {
namespace {

constexpr int kThreads = 256;

using disparity_output_detail::output_pixel;

/* Block: kThreads columns of one row. */
template <int kBpp>
__global__ void __launch_bounds__(kThreads)
    disparity_output_kernel(const uint16_t* __restrict__ map, int map_pitch, int width,
                            const uint8_t* __restrict__ table, uint8_t* __restrict__ out,
                            size_t out_pitch) {
  const int x = blockIdx.x * kThreads + threadIdx.x;
  if (x < width) output_pixel<kBpp>(map, map_pitch, table, out, out_pitch, x, blockIdx.y);
}

}  // namespace

cudaError_t disparity_output(const uint16_t* d_map, int map_pitch, int width, int height,
                             const uint8_t* d_table, int bpp, uint8_t* d_out,
                             size_t out_pitch, cudaStream_t stream) {
  const dim3 grid((width + kThreads - 1) / kThreads, height);
  switch (bpp) {
    case 1:
      disparity_output_kernel<1><<<grid, kThreads, 0, stream>>>(
          d_map, map_pitch, width, d_table, d_out, out_pitch);
      break;
    case 2:
      disparity_output_kernel<2><<<grid, kThreads, 0, stream>>>(
          d_map, map_pitch, width, d_table, d_out, out_pitch);
      break;
    case 3:
      disparity_output_kernel<3><<<grid, kThreads, 0, stream>>>(
          d_map, map_pitch, width, d_table, d_out, out_pitch);
      break;
    default:
      return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
