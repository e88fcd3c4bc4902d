/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The candidate loop shared by every instruction set. Included by each
 * sad_cpu*.cpp; everything is in an anonymous namespace on purpose: the
 * AVX2 file is compiled with -mavx2, and an inline function with external
 * linkage could otherwise be merged by the linker into the SSE2/scalar
 * paths and run AVX2 code on CPUs without it.
 */
#pragma once

#include <cstdint>

#include "sad_cpu.h"

namespace match {
namespace cpu {
namespace {

inline int floor4(int v) { return v >> 2; } /* arithmetic shift = floor */

/* The search loop shared by all instruction sets. Sad gives the cost of the
 * candidate whose top-left pixel is at `cand` (used for the zero-motion
 * test); RowCosts(row, n, out) fills out[0..n) with the costs of the
 * candidates whose top-left pixels are row[0], row[1], ..., row[n-1], so
 * that SIMD paths can share loads between neighbouring candidates.
 * Selection is a raster-order scan with the tie rule of match/blockmatch.h. */
template <typename Sad, typename RowCosts>
inline BlockVector search_rows(const BlockSearch& s, const Sad& sad,
                               const RowCosts& row_costs) {
  const uint8_t* zero = s.phases[0] + s.y0 * s.stride + s.x0;
  const uint32_t zero_cost = sad(zero);
  if (s.threshold_total > 0.0 && static_cast<double>(zero_cost) <= s.threshold_total)
    return BlockVector{0, 0, zero_cost, kFlagSuppressed};

  const int rx = s.range_xq / 4, n = 2 * rx + 1;
  /* costs[phase][ix + rx]; +64 leaves room for whole groups of outputs */
  uint32_t costs[kSubpelScale][2 * kMaxSearchRange + 1 + 64];
  uint32_t best = UINT32_MAX;
  int best_norm = 0, bx = 0, by = 0;
  for (int dyq = -s.range_yq; dyq <= s.range_yq; dyq += s.step) {
    const int iy = floor4(dyq), fy = dyq - 4 * iy;
    const std::ptrdiff_t row = static_cast<std::ptrdiff_t>(s.y0 + iy) * s.stride;
    const uint8_t* const* ph = s.phases + (fy / s.step) * s.subpel;
    for (int i = 0; i < s.subpel; ++i) row_costs(ph[i] + row + s.x0 - rx, n, costs[i]);
    const int dyy = dyq * dyq;
    for (int dxq = -s.range_xq; dxq <= s.range_xq; dxq += s.step) {
      const int ix = floor4(dxq), fx = dxq - 4 * ix;
      const uint32_t cost = costs[fx / s.step][ix + rx];
      if (cost <= best) {
        const int norm = dxq * dxq + dyy;
        if (cost < best || norm < best_norm) {
          best = cost;
          best_norm = norm;
          bx = dxq;
          by = dyq;
        }
      }
    }
  }
  return BlockVector{bx, by, best, kFlagNone};
}

/* For paths that cost one candidate at a time. */
template <typename Sad>
inline BlockVector search(const BlockSearch& s, const Sad& sad) {
  auto row_costs = [&sad](const uint8_t* row, int n, uint32_t* out) {
    for (int i = 0; i < n; ++i) out[i] = sad(row + i);
  };
  return search_rows(s, sad, row_costs);
}

}  // namespace
}  // namespace cpu
}  // namespace match
