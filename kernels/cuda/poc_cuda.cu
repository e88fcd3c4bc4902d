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
 *   finish (sub-pixel fit) -> vectors ; poc_finish on the GPU (candidate
 *   passes, median, flags: poc_finish.cu) ; D2H into pinned results ; event.
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
 *
 * The sequence of one estimate (and of the layer reduction) is written once,
 * as templates over an executor (poc_sequence.cuh): CudaExec, here,
 * launches the kernels and runs the cuFFT plans; the test-only EmuExec
 * (kernels/testing/poc_emulation_cuda.cu) runs the kernels' host emulation
 * (poc_kernels.cu) and a host FFT with cuFFT's R2C/C2R layouts, so the
 * GPU-free tests check this sequence too, not only the kernels.
 *
 * Shared coarse layers (PocCoarse): each coarser layer is a pass over its
 * own grid, and a small predict kernel turns its results into the next
 * layer's centres (poc_sequence.cuh, shared_coarse).
 */
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cuda_check.h"
#include "cufft_loader.h"
#include "internal.h"
#include "match/log.h"
#include "match/poc.h"
#include "poc_kernels.cuh"
#include "poc_sequence.cuh"

namespace match {

namespace cuda {
namespace {

#define CUFFT_TRY(expr)                                                          \
  do {                                                                           \
    cufftResult r_ = (expr);                                                     \
    if (r_ != CUFFT_SUCCESS)                                                     \
      return Status(                                                             \
          r_ == CUFFT_ALLOC_FAILED ? StatusCode::kOutOfMemory                    \
                                   : StatusCode::kDeviceError,                   \
          std::string("cuFFT: ") + #expr + " failed: " + cufft_result_name(r_)); \
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
  Status make(const CufftApi* api, int n, int batch, cufftType type, size_t* work) {
    release();
    api_ = api;
    CUFFT_TRY(api->create(&handle_));
    valid_ = true;
    CUFFT_TRY(api->set_auto_allocation(handle_, 0));
    int dims[2] = {n, n};
    CUFFT_TRY(api->make_plan_many(handle_, 2, dims, nullptr, 1, 0, nullptr, 1, 0, type,
                                  batch, work));
    return Status::ok();
  }
  cufftHandle handle() const { return handle_; }

 private:
  const CufftApi* api_ = nullptr;
  cufftHandle handle_ = 0;
  bool valid_ = false;
};

/* The GPU: kernels and cuFFT plans (R2C x 2 chunk, R2C x chunk, C2R x
 * chunk) on one stream. */
struct CudaExec {
  const CufftApi* api;
  cufftHandle plan[3];
  cudaStream_t stream;

  Status integrate(LayerView L, int layer, uint32_t* sat) {
    CUDA_TRY(launch_poc_integrate(L, layer, sat, stream));
    return Status::ok();
  }
  Status reduce(LayerView src, float* dst, int dw, int dh) {
    CUDA_TRY(launch_poc_reduce(src, dst, dw, dh, stream));
    return Status::ok();
  }
  Status gather(const LayerView& I, const LayerView& J, const PocGeometry& g, int layer,
                int b0, int count, bool g_at_point, const int2* centre,
                const uint8_t* done, bool skip_done, const float* w1d, float* out_f,
                float* out_g) {
    CUDA_TRY(launch_poc_gather(I, J, g, layer, b0, count, g_at_point, centre, done,
                               skip_done, w1d, out_f, out_g, stream));
    return Status::ok();
  }
  Status r2c_pair(float* in, float2* out) {
    CUFFT_TRY(api->exec_r2c(plan[0], in, reinterpret_cast<cufftComplex*>(out)));
    return Status::ok();
  }
  Status r2c_g(float* in, float2* out) {
    CUFFT_TRY(api->exec_r2c(plan[1], in, reinterpret_cast<cufftComplex*>(out)));
    return Status::ok();
  }
  Status c2r(float2* in, float* out) {
    CUFFT_TRY(api->exec_c2r(plan[2], reinterpret_cast<cufftComplex*>(in), out));
    return Status::ok();
  }
  Status cross(const float2* F, const float2* G, float2* R, int count,
               const PocGeometry& g) {
    CUDA_TRY(launch_poc_cross(F, G, R, count, g, stream));
    return Status::ok();
  }
  Status peak(const float* surf, int b0, int count, const PocGeometry& g, int layer,
              PeakMode mode, bool from_point, int2* centre, uint8_t* done,
              PeakRecord* rec) {
    CUDA_TRY(launch_poc_peak(surf, b0, count, g, layer, mode, from_point, centre, done,
                             rec, stream));
    return Status::ok();
  }
  Status fused(const LayerView& I, const LayerView& J, const PocGeometry& g, int layer,
               PeakMode mode, bool from_point, int nb, const PocBuffers& buf,
               const float2* tw) {
    CUDA_TRY(launch_poc_fused(I, J, g, layer, mode, from_point, nb, buf.centre, buf.done,
                              buf.rec, buf.w1d, tw, stream));
    return Status::ok();
  }
  Status tiled(const LayerView& I, const LayerView& J, const PocGeometry& g, int layer,
               PeakMode mode, bool from_point, int b0, int count, const PocBuffers& buf,
               const float2* tw) {
    CUDA_TRY(launch_poc_tiled(I, J, g, layer, mode, from_point, b0, count, buf.centre,
                              buf.done, buf.rec, buf.w1d, tw, buf.tz, buf.means, buf.best,
                              stream));
    return Status::ok();
  }
  Status predict(const PocGeometry& coarse, const int2* coarse_centre,
                 const PocGeometry& fine, int count, bool median, int2* out) {
    CUDA_TRY(launch_poc_predict(coarse, coarse_centre, fine, count, median, out, stream));
    return Status::ok();
  }
  Status finish(const PeakRecord* rec, const int2* centre, int nb, const PocGeometry& g,
                double alpha_unit, float min_confidence, PocVector* out) {
    CUDA_TRY(
        launch_poc_finish(rec, centre, nb, g, alpha_unit, min_confidence, out, stream));
    return Status::ok();
  }
};

class CudaPocMatcher final : public PocMatcher {
 public:
  CudaPocMatcher(const CufftApi* api, int device) : api_(api), device_(device) {}

  ~CudaPocMatcher() override {
    cudaSetDevice(device_);
    if (copy_) cudaStreamSynchronize(copy_);
    if (stream_) cudaStreamSynchronize(stream_);
    drop_graphs();
    plans_[0].release();
    plans_[1].release();
    plans_[2].release();
    for (int i = 0; i < kRing; ++i)
      for (cudaEvent_t e : {h2d_[i], prep_[i], done_[i], k0_[i], k1_[i]})
        if (e) cudaEventDestroy(e);
    if (copy_) cudaStreamDestroy(copy_);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status init(const PocConfig& config) {
    CUDA_TRY(cudaSetDevice(device_));
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    for (int i = 0; i < kRing; ++i) {
      CUDA_TRY(cudaEventCreateWithFlags(&h2d_[i], cudaEventDisableTiming));
      CUDA_TRY(cudaEventCreateWithFlags(&prep_[i], cudaEventDisableTiming));
      CUDA_TRY(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));
      CUDA_TRY(cudaEventCreate(&k0_[i]));
      CUDA_TRY(cudaEventCreate(&k1_[i]));
    }
    if (const char* e = std::getenv("MATCH_POC_GRAPH")) use_graph_ = std::atoi(e) != 0;
    Status st = configure(config);
    if (!st) return st;
    log(LogLevel::kInfo,
        "CUDA POC matcher %dx%d, window %d, spacing %d, %d coarser layers, "
        "%d block(s) per chunk of %d, on %s",
        config.width, config.height, config.window_size, config.spacing, config.layers,
        chunk_, config.num_blocks(), description().c_str());
    return Status::ok();
  }

  Backend backend() const override { return Backend::kCuda; }
  std::string description() const override {
    return "cuda:" + std::to_string(device_) + " (" + name_ + ")";
  }

  int max_in_flight() const override { return kRing; }

  Status process(const ImageView& luma, const PocRuntime& rt, PocVector* out,
                 bool* estimated) override {
    if (in_flight() > 0)
      return Status(StatusCode::kInvalidArgument,
                    "process() with frames in flight: collect() them first");
    if (!out) return Status(StatusCode::kInvalidArgument, "no output array");
    Status st = submit(luma, rt);
    if (!st) return st;
    return collect(out, estimated);
  }

  /* Queues the frame and returns: the copy into pinned staging[i] is the
   * only host work; upload (copy stream), preparation, POC, finish and the
   * vectors' download (compute stream) run while the caller goes on, so
   * frame n + 1's upload overlaps frame n's search. */
  Status submit(const ImageView& luma, const PocRuntime& rt) override {
    if (luma.width != config_.width || luma.height != config_.height || !luma.data)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
    if (in_flight() >= kRing)
      return Status(StatusCode::kInvalidArgument,
                    "too many frames in flight: collect() first");
    CUDA_TRY(cudaSetDevice(device_));
    const int w = config_.width, h = config_.height;
    const int i = static_cast<int>(frame_ % kRing);
    /* staging[i] is free: frame n - kRing was collected (its done event
     * follows its upload) or dropped by reset() (which synchronises). */
    uint8_t* stage = static_cast<uint8_t*>(staging_.p) + size_t(w) * h * i;
    const int team = host_copy_threads(rt.threads);
    MATCH_OMP(parallel for schedule(static) num_threads(team)
              if (team > 1 && size_t(w) * h >= (1u << 20)))
    for (int y = 0; y < h; ++y)
      std::memcpy(stage + static_cast<size_t>(y) * w, luma.row(y), w);
    if (prep_used_[i]) CUDA_TRY(cudaStreamWaitEvent(copy_, prep_[i], 0));
    CUDA_TRY(cudaMemcpy2DAsync(raw_slot(i), raw_pitch_, stage, w, w, h,
                               cudaMemcpyHostToDevice, copy_));
    Status st = enqueue(i, rt);
    if (!st) sync_all();
    return st;
  }

  /* Zero copy from a GPU producer: the frame goes into raw[i] with one
   * device-to-device copy (a peer copy from another GPU) on the copy
   * stream, then as submit(). Only that copy is waited for before
   * returning (the caller releases its memory afterwards), not the
   * search. */
  Status submit_device(const DeviceImageView& luma, const PocRuntime& rt) override {
    if (luma.width != config_.width || luma.height != config_.height || !luma.data ||
        luma.pitch_bytes < luma.width)
      return Status(StatusCode::kInvalidArgument,
                    "device frame does not match the configured size");
    if (luma.device < 0 || luma.device >= device_count())
      return Status(StatusCode::kUnsupported, "frame on CUDA device " +
                                                  std::to_string(luma.device) +
                                                  ", which this process cannot use");
    if (in_flight() >= kRing)
      return Status(StatusCode::kInvalidArgument,
                    "too many frames in flight: collect() first");
    CUDA_TRY(cudaSetDevice(device_));
    const int w = config_.width, h = config_.height;
    const int i = static_cast<int>(frame_ % kRing);
    if (prep_used_[i]) CUDA_TRY(cudaStreamWaitEvent(copy_, prep_[i], 0));
    if (luma.device == device_) {
      CUDA_TRY(cudaMemcpy2DAsync(raw_slot(i), raw_pitch_, luma.data, luma.pitch_bytes, w,
                                 h, cudaMemcpyDeviceToDevice, copy_));
    } else {
      cudaMemcpy3DPeerParms p = {};
      p.srcPtr =
          make_cudaPitchedPtr(const_cast<uint8_t*>(luma.data), luma.pitch_bytes, w, h);
      p.srcDevice = luma.device;
      p.dstPtr = make_cudaPitchedPtr(raw_slot(i), raw_pitch_, w, h);
      p.dstDevice = device_;
      p.extent = make_cudaExtent(w, h, 1);
      CUDA_TRY(cudaMemcpy3DPeerAsync(&p, copy_));
    }
    Status st = enqueue(i, rt);
    if (st) {
      cudaError_t e = cudaEventSynchronize(h2d_[i]);
      if (e != cudaSuccess) st = cuda_status(e, "cudaEventSynchronize(h2d)");
    }
    /* After an error the copy must not outlive the caller's memory. */
    if (!st) sync_all();
    return st;
  }

  Status collect(PocVector* out, bool* estimated) override {
    if (in_flight() == 0)
      return Status(StatusCode::kInvalidArgument, "no frame in flight");
    if (!out) return Status(StatusCode::kInvalidArgument, "no output array");
    CUDA_TRY(cudaSetDevice(device_));
    const int i = static_cast<int>((frame_ - in_flight()) % kRing);
    CUDA_TRY(cudaEventSynchronize(done_[i]));
    pending_.pop();
    collected_ = frame_ - in_flight() - 1;
    const int nb = config_.num_blocks();
    if (estimated_[i]) {
      std::memcpy(out, results_slot(i), sizeof(PocVector) * nb);
      float ms = -1.f;
      if (cudaEventElapsedTime(&ms, k0_[i], k1_[i]) == cudaSuccess) stats_.kernel_ms = ms;
    } else {
      std::fill(out, out + nb, PocVector{});
    }
    if (estimated) *estimated = estimated_[i];
    return Status::ok();
  }

  /* raw[i] holds the collected frame n until the upload of frame
   * n + kRing, which no submit() has queued yet if frame_ <= n + kRing. */
  bool collected_frame(int device, DeviceImageView* out) override {
    const long long n = collected_;
    if (n < 0 || frame_ > n + kRing || device != device_) return false;
    const int i = static_cast<int>(n % kRing);
    if (cudaSetDevice(device_) != cudaSuccess ||
        cudaEventSynchronize(h2d_[i]) != cudaSuccess)
      return false;
    *out =
        DeviceImageView{raw_slot(i), config_.width, config_.height, raw_pitch_, device_};
    return true;
  }

 private:
  uint8_t* raw_slot(int i) const {
    return raw_.as<uint8_t>() + size_t(raw_pitch_) * config_.height * i;
  }
  PocVector* results_slot(int i) const {
    return static_cast<PocVector*>(results_.p) + size_t(config_.num_blocks()) * i;
  }

  /* Waits for everything queued (errors, reset). */
  void sync_all() {
    cudaSetDevice(device_);
    cudaStreamSynchronize(copy_);
    cudaStreamSynchronize(stream_);
  }

  /* The rest of submit() once the frame's copy into raw[i] is queued on the
   * copy stream: the compute stream waits for it, prepares the frame into
   * slot cur_, estimates against the other slot, runs poc_finish and
   * downloads the vectors into results[i]; done[i] marks the end. */
  Status enqueue(int i, const PocRuntime& rt) {
    const int w = config_.width, h = config_.height;
    CUDA_TRY(cudaEventRecord(h2d_[i], copy_));
    CUDA_TRY(cudaStreamWaitEvent(stream_, h2d_[i], 0));
    CUDA_TRY(cudaEventRecord(k0_[i], stream_));
    /* A forward field's vote reads the frame before the earlier one, which
     * slot cur_ holds until the new frame is prepared into it. */
    before_valid_ = false;
    if (config_.direction == Direction::kForward && config_.robust && slot_valid_[cur_]) {
      const LayerView older = layout_.view(slots_[cur_].as<float>(), 0);
      CUDA_TRY(cudaMemcpyAsync(before_.p, older.px, sizeof(float) * w * h,
                               cudaMemcpyDeviceToDevice, stream_));
      before_valid_ = true;
    }
    CUDA_TRY(launch_poc_prepare(raw_slot(i), raw_pitch_, w, h, slots_[cur_].as<float>(),
                                stream_));
    CUDA_TRY(cudaEventRecord(prep_[i], stream_));
    prep_used_[i] = true;
    cache_valid_[cur_] = false; /* the slot holds a new frame */
    Status st = build_coarser(cur_);
    if (!st) return st;
    const bool have_prev = slot_valid_[cur_ ^ 1];
    slot_valid_[cur_] = true;
    if (have_prev) {
      const bool fwd = config_.direction == Direction::kForward;
      const int si = fwd ? cur_ ^ 1 : cur_, sj = fwd ? cur_ : cur_ ^ 1;
      if (!(st = run_estimate(si, sj, rt.min_confidence))) return st;
      CUDA_TRY(cudaEventRecord(k1_[i], stream_));
      CUDA_TRY(cudaMemcpyAsync(results_slot(i), final_,
                               sizeof(PocVector) * config_.num_blocks(),
                               cudaMemcpyDeviceToHost, stream_));
    }
    CUDA_TRY(cudaEventRecord(done_[i], stream_));
    cur_ ^= 1;
    estimated_[i] = have_prev;
    ++frame_;
    pending_.push();
    return Status::ok();
  }

 public:
  Status reconfigure(const PocConfig& config) override {
    Status st = config.validate();
    if (!st) return st;
    if (config.width != config_.width || config.height != config_.height)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure cannot change the frame size");
    if (in_flight() > 0)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure with frames in flight: collect() them first");
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

  void reset() override {
    /* Frames in flight are dropped; their copies and work must end before
     * staging and raw slots are reused. */
    sync_all();
    slot_valid_[0] = slot_valid_[1] = false;
    cache_valid_[0] = cache_valid_[1] = false;
    collected_ = -1;
    drop_pending();
  }

  MatcherStats stats() const override { return stats_; }

 private:
  CudaExec exec() const {
    return CudaExec{
        api_, {plans_[0].handle(), plans_[1].handle(), plans_[2].handle()}, stream_};
  }

  Status build_coarser(int slot) {
    CudaExec x = exec();
    return reduce_layers(x, layout_, slots_[slot].as<float>(), config_.layers,
                         path_ == PocCudaPath::kTiled);
  }

  Status configure(const PocConfig& config) {
    drop_graphs(); /* they hold this configuration's values and pointers */
    /* Window, size or layer count may change what the kept spectra are. */
    cache_valid_[0] = cache_valid_[1] = false;
    const bool same_geometry =
        chunk_ > 0 && config.width == config_.width && config.height == config_.height &&
        config.window_size == config_.window_size && config.spacing == config_.spacing;
    config_ = config;
    const int n = config.window_size;
    const int nb = config.num_blocks();
    geom_ = make_geometry(config);
    alpha_unit_ = alpha_unit_of(geom_);
    const std::vector<float> w1d = window_1d(config);
    Status st = win1d_.ensure(device_, sizeof(float) * 256);
    if (!st) return st;
    /* Everything here is ordered on stream_ (a non-blocking stream does not
     * wait for the legacy default stream's cudaMemset/cudaMemcpy), and
     * configure() ends by waiting for it. */
    CUDA_TRY(cudaMemcpyAsync(win1d_.p, w1d.data(), sizeof(float) * n,
                             cudaMemcpyHostToDevice, stream_));
    /* The vote's frame before, for forward fields only (8 MiB at 1080p). */
    if (config.direction == Direction::kForward && config.robust &&
        !(st = before_.ensure(device_,
                              sizeof(float) * size_t(config.width) * config.height)))
      return st;
    if (same_geometry) {
      CUDA_TRY(cudaStreamSynchronize(stream_));
      return Status::ok();
    }

    if (chunk_ == 0) {
      /* First configure (the frame size never changes afterwards): raw
       * upload and two slots holding layers 0..3, so that reconfigure()
       * keeps the previous frame whatever the new layer count. */
      raw_pitch_ = raw_pitch_of(config.width);
      if (!(st = raw_.ensure(device_, size_t(raw_pitch_) * config.height * kRing)))
        return st;
      layout_.init(config.width, config.height);
      for (int s = 0; s < 2; ++s) {
        if (!(st = slots_[s].ensure(device_, layout_.words * sizeof(float)))) return st;
        CUDA_TRY(cudaMemsetAsync(slots_[s].p, 0, slots_[s].size, stream_));
      }
      if (!(st = staging_.ensure(size_t(config.width) * config.height * kRing)))
        return st;
    }
    if (!(st = results_.ensure(sizeof(PocVector) * nb * kRing))) return st;
    if (!(st = out_.ensure(device_, sizeof(PocVector) * nb))) return st;
    if (!(st = fin_.ensure(device_, sizeof(PocVector) * nb))) return st;
    if (!(st = vote_list_.ensure(device_, sizeof(int) * (nb + 1)))) return st;
    if (!(st = centre_.ensure(device_, sizeof(int2) * nb))) return st;
    if (!(st = coarse_.ensure(device_, 2 * sizeof(int2) * nb))) return st;
    if (!(st = done_flags_.ensure(device_, nb))) return st;
    if (!(st = rec_.ensure(device_, sizeof(PeakRecord) * nb))) return st;

    path_ = resolve_path(n, PocCudaPath::kAuto);
    if (path_ == PocCudaPath::kTiled) {
      /* z for a chunk of blocks (the cuFFT path's budget), means and keys
       * per block: see poc_tiled.cu. */
      const std::vector<float2> tw = poc_fused_twiddles(n);
      if (!(st = tw_.ensure(device_, sizeof(float2) * tw.size()))) return st;
      CUDA_TRY(cudaMemcpyAsync(tw_.p, tw.data(), sizeof(float2) * tw.size(),
                               cudaMemcpyHostToDevice, stream_));
      CUDA_TRY(poc_tiled_prepare(n));
      size_t free_b = 0, total_b = 0;
      CUDA_TRY(cudaMemGetInfo(&free_b, &total_b));
      const size_t budget = std::min<size_t>(free_b / 4, size_t(4) << 30);
      const size_t per_block = size_t(n) * n * sizeof(float2);
      int chunk =
          static_cast<int>(std::max<size_t>(1, std::min<size_t>(nb, budget / per_block)));
      if (const char* e = std::getenv("MATCH_POC_CHUNK")) {
        const int forced = std::atoi(e);
        if (forced > 0) chunk = std::min(forced, nb);
      }
      chunk_ = equal_chunk(nb, chunk);
      if (!(st = tz_.ensure(device_, size_t(chunk_) * per_block))) return st;
      if (!(st = means_.ensure(device_, sizeof(float2) * nb))) return st;
      if (!(st = best_.ensure(device_, sizeof(unsigned long long) * nb))) return st;
      use_cache_ = false;
      CUDA_TRY(cudaMemsetAsync(done_flags_.p, 0, done_flags_.size, stream_));
      CUDA_TRY(cudaStreamSynchronize(stream_));
      log(LogLevel::kDebug,
          "cuda:%d POC: tiled path, window %d, %d blocks "
          "per chunk",
          device_, n, chunk_);
      return Status::ok();
    }
    if (path_ == PocCudaPath::kFused) {
      /* No windows, spectra, plans or cache: see poc_fused.cu. */
      const std::vector<float2> tw = poc_fused_twiddles(n);
      if (!(st = tw_.ensure(device_, sizeof(float2) * tw.size()))) return st;
      CUDA_TRY(cudaMemcpyAsync(tw_.p, tw.data(), sizeof(float2) * tw.size(),
                               cudaMemcpyHostToDevice, stream_));
      chunk_ = nb;
      use_cache_ = false;
      CUDA_TRY(cudaMemsetAsync(done_flags_.p, 0, done_flags_.size, stream_));
      CUDA_TRY(cudaStreamSynchronize(stream_));
      log(LogLevel::kDebug, "cuda:%d POC: fused path, window %d", device_, n);
      return Status::ok();
    }
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
    chunk = equal_chunk(nb, chunk);
    chunk_ = chunk;
    size_t work[3] = {0, 0, 0};
    if (!(st = plans_[0].make(api_, n, 2 * chunk, CUFFT_R2C, &work[0]))) return st;
    if (!(st = plans_[1].make(api_, n, chunk, CUFFT_R2C, &work[1]))) return st;
    if (!(st = plans_[2].make(api_, n, chunk, CUFFT_C2R, &work[2]))) return st;
    const size_t wmax = std::max({work[0], work[1], work[2], size_t(256)});
    if (!(st = work_.ensure(device_, wmax))) return st;
    if (!(st = win_.ensure(device_, 2 * chunk * nn * sizeof(float)))) return st;
    if (!(st = spec_.ensure(device_, 2 * chunk * half * sizeof(float2)))) return st;
    for (int i = 0; i < 3; ++i) {
      CUFFT_TRY(api_->set_work_area(plans_[i].handle(), work_.p));
      CUFFT_TRY(api_->set_stream(plans_[i].handle(), stream_));
    }
    /* Defined contents everywhere: the last chunk may be partial and its
     * transforms then read windows left from the previous chunk, which must
     * at least be initialised memory. */
    /* The coarsest-layer spectra of both slots (CoarseCache), unless they
     * would not fit the same budget or the coarse layers are shared (their
     * windows are the coarse grid's); MATCH_POC_CACHE=0 turns them off. */
    const size_t cache_bytes =
        size_t((nb + chunk - 1) / chunk) * chunk * half * sizeof(float2);
    use_cache_ =
        2 * cache_bytes <= budget && !shared_layers(config.coarse, config.layers);
    if (const char* e = std::getenv("MATCH_POC_CACHE"))
      if (std::atoi(e) == 0) use_cache_ = false;
    if (use_cache_)
      for (DeviceBuffer& c : cache_) {
        if (!(st = c.ensure(device_, cache_bytes))) return st;
        CUDA_TRY(cudaMemsetAsync(c.p, 0, c.size, stream_));
      }
    CUDA_TRY(cudaMemsetAsync(win_.p, 0, win_.size, stream_));
    CUDA_TRY(cudaMemsetAsync(spec_.p, 0, spec_.size, stream_));
    CUDA_TRY(cudaMemsetAsync(done_flags_.p, 0, done_flags_.size, stream_));
    CUDA_TRY(cudaStreamSynchronize(stream_));
    log(LogLevel::kDebug,
        "cuda:%d POC buffers: %d blocks per chunk, %.1f MiB windows, %.1f MiB "
        "spectra, %.1f MiB cuFFT work",
        device_, chunk, win_.size / 1048576.0, spec_.size / 1048576.0, wmax / 1048576.0);
    return Status::ok();
  }

  void drop_graphs() {
    for (cudaGraphExec_t& g : graph_) {
      if (g) cudaGraphExecDestroy(g);
      g = nullptr;
    }
  }

  /* estimate() as a CUDA graph, one per slot parity (which slot holds I;
   * J is the other). A frame is 5 launches per layer plus the re-centring
   * and the finish, per chunk, and cuFFT's own kernels: replaying them as
   * one graph removes the CPU cost of each launch, which matters at
   * hundreds of frames per second and when small chunks are tried
   * (MATCH_POC_CHUNK). Captured on first use; dropped by configure()
   * (geometry, low-pass, direction, buffers) and re-captured when
   * min_confidence changes (it is a kernel argument). If capture or
   * instantiation fails, the matcher launches directly from then on.
   * MATCH_POC_GRAPH=0 disables graphs. */
  Status run_estimate(int si, int sj, double min_confidence) {
    /* The graph is the steady state: the new frame's coarsest spectra made,
     * the previous frame's taken from the cache. Without them (first pair
     * after a reset or reconfigure) this frame launches directly. */
    if (!use_graph_ || (use_cache_ && !cache_valid_[cur_ ^ 1]))
      return estimate(si, sj, min_confidence);
    cudaGraphExec_t& exec = graph_[si];
    if (exec &&
        (graph_min_conf_[si] != min_confidence || graph_before_[si] != before_valid_)) {
      cudaGraphExecDestroy(exec);
      exec = nullptr;
    }
    if (!exec) {
      CUDA_TRY(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeThreadLocal));
      Status st = estimate(si, sj, min_confidence);
      cudaGraph_t graph = nullptr;
      cudaError_t e = cudaStreamEndCapture(stream_, &graph);
      if (st && e == cudaSuccess) e = cudaGraphInstantiate(&exec, graph, 0);
      if (graph) cudaGraphDestroy(graph);
      if (!st || e != cudaSuccess) {
        cudaGetLastError(); /* clear a capture error; direct launches report their own */
        exec = nullptr;
        use_graph_ = false;
        log(LogLevel::kInfo, "cuda:%d POC: no CUDA graph (%s); launching directly",
            device_, !st ? st.message().c_str() : cudaGetErrorString(e));
        return estimate(si, sj, min_confidence);
      }
      graph_min_conf_[si] = min_confidence;
      graph_before_[si] = before_valid_;
    }
    CUDA_TRY(cudaGraphLaunch(exec, stream_));
    return Status::ok();
  }

  Status estimate(int si, int sj, double min_confidence) {
    LayerView I[4], J[4];
    for (int l = 0; l <= config_.layers; ++l) {
      I[l] = layout_.view(slots_[si].as<float>(), l);
      J[l] = layout_.view(slots_[sj].as<float>(), l);
    }
    PocBuffers buf;
    buf.win = win_.as<float>();
    buf.spec = spec_.as<float2>();
    buf.centre = centre_.as<int2>();
    buf.coarse = coarse_.as<int2>();
    buf.done = done_flags_.as<uint8_t>();
    buf.rec = rec_.as<PeakRecord>();
    buf.w1d = win1d_.as<float>();
    buf.out = out_.as<PocVector>();
    CudaExec x = exec();
    buf.tz = tz_.as<float2>();
    buf.means = means_.as<float2>();
    buf.best = best_.as<unsigned long long>();
    const float fit_min_conf = static_cast<float>(min_confidence);
    Status st;
    if (path_ == PocCudaPath::kTiled) {
      st = poc_estimate_tiled(x, geom_, config_.layers, config_.coarse,
                              config_.num_blocks(), chunk_, I, J, buf, tw_.as<float2>(),
                              alpha_unit_, fit_min_conf);
    } else if (path_ == PocCudaPath::kFused) {
      st = poc_estimate_fused(x, geom_, config_.layers, config_.coarse,
                              config_.num_blocks(), I, J, buf, tw_.as<float2>(),
                              alpha_unit_, fit_min_conf);
    } else {
      st = estimate_cufft(si, sj, x, I, J, buf, fit_min_conf);
    }
    if (!st) return st;
    /* poc_finish on the device, on the same stream (and in the graph): the
     * vectors and the layer-0 frames never leave the GPU. */
    const LayerView K{before_valid_ ? before_.as<float>() : nullptr, config_.width,
                      config_.height};
    CUDA_TRY(launch_poc_finish_stage(I[0], J[0], K, config_, min_confidence,
                                     out_.as<PocVector>(), fin_.as<PocVector>(),
                                     vote_list_.as<int>(), &final_, stream_));
    return Status::ok();
  }

  Status estimate_cufft(int si, int sj, CudaExec& x, const LayerView* I,
                        const LayerView* J, const PocBuffers& buf, float min_confidence) {
    CoarseCache cache;
    if (use_cache_) {
      cache.spec_i = cache_[si].as<float2>();
      cache.spec_j = cache_[sj].as<float2>();
      cache.fill_i = !cache_valid_[si];
      cache.fill_j = !cache_valid_[sj];
    }
    Status st = poc_estimate(x, geom_, config_.layers, config_.coarse,
                             config_.num_blocks(), chunk_, I, J, buf, alpha_unit_,
                             min_confidence, use_cache_ ? &cache : nullptr);
    if (st && use_cache_) cache_valid_[si] = cache_valid_[sj] = true;
    return st;
  }

  const CufftApi* api_;
  int device_;
  std::string name_;
  /* Frames in flight: ring entry i = frame number mod kRing holds the
   * frame's staging, raw upload, result vectors and events (h2d: upload
   * done; prep: raw[i] read; done: vectors downloaded; k0/k1: the GPU
   * time). */
  static constexpr int kRing = kMaxInFlight;
  cudaStream_t stream_ = nullptr; /* compute */
  cudaStream_t copy_ = nullptr;   /* uploads */
  cudaEvent_t h2d_[kRing] = {}, prep_[kRing] = {}, done_[kRing] = {}, k0_[kRing] = {},
              k1_[kRing] = {};
  bool prep_used_[kRing] = {};
  bool estimated_[kRing] = {};
  long long frame_ = 0;
  long long collected_ = -1;                      /* the frame collect() returned last */
  cudaGraphExec_t graph_[2] = {nullptr, nullptr}; /* by slot of I */
  DeviceBuffer cache_[2];                         /* CoarseCache spectra per slot */
  bool cache_valid_[2] = {false, false};
  bool use_cache_ = false;
  double graph_min_conf_[2] = {0.0, 0.0};
  bool graph_before_[2] = {false, false}; /* captured with the frame before */
  bool use_graph_ = true;
  PocCudaPath path_ = PocCudaPath::kCufft; /* resolve_path() at configure */
  PocGeometry geom_;
  double alpha_unit_ = 1.0;
  int chunk_ = 0;
  int raw_pitch_ = 0;
  SlotLayout layout_;
  DeviceBuffer raw_, slots_[2], win_, spec_, work_, win1d_, out_, centre_, coarse_,
      done_flags_, rec_, tw_, tz_, means_, best_, fin_, vote_list_;
  /* Layer 0 of the frame before the earlier one (forward fields' vote):
   * valid for the frame being enqueued when before_valid_. */
  DeviceBuffer before_;
  bool before_valid_ = false;
  /* out_ or fin_: where the finish stage leaves the vectors (by the
   * configuration; set when the frame's launches are made or captured). */
  PocVector* final_ = nullptr;
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
  int dev = 0;
  if (!(st = pick_one_device(devices, "POC", &dev))) return st;
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
