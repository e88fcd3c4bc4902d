/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Kernel tests: the optimised CPU backend (every instruction-set path)
 * against the plain reference, on random data with odd sizes and padded
 * strides and on a real frame pair; known shifts; ties; thresholds; state.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "cpu/cpu_isa.h"
#include "internal.h"
#include "match/blockmatch.h"
#include "../common/blockmatch_testutil.h"
#include "../common/frame.h"
#include "../common/isa_guard.h"
#include "../common/pgm.h"

using match::BlockMatchConfig;
using match::BlockMatcher;
using match::BlockMatchRuntime;
using match::BlockVector;
using match::Direction;
using match::ImageView;

namespace {

Frame make_frame(int w, int h, int stride, unsigned seed) {
  return make_noise_frame(w, h, stride, seed);
}

/* Smooth texture: block-averaged noise, so neighbouring candidates differ
 * gradually, like real images. */
Frame make_texture(int w, int h, int stride, unsigned seed) {
  Frame n = make_frame(w + 4, h + 4, w + 4, seed);
  Frame f = make_frame(w, h, stride, seed + 1);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      int s = 0;
      for (int j = 0; j < 4; ++j)
        for (int i = 0; i < 4; ++i) s += n.at(x + i, y + j);
      f.at(x, y) = static_cast<uint8_t>(s / 16);
    }
  return f;
}

/* content moves by (+sx, +sy): out(x, y) = in(clamp(x - sx), clamp(y - sy)) */
Frame shifted(const Frame& in, int sx, int sy) {
  Frame out = in;
  for (int y = 0; y < in.h; ++y)
    for (int x = 0; x < in.w; ++x)
      out.at(x, y) =
          in.at(std::clamp(x - sx, 0, in.w - 1), std::clamp(y - sy, 0, in.h - 1));
  return out;
}

bool load_pgm(const std::string& path, Frame* f) {
  if (!pgm_read(path, &f->w, &f->h, &f->data)) return false;
  f->stride = f->w;
  return true;
}

std::string files_dir() {
  const char* p = std::getenv("GST_TEST_FILES_PATH");
  return p ? p : "tests/files";
}

std::vector<BlockVector> run_cpu(const Frame& a, const Frame& b,
                                 const BlockMatchConfig& cfg,
                                 const BlockMatchRuntime& rt) {
  std::unique_ptr<BlockMatcher> m;
  match::Status st = BlockMatcher::create(match::Backend::kCpu, cfg, &m);
  EXPECT_TRUE(st.is_ok()) << st.message();
  std::vector<BlockVector> out(cfg.num_blocks());
  bool estimated = true;
  EXPECT_TRUE(m->process(a.view(), rt, out.data(), &estimated).is_ok());
  EXPECT_FALSE(estimated);
  for (const auto& v : out) EXPECT_EQ(v.flags, match::kFlagNoEstimate);
  EXPECT_TRUE(m->process(b.view(), rt, out.data(), &estimated).is_ok());
  EXPECT_TRUE(estimated);
  return out;
}

std::vector<BlockVector> run_ref(const Frame& a, const Frame& b,
                                 const BlockMatchConfig& cfg,
                                 const BlockMatchRuntime& rt) {
  std::vector<BlockVector> out(cfg.num_blocks());
  match::Status st = match::ref::block_match(a.view(), b.view(), cfg, rt, out.data());
  EXPECT_TRUE(st.is_ok()) << st.message();
  return out;
}

void expect_same(const std::vector<BlockVector>& want,
                 const std::vector<BlockVector>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size());
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].dx != got[i].dx || want[i].dy != got[i].dy ||
        want[i].cost != got[i].cost || want[i].flags != got[i].flags) {
      if (++bad <= 5)
        ADD_FAILURE() << what << " block " << i << ": ref (" << want[i].dx << ","
                      << want[i].dy << ") cost " << want[i].cost << " flags "
                      << want[i].flags << " vs cpu (" << got[i].dx << "," << got[i].dy
                      << ") cost " << got[i].cost << " flags " << got[i].flags;
    }
  }
  EXPECT_EQ(bad, 0) << what;
}

using bmtest::config;

std::string describe(const BlockMatchConfig& c, const char* isa) {
  char buf[200];
  snprintf(buf, sizeof buf, "%dx%d blk %dx%d rng %d/%d 1/%d %s isa=%s", c.width, c.height,
           c.block_width, c.block_height, c.range_x, c.range_y, c.subpel,
           c.direction == Direction::kForward ? "fwd" : "bwd", isa ? isa : "best");
  return buf;
}

const char* const kIsas[] = {"scalar", "sse2", nullptr /* best: avx2 */};

}  // namespace

/* Random data, odd sizes, padded strides, every ISA path, both directions,
 * every sub-pel grid: the CPU backend must return the reference's vectors
 * exactly (vectors, costs and flags). */
struct RefCase {
  int w, h, stride, bw, bh, rx, ry, subpel;
  bool texture;
};

class RefVsCpu : public ::testing::TestWithParam<RefCase> {};

TEST_P(RefVsCpu, IdenticalVectors) {
  const RefCase p = GetParam();
  for (Direction dir : {Direction::kForward, Direction::kBackward}) {
    const Frame a = p.texture ? make_texture(p.w, p.h, p.stride, 11)
                              : make_frame(p.w, p.h, p.stride, 11);
    Frame b = p.texture ? shifted(a, 2, -1) : make_frame(p.w, p.h, p.stride, 12);
    if (p.texture) { /* add a little noise so the match is not exact */
      std::mt19937 rng(5);
      for (int y = 0; y < b.h; ++y)
        for (int x = 0; x < b.w; ++x)
          b.at(x, y) = static_cast<uint8_t>(
              std::clamp<int>(b.at(x, y) + int(rng() % 5) - 2, 0, 255));
    }
    const BlockMatchConfig cfg = config(p.w, p.h, p.bw, p.bh, p.rx, p.ry, p.subpel, dir);
    BlockMatchRuntime rt;
    const auto want = run_ref(a, b, cfg, rt);
    for (const char* isa : kIsas) {
      IsaGuard guard(isa);
      expect_same(want, run_cpu(a, b, cfg, rt), describe(cfg, isa));
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, RefVsCpu,
    ::testing::Values(RefCase{631, 479, 640, 16, 16, 7, 5, 1, false}, /* SGM's odd size */
                      RefCase{161, 97, 176, 16, 16, 16, 16, 1, true},
                      RefCase{101, 67, 112, 8, 8, 9, 6, 1, true},
                      RefCase{77, 53, 80, 13, 7, 5, 4, 1, false}, /* odd block */
                      RefCase{83, 45, 96, 24, 20, 4, 3, 1, true}, /* 2 chunks, partial */
                      RefCase{41, 33, 48, 40, 33, 3, 2, 1, true}, /* 3 chunks, odd h */
                      RefCase{5, 3, 16, 16, 16, 3, 3, 1,
                              false}, /* smaller than a block */
                      RefCase{37, 29, 40, 16, 16, 0, 0, 1, true}, /* range 0 */
                      RefCase{1, 1, 1, 1, 1, 1, 1, 4, false},     /* 1x1 */
                      RefCase{69, 47, 80, 16, 16, 4, 3, 2, true}, /* half-pel */
                      RefCase{53, 39, 64, 8, 8, 3, 2, 4, true},   /* quarter-pel */
                      RefCase{45, 31, 48, 16, 8, 2, 3, 4, false}));

TEST(RefVsCpu, RealFramesTaxi) {
  Frame a, b;
  if (!load_pgm(files_dir() + "/taxi01.pgm", &a) ||
      !load_pgm(files_dir() + "/taxi02.pgm", &b))
    GTEST_SKIP() << "tests/files/taxi0[12].pgm not found";
  for (int subpel : {1, 2}) {
    for (Direction dir : {Direction::kForward, Direction::kBackward}) {
      const BlockMatchConfig cfg =
          config(a.w, a.h, 16, 16, subpel == 1 ? 8 : 4, subpel == 1 ? 8 : 4, subpel, dir);
      BlockMatchRuntime rt;
      const auto want = run_ref(a, b, cfg, rt);
      for (const char* isa : kIsas) {
        IsaGuard guard(isa);
        expect_same(want, run_cpu(a, b, cfg, rt), describe(cfg, isa));
      }
    }
  }
}

/* Known integer shift of a texture: interior blocks must find it with cost
 * 0; the sign depends on the direction. */
TEST(KnownShift, IntegerBothDirections) {
  const Frame a = make_texture(160, 128, 160, 3);
  const Frame b = shifted(a, 5, -3); /* content moves right 5, up 3 */
  for (Direction dir : {Direction::kForward, Direction::kBackward}) {
    const BlockMatchConfig cfg = config(160, 128, 16, 16, 8, 8, 1, dir);
    const auto out = run_cpu(a, b, cfg, BlockMatchRuntime());
    const int sign = dir == Direction::kForward ? 1 : -1;
    for (int r = 1; r < cfg.rows() - 1; ++r)
      for (int c = 1; c < cfg.columns() - 1; ++c) {
        const BlockVector& v = out[r * cfg.columns() + c];
        EXPECT_EQ(v.dx, sign * 5 * 4) << c << "," << r;
        EXPECT_EQ(v.dy, sign * -3 * 4) << c << "," << r;
        EXPECT_EQ(v.cost, 0u);
        EXPECT_EQ(v.flags, 0u);
      }
  }
}

/* Half-pel: the later frame is the earlier one sampled half a pixel to the
 * right and a quarter down, with the bilinear rule, so backward vectors
 * must be exactly (+0.5, +0.25) with cost 0 on the quarter grid, and
 * (+0.5, 0 or +0.5) at half-pel precision. */
TEST(KnownShift, SubPixelBackward) {
  const Frame a = make_texture(96, 80, 96, 8);
  Frame b = a;
  for (int y = 0; y < a.h; ++y)
    for (int x = 0; x < a.w; ++x) {
      auto px = [&](int xx, int yy) {
        return int(a.at(std::min(xx, a.w - 1), std::min(yy, a.h - 1)));
      };
      b.at(x, y) = static_cast<uint8_t>((6 * px(x, y) + 6 * px(x + 1, y) +
                                         2 * px(x, y + 1) + 2 * px(x + 1, y + 1) + 8) >>
                                        4);
    }
  const BlockMatchConfig cfg = config(96, 80, 16, 16, 3, 3, 4, Direction::kBackward);
  const auto out = run_cpu(a, b, cfg, BlockMatchRuntime());
  for (int r = 0; r < cfg.rows() - 1; ++r)
    for (int c = 0; c < cfg.columns() - 1; ++c) {
      const BlockVector& v = out[r * cfg.columns() + c];
      EXPECT_EQ(v.dx, 2) << c << "," << r; /* quarter pixels */
      EXPECT_EQ(v.dy, 1) << c << "," << r;
      EXPECT_EQ(v.cost, 0u);
    }
}

/* A constant image makes every candidate tie at cost 0: the tie rule says
 * the zero vector. A periodic pattern ties at multiples of the period:
 * the smallest |v| wins, then raster order (smaller dy, then dx). */
TEST(Ties, ZeroVectorAndRasterOrder) {
  Frame flat = make_frame(64, 48, 64, 1);
  std::fill(flat.data.begin(), flat.data.end(), 77);
  {
    const BlockMatchConfig cfg = config(64, 48, 16, 16, 6, 6, 2, Direction::kBackward);
    for (const auto& v : run_cpu(flat, flat, cfg, BlockMatchRuntime())) {
      EXPECT_EQ(v.dx, 0);
      EXPECT_EQ(v.dy, 0);
    }
  }
  /* Vertical stripes of period 4 shifted by 2: candidates dx = -2 and +2
   * (and +-6...) all cost 0; |v| ties between -2 and +2, raster order
   * picks dx = -2. dy is free: the smallest |dy| = 0 wins. */
  Frame stripes = make_frame(64, 48, 64, 1);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x) stripes.at(x, y) = (x % 4) < 2 ? 30 : 200;
  const Frame moved = shifted(stripes, 2, 0);
  const BlockMatchConfig cfg = config(64, 48, 16, 16, 7, 3, 1, Direction::kBackward);
  const auto out = run_cpu(stripes, moved, cfg, BlockMatchRuntime());
  const auto want = run_ref(stripes, moved, cfg, BlockMatchRuntime());
  expect_same(want, out, "stripes");
  for (int r = 0; r < cfg.rows(); ++r)
    for (int c = 1; c < cfg.columns(); ++c) {
      EXPECT_EQ(out[r * cfg.columns() + c].dx, -2 * 4);
      EXPECT_EQ(out[r * cfg.columns() + c].dy, 0);
    }
}

/* Noise threshold: blocks whose zero-motion SAD is within C per pixel are
 * reported as zero with the suppressed flag and the zero-motion cost;
 * others keep their vector. */
TEST(Threshold, SuppressesOnlyStaticBlocks) {
  Frame a = make_texture(128, 64, 128, 4);
  Frame b = a;
  /* Left half: static plus +-1 noise. Right half: moved by 3 px. */
  std::mt19937 rng(9);
  for (int y = 0; y < 64; ++y)
    for (int x = 0; x < 64; ++x)
      b.at(x, y) =
          static_cast<uint8_t>(std::clamp<int>(a.at(x, y) + int(rng() % 3) - 1, 0, 255));
  for (int y = 0; y < 64; ++y)
    for (int x = 64; x < 128; ++x) b.at(x, y) = a.at(std::max(x - 3, 64), y);
  const BlockMatchConfig cfg = config(128, 64, 16, 16, 4, 4, 1, Direction::kBackward);
  BlockMatchRuntime rt;
  rt.threshold = 1.5;
  const auto out = run_cpu(a, b, cfg, rt);
  expect_same(run_ref(a, b, cfg, rt), out, "threshold");
  for (int r = 0; r < cfg.rows(); ++r) {
    for (int c = 0; c < 4; ++c) {
      const BlockVector& v = out[r * cfg.columns() + c];
      EXPECT_EQ(v.flags, match::kFlagSuppressed);
      EXPECT_EQ(v.dx, 0);
      EXPECT_EQ(v.dy, 0);
      EXPECT_LE(v.cost, 1.5 * 256);
    }
    for (int c = 5; c < 8; ++c) {
      const BlockVector& v = out[r * cfg.columns() + c];
      EXPECT_EQ(v.flags, 0u);
      EXPECT_EQ(v.dx, -3 * 4);
    }
  }
  /* Off: no block is suppressed. */
  for (const auto& v : run_cpu(a, b, cfg, BlockMatchRuntime())) EXPECT_EQ(v.flags, 0u);
}

/* The result must not depend on the thread count. */
TEST(State, ThreadCountDoesNotMatter) {
  const Frame a = make_texture(200, 120, 208, 21), b = make_texture(200, 120, 208, 22);
  const BlockMatchConfig cfg = config(200, 120, 8, 8, 6, 6, 2, Direction::kForward);
  BlockMatchRuntime one, many;
  one.threads = 1;
  many.threads = 4;
  expect_same(run_cpu(a, b, cfg, one), run_cpu(a, b, cfg, many), "threads");
}

/* reconfigure() keeps the reference frame; reset() drops it. */
TEST(State, ReconfigureKeepsReferenceResetDropsIt) {
  const Frame a = make_texture(96, 64, 96, 31);
  const Frame b = shifted(a, 2, 1);
  const Frame c = shifted(b, 2, 1);
  BlockMatchConfig cfg = config(96, 64, 16, 16, 4, 4, 1, Direction::kBackward);
  std::unique_ptr<BlockMatcher> m;
  ASSERT_TRUE(BlockMatcher::create(match::Backend::kCpu, cfg, &m).is_ok());
  std::vector<BlockVector> out(cfg.num_blocks());
  bool est = false;
  ASSERT_TRUE(m->process(a.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_FALSE(est);

  BlockMatchConfig cfg2 = config(96, 64, 8, 8, 6, 5, 2, Direction::kForward);
  ASSERT_TRUE(m->reconfigure(cfg2).is_ok());
  out.assign(cfg2.num_blocks(), BlockVector());
  ASSERT_TRUE(m->process(b.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_TRUE(est);
  expect_same(run_ref(a, b, cfg2, BlockMatchRuntime()), out, "after reconfigure");

  m->reset();
  ASSERT_TRUE(m->process(c.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_FALSE(est);
  for (const auto& v : out) EXPECT_EQ(v.flags, match::kFlagNoEstimate);

  BlockMatchConfig other = cfg2;
  other.width = 80;
  EXPECT_FALSE(m->reconfigure(other).is_ok());
}

TEST(Api, RejectsBadConfigAndFrames) {
  std::unique_ptr<BlockMatcher> m;
  EXPECT_EQ(BlockMatcher::create(match::Backend::kCpu,
                                 config(0, 10, 16, 16, 4, 4, 1, Direction::kForward), &m)
                .code(),
            match::StatusCode::kInvalidArgument);
  EXPECT_EQ(BlockMatcher::create(match::Backend::kCpu,
                                 config(64, 64, 16, 16, 4, 4, 3, Direction::kForward), &m)
                .code(),
            match::StatusCode::kInvalidArgument);
  EXPECT_EQ(
      BlockMatcher::create(match::Backend::kCpu,
                           config(64, 64, 300, 16, 4, 4, 1, Direction::kForward), &m)
          .code(),
      match::StatusCode::kInvalidArgument);
  /* A failure about one setting names its field; the frame size none. */
  EXPECT_EQ(config(64, 64, 16, 16, 4, 4, 3, Direction::kForward).validate().field(),
            "subpel");
  EXPECT_EQ(config(64, 64, 300, 16, 4, 4, 1, Direction::kForward).validate().field(),
            "block_width");
  EXPECT_EQ(config(0, 10, 16, 16, 4, 4, 1, Direction::kForward).validate().field(), "");
  ASSERT_TRUE(BlockMatcher::create(match::Backend::kCpu,
                                   config(64, 64, 16, 16, 4, 4, 1, Direction::kForward),
                                   &m)
                  .is_ok());
  const Frame wrong = make_frame(32, 32, 32, 1);
  std::vector<BlockVector> out(16);
  bool est;
  EXPECT_FALSE(m->process(wrong.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
}

/* Without a CUDA build, backend=cuda fails with kUnavailable and auto
 * falls back to the CPU. */
TEST(Api, BackendSelection) {
  std::unique_ptr<BlockMatcher> m;
  const BlockMatchConfig cfg = config(64, 64, 16, 16, 4, 4, 1, Direction::kForward);
  ASSERT_TRUE(BlockMatcher::create(match::Backend::kAuto, cfg, &m).is_ok());
  if (!match::backend_available(match::Backend::kCuda)) {
    EXPECT_EQ(m->backend(), match::Backend::kCpu);
    EXPECT_EQ(BlockMatcher::create(match::Backend::kCuda, cfg, &m).code(),
              match::StatusCode::kUnavailable);
  }
}

TEST(Api, IsaDetection) {
  /* The override can only lower the instruction set. */
  {
    IsaGuard g("scalar");
    EXPECT_EQ(match::cpu::detect_isa(), match::cpu::Isa::kScalar);
  }
  const match::cpu::Isa best = match::cpu::detect_isa();
  printf("CPU backend ISA: %s\n", match::cpu::isa_name(best));
}

/* ---- The fast search methods (match/blockmatch.h), reference level; the
 * CPU backend is compared with the reference exactly in
 * test_blockmatch_fast.cpp ---- */

namespace {

const match::SearchMethod kFastMethods[] = {
    match::SearchMethod::kHierarchical, match::SearchMethod::kThreeStep,
    match::SearchMethod::kDiamond, match::SearchMethod::kHexagon,
    match::SearchMethod::kPredictive};

/* A smooth texture: low-frequency waves (periods 37..70 px, phases from
 * `seed`), so the SAD rises steadily away from the true shift over more
 * than 10 px: the unimodal landscape that the descent searches assume. */
Frame make_smooth(int w, int h, int stride, unsigned seed) {
  Frame f = make_frame(w, h, stride, seed);
  const double a = 0.7 * seed, b = 1.3 * seed + 1, c = 2.1 * seed + 2;
  const double tau = 6.283185307179586;
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double v = 128 + 50 * std::sin(tau * x / 70 + a) +
                       50 * std::sin(tau * y / 58 + b) +
                       18 * std::sin(tau * (x - y) / 37 + c);
      f.at(x, y) = static_cast<uint8_t>(std::lround(v));
    }
  return f;
}

std::vector<BlockVector> run_fast_ref(const Frame& a, const Frame& b,
                                      const BlockMatchConfig& cfg,
                                      const BlockMatchRuntime& rt,
                                      const BlockVector* previous = nullptr) {
  std::vector<BlockVector> out(cfg.num_blocks());
  const match::Status st =
      match::ref::block_match(a.view(), b.view(), cfg, rt, out.data(), previous);
  EXPECT_TRUE(st.is_ok()) << st.message();
  return out;
}

}  // namespace

/* A shift that each method's first pattern reaches is found exactly (cost 0,
 * all interior blocks, both directions, the sub-pixel stage keeping it) on
 * noise, where no other candidate comes close: hierarchical anywhere in the
 * range, three-step at its first step m0 = (max range + 1) / 2, the descents
 * and the predictive search (cold start) at their first pattern. */
TEST(FastSearch, FindsAShiftItsPatternReaches) {
  const Frame a = make_frame(192, 160, 197, 41);
  struct Case {
    match::SearchMethod m;
    int sx, sy;
  };
  const Case cases[] = {
      {match::SearchMethod::kHierarchical, 11, -9},
      {match::SearchMethod::kHierarchical, -5, 7},
      {match::SearchMethod::kThreeStep, 6, -6},
      {match::SearchMethod::kThreeStep, 0, 6},
      {match::SearchMethod::kDiamond, 2, 0},
      {match::SearchMethod::kDiamond, -1, 1},
      {match::SearchMethod::kHexagon, 1, -2},
      {match::SearchMethod::kHexagon, -2, 0},
      {match::SearchMethod::kPredictive, 0, 1},
  };
  for (const Case& k : cases) {
    const Frame b = shifted(a, k.sx, k.sy);
    for (Direction dir : {Direction::kForward, Direction::kBackward})
      for (int subpel : {1, 4}) {
        BlockMatchConfig cfg = config(192, 160, 16, 16, 12, 10, subpel, dir);
        cfg.method = k.m;
        const auto out = run_fast_ref(a, b, cfg, BlockMatchRuntime());
        const int sign = dir == Direction::kForward ? 1 : -1;
        int wrong = 0;
        for (int r = 1; r < cfg.rows() - 1; ++r)
          for (int c = 1; c < cfg.columns() - 1; ++c) {
            const BlockVector& v = out[r * cfg.columns() + c];
            if (v.dx != sign * k.sx * 4 || v.dy != sign * k.sy * 4 || v.cost != 0)
              ++wrong;
          }
        EXPECT_EQ(wrong, 0) << match::search_method_name(k.m) << " shift (" << k.sx << ","
                            << k.sy << ") subpel " << subpel;
      }
  }
}

/* Larger shifts of a real image: hierarchical (exhaustive at the coarsest
 * level) finds every textured block; the descents stop where the SAD
 * landscape has a local minimum for their pattern (e.g. the hexagon's small
 * pattern misses a diagonal neighbour), so their share of exact blocks is
 * printed and bounded below at what they reach now. */
TEST(FastSearch, LargerShiftsOfARealImage) {
  Frame a;
  ASSERT_TRUE(load_pgm(files_dir() + "/yosemite-yos9-crop.pgm", &a));
  struct Case {
    match::SearchMethod m;
    double min_share;
  };
  /* Bounds: the lowest share measured over both shifts (2026-11-23) less
   * 0.1; full search, the ceiling (the sky's flat blocks fail it too), is
   * printed for scale. */
  const Case cases[] = {
      {match::SearchMethod::kFull, 0.7},      {match::SearchMethod::kHierarchical, 0.7},
      {match::SearchMethod::kThreeStep, 0.3}, {match::SearchMethod::kDiamond, 0.3},
      {match::SearchMethod::kHexagon, 0.19},  {match::SearchMethod::kPredictive, 0.65}};
  for (auto [sx, sy] : {std::pair{5, -3}, std::pair{-7, 6}}) {
    const Frame b = shifted(a, sx, sy);
    for (const Case& k : cases) {
      BlockMatchConfig cfg = config(a.w, a.h, 16, 16, 12, 10, 1, Direction::kForward);
      cfg.method = k.m;
      const auto out = run_fast_ref(a, b, cfg, BlockMatchRuntime());
      int exact = 0, interior = 0;
      for (int r = 1; r < cfg.rows() - 1; ++r)
        for (int c = 1; c < cfg.columns() - 1; ++c) {
          const BlockVector& v = out[r * cfg.columns() + c];
          ++interior;
          exact += v.dx == sx * 4 && v.dy == sy * 4;
        }
      const double share = double(exact) / interior;
      std::printf("  %-12s shift (%d, %d): %d of %d interior blocks exact (%.0f %%)\n",
                  match::search_method_name(k.m), sx, sy, exact, interior, 100 * share);
      EXPECT_GE(share, k.min_share) << match::search_method_name(k.m);
    }
  }
}

/* Every vector lies in the range, whatever the frames (random noise, where
 * the descents wander), and the threshold suppresses as for full search. */
TEST(FastSearch, RangeAndThreshold) {
  const Frame a = make_frame(101, 77, 107, 5), b = make_frame(101, 77, 103, 6);
  for (match::SearchMethod m : kFastMethods)
    for (int subpel : {1, 2, 4}) {
      BlockMatchConfig cfg = config(101, 77, 12, 9, 5, 3, subpel, Direction::kForward);
      cfg.method = m;
      cfg.levels = 4;
      cfg.predictors = 2;
      for (const BlockVector& v : run_fast_ref(a, b, cfg, BlockMatchRuntime())) {
        EXPECT_LE(std::abs(v.dx), 5 * 4) << match::search_method_name(m);
        EXPECT_LE(std::abs(v.dy), 3 * 4) << match::search_method_name(m);
        EXPECT_EQ(v.flags, 0u);
      }
      /* the same frame twice, threshold 1: everything suppressed at v = 0 */
      BlockMatchRuntime rt;
      rt.threshold = 1.0;
      for (const BlockVector& v : run_fast_ref(a, a, cfg, rt)) {
        EXPECT_EQ(v.flags, match::kFlagSuppressed);
        EXPECT_EQ(v.dx, 0);
        EXPECT_EQ(v.cost, 0u);
      }
    }
}

/* The fast methods never beat full search's cost (it is the minimum), and
 * reach it on a smooth texture moved by less than the descent reach. */
TEST(FastSearch, NeverBelowFullSearch) {
  const Frame a = make_smooth(128, 96, 128, 9);
  Frame b = shifted(a, 3, 2);
  for (int y = 0; y < b.h; y += 7) b.at(y % b.w, y) ^= 0x55; /* a few outliers */
  BlockMatchConfig full = config(128, 96, 16, 16, 8, 8, 2, Direction::kBackward);
  const auto ref_full = run_fast_ref(a, b, full, BlockMatchRuntime());
  for (match::SearchMethod m : kFastMethods) {
    BlockMatchConfig cfg = full;
    cfg.method = m;
    const auto out = run_fast_ref(a, b, cfg, BlockMatchRuntime());
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_GE(out[i].cost, ref_full[i].cost) << match::search_method_name(m);
  }
}

/* Predictive: the previous frame's vectors are predictors; with them a
 * shift is found at once that a cold start does not look for: on faint
 * noise (0..3 grey levels) (0, 0) is within early-stop, so a cold start
 * takes neither the coarse predictor nor a descent. (On strong noise the
 * coarse predictor finds the shift cold: FastSearch.PredictiveCoarse*.) */
TEST(FastSearch, PredictiveUsesThePreviousField) {
  Frame a = make_frame(160, 128, 160, 77);
  for (int y = 0; y < a.h; ++y)
    for (int x = 0; x < a.w; ++x)
      a.at(x, y) = static_cast<uint8_t>(100 + (a.at(x, y) & 3));
  const Frame b = shifted(a, 10, -6);
  BlockMatchConfig cfg = config(160, 128, 16, 16, 12, 12, 1, Direction::kBackward);
  cfg.method = match::SearchMethod::kPredictive;
  const auto cold = run_fast_ref(a, b, cfg, BlockMatchRuntime());
  std::vector<BlockVector> prev(cfg.num_blocks(), BlockVector{-40, 24, 0, 0});
  const auto warm = run_fast_ref(a, b, cfg, BlockMatchRuntime(), prev.data());
  int cold_ok = 0, warm_ok = 0;
  for (int r = 1; r < cfg.rows() - 1; ++r)
    for (int c = 1; c < cfg.columns() - 1; ++c) {
      const int i = r * cfg.columns() + c;
      cold_ok += cold[i].dx == -40 && cold[i].dy == 24;
      warm_ok += warm[i].dx == -40 && warm[i].dy == 24 && warm[i].cost == 0;
    }
  EXPECT_EQ(warm_ok, (cfg.rows() - 2) * (cfg.columns() - 2));
  EXPECT_LT(cold_ok, warm_ok) << cold_ok; /* the predictor mattered */
}

/* Predictive's coarse predictor (quarter resolution): on a cold start a
 * shift of a texture that the full-resolution descents from (0, 0) miss in
 * some blocks is found in every block. */
TEST(FastSearch, PredictiveCoarseFindsLargeShiftsCold) {
  const Frame a = make_texture(160, 128, 160, 77);
  const Frame b = shifted(a, 9, -7);
  BlockMatchConfig cfg = config(160, 128, 16, 16, 12, 12, 1, Direction::kBackward);
  cfg.method = match::SearchMethod::kPredictive;
  BlockMatchConfig dia = cfg;
  dia.method = match::SearchMethod::kDiamond;
  const auto pred = run_fast_ref(a, b, cfg, BlockMatchRuntime());
  const auto desc = run_fast_ref(a, b, dia, BlockMatchRuntime());
  int pred_ok = 0, desc_ok = 0, n = 0;
  for (int r = 1; r < cfg.rows() - 1; ++r)
    for (int c = 1; c < cfg.columns() - 1; ++c) {
      const int i = r * cfg.columns() + c;
      ++n;
      pred_ok += pred[i].dx == -36 && pred[i].dy == 28 && pred[i].cost == 0;
      desc_ok += desc[i].dx == -36 && desc[i].dy == 28;
    }
  EXPECT_EQ(pred_ok, n);
  EXPECT_LT(desc_ok, n) << "the descents alone find it too: no test";
}

TEST(FastSearch, ConfigValidation) {
  BlockMatchConfig cfg = config(64, 64, 16, 16, 8, 8, 1, Direction::kForward);
  cfg.method = match::SearchMethod::kHierarchical;
  EXPECT_TRUE(cfg.validate().is_ok());
  cfg.levels = 1;
  EXPECT_FALSE(cfg.validate().is_ok());
  cfg.levels = match::kMaxLevels + 1;
  EXPECT_FALSE(cfg.validate().is_ok());
  cfg.levels = 3;
  cfg.predictors = 0;
  EXPECT_FALSE(cfg.validate().is_ok());
  cfg.method = static_cast<match::SearchMethod>(17);
  EXPECT_FALSE(cfg.validate().is_ok());
  /* levels and predictors only matter to the hierarchical search */
  BlockMatchConfig d1 = config(64, 64, 16, 16, 8, 8, 1, Direction::kForward), d2 = d1;
  d1.method = d2.method = match::SearchMethod::kDiamond;
  d2.levels = 5;
  EXPECT_TRUE(d1 == d2);
  d1.method = d2.method = match::SearchMethod::kHierarchical;
  EXPECT_FALSE(d1 == d2);
  EXPECT_STREQ(match::search_method_name(match::SearchMethod::kHexagon), "hexagon");
}
