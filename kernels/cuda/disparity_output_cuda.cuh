/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The disparity output conversion on the GPU (match/disparity_output.h):
 * host interface of disparity_output_cuda.cu, used by the CUDA stereo
 * matcher (stereo_cuda.cu), and the kernel's per-pixel code.
 */
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace match {
namespace cuda {

/* Launches disparity_output_kernel on `stream`: for every pixel,
 * out(x, y) = the `bpp` bytes of table entry map(x, y). d_map: width x
 * height 16-bit values, map_pitch elements per row; d_table: the 65536 x
 * bpp bytes of host::build_disparity_output_lut; d_out: rows out_pitch bytes
 * apart. bpp is 1, 2 or 3. Returns the launch's error (cudaGetLastError). */
cudaError_t disparity_output(const uint16_t* d_map, int map_pitch, int width, int height,
                             const uint8_t* d_table, int bpp, uint8_t* d_out,
                             size_t out_pitch, cudaStream_t stream);

/* The kernel's per-pixel code, shared with the host emulation. */
namespace disparity_output_detail {

__host__ __device__ __forceinline__ uint8_t load_table(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

template <int kBpp>
__host__ __device__ __forceinline__ void output_pixel(const uint16_t* __restrict__ map,
                                                      int map_pitch,
                                                      const uint8_t* __restrict__ table,
                                                      uint8_t* __restrict__ out,
                                                      size_t out_pitch, int x, int y) {
  const unsigned v = map[static_cast<size_t>(y) * map_pitch + x];
  const uint8_t* e = table + static_cast<size_t>(v) * kBpp;
  uint8_t* o = out + static_cast<size_t>(y) * out_pitch + static_cast<size_t>(x) * kBpp;
  for (int b = 0; b < kBpp; ++b) o[b] = load_table(e + b);
}

}  // namespace disparity_output_detail

}  // namespace cuda
}  // namespace match
