/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_stereo: times stereo matching (match::StereoMatcher, the
 * GStreamer-free kernel API) per frame pair, on the CPU backend and any
 * other given by --backend, at 1280x720 and 1920x1080 with 128 and 256
 * disparities and a 7x7 window (the cases; --size/--disparities/--window
 * add others). Default: SAD block matching; --method sgm, --cost
 * sobel|census|census-ad, --census WxH, --paths 4|8, --cost-window B and
 * --p1/--p2/--p2-edge choose
 * the others (the CPU backend's description then shows the memory its SGM
 * uses).
 *
 * Data: --left/--right PGM views (e.g. Middlebury Tsukuba written by
 * bench/opencv_stereobm.py --export), resampled bilinearly to each case's
 * size, so the disparities scale with the width; else frame 0 of the clip
 * that bench/prepare-frames.sh makes, with a right view synthesised from a
 * smooth disparity field over 0..60 % of the range (the rows are real video,
 * the geometry is not); else a synthetic texture treated the same way.
 *
 * One measurement: one untimed warm-up pair, then frames pairs timed back to
 * back; the figure is the median over --runs measurements. Runtime: the
 * StereoRuntime defaults (sub-pixel on, left-right check with max diff 1)
 * unless --plain (sub-pixel off, no checks).
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "match/stereo.h"

namespace {

using Clock = std::chrono::steady_clock;

struct StereoCase {
  std::string id;
  int width, height, num, window;
};

struct Options {
  std::vector<StereoCase> cases;
  std::vector<std::string> case_sel;
  std::vector<match::Backend> backends;
  std::vector<int> threads;
  std::string left_pgm, right_pgm;
  std::string frames_dir = bench::default_frames_dir();
  std::string csv_file;
  int frames = 5;
  int runs = 3;
  bool plain = false;
  /* Overrides of single runtime settings (-2 = keep). */
  int subpixel = -2, lr = -2, uniqueness = -2, texture = -2;
  int p1 = -2, p2 = -2, p2_edge = -2, speckle = -2, speckle_range = -2;
  int joint_median = 0, joint_median_range = 16;
  bool median = false, fill = false;
  /* Cost and method (match/stereo.h). */
  match::StereoCost cost = match::StereoCost::kSad;
  match::StereoMethod method = match::StereoMethod::kBlock;
  int census_width = 9, census_height = 7, paths = 8;
  int cost_window = 1; /* SGM: the element's default is 3 */
};

const char* cost_name(match::StereoCost c) {
  return c == match::StereoCost::kSad        ? "SAD"
         : c == match::StereoCost::kSobel    ? "Sobel"
         : c == match::StereoCost::kCensusAd ? "census+AD"
                                             : "census";
}

bool read_pgm(const std::string& path, int* w, int* h, std::vector<uint8_t>* px) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  int maxval = 0;
  bool ok = std::fscanf(f, "P5 %d %d %d", w, h, &maxval) == 3 && maxval == 255 &&
            std::fgetc(f) != EOF && *w > 0 && *h > 0;
  if (ok) {
    px->resize(static_cast<size_t>(*w) * *h);
    ok = std::fread(px->data(), 1, px->size(), f) == px->size();
  }
  std::fclose(f);
  return ok;
}

/* A rectified pair at w x h and where it came from. */
struct Pair {
  std::vector<uint8_t> left, right;
  std::string origin;
};

Pair make_pair(const Options& o, int w, int h, int num) {
  Pair p;
  p.left.resize(static_cast<size_t>(w) * h);
  p.right.resize(p.left.size());
  if (!o.left_pgm.empty()) {
    int lw, lh, rw, rh;
    std::vector<uint8_t> l, r;
    if (read_pgm(o.left_pgm, &lw, &lh, &l) && read_pgm(o.right_pgm, &rw, &rh, &r) &&
        lw == rw && lh == rh) {
      bench::scale_bilinear(l.data(), lw, lh, p.left.data(), w, h);
      bench::scale_bilinear(r.data(), rw, rh, p.right.data(), w, h);
      p.origin = o.left_pgm + " + right view, " + std::to_string(lw) + "x" +
                 std::to_string(lh) + " resampled bilinearly";
      return p;
    }
    std::fprintf(stderr, "cannot read the PGM pair %s / %s; using video frames\n",
                 o.left_pgm.c_str(), o.right_pgm.c_str());
  }
  const bench::Clip clip = bench::load_clip(o.frames_dir, w, h, 2, true);
  std::memcpy(p.left.data(), clip.frame(0), p.left.size());
  /* Right view: R(x) = L(x + d(x, y)) with a smooth field d in
   * [0, 0.6 num], linearly interpolated between pixels. */
  for (int y = 0; y < h; ++y) {
    const uint8_t* l = p.left.data() + static_cast<size_t>(y) * w;
    uint8_t* r = p.right.data() + static_cast<size_t>(y) * w;
    for (int x = 0; x < w; ++x) {
      const double d =
          0.6 * num *
          (0.5 + 0.25 * std::sin(x * 0.004 + y * 0.002) + 0.25 * std::cos(y * 0.006));
      const double sx = std::min<double>(x + d, w - 1);
      const int x0 = static_cast<int>(sx);
      const int x1 = std::min(x0 + 1, w - 1);
      const double a = sx - x0;
      r[x] = static_cast<uint8_t>(std::lround((1 - a) * l[x0] + a * l[x1]));
    }
  }
  p.origin = clip.origin + ", right view synthesised (disparity 0..60% of range)";
  return p;
}

void usage() {
  std::printf(
      "usage: bench_stereo [options]\n"
      "  --case ID           only cases whose id starts with ID (repeatable):\n"
      "                      720p-128 720p-256 1080p-128 1080p-256\n"
      "  --size WxH --disparities N --window S   one more case (all three)\n"
      "  --backend cpu|cuda  backends to time (repeatable; default cpu)\n"
      "  --threads N         CPU threads (repeatable; default: all, and 1)\n"
      "  --left L.pgm --right R.pgm   input pair (resampled to each size)\n"
      "  --frames N          timed pairs per measurement (default 5)\n"
      "  --runs N            measurements, median kept (default 3)\n"
      "  --plain             sub-pixel off, no left-right check\n"
      "  --subpixel 0|1 --lr N --uniqueness N --texture N\n"
      "                      override one runtime setting (after --plain)\n"
      "  --method block|sgm  aggregation (default block)\n"
      "  --cost sad|sobel|census|census-ad   per-pixel cost (default sad)\n"
      "  --census WxH        census window (default 9x7)\n"
      "  --paths 4|8         SGM paths (default 8)\n"
      "  --cost-window B     SGM cost window, odd 1..7 (default 1)\n"
      "  --p1 N --p2 N --p2-edge N   SGM penalties (default: the cost's,\n"
      "                      match::default_sgm_penalties; p2-edge 0)\n"
      "  --median --speckle N --speckle-range N   post-filters\n"
      "  --fill --joint-median R --joint-median-range T   refinements\n"
      "  --csv FILE          also write every row to FILE\n");
}

bool parse(int argc, char** argv, Options* o) {
  int sw = 0, sh = 0, sn = 0, ss = 7;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else if (a == "--plain") {
      o->plain = true;
    } else if (a == "--median") {
      o->median = true;
    } else if (a == "--fill") {
      o->fill = true;
    } else if (!(v = value())) {
      std::fprintf(stderr, "%s needs a value\n", a.c_str());
      return false;
    } else if (a == "--case") {
      o->case_sel.push_back(v);
    } else if (a == "--backend") {
      match::Backend b;
      if (!bench::parse_backend(v, &b)) return false;
      o->backends.push_back(b);
    } else if (a == "--threads") {
      o->threads.push_back(std::atoi(v));
    } else if (a == "--left") {
      o->left_pgm = v;
    } else if (a == "--right") {
      o->right_pgm = v;
    } else if (a == "--frames") {
      o->frames = std::max(1, std::atoi(v));
    } else if (a == "--runs") {
      o->runs = std::max(1, std::atoi(v));
    } else if (a == "--subpixel") {
      o->subpixel = std::atoi(v);
    } else if (a == "--lr") {
      o->lr = std::atoi(v);
    } else if (a == "--uniqueness") {
      o->uniqueness = std::atoi(v);
    } else if (a == "--texture") {
      o->texture = std::atoi(v);
    } else if (a == "--csv") {
      o->csv_file = v;
    } else if (a == "--method") {
      const std::string m = v;
      if (m != "block" && m != "sgm") return false;
      o->method = m == "sgm" ? match::StereoMethod::kSgm : match::StereoMethod::kBlock;
    } else if (a == "--cost") {
      const std::string c = v;
      if (c == "sad")
        o->cost = match::StereoCost::kSad;
      else if (c == "sobel")
        o->cost = match::StereoCost::kSobel;
      else if (c == "census")
        o->cost = match::StereoCost::kCensus;
      else if (c == "census-ad")
        o->cost = match::StereoCost::kCensusAd;
      else
        return false;
    } else if (a == "--census") {
      if (std::sscanf(v, "%dx%d", &o->census_width, &o->census_height) != 2) return false;
    } else if (a == "--paths") {
      o->paths = std::atoi(v);
    } else if (a == "--cost-window") {
      o->cost_window = std::atoi(v);
    } else if (a == "--p1") {
      o->p1 = std::atoi(v);
    } else if (a == "--p2") {
      o->p2 = std::atoi(v);
    } else if (a == "--p2-edge") {
      o->p2_edge = std::atoi(v);
    } else if (a == "--speckle") {
      o->speckle = std::atoi(v);
    } else if (a == "--speckle-range") {
      o->speckle_range = std::atoi(v);
    } else if (a == "--joint-median") {
      o->joint_median = std::atoi(v);
    } else if (a == "--joint-median-range") {
      o->joint_median_range = std::atoi(v);
    } else if (a == "--size") {
      if (std::sscanf(v, "%dx%d", &sw, &sh) != 2) return false;
    } else if (a == "--disparities") {
      sn = std::atoi(v);
    } else if (a == "--window") {
      ss = std::atoi(v);
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    }
  }
  if (o->left_pgm.empty() != o->right_pgm.empty()) {
    std::fprintf(stderr, "--left and --right go together\n");
    return false;
  }
  o->cases = {{"720p-128", 1280, 720, 128, 7},
              {"720p-256", 1280, 720, 256, 7},
              {"1080p-128", 1920, 1080, 128, 7},
              {"1080p-256", 1920, 1080, 256, 7}};
  if (sw > 0 && sh > 0 && sn > 0) {
    o->cases.push_back({"custom-" + std::to_string(sw) + "x" + std::to_string(sh) + "-" +
                            std::to_string(sn) + "-w" + std::to_string(ss),
                        sw, sh, sn, ss});
    if (o->case_sel.empty()) o->case_sel.push_back("custom");
  }
  if (o->backends.empty()) o->backends.push_back(match::Backend::kCpu);
  if (o->threads.empty()) {
    const int all = bench::all_threads();
    o->threads.push_back(all);
    if (all != 1) o->threads.push_back(1);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) {
    usage();
    return 2;
  }
  FILE* csv = nullptr;
  if (!o.csv_file.empty()) {
    csv = std::fopen(o.csv_file.c_str(), "w");
    if (csv)
      std::fprintf(csv,
                   "case,width,height,disparities,window,runtime,backend,description,"
                   "threads,ms_per_frame,fps,mdisp_per_s,spread,data\n");
  }
  std::string runtime = o.plain ? "plain WTA" : "subpix+LR1";
  const match::SgmPenalties pen = match::default_sgm_penalties(o.cost);
  const int p1 = o.p1 != -2 ? o.p1 : pen.p1, p2 = o.p2 != -2 ? o.p2 : pen.p2;
  std::string method =
      std::string(cost_name(o.cost)) +
      (match::stereo_cost_uses_census(o.cost)
           ? " " + std::to_string(o.census_width) + "x" + std::to_string(o.census_height)
           : std::string());
  if (o.method == match::StereoMethod::kSgm)
    method += " SGM " + std::to_string(o.paths) + " paths cost window " +
              std::to_string(o.cost_window) + " P1 " + std::to_string(p1) + " P2 " +
              std::to_string(p2) +
              (o.p2_edge > 0 ? " p2-edge " + std::to_string(o.p2_edge) : std::string());
  else
    method += " block";
  if (o.median) runtime += " median";
  if (o.speckle > 0) runtime += " speckle " + std::to_string(o.speckle);
  if (o.subpixel != -2 || o.lr != -2 || o.uniqueness != -2 || o.texture != -2) {
    runtime += " with";
    if (o.subpixel != -2) runtime += " subpixel " + std::to_string(o.subpixel);
    if (o.lr != -2) runtime += " lr " + std::to_string(o.lr);
    if (o.uniqueness != -2) runtime += " uniqueness " + std::to_string(o.uniqueness);
    if (o.texture != -2) runtime += " texture " + std::to_string(o.texture);
  }
  std::printf("%s stereo, %s; median of %d runs x %d pairs\n", method.c_str(),
              runtime.c_str(), o.runs, o.frames);
  std::printf("%-11s %-5s %-42s %7s %9s %8s %11s %6s\n", "case", "back", "description",
              "threads", "ms/frame", "fps", "Mdisp/s", "spread");
  int failures = 0;
  std::string last_origin;
  for (const StereoCase& sc : o.cases) {
    bool sel = o.case_sel.empty();
    for (const std::string& s : o.case_sel) sel |= sc.id.rfind(s, 0) == 0;
    if (!sel) continue;
    const Pair pair = make_pair(o, sc.width, sc.height, sc.num);
    if (pair.origin != last_origin) std::printf("  data: %s\n", pair.origin.c_str());
    last_origin = pair.origin;
    match::StereoConfig cfg;
    cfg.width = sc.width;
    cfg.height = sc.height;
    cfg.window_width = cfg.window_height = sc.window;
    cfg.min_disparity = 0;
    cfg.num_disparities = sc.num;
    cfg.cost = o.cost;
    cfg.method = o.method;
    cfg.census_width = o.census_width;
    cfg.census_height = o.census_height;
    cfg.paths = o.paths;
    cfg.cost_window = o.cost_window;
    const match::ImageView l{pair.left.data(), sc.width, sc.height, sc.width};
    const match::ImageView r{pair.right.data(), sc.width, sc.height, sc.width};
    std::vector<uint16_t> out(static_cast<size_t>(sc.width) * sc.height);
    const match::DisparityView dv{out.data(), sc.width, sc.height,
                                  static_cast<std::ptrdiff_t>(sc.width) * 2};
    for (match::Backend b : o.backends) {
      std::unique_ptr<match::StereoMatcher> m;
      match::Status st = match::StereoMatcher::create(b, cfg, &m);
      if (!st) {
        std::printf("%-11s %-5s %s\n", sc.id.c_str(), match::backend_name(b),
                    ("unavailable: " + st.message()).c_str());
        continue;
      }
      const std::vector<int> threads =
          b == match::Backend::kCpu ? o.threads : std::vector<int>{0};
      for (int t : threads) {
        match::StereoRuntime rt;
        if (o.plain) {
          rt.subpixel = false;
          rt.lr_max_diff = -1;
        }
        if (o.subpixel != -2) rt.subpixel = o.subpixel != 0;
        if (o.lr != -2) rt.lr_max_diff = o.lr;
        if (o.uniqueness != -2) rt.uniqueness_ratio = o.uniqueness;
        if (o.texture != -2) rt.texture_threshold = o.texture;
        rt.p1 = p1;
        rt.p2 = p2;
        if (o.p2_edge != -2) rt.p2_edge = o.p2_edge;
        rt.median = o.median;
        if (o.speckle != -2) rt.speckle_size = o.speckle;
        if (o.speckle_range != -2) rt.speckle_range = o.speckle_range;
        rt.fill_invalid = o.fill;
        rt.joint_median_radius = o.joint_median;
        rt.joint_median_range = o.joint_median_range;
        rt.threads = t;
        std::vector<double> ms;
        st = m->process(l, r, rt, dv); /* warm-up */
        for (int run = 0; run < o.runs && st; ++run) {
          const auto t0 = Clock::now();
          for (int f = 0; f < o.frames && st; ++f) st = m->process(l, r, rt, dv);
          ms.push_back(1e3 * bench::seconds_since(t0) / o.frames);
        }
        if (!st) {
          std::printf("%-11s %-5s failed: %s\n", sc.id.c_str(), match::backend_name(b),
                      st.message().c_str());
          ++failures;
          continue;
        }
        const double med = bench::median(ms);
        const double mdisp =
            static_cast<double>(sc.width) * sc.height * sc.num / (med * 1e3);
        char spread[16];
        std::snprintf(spread, sizeof spread, "%.0f%%", 100 * bench::spread(ms));
        const std::string tname = b == match::Backend::kCpu ? std::to_string(t) : "-";
        /* CUDA: device time of the last pair (kernels only, from events),
         * to tell GPU work from copies and host overhead. */
        const double kms = m->stats().kernel_ms;
        char gpu[32] = "";
        if (kms >= 0) std::snprintf(gpu, sizeof gpu, "  GPU %.3f ms", kms);
        std::printf("%-11s %-5s %-42s %7s %9s %8s %11.0f %6s%s\n", sc.id.c_str(),
                    match::backend_name(b), m->description().c_str(), tname.c_str(),
                    bench::fmt_ms(med).c_str(), bench::fmt_fps(med).c_str(), mdisp,
                    spread, gpu);
        std::fflush(stdout);
        if (csv)
          std::fprintf(
              csv, "%s,%d,%d,%d,%d,%s,%s,%s,%s,%.4f,%.3f,%.1f,%.3f,%s\n", sc.id.c_str(),
              sc.width, sc.height, sc.num, sc.window, (method + " " + runtime).c_str(),
              match::backend_name(b), bench::csv(m->description()).c_str(), tname.c_str(),
              med, 1e3 / med, mdisp, bench::spread(ms), bench::csv(pair.origin).c_str());
      }
    }
  }
  if (csv) std::fclose(csv);
  return failures ? 1 : 0;
}
