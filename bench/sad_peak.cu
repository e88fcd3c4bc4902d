/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Measures the GPU's byte-SAD throughput: the "compute floor" that
 * bench_blockmatch compares the CUDA kernels against. Each variant keeps
 * many independent accumulators per thread so that issue rate, not latency,
 * is measured. Prints pixel-SADs per second (4 per 32-bit word).
 */
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CK(x)                                                       \
  do {                                                              \
    cudaError_t e_ = (x);                                           \
    if (e_ != cudaSuccess) {                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                 \
    }                                                               \
  } while (0)

namespace {

constexpr int kAcc = 8;

__device__ __forceinline__ unsigned sad4_ptx(unsigned a, unsigned b, unsigned c) {
  unsigned r;
  asm volatile("vabsdiff4.u32.u32.u32.add %0, %1, %2, %3;"
               : "=r"(r)
               : "r"(a), "r"(b), "r"(c));
  return r;
}

__device__ __forceinline__ unsigned sad4_dp4a(unsigned a, unsigned b, unsigned c) {
  return __dp4a(__vabsdiffu4(a, b), 0x01010101u, c);
}

template <int V>
__global__ void peak(const unsigned* in, unsigned* out, int iters) {
  unsigned a[kAcc], acc[kAcc];
  const unsigned seed = in[threadIdx.x & 31];
#pragma unroll
  for (int i = 0; i < kAcc; ++i) {
    a[i] = seed * (i + 1);
    acc[i] = 0;
  }
  unsigned b = seed ^ 0x5a5a5a5au;
  for (int it = 0; it < iters; ++it) {
#pragma unroll
    for (int i = 0; i < kAcc; ++i) {
      if (V == 0) acc[i] = sad4_ptx(a[i], b, acc[i]);
      if (V == 1) acc[i] = sad4_dp4a(a[i], b, acc[i]);
      if (V == 2) {
#pragma unroll
        for (int k = 0; k < 4; ++k)
          acc[i] = __usad((a[i] >> (8 * k)) & 255u, (b >> (8 * k)) & 255u, acc[i]);
      }
    }
    b += 0x01010101u;
  }
  unsigned s = 0;
#pragma unroll
  for (int i = 0; i < kAcc; ++i) s += acc[i];
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

template <int V>
double measure(const unsigned* in, unsigned* out, int blocks, int threads) {
  const int iters = 4096;
  peak<V><<<blocks, threads>>>(in, out, 16);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  cudaEvent_t e0, e1;
  CK(cudaEventCreate(&e0));
  CK(cudaEventCreate(&e1));
  float best = 1e30f;
  for (int rep = 0; rep < 5; ++rep) {
    CK(cudaEventRecord(e0));
    peak<V><<<blocks, threads>>>(in, out, iters);
    CK(cudaEventRecord(e1));
    CK(cudaEventSynchronize(e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    if (ms < best) best = ms;
  }
  CK(cudaEventDestroy(e0));
  CK(cudaEventDestroy(e1));
  const double px = 4.0 * kAcc * iters * double(blocks) * threads;
  return px / (best * 1e-3);
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  unsigned *in, *out;
  const int threads = 256, blocks = prop.multiProcessorCount * 16;
  CK(cudaMalloc(&in, 32 * sizeof(unsigned)));
  CK(cudaMemset(in, 0x37, 32 * sizeof(unsigned)));
  CK(cudaMalloc(&out, sizeof(unsigned) * blocks * threads));
  const double v0 = measure<0>(in, out, blocks, threads);
  const double v1 = measure<1>(in, out, blocks, threads);
  const double v2 = measure<2>(in, out, blocks, threads);
  const double sm_clk = double(prop.multiProcessorCount) * clock_khz * 1e3;
  std::printf("device: %s, %d SMs, %.0f MHz\n", prop.name, prop.multiProcessorCount,
              clock_khz / 1e3);
  std::printf("vabsdiff4.add (PTX)        %8.1f Gpx/s  (%.1f px/clk/SM)\n", v0 / 1e9,
              v0 / sm_clk);
  std::printf("__vabsdiffu4 + __dp4a      %8.1f Gpx/s  (%.1f px/clk/SM)\n", v1 / 1e9,
              v1 / sm_clk);
  std::printf("__usad per pixel           %8.1f Gpx/s  (%.1f px/clk/SM)\n", v2 / 1e9,
              v2 / sm_clk);
  const double best = v0 > v1 ? (v0 > v2 ? v0 : v2) : (v1 > v2 ? v1 : v2);
  std::printf("SAD_PEAK_GPX %.1f\n", best / 1e9);
  CK(cudaFree(in));
  CK(cudaFree(out));
  return 0;
}
