/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-block code of poc_finish() (reach, candidate check, vector
 * median, flags), defined once for the host (ref/poc_robust.cpp, one
 * serial "team" per block) and the GPU (cuda/poc_finish.cu, one CTA per
 * block), so that the same text compiles as host and device code, as
 * ref/poc_fit.h does for the sub-pixel fit.
 *
 * Why the results are the same bits on both. The pixel cost is integer
 * arithmetic: the candidate vector is rounded to 1/256 px once, the
 * bilinear weights are then integers of 8 bits, a sample is an exact
 * integer in 1/65536 grey levels, and every sum is an exact 64-bit integer,
 * so the CTA's reduction (shuffles, then shared memory) gives the serial
 * loop's value whatever the order. The zero-mean SAD of n pixels is kept scaled by n^2 (no division),
 * and the switch margin is the exact ratio 9/10. What stays floating point
 * gives the same bits without an order question: the reach test squares
 * floats in double (exact products, one rounding, so a fused multiply-add
 * gives the same), the median's distances are sqrt (correctly rounded on
 * both) of such sums, and its weighted sums run in the same order with
 * __dmul_rn/__dadd_rn on the device (no contraction into FMA) and
 * -ffp-contract=off on the host (kernels/meson.build).
 */
#pragma once

#include <cmath>
#include <cstdint>

#include "match/poc.h"

#if !defined(MATCH_HD)
#if defined(__CUDACC__)
#define MATCH_HD __host__ __device__
#else
#define MATCH_HD
#endif
#endif

namespace match {
namespace poc_finish_detail {

/* Everything the per-block code needs, as plain values (kernel argument). */
struct FinishParams {
  int width = 0, height = 0; /* layer 0 */
  int cols = 0, rows = 0, spacing = 0;
  float reach = 0.f;             /* poc_max_displacement() */
  double unreliable_below = 0.0; /* max(poc_confidence_floor(), min_confidence) */
};

/* Sub-pixel unit of the cost's sample positions: 1/256 px. The cost only
 * ranks candidates more than kPocCandidateMinDistance (1 px) apart, so the
 * rounding of a candidate to it changes no decision that matters. */
constexpr int kSubpelBits = 8;
constexpr int kSubpel = 1 << kSubpelBits;
/* kPocSwitchMargin = 0.1 as the exact ratio 1 - margin = 9 / 10. */
constexpr long long kKeepNum = 9, kKeepDen = 10;

/* The serial team: one "lane", sums are the values themselves. With
 * `scratch` (room for spacing^2 ints) a cost keeps its samples between its
 * two loops instead of computing them twice (the host's poc_finish and the
 * GPU's CTA team, whose lanes share it; the same integers either way);
 * with `vote`, the layer vote keeps each candidate's differences
 * (vote_block()). */
struct SerialTeam {
  int* scratch = nullptr;
  int* vote = nullptr; /* room for vote_scratch_ints(spacing), or null */
  MATCH_HD int lane() const { return 0; }
  MATCH_HD int size() const { return 1; }
  MATCH_HD long long sum(long long v) const { return v; }
  MATCH_HD int* samples() const { return scratch; }
  MATCH_HD int* vote_samples() const { return vote; }
  MATCH_HD double* median_sums() const { return nullptr; }
  MATCH_HD void sync() const {}
};

MATCH_HD inline double dmul(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(a, b);
#else
  return a * b;
#endif
}
MATCH_HD inline double dadd(double a, double b) {
#if defined(__CUDA_ARCH__)
  return __dadd_rn(a, b);
#else
  return a + b;
#endif
}

/* |(dx, dy)| <= r, without a square root: the float inputs' squares are
 * exact in double, so the sum has one rounding however it is compiled. */
MATCH_HD inline bool within(double dx, double dy, double r) {
  return dadd(dmul(dx, dx), dmul(dy, dy)) <= dmul(r, r);
}

/* d px in 1/kSubpel px, rounded to nearest (even on ties) on both. */
MATCH_HD inline int quantize(float d) {
  return static_cast<int>(rintf(d * static_cast<float>(kSubpel)));
}

/* Bilinear sample of the searched frame at (x + qx / 256, y + qy / 256),
 * clamp-to-edge, in 1/65536 grey levels: an exact integer up to
 * 255 x 65536. Img: int operator()(x, y) with the pixel's grey level. */
template <class Img>
MATCH_HD inline int sample_q(const Img& J, int w, int h, int x, int y, int qx, int qy) {
  int X = (x << kSubpelBits) + qx, Y = (y << kSubpelBits) + qy;
  X = X < 0 ? 0 : (X > ((w - 1) << kSubpelBits) ? ((w - 1) << kSubpelBits) : X);
  Y = Y < 0 ? 0 : (Y > ((h - 1) << kSubpelBits) ? ((h - 1) << kSubpelBits) : Y);
  const int x0 = X >> kSubpelBits, y0 = Y >> kSubpelBits;
  const int fx = X & (kSubpel - 1), fy = Y & (kSubpel - 1);
  const int x1 = x0 + 1 < w ? x0 + 1 : w - 1;
  const int y1 = y0 + 1 < h ? y0 + 1 : h - 1;
  const int a = J(x0, y0) * (kSubpel - fx) + J(x1, y0) * fx;
  const int b = J(x0, y1) * (kSubpel - fx) + J(x1, y1) * fx;
  return a * (kSubpel - fy) + b * fy;
}

/* The pixels of block b: [x0, x0 + bw) x [y0, y0 + bh), clipped. */
struct BlockRect {
  int x0, y0, bw, bh;
  MATCH_HD int count() const { return bw * bh; }
};

MATCH_HD inline BlockRect block_rect(const FinishParams& p, int b) {
  BlockRect r;
  r.x0 = (b % p.cols) * p.spacing;
  r.y0 = (b / p.cols) * p.spacing;
  r.bw = (r.x0 + p.spacing < p.width ? r.x0 + p.spacing : p.width) - r.x0;
  r.bh = (r.y0 + p.spacing < p.height ? r.y0 + p.spacing : p.height) - r.y0;
  return r;
}

/* Calls f(i, x, y) for the team member's share of the block's pixels
 * (pixel i = lane, lane + size, ... in raster order), without a division
 * per pixel. */
template <class Team, class F>
MATCH_HD inline void for_pixels(const Team& t, const BlockRect& r, F f) {
  int i = t.lane();
  int y = i / r.bw, x = i - y * r.bw;
  const int step_y = t.size() / r.bw, step_x = t.size() - step_y * r.bw;
  for (; i < r.count(); i += t.size()) {
    f(i, r.x0 + x, r.y0 + y);
    x += step_x;
    y += step_y;
    if (x >= r.bw) {
      x -= r.bw;
      ++y;
    }
  }
}

/* Sum of the block's own pixels in 1/65536 grey levels. */
template <class Team, class Img>
MATCH_HD inline long long block_sum(const Team& t, const Img& I, const BlockRect& r) {
  long long s = 0;
  for_pixels(t, r, [&](int, int x, int y) { s += I(x, y); });
  return t.sum(s) << 16;
}

/* The searched frame's samples for one candidate: sample_q(), with the
 * clamping skipped when the whole block moved by the candidate (and its
 * right/lower bilinear neighbours) lies inside the frame; the same
 * integers either way. */
template <class Img>
struct CandidateSampler {
  const Img& J;
  int w, h, qx, qy;
  int sx, sy, fx, fy; /* integer and 1/256 parts (qx >> 8: floor) */
  bool interior;
  MATCH_HD CandidateSampler(const Img& j, const FinishParams& p, const BlockRect& r,
                            float dx, float dy)
      : J(j), w(p.width), h(p.height), qx(quantize(dx)), qy(quantize(dy)) {
    sx = qx >> kSubpelBits;
    sy = qy >> kSubpelBits;
    fx = qx & (kSubpel - 1);
    fy = qy & (kSubpel - 1);
    interior = r.x0 + sx >= 0 && r.x0 + r.bw + sx <= w - 1 && r.y0 + sy >= 0 &&
               r.y0 + r.bh + sy <= h - 1;
  }
  MATCH_HD int operator()(int x, int y) const {
    if (!interior) return sample_q(J, w, h, x, y, qx, qy);
    const int x0 = x + sx, y0 = y + sy;
    const int a = J(x0, y0) * (kSubpel - fx) + J(x0 + 1, y0) * fx;
    const int b = J(x0, y0 + 1) * (kSubpel - fx) + J(x0 + 1, y0 + 1) * fx;
    return a * (kSubpel - fy) + b * fy;
  }
};

/* Zero-mean SAD of the block against the searched frame moved by (dx, dy),
 * times n^2 (n pixels) and in 1/65536 grey levels:
 *   sum_i | n (I_i - J_i) - (sum I - sum J) |.
 * Bounds (n <= 256^2): each term < 2^41, the sum < 2^57. */
template <class Team, class Img>
MATCH_HD inline long long block_cost(const Team& t, const Img& I, const Img& J,
                                     const FinishParams& p, const BlockRect& r,
                                     long long sum_i, float dx, float dy) {
  const CandidateSampler<Img> js(J, p, r, dx, dy);
  const long long n = r.count();
  long long s = 0;
  long long a = 0;
  if (int* buf = t.samples()) { /* a team with scratch (pixel i's sample) */
    for_pixels(t, r, [&](int i, int x, int y) { s += buf[i] = js(x, y); });
    const long long offset = sum_i - t.sum(s);
    for_pixels(t, r, [&](int i, int x, int y) {
      const long long d = n * ((static_cast<long long>(I(x, y)) << 16) - buf[i]) - offset;
      a += d < 0 ? -d : d;
    });
    return t.sum(a);
  }
  for_pixels(t, r, [&](int, int x, int y) { s += js(x, y); });
  const long long offset = sum_i - t.sum(s);
  for_pixels(t, r, [&](int, int x, int y) {
    const long long d = n * ((static_cast<long long>(I(x, y)) << 16) - js(x, y)) - offset;
    a += d < 0 ? -d : d;
  });
  return t.sum(a);
}

MATCH_HD inline void set_flags(PocVector* v, double unreliable_below) {
  v->flags = v->confidence < unreliable_below || v->confidence <= 0.f ? kFlagUnreliable
                                                                      : kFlagNone;
}

MATCH_HD inline float min_conf(float a, float b) { return b < a ? b : a; }

/* One candidate pass for block b (poc_robust.cpp explains the rules):
 * reads raw[] (every block's vector of the previous pass), returns the
 * block's new vector, flags set. Every lane of the team returns the same
 * value (all decisions are taken on team-wide sums). */
template <class Team, class Img>
MATCH_HD inline PocVector check_block(const Team& t, const Img& I, const Img& J,
                                      const FinishParams& p, bool robust,
                                      const PocVector* raw, int b) {
  PocVector out = raw[b];
  const PocVector own = raw[b];
  if (!robust) {
    if (!within(own.dx, own.dy, p.reach)) {
      out.dx = out.dy = 0.f;
      out.confidence = 0.f;
    }
    set_flags(&out, p.unreliable_below);
    return out;
  }
  const int bc = b % p.cols, br = b / p.cols;
  const BlockRect rect = block_rect(p, b);
  long long sum_i = 0;
  bool have_sum = false;
  int best = -1;
  /* Costs x kKeepDen; the own vector's x kKeepNum (the switch margin). */
  long long best_key = 0;
  bool own_costed = false;
  if (within(own.dx, own.dy, p.reach)) best = b;
  for (int dr = -1; dr <= 1; ++dr)
    for (int dc = -1; dc <= 1; ++dc) {
      const int nc = bc + dc, nr = br + dr;
      if ((!dc && !dr) || nc < 0 || nr < 0 || nc >= p.cols || nr >= p.rows) continue;
      const int nb = nr * p.cols + nc;
      const PocVector cand = raw[nb];
      if (!within(cand.dx, cand.dy, p.reach)) continue;
      if (best == b &&
          within(cand.dx - own.dx, cand.dy - own.dy, kPocCandidateMinDistance))
        continue;
      if (!have_sum) {
        sum_i = block_sum(t, I, rect);
        have_sum = true;
      }
      if (best == b && !own_costed) {
        best_key = kKeepNum * block_cost(t, I, J, p, rect, sum_i, own.dx, own.dy);
        own_costed = true;
      }
      const long long key =
          kKeepDen * block_cost(t, I, J, p, rect, sum_i, cand.dx, cand.dy);
      if (best < 0 || key < best_key) {
        best = nb;
        best_key = key;
      }
    }
  if (best < 0) {
    out.dx = out.dy = 0.f;
    out.confidence = 0.f;
  } else if (best != b) {
    out.dx = raw[best].dx;
    out.dy = raw[best].dy;
    out.confidence = min_conf(own.confidence, raw[best].confidence);
  }
  set_flags(&out, p.unreliable_below);
  return out;
}

/* The 3 x 3 blocks around b, clipped at the frame edge, in raster order;
 * returns their count. */
MATCH_HD inline int median_neighbours(const FinishParams& p, int b, int nb[9]) {
  const int bc = b % p.cols, br = b / p.cols;
  int n = 0;
  for (int r = br > 0 ? br - 1 : 0; r <= (br + 1 < p.rows ? br + 1 : p.rows - 1); ++r)
    for (int q = bc > 0 ? bc - 1 : 0; q <= (bc + 1 < p.cols ? bc + 1 : p.cols - 1); ++q)
      nb[n++] = r * p.cols + q;
  return n;
}

/* sum_j w_j |v_i - v_j| of the median_block() rule, in its order. */
MATCH_HD inline double median_sum(const PocVector* raw, const int* nb, int n, int i) {
  double sum = 0.0;
  for (int j = 0; j < n; ++j) {
    const double ddx = raw[nb[i]].dx - raw[nb[j]].dx;
    const double ddy = raw[nb[i]].dy - raw[nb[j]].dy;
    const double c = raw[nb[j]].confidence;
    sum =
        dadd(sum, dmul(c > 1e-3 ? c : 1e-3, sqrt(dadd(dmul(ddx, ddx), dmul(ddy, ddy)))));
  }
  return sum;
}

/* Block b's vector from the sums of its neighbours nb[0..n): the least,
 * ties to the first in raster order; flags set. */
MATCH_HD inline PocVector median_take(const FinishParams& p, const PocVector* raw, int b,
                                      const int* nb, const double* sums, int n) {
  int best = b;
  double best_sum = 0.0;
  for (int i = 0; i < n; ++i)
    if (i == 0 || sums[i] < best_sum) {
      best = nb[i];
      best_sum = sums[i];
    }
  PocVector out = raw[b];
  if (!within(raw[best].dx - raw[b].dx, raw[best].dy - raw[b].dy,
              kPocCandidateMinDistance)) {
    out.dx = raw[best].dx;
    out.dy = raw[best].dy;
    out.confidence = min_conf(raw[b].confidence, raw[best].confidence);
  }
  set_flags(&out, p.unreliable_below);
  return out;
}

/* The optional post-filter for block b: confidence-weighted vector median
 * over the 3 x 3 blocks around it (clipped at the frame edge): the vector
 * v_k with the least sum of w_j |v_k - v_j| (w_j = the confidence, at
 * least 1e-3), ties to the first in raster order; it replaces the block's
 * vector only when more than kPocCandidateMinDistance away. Flags set. */
MATCH_HD inline PocVector median_block(const FinishParams& p, const PocVector* raw,
                                       int b) {
  int nb[9];
  const int n = median_neighbours(p, b, nb);
  double sums[9];
  for (int i = 0; i < n; ++i) sums[i] = median_sum(raw, nb, n, i);
  return median_take(p, raw, b, nb, sums, n);
}

/* median_block() by a team: with room for 9 sums (Team::median_sums(),
 * shared memory on the GPU) each lane computes some of them, so that a
 * CTA waits for one sum's square roots rather than 81; the same values. */
template <class Team>
MATCH_HD inline PocVector median_team(const Team& t, const FinishParams& p,
                                      const PocVector* raw, int b) {
  double* sums = t.median_sums();
  if (!sums) return median_block(p, raw, b);
  int nb[9];
  const int n = median_neighbours(p, b, nb);
  for (int i = t.lane(); i < n; i += t.size()) sums[i] = median_sum(raw, nb, n, i);
  t.sync();
  return median_take(p, raw, b, nb, sums, n);
}

/* kPocVoteClear as the margin on a pixel's 3 x 3 sum in 1/65536 grey
 * levels, kPocVoteMajority and kPocVoteMinSure as exact ratios, and the
 * most candidates a block has (its own vector and 8 of its neighbours'). */
constexpr long long kVoteClear = 9 * 65536 / 2;
constexpr long long kVoteMajorityNum = 17, kVoteMajorityDen = 20;
constexpr long long kVoteSureNum = 1, kVoteSureDen = 3;
constexpr int kVoteCandidates = 9;

/* The vote's scratch: each candidate's absolute differences over the block
 * and a pixel around it, (spacing + 2)^2 ints a candidate, twice with a
 * frame before (the backward differences beside the forward ones). */
MATCH_HD inline int vote_scratch_ints(int spacing, bool before = false) {
  return (before ? 2 : 1) * kVoteCandidates * (spacing + 2) * (spacing + 2);
}

/* |I - J moved by the candidate| at (x, y) clamped to the frame, in
 * 1/65536 grey levels (under 2^24). */
template <class Img>
MATCH_HD inline int vote_diff(const Img& I, const Img& J, int w, int h, int x, int y,
                              int qx, int qy) {
  x = x < 0 ? 0 : (x > w - 1 ? w - 1 : x);
  y = y < 0 ? 0 : (y > h - 1 ? h - 1 : y);
  const int d = (I(x, y) << 16) - sample_q(J, w, h, x, y, qx, qy);
  return d < 0 ? -d : d;
}

/* Sum of vote_diff() over the 3 x 3 pixels around (x, y). */
template <class Img>
MATCH_HD inline long long vote_cost(const Img& I, const Img& J, int w, int h, int x,
                                    int y, int qx, int qy) {
  long long s = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) s += vote_diff(I, J, w, h, x + dx, y + dy, qx, qy);
  return s;
}

/* The 3 x 3 sum of a scratch plane of row pitch hw, from its top left. */
MATCH_HD inline long long window_sum(const int* d, int hw) {
  return static_cast<long long>(d[0]) + d[1] + d[2] + d[hw] + d[hw + 1] + d[hw + 2] +
         d[2 * hw] + d[2 * hw + 1] + d[2 * hw + 2];
}

/* The layer vote's candidates for block b (poc.h): the block's own vector
 * first (it wins ties), then the 3 x 3 neighbours' in raster order, then
 * those of the ring around them (radius 2) with a higher confidence while
 * there is room, each more than kPocCandidateMinDistance from those before
 * it. Returns their count (0 when the block's own vector is beyond the
 * reach); under 2, vote_block() leaves the block as it is. */
MATCH_HD inline int vote_candidates(const FinishParams& p, const PocVector* raw, int b,
                                    PocVector cand[kVoteCandidates]) {
  if (!within(raw[b].dx, raw[b].dy, p.reach)) return 0;
  const int bc = b % p.cols, br = b / p.cols;
  cand[0] = raw[b];
  int k = 1;
  for (int radius = 1; radius <= 2; ++radius) {
    const float least =
        static_cast<float>(radius == 1 ? kPocVoteMinConfidence : kPocVoteRingConfidence);
    for (int dr = -radius; dr <= radius; ++dr)
      for (int dc = -radius; dc <= radius; ++dc) {
        const int nc = bc + dc, nr = br + dr;
        const bool on_ring =
            dr == -radius || dr == radius || dc == -radius || dc == radius;
        if (!on_ring || k == kVoteCandidates) continue;
        if (nc < 0 || nr < 0 || nc >= p.cols || nr >= p.rows) continue;
        const PocVector v = raw[nr * p.cols + nc];
        if (!within(v.dx, v.dy, p.reach)) continue;
        if (!(v.confidence >= least)) continue;
        bool far = true;
        for (int j = 0; j < k && far; ++j)
          far = !within(v.dx - cand[j].dx, v.dy - cand[j].dy, kPocCandidateMinDistance);
        if (far) cand[k++] = v;
      }
  }
  return k;
}

/* The layer vote for block b (poc.h, kPocVoteClear): reads raw[] (every
 * block's vector after the candidate passes), returns the block's vector,
 * flags set. The counts are exact team-wide sums, so every lane takes the
 * same branches; the mean is summed in candidate order (dmul/dadd).
 * With K, the frame before I (forward fields: I the earlier frame, J the
 * later), a pixel's cost for a candidate v is the lower of its 3 x 3 sums
 * against J moved by v and against K moved by -v (the motion taken as
 * constant over the three frames): a pixel that the later frame hides
 * behind another layer is mostly visible in the frame before, and votes
 * for its own layer there instead of a wrong one. */
template <class Team, class Img>
MATCH_HD inline PocVector vote_block(const Team& t, const Img& I, const Img& J,
                                     const Img* K, const FinishParams& p,
                                     const PocVector* raw, int b) {
  PocVector out = raw[b];
  PocVector cand[kVoteCandidates];
  const int k = vote_candidates(p, raw, b, cand);
  if (k < 2) {
    set_flags(&out, p.unreliable_below);
    return out;
  }
  int qx[kVoteCandidates], qy[kVoteCandidates];
  for (int j = 0; j < k; ++j) {
    qx[j] = quantize(cand[j].dx);
    qy[j] = quantize(cand[j].dy);
  }
  const BlockRect rect = block_rect(p, b);
  /* With the team's scratch, each candidate's differences over the block
   * and a pixel around it first (each sample once, not in nine sums): per
   * candidate a plane against J and, with K, one against K. */
  int* diff = t.vote_samples();
  const int hw = rect.bw + 2, hn = hw * (rect.bh + 2);
  const int planes = K ? 2 : 1;
  if (diff) {
    for (int j = 0; j < k; ++j)
      for (int i = t.lane(); i < hn; i += t.size()) {
        const int hy = i / hw, x = rect.x0 + i - hy * hw - 1, y = rect.y0 + hy - 1;
        diff[j * planes * hn + i] =
            vote_diff(I, J, p.width, p.height, x, y, qx[j], qy[j]);
        if (K)
          diff[(j * planes + 1) * hn + i] =
              vote_diff(I, *K, p.width, p.height, x, y, -qx[j], -qy[j]);
      }
    t.sync();
  }
  /* Per lane: its pixels' votes and sure votes for each candidate. */
  int votes[kVoteCandidates], sure[kVoteCandidates];
  for (int j = 0; j < k; ++j) votes[j] = sure[j] = 0;
  for_pixels(t, rect, [&](int, int x, int y) {
    long long best = 0, second = 0;
    int jb = 0;
    const int* d = diff ? diff + (y - rect.y0) * hw + (x - rect.x0) : nullptr;
    for (int j = 0; j < k; ++j, d += planes * hn) {
      long long c;
      if (diff) {
        c = window_sum(d, hw);
        if (K) {
          const long long cb = window_sum(d + hn, hw);
          c = cb < c ? cb : c;
        }
      } else {
        c = vote_cost(I, J, p.width, p.height, x, y, qx[j], qy[j]);
        if (K) {
          const long long cb = vote_cost(I, *K, p.width, p.height, x, y, -qx[j], -qy[j]);
          c = cb < c ? cb : c;
        }
      }
      if (j == 0 || c < best) {
        second = j == 0 ? c : best;
        best = c;
        jb = j;
      } else if (j == 1 || c < second) {
        second = c;
      }
    }
    votes[jb]++;
    if (best + kVoteClear < second) sure[jb]++;
  });
  const long long n = rect.count();
  long long nv[kVoteCandidates], ns[kVoteCandidates];
  long long sure_all = 0;
  int top = 0;
  for (int j = 0; j < k; ++j) {
    nv[j] = t.sum(votes[j]);
    ns[j] = t.sum(sure[j]);
    sure_all += ns[j];
    if (nv[j] > nv[top]) top = j;
  }
  float conf = raw[b].confidence;
  /* Mostly unsure: the pixels cannot tell the candidates apart (flat
   * texture), so the neighbourhood's motion is the best guess. */
  if (kVoteSureDen * sure_all < kVoteSureNum * n) return median_team(t, p, raw, b);
  if (kVoteMajorityDen * nv[top] >= kVoteMajorityNum * n) {
    out.dx = cand[top].dx;
    out.dy = cand[top].dy;
    conf = min_conf(conf, cand[top].confidence);
  } else {
    double sx = 0.0, sy = 0.0;
    for (int j = 0; j < k; ++j) {
      const long long wj = ns[j] + (j == top ? n - sure_all : 0);
      if (wj == 0) continue;
      sx = dadd(sx, dmul(static_cast<double>(wj), cand[j].dx));
      sy = dadd(sy, dmul(static_cast<double>(wj), cand[j].dy));
      conf = min_conf(conf, cand[j].confidence);
    }
    out.dx = static_cast<float>(sx / static_cast<double>(n));
    out.dy = static_cast<float>(sy / static_cast<double>(n));
  }
  out.confidence = conf;
  set_flags(&out, p.unreliable_below);
  return out;
}

/* FinishParams of a configuration (host only: poc_robust.cpp). */
FinishParams make_finish_params(const PocConfig& config, double min_confidence);

}  // namespace poc_finish_detail
}  // namespace match
