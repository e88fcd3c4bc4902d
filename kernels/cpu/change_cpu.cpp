/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage on the CPU (match/change.h): the reference's
 * definitions (ref/change_arith.h) row by row over OpenMP threads, with the
 * frames in a ring allocated once, per-thread histograms merged after each
 * pass, and the warp skipped for a still camera (it is the identity then).
 * Tested equal to the reference (tests/kernels/test_change.cpp).
 */
#include <algorithm>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "internal.h"
#include "threads.h"
#include "ref/change_arith.h"

namespace match {
namespace {

class ChangeCpu final : public ChangeDetector {
 public:
  explicit ChangeCpu(const ChangeConfig& c) : ChangeDetector(c) {
    const size_t n = (size_t)c.work_width() * c.work_height();
    ring_.resize(c.history);
    for (Frame& f : ring_) f.work.resize(n);
    p_.resize(n);
    d_.resize(n);
    differs_.resize(n);
    protect_.resize(n);
    bg_.resize(n);
  }

  Status push(const ImageView& luma, uint64_t frame, int n_threads) override {
    const ChangeConfig& c = config_;
    if (luma.width != c.width || luma.height != c.height || !luma.data)
      return Status(StatusCode::kInvalidArgument, "change: frame size");
    if (pushed_ && frame <= last_)
      return Status(StatusCode::kInvalidArgument, "change: frame order");
    Frame& f = ring_[next_];
    next_ = (next_ + 1) % ring_.size();
    f.number = frame;
    f.valid = true;
    last_ = frame;
    pushed_ = true;
    const int ww = c.work_width(), wh = c.work_height(), s = c.scale;
    uint8_t* work = f.work.data();
    const int threads = team(n_threads, wh);
    MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads > 1))
    for (int y = 0; y < wh; ++y) {
      uint8_t* out = work + (size_t)y * ww;
      if (s == 1) {
        std::copy(luma.row(y), luma.row(y) + ww, out);
        continue;
      }
      for (int x = 0; x < ww; ++x) out[x] = change_cell_mean(luma, x, y, s);
    }
    return Status::ok();
  }

  Status analyse(const ChangeRequest& r, ChangeResult* out, int n_threads) override {
    const ChangeConfig& c = config_;
    const uint8_t* cur = find(r.frame);
    const uint8_t* prev = r.frame ? find(r.frame - 1) : nullptr;
    if (!cur || !prev)
      return Status(StatusCode::kInvalidArgument, "change: frame not kept");
    if (!change_request_ok(r))
      return Status(StatusCode::kInvalidArgument, "change: bad request");
    const int ww = c.work_width(), wh = c.work_height();
    const bool moves = change_motion_nonzero(r.motion);
    const int threads = team(n_threads, wh);
    hist_.assign((size_t)threads * 511, 0);
    dhist_.assign((size_t)threads * 256, 0);

    /* P and the histogram of W - P. */
    const uint8_t* pw = prev; /* identity: P is the previous image */
    if (moves) {
      MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads > 1))
      for (int y = 0; y < wh; ++y)
        for (int x = 0; x < ww; ++x)
          p_[(size_t)y * ww + x] =
              (uint8_t)change_warp_sample(prev, ww, wh, r.motion, x, y);
      pw = p_.data();
    }
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint64_t* h = hist_.data() + (size_t)thread_index() * 511;
      MATCH_OMP(for schedule(static))
      for (int y = 0; y < wh; ++y) {
        const uint8_t* wr = cur + (size_t)y * ww;
        const uint8_t* pr = pw + (size_t)y * ww;
        for (int x = 0; x < ww; ++x) h[wr[x] - pr[x] + 255]++;
      }
    }
    for (int t = 1; t < threads; ++t)
      for (int v = 0; v < 511; ++v) hist_[v] += hist_[(size_t)t * 511 + v];
    const uint64_t total = (uint64_t)ww * wh;
    const int b = change_lower_median(hist_.data(), 511, total) - 255;

    /* d and its histogram. */
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint64_t* h = dhist_.data() + (size_t)thread_index() * 256;
      MATCH_OMP(for schedule(static))
      for (int y = 0; y < wh; ++y) {
        const uint8_t* wr = cur + (size_t)y * ww;
        uint8_t* dr = d_.data() + (size_t)y * ww;
        if (!moves) {
          const uint8_t* pr = pw + (size_t)y * ww;
          for (int x = 0; x < ww; ++x) {
            dr[x] = (uint8_t)change_abs_diff(wr[x], pr[x], b);
            h[dr[x]]++;
          }
          continue;
        }
        const uint8_t* rows[3];
        for (int k = 0; k < 3; ++k)
          rows[k] = pw + (size_t)std::clamp(y + k - 1, 0, wh - 1) * ww;
        for (int x = 0; x < ww; ++x) {
          const int xl = x > 0 ? x - 1 : 0, xr = x + 1 < ww ? x + 1 : x;
          int best = 255;
          for (int k = 0; k < 3; ++k) {
            best = std::min(best, change_abs_diff(wr[x], rows[k][xl], b));
            best = std::min(best, change_abs_diff(wr[x], rows[k][x], b));
            best = std::min(best, change_abs_diff(wr[x], rows[k][xr], b));
          }
          dr[x] = (uint8_t)best;
          h[best]++;
        }
      }
    }
    for (int t = 1; t < threads; ++t)
      for (int v = 0; v < 256; ++v) dhist_[v] += dhist_[(size_t)t * 256 + v];
    out->offset = b;
    out->noise = change_lower_median(dhist_.data(), 256, total);
    out->threshold = change_threshold(out->noise, r.min_threshold);

    background(r, cur, moves, threads, out);

    threshold_ = out->threshold;
    analysed_ = true;
    return Status::ok();
  }

  Status project(const ChangeBox* boxes, int n_boxes,
                 ChangeResult* out) override {
    if (!analysed_)
      return Status(StatusCode::kInvalidArgument, "change: nothing analysed");
    const ChangeConfig& c = config_;
    const int ww = c.work_width();
    /* Projections: few, small boxes; one thread. */
    out->boxes.resize(n_boxes);
    size_t n_counts = 0;
    for (int k = 0; k < n_boxes; ++k) {
      out->boxes[k] = change_box_cells(c, boxes[k]);
      out->boxes[k].offset = n_counts;
      out->boxes[k].bg_offset = n_counts + out->boxes[k].rows + out->boxes[k].cols;
      n_counts += 2 * (out->boxes[k].rows + out->boxes[k].cols);
    }
    out->counts.assign(n_counts, 0);
    const int t = threshold_;
    for (const ChangeBoxCells& cells : out->boxes) {
      uint32_t* rows = out->counts.data() + cells.offset;
      uint32_t* cols = rows + cells.rows;
      uint32_t* brows = out->counts.data() + cells.bg_offset;
      uint32_t* bcols = brows + cells.rows;
      for (int j = 0; j < cells.rows; ++j) {
        const size_t at = (size_t)(cells.y0 + j) * ww + cells.x0;
        const uint8_t* dr = d_.data() + at;
        const uint8_t* br = differs_.data() + at;
        for (int i = 0; i < cells.cols; ++i) {
          if (dr[i] > t) {
            rows[j]++;
            cols[i]++;
          }
          if (br[i]) {
            brows[j]++;
            bcols[i]++;
          }
        }
      }
    }
    return Status::ok();
  }

  void reset() override {
    for (Frame& f : ring_) f.valid = false;
    pushed_ = false;
    have_bg_ = false;
    analysed_ = false;
  }

 private:
  /* The background (match/change.h): compared, counted per block, then
   * stepped towards W outside the protected boxes. */
  void background(const ChangeRequest& r, const uint8_t* cur, bool moves, int threads,
                  ChangeResult* out) {
    const ChangeConfig& c = config_;
    const int ww = c.work_width(), wh = c.work_height(), s = c.scale;
    const int gcols =
        r.block_width > 0 ? (c.width + r.block_width - 1) / r.block_width : 0;
    const int grows =
        r.block_height > 0 ? (c.height + r.block_height - 1) / r.block_height : 0;
    const size_t nblocks = (size_t)gcols * grows;
    out->block_counts.assign(nblocks, 0);
    std::fill(differs_.begin(), differs_.end(), 0);
    out->background = have_bg_ && !moves;
    out->bg_offset = 0;
    if (!out->background) {
      for (size_t i = 0; i < bg_.size(); ++i) bg_[i] = (uint16_t)(cur[i] * 256);
      have_bg_ = true;
      return;
    }
    hist_.assign((size_t)threads * 511, 0);
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint64_t* h = hist_.data() + (size_t)thread_index() * 511;
      MATCH_OMP(for schedule(static))
      for (int y = 0; y < wh; ++y) {
        const size_t row = (size_t)y * ww;
        for (int x = 0; x < ww; ++x)
          h[cur[row + x] - change_bg_grey(bg_[row + x]) + 255]++;
      }
    }
    for (int t = 1; t < threads; ++t)
      for (int v = 0; v < 511; ++v) hist_[v] += hist_[(size_t)t * 511 + v];
    const int bb = change_lower_median(hist_.data(), 511, (uint64_t)ww * wh) - 255;
    out->bg_offset = bb;

    /* The protected cells, painted once. */
    std::fill(protect_.begin(), protect_.end(), 0);
    for (int k = 0; k < r.n_protect; ++k) {
      const ChangeBox& b = r.protect[k];
      /* cells whose first pixel x s lies in [b.x, b.x + b.w) */
      const int x0 = std::max(0, (b.x + s - 1) / s);
      const int x1 = std::min(ww, (b.x + b.w + s - 1) / s);
      const int y0 = std::max(0, (b.y + s - 1) / s);
      const int y1 = std::min(wh, (b.y + b.h + s - 1) / s);
      if (b.w <= 0 || b.h <= 0 || b.x + b.w <= 0 || b.y + b.h <= 0) continue;
      for (int y = y0; y < y1; ++y)
        std::fill(protect_.begin() + (size_t)y * ww + x0,
                  protect_.begin() + (size_t)y * ww + std::max(x0, x1), 1);
    }

    block_hist_.assign((size_t)threads * nblocks, 0);
    const int t = out->threshold;
    MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
      uint32_t* bc = block_hist_.data() + (size_t)thread_index() * nblocks;
      MATCH_OMP(for schedule(static))
      for (int y = 0; y < wh; ++y) {
        const size_t row = (size_t)y * ww;
        const size_t brow = gcols > 0 ? (size_t)(y * s / r.block_height) * gcols : 0;
        for (int x = 0; x < ww; ++x) {
          const int w = cur[row + x];
          if (change_abs_diff(w, change_bg_grey(bg_[row + x]), bb) > t) {
            differs_[row + x] = 1;
            if (gcols > 0) bc[brow + x * s / r.block_width]++;
          }
          if (!protect_[row + x]) bg_[row + x] = change_bg_step(bg_[row + x], w, r.learn_shift);
        }
      }
    }
    for (int k = 0; k < threads; ++k)
      for (size_t i = 0; i < nblocks; ++i)
        out->block_counts[i] += block_hist_[(size_t)k * nblocks + i];
  }

  struct Frame {
    uint64_t number = 0;
    bool valid = false;
    std::vector<uint8_t> work;
  };
  const uint8_t* find(uint64_t n) const {
    for (const Frame& f : ring_)
      if (f.valid && f.number == n) return f.work.data();
    return nullptr;
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

  std::vector<Frame> ring_;
  size_t next_ = 0;
  uint64_t last_ = 0;
  bool pushed_ = false;
  std::vector<uint8_t> p_, d_, differs_, protect_;
  std::vector<uint16_t> bg_;
  bool have_bg_ = false;
  int threshold_ = 0; /* of the last analysis, for project () */
  bool analysed_ = false;
  std::vector<uint64_t> hist_, dhist_;
  std::vector<uint32_t> block_hist_;
};

}  // namespace

std::unique_ptr<ChangeDetector> make_change_cpu(const ChangeConfig& config) {
  return std::make_unique<ChangeCpu>(config);
}

}  // namespace match
