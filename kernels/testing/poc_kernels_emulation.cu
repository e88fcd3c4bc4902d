/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only (linked by tests/kernels, never by the plugin): the CUDA POC
 * stages run on the host, every CTA of a launch in order and every thread
 * of a CTA one after the other between the CTA's barriers, with the
 * reductions (integer sum, maximum key) done sequentially: the kernels'
 * own per-thread code (cuda/poc_thread.cuh, poc_fused.cuh, poc_tiled.cuh,
 * poc_finish.cuh, ref/poc_finish_block.h). Compiled by nvcc for the
 * kernels' headers.
 */
#include "testing/poc_kernels_emulation.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "cuda/poc_finish.cuh"
#include "cuda/poc_fused.cuh"
#include "cuda/poc_thread.cuh"
#include "cuda/poc_tiled.cuh"

namespace match {
namespace cuda {
namespace {

/* ---- The fused path (cuda/poc_fused.cu): one launch ---- */

template <int N>
void emulate_fused_n(const fused_detail::FusedArgs& a, int count) {
  using namespace fused_detail;
  using S = Shape<N>;
  std::vector<float2> tile(size_t(N) * S::P);
  float2* t = tile.data();
  std::vector<int> pairs(N);
  for (int f = 0; f < N; ++f) pairs[f] = pair_rows<N>(f);
  for (int b = 0; b < count; ++b) {
    if (peak_skips(a.mode, a.done, b)) continue;
    const PairJob job = pair_job(a.I, a.J, a.g, a.layer, b, a.from_point, a.centre);
    int tf = 0, tg = 0;
    for (int tid = 0; tid < S::T; ++tid) {
      int sf, sg;
      load_thread<N>(job, t, tid, &sf, &sg);
      tf += sf;
      tg += sg;
    }
    const float mf = window_mean(tf, job.scale, N);
    const float mg = window_mean(tg, job.scale, N);
    auto each = [&](auto pass) {
      for (int tid = 0; tid < S::T; ++tid) pass(t, a.tw, tid);
    };
    fft2d_passes<N, false>(each, Windowing{a.w1d, mf, mg});
    for (int tid = 0; tid < S::T; ++tid) cross_thread<N>(t, pairs.data(), a.g.k, tid);
    fft2d_passes<N, true>(each);
    unsigned long long best = 0;
    for (int tid = 0; tid < S::T; ++tid) best = key_max(best, peak_thread<N>(t, tid));
    int n1, n2;
    peak_decode(best, N, &n1, &n2);
    peak_update(reinterpret_cast<const float*>(t), S::P, 2, b, n1, n2, a.g, a.layer,
                a.mode, a.from_point, a.centre, a.done, a.rec);
  }
}

/* ---- The tiled path (cuda/poc_tiled.cu): one pass ---- */

template <int N>
void emulate_tiled_n(const tiled_detail::TiledArgs& a, int count) {
  using namespace tiled_detail;
  using S = TShape<N>;
  std::vector<float2> tile(std::max(rows_smem<N>(), cols_smem<N>()) / sizeof(float2));
  float2* t = tile.data();
  auto each = [](auto&& f) {
    for (int tid = 0; tid < S::T; ++tid) f(tid);
  };
  for (int i = 0; i < count; ++i) sums_block(a, i); /* sums */
  for (int i = 0; i < count; ++i) {                 /* rows */
    const int b = a.b0 + i;
    if (peak_skips(a.mode, a.done, b)) continue;
    const PairJob job = pair_job(a.I, a.J, a.g, a.layer, b, a.from_point, a.centre);
    for (int y0 = 0; y0 < N; y0 += S::RB) {
      each([&](int tid) { rows_load_thread<N>(job, a.means[b], a.w1d, y0, t, tid); });
      each([&](int tid) { tpass_thread<N, 1, false>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) { tpass_thread<N, 2, false>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) {
        rows_store_thread<N>(a.z + (size_t)i * N * N, y0, a.g.k, t, tid);
      });
    }
  }
  for (int i = 0; i < count; ++i) { /* cols */
    const int b = a.b0 + i;
    if (peak_skips(a.mode, a.done, b)) continue;
    float2* zb = a.z + (size_t)i * N * N;
    for (int c = 0; c < S::COL_CTAS; ++c) {
      int run[2] = {0, 0};
      const int nruns = col_runs<N>(c, run);
      const ColActive<N> act{run, a.g.k};
      with_runs(nruns, [&](auto runs) {
        constexpr int NR = decltype(runs)::value, lines = NR * S::RUN;
        each([&](int tid) { cols_copy_thread<N, false, NR>(zb, run, a.g.k, t, tid); });
        each([&](int tid) { tpass_thread<N, 1, false>(t, lines, a.tw, tid, act); });
        each([&](int tid) { tpass_thread<N, 2, false>(t, lines, a.tw, tid, act); });
        each([&](int tid) { cols_cross_thread<N, NR>(t, run, a.g.k, tid); });
        each([&](int tid) { tpass_thread<N, 2, true>(t, lines, a.tw, tid, act); });
        each([&](int tid) { tpass_thread<N, 1, true>(t, lines, a.tw, tid, act); });
        each([&](int tid) { cols_copy_thread<N, true, NR>(zb, run, a.g.k, t, tid); });
      });
    }
  }
  for (int i = 0; i < count; ++i) { /* inv */
    const int b = a.b0 + i;
    if (peak_skips(a.mode, a.done, b)) continue;
    float2* zb = a.z + (size_t)i * N * N;
    unsigned long long best = 0;
    for (int y0 = 0; y0 < N; y0 += S::RB) {
      each([&](int tid) { inv_load_thread<N>(zb, y0, a.g.k, t, tid); });
      each([&](int tid) { tpass_thread<N, 2, true>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) { tpass_thread<N, 1, true>(t, S::RB, a.tw, tid, AllLines()); });
      each([&](int tid) { best = key_max(best, inv_store_thread<N>(zb, y0, t, tid)); });
    }
    a.best[b] = key_max(a.best[b], best);
  }
  for (int i = 0; i < count; ++i) tiled_peak_block(a, i, N); /* peak */
}

}  // namespace

using namespace poc_thread;

/* ---- The cuFFT path's kernels (cuda/poc_kernels.cu) ---- */

void emulate_poc_prepare(const uint8_t* raw, int raw_pitch, int w, int h, float* layer0) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) prepare_pixel(raw, raw_pitch, w, x, y, layer0);
}

void emulate_poc_reduce(LayerView src, float* dst, int dw, int dh) {
  for (int y = 0; y < dh; ++y)
    for (int x = 0; x < dw; ++x) reduce_pixel(src.px, src.w, dst, dw, x, y);
}

void emulate_poc_gather(LayerView I, LayerView J, const PocGeometry& g, int layer, int b0,
                        int count, bool g_at_point, const int2* centre,
                        const uint8_t* done, bool skip_done, const float* w1d,
                        float* out_f, float* out_g) {
  for (int by = 0; by < (out_f ? 1 : 0) + (out_g ? 1 : 0); ++by)
    for (int i = 0; i < count; ++i) {
      const bool is_f = out_f && by == 0;
      if (gather_skips(is_f, skip_done, done, b0 + i)) continue;
      const GatherJob job =
          gather_job(I, J, g, layer, b0, i, is_f, g_at_point, centre, out_f, out_g);
      long long t = 0; /* the shuffle and shared-memory sums: exact */
      for (int ty = 0; ty < kGatherY; ++ty)
        for (int tx = 0; tx < kGatherX; ++tx) t += gather_thread_sum(job, g.n, tx, ty);
      const float mean = window_mean(t, job.scale, g.n);
      for (int ty = 0; ty < kGatherY; ++ty)
        for (int tx = 0; tx < kGatherX; ++tx)
          gather_thread_write(job, g.n, mean, w1d, tx, ty);
    }
}

void emulate_poc_cross(const float2* F, const float2* G, float2* R, int count,
                       const PocGeometry& g) {
  const int half = g.n * (g.n / 2 + 1);
  for (int i = 0; i < count; ++i) {
    const size_t w = (size_t)i * half;
    for (int e = 0; e < half; ++e) R[w + e] = cross_value(F + w, G + w, e, g.n, g.k);
  }
}

void emulate_poc_peak(const float* surf, int b0, int count, const PocGeometry& g,
                      int layer, PeakMode mode, bool from_point, int2* centre,
                      uint8_t* done, PeakRecord* rec) {
  const int n = g.n;
  for (int i = 0; i < count; ++i) {
    const int b = b0 + i;
    if (peak_skips(mode, done, b)) continue;
    const float* s = surf + (size_t)i * n * n;
    unsigned long long best = 0;
    for (int tid = 0; tid < kPeakThreads; ++tid)
      best = key_max(best, peak_thread_best(s, n, tid));
    int n1, n2;
    peak_decode(best, n, &n1, &n2);
    peak_update(s, n, 1, b, n1, n2, g, layer, mode, from_point, centre, done, rec);
  }
}

void emulate_poc_integrate(LayerView L, int layer, uint32_t* sat) {
  const float scale = (float)(1 << (2 * layer));
  const size_t ld = (size_t)L.w + 1;
  for (int x = 0; x <= L.w; ++x) sat[x] = 0;
  for (int y = 1; y <= L.h; ++y) {
    uint32_t row = 0;
    sat[y * ld] = 0;
    for (int x = 1; x <= L.w; ++x) {
      row += (uint32_t)to_int_rn(L.px[(size_t)(y - 1) * L.w + x - 1] * scale);
      sat[y * ld + x] = sat[(y - 1) * ld + x] + row;
    }
  }
}

void emulate_poc_predict(const PocGeometry& coarse, const int2* coarse_centre,
                         const PocGeometry& fine, int count, bool median, int2* out) {
  for (int b = 0; b < count; ++b)
    out[b] = predict_block(coarse, coarse_centre, fine, b, median);
}

void emulate_poc_finish(const PeakRecord* rec, const int2* centre, int num_blocks,
                        const PocGeometry& g, double alpha_unit, float min_confidence,
                        PocVector* out) {
  for (int b = 0; b < num_blocks; ++b)
    out[b] = finish_block(rec[b], centre[b], b, g, alpha_unit, min_confidence,
                          poc_detail::SerialFitSamples());
}

void emulate_poc_fused(LayerView I, LayerView J, const PocGeometry& g, int layer,
                       PeakMode mode, bool from_point, int num_blocks, int2* centre,
                       uint8_t* done, PeakRecord* rec, const float* w1d,
                       const float2* tw) {
  const fused_detail::FusedArgs a = fused_detail::make_args(
      I, J, g, layer, mode, from_point, centre, done, rec, w1d, tw);
  switch (g.n) {
    case 32:
      emulate_fused_n<32>(a, num_blocks);
      break;
    case 64:
      emulate_fused_n<64>(a, num_blocks);
      break;
  }
}

void emulate_poc_tiled(LayerView I, LayerView J, const PocGeometry& g, int layer,
                       PeakMode mode, bool from_point, int b0, int count, int2* centre,
                       uint8_t* done, PeakRecord* rec, const float* w1d, const float2* tw,
                       float2* z, float2* means, unsigned long long* best) {
  const tiled_detail::TiledArgs a = tiled_detail::make_args(
      I, J, g, layer, mode, from_point, b0, centre, done, rec, w1d, tw, z, means, best);
  switch (g.n) {
    case 128:
      emulate_tiled_n<128>(a, count);
      break;
    case 256:
      emulate_tiled_n<256>(a, count);
      break;
  }
}

PocVector* emulate_poc_finish_stage(LayerView I0, LayerView J0, LayerView K0,
                                    const PocConfig& c, double min_confidence,
                                    PocVector* a, PocVector* b) {
  const poc_finish_detail::FinishParams p =
      poc_finish_detail::make_finish_params(c, min_confidence);
  const int nb = c.num_blocks();
  const bool before = K0.px && c.direction == Direction::kForward;
  const poc_finish_gpu::FloatImage I{I0.px, I0.w}, J{J0.px, J0.w}, K{K0.px, K0.w};
  return poc_finish_gpu::finish_sequence(
      c, a, b, [&](int kind, PocVector* src, PocVector* dst) {
        /* Each warp's lanes would agree; one serial lane per block. */
        const poc_finish_detail::SerialTeam team;
        for (int i = 0; i < nb; ++i)
          dst[i] = kind == poc_finish_gpu::kFinishCheck
                       ? poc_finish_detail::check_block(team, I, J, p, c.robust, src, i)
                   : kind == poc_finish_gpu::kFinishVote
                       ? poc_finish_detail::vote_block(team, I, J, before ? &K : nullptr,
                                                       p, src, i)
                       : poc_finish_detail::median_block(p, src, i);
        return true;
      });
}

}  // namespace cuda
}  // namespace match
