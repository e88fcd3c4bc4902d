/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The tiled POC path for 128 and 256 px windows: a POC pass in five
 * kernels over one buffer Z of n x n complex values per block, instead of
 * cuFFT's windows, spectra and surfaces (about half the memory traffic),
 * and blocks that need no work (the re-centring pass's done blocks) cost a
 * CTA that exits at once instead of their share of a batched transform.
 *
 *   sums   one thread per block: both windows' exact integer sums from
 *          the layers' summed-area tables (LayerView::sat) -> means (the
 *          gather kernel's, so the windows equal the CPU's bit for bit);
 *          resets the block's peak key. Summing the windows' pixels, a CTA
 *          per block, took 0.23 ms of [E]'s 1.94 ms frame on an H200.
 *   rows   one CTA per RB rows of a block: z = (f - mean_f) w + i (g - mean_g) w
 *          for those rows, the forward row transforms (radix 16 x n/16 in
 *          registers, decimation in frequency: digit-reversed order), Z rows
 *          in the 32-byte sectors that hold a column inside the low-pass box
 *          (no later stage reads the others)
 *   cols   one CTA per pair of column runs {a, 16 - a} of a block: the
 *          positions a n/16 .. a n/16 + n/16 - 1 hold the frequencies a + 16 b,
 *          whose negatives fill run 16 - a (runs 0 and 8 pair with
 *          themselves), so a CTA holds every column with its mirror: forward
 *          column transforms, F and G from Z(k) and Z(-k), the normalised
 *          cross spectrum R inside the low-pass box, the adjoint column
 *          transforms (natural row order); only the columns inside the box
 *          are read, transformed and written back
 *   inv    one CTA per RB rows: the rows of R (columns outside the box read
 *          as 0), the adjoint row transforms (natural order), the surface's
 *          real part written over those rows, each thread's largest key
 *          (poc_thread.cuh's tie rule) and one 64-bit atomicMax per CTA
 *   peak   one thread per block: the key -> n*, the centre update and 3x3
 *          record of the peak kernel, from the stored surface
 *
 * In rows and inv a thread keeps one column (TShape::STEP), in cols
 * one line: their index arithmetic and per-column constants are computed
 * once, not per element (on [E]'s layer-0 pass this halved the columns
 * kernel's instructions).
 *
 * Shared-memory tiles hold lines (rows, or columns in `cols`) of n complex
 * values at index line LP + t + t / 16 (LP = n + n/16 + 1): the skew keeps
 * the radix-16 and the contiguous passes free of bank conflicts, and the odd
 * line pitch the transposing loads of `cols`.
 *
 * Host emulation: emulate_poc_tiled() runs every CTA's threads phase by
 * phase on the host (the same functions), as for the other paths.
 */
#include <math.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>
#include <vector>

#include "poc_fft.cuh"
#include "poc_kernels.cuh"
#include "poc_thread.cuh"
#include "unroll.cuh"

namespace match {
namespace cuda {
namespace {

using namespace poc_thread;
using namespace poc_fft;

template <int N>
struct TShape {
  static constexpr int R1 = 16, R2 = N / 16; /* N = R1 R2 */
  static constexpr int LP = N + N / 16 + 1;  /* tile line pitch */
  static constexpr int RB = 16;              /* rows per CTA (rows, inv) */
  static constexpr int T = 256;              /* threads per CTA */
  static constexpr int W = T / 32;
  static constexpr int RUN = R2;             /* columns per run */
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
MATCH_HD __forceinline__ void tpass_thread(float2* tile, int lines,
                                           const float2* tw, int tid,
                                           const Active& active) {
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
  float2* z;      /* chunk x N x N */
  float2* means;  /* per block: (mean f, mean g) */
  unsigned long long* best; /* per block */
};

/* ---- sums ---- */

/* Block i of the chunk: both windows' exact sums from the layers'
 * summed-area tables -> means; resets the block's peak key. */
MATCH_HD __forceinline__ void sums_block(const TiledArgs& a, int i) {
  const int b = a.b0 + i, n = a.g.n;
  if (peak_skips(a.mode, a.done, b)) return;
  const PairJob j = pair_job(a.I, a.J, a.g, a.layer, b, a.from_point, a.centre);
  a.means[b] = make_float2(
      window_mean(sat_window_sum(j.I, j.fx, j.fy, n), j.scale, n),
      window_mean(sat_window_sum(j.J, j.gx, j.gy, n), j.scale, n));
  a.best[b] = 0;
}

/* ---- rows: load + window, then the forward row passes ---- */

template <int N>
MATCH_HD __forceinline__ void rows_load_thread(const PairJob& j, float2 mean,
                                               const float* w1d, int y0,
                                               float2* tile, int tid) {
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
MATCH_HD __forceinline__ void cols_copy_thread(float2* zb, const int run[2],
                                               int kbox, float2* tile,
                                               int tid) {
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
MATCH_HD __forceinline__ void cols_cross_thread(float2* tile, const int run[2],
                                                int kbox, int tid) {
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
MATCH_HD __forceinline__ void inv_load_thread(const float2* zb, int y0,
                                              int kbox, float2* tile,
                                              int tid) {
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
MATCH_HD __forceinline__ unsigned long long inv_store_thread(float2* zb,
                                                             int y0,
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

/* ---- Kernels ---- */

__global__ void tiled_sums_kernel(TiledArgs a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) sums_block(a, i);
}

template <int N>
__global__ void __launch_bounds__(TShape<N>::T) tiled_rows_kernel(TiledArgs a) {
  using S = TShape<N>;
  extern __shared__ float2 tile[];
  const int i = blockIdx.x, b = a.b0 + i, y0 = blockIdx.y * S::RB;
  if (peak_skips(a.mode, a.done, b)) return;
  const PairJob job = pair_job(a.I, a.J, a.g, a.layer, b, a.from_point, a.centre);
  rows_load_thread<N>(job, a.means[b], a.w1d, y0, tile, threadIdx.x);
  __syncthreads();
  tpass_thread<N, 1, false>(tile, S::RB, a.tw, threadIdx.x, AllLines());
  __syncthreads();
  tpass_thread<N, 2, false>(tile, S::RB, a.tw, threadIdx.x, AllLines());
  __syncthreads();
  rows_store_thread<N>(a.z + (size_t)i * N * N, y0, a.g.k, tile, threadIdx.x);
}

template <int N>
__global__ void __launch_bounds__(TShape<N>::T, TShape<N>::COL_MIN_CTAS)
    tiled_cols_kernel(TiledArgs a) {
  using S = TShape<N>;
  extern __shared__ float2 tile[];
  const int i = blockIdx.x, b = a.b0 + i;
  if (peak_skips(a.mode, a.done, b)) return;
  int run[2] = {0, 0};
  const int nruns = col_runs<N>(blockIdx.y, run);
  float2* zb = a.z + (size_t)i * N * N;
  const ColActive<N> active{run, a.g.k};
  const int tid = threadIdx.x;
  with_runs(nruns, [&](auto runs) {
    constexpr int NR = decltype(runs)::value, lines = NR * S::RUN;
    cols_copy_thread<N, false, NR>(zb, run, a.g.k, tile, tid);
    __syncthreads();
    tpass_thread<N, 1, false>(tile, lines, a.tw, tid, active);
    __syncthreads();
    tpass_thread<N, 2, false>(tile, lines, a.tw, tid, active);
    __syncthreads();
    cols_cross_thread<N, NR>(tile, run, a.g.k, tid);
    __syncthreads();
    tpass_thread<N, 2, true>(tile, lines, a.tw, tid, active);
    __syncthreads();
    tpass_thread<N, 1, true>(tile, lines, a.tw, tid, active);
    __syncthreads();
    cols_copy_thread<N, true, NR>(zb, run, a.g.k, tile, tid);
  });
}

template <int N>
__global__ void __launch_bounds__(TShape<N>::T) tiled_inv_kernel(TiledArgs a) {
  using S = TShape<N>;
  extern __shared__ float2 tile[];
  const int i = blockIdx.x, b = a.b0 + i, y0 = blockIdx.y * S::RB;
  if (peak_skips(a.mode, a.done, b)) return;
  float2* zb = a.z + (size_t)i * N * N;
  inv_load_thread<N>(zb, y0, a.g.k, tile, threadIdx.x);
  __syncthreads();
  tpass_thread<N, 2, true>(tile, S::RB, a.tw, threadIdx.x, AllLines());
  __syncthreads();
  tpass_thread<N, 1, true>(tile, S::RB, a.tw, threadIdx.x, AllLines());
  __syncthreads();
  unsigned long long best = inv_store_thread<N>(zb, y0, tile, threadIdx.x);
  for (int o = 16; o > 0; o >>= 1)
    best = key_max(best, __shfl_down_sync(0xffffffffu, best, o));
  __shared__ unsigned long long wb[S::W];
  if ((threadIdx.x & 31) == 0) wb[threadIdx.x >> 5] = best;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < S::W; ++w) best = key_max(best, wb[w]);
  atomicMax(a.best + b, best);
}

/* One thread per block of the chunk. */
MATCH_HD __forceinline__ void tiled_peak_block(const TiledArgs& a, int i,
                                               int n) {
  const int b = a.b0 + i;
  if (peak_skips(a.mode, a.done, b)) return;
  int n1, n2;
  peak_decode(a.best[b], n, &n1, &n2);
  const float* surf = reinterpret_cast<const float*>(a.z + (size_t)i * n * n);
  peak_update(surf, 2 * n, 1, b, n1, n2, a.g, a.layer, a.mode, a.from_point,
              a.centre, a.done, a.rec);
}

__global__ void tiled_peak_kernel(TiledArgs a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) tiled_peak_block(a, i, a.g.n);
}

template <int N>
constexpr size_t rows_smem() {
  return sizeof(float2) * TShape<N>::RB * TShape<N>::LP;
}
template <int N>
constexpr size_t cols_smem() {
  return sizeof(float2) * 2 * TShape<N>::RUN * TShape<N>::LP;
}

template <int N>
cudaError_t prepare_n() {
  cudaError_t e = cudaSuccess;
  for (const auto& [fn, bytes] :
       {std::pair<const void*, size_t>{(const void*)tiled_rows_kernel<N>, rows_smem<N>()},
        {(const void*)tiled_inv_kernel<N>, rows_smem<N>()},
        {(const void*)tiled_cols_kernel<N>, cols_smem<N>()}})
    if (bytes > 48 * 1024 && e == cudaSuccess)
      e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(bytes));
  return e;
}

template <int N>
cudaError_t launch_n(const TiledArgs& a, int count, cudaStream_t stream) {
  using S = TShape<N>;
  tiled_sums_kernel<<<(count + 127) / 128, 128, 0, stream>>>(a, count);
  tiled_rows_kernel<N><<<dim3(count, N / S::RB), S::T, rows_smem<N>(), stream>>>(a);
  tiled_cols_kernel<N><<<dim3(count, S::COL_CTAS), S::T, cols_smem<N>(), stream>>>(a);
  tiled_inv_kernel<N><<<dim3(count, N / S::RB), S::T, rows_smem<N>(), stream>>>(a);
  tiled_peak_kernel<<<(count + 127) / 128, 128, 0, stream>>>(a, count);
  return cudaGetLastError();
}

/* ---- Host emulation of one pass ---- */

template <int N>
void emulate_n(const TiledArgs& a, int count) {
  using S = TShape<N>;
  std::vector<float2> tile(std::max(rows_smem<N>(), cols_smem<N>()) / sizeof(float2));
  float2* t = tile.data();
  auto each = [](auto&& f) {
    for (int tid = 0; tid < S::T; ++tid) f(tid);
  };
  for (int i = 0; i < count; ++i) sums_block(a, i); /* sums */
  for (int i = 0; i < count; ++i) { /* rows */
    const int b = a.b0 + i;
    if (peak_skips(a.mode, a.done, b)) continue;
    const PairJob job = pair_job(a.I, a.J, a.g, a.layer, b, a.from_point, a.centre);
    for (int y0 = 0; y0 < N; y0 += S::RB) {
      each([&](int tid) { rows_load_thread<N>(job, a.means[b], a.w1d, y0, t, tid); });
      each([&](int tid) { tpass_thread<N, 1, false>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) { tpass_thread<N, 2, false>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) { rows_store_thread<N>(a.z + (size_t)i * N * N, y0, a.g.k, t, tid); });
    }
  }
  for (int i = 0; i < count; ++i) { /* cols */
    const int b = a.b0 + i;
    if (peak_skips(a.mode, a.done, b)) continue;
    float2* zb = a.z + (size_t)i * N * N;
    for (int c = 0; c < S::COL_CTAS; ++c) {
      int run[2] = {0, 0};
      const int nruns = col_runs<N>(c, run);
      const ColActive<N> act{run, a.g.k};
      with_runs(nruns, [&](auto runs) {
        constexpr int NR = decltype(runs)::value, lines = NR * S::RUN;
        each([&](int tid) { cols_copy_thread<N, false, NR>(zb, run, a.g.k, t, tid); });
        each([&](int tid) { tpass_thread<N, 1, false>(t, lines, a.tw, tid, act); });
        each([&](int tid) { tpass_thread<N, 2, false>(t, lines, a.tw, tid, act); });
        each([&](int tid) { cols_cross_thread<N, NR>(t, run, a.g.k, tid); });
        each([&](int tid) { tpass_thread<N, 2, true>(t, lines, a.tw, tid, act); });
        each([&](int tid) { tpass_thread<N, 1, true>(t, lines, a.tw, tid, act); });
        each([&](int tid) { cols_copy_thread<N, true, NR>(zb, run, a.g.k, t, tid); });
      });
    }
  }
  for (int i = 0; i < count; ++i) { /* inv */
    const int b = a.b0 + i;
    if (peak_skips(a.mode, a.done, b)) continue;
    float2* zb = a.z + (size_t)i * N * N;
    unsigned long long best = 0;
    for (int y0 = 0; y0 < N; y0 += S::RB) {
      each([&](int tid) { inv_load_thread<N>(zb, y0, a.g.k, t, tid); });
      each([&](int tid) { tpass_thread<N, 2, true>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) { tpass_thread<N, 1, true>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) { best = key_max(best, inv_store_thread<N>(zb, y0, t, tid)); });
    }
    a.best[b] = key_max(a.best[b], best);
  }
  for (int i = 0; i < count; ++i) tiled_peak_block(a, i, N); /* peak */
}

TiledArgs make_args(LayerView I, LayerView J, const PocGeometry& g, int layer,
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

}  // namespace

bool poc_tiled_supported(int n) { return n == 128 || n == 256; }

cudaError_t poc_tiled_prepare(int n) {
  switch (n) {
    case 128: return prepare_n<128>();
    case 256: return prepare_n<256>();
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_poc_tiled(LayerView I, LayerView J, const PocGeometry& g,
                             int layer, PeakMode mode, bool from_point, int b0,
                             int count, int2* centre, uint8_t* done,
                             PeakRecord* rec, const float* w1d,
                             const float2* tw, float2* z, float2* means,
                             unsigned long long* best, cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  const TiledArgs a = make_args(I, J, g, layer, mode, from_point, b0, centre,
                                done, rec, w1d, tw, z, means, best);
  switch (g.n) {
    case 128: return launch_n<128>(a, count, stream);
    case 256: return launch_n<256>(a, count, stream);
  }
  return cudaErrorInvalidValue;
}

void emulate_poc_tiled(LayerView I, LayerView J, const PocGeometry& g,
                       int layer, PeakMode mode, bool from_point, int b0,
                       int count, int2* centre, uint8_t* done,
                       PeakRecord* rec, const float* w1d, const float2* tw,
                       float2* z, float2* means, unsigned long long* best) {
  const TiledArgs a = make_args(I, J, g, layer, mode, from_point, b0, centre,
                                done, rec, w1d, tw, z, means, best);
  switch (g.n) {
    case 128: emulate_n<128>(a, count); break;
    case 256: emulate_n<256>(a, count); break;
  }
}

}  // namespace cuda
}  // namespace match
