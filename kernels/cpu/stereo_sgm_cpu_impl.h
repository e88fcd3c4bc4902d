/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The SGM row kernels (stereo_sgm_cpu.h), written as plain loops over the
 * disparity lanes and compiled once per instruction set, like
 * stereo_cpu_impl.h: stereo_sgm_cpu_avx2.cpp (-mavx2 -mpopcnt: 16 uint16
 * lanes per instruction), stereo_sgm_cpu.cpp (baseline SSE2) and
 * stereo_sgm_cpu_scalar.cpp (vectoriser off). The inner loops run over np
 * lanes (a multiple of 16) with restrict pointers and no branches, so the
 * compiler turns them into vector min/add/or. The census popcounts: POPCNT
 * per disparity in the baseline builds, a vpshufb table in the AVX2 one
 * (stereo_rho_row), VPOPCNTQ in stereo_sgm_cpu_avx512.cpp. Everything is in an anonymous
 * namespace (see stereo_cpu_impl.h for why).
 *
 * The step, for one pixel p and path r with predecessor slot q:
 *   L(p, k) = c(p, k) + min(L(q, k), min(L(q, k - 1), L(q, k + 1)) + P1,
 *                           m + P2') - m,    m = min_k L(q, k),
 * in uint16 (every term is below 2^15, see stereo_sgm_cpu.h), then OR-ed
 * with the padding mask, which only touches lanes k >= n. The sum of the
 * paths wraps in padding lanes; WTA masks them to 0xFFFF.
 */
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

/* stereo_clamp, stereo_rho_row, stereo_frac */
#include "stereo_cpu_impl.h"
#include "stereo_sgm_cpu.h"

namespace match {
namespace cpu {
namespace {

/* The step of kN paths (1 or 3) at one pixel, fused so that its costs
 * and sum are read once: path p from the lanes qa/qb/qc (slot + kSgmHead)
 * with m = mq[p] and m + P2' = mp2[p] into la/lb/lc; returns the new
 * minima in mn. kSum: 0 = no sum, 1 = sum = the paths' L, 2 = sum += them.
 * kPad: n < np, so the padding lanes are OR-ed with `pad` (with n = np
 * there are none, only the constant guards). Every pointer a restrict
 * parameter: the vectoriser needs to know that they do not alias. The
 * three paths' expressions are written out: through a helper function
 * (restrict lost) GCC 12 versions the loop for aliasing and runs the
 * scalar copy, 5x slower. */
template <int kN, int kSum, bool kPad>
inline void sgm_steps_lanes(const uint16_t* __restrict qa, const uint16_t* __restrict qb,
                            const uint16_t* __restrict qc, uint16_t* __restrict la,
                            uint16_t* __restrict lb, uint16_t* __restrict lc,
                            const uint16_t* mq, const uint16_t* mp2,
                            const uint8_t* __restrict c, uint16_t p1,
                            const uint16_t* __restrict pad, int np,
                            uint16_t* __restrict sum, uint16_t* mn) {
  const uint16_t ma = mq[0], mb = mq[1], mc = mq[2];
  const uint16_t pa = mp2[0], pb = mp2[1], pc = mp2[2];
  uint16_t na = 0xFFFF, nb = 0xFFFF, nc = 0xFFFF;
  for (int k = 0; k < np; ++k) {
    const uint16_t ck = c[k];
    const uint16_t pk = kPad ? pad[k] : 0;
    const uint16_t va = static_cast<uint16_t>(
        static_cast<uint16_t>(
            ck +
            std::min(std::min(qa[k],
                              static_cast<uint16_t>(std::min(qa[k - 1], qa[k + 1]) + p1)),
                     pa) -
            ma) |
        pk);
    la[k] = va;
    na = std::min(na, va);
    uint16_t t = va;
    if (kN == 3) {
      const uint16_t vb = static_cast<uint16_t>(
          static_cast<uint16_t>(
              ck +
              std::min(std::min(qb[k], static_cast<uint16_t>(
                                           std::min(qb[k - 1], qb[k + 1]) + p1)),
                       pb) -
              mb) |
          pk);
      const uint16_t vc = static_cast<uint16_t>(
          static_cast<uint16_t>(
              ck +
              std::min(std::min(qc[k], static_cast<uint16_t>(
                                           std::min(qc[k - 1], qc[k + 1]) + p1)),
                       pc) -
              mc) |
          pk);
      lb[k] = vb;
      lc[k] = vc;
      nb = std::min(nb, vb);
      nc = std::min(nc, vc);
      t = static_cast<uint16_t>(t + vb + vc);
    }
    if (kSum == 1) sum[k] = t;
    if (kSum == 2) sum[k] = static_cast<uint16_t>(sum[k] + t);
  }
  mn[0] = na;
  mn[1] = nb;
  mn[2] = nc;
}

/* The same from slots: path p from slot q[p] into slot l[p], P2' = p2[p]. */
template <int kN, int kSum, bool kPad>
inline void sgm_steps(const uint16_t* const* q, const int* p2, const uint8_t* c, int p1,
                      const uint16_t* pad, int np, uint16_t* const* l, uint16_t* sum) {
  const int b = kN == 3 ? 1 : 0, e = kN - 1;
  const uint16_t mq[3] = {q[0][0], q[b][0], q[e][0]};
  const uint16_t mp2[3] = {static_cast<uint16_t>(mq[0] + p2[0]),
                           static_cast<uint16_t>(mq[1] + p2[b]),
                           static_cast<uint16_t>(mq[2] + p2[e])};
  uint16_t mn[3];
  /* One path: the other lanes are never touched (nullptr, no aliasing). */
  auto lanes = [](auto* slot) { return kN == 3 ? slot + kSgmHead : nullptr; };
  sgm_steps_lanes<kN, kSum, kPad>(q[0] + kSgmHead, lanes(q[b]), lanes(q[e]),
                                  l[0] + kSgmHead, lanes(l[b]), lanes(l[e]), mq, mp2, c,
                                  static_cast<uint16_t>(p1), pad, np, sum, mn);
  l[0][0] = mn[0];
  if (kN == 3) {
    l[1][0] = mn[1];
    l[2][0] = mn[2];
  }
}

/* The other view's pixels copied once into a strip ext[t] = A_Oth(cl(start
 * + step t)), in which A_Oth(cl(x + s (dmin + k))) is ext[base(x) + k]. */
template <typename P>
void sgm_cost_row(const SgmCostRow& a, int x0, int x1) {
  if (x1 <= x0) return;
  const P* ref = reinterpret_cast<const P*>(a.ref_row);
  const P* oth = reinterpret_cast<const P*>(a.oth_row);
  P* ext = static_cast<P*>(a.ext);
  const int np = a.np, len = x1 - x0 + np, wm = a.width - 1;
  const int step = a.left_ref ? -1 : 1;
  const int start = a.left_ref ? x1 - 1 - a.dmin : x0 + a.dmin;
  for (int t = 0; t < len; ++t) ext[t] = oth[stereo_clamp(start + step * t, wm)];
  for (int x = x0; x < x1; ++x) {
    stereo_rho_row<P>(ref[x], ext + (a.left_ref ? x1 - 1 - x : x - x0), np,
                      a.out + static_cast<std::ptrdiff_t>(x) * np);
  }
  if (!a.oth_luma) return;
  /* kCensusAd: the lumas' truncated difference, from a strip as above. */
  uint8_t* el = a.ext_luma;
  for (int t = 0; t < len; ++t) el[t] = a.oth_luma[stereo_clamp(start + step * t, wm)];
  for (int x = x0; x < x1; ++x)
    stereo_add_ad_row(a.ref_luma[x], el + (a.left_ref ? x1 - 1 - x : x - x0), np,
                      a.out + static_cast<std::ptrdiff_t>(x) * np);
}

inline int sgm_p2(const uint16_t* p2tab, int p2, int a, int b) {
  return p2tab ? p2tab[a > b ? a - b : b - a] : p2;
}

template <int kN, int kSum, bool kPad>
void sgm_vertical_n(const SgmVertical& a, int x0, int x1) {
  const int np = a.np, ns = a.ns;
  const uint16_t* q[3];
  uint16_t* l[3];
  int p2[3];
  for (int x = x0; x < x1; ++x) {
    for (int p = 0; p < kN; ++p) {
      const int qx = x - a.dx[p];
      const bool inside = a.prev[p] && qx >= a.plo && qx < a.phi;
      q[p] = inside ? a.prev[p] + static_cast<std::ptrdiff_t>(qx - a.prev_base) * ns
                    : a.zero;
      p2[p] = inside ? sgm_p2(a.p2tab, a.p2, a.ref_row[x], a.ref_prev[qx]) : a.p2;
      l[p] = a.cur[p] + static_cast<std::ptrdiff_t>(x - a.cur_base) * ns;
    }
    sgm_steps<kN, kSum, kPad>(
        q, p2, a.cost + static_cast<std::ptrdiff_t>(x) * np, a.p1, a.pad, np, l,
        kSum ? a.sum + static_cast<std::ptrdiff_t>(x) * np : nullptr);
  }
}

template <int kN, bool kPad>
void sgm_vertical_pad(const SgmVertical& a, int x0, int x1) {
  if (!a.sum)
    sgm_vertical_n<kN, 0, kPad>(a, x0, x1);
  else if (a.accumulate)
    sgm_vertical_n<kN, 2, kPad>(a, x0, x1);
  else
    sgm_vertical_n<kN, 1, kPad>(a, x0, x1);
}

void sgm_vertical(const SgmVertical& a, int x0, int x1) {
  const bool pad = a.n < a.np;
  if (a.npaths == 3)
    pad ? sgm_vertical_pad<3, true>(a, x0, x1) : sgm_vertical_pad<3, false>(a, x0, x1);
  else
    pad ? sgm_vertical_pad<1, true>(a, x0, x1) : sgm_vertical_pad<1, false>(a, x0, x1);
}

/* Left to right (their L stored as the sum), then right to left (added),
 * two slots ping-ponging. */
template <bool kPad>
void sgm_horizontal_pad(const SgmHorizontal& a) {
  const int np = a.np, ns = a.ns, w = a.width;
  for (int dir = 0; dir < 2; ++dir) {
    const uint16_t* q = a.zero;
    int prev_x = -1;
    for (int i = 0; i < w; ++i) {
      const int x = dir == 0 ? i : w - 1 - i;
      uint16_t* l = a.slots + (i & 1) * ns;
      const int p2 =
          i > 0 ? sgm_p2(a.p2tab, a.p2, a.ref_row[x], a.ref_row[prev_x]) : a.p2;
      const uint8_t* c = a.cost + static_cast<std::ptrdiff_t>(x) * np;
      uint16_t* sum = a.sum + static_cast<std::ptrdiff_t>(x) * np;
      if (dir == 0)
        sgm_steps<1, 1, kPad>(&q, &p2, c, a.p1, a.pad, np, &l, sum);
      else
        sgm_steps<1, 2, kPad>(&q, &p2, c, a.p1, a.pad, np, &l, sum);
      q = l;
      prev_x = x;
    }
  }
}

void sgm_horizontal(const SgmHorizontal& a) {
  if (a.n < a.np)
    sgm_horizontal_pad<true>(a);
  else
    sgm_horizontal_pad<false>(a);
}

/* Keys S << 8 | k (S < 2^16, k < 256): the lowest key is the lowest S
 * with the smallest k, so every argmin is a plain vector minimum. */
void sgm_wta(const SgmWta& a) {
  const int w = a.width, np = a.np, n = a.n, dmin = a.dmin;
  const bool lr = a.lr_max_diff >= 0;
  uint32_t* const diag = a.diag;
  if (lr) std::fill(diag, diag + w + dmin + np, UINT32_MAX);
  for (int x = 0; x < w; ++x) {
    const uint16_t* __restrict s = a.s + static_cast<std::ptrdiff_t>(x) * np;
    const uint16_t* __restrict sm = a.smask;
    uint32_t best = UINT32_MAX;
    for (int k = 0; k < np; ++k)
      best = std::min(
          best, static_cast<uint32_t>(s[k] | sm[k]) << 8 | static_cast<uint32_t>(k));
    if (lr) {
      /* Slot of x' = x - d (left reference, stored reversed so that the
       * slots of one x are contiguous in k) or x' = x + d. */
      uint32_t* __restrict dg = diag + (a.left_ref ? w - 1 - x + dmin : x + dmin);
      for (int k = 0; k < np; ++k)
        dg[k] = std::min(
            dg[k], static_cast<uint32_t>(s[k] | sm[k]) << 8 | static_cast<uint32_t>(k));
    }
    const int kb = static_cast<int>(best & 255u);
    const int64_t c0 = best >> 8;
    const int frac =
        a.subpixel && kb > 0 && kb < n - 1 ? stereo_frac(c0, s[kb - 1], s[kb + 1]) : 0;
    uint16_t v = static_cast<uint16_t>(kDisparityScale * (dmin + kb) + frac);
    if (a.tex && a.tex[x] < a.texture_threshold) v = kInvalidDisparity;
    if (v != kInvalidDisparity && a.uniqueness_ratio > 0) {
      /* The lowest S at least two steps from the winner (0xFFFF: none;
       * real sums are below 8 x (255 + 4095) < 0xFFFF). */
      uint16_t m2 = 0xFFFF;
      for (int k = 0; k < np; ++k) {
        const uint16_t sk = static_cast<uint16_t>(s[k] | sm[k]);
        m2 = std::min(m2, (k < kb - 1 || k > kb + 1) ? sk : uint16_t{0xFFFF});
      }
      if (m2 != 0xFFFF && 100 * int64_t{m2} <= (100 + int64_t{a.uniqueness_ratio}) * c0)
        v = kInvalidDisparity;
    }
    a.out[x] = v;
    a.kbest[x] = static_cast<uint8_t>(kb);
  }
  if (!lr) return;
  /* Slot r holds x' = W - 1 - r (left reference) or x' = r; a key of a
   * padding lane or none at all means x' has no D'. */
  for (int x = 0; x < w; ++x) {
    if (a.out[x] == kInvalidDisparity) continue;
    const int d = dmin + a.kbest[x];
    const int xp = a.left_ref ? x - d : x + d;
    bool ok = xp >= 0 && xp < w;
    if (ok) {
      const uint32_t key = diag[a.left_ref ? w - 1 - xp : xp];
      ok = (key >> 8) < 0xFFFFu &&
           std::abs(dmin + static_cast<int>(key & 255u) - d) <= a.lr_max_diff;
    }
    if (!ok) a.out[x] = kInvalidDisparity;
  }
}

/* cost_window B: the column sums of the B rows (uint16: at most 7 x 7 x
 * 255), then the row sums read clamped, divided by the constant B B (the
 * compiler turns it into a multiply-high per lane). */
template <int B>
void sgm_box_n(const SgmBoxRow& a) {
  const int np = a.np, w = a.width, r = (B - 1) / 2;
  const size_t len = static_cast<size_t>(w) * np;
  uint16_t* __restrict col = a.col;
  {
    const uint8_t* __restrict r0 = a.rows[0];
    for (size_t i = 0; i < len; ++i) col[i] = r0[i];
  }
  for (int j = 1; j < B; ++j) {
    const uint8_t* __restrict rj = a.rows[j];
    for (size_t i = 0; i < len; ++i) col[i] = static_cast<uint16_t>(col[i] + rj[i]);
  }
  constexpr uint16_t kArea = B * B, kHalf = B * B / 2;
  /* Inside the row the B columns are consecutive slots of one pointer (the
   * vectoriser needs a single restrict base); near the ends they are read
   * clamped, column by column. */
  for (int x = 0; x < w; ++x) {
    uint8_t* __restrict o = a.out + static_cast<std::ptrdiff_t>(x) * np;
    if (x >= r && x + r < w) {
      const uint16_t* __restrict c = col + static_cast<std::ptrdiff_t>(x - r) * np;
      for (int k = 0; k < np; ++k) {
        uint16_t sum = kHalf;
        for (int i = 0; i < B; ++i) sum = static_cast<uint16_t>(sum + c[i * np + k]);
        o[k] = static_cast<uint8_t>(sum / kArea);
      }
      continue;
    }
    for (int k = 0; k < np; ++k) {
      uint16_t sum = kHalf;
      for (int i = 0; i < B; ++i)
        sum = static_cast<uint16_t>(
            sum +
            col[static_cast<std::ptrdiff_t>(stereo_clamp(x - r + i, w - 1)) * np + k]);
      o[k] = static_cast<uint8_t>(sum / kArea);
    }
  }
}

void sgm_box(const SgmBoxRow& a) {
  switch (a.b) {
    case 3:
      sgm_box_n<3>(a);
      break;
    case 5:
      sgm_box_n<5>(a);
      break;
    default:
      sgm_box_n<7>(a);
      break;
  }
}

/* This instruction set's kernels (each stereo_sgm_cpu*.cpp returns them). */
inline SgmKernels sgm_kernel_table() {
  return SgmKernels{sgm_cost_row<uint8_t>,
                    sgm_cost_row<uint32_t>,
                    sgm_cost_row<uint64_t>,
                    sgm_vertical,
                    sgm_horizontal,
                    sgm_wta,
                    sgm_box};
}

}  // namespace
}  // namespace cpu
}  // namespace match
