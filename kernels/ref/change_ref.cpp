/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The reference of the change stage (match/change.h): the definitions as
 * plain loops, one pixel at a time, one thread. The arithmetic helpers are
 * shared with the backends (ref/change_arith.h): they ARE the definition.
 */
#include <algorithm>
#include <cstdlib>
#include <deque>

#include "match/change.h"
#include "ref/change_arith.h"

namespace match {
namespace {

class ChangeRef final : public ChangeDetector {
 public:
  explicit ChangeRef(const ChangeConfig& c) : ChangeDetector(c) {}

  Status push(const ImageView& luma, uint64_t frame, int) override {
    const ChangeConfig& c = config_;
    if (luma.width != c.width || luma.height != c.height || !luma.data)
      return Status(StatusCode::kInvalidArgument, "change: frame size");
    if (!frames_.empty() && frame <= frames_.back().number)
      return Status(StatusCode::kInvalidArgument, "change: frame order");
    Frame f;
    f.number = frame;
    f.work.resize((size_t)c.work_width() * c.work_height());
    for (int y = 0; y < c.work_height(); ++y)
      for (int x = 0; x < c.work_width(); ++x)
        f.work[(size_t)y * c.work_width() + x] = change_cell_mean(luma, x, y, c.scale);
    switch (schedule_.next(c.background_every)) {
      case ChangeBackground::kSet:
        background_ = f.work;
        break;
      case ChangeBackground::kMove:
        for (size_t i = 0; i < f.work.size(); ++i)
          background_[i] = change_background_step(background_[i], f.work[i]);
        break;
      case ChangeBackground::kNone:
        break;
    }
    frames_.push_back(std::move(f));
    while ((int)frames_.size() > c.history) frames_.pop_front();
    return Status::ok();
  }

  void restart_background() override { schedule_.valid = false; }

  Status scene(uint64_t frame, const int64_t motion[6], bool set, int) override {
    const ChangeConfig& c = config_;
    const std::vector<uint8_t>* w = find(frame);
    if (!w || (!set && scene_.empty()))
      return Status(StatusCode::kInvalidArgument,
                    "change: scene frame not kept or unset");
    const int ww = c.work_width(), wh = c.work_height();
    scene_.resize((size_t)ww * wh);
    for (int y = 0; y < wh; ++y)
      for (int x = 0; x < ww; ++x) {
        uint8_t& v = scene_[(size_t)y * ww + x];
        v = change_scene_step(v, w->data(), ww, wh, motion, x, y, set);
      }
    return Status::ok();
  }

  Status analyse(const ChangeRequest& r, ChangeResult* out, int) override {
    const ChangeConfig& c = config_;
    const std::vector<uint8_t>* cur = find(r.frame);
    const std::vector<uint8_t>* prev =
        change_compared(r, schedule_, &background_, scene_.empty() ? nullptr : &scene_,
                        [&](uint64_t n) { return find(n); });
    if (!cur || !prev)
      return Status(StatusCode::kInvalidArgument, "change: frame not kept");
    if (Status st = change_check_tiles(c, r); !st) return st;
    Status bg_status;
    const std::vector<uint8_t>* bg =
        change_departed_background(r, schedule_, &background_, &bg_status);
    if (!bg_status) return bg_status;
    const int ww = c.work_width(), wh = c.work_height();
    const bool moves = change_motion_nonzero(r.motion);

    /* P, the warped previous image. */
    std::vector<int> p((size_t)ww * wh);
    for (int y = 0; y < wh; ++y)
      for (int x = 0; x < ww; ++x)
        p[(size_t)y * ww + x] = change_warp_sample(prev->data(), ww, wh, r.motion, x, y);

    /* g: lower median of W / P over the sampled cells bright enough, and
     * b: lower median of W - P; with P gained instead where g is one and
     * that leaves less noise. */
    const uint64_t samples = change_samples(ww, wh);
    auto offsets = [&](const std::vector<int>& q) {
      std::vector<uint64_t> hist(511, 0);
      for (int y = 0; y < wh; ++y)
        for (int x = 0; x < ww; ++x) {
          const size_t i = (size_t)y * ww + x;
          if (change_sampled(x, y)) hist[(*cur)[i] - q[i] + 255]++;
        }
      return hist;
    };
    std::vector<uint64_t> ratios(kChangeGainBins, 0);
    uint64_t n_ratios = 0;
    for (int y = 0; y < wh && change_gain_sought(r); ++y)
      for (int x = 0; x < ww; ++x) {
        const size_t i = (size_t)y * ww + x;
        if (!change_gain_sampled(x, y) || p[i] < kChangeGainDark) continue;
        ratios[change_gain_bin((*cur)[i], change_gain_reciprocal(p[i]))]++;
        n_ratios++;
      }
    int g = change_gain(ratios.data(), n_ratios, change_gain_samples(ww, wh));
    std::vector<uint64_t> hist = offsets(p);
    int b = change_lower_median(hist.data(), 511, samples) - 255;
    std::vector<uint8_t> gained;
    if (g != kChangeGainOne) {
      std::vector<int> pg(p.size());
      for (size_t i = 0; i < p.size(); ++i) pg[i] = change_gained(p[i], g);
      std::vector<uint64_t> hg = offsets(pg);
      const int bg = change_lower_median(hg.data(), 511, samples) - 255;
      if (change_still_noise(hg.data(), bg, samples) <
          change_still_noise(hist.data(), b, samples)) {
        p = pg;
        hist = hg;
        b = bg;
        gained.resize(prev->size());
        for (size_t i = 0; i < gained.size(); ++i)
          gained[i] = change_gained((*prev)[i], g);
        prev = &gained;
      } else {
        g = kChangeGainOne;
      }
    }
    out->gain = g;

    /* d, its lower median, t. */
    std::vector<int> d((size_t)ww * wh);
    std::vector<uint64_t> dh(256, 0);
    for (int y = 0; y < wh; ++y)
      for (int x = 0; x < ww; ++x) {
        const int w = (*cur)[(size_t)y * ww + x];
        int best = 255;
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            if (!moves && (dx || dy)) continue;
            const int qx = std::clamp(x + dx, 0, ww - 1);
            const int qy = std::clamp(y + dy, 0, wh - 1);
            best = std::min(best, change_abs_diff(w, p[(size_t)qy * ww + qx], b));
          }
        d[(size_t)y * ww + x] = best;
        if (change_sampled(x, y)) dh[best]++;
      }
    out->offset = b;
    out->noise = change_lower_median(dh.data(), 256, samples);
    out->threshold = change_threshold(out->noise, r.min_threshold);

    /* Whether cell (x, y) counts for a box: changed, and explained and
     * not departed where it asks. */
    auto counts = [&](const ChangeBox& box, int x, int y) {
      const size_t at = (size_t)y * ww + x;
      const int t = out->threshold;
      const int change = r.sharp && moves ? change_abs_diff((*cur)[at], p[at], b) : d[at];
      return change > t &&
             (!box.explain || change_counts_explained(
                                  cur->data(), prev->data(), bg ? bg->data() : nullptr,
                                  ww, wh, x, y, box.shift_x, box.shift_y, b, t));
    };
    /* The projections of a box's changed (explained) cells. */
    auto project = [&](const ChangeBox& box, const ChangeBoxCells& cells, uint32_t* rows,
                       uint32_t* cols) {
      for (int j = 0; j < cells.rows; ++j)
        for (int i = 0; i < cells.cols; ++i)
          if (counts(box, cells.x0 + i, cells.y0 + j)) {
            rows[j]++;
            cols[i]++;
          }
    };
    out->boxes.clear();
    out->counts.clear();
    for (int k = 0; k < r.n_boxes; ++k) {
      ChangeBoxCells cells = change_box_cells(c, r.boxes[k]);
      cells.offset = out->counts.size();
      out->counts.resize(out->counts.size() + cells.rows + cells.cols, 0);
      uint32_t* rows = out->counts.data() + cells.offset;
      project(r.boxes[k], cells, rows, rows + cells.rows);
      out->boxes.push_back(cells);
    }
    /* Each tile as a box of its own. */
    out->tiles.clear();
    out->extents.clear();
    out->light.clear();
    std::vector<uint8_t> seen(change_extent_window(c, r));
    std::vector<int> stack(seen.size());
    const int columns = change_tile_columns(c, r);
    const int n_tiles = (int)change_tiles_count(c, r);
    for (int k = 0; k < n_tiles; ++k) {
      const ChangeTile ask = change_tile_asked(r, k);
      ChangeBox box =
          change_tile(c.width, c.height, r.tile_width, r.tile_height, columns, ask.index);
      box.explain = ask.explain;
      box.shift_x = ask.shift_x;
      box.shift_y = ask.shift_y;
      const ChangeBoxCells cells = change_box_cells(c, box);
      std::vector<uint32_t> rows(cells.rows, 0), cols(cells.cols, 0);
      project(box, cells, rows.data(), cols.data());
      ChangeTrim trim;
      const bool kept = change_trim(box, cells, rows.data(), cols.data(), c.scale, &trim);
      out->tiles.push_back(kept ? (uint32_t)trim.pixels : 0);
      if (r.light)
        out->light.push_back(out->tiles.back() > 0
                                 ? change_light_sums(cur->data(), p.data(), ww, cells)
                                 : ChangeLightSums{});
      if (r.extent_reach > 0)
        out->extents.push_back((uint32_t)change_extent(
            cells, ww, wh, r.extent_reach,
            [&](int x, int y) { return counts(box, x, y); }, seen.data(), stack.data()));
    }
    return Status::ok();
  }

  void reset() override {
    frames_.clear();
    schedule_.valid = false;
    scene_.clear();
  }

 private:
  struct Frame {
    uint64_t number = 0;
    std::vector<uint8_t> work;
  };
  const std::vector<uint8_t>* find(uint64_t n) const {
    for (const Frame& f : frames_)
      if (f.number == n) return &f.work;
    return nullptr;
  }
  std::deque<Frame> frames_;
  ChangeBackground schedule_;
  std::vector<uint8_t> background_;
  std::vector<uint8_t> scene_; /* empty until set */
};

}  // namespace

std::unique_ptr<ChangeDetector> make_change_ref(const ChangeConfig& config) {
  return std::make_unique<ChangeRef>(config);
}

}  // namespace match
