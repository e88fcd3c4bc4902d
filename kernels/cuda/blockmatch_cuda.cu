/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA backend of block matching: pinned staging, streams and the
 * BlockMatcher implementation (kernels in blockmatch_kernels.cu).
 *
 * Data flow for frame n (ring index i = n % kRing):
 *   host:    luma -> staging[i] (pinned, portable: every GPU reads it)
 *   copy:    wait prep[i] (raw[i] free) ; staging[i] -> raw[i] ; rec h2d[i]
 *   compute: wait h2d[i] ; prepare raw[i] -> slot ; rec prep[i] ;
 *            search(prev slot, slot) ; finalize ; results -> out[i]
 *            (pinned) ; rec done[i]
 * The upload runs on its own stream, so with frames in flight (submit()
 * ahead of collect()) the copy of frame n+1 overlaps the search of frame n.
 * collect() waits on done[i] only: no device-wide synchronisation, and
 * nothing is allocated per frame (everything is sized in configure()).
 *
 * The fast searches (blockmatch_fast.cu) read the same prepared frames; kHierarchical
 * (and kPredictive, for its coarse predictor) adds the frame's reduced
 * levels to its slot at upload, and kPredictive runs a launch per pass
 * and keeps each pair's output field on the device (field_[frame % 2]) as
 * the next pair's predictors.
 *
 * Several GPUs (paper [A]): each has an Engine with its own streams and
 * frame slots. kParallel: every engine receives every frame and searches a
 * contiguous range of block rows. kSerial: frame n is searched by engine
 * n % G, which also received frame n-1 (each frame is uploaded to the engine
 * that searches it and to the next one), so successive pairs run on
 * successive GPUs and collect() still returns them in order.
 * kPredictive needs the previous pair's vectors around the blocks an engine
 * outputs (two block rows beyond them: pass 1 runs one row further than the
 * output for pass 2's neighbours and reads the previous field's neighbours
 * of those): the engines that produced them are waited for by event and the
 * rows copied (cudaMemcpyPeerAsync) before pass 1, so the result equals one
 * GPU's whatever the split (and serial mode orders the pairs).
 *
 * Device probing and the primary context are in device_cuda.cu.
 */
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "blockmatch_fast.cuh"
#include "blockmatch_kernels.cuh"
#include "cuda_check.h"
#include "internal.h"
#include "match/log.h"

namespace match {
namespace cuda {
namespace {

constexpr int kRing = kMaxInFlight;

/* One GPU's share of the work. */
class Engine {
 public:
  explicit Engine(int device) : device_(device) {
    std::fill(raw_frame_, raw_frame_ + kRing, -1);
  }
  ~Engine() {
    cudaSetDevice(device_);
    if (copy_) cudaStreamSynchronize(copy_);
    if (compute_) cudaStreamSynchronize(compute_);
    for (int i = 0; i < kRing; ++i) {
      for (cudaEvent_t e : {h2d_[i], prep_[i], done_[i], k0_[i], k1_[i], fin_[i]})
        if (e) cudaEventDestroy(e);
    }
    if (copy_) cudaStreamDestroy(copy_);
    if (compute_) cudaStreamDestroy(compute_);
  }

  int device() const { return device_; }

  Status init() {
    CUDA_TRY(cudaSetDevice(device_));
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    int optin = 0;
    CUDA_TRY(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    smem_limit_ = static_cast<size_t>(optin) - 1024; /* static smem + slack */
    CUDA_TRY(init_kernels_for_device(smem_limit_));
    CUDA_TRY(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    CUDA_TRY(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
    for (int i = 0; i < kRing; ++i) {
      CUDA_TRY(cudaEventCreateWithFlags(&h2d_[i], cudaEventDisableTiming));
      CUDA_TRY(cudaEventCreateWithFlags(&prep_[i], cudaEventDisableTiming));
      CUDA_TRY(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));
      CUDA_TRY(cudaEventCreate(&k0_[i]));
      CUDA_TRY(cudaEventCreate(&k1_[i]));
      CUDA_TRY(cudaEventCreateWithFlags(&fin_[i], cudaEventDisableTiming));
    }
    return Status::ok();
  }

  /* (Re)allocates for `cfg`; keeps the prepared previous frame's raw copy
   * when `keep_last` so that it can be re-prepared. Waits for the GPU. */
  Status configure(const BlockMatchConfig& cfg, int mb_first, int mb_count) {
    CUDA_TRY(cudaSetDevice(device_));
    CUDA_TRY(cudaStreamSynchronize(copy_));
    CUDA_TRY(cudaStreamSynchronize(compute_));
    const bool full = cfg.method == SearchMethod::kFull;
    if (!full) {
      plan_ = fast_plan(cfg);
    } else if (!plan_search(cfg, smem_limit_, &plan_)) {
      return Status(StatusCode::kUnavailable,
                    "block size and search range too large for this GPU's shared memory");
    }
    geom_ = plane_geometry(cfg, plan_);
    if (full)
      log(LogLevel::kDebug,
          "cuda:%d search plan: %d candidate rows x 4 per thread, %d-word chunks x %d, "
          "CTA %dx%d, %d x %d bands per phase, %zu B shared; planes %d B x %d rows x %d",
          device_, plan_.cy, plan_.chunk, plan_.nchunks, plan_.tx, plan_.ty, plan_.xbands,
          plan_.ybands, plan_.smem_bytes, geom_.pitch, geom_.rows, geom_.phases());
    cfg_ = cfg;
    mb_first_ = mb_first;
    mb_count_ = mb_count;
    raw_pitch_ = (cfg.width + 127) / 128 * 128;
    for (int s = 0; s < 2; ++s) {
      Status st = slots_[s].ensure(device_, geom_.bytes());
      if (!st) return st;
    }
    Status st =
        raw_.ensure(device_, static_cast<size_t>(raw_pitch_) * cfg.height * kRing);
    if (!st) return st;
    const size_t nb = std::max(1, mb_count);
    if (!(st = best_.ensure(device_, nb * sizeof(unsigned long long)))) return st;
    if (!(st = j0_.ensure(device_, nb * sizeof(uint32_t)))) return st;
    if (!(st = out_.ensure(device_, nb * sizeof(BlockVector)))) return st;
    nlev_ = level_geometry(cfg, lev_);
    size_t lev_bytes = 0;
    for (int k = 0; k < nlev_; ++k) {
      lev_offset_[k] = lev_bytes;
      lev_bytes += (lev_[k].bytes() + 255) / 256 * 256;
    }
    if (nlev_ > 0)
      for (auto& l : levels_)
        if (!(st = l.ensure(device_, lev_bytes))) return st;
    if (cfg.method == SearchMethod::kPredictive) {
      const size_t fb = static_cast<size_t>(cfg.num_blocks()) * sizeof(BlockVector);
      for (auto& f : passes_)
        if (!(st = f.ensure(device_, fb))) return st;
      for (auto& f : field_)
        if (!(st = f.ensure(device_, fb))) return st;
    }
    CUDA_TRY(launch_fill_best(best_.as<unsigned long long>(), mb_count, compute_));
    CUDA_TRY(cudaStreamSynchronize(compute_));
    return Status::ok();
  }

  /* Queues the upload and preparation of the frame in staging[i]. */
  Status upload(const uint8_t* staging, int i, long long frame) {
    CUDA_TRY(cudaSetDevice(device_));
    uint8_t* raw = raw_slot(i);
    if (prep_used_[i]) CUDA_TRY(cudaStreamWaitEvent(copy_, prep_[i], 0));
    CUDA_TRY(cudaMemcpy2DAsync(raw, raw_pitch_, staging, cfg_.width, cfg_.width,
                               cfg_.height, cudaMemcpyHostToDevice, copy_));
    return prepare_uploaded(raw, i, frame);
  }

  /* The same from a frame in device memory (submit_device()): one copy into
   * raw[i] on the copy stream, device to device when the frame is on this
   * engine's GPU, else a peer copy (cudaMemcpy3DPeerAsync; the driver goes
   * through host memory where the GPUs have no peer access). Both ends are
   * primary-context memory, so the runtime's copies apply. The copy lands
   * in raw[i] as an upload would: the rest is the same. */
  Status upload_device(const DeviceImageView& src, int i, long long frame) {
    CUDA_TRY(cudaSetDevice(device_));
    uint8_t* raw = raw_slot(i);
    if (prep_used_[i]) CUDA_TRY(cudaStreamWaitEvent(copy_, prep_[i], 0));
    if (src.device == device_) {
      CUDA_TRY(cudaMemcpy2DAsync(raw, raw_pitch_, src.data, src.pitch_bytes, cfg_.width,
                                 cfg_.height, cudaMemcpyDeviceToDevice, copy_));
    } else {
      cudaMemcpy3DPeerParms p = {};
      p.srcPtr = make_cudaPitchedPtr(const_cast<uint8_t*>(src.data), src.pitch_bytes,
                                     cfg_.width, cfg_.height);
      p.srcDevice = src.device;
      p.dstPtr = make_cudaPitchedPtr(raw, raw_pitch_, cfg_.width, cfg_.height);
      p.dstDevice = device_;
      p.extent = make_cudaExtent(cfg_.width, cfg_.height, 1);
      CUDA_TRY(cudaMemcpy3DPeerAsync(&p, copy_));
    }
    return prepare_uploaded(raw, i, frame);
  }

 private:
  uint8_t* raw_slot(int i) const {
    return raw_.as<uint8_t>() + static_cast<size_t>(raw_pitch_) * cfg_.height * i;
  }

  /* After the copy into raw[i] was queued on the copy stream: marks it
   * (h2d[i]) and queues the preparation of the frame on the compute stream. */
  Status prepare_uploaded(const uint8_t* raw, int i, long long frame) {
    CUDA_TRY(cudaEventRecord(h2d_[i], copy_));
    CUDA_TRY(cudaStreamWaitEvent(compute_, h2d_[i], 0));
    CUDA_TRY(cudaEventRecord(k0_[i], compute_));
    cur_ ^= 1;
    CUDA_TRY(
        launch_prepare(raw, raw_pitch_, geom_, slots_[cur_].as<uint8_t>(), compute_));
    CUDA_TRY(cudaEventRecord(prep_[i], compute_));
    CUDA_TRY(build_levels(cur_));
    prep_used_[i] = true;
    slot_frame_[cur_] = frame;
    raw_frame_[i] = frame;
    last_raw_ = i;
    return Status::ok();
  }

  /* The geometry every search launch reads; SearchArgs, FinalizeArgs and
   * FastArgs name these fields alike. */
  template <typename Args>
  void set_block_geometry(Args* a) const {
    a->width = cfg_.width;
    a->height = cfg_.height;
    a->bw = cfg_.block_width;
    a->bh = cfg_.block_height;
    a->cols = cfg_.columns();
    a->rx = cfg_.range_x;
    a->ry = cfg_.range_y;
    a->subpel = cfg_.subpel;
  }

  /* The prepared planes of the pair (SearchArgs, FastArgs): the tiled
   * frame's phase-0 plane and the searched frame's phase planes. */
  template <typename Args>
  void set_planes(const uint8_t* tiled, const uint8_t* searched, Args* a) const {
    a->tiled = tiled;
    a->searched = searched;
    a->plane_bytes = geom_.plane_bytes();
    a->pitch = geom_.pitch;
    a->pad_left = geom_.pad_left;
    a->pad_top = geom_.pad_top;
  }

 public:
  /* True when this engine holds frame-1 and frame (the pair to search). */
  bool has_pair(long long frame) const {
    return slot_frame_[cur_] == frame && slot_frame_[cur_ ^ 1] == frame - 1 && frame >= 1;
  }

  /* Queues the search of the pair (frame-1, frame) and the copy of this
   * engine's results into host_out (the whole frame's array). */
  Status search(int i, double threshold, double predictive_stop, int rate_steps,
                BlockVector* host_out, long long frame, bool have_prev_field) {
    CUDA_TRY(cudaSetDevice(device_));
    if (cfg_.method != SearchMethod::kFull)
      return search_fast(i, threshold, predictive_stop, rate_steps, host_out, frame,
                         have_prev_field);
    const bool fwd = cfg_.direction == Direction::kForward;
    const uint8_t* prev = slots_[cur_ ^ 1].as<uint8_t>();
    const uint8_t* cur = slots_[cur_].as<uint8_t>();
    SearchArgs a{};
    set_planes(fwd ? prev : cur, fwd ? cur : prev, &a);
    set_block_geometry(&a);
    a.mb_first = mb_first_;
    a.best = best_.as<unsigned long long>();
    a.j0 = j0_.as<uint32_t>();
    CUDA_TRY(launch_search(plan_, a, mb_count_, compute_));
    FinalizeArgs f{};
    set_block_geometry(&f);
    f.best = best_.as<unsigned long long>();
    f.j0 = j0_.as<uint32_t>();
    f.out = out_.as<BlockVector>();
    f.mb_first = mb_first_;
    f.mb_count = mb_count_;
    f.threshold = threshold;
    CUDA_TRY(launch_finalize(f, compute_));
    CUDA_TRY(cudaEventRecord(k1_[i], compute_));
    if (mb_count_ > 0)
      CUDA_TRY(cudaMemcpyAsync(host_out + mb_first_, out_.p,
                               mb_count_ * sizeof(BlockVector), cudaMemcpyDeviceToHost,
                               compute_));
    CUDA_TRY(cudaEventRecord(done_[i], compute_));
    searched_[i] = true;
    return Status::ok();
  }

  /* The fast searches' part of search(): kPredictive's two passes, or one
   * launch. have_prev_field: field_[(frame - 1) % 2] holds the previous
   * pair's vectors around this engine's blocks (pull_field()). */
  Status search_fast(int i, double threshold, double predictive_stop, int rate_steps,
                     BlockVector* host_out, long long frame, bool have_prev_field) {
    const bool fwd = cfg_.direction == Direction::kForward;
    const int t = fwd ? cur_ ^ 1 : cur_, s = fwd ? cur_ : cur_ ^ 1;
    FastArgs a{};
    set_planes(slots_[t].as<uint8_t>(), slots_[s].as<uint8_t>(), &a);
    set_block_geometry(&a);
    for (int k = 1; k <= nlev_; ++k) {
      const size_t o = lev_offset_[k - 1] + lev_[k - 1].origin();
      a.level_tiled[k] = levels_[t].as<uint8_t>() + o;
      a.level_searched[k] = levels_[s].as<uint8_t>() + o;
      a.level_pitch[k] = lev_[k - 1].pitch;
    }
    a.rows = cfg_.rows();
    a.method = cfg_.method;
    a.levels = cfg_.levels;
    a.predictors = cfg_.predictors;
    a.out = out_.as<BlockVector>();
    a.out_first = mb_first_;
    a.threshold = threshold;
    if (cfg_.method == SearchMethod::kPredictive) {
      /* Passes 1 .. P - 1 on this engine's block rows and the halo that
       * the later passes read: pass k's blocks reach 2^(P - k - 1) rows,
       * so pass k covers 2^(P - k) - 1 rows beyond [r0, r1) on each side
       * (recomputed here instead of exchanged between engines: the same
       * vectors, as every block depends on the fields alone). */
      const int P = cfg_.passes;
      const int cols = a.cols, r0 = mb_first_ / cols, r1 = (mb_first_ + mb_count_) / cols;
      a.passes = P;
      a.predictive_stop = predictive_stop;
      a.rate_steps = rate_steps;
      a.prev = have_prev_field ? field_[(frame - 1) & 1].as<BlockVector>() : nullptr;
      for (int k = 1; k < P; ++k) {
        const int halo = (1 << (P - k)) - 1;
        const int h0 = std::max(0, r0 - halo), h1 = std::min(a.rows, r1 + halo);
        a.pass = k;
        a.distance = k == 1 ? 1 : 1 << (P - k);
        a.in = k == 1 ? nullptr : passes_[k % 2].as<BlockVector>();
        a.pass_out = passes_[(k + 1) % 2].as<BlockVector>();
        a.b_first = h0 * cols;
        a.b_count = mb_count_ > 0 ? (h1 - h0) * cols : 0;
        CUDA_TRY(launch_fast_search(a, compute_));
      }
      a.pass = P;
      a.distance = 1;
      a.in = passes_[P % 2].as<BlockVector>();
      a.pass_out = nullptr;
      a.field = field_[frame & 1].as<BlockVector>();
    }
    a.b_first = mb_first_;
    a.b_count = mb_count_;
    CUDA_TRY(launch_fast_search(a, compute_));
    CUDA_TRY(cudaEventRecord(fin_[i], compute_));
    CUDA_TRY(cudaEventRecord(k1_[i], compute_));
    if (mb_count_ > 0)
      CUDA_TRY(cudaMemcpyAsync(host_out + mb_first_, out_.p,
                               mb_count_ * sizeof(BlockVector), cudaMemcpyDeviceToHost,
                               compute_));
    CUDA_TRY(cudaEventRecord(done_[i], compute_));
    searched_[i] = true;
    return Status::ok();
  }

  /* kPredictive: makes this engine's field_[frame % 2] hold block rows
   * [r0, r1) of pair `frame`'s output, which engine `src` computed (ring
   * entry i), unless src is this engine (the rows are then in place). */
  Status pull_field(Engine* src, long long frame, int i, int r0, int r1) {
    if (src == this || r1 <= r0) return Status::ok();
    CUDA_TRY(cudaSetDevice(device_));
    CUDA_TRY(cudaStreamWaitEvent(compute_, src->fin_[i], 0));
    const size_t off = static_cast<size_t>(r0) * cfg_.columns();
    const size_t n = static_cast<size_t>(r1 - r0) * cfg_.columns();
    CUDA_TRY(cudaMemcpyPeerAsync(field_[frame & 1].as<BlockVector>() + off, device_,
                                 src->field_[frame & 1].as<BlockVector>() + off,
                                 src->device_, n * sizeof(BlockVector), compute_));
    return Status::ok();
  }

  /* Block rows whose vectors this engine outputs. */
  int row_first() const { return mb_first_ / std::max(1, cfg_.columns()); }
  int row_end() const { return (mb_first_ + mb_count_) / std::max(1, cfg_.columns()); }

  /* Waits for the copy into raw[i] to have read its source: staging[i]
   * (submit()) or the caller's device frame (submit_device()). */
  Status wait_staging(int i) {
    if (!prep_used_[i]) return Status::ok();
    CUDA_TRY(cudaSetDevice(device_));
    CUDA_TRY(cudaEventSynchronize(h2d_[i]));
    return Status::ok();
  }

  /* raw[i] as a view once its copy is done, if it holds `frame`. */
  bool raw_view(int i, long long frame, DeviceImageView* out) {
    if (raw_frame_[i] != frame || cudaSetDevice(device_) != cudaSuccess ||
        cudaEventSynchronize(h2d_[i]) != cudaSuccess)
      return false;
    *out = DeviceImageView{raw_slot(i), cfg_.width, cfg_.height, raw_pitch_, device_};
    return true;
  }

  /* Waits for every copy queued on this engine (error paths). */
  Status sync_copies() {
    CUDA_TRY(cudaSetDevice(device_));
    CUDA_TRY(cudaStreamSynchronize(copy_));
    return Status::ok();
  }

  Status wait_done(int i, double* kernel_ms) {
    if (!searched_[i]) return Status::ok();
    CUDA_TRY(cudaSetDevice(device_));
    CUDA_TRY(cudaEventSynchronize(done_[i]));
    float ms = -1.f;
    if (cudaEventElapsedTime(&ms, k0_[i], k1_[i]) == cudaSuccess && kernel_ms)
      *kernel_ms = std::max(*kernel_ms, static_cast<double>(ms));
    searched_[i] = false;
    return Status::ok();
  }

  /* Re-prepares the last uploaded frame with the current geometry
   * (after configure() changed it). */
  Status reprepare_last() {
    if (last_raw_ < 0 || slot_frame_[cur_] < 0) return Status::ok();
    CUDA_TRY(cudaSetDevice(device_));
    const uint8_t* raw =
        raw_.as<uint8_t>() + static_cast<size_t>(raw_pitch_) * cfg_.height * last_raw_;
    CUDA_TRY(
        launch_prepare(raw, raw_pitch_, geom_, slots_[cur_].as<uint8_t>(), compute_));
    CUDA_TRY(build_levels(cur_));
    slot_frame_[cur_ ^ 1] = -1;
    return Status::ok();
  }

  void forget() {
    cudaSetDevice(device_);
    cudaStreamSynchronize(copy_);
    cudaStreamSynchronize(compute_);
    slot_frame_[0] = slot_frame_[1] = -1;
    for (int i = 0; i < kRing; ++i) {
      searched_[i] = false;
      raw_frame_[i] = -1;
    }
  }

  const std::string& name() const { return name_; }

 private:
  /* kHierarchical, kPredictive: levels 1.. of slot `slot`'s frame, each from the one
   * before (level 0: the phase-0 plane). */
  cudaError_t build_levels(int slot) {
    const uint8_t* src = slots_[slot].as<uint8_t>() +
                         static_cast<size_t>(geom_.pad_top) * geom_.pitch +
                         geom_.pad_left;
    int sp = geom_.pitch, sw = cfg_.width, sh = cfg_.height;
    for (int k = 0; k < nlev_; ++k) {
      uint8_t* dst = levels_[slot].as<uint8_t>() + lev_offset_[k];
      cudaError_t e = launch_reduce(src, sp, sw, sh, lev_[k], dst, compute_);
      if (e != cudaSuccess) return e;
      src = dst + lev_[k].origin();
      sp = lev_[k].pitch;
      sw = lev_[k].width;
      sh = lev_[k].height;
    }
    return cudaSuccess;
  }

  int device_;
  std::string name_;
  size_t smem_limit_ = 48 * 1024;
  BlockMatchConfig cfg_;
  SearchPlan plan_;
  PlaneGeometry geom_;
  int mb_first_ = 0, mb_count_ = 0;
  int raw_pitch_ = 0;
  cudaStream_t copy_ = nullptr, compute_ = nullptr;
  cudaEvent_t h2d_[kRing] = {}, prep_[kRing] = {}, done_[kRing] = {}, k0_[kRing] = {},
              k1_[kRing] = {}, fin_[kRing] = {};
  bool prep_used_[kRing] = {};
  bool searched_[kRing] = {};
  DeviceBuffer slots_[2], raw_, best_, j0_, out_;
  /* The fast searches: kHierarchical's (kPredictive's) levels 1.. of each slot's frame;
   * kPredictive's pass-1 field and the output fields of the last two
   * pairs (whole frame, indexed by block). */
  /* kPredictive: pass k writes passes_[(k + 1) % 2], reads passes_[k % 2] */
  DeviceBuffer levels_[2], passes_[2], field_[2];
  LevelGeometry lev_[kMaxLevels];
  size_t lev_offset_[kMaxLevels] = {};
  int nlev_ = 0;
  int cur_ = 0;
  long long slot_frame_[2] = {-1, -1};
  long long raw_frame_[kRing]; /* the frame in raw[i], -1: none */
  int last_raw_ = -1;
};

class CudaBlockMatcher final : public BlockMatcher {
 public:
  CudaBlockMatcher(const BlockMatchConfig& config, const DeviceOptions& dev)
      : opts_(dev) {
    config_ = config;
    if (opts_.devices.empty()) opts_.devices.push_back(0);
  }

  Status init() {
    const int n = device_count();
    for (int d : opts_.devices) {
      if (d < 0 || d >= n)
        return Status(StatusCode::kUnavailable,
                      "CUDA device " + std::to_string(d) + " does not exist (" +
                          std::to_string(n) + " device(s) found)");
    }
    for (int d : opts_.devices) {
      engines_.emplace_back(new Engine(d));
      Status st = engines_.back()->init();
      if (!st) return st;
    }
    Status st = configure();
    if (!st) return st;
    log(LogLevel::kInfo,
        "CUDA block matcher %dx%d, blocks %dx%d, range +-%d/+-%d, 1/%d pel on %s",
        config_.width, config_.height, config_.block_width, config_.block_height,
        config_.range_x, config_.range_y, config_.subpel, description().c_str());
    return Status::ok();
  }

  Backend backend() const override { return Backend::kCuda; }

  std::string description() const override {
    std::string s;
    for (size_t i = 0; i < engines_.size(); ++i) {
      if (i) s += ", ";
      s += "cuda:" + std::to_string(engines_[i]->device()) + " (" + engines_[i]->name() +
           ")";
    }
    if (engines_.size() > 1)
      s += opts_.mode == MultiGpuMode::kSerial ? " serial" : " parallel";
    return s;
  }

  int max_in_flight() const override { return kRing; }

  Status process(const ImageView& luma, const BlockMatchRuntime& rt, BlockVector* out,
                 bool* estimated) override {
    if (in_flight() > 0)
      return Status(StatusCode::kInvalidArgument,
                    "process() with frames in flight: collect() them first");
    Status st = submit(luma, rt);
    if (!st) return st;
    return collect(out, estimated);
  }

  Status submit(const ImageView& luma, const BlockMatchRuntime& rt) override {
    if (luma.width != config_.width || luma.height != config_.height || !luma.data)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
    if (pending_.count() >= kRing)
      return Status(StatusCode::kInvalidArgument,
                    "too many frames in flight: collect() first");
    const int i = static_cast<int>(frame_ % kRing);
    /* staging[i] is free once every engine's upload of frame n - kRing is
     * done (long ago, normally: no wait). */
    for (auto& e : engines_) {
      Status st = e->wait_staging(i);
      if (!st) return st;
    }
    uint8_t* stage = static_cast<uint8_t*>(staging_.p) + frame_bytes() * i;
    /* The one host-side copy of the frame; large frames are copied by
     * a few threads (host_copy_threads: one thread moves ~10 GB/s). */
    const int rows = luma.height, width = luma.width;
    const int team = host_copy_threads(rt.threads);
    MATCH_OMP(parallel for schedule(static) num_threads(team)
              if (team > 1 && frame_bytes() >= (1u << 20)))
    for (int y = 0; y < rows; ++y)
      std::memcpy(stage + static_cast<size_t>(y) * width, luma.row(y), width);

    return enqueue(rt, [stage](Engine* e, int ring, long long n) {
      return e->upload(stage, ring, n);
    });
  }

  /* Zero copy from a GPU producer: no staging; each engine copies the frame
   * from the caller's device memory (Engine::upload_device()), and we wait
   * for those copies (not for the search) before returning, because the
   * caller releases the memory (a decoder's pool buffer) afterwards. The
   * wait is for one device-to-device copy, queued behind nothing but the
   * preparation of the frame kRing frames earlier. */
  Status submit_device(const DeviceImageView& luma,
                       const BlockMatchRuntime& rt) override {
    if (luma.width != config_.width || luma.height != config_.height || !luma.data ||
        luma.pitch_bytes < luma.width)
      return Status(StatusCode::kInvalidArgument,
                    "device frame does not match the configured size");
    if (luma.device < 0 || luma.device >= device_count())
      return Status(StatusCode::kUnsupported, "frame on CUDA device " +
                                                  std::to_string(luma.device) +
                                                  ", which this process cannot use");
    if (pending_.count() >= kRing)
      return Status(StatusCode::kInvalidArgument,
                    "too many frames in flight: collect() first");
    const int i = static_cast<int>(frame_ % kRing);
    std::vector<Engine*>& copied = copied_;
    copied.clear();
    Status st = enqueue(rt, [&luma, &copied](Engine* e, int ring, long long n) {
      copied.push_back(e);
      return e->upload_device(luma, ring, n);
    });
    for (Engine* e : copied) {
      /* After an error, copies already queued must not outlive the
       * caller's memory either. */
      Status w = st ? e->wait_staging(i) : e->sync_copies();
      if (st && !w) st = w;
    }
    return st;
  }

  Status collect(BlockVector* out, bool* estimated) override {
    if (pending_.count() == 0)
      return Status(StatusCode::kInvalidArgument, "no frame in flight");
    if (!out) return Status(StatusCode::kInvalidArgument, "no output array");
    const long long n = frame_ - pending_.count();
    const int i = static_cast<int>(n % kRing);
    Ticket& t = tickets_[i];
    double kms = -1.0;
    for (Engine* e : t.engines) {
      Status st = e->wait_done(i, &kms);
      if (!st) return st;
    }
    pending_.pop();
    collected_ = n;
    const int nb = config_.num_blocks();
    if (t.estimated) {
      std::memcpy(out, results(i), nb * sizeof(BlockVector));
      stats_.kernel_ms = kms;
    } else {
      std::fill(out, out + nb, BlockVector{});
    }
    if (estimated) *estimated = t.estimated;
    return Status::ok();
  }

  /* raw[i] of an engine on `device` that received the collected frame
   * (all of them in parallel mode, two in serial mode); it holds that
   * frame until the upload of frame n + kRing, which no submit() has
   * queued yet if frame_ <= n + kRing. */
  bool collected_frame(int device, DeviceImageView* out) override {
    const long long n = collected_;
    if (n < 0 || frame_ > n + kRing) return false;
    for (auto& e : engines_)
      if (e->device() == device && e->raw_view(static_cast<int>(n % kRing), n, out))
        return true;
    return false;
  }

  MatcherStats stats() const override { return stats_; }

  Status reconfigure(const BlockMatchConfig& config) override {
    Status st = config.validate();
    if (!st) return st;
    /* kPredictive's previous vectors survive a change of range or sub-pel
     * grid, not one of the block size, direction or method (the CPU
     * backend's rule, cpu/blockmatch_fast_cpu.cpp). */
    if (config.method != SearchMethod::kPredictive ||
        config_.method != SearchMethod::kPredictive ||
        config.block_width != config_.block_width ||
        config.block_height != config_.block_height ||
        config.direction != config_.direction)
      field_frame_ = -1;
    if (config.width != config_.width || config.height != config_.height)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure cannot change the frame size");
    if (in_flight() > 0)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure with frames in flight: collect() them first");
    config_ = config;
    if (!(st = configure())) return st;
    for (auto& e : engines_)
      if (!(st = e->reprepare_last())) return st;
    return Status::ok();
  }

  void reset() override {
    for (auto& e : engines_) e->forget();
    collected_ = -1;
    have_prev_ = false;
    field_frame_ = -1;
    pending_.clear();
  }

 private:
  struct Ticket {
    bool estimated = false;
    std::vector<Engine*> engines;
  };

  /* The common part of submit() and submit_device(): numbers the frame,
   * has `upload(engine, ring entry, frame)` queue the frame's copy and
   * preparation on each engine that needs it, then queues the searches
   * (see the top comment for the multi-GPU modes). */
  template <typename Upload>
  Status enqueue(const BlockMatchRuntime& rt, Upload upload) {
    const long long n = frame_++;
    const int i = static_cast<int>(n % kRing);
    BlockVector* host_out = results(i);
    Ticket& t = tickets_[i];
    t.estimated = false;
    t.engines.clear();
    const int g = static_cast<int>(engines_.size());
    if (opts_.mode == MultiGpuMode::kSerial && g > 1) {
      Engine* searcher = engines_[n % g].get();
      Engine* next = engines_[(n + 1) % g].get();
      Status st = upload(searcher, i, n);
      if (!st) return st;
      if (next != searcher && !(st = upload(next, i, n))) return st;
      if (have_prev_ && searcher->has_pair(n)) {
        if (!(st = pull_previous_field(searcher, n))) return st;
        if (!(st = searcher->search(i, rt.threshold, rt.predictive_stop,
                                    predictive_rate_steps(rt), host_out, n,
                                    field_frame_ == n - 1)))
          return st;
        t.engines.push_back(searcher);
        t.estimated = true;
      }
    } else {
      for (auto& e : engines_) {
        Status st = upload(e.get(), i, n);
        if (!st) return st;
      }
      if (have_prev_) {
        for (auto& e : engines_) {
          Status st = pull_previous_field(e.get(), n);
          if (!st) return st;
        }
        for (auto& e : engines_) {
          Status st =
              e->search(i, rt.threshold, rt.predictive_stop, predictive_rate_steps(rt),
                        host_out, n, field_frame_ == n - 1);
          if (!st) return st;
          t.engines.push_back(e.get());
        }
        t.estimated = true;
      }
    }
    /* kPredictive's previous field: this pair's, from these engines. */
    if (config_.method == SearchMethod::kPredictive && t.estimated) {
      field_frame_ = n;
      field_engines_ = t.engines;
    } else {
      field_frame_ = -1;
    }
    have_prev_ = true;
    pending_.push();
    return Status::ok();
  }

  size_t frame_bytes() const {
    return static_cast<size_t>(config_.width) * config_.height;
  }
  size_t result_bytes() const {
    return (static_cast<size_t>(config_.num_blocks()) * sizeof(BlockVector) + 255) / 256 *
           256;
  }
  BlockVector* results(int i) {
    return reinterpret_cast<BlockVector*>(static_cast<uint8_t*>(results_.p) +
                                          result_bytes() * i);
  }

  Status configure() {
    Status st = staging_.ensure(frame_bytes() * kRing);
    if (!st) return st;
    if (!(st = results_.ensure(result_bytes() * kRing))) return st;
    for (auto& t : tickets_) t.engines.reserve(engines_.size());
    const int rows = config_.rows(), cols = config_.columns();
    const int g = static_cast<int>(engines_.size());
    const bool parallel = opts_.mode == MultiGpuMode::kParallel && g > 1;
    for (int k = 0; k < g; ++k) {
      int r0 = 0, r1 = rows;
      if (parallel) {
        r0 = static_cast<int>(static_cast<long long>(rows) * k / g);
        r1 = static_cast<int>(static_cast<long long>(rows) * (k + 1) / g);
      }
      if (!(st = engines_[k]->configure(config_, r0 * cols, (r1 - r0) * cols))) return st;
    }
    return Status::ok();
  }

  /* kPredictive: before `e` searches pair n, the previous pair's vectors
   * in the block rows around e's (pass 1's halo, 2^(passes - 1) - 1 rows,
   * plus the one row its predictors reach) are brought into e's field
   * from the engines that computed them. */
  Status pull_previous_field(Engine* e, long long n) {
    if (config_.method != SearchMethod::kPredictive || field_frame_ != n - 1)
      return Status::ok();
    const int i = static_cast<int>((n - 1) % kRing);
    const int reach = 1 << (config_.passes - 1);
    const int r0 = std::max(0, e->row_first() - reach);
    const int r1 = std::min(config_.rows(), e->row_end() + reach);
    for (Engine* src : field_engines_) {
      const int a = std::max(r0, src->row_first()), b = std::min(r1, src->row_end());
      Status st = e->pull_field(src, n - 1, i, a, b);
      if (!st) return st;
    }
    return Status::ok();
  }

  DeviceOptions opts_;
  std::vector<std::unique_ptr<Engine>> engines_;
  HostBuffer staging_, results_;
  Ticket tickets_[kRing];
  long long frame_ = 0;
  long long collected_ = -1; /* the frame collect() returned last */
  bool have_prev_ = false;
  /* kPredictive: the pair whose output field the engines hold (-1: none,
   * the next estimate is a first one) and the engines that computed it. */
  long long field_frame_ = -1;
  std::vector<Engine*> field_engines_;
  std::vector<Engine*> copied_; /* submit_device(): engines that copied */
  MatcherStats stats_;
};

}  // namespace

Status create_block_matcher(const BlockMatchConfig& config, const DeviceOptions& devices,
                            std::unique_ptr<BlockMatcher>* out) {
  Status st = config.validate();
  if (!st) return st;
  if (device_count() == 0)
    return Status(
        StatusCode::kUnavailable,
        "no CUDA device (no GPU, no NVIDIA driver, or the driver is too old for "
        "CUDA " +
            std::to_string(CUDART_VERSION / 1000) + ")");
  std::unique_ptr<CudaBlockMatcher> m(new CudaBlockMatcher(config, devices));
  if (!(st = m->init())) return st;
  out->reset(m.release());
  return Status::ok();
}

}  // namespace cuda
}  // namespace match
