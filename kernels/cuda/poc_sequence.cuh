/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CUDA POC backend's per-frame sequence, written once as templates over
 * an executor (poc_cuda.cu has the top comment): CudaExec in poc_cuda.cu
 * launches the kernels and runs the cuFFT plans; the test-only EmuExec
 * (kernels/testing/poc_emulation_cuda.cu) runs the kernels' host emulation
 * and a host FFT, so the GPU-free tests check this sequence, its buffer
 * layout and chunking too, not only the kernels. Internal to kernels/cuda
 * and kernels/testing.
 */
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <vector>

#include "internal.h"
#include "match/poc.h"
#include "poc_kernels.cuh"
#include "ref/poc_fit.h" /* ref::poc_detail::lowpass_k */

namespace match {
namespace cuda {

inline PocGeometry make_geometry(const PocConfig& config) {
  PocGeometry g;
  g.width = config.width;
  g.height = config.height;
  g.cols = config.columns();
  g.spacing = config.spacing;
  g.n = config.window_size;
  g.k = ref::poc_detail::lowpass_k(g.n, config.lowpass);
  return g;
}

/* The confidence unit (2K+1)^2 / N^2 (ref/poc_ref.cpp "One POC"). */
inline double alpha_unit_of(const PocGeometry& g) {
  return (2.0 * g.k + 1) * (2.0 * g.k + 1) / (double(g.n) * g.n);
}

/* Window function, computed as the CPU backend does. */
inline std::vector<float> window_1d(const PocConfig& config) {
  const int n = config.window_size;
  std::vector<float> w1d(n, 1.f);
  if (config.window == PocWindow::kHann)
    for (int i = 0; i < n; ++i)
      w1d[i] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * M_PI * i / n));
  return w1d;
}

/* Blocks per chunk for at most `chunk` of them: equal chunks, so that no
 * nearly empty last execution runs. */
inline int equal_chunk(int nb, int chunk) {
  chunk = std::max(1, std::min(chunk, nb));
  if (chunk < nb) {
    const int pieces = (nb + chunk - 1) / chunk;
    chunk = (nb + pieces - 1) / pieces;
  }
  return chunk;
}

/* The path for window size n (PocCudaPath, internal.h): an explicit
 * choice where the size allows it (else kAuto's choice), and for kAuto
 * the fused path for 32 and 64, the tiled one for 128 and 256 (on the
 * H100 it took [E]'s 720p N=256 case from 3.98 to 3.48 ms of GPU time per
 * frame and 1080p N=128 from 2.20 to 2.05 ms), else cuFFT.
 * MATCH_POC_FUSED=0 / MATCH_POC_TILED=0 make kAuto take cuFFT for those
 * sizes (benchmarks, tests). */
inline PocCudaPath resolve_path(int n, PocCudaPath path) {
  if (path == PocCudaPath::kCufft) return path;
  if (path == PocCudaPath::kFused && poc_fused_supported(n)) return path;
  if (path == PocCudaPath::kTiled && poc_tiled_supported(n)) return path;
  auto env_is = [](const char* name, int v) {
    const char* e = std::getenv(name);
    return e && std::atoi(e) == v;
  };
  if (poc_fused_supported(n) && !env_is("MATCH_POC_FUSED", 0)) return PocCudaPath::kFused;
  if (poc_tiled_supported(n) && !env_is("MATCH_POC_TILED", 0)) return PocCudaPath::kTiled;
  return PocCudaPath::kCufft;
}

/* Row pitch of the uploaded u8 frame. */
inline int raw_pitch_of(int width) { return (width + 127) / 128 * 128; }

/* One prepared frame: layers 0..3 in one allocation (so that reconfigure()
 * keeps the previous frame whatever the new layer count), then their
 * summed-area tables (LayerView::sat, built on the tiled path only), each
 * padded to 64 words. Floor halving, as in the reference. */
struct SlotLayout {
  int w[4] = {0, 0, 0, 0}, h[4] = {0, 0, 0, 0};
  size_t off[4] = {0, 0, 0, 0}, sat_off[4] = {0, 0, 0, 0};
  size_t words = 0; /* 4 bytes each */

  void init(int width, int height) {
    words = 0;
    for (int l = 0; l <= 3; ++l) {
      w[l] = width >> l;
      h[l] = height >> l;
      off[l] = words;
      words += (size_t(w[l]) * h[l] + 63) / 64 * 64;
    }
    for (int l = 0; l <= 3; ++l) {
      sat_off[l] = words;
      words += (size_t(w[l] + 1) * (h[l] + 1) + 63) / 64 * 64;
    }
  }
  uint32_t* sat(float* base, int l) const {
    return reinterpret_cast<uint32_t*>(base + sat_off[l]);
  }
  LayerView view(const float* base, int l) const {
    return LayerView{base + off[l], w[l], h[l],
                     reinterpret_cast<const uint32_t*>(base + sat_off[l])};
  }
};

/* The buffers of one estimate, as configure() lays them out (device memory
 * on the GPU, host memory in the emulation). */
struct PocBuffers {
  float* win = nullptr;    /* 2 x chunk windows: f, then g */
  float2* spec = nullptr;  /* 2 x chunk half spectra n x (n/2+1): F, then G */
  int2* centre = nullptr;  /* per block */
  uint8_t* done = nullptr; /* per block */
  PeakRecord* rec = nullptr;
  const float* w1d = nullptr;
  PocVector* out = nullptr;
  /* The tiled path's: chunk x n x n complex, and per block: */
  float2* tz = nullptr;
  float2* means = nullptr;
  unsigned long long* best = nullptr;
  /* Shared coarse layers (PocCoarse): 2 x blocks, the coarse grids'
   * centres, alternating between the halves layer by layer. */
  int2* coarse = nullptr;
};

/* Layer l's own block grid (shared coarse layers): the blocks' spacing and
 * window over the layer's size. */
inline PocGeometry layer_grid(const PocGeometry& g, const LayerView& L, int l) {
  PocGeometry c = g;
  c.width = L.w;
  c.height = L.h;
  c.cols = (L.w + g.spacing - 1) / g.spacing;
  c.grid_layer = l;
  return c;
}
inline int grid_blocks(const PocGeometry& c) {
  return c.cols * ((c.height + c.spacing - 1) / c.spacing);
}

/* The spectra of each frame's windows at the coarsest layer's block points
 * p_L. At layer L the g window is centred on p_L as well (zero motion is
 * assumed there), so a frame's layer-L windows are the same whether it plays
 * I (this pair) or J (the next pair, or the previous one): kept per frame,
 * each is transformed once instead of twice. Each array holds the blocks
 * rounded up to whole chunks (a plan writes its whole batch). */
struct CoarseCache {
  float2* spec_i = nullptr; /* I's frame */
  float2* spec_j = nullptr; /* J's frame */
  bool fill_i = false;      /* transform I's windows in this call */
  bool fill_j = false;
};

/* Layers 1..layers of a slot from its layer 0, and with `tables` the
 * summed-area tables of layers 0..layers (the tiled path's window sums). */
template <typename Exec>
Status reduce_layers(Exec& x, const SlotLayout& s, float* base, int layers, bool tables) {
  for (int l = 1; l <= layers; ++l) {
    Status st = x.reduce(s.view(base, l - 1), base + s.off[l], s.w[l], s.h[l]);
    if (!st) return st;
  }
  for (int l = 0; tables && l <= layers; ++l) {
    Status st = x.integrate(s.view(base, l), l, s.sat(base, l));
    if (!st) return st;
  }
  return Status::ok();
}

#define POC_TRY(expr)     \
  do {                    \
    Status st_ = (expr);  \
    if (!st_) return st_; \
  } while (0)

/* Shared coarse layers (ref/poc_ref.cpp "Coarse layers"): layers L..1 on
 * their own grids, each grid's centres predicted from the layer above
 * (launch_poc_predict; the coarsest at its points), then layer 0's centres
 * into buf.centre. pass(grid, l, from_point, blocks, buffers) runs one
 * kCoarse pass of the path over the grid's blocks with the centres in
 * buffers.centre. A layer-l grid never has more blocks than layer 0's. */
template <typename Exec, typename Pass>
Status shared_coarse(Exec& x, const PocGeometry& geom, int layers, PocCoarse coarse,
                     int nb, const LayerView* I, const PocBuffers& buf, Pass pass) {
  const bool median = coarse == PocCoarse::kSharedMedian;
  PocGeometry up;
  const int2* up_centre = nullptr;
  for (int l = layers; l >= 1; --l) {
    const PocGeometry g = layer_grid(geom, I[l], l);
    PocBuffers b = buf;
    b.centre = buf.coarse + (l % 2) * size_t(nb);
    if (l < layers) {
      Status st = x.predict(up, up_centre, g, grid_blocks(g), median, b.centre);
      if (!st) return st;
    }
    Status st = pass(g, l, l == layers, grid_blocks(g), b);
    if (!st) return st;
    up = g;
    up_centre = b.centre;
  }
  return x.predict(up, up_centre, geom, nb, median, buf.centre);
}

inline bool shared_layers(PocCoarse coarse, int layers) {
  return coarse != PocCoarse::kPerBlock && layers > 0;
}

/* The per-frame sequence (see the top comment) of the vectors of I against
 * J (views of layers 0..layers), in chunks of `chunk` blocks. */
template <typename Exec>
Status poc_estimate(Exec& x, const PocGeometry& geom, int layers, PocCoarse coarse,
                    int nb, int chunk, const LayerView* I, const LayerView* J,
                    const PocBuffers& buf, double alpha_unit, float min_confidence,
                    const CoarseCache* cache) {
  const int n = geom.n, L = layers;
  const size_t nn = size_t(n) * n, half = size_t(n) * (n / 2 + 1);
  float* win_f = buf.win;
  float* win_g = win_f + size_t(chunk) * nn;
  float2* spec_f = buf.spec;
  float2* spec_g = spec_f + size_t(chunk) * half;
  float* surf = win_f; /* see the top comment */
  /* One POC pass over blocks b0 .. b0 + cnt - 1 of grid g at layer l. */
  auto pass = [&](const PocGeometry& g, int l, PeakMode mode, bool at_point, int b0,
                  int cnt, const PocBuffers& b) {
    POC_TRY(x.gather(I[l], J[l], g, l, b0, cnt, at_point, b.centre, b.done, false, b.w1d,
                     win_f, win_g));
    POC_TRY(x.r2c_pair(win_f, spec_f));
    POC_TRY(x.cross(spec_f, spec_g, spec_g, cnt, g));
    POC_TRY(x.c2r(spec_g, surf));
    return x.peak(surf, b0, cnt, g, l, mode, at_point, b.centre, b.done, b.rec);
  };
  const bool shared = shared_layers(coarse, L);
  if (shared) {
    cache = nullptr; /* its spectra are the per-block coarsest windows' */
    POC_TRY(shared_coarse(
        x, geom, L, coarse, nb, I, buf,
        [&](const PocGeometry& g, int l, bool at_point, int count, const PocBuffers& b) {
          for (int b0 = 0; b0 < count; b0 += chunk)
            POC_TRY(pass(g, l, PeakMode::kCoarse, at_point, b0,
                         std::min(chunk, count - b0), b));
          return Status::ok();
        }));
  }
  for (int b0 = 0; b0 < nb; b0 += chunk) {
    const int cnt = std::min(chunk, nb - b0);
    const size_t off = size_t(b0) * half;
    for (int l = shared ? 0 : L; l >= 0; --l) {
      if (cache && l == L) {
        /* Layer L from the kept spectra (computing those missing). */
        const LayerView* src[2] = {&I[L], &J[L]};
        float2* dst[2] = {cache->spec_i + off, cache->spec_j + off};
        const bool fill[2] = {cache->fill_i, cache->fill_j};
        for (int side = 0; side < 2; ++side) {
          if (!fill[side]) continue;
          POC_TRY(x.gather(*src[side], *src[side], geom, L, b0, cnt, true, buf.centre,
                           buf.done, false, buf.w1d, win_f, nullptr));
          POC_TRY(x.r2c_g(win_f, dst[side]));
        }
        POC_TRY(x.cross(dst[0], dst[1], spec_g, cnt, geom));
        POC_TRY(x.c2r(spec_g, surf));
        POC_TRY(x.peak(surf, b0, cnt, geom, l,
                       l > 0 ? PeakMode::kCoarse : PeakMode::kFirst0, true, buf.centre,
                       buf.done, buf.rec));
        continue;
      }
      POC_TRY(pass(geom, l, l > 0 ? PeakMode::kCoarse : PeakMode::kFirst0, l == L, b0,
                   cnt, buf));
    }
    /* Re-centring (ref/poc_ref.cpp): g again at the moved centre for the
     * blocks whose layer-0 peak was not at 0; F is still in spec_f (in the
     * cache when layer 0 is the coarsest and the cache is on). */
    const float2* F0 = cache && L == 0 ? cache->spec_i + off : spec_f;
    POC_TRY(x.gather(I[0], J[0], geom, 0, b0, cnt, false, buf.centre, buf.done, true,
                     buf.w1d, nullptr, win_g));
    POC_TRY(x.r2c_g(win_g, spec_g));
    POC_TRY(x.cross(F0, spec_g, spec_g, cnt, geom));
    POC_TRY(x.c2r(spec_g, surf));
    POC_TRY(x.peak(surf, b0, cnt, geom, 0, PeakMode::kRecentre, false, buf.centre,
                   buf.done, buf.rec));
  }
  return x.finish(buf.rec, buf.centre, nb, geom, alpha_unit, min_confidence, buf.out);
}

/* The same sequence on the fused path (poc_fused.cu): one launch per layer
 * and one for the re-centring, each a whole POC per block in shared
 * memory; no windows, spectra or surfaces in global memory, no chunks. */
template <typename Exec>
Status poc_estimate_fused(Exec& x, const PocGeometry& geom, int layers, PocCoarse coarse,
                          int nb, const LayerView* I, const LayerView* J,
                          const PocBuffers& buf, const float2* tw, double alpha_unit,
                          float min_confidence) {
  const bool shared = shared_layers(coarse, layers);
  if (shared)
    POC_TRY(shared_coarse(
        x, geom, layers, coarse, nb, I, buf,
        [&](const PocGeometry& g, int l, bool at_point, int count, const PocBuffers& b) {
          return x.fused(I[l], J[l], g, l, PeakMode::kCoarse, at_point, count, b, tw);
        }));
  for (int l = shared ? 0 : layers; l >= 0; --l)
    POC_TRY(x.fused(I[l], J[l], geom, l, l > 0 ? PeakMode::kCoarse : PeakMode::kFirst0,
                    l == layers, nb, buf, tw));
  POC_TRY(x.fused(I[0], J[0], geom, 0, PeakMode::kRecentre, false, nb, buf, tw));
  return x.finish(buf.rec, buf.centre, nb, geom, alpha_unit, min_confidence, buf.out);
}

/* The sequence on the tiled path (poc_tiled.cu): per chunk, one pass of
 * five kernels per layer and one for the re-centring. */
template <typename Exec>
Status poc_estimate_tiled(Exec& x, const PocGeometry& geom, int layers, PocCoarse coarse,
                          int nb, int chunk, const LayerView* I, const LayerView* J,
                          const PocBuffers& buf, const float2* tw, double alpha_unit,
                          float min_confidence) {
  const bool shared = shared_layers(coarse, layers);
  if (shared)
    POC_TRY(shared_coarse(
        x, geom, layers, coarse, nb, I, buf,
        [&](const PocGeometry& g, int l, bool at_point, int count, const PocBuffers& b) {
          for (int b0 = 0; b0 < count; b0 += chunk)
            POC_TRY(x.tiled(I[l], J[l], g, l, PeakMode::kCoarse, at_point, b0,
                            std::min(chunk, count - b0), b, tw));
          return Status::ok();
        }));
  for (int b0 = 0; b0 < nb; b0 += chunk) {
    const int cnt = std::min(chunk, nb - b0);
    for (int l = shared ? 0 : layers; l >= 0; --l)
      POC_TRY(x.tiled(I[l], J[l], geom, l, l > 0 ? PeakMode::kCoarse : PeakMode::kFirst0,
                      l == layers, b0, cnt, buf, tw));
    POC_TRY(x.tiled(I[0], J[0], geom, 0, PeakMode::kRecentre, false, b0, cnt, buf, tw));
  }
  return x.finish(buf.rec, buf.centre, nb, geom, alpha_unit, min_confidence, buf.out);
}

#undef POC_TRY

}  // namespace cuda
}  // namespace match
