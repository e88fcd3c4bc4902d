/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The stereo post-filters of match/stereo.h (3x3 median of the valid
 * values, speckle filter, row fill, joint median) on a host map, in place.
 * Host code of both backends: the CPU backend's, and the CUDA backend's
 * when a speckle filter asks for the map on the host (a flood fill has no
 * good GPU form at these region sizes): then the fill and the joint median
 * after it run here too.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "match/stereo.h"

namespace match {
namespace host {

/* Scratch kept by the caller so that filtering allocates only when the
 * frame size grows. */
struct StereoPostfilterScratch {
  std::vector<uint16_t> copy;
  std::vector<uint8_t> luma;                 /* the joint median's padded luma */
  std::vector<std::vector<uint16_t>> values; /* per thread: a row, a window */
  std::vector<int32_t> label;
  std::vector<int32_t> queue;
};

/* The median with `threads` OpenMP threads (0 = default). */
void stereo_median3(const DisparityView& map, int threads,
                    StereoPostfilterScratch* scratch);
void stereo_speckle(const DisparityView& map, int size, int range,
                    StereoPostfilterScratch* scratch);
void stereo_fill_invalid(const DisparityView& map, int threads,
                         StereoPostfilterScratch* scratch);
/* ref: the reference view's luma. */
void stereo_joint_median(const DisparityView& map, const ImageView& ref, int radius,
                         int range, int threads, StereoPostfilterScratch* scratch);
/* All, as the runtime settings ask, in match/stereo.h's order (median,
 * speckle, fill, joint median); ref: the reference view's luma. */
void stereo_postfilter(const DisparityView& map, const ImageView& ref,
                       const StereoRuntime& rt, StereoPostfilterScratch* scratch);

}  // namespace host
}  // namespace match
