/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Plain scalar reference for full-search block matching. It follows the
 * definitions in match/blockmatch.h literally (clamped sampling computed on
 * the fly, every candidate visited in raster order) and shares no code with
 * the optimised backends, so that tests comparing them mean something.
 */
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "match/blockmatch.h"

namespace match {
namespace ref {
namespace {

int floor_div4(int v) { return v >= 0 ? v / 4 : -((-v + 3) / 4); }

/* The frame at (xq/4, yq/4) with clamp-to-edge and the bilinear rule. */
int sample_q(const ImageView& img, int xq, int yq) {
  const int ix = floor_div4(xq), iy = floor_div4(yq);
  const int fx = xq - 4 * ix, fy = yq - 4 * iy;
  auto px = [&img](int x, int y) {
    x = std::clamp(x, 0, img.width - 1);
    y = std::clamp(y, 0, img.height - 1);
    return static_cast<int>(img.at(x, y));
  };
  const int a = px(ix, iy), b = px(ix + 1, iy);
  const int c = px(ix, iy + 1), d = px(ix + 1, iy + 1);
  return ((4 - fx) * (4 - fy) * a + fx * (4 - fy) * b + (4 - fx) * fy * c +
          fx * fy * d + 8) >> 4;
}

uint32_t block_cost(const ImageView& tiled, const ImageView& searched, int x0,
                    int y0, int w, int h, int dxq, int dyq) {
  uint32_t sum = 0;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x)
      sum += std::abs(static_cast<int>(tiled.at(x, y)) -
                      sample_q(searched, 4 * x + dxq, 4 * y + dyq));
  return sum;
}

}  // namespace

Status block_match(const ImageView& earlier, const ImageView& later,
                   const BlockMatchConfig& cfg, const BlockMatchRuntime& rt,
                   BlockVector* out) {
  Status st = cfg.validate();
  if (!st) return st;
  if (earlier.width != cfg.width || earlier.height != cfg.height ||
      later.width != cfg.width || later.height != cfg.height || !earlier.data ||
      !later.data || !out)
    return Status(StatusCode::kInvalidArgument,
                  "frames do not match the configured size");

  const bool fwd = cfg.direction == Direction::kForward;
  const ImageView& tiled = fwd ? earlier : later;
  const ImageView& searched = fwd ? later : earlier;
  const int step = kSubpelScale / cfg.subpel;
  const int rxq = cfg.range_x * kSubpelScale, ryq = cfg.range_y * kSubpelScale;

  for (int r = 0; r < cfg.rows(); ++r) {
    for (int c = 0; c < cfg.columns(); ++c) {
      const int x0 = c * cfg.block_width, y0 = r * cfg.block_height;
      const int w = std::min(cfg.block_width, cfg.width - x0);
      const int h = std::min(cfg.block_height, cfg.height - y0);
      BlockVector& v = out[r * cfg.columns() + c];

      const uint32_t zero_cost = block_cost(tiled, searched, x0, y0, w, h, 0, 0);
      if (rt.threshold > 0.0 &&
          static_cast<double>(zero_cost) <= rt.threshold * w * h) {
        v = BlockVector{0, 0, zero_cost, kFlagSuppressed};
        continue;
      }

      uint32_t best = UINT32_MAX;
      long best_norm = 0;
      int bx = 0, by = 0;
      for (int dyq = -ryq; dyq <= ryq; dyq += step) {
        for (int dxq = -rxq; dxq <= rxq; dxq += step) {
          const uint32_t cost =
              block_cost(tiled, searched, x0, y0, w, h, dxq, dyq);
          const long norm = static_cast<long>(dxq) * dxq +
                            static_cast<long>(dyq) * dyq;
          if (cost < best || (cost == best && norm < best_norm)) {
            best = cost;
            best_norm = norm;
            bx = dxq;
            by = dyq;
          }
        }
      }
      v = BlockVector{bx, by, best, kFlagNone};
    }
  }
  return Status::ok();
}

}  // namespace ref
}  // namespace match
