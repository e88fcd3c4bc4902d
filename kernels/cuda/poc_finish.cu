/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * poc_finish() on the GPU: the reach limit, the candidate check, the
 * optional vector median and the flags (ref/poc_robust.cpp,
 * ref/poc_finish_block.h), run on the matcher's stream right after the POC
 * kernels, on the vectors and the layer-0 frames the POC already holds in
 * device memory. The per-block code is the host's, so the results are the
 * same bits (integer costs; see poc_finish_block.h).
 *
 * Launches: one per candidate check pass and one for the layer vote (a
 * pass reads every block's vector of the previous one, so passes are
 * grid-wide dependencies), one for the median: 2 or 3 small kernels per
 * frame, inside the matcher's CUDA graph.
 * Ping-pong between the POC's output and one more vector array; the
 * launcher says which holds the result. Nothing is allocated here.
 *
 * One CTA per block in the passes (CtaTeam, sized by the grid): its
 * threads share the block's pixels, keep a candidate's samples in shared
 * memory, and every cost is two team-wide integer sums (the candidate's
 * sum, then the zero-mean SAD); the decisions are taken on the reduced
 * sums, so every thread takes the same branch and the shuffles and
 * barriers always have the whole CTA. A block costs nothing but its 9
 * vectors' reads when no neighbour differs by more than 1 px (smooth
 * fields). The vote: a thread per block lists the blocks with two
 * candidates or more, and CTAs take them in turn (poc_vote_list_kernel),
 * each candidate's differences in shared memory, its counts team-wide
 * sums. The median reads no pixels: one thread per block.
 */
#include <cuda_runtime.h>

#include <algorithm>

#include "poc_finish.cuh"

namespace match {
namespace cuda {

namespace {

using poc_finish_detail::FinishParams;
using poc_finish_gpu::finish_sequence;
using poc_finish_gpu::FloatImage;

/* A CTA as the per-block code's team: its threads share the block's
 * pixels and, in shared memory, a scratch of each candidate's samples (one
 * read of the searched frame per cost instead of two); sums are exact
 * integers, reduced by the warps' shuffles and then across the warps. */
struct CtaTeam {
  int* scratch;              /* the block's pixels, or null (too large) */
  long long* partial;        /* one per warp */
  int* vote = nullptr;       /* the vote's differences, or null (too large) */
  double* medians = nullptr; /* 9 sums of the vote's median, or null */
  MATCH_HD int lane() const {
#if defined(__CUDA_ARCH__)
    return threadIdx.x;
#else
    return 0;
#endif
  }
  MATCH_HD int size() const {
#if defined(__CUDA_ARCH__)
    return blockDim.x;
#else
    return 1;
#endif
  }
  MATCH_HD int* samples() const { return scratch; }
  MATCH_HD int* vote_samples() const { return vote; }
  MATCH_HD double* median_sums() const { return medians; }
  MATCH_HD void sync() const {
#if defined(__CUDA_ARCH__)
    __syncthreads();
#endif
  }
  MATCH_HD long long sum(long long v) const {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    const int warps = blockDim.x >> 5;
    if (warps == 1) return v;
    if ((threadIdx.x & 31) == 0) partial[threadIdx.x >> 5] = v;
    __syncthreads();
    v = 0;
    for (int w = 0; w < warps; ++w) v += partial[w];
    __syncthreads(); /* partial[] is reused by the next sum */
#endif
    return v;
  }
};

/* The team of a block of spacing^2 pixels: about 4 pixels a thread (2
 * warps at the default 16 px grid, 8 at [E]'s 32 px), so that a cost's
 * loop is a few loads deep; the block's samples in shared memory up to a
 * 64 px grid (16 KiB). Per check pass at 1080p N = 64 / [E], on an H200
 * (2026-11-28, bench/README.md, Provenance): 8 pixels a
 * thread 32 / 27 us, 4 pixels 32 / 22, 2 and 1 pixels 39 and 69 us at
 * 1080p; a boundary block's candidates costed together (one pass over the
 * pixels for all nine, 128 registers) 65 / 30: most blocks of a real frame
 * have a far neighbour, so the costs the serial rule skips were extra
 * work. A warp per block whatever the grid took 43 / 96 us on the H100. */
constexpr int kMedianThreads = 128;
constexpr int kCheckMaxThreads = 256;
constexpr int kCheckMaxScratch = 64 * 64;
inline int check_threads(int spacing) {
  const int px = spacing * spacing;
  const int t = (px / 4 + 31) / 32 * 32;
  return t < 32 ? 32 : (t > kCheckMaxThreads ? kCheckMaxThreads : t);
}
inline int check_scratch(int spacing) {
  return spacing * spacing <= kCheckMaxScratch ? spacing * spacing : 0;
}
/* The vote's differences in shared memory where they fit in the 48 KiB a
 * kernel gets without opting in: up to a 32 px grid (41 KiB), or 24 px with
 * the frame before (twice the planes); beyond, each cost is summed from
 * the frames (the same integers). */
constexpr int kVoteMaxScratchBytes = 48 * 1024;
inline int vote_scratch(int spacing, bool before) {
  const int ints = poc_finish_detail::vote_scratch_ints(spacing, before);
  return ints * static_cast<int>(sizeof(int)) <= kVoteMaxScratchBytes ? ints : 0;
}

__global__ void __launch_bounds__(kCheckMaxThreads)
    poc_check_kernel(FloatImage I, FloatImage J, FinishParams p, int robust,
                     int scratch_ints, const PocVector* __restrict__ raw,
                     PocVector* out) {
  extern __shared__ int scratch[];
  __shared__ long long partial[kCheckMaxThreads / 32];
  const CtaTeam team{scratch_ints > 0 ? scratch : nullptr, partial};
  const PocVector v =
      poc_finish_detail::check_block(team, I, J, p, robust != 0, raw, blockIdx.x);
  if (threadIdx.x == 0) out[blockIdx.x] = v;
}

/* The vote in two launches: a thread a block finds its candidates, and a
 * block with fewer than two is final at once (most of a frame: one
 * motion around it); the others are listed (list[0] their count, then
 * their indices, in no particular order) for poc_vote_kernel's CTAs,
 * which take them in turn. A CTA a block over the whole grid cost more
 * than the votes themselves (1080p on an H200: 65 us for 8160 CTAs and a
 * few hundred votes, 38 us in two launches). */
__global__ void poc_vote_list_kernel(FinishParams p, const PocVector* __restrict__ raw,
                                     PocVector* out, int* list, int num_blocks) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b >= num_blocks) return;
  PocVector cand[poc_finish_detail::kVoteCandidates];
  if (poc_finish_detail::vote_candidates(p, raw, b, cand) < 2) {
    PocVector v = raw[b];
    poc_finish_detail::set_flags(&v, p.unreliable_below);
    out[b] = v;
  } else {
    list[1 + atomicAdd(list, 1)] = b;
  }
}

__global__ void __launch_bounds__(kCheckMaxThreads)
    poc_vote_kernel(FloatImage I, FloatImage J, FloatImage K, FinishParams p,
                    int scratch_ints, const PocVector* __restrict__ raw,
                    const int* __restrict__ list, PocVector* out) {
  extern __shared__ int scratch[];
  __shared__ long long partial[kCheckMaxThreads / 32];
  __shared__ double medians[9];
  const CtaTeam team{nullptr, partial, scratch_ints > 0 ? scratch : nullptr, medians};
  const int count = list[0];
  for (int i = blockIdx.x; i < count; i += gridDim.x) {
    const int b = list[1 + i];
    const PocVector v =
        poc_finish_detail::vote_block(team, I, J, K.px ? &K : nullptr, p, raw, b);
    if (threadIdx.x == 0) out[b] = v;
    __syncthreads(); /* the next block reuses the shared memory */
  }
}

__global__ void poc_median_kernel(FinishParams p, const PocVector* __restrict__ raw,
                                  PocVector* out, int num_blocks) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < num_blocks) out[b] = poc_finish_detail::median_block(p, raw, b);
}

/* poc_vote_kernel's CTAs: eight an SM, so that a frame's votes (a few
 * hundred at 1080p) take one turn and a random field's (every block)
 * several. */
int vote_ctas() {
  static const int ctas = [] {
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess ||
        cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) !=
            cudaSuccess)
      sms = 132;
    return 8 * sms;
  }();
  return ctas;
}

}  // namespace

cudaError_t launch_poc_finish_stage(LayerView I0, LayerView J0, LayerView K0,
                                    const PocConfig& c, double min_confidence,
                                    PocVector* a, PocVector* b, int* vote_list,
                                    PocVector** result, cudaStream_t stream) {
  const FinishParams p = poc_finish_detail::make_finish_params(c, min_confidence);
  const int nb = c.num_blocks();
  const bool before = K0.px && c.direction == Direction::kForward;
  const FloatImage I{I0.px, I0.w}, J{J0.px, J0.w}, K{before ? K0.px : nullptr, K0.w};
  cudaError_t err = cudaSuccess;
  *result = finish_sequence(c, a, b, [&](int kind, PocVector* src, PocVector* dst) {
    if (kind == poc_finish_gpu::kFinishCheck) {
      const int scratch = check_scratch(c.spacing);
      poc_check_kernel<<<nb, check_threads(c.spacing), scratch * sizeof(int), stream>>>(
          I, J, p, c.robust, scratch, src, dst);
    } else if (kind == poc_finish_gpu::kFinishVote) {
      err = cudaMemsetAsync(vote_list, 0, sizeof(int), stream);
      if (err != cudaSuccess) return false;
      poc_vote_list_kernel<<<(nb + kMedianThreads - 1) / kMedianThreads, kMedianThreads,
                             0, stream>>>(p, src, dst, vote_list, nb);
      const int scratch = vote_scratch(c.spacing, before);
      poc_vote_kernel<<<std::min(nb, vote_ctas()), check_threads(c.spacing),
                        scratch * sizeof(int), stream>>>(I, J, K, p, scratch, src,
                                                         vote_list, dst);
    } else {
      poc_median_kernel<<<(nb + kMedianThreads - 1) / kMedianThreads, kMedianThreads, 0,
                          stream>>>(p, src, dst, nb);
    }
    err = cudaGetLastError();
    return err == cudaSuccess;
  });
  return err;
}

}  // namespace cuda
}  // namespace match
