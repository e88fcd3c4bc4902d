/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * ffmpeg-accuracy: the accuracy of FFmpeg's `mestimate` fields on the
 * sequences of elements_accuracy (tests/check/elements/accuracy.cpp), with
 * that test's metric code (tests/common/flowmetrics.cpp, compiled in) and
 * frames (tests/common/testutil.cpp's test_load_gray: PGM directly, PNG
 * through GStreamer's decoder and videoconvert to GRAY8, the same pixels the
 * test feeds blockmatchme). An optional tool, not part of the meson build:
 * bench/ffmpeg-accuracy.sh builds it together with tools/ffmpeg-mvdump.c and
 * runs it.
 *
 * Usage: ffmpeg-accuracy --mvdump PATH [--data DIR] [--files DIR]
 *            [--methods "esa tss ds hexbs epzs umh"] [--range R]
 *            [--edges pad|none|both] [--crosscheck] [--selftest]
 *            [--fields DIR]
 *   --data   $MATCH_TEST_DATA or ../shared/data      --files  tests/files
 *   --fields writes each converted field to DIR/SEQUENCE-METHOD-EDGES.txt,
 *            one block a line: column row dx dy estimated
 *
 * Direction. The metrics want a FORWARD field (flowmetrics.h): blocks tile
 * the earlier frame f0 and v is where the block went in f1, as the .flo GT:
 * f0(x) ~ f1(x + v). mestimate's vectors of an output frame `cur` tile
 * `cur` with dst = block centre and src = centre of the best match in the
 * reference: cur(p) ~ ref(p + src - dst) (tools/ffmpeg-mvdump.c). So the
 * frames go in REVERSED: ffmpeg-mvdump f1 f0 (FRAME1 = f1, FRAME2 = f0), and
 * the source = -1 vectors of the output for f0 (its `prev` is f1) tile f0
 * with f0(p) ~ f1(p + src - dst):
 *     v_forward = (src_x - dst_x, src_y - dst_y),
 *     block column = (dst_x - mb/2) / mb, row = (dst_y - mb/2) / mb.
 * --crosscheck also runs the natural order (ffmpeg-mvdump -o 1 f0 f1: the
 * source = +1 vectors of the output for f0, searched in its `next` f1) and
 * counts the blocks where both give the same vector (they must all agree:
 * the same search on the same pair). --selftest checks the convention on a
 * textured frame shifted by a known integer vector.
 *
 * Edges. mestimate only has whole blocks (w >> 4 by h >> 4) while our grid
 * has a partial last column/row when the size is not a multiple of 16
 * (blockmatchme matches them on their own pixels).
 * - pad (the default, the figures of docs/blockmatchme.md): both frames are
 *   extended to a multiple of 16 by replicating the last column/row, so
 *   FFmpeg's grid is exactly ours; each partial block is matched with the
 *   replicated pixels added, and evaluated (as ours) on its own pixels.
 * - none: the frames as they are; blocks FFmpeg has no vector for are
 *   NO_ESTIMATE for the metrics (their pixels left out of dense EPE, each
 *   counted as a bad block).
 * The frames given to FFmpeg are GRAY8 PGMs; mestimate runs on gray.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <unistd.h>

#include <gst/gst.h>

#include "../tests/common/flowmetrics.h"
#include "../tests/common/testutil.h"

namespace {

constexpr int kMb = 16;

struct Case {
  const char *name;
  const char *frame0;
  const char *frame1;
  const char *flo;
  bool in_test_files;
};

/* elements_accuracy's sequences (mysine-range4 left out: it needs a range of
 * 4 and is an exactness check, not a benchmark), then the other flow
 * sequences of the shared data (the list of tools/flow-accuracy.cpp). */
const Case kCases[] = {
    {"RubberWhale", "flow/middlebury/RubberWhale/frame10.png",
     "flow/middlebury/RubberWhale/frame11.png", "flow/middlebury/RubberWhale/flow10.flo",
     false},
    {"Dimetrodon", "flow/middlebury/Dimetrodon/frame10.png",
     "flow/middlebury/Dimetrodon/frame11.png", "flow/middlebury/Dimetrodon/flow10.flo",
     false},
    {"Venus", "flow/middlebury/Venus/frame10.png", "flow/middlebury/Venus/frame11.png",
     "flow/middlebury/Venus/flow10.flo", false},
    {"sintel-alley_1-clean", "flow/sintel/alley_1/clean/frame_0002.png",
     "flow/sintel/alley_1/clean/frame_0003.png",
     "flow/sintel/alley_1/clean/gt/frame_0002.flo", false},
    {"yosemite-crop", "yosemite-yos9-crop.pgm", "yosemite-yos10-crop.pgm",
     "yosemite-crop.flo", true},
    {"alley_1-final", "flow/sintel/alley_1/final/frame_0002.png",
     "flow/sintel/alley_1/final/frame_0003.png",
     "flow/sintel/alley_1/clean/gt/frame_0002.flo", false},
    {"ambush_2-final", "flow/sintel/ambush_2/final/frame_0020.png",
     "flow/sintel/ambush_2/final/frame_0021.png",
     "flow/sintel/ambush_2/final/gt/frame_0020.flo", false},
    {"cave_4-final", "flow/sintel/cave_4/final/frame_0041.png",
     "flow/sintel/cave_4/final/frame_0042.png",
     "flow/sintel/cave_4/final/gt/frame_0041.flo", false},
    {"temple_3-final", "flow/sintel/temple_3/final/frame_0022.png",
     "flow/sintel/temple_3/final/frame_0023.png",
     "flow/sintel/temple_3/final/gt/frame_0022.flo", false},
    {"chairs-0000004", "flow/flyingchairs/0000004_img1.ppm",
     "flow/flyingchairs/0000004_img2.ppm", "flow/flyingchairs/0000004_flow.flo", false},
    {"chairs-0000005", "flow/flyingchairs/0000005_img1.ppm",
     "flow/flyingchairs/0000005_img2.ppm", "flow/flyingchairs/0000005_flow.flo", false},
    {"chairs-0000006", "flow/flyingchairs/0000006_img1.ppm",
     "flow/flyingchairs/0000006_img2.ppm", "flow/flyingchairs/0000006_flow.flo", false},
    {"chairs-0000007", "flow/flyingchairs/0000007_img1.ppm",
     "flow/flyingchairs/0000007_img2.ppm", "flow/flyingchairs/0000007_flow.flo", false},
};

struct Options {
  std::string mvdump;
  std::string data;
  std::string files = "tests/files";
  std::vector<std::string> methods = {"esa", "tss", "ds", "hexbs", "epzs", "umh"};
  int range = 16;
  bool pad = true, none = false;
  bool crosscheck = false, selftest = false;
  std::string fields;
  std::string tmp;
};

struct FfVector {
  int source, w, h, src_x, src_y, dst_x, dst_y;
};

[[noreturn]] void fatal(const std::string &msg) {
  fprintf(stderr, "ffmpeg-accuracy: %s\n", msg.c_str());
  exit(1);
}

/* Replicates the last column/row up to a multiple of mb. */
TestImage pad_to_blocks(const TestImage &img, int mb) {
  TestImage out;
  out.width = (img.width + mb - 1) / mb * mb;
  out.height = (img.height + mb - 1) / mb * mb;
  out.pixels.resize((size_t)out.width * out.height);
  for (int y = 0; y < out.height; y++)
    for (int x = 0; x < out.width; x++)
      out.pixels[(size_t)y * out.width + x] =
          img.at(std::min(x, img.width - 1), std::min(y, img.height - 1));
  return out;
}

void write_pgm(const std::string &path, const TestImage &img) {
  FILE *f = fopen(path.c_str(), "wb");
  if (!f) fatal("cannot write " + path);
  fprintf(f, "P5\n%d %d\n255\n", img.width, img.height);
  if (fwrite(img.pixels.data(), 1, img.pixels.size(), f) != img.pixels.size())
    fatal("cannot write " + path);
  fclose(f);
}

/* ffmpeg-mvdump -m METHOD -b 16 -r R -o which FRAME1 FRAME2 */
std::vector<FfVector> run_mvdump(const Options &o, const std::string &method,
                                 const TestImage &frame1, const TestImage &frame2,
                                 int which) {
  const std::string p1 = o.tmp + "/frame1.pgm", p2 = o.tmp + "/frame2.pgm";
  write_pgm(p1, frame1);
  write_pgm(p2, frame2);
  std::ostringstream cmd;
  cmd << "'" << o.mvdump << "' -m " << method << " -b " << kMb << " -r " << o.range
      << " -o " << which << " '" << p1 << "' '" << p2 << "'";
  FILE *pipe = popen(cmd.str().c_str(), "r");
  if (!pipe) fatal("cannot run " + cmd.str());
  std::vector<FfVector> out;
  char line[512];
  while (fgets(line, sizeof line, pipe)) {
    if (line[0] == '#') continue;
    FfVector v;
    if (sscanf(line, "%d %d %d %d %d %d %d", &v.source, &v.w, &v.h, &v.src_x, &v.src_y,
               &v.dst_x, &v.dst_y) != 7)
      fatal(std::string("unexpected line from ffmpeg-mvdump: ") + line);
    out.push_back(v);
  }
  if (pclose(pipe) != 0) fatal("failed: " + cmd.str());
  return out;
}

/* Our FORWARD field on the (width x height, 16x16, partial blocks) grid from
 * the mestimate vectors with `source` whose blocks tile the earlier frame:
 * v = src - dst. Blocks without a vector are NO_ESTIMATE. */
BlockField field_from_ffmpeg(const std::vector<FfVector> &vecs, int source, int width,
                             int height) {
  BlockField f = flow_field_zero(width, height, kMb, kMb);
  std::fill(f.estimated.begin(), f.estimated.end(), 0);
  for (const FfVector &v : vecs) {
    if (v.source != source) continue;
    if (v.w != kMb || v.h != kMb || (v.dst_x - kMb / 2) % kMb != 0 ||
        (v.dst_y - kMb / 2) % kMb != 0)
      fatal("vector off the 16x16 grid");
    const int c = (v.dst_x - kMb / 2) / kMb, r = (v.dst_y - kMb / 2) / kMb;
    if (c < 0 || r < 0) fatal("vector off the 16x16 grid");
    if (c >= f.columns || r >= f.rows)
      continue; /* a block of the padding only (none here) */
    const size_t i = (size_t)r * f.columns + c;
    if (f.estimated[i]) fatal("two vectors for one block");
    f.dx[i] = (float)(v.src_x - v.dst_x);
    f.dy[i] = (float)(v.src_y - v.dst_y);
    f.estimated[i] = 1;
  }
  return f;
}

/* FORWARD field f0 -> f1 by the reversed order (see the header). */
BlockField ffmpeg_forward_field(const Options &o, const std::string &method,
                                const TestImage &f0, const TestImage &f1, bool pad) {
  const TestImage a = pad ? pad_to_blocks(f1, kMb) : f1;
  const TestImage b = pad ? pad_to_blocks(f0, kMb) : f0;
  return field_from_ffmpeg(run_mvdump(o, method, a, b, 2), -1, f0.width, f0.height);
}

/* The same field by the natural order: source = +1 of the output for f0. */
BlockField ffmpeg_forward_field_natural(const Options &o, const std::string &method,
                                        const TestImage &f0, const TestImage &f1,
                                        bool pad) {
  const TestImage a = pad ? pad_to_blocks(f0, kMb) : f0;
  const TestImage b = pad ? pad_to_blocks(f1, kMb) : f1;
  return field_from_ffmpeg(run_mvdump(o, method, a, b, 1), +1, f0.width, f0.height);
}

FlowMetrics compute(const BlockField &field, const FlowGroundTruth &gt) {
  FlowMetrics m;
  std::string error;
  if (!flow_metrics_compute(field, gt, &m, &error)) fatal(error);
  return m;
}

BlockField negated(BlockField f) {
  for (size_t i = 0; i < f.dx.size(); i++) {
    f.dx[i] = -f.dx[i];
    f.dy[i] = -f.dy[i];
  }
  return f;
}

void write_field(const std::string &path, const BlockField &f) {
  FILE *out = fopen(path.c_str(), "w");
  if (!out) fatal("cannot write " + path);
  fprintf(out,
          "# %dx%d, %dx%d blocks, %d x %d; column row dx dy "
          "estimated (FORWARD)\n",
          f.frame_width, f.frame_height, f.block_width, f.block_height, f.columns,
          f.rows);
  for (int r = 0; r < f.rows; r++)
    for (int c = 0; c < f.columns; c++) {
      const size_t i = (size_t)r * f.columns + c;
      fprintf(out, "%d %d %g %g %d\n", c, r, f.dx[i], f.dy[i], f.estimated[i]);
    }
  fclose(out);
}

int count_equal(const BlockField &a, const BlockField &b) {
  int n = 0;
  for (size_t i = 0; i < a.dx.size(); i++)
    n += a.estimated[i] == b.estimated[i] && a.dx[i] == b.dx[i] && a.dy[i] == b.dy[i];
  return n;
}

/* A 333x250 texture f0 and f1 = f0 moved by (5, -3) (clamp-to-edge, so the
 * content moves by +s, the forward vector is (5, -3)). Every block whose
 * moved copy lies wholly inside f1 (the "clean" blocks) has an exact match
 * at (5, -3); esa must find it on each of them. */
int selftest(const Options &o) {
  const int sx = 5, sy = -3, w = 333, h = 250;
  const TestImage f0 = test_texture(w, h, 7);
  const TestImage f1 = test_shift(f0, sx, sy);
  FlowGroundTruth gt;
  gt.width = w;
  gt.height = h;
  gt.uv.resize((size_t)w * h * 2);
  for (size_t i = 0; i < gt.uv.size(); i += 2) {
    gt.uv[i] = (float)sx;
    gt.uv[i + 1] = (float)sy;
  }
  printf(
      "selftest: %dx%d texture, f1 = f0 moved by (%d, %d); forward field "
      "by the reversed order (ffmpeg-mvdump f1 f0, source = -1 of the "
      "output for f0, v = src - dst), edges padded\n",
      w, h, sx, sy);
  int failures = 0;
  for (const std::string &m : o.methods) {
    const BlockField f = ffmpeg_forward_field(o, m, f0, f1, true);
    int clean = 0, clean_exact = 0, exact = 0;
    std::map<std::pair<int, int>, int> hist;
    for (int r = 0; r < f.rows; r++)
      for (int c = 0; c < f.columns; c++) {
        const size_t i = (size_t)r * f.columns + c;
        const int x0 = c * kMb, y0 = r * kMb;
        const bool is_clean = x0 + kMb <= w && y0 + kMb <= h && x0 + sx >= 0 &&
                              x0 + sx + kMb <= w && y0 + sy >= 0 && y0 + sy + kMb <= h;
        const bool ok = f.estimated[i] && f.dx[i] == sx && f.dy[i] == sy;
        exact += ok;
        clean += is_clean;
        clean_exact += is_clean && ok;
        if (f.estimated[i]) hist[{(int)f.dx[i], (int)f.dy[i]}]++;
      }
    /* The most frequent vector. */
    std::pair<int, int> mode{0, 0};
    int mode_n = 0;
    for (const auto &kv : hist)
      if (kv.second > mode_n) {
        mode = kv.first;
        mode_n = kv.second;
      }
    const FlowMetrics mm = compute(f, gt);
    const BlockField nat = ffmpeg_forward_field_natural(o, m, f0, f1, true);
    const int same = count_equal(f, nat);
    printf(
        "  %-6s most frequent v = (%d, %d) in %d/%d blocks; exactly "
        "(%d, %d): %d/%d blocks, %d/%d clean blocks; dense EPE %.3f; "
        "natural order (source = +1 of the output for f0) identical in "
        "%d/%d blocks\n",
        m.c_str(), mode.first, mode.second, mode_n, f.columns * f.rows, sx, sy, exact,
        f.columns * f.rows, clean_exact, clean, mm.dense_epe, same, f.columns * f.rows);
    if (mode != std::make_pair(sx, sy)) failures++;
    if (m == "esa" && clean_exact != clean) failures++;
    if (same != f.columns * f.rows) failures++;
  }
  printf("selftest: %s\n\n", failures ? "FAILED" : "passed");
  return failures;
}

std::string case_path(const Options &o, const Case &c, const char *rel) {
  return (c.in_test_files ? o.files : o.data) + "/" + rel;
}

}  // namespace

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  Options o;
  const char *env = g_getenv("MATCH_TEST_DATA");
  o.data = env && *env ? env : "../shared/data";
  for (int i = 1; i < argc; i++) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) fatal(a + " needs a value");
      return argv[++i];
    };
    if (a == "--mvdump")
      o.mvdump = value();
    else if (a == "--data")
      o.data = value();
    else if (a == "--files")
      o.files = value();
    else if (a == "--range")
      o.range = atoi(value().c_str());
    else if (a == "--methods") {
      std::istringstream ss(value());
      o.methods.clear();
      for (std::string m; ss >> m;) o.methods.push_back(m);
    } else if (a == "--edges") {
      const std::string v = value();
      o.pad = v == "pad" || v == "both";
      o.none = v == "none" || v == "both";
      if (!o.pad && !o.none) fatal("--edges pad|none|both");
    } else if (a == "--crosscheck")
      o.crosscheck = true;
    else if (a == "--selftest")
      o.selftest = true;
    else if (a == "--fields")
      o.fields = value();
    else
      fatal("unknown argument " + a +
            " (see the header of "
            "tools/ffmpeg-accuracy.cpp)");
  }
  if (o.mvdump.empty()) fatal("--mvdump PATH is required");
  char tmpl[] = "/tmp/ffmpeg-accuracy-XXXXXX";
  if (!mkdtemp(tmpl)) fatal("mkdtemp failed");
  o.tmp = tmpl;

  int failures = 0;
  if (o.selftest) failures += selftest(o);

  /* [edge mode][case][method] */
  std::map<std::string, std::map<std::string, std::map<std::string, FlowMetrics>>>
      results;
  std::vector<std::string> done;
  for (const Case &c : kCases) {
    const std::string p0 = case_path(o, c, c.frame0);
    const std::string p1 = case_path(o, c, c.frame1);
    const std::string pf = case_path(o, c, c.flo);
    TestImage f0, f1;
    FlowGroundTruth gt;
    if (!g_file_test(p0.c_str(), G_FILE_TEST_EXISTS) ||
        !g_file_test(p1.c_str(), G_FILE_TEST_EXISTS) ||
        !g_file_test(pf.c_str(), G_FILE_TEST_EXISTS)) {
      printf("%-22s skipped (missing files)\n", c.name);
      continue;
    }
    if (!test_load_gray(p0, &f0) || !test_load_gray(p1, &f1) || !flow_gt_load(pf, &gt))
      fatal(std::string("cannot load ") + c.name);
    done.push_back(c.name);
    for (int e = 0; e < 2; e++) {
      const bool pad = e == 0;
      if ((pad && !o.pad) || (!pad && !o.none)) continue;
      const char *edges = pad ? "pad" : "none";
      printf(
          "%s  %dx%d  (FFmpeg mestimate, mb_size=%d search_param=%d, "
          "integer pel, forward, edges=%s)\n%s %7s %8s\n",
          c.name, f0.width, f0.height, kMb, o.range, edges,
          flow_metrics_table_header().c_str(), "noest", "negated");
      for (const std::string &m : o.methods) {
        const BlockField f = ffmpeg_forward_field(o, m, f0, f1, pad);
        const FlowMetrics fm = compute(f, gt);
        results[edges][c.name][m] = fm;
        if (!o.fields.empty())
          write_field(o.fields + "/" + c.name + "-" + m + "-" + edges + ".txt", f);
        /* negated: the dense EPE of -v, which a wrong sign would give. */
        printf("%s %7d %8.3f",
               flow_metrics_table_row(c.name, ("ffmpeg-" + m).c_str(), fm).c_str(),
               fm.blocks_no_estimate, compute(negated(f), gt).dense_epe);
        if (o.crosscheck) {
          const BlockField nat = ffmpeg_forward_field_natural(o, m, f0, f1, pad);
          const int same = count_equal(f, nat);
          printf("   natural order: %d/%zu blocks identical", same, f.dx.size());
          if ((size_t)same != f.dx.size()) failures++;
        }
        printf("\n");
        fflush(stdout);
      }
      printf("%s\n\n", flow_metrics_table_row(
                           c.name, "zero-field",
                           compute(flow_field_zero(f0.width, f0.height, kMb, kMb), gt))
                           .c_str());
    }
  }

  for (const char *edges : {"pad", "none"}) {
    if (!results.count(edges)) continue;
    const auto &em = *results.find(edges);
    printf(
        "Summary, edges=%s: dense EPE (px) / bad blocks (%%), FFmpeg "
        "mestimate, integer pel, 16x16, search_param=%d\n\n| sequence |",
        em.first.c_str(), o.range);
    for (const std::string &m : o.methods) printf(" %s |", m.c_str());
    printf("\n|---|");
    for (size_t i = 0; i < o.methods.size(); i++) printf("---|");
    printf("\n");
    for (const std::string &name : done) {
      printf("| %s |", name.c_str());
      for (const std::string &m : o.methods) {
        const FlowMetrics &fm = em.second.at(name).at(m);
        printf(" %.3f / %.1f |", fm.dense_epe, fm.bad_blocks_pct);
      }
      printf("\n");
    }
    printf("| average |");
    for (const std::string &m : o.methods) {
      double epe = 0.0, bad = 0.0;
      for (const std::string &name : done) {
        epe += em.second.at(name).at(m).dense_epe;
        bad += em.second.at(name).at(m).bad_blocks_pct;
      }
      const double n = done.empty() ? 1.0 : (double)done.size();
      printf(" %.3f / %.1f |", epe / n, bad / n);
    }
    printf("\n\n");
  }

  unlink((o.tmp + "/frame1.pgm").c_str());
  unlink((o.tmp + "/frame2.pgm").c_str());
  rmdir(o.tmp.c_str());
  if (failures) fprintf(stderr, "ffmpeg-accuracy: %d check(s) failed\n", failures);
  return failures ? 1 : 0;
}
