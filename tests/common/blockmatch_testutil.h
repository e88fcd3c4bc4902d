/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * What the block-matching kernel tests share (test_blockmatch*.cpp).
 */
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "frame.h"
#include "match/blockmatch.h"

namespace bmtest {

/* A configuration in one call; levels and predictors matter to
 * SearchMethod::kHierarchical only. */
inline match::BlockMatchConfig config(
    int w, int h, int bw, int bh, int rx, int ry, int subpel, match::Direction dir,
    match::SearchMethod method = match::SearchMethod::kFull, int levels = 3,
    int predictors = 4) {
  match::BlockMatchConfig c;
  c.width = w;
  c.height = h;
  c.block_width = bw;
  c.block_height = bh;
  c.range_x = rx;
  c.range_y = ry;
  c.subpel = subpel;
  c.direction = dir;
  c.method = method;
  c.levels = levels;
  c.predictors = predictors;
  return c;
}

/* A frame sequence with structure: a smooth texture (or plain noise), a
 * static left third, a background moving by (2, -1) per frame and a
 * rectangle moving by (-3, +2) (times `speed`), plus +-1 noise, so that vectors vary over
 * the field and from frame to frame, and some blocks fall under a noise
 * threshold. Every frame has the given stride (padding bytes random). */
inline std::vector<Frame> make_sequence(int w, int h, int stride, int n, bool texture,
                                        unsigned seed, int speed = 1) {
  const int m = 40; /* margin of the source texture */
  const Frame noise = make_noise_frame(w + 2 * m + 2, h + 2 * m + 2, w + 2 * m + 2, seed);
  std::vector<Frame> seq;
  std::mt19937 rng(seed + 100);
  for (int t = 0; t < n; ++t) {
    Frame f = make_noise_frame(w, h, stride, seed + 1 + t);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        int sx = x, sy = y;
        if (x >= w / 3) {
          const bool object = x >= w / 2 && x < w / 2 + std::max(8, w / 4) &&
                              y >= h / 4 && y < h / 4 + std::max(8, h / 3);
          if (object) {
            sx -= -3 * speed * t;
            sy -= 2 * speed * t;
          } else {
            sx -= 2 * speed * t;
            sy -= -1 * speed * t;
          }
        }
        sx = std::clamp(sx + m, 0, w + 2 * m - 1);
        sy = std::clamp(sy + m, 0, h + 2 * m - 1);
        const int v = texture ? box3_mean(noise, sx, sy) : noise.at(sx, sy);
        f.at(x, y) =
            static_cast<uint8_t>(std::clamp<int>(v + int(rng() % 3) - 1, 0, 255));
      }
    seq.push_back(std::move(f));
  }
  return seq;
}

/* The reference over the sequence: out[i] = pair (i, i + 1); kPredictive
 * gets the previous pair's output (none for the first). */
inline std::vector<std::vector<match::BlockVector>> run_ref(
    const std::vector<Frame>& seq, const match::BlockMatchConfig& cfg,
    const match::BlockMatchRuntime& rt) {
  std::vector<std::vector<match::BlockVector>> out;
  for (size_t i = 1; i < seq.size(); ++i) {
    std::vector<match::BlockVector> v(cfg.num_blocks());
    const match::BlockVector* prev = out.empty() ? nullptr : out.back().data();
    const match::Status st = match::ref::block_match(seq[i - 1].view(), seq[i].view(),
                                                     cfg, rt, v.data(), prev);
    EXPECT_TRUE(st.is_ok()) << st.message();
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace bmtest
