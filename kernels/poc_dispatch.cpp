/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * PocConfig validation and PocMatcher backend selection, with the same
 * exception barrier as BlockMatcher::create (dispatch.cpp): nothing thrown
 * inside the kernels crosses into gst/.
 */
#include <new>
#include <stdexcept>
#include <string>

#include "internal.h"
#include "match/log.h"
#include "match/poc.h"

namespace match {

namespace {

/* 2^a 3^b 5^c: the sizes the mixed-radix FFTs handle. */
bool is_smooth_235(int n) {
  if (n < 1) return false;
  for (int p : {2, 3, 5})
    while (n % p == 0) n /= p;
  return n == 1;
}

}  // namespace

Status PocConfig::validate() const {
  auto bad = [](const std::string& what) {
    return Status(StatusCode::kInvalidArgument, what);
  };
  if (width < 1 || height < 1 || width > kMaxFrameSize ||
      height > kMaxFrameSize)
    return bad("frame size " + std::to_string(width) + "x" +
               std::to_string(height) + " out of range");
  if (window_size < 32 || window_size > 256 || !is_smooth_235(window_size))
    return bad("POC window size " + std::to_string(window_size) +
               " must be in 32..256 and of the form 2^a 3^b 5^c");
  if (spacing < 4 || spacing > 256)
    return bad("POC block spacing " + std::to_string(spacing) +
               " out of range 4..256");
  if (layers < 0 || layers > 3)
    return bad("POC layers " + std::to_string(layers) + " out of range 0..3");
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

/* Backends without device input (CPU): the caller falls back to process()
 * from host memory. */
Status PocMatcher::process_device(const DeviceImageView&, const PocRuntime&,
                                  PocVector*, bool*) {
  return Status(StatusCode::kUnsupported,
                std::string("the ") + backend_name(backend()) +
                    " backend takes frames in host memory only");
}

}  // namespace match
