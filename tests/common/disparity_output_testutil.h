/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Helpers shared by the disparity output conversion tests
 * (test_disparity_output.cpp: reference vs CPU; test_disparity_output_cuda.cpp:
 * the CUDA kernel and its emulation vs CPU): random maps with invalid and 0
 * values, output buffers with padded rows holding a sentinel, and the params
 * every test runs.
 */
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "match/disparity_output.h"
#include "match/stereo.h"

/* The padding of every output row (caught if written). */
constexpr uint8_t kOutputPad = 0xCD;

/* A 16-bit map with a row stride in pixels (padding filled with a value
 * that must not be read into the output: any write of it would differ). */
struct InputMap {
  int w = 0, h = 0, stride = 0;
  std::vector<uint16_t> data;
  InputMap(int w_, int h_, int stride_)
      : w(w_), h(h_), stride(stride_), data(static_cast<size_t>(stride_) * h_, 0x1234) {}
  uint16_t& at(int x, int y) { return data[static_cast<size_t>(y) * stride + x]; }
  match::ConstDisparityView view() const {
    return match::ConstDisparityView(data.data(), w, h,
                                     static_cast<std::ptrdiff_t>(stride) * 2);
  }
};

/* Values as a matcher gives them and the corners of every formula: about a
 * quarter invalid, some 0, most in the sixteenths of [0, max_disp], the rest
 * anywhere in 1..65534. */
inline InputMap make_random_map(int w, int h, int stride, int max_disp, unsigned seed) {
  InputMap m(w, h, stride);
  std::mt19937 rng(seed);
  const uint32_t top = static_cast<uint32_t>(max_disp) * 16 + 8;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint32_t r = rng() % 100;
      uint16_t v;
      if (r < 25)
        v = match::kInvalidDisparity;
      else if (r < 30)
        v = 0;
      else if (r < 35)
        v = static_cast<uint16_t>(1 + rng() % 16);
      else if (r < 85)
        v = static_cast<uint16_t>(rng() % (top + 1));
      else
        v = static_cast<uint16_t>(1 + rng() % 65534);
      m.at(x, y) = v;
    }
  return m;
}

/* Every 16-bit value once, 256 x 256. */
inline InputMap make_every_value_map() {
  InputMap m(256, 256, 256);
  for (int v = 0; v < 65536; ++v) m.data[v] = static_cast<uint16_t>(v);
  return m;
}

/* An output of the mode's pixels with `pad` extra bytes per row. */
struct OutputBuffer {
  int w = 0, h = 0, bpp = 0;
  std::ptrdiff_t stride = 0;
  std::vector<uint8_t> data;
  OutputBuffer(int w_, int h_, match::DisparityOutputMode mode, int pad)
      : w(w_),
        h(h_),
        bpp(match::disparity_output_bytes_per_pixel(mode)),
        stride(static_cast<std::ptrdiff_t>(w_) * bpp + pad),
        data(static_cast<size_t>(stride) * h_, kOutputPad) {}
  match::DisparityOutputView view() {
    return match::DisparityOutputView{data.data(), w, h, stride};
  }
  /* Padding bytes that are no longer the sentinel. */
  int padding_written() const {
    int n = 0;
    for (int y = 0; y < h; ++y)
      for (std::ptrdiff_t x = static_cast<std::ptrdiff_t>(w) * bpp; x < stride; ++x)
        n += data[static_cast<size_t>(y * stride + x)] != kOutputPad;
    return n;
  }
};

inline match::DisparityOutputParams output_params(match::DisparityOutputMode mode,
                                                  int dmin = 0, int n = 64,
                                                  double scale = 1.0, double focal = 0.0,
                                                  double baseline = 0.0) {
  match::DisparityOutputParams p;
  p.mode = mode;
  p.min_disparity = dmin;
  p.num_disparities = n;
  p.gray8_scale = scale;
  p.focal_length = focal;
  p.baseline = baseline;
  return p;
}

inline const char* mode_name(match::DisparityOutputMode m) {
  switch (m) {
    case match::DisparityOutputMode::kDisparity:
      return "disparity";
    case match::DisparityOutputMode::kGray8:
      return "gray8";
    case match::DisparityOutputMode::kColor:
      return "color";
    case match::DisparityOutputMode::kDepth:
      return "depth";
  }
  return "?";
}

inline std::string describe_params(const match::DisparityOutputParams& p) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%s (min %d, n %d, scale %g, f %g, B %g)",
                mode_name(p.mode), p.min_disparity, p.num_disparities, p.gray8_scale,
                p.focal_length, p.baseline);
  return buf;
}

/* Several params of every mode, the element's defaults and corners
 * included. */
inline std::vector<match::DisparityOutputParams> all_output_params() {
  using M = match::DisparityOutputMode;
  return {
      output_params(M::kDisparity),
      output_params(M::kGray8, 0, 64, 1.0),
      output_params(M::kGray8, 0, 64, 4.0),
      output_params(M::kGray8, 0, 64, 3.98),
      output_params(M::kGray8, 0, 64, 0.37),
      output_params(M::kGray8, 0, 64, 0.0),
      output_params(M::kGray8, 0, 64, 255.0),
      output_params(M::kColor, 0, 64),
      output_params(M::kColor, 2, 14),
      output_params(M::kColor, 0, 1),
      output_params(M::kColor, 17, 200),
      output_params(M::kColor, 1024, 256),
      output_params(M::kDepth, 0, 64, 1.0, 700.0, 160.0),
      output_params(M::kDepth, 0, 64, 1.0, 1400.0, 120.0),
      output_params(M::kDepth, 0, 64, 1.0, 3.3, 1.0),
      output_params(M::kDepth, 0, 64, 1.0, 0.001, 0.5),
      output_params(M::kDepth, 0, 64, 1.0, 1e6, 1e6),
  };
}

/* Pixels of `got` that differ from `want` (the whole rows; the padding must
 * be the sentinel in both), the first few printed. */
inline int count_output_mismatches(const OutputBuffer& got, const OutputBuffer& want,
                                   const std::string& what) {
  int bad = 0;
  for (int y = 0; y < want.h; ++y)
    for (int x = 0; x < want.w; ++x) {
      const size_t o =
          static_cast<size_t>(y * want.stride) + static_cast<size_t>(x) * want.bpp;
      const size_t g =
          static_cast<size_t>(y * got.stride) + static_cast<size_t>(x) * got.bpp;
      bool same = true;
      for (int b = 0; b < want.bpp; ++b)
        same = same && got.data[g + b] == want.data[o + b];
      if (!same) {
        if (bad < 5)
          ADD_FAILURE() << what << ": (" << x << "," << y << ") byte 0 got "
                        << int(got.data[g]) << " want " << int(want.data[o]);
        ++bad;
      }
    }
  EXPECT_EQ(got.padding_written(), 0) << what << ": padding written";
  EXPECT_EQ(want.padding_written(), 0) << what << ": padding written (want)";
  return bad;
}
