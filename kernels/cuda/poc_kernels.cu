/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA stages of POC-HS (ref/poc_ref.cpp has the definitions). The 2-D
 * transforms are cuFFT's (poc_cuda.cu); these kernels do what lies between
 * them:
 *
 *   gather -> [R2C] -> cross -> [C2R] -> peak   (per layer, per chunk)
 *   ... -> finish (sub-pixel fit, one thread per block)
 *
 * Bit-level agreement with the CPU backend where it is cheap: the windows
 * are the CPU's to the bit (the mean is an exact integer sum, see gather),
 * the 3x3 samples are scaled and fitted in double with the same code
 * (ref/poc_fit.h). Only the FFT rounding differs (cuFFT vs cpu/fft.cpp), so
 * the two backends agree to a few 1e-4 px except where two surface samples
 * are within that rounding of each other (tests/kernels/test_poc_cuda.cpp).
 *
 * Everything a thread computes is a __host__ __device__ function in
 * poc_thread.cuh; the kernels keep only the launch indexing and the CTA
 * reductions (shuffles, shared memory). The host emulation (kernels/testing)
 * calls the same functions for every thread of every CTA, so that
 * cuda::emulate_poc_match checks the kernels' indexing, tie rule, centre
 * updates and fit in CI, without a GPU. Host and device agree
 * to the bit on all of it except the cross spectrum, where nvcc contracts
 * a*b + c into FMAs and the host compiler (x86-64, no -mfma) cannot: a
 * rounding-level difference, like the FFTs'.
 */
#include <math.h>

#include <cstdint>
#include <cstring>

#include "poc_kernels.cuh"
#include "poc_thread.cuh"

namespace match {
namespace cuda {
namespace {

using namespace poc_thread;

/* ---- Kernels: launch indexing and CTA reductions around the above ---- */

__global__ void poc_prepare_kernel(const uint8_t* __restrict__ raw, int raw_pitch, int w,
                                   int h, float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x < w && y < h) prepare_pixel(raw, raw_pitch, w, x, y, out);
}

__global__ void poc_reduce_kernel(const float* __restrict__ src, int sw,
                                  float* __restrict__ dst, int dw, int dh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= dw || y >= dh) return;
  reduce_pixel(src, sw, dst, dw, x, y);
}

/* Summed-area table, pass 1: warp w of the CTA makes table row y = the
 * prefix sums of layer row y - 1 (row 0 and column 0 are 0), 32 columns
 * at a time with a shuffle scan and the running carry. */
constexpr int kSatRowWarps = 4;
__global__ void __launch_bounds__(32 * kSatRowWarps)
    poc_sat_rows_kernel(LayerView L, float scale, uint32_t* __restrict__ sat) {
  const int y = blockIdx.x * kSatRowWarps + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (y > L.h) return; /* whole warps */
  uint32_t* row = sat + (size_t)y * (L.w + 1);
  if (lane == 0) row[0] = 0;
  const float* src = L.px + (size_t)(y > 0 ? y - 1 : 0) * L.w;
  uint32_t carry = 0;
  for (int x0 = 0; x0 < L.w; x0 += 32) {
    const int x = x0 + lane;
    uint32_t v = y > 0 && x < L.w ? (uint32_t)to_int_rn(src[x] * scale) : 0u;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const uint32_t t = __shfl_up_sync(0xffffffffu, v, o);
      if (lane >= o) v += t;
    }
    if (x < L.w) row[x + 1] = carry + v;
    carry += __shfl_sync(0xffffffffu, v, 31);
  }
}

/* Pass 2: 32 columns per CTA, thread (x, s) owning rows [s seg, (s + 1)
 * seg) of its column: the segment's sum, the sums of the segments above
 * it from shared memory, then its rows' running sums in place. */
__global__ void __launch_bounds__(32 * 32)
    poc_sat_cols_kernel(int w, int h, uint32_t* __restrict__ sat) {
  __shared__ uint32_t part[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, s = threadIdx.y;
  const int rows = h + 1, seg = (rows + 31) / 32;
  const int y0 = min(s * seg, rows), y1 = min(y0 + seg, rows);
  uint32_t* col = sat + x;
  const size_t ld = (size_t)w + 1;
  uint32_t sum = 0;
  if (x <= w)
    for (int y = y0; y < y1; ++y) sum += col[y * ld];
  part[s][threadIdx.x] = sum;
  __syncthreads();
  if (x > w) return;
  uint32_t run = 0;
  for (int i = 0; i < s; ++i) run += part[i][threadIdx.x];
  for (int y = y0; y < y1; ++y) {
    run += col[y * ld];
    col[y * ld] = run;
  }
}

/* One CTA per window. Pass 1 sums the window exactly: layer-l values are
 * multiples of 4^-l (2x2 means of bytes), so v 4^l is an integer and the
 * integer sum is exact; the mean is then the CPU's double sum / n^2 rounded
 * to float, the same value. Pass 2 re-reads (L2-resident) and writes
 * (v - mean) (w_i w_j), with the CPU's operation order. Rows are read by
 * whole warps (coalesced); clamp-to-edge per coordinate. */
__global__ void __launch_bounds__(kGatherX* kGatherY)
    poc_gather_kernel(LayerView I, LayerView J, PocGeometry g, int layer, int b0,
                      bool g_at_point, const int2* __restrict__ centre,
                      const uint8_t* __restrict__ done, bool skip_done,
                      const float* __restrict__ w1d, float* __restrict__ out_f,
                      float* __restrict__ out_g) {
  const bool is_f = out_f && blockIdx.y == 0;
  if (gather_skips(is_f, skip_done, done, b0 + blockIdx.x)) return;
  const GatherJob job =
      gather_job(I, J, g, layer, b0, blockIdx.x, is_f, g_at_point, centre, out_f, out_g);
  const int tx = threadIdx.x, ty = threadIdx.y;
  long long sum = gather_thread_sum(job, g.n, tx, ty);
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  __shared__ long long warp_sum[kGatherY];
  __shared__ float s_mean;
  if (tx == 0) warp_sum[ty] = sum;
  __syncthreads();
  if (tx == 0 && ty == 0) {
    long long t = 0;
    for (int w = 0; w < kGatherY; ++w) t += warp_sum[w];
    s_mean = window_mean(t, job.scale, g.n);
  }
  __syncthreads();
  gather_thread_write(job, g.n, s_mean, w1d, tx, ty);
}

/* Element-wise on the half spectra into R, which may be G itself (no
 * __restrict__ on G and R for that reason). */
__global__ void poc_cross_kernel(const float2* __restrict__ F, const float2* G, float2* R,
                                 int half, int n, int k) {
  /* blockIdx.x: the window (up to 2^31 - 1 of them); y: its elements. */
  const int e = blockIdx.y * blockDim.x + threadIdx.x;
  if (e >= half) return;
  const size_t w = (size_t)blockIdx.x * half;
  R[w + e] = cross_value(F + w, G + w, e, n, k);
}

/* One CTA per surface: each thread's best key, a warp then a CTA maximum
 * (peak_key makes the order irrelevant), then thread 0 updates the block. */
__global__ void __launch_bounds__(kPeakThreads)
    poc_peak_kernel(const float* __restrict__ surf, int b0, PocGeometry g, int layer,
                    PeakMode mode, bool from_point, int2* __restrict__ centre,
                    uint8_t* __restrict__ done, PeakRecord* __restrict__ rec) {
  const int i = blockIdx.x;
  const int b = b0 + i;
  if (peak_skips(mode, done, b)) return;
  const int n = g.n;
  const float* s = surf + (size_t)i * n * n;
  unsigned long long best = peak_thread_best(s, n, threadIdx.x);
  for (int o = 16; o > 0; o >>= 1)
    best = key_max(best, __shfl_down_sync(0xffffffffu, best, o));
  __shared__ unsigned long long warp_best[kPeakThreads / 32];
  if ((threadIdx.x & 31) == 0) warp_best[threadIdx.x >> 5] = best;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < kPeakThreads / 32; ++w) best = key_max(best, warp_best[w]);
  int n1, n2;
  peak_decode(best, n, &n1, &n2);
  peak_update(s, n, 1, b, n1, n2, g, layer, mode, from_point, centre, done, rec);
}

/* The fit's 6 model samples per iteration (poc_detail::fit_sample), one
 * per lane of the block's group of 6 lanes and shared among them by
 * shuffles: every lane of the group then has all of them and runs the rest
 * of the fit itself (the same values, so the group leaves the loop as one;
 * the shuffles name only the group's lanes). */
constexpr int kFitLanes = poc_detail::kFitSamples;
struct GroupFitSamples {
  int q;         /* lane in the group */
  int first;     /* the group's first lane */
  unsigned mask; /* the group's lanes */
  __device__ void operator()(const double t[2], int n, int k, double p[kFitLanes],
                             double dp[kFitLanes]) const {
    double mp, mdp;
    poc_detail::fit_sample(q, t, n, k, &mp, &mdp);
#pragma unroll
    for (int s = 0; s < kFitLanes; ++s) {
      p[s] = __shfl_sync(mask, mp, first + s);
      dp[s] = __shfl_sync(mask, mdp, first + s);
    }
  }
};

__global__ void poc_predict_kernel(PocGeometry coarse,
                                   const int2* __restrict__ coarse_centre,
                                   PocGeometry fine, int count, bool median,
                                   int2* __restrict__ out) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < count) out[b] = predict_block(coarse, coarse_centre, fine, b, median);
}

/* Five blocks per warp, a group of 6 lanes each (lanes 30 and 31 idle):
 * the fit is a chain of dependent double-precision steps, so the kernel is
 * latency-bound and wants every block of a 1080p frame resident at once. A
 * warp per block (18 lanes for the fit's old central differences) took
 * 94 us per 1080p frame on an H100, a thread per block 153 us. */
constexpr int kFinishThreads = 128;
constexpr int kFitGroups = 32 / kFitLanes;
constexpr int kFinishBlocksPerCta = kFinishThreads / 32 * kFitGroups;

__global__ void __launch_bounds__(kFinishThreads)
    poc_finish_kernel(const PeakRecord* __restrict__ rec, const int2* __restrict__ centre,
                      int nb, PocGeometry g, double alpha_unit, float min_confidence,
                      PocVector* __restrict__ out) {
  const int lane = threadIdx.x & 31, group = lane / kFitLanes;
  if (group >= kFitGroups) return;
  const int b =
      blockIdx.x * kFinishBlocksPerCta + (threadIdx.x >> 5) * kFitGroups + group;
  if (b >= nb) return; /* whole groups */
  const int first = group * kFitLanes;
  const GroupFitSamples samples{lane - first, first, ((1u << kFitLanes) - 1) << first};
  const PocVector v =
      finish_block(rec[b], centre[b], b, g, alpha_unit, min_confidence, samples);
  if (lane == first) out[b] = v;
}

}  // namespace

cudaError_t launch_poc_predict(const PocGeometry& coarse, const int2* coarse_centre,
                               const PocGeometry& fine, int count, bool median, int2* out,
                               cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  poc_predict_kernel<<<(count + 127) / 128, 128, 0, stream>>>(coarse, coarse_centre, fine,
                                                              count, median, out);
  return cudaGetLastError();
}

cudaError_t launch_poc_prepare(const uint8_t* raw, int raw_pitch, int w, int h,
                               float* layer0, cudaStream_t stream) {
  dim3 grid((w + 255) / 256, h);
  poc_prepare_kernel<<<grid, 256, 0, stream>>>(raw, raw_pitch, w, h, layer0);
  return cudaGetLastError();
}

cudaError_t launch_poc_reduce(LayerView src, float* dst, int dw, int dh,
                              cudaStream_t stream) {
  if (dw < 1 || dh < 1) return cudaSuccess;
  dim3 grid((dw + 255) / 256, dh);
  poc_reduce_kernel<<<grid, 256, 0, stream>>>(src.px, src.w, dst, dw, dh);
  return cudaGetLastError();
}

cudaError_t launch_poc_integrate(LayerView L, int layer, uint32_t* sat,
                                 cudaStream_t stream) {
  if (L.w < 1 || L.h < 1) return cudaSuccess;
  poc_sat_rows_kernel<<<(L.h + 1 + kSatRowWarps - 1) / kSatRowWarps, 32 * kSatRowWarps, 0,
                        stream>>>(L, (float)(1 << (2 * layer)), sat);
  poc_sat_cols_kernel<<<(L.w + 1 + 31) / 32, dim3(32, 32), 0, stream>>>(L.w, L.h, sat);
  return cudaGetLastError();
}

cudaError_t launch_poc_gather(LayerView I, LayerView J, const PocGeometry& g, int layer,
                              int b0, int count, bool g_at_point, const int2* centre,
                              const uint8_t* done, bool skip_done, const float* w1d,
                              float* out_f, float* out_g, cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  /* blockIdx.y: 0 = f when out_f is given, else g; g only when out_g is. */
  dim3 grid(count, (out_f ? 1 : 0) + (out_g ? 1 : 0));
  if (grid.y == 0) return cudaSuccess;
  poc_gather_kernel<<<grid, dim3(kGatherX, kGatherY), 0, stream>>>(
      I, J, g, layer, b0, g_at_point, centre, done, skip_done, w1d, out_f, out_g);
  return cudaGetLastError();
}

cudaError_t launch_poc_cross(const float2* F, const float2* G, float2* R, int count,
                             const PocGeometry& g, cudaStream_t stream) {
  const int half = g.n * (g.n / 2 + 1);
  if (count < 1) return cudaSuccess;
  const int threads = 256;
  const dim3 grid(count, (half + threads - 1) / threads);
  poc_cross_kernel<<<grid, threads, 0, stream>>>(F, G, R, half, g.n, g.k);
  return cudaGetLastError();
}

cudaError_t launch_poc_peak(const float* surf, int b0, int count, const PocGeometry& g,
                            int layer, PeakMode mode, bool from_point, int2* centre,
                            uint8_t* done, PeakRecord* rec, cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  poc_peak_kernel<<<count, kPeakThreads, 0, stream>>>(surf, b0, g, layer, mode,
                                                      from_point, centre, done, rec);
  return cudaGetLastError();
}

cudaError_t launch_poc_finish(const PeakRecord* rec, const int2* centre, int num_blocks,
                              const PocGeometry& g, double alpha_unit,
                              float min_confidence, PocVector* out, cudaStream_t stream) {
  if (num_blocks < 1) return cudaSuccess;
  poc_finish_kernel<<<(num_blocks + kFinishBlocksPerCta - 1) / kFinishBlocksPerCta,
                      kFinishThreads, 0, stream>>>(rec, centre, num_blocks, g, alpha_unit,
                                                   min_confidence, out);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
