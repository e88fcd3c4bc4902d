/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * flow-accuracy: dense EPE (docs/accuracy.md, the metric code of
 * tests/common/flowmetrics.cpp) of our block-matching searches, run through
 * the kernels' CPU backend (match::BlockMatcher, the code blockmatchme
 * calls), on every flow sequence of the shared data: Middlebury, the Sintel
 * pairs and the FlyingChairs pairs. 16x16 blocks, forward, range 16 unless
 * --range, integer and half-pel grids. `predictive` is run on two frames
 * (the pair only: no previous field) and, where the data has the frame
 * before the pair, on three (the previous pair's field as predictors).
 * bench/ffmpeg-accuracy.sh prints FFmpeg's mestimate on the same list.
 *
 *   flow-accuracy [--data DIR] [--range R] [--methods "full predictive ..."]
 *                 [--seq NAME] [--files tests/files]
 *                 [--passes N] [--stop T] [--rate L]
 *                 (predictive's passes, early stop and rate: 4, 2, 1)
 * Method `predictive-ref` runs predictive through match::ref (two frames
 * only): the definition itself, to check the backend against.
 * Prints one row per (sequence, method, grid) and the averages.
 */
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <gst/gst.h>

#include "../tests/common/flowmetrics.h"
#include "../tests/common/testutil.h"
#include "match/blockmatch.h"

namespace {

struct Seq {
  const char *name;
  const char *before; /* the frame before frame0, or null */
  const char *frame0, *frame1, *flo;
};

#define MB "flow/middlebury/"
#define SI "flow/sintel/"
#define FC "flow/flyingchairs/"
const Seq kSeqs[] = {
    {"RubberWhale", MB "RubberWhale/frame09.png", MB "RubberWhale/frame10.png",
     MB "RubberWhale/frame11.png", MB "RubberWhale/flow10.flo"},
    {"Dimetrodon", nullptr, MB "Dimetrodon/frame10.png", MB "Dimetrodon/frame11.png",
     MB "Dimetrodon/flow10.flo"},
    {"Venus", nullptr, MB "Venus/frame10.png", MB "Venus/frame11.png",
     MB "Venus/flow10.flo"},
    {"sintel-alley_1-clean", SI "alley_1/clean/frame_0001.png",
     SI "alley_1/clean/frame_0002.png", SI "alley_1/clean/frame_0003.png",
     SI "alley_1/clean/gt/frame_0002.flo"},
    {"alley_1-final", SI "alley_1/final/frame_0001.png",
     SI "alley_1/final/frame_0002.png", SI "alley_1/final/frame_0003.png",
     SI "alley_1/clean/gt/frame_0002.flo"},
    {"ambush_2-final", nullptr, SI "ambush_2/final/frame_0020.png",
     SI "ambush_2/final/frame_0021.png", SI "ambush_2/final/gt/frame_0020.flo"},
    {"cave_4-final", nullptr, SI "cave_4/final/frame_0041.png",
     SI "cave_4/final/frame_0042.png", SI "cave_4/final/gt/frame_0041.flo"},
    {"temple_3-final", nullptr, SI "temple_3/final/frame_0022.png",
     SI "temple_3/final/frame_0023.png", SI "temple_3/final/gt/frame_0022.flo"},
    {"chairs-0000004", nullptr, FC "0000004_img1.ppm", FC "0000004_img2.ppm",
     FC "0000004_flow.flo"},
    {"chairs-0000005", nullptr, FC "0000005_img1.ppm", FC "0000005_img2.ppm",
     FC "0000005_flow.flo"},
    {"chairs-0000006", nullptr, FC "0000006_img1.ppm", FC "0000006_img2.ppm",
     FC "0000006_flow.flo"},
    {"chairs-0000007", nullptr, FC "0000007_img1.ppm", FC "0000007_img2.ppm",
     FC "0000007_flow.flo"},
    /* tests/files (--files), as in elements_accuracy */
    {"yosemite-crop", nullptr, "@yosemite-yos9-crop.pgm", "@yosemite-yos10-crop.pgm",
     "@yosemite-crop.flo"},
};

match::ImageView view(const TestImage &t) {
  match::ImageView v;
  v.data = t.pixels.data();
  v.width = t.width;
  v.height = t.height;
  v.stride_bytes = t.width;
  return v;
}

/* The field of `out` (quarter pixels) as the metrics read it. */
void fill_field(const match::BlockMatchConfig &c,
                const std::vector<match::BlockVector> &out, bool estimated,
                BlockField *field) {
  field->frame_width = c.width;
  field->frame_height = c.height;
  field->block_width = c.block_width;
  field->block_height = c.block_height;
  field->columns = c.columns();
  field->rows = c.rows();
  for (const auto &v : out) {
    field->dx.push_back(v.dx / 4.0f);
    field->dy.push_back(v.dy / 4.0f);
    field->estimated.push_back(estimated ? 1 : 0);
  }
}

/* The forward field of frames[n-2] -> frames[n-1] after feeding them all. */
int g_passes = 4;
double g_stop = 2.0;
double g_rate = match::BlockMatchRuntime().predictive_rate;
bool g_ref = false; /* through match::ref (two frames only) */

bool run(const std::vector<const TestImage *> &frames, match::SearchMethod m, int subpel,
         int range, BlockField *field) {
  match::BlockMatchConfig c;
  c.width = frames[0]->width;
  c.height = frames[0]->height;
  c.range_x = c.range_y = range;
  c.subpel = subpel;
  c.direction = match::Direction::kForward;
  c.method = m;
  c.passes = g_passes;
  if (g_ref) {
    std::vector<match::BlockVector> out(c.num_blocks());
    match::BlockMatchRuntime rt;
    rt.predictive_stop = g_stop;
    rt.predictive_rate = g_rate;
    const size_t n = frames.size();
    if (!match::ref::block_match(view(*frames[n - 2]), view(*frames[n - 1]), c, rt,
                                 out.data(), nullptr))
      return false;
    fill_field(c, out, true, field);
    return true;
  }
  std::unique_ptr<match::BlockMatcher> bm;
  if (!match::BlockMatcher::create(match::Backend::kCpu, c, &bm)) return false;
  std::vector<match::BlockVector> out(c.num_blocks());
  bool est = false;
  match::BlockMatchRuntime rt;
  rt.predictive_stop = g_stop;
  rt.predictive_rate = g_rate;
  for (const TestImage *f : frames)
    if (!bm->process(view(*f), rt, out.data(), &est)) return false;
  fill_field(c, out, est, field);
  return true;
}

} /* namespace */

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  const char *env = g_getenv("MATCH_TEST_DATA");
  std::string data = env && *env ? env : "../shared/data";
  std::string only, files = "../tests/files";
  int range = 16;
  std::vector<std::string> methods = {"full", "diamond", "hexagon", "predictive",
                                      "predictive-3f"};
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--data")
      data = v;
    else if (a == "--range")
      range = atoi(v.c_str());
    else if (a == "--passes")
      g_passes = atoi(v.c_str());
    else if (a == "--stop")
      g_stop = atof(v.c_str());
    else if (a == "--rate")
      g_rate = atof(v.c_str());
    else if (a == "--files")
      files = v;
    else if (a == "--seq")
      only = v;
    else if (a == "--methods") {
      std::istringstream ss(v);
      methods.clear();
      for (std::string m; ss >> m;) methods.push_back(m);
    } else {
      fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  const std::map<std::string, match::SearchMethod> names = {
      {"full", match::SearchMethod::kFull},
      {"hierarchical", match::SearchMethod::kHierarchical},
      {"three-step", match::SearchMethod::kThreeStep},
      {"diamond", match::SearchMethod::kDiamond},
      {"hexagon", match::SearchMethod::kHexagon},
      {"predictive", match::SearchMethod::kPredictive},
      {"predictive-3f", match::SearchMethod::kPredictive},
      {"predictive-ref", match::SearchMethod::kPredictive},
  };
  /* [method/grid] -> (sum, count) */
  std::map<std::string, std::pair<double, int>> avg;
  printf(
      "# flow-accuracy: ours (CPU backend), 16x16, range %d, forward, "
      "predictive passes=%d stop=%g rate=%g; dense EPE px\n%-20s",
      range, g_passes, g_stop, g_rate, "sequence");
  for (const auto &m : methods) printf(" %13s %6s", (m + "/int").c_str(), "half");
  printf("\n");
  for (const Seq &s : kSeqs) {
    if (!only.empty() && only != s.name) continue;
    auto path = [&](const char *p) {
      return p[0] == '@' ? files + "/" + (p + 1) : data + "/" + p;
    };
    TestImage b, f0, f1;
    FlowGroundTruth gt;
    if (!test_load_gray(path(s.frame0), &f0) || !test_load_gray(path(s.frame1), &f1) ||
        !flow_gt_load(path(s.flo), &gt)) {
      printf("%-20s skipped (missing files)\n", s.name);
      continue;
    }
    const bool have_before = s.before && test_load_gray(path(s.before), &b);
    printf("%-20s", s.name);
    for (const auto &m : methods) {
      const bool three = m == "predictive-3f";
      g_ref = m == "predictive-ref";
      for (int sp : {1, 2}) {
        if (three && !have_before) {
          printf(" %*s", sp == 1 ? 13 : 6, "-");
          continue;
        }
        std::vector<const TestImage *> fr;
        if (three) fr.push_back(&b);
        fr.push_back(&f0);
        fr.push_back(&f1);
        BlockField field;
        FlowMetrics fm;
        std::string err;
        if (!names.count(m) || !run(fr, names.at(m), sp, range, &field) ||
            !flow_metrics_compute(field, gt, &fm, &err)) {
          fprintf(stderr, "%s: %s failed %s\n", s.name, m.c_str(), err.c_str());
          return 1;
        }
        printf(" %*.3f", sp == 1 ? 13 : 6, fm.dense_epe);
        auto &a = avg[m + (sp == 1 ? "/int" : "/half")];
        a.first += fm.dense_epe;
        a.second++;
      }
    }
    printf("\n");
    fflush(stdout);
  }
  printf("%-20s", "average");
  for (const auto &m : methods)
    for (const char *g : {"/int", "/half"}) {
      const auto &a = avg[m + g];
      printf(" %*.3f", g[1] == 'i' ? 13 : 6, a.second ? a.first / a.second : NAN);
    }
  printf(
      "\n(predictive-3f averages only the sequences with a frame "
      "before the pair)\n");
  return 0;
}
