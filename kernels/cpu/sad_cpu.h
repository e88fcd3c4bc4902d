/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Full-search inner loop of the CPU backend, one implementation per
 * instruction set (sad_cpu.cpp). Internal to kernels/cpu.
 */
#pragma once

#include <cstddef>
#include <cstdint>

#include "match/blockmatch.h"

namespace match {
namespace cpu {

/* One block's search. The block's pixels are packed as `chunks` 16-byte
 * chunks per row (zero beyond its width `w`), rows back to back. Candidate
 * (dxq, dyq) in quarter pixels lies in plane phases[(fy/step)*subpel +
 * fx/step] at row y0 + floor(dyq/4), column x0 + floor(dxq/4). Every plane
 * has `stride` and is padded so that the whole search window (plus 16-byte
 * over-reads) is addressable. */
struct BlockSearch {
  const uint8_t* block;
  int w, h, chunks;
  const uint8_t* const* phases; /* pixel (0,0) of each phase plane */
  std::ptrdiff_t stride;
  int x0, y0;
  int range_xq, range_yq, step, subpel;
  double threshold_total; /* C * w * h; <= 0: off */
};

using SearchFn = BlockVector (*)(const BlockSearch& s);

SearchFn search_fn_scalar();
SearchFn search_fn_sse2();
SearchFn search_fn_avx2();

}  // namespace cpu
}  // namespace match
