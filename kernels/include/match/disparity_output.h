/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The disparity map's output conversions, a post-stage of the stereo
 * matcher (match/stereo.h): the 16-bit map (disparity x 16, invalid =
 * kInvalidDisparity) as it is, as fixed-scale grey, as false colour, or as
 * depth. Each output value depends on the map value alone, through a fixed
 * formula; nothing is normalised per frame, so a grey level, colour or
 * depth means the same disparity in every frame.
 *
 * Definitions (d = value / 16.0, the disparity in pixels, for a valid
 * value; every backend gives exactly these bytes):
 *
 * - kDisparity: 2 bytes per pixel, the value as it is, little-endian
 *   (GRAY16_LE); invalid stays kInvalidDisparity (65535).
 * - kGray8: 1 byte, round(d x gray8_scale) clamped to 255; invalid = 0.
 * - kColor: 3 bytes R, G, B, a fixed "jet" map of
 *   t = (d - min_disparity) / num_disparities clamped to [0, 1]:
 *   R = clamp(1.5 - |4t - 3|), G = clamp(1.5 - |4t - 2|),
 *   B = clamp(1.5 - |4t - 1|) (each clamped to [0, 1], x 255, rounded);
 *   invalid = (0, 0, 0).
 * - kDepth: 2 bytes, little-endian, round(focal_length x baseline / d)
 *   clamped to [1, 65535] (millimetres when baseline is in millimetres);
 *   invalid and d = 0 (infinitely far) give 0.
 *
 * "round" is round half away from zero (std::lround), computed in double
 * precision as written.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "match/status.h"
#include "match/stereo.h"

namespace match {

enum class DisparityOutputMode {
  kDisparity = 0, /* GRAY16_LE: the map itself */
  kGray8 = 1,     /* GRAY8 */
  kColor = 2,     /* RGB, 3 bytes per pixel */
  kDepth = 3,     /* GRAY16_LE millimetres */
};

/* Bytes per output pixel of a mode: 2, 1, 3, 2; 0 for a value outside the
 * enum. */
int disparity_output_bytes_per_pixel(DisparityOutputMode mode);

/* The largest gray8_scale (one pixel of disparity = 255 grey levels). */
constexpr double kMaxGray8Scale = 255.0;

/* What the conversion is; only the fields its mode uses matter. */
struct DisparityOutputParams {
  DisparityOutputMode mode = DisparityOutputMode::kDisparity;
  /* kColor: the disparity range the colours span, in pixels (the
   * matcher's StereoConfig range, as a rule); min_disparity in
   * 0..kMaxMinDisparity, num_disparities in 1..kMaxDisparities. */
  int min_disparity = 0;
  int num_disparities = 64;
  /* kGray8: grey levels per pixel of disparity, 0..kMaxGray8Scale. */
  double gray8_scale = 1.0;
  /* kDepth: focal length of the rectified views in pixels and baseline
   * (its unit is the output's), both finite and > 0. */
  double focal_length = 0.0;
  double baseline = 0.0;

  /* kInvalidArgument (with the reason) for an unknown mode or a field of
   * the mode out of range. */
  Status validate() const;
  /* Equal when both give the same output: the same mode and equal values
   * in the fields that mode uses (e.g. focal_length is ignored for
   * kGray8). */
  bool operator==(const DisparityOutputParams& o) const;
  bool operator!=(const DisparityOutputParams& o) const { return !(*this == o); }
};

/* A writable view of the converted output: width x height pixels of
 * disparity_output_bytes_per_pixel(mode) bytes, rows stride_bytes apart
 * (stride_bytes >= width x bytes per pixel; rows may be padded, the
 * padding is never written). No alignment is required. */
struct DisparityOutputView {
  uint8_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride_bytes = 0;

  uint8_t* row(int y) const { return data + y * stride_bytes; }
};

/* A read-only view of a 16-bit disparity map (the input of a conversion);
 * stride in bytes, at least 2 x width. */
struct ConstDisparityView {
  const uint16_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride_bytes = 0;

  ConstDisparityView() = default;
  ConstDisparityView(const uint16_t* d, int w, int h, std::ptrdiff_t stride)
      : data(d), width(w), height(h), stride_bytes(stride) {}
  ConstDisparityView(const DisparityView& v)  // NOLINT: a view is a view
      : data(v.data), width(v.width), height(v.height), stride_bytes(v.stride_bytes) {}

  const uint16_t* row(int y) const {
    return reinterpret_cast<const uint16_t*>(reinterpret_cast<const uint8_t*>(data) +
                                             y * stride_bytes);
  }
};

/* The checks every conversion makes before writing anything: params valid,
 * out non-null, width x height, and a stride that holds a row of the
 * mode's pixels. */
Status check_disparity_output(const DisparityOutputParams& params,
                              const DisparityOutputView& out, int width, int height);

namespace ref {
/* The plain reference: each pixel from the definitions above, directly
 * (no table), scalar, no threads. `in` and `out` have the same size. */
Status convert_disparity_output(const ConstDisparityView& in,
                                const DisparityOutputParams& params,
                                const DisparityOutputView& out);
}  // namespace ref

}  // namespace match
