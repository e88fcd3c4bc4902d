/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The last stage of every POC backend: reach limit, candidate check by a
 * pixel cost, honest flags (poc.h: poc_reach(), poc_confidence_floor(),
 * poc_finish()). One definition, run on the host after the POC of every
 * backend (ref::poc_match calls it, and PocMatcher::create() wraps the CPU
 * and CUDA matchers so that they call it on their POC vectors), so the
 * backends agree by construction as far as their POC vectors agree.
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
#include "poc_fit.h"

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

namespace {

/* |(dx, dy)| <= r, without a square root (in double: exact for floats). */
inline bool within(double dx, double dy, double r) { return dx * dx + dy * dy <= r * r; }

/* Bilinear sample with clamp-to-edge. */
inline float sample(const ImageView& im, float x, float y) {
  x = std::clamp(x, 0.f, static_cast<float>(im.width - 1));
  y = std::clamp(y, 0.f, static_cast<float>(im.height - 1));
  const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
  const int x1 = std::min(x0 + 1, im.width - 1);
  const int y1 = std::min(y0 + 1, im.height - 1);
  const float fx = x - x0, fy = y - y0;
  const float a = im.at(x0, y0) + fx * (im.at(x1, y0) - im.at(x0, y0));
  const float b = im.at(x0, y1) + fx * (im.at(x1, y1) - im.at(x0, y1));
  return a + fy * (b - a);
}

}  // namespace

Status poc_finish(const ImageView& earlier, const ImageView& later, const PocConfig& c,
                  const PocRuntime& rt, PocVector* v) {
  const bool fwd = c.direction == Direction::kForward;
  const ImageView& I = fwd ? earlier : later; /* the frame the blocks tile */
  const ImageView& J = fwd ? later : earlier; /* the searched frame */
  const int cols = c.columns(), rows = c.rows(), s = c.spacing;
  const float reach = static_cast<float>(poc_max_displacement(c));
  const double unreliable_below = std::max(poc_confidence_floor(c), rt.min_confidence);
  std::vector<PocVector> raw;
#ifdef _OPENMP
  const int threads = rt.threads > 0 ? rt.threads : omp_get_max_threads();
#endif
  /* Pass 2 takes pass 1's results as the candidates: a vector that
   * replaced a wrong one can spread one more block (propagation). */
  for (int pass = 0; pass < (c.robust ? kPocCandidatePasses : 1); ++pass) {
    raw.assign(v, v + c.num_blocks());
    auto in_reach = [&](const PocVector& p) { return within(p.dx, p.dy, reach); };

    /* Support of the cost: the block itself (clipped to the frame). The
     * vector is the block's; a support grown into the neighbours was
     * measured (docs/pocme.md) to let a neighbour's motion win at motion
     * boundaries. */
    /* Blocks are independent within a pass (each reads `raw` and writes
     * its own v[b]), so threads change nothing in the results. */
#pragma omp parallel num_threads(threads)
    {
      std::vector<float> ref_px, cand_px;
#pragma omp for schedule(dynamic, 16)
      for (int b = 0; b < c.num_blocks(); ++b) {
        const int bc = b % cols, br = b / cols;
        PocVector& out = v[b];
        out = raw[b];
        if (c.robust) {
          const int x0 = bc * s, y0 = br * s;
          const int x1 = std::min(x0 + s, c.width);
          const int y1 = std::min(y0 + s, c.height);
          const int npx = (x1 - x0) * (y1 - y0);
          double mean_i = 0.0;
          bool have_ref = false; /* the block's pixels, read on first use */
          /* Zero-mean SAD per pixel: insensitive to a brightness offset, as
         * POC is. */
          auto cost = [&](float dx, float dy) {
            if (!have_ref) {
              ref_px.resize(npx);
              for (int y = y0, i = 0; y < y1; ++y)
                for (int x = x0; x < x1; ++x, ++i) {
                  ref_px[i] = I.at(x, y);
                  mean_i += ref_px[i];
                }
              mean_i /= npx;
              have_ref = true;
            }
            double mean_j = 0.0;
            cand_px.resize(npx);
            float* tmp = cand_px.data();
            for (int y = y0, i = 0; y < y1; ++y)
              for (int x = x0; x < x1; ++x, ++i) {
                tmp[i] = sample(J, x + dx, y + dy);
                mean_j += tmp[i];
              }
            mean_j /= npx;
            double sad = 0.0;
            for (int i = 0; i < npx; ++i)
              sad += std::fabs((ref_px[i] - mean_i) - (tmp[i] - mean_j));
            return sad / npx;
          };
          int best = -1;
          double best_cost = 0.0;
          /* The own vector's cost is computed only once a candidate competes:
         * in a smooth field no neighbour is more than 1 px away and the
         * block costs no SAD at all. */
          bool own_costed = false;
          if (in_reach(raw[b])) best = b;
          for (int dr = -1; dr <= 1; ++dr)
            for (int dc = -1; dc <= 1; ++dc) {
              const int nc = bc + dc, nr = br + dr;
              if ((!dc && !dr) || nc < 0 || nr < 0 || nc >= cols || nr >= rows) continue;
              const int nb = nr * cols + nc;
              if (!in_reach(raw[nb])) continue;
              /* Only a different motion competes: vectors within
             * kPocCandidateMinDistance of the own one are the same motion,
             * and a SAD over bilinear samples cannot rank sub-pixel
             * differences (interpolation smooths the candidate patch) as
             * well as POC's peak fit does. */
              if (best == b && within(raw[nb].dx - raw[b].dx, raw[nb].dy - raw[b].dy,
                                      kPocCandidateMinDistance))
                continue;
              if (best == b && !own_costed) {
                best_cost = cost(raw[b].dx, raw[b].dy) * (1.0 - kPocSwitchMargin);
                own_costed = true;
              }
              const double cst = cost(raw[nb].dx, raw[nb].dy);
              if (best < 0 || cst < best_cost) {
                best = nb;
                best_cost = cst;
              }
            }
          if (best < 0) {
            out.dx = out.dy = 0.f;
            out.confidence = 0.f;
          } else if (best != b) {
            out.dx = raw[best].dx;
            out.dy = raw[best].dy;
            out.confidence = std::min(raw[b].confidence, raw[best].confidence);
          }
        } else if (!in_reach(raw[b])) {
          out.dx = out.dy = 0.f;
          out.confidence = 0.f;
        }
      }
    }
  }

  /* Optional post-filter: confidence-weighted vector median over the 3 x 3
   * blocks around each block (clipped at the frame edge): the vector v_k of
   * that neighbourhood with the least sum of w_j |v_k - v_j|, w_j = the
   * confidence (at least 1e-3), ties to the first in raster order. As for
   * the candidates, it replaces the block's vector only when more than
   * kPocCandidateMinDistance away (an outlier), so that sub-pixel estimates
   * stay the block's own. Every vector is within reach already. */
  if (c.median) {
    raw.assign(v, v + c.num_blocks());
    for (int b = 0; b < c.num_blocks(); ++b) {
      const int bc = b % cols, br = b / cols;
      int nb[9], n = 0;
      for (int r = std::max(br - 1, 0); r <= std::min(br + 1, rows - 1); ++r)
        for (int q = std::max(bc - 1, 0); q <= std::min(bc + 1, cols - 1); ++q)
          nb[n++] = r * cols + q;
      int best = b;
      double best_sum = 0.0;
      for (int i = 0; i < n; ++i) {
        double sum = 0.0;
        for (int j = 0; j < n; ++j)
          sum += std::max(static_cast<double>(raw[nb[j]].confidence), 1e-3) *
                 std::hypot(raw[nb[i]].dx - raw[nb[j]].dx, raw[nb[i]].dy - raw[nb[j]].dy);
        if (i == 0 || sum < best_sum) {
          best = nb[i];
          best_sum = sum;
        }
      }
      if (!within(raw[best].dx - raw[b].dx, raw[best].dy - raw[b].dy,
                  kPocCandidateMinDistance)) {
        v[b].dx = raw[best].dx;
        v[b].dy = raw[best].dy;
        v[b].confidence = std::min(raw[b].confidence, raw[best].confidence);
      }
    }
  }

  for (int b = 0; b < c.num_blocks(); ++b)
    v[b].flags = v[b].confidence < unreliable_below || v[b].confidence <= 0.f
                     ? kFlagUnreliable
                     : kFlagNone;
  return Status::ok();
}

}  // namespace match
