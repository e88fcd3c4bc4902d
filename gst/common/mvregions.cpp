/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Moving regions: see mvregions.h for the definitions.
 */
#include "mvregions.h"

#include <algorithm>
#include <cstdlib>

MvRect
mv_block_rect (const MvBlockGrid & g, int c, int r)
{
  MvRect b;
  b.x = c * g.block_width;
  b.y = r * g.block_height;
  b.w = std::min (g.block_width, g.frame_width - b.x);
  b.h = std::min (g.block_height, g.frame_height - b.y);
  return b;
}

/* Doubled coordinates keep the centre in integers. */
bool
mv_block_masked (const MvRect & b, const MvRect & m)
{
  const int64_t cx2 = 2 * (int64_t) b.x + b.w;
  const int64_t cy2 = 2 * (int64_t) b.y + b.h;
  return cx2 >= 2 * (int64_t) m.x && cx2 < 2 * ((int64_t) m.x + m.w)
      && cy2 >= 2 * (int64_t) m.y && cy2 < 2 * ((int64_t) m.y + m.h);
}

bool
mv_grid_ok (const MvBlockGrid & g)
{
  if (g.frame_width <= 0 || g.frame_height <= 0 || g.block_width <= 0
      || g.block_height <= 0)
    return false;
  const int64_t cols =
      ((int64_t) g.frame_width + g.block_width - 1) / g.block_width;
  const int64_t rows =
      ((int64_t) g.frame_height + g.block_height - 1) / g.block_height;
  return cols == g.columns && rows == g.rows;
}

/* One decimal integer in [lo, hi] from `item`, blanks around it allowed. */
static bool
parse_int (const std::string & item, int lo, int hi, int * out)
{
  const size_t a = item.find_first_not_of (" \t");
  const size_t b = item.find_last_not_of (" \t");
  if (a == std::string::npos)
    return false;
  const std::string num = item.substr (a, b - a + 1);
  if (num.size () > 9)
    return false;
  for (char ch : num)
    if (ch < '0' || ch > '9')
      return false;
  const long v = std::strtol (num.c_str (), nullptr, 10);
  if (v < lo || v > hi)
    return false;
  *out = (int) v;
  return true;
}

static std::vector<std::string>
split (const std::string & s, char sep)
{
  std::vector<std::string> parts;
  size_t start = 0;
  for (;;) {
    const size_t pos = s.find (sep, start);
    parts.push_back (s.substr (start,
        pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos)
      break;
    start = pos + 1;
  }
  return parts;
}

bool
MvRegionFinder::find (const MvBlockGrid & g, const MvBlock * blocks,
    const MvRegionParams & p, std::vector<MvRegion> * out)
{
  out->clear ();
  if (!mv_grid_ok (g) || !blocks)
    return false;

  const int n = g.columns * g.rows;
  const double t2 = p.threshold > 0.0 ? p.threshold * p.threshold : 0.0;
  moving_.assign ((size_t) n, 0);
  for (int r = 0, i = 0; r < g.rows; ++r) {
    for (int c = 0; c < g.columns; ++c, ++i) {
      const MvBlock & b = blocks[i];
      if (!b.valid)
        continue;
      const double m2 = (double) b.dx * b.dx + (double) b.dy * b.dy;
      if (!(m2 >= t2)) /* also drops NaN vectors */
        continue;
      if (p.n_mask > 0) {
        const MvRect rect = mv_block_rect (g, c, r);
        bool ignored = false;
        for (size_t k = 0; k < p.n_mask && !ignored; ++k)
          ignored = mv_block_masked (rect, p.mask[k]);
        if (ignored)
          continue;
      }
      moving_[i] = 1;
    }
  }

  /* Flood fill from each unvisited moving block in raster order, so the
   * regions come out sorted by their first block. */
  for (int start = 0; start < n; ++start) {
    if (moving_[start] != 1)
      continue;
    MvRegion reg;
    int c0 = g.columns, c1 = -1, r0 = g.rows, r1 = -1;
    double sx = 0.0, sy = 0.0;

    reg.first_block = start;
    stack_.clear ();
    stack_.push_back (start);
    moving_[start] = 2;
    while (!stack_.empty ()) {
      const int i = stack_.back ();
      stack_.pop_back ();
      const int c = i % g.columns, r = i / g.columns;
      const MvRect rect = mv_block_rect (g, c, r);

      c0 = std::min (c0, c);
      c1 = std::max (c1, c);
      r0 = std::min (r0, r);
      r1 = std::max (r1, r);
      sx += blocks[i].dx;
      sy += blocks[i].dy;
      reg.area++;
      reg.pixels += (int64_t) rect.w * rect.h;
      for (int nr = std::max (r - 1, 0); nr <= std::min (r + 1, g.rows - 1);
           ++nr)
        for (int nc = std::max (c - 1, 0);
             nc <= std::min (c + 1, g.columns - 1); ++nc) {
          const int j = nr * g.columns + nc;
          if (moving_[j] == 1) {
            moving_[j] = 2;
            stack_.push_back (j);
          }
        }
    }
    if (reg.area < p.min_area)
      continue;
    const MvRect tl = mv_block_rect (g, c0, r0);
    const MvRect br = mv_block_rect (g, c1, r1);
    reg.box.x = tl.x;
    reg.box.y = tl.y;
    reg.box.w = br.x + br.w - tl.x;
    reg.box.h = br.y + br.h - tl.y;
    reg.mean_dx = sx / reg.area;
    reg.mean_dy = sy / reg.area;
    out->push_back (reg);
  }
  return true;
}

bool
mv_regions_parse_mask (const char * str, std::vector<MvRect> * out,
    std::string * error)
{
  std::vector<MvRect> rects;

  if (str) {
    for (const std::string & item : split (str, ';')) {
      if (item.find_first_not_of (" \t") == std::string::npos)
        continue; /* empty item, e.g. a trailing ';' */
      const std::vector<std::string> f = split (item, ',');
      MvRect r;
      if (f.size () != 4 || !parse_int (f[0], 0, kMvMaskMax, &r.x)
          || !parse_int (f[1], 0, kMvMaskMax, &r.y)
          || !parse_int (f[2], 1, kMvMaskMax, &r.w)
          || !parse_int (f[3], 1, kMvMaskMax, &r.h)) {
        *error = "\"" + item
            + "\" is not a rectangle x,y,w,h (integers, "
              "x, y >= 0, w, h >= 1, each <= "
            + std::to_string (kMvMaskMax) + ")";
        return false;
      }
      rects.push_back (r);
    }
  }
  *out = std::move (rects);
  return true;
}
