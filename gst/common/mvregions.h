/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Moving regions of a block motion field: moving blocks grouped into
 * 8-connected components. Plain C++ (no GLib or GStreamer), so that it can
 * be reused and tested on its own; gst/common/mvevents.* turns the regions
 * into GstVideoRegionOfInterestMeta and bus messages.
 *
 * Definitions (docs/motion-events.md):
 *
 * - A block is MOVING when it has an estimate that is not suppressed
 *   (MvBlock::valid: neither NO_ESTIMATE nor SUPPRESSED), its vector length
 *   sqrt (dx^2 + dy^2) is >= threshold (pixels), and it is not ignored.
 * - A block is IGNORED when the centre of its pixel rectangle (clipped to
 *   the frame), (x + w/2, y + h/2) in continuous pixel coordinates, lies in
 *   one of the mask rectangles [mx, mx + mw) x [my, my + mh). For blocks
 *   that fall on a block-aligned mask this is "the block is inside"; for
 *   others it means "more than half of the block, in each axis, is inside".
 * - Two moving blocks are CONNECTED when they touch by a side or a corner
 *   (8-connectivity: block (c, r) and (c', r') with |c - c'| <= 1 and
 *   |r - r'| <= 1). 8-connectivity, rather than 4, keeps a diagonally moving
 *   or thin diagonal object in one region: block matching often leaves a
 *   block of such an object at zero motion, and the remaining blocks touch
 *   only by their corners.
 * - A REGION is a connected component with at least min_area blocks.
 *   Its box is the union of its blocks' pixel rectangles (each clipped to
 *   the frame, so partial edge blocks give partial boxes); area = its number
 *   of blocks; pixels = the sum of its blocks' clipped pixel counts; the
 *   mean vector is the unweighted mean of its blocks' (dx, dy).
 * - Order: regions are sorted by their first block in raster order (row by
 *   row, left to right), which is the order a raster scan meets them.
 */
#ifndef __MV_REGIONS_H__
#define __MV_REGIONS_H__

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

/* A rectangle in pixels: x, y >= 0 and w, h > 0 when valid. */
struct MvRect
{
  int x = 0;
  int y = 0;
  int w = 0;
  int h = 0;
};

/* The block grid: columns x rows blocks of block_width x block_height
 * tiling a frame_width x frame_height frame from (0, 0); the last
 * column/row may be partial. columns and rows must be the ceilings of
 * frame size / block size. */
struct MvBlockGrid
{
  int frame_width = 0;
  int frame_height = 0;
  int block_width = 0;
  int block_height = 0;
  int columns = 0;
  int rows = 0;
};

/* One block of the field (row-major, columns x rows of them). */
struct MvBlock
{
  float dx = 0.0f;
  float dy = 0.0f;
  bool valid = false; /* an estimate, not suppressed */
};

struct MvRegionParams
{
  double threshold = 1.0;        /* pixels; 0 = every valid block moves */
  int min_area = 1;              /* blocks */
  const MvRect * mask = nullptr; /* ignored areas, n_mask of them */
  size_t n_mask = 0;
};

struct MvRegion
{
  MvRect box;           /* pixels, clipped to the frame */
  double mean_dx = 0.0; /* pixels */
  double mean_dy = 0.0;
  int area = 0;        /* blocks */
  int64_t pixels = 0;  /* pixels covered by its blocks */
  int first_block = 0; /* raster index of its first block */
};

/* Finds the regions of one field; keeps its scratch buffers between calls so
 * that nothing is allocated per frame once sizes are stable. Not thread
 * safe: one finder per streaming thread. */
class MvRegionFinder
{
public:
  /* Fills *out (cleared first) with the regions of `blocks`
   * (grid.columns * grid.rows of them). Returns false, with *out empty, when
   * the grid is inconsistent (non-positive sizes, or columns/rows not the
   * ceilings of frame size / block size). */
  bool find (const MvBlockGrid & grid, const MvBlock * blocks,
      const MvRegionParams & params, std::vector<MvRegion> * out);

private:
  std::vector<uint8_t> moving_; /* 1 = moving, 2 = visited */
  std::vector<int> stack_;
};

/* The grid is consistent: positive sizes, columns and rows the ceilings
 * of frame size / block size. */
bool mv_grid_ok (const MvBlockGrid & grid);

/* Pixel rectangle of block (c, r), clipped to the frame. */
MvRect mv_block_rect (const MvBlockGrid & grid, int c, int r);

/* The centre of block rectangle `b`, (x + w/2, y + h/2), lies in
 * [mx, mx + mw) x [my, my + mh) of mask rectangle `m`. */
bool mv_block_masked (const MvRect & b, const MvRect & m);

/* Parses a mask string "x,y,w,h;x,y,w,h;..." (decimal integers, pixels,
 * x, y >= 0, w, h >= 1, each at most kMvMaskMax; blanks around numbers
 * allowed; empty items, such as a trailing ';', are skipped). NULL or an
 * all-blank string gives an empty mask. On error returns false, leaves
 * *out unchanged and describes the problem in *error. */
constexpr int kMvMaskMax = 1 << 20;
bool mv_regions_parse_mask (const char * str, std::vector<MvRect> * out,
    std::string * error);

#endif /* __MV_REGIONS_H__ */
