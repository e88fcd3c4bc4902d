/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Clipped x-Sobel and census images (cpu/stereo_census_cpu.h). Both work
 * on rows widened by their clamped borders, so the inner loops over x have
 * no clamps and vectorise: the Sobel as a vertical [1 2 1] sum then a
 * horizontal difference; the census one window offset (i, j) at a time,
 * OR-ing bit k of the whole row.
 */
#include "stereo_census_cpu.h"

#include <algorithm>
#include <cstring>

#include "internal.h"

namespace match {
namespace cpu {

namespace {

int clampi(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }

/* dst[t] = row[cl(t - border)] for t in [0, w + 2 border). */
void widen_row(const uint8_t* row, int w, int border, uint8_t* dst) {
  std::memset(dst, row[0], border);
  std::memcpy(dst + border, row, w);
  std::memset(dst + border + w, row[w - 1], border);
}

template <typename P>
void census_row(const ImageView& img, int y, int cw, int ch, P* dst) {
  const int w = img.width, hw = (cw - 1) / 2, hh = (ch - 1) / 2;
  /* Rows of at most kMaxFrameSize + 2 x 31 pixels, on the stack. */
  uint8_t wide[kMaxFrameSize + 64];
  const uint8_t* centre = img.row(y);
  std::fill(dst, dst + w, P(0));
  int k = 0;
  for (int j = -hh; j <= hh; ++j) {
    widen_row(img.row(clampi(y + j, 0, img.height - 1)), w, hw, wide);
    for (int i = -hw; i <= hw; ++i) {
      if (i == 0 && j == 0) continue;
      const uint8_t* __restrict q = wide + hw + i;
      for (int x = 0; x < w; ++x)
        dst[x] |= static_cast<P>(q[x] < centre[x]) << k;
      ++k;
    }
  }
}

}  // namespace

void stereo_sobel_row(const ImageView& img, int y, uint8_t* dst) {
  const int w = img.width;
  const uint8_t* a = img.row(clampi(y - 1, 0, img.height - 1));
  const uint8_t* b = img.row(y);
  const uint8_t* c = img.row(clampi(y + 1, 0, img.height - 1));
  /* v[t] = column [1 2 1] sum at x = t - 1, clamped. */
  int16_t v[kMaxFrameSize + 2];
  for (int x = 0; x < w; ++x)
    v[x + 1] = static_cast<int16_t>(a[x] + 2 * b[x] + c[x]);
  v[0] = v[1];
  v[w + 1] = v[w];
  for (int x = 0; x < w; ++x) {
    const int gx = v[x + 2] - v[x];
    dst[x] = static_cast<uint8_t>(std::min(62, std::max(0, gx + 31)));
  }
}

void stereo_census_row(const ImageView& img, int y, int census_width,
                       int census_height, bool bits64, void* dst) {
  if (bits64)
    census_row(img, y, census_width, census_height,
               static_cast<uint64_t*>(dst));
  else
    census_row(img, y, census_width, census_height,
               static_cast<uint32_t*>(dst));
}

void StereoPixelImages::allocate(const StereoConfig& c) {
  c_ = c;
  bytes_ = c.cost == StereoCost::kCensus
               ? (c.census_width * c.census_height - 1 > 32 ? 8 : 4)
               : 1;
  if (c.cost == StereoCost::kSad) return;
  /* Rows padded to 8 bytes, so every census row is aligned. */
  const size_t stride = (static_cast<size_t>(c.width) * bytes_ + 7) / 8 * 8;
  for (int i = 0; i < 2; ++i) {
    buf_[i].assign(stride / 8 * c.height, 0);
    view_[i] = ImageView{reinterpret_cast<const uint8_t*>(buf_[i].data()),
                         c.width, c.height,
                         static_cast<std::ptrdiff_t>(stride)};
  }
}

void StereoPixelImages::compute(const ImageView& ref, const ImageView& oth,
                                int threads) {
  if (c_.cost == StereoCost::kSad) {
    view_[0] = ref;
    view_[1] = oth;
    return;
  }
  const int h = c_.height;
  const bool census = c_.cost == StereoCost::kCensus;
  MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads > 1))
  for (int t = 0; t < 2 * h; ++t) {
    const int i = t / h, y = t % h;
    const ImageView& src = i == 0 ? ref : oth;
    uint8_t* row = reinterpret_cast<uint8_t*>(buf_[i].data()) +
                   static_cast<size_t>(y) * view_[i].stride_bytes;
    if (census)
      stereo_census_row(src, y, c_.census_width, c_.census_height,
                        bytes_ == 8, row);
    else
      stereo_sobel_row(src, y, row);
  }
}

}  // namespace cpu
}  // namespace match
