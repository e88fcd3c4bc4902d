/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CUDA POC stages (poc_kernels.cu), launched by poc_cuda.cu around the
 * batched cuFFT transforms. Every launcher returns the launch's
 * cudaGetLastError(). The test-only host emulation (kernels/testing,
 * poc_kernels_emulation.h) runs the same per-thread code on the host, CTA
 * by CTA, on host buffers (cuda::emulate_poc_match, for the GPU-free
 * tests).
 */
#pragma once

#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "match/poc.h"

namespace match {
namespace cuda {

/* What every stage needs to know about the block grid (poc.h geometry). */
struct PocGeometry {
  int width = 0, height = 0; /* of layer grid_layer */
  int cols = 0;              /* blocks per row */
  int spacing = 0;
  int n = 0; /* window size */
  int k = 1; /* low-pass box half-width (ref::poc_detail::lowpass_k) */
  /* The layer the grid tiles: 0 for the blocks (their points at layer l
   * are p_0 >> l), l for a shared coarse layer's own grid (PocCoarse). */
  int grid_layer = 0;
};

/* One layer of a prepared frame: w x h floats, rows contiguous; and,
 * where the path needs it (tiled), the layer's summed-area table: sat[y
 * (w + 1) + x] = the sum of the scaled values round(v 4^l) (exact integers,
 * see poc_gather_kernel) over [0, x) x [0, y), modulo 2^32 (any window's
 * sum is below 2^32, so differences of entries give it exactly). */
struct LayerView {
  const float* px = nullptr;
  int w = 0, h = 0;
  const uint32_t* sat = nullptr;
};

/* The integer peak of one POC surface and the 3x3 samples around it
 * (already scaled to the reference's r, i.e. divided by n^2). */
struct PeakRecord {
  float s[9];
  int n1, n2;
};

enum class PeakMode {
  kCoarse = 0,   /* layer > 0: centre = 2 (centre - n*) */
  kFirst0 = 1,   /* layer 0, first POC: n* = 0 -> final; else re-centre */
  kRecentre = 2, /* layer 0, after re-centring: final for the others */
};

/* u8 frame (pitch raw_pitch) -> float layer 0. */
cudaError_t launch_poc_prepare(const uint8_t* raw, int raw_pitch, int w, int h,
                               float* layer0, cudaStream_t stream);

/* dst(x, y) = mean of src's 2x2 pixels at (2x, 2y) (poc_ref.cpp "Layers"). */
cudaError_t launch_poc_reduce(LayerView src, float* dst, int dw, int dh,
                              cudaStream_t stream);

/* L's summed-area table (LayerView::sat; L.sat is ignored) at layer l
 * into sat, (L.w + 1) x (L.h + 1) words: a warp per row's prefix sums,
 * then each column's over 32 row segments. */
cudaError_t launch_poc_integrate(LayerView L, int layer, uint32_t* sat,
                                 cudaStream_t stream);

/* Windows of blocks b0 .. b0 + count - 1 at layer l: f (from I, centred on
 * the block point p_l) into out_f[i n^2] when out_f is not null, and g (from
 * J, centred on p_l when g_at_point, else on centre[b]) into out_g when
 * out_g is not null. With skip_done, g is not gathered for blocks whose
 * done[b] is set. Each window
 * has its mean removed, then the separable window w1d applied. */
cudaError_t launch_poc_gather(LayerView I, LayerView J, const PocGeometry& g, int layer,
                              int b0, int count, bool g_at_point, const int2* centre,
                              const uint8_t* done, bool skip_done, const float* w1d,
                              float* out_f, float* out_g, cudaStream_t stream);

/* On the R2C half spectra (n x (n/2 + 1) per window): R[i] <- F[i] conj(G[i])
 * / |F[i] conj(G[i])| inside the low-pass box, 0 outside. R may be G. */
cudaError_t launch_poc_cross(const float2* F, const float2* G, float2* R, int count,
                             const PocGeometry& g, cudaStream_t stream);

/* Integer peak of each surface (n^2 r, from the C2R transform) with the
 * reference's tie rule, and the per-mode centre update; records the 3x3
 * samples of final surfaces. */
cudaError_t launch_poc_peak(const float* surf, int b0, int count, const PocGeometry& g,
                            int layer, PeakMode mode, bool from_point, int2* centre,
                            uint8_t* done, PeakRecord* rec, cudaStream_t stream);

/* Shared coarse layers (ref/poc_ref.cpp "Coarse layers"): the search
 * centres of the `count` blocks of grid `fine` from the results of grid
 * `coarse` one layer up, whose centre[] holds 2 q (kCoarse's update):
 * out[b] = p + 2 m with m = q - P of the parent of p, or (median) the
 * per-component median of the 3 x 3 blocks around it. */
cudaError_t launch_poc_predict(const PocGeometry& coarse, const int2* coarse_centre,
                               const PocGeometry& fine, int count, bool median, int2* out,
                               cudaStream_t stream);

/* The sub-pixel fit (ref/poc_fit.h) and the output vectors of all blocks. */
cudaError_t launch_poc_finish(const PeakRecord* rec, const int2* centre, int num_blocks,
                              const PocGeometry& g, double alpha_unit,
                              float min_confidence, PocVector* out, cudaStream_t stream);

/* poc_finish() on the GPU (poc_finish.cu): the candidate passes, the
 * optional median and the flags of config (ref/poc_finish_block.h) on the
 * POC vectors in `a`, over the layer-0 frames I0 (the blocks' frame) and J0
 * (the searched one), and K0 (the frame before I0 for a forward field's
 * vote, or px null), ping-ponging between a and b; *result is the one
 * holding the final vectors (a or b, by the configuration only). The same
 * bits as poc_finish() on the host for the same vectors and frames.
 * `vote_list`: room for num_blocks + 1 ints (the vote's work list). */
cudaError_t launch_poc_finish_stage(LayerView I0, LayerView J0, LayerView K0,
                                    const PocConfig& config, double min_confidence,
                                    PocVector* a, PocVector* b, int* vote_list,
                                    PocVector** result, cudaStream_t stream);
/* The fused path (poc_fused.cu): one CTA per block runs a whole POC pass
 * in shared memory (load both windows, window them, 2-D FFT, cross
 * spectrum, inverse FFT, peak with the centre update and record of
 * launch_poc_peak in `mode`) for window sizes 32 and 64. g is centred
 * on p_l when from_point, else on centre[b]; blocks with done[b] set are
 * skipped in kRecentre mode. tw: poc_fused_twiddles(n) in device memory. */
bool poc_fused_supported(int n);
std::vector<float2> poc_fused_twiddles(int n);
cudaError_t launch_poc_fused(LayerView I, LayerView J, const PocGeometry& g, int layer,
                             PeakMode mode, bool from_point, int num_blocks, int2* centre,
                             uint8_t* done, PeakRecord* rec, const float* w1d,
                             const float2* tw, cudaStream_t stream);

/* The tiled path (poc_tiled.cu): one POC pass in five kernels over z
 * (count x n x n complex, the chunk's blocks b0 .. b0 + count - 1), for
 * window sizes 128 and 256: sums -> means[b], forward row transforms,
 * column transforms with the cross spectrum, inverse row transforms with
 * the peak key best[b] (the surface left in z), then the peak update and
 * record of launch_poc_peak in `mode`. Blocks with done[b] set are skipped
 * in kRecentre mode. tw: the twiddles of n (poc_fused_twiddles(n)).
 * poc_tiled_prepare(n) once per size before launching. */
bool poc_tiled_supported(int n);
cudaError_t poc_tiled_prepare(int n);
cudaError_t launch_poc_tiled(LayerView I, LayerView J, const PocGeometry& g, int layer,
                             PeakMode mode, bool from_point, int b0, int count,
                             int2* centre, uint8_t* done, PeakRecord* rec,
                             const float* w1d, const float2* tw, float2* z, float2* means,
                             unsigned long long* best, cudaStream_t stream);

}  // namespace cuda
}  // namespace match
