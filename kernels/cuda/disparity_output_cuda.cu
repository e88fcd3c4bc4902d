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
 * The per-pixel code is __host__ __device__: emulate_disparity_output()
 * runs it on the CPU over every pixel, for the tests without a GPU.
 */
#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include "host/disparity_output_lut.h"
#include "disparity_output_cuda.cuh"
#include "disparity_output_internal.h"

namespace match {
namespace cuda {
namespace {

constexpr int kThreads = 256;

__host__ __device__ __forceinline__ uint8_t load_table(const uint8_t* p) {
#if defined(__CUDA_ARCH__)
  return __ldg(p);
#else
  return *p;
#endif
}

template <int kBpp>
__host__ __device__ __forceinline__ void output_pixel(
    const uint16_t* __restrict__ map, int map_pitch,
    const uint8_t* __restrict__ table, uint8_t* __restrict__ out,
    size_t out_pitch, int x, int y) {
  const unsigned v = map[static_cast<size_t>(y) * map_pitch + x];
  const uint8_t* e = table + static_cast<size_t>(v) * kBpp;
  uint8_t* o =
      out + static_cast<size_t>(y) * out_pitch + static_cast<size_t>(x) * kBpp;
  for (int b = 0; b < kBpp; ++b) o[b] = load_table(e + b);
}

/* Block: kThreads columns of one row. */
template <int kBpp>
__global__ void __launch_bounds__(kThreads)
    disparity_output_kernel(const uint16_t* __restrict__ map, int map_pitch,
                            int width, const uint8_t* __restrict__ table,
                            uint8_t* __restrict__ out, size_t out_pitch) {
  const int x = blockIdx.x * kThreads + threadIdx.x;
  if (x < width)
    output_pixel<kBpp>(map, map_pitch, table, out, out_pitch, x, blockIdx.y);
}

template <int kBpp>
void emulate_rows(const uint16_t* map, int map_pitch, int width, int height,
                  const uint8_t* table, uint8_t* out, size_t out_pitch) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      output_pixel<kBpp>(map, map_pitch, table, out, out_pitch, x, y);
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

cudaError_t disparity_output(const uint16_t* d_map, int map_pitch, int width,
                             int height, const uint8_t* d_table, int bpp,
                             uint8_t* d_out, size_t out_pitch,
                             cudaStream_t stream) {
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

Status emulate_disparity_output(const ConstDisparityView& in,
                                const DisparityOutputParams& params,
                                const DisparityOutputView& out) {
  Status st = check_disparity_input(in);
  if (!st) return st;
  if (!(st = check_disparity_output(params, out, in.width, in.height)))
    return st;
  if (params.mode == DisparityOutputMode::kDisparity)
    return Status(StatusCode::kInvalidArgument,
                  "the disparity mode has no conversion kernel (the map is "
                  "downloaded as it is)");
  try {
    const int w = in.width, h = in.height;
    const int bpp = disparity_output_bytes_per_pixel(params.mode);
    /* The device's layouts: the map pitched as the matcher's, the output
     * packed (the download's source), the table as uploaded. */
    const int pitch = round_up(w, 128);
    std::vector<uint16_t> map(static_cast<size_t>(pitch) * h, 0x5A5A);
    for (int y = 0; y < h; ++y)
      std::memcpy(&map[static_cast<size_t>(y) * pitch], in.row(y),
                  static_cast<size_t>(w) * sizeof(uint16_t));
    std::vector<uint8_t> table(
        static_cast<size_t>(host::kDisparityOutputLutEntries) * bpp);
    host::build_disparity_output_lut(params, table.data());
    const size_t row = static_cast<size_t>(w) * bpp;
    std::vector<uint8_t> dst(row * h, 0xA5);
    switch (bpp) {
      case 1:
        emulate_rows<1>(map.data(), pitch, w, h, table.data(), dst.data(), row);
        break;
      case 2:
        emulate_rows<2>(map.data(), pitch, w, h, table.data(), dst.data(), row);
        break;
      default:
        emulate_rows<3>(map.data(), pitch, w, h, table.data(), dst.data(), row);
        break;
    }
    for (int y = 0; y < h; ++y) std::memcpy(out.row(y), &dst[y * row], row);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  "out of memory emulating the disparity output kernel");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, e.what());
  }
  return Status::ok();
}

}  // namespace cuda
}  // namespace match
