/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * DisparityOutputParams validation and the default
 * StereoMatcher::collect(DisparityOutputView, DisparityOutputParams) of
 * backends without a conversion of their own (the CPU backend): collect
 * the 16-bit map, then the CPU conversion (host/disparity_output_lut.cpp).
 * Nothing thrown inside crosses into gst/.
 */
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "host/disparity_output_lut.h"
#include "disparity_output_internal.h"
#include "internal.h"
#include "match/disparity_output.h"
#include "match/stereo.h"

namespace match {

/* The default collect()'s scratch: the map of one pair (the matcher's
 * config is fixed, so it is sized once) and the table. */
struct DisparityOutputScratch {
  std::vector<uint16_t> map;
  host::DisparityOutputLut lut;
};

namespace {
std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

int disparity_output_bytes_per_pixel(DisparityOutputMode mode) {
  switch (mode) {
    case DisparityOutputMode::kDisparity:
    case DisparityOutputMode::kDepth:
      return 2;
    case DisparityOutputMode::kGray8:
      return 1;
    case DisparityOutputMode::kColor:
      return 3;
  }
  return 0;
}

Status DisparityOutputParams::validate() const {
  auto bad = [](const char* field, const std::string& what) {
    return Status(StatusCode::kInvalidArgument, what, field);
  };
  switch (mode) {
    case DisparityOutputMode::kDisparity:
      return Status::ok();
    case DisparityOutputMode::kGray8:
      if (!(gray8_scale >= 0.0 && gray8_scale <= kMaxGray8Scale))
        return bad("gray8_scale", "gray8 scale " + num(gray8_scale) +
                                      " out of range 0.." + num(kMaxGray8Scale));
      return Status::ok();
    case DisparityOutputMode::kColor:
      if (num_disparities < 1 || num_disparities > kMaxDisparities)
        return bad("num_disparities", "colour range: number of disparities " +
                                          std::to_string(num_disparities) +
                                          " out of range 1.." +
                                          std::to_string(kMaxDisparities));
      if (min_disparity < 0 || min_disparity > kMaxMinDisparity)
        return bad("min_disparity",
                   "colour range: minimum disparity " + std::to_string(min_disparity) +
                       " out of range 0.." + std::to_string(kMaxMinDisparity));
      return Status::ok();
    case DisparityOutputMode::kDepth: {
      const bool focal_ok = focal_length > 0.0 && std::isfinite(focal_length);
      if (!focal_ok || !(baseline > 0.0 && std::isfinite(baseline)))
        return bad(focal_ok ? "baseline" : "focal_length",
                   "depth output needs a focal length (pixels) and a "
                   "baseline > 0 (focal length " +
                       num(focal_length) + ", baseline " + num(baseline) + ")");
      return Status::ok();
    }
  }
  return bad("mode",
             "unknown disparity output mode " + std::to_string(static_cast<int>(mode)));
}

bool DisparityOutputParams::operator==(const DisparityOutputParams& o) const {
  if (mode != o.mode) return false;
  switch (mode) {
    case DisparityOutputMode::kGray8:
      return gray8_scale == o.gray8_scale;
    case DisparityOutputMode::kColor:
      return min_disparity == o.min_disparity && num_disparities == o.num_disparities;
    case DisparityOutputMode::kDepth:
      return focal_length == o.focal_length && baseline == o.baseline;
    case DisparityOutputMode::kDisparity:
      return true;
  }
  /* Unknown modes: every field. */
  return min_disparity == o.min_disparity && num_disparities == o.num_disparities &&
         gray8_scale == o.gray8_scale && focal_length == o.focal_length &&
         baseline == o.baseline;
}

Status check_disparity_output(const DisparityOutputParams& params,
                              const DisparityOutputView& out, int width, int height) {
  Status st = params.validate();
  if (!st) return st;
  if (!out.data || out.width != width || out.height != height)
    return Status(StatusCode::kInvalidArgument, "disparity output view is not " +
                                                    std::to_string(width) + "x" +
                                                    std::to_string(height));
  const std::ptrdiff_t row =
      static_cast<std::ptrdiff_t>(width) * disparity_output_bytes_per_pixel(params.mode);
  if (out.stride_bytes < row)
    return Status(StatusCode::kInvalidArgument,
                  "disparity output stride " + std::to_string(out.stride_bytes) +
                      " B is below a row (" + std::to_string(row) + " B)");
  return Status::ok();
}

Status check_disparity_input(const ConstDisparityView& in) {
  if (!in.data || in.width < 1 || in.height < 1)
    return Status(StatusCode::kInvalidArgument, "empty disparity map");
  const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(in.width) * sizeof(uint16_t);
  if (in.stride_bytes < row)
    return Status(StatusCode::kInvalidArgument,
                  "disparity map stride " + std::to_string(in.stride_bytes) +
                      " B is below a row (" + std::to_string(row) + " B)");
  return Status::ok();
}

Status StereoMatcher::collect(const DisparityOutputView& out,
                              const DisparityOutputParams& params) {
  if (in_flight() == 0)
    return Status(StatusCode::kInvalidArgument, "no stereo pair in flight");
  const int w = config_.width, h = config_.height;
  Status st = check_disparity_output(params, out, w, h);
  if (!st) return st;
  /* The 16-bit map on a little-endian host, aligned: straight into out. */
  if (params.mode == DisparityOutputMode::kDisparity &&
      __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
      reinterpret_cast<uintptr_t>(out.data) % alignof(uint16_t) == 0 &&
      out.stride_bytes % alignof(uint16_t) == 0) {
    DisparityView dv;
    dv.data = reinterpret_cast<uint16_t*>(out.data);
    dv.width = w;
    dv.height = h;
    dv.stride_bytes = out.stride_bytes;
    return collect(dv);
  }
  try {
    /* Everything that may fail before the pair is taken. */
    if (!output_scratch_) output_scratch_ = std::make_shared<DisparityOutputScratch>();
    DisparityOutputScratch& s = *output_scratch_;
    s.map.resize(static_cast<size_t>(w) * h);
    s.lut.update(params);
    DisparityView dv;
    dv.data = s.map.data();
    dv.width = w;
    dv.height = h;
    dv.stride_bytes = static_cast<std::ptrdiff_t>(w) * sizeof(uint16_t);
    if (!(st = collect(dv))) return st;
    s.lut.convert(dv, out, 0);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory converting a disparity map");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, e.what());
  }
  return Status::ok();
}

}  // namespace match
