/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The last stage of every POC backend: reach limit, candidate check by a
 * pixel cost, honest flags (poc.h: poc_reach(), poc_confidence_floor(),
 * poc_finish()). One definition: the per-block code is in
 * poc_finish_block.h, which this host stage (after the reference and the
 * CPU backend; PocMatcher::create() wraps the CPU matcher so that it calls
 * it) and the CUDA backend's kernels (cuda/poc_finish.cu, on the device
 * after its POC) both run, with integer costs, so the backends give the
 * same bits for the same POC vectors.
 *
 * Why a pixel cost on top of POC. A POC window of N pixels sees the motion
 * of everything inside it; where the window holds two motions (a boundary)
 * or the coarse layer picked the wrong one of several similar peaks
 * (repetitive or weak texture, large motion), the block gets a vector that
 * belongs to another part of the window, or to nothing. The block's own
 * pixels tell which of the vectors found around it fits it: the neighbours'
 * POC vectors are the candidates (they are what POC-HS already found for
 * the same content a block away), and the zero-mean SAD of the block's
 * support decides. The block's own vector is kept unless a candidate is
 * clearly better (kPocSwitchMargin), so that smooth fields keep their
 * sub-pixel POC estimates.
 */
#include <algorithm>
#include <cmath>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "match/poc.h"
#include "poc_finish_block.h"
#include "poc_fit.h"
#include "threads.h"

namespace match {

int poc_reach(const PocConfig& c) {
  /* The coarsest layer's POC surface wraps at N/2 of its pixels; a peak at
   * N/2 - 1 layer-L pixels is the furthest it can tell apart, and each finer
   * layer only refines it (its own correction beyond that is a wrapped,
   * ambiguous peak). In layer-0 pixels: (N/2 - 1) 2^L. */
  return (c.window_size / 2 - 1) << c.layers;
}

int poc_max_displacement(const PocConfig& c) {
  const int reach = poc_reach(c);
  return c.max_displacement > 0 ? std::min(c.max_displacement, reach) : reach;
}

double poc_confidence_floor(const PocConfig& c) {
  /* Unrelated windows give a POC surface of random phases: each sample is
   * about normal with a standard deviation of 1 / (2K + 1) in confidence
   * units (the sum of (2K+1)^2 unit phasors, normalised by (2K+1)^2) when
   * the bins are independent. The Hann window correlates neighbouring bins
   * (its equivalent noise bandwidth is 1.5 bins per axis), which leaves
   * (2K+1)^2 / 1.5^2 independent ones: the deviation is 1.5 / (2K + 1).
   * The highest of the N^2 samples is then about sqrt(2 ln N^2) deviations;
   * a peak no higher than that is indistinguishable from no match. */
  const int k = ref::poc_detail::lowpass_k(c.window_size, c.lowpass);
  const double n2 = static_cast<double>(c.window_size) * c.window_size;
  const double enbw = c.window == PocWindow::kHann ? 1.5 : 1.0;
  return enbw * std::sqrt(2.0 * std::log(n2)) / (2.0 * k + 1.0);
}

namespace poc_finish_detail {

FinishParams make_finish_params(const PocConfig& c, double min_confidence) {
  FinishParams p;
  p.width = c.width;
  p.height = c.height;
  p.cols = c.columns();
  p.rows = c.rows();
  p.spacing = c.spacing;
  p.reach = static_cast<float>(poc_max_displacement(c));
  p.unreliable_below = std::max(poc_confidence_floor(c), min_confidence);
  return p;
}

}  // namespace poc_finish_detail

namespace {

/* v's storage, grown to at least n. */
int* grown(std::vector<int>& v, size_t n) {
  if (v.size() < n) v.resize(n);
  return v.data();
}

/* The host's pixel accessor for the per-block code. */
struct U8Image {
  const ImageView* im;
  int operator()(int x, int y) const { return im->at(x, y); }
};

}  // namespace

Status poc_finish(const ImageView& earlier, const ImageView& later, const PocConfig& c,
                  const PocRuntime& rt, PocVector* v, const ImageView* before) {
  using namespace poc_finish_detail;
  const bool fwd = c.direction == Direction::kForward;
  const U8Image I{fwd ? &earlier : &later}; /* the frame the blocks tile */
  const U8Image J{fwd ? &later : &earlier}; /* the searched frame */
  /* The vote's third frame: before I, forward only (backward, the frame
   * that shows what J hides is the next one, not here yet). */
  if (before && (!before->data || before->width != c.width || before->height != c.height))
    return Status(StatusCode::kInvalidArgument, "poc_finish: frame before: size");
  const U8Image K{before};
  const U8Image* k = fwd && before ? &K : nullptr;
  const FinishParams p = make_finish_params(c, rt.min_confidence);
  const int nb = c.num_blocks();
  /* Kept between calls, so that a frame allocates nothing once they have
   * grown: the caller's copy of the vectors a pass reads (bound here: in
   * the parallel region the name would be each worker's own), each
   * worker's scratch. */
  static thread_local std::vector<PocVector> raw_kept;
  std::vector<PocVector>& raw = raw_kept;
#ifdef _OPENMP
  const int threads = cpu_team(rt.threads); /* threads.h */
#endif
  /* The candidate check (check_block(), ref/poc_finish_block.h;
   * kPocCandidatePasses passes, each on the results of the one before),
   * then the layer vote on its results (vote_block(), so a vector that
   * replaced a wrong one can spread one more block). Blocks are
   * independent within a pass (each reads `raw` and writes its own v[b]),
   * so threads change nothing in the results. Support of the cost: the
   * block itself (clipped to the frame); a support grown into the
   * neighbours was measured (docs/pocme.md) to let a neighbour's motion win
   * at motion boundaries. */
  const int checks = c.robust ? kPocCandidatePasses : 1;
  const int passes = checks + (c.robust ? 1 : 0);
#pragma omp parallel num_threads(threads)
  {
    static thread_local std::vector<int> check_kept, vote_kept;
    SerialTeam team;
    if (c.robust) {
      team.scratch = grown(check_kept, size_t(c.spacing) * c.spacing);
      team.vote = grown(vote_kept, vote_scratch_ints(c.spacing, k != nullptr));
    }
    for (int pass = 0; pass < passes; ++pass) {
#pragma omp single
      raw.assign(v, v + nb);
#pragma omp for schedule(dynamic, 16)
      for (int b = 0; b < nb; ++b)
        v[b] = pass < checks ? check_block(team, I, J, p, c.robust, raw.data(), b)
                             : vote_block(team, I, J, k, p, raw.data(), b);
    }
  }
  /* Optional post-filter (median_block()). Every vector is within reach
   * already. */
  if (c.median) {
    raw.assign(v, v + nb);
    for (int b = 0; b < nb; ++b) v[b] = median_block(p, raw.data(), b);
  }
  return Status::ok();
}

}  // namespace match
