/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * SGM's plan on the host (stereo_cost.cu, stereo_paths.cu, stereo_wta.cu):
 * the disparities per lane of a warp and the element size of the path
 * volumes for a pair, the bytes of the volumes and where they lie in the
 * matcher's allocation. Plain C++, no CUDA: the tests check it in builds
 * without the CUDA backend too.
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
    case StereoCost::kCensus:
      return c.census_width * c.census_height - 1;
    case StereoCost::kCensusAd:
      return c.census_width * c.census_height - 1 + (kCensusAdCap >> 1);
    case StereoCost::kSobel:
      return 62;
    default:
      return 255;
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
  return static_cast<size_t>(c.paths * (p.wide ? 2 : 1) + 1) * c.width * c.height * p.np;
}

/* Where the SGM volumes of each compute lane lie in the matcher's one
 * allocation, which is made with the matcher from the config alone, so
 * that no runtime setting (P1, P2 and p2_edge may change with every pair)
 * ever reallocates. Each of `lanes` lanes has lane_bytes: the volumes of
 * the config's default penalties (default_sgm_penalties: 8-bit for the
 * census and Sobel costs, 16-bit for kSad). A pair whose penalties need
 * more (16-bit volumes where the lanes hold 8-bit ones) takes the whole
 * allocation, total_bytes, and runs its SGM stages after the other lanes'
 * (stereo_cuda.cu): it loses the overlap with the other lane, but no
 * memory is set aside for it, as its paths' and cost volumes (2 paths + 1
 * of W H np bytes) fit in two lanes' 8-bit ones (paths + 1 each). */
struct SgmVolumeLayout {
  size_t lane_bytes = 0;  /* each lane's volumes, at lane * lane_bytes */
  size_t total_bytes = 0; /* the allocation */
};

inline SgmVolumeLayout sgm_volume_layout(const StereoConfig& c, int lanes) {
  StereoRuntime rt;
  const SgmPenalties d = default_sgm_penalties(c.cost);
  rt.p1 = d.p1;
  rt.p2 = d.p2;
  rt.p2_edge = 0;
  SgmPlan p = plan_sgm(c, rt);
  SgmVolumeLayout v;
  v.lane_bytes = sgm_volume_bytes(c, p);
  p.wide = true; /* any runtime's plan needs at most this */
  const size_t widest = sgm_volume_bytes(c, p);
  v.total_bytes = static_cast<size_t>(lanes) * v.lane_bytes;
  if (v.total_bytes < widest) v.total_bytes = widest;
  return v;
}

/* True when a pair of this plan takes the whole allocation. */
inline bool sgm_volumes_shared(const SgmVolumeLayout& v, const StereoConfig& c,
                               const SgmPlan& p) {
  return sgm_volume_bytes(c, p) > v.lane_bytes;
}

}  // namespace cuda
}  // namespace match
