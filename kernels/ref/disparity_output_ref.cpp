/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The plain reference of the disparity output conversions: every pixel
 * from the definitions in match/disparity_output.h, evaluated directly (no
 * table), scalar. The CPU table and the CUDA kernel are checked against it.
 */
#include <algorithm>
#include <cmath>
#include <cstdint>

#include "disparity_output_internal.h"
#include "match/disparity_output.h"

namespace match {
namespace ref {
namespace {

void put_le16(uint8_t* p, unsigned v) {
  p[0] = static_cast<uint8_t>(v & 0xFF);
  p[1] = static_cast<uint8_t>((v >> 8) & 0xFF);
}

/* round(x) clamped to [lo, hi], for x >= 0 or below lo; values above hi
 * are clamped before rounding (lround of a huge value is undefined). */
long clamp_round(double x, long lo, long hi) {
  if (!(x < static_cast<double>(hi))) return hi;
  return std::min(std::max(std::lround(x), lo), hi);
}

double clamp01(double x) { return std::min(std::max(x, 0.0), 1.0); }

void convert_pixel(uint16_t v, const DisparityOutputParams& p, uint8_t* o) {
  const bool invalid = v == kInvalidDisparity;
  const double d = v / static_cast<double>(kDisparityScale);
  switch (p.mode) {
    case DisparityOutputMode::kDisparity:
      put_le16(o, v);
      break;
    case DisparityOutputMode::kGray8:
      o[0] = invalid ? 0 : static_cast<uint8_t>(clamp_round(d * p.gray8_scale, 0, 255));
      break;
    case DisparityOutputMode::kColor: {
      if (invalid) {
        o[0] = o[1] = o[2] = 0;
        break;
      }
      const double t = clamp01((d - p.min_disparity) / p.num_disparities);
      const double r = clamp01(1.5 - std::fabs(4.0 * t - 3.0));
      const double g = clamp01(1.5 - std::fabs(4.0 * t - 2.0));
      const double b = clamp01(1.5 - std::fabs(4.0 * t - 1.0));
      o[0] = static_cast<uint8_t>(std::lround(r * 255.0));
      o[1] = static_cast<uint8_t>(std::lround(g * 255.0));
      o[2] = static_cast<uint8_t>(std::lround(b * 255.0));
      break;
    }
    case DisparityOutputMode::kDepth:
      if (invalid || v == 0) {
        put_le16(o, 0);
        break;
      }
      put_le16(o, static_cast<unsigned>(
                      clamp_round(p.focal_length * p.baseline / d, 1, 65535)));
      break;
  }
}

}  // namespace

Status convert_disparity_output(const ConstDisparityView& in,
                                const DisparityOutputParams& params,
                                const DisparityOutputView& out) {
  Status st = check_disparity_input(in);
  if (!st) return st;
  if (!(st = check_disparity_output(params, out, in.width, in.height))) return st;
  const int bpp = disparity_output_bytes_per_pixel(params.mode);
  for (int y = 0; y < in.height; ++y) {
    const uint16_t* src = in.row(y);
    uint8_t* dst = out.row(y);
    for (int x = 0; x < in.width; ++x) convert_pixel(src[x], params, dst + x * bpp);
  }
  return Status::ok();
}

}  // namespace ref
}  // namespace match
