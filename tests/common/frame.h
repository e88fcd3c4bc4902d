/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * A test image with a chosen stride (the padding holds garbage on purpose)
 * and uniform noise, shared by the kernel tests.
 */
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "match/image.h"

struct Frame {
  int w = 0, h = 0, stride = 0;
  std::vector<uint8_t> data;
  match::ImageView view() const { return match::ImageView{data.data(), w, h, stride}; }
  uint8_t& at(int x, int y) { return data[(size_t)y * stride + x]; }
  uint8_t at(int x, int y) const { return data[(size_t)y * stride + x]; }
};

/* Every byte, padding included, uniformly random. */
inline Frame make_noise_frame(int w, int h, int stride, unsigned seed) {
  Frame f;
  f.w = w;
  f.h = h;
  f.stride = stride;
  f.data.resize((size_t)stride * h);
  std::mt19937 rng(seed);
  for (auto& p : f.data) p = rng() & 0xff;
  return f;
}

/* Mean of n's 3x3 pixels at (x..x+2, y..y+2): smooth texture from noise. */
inline int box3_mean(const Frame& n, int x, int y) {
  int s = 0;
  for (int j = 0; j < 3; ++j)
    for (int i = 0; i < 3; ++i) s += n.at(x + i, y + j);
  return s / 9;
}
