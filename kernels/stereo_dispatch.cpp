/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * StereoConfig validation and StereoMatcher backend selection, with the same
 * exception barrier as BlockMatcher::create (backend.h): nothing thrown
 * inside the kernels crosses into gst/. Also the default submit()/collect()
 * of backends that compute inside submit() (the CPU backend), through the
 * ring of match/in_flight.h.
 */
#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

#include "backend.h"
#include "internal.h"
#include "match/log.h"
#include "match/stereo.h"

namespace match {

Status StereoConfig::validate() const {
  auto bad = [](const char* field, const std::string& what) {
    return Status(StatusCode::kInvalidArgument, what, field);
  };
  if (Status st = check_frame_size(width, height); !st) return st;
  auto bad_side = [](int side) {
    return side < 1 || side > kMaxStereoWindow || side % 2 == 0;
  };
  if (bad_side(window_width) || bad_side(window_height))
    return bad(bad_side(window_width) ? "window_width" : "window_height",
               "stereo window " + std::to_string(window_width) + "x" +
                   std::to_string(window_height) + ": each side must be odd and in 1.." +
                   std::to_string(kMaxStereoWindow));
  if (num_disparities < 1 || num_disparities > kMaxDisparities)
    return bad("num_disparities",
               "number of disparities " + std::to_string(num_disparities) +
                   " out of range 1.." + std::to_string(kMaxDisparities));
  if (min_disparity < 0 || min_disparity > kMaxMinDisparity)
    return bad("min_disparity", "minimum disparity " + std::to_string(min_disparity) +
                                    " out of range 0.." +
                                    std::to_string(kMaxMinDisparity));
  if (reference != StereoReference::kLeft && reference != StereoReference::kRight)
    return bad("reference", "unknown stereo reference view");
  if (cost != StereoCost::kSad && cost != StereoCost::kSobel &&
      cost != StereoCost::kCensus && cost != StereoCost::kCensusAd)
    return bad("cost", "unknown stereo cost");
  if (method != StereoMethod::kBlock && method != StereoMethod::kSgm)
    return bad("method", "unknown stereo method");
  if (cost == StereoCost::kCensusAd && method != StereoMethod::kSgm)
    return bad("cost",
               "the census + AD cost is semi-global matching's only; the "
               "block method takes sad, sobel or census");
  auto bad_census_side = [](int side) { return side < 1 || side % 2 == 0; };
  if (stereo_cost_uses_census(cost) &&
      (bad_census_side(census_width) || bad_census_side(census_height) ||
       census_width * census_height - 1 > kMaxCensusBits))
    return bad(
        bad_census_side(census_height) && !bad_census_side(census_width) ? "census_height"
                                                                         : "census_width",
        "census window " + std::to_string(census_width) + "x" +
            std::to_string(census_height) + ": each side must be odd, with at most " +
            std::to_string(kMaxCensusBits) + " pixels besides the centre");
  if (method == StereoMethod::kSgm && paths != 4 && paths != 8)
    return bad("paths",
               "semi-global matching takes 4 or 8 paths, not " + std::to_string(paths));
  if (method == StereoMethod::kSgm &&
      (cost_window < 1 || cost_window > kMaxCostWindow || cost_window % 2 == 0))
    return bad("cost_window", "cost window " + std::to_string(cost_window) +
                                  ": odd, 1.." + std::to_string(kMaxCostWindow));
  return Status::ok();
}

bool StereoConfig::operator==(const StereoConfig& o) const {
  return width == o.width && height == o.height && window_width == o.window_width &&
         window_height == o.window_height && min_disparity == o.min_disparity &&
         num_disparities == o.num_disparities && reference == o.reference &&
         cost == o.cost && method == o.method &&
         (!stereo_cost_uses_census(cost) ||
          (census_width == o.census_width && census_height == o.census_height)) &&
         (method != StereoMethod::kSgm ||
          (paths == o.paths && cost_window == o.cost_window));
}

Status check_stereo_frame(const StereoConfig& c, const ImageView& left,
                          const ImageView& right, const StereoRuntime& rt,
                          const DisparityView& out) {
  for (const ImageView* v : {&left, &right})
    if (!v->data || v->width != c.width || v->height != c.height)
      return Status(StatusCode::kInvalidArgument, "stereo input view is not " +
                                                      std::to_string(c.width) + "x" +
                                                      std::to_string(c.height));
  if (!out.data || out.width != c.width || out.height != c.height)
    return Status(StatusCode::kInvalidArgument, "disparity output view is not " +
                                                    std::to_string(c.width) + "x" +
                                                    std::to_string(c.height));
  if (rt.lr_max_diff < -1 || rt.uniqueness_ratio < 0 || rt.texture_threshold < 0 ||
      rt.p2_edge < 0 || rt.speckle_size < 0)
    return Status(StatusCode::kInvalidArgument, "negative stereo runtime threshold");
  if (rt.p1 < 0 || rt.p1 > kMaxSgmPenalty || rt.p2 < 0 || rt.p2 > kMaxSgmPenalty)
    return Status(StatusCode::kInvalidArgument,
                  "SGM penalties p1=" + std::to_string(rt.p1) +
                      " p2=" + std::to_string(rt.p2) + " out of range 0.." +
                      std::to_string(kMaxSgmPenalty));
  if (rt.p2_edge > kMaxP2Edge)
    return Status(StatusCode::kInvalidArgument, "p2 edge " + std::to_string(rt.p2_edge) +
                                                    " out of range 0.." +
                                                    std::to_string(kMaxP2Edge));
  if (rt.speckle_range < 0 || rt.speckle_range > kMaxSpeckleRange)
    return Status(StatusCode::kInvalidArgument,
                  "speckle range " + std::to_string(rt.speckle_range) +
                      " out of range 0.." + std::to_string(kMaxSpeckleRange));
  if (rt.joint_median_radius < 0 || rt.joint_median_radius > kMaxJointMedianRadius ||
      rt.joint_median_range < 0 || rt.joint_median_range > 255)
    return Status(StatusCode::kInvalidArgument,
                  "joint median radius " + std::to_string(rt.joint_median_radius) +
                      " (0.." + std::to_string(kMaxJointMedianRadius) + ") or range " +
                      std::to_string(rt.joint_median_range) + " (0..255) out of range");
  return Status::ok();
}

/* Default pipelining: submit() runs process() at once and keeps the map in
 * the ring (in_flight.h), each slot allocated the first time it is used
 * (depth + 1 slots for a pipeline depth), never again per pair. */
Status StereoMatcher::submit(const ImageView& left, const ImageView& right,
                             const StereoRuntime& rt) {
  return pending_.submit(max_in_flight(), "stereo pair", [&](std::vector<uint16_t>& map) {
    map.resize(static_cast<size_t>(config_.width) * config_.height);
    DisparityView dv;
    dv.data = map.data();
    dv.width = config_.width;
    dv.height = config_.height;
    dv.stride_bytes = static_cast<std::ptrdiff_t>(config_.width) * sizeof(uint16_t);
    return process(left, right, rt, dv);
  });
}

Status StereoMatcher::collect(const DisparityView& out) {
  return pending_.collect("stereo pair", [&](const std::vector<uint16_t>& map) {
    if (!out.data || out.width != config_.width || out.height != config_.height)
      return Status(StatusCode::kInvalidArgument,
                    "disparity output view is not " + std::to_string(config_.width) +
                        "x" + std::to_string(config_.height));
    const size_t row = static_cast<size_t>(config_.width);
    for (int y = 0; y < config_.height; ++y)
      std::memcpy(out.row(y), map.data() + y * row, row * sizeof(uint16_t));
    return Status::ok();
  });
}

Status StereoMatcher::create(Backend backend, const StereoConfig& config,
                             std::unique_ptr<StereoMatcher>* out,
                             const DeviceOptions& devices) {
  return create_preferring_cuda("stereo", backend, config, out, devices,
                                cuda::create_stereo_matcher, cpu::create_stereo_matcher);
}

}  // namespace match
