/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA backend against the reference and the CPU backend: identical vectors,
 * costs and flags on random data with odd sizes and padded strides, on every
 * sub-pel grid, both directions, thresholds, ties, a real frame pair, frame
 * sequences, pipelined submit()/collect(), several engines (parallel and
 * serial split; the same GPU listed twice exercises the multi-GPU code on a
 * one-GPU machine), reconfigure/reset, device errors, and frames given in
 * device memory (submit_device()). Every CUDA test is
 * skipped where no CUDA device is usable; the pipelining tests of the
 * default (CPU) implementation always run.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#ifdef MATCH_TEST_CUDART
#include <cuda_runtime_api.h> /* device frames for submit_device() */

#include "../common/collected_frame_check.h"
#endif

#include "match/blockmatch.h"
#include "../common/blockmatch_testutil.h"
#include "../common/frame.h"
#include "../common/pgm.h"

using match::Backend;
using match::BlockMatchConfig;
using match::BlockMatcher;
using match::BlockMatchRuntime;
using match::BlockVector;
using match::DeviceOptions;
using match::Direction;
using match::ImageView;
using match::MultiGpuMode;

namespace {

Frame make_noise(int w, int h, int stride, unsigned seed) {
  return make_noise_frame(w, h, stride, seed);
}

/* Smooth texture moved by (sx, sy) plus noise: realistic cost surfaces. */
Frame make_scene(int w, int h, int stride, unsigned seed, int sx, int sy, int noise) {
  Frame base = make_noise(w + 64, h + 64, w + 64, seed);
  Frame f = make_noise(w, h, stride, seed * 7 + 1); /* stride padding = garbage */
  std::mt19937 rng(seed * 13 + sx * 5 + sy);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int bx = std::clamp(x - sx + 32, 0, w + 60),
                by = std::clamp(y - sy + 32, 0, h + 60);
      int v = box3_mean(base, bx, by) +
              (noise ? static_cast<int>(rng() % (2 * noise + 1)) - noise : 0);
      f.at(x, y) = static_cast<uint8_t>(std::clamp(v, 0, 255));
    }
  return f;
}

using bmtest::config;

std::string describe(const BlockMatchConfig& c) {
  char buf[200];
  snprintf(buf, sizeof buf, "%dx%d blk %dx%d rng %d/%d 1/%d %s", c.width, c.height,
           c.block_width, c.block_height, c.range_x, c.range_y, c.subpel,
           c.direction == Direction::kForward ? "fwd" : "bwd");
  return buf;
}

bool have_gpu() { return match::cuda_device_count() > 0; }

#define REQUIRE_GPU()                                                     \
  do {                                                                    \
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: CUDA test skipped"; \
  } while (0)

/* Runs a sequence through a matcher; returns the vectors of every frame
 * after the first. */
std::vector<std::vector<BlockVector>> run(Backend be, const BlockMatchConfig& cfg,
                                          const std::vector<const Frame*>& frames,
                                          const BlockMatchRuntime& rt,
                                          const DeviceOptions& dev = DeviceOptions()) {
  std::unique_ptr<BlockMatcher> m;
  match::Status st = BlockMatcher::create(be, cfg, &m, dev);
  EXPECT_TRUE(st.is_ok()) << st.message();
  std::vector<std::vector<BlockVector>> res;
  if (!m) return res;
  EXPECT_EQ(m->backend(), be);
  std::vector<BlockVector> out(cfg.num_blocks());
  for (size_t i = 0; i < frames.size(); ++i) {
    bool est = false;
    st = m->process(frames[i]->view(), rt, out.data(), &est);
    EXPECT_TRUE(st.is_ok()) << st.message();
    EXPECT_EQ(est, i > 0);
    if (i > 0) res.push_back(out);
  }
  return res;
}

void expect_same(const std::vector<BlockVector>& want,
                 const std::vector<BlockVector>& got, const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    if (want[i].dx != got[i].dx || want[i].dy != got[i].dy ||
        want[i].cost != got[i].cost || want[i].flags != got[i].flags) {
      if (++bad <= 5)
        ADD_FAILURE() << what << " block " << i << ": want (" << want[i].dx << ","
                      << want[i].dy << ") cost " << want[i].cost << " flags "
                      << want[i].flags << ", got (" << got[i].dx << "," << got[i].dy
                      << ") cost " << got[i].cost << " flags " << got[i].flags;
    }
  }
  EXPECT_EQ(bad, 0) << what << ": " << bad << " of " << want.size() << " blocks differ";
}

std::vector<BlockVector> ref(const Frame& a, const Frame& b, const BlockMatchConfig& cfg,
                             const BlockMatchRuntime& rt) {
  std::vector<BlockVector> out(cfg.num_blocks());
  match::Status st = match::ref::block_match(a.view(), b.view(), cfg, rt, out.data());
  EXPECT_TRUE(st.is_ok()) << st.message();
  return out;
}

struct Case {
  int w, h, stride, bw, bh, rx, ry, subpel;
  bool noise; /* pure noise (many near-ties) instead of a moving texture */
};

class CudaVsRef : public ::testing::TestWithParam<Case> {};

}  // namespace

/* Odd sizes, padded strides, blocks from 1 px to wider than a chunk, partial
 * edge blocks, ranges from 0, every grid, both directions: exact. */
TEST_P(CudaVsRef, IdenticalVectors) {
  REQUIRE_GPU();
  const Case k = GetParam();
  const Frame a = k.noise ? make_noise(k.w, k.h, k.stride, 11)
                          : make_scene(k.w, k.h, k.stride, 11, 0, 0, 2);
  const Frame b = k.noise ? make_noise(k.w, k.h, k.stride, 12)
                          : make_scene(k.w, k.h, k.stride, 11, 3, -2, 2);
  for (Direction dir : {Direction::kBackward, Direction::kForward}) {
    const BlockMatchConfig cfg = config(k.w, k.h, k.bw, k.bh, k.rx, k.ry, k.subpel, dir);
    BlockMatchRuntime rt;
    const auto want = ref(a, b, cfg, rt);
    const auto got = run(Backend::kCuda, cfg, {&a, &b}, rt);
    ASSERT_EQ(got.size(), 1u);
    expect_same(want, got[0], describe(cfg));
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, CudaVsRef,
                         ::testing::Values(Case{67, 45, 80, 16, 16, 7, 5, 1, false},
                                           Case{67, 45, 67, 8, 8, 4, 4, 2, false},
                                           Case{61, 37, 64, 7, 5, 3, 6, 4, false},
                                           Case{53, 41, 60, 13, 9, 5, 3, 2, true},
                                           Case{40, 30, 40, 1, 1, 2, 2, 1, true},
                                           Case{33, 29, 48, 3, 2, 0, 0, 1, false},
                                           Case{35, 27, 35, 4, 4, 0, 3, 4, false},
                                           Case{90, 70, 96, 36, 24, 9, 6, 2, false},
                                           Case{100, 64, 100, 20, 12, 17, 9, 1, true},
                                           Case{9, 7, 16, 16, 16, 5, 5, 2, false},
                                           Case{150, 40, 160, 48, 16, 40, 4, 1, false},
                                           Case{64, 48, 64, 17, 19, 6, 6, 4, true}));

/* Larger frames and ranges against the CPU backend (itself tested against
 * the reference in test_blockmatch.cpp), several frames in sequence. */
struct BigCase {
  int w, h, bw, bh, rx, ry, subpel;
};
class CudaVsCpu : public ::testing::TestWithParam<BigCase> {};

TEST_P(CudaVsCpu, SequenceIdentical) {
  REQUIRE_GPU();
  const BigCase k = GetParam();
  const int stride = k.w + 13;
  std::vector<Frame> f;
  for (int i = 0; i < 4; ++i) f.push_back(make_scene(k.w, k.h, stride, 5, 2 * i, -i, 3));
  std::vector<const Frame*> fp;
  for (auto& x : f) fp.push_back(&x);
  for (Direction dir : {Direction::kBackward, Direction::kForward}) {
    const BlockMatchConfig cfg = config(k.w, k.h, k.bw, k.bh, k.rx, k.ry, k.subpel, dir);
    BlockMatchRuntime rt;
    rt.threshold = 1.5;
    const auto want = run(Backend::kCpu, cfg, fp, rt);
    const auto got = run(Backend::kCuda, cfg, fp, rt);
    ASSERT_EQ(want.size(), got.size());
    for (size_t i = 0; i < want.size(); ++i)
      expect_same(want[i], got[i], describe(cfg) + " frame " + std::to_string(i + 1));
  }
}

INSTANTIATE_TEST_SUITE_P(Sizes, CudaVsCpu,
                         ::testing::Values(BigCase{321, 243, 16, 16, 16, 16, 1},
                                           BigCase{321, 243, 16, 16, 16, 16, 2},
                                           BigCase{257, 131, 8, 8, 16, 16, 4},
                                           BigCase{400, 240, 36, 24, 36, 24, 2},
                                           BigCase{480, 270, 96, 54, 48, 27, 2},
                                           BigCase{300, 200, 16, 16, 64, 40, 1}));

TEST(CudaReal, TaxiPairMatchesCpu) {
  REQUIRE_GPU();
  const char* dir = std::getenv("GST_TEST_FILES_PATH");
  const std::string base = dir ? dir : "tests/files";
  Frame a, b;
  ASSERT_TRUE(pgm_read(base + "/taxi01.pgm", &a.w, &a.h, &a.data));
  ASSERT_TRUE(pgm_read(base + "/taxi02.pgm", &b.w, &b.h, &b.data));
  a.stride = a.w;
  b.stride = b.w;
  for (int subpel : {1, 2, 4}) {
    const BlockMatchConfig cfg =
        config(a.w, a.h, 8, 8, 8, 8, subpel, Direction::kBackward);
    BlockMatchRuntime rt;
    const auto want = ref(a, b, cfg, rt);
    const auto got = run(Backend::kCuda, cfg, {&a, &b}, rt);
    ASSERT_EQ(got.size(), 1u);
    expect_same(want, got[0], "taxi " + describe(cfg));
  }
}

/* Flat frames: every candidate costs the same, so the tie rules alone pick
 * v = 0; a flat frame with one bright column makes symmetric ties. */
TEST(CudaTies, SameAsReference) {
  REQUIRE_GPU();
  Frame a = make_noise(48, 40, 48, 1), b = a;
  for (auto& p : a.data) p = 100;
  for (auto& p : b.data) p = 100;
  for (int y = 0; y < 40; ++y) b.at(20, y) = 200;
  for (int subpel : {1, 2, 4}) {
    const BlockMatchConfig cfg = config(48, 40, 8, 8, 4, 4, subpel, Direction::kBackward);
    const auto want = ref(a, b, cfg, BlockMatchRuntime());
    const auto got = run(Backend::kCuda, cfg, {&a, &b}, BlockMatchRuntime());
    ASSERT_EQ(got.size(), 1u);
    expect_same(want, got[0], "ties " + describe(cfg));
  }
}

TEST(CudaThreshold, SameAsReference) {
  REQUIRE_GPU();
  const Frame a = make_scene(96, 64, 100, 3, 0, 0, 1);
  const Frame b = make_scene(96, 64, 100, 3, 1, 0, 1);
  const BlockMatchConfig cfg = config(96, 64, 16, 16, 4, 4, 2, Direction::kBackward);
  for (double thr : {0.5, 2.0, 8.0, 40.0}) {
    BlockMatchRuntime rt;
    rt.threshold = thr;
    const auto want = ref(a, b, cfg, rt);
    const auto got = run(Backend::kCuda, cfg, {&a, &b}, rt);
    ASSERT_EQ(got.size(), 1u);
    expect_same(want, got[0], "threshold " + std::to_string(thr));
  }
}

namespace {
/* submit() depth frames ahead of collect(): same results as process(). */
void check_pipelined(Backend be, const DeviceOptions& dev, int depth, const char* what) {
  const int w = 203, h = 117;
  std::vector<Frame> f;
  for (int i = 0; i < 12; ++i) f.push_back(make_scene(w, h, 208, 9, i % 5, -(i % 3), 2));
  std::vector<const Frame*> fp;
  for (auto& x : f) fp.push_back(&x);
  const BlockMatchConfig cfg = config(w, h, 16, 8, 8, 6, 2, Direction::kBackward);
  const auto want = run(Backend::kCpu, cfg, fp, BlockMatchRuntime());

  std::unique_ptr<BlockMatcher> m;
  match::Status st = BlockMatcher::create(be, cfg, &m, dev);
  ASSERT_TRUE(st.is_ok()) << st.message();
  ASSERT_GE(m->max_in_flight(), depth + 1);
  std::vector<BlockVector> out(cfg.num_blocks());
  size_t next = 0; /* next frame whose results we expect */
  for (size_t i = 0; i < f.size(); ++i) {
    ASSERT_TRUE(m->submit(f[i].view(), BlockMatchRuntime()).is_ok());
    while (m->in_flight() > depth) {
      bool est = false;
      ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
      EXPECT_EQ(est, next > 0);
      if (next > 0)
        expect_same(want[next - 1], out,
                    std::string(what) + " frame " + std::to_string(next));
      ++next;
    }
  }
  while (m->in_flight() > 0) {
    bool est = false;
    ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
    if (next > 0)
      expect_same(want[next - 1], out,
                  std::string(what) + " drain " + std::to_string(next));
    ++next;
  }
  EXPECT_EQ(next, f.size());
  /* collect() with nothing in flight is an error, not a hang. */
  bool est;
  EXPECT_FALSE(m->collect(out.data(), &est).is_ok());
}
}  // namespace

TEST(Pipeline, CpuSubmitCollect) {
  for (int depth : {0, 1, 3, 7})
    check_pipelined(Backend::kCpu, DeviceOptions(), depth, "cpu");
}

TEST(Pipeline, CudaSubmitCollect) {
  REQUIRE_GPU();
  for (int depth : {0, 1, 2, 7})
    check_pipelined(Backend::kCuda, DeviceOptions(), depth, "cuda");
}

/* Two engines on device 0 (or 0 and 1 where there are two GPUs). */
TEST(MultiGpu, ParallelAndSerialIdentical) {
  REQUIRE_GPU();
  DeviceOptions dev;
  dev.devices = {0, match::cuda_device_count() > 1 ? 1 : 0};
  for (MultiGpuMode mode : {MultiGpuMode::kParallel, MultiGpuMode::kSerial}) {
    dev.mode = mode;
    const char* what = mode == MultiGpuMode::kParallel ? "parallel" : "serial";
    for (int depth : {0, 1, 3}) check_pipelined(Backend::kCuda, dev, depth, what);
  }
  /* Three engines, serial: each frame goes to two of them. */
  dev.devices = {0, 0, 0};
  dev.mode = MultiGpuMode::kSerial;
  check_pipelined(Backend::kCuda, dev, 2, "serial x3");
}

TEST(CudaState, ReconfigureKeepsReferenceResetDropsIt) {
  REQUIRE_GPU();
  const Frame a = make_scene(120, 80, 128, 4, 0, 0, 1);
  const Frame b = make_scene(120, 80, 128, 4, 2, 1, 1);
  const BlockMatchConfig c1 = config(120, 80, 16, 16, 4, 4, 1, Direction::kBackward);
  const BlockMatchConfig c2 = config(120, 80, 8, 8, 12, 6, 4, Direction::kForward);
  std::unique_ptr<BlockMatcher> m;
  ASSERT_TRUE(BlockMatcher::create(Backend::kCuda, c1, &m).is_ok());
  std::vector<BlockVector> out(c2.num_blocks());
  bool est = true;
  ASSERT_TRUE(m->process(a.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_FALSE(est);
  ASSERT_TRUE(m->reconfigure(c2).is_ok());
  ASSERT_TRUE(m->process(b.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_TRUE(est);
  expect_same(ref(a, b, c2, BlockMatchRuntime()), out, "after reconfigure");
  EXPECT_GE(m->stats().kernel_ms, 0.0);
  m->reset();
  ASSERT_TRUE(m->process(a.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_FALSE(est);
  for (const auto& v : out) EXPECT_EQ(v.flags, match::kFlagNoEstimate);
  ASSERT_TRUE(m->process(b.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_TRUE(est);
  expect_same(ref(a, b, c2, BlockMatchRuntime()), out, "after reset");
  /* Reconfigure with frames in flight is refused, not silently wrong. */
  ASSERT_TRUE(m->submit(a.view(), BlockMatchRuntime()).is_ok());
  EXPECT_FALSE(m->reconfigure(c1).is_ok());
  EXPECT_TRUE(m->collect(out.data(), &est).is_ok());
}

TEST(CudaApi, DevicesAndErrors) {
  const int n = match::cuda_device_count();
  printf("CUDA devices: %d\n", n);
  for (int i = 0; i < n; ++i) printf("  %d: %s\n", i, match::cuda_device_name(i).c_str());
  const BlockMatchConfig cfg = config(64, 48, 16, 16, 4, 4, 1, Direction::kBackward);
  std::unique_ptr<BlockMatcher> m;
  if (n == 0) {
    EXPECT_EQ(BlockMatcher::create(Backend::kCuda, cfg, &m).code(),
              match::StatusCode::kUnavailable);
    ASSERT_TRUE(BlockMatcher::create(Backend::kAuto, cfg, &m).is_ok());
    EXPECT_EQ(m->backend(), Backend::kCpu);
    return;
  }
  ASSERT_TRUE(BlockMatcher::create(Backend::kAuto, cfg, &m).is_ok());
  EXPECT_EQ(m->backend(), Backend::kCuda);
  EXPECT_EQ(m->description().rfind("cuda:0", 0), 0u) << m->description();
  DeviceOptions dev;
  dev.devices = {n + 3};
  match::Status st = BlockMatcher::create(Backend::kCuda, cfg, &m, dev);
  EXPECT_EQ(st.code(), match::StatusCode::kUnavailable) << st.message();
  /* The largest configuration either runs or is refused cleanly. */
  const BlockMatchConfig big =
      config(600, 600, 256, 256, 256, 256, 1, Direction::kBackward);
  st = BlockMatcher::create(Backend::kCuda, big, &m);
  if (st.is_ok()) {
    printf("256x256 blocks, +-256: runs on this GPU\n");
  } else {
    EXPECT_EQ(st.code(), match::StatusCode::kUnavailable) << st.message();
  }
}

/* ---- The fast searches (blockmatch_fast.cu) --------------------------------------
 * The CUDA vectors must equal the CPU backend's (itself equal to the
 * reference, test_blockmatch_fast.cpp) and the reference's, exactly, over
 * 4-frame sequences (kPredictive uses the previous pair's field). */

using match::SearchMethod;

namespace {

/* Runs `seq` through a matcher: one field per pair. */
std::vector<std::vector<BlockVector>> run_seq(
    Backend be, const BlockMatchConfig& cfg, const std::vector<Frame>& seq,
    const BlockMatchRuntime& rt, const DeviceOptions& dev = DeviceOptions()) {
  std::vector<const Frame*> fp;
  for (const Frame& f : seq) fp.push_back(&f);
  return run(be, cfg, fp, rt, dev);
}

void expect_same_seq(const std::vector<std::vector<BlockVector>>& want,
                     const std::vector<std::vector<BlockVector>>& got,
                     const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t i = 0; i < want.size(); ++i)
    expect_same(want[i], got[i], what + " pair " + std::to_string(i));
}

std::string describe_fast(const BlockMatchConfig& c, double threshold) {
  char buf[300];
  snprintf(buf, sizeof buf, "%s %s L%d P%d C=%.1f", match::search_method_name(c.method),
           describe(c).c_str(), c.levels, c.predictors, threshold);
  return buf;
}

const SearchMethod kFast[] = {SearchMethod::kHierarchical, SearchMethod::kThreeStep,
                              SearchMethod::kDiamond, SearchMethod::kHexagon,
                              SearchMethod::kPredictive};

struct FastCudaCase {
  int w, h, stride, bw, bh, rx, ry, subpel;
  bool texture;
};

}  // namespace

class CudaFastVsCpu : public ::testing::TestWithParam<FastCudaCase> {};

/* Every fast method, both directions, threshold off and on, hierarchical
 * with several level and predictor counts; the first configuration of each
 * method against the reference too. */
TEST_P(CudaFastVsCpu, IdenticalVectors) {
  REQUIRE_GPU();
  const FastCudaCase p = GetParam();
  const auto seq = bmtest::make_sequence(p.w, p.h, p.stride, 4, p.texture,
                                         static_cast<unsigned>(p.w * 17 + p.h), 2);
  const int lp[][2] = {{2, 1}, {3, 4}, {4, 2}, {5, 16}, {2, 7}};
  bool first = true;
  for (Direction dir : {Direction::kBackward, Direction::kForward}) {
    for (double threshold : {0.0, 1.5}) {
      BlockMatchRuntime rt;
      rt.threshold = threshold;
      std::vector<BlockMatchConfig> cfgs;
      for (SearchMethod m : kFast)
        cfgs.push_back(config(p.w, p.h, p.bw, p.bh, p.rx, p.ry, p.subpel, dir, m));
      for (const auto& q : lp)
        cfgs.push_back(config(p.w, p.h, p.bw, p.bh, p.rx, p.ry, p.subpel, dir,
                              SearchMethod::kHierarchical, q[0], q[1]));
      /* kPredictive with every pass count, the early stop off (2 passes),
       * low (3) and high (4: most blocks good enough, no descent); the
       * last pass's rate term by passes too: off (2), 4 (3: J near its 29
       * bits on big blocks), the default (4) */
      for (int passes = 2; passes <= match::kMaxPasses; ++passes) {
        BlockMatchConfig c = config(p.w, p.h, p.bw, p.bh, p.rx, p.ry, p.subpel, dir,
                                    SearchMethod::kPredictive);
        c.passes = passes;
        cfgs.push_back(c);
      }
      for (const BlockMatchConfig& cfg : cfgs) {
        const double stops[3] = {3.0, 24.0, 0.0}; /* by passes % 3 */
        const double rates[3] = {4.0, 1.0, 0.0};
        const bool pred = cfg.method == SearchMethod::kPredictive;
        rt.predictive_stop = pred ? stops[cfg.passes % 3] : 0.0;
        rt.predictive_rate = pred ? rates[cfg.passes % 3] : 0.0;
        const std::string what = describe_fast(cfg, threshold) + " passes " +
                                 std::to_string(cfg.passes) + " stop " +
                                 std::to_string(rt.predictive_stop) + " rate " +
                                 std::to_string(rt.predictive_rate);
        const auto got = run_seq(Backend::kCuda, cfg, seq, rt);
        expect_same_seq(run_seq(Backend::kCpu, cfg, seq, rt), got, what + " vs cpu");
        if (first) expect_same_seq(bmtest::run_ref(seq, cfg, rt), got, what + " vs ref");
        if (HasFailure()) return;
      }
      first = false;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sizes, CudaFastVsCpu,
    ::testing::Values(
        FastCudaCase{97, 61, 112, 16, 16, 7, 5, 1, true},
        FastCudaCase{97, 61, 104, 8, 8, 12, 9, 2, true},
        FastCudaCase{203, 150, 224, 32, 32, 10, 24, 4, true}, /* rx != ry, quarter-pel */
        FastCudaCase{61, 45, 64, 4, 4, 6, 3, 4, true},        /* 4x4 blocks */
        FastCudaCase{77, 53, 80, 13, 7, 5, 8, 1, false},      /* odd block, noise */
        FastCudaCase{150, 97, 160, 48, 40, 12, 10, 2, true},  /* wide blocks */
        FastCudaCase{45, 31, 48, 17, 9, 9, 9, 2, true},       /* 17 wide: tail of 1 */
        FastCudaCase{37, 29, 40, 16, 16, 0, 0, 2, true},      /* range 0 */
        FastCudaCase{5, 3, 16, 16, 16, 3, 3, 2, false},       /* smaller than a block */
        FastCudaCase{1, 1, 1, 1, 1, 1, 1, 4, false},          /* 1x1 */
        FastCudaCase{640, 480, 640, 16, 16, 64, 32, 4, true}, /* paper [B]'s case */
        FastCudaCase{300, 200, 304, 96, 80, 40, 40, 1, true}
        /* big blocks, rows of 24 words */
        ));

/* Full HD (the textured sequence), every method, quarter-pel, +-32. */
TEST(CudaFast, FullHdEqualsCpu) {
  REQUIRE_GPU();
  const auto seq = bmtest::make_sequence(1920, 1080, 1920, 3, true, 5, 4);
  for (SearchMethod m : kFast) {
    const BlockMatchConfig cfg =
        config(1920, 1080, 16, 16, 32, 32, 4, Direction::kBackward, m);
    expect_same_seq(run_seq(Backend::kCpu, cfg, seq, BlockMatchRuntime()),
                    run_seq(Backend::kCuda, cfg, seq, BlockMatchRuntime()),
                    describe_fast(cfg, 0));
  }
}

TEST(CudaFast, TaxiPairEqualsReference) {
  REQUIRE_GPU();
  const char* dir = std::getenv("GST_TEST_FILES_PATH");
  const std::string base = dir ? dir : "tests/files";
  std::vector<Frame> seq(2);
  ASSERT_TRUE(pgm_read(base + "/taxi01.pgm", &seq[0].w, &seq[0].h, &seq[0].data));
  ASSERT_TRUE(pgm_read(base + "/taxi02.pgm", &seq[1].w, &seq[1].h, &seq[1].data));
  seq[0].stride = seq[0].w;
  seq[1].stride = seq[1].w;
  for (SearchMethod m : kFast) {
    const BlockMatchConfig cfg =
        config(seq[0].w, seq[0].h, 8, 8, 12, 12, 2, Direction::kBackward, m);
    expect_same_seq(bmtest::run_ref(seq, cfg, BlockMatchRuntime()),
                    run_seq(Backend::kCuda, cfg, seq, BlockMatchRuntime()),
                    "taxi " + describe_fast(cfg, 0));
  }
}

/* kPredictive on real frames with a previous field: taxi 1, 2, 1 (a real
 * motion, then its reverse, so the second pair's temporal predictors are
 * wrong and the spatial passes must correct them), 16x16 and odd 8x8
 * blocks on the odd-sized frame, every early stop kind (off, the default,
 * one that takes most descents away), the rate term off, the default and
 * an odd step, integer and half-pel: the reference, the CPU and CUDA agree
 * on every pair. */
TEST(CudaFast, PredictiveTaxiSequenceEqualsReference) {
  REQUIRE_GPU();
  const char* dir = std::getenv("GST_TEST_FILES_PATH");
  const std::string base = dir ? dir : "tests/files";
  std::vector<Frame> seq(3);
  ASSERT_TRUE(pgm_read(base + "/taxi01.pgm", &seq[0].w, &seq[0].h, &seq[0].data));
  ASSERT_TRUE(pgm_read(base + "/taxi02.pgm", &seq[1].w, &seq[1].h, &seq[1].data));
  seq[2] = seq[0];
  for (Frame& f : seq) f.stride = f.w;
  for (int bs : {16, 8})
    for (int subpel : {1, 2})
      for (double stop : {0.0, 2.0, 24.0})
        for (double rate : {0.0, 1.0, 0.203}) {
          const Direction dir = bs == 8 ? Direction::kBackward : Direction::kForward;
          BlockMatchConfig cfg = config(seq[0].w, seq[0].h, bs, bs, 16, 12, subpel, dir,
                                        SearchMethod::kPredictive);
          BlockMatchRuntime rt;
          rt.predictive_stop = stop;
          rt.predictive_rate = rate;
          const std::string what = "taxi 1 2 1 " + describe_fast(cfg, 0) + " stop " +
                                   std::to_string(stop) + " rate " + std::to_string(rate);
          const auto got = run_seq(Backend::kCuda, cfg, seq, rt);
          expect_same_seq(bmtest::run_ref(seq, cfg, rt), got, what + " vs ref");
          expect_same_seq(run_seq(Backend::kCpu, cfg, seq, rt), got, what + " vs cpu");
          if (HasFailure()) return;
        }
}

/* kPredictive's coarse predictor on a two-frame input where it decides:
 * a texture moved within the range (found by the coarse predictor where
 * the descents from (0, 0) miss it) and beyond it (the search ends at the
 * range's edge or elsewhere, by level-2 SADs), 16x16 and 8x8 blocks, the
 * early stop off and the default, integer and half-pel: the reference,
 * the CPU and CUDA agree. */
TEST(CudaFast, PredictiveCoarseLargeShiftsEqualReference) {
  REQUIRE_GPU();
  const Frame a = bmtest::make_sequence(203, 150, 208, 1, true, 41, 0)[0];
  const int shifts[2][2] = {{9, -7}, {-23, 5}};
  for (const auto& shift : shifts) {
    Frame b = a;
    for (int y = 0; y < a.h; ++y)
      for (int x = 0; x < a.w; ++x)
        b.at(x, y) = a.at(std::clamp(x - shift[0], 0, a.w - 1),
                          std::clamp(y - shift[1], 0, a.h - 1));
    const std::vector<Frame> seq = {a, b};
    for (int bs : {16, 8})
      for (int subpel : {1, 2})
        for (double stop : {0.0, 2.0}) {
          BlockMatchConfig cfg = config(a.w, a.h, bs, bs, 12, 10, subpel,
                                        Direction::kForward, SearchMethod::kPredictive);
          BlockMatchRuntime rt;
          rt.predictive_stop = stop;
          const std::string what =
              "shift " + std::to_string(shift[0]) + "," + std::to_string(shift[1]) + " " +
              describe_fast(cfg, 0) + " stop " + std::to_string(stop);
          const auto got = run_seq(Backend::kCuda, cfg, seq, rt);
          expect_same_seq(bmtest::run_ref(seq, cfg, rt), got, what + " vs ref");
          expect_same_seq(run_seq(Backend::kCpu, cfg, seq, rt), got, what + " vs cpu");
          if (HasFailure()) return;
        }
  }
}

/* Several engines (the same GPU listed several times where there is one):
 * every method equals the CPU, kPredictive included, whose engines fetch
 * the previous field's rows from each other (parallel: 2^(passes - 1)
 * block rows of halo; serial: the whole field from the previous pair's
 * engine), with the default and the largest pass count. Small
 * frames give engines of one block row or none. */
TEST(CudaFast, SeveralEnginesEqualCpu) {
  REQUIRE_GPU();
  const int n = match::cuda_device_count();
  struct Split {
    std::vector<int> devices;
    MultiGpuMode mode;
  };
  const Split splits[] = {{{0, n > 1 ? 1 : 0}, MultiGpuMode::kParallel},
                          {{0, 0, 0}, MultiGpuMode::kParallel},
                          {{0, 0, 0, 0, 0}, MultiGpuMode::kParallel},
                          {{0, n > 1 ? 1 : 0}, MultiGpuMode::kSerial},
                          {{0, 0, 0}, MultiGpuMode::kSerial}};
  const int sizes[][2] = {{160, 120}, {64, 40}};
  for (const auto& sz : sizes) {
    const auto seq = bmtest::make_sequence(sz[0], sz[1], sz[0] + 8, 7, true, 31, 2);
    std::vector<BlockMatchConfig> cfgs;
    for (SearchMethod m : kFast)
      cfgs.push_back(config(sz[0], sz[1], 8, 8, 10, 7, 2, Direction::kBackward, m));
    /* kPredictive's largest halo: 2^(passes - 1) - 1 rows per pass 1 */
    cfgs.push_back(cfgs.back());
    cfgs.back().passes = match::kMaxPasses;
    for (const BlockMatchConfig& cfg : cfgs) {
      const auto want = run_seq(Backend::kCpu, cfg, seq, BlockMatchRuntime());
      for (const Split& s : splits) {
        DeviceOptions dev;
        dev.devices = s.devices;
        dev.mode = s.mode;
        expect_same_seq(
            want, run_seq(Backend::kCuda, cfg, seq, BlockMatchRuntime(), dev),
            describe_fast(cfg, 0) +
                (s.mode == MultiGpuMode::kSerial ? " serial " : " parallel ") +
                std::to_string(s.devices.size()));
        if (HasFailure()) return;
      }
    }
  }
}

/* Pipelined submit()/collect() with frames in flight: the same fields
 * (kPredictive's chain of fields stays on the device). */
TEST(CudaFast, PipelinedEqualsProcess) {
  REQUIRE_GPU();
  const auto seq = bmtest::make_sequence(176, 144, 192, 10, true, 3, 2);
  for (SearchMethod m : kFast) {
    const BlockMatchConfig cfg =
        config(176, 144, 16, 16, 12, 12, 4, Direction::kBackward, m);
    const auto want = run_seq(Backend::kCpu, cfg, seq, BlockMatchRuntime());
    for (int depth : {1, 3, 7}) {
      std::unique_ptr<BlockMatcher> mt;
      ASSERT_TRUE(BlockMatcher::create(Backend::kCuda, cfg, &mt).is_ok());
      std::vector<BlockVector> out(cfg.num_blocks());
      size_t next = 0;
      auto take = [&] {
        bool est = false;
        ASSERT_TRUE(mt->collect(out.data(), &est).is_ok());
        EXPECT_EQ(est, next > 0);
        if (next > 0)
          expect_same(want[next - 1], out,
                      describe_fast(cfg, 0) + " depth " + std::to_string(depth) +
                          " frame " + std::to_string(next));
        ++next;
      };
      for (const Frame& f : seq) {
        ASSERT_TRUE(mt->submit(f.view(), BlockMatchRuntime()).is_ok());
        while (mt->in_flight() > depth) take();
      }
      while (mt->in_flight() > 0) take();
      EXPECT_EQ(next, seq.size());
    }
  }
}

/* kPredictive's state on CUDA follows the CPU backend's rules: reset()
 * drops the previous field, a reconfigure() of the range or sub-pel grid
 * keeps it, one of the block size, direction or method drops it. The same
 * operations on both backends give the same fields. */
TEST(CudaFast, PredictiveStateLikeCpu) {
  REQUIRE_GPU();
  const int w = 101, h = 67;
  const auto seq = bmtest::make_sequence(w, h, 112, 8, true, 77, 3);
  std::unique_ptr<BlockMatcher> mc, mg;
  BlockMatchConfig cfg =
      config(w, h, 8, 8, 8, 6, 2, Direction::kBackward, SearchMethod::kPredictive);
  ASSERT_TRUE(BlockMatcher::create(Backend::kCpu, cfg, &mc).is_ok());
  ASSERT_TRUE(BlockMatcher::create(Backend::kCuda, cfg, &mg).is_ok());
  int step_no = 0;
  auto step = [&](int i) {
    std::vector<BlockVector> a(mc->config().num_blocks()), b(mg->config().num_blocks());
    bool ea = false, eb = false;
    EXPECT_TRUE(mc->process(seq[i].view(), BlockMatchRuntime(), a.data(), &ea).is_ok());
    EXPECT_TRUE(mg->process(seq[i].view(), BlockMatchRuntime(), b.data(), &eb).is_ok());
    EXPECT_EQ(ea, eb);
    expect_same(a, b,
                "step " + std::to_string(step_no++) + " frame " + std::to_string(i));
  };
  auto reconf = [&](const BlockMatchConfig& c) {
    ASSERT_TRUE(mc->reconfigure(c).is_ok());
    ASSERT_TRUE(mg->reconfigure(c).is_ok());
  };
  for (int i = 0; i < 3; ++i) step(i);
  cfg.range_x = 5;
  cfg.range_y = 9;
  cfg.subpel = 4;
  reconf(cfg); /* kept */
  step(3);
  mc->reset();
  mg->reset();
  step(4);
  step(5);
  cfg.block_width = 12;
  reconf(cfg); /* dropped */
  step(6);
  step(7);
  cfg.direction = Direction::kForward;
  reconf(cfg); /* dropped */
  step(6);
  cfg.method = SearchMethod::kHexagon;
  reconf(cfg);
  step(5);
  cfg.method = SearchMethod::kPredictive;
  reconf(cfg); /* nothing to keep */
  step(4);
  step(3);
}

/* A method change on a live CUDA matcher (full <-> fast) works in place;
 * hierarchical and predictive build the kept frame's reduced levels. */
TEST(CudaFast, ReconfigureBetweenFullAndFast) {
  REQUIRE_GPU();
  const auto seq = bmtest::make_sequence(128, 96, 128, 5, true, 8, 2);
  BlockMatchConfig cfg = config(128, 96, 16, 16, 16, 16, 2, Direction::kBackward);
  std::unique_ptr<BlockMatcher> m;
  ASSERT_TRUE(BlockMatcher::create(Backend::kCuda, cfg, &m).is_ok());
  std::vector<BlockVector> out(cfg.num_blocks());
  bool est = false;
  ASSERT_TRUE(m->process(seq[0].view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  const SearchMethod order[] = {SearchMethod::kHierarchical, SearchMethod::kFull,
                                SearchMethod::kDiamond, SearchMethod::kPredictive};
  for (int i = 0; i < 4; ++i) {
    cfg.method = order[i];
    ASSERT_TRUE(m->reconfigure(cfg).is_ok());
    ASSERT_TRUE(
        m->process(seq[i + 1].view(), BlockMatchRuntime(), out.data(), &est).is_ok());
    EXPECT_TRUE(est);
    std::vector<Frame> pair = {seq[i], seq[i + 1]};
    expect_same(bmtest::run_ref(pair, cfg, BlockMatchRuntime())[0], out,
                describe_fast(cfg, 0) + " after reconfigure");
  }
}

/* ---- submit_device(): frames already in device memory ------------------ */

/* Backends without device input refuse it and stay usable (no GPU needed:
 * the pointer is never dereferenced). */
TEST(DeviceInput, CpuRefusesDeviceFrames) {
  const BlockMatchConfig cfg = config(64, 48, 16, 16, 4, 4, 1, Direction::kBackward);
  std::unique_ptr<BlockMatcher> m;
  ASSERT_TRUE(BlockMatcher::create(Backend::kCpu, cfg, &m).is_ok());
  static const uint8_t dummy[1] = {0};
  match::DeviceImageView v;
  v.data = dummy;
  v.width = 64;
  v.height = 48;
  v.pitch_bytes = 64;
  const match::Status st = m->submit_device(v, BlockMatchRuntime());
  EXPECT_EQ(st.code(), match::StatusCode::kUnsupported) << st.message();
  EXPECT_EQ(m->in_flight(), 0);
  const Frame a = make_scene(64, 48, 64, 1, 0, 0, 1);
  std::vector<BlockVector> out(cfg.num_blocks());
  bool est = true;
  EXPECT_TRUE(m->process(a.view(), BlockMatchRuntime(), out.data(), &est).is_ok());
  EXPECT_FALSE(est);
  EXPECT_EQ(match::cuda_primary_context(-1), nullptr);
  match::DeviceImageView kept;
  EXPECT_FALSE(m->collected_frame(0, &kept)); /* no frame on a GPU */
}

#ifdef MATCH_TEST_CUDART
namespace {

/* A frame copied into pitched device memory (cudaMallocPitch) on `device`,
 * as a GPU decoder's pool would hold it. */
struct DeviceFrame {
  void* p = nullptr;
  size_t pitch = 0;
  int device = 0;
  int w = 0, h = 0;
  DeviceFrame(const Frame& f, int dev) : device(dev), w(f.w), h(f.h) {
    EXPECT_EQ(cudaSetDevice(dev), cudaSuccess);
    EXPECT_EQ(cudaMallocPitch(&p, &pitch, f.w, f.h), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy2D(p, pitch, f.data.data(), f.stride, f.w, f.h, cudaMemcpyHostToDevice),
        cudaSuccess);
    /* A copy from pageable memory may return before its DMA is done; a
     * producer hands over finished frames (BlockMatcher::submit_device()). */
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceFrame() {
    cudaSetDevice(device);
    cudaFree(p);
  }
  DeviceFrame(const DeviceFrame&) = delete;
  DeviceFrame& operator=(const DeviceFrame&) = delete;
  match::DeviceImageView view() const {
    match::DeviceImageView v;
    v.data = static_cast<const uint8_t*>(p);
    v.width = w;
    v.height = h;
    v.pitch_bytes = static_cast<std::ptrdiff_t>(pitch);
    v.device = device;
    return v;
  }
};

/* The vectors of every frame after the first, frames fed through
 * submit_device() from `src_device` with up to `depth` frames in flight. */
std::vector<std::vector<BlockVector>> run_device(
    const BlockMatchConfig& cfg, const std::vector<Frame>& frames,
    const BlockMatchRuntime& rt, int depth, int src_device,
    const DeviceOptions& dev = DeviceOptions()) {
  std::vector<std::unique_ptr<DeviceFrame>> dframes;
  for (const Frame& f : frames) dframes.emplace_back(new DeviceFrame(f, src_device));
  std::unique_ptr<BlockMatcher> m;
  match::Status st = BlockMatcher::create(Backend::kCuda, cfg, &m, dev);
  EXPECT_TRUE(st.is_ok()) << st.message();
  std::vector<std::vector<BlockVector>> res;
  if (!m) return res;
  std::vector<BlockVector> out(cfg.num_blocks());
  size_t collected = 0;
  auto collect_one = [&]() {
    bool est = false;
    match::Status s = m->collect(out.data(), &est);
    EXPECT_TRUE(s.is_ok()) << s.message();
    EXPECT_EQ(est, collected > 0);
    if (collected++ > 0) res.push_back(out);
  };
  for (size_t i = 0; i < frames.size(); ++i) {
    st = m->submit_device(dframes[i]->view(), rt);
    EXPECT_TRUE(st.is_ok()) << st.message();
    if (!st) return res;
    while (m->in_flight() > depth) collect_one();
  }
  while (m->in_flight() > 0) collect_one();
  return res;
}

std::vector<std::vector<BlockVector>> run_host(const BlockMatchConfig& cfg,
                                               const std::vector<Frame>& frames,
                                               const BlockMatchRuntime& rt) {
  std::vector<const Frame*> ptrs;
  for (const Frame& f : frames) ptrs.push_back(&f);
  return run(Backend::kCuda, cfg, ptrs, rt);
}

void expect_same_runs(const std::vector<std::vector<BlockVector>>& want,
                      const std::vector<std::vector<BlockVector>>& got,
                      const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  for (size_t f = 0; f < want.size(); ++f)
    expect_same(want[f], got[f], what + " frame " + std::to_string(f + 1));
}

}  // namespace

/* collected_frame(): the matcher's own device copy of each collected frame
 * (what the decision's change stage reads), from host and device input,
 * full search and a fast method, odd sizes. */
TEST(DeviceInput, CollectedFrameIsTheFrame) {
  REQUIRE_GPU();
  for (const BlockMatchConfig& cfg :
       {config(131, 77, 16, 16, 4, 4, 1, Direction::kBackward),
        config(320, 240, 16, 16, 8, 8, 2, Direction::kForward, SearchMethod::kDiamond)}) {
    const std::vector<Frame> seq =
        bmtest::make_sequence(cfg.width, cfg.height, cfg.width + 5, 9, true, 31, 2);
    std::unique_ptr<BlockMatcher> m;
    ASSERT_TRUE(BlockMatcher::create(Backend::kCuda, cfg, &m).is_ok());
    collectedtest::check<BlockVector>(m.get(), seq, cfg.num_blocks(),
                                      BlockMatchRuntime());
    /* Device input lands in the same copy. */
    m->reset();
    DeviceFrame d(seq[3], 0);
    ASSERT_TRUE(m->submit_device(d.view(), BlockMatchRuntime()).is_ok());
    std::vector<BlockVector> out(cfg.num_blocks());
    bool est = true;
    ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
    match::DeviceImageView v;
    ASSERT_TRUE(m->collected_frame(0, &v));
    collectedtest::expect_frame(v, seq[3], "device input");
  }
}

/* A pitched device frame gives submit()'s vectors on its host copy: odd
 * sizes (the pitch is cudaMallocPitch's), every grid, both directions, the
 * fast methods, pipelined, several engines; a frame on another GPU (peer
 * copy) where there are two. */
TEST(DeviceInput, SubmitDeviceEqualsSubmit) {
  REQUIRE_GPU();
  BlockMatchRuntime rt;
  rt.threshold = 1.0;
  struct DCase {
    int w, h, stride;
    BlockMatchConfig cfg;
  };
  const DCase cases[] = {
      {631, 479, 640, config(631, 479, 16, 16, 8, 8, 1, Direction::kBackward)},
      {631, 479, 640, config(631, 479, 16, 8, 6, 5, 2, Direction::kForward)},
      {200, 130, 256, config(200, 130, 8, 8, 4, 4, 4, Direction::kBackward)},
      {320, 240, 320,
       config(320, 240, 16, 16, 16, 16, 2, Direction::kBackward,
              SearchMethod::kHierarchical)},
      {320, 240, 333,
       config(320, 240, 16, 16, 12, 12, 2, Direction::kBackward,
              SearchMethod::kPredictive)},
  };
  for (const DCase& c : cases) {
    const std::vector<Frame> seq =
        bmtest::make_sequence(c.w, c.h, c.stride, 5, true, 21, 2);
    const auto want = run_host(c.cfg, seq, rt);
    const std::string what =
        describe(c.cfg) + " " + match::search_method_name(c.cfg.method);
    for (int depth : {0, 2})
      expect_same_runs(want, run_device(c.cfg, seq, rt, depth, 0),
                       what + " depth " + std::to_string(depth));
    DeviceOptions two;
    two.devices = {0, 0};
    for (MultiGpuMode mode : {MultiGpuMode::kParallel, MultiGpuMode::kSerial}) {
      two.mode = mode;
      expect_same_runs(
          want, run_device(c.cfg, seq, rt, 1, 0, two),
          what + (mode == MultiGpuMode::kParallel ? " 0,0 parallel" : " 0,0 serial"));
    }
    if (match::cuda_device_count() > 1) {
      /* The frame on GPU 1: a peer copy into GPU 0, and both GPUs sharing. */
      expect_same_runs(want, run_device(c.cfg, seq, rt, 1, 1), what + " from cuda:1");
      DeviceOptions both;
      both.devices = {0, 1};
      expect_same_runs(want, run_device(c.cfg, seq, rt, 1, 0, both),
                       what + " 0,1 parallel");
    }
  }
}

/* Host and device frames mixed in one sequence, and bad device frames
 * refused without disturbing the matcher. */
TEST(DeviceInput, MixedAndErrors) {
  REQUIRE_GPU();
  const BlockMatchConfig cfg = config(160, 120, 16, 16, 6, 6, 2, Direction::kBackward);
  const std::vector<Frame> seq = bmtest::make_sequence(160, 120, 176, 4, true, 5, 2);
  const auto want = run_host(cfg, seq, BlockMatchRuntime());
  std::unique_ptr<BlockMatcher> m;
  ASSERT_TRUE(BlockMatcher::create(Backend::kCuda, cfg, &m).is_ok());
  std::vector<BlockVector> out(cfg.num_blocks());
  bool est = false;
  for (size_t i = 0; i < seq.size(); ++i) {
    if (i % 2) {
      DeviceFrame d(seq[i], 0);
      match::DeviceImageView bad = d.view();
      bad.width = 100;
      EXPECT_EQ(m->submit_device(bad, BlockMatchRuntime()).code(),
                match::StatusCode::kInvalidArgument);
      bad = d.view();
      bad.device = 63;
      EXPECT_EQ(m->submit_device(bad, BlockMatchRuntime()).code(),
                match::StatusCode::kUnsupported);
      EXPECT_EQ(m->in_flight(), 0);
      ASSERT_TRUE(m->submit_device(d.view(), BlockMatchRuntime()).is_ok());
    } else {
      ASSERT_TRUE(m->submit(seq[i].view(), BlockMatchRuntime()).is_ok());
    }
    /* d is gone here: submit_device() must have finished reading it. */
    ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
    EXPECT_EQ(est, i > 0);
    if (i > 0) expect_same(want[i - 1], out, "mixed frame " + std::to_string(i));
  }
}

/* The primary context: one handle per device, the one current after
 * cudaSetDevice(); none for devices that do not exist. */
TEST(DeviceInput, PrimaryContext) {
  REQUIRE_GPU();
  void* a = match::cuda_primary_context(0);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(match::cuda_primary_context(0), a);
  EXPECT_EQ(match::cuda_primary_context(match::cuda_device_count()), nullptr);
  if (match::cuda_device_count() > 1) {
    EXPECT_NE(match::cuda_primary_context(1), a);
  }
}
#endif /* MATCH_TEST_CUDART */
