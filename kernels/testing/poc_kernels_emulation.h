/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only (the match_testing library): the CUDA POC stages
 * (cuda/poc_kernels.cuh) run on the host, for cuda::emulate_poc_match
 * (poc_emulation_cuda.cu).
 */
#pragma once

#include "cuda/poc_kernels.cuh"

namespace match {
namespace cuda {

/* The same stages on the host: every CTA of the launch, in order, each
 * running the kernel's per-thread code for all its threads, with the
 * reductions (integer sum, maximum key) done sequentially. Same arguments
 * as the launchers, host pointers. */
void emulate_poc_prepare(const uint8_t* raw, int raw_pitch, int w, int h, float* layer0);
void emulate_poc_reduce(LayerView src, float* dst, int dw, int dh);
/* The table directly (exact integers modulo 2^32: any order gives the
 * same words; PocCuda.IntegralEqualsHost checks the kernels' against it). */
void emulate_poc_integrate(LayerView L, int layer, uint32_t* sat);
void emulate_poc_gather(LayerView I, LayerView J, const PocGeometry& g, int layer, int b0,
                        int count, bool g_at_point, const int2* centre,
                        const uint8_t* done, bool skip_done, const float* w1d,
                        float* out_f, float* out_g);
void emulate_poc_cross(const float2* F, const float2* G, float2* R, int count,
                       const PocGeometry& g);
void emulate_poc_peak(const float* surf, int b0, int count, const PocGeometry& g,
                      int layer, PeakMode mode, bool from_point, int2* centre,
                      uint8_t* done, PeakRecord* rec);
void emulate_poc_fused(LayerView I, LayerView J, const PocGeometry& g, int layer,
                       PeakMode mode, bool from_point, int num_blocks, int2* centre,
                       uint8_t* done, PeakRecord* rec, const float* w1d,
                       const float2* tw);
void emulate_poc_tiled(LayerView I, LayerView J, const PocGeometry& g, int layer,
                       PeakMode mode, bool from_point, int b0, int count, int2* centre,
                       uint8_t* done, PeakRecord* rec, const float* w1d, const float2* tw,
                       float2* z, float2* means, unsigned long long* best);
/* launch_poc_finish_stage() on host buffers; returns the result's buffer. */
PocVector* emulate_poc_finish_stage(LayerView I0, LayerView J0, LayerView K0,
                                    const PocConfig& config, double min_confidence,
                                    PocVector* a, PocVector* b);
void emulate_poc_predict(const PocGeometry& coarse, const int2* coarse_centre,
                         const PocGeometry& fine, int count, bool median, int2* out);
void emulate_poc_finish(const PeakRecord* rec, const int2* centre, int num_blocks,
                        const PocGeometry& g, double alpha_unit, float min_confidence,
                        PocVector* out);

}  // namespace cuda
}  // namespace match
