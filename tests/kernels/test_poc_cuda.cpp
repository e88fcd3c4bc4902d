/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CUDA POC backend against the CPU backend (itself tested against the
 * double reference in test_poc.cpp): random textures and a real image, odd
 * sizes, padded strides, every layer count, both windows, both directions,
 * low-pass on and off, window sizes 32..256 including non-powers of two;
 * known integer shifts; sequences, reset and reconfigure; chunked vs
 * one-execution batches; tiny frames; device errors; pipelined
 * submit()/collect(); the last stage (poc_finish) on the device against the
 * host's, bit for bit (PocCudaFinish); frames given in device memory
 * (process_device()).
 *
 * Tolerance (both backends are float; only their FFTs differ): per block,
 * |v_cuda - v_cpu| <= 0.01 px and |confidence difference| <= 0.01, with the
 * same flags, for at least 99.5% of the blocks of every configuration, and
 * for every block of the clean shifted textures. The rest are blocks
 * whose POC surface has two samples within float rounding of each other
 * (the integer peak can then go either way); their number is printed.
 *
 * Every case skips without a GPU or without cuFFT (CI); the GPU host runs
 * them all.
 *
 * The PocCudaEmulation cases need no GPU, only a build with the CUDA
 * backend: cuda::emulate_poc_match runs the backend's own per-frame
 * sequence (poc_cuda.cu: layers, chunks, buffer layout, re-centring) with
 * the kernels' per-thread code on the host and a host FFT in place of
 * cuFFT, and is held to the same tolerance against the CPU backend. They
 * check the kernels' indexing, windows, tie rule, centre updates and fit
 * everywhere CI runs; what only a GPU shows (cuFFT itself, launch
 * configuration, races, device memory) stays with the cases above.
 */
#include <gtest/gtest.h>

#ifdef MATCH_TEST_CUDART
#include <cuda_runtime_api.h> /* device frames for process_device() */

#include "../common/collected_frame_check.h"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "../common/frame.h"
#include "../common/pgm.h"
#include "internal.h"
#include "match/blockmatch.h"
#include "match/poc.h"
#include "testing/poc_emulation.h"

using match::Backend;
using match::DeviceOptions;
using match::Direction;
using match::PocConfig;
using match::PocMatcher;
using match::PocRuntime;
using match::PocVector;
using match::PocWindow;
using match::StatusCode;
using match::cuda::PocCudaPath;

namespace {

/* Smooth texture: 3x3 box of noise, clamp-to-edge shift by (sx, sy), plus
 * uniform noise in [-noise, noise]. */
Frame make_texture(int w, int h, int stride, unsigned seed, int sx = 0, int sy = 0,
                   int noise = 0) {
  Frame n = make_noise_frame(w + 2, h + 2, w + 2, seed);
  Frame f = make_noise_frame(w, h, stride, seed + 7);
  std::mt19937 rng(seed + 13);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int ox = std::clamp(x - sx, 0, w - 1), oy = std::clamp(y - sy, 0, h - 1);
      int v = box3_mean(n, ox, oy);
      if (noise) v += static_cast<int>(rng() % (2 * noise + 1)) - noise;
      f.at(x, y) = static_cast<uint8_t>(std::clamp(v, 0, 255));
    }
  return f;
}

/* make_texture's texture moved by (sx0, sy0) left of column `split` and
 * by (sx1, sy1) from it on: blocks near the boundary then take their
 * shared-coarse prediction from a parent (or a median) other than their own
 * hierarchy's. */
Frame two_motions(int w, int h, int stride, unsigned seed, int split, int sx0, int sy0,
                  int sx1, int sy1) {
  Frame out = make_texture(w, h, stride, seed, sx0, sy0, 2);
  const Frame r = make_texture(w, h, stride, seed, sx1, sy1, 2);
  for (int y = 0; y < h; ++y)
    for (int x = split; x < w; ++x) out.at(x, y) = r.at(x, y);
  return out;
}

Frame shift_frame(const Frame& in, int sx, int sy, int stride) {
  Frame out = make_noise_frame(in.w, in.h, stride, 5);
  for (int y = 0; y < in.h; ++y)
    for (int x = 0; x < in.w; ++x)
      out.at(x, y) =
          in.at(std::clamp(x - sx, 0, in.w - 1), std::clamp(y - sy, 0, in.h - 1));
  return out;
}

PocConfig make_config(int w, int h, int n, int spacing, int layers,
                      Direction dir = Direction::kBackward,
                      PocWindow win = PocWindow::kHann, double lowpass = 1.0) {
  PocConfig c;
  c.width = w;
  c.height = h;
  c.window_size = n;
  c.spacing = spacing;
  c.layers = layers;
  c.direction = dir;
  c.window = win;
  c.lowpass = lowpass;
  return c;
}

std::string describe(const PocConfig& c) {
  char buf[200];
  std::snprintf(buf, sizeof buf, "%dx%d N=%d s=%d L=%d %s %s lp=%.2f%s", c.width,
                c.height, c.window_size, c.spacing, c.layers,
                c.window == PocWindow::kHann ? "hann" : "rect",
                c.direction == Direction::kForward ? "fwd" : "bwd", c.lowpass,
                c.coarse == match::PocCoarse::kShared         ? " shared"
                : c.coarse == match::PocCoarse::kSharedMedian ? " shmed"
                                                              : "");
  return buf;
}

/* The real-image pair of the agreement tests: the Yosemite crop (padded
 * stride) and the same moved by (2, -1), clamped, another stride. */
bool yosemite_pair(Frame* f0, Frame* f1) {
  const char* dir = std::getenv("GST_TEST_FILES_PATH");
  std::vector<uint8_t> px;
  int w = 0, h = 0;
  if (!pgm_read(std::string(dir ? dir : "tests/files") + "/yosemite-yos9-crop.pgm", &w,
                &h, &px))
    return false;
  *f0 = make_noise_frame(w, h, w + 5, 3);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) f0->at(x, y) = px[size_t(y) * w + x];
  *f1 = shift_frame(*f0, 2, -1, w + 9);
  return true;
}

/* Skips unless a CUDA POC matcher can be made (GPU and cuFFT present). */
bool cuda_poc_usable(std::string* why) {
  if (match::cuda_device_count() == 0) {
    *why = "no CUDA device";
    return false;
  }
  std::unique_ptr<PocMatcher> m;
  match::Status st =
      PocMatcher::create(Backend::kCuda, make_config(64, 64, 32, 16, 0), &m);
  if (!st) *why = st.message();
  return st.is_ok();
}

#define REQUIRE_CUDA_POC()                                                          \
  do {                                                                              \
    std::string why_;                                                               \
    if (!cuda_poc_usable(&why_)) GTEST_SKIP() << "CUDA POC test skipped: " << why_; \
  } while (0)

std::vector<std::vector<PocVector>> run(Backend be, const PocConfig& cfg,
                                        const std::vector<const Frame*>& frames,
                                        const PocRuntime& rt = PocRuntime()) {
  std::unique_ptr<PocMatcher> m;
  match::Status st = PocMatcher::create(be, cfg, &m);
  EXPECT_TRUE(st.is_ok()) << st.message();
  std::vector<std::vector<PocVector>> res;
  if (!m) return res;
  EXPECT_EQ(m->backend(), be);
  std::vector<PocVector> out(cfg.num_blocks());
  for (size_t i = 0; i < frames.size(); ++i) {
    bool est = false;
    st = m->process(frames[i]->view(), rt, out.data(), &est);
    EXPECT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(est, i > 0);
    if (i > 0) res.push_back(out);
  }
  return res;
}

struct Agreement {
  int blocks = 0, outside = 0;
  double max_dv = 0, max_dc = 0;
};

Agreement compare(const std::vector<PocVector>& a, const std::vector<PocVector>& b) {
  Agreement r;
  r.blocks = static_cast<int>(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    const double dv = std::hypot(a[i].dx - b[i].dx, a[i].dy - b[i].dy);
    const double dc = std::fabs(a[i].confidence - b[i].confidence);
    r.max_dv = std::max(r.max_dv, dv);
    r.max_dc = std::max(r.max_dc, dc);
    if (dv > 0.01 || dc > 0.01 || a[i].flags != b[i].flags) ++r.outside;
  }
  return r;
}

/* The window sizes the CUDA backend runs on its fused path (poc_fused.cu)
 * and those its tiled path takes (poc_tiled.cu), both by default; the
 * others take the cuFFT path only. */
bool fused_size(int n) { return n == 32 || n == 64; }
bool tiled_size(int n) { return n == 128 || n == 256; }

/* CPU vs CUDA on the pair, on each CUDA path the size has: fused (default)
 * and cuFFT (MATCH_POC_FUSED=0) for 32 and 64, tiled (default) and cuFFT
 * (MATCH_POC_TILED=0) for 128 and 256, cuFFT for the others. */
void expect_agree(const PocConfig& cfg, const Frame& f0, const Frame& f1, bool all_blocks,
                  const PocRuntime& rt = PocRuntime()) {
  auto cpu = run(Backend::kCpu, cfg, {&f0, &f1}, rt);
  ASSERT_EQ(cpu.size(), 1u);
  const int n = cfg.window_size;
  for (int variant = 0; variant < 2; ++variant) {
    if (variant == 1 && !fused_size(n) && !tiled_size(n)) continue;
    const char* path = fused_size(n)   ? (variant ? "cufft" : "fused")
                       : tiled_size(n) ? (variant ? "cufft" : "tiled")
                                       : "cufft";
    if (variant == 1 && fused_size(n)) setenv("MATCH_POC_FUSED", "0", 1);
    if (variant == 1 && tiled_size(n)) setenv("MATCH_POC_TILED", "0", 1);
    auto gpu = run(Backend::kCuda, cfg, {&f0, &f1}, rt);
    unsetenv("MATCH_POC_FUSED");
    unsetenv("MATCH_POC_TILED");
    ASSERT_EQ(gpu.size(), 1u);
    const Agreement a = compare(cpu[0], gpu[0]);
    std::printf(
        "  %-44s %-5s %5d blocks, %3d outside, max |dv| %.2e px, "
        "max |dc| %.2e\n",
        describe(cfg).c_str(), path, a.blocks, a.outside, a.max_dv, a.max_dc);
    if (all_blocks)
      EXPECT_EQ(a.outside, 0) << describe(cfg) << " " << path;
    else
      EXPECT_LE(a.outside, a.blocks / 200) << describe(cfg) << " " << path;
  }
}

struct ShiftCase {
  int w, h, stride, n, s, layers;
  Direction dir;
  PocWindow win;
  double lp;
  int sx, sy;
};

/* Odd sizes, padded strides, layers 0..3, both windows and directions,
 * low-pass on and off, windows 32..256 (not only powers of two). */
const ShiftCase kShiftCases[] = {
    {333, 247, 352, 64, 16, 0, Direction::kBackward, PocWindow::kHann, 1.0, 3, -2},
    {333, 247, 340, 64, 16, 2, Direction::kForward, PocWindow::kHann, 0.5, -7, 5},
    {401, 299, 416, 32, 8, 1, Direction::kBackward, PocWindow::kNone, 1.0, 1, 1},
    {257, 193, 260, 48, 12, 2, Direction::kBackward, PocWindow::kHann, 0.6, 4, 0},
    {640, 360, 640, 128, 32, 3, Direction::kForward, PocWindow::kHann, 1.0, -12, 9},
    {512, 400, 528, 256, 64, 2, Direction::kBackward, PocWindow::kHann, 0.75, 10, -6},
    {300, 200, 300, 80, 20, 1, Direction::kForward, PocWindow::kNone, 0.5, 2, 3},
    {97, 61, 101, 96, 7, 0, Direction::kBackward, PocWindow::kHann, 1.0, 1, -1},
};

/* Tiny frames. With line_layer, the coarsest layer is one pixel wide
 * (5 >> 2 = 1) but not constant: along x every window is then w(x) times a
 * constant, whose spectrum is exactly zero beyond |u| <= 1 (Hann) or u = 0
 * (none), and the phase normalisation turns the float rounding noise of
 * those bins into unit-magnitude phases. That POC surface is noise: its
 * peak differs between any two float FFTs (CPU vs reference too, measured
 * up to ~40 px on 8 of these 20 blocks), so only sane output is required
 * there, not agreement. */
struct TinyCase {
  int w, h, layers;
  bool line_layer;
};
const TinyCase kTinyCases[] = {{1, 1, 0, false},
                               {3, 2, 0, false},
                               {8, 8, 3, false},
                               {5, 40, 1, false},
                               {5, 40, 2, true}};

/* Finite vectors within the search reach, confidence >= 0, honest flags. */
void expect_sane(const PocConfig& cfg, const std::vector<PocVector>& v) {
  ASSERT_EQ(static_cast<int>(v.size()), cfg.num_blocks());
  const double reach = cfg.window_size * ((2 << cfg.layers) - 1);
  for (const PocVector& p : v) {
    EXPECT_TRUE(std::isfinite(p.dx) && std::isfinite(p.dy));
    EXPECT_LE(std::fabs(p.dx), reach);
    EXPECT_LE(std::fabs(p.dy), reach);
    EXPECT_GE(p.confidence, 0.f);
    /* Unreliable exactly when the confidence is not above the floor. */
    EXPECT_EQ(p.flags,
              p.confidence < match::poc_confidence_floor(cfg) || p.confidence <= 0.f
                  ? match::kFlagUnreliable
                  : match::kFlagNone);
  }
}

/* The emulated CUDA backend's vectors for the pair (f0, f1); false (and a
 * skip message) in builds without the CUDA backend. */
bool emulate(const PocConfig& cfg, const Frame& f0, const Frame& f1, const PocRuntime& rt,
             int chunk, std::vector<PocVector>* out, std::string* why,
             PocCudaPath path = PocCudaPath::kAuto) {
  out->assign(cfg.num_blocks(), PocVector());
  const match::Status st = match::cuda::emulate_poc_match(f0.view(), f1.view(), cfg, rt,
                                                          out->data(), chunk, true, path);
  if (st.code() == StatusCode::kUnavailable) {
    *why = st.message();
    return false;
  }
  EXPECT_TRUE(st.is_ok()) << st.message();
  return st.is_ok();
}

#define EMULATE_OR_SKIP(cfg, f0, f1, rt, chunk, out, ...)               \
  do {                                                                  \
    std::string why_;                                                   \
    if (!emulate(cfg, f0, f1, rt, chunk, out, &why_, ##__VA_ARGS__)) {  \
      if (!why_.empty()) GTEST_SKIP() << "emulation skipped: " << why_; \
      return;                                                           \
    }                                                                   \
  } while (0)

/* expect_agree() with the emulation in place of the GPU. */
void expect_emu_agree(const PocConfig& cfg, const Frame& f0, const Frame& f1,
                      bool all_blocks, const PocRuntime& rt = PocRuntime(), int chunk = 0,
                      PocCudaPath path = PocCudaPath::kAuto) {
  std::vector<PocVector> emu;
  EMULATE_OR_SKIP(cfg, f0, f1, rt, chunk, &emu, path);
  auto cpu = run(Backend::kCpu, cfg, {&f0, &f1}, rt);
  ASSERT_EQ(cpu.size(), 1u);
  const Agreement a = compare(cpu[0], emu);
  std::printf(
      "  emu %-40s %5d blocks, %3d outside, max |dv| %.2e px, "
      "max |dc| %.2e\n",
      describe(cfg).c_str(), a.blocks, a.outside, a.max_dv, a.max_dc);
  if (all_blocks)
    EXPECT_EQ(a.outside, 0) << describe(cfg);
  else
    EXPECT_LE(a.outside, a.blocks / 200) << describe(cfg);
}

}  // namespace

TEST(PocCuda, MatchesCpuOnShiftedTextures) {
  REQUIRE_CUDA_POC();
  unsigned seed = 1;
  for (const ShiftCase& c : kShiftCases) {
    const Frame f0 = make_texture(c.w, c.h, c.stride, seed++);
    const Frame f1 = make_texture(c.w, c.h, c.stride + 3, seed - 1, c.sx, c.sy, 2);
    expect_agree(make_config(c.w, c.h, c.n, c.s, c.layers, c.dir, c.win, c.lp), f0, f1,
                 false);
  }
}

TEST(PocCuda, MatchesCpuOnRealImage) {
  REQUIRE_CUDA_POC();
  Frame f0, f1;
  ASSERT_TRUE(yosemite_pair(&f0, &f1));
  const int w = f0.w, h = f0.h;
  for (int layers = 0; layers <= 2; ++layers)
    for (Direction d : {Direction::kForward, Direction::kBackward})
      expect_agree(make_config(w, h, 64, 16, layers, d), f0, f1, false);
  expect_agree(make_config(w, h, 32, 8, 1, Direction::kBackward, PocWindow::kHann, 0.5),
               f0, f1, false);
}

TEST(PocCuda, IntegerShiftsAreExact) {
  REQUIRE_CUDA_POC();
  /* A clean clamp-to-edge shift: interior windows see the same content
   * moved by an integer, and both backends must return it to 1e-3 px. */
  const int w = 320, h = 240;
  const Frame f0 = make_texture(w, h, w, 77);
  for (auto [sx, sy] : {std::pair{3, -2}, std::pair{-9, 6}, std::pair{0, 0}}) {
    const Frame f1 = shift_frame(f0, sx, sy, w + 7);
    const PocConfig cfg = make_config(w, h, 64, 32, 2, Direction::kForward);
    auto gpu = run(Backend::kCuda, cfg, {&f0, &f1});
    ASSERT_EQ(gpu.size(), 1u);
    const int cols = cfg.columns();
    int checked = 0;
    for (int b = 0; b < cfg.num_blocks(); ++b) {
      const int px = (b % cols) * 32 + 16, py = (b / cols) * 32 + 16;
      if (px - 32 < 12 || py - 32 < 12 || px + 32 > w - 12 || py + 32 > h - 12) continue;
      ++checked;
      EXPECT_NEAR(gpu[0][b].dx, sx, 1e-3) << "block " << b;
      EXPECT_NEAR(gpu[0][b].dy, sy, 1e-3) << "block " << b;
      EXPECT_GT(gpu[0][b].confidence, 0.9f);
    }
    EXPECT_GT(checked, 10);
  }
}

TEST(PocCuda, SequenceResetReconfigure) {
  REQUIRE_CUDA_POC();
  const int w = 211, h = 157;
  std::vector<Frame> frames;
  for (int i = 0; i < 4; ++i) frames.push_back(make_texture(w, h, 224, 5, 2 * i, -i, 3));
  PocConfig cfg = make_config(w, h, 64, 16, 2);
  std::unique_ptr<PocMatcher> gpu, cpu;
  ASSERT_TRUE(PocMatcher::create(Backend::kCuda, cfg, &gpu).is_ok());
  ASSERT_TRUE(PocMatcher::create(Backend::kCpu, cfg, &cpu).is_ok());
  EXPECT_NE(gpu->description().find("cuda:0"), std::string::npos);
  std::vector<PocVector> a(cfg.num_blocks()), b(cfg.num_blocks());
  PocRuntime rt;
  rt.min_confidence = 0.3;
  auto step = [&](const Frame& f, bool expect_est) {
    bool ea = !expect_est, eb = !expect_est;
    ASSERT_TRUE(gpu->process(f.view(), rt, a.data(), &ea).is_ok());
    ASSERT_TRUE(cpu->process(f.view(), rt, b.data(), &eb).is_ok());
    EXPECT_EQ(ea, expect_est);
    EXPECT_EQ(eb, expect_est);
    if (!expect_est) {
      for (const PocVector& v : a) EXPECT_EQ(v.flags, match::kFlagNoEstimate);
      return;
    }
    const Agreement ag = compare(b, a);
    EXPECT_LE(ag.outside, ag.blocks / 200);
  };
  step(frames[0], false);
  step(frames[1], true);
  step(frames[2], true);
  EXPECT_GT(gpu->stats().kernel_ms, 0.0);
  /* New parameters keep the previous frame. */
  cfg.layers = 0;
  cfg.window_size = 32;
  cfg.lowpass = 0.5;
  ASSERT_TRUE(gpu->reconfigure(cfg).is_ok());
  ASSERT_TRUE(cpu->reconfigure(cfg).is_ok());
  step(frames[3], true);
  cfg.layers = 3;
  cfg.window_size = 128;
  ASSERT_TRUE(gpu->reconfigure(cfg).is_ok());
  ASSERT_TRUE(cpu->reconfigure(cfg).is_ok());
  step(frames[0], true);
  /* Reset forgets it. */
  gpu->reset();
  cpu->reset();
  step(frames[1], false);
  step(frames[2], true);
  /* Same input, same device: identical output. */
  std::vector<PocVector> again(cfg.num_blocks());
  {
    std::unique_ptr<PocMatcher> g2;
    ASSERT_TRUE(PocMatcher::create(Backend::kCuda, cfg, &g2).is_ok());
    bool e;
    ASSERT_TRUE(g2->process(frames[1].view(), rt, again.data(), &e).is_ok());
    ASSERT_TRUE(g2->process(frames[2].view(), rt, again.data(), &e).is_ok());
  }
  for (int i = 0; i < cfg.num_blocks(); ++i) {
    EXPECT_EQ(again[i].dx, a[i].dx);
    EXPECT_EQ(again[i].dy, a[i].dy);
    EXPECT_EQ(again[i].confidence, a[i].confidence);
  }
  /* Size changes are refused. */
  PocConfig other = cfg;
  other.width = w + 1;
  EXPECT_EQ(gpu->reconfigure(other).code(), StatusCode::kInvalidArgument);
  Frame wrong = make_texture(w + 1, h, w + 1, 1);
  bool e;
  EXPECT_EQ(gpu->process(wrong.view(), rt, a.data(), &e).code(),
            StatusCode::kInvalidArgument);
}

TEST(PocCuda, GraphEqualsDirectLaunches) {
  REQUIRE_CUDA_POC();
  /* The same kernels and plans, replayed from a CUDA graph or launched one
   * by one: identical vectors, over both slot parities (3 frames), a
   * min_confidence change (re-capture) and a reconfigure (graphs dropped). */
  const int w = 257, h = 190;
  std::vector<Frame> frames;
  for (int i = 0; i < 4; ++i) frames.push_back(make_texture(w, h, 272, 21, i, -2 * i, 2));
  auto sequence = [&](const char* graph_env, const char* fused_env) {
    setenv("MATCH_POC_GRAPH", graph_env, 1);
    setenv("MATCH_POC_FUSED", fused_env, 1);
    PocConfig cfg = make_config(w, h, 64, 16, 1);
    std::unique_ptr<PocMatcher> m;
    match::Status st = PocMatcher::create(Backend::kCuda, cfg, &m);
    unsetenv("MATCH_POC_GRAPH");
    unsetenv("MATCH_POC_FUSED");
    std::vector<std::vector<PocVector>> all;
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (!m) return all;
    PocRuntime rt;
    for (int i = 0; i < 4; ++i) {
      if (i == 2) rt.min_confidence = 0.5;
      if (i == 3) {
        cfg.window_size = 32;
        EXPECT_TRUE(m->reconfigure(cfg).is_ok());
      }
      std::vector<PocVector> v(cfg.num_blocks());
      bool est = false;
      EXPECT_TRUE(m->process(frames[i].view(), rt, v.data(), &est).is_ok());
      all.push_back(v);
    }
    return all;
  };
  for (const char* fused : {"1", "0"}) {
    const auto graph = sequence("1", fused), direct = sequence("0", fused);
    ASSERT_EQ(graph.size(), direct.size());
    for (size_t f = 0; f < graph.size(); ++f) {
      ASSERT_EQ(graph[f].size(), direct[f].size());
      for (size_t b = 0; b < graph[f].size(); ++b) {
        EXPECT_EQ(graph[f][b].dx, direct[f][b].dx) << "frame " << f << " block " << b;
        EXPECT_EQ(graph[f][b].dy, direct[f][b].dy) << "frame " << f << " block " << b;
        EXPECT_EQ(graph[f][b].confidence, direct[f][b].confidence);
        EXPECT_EQ(graph[f][b].flags, direct[f][b].flags);
      }
    }
  }
}

TEST(PocCuda, ChunkedEqualsOneExecution) {
  REQUIRE_CUDA_POC();
  const int w = 300, h = 220;
  const Frame f0 = make_texture(w, h, w, 11);
  const Frame f1 = make_texture(w, h, w, 11, -3, 4, 2);
  const PocConfig cfg = make_config(w, h, 64, 16, 2);
  setenv("MATCH_POC_FUSED", "0", 1); /* chunks are the cuFFT path's */
  auto whole = run(Backend::kCuda, cfg, {&f0, &f1});
  setenv("MATCH_POC_CHUNK", "37", 1); /* 19 x 14 = 266 blocks: 8 chunks */
  auto chunked = run(Backend::kCuda, cfg, {&f0, &f1});
  unsetenv("MATCH_POC_CHUNK");
  unsetenv("MATCH_POC_FUSED");
  ASSERT_EQ(whole.size(), 1u);
  ASSERT_EQ(chunked.size(), 1u);
  /* cuFFT may pick a different algorithm for another batch count, so the
   * same tolerance as CPU vs CUDA applies. */
  const Agreement a = compare(whole[0], chunked[0]);
  std::printf("  chunked vs whole: %d outside of %d, max |dv| %.2e\n", a.outside,
              a.blocks, a.max_dv);
  EXPECT_LE(a.outside, a.blocks / 200);
}

TEST(PocCuda, TinyFrames) {
  REQUIRE_CUDA_POC();
  for (const TinyCase c : kTinyCases) {
    const Frame f0 = make_texture(c.w, c.h, c.w + 1, 3);
    const Frame f1 = make_texture(c.w, c.h, c.w + 2, 3, 1, 0);
    const PocConfig cfg = make_config(c.w, c.h, 32, 4, c.layers);
    if (!c.line_layer) {
      expect_agree(cfg, f0, f1, false);
      continue;
    }
    auto gpu = run(Backend::kCuda, cfg, {&f0, &f1});
    ASSERT_EQ(gpu.size(), 1u);
    expect_sane(cfg, gpu[0]);
  }
}

TEST(PocCuda, DeviceErrors) {
  REQUIRE_CUDA_POC();
  std::unique_ptr<PocMatcher> m;
  DeviceOptions dev;
  dev.devices = {match::cuda_device_count()};
  match::Status st =
      PocMatcher::create(Backend::kCuda, make_config(64, 64, 32, 16, 0), &m, dev);
  EXPECT_EQ(st.code(), StatusCode::kUnavailable);
  EXPECT_NE(st.message().find("does not exist"), std::string::npos) << st.message();
  /* With a device and cuFFT, auto picks CUDA. */
  ASSERT_TRUE(
      PocMatcher::create(Backend::kAuto, make_config(64, 64, 32, 16, 0), &m).is_ok());
  EXPECT_EQ(m->backend(), Backend::kCuda);
  /* Invalid configurations are refused before any device work. */
  EXPECT_EQ(PocMatcher::create(Backend::kCuda, make_config(64, 64, 31, 16, 0), &m).code(),
            StatusCode::kInvalidArgument);
}

/* Two motions further apart than layer 0's reach (N/2 - 1; as in
 * test_poc.cpp, SharedCoarseCpuMatchesReference): a wrong parent or median
 * changes the vectors near the boundary. One case per path. */
struct TwoMotionCase {
  int w, h, n, s, layers;
  unsigned seed;
  int sx0, sy0, sx1, sy1;
};
const TwoMotionCase kTwoMotionCases[] = {
    {211, 157, 32, 8, 2, 900, 12, -9, -14, 6},   /* fused */
    {223, 151, 48, 8, 2, 901, 12, -9, -14, 6},   /* cuFFT */
    {389, 277, 128, 64, 1, 902, 36, -9, -38, 6}, /* tiled */
};

/* The coarse-layer modes (PocCoarse) on every path: check(cfg, f0, f1, c)
 * for each shifted-texture case with coarser layers in the modes other
 * than the default (kSharedMedian, which every other case runs), until it
 * returns false. */
template <typename Check>
void for_coarse_mode_cases(Check check) {
  unsigned seed = 1;
  for (const ShiftCase& c : kShiftCases) {
    const Frame f0 = make_texture(c.w, c.h, c.stride, seed++);
    const Frame f1 = make_texture(c.w, c.h, c.stride + 3, seed - 1, c.sx, c.sy, 2);
    if (c.layers == 0) continue;
    for (match::PocCoarse mode :
         {match::PocCoarse::kPerBlock, match::PocCoarse::kShared}) {
      PocConfig cfg = make_config(c.w, c.h, c.n, c.s, c.layers, c.dir, c.win, c.lp);
      cfg.coarse = mode;
      if (!check(cfg, f0, f1, c)) return;
    }
  }
}

TEST(PocCuda, SharedCoarseMatchesCpu) {
  REQUIRE_CUDA_POC();
  for_coarse_mode_cases(
      [](const PocConfig& cfg, const Frame& f0, const Frame& f1, const ShiftCase&) {
        expect_agree(cfg, f0, f1, false);
        return true;
      });
  for (const TwoMotionCase& c : kTwoMotionCases) {
    const Frame f0 = make_texture(c.w, c.h, c.w + 5, c.seed);
    const Frame f1 =
        two_motions(c.w, c.h, c.w + 9, c.seed, c.w / 2 + 3, c.sx0, c.sy0, c.sx1, c.sy1);
    for (match::PocCoarse mode : {match::PocCoarse::kPerBlock, match::PocCoarse::kShared,
                                  match::PocCoarse::kSharedMedian}) {
      PocConfig cfg = make_config(c.w, c.h, c.n, c.s, c.layers, Direction::kForward);
      cfg.coarse = mode;
      expect_agree(cfg, f0, f1, false);
    }
  }
}

/* ---- The host emulation of the CUDA backend (no GPU needed) ---- */

TEST(PocCudaEmulation, MatchesCpuOnShiftedTextures) {
  unsigned seed = 1;
  for (const ShiftCase& c : kShiftCases) {
    const Frame f0 = make_texture(c.w, c.h, c.stride, seed++);
    const Frame f1 = make_texture(c.w, c.h, c.stride + 3, seed - 1, c.sx, c.sy, 2);
    expect_emu_agree(make_config(c.w, c.h, c.n, c.s, c.layers, c.dir, c.win, c.lp), f0,
                     f1, false);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

TEST(PocCudaEmulation, SharedCoarseLayers) {
  /* The other modes on the size's own path (fused, tiled, cuFFT) and on
   * cuFFT in chunks of 3 blocks (the coarse grids' chunks too). */
  for_coarse_mode_cases(
      [this](const PocConfig& cfg, const Frame& f0, const Frame& f1, const ShiftCase& c) {
        expect_emu_agree(cfg, f0, f1, false);
        if (c.n <= 64)
          expect_emu_agree(cfg, f0, f1, false, PocRuntime(), 3, PocCudaPath::kCufft);
        return !HasFatalFailure() && !IsSkipped();
      });
  if (HasFatalFailure() || IsSkipped()) return;
  for (const TwoMotionCase& c : kTwoMotionCases) {
    const Frame f0 = make_texture(c.w, c.h, c.w + 5, c.seed);
    const Frame f1 =
        two_motions(c.w, c.h, c.w + 9, c.seed, c.w / 2 + 3, c.sx0, c.sy0, c.sx1, c.sy1);
    PocConfig per_block = make_config(c.w, c.h, c.n, c.s, c.layers, Direction::kForward);
    per_block.coarse = match::PocCoarse::kPerBlock;
    const auto pb = run(Backend::kCpu, per_block, {&f0, &f1}, PocRuntime());
    for (match::PocCoarse mode :
         {match::PocCoarse::kShared, match::PocCoarse::kSharedMedian}) {
      PocConfig cfg = per_block;
      cfg.coarse = mode;
      expect_emu_agree(cfg, f0, f1, false);
      expect_emu_agree(cfg, f0, f1, false, PocRuntime(), 7, PocCudaPath::kCufft);
      if (HasFatalFailure() || IsSkipped()) return;
      /* The case tells the modes apart (else it could not catch a parent
       * taken from the wrong block). */
      const auto sh = run(Backend::kCpu, cfg, {&f0, &f1}, PocRuntime());
      ASSERT_EQ(sh.size(), 1u);
      int differ = 0;
      for (size_t i = 0; i < sh[0].size(); ++i)
        differ += std::fabs(sh[0][i].dx - pb[0][i].dx) > 1.f ||
                  std::fabs(sh[0][i].dy - pb[0][i].dy) > 1.f;
      std::printf("  %d blocks differ from per-block by > 1 px\n", differ);
      EXPECT_GT(differ, 0) << describe(cfg);
    }
  }
}

TEST(PocCudaEmulation, EveryWindowLayerAndFilter) {
  /* Windows 32..128 (powers of two and not), each with every layer count,
   * both windows, both directions and three low-pass settings in turn; a
   * confidence threshold so that the flags are compared too. */
  PocRuntime rt;
  rt.min_confidence = 0.4;
  const double lps[] = {1.0, 0.5, 0.75};
  unsigned seed = 100;
  int i = 0;
  for (int n : {32, 48, 64, 80, 96, 128}) {
    for (int layers = 0; layers <= 3; ++layers, ++i) {
      const int w = 2 * n + 37 + 3 * layers, h = n + 53;
      const Direction dir = i % 2 ? Direction::kForward : Direction::kBackward;
      const PocWindow win = i % 3 == 2 ? PocWindow::kNone : PocWindow::kHann;
      const Frame f0 = make_texture(w, h, w + (i % 5), seed++);
      const Frame f1 = make_texture(w, h, w + 11, seed - 1, (i % 7) - 3, 2 - (i % 5), 2);
      const PocConfig cfg =
          make_config(w, h, n, std::max(8, n / 4), layers, dir, win, lps[i % 3]);
      /* The default path (fused for 32 and 64), and cuFFT's for those. */
      expect_emu_agree(cfg, f0, f1, false, rt);
      if (fused_size(n)) expect_emu_agree(cfg, f0, f1, false, rt, 0, PocCudaPath::kCufft);
      if (HasFatalFailure() || IsSkipped()) return;
    }
  }
}

TEST(PocCudaEmulation, TiledPath) {
  /* 128 and 256 on the tiled path: layers, both directions and windows,
   * low-pass settings, odd sizes and strides, forced partial chunks, and a
   * confidence threshold so that the flags are compared too. */
  PocRuntime rt;
  rt.min_confidence = 0.3;
  struct C {
    int w, h, n, s, layers, chunk;
    Direction d;
    PocWindow win;
    double lp;
    int sx, sy;
  };
  const C cases[] = {
      {301, 203, 128, 32, 0, 0, Direction::kForward, PocWindow::kHann, 0.75, 3, -2},
      {333, 251, 128, 40, 2, 5, Direction::kBackward, PocWindow::kNone, 1.0, -5, 4},
      {420, 300, 256, 64, 1, 0, Direction::kBackward, PocWindow::kHann, 0.75, 7, 2},
      {389, 277, 256, 96, 0, 3, Direction::kForward, PocWindow::kHann, 0.5, -2, -6},
  };
  unsigned seed = 500;
  for (const C& c : cases) {
    const Frame f0 = make_texture(c.w, c.h, c.w + 3, seed++);
    const Frame f1 = make_texture(c.w, c.h, c.w + 9, seed - 1, c.sx, c.sy, 2);
    expect_emu_agree(make_config(c.w, c.h, c.n, c.s, c.layers, c.d, c.win, c.lp), f0, f1,
                     false, rt, c.chunk, PocCudaPath::kTiled);
    if (HasFatalFailure() || IsSkipped()) return;
  }
}

TEST(PocCudaEmulation, MatchesCpuOnRealImage) {
  std::vector<PocVector> probe;
  {
    const Frame t = make_texture(64, 64, 64, 1);
    EMULATE_OR_SKIP(make_config(64, 64, 32, 16, 0), t, t, PocRuntime(), 0, &probe);
  }
  Frame f0, f1;
  ASSERT_TRUE(yosemite_pair(&f0, &f1));
  const int w = f0.w, h = f0.h;
  for (int layers = 0; layers <= 2; ++layers)
    for (Direction d : {Direction::kForward, Direction::kBackward})
      expect_emu_agree(make_config(w, h, 64, 16, layers, d), f0, f1, false);
  expect_emu_agree(
      make_config(w, h, 32, 8, 1, Direction::kBackward, PocWindow::kHann, 0.5), f0, f1,
      false);
}

TEST(PocCudaEmulation, IntegerShiftsAreExact) {
  const int w = 320, h = 240;
  const Frame f0 = make_texture(w, h, w, 77);
  for (auto [sx, sy] : {std::pair{3, -2}, std::pair{-9, 6}, std::pair{0, 0}}) {
    const Frame f1 = shift_frame(f0, sx, sy, w + 7);
    const PocConfig cfg = make_config(w, h, 64, 32, 2, Direction::kForward);
    std::vector<PocVector> emu;
    EMULATE_OR_SKIP(cfg, f0, f1, PocRuntime(), 0, &emu);
    const int cols = cfg.columns();
    int checked = 0;
    double worst = 0;
    for (int b = 0; b < cfg.num_blocks(); ++b) {
      const int px = (b % cols) * 32 + 16, py = (b / cols) * 32 + 16;
      if (px - 32 < 12 || py - 32 < 12 || px + 32 > w - 12 || py + 32 > h - 12) continue;
      ++checked;
      worst = std::max(
          {worst, std::fabs(double(emu[b].dx) - sx), std::fabs(double(emu[b].dy) - sy)});
      EXPECT_NEAR(emu[b].dx, sx, 1e-3) << "block " << b;
      EXPECT_NEAR(emu[b].dy, sy, 1e-3) << "block " << b;
      EXPECT_GT(emu[b].confidence, 0.9f);
    }
    std::printf("  emu shift (%d, %d): %d interior blocks, max error %.2e px\n", sx, sy,
                checked, worst);
    EXPECT_GT(checked, 10);
  }
}

TEST(PocCudaEmulation, ChunksEqualOneChunk) {
  /* cuFFT path (the fused one has no chunks). The host FFT is the same per window whatever the batch, so forced
   * chunks (partial last ones included, which transform windows left from
   * the previous chunk) must give the one-chunk result to the bit. */
  const int w = 300, h = 220;
  const Frame f0 = make_texture(w, h, w, 11);
  const Frame f1 = make_texture(w, h, w, 11, -3, 4, 2);
  for (int layers : {0, 2}) {
    const PocConfig cfg = make_config(w, h, 64, 16, layers);
    std::vector<PocVector> whole;
    EMULATE_OR_SKIP(cfg, f0, f1, PocRuntime(), 0, &whole, PocCudaPath::kCufft);
    /* 19 x 14 = 266 blocks: 8 chunks of 34, 266 of 1, 2 of 133, 1. */
    for (int chunk : {37, 1, 265, 266, 1000}) {
      std::vector<PocVector> part;
      EMULATE_OR_SKIP(cfg, f0, f1, PocRuntime(), chunk, &part, PocCudaPath::kCufft);
      int differ = 0;
      for (int b = 0; b < cfg.num_blocks(); ++b)
        if (part[b].dx != whole[b].dx || part[b].dy != whole[b].dy ||
            part[b].confidence != whole[b].confidence || part[b].flags != whole[b].flags)
          ++differ;
      EXPECT_EQ(differ, 0) << "chunk " << chunk << ", layers " << layers;
    }
    expect_emu_agree(cfg, f0, f1, false, PocRuntime(), 37, PocCudaPath::kCufft);
  }
}

TEST(PocCudaEmulation, CoarseCacheEqualsDirect) {
  /* The coarsest layer's windows made once per frame and kept (the GPU
   * matcher's cache) or made per pair: the same windows and transforms, so
   * the same vectors to the bit, for every layer count (layers = 0 also
   * takes the re-centring's F from the cache), both directions and a
   * chunked run (partial last chunk). */
  const int w = 241, h = 177;
  const Frame f0 = make_texture(w, h, w + 7, 31);
  const Frame f1 = make_texture(w, h, w + 3, 31, 3, -2, 2);
  for (int layers = 0; layers <= 3; ++layers)
    for (Direction d : {Direction::kForward, Direction::kBackward})
      for (int chunk : {0, 29}) {
        const PocConfig cfg = make_config(w, h, 48, 16, layers, d);
        std::vector<PocVector> a(cfg.num_blocks()), b(cfg.num_blocks());
        match::Status st = match::cuda::emulate_poc_match(
            f0.view(), f1.view(), cfg, PocRuntime(), a.data(), chunk, true);
        if (st.code() == StatusCode::kUnavailable)
          GTEST_SKIP() << "emulation skipped: " << st.message();
        ASSERT_TRUE(st.is_ok()) << st.message();
        ASSERT_TRUE(match::cuda::emulate_poc_match(f0.view(), f1.view(), cfg,
                                                   PocRuntime(), b.data(), chunk, false)
                        .is_ok());
        for (int i = 0; i < cfg.num_blocks(); ++i) {
          ASSERT_EQ(a[i].dx, b[i].dx)
              << describe(cfg) << " chunk " << chunk << " block " << i;
          ASSERT_EQ(a[i].dy, b[i].dy) << describe(cfg) << " block " << i;
          ASSERT_EQ(a[i].confidence, b[i].confidence) << describe(cfg) << " block " << i;
          ASSERT_EQ(a[i].flags, b[i].flags);
        }
      }
}

TEST(PocCudaEmulation, TinyFrames) {
  for (const TinyCase c : kTinyCases) {
    const Frame f0 = make_texture(c.w, c.h, c.w + 1, 3);
    const Frame f1 = make_texture(c.w, c.h, c.w + 2, 3, 1, 0);
    const PocConfig cfg = make_config(c.w, c.h, 32, 4, c.layers);
    if (!c.line_layer) {
      expect_emu_agree(cfg, f0, f1, false);
      if (HasFatalFailure() || IsSkipped()) return;
      continue;
    }
    std::vector<PocVector> emu;
    EMULATE_OR_SKIP(cfg, f0, f1, PocRuntime(), 0, &emu);
    expect_sane(cfg, emu);
  }
}

TEST(PocCudaEmulation, FlatAndHalfFlatFrames) {
  /* Flat windows give all-zero surfaces: the tie rule must then pick zero
   * displacement (confidence 0), as the CPU does; the textured half keeps
   * the other blocks honest. */
  const int w = 200, h = 120;
  Frame f0 = make_texture(w, h, w, 21);
  Frame f1 = make_texture(w, h, w + 4, 21, 2, -1, 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w / 2; ++x) f0.at(x, y) = f1.at(x, y) = 128;
  expect_emu_agree(make_config(w, h, 32, 8, 2), f0, f1, false);
  if (HasFatalFailure() || IsSkipped()) return;
  std::vector<PocVector> emu;
  const PocConfig cfg = make_config(w, h, 32, 8, 0);
  EMULATE_OR_SKIP(cfg, f0, f0, PocRuntime(), 0, &emu);
  for (int b = 0; b < cfg.num_blocks(); ++b) {
    EXPECT_NEAR(emu[b].dx, 0.f, 1e-3) << "block " << b;
    EXPECT_NEAR(emu[b].dy, 0.f, 1e-3) << "block " << b;
  }
}

TEST(PocCudaEmulation, RejectsBadArguments) {
  const Frame f0 = make_texture(64, 64, 64, 1);
  const Frame f1 = make_texture(65, 64, 65, 1);
  std::vector<PocVector> out(16);
  match::Status st = match::cuda::emulate_poc_match(
      f0.view(), f0.view(), make_config(64, 64, 32, 16, 0), PocRuntime(), out.data());
  if (st.code() == StatusCode::kUnavailable)
    GTEST_SKIP() << "emulation skipped: " << st.message();
  EXPECT_TRUE(st.is_ok()) << st.message();
  EXPECT_EQ(
      match::cuda::emulate_poc_match(f0.view(), f1.view(), make_config(64, 64, 32, 16, 0),
                                     PocRuntime(), out.data())
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(
      match::cuda::emulate_poc_match(f0.view(), f0.view(), make_config(64, 64, 31, 16, 0),
                                     PocRuntime(), out.data())
          .code(),
      StatusCode::kInvalidArgument);
  /* The fused path only takes 32 and 64, the tiled one 128 and 256. */
  {
    std::vector<PocVector> o(make_config(64, 64, 64, 16, 0).num_blocks());
    EXPECT_EQ(match::cuda::emulate_poc_match(f0.view(), f0.view(),
                                             make_config(64, 64, 64, 16, 0), PocRuntime(),
                                             o.data(), 0, true, PocCudaPath::kTiled)
                  .code(),
              StatusCode::kInvalidArgument);
  }
  std::vector<PocVector> out48(make_config(64, 64, 48, 16, 0).num_blocks());
  EXPECT_EQ(match::cuda::emulate_poc_match(f0.view(), f0.view(),
                                           make_config(64, 64, 48, 16, 0), PocRuntime(),
                                           out48.data(), 0, true, PocCudaPath::kFused)
                .code(),
            StatusCode::kInvalidArgument);
}

/* ---- Summed-area tables (the tiled path's window sums) ------------------ */

/* A layer-l image as the prepare and reduce kernels make it: multiples of
 * 4^-l in [0, 255], random so that every bit of the sums moves; or 255
 * everywhere (`full`), whose large tables wrap around 2^32. */
std::vector<float> layer_image(int w, int h, int l, unsigned seed, bool full = false) {
  std::mt19937 rng(seed);
  const int q = 1 << (2 * l);
  std::vector<float> v(size_t(w) * h);
  for (float& x : v) x = full ? 255.f : static_cast<float>(rng() % (255 * q + 1)) / q;
  return v;
}

/* Window origins along an axis of length w for n-wide windows: wholly
 * outside on both sides, across each edge, inside. */
std::vector<int> window_origins(int w, int n) {
  std::vector<int> o = {-n - 2,        -n,        -n + 1, -n / 2,    -1,    0, 1,
                        w / 2 - n / 2, w - n - 1, w - n,  w - n + 1, w - 1, w, w + 3};
  std::sort(o.begin(), o.end());
  o.erase(std::unique(o.begin(), o.end()), o.end());
  return o;
}

/* The tiled path's window sums from the tables equal the windows' own
 * clamp-to-edge sums of round(v 4^l): inside, across every edge and
 * corner, wholly outside; odd sizes, every layer scale; and a table that
 * wraps around 2^32 (1500^2 values of 255 x 4^3). */
TEST(PocCudaEmulation, TableWindowSumsEqualDirect) {
  struct Case {
    int w, h, l;
    bool full;
  };
  const Case cases[] = {{37, 23, 0, false},
                        {37, 23, 1, false},
                        {300, 7, 2, false},
                        {5, 260, 3, false},
                        {1500, 1500, 3, true}};
  for (const Case& c : cases) {
    const std::vector<float> img = layer_image(c.w, c.h, c.l, 7u + c.w, c.full);
    std::vector<uint32_t> sat;
    match::Status st = match::cuda::poc_integral(img.data(), c.w, c.h, c.l, false, &sat);
    if (st.code() == StatusCode::kUnavailable)
      GTEST_SKIP() << "emulation skipped: " << st.message();
    ASSERT_TRUE(st.is_ok()) << st.message();
    const float scale = static_cast<float>(1 << (2 * c.l));
    for (int n : {1, 4, 33, 64}) {
      if (c.full && n != 64) continue;
      for (int y0 : window_origins(c.h, n))
        for (int x0 : window_origins(c.w, n)) {
          long long direct = 0;
          for (int y = y0; y < y0 + n; ++y)
            for (int x = x0; x < x0 + n; ++x)
              direct += std::lrint(img[size_t(std::clamp(y, 0, c.h - 1)) * c.w +
                                       std::clamp(x, 0, c.w - 1)] *
                                   scale);
          ASSERT_EQ(match::cuda::poc_table_window_sum(img.data(), sat.data(), c.w, c.h,
                                                      x0, y0, n),
                    direct)
              << c.w << "x" << c.h << " layer " << c.l << " n " << n << " at " << x0
              << "," << y0;
        }
    }
  }
}

/* The device's table kernels give the emulation's words: odd sizes, more
 * than one CTA of columns and segments of rows, a table that wraps. */
TEST(PocCuda, IntegralEqualsHost) {
  if (match::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  struct Case {
    int w, h, l;
  };
  for (const Case& c : {Case{37, 23, 0}, Case{1281, 721, 0}, Case{2000, 33, 2},
                        Case{33, 1100, 1}, Case{1500, 1500, 3}}) {
    const std::vector<float> img = layer_image(c.w, c.h, c.l, 11u + c.h);
    std::vector<uint32_t> host, dev;
    ASSERT_TRUE(
        match::cuda::poc_integral(img.data(), c.w, c.h, c.l, false, &host).is_ok());
    match::Status st = match::cuda::poc_integral(img.data(), c.w, c.h, c.l, true, &dev);
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_TRUE(host == dev) << c.w << "x" << c.h << " layer " << c.l;
  }
}

/* ---- poc_finish on the GPU (cuda/poc_finish.cu) ------------------------ */

/* The device's last stage (reach, candidate passes, median, flags) against
 * the host's poc_finish() on the same POC vectors and frames: the same
 * bits, every block (integer costs: ref/poc_finish_block.h). Vector fields
 * made to exercise every rule: a smooth field, outliers (some beyond the
 * reach), near-equal neighbours (within 1 px: not candidates), zero and
 * missing confidences; odd sizes, padded strides (different per frame),
 * both directions, spacings 4..256, windows 32..256, layers 0..3, robust
 * and median on and off, max-displacement and min-confidence. */
struct FinishCase {
  int w, h, stride0, stride1, n, s, layers;
  Direction dir;
  bool robust, median;
  int max_disp;
  double min_conf;
};
const FinishCase kFinishCases[] = {
    {631, 479, 640, 647, 64, 16, 2, Direction::kBackward, true, false, 0, 0.0},
    {333, 219, 352, 340, 32, 8, 1, Direction::kForward, true, true, 0, 0.4},
    {97, 61, 101, 97, 256, 13, 0, Direction::kBackward, true, true, 10, 0.0},
    {1280, 720, 1280, 1296, 256, 32, 2, Direction::kBackward, true, false, 0, 0.0},
    {257, 193, 260, 272, 48, 4, 3, Direction::kForward, false, true, 0, 0.2},
    {200, 150, 208, 200, 128, 256, 1, Direction::kBackward, true, true, 0, 0.0},
    {301, 203, 304, 320, 64, 16, 0, Direction::kForward, true, false, 20, 0.0},
    {5, 3, 8, 5, 32, 4, 0, Direction::kBackward, true, true, 0, 0.0},
    /* The vote's scratch with the frame before: the largest grid it holds,
     * and one beyond (each cost summed from the frames). */
    {389, 217, 400, 389, 64, 24, 1, Direction::kForward, true, false, 0, 0.0},
    {641, 363, 656, 648, 128, 32, 1, Direction::kForward, true, true, 0, 0.0},
};

PocConfig finish_config(const FinishCase& c) {
  PocConfig cfg =
      make_config(c.w, c.h, c.n, c.s, c.layers, c.dir, PocWindow::kHann, 0.75);
  cfg.robust = c.robust;
  cfg.median = c.median;
  cfg.max_displacement = c.max_disp;
  return cfg;
}

/* A field of POC-like vectors for cfg (see above), from seed. */
std::vector<PocVector> finish_field(const PocConfig& cfg, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(0.f, 1.f);
  const float reach = static_cast<float>(match::poc_max_displacement(cfg));
  std::vector<PocVector> v(cfg.num_blocks());
  for (int b = 0; b < cfg.num_blocks(); ++b) {
    const int bc = b % cfg.columns(), br = b / cfg.columns();
    PocVector& p = v[b];
    p.dx = 2.3f + 0.07f * bc + (u(rng) - 0.5f) * 0.4f;
    p.dy = -1.6f + 0.05f * br + (u(rng) - 0.5f) * 0.4f;
    p.confidence = u(rng);
    p.flags = match::kFlagNone;
    const float r = u(rng);
    if (r < 0.25f) { /* an outlier, sometimes beyond the reach */
      p.dx = (u(rng) * 2.f - 1.f) * reach * 1.2f;
      p.dy = (u(rng) * 2.f - 1.f) * reach * 1.2f;
    } else if (r < 0.30f) {
      p.confidence = 0.f;
    } else if (r < 0.32f) {
      p.confidence = -1.f;
      p.flags = match::kFlagNoEstimate;
    } else if (r < 0.40f && b > 0) { /* the left neighbour, +- < 1 px */
      p.dx = v[b - 1].dx + (u(rng) - 0.5f) * 1.2f;
      p.dy = v[b - 1].dy + (u(rng) - 0.5f) * 1.2f;
    }
  }
  return v;
}

bool same_bits(const PocVector& a, const PocVector& b) {
  return std::memcmp(&a.dx, &b.dx, sizeof(float)) == 0 &&
         std::memcmp(&a.dy, &b.dy, sizeof(float)) == 0 &&
         std::memcmp(&a.confidence, &b.confidence, sizeof(float)) == 0 &&
         a.flags == b.flags;
}

/* host poc_finish() vs `stage` (the emulated or the device one) on the
 * cases' fields, the second and third with a frame before (the vote's third
 * frame, forward fields); counts of vectors the stage changed are printed. */
template <typename Stage>
void expect_finish_equal(Stage stage, const char* what) {
  unsigned seed = 40;
  for (const FinishCase& c : kFinishCases) {
    const PocConfig cfg = finish_config(c);
    const Frame f0 = make_texture(c.w, c.h, c.stride0, seed);
    const Frame f1 = make_texture(c.w, c.h, c.stride1, seed, 3, -2, 4);
    const Frame fb = make_texture(c.w, c.h, c.stride0 + 5, seed, -3, 2, 4);
    const match::ImageView before = fb.view();
    PocRuntime rt;
    rt.min_confidence = c.min_conf;
    for (unsigned k = 0; k < 3; ++k, ++seed) {
      const std::vector<PocVector> in = finish_field(cfg, seed);
      std::vector<PocVector> host = in, dev = in;
      const match::ImageView* bp = k > 0 ? &before : nullptr;
      ASSERT_TRUE(
          match::poc_finish(f0.view(), f1.view(), cfg, rt, host.data(), bp).is_ok());
      const match::Status st = stage(f0.view(), f1.view(), cfg, rt, dev.data(), bp);
      if (st.code() == StatusCode::kUnavailable) GTEST_SKIP() << st.message();
      ASSERT_TRUE(st.is_ok()) << st.message();
      int changed = 0, differ = 0;
      for (int b = 0; b < cfg.num_blocks(); ++b) {
        changed += host[b].dx != in[b].dx || host[b].dy != in[b].dy;
        if (!same_bits(host[b], dev[b]) && differ++ < 5)
          ADD_FAILURE() << what << " " << describe(cfg) << " robust " << cfg.robust
                        << " median " << cfg.median << " block " << b << ": host ("
                        << host[b].dx << ", " << host[b].dy << ", " << host[b].confidence
                        << ", " << host[b].flags << ") vs (" << dev[b].dx << ", "
                        << dev[b].dy << ", " << dev[b].confidence << ", " << dev[b].flags
                        << ")";
      }
      if (k == 0)
        std::printf("  %s %-40s %6d blocks, %5d changed, %d differ\n", what,
                    describe(cfg).c_str(), cfg.num_blocks(), changed, differ);
    }
  }
}

/* No GPU needed: the kernels' per-block code on the host, on float layers
 * prepared as the matcher does, against the host stage on u8 frames. */
TEST(PocCudaFinish, EmulationEqualsHost) {
  expect_finish_equal(match::cuda::emulate_poc_finish, "emu");
}

TEST(PocCudaFinish, DeviceEqualsHost) {
  if (match::cuda_device_count() == 0) GTEST_SKIP() << "no CUDA device";
  expect_finish_equal(match::cuda::device_poc_finish, "gpu");
}

/* Real frames: the CPU backend's POC vectors (robust off) of the Yosemite
 * pair, of the pair with the second frame's right half moved further (a
 * motion boundary), and of the first with outliers put into every 7th
 * block; then the stage on the host, emulated and on the device. The
 * boundary pair also forward with a frame before (the first frame moved
 * back as the second's right half moved on). */
TEST(PocCudaFinish, DeviceEqualsHostOnRealFrames) {
  const bool gpu = match::cuda_device_count() > 0;
  Frame f0, f1;
  ASSERT_TRUE(yosemite_pair(&f0, &f1));
  Frame f2 = f1;
  for (int y = 0; y < f2.h; ++y)
    for (int x = f2.w / 2; x < f2.w; ++x)
      f2.at(x, y) = f0.at(std::clamp(x - 9, 0, f0.w - 1), std::clamp(y - 4, 0, f0.h - 1));
  Frame fb = f0;
  for (int y = 0; y < fb.h; ++y)
    for (int x = 0; x < fb.w; ++x)
      fb.at(x, y) = f0.at(std::clamp(x + (x < fb.w / 2 ? 1 : 9), 0, f0.w - 1),
                          std::clamp(y + 4, 0, f0.h - 1));
  const match::ImageView before_view = fb.view();
  for (int variant = 0; variant < 4; ++variant)
    for (int layers : {0, 2})
      for (bool median : {false, true}) {
        const bool three = variant == 3;
        PocConfig cfg = make_config(f0.w, f0.h, 64, 8, layers,
                                    three ? Direction::kForward : Direction::kBackward,
                                    PocWindow::kHann, 0.75);
        const match::ImageView* bp = three ? &before_view : nullptr;
        PocConfig raw_cfg = cfg;
        raw_cfg.robust = false;
        const Frame* later = variant == 1 || three ? &f2 : &f1;
        auto raw = run(Backend::kCpu, raw_cfg, {&f0, later});
        ASSERT_EQ(raw.size(), 1u);
        if (variant == 2) /* outliers in every 7th block */
          for (int b = 0; b < cfg.num_blocks(); b += 7) {
            raw[0][b].dx += (b & 8) ? 17.f : -11.5f;
            raw[0][b].dy += (b & 16) ? -6.25f : 9.f;
          }
        cfg.median = median;
        std::vector<PocVector> host = raw[0], emu = raw[0], dev = raw[0];
        ASSERT_TRUE(match::poc_finish(f0.view(), later->view(), cfg, PocRuntime(),
                                      host.data(), bp)
                        .is_ok());
        match::Status st = match::cuda::emulate_poc_finish(f0.view(), later->view(), cfg,
                                                           PocRuntime(), emu.data(), bp);
        if (st.code() == StatusCode::kUnavailable) GTEST_SKIP() << st.message();
        ASSERT_TRUE(st.is_ok()) << st.message();
        if (gpu) {
          ASSERT_TRUE(match::cuda::device_poc_finish(f0.view(), later->view(), cfg,
                                                     PocRuntime(), dev.data(), bp)
                          .is_ok());
        }
        int changed = 0;
        for (int b = 0; b < cfg.num_blocks(); ++b) {
          changed += host[b].dx != raw[0][b].dx || host[b].dy != raw[0][b].dy;
          EXPECT_TRUE(same_bits(host[b], emu[b])) << "emu block " << b;
          if (gpu) {
            EXPECT_TRUE(same_bits(host[b], dev[b])) << "gpu block " << b;
          }
        }
        std::printf("  %s %s%s: %d of %d blocks changed by the stage%s\n",
                    variant == 0   ? "yosemite"
                    : variant == 1 ? "boundary"
                    : variant == 2 ? "outliers"
                                   : "three frames",
                    describe(cfg).c_str(), median ? " median" : "", changed,
                    cfg.num_blocks(), gpu ? "" : " (no GPU: emulation only)");
      }
}

/* A textured layer left of x = edge + 6 t moving right by 6 px a frame
 * over a static background (frame t): the layer covers background that the
 * frame before still shows. */
Frame layer_over_background(int w, int h, int stride, int edge, int t) {
  Frame f = make_texture(w, h, stride, 21);
  const Frame layer = make_texture(w, h, stride, 22, 6 * t, 0);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < std::min(edge + 6 * t, w); ++x) f.at(x, y) = layer.at(x, y);
  return f;
}

/* The CUDA matcher in a stream: from its third frame on, a forward field's
 * layer vote has the frame before (layer 0 of the frame before the earlier
 * one, kept on the device): its vectors equal the device stage's on the
 * pair's POC vectors with that frame, bit for bit, through process() and
 * submit()/collect() (graphs captured with and without it); a reset
 * forgets it. */
TEST(PocCuda, StreamVotesWithTheFrameBefore) {
  REQUIRE_CUDA_POC();
  const int w = 333, h = 219, stride = 336, edge = 150;
  std::vector<Frame> f;
  for (int t = -1; t <= 3; ++t) f.push_back(layer_over_background(w, h, stride, edge, t));
  const PocConfig cfg = make_config(w, h, 64, 16, 1, Direction::kForward);
  PocConfig raw_cfg = cfg;
  raw_cfg.robust = false;
  /* want[k]: the field of pair (f[k], f[k + 1]) with f[k - 1] before it. */
  std::vector<std::vector<PocVector>> want;
  int voted = 0;
  for (size_t k = 0; k + 1 < f.size(); ++k) {
    std::vector<PocVector> v = run(Backend::kCuda, raw_cfg, {&f[k], &f[k + 1]}).at(0);
    std::vector<PocVector> two = v;
    const match::ImageView before = f[k > 0 ? k - 1 : 0].view();
    ASSERT_TRUE(match::cuda::device_poc_finish(f[k].view(), f[k + 1].view(), cfg,
                                               PocRuntime(), v.data(),
                                               k > 0 ? &before : nullptr)
                    .is_ok());
    ASSERT_TRUE(match::cuda::device_poc_finish(f[k].view(), f[k + 1].view(), cfg,
                                               PocRuntime(), two.data())
                    .is_ok());
    for (int b = 0; b < cfg.num_blocks(); ++b) voted += !same_bits(v[b], two[b]);
    want.push_back(v);
  }
  EXPECT_GT(voted, 0); /* the frame before changed the boundary's blocks */
  std::vector<const Frame*> ptrs;
  for (const Frame& x : f) ptrs.push_back(&x);
  const auto got = run(Backend::kCuda, cfg, ptrs);
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    for (int b = 0; b < cfg.num_blocks(); ++b) {
      ASSERT_TRUE(same_bits(got[k][b], want[k][b])) << "pair " << k << " block " << b;
    }
  }
  std::unique_ptr<PocMatcher> m;
  ASSERT_TRUE(PocMatcher::create(Backend::kCuda, cfg, &m).is_ok());
  std::vector<PocVector> out(cfg.num_blocks());
  size_t collected = 0;
  for (size_t i = 0; i <= f.size(); ++i) {
    if (i < f.size()) {
      ASSERT_TRUE(m->submit(f[i].view(), PocRuntime()).is_ok());
    }
    while (m->in_flight() > (i < f.size() ? 3 : 0)) {
      bool est = false;
      ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
      for (int b = 0; collected > 0 && b < cfg.num_blocks(); ++b) {
        ASSERT_TRUE(same_bits(out[b], want[collected - 1][b]))
            << "submitted, pair " << collected - 1 << " block " << b;
      }
      ++collected;
    }
  }
  EXPECT_EQ(collected, f.size());
  /* After a reset the pair (f[2], f[3]) has no frame before. */
  m->reset();
  bool est = false;
  ASSERT_TRUE(m->process(f[2].view(), PocRuntime(), out.data(), &est).is_ok());
  ASSERT_TRUE(m->process(f[3].view(), PocRuntime(), out.data(), &est).is_ok());
  std::vector<PocVector> two = run(Backend::kCuda, raw_cfg, {&f[2], &f[3]}).at(0);
  ASSERT_TRUE(match::cuda::device_poc_finish(f[2].view(), f[3].view(), cfg, PocRuntime(),
                                             two.data())
                  .is_ok());
  for (int b = 0; b < cfg.num_blocks(); ++b) {
    ASSERT_TRUE(same_bits(out[b], two[b])) << "after reset, block " << b;
  }
}

/* Pipelined use: the CUDA matcher queues submitted frames (upload on a
 * copy stream, POC, poc_finish and download on the compute stream) and
 * collect() waits for the oldest; the vectors equal process()'s bit for
 * bit at every depth, on the fused (64) and tiled (256) paths with robust
 * and median. Also: submit() beyond max_in_flight() and reconfigure() with
 * frames in flight are refused, reset() drops frames in flight and the
 * matcher goes on. */
TEST(PocCuda, SubmitCollectEqualsProcess) {
  REQUIRE_CUDA_POC();
  const int w = 333, h = 219;
  std::vector<Frame> seq;
  for (int i = 0; i < 10; ++i)
    seq.push_back(make_texture(w, h, 352, 11, (2 * i) % 7, i % 3, 2));
  std::vector<const Frame*> ptrs;
  for (const Frame& f : seq) ptrs.push_back(&f);
  for (int n : {64, 256}) {
    PocConfig cfg = make_config(w, h, n, n == 256 ? 32 : 16, 2, Direction::kBackward,
                                PocWindow::kHann, 0.75);
    cfg.median = n == 64;
    const auto want = run(Backend::kCuda, cfg, ptrs);
    ASSERT_EQ(want.size(), seq.size() - 1);
    std::unique_ptr<PocMatcher> m;
    ASSERT_TRUE(PocMatcher::create(Backend::kCuda, cfg, &m).is_ok());
    const int max = m->max_in_flight();
    ASSERT_GE(max, 5); /* pipeline-depth 4 plus the frame being submitted */
    std::vector<PocVector> out(cfg.num_blocks());
    for (int depth : {1, 3, max - 1}) {
      m->reset();
      size_t collected = 0;
      auto check = [&]() {
        bool est = true;
        ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
        EXPECT_EQ(est, collected > 0);
        if (collected > 0) {
          for (int b = 0; b < cfg.num_blocks(); ++b)
            ASSERT_TRUE(same_bits(out[b], want[collected - 1][b]))
                << "N " << n << " depth " << depth << " frame " << collected << " block "
                << b;
        }
        ++collected;
      };
      for (size_t i = 0; i < seq.size(); ++i) {
        ASSERT_TRUE(m->submit(seq[i].view(), PocRuntime()).is_ok());
        if (m->in_flight() > depth) check();
      }
      if (depth == max - 1) {
        /* Full ring: one more is refused; so is reconfigure(). */
        while (m->in_flight() < max)
          ASSERT_TRUE(m->submit(seq[0].view(), PocRuntime()).is_ok());
        EXPECT_EQ(m->submit(seq[0].view(), PocRuntime()).code(),
                  StatusCode::kInvalidArgument);
        EXPECT_EQ(m->reconfigure(cfg).code(), StatusCode::kInvalidArgument);
        m->reset(); /* drops them */
        EXPECT_EQ(m->in_flight(), 0);
        continue;
      }
      while (m->in_flight() > 0) check();
      EXPECT_EQ(collected, seq.size());
    }
    /* After the reset with a full ring: a new sequence from scratch. */
    bool est = true;
    ASSERT_TRUE(m->process(seq[0].view(), PocRuntime(), out.data(), &est).is_ok());
    EXPECT_FALSE(est);
    ASSERT_TRUE(m->process(seq[1].view(), PocRuntime(), out.data(), &est).is_ok());
    EXPECT_TRUE(est);
    for (int b = 0; b < cfg.num_blocks(); ++b)
      ASSERT_TRUE(same_bits(out[b], want[0][b])) << "after reset, block " << b;
  }
}

/* ---- process_device(): frames already in device memory ----------------- */

/* The CPU backend refuses device frames and stays usable (no GPU needed:
 * the pointer is never dereferenced). */
TEST(PocDeviceInput, CpuRefusesDeviceFrames) {
  const PocConfig cfg = make_config(96, 64, 32, 16, 1);
  std::unique_ptr<PocMatcher> m;
  ASSERT_TRUE(PocMatcher::create(Backend::kCpu, cfg, &m).is_ok());
  static const uint8_t dummy[1] = {0};
  match::DeviceImageView v;
  v.data = dummy;
  v.width = 96;
  v.height = 64;
  v.pitch_bytes = 96;
  std::vector<PocVector> out(cfg.num_blocks());
  bool est = true;
  EXPECT_EQ(m->process_device(v, PocRuntime(), out.data(), &est).code(),
            StatusCode::kUnsupported);
  const Frame a = make_texture(96, 64, 96, 3);
  EXPECT_TRUE(m->process(a.view(), PocRuntime(), out.data(), &est).is_ok());
  EXPECT_FALSE(est);
  match::DeviceImageView kept;
  EXPECT_FALSE(m->collected_frame(0, &kept)); /* no frame on a GPU */
}

#ifdef MATCH_TEST_CUDART
/* collected_frame(): the matcher's own device copy of each collected
 * frame (what the decision's change stage reads), odd size. */
TEST(PocDeviceInput, CollectedFrameIsTheFrame) {
  REQUIRE_CUDA_POC();
  const int w = 333, h = 219;
  std::vector<Frame> seq;
  for (int i = 0; i < 9; ++i) seq.push_back(make_texture(w, h, 352, 11, i, 2 * i, 2));
  const PocConfig cfg = make_config(w, h, 64, 16, 1);
  std::unique_ptr<PocMatcher> m;
  ASSERT_TRUE(PocMatcher::create(Backend::kCuda, cfg, &m).is_ok());
  collectedtest::check<PocVector>(m.get(), seq, cfg.num_blocks(), PocRuntime());
}

/* A frame in pitched device memory gives process()'s vectors on its host
 * copy, bit for bit (the same GPU, the same kernels); bad frames are
 * refused without disturbing the matcher. */
TEST(PocDeviceInput, ProcessDeviceEqualsProcess) {
  REQUIRE_CUDA_POC();
  const int w = 333, h = 219;
  /* The robust stage (poc_finish) runs on the device too, so device
   * input takes the defaults (robust on) and the median. */
  PocConfig cfg = make_config(w, h, 64, 16, 2);
  cfg.median = true;
  std::vector<Frame> seq;
  for (int i = 0; i < 4; ++i) seq.push_back(make_texture(w, h, 352, 11, 2 * i, i, 2));
  std::vector<const Frame*> ptrs;
  for (const Frame& f : seq) ptrs.push_back(&f);
  const auto want = run(Backend::kCuda, cfg, ptrs);

  std::unique_ptr<PocMatcher> m;
  ASSERT_TRUE(PocMatcher::create(Backend::kCuda, cfg, &m).is_ok());
  std::vector<PocVector> out(cfg.num_blocks());
  for (size_t i = 0; i < seq.size(); ++i) {
    void* d = nullptr;
    size_t pitch = 0;
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaMallocPitch(&d, &pitch, w, h), cudaSuccess);
    ASSERT_EQ(cudaMemcpy2D(d, pitch, seq[i].data.data(), seq[i].stride, w, h,
                           cudaMemcpyHostToDevice),
              cudaSuccess);
    /* A copy from pageable memory may return before its DMA is done; a
     * producer hands over finished frames. */
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    match::DeviceImageView v;
    v.data = static_cast<const uint8_t*>(d);
    v.width = w;
    v.height = h;
    v.pitch_bytes = static_cast<std::ptrdiff_t>(pitch);
    v.device = 0;
    bool est = false;
    match::DeviceImageView bad = v;
    bad.height = h - 1;
    EXPECT_EQ(m->process_device(bad, PocRuntime(), out.data(), &est).code(),
              StatusCode::kInvalidArgument);
    bad = v;
    bad.device = 63;
    EXPECT_EQ(m->process_device(bad, PocRuntime(), out.data(), &est).code(),
              StatusCode::kUnsupported);
    match::Status st = m->process_device(v, PocRuntime(), out.data(), &est);
    cudaFree(d); /* process_device() is done with it */
    ASSERT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(est, i > 0);
    if (i == 0) continue;
    for (int b = 0; b < cfg.num_blocks(); ++b) {
      const PocVector& a = want[i - 1][b];
      EXPECT_TRUE(a.dx == out[b].dx && a.dy == out[b].dy &&
                  a.confidence == out[b].confidence && a.flags == out[b].flags)
          << "frame " << i << " block " << b;
    }
  }
}
#endif /* MATCH_TEST_CUDART */
