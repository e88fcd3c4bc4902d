/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * SGM's winner-take-all stage: one warp per segment of kSeg pixels of a
 * row: S as the sum of the path volumes (stereo_paths.cu; S itself is
 * never stored), the winner-take-all (a warp minimum of (S << 8) | k:
 * lowest S, then smallest k), the sub-pixel fit (S(k* -+ 1) by shuffles)
 * and the uniqueness test (a second minimum over |k - k*| > 1) into pre.
 * The other view's map D' comes from the same S: D'(x') is the minimum
 * key over the pixels x = x' - sign d. Walking x upwards, the
 * contributions to one x' arrive one disparity apart at consecutive
 * pixels (k ascending for the left reference, descending for the right),
 * so a running minimum per disparity, shifted by one disparity per pixel
 * (the shuffle pattern of L(q, k -+ 1)), is complete when it reaches the
 * last disparity; the chains cut by the segment's ends are merged by
 * atomicMin, a few per pixel. No second pass over S.
 * (A first version fused the last path into this pass, one warp per row:
 * it saved a volume's write and read but left 1 warp in 8 active, bound
 * by the latency of a 1920-step chain; the segments are 2.5x faster.)
 * stereo_finish.cu then applies the texture and left-right tests from pre
 * and dkey, exactly as for the block method.
 */
#include "stereo_sgm.cuh"

namespace match {
namespace cuda {
namespace {

using namespace sgm_detail;

constexpr uint32_t kNoKey = 0xFFFFFFFFu;

/* v[e] for a warp-uniform e, without a run-time register index. */
template <int PER, typename T>
__device__ __forceinline__ T pick(const T (&v)[PER], int e) {
  T r = v[0];
#pragma unroll
  for (int j = 1; j < PER; ++j)
    if (j == e) r = v[j];
  return r;
}

/* S(k) for the lane's PER disparities: the NPATHS values at p (stride
 * dir_elems). Bytes are widened two to a word (u16x2: no carry, S < 2^16)
 * so that a word of four costs takes two byte permutes and two adds. */
template <int PER, typename St, int NPATHS>
__device__ __forceinline__ void sum_paths(const St* p, size_t dir_elems, int (&S)[PER]) {
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
  const St* row =
      static_cast<const St*>(a.vol) + static_cast<size_t>(y) * w * kNp + lane * PER;
  uint32_t run[PER]; /* D' running minima, see the top */
#pragma unroll
  for (int j = 0; j < PER; ++j) run[j] = kNoKey;
  const int last_lane = (n - 1) / PER, last_e = (n - 1) % PER;
  uint32_t* pre = a.pre + static_cast<size_t>(y) * w;
  uint32_t* dkey = a.dkey + static_cast<size_t>(y) * w;

#pragma unroll 2
  for (int x = x0; x < x1; ++x) {
    int S[PER];
    sum_paths<PER, St, NPATHS>(row + static_cast<size_t>(x) * kNp, dir_elems, S);
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
      const int cm = __shfl_sync(kFull, pick<PER>(S, (kb - 1) % PER), (kb - 1) / PER);
      const int cp = __shfl_sync(kFull, pick<PER>(S, (kb + 1) % PER), (kb + 1) / PER);
      const int den = cm + cp - 2 * c0;
      if (den > 0)
        frac = stage_clampi(stage_floor_div(16 * (cm - cp) + den, 2 * den), -8, 8);
    }
    uint32_t value = static_cast<uint32_t>(kDisparityScale * (a.dmin + kb) + frac);
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
        if (lane == last_lane && xp >= 0) atomicMin(dkey + xp, pick<PER>(run, last_e));
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

template <int PER, typename St>
cudaError_t launch_wta_typed(const SgmArgs& a, cudaStream_t stream) {
  const size_t dir_elems = sgm_detail::dir_elems<PER>(a);
  const int warps = a.height * ((a.width + kSeg - 1) / kSeg);
  const int ctas = (warps + kWarps - 1) / kWarps;
  cudaError_t e;
  if (a.lr &&
      (e = cudaMemsetAsync(a.dkey, 0xFF,
                           static_cast<size_t>(a.width) * a.height * sizeof(uint32_t),
                           stream)) != cudaSuccess)
    return e;
  if (a.paths == 8)
    sgm_wta_kernel<PER, St, 8><<<ctas, 32 * kWarps, 0, stream>>>(a, dir_elems);
  else
    sgm_wta_kernel<PER, St, 4><<<ctas, 32 * kWarps, 0, stream>>>(a, dir_elems);
  return cudaGetLastError();
}

template <typename St>
cudaError_t launch_wta_per(const SgmPlan& p, const SgmArgs& a, cudaStream_t s) {
  switch (p.per) {
    case 2:
      return launch_wta_typed<2, St>(a, s);
    case 4:
      return launch_wta_typed<4, St>(a, s);
    case 8:
      return launch_wta_typed<8, St>(a, s);
    default:
      return cudaErrorInvalidValue;
  }
}

}  // namespace

cudaError_t launch_sgm_wta(const SgmPlan& p, const SgmArgs& a, cudaStream_t s) {
  return p.wide ? launch_wta_per<uint16_t>(p, a, s) : launch_wta_per<uint8_t>(p, a, s);
}

}  // namespace cuda
}  // namespace match
