/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * SGM's aggregation stage (match/stereo.h): every path's L_r from the cost
 * volume (stereo_cost.cu) into its own volume [r][y][x][np], 8-bit when
 * cmax + max P2' <= 255 (census 9x7 with P2 <= 192: the usual case), else
 * 16-bit (SgmPlan::wide).
 *
 * One warp per scan line and direction, every path r in one launch
 * (blockIdx.y; thousands of independent lines keep every SM busy). A step
 * along the line needs, per lane, its own L_r(q, k) and the neighbours
 * k - 1, k + 1 (two shuffles at the lane edges), the path minimum m (one
 * warp reduction, redux.sync) and P2' (a 256-entry table of the gradient,
 * in shared memory, looked up for 32 steps at once). L is held two
 * disparities to a 32-bit word (u16x2), so that the minimum of the four
 * terms is two DPX min(a + b, c) and one SIMD min per two disparities.
 */
#include "stereo_sgm.cuh"

namespace match {
namespace cuda {
namespace {

using namespace sgm_detail;

/* The reference's path order: (1, 0), (-1, 0), (0, 1), (0, -1), (1, 1),
 * (-1, 1), (1, -1), (-1, -1). */
__device__ __forceinline__ void direction(int r, int* dx, int* dy) {
  const int kDx[8] = {1, -1, 0, 0, 1, -1, 1, -1};
  const int kDy[8] = {0, 0, 1, -1, 1, 1, -1, -1};
  *dx = kDx[r];
  *dy = kDy[r];
}

/* First pixel of scan line `line` of direction (dx, dy) (its predecessor
 * is outside the image); false past the last line. Diagonal lines start
 * on the top or bottom row (w of them), then on the first or last column. */
__device__ __forceinline__ bool line_start(int dx, int dy, int w, int h, int line, int* x,
                                           int* y) {
  if (dy == 0) {
    if (line >= h) return false;
    *y = line;
    *x = dx > 0 ? 0 : w - 1;
  } else if (dx == 0) {
    if (line >= w) return false;
    *x = line;
    *y = dy > 0 ? 0 : h - 1;
  } else {
    if (line >= w + h - 1) return false;
    if (line < w) {
      *x = dx > 0 ? line : w - 1 - line;
      *y = dy > 0 ? 0 : h - 1;
    } else {
      const int j = line - w + 1;
      *x = dx > 0 ? 0 : w - 1;
      *y = dy > 0 ? j : h - 1 - j;
    }
  }
  return true;
}

/* P2'(gradient) for this frame: the penalty of a jump (stereo.h). */
__device__ __forceinline__ void fill_p2_table(const SgmArgs& a, int* tab) {
  for (int g = threadIdx.x; g < 256; g += blockDim.x)
    tab[g] = a.p2_edge > 0 ? max(a.p1, a.p2 * a.p2_edge / (a.p2_edge + g)) : a.p2;
  __syncthreads();
}

/* One line's running state: L_r(q, .) of the lane's disparities, two to a
 * word (u16x2: even k in the low half), so that every min and min-add is
 * one DPX instruction for two disparities; the path minimum m over all of
 * them and Ref(q). Padded disparities hold kBig16, which never wins and
 * survives + P1 in 16 bits (every real value, m + P2 included, is below
 * 4350 + 4095). Before the first pixel L = 0 and m = 0, which turns the
 * recursion into L_r(p, d) = c(p, d) (every term of the minimum is >= 0
 * and L(q, d) = 0 reaches it). */
constexpr uint32_t kBig16 = 0x7FFFu;

/* kAll: n = 32 PER (no padded disparities to mask). */
template <int PER, bool kAll = false>
struct Path {
  static constexpr int kW = PER / 2;
  uint32_t L[kW];
  uint32_t keep[kW]; /* 0xFFFF for the real halves */
  int m;

  __device__ __forceinline__ void start(const SgmArgs& a, int lane) {
#pragma unroll
    for (int i = 0; i < kW; ++i) {
      const int k = lane * PER + 2 * i;
      keep[i] = (k < a.n ? 0xFFFFu : 0u) | (k + 1 < a.n ? 0xFFFF0000u : 0u);
      L[i] = kBig16 * 0x10001u & ~keep[i];
    }
    m = 0;
  }

  using Costs = decltype(Pack<uint8_t, PER>::v);

  /* L_r(p, .) from L_r(q, .), given c(p, .) (PER bytes) and the jump
   * penalty P2' of this step. */
  __device__ __forceinline__ void step(const SgmArgs& a, int lane, Costs craw, int p2) {
    Pack<uint8_t, PER> c;
    c.v = craw;
    uint32_t cw[kW];
    if constexpr (PER == 2) {
      cw[0] = __byte_perm(c.v, 0, 0x5150);
    } else {
      const uint32_t* words = reinterpret_cast<const uint32_t*>(&c.v);
#pragma unroll
      for (int q = 0; q < PER / 4; ++q) {
        cw[2 * q] = __byte_perm(words[q], 0, 0x5150);
        cw[2 * q + 1] = __byte_perm(words[q], 0, 0x5352);
      }
    }
    const uint32_t mp2 = (m + p2) * 0x10001u;
    const uint32_t p1 = a.p1 * 0x10001u, mm = m * 0x10001u;
    /* The neighbours' words: (L[2i - 1], L[2i]) and (L[2i + 1], L[2i + 2]),
     * the lane's ends from the next lanes. */
    uint32_t lm = __shfl_up_sync(kFull, L[kW - 1] >> 16, 1);
    uint32_t lp = __shfl_down_sync(kFull, L[0] & 0xFFFFu, 1);
    if (lane == 0) lm = kBig16;
    if (lane == 31) lp = kBig16;
    uint32_t mid[kW + 1]; /* mid[i] = (L[2i - 1], L[2i]) */
    mid[0] = __byte_perm(lm, L[0], 0x5410);
#pragma unroll
    for (int i = 1; i < kW; ++i) mid[i] = __byte_perm(L[i - 1], L[i], 0x5432);
    mid[kW] = __byte_perm(L[kW - 1], lp, 0x5432);
    uint32_t lmin = 0;
#pragma unroll
    for (int i = 0; i < kW; ++i) {
      const uint32_t t = __vminu2(__viaddmin_u16x2(mid[i], p1, L[i]),
                                  __viaddmin_u16x2(mid[i + 1], p1, mp2));
      /* Per half t >= m (every term is) and the result < 2^15: plain
       * 32-bit arithmetic neither borrows nor carries across halves. */
      if constexpr (kAll)
        L[i] = t - mm + cw[i];
      else
        L[i] = ((t - mm + cw[i]) & keep[i]) | (kBig16 * 0x10001u & ~keep[i]);
      lmin = i == 0 ? L[0] : __vminu2(lmin, L[i]);
    }
    m = static_cast<int>(warp_min(min(lmin & 0xFFFFu, lmin >> 16)));
  }

  /* The lane's L as St values into PER consecutive elements. */
  template <typename St>
  __device__ __forceinline__ void store(St* p) const {
    using VT = decltype(Pack<St, PER>::v);
    VT v;
    if constexpr (sizeof(St) == 2) {
      v = *reinterpret_cast<const VT*>(L);
    } else if constexpr (PER == 2) {
      v = static_cast<VT>(__byte_perm(L[0], 0, 0x0020));
    } else {
      uint32_t* w = reinterpret_cast<uint32_t*>(&v);
#pragma unroll
      for (int q = 0; q < PER / 4; ++q)
        w[q] = __byte_perm(L[2 * q], L[2 * q + 1], 0x6420);
    }
    __stcs(reinterpret_cast<VT*>(p), v); /* read by another pass */
  }
};

/* Every path r (blockIdx.y), each line storing L_r in volume r. The pass
 * was bound by instruction issue: Nsight Compute on an H200 (1080p/128,
 * 8 paths, 16.6 M warp steps) counted 75 instructions per step and an
 * issue rate of 3.1 of 4 per cycle, with DRAM at 40 % of its peak. A
 * third of those instructions computed addresses as index x stride (64-bit
 * multiplies for the load, the store and the prefetch) and tested whether
 * a next step exists; the pointers are now bumped by the stride and the
 * loops split so that the steady one has no such test: 41 instructions
 * per step, the pass 2.18 -> 1.36 ms, the pair 2.80 -> 2.16 ms. On the
 * H100 (3.35 TB/s against the H200's 4.8) the pass is now at its DRAM
 * limit at 8 paths (4.16 GB at 2.55 TB/s), and the pair gained 1-2 %.
 * The costs of the next step are loaded one step ahead; those kPrefetch
 * steps ahead are prefetched into L2 (no registers in flight), which took
 * 1080p/4 paths from 1.48 to 1.44 ms and 1024x440 from 0.43 to 0.39 ms.
 * Earlier measurements on the H100: 4 lines per CTA and registers capped
 * for 12 CTAs per SM beat longer register rings and 8 or 16 lines per CTA;
 * a ring of 8 pixels in shared memory filled by cp.async was slower at
 * 1080p; dropping the padded-disparity masking when n = 32 PER (kAll) and
 * the P2' table and Ref loads when p2_edge = 0 (kEdge false) took the
 * pair from 3.07 to 2.76 ms, while a 6-bit cost volume (8 more ops per
 * step to unpack) and on-the-fly census costs for the horizontal paths
 * were slower (see the git history). Ordering the CTAs so that the three
 * downward paths read each cost row at the same time (L2 reuse: 1.72
 * instead of 2.29 GB from DRAM) was slower without the prefetch and 2 %
 * faster with it, not worth its mapping code. With p2_edge > 0 the P2'
 * of 32 steps come at once (a luma load and a table lookup per lane) and
 * each step takes its own by one shuffle: the pass at 1080p/8 paths went
 * from 1.81 to 1.71 ms on the H100 (a load, the gradient and a lookup per
 * step before). */
constexpr int kPrefetch = 8;

template <int PER, typename St, bool kAll, bool kEdge, int kPathWarps, int kMinBlocks>
__global__ void __launch_bounds__(32 * kPathWarps, fit_ctas(kMinBlocks, 32 * kPathWarps))
    sgm_path_kernel(const SgmArgs a, size_t dir_elems) {
  __shared__ int p2tab[256];
  fill_p2_table(a, p2tab);
  const int r = blockIdx.y;
  int dx, dy;
  direction(r, &dx, &dy);
  const int lane = threadIdx.x & 31;
  const int line = blockIdx.x * kPathWarps + threadIdx.x / 32;
  int x, y;
  if (!line_start(dx, dy, a.width, a.height, line, &x, &y)) return;
  const int rx = dx > 0 ? a.width - x : x + 1;
  const int ry = dy > 0 ? a.height - y : y + 1;
  const int steps = dx == 0 ? ry : (dy == 0 ? rx : min(rx, ry));
  constexpr int kNp = 32 * PER;
  using Costs = typename Path<PER>::Costs;
  /* Per-step strides of the volumes (elements) and of the luma (bytes). */
  const ptrdiff_t vstep = static_cast<ptrdiff_t>(dy * a.width + dx) * kNp;
  const ptrdiff_t lstep = static_cast<ptrdiff_t>(dy) * a.img_pitch + dx;
  const size_t p0 = (static_cast<size_t>(y) * a.width + x) * kNp + lane * PER;
  const uint8_t* cost = a.cost + p0;
  St* vol = static_cast<St*>(a.vol) + r * dir_elems + p0;
  const uint8_t* luma = a.luma + static_cast<size_t>(y) * a.img_pitch + x;
  Path<PER, kAll> path;
  path.start(a, lane);
  /* P2' (kEdge): lane j of a batch of 32 steps loads Ref at step i0 + j
   * and looks its gradient up in the table; each step takes its value by
   * one shuffle, instead of a load, a gradient and a lookup per step.
   * Step 0 has no predecessor: gradient 0 (its P2' is not used: m = 0 and
   * L = 0 before it). */
  int p2v = a.p2, luma_last = 0;
  const ptrdiff_t lbatch = 32 * lstep;
  auto batch = [&](int i0) {
    if constexpr (kEdge) {
      const int lv = luma[min(lane, steps - 1 - i0) * lstep];
      int lp = __shfl_up_sync(kFull, lv, 1);
      if (lane == 0) lp = i0 == 0 ? lv : luma_last;
      luma_last = __shfl_sync(kFull, lv, 31);
      p2v = p2tab[abs(lv - lp)];
      luma += lbatch;
    }
  };
  auto p2_of = [&](int i) { return kEdge ? __shfl_sync(kFull, p2v, i & 31) : a.p2; };
  /* The next step's costs are loaded one step ahead and the line's costs
   * kPrefetch steps ahead are prefetched into L2, without registers. */
  auto load = [&](const uint8_t* p) { return __ldg(reinterpret_cast<const Costs*>(p)); };
  Costs c = load(cost);
  const ptrdiff_t pf = kPrefetch * vstep;
  const int last = steps - 1;
  const int n1 = min(steps - kPrefetch, last);
  /* Two copies of the step: the first loop also prefetches, the second
   * (the last kPrefetch steps) does not, so neither tests per step but for
   * the next batch of P2' (a warp-uniform branch every 32 steps). */
  int i = 0;
  for (; i < n1; ++i) {
    asm volatile("prefetch.global.L2 [%0];" ::"l"(cost + pf));
    const Costs cn = load(cost + vstep);
    if ((i & 31) == 0) batch(i);
    path.step(a, lane, c, p2_of(i));
    path.template store<St>(vol);
    cost += vstep;
    vol += vstep;
    c = cn;
  }
  for (; i < last; ++i) {
    const Costs cn = load(cost + vstep);
    if ((i & 31) == 0) batch(i);
    path.step(a, lane, c, p2_of(i));
    path.template store<St>(vol);
    cost += vstep;
    vol += vstep;
    c = cn;
  }
  if ((i & 31) == 0) batch(i);
  path.step(a, lane, c, p2_of(i));
  path.template store<St>(vol);
}

template <int PER, typename St>
cudaError_t launch_paths_typed(const SgmArgs& a, cudaStream_t stream) {
  const size_t dir_elems = sgm_detail::dir_elems<PER>(a);
  const int lines =
      a.paths == 8 ? a.width + a.height - 1 : (a.width > a.height ? a.width : a.height);
  /* Path 0 (horizontal: the longest lines on wide frames) is scheduled
   * first (blockIdx.y = 0). */
  /* Every disparity real (n = 32 PER, e.g. 128): the step skips the
   * masking of padded ones (3 ops per word and step). */
  const dim3 pgrid((lines + kWarps - 1) / kWarps, a.paths);
  const int variant = (a.n == 32 * PER ? 1 : 0) | (a.p2_edge > 0 ? 2 : 0);
  switch (variant) {
    case 0:
      sgm_path_kernel<PER, St, false, false, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(a, dir_elems);
      break;
    case 1:
      sgm_path_kernel<PER, St, true, false, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(a, dir_elems);
      break;
    case 2:
      sgm_path_kernel<PER, St, false, true, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(a, dir_elems);
      break;
    default:
      sgm_path_kernel<PER, St, true, true, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(a, dir_elems);
      break;
  }
  return cudaGetLastError();
}

template <typename St>
cudaError_t launch_paths_per(const SgmPlan& p, const SgmArgs& a, cudaStream_t s) {
  switch (p.per) {
    case 2:
      return launch_paths_typed<2, St>(a, s);
    case 4:
      return launch_paths_typed<4, St>(a, s);
    case 8:
      return launch_paths_typed<8, St>(a, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_sgm_paths(const SgmPlan& p, const SgmArgs& a, cudaStream_t s) {
  return p.wide ? launch_paths_per<uint16_t>(p, a, s)
                : launch_paths_per<uint8_t>(p, a, s);
}

}  // namespace cuda
}  // namespace match
