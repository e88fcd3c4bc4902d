/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * What the device's poc_finish stage (poc_finish.cu) shares with its host
 * emulation (kernels/testing): the layer's image type and the order of the
 * stage's launches.
 */
#pragma once

#include "poc_kernels.cuh"
#include "ref/poc_finish_block.h"

namespace match {
namespace cuda {
namespace poc_finish_gpu {

/* Layer 0 as the per-block code reads it: exact grey levels in floats. */
struct FloatImage {
  const float* px;
  int w;
  MATCH_HD int operator()(int x, int y) const {
    return static_cast<int>(px[static_cast<size_t>(y) * w + x]);
  }
};

/* The order of the stage, for the launcher and its host twin: `step(kind,
 * src, dst)` per launch, kind 0 = a candidate pass, 1 = the median. */
template <typename Step>
PocVector* finish_sequence(const PocConfig& c, PocVector* a, PocVector* b, Step step) {
  PocVector* src = a;
  PocVector* dst = b;
  const int passes = c.robust ? kPocCandidatePasses : 1;
  for (int i = 0; i < passes + (c.median ? 1 : 0); ++i) {
    if (!step(i < passes ? 0 : 1, src, dst)) return nullptr;
    PocVector* t = src;
    src = dst;
    dst = t;
  }
  return src;
}

}  // namespace poc_finish_gpu
}  // namespace cuda
}  // namespace match
