/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The decision's colour (gst/common/mvdecision.h, step 7): a still
 * camera's chroma background, and the boxes of moving objects grown over
 * the cells next to them whose colour differs from it. The pixel stage
 * (match/change.h) reads the luma alone; a body whose luma is close to
 * the scene behind it (a dark grey body on grass, a van on the road)
 * changes there only at its rim, and its box holds only that. Its colour
 * still differs from the scene's. Plain C++, host memory: the chroma is
 * read where the decision asks, on either backend, so that the CPU and
 * CUDA decisions stay the same.
 *
 * Definitions:
 *
 * - Cells: r x r chroma samples (r = change_scale_for (), the luma's
 *   working scale: 1 up to 480 x 320, 2 at 640 x 480, 4 at 1080p),
 *   clipped to the plane; a cell's U and V are the rounded means (ties
 *   up) of its m x m samples from (x r + o, y r + o), m = 2 where r = 2,
 *   else 1, o = (r - m) / 2 (its middle; clipped to the plane, from x r
 *   where x r + o is outside): chroma is smooth (subsampled, and blurred
 *   by the codec), and at large sizes the background's pass over the
 *   cells is most of the colour's time.
 * - Background (U_B, V_B): set to the cells of the first frame settled
 *   after restart (), then, on every kMvBackgroundEvery-th frame settled,
 *   moved one level towards the frame's cells (the luma background's
 *   running median, match/change.h), except in the cells under the
 *   foreground boxes given (the objects' own colour would be taken in
 *   behind them as they pass slowly, and then differ there when they have
 *   gone).
 * - Offsets b_U, b_V: the lower medians of U - U_B, V - V_B over the cells
 *   of even rows and columns (a white balance that drifts); difference
 *   d = max (|U - U_B - b_U|, |V - V_B - b_V|); threshold
 *   t = max (kColourFloor, 4 x the lower median of d over those cells + 2);
 *   all three measured on each frame that moves the background, before it
 *   moves, and used until the next one.
 * - A cell was SEEN on a moved frame where d <= t: its background is then
 *   the scene's. A cell DIFFERS where d > t and it was seen within the
 *   last kColourSeen frames settled: what the first frame held (a car
 *   parked there and gone since) was never seen, and is not taken for a
 *   body.
 * - A cell COUNTS where it and its four neighbours differ (the cells
 *   outside the window asked count as differing): chroma has half the
 *   luma's resolution and JPEG blurs it, which leaves a rim of a cell.
 * - grow (): for each box, the 8-connected components of counting cells
 *   within a quarter of the frame's larger side of it (kColourReachShare)
 *   that hold a cell of the box, of at
 *   least kColourMinCells cells filling at least kColourFill of their
 *   bounding boxes (a body, not a branch's thin edge); the box becomes the
 *   union of itself and those components' boxes (frame pixels, clipped).
 */
#ifndef __MV_COLOUR_H__
#define __MV_COLOUR_H__

#include <cstdint>
#include <vector>

#include "mvregions.h"

/* A frame's chroma: planes of width x height samples, sample (x, y) of U
 * at u[y * u_stride + x * pixel_stride] (2 for NV12's interleaved
 * planes), likewise V; a sample covers sub_x x sub_y pixels of a
 * frame_width x frame_height frame. */
struct MvChromaView
{
  const uint8_t *u = nullptr, *v = nullptr;
  int width = 0, height = 0;
  int u_stride = 0, v_stride = 0, pixel_stride = 1;
  int sub_x = 1, sub_y = 1;
  int frame_width = 0, frame_height = 0;
};

class MvColourBackground
{
public:
  /* The next frame settled sets the background anew. */
  void restart ()
  {
    fresh_ = true;
  }
  /* One frame of a still camera (every frame, in order): sets, or moves
   * outside `foreground` (frame pixels), the background. */
  void settle (const MvChromaView & c, const std::vector<MvRect> & foreground);
  /* Grows `boxes` (frame pixels) over the cells of frame `c` whose colour
   * differs from the background; false (boxes unchanged) when there is
   * none for these planes. */
  bool grow (const MvChromaView & c, std::vector<MvRect> & boxes);

private:
  bool layout (const MvChromaView & c);
  void cell_span (const MvRect & b, int margin, int * x0, int * y0, int * x1,
      int * y1) const;
  void reduce (const MvChromaView & c, int x0, int y0, int x1, int y1);
  void cell (const MvChromaView & c, int cx, int cy, uint8_t * u,
      uint8_t * v) const;
  void measure ();
  int difference (int i) const;
  bool differs (const MvChromaView & c, int x, int y);
  bool counts (const MvChromaView & c, int x, int y);

  bool fresh_ = true;
  int r_ = 0, cols_ = 0, rows_ = 0, cell_w_ = 0, cell_h_ = 0;
  int width_ = 0, height_ = 0, sub_x_ = 0, sub_y_ = 0;
  uint32_t settled_ = 0; /* frames settled since the background was set */
  int bu_ = 0, bv_ = 0, t_ = 0;
  std::vector<uint8_t> cu_, cv_; /* the frame's cells (reduce ()) */
  std::vector<uint8_t> bg_u_, bg_v_;
  /* settled_ when last seen (0: never; settled_ counts from 1 there) */
  std::vector<uint32_t> seen_;
  std::vector<uint8_t> keep_; /* foreground cells (settle ()) */
  std::vector<uint32_t> hist_u_, hist_v_, hist_d_;
  /* grow ()'s window (cells wx0_, wy0_ on, ww_ x wh_): each cell's state
   * (judged, counted, reached by the fill), the fill's stack. */
  int wx0_ = 0, wy0_ = 0, ww_ = 0, wh_ = 0;
  std::vector<uint8_t> state_;
  std::vector<int> stack_;
};

#endif /* __MV_COLOUR_H__ */
