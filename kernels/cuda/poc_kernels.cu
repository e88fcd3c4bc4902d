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
 */
#include <cstdint>

#include "poc_kernels.cuh"
#include "ref/poc_fit.h"

namespace match {
namespace cuda {
namespace {

/* The block's point at layer l: p_0 = the block centre, p_l = p_0 >> l
 * (floor halving; p >= 0). */
__device__ __forceinline__ int2 block_point(const PocGeometry& g, int b,
                                            int l) {
  const int col = b % g.cols, row = b / g.cols;
  const int x0 = col * g.spacing, y0 = row * g.spacing;
  const int x1 = min(x0 + g.spacing, g.width);
  const int y1 = min(y0 + g.spacing, g.height);
  return make_int2(((x0 + x1) / 2) >> l, ((y0 + y1) / 2) >> l);
}

__global__ void poc_prepare_kernel(const uint8_t* __restrict__ raw,
                                   int raw_pitch, int w, int h,
                                   float* __restrict__ out) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x < w && y < h) out[(size_t)y * w + x] = raw[(size_t)y * raw_pitch + x];
}

__global__ void poc_reduce_kernel(const float* __restrict__ src, int sw,
                                  float* __restrict__ dst, int dw, int dh) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  const int y = blockIdx.y;
  if (x >= dw || y >= dh) return;
  const float* r0 = src + (size_t)(2 * y) * sw + 2 * x;
  const float* r1 = r0 + sw;
  /* The CPU's order of additions: exact anyway (multiples of 1/64 < 256). */
  dst[(size_t)y * dw + x] = (r0[0] + r0[1] + r1[0] + r1[1]) * 0.25f;
}

constexpr int kGatherX = 32, kGatherY = 8;

/* One CTA per window. Pass 1 sums the window exactly: layer-l values are
 * multiples of 4^-l (2x2 means of bytes), so v 4^l is an integer and the
 * integer sum is exact; the mean is then the CPU's double sum / n^2 rounded
 * to float, the same value. Pass 2 re-reads (L2-resident) and writes
 * (v - mean) (w_i w_j), with the CPU's operation order. Rows are read by
 * whole warps (coalesced); clamp-to-edge per coordinate. */
__global__ void __launch_bounds__(kGatherX* kGatherY)
    poc_gather_kernel(LayerView I, LayerView J, PocGeometry g, int layer,
                      int b0, bool g_at_point, const int2* __restrict__ centre,
                      const uint8_t* __restrict__ done, bool skip_done,
                      const float* __restrict__ w1d, float* __restrict__ out_f,
                      float* __restrict__ out_g) {
  const bool is_f = out_f && blockIdx.y == 0;
  const int i = blockIdx.x;
  const int b = b0 + i;
  if (!is_f && skip_done && done[b]) return;
  const LayerView L = is_f ? I : J;
  int2 c = block_point(g, b, layer);
  if (!is_f && !g_at_point) c = centre[b];
  const int n = g.n, h = n / 2;
  const int ox = c.x - h, oy = c.y - h;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const float scale = (float)(1 << (2 * layer)); /* 4^l */

  long long sum = 0;
  for (int j = ty; j < n; j += kGatherY) {
    const float* row = L.px + (size_t)min(max(oy + j, 0), L.h - 1) * L.w;
    int part = 0; /* at most n / 32 values of < 255 * 64 each */
    for (int x = tx; x < n; x += kGatherX)
      part += __float2int_rn(row[min(max(ox + x, 0), L.w - 1)] * scale);
    sum += part;
  }
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_down_sync(0xffffffffu, sum, o);
  __shared__ long long warp_sum[kGatherY];
  __shared__ float s_mean;
  if (tx == 0) warp_sum[ty] = sum;
  __syncthreads();
  if (tx == 0 && ty == 0) {
    long long t = 0;
    for (int w = 0; w < kGatherY; ++w) t += warp_sum[w];
    s_mean = (float)(((double)t / scale) / ((double)n * n));
  }
  __syncthreads();
  const float mean = s_mean;
  float* out = (is_f ? out_f : out_g) + (size_t)i * n * n;
  for (int j = ty; j < n; j += kGatherY) {
    const float* row = L.px + (size_t)min(max(oy + j, 0), L.h - 1) * L.w;
    const float wj = w1d[j];
    for (int x = tx; x < n; x += kGatherX) {
      const float v = row[min(max(ox + x, 0), L.w - 1)];
      out[(size_t)j * n + x] = __fmul_rn(__fsub_rn(v, mean), __fmul_rn(w1d[x], wj));
    }
  }
}

/* Element-wise on the half spectra; G is overwritten with R. */
__global__ void poc_cross_kernel(const float2* __restrict__ F,
                                 float2* __restrict__ G, long long total,
                                 int n, int k) {
  const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (e >= total) return;
  const int hw = n / 2 + 1;
  const int u = (int)(e % hw);
  const int v = (int)((e / hw) % n);
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
  G[e] = r;
}

constexpr int kPeakThreads = 256;

/* Float bits mapped so that unsigned order = float order (+0 for -0, which
 * the CPU's '>' does not tell apart either). */
__device__ __forceinline__ unsigned int orderable(float v) {
  unsigned int u = __float_as_uint(v == 0.f ? 0.f : v);
  return (u & 0x80000000u) ? ~u : (u | 0x80000000u);
}

/* One CTA per surface. The tie rule of ref/poc_ref.cpp ("Peak": n = 0
 * first, then the first in fftshifted raster order) becomes a 64-bit key,
 * value above and the inverted visiting rank below, so one max-reduction
 * gives the reference's peak whatever the reduction order. */
__global__ void __launch_bounds__(kPeakThreads)
    poc_peak_kernel(const float* __restrict__ surf, int b0, PocGeometry g,
                    int layer, PeakMode mode, bool from_point,
                    int2* __restrict__ centre, uint8_t* __restrict__ done,
                    PeakRecord* __restrict__ rec) {
  const int i = blockIdx.x;
  const int b = b0 + i;
  if (mode == PeakMode::kRecentre && done[b]) return;
  const int n = g.n, lo = -(n / 2);
  const float* s = surf + (size_t)i * n * n;
  unsigned long long best = 0;
  for (int e = threadIdx.x; e < n * n; e += kPeakThreads) {
    const int v = e / n, u = e - v * n;
    const int su = u < n + lo ? u : u - n;
    const int sv = v < n + lo ? v : v - n;
    const unsigned int low =
        (su == 0 && sv == 0) ? 0xFFFFFFFFu
                             : 0xFFFFFFFEu - (unsigned int)((sv - lo) * n + (su - lo));
    const unsigned long long key =
        ((unsigned long long)orderable(s[e]) << 32) | low;
    best = key > best ? key : best;
  }
  for (int o = 16; o > 0; o >>= 1) {
    const unsigned long long other = __shfl_down_sync(0xffffffffu, best, o);
    best = other > best ? other : best;
  }
  __shared__ unsigned long long warp_best[kPeakThreads / 32];
  if ((threadIdx.x & 31) == 0) warp_best[threadIdx.x >> 5] = best;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int w = 1; w < kPeakThreads / 32; ++w)
    best = warp_best[w] > best ? warp_best[w] : best;
  const unsigned int low = (unsigned int)(best & 0xFFFFFFFFu);
  int n1 = 0, n2 = 0;
  if (low != 0xFFFFFFFFu) {
    const int rank = (int)(0xFFFFFFFEu - low);
    n1 = rank % n + lo;
    n2 = rank / n + lo;
  }
  const int2 c = from_point ? block_point(g, b, layer)
                            : centre[b];
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
        r.s[(j + 1) * 3 + q + 1] = s[(size_t)y * n + x];
      }
    r.n1 = n1;
    r.n2 = n2;
    rec[b] = r;
  }
}

/* One thread per block: the fit is ~10^4 double operations, so a thread per
 * window (full warps) rather than one thread of each peak CTA. */
__global__ void poc_finish_kernel(const PeakRecord* __restrict__ rec,
                                  const int2* __restrict__ centre, int nb,
                                  PocGeometry g, double alpha_unit,
                                  float min_confidence,
                                  PocVector* __restrict__ out) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= nb) return;
  const PeakRecord r = rec[b];
  const double scale = 1.0 / ((double)g.n * g.n);
  double s9[9];
  for (int q = 0; q < 9; ++q) s9[q] = r.s[q] * scale;
  double alpha = 0.0, t1 = 0.0, t2 = 0.0;
  poc_detail::fit_peak(s9, g.n, g.k, &alpha, &t1, &t2);
  const int2 p = block_point(g, b, 0);
  const int2 c = centre[b];
  PocVector v;
  v.dx = (float)(c.x + t1 - r.n1 - p.x);
  v.dy = (float)(c.y + t2 - r.n2 - p.y);
  const double conf = alpha / alpha_unit;
  v.confidence = (float)(conf > 0.0 ? conf : 0.0);
  v.flags = v.confidence < min_confidence ? kFlagUnreliable : kFlagNone;
  out[b] = v;
}

}  // namespace

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

cudaError_t launch_poc_gather(LayerView I, LayerView J, const PocGeometry& g,
                              int layer, int b0, int count, bool g_at_point,
                              const int2* centre, const uint8_t* done,
                              bool skip_done, const float* w1d, float* out_f,
                              float* out_g, cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  dim3 grid(count, out_f ? 2 : 1);
  poc_gather_kernel<<<grid, dim3(kGatherX, kGatherY), 0, stream>>>(
      I, J, g, layer, b0, g_at_point, centre, done, skip_done, w1d, out_f,
      out_g);
  return cudaGetLastError();
}

cudaError_t launch_poc_cross(const float2* F, float2* G, int count,
                             const PocGeometry& g, cudaStream_t stream) {
  const long long total = (long long)count * g.n * (g.n / 2 + 1);
  if (total < 1) return cudaSuccess;
  const int threads = 256;
  poc_cross_kernel<<<(unsigned)((total + threads - 1) / threads), threads, 0,
                     stream>>>(F, G, total, g.n, g.k);
  return cudaGetLastError();
}

cudaError_t launch_poc_peak(const float* surf, int b0, int count,
                            const PocGeometry& g, int layer, PeakMode mode,
                            bool from_point, int2* centre, uint8_t* done,
                            PeakRecord* rec, cudaStream_t stream) {
  if (count < 1) return cudaSuccess;
  poc_peak_kernel<<<count, kPeakThreads, 0, stream>>>(
      surf, b0, g, layer, mode, from_point, centre, done, rec);
  return cudaGetLastError();
}

cudaError_t launch_poc_finish(const PeakRecord* rec, const int2* centre,
                              int num_blocks, const PocGeometry& g,
                              double alpha_unit, float min_confidence,
                              PocVector* out, cudaStream_t stream) {
  if (num_blocks < 1) return cudaSuccess;
  const int threads = 128;
  poc_finish_kernel<<<(num_blocks + threads - 1) / threads, threads, 0,
                      stream>>>(rec, centre, num_blocks, g, alpha_unit,
                                min_confidence, out);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
