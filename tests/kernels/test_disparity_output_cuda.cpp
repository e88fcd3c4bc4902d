/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CUDA disparity output conversion against the CPU's, byte for byte.
 *
 * - Without a GPU (a build with the CUDA backend): the conversion kernel's
 *   per-pixel code run on the host (cuda::emulate_disparity_output) on
 *   every 16-bit value and on random maps of odd sizes with padded strides,
 *   for several params of every conversion.
 * - With a GPU (skipped without one, match::cuda_device_count() == 0): the
 *   CUDA matcher's collect(DisparityOutputView, DisparityOutputParams)
 *   against the CPU matcher's on the same pairs, every mode and params, at
 *   631x479 with padded output rows and at 1080p; pipelined pairs (up to
 *   max_in_flight()) collected with params that change from pair to pair,
 *   back and forth and mixed with plain collect(), which exercises both the
 *   output queued at submit and the conversion done again at collect; a
 *   matcher reused after reset(); refused collects that take no pair.
 */
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../common/disparity_output_testutil.h"
#include "../common/frame.h"
#include "../common/stereo_testutil.h"
#include "host/disparity_output_lut.h"
#include "testing/disparity_output_emulation.h"
#include "match/blockmatch.h"
#include "match/disparity_output.h"
#include "match/stereo.h"

using match::Backend;
using match::DisparityOutputParams;
using match::StatusCode;
using match::StereoConfig;
using match::StereoMatcher;
using M = match::DisparityOutputMode;

namespace {

bool have_gpu() { return match::cuda_device_count() > 0; }

#define REQUIRE_GPU()                                                                 \
  do {                                                                                \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: CUDA disparity output skipped"; \
  } while (0)

/* The CPU conversion of one map. */
OutputBuffer cpu_output(const InputMap& in, const DisparityOutputParams& p, int pad) {
  OutputBuffer out(in.w, in.h, p.mode, pad);
  match::host::DisparityOutputLut lut;
  const match::Status st =
      match::host::convert_disparity_output(in.view(), p, out.view(), &lut);
  EXPECT_TRUE(st.is_ok()) << st.message();
  return out;
}

void make_stereo_pair(int w, int h, int dmax, unsigned seed, Frame* l, Frame* r) {
  Frame n = make_noise_frame(w + 2, h + 2, w + 2, seed);
  *l = make_noise_frame(w, h, w + 7, seed + 1);
  *r = make_noise_frame(w, h, w + 7, seed + 2);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) l->at(x, y) = static_cast<uint8_t>(box3_mean(n, x, y));
  std::mt19937 rng(seed + 3);
  synthesise_right_view(*l, 0, dmax, 2, &rng, r);
}

StereoConfig stereo_config(int w, int h, int n) {
  StereoConfig c;
  c.width = w;
  c.height = h;
  c.window_width = 7;
  c.window_height = 7;
  c.num_disparities = n;
  return c;
}

/* Params whose colour range is the matcher's. */
std::vector<DisparityOutputParams> params_for(const StereoConfig& c) {
  std::vector<DisparityOutputParams> ps = all_output_params();
  ps.push_back(output_params(M::kColor, c.min_disparity, c.num_disparities));
  return ps;
}

}  // namespace

TEST(DisparityOutputCudaEmulation, MatchesCpu) {
  {
    InputMap in(2, 2, 2);
    OutputBuffer out(2, 2, M::kGray8, 0);
    const match::Status st = match::cuda::emulate_disparity_output(
        in.view(), output_params(M::kGray8), out.view());
    if (st.code() == StatusCode::kUnavailable)
      GTEST_SKIP() << "built without the CUDA backend: " << st.message();
    ASSERT_TRUE(st.is_ok()) << st.message();
  }
  struct Size {
    int w, h, stride, pad;
  };
  const Size sizes[] = {
      {631, 479, 640, 13}, {1, 1, 1, 0}, {3, 2, 5, 2}, {257, 3, 257, 0}};
  int total = 0;
  unsigned seed = 11;
  std::vector<InputMap> maps;
  maps.push_back(make_every_value_map());
  for (const Size& s : sizes)
    maps.push_back(make_random_map(s.w, s.h, s.stride, 300, seed++));
  for (size_t k = 0; k < maps.size(); ++k)
    for (const auto& p : all_output_params()) {
      if (p.mode == M::kDisparity) continue; /* no kernel: a plain download */
      const InputMap& in = maps[k];
      const int pad = k == 0 ? 0 : sizes[k - 1].pad;
      OutputBuffer got(in.w, in.h, p.mode, pad);
      const match::Status st =
          match::cuda::emulate_disparity_output(in.view(), p, got.view());
      ASSERT_TRUE(st.is_ok()) << st.message();
      total +=
          count_output_mismatches(got, cpu_output(in, p, pad),
                                  "emulated " + std::to_string(in.w) + "x" +
                                      std::to_string(in.h) + " " + describe_params(p));
    }
  EXPECT_EQ(total, 0);
  /* The disparity mode has no kernel. */
  OutputBuffer out(3, 2, M::kDisparity, 0);
  EXPECT_EQ(match::cuda::emulate_disparity_output(
                maps[2].view(), output_params(M::kDisparity), out.view())
                .code(),
            StatusCode::kInvalidArgument);
}

namespace {

/* Both matchers on the same pair with the same params: the CUDA output
 * equals the CPU's, byte for byte. */
int compare_matchers(StereoMatcher* gpu, StereoMatcher* cpu, const Frame& l,
                     const Frame& r, const match::StereoRuntime& rt,
                     const DisparityOutputParams& p, int pad, const std::string& what) {
  const int w = l.w, h = l.h;
  OutputBuffer want(w, h, p.mode, pad), got(w, h, p.mode, pad);
  EXPECT_TRUE(cpu->submit(l.view(), r.view(), rt).is_ok());
  match::Status st = cpu->collect(want.view(), p);
  EXPECT_TRUE(st.is_ok()) << what << ": " << st.message();
  EXPECT_TRUE(gpu->submit(l.view(), r.view(), rt).is_ok());
  st = gpu->collect(got.view(), p);
  EXPECT_TRUE(st.is_ok()) << what << ": " << st.message();
  return count_output_mismatches(got, want, what);
}

}  // namespace

TEST(DisparityOutputCuda, CollectMatchesCpu) {
  REQUIRE_GPU();
  struct Size {
    int w, h, n, pad;
  };
  const Size sizes[] = {{631, 479, 48, 13}, {1920, 1080, 128, 0}};
  int total = 0;
  for (const Size& s : sizes) {
    const StereoConfig cfg = stereo_config(s.w, s.h, s.n);
    std::unique_ptr<StereoMatcher> gpu, cpu;
    match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &gpu);
    ASSERT_TRUE(st.is_ok()) << st.message();
    ASSERT_TRUE(StereoMatcher::create(Backend::kCpu, cfg, &cpu).is_ok());
    Frame l, r;
    make_stereo_pair(s.w, s.h, s.n + 2, 70, &l, &r);
    const match::StereoRuntime rt = make_stereo_runtime(true, 1, 5, 0);
    for (const auto& p : params_for(cfg))
      total += compare_matchers(
          gpu.get(), cpu.get(), l, r, rt, p, s.pad,
          std::to_string(s.w) + "x" + std::to_string(s.h) + " " + describe_params(p));
  }
  EXPECT_EQ(total, 0);
}

/* Pairs in flight collected with params that change from pair to pair:
 * outputs queued at submit with the previous params are converted again. */
TEST(DisparityOutputCuda, PipelinedParamsChanges) {
  REQUIRE_GPU();
  const int w = 333, h = 121;
  const StereoConfig cfg = stereo_config(w, h, 32);
  std::unique_ptr<StereoMatcher> gpu, cpu;
  match::Status st = StereoMatcher::create(Backend::kCuda, cfg, &gpu);
  ASSERT_TRUE(st.is_ok()) << st.message();
  ASSERT_TRUE(StereoMatcher::create(Backend::kCpu, cfg, &cpu).is_ok());
  const match::StereoRuntime rt = make_stereo_runtime(true, 1, 0, 0);
  const int pairs = 6;
  std::vector<Frame> ls(pairs), rs(pairs);
  std::vector<InputMap> maps;
  for (int k = 0; k < pairs; ++k) {
    make_stereo_pair(w, h, 34, 200 + 13 * k, &ls[k], &rs[k]);
    DisparityMap map(w, h, w);
    ASSERT_TRUE(cpu->process(ls[k].view(), rs[k].view(), rt, map.view()).is_ok());
    InputMap in(w, h, w);
    in.data = map.data;
    maps.push_back(in);
  }
  const auto ps = params_for(cfg);
  /* Schedules of params indices per collected pair; -1 = plain collect. */
  const std::vector<std::vector<int>> schedules = {
      {1, 1, 1, 1, 1, 1},     /* steady: all queued at submit */
      {8, 8, 12, 12, 8, 8},   /* changes back and forth */
      {-1, 3, -1, 0, 16, -1}, /* plain collect mixed in */
      {2, 3, 4, 5, 6, 7},     /* a change every pair */
      {13, 13, 13, 13, 13, 13},
  };
  int total = 0;
  for (int depth = 1; depth <= gpu->max_in_flight(); ++depth)
    for (size_t si = 0; si < schedules.size(); ++si) {
      const auto& sched = schedules[si];
      int submitted = 0, collected = 0;
      while (collected < pairs) {
        while (submitted < pairs && gpu->in_flight() < depth) {
          ASSERT_TRUE(
              gpu->submit(ls[submitted].view(), rs[submitted].view(), rt).is_ok());
          ++submitted;
        }
        const int k = collected;
        const std::string what = "depth " + std::to_string(depth) + " schedule " +
                                 std::to_string(si) + " pair " + std::to_string(k);
        if (sched[k] < 0) {
          DisparityMap got(w, h, w + 3);
          ASSERT_TRUE(gpu->collect(got.view()).is_ok()) << what;
          int bad = 0;
          for (int y = 0; y < h; ++y)
            for (int x = 0; x < w; ++x) bad += got.at(x, y) != maps[k].at(x, y);
          EXPECT_EQ(bad, 0) << what;
          total += bad;
        } else {
          const auto& p = ps[sched[k]];
          OutputBuffer got(w, h, p.mode, 3);
          st = gpu->collect(got.view(), p);
          ASSERT_TRUE(st.is_ok()) << what << ": " << st.message();
          total += count_output_mismatches(got, cpu_output(maps[k], p, 3),
                                           what + " " + describe_params(p));
        }
        ++collected;
      }
    }
  EXPECT_EQ(total, 0);
  /* reset() with pairs in flight, then on. */
  ASSERT_TRUE(gpu->submit(ls[0].view(), rs[0].view(), rt).is_ok());
  ASSERT_TRUE(gpu->submit(ls[1].view(), rs[1].view(), rt).is_ok());
  gpu->reset();
  EXPECT_EQ(gpu->in_flight(), 0);
  ASSERT_TRUE(gpu->submit(ls[2].view(), rs[2].view(), rt).is_ok());
  OutputBuffer got(w, h, M::kColor, 0);
  ASSERT_TRUE(gpu->collect(got.view(), ps[9]).is_ok());
  EXPECT_EQ(count_output_mismatches(got, cpu_output(maps[2], ps[9], 0), "after reset"),
            0);
}

/* Refused collects take no pair. */
TEST(DisparityOutputCuda, Errors) {
  REQUIRE_GPU();
  const int w = 64, h = 20;
  std::unique_ptr<StereoMatcher> gpu;
  ASSERT_TRUE(
      StereoMatcher::create(Backend::kCuda, stereo_config(w, h, 16), &gpu).is_ok());
  OutputBuffer out(w, h, M::kColor, 0);
  EXPECT_EQ(gpu->collect(out.view(), output_params(M::kColor)).code(),
            StatusCode::kInvalidArgument); /* nothing in flight */
  Frame l, r;
  make_stereo_pair(w, h, 18, 3, &l, &r);
  ASSERT_TRUE(gpu->submit(l.view(), r.view(), match::StereoRuntime()).is_ok());
  OutputBuffer depth(w, h, M::kDepth, 0);
  EXPECT_EQ(gpu->collect(depth.view(), output_params(M::kDepth)).code(),
            StatusCode::kInvalidArgument);
  match::DisparityOutputView shortv = out.view();
  shortv.stride_bytes = 3 * w - 1;
  EXPECT_EQ(gpu->collect(shortv, output_params(M::kColor)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(gpu->in_flight(), 1);
  EXPECT_TRUE(gpu->collect(out.view(), output_params(M::kColor)).is_ok());
  EXPECT_EQ(gpu->in_flight(), 0);
}
