/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The block method's matching stage on the GPU: the rolling-window scheme
 * of paper [D] (README's References) with every definition of
 * match/stereo.h reproduced in integers, so the output equals ref/ bit for
 * bit (sub-pixel and invalid values included).
 *
 * Notation: sign = -1 for the left reference (ref pixel x meets the other
 * view at x - d), +1 for the right one; k = d - min_disparity in [0, n).
 * Every read is clamped per pixel, as in the definition:
 *   C(x, y, k)  = sum_i cs(x + i, y, k),
 *   cs(u, y, k) = sum_j |Ref(cl(u), cl(y+j)) - Oth(cl(u + sign d), cl(y+j))|
 * (|i| <= hw, |j| <= hh), cs defined for any column u, also outside the
 * image.
 *
 * stereo_cost_kernel (the window costs, their winner-take-all and the
 * left-right check's other view): one CTA per (strip of SP columns, band
 * of rows); T = n P threads, thread t owns disparity k = t % n and the
 * segment s = t / n of S = 32 output columns (P = 1 for n >= 32, else
 * 32 / n segments so that small ranges still fill a warp). The thread keeps the
 * S + 2 hw column sums cs(u, y, k) of its segment in registers (the kernel
 * is instantiated per hw, so every register index is static) and rolls them
 * down the band: per row, + |entering row difference| - |leaving row
 * difference|; the first 2 hh rows of a band only add (warm-up, no output).
 * The block sums of its S pixels slide along the registers: C(x+1) = C(x) +
 * cs(x+1+hw) - cs(x-hw). Both views' rows are staged in shared memory per
 * row (clamped columns, so the inner loop has no bounds logic).
 *
 * Each cost leaves the thread as a key (C << 8) | k; C <= 31 * 31 * 255 <
 * 2^24, so the key order is "lowest cost, then smallest d": a plain unsigned
 * minimum is the winner-take-all with ties to the smallest d, everywhere
 * (also across CTAs, where atomicMin combines partial minima). The keys of a
 * row go to shared memory as keys[k][x] (a transpose: the minimum over d is
 * across threads), then, after one barrier:
 *  - pixel scans (one thread per pixel): minimum key -> d*, C(d*); the
 *    sub-pixel neighbours are keys[k* -+ 1][x]; the uniqueness test needs
 *    min C over |k - k*| > 1, a second pass over [0, k*-2] and [k*+2, n)
 *    (the second-best cost is not enough: it is often a neighbour of d*).
 *    Result -> pre[y][x] = value | k* << 16 (k* for the left-right check).
 *  - diagonal scans (left-right check): the other view's cost is the
 *    reference's cost on a diagonal, exactly, clamping included:
 *      C_oth(p, d) = sum |Oth(cl(p+i)) - Ref(cl(p+i - sign d))|
 *                  = C_ref(p - sign d, d)
 *    (the same clamped pixel pairs), so D'(p) = argmin_k key(p - sign d, k)
 *    with the same tie rule. A CTA reduces the diagonals crossing its strip
 *    and atomicMin's them into dkey[y][p]. For every partner p that the check
 *    can ask for (p = x + sign d*, x in [0, W), d* >= dmin), the columns
 *    p - sign d all lie in [0, W + n - 1) (left) or [-(n - 1), W) (right),
 *    which is why the grid then covers n - 1 extra columns (cbeg).
 * stereo_finish.cu then applies the texture and left-right tests per
 * pixel and writes the 16-bit map. The tests only ever turn a value into
 * kInvalidDisparity, so their order cannot change the output.
 *
 * Shared memory (dynamic, 4-byte words):
 *   keys[2][n][SP + 1]  double-buffered by row parity; the odd stride keeps
 *                       the transposing stores (32 consecutive k, same x)
 *                       and the diagonal reads (consecutive x) on distinct
 *                       banks; pixel scans read consecutive x.
 *   rows[2][ref_in RB | ref_out RB | oth_in OB | oth_out OB]  bytes,
 *                       double-buffered: row y+1 is loaded (into registers
 *                       first, so its global latency overlaps the SAD work)
 *                       while row y is used.
 * One __syncthreads per row (b = row parity): before it, the SAD step reads
 * rows[b], writes keys[b] and stages the next row into rows[b^1]; after it,
 * the scans read keys[b]. rows[b] is rewritten during the next row, after
 * this barrier, which ends all reads of it; keys[b] is rewritten two rows
 * later, after the next barrier, which every thread reaches only after
 * finishing its scans of keys[b]. (With n < 32 a warp holds several
 * segments, and the transposing stores meet P-way bank conflicts: small
 * ranges are cheap anyway.)
 *
 * The Sobel cost runs this same code on the Sobel images (bytes, 0..62);
 * the census cost (plan.census) on rows of 64-bit census words, the
 * column sums rolling popcount(Ref ^ Oth) instead of |Ref - Oth| (C <= 31
 * * 31 * 63 < 2^24: the keys keep their order). The diagonal identity of
 * the left-right check holds for both (the per-pixel cost is symmetric).
 *
 * All per-thread code is __host__ __device__ (stereo_block.cuh): the host
 * emulation (kernels/testing) runs it CTA by CTA on the CPU.
 */
#include <algorithm>

#include "stereo_block.cuh"

namespace match {
namespace cuda {
namespace {

using namespace block_detail;

template <typename Px, int HW>
__global__ void __launch_bounds__(kStereoMaxThreads)
    stereo_cost_kernel(const StereoPlan p, const StereoFrameArgs a) {
  extern __shared__ uint32_t smem[];
  const Smem s = smem_layout(p, smem);
  const int tid = threadIdx.x;
  const int T = p.threads; /* == blockDim.x */
  const int xs = a.cbeg + static_cast<int>(blockIdx.x) * p.strip;
  const int y0 = static_cast<int>(blockIdx.y) * a.band_rows;
  const int y1 = min(a.height, y0 + a.band_rows);
  const int ys = y0 - 2 * p.hh;
  const int nst = p.stage_bytes();

  SadThread<HW> t;
  MATCH_UNROLL
  for (int u = 0; u < SadThread<HW>::kCols; ++u) t.cs[u] = 0;

  {
    const RowStep<Px> r = row_step<Px>(p, a, ys, y0);
    Px* dst = reinterpret_cast<Px*>(s.row_buf(0));
    for (int i = tid; i < nst; i += T) dst[i] = stage_value(p, a, xs, r, i);
  }
  __syncthreads();

  int b = 0;
  for (int y = ys; y < y1; ++y, b ^= 1) {
    const bool more = y + 1 < y1; /* CTA-uniform */
    const RowStep<Px> next = row_step<Px>(p, a, y + 1, y0);
    Px pf[kPrefetch];
    MATCH_UNROLL
    for (int i = 0; i < kPrefetch; ++i) {
      const int idx = tid + i * T;
      pf[i] = (more && idx < nst) ? stage_value(p, a, xs, next, idx) : 0;
    }
    roll_columns<Px, HW>(p, s.row_buf(b), tid, t);
    if (y >= y0) emit_keys<HW>(p, t, tid, s.key_buf(b));
    /* rows[b ^ 1] was last read before the previous barrier. */
    Px* dst = reinterpret_cast<Px*>(s.row_buf(b ^ 1));
    MATCH_UNROLL
    for (int i = 0; i < kPrefetch; ++i) {
      const int idx = tid + i * T;
      if (more && idx < nst) dst[idx] = pf[i];
    }
    if (more)
      for (int idx = tid + kPrefetch * T; idx < nst; idx += T)
        dst[idx] = stage_value(p, a, xs, next, idx);
    __syncthreads();
    if (y >= y0) scan_row(p, a, s.key_buf(b), xs, y, tid);
  }
}

/* Instantiation for a run-time half width. */
template <typename Px, int HW>
const void* cost_kernel_for_px(int hw) {
  if constexpr (HW > kStereoMaxHalfWidth) {
    return nullptr;
  } else {
    return hw == HW ? reinterpret_cast<const void*>(&stereo_cost_kernel<Px, HW>)
                    : cost_kernel_for_px<Px, HW + 1>(hw);
  }
}

const void* cost_kernel_for(const StereoPlan& p) {
  return p.census ? cost_kernel_for_px<uint64_t, 0>(p.hw)
                  : cost_kernel_for_px<uint8_t, 0>(p.hw);
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

StereoPlan plan_stereo(const StereoConfig& c) {
  StereoPlan p;
  p.hw = (c.window_width - 1) / 2;
  p.hh = (c.window_height - 1) / 2;
  p.n = c.num_disparities;
  p.dmin = c.min_disparity;
  p.sign = c.reference == StereoReference::kLeft ? -1 : 1;
  p.segs = p.n >= 32 ? 1 : 32 / p.n;
  p.threads = p.n * p.segs; /* <= kStereoMaxThreads */
  p.strip = p.segs * kStereoSegCols;
  p.key_stride = p.strip + 1;
  p.ref_bytes = round_up(p.strip + 2 * p.hw, 4);
  p.oth_bytes = round_up(p.strip + 2 * p.hw + p.n - 1, 4);
  p.census = stereo_cost_uses_census(c.cost);
  p.smem_bytes = 2 * sizeof(uint32_t) * static_cast<size_t>(p.n) * p.key_stride +
                 2 * static_cast<size_t>(p.stage_bytes()) * (p.census ? 8 : 1);
  return p;
}

void plan_stereo_frame(const StereoPlan& p, bool lr_check, int width, int height,
                       int target_ctas, int band_rows, StereoFrameArgs* a) {
  int cbeg = 0, cend = width;
  if (lr_check) {
    if (p.sign < 0)
      cend = width + p.n - 1;
    else
      cbeg = -(p.n - 1);
  }
  a->cbeg = cbeg;
  a->strips = (cend - cbeg + p.strip - 1) / p.strip;
  int rows = band_rows;
  if (rows <= 0) {
    const int bands = std::max(1, (target_ctas + a->strips - 1) / a->strips);
    rows = (height + bands - 1) / bands;
    /* Each band spends 2 hh warm-up rows: keep them a small share. */
    rows = std::max(rows, std::min(height, std::max(16, 8 * p.hh)));
  }
  rows = std::min(std::max(rows, 1), height);
  a->band_rows = rows;
  a->bands = (height + rows - 1) / rows;
}

cudaError_t stereo_prepare_device(const StereoPlan& p, int* ctas_per_sm) {
  const void* fn = cost_kernel_for(p);
  if (!fn) return cudaErrorInvalidValue;
  cudaError_t e = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                       static_cast<int>(p.smem_bytes));
  if (e != cudaSuccess) return e;
  int n = 0;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, p.threads, p.smem_bytes);
  if (e != cudaSuccess) return e;
  *ctas_per_sm = n;
  return cudaSuccess;
}

cudaError_t launch_stereo_block(const StereoPlan& p, const StereoFrameArgs& a,
                                cudaStream_t stream) {
  const void* fn = cost_kernel_for(p);
  if (!fn) return cudaErrorInvalidValue;
  StereoPlan pc = p;
  StereoFrameArgs ac = a;
  void* args[] = {&pc, &ac};
  const dim3 grid(a.strips, a.bands);
  cudaError_t e = cudaLaunchKernel(fn, grid, dim3(p.threads), args, p.smem_bytes, stream);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
