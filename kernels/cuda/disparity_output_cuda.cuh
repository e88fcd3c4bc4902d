/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The disparity output conversion on the GPU (match/disparity_output.h):
 * host interface of disparity_output_cuda.cu, used by the CUDA stereo
 * matcher (stereo_cuda.cu).
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
cudaError_t disparity_output(const uint16_t* d_map, int map_pitch, int width,
                             int height, const uint8_t* d_table, int bpp,
                             uint8_t* d_out, size_t out_pitch,
                             cudaStream_t stream);

}  // namespace cuda
}  // namespace match
