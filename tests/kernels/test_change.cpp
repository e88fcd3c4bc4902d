/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage (match/change.h): the reference against hand-made
 * cases, and the CPU backend equal to the reference on random frames of
 * odd sizes with padded strides, still and moving cameras.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "../common/change_testutil.h"
#include "../common/frame.h"
#include "../common/isa_guard.h"
#include "match/change.h"
#include "ref/change_arith.h"

namespace {

using match::ChangeBox;
using match::ChangeConfig;
using match::ChangeDetector;
using match::ChangeRequest;
using match::ChangeResult;

/* A w x h frame with `pad` bytes of garbage after each row. */
Frame padded(int w, int h, int pad) {
  return make_noise_frame(w, h, w + pad, w * 31 + h + pad);
}

/* A padded w x h frame of one grey level. */
Frame flat(int w, int h, int pad, uint8_t value) {
  Frame f = padded(w, h, pad);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) f.at(x, y) = value;
  return f;
}

/* A request for frame `frame` with one box, the whole w x h frame. */
struct WholeFrame {
  WholeFrame(int w, int h, uint64_t frame) : box{0, 0, w, h} {
    r.frame = frame;
    r.boxes = &box;
    r.n_boxes = 1;
  }
  WholeFrame(const WholeFrame&) = delete;
  ChangeBox box;
  ChangeRequest r;
};

/* The changed cells of a result's first box, over its `rows` rows. */
uint32_t changed_cells(const ChangeResult& out, int rows) {
  uint32_t n = 0;
  for (int y = 0; y < rows; ++y) n += out.counts[y];
  return n;
}

std::unique_ptr<ChangeDetector> make_cpu(const ChangeConfig& c) {
  std::unique_ptr<ChangeDetector> d;
  EXPECT_TRUE(ChangeDetector::create(match::Backend::kCpu, c, &d));
  return d;
}

TEST(ChangeArith, WarpIdentityAndHalfPixel) {
  const uint8_t img[4] = {10, 30, 50, 70}; /* 2 x 2 */
  const int64_t zero[6] = {0, 0, 0, 0, 0, 0};
  EXPECT_EQ(match::change_warp_sample(img, 2, 2, zero, 1, 0), 30);
  EXPECT_EQ(match::change_warp_sample(img, 2, 2, zero, 0, 1), 50);
  /* Half a pixel right: (10 + 30) / 2; clamped at the right edge. */
  const int64_t half[6] = {32768, 0, 0, 0, 0, 0};
  EXPECT_EQ(match::change_warp_sample(img, 2, 2, half, 0, 0), 20);
  EXPECT_EQ(match::change_warp_sample(img, 2, 2, half, 1, 0), 30);
  /* Half a pixel up from row 1, left of column 0: clamped to (0, 0.5). */
  const int64_t up_left[6] = {-65536, 0, 0, -32768, 0, 0};
  EXPECT_EQ(match::change_warp_sample(img, 2, 2, up_left, 0, 1), 30);
}

TEST(ChangeArith, LowerMedianAndCells) {
  const uint64_t h[5] = {1, 0, 2, 0, 1}; /* values 0, 2, 2, 4 */
  EXPECT_EQ(match::change_lower_median(h, 5, 4), 2);
  const uint64_t h2[3] = {2, 0, 2}; /* 0, 0, 2, 2: lower median 0 */
  EXPECT_EQ(match::change_lower_median(h2, 3, 4), 0);
  ChangeConfig c;
  c.width = 10;
  c.height = 7;
  c.scale = 3; /* 4 x 3 cells */
  const match::ChangeBoxCells cells = match::change_box_cells(c, ChangeBox{4, 2, 5, 9});
  EXPECT_EQ(cells.x0, 1);
  EXPECT_EQ(cells.cols, 2); /* cells 1, 2 (pixels 3..8) */
  EXPECT_EQ(cells.y0, 0);
  EXPECT_EQ(cells.rows, 3); /* clipped */
}

/* A still camera, 40 x 30, noise-free: frame 7 a background of grey
 * levels lo .. lo + spread - 1, frame 8 that background lit (`light` of
 * each value) with an object of 6 x 4 pixels that moved 4 to the right;
 * the whole of frame 8 analysed into *out by the reference, returned. */
template <typename Light>
std::unique_ptr<ChangeDetector> object_through(int lo, int spread, Light light,
                                               ChangeResult* out) {
  ChangeConfig c;
  c.width = 40;
  c.height = 30;
  auto ref = match::make_change_ref(c);
  Frame a = padded(40, 30, 3), b = padded(40, 30, 5);
  std::mt19937 rng(1);
  for (int y = 0; y < 30; ++y)
    for (int x = 0; x < 40; ++x) {
      a.at(x, y) = (uint8_t)(lo + rng() % spread);
      b.at(x, y) = (uint8_t)light(a.at(x, y));
    }
  for (int y = 10; y < 14; ++y)
    for (int x = 10; x < 16; ++x) b.at(x + 4, y) = 250; /* object now */
  EXPECT_TRUE(ref->push(a.view(), 7, 1));
  EXPECT_TRUE(ref->push(b.view(), 8, 1));
  WholeFrame whole(40, 30, 8);
  EXPECT_TRUE(ref->analyse(whole.r, out, 1));
  /* Exactly the object's old and new pixels changed. */
  EXPECT_EQ(out->boxes.size(), 1u);
  if (out->counts.size() != 70u) {
    ADD_FAILURE() << "counts " << out->counts.size();
    return ref;
  }
  const uint32_t* rows = out->counts.data();
  const uint32_t* cols = rows + 30;
  for (int y = 0; y < 30; ++y) EXPECT_EQ(rows[y], (y >= 10 && y < 14) ? 6u : 0u) << y;
  for (int x = 0; x < 40; ++x) EXPECT_EQ(cols[x], (x >= 14 && x < 20) ? 4u : 0u) << x;
  return ref;
}

/* A +40 brightness step over the whole frame: the step is the offset. */
TEST(ChangeRef, ObjectThroughBrightnessStep) {
  ChangeResult out;
  auto ref = object_through(
      50, 20, [](int v) { return v + 40; }, &out);
  EXPECT_EQ(out.gain, 256); /* the ratios say 1.6, but a gain fits worse */
  EXPECT_EQ(out.offset, 40);
  EXPECT_EQ(out.noise, 0);
  EXPECT_EQ(out.threshold, 10);
  /* Frame 6 was never pushed: frame 7 has no previous. */
  WholeFrame whole(40, 30, 7);
  EXPECT_FALSE(ref->analyse(whole.r, &out, 1));
}

/* The camera's gain up by a quarter: the gain is found and taken out (b
 * alone left differences of 12 to 44 grey levels across the scene). */
TEST(ChangeRef, ObjectThroughAGain) {
  ChangeResult out;
  object_through(
      50, 130, [](int v) { return (v * 5 + 2) / 4; }, &out);
  EXPECT_NEAR(out.gain, 320, 2);
  EXPECT_LE(out.noise, 1);
}

/* ChangeBox::explain: an object of 8 x 6 cells moving 4 to the right over
 * a background of vertical stripes (no two cells 3 to 5 apart alike, none
 * like the object), and five bright "rain" cells elsewhere. With the object's own shift (its
 * content came from 4 cells to the left) only the object's cells count:
 * not the background it uncovered (its trail), not the rain; without it,
 * both count. */
TEST(ChangeRef, ExplainedCountsTheObjectNotItsTrail) {
  ChangeConfig c;
  c.width = 48;
  c.height = 32;
  auto ref = match::make_change_ref(c);
  Frame a = padded(48, 32, 2), b = padded(48, 32, 0);
  std::mt19937 rng(4);
  for (int y = 0; y < 32; ++y)
    for (int x = 0; x < 48; ++x) a.at(x, y) = b.at(x, y) = (uint8_t)(40 + 30 * (x % 7));
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) {
      const uint8_t v = (uint8_t)(231 + rng() % 25); /* 11 above the stripes */
      a.at(10 + x, 20 + y) = v;
      b.at(14 + x, 20 + y) = v;
    }
  const int rain[5][2] = {{3, 3}, {30, 5}, {40, 10}, {25, 2}, {44, 14}};
  for (const auto& p : rain) b.at(p[0], p[1]) = 255; /* the stripes reach 220 */
  ASSERT_TRUE(ref->push(a.view(), 1, 1));
  ASSERT_TRUE(ref->push(b.view(), 2, 1));
  ChangeBox boxes[2];
  boxes[0] = ChangeBox{0, 0, 48, 32};
  boxes[1] = boxes[0];
  boxes[1].explain = true;
  boxes[1].shift_x = -4;
  ChangeRequest r;
  r.frame = 2;
  r.boxes = boxes;
  r.n_boxes = 2;
  ChangeResult out;
  ASSERT_TRUE(ref->analyse(r, &out, 1));
  ASSERT_EQ(out.threshold, 10);
  const uint32_t* plain_cols = out.counts.data() + out.boxes[0].offset + 32;
  const uint32_t* rows = out.counts.data() + out.boxes[1].offset;
  const uint32_t* cols = rows + 32;
  uint32_t object = 0, elsewhere = 0, trail = 0;
  for (int x = 0; x < 48; ++x) {
    (x >= 14 && x < 22 ? object : elsewhere) += cols[x];
    if (x >= 10 && x < 14) trail += plain_cols[x];
  }
  for (int y = 0; y < 32; ++y)
    if (y < 20 || y >= 26) {
      EXPECT_EQ(rows[y], 0u) << "row " << y;
    }
  EXPECT_EQ(elsewhere, 0u);
  /* All of its cells over the stripes; over its old place, those unlike the
   * object's cell there before. */
  EXPECT_GE(object, 24u);
  /* Without the shift the trail and the rain count: the test can tell. */
  EXPECT_EQ(trail, 24u);
  uint32_t rain_counted = 0;
  for (const auto& p : rain) rain_counted += plain_cols[p[0]] > 0 ? 1 : 0;
  EXPECT_EQ(rain_counted, 5u);
}

/* A moving camera: the frame shifted by (3, -2) pixels with the caller's
 * motion saying so changes nowhere. */
TEST(ChangeRef, CompensatedShiftChangesNothing) {
  ChangeConfig c;
  c.width = 64;
  c.height = 48;
  auto ref = match::make_change_ref(c);
  Frame a = padded(64, 48, 0), b = padded(64, 48, 0);
  std::mt19937 rng(2);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) a.at(x, y) = (uint8_t)(rng() % 256);
  /* backward: cur(x, y) = prev(x + 3, y - 2) */
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x)
      b.at(x, y) = a.at(std::min(x + 3, 63), std::max(y - 2, 0));
  ASSERT_TRUE(ref->push(a.view(), 0, 1));
  ASSERT_TRUE(ref->push(b.view(), 1, 1));
  WholeFrame whole(64, 48, 1);
  ChangeRequest& r = whole.r;
  r.motion[0] = 3 * 65536;
  r.motion[3] = -2 * 65536;
  ChangeResult out;
  ASSERT_TRUE(ref->analyse(r, &out, 1));
  EXPECT_EQ(changed_cells(out, 48), 0u);
  EXPECT_EQ(out.noise, 0);
  /* Without the motion every pixel of the random frame differs: so much
   * that it reads as noise (the threshold follows it). */
  r.motion[0] = r.motion[3] = 0;
  ASSERT_TRUE(ref->analyse(r, &out, 1));
  EXPECT_GT(out.noise, 20);
}

/* The scene image under a shaking camera: frames cut from a larger
 * textured scene at whole-pixel camera positions, the scene image set by
 * the first and moved by the others, each sampled where the scene's cells
 * lie in it. A dark object of one colour, 20 x 16, moving two pixels a frame,
 * changes on all of its 320 pixels against the scene image (its inside is
 * new to the scene) but against the previous frame only about its leading
 * and trailing bands (the moving camera's tolerance forgives one pixel). A motion that takes every cell outside the frame
 * leaves the scene image as it was. CPU as the reference. */
TEST(ChangeRef, SceneFollowsTheCamera) {
  const int w = 96, h = 72;
  std::mt19937 rng(5);
  std::vector<uint8_t> world(160 * 140);
  for (uint8_t& v : world) v = (uint8_t)(60 + rng() % 190);
  const int cam[][2] = {{30, 30}, {33, 27}, {27, 33}, {35, 31}, {29, 26}, {32, 34}};
  const int n_frames = 6;
  auto frame = [&](int k) {
    Frame f = padded(w, h, 3);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        f.at(x, y) = world[(y + cam[k][1]) * 160 + x + cam[k][0]];
    if (k >= 4) /* the object in the scene, two pixels right on the last frame */
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const int sx = x + cam[k][0] - 2 * (k - 4), sy = y + cam[k][1];
          if (sx >= 70 && sx < 90 && sy >= 60 && sy < 76) f.at(x, y) = 20;
        }
    return f;
  };
  /* Where a cell at p in frame `from` lies in frame `to`: p + cam[from]
   * - cam[to], in the stage's units. */
  auto motion = [&](int from, int to, int64_t m[6]) {
    std::fill(m, m + 6, 0);
    m[0] = (int64_t)(cam[from][0] - cam[to][0]) * 65536;
    m[3] = (int64_t)(cam[from][1] - cam[to][1]) * 65536;
  };
  ChangeConfig c;
  c.width = w;
  c.height = h;
  c.history = 3;
  for (int backend = 0; backend < 2; ++backend) {
    const std::unique_ptr<ChangeDetector> stage =
        backend == 0 ? match::make_change_ref(c) : make_cpu(c);
    int64_t m[6];
    for (int k = 0; k < n_frames; ++k) {
      ASSERT_TRUE(stage->push(frame(k).view(), (uint64_t)k, 1));
      motion(0, k, m);
      ASSERT_TRUE(stage->scene((uint64_t)k, m, k == 0, 1));
    }
    /* The frame's inside (the scene image's border cells were outside
     * some frames). */
    ChangeBox inside{8, 8, w - 16, h - 16};
    ChangeRequest r;
    r.frame = n_frames - 1;
    r.scene = true;
    motion(n_frames - 1, 0, r.motion);
    r.boxes = &inside;
    r.n_boxes = 1;
    ChangeResult out;
    ASSERT_TRUE(stage->analyse(r, &out, 1));
    EXPECT_EQ(changed_cells(out, inside.h), 320u);
    /* Against the previous frame, the camera's motion taken out. */
    ChangeRequest prev = r;
    prev.scene = false;
    prev.age = 1;
    motion(n_frames - 1, n_frames - 2, prev.motion);
    ChangeResult bands;
    ASSERT_TRUE(stage->analyse(prev, &bands, 1));
    EXPECT_GT(changed_cells(bands, inside.h), 0u);
    EXPECT_LT(changed_cells(bands, inside.h), 320u / 4);
    /* Every cell taken outside: nothing moves. */
    int64_t away[6] = {1000 * 65536, 0, 0, 0, 0, 0};
    ASSERT_TRUE(stage->scene(n_frames - 1, away, false, 1));
    ChangeResult again;
    ASSERT_TRUE(stage->analyse(r, &again, 1));
    EXPECT_EQ(again.counts, out.counts);
    /* A request for both images, or a move before any set, is refused. */
    r.background = true;
    EXPECT_FALSE(stage->analyse(r, &out, 1));
    stage->reset();
    ASSERT_TRUE(stage->push(frame(0).view(), 10, 1));
    EXPECT_FALSE(stage->scene(10, m, false, 1));
    EXPECT_FALSE(stage->scene(9, m, true, 1));
  }
}

/* A slow mover: an object drifting a quarter of a pixel a frame (its edge
 * a blend of object and background) changes its edge by 30 grey levels a
 * frame, under a floor of 40 (a noisy camera's), but against the frame 8
 * back (2 pixels) its leading and trailing edges change by 120, and only
 * they. */
TEST(ChangeRef, SlowMoverAgainstAnOlderFrame) {
  ChangeConfig c;
  c.width = 48;
  c.height = 32;
  c.history = 10;
  auto ref = match::make_change_ref(c);
  for (int f = 0; f <= 8; ++f) {
    Frame fr = padded(48, 32, 4);
    const double x0 = 10.0 + 0.25 * f; /* object: [x0, x0 + 12) x [8, 20) */
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 48; ++x) {
        const double cover =
            std::clamp(std::min(x + 1 - x0, x0 + 12 - x), 0.0, 1.0) * (y >= 8 && y < 20);
        fr.at(x, y) = (uint8_t)std::lround(60 + 120 * cover);
      }
    ASSERT_TRUE(ref->push(fr.view(), 100 + f, 1));
  }
  WholeFrame whole(48, 32, 108);
  ChangeRequest& r = whole.r;
  r.min_threshold = 40;
  ChangeResult out;
  ASSERT_TRUE(ref->analyse(r, &out, 1));
  EXPECT_EQ(changed_cells(out, 32), 0u);
  EXPECT_EQ(out.threshold, 40);
  r.age = 8;
  ASSERT_TRUE(ref->analyse(r, &out, 1));
  const uint32_t* rows = out.counts.data();
  const uint32_t* cols = rows + 32;
  for (int y = 0; y < 32; ++y) EXPECT_EQ(rows[y], (y >= 8 && y < 20) ? 4u : 0u) << y;
  /* Old x0 = 10, new 12: columns 10, 11 and 22, 23 differ by 120. */
  for (int x = 0; x < 48; ++x)
    EXPECT_EQ(cols[x], (x == 10 || x == 11 || x == 22 || x == 23) ? 12u : 0u) << x;
  /* As 8 x 8 tiles (6 x 4 of them): the edges' tiles, their changed
   * columns over 8 rows (rows 8 to 15) or 4 (16 to 19); none elsewhere. */
  r.tile_width = r.tile_height = 8;
  ASSERT_TRUE(ref->analyse(r, &out, 1));
  ASSERT_EQ(out.tiles.size(), 24u);
  for (int k = 0; k < 24; ++k) {
    const uint32_t want = (k == 7 || k == 8) ? 16u : (k == 13 || k == 14) ? 8u : 0u;
    EXPECT_EQ(out.tiles[k], want) << "tile " << k;
  }
  r.age = 9; /* frame 99 was never pushed */
  EXPECT_FALSE(ref->analyse(r, &out, 1));
}

/* ChangeRequest::extent_reach: over a flat background, a spot of 2 x 2
 * (a snowflake) and a line one cell wide and 14 long (the band along an
 * object's edge), across two tiles of 16 x 16. The spot's tile has extent
 * 2, the line's tiles 14 (the window reaches the line's other part), the
 * empty ones 0; a reach of 10 caps the line at 10, one of 3 at 3 (the
 * spot stays 2). */
TEST(ChangeRef, ExtentTellsASpotFromAnEdge) {
  ChangeConfig c;
  c.width = 48;
  c.height = 32;
  for (auto& d : {match::make_change_ref(c), make_cpu(c)}) {
    ASSERT_TRUE(d->push(flat(48, 32, 3, 90).view(), 1, 1));
    Frame f = flat(48, 32, 3, 90);
    f.at(5, 5) = f.at(6, 5) = f.at(5, 6) = f.at(6, 6) = 200;
    for (int y = 9; y < 23; ++y) f.at(40, y) = 20;
    ASSERT_TRUE(d->push(f.view(), 2, 1));
    std::vector<match::ChangeTile> tiles(6);
    for (int k = 0; k < 6; ++k) tiles[k].index = k;
    ChangeRequest r;
    r.frame = 2;
    r.min_threshold = 20;
    r.tile_width = r.tile_height = 16;
    r.tiles = tiles.data();
    r.n_tiles = 6;
    r.extent_reach = 20;
    ChangeResult out;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_EQ(out.extents, (std::vector<uint32_t>{2, 0, 14, 0, 0, 14}));
    EXPECT_EQ(out.tiles[0], 4u);
    r.extent_reach = 10;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_EQ(out.extents, (std::vector<uint32_t>{2, 0, 10, 0, 0, 10}));
    r.extent_reach = 3;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_EQ(out.extents, (std::vector<uint32_t>{2, 0, 3, 0, 0, 3}));
    r.extent_reach = 0;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_TRUE(out.extents.empty());
    r.extent_reach = match::kChangeMaxReach + 1;
    EXPECT_FALSE(d->analyse(r, &out, 1));
    r.extent_reach = 1;
    r.tiles = nullptr; /* every tile: no extents */
    r.n_tiles = 0;
    EXPECT_FALSE(d->analyse(r, &out, 1));
  }
}

/* ChangeRequest::light: a tile's sums of W and P over its cells, x and y
 * from its first cell, as plain loops count them here (a tile lit by a
 * gain and an offset, W = 2 P + 3); a tile that did not change gives all
 * zero. Only with listed tiles. */
TEST(ChangeRef, LightSums) {
  ChangeConfig c;
  c.width = 40;
  c.height = 24;
  Frame a = padded(40, 24, 5), b = padded(40, 24, 5);
  for (int y = 0; y < 24; ++y)
    for (int x = 16; x < 32; ++x) b.at(x, y) = (uint8_t)(2 * (a.at(x, y) / 4) + 3);
  for (int y = 0; y < 24; ++y)
    for (int x = 16; x < 32; ++x) a.at(x, y) = (uint8_t)(a.at(x, y) / 4);
  for (auto& d : {match::make_change_ref(c), make_cpu(c)}) {
    ASSERT_TRUE(d->push(a.view(), 1, 1));
    ASSERT_TRUE(d->push(b.view(), 2, 1));
    std::vector<match::ChangeTile> tiles(2);
    tiles[0].index = 1; /* columns 16-31, rows 0-15 */
    tiles[1].index = 5; /* columns 32-39, rows 16-23 */
    ChangeRequest r;
    r.frame = 2;
    r.tile_width = r.tile_height = 16;
    r.tiles = tiles.data();
    r.n_tiles = 2;
    r.light = true;
    ChangeResult out;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    ASSERT_EQ(out.light.size(), 2u);
    EXPECT_TRUE(out.light[1] == match::ChangeLightSums{});
    match::ChangeLightSums want;
    for (int j = 0; j < 16; ++j)
      for (int i = 0; i < 16; ++i) want.add(i, j, b.at(16 + i, j), a.at(16 + i, j));
    EXPECT_TRUE(out.light[0] == want);
    EXPECT_EQ(out.light[0].w, 2 * out.light[0].p + 3 * 256);
    r.tiles = nullptr; /* every tile: no light sums */
    r.n_tiles = 0;
    EXPECT_FALSE(d->analyse(r, &out, 1));
  }
}

/* change_trim ()'s edges: rows of 12 changed cells, then rows of 1 or 2
 * (an object's thin side bands) out to the box's last row. Trimmed at a
 * quarter of the largest without edges; with the bottom on the image's
 * edge, kept out to it, unless a row on the way holds none (the object
 * ended there); edges the box is not on change nothing. */
TEST(ChangeRef, TrimRunsOnToTheImageEdge) {
  const ChangeBox box{0, 0, 16, 10};
  match::ChangeBoxCells cells;
  cells.cols = 16;
  cells.rows = 10;
  std::vector<uint32_t> rows{12, 12, 12, 12, 2, 1, 2, 1, 2, 1};
  const std::vector<uint32_t> cols(16, 4);
  match::ChangeTrim t;
  ASSERT_TRUE(match::change_trim(box, cells, rows.data(), cols.data(), 1, &t));
  EXPECT_EQ(t.r1, 3);
  EXPECT_EQ(t.h, 4);
  EXPECT_EQ(t.pixels, 48);
  ASSERT_TRUE(match::change_trim(box, cells, rows.data(), cols.data(), 1, &t,
                                 match::kChangeEdgeBottom));
  EXPECT_EQ(t.r1, 9);
  EXPECT_EQ(t.h, 10);
  EXPECT_EQ(t.pixels, 57);
  ASSERT_TRUE(match::change_trim(
      box, cells, rows.data(), cols.data(), 1, &t,
      match::kChangeEdgeTop | match::kChangeEdgeLeft | match::kChangeEdgeRight));
  EXPECT_EQ(t.r1, 3);
  rows[7] = 0;
  ASSERT_TRUE(match::change_trim(box, cells, rows.data(), cols.data(), 1, &t,
                                 match::kChangeEdgeBottom));
  EXPECT_EQ(t.r1, 3);
  /* The same at the top edge. */
  std::reverse(rows.begin(), rows.end());
  rows[2] = 1;
  ASSERT_TRUE(match::change_trim(box, cells, rows.data(), cols.data(), 1, &t,
                                 match::kChangeEdgeTop));
  EXPECT_EQ(t.r0, 0);
  EXPECT_EQ(t.y, 0);
}

/* The background (ChangeConfig::background_every = 2): set by the first
 * frame, one grey level towards every second frame after it; a request
 * against it sees an object as far as it differs from what the
 * background has taken of it, exactly. restart_background () sets it
 * anew; a request with motion, or without a background, is refused. */
TEST(ChangeRef, BackgroundRunningMedian) {
  ChangeConfig c;
  c.width = 8;
  c.height = 8;
  c.background_every = 2;
  for (int backend = 0; backend < 2; ++backend) {
    auto d = backend ? make_cpu(c) : match::make_change_ref(c);
    Frame fr = padded(8, 8, 3);
    for (int y = 0; y < 8; ++y)
      for (int x = 0; x < 8; ++x) fr.at(x, y) = 100;
    ASSERT_TRUE(d->push(fr.view(), 0, 1)); /* sets B */
    fr.at(3, 3) = 160;
    for (uint64_t f = 1; f <= 6; ++f) /* B(3, 3): 101, 102, 103 */
      ASSERT_TRUE(d->push(fr.view(), f, 1));
    WholeFrame whole(8, 8, 6);
    ChangeRequest& r = whole.r;
    r.background = true;
    r.age = 0; /* ignored */
    ChangeResult out;
    r.min_threshold = 56; /* |160 - 103| = 57 */
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_EQ(out.offset, 0);
    EXPECT_EQ(changed_cells(out, 8), 1u);
    EXPECT_EQ(out.counts[3], 1u);
    r.min_threshold = 57;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_EQ(changed_cells(out, 8), 0u);
    /* Against the previous frame, as before: the same. */
    r.background = false;
    r.age = 1;
    r.min_threshold = 10;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_EQ(changed_cells(out, 8), 0u);
    r.background = true;
    r.motion[0] = 65536; /* no motion against the background */
    EXPECT_FALSE(d->analyse(r, &out, 1));
    r.motion[0] = 0;
    d->restart_background();
    ASSERT_TRUE(d->push(fr.view(), 7, 1)); /* B = this frame */
    r.frame = 7;
    ASSERT_TRUE(d->analyse(r, &out, 1));
    EXPECT_EQ(changed_cells(out, 8), 0u);
    d->reset();
    EXPECT_FALSE(d->analyse(r, &out, 1));
  }
  c.background_every = 0;
  auto none = match::make_change_ref(c);
  Frame fr = padded(8, 8, 0);
  ASSERT_TRUE(none->push(fr.view(), 0, 1));
  ChangeRequest r;
  r.background = true;
  ChangeResult out;
  EXPECT_FALSE(none->analyse(r, &out, 1));
  c.background_every = 65;
  std::unique_ptr<ChangeDetector> bad;
  EXPECT_FALSE(ChangeDetector::create(match::Backend::kCpu, c, &bad));
}

/* CPU == reference on random frames: odd sizes, padded strides, scales 1 to
 * 4, still and moving (affine) cameras, boxes inside, across and outside
 * the frame, a history of 6 with frames analysed one behind against the
 * previous frame or one up to 4 frames further back. */

/* The CPU's cell means divide by a multiply: exact for every sum a cell
 * of any allowed scale can hold. */
TEST(ChangeCpu, CellDividerIsExact) {
  for (uint32_t n = 1; n <= 16 * 16; ++n) {
    const match::ChangeCellDivider d(n);
    for (uint32_t sum = 0; sum <= n * 255; ++sum)
      ASSERT_EQ(d.mean(sum), (sum + n / 2) / n) << "sum " << sum << ", cell " << n;
  }
}

/* ChangeRequest::departed: over a flat background, an object of 8 x 6
 * cells moving 4 to the right, and four bright "rain" cells in the
 * previous frame only. With the object's own shift, the rain cells count
 * (the flat background a motion back explains them as well as the
 * object); departed, they do not, and everything else counts as before:
 * the object and the band it uncovered (whose content moved on with it).
 * A moving camera or no background since the last restart is refused. */
TEST(ChangeRef, DepartedLeavesOutWhatWentNowhere) {
  ChangeConfig c;
  c.width = 48;
  c.height = 32;
  c.background_every = 4;
  for (int backend = 0; backend < 2; ++backend) {
    auto d = backend ? make_cpu(c) : match::make_change_ref(c);
    const Frame bg = flat(48, 32, 1, 100);
    Frame a = bg, b = bg;
    std::mt19937 rng(5);
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 8; ++x) {
        const uint8_t v = (uint8_t)(170 + rng() % 60);
        a.at(10 + x, 20 + y) = v;
        b.at(14 + x, 20 + y) = v;
      }
    const int rain[4][2] = {{30, 5}, {30, 6}, {40, 10}, {3, 3}};
    for (const auto& p : rain) a.at(p[0], p[1]) = 255;
    ASSERT_TRUE(d->push(bg.view(), 0, 1)); /* sets the background */
    ASSERT_TRUE(d->push(a.view(), 1, 1));
    ASSERT_TRUE(d->push(b.view(), 2, 1));
    WholeFrame whole(48, 32, 2);
    whole.box.explain = true;
    whole.box.shift_x = -4;
    ChangeRequest& r = whole.r;
    ChangeResult plain, departed;
    ASSERT_TRUE(d->analyse(r, &plain, 1));
    r.departed = true;
    ASSERT_TRUE(d->analyse(r, &departed, 1));
    ASSERT_EQ(plain.threshold, 10);
    const uint32_t* pc = plain.counts.data() + 32;
    const uint32_t* dc = departed.counts.data() + 32;
    uint32_t object = 0, band = 0;
    for (int x = 0; x < 48; ++x) {
      const uint32_t rain_here = (x == 30 ? 2u : 0u) + (x == 40 || x == 3 ? 1u : 0u);
      EXPECT_EQ(pc[x], dc[x] + rain_here) << "column " << x;
      if (x >= 14 && x < 22) object += dc[x];
      if (x >= 10 && x < 14) band += dc[x];
    }
    /* Its cells over the background, and over its old place those unlike
     * the object's cell there before; the whole band. */
    EXPECT_GE(object, 24u);
    EXPECT_EQ(band, 24u);
    /* Refused: a moving camera; no background since the restart. */
    r.motion[0] = 65536;
    EXPECT_FALSE(d->analyse(r, &departed, 1));
    r.motion[0] = 0;
    d->restart_background();
    EXPECT_FALSE(d->analyse(r, &departed, 1));
    ASSERT_TRUE(d->push(b.view(), 3, 1));
    r.frame = 3;
    EXPECT_TRUE(d->analyse(r, &departed, 1));
  }
}

/* ChangeRequest::sharp: the camera pans 3 px to the right over a flat
 * scene while a bright object of 10 x 8 cells moves 2 px further. Against
 * the warped previous frame the object's leading and trailing bands are 2
 * columns each; d, the smallest difference over P's 3 x 3 cells, keeps
 * one of each (its neighbour forgives a pixel of the object's motion).
 * All explained by the object's motion. */
TEST(ChangeRef, SharpKeepsTheBandsOfAMovingCamera) {
  ChangeConfig c;
  c.width = 64;
  c.height = 48;
  for (int backend = 0; backend < 2; ++backend) {
    auto d = backend ? make_cpu(c) : match::make_change_ref(c);
    Frame a = flat(64, 48, 2, 100), b = flat(64, 48, 0, 100);
    for (int y = 10; y < 18; ++y)
      for (int x = 0; x < 10; ++x) {
        a.at(20 + x, y) = 250;
        b.at(25 + x, y) = 250;
      }
    ASSERT_TRUE(d->push(a.view(), 1, 1));
    ASSERT_TRUE(d->push(b.view(), 2, 1));
    WholeFrame whole(64, 48, 2);
    whole.box.explain = true;
    whole.box.shift_x = -5; /* its content was 5 px to the left */
    ChangeRequest& r = whole.r;
    r.motion[0] = -3 * 65536; /* P (x) = previous (x - 3) */
    ChangeResult plain, sharp;
    ASSERT_TRUE(d->analyse(r, &plain, 1));
    r.sharp = true;
    ASSERT_TRUE(d->analyse(r, &sharp, 1));
    ASSERT_EQ(plain.threshold, 10);
    ASSERT_EQ(sharp.threshold, 10);
    const uint32_t* pc = plain.counts.data() + 48;
    const uint32_t* sc = sharp.counts.data() + 48;
    for (int x = 0; x < 64; ++x) {
      const bool band = x == 23 || x == 24 || x == 33 || x == 34;
      EXPECT_EQ(sc[x], band ? 8u : 0u) << "column " << x;
      /* The trailing band's column 24 but for its end rows, whose 3 x 3
       * cells reach the scene above and below the object's old place. */
      EXPECT_EQ(pc[x], x == 34 ? 8u : (x == 24 ? 6u : 0u)) << "column " << x;
    }
  }
}

/* CPU == reference on random frames: odd sizes, padded strides, scales 1 to
 * 5, 8 and 16, still and moving (affine) cameras, boxes inside, across and
 * outside the frame, a history of 6 with frames analysed one behind against
 * the previous frame or one up to 4 frames further back; with the best row
 * loops of this CPU (AVX2 where it has it) and with the baseline's. */
TEST(ChangeCpu, EqualsReference) {
  std::mt19937 rng(3);
  int gained = 0; /* analyses that took a gain */
  const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {161, 97}, {320, 241}};
  for (const char* isa : {static_cast<const char*>(nullptr), "sse2"})
    for (const auto& sz : sizes)
      for (int scale : {1, 2, 3, 4, 5, 8, 16})
        for (int threads : {1, 2, 3}) {
          ChangeConfig c;
          c.width = sz[0];
          c.height = sz[1];
          c.scale = scale;
          c.history = 6;
          c.background_every = (scale + threads) % 4; /* 0 (none) to 3 */
          auto ref = match::make_change_ref(c);
          IsaGuard guard(isa); /* the stage picks its loops when made */
          auto cpu = make_cpu(c);
          ASSERT_TRUE(cpu);
          for (uint64_t f = 0; f < 9; ++f) {
            Frame fr = padded(c.width, c.height, (int)(rng() % 9));
            for (int y = 0; y < c.height; ++y)
              for (int x = 0; x < c.width; ++x)
                fr.at(x, y) = (uint8_t)((x * 7 + y * 3 + f * 5) % 200 + rng() % 40);
            changetest::apply_gain(&fr.data, f);
            if (f == 5) { /* the camera moved */
              ref->restart_background();
              cpu->restart_background();
            }
            ASSERT_TRUE(ref->push(fr.view(), 10 + f, 1));
            ASSERT_TRUE(cpu->push(fr.view(), 10 + f, threads));
            if (f < 2) continue;
            const changetest::SceneStep step = changetest::random_scene_step(rng, f == 2);
            ASSERT_TRUE(ref->scene(10 + f, step.motion, step.set, 1));
            ASSERT_TRUE(cpu->scene(10 + f, step.motion, step.set, threads));
            std::vector<ChangeBox> boxes;
            std::vector<match::ChangeTile> tiles;
            /* One frame pushed ahead. */
            const uint32_t age = 1 + (uint32_t)(rng() % std::min<uint64_t>(f - 1, 4));
            const ChangeRequest r = changetest::using_scene(
                rng, changetest::using_background(
                         rng, c,
                         changetest::random_request(rng, c, 10 + f - 1, f % 2, 4, &boxes,
                                                    age, &tiles)));
            ChangeResult a, b;
            ASSERT_TRUE(ref->analyse(r, &a, 1));
            ASSERT_TRUE(cpu->analyse(r, &b, threads));
            gained += a.gain != 256;
            changetest::expect_same_result(
                a, b,
                std::to_string(c.width) + "x" + std::to_string(c.height) + " scale " +
                    std::to_string(scale) + " age " + std::to_string(age) + " isa " +
                    (isa ? isa : "best"));
            std::vector<ChangeBox> more_a, more_b;
            for (const ChangeRequest& again :
                 changetest::repeat_requests(rng, c, r, &more_a, &more_b)) {
              ASSERT_TRUE(ref->analyse(again, &a, 1));
              ASSERT_TRUE(cpu->analyse(again, &b, threads));
              changetest::expect_same_result(a, b, "asked again");
            }
          }
        }
  EXPECT_GT(gained, 40);
}

TEST(ChangeCpu, BadInput) {
  ChangeConfig c;
  std::unique_ptr<ChangeDetector> d;
  EXPECT_FALSE(ChangeDetector::create(match::Backend::kCpu, c, &d));
  c.width = 8;
  c.height = 8;
  c.scale = 17;
  EXPECT_FALSE(ChangeDetector::create(match::Backend::kCpu, c, &d));
  c.scale = 1;
  auto cpu = make_cpu(c);
  Frame small = padded(4, 8, 0);
  EXPECT_FALSE(cpu->push(small.view(), 0, 1));
  Frame ok = padded(8, 8, 0);
  EXPECT_TRUE(cpu->push(ok.view(), 5, 1));
  EXPECT_FALSE(cpu->push(ok.view(), 5, 1)); /* not after 5 */
  ChangeRequest r;
  r.frame = 5;
  ChangeResult out;
  EXPECT_FALSE(cpu->analyse(r, &out, 1)); /* no frame 4 */
  EXPECT_TRUE(cpu->push(ok.view(), 6, 1));
  r.frame = 6;
  EXPECT_TRUE(cpu->analyse(r, &out, 1));
  r.age = 0; /* not itself */
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  r.age = 2; /* frame 4 */
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  r.age = 7; /* before frame 0 */
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  r.age = 1;
  r.tile_width = 3; /* and no height */
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  EXPECT_FALSE(match::make_change_ref(c)->analyse(r, &out, 1));
  r.tile_height = match::kChangeMaxTile + 1;
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  r.tile_height = 3;
  EXPECT_TRUE(cpu->analyse(r, &out, 1));
  EXPECT_EQ(out.tiles.size(), 9u);
  match::ChangeTile listed; /* of 3 x 3 tiles */
  listed.index = 9;
  r.tiles = &listed;
  r.n_tiles = 1;
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  listed.index = -1;
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  listed.index = 8;
  EXPECT_TRUE(cpu->analyse(r, &out, 1));
  EXPECT_EQ(out.tiles.size(), 1u);
  r.tiles = nullptr; /* a count without a list */
  EXPECT_FALSE(cpu->analyse(r, &out, 1));
  r.n_tiles = 0;
  /* Prefetching does nothing here, and takes no boxes or list. */
  EXPECT_TRUE(cpu->prefetch(r));
  ChangeBox box;
  r.boxes = &box;
  r.n_boxes = 1;
  EXPECT_EQ(cpu->prefetch(r).code(), match::StatusCode::kUnsupported);
  r.boxes = nullptr;
  r.n_boxes = 0;
  r.tile_width = r.tile_height = 0;
  c.history = 129;
  EXPECT_FALSE(ChangeDetector::create(match::Backend::kCpu, c, &d));
  cpu->reset();
  EXPECT_TRUE(cpu->push(ok.view(), 0, 1));
}

TEST(ChangeScale, ForSizes) {
  EXPECT_EQ(match::change_scale_for(320, 240), 1);
  EXPECT_EQ(match::change_scale_for(640, 480), 2);
  EXPECT_EQ(match::change_scale_for(1920, 1080), 4);
}

}  // namespace
