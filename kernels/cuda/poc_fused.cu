/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * One POC per CTA, entirely in shared memory, for windows of 32 and 64
 * pixels: the path poc_cuda.cu takes for those sizes. (128 ran too, but at
 * one 129 KB CTA per multiprocessor it was slower than cuFFT on an H100:
 * 4.05 vs 2.31 ms per 1080p frame on a 32-pixel grid, so it is not built.)
 *
 * Why: the cuFFT path (poc_kernels.cu) materialises every window, spectrum
 * and surface of the frame in global memory, about 4 GB of traffic per
 * 1080p frame with 64-pixel windows on a 16-pixel grid (each pixel lies in
 * 16 windows), which bounds it near 1.4 ms on an H100 whatever the
 * kernels do. Here a CTA reads its two windows' pixels (L2-resident layer
 * images) and writes one 48-byte peak record; everything between stays in
 * shared memory.
 *
 * Per CTA (block b at layer l), one pass of poc_cuda.cu's sequence:
 *   load     f (I around p_l) and g (J around p_l or centre[b]) as
 *            z = f + i g, with each window's exact integer sum; each
 *            thread owns one column (see Lanes)
 *   FFT      2-D forward transform of z: rows then columns, each a
 *            decimation-in-frequency of two in-register radix passes
 *            (8 x N/8), which leaves the spectrum in a digit-reversed order;
 *            the first row pass applies the window as it loads,
 *            z <- (f - mean_f) w + i (g - mean_g) w, as the gather kernel
 *            (bit-identical windows, poc_thread.cuh)
 *   cross    F = (Z(k) + conj Z(-k)) / 2, G = (Z(k) - conj Z(-k)) / 2i
 *            (two real transforms in one complex one), R = F conj G / |.|
 *            inside the low-pass box, written at k and conj at -k
 *   inverse  the adjoint network (decimation in time, conjugate twiddles,
 *            passes in reverse), which takes the digit-reversed order back
 *            to natural order: no reordering pass at all; the surface is
 *            real, so after the column passes rows y and y + N/2 share one
 *            complex row and the row passes take N/2 rows
 *   peak     the reference's tie rule as a 64-bit max key (poc_thread.cuh),
 *            then the same centre update and 3x3 record as the peak kernel
 *
 * Shared memory: N x (N + 1) complex floats (rows padded by one element, so
 * that the warps of both the row passes, whose lanes run down a column, and
 * the column passes, whose lanes run along a row, touch 32 different bank
 * pairs): 8.4 KB (N = 32), 33 KB (64).
 *
 * Executed instructions per CTA, one 1080p N = 64 pass on the H100:
 * 37.9 k before the element-wise phases were written per column and the
 * surface packed, 18.6 k after (399 -> 236 us per pass; bench/README.md,
 * Provenance).
 *
 * The result is the cuFFT path's up to FFT rounding (another order of
 * operations), checked against the CPU like it (tests/kernels/
 * test_poc_cuda.cpp). Every phase is a __host__ __device__ function of the
 * thread index (poc_fused.cuh); the host emulation (kernels/testing) runs
 * them for every thread of every CTA between the kernel's barriers, so CI
 * checks the indexing, the digit-reversed pairing and the box without a
 * GPU.
 */
#include <math.h>

#include <vector>

#include "poc_fused.cuh"

namespace match {
namespace cuda {
namespace {

using namespace fused_detail;

/* The warp's maximum key: the largest value word, then the largest rank
 * word among the lanes that hold it (two redux instead of five 64-bit
 * shuffle steps; shuffles before sm_80). */
__device__ __forceinline__ unsigned warp_max_u32(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_max_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
#endif
}
__device__ __forceinline__ int warp_sum(int v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_add_sync(0xffffffffu, v);
#else
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
#endif
}
__device__ __forceinline__ unsigned long long warp_key_max(unsigned long long key) {
  const unsigned hi = warp_max_u32(unsigned(key >> 32));
  const unsigned lo = warp_max_u32(unsigned(key >> 32) == hi ? unsigned(key) : 0u);
  return (static_cast<unsigned long long>(hi) << 32) | lo;
}

template <int N>
__global__ void __launch_bounds__(Shape<N>::T, Shape<N>::kMinBlocks)
    poc_fused_kernel(FusedArgs a) {
  using S = Shape<N>;
  extern __shared__ float2 tile[];
  __shared__ int warp_f[S::W], warp_g[S::W];
  __shared__ unsigned long long warp_best[S::W];
  __shared__ float s_mean[2];
  __shared__ float s_w1d[N]; /* the window function (the first row pass) */
  __shared__ float2 s_tw[N]; /* the twiddles, read by every radix-R1 pass */
  __shared__ int s_pairs[N]; /* pair_rows() */
  const int b = blockIdx.x, tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  if (peak_skips(a.mode, a.done, b)) return;
  const PairJob job = pair_job(a.I, a.J, a.g, a.layer, b, a.from_point, a.centre);
  if (tid < N) {
    s_w1d[tid] = a.w1d[tid];
    s_tw[tid] = a.tw[tid];
    s_pairs[tid] = pair_rows<N>(tid);
  }
  int sf, sg;
  load_thread<N>(job, tile, tid, &sf, &sg);
  sf = warp_sum(sf);
  sg = warp_sum(sg);
  if (lane == 0) {
    warp_f[warp] = sf;
    warp_g[warp] = sg;
  }
  __syncthreads();
  if (tid == 0) {
    int tf = 0, tg = 0;
    for (int w = 0; w < S::W; ++w) {
      tf += warp_f[w];
      tg += warp_g[w];
    }
    s_mean[0] = window_mean(tf, job.scale, N);
    s_mean[1] = window_mean(tg, job.scale, N);
  }
  __syncthreads();
  auto each = [&](auto pass) {
    pass(tile, s_tw, tid);
    __syncthreads();
  };
  fft2d_passes<N, false>(each, Windowing{s_w1d, s_mean[0], s_mean[1]});
  cross_thread<N>(tile, s_pairs, a.g.k, tid);
  __syncthreads();
  fft2d_passes<N, true>(each);
  unsigned long long best = warp_key_max(peak_thread<N>(tile, tid));
  if (lane == 0) warp_best[warp] = best;
  __syncthreads();
  if (tid != 0) return;
  for (int w = 1; w < S::W; ++w) best = key_max(best, warp_best[w]);
  int n1, n2;
  peak_decode(best, N, &n1, &n2);
  peak_update(reinterpret_cast<const float*>(tile), S::P, 2, b, n1, n2, a.g, a.layer,
              a.mode, a.from_point, a.centre, a.done, a.rec);
}

/* Both sizes stay within the default 48 KB of dynamic shared memory. */
template <int N>
cudaError_t launch_n(const FusedArgs& a, int count, cudaStream_t stream) {
  static_assert(sizeof(float2) * N * Shape<N>::P <= 48 * 1024,
                "past 48 KB the kernel needs the shared-memory opt-in");
  const size_t smem = sizeof(float2) * N * Shape<N>::P;
  poc_fused_kernel<N><<<count, Shape<N>::T, smem, stream>>>(a);
  return cudaGetLastError();
}

}  // namespace

bool poc_fused_supported(int n) { return n == 32 || n == 64; }

std::vector<float2> poc_fused_twiddles(int n) {
  std::vector<float2> tw(n);
  for (int t = 0; t < n; ++t) {
    const double a = 2.0 * 3.14159265358979323846 * t / n;
    tw[t] = make_float2(static_cast<float>(cos(a)), static_cast<float>(-sin(a)));
  }
  return tw;
}

cudaError_t launch_poc_fused(LayerView I, LayerView J, const PocGeometry& g, int layer,
                             PeakMode mode, bool from_point, int num_blocks, int2* centre,
                             uint8_t* done, PeakRecord* rec, const float* w1d,
                             const float2* tw, cudaStream_t stream) {
  if (num_blocks < 1) return cudaSuccess;
  const FusedArgs a =
      make_args(I, J, g, layer, mode, from_point, centre, done, rec, w1d, tw);
  switch (g.n) {
    case 32:
      return launch_n<32>(a, num_blocks, stream);
    case 64:
      return launch_n<64>(a, num_blocks, stream);
  }
  return cudaErrorInvalidValue;
}

}  // namespace cuda
}  // namespace match
