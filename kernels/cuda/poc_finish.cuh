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
 * src, dst)` per launch, in poc_finish()'s order: kFinishCheck for each
 * candidate pass and kFinishVote (with robust), then kFinishMedian. */
enum FinishKind { kFinishCheck, kFinishVote, kFinishMedian };

template <typename Step>
PocVector* finish_sequence(const PocConfig& c, PocVector* a, PocVector* b, Step step) {
  FinishKind kinds[kPocCandidatePasses + 2];
  int n = 0;
  for (int i = 0; i < (c.robust ? kPocCandidatePasses : 1); ++i)
    kinds[n++] = kFinishCheck;
  if (c.robust) kinds[n++] = kFinishVote;
  if (c.median) kinds[n++] = kFinishMedian;
  PocVector* src = a;
  PocVector* dst = b;
  for (int i = 0; i < n; ++i) {
    if (!step(kinds[i], src, dst)) return nullptr;
    PocVector* t = src;
    src = dst;
    dst = t;
  }
  return src;
}

}  // namespace poc_finish_gpu
}  // namespace cuda
}  // namespace match
