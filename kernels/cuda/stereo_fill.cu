/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The fill of invalid pixels (match/stereo.h): each invalid pixel takes the
 * lower of the nearest valid values to its left and right in its row, read
 * from the map before the fill. One CTA per row, kThreads threads, each
 * owning a run of `chunk` consecutive pixels (chunk <= 64 for rows up to
 * kMaxFrameSize):
 *   1. the row is copied into shared memory (coalesced), so the kernel may
 *      write the map it reads (in == out);
 *   2. each thread finds its run's last and first valid value; a block
 *      scan of "the last valid so far" (prefix) and "the first valid from
 *      here" (suffix) gives each run the values just outside it;
 *   3. each thread walks its run right to left (the right value of each
 *      invalid pixel, kept in place in shared memory, a 64-bit mask saying
 *      which were invalid), then left to right (the fill);
 *   4. the row goes back out coalesced.
 * The scans are warp shuffles plus one shared slot per warp.
 */
#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr uint32_t kInv = kInvalidDisparity;
static_assert((kMaxFrameSize + kThreads - 1) / kThreads <= 64,
              "a run's invalid pixels must fit a 64-bit mask");

/* a then b along the row: b's valid value wins over a's. */
__device__ __forceinline__ uint32_t later_valid(uint32_t a, uint32_t b) {
  return b != kInv ? b : a;
}

__global__ void __launch_bounds__(kThreads)
    stereo_fill_kernel(const uint16_t* in, int in_pitch, uint16_t* out, int out_pitch,
                       int w, int chunk) {
  extern __shared__ uint16_t row[];
  __shared__ uint32_t warp_last[kWarps], warp_first[kWarps];
  const int y = blockIdx.x;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  const uint16_t* src = in + static_cast<size_t>(y) * in_pitch;
  for (int x = t; x < w; x += kThreads) row[x] = src[x];
  __syncthreads();

  const int x0 = min(t * chunk, w), x1 = min(x0 + chunk, w);
  uint32_t last = kInv, first = kInv;
  for (int x = x0; x < x1; ++x) {
    const uint32_t v = row[x];
    last = later_valid(last, v);
    if (first == kInv) first = v;
  }
  /* Inclusive scans within the warp: prefix of `last`, suffix of `first`. */
  uint32_t pre = last, suf = first;
#pragma unroll
  for (int off = 1; off < 32; off <<= 1) {
    const uint32_t p = __shfl_up_sync(0xFFFFFFFFu, pre, off);
    const uint32_t s = __shfl_down_sync(0xFFFFFFFFu, suf, off);
    if (lane >= off) pre = later_valid(p, pre);
    if (lane + off < 32) suf = later_valid(s, suf);
  }
  if (lane == 31) warp_last[warp] = pre;
  if (lane == 0) warp_first[warp] = suf;
  __syncthreads();
  /* Exclusive: the runs before this one, and those after it. */
  uint32_t left = __shfl_up_sync(0xFFFFFFFFu, pre, 1);
  uint32_t right = __shfl_down_sync(0xFFFFFFFFu, suf, 1);
  if (lane == 0) left = kInv;
  if (lane == 31) right = kInv;
  for (int k = warp - 1; k >= 0 && left == kInv; --k) left = warp_last[k];
  for (int k = warp + 1; k < kWarps && right == kInv; ++k) right = warp_first[k];

  uint64_t hole = 0;
  for (int x = x1 - 1; x >= x0; --x) {
    const uint32_t v = row[x];
    if (v == kInv) {
      hole |= uint64_t{1} << (x - x0);
      row[x] = static_cast<uint16_t>(right);
    } else {
      right = v;
    }
  }
  for (int x = x0; x < x1; ++x) {
    const uint32_t v = row[x];
    if (hole >> (x - x0) & 1)
      row[x] = static_cast<uint16_t>(min(left, v)); /* invalid if both are */
    else
      left = v;
  }
  __syncthreads();
  uint16_t* dst = out + static_cast<size_t>(y) * out_pitch;
  for (int x = t; x < w; x += kThreads) dst[x] = row[x];
}

}  // namespace

cudaError_t launch_stereo_fill(const uint16_t* in, int in_pitch, uint16_t* out,
                               int out_pitch, int width, int height,
                               cudaStream_t stream) {
  const int chunk = (width + kThreads - 1) / kThreads;
  stereo_fill_kernel<<<height, kThreads, width * sizeof(uint16_t), stream>>>(
      in, in_pitch, out, out_pitch, width, chunk);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
