/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * A still camera's chroma background and the boxes grown over the colour
 * that differs from it (mvcolour.h has the definitions).
 */
#include "mvcolour.h"

#include <algorithm>
#include <cstdlib>

#include "match/change.h"
#include "mvdecision.h"

/* The floor: the luma's (ChangeRequest::min_threshold); a reach of a
 * quarter of the frame's larger side (a body of one colour boxed on its
 * leading edge, a van on its ends, is boxed whole: its length is a share
 * of the frame, not a number of pixels); seen within 64 frames (a body
 * passing at a pixel a frame covers a cell for its length); components of
 * 4 cells filling 0.4 of their box; the foreground kept out of the
 * background's updates with a margin of 8 px. Measured (box F,
 * bench/surveillance.py, the 57 + 19 clips of bench/README.md "Colour
 * that the luma does not see"; 0.8343 and 0.6696 without the colour):
 * floors of 6, 8, 10, 14 and 20 gave 0.8384, 0.8397, 0.8401, 0.8400,
 * 0.8391 on the 57 at a reach of 16 px (at 6 the highway's clips lost up
 * to 0.007, its box precision 0.792 -> 0.783; at 10 no clip lost more than
 * 0.0011); at 10, a reach of 16, 32, 48, 64 px 0.8401, 0.8406, 0.8407,
 * 0.8407 on the 57 and 0.6950, 0.7034, 0.7074, 0.7111 on the 19 (the
 * vans), no clip lower than at 16; 96 and 128 px (the vans' frames are
 * 384 px wide) van seed 3's 0.843 -> 0.884 and 0.884 (a van of 110 px
 * boxed on its leading 26 px), no clip lower; components kept only when
 * they end inside the reach lost the vans (0.7144 -> 0.5982 at 32 px). */
constexpr int kColourFloor = 10;
constexpr uint32_t kColourSeen = 64;
constexpr int kColourReachShare = 4;
constexpr int kColourMinCells = 4;
constexpr double kColourFill = 0.4;
constexpr int kColourKeep = 8;
/* grow ()'s state_ bits of a window cell. */
enum : uint8_t
{
  kJudged = 1,
  kDiffers = 2,
  kCounted = 4,
  kCounts = 8,
  kReached = 16
};

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
  if (c.frame_width == width_ && c.frame_height == height_ && c.sub_x == sub_x_
      && c.sub_y == sub_y_)
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

/* The cells [x0, x1) x [y0, y1) under box `b` grown by `margin` pixels on
 * every side, clipped to the planes. */
void
MvColourBackground::cell_span (const MvRect & b, int margin, int * x0, int * y0,
    int * x1, int * y1) const
{
  *x0 = std::max (0, b.x - margin) / cell_w_;
  *y0 = std::max (0, b.y - margin) / cell_h_;
  *x1 = std::min (cols_, (b.x + b.w + margin + cell_w_ - 1) / cell_w_);
  *y1 = std::min (rows_, (b.y + b.h + margin + cell_h_ - 1) / cell_h_);
}

/* The cells of columns x0 .. x1 - 1 and rows y0 .. y1 - 1 into cu_, cv_. */
void
MvColourBackground::reduce (const MvChromaView & c, int x0, int y0, int x1,
    int y1)
{
  const int ps = c.pixel_stride, m = r_ == 2 ? 2 : 1, off = (r_ - m) / 2;
  for (int cy = y0; cy < y1; ++cy) {
    uint8_t * ou = cu_.data () + (size_t) cy * cols_;
    uint8_t * ov = cv_.data () + (size_t) cy * cols_;
    int sy0 = cy * r_ + off;
    if (sy0 >= c.height)
      sy0 = cy * r_;
    const int sy1 = std::min (sy0 + m, c.height);
    int cx = x0;
    if (m == 1) {
      /* A sample a cell. */
      const uint8_t * pu = c.u + (size_t) sy0 * c.u_stride;
      const uint8_t * pv = c.v + (size_t) sy0 * c.v_stride;
      for (; cx < x1; ++cx) {
        int sx = cx * r_ + off;
        if (sx >= c.width)
          sx = cx * r_;
        ou[cx] = pu[(size_t) sx * ps];
        ov[cx] = pv[(size_t) sx * ps];
      }
      continue;
    }
    if (m == 2 && sy1 - sy0 == 2) {
      /* Whole 2 x 2 samples, the common case. */
      const int full = std::min (x1, (c.width - off - 2) / r_ + 1);
      const uint8_t *u0 = c.u + (size_t) sy0 * c.u_stride,
                    *u1 = u0 + c.u_stride;
      const uint8_t *v0 = c.v + (size_t) sy0 * c.v_stride,
                    *v1 = v0 + c.v_stride;
      for (; cx < full; ++cx) {
        const size_t a = (size_t) (cx * r_ + off) * ps, b = a + ps;
        ou[cx] = (uint8_t) ((u0[a] + u0[b] + u1[a] + u1[b] + 2) >> 2);
        ov[cx] = (uint8_t) ((v0[a] + v0[b] + v1[a] + v1[b] + 2) >> 2);
      }
    }
    for (; cx < x1; ++cx)
      cell (c, cx, cy, ou + cx, ov + cx);
  }
}

/* One cell's U and V (the definition). */
inline void
MvColourBackground::cell (const MvChromaView & c, int cx, int cy, uint8_t * u,
    uint8_t * v) const
{
  const int m = r_ == 2 ? 2 : 1, off = (r_ - m) / 2, ps = c.pixel_stride;
  int sx0 = cx * r_ + off, sy0 = cy * r_ + off;
  if (sx0 >= c.width)
    sx0 = cx * r_;
  if (sy0 >= c.height)
    sy0 = cy * r_;
  if (m == 1) {
    /* One sample (the division below is most of a cell's time). */
    *u = c.u[(size_t) sy0 * c.u_stride + (size_t) sx0 * ps];
    *v = c.v[(size_t) sy0 * c.v_stride + (size_t) sx0 * ps];
    return;
  }
  const int sx1 = std::min (sx0 + m, c.width),
            sy1 = std::min (sy0 + m, c.height);
  int su = 0, sv = 0;
  for (int y = sy0; y < sy1; ++y) {
    const uint8_t * pu = c.u + (size_t) y * c.u_stride;
    const uint8_t * pv = c.v + (size_t) y * c.v_stride;
    for (int x = sx0; x < sx1; ++x) {
      su += pu[(size_t) x * ps];
      sv += pv[(size_t) x * ps];
    }
  }
  const int n = (sx1 - sx0) * (sy1 - sy0);
  *u = (uint8_t) ((su + n / 2) / n);
  *v = (uint8_t) ((sv + n / 2) / n);
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

/* settle ()'s pass over the cells: the seen ones marked `now`, the
 * background moved outside `keep`. Branch-free on unaliased rows, so that
 * the compiler vectorises it. */
static void
settle_cells (int n, const uint8_t * __restrict__ cu,
    const uint8_t * __restrict__ cv, const uint8_t * __restrict__ keep,
    uint8_t * __restrict__ bgu, uint8_t * __restrict__ bgv,
    uint32_t * __restrict__ seen, int ou, int ov, int t, uint32_t now)
{
  for (int i = 0; i < n; ++i) {
    const int u = cu[i], v = cv[i], bu = bgu[i], bv = bgv[i];
    const int d = std::max (std::abs (u - bu - ou), std::abs (v - bv - ov));
    seen[i] = d <= t ? now : seen[i];
    const int move = keep[i] ^ 1;
    bgu[i] = (uint8_t) (bu + move * ((u > bu) - (u < bu)));
    bgv[i] = (uint8_t) (bv + move * ((v > bv) - (v < bv)));
  }
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
    int x0, y0, x1, y1;
    cell_span (b, kColourKeep, &x0, &y0, &x1, &y1);
    for (int y = y0; y < y1; ++y)
      std::fill (keep_.begin () + y * cols_ + x0,
          keep_.begin () + y * cols_ + x1, (uint8_t) 1);
  }
  reduce (c, 0, 0, cols_, rows_);
  measure ();
  settle_cells (n, cu_.data (), cv_.data (), keep_.data (), bg_u_.data (),
      bg_v_.data (), seen_.data (), bu_, bv_, t_, settled_);
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
    /* The window: the box's cells and the reach around. Its
     * cells are judged as the fill reaches them (state_'s bits, none
     * before), so that the work follows the body's size. */
    int wx1, wy1;
    cell_span (b, std::max (width_, height_) / kColourReachShare, &wx0_, &wy0_,
        &wx1, &wy1);
    ww_ = wx1 - wx0_;
    wh_ = wy1 - wy0_;
    if (ww_ <= 0 || wh_ <= 0)
      continue;
    const size_t wn = (size_t) ww_ * wh_;
    state_.assign (wn, 0);
    /* The box's own cells seed the components. */
    const int bx0 = b.x / cell_w_ - wx0_, by0 = b.y / cell_h_ - wy0_;
    const int bx1 = (b.x + b.w - 1) / cell_w_ - wx0_;
    const int by1 = (b.y + b.h - 1) / cell_h_ - wy0_;
    int gx0 = b.x, gy0 = b.y, gx1 = b.x + b.w, gy1 = b.y + b.h;
    for (int y = by0; y <= by1; ++y)
      for (int x = bx0; x <= bx1; ++x) {
        const size_t s = (size_t) y * ww_ + x;
        if ((state_[s] & kReached) || !counts (c, x, y))
          continue;
        /* A component with a cell in the box. */
        int cx0 = x, cy0 = y, cx1 = x, cy1 = y, area = 0;
        stack_.clear ();
        stack_.push_back ((int) s);
        state_[s] |= kReached;
        while (!stack_.empty ()) {
          const int k = stack_.back ();
          stack_.pop_back ();
          const int kx = k % ww_, ky = k / ww_;
          area++;
          cx0 = std::min (cx0, kx);
          cx1 = std::max (cx1, kx);
          cy0 = std::min (cy0, ky);
          cy1 = std::max (cy1, ky);
          for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
              const int nx = kx + dx, ny = ky + dy;
              if (nx < 0 || ny < 0 || nx >= ww_ || ny >= wh_)
                continue;
              const size_t m = (size_t) ny * ww_ + nx;
              if (!(state_[m] & kReached) && counts (c, nx, ny)) {
                state_[m] |= kReached;
                stack_.push_back ((int) m);
              }
            }
        }
        const int box_cells = (cx1 - cx0 + 1) * (cy1 - cy0 + 1);
        if (area < kColourMinCells || area < kColourFill * box_cells)
          continue;
        gx0 = std::min (gx0, (wx0_ + cx0) * cell_w_);
        gy0 = std::min (gy0, (wy0_ + cy0) * cell_h_);
        gx1 = std::max (gx1, std::min (width_, (wx0_ + cx1 + 1) * cell_w_));
        gy1 = std::max (gy1, std::min (height_, (wy0_ + cy1 + 1) * cell_h_));
      }
    b.x = gx0;
    b.y = gy0;
    b.w = gx1 - gx0;
    b.h = gy1 - gy0;
  }
  return true;
}

/* Whether window cell (x, y) DIFFERS (outside the window: yes). */
bool
MvColourBackground::differs (const MvChromaView & c, int x, int y)
{
  if (x < 0 || y < 0 || x >= ww_ || y >= wh_)
    return true;
  uint8_t & st = state_[(size_t) y * ww_ + x];
  if (!(st & kJudged)) {
    const int cx = wx0_ + x, cy = wy0_ + y, i = cy * cols_ + cx;
    bool d = false;
    if (seen_[i] != 0 && settled_ - seen_[i] <= kColourSeen) {
      cell (c, cx, cy, &cu_[i], &cv_[i]);
      d = difference (i) > t_;
    }
    st |= kJudged | (d ? kDiffers : 0);
  }
  return st & kDiffers;
}

/* Whether window cell (x, y) COUNTS: it and its four neighbours differ. */
bool
MvColourBackground::counts (const MvChromaView & c, int x, int y)
{
  uint8_t & st = state_[(size_t) y * ww_ + x];
  if (!(st & kCounted)) {
    const bool n = differs (c, x, y) && differs (c, x - 1, y)
        && differs (c, x + 1, y) && differs (c, x, y - 1)
        && differs (c, x, y + 1);
    st |= kCounted | (n ? kCounts : 0);
  }
  return st & kCounts;
}
