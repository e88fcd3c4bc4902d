/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * OpenMP CPU backend for stereo matching (match/stereo.h;
 * paper [D] and SGM, README's References). The
 * definitions are those of ref/stereo_ref.cpp, which this backend
 * reproduces exactly; only the computation differs. Per pair:
 * - kSobel and kCensus first turn both views into their per-pixel images
 *   (cpu/stereo_census_cpu.h); kSad reads the luma.
 * - kBlock: the rolling-sum loop below, on the luma or the Sobel image
 *   (uint8, the very same loop: the definitions coincide) or, for census,
 *   the same loop over uint32/uint64 strings with popcount as rho.
 * - kSgm: cpu/stereo_sgm_cpu.h (paths, WTA and the tests in bounded
 *   memory).
 * - Then the median and speckle filters (host/stereo_postfilter.h).
 * The block loop (cpu/stereo_cpu_impl.h):
 *
 * - Rolling sums: per-column sums of the window height roll down the
 *   image and block sums roll along the row, so each (pixel, disparity)
 *   costs O(1) whatever the window, and disparities are the contiguous
 *   axis the loops are vectorised over.
 * - Threads own strips of rows ([D] gives strips of columns; rows keep each
 *   row's cost vectors, and with them the left-right check's map of the
 *   other view, inside one thread). Each strip primes its own column sums,
 *   which costs window_height extra rows per strip.
 * - The instruction set is picked once (cpu::detect_isa, so MATCH_CPU_ISA
 *   can force a lower one) among the same source compiled three ways:
 *   AVX2 (stereo_cpu_avx2.cpp), baseline SSE2 (this file) and scalar
 *   (stereo_cpu_scalar.cpp). For 16-bit costs AVX2 runs instead the
 *   hand-written loop of stereo_cpu_simd.h, and where cpuid reports
 *   AVX-512BW the same loop built for it (stereo_cpu_avx512.cpp; about
 *   twice the AVX2 speed with the left-right check, which keeps its state
 *   in registers there). MATCH_CPU_ISA=avx2 or lower turns AVX-512 off.
 *   Census strings take the compiler-vectorised loop at every level, its
 *   popcounts a row at a time (stereo_rho_row: a vpshufb table in the
 *   AVX2 build); SGM's kernels follow the same three builds, plus one for
 *   AVX-512 with VPOPCNTDQ.
 * - Costs are uint16 when the largest one (window area x 255) fits, which
 *   halves the memory traffic and doubles the lanes; uint32 otherwise.
 * - Scratch is allocated at create time for the default thread count; a
 *   larger StereoRuntime::threads grows it once, never per frame.
 */
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "cpu_isa.h"
#include "internal.h"
#include "match/log.h"
#include "match/stereo.h"
#include "stereo_census_cpu.h"
#include "stereo_cpu_impl.h"
#include "host/stereo_postfilter.h"
#include "stereo_sgm_cpu.h"
#include "threads.h"

namespace match {
namespace cpu {

StereoKernels stereo_kernels_sse2() {
  return StereoKernels{stereo_strip<uint16_t>, stereo_strip<uint32_t>,
                       stereo_strip<uint16_t, uint32_t>,
                       stereo_strip<uint16_t, uint64_t>};
}
#if !defined(MATCH_HAVE_AVX2_TU)
StereoKernels stereo_kernels_avx2() { return stereo_kernels_sse2(); }
#endif
#if !defined(MATCH_HAVE_AVX512_TU)
StereoStripFn stereo_kernel_avx512_cost16() { return nullptr; }
#endif

namespace {

constexpr size_t kAlign = 64;

/* AVX-512BW for the 16-bit loop, where that loop was built (cpu_isa.h
 * decides whether the CPU and MATCH_CPU_ISA allow it). */
bool stereo_use_avx512(Isa isa) {
#if defined(MATCH_HAVE_AVX512_TU)
  return isa_has_avx512bw(isa);
#else
  (void)isa;
  return false;
#endif
}

size_t align_up(size_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

/* One thread's scratch: a single allocation cut into the strip's buffers. */
class StereoScratch {
 public:
  /* pb: bytes per pixel of the images the cost compares. */
  void allocate(const StereoConfig& c, int n_pad, int pb) {
    const int hw = (c.window_width - 1) / 2;
    const int dmax = c.min_disparity + c.num_disparities - 1;
    /* The widest column range: the left-right check's. */
    const size_t cols = static_cast<size_t>(c.width) + dmax;
    const size_t ucount = cols + 2 * hw;
    /* colsum: one more (zero) column for the SIMD loop's x = 0. */
    sizes_[0] = (ucount + 1) * n_pad * sizeof(uint16_t);
    /* cost: the SIMD loop keeps a ring of kStereoCostRing rows. */
    sizes_[1] = kStereoCostRing * n_pad * sizeof(uint16_t);
    sizes_[2] = 2 * ucount * pb;                       /* ref_ext */
    sizes_[3] = 2 * (ucount + n_pad) * pb;             /* oth_ext */
    sizes_[4] = (cols + 2 * n_pad) * sizeof(uint32_t); /* diag */
    sizes_[5] = c.width * sizeof(int32_t);             /* best_d */
    /* value; the SIMD loop also keeps C(d*), C(d* -/+ 1) per pixel. */
    sizes_[6] = 4 * c.width * sizeof(uint16_t);
    sizes_[7] = (c.width + 2 * hw) * sizeof(uint32_t); /* tex_col */
    size_t total = kAlign;
    for (size_t sz : sizes_) total += align_up(sz);
    buf_.assign(total, 0);
  }

  void bind(StereoStrip* s) {
    uintptr_t p = reinterpret_cast<uintptr_t>(buf_.data());
    p = (p + kAlign - 1) / kAlign * kAlign;
    void* part[8];
    for (int i = 0; i < 8; ++i) {
      part[i] = reinterpret_cast<void*>(p);
      p += align_up(sizes_[i]);
    }
    s->colsum = static_cast<uint16_t*>(part[0]);
    s->cost = part[1];
    s->ref_ext = static_cast<uint8_t*>(part[2]);
    s->oth_ext = static_cast<uint8_t*>(part[3]);
    s->diag = static_cast<uint32_t*>(part[4]);
    s->best_d = static_cast<int32_t*>(part[5]);
    s->value = static_cast<uint16_t*>(part[6]);
    s->tex_col = static_cast<uint32_t*>(part[7]);
  }

 private:
  std::vector<uint8_t> buf_;
  size_t sizes_[8] = {};
};

class CpuStereoMatcher final : public StereoMatcher {
 public:
  explicit CpuStereoMatcher(const StereoConfig& config) {
    config_ = config;
    isa_ = detect_isa();
    const StereoKernels k = isa_ == Isa::kAvx2   ? stereo_kernels_avx2()
                            : isa_ == Isa::kSse2 ? stereo_kernels_sse2()
                                                 : stereo_kernels_scalar();
    is_sgm_ = config.method == StereoMethod::kSgm;
    images_.allocate(config);
    if (is_sgm_) {
#if defined(MATCH_HAVE_SGM_AVX512_TU)
      avx512_ = isa_has_avx512_vpopcntdq(isa_);
#endif
      sgm_kernels_ = avx512_              ? sgm_kernels_avx512()
                     : isa_ == Isa::kAvx2 ? sgm_kernels_avx2()
                     : isa_ == Isa::kSse2 ? sgm_kernels_sse2()
                                          : sgm_kernels_scalar();
      sgm_.allocate(config, default_threads());
    } else if (config.cost == StereoCost::kCensus) {
      /* Census costs always fit 16 bits (31 x 31 x 63 < 65536). */
      strip_ = images_.pixel_bytes() == 8 ? k.census64 : k.census32;
    } else {
      /* kSad and kSobel: the same uint8 loop, on the luma or the Sobel. */
      cost16_ = config.window_width * config.window_height * 255 < 65536;
      strip_ = cost16_ ? k.cost16 : k.cost32;
      avx512_ = cost16_ && stereo_use_avx512(isa_);
      if (avx512_) strip_ = stereo_kernel_avx512_cost16();
    }
    n_pad_ = (config.num_disparities + 31) / 32 * 32;
    if (!is_sgm_) grow_scratch(default_threads());
    log(LogLevel::kInfo, "CPU stereo matcher %dx%d, disparities %d..%d, %s", config.width,
        config.height, config.min_disparity,
        config.min_disparity + config.num_disparities - 1, description().c_str());
  }

  Backend backend() const override { return Backend::kCpu; }
  std::string description() const override {
    static const char* const kCosts[] = {"sad", "sobel", "census", "census-ad"};
    std::string d = std::string("cpu (") + (avx512_ ? "avx512bw" : isa_name(isa_)) +
                    ", " + kCosts[static_cast<int>(config_.cost)] + ", ";
    if (is_sgm_) {
      /* The scratch of SGM (stereo_sgm_cpu.cpp gives the formula). */
      const size_t mb = (sgm_.memory_bytes() + images_.memory_bytes() + 500000) / 1000000;
      d += "sgm " + std::to_string(config_.paths) + " paths, " +
           std::to_string(sgm_.band_rows()) + "-row bands, " + std::to_string(mb) + " MB";
    } else {
      d += std::string("block, ") + (cost16_ ? "16" : "32") + "-bit costs";
    }
    return d + ", " + std::to_string(default_threads()) + " threads)";
  }

  Status process(const ImageView& left, const ImageView& right, const StereoRuntime& rt,
                 const DisparityView& out) override {
    const StereoConfig& c = config_;
    Status st = check_stereo_frame(c, left, right, rt, out);
    if (!st) return st;

    const auto t0 = std::chrono::steady_clock::now();
    const int team = tuner_.next(rt.threads, cpu_team(0));
    /* The post-filters run with the same team. */
    StereoRuntime prt = rt;
    prt.threads = team;
    const bool left_ref = c.reference == StereoReference::kLeft;
    images_.compute(left_ref ? left : right, left_ref ? right : left, team);
    if (is_sgm_) {
      sgm_.run(left_ref ? left : right, left_ref ? right : left, images_, rt, out, team,
               sgm_kernels_);
      host::stereo_postfilter(out, left_ref ? left : right, prt, &post_);
      tuner_.record_since(t0);
      return Status::ok();
    }
    const int threads = std::min(team, c.height);
    grow_scratch(threads);
    const ImageView a_ref = images_.view(0), a_oth = images_.view(1);

    const int dmax = c.min_disparity + c.num_disparities - 1;
    StereoStrip base{};
    base.ref = left_ref ? &left : &right;
    base.ref_a = &a_ref;
    base.oth_a = &a_oth;
    base.left_ref = left_ref;
    base.width = c.width;
    base.height = c.height;
    base.hw = (c.window_width - 1) / 2;
    base.hh = (c.window_height - 1) / 2;
    base.dmin = c.min_disparity;
    base.n = c.num_disparities;
    base.n_pad = n_pad_;
    base.xbeg = 0;
    base.xend = c.width;
    if (rt.lr_max_diff >= 0) {
      /* Every x' of the other view needs C(x' +/- d, d) for all d. */
      if (left_ref)
        base.xend = c.width + dmax;
      else
        base.xbeg = -dmax;
    }
    base.subpixel = rt.subpixel;
    base.lr_max_diff = rt.lr_max_diff;
    base.uniqueness_ratio = rt.uniqueness_ratio;
    base.texture_threshold = rt.texture_threshold;
    base.out = &out;

    MATCH_OMP(parallel num_threads(threads) if (threads != 1)) {
      int tid = 0, team = 1;
#if defined(_OPENMP)
      tid = omp_get_thread_num();
      team = omp_get_num_threads();
#endif
      StereoStrip s = base;
      s.y0 = static_cast<int>(static_cast<int64_t>(c.height) * tid / team);
      s.y1 = static_cast<int>(static_cast<int64_t>(c.height) * (tid + 1) / team);
      scratch_[tid].bind(&s);
      if (s.y1 > s.y0) strip_(s);
    }
    host::stereo_postfilter(out, left_ref ? left : right, prt, &post_);
    tuner_.record_since(t0);
    return Status::ok();
  }

 private:
  /* n-threads = 0: this process's cores shared among its CPU matchers
   * (threads.h). */
  static int default_threads() { return cpu_team(0); }

  void grow_scratch(int threads) {
    const size_t old = scratch_.size();
    if (static_cast<size_t>(threads) <= old) return;
    scratch_.resize(threads);
    for (size_t i = old; i < scratch_.size(); ++i)
      scratch_[i].allocate(config_, n_pad_, images_.pixel_bytes());
  }

  CpuUser user_;    /* counts in cpu_team()'s share while this matcher lives */
  TeamTuner tuner_; /* the default team within that share */
  Isa isa_ = Isa::kScalar;
  bool cost16_ = true;
  bool avx512_ = false;
  int n_pad_ = 32;
  StereoStripFn strip_ = nullptr;
  std::vector<StereoScratch> scratch_;
  bool is_sgm_ = false;
  StereoPixelImages images_; /* kSobel, kCensus: both views' A */
  StereoSgm sgm_;
  SgmKernels sgm_kernels_{};
  host::StereoPostfilterScratch post_;
};

}  // namespace

Status create_stereo_matcher(const StereoConfig& config,
                             std::unique_ptr<StereoMatcher>* out) {
  Status st = config.validate();
  if (!st) return st;
  out->reset(new CpuStereoMatcher(config));
  return Status::ok();
}

}  // namespace cpu
}  // namespace match
