/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Helpers shared by the stereo kernel tests (test_stereo.cpp, CPU vs
 * reference; test_stereo_cuda.cpp, CUDA and its emulation vs reference).
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "frame.h"
#include "match/stereo.h"

/* A 16-bit map with a row stride in pixels; the padding holds a sentinel so
 * that writes outside the image are caught. */
constexpr uint16_t kStereoPad = 0xBEEF;

struct DisparityMap {
  int w = 0, h = 0, stride = 0; /* stride in pixels */
  std::vector<uint16_t> data;
  DisparityMap() = default;
  DisparityMap(int w_, int h_, int stride_)
      : w(w_),
        h(h_),
        stride(stride_),
        data(static_cast<size_t>(stride_) * h_, kStereoPad) {}
  match::DisparityView view() {
    return match::DisparityView{data.data(), w, h,
                                static_cast<std::ptrdiff_t>(stride) * 2};
  }
  uint16_t at(int x, int y) const { return data[(size_t)y * stride + x]; }
};

inline match::StereoRuntime make_stereo_runtime(bool subpixel, int lr, int uniq, int tex,
                                                int threads = 0) {
  match::StereoRuntime rt;
  rt.subpixel = subpixel;
  rt.lr_max_diff = lr;
  rt.uniqueness_ratio = uniq;
  rt.texture_threshold = tex;
  rt.threads = threads;
  return rt;
}

/* The right view of `left`: each row sees left(x + d, y) (clamped) at x,
 * with d piecewise constant in [dlo, dhi] (bands of 5..21 columns, a new
 * draw per band), plus uniform noise in [-noise, noise]: real matches,
 * occlusions and ties. */
inline void synthesise_right_view(const Frame& left, int dlo, int dhi, int noise,
                                  std::mt19937* rng, Frame* right) {
  const int w = left.w, h = left.h, span = dhi - dlo + 1;
  for (int y = 0; y < h; ++y) {
    const int band = 5 + static_cast<int>((*rng)() % 17);
    int d = dlo + static_cast<int>((*rng)() % span);
    for (int x = 0; x < w; ++x) {
      if (x % band == 0) d = dlo + static_cast<int>((*rng)() % span);
      const int xs = std::min(std::max(x + d, 0), w - 1);
      int v = left.at(xs, y);
      if (noise > 0) v += static_cast<int>((*rng)() % (2 * noise + 1)) - noise;
      right->at(x, y) = static_cast<uint8_t>(std::min(std::max(v, 0), 255));
    }
  }
}
