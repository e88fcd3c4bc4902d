/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * POC kernel tests: the CPU backend against the double-precision reference
 * (random textures, odd sizes, padded strides, every layer count, both
 * windows, several window sizes and spacings), known band-limited
 * sub-pixel shifts of a real image, integer shifts, brightness changes,
 * confidence, the vector sign against blockmatchme, the matcher's state,
 * API errors, and accuracy on Middlebury and Sintel flow data (printed next
 * to blockmatchme's, bounded); LowpassSweep (opt-in) prints the figures
 * behind the lowpass default.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <gst/gst.h>

#include "../common/flowmetrics.h"
#include "../common/frame.h"
#include "../common/pgm.h"
#include "../common/testutil.h"
#include "match/blockmatch.h"
#include "match/poc.h"
#include "ref/poc_finish_block.h"

using match::Backend;
using match::Direction;
using match::PocCoarse;
using match::PocConfig;
using match::PocMatcher;
using match::PocRuntime;
using match::PocVector;
using match::PocWindow;
using match::StatusCode;

namespace {

/* Smooth texture: block-averaged noise (as in test_blockmatch.cpp). */
Frame make_texture(int w, int h, int stride, unsigned seed) {
  Frame n = make_noise_frame(w + 4, h + 4, w + 4, seed);
  Frame f = make_noise_frame(w, h, stride, seed + 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int s = 0;
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) s += n.at(x + i, y + j);
      f.at(x, y) = static_cast<uint8_t>(s / 16);
    }
  return f;
}

/* Content moves by (+sx, +sy), clamp-to-edge, plus uniform noise in
 * [-noise, noise]. */
Frame shifted(const Frame& in, int sx, int sy, int noise, unsigned seed) {
  Frame out = in;
  std::mt19937 rng(seed);
  for (int y = 0; y < in.h; ++y)
    for (int x = 0; x < in.w; ++x) {
      int v = in.at(std::clamp(x - sx, 0, in.w - 1), std::clamp(y - sy, 0, in.h - 1));
      if (noise > 0) v += static_cast<int>(rng() % (2 * noise + 1)) - noise;
      out.at(x, y) = static_cast<uint8_t>(std::clamp(v, 0, 255));
    }
  return out;
}

Frame from_pixels(const std::vector<uint8_t>& px, int w, int h, int stride) {
  Frame f = make_noise_frame(w, h, stride, 99);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) f.at(x, y) = px[static_cast<size_t>(y) * w + x];
  return f;
}

/* Band-limited shift of one line by d (content moves by +d): the line is
 * mirrored to period 2n (no jump at the ends), its DFT multiplied by
 * exp(-2 pi i k d / 2n), transformed back (direct O(n^2) DFT: test only). */
void shift_line(const double* in, double* out, int n, int step, double d) {
  const int m = 2 * n;
  std::vector<double> e(m), re(m), im(m);
  for (int i = 0; i < n; ++i) {
    e[i] = in[i * step];
    e[m - 1 - i] = in[i * step];
  }
  std::vector<double> c(m), s(m);
  for (int j = 0; j < m; ++j) {
    c[j] = std::cos(2 * M_PI * j / m);
    s[j] = std::sin(2 * M_PI * j / m);
  }
  for (int k = 0; k < m; ++k) {
    double ar = 0, ai = 0;
    for (int j = 0; j < m; ++j) {
      const int idx = static_cast<int>((static_cast<long long>(k) * j) % m);
      ar += e[j] * c[idx];
      ai -= e[j] * s[idx];
    }
    const int sk = k <= m / 2 ? k : k - m;
    const double ph = -2 * M_PI * sk * d / m;
    if (k == m / 2) {
      /* Nyquist: keep the output real. */
      re[k] = ar * std::cos(ph);
      im[k] = 0;
    } else {
      re[k] = ar * std::cos(ph) - ai * std::sin(ph);
      im[k] = ar * std::sin(ph) + ai * std::cos(ph);
    }
  }
  for (int j = 0; j < n; ++j) {
    double acc = 0;
    for (int k = 0; k < m; ++k) {
      const int idx = static_cast<int>((static_cast<long long>(k) * j) % m);
      acc += re[k] * c[idx] - im[k] * s[idx];
    }
    out[j * step] = acc / m;
  }
}

/* Band-limited (dx, dy) shift of an 8-bit image, rounded back to 8 bits. */
std::vector<uint8_t> bl_shift(const std::vector<uint8_t>& px, int w, int h, double dx,
                              double dy, double gain = 1.0, double offset = 0.0) {
  std::vector<double> a(px.begin(), px.end()), b(a.size());
  for (int y = 0; y < h; ++y)
    shift_line(&a[static_cast<size_t>(y) * w], &b[static_cast<size_t>(y) * w], w, 1, dx);
  for (int x = 0; x < w; ++x) shift_line(&b[x], &a[x], h, w, dy);
  std::vector<uint8_t> out(a.size());
  for (size_t i = 0; i < a.size(); ++i)
    out[i] =
        static_cast<uint8_t>(std::clamp(std::lround(gain * a[i] + offset), 0L, 255L));
  return out;
}

std::vector<PocVector> run_cpu(const Frame& earlier, const Frame& later,
                               const PocConfig& cfg,
                               const PocRuntime& rt = PocRuntime()) {
  std::unique_ptr<PocMatcher> m;
  match::Status st = PocMatcher::create(Backend::kCpu, cfg, &m);
  EXPECT_TRUE(st.is_ok()) << st.message();
  std::vector<PocVector> v(cfg.num_blocks());
  if (!m) return v;
  bool est = true;
  EXPECT_TRUE(m->process(earlier.view(), rt, v.data(), &est).is_ok());
  EXPECT_FALSE(est);
  EXPECT_TRUE(m->process(later.view(), rt, v.data(), &est).is_ok());
  EXPECT_TRUE(est);
  return v;
}

std::vector<PocVector> run_ref(const Frame& earlier, const Frame& later,
                               const PocConfig& cfg,
                               const PocRuntime& rt = PocRuntime()) {
  std::vector<PocVector> v(cfg.num_blocks());
  match::Status st =
      match::ref::poc_match(earlier.view(), later.view(), cfg, rt, v.data());
  EXPECT_TRUE(st.is_ok()) << st.message();
  return v;
}

PocConfig make_config(int w, int h, int n, int spacing, int layers,
                      Direction dir = Direction::kBackward) {
  PocConfig c;
  c.width = w;
  c.height = h;
  c.window_size = n;
  c.spacing = spacing;
  c.layers = layers;
  c.direction = dir;
  return c;
}

/* Blocks whose layer-0 window lies `margin` pixels inside the frame. */
bool interior(const PocConfig& c, int b, int margin) {
  const int cols = c.columns(), s = c.spacing;
  const int x0 = (b % cols) * s, y0 = (b / cols) * s;
  const int px = (x0 + std::min(x0 + s, c.width)) / 2;
  const int py = (y0 + std::min(y0 + s, c.height)) / 2;
  const int h = c.window_size / 2;
  return px - h >= margin && py - h >= margin &&
         px - h + c.window_size <= c.width - margin &&
         py - h + c.window_size <= c.height - margin;
}

std::string files_dir() {
  const char* p = std::getenv("GST_TEST_FILES_PATH");
  return p ? p : "tests/files";
}

bool load_yosemite(std::vector<uint8_t>* px, int* w, int* h) {
  return pgm_read(files_dir() + "/yosemite-yos9-crop.pgm", w, h, px);
}

}  // namespace

/* ---- API ---------------------------------------------------------------- */

TEST(Poc, ConfigValidation) {
  PocConfig good = make_config(320, 240, 64, 16, 2);
  EXPECT_TRUE(good.validate().is_ok());
  for (int n : {32, 48, 60, 64, 75, 96, 100, 128, 243, 256})
    EXPECT_TRUE(make_config(320, 240, n, 16, 2).validate().is_ok()) << n;
  for (int n : {0, 16, 31, 49, 63, 112, 257, 512})
    EXPECT_EQ(make_config(320, 240, n, 16, 2).validate().code(),
              StatusCode::kInvalidArgument)
        << n;
  for (int s : {-1, 0, 3, 257})
    EXPECT_FALSE(make_config(320, 240, 64, s, 2).validate().is_ok()) << s;
  for (int l : {-1, 4})
    EXPECT_FALSE(make_config(320, 240, 64, 16, l).validate().is_ok()) << l;
  PocConfig c = good;
  c.lowpass = 0.0;
  EXPECT_FALSE(c.validate().is_ok());
  c.lowpass = 1.5;
  EXPECT_FALSE(c.validate().is_ok());
  c.lowpass = 0.5;
  EXPECT_TRUE(c.validate().is_ok());
  EXPECT_FALSE(make_config(0, 240, 64, 16, 2).validate().is_ok());
  EXPECT_FALSE(make_config(17000, 240, 64, 16, 2).validate().is_ok());
  /* The coarsest layer needs >= 1 pixel; frames below the window are fine. */
  EXPECT_TRUE(make_config(8, 8, 64, 4, 3).validate().is_ok());
  EXPECT_FALSE(make_config(7, 8, 64, 4, 3).validate().is_ok());
  EXPECT_TRUE(make_config(1, 1, 32, 4, 0).validate().is_ok());
  /* A failure about one setting names its field. */
  EXPECT_EQ(make_config(320, 240, 34, 16, 2).validate().field(), "window_size");
  EXPECT_EQ(make_config(320, 240, 64, 3, 2).validate().field(), "spacing");
  EXPECT_EQ(make_config(320, 240, 64, 16, 4).validate().field(), "layers");
  EXPECT_EQ(make_config(7, 8, 64, 4, 3).validate().field(), "layers");
  EXPECT_EQ(make_config(0, 240, 64, 16, 2).validate().field(), "");
  c.lowpass = 0.0;
  EXPECT_EQ(c.validate().field(), "lowpass");
  c.lowpass = 0.5;

  EXPECT_TRUE(good == good);
  PocConfig d = good;
  d.lowpass = 0.9;
  EXPECT_TRUE(good != d);
  d = good;
  d.window = PocWindow::kNone;
  EXPECT_TRUE(good != d);
  d = good;
  d.coarse = PocCoarse::kShared;
  EXPECT_TRUE(d.validate().is_ok());
  EXPECT_TRUE(good != d);
  d.coarse = PocCoarse::kSharedMedian;
  EXPECT_TRUE(d.validate().is_ok());
  d.coarse = static_cast<PocCoarse>(3);
  EXPECT_FALSE(d.validate().is_ok());
}

TEST(Poc, Create) {
  std::unique_ptr<PocMatcher> m;
  PocConfig c = make_config(64, 48, 48, 16, 1);
  ASSERT_TRUE(PocMatcher::create(Backend::kAuto, c, &m).is_ok());
  EXPECT_FALSE(m->description().empty());
  EXPECT_TRUE(m->config() == c);
  std::unique_ptr<PocMatcher> m2;
  /* Without a CUDA device auto is the CPU and cuda is refused (with one,
   * test_poc_cuda.cpp checks that auto picks it). */
  if (!match::backend_available(Backend::kCuda)) {
    EXPECT_EQ(m->backend(), Backend::kCpu);
    match::Status st = PocMatcher::create(Backend::kCuda, c, &m2);
    EXPECT_EQ(st.code(), StatusCode::kUnavailable);
    EXPECT_FALSE(m2);
  }
  m.reset();
  ASSERT_TRUE(PocMatcher::create(Backend::kCpu, c, &m).is_ok());
  EXPECT_EQ(m->backend(), Backend::kCpu);
  c.window_size = 49;
  EXPECT_EQ(PocMatcher::create(Backend::kCpu, c, &m2).code(),
            StatusCode::kInvalidArgument);
  c = make_config(64, 48, 64, 2, 0);
  EXPECT_EQ(PocMatcher::create(Backend::kCpu, c, &m2).code(),
            StatusCode::kInvalidArgument);
  c = make_config(64, 48, 64, 16, 5);
  EXPECT_EQ(PocMatcher::create(Backend::kCpu, c, &m2).code(),
            StatusCode::kInvalidArgument);
  EXPECT_FALSE(m2);
  /* Wrong frame size and bad arguments are errors, not crashes. */
  Frame f = make_texture(32, 32, 32, 1);
  std::vector<PocVector> v(m->config().num_blocks());
  EXPECT_FALSE(m->process(f.view(), PocRuntime(), v.data(), nullptr).is_ok());
  Frame g = make_texture(64, 48, 64, 1);
  EXPECT_FALSE(m->process(g.view(), PocRuntime(), nullptr, nullptr).is_ok());
  EXPECT_FALSE(
      match::ref::poc_match(f.view(), g.view(), m->config(), PocRuntime(), v.data())
          .is_ok());
}

/* ---- reference vs CPU ---------------------------------------------------- */

struct RefCase {
  int w, h, stride, n, spacing, layers;
  PocWindow window;
  double lowpass;
  Direction dir;
};

namespace {

/* The CPU backend's vectors against the reference's, block by block.
 * Tolerances: the CPU backend computes the surface in float32, the
 * reference in double; the fit is the same code. Flags are compared away
 * from the confidence threshold. */
constexpr double kTolV = 0.01, kTolC = 0.01;
void expect_cpu_near_ref(const std::vector<PocVector>& vr,
                         const std::vector<PocVector>& vc, double min_conf,
                         double* worst_v, double* worst_c) {
  ASSERT_EQ(vr.size(), vc.size());
  for (size_t i = 0; i < vr.size(); ++i) {
    *worst_v = std::max({*worst_v, (double)std::fabs(vr[i].dx - vc[i].dx),
                         (double)std::fabs(vr[i].dy - vc[i].dy)});
    *worst_c = std::max(*worst_c, (double)std::fabs(vr[i].confidence - vc[i].confidence));
    EXPECT_NEAR(vr[i].dx, vc[i].dx, kTolV) << "block " << i;
    EXPECT_NEAR(vr[i].dy, vc[i].dy, kTolV) << "block " << i;
    EXPECT_NEAR(vr[i].confidence, vc[i].confidence, kTolC) << "block " << i;
    if (std::fabs(vr[i].confidence - min_conf) > 2 * kTolC) {
      EXPECT_EQ(vr[i].flags, vc[i].flags) << "block " << i;
    }
  }
}

}  // namespace

TEST(Poc, CpuMatchesReference) {
  const RefCase cases[] = {
      {131, 97, 160, 32, 16, 0, PocWindow::kHann, 1.0, Direction::kBackward},
      {131, 97, 133, 32, 13, 1, PocWindow::kNone, 1.0, Direction::kForward},
      {101, 77, 128, 48, 16, 2, PocWindow::kHann, 0.6, Direction::kBackward},
      {101, 77, 104, 48, 24, 3, PocWindow::kHann, 1.0, Direction::kForward},
      {97, 83, 112, 64, 16, 0, PocWindow::kNone, 0.5, Direction::kForward},
      {97, 83, 100, 64, 20, 2, PocWindow::kHann, 1.0, Direction::kBackward},
      {75, 61, 96, 128, 32, 1, PocWindow::kHann, 1.0, Direction::kBackward},
      {75, 61, 80, 128, 40, 3, PocWindow::kNone, 0.75, Direction::kForward},
  };
  int ci = 0;
  for (const RefCase& rc : cases) {
    SCOPED_TRACE("case " + std::to_string(ci));
    const Frame a = make_texture(rc.w, rc.h, rc.stride, 100 + ci);
    const Frame b = shifted(a, 2 + ci % 3, -1 - ci % 2, 3, 200 + ci);
    PocConfig cfg = make_config(rc.w, rc.h, rc.n, rc.spacing, rc.layers, rc.dir);
    cfg.window = rc.window;
    cfg.lowpass = rc.lowpass;
    PocRuntime rt;
    rt.min_confidence = 0.3;
    const auto vr = run_ref(a, b, cfg, rt);
    const auto vc = run_cpu(a, b, cfg, rt);
    double worst_v = 0, worst_c = 0;
    expect_cpu_near_ref(vr, vc, rt.min_confidence, &worst_v, &worst_c);
    printf(
        "  ref vs cpu, case %d (%dx%d N=%d s=%d L=%d): max |dv| %.2g px, "
        "max |dconf| %.2g\n",
        ci, rc.w, rc.h, rc.n, rc.spacing, rc.layers, worst_v, worst_c);
    ++ci;
  }
}

/* Shared coarse layers (PocConfig::coarse, ref/poc_ref.cpp "Coarse
 * layers"): the CPU backend against the reference, with the tolerances of
 * CpuMatchesReference, on odd sizes, padded strides and layers 1..3. The
 * later frame holds two motions (its left part moves one way, the right
 * part another), so that blocks near the boundary take their prediction
 * from a parent (or a median) that differs from their own hierarchy's. */
namespace {

Frame two_motions(const Frame& a, int split, int sx0, int sy0, int sx1, int sy1,
                  unsigned seed) {
  const Frame l = shifted(a, sx0, sy0, 2, seed);
  const Frame r = shifted(a, sx1, sy1, 2, seed + 1);
  Frame out = l;
  for (int y = 0; y < a.h; ++y)
    for (int x = split; x < a.w; ++x) out.at(x, y) = r.at(x, y);
  return out;
}

}  // namespace

TEST(Poc, SharedCoarseCpuMatchesReference) {
  const RefCase cases[] = {
      {131, 97, 160, 32, 16, 1, PocWindow::kHann, 1.0, Direction::kBackward},
      {131, 97, 133, 32, 13, 2, PocWindow::kNone, 1.0, Direction::kForward},
      {101, 77, 128, 48, 16, 3, PocWindow::kHann, 0.6, Direction::kBackward},
      {97, 83, 100, 64, 12, 2, PocWindow::kHann, 0.75, Direction::kForward},
      {75, 61, 80, 64, 8, 3, PocWindow::kHann, 0.75, Direction::kBackward},
      {75, 61, 96, 128, 32, 1, PocWindow::kHann, 1.0, Direction::kBackward},
      /* Motions 12 and 14 px apart on each axis, beyond layer 0's reach
       * (15 px) together: the prediction decides near the boundary. */
      {211, 157, 224, 32, 8, 2, PocWindow::kHann, 0.75, Direction::kForward},
  };
  int ci = 0;
  for (const RefCase& rc : cases) {
    std::vector<PocVector> v_shared;
    const bool far = rc.w > 200;
    for (PocCoarse mode : {PocCoarse::kShared, PocCoarse::kSharedMedian}) {
      SCOPED_TRACE("case " + std::to_string(ci) + " mode " +
                   std::to_string(static_cast<int>(mode)));
      const Frame a = make_texture(rc.w, rc.h, rc.stride, 300 + ci);
      const Frame b =
          far ? two_motions(a, rc.w / 2 + 3, 12, -9, -14, 6, 400 + ci)
              : two_motions(a, rc.w / 2, 8 + ci % 3, -6, -9, 5 + ci % 2, 400 + ci);
      PocConfig cfg = make_config(rc.w, rc.h, rc.n, rc.spacing, rc.layers, rc.dir);
      cfg.window = rc.window;
      cfg.lowpass = rc.lowpass;
      cfg.coarse = mode;
      cfg.robust = ci % 2 == 0; /* also the raw POC vectors */
      PocRuntime rt;
      rt.min_confidence = 0.3;
      const auto vr = run_ref(a, b, cfg, rt);
      const auto vc = run_cpu(a, b, cfg, rt);
      PocConfig per_block = cfg;
      per_block.coarse = PocCoarse::kPerBlock;
      const auto vp = run_ref(a, b, per_block, rt);
      double worst_v = 0, worst_c = 0;
      expect_cpu_near_ref(vr, vc, rt.min_confidence, &worst_v, &worst_c);
      int differ = 0, differ_shared = 0;
      for (int i = 0; i < cfg.num_blocks(); ++i) {
        differ += vr[i].dx != vp[i].dx || vr[i].dy != vp[i].dy;
        if (!v_shared.empty())
          differ_shared += vr[i].dx != v_shared[i].dx || vr[i].dy != v_shared[i].dy;
      }
      printf(
          "  shared%s ref vs cpu, case %d (%dx%d N=%d s=%d L=%d): max "
          "|dv| %.2g px; of %d blocks %d differ from per-block, %d from "
          "shared\n",
          mode == PocCoarse::kSharedMedian ? "-median" : "", ci, rc.w, rc.h, rc.n,
          rc.spacing, rc.layers, worst_v, cfg.num_blocks(), differ, differ_shared);
      v_shared = vr;
    }
    ++ci;
  }
}

/* ---- known shifts -------------------------------------------------------- */

struct ShiftStats {
  double mean = 0, max = 0;
  int blocks = 0;
};

ShiftStats shift_error(const std::vector<PocVector>& v, const PocConfig& c, double ex,
                       double ey, int margin) {
  ShiftStats s;
  for (int b = 0; b < c.num_blocks(); ++b) {
    if (!interior(c, b, margin)) continue;
    const double e = std::hypot(v[b].dx - ex, v[b].dy - ey);
    s.mean += e;
    s.max = std::max(s.max, e);
    ++s.blocks;
  }
  if (s.blocks) s.mean /= s.blocks;
  return s;
}

TEST(Poc, SubpixelShiftsOfRealImage) {
  std::vector<uint8_t> px;
  int w = 0, h = 0;
  ASSERT_TRUE(load_yosemite(&px, &w, &h));
  const Frame a = from_pixels(px, w, h, w + 24);
  const double shifts[][2] = {{0.25, 0},   {0.5, 0},      {1.75, 0},
                              {0, 0.25},   {0, -0.5},     {0, 1.75},
                              {0.25, 0.5}, {-1.75, 0.25}, {0.5, -1.75}};
  for (const auto& d : shifts) {
    const Frame b = from_pixels(bl_shift(px, w, h, d[0], d[1]), w, h, w + 8);
    for (int layers : {0, 2}) {
      for (Direction dir : {Direction::kBackward, Direction::kForward}) {
        PocConfig cfg = make_config(w, h, 64, 16, layers, dir);
        const auto v = run_cpu(a, b, cfg);
        /* later(x) = earlier(x - d): forward v = +d, backward v = -d. */
        const double sg = dir == Direction::kForward ? 1.0 : -1.0;
        const ShiftStats s = shift_error(v, cfg, sg * d[0], sg * d[1], 2);
        ASSERT_GT(s.blocks, 10);
        printf(
            "  shift (%5.2f, %5.2f) L=%d %s: %d blocks, mean err %.4f px, "
            "max %.4f px\n",
            d[0], d[1], layers, dir == Direction::kForward ? "fwd" : "bwd", s.blocks,
            s.mean, s.max);
        EXPECT_LT(s.max, 0.05) << d[0] << "," << d[1] << " L=" << layers;
      }
    }
  }
}

TEST(Poc, ReferenceSubpixelAccuracy) {
  /* The reference itself, on a band-limited shift of a texture. */
  std::vector<uint8_t> px;
  int w = 0, h = 0;
  ASSERT_TRUE(load_yosemite(&px, &w, &h));
  /* A 160x128 crop keeps the reference fast. */
  const int cw = 160, ch = 128;
  std::vector<uint8_t> crop(static_cast<size_t>(cw) * ch);
  for (int y = 0; y < ch; ++y)
    for (int x = 0; x < cw; ++x) crop[y * cw + x] = px[(y + 40) * w + x + 48];
  const Frame a = from_pixels(crop, cw, ch, cw);
  for (const auto& d :
       {std::pair<double, double>{0.3, -0.7}, std::pair<double, double>{-0.5, 0.25}}) {
    const Frame b = from_pixels(bl_shift(crop, cw, ch, d.first, d.second), cw, ch, cw);
    PocConfig cfg = make_config(cw, ch, 64, 16, 0, Direction::kForward);
    const auto v = run_ref(a, b, cfg);
    const ShiftStats s = shift_error(v, cfg, d.first, d.second, 2);
    ASSERT_GT(s.blocks, 4);
    printf("  ref shift (%.2f, %.2f): %d blocks, mean err %.4f, max %.4f px\n", d.first,
           d.second, s.blocks, s.mean, s.max);
    EXPECT_LT(s.max, 0.02);
  }
}

TEST(Poc, IntegerShiftsAreExact) {
  const Frame a = make_texture(200, 150, 208, 7);
  for (auto d : {std::pair<int, int>{3, -2}, std::pair<int, int>{-5, 4},
                 std::pair<int, int>{0, 0}, std::pair<int, int>{11, 7}}) {
    const Frame b = shifted(a, d.first, d.second, 0, 0);
    for (int layers : {0, 1, 2}) {
      PocConfig cfg = make_config(a.w, a.h, 64, 16, layers, Direction::kForward);
      const auto v = run_cpu(a, b, cfg);
      const ShiftStats s = shift_error(v, cfg, d.first, d.second, 12);
      ASSERT_GT(s.blocks, 4);
      EXPECT_LT(s.max, 1e-3) << d.first << "," << d.second << " L=" << layers;
    }
  }
}

/* With one motion everywhere, shared coarse layers find integer shifts
 * exactly (as the per-block hierarchy does, IntegerShiftsAreExact), also a
 * shift beyond one window's reach at layer 0 (N = 32: 15 px). */
TEST(Poc, SharedCoarseIntegerShiftsAreExact) {
  const Frame a = make_texture(240, 176, 256, 9);
  for (auto d : {std::pair<int, int>{3, -2}, std::pair<int, int>{-5, 4},
                 std::pair<int, int>{0, 0}, std::pair<int, int>{21, -13}}) {
    const Frame b = shifted(a, d.first, d.second, 0, 0);
    for (int layers : {1, 2, 3}) {
      for (PocCoarse mode : {PocCoarse::kShared, PocCoarse::kSharedMedian}) {
        PocConfig cfg = make_config(a.w, a.h, 32, 8, layers, Direction::kForward);
        cfg.coarse = mode;
        const auto v = run_cpu(a, b, cfg);
        /* Margin: the layer-0 window must see the shifted content, not
         * clamped edges. */
        const ShiftStats s = shift_error(v, cfg, d.first, d.second, 24);
        ASSERT_GT(s.blocks, 4);
        EXPECT_LT(s.max, 1e-3) << d.first << "," << d.second << " L=" << layers
                               << " mode " << static_cast<int>(mode);
      }
    }
  }
}

TEST(Poc, BrightnessChangeDoesNotMove) {
  /* POC removes an offset with the window mean and a gain with the
   * normalisation; what remains is clipping and rounding. The taxi frame
   * (Yosemite would lose a third of its pixels to saturation): gain 1.3 and
   * +20 clip 3 % of it, but up to 22 % of some windows, and a window that
   * loses that much of its content is another image; those blocks are
   * reported, and only windows with <= 2 % clipped pixels must hold
   * 0.05 px. A gain of 0.8 (no clipping) must hold it everywhere. */
  std::vector<uint8_t> px;
  int w = 0, h = 0;
  ASSERT_TRUE(pgm_read(files_dir() + "/taxi01.pgm", &w, &h, &px));
  const Frame a = from_pixels(px, w, h, w);
  const Frame b = from_pixels(bl_shift(px, w, h, 0.5, -0.25), w, h, w);
  struct Change {
    double gain, offset, max_clipped;
  };
  for (const Change& ch : {Change{1.3, 20.0, 0.02}, Change{0.8, 20.0, 1.0}}) {
    const Frame c =
        from_pixels(bl_shift(px, w, h, 0.5, -0.25, ch.gain, ch.offset), w, h, w);
    for (int layers : {0, 2}) {
      PocConfig cfg = make_config(w, h, 64, 16, layers, Direction::kForward);
      const auto vb = run_cpu(a, b, cfg);
      const auto vc = run_cpu(a, c, cfg);
      double worst = 0, worst_all = 0;
      int used = 0, total = 0;
      for (int i = 0; i < cfg.num_blocks(); ++i) {
        if (!interior(cfg, i, 2)) continue;
        const int cx = (i % cfg.columns()) * 16 + 8;
        const int cy = (i / cfg.columns()) * 16 + 8;
        int clipped = 0;
        for (int y = cy - 32; y < cy + 32; ++y)
          for (int x = cx - 32; x < cx + 32; ++x) clipped += c.at(x, y) == 255;
        const double e = std::hypot(vb[i].dx - vc[i].dx, vb[i].dy - vc[i].dy);
        worst_all = std::max(worst_all, e);
        ++total;
        if (clipped > ch.max_clipped * 64 * 64) continue;
        worst = std::max(worst, e);
        ++used;
      }
      printf(
          "  gain %.1f offset %+.0f, L=%d: max change %.4f px over %d of "
          "%d blocks (all: %.4f px)\n",
          ch.gain, ch.offset, layers, worst, used, total, worst_all);
      EXPECT_GT(used, total / 3);
      EXPECT_LT(worst, 0.05);
    }
  }
}

TEST(Poc, Confidence) {
  const Frame a = make_texture(160, 128, 160, 21);
  const Frame b = shifted(a, 2, 1, 0, 0);
  PocConfig cfg = make_config(a.w, a.h, 64, 16, 1);
  const auto v = run_cpu(a, b, cfg);
  double lo = 1e9;
  for (int i = 0; i < cfg.num_blocks(); ++i)
    if (interior(cfg, i, 4)) lo = std::min(lo, (double)v[i].confidence);
  printf("  pure shift: min confidence %.3f\n", lo);
  EXPECT_GT(lo, 0.85);
  const auto same = run_cpu(a, a, cfg);
  for (const auto& x : same) {
    EXPECT_NEAR(x.confidence, 1.0, 1e-3);
    EXPECT_NEAR(x.dx, 0.0, 1e-4);
    EXPECT_NEAR(x.dy, 0.0, 1e-4);
  }
  /* Unrelated noise. */
  const Frame n1 = make_noise_frame(160, 128, 160, 5);
  const Frame n2 = make_noise_frame(160, 128, 160, 6);
  const auto vn = run_cpu(n1, n2, cfg);
  double hi = 0, mean = 0;
  for (const auto& x : vn) {
    hi = std::max(hi, (double)x.confidence);
    mean += x.confidence;
  }
  mean /= vn.size();
  printf("  unrelated noise: mean confidence %.3f, max %.3f\n", mean, hi);
  /* The noise peak relative to the ideal one grows as 1 / (2K + 1) with
   * fewer kept bins: measured max 0.201 at the default lowpass 0.75 (K = 24
   * of 31 at N = 64), lower at lowpass 1. */
  EXPECT_LT(hi, 0.25);
  /* min_confidence flags (vector kept). */
  PocRuntime rt;
  rt.min_confidence = 0.5;
  const auto vf = run_cpu(n1, n2, cfg, rt);
  for (const auto& x : vf) EXPECT_EQ(x.flags, match::kFlagUnreliable);
  const auto vg = run_cpu(a, b, cfg, rt);
  for (int i = 0; i < cfg.num_blocks(); ++i)
    if (interior(cfg, i, 4)) {
      EXPECT_EQ(vg[i].flags, match::kFlagNone);
    }
}

/* The reach of each setting and max_displacement: no vector beyond it,
 * whatever the content (issue 18: layers=0 used to return up to ~N). */
TEST(Poc, ReachIsNeverExceeded) {
  PocConfig c = make_config(320, 256, 64, 16, 0);
  EXPECT_EQ(match::poc_reach(c), 31);
  c.layers = 1;
  EXPECT_EQ(match::poc_reach(c), 62);
  c.layers = 2;
  EXPECT_EQ(match::poc_reach(c), 124);
  c.layers = 3;
  EXPECT_EQ(match::poc_reach(c), 248);
  c.max_displacement = 20;
  EXPECT_EQ(match::poc_max_displacement(c), 20);
  c.max_displacement = 1000;
  EXPECT_EQ(match::poc_max_displacement(c), 248);
  c.max_displacement = -1;
  EXPECT_FALSE(c.validate().is_ok());

  /* Unrelated frames (noise against noise) and a shift of 40 px, beyond
   * layers=0's reach: every vector within the reach or the cap. */
  const Frame n1 = make_noise_frame(224, 160, 224, 7);
  const Frame n2 = make_noise_frame(224, 160, 224, 8);
  const Frame a = make_texture(224, 160, 224, 9);
  const Frame b = shifted(a, 40, -3, 2, 10);
  for (bool robust : {true, false})
    for (int layers : {0, 1, 2})
      for (int cap : {0, 12}) {
        PocConfig cfg = make_config(224, 160, 64, 16, layers);
        cfg.robust = robust;
        cfg.median = !robust;
        cfg.max_displacement = cap;
        const double lim = match::poc_max_displacement(cfg) + 1e-4;
        std::vector<std::vector<PocVector>> runs = {run_cpu(n1, n2, cfg),
                                                    run_cpu(a, b, cfg)};
        /* The double-precision reference is slow: one setting. */
        if (robust && layers == 0 && cap == 0) runs.push_back(run_ref(a, b, cfg));
        for (const auto& v : runs)
          for (const auto& x : v)
            EXPECT_LE(std::hypot(x.dx, x.dy), lim)
                << "layers " << layers << " cap " << cap << " robust " << robust;
      }
}

/* The optional median post-filter (poc_finish, no pixels read without
 * `robust`): an outlier takes the confidence-weighted vector median of its
 * 3 x 3 blocks and the lower confidence; a vector within 1 px of the
 * median (a sub-pixel difference) stays the block's own. */
TEST(Poc, MedianReplacesOnlyOutliers) {
  PocConfig cfg = make_config(80, 64, 64, 16, 1); /* 5 x 4 blocks */
  cfg.robust = false;
  cfg.median = true;
  std::vector<PocVector> v(cfg.num_blocks());
  for (auto& x : v) {
    x.dx = 2.f;
    x.dy = 1.f;
    x.confidence = 0.9f;
    x.flags = match::kFlagNone;
  }
  v[6].dx = 30.f; /* outlier */
  v[6].dy = -20.f;
  v[6].confidence = 0.3f;
  v[8].dx = 2.4f; /* sub-pixel difference */
  const match::ImageView none{};
  ASSERT_TRUE(match::poc_finish(none, none, cfg, PocRuntime(), v.data()).is_ok());
  EXPECT_EQ(v[6].dx, 2.f);
  EXPECT_EQ(v[6].dy, 1.f);
  EXPECT_FLOAT_EQ(v[6].confidence, 0.3f);
  EXPECT_EQ(v[8].dx, 2.4f);
  for (const auto& x : v) EXPECT_EQ(x.flags, match::kFlagNone);
  /* Without `median` the outlier stays (within reach: 62 px). */
  cfg.median = false;
  v[6].dx = 30.f;
  v[6].dy = -20.f;
  ASSERT_TRUE(match::poc_finish(none, none, cfg, PocRuntime(), v.data()).is_ok());
  EXPECT_EQ(v[6].dx, 30.f);
}

/* The layer vote (poc.h, kPocVoteClear) on one block that two motions
 * share: the earlier frame's columns left of `boundary` stay, the others
 * move (+6, 0). Block (4, 2) of a 16 px grid holds both; its vector is
 * the static one, its left neighbours' too, its right ones' the moving
 * one (the background it uncovers is new texture). Three quarters moving: the moving vector; half: about their mean
 * (each pixel's vote is its own, the mean is weighted by the sure ones);
 * a moving neighbour under kPocVoteMinConfidence is no candidate; a flat
 * frame leaves every pixel unsure (the blocks' median decides). */
TEST(Poc, VoteTwoLayers) {
  using namespace match::poc_finish_detail;
  const int w = 160, h = 96;
  const Frame noise = make_noise_frame(w + 2, h + 2, w + 2, 38);
  auto pair = [&](int boundary, bool flat, Frame* a, Frame* b) {
    *a = make_noise_frame(w, h, w + 3, 1);
    *b = make_noise_frame(w, h, w + 5, 2);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) a->at(x, y) = flat ? 90 : box3_mean(noise, x, y);
    /* The background the moving part uncovers is new texture. */
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        b->at(x, y) = x - 6 >= boundary ? a->at(x - 6, y)
                      : x >= boundary   ? (flat ? 90 : 255 - box3_mean(noise, x, y))
                                        : a->at(x, y);
  };
  struct U8 {
    const Frame* f;
    int operator()(int x, int y) const { return f->at(x, y); }
  };
  const U8* none = nullptr;
  PocConfig cfg = make_config(w, h, 64, 16, 0);
  const FinishParams p = make_finish_params(cfg, 0.0);
  const int b = 2 * cfg.columns() + 4;
  auto field = [&](float moving_confidence) {
    std::vector<PocVector> v(cfg.num_blocks());
    for (int i = 0; i < cfg.num_blocks(); ++i) {
      const bool moving = i % cfg.columns() >= 5;
      v[i].dx = moving ? 6.f : 0.f;
      v[i].dy = 0.f;
      v[i].confidence = moving ? moving_confidence : 0.8f;
      v[i].flags = match::kFlagNone;
    }
    return v;
  };
  Frame a, c;
  pair(4 * 16 + 1, false, &a, &c); /* 15 of 16 columns move */
  std::vector<PocVector> v = field(0.9f);
  PocVector out = vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, v.data(), b);
  EXPECT_EQ(out.dx, 6.f);
  EXPECT_EQ(out.dy, 0.f);
  EXPECT_FLOAT_EQ(out.confidence, 0.8f);
  EXPECT_EQ(out.flags, match::kFlagNone);

  /* The motion held only by blocks two columns away (the ring), at
   * kPocVoteRingConfidence and under it. */
  std::vector<PocVector> far = field(0.9f);
  for (int i = 0; i < cfg.num_blocks(); ++i)
    if (i % cfg.columns() == 5) far[i].dx = 0.f;
  out = vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, far.data(), b);
  EXPECT_EQ(out.dx, 6.f);
  for (int i = 0; i < cfg.num_blocks(); ++i)
    if (far[i].dx != 0.f) far[i].confidence = 0.35f;
  out = vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, far.data(), b);
  EXPECT_EQ(out.dx, 0.f);

  /* Under kPocVoteMajority: the mean, by the share of each motion. */
  pair(4 * 16 + 4, false, &a, &c); /* 12 of 16 */
  out = vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, v.data(), b);
  EXPECT_NEAR(out.dx, 4.5f, 0.75f);
  EXPECT_EQ(out.dy, 0.f);
  pair(4 * 16 + 8, false, &a, &c); /* half of them */
  out = vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, v.data(), b);
  EXPECT_NEAR(out.dx, 3.f, 0.75f);
  EXPECT_EQ(out.dy, 0.f);

  pair(4 * 16 + 4, false, &a, &c);
  v = field(0.25f); /* the moving neighbours are no candidates */
  out = vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, v.data(), b);
  EXPECT_EQ(out.dx, 0.f);

  /* Flat: nothing is sure, so the 3 x 3 blocks' vector median (five
   * static, four moving), even where the block's own vector moved. */
  pair(4 * 16 + 4, true, &a, &c);
  v = field(0.9f);
  v[b].dx = 6.f;
  out = vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, v.data(), b);
  EXPECT_EQ(out.dx, 0.f);
  /* A block inside one motion has no other candidate. */
  out =
      vote_block(SerialTeam(), U8{&a}, U8{&c}, none, p, v.data(), 2 * cfg.columns() + 7);
  EXPECT_EQ(out.dx, 6.f);
}

/* The vote's third frame (forward fields). A textured layer left of x =
 * 74 + 6 t moves right by 6 px a frame (t = -1, 0, 1: the frame before,
 * the blocks' frame, the later one) over a static background; block
 * (4, 2), x 64..79, is 10 columns of the layer and 6 of background, which
 * the later frame hides (the layer moves over them). Its true mean motion
 * is 3.75 px. With two frames the hidden pixels match neither candidate
 * and the block takes the layer's 6 px; with the frame before they are
 * seen there and vote for the background. */
Frame layer_over_background(int w, int h, int edge, int t) {
  const Frame bg_noise = make_noise_frame(w + 2, h + 2, w + 2, 38);
  const Frame fg_noise = make_noise_frame(w + 14, h + 2, w + 14, 39);
  Frame f = make_noise_frame(w, h, w + 3, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      f.at(x, y) = x < edge + 6 * t ? box3_mean(fg_noise, x - 6 * t + 8, y)
                                    : box3_mean(bg_noise, x, y);
  return f;
}

TEST(Poc, VoteThreeFrames) {
  using namespace match::poc_finish_detail;
  const int w = 160, h = 96, edge = 74;
  const Frame before = layer_over_background(w, h, edge, -1),
              a = layer_over_background(w, h, edge, 0),
              c = layer_over_background(w, h, edge, 1);
  struct U8 {
    const Frame* f;
    int operator()(int x, int y) const { return f->at(x, y); }
  };
  PocConfig cfg = make_config(w, h, 64, 16, 0, Direction::kForward);
  const FinishParams p = make_finish_params(cfg, 0.0);
  std::vector<PocVector> v(cfg.num_blocks());
  for (int i = 0; i < cfg.num_blocks(); ++i) {
    v[i].dx = i % cfg.columns() <= 4 ? 6.f : 0.f;
    v[i].dy = 0.f;
    v[i].confidence = 0.8f;
    v[i].flags = match::kFlagNone;
  }
  const int b = 2 * cfg.columns() + 4;
  const U8 K{&before};
  const PocVector two = vote_block(SerialTeam(), U8{&a}, U8{&c},
                                   static_cast<const U8*>(nullptr), p, v.data(), b);
  const PocVector three = vote_block(SerialTeam(), U8{&a}, U8{&c}, &K, p, v.data(), b);
  EXPECT_GT(std::fabs(two.dx - 3.75f), 1.f) << two.dx;
  EXPECT_LT(std::fabs(three.dx - 3.75f), 0.5f) << three.dx;
  EXPECT_EQ(three.dy, 0.f);
  /* The same through poc_finish () (scratch, threads), which takes the
   * third frame for forward fields only. */
  const match::ImageView kv = before.view();
  std::vector<PocVector> f3 = v, f2 = v;
  ASSERT_TRUE(
      match::poc_finish(a.view(), c.view(), cfg, PocRuntime(), f3.data(), &kv).is_ok());
  ASSERT_TRUE(
      match::poc_finish(a.view(), c.view(), cfg, PocRuntime(), f2.data()).is_ok());
  EXPECT_EQ(f3[b].dx, three.dx);
  EXPECT_EQ(f2[b].dx, two.dx);
  PocConfig bwd = cfg;
  bwd.direction = Direction::kBackward;
  std::vector<PocVector> g2 = v, g3 = v;
  ASSERT_TRUE(
      match::poc_finish(a.view(), c.view(), bwd, PocRuntime(), g2.data()).is_ok());
  ASSERT_TRUE(
      match::poc_finish(a.view(), c.view(), bwd, PocRuntime(), g3.data(), &kv).is_ok());
  for (int i = 0; i < cfg.num_blocks(); ++i) EXPECT_EQ(g2[i].dx, g3[i].dx);
}

/* The CPU matcher in a stream: from its third frame on, a forward field's
 * vote has the frame before (the POC vectors of the pair, then poc_finish ()
 * with the third frame, bit for bit); a backward one's does not; reset ()
 * forgets it. */
TEST(Poc, StreamVotesWithTheFrameBefore) {
  const int w = 203, h = 131, edge = 97;
  const Frame k = layer_over_background(w, h, edge, -1),
              a = layer_over_background(w, h, edge, 0),
              c = layer_over_background(w, h, edge, 1);
  const match::ImageView kv = k.view();
  for (Direction dir : {Direction::kForward, Direction::kBackward}) {
    const PocConfig cfg = make_config(w, h, 64, 16, 1, dir);
    PocConfig raw_cfg = cfg;
    raw_cfg.robust = false;
    std::vector<PocVector> pair3 = run_cpu(a, c, raw_cfg), pair2 = pair3;
    ASSERT_TRUE(
        match::poc_finish(a.view(), c.view(), cfg, PocRuntime(), pair3.data(), &kv)
            .is_ok());
    ASSERT_TRUE(
        match::poc_finish(a.view(), c.view(), cfg, PocRuntime(), pair2.data()).is_ok());
    std::unique_ptr<PocMatcher> m;
    ASSERT_TRUE(PocMatcher::create(Backend::kCpu, cfg, &m).is_ok());
    std::vector<PocVector> v(cfg.num_blocks());
    bool est = false;
    for (const Frame* f : {&k, &a, &c})
      ASSERT_TRUE(m->process(f->view(), PocRuntime(), v.data(), &est).is_ok());
    int differ = 0;
    for (int i = 0; i < cfg.num_blocks(); ++i) {
      const PocVector& want = dir == Direction::kForward ? pair3[i] : pair2[i];
      EXPECT_EQ(v[i].dx, want.dx) << i;
      EXPECT_EQ(v[i].dy, want.dy) << i;
      EXPECT_EQ(v[i].confidence, want.confidence) << i;
      differ += pair3[i].dx != pair2[i].dx || pair3[i].dy != pair2[i].dy;
    }
    if (dir == Direction::kForward)
      EXPECT_GT(differ, 0); /* the boundary's blocks */
    else
      EXPECT_EQ(differ, 0);
    /* After a reset the pair has no frame before. */
    m->reset();
    for (const Frame* f : {&a, &c})
      ASSERT_TRUE(m->process(f->view(), PocRuntime(), v.data(), &est).is_ok());
    for (int i = 0; i < cfg.num_blocks(); ++i) EXPECT_EQ(v[i].dx, pair2[i].dx) << i;
  }
}

/* Honest flags: a confidence not above the documented floor (or 0, e.g. a
 * flat frame) is always flagged unreliable, whatever min_confidence. */
TEST(Poc, ConfidenceFloorFlags) {
  PocConfig cfg = make_config(192, 160, 64, 16, 1);
  EXPECT_NEAR(match::poc_confidence_floor(cfg), 0.1249, 1e-3);
  cfg.window_size = 256;
  EXPECT_NEAR(match::poc_confidence_floor(cfg), 0.0366, 1e-3);
  cfg.window_size = 64;
  Frame flat = make_noise_frame(192, 160, 192, 1);
  for (int y = 0; y < flat.h; ++y)
    for (int x = 0; x < flat.w; ++x) flat.at(x, y) = 77;
  for (const auto& x : run_cpu(flat, flat, cfg)) {
    EXPECT_EQ(x.confidence, 0.f);
    EXPECT_EQ(x.flags, match::kFlagUnreliable);
  }
  const double floor = match::poc_confidence_floor(cfg);
  const Frame n1 = make_noise_frame(192, 160, 192, 3);
  const Frame n2 = make_noise_frame(192, 160, 192, 4);
  int flagged = 0, total = 0;
  for (const auto& v : {run_cpu(n1, n2, cfg), run_ref(n1, n2, cfg)})
    for (const auto& x : v) {
      ++total;
      flagged += x.flags == match::kFlagUnreliable;
      if (x.confidence <= floor)
        EXPECT_EQ(x.flags, match::kFlagUnreliable);
      else
        EXPECT_EQ(x.flags, match::kFlagNone);
    }
  printf("  unrelated noise: %d of %d vectors flagged by the floor %.3f\n", flagged,
         total, floor);
  /* The floor is the typical highest noise sample: about half or more of
   * the unrelated windows fall below it. */
  EXPECT_GT(flagged, total / 3);
}

/* POC and blockmatchme must agree on the sign of the vectors. */
TEST(Poc, SignMatchesBlockMatch) {
  const Frame a = make_texture(192, 160, 192, 31);
  const Frame b = shifted(a, 3, -2, 0, 0); /* content moves by (+3, -2) */
  for (Direction dir : {Direction::kForward, Direction::kBackward}) {
    match::BlockMatchConfig bc;
    bc.width = a.w;
    bc.height = a.h;
    bc.block_width = bc.block_height = 16;
    bc.range_x = bc.range_y = 6;
    bc.direction = dir;
    std::unique_ptr<match::BlockMatcher> bm;
    ASSERT_TRUE(match::BlockMatcher::create(Backend::kCpu, bc, &bm).is_ok());
    std::vector<match::BlockVector> bv(bc.num_blocks());
    bool est = false;
    ASSERT_TRUE(
        bm->process(a.view(), match::BlockMatchRuntime(), bv.data(), &est).is_ok());
    ASSERT_TRUE(
        bm->process(b.view(), match::BlockMatchRuntime(), bv.data(), &est).is_ok());
    ASSERT_TRUE(est);
    PocConfig pc = make_config(a.w, a.h, 64, 16, 1, dir);
    const auto pv = run_cpu(a, b, pc);
    const int expect_x = dir == Direction::kForward ? 3 : -3;
    const int expect_y = dir == Direction::kForward ? -2 : 2;
    int checked = 0;
    for (int i = 0; i < pc.num_blocks(); ++i) {
      if (!interior(pc, i, 4)) continue;
      EXPECT_EQ(bv[i].dx, expect_x * match::kSubpelScale);
      EXPECT_EQ(bv[i].dy, expect_y * match::kSubpelScale);
      EXPECT_NEAR(pv[i].dx * match::kSubpelScale, bv[i].dx, 0.01);
      EXPECT_NEAR(pv[i].dy * match::kSubpelScale, bv[i].dy, 0.01);
      ++checked;
    }
    EXPECT_GT(checked, 8);
  }
}

/* ---- state --------------------------------------------------------------- */

TEST(Poc, StateResetReconfigure) {
  const Frame a = make_texture(150, 110, 160, 41);
  const Frame b = shifted(a, 1, 2, 2, 1);
  const Frame c = shifted(a, -2, 1, 2, 2);
  PocConfig cfg = make_config(a.w, a.h, 48, 16, 1);
  std::unique_ptr<PocMatcher> m;
  ASSERT_TRUE(PocMatcher::create(Backend::kCpu, cfg, &m).is_ok());
  std::vector<PocVector> v(cfg.num_blocks());
  bool est = true;
  ASSERT_TRUE(m->process(a.view(), PocRuntime(), v.data(), &est).is_ok());
  EXPECT_FALSE(est);
  for (const auto& x : v) {
    EXPECT_EQ(x.flags, match::kFlagNoEstimate);
    EXPECT_EQ(x.confidence, -1.f);
  }
  ASSERT_TRUE(m->process(b.view(), PocRuntime(), v.data(), &est).is_ok());
  EXPECT_TRUE(est);
  const auto ab = run_cpu(a, b, cfg);
  for (int i = 0; i < cfg.num_blocks(); ++i) {
    EXPECT_EQ(v[i].dx, ab[i].dx);
    EXPECT_EQ(v[i].dy, ab[i].dy);
  }
  /* The previous frame carries on: (b, c). */
  ASSERT_TRUE(m->process(c.view(), PocRuntime(), v.data(), &est).is_ok());
  EXPECT_TRUE(est);
  const auto bc = run_cpu(b, c, cfg);
  for (int i = 0; i < cfg.num_blocks(); ++i) EXPECT_EQ(v[i].dx, bc[i].dx);

  /* Reconfigure keeps c: the next frame estimates with the new settings. */
  PocConfig cfg2 = make_config(a.w, a.h, 64, 12, 2, Direction::kForward);
  cfg2.window = PocWindow::kNone;
  cfg2.lowpass = 0.7;
  ASSERT_TRUE(m->reconfigure(cfg2).is_ok());
  EXPECT_TRUE(m->config() == cfg2);
  std::vector<PocVector> v2(cfg2.num_blocks());
  ASSERT_TRUE(m->process(a.view(), PocRuntime(), v2.data(), &est).is_ok());
  EXPECT_TRUE(est);
  const auto ca = run_cpu(c, a, cfg2);
  for (int i = 0; i < cfg2.num_blocks(); ++i) {
    EXPECT_EQ(v2[i].dx, ca[i].dx);
    EXPECT_EQ(v2[i].dy, ca[i].dy);
    EXPECT_EQ(v2[i].confidence, ca[i].confidence);
  }
  PocConfig bad = cfg2;
  bad.width += 2;
  EXPECT_FALSE(m->reconfigure(bad).is_ok());
  bad = cfg2;
  bad.layers = 7;
  EXPECT_FALSE(m->reconfigure(bad).is_ok());
  EXPECT_TRUE(m->config() == cfg2);

  /* reset forgets the previous frame. */
  m->reset();
  ASSERT_TRUE(m->process(b.view(), PocRuntime(), v2.data(), &est).is_ok());
  EXPECT_FALSE(est);
  for (const auto& x : v2) EXPECT_EQ(x.flags, match::kFlagNoEstimate);

  /* Thread count does not change results (also with shared coarse
   * layers, whose layers are ordered by the loops' barriers). */
  PocRuntime one;
  one.threads = 1;
  PocRuntime three;
  three.threads = 3;
  for (PocCoarse mode :
       {PocCoarse::kPerBlock, PocCoarse::kShared, PocCoarse::kSharedMedian}) {
    PocConfig tc = make_config(a.w, a.h, 32, 8, 2);
    tc.coarse = mode;
    const auto t1 = run_cpu(a, b, tc, one);
    const auto t3 = run_cpu(a, b, tc, three);
    for (int i = 0; i < tc.num_blocks(); ++i) {
      EXPECT_EQ(t1[i].dx, t3[i].dx);
      EXPECT_EQ(t1[i].dy, t3[i].dy);
      EXPECT_EQ(t1[i].confidence, t3[i].confidence);
    }
  }

  /* Reconfigure to and from shared coarse layers keeps the previous
   * frame. */
  m->reset();
  ASSERT_TRUE(m->process(a.view(), PocRuntime(), v2.data(), &est).is_ok());
  PocConfig cfg3 = make_config(a.w, a.h, 32, 8, 3);
  cfg3.coarse = PocCoarse::kSharedMedian;
  ASSERT_TRUE(m->reconfigure(cfg3).is_ok());
  std::vector<PocVector> v3(cfg3.num_blocks());
  ASSERT_TRUE(m->process(b.view(), PocRuntime(), v3.data(), &est).is_ok());
  EXPECT_TRUE(est);
  const auto ab3 = run_cpu(a, b, cfg3);
  for (int i = 0; i < cfg3.num_blocks(); ++i) {
    EXPECT_EQ(v3[i].dx, ab3[i].dx);
    EXPECT_EQ(v3[i].dy, ab3[i].dy);
  }
  ASSERT_TRUE(m->reconfigure(cfg).is_ok());
  ASSERT_TRUE(m->process(c.view(), PocRuntime(), v.data(), &est).is_ok());
  for (int i = 0; i < cfg.num_blocks(); ++i) EXPECT_EQ(v[i].dx, bc[i].dx);
}

TEST(Poc, TinyFrames) {
  /* Frames smaller than the window: clamp-to-edge, no crash, and with
   * identical frames zero motion. */
  for (auto sz : {std::pair<int, int>{1, 1}, std::pair<int, int>{9, 5},
                  std::pair<int, int>{40, 33}}) {
    const Frame a = make_texture(sz.first, sz.second, sz.first + 3, 3);
    const int layers = sz.first >= 8 && sz.second >= 4 ? 2 : 0;
    for (PocCoarse mode :
         {PocCoarse::kPerBlock, PocCoarse::kShared, PocCoarse::kSharedMedian}) {
      PocConfig cfg = make_config(a.w, a.h, 32, 4, layers);
      cfg.coarse = mode;
      const auto vc = run_cpu(a, a, cfg);
      const auto vr = run_ref(a, a, cfg);
      for (int i = 0; i < cfg.num_blocks(); ++i) {
        EXPECT_NEAR(vc[i].dx, 0.f, 1e-3);
        EXPECT_NEAR(vc[i].dy, 0.f, 1e-3);
        EXPECT_NEAR(vr[i].dx, vc[i].dx, 1e-3);
        EXPECT_NEAR(vr[i].confidence, vc[i].confidence, 1e-2);
      }
    }
  }
}

/* ---- accuracy on flow data with GT (printed; needs $MATCH_TEST_DATA) ------ */

namespace {

/* One frame pair with its forward GT (docs/accuracy.md, Metrics). */
struct FlowPair {
  std::string name;
  Frame a, b;
  FlowGroundTruth gt;
};

/* Loads `first`/`second`/`flo` under $MATCH_TEST_DATA; false when absent. */
bool load_flow_pair(const std::string& name, const std::string& first,
                    const std::string& second, const std::string& flo, FlowPair* out) {
  const std::string p0 = test_data_path(first.c_str());
  const std::string p1 = test_data_path(second.c_str());
  const std::string pf = test_data_path(flo.c_str());
  if (p0.empty() || p1.empty() || pf.empty()) return false;
  TestImage i0, i1;
  if (!test_load_gray(p0, &i0) || !test_load_gray(p1, &i1) ||
      !flow_gt_load(pf, &out->gt)) {
    ADD_FAILURE() << "cannot read " << name;
    return false;
  }
  out->name = name;
  out->a = from_pixels(i0.pixels, i0.width, i0.height, i0.width);
  out->b = from_pixels(i1.pixels, i1.width, i1.height, i1.width);
  return true;
}

/* frame10 -> frame11 of the Middlebury "other" sequences with GT. */
std::vector<FlowPair> middlebury_pairs() {
  std::vector<FlowPair> v;
  for (const char* s : {"RubberWhale", "Dimetrodon", "Venus"}) {
    const std::string d = std::string("flow/middlebury/") + s + "/";
    FlowPair p;
    if (load_flow_pair(s, d + "frame10.png", d + "frame11.png", d + "flow10.flo", &p))
      v.push_back(std::move(p));
  }
  return v;
}

/* Sintel alley_1 frame_0002 -> frame_0003, clean and final passes (one GT). */
std::vector<FlowPair> sintel_pairs() {
  std::vector<FlowPair> v;
  const std::string d = "flow/sintel/alley_1/";
  for (const char* pass : {"clean", "final"}) {
    FlowPair p;
    if (load_flow_pair(std::string("alley_1 ") + pass, d + pass + "/frame_0002.png",
                       d + pass + "/frame_0003.png", d + "clean/gt/frame_0002.flo", &p))
      v.push_back(std::move(p));
  }
  return v;
}

BlockField make_field(int w, int h, int spacing, int cols, int rows) {
  BlockField f;
  f.frame_width = w;
  f.frame_height = h;
  f.block_width = f.block_height = spacing;
  f.columns = cols;
  f.rows = rows;
  return f;
}

/* pocme's CPU backend, forward (the GT's direction); *ms: the estimate. */
FlowMetrics poc_metrics(const FlowPair& p, int window, int layers, double lowpass,
                        double* ms = nullptr) {
  PocConfig cfg = make_config(p.a.w, p.a.h, window, 16, layers, Direction::kForward);
  cfg.lowpass = lowpass;
  std::unique_ptr<PocMatcher> m;
  FlowMetrics fm;
  EXPECT_TRUE(PocMatcher::create(Backend::kCpu, cfg, &m).is_ok());
  if (!m) return fm;
  std::vector<PocVector> v(cfg.num_blocks());
  EXPECT_TRUE(m->process(p.a.view(), PocRuntime(), v.data(), nullptr).is_ok());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(m->process(p.b.view(), PocRuntime(), v.data(), nullptr).is_ok());
  if (ms)
    *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
              .count();
  BlockField f = make_field(p.a.w, p.a.h, 16, cfg.columns(), cfg.rows());
  for (const auto& x : v) {
    f.dx.push_back(x.dx);
    f.dy.push_back(x.dy);
    f.estimated.push_back(1);
  }
  std::string err;
  EXPECT_TRUE(flow_metrics_compute(f, p.gt, &fm, &err)) << err;
  return fm;
}

/* blockmatchme's CPU full search at the comparable setting: 16x16 blocks
 * (pocme's spacing), +-16 px, quarter-pel, forward. */
FlowMetrics blockmatch_metrics(const FlowPair& p, double* ms = nullptr) {
  match::BlockMatchConfig bc;
  bc.width = p.a.w;
  bc.height = p.a.h;
  bc.block_width = bc.block_height = 16;
  bc.range_x = bc.range_y = 16;
  bc.subpel = 4;
  bc.direction = Direction::kForward;
  std::unique_ptr<match::BlockMatcher> bm;
  FlowMetrics fm;
  EXPECT_TRUE(match::BlockMatcher::create(Backend::kCpu, bc, &bm).is_ok());
  if (!bm) return fm;
  std::vector<match::BlockVector> v(bc.num_blocks());
  bool est = false;
  EXPECT_TRUE(
      bm->process(p.a.view(), match::BlockMatchRuntime(), v.data(), &est).is_ok());
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_TRUE(
      bm->process(p.b.view(), match::BlockMatchRuntime(), v.data(), &est).is_ok());
  if (ms)
    *ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
              .count();
  EXPECT_TRUE(est);
  BlockField f = make_field(p.a.w, p.a.h, 16, bc.columns(), bc.rows());
  for (const auto& x : v) {
    f.dx.push_back(static_cast<float>(x.dx) / match::kSubpelScale);
    f.dy.push_back(static_cast<float>(x.dy) / match::kSubpelScale);
    f.estimated.push_back(x.flags & match::kFlagNoEstimate ? 0 : 1);
  }
  std::string err;
  EXPECT_TRUE(flow_metrics_compute(f, p.gt, &fm, &err)) << err;
  return fm;
}

/* Bounds for one sequence: pocme's dense EPE at layers 0 and 2 (window 64,
 * spacing 16, the default lowpass), and the figure it must beat. */
struct AccuracyBound {
  const char* name;
  double dense[2];     /* layers 0, 2 */
  double block[2];     /* block EPE, layers 0, 2 */
  double opencv_dense; /* OpenCV phaseCorrelate, same grid and window */
};

/* Means over the pairs of pocme's dense EPE and bad blocks, layers 0, 2. */
struct AccuracyMeans {
  double dense[2] = {0, 0};
  double bad[2] = {0, 0};
};

/* Prints pocme (layers 0 and 2) next to blockmatchme and bounds pocme. */
AccuracyMeans check_accuracy(const std::vector<FlowPair>& pairs,
                             const AccuracyBound* bounds, size_t nbounds) {
  AccuracyMeans means;
  printf("  %-16s %-26s %9s %9s %7s %9s\n", "sequence", "method", "denseEPE", "blockEPE",
         "bad%", "ms/frame");
  const double lowpass = PocConfig().lowpass;
  for (const FlowPair& p : pairs) {
    const AccuracyBound* bd = nullptr;
    for (size_t i = 0; i < nbounds; ++i)
      if (p.name == bounds[i].name) bd = &bounds[i];
    EXPECT_TRUE(bd) << p.name;
    if (!bd) continue;
    for (int li = 0; li < 2; ++li) {
      const int layers = li == 0 ? 0 : PocConfig().layers; /* the default */
      double ms = 0;
      const FlowMetrics fm = poc_metrics(p, 64, layers, lowpass, &ms);
      char method[64];
      snprintf(method, sizeof method, "pocme N=64 L=%d lp=%.2g", layers, lowpass);
      printf("  %-16s %-26s %9.3f %9.3f %7.1f %9.1f\n", p.name.c_str(), method,
             fm.dense_epe, fm.block_epe, fm.bad_blocks_pct, ms);
      EXPECT_LT(fm.dense_epe, bd->dense[li]) << p.name << " L=" << layers;
      EXPECT_LT(fm.block_epe, bd->block[li]) << p.name << " L=" << layers;
      /* The requirement: better than OpenCV's phaseCorrelate at the
       * same grid and window (bench/opencv_poc.py measures it). */
      EXPECT_LT(fm.dense_epe, bd->opencv_dense) << p.name << " L=" << layers;
      means.dense[li] += fm.dense_epe / pairs.size();
      means.bad[li] += fm.bad_blocks_pct / pairs.size();
    }
    double ms = 0;
    const FlowMetrics fb = blockmatch_metrics(p, &ms);
    printf("  %-16s %-26s %9.3f %9.3f %7.1f %9.1f\n", p.name.c_str(),
           "blockmatchme 16 +-16 q-pel", fb.dense_epe, fb.block_epe, fb.bad_blocks_pct,
           ms);
  }
  return means;
}

}  // namespace

/* Bounds: about 0.03 px above what the CPU backend measures at the default
 * lowpass (0.75; docs/pocme.md has the table), so that a regression fails; each is also below OpenCV's
 * phaseCorrelate per 16x16 block with a 64 px Hanning window (mean removed),
 * 0.44 / 0.26 / 0.72 px, the figure to beat. */
TEST(Poc, MiddleburyAccuracy) {
  gst_init(nullptr, nullptr);
  const std::vector<FlowPair> pairs = middlebury_pairs();
  if (pairs.empty()) GTEST_SKIP() << "no Middlebury data under MATCH_TEST_DATA";
  const AccuracyBound bounds[] = {
      {"RubberWhale", {0.24, 0.24}, {0.18, 0.18}, 0.44},
      {"Dimetrodon", {0.17, 0.17}, {0.13, 0.13}, 0.26},
      {"Venus", {0.41, 0.41}, {0.33, 0.34}, 0.72},
  };
  const AccuracyMeans m = check_accuracy(pairs, bounds, sizeof bounds / sizeof bounds[0]);
  /* The set's means at the defaults (layers 3, shared-median coarse
   * layers): 0.278 px / 4.5 % measured, 0.246 px / 2.9 % with the layer
   * vote (issue 18's NVOFA figures: 0.61 px / 7.9 % at its best preset). */
  if (pairs.size() == 3) {
    printf("  Middlebury mean, defaults: dense EPE %.3f px, bad blocks %.1f %%\n",
           m.dense[1], m.bad[1]);
    EXPECT_LT(m.dense[1], 0.26);
    EXPECT_LT(m.bad[1], 3.5);
  }
}

/* Sintel alley_1 frame_0002 -> frame_0003: OpenCV's figure is 0.57 px on
 * the clean pass (bench/opencv_poc.py also measures final). */
TEST(Poc, SintelAccuracy) {
  gst_init(nullptr, nullptr);
  const std::vector<FlowPair> pairs = sintel_pairs();
  if (pairs.empty()) GTEST_SKIP() << "no Sintel data under MATCH_TEST_DATA";
  const AccuracyBound bounds[] = {
      {"alley_1 clean", {0.33, 0.33}, {0.26, 0.26}, 0.57},
      {"alley_1 final", {0.39, 0.39}, {0.32, 0.32}, 0.57},
  };
  check_accuracy(pairs, bounds, sizeof bounds / sizeof bounds[0]);
}

/* The large-motion Sintel final-pass pairs (bench/poc_accuracy.py scores
 * the FlyingChairs and KITTI pairs too): pocme at the defaults, bad blocks
 * and blocks more than 30 px off bounded a little above what was measured
 * (before issue 18's robust stage: ambush_2 98.5 % / 1103, temple_3
 * 85.1 % / 1090, cave_4 39.5 % / 127; after it, layers 2 per-block: 97.8 /
 * 1023, 81.1 / 879, 37.8 / 95; the defaults since, layers 3 with
 * shared-median coarse layers: 96.7 / 507, 81.2 / 878, 37.2 / 82; with
 * the layer vote after one check pass: 96.5 / 497, 81.0 / 909, 37.1 /
 * 76), and no
 * vector beyond the reach. */
TEST(Poc, LargeMotionAccuracy) {
  gst_init(nullptr, nullptr);
  struct Seq {
    const char* name;
    int frame;
    double bad;
    int off30;
  } seqs[] = {{"ambush_2", 20, 97.5, 560},
              {"temple_3", 22, 82.5, 950},
              {"cave_4", 41, 38.2, 100}};
  int found = 0;
  for (const Seq& q : seqs) {
    const std::string d = std::string("flow/sintel/") + q.name + "/final/";
    char a[64], b[64], g[64];
    snprintf(a, sizeof a, "frame_%04d.png", q.frame);
    snprintf(b, sizeof b, "frame_%04d.png", q.frame + 1);
    snprintf(g, sizeof g, "gt/frame_%04d.flo", q.frame);
    FlowPair p;
    if (!load_flow_pair(q.name, d + a, d + b, d + g, &p)) continue;
    ++found;
    PocConfig cfg =
        make_config(p.a.w, p.a.h, 64, 16, PocConfig().layers, Direction::kForward);
    const auto v = run_cpu(p.a, p.b, cfg);
    BlockField f = make_field(p.a.w, p.a.h, 16, cfg.columns(), cfg.rows());
    double longest = 0;
    for (const auto& x : v) {
      f.dx.push_back(x.dx);
      f.dy.push_back(x.dy);
      f.estimated.push_back(1);
      longest = std::max(longest, std::hypot((double)x.dx, (double)x.dy));
    }
    FlowMetrics fm;
    std::string err;
    ASSERT_TRUE(flow_metrics_compute(f, p.gt, &fm, &err)) << err;
    /* Blocks more than 30 px off: block EPE against the block's mean GT. */
    int off30 = 0;
    for (int r = 0; r < cfg.rows(); ++r)
      for (int c = 0; c < cfg.columns(); ++c) {
        double su = 0, sv = 0;
        int n = 0, area = 0;
        for (int y = r * 16; y < std::min(r * 16 + 16, p.a.h); ++y)
          for (int x = c * 16; x < std::min(c * 16 + 16, p.a.w); ++x, ++area) {
            const float u = p.gt.uv[2 * (static_cast<size_t>(y) * p.a.w + x)];
            const float w = p.gt.uv[2 * (static_cast<size_t>(y) * p.a.w + x) + 1];
            if (!flow_gt_known(u, w)) continue;
            su += u;
            sv += w;
            ++n;
          }
        if (2 * n < area) continue;
        const PocVector& x = v[r * cfg.columns() + c];
        if (std::hypot(x.dx - su / n, x.dy - sv / n) > 30) ++off30;
      }
    printf(
        "  %-10s dense EPE %7.3f  block EPE %7.3f  bad %5.1f %%  >30 px %4d"
        "  longest %.0f px (reach %d)\n",
        q.name, fm.dense_epe, fm.block_epe, fm.bad_blocks_pct, off30, longest,
        match::poc_reach(cfg));
    EXPECT_LT(fm.bad_blocks_pct, q.bad) << q.name;
    EXPECT_LE(off30, q.off30) << q.name;
    EXPECT_LE(longest, match::poc_reach(cfg) + 1e-3) << q.name;
  }
  if (!found) GTEST_SKIP() << "no large-motion Sintel data under MATCH_TEST_DATA";
}

/* Two motions, no data needed: a background of smoothed noise moving
 * (2, 1) and three objects of other textures (an ellipse, a disc, a bar)
 * moving (7, -3), (-5, 4) and (3, 6) in front of it, integer shifts, so
 * the ground truth is exact (each frame-0 pixel takes its front-most
 * layer's motion; the background the objects uncover is new texture). The
 * blocks on the objects' edges carry two motions: the layer vote (poc.h)
 * took the dense EPE from 0.324 to 0.255 px and the bad blocks from 8.0 %
 * to 6.3 % (CPU, the defaults; before: two check passes, no vote); its
 * majority at 85 % of the pixels instead of 70 % and the ring's candidates
 * to 0.294 px and 5.0 % (more edge blocks take their pixels' mean, nearer
 * their mean motion and farther from each pixel's). */
TEST(Poc, TwoMotionAccuracy) {
  const int w = 320, h = 240, pad = 16;
  const Frame bg = make_noise_frame(w + 2 * pad + 2, h + 2 * pad + 2, w + 2 * pad + 2, 5);
  const Frame fg = make_noise_frame(w + 2 * pad + 2, h + 2 * pad + 2, w + 2 * pad + 2, 6);
  const Frame nw = make_noise_frame(w + 2 * pad + 2, h + 2 * pad + 2, w + 2 * pad + 2, 7);
  struct Object {
    double cx, cy, ax, ay; /* an ellipse; ax, ay its half axes */
    int dx, dy, offset;    /* its motion and its texture's brightness */
  } objects[] = {{110, 90, 50, 30, 7, -3, 60},
                 {230, 150, 28, 28, -5, 4, -50},
                 {160, 200, 90, 9, 3, 6, 30}};
  auto inside = [](const Object& o, double x, double y) {
    const double u = (x - o.cx) / o.ax, v = (y - o.cy) / o.ay;
    return u * u + v * v <= 1.0;
  };
  auto tex = [&](const Frame& f, int x, int y, int offset) {
    return std::clamp(box3_mean(f, x + pad, y + pad) + offset, 0, 255);
  };
  Frame a = make_noise_frame(w, h, w + 3, 1), b = make_noise_frame(w, h, w + 7, 2);
  FlowGroundTruth gt;
  gt.width = w;
  gt.height = h;
  gt.uv.resize(2 * static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      /* frame 0: the front-most object (the last listed) over the
       * background; frame 1: the same, each layer moved by its motion */
      int v0 = tex(bg, x, y, 0), v1 = tex(bg, x - 2, y - 1, 0);
      float u = 2.f, v = 1.f;
      bool uncovered = false;
      for (const Object& o : objects) {
        if (inside(o, x, y)) {
          v0 = tex(fg, x, y, o.offset);
          u = static_cast<float>(o.dx);
          v = static_cast<float>(o.dy);
        }
        if (inside(o, x - o.dx, y - o.dy))
          v1 = tex(fg, x - o.dx, y - o.dy, o.offset);
        else if (inside(o, x, y))
          uncovered = true;
      }
      a.at(x, y) = static_cast<uint8_t>(v0);
      b.at(x, y) = static_cast<uint8_t>(
          uncovered && v1 == tex(bg, x - 2, y - 1, 0) ? tex(nw, x, y, 0) : v1);
      gt.uv[2 * (static_cast<size_t>(y) * w + x)] = u;
      gt.uv[2 * (static_cast<size_t>(y) * w + x) + 1] = v;
    }
  const PocConfig cfg =
      make_config(w, h, 64, 16, PocConfig().layers, Direction::kForward);
  const auto vecs = run_cpu(a, b, cfg);
  BlockField f = make_field(w, h, 16, cfg.columns(), cfg.rows());
  for (const auto& x : vecs) {
    f.dx.push_back(x.dx);
    f.dy.push_back(x.dy);
    f.estimated.push_back(1);
  }
  FlowMetrics fm;
  std::string err;
  ASSERT_TRUE(flow_metrics_compute(f, gt, &fm, &err)) << err;
  printf("  two motions: dense EPE %.3f px, block EPE %.3f px, bad %.1f %%\n",
         fm.dense_epe, fm.block_epe, fm.bad_blocks_pct);
  EXPECT_LT(fm.dense_epe, 0.31);
  EXPECT_LT(fm.bad_blocks_pct, 5.6);
}

/* ---- the lowpass default (printed; MATCH_POC_SWEEP=1) ---------------------- */

namespace {

/* `w` x `h` crop at (x0, y0) (clipped to the image). */
std::vector<uint8_t> crop_pixels(const std::vector<uint8_t>& px, int pw, int ph, int x0,
                                 int y0, int* w, int* h) {
  *w = std::min(*w, pw - x0);
  *h = std::min(*h, ph - y0);
  std::vector<uint8_t> out(static_cast<size_t>(*w) * *h);
  for (int y = 0; y < *h; ++y)
    for (int x = 0; x < *w; ++x)
      out[static_cast<size_t>(y) * *w + x] =
          px[static_cast<size_t>(y + y0) * pw + x + x0];
  return out;
}

/* Independent uniform noise in [-amp, amp] on every pixel (sensor noise). */
Frame with_noise(const Frame& in, int amp, unsigned seed) {
  if (amp <= 0) return in;
  Frame out = in;
  std::mt19937 rng(seed);
  for (int y = 0; y < in.h; ++y)
    for (int x = 0; x < in.w; ++x)
      out.at(x, y) = static_cast<uint8_t>(std::clamp(
          in.at(x, y) + static_cast<int>(rng() % (2 * amp + 1)) - amp, 0, 255));
  return out;
}

}  // namespace

/* What docs/pocme.md's lowpass table is made of: sub-pixel error on
 * band-limited shifts of real textures (without and with sensor-like noise)
 * and dense EPE on Middlebury and Sintel, over lowpass and window size.
 * About a minute on 2 cores, hence opt-in. */
TEST(Poc, LowpassSweep) {
  if (!std::getenv("MATCH_POC_SWEEP"))
    GTEST_SKIP() << "set MATCH_POC_SWEEP=1 to print the lowpass tables";
  gst_init(nullptr, nullptr);
  const double lowpasses[] = {1.0, 0.75, 0.6, 0.5, 0.4};
  const int windows[] = {32, 64, 128};

  /* Textures: 320x240 crops (the band-limited shift is an O(n^2) DFT). */
  struct Texture {
    std::string name;
    std::vector<uint8_t> px;
    int w, h;
  };
  std::vector<Texture> tex;
  auto add = [&](const std::string& name, const std::vector<uint8_t>& px, int pw, int ph,
                 int x0, int y0) {
    Texture t{name, {}, 320, 240};
    t.px = crop_pixels(px, pw, ph, x0, y0, &t.w, &t.h);
    tex.push_back(std::move(t));
  };
  {
    std::vector<uint8_t> px;
    int w = 0, h = 0;
    ASSERT_TRUE(load_yosemite(&px, &w, &h));
    add("yosemite", px, w, h, 0, 0);
    ASSERT_TRUE(pgm_read(files_dir() + "/taxi01.pgm", &w, &h, &px));
    add("taxi", px, w, h, 0, 0);
  }
  for (const FlowPair& p : middlebury_pairs())
    if (p.name != "Venus") {
      std::vector<uint8_t> px(static_cast<size_t>(p.a.w) * p.a.h);
      for (int y = 0; y < p.a.h; ++y)
        for (int x = 0; x < p.a.w; ++x) px[y * p.a.w + x] = p.a.at(x, y);
      add(p.name, px, p.a.w, p.a.h, 130, 70);
    }
  for (const FlowPair& p : sintel_pairs())
    if (p.name == "alley_1 clean") {
      std::vector<uint8_t> px(static_cast<size_t>(p.a.w) * p.a.h);
      for (int y = 0; y < p.a.h; ++y)
        for (int x = 0; x < p.a.w; ++x) px[y * p.a.w + x] = p.a.at(x, y);
      add("alley_1", px, p.a.w, p.a.h, 350, 100);
    }
  const double shifts[][2] = {{0.25, 0.0}, {0.5, -0.25}, {-0.75, 1.5},
                              {1.3, 0.1},  {-2.4, -1.7}, {0.1, 0.6}};
  struct Pair {
    Frame a, b;
    double dx, dy;
    int noise;
  };
  std::vector<Pair> shifted_pairs;
  for (size_t ti = 0; ti < tex.size(); ++ti) {
    const Texture& t = tex[ti];
    const Frame a = from_pixels(t.px, t.w, t.h, t.w);
    for (const auto& d : shifts) {
      const Frame b = from_pixels(bl_shift(t.px, t.w, t.h, d[0], d[1]), t.w, t.h, t.w);
      for (int noise : {0, 3})
        shifted_pairs.push_back(Pair{with_noise(a, noise, 7 + ti),
                                     with_noise(b, noise, 1007 + ti), d[0], d[1], noise});
    }
  }
  printf("  textures:");
  for (const Texture& t : tex) printf(" %s %dx%d", t.name.c_str(), t.w, t.h);
  printf("; %zu shifts each, noise 0 and uniform +-3\n",
         sizeof shifts / sizeof shifts[0]);

  std::vector<FlowPair> flow = middlebury_pairs();
  for (FlowPair& p : sintel_pairs()) flow.push_back(std::move(p));

  printf("  %-4s %-5s %8s %8s %8s %8s", "N", "lp", "sub mean", "sub max", "n3 mean",
         "n3 max");
  for (const FlowPair& p : flow) printf(" %13s", p.name.c_str());
  printf("\n");
  for (int n : windows) {
    for (double lp : lowpasses) {
      double mean[2] = {0, 0}, worst[2] = {0, 0};
      int count[2] = {0, 0};
      for (const Pair& sp : shifted_pairs) {
        PocConfig cfg = make_config(sp.a.w, sp.a.h, n, 16, 2, Direction::kForward);
        cfg.lowpass = lp;
        const auto v = run_cpu(sp.a, sp.b, cfg);
        const ShiftStats s = shift_error(v, cfg, sp.dx, sp.dy, 2);
        const int k = sp.noise ? 1 : 0;
        mean[k] += s.mean * s.blocks;
        count[k] += s.blocks;
        worst[k] = std::max(worst[k], s.max);
      }
      printf("  %-4d %-5.2f %8.4f %8.4f %8.4f %8.4f", n, lp, mean[0] / count[0], worst[0],
             mean[1] / count[1], worst[1]);
      for (const FlowPair& p : flow)
        printf(" %13.3f", poc_metrics(p, n, 2, lp).dense_epe);
      printf("\n");
      fflush(stdout);
    }
  }
}
