/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-thread code of the tiled POC kernels (poc_tiled.cu, whose top
 * comment has the design): __host__ __device__ functions of the thread
 * index, so that the host emulation (kernels/testing) runs them for every
 * thread of every CTA between the kernels' barriers.
 */
#pragma once

#include <math.h>

#include <cstdint>
#include <type_traits>

#include "poc_fft.cuh"
#include "poc_kernels.cuh"
#include "poc_thread.cuh"
#include "unroll.cuh"

namespace match {
namespace cuda {
namespace tiled_detail {

using namespace poc_thread;
using namespace poc_fft;

template <int N>
struct TShape {
  static constexpr int R1 = 16, R2 = N / 16; /* N = R1 R2 */
  static constexpr int LP = N + N / 16 + 1;  /* tile line pitch */
  static constexpr int RB = 16;              /* rows per CTA (rows, inv) */
  static constexpr int T = 256;              /* threads per CTA */
  static constexpr int W = T / 32;
  static constexpr int RUN = R2;              /* columns per run */
  static constexpr int COL_CTAS = R1 / 2 + 1; /* runs 0, 8 and 7 pairs */
  /* cols: CTAs per SM, three at N = 256 (its shared memory), four at 128
   * (64 registers) */
  static constexpr int COL_MIN_CTAS = N == 128 ? 4 : 3;
  /* rows, inv: thread t keeps column t mod N and takes every
   * STEP-th row from t / N, so that its column's constants (clamped x,
   * window weight, box test, key) are computed once. */
  static constexpr int STEP = T / N;
  static_assert(T % N == 0, "a thread keeps its column");
};

MATCH_HD __forceinline__ int skew(int t) { return t + (t >> 4); }

template <int N>
MATCH_HD __forceinline__ int tpos_of(int k) {
  return (k % TShape<N>::R1) * TShape<N>::R2 + k / TShape<N>::R1;
}
template <int N>
MATCH_HD __forceinline__ int tfreq_of(int p) {
  return p / TShape<N>::R2 + TShape<N>::R1 * (p % TShape<N>::R2);
}
template <int N>
MATCH_HD __forceinline__ bool in_box(int f, int k) {
  const int sf = f <= N / 2 ? f : f - N;
  return sf <= k && sf >= -k;
}

/* One radix pass over `lines` lines of a tile (line L's element t at
 * tile[L LP + skew(t)]); items (line, j) with j fastest. STAGE 1: radix R1
 * over t = j + R2 q with the twiddle W_N^(j q) (after the butterflies
 * forward, before them inverse); STAGE 2: radix R2 over t = j R2 + q.
 * Lines for which `active(line)` is false are left alone. */
template <int N, int STAGE, bool INV, typename Active>
MATCH_HD __forceinline__ void tpass_thread(float2* tile, int lines, const float2* tw,
                                           int tid, const Active& active) {
  using S = TShape<N>;
  constexpr int R = STAGE == 1 ? S::R1 : S::R2;
  constexpr int groups = STAGE == 1 ? S::R2 : S::R1;
  for (int item = tid; item < lines * groups; item += S::T) {
    const int j = item % groups, line = item / groups;
    if (!active(line)) continue;
    float2* base = tile + line * S::LP;
    const int first = STAGE == 1 ? j : j * S::R2;
    const int step = STAGE == 1 ? S::R2 : 1;
    float2 a[R];
    MATCH_UNROLL
    for (int q = 0; q < R; ++q) a[q] = base[skew(first + q * step)];
    if (STAGE == 1 && INV) {
      MATCH_UNROLL
      for (int q = 1; q < R; ++q) a[q] = cmul(a[q], cconj(tw[j * q]));
    }
    dft<R, INV>(a);
    if (STAGE == 1 && !INV) {
      MATCH_UNROLL
      for (int q = 1; q < R; ++q) a[q] = cmul(a[q], tw[j * q]);
    }
    MATCH_UNROLL
    for (int q = 0; q < R; ++q) base[skew(first + q * step)] = a[q];
  }
}

struct AllLines {
  MATCH_HD bool operator()(int) const { return true; }
};

struct TiledArgs {
  LayerView I, J;
  PocGeometry g;
  int layer;
  PeakMode mode;
  bool from_point;
  int b0;
  int2* centre;
  uint8_t* done;
  PeakRecord* rec;
  const float* w1d;
  const float2* tw;
  float2* z;                /* chunk x N x N */
  float2* means;            /* per block: (mean f, mean g) */
  unsigned long long* best; /* per block */
};

/* ---- sums ---- */

/* Block i of the chunk: both windows' exact sums from the layers'
 * summed-area tables -> means; resets the block's peak key. */
MATCH_HD __forceinline__ void sums_block(const TiledArgs& a, int i) {
  const int b = a.b0 + i, n = a.g.n;
  if (peak_skips(a.mode, a.done, b)) return;
  const PairJob j = pair_job(a.I, a.J, a.g, a.layer, b, a.from_point, a.centre);
  a.means[b] = make_float2(window_mean(sat_window_sum(j.I, j.fx, j.fy, n), j.scale, n),
                           window_mean(sat_window_sum(j.J, j.gx, j.gy, n), j.scale, n));
  a.best[b] = 0;
}

/* ---- rows: load + window, then the forward row passes ---- */

template <int N>
MATCH_HD __forceinline__ void rows_load_thread(const PairJob& j, float2 mean,
                                               const float* w1d, int y0, float2* tile,
                                               int tid) {
  using S = TShape<N>;
  const int x = tid % N;
  const int fx = clampi(j.fx + x, 0, j.I.w - 1);
  const int gx = clampi(j.gx + x, 0, j.J.w - 1);
  const float wx = w1d[x];
  float2* t = tile + skew(x);
  MATCH_UNROLL
  for (int r = tid / N; r < S::RB; r += S::STEP) {
    const int y = y0 + r;
    const float fv = layer_row(j.I, j.fy + y)[fx];
    const float gv = layer_row(j.J, j.gy + y)[gx];
    t[r * S::LP] = make_float2(window_value(fv, mean.x, wx, w1d[y]),
                               window_value(gv, mean.y, wx, w1d[y]));
  }
}

/* Tile rows -> Z rows y0.. of block i of the chunk (coalesced), skipping
 * the 32-byte sectors of 4 columns that hold no column inside the low-pass
 * box: no later stage reads those (cols transforms and inv reads the box
 * only). A sector is written whole or not at all: writing only its box
 * columns made the kernel 1.5x slower on an H200 (partial sectors). */
template <int N>
MATCH_HD __forceinline__ void rows_store_thread(float2* zb, int y0, int kbox,
                                                const float2* tile, int tid) {
  using S = TShape<N>;
  const int p = tid % N;
  bool needed = false;
  for (int q = p & ~3; q < (p | 3) + 1; ++q)
    needed = needed || in_box<N>(tfreq_of<N>(q), kbox);
  if (!needed) return;
  const float2* t = tile + skew(p);
  float2* z = zb + (size_t)y0 * N + p;
  MATCH_UNROLL
  for (int r = tid / N; r < S::RB; r += S::STEP) z[r * N] = t[r * S::LP];
}

/* ---- cols ---- */

/* The column runs of CTA c: run a = c for c < R1/2 ... as documented: c = 0
 * -> run 0 alone, c = R1/2 -> run R1/2 alone, else runs c and R1 - c. */
template <int N>
MATCH_HD __forceinline__ int col_runs(int c, int run[2]) {
  using S = TShape<N>;
  run[0] = c;
  if (c == 0 || c == S::R1 / 2) return 1;
  run[1] = S::R1 - c;
  return 2;
}

/* Tile line L of the CTA <-> its column position. */
template <int N>
MATCH_HD __forceinline__ int line_pos(const int run[2], int line) {
  return run[line / TShape<N>::RUN] * TShape<N>::R2 + line % TShape<N>::RUN;
}
template <int N, int NRUNS>
MATCH_HD __forceinline__ int pos_line(const int run[2], int p) {
  const int a = p / TShape<N>::R2;
  const int which = NRUNS == 2 && a == run[1] ? 1 : 0;
  return which * TShape<N>::RUN + p % TShape<N>::R2;
}

/* f(std::integral_constant<int, nruns>()) for a column CTA's run count (1
 * or 2), so that the column phases' line count, which their index
 * arithmetic divides by, is a constant (a power of two). */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename F>
MATCH_HD __forceinline__ void with_runs(int nruns, F f) {
  if (nruns == 2)
    f(std::integral_constant<int, 2>());
  else
    f(std::integral_constant<int, 1>());
}

template <int N, bool TO_Z, int NRUNS>
MATCH_HD __forceinline__ void cols_copy_thread(float2* zb, const int run[2], int kbox,
                                               float2* tile, int tid) {
  using S = TShape<N>;
  constexpr int lines = NRUNS * S::RUN;
  static_assert(S::T % lines == 0, "a thread keeps its line");
  /* Element e = v lines + line (lanes along the row): e = tid + k T keeps
   * line = tid mod lines. */
  const int line = tid % lines;
  const int p = line_pos<N>(run, line);
  /* Lines outside the box are neither transformed nor written back. */
  if (!in_box<N>(tfreq_of<N>(p), kbox)) return;
  for (int v = tid / lines; v < N; v += S::T / lines) {
    float2& zv = zb[(size_t)v * N + p];
    float2& tv = tile[line * S::LP + skew(v)];
    if (TO_Z)
      zv = tv;
    else
      tv = zv;
  }
}

template <int N>
struct ColActive {
  const int* run;
  int kbox;
  MATCH_HD bool operator()(int line) const {
    return in_box<N>(tfreq_of<N>(line_pos<N>(run, line)), kbox);
  }
};

/* Cross spectrum in the CTA's columns (digit-reversed rows): each pair
 * {k, -k} once, by the thread that meets the lower index. */
template <int N, int NRUNS>
MATCH_HD __forceinline__ void cols_cross_thread(float2* tile, const int run[2], int kbox,
                                                int tid) {
  using S = TShape<N>;
  constexpr int lines = NRUNS * S::RUN;
  static_assert(S::T % lines == 0, "a thread keeps its line");
  /* Element e = qv lines + line, e = tid + k T: the line, its frequency and
   * its mirror's line are the thread's constants. */
  const int line = tid % lines;
  const int fu = tfreq_of<N>(line_pos<N>(run, line));
  if (!in_box<N>(fu, kbox)) return; /* not written back */
  const int line2 = pos_line<N, NRUNS>(run, tpos_of<N>((N - fu) % N));
  for (int qv = tid / lines; qv < N; qv += S::T / lines) {
    const int e = qv * lines + line;
    const int fv = tfreq_of<N>(qv);
    const int qv2 = tpos_of<N>((N - fv) % N);
    const int e2 = qv2 * lines + line2;
    if (e2 < e) continue;
    float2* za = tile + line * S::LP + skew(qv);
    float2* zb = tile + line2 * S::LP + skew(qv2);
    float2 r = make_float2(0.f, 0.f);
    if (in_box<N>(fv, kbox)) {
      const float2 A = *za, B = cconj(*zb);
      const float2 f = make_float2(0.5f * (A.x + B.x), 0.5f * (A.y + B.y));
      const float2 q = make_float2(0.5f * (A.y - B.y), -0.5f * (A.x - B.x));
      const float pr = f.x * q.x + f.y * q.y;
      const float pi = f.y * q.x - f.x * q.y;
      const float m2 = pr * pr + pi * pi;
      if (m2 > 1e-30f) {
#if defined(__CUDA_ARCH__)
        const float inv = rsqrtf(m2);
#else
        const float inv = 1.f / sqrtf(m2);
#endif
        r = make_float2(pr * inv, pi * inv);
      }
    }
    *za = r;
    if (e2 != e) *zb = cconj(r);
  }
}

/* ---- inv ---- */

template <int N>
MATCH_HD __forceinline__ void inv_load_thread(const float2* zb, int y0, int kbox,
                                              float2* tile, int tid) {
  using S = TShape<N>;
  const int p = tid % N;
  const bool box = in_box<N>(tfreq_of<N>(p), kbox);
  const float2* z = zb + (size_t)y0 * N + p;
  float2* t = tile + skew(p);
  MATCH_UNROLL
  for (int r = tid / N; r < S::RB; r += S::STEP)
    t[r * S::LP] = box ? z[r * N] : make_float2(0.f, 0.f);
}

/* The surface rows (real parts) over Z's rows, as floats (row y at
 * (float*)zb + 2 N y), and the thread's largest key: its column's rows
 * come in increasing y within one half of the surface (a band of RB rows
 * never straddles N/2), where the key's tie rule prefers the smaller y, so
 * the first strictly larger value wins and is keyed once. */
template <int N>
MATCH_HD __forceinline__ unsigned long long inv_store_thread(float2* zb, int y0,
                                                             const float2* tile,
                                                             int tid) {
  using S = TShape<N>;
  static_assert((N / 2) % S::RB == 0, "bands within one half");
  const int x = tid % N;
  float* sf = reinterpret_cast<float*>(zb) + (size_t)y0 * 2 * N + x;
  const float2* t = tile + skew(x);
  float best_v = -INFINITY;
  int best_y = -1;
  MATCH_UNROLL
  for (int r = tid / N; r < S::RB; r += S::STEP) {
    const float v = t[r * S::LP].x;
    sf[r * 2 * N] = v;
    if (v > best_v) {
      best_v = v;
      best_y = y0 + r;
    }
  }
  return best_y < 0 ? 0ull : peak_key_of(best_v, best_y * N + x, N);
}

/* One thread per block of the chunk. */
MATCH_HD __forceinline__ void tiled_peak_block(const TiledArgs& a, int i, int n) {
  const int b = a.b0 + i;
  if (peak_skips(a.mode, a.done, b)) return;
  int n1, n2;
  peak_decode(a.best[b], n, &n1, &n2);
  const float* surf = reinterpret_cast<const float*>(a.z + (size_t)i * n * n);
  peak_update(surf, 2 * n, 1, b, n1, n2, a.g, a.layer, a.mode, a.from_point, a.centre,
              a.done, a.rec);
}

template <int N>
constexpr size_t rows_smem() {
  return sizeof(float2) * TShape<N>::RB * TShape<N>::LP;
}
template <int N>
constexpr size_t cols_smem() {
  return sizeof(float2) * 2 * TShape<N>::RUN * TShape<N>::LP;
}

inline TiledArgs make_args(LayerView I, LayerView J, const PocGeometry& g, int layer,
                           PeakMode mode, bool from_point, int b0, int2* centre,
                           uint8_t* done, PeakRecord* rec, const float* w1d,
                           const float2* tw, float2* z, float2* means,
                           unsigned long long* best) {
  TiledArgs a;
  a.I = I;
  a.J = J;
  a.g = g;
  a.layer = layer;
  a.mode = mode;
  a.from_point = from_point;
  a.b0 = b0;
  a.centre = centre;
  a.done = done;
  a.rec = rec;
  a.w1d = w1d;
  a.tw = tw;
  a.z = z;
  a.means = means;
  a.best = best;
  return a;
}

}  // namespace tiled_detail
}  // namespace cuda
}  // namespace match
