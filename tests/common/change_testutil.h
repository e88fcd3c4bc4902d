/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * What the change stage's backend tests share (test_change.cpp,
 * test_change_cuda.cpp): a random request (boxes and tiles) and the
 * comparison of two results, every field.
 */
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "match/change.h"

namespace changetest {

/* A request for frame `frame` against frame - age: a still camera, or
 * (moving) a random affine motion of up to about 3 pixels; a random floor
 * threshold; sharp or not; n_boxes boxes inside, across and outside the
 * frame, kept in *boxes; tiles of a random size now and then, all of them
 * or some listed (kept in *tiles, when given) with random explain and
 * shifts, and their extents and light sums now and then. */
inline match::ChangeRequest random_request(
    std::mt19937& rng, const match::ChangeConfig& c, uint64_t frame, bool moving,
    int n_boxes, std::vector<match::ChangeBox>* boxes, uint32_t age = 1,
    std::vector<match::ChangeTile>* tiles = nullptr) {
  match::ChangeRequest r;
  r.frame = frame;
  r.age = age;
  if (moving) {
    for (int k = 0; k < 6; ++k) r.motion[k] = (int64_t)(rng() % 400001) - 200000;
    for (int k : {1, 2, 4, 5}) r.motion[k] /= 64;
  }
  r.min_threshold = (int)(rng() % 20);
  r.sharp = rng() % 2;
  boxes->clear();
  for (int k = 0; k < n_boxes; ++k) {
    match::ChangeBox b;
    b.x = (int)(rng() % (c.width + 8)) - 4;
    b.y = (int)(rng() % (c.height + 8)) - 4;
    b.w = (int)(rng() % (c.width + 1));
    b.h = (int)(rng() % (c.height + 1));
    /* Every other box counts only what its motion explains: shifts of a
     * few cells, now and then far outside the image (clamped). */
    b.explain = k % 2 == 1;
    const int reach = rng() % 5 == 0 ? 60 : 6;
    b.shift_x = (int)(rng() % (2 * reach + 1)) - reach;
    b.shift_y = (int)(rng() % (2 * reach + 1)) - reach;
    boxes->push_back(b);
  }
  r.boxes = boxes->data();
  r.n_boxes = n_boxes;
  /* Tiles now and then: a field's blocks, odd ones, the largest. */
  switch (rng() % 4) {
    case 1:
      r.tile_width = r.tile_height = 16;
      break;
    case 2:
      r.tile_width = 1 + (int)(rng() % 40);
      r.tile_height = 1 + (int)(rng() % 40);
      break;
    case 3:
      r.tile_width = match::kChangeMaxTile;
      r.tile_height = 1 + (int)(rng() % match::kChangeMaxTile);
      break;
  }
  if (tiles && r.tile_width > 0 && rng() % 2) {
    const int n = ((c.width + r.tile_width - 1) / r.tile_width) *
                  ((c.height + r.tile_height - 1) / r.tile_height);
    tiles->clear();
    for (int k = (int)(rng() % 40); k > 0; --k) {
      match::ChangeTile t;
      t.index = (int)(rng() % n);
      t.explain = rng() % 2;
      const int reach = rng() % 5 == 0 ? 60 : 6;
      t.shift_x = (int)(rng() % (2 * reach + 1)) - reach;
      t.shift_y = (int)(rng() % (2 * reach + 1)) - reach;
      tiles->push_back(t);
    }
    r.tiles = tiles->data();
    r.n_tiles = (int)tiles->size();
    /* Their extents, now and then, within up to the most cells around;
     * their light sums, every other time. */
    if (r.tiles && rng() % 3)
      r.extent_reach = (int)(rng() % (match::kChangeMaxReach + 1));
    r.light = r.tiles && rng() % 2;
  }
  return r;
}

/* `r`, or now and then (when the stage keeps a background) the same
 * against the background, without motion, or (a still camera) with its
 * departed cells left out (ChangeRequest::departed). */
inline match::ChangeRequest using_background(std::mt19937& rng,
                                             const match::ChangeConfig& c,
                                             match::ChangeRequest r) {
  if (c.background_every <= 0) return r;
  switch (rng() % 3) {
    case 0:
      r.background = true;
      std::fill(r.motion, r.motion + 6, 0);
      break;
    case 1:
      r.departed = std::all_of(r.motion, r.motion + 6, [](int64_t m) { return m == 0; });
      break;
  }
  return r;
}

/* A scene () call's arguments: set (the first time, and now and then
 * anew) or moved; an affine motion of up to about 3 pixels, now and then
 * 40 (most cells taken outside the image). */
struct SceneStep {
  int64_t motion[6] = {0, 0, 0, 0, 0, 0};
  bool set = false;
};
inline SceneStep random_scene_step(std::mt19937& rng, bool first) {
  SceneStep s;
  s.set = first || rng() % 5 == 0;
  const int64_t reach = rng() % 6 == 0 ? 40 * 65536 : 3 * 65536;
  for (int k = 0; k < 6; ++k) s.motion[k] = (int64_t)(rng() % (2 * reach + 1)) - reach;
  for (int k : {1, 2, 4, 5}) s.motion[k] /= 64 * (reach / 65536);
  return s;
}

/* `r`, or now and then the same against the scene image (its motion kept:
 * where each cell lies in the scene). */
inline match::ChangeRequest using_scene(std::mt19937& rng, match::ChangeRequest r) {
  if (rng() % 3 == 0) {
    r.scene = true;
    r.background = r.departed = false;
  }
  return r;
}

/* Variations of `r` for a backend's kept difference image: the same
 * frames, motion and floor with other boxes (kept), then another floor
 * (computed anew); for an age above 1, then the previous frame instead
 * (computed anew) and `r`'s frames again (anew: one image is kept). */
inline std::vector<match::ChangeRequest> repeat_requests(
    std::mt19937& rng, const match::ChangeConfig& c, const match::ChangeRequest& r,
    std::vector<match::ChangeBox>* boxes_a, std::vector<match::ChangeBox>* boxes_b) {
  match::ChangeRequest other = random_request(rng, c, r.frame, false, 7, boxes_a);
  match::ChangeRequest same = r;
  same.boxes = other.boxes;
  same.n_boxes = other.n_boxes;
  match::ChangeRequest floor = random_request(rng, c, r.frame, false, 3, boxes_b, r.age);
  std::copy(r.motion, r.motion + 6, floor.motion);
  floor.min_threshold = r.min_threshold + 7;
  if (r.age <= 1) return {same, floor};
  match::ChangeRequest previous = floor;
  previous.age = 1;
  return {same, floor, previous, same};
}

/* A camera's gain on frame f's pixels (row-major bytes, strides and
 * all): every third frame a gain of 0.8 to 1.3, so that analyses meet
 * gains both taken and left to the offset. */
inline void apply_gain(std::vector<uint8_t>* pixels, uint64_t f) {
  if (f % 3 != 1) return;
  const int g = 205 + (int)(f * 37 % 128); /* x 256 */
  for (uint8_t& v : *pixels) v = (uint8_t)std::min(255, (v * g + 128) >> 8);
}

inline void expect_same_result(const match::ChangeResult& a, const match::ChangeResult& b,
                               const std::string& what) {
  ASSERT_EQ(a.gain, b.gain) << what;
  ASSERT_EQ(a.offset, b.offset) << what;
  ASSERT_EQ(a.noise, b.noise) << what;
  ASSERT_EQ(a.threshold, b.threshold) << what;
  ASSERT_EQ(a.counts, b.counts) << what;
  ASSERT_EQ(a.tiles, b.tiles) << what;
  ASSERT_EQ(a.extents, b.extents) << what;
  ASSERT_TRUE(a.light == b.light) << what << ": light sums differ";
  ASSERT_EQ(a.boxes.size(), b.boxes.size()) << what;
  for (size_t k = 0; k < a.boxes.size(); ++k) {
    ASSERT_EQ(a.boxes[k].x0, b.boxes[k].x0) << what;
    ASSERT_EQ(a.boxes[k].y0, b.boxes[k].y0) << what;
    ASSERT_EQ(a.boxes[k].cols, b.boxes[k].cols) << what;
    ASSERT_EQ(a.boxes[k].rows, b.boxes[k].rows) << what;
    ASSERT_EQ(a.boxes[k].offset, b.boxes[k].offset) << what;
  }
}

}  // namespace changetest
