/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * PocConfig validation and PocMatcher backend selection, with the same
 * exception barrier as BlockMatcher::create (backend.h): nothing thrown
 * inside the kernels crosses into gst/.
 */
#include <new>
#include <stdexcept>
#include <string>

#include "backend.h"
#include "internal.h"
#include "match/log.h"
#include "match/poc.h"

namespace match {

Status PocConfig::validate() const {
  auto bad = [](const std::string& what) {
    return Status(StatusCode::kInvalidArgument, what);
  };
  if (width < 1 || height < 1 || width > kMaxFrameSize ||
      height > kMaxFrameSize)
    return bad("frame size " + std::to_string(width) + "x" +
               std::to_string(height) + " out of range");
  if (window_size < kMinPocWindowSize || window_size > kMaxPocWindowSize ||
      !is_poc_fft_size(window_size))
    return bad("POC window size " + std::to_string(window_size) + " must be in " +
               std::to_string(kMinPocWindowSize) + ".." +
               std::to_string(kMaxPocWindowSize) +
               " and of the form 2^a 3^b 5^c");
  if (spacing < kMinPocSpacing || spacing > kMaxPocSpacing)
    return bad("POC block spacing " + std::to_string(spacing) +
               " out of range " + std::to_string(kMinPocSpacing) + ".." +
               std::to_string(kMaxPocSpacing));
  if (layers < 0 || layers > kMaxPocLayers)
    return bad("POC layers " + std::to_string(layers) + " out of range 0.." +
               std::to_string(kMaxPocLayers));
  /* Each coarser layer halves the size (2x2 averaging, odd remainders
   * dropped); the coarsest must keep at least one pixel. Frames smaller than
   * the window are fine: windows sample with clamp-to-edge. */
  if ((width >> layers) < 1 || (height >> layers) < 1)
    return bad("frame " + std::to_string(width) + "x" +
               std::to_string(height) + " too small for " +
               std::to_string(layers) + " coarser layers");
  if (window != PocWindow::kHann && window != PocWindow::kNone)
    return bad("unknown POC window function");
  if (!(lowpass > 0.0 && lowpass <= 1.0))
    return bad("POC low-pass cut-off must be in (0, 1]");
  if (direction != Direction::kForward && direction != Direction::kBackward)
    return bad("unknown direction");
  return Status::ok();
}

bool PocConfig::operator==(const PocConfig& o) const {
  return width == o.width && height == o.height &&
         window_size == o.window_size && spacing == o.spacing &&
         layers == o.layers && window == o.window && lowpass == o.lowpass &&
         direction == o.direction;
}

Status PocMatcher::create(Backend backend, const PocConfig& config,
                          std::unique_ptr<PocMatcher>* out,
                          const DeviceOptions& devices) {
  return create_preferring_cuda("POC", backend, config, out, devices,
                                 cuda::create_poc_matcher, cpu::create_poc_matcher);
}

/* Default pipelining: every POC backend computes inside submit() and the
 * vectors wait in the ring (in_flight.h), as BlockMatcher's CPU backend. */
Status PocMatcher::submit(const ImageView& luma, const PocRuntime& rt) {
  return pending_.submit_vectors(
      max_in_flight(), config_.num_blocks(),
      [&](PocVector* out, bool* estimated) {
        return process(luma, rt, out, estimated);
      });
}

Status PocMatcher::collect(PocVector* out, bool* estimated) {
  return pending_.collect_vectors(config_.num_blocks(), out, estimated);
}

/* Backends without device input (CPU): the caller falls back to host
 * memory. */
Status PocMatcher::submit_device(const DeviceImageView&, const PocRuntime&) {
  return host_memory_only(backend());
}

Status PocMatcher::process_device(const DeviceImageView& luma,
                                  const PocRuntime& rt, PocVector* out,
                                  bool* estimated) {
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
