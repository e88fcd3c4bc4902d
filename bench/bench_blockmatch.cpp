/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_blockmatch: times the CPU block matcher (match::BlockMatcher, the
 * GStreamer-free kernel API) on consecutive frames of a real video, and
 * optionally prints it next to FFmpeg's mestimate filter measured by
 * bench/ffmpeg-mestimate.sh. See bench/README.md for the columns.
 *
 * What one measurement is: the matcher is reset, fed frame 0 (untimed: no
 * previous frame, no search), then `pairs` further frames are timed; each
 * of those costs one frame preparation (padded copy, sub-pel planes) and
 * one full search against the frame before. The figure kept is the median
 * over `runs` such measurements.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "bench_common.h"
#include "match/blockmatch.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::string ffmpeg_file;
  std::vector<std::pair<int, int>> sizes;
  std::vector<int> blocks;
  std::vector<int> subpels;
  std::vector<int> threads;
  int range = 16;
  int pairs = 10;
  int runs = 5;
  double min_run_s = 1.0; /* fewer pairs for slow cases, see choose_pairs */
  bool quarter = true;
};

struct Result {
  int width, height, block, subpel, threads;
  double sec_per_frame;     /* median */
  double spread;            /* (max - min) / median over the runs */
  long long blocks_per_frame;
  long long candidates;     /* per block */
  int pairs;
  bool real;
};

void usage(const char* argv0) {
  std::printf(
      "Usage: %s [options]\n"
      "  --frames-dir DIR   raw GRAY8 clips from bench/prepare-frames.sh\n"
      "                     (default $MATCH_BENCH_FRAMES or $TMPDIR/gst-motion-bench-frames)\n"
      "  --size WxH         only this size (repeatable; default 640x480 1280x720 1920x1080)\n"
      "  --block N          only N x N blocks (repeatable; default 16 8)\n"
      "  --subpel N         only grid 1 (integer), 2 (half) or 4 (quarter) (repeatable;\n"
      "                     default 1 2, plus 4 for 16x16 blocks)\n"
      "  --no-quarter       drop the default quarter-pel 16x16 cases\n"
      "  --threads N        thread count to time, 0 = all cores (repeatable; default 1 0)\n"
      "  --range R          search range +-R pixels (default 16)\n"
      "  --pairs N          timed frames per run (default 10; fewer for slow cases,\n"
      "                     so that a run lasts about --min-run-time, at least 3)\n"
      "  --runs N           runs per case; the median is reported (default 5)\n"
      "  --min-run-time S   see --pairs (default 1.0 s)\n"
      "  --ffmpeg FILE      results of bench/ffmpeg-mestimate.sh: print the comparison\n",
      argv0);
}

bool parse_size(const char* s, int* w, int* h) {
  return std::sscanf(s, "%dx%d", w, h) == 2 && *w > 0 && *h > 0;
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&](const char** v) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        return false;
      }
      *v = argv[++i];
      return true;
    };
    const char* v = nullptr;
    if (a == "--help" || a == "-h") {
      usage(argv[0]);
      std::exit(0);
    } else if (a == "--no-quarter") {
      o->quarter = false;
    } else if (!next(&v)) {
      return false;
    } else if (a == "--frames-dir") {
      o->frames_dir = v;
    } else if (a == "--ffmpeg") {
      o->ffmpeg_file = v;
    } else if (a == "--size") {
      int w, h;
      if (!parse_size(v, &w, &h)) return false;
      o->sizes.emplace_back(w, h);
    } else if (a == "--block") {
      o->blocks.push_back(std::atoi(v));
    } else if (a == "--subpel") {
      o->subpels.push_back(std::atoi(v));
    } else if (a == "--threads") {
      o->threads.push_back(std::atoi(v));
    } else if (a == "--range") {
      o->range = std::atoi(v);
    } else if (a == "--pairs") {
      o->pairs = std::max(1, std::atoi(v));
    } else if (a == "--runs") {
      o->runs = std::max(1, std::atoi(v));
    } else if (a == "--min-run-time") {
      o->min_run_s = std::atof(v);
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

int all_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

match::ImageView view_of(const bench::Clip& clip, int i) {
  return match::ImageView{clip.walk(i), clip.width, clip.height, clip.width};
}

/* One timed run: reset, frame 0 untimed, then `pairs` timed frames.
 * Returns seconds per timed frame, or < 0 on error. */
double timed_run(match::BlockMatcher* m, const bench::Clip& clip, int pairs,
                 const match::BlockMatchRuntime& rt, std::vector<match::BlockVector>* out) {
  bool estimated = false;
  m->reset();
  if (!m->process(view_of(clip, 0), rt, out->data(), &estimated)) return -1;
  const Clock::time_point t0 = Clock::now();
  for (int i = 1; i <= pairs; ++i) {
    match::Status st = m->process(view_of(clip, i), rt, out->data(), &estimated);
    if (!st || !estimated) {
      std::fprintf(stderr, "process failed: %s\n", st.message().c_str());
      return -1;
    }
  }
  return seconds_since(t0) / pairs;
}

bool run_case(const Options& o, const bench::Clip& clip, int block, int subpel, int threads,
              Result* r) {
  match::BlockMatchConfig cfg;
  cfg.width = clip.width;
  cfg.height = clip.height;
  cfg.block_width = cfg.block_height = block;
  cfg.range_x = cfg.range_y = o.range;
  cfg.subpel = subpel;
  cfg.direction = match::Direction::kBackward;
  std::unique_ptr<match::BlockMatcher> m;
  match::Status st = match::BlockMatcher::create(match::Backend::kCpu, cfg, &m);
  if (!st) {
    std::fprintf(stderr, "create failed: %s\n", st.message().c_str());
    return false;
  }
  std::vector<match::BlockVector> out(cfg.num_blocks());
  match::BlockMatchRuntime rt;
  rt.threads = threads;

  /* Warm-up (page faults, OpenMP pool, caches) that also sizes the runs. */
  const double probe = timed_run(m.get(), clip, 2, rt, &out);
  if (probe < 0) return false;
  int pairs = o.pairs;
  if (probe * pairs > o.min_run_s)
    pairs = std::max(3, static_cast<int>(std::ceil(o.min_run_s / probe)));
  pairs = std::min(pairs, o.pairs);

  std::vector<double> t;
  for (int run = 0; run < o.runs; ++run) {
    const double s = timed_run(m.get(), clip, pairs, rt, &out);
    if (s < 0) return false;
    t.push_back(s);
  }
  r->width = clip.width;
  r->height = clip.height;
  r->block = block;
  r->subpel = subpel;
  r->threads = threads > 0 ? threads : all_threads();
  r->sec_per_frame = median(t);
  r->spread = (*std::max_element(t.begin(), t.end()) - *std::min_element(t.begin(), t.end())) /
              r->sec_per_frame;
  r->blocks_per_frame = cfg.num_blocks();
  r->candidates = cfg.candidates();
  r->pairs = pairs;
  r->real = clip.real;
  return true;
}

const char* grid_name(int subpel) {
  return subpel == 1 ? "int" : subpel == 2 ? "half" : subpel == 4 ? "quarter" : "?";
}

void print_header() {
  std::printf("%-10s %-6s %-8s %3s %9s %10s %8s %9s %8s %6s %6s\n", "size", "block", "grid",
              "thr", "fps", "ms/frame", "ns/cand", "Gpxop/s", "x 1-thr", "pairs", "spread");
}

void print_result(const Result& r, const Result* one_thread) {
  char size[32], blk[16];
  std::snprintf(size, sizeof size, "%dx%d", r.width, r.height);
  std::snprintf(blk, sizeof blk, "%dx%d", r.block, r.block);
  const double s = r.sec_per_frame;
  const double cands = static_cast<double>(r.blocks_per_frame) * r.candidates;
  const double pxops = static_cast<double>(r.width) * r.height * r.candidates;
  char speedup[16] = "-";
  if (one_thread && one_thread != &r)
    std::snprintf(speedup, sizeof speedup, "%.2f", one_thread->sec_per_frame / s);
  std::printf("%-10s %-6s %-8s %3d %9.2f %10.2f %8.3f %9.2f %8s %6d %5.1f%%\n", size, blk,
              grid_name(r.subpel), r.threads, 1.0 / s, 1e3 * s, 1e9 * s / cands,
              pxops / s / 1e9, speedup, r.pairs, 100.0 * r.spread);
  std::fflush(stdout);
}

/* ---- FFmpeg comparison ---------------------------------------------- */

struct FfRun {
  std::string method;
  int width, height, inputs, outputs;
  double rtime, utime;
};

std::vector<FfRun> read_ffmpeg(const std::string& path) {
  std::vector<FfRun> v;
  FILE* f = std::fopen(path.c_str(), "r");
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    return v;
  }
  char line[512];
  while (std::fgets(line, sizeof line, f)) {
    if (line[0] == '#') continue;
    char method[64];
    FfRun r;
    if (std::sscanf(line, "%63s %d %d %d %d %lf %lf", method, &r.width, &r.height, &r.inputs,
                    &r.outputs, &r.rtime, &r.utime) == 7) {
      r.method = method;
      v.push_back(r);
    }
  }
  std::fclose(f);
  return v;
}

/* Cost evaluations FFmpeg 5.1's mestimate (method=esa) makes on the first
 * `inputs` frames of `clip`. It outputs one frame per input after the first;
 * output k (cur = frame k) is searched against prev = frame k-1 (frame 0
 * itself for k = 0) and next = frame k+1. Only the floor(W/mb) x floor(H/mb)
 * whole blocks are searched; ff_me_search_esa evaluates (0,0) first and stops
 * when its SAD is 0, otherwise it scans every integer position within
 * +-p that keeps the block inside [0, (b_width-1)*mb] x [0, (b_height-1)*mb]. */
double ffmpeg_esa_evaluations(const bench::Clip& clip, int inputs, int mb, int p) {
  const int bw = clip.width / mb, bh = clip.height / mb;
  const int xmax = (bw - 1) * mb, ymax = (bh - 1) * mb;
  double evals = 0;
  auto sad0 = [&](const uint8_t* a, const uint8_t* b, int x, int y) {
    uint32_t s = 0;
    for (int j = 0; j < mb; ++j)
      for (int i = 0; i < mb; ++i) {
        const size_t o = static_cast<size_t>(y + j) * clip.width + x + i;
        s += static_cast<uint32_t>(std::abs(int(a[o]) - int(b[o])));
      }
    return s;
  };
  for (int k = 0; k + 1 < inputs && k + 1 < clip.count; ++k) {
    const uint8_t* cur = clip.frame(k);
    const uint8_t* refs[2] = {clip.frame(k > 0 ? k - 1 : 0), clip.frame(k + 1)};
    for (const uint8_t* ref : refs)
      for (int by = 0; by < bh; ++by)
        for (int bx = 0; bx < bw; ++bx) {
          const int x = bx * mb, y = by * mb;
          evals += 1;
          if (sad0(cur, ref, x, y) == 0) continue;
          const int nx = std::min(x + p, xmax) - std::max(0, x - p) + 1;
          const int ny = std::min(y + p, ymax) - std::max(0, y - p) + 1;
          evals += static_cast<double>(nx) * ny;
        }
  }
  return evals;
}

void print_ffmpeg_comparison(const Options& o, const std::vector<Result>& results) {
  const std::vector<FfRun> ff = read_ffmpeg(o.ffmpeg_file);
  if (ff.empty()) return;
  auto find_ff = [&ff](const std::string& method, int w, int h) -> const FfRun* {
    for (const FfRun& r : ff)
      if (r.method == method && r.width == w && r.height == h) return &r;
    return nullptr;
  };
  auto find_ours = [&results](int w, int h, int threads) -> const Result* {
    for (const Result& r : results)
      if (r.width == w && r.height == h && r.block == 16 && r.subpel == 1 &&
          (threads == 0 ? r.threads == all_threads() : r.threads == threads))
        return &r;
    return nullptr;
  };
  /* FFmpeg time minus its own start-up and raw I/O (the -vf null run). */
  auto net_time = [&](const FfRun& r) {
    const FfRun* base = find_ff("null", r.width, r.height);
    const double b = base ? base->rtime * (r.inputs / static_cast<double>(base->inputs)) : 0.0;
    return std::max(1e-9, r.rtime - b);
  };

  std::printf("\nFFmpeg mestimate (method=esa:mb_size=16:search_param=%d, one thread,\n"
              "searches BOTH directions per output frame) vs ours (16x16, integer, +-%d,\n"
              "one direction per frame). ff fps = output frames / net time.\n\n",
              o.range, o.range);
  std::printf("%-10s %8s %9s %9s %9s %8s %9s %9s %8s\n", "size", "ff fps", "ours 1t", "ours all",
              "fps x 1t", "ff ns/c", "ours ns/c", "ns/c x1t", "ff runs");
  std::vector<std::string> extra;
  for (const FfRun& r : ff)
    if (r.method != "esa" && r.method != "null" &&
        std::find(extra.begin(), extra.end(), r.method) == extra.end())
      extra.push_back(r.method);

  std::vector<std::pair<int, int>> sizes;
  for (const FfRun& r : ff)
    if (r.method == "esa" &&
        std::find(sizes.begin(), sizes.end(), std::make_pair(r.width, r.height)) == sizes.end())
      sizes.emplace_back(r.width, r.height);
  for (const auto& wh : sizes) {
    const FfRun* esa = find_ff("esa", wh.first, wh.second);
    const Result* one = find_ours(wh.first, wh.second, 1);
    const Result* all = find_ours(wh.first, wh.second, 0);
    if (!one && !all) continue; /* size not benchmarked in this run */
    char size[32];
    std::snprintf(size, sizeof size, "%dx%d", wh.first, wh.second);
    const double t = net_time(*esa);
    const double ff_fps = esa->outputs / t;
    const bench::Clip clip = bench::load_clip(o.frames_dir, wh.first, wh.second, 0);
    double ff_nsc = NAN;
    if (clip.real && clip.count >= esa->inputs)
      ff_nsc = 1e9 * t / ffmpeg_esa_evaluations(clip, esa->inputs, 16, o.range);
    auto fps = [](const Result* r) { return r ? 1.0 / r->sec_per_frame : NAN; };
    const double our_nsc =
        one ? 1e9 * one->sec_per_frame / (double(one->blocks_per_frame) * one->candidates) : NAN;
    std::printf("%-10s %8.3f %9.2f %9.2f %9.1f %8.3f %9.3f %9.1f %8d\n", size, ff_fps, fps(one),
                fps(all), fps(one) / ff_fps, ff_nsc, our_nsc, ff_nsc / our_nsc, esa->outputs);
  }
  std::printf("\n  ff fps    FFmpeg esa output frames per second (2 searches each)\n"
              "  ours 1t   our fps, threads=1 (1 search per frame); ours all: all cores\n"
              "  fps x 1t  ours 1t / ff fps; per search (FFmpeg does 2) it is half this\n"
              "  ff ns/c   FFmpeg net time / its exact SAD evaluations (border-clipped\n"
              "            windows, zero-SAD early exits counted from the frames)\n"
              "  ns/c x1t  ff ns/c / ours (1 thread): speed per candidate\n");

  if (!extra.empty()) {
    std::printf("\nFFmpeg's other methods, same frames, mb_size=16, search_param=%d (fps, one\n"
                "thread, both directions; not full searches, so not comparable per candidate):\n\n",
                o.range);
    std::printf("%-10s", "size");
    for (const std::string& m : extra) std::printf(" %9s", m.c_str());
    std::printf("\n");
    for (const auto& wh : sizes) {
      char size[32];
      std::snprintf(size, sizeof size, "%dx%d", wh.first, wh.second);
      std::printf("%-10s", size);
      for (const std::string& m : extra) {
        const FfRun* r = find_ff(m, wh.first, wh.second);
        if (r)
          std::printf(" %9.2f", r->outputs / net_time(*r));
        else
          std::printf(" %9s", "-");
      }
      std::printf("\n");
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    usage(argv[0]);
    return 2;
  }
  if (o.sizes.empty()) o.sizes = {{640, 480}, {1280, 720}, {1920, 1080}};
  const bool default_blocks = o.blocks.empty(), default_subpels = o.subpels.empty();
  if (default_blocks) o.blocks = {16, 8};
  if (default_subpels) o.subpels = {1, 2};
  if (o.threads.empty()) o.threads = {1, 0};

  /* Cases in print order: size, block, grid, threads. */
  std::vector<std::tuple<int, int, int>> cases; /* size index, block, subpel */
  for (size_t si = 0; si < o.sizes.size(); ++si)
    for (int b : o.blocks) {
      for (int sp : o.subpels) cases.emplace_back(static_cast<int>(si), b, sp);
      if (default_subpels && o.quarter && b == 16) cases.emplace_back(static_cast<int>(si), b, 4);
    }

  const char* isa = std::getenv("MATCH_CPU_ISA");
  std::printf("bench_blockmatch: CPU backend, range +-%d, backward, threshold off; "
              "%d runs per case (median); all cores = %d threads; MATCH_CPU_ISA=%s\n",
              o.range, o.runs, all_threads(), isa ? isa : "(unset: best)");

  std::vector<Result> results;
  int loaded = -1;
  bench::Clip clip;
  for (const auto& c : cases) {
    const int si = std::get<0>(c);
    if (si != loaded) {
      clip = bench::load_clip(o.frames_dir, o.sizes[si].first, o.sizes[si].second, 12);
      loaded = si;
      std::printf("\n%dx%d: %s, %d frames\n", clip.width, clip.height,
                  clip.real ? bench::clip_path(o.frames_dir, clip.width, clip.height).c_str()
                            : "SYNTHETIC frames (run bench/prepare-frames.sh for real video)",
                  clip.count);
      print_header();
    }
    long one = -1; /* index of this case's threads=1 result */
    for (int th : o.threads) {
      Result r;
      if (!run_case(o, clip, std::get<1>(c), std::get<2>(c), th, &r)) return 1;
      results.push_back(r);
      if (r.threads == 1 && one < 0) one = static_cast<long>(results.size()) - 1;
      print_result(results.back(), one >= 0 ? &results[one] : nullptr);
    }
  }

  std::printf("\n  fps       frames per second (prepare + one search per frame), median of runs\n"
              "  ms/frame  1000 / fps\n"
              "  ns/cand   ns per (block x candidate position): time / (blocks x candidates)\n"
              "  Gpxop/s   pixel absolute differences per second (W x H x candidates / time)\n"
              "  x 1-thr   speed-up over the threads=1 row above\n"
              "  pairs     timed frames per run; spread: (max - min) / median over the runs\n");

  if (!o.ffmpeg_file.empty()) print_ffmpeg_comparison(o, results);
  return 0;
}
