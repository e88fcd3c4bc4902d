/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The prediction rule of shared coarse layers (ref/poc_ref.cpp, "Coarse
 * layers"), written once for the CPU backend and the CUDA kernels
 * (__host__ __device__; the reference keeps its own plain version, which
 * both are tested against): the search centre of a point p of the layer
 * below a coarse grid is p + 2 m, m the integer motion of p's parent (the
 * grid block holding floor(p / 2), column and row clamped) or, with
 * `median`, the per-component median of the 3 x 3 blocks around it
 * (clamped, so always 9 values).
 */
#pragma once

#include "poc_fit.h" /* MATCH_HD */

namespace match {
namespace poc_detail {

/* The median of 9 integers (an insertion sort: once per block). */
MATCH_HD inline int median_of_9(int* v) {
  for (int i = 1; i < 9; ++i)
    for (int j = i; j > 0 && v[j - 1] > v[j]; --j) {
      const int t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  return v[4];
}

/* motion(c, r, &mx, &my): the integer motion of grid block (c, r). */
template <typename Motion>
MATCH_HD inline void predict_centre(int cols, int rows, int spacing, bool median, int px,
                                    int py, Motion motion, int* cx, int* cy) {
  auto clamp = [](int v, int hi) { return v < 0 ? 0 : v > hi ? hi : v; };
  const int C = clamp(px / 2 / spacing, cols - 1);
  const int R = clamp(py / 2 / spacing, rows - 1);
  int mx, my;
  if (!median) {
    motion(C, R, &mx, &my);
  } else {
    int vx[9], vy[9];
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i)
        motion(clamp(C + i - 1, cols - 1), clamp(R + j - 1, rows - 1), &vx[3 * j + i],
               &vy[3 * j + i]);
    mx = median_of_9(vx);
    my = median_of_9(vy);
  }
  *cx = px + 2 * mx;
  *cy = py + 2 * my;
}

}  // namespace poc_detail
}  // namespace match
