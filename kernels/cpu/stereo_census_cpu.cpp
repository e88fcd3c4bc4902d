/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Clipped x-Sobel and census images (cpu/stereo_census_cpu.h). Both work
 * on rows widened by their clamped borders, so the inner loops over x have
 * no clamps and vectorise: the Sobel as a vertical [1 2 1] sum then a
 * horizontal difference; the census one window offset (i, j) at a time,
 * setting bit k of the whole row in a byte plane.
 */
#include "stereo_census_cpu.h"

#include <algorithm>
#include <cstring>

#include "internal.h"

namespace match {
namespace cpu {

namespace {

int clampi(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }

/* dst[t] = row[cl(start + t)] for t in [0, len). */
void clamped_copy(const uint8_t* row, int w, int start, int len, uint8_t* dst) {
  const int t0 = std::min(len, std::max(0, -start));
  const int t1 = std::max(t0, std::min(len, w - start));
  std::memset(dst, row[0], t0);
  std::memcpy(dst + t0, row + start + t0, t1 - t0);
  std::memset(dst + t1, row[w - 1], len - t1);
}

/* The census strings of row y, kChunk pixels at a time: bit k of every
 * pixel is set in byte plane k / 8 (32 pixels per AVX2 compare), and the
 * planes are then put together as the bytes of each string (bit k of the
 * string is bit k % 8 of byte k / 8). */
template <typename P>
void census_row(const ImageView& img, int y, int cw, int ch, P* dst) {
  constexpr int kChunk = 1024;
  constexpr int kPlanes = static_cast<int>(sizeof(P));
  const int w = img.width, hw = (cw - 1) / 2, hh = (ch - 1) / 2;
  /* A census side is at most kMaxCensusBits + 1 (65x1). */
  uint8_t wide[kChunk + kMaxCensusBits + 1];
  uint8_t planes[kPlanes][kChunk];
  for (int x0 = 0; x0 < w; x0 += kChunk) {
    const int xn = std::min(kChunk, w - x0);
    const uint8_t* __restrict centre = img.row(y) + x0;
    std::memset(planes, 0, sizeof planes);
    int k = 0;
    for (int j = -hh; j <= hh; ++j) {
      clamped_copy(img.row(clampi(y + j, 0, img.height - 1)), w, x0 - hw, xn + 2 * hw,
                   wide);
      for (int i = -hw; i <= hw; ++i) {
        if (i == 0 && j == 0) continue;
        const uint8_t* __restrict q = wide + hw + i;
        uint8_t* __restrict plane = planes[k >> 3];
        const uint8_t bit = static_cast<uint8_t>(1u << (k & 7));
        for (int x = 0; x < xn; ++x)
          plane[x] = static_cast<uint8_t>(plane[x] | (q[x] < centre[x] ? bit : 0));
        ++k;
      }
    }
    for (int x = 0; x < xn; ++x) {
      P v = 0;
      for (int g = 0; g < kPlanes; ++g) v |= static_cast<P>(planes[g][x]) << (8 * g);
      dst[x0 + x] = v;
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
  for (int x = 0; x < w; ++x) v[x + 1] = static_cast<int16_t>(a[x] + 2 * b[x] + c[x]);
  v[0] = v[1];
  v[w + 1] = v[w];
  for (int x = 0; x < w; ++x) {
    const int gx = v[x + 2] - v[x];
    dst[x] = static_cast<uint8_t>(std::min(62, std::max(0, gx + 31)));
  }
}

void stereo_census_row(const ImageView& img, int y, int census_width, int census_height,
                       bool bits64, void* dst) {
  if (bits64)
    census_row(img, y, census_width, census_height, static_cast<uint64_t*>(dst));
  else
    census_row(img, y, census_width, census_height, static_cast<uint32_t*>(dst));
}

void StereoPixelImages::allocate(const StereoConfig& c) {
  c_ = c;
  bytes_ = stereo_cost_uses_census(c.cost)
               ? (c.census_width * c.census_height - 1 > 32 ? 8 : 4)
               : 1;
  if (c.cost == StereoCost::kSad) return;
  /* Rows padded to 8 bytes, so every census row is aligned. */
  const size_t stride = (static_cast<size_t>(c.width) * bytes_ + 7) / 8 * 8;
  for (int i = 0; i < 2; ++i) {
    buf_[i].assign(stride / 8 * c.height, 0);
    view_[i] = ImageView{reinterpret_cast<const uint8_t*>(buf_[i].data()), c.width,
                         c.height, static_cast<std::ptrdiff_t>(stride)};
  }
}

void StereoPixelImages::compute(const ImageView& ref, const ImageView& oth, int threads) {
  if (c_.cost == StereoCost::kSad) {
    view_[0] = ref;
    view_[1] = oth;
    return;
  }
  const int h = c_.height;
  const bool census = stereo_cost_uses_census(c_.cost);
  MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads > 1))
  for (int t = 0; t < 2 * h; ++t) {
    const int i = t / h, y = t % h;
    const ImageView& src = i == 0 ? ref : oth;
    uint8_t* row = reinterpret_cast<uint8_t*>(buf_[i].data()) +
                   static_cast<size_t>(y) * view_[i].stride_bytes;
    if (census)
      stereo_census_row(src, y, c_.census_width, c_.census_height, bytes_ == 8, row);
    else
      stereo_sobel_row(src, y, row);
  }
}

}  // namespace cpu
}  // namespace match
