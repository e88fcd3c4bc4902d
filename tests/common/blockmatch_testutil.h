/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * What the block-matching kernel tests share (test_blockmatch*.cpp).
 */
#pragma once

#include "match/blockmatch.h"

namespace bmtest {

/* A configuration in one call; levels and predictors matter to
 * SearchMethod::kHierarchical only. */
inline match::BlockMatchConfig config(
    int w, int h, int bw, int bh, int rx, int ry, int subpel,
    match::Direction dir,
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

}  // namespace bmtest
