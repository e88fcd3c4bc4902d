/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage on the CPU (match/change.h): the reference's
 * definitions (ref/change_arith.h) row by row over OpenMP threads, with the
 * frames in a ring allocated once, per-thread histograms merged after each
 * pass, and for a still camera neither the warp (the identity) nor a
 * difference image (change_still_noise ()). Tested equal to the reference
 * (tests/kernels/test_change.cpp).
 */
#include <algorithm>
#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_isa.h"
#include "internal.h"
#include "threads.h"
#include "ref/change_arith.h"

namespace match {
namespace {

/* push ()'s passes, plain loops the compiler vectorises: __restrict__
 * because a byte row could otherwise alias the sums. The column sums of a
 * band of rows (s <= 16 rows of 255 fit 16 bits), then s of them a cell;
 * change_scale_for () picks 2 or 4 at the usual sizes. */
void first_row(uint16_t* __restrict__ cols, const uint8_t* __restrict__ row, int w) {
  for (int x = 0; x < w; ++x) cols[x] = row[x];
}
void add_row(uint16_t* __restrict__ cols, const uint8_t* __restrict__ row, int w) {
  for (int x = 0; x < w; ++x) cols[x] = (uint16_t)(cols[x] + row[x]);
}
template <int S> /* 0: s at run time */
void cell_means(const uint16_t* __restrict__ cols, int s, int full,
                const ChangeCellDivider& cell, uint8_t* __restrict__ out) {
  const int step = S > 0 ? S : s;
  for (int x = 0; x < full; ++x) {
    uint32_t sum = 0;
    for (int k = 0; k < step; ++k) sum += cols[x * step + k];
    out[x] = cell.mean(sum);
  }
}
/* cell_means () of a band of S rows, S a power of two: the S x S cell's
 * rounded mean is a shift (ChangeCellDivider's product is exact), which
 * keeps the loop in 16-bit lanes. */
template <int S>
void square_cell_means(const uint16_t* __restrict__ cols, int full,
                       uint8_t* __restrict__ out) {
  static_assert(S == 2 || S == 4);
  constexpr int kShift = S == 2 ? 2 : 4;
  for (int x = 0; x < full; ++x) {
    uint32_t sum = 0;
    for (int k = 0; k < S; ++k) sum += cols[x * S + k];
    out[x] = (uint8_t)((sum + (1u << (kShift - 1))) >> kShift);
  }
}

/* A row's values value(0 .. n - 1), in [0, Bins), into kLanes histograms
 * of Bins bins in turn: most cells fall in one bin (no change), and one
 * histogram would make each increment wait for the previous one. */
constexpr int kLanes = 4;
template <int Bins, typename Value>
void histogram_row(uint32_t* h, int n, Value value) {
  uint32_t* h1 = h + Bins;
  uint32_t* h2 = h1 + Bins;
  uint32_t* h3 = h2 + Bins;
  int x = 0;
  for (; x + 4 <= n; x += 4) {
    h[value(x)]++;
    h1[value(x + 1)]++;
    h2[value(x + 2)]++;
    h3[value(x + 3)]++;
  }
  for (; x < n; ++x) h[(x % kLanes) * Bins + value(x)]++;
}

/* The row loops below are compiled twice: as they are (x86-64's SSE2) and
 * in 256-bit lanes where cpuid reports AVX2 (RowLoops; cpu/cpu_isa.h,
 * MATCH_CPU_ISA=sse2 keeps the first). Each is inlined into a wrapper
 * with GCC's target attribute, which the compiler vectorises for that
 * target; what they call from ref/change_arith.h and do not inline stays
 * the baseline's. Measured (bench/README.md, "The change stage's rows in
 * AVX2"): the decision's CPU time a tenth less with a still camera, a
 * fifth with a moving one, whose warps and 3 x 3 minima cover the image. */
#define MATCH_ROW_LOOP inline __attribute__((always_inline))

/* Row y of P for a moving camera: change_warp_sample () for x = 0 ..
 * ww - 1, the positions stepped along the row (the affine motion adds the
 * same amount a pixel) and floored by a shift (change_position16 ()'s
 * floor ((fp + 2048) / 4096)), without a division a pixel. Inside the
 * image the row runs in stretches where the whole-pixel parts move on
 * together (x one a step, y none): a 2 x 2 filter over two rows read in
 * order, its 1/16 weights from the positions' fractions, which gain m[1]
 * and m[4] a step. A loop the compiler vectorises: the fractions stay
 * within [0, 65536) in 32 bits, the sums in 16 (at most 16 x 255 x 16 +
 * 128). A shaking camera's fit turns by a few thousandths of a radian,
 * which moves a whole pixel every hundred cells or more. */
/* Row y's positions for warp_row (): where cell x lands, in 1/65536
 * working pixels with change_position16 ()'s half sixteenth added (so
 * that >> 12 floors to sixteenths), is *fx + x (65536 + m[1]) and *fy + x
 * m[4]. */
void warp_row_start(const int64_t m[6], int y, int64_t* fx, int64_t* fy) {
  *fx = m[0] + m[2] * y + 2048;
  *fy = ((int64_t)y << 16) + m[3] + m[5] * y + 2048;
}

MATCH_ROW_LOOP void warp_row(const uint8_t* prev, int ww, int wh, const int64_t m[6],
                             int y, uint8_t* out) {
  int64_t fx, fy;
  warp_row_start(m, y, &fx, &fy);
  const int64_t step_x = 65536 + m[1], step_y = m[4];
  const int64_t hx = 16 * (int64_t)(ww - 1), hy = 16 * (int64_t)(wh - 1);
  /* Steps from fraction f (of 65536) that keep it in [0, 65536) when it
   * gains `slope` a step, counting this one. */
  auto stretch = [](int64_t f, int64_t slope) -> int64_t {
    if (slope > 0) return (65535 - f) / slope + 1;
    if (slope < 0) return f / -slope + 1;
    return INT64_MAX;
  };
  /* Only a stretch of one step has a slope beyond this. */
  const int32_t slope_x = (int32_t)std::clamp<int64_t>(m[1], -65536, 65536);
  const int32_t slope_y = (int32_t)std::clamp<int64_t>(m[4], -65536, 65536);
  int x = 0;
  while (x < ww) {
    const int64_t px = fx >> 12, py = fy >> 12;
    if (px < 0 || py < 0 || px >= hx || py >= hy) {
      /* Clamped to the image, or on its last row or column. */
      out[x] = (uint8_t)change_bilinear16(prev, ww, wh, std::clamp<int64_t>(px, 0, hx),
                                          std::clamp<int64_t>(py, 0, hy));
      ++x, fx += step_x, fy += step_y;
      continue;
    }
    const int xi = (int)(px >> 4), yi = (int)(py >> 4);
    const int32_t ex = (int32_t)(fx & 65535), ey = (int32_t)(fy & 65535);
    const int n = (int)std::min({stretch(ex, m[1]), stretch(ey, m[4]), (int64_t)(ww - x),
                                 (int64_t)(ww - 1 - xi)});
    const uint8_t* __restrict__ r0 = prev + (size_t)yi * ww + xi;
    const uint8_t* __restrict__ r1 = r0 + ww;
    uint8_t* __restrict__ o = out + x;
    for (int k = 0; k < n; ++k) {
      const uint16_t bx = (uint16_t)((ex + k * slope_x) >> 12);
      const uint16_t by = (uint16_t)((ey + k * slope_y) >> 12);
      const uint16_t top = (uint16_t)(r0[k] * (16 - bx) + r0[k + 1] * bx);
      const uint16_t bottom = (uint16_t)(r1[k] * (16 - bx) + r1[k + 1] * bx);
      o[k] = (uint8_t)((uint16_t)(top * (16 - by) + bottom * by + 128) >> 8);
    }
    x += n, fx += n * step_x, fy += n * step_y;
  }
}

/* For i in [0, n): the smallest |w[i] - b - p[i + dx]| over the rows p0,
 * p1, p2 and dx in -1 .. 1, at most 255 (change_abs_diff ()'s clamp);
 * p[-1] and p[n] must be readable. A loop the compiler vectorises. */
MATCH_ROW_LOOP void window_min_row(const uint8_t* __restrict__ w,
                                   const uint8_t* __restrict__ p0,
                                   const uint8_t* __restrict__ p1,
                                   const uint8_t* __restrict__ p2, int n, int b,
                                   uint8_t* __restrict__ out) {
  /* In 16-bit lanes: W - b - P lies in -510 .. 510. */
  auto dist = [](int16_t v, uint8_t q) {
    const int16_t e = (int16_t)(v - q);
    return e < 0 ? (int16_t)-e : e;
  };
  const int16_t b16 = (int16_t)b;
  for (int i = 0; i < n; ++i) {
    const int16_t v = (int16_t)(w[i] - b16);
    int16_t best = 255;
    for (int k = -1; k <= 1; ++k) {
      best = std::min(best, dist(v, p0[i + k]));
      best = std::min(best, dist(v, p1[i + k]));
      best = std::min(best, dist(v, p2[i + k]));
    }
    out[i] = (uint8_t)best;
  }
}

/* A row of a moving camera's d: the smallest change_abs_diff () of W over
 * P's 3 x 3 neighbourhood (rows p0, p1, p2: above, at and below, clamped
 * to the image); the first and last cells clamp their columns too. */
MATCH_ROW_LOOP void diff_row(const uint8_t* w, const uint8_t* p0, const uint8_t* p1,
                             const uint8_t* p2, int n, int b, uint8_t* d) {
  const uint8_t* rows[3] = {p0, p1, p2};
  auto clamped = [&](int x) {
    const int xl = x > 0 ? x - 1 : 0, xr = x + 1 < n ? x + 1 : x;
    int best = 255;
    for (const uint8_t* r : rows)
      for (int q : {xl, x, xr}) best = std::min(best, change_abs_diff(w[x], r[q], b));
    return (uint8_t)best;
  };
  d[0] = clamped(0);
  if (n > 2) window_min_row(w + 1, p0 + 1, p1 + 1, p2 + 1, n - 2, b, d + 1);
  if (n > 1) d[n - 1] = clamped(n - 1);
}

/* Of n working cells, which changed (on[i] = 1): d > t, d taken from W
 * and P for a still camera, else read from the kept d image; plain loops
 * the compiler vectorises. */
MATCH_ROW_LOOP void changed_cells(const uint8_t* __restrict__ w,
                                  const uint8_t* __restrict__ p,
                                  const uint8_t* __restrict__ d, int n, int b, int t,
                                  uint8_t* __restrict__ on) {
  if (d) {
    for (int i = 0; i < n; ++i) on[i] = d[i] > t;
    return;
  }
  /* change_abs_diff () > t in 16-bit lanes (twice the cells an
   * instruction): W - P - b lies in -510 .. 510, and with the difference
   * clamped to 255 a threshold above 255 is one of 255. */
  const int16_t b16 = (int16_t)b, t16 = (int16_t)std::min(t, 255);
  for (int i = 0; i < n; ++i) {
    int16_t v = (int16_t)(w[i] - p[i] - b16);
    v = v < 0 ? (int16_t)-v : v;
    v = v > 255 ? (int16_t)255 : v;
    on[i] = v > t16;
  }
}

/* The changed cells (on) that change_departed ()'s first test lets
 * through: W within t of the background bg, P not. */
MATCH_ROW_LOOP void back_to_background(const uint8_t* __restrict__ w,
                                       const uint8_t* __restrict__ p,
                                       const uint8_t* __restrict__ bg,
                                       const uint8_t* __restrict__ on, int n, int t,
                                       uint8_t* __restrict__ out) {
  /* As changed_cells (): in 16-bit lanes, a threshold above 255 one of 255. */
  const int16_t t16 = (int16_t)std::min(t, 255);
  for (int i = 0; i < n; ++i) {
    int16_t back = (int16_t)(w[i] - bg[i]), was = (int16_t)(p[i] - bg[i]);
    back = back < 0 ? (int16_t)-back : back;
    was = was < 0 ? (int16_t)-was : was;
    out[i] = on[i] & (back <= t16) & (was > t16);
  }
}

/* Adds a row's changed cells to its box's column counts; returns them. */
MATCH_ROW_LOOP uint32_t count_cells(const uint8_t* __restrict__ on, int n,
                                    uint32_t* __restrict__ cols) {
  uint32_t count = 0;
  for (int i = 0; i < n; ++i) {
    count += on[i];
    cols[i] += on[i];
  }
  return count;
}

/* The row loops of one instruction set. */
struct RowLoops {
  decltype(&warp_row) warp;
  decltype(&window_min_row) window_min;
  decltype(&diff_row) diff;
  decltype(&changed_cells) changed;
  decltype(&back_to_background) back;
  decltype(&count_cells) count;
};

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
/* F inlined into a function compiled for AVX2. */
template <auto F>
struct InAvx2;
template <typename R, typename... A, R (*F)(A...)>
struct InAvx2<F> {
  __attribute__((target("avx2"))) static R call(A... a) { return F(a...); }
};
constexpr RowLoops kAvx2Loops = {
    InAvx2<warp_row>::call,           InAvx2<window_min_row>::call,
    InAvx2<diff_row>::call,           InAvx2<changed_cells>::call,
    InAvx2<back_to_background>::call, InAvx2<count_cells>::call};
#endif
constexpr RowLoops kBaseLoops = {warp_row,      window_min_row,     diff_row,
                                 changed_cells, back_to_background, count_cells};

const RowLoops& row_loops() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (cpu::detect_isa() == cpu::Isa::kAvx2) return kAvx2Loops;
#endif
  return kBaseLoops;
}

class ChangeCpu final : public ChangeDetector {
 public:
  explicit ChangeCpu(const ChangeConfig& c)
      : ChangeDetector(c),
        loops_(row_loops()),
        ww_(c.work_width()),
        wh_(c.work_height()),
        ring_(c.history) {
    const size_t n = (size_t)c.work_width() * c.work_height();
    ring_.for_each([n](std::vector<uint8_t>& work) { work.resize(n); });
    p_.resize(n);
    d_.resize(n);
  }

  Status push(const ImageView& luma, uint64_t frame, int n_threads) override {
    const ChangeConfig& c = config_;
    if (luma.width != c.width || luma.height != c.height || !luma.data)
      return Status(StatusCode::kInvalidArgument, "change: frame size");
    std::vector<uint8_t>* slot = ring_.next(frame);
    if (!slot) return Status(StatusCode::kInvalidArgument, "change: frame order");
    const int ww = c.work_width(), wh = c.work_height(), s = c.scale;
    uint8_t* work = slot->data();
    const int threads = team(n_threads, wh);
    cols_.resize((size_t)threads * c.width);
    /* A band of s rows a working row; the last column and row of cells
     * may be partial. */
    const int w = c.width;
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint16_t* cols = cols_.data() + (size_t)thread_index() * w;
      MATCH_OMP(for schedule(static))
      for (int y = 0; y < wh; ++y) {
        uint8_t* out = work + (size_t)y * ww;
        if (s == 1) {
          std::copy(luma.row(y), luma.row(y) + ww, out);
          continue;
        }
        const int y0 = y * s, y1 = std::min(y0 + s, c.height);
        first_row(cols, luma.row(y0), w);
        for (int yy = y0 + 1; yy < y1; ++yy) add_row(cols, luma.row(yy), w);
        const ChangeCellDivider cell((uint32_t)s * (uint32_t)(y1 - y0));
        const int full = w / s; /* cells of s columns */
        const bool square = y1 - y0 == s;
        switch (s) {
          case 2:
            if (square)
              square_cell_means<2>(cols, full, out);
            else
              cell_means<2>(cols, s, full, cell, out);
            break;
          case 4:
            if (square)
              square_cell_means<4>(cols, full, out);
            else
              cell_means<4>(cols, s, full, cell, out);
            break;
          default:
            cell_means<0>(cols, s, full, cell, out);
            break;
        }
        if (full < ww) { /* the partial last column */
          const int x0 = full * s;
          uint32_t sum = 0;
          for (int xx = x0; xx < w; ++xx) sum += cols[xx];
          const uint32_t m = (uint32_t)(w - x0) * (uint32_t)(y1 - y0);
          out[full] = (uint8_t)((sum + m / 2) / m);
        }
      }
    }
    const ChangeBackground::Step step = schedule_.next(c.background_every);
    if (step == ChangeBackground::kSet) {
      background_.assign(work, work + (size_t)ww * wh);
    } else if (step == ChangeBackground::kMove) {
      uint8_t* bg = background_.data();
      MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads > 1))
      for (int y = 0; y < wh; ++y)
        for (int x = 0; x < ww; ++x) {
          const size_t i = (size_t)y * ww + x;
          bg[i] = change_background_step(bg[i], work[i]);
        }
    }
    ring_.commit(frame);
    key_.valid = false;
    return Status::ok();
  }

  void restart_background() override { schedule_.valid = false; }

  /* The frame warped a row at a time (warp_row ()), then each cell that
   * the motion takes inside the image stepped towards it. */
  Status scene(uint64_t frame, const int64_t m[6], bool set, int n_threads) override {
    const ChangeConfig& c = config_;
    const uint8_t* w = find(frame);
    if (!w || (!set && scene_.empty()))
      return Status(StatusCode::kInvalidArgument,
                    "change: scene frame not kept or unset");
    const int ww = c.work_width(), wh = c.work_height();
    scene_.resize((size_t)ww * wh);
    const int threads = team(n_threads, wh);
    if (set) {
      MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads > 1))
      for (int y = 0; y < wh; ++y)
        loops_.warp(w, ww, wh, m, y, scene_.data() + (size_t)y * ww);
    } else {
      scene_rows_.resize((size_t)threads * ww);
      MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
        uint8_t* sample = scene_rows_.data() + (size_t)thread_index() * ww;
        MATCH_OMP(for schedule(static))
        for (int y = 0; y < wh; ++y) {
          loops_.warp(w, ww, wh, m, y, sample);
          uint8_t* row = scene_.data() + (size_t)y * ww;
          /* warp_row ()'s positions, unclamped. */
          int64_t fx, fy;
          warp_row_start(m, y, &fx, &fy);
          const int64_t hx = 16 * (int64_t)(ww - 1), hy = 16 * (int64_t)(wh - 1);
          for (int x = 0; x < ww; ++x, fx += 65536 + m[1], fy += m[4]) {
            const int64_t px = fx >> 12, py = fy >> 12;
            if (px >= 0 && px <= hx && py >= 0 && py <= hy)
              row[x] = change_background_step(row[x], sample[x]);
          }
        }
      }
    }
    if (key_.scene) key_.valid = false;
    return Status::ok();
  }

  Status analyse(const ChangeRequest& r, ChangeResult* out, int n_threads) override {
    const ChangeConfig& c = config_;
    const uint8_t* cur = find(r.frame);
    const uint8_t* prev =
        change_compared(r, schedule_, (const uint8_t*)background_.data(),
                        scene_.empty() ? nullptr : (const uint8_t*)scene_.data(),
                        [&](uint64_t n) { return find(n); });
    if (!cur || !prev)
      return Status(StatusCode::kInvalidArgument, "change: frame not kept");
    if (Status st = change_check_tiles(c, r); !st) return st;
    Status bg_status;
    departed_ = change_departed_background(
        r, schedule_, (const uint8_t*)background_.data(), &bg_status);
    if (!bg_status) return bg_status;
    sharp_ = r.sharp;
    const int ww = c.work_width(), wh = c.work_height();
    if (key_.matches(r)) {
      out->gain = difference_.gain;
      out->offset = difference_.offset;
      out->noise = difference_.noise;
      out->threshold = difference_.threshold;
      return project(r, cur, out->gain != kChangeGainOne ? gained_.data() : prev, out,
                     n_threads);
    }
    const bool moves = change_motion_nonzero(r.motion);
    const int threads = team(n_threads, wh);
    /* Per thread, kLanes histograms (histogram_row ()) of each. */
    dhist_.assign((size_t)threads * kLanes * 256, 0);
    ratio_hist_.assign((size_t)threads * kLanes * kGainSlots, 0);

    /* P and the histogram of W - P. */
    const uint8_t* pw = prev; /* identity: P is the previous image */
    if (moves) {
      MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads > 1))
      for (int y = 0; y < wh; ++y)
        loops_.warp(prev, ww, wh, r.motion, y, p_.data() + (size_t)y * ww);
      pw = p_.data();
    }
    /* The sampled cells (change_sampled ()): even rows, even columns; their
     * W - P, and W / P over the cells of every fourth row and column (the
     * dark ones into the last slot) where a gain is looked for. */
    const int sampled_cols = (ww + 1) / 2;
    const bool ratios = change_gain_sought(r);
    hist_.assign((size_t)threads * kLanes * 511, 0);
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint32_t* h = hist_.data() + (size_t)thread_index() * kLanes * 511;
      uint32_t* g = ratio_hist_.data() + (size_t)thread_index() * kLanes * kGainSlots;
      MATCH_OMP(for schedule(static))
      for (int y = 0; y < wh; y += 2) {
        const uint8_t* wr = cur + (size_t)y * ww;
        const uint8_t* pr = pw + (size_t)y * ww;
        histogram_row<511>(h, sampled_cols,
                           [&](int i) { return wr[2 * i] - pr[2 * i] + 255; });
        if (ratios && y % 4 == 0)
          histogram_row<kGainSlots>(g, (ww + 3) / 4, [&](int i) {
            const int v = pr[4 * i];
            return v < kChangeGainDark ? kChangeGainBins
                                       : change_gain_bin(wr[4 * i], reciprocals_[v]);
          });
      }
    }
    merge(&hist_, threads, 511);
    merge(&ratio_hist_, threads, kGainSlots);
    const uint64_t total = change_samples(ww, wh), cells = change_gain_samples(ww, wh);
    int b = change_lower_median(hist_.data(), 511, total) - 255;
    int g = !ratios ? kChangeGainOne
                    : change_gain(ratio_hist_.data(),
                                  cells - ratio_hist_[kChangeGainBins], cells);
    if (g != kChangeGainOne) {
      /* P gained, taken where it leaves less noise (its histogram over the
       * sampled cells first: most proposals are not taken): then the
       * compared image too (the explanations read it). */
      hist_gained_.assign((size_t)kLanes * 511, 0);
      for (int y = 0; y < wh; y += 2) {
        const uint8_t* wr = cur + (size_t)y * ww;
        const uint8_t* pr = pw + (size_t)y * ww;
        histogram_row<511>(hist_gained_.data(), sampled_cols, [&](int i) {
          return wr[2 * i] - change_gained(pr[2 * i], g) + 255;
        });
      }
      merge(&hist_gained_, 1, 511);
      const int bg = change_lower_median(hist_gained_.data(), 511, total) - 255;
      if (change_still_noise(hist_gained_.data(), bg, total) <
          change_still_noise(hist_.data(), b, total)) {
        b = bg;
        std::swap(hist_, hist_gained_);
        gained_.resize((size_t)ww * wh);
        for (size_t i = 0; i < gained_.size(); ++i)
          gained_[i] = (uint8_t)change_gained(prev[i], g);
        if (moves)
          for (uint8_t& v : p_) v = (uint8_t)change_gained(v, g);
        prev = gained_.data();
        pw = moves ? p_.data() : prev;
      } else {
        g = kChangeGainOne;
      }
    }
    out->gain = g;
    out->offset = b;
    if (!moves) {
      /* d is |W - P - b|: its median from the histogram above, and no d
       * image (project () takes the difference where it looks). */
      out->noise = change_still_noise(hist_.data(), b, total);
      return finish(r, cur, prev, out, n_threads);
    }

    /* d, the smallest difference over P's 3 x 3 neighbourhood, and its
     * histogram. */
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint32_t* h = dhist_.data() + (size_t)thread_index() * kLanes * 256;
      MATCH_OMP(for schedule(static))
      for (int y = 0; y < wh; ++y) {
        const uint8_t* row[3];
        for (int k = 0; k < 3; ++k)
          row[k] = pw + (size_t)std::clamp(y + k - 1, 0, wh - 1) * ww;
        uint8_t* dr = d_.data() + (size_t)y * ww;
        loops_.diff(cur + (size_t)y * ww, row[0], row[1], row[2], ww, b, dr);
        if (y % 2 == 0)
          histogram_row<256>(h, sampled_cols, [&](int i) { return dr[2 * i]; });
      }
    }
    merge(&dhist_, threads, 256);
    out->noise = change_lower_median(dhist_.data(), 256, total);
    return finish(r, cur, prev, out, n_threads);
  }

  void reset() override {
    ring_.reset();
    key_.valid = false;
    schedule_.valid = false;
    scene_.clear();
  }

 private:
  /* After out->offset and out->noise: the threshold, kept with the key,
   * then the projections. */
  Status finish(const ChangeRequest& r, const uint8_t* cur, const uint8_t* prev,
                ChangeResult* out, int n_threads) {
    out->threshold = change_threshold(out->noise, r.min_threshold);
    key_.set(r);
    difference_.gain = out->gain;
    difference_.offset = out->offset;
    difference_.noise = out->noise;
    difference_.threshold = out->threshold;
    return project(r, cur, prev, out, n_threads);
  }

  /* Sums the threads' kLanes histograms of `bins` bins into the first. */
  static void merge(std::vector<uint32_t>* hist, int threads, int bins) {
    uint32_t* h = hist->data();
    for (int k = 1; k < threads * kLanes; ++k)
      for (int v = 0; v < bins; ++v) h[v] += h[(size_t)k * bins + v];
  }

  /* The boxes' projections of d (their explained cells, ref's
   * change_explained(), where they ask): few, small boxes; one thread.
   * Then the tiles. */
  Status project(const ChangeRequest& r, const uint8_t* cur, const uint8_t* prev,
                 ChangeResult* out, int n_threads) {
    const ChangeConfig& c = config_;
    const int ww = c.work_width();
    out->counts.assign(change_layout(c, r.boxes, r.n_boxes, out), 0);
    out->extents.clear();
    out->light.clear();
    const int t = out->threshold, b = out->offset;
    const bool still = !change_motion_nonzero(r.motion);
    on_.resize(ww);
    scratch_.resize(3 * ww);
    for (int k = 0; k < r.n_boxes; ++k) {
      const ChangeBoxCells& cells = out->boxes[k];
      const ChangeBox& box = r.boxes[k];
      uint32_t* rows = out->counts.data() + cells.offset;
      uint32_t* cols = rows + cells.rows;
      for (int j = 0; j < cells.rows; ++j)
        rows[j] = row_changes(cur, prev, still, box.explain, box.shift_x, box.shift_y, b,
                              t, cells, j, on_.data(), scratch_.data(), cols);
    }
    project_tiles(r, cur, prev, out, n_threads);
    return Status::ok();
  }

  /* The tiles' trimmed changed pixels, runs of tiles over the threads. */
  void project_tiles(const ChangeRequest& r, const uint8_t* cur, const uint8_t* prev,
                     ChangeResult* out, int n_threads) {
    if (change_tiles_asked(r) && !r.tiles)
      return project_grid(r, cur, prev, out, n_threads);
    const ChangeConfig& c = config_;
    const int wh = c.work_height();
    const int t = out->threshold, b = out->offset;
    const bool still = !change_motion_nonzero(r.motion);
    const int columns = change_tile_columns(c, r);
    const int n_tiles = (int)change_tiles_count(c, r);
    out->tiles.resize(n_tiles);
    /* Threads over runs of tiles (a row of the grid, or as many listed). */
    const int run = std::max(columns, 1);
    const int runs = (n_tiles + run - 1) / run;
    const int threads = std::max(1, std::min(team(n_threads, wh), runs));
    /* The extents' scratch, a window a thread (change_extent ()). */
    const size_t window = change_extent_window(c, r);
    out->extents.resize(window ? n_tiles : 0);
    out->light.resize(r.light ? n_tiles : 0);
    /* P as d sees it: the warped image with a moving camera. */
    const uint8_t* p = still ? prev : p_.data();
    extent_seen_.resize(threads * window);
    extent_stack_.resize(threads * window);
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint32_t proj[2 * kChangeMaxTileCells];
      uint8_t on[kChangeMaxTileCells], scratch[3 * kChangeMaxTileCells];
      MATCH_OMP(for schedule(static))
      for (int q = 0; q < runs; ++q)
        for (int k = q * run; k < std::min(n_tiles, (q + 1) * run); ++k) {
          const ChangeTile ask = change_tile_asked(r, k);
          const ChangeBox box = change_tile(c.width, c.height, r.tile_width,
                                            r.tile_height, columns, ask.index);
          const ChangeBoxCells cells = change_box_cells(c, box);
          uint32_t* rows = proj;
          uint32_t* cols = proj + cells.rows;
          std::fill(proj, proj + cells.rows + cells.cols, 0u);
          /* The extent's walk takes the tile's own cells from here. */
          uint8_t* seen = extent_seen_.data() + thread_index() * window;
          const ChangeWindow win =
              change_extent_bounds(cells, c.work_width(), wh, r.extent_reach);
          const int win_cols = win.x1 - win.x0;
          if (window) std::fill(seen, seen + (size_t)win_cols * (win.y1 - win.y0), 0);
          for (int j = 0; j < cells.rows; ++j) {
            rows[j] = row_changes(cur, prev, still, ask.explain, ask.shift_x, ask.shift_y,
                                  b, t, cells, j, on, scratch, cols);
            if (window) {
              uint8_t* mark =
                  seen + (size_t)(cells.y0 + j - win.y0) * win_cols + (cells.x0 - win.x0);
              for (int i = 0; i < cells.cols; ++i)
                mark[i] = on[i] ? kExtentCounts : kExtentOff;
            }
          }
          ChangeTrim trim;
          out->tiles[k] = change_trim(box, cells, rows, cols, c.scale, &trim)
                              ? (uint32_t)trim.pixels
                              : 0;
          if (r.light)
            out->light[k] = out->tiles[k] > 0
                                ? change_light_sums(cur, p, c.work_width(), cells)
                                : ChangeLightSums{};
          if (window)
            out->extents[k] = (uint32_t)change_extent(
                cells, c.work_width(), wh, r.extent_reach,
                [&](int x, int y) { return counts(cur, prev, still, ask, b, t, x, y); },
                seen, extent_stack_.data() + thread_index() * window, true);
        }
    }
  }

  /* Whether cell (x, y) counts for a listed tile (row_changes ()'s test,
   * a cell at a time): for its extent, whose walk asks few cells. */
  bool counts(const uint8_t* cur, const uint8_t* prev, bool still, const ChangeTile& ask,
              int b, int t, int x, int y) const {
    const int ww = ww_, wh = wh_;
    const size_t at = (size_t)y * ww + x;
    const int change = still    ? change_abs_diff(cur[at], prev[at], b)
                       : sharp_ ? change_abs_diff(cur[at], p_[at], b)
                                : d_[at];
    return change > t &&
           (!ask.explain || change_counts_explained(cur, prev, departed_, ww, wh, x, y,
                                                    ask.shift_x, ask.shift_y, b, t));
  }

  /* Every tile of the grid (none explained), a row of tiles at a time:
   * each working row's changed cells found once across the image and
   * added to the row's column counts, long loops the compiler vectorises
   * (a tile at a time, a 16-pixel tile's rows are a few cells each). The
   * counts are row_changes ()'s: tiles sharing a working column (a tile
   * size that is no multiple of the scale) read the same column count. */
  void project_grid(const ChangeRequest& r, const uint8_t* cur, const uint8_t* prev,
                    ChangeResult* out, int n_threads) {
    const ChangeConfig& c = config_;
    const int ww = c.work_width(), wh = c.work_height();
    const int t = out->threshold, b = out->offset;
    const bool still = !change_motion_nonzero(r.motion);
    const int columns = change_tile_columns(c, r), rows = change_tile_rows(c, r);
    out->tiles.resize((size_t)columns * rows);
    /* The tiles' columns of cells, the same on every row of tiles; `span`
     * cells each, back to back, but for the last (row_sums ()). */
    grid_cells_.resize(columns);
    for (int k = 0; k < columns; ++k)
      grid_cells_[k] = change_box_cells(
          c, change_tile(c.width, c.height, r.tile_width, r.tile_height, columns, k));
    const int span = grid_cells_[0].cols;
    bool regular = true;
    for (int k = 0; k + 1 < columns; ++k)
      regular &= grid_cells_[k].x0 == k * span && grid_cells_[k].cols == span;
    const int threads = std::max(1, std::min(team(n_threads, wh), rows));
    /* Per thread: the column counts, each tile's row counts and a row's
     * changed cells, in whole 64-byte lines. */
    const size_t bytes = (size_t)ww * (1 + sizeof(uint32_t)) +
                         (size_t)columns * kChangeMaxTileCells * sizeof(uint32_t);
    const size_t slice = (bytes + 63) / 64 * 8;
    grid_.resize(threads * slice);
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint32_t* col_counts =
          reinterpret_cast<uint32_t*>(grid_.data() + thread_index() * slice);
      uint32_t* row_counts = col_counts + ww;
      uint8_t* on =
          reinterpret_cast<uint8_t*>(row_counts + (size_t)columns * kChangeMaxTileCells);
      MATCH_OMP(for schedule(static))
      for (int q = 0; q < rows; ++q) {
        const ChangeBox first = change_tile(c.width, c.height, r.tile_width,
                                            r.tile_height, columns, q * columns);
        const ChangeBoxCells band = change_box_cells(c, first);
        std::fill(col_counts, col_counts + ww, 0u);
        for (int j = 0; j < band.rows; ++j) {
          const size_t at = (size_t)(band.y0 + j) * ww;
          changed_row(cur, prev, still, at, ww, b, t, on);
          loops_.count(on, ww, col_counts);
          row_sums(on, regular ? span : 0, j, row_counts);
        }
        for (int k = 0; k < columns; ++k) {
          const ChangeBox box = change_tile(c.width, c.height, r.tile_width,
                                            r.tile_height, columns, q * columns + k);
          ChangeBoxCells cells = grid_cells_[k];
          cells.y0 = band.y0;
          cells.rows = band.rows;
          ChangeTrim trim;
          out->tiles[(size_t)q * columns + k] =
              change_trim(box, cells, row_counts + (size_t)k * kChangeMaxTileCells,
                          col_counts + cells.x0, c.scale, &trim)
                  ? (uint32_t)trim.pixels
                  : 0;
        }
      }
    }
  }

  /* Each tile's changed cells in a row (`on`), as its row j's count:
   * row_counts[k kChangeMaxTileCells + j]. With `span` (the tiles but the
   * last `span` cells each, back to back) of 4, 8 or 16, sums of a fixed
   * width. */
  void row_sums(const uint8_t* on, int span, int j, uint32_t* row_counts) const {
    const int columns = (int)grid_cells_.size();
    int k = 0;
    auto fixed = [&](auto width) {
      constexpr int W = decltype(width)::value;
      for (; k + 1 < columns; ++k) {
        uint32_t n = 0;
        for (int i = 0; i < W; ++i) n += on[k * W + i];
        row_counts[(size_t)k * kChangeMaxTileCells + j] = n;
      }
    };
    switch (span) {
      case 4:
        fixed(std::integral_constant<int, 4>());
        break;
      case 8:
        fixed(std::integral_constant<int, 8>());
        break;
      case 16:
        fixed(std::integral_constant<int, 16>());
        break;
      default:
        break;
    }
    for (; k < columns; ++k) {
      const ChangeBoxCells& cells = grid_cells_[k];
      uint32_t n = 0;
      for (int i = 0; i < cells.cols; ++i) n += on[cells.x0 + i];
      row_counts[(size_t)k * kChangeMaxTileCells + j] = n;
    }
  }

  /* The changed cells (changed_cells ()) of n working cells from `at`:
   * a still camera's from W and P (the compared image itself), a moving
   * one's from the kept d, or (ChangeRequest::sharp) from W and the warped
   * P. */
  void changed_row(const uint8_t* cur, const uint8_t* prev, bool still, size_t at, int n,
                   int b, int t, uint8_t* on) const {
    if (still)
      loops_.changed(cur + at, prev + at, nullptr, n, b, t, on);
    else if (sharp_)
      loops_.changed(cur + at, p_.data() + at, nullptr, n, b, t, on);
    else
      loops_.changed(cur + at, prev + at, d_.data() + at, n, b, t, on);
  }

  /* Row j of a box's cells: its changed cells (those its motion explains,
   * change_explained (), when it asks, and did not depart where the request
   * says so) added to cols, their count returned, and left in `on`;
   * `scratch`, 3 x cells.cols bytes. */
  uint32_t row_changes(const uint8_t* cur, const uint8_t* prev, bool still, bool explain,
                       int shift_x, int shift_y, int b, int t,
                       const ChangeBoxCells& cells, int j, uint8_t* on, uint8_t* scratch,
                       uint32_t* cols) const {
    const int n = cells.cols, y = cells.y0 + j;
    const size_t at = (size_t)y * ww_ + cells.x0;
    uint8_t *near = scratch, *back = scratch + n;
    changed_row(cur, prev, still, at, n, b, t, on);
    if (explain)
      explained_cells(cur, prev, y, cells.x0, n, shift_x, shift_y, b, t, on, near, on);
    if (explain && departed_) {
      /* change_departed (): W back to the background while P was not
       * (`back`), and P not found again in W around the cell the motion
       * took it to (the reversed explanation). */
      uint8_t any = 0;
      for (int i = 0; i < n; ++i) any |= on[i];
      if (any) {
        loops_.back(cur + at, prev + at, departed_ + at, on, n, t, back);
        any = 0;
        for (int i = 0; i < n; ++i) any |= back[i];
      }
      if (any) {
        uint8_t* found = scratch + 2 * n;
        explained_cells(prev, cur, y, cells.x0, n, -shift_x, -shift_y, -b, t, back, near,
                        found);
        for (int i = 0; i < n; ++i) on[i] &= (uint8_t)((back[i] ^ 1) | found[i]);
      }
    }
    return loops_.count(on, n, cols);
  }

  /* out[i] = ask[i] && change_explained (img, ref, ..., x0 + i, y, sx, sy,
   * b, t) for i in [0, n) (ask may be out): where the 3 x 3 window around
   * the shifted cell lies inside the image, one vectorised pass
   * (window_min_row ()); at the image's sides, cell by cell with the
   * clamps. `near`: n bytes of scratch, apart from ask and out. */
  void explained_cells(const uint8_t* img, const uint8_t* ref, int y, int x0, int n,
                       int sx, int sy, int b, int t, const uint8_t* ask, uint8_t* near,
                       uint8_t* out) const {
    const int ww = ww_, wh = wh_;
    const int shifted = x0 + sx; /* cell 0's shifted column */
    const int lo = std::clamp(1 - shifted, 0, n);
    const int hi = std::clamp(ww - 1 - shifted, lo, n);
    if (hi > lo) {
      const uint8_t* r[3]; /* the window's rows at cell lo's column */
      for (int k = 0; k < 3; ++k)
        r[k] = ref + (size_t)std::clamp(y + sy + k - 1, 0, wh - 1) * ww + (shifted + lo);
      loops_.window_min(img + (size_t)y * ww + x0 + lo, r[0], r[1], r[2], hi - lo, b,
                        near);
      for (int i = lo; i < hi; ++i) out[i] = ask[i] & (uint8_t)(near[i - lo] <= t);
    }
    auto clamped = [&](int i) {
      out[i] = ask[i] && change_explained(img, ref, ww, wh, x0 + i, y, sx, sy, b, t);
    };
    for (int i = 0; i < lo; ++i) clamped(i);
    for (int i = hi; i < n; ++i) clamped(i);
  }

  const uint8_t* find(uint64_t n) const {
    const std::vector<uint8_t>* w = ring_.find(n);
    return w ? w->data() : nullptr;
  }
  static int team(int n_threads, int rows) {
    /* The matcher's share of the cores (kernels/threads.h): the stage
     * runs in the same streaming thread, after it. */
    const int t = cpu_team(n_threads);
    /* Below ~64 rows a team costs more than it saves. */
    return std::max(1, std::min(t, rows / 64));
  }
  static int thread_index() {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
  }

  const RowLoops& loops_; /* this CPU's row loops */
  const int ww_, wh_;     /* the working image's size, asked per cell and row */
  ChangeRing<std::vector<uint8_t>> ring_;
  std::vector<uint16_t> cols_; /* push's column sums, a row per thread */
  std::vector<uint8_t> p_, d_;
  std::vector<uint8_t> on_, scratch_;      /* project ()'s rows for row_changes () */
  std::vector<uint64_t> grid_;             /* project_grid ()'s scratch, 64-byte slices */
  std::vector<uint8_t> extent_seen_;       /* project_tiles ()'s extent windows, */
  std::vector<int> extent_stack_;          /* one a thread */
  std::vector<ChangeBoxCells> grid_cells_; /* its tiles' columns of cells */
  std::vector<uint32_t> hist_, dhist_;     /* threads x kLanes histograms */
  std::vector<uint32_t> ratio_hist_;       /* of W / P, kGainSlots a lane */
  std::vector<uint32_t> hist_gained_;      /* of W - P gained */
  std::vector<uint8_t> gained_;            /* the compared image gained, if g is */
  static constexpr int kGainSlots = kChangeGainBins + 1; /* and the dark cells */
  /* change_gain_bin ()'s reciprocals of P. */
  static inline const std::array<int, 256> reciprocals_ = [] {
    std::array<int, 256> r{};
    for (int v = 1; v < 256; ++v) r[v] = change_gain_reciprocal(v);
    return r;
  }();
  ChangeKey key_; /* what d_ holds */
  ChangeBackground schedule_;
  std::vector<uint8_t> background_;
  std::vector<uint8_t> scene_;        /* empty until set */
  std::vector<uint8_t> scene_rows_;   /* scene ()'s samples, a row a thread */
  const uint8_t* departed_ = nullptr; /* this analysis' background, if departed */
  bool sharp_ = false;                /* this analysis' ChangeRequest::sharp */
  ChangeResult difference_;           /* its gain, offset, noise and threshold */
};

}  // namespace

std::unique_ptr<ChangeDetector> make_change_cpu(const ChangeConfig& config) {
  return std::make_unique<ChangeCpu>(config);
}

}  // namespace match
