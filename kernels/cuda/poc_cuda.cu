/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA backend of POC-HS: device buffers, cuFFT plans and the per-frame
 * sequence (kernels in poc_kernels.cu, definitions in ref/poc_ref.cpp).
 *
 * Per frame, on one stream:
 *   host: luma -> pinned staging (threads for large frames)
 *   H2D staging -> raw ; prepare raw -> layer 0 of slot[cur] ; reduce into
 *   the coarser layers (built on the GPU) ; then, with a previous frame, for
 *   each chunk of blocks:
 *     for l = L .. 0:  gather f and g (2 x chunk windows) ; R2C (one plan
 *                      execution, batch 2 x chunk) ; cross spectrum ;
 *                      C2R (batch chunk) ; peak + centre update
 *     re-centring:     gather g ; R2C (batch chunk, the F spectra are kept) ;
 *                      cross ; C2R ; peak
 *   finish (sub-pixel fit) -> vectors ; D2H into pinned results ; event.
 * process() then waits on that event only (no device-wide synchronisation)
 * and copies the vectors out.
 *
 * Memory: everything is sized in configure() (per geometry), nothing per
 * frame. A chunk is all blocks of the frame, so each transform is one plan
 * execution over every window of the frame, unless the buffers for all
 * blocks would exceed the budget (1/4 of the GPU's free memory, at most
 * 4 GiB): then blocks run in equal chunks (4K frames with 256-pixel windows
 * on a 16-pixel grid need ~34 GB at once). MATCH_POC_CHUNK=<blocks> forces
 * a chunk size (benchmarks).
 *
 * The C2R output (the POC surfaces) reuses the f windows' memory: by then
 * they have been transformed, and only their spectra are needed again (for
 * the re-centring POC).
 */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cufft_loader.h"
#include "internal.h"
#include "match/log.h"
#include "match/poc.h"
#include "poc_kernels.cuh"

namespace match {

namespace ref {
namespace poc_detail {
int lowpass_k(int n, double lowpass); /* ref/poc_ref.cpp */
}  // namespace poc_detail
}  // namespace ref

namespace cuda {
namespace {

#define CUFFT_TRY(expr)                                                    \
  do {                                                                     \
    cufftResult r_ = (expr);                                               \
    if (r_ != CUFFT_SUCCESS)                                               \
      return Status(r_ == CUFFT_ALLOC_FAILED ? StatusCode::kOutOfMemory    \
                                             : StatusCode::kDeviceError,   \
                    std::string("cuFFT: ") + #expr + " failed: " +         \
                        cufft_result_name(r_));                            \
  } while (0)

/* A cuFFT plan that releases itself. */
class Plan {
 public:
  ~Plan() { release(); }
  void release() {
    if (api_ && valid_) api_->destroy(handle_);
    valid_ = false;
  }
  /* 2-D n x n transforms, `batch` of them, contiguous default layouts. */
  Status make(const CufftApi* api, int n, int batch, cufftType type,
              size_t* work) {
    release();
    api_ = api;
    CUFFT_TRY(api->create(&handle_));
    valid_ = true;
    CUFFT_TRY(api->set_auto_allocation(handle_, 0));
    int dims[2] = {n, n};
    CUFFT_TRY(api->make_plan_many(handle_, 2, dims, nullptr, 1, 0, nullptr, 1,
                                  0, type, batch, work));
    return Status::ok();
  }
  cufftHandle handle() const { return handle_; }

 private:
  const CufftApi* api_ = nullptr;
  cufftHandle handle_ = 0;
  bool valid_ = false;
};

class CudaPocMatcher final : public PocMatcher {
 public:
  CudaPocMatcher(const CufftApi* api, int device) : api_(api), device_(device) {}

  ~CudaPocMatcher() override {
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_);
    plans_[0].release();
    plans_[1].release();
    plans_[2].release();
    for (cudaEvent_t e : {done_, k0_, k1_})
      if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status init(const PocConfig& config) {
    CUDA_TRY(cudaSetDevice(device_));
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
    CUDA_TRY(cudaEventCreate(&k0_));
    CUDA_TRY(cudaEventCreate(&k1_));
    Status st = configure(config);
    if (!st) return st;
    log(LogLevel::kInfo,
        "CUDA POC matcher %dx%d, window %d, spacing %d, %d coarser layers, "
        "%d block(s) per chunk of %d, on %s",
        config.width, config.height, config.window_size, config.spacing,
        config.layers, chunk_, config.num_blocks(), description().c_str());
    return Status::ok();
  }

  Backend backend() const override { return Backend::kCuda; }
  std::string description() const override {
    return "cuda:" + std::to_string(device_) + " (" + name_ + ")";
  }

  Status process(const ImageView& luma, const PocRuntime& rt, PocVector* out,
                 bool* estimated) override {
    if (luma.width != config_.width || luma.height != config_.height ||
        !luma.data || !out)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
    CUDA_TRY(cudaSetDevice(device_));
    const int w = config_.width, h = config_.height;
    /* The previous process() waited for its results, so staging is free. */
    uint8_t* stage = static_cast<uint8_t*>(staging_.p);
    MATCH_OMP(parallel for schedule(static) if (size_t(w) * h >= (1u << 20)))
    for (int y = 0; y < h; ++y)
      std::memcpy(stage + static_cast<size_t>(y) * w, luma.row(y), w);
    CUDA_TRY(cudaMemcpy2DAsync(raw_.p, raw_pitch_, stage, w, w, h,
                               cudaMemcpyHostToDevice, stream_));
    CUDA_TRY(cudaEventRecord(k0_, stream_));
    CUDA_TRY(launch_poc_prepare(raw_.as<uint8_t>(), raw_pitch_, w, h,
                                layer_ptr(cur_, 0), stream_));
    Status st = build_coarser(cur_);
    if (!st) return st;
    const bool have_prev = slot_valid_[cur_ ^ 1];
    slot_valid_[cur_] = true;
    if (have_prev) {
      const bool fwd = config_.direction == Direction::kForward;
      const int si = fwd ? cur_ ^ 1 : cur_, sj = fwd ? cur_ : cur_ ^ 1;
      if (!(st = estimate(si, sj, rt))) return st;
      CUDA_TRY(cudaEventRecord(k1_, stream_));
      CUDA_TRY(cudaMemcpyAsync(results_.p, out_.p,
                               sizeof(PocVector) * config_.num_blocks(),
                               cudaMemcpyDeviceToHost, stream_));
    }
    CUDA_TRY(cudaEventRecord(done_, stream_));
    CUDA_TRY(cudaEventSynchronize(done_));
    cur_ ^= 1;
    if (have_prev) {
      std::memcpy(out, results_.p, sizeof(PocVector) * config_.num_blocks());
      float ms = -1.f;
      if (cudaEventElapsedTime(&ms, k0_, k1_) == cudaSuccess)
        stats_.kernel_ms = ms;
    } else {
      std::fill(out, out + config_.num_blocks(), PocVector{});
    }
    if (estimated) *estimated = have_prev;
    return Status::ok();
  }

  Status reconfigure(const PocConfig& config) override {
    Status st = config.validate();
    if (!st) return st;
    if (config.width != config_.width || config.height != config_.height)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure cannot change the frame size");
    CUDA_TRY(cudaSetDevice(device_));
    CUDA_TRY(cudaStreamSynchronize(stream_));
    if (!(st = configure(config))) return st;
    /* The previous frame's layer 0 is kept (slots never shrink below three
     * coarser layers); rebuild its coarser layers for the new count. */
    if (slot_valid_[cur_ ^ 1]) {
      if (!(st = build_coarser(cur_ ^ 1))) return st;
      CUDA_TRY(cudaStreamSynchronize(stream_));
    }
    return Status::ok();
  }

  void reset() override { slot_valid_[0] = slot_valid_[1] = false; }

  MatcherStats stats() const override { return stats_; }

 private:
  /* Layer sizes: floor halving, as in the reference. */
  int lw(int l) const { return config_.width >> l; }
  int lh(int l) const { return config_.height >> l; }
  float* layer_ptr(int slot, int l) const {
    return slots_[slot].as<float>() + layer_off_[l];
  }
  LayerView layer_view(int slot, int l) const {
    return LayerView{layer_ptr(slot, l), lw(l), lh(l)};
  }

  Status build_coarser(int slot) {
    for (int l = 1; l <= config_.layers; ++l)
      CUDA_TRY(launch_poc_reduce(layer_view(slot, l - 1), layer_ptr(slot, l),
                                 lw(l), lh(l), stream_));
    return Status::ok();
  }

  Status configure(const PocConfig& config) {
    const bool same_geometry = chunk_ > 0 &&
                               config.width == config_.width &&
                               config.height == config_.height &&
                               config.window_size == config_.window_size &&
                               config.spacing == config_.spacing;
    config_ = config;
    const int n = config.window_size;
    const int nb = config.num_blocks();
    geom_.width = config.width;
    geom_.height = config.height;
    geom_.cols = config.columns();
    geom_.spacing = config.spacing;
    geom_.n = n;
    geom_.k = ref::poc_detail::lowpass_k(n, config.lowpass);
    alpha_unit_ = (2.0 * geom_.k + 1) * (2.0 * geom_.k + 1) / (double(n) * n);

    /* Window function, computed as the CPU backend does. */
    std::vector<float> w1d(n, 1.f);
    if (config.window == PocWindow::kHann)
      for (int i = 0; i < n; ++i)
        w1d[i] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * M_PI * i / n));
    Status st = win1d_.ensure(device_, sizeof(float) * 256);
    if (!st) return st;
    /* Everything here is ordered on stream_ (a non-blocking stream does not
     * wait for the legacy default stream's cudaMemset/cudaMemcpy), and
     * configure() ends by waiting for it. */
    CUDA_TRY(cudaMemcpyAsync(win1d_.p, w1d.data(), sizeof(float) * n,
                             cudaMemcpyHostToDevice, stream_));
    if (same_geometry) {
      CUDA_TRY(cudaStreamSynchronize(stream_));
      return Status::ok();
    }

    if (chunk_ == 0) {
      /* First configure (the frame size never changes afterwards): raw
       * upload and two slots holding layers 0..3, so that reconfigure()
       * keeps the previous frame whatever the new layer count. */
      raw_pitch_ = (config.width + 127) / 128 * 128;
      if (!(st = raw_.ensure(device_, size_t(raw_pitch_) * config.height)))
        return st;
      size_t off = 0;
      for (int l = 0; l <= 3; ++l) {
        layer_off_[l] = off;
        off += (size_t(lw(l)) * lh(l) + 63) / 64 * 64;
      }
      for (int s = 0; s < 2; ++s) {
        if (!(st = slots_[s].ensure(device_, off * sizeof(float)))) return st;
        CUDA_TRY(cudaMemsetAsync(slots_[s].p, 0, slots_[s].size, stream_));
      }
      if (!(st = staging_.ensure(size_t(config.width) * config.height)))
        return st;
    }
    if (!(st = results_.ensure(sizeof(PocVector) * nb))) return st;
    if (!(st = out_.ensure(device_, sizeof(PocVector) * nb))) return st;
    if (!(st = centre_.ensure(device_, sizeof(int2) * nb))) return st;
    if (!(st = done_flags_.ensure(device_, nb))) return st;
    if (!(st = rec_.ensure(device_, sizeof(PeakRecord) * nb))) return st;

    /* Chunk: all blocks unless over budget (see the top comment). */
    const size_t nn = size_t(n) * n, half = size_t(n) * (n / 2 + 1);
    const size_t per_block = 2 * nn * sizeof(float) + 2 * half * sizeof(float2);
    size_t free_b = 0, total_b = 0;
    CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
    /* x2: cuFFT's work area is at most about the data's size. */
    const size_t budget = std::min<size_t>(free_b / 4, size_t(4) << 30);
    int chunk = static_cast<int>(
        std::max<size_t>(1, std::min<size_t>(nb, budget / (2 * per_block))));
    if (const char* e = std::getenv("MATCH_POC_CHUNK")) {
      const int forced = std::atoi(e);
      if (forced > 0) chunk = std::min(forced, nb);
    }
    if (chunk < nb) {
      /* Equal chunks: no nearly empty last execution. */
      const int pieces = (nb + chunk - 1) / chunk;
      chunk = (nb + pieces - 1) / pieces;
    }
    chunk_ = chunk;
    size_t work[3] = {0, 0, 0};
    if (!(st = plans_[0].make(api_, n, 2 * chunk, CUFFT_R2C, &work[0])))
      return st;
    if (!(st = plans_[1].make(api_, n, chunk, CUFFT_R2C, &work[1]))) return st;
    if (!(st = plans_[2].make(api_, n, chunk, CUFFT_C2R, &work[2]))) return st;
    const size_t wmax = std::max({work[0], work[1], work[2], size_t(256)});
    if (!(st = work_.ensure(device_, wmax))) return st;
    if (!(st = win_.ensure(device_, 2 * chunk * nn * sizeof(float)))) return st;
    if (!(st = spec_.ensure(device_, 2 * chunk * half * sizeof(float2))))
      return st;
    for (int i = 0; i < 3; ++i) {
      CUFFT_TRY(api_->set_work_area(plans_[i].handle(), work_.p));
      CUFFT_TRY(api_->set_stream(plans_[i].handle(), stream_));
    }
    /* Defined contents everywhere: the last chunk may be partial and its
     * transforms then read windows left from the previous chunk, which must
     * at least be initialised memory. */
    CUDA_TRY(cudaMemsetAsync(win_.p, 0, win_.size, stream_));
    CUDA_TRY(cudaMemsetAsync(spec_.p, 0, spec_.size, stream_));
    CUDA_TRY(cudaMemsetAsync(done_flags_.p, 0, done_flags_.size, stream_));
    CUDA_TRY(cudaStreamSynchronize(stream_));
    log(LogLevel::kDebug,
        "cuda:%d POC buffers: %d blocks per chunk, %.1f MiB windows, %.1f MiB "
        "spectra, %.1f MiB cuFFT work",
        device_, chunk, win_.size / 1048576.0, spec_.size / 1048576.0,
        wmax / 1048576.0);
    return Status::ok();
  }

  Status estimate(int si, int sj, const PocRuntime& rt) {
    const int n = config_.window_size, L = config_.layers;
    const int nb = config_.num_blocks();
    const size_t nn = size_t(n) * n, half = size_t(n) * (n / 2 + 1);
    float* win_f = win_.as<float>();
    float* win_g = win_f + size_t(chunk_) * nn;
    float2* spec_f = spec_.as<float2>();
    float2* spec_g = spec_f + size_t(chunk_) * half;
    float* surf = win_f; /* see the top comment */
    int2* centre = centre_.as<int2>();
    uint8_t* done = done_flags_.as<uint8_t>();
    PeakRecord* rec = rec_.as<PeakRecord>();
    const float* w1d = win1d_.as<float>();
    for (int b0 = 0; b0 < nb; b0 += chunk_) {
      const int cnt = std::min(chunk_, nb - b0);
      for (int l = L; l >= 0; --l) {
        const LayerView I = layer_view(si, l), J = layer_view(sj, l);
        CUDA_TRY(launch_poc_gather(I, J, geom_, l, b0, cnt, l == L, centre,
                                   done, false, w1d, win_f, win_g, stream_));
        CUFFT_TRY(api_->exec_r2c(plans_[0].handle(), win_f,
                                 reinterpret_cast<cufftComplex*>(spec_f)));
        CUDA_TRY(launch_poc_cross(spec_f, spec_g, cnt, geom_, stream_));
        CUFFT_TRY(api_->exec_c2r(plans_[2].handle(),
                                 reinterpret_cast<cufftComplex*>(spec_g), surf));
        CUDA_TRY(launch_poc_peak(surf, b0, cnt, geom_, l,
                                 l > 0 ? PeakMode::kCoarse : PeakMode::kFirst0,
                                 l == L, centre, done, rec, stream_));
      }
      /* Re-centring (ref/poc_ref.cpp): g again at the moved centre for the
       * blocks whose layer-0 peak was not at 0; F is still in spec_f. */
      const LayerView I0 = layer_view(si, 0), J0 = layer_view(sj, 0);
      CUDA_TRY(launch_poc_gather(I0, J0, geom_, 0, b0, cnt, false, centre, done,
                                 true, w1d, nullptr, win_g, stream_));
      CUFFT_TRY(api_->exec_r2c(plans_[1].handle(), win_g,
                               reinterpret_cast<cufftComplex*>(spec_g)));
      CUDA_TRY(launch_poc_cross(spec_f, spec_g, cnt, geom_, stream_));
      CUFFT_TRY(api_->exec_c2r(plans_[2].handle(),
                               reinterpret_cast<cufftComplex*>(spec_g), surf));
      CUDA_TRY(launch_poc_peak(surf, b0, cnt, geom_, 0, PeakMode::kRecentre,
                               false, centre, done, rec, stream_));
    }
    CUDA_TRY(launch_poc_finish(rec, centre, nb, geom_, alpha_unit_,
                               static_cast<float>(rt.min_confidence),
                               out_.as<PocVector>(), stream_));
    return Status::ok();
  }

  const CufftApi* api_;
  int device_;
  std::string name_;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t done_ = nullptr, k0_ = nullptr, k1_ = nullptr;
  PocGeometry geom_;
  double alpha_unit_ = 1.0;
  int chunk_ = 0;
  int raw_pitch_ = 0;
  size_t layer_off_[4] = {0, 0, 0, 0};
  DeviceBuffer raw_, slots_[2], win_, spec_, work_, win1d_, out_, centre_,
      done_flags_, rec_;
  HostBuffer staging_, results_;
  Plan plans_[3]; /* R2C x 2 chunk, R2C x chunk, C2R x chunk */
  int cur_ = 0;
  bool slot_valid_[2] = {false, false};
  MatcherStats stats_;
};

}  // namespace

Status create_poc_matcher(const PocConfig& config, const DeviceOptions& devices,
                          std::unique_ptr<PocMatcher>* out) {
  Status st = config.validate();
  if (!st) return st;
  const int count = device_count();
  if (count == 0)
    return Status(StatusCode::kUnavailable,
                  "no CUDA device (no GPU, no NVIDIA driver, or the driver is "
                  "too old for CUDA " +
                      std::to_string(CUDART_VERSION / 1000) + ")");
  const int dev = devices.devices.empty() ? 0 : devices.devices[0];
  if (dev < 0 || dev >= count)
    return Status(StatusCode::kUnavailable,
                  "CUDA device " + std::to_string(dev) + " does not exist (" +
                      std::to_string(count) + " device(s) found)");
  if (devices.devices.size() > 1)
    log(LogLevel::kInfo, "POC runs on one GPU: using cuda:%d of the %zu listed",
        dev, devices.devices.size());
  std::string why;
  const CufftApi* api = cufft_api(&why);
  if (!api) return Status(StatusCode::kUnavailable, why);
  std::unique_ptr<CudaPocMatcher> m(new CudaPocMatcher(api, dev));
  if (!(st = m->init(config))) return st;
  out->reset(m.release());
  return Status::ok();
}

}  // namespace cuda
}  // namespace match
