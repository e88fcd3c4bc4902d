/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage's arithmetic (match/change.h), one inline function per
 * definition, for the reference and every backend alike: integer only, so
 * that all give the same bits.
 */
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "match/change.h"

namespace match {

/* Rounded mean (ties up) of the scale x scale cell (x, y), clipped to the
 * frame. */
inline uint8_t change_cell_mean(const ImageView& luma, int x, int y, int scale) {
  const int x0 = x * scale, y0 = y * scale;
  const int x1 = std::min(x0 + scale, luma.width);
  const int y1 = std::min(y0 + scale, luma.height);
  uint32_t sum = 0;
  for (int yy = y0; yy < y1; ++yy) {
    const uint8_t* row = luma.row(yy);
    for (int xx = x0; xx < x1; ++xx) sum += row[xx];
  }
  const uint32_t n = (uint32_t)(x1 - x0) * (uint32_t)(y1 - y0);
  return (uint8_t)((sum + n / 2) / n);
}

/* change_cell_mean()'s rounded division by a multiply, for a fast path
 * that divides many sums by one cell size n: (x * ceil(2^32 / n)) >> 32
 * is x / n exactly for x < 2^16 and n < 2^16 (the error, under x / 2^32,
 * stays below 1/n), and a cell sums at most 16 x 16 x 255 (+ n / 2). */
struct ChangeCellDivider {
  explicit ChangeCellDivider(uint32_t cell)
      : n(cell), inv(((1ull << 32) + cell - 1) / cell) {}
  uint8_t mean(uint32_t sum) const { return (uint8_t)(((sum + n / 2) * inv) >> 32); }
  uint32_t n;
  uint64_t inv;
};

inline bool change_motion_nonzero(const int64_t m[6]) {
  return m[0] || m[1] || m[2] || m[3] || m[4] || m[5];
}

/* The number of the frame a request compares with, frame - age; false
 * when there is none (age 0, or older than frame 0). */
inline bool change_reference(const ChangeRequest& r, uint64_t* n) {
  if (r.age < 1 || r.age > r.frame) return false;
  *n = r.frame - r.age;
  return true;
}

/* The background's schedule (ChangeConfig::background_every): what a push
 * does to it. */
struct ChangeBackground {
  enum Step { kNone, kSet, kMove };
  bool valid = false;
  uint64_t pushes = 0; /* since it was set */
  Step next(int every) {
    if (every <= 0) return kNone;
    if (!valid) {
      valid = true;
      pushes = 0;
      return kSet;
    }
    return ++pushes % (uint64_t)every == 0 ? kMove : kNone;
  }
};

/* The image request r compares with: the kept frame find (n) returns,
 * (r.background, without motion) the background once `schedule` set it,
 * or (r.scene) the scene image once set (`scene`, else null); null when r
 * is malformed for it or it is not kept. One rule for every backend,
 * whatever its image type. */
template <class Image, class Find>
const Image* change_compared(const ChangeRequest& r, const ChangeBackground& schedule,
                             const Image* background, const Image* scene, Find find) {
  if (r.background && r.scene) return nullptr;
  if (r.scene) return scene;
  if (r.background)
    return schedule.valid && !change_motion_nonzero(r.motion) ? background : nullptr;
  uint64_t n = 0;
  return change_reference(r, &n) ? find(n) : nullptr;
}

/* The background a departed request (ChangeRequest::departed) reads;
 * null, with *st the reason, when it is malformed for it (a moving camera,
 * no background since the last restart). Null and ok without departed. */
template <class Image>
const Image* change_departed_background(const ChangeRequest& r,
                                        const ChangeBackground& schedule,
                                        const Image* background, Status* st) {
  *st = Status::ok();
  if (!r.departed) return nullptr;
  if (change_motion_nonzero(r.motion) || !schedule.valid)
    *st = Status(StatusCode::kInvalidArgument,
                 "change: departed needs a still camera and a background");
  return *st ? background : nullptr;
}

/* One grey level of B towards W. */
CHANGE_HD inline uint8_t change_background_step(uint8_t b, uint8_t w) {
  return (uint8_t)(b + (w > b) - (w < b));
}

/* No gain is looked for against the background or the scene image (an
 * image of the scene, not a frame the camera's gain took). */
inline bool change_gain_sought(const ChangeRequest& r) {
  return !r.background && !r.scene;
}

/* What a difference image was computed for: a backend asked again for
 * the same frames, motion and floor (the decision asks for its blocks, then
 * its regions) computes only the boxes' projections. Cleared by push ()
 * and reset (). */
struct ChangeKey {
  bool valid = false;
  uint64_t frame = 0;
  uint32_t age = 0;
  int64_t motion[6] = {0, 0, 0, 0, 0, 0};
  int min_threshold = 0;

  bool background = false;
  bool scene = false;

  bool matches(const ChangeRequest& r) const {
    if (!valid || r.frame != frame || r.age != age || r.min_threshold != min_threshold ||
        r.background != background || r.scene != scene)
      return false;
    for (int k = 0; k < 6; ++k)
      if (r.motion[k] != motion[k]) return false;
    return true;
  }
  void set(const ChangeRequest& r) {
    valid = true;
    frame = r.frame;
    age = r.age;
    std::copy(r.motion, r.motion + 6, motion);
    min_threshold = r.min_threshold;
    background = r.background;
    scene = r.scene;
  }
};

/* Position of working pixel x moved by m[0] + m[1] x + m[2] y (1/65536
 * pixels), in 1/16 pixels, rounded half up and clamped to [0, 16 (n - 1)]. */
CHANGE_HD inline int64_t change_position16(int64_t base, int64_t c0, int64_t c1,
                                           int64_t c2, int x, int y, int n,
                                           bool* inside = nullptr) {
  const int64_t fp = (base << 16) + c0 + c1 * x + c2 * y;
  /* floor division by 4096 of a possibly negative value */
  int64_t p16 = fp + 2048;
  p16 = p16 >= 0 ? p16 / 4096 : -((-p16 + 4095) / 4096);
  const int64_t hi = 16 * (int64_t)(n - 1);
  if (inside) *inside = p16 >= 0 && p16 <= hi;
  return p16 < 0 ? 0 : (p16 > hi ? hi : p16);
}

/* `prev` (ww x wh, packed) sampled bilinearly at (px, py), 1/16 pixels
 * inside the image, with 4-bit weights (round half up). */
CHANGE_HD inline int change_bilinear16(const uint8_t* prev, int ww, int wh, int64_t px,
                                       int64_t py) {
  const int xi = (int)(px >> 4), yi = (int)(py >> 4);
  const int fx = (int)(px & 15), fy = (int)(py & 15);
  const int xj = xi + 1 < ww ? xi + 1 : xi;
  const int yj = yi + 1 < wh ? yi + 1 : yi;
  const int p00 = prev[(int64_t)yi * ww + xi], p01 = prev[(int64_t)yi * ww + xj];
  const int p10 = prev[(int64_t)yj * ww + xi], p11 = prev[(int64_t)yj * ww + xj];
  const int top = p00 * (16 - fx) + p01 * fx;
  const int bottom = p10 * (16 - fx) + p11 * fx;
  return (top * (16 - fy) + bottom * fy + 128) >> 8;
}

/* P at working pixel (x, y): the previous working image `prev` (ww x wh,
 * packed) sampled bilinearly where the motion `m` takes (x, y). */
CHANGE_HD inline int change_warp_sample(const uint8_t* prev, int ww, int wh,
                                        const int64_t m[6], int x, int y) {
  const int64_t px = change_position16(x, m[0], m[1], m[2], x, y, ww);
  const int64_t py = change_position16(y, m[3], m[4], m[5], x, y, wh);
  return change_bilinear16(prev, ww, wh, px, py);
}

/* The scene image's step at its cell (x, y) (ChangeDetector::scene ()):
 * `s` (set: the sample itself) towards the working image `w` sampled where
 * `m` takes the cell, or `s` as it is where that lies outside the image. */
CHANGE_HD inline uint8_t change_scene_step(uint8_t s, const uint8_t* w, int ww, int wh,
                                           const int64_t m[6], int x, int y, bool set) {
  bool in_x = true, in_y = true;
  const int64_t px = change_position16(x, m[0], m[1], m[2], x, y, ww, &in_x);
  const int64_t py = change_position16(y, m[3], m[4], m[5], x, y, wh, &in_y);
  const uint8_t v = (uint8_t)change_bilinear16(w, ww, wh, px, py);
  if (set) return v;
  return in_x && in_y ? change_background_step(s, v) : s;
}

/* |w - p - b|, at most 255. */
CHANGE_HD inline int change_abs_diff(int w, int p, int b) {
  int d = w - p - b;
  d = d < 0 ? -d : d;
  return d > 255 ? 255 : d;
}

/* ChangeBox::explain's test at working cell (x, y): W there within t of
 * `ref` at one of the 3 x 3 cells around (x + sx, y + sy), clamped. */
CHANGE_HD inline bool change_explained(const uint8_t* cur, const uint8_t* ref, int ww,
                                       int wh, int x, int y, int sx, int sy, int b,
                                       int t) {
  const int w = cur[(int64_t)y * ww + x];
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int qx = x + sx + dx, qy = y + sy + dy;
      qx = qx < 0 ? 0 : (qx > ww - 1 ? ww - 1 : qx);
      qy = qy < 0 ? 0 : (qy > wh - 1 ? wh - 1 : qy);
      if (change_abs_diff(w, ref[(int64_t)qy * ww + qx], b) <= t) return true;
    }
  return false;
}

/* ChangeRequest::departed's test at working cell (x, y) (a still camera:
 * `ref` is P): W within t of the background `bg`, P not, and P not within
 * t (after b) of W at one of the 3 x 3 cells around (x - sx, y - sy),
 * clamped. */
CHANGE_HD inline bool change_departed(const uint8_t* cur, const uint8_t* ref,
                                      const uint8_t* bg, int ww, int wh, int x, int y,
                                      int sx, int sy, int b, int t) {
  const int64_t i = (int64_t)y * ww + x;
  if (change_abs_diff(cur[i], bg[i], 0) > t || change_abs_diff(ref[i], bg[i], 0) <= t)
    return false;
  /* |P - W' + b| = |W' - P - b|: change_explained () with the roles swapped. */
  return !change_explained(ref, cur, ww, wh, x, y, -sx, -sy, -b, t);
}

/* A changed cell that counts for a box asking its motion to explain it:
 * explained by the shift (sx, sy) and, where the request reads the
 * background `bg` (ChangeRequest::departed), not departed. */
CHANGE_HD inline bool change_counts_explained(const uint8_t* cur, const uint8_t* ref,
                                              const uint8_t* bg, int ww, int wh, int x,
                                              int y, int sx, int sy, int b, int t) {
  return change_explained(cur, ref, ww, wh, x, y, sx, sy, b, t) &&
         !(bg && change_departed(cur, ref, bg, ww, wh, x, y, sx, sy, b, t));
}

/* The cells the histograms of the offset and the noise count: those on
 * even rows and columns, a quarter of the working image. The median of
 * that many values (over 8,000 from 320 x 240 up) is the whole image's
 * within a grey level or so, and the pass over the image costs a quarter;
 * at 320 x 240 (a working cell a pixel) the two histograms a frame were a
 * quarter of the decision's time. */
CHANGE_HD inline bool change_sampled(int x, int y) { return ((x | y) & 1) == 0; }
CHANGE_HD inline uint64_t change_samples(int ww, int wh) {
  return (uint64_t)((ww + 1) / 2) * (uint64_t)((wh + 1) / 2);
}

/* The lower median of `total` values counted in hist[0 .. n): the smallest
 * v whose cumulative count reaches (total + 1) / 2. */
template <typename Count>
CHANGE_HD inline int change_lower_median(const Count* hist, int n, uint64_t total) {
  const uint64_t half = (total + 1) / 2;
  uint64_t cum = 0;
  for (int v = 0; v < n; ++v) {
    cum += hist[v];
    if (cum >= half && cum > 0) return v;
  }
  return n - 1;
}

/* For a still camera d = |W - P - b| is a function of W - P alone: the
 * lower median of d from the histogram of W - P (hist[v + 255], 511 bins)
 * without a pass over the pixels. A backend then need not keep d at all:
 * a cell changed when change_abs_diff (W, P, b) > t. */
template <typename Count>
CHANGE_HD inline int change_still_noise(const Count* hist, int b, uint64_t total) {
  const uint64_t half = (total + 1) / 2;
  uint64_t cum = 0;
  for (int k = 0; k < 255; ++k) {
    const int hi = b + k + 255, lo = b - k + 255;
    if (hi >= 0 && hi <= 510) cum += hist[hi];
    if (k > 0 && lo >= 0 && lo <= 510) cum += hist[lo];
    if (cum >= half && cum > 0) return k;
  }
  return 255; /* the rest, |v - b| >= 255, is clamped to 255 */
}

CHANGE_HD inline int change_threshold(int noise, int min_threshold) {
  return min_threshold > 4 * noise + 2 ? min_threshold : 4 * noise + 2;
}

/* A gain over the whole scene between W and the compared image (an
 * exposure that hunts, a camera's gain that flickers): the lower median of
 * W / P over the cells of every fourth row and column that are not dark
 * (change_gain_sampled (): 4,800 at 320 x 240, a pass a sixteenth of the
 * cost of one over the image; none against the background image), in 1/256
 * steps. Where it differs from 1 by kChangeGainLeast or more and P gained
 * (change_gained ()) leaves less noise than P (change_still_noise () of
 * each, with its own b), the compared image and P are taken gained before
 * b, d and the projections: b alone leaves a gain's difference, growing
 * with the brightness, in the noise, and the threshold rose with it
 * (objects under a gain flickering by up to 12 % a frame went unboxed on
 * most frames). A brightness step gives a ratio too, but the gain fits it
 * worse than b. */
constexpr int kChangeGainOne = 256;
constexpr int kChangeGainLow = 128, kChangeGainHigh = 512; /* 0.5 .. 2 */
constexpr int kChangeGainBins = kChangeGainHigh - kChangeGainLow + 1;
constexpr int kChangeGainDark = 16; /* a P under it gives no ratio */
constexpr int kChangeGainLeast = 3; /* 1.2 % */

/* The bin of w / p (p >= kChangeGainDark): 256 w / p by p's reciprocal,
 * no division a cell on the CPU (a table of (1 << 16) / p), clamped. */
CHANGE_HD inline int change_gain_bin(int w, int reciprocal) {
  const int g = (w * reciprocal) >> 8;
  return (g < kChangeGainLow ? kChangeGainLow
                             : (g > kChangeGainHigh ? kChangeGainHigh : g)) -
         kChangeGainLow;
}
CHANGE_HD inline int change_gain_reciprocal(int p) { return (1 << 16) / p; }

CHANGE_HD inline bool change_gain_sampled(int x, int y) { return ((x | y) & 3) == 0; }
CHANGE_HD inline uint64_t change_gain_samples(int ww, int wh) {
  return (uint64_t)((ww + 3) / 4) * (uint64_t)((wh + 3) / 4);
}

/* Whether `n` ratios among `total` cells (change_gain_samples ()) are
 * enough for a gain: a quarter of the cells bright enough to give one. */
CHANGE_HD inline bool change_gain_enough(uint64_t n, uint64_t total) {
  return n > 0 && 4 * n >= total;
}
/* The gain (x kChangeGainOne) of the ratios' lower median bin: none
 * (kChangeGainOne) within kChangeGainLeast of 1. */
CHANGE_HD inline int change_gain_of_median(int bin) {
  const int g = bin + kChangeGainLow, e = g - kChangeGainOne;
  return (e < 0 ? -e : e) < kChangeGainLeast ? kChangeGainOne : g;
}
/* The gain from the histogram of the `n` ratios among `total` cells. */
template <typename Count>
CHANGE_HD inline int change_gain(const Count* hist, uint64_t n, uint64_t total) {
  return change_gain_enough(n, total)
             ? change_gain_of_median(change_lower_median(hist, kChangeGainBins, n))
             : kChangeGainOne;
}

/* A compared image's value p under the gain. */
CHANGE_HD inline int change_gained(int p, int gain) {
  const int v = (gain * p + kChangeGainOne / 2) >> 8;
  return v > 255 ? 255 : v;
}

CHANGE_HD inline int change_clamp(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}

/* The working cells of a frame-pixel box, clipped to the working image
 * (ww x wh cells of scale x scale pixels). */
CHANGE_HD inline ChangeBoxCells change_box_cells(int scale, int ww, int wh,
                                                 const ChangeBox& b) {
  const int s = scale;
  const int x0 = change_clamp(b.x / s, 0, ww);
  const int y0 = change_clamp(b.y / s, 0, wh);
  const int x1 = change_clamp((b.x + b.w + s - 1) / s, x0, ww);
  const int y1 = change_clamp((b.y + b.h + s - 1) / s, y0, wh);
  ChangeBoxCells cells;
  cells.x0 = x0;
  cells.y0 = y0;
  cells.cols = b.w > 0 ? x1 - x0 : 0;
  cells.rows = b.h > 0 ? y1 - y0 : 0;
  return cells;
}

inline ChangeBoxCells change_box_cells(const ChangeConfig& c, const ChangeBox& b) {
  return change_box_cells(c.scale, c.work_width(), c.work_height(), b);
}

/* ChangeRequest's tiles: whether asked, checked (sizes, listed indices),
 * the grid's columns and rows, how many asked, and tile k's box (row-major,
 * `columns` of them a row). */
inline bool change_tiles_asked(const ChangeRequest& r) {
  return r.tile_width > 0 || r.tile_height > 0;
}
inline int change_tile_columns(const ChangeConfig& c, const ChangeRequest& r) {
  return change_tiles_asked(r) ? (c.width + r.tile_width - 1) / r.tile_width : 0;
}
inline int change_tile_rows(const ChangeConfig& c, const ChangeRequest& r) {
  return change_tiles_asked(r) ? (c.height + r.tile_height - 1) / r.tile_height : 0;
}
inline Status change_check_tiles(const ChangeConfig& c, const ChangeRequest& r) {
  if (r.light && (!r.tiles || !change_tiles_asked(r)))
    return Status(StatusCode::kInvalidArgument, "change: light without listed tiles");
  if (!change_tiles_asked(r)) return Status::ok();
  if (r.tile_width < 1 || r.tile_width > kChangeMaxTile || r.tile_height < 1 ||
      r.tile_height > kChangeMaxTile)
    return Status(StatusCode::kInvalidArgument, "change: tile size outside 1..256");
  if (r.n_tiles < 0 || (r.n_tiles > 0 && !r.tiles))
    return Status(StatusCode::kInvalidArgument, "change: tile list");
  if (r.extent_reach < 0 || r.extent_reach > kChangeMaxReach ||
      (r.extent_reach > 0 && !r.tiles))
    return Status(StatusCode::kInvalidArgument,
                  "change: extent_reach outside 0..32, or without listed tiles");
  const int64_t n = (int64_t)change_tile_columns(c, r) * change_tile_rows(c, r);
  for (int k = 0; r.tiles && k < r.n_tiles; ++k)
    if (r.tiles[k].index < 0 || r.tiles[k].index >= n)
      return Status(StatusCode::kInvalidArgument, "change: tile index outside the grid");
  return Status::ok();
}
/* A tile's light sums (ChangeRequest::light) over its cells, W = cur and
 * P = p (ww wide, packed; P of the element type the backend keeps). */
template <class Pixel>
inline ChangeLightSums change_light_sums(const uint8_t* cur, const Pixel* p, int ww,
                                         const ChangeBoxCells& cells) {
  ChangeLightSums s;
  for (int j = 0; j < cells.rows; ++j) {
    const uint8_t* wr = cur + (size_t)(cells.y0 + j) * ww + cells.x0;
    const Pixel* pr = p + (size_t)(cells.y0 + j) * ww + cells.x0;
    /* A row's sums fit 32 bits (at most 257 cells of 255 x 255 x 256). */
    int32_t sp = 0, sw = 0, spp = 0, sww = 0, spw = 0, sxp = 0, sxw = 0;
    for (int i = 0; i < cells.cols; ++i) {
      const int32_t w = wr[i], q = pr[i];
      sp += q;
      sw += w;
      spp += q * q;
      sww += w * w;
      spw += q * w;
      sxp += i * q;
      sxw += i * w;
    }
    s.p += sp;
    s.w += sw;
    s.pp += spp;
    s.ww += sww;
    s.pw += spw;
    s.xp += sxp;
    s.xw += sxw;
    s.yp += (int64_t)j * sp;
    s.yw += (int64_t)j * sw;
  }
  return s;
}
inline size_t change_tiles_count(const ChangeConfig& c, const ChangeRequest& r) {
  if (!change_tiles_asked(r)) return 0;
  if (r.tiles) return (size_t)r.n_tiles;
  return (size_t)change_tile_columns(c, r) * change_tile_rows(c, r);
}
/* The k-th tile asked: every tile in order, or the k-th listed. */
inline ChangeTile change_tile_asked(const ChangeRequest& r, int k) {
  if (r.tiles) return r.tiles[k];
  ChangeTile t;
  t.index = k;
  return t;
}
CHANGE_HD inline ChangeBox change_tile(int width, int height, int tile_width,
                                       int tile_height, int columns, int k) {
  ChangeBox b;
  b.x = (k % columns) * tile_width;
  b.y = (k / columns) * tile_height;
  b.w = tile_width < width - b.x ? tile_width : width - b.x;
  b.h = tile_height < height - b.y ? tile_height : height - b.y;
  return b;
}
/* The most cells a tile spans on an axis: kChangeMaxTile pixels starting
 * anywhere in a cell. */
constexpr int kChangeMaxTileCells = kChangeMaxTile + 1;

/* The most working cells a tile's extent window holds (ChangeRequest::
 * extent_reach): the tile's cells, at most a cell more than its pixels
 * over the scale on each axis, grown by the reach on every side. */
inline size_t change_extent_window(const ChangeConfig& c, const ChangeRequest& r) {
  if (r.extent_reach <= 0) return 0;
  const size_t cols =
      (size_t)(r.tile_width + c.scale - 1) / c.scale + 1 + 2 * r.extent_reach;
  const size_t rows =
      (size_t)(r.tile_height + c.scale - 1) / c.scale + 1 + 2 * r.extent_reach;
  return cols * rows;
}

/* A tile's extent window: its cells grown by `reach`, clipped to the
 * image; cells x0 .. x1 - 1, y0 .. y1 - 1. */
struct ChangeWindow {
  int x0, y0, x1, y1;
};
CHANGE_HD inline ChangeWindow change_extent_bounds(const ChangeBoxCells& cells, int ww,
                                                   int wh, int reach) {
  ChangeWindow w;
  w.x0 = cells.x0 - reach > 0 ? cells.x0 - reach : 0;
  w.y0 = cells.y0 - reach > 0 ? cells.y0 - reach : 0;
  w.x1 = cells.x0 + cells.cols + reach < ww ? cells.x0 + cells.cols + reach : ww;
  w.y1 = cells.y0 + cells.rows + reach < wh ? cells.y0 + cells.rows + reach : wh;
  return w;
}

/* change_extent ()'s marks in `seen`, a byte a window cell. */
enum ChangeExtentMark : uint8_t {
  kExtentUnasked = 0, /* counted () not asked yet */
  kExtentTaken = 1,   /* counts, in the walk (walked or on the stack) */
  kExtentOff = 2,     /* does not count */
  kExtentCounts = 3,  /* counts, not in the walk yet */
};

/* A tile's extent (ChangeRequest::extent_reach = reach): a depth-first
 * walk of the 8-connected components of the cells that count
 * (counted (x, y)) from the tile's cells, within the window, each cell
 * asked at most once, until one reaches the cap. `seen` and `stack`:
 * window-sized scratch (change_extent_window ()), `seen` cleared here
 * unless `marked`: then the caller cleared it and may have marked cells
 * it knows (kExtentCounts or kExtentOff: the CPU stage the tile's own,
 * from its projection). The reference and the CPU run it; the CUDA stage
 * labels the window's components in parallel (the same components, so
 * the same extents). */
template <typename Counted>
inline int change_extent(const ChangeBoxCells& cells, int ww, int wh, int reach,
                         Counted counted, uint8_t* seen, int* stack,
                         bool marked = false) {
  const ChangeWindow win = change_extent_bounds(cells, ww, wh, reach);
  const int x0 = win.x0, y0 = win.y0, x1 = win.x1, y1 = win.y1;
  const int cols = x1 - x0;
  if (!marked)
    for (int i = 0; i < cols * (y1 - y0); ++i) seen[i] = kExtentUnasked;
  /* Takes cell (x, y) into the walk when it counts and is not in it yet. */
  auto take = [&](int x, int y) {
    uint8_t& s = seen[(y - y0) * cols + (x - x0)];
    if (s == kExtentUnasked) s = counted(x, y) ? kExtentCounts : kExtentOff;
    if (s != kExtentCounts) return false;
    s = kExtentTaken;
    return true;
  };
  int best = 0;
  for (int ty = cells.y0; ty < cells.y0 + cells.rows; ++ty)
    for (int tx = cells.x0; tx < cells.x0 + cells.cols; ++tx) {
      if (!take(tx, ty)) continue;
      int n = 0, lx = tx, hx = tx, ly = ty, hy = ty;
      stack[n++] = (ty - y0) * cols + (tx - x0);
      while (n > 0) {
        const int q = stack[--n];
        const int x = x0 + q % cols, y = y0 + q / cols;
        lx = x < lx ? x : lx;
        hx = x > hx ? x : hx;
        ly = y < ly ? y : ly;
        hy = y > hy ? y : hy;
        if (hx - lx + 1 >= reach || hy - ly + 1 >= reach) return reach;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const int nx = x + dx, ny = y + dy;
            if (nx < x0 || nx >= x1 || ny < y0 || ny >= y1) continue;
            if (take(nx, ny)) stack[n++] = (ny - y0) * cols + (nx - x0);
          }
      }
      const int extent = hx - lx > hy - ly ? hx - lx + 1 : hy - ly + 1;
      best = extent > best ? extent : best;
    }
  return best;
}

/* out->boxes for `boxes` (their cells and their slices of out->counts,
 * one after the other); returns the number of counts. */
inline size_t change_layout(const ChangeConfig& c, const ChangeBox* boxes, int n,
                            ChangeResult* out) {
  out->boxes.resize(n);
  size_t n_counts = 0;
  for (int k = 0; k < n; ++k) {
    out->boxes[k] = change_box_cells(c, boxes[k]);
    out->boxes[k].offset = n_counts;
    n_counts += out->boxes[k].rows + out->boxes[k].cols;
  }
  return n_counts;
}

/* The frames a stage keeps: `history` slots of Storage, each with the
 * number it was pushed with, reused oldest first. */
template <typename Storage>
class ChangeRing {
 public:
  explicit ChangeRing(int history) : slots_(history) {}
  /* The slot for frame `n`, or nullptr when n does not follow the last
   * pushed frame; commit () it once filled. */
  Storage* next(uint64_t n) {
    if (pushed_ && n <= last_) return nullptr;
    return &slots_[next_].storage;
  }
  void commit(uint64_t n) {
    slots_[next_].number = n;
    slots_[next_].valid = true;
    next_ = (next_ + 1) % slots_.size();
    last_ = n;
    pushed_ = true;
  }
  const Storage* find(uint64_t n) const {
    for (const Slot& s : slots_)
      if (s.valid && s.number == n) return &s.storage;
    return nullptr;
  }
  void reset() {
    for (Slot& s : slots_) s.valid = false;
    pushed_ = false;
  }
  template <typename F>
  void for_each(F f) {
    for (Slot& s : slots_) f(s.storage);
  }

 private:
  struct Slot {
    uint64_t number = 0;
    bool valid = false;
    Storage storage;
  };
  std::vector<Slot> slots_;
  size_t next_ = 0;
  uint64_t last_ = 0;
  bool pushed_ = false;
};

}  // namespace match
