/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Plain strided 8-bit image views: the only image type the kernels see.
 */
#pragma once

#include <cstddef>
#include <cstdint>

namespace match {

/* A read-only view of an 8-bit single-channel image. stride_bytes may be
 * larger than width (padded rows); rows are never assumed contiguous. */
struct ImageView {
  const uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride_bytes = 0;

  const uint8_t* row(int y) const { return data + y * stride_bytes; }
  uint8_t at(int x, int y) const { return row(y)[x]; }
};

/* A writable view, same layout rules. */
struct MutableImageView {
  uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride_bytes = 0;

  uint8_t* row(int y) const { return data + y * stride_bytes; }
  operator ImageView() const { return ImageView{data, width, height, stride_bytes}; }
};

/* A read-only 8-bit single-channel image in CUDA device memory: `data` is a
 * device pointer allocated in the PRIMARY context of CUDA device `device`
 * (the context the CUDA runtime API uses on that device, see
 * match::cuda_primary_context()), rows `pitch_bytes` apart (pitch >= width).
 * The kernels never dereference it on the host. */
struct DeviceImageView {
  const uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t pitch_bytes = 0;
  int device = 0;
};

}  // namespace match
