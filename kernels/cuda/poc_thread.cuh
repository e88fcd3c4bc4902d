/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-thread code of the CUDA POC stages: what every thread of the
 * kernels in poc_kernels.cu and poc_fused.cu computes, as __host__
 * __device__ functions, so that the host emulations (emulate_*) run the
 * very same code CTA by CTA. The kernels keep only the launch indexing and
 * the CTA reductions. Header-only, included by those two files.
 */
#pragma once

#include <math.h>

#include <cstdint>
#include <cstring>

#include "poc_kernels.cuh"
#include "ref/poc_coarse.h"
#include "ref/poc_fit.h"

namespace match {
namespace cuda {
namespace poc_thread {

MATCH_HD __forceinline__ int mini(int a, int b) {
#if defined(__CUDA_ARCH__)
  return min(a, b);
#else
  return a < b ? a : b;
#endif
}
MATCH_HD __forceinline__ int maxi(int a, int b) {
#if defined(__CUDA_ARCH__)
  return max(a, b);
#else
  return a > b ? a : b;
#endif
}
/* min(max()): one IMNMX pair on the device (lo <= hi here). */
MATCH_HD __forceinline__ int clampi(int v, int lo, int hi) {
  return mini(maxi(v, lo), hi);
}

/* The block's point at layer l: p = the block centre on its grid's layer,
 * p_l = p >> (l - grid_layer) (floor halving; p >= 0). */
MATCH_HD __forceinline__ int2 block_point(const PocGeometry& g, int b, int l) {
  const int col = b % g.cols, row = b / g.cols;
  const int x0 = col * g.spacing, y0 = row * g.spacing;
  const int x1 = mini(x0 + g.spacing, g.width);
  const int y1 = mini(y0 + g.spacing, g.height);
  const int sh = l - g.grid_layer;
  return make_int2(((x0 + x1) / 2) >> sh, ((y0 + y1) / 2) >> sh);
}

/* launch_poc_predict() for fine block b (poc_kernels.cuh): the rule of
 * ref/poc_coarse.h, the motions from the coarse grid's centres (2 q). */
MATCH_HD __forceinline__ int2 predict_block(const PocGeometry& coarse,
                                            const int2* coarse_centre,
                                            const PocGeometry& fine, int b, bool median) {
  const int2 p = block_point(fine, b, fine.grid_layer);
  const int rows = (coarse.height + coarse.spacing - 1) / coarse.spacing;
  int2 c;
  poc_detail::predict_centre(
      coarse.cols, rows, coarse.spacing, median, p.x, p.y,
      [&](int col, int row, int* mx, int* my) {
        const int B = row * coarse.cols + col;
        const int2 P = block_point(coarse, B, coarse.grid_layer);
        *mx = coarse_centre[B].x / 2 - P.x;
        *my = coarse_centre[B].y / 2 - P.y;
      },
      &c.x, &c.y);
  return c;
}

MATCH_HD __forceinline__ void prepare_pixel(const uint8_t* raw, int raw_pitch, int w,
                                            int x, int y, float* out) {
  out[(size_t)y * w + x] = raw[(size_t)y * raw_pitch + x];
}

MATCH_HD __forceinline__ void reduce_pixel(const float* src, int sw, float* dst, int dw,
                                           int x, int y) {
  const float* r0 = src + (size_t)(2 * y) * sw + 2 * x;
  const float* r1 = r0 + sw;
  /* The CPU's order of additions: exact anyway (multiples of 1/64 < 256). */
  dst[(size_t)y * dw + x] = (r0[0] + r0[1] + r1[0] + r1[1]) * 0.25f;
}

constexpr int kGatherX = 32, kGatherY = 8;

/* The re-centring pass gathers no g window for the done blocks. */
MATCH_HD __forceinline__ bool gather_skips(bool is_f, bool skip_done, const uint8_t* done,
                                           int b) {
  return !is_f && skip_done && done[b];
}

/* What the gather CTA of window i works on (is_f: the f window of block
 * b0 + i, else its g window). */
struct GatherJob {
  LayerView src;
  int ox, oy;  /* top-left pixel: centre - n/2 */
  float scale; /* 4^l: layer-l values times it are integers */
  float* out;
};

MATCH_HD __forceinline__ GatherJob gather_job(const LayerView& I, const LayerView& J,
                                              const PocGeometry& g, int layer, int b0,
                                              int i, bool is_f, bool g_at_point,
                                              const int2* centre, float* out_f,
                                              float* out_g) {
  GatherJob job;
  const int b = b0 + i;
  job.src = is_f ? I : J;
  int2 c = block_point(g, b, layer);
  if (!is_f && !g_at_point) c = centre[b];
  const int n = g.n, h = n / 2;
  job.ox = c.x - h;
  job.oy = c.y - h;
  job.scale = (float)(1 << (2 * layer));
  job.out = (is_f ? out_f : out_g) + (size_t)i * n * n;
  return job;
}

/* Row y of the layer, clamp-to-edge; then pixel x of it, clamped. */
MATCH_HD __forceinline__ const float* layer_row(const LayerView& L, int y) {
  return L.px + (size_t)clampi(y, 0, L.h - 1) * L.w;
}
MATCH_HD __forceinline__ float layer_at(const float* row, const LayerView& L, int x) {
  return row[clampi(x, 0, L.w - 1)];
}

/* The positions x0 .. x0 + n - 1 along an axis of length w, clamped to
 * the edge, as at most three spans [lo, hi) of the table read m times:
 * those left of 0 read entry 0, those inside themselves, those right of
 * w - 1 read w - 1. */
struct SatSpans {
  int lo[3], hi[3];
  uint32_t m[3];
};
MATCH_HD __forceinline__ SatSpans sat_spans(int x0, int n, int w) {
  SatSpans s;
  s.lo[0] = 0, s.hi[0] = 1, s.m[0] = (uint32_t)maxi(0, mini(x0 + n, 0) - x0);
  s.lo[1] = clampi(x0, 0, w), s.hi[1] = clampi(x0 + n, 0, w), s.m[1] = 1;
  s.lo[2] = w - 1, s.hi[2] = w, s.m[2] = (uint32_t)maxi(0, x0 + n - maxi(x0, w));
  return s;
}

/* The exact sum of the scaled values round(v 4^l) of the n x n window at
 * (x0, y0) of L, clamp-to-edge (what the gather sums element by element),
 * from L's summed-area table: at most 3 x 3 rectangles with their
 * multiplicities, in wrapping 32-bit arithmetic whose final result, the
 * window's sum (below 2^32), is exact. */
MATCH_HD __forceinline__ long long sat_window_sum(const LayerView& L, int x0, int y0,
                                                  int n) {
  const SatSpans sx = sat_spans(x0, n, L.w), sy = sat_spans(y0, n, L.h);
  const size_t ld = (size_t)L.w + 1;
  uint32_t sum = 0;
  for (int j = 0; j < 3; ++j) {
    if (sy.m[j] == 0 || sy.lo[j] >= sy.hi[j]) continue;
    const uint32_t* top = L.sat + sy.lo[j] * ld;
    const uint32_t* bot = L.sat + sy.hi[j] * ld;
    for (int i = 0; i < 3; ++i) {
      if (sx.m[i] == 0 || sx.lo[i] >= sx.hi[i]) continue;
      const uint32_t rect = bot[sx.hi[i]] - bot[sx.lo[i]] - top[sx.hi[i]] + top[sx.lo[i]];
      sum += sx.m[i] * sy.m[j] * rect;
    }
  }
  return (long long)sum;
}

/* Round to nearest even (the product is an exact integer anyway). */
MATCH_HD __forceinline__ int to_int_rn(float v) {
#if defined(__CUDA_ARCH__)
  return __float2int_rn(v);
#else
  return (int)rintf(v);
#endif
}

/* Pass 1 of thread (tx, ty): its share of the window's exact integer sum
 * (warp rows coalesced). */
MATCH_HD __forceinline__ long long gather_thread_sum(const GatherJob& j, int n, int tx,
                                                     int ty) {
  long long sum = 0;
  for (int y = ty; y < n; y += kGatherY) {
    const float* row = layer_row(j.src, j.oy + y);
    int part = 0; /* at most n / 32 values of < 255 * 64 each */
    for (int x = tx; x < n; x += kGatherX)
      part += to_int_rn(layer_at(row, j.src, j.ox + x) * j.scale);
    sum += part;
  }
  return sum;
}

/* The CPU's double sum / n^2 rounded to float: the same value, since both
 * sums are exact. */
MATCH_HD __forceinline__ float window_mean(long long sum, float scale, int n) {
  return (float)(((double)sum / scale) / ((double)n * n));
}

/* (v - mean) (w_i w_j), each operation rounded as the CPU's. */
MATCH_HD __forceinline__ float window_value(float v, float mean, float wi, float wj) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(__fsub_rn(v, mean), __fmul_rn(wi, wj));
#else
  /* No product feeds a sum here, so there is nothing to contract: plain
   * float operations are the same IEEE roundings. */
  return (v - mean) * (wi * wj);
#endif
}

/* Pass 2 of thread (tx, ty): its samples of the windowed window. */
MATCH_HD __forceinline__ void gather_thread_write(const GatherJob& j, int n, float mean,
                                                  const float* w1d, int tx, int ty) {
  for (int y = ty; y < n; y += kGatherY) {
    const float* row = layer_row(j.src, j.oy + y);
    const float wj = w1d[y];
    for (int x = tx; x < n; x += kGatherX)
      j.out[(size_t)y * n + x] =
          window_value(layer_at(row, j.src, j.ox + x), mean, w1d[x], wj);
  }
}

/* Element e of the half spectra: F[e] conj(G[e]) / |.| inside the low-pass
 * box, 0 outside (and where the product vanishes). */
MATCH_HD __forceinline__ float2 cross_value(const float2* F, const float2* G, int e,
                                            int n, int k) {
  /* e: the element within one window's half spectrum (32-bit index math:
   * 64-bit division is a long software sequence on the GPU). */
  const int hw = n / 2 + 1;
  const int u = e % hw;
  const int v = e / hw;
  const int sv = v <= n / 2 ? v : v - n;
  float2 r = make_float2(0.f, 0.f);
  if (u <= k && sv <= k && sv >= -k) {
    const float2 f = F[e], q = G[e];
    const float pr = f.x * q.x + f.y * q.y;
    const float pi = f.y * q.x - f.x * q.y;
    const float m2 = pr * pr + pi * pi;
    if (m2 > 1e-30f) {
      const float inv = 1.f / sqrtf(m2);
      r = make_float2(pr * inv, pi * inv);
    }
  }
  return r;
}

constexpr int kPeakThreads = 256;

/* Float bits mapped so that unsigned order = float order (+0 for -0, which
 * the CPU's '>' does not tell apart either). */
MATCH_HD __forceinline__ unsigned int orderable(float v) {
  const float z = v == 0.f ? 0.f : v;
#if defined(__CUDA_ARCH__)
  const unsigned int u = __float_as_uint(z);
#else
  unsigned int u;
  std::memcpy(&u, &z, sizeof u);
#endif
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* The tie rule of ref/poc_ref.cpp ("Peak": n = 0 first, then the first in
 * fftshifted raster order) as a 64-bit key of sample e = v n + u: value
 * above, inverted visiting rank below, so one max-reduction gives the
 * reference's peak whatever the reduction order. */
MATCH_HD __forceinline__ unsigned long long peak_key_of(float value, int e, int n) {
  const int lo = -(n / 2);
  const int v = e / n, u = e - v * n;
  const int su = u < n + lo ? u : u - n;
  const int sv = v < n + lo ? v : v - n;
  const unsigned int low = (su == 0 && sv == 0)
                               ? 0xFFFFFFFFu
                               : 0xFFFFFFFEu - (unsigned int)((sv - lo) * n + (su - lo));
  return ((unsigned long long)orderable(value) << 32) | low;
}
MATCH_HD __forceinline__ unsigned long long peak_key(const float* s, int e, int n) {
  return peak_key_of(s[e], e, n);
}

MATCH_HD __forceinline__ unsigned long long key_max(unsigned long long a,
                                                    unsigned long long b) {
  return a > b ? a : b;
}

/* Thread tid's maximum key over its samples of the surface. */
MATCH_HD __forceinline__ unsigned long long peak_thread_best(const float* s, int n,
                                                             int tid) {
  unsigned long long best = 0;
  for (int e = tid; e < n * n; e += kPeakThreads) best = key_max(best, peak_key(s, e, n));
  return best;
}

/* The surface's maximum key -> the integer peak n* = (n1, n2). */
MATCH_HD __forceinline__ void peak_decode(unsigned long long best, int n, int* n1,
                                          int* n2) {
  const int lo = -(n / 2);
  const unsigned int low = (unsigned int)(best & 0xFFFFFFFFu);
  *n1 = 0;
  *n2 = 0;
  if (low != 0xFFFFFFFFu) {
    const int rank = (int)(0xFFFFFFFEu - low);
    *n1 = rank % n + lo;
    *n2 = rank / n + lo;
  }
}

/* The re-centring pass leaves the blocks whose first layer-0 peak was 0. */
MATCH_HD __forceinline__ bool peak_skips(PeakMode mode, const uint8_t* done, int b) {
  return mode == PeakMode::kRecentre && done[b];
}

/* After the peak n* of block b's surface s: the centre update of `mode`
 * (ref/poc_ref.cpp "Hierarchy", "Re-centring") and, for the final surface,
 * its 3x3 samples around n* (circular). Sample (x, y) of the surface is
 * s[(y ld + x) es]: ld = n, es = 1 for a packed surface. */
MATCH_HD __forceinline__ void peak_update(const float* s, int ld, int es, int b, int n1,
                                          int n2, const PocGeometry& g, int layer,
                                          PeakMode mode, bool from_point, int2* centre,
                                          uint8_t* done, PeakRecord* rec) {
  const int n = g.n;
  const int2 c = from_point ? block_point(g, b, layer) : centre[b];
  bool final_surface = false;
  switch (mode) {
    case PeakMode::kCoarse:
      centre[b] = make_int2(2 * (c.x - n1), 2 * (c.y - n2));
      break;
    case PeakMode::kFirst0:
      final_surface = n1 == 0 && n2 == 0;
      done[b] = final_surface ? 1 : 0;
      centre[b] = final_surface ? c : make_int2(c.x - n1, c.y - n2);
      break;
    case PeakMode::kRecentre:
      final_surface = true;
      break;
  }
  if (final_surface) {
    PeakRecord r;
    for (int j = -1; j <= 1; ++j)
      for (int q = -1; q <= 1; ++q) {
        const int x = ((n1 + q) % n + n) % n, y = ((n2 + j) % n + n) % n;
        r.s[(j + 1) * 3 + q + 1] = s[((size_t)y * ld + x) * es];
      }
    r.n1 = n1;
    r.n2 = n2;
    rec[b] = r;
  }
}

/* The sub-pixel fit (ref/poc_fit.h, in double) and the vector of block b,
 * whose final window was centred on c; `samples` makes each iteration's 6
 * model samples (poc_detail::SerialFitSamples, or GroupFitSamples in the
 * finish kernel: the same values). */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename Samples>
MATCH_HD __forceinline__ PocVector finish_block(const PeakRecord& r, int2 c, int b,
                                                const PocGeometry& g, double alpha_unit,
                                                float min_confidence,
                                                const Samples& samples) {
  const double scale = 1.0 / ((double)g.n * g.n);
  double s9[9];
  for (int q = 0; q < 9; ++q) s9[q] = r.s[q] * scale;
  double alpha = 0.0, t1 = 0.0, t2 = 0.0;
  poc_detail::fit_peak_with(s9, g.n, g.k, &alpha, &t1, &t2, samples);
  const int2 p = block_point(g, b, 0);
  PocVector v;
  v.dx = (float)(c.x + t1 - r.n1 - p.x);
  v.dy = (float)(c.y + t2 - r.n2 - p.y);
  const double conf = alpha / alpha_unit;
  v.confidence = (float)(conf > 0.0 ? conf : 0.0);
  v.flags = v.confidence < min_confidence ? kFlagUnreliable : kFlagNone;
  return v;
}

/* Where a POC's two windows come from (the shared-memory paths): f around
 * p_l in I, g around p_l (g_at_point) or centre[b] in J. */
struct PairJob {
  LayerView I, J;
  int fx, fy;  /* top-left of f: p_l - n/2 */
  int gx, gy;  /* top-left of g */
  float scale; /* 4^l */
};

MATCH_HD __forceinline__ PairJob pair_job(const LayerView& I, const LayerView& J,
                                          const PocGeometry& g, int layer, int b,
                                          bool g_at_point, const int2* centre) {
  PairJob job;
  job.I = I;
  job.J = J;
  const int h = g.n / 2;
  const int2 p = block_point(g, b, layer);
  const int2 c = g_at_point ? p : centre[b];
  job.fx = p.x - h;
  job.fy = p.y - h;
  job.gx = c.x - h;
  job.gy = c.y - h;
  job.scale = (float)(1 << (2 * layer));
  return job;
}

}  // namespace poc_thread
}  // namespace cuda
}  // namespace match
