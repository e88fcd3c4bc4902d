/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Plain scalar reference for block matching, every search method. It
 * follows the definitions in match/blockmatch.h literally (clamped sampling
 * computed on the fly; full search visits every candidate in raster order,
 * the fast searches their candidates one by one with the "better" order)
 * and shares no code with the optimised backends, so that tests comparing
 * them mean something.
 */
#include <algorithm>
#include <cstdlib>
#include <vector>

#include "match/blockmatch.h"

namespace match {
namespace ref {
namespace {

int floor_div4(int v) { return v >= 0 ? v / 4 : -((-v + 3) / 4); }

/* The frame at (xq/4, yq/4) with clamp-to-edge and the bilinear rule. */
int sample_q(const ImageView& img, int xq, int yq) {
  const int ix = floor_div4(xq), iy = floor_div4(yq);
  const int fx = xq - 4 * ix, fy = yq - 4 * iy;
  auto px = [&img](int x, int y) {
    x = std::clamp(x, 0, img.width - 1);
    y = std::clamp(y, 0, img.height - 1);
    return static_cast<int>(img.at(x, y));
  };
  const int a = px(ix, iy), b = px(ix + 1, iy);
  const int c = px(ix, iy + 1), d = px(ix + 1, iy + 1);
  return ((4 - fx) * (4 - fy) * a + fx * (4 - fy) * b + (4 - fx) * fy * c + fx * fy * d +
          8) >>
         4;
}

uint32_t block_cost(const ImageView& tiled, const ImageView& searched, int x0, int y0,
                    int w, int h, int dxq, int dyq) {
  uint32_t sum = 0;
  for (int y = y0; y < y0 + h; ++y)
    for (int x = x0; x < x0 + w; ++x)
      sum += std::abs(static_cast<int>(tiled.at(x, y)) -
                      sample_q(searched, 4 * x + dxq, 4 * y + dyq));
  return sum;
}

/* "Better" of the fast searches (match/blockmatch.h): cost, |v|^2, dy, dx. */
struct Cand {
  uint32_t cost;
  int dxq, dyq; /* quarter pixels */
};
bool better(const Cand& a, const Cand& b) {
  if (a.cost != b.cost) return a.cost < b.cost;
  const long na = long(a.dxq) * a.dxq + long(a.dyq) * a.dyq;
  const long nb = long(b.dxq) * b.dxq + long(b.dyq) * b.dyq;
  if (na != nb) return na < nb;
  if (a.dyq != b.dyq) return a.dyq < b.dyq;
  return a.dxq < b.dxq;
}

/* A plain 8-bit image (the hierarchical search's levels). */
struct Plane {
  int w = 0, h = 0;
  std::vector<uint8_t> px;
  ImageView view() const { return ImageView{px.data(), w, h, w}; }
};

Plane copy_plane(const ImageView& v) {
  Plane p;
  p.w = v.width;
  p.h = v.height;
  p.px.resize(size_t(p.w) * p.h);
  for (int y = 0; y < p.h; ++y)
    for (int x = 0; x < p.w; ++x) p.px[size_t(y) * p.w + x] = v.at(x, y);
  return p;
}

/* Level k + 1 from level k: [1 3 3 1] / 8 both ways over (2x - 1 .. 2x + 2),
 * clamp-to-edge, rounded: (sum of 64ths + 32) >> 6. */
Plane reduce(const Plane& s) {
  static const int h[4] = {1, 3, 3, 1};
  Plane d;
  d.w = (s.w + 1) / 2;
  d.h = (s.h + 1) / 2;
  d.px.resize(size_t(d.w) * d.h);
  for (int y = 0; y < d.h; ++y)
    for (int x = 0; x < d.w; ++x) {
      int sum = 0;
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) {
          const int sx = std::clamp(2 * x - 1 + i, 0, s.w - 1);
          const int sy = std::clamp(2 * y - 1 + j, 0, s.h - 1);
          sum += h[i] * h[j] * s.px[size_t(sy) * s.w + sx];
        }
      d.px[size_t(y) * d.w + x] = static_cast<uint8_t>((sum + 32) >> 6);
    }
  return d;
}

int ceil_shift(int v, int k) { return (v + (1 << k) - 1) >> k; }

}  // namespace

namespace {

/* One block's fast search (every method but kFull); the block covers
 * [x0, x0 + w) x [y0, y0 + h) of `tiled`. */
struct FastSearch {
  const BlockMatchConfig& cfg;
  const ImageView& tiled;
  const ImageView& searched;
  int x0, y0, w, h;
  /* kPredictive's decision cost in its last pass (match/blockmatch.h):
   * J = SAD + floor(rate * w * h * |v - p|_1 / 256), v and p in quarter
   * pixels; rate = 0: the SAD alone. */
  int64_t rate = 0;
  int pxq = 0, pyq = 0;

  int64_t j(const Cand& c) const {
    return int64_t(c.cost) +
           ((rate * w * h * (std::abs(c.dxq - pxq) + std::abs(c.dyq - pyq))) >> 8);
  }
  /* `better` by J (then |v|^2, dy, dx). */
  bool better(const Cand& a, const Cand& b) const {
    if (rate == 0) return match::ref::better(a, b);
    const int64_t ja = j(a), jb = j(b);
    if (ja != jb) return ja < jb;
    return match::ref::better(Cand{0, a.dxq, a.dyq}, Cand{0, b.dxq, b.dyq});
  }
  bool in_range(int dx, int dy) const { /* whole pixels */
    return std::abs(dx) <= cfg.range_x && std::abs(dy) <= cfg.range_y;
  }
  Cand eval(int dx, int dy) const { /* whole pixels */
    return Cand{block_cost(tiled, searched, x0, y0, w, h, 4 * dx, 4 * dy), 4 * dx,
                4 * dy};
  }
  /* The best of c + offsets (in range); c itself must be in range. */
  Cand best_around(const Cand& c, const int (*off)[2], int n) const {
    Cand best = c;
    for (int i = 0; i < n; ++i) {
      const int dx = c.dxq / 4 + off[i][0], dy = c.dyq / 4 + off[i][1];
      if (!in_range(dx, dy)) continue;
      const Cand k = eval(dx, dy);
      if (better(k, best)) best = k;
    }
    return best;
  }
  /* Moves c with `pattern` until c stays the best. */
  Cand descend(Cand c, const int (*off)[2], int n) const {
    for (;;) {
      const Cand b = best_around(c, off, n);
      if (b.dxq == c.dxq && b.dyq == c.dyq) return c;
      c = b;
    }
  }
};

const int kSmallDiamond[4][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1}};
const int kLargeDiamond[8][2] = {{2, 0}, {-2, 0}, {0, 2},  {0, -2},
                                 {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
const int kHexagon[6][2] = {{2, 0}, {-2, 0}, {1, 2}, {1, -2}, {-1, 2}, {-1, -2}};

int round_q(int vq) { return floor_div4(vq + 2); } /* quarter -> whole pixels */

/* Block (x0, y0, w, h) at level k of the hierarchical search: the block
 * (bx, by, bw, bh) of that level and the range (rx, ry). */
struct LevelBox {
  int bx, by, bw, bh, rx, ry;
};
LevelBox level_box(const BlockMatchConfig& cfg, int x0, int y0, int w, int h, int k) {
  const int bx = x0 >> k, by = y0 >> k;
  return LevelBox{bx,
                  by,
                  std::max((x0 + w) >> k, bx + 1) - bx,
                  std::max((y0 + h) >> k, by + 1) - by,
                  ceil_shift(cfg.range_x, k),
                  ceil_shift(cfg.range_y, k)};
}

/* The hierarchical search of one block (levels[k] = level k of both frames). */
Cand hierarchical(const BlockMatchConfig& cfg, const std::vector<Plane>& lt,
                  const std::vector<Plane>& ls, int x0, int y0, int w, int h) {
  const int L = cfg.levels, P = cfg.predictors;
  std::vector<Cand> kept;
  for (int k = L - 1; k >= 0; --k) {
    const ImageView t = lt[k].view(), sv = ls[k].view();
    const LevelBox lb = level_box(cfg, x0, y0, w, h, k);
    const int rx = lb.rx, ry = lb.ry;
    std::vector<Cand> cands; /* whole pixels of level k, in dxq/dyq * 4 */
    auto add = [&](int dx, int dy) {
      if (std::abs(dx) > rx || std::abs(dy) > ry) return;
      for (const Cand& c : cands)
        if (c.dxq == 4 * dx && c.dyq == 4 * dy) return;
      cands.push_back(Cand{block_cost(t, sv, lb.bx, lb.by, lb.bw, lb.bh, 4 * dx, 4 * dy),
                           4 * dx, 4 * dy});
    };
    if (k == L - 1) {
      for (int dy = -ry; dy <= ry; ++dy)
        for (int dx = -rx; dx <= rx; ++dx) add(dx, dy);
    } else {
      for (const Cand& p : kept)
        for (int j = -1; j <= 1; ++j)
          for (int i = -1; i <= 1; ++i) add(2 * (p.dxq / 4) + i, 2 * (p.dyq / 4) + j);
    }
    std::sort(cands.begin(), cands.end(), better);
    const int keep = k == 0 ? 1 : std::min<int>(P, cands.size());
    kept.assign(cands.begin(), cands.begin() + keep);
  }
  return kept[0];
}

Status full_match(const ImageView& earlier, const ImageView& later,
                  const BlockMatchConfig& cfg, const BlockMatchRuntime& rt,
                  BlockVector* out) {
  const bool fwd = cfg.direction == Direction::kForward;
  const ImageView& tiled = fwd ? earlier : later;
  const ImageView& searched = fwd ? later : earlier;
  const int step = kSubpelScale / cfg.subpel;
  const int rxq = cfg.range_x * kSubpelScale, ryq = cfg.range_y * kSubpelScale;

  for (int r = 0; r < cfg.rows(); ++r) {
    for (int c = 0; c < cfg.columns(); ++c) {
      const int x0 = c * cfg.block_width, y0 = r * cfg.block_height;
      const int w = std::min(cfg.block_width, cfg.width - x0);
      const int h = std::min(cfg.block_height, cfg.height - y0);
      BlockVector& v = out[r * cfg.columns() + c];

      const uint32_t zero_cost = block_cost(tiled, searched, x0, y0, w, h, 0, 0);
      if (rt.threshold > 0.0 && static_cast<double>(zero_cost) <= rt.threshold * w * h) {
        v = BlockVector{0, 0, zero_cost, kFlagSuppressed};
        continue;
      }

      uint32_t best = UINT32_MAX;
      long best_norm = 0;
      int bx = 0, by = 0;
      for (int dyq = -ryq; dyq <= ryq; dyq += step) {
        for (int dxq = -rxq; dxq <= rxq; dxq += step) {
          const uint32_t cost = block_cost(tiled, searched, x0, y0, w, h, dxq, dyq);
          const long norm = static_cast<long>(dxq) * dxq + static_cast<long>(dyq) * dyq;
          if (cost < best || (cost == best && norm < best_norm)) {
            best = cost;
            best_norm = norm;
            bx = dxq;
            by = dyq;
          }
        }
      }
      v = BlockVector{bx, by, best, kFlagNone};
    }
  }
  return Status::ok();
}

/* Every method but kFull (match/blockmatch.h has the definitions). */
Status fast_match(const ImageView& earlier, const ImageView& later,
                  const BlockMatchConfig& cfg, const BlockMatchRuntime& rt,
                  BlockVector* out, const BlockVector* previous) {
  const bool fwd = cfg.direction == Direction::kForward;
  const ImageView& tiled = fwd ? earlier : later;
  const ImageView& searched = fwd ? later : earlier;
  const int cols = cfg.columns(), rows = cfg.rows(), nb = cfg.num_blocks();

  /* The hierarchical search's levels; kPredictive's coarse predictor
   * reads level kPredictiveCoarseLevel. */
  std::vector<Plane> lt, ls;
  const int nlevels = cfg.method == SearchMethod::kHierarchical ? cfg.levels
                      : cfg.method == SearchMethod::kPredictive
                          ? kPredictiveCoarseLevel + 1
                          : 0;
  if (nlevels > 0) {
    lt.push_back(copy_plane(tiled));
    ls.push_back(copy_plane(searched));
    for (int k = 1; k < nlevels; ++k) {
      lt.push_back(reduce(lt.back()));
      ls.push_back(reduce(ls.back()));
    }
  }

  auto block_of = [&](int b, int* x0, int* y0, int* w, int* h) {
    *x0 = (b % cols) * cfg.block_width;
    *y0 = (b / cols) * cfg.block_height;
    *w = std::min(cfg.block_width, cfg.width - *x0);
    *h = std::min(cfg.block_height, cfg.height - *y0);
  };
  /* The predictive search's predictors: the best of `preds` (whole
   * pixels, clamped to the range; `first` already costed). */
  auto best_predictor = [&](const FastSearch& f, Cand c,
                            const std::vector<std::pair<int, int>>& preds) {
    for (auto [px, py] : preds) {
      px = std::clamp(px, -cfg.range_x, cfg.range_x);
      py = std::clamp(py, -cfg.range_y, cfg.range_y);
      const Cand k = f.eval(px, py);
      if (f.better(k, c)) c = k;
    }
    return c;
  };
  auto vec_of = [&](const BlockVector* field, int c, int r) {
    const BlockVector& v = field[r * cols + c];
    return std::pair<int, int>{round_q(v.dx), round_q(v.dy)};
  };
  auto exists = [&](int c, int r) { return c >= 0 && c < cols && r >= 0 && r < rows; };
  /* The block itself, then its left, right, upper, lower neighbours. */
  auto cross = [&](int b, const BlockVector* field,
                   std::vector<std::pair<int, int>>* preds) {
    const int c = b % cols, r = b / cols;
    const int nbr[5][2] = {{c, r}, {c - 1, r}, {c + 1, r}, {c, r - 1}, {c, r + 1}};
    for (const auto& q : nbr)
      if (exists(q[0], q[1])) preds->push_back(vec_of(field, q[0], q[1]));
  };
  /* Component-wise median of the left, upper and upper-right neighbours
   * (those that exist; the lower middle of two). */
  auto median = [&](int b, const BlockVector* field,
                    std::vector<std::pair<int, int>>* preds) {
    const int c = b % cols, r = b / cols;
    std::vector<int> mx, my;
    const int med[3][2] = {{c - 1, r}, {c, r - 1}, {c + 1, r - 1}};
    for (const auto& q : med)
      if (exists(q[0], q[1])) {
        mx.push_back(vec_of(field, q[0], q[1]).first);
        my.push_back(vec_of(field, q[0], q[1]).second);
      }
    if (mx.empty()) return;
    std::sort(mx.begin(), mx.end());
    std::sort(my.begin(), my.end());
    preds->push_back({mx[(mx.size() - 1) / 2], my[(my.size() - 1) / 2]});
  };
  /* "Good enough": at most predictive_stop per pixel (0 = never). */
  auto good_enough = [&](const FastSearch& f, const Cand& c) {
    return rt.predictive_stop > 0.0 &&
           static_cast<double>(c.cost) <= rt.predictive_stop * f.w * f.h;
  };
  /* The coarse predictor of block b: kDiamond's descents from (0, 0) at
   * level K = kPredictiveCoarseLevel (block and range as kHierarchical's
   * level K), times 2^K, clamped to the range (whole pixels). */
  auto coarse_predictor = [&](int b) {
    const int k = kPredictiveCoarseLevel;
    int x0, y0, w, h;
    block_of(b, &x0, &y0, &w, &h);
    const LevelBox lb = level_box(cfg, x0, y0, w, h, k);
    BlockMatchConfig kc = cfg;
    kc.range_x = lb.rx;
    kc.range_y = lb.ry;
    const ImageView t = lt[k].view(), sv = ls[k].view();
    const FastSearch g{kc, t, sv, lb.bx, lb.by, lb.bw, lb.bh};
    Cand c = g.descend(g.eval(0, 0), kLargeDiamond, 8);
    c = g.descend(c, kSmallDiamond, 4);
    return std::pair<int, int>{
        std::clamp(c.dxq / 4 * (1 << k), -cfg.range_x, cfg.range_x),
        std::clamp(c.dyq / 4 * (1 << k), -cfg.range_y, cfg.range_y)};
  };
  /* Pass 1: (0, 0) [+ the previous field's block, its four neighbours and
   * their median]; unless the best is good enough, the coarse predictor;
   * unless the best is then good enough, the large diamond descent, then
   * the small diamond descent. */
  auto predictive1 = [&](const FastSearch& f, int b) {
    Cand c = f.eval(0, 0);
    if (previous) {
      std::vector<std::pair<int, int>> preds;
      cross(b, previous, &preds);
      median(b, previous, &preds);
      c = best_predictor(f, c, preds);
    }
    if (good_enough(f, c)) return c;
    c = best_predictor(f, c, {coarse_predictor(b)});
    if (good_enough(f, c)) return c;
    c = f.descend(c, kLargeDiamond, 8);
    return f.descend(c, kSmallDiamond, 4);
  };
  /* Pass k > 1: pass k - 1's vectors of the block, of its eight
   * neighbours d = 2^(passes - k) blocks away and, when d = 1, the median
   * of its left, upper and upper-right ones; unless the best is good
   * enough, the small diamond descent. */
  auto predictive2 = [&](const FastSearch& f, int b, const BlockVector* p1, int d) {
    const int c = b % cols, r = b / cols;
    const auto own = vec_of(p1, c, r);
    Cand best{p1[b].cost, 4 * own.first, 4 * own.second};
    std::vector<std::pair<int, int>> preds;
    const int nbr[8][2] = {{c - d, r},     {c + d, r},     {c, r - d},
                           {c, r + d},     {c - d, r - d}, {c + d, r - d},
                           {c - d, r + d}, {c + d, r + d}};
    for (const auto& q : nbr)
      if (exists(q[0], q[1])) preds.push_back(vec_of(p1, q[0], q[1]));
    if (d == 1) median(b, p1, &preds);
    best = best_predictor(f, best, preds);
    return good_enough(f, best) ? best : f.descend(best, kSmallDiamond, 4);
  };

  const int64_t rate = predictive_rate_steps(rt);
  std::vector<BlockVector> pass1(nb), next(nb); /* kPredictive's fields */
  const int npass = cfg.method == SearchMethod::kPredictive ? cfg.passes : 1;
  for (int pass = 0; pass < npass; ++pass) {
    for (int b = 0; b < nb; ++b) {
      int x0, y0, w, h;
      block_of(b, &x0, &y0, &w, &h);
      FastSearch f{cfg, tiled, searched, x0, y0, w, h};
      if (cfg.method == SearchMethod::kPredictive && pass > 0 && pass + 1 == npass &&
          rate > 0) {
        /* The last pass's rate term: p = the component-wise median of the
         * input field's vectors of the block and its (up to) eight
         * adjacent neighbours (of an even count, the lower middle). */
        const int c0 = b % cols, r0 = b / cols;
        std::vector<int> mx, my;
        for (int j = -1; j <= 1; ++j)
          for (int i = -1; i <= 1; ++i)
            if (exists(c0 + i, r0 + j)) {
              const auto v = vec_of(pass1.data(), c0 + i, r0 + j);
              mx.push_back(v.first);
              my.push_back(v.second);
            }
        std::sort(mx.begin(), mx.end());
        std::sort(my.begin(), my.end());
        f.rate = rate;
        f.pxq = 4 * mx[(mx.size() - 1) / 2];
        f.pyq = 4 * my[(my.size() - 1) / 2];
      }
      BlockVector& v = out[b];
      const uint32_t zero_cost = block_cost(tiled, searched, x0, y0, w, h, 0, 0);
      if (rt.threshold > 0.0 && static_cast<double>(zero_cost) <= rt.threshold * w * h) {
        v = BlockVector{0, 0, zero_cost, kFlagSuppressed};
        next[b] = v;
        continue;
      }
      Cand c{0, 0, 0};
      switch (cfg.method) {
        case SearchMethod::kHierarchical:
          c = hierarchical(cfg, lt, ls, x0, y0, w, h);
          break;
        case SearchMethod::kThreeStep: {
          c = f.eval(0, 0);
          for (int m = (std::max(cfg.range_x, cfg.range_y) + 1) / 2; m >= 1; m /= 2) {
            const int off[8][2] = {{-m, -m}, {0, -m}, {m, -m}, {-m, 0},
                                   {m, 0},   {-m, m}, {0, m},  {m, m}};
            c = f.best_around(c, off, 8);
          }
          break;
        }
        case SearchMethod::kDiamond:
          c = f.descend(f.eval(0, 0), kLargeDiamond, 8);
          c = f.best_around(c, kSmallDiamond, 4);
          break;
        case SearchMethod::kHexagon:
          c = f.descend(f.eval(0, 0), kHexagon, 6);
          c = f.best_around(c, kSmallDiamond, 4);
          break;
        case SearchMethod::kPredictive:
          c = pass == 0 ? predictive1(f, b)
                        : predictive2(f, b, pass1.data(), 1 << (npass - 1 - pass));
          break;
        case SearchMethod::kFull:
          break;
      }
      if (pass + 1 < npass) {
        next[b] = BlockVector{c.dxq, c.dyq, c.cost, kFlagNone};
        continue;
      }
      /* Sub-pixel stage: the grid points within one pixel of c. */
      if (cfg.subpel > 1) {
        f.rate = 0; /* the sub-pixel stage compares SADs (kPredictive too) */
        const int step = kSubpelScale / cfg.subpel;
        const int rxq = cfg.range_x * kSubpelScale, ryq = cfg.range_y * kSubpelScale;
        Cand best = c;
        const int cx = c.dxq, cy = c.dyq;
        for (int j = -(cfg.subpel - 1); j <= cfg.subpel - 1; ++j)
          for (int i = -(cfg.subpel - 1); i <= cfg.subpel - 1; ++i) {
            const int dxq = cx + i * step, dyq = cy + j * step;
            if (std::abs(dxq) > rxq || std::abs(dyq) > ryq) continue;
            const Cand k{block_cost(tiled, searched, x0, y0, w, h, dxq, dyq), dxq, dyq};
            if (f.better(k, best)) best = k;
          }
        c = best;
      }
      v = BlockVector{c.dxq, c.dyq, c.cost, kFlagNone};
    }
    pass1.swap(next); /* this pass's field is the next one's input */
  }
  return Status::ok();
}

}  // namespace

Status block_match(const ImageView& earlier, const ImageView& later,
                   const BlockMatchConfig& cfg, const BlockMatchRuntime& rt,
                   BlockVector* out, const BlockVector* previous) {
  Status st = cfg.validate();
  if (!st) return st;
  if (earlier.width != cfg.width || earlier.height != cfg.height ||
      later.width != cfg.width || later.height != cfg.height || !earlier.data ||
      !later.data || !out)
    return Status(StatusCode::kInvalidArgument,
                  "frames do not match the configured size");
  if (cfg.method != SearchMethod::kFull)
    return fast_match(earlier, later, cfg, rt, out, previous);
  return full_match(earlier, later, cfg, rt, out);
}

}  // namespace ref
}  // namespace match
