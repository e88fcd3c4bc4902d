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
 * Launches: one per candidate pass (a pass reads every block's vector of
 * the previous one, so passes are grid-wide dependencies), one for the
 * median: 2 or 3 small kernels per frame, inside the matcher's CUDA graph.
 * Ping-pong between the POC's output and one more vector array; the
 * launcher says which holds the result. Nothing is allocated here.
 *
 * One warp per block in the passes: the lanes share the block's pixels
 * (a 16 x 16 block is 8 pixels a lane) and every cost is two warp-wide
 * integer sums (the candidate's sum, then the zero-mean SAD); the decisions
 * are taken on the reduced sums, so every lane takes the same branch and
 * the shuffles always have the full warp. A block costs nothing but its
 * 9 vectors' reads when no neighbour differs by more than 1 px (smooth
 * fields). The median reads no pixels: one thread per block.
 */
#include <cuda_runtime.h>

#include "poc_kernels.cuh"
#include "ref/poc_finish_block.h"

namespace match {
namespace cuda {

namespace {

using poc_finish_detail::FinishParams;

/* Layer 0 as the per-block code reads it: exact grey levels in floats. */
struct FloatImage {
  const float* px;
  int w;
  MATCH_HD int operator()(int x, int y) const {
    return static_cast<int>(px[static_cast<size_t>(y) * w + x]);
  }
};

/* The warp as the per-block code's team. */
struct WarpTeam {
  MATCH_HD int lane() const {
#if defined(__CUDA_ARCH__)
    return threadIdx.x & 31;
#else
    return 0;
#endif
  }
  MATCH_HD int size() const { return 32; }
  MATCH_HD int* samples() const { return nullptr; }
  MATCH_HD long long sum(long long v) const {
#if defined(__CUDA_ARCH__)
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
#endif
    return v;
  }
};

constexpr int kCheckWarps = 4; /* warps (blocks) per CTA */
constexpr int kMedianThreads = 128;

__global__ void __launch_bounds__(kCheckWarps * 32)
    poc_check_kernel(FloatImage I, FloatImage J, FinishParams p, int robust,
                     const PocVector* __restrict__ raw, PocVector* out,
                     int num_blocks) {
  /* The whole warp has the same b, so it leaves or stays as one. */
  const int b = blockIdx.x * kCheckWarps + threadIdx.x / 32;
  if (b >= num_blocks) return;
  const PocVector v =
      poc_finish_detail::check_block(WarpTeam(), I, J, p, robust != 0, raw, b);
  if ((threadIdx.x & 31) == 0) out[b] = v;
}

__global__ void poc_median_kernel(FinishParams p,
                                  const PocVector* __restrict__ raw,
                                  PocVector* out, int num_blocks) {
  const int b = blockIdx.x * blockDim.x + threadIdx.x;
  if (b < num_blocks) out[b] = poc_finish_detail::median_block(p, raw, b);
}

/* The order of the stage, for the launcher and its host twin: `step(kind,
 * src, dst)` per launch, kind 0 = a candidate pass, 1 = the median. */
template <typename Step>
PocVector* finish_sequence(const PocConfig& c, PocVector* a, PocVector* b,
                           Step step) {
  PocVector* src = a;
  PocVector* dst = b;
  const int passes = c.robust ? kPocCandidatePasses : 1;
  for (int i = 0; i < passes + (c.median ? 1 : 0); ++i) {
    if (!step(i < passes ? 0 : 1, src, dst)) return nullptr;
    PocVector* t = src;
    src = dst;
    dst = t;
  }
  return src;
}

}  // namespace

cudaError_t launch_poc_finish_stage(LayerView I0, LayerView J0,
                                    const PocConfig& c, double min_confidence,
                                    PocVector* a, PocVector* b,
                                    PocVector** result, cudaStream_t stream) {
  const FinishParams p = poc_finish_detail::make_finish_params(c, min_confidence);
  const int nb = c.num_blocks();
  const FloatImage I{I0.px, I0.w}, J{J0.px, J0.w};
  cudaError_t err = cudaSuccess;
  *result = finish_sequence(c, a, b, [&](int kind, PocVector* src,
                                         PocVector* dst) {
    if (kind == 0)
      poc_check_kernel<<<(nb + kCheckWarps - 1) / kCheckWarps,
                         kCheckWarps * 32, 0, stream>>>(I, J, p, c.robust,
                                                        src, dst, nb);
    else
      poc_median_kernel<<<(nb + kMedianThreads - 1) / kMedianThreads,
                          kMedianThreads, 0, stream>>>(p, src, dst, nb);
    err = cudaGetLastError();
    return err == cudaSuccess;
  });
  return err;
}

PocVector* emulate_poc_finish_stage(LayerView I0, LayerView J0,
                                    const PocConfig& c, double min_confidence,
                                    PocVector* a, PocVector* b) {
  const FinishParams p = poc_finish_detail::make_finish_params(c, min_confidence);
  const int nb = c.num_blocks();
  const FloatImage I{I0.px, I0.w}, J{J0.px, J0.w};
  return finish_sequence(c, a, b, [&](int kind, PocVector* src,
                                      PocVector* dst) {
    /* Each warp's lanes would agree; one serial lane per block. */
    for (int i = 0; i < nb; ++i)
      dst[i] = kind == 0 ? poc_finish_detail::check_block(
                               poc_finish_detail::SerialTeam(), I, J, p,
                               c.robust, src, i)
                         : poc_finish_detail::median_block(p, src, i);
    return true;
  });
}

}  // namespace cuda
}  // namespace match
