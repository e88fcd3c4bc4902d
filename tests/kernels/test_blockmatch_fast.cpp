/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The fast search methods (kHierarchical, kThreeStep, kDiamond, kHexagon,
 * kPredictive) of the optimised CPU backend against the plain reference,
 * exactly (dx, dy, cost, flags): odd frame sizes, padded strides, partial
 * edge blocks, non-square blocks, unequal ranges, every sub-pel grid, both
 * directions, threshold on and off, every instruction-set path and thread
 * counts 1 and 4, over 4-frame sequences (kPredictive: the reference is fed
 * its previous output). Then kPredictive's state across reset() and
 * reconfigure(), ties, and a known shift.
 *
 * The full cross product (every size case x direction x threshold x
 * hierarchical setting x instruction set) takes minutes on two cores, too
 * close to meson's timeout on a busy CI machine. By default each size case
 * runs a rotating share of it, so that every direction, threshold,
 * levels/predictors pair and instruction-set path still runs on several
 * size cases; MATCH_TEST_EXHAUSTIVE=1 runs all of it.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

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
using match::SearchMethod;

namespace {

using bmtest::make_sequence;
using bmtest::run_ref;

std::vector<std::vector<BlockVector>> run_cpu(const std::vector<Frame>& seq,
                                              const BlockMatchConfig& cfg,
                                              const BlockMatchRuntime& rt) {
  std::unique_ptr<BlockMatcher> m;
  const match::Status st = BlockMatcher::create(match::Backend::kCpu, cfg, &m);
  EXPECT_TRUE(st.is_ok()) << st.message();
  std::vector<std::vector<BlockVector>> out;
  if (!m) return out;
  for (size_t i = 0; i < seq.size(); ++i) {
    std::vector<BlockVector> v(cfg.num_blocks());
    bool estimated = false;
    EXPECT_TRUE(m->process(seq[i].view(), rt, v.data(), &estimated).is_ok());
    EXPECT_EQ(estimated, i > 0);
    if (i > 0) out.push_back(std::move(v));
  }
  return out;
}

/* Number of differing blocks; the first few reported. */
int compare(const std::vector<BlockVector>& want, const std::vector<BlockVector>& got,
            const std::string& what) {
  EXPECT_EQ(want.size(), got.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < std::min(want.size(), got.size()); ++i) {
    if (want[i].dx != got[i].dx || want[i].dy != got[i].dy ||
        want[i].cost != got[i].cost || want[i].flags != got[i].flags) {
      if (++bad <= 3)
        ADD_FAILURE() << what << " block " << i << ": ref (" << want[i].dx << ","
                      << want[i].dy << ") cost " << want[i].cost << " flags "
                      << want[i].flags << " vs cpu (" << got[i].dx << "," << got[i].dy
                      << ") cost " << got[i].cost << " flags " << got[i].flags;
    }
  }
  return bad;
}

int differing(const std::vector<BlockVector>& a, const std::vector<BlockVector>& b) {
  int n = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i)
    n += a[i].dx != b[i].dx || a[i].dy != b[i].dy;
  return n;
}

void expect_same(const std::vector<std::vector<BlockVector>>& want,
                 const std::vector<std::vector<BlockVector>>& got,
                 const std::string& what) {
  ASSERT_EQ(want.size(), got.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < want.size(); ++i)
    bad += compare(want[i], got[i], what + " pair " + std::to_string(i));
  EXPECT_EQ(bad, 0) << what;
}

using bmtest::config;

std::string describe(const BlockMatchConfig& c, const BlockMatchRuntime& rt,
                     const char* isa) {
  char buf[256];
  snprintf(buf, sizeof buf,
           "%s %dx%d blk %dx%d rng %d/%d 1/%d %s L%d P%d passes %d stop %.1f rate %.3f "
           "C=%.1f threads %d isa=%s",
           match::search_method_name(c.method), c.width, c.height, c.block_width,
           c.block_height, c.range_x, c.range_y, c.subpel,
           c.direction == Direction::kForward ? "fwd" : "bwd", c.levels, c.predictors,
           c.passes, rt.predictive_stop, rt.predictive_rate, rt.threshold, rt.threads,
           isa ? isa : "best");
  return buf;
}

/* N of this parameterised test's name "IdenticalVectors/N". */
int case_index() {
  const char* name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
  const char* slash = strrchr(name, '/');
  return slash ? atoi(slash + 1) : 0;
}

bool exhaustive() {
  const char* e = getenv("MATCH_TEST_EXHAUSTIVE");
  return e && *e && strcmp(e, "0") != 0;
}

/* Every checked configuration: the reference once, then the CPU backend
 * with the best ISA at 4 threads and, in turn (`turn`), at 1 thread or on
 * the SSE2 or scalar path; all four when exhaustive. */
void check_config(const std::vector<Frame>& seq, const BlockMatchConfig& cfg,
                  double threshold, int turn, double predictive_stop = 0.0,
                  double predictive_rate = 0.0) {
  BlockMatchRuntime rt;
  rt.threshold = threshold;
  rt.predictive_stop = predictive_stop;
  rt.predictive_rate = predictive_rate;
  const auto want = run_ref(seq, cfg, rt);
  struct Run {
    const char* isa;
    int threads;
  };
  const Run runs[] = {{nullptr, 4}, {nullptr, 1}, {"sse2", 2}, {"scalar", 2}};
  for (int i = 0; i < 4; ++i) {
    if (i > 0 && !exhaustive() && i != 1 + turn % 3) continue;
    const Run& r = runs[i];
    IsaGuard guard(r.isa);
    rt.threads = r.threads;
    expect_same(want, run_cpu(seq, cfg, rt), describe(cfg, rt, r.isa));
  }
}

struct FastCase {
  int w, h, stride, bw, bh, rx, ry, subpel;
  bool texture;
};

const SearchMethod kFastMethods[] = {SearchMethod::kThreeStep, SearchMethod::kDiamond,
                                     SearchMethod::kHexagon, SearchMethod::kPredictive};

}  // namespace

class FastVsRef : public ::testing::TestWithParam<FastCase> {};

/* Every fast method, both directions, threshold off and on; the
 * hierarchical search with levels 2..5 and predictors 1..8 and 16. By
 * default a case runs two of the four direction/threshold pairs and three
 * of the nine levels/predictors pairs, each case other ones (see top). */
TEST_P(FastVsRef, IdenticalVectors) {
  const FastCase p = GetParam();
  const int index = case_index();
  const int frames = 4;
  const auto seq = make_sequence(p.w, p.h, p.stride, frames, p.texture,
                                 static_cast<unsigned>(p.w * 31 + p.h));
  const int lp[][2] = {{2, 1}, {3, 2}, {4, 3}, {5, 4}, {2, 5},
                       {3, 6}, {4, 7}, {5, 8}, {3, 16}};
  const int n_lp = sizeof lp / sizeof lp[0];
  int turn = index;
  for (Direction dir : {Direction::kForward, Direction::kBackward}) {
    for (double threshold : {0.0, 1.5}) {
      /* Pairs (fwd, 0), (bwd, 1.5) on even cases, the other two on odd. */
      const bool diagonal = (dir == Direction::kForward) == (threshold == 0.0);
      if (!exhaustive() && diagonal != (index % 2 == 0)) continue;
      for (SearchMethod m : kFastMethods) {
        BlockMatchConfig c = config(p.w, p.h, p.bw, p.bh, p.rx, p.ry, p.subpel, dir, m);
        /* kPredictive: passes 2..4, the early stop off, low and high
         * (24: most blocks good enough somewhere, no descent), and the
         * rate term off, the default, an odd step and the largest (4: J
         * near its 29 bits on big blocks), in turn */
        c.passes = 2 + (index + turn) % 3;
        const double stops[3] = {0.0, 3.0, 24.0};
        const double rates[4] = {0.0, 1.0, 0.203, 4.0};
        const bool pred = m == SearchMethod::kPredictive;
        check_config(seq, c, threshold, turn, pred ? stops[turn % 3] : 0.0,
                     pred ? rates[(index + turn / 4) % 4] : 0.0);
        ++turn;
      }
      for (int k = 0; k < n_lp; ++k) {
        /* Three consecutive pairs per case, from 3 x index on. */
        if (!exhaustive() && (k - 3 * index % n_lp + n_lp) % n_lp >= 3) continue;
        check_config(seq,
                     config(p.w, p.h, p.bw, p.bh, p.rx, p.ry, p.subpel, dir,
                            SearchMethod::kHierarchical, lp[k][0], lp[k][1]),
                     threshold, turn++);
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    OddSizes, FastVsRef,
    ::testing::Values(
        FastCase{97, 61, 112, 16, 16, 7, 5, 1, true},
        FastCase{97, 61, 104, 8, 8, 12, 9, 2, true},
        FastCase{203, 150, 208, 16, 8, 24, 16, 1, true},  /* range 24 */
        FastCase{203, 150, 224, 32, 32, 10, 24, 4, true}, /* 2 chunks, rx != ry */
        FastCase{61, 45, 64, 4, 4, 6, 3, 4, true},        /* 4x4, quarter-pel */
        FastCase{77, 53, 80, 13, 7, 5, 8, 1, false},      /* odd block, noise */
        FastCase{83, 45, 96, 24, 20, 4, 3, 2, true},      /* partial 2-chunk */
        FastCase{150, 97, 160, 48, 40, 12, 10, 2, true},  /* 3 chunks */
        FastCase{45, 31, 48, 17, 9, 9, 9, 2, true},       /* 17 wide: tail of 1 */
        FastCase{50, 37, 64, 5, 12, 3, 1, 4, false},
        FastCase{37, 29, 40, 16, 16, 0, 0, 2, true}, /* range 0 */
        FastCase{33, 21, 40, 32, 4, 16, 2, 1, true}, /* partial, wide range */
        FastCase{5, 3, 16, 16, 16, 3, 3, 2, false},  /* smaller than a block */
        FastCase{1, 1, 1, 1, 1, 1, 1, 4, false}));   /* 1x1 */

/* kPredictive on real frames with a previous field: taxi 1, 2, 1 (a real
 * motion, then its reverse, so the second pair's temporal predictors are
 * wrong and the spatial passes must correct them), 16x16 and 8x8 blocks on
 * the odd-sized frame, the early stop off, the default and one that takes
 * most descents away, the rate term off, the default and the largest,
 * integer and half-pel, 1 and 2 threads. */
TEST(Predictive, TaxiSequenceEqualsReference) {
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
        for (double rate : {0.0, 1.0, 4.0}) {
          const BlockMatchConfig cfg =
              config(seq[0].w, seq[0].h, bs, bs, 16, 12, subpel,
                     bs == 8 ? Direction::kBackward : Direction::kForward,
                     SearchMethod::kPredictive);
          BlockMatchRuntime rt;
          rt.predictive_stop = stop;
          rt.predictive_rate = rate;
          rt.threads = subpel; /* 1 and 2 */
          expect_same(run_ref(seq, cfg, rt), run_cpu(seq, cfg, rt),
                      describe(cfg, rt, "taxi 1 2 1"));
        }
}

/* kPredictive's rate term: it changes vectors (taxi, 16x16, two frames),
 * and the cost reported is still the SAD of the reported vector (equal to
 * full search's cost on the blocks where both give the same vector). */
TEST(Predictive, RateTermChangesVectorsKeepsSad) {
  const char* dir = std::getenv("GST_TEST_FILES_PATH");
  const std::string base = dir ? dir : "tests/files";
  std::vector<Frame> seq(2);
  ASSERT_TRUE(pgm_read(base + "/taxi01.pgm", &seq[0].w, &seq[0].h, &seq[0].data));
  ASSERT_TRUE(pgm_read(base + "/taxi02.pgm", &seq[1].w, &seq[1].h, &seq[1].data));
  for (Frame& f : seq) f.stride = f.w;
  const BlockMatchConfig cfg = config(seq[0].w, seq[0].h, 16, 16, 16, 12, 1,
                                      Direction::kForward, SearchMethod::kPredictive);
  BlockMatchConfig full = cfg;
  full.method = SearchMethod::kFull;
  BlockMatchRuntime off, on;
  off.predictive_rate = 0.0;
  on.predictive_rate = 4.0;
  const auto a = run_ref(seq, cfg, off), b = run_ref(seq, cfg, on);
  const auto f = run_ref(seq, full, off);
  EXPECT_GT(differing(a[0], b[0]), 0);
  int same = 0;
  for (size_t i = 0; i < b[0].size(); ++i)
    if (b[0][i].dx == f[0][i].dx && b[0][i].dy == f[0][i].dy) {
      EXPECT_EQ(b[0][i].cost, f[0][i].cost) << "block " << i;
      ++same;
    }
  EXPECT_GT(same, 0);
}

/* kPredictive's previous vectors: dropped by reset() and by a reconfigure()
 * of the block size, direction or method; kept over one of the range or
 * sub-pel grid. Checked against the reference with/without `previous`. */
TEST(Predictive, StateAcrossResetAndReconfigure) {
  const int w = 101, h = 67;
  const auto seq = make_sequence(w, h, 112, 8, true, 77, 3);
  BlockMatchConfig cfg =
      config(w, h, 8, 8, 8, 6, 2, Direction::kBackward, SearchMethod::kPredictive);
  const BlockMatchRuntime rt;
  std::unique_ptr<BlockMatcher> m;
  ASSERT_TRUE(BlockMatcher::create(match::Backend::kCpu, cfg, &m).is_ok());
  auto step = [&](int i) {
    std::vector<BlockVector> v(m->config().num_blocks());
    bool est = false;
    EXPECT_TRUE(m->process(seq[i].view(), rt, v.data(), &est).is_ok());
    return v;
  };
  auto ref = [&](int i, const BlockVector* prev) {
    std::vector<BlockVector> v(m->config().num_blocks());
    EXPECT_TRUE(match::ref::block_match(seq[i - 1].view(), seq[i].view(), m->config(), rt,
                                        v.data(), prev)
                    .is_ok());
    return v;
  };
  step(0);
  auto out1 = step(1);
  EXPECT_EQ(compare(ref(1, nullptr), out1, "first"), 0);
  auto out2 = step(2);
  EXPECT_EQ(compare(ref(2, out1.data()), out2, "second"), 0);

  /* new range and sub-pel grid: previous vectors kept */
  cfg.range_x = 5;
  cfg.range_y = 9;
  cfg.subpel = 4;
  ASSERT_TRUE(m->reconfigure(cfg).is_ok());
  auto out3 = step(3);
  EXPECT_EQ(compare(ref(3, out2.data()), out3, "after range change"), 0);
  /* (the data make the previous vectors matter) */
  EXPECT_GT(differing(ref(3, out2.data()), ref(3, nullptr)), 0);

  /* reset: the next estimate (frame 5 against 4) has no previous vectors */
  m->reset();
  step(4);
  auto out5 = step(5);
  EXPECT_EQ(compare(ref(5, nullptr), out5, "after reset"), 0);
  EXPECT_GT(differing(ref(5, out3.data()), ref(5, nullptr)), 0);

  /* new block size: dropped */
  m->reset();
  step(0);
  step(1);
  cfg.block_width = 12;
  ASSERT_TRUE(m->reconfigure(cfg).is_ok());
  EXPECT_EQ(compare(ref(2, nullptr), step(2), "after block size change"), 0);

  /* new direction: dropped */
  auto out3b = step(3); /* an estimate: previous vectors held again */
  cfg.direction = Direction::kForward;
  ASSERT_TRUE(m->reconfigure(cfg).is_ok());
  EXPECT_EQ(compare(ref(4, nullptr), step(4), "after direction change"), 0);
  EXPECT_GT(differing(ref(4, out3b.data()), ref(4, nullptr)), 0);

  /* to diamond and back: dropped (other methods record nothing) */
  cfg.method = SearchMethod::kDiamond;
  ASSERT_TRUE(m->reconfigure(cfg).is_ok());
  EXPECT_EQ(compare(ref(5, nullptr), step(5), "diamond"), 0);
  cfg.method = SearchMethod::kPredictive;
  ASSERT_TRUE(m->reconfigure(cfg).is_ok());
  auto out6 = step(6);
  EXPECT_EQ(compare(ref(6, nullptr), out6, "back to predictive"), 0);
  /* and the next one uses them */
  auto out7 = step(7);
  EXPECT_EQ(compare(ref(7, out6.data()), out7, "predictive again"), 0);
}

/* The noise threshold: blocks of the static third with J(0) <= C per
 * pixel are suppressed (v = 0, cost J(0)); the same as the reference for
 * every method, including kPredictive's later pairs. */
TEST(Threshold, SuppressesStaticBlocksEveryMethod) {
  const int w = 120, h = 72;
  const auto seq = make_sequence(w, h, 128, 3, true, 9);
  BlockMatchRuntime rt;
  rt.threshold = 1.5;
  for (SearchMethod m :
       {SearchMethod::kHierarchical, SearchMethod::kThreeStep, SearchMethod::kDiamond,
        SearchMethod::kHexagon, SearchMethod::kPredictive}) {
    const BlockMatchConfig cfg = config(w, h, 8, 8, 6, 6, 2, Direction::kForward, m);
    const auto out = run_cpu(seq, cfg, rt);
    expect_same(run_ref(seq, cfg, rt), out, "threshold");
    int suppressed = 0, moving = 0;
    for (const auto& field : out)
      for (int b = 0; b < cfg.num_blocks(); ++b) {
        const BlockVector& v = field[b];
        const int x0 = (b % cfg.columns()) * 8;
        if (v.flags == match::kFlagSuppressed) {
          ++suppressed;
          EXPECT_EQ(v.dx, 0);
          EXPECT_EQ(v.dy, 0);
          EXPECT_LE(v.cost, 1.5 * 64);
          EXPECT_LT(x0, w / 3); /* only static blocks */
        } else {
          ++moving;
        }
      }
    EXPECT_GT(suppressed, 0) << match::search_method_name(m);
    EXPECT_GT(moving, 0) << match::search_method_name(m);
  }
}

/* reconfigure() keeps the previous frame and builds what the new method
 * needs of it (the pyramid): full -> hierarchical -> hierarchical with
 * other levels and range -> three-step, each estimate as the reference's. */
TEST(State, ReconfigureBetweenMethods) {
  const int w = 91, h = 57;
  const auto seq = make_sequence(w, h, 96, 5, true, 13);
  const BlockMatchRuntime rt;
  BlockMatchConfig cfg =
      config(w, h, 8, 8, 6, 5, 1, Direction::kBackward, SearchMethod::kFull);
  std::unique_ptr<BlockMatcher> m;
  ASSERT_TRUE(BlockMatcher::create(match::Backend::kCpu, cfg, &m).is_ok());
  std::vector<BlockVector> out(cfg.num_blocks()), want(cfg.num_blocks());
  bool est = false;
  ASSERT_TRUE(m->process(seq[0].view(), rt, out.data(), &est).is_ok());
  const BlockMatchConfig next[] = {
      config(w, h, 8, 8, 6, 5, 1, Direction::kBackward, SearchMethod::kHierarchical, 4,
             3),
      config(w, h, 8, 8, 11, 3, 2, Direction::kBackward, SearchMethod::kHierarchical, 2,
             6),
      config(w, h, 8, 8, 7, 7, 4, Direction::kForward, SearchMethod::kHierarchical, 5, 1),
      config(w, h, 8, 8, 9, 4, 2, Direction::kForward, SearchMethod::kThreeStep)};
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(m->reconfigure(next[i]).is_ok());
    ASSERT_TRUE(m->process(seq[i + 1].view(), rt, out.data(), &est).is_ok());
    EXPECT_TRUE(est);
    ASSERT_TRUE(match::ref::block_match(seq[i].view(), seq[i + 1].view(), next[i], rt,
                                        want.data())
                    .is_ok());
    EXPECT_EQ(compare(want, out, "reconfigure " + std::to_string(i)), 0);
  }
}

/* Constant frames: every candidate costs 0, so the tie rule gives v = 0
 * for every method. */
TEST(Ties, FlatFramesGiveZero) {
  Frame flat = make_noise_frame(48, 40, 48, 1);
  std::fill(flat.data.begin(), flat.data.end(), 90);
  const std::vector<Frame> seq{flat, flat, flat};
  for (SearchMethod m :
       {SearchMethod::kHierarchical, SearchMethod::kThreeStep, SearchMethod::kDiamond,
        SearchMethod::kHexagon, SearchMethod::kPredictive}) {
    const BlockMatchConfig cfg = config(48, 40, 8, 8, 6, 6, 4, Direction::kBackward, m);
    for (const auto& field : run_cpu(seq, cfg, BlockMatchRuntime()))
      for (const auto& v : field) {
        EXPECT_EQ(v.dx, 0);
        EXPECT_EQ(v.dy, 0);
        EXPECT_EQ(v.cost, 0u);
        EXPECT_EQ(v.flags, 0u);
      }
  }
}

/* A known global shift of a smooth texture: the hierarchical search finds
 * it exactly on interior blocks; the predictive one (descents from
 * predictors, local minima possible) on most of them by the second
 * estimate. Both equal the reference. */
TEST(KnownShift, HierarchicalAndPredictive) {
  const int w = 128, h = 96;
  const Frame n = make_noise_frame(w + 40, h + 40, w + 40, 5);
  std::vector<Frame> seq;
  for (int t = 0; t < 3; ++t) {
    Frame f = make_noise_frame(w, h, w, 6);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        f.at(x, y) = static_cast<uint8_t>(box3_mean(n, x + 20 - 5 * t, y + 20 + 3 * t));
    seq.push_back(f);
  }
  for (SearchMethod m : {SearchMethod::kHierarchical, SearchMethod::kPredictive}) {
    const BlockMatchConfig cfg = config(w, h, 16, 16, 8, 8, 2, Direction::kBackward, m);
    const auto out = run_cpu(seq, cfg, BlockMatchRuntime());
    expect_same(run_ref(seq, cfg, BlockMatchRuntime()), out, "known shift");
    ASSERT_EQ(out.size(), 2u);
    /* content moves by (+5, -3) per frame: backward vectors (-5, +3) */
    int interior = 0, found = 0;
    for (int r = 1; r < cfg.rows() - 1; ++r)
      for (int c = 1; c < cfg.columns() - 1; ++c) {
        const BlockVector& v = out.back()[r * cfg.columns() + c];
        ++interior;
        found += v.dx == -5 * 4 && v.dy == 3 * 4 && v.cost == 0;
      }
    if (m == SearchMethod::kHierarchical)
      EXPECT_EQ(found, interior);
    else
      EXPECT_GE(found, interior * 9 / 10);
  }
}
