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
 * Host emulation: kernels/testing runs every CTA's threads phase by phase
 * on the host (the same functions, poc_tiled.cuh), as for the other
 * paths.
 */
#include <math.h>

#include <utility>
#include <vector>

#include "poc_tiled.cuh"

namespace match {
namespace cuda {
namespace {

using namespace tiled_detail;

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

__global__ void tiled_peak_kernel(TiledArgs a, int count) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) tiled_peak_block(a, i, a.g.n);
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

}  // namespace

bool poc_tiled_supported(int n) { return n == 128 || n == 256; }

cudaError_t poc_tiled_prepare(int n) {
  switch (n) {
    case 128:
      return prepare_n<128>();
    case 256:
      return prepare_n<256>();
  }
  return cudaErrorInvalidValue;
}

cudaError_t launch_poc_tiled(LayerView I, LayerView J, const PocGeometry& g, int layer,
                             PeakMode mode, bool from_point, int b0, int count,
                             int2* centre, uint8_t* done, PeakRecord* rec,
                             const float* w1d, const float2* tw, float2* z, float2* means,
                             unsigned long long* best, cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  const TiledArgs a = make_args(I, J, g, layer, mode, from_point, b0, centre, done, rec,
                                w1d, tw, z, means, best);
  switch (g.n) {
    case 128:
      return launch_n<128>(a, count, stream);
    case 256:
      return launch_n<256>(a, count, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace cuda
}  // namespace match
