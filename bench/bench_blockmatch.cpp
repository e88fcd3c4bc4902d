/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_blockmatch: times the block matcher (match::BlockMatcher, the
 * GStreamer-free kernel API). Two modes:
 *
 * - CPU suite (default, no case-mode option given): the CPU backend on
 *   consecutive frames of a real video at 640x480..1920x1080, 1 thread and
 *   all cores, optionally next to FFmpeg's mestimate filter measured by
 *   bench/ffmpeg-mestimate.sh.
 * - Case mode (--paper-cases, --case, --backend, --depth, --devices,
 *   --multi-gpu, --peak-gpx or --csv): the cases of the CUDA benchmark issue
 *   (papers [A] and [C], 1080p and 4K; bench_common.h) and/or --size cases,
 *   on the CPU and CUDA backends, one or several GPUs, synchronous or
 *   pipelined (submit()/collect()), with kernel time, wall time per frame,
 *   the paper's figure, the target and the compute floor, in one table.
 *
 * See bench/README.md for the columns. What one measurement is: the
 * matcher is reset, fed frame 0 (untimed: no previous frame, no search),
 * then `pairs` further frames are timed; each of those costs one frame
 * preparation (padded copy, sub-pel planes) and one full search against the
 * frame before. The figure kept is the median over `runs` such
 * measurements.
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

  /* Case mode (see the file comment). */
  bool case_mode = false;
  bool min_run_set = false;
  bool runs_set = false;
  bool paper = false;
  bool list_cases = false;
  bool synthetic = false;
  bool verify = true;
  std::vector<std::string> case_sel;
  std::vector<match::Backend> backends;
  std::vector<std::vector<int>> device_sets;
  std::vector<match::MultiGpuMode> modes;
  std::vector<int> depths;
  double peak_gpx = 0;
  double cpu_max_s = 2.0;
  int max_frames = 2000;
  std::string csv_file;
};

struct Result {
  int width, height, block, subpel, threads;
  double sec_per_frame; /* median */
  double spread;        /* (max - min) / median over the runs */
  long long blocks_per_frame;
  long long candidates; /* per block */
  int pairs;
  bool real;
};

void usage(const char* argv0) {
  std::printf(
      "Usage: %s [options]\n"
      "CPU suite (default):\n"
      "  --frames-dir DIR   raw GRAY8 clips from bench/prepare-frames.sh\n"
      "                     (default $MATCH_BENCH_FRAMES or "
      "$TMPDIR/gst-motion-bench-frames)\n"
      "  --size WxH         only this size (repeatable; default 640x480 1280x720 "
      "1920x1080)\n"
      "  --block N          only N x N blocks (repeatable; default 16 8)\n"
      "  --subpel N         only grid 1 (integer), 2 (half) or 4 (quarter) (repeatable;\n"
      "                     default 1 2, plus 4 for 16x16 blocks)\n"
      "  --no-quarter       drop the default quarter-pel 16x16 cases\n"
      "  --threads N        thread count to time, 0 = all cores (repeatable; default 1 "
      "0)\n"
      "  --range R          search range +-R pixels (default 16)\n"
      "  --pairs N          timed frames per run (default 10; fewer for slow cases,\n"
      "                     so that a run lasts about --min-run-time, at least 3)\n"
      "  --runs N           runs per case; the median is reported (default 5)\n"
      "  --min-run-time S   see --pairs (default 1.0 s; case mode: 0.5 s)\n"
      "  --ffmpeg FILE      results of bench/ffmpeg-mestimate.sh: print the comparison\n"
      "Case mode (any of these options selects it; one table at the end):\n"
      "  --paper-cases      the cases of the CUDA issue: 1 ([A] HDTV), 2 ([A] "
      "real-time),\n"
      "                     3a/3b ([C] 8x8, 16x16), 4-<1080|2160>-r<16|32>-<int|half>\n"
      "                     (also the default in case mode when no --size is given)\n"
      "  --case ID          only cases whose id starts with ID (repeatable): 1, 2, 3, "
      "3a,\n"
      "                     4, 4-1080, 4-2160-r32-half, ...\n"
      "  --list-cases       print the cases and exit\n"
      "  --size WxH ...     extra cases WxH x --block (16) x --subpel (1), range "
      "--range\n"
      "  --backend cpu|cuda backends to time (repeatable; default cuda, and cpu when no\n"
      "                     CUDA device is found). CUDA rows are skipped when\n"
      "                     match::cuda_device_count() == 0\n"
      "  --devices LIST     CUDA device ordinals, e.g. 0 or 0,1 (repeatable: one row "
      "set\n"
      "                     per list; default 0)\n"
      "  --multi-gpu MODE   parallel (block rows of each frame split over the GPUs) or\n"
      "                     serial (successive frames on successive GPUs; as in the\n"
      "                     element, depth is raised to at least GPUs - 1 so that they\n"
      "                     overlap) (repeatable; default parallel)\n"
      "  --depth D          0 = process() per frame (synchronous); D >= 1 = pipelined\n"
      "                     like the element's pipeline-depth=D: submit()/collect() "
      "with\n"
      "                     up to D+1 frames in flight (repeatable; default 0 and 3).\n"
      "                     CUDA rows only: CPU rows run at 0 (the CPU backend computes\n"
      "                     inside submit(), so pipelining changes nothing)\n"
      "  --peak-gpx X       GPU byte-SAD throughput in G pixel-differences/s, from\n"
      "                     sad_peak (SAD_PEAK_GPX): enables the compute-floor columns\n"
      "  --cpu-max-s S      skip CPU rows whose estimated time per frame (all cores)\n"
      "                     exceeds S seconds (default 2)\n"
      "  --max-frames N     most timed frames per run (default 2000)\n"
      "  --no-verify        do not compare CUDA vectors with the CPU's on one frame "
      "pair\n"
      "  --synthetic        synthetic frames for every case (default: the clip of that\n"
      "                     size, else a clip resampled bilinearly, else synthetic)\n"
      "  --csv FILE         also write every row to FILE (CSV)\n",
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
    } else if (a == "--paper-cases") {
      o->paper = o->case_mode = true;
    } else if (a == "--list-cases") {
      o->list_cases = o->case_mode = true;
    } else if (a == "--no-verify") {
      o->verify = false;
    } else if (a == "--synthetic") {
      o->synthetic = true;
    } else if (!next(&v)) {
      return false;
    } else if (const int r = bench::parse_selection_option(a, v, o)) {
      if (r < 0) return false;
    } else if (a == "--frames-dir") {
      o->frames_dir = v;
    } else if (a == "--ffmpeg") {
      o->ffmpeg_file = v;
    } else if (a == "--size") {
      int w, h;
      if (!parse_size(v, &w, &h)) {
        std::fprintf(stderr, "--size wants WxH, got '%s'\n", v);
        return false;
      }
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
      o->runs_set = true;
    } else if (a == "--min-run-time") {
      o->min_run_s = std::atof(v);
      o->min_run_set = true;
    } else if (a == "--depth") {
      const int d = std::atoi(v);
      if (d < 0 || d > match::kMaxInFlight - 1) {
        std::fprintf(stderr, "--depth wants 0..%d, got '%s'\n", match::kMaxInFlight - 1,
                     v);
        return false;
      }
      if (std::find(o->depths.begin(), o->depths.end(), d) == o->depths.end())
        o->depths.push_back(d);
      o->case_mode = true;
    } else if (a == "--peak-gpx") {
      o->peak_gpx = std::atof(v);
      if (!(o->peak_gpx > 0)) {
        std::fprintf(stderr, "--peak-gpx wants a positive number, got '%s'\n", v);
        return false;
      }
      o->case_mode = true;
    } else if (a == "--cpu-max-s") {
      o->cpu_max_s = std::atof(v);
    } else if (a == "--max-frames") {
      o->max_frames = std::max(3, std::atoi(v));
    } else if (a == "--csv") {
      o->csv_file = v;
      o->case_mode = true;
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

using bench::all_threads;

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* One timed run: reset, frame 0 untimed, then `pairs` timed frames.
 * Returns seconds per timed frame, or < 0 on error. */
double timed_run(match::BlockMatcher* m, const bench::Clip& clip, int pairs,
                 const match::BlockMatchRuntime& rt,
                 std::vector<match::BlockVector>* out) {
  bool estimated = false;
  m->reset();
  if (!m->process(bench::view_of(clip, 0), rt, out->data(), &estimated)) return -1;
  const Clock::time_point t0 = Clock::now();
  for (int i = 1; i <= pairs; ++i) {
    match::Status st = m->process(bench::view_of(clip, i), rt, out->data(), &estimated);
    if (!st || !estimated) {
      std::fprintf(stderr, "process failed: %s\n", st.message().c_str());
      return -1;
    }
  }
  return seconds_since(t0) / pairs;
}

bool run_case(const Options& o, const bench::Clip& clip, int block, int subpel,
              int threads, Result* r) {
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
  r->spread =
      (*std::max_element(t.begin(), t.end()) - *std::min_element(t.begin(), t.end())) /
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
  std::printf("%-10s %-6s %-8s %3s %9s %10s %8s %9s %8s %6s %6s\n", "size", "block",
              "grid", "thr", "fps", "ms/frame", "ns/cand", "Gpxop/s", "x 1-thr", "pairs",
              "spread");
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
    if (std::sscanf(line, "%63s %d %d %d %d %lf %lf", method, &r.width, &r.height,
                    &r.inputs, &r.outputs, &r.rtime, &r.utime) == 7) {
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
    const double b =
        base ? base->rtime * (r.inputs / static_cast<double>(base->inputs)) : 0.0;
    return std::max(1e-9, r.rtime - b);
  };

  std::printf(
      "\nFFmpeg mestimate (method=esa:mb_size=16:search_param=%d, one thread,\n"
      "searches BOTH directions per output frame) vs ours (16x16, integer, +-%d,\n"
      "one direction per frame). ff fps = output frames / net time.\n\n",
      o.range, o.range);
  std::printf("%-10s %8s %9s %9s %9s %8s %9s %9s %8s\n", "size", "ff fps", "ours 1t",
              "ours all", "fps x 1t", "ff ns/c", "ours ns/c", "ns/c x1t", "ff runs");
  std::vector<std::string> extra;
  for (const FfRun& r : ff)
    if (r.method != "esa" && r.method != "null" &&
        std::find(extra.begin(), extra.end(), r.method) == extra.end())
      extra.push_back(r.method);

  std::vector<std::pair<int, int>> sizes;
  for (const FfRun& r : ff)
    if (r.method == "esa" && std::find(sizes.begin(), sizes.end(),
                                       std::make_pair(r.width, r.height)) == sizes.end())
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
        one ? 1e9 * one->sec_per_frame / (double(one->blocks_per_frame) * one->candidates)
            : NAN;
    std::printf("%-10s %8.3f %9.2f %9.2f %9.1f %8.3f %9.3f %9.1f %8d\n", size, ff_fps,
                fps(one), fps(all), fps(one) / ff_fps, ff_nsc, our_nsc, ff_nsc / our_nsc,
                esa->outputs);
  }
  std::printf(
      "\n  ff fps    FFmpeg esa output frames per second (2 searches each)\n"
      "  ours 1t   our fps, threads=1 (1 search per frame); ours all: all cores\n"
      "  fps x 1t  ours 1t / ff fps; per search (FFmpeg does 2) it is half this\n"
      "  ff ns/c   FFmpeg net time / its exact SAD evaluations (border-clipped\n"
      "            windows, zero-SAD early exits counted from the frames)\n"
      "  ns/c x1t  ff ns/c / ours (1 thread): speed per candidate\n");

  if (!extra.empty()) {
    std::printf(
        "\nFFmpeg's other methods, same frames, mb_size=16, search_param=%d (fps, one\n"
        "thread, both directions; not full searches, so not comparable per "
        "candidate):\n\n",
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

/* ---- Case mode ------------------------------------------------------------ */

struct Row {
  size_t ci = 0; /* index into the case list */
  match::Backend backend = match::Backend::kCpu;
  std::vector<int> devices;
  match::MultiGpuMode mode = match::MultiGpuMode::kParallel;
  int depth = 0;           /* as run */
  int requested_depth = 0; /* as asked (serial raises it) */
  std::string label, description;
  double kernel_ms = -1, wall_ms = -1, spread = 0;
  int frames = 0, runs = 0;
  std::string check = "-";
  std::string status; /* empty = measured; else why there is no figure */
};

using Fields = std::vector<std::vector<match::BlockVector>>;

/* Frames of the multi-GPU check: enough that a serial split hands pairs to
 * every GPU in turn and the pipeline is full at the deepest depth run. */
constexpr int kCheckFrames = 8;

/* Blocks that differ between two runs of fields (all of them if the runs
 * have different lengths). */
size_t count_diff(const Fields& a, const Fields& b) {
  size_t diff = 0;
  for (size_t f = 0; f < std::max(a.size(), b.size()); ++f) {
    if (f >= a.size() || f >= b.size() || a[f].size() != b[f].size()) {
      diff += f < a.size() ? a[f].size() : b[f].size();
      continue;
    }
    for (size_t i = 0; i < a[f].size(); ++i) {
      const match::BlockVector &u = a[f][i], &v = b[f][i];
      if (u.dx != v.dx || u.dy != v.dy || u.cost != v.cost || u.flags != v.flags) ++diff;
    }
  }
  return diff;
}

/* Times one row (one case on one backend configuration). `ref`: the CPU
 * backend's vectors of pair 0 -> 1, to equal exactly. CUDA rows also run
 * kCheckFrames pairs at their depth: a one-GPU row keeps those fields in
 * `fields_out`, a multi-GPU row compares its own with `one_gpu` (the
 * one-GPU row's of the same case), since the CPU is often too slow for a
 * reference on the multi-GPU cases. */
void measure_row(const Options& o, const bench::Case& c, const bench::Clip& clip,
                 const std::vector<match::BlockVector>* ref, const Fields* one_gpu,
                 Fields* fields_out, Row* r) {
  match::DeviceOptions dopt;
  dopt.devices = r->devices;
  dopt.mode = r->mode;
  std::unique_ptr<match::BlockMatcher> m;
  match::Status st = match::BlockMatcher::create(r->backend, c.config(), &m, dopt);
  if (!st) {
    r->status = "FAILED to create the matcher: " + st.message();
    return;
  }
  r->description = m->description();
  if (r->backend == match::Backend::kCuda && r->mode == match::MultiGpuMode::kSerial &&
      r->depth < static_cast<int>(r->devices.size()) - 1) {
    std::printf(
        "  note: serial split on %zu GPUs: depth %d raised to %zu (as the element "
        "does)\n",
        r->devices.size(), r->depth, r->devices.size() - 1);
    r->depth = static_cast<int>(r->devices.size()) - 1;
  }
  if (r->depth > m->max_in_flight() - 1) {
    std::printf(
        "  note: depth %d needs %d frames in flight, %s takes %d; using depth %d\n",
        r->depth, r->depth + 1, r->description.c_str(), m->max_in_flight(),
        m->max_in_flight() - 1);
    r->depth = m->max_in_flight() - 1;
  }
  match::BlockMatchRuntime rt;
  rt.threads = 0; /* CPU: all cores */
  std::vector<match::BlockVector> out(c.config().num_blocks());

  if (ref) { /* results must equal the CPU backend's exactly */
    bool est = false;
    m->reset();
    st = m->process(bench::view_of(clip, 0), rt, out.data(), &est);
    if (st) st = m->process(bench::view_of(clip, 1), rt, out.data(), &est);
    if (!st) {
      r->status = "FAILED on the check frames: " + st.message();
      return;
    }
    int diff = 0;
    for (size_t i = 0; i < out.size(); ++i) {
      const match::BlockVector &a = out[i], &b = (*ref)[i];
      if (a.dx != b.dx || a.dy != b.dy || a.cost != b.cost || a.flags != b.flags) ++diff;
    }
    r->check = diff == 0 ? "ok" : std::to_string(diff) + " DIFF";
  }
  if (r->backend == match::Backend::kCuda && (one_gpu || fields_out)) {
    Fields fields;
    bench::RunTiming t;
    st = bench::timed_run(m.get(), clip, kCheckFrames, r->depth, rt, &out, &t, &fields);
    if (!st) {
      r->status = "FAILED on the check frames: " + st.message();
      return;
    }
    if (fields_out) *fields_out = std::move(fields);
    if (one_gpu) {
      const size_t diff = count_diff(fields, *one_gpu);
      const std::string c1 =
          diff == 0 ? "1gpu ok" : "1gpu " + std::to_string(diff) + " DIFF";
      r->check = r->check == "-" ? c1 : r->check + ", " + c1;
    }
  }

  /* Warm-up (allocations, contexts, page faults) that also sizes the runs. */
  bench::RunTiming t;
  st = bench::timed_run(m.get(), clip, 1, r->depth, rt, &out, &t);
  double probe = t.sec_per_frame;
  if (st && probe < 0.05) {
    const int n = std::min(
        200, std::max(2, static_cast<int>(std::ceil(0.05 / std::max(probe, 1e-6)))));
    st = bench::timed_run(m.get(), clip, n, r->depth, rt, &out, &t);
    probe = t.sec_per_frame;
  }
  if (!st) {
    r->status = "FAILED: " + st.message();
    return;
  }
  const double min_run = o.min_run_set ? o.min_run_s : 0.5;
  const int frames =
      std::min(o.max_frames,
               std::max(3, static_cast<int>(std::ceil(min_run / std::max(probe, 1e-7)))));
  const int runs = (probe > 1.0 && !o.runs_set) ? std::min(o.runs, 3) : o.runs;
  std::vector<double> secs, kms;
  for (int run = 0; run < runs; ++run) {
    st = bench::timed_run(m.get(), clip, frames, r->depth, rt, &out, &t);
    if (!st) {
      r->status = "FAILED: " + st.message();
      return;
    }
    secs.push_back(t.sec_per_frame);
    kms.insert(kms.end(), t.kernel_ms.begin(), t.kernel_ms.end());
  }
  r->wall_ms = 1e3 * bench::median(secs);
  r->kernel_ms = kms.empty() ? -1 : bench::median(kms);
  r->spread = bench::spread(secs);
  r->frames = frames;
  r->runs = runs;
}

/* Our figure compared with a paper figure or a target of basis `b`. */
double ours_ms(const Row& r, bench::Basis b) {
  if (b == bench::Basis::kKernel && r.kernel_ms >= 0) return r.kernel_ms;
  return r.wall_ms;
}

const Row* find_row(const std::vector<Row>& rows, size_t ci,
                    bool (*pred)(const Row&, const Row&), const Row& me) {
  for (const Row& r : rows)
    if (r.ci == ci && r.status.empty() && &r != &me && pred(r, me)) return &r;
  return nullptr;
}

int run_case_mode(Options& o) {
  /* Cases. */
  std::vector<bench::Case> cases;
  if (o.paper || o.sizes.empty())
    for (const bench::Case& c : bench::paper_cases())
      if (bench::case_selected(c.id, o.case_sel)) cases.push_back(c);
  if (!o.sizes.empty()) {
    if (o.blocks.empty()) o.blocks = {16};
    if (o.subpels.empty()) o.subpels = {1};
    for (const auto& wh : o.sizes)
      for (int b : o.blocks)
        for (int sp : o.subpels)
          cases.push_back(bench::custom_case(wh.first, wh.second, b, o.range, sp));
  }
  if (cases.empty()) {
    std::fprintf(stderr,
                 "no case selected (--case matches ids listed by --list-cases)\n");
    return 2;
  }
  for (const bench::Case& c : cases) {
    const match::Status st = c.config().validate();
    if (!st) {
      std::fprintf(stderr, "case %s: %s\n", c.id.c_str(), st.message().c_str());
      return 2;
    }
  }
  if (o.list_cases) {
    bench::print_case_legend(cases);
    return 0;
  }

  /* Backends. */
  const int ndev = match::cuda_device_count();
  std::vector<std::string> notes;
  bool want_cpu = false, want_cuda = false;
  bench::pick_backends(&o.backends, ndev, &notes, &want_cpu, &want_cuda);
  if (o.device_sets.empty()) o.device_sets = {{0}};
  if (o.modes.empty()) o.modes = {match::MultiGpuMode::kParallel};
  const std::vector<int> cuda_depths =
      o.depths.empty() ? std::vector<int>{0, 3} : o.depths;
  /* The CPU backend computes inside submit(): pipelining changes nothing. */
  const std::vector<int> cpu_depths = {0};
  std::vector<std::vector<int>> device_sets;
  if (want_cuda)
    for (const std::vector<int>& set : o.device_sets) {
      const bool ok =
          std::all_of(set.begin(), set.end(), [ndev](int d) { return d < ndev; });
      if (ok)
        device_sets.push_back(set);
      else
        notes.push_back("devices " + bench::devices_string(set) +
                        " SKIPPED: this host has " + std::to_string(ndev) +
                        " CUDA device(s)");
    }

  if (!want_cpu && !want_cuda) {
    for (const std::string& n : notes) std::printf("NOTE: %s\n", n.c_str());
    std::printf(
        "bench_blockmatch: nothing to time (no usable backend among those asked for)\n");
    return 0;
  }
  std::string cpu_desc = "cpu";
  {
    std::unique_ptr<match::BlockMatcher> m;
    if (match::BlockMatcher::create(match::Backend::kCpu, cases[0].config(), &m))
      cpu_desc = m->description();
  }
  const double min_run = o.min_run_set ? o.min_run_s : 0.5;
  std::printf(
      "bench_blockmatch (case mode): %zu case(s); backends:%s%s; direction backward, "
      "threshold off\n",
      cases.size(), want_cuda ? " cuda" : "", want_cpu ? " cpu" : "");
  std::printf(
      "CPU: %s, %d threads (all cores); MATCH_CPU_ISA=%s\n", cpu_desc.c_str(),
      all_threads(),
      std::getenv("MATCH_CPU_ISA") ? std::getenv("MATCH_CPU_ISA") : "(unset: best)");
  bench::print_cuda_devices(stdout);
  if (o.peak_gpx > 0)
    std::printf(
        "compute floor: %.1f G pixel-differences/s per GPU (--peak-gpx, from sad_peak)\n",
        o.peak_gpx);
  else
    std::printf(
        "compute floor: not computed (no --peak-gpx; run bench/sad_peak and pass its "
        "SAD_PEAK_GPX)\n");
  std::printf(
      "timing: warm-up, then %d runs (3 when a frame takes > 1 s) of N timed frames, N "
      "sized to last ~%.2g s (3..%d); medians\n",
      o.runs, min_run, o.max_frames);
  for (const std::string& n : notes) std::printf("NOTE: %s\n", n.c_str());
  std::printf("\n");
  bench::print_case_legend(cases);
  std::fflush(stdout);

  /* Frames: one clip per size, loaded when first needed. */
  bench::ClipCache clip_cache(o.frames_dir, o.synthetic);
  auto clip_for = [&](const bench::Case& c) -> const bench::Clip& {
    return clip_cache.get(c.width, c.height);
  };

  std::vector<Row> rows;
  std::vector<std::string> frame_notes;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const bench::Case& c = cases[ci];
    const bench::Clip& clip = clip_for(c);
    std::printf(
        "\ncase %s (%s): %dx%d, blocks %dx%d, +-%dx%d, %s, %lld candidates per block\n",
        c.id.c_str(), c.title.c_str(), c.width, c.height, c.block_w, c.block_h, c.range_x,
        c.range_y, bench::grid_name(c.subpel), c.candidates());
    std::fflush(stdout);

    /* CPU: feasible? and the reference vectors for the CUDA check. */
    double cpu_est = -1;
    std::vector<match::BlockVector> ref;
    bool have_ref = false;
    if (want_cpu || (want_cuda && o.verify)) {
      cpu_est = bench::estimate_cpu_seconds(c, clip);
      std::printf(
          "  cpu estimate: %s s/frame with %d threads (from a crop of the frame)\n",
          bench::fmt_double(cpu_est, "%.3g").c_str(), all_threads());
      if (want_cuda && o.verify && cpu_est >= 0 && cpu_est <= o.cpu_max_s) {
        std::unique_ptr<match::BlockMatcher> m;
        if (match::BlockMatcher::create(match::Backend::kCpu, c.config(), &m)) {
          ref.resize(c.config().num_blocks());
          match::BlockMatchRuntime rt;
          bool est = false;
          have_ref = m->process(bench::view_of(clip, 0), rt, ref.data(), &est) &&
                     m->process(bench::view_of(clip, 1), rt, ref.data(), &est) && est;
        }
      }
    }

    std::vector<Row> todo;
    for (match::Backend b : o.backends) {
      if (b == match::Backend::kCuda && want_cuda) {
        for (const std::vector<int>& set : device_sets) {
          const std::vector<match::MultiGpuMode> modes =
              set.size() > 1
                  ? o.modes
                  : std::vector<match::MultiGpuMode>{match::MultiGpuMode::kParallel};
          for (match::MultiGpuMode mode : modes)
            for (int d : cuda_depths) {
              Row r;
              r.ci = ci, r.backend = b, r.devices = set, r.mode = mode;
              r.depth = r.requested_depth = d;
              r.label = bench::backend_label(b, set, mode);
              todo.push_back(r);
            }
        }
      } else if (b == match::Backend::kCpu) {
        for (int d : cpu_depths) {
          Row r;
          r.ci = ci, r.backend = b, r.label = "cpu";
          r.depth = r.requested_depth = d;
          if (cpu_est > o.cpu_max_s) {
            char msg[160];
            std::snprintf(msg, sizeof msg,
                          "skipped: estimated %.3g s/frame on the CPU > --cpu-max-s %.3g",
                          cpu_est, o.cpu_max_s);
            r.status = msg;
          }
          todo.push_back(r);
        }
      }
    }
    /* One-GPU rows first: the multi-GPU rows compare their vectors with
     * theirs. */
    std::stable_partition(todo.begin(), todo.end(), [](const Row& r) {
      return !(r.backend == match::Backend::kCuda && r.devices.size() > 1);
    });
    Fields one_gpu_fields;
    bool have_one_gpu = false;
    for (Row& r : todo) {
      const bool cuda = r.backend == match::Backend::kCuda;
      const bool multi = cuda && r.devices.size() > 1;
      if (r.status.empty())
        measure_row(o, c, clip, (cuda && have_ref) ? &ref : nullptr,
                    multi && have_one_gpu ? &one_gpu_fields : nullptr,
                    cuda && !multi && !have_one_gpu ? &one_gpu_fields : nullptr, &r);
      if (cuda && !multi && r.status.empty()) have_one_gpu = true;
      if (r.status.empty())
        std::printf(
            "  %-13s D=%d  kernel %s ms  wall %s ms  %s fps  (%d frames x %d runs, "
            "spread %.1f%%)  check %s  [%s]\n",
            r.label.c_str(), r.depth, bench::fmt_ms(r.kernel_ms).c_str(),
            bench::fmt_ms(r.wall_ms).c_str(), bench::fmt_fps(r.wall_ms).c_str(), r.frames,
            r.runs, 100 * r.spread, r.check.c_str(), r.description.c_str());
      else
        std::printf("  %-13s D=%d  %s\n", r.label.c_str(), r.depth, r.status.c_str());
      std::fflush(stdout);
      rows.push_back(r);
    }
  }

  /* ---- The table ---- */
  auto cpu_pred = [](const Row& r, const Row&) {
    return r.backend == match::Backend::kCpu;
  };
  auto one_gpu_pred = [](const Row& r, const Row& me) {
    return r.backend == match::Backend::kCuda && r.devices.size() == 1 &&
           r.devices[0] == me.devices[0] && r.requested_depth == me.requested_depth;
  };

  std::printf("\n==== Results ====\n\n");
  bench::print_case_legend(cases);
  std::printf("\n");
  clip_cache.print_origins();
  std::printf(
      "\n%-16s %-13s %2s %9s %9s %8s %8s %7s %-15s %-4s %8s %7s %7s %6s %-15s %8s %6s\n",
      "case", "backend", "D", "kernel ms", "wall ms", "fps", "paper ms", "x paper",
      "target", "met", "floor ms", "x floor", "x cpu", "x 1gpu", "check", "frames",
      "spread");
  FILE* csv = nullptr;
  if (!o.csv_file.empty()) {
    csv = std::fopen(o.csv_file.c_str(), "w");
    if (!csv)
      std::fprintf(stderr, "cannot write %s\n", o.csv_file.c_str());
    else
      std::fprintf(
          csv,
          "case,title,width,height,block_w,block_h,range_x,range_y,subpel,candidates,"
          "paper_candidates,backend,description,devices,multi_gpu,depth,kernel_ms,"
          "wall_ms,fps,paper_ms,x_paper,target,target_met,floor_ms,x_floor,x_cpu,"
          "x_1gpu,check,frames,runs,spread,frames_source,status\n");
  }
  size_t last_ci = static_cast<size_t>(-1);
  bool starred = false;
  for (const Row& r : rows) {
    const bench::Case& c = cases[r.ci];
    const bench::Clip& clip = clip_for(c);
    if (last_ci != static_cast<size_t>(-1) && r.ci != last_ci) std::printf("\n");
    last_ci = r.ci;
    const bool cuda = r.backend == match::Backend::kCuda;
    const int gpus_per_frame = (cuda && r.mode == match::MultiGpuMode::kParallel)
                                   ? static_cast<int>(r.devices.size())
                                   : 1;
    const double floor = cuda ? bench::floor_ms(c, o.peak_gpx, gpus_per_frame) : -1;
    const double paper_ours = c.paper_ms > 0 ? ours_ms(r, c.paper_basis) : -1;
    std::string met = "-";
    if (cuda && r.status.empty()) {
      const double ms = ours_ms(r, c.target_basis);
      if (!(c.target_basis == bench::Basis::kKernel && r.kernel_ms < 0))
        met = bench::target_met(c, ms);
      if (c.target_basis == bench::Basis::kElement && met != "-") {
        met += "*";
        starred = true;
      }
    }
    const Row* cpu_row = cuda ? find_row(rows, r.ci, cpu_pred, r) : nullptr;
    const Row* one_row =
        (cuda && r.devices.size() > 1) ? find_row(rows, r.ci, one_gpu_pred, r) : nullptr;
    const std::string x_paper = bench::fmt_ratio(c.paper_ms, paper_ours);
    const std::string x_floor = bench::fmt_ratio(r.kernel_ms, floor);
    const std::string x_cpu =
        cpu_row ? bench::fmt_ratio(cpu_row->wall_ms, r.wall_ms) : "-";
    const std::string x_1gpu =
        one_row ? bench::fmt_ratio(one_row->wall_ms, r.wall_ms) : "-";
    char frames[32] = "-";
    if (r.status.empty()) std::snprintf(frames, sizeof frames, "%dx%d", r.frames, r.runs);
    if (r.status.empty())
      std::printf(
          "%-16s %-13s %2d %9s %9s %8s %8s %7s %-15s %-4s %8s %7s %7s %6s %-15s %8s "
          "%5.1f%%\n",
          c.id.c_str(), r.label.c_str(), r.depth, bench::fmt_ms(r.kernel_ms).c_str(),
          bench::fmt_ms(r.wall_ms).c_str(), bench::fmt_fps(r.wall_ms).c_str(),
          c.paper_ms > 0 ? bench::fmt_ms(c.paper_ms).c_str() : "-", x_paper.c_str(),
          c.target_text.empty() ? "-" : c.target_text.c_str(), met.c_str(),
          bench::fmt_ms(floor).c_str(), x_floor.c_str(), x_cpu.c_str(), x_1gpu.c_str(),
          r.check.c_str(), frames, 100 * r.spread);
    else
      std::printf("%-16s %-13s %2d %s\n", c.id.c_str(), r.label.c_str(), r.depth,
                  r.status.c_str());
    if (csv) {
      std::fprintf(
          csv,
          "%s,%s,%d,%d,%d,%d,%d,%d,%d,%lld,%lld,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%"
          "s,%s,%s,"
          "%s,%d,%d,%s,%s,%s\n",
          bench::csv(c.id).c_str(), bench::csv(c.title).c_str(), c.width, c.height,
          c.block_w, c.block_h, c.range_x, c.range_y, c.subpel, c.candidates(),
          c.paper_candidates, match::backend_name(r.backend),
          bench::csv(r.description).c_str(),
          cuda ? bench::csv(bench::devices_string(r.devices)).c_str() : "",
          cuda && r.devices.size() > 1 ? bench::mode_name(r.mode) : "", r.depth,
          bench::fmt_double(r.kernel_ms).c_str(), bench::fmt_double(r.wall_ms).c_str(),
          r.wall_ms > 0 ? bench::fmt_double(1e3 / r.wall_ms).c_str() : "",
          c.paper_ms > 0 ? bench::fmt_double(c.paper_ms).c_str() : "",
          x_paper == "-" ? "" : x_paper.c_str(), bench::csv(c.target_text).c_str(),
          met == "-" ? "" : met.c_str(), bench::fmt_double(floor).c_str(),
          x_floor == "-" ? "" : x_floor.c_str(), x_cpu == "-" ? "" : x_cpu.c_str(),
          x_1gpu == "-" ? "" : x_1gpu.c_str(), r.check == "-" ? "" : r.check.c_str(),
          r.frames, r.runs,
          r.status.empty() ? bench::fmt_double(r.spread, "%.4f").c_str() : "",
          bench::csv(clip.origin).c_str(),
          bench::csv(r.status.empty() ? "ok" : r.status).c_str());
    }
  }
  if (csv) {
    std::fclose(csv);
    std::printf("\n(written to %s)\n", o.csv_file.c_str());
  }
  for (const std::string& n : notes) std::printf("NOTE: %s\n", n.c_str());
  std::printf(
      "\n"
      "  cands      candidates per block, ours (paper's). Our grid v = (i,j)/subpel, |v| "
      "<= range,\n"
      "             includes both ends of the window, so it has a few more candidates "
      "than the\n"
      "             paper; times are compared directly, the floor uses our count\n"
      "  Gpxdiff    pixel differences per frame, 1e9 (candidates x W x H)\n"
      "  D          0: process() per frame (synchronous, latency); D >= 1: pipelined as "
      "the\n"
      "             element's pipeline-depth=D, submit()/collect() with up to D+1 frames "
      "in\n"
      "             flight (throughput)\n"
      "  kernel ms  median over all timed frames of stats().kernel_ms: GPU device time "
      "of a frame\n"
      "             (preparation, search, reduction; not the host<->device copies); '-' "
      "on the CPU\n"
      "  wall ms    median over runs of host wall time per frame, frames already in host "
      "memory,\n"
      "             copies included; fps = 1000 / wall ms\n"
      "  paper ms   the paper's time per frame (case 2: 30 fps = 33.3 ms)\n"
      "  x paper    paper ms / ours: ours = kernel ms for case 3 (the paper's figures "
      "are kernel\n"
      "             times) on CUDA, otherwise wall ms\n"
      "  target     the issue's target on one H100; met: yes / NO (CUDA rows only; "
      "kernel ms for\n"
      "             '<0.1 ms kernel', else wall ms)%s\n"
      "  floor ms   candidates x W x H / (peak G pixel-differences/s), divided by the "
      "GPU count\n"
      "             for a parallel split; x floor = kernel ms / floor ms (1 = at the "
      "floor)\n"
      "  x cpu      the CPU row's wall ms / this row's (same case)\n"
      "  x 1gpu     the one-GPU row's wall ms (same case, same first device, same "
      "requested D)\n"
      "             / this row's wall ms (a serial split runs at D >= GPUs - 1)\n"
      "  check      CUDA vectors vs the CPU backend's on frame pair 0->1: ok, or the "
      "number of\n"
      "             blocks that differ; '-' not checked (CPU too slow for the case, or "
      "--no-verify);\n"
      "             multi-GPU rows also '1gpu ok' (or '1gpu N DIFF'): the vectors of %d "
      "frames\n"
      "             at the row's D, block by block against the first one-GPU row's\n"
      "  frames     timed frames per run x runs; spread = (slowest - fastest run) / "
      "median\n",
      starred ? "\n             *: the target is through the element (bench_element); "
                "here the\n"
                "             kernel-level wall fps, an upper bound, stands in"
              : "",
      kCheckFrames);
  bool failed = false;
  for (const Row& r : rows) {
    if (r.status.compare(0, 6, "FAILED") == 0) failed = true;
    if (r.check.find("DIFF") != std::string::npos) {
      std::printf(
          "WARNING: case %s, %s D=%d: the CUDA vectors differ from the CPU's (%s)\n",
          cases[r.ci].id.c_str(), r.label.c_str(), r.depth, r.check.c_str());
      failed = true;
    }
  }
  if (failed)
    std::printf("bench_blockmatch: some rows FAILED or differ (exit status 1)\n");
  return failed ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    usage(argv[0]);
    return 2;
  }
  if (o.case_mode) return run_case_mode(o);
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
      if (default_subpels && o.quarter && b == 16)
        cases.emplace_back(static_cast<int>(si), b, 4);
    }

  const char* isa = std::getenv("MATCH_CPU_ISA");
  std::printf(
      "bench_blockmatch: CPU backend, range +-%d, backward, threshold off; "
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
                  clip.real
                      ? bench::clip_path(o.frames_dir, clip.width, clip.height).c_str()
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

  std::printf(
      "\n  fps       frames per second (prepare + one search per frame), median of runs\n"
      "  ms/frame  1000 / fps\n"
      "  ns/cand   ns per (block x candidate position): time / (blocks x candidates)\n"
      "  Gpxop/s   pixel absolute differences per second (W x H x candidates / time)\n"
      "  x 1-thr   speed-up over the threads=1 row above\n"
      "  pairs     timed frames per run; spread: (max - min) / median over the runs\n");

  if (!o.ffmpeg_file.empty()) print_ffmpeg_comparison(o, results);
  return 0;
}
