/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_fast: blockmatchme's search methods side by side (match::
 * BlockMatcher, one frame pair after another on the bench clips): ms per
 * frame, frames per second, and what the speed costs: the mean SAD per
 * pixel of the chosen vectors relative to full search's (1.00 = as good as
 * exhaustive; full search's is the minimum) and the share of blocks whose
 * vector equals full search's.
 *
 * Cases: paper [B]'s 640x480 with 16x16 blocks and the quarter-resolution
 * range [-16, 16] x [-8, 8] (full resolution +-64 x +-32, levels=3,
 * predictors=4), then 1080p and 4K with +-32 (bench::fast_cases(), shared
 * with bench_element --fast-cases); integer grid unless --subpel.
 * Backends: --backend cpu|cuda (repeatable, default cpu); CPU with all
 * threads and one (--threads to choose). A method a backend does not have
 * gets a row saying so.
 */
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "match/blockmatch.h"

namespace {

using bench::Clock;
using bench::FastCase; /* the cases: bench::fast_cases() (bench_common.h) */

const match::SearchMethod kMethods[] = {
    match::SearchMethod::kFull,      match::SearchMethod::kHierarchical,
    match::SearchMethod::kThreeStep, match::SearchMethod::kDiamond,
    match::SearchMethod::kHexagon,   match::SearchMethod::kPredictive};

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::vector<std::string> case_sel;
  std::vector<match::Backend> backends;
  std::vector<int> threads;
  std::vector<match::SearchMethod> methods;
  int subpel = 1;
  int pairs = 10;
  int runs = 3;
  double cpu_max_s = 5.0;  /* skip CPU rows slower than this per frame */
  int passes = 4;          /* kPredictive's */
  double stop = 2.0;       /* kPredictive's predictive_stop */
  double rate = 1.0;       /* kPredictive's predictive_rate */
  bool two_frames = false; /* every pair timed without a previous field */
};

using bench::all_threads;

bool g_two_frames = false;

/* Vectors of `pairs` successive pairs (after an untimed first frame) and
 * the seconds per pair. --two-frames: each pair from a reset matcher (its
 * first frame fed untimed), as a two-frame input or the first pair after
 * a seek. */
double timed(match::BlockMatcher* m, const bench::Clip& clip, int pairs,
             const match::BlockMatchRuntime& rt,
             std::vector<std::vector<match::BlockVector>>* fields) {
  std::vector<match::BlockVector> out(m->config().num_blocks());
  bool est = false;
  if (g_two_frames) {
    fields->clear();
    double total = 0.0;
    for (int i = 1; i <= pairs; ++i) {
      m->reset();
      if (!m->process(bench::view_of(clip, (i - 1) % clip.count), rt, out.data(), &est))
        return -1;
      const Clock::time_point t0 = Clock::now();
      if (!m->process(bench::view_of(clip, i % clip.count), rt, out.data(), &est) || !est)
        return -1;
      total += bench::seconds_since(t0);
      fields->push_back(out);
    }
    return total / pairs;
  }
  m->reset();
  if (!m->process(bench::view_of(clip, 0), rt, out.data(), &est)) return -1;
  fields->clear();
  const Clock::time_point t0 = Clock::now();
  for (int i = 1; i <= pairs; ++i) {
    if (!m->process(bench::view_of(clip, i % clip.count), rt, out.data(), &est) || !est)
      return -1;
    fields->push_back(out);
  }
  return bench::seconds_since(t0) / pairs;
}

void usage() {
  std::printf(
      "usage: bench_fast [options]\n"
      "  --case ID        B-480, 1080-r32, 2160-r32 (prefix; repeatable)\n"
      "  --method NAME    full hierarchical three-step diamond hexagon predictive\n"
      "                   (repeatable; default all)\n"
      "  --backend cpu|cuda  (repeatable; default cpu)\n"
      "  --threads N      CPU threads (repeatable; default all and 1)\n"
      "  --subpel 1|2|4   grid (default 1)\n"
      "  --pairs N --runs N   timed pairs per run (10), runs (3, median)\n"
      "  --cpu-max-s S    no CPU rows slower than S s per frame (5)\n"
      "  --frames-dir D   clips of bench/prepare-frames.sh\n"
      "  --passes N --stop T  predictive's passes (4) and predictive_stop (2)\n"
      "  --rate L             predictive's predictive_rate (1)\n"
      "  --two-frames     time each pair from a reset matcher (no previous field)\n");
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "-h" || a == "--help") {
      usage();
      std::exit(0);
    }
    if (a == "--two-frames") {
      o->two_frames = true;
      continue;
    }
    if (!v) {
      std::fprintf(stderr, "%s needs a value\n", a.c_str());
      return false;
    }
    ++i;
    if (a == "--case") {
      o->case_sel.push_back(v);
    } else if (a == "--method") {
      bool ok = false;
      for (match::SearchMethod m : kMethods)
        if (!std::strcmp(v, match::search_method_name(m))) {
          o->methods.push_back(m);
          ok = true;
        }
      if (!ok) {
        std::fprintf(stderr, "unknown method %s\n", v);
        return false;
      }
    } else if (a == "--backend") {
      match::Backend b;
      if (!bench::parse_backend(v, &b)) {
        std::fprintf(stderr, "unknown backend %s\n", v);
        return false;
      }
      o->backends.push_back(b);
    } else if (a == "--threads") {
      o->threads.push_back(std::max(1, std::atoi(v)));
    } else if (a == "--subpel") {
      o->subpel = std::atoi(v);
    } else if (a == "--pairs") {
      o->pairs = std::max(1, std::atoi(v));
    } else if (a == "--runs") {
      o->runs = std::max(1, std::atoi(v));
    } else if (a == "--cpu-max-s") {
      o->cpu_max_s = std::atof(v);
    } else if (a == "--frames-dir") {
      o->frames_dir = v;
    } else if (a == "--passes") {
      o->passes = std::atoi(v);
    } else if (a == "--stop") {
      o->stop = std::atof(v);
    } else if (a == "--rate") {
      o->rate = std::atof(v);

    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    }
  }
  if (o->methods.empty()) o->methods.assign(std::begin(kMethods), std::end(kMethods));
  if (o->backends.empty()) o->backends = {match::Backend::kCpu};
  if (o->threads.empty()) o->threads = {all_threads(), 1};
  if (o->subpel != 1 && o->subpel != 2 && o->subpel != 4) return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) {
    usage();
    return 2;
  }
  g_two_frames = o.two_frames;
  std::printf("predictive: passes %d, predictive_stop %g, predictive_rate %g%s\n",
              o.passes, o.stop, o.rate,
              o.two_frames ? "; every pair from a reset matcher (--two-frames)" : "");
  std::printf(
      "bench_fast: %d timed pairs x %d runs (median), grid 1/%d; "
      "quality vs full search on the same pairs\n",
      o.pairs, o.runs, o.subpel);
  std::printf("%-9s %-12s %-40s %7s %10s %9s %8s %8s\n", "case", "method", "backend",
              "threads", "ms/frame", "fps", "SAD/full", "=full");
  int failures = 0;
  for (const FastCase& c : bench::fast_cases()) {
    if (!bench::case_selected(c.id, o.case_sel)) continue;
    const bench::Clip clip = bench::load_clip(o.frames_dir, c.w, c.h, 12, true);
    std::printf("  %s %dx%d, %dx%d blocks, +-%d x +-%d: %s, %d frames\n", c.id.c_str(),
                c.w, c.h, c.block, c.block, c.rx, c.ry, clip.origin.c_str(), clip.count);
    /* Full search's fields on the CPU: the reference for the quality columns. */
    match::BlockMatchConfig base;
    base.width = c.w;
    base.height = c.h;
    base.block_width = base.block_height = c.block;
    base.range_x = c.rx;
    base.range_y = c.ry;
    base.subpel = o.subpel;
    base.levels = c.levels;
    base.predictors = c.predictors;
    base.passes = o.passes;
    std::vector<std::vector<match::BlockVector>> ref_fields;
    bool have_ref = false;
    for (match::SearchMethod method : o.methods)
      for (match::Backend be : o.backends)
        for (int threads : be == match::Backend::kCpu ? o.threads : std::vector<int>{0}) {
          match::BlockMatchConfig cfg = base;
          cfg.method = method;
          std::unique_ptr<match::BlockMatcher> m;
          match::Status st = match::BlockMatcher::create(be, cfg, &m);
          const char* mname = match::search_method_name(method);
          if (!st) {
            std::printf("%-9s %-12s %-40s unavailable: %s\n", c.id.c_str(), mname,
                        match::backend_name(be), st.message().c_str());
            continue;
          }
          match::BlockMatchRuntime rt;
          rt.threads = threads;
          rt.predictive_stop = o.stop;
          rt.predictive_rate = o.rate;
          std::vector<std::vector<match::BlockVector>> fields;
          const double probe = timed(m.get(), clip, 1, rt, &fields);
          if (probe < 0) {
            ++failures;
            continue;
          }
          if (be == match::Backend::kCpu && probe > o.cpu_max_s) {
            std::printf("%-9s %-12s %-40s %7d   (%.1f s per frame: skipped)\n",
                        c.id.c_str(), mname, m->description().c_str(), threads, probe);
            continue;
          }
          std::vector<double> t;
          for (int r = 0; r < o.runs; ++r)
            t.push_back(timed(m.get(), clip, o.pairs, rt, &fields));
          if (*std::min_element(t.begin(), t.end()) < 0) {
            ++failures;
            continue;
          }
          if (method == match::SearchMethod::kFull && !have_ref) {
            ref_fields = fields;
            have_ref = true;
          }
          std::string quality = "       -        -";
          if (have_ref && ref_fields.size() == fields.size()) {
            double sad = 0, sad_ref = 0;
            long same = 0, total = 0;
            for (size_t f = 0; f < fields.size(); ++f)
              for (size_t b = 0; b < fields[f].size(); ++b) {
                sad += fields[f][b].cost;
                sad_ref += ref_fields[f][b].cost;
                same += fields[f][b].dx == ref_fields[f][b].dx &&
                        fields[f][b].dy == ref_fields[f][b].dy;
                ++total;
              }
            char q[64];
            std::snprintf(q, sizeof q, "%8.3f %7.1f%%", sad_ref > 0 ? sad / sad_ref : 1.0,
                          100.0 * same / total);
            quality = q;
          }
          const double ms = 1e3 * bench::median(t);
          std::printf("%-9s %-12s %-40s %7s %10s %9s %s\n", c.id.c_str(), mname,
                      m->description().c_str(),
                      be == match::Backend::kCpu ? std::to_string(threads).c_str() : "-",
                      bench::fmt_ms(ms).c_str(), bench::fmt_fps(ms).c_str(),
                      quality.c_str());
        }
  }
  return failures ? 1 : 0;
}
