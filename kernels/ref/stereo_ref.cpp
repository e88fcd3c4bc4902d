/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Plain reference of stereo matching, block WTA and SGM (match/stereo.h
 * gives every definition; README's References). Each
 * cost is computed directly from the definition, pixel by pixel with
 * clamped reads; SGM keeps every path's L_r for the whole image; kBlock's
 * other view's map for the left-right check is computed on its own from
 * its own costs. No rolling sums, no threads, no attempt at speed: the CPU
 * and CUDA backends are tested against it.
 */
#include <algorithm>
#include <climits>
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

/* floor(a / b) for b > 0. */
int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && (a < 0)) --q;
  return q;
}

}  // namespace

/* The per-pixel image A of one view (the luma, the clipped x-Sobel or the
 * census bit string), W x H. */
std::vector<uint64_t> stereo_pixel_image(const ImageView& img, const StereoConfig& c) {
  const int w = img.width, h = img.height;
  std::vector<uint64_t> a(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      uint64_t v = 0;
      if (c.cost == StereoCost::kSad) {
        v = px(img, x, y);
      } else if (c.cost == StereoCost::kSobel) {
        const int gx =
            (px(img, x + 1, y - 1) + 2 * px(img, x + 1, y) + px(img, x + 1, y + 1)) -
            (px(img, x - 1, y - 1) + 2 * px(img, x - 1, y) + px(img, x - 1, y + 1));
        v = static_cast<uint64_t>(std::min(62, std::max(0, gx + 31)));
      } else {
        const int cw = (c.census_width - 1) / 2;
        const int ch = (c.census_height - 1) / 2;
        const int centre = px(img, x, y);
        int k = 0;
        for (int j = -ch; j <= ch; ++j)
          for (int i = -cw; i <= cw; ++i) {
            if (i == 0 && j == 0) continue;
            if (px(img, x + i, y + j) < centre) v |= uint64_t{1} << k;
            ++k;
          }
      }
      a[static_cast<size_t>(y) * w + x] = v;
    }
  return a;
}

namespace {

/* The per-pixel cost c with `a` as the reference view's image and `b` the
 * other's, the other sampled at x' + sign d; kCensusAd adds the truncated
 * luma difference of the same two pixels (la, lb: the views). */
struct PixelCost {
  const std::vector<uint64_t>* a;
  const std::vector<uint64_t>* b;
  int w, h, sign;
  StereoCost cost;
  const ImageView* la;
  const ImageView* lb;

  int operator()(int x, int y, int d) const {
    const int yc = clampi(y, 0, h - 1);
    const int xa = clampi(x, 0, w - 1), xb = clampi(x + sign * d, 0, w - 1);
    const uint64_t va = (*a)[static_cast<size_t>(yc) * w + xa];
    const uint64_t vb = (*b)[static_cast<size_t>(yc) * w + xb];
    if (!stereo_cost_uses_census(cost))
      return std::abs(static_cast<int>(va) - static_cast<int>(vb));
    int c = __builtin_popcountll(va ^ vb);
    if (cost == StereoCost::kCensusAd)
      c += std::min(std::abs(px(*la, xa, yc) - px(*lb, xb, yc)), kCensusAdCap) >> 1;
    return c;
  }
};

/* kBlock's C(x, y, d): the window sum of c. */
int64_t block_cost(const PixelCost& c, int x, int y, int d, int hw, int hh) {
  int64_t sum = 0;
  for (int j = -hh; j <= hh; ++j)
    for (int i = -hw; i <= hw; ++i) sum += c(x + i, y + j, d);
  return sum;
}

/* kSgm's cost cb(x, y, d) for every pixel (index (y W + x) n + k): the
 * rounded mean of c over the cost_window square, read clamped. */
std::vector<int32_t> sgm_costs(const PixelCost& c, const StereoConfig& cfg) {
  const int w = cfg.width, h = cfg.height, n = cfg.num_disparities;
  const int b = cfg.cost_window, r = (b - 1) / 2, area = b * b;
  std::vector<int32_t> cb(static_cast<size_t>(w) * h * n);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < n; ++k) {
        int sum = 0;
        for (int j = -r; j <= r; ++j)
          for (int i = -r; i <= r; ++i)
            sum += c(clampi(x + i, 0, w - 1), clampi(y + j, 0, h - 1),
                     cfg.min_disparity + k);
        cb[(static_cast<size_t>(y) * w + x) * n + k] = (sum + area / 2) / area;
      }
  return cb;
}

/* kSgm's S over the whole image (index (y W + x) n + k), path by path,
 * each path's L_r visited in its own direction. */
std::vector<int32_t> sgm_volume(const PixelCost& pc, const ImageView& ref,
                                const StereoConfig& cfg, const StereoRuntime& rt) {
  const int w = cfg.width, h = cfg.height, n = cfg.num_disparities;
  const int dmin = cfg.min_disparity;
  static const int kDirs[8][2] = {{1, 0}, {-1, 0}, {0, 1},  {0, -1},
                                  {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
  const std::vector<int32_t> cb = sgm_costs(pc, cfg);
  auto c = [&](int x, int y, int d) {
    return cb[(static_cast<size_t>(y) * w + x) * n + (d - dmin)];
  };
  std::vector<int32_t> s(static_cast<size_t>(w) * h * n, 0);
  std::vector<int32_t> l(s.size());
  for (int r = 0; r < cfg.paths; ++r) {
    const int dx = kDirs[r][0], dy = kDirs[r][1];
    for (int yi = 0; yi < h; ++yi) {
      const int y = dy >= 0 ? yi : h - 1 - yi;
      for (int xi = 0; xi < w; ++xi) {
        const int x = dx >= 0 ? xi : w - 1 - xi;
        int32_t* lp = &l[(static_cast<size_t>(y) * w + x) * n];
        const int qx = x - dx, qy = y - dy;
        if (qx < 0 || qx >= w || qy < 0 || qy >= h) {
          for (int k = 0; k < n; ++k) lp[k] = c(x, y, dmin + k);
        } else {
          const int32_t* lq = &l[(static_cast<size_t>(qy) * w + qx) * n];
          int32_t m = lq[0];
          for (int k = 1; k < n; ++k) m = std::min(m, lq[k]);
          int p2 = rt.p2;
          if (rt.p2_edge > 0) {
            const int grad = std::abs(ref.at(x, y) - ref.at(qx, qy));
            p2 = std::max(rt.p1, rt.p2 * rt.p2_edge / (rt.p2_edge + grad));
          }
          for (int k = 0; k < n; ++k) {
            int32_t best = std::min(lq[k], m + p2);
            if (k > 0) best = std::min(best, lq[k - 1] + rt.p1);
            if (k < n - 1) best = std::min(best, lq[k + 1] + rt.p1);
            lp[k] = c(x, y, dmin + k) + best - m;
          }
        }
        int32_t* sp = &s[(static_cast<size_t>(y) * w + x) * n];
        for (int k = 0; k < n; ++k) sp[k] += lp[k];
      }
    }
  }
  return s;
}

}  // namespace

namespace {
/* The map's values, row after row (the medians read this copy). */
std::vector<uint16_t> copy_of(const DisparityView& out) {
  const int w = out.width, h = out.height;
  std::vector<uint16_t> in(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) in[static_cast<size_t>(y) * w + x] = out.row(y)[x];
  return in;
}
}  // namespace

/* The 3x3 lower median of the valid values, invalid pixels kept. */
void stereo_median3(const DisparityView& out) {
  const int w = out.width, h = out.height;
  const std::vector<uint16_t> in = copy_of(out);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (in[static_cast<size_t>(y) * w + x] == kInvalidDisparity) continue;
      std::vector<uint16_t> v;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) {
          const int xx = x + i, yy = y + j;
          if (xx < 0 || xx >= w || yy < 0 || yy >= h) continue;
          const uint16_t d = in[static_cast<size_t>(yy) * w + xx];
          if (d != kInvalidDisparity) v.push_back(d);
        }
      std::sort(v.begin(), v.end());
      out.row(y)[x] = v[(v.size() - 1) / 2];
    }
}

/* Regions (4-connected, neighbours within 16 range) of fewer than `size`
 * valid pixels become invalid: a flood fill from every unlabelled pixel. */
void stereo_speckle(const DisparityView& out, int size, int range) {
  const int w = out.width, h = out.height;
  std::vector<int> label(static_cast<size_t>(w) * h, -1);
  std::vector<int> region;
  int next = 0;
  for (int y0 = 0; y0 < h; ++y0)
    for (int x0 = 0; x0 < w; ++x0) {
      if (label[static_cast<size_t>(y0) * w + x0] >= 0 ||
          out.row(y0)[x0] == kInvalidDisparity)
        continue;
      region.assign(1, y0 * w + x0);
      label[static_cast<size_t>(y0) * w + x0] = next;
      for (size_t i = 0; i < region.size(); ++i) {
        const int x = region[i] % w, y = region[i] / w;
        const int v = out.row(y)[x];
        const int nb[4][2] = {{x - 1, y}, {x + 1, y}, {x, y - 1}, {x, y + 1}};
        for (const auto& q : nb) {
          if (q[0] < 0 || q[0] >= w || q[1] < 0 || q[1] >= h) continue;
          const int u = out.row(q[1])[q[0]];
          int& lq = label[static_cast<size_t>(q[1]) * w + q[0]];
          if (lq >= 0 || u == kInvalidDisparity || std::abs(u - v) > 16 * range) continue;
          lq = next;
          region.push_back(q[1] * w + q[0]);
        }
      }
      ++next;
      if (static_cast<int>(region.size()) < size)
        for (int i : region) out.row(i / w)[i % w] = kInvalidDisparity;
    }
}

/* Each invalid pixel: the lower of the nearest valid values left and
 * right in its row of the map before the fill, or the one that exists. */
void stereo_fill_invalid(const DisparityView& out) {
  const int w = out.width, h = out.height;
  std::vector<uint16_t> in(w);
  for (int y = 0; y < h; ++y) {
    uint16_t* o = out.row(y);
    for (int x = 0; x < w; ++x) in[x] = o[x];
    for (int x = 0; x < w; ++x) {
      if (in[x] != kInvalidDisparity) continue;
      int best = kInvalidDisparity;
      for (int xx = x - 1; xx >= 0; --xx)
        if (in[xx] != kInvalidDisparity) {
          best = in[xx];
          break;
        }
      for (int xx = x + 1; xx < w; ++xx)
        if (in[xx] != kInvalidDisparity) {
          best = std::min<int>(best, in[xx]);
          break;
        }
      o[x] = static_cast<uint16_t>(best);
    }
  }
}

/* The lower median of the valid values of the (2r + 1)^2 square whose
 * reference luma is within `range` of the centre's. */
void stereo_joint_median(const DisparityView& out, const ImageView& ref, int r,
                         int range) {
  const int w = out.width, h = out.height;
  const std::vector<uint16_t> in = copy_of(out);
  std::vector<uint16_t> v;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      if (in[static_cast<size_t>(y) * w + x] == kInvalidDisparity) continue;
      const int c = ref.row(y)[x];
      v.clear();
      for (int yy = std::max(y - r, 0); yy <= std::min(y + r, h - 1); ++yy)
        for (int xx = std::max(x - r, 0); xx <= std::min(x + r, w - 1); ++xx) {
          const uint16_t d = in[static_cast<size_t>(yy) * w + xx];
          if (d != kInvalidDisparity && std::abs(ref.row(yy)[xx] - c) <= range)
            v.push_back(d);
        }
      std::sort(v.begin(), v.end());
      out.row(y)[x] = v[(v.size() - 1) / 2];
    }
}

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
  const bool sgm = config.method == StereoMethod::kSgm;

  const std::vector<uint64_t> a_ref = stereo_pixel_image(ref, config);
  const std::vector<uint64_t> a_oth = stereo_pixel_image(oth, config);
  const PixelCost cost{&a_ref, &a_oth, w, h, sign, config.cost, &ref, &oth};
  /* The other view as reference, for kBlock's left-right check. */
  const PixelCost cost_other{&a_oth, &a_ref, w, h, -sign, config.cost, &oth, &ref};
  std::vector<int32_t> volume;
  if (sgm) volume = sgm_volume(cost, ref, config, rt);

  std::vector<int64_t> c(n);
  std::vector<int> other_d(w);
  for (int y = 0; y < h; ++y) {
    /* The other view's integer WTA map D' of this row (INT_MIN: none). */
    if (rt.lr_max_diff >= 0) {
      for (int x = 0; x < w; ++x) {
        int64_t best = -1;
        int best_d = INT32_MIN;
        for (int k = 0; k < n; ++k) {
          int64_t ck;
          if (sgm) {
            const int xr = x - sign * (dmin + k); /* its partner in Ref */
            if (xr < 0 || xr >= w) continue;
            ck = volume[(static_cast<size_t>(y) * w + xr) * n + k];
          } else {
            ck = block_cost(cost_other, x, y, dmin + k, hw, hh);
          }
          if (best < 0 || ck < best) best = ck, best_d = dmin + k;
        }
        other_d[x] = best_d;
      }
    }
    uint16_t* o = out.row(y);
    for (int x = 0; x < w; ++x) {
      for (int k = 0; k < n; ++k)
        c[k] = sgm ? volume[(static_cast<size_t>(y) * w + x) * n + k]
                   : block_cost(cost, x, y, dmin + k, hw, hh);
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
              std::min<int64_t>(8, std::max<int64_t>(-8, floor_div(num + den, 2 * den))));
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
        if (xp < 0 || xp >= w || other_d[xp] == INT32_MIN ||
            std::abs(other_d[xp] - d) > rt.lr_max_diff)
          value = kInvalidDisparity;
      }
      o[x] = value;
    }
  }
  if (rt.median) stereo_median3(out);
  if (rt.speckle_size > 0) stereo_speckle(out, rt.speckle_size, rt.speckle_range);
  if (rt.fill_invalid) stereo_fill_invalid(out);
  if (rt.joint_median_radius > 0)
    stereo_joint_median(out, ref, rt.joint_median_radius, rt.joint_median_range);
  return Status::ok();
}

Status stereo_cost_volume(const ImageView& left, const ImageView& right,
                          const StereoConfig& config, const StereoRuntime& rt,
                          std::vector<int64_t>* volume) {
  Status st = config.validate();
  if (!st) return st;
  const int w = config.width, h = config.height, n = config.num_disparities;
  /* The frame checks of stereo_match() against a map of our own. */
  std::vector<uint16_t> map(static_cast<size_t>(w) * h);
  const DisparityView mv{map.data(), w, h, static_cast<std::ptrdiff_t>(w) * 2};
  if (!(st = check_stereo_frame(config, left, right, rt, mv))) return st;
  const bool left_ref = config.reference == StereoReference::kLeft;
  const ImageView& ref = left_ref ? left : right;
  const std::vector<uint64_t> a_ref = stereo_pixel_image(ref, config);
  const ImageView& oth = left_ref ? right : left;
  const std::vector<uint64_t> a_oth = stereo_pixel_image(oth, config);
  const PixelCost cost{&a_ref, &a_oth, w, h, left_ref ? -1 : 1, config.cost, &ref, &oth};
  volume->assign(static_cast<size_t>(w) * h * n, 0);
  if (config.method == StereoMethod::kSgm) {
    const std::vector<int32_t> s = sgm_volume(cost, ref, config, rt);
    std::copy(s.begin(), s.end(), volume->begin());
    return Status::ok();
  }
  const int hw = (config.window_width - 1) / 2;
  const int hh = (config.window_height - 1) / 2;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int k = 0; k < n; ++k)
        (*volume)[(static_cast<size_t>(y) * w + x) * n + k] =
            block_cost(cost, x, y, config.min_disparity + k, hw, hh);
  return Status::ok();
}

Status stereo_sgm_costs(const ImageView& left, const ImageView& right,
                        const StereoConfig& config, std::vector<int32_t>* costs) {
  Status st = config.validate();
  if (!st) return st;
  const bool left_ref = config.reference == StereoReference::kLeft;
  const ImageView& ref = left_ref ? left : right;
  const ImageView& oth = left_ref ? right : left;
  const std::vector<uint64_t> a_ref = stereo_pixel_image(ref, config);
  const std::vector<uint64_t> a_oth = stereo_pixel_image(oth, config);
  const PixelCost cost{
      &a_ref,      &a_oth, config.width, config.height, left_ref ? -1 : 1,
      config.cost, &ref,   &oth};
  *costs = sgm_costs(cost, config);
  return Status::ok();
}

}  // namespace ref
}  // namespace match
