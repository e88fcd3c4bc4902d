/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * OpenMP CPU backend for block matching: the full search here, the fast
 * searches (config.method != kFull) in blockmatch_fast_cpu.cpp on the same
 * prepared frames.
 *
 * Each incoming frame is copied once into a padded plane whose border
 * replicates the edge pixels (clamp-to-edge addressing for free) and, for
 * sub-pel grids, into one plane per sub-pixel phase holding the bilinear
 * samples of match/blockmatch.h. The search then never tests bounds: every
 * candidate is a plain strided block in one of those planes. Two frame slots
 * are kept and swapped, so a frame is prepared exactly once. Blocks are
 * independent and spread over OpenMP threads (paper [D]'s outer-loop
 * strategy), so the result does not depend on the thread count.
 */
#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "blockmatch_fast_cpu.h"
#include "cpu_isa.h"
#include "internal.h"
#include "match/log.h"
#include "sad_cpu.h"
#include "threads.h"

namespace match {
namespace cpu {

namespace {

constexpr int kAlign = 64;

/* One prepared frame: `phases` planes of (padded) size, back to back. */
class FrameSlot {
 public:
  void allocate(const BlockMatchConfig& c) {
    /* Right of the frame the AVX2 narrow-block path reads up to range + 47
     * bytes past a block (several candidates per 32-byte load). */
    pad_x_ = c.range_x + 64;
    pad_y_ = c.range_y + 2;
    width_ = c.width;
    height_ = c.height;
    subpel_ = c.subpel;
    const int pw = c.width + 2 * pad_x_;
    stride_ = (pw + kAlign - 1) / kAlign * kAlign;
    /* A stride that is an even multiple of 64 (2048 for 1920-wide frames)
     * maps the rows of a block onto few cache sets; an odd multiple spreads
     * them (measured: 1080p half-pel 455 -> 280 ms per frame, 1 thread). */
    if ((stride_ / kAlign) % 2 == 0) stride_ += kAlign;
    rows_ = c.height + 2 * pad_y_;
    /* Planes are staggered by 3 cache lines for the same reason. */
    plane_bytes_ = static_cast<size_t>(stride_) * rows_ + 3 * kAlign;
    const int n = c.subpel * c.subpel;
    storage_.assign(plane_bytes_ * n + kAlign, 0);
    uint8_t* base = storage_.data();
    base += (kAlign - reinterpret_cast<uintptr_t>(base) % kAlign) % kAlign;
    base_ = base;
    origins_.resize(n);
    for (int i = 0; i < n; ++i)
      origins_[i] = base_ + plane_bytes_ * i + pad_y_ * stride_ + pad_x_;
    /* kHierarchical's reduced levels (empty for the other methods) */
    pyramid_.allocate(c);
    valid_ = false;
  }

  /* Copies `img` in, replicates the border, builds the sub-pel phases. */
  void prepare(const ImageView& img, int threads) {
    (void)threads; /* unused without OpenMP */
    uint8_t* p0 = base_;
    const int pw = width_ + 2 * pad_x_;
    /* Row y at `row` (its pixel 0), with its left and right padding. */
    auto fill = [&](int y, uint8_t* row) {
      const uint8_t* src = img.row(y);
      std::memset(row - pad_x_, src[0], pad_x_);
      std::memcpy(row, src, width_);
      std::memset(row + width_, src[width_ - 1], stride_ - pad_x_ - width_);
    };
    if (pyramid_.reduced() > 0) {
      /* The reduced levels (kHierarchical, kPredictive), level 1 summed as
       * the rows are copied (Pyramid::build). */
      pyramid_.build(FastPlane{origins_[0], stride_, width_, height_}, pad_x_, threads,
                     fill);
    } else {
      MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads != 1))
      for (int y = 0; y < height_; ++y) fill(y, p0 + (y + pad_y_) * stride_ + pad_x_);
    }
    for (int y = 0; y < pad_y_; ++y) {
      std::memcpy(p0 + y * stride_, p0 + pad_y_ * stride_, stride_);
      std::memcpy(p0 + (pad_y_ + height_ + y) * stride_,
                  p0 + (pad_y_ + height_ - 1) * stride_, stride_);
    }
    /* Phase (fx, fy) at (x, y) = bilinear of plane 0 at (x..x+1, y..y+1),
     * in quarter pixels. The last padded row/column pairs with itself; the
     * search never reaches it (the padding is wider than the range + 1). */
    const int step = kSubpelScale / subpel_;
    for (int j = 0; j < subpel_; ++j) {
      for (int i = 0; i < subpel_; ++i) {
        if (i == 0 && j == 0) continue;
        const int fx = i * step, fy = j * step;
        const int wa = (4 - fx) * (4 - fy), wb = fx * (4 - fy);
        const int wc = (4 - fx) * fy, wd = fx * fy;
        uint8_t* q = base_ + plane_bytes_ * (j * subpel_ + i);
        MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads != 1))
        for (int y = 0; y < rows_; ++y) {
          const uint8_t* r0 = p0 + y * stride_;
          const uint8_t* r1 = p0 + std::min(y + 1, rows_ - 1) * stride_;
          uint8_t* out = q + y * stride_;
          for (int x = 0; x < pw - 1; ++x)
            out[x] = static_cast<uint8_t>(
                (wa * r0[x] + wb * r0[x + 1] + wc * r1[x] + wd * r1[x + 1] + 8) >> 4);
          out[pw - 1] = r0[pw - 1];
        }
      }
    }
    valid_ = true;
  }

  /* The frame as it was given (interior of plane 0). */
  ImageView view() const { return ImageView{origins_[0], width_, height_, stride_}; }
  const uint8_t* const* origins() const { return origins_.data(); }
  /* What the fast searches read (blockmatch_fast_cpu.h). */
  FastFrame fast_frame() const { return FastFrame{origins_.data(), stride_, &pyramid_}; }
  std::ptrdiff_t stride() const { return stride_; }
  bool valid() const { return valid_; }
  void invalidate() { valid_ = false; }

 private:
  std::vector<uint8_t> storage_;
  uint8_t* base_ = nullptr;
  std::vector<const uint8_t*> origins_;
  Pyramid pyramid_;
  std::ptrdiff_t stride_ = 0;
  size_t plane_bytes_ = 0;
  int pad_x_ = 0, pad_y_ = 0, width_ = 0, height_ = 0, rows_ = 0, subpel_ = 1;
  bool valid_ = false;
};

class CpuBlockMatcher final : public BlockMatcher {
 public:
  explicit CpuBlockMatcher(const BlockMatchConfig& config) {
    config_ = config;
    isa_ = detect_isa();
    switch (isa_) {
      case Isa::kScalar:
        search_ = search_fn_scalar();
        break;
      case Isa::kSse2:
        search_ = search_fn_sse2();
        break;
      case Isa::kAvx2:
        search_ = search_fn_avx2();
        break;
    }
    for (auto& s : slots_) s.allocate(config_);
    fast_.configure(config_, isa_);
    log(LogLevel::kInfo,
        "CPU block matcher %dx%d, blocks %dx%d, range +-%d/+-%d, 1/%d pel, %s search, %s",
        config.width, config.height, config.block_width, config.block_height,
        config.range_x, config.range_y, config.subpel, search_method_name(config.method),
        isa_name(isa_));
  }

  Backend backend() const override { return Backend::kCpu; }
  int team() const override { return team_; }
  std::string description() const override {
    return std::string("cpu (") + isa_name(isa_) + ", " +
           std::to_string(default_threads()) + " threads)";
  }

  Status process(const ImageView& luma, const BlockMatchRuntime& rt, BlockVector* out,
                 bool* estimated) override {
    if (in_flight() > 0)
      return Status(StatusCode::kInvalidArgument,
                    "process() with frames in flight: collect() them first");
    if (luma.width != config_.width || luma.height != config_.height || !luma.data ||
        !out)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
    const auto t0 = std::chrono::steady_clock::now();
    const int threads = tuner_.next(rt.threads, cpu_team(0));
    team_ = threads;
    FrameSlot& cur = slots_[cur_];
    FrameSlot& prev = slots_[cur_ ^ 1];
    cur.prepare(luma, threads);
    const bool have_prev = prev.valid();
    if (have_prev) {
      const bool fwd = config_.direction == Direction::kForward;
      const FrameSlot& tiled = fwd ? prev : cur;
      const FrameSlot& searched = fwd ? cur : prev;
      if (config_.method == SearchMethod::kFull)
        estimate(tiled, searched, rt, threads, out);
      else
        fast_.estimate(tiled.fast_frame(), searched.fast_frame(), rt, threads, out);
      tuner_.record_since(t0);
    } else {
      std::fill(out, out + config_.num_blocks(), BlockVector{});
      fast_.forget(); /* the next estimate is a first one */
    }
    cur_ ^= 1;
    if (estimated) *estimated = have_prev;
    return Status::ok();
  }

  Status reconfigure(const BlockMatchConfig& config) override {
    Status st = config.validate();
    if (!st) return st;
    if (config.width != config_.width || config.height != config_.height)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure cannot change the frame size");
    if (in_flight() > 0)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure with frames in flight: collect() them first");
    FrameSlot old = std::move(slots_[cur_ ^ 1]);
    config_ = config;
    for (auto& s : slots_) s = FrameSlot();
    for (auto& s : slots_) s.allocate(config_);
    if (old.valid()) slots_[cur_ ^ 1].prepare(old.view(), default_threads());
    /* kPredictive's previous vectors survive a change of range or sub-pel
     * grid, not one of the block size, direction or method (see
     * FastSearch::configure). */
    fast_.configure(config_, isa_);
    return Status::ok();
  }

  void reset() override {
    for (auto& s : slots_) s.invalidate();
    fast_.forget();
    drop_pending();
  }

 private:
  /* n-threads = 0: this process's cores shared among its CPU matchers
   * (threads.h). */
  static int default_threads() { return cpu_team(0); }

  void estimate(const FrameSlot& tiled, const FrameSlot& searched,
                const BlockMatchRuntime& rt, int threads, BlockVector* out) {
    (void)threads; /* unused without OpenMP */
    const BlockMatchConfig& c = config_;
    const int cols = c.columns(), n = c.num_blocks();
    const int chunks_max = (c.block_width + 15) / 16;
    const ImageView t = tiled.view();
    MATCH_OMP(parallel num_threads(threads) if (threads != 1)) {
      alignas(32) uint8_t block[kMaxBlockSize * ((kMaxBlockSize + 15) / 16 * 16)];
      MATCH_OMP(for schedule(dynamic, 8))
      for (int i = 0; i < n; ++i) {
        const int x0 = (i % cols) * c.block_width;
        const int y0 = (i / cols) * c.block_height;
        BlockSearch s;
        s.w = std::min(c.block_width, c.width - x0);
        s.h = std::min(c.block_height, c.height - y0);
        s.chunks = std::min(chunks_max, (s.w + 15) / 16);
        const int pitch = s.chunks * 16;
        for (int y = 0; y < s.h; ++y) {
          std::memcpy(block + y * pitch, t.row(y0 + y) + x0, s.w);
          std::memset(block + y * pitch + s.w, 0, pitch - s.w);
        }
        s.block = block;
        s.phases = searched.origins();
        s.stride = searched.stride();
        s.x0 = x0;
        s.y0 = y0;
        s.range_xq = c.range_x * kSubpelScale;
        s.range_yq = c.range_y * kSubpelScale;
        s.subpel = c.subpel;
        s.step = kSubpelScale / c.subpel;
        s.threshold_total = rt.threshold * s.w * s.h;
        out[i] = search_(s);
      }
    }
  }

  CpuUser user_;    /* counts in cpu_team()'s share while this matcher lives */
  TeamTuner tuner_; /* the default team within that share */
  int team_ = 0;    /* the last frame's */
  FrameSlot slots_[2];
  int cur_ = 0;
  Isa isa_ = Isa::kScalar;
  SearchFn search_ = nullptr;
  FastSearch fast_; /* every method but kFull */
};

}  // namespace

Status create_block_matcher(const BlockMatchConfig& config,
                            std::unique_ptr<BlockMatcher>* out) {
  Status st = config.validate();
  if (!st) return st;
  out->reset(new CpuBlockMatcher(config));
  return Status::ok();
}

}  // namespace cpu
}  // namespace match
