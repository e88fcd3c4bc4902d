/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_poc: times phase-only-correlation motion estimation through the
 * backend-neutral match::PocMatcher API (kernels/include/match/poc.h), on
 * the cases of the pocme issue:
 *
 *   E-720-256   paper [E]: 1280x720, one vector per 32x32 block, 256x256
 *               windows, 2-layer hierarchical search; target > 600 fps (H100,
 *               issue 18; it was 300)
 *   1080-64     1920x1080, 64x64 windows, one vector per 16x16 block;
 *               target > 2000 fps (H100, issue 18; it was 1000)
 *   480-64      720x480, 64x64 windows, 16x16 blocks (no target)
 *   1080-128    1920x1080, 128x128 windows, 32x32 blocks (no target)
 *
 * "2-layer hierarchical search" is the paper's l_max = 2: POCs at two
 * layers (the half-size layer, then the frame). PocConfig::layers counts the
 * coarser layers searched (ref/poc_ref.cpp: l_max = layers + 1), so the
 * cases run layers = 1 (--layers changes it for every case).
 *
 * One measurement: reset(), frame 0 fed untimed (no previous frame), then
 * --frames timed process() calls, each one frame preparation (float copy,
 * coarser layers) and one estimate of every block against the frame before;
 * frames walk the clip 0, 1, .., n-1, n-2, .. so successive frames are
 * neighbours in the video. A warm-up run of 2 frames first; --runs
 * measurements, the median is reported.
 *
 * Agreement: for a backend other than the CPU, one frame pair (clip frames
 * 0 -> 1) is estimated by both and the fraction of vectors whose dx and dy
 * are both within 0.05 px of the CPU's is printed (the CPU backend itself
 * is tested against the double-precision reference in
 * tests/kernels/test_poc.cpp).
 *
 * A backend that cannot be created (create() returns kUnavailable: no CUDA
 * POC backend in this build, no device) gets a row saying so; that is not
 * an error (exit status 0).
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
#include "match/poc.h"

namespace {

struct PocCase {
  std::string id, title;
  int width, height, window, spacing, layers;
  double target_fps; /* on one H100; 0 = none */
};

std::vector<PocCase> poc_cases(int layers) {
  return {
      {"E-720-256", "[E] 720p N=256 s=32", 1280, 720, 256, 32, layers, 600},
      {"1080-64", "1080p N=64 s=16", 1920, 1080, 64, 16, layers, 2000},
      {"480-64", "480p N=64 s=16", 720, 480, 64, 16, layers, 0},
      {"1080-128", "1080p N=128 s=32", 1920, 1080, 128, 32, layers, 0},
  };
}

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::vector<std::string> case_sel;
  std::vector<std::string> backends; /* "cpu", "cuda", "auto" */
  int frames = 10;
  int runs = 3;
  int threads = 0;
  int layers = 1;
  double lowpass = -1; /* < 0: PocConfig's default */
  bool synthetic = false;
  bool verify = true;
  bool list = false;
  std::string csv_file;
  bool robust = true;  /* PocConfig::robust (--no-robust) */
  bool median = false; /* PocConfig::median (--median) */
  /* PocConfig::coarse (--coarse), the library's default unless given */
  match::PocCoarse coarse = match::PocConfig().coarse;
  int depth = 0; /* frames in flight (submit/collect), 0 = process() */
  bool finish_cost = false;
  bool three_frames = false;
  /* A custom case: --size WxH --window N --spacing S. */
  int cw = 0, ch = 0, cwindow = 64, cspacing = 16;
};

void usage(const char* argv0) {
  std::printf(
      "Usage: %s [options]\n"
      "  --paper-cases      the cases of the pocme issue (default): E-720-256 (paper "
      "[E],\n"
      "                     target >300 fps on an H100), 1080-64 (>1000 fps), 480-64,\n"
      "                     1080-128\n"
      "  --case ID          only cases whose id starts with ID (repeatable)\n"
      "  --list-cases       print the cases and exit\n"
      "  --size WxH         a custom case instead (with --window N, --spacing S)\n"
      "  --window N         custom case window size (default 64)\n"
      "  --spacing S        custom case block spacing (default 16)\n"
      "  --layers L         coarser layers for every case (default 1: the paper's\n"
      "                     2-layer search)\n"
      "  --lowpass X        PocConfig::lowpass (default: PocConfig's default)\n"
      "  --backend B        cpu, cuda or auto (repeatable; default cpu)\n"
      "  --threads N        CPU worker threads, 0 = all cores (default 0)\n"
      "  --frames N         timed frames per run (default 10)\n"
      "  --runs N           runs; the median is reported (default 3)\n"
      "  --no-verify        skip the agreement check with the CPU backend\n"
      "  --no-robust        PocConfig::robust = false (no candidate check)\n"
      "  --median           PocConfig::median = true\n"
      "  --coarse MODE      PocConfig::coarse: per-block, shared or shared-median\n"
      "                     (default: PocConfig's, shared-median; docs/pocme.md)\n"
      "  --depth D          pipelined: D frames submitted ahead of collect() (0..7;\n"
      "                     default 0 = process())\n"
      "  --finish-cost      time the host poc_finish stage alone (the CPU backend's\n"
      "                     last stage) on a smooth, a random and the CPU's real field\n"
      "  --three-frames     with --finish-cost: forward fields of frames 1 -> 2, "
      "without\n"
      "                     and with frame 0 before them (the layer vote's third frame)\n"
      "  --frames-dir DIR   raw GRAY8 clips from bench/prepare-frames.sh\n"
      "                     (default $MATCH_BENCH_FRAMES or "
      "$TMPDIR/gst-motion-bench-frames)\n"
      "  --synthetic        synthetic moving texture instead of video frames\n"
      "  --csv FILE         also write every row to FILE (CSV)\n",
      argv0);
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", a.c_str());
        return nullptr;
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      usage(argv[0]);
      std::exit(0);
    } else if (a == "--paper-cases") {
      /* the default */
    } else if (a == "--list-cases") {
      o->list = true;
    } else if (a == "--synthetic") {
      o->synthetic = true;
    } else if (a == "--no-verify") {
      o->verify = false;
    } else if (a == "--no-robust") {
      o->robust = false;
    } else if (a == "--median") {
      o->median = true;
    } else if (a == "--finish-cost") {
      o->finish_cost = true;
    } else if (a == "--three-frames") {
      o->three_frames = true;
    } else {
      const char* v = value();
      if (!v) return false;
      if (a == "--case") {
        o->case_sel.push_back(v);
      } else if (a == "--backend") {
        const std::string b = v;
        if (b != "cpu" && b != "cuda" && b != "auto") {
          std::fprintf(stderr, "--backend wants cpu, cuda or auto, got '%s'\n", v);
          return false;
        }
        if (std::find(o->backends.begin(), o->backends.end(), b) == o->backends.end())
          o->backends.push_back(b);
      } else if (a == "--size") {
        if (std::sscanf(v, "%dx%d", &o->cw, &o->ch) != 2 || o->cw <= 0 || o->ch <= 0) {
          std::fprintf(stderr, "--size wants WxH, got '%s'\n", v);
          return false;
        }
      } else if (a == "--window") {
        o->cwindow = std::atoi(v);
      } else if (a == "--spacing") {
        o->cspacing = std::atoi(v);
      } else if (a == "--depth") {
        o->depth = std::min(std::max(0, std::atoi(v)), match::kMaxInFlight - 1);
      } else if (a == "--coarse") {
        const std::string m = v;
        if (m == "per-block") {
          o->coarse = match::PocCoarse::kPerBlock;
        } else if (m == "shared") {
          o->coarse = match::PocCoarse::kShared;
        } else if (m == "shared-median") {
          o->coarse = match::PocCoarse::kSharedMedian;
        } else {
          std::fprintf(
              stderr, "--coarse wants per-block, shared or shared-median, got '%s'\n", v);
          return false;
        }
      } else if (a == "--layers") {
        o->layers = std::atoi(v);
      } else if (a == "--lowpass") {
        o->lowpass = std::atof(v);
      } else if (a == "--threads") {
        o->threads = std::max(0, std::atoi(v));
      } else if (a == "--frames") {
        o->frames = std::max(1, std::atoi(v));
      } else if (a == "--runs") {
        o->runs = std::max(1, std::atoi(v));
      } else if (a == "--frames-dir") {
        o->frames_dir = v;
      } else if (a == "--csv") {
        o->csv_file = v;
      } else {
        std::fprintf(stderr, "unknown option %s\n", a.c_str());
        return false;
      }
    }
  }
  if (o->backends.empty()) o->backends.push_back("cpu");
  return true;
}

match::Backend backend_of(const std::string& s) {
  return s == "cuda"   ? match::Backend::kCuda
         : s == "auto" ? match::Backend::kAuto
                       : match::Backend::kCpu;
}

using bench::all_threads;

/* One timed run (see the file comment); seconds per timed frame, < 0 on
 * error (after saying why). */
double timed_run(match::PocMatcher* m, const bench::Clip& clip, int frames,
                 const match::PocRuntime& rt, std::vector<match::PocVector>* out,
                 int depth = 0) {
  bool estimated = false;
  m->reset();
  if (depth > 0) {
    /* Frame 0 untimed; then frames 1..frames submitted with up to depth
     * more in flight; the time ends at the last collect(). */
    match::Status st = m->process(bench::view_of(clip, 0), rt, out->data(), &estimated);
    const bench::Clock::time_point t0 = bench::Clock::now();
    int collected = 0;
    for (int i = 1; st && i <= frames; ++i) {
      st = m->submit(bench::view_of(clip, i), rt);
      if (st && m->in_flight() > depth) {
        st = m->collect(out->data(), &estimated);
        ++collected;
      }
    }
    while (st && m->in_flight() > 0) {
      st = m->collect(out->data(), &estimated);
      ++collected;
    }
    if (!st || collected != frames) {
      std::fprintf(stderr, "pipelined run failed: %s\n", st.message().c_str());
      return -1;
    }
    return bench::seconds_since(t0) / frames;
  }
  match::Status st = m->process(bench::view_of(clip, 0), rt, out->data(), &estimated);
  if (!st) {
    std::fprintf(stderr, "process failed: %s\n", st.message().c_str());
    return -1;
  }
  const bench::Clock::time_point t0 = bench::Clock::now();
  for (int i = 1; i <= frames; ++i) {
    st = m->process(bench::view_of(clip, i), rt, out->data(), &estimated);
    if (!st || !estimated) {
      std::fprintf(stderr, "process failed: %s\n",
                   st ? "no estimate on a timed frame" : st.message().c_str());
      return -1;
    }
  }
  return bench::seconds_since(t0) / frames;
}

/* Vectors of clip frames 0 -> 1 on matcher m. */
bool one_pair(match::PocMatcher* m, const bench::Clip& clip, const match::PocRuntime& rt,
              std::vector<match::PocVector>* out, int first = 0) {
  bool est = false;
  m->reset();
  return m->process(bench::view_of(clip, first), rt, out->data(), &est) &&
         m->process(bench::view_of(clip, first + 1), rt, out->data(), &est) && est;
}

struct Row {
  std::string case_id, title, backend, description, status;
  int width = 0, height = 0, window = 0, spacing = 0, layers = 0, blocks = 0;
  double lowpass = 0, ms = -1, spread = 0, target_fps = 0, agree = -1;
  int threads = 0, frames = 0, runs = 0;
  std::string frames_kind;
};

void print_header() {
  std::printf("%-10s %-9s %-5s %-7s %-4s %7s %-13s %10s %9s %7s %7s %6s %8s  %s\n",
              "case", "frame", "N/s", "layers", "lp", "blocks", "backend", "ms/frame",
              "fps", "target", "ratio", "spread", "agree", "status");
}

void print_row(const Row& r) {
  char frame[24], ns[16], target[16] = "-", ratio[16] = "-", agree[16] = "-",
                          spread[16] = "-";
  std::snprintf(frame, sizeof frame, "%dx%d", r.width, r.height);
  std::snprintf(ns, sizeof ns, "%d/%d", r.window, r.spacing);
  if (r.target_fps > 0) {
    std::snprintf(target, sizeof target, ">%.0f", r.target_fps);
    if (r.ms > 0) std::snprintf(ratio, sizeof ratio, "%.3g", 1e3 / r.ms / r.target_fps);
  }
  if (r.agree >= 0) std::snprintf(agree, sizeof agree, "%.2f%%", 100.0 * r.agree);
  if (r.ms > 0) std::snprintf(spread, sizeof spread, "%.0f%%", 100.0 * r.spread);
  std::printf("%-10s %-9s %-5s %-7d %-4.2g %7d %-13s %10s %9s %7s %7s %6s %8s  %s\n",
              r.case_id.c_str(), frame, ns, r.layers, r.lowpass, r.blocks,
              r.backend.c_str(), bench::fmt_ms(r.ms).c_str(),
              bench::fmt_fps(r.ms).c_str(), target, ratio, spread, agree,
              r.status.empty() ? "ok" : r.status.c_str());
  std::fflush(stdout);
}

/* The case's geometry with the command line's lowpass and median. */
match::PocConfig case_config(const Options& o, const PocCase& c) {
  match::PocConfig cfg;
  cfg.width = c.width;
  cfg.height = c.height;
  cfg.window_size = c.window;
  cfg.spacing = c.spacing;
  cfg.layers = c.layers;
  if (o.lowpass > 0) cfg.lowpass = o.lowpass;
  cfg.median = o.median;
  cfg.coarse = o.coarse;
  return cfg;
}

void measure(const Options& o, const PocCase& c, const bench::Clip& clip,
             const std::string& backend, Row* r) {
  match::PocConfig cfg = case_config(o, c);
  cfg.direction = match::Direction::kBackward; /* the element's default */
  cfg.robust = o.robust;
  r->case_id = c.id;
  r->title = c.title;
  r->width = c.width;
  r->height = c.height;
  r->window = c.window;
  r->spacing = c.spacing;
  r->layers = c.layers;
  r->lowpass = cfg.lowpass;
  r->blocks = cfg.num_blocks();
  r->target_fps = c.target_fps;
  r->backend = backend;
  r->frames_kind = clip.kind();
  std::unique_ptr<match::PocMatcher> m;
  const match::Status st = match::PocMatcher::create(backend_of(backend), cfg, &m);
  if (!st) {
    r->status = (st.code() == match::StatusCode::kUnavailable ? "unavailable: "
                                                              : "create failed: ") +
                st.message();
    return;
  }
  r->backend = backend == "auto"
                   ? std::string("auto->") + match::backend_name(m->backend())
                   : backend;
  r->description = m->description();
  match::PocRuntime rt;
  rt.threads = o.threads;
  r->threads = m->backend() == match::Backend::kCpu
                   ? (o.threads > 0 ? o.threads : all_threads())
                   : 0;
  std::vector<match::PocVector> out(cfg.num_blocks());
  if (timed_run(m.get(), clip, 2, rt, &out) < 0) {
    r->status = "process failed";
    return;
  }
  std::vector<double> t;
  for (int run = 0; run < o.runs; ++run) {
    const double s = timed_run(m.get(), clip, o.frames, rt, &out, o.depth);
    if (s < 0) {
      r->status = "process failed";
      return;
    }
    t.push_back(s * 1e3);
  }
  r->ms = bench::median(t);
  r->spread = bench::spread(t);
  r->frames = o.frames;
  r->runs = o.runs;
  /* Device time of the last frame (CUDA events: layers, windows,
   * transforms, peaks; not the copies), to tell GPU work from host and
   * launch overhead. */
  const double kms = m->stats().kernel_ms;
  if (kms >= 0) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "ok, GPU %.3f ms", kms);
    r->status = buf;
  }
  if (o.verify && m->backend() != match::Backend::kCpu) {
    std::unique_ptr<match::PocMatcher> cpu;
    std::vector<match::PocVector> a(cfg.num_blocks()), b(cfg.num_blocks());
    if (match::PocMatcher::create(match::Backend::kCpu, cfg, &cpu) &&
        one_pair(cpu.get(), clip, rt, &a) && one_pair(m.get(), clip, rt, &b)) {
      int same = 0;
      for (size_t i = 0; i < a.size(); ++i)
        same += std::fabs(a[i].dx - b[i].dx) <= 0.05f &&
                std::fabs(a[i].dy - b[i].dy) <= 0.05f;
      r->agree = static_cast<double>(same) / a.size();
    } else {
      r->status = "agreement check failed";
    }
  }
}

/* --finish-cost: the host poc_finish() (the CPU backend's last stage; the
 * CUDA backend runs it on the device) on the case's geometry and clip
 * frames 0 -> 1, for three fields: smooth (every block (1.3, -0.7): no
 * candidate competes, no SAD), random (uniform within the reach: every
 * block costs its own and 8 candidates, twice) and the CPU backend's POC
 * vectors of the pair (robust off). ms per call, median of --runs. With
 * --three-frames: forward, frames 1 -> 2, each field without and with
 * frame 0 as the frame before (the layer vote's third frame). */
void finish_cost(const Options& o, const PocCase& c, const bench::Clip& clip) {
  match::PocConfig cfg = case_config(o, c);
  const int first = o.three_frames ? 1 : 0;
  if (o.three_frames) cfg.direction = match::Direction::kForward;
  match::PocRuntime rt;
  rt.threads = o.threads;
  const int nb = cfg.num_blocks();
  const float reach = static_cast<float>(match::poc_max_displacement(cfg));
  std::vector<match::PocVector> smooth(nb), random(nb), real(nb);
  unsigned x = 12345;
  auto u = [&x]() {
    x = x * 1103515245u + 12345u;
    return ((x >> 8) & 0xFFFF) / 65535.f;
  };
  for (int b = 0; b < nb; ++b) {
    smooth[b].dx = 1.3f;
    smooth[b].dy = -0.7f;
    smooth[b].confidence = 0.8f;
    random[b].dx = (2 * u() - 1) * reach * 0.7f;
    random[b].dy = (2 * u() - 1) * reach * 0.7f;
    random[b].confidence = u();
  }
  match::PocConfig raw_cfg = cfg;
  raw_cfg.robust = false;
  std::unique_ptr<match::PocMatcher> cpu;
  bool have_real = match::PocMatcher::create(match::Backend::kCpu, raw_cfg, &cpu) &&
                   one_pair(cpu.get(), clip, rt, &real, first);
  const match::ImageView f0 = bench::view_of(clip, first),
                         f1 = bench::view_of(clip, first + 1),
                         before = bench::view_of(clip, 0);
  std::printf(
      "%-10s %dx%d N=%d grid %d layers %d, %d blocks, %d threads%s:", c.id.c_str(),
      c.width, c.height, c.window, c.spacing, c.layers, nb,
      o.threads > 0 ? o.threads : all_threads(), o.three_frames ? ", three frames" : "");
  const char* names[3] = {"smooth", "random", "real"};
  const std::vector<match::PocVector>* fields[3] = {&smooth, &random, &real};
  for (int k = 0; k < 3; ++k) {
    if (k == 2 && !have_real) {
      std::printf("  real -");
      continue;
    }
    /* With --three-frames, the same field without the frame before too
     * (runs alternated), then with it. */
    std::vector<double> t[2];
    std::vector<match::PocVector> v;
    for (int run = 0; run < o.runs; ++run)
      for (int with = o.three_frames ? 0 : 1; with < 2; ++with) {
        v = *fields[k];
        const bench::Clock::time_point t0 = bench::Clock::now();
        match::poc_finish(f0, f1, cfg, rt, v.data(),
                          o.three_frames && with ? &before : nullptr);
        t[with].push_back(bench::seconds_since(t0) * 1e3);
      }
    int changed = 0;
    for (int b = 0; b < nb; ++b)
      changed += v[b].dx != (*fields[k])[b].dx || v[b].dy != (*fields[k])[b].dy;
    if (o.three_frames)
      std::printf("  %s %.3f -> %.3f ms (%d changed)", names[k], bench::median(t[0]),
                  bench::median(t[1]), changed);
    else
      std::printf("  %s %.3f ms (%d changed)", names[k], bench::median(t[1]), changed);
  }
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse_args(argc, argv, &o)) {
    usage(argv[0]);
    return 2;
  }
  std::vector<PocCase> cases;
  if (o.cw > 0) {
    cases.push_back({std::to_string(o.cw) + "x" + std::to_string(o.ch) + "-" +
                         std::to_string(o.cwindow) + "-" + std::to_string(o.cspacing),
                     "custom", o.cw, o.ch, o.cwindow, o.cspacing, o.layers, 0});
  } else {
    for (const PocCase& c : poc_cases(o.layers))
      if (bench::case_selected(c.id, o.case_sel)) cases.push_back(c);
  }
  if (o.list) {
    for (const PocCase& c : cases)
      std::printf("%-10s %-22s %dx%d window %d spacing %d layers %d target %s\n",
                  c.id.c_str(), c.title.c_str(), c.width, c.height, c.window, c.spacing,
                  c.layers,
                  c.target_fps > 0
                      ? (">" + std::to_string(int(c.target_fps)) + " fps (H100)").c_str()
                      : "-");
    return 0;
  }
  if (cases.empty()) {
    std::fprintf(stderr, "no case selected (--list-cases)\n");
    return 2;
  }
  std::printf(
      "bench_poc: %d CPU threads available; %d timed frames x %d runs (median); "
      "robust %s, median %s, coarse %s, %s\n",
      all_threads(), o.frames, o.runs, o.robust ? "on" : "off", o.median ? "on" : "off",
      o.coarse == match::PocCoarse::kPerBlock ? "per-block"
      : o.coarse == match::PocCoarse::kShared ? "shared"
                                              : "shared-median",
      o.depth > 0 ? ("pipelined, depth " + std::to_string(o.depth)).c_str()
                  : "process() (synchronous)");
  bench::ClipCache clips(o.frames_dir, o.synthetic);
  if (o.finish_cost) {
    for (const PocCase& c : cases) finish_cost(o, c, clips.get(c.width, c.height));
    return 0;
  }
  std::vector<Row> rows;
  for (const PocCase& c : cases) {
    const bench::Clip& clip = clips.get(c.width, c.height);
    for (const std::string& b : o.backends) {
      Row r;
      measure(o, c, clip, b, &r);
      if (rows.empty() || rows.back().case_id != c.id) {
        std::printf("\n");
        const char* chunk = std::getenv("MATCH_POC_CHUNK");
        bench::print_poc_floor(c.id.c_str(), c.width, c.height, c.window, c.spacing,
                               c.layers, chunk ? std::atoi(chunk) : 0);
        print_header();
      }
      print_row(r);
      rows.push_back(r);
    }
  }
  std::printf("\n");
  clips.print_origins();
  std::printf(
      "  target: the issue's figure on one H100 (CUDA); ratio = fps / target (> 1 meets "
      "it)\n"
      "  agree:  vectors within 0.05 px of the CPU backend's on frames 0 -> 1\n"
      "          (backends other than cpu)\n"
      "  spread: (slowest - fastest run) / median\n");
  if (!o.csv_file.empty()) {
    FILE* f = std::fopen(o.csv_file.c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "cannot write %s\n", o.csv_file.c_str());
      return 1;
    }
    std::fprintf(f,
                 "case,title,width,height,window,spacing,layers,lowpass,blocks,backend,"
                 "description,threads,frames_kind,frames,runs,ms_per_frame,fps,spread,"
                 "target_fps,ratio,agree,status\n");
    for (const Row& r : rows)
      std::fprintf(
          f, "%s,%s,%d,%d,%d,%d,%d,%g,%d,%s,%s,%d,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s\n",
          r.case_id.c_str(), bench::csv(r.title).c_str(), r.width, r.height, r.window,
          r.spacing, r.layers, r.lowpass, r.blocks, bench::csv(r.backend).c_str(),
          bench::csv(r.description).c_str(), r.threads, bench::csv(r.frames_kind).c_str(),
          r.frames, r.runs, bench::fmt_double(r.ms).c_str(),
          r.ms > 0 ? bench::fmt_double(1e3 / r.ms).c_str() : "",
          r.ms > 0 ? bench::fmt_double(r.spread).c_str() : "",
          r.target_fps > 0 ? bench::fmt_double(r.target_fps).c_str() : "",
          r.target_fps > 0 && r.ms > 0
              ? bench::fmt_double(1e3 / r.ms / r.target_fps).c_str()
              : "",
          r.agree >= 0 ? bench::fmt_double(r.agree).c_str() : "",
          bench::csv(r.status.empty() ? "ok" : r.status).c_str());
    std::fclose(f);
    std::printf("wrote %s\n", o.csv_file.c_str());
  }
  return 0;
}
