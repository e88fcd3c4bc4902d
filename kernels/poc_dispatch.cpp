/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * PocConfig validation and PocMatcher backend selection, with the same
 * exception barrier as BlockMatcher::create (backend.h): nothing thrown
 * inside the kernels crosses into gst/.
 */
#include <algorithm>
#include <new>
#include <vector>
#include <stdexcept>
#include <string>

#include "backend.h"
#include "internal.h"
#include "match/log.h"
#include "match/poc.h"

namespace match {

Status PocConfig::validate() const {
  auto bad = [](const char* field, const std::string& what) {
    return Status(StatusCode::kInvalidArgument, what, field);
  };
  if (Status st = check_frame_size(width, height); !st) return st;
  if (window_size < kMinPocWindowSize || window_size > kMaxPocWindowSize ||
      !is_poc_fft_size(window_size))
    return bad("window_size", "POC window size " + std::to_string(window_size) +
                                  " must be in " + std::to_string(kMinPocWindowSize) +
                                  ".." + std::to_string(kMaxPocWindowSize) +
                                  " and of the form 2^a 3^b 5^c");
  if (spacing < kMinPocSpacing || spacing > kMaxPocSpacing)
    return bad("spacing", "POC block spacing " + std::to_string(spacing) +
                              " out of range " + std::to_string(kMinPocSpacing) + ".." +
                              std::to_string(kMaxPocSpacing));
  if (layers < 0 || layers > kMaxPocLayers)
    return bad("layers", "POC layers " + std::to_string(layers) + " out of range 0.." +
                             std::to_string(kMaxPocLayers));
  /* Each coarser layer halves the size (2x2 averaging, odd remainders
   * dropped); the coarsest must keep at least one pixel. Frames smaller than
   * the window are fine: windows sample with clamp-to-edge. */
  if ((width >> layers) < 1 || (height >> layers) < 1)
    return bad("layers", "frame " + std::to_string(width) + "x" + std::to_string(height) +
                             " too small for " + std::to_string(layers) +
                             " coarser layers");
  if (window != PocWindow::kHann && window != PocWindow::kNone)
    return bad("window", "unknown POC window function");
  if (!(lowpass > 0.0 && lowpass <= 1.0))
    return bad("lowpass", "POC low-pass cut-off must be in (0, 1]");
  if (direction != Direction::kForward && direction != Direction::kBackward)
    return bad("direction", "unknown direction");
  if (max_displacement < 0)
    return bad("max_displacement", "POC max displacement must be >= 0 (0 = the reach)");
  if (coarse != PocCoarse::kPerBlock && coarse != PocCoarse::kShared &&
      coarse != PocCoarse::kSharedMedian)
    return bad("coarse", "unknown POC coarse-layer mode");
  return Status::ok();
}

bool PocConfig::operator==(const PocConfig& o) const {
  return width == o.width && height == o.height && window_size == o.window_size &&
         spacing == o.spacing && layers == o.layers && window == o.window &&
         lowpass == o.lowpass && direction == o.direction &&
         max_displacement == o.max_displacement && robust == o.robust &&
         median == o.median && coarse == o.coarse;
}

namespace {

/* Runs poc_finish() (reach, candidate check, flags: ref/poc_robust.cpp) on
 * the host after the CPU backend's POC. The CUDA backend runs the same
 * per-block code (ref/poc_finish_block.h) on the device after its POC
 * (cuda/poc_finish.cu) and is not wrapped. The wrapper keeps host copies of
 * the previous frame for the pixel cost and, for forward fields, of the one
 * before it for the layer vote (poc_finish()'s `before`). */
class FinishingPocMatcher final : public PocMatcher {
 public:
  explicit FinishingPocMatcher(std::unique_ptr<PocMatcher> inner)
      : inner_(std::move(inner)) {
    config_ = inner_->config();
  }

  Backend backend() const override { return inner_->backend(); }
  std::string description() const override { return inner_->description(); }
  int max_in_flight() const override { return inner_->max_in_flight(); }
  int team() const override { return inner_->team(); }
  MatcherStats stats() const override { return inner_->stats(); }

  Status process(const ImageView& luma, const PocRuntime& rt, PocVector* out,
                 bool* estimated) override {
    bool est = false;
    Status st = inner_->process(luma, rt, out, &est);
    if (estimated) *estimated = est;
    if (!st) return st;
    if (est) {
      PocConfig c = config_;
      if (!have_prev_) c.robust = false; /* no host copy of the reference */
      const ImageView prev{prev_.data(), config_.width, config_.height, config_.width};
      const ImageView before{before_.data(), config_.width, config_.height,
                             config_.width};
      st = poc_finish(have_prev_ ? prev : luma, luma, c, rt, out,
                      have_before_ ? &before : nullptr);
      if (!st) return st;
    }
    keep(luma);
    return Status::ok();
  }

  Status reconfigure(const PocConfig& config) override {
    Status st = inner_->reconfigure(config);
    if (st) config_ = config;
    return st;
  }

  void reset() override {
    inner_->reset();
    drop_pending();
    have_prev_ = have_before_ = false;
  }

 private:
  void keep(const ImageView& luma) {
    /* The previous frame becomes the one before (a swap: no copy, and both
     * keep their storage). */
    prev_.swap(before_);
    have_before_ = have_prev_;
    prev_.resize(static_cast<size_t>(luma.width) * luma.height);
    for (int y = 0; y < luma.height; ++y)
      std::copy(luma.row(y), luma.row(y) + luma.width,
                prev_.begin() + static_cast<size_t>(y) * luma.width);
    have_prev_ = true;
  }

  std::unique_ptr<PocMatcher> inner_;
  std::vector<uint8_t> prev_, before_;
  bool have_prev_ = false, have_before_ = false;
};

}  // namespace

Status PocMatcher::create(Backend backend, const PocConfig& config,
                          std::unique_ptr<PocMatcher>* out,
                          const DeviceOptions& devices) {
  std::unique_ptr<PocMatcher> inner;
  Status st = create_preferring_cuda("POC", backend, config, &inner, devices,
                                     cuda::create_poc_matcher, cpu::create_poc_matcher);
  if (!st) return st;
  if (!out) return Status(StatusCode::kInvalidArgument, "no output pointer");
  if (inner->backend() == Backend::kCuda) {
    /* poc_finish runs on the device, inside the CUDA matcher. */
    *out = std::move(inner);
    return Status::ok();
  }
  try {
    *out = std::make_unique<FinishingPocMatcher>(std::move(inner));
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory creating the POC matcher");
  }
  return Status::ok();
}

/* Default pipelining: every POC backend computes inside submit() and the
 * vectors wait in the ring (in_flight.h), as BlockMatcher's CPU backend. */
Status PocMatcher::submit(const ImageView& luma, const PocRuntime& rt) {
  return pending_.submit_vectors(
      max_in_flight(), config_.num_blocks(),
      [&](PocVector* out, bool* estimated) { return process(luma, rt, out, estimated); });
}

Status PocMatcher::collect(PocVector* out, bool* estimated) {
  return pending_.collect_vectors(config_.num_blocks(), out, estimated);
}

/* Backends without device input (CPU): the caller falls back to host
 * memory. */
Status PocMatcher::submit_device(const DeviceImageView&, const PocRuntime&) {
  return host_memory_only(backend());
}

bool PocMatcher::collected_frame(int, DeviceImageView*) { return false; }

Status PocMatcher::process_device(const DeviceImageView& luma, const PocRuntime& rt,
                                  PocVector* out, bool* estimated) {
  if (in_flight() > 0)
    return Status(StatusCode::kInvalidArgument,
                  "process_device() with frames in flight: collect() them "
                  "first");
  /* Checked first: a frame submitted for a missing output would move the
   * previous frame on and be lost. */
  if (!out) return Status(StatusCode::kInvalidArgument, "no output array");
  Status st = submit_device(luma, rt);
  if (!st) return st;
  return collect(out, estimated);
}

}  // namespace match
