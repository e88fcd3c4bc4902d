/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The disparity output conversions (match/disparity_output.h): the CPU's
 * lookup table against the plain reference, byte for byte, on every 16-bit
 * value and on random maps (invalid and 0 values included) of odd sizes
 * with padded input and output strides, for several params of every mode
 * and several thread counts; the formulas on known values; the table kept
 * across calls; params validation and equality; API errors (bad params,
 * small strides, wrong sizes) that write nothing; and the CPU matcher's
 * collect(DisparityOutputView, DisparityOutputParams) against process()
 * then the reference, pipelined with per-pair params.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../common/disparity_output_testutil.h"
#include "../common/frame.h"
#include "../common/stereo_testutil.h"
#include "host/disparity_output_lut.h"
#include "disparity_output_internal.h"
#include "match/disparity_output.h"
#include "match/stereo.h"

using match::Backend;
using match::DisparityOutputMode;
using match::DisparityOutputParams;
using match::kInvalidDisparity;
using match::StatusCode;
using match::StereoConfig;
using match::StereoMatcher;
using M = match::DisparityOutputMode;

namespace {

const M kModes[] = {M::kDisparity, M::kGray8, M::kColor, M::kDepth};

/* ref and cpu on one map; returns the mismatches. */
int compare_ref_cpu(const InputMap& in, const DisparityOutputParams& p, int pad,
                    int threads, const std::string& what) {
  OutputBuffer want(in.w, in.h, p.mode, pad), got(in.w, in.h, p.mode, pad);
  match::Status st = match::ref::convert_disparity_output(in.view(), p, want.view());
  EXPECT_TRUE(st.is_ok()) << what << ": " << st.message();
  match::host::DisparityOutputLut lut;
  st = match::host::convert_disparity_output(in.view(), p, got.view(), &lut, threads);
  EXPECT_TRUE(st.is_ok()) << what << ": " << st.message();
  return count_output_mismatches(got, want, what);
}

/* One output pixel by the reference. */
std::vector<uint8_t> ref_pixel(uint16_t v, const DisparityOutputParams& p) {
  InputMap in(1, 1, 1);
  in.at(0, 0) = v;
  OutputBuffer out(1, 1, p.mode, 0);
  EXPECT_TRUE(match::ref::convert_disparity_output(in.view(), p, out.view()).is_ok());
  return out.data;
}

unsigned le16(const std::vector<uint8_t>& b) { return b[0] | (b[1] << 8); }

}  // namespace

TEST(DisparityOutput, BytesPerPixel) {
  EXPECT_EQ(match::disparity_output_bytes_per_pixel(M::kDisparity), 2);
  EXPECT_EQ(match::disparity_output_bytes_per_pixel(M::kGray8), 1);
  EXPECT_EQ(match::disparity_output_bytes_per_pixel(M::kColor), 3);
  EXPECT_EQ(match::disparity_output_bytes_per_pixel(M::kDepth), 2);
  EXPECT_EQ(match::disparity_output_bytes_per_pixel(static_cast<M>(9)), 0);
}

/* The definitions on values worked out by hand. */
TEST(DisparityOutput, ReferenceFormulas) {
  /* disparity: as it is, little-endian. */
  const auto disp = output_params(M::kDisparity);
  EXPECT_EQ(le16(ref_pixel(0x1234, disp)), 0x1234u);
  EXPECT_EQ(ref_pixel(0x1234, disp)[0], 0x34);
  EXPECT_EQ(le16(ref_pixel(kInvalidDisparity, disp)), 65535u);
  /* gray8, scale 4: 4 px (64) -> 16; 2.5/16 px rounds half away: 10 -> 2.5
   * -> 3; clamped; invalid 0. */
  const auto g4 = output_params(M::kGray8, 0, 64, 4.0);
  EXPECT_EQ(ref_pixel(64, g4)[0], 16);
  EXPECT_EQ(ref_pixel(10, g4)[0], 3);
  EXPECT_EQ(ref_pixel(0, g4)[0], 0);
  EXPECT_EQ(ref_pixel(16 * 64, g4)[0], 255);
  EXPECT_EQ(ref_pixel(kInvalidDisparity, g4)[0], 0);
  EXPECT_EQ(ref_pixel(kInvalidDisparity - 1, g4)[0], 255);
  /* depth: f 700 px, B 160 mm, d 6 px (96) -> 18666.67 -> 18667 mm (the
   * example of docs/stereodisparity.md); d = 0 and invalid -> 0; far
   * clamps to 65535, near to 1. */
  const auto d = output_params(M::kDepth, 0, 64, 1.0, 700.0, 160.0);
  EXPECT_EQ(le16(ref_pixel(96, d)), 18667u);
  EXPECT_EQ(le16(ref_pixel(0, d)), 0u);
  EXPECT_EQ(le16(ref_pixel(kInvalidDisparity, d)), 0u);
  EXPECT_EQ(le16(ref_pixel(1, d)), 65535u);
  const auto d_near = output_params(M::kDepth, 0, 64, 1.0, 0.001, 0.5);
  EXPECT_EQ(le16(ref_pixel(kInvalidDisparity - 1, d_near)), 1u);
  /* color over [2, 16): t = 0 (d <= 2) -> (0, 0, 128); t = 1 (d >= 16) ->
   * (128, 0, 0); t = 0.5 (d = 9) -> (128, 255, 128) ; invalid black. */
  const auto c = output_params(M::kColor, 2, 14);
  EXPECT_EQ(ref_pixel(0, c), (std::vector<uint8_t>{0, 0, 128}));
  EXPECT_EQ(ref_pixel(32, c), (std::vector<uint8_t>{0, 0, 128}));
  EXPECT_EQ(ref_pixel(16 * 16, c), (std::vector<uint8_t>{128, 0, 0}));
  EXPECT_EQ(ref_pixel(16 * 9, c), (std::vector<uint8_t>{128, 255, 128}));
  EXPECT_EQ(ref_pixel(kInvalidDisparity, c), (std::vector<uint8_t>{0, 0, 0}));
}

/* Every 16-bit value, every params. */
TEST(DisparityOutput, CpuMatchesReferenceOnEveryValue) {
  const InputMap in = make_every_value_map();
  int total = 0;
  for (const auto& p : all_output_params())
    total += compare_ref_cpu(in, p, 0, 1, "every value, " + describe_params(p));
  EXPECT_EQ(total, 0);
}

/* Random maps, odd sizes, padded strides, several thread counts (the
 * 1024 x 300 map is large enough for the parallel rows). */
TEST(DisparityOutput, CpuMatchesReferenceOnRandomMaps) {
  struct Size {
    int w, h, stride, pad;
  };
  const Size sizes[] = {{631, 479, 640, 13},
                        {1, 1, 1, 0},
                        {3, 2, 7, 1},
                        {17, 5, 17, 0},
                        {1024, 300, 1031, 6}};
  int total = 0;
  unsigned seed = 1;
  for (const Size& s : sizes)
    for (const auto& p : all_output_params()) {
      const int max_disp =
          p.mode == M::kColor ? p.min_disparity + p.num_disparities + 4 : 80;
      const InputMap in = make_random_map(s.w, s.h, s.stride, max_disp, seed++);
      for (int threads : {0, 1, 3}) {
        if (threads == 3 && s.w * s.h < 1000) continue;
        total += compare_ref_cpu(in, p, s.pad, threads,
                                 std::to_string(s.w) + "x" + std::to_string(s.h) + " " +
                                     describe_params(p) + " threads " +
                                     std::to_string(threads));
      }
    }
  EXPECT_EQ(total, 0);
}

/* The table is built once per params and follows every change; mode
 * changes reuse its storage. */
TEST(DisparityOutput, TableFollowsParams) {
  const InputMap in = make_random_map(97, 31, 101, 80, 7);
  match::host::DisparityOutputLut lut;
  const auto ps = all_output_params();
  int total = 0;
  /* Forwards, backwards, and each one twice in a row. */
  std::vector<DisparityOutputParams> order(ps.begin(), ps.end());
  order.insert(order.end(), ps.rbegin(), ps.rend());
  for (const auto& p : order) {
    for (int rep = 0; rep < 2; ++rep) {
      OutputBuffer want(in.w, in.h, p.mode, 3), got(in.w, in.h, p.mode, 3);
      ASSERT_TRUE(
          match::ref::convert_disparity_output(in.view(), p, want.view()).is_ok());
      ASSERT_TRUE(
          match::host::convert_disparity_output(in.view(), p, got.view(), &lut).is_ok());
      EXPECT_TRUE(lut.holds(p));
      total += count_output_mismatches(got, want, "reused " + describe_params(p));
    }
  }
  EXPECT_EQ(total, 0);
}

TEST(DisparityOutput, ParamsEquality) {
  auto a = output_params(M::kGray8, 0, 64, 2.0, 1.0, 1.0);
  auto b = a;
  EXPECT_TRUE(a == b);
  /* Fields gray8 does not use. */
  b.focal_length = 5;
  b.baseline = 7;
  b.min_disparity = 3;
  b.num_disparities = 9;
  EXPECT_TRUE(a == b);
  b.gray8_scale = 2.5;
  EXPECT_TRUE(a != b);
  /* The mode. */
  b = a;
  b.mode = M::kDepth;
  EXPECT_TRUE(a != b);
  /* disparity: nothing else matters. */
  auto d1 = output_params(M::kDisparity, 1, 2, 3, 4, 5);
  auto d2 = output_params(M::kDisparity, 6, 7, 8, 9, 10);
  EXPECT_TRUE(d1 == d2);
  /* color: the range only. */
  auto c1 = output_params(M::kColor, 2, 14, 1.0);
  auto c2 = output_params(M::kColor, 2, 14, 9.0);
  EXPECT_TRUE(c1 == c2);
  c2.min_disparity = 3;
  EXPECT_TRUE(c1 != c2);
  c2 = c1;
  c2.num_disparities = 15;
  EXPECT_TRUE(c1 != c2);
  /* depth: focal length and baseline. */
  auto z1 = output_params(M::kDepth, 0, 64, 1.0, 700, 160);
  auto z2 = output_params(M::kDepth, 5, 6, 2.0, 700, 160);
  EXPECT_TRUE(z1 == z2);
  z2.baseline = 161;
  EXPECT_TRUE(z1 != z2);
  z2 = z1;
  z2.focal_length = 701;
  EXPECT_TRUE(z1 != z2);
}

TEST(DisparityOutput, Validate) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const auto& p : all_output_params())
    EXPECT_TRUE(p.validate().is_ok()) << describe_params(p);
  /* The defaults (disparity) are valid; depth needs both factors. */
  EXPECT_TRUE(DisparityOutputParams().validate().is_ok());
  const DisparityOutputParams bad[] = {
      output_params(static_cast<M>(4)),
      output_params(static_cast<M>(-1)),
      output_params(M::kGray8, 0, 64, -0.5),
      output_params(M::kGray8, 0, 64, 255.5),
      output_params(M::kGray8, 0, 64, nan),
      output_params(M::kColor, 0, 0),
      output_params(M::kColor, 0, 257),
      output_params(M::kColor, -1, 64),
      output_params(M::kColor, 1025, 64),
      output_params(M::kDepth, 0, 64, 1.0, 0.0, 0.0),
      output_params(M::kDepth, 0, 64, 1.0, 700.0, 0.0),
      output_params(M::kDepth, 0, 64, 1.0, 0.0, 160.0),
      output_params(M::kDepth, 0, 64, 1.0, -700.0, 160.0),
      output_params(M::kDepth, 0, 64, 1.0, 700.0, -160.0),
      output_params(M::kDepth, 0, 64, 1.0, nan, 160.0),
      output_params(M::kDepth, 0, 64, 1.0, 700.0, inf),
  };
  for (const auto& p : bad) {
    const match::Status st = p.validate();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << describe_params(p);
    EXPECT_FALSE(st.message().empty());
    EXPECT_FALSE(st.field().empty()) << describe_params(p);
  }
  /* Depth names the factor that is missing (the focal length first). */
  EXPECT_EQ(output_params(M::kDepth, 0, 64, 1.0, 0.0, 0.0).validate().field(),
            "focal_length");
  EXPECT_EQ(output_params(M::kDepth, 0, 64, 1.0, 700.0, 0.0).validate().field(),
            "baseline");
  EXPECT_EQ(output_params(M::kGray8, 0, 64, -0.5).validate().field(), "gray8_scale");
  /* A field another mode would reject does not matter. */
  EXPECT_TRUE(output_params(M::kGray8, -5, 0, 2.0, -1, nan).validate().is_ok());
  EXPECT_TRUE(output_params(M::kDisparity, -5, 0, -2.0).validate().is_ok());
}

/* Bad arguments fail with kInvalidArgument and write nothing, in the
 * reference and the CPU alike. */
TEST(DisparityOutput, Errors) {
  const InputMap in = make_random_map(31, 7, 33, 80, 3);
  match::host::DisparityOutputLut lut;
  auto both = [&](const match::ConstDisparityView& iv, const DisparityOutputParams& p,
                  const match::DisparityOutputView& ov, const std::string& what) {
    EXPECT_EQ(match::ref::convert_disparity_output(iv, p, ov).code(),
              StatusCode::kInvalidArgument)
        << "ref: " << what;
    EXPECT_EQ(match::host::convert_disparity_output(iv, p, ov, &lut).code(),
              StatusCode::kInvalidArgument)
        << "cpu: " << what;
  };
  for (M mode : kModes) {
    const auto p = mode == M::kDepth ? output_params(mode, 0, 64, 1.0, 700.0, 160.0)
                                     : output_params(mode);
    const std::string name = mode_name(mode);
    /* A stride one byte short of a row. */
    {
      OutputBuffer out(in.w, in.h, mode, 0);
      match::DisparityOutputView v = out.view();
      v.stride_bytes -= 1;
      both(in.view(), p, v, name + " short stride");
      EXPECT_TRUE(std::all_of(out.data.begin(), out.data.end(), [](uint8_t b) {
        return b == kOutputPad;
      })) << name;
    }
    /* Wrong sizes, no data. */
    {
      OutputBuffer out(in.w + 1, in.h, mode, 0);
      both(in.view(), p, out.view(), name + " wider output");
      OutputBuffer out2(in.w, in.h - 1, mode, 0);
      both(in.view(), p, out2.view(), name + " shorter output");
      match::DisparityOutputView none = out2.view();
      none.data = nullptr;
      none.height = in.h;
      both(in.view(), p, none, name + " no output");
    }
    /* A short input stride, an empty input. */
    {
      OutputBuffer out(in.w, in.h, mode, 0);
      match::ConstDisparityView iv = in.view();
      iv.stride_bytes = 2 * in.w - 1;
      both(iv, p, out.view(), name + " short input stride");
      both(match::ConstDisparityView(), p, out.view(), name + " no input");
    }
  }
  /* Bad params. */
  {
    OutputBuffer out(in.w, in.h, M::kDepth, 0);
    both(in.view(), output_params(M::kDepth), out.view(), "depth without f, B");
    EXPECT_EQ(out.padding_written(), 0);
    OutputBuffer g(in.w, in.h, M::kGray8, 0);
    both(in.view(), output_params(M::kGray8, 0, 64, 300.0), g.view(), "gray8 scale 300");
  }
  EXPECT_EQ(match::host::convert_disparity_output(
                in.view(), output_params(M::kGray8),
                OutputBuffer(in.w, in.h, M::kGray8, 0).view(), nullptr)
                .code(),
            StatusCode::kInvalidArgument);
  /* The public check alone. */
  OutputBuffer ok(in.w, in.h, M::kColor, 0);
  EXPECT_TRUE(
      match::check_disparity_output(output_params(M::kColor), ok.view(), in.w, in.h)
          .is_ok());
  EXPECT_EQ(
      match::check_disparity_output(output_params(M::kColor), ok.view(), in.w, in.h + 1)
          .code(),
      StatusCode::kInvalidArgument);
}

namespace {

/* A textured pair with disparities in [0, 20] and its matcher config. */
void make_stereo_pair(int w, int h, unsigned seed, Frame* l, Frame* r) {
  Frame n = make_noise_frame(w + 2, h + 2, w + 2, seed);
  *l = make_noise_frame(w, h, w + 3, seed + 1);
  *r = make_noise_frame(w, h, w + 3, seed + 2);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) l->at(x, y) = static_cast<uint8_t>(box3_mean(n, x, y));
  std::mt19937 rng(seed + 3);
  synthesise_right_view(*l, 0, 20, 2, &rng, r);
}

StereoConfig stereo_config(int w, int h) {
  StereoConfig c;
  c.width = w;
  c.height = h;
  c.window_width = 5;
  c.window_height = 5;
  c.min_disparity = 0;
  c.num_disparities = 24;
  return c;
}

/* The reference conversion of a map computed by process(). */
OutputBuffer expected_output(const DisparityMap& map, const DisparityOutputParams& p,
                             int pad) {
  InputMap in(map.w, map.h, map.stride);
  in.data = map.data;
  OutputBuffer out(map.w, map.h, p.mode, pad);
  EXPECT_TRUE(match::ref::convert_disparity_output(in.view(), p, out.view()).is_ok());
  return out;
}

}  // namespace

/* The default collect(out, params) (CPU backend): each mode equals
 * process() then the reference; pipelined pairs take their own params. */
TEST(DisparityOutputMatcher, CpuCollectConverts) {
  const int w = 211, h = 67;
  const StereoConfig cfg = stereo_config(w, h);
  std::unique_ptr<StereoMatcher> m;
  ASSERT_TRUE(StereoMatcher::create(Backend::kCpu, cfg, &m).is_ok());
  const match::StereoRuntime rt = make_stereo_runtime(true, 1, 5, 0);

  std::vector<Frame> ls(4), rs(4);
  std::vector<DisparityMap> maps;
  for (int k = 0; k < 4; ++k) {
    make_stereo_pair(w, h, 40 + 10 * k, &ls[k], &rs[k]);
    DisparityMap map(w, h, w + 1);
    ASSERT_TRUE(m->process(ls[k].view(), rs[k].view(), rt, map.view()).is_ok());
    maps.push_back(map);
  }
  int total = 0;
  /* One pair at a time, every params. */
  for (const auto& p : all_output_params()) {
    ASSERT_TRUE(m->submit(ls[0].view(), rs[0].view(), rt).is_ok());
    OutputBuffer got(w, h, p.mode, 5);
    const match::Status st = m->collect(got.view(), p);
    ASSERT_TRUE(st.is_ok()) << describe_params(p) << ": " << st.message();
    total += count_output_mismatches(got, expected_output(maps[0], p, 5),
                                     "cpu collect " + describe_params(p));
  }
  /* Four pairs in flight, each collected with other params (and a plain
   * collect among them). */
  const auto ps = all_output_params();
  for (int round = 0; round < 3; ++round) {
    for (int k = 0; k < 4; ++k)
      ASSERT_TRUE(m->submit(ls[k].view(), rs[k].view(), rt).is_ok());
    for (int k = 0; k < 4; ++k) {
      if (round == 1 && k == 2) {
        DisparityMap plain(w, h, w + 2);
        ASSERT_TRUE(m->collect(plain.view()).is_ok());
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) total += plain.at(x, y) != maps[k].at(x, y);
        continue;
      }
      const auto& p = ps[(round * 5 + k * 3) % ps.size()];
      OutputBuffer got(w, h, p.mode, 1);
      ASSERT_TRUE(m->collect(got.view(), p).is_ok()) << describe_params(p);
      total += count_output_mismatches(got, expected_output(maps[k], p, 1),
                                       "pipelined " + describe_params(p));
    }
  }
  EXPECT_EQ(total, 0);
  EXPECT_EQ(m->in_flight(), 0);
}

/* The 16-bit output at an odd address (not uint16-aligned) goes through
 * the matcher's own map: the same bytes. */
TEST(DisparityOutputMatcher, UnalignedDisparityOutput) {
  const int w = 45, h = 19;
  std::unique_ptr<StereoMatcher> m;
  ASSERT_TRUE(StereoMatcher::create(Backend::kCpu, stereo_config(w, h), &m).is_ok());
  Frame l, r;
  make_stereo_pair(w, h, 5, &l, &r);
  DisparityMap map(w, h, w);
  ASSERT_TRUE(m->process(l.view(), r.view(), match::StereoRuntime(), map.view()).is_ok());
  const std::ptrdiff_t stride = 2 * w + 3; /* odd */
  std::vector<uint8_t> buf(1 + stride * h, kOutputPad);
  ASSERT_TRUE(m->submit(l.view(), r.view(), match::StereoRuntime()).is_ok());
  match::DisparityOutputView v{buf.data() + 1, w, h, stride};
  ASSERT_TRUE(m->collect(v, output_params(M::kDisparity)).is_ok());
  int bad = 0;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const uint8_t* p = v.row(y) + 2 * x;
      bad += (p[0] | (p[1] << 8)) != map.at(x, y);
    }
  EXPECT_EQ(bad, 0);
  EXPECT_EQ(buf[0], kOutputPad);
}

/* Refused collects take no pair. */
TEST(DisparityOutputMatcher, Errors) {
  const int w = 40, h = 12;
  std::unique_ptr<StereoMatcher> m;
  ASSERT_TRUE(StereoMatcher::create(Backend::kCpu, stereo_config(w, h), &m).is_ok());
  OutputBuffer out(w, h, M::kGray8, 0);
  EXPECT_EQ(m->collect(out.view(), output_params(M::kGray8)).code(),
            StatusCode::kInvalidArgument); /* nothing in flight */
  Frame l, r;
  make_stereo_pair(w, h, 9, &l, &r);
  ASSERT_TRUE(m->submit(l.view(), r.view(), match::StereoRuntime()).is_ok());
  OutputBuffer depth(w, h, M::kDepth, 0);
  EXPECT_EQ(m->collect(depth.view(), output_params(M::kDepth)).code(),
            StatusCode::kInvalidArgument); /* no focal length, baseline */
  match::DisparityOutputView shortv = out.view();
  shortv.stride_bytes = w - 1;
  EXPECT_EQ(m->collect(shortv, output_params(M::kGray8)).code(),
            StatusCode::kInvalidArgument);
  OutputBuffer wrong(w - 1, h, M::kGray8, 0);
  EXPECT_EQ(m->collect(wrong.view(), output_params(M::kGray8)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(m->in_flight(), 1);
  EXPECT_EQ(out.padding_written(), 0);
  EXPECT_TRUE(m->collect(out.view(), output_params(M::kGray8)).is_ok());
  EXPECT_EQ(m->in_flight(), 0);
}
