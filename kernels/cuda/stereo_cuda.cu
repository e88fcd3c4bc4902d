/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA backend of SAD block-matching stereo: device buffers and the
 * per-frame sequence (kernels and their design in stereo_kernels.cu,
 * definitions in match/stereo.h).
 *
 * Per process(), on one stream:
 *   host: left, right -> pinned staging (threads for large frames)
 *   H2D staging -> d_left, d_right (cudaMemcpy2DAsync, pitched) ; event k0 ;
 *   [LR check: dkey <- 0xFF..] ; [texture: row sums] ; cost kernel ;
 *   finish kernel ; event k1 ; D2H map -> pinned results ; event done.
 * process() waits on `done` only (no device-wide synchronisation), then
 * copies the map into the caller's view (any stride). stats().kernel_ms is
 * k0 -> k1 (device work, not the copies). Everything is allocated when the
 * matcher is made; nothing per frame.
 *
 * emulate_stereo_match() runs the same kernels' code on the host (see
 * stereo_kernels.cu), for the GPU-free tests.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "cuda_check.h"
#include "internal.h"
#include "match/log.h"
#include "match/stereo.h"
#include "stereo_kernels.cuh"

namespace match {
namespace cuda {
namespace {

int round_up(int v, int m) { return (v + m - 1) / m * m; }

void set_runtime(const StereoRuntime& rt, StereoFrameArgs* a) {
  a->subpixel = rt.subpixel ? 1 : 0;
  a->uniqueness = rt.uniqueness_ratio;
  a->lr_max_diff = rt.lr_max_diff;
  a->texture_threshold = rt.texture_threshold;
}

/* Copies h rows of w bytes from a strided view into a packed buffer
 * (several threads for large frames: one moves ~10 GB/s). */
void pack_rows(const ImageView& v, uint8_t* dst) {
  const int w = v.width, h = v.height;
  const int team = host_copy_threads(0);
  MATCH_OMP(parallel for schedule(static) num_threads(team)
            if (team > 1 && size_t(w) * h >= (1u << 20)))
  for (int y = 0; y < h; ++y)
    std::memcpy(dst + static_cast<size_t>(y) * w, v.row(y), w);
}

class CudaStereoMatcher final : public StereoMatcher {
 public:
  CudaStereoMatcher(const StereoConfig& config, int device) : device_(device) {
    config_ = config;
  }

  ~CudaStereoMatcher() override {
    cudaSetDevice(device_);
    if (stream_) cudaStreamSynchronize(stream_);
    for (cudaEvent_t e : {k0_, k1_, done_})
      if (e) cudaEventDestroy(e);
    if (stream_) cudaStreamDestroy(stream_);
  }

  Status init() {
    CUDA_TRY(cudaSetDevice(device_));
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    plan_ = plan_stereo(config_);
    int optin = 0;
    CUDA_TRY(cudaDeviceGetAttribute(
        &optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    if (plan_.smem_bytes > static_cast<size_t>(optin))
      return Status(
          StatusCode::kUnavailable,
          "stereo kernel needs " + std::to_string(plan_.smem_bytes) +
              " B of shared memory per block; cuda:" + std::to_string(device_) +
              " allows " + std::to_string(optin));
    int per_sm = 0;
    CUDA_TRY(stereo_prepare_device(plan_, &per_sm));
    if (per_sm < 1)
      return Status(StatusCode::kUnavailable,
                    "stereo kernel does not fit on an SM of cuda:" +
                        std::to_string(device_));
    /* Two waves of resident CTAs: enough for the tail not to matter. */
    target_ctas_ = 2 * per_sm * prop.multiProcessorCount;
    CUDA_TRY(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
    CUDA_TRY(cudaEventCreate(&k0_));
    CUDA_TRY(cudaEventCreate(&k1_));
    CUDA_TRY(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));

    const int w = config_.width, h = config_.height;
    const size_t px = static_cast<size_t>(w) * h;
    img_pitch_ = round_up(w, 128);
    out_pitch_ = round_up(w, 128); /* elements */
    Status st;
    if (!(st = d_left_.ensure(device_, static_cast<size_t>(img_pitch_) * h)))
      return st;
    if (!(st = d_right_.ensure(device_, static_cast<size_t>(img_pitch_) * h)))
      return st;
    if (!(st = d_pre_.ensure(device_, px * sizeof(uint32_t)))) return st;
    if (!(st = d_dkey_.ensure(device_, px * sizeof(uint32_t)))) return st;
    if (!(st = d_tex_.ensure(device_, px * sizeof(uint16_t)))) return st;
    if (!(st = d_out_.ensure(
              device_, static_cast<size_t>(out_pitch_) * h * sizeof(uint16_t))))
      return st;
    if (!(st = staging_.ensure(2 * px))) return st;
    if (!(st = results_.ensure(px * sizeof(uint16_t)))) return st;
    /* Padding columns of the pitched images are never read (reads are
     * clamped to the width), but give them defined contents anyway. */
    CUDA_TRY(cudaMemsetAsync(d_left_.p, 0, d_left_.size, stream_));
    CUDA_TRY(cudaMemsetAsync(d_right_.p, 0, d_right_.size, stream_));
    CUDA_TRY(cudaStreamSynchronize(stream_));
    log(LogLevel::kInfo,
        "CUDA stereo matcher %dx%d, window %dx%d, disparities %d..%d, %s "
        "reference on %s: %d threads x %d columns per CTA, %zu B shared, "
        "%d CTAs per SM",
        w, h, config_.window_width, config_.window_height,
        config_.min_disparity,
        config_.min_disparity + config_.num_disparities - 1,
        config_.reference == StereoReference::kLeft ? "left" : "right",
        description().c_str(), plan_.threads, plan_.strip, plan_.smem_bytes,
        per_sm);
    return Status::ok();
  }

  Backend backend() const override { return Backend::kCuda; }

  std::string description() const override {
    return "cuda:" + std::to_string(device_) + " (" + name_ + ")";
  }

  Status process(const ImageView& left, const ImageView& right,
                 const StereoRuntime& rt, const DisparityView& out) override {
    Status st = check_stereo_frame(config_, left, right, rt, out);
    if (!st) return st;
    CUDA_TRY(cudaSetDevice(device_));
    const int w = config_.width, h = config_.height;
    const size_t px = static_cast<size_t>(w) * h;
    /* The previous process() waited for `done`, which follows its uploads,
     * so the staging buffer is free; unless it failed half-way, with work
     * still queued: then wait for that first. */
    if (queued_) {
      CUDA_TRY(cudaStreamSynchronize(stream_));
      queued_ = false;
    }
    uint8_t* stage_l = static_cast<uint8_t*>(staging_.p);
    uint8_t* stage_r = stage_l + px;
    pack_rows(left, stage_l);
    pack_rows(right, stage_r);
    queued_ = true;
    CUDA_TRY(cudaMemcpy2DAsync(d_left_.p, img_pitch_, stage_l, w, w, h,
                               cudaMemcpyHostToDevice, stream_));
    CUDA_TRY(cudaMemcpy2DAsync(d_right_.p, img_pitch_, stage_r, w, w, h,
                               cudaMemcpyHostToDevice, stream_));
    CUDA_TRY(cudaEventRecord(k0_, stream_));

    const bool left_ref = config_.reference == StereoReference::kLeft;
    StereoFrameArgs a;
    a.ref = left_ref ? d_left_.as<uint8_t>() : d_right_.as<uint8_t>();
    a.oth = left_ref ? d_right_.as<uint8_t>() : d_left_.as<uint8_t>();
    a.img_pitch = img_pitch_;
    a.width = w;
    a.height = h;
    set_runtime(rt, &a);
    a.pre = d_pre_.as<uint32_t>();
    a.dkey = d_dkey_.as<uint32_t>();
    a.tex = d_tex_.as<uint16_t>();
    a.out = d_out_.as<uint16_t>();
    a.out_pitch = out_pitch_;
    plan_stereo_frame(plan_, rt.lr_max_diff >= 0, w, h, target_ctas_, 0, &a);

    if (rt.lr_max_diff >= 0)
      CUDA_TRY(cudaMemsetAsync(a.dkey, 0xFF, px * sizeof(uint32_t), stream_));
    if (rt.texture_threshold > 0)
      CUDA_TRY(launch_stereo_texture(plan_, a, stream_));
    CUDA_TRY(launch_stereo_cost(plan_, a, stream_));
    CUDA_TRY(launch_stereo_finish(plan_, a, stream_));
    CUDA_TRY(cudaEventRecord(k1_, stream_));
    const size_t row_bytes = static_cast<size_t>(w) * sizeof(uint16_t);
    CUDA_TRY(
        cudaMemcpy2DAsync(results_.p, row_bytes, d_out_.p,
                          static_cast<size_t>(out_pitch_) * sizeof(uint16_t),
                          row_bytes, h, cudaMemcpyDeviceToHost, stream_));
    CUDA_TRY(cudaEventRecord(done_, stream_));
    CUDA_TRY(cudaEventSynchronize(done_));
    queued_ = false;

    const uint8_t* res = static_cast<const uint8_t*>(results_.p);
    const int team = host_copy_threads(0);
    MATCH_OMP(parallel for schedule(static) num_threads(team) if (team > 1 && px >= (1u << 20)))
    for (int y = 0; y < h; ++y)
      std::memcpy(out.row(y), res + y * row_bytes, row_bytes);
    float ms = -1.f;
    if (cudaEventElapsedTime(&ms, k0_, k1_) == cudaSuccess)
      stats_.kernel_ms = ms;
    return Status::ok();
  }

  MatcherStats stats() const override { return stats_; }

 private:
  int device_;
  std::string name_;
  StereoPlan plan_;
  int target_ctas_ = 1;
  bool queued_ = false; /* work of a failed process() may still be queued */
  int img_pitch_ = 0, out_pitch_ = 0;
  cudaStream_t stream_ = nullptr;
  cudaEvent_t k0_ = nullptr, k1_ = nullptr, done_ = nullptr;
  DeviceBuffer d_left_, d_right_, d_pre_, d_dkey_, d_tex_, d_out_;
  HostBuffer staging_, results_;
  MatcherStats stats_;
};

}  // namespace

Status create_stereo_matcher(const StereoConfig& config,
                             const DeviceOptions& devices,
                             std::unique_ptr<StereoMatcher>* out) {
  Status st = config.validate();
  if (!st) return st;
  /* One GPU per matcher: a stereo pair is one small job. */
  int d = 0;
  if (!(st = pick_one_device(devices, "CUDA stereo", &d))) return st;
  std::unique_ptr<CudaStereoMatcher> m(new CudaStereoMatcher(config, d));
  if (!(st = m->init())) return st;
  out->reset(m.release());
  return Status::ok();
}

Status emulate_stereo_match(const ImageView& left, const ImageView& right,
                            const StereoConfig& config, const StereoRuntime& rt,
                            const DisparityView& out, int band_rows) {
  Status st = config.validate();
  if (!st) return st;
  if (!(st = check_stereo_frame(config, left, right, rt, out))) return st;
  const int w = config.width, h = config.height;
  const size_t px = static_cast<size_t>(w) * h;
  /* Packed copies with padded rows, like the device's pitched images. */
  const int pitch = round_up(w, 128);
  std::vector<uint8_t> l(static_cast<size_t>(pitch) * h, 0),
      r(static_cast<size_t>(pitch) * h, 0);
  for (int y = 0; y < h; ++y) {
    std::memcpy(&l[static_cast<size_t>(y) * pitch], left.row(y), w);
    std::memcpy(&r[static_cast<size_t>(y) * pitch], right.row(y), w);
  }
  /* Stale contents, as the device buffers have from earlier frames. */
  std::vector<uint32_t> pre(px, 0xDEADBEEFu), dkey(px, 0x12345678u);
  std::vector<uint16_t> tex(px, 0x5A5A), dst(px, 0x7777);
  const StereoPlan plan = plan_stereo(config);
  const bool left_ref = config.reference == StereoReference::kLeft;
  StereoFrameArgs a;
  a.ref = left_ref ? l.data() : r.data();
  a.oth = left_ref ? r.data() : l.data();
  a.img_pitch = pitch;
  a.width = w;
  a.height = h;
  set_runtime(rt, &a);
  a.pre = pre.data();
  a.dkey = dkey.data();
  a.tex = tex.data();
  a.out = dst.data();
  a.out_pitch = w;
  /* An H100's grid (132 SMs, 2 waves of ~4 CTAs) unless forced. */
  plan_stereo_frame(plan, rt.lr_max_diff >= 0, w, h, 2 * 4 * 132, band_rows,
                    &a);
  if (rt.lr_max_diff >= 0) std::fill(dkey.begin(), dkey.end(), 0xFFFFFFFFu);
  if (rt.texture_threshold > 0) emulate_stereo_texture(plan, a);
  emulate_stereo_cost(plan, a);
  emulate_stereo_finish(plan, a);
  for (int y = 0; y < h; ++y)
    std::memcpy(out.row(y), &dst[static_cast<size_t>(y) * w],
                static_cast<size_t>(w) * sizeof(uint16_t));
  return Status::ok();
}

}  // namespace cuda
}  // namespace match
