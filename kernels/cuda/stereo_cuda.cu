/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA backend of stereo matching: device buffers, streams and the
 * per-pair sequence of stages (one .cu each, listed in stereo_stages.cuh;
 * definitions in match/stereo.h).
 *
 * Data flow for pair n (ring slot i = n % kRing, compute lane
 * l = n % kLanes), three streams:
 *   host:    left, right -> staging[i] (pinned; host_copy_threads)
 *   copy:    wait k1[i] (the kernels of pair n - kRing have read img[i]) ;
 *            staging[i] -> img[i] (left, right; pitched) ; rec h2d[i]
 *   compute[l]: wait h2d[i] ; rec k0[i] ; [per-pixel images] ;
 *            [texture: row sums] ; block: [LR: dkey <- 0xFF..] block
 *            kernel, or SGM: cost ; paths ; WTA ; finish ; [median] ;
 *            [fill] ; [joint median] -> map[i] ; rec k1[i] ; output ->
 *            results[i] (pinned) ; rec done[i]
 * where "output" is the download of map[i] (16-bit), or the conversion
 * kernel (disparity_output_cuda.cu: map[i] -> conv through the table) and
 * the download of conv, only the converted bytes (1 to 3 per pixel). The
 * post-filters run on the device (the median and the joint median from one
 * map buffer into the other, tmp or map[i], the fill in place), except
 * after a speckle filter: a connected-components pass has no kernel here,
 * so the 16-bit map is downloaded and collect() runs the speckle filter,
 * then the fill and the joint median (with the reference luma still in
 * staging[i]), on the host (host::stereo_postfilter), and converts there.
 * The upload has its own stream, so with pairs in flight (submit() ahead of
 * collect()) the upload of pair n + 1 overlaps the kernels of pair n, and
 * consecutive pairs' kernels run side by side on the two compute lanes.
 * The scratch of the kernels (per-pixel images, pre, dkey, tex, tmp, the
 * SGM volumes, conv) is one set per lane: a lane runs one pair's kernels
 * and download after the other's. (SGM's volumes are sized for the
 * config's default penalties; a pair whose penalties need larger ones
 * takes both lanes' and waits for the other lane's SGM stages, and the
 * next pair on the other lane waits for its: sgm_volume_layout.) The map
 * has a slot per pair in flight, so that it stays on the device until the
 * pair is collected.
 * collect() waits on done[i] only (no device-wide synchronisation), then
 * copies the output into the caller's view (any stride). process() is
 * submit() then collect(). stats().kernel_ms is k0 -> k1 (device work, not
 * the copies). Everything is allocated when the matcher is made; nothing
 * per pair.
 *
 * Output conversion (collect(DisparityOutputView, DisparityOutputParams)):
 * the params come with collect(), after the pair's download was queued by
 * submit(). submit() therefore queues the output the last collect() asked
 * for (the 16-bit map before any), which in steady use is the one wanted,
 * so the pipelining is unchanged. When collect() wants another output (the
 * first converted collect, a change of params, plain collect() after a
 * converted one), it waits for the compute stream, uploads the table if the
 * params changed (built on the host by the CPU's code, so the bytes are the
 * CPU's; the table is only rewritten with no conversion queued), converts
 * and downloads again from the pair's map[i], and queues that output for
 * the next pairs.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "host/disparity_output_lut.h"
#include "host/stereo_postfilter.h"
#include "cuda_check.h"
#include "disparity_output_cuda.cuh"
#include "internal.h"
#include "match/disparity_output.h"
#include "match/log.h"
#include "match/stereo.h"
#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace {

/* Pairs in flight: an element's largest pipeline depth (4) plus the pair
 * being submitted. Each slot costs 5 bytes per pixel of pinned host memory
 * (both views and the output, up to 3 bytes for RGB) and 4 of device memory
 * (both views and the 16-bit map). */
constexpr int kRing = 5;
/* Compute lanes: consecutive pairs alternate between two compute streams,
 * each with its own scratch, so that the kernels of pair n + 1 overlap
 * those of pair n when pairs are in flight. The SGM passes are bound by
 * load latency and DRAM access patterns rather than by peak bandwidth, so
 * two pairs side by side raise the throughput (pairs per second); a lone
 * pair (process()) runs as before. */
constexpr int kLanes = 2;
static_assert(kRing <= kMaxInFlight, "ring larger than the API's bound");
/* The 16-bit outputs are downloaded as they are: GRAY16_LE on the host. */
static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "the CUDA stereo backend assumes a little-endian host");

/* What a pair's download holds: the 16-bit map, or a conversion. */
struct OutputKind {
  bool convert = false;
  DisparityOutputParams params; /* when convert */

  bool operator==(const OutputKind& o) const {
    return convert == o.convert && (!convert || params == o.params);
  }
  bool operator!=(const OutputKind& o) const { return !(*this == o); }
};

OutputKind output_kind(const DisparityOutputParams& params) {
  OutputKind k;
  k.convert = params.mode != DisparityOutputMode::kDisparity;
  if (k.convert) k.params = params;
  return k;
}

int bytes_per_pixel(const OutputKind& k) {
  return k.convert ? disparity_output_bytes_per_pixel(k.params.mode)
                   : static_cast<int>(sizeof(uint16_t));
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }
size_t round_up(size_t v, size_t m) { return (v + m - 1) / m * m; }

class CudaStereoMatcher final : public StereoMatcher {
 public:
  CudaStereoMatcher(const StereoConfig& config, int device) : device_(device) {
    config_ = config;
  }

  ~CudaStereoMatcher() override {
    cudaSetDevice(device_);
    /* The copies read pinned memory freed below. */
    sync_streams();
    for (int i = 0; i < kRing; ++i)
      for (cudaEvent_t e : {h2d_[i], k0_[i], k1_[i], done_[i]})
        if (e) cudaEventDestroy(e);
    for (cudaEvent_t e : sgm_done_)
      if (e) cudaEventDestroy(e);
    for (cudaStream_t s : {copy_, compute_[0], compute_[1]})
      if (s) cudaStreamDestroy(s);
  }

  Status init() {
    CUDA_TRY(cudaSetDevice(device_));
    cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, device_));
    name_ = prop.name;
    plan_ = plan_stereo(config_);
    int optin = 0;
    CUDA_TRY(
        cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    if (plan_.smem_bytes > static_cast<size_t>(optin))
      return Status(StatusCode::kUnavailable,
                    "stereo kernel needs " + std::to_string(plan_.smem_bytes) +
                        " B of shared memory per block; cuda:" + std::to_string(device_) +
                        " allows " + std::to_string(optin));
    int per_sm = 0;
    CUDA_TRY(stereo_prepare_device(plan_, &per_sm));
    if (per_sm < 1)
      return Status(
          StatusCode::kUnavailable,
          "stereo kernel does not fit on an SM of cuda:" + std::to_string(device_));
    /* Two waves of resident CTAs: enough for the tail not to matter. */
    target_ctas_ = 2 * per_sm * prop.multiProcessorCount;
    CUDA_TRY(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
    for (cudaStream_t& c : compute_)
      CUDA_TRY(cudaStreamCreateWithFlags(&c, cudaStreamNonBlocking));
    for (int i = 0; i < kRing; ++i) {
      CUDA_TRY(cudaEventCreateWithFlags(&h2d_[i], cudaEventDisableTiming));
      CUDA_TRY(cudaEventCreate(&k0_[i]));
      CUDA_TRY(cudaEventCreate(&k1_[i]));
      CUDA_TRY(cudaEventCreateWithFlags(&done_[i], cudaEventDisableTiming));
    }
    for (cudaEvent_t& e : sgm_done_)
      CUDA_TRY(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));

    const int w = config_.width, h = config_.height;
    const size_t px = static_cast<size_t>(w) * h;
    img_pitch_ = round_up(w, 128);
    out_pitch_ = round_up(w, 128); /* elements */
    img_bytes_ = static_cast<size_t>(img_pitch_) * h;
    stage_bytes_ = round_up(2 * px, size_t(256));
    map_bytes_ = static_cast<size_t>(out_pitch_) * h * sizeof(uint16_t);
    /* The largest output: RGB. */
    result_bytes_ = round_up(px * 3, size_t(256));
    const size_t lut_bytes = static_cast<size_t>(host::kDisparityOutputLutEntries) * 3;
    Status st;
    if (!(st = d_img_.ensure(device_, 2 * img_bytes_ * kRing))) return st;
    px_ = px;
    if (!(st = d_pre_.ensure(device_, kLanes * px * sizeof(uint32_t)))) return st;
    if (!(st = d_dkey_.ensure(device_, kLanes * px * sizeof(uint32_t)))) return st;
    if (!(st = d_tex_.ensure(device_, kLanes * px * sizeof(uint16_t)))) return st;
    if (!(st = d_map_.ensure(device_, map_bytes_ * kRing))) return st;
    /* The second map buffer of the post-filters. */
    if (!(st = d_tmp_.ensure(device_, kLanes * map_bytes_))) return st;
    feat_bytes_ = static_cast<size_t>(img_pitch_) * h * feature_bytes(config_.cost);
    if (feat_bytes_ && !(st = d_feat_.ensure(device_, kLanes * 2 * feat_bytes_)))
      return st;
    if (config_.method == StereoMethod::kSgm) {
      vol_layout_ = sgm_volume_layout(config_, kLanes);
      if (!(st = d_vol_.ensure(device_, vol_layout_.total_bytes))) return st;
    }
    if (!(st = d_conv_.ensure(device_, kLanes * px * 3))) return st;
    if (!(st = d_lut_.ensure(device_, lut_bytes))) return st;
    if (!(st = staging_.ensure(stage_bytes_ * kRing))) return st;
    if (!(st = results_.ensure(result_bytes_ * kRing))) return st;
    if (!(st = h_lut_.ensure(lut_bytes))) return st;
    /* Padding columns of the pitched images are never read (reads are
     * clamped to the width), but give them defined contents anyway. */
    CUDA_TRY(cudaMemsetAsync(d_img_.p, 0, d_img_.size, compute_[0]));
    CUDA_TRY(cudaStreamSynchronize(compute_[0]));
    log(LogLevel::kInfo,
        "CUDA stereo matcher %dx%d, %s %s, window %dx%d, disparities "
        "%d..%d, %s reference on %s: %d threads x %d columns per CTA, %zu B "
        "shared, %d CTAs per SM, %d pairs in flight at most",
        w, h,
        config_.method == StereoMethod::kSgm
            ? (config_.paths == 8 ? "SGM 8 paths" : "SGM 4 paths")
            : "block",
        config_.cost == StereoCost::kCensusAd ? "census + AD"
        : config_.cost == StereoCost::kCensus ? "census"
        : config_.cost == StereoCost::kSobel  ? "sobel"
                                              : "sad",
        config_.window_width, config_.window_height, config_.min_disparity,
        config_.min_disparity + config_.num_disparities - 1,
        config_.reference == StereoReference::kLeft ? "left" : "right",
        description().c_str(), plan_.threads, plan_.strip, plan_.smem_bytes, per_sm,
        kRing);
    return Status::ok();
  }

  Backend backend() const override { return Backend::kCuda; }

  std::string description() const override {
    return "cuda:" + std::to_string(device_) + " (" + name_ + ")";
  }

  int max_in_flight() const override { return kRing; }

  Status process(const ImageView& left, const ImageView& right, const StereoRuntime& rt,
                 const DisparityView& out) override {
    if (in_flight() > 0)
      return Status(StatusCode::kInvalidArgument,
                    "process() with stereo pairs in flight: collect() them "
                    "first");
    /* Checked before anything is queued, so that a bad output view does
     * not leave a pair in flight. */
    Status st = check_stereo_frame(config_, left, right, rt, out);
    if (!st) return st;
    if (!(st = submit(left, right, rt))) return st;
    st = collect(out);
    /* A failed wait leaves the pair in flight: drop it, so that the next
     * process() is not refused. */
    if (!st) reset();
    return st;
  }

  Status submit(const ImageView& left, const ImageView& right,
                const StereoRuntime& rt) override {
    if (pending_.count() >= kRing)
      return Status(StatusCode::kInvalidArgument,
                    "too many stereo pairs in flight: collect() first");
    const int i = static_cast<int>(next_ % kRing);
    /* The pair's own map slot stands in for the output view of the check
     * (the same size). */
    Status st = check_stereo_frame(config_, left, right, rt, result_view(i));
    if (!st) return st;
    CUDA_TRY(cudaSetDevice(device_));
    /* staging[i] and results[i] were last used by pair n - kRing, which
     * has been collected (its done[i], after its upload, was waited for)
     * or dropped by reset(), which waits for the streams: free. */
    uint8_t* stage_l = staging(i);
    uint8_t* stage_r = stage_l + static_cast<size_t>(config_.width) * config_.height;
    pack_views(left, right, stage_l, stage_r, host_copy_threads(rt.threads));
    lane_[i] = static_cast<int>(next_ % kLanes);
    st = enqueue(i, stage_l, stage_r, rt);
    if (!st) {
      /* Part of the pair may be queued, reading staging[i]: let it finish
       * before the slot is used again. */
      sync_streams();
      return st;
    }
    rt_[i] = rt;
    ++next_;
    pending_.push();
    return Status::ok();
  }

  Status collect(const DisparityView& out) override {
    if (pending_.count() == 0)
      return Status(StatusCode::kInvalidArgument, "no stereo pair in flight");
    if (!out.data || out.width != config_.width || out.height != config_.height)
      return Status(StatusCode::kInvalidArgument,
                    "disparity output view is not " + std::to_string(config_.width) +
                        "x" + std::to_string(config_.height));
    return collect_as(OutputKind(), reinterpret_cast<uint8_t*>(out.data),
                      out.stride_bytes);
  }

  Status collect(const DisparityOutputView& out,
                 const DisparityOutputParams& params) override {
    if (pending_.count() == 0)
      return Status(StatusCode::kInvalidArgument, "no stereo pair in flight");
    Status st = check_disparity_output(params, out, config_.width, config_.height);
    if (!st) return st;
    return collect_as(output_kind(params), out.data, out.stride_bytes);
  }

  void reset() override {
    cudaSetDevice(device_);
    sync_streams();
    pending_.clear();
  }

  MatcherStats stats() const override { return stats_; }

 private:
  void sync_streams() {
    for (cudaStream_t s : {copy_, compute_[0], compute_[1]})
      if (s) cudaStreamSynchronize(s);
  }
  uint8_t* staging(int i) const {
    return static_cast<uint8_t*>(staging_.p) + stage_bytes_ * i;
  }
  uint8_t* results(int i) const {
    return static_cast<uint8_t*>(results_.p) + result_bytes_ * i;
  }
  DisparityView result_view(int i) const {
    DisparityView v;
    v.data = reinterpret_cast<uint16_t*>(results(i));
    v.width = config_.width;
    v.height = config_.height;
    v.stride_bytes = static_cast<std::ptrdiff_t>(config_.width) * sizeof(uint16_t);
    return v;
  }
  uint8_t* d_img(int i, int view) const {
    return d_img_.as<uint8_t>() + img_bytes_ * (2 * i + view);
  }
  uint16_t* d_map(int i) const {
    return reinterpret_cast<uint16_t*>(d_map_.as<uint8_t>() + map_bytes_ * i);
  }

  /* The rest of collect(): waits for the oldest pair's output as `want`
   * (queued again first when submit() queued another, see the top of the
   * file) and copies its rows into dst. */
  Status collect_as(const OutputKind& want, uint8_t* dst, std::ptrdiff_t dst_stride) {
    const int i = static_cast<int>((next_ - pending_.count()) % kRing);
    CUDA_TRY(cudaSetDevice(device_));
    /* A speckle filter runs here on the 16-bit map (its download was
     * queued by submit()), and the filters and conversion after it, on
     * the host. */
    const bool host_post = rt_[i].speckle_size > 0;
    if (host_post && want.convert) {
      try {
        host_lut_.update(want.params);
      } catch (const std::bad_alloc&) {
        return Status(StatusCode::kOutOfMemory,
                      "out of memory converting a disparity map");
      }
    }
    if (!host_post && slot_out_[i] != want) {
      /* The pair's own kernels and output, and those of the pairs queued
       * after it, are done: the table and conv are free, map[i] is the
       * pair's until its slot is reused (after this collect). */
      for (cudaStream_t c : compute_) CUDA_TRY(cudaStreamSynchronize(c));
      if (want.convert && !(lut_valid_ && lut_params_ == want.params)) {
        lut_valid_ = false;
        host::build_disparity_output_lut(want.params, static_cast<uint8_t*>(h_lut_.p));
        CUDA_TRY(cudaMemcpyAsync(
            d_lut_.p, h_lut_.p,
            static_cast<size_t>(host::kDisparityOutputLutEntries) * bytes_per_pixel(want),
            cudaMemcpyHostToDevice, compute_[lane_[i]]));
        /* The other lane's conversions queued from now on read it too:
         * done before anything else is queued (it takes microseconds). */
        CUDA_TRY(cudaStreamSynchronize(compute_[lane_[i]]));
        lut_params_ = want.params;
        lut_valid_ = true;
      }
      Status st = enqueue_output(i, want);
      if (!st) return st;
      /* The next pairs' output. */
      predict_ = want;
    }
    CUDA_TRY(cudaEventSynchronize(done_[i]));
    pending_.pop();
    const int w = config_.width, h = config_.height;
    const uint8_t* res = results(i);
    const int team = host_copy_threads(rt_[i].threads);
    float ms = -1.f;
    if (cudaEventElapsedTime(&ms, k0_[i], k1_[i]) == cudaSuccess) stats_.kernel_ms = ms;
    if (host_post) {
      const DisparityView map = result_view(i);
      StereoRuntime post = rt_[i];
      post.median = false; /* done on the device, before the download */
      const uint8_t* stage_l = staging(i);
      ImageView ref;
      ref.data = config_.reference == StereoReference::kLeft
                     ? stage_l
                     : stage_l + static_cast<size_t>(w) * h;
      ref.width = w;
      ref.height = h;
      ref.stride_bytes = w;
      host::stereo_postfilter(map, ref, post, &post_scratch_);
      if (want.convert) {
        DisparityOutputView ov;
        ov.data = dst;
        ov.width = w;
        ov.height = h;
        ov.stride_bytes = dst_stride;
        host_lut_.convert(ConstDisparityView(map.data, w, h, map.stride_bytes), ov, team);
        return Status::ok();
      }
    }
    const size_t row_bytes = static_cast<size_t>(w) * bytes_per_pixel(want);
    MATCH_OMP(parallel for schedule(static) num_threads(team)
              if (team > 1 && row_bytes * h >= (2u << 20)))
    for (int y = 0; y < h; ++y)
      std::memcpy(dst + y * dst_stride, res + y * row_bytes, row_bytes);
    return Status::ok();
  }

  /* Queues slot i's output on the compute stream (after its finish
   * kernel): the map's download, or the conversion and its download, into
   * results[i]; then done[i]. A conversion needs the table of its params
   * on the device (lut_params_). */
  Status enqueue_output(int i, const OutputKind& kind) {
    const int w = config_.width, h = config_.height;
    cudaStream_t stream = compute_[lane_[i]];
    uint8_t* conv = d_conv_.as<uint8_t>() + lane_[i] * px_ * 3;
    const size_t map_pitch_bytes = static_cast<size_t>(out_pitch_) * sizeof(uint16_t);
    if (!kind.convert) {
      const size_t row_bytes = static_cast<size_t>(w) * sizeof(uint16_t);
      CUDA_TRY(cudaMemcpy2DAsync(results(i), row_bytes, d_map(i), map_pitch_bytes,
                                 row_bytes, h, cudaMemcpyDeviceToHost, stream));
    } else {
      const int bpp = bytes_per_pixel(kind);
      const size_t row_bytes = static_cast<size_t>(w) * bpp;
      CUDA_TRY(disparity_output(d_map(i), out_pitch_, w, h, d_lut_.as<uint8_t>(), bpp,
                                conv, row_bytes, stream));
      CUDA_TRY(cudaMemcpyAsync(results(i), conv, row_bytes * h, cudaMemcpyDeviceToHost,
                               stream));
    }
    CUDA_TRY(cudaEventRecord(done_[i], stream));
    slot_out_[i] = kind;
    return Status::ok();
  }

  /* The one host-side copy of a pair: both views into packed pinned rows
   * (one thread moves ~10 GB/s, so large frames get a few). */
  static void pack_views(const ImageView& l, const ImageView& r, uint8_t* dl, uint8_t* dr,
                         int team) {
    const int w = l.width, h = l.height;
    MATCH_OMP(parallel for schedule(static) num_threads(team)
              if (team > 1 && size_t(w) * h >= (1u << 20)))
    for (int k = 0; k < 2 * h; ++k) {
      const int y = k < h ? k : k - h;
      const ImageView& v = k < h ? l : r;
      uint8_t* d = k < h ? dl : dr;
      std::memcpy(d + static_cast<size_t>(y) * w, v.row(y), w);
    }
  }

  /* Queues the upload of slot i's views (copy stream), the kernels and the
   * map's download (compute stream). */
  Status enqueue(int i, const uint8_t* stage_l, const uint8_t* stage_r,
                 const StereoRuntime& rt) {
    const int w = config_.width, h = config_.height;
    uint8_t* img_l = d_img(i, 0);
    uint8_t* img_r = d_img(i, 1);
    /* img[i] is free once the kernels of its previous pair have run (k1,
     * recorded after them; a slot never used has no record: no wait). */
    CUDA_TRY(cudaStreamWaitEvent(copy_, k1_[i], 0));
    CUDA_TRY(cudaMemcpy2DAsync(img_l, img_pitch_, stage_l, w, w, h,
                               cudaMemcpyHostToDevice, copy_));
    CUDA_TRY(cudaMemcpy2DAsync(img_r, img_pitch_, stage_r, w, w, h,
                               cudaMemcpyHostToDevice, copy_));
    CUDA_TRY(cudaEventRecord(h2d_[i], copy_));

    const int lane = lane_[i];
    cudaStream_t compute = compute_[lane];
    CUDA_TRY(cudaStreamWaitEvent(compute, h2d_[i], 0));
    CUDA_TRY(cudaEventRecord(k0_[i], compute));
    Status st = enqueue_kernels(img_l, img_r, rt, compute, d_map(i), lane);
    if (!st) return st;
    CUDA_TRY(cudaEventRecord(k1_[i], compute));
    /* A speckle filter needs the 16-bit map on the host. */
    return enqueue_output(i, rt.speckle_size > 0 ? OutputKind() : predict_);
  }

  /* Every stage of one pair on `stream` (stereo_stages.cuh), from both
   * views on the device (img_pitch_ bytes per row) to the 16-bit map `out`
   * (out_pitch_ elements per row), with the scratch of compute lane
   * `lane`. */
  Status enqueue_kernels(const uint8_t* img_l, const uint8_t* img_r,
                         const StereoRuntime& rt, cudaStream_t stream, uint16_t* out,
                         int lane) {
    const int w = config_.width, h = config_.height;
    const size_t px = static_cast<size_t>(w) * h;
    uint8_t* feat = d_feat_.as<uint8_t>() + lane * 2 * feat_bytes_;
    uint16_t* tmp = d_tmp_.as<uint16_t>() + lane * map_bytes_ / 2;
    /* The post-filters that run on the device (see the top of the file):
     * those from one buffer into the other decide where finish writes, so
     * that the last lands in out. */
    const bool on_device = rt.speckle_size == 0;
    const bool fill = on_device && rt.fill_invalid;
    const bool joint = on_device && rt.joint_median_radius > 0;
    StereoFrameArgs a = stereo_frame_args(
        config_, rt, img_l, img_r, img_pitch_, d_pre_.as<uint32_t>() + lane * px,
        d_dkey_.as<uint32_t>() + lane * px, d_tex_.as<uint16_t>() + lane * px,
        (rt.median + joint) % 2 ? tmp : out, out_pitch_);
    const uint8_t* ref_luma = a.ref;
    plan_stereo_frame(plan_, rt.lr_max_diff >= 0, w, h, target_ctas_, 0, &a);
    /* A: the luma (kSad) or the per-pixel images. */
    const void* a_l = feat_bytes_ ? feat : img_l;
    const void* a_r = feat_bytes_ ? feat + feat_bytes_ : img_r;

    if (feat_bytes_) {
      FeatureArgs f;
      f.img[0] = img_l;
      f.img[1] = img_r;
      f.img_pitch = img_pitch_;
      f.width = w;
      f.height = h;
      f.hcw = (config_.census_width - 1) / 2;
      f.hch = (config_.census_height - 1) / 2;
      f.out[0] = feat;
      f.out[1] = feat + feat_bytes_;
      f.out_pitch = img_pitch_;
      CUDA_TRY(launch_stereo_features(config_.cost, f, stream));
    }
    if (rt.texture_threshold > 0) CUDA_TRY(launch_stereo_texture(plan_, a, stream));
    if (config_.method == StereoMethod::kSgm) {
      const SgmPlan sp = plan_sgm(config_, rt);
      /* Volumes larger than a lane's take the whole allocation: after the
       * other lanes' SGM stages, as does every pair after such a pair. */
      const bool shared = sgm_volumes_shared(vol_layout_, config_, sp);
      for (int o = 0; o < kLanes; ++o)
        if (o != lane && sgm_queued_[o] && (shared || sgm_shared_[o]))
          CUDA_TRY(cudaStreamWaitEvent(stream, sgm_done_[o], 0));
      uint8_t* vol = d_vol_.as<uint8_t>() + (shared ? 0 : lane * vol_layout_.lane_bytes);
      const SgmArgs s = sgm_args(config_, rt, sp, a_l, a_r, img_l, img_r, img_pitch_,
                                 a.pre, a.dkey, vol);
      CUDA_TRY(launch_sgm_cost(sp, config_.cost, s, stream));
      CUDA_TRY(launch_sgm_paths(sp, s, stream));
      CUDA_TRY(launch_sgm_wta(sp, s, stream));
      CUDA_TRY(cudaEventRecord(sgm_done_[lane], stream));
      sgm_queued_[lane] = true;
      sgm_shared_[lane] = shared;
    } else {
      const bool left_ref = config_.reference == StereoReference::kLeft;
      set_block_inputs(config_.cost, left_ref ? a_l : a_r, left_ref ? a_r : a_l, &a);
      if (rt.lr_max_diff >= 0)
        CUDA_TRY(cudaMemsetAsync(a.dkey, 0xFF, px * sizeof(uint32_t), stream));
      CUDA_TRY(launch_stereo_block(plan_, a, stream));
    }
    CUDA_TRY(launch_stereo_finish(plan_, a, stream));
    uint16_t* map = a.out;
    auto other = [&](const uint16_t* m) { return m == tmp ? out : tmp; };
    if (rt.median) {
      CUDA_TRY(
          launch_stereo_median(map, out_pitch_, other(map), out_pitch_, w, h, stream));
      map = other(map);
    }
    if (fill)
      CUDA_TRY(launch_stereo_fill(map, out_pitch_, map, out_pitch_, w, h, stream));
    if (joint) /* other(map) == out */
      CUDA_TRY(launch_stereo_joint_median(
          map, out_pitch_, ref_luma, img_pitch_, other(map), out_pitch_, w, h,
          rt.joint_median_radius, rt.joint_median_range, stream));
    return Status::ok(); /* the last stage wrote out */
  }

  int device_;
  std::string name_;
  StereoPlan plan_;
  int target_ctas_ = 1;
  int img_pitch_ = 0, out_pitch_ = 0; /* out_pitch_: map rows, elements */
  size_t img_bytes_ = 0, stage_bytes_ = 0, result_bytes_ = 0, map_bytes_ = 0;
  cudaStream_t copy_ = nullptr, compute_[kLanes] = {};
  cudaEvent_t h2d_[kRing] = {}, k0_[kRing] = {}, k1_[kRing] = {}, done_[kRing] = {};
  StereoRuntime rt_[kRing]; /* the settings of each slot's pair */
  int lane_[kRing] = {};    /* compute lane of each slot's pair */
  host::StereoPostfilterScratch post_scratch_;
  host::DisparityOutputLut host_lut_; /* conversions after a speckle filter */
  OutputKind slot_out_[kRing];        /* what each slot's download holds */
  OutputKind predict_;                /* what submit() queues: the last collected */
  DisparityOutputParams lut_params_;  /* the table on the device */
  bool lut_valid_ = false;
  long long next_ = 0; /* pairs submitted so far */
  /* img: kRing x (left, right), img_pitch_ x height each; map: kRing x
   * out_pitch_ x height; conv: width x height x up to 3 bytes, packed;
   * lut: the conversion's table (65536 x up to 3 bytes). */
  /* feat: both views' per-pixel images (kSobel, kCensus), feat_bytes_
   * each, img_pitch_ elements per row; tmp: the post-filters' second map;
   * vol: SGM's volumes, vol_layout_ (stereo_sgm_plan.h). */
  DeviceBuffer d_img_, d_pre_, d_dkey_, d_tex_, d_map_, d_conv_, d_lut_, d_feat_, d_tmp_,
      d_vol_;
  size_t feat_bytes_ = 0, px_ = 0;
  SgmVolumeLayout vol_layout_;
  /* Per lane: the end of its last pair's SGM stages, whether one was
   * queued and whether it took the whole of vol. */
  cudaEvent_t sgm_done_[kLanes] = {};
  bool sgm_queued_[kLanes] = {}, sgm_shared_[kLanes] = {};
  HostBuffer staging_, results_, h_lut_;
  MatcherStats stats_;
};

}  // namespace

Status create_stereo_matcher(const StereoConfig& config, const DeviceOptions& devices,
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

StereoFrameArgs stereo_frame_args(const StereoConfig& config, const StereoRuntime& rt,
                                  const uint8_t* left, const uint8_t* right,
                                  int img_pitch, uint32_t* pre, uint32_t* dkey,
                                  uint16_t* tex, uint16_t* out, int out_pitch) {
  const bool left_ref = config.reference == StereoReference::kLeft;
  StereoFrameArgs a;
  a.ref = left_ref ? left : right;
  a.oth = left_ref ? right : left;
  a.img_pitch = img_pitch;
  a.width = config.width;
  a.height = config.height;
  a.subpixel = rt.subpixel ? 1 : 0;
  a.uniqueness = rt.uniqueness_ratio;
  a.lr_max_diff = rt.lr_max_diff;
  a.texture_threshold = rt.texture_threshold;
  a.pre = pre;
  a.dkey = dkey;
  a.tex = tex;
  a.out = out;
  a.out_pitch = out_pitch;
  return a;
}

void set_block_inputs(StereoCost cost, const void* fref, const void* foth,
                      StereoFrameArgs* a) {
  if (cost == StereoCost::kCensus) {
    a->cref = static_cast<const uint64_t*>(fref);
    a->coth = static_cast<const uint64_t*>(foth);
  } else if (cost == StereoCost::kSobel) {
    a->ref = static_cast<const uint8_t*>(fref);
    a->oth = static_cast<const uint8_t*>(foth);
  }
}

SgmArgs sgm_args(const StereoConfig& config, const StereoRuntime& rt, const SgmPlan& plan,
                 const void* a_left, const void* a_right, const uint8_t* left,
                 const uint8_t* right, int pitch, uint32_t* pre, uint32_t* dkey,
                 void* vol) {
  const bool left_ref = config.reference == StereoReference::kLeft;
  SgmArgs s;
  s.fref = left_ref ? a_left : a_right;
  s.foth = left_ref ? a_right : a_left;
  s.fpitch = pitch;
  s.luma = left_ref ? left : right;
  s.luma_oth = left_ref ? right : left;
  s.img_pitch = pitch;
  s.width = config.width;
  s.height = config.height;
  s.n = config.num_disparities;
  s.dmin = config.min_disparity;
  s.sign = left_ref ? -1 : 1;
  s.paths = config.paths;
  s.p1 = rt.p1;
  s.p2 = rt.p2;
  s.p2_edge = rt.p2_edge;
  s.ad = config.cost == StereoCost::kCensusAd ? 1 : 0;
  s.cost_window = config.cost_window;
  s.subpixel = rt.subpixel ? 1 : 0;
  s.uniqueness = rt.uniqueness_ratio;
  s.lr = rt.lr_max_diff >= 0 ? 1 : 0;
  s.vol = vol;
  /* The cost volume after the paths' volumes. */
  if (vol)
    s.cost = static_cast<uint8_t*>(vol) + static_cast<size_t>(config.paths) *
                                              (plan.wide ? 2 : 1) * config.width *
                                              config.height * plan.np;
  s.pre = pre;
  s.dkey = dkey;
  return s;
}

}  // namespace cuda
}  // namespace match
