/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * SGM's plan on the host (stereo_cost.cu, stereo_paths.cu, stereo_wta.cu):
 * the disparities per lane of a warp and the element size of the path
 * volumes for a pair, and the bytes of the volumes. Plain C++, no CUDA:
 * the tests check it in builds without the CUDA backend too.
 */
#pragma once

#include <cstddef>

#include "match/stereo.h"

namespace match {
namespace cuda {

struct SgmPlan {
  int per = 4;       /* disparities per lane: 2, 4 or 8 */
  int np = 128;      /* 32 per */
  bool wide = false; /* 16-bit L volumes */
};

/* cmax: the largest per-pixel cost c of the config's cost. */
inline int sgm_max_pixel_cost(const StereoConfig& c) {
  switch (c.cost) {
    case StereoCost::kCensus: return c.census_width * c.census_height - 1;
    case StereoCost::kCensusAd:
      return c.census_width * c.census_height - 1 + (kCensusAdCap >> 1);
    case StereoCost::kSobel: return 62;
    default: return 255;
  }
}

/* The plan of a pair: L_r <= cmax + max P2' (the largest jump penalty of
 * this runtime), so the volumes are 8-bit when that fits in a byte. */
inline SgmPlan plan_sgm(const StereoConfig& c, const StereoRuntime& rt) {
  SgmPlan p;
  p.per = c.num_disparities <= 64 ? 2 : (c.num_disparities <= 128 ? 4 : 8);
  p.np = 32 * p.per;
  const int p2max = rt.p2_edge > 0 ? (rt.p1 > rt.p2 ? rt.p1 : rt.p2) : rt.p2;
  p.wide = sgm_max_pixel_cost(c) + p2max > 255;
  return p;
}

/* Bytes of the volumes for this plan. */
inline size_t sgm_volume_bytes(const StereoConfig& c, const SgmPlan& p) {
  /* The paths' L_r, then the cost volume (bytes; with a cost window, the
   * per-pixel costs it averages are held in path 0's volume before the
   * paths run). */
  return static_cast<size_t>(c.paths * (p.wide ? 2 : 1) + 1) * c.width *
         c.height * p.np;
}

}  // namespace cuda
}  // namespace match
