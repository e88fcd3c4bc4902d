/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Plain reference of SAD block-matching stereo (match/stereo.h gives every
 * definition; ../shared/docs/algorithms.md section 3). Each cost is summed
 * directly from the definition, pixel by pixel with clamped reads, and the
 * other view's disparity map for the left-right check is computed on its
 * own from its own costs. No rolling sums, no threads, no attempt at speed:
 * the CPU and CUDA backends are tested against it.
 */
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "internal.h"
#include "match/stereo.h"

namespace match {
namespace ref {

namespace {

int clampi(int v, int lo, int hi) { return std::min(std::max(v, lo), hi); }

/* Pixel of `img` with clamp-to-edge. */
int px(const ImageView& img, int x, int y) {
  return img.at(clampi(x, 0, img.width - 1), clampi(y, 0, img.height - 1));
}

/* C(x, y, d) with `ref` as the reference view: the other view is sampled at
 * x + i + sign * d (sign -1 for the left reference, +1 for the right). */
int64_t cost(const ImageView& ref, const ImageView& oth, int sign, int x,
             int y, int d, int hw, int hh) {
  int64_t sum = 0;
  for (int j = -hh; j <= hh; ++j)
    for (int i = -hw; i <= hw; ++i)
      sum += std::abs(px(ref, x + i, y + j) - px(oth, x + i + sign * d, y + j));
  return sum;
}

/* floor(a / b) for b > 0. */
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}

}  // namespace

Status stereo_match(const ImageView& left, const ImageView& right,
                    const StereoConfig& config, const StereoRuntime& rt,
                    const DisparityView& out) {
  Status st = config.validate();
  if (!st) return st;
  if (!(st = check_stereo_frame(config, left, right, rt, out))) return st;
  const int w = config.width, h = config.height;

  const bool left_ref = config.reference == StereoReference::kLeft;
  const ImageView& ref = left_ref ? left : right;
  const ImageView& oth = left_ref ? right : left;
  const int sign = left_ref ? -1 : 1;
  const int hw = (config.window_width - 1) / 2;
  const int hh = (config.window_height - 1) / 2;
  const int dmin = config.min_disparity, n = config.num_disparities;

  std::vector<int64_t> c(n);
  std::vector<int> other_d(w);
  for (int y = 0; y < h; ++y) {
    /* The other view's integer WTA map D' of this row, from its own costs
     * (the other view as reference, the partner direction reversed). */
    if (rt.lr_max_diff >= 0) {
      for (int x = 0; x < w; ++x) {
        int64_t best = -1;
        int best_d = dmin;
        for (int k = 0; k < n; ++k) {
          const int64_t ck =
              cost(oth, ref, -sign, x, y, dmin + k, hw, hh);
          if (best < 0 || ck < best) best = ck, best_d = dmin + k;
        }
        other_d[x] = best_d;
      }
    }
    uint16_t* o = out.row(y);
    for (int x = 0; x < w; ++x) {
      for (int k = 0; k < n; ++k)
        c[k] = cost(ref, oth, sign, x, y, dmin + k, hw, hh);
      int kb = 0;
      for (int k = 1; k < n; ++k)
        if (c[k] < c[kb]) kb = k; /* strict: ties keep the smallest d */
      const int d = dmin + kb;

      int frac = 0;
      if (rt.subpixel && kb > 0 && kb < n - 1) {
        const int64_t c0 = c[kb], cm = c[kb - 1], cp = c[kb + 1];
        const int64_t den = cm + cp - 2 * c0;
        if (den > 0) {
          const int64_t num = 16 * (cm - cp);
          frac = static_cast<int>(
              std::min<int64_t>(8, std::max<int64_t>(
                                       -8, floor_div(num + den, 2 * den))));
        }
      }
      uint16_t value = static_cast<uint16_t>(kDisparityScale * d + frac);

      if (rt.texture_threshold > 0) {
        int64_t t = 0;
        for (int j = -hh; j <= hh; ++j)
          for (int i = -hw; i <= hw; ++i)
            t += std::abs(px(ref, x + i + 1, y + j) - px(ref, x + i - 1, y + j));
        if (t < rt.texture_threshold) value = kInvalidDisparity;
      }
      if (value != kInvalidDisparity && rt.uniqueness_ratio > 0) {
        for (int k = 0; k < n; ++k)
          if (std::abs(k - kb) > 1 &&
              100 * c[k] <= (100 + int64_t{rt.uniqueness_ratio}) * c[kb]) {
            value = kInvalidDisparity;
            break;
          }
      }
      if (value != kInvalidDisparity && rt.lr_max_diff >= 0) {
        const int xp = x + sign * d;
        if (xp < 0 || xp >= w || std::abs(other_d[xp] - d) > rt.lr_max_diff)
          value = kInvalidDisparity;
      }
      o[x] = value;
    }
  }
  return Status::ok();
}

}  // namespace ref
}  // namespace match
