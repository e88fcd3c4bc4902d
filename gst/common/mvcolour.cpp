/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * A still camera's chroma background and the boxes grown over the colour
 * that differs from it (mvcolour.h has the definitions).
 */
#include "mvcolour.h"

#include <algorithm>
#include <climits>
#include <cstdlib>

#include "match/change.h"
#include "mvdecision.h"

/* The floor: the luma's (ChangeRequest::min_threshold); a reach of 16 px
 * (a block: a body boxed on its leading edge is boxed whole); seen within
 * 64 frames (a body passing at a pixel a frame covers a cell for its
 * length); components of 4 cells filling 0.4 of their box; the foreground
 * kept out of the background's updates with a margin of 8 px. Measured
 * (box F, bench/surveillance.py, the 76 clips of bench/README.md "Colour
 * that the luma does not see"): floors of 6, 8, 10, 14 and 20 gave means
 * 0.8384, 0.8397, 0.8401, 0.8400, 0.8391 on 57 of them (0.8343 without
 * the colour); at 6 the highway's cars grew over their shadows' tint (box
 * precision 0.792 -> 0.783), at 10 none lost more than 0.0011; a reach of
 * 8 or 24 px, 0.8376 and 0.8387. */
constexpr int kColourFloor = 10;
constexpr uint32_t kColourSeen = 64;
constexpr int kColourReach = 16;
constexpr int kColourMinCells = 4;
constexpr double kColourFill = 0.4;
constexpr int kColourKeep = 8;

/* The lower median of a histogram of n values, bins from `lo`. */
static int
lower_median (const std::vector<uint32_t> & hist, uint32_t n, int lo)
{
  if (n == 0)
    return 0;
  const uint32_t k = (n - 1) / 2;
  uint32_t seen = 0;
  for (size_t b = 0; b < hist.size (); ++b) {
    seen += hist[b];
    if (seen > k)
      return (int) b + lo;
  }
  return lo + (int) hist.size () - 1;
}

bool
MvColourBackground::layout (const MvChromaView & c)
{
  if (!c.u || !c.v || c.width <= 0 || c.height <= 0 || c.sub_x <= 0
      || c.sub_y <= 0 || c.frame_width <= 0 || c.frame_height <= 0)
    return false;
  if (c.frame_width == width_ && c.frame_height == height_
      && c.sub_x == sub_x_ && c.sub_y == sub_y_)
    return true;
  width_ = c.frame_width;
  height_ = c.frame_height;
  sub_x_ = c.sub_x;
  sub_y_ = c.sub_y;
  r_ = match::change_scale_for (width_, height_);
  cols_ = (c.width + r_ - 1) / r_;
  rows_ = (c.height + r_ - 1) / r_;
  cell_w_ = r_ * sub_x_;
  cell_h_ = r_ * sub_y_;
  const size_t n = (size_t) cols_ * rows_;
  bg_u_.assign (n, 0);
  bg_v_.assign (n, 0);
  seen_.assign (n, 0u);
  cu_.assign (n, 0);

  cv_.assign (n, 0);
  keep_.assign (n, 0);
  hist_u_.assign (511, 0);
  hist_v_.assign (511, 0);
  hist_d_.assign (256, 0);
  fresh_ = true;
  return true;
}

/* The cells of columns x0 .. x1 - 1 and rows y0 .. y1 - 1 into cu_, cv_. */
void
MvColourBackground::reduce (const MvChromaView & c, int x0, int y0, int x1,
    int y1)
{
  const int ps = c.pixel_stride, m = std::min (r_, 2), off = (r_ - m) / 2;
  for (int cy = y0; cy < y1; ++cy) {
    uint8_t *ou = cu_.data () + (size_t) cy * cols_;
    uint8_t *ov = cv_.data () + (size_t) cy * cols_;
    int sy0 = cy * r_ + off;
    if (sy0 >= c.height)
      sy0 = cy * r_;
    const int sy1 = std::min (sy0 + m, c.height);
    int cx = x0;
    if (m == 2 && sy1 - sy0 == 2) {
      /* Whole 2 x 2 samples, the common case. */
      const int full = std::min (x1, (c.width - off - 2) / r_ + 1);
      const uint8_t *u0 = c.u + (size_t) sy0 * c.u_stride, *u1 = u0 + c.u_stride;
      const uint8_t *v0 = c.v + (size_t) sy0 * c.v_stride, *v1 = v0 + c.v_stride;
      for (; cx < full; ++cx) {
        const size_t a = (size_t) (cx * r_ + off) * ps, b = a + ps;
        ou[cx] = (uint8_t) ((u0[a] + u0[b] + u1[a] + u1[b] + 2) >> 2);
        ov[cx] = (uint8_t) ((v0[a] + v0[b] + v1[a] + v1[b] + 2) >> 2);
      }
    }
    for (; cx < x1; ++cx) {
      int sx0 = cx * r_ + off;
      if (sx0 >= c.width)
        sx0 = cx * r_;
      const int sx1 = std::min (sx0 + m, c.width);
      int su = 0, sv = 0;
      for (int y = sy0; y < sy1; ++y) {
        const uint8_t *pu = c.u + (size_t) y * c.u_stride;
        const uint8_t *pv = c.v + (size_t) y * c.v_stride;
        for (int x = sx0; x < sx1; ++x) {
          su += pu[(size_t) x * ps];
          sv += pv[(size_t) x * ps];
        }
      }
      const int n = (sx1 - sx0) * (sy1 - sy0);
      ou[cx] = (uint8_t) ((su + n / 2) / n);
      ov[cx] = (uint8_t) ((sv + n / 2) / n);
    }
  }
}

/* d of cell i (the cells reduced, b_U and b_V measured). */
inline int
MvColourBackground::difference (int i) const
{
  return std::max (std::abs (cu_[i] - bg_u_[i] - bu_),
      std::abs (cv_[i] - bg_v_[i] - bv_));
}

/* b_U, b_V and t of the frame reduced (the cells of even rows and
 * columns). */
void
MvColourBackground::measure ()
{
  std::fill (hist_u_.begin (), hist_u_.end (), 0u);
  std::fill (hist_v_.begin (), hist_v_.end (), 0u);
  uint32_t n = 0;
  for (int cy = 0; cy < rows_; cy += 2)
    for (int i = cy * cols_, end = i + cols_; i < end; i += 2, ++n) {
      hist_u_[cu_[i] - bg_u_[i] + 255]++;
      hist_v_[cv_[i] - bg_v_[i] + 255]++;
    }
  bu_ = lower_median (hist_u_, n, -255);
  bv_ = lower_median (hist_v_, n, -255);
  std::fill (hist_d_.begin (), hist_d_.end (), 0u);
  for (int cy = 0; cy < rows_; cy += 2)
    for (int i = cy * cols_, end = i + cols_; i < end; i += 2)
      hist_d_[std::min (255, difference (i))]++;
  t_ = std::max (kColourFloor, 4 * lower_median (hist_d_, n, 0) + 2);
}

void
MvColourBackground::settle (const MvChromaView & c,
    const std::vector<MvRect> & foreground)
{
  if (!layout (c))
    return;
  const int n = cols_ * rows_;
  if (fresh_) {
    reduce (c, 0, 0, cols_, rows_);
    bg_u_ = cu_;
    bg_v_ = cv_;
    std::fill (seen_.begin (), seen_.end (), 0u);
    settled_ = 0;
    fresh_ = false;
    return;
  }
  if (++settled_ % kMvBackgroundEvery != 0)
    return;
  std::fill (keep_.begin (), keep_.end (), 0);
  for (const MvRect & b : foreground) {
    const int x0 = std::max (0, b.x - kColourKeep) / cell_w_;
    const int y0 = std::max (0, b.y - kColourKeep) / cell_h_;
    const int x1 = std::min (cols_ - 1, (b.x + b.w - 1 + kColourKeep) / cell_w_);
    const int y1 = std::min (rows_ - 1, (b.y + b.h - 1 + kColourKeep) / cell_h_);
    for (int y = y0; y <= y1; ++y)
      std::fill (keep_.begin () + y * cols_ + x0,
          keep_.begin () + y * cols_ + x1 + 1, (uint8_t) 1);
  }
  reduce (c, 0, 0, cols_, rows_);
  measure ();
  /* Branch-free, so that the compiler vectorises it. */
  const uint8_t *cu = cu_.data (), *cv = cv_.data (), *keep = keep_.data ();
  uint8_t *bgu = bg_u_.data (), *bgv = bg_v_.data ();
  uint32_t *seen = seen_.data ();
  const int ou = bu_, ov = bv_, t = t_;
  const uint32_t now = settled_;
  for (int i = 0; i < n; ++i) {
    const int u = cu[i], v = cv[i], bu = bgu[i], bv = bgv[i];
    const int d = std::max (std::abs (u - bu - ou), std::abs (v - bv - ov));
    seen[i] = d <= t ? now : seen[i];
    const int move = keep[i] ^ 1;
    bgu[i] = (uint8_t) (bu + move * ((u > bu) - (u < bu)));
    bgv[i] = (uint8_t) (bv + move * ((v > bv) - (v < bv)));
  }
}

bool
MvColourBackground::grow (const MvChromaView & c, std::vector<MvRect> & boxes)
{
  /* b_U, b_V and t as the last settle () measured them (a white balance
   * and the noise drift slowly; a pass over the frame a quarter as often). */
  if (!layout (c) || fresh_ || settled_ < (uint32_t) kMvBackgroundEvery)
    return false;
  for (MvRect & b : boxes) {
    if (b.w <= 0 || b.h <= 0)
      continue;
    /* The window: the box's cells and kColourReach pixels around. */
    const int wx0 = std::max (0, b.x - kColourReach) / cell_w_;
    const int wy0 = std::max (0, b.y - kColourReach) / cell_h_;
    const int wx1 =
        std::min (cols_, (std::min (width_, b.x + b.w + kColourReach) + cell_w_ - 1) / cell_w_);
    const int wy1 =
        std::min (rows_, (std::min (height_, b.y + b.h + kColourReach) + cell_h_ - 1) / cell_h_);
    const int ww = wx1 - wx0, wh = wy1 - wy0;
    if (ww <= 0 || wh <= 0)
      continue;
    const size_t wn = (size_t) ww * wh;
    reduce (c, wx0, wy0, wx1, wy1);
    /* differs_ has a border of a cell that differs (outside the window). */
    const int pw = ww + 2;
    differs_.assign ((size_t) pw * (wh + 2), 1);
    counts_.assign (wn, 0);
    label_.assign (wn, -1);
    for (int y = 0; y < wh; ++y) {
      const int i0 = (wy0 + y) * cols_ + wx0;
      uint8_t *row = differs_.data () + (size_t) (y + 1) * pw + 1;
      for (int x = 0; x < ww; ++x) {
        const int i = i0 + x;
        row[x] = (seen_[i] != 0) & (settled_ - seen_[i] <= kColourSeen)
            & (difference (i) > t_);
      }
    }
    for (int y = 0; y < wh; ++y) {
      const uint8_t *up = differs_.data () + (size_t) y * pw + 1;
      const uint8_t *mid = up + pw, *down = mid + pw;
      uint8_t *out = counts_.data () + (size_t) y * ww;
      for (int x = 0; x < ww; ++x)
        out[x] = mid[x] & mid[x - 1] & mid[x + 1] & up[x] & down[x];
    }
    /* The box's own cells. */
    const int bx0 = b.x / cell_w_ - wx0, by0 = b.y / cell_h_ - wy0;
    const int bx1 = (b.x + b.w - 1) / cell_w_ - wx0;
    const int by1 = (b.y + b.h - 1) / cell_h_ - wy0;
    int gx0 = b.x, gy0 = b.y, gx1 = b.x + b.w, gy1 = b.y + b.h;
    int n_labels = 0;
    for (int y = by0; y <= by1; ++y)
      for (int x = bx0; x <= bx1; ++x) {
        const size_t s = (size_t) y * ww + x;
        if (!counts_[s] || label_[s] >= 0)
          continue;
        /* A component with a cell in the box. */
        const int id = n_labels++;
        int cx0 = x, cy0 = y, cx1 = x, cy1 = y, area = 0;
        stack_.clear ();
        stack_.push_back ((int) s);
        label_[s] = id;
        while (!stack_.empty ()) {
          const int k = stack_.back ();
          stack_.pop_back ();
          const int kx = k % ww, ky = k / ww;
          area++;
          cx0 = std::min (cx0, kx);
          cx1 = std::max (cx1, kx);
          cy0 = std::min (cy0, ky);
          cy1 = std::max (cy1, ky);
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int nx = kx + dx, ny = ky + dy;
              if (nx < 0 || ny < 0 || nx >= ww || ny >= wh)
                continue;
              const size_t m = (size_t) ny * ww + nx;
              if (counts_[m] && label_[m] < 0) {
                label_[m] = id;
                stack_.push_back ((int) m);
              }
            }
        }
        const int box_cells = (cx1 - cx0 + 1) * (cy1 - cy0 + 1);
        if (area < kColourMinCells || area < kColourFill * box_cells)
          continue;
        gx0 = std::min (gx0, (wx0 + cx0) * cell_w_);
        gy0 = std::min (gy0, (wy0 + cy0) * cell_h_);
        gx1 = std::max (gx1, std::min (width_, (wx0 + cx1 + 1) * cell_w_));
        gy1 = std::max (gy1, std::min (height_, (wy0 + cy1 + 1) * cell_h_));
      }
    b.x = gx0;
    b.y = gy0;
    b.w = gx1 - gx0;
    b.h = gy1 - gy0;
  }
  return true;
}
