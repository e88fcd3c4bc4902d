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
 * in shared memory, looked up for 32 steps at once). L is held two
 * disparities to a 32-bit word (u16x2), so that the minimum of the four
 * terms is two DPX min(a + b, c) and one SIMD min per two disparities.
 * The per-pixel costs come from a cost volume (bytes) computed once:
 * computing them on the fly in every path (two popcounts per census cost,
 * 16 per SM and clock) made the path kernel bound by popcounts and
 * instruction issue at ~4 ms for 1080p/128/8 paths, while reading 128 B
 * per warp step costs a fraction of that in DRAM bandwidth.
 *
 * Three kernels (four with a cost window of 5 or 7):
 *  - sgm_cost_kernel: c(x, y, k) into [y][x][np] bytes (the cost volume,
 *    or with a cost window path 0's volume, which sgm_box_kernel reads).
 *  - sgm_box_kernel (cost_window 5, 7): cb, the rounded mean of c over the
 *    window; c is written first into path 0's volume, unused until the
 *    path kernel, so the cost window needs no memory of its own.
 *  - sgm_cost_box3_kernel (cost_window 3, the default) instead of both:
 *    c computed and averaged in registers, cb written once.
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
 *    bound by the latency of a 1920-step chain; the segments are 2.5x
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

constexpr int kWarps = 4;      /* warps (lines, segments) per CTA */
constexpr int kSeg = 64;       /* pixels per warp of the WTA kernel */
constexpr unsigned kFull = 0xFFFFFFFFu;
constexpr uint32_t kNoKey = 0xFFFFFFFFu;

/* A __launch_bounds__ minimum of CTAs that the target can hold: sm_75
 * runs at most 1,024 threads per SM (the others 1,536 or 2,048), and
 * ptxas ignores a minimum beyond that with a warning. */
constexpr int fit_ctas(int ctas, int threads) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  return ctas * threads > 1024 ? 1024 / threads : ctas;
#else
  return (void)threads, ctas;
#endif
}

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

__host__ __device__ __forceinline__ int rho(uint8_t a, uint8_t b) {
  return abs(static_cast<int>(a) - static_cast<int>(b));
}
__host__ __device__ __forceinline__ int rho(uint64_t a, uint64_t b) {
#ifdef __CUDA_ARCH__
  return __popcll(a ^ b);
#else
  return __builtin_popcountll(a ^ b);
#endif
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

/* A lane's values of the other view for its PER disparities k0 + j along
 * a row (sgm_cost_kernel, box3_tile). Slot j holds the other view at
 * x + sign (k0 + j), the sign being kLeft's, read clamped to the row, so
 * pixel x + 1's slots are pixel x's shifted by one disparity and one new
 * value (slot jn's) is loaded per pixel; the callers' unrolled loops make
 * the shift a renaming. */
template <typename F, int PER, bool kLeft>
struct CostSlots {
  static constexpr int sign = kLeft ? -1 : 1, jn = kLeft ? 0 : PER - 1;
  F o[PER];
  int lo[PER]; /* kCensusAd: the other view's luma of the slot */

  __host__ __device__ __forceinline__ static int column(const SgmArgs& a,
                                                        int k0, int x, int j) {
    return stage_clampi(x + sign * (k0 + j), 0, a.width - 1);
  }

  /* The slots of pixel x (the row's: orow, its luma loth). */
  __host__ __device__ __forceinline__ void start(const SgmArgs& a,
                                                 const F* orow,
                                                 const uint8_t* loth, int k0,
                                                 int x) {
MATCH_UNROLL
    for (int j = 0; j < PER; ++j) {
      const int xo = column(a, k0, x, j);
      o[j] = orow[xo];
      lo[j] = a.ad ? loth[xo] : 0;
    }
  }

  /* Slides to pixel x and returns its costs c(x, k0 + j) in c.s[j], the
   * reference view's value and luma (a.ad uniform) read at column xr. */
  __host__ __device__ __forceinline__ void next(
      const SgmArgs& a, const F* rrow, const F* orow, const uint8_t* lref,
      const uint8_t* loth, int k0, int x, int xr, Pack<uint8_t, PER>& c) {
MATCH_UNROLL
    for (int j = 0; j < PER - 1; ++j) {
      const int d = kLeft ? PER - 1 - j : j; /* the slot written */
      o[d] = o[d + sign];
      lo[d] = lo[d + sign];
    }
    const int xo = column(a, k0, x, jn);
    o[jn] = orow[xo];
    const F av = rrow[xr];
    if (a.ad) {
      lo[jn] = loth[xo];
      const int lr = lref[xr];
MATCH_UNROLL
      for (int j = 0; j < PER; ++j)
        c.s[j] = static_cast<uint8_t>(
            rho(av, o[j]) + (min(abs(lr - lo[j]), kCensusAdCap) >> 1));
    } else {
MATCH_UNROLL
      for (int j = 0; j < PER; ++j)
        c.s[j] = static_cast<uint8_t>(rho(av, o[j]));
    }
  }
};

/* P2'(gradient) for this frame: the penalty of a jump (stereo.h). */
__device__ __forceinline__ void fill_p2_table(const SgmArgs& a, int* tab) {
  for (int g = threadIdx.x; g < 256; g += blockDim.x)
    tab[g] = a.p2_edge > 0
                 ? max(a.p1, a.p2 * a.p2_edge / (a.p2_edge + g))
                 : a.p2;
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
  __device__ __forceinline__ void step(const SgmArgs& a, int lane,
                                       Costs craw, int p2) {
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

/* The cost volume c(x, y, k), [y][x][np] bytes, once for all paths: one
 * warp per kSeg pixels of a row walking x up, lane l computing its PER
 * consecutive disparities k = PER l + j (one PER-byte store per pixel, the
 * warp's coalesced, in the layout the path kernel reads). The other view's
 * column of (x, k) is x + sign (dmin + k), so pixel x + 1's columns are
 * pixel x's shifted by one disparity: the lane keeps its PER values of the
 * other view in registers and loads one new one per pixel (left
 * reference: k = PER l; right: k = PER l + PER - 1), reads clamped to the
 * row as before, so every slot holds the value of the same clamped
 * column. The pixel loop is unrolled by PER and the reference is a
 * template parameter, so that the slots' rotation is a renaming, not
 * moves. On the H100 at 1080p/128: 0.180 ms, 83 M warp instructions
 * (lanes owning k = l + 32 s, PER loads and PER byte stores per pixel:
 * 0.255 ms, 158 M; sliding without the unrolling: 0.233 ms, 159 M). */
template <typename F, int PER, bool kLeft>
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
  constexpr int kNp = 32 * PER;
  using Costs = decltype(Pack<uint8_t, PER>::v);
  Costs* out = reinterpret_cast<Costs*>(
                   a.cost + (static_cast<size_t>(y) * a.width + x0) * kNp) +
               lane;
  /* kCensusAd: the lumas of the same pixels (a.ad is uniform). */
  const uint8_t* lref = a.luma + static_cast<size_t>(y) * a.img_pitch;
  const uint8_t* loth = a.luma_oth + static_cast<size_t>(y) * a.img_pitch;
  const int k0 = a.dmin + PER * lane;
  CostSlots<F, PER, kLeft> slots;
  slots.start(a, orow, loth, k0, x0 - 1);
  /* Unrolled by PER so that the slots' rotation is a renaming. */
#pragma unroll PER
  for (int x = x0; x < x1; ++x, out += kNp / PER) {
    Pack<uint8_t, PER> c;
    slots.next(a, rrow, orow, lref, loth, k0, x, x, c);
    *out = c.v;
  }
}

/* Four byte sums of a window of kArea costs, even bytes' in e and odd
 * bytes' in o (u16x2: kArea x 255 < 2^16), as one word of their rounded
 * means, (sum + kArea / 2) / kArea as in the reference, in the bytes'
 * order (sgm_box_kernel, box3_tile). */
template <int kArea>
__host__ __device__ __forceinline__ uint32_t rounded_means(uint32_t e,
                                                           uint32_t o) {
  constexpr uint32_t kHalf = kArea / 2;
  const uint32_t b0 = ((e & 0xFFFFu) + kHalf) / kArea;
  const uint32_t b2 = ((e >> 16) + kHalf) / kArea;
  const uint32_t b1 = ((o & 0xFFFFu) + kHalf) / kArea;
  const uint32_t b3 = ((o >> 16) + kHalf) / kArea;
  return b0 | b1 << 8 | b2 << 16 | b3 << 24;
}

/* cb = the rounded mean of c over the B x B square read clamped
 * (match/stereo.h), from c in path 0's volume to the cost volume. A
 * thread owns one 32-bit word (4 disparities) of one pixel x and walks
 * kBoxRows rows down: each input row's horizontal sum (B words, the
 * neighbouring pixels' same word: a warp reads B coalesced lines,
 * L1-shared by the CTA's neighbouring pixels) enters a ring of B row sums
 * in registers, and the window's sum is kept running (add the entering
 * row, subtract the leaving one), so every input word is read B times
 * instead of B B and DRAM sees c about once. The bytes are summed two to a
 * word (u16x2: even and odd bytes apart, at most 7 x 7 x 255 < 2^16, no
 * carry). kWords (words per pixel, a power of two) and B are compile-time:
 * shifts, static ring indices. (A thread per output word summing its B B
 * words took 0.78 ms of 3.8 per 1080p/128 pair on the H100.) */
constexpr int kBoxRows = 32;

template <int kWords, int B>
__global__ void __launch_bounds__(256) sgm_box_kernel(const SgmArgs a) {
  constexpr int R = (B - 1) / 2, kArea = B * B;
  const int t = blockIdx.x * 256 + threadIdx.x;
  if (t >= a.width * kWords) return;
  const int x = t / kWords, wd = t % kWords;
  const int y0 = blockIdx.y * kBoxRows, y1 = min(a.height, y0 + kBoxRows);
  const uint32_t* in = static_cast<const uint32_t*>(a.vol); /* c */
  uint32_t* out = reinterpret_cast<uint32_t*>(a.cost);
  const size_t row_words = static_cast<size_t>(a.width) * kWords;
  int col[B]; /* the B columns' word offsets, clamped */
#pragma unroll
  for (int i = 0; i < B; ++i)
    col[i] = stage_clampi(x + i - R, 0, a.width - 1) * kWords + wd;
  /* Horizontal sum of row yy: even bytes in *e, odd bytes in *o. */
  auto hsum = [&](int yy, uint32_t* e, uint32_t* o) {
    const uint32_t* row = in + stage_clampi(yy, 0, a.height - 1) * row_words;
    uint32_t se = 0, so = 0;
#pragma unroll
    for (int i = 0; i < B; ++i) {
      const uint32_t v = __ldg(row + col[i]);
      se += v & 0x00FF00FFu;
      so += (v >> 8) & 0x00FF00FFu;
    }
    *e = se;
    *o = so;
  };
  uint32_t re[B], ro[B]; /* ring: the row sums of the window's rows */
  uint32_t we = 0, wo = 0; /* their total */
#pragma unroll
  for (int j = 0; j < B - 1; ++j) {
    hsum(y0 - R + j, &re[j], &ro[j]);
    we += re[j];
    wo += ro[j];
  }
  re[B - 1] = ro[B - 1] = 0;
  for (int y = y0; y < y1; y += B) {
#pragma unroll
    for (int s = 0; s < B; ++s) {
      if (y + s >= y1) break;
      /* Row y + s + R enters slot (s + B - 1) % B; row y + s - R, in
       * slot s, leaves after this output. */
      const int in_slot = (s + B - 1) % B;
      hsum(y + s + R, &re[in_slot], &ro[in_slot]);
      we += re[in_slot];
      wo += ro[in_slot];
      out[(y + s) * row_words + t] = rounded_means<kArea>(we, wo);
      we -= re[s];
      wo -= ro[s];
    }
  }
}

/* The default cost window (B = 3) in one pass with the costs: cb straight
 * into the cost volume, c never stored (the two kernels above write c,
 * read it back and write cb: 3 volumes of traffic instead of 1). A warp
 * owns a tile of kX pixels x kBox3Band rows; lane l the PER consecutive
 * disparities k = PER l + j, as in sgm_cost_kernel and the volume. The
 * warp walks the tile's rows (and one above and below, read clamped),
 * computing c for its kX + 2 columns with sgm_cost_kernel's sliding slots
 * (one load of the other view per pixel), and keeps the last three rows'
 * c in registers (shifted by one row per row: 2 (kX + 2) moves against
 * the row's few hundred instructions); each row's output is then the
 * 3 x 3 sum, even and odd bytes summed apart in u16x2 words (9 x 255 <
 * 2^16), and its rounded means (rounded_means). c is computed
 * (kX + 2) / kX x (kBox3Band + 2) / kBox3Band = 1.33 times per output. Lanes
 * are independent (no shuffles), so the host emulation runs the same
 * code lane by lane. With 16-pixel tiles or without the cap of 128
 * registers ptxas spilled; larger windows (B x (kX + B - 1) ring words)
 * keep the two kernels. */
constexpr int kBox3Band = 32;
constexpr int kBox3Ctas = 4; /* per SM: at most 128 registers */

template <int PER>
struct Box3Tile {
  static constexpr int kX = 8; /* output pixels per warp */
  static constexpr int kCols = kX + 2;
  static constexpr int kWd = PER == 8 ? 2 : 1; /* c words per column */
};

/* The warp of tile (x0, y0), lane `lane`. */
template <typename F, int PER, bool kLeft>
__host__ __device__ __forceinline__ void box3_tile(const SgmArgs& a, int x0,
                                                   int y0, int lane) {
  using T = Box3Tile<PER>;
  constexpr int kCols = T::kCols, kWd = T::kWd, kNp = 32 * PER;
  constexpr uint32_t kLow = 0x00FF00FFu;
  const int w = a.width, h = a.height;
  const int k0 = a.dmin + PER * lane;
  const int y1 = min(h, y0 + kBox3Band);
  using Costs = decltype(Pack<uint8_t, PER>::v);
  /* c of row yy (read clamped) at the columns xs - 1 + i into cw[i]; the
   * columns outside the image take their nearest inside one's words. */
  auto costs = [&](int yy, int xs, uint32_t (&cw)[kCols][kWd]) {
    yy = stage_clampi(yy, 0, h - 1);
    const F* rrow = static_cast<const F*>(a.fref) + static_cast<size_t>(yy) * a.fpitch;
    const F* orow = static_cast<const F*>(a.foth) + static_cast<size_t>(yy) * a.fpitch;
    const uint8_t* lref = a.luma + static_cast<size_t>(yy) * a.img_pitch;
    const uint8_t* loth = a.luma_oth + static_cast<size_t>(yy) * a.img_pitch;
    CostSlots<F, PER, kLeft> slots;
    slots.start(a, orow, loth, k0, xs - 2);
MATCH_UNROLL
    for (int i = 0; i < kCols; ++i) {
      const int x = xs - 1 + i;
      Pack<uint8_t, PER> c;
      slots.next(a, rrow, orow, lref, loth, k0, x, stage_clampi(x, 0, w - 1),
                 c);
      if constexpr (PER == 8) {
        cw[i][0] = c.v.x;
        cw[i][1] = c.v.y;
      } else {
        cw[i][0] = c.v; /* PER 2: the high half 0 */
      }
    }
    if (xs == 0) {
MATCH_UNROLL
      for (int q = 0; q < kWd; ++q) cw[0][q] = cw[1][q];
    }
MATCH_UNROLL
    for (int i = 1; i < kCols; ++i)
      if (xs - 1 + i >= w) {
MATCH_UNROLL
        for (int q = 0; q < kWd; ++q) cw[i][q] = cw[i - 1][q];
      }
  };
  /* cb of row y from the ring's three rows: column i's vertical sums
   * enter a window of three columns. */
  auto emit = [&](int y, const uint32_t (&r0)[kCols][kWd],
                  const uint32_t (&r1)[kCols][kWd],
                  const uint32_t (&r2)[kCols][kWd]) {
    Costs* out = reinterpret_cast<Costs*>(
        a.cost + (static_cast<size_t>(y) * w + x0) * kNp + lane * PER);
    uint32_t ve[3][kWd], vo[3][kWd]; /* columns i - 2, i - 1, i (mod 3) */
MATCH_UNROLL
    for (int i = 0; i < kCols; ++i) {
MATCH_UNROLL
      for (int q = 0; q < kWd; ++q) {
        ve[i % 3][q] = (r0[i][q] & kLow) + (r1[i][q] & kLow) + (r2[i][q] & kLow);
        vo[i % 3][q] = ((r0[i][q] >> 8) & kLow) + ((r1[i][q] >> 8) & kLow) +
                       ((r2[i][q] >> 8) & kLow);
      }
      const int t = i - 2; /* the output pixel whose window is complete */
      if (t < 0) continue;
      if (x0 + t >= w) break;
      uint32_t cb[kWd];
MATCH_UNROLL
      for (int q = 0; q < kWd; ++q) {
        cb[q] = rounded_means<9>(ve[0][q] + ve[1][q] + ve[2][q],
                                 vo[0][q] + vo[1][q] + vo[2][q]);
      }
      Costs v;
      if constexpr (PER == 8)
        v = make_uint2(cb[0], cb[1]);
      else
        v = static_cast<Costs>(cb[0]);
      out[t * (kNp / PER)] = v;
    }
  };
  uint32_t ring[3][kCols][kWd]; /* rows y - 1, y, y + 1 */
  costs(y0 - 1, x0, ring[1]);
  costs(y0, x0, ring[2]);
#ifdef __CUDA_ARCH__
#pragma unroll 1
#endif
  for (int y = y0; y < y1; ++y) {
MATCH_UNROLL
    for (int i = 0; i < kCols; ++i)
MATCH_UNROLL
      for (int q = 0; q < kWd; ++q) {
        ring[0][i][q] = ring[1][i][q];
        ring[1][i][q] = ring[2][i][q];
      }
    /* x0 through an empty asm: the columns' indices are recomputed per
     * row (a few integer ops) instead of hoisted out of the loop, which
     * held them in ~40 registers and made the kernel spill. */
    int xs = x0;
#ifdef __CUDA_ARCH__
    asm volatile("" : "+r"(xs));
#endif
    costs(y + 1, xs, ring[2]);
    emit(y, ring[0], ring[1], ring[2]);
  }
}

template <typename F, int PER, bool kLeft>
__global__ void __launch_bounds__(32 * kWarps, fit_ctas(kBox3Ctas, 32 * kWarps))
    sgm_cost_box3_kernel(const SgmArgs a) {
  constexpr int kX = Box3Tile<PER>::kX;
  const int tiles_x = (a.width + kX - 1) / kX;
  const int id = blockIdx.x * kWarps + threadIdx.x / 32;
  const int ty = id / tiles_x;
  if (ty * kBox3Band >= a.height) return;
  box3_tile<F, PER, kLeft>(a, (id % tiles_x) * kX, ty * kBox3Band,
                           threadIdx.x & 31);
}

template <typename F, int PER>
cudaError_t launch_cost_box3(const SgmArgs& a, cudaStream_t stream) {
  constexpr int kX = Box3Tile<PER>::kX;
  const int warps = ((a.width + kX - 1) / kX) *
                    ((a.height + kBox3Band - 1) / kBox3Band);
  const int ctas = (warps + kWarps - 1) / kWarps;
  if (a.sign < 0)
    sgm_cost_box3_kernel<F, PER, true><<<ctas, 32 * kWarps, 0, stream>>>(a);
  else
    sgm_cost_box3_kernel<F, PER, false><<<ctas, 32 * kWarps, 0, stream>>>(a);
  return cudaGetLastError();
}

template <int kWords>
cudaError_t launch_box(const SgmArgs& a, cudaStream_t stream) {
  const dim3 grid((a.width * kWords + 255) / 256, (a.height + kBoxRows - 1) / kBoxRows);
  switch (a.cost_window) {
    case 3: sgm_box_kernel<kWords, 3><<<grid, 256, 0, stream>>>(a); break;
    case 5: sgm_box_kernel<kWords, 5><<<grid, 256, 0, stream>>>(a); break;
    case 7: sgm_box_kernel<kWords, 7><<<grid, 256, 0, stream>>>(a); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

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

template <int PER, typename St, bool kAll, bool kEdge, int kPathWarps,
          int kMinBlocks>
__global__ void __launch_bounds__(32 * kPathWarps,
                                  fit_ctas(kMinBlocks, 32 * kPathWarps))
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
  auto p2_of = [&](int i) {
    return kEdge ? __shfl_sync(kFull, p2v, i & 31) : a.p2;
  };
  /* The next step's costs are loaded one step ahead and the line's costs
   * kPrefetch steps ahead are prefetched into L2, without registers. */
  auto load = [&](const uint8_t* p) {
    return __ldg(reinterpret_cast<const Costs*>(p));
  };
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
      v.v = __ldcs(reinterpret_cast<const VT*>(p + r * dir_elems));
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
      v.v = __ldcs(reinterpret_cast<const VT*>(p + r * dir_elems));
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
__global__ void __launch_bounds__(32 * kWarps, fit_ctas(12, 32 * kWarps))
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
  /* cost_window 5, 7: c goes to path 0's volume first (at least W H np
   * bytes), free until the path kernel, which runs after the mean. */
  cudaError_t e;
  if (a.cost_window == 3) {
    if ((e = launch_cost_box3<F, PER>(ac, stream)) != cudaSuccess) return e;
  } else {
    SgmArgs acost = ac;
    if (a.cost_window > 1) acost.cost = static_cast<uint8_t*>(a.vol);
    if (a.sign < 0)
      sgm_cost_kernel<F, PER, true><<<ctas, 32 * kWarps, 0, stream>>>(acost);
    else
      sgm_cost_kernel<F, PER, false><<<ctas, 32 * kWarps, 0, stream>>>(acost);
    if ((e = cudaGetLastError()) != cudaSuccess) return e;
    if (a.cost_window > 1 &&
        (e = launch_box<8 * PER>(ac, stream)) != cudaSuccess)
      return e;
  }
  /* Path 0 (horizontal: the longest lines on wide frames) is scheduled
   * first (blockIdx.y = 0). */
  /* Every disparity real (n = 32 PER, e.g. 128): the step skips the
   * masking of padded ones (3 ops per word and step). */
  const dim3 pgrid((lines + kWarps - 1) / kWarps, a.paths);
  const int variant = (a.n == 32 * PER ? 1 : 0) | (a.p2_edge > 0 ? 2 : 0);
  switch (variant) {
    case 0:
      sgm_path_kernel<PER, St, false, false, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(ac, dir_elems);
      break;
    case 1:
      sgm_path_kernel<PER, St, true, false, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(ac, dir_elems);
      break;
    case 2:
      sgm_path_kernel<PER, St, false, true, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(ac, dir_elems);
      break;
    default:
      sgm_path_kernel<PER, St, true, true, kWarps, 12>
          <<<pgrid, 32 * kWarps, 0, stream>>>(ac, dir_elems);
      break;
  }
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
    case StereoCost::kCensusAd:
      return c.census_width * c.census_height - 1 + (kCensusAdCap >> 1);
    case StereoCost::kSobel: return 62;
    default: return 255;
  }
}

template <typename F, int PER>
void emulate_box3(const SgmArgs& a) {
  constexpr int kX = Box3Tile<PER>::kX;
  for (int y0 = 0; y0 < a.height; y0 += kBox3Band)
    for (int x0 = 0; x0 < a.width; x0 += kX)
      for (int lane = 0; lane < 32; ++lane) {
        if (a.sign < 0)
          box3_tile<F, PER, true>(a, x0, y0, lane);
        else
          box3_tile<F, PER, false>(a, x0, y0, lane);
      }
}

template <typename F>
void emulate_box3_per(int per, const SgmArgs& a) {
  switch (per) {
    case 2: emulate_box3<F, 2>(a); break;
    case 4: emulate_box3<F, 4>(a); break;
    default: emulate_box3<F, 8>(a); break;
  }
}

}  // namespace

void emulate_sgm_cost_box3(const SgmPlan& p, StereoCost cost,
                           const SgmArgs& a) {
  if (stereo_cost_uses_census(cost))
    emulate_box3_per<uint64_t>(p.per, a);
  else
    emulate_box3_per<uint8_t>(p.per, a);
}

SgmPlan plan_sgm(const StereoConfig& c, const StereoRuntime& rt) {
  SgmPlan p;
  p.per = c.num_disparities <= 64 ? 2 : (c.num_disparities <= 128 ? 4 : 8);
  p.np = 32 * p.per;
  const int p2max = rt.p2_edge > 0 ? (rt.p1 > rt.p2 ? rt.p1 : rt.p2) : rt.p2;
  p.wide = max_pixel_cost(c) + p2max > 255;
  return p;
}

size_t sgm_volume_bytes(const StereoConfig& c, const SgmPlan& p) {
  /* The paths' L_r, then the cost volume (bytes; with a cost window, the
   * per-pixel costs it averages are held in path 0's volume before the
   * paths run). */
  return static_cast<size_t>(c.paths * (p.wide ? 2 : 1) + 1) * c.width *
         c.height * p.np;
}

cudaError_t launch_stereo_sgm(const SgmPlan& p, StereoCost cost,
                              const SgmArgs& a, cudaStream_t s) {
  if (stereo_cost_uses_census(cost))
    return p.wide ? launch_per<uint64_t, uint16_t>(p, a, s)
                  : launch_per<uint64_t, uint8_t>(p, a, s);
  return p.wide ? launch_per<uint8_t, uint16_t>(p, a, s)
                : launch_per<uint8_t, uint8_t>(p, a, s);
}

}  // namespace cuda
}  // namespace match
