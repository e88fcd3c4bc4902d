/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Semi-global matching on the GPU, exactly as match/stereo.h defines it
 * (integers throughout, so the output equals ref/ bit for bit).
 *
 * Work split: one warp per scan line and direction; lane l owns the PER
 * consecutive disparities k = l PER + j (PER = 2, 4 or 8: n <= 32 PER,
 * padded ones held at a large value that never wins a minimum). A step
 * along the line needs, per lane, its own L_r(q, k) and the neighbours
 * k - 1, k + 1 (two shuffles at the lane edges), the path minimum m (one
 * warp reduction, redux.sync) and P2' (a 256-entry table of the gradient,
 * in shared memory); the minimum of the four terms is two DPX
 * min(a + b, c) and a min. The per-pixel costs come from a cost volume
 * (bytes) computed once: computing them on the fly in every path (two
 * popcounts per census cost, 16 per SM and clock) made the path kernel
 * bound by popcounts and instruction issue at ~4 ms for 1080p/128/8
 * paths, while reading 128 B per warp step costs a fraction of that in
 * DRAM bandwidth.
 *
 * Three kernels:
 *  - sgm_cost_kernel: c(x, y, k) into [y][x][np] bytes.
 *  - sgm_path_kernel: every path r in one launch (blockIdx.y; thousands of
 *    independent lines keep every SM busy), each storing L_r in its volume
 *    [r][y][x][np], 8-bit when cmax + max P2' <= 255 (census 9x7 with
 *    P2 <= 192: the usual case), else 16-bit.
 *  - sgm_wta_kernel: one warp per segment of kSeg pixels of a row: S as the
 *    sum of the volumes (S itself is never stored), the winner-take-all (a
 *    warp minimum of (S << 8) | k: lowest S, then smallest k), the
 *    sub-pixel fit (S(k* -+ 1) by shuffles) and the uniqueness test (a
 *    second minimum over |k - k*| > 1) into pre.
 *    The other view's map D' comes from the same S: D'(x') is the minimum
 *    key over the pixels x = x' - sign d. Walking x upwards, the
 *    contributions to one x' arrive one disparity apart at consecutive
 *    pixels (k ascending for the left reference, descending for the
 *    right), so a running minimum per disparity, shifted by one disparity
 *    per pixel (the shuffle pattern of L(q, k -+ 1)), is complete when it
 *    reaches the last disparity; the chains cut by the segment's ends are
 *    merged by atomicMin, a few per pixel. No second pass over S.
 *    (A first version fused the last path into this pass, one warp per
 *    row: it saved a volume's write and read but left 1 warp in 8 active,
 *    bound by the latency of a 1920-step chain; the segments are 3x
 *    faster.)
 * stereo_finish (stereo_kernels.cu) then applies the texture and
 * left-right tests from pre and dkey, exactly as for the block method.
 *
 * Bounds: L_r <= cmax + max(P2, P1) <= 255 + 4095 and S <= 8 of those <
 * 2^16, so keys (S << 8) | k fit 32 bits and int arithmetic never wraps.
 */
#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace {

constexpr int kWarps = 4;      /* lines per CTA */
constexpr int kSeg = 64;       /* pixels per warp of the WTA kernel */
constexpr int kBig = 1 << 24;  /* L of the padded disparities */
constexpr unsigned kFull = 0xFFFFFFFFu;
constexpr uint32_t kNoKey = 0xFFFFFFFFu;

__device__ __forceinline__ unsigned warp_min(unsigned v) {
#if __CUDA_ARCH__ >= 800
  return __reduce_min_sync(kFull, v);
#else
  for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(kFull, v, o));
  return v;
#endif
}

/* floor(a / b) for b > 0. */
__device__ __forceinline__ int floor_div(int a, int b) {
  int q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

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
__device__ __forceinline__ bool line_start(int dx, int dy, int w, int h,
                                           int line, int* x, int* y) {
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

/* PER values of type St as one vector access. */
template <int B> struct Raw;
template <> struct Raw<2> { using T = uint16_t; };
template <> struct Raw<4> { using T = uint32_t; };
template <> struct Raw<8> { using T = uint2; };
template <> struct Raw<16> { using T = uint4; };
template <typename St, int PER>
union Pack {
  typename Raw<sizeof(St) * PER>::T v;
  St s[PER];
};

__device__ __forceinline__ int rho(uint8_t a, uint8_t b) {
  return abs(static_cast<int>(a) - static_cast<int>(b));
}
__device__ __forceinline__ int rho(uint64_t a, uint64_t b) {
  return __popcll(a ^ b);
}

/* v[e] for a warp-uniform e, without a run-time register index. */
template <int PER, typename T>
__device__ __forceinline__ T pick(const T (&v)[PER], int e) {
  T r = v[0];
#pragma unroll
  for (int j = 1; j < PER; ++j)
    if (j == e) r = v[j];
  return r;
}

/* P2'(gradient) for this frame: the penalty of a jump (stereo.h). */
__device__ __forceinline__ void fill_p2_table(const SgmArgs& a, int* tab) {
  for (int g = threadIdx.x; g < 256; g += blockDim.x)
    tab[g] = a.p2_edge > 0
                 ? max(a.p1, a.p2 * a.p2_edge / (a.p2_edge + g))
                 : a.p2;
  __syncthreads();
}

/* One line's running state: L_r(q, .) of the lane's disparities, the path
 * minimum m over all of them and Ref(q). Before the first pixel L = 0 and
 * m = 0, which turns the recursion into L_r(p, d) = c(p, d) (every term of
 * the minimum is >= 0 and L(q, d) = 0 reaches it). */
template <int PER>
struct Path {
  int L[PER];
  int m;
  int luma_q;

  __device__ __forceinline__ void start(const SgmArgs& a, int lane, int x,
                                        int y) {
#pragma unroll
    for (int j = 0; j < PER; ++j) L[j] = lane * PER + j < a.n ? 0 : kBig;
    m = 0;
    luma_q = a.luma[static_cast<size_t>(y) * a.img_pitch + x];
  }

  /* L_r(p, .) for p = (x, y) from L_r(q, .). */
  __device__ __forceinline__ void step(const SgmArgs& a, const int* p2tab,
                                       int lane, int x, int y) {
    Pack<uint8_t, PER> c;
    c.v = *reinterpret_cast<const decltype(c.v)*>(
        a.cost + (static_cast<size_t>(y) * a.width + x) * (32 * PER) +
        lane * PER);
    const int luma_p = a.luma[static_cast<size_t>(y) * a.img_pitch + x];
    const int p2e = p2tab[abs(luma_p - luma_q)];
    luma_q = luma_p;
    int lm = __shfl_up_sync(kFull, L[PER - 1], 1);
    int lp = __shfl_down_sync(kFull, L[0], 1);
    if (lane == 0) lm = kBig;
    if (lane == 31) lp = kBig;
    const int mp2 = m + p2e;
    int nl[PER];
    unsigned lmin = kBig;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
      const int left = j > 0 ? L[j - 1] : lm;
      const int right = j < PER - 1 ? L[j + 1] : lp;
      int t = min(L[j], mp2);
      t = __viaddmin_s32(left, a.p1, t);
      t = __viaddmin_s32(right, a.p1, t);
      nl[j] = lane * PER + j < a.n ? c.s[j] + t - m : kBig;
      lmin = min(lmin, static_cast<unsigned>(nl[j]));
    }
#pragma unroll
    for (int j = 0; j < PER; ++j) L[j] = nl[j];
    m = static_cast<int>(warp_min(lmin));
  }
};

/* The cost volume c(x, y, k), [y][x][np] bytes, once for all paths: one
 * warp per kSeg pixels of a row, lane l computing k = l + 32 s, so that
 * both the other view's words (consecutive x - sign k) and the bytes
 * stored are contiguous across the warp. */
template <typename F, int PER>
__global__ void __launch_bounds__(32 * kWarps)
    sgm_cost_kernel(const SgmArgs a) {
  const int lane = threadIdx.x & 31;
  const int segs = (a.width + kSeg - 1) / kSeg;
  const int id = blockIdx.x * kWarps + threadIdx.x / 32;
  const int y = id / segs;
  if (y >= a.height) return;
  const int x0 = (id % segs) * kSeg;
  const int x1 = min(a.width, x0 + kSeg);
  const F* rrow =
      static_cast<const F*>(a.fref) + static_cast<size_t>(y) * a.fpitch;
  const F* orow =
      static_cast<const F*>(a.foth) + static_cast<size_t>(y) * a.fpitch;
  uint8_t* out = a.cost + static_cast<size_t>(y) * a.width * (32 * PER) + lane;
  for (int x = x0; x < x1; ++x) {
    const F av = rrow[x];
    const int base = x + a.sign * (a.dmin + lane);
#pragma unroll
    for (int s = 0; s < PER; ++s) {
      const int xo = stage_clampi(base + a.sign * 32 * s, 0, a.width - 1);
      out[static_cast<size_t>(x) * (32 * PER) + 32 * s] =
          static_cast<uint8_t>(rho(av, orow[xo]));
    }
  }
}

/* Every path r (blockIdx.y), each line storing L_r in volume r. */
template <int PER, typename St>
__global__ void __launch_bounds__(32 * kWarps)
    sgm_path_kernel(const SgmArgs a, size_t dir_elems) {
  __shared__ int p2tab[256];
  fill_p2_table(a, p2tab);
  int dx, dy;
  direction(blockIdx.y, &dx, &dy);
  const int lane = threadIdx.x & 31;
  const int line = blockIdx.x * kWarps + threadIdx.x / 32;
  int x, y;
  if (!line_start(dx, dy, a.width, a.height, line, &x, &y)) return;
  constexpr int kNp = 32 * PER;
  St* vol = static_cast<St*>(a.vol) + blockIdx.y * dir_elems + lane * PER;
  Path<PER> path;
  path.start(a, lane, x, y);
  for (; x >= 0 && x < a.width && y >= 0 && y < a.height; x += dx, y += dy) {
    path.step(a, p2tab, lane, x, y);
    Pack<St, PER> pk;
#pragma unroll
    for (int j = 0; j < PER; ++j) pk.s[j] = static_cast<St>(path.L[j]);
    *reinterpret_cast<decltype(pk.v)*>(
        vol + (static_cast<size_t>(y) * a.width + x) * kNp) = pk.v;
  }
}

/* S(k) for the lane's PER disparities: the NPATHS values at p (stride
 * dir_elems). Bytes are widened two to a word (u16x2: no carry, S < 2^16)
 * so that a word of four costs takes two byte permutes and two adds. */
template <int PER, typename St, int NPATHS>
__device__ __forceinline__ void sum_paths(const St* p, size_t dir_elems,
                                          int (&S)[PER]) {
  using VT = decltype(Pack<St, PER>::v);
  constexpr int kWords = sizeof(VT) / 4;
  if constexpr (kWords == 0) { /* two bytes */
#pragma unroll
    for (int j = 0; j < PER; ++j) S[j] = 0;
#pragma unroll
    for (int r = 0; r < NPATHS; ++r) {
      Pack<St, PER> v;
      v.v = *reinterpret_cast<const VT*>(p + r * dir_elems);
#pragma unroll
      for (int j = 0; j < PER; ++j) S[j] += v.s[j];
    }
  } else {
    union Words {
      VT v;
      uint32_t w[kWords];
    };
    constexpr int kAcc = sizeof(St) == 1 ? 2 * kWords : kWords;
    uint32_t acc[kAcc];
#pragma unroll
    for (int i = 0; i < kAcc; ++i) acc[i] = 0;
#pragma unroll
    for (int r = 0; r < NPATHS; ++r) {
      Words v;
      v.v = *reinterpret_cast<const VT*>(p + r * dir_elems);
#pragma unroll
      for (int i = 0; i < kWords; ++i) {
        if constexpr (sizeof(St) == 1) {
          acc[2 * i] += __byte_perm(v.w[i], 0, 0x5150);
          acc[2 * i + 1] += __byte_perm(v.w[i], 0, 0x5352);
        } else {
          acc[i] += v.w[i];
        }
      }
    }
#pragma unroll
    for (int i = 0; i < kAcc; ++i) {
      S[2 * i] = static_cast<int>(acc[i] & 0xFFFFu);
      S[2 * i + 1] = static_cast<int>(acc[i] >> 16);
    }
  }
}

/* S, winner-take-all, sub-pixel, uniqueness and D' for a segment of kSeg
 * pixels of one row per warp (many independent warps: the pass is bound
 * by reading the volumes). D' chains that cross the segment's ends are
 * combined by atomicMin in dkey (set to kNoKey first). */
template <int PER, typename St, int NPATHS>
__global__ void __launch_bounds__(32 * kWarps)
    sgm_wta_kernel(const SgmArgs a, size_t dir_elems) {
  const int lane = threadIdx.x & 31;
  const int w = a.width, n = a.n;
  const int segs = (w + kSeg - 1) / kSeg;
  const int id = blockIdx.x * kWarps + threadIdx.x / 32;
  const int y = id / segs;
  if (y >= a.height) return;
  const int x0 = (id % segs) * kSeg;
  const int x1 = min(w, x0 + kSeg);
  constexpr int kNp = 32 * PER;
  const St* row = static_cast<const St*>(a.vol) +
                  static_cast<size_t>(y) * w * kNp + lane * PER;
  uint32_t run[PER]; /* D' running minima, see the top */
#pragma unroll
  for (int j = 0; j < PER; ++j) run[j] = kNoKey;
  const int last_lane = (n - 1) / PER, last_e = (n - 1) % PER;
  uint32_t* pre = a.pre + static_cast<size_t>(y) * w;
  uint32_t* dkey = a.dkey + static_cast<size_t>(y) * w;

#pragma unroll 2
  for (int x = x0; x < x1; ++x) {
    int S[PER];
    sum_paths<PER, St, NPATHS>(row + static_cast<size_t>(x) * kNp, dir_elems,
                               S);
    uint32_t key[PER];
    uint32_t kmin = kNoKey;
#pragma unroll
    for (int j = 0; j < PER; ++j) {
      const int k = lane * PER + j;
      key[j] = k < n ? (static_cast<uint32_t>(S[j]) << 8) | k : kNoKey;
      kmin = min(kmin, key[j]);
    }
    const uint32_t best = warp_min(kmin);
    const int kb = static_cast<int>(best & 0xFFu);
    const int c0 = static_cast<int>(best >> 8);

    int frac = 0;
    if (a.subpixel && kb > 0 && kb < n - 1) {
      const int cm =
          __shfl_sync(kFull, pick<PER>(S, (kb - 1) % PER), (kb - 1) / PER);
      const int cp =
          __shfl_sync(kFull, pick<PER>(S, (kb + 1) % PER), (kb + 1) / PER);
      const int den = cm + cp - 2 * c0;
      if (den > 0)
        frac = stage_clampi(floor_div(16 * (cm - cp) + den, 2 * den), -8, 8);
    }
    uint32_t value =
        static_cast<uint32_t>(kDisparityScale * (a.dmin + kb) + frac);
    if (a.uniqueness > 0) {
      unsigned mu = kNoKey;
#pragma unroll
      for (int j = 0; j < PER; ++j) {
        const int k = lane * PER + j;
        if (k < n && abs(k - kb) > 1) mu = min(mu, static_cast<unsigned>(S[j]));
      }
      mu = warp_min(mu);
      if (mu != kNoKey && 100LL * mu <= (100LL + a.uniqueness) * c0)
        value = kInvalidDisparity;
    }
    if (lane == 0) pre[x] = value | (static_cast<uint32_t>(kb) << 16);

    if (a.lr) {
      if (a.sign < 0) { /* x' = x - d: from k - 1, complete at n - 1 */
        uint32_t in = __shfl_up_sync(kFull, run[PER - 1], 1);
        if (lane == 0) in = kNoKey;
#pragma unroll
        for (int j = PER - 1; j > 0; --j) run[j] = min(run[j - 1], key[j]);
        run[0] = min(in, key[0]);
        const int xp = x - a.dmin - (n - 1);
        if (lane == last_lane && xp >= 0)
          atomicMin(dkey + xp, pick<PER>(run, last_e));
      } else { /* x' = x + d: from k + 1, complete at 0 */
        uint32_t in = __shfl_down_sync(kFull, run[0], 1);
        if (lane == 31) in = kNoKey;
#pragma unroll
        for (int j = 0; j < PER - 1; ++j) run[j] = min(run[j + 1], key[j]);
        run[PER - 1] = min(in, key[PER - 1]);
        const int xp = x + a.dmin;
        if (lane == 0 && xp < w) atomicMin(dkey + xp, run[0]);
      }
    }
  }
  /* The chains still open at the segment's end. */
  if (a.lr) {
#pragma unroll
    for (int j = 0; j < PER; ++j) {
      const int k = lane * PER + j;
      const int xp = a.sign < 0 ? x1 - 1 - a.dmin - k : x1 - 1 + a.dmin + k;
      const bool open = a.sign < 0 ? k < n - 1 : (k > 0 && k < n);
      if (open && xp >= 0 && xp < w) atomicMin(dkey + xp, run[j]);
    }
  }
}

template <typename F, int PER, typename St>
cudaError_t launch_typed(const SgmArgs& a, cudaStream_t stream) {
  const size_t dir_elems = static_cast<size_t>(a.width) * a.height * 32 * PER;
  const int lines = a.paths == 8 ? a.width + a.height - 1
                                 : (a.width > a.height ? a.width : a.height);
  const int warps = a.height * ((a.width + kSeg - 1) / kSeg);
  const int ctas = (warps + kWarps - 1) / kWarps;
  SgmArgs ac = a;
  ac.cost = static_cast<uint8_t*>(a.vol) + a.paths * dir_elems * sizeof(St);
  sgm_cost_kernel<F, PER><<<ctas, 32 * kWarps, 0, stream>>>(ac);
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) return e;
  /* Path 0 (horizontal: the longest lines on wide frames) is scheduled
   * first (blockIdx.y = 0). */
  const dim3 grid((lines + kWarps - 1) / kWarps, a.paths);
  sgm_path_kernel<PER, St><<<grid, 32 * kWarps, 0, stream>>>(ac, dir_elems);
  if ((e = cudaGetLastError()) != cudaSuccess) return e;
  if (a.lr &&
      (e = cudaMemsetAsync(a.dkey, 0xFF,
                           static_cast<size_t>(a.width) * a.height *
                               sizeof(uint32_t),
                           stream)) != cudaSuccess)
    return e;
  if (a.paths == 8)
    sgm_wta_kernel<PER, St, 8><<<ctas, 32 * kWarps, 0, stream>>>(a, dir_elems);
  else
    sgm_wta_kernel<PER, St, 4><<<ctas, 32 * kWarps, 0, stream>>>(a, dir_elems);
  return cudaGetLastError();
}

template <typename F, typename St>
cudaError_t launch_per(const SgmPlan& p, const SgmArgs& a, cudaStream_t s) {
  switch (p.per) {
    case 2: return launch_typed<F, 2, St>(a, s);
    case 4: return launch_typed<F, 4, St>(a, s);
    case 8: return launch_typed<F, 8, St>(a, s);
    default: return cudaErrorInvalidValue;
  }
}

int max_pixel_cost(const StereoConfig& c) {
  switch (c.cost) {
    case StereoCost::kCensus: return c.census_width * c.census_height - 1;
    case StereoCost::kSobel: return 62;
    default: return 255;
  }
}

}  // namespace

SgmPlan plan_sgm(const StereoConfig& c, const StereoRuntime& rt) {
  SgmPlan p;
  p.per = c.num_disparities <= 64 ? 2 : (c.num_disparities <= 128 ? 4 : 8);
  p.np = 32 * p.per;
  const int p2max = rt.p2_edge > 0 ? (rt.p1 > rt.p2 ? rt.p1 : rt.p2) : rt.p2;
  p.wide = max_pixel_cost(c) + p2max > 255;
  return p;
}

size_t sgm_volume_bytes(const StereoConfig& c, const SgmPlan& p) {
  /* The paths' L_r, then the cost volume (bytes). */
  return static_cast<size_t>(c.paths * (p.wide ? 2 : 1) + 1) * c.width *
         c.height * p.np;
}

cudaError_t launch_stereo_sgm(const SgmPlan& p, StereoCost cost,
                              const SgmArgs& a, cudaStream_t s) {
  const bool census = cost == StereoCost::kCensus;
  if (census)
    return p.wide ? launch_per<uint64_t, uint16_t>(p, a, s)
                  : launch_per<uint64_t, uint8_t>(p, a, s);
  return p.wide ? launch_per<uint8_t, uint16_t>(p, a, s)
                : launch_per<uint8_t, uint8_t>(p, a, s);
}

}  // namespace cuda
}  // namespace match
