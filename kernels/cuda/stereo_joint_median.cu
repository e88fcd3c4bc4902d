/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The joint median (match/stereo.h): each valid pixel p takes the lower
 * median of the valid values of the (2r + 1)^2 square around it whose
 * reference luma is within `range` of p's. One thread per pixel, a 32 x 8
 * CTA; the CTA's disparities and lumas with an r-pixel apron are staged in
 * shared memory (outside the image: invalid). Each thread keeps its m
 * admitted values in registers (the others as kInvalidDisparity, above any
 * valid value) and finds the one of rank k = (m - 1) / 2 by bisection on
 * the value between the window's smallest and largest admitted value:
 * count(v <= mid) > k moves the top down, else the bottom up. That takes
 * log2(max - min + 1) passes over the registers, few where the map is
 * smooth, at most 15 (values < 2^15): no sort and no data-dependent
 * indexing (which would put the window in local memory).
 * The radius is a template parameter so the window's loops unroll.
 */
#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace {

constexpr int kBlockX = 32, kBlockY = 8;
constexpr uint32_t kInv = kInvalidDisparity;

template <int R>
__global__ void __launch_bounds__(kBlockX* kBlockY)
    stereo_joint_median_kernel(const uint16_t* in, int in_pitch, const uint8_t* luma,
                               int luma_pitch, uint16_t* out, int out_pitch, int w, int h,
                               int range) {
  constexpr int kTileW = kBlockX + 2 * R, kTileH = kBlockY + 2 * R;
  constexpr int kSide = 2 * R + 1, kTaps = kSide * kSide;
  __shared__ uint16_t disp[kTileH][kTileW];
  __shared__ uint8_t lum[kTileH][kTileW];
  const int bx = blockIdx.x * kBlockX - R, by = blockIdx.y * kBlockY - R;
  for (int i = threadIdx.y * kBlockX + threadIdx.x; i < kTileW * kTileH;
       i += kBlockX * kBlockY) {
    const int ty = i / kTileW, tx = i - ty * kTileW;
    const int xx = bx + tx, yy = by + ty;
    const bool inside = xx >= 0 && xx < w && yy >= 0 && yy < h;
    disp[ty][tx] = inside ? in[static_cast<size_t>(yy) * in_pitch + xx] : kInv;
    lum[ty][tx] = inside ? luma[static_cast<size_t>(yy) * luma_pitch + xx] : 0;
  }
  __syncthreads();
  const int x = blockIdx.x * kBlockX + threadIdx.x;
  const int y = blockIdx.y * kBlockY + threadIdx.y;
  if (x >= w || y >= h) return;
  const int tx = threadIdx.x + R, ty = threadIdx.y + R;
  const uint32_t centre = disp[ty][tx];
  if (centre == kInv) {
    out[static_cast<size_t>(y) * out_pitch + x] = kInvalidDisparity;
    return;
  }
  const int c = lum[ty][tx];
  uint32_t v[kTaps];
  int m = 0;
  uint32_t lo = centre, hi = centre;
#pragma unroll
  for (int j = 0; j < kSide; ++j)
#pragma unroll
    for (int i = 0; i < kSide; ++i) {
      const uint32_t d = disp[ty + j - R][tx + i - R];
      const bool in_range = abs(lum[ty + j - R][tx + i - R] - c) <= range;
      const uint32_t a = in_range ? d : kInv; /* invalid stays invalid */
      v[j * kSide + i] = a;
      if (a != kInv) {
        ++m;
        lo = min(lo, a);
        hi = max(hi, a);
      }
    }
  const int k = (m - 1) >> 1; /* m >= 1: the centre counts */
  while (lo < hi) {
    const uint32_t mid = (lo + hi) >> 1;
    int below = 0;
#pragma unroll
    for (int q = 0; q < kTaps; ++q) below += v[q] <= mid;
    if (below > k)
      hi = mid;
    else
      lo = mid + 1;
  }
  out[static_cast<size_t>(y) * out_pitch + x] = static_cast<uint16_t>(lo);
}

template <int R>
void launch_radius(const uint16_t* in, int in_pitch, const uint8_t* luma, int luma_pitch,
                   uint16_t* out, int out_pitch, int w, int h, int range,
                   cudaStream_t stream) {
  const dim3 block(kBlockX, kBlockY);
  const dim3 grid((w + kBlockX - 1) / kBlockX, (h + kBlockY - 1) / kBlockY);
  stereo_joint_median_kernel<R><<<grid, block, 0, stream>>>(
      in, in_pitch, luma, luma_pitch, out, out_pitch, w, h, range);
}

}  // namespace

cudaError_t launch_stereo_joint_median(const uint16_t* in, int in_pitch,
                                       const uint8_t* luma, int luma_pitch, uint16_t* out,
                                       int out_pitch, int width, int height, int radius,
                                       int range, cudaStream_t stream) {
  using Launch = void (*)(const uint16_t*, int, const uint8_t*, int, uint16_t*, int, int,
                          int, int, cudaStream_t);
  constexpr Launch kByRadius[] = {nullptr,          launch_radius<1>, launch_radius<2>,
                                  launch_radius<3>, launch_radius<4>, launch_radius<5>};
  static_assert(sizeof kByRadius / sizeof kByRadius[0] == kMaxJointMedianRadius + 1,
                "one instance per radius");
  if (radius < 1 || radius > kMaxJointMedianRadius) return cudaErrorInvalidValue;
  kByRadius[radius](in, in_pitch, luma, luma_pitch, out, out_pitch, width, height, range,
                    stream);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
