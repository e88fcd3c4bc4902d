/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only (linked by tests/kernels, never by the plugin): the CUDA
 * disparity output kernel's per-pixel code run on the host, on the
 * device's layouts (the map pitched as the matcher's, the output packed,
 * the table as uploaded). Compiled by nvcc for the kernel's header.
 */
#include "testing/disparity_output_emulation.h"

#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include "cuda/disparity_output_cuda.cuh"
#include "disparity_output_internal.h"
#include "host/disparity_output_lut.h"

namespace match {
namespace cuda {
namespace {

template <int kBpp>
void emulate_rows(const uint16_t* map, int map_pitch, int width, int height,
                  const uint8_t* table, uint8_t* out, size_t out_pitch) {
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      disparity_output_detail::output_pixel<kBpp>(map, map_pitch, table, out, out_pitch,
                                                  x, y);
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

Status emulate_disparity_output(const ConstDisparityView& in,
                                const DisparityOutputParams& params,
                                const DisparityOutputView& out) {
  Status st = check_disparity_input(in);
  if (!st) return st;
  if (!(st = check_disparity_output(params, out, in.width, in.height))) return st;
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
    std::vector<uint8_t> table(static_cast<size_t>(host::kDisparityOutputLutEntries) *
                               bpp);
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
