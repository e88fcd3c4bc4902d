/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only (linked by tests/kernels, never by the plugin): the CUDA POC
 * backend's per-frame sequence (cuda/poc_sequence.cuh) run on the host,
 * with the kernels' host emulation (poc_kernels_emulation.cu) and
 * cpu::Fft2d in place of cuFFT, so that the GPU-free tests check the
 * backend's sequence, buffer layout and chunking. Compiled by nvcc for float2/int2 and the
 * kernels' headers.
 */
#include "testing/poc_emulation.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <new>
#include <vector>

#include <cuda_runtime.h>

#include "cpu/fft.h"
#include "cuda/cuda_check.h"
#include "cuda/poc_kernels.cuh"
#include "cuda/poc_sequence.cuh"
#include "cuda/poc_thread.cuh"
#include "internal.h"
#include "testing/poc_kernels_emulation.h"

namespace match {
namespace cuda {
namespace {

/* The host: the kernels' emulation (poc_kernels.cu), with cpu::Fft2d
 * standing in for cuFFT, on the same batch counts and layouts:
 *   R2C: X(u, v) = sum in[y][x] e^(-2 pi i (u x + v y) / n) at
 *        out[v (n/2 + 1) + u], u <= n/2 (the last axis halved);
 *   C2R: unnormalised; the half spectrum stands for its Hermitian full
 *        spectrum (X(u, v) = conj X(n - u, -v) for u > n/2), and the real
 *        part of the inverse DFT of that is written.
 * Fft2d returns the transposed spectrum (cpu/fft.h), which both
 * conversions absorb. */
class EmuExec {
 public:
  EmuExec(int n, int chunk)
      : n_(n),
        chunk_(chunk),
        fft_(n),
        re_(size_t(n) * n),
        im_(size_t(n) * n),
        wre_(size_t(n) * n),
        wim_(size_t(n) * n) {}

  Status integrate(LayerView L, int layer, uint32_t* sat) {
    emulate_poc_integrate(L, layer, sat);
    return Status::ok();
  }
  Status reduce(LayerView src, float* dst, int dw, int dh) {
    emulate_poc_reduce(src, dst, dw, dh);
    return Status::ok();
  }
  Status gather(const LayerView& I, const LayerView& J, const PocGeometry& g, int layer,
                int b0, int count, bool g_at_point, const int2* centre,
                const uint8_t* done, bool skip_done, const float* w1d, float* out_f,
                float* out_g) {
    emulate_poc_gather(I, J, g, layer, b0, count, g_at_point, centre, done, skip_done,
                       w1d, out_f, out_g);
    return Status::ok();
  }
  /* A plan transforms its whole batch, also the windows of a partial last
   * chunk that are left from the previous chunk. */
  Status r2c_pair(float* in, float2* out) {
    r2c(in, out, 2 * chunk_);
    return Status::ok();
  }
  Status r2c_g(float* in, float2* out) {
    r2c(in, out, chunk_);
    return Status::ok();
  }
  Status c2r(float2* in, float* out) {
    c2r(in, out, chunk_);
    return Status::ok();
  }
  Status cross(const float2* F, const float2* G, float2* R, int count,
               const PocGeometry& g) {
    emulate_poc_cross(F, G, R, count, g);
    return Status::ok();
  }
  Status peak(const float* surf, int b0, int count, const PocGeometry& g, int layer,
              PeakMode mode, bool from_point, int2* centre, uint8_t* done,
              PeakRecord* rec) {
    emulate_poc_peak(surf, b0, count, g, layer, mode, from_point, centre, done, rec);
    return Status::ok();
  }
  Status fused(const LayerView& I, const LayerView& J, const PocGeometry& g, int layer,
               PeakMode mode, bool from_point, int nb, const PocBuffers& buf,
               const float2* tw) {
    emulate_poc_fused(I, J, g, layer, mode, from_point, nb, buf.centre, buf.done, buf.rec,
                      buf.w1d, tw);
    return Status::ok();
  }
  Status tiled(const LayerView& I, const LayerView& J, const PocGeometry& g, int layer,
               PeakMode mode, bool from_point, int b0, int count, const PocBuffers& buf,
               const float2* tw) {
    emulate_poc_tiled(I, J, g, layer, mode, from_point, b0, count, buf.centre, buf.done,
                      buf.rec, buf.w1d, tw, buf.tz, buf.means, buf.best);
    return Status::ok();
  }
  Status predict(const PocGeometry& coarse, const int2* coarse_centre,
                 const PocGeometry& fine, int count, bool median, int2* out) {
    emulate_poc_predict(coarse, coarse_centre, fine, count, median, out);
    return Status::ok();
  }
  Status finish(const PeakRecord* rec, const int2* centre, int nb, const PocGeometry& g,
                double alpha_unit, float min_confidence, PocVector* out) {
    emulate_poc_finish(rec, centre, nb, g, alpha_unit, min_confidence, out);
    return Status::ok();
  }

 private:
  void r2c(const float* in, float2* out, int batch) {
    const int n = n_, hw = n / 2 + 1;
    const size_t nn = size_t(n) * n, half = size_t(n) * hw;
    for (int b = 0; b < batch; ++b) {
      std::memcpy(re_.data(), in + b * nn, nn * sizeof(float));
      std::fill(im_.begin(), im_.end(), 0.f);
      fft_.forward_transposed(re_.data(), im_.data(), wre_.data(), wim_.data());
      float2* o = out + b * half;
      for (int v = 0; v < n; ++v)
        for (int u = 0; u < hw; ++u)
          o[size_t(v) * hw + u] =
              make_float2(re_[size_t(u) * n + v], im_[size_t(u) * n + v]);
    }
  }

  void c2r(float2* in, float* out, int batch) {
    const int n = n_, hw = n / 2 + 1;
    const size_t nn = size_t(n) * n, half = size_t(n) * hw;
    for (int b = 0; b < batch; ++b) {
      float2* h = in + b * half;
      /* conj X(u, v) at [u][v]: the forward transform of that is
       * conj(r(x, y)) at [y][x] (Fft2d transposes), so Re is r itself. */
      for (int u = 0; u < n; ++u)
        for (int v = 0; v < n; ++v) {
          float2 x;
          if (u <= n / 2) {
            x = h[size_t(v) * hw + u];
          } else {
            const float2 m = h[size_t((n - v) % n) * hw + (n - u)];
            x = make_float2(m.x, -m.y);
          }
          re_[size_t(u) * n + v] = x.x;
          im_[size_t(u) * n + v] = -x.y;
        }
      fft_.forward_transposed(re_.data(), im_.data(), wre_.data(), wim_.data());
      std::memcpy(out + b * nn, re_.data(), nn * sizeof(float));
      /* cuFFT may overwrite the input of an out-of-place C2R: spoil it, so
       * that a sequence relying on it fails here too. */
      std::fill(h, h + half, make_float2(NAN, NAN));
    }
  }

  int n_, chunk_;
  cpu::Fft2d fft_;
  std::vector<float> re_, im_, wre_, wim_;
};

}  // namespace

Status emulate_poc_match(const ImageView& first, const ImageView& second,
                         const PocConfig& config, const PocRuntime& rt, PocVector* out,
                         int chunk, bool coarse_cache, PocCudaPath path) {
  Status st = config.validate();
  if (!st) return st;
  if (path == PocCudaPath::kFused && !poc_fused_supported(config.window_size))
    return Status(StatusCode::kInvalidArgument,
                  "the fused POC path takes windows of 32 or 64");
  if (path == PocCudaPath::kTiled && !poc_tiled_supported(config.window_size))
    return Status(StatusCode::kInvalidArgument,
                  "the tiled POC path takes windows of 128 or 256");
  const int w = config.width, h = config.height;
  for (const ImageView* v : {&first, &second})
    if (!v->data || v->width != w || v->height != h)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
  if (!out) return Status(StatusCode::kInvalidArgument, "no output");
  try {
    const int n = config.window_size, nb = config.num_blocks();
    const PocGeometry geom = make_geometry(config);
    const std::vector<float> w1d = window_1d(config);
    chunk = equal_chunk(nb, chunk > 0 ? chunk : nb);
    EmuExec x(n, chunk);

    /* Both frames as process() prepares them: pitched upload, layer 0,
     * coarser layers, in slots of the device's layout. */
    const int pitch = raw_pitch_of(w);
    SlotLayout layout;
    layout.init(w, h);
    std::vector<uint8_t> raw(size_t(pitch) * h, 0);
    std::vector<float> slot[2];
    const ImageView* frame[2] = {&first, &second};
    for (int f = 0; f < 2; ++f) {
      for (int y = 0; y < h; ++y)
        std::memcpy(&raw[size_t(y) * pitch], frame[f]->row(y), w);
      slot[f].assign(layout.words, 0.f);
      emulate_poc_prepare(raw.data(), pitch, w, h, slot[f].data());
      if (!(st = reduce_layers(x, layout, slot[f].data(), config.layers,
                               resolve_path(n, path) == PocCudaPath::kTiled)))
        return st;
    }
    const bool fwd = config.direction == Direction::kForward;
    const float* si = slot[fwd ? 0 : 1].data();
    const float* sj = slot[fwd ? 1 : 0].data();
    LayerView I[4], J[4];
    for (int l = 0; l <= config.layers; ++l) {
      I[l] = layout.view(si, l);
      J[l] = layout.view(sj, l);
    }

    /* Windows and spectra zeroed as configure() does; the per-block state
     * holds garbage, as the device's holds the previous frame's: a read
     * before a write then shows. */
    const size_t nn = size_t(n) * n, half = size_t(n) * (n / 2 + 1);
    std::vector<float> win(2 * size_t(chunk) * nn, 0.f);
    std::vector<float2> spec(2 * size_t(chunk) * half, make_float2(0.f, 0.f));
    std::vector<int2> centre(nb, make_int2(-100000, 100000));
    std::vector<int2> coarse(2 * size_t(nb), make_int2(-100000, 100000));
    std::vector<uint8_t> done(nb, 0xA5);
    std::vector<PeakRecord> rec(nb);
    std::memset(rec.data(), 0xFF, rec.size() * sizeof(PeakRecord)); /* NaN */
    PocVector junk;
    junk.dx = junk.dy = junk.confidence = NAN;
    junk.flags = 0xDEADu;
    std::vector<PocVector> vec(nb, junk);
    PocBuffers buf;
    buf.win = win.data();
    buf.spec = spec.data();
    buf.centre = centre.data();
    buf.coarse = coarse.data();
    buf.done = done.data();
    buf.rec = rec.data();
    buf.w1d = w1d.data();
    buf.out = vec.data();
    /* Both frames are new here: both sides' coarsest spectra are made, in
     * arrays holding whole chunks, as on the device. */
    const size_t cached = size_t((nb + chunk - 1) / chunk) * chunk * half;
    std::vector<float2> cache_i(coarse_cache ? cached : 0),
        cache_j(coarse_cache ? cached : 0);
    CoarseCache cache;
    cache.spec_i = cache_i.data();
    cache.spec_j = cache_j.data();
    cache.fill_i = cache.fill_j = true;
    /* The device's last stage (poc_finish.cu), ping-ponging with a second
     * vector array as the matcher does with its out_ and fin_. */
    std::vector<PocVector> vec2(nb, junk);
    auto finish = [&](PocVector* a, PocVector* o) {
      const PocVector* r = emulate_poc_finish_stage(I[0], J[0], LayerView{}, config,
                                                    rt.min_confidence, a, vec2.data());
      std::copy(r, r + nb, o);
      return Status::ok();
    };
    const PocCudaPath resolved = resolve_path(n, path);
    if (resolved == PocCudaPath::kFused) {
      const std::vector<float2> tw = poc_fused_twiddles(n);
      if (!(st = poc_estimate_fused(x, geom, config.layers, config.coarse, nb, I, J, buf,
                                    tw.data(), alpha_unit_of(geom),
                                    static_cast<float>(rt.min_confidence))))
        return st;
      return finish(vec.data(), out);
    }
    if (resolved == PocCudaPath::kTiled) {
      /* z holds garbage as on the device (NaN), means and keys too. */
      const std::vector<float2> tw = poc_fused_twiddles(n);
      std::vector<float2> tz(size_t(chunk) * nn, make_float2(NAN, NAN));
      std::vector<float2> means(nb, make_float2(NAN, NAN));
      std::vector<unsigned long long> best(nb, ~0ull);
      buf.tz = tz.data();
      buf.means = means.data();
      buf.best = best.data();
      if (!(st = poc_estimate_tiled(x, geom, config.layers, config.coarse, nb, chunk, I,
                                    J, buf, tw.data(), alpha_unit_of(geom),
                                    static_cast<float>(rt.min_confidence))))
        return st;
      return finish(vec.data(), out);
    }
    if (!(st = poc_estimate(x, geom, config.layers, config.coarse, nb, chunk, I, J, buf,
                            alpha_unit_of(geom), static_cast<float>(rt.min_confidence),
                            coarse_cache ? &cache : nullptr)))
      return st;
    return finish(vec.data(), out);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory, "out of memory (POC emulation)");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, e.what());
  }
  return Status::ok();
}

namespace {

/* Device memory for one test call, freed on every path. */
struct DevicePtr {
  void* p = nullptr;
  ~DevicePtr() {
    if (p) cudaFree(p);
  }
};

/* Device 0 made current, or kUnavailable where there is none. */
Status use_first_device() {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    return Status(StatusCode::kUnavailable, "no CUDA device");
  }
  CUDA_TRY(cudaSetDevice(0));
  return Status::ok();
}

}  // namespace

Status emulate_poc_finish(const ImageView& earlier, const ImageView& later,
                          const PocConfig& config, const PocRuntime& rt, PocVector* v,
                          const ImageView* before) {
  Status st = config.validate();
  if (!st) return st;
  const int w = config.width, h = config.height, nb = config.num_blocks();
  const ImageView* frame[3] = {&earlier, &later, before};
  const int frames = before ? 3 : 2;
  for (int f = 0; f < frames; ++f)
    if (!frame[f]->data || frame[f]->width != w || frame[f]->height != h)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
  if (!v) return Status(StatusCode::kInvalidArgument, "no vectors");
  const int pitch = raw_pitch_of(w);
  std::vector<uint8_t> raw(size_t(pitch) * h, 0);
  std::vector<float> layer[3];
  for (int f = 0; f < frames; ++f) {
    for (int y = 0; y < h; ++y) std::memcpy(&raw[size_t(y) * pitch], frame[f]->row(y), w);
    layer[f].assign(size_t(w) * h, NAN);
    emulate_poc_prepare(raw.data(), pitch, w, h, layer[f].data());
  }
  const bool fwd = config.direction == Direction::kForward;
  const LayerView L0{layer[0].data(), w, h}, L1{layer[1].data(), w, h};
  const LayerView K{before ? layer[2].data() : nullptr, w, h};
  PocVector junk;
  junk.dx = junk.dy = junk.confidence = NAN;
  junk.flags = 0xDEADu;
  std::vector<PocVector> a(v, v + nb), b(nb, junk);
  const PocVector* r = emulate_poc_finish_stage(fwd ? L0 : L1, fwd ? L1 : L0, K, config,
                                                rt.min_confidence, a.data(), b.data());
  std::copy(r, r + nb, v);
  return Status::ok();
}

Status device_poc_finish(const ImageView& earlier, const ImageView& later,
                         const PocConfig& config, const PocRuntime& rt, PocVector* v,
                         const ImageView* before) {
  Status st = config.validate();
  if (!st || !(st = use_first_device())) return st;
  const int w = config.width, h = config.height, nb = config.num_blocks();
  const ImageView* frame[3] = {&earlier, &later, before};
  const int frames = before ? 3 : 2;
  for (int f = 0; f < frames; ++f)
    if (!frame[f]->data || frame[f]->width != w || frame[f]->height != h)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
  if (!v) return Status(StatusCode::kInvalidArgument, "no vectors");
  cudaStream_t stream = nullptr;
  CUDA_TRY(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  struct StreamGuard {
    cudaStream_t s;
    ~StreamGuard() { cudaStreamDestroy(s); }
  } guard{stream};
  DevicePtr raw[3], layer[3], a, b, list;
  size_t pitch[3] = {0, 0, 0};
  for (int f = 0; f < frames; ++f) {
    CUDA_TRY(cudaMallocPitch(&raw[f].p, &pitch[f], w, h));
    CUDA_TRY(cudaMalloc(&layer[f].p, sizeof(float) * w * h));
    CUDA_TRY(cudaMemcpy2DAsync(raw[f].p, pitch[f], frame[f]->data, frame[f]->stride_bytes,
                               w, h, cudaMemcpyHostToDevice, stream));
    CUDA_TRY(launch_poc_prepare(static_cast<const uint8_t*>(raw[f].p),
                                static_cast<int>(pitch[f]), w, h,
                                static_cast<float*>(layer[f].p), stream));
  }
  CUDA_TRY(cudaMalloc(&a.p, sizeof(PocVector) * nb));
  CUDA_TRY(cudaMalloc(&b.p, sizeof(PocVector) * nb));
  CUDA_TRY(cudaMalloc(&list.p, sizeof(int) * (nb + 1)));
  /* b starts as garbage: a read before a write shows. */
  CUDA_TRY(cudaMemsetAsync(b.p, 0xFF, sizeof(PocVector) * nb, stream));
  CUDA_TRY(
      cudaMemcpyAsync(a.p, v, sizeof(PocVector) * nb, cudaMemcpyHostToDevice, stream));
  const bool fwd = config.direction == Direction::kForward;
  const LayerView L0{static_cast<const float*>(layer[0].p), w, h};
  const LayerView L1{static_cast<const float*>(layer[1].p), w, h};
  const LayerView K{static_cast<const float*>(layer[2].p), w, h};
  PocVector* result = nullptr;
  CUDA_TRY(launch_poc_finish_stage(fwd ? L0 : L1, fwd ? L1 : L0, K, config,
                                   rt.min_confidence, static_cast<PocVector*>(a.p),
                                   static_cast<PocVector*>(b.p),
                                   static_cast<int*>(list.p), &result, stream));
  CUDA_TRY(
      cudaMemcpyAsync(v, result, sizeof(PocVector) * nb, cudaMemcpyDeviceToHost, stream));
  CUDA_TRY(cudaStreamSynchronize(stream));
  return Status::ok();
}

Status poc_integral(const float* layer, int w, int h, int l, bool device,
                    std::vector<uint32_t>* sat) {
  if (!layer || !sat || w < 1 || h < 1 || l < 0 || l > 3)
    return Status(StatusCode::kInvalidArgument, "bad layer");
  sat->assign(size_t(w + 1) * (h + 1), 0xDEADBEEFu);
  const LayerView L{layer, w, h};
  if (!device) {
    emulate_poc_integrate(L, l, sat->data());
    return Status::ok();
  }
  Status st = use_first_device();
  if (!st) return st;
  DevicePtr px, table;
  const size_t bytes = sizeof(uint32_t) * sat->size();
  CUDA_TRY(cudaMalloc(&px.p, sizeof(float) * w * h));
  CUDA_TRY(cudaMalloc(&table.p, bytes));
  /* Garbage first: an entry the kernels miss shows. */
  CUDA_TRY(cudaMemset(table.p, 0xEF, bytes));
  CUDA_TRY(cudaMemcpy(px.p, layer, sizeof(float) * w * h, cudaMemcpyHostToDevice));
  CUDA_TRY(launch_poc_integrate(LayerView{static_cast<const float*>(px.p), w, h}, l,
                                static_cast<uint32_t*>(table.p), nullptr));
  CUDA_TRY(cudaMemcpy(sat->data(), table.p, bytes, cudaMemcpyDeviceToHost));
  return Status::ok();
}

long long poc_table_window_sum(const float* layer, const uint32_t* sat, int w, int h,
                               int x0, int y0, int n) {
  return poc_thread::sat_window_sum(LayerView{layer, w, h, sat}, x0, y0, n);
}

}  // namespace cuda
}  // namespace match
