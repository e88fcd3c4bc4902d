/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CUDA stereo backend against the plain reference, value for value
 * (sub-pixel and invalid included): random textured pairs with odd sizes
 * and padded strides, tiny frames (1x1, 3x2), frames narrower than the
 * disparity range, windows 1x1..31x31 (square and not), min_disparity 0,
 * > 0 and beyond the frame, 1..256 disparities, both reference views,
 * every runtime test alone, all off and all on; a matcher reused across
 * frames and settings; pipelined submit()/collect() at every depth against
 * process(); a 1080p pair against the CPU backend; device errors;
 * backend=auto.
 *
 * The CUDA cases skip without a GPU (match::cuda_device_count() == 0). The
 * same comparisons also run on the host emulation of the CUDA kernels
 * (cuda::emulate_stereo_match: every CTA's code, phase by phase, on the
 * CPU), which needs no GPU, only a build with the CUDA backend: it checks
 * the kernels' indexing, clamping, tie and sub-pixel arithmetic, and the
 * left-right diagonal, everywhere CI runs.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "../common/frame.h"
#include "../common/stereo_testutil.h"
#include "cuda/stereo_sgm_plan.h"
#include "host/disparity_output_lut.h"
#include "internal.h"
#include "match/disparity_output.h"
#include "match/blockmatch.h"
#include "match/stereo.h"
#include "testing/stereo_emulation.h"

using match::Backend;
using match::DeviceOptions;
using match::DisparityView;
using match::kInvalidDisparity;
using match::StatusCode;
using match::StereoConfig;
using match::StereoMatcher;
using match::StereoReference;
using match::StereoRuntime;

namespace {

using Map = DisparityMap;
constexpr uint16_t kPad = kStereoPad;

enum class Pattern { kTexture, kLowContrast, kBinary };

struct Case {
  int w, h, stride;
  int ww, wh;
  int dmin, n;
  StereoReference ref;
  Pattern pattern;
};

std::string describe(const Case& c) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "%dx%d/%d win %dx%d d %d+%d %s%s", c.w, c.h, c.stride,
                c.ww, c.wh, c.dmin, c.n,
                c.ref == StereoReference::kLeft ? "left" : "right",
                c.pattern == Pattern::kBinary        ? " binary"
                : c.pattern == Pattern::kLowContrast ? " low-contrast"
                                                     : "");
  return buf;
}

StereoConfig config_of(const Case& c) {
  StereoConfig s;
  s.width = c.w;
  s.height = c.h;
  s.window_width = c.ww;
  s.window_height = c.wh;
  s.min_disparity = c.dmin;
  s.num_disparities = c.n;
  s.reference = c.ref;
  return s;
}

/* Left view: smoothed noise (optionally quantised to 3 levels, or binary
 * 0/255 for the largest costs); right view: the left shifted by a piecewise
 * constant disparity around the configured range, plus noise. Also a flat
 * patch in both (ties, texture failures). */
void make_pair(const Case& c, unsigned seed, Frame* left, Frame* right) {
  const int w = c.w, h = c.h;
  *left = make_noise_frame(w, h, c.stride, seed);
  *right = make_noise_frame(w, h, c.stride, seed + 1);
  Frame n = make_noise_frame(w + 2, h + 2, w + 2, seed + 3);
  std::mt19937 rng(seed + 2);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int v;
      if (c.pattern == Pattern::kBinary) {
        v = (n.at(x, y) & 1) ? 255 : 0;
      } else {
        v = box3_mean(n, x, y);
        if (c.pattern == Pattern::kLowContrast) v = (v * 3 / 256) * 100;
      }
      if (x >= w / 3 && x < w / 3 + w / 5 && y >= h / 4 && y < h / 2) v = 77;
      left->at(x, y) = static_cast<uint8_t>(v);
    }
  /* Disparities around the configured range; no noise on binary views. */
  synthesise_right_view(*left, std::max(0, c.dmin - 2), c.dmin + c.n + 1,
                        c.pattern == Pattern::kBinary ? 0 : 2, &rng, right);
}

struct Variant {
  const char* name;
  StereoRuntime rt;
};

StereoRuntime make_rt(bool subpixel, int lr, int uniq, int tex) {
  return make_stereo_runtime(subpixel, lr, uniq, tex);
}

/* All off, each test alone, all on, and the defaults. The texture
 * threshold scales with the window so that some pixels pass and some
 * fail. */
std::vector<Variant> variants(const Case& c, bool all) {
  const int tex = 6 * c.ww * c.wh;
  std::vector<Variant> v;
  v.push_back({"all off", make_rt(false, -1, 0, 0)});
  v.push_back({"all on", make_rt(true, 1, 10, tex)});
  v.push_back({"defaults", StereoRuntime()});
  if (all) {
    v.push_back({"subpixel", make_rt(true, -1, 0, 0)});
    v.push_back({"lr 0", make_rt(false, 0, 0, 0)});
    v.push_back({"lr 2 + subpixel", make_rt(true, 2, 0, 0)});
    v.push_back({"uniqueness 15", make_rt(false, -1, 15, 0)});
    v.push_back({"uniqueness 1 + subpixel", make_rt(true, -1, 1, 0)});
    v.push_back({"texture", make_rt(false, -1, 0, tex)});
  }
  return v;
}

const std::vector<Case>& cases() {
  using R = StereoReference;
  using P = Pattern;
  static const std::vector<Case> k = {
      /* The SGM test geometry (odd sizes, pitch 640), small ranges. */
      {631, 479, 640, 3, 5, 0, 16, R::kLeft, P::kTexture},
      {631, 479, 640, 7, 7, 9, 8, R::kRight, P::kTexture},
      /* Tiny frames: every read clamped. */
      {1, 1, 1, 1, 1, 0, 1, R::kLeft, P::kTexture},
      {1, 1, 3, 7, 7, 3, 16, R::kRight, P::kTexture},
      {3, 2, 3, 5, 3, 0, 16, R::kLeft, P::kTexture},
      {3, 2, 8, 31, 31, 2, 64, R::kRight, P::kTexture},
      /* Narrower than the range. */
      {40, 23, 45, 7, 7, 0, 64, R::kLeft, P::kTexture},
      {40, 23, 45, 7, 7, 0, 64, R::kRight, P::kTexture},
      {97, 61, 100, 9, 9, 5, 128, R::kLeft, P::kTexture},
      {53, 29, 60, 15, 15, 0, 256, R::kRight, P::kTexture},
      {53, 29, 64, 15, 15, 7, 256, R::kLeft, P::kTexture},
      {61, 47, 61, 31, 31, 0, 32, R::kLeft, P::kTexture},
      {200, 100, 203, 7, 7, 0, 64, R::kLeft, P::kTexture},
      {200, 100, 208, 7, 7, 0, 64, R::kRight, P::kTexture},
      {128, 64, 128, 7, 7, 17, 128, R::kRight, P::kTexture},
      /* Several segments per CTA (n < 32), tall and narrow. */
      {15, 300, 16, 5, 3, 0, 8, R::kLeft, P::kTexture},
      {100, 50, 101, 7, 7, 0, 1, R::kLeft, P::kTexture},
      {90, 37, 90, 3, 3, 4, 20, R::kRight, P::kTexture},
      /* Odd and tiny ranges (uniqueness with no far candidate). */
      {80, 40, 83, 9, 9, 3, 33, R::kRight, P::kTexture},
      {70, 30, 70, 3, 3, 0, 3, R::kLeft, P::kTexture},
      {70, 30, 72, 1, 1, 0, 2, R::kRight, P::kTexture},
      /* Every candidate beyond the frame: all costs tie. */
      {50, 20, 52, 7, 7, 1024, 16, R::kLeft, P::kTexture},
      {50, 20, 50, 1, 1, 1024, 256, R::kRight, P::kTexture},
      /* Thin windows. */
      {64, 32, 64, 1, 31, 0, 48, R::kLeft, P::kTexture},
      {64, 32, 70, 31, 1, 2, 20, R::kRight, P::kTexture},
      /* Many ties; the largest costs (31x31 of 0/255). */
      {120, 90, 120, 7, 7, 0, 32, R::kLeft, P::kLowContrast},
      {47, 35, 48, 31, 31, 0, 16, R::kLeft, P::kBinary},
      {47, 35, 48, 31, 31, 1, 16, R::kRight, P::kBinary},
  };
  return k;
}

/* Reference work of a case, in pixel differences per frame. */
double ref_work(const Case& c) { return double(c.w) * c.h * c.n * c.ww * c.wh; }

/* The reference maps, computed once per (case, variant) and shared by the
 * emulation and the GPU tests (the reference is slow). */
const Map& reference(size_t ci, size_t vi, const Frame& l, const Frame& r,
                     const StereoConfig& cfg, const StereoRuntime& rt) {
  static std::map<std::pair<size_t, size_t>, Map> cache;
  auto it = cache.find({ci, vi});
  if (it != cache.end()) return it->second;
  Map m(cfg.width, cfg.height, cfg.width + 3);
  match::Status st = match::ref::stereo_match(l.view(), r.view(), cfg, rt, m.view());
  EXPECT_TRUE(st.is_ok()) << st.message();
  return cache.emplace(std::make_pair(ci, vi), std::move(m)).first->second;
}

/* Exact equality inside the image, sentinel intact outside. */
int count_mismatches(const Map& got, const Map& want, const std::string& what) {
  int bad = 0;
  for (int y = 0; y < want.h; ++y) {
    for (int x = 0; x < want.w; ++x) {
      if (got.at(x, y) != want.at(x, y)) {
        if (bad < 5)
          ADD_FAILURE() << what << ": (" << x << ", " << y << ") got " << got.at(x, y)
                        << ", reference " << want.at(x, y);
        ++bad;
      }
    }
    for (int x = want.w; x < got.stride; ++x)
      if (got.at(x, y) != kPad) {
        if (bad < 5)
          ADD_FAILURE() << what << ": wrote padding at (" << x << ", " << y << ")";
        ++bad;
      }
  }
  return bad;
}

bool have_gpu() { return match::cuda_device_count() > 0; }

#define REQUIRE_GPU()                                                            \
  do {                                                                           \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: CUDA stereo test skipped"; \
  } while (0)

/* Runs f(case index, variant index, frames, config, runtime, reference) over
 * the whole matrix. */
template <typename F>
void for_each_case(F f) {
  const auto& cs = cases();
  for (size_t ci = 0; ci < cs.size(); ++ci) {
    const Case& c = cs[ci];
    Frame l, r;
    make_pair(c, 100 + static_cast<unsigned>(ci) * 7, &l, &r);
    const StereoConfig cfg = config_of(c);
    const auto vs = variants(c, ref_work(c) < 4e6);
    for (size_t vi = 0; vi < vs.size(); ++vi) {
      const Map& want = reference(ci, vi, l, r, cfg, vs[vi].rt);
      f(c, vs[vi], l, r, cfg, want);
    }
  }
}

}  // namespace

/* The CUDA kernels' code on the host (no GPU needed). */
TEST(StereoCudaEmulation, MatchesReference) {
  {
    Frame l = make_noise_frame(8, 8, 8, 1);
    Map m(8, 8, 8);
    const match::Status st = match::cuda::emulate_stereo_match(
        l.view(), l.view(),
        config_of({8, 8, 8, 3, 3, 0, 4, StereoReference::kLeft, Pattern::kTexture}),
        StereoRuntime(), m.view());
    if (st.code() == StatusCode::kUnavailable)
      GTEST_SKIP() << "built without the CUDA backend: " << st.message();
  }
  int total = 0;
  for_each_case([&](const Case& c, const Variant& v, const Frame& l, const Frame& r,
                    const StereoConfig& cfg, const Map& want) {
    /* The planned bands, and bands of 1 and 5 rows (warm-up everywhere). */
    for (int band : {0, 1, 5}) {
      if (band && ref_work(c) > 4e6) continue;
      Map got(c.w, c.h, c.w + 5);
      const match::Status st = match::cuda::emulate_stereo_match(l.view(), r.view(), cfg,
                                                                 v.rt, got.view(), band);
      ASSERT_TRUE(st.is_ok()) << st.message();
      const std::string what =
          "emulated " + describe(c) + " [" + v.name + "] band " + std::to_string(band);
      total += count_mismatches(got, want, what);
    }
  });
  EXPECT_EQ(total, 0);
}

TEST(StereoCuda, MatchesReference) {
  REQUIRE_GPU();
  int total = 0;
  for_each_case([&](const Case& c, const Variant& v, const Frame& l, const Frame& r,
                    const StereoConfig& cfg, const Map& want) {
    std::unique_ptr<StereoMatcher> m;
    match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &m);
    ASSERT_TRUE(st.is_ok()) << describe(c) << ": " << st.message();
    ASSERT_EQ(m->backend(), Backend::kCuda);
    Map got(c.w, c.h, c.w + 5);
    st = m->process(l.view(), r.view(), v.rt, got.view());
    ASSERT_TRUE(st.is_ok()) << describe(c) << ": " << st.message();
    total += count_mismatches(got, want, "cuda " + describe(c) + " [" + v.name + "]");
    EXPECT_GE(m->stats().kernel_ms, 0.0);
  });
  EXPECT_EQ(total, 0);
}

/* One matcher, several frames and settings in turn (state between frames:
 * the left-right buffer is reset per frame, the texture sums are rebuilt
 * only when needed). */
TEST(StereoCuda, ReusedAcrossFramesAndSettings) {
  REQUIRE_GPU();
  const Case c{131, 77, 136, 7, 5, 2, 48, StereoReference::kLeft, Pattern::kTexture};
  const StereoConfig cfg = config_of(c);
  std::unique_ptr<StereoMatcher> m;
  match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &m);
  ASSERT_TRUE(st.is_ok()) << st.message();
  const StereoRuntime rts[] = {make_rt(true, 1, 10, 200), make_rt(false, -1, 0, 0),
                               make_rt(true, 0, 0, 0), make_rt(true, 1, 10, 200)};
  for (int f = 0; f < 4; ++f) {
    Frame l, r;
    make_pair(c, 900 + (f % 2), &l, &r);
    Map want(c.w, c.h, c.w);
    ASSERT_TRUE(
        match::ref::stereo_match(l.view(), r.view(), cfg, rts[f], want.view()).is_ok());
    Map got(c.w, c.h, c.w + 1);
    st = m->process(l.view(), r.view(), rts[f], got.view());
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(count_mismatches(got, want, "frame " + std::to_string(f)), 0);
  }
}

/* Pipelined use (submit() ahead of collect(), as the element's
 * pipeline-depth does): at every depth 1..max_in_flight() - 1, each map
 * equals process()'s on the same pair and runtime, whatever the runtime of
 * the pairs around it, with the inputs overwritten as soon as submit()
 * returns (the pixels are in pinned staging by then) and maps to any
 * stride; two small geometries (tools/sanitize.sh runs this under
 * racecheck; FullHdMatchesCpu pipelines 1080p/128). Then the API's
 * errors, a full ring, and reset() with pairs in flight. */
TEST(StereoCuda, PipelinedEqualsProcess) {
  REQUIRE_GPU();
  const Case geometries[] = {
      {131, 77, 136, 7, 5, 2, 48, StereoReference::kRight, Pattern::kTexture},
      {320, 180, 336, 7, 7, 0, 64, StereoReference::kLeft, Pattern::kTexture},
  };
  for (const Case& c : geometries) {
    const StereoConfig cfg = config_of(c);
    std::unique_ptr<StereoMatcher> m;
    match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &m);
    ASSERT_TRUE(st.is_ok()) << st.message();
    const int max = m->max_in_flight();
    /* The element's largest pipeline-depth (4) needs 5 pairs in flight. */
    EXPECT_GE(max, 5);
    ASSERT_LE(max, match::kMaxInFlight);
    constexpr int kPairs = 9;
    std::vector<Frame> ls(kPairs), rs(kPairs);
    std::vector<StereoRuntime> rts(kPairs);
    std::vector<Map> want;
    for (int k = 0; k < kPairs; ++k) {
      make_pair(c, 700 + 11 * k, &ls[k], &rs[k]);
      rts[k] = make_rt(k % 2 == 0, k % 3 - 1, (k % 4) * 5, (k % 5) * 4 * c.ww * c.wh);
      rts[k].threads = k % 3;
      want.emplace_back(c.w, c.h, c.w + 1);
      st = m->process(ls[k].view(), rs[k].view(), rts[k], want[k].view());
      ASSERT_TRUE(st.is_ok()) << st.message();
    }
    for (int depth = 1; depth < max; ++depth) {
      std::vector<Frame> l = ls, r = rs;
      int collected = 0;
      auto collect_one = [&]() {
        Map got(c.w, c.h, c.w + 2 + depth);
        const match::Status cs = m->collect(got.view());
        if (!cs) m->reset(); /* ends the loops below */
        ASSERT_TRUE(cs.is_ok()) << cs.message();
        EXPECT_GE(m->stats().kernel_ms, 0.0);
        EXPECT_EQ(count_mismatches(got, want[collected],
                                   describe(c) + " depth " + std::to_string(depth) +
                                       " pair " + std::to_string(collected)),
                  0);
        ++collected;
      };
      for (int k = 0; k < kPairs; ++k) {
        st = m->submit(l[k].view(), r[k].view(), rts[k]);
        ASSERT_TRUE(st.is_ok()) << st.message();
        std::fill(l[k].data.begin(), l[k].data.end(), 0);
        std::fill(r[k].data.begin(), r[k].data.end(), 255);
        EXPECT_EQ(m->in_flight(), std::min(k + 1, depth + 1));
        while (m->in_flight() > depth) collect_one();
      }
      while (m->in_flight() > 0) collect_one();
      EXPECT_EQ(collected, kPairs);
    }

    /* Errors leave the pairs in flight alone. */
    Map out(c.w, c.h, c.w);
    EXPECT_EQ(m->collect(out.view()).code(), StatusCode::kInvalidArgument);
    for (int k = 0; k < max; ++k)
      ASSERT_TRUE(m->submit(ls[k].view(), rs[k].view(), rts[k]).is_ok());
    EXPECT_EQ(m->in_flight(), max);
    EXPECT_EQ(m->submit(ls[0].view(), rs[0].view(), rts[0]).code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(m->process(ls[0].view(), rs[0].view(), rts[0], out.view()).code(),
              StatusCode::kInvalidArgument);
    Map small(c.w, c.h - 1, c.w);
    EXPECT_EQ(m->collect(small.view()).code(), StatusCode::kInvalidArgument);
    EXPECT_EQ(m->in_flight(), max);
    for (int k = 0; k < max; ++k) {
      ASSERT_TRUE(m->collect(out.view()).is_ok());
      EXPECT_EQ(count_mismatches(out, want[k], "full ring"), 0);
    }
    EXPECT_EQ(m->submit(ls[0].view(), rs[0].view(), make_rt(true, -2, 0, 0)).code(),
              StatusCode::kInvalidArgument);
    EXPECT_EQ(m->in_flight(), 0);

    /* reset() with pairs in flight: they are dropped, the next ones are
     * right (process() included). */
    for (int k = 0; k < 3; ++k)
      ASSERT_TRUE(m->submit(ls[k].view(), rs[k].view(), rts[k]).is_ok());
    m->reset();
    EXPECT_EQ(m->in_flight(), 0);
    EXPECT_EQ(m->collect(out.view()).code(), StatusCode::kInvalidArgument);
    ASSERT_TRUE(m->submit(ls[5].view(), rs[5].view(), rts[5]).is_ok());
    ASSERT_TRUE(m->collect(out.view()).is_ok());
    EXPECT_EQ(count_mismatches(out, want[5], "after reset"), 0);
    ASSERT_TRUE(m->process(ls[6].view(), rs[6].view(), rts[6], out.view()).is_ok());
    EXPECT_EQ(count_mismatches(out, want[6], "process after reset"), 0);
  }
}

/* Full HD with 128 disparities (the benchmark geometry): too slow for the
 * reference, so against the CPU backend, which test_stereo.cpp checks
 * against the reference. Prints the time per frame. */
TEST(StereoCuda, FullHdMatchesCpu) {
  REQUIRE_GPU();
  const Case c{1920, 1080, 1920, 7, 7, 0, 128, StereoReference::kLeft, Pattern::kTexture};
  const StereoConfig cfg = config_of(c);
  Frame l, r;
  make_pair(c, 4242, &l, &r);
  for (const StereoRuntime& rt : {StereoRuntime(), make_rt(true, 1, 10, 300)}) {
    std::unique_ptr<StereoMatcher> cpu, gpu;
    ASSERT_TRUE(StereoMatcher::create(Backend::kCpu, cfg, &cpu).is_ok());
    match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &gpu);
    ASSERT_TRUE(st.is_ok()) << st.message();
    Map want(c.w, c.h, c.w), got(c.w, c.h, c.w + 8);
    ASSERT_TRUE(cpu->process(l.view(), r.view(), rt, want.view()).is_ok());
    ASSERT_TRUE(gpu->process(l.view(), r.view(), rt, got.view()).is_ok());
    EXPECT_EQ(count_mismatches(got, want, "1080p/128"), 0);
    const int frames = 20;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < frames; ++i)
      ASSERT_TRUE(gpu->process(l.view(), r.view(), rt, got.view()).is_ok());
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
            .count() /
        frames;
    std::printf(
        "  1080p, 128 disparities, 7x7, %s: %.3f ms per process() "
        "(kernels %.3f ms) on %s\n",
        rt.texture_threshold ? "all tests" : "defaults", ms, gpu->stats().kernel_ms,
        gpu->description().c_str());
    /* Pipelined (the upload of the next pair overlaps the kernels), two
     * different pairs in turn, every map checked (PipelinedEqualsProcess
     * covers every depth at smaller sizes); then timed 3 pairs ahead. */
    Frame l2, r2;
    make_pair(c, 4343, &l2, &r2);
    Map want2(c.w, c.h, c.w);
    ASSERT_TRUE(cpu->process(l2.view(), r2.view(), rt, want2.view()).is_ok());
    auto run = [&](int depth, bool check) {
      int collected = 0;
      auto collect_one = [&]() {
        const match::Status cs = gpu->collect(got.view());
        if (!cs) gpu->reset(); /* ends the loops below */
        ASSERT_TRUE(cs.is_ok()) << cs.message();
        if (check || collected == frames - 1) {
          EXPECT_EQ(count_mismatches(got, collected % 2 ? want2 : want,
                                     "1080p/128 depth " + std::to_string(depth) +
                                         " pair " + std::to_string(collected)),
                    0);
        }
        ++collected;
      };
      for (int i = 0; i < frames; ++i) {
        const bool second = i % 2;
        ASSERT_TRUE(
            gpu->submit((second ? l2 : l).view(), (second ? r2 : r).view(), rt).is_ok());
        while (gpu->in_flight() > depth) collect_one();
      }
      while (gpu->in_flight() > 0) collect_one();
    };
    for (int depth : {1, 3, gpu->max_in_flight() - 1}) run(depth, true);
    const auto t1 = std::chrono::steady_clock::now();
    run(3, false);
    const double ms_piped =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1)
            .count() /
        frames;
    std::printf("  the same, submit()/collect() 3 ahead: %.3f ms per pair\n", ms_piped);
  }
}

TEST(StereoCuda, Errors) {
  REQUIRE_GPU();
  const StereoConfig cfg =
      config_of({32, 16, 32, 3, 3, 0, 16, StereoReference::kLeft, Pattern::kTexture});
  for (int ordinal : {match::cuda_device_count(), match::cuda_device_count() + 5, -1}) {
    DeviceOptions dev;
    dev.devices = {ordinal};
    std::unique_ptr<StereoMatcher> m;
    const match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &m, dev);
    EXPECT_EQ(st.code(), StatusCode::kUnavailable) << ordinal;
    EXPECT_NE(st.message().find(std::to_string(ordinal)), std::string::npos)
        << st.message();
    EXPECT_FALSE(m);
  }
  std::unique_ptr<StereoMatcher> m;
  ASSERT_TRUE(StereoMatcher::create(Backend::kCuda, cfg, &m).is_ok());
  Frame l = make_noise_frame(32, 16, 32, 1), small = make_noise_frame(31, 16, 32, 2);
  Map out(32, 16, 32);
  EXPECT_EQ(m->process(l.view(), small.view(), StereoRuntime(), out.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(m->process(l.view(), l.view(), make_rt(true, -2, 0, 0), out.view()).code(),
            StatusCode::kInvalidArgument);
  Map wrong(32, 15, 32);
  EXPECT_EQ(m->process(l.view(), l.view(), StereoRuntime(), wrong.view()).code(),
            StatusCode::kInvalidArgument);
  /* Post-filter settings out of range: refused before anything is
   * queued. */
  StereoRuntime jm;
  jm.joint_median_radius = match::kMaxJointMedianRadius + 1;
  EXPECT_EQ(m->submit(l.view(), l.view(), jm).code(), StatusCode::kInvalidArgument);
  jm.joint_median_radius = 1;
  jm.joint_median_range = 256;
  EXPECT_EQ(m->process(l.view(), l.view(), jm, out.view()).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(m->in_flight(), 0);
  /* Still usable after rejected frames. */
  EXPECT_TRUE(m->process(l.view(), l.view(), StereoRuntime(), out.view()).is_ok());
}

/* With a device, backend=auto picks CUDA (kernels/internal.h). */
TEST(StereoCuda, AutoPicksCuda) {
  REQUIRE_GPU();
  std::unique_ptr<StereoMatcher> m;
  ASSERT_TRUE(
      StereoMatcher::create(
          Backend::kAuto,
          config_of({64, 32, 64, 7, 7, 0, 16, StereoReference::kLeft, Pattern::kTexture}),
          &m)
          .is_ok());
  EXPECT_EQ(m->backend(), Backend::kCuda);
}

/* ---- The costs (SAD, Sobel, census), SGM and the post-filters ----
 *
 * Every cost x method (block, SGM 4 and 8 paths; census + AD with SGM
 * only) against the reference,
 * value for value: odd sizes and padded strides (37x23, 61x47, 1x5, 5x1,
 * 90x31 and 640x480), both references, min_disparity 0 and > 0, ranges
 * that fill 2, 4 and 8 disparities per lane (and pad them), census
 * windows 9x7, 5x5, 13x5 (64 bits) and 3x1, SGM cost windows 1, 3, 5
 * and 7, and runtimes with every test
 * off, each on, the 8- and 16-bit SGM volumes (P2 + cmax <= 255 or not),
 * P1 > P2, edge-aware P2, and the post-filters: the median, the speckle
 * filter, the fill and the joint median, in the combinations that change
 * which device buffer each writes, and after a speckle filter (on the
 * host). */
namespace {

using match::StereoCost;
using match::StereoMethod;

struct CostCase {
  int w, h, stride;
  StereoCost cost;
  StereoMethod method;
  int paths;
  int cw, ch; /* census window */
  int ww, wh; /* block window (texture window for SGM) */
  int dmin, n;
  StereoReference ref;
  int cost_window = 1; /* SGM's cost window */
};

std::string describe(const CostCase& c) {
  static const char* kCost[] = {"sad", "sobel", "census", "census-ad"};
  char buf[200];
  std::snprintf(buf, sizeof buf, "%dx%d/%d %s%s %s %dx%d win %dx%d d %d+%d %s cwin %d",
                c.w, c.h, c.stride, c.method == StereoMethod::kSgm ? "sgm" : "block",
                c.method == StereoMethod::kSgm ? std::to_string(c.paths).c_str() : "",
                kCost[static_cast<int>(c.cost)], c.cw, c.ch, c.ww, c.wh, c.dmin, c.n,
                c.ref == StereoReference::kLeft ? "left" : "right", c.cost_window);
  return buf;
}

StereoConfig config_of(const CostCase& c) {
  StereoConfig s;
  s.width = c.w;
  s.height = c.h;
  s.window_width = c.ww;
  s.window_height = c.wh;
  s.min_disparity = c.dmin;
  s.num_disparities = c.n;
  s.reference = c.ref;
  s.cost = c.cost;
  s.method = c.method;
  s.paths = c.paths;
  s.census_width = c.cw;
  s.census_height = c.ch;
  s.cost_window = c.cost_window;
  return s;
}

/* A frame's geometry and disparity range. */
struct Geo {
  int w, h, stride, dmin, n;
};

std::vector<CostCase> cost_cases() {
  const Geo geos[] = {{37, 23, 40, 0, 16},
                      {61, 47, 61, 3, 48},
                      {1, 5, 3, 0, 8},
                      {5, 1, 5, 2, 24},
                      {90, 31, 96, 5, 100},
                      {61, 47, 64, 0, 200},
                      /* n = 32 PER: SGM's unpadded path kernels */
                      {67, 29, 72, 2, 128},
                      {45, 21, 48, 1, 64}};
  const int census[][2] = {{9, 7}, {5, 5}, {13, 5}, {3, 1}};
  std::vector<CostCase> v;
  int i = 0;
  for (const Geo& g : geos)
    for (StereoCost cost : {StereoCost::kSad, StereoCost::kSobel, StereoCost::kCensus,
                            StereoCost::kCensusAd})
      for (int m = 0; m < 3; ++m, ++i) {
        /* census + AD: semi-global matching only. */
        if (cost == StereoCost::kCensusAd && m == 0) continue;
        CostCase c{};
        c.w = g.w;
        c.h = g.h;
        c.stride = g.stride;
        c.cost = cost;
        c.method = m == 0 ? StereoMethod::kBlock : StereoMethod::kSgm;
        c.paths = m == 2 ? 8 : 4;
        c.cw = census[i % 4][0];
        c.ch = census[i % 4][1];
        c.ww = 1 + 2 * (i % 4);
        c.wh = 1 + 2 * ((i / 4) % 3);
        c.dmin = g.dmin;
        c.n = g.n;
        c.ref = i % 2 ? StereoReference::kRight : StereoReference::kLeft;
        /* SGM: cost windows 1, 3, 5 and 7 in turn. */
        c.cost_window = m == 0 ? 1 : 1 + 2 * ((i / 2) % 4);
        v.push_back(c);
      }
  return v;
}

/* Runtime variants; p1/p2 from the cost's defaults unless said. */
std::vector<Variant> cost_variants(const CostCase& c) {
  const match::SgmPenalties pen = match::default_sgm_penalties(c.cost);
  const int tex = 6 * c.ww * c.wh;
  auto rt = [&](bool sub, int lr, int uniq, int t) {
    StereoRuntime r = make_rt(sub, lr, uniq, t);
    r.p1 = pen.p1;
    r.p2 = pen.p2;
    return r;
  };
  std::vector<Variant> v;
  v.push_back({"defaults", rt(true, 1, 0, 0)});
  v.push_back({"all off", rt(false, -1, 0, 0)});
  StereoRuntime on = rt(true, 0, 10, tex);
  on.median = true;
  on.speckle_size = 12;
  on.speckle_range = 1;
  on.p2_edge = 30;
  v.push_back({"all on, edge p2", on});
  StereoRuntime wide = rt(true, 2, 0, 0);
  wide.p1 = 40;
  wide.p2 = 480;
  wide.median = true;
  v.push_back({"p1 40 p2 480 + median", wide});
  /* The element's defaults (edge-aware P2, LR 1, median, fill, joint
   * median 3/16). */
  StereoRuntime refined = rt(true, 1, 0, 0);
  refined.p2_edge = 32;
  refined.median = true;
  refined.fill_invalid = true;
  refined.joint_median_radius = 3;
  v.push_back({"median, fill, joint median 3/16", refined});
  StereoRuntime host = rt(true, 0, 10, tex);
  host.speckle_size = 12;
  host.fill_invalid = true;
  host.joint_median_radius = 5;
  host.joint_median_range = 255;
  v.push_back({"speckle, then fill and joint median 5/255 (host)", host});
  if (c.method == StereoMethod::kSgm) {
    StereoRuntime odd = rt(true, 1, 5, 0);
    odd.p1 = 200;
    odd.p2 = 100;
    odd.p2_edge = 50;
    v.push_back({"p1 > p2, edge p2, uniqueness 5", odd});
    StereoRuntime narrow = rt(false, 0, 0, tex);
    narrow.p1 = 3;
    narrow.p2 = 60;
    narrow.speckle_size = 40;
    narrow.speckle_range = 2;
    v.push_back({"p1 3 p2 60, speckle 40/2", narrow});
    StereoRuntime fill = rt(false, 0, 0, 0);
    fill.fill_invalid = true;
    v.push_back({"fill", fill});
    StereoRuntime joint = rt(true, 2, 5, 0);
    joint.median = true;
    joint.joint_median_radius = 1;
    joint.joint_median_range = 0;
    v.push_back({"median, joint median 1/0", joint});
    StereoRuntime joint_only = rt(true, 0, 0, 0);
    joint_only.joint_median_radius = 2;
    joint_only.joint_median_range = 8;
    v.push_back({"joint median 2/8", joint_only});
  }
  return v;
}

void make_cost_pair(const CostCase& c, unsigned seed, Frame* l, Frame* r) {
  const Case bc{c.w, c.h, c.stride, 3, 3, c.dmin, c.n, c.ref, Pattern::kTexture};
  make_pair(bc, seed, l, r);
}

Map reference_of(const Frame& l, const Frame& r, const StereoConfig& cfg,
                 const StereoRuntime& rt) {
  Map m(cfg.width, cfg.height, cfg.width);
  const match::Status st =
      match::ref::stereo_match(l.view(), r.view(), cfg, rt, m.view());
  EXPECT_TRUE(st.is_ok()) << st.message();
  return m;
}

}  // namespace

TEST(StereoCudaCosts, EmulationMatchesReference) {
  int total = 0, runs = 0;
  for (const CostCase& c : cost_cases()) {
    if (c.method != StereoMethod::kBlock || c.cost == StereoCost::kSad) continue;
    Frame l, r;
    make_cost_pair(c, 31 + c.w * 7 + c.n, &l, &r);
    const StereoConfig cfg = config_of(c);
    for (const Variant& v : cost_variants(c)) {
      Map got(c.w, c.h, c.w + 3);
      const match::Status st =
          match::cuda::emulate_stereo_match(l.view(), r.view(), cfg, v.rt, got.view());
      if (st.code() == StatusCode::kUnavailable)
        GTEST_SKIP() << "built without the CUDA backend: " << st.message();
      ASSERT_TRUE(st.is_ok()) << st.message();
      total += count_mismatches(got, reference_of(l, r, cfg, v.rt),
                                "emulated " + describe(c) + " [" + v.name + "]");
      ++runs;
    }
  }
  EXPECT_EQ(total, 0);
  EXPECT_GT(runs, 0);
}

/* The fused costs and cost window (cost_window 3) give the reference's
 * cb: every cost, both references, 2, 4 and 8 disparities a lane, widths
 * and heights around the tiles' (8 pixels x 32 rows), one pixel
 * wide or high, far disparity offsets (columns clamped on the whole row). */
TEST(StereoCudaCosts, CostWindowEmulationMatchesReference) {
  const Geo geos[] = {{37, 23, 40, 0, 16},  {17, 33, 17, 3, 48}, {1, 5, 3, 0, 8},
                      {5, 1, 5, 2, 24},     {16, 16, 16, 0, 64}, {33, 17, 40, 5, 100},
                      {20, 9, 24, 40, 130}, {9, 35, 9, 1, 256}};
  int runs = 0;
  size_t bad = 0;
  for (const Geo& g : geos)
    for (StereoCost cost : {StereoCost::kSad, StereoCost::kSobel, StereoCost::kCensus,
                            StereoCost::kCensusAd})
      for (StereoReference ref : {StereoReference::kLeft, StereoReference::kRight}) {
        CostCase c{g.w,    g.h, g.stride, cost, StereoMethod::kSgm, 8, 9, 7, 1, 1,
                   g.dmin, g.n, ref,      3};
        Frame l, r;
        make_cost_pair(c, 5 + g.w * 3 + g.n, &l, &r);
        const StereoConfig cfg = config_of(c);
        std::vector<uint8_t> got;
        int np = 0;
        match::Status st =
            match::cuda::emulate_sgm_costs(l.view(), r.view(), cfg, &got, &np);
        if (st.code() == StatusCode::kUnavailable)
          GTEST_SKIP() << "built without the CUDA backend: " << st.message();
        ASSERT_TRUE(st.is_ok()) << st.message();
        std::vector<int32_t> want;
        ASSERT_TRUE(match::ref::stereo_sgm_costs(l.view(), r.view(), cfg, &want).is_ok());
        size_t case_bad = 0;
        for (int y = 0; y < g.h; ++y)
          for (int x = 0; x < g.w; ++x)
            for (int k = 0; k < g.n; ++k) {
              const size_t p = static_cast<size_t>(y) * g.w + x;
              if (got[p * np + k] != want[p * g.n + k] && case_bad++ == 0)
                ADD_FAILURE() << describe(c) << ": cb(" << x << ", " << y << ", " << k
                              << ") " << int(got[p * np + k]) << ", want "
                              << want[p * g.n + k];
            }
        bad += case_bad;
        ++runs;
      }
  EXPECT_EQ(bad, 0u);
  EXPECT_EQ(runs, 64);
}

/* SGM's volumes are allocated when the matcher is made, from the config
 * alone (cuda/stereo_sgm_plan.h), so that no runtime penalty reallocates
 * them mid-stream: every runtime's volumes fit the allocation, and those
 * of the default penalties fit a lane's share (the two compute lanes keep
 * overlapping). Host code: runs without a GPU and without the CUDA
 * backend. */
TEST(StereoCudaPlan, SgmVolumesFitTheAllocation) {
  using match::StereoCost;
  constexpr int kLanes = 2; /* the CUDA matcher's compute lanes */
  int configs = 0, shared = 0;
  for (StereoCost cost :
       {StereoCost::kSad, StereoCost::kSobel, StereoCost::kCensus, StereoCost::kCensusAd})
    for (int paths : {4, 8})
      for (int n : {1, 64, 65, 128, 129, 256})
        for (const auto& census : {std::pair<int, int>{9, 7}, {13, 5}, {3, 3}}) {
          StereoConfig c;
          c.width = 641;
          c.height = 37;
          c.method = match::StereoMethod::kSgm;
          c.cost = cost;
          c.paths = paths;
          c.num_disparities = n;
          c.census_width = census.first;
          c.census_height = census.second;
          ASSERT_TRUE(c.validate().is_ok()) << c.validate().message();
          ++configs;
          const match::cuda::SgmVolumeLayout v =
              match::cuda::sgm_volume_layout(c, kLanes);
          const std::string what =
              "cost " + std::to_string(static_cast<int>(cost)) + ", " +
              std::to_string(paths) + " paths, n " + std::to_string(n) + ", census " +
              std::to_string(census.first) + "x" + std::to_string(census.second);
          EXPECT_GE(v.total_bytes, kLanes * v.lane_bytes) << what;
          /* No more than the larger of two lanes' default volumes and the
           * 16-bit ones. */
          match::cuda::SgmPlan wide = match::cuda::plan_sgm(c, StereoRuntime());
          wide.wide = true;
          EXPECT_LE(v.total_bytes, std::max(kLanes * v.lane_bytes,
                                            match::cuda::sgm_volume_bytes(c, wide)))
              << what;
          StereoRuntime rt;
          const match::SgmPenalties d = match::default_sgm_penalties(cost);
          rt.p1 = d.p1;
          rt.p2 = d.p2;
          for (int edge : {0, 32, match::kMaxP2Edge}) {
            rt.p2_edge = edge;
            EXPECT_FALSE(
                match::cuda::sgm_volumes_shared(v, c, match::cuda::plan_sgm(c, rt)))
                << what << ": default penalties, p2_edge " << edge;
          }
          for (int p1 : {0, 10, 255, match::kMaxSgmPenalty})
            for (int p2 : {0, 120, 193, 194, 480, match::kMaxSgmPenalty})
              for (int edge : {0, 32, match::kMaxP2Edge}) {
                rt.p1 = p1;
                rt.p2 = p2;
                rt.p2_edge = edge;
                const match::cuda::SgmPlan p = match::cuda::plan_sgm(c, rt);
                const size_t bytes = match::cuda::sgm_volume_bytes(c, p);
                const bool sh = match::cuda::sgm_volumes_shared(v, c, p);
                EXPECT_LE(bytes, sh ? v.total_bytes : v.lane_bytes)
                    << what << ": p1 " << p1 << ", p2 " << p2 << ", p2_edge " << edge;
                shared += sh;
              }
        }
  EXPECT_EQ(configs, 4 * 2 * 6 * 3);
  /* Census and Sobel with large penalties do take the whole allocation. */
  EXPECT_GT(shared, 0);
}

TEST(StereoCudaCosts, MatchesReference) {
  REQUIRE_GPU();
  std::vector<CostCase> cs = cost_cases();
  /* One large frame per method family (several CTAs, long scan lines);
   * STEREO_CUDA_SMALL=1 leaves them out (the sanitizer runs). */
  if (!std::getenv("STEREO_CUDA_SMALL")) {
    cs.push_back({640, 480, 648, StereoCost::kCensus, StereoMethod::kSgm, 8, 9, 7, 5, 5,
                  0, 64, StereoReference::kLeft, 3});
    cs.push_back({641, 481, 641, StereoCost::kSobel, StereoMethod::kSgm, 4, 9, 7, 7, 7, 4,
                  96, StereoReference::kRight});
    cs.push_back({640, 480, 640, StereoCost::kCensus, StereoMethod::kBlock, 4, 9, 7, 5, 5,
                  0, 64, StereoReference::kRight});
  }
  int total = 0, runs = 0;
  for (const CostCase& c : cs) {
    Frame l, r;
    make_cost_pair(c, 31 + c.w * 7 + c.n, &l, &r);
    const StereoConfig cfg = config_of(c);
    std::unique_ptr<StereoMatcher> m;
    match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &m);
    ASSERT_TRUE(st.is_ok()) << describe(c) << ": " << st.message();
    std::vector<Variant> vs = cost_variants(c);
    if (c.w * c.h > 100000) vs.resize(2);
    for (const Variant& v : vs) {
      Map got(c.w, c.h, c.w + 5);
      st = m->process(l.view(), r.view(), v.rt, got.view());
      ASSERT_TRUE(st.is_ok()) << describe(c) << ": " << st.message();
      total += count_mismatches(got, reference_of(l, r, cfg, v.rt),
                                "cuda " + describe(c) + " [" + v.name + "]");
      ++runs;
    }
  }
  std::printf("  %d configurations x runtimes compared\n", runs);
  EXPECT_EQ(total, 0);
}

/* Pipelined SGM with output conversions on the GPU and, for the pairs
 * with a speckle filter, on the host after it (with the fill and the joint
 * median, which then read the reference luma from the pair's staging
 * buffer): each collected output equals the reference map converted by
 * the CPU's table. Every fourth pair has penalties whose path volumes are
 * 16-bit: it takes the whole SGM allocation, so its stages wait for the
 * other lane's, and the next pair's for it (stereo_cuda.cu). */
TEST(StereoCudaCosts, PipelinedConversionsAndSpeckle) {
  REQUIRE_GPU();
  const CostCase c{133, 71, 136, StereoCost::kCensus,   StereoMethod::kSgm, 8, 9, 7, 5,
                   5,   1,  40,  StereoReference::kLeft};
  const StereoConfig cfg = config_of(c);
  std::unique_ptr<StereoMatcher> m;
  ASSERT_TRUE(StereoMatcher::create(Backend::kCuda, cfg, &m).is_ok());
  constexpr int kPairs = 10;
  std::vector<Frame> ls(kPairs), rs(kPairs);
  std::vector<StereoRuntime> rts(kPairs);
  std::vector<match::DisparityOutputParams> ps(kPairs);
  for (int k = 0; k < kPairs; ++k) {
    make_cost_pair(c, 500 + 13 * k, &ls[k], &rs[k]);
    rts[k] = make_rt(k % 2 == 0, k % 3 - 1, (k % 4) * 5, 0);
    rts[k].median = k % 3 == 0;
    rts[k].speckle_size = k % 4 == 1 ? 30 : 0;
    rts[k].p2_edge = k % 5 == 2 ? 20 : 0;
    rts[k].fill_invalid = k % 2 == 1;
    rts[k].joint_median_radius = k % 3 == 1 ? 2 : 0; /* pair 1: on the host */
    ps[k].mode = static_cast<match::DisparityOutputMode>(k % 3);
    ps[k].min_disparity = c.dmin;
    ps[k].num_disparities = c.n;
    ps[k].gray8_scale = 4.0;
    if (k % 4 == 3) {
      rts[k].p1 = 40;
      rts[k].p2 = 480;
    }
  }
  /* The test is about both kinds of pairs: check that there are. */
  const match::cuda::SgmVolumeLayout layout = match::cuda::sgm_volume_layout(cfg, 2);
  int wide = 0;
  for (int k = 0; k < kPairs; ++k)
    wide +=
        match::cuda::sgm_volumes_shared(layout, cfg, match::cuda::plan_sgm(cfg, rts[k]));
  ASSERT_EQ(wide, 2);
  for (int depth : {1, 3, m->max_in_flight() - 1}) {
    int collected = 0;
    auto collect_one = [&]() {
      const int k = collected++;
      const int bpp = match::disparity_output_bytes_per_pixel(ps[k].mode);
      const int stride = c.w * bpp + 7;
      std::vector<uint8_t> got(static_cast<size_t>(stride) * c.h, 0xAB);
      match::DisparityOutputView ov{got.data(), c.w, c.h, stride};
      const match::Status st = m->collect(ov, ps[k]);
      ASSERT_TRUE(st.is_ok()) << st.message();
      Map want = reference_of(ls[k], rs[k], cfg, rts[k]);
      std::vector<uint8_t> conv(static_cast<size_t>(stride) * c.h, 0xAB);
      match::DisparityOutputView cv{conv.data(), c.w, c.h, stride};
      match::host::DisparityOutputLut lut;
      lut.update(ps[k]);
      lut.convert(match::ConstDisparityView(want.data.data(), c.w, c.h, want.stride * 2),
                  cv, 1);
      EXPECT_TRUE(got == conv) << "depth " << depth << " pair " << k << " mode "
                               << static_cast<int>(ps[k].mode);
    };
    for (int k = 0; k < kPairs; ++k) {
      ASSERT_TRUE(m->submit(ls[k].view(), rs[k].view(), rts[k]).is_ok());
      while (m->in_flight() > depth) collect_one();
    }
    while (m->in_flight() > 0) collect_one();
  }
}

/* The fill and the joint median on rows up to the widest frame (the fill
 * kernel gives each thread up to 64 pixels of a row) and on a frame of
 * several CTAs each way, with long runs of invalid pixels (left-right
 * check 0, uniqueness). */
TEST(StereoCudaCosts, PostFiltersOnWideRows) {
  REQUIRE_GPU();
  const CostCase cs[] = {
      {match::kMaxFrameSize, 3, match::kMaxFrameSize + 6, StereoCost::kSad,
       StereoMethod::kBlock, 4, 9, 7, 3, 3, 0, 16, StereoReference::kLeft},
      {match::kMaxFrameSize - 1, 2, match::kMaxFrameSize, StereoCost::kCensus,
       StereoMethod::kBlock, 4, 5, 5, 1, 1, 2, 8, StereoReference::kRight},
      {257, 9, 260, StereoCost::kSobel, StereoMethod::kBlock, 4, 9, 7, 5, 5, 0, 24,
       StereoReference::kLeft},
      {999, 77, 1000, StereoCost::kCensus, StereoMethod::kSgm, 4, 9, 7, 5, 5, 0, 32,
       StereoReference::kLeft, 3}};
  StereoRuntime a = make_rt(true, 0, 15, 0);
  a.median = true;
  a.fill_invalid = true;
  a.joint_median_radius = 3;
  StereoRuntime b = make_rt(false, 0, 25, 0);
  b.fill_invalid = true;
  b.joint_median_radius = 5;
  b.joint_median_range = 40;
  int total = 0;
  for (const CostCase& c : cs) {
    Frame l, r;
    make_cost_pair(c, 7 + c.w, &l, &r);
    const StereoConfig cfg = config_of(c);
    std::unique_ptr<StereoMatcher> m;
    ASSERT_TRUE(StereoMatcher::create(Backend::kCuda, cfg, &m).is_ok());
    for (const StereoRuntime& rt : {a, b}) {
      Map got(c.w, c.h, c.w + 5);
      ASSERT_TRUE(m->process(l.view(), r.view(), rt, got.view()).is_ok());
      const Map want = reference_of(l, r, cfg, rt);
      StereoRuntime unfilled = rt;
      unfilled.fill_invalid = false;
      const Map before = reference_of(l, r, cfg, unfilled);
      int invalid = 0;
      for (int y = 0; y < c.h; ++y)
        for (int x = 0; x < c.w; ++x)
          invalid += before.at(x, y) == match::kInvalidDisparity;
      std::printf("  %s, joint median %d: %d of %d pixels filled\n", describe(c).c_str(),
                  rt.joint_median_radius, invalid, c.w * c.h);
      /* Both kinds, so that the fill's runs and scans are exercised (on
       * the H100 of 2026-11-27: 1,551 to 61,021 pixels, 32 to 79 %). */
      EXPECT_GT(invalid, 0) << describe(c);
      EXPECT_LT(invalid, c.w * c.h) << describe(c);
      total += count_mismatches(got, want, "cuda " + describe(c));
    }
  }
  EXPECT_EQ(total, 0);
}

namespace {
/* A binary 8-bit PGM (P5) from tests/files. */
bool load_pgm(const std::string& name, Frame* f) {
  const char* dir = std::getenv("GST_TEST_FILES_PATH");
  const std::string path = std::string(dir ? dir : "tests/files") + "/" + name;
  FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) return false;
  int w = 0, h = 0, maxv = 0;
  const bool ok = std::fscanf(fp, "P5 %d %d %d", &w, &h, &maxv) == 3 && maxv == 255 &&
                  std::fgetc(fp) != EOF;
  if (ok) {
    f->w = w;
    f->h = h;
    f->stride = w;
    f->data.resize(static_cast<size_t>(w) * h);
  }
  const bool read =
      ok && std::fread(f->data.data(), 1, f->data.size(), fp) == f->data.size();
  std::fclose(fp);
  return read;
}
}  // namespace

/* The real Tsukuba crop, SGM census 8 paths: equal to the reference, and
 * sensible against the ground truth. */
TEST(StereoCudaCosts, TsukubaSgmCensus) {
  REQUIRE_GPU();
  Frame l, r, gt;
  if (!load_pgm("tsukuba-crop-left.pgm", &l) || !load_pgm("tsukuba-crop-right.pgm", &r) ||
      !load_pgm("tsukuba-crop-gt.pgm", &gt))
    GTEST_SKIP() << "tests/files not found (GST_TEST_FILES_PATH)";
  StereoConfig cfg;
  cfg.width = l.w;
  cfg.height = l.h;
  cfg.num_disparities = 16;
  cfg.cost = StereoCost::kCensus;
  cfg.method = StereoMethod::kSgm;
  cfg.paths = 8;
  for (int median = 0; median < 2; ++median) {
    StereoRuntime rt;
    rt.median = median;
    rt.uniqueness_ratio = 5;
    std::unique_ptr<StereoMatcher> m;
    ASSERT_TRUE(StereoMatcher::create(Backend::kCuda, cfg, &m).is_ok());
    Map got(l.w, l.h, l.w + 2);
    ASSERT_TRUE(m->process(l.view(), r.view(), rt, got.view()).is_ok());
    EXPECT_EQ(count_mismatches(got, reference_of(l, r, cfg, rt), "tsukuba"), 0);
    int known = 0, bad = 0, valid = 0;
    for (int y = 0; y < l.h; ++y)
      for (int x = 0; x < l.w; ++x) {
        const int g = gt.at(x, y);
        if (g == 0) continue;
        ++known;
        const uint16_t v = got.at(x, y);
        if (v == kInvalidDisparity) continue;
        ++valid;
        bad += std::abs(static_cast<int>(v) - g) > 16;
      }
    std::printf(
        "  tsukuba sgm census 8 paths%s: %d of %d valid, %.1f%% of "
        "them off by > 1 px\n",
        median ? " + median" : "", valid, known, 100.0 * bad / std::max(valid, 1));
    EXPECT_LT(bad, valid / 5);
  }
}

/* Timing (STEREO_CUDA_TIMING=1 runs it): census 9x7, 128 disparities,
 * sub-pixel, left-right check 1 (the defaults), SGM 8 and 4 paths at 1080p
 * and 4 paths at 1024x440. "kernels" is stats().kernel_ms (events around
 * the kernels of a pair whose views are on the device already); "pipelined"
 * is the wall time per pair of submit()/collect() 3 ahead (uploads,
 * downloads and host copies included). Also the floor of the design. */
TEST(StereoCudaCosts, SgmTiming) {
  REQUIRE_GPU();
  if (!std::getenv("STEREO_CUDA_TIMING"))
    GTEST_SKIP() << "set STEREO_CUDA_TIMING=1 to time";
  struct Setting {
    int w, h, paths;
    double libsgm_ms;
  };
  for (const Setting& s : {Setting{1920, 1080, 8, 3.94}, Setting{1920, 1080, 4, 2.42},
                           Setting{1024, 440, 4, 1.15}})
    for (int cwin : {1, 3}) {
      const CostCase c{s.w,
                       s.h,
                       s.w,
                       StereoCost::kCensus,
                       StereoMethod::kSgm,
                       s.paths,
                       9,
                       7,
                       7,
                       7,
                       0,
                       128,
                       StereoReference::kLeft,
                       cwin};
      const StereoConfig cfg = config_of(c);
      Frame l, r;
      make_cost_pair(c, 4242, &l, &r);
      std::unique_ptr<StereoMatcher> m;
      ASSERT_TRUE(StereoMatcher::create(Backend::kCuda, cfg, &m).is_ok());
      StereoRuntime rt; /* subpixel, lr 1, p1 10, p2 120 */
      Map got(c.w, c.h, c.w);
      for (int i = 0; i < 3; ++i)
        ASSERT_TRUE(m->process(l.view(), r.view(), rt, got.view()).is_ok());
      const int frames = 30;
      double kms = 0, kmin = 1e9;
      for (int i = 0; i < frames; ++i) {
        ASSERT_TRUE(m->process(l.view(), r.view(), rt, got.view()).is_ok());
        kms += m->stats().kernel_ms;
        kmin = std::min<double>(kmin, m->stats().kernel_ms);
      }
      kms /= frames;
      const auto t0 = std::chrono::steady_clock::now();
      int collected = 0;
      for (int i = 0; i < frames; ++i) {
        ASSERT_TRUE(m->submit(l.view(), r.view(), rt).is_ok());
        while (m->in_flight() > 3) {
          ASSERT_TRUE(m->collect(got.view()).is_ok());
          ++collected;
        }
      }
      while (m->in_flight() > 0) {
        ASSERT_TRUE(m->collect(got.view()).is_ok());
        ++collected;
      }
      const double piped =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
              .count() /
          collected;
      /* Floor of this design (the SGM stages): the bytes it moves through
     * DRAM per pair (views, census images written and read, the cost
     * volume written once and read by every path, each path's 8-bit L
     * written and read once by the WTA pass, pre and dkey, the map) at
     * 3.35 TB/s; its integer work (per cost and path: min, 2 DPX
     * min-adds, add, min, no padding select at n = 128; per cost: xor,
     * 2 popcounts, 2 more) at
     * 132 SMs x 64 lanes x 1.98 GHz, popcounts at 16 per SM and clock. */
      const double px = double(c.w) * c.h, np = 128;
      const double bytes = px * (2 + 2 * 8 * 2) + px * np * (1 + 3 * s.paths) +
                           px * (4 + 4) * 2 + px * 2 * 2;
      const double evals = px * np;
      const double ops = evals * (5.0 * s.paths + 5 + s.paths / 2.0 + 4);
      const double mem_ms = bytes / 3.35e12 * 1e3;
      const double int_ms = ops / (132.0 * 64 * 1.98e9) * 1e3;
      const double popc_ms = evals * 2 / (132.0 * 16 * 1.98e9) * 1e3;
      std::printf(
          "  %dx%d/128 census 9x7 cost window %d SGM %d paths, subpixel, lr: kernels "
          "%.3f ms "
          "(best %.3f), pipelined %.3f ms per pair (%.0f pairs/s); libSGM "
          "%.2f ms, 2/3 of it %.2f ms\n"
          "    floor: %.2f GB moved = %.3f ms at 3.35 TB/s; %.2f G int ops = "
          "%.3f ms; %.2f G popcounts = %.3f ms (%s)\n",
          c.w, c.h, cwin, s.paths, kms, kmin, piped, 1e3 / piped, s.libsgm_ms,
          s.libsgm_ms * 2 / 3, bytes / 1e9, mem_ms, ops / 1e9, int_ms, evals * 2 / 1e9,
          popc_ms, m->description().c_str());
    }
}
