/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Shared by the benchmarks (header-only so each bench program stays one
 * translation unit):
 * - frame loading: the raw GRAY8 clips written by bench/prepare-frames.sh,
 *   a clip of another size resampled (bilinear) to the size asked for, or
 *   synthetic textured frames with a global motion;
 * - the benchmark cases of the CUDA issue (papers [A] and [C], and the
 *   1080p / 4K cases users compare), with their published figures, targets
 *   and the compute floor; the fast-search cases (paper [B], 1080p and 4K
 *   with +-32) that bench_fast and bench_element --fast-cases share;
 * - one timed run through match::BlockMatcher, synchronous (process()) or
 *   pipelined (submit()/collect() with D frames in flight);
 * - small formatting and option-parsing helpers.
 */
#pragma once

#include <dirent.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "match/blockmatch.h"

namespace bench {

/* The CPU threads OpenMP uses by default (1 without OpenMP). */
inline int all_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* ---- Frames ------------------------------------------------------------ */

/* A short clip of consecutive GRAY8 frames, packed (stride = width). */
struct Clip {
  int width = 0;
  int height = 0;
  int count = 0;
  bool real = false;   /* decoded video (true) or synthetic texture */
  bool scaled = false; /* real, but resampled from a clip of another size */
  std::string origin;  /* where the frames come from, for the output */
  std::vector<uint8_t> pixels;

  const uint8_t* frame(int i) const {
    return pixels.data() + static_cast<size_t>(i) * width * height;
  }
  /* Frame i of an endless ping-pong walk 0, 1, .., n-1, n-2, .., 1, 0, 1..
   * so every two successive frames are neighbours in the video. */
  const uint8_t* walk(int i) const {
    if (count < 2) return frame(0);
    const int period = 2 * (count - 1);
    int k = i % period;
    if (k >= count) k = period - k;
    return frame(k);
  }
  /* Short description: "video", "video, 1920x1080 resampled", "synthetic". */
  std::string kind() const {
    return !real ? "synthetic" : scaled ? "video, resampled" : "video";
  }
};

inline std::string default_frames_dir() {
  if (const char* d = std::getenv("MATCH_BENCH_FRAMES")) return d;
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/gst-motion-bench-frames";
}

inline std::string clip_path(const std::string& dir, int w, int h) {
  return dir + "/vtest_" + std::to_string(w) + "x" + std::to_string(h) + ".gray";
}

constexpr const char* kSyntheticDescription =
    "SYNTHETIC frames: smooth random texture moving by (+2, +1) px per frame, plus noise";

/* Synthetic fallback: a smooth random texture with fine noise, moving by
 * (+2, +1) pixels per frame, plus per-frame sensor noise. */
inline void make_synthetic(Clip* c, int frames) {
  const int w = c->width, h = c->height;
  const int margin = 2 * frames + 8;
  const int tw = w + margin, th = h + margin;
  std::vector<uint8_t> tex(static_cast<size_t>(tw) * th);
  uint32_t seed = 12345u;
  auto rnd = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  for (int y = 0; y < th; ++y)
    for (int x = 0; x < tw; ++x) {
      const double v = 128 +
                       50 * std::sin(x * 0.07 + 0.5 * std::sin(y * 0.05)) *
                           std::cos(y * 0.045 + 0.3 * std::sin(x * 0.02)) +
                       25 * std::sin((x + y) * 0.23) + (rnd() % 41) - 20.0;
      tex[static_cast<size_t>(y) * tw + x] =
          static_cast<uint8_t>(std::lround(std::fmin(255.0, std::fmax(0.0, v))));
    }
  c->count = frames;
  c->real = false;
  c->scaled = false;
  c->origin = kSyntheticDescription;
  c->pixels.resize(static_cast<size_t>(w) * h * frames);
  for (int t = 0; t < frames; ++t) {
    uint8_t* dst = c->pixels.data() + static_cast<size_t>(t) * w * h;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int v = tex[static_cast<size_t>(y + margin - t) * tw + x + margin - 2 * t] +
                      static_cast<int>(rnd() % 5) - 2;
        dst[static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(v < 0     ? 0
                                                                   : v > 255 ? 255
                                                                             : v);
      }
  }
}

/* Whole frames of w x h bytes in `path`; 0 when unreadable. */
inline int read_frames(const std::string& path, int w, int h, std::vector<uint8_t>* out) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return 0;
  std::vector<uint8_t> buf;
  uint8_t tmp[1 << 16];
  size_t n;
  while ((n = std::fread(tmp, 1, sizeof tmp, f)) > 0) buf.insert(buf.end(), tmp, tmp + n);
  std::fclose(f);
  const size_t frame_bytes = static_cast<size_t>(w) * h;
  const int frames = static_cast<int>(buf.size() / frame_bytes);
  buf.resize(frames * frame_bytes);
  out->swap(buf);
  return frames;
}

/* Bilinear resampling (pixel centres aligned, edges clamped). */
inline void scale_bilinear(const uint8_t* src, int sw, int sh, uint8_t* dst, int dw,
                           int dh) {
  std::vector<int> x0(dw), fx(dw);
  for (int x = 0; x < dw; ++x) {
    double sx = (x + 0.5) * sw / dw - 0.5;
    sx = std::min(std::max(sx, 0.0), sw - 1.0);
    x0[x] = std::min(static_cast<int>(sx), sw - 1);
    fx[x] = static_cast<int>(std::lround((sx - x0[x]) * 256));
  }
  for (int y = 0; y < dh; ++y) {
    double sy = (y + 0.5) * sh / dh - 0.5;
    sy = std::min(std::max(sy, 0.0), sh - 1.0);
    const int y0 = std::min(static_cast<int>(sy), sh - 1);
    const int y1 = std::min(y0 + 1, sh - 1);
    const int fy = static_cast<int>(std::lround((sy - y0) * 256));
    const uint8_t* r0 = src + static_cast<size_t>(y0) * sw;
    const uint8_t* r1 = src + static_cast<size_t>(y1) * sw;
    uint8_t* d = dst + static_cast<size_t>(y) * dw;
    for (int x = 0; x < dw; ++x) {
      const int a = x0[x], b = std::min(a + 1, sw - 1);
      const int top = r0[a] * (256 - fx[x]) + r0[b] * fx[x];
      const int bot = r1[a] * (256 - fx[x]) + r1[b] * fx[x];
      d[x] = static_cast<uint8_t>((top * (256 - fy) + bot * fy + (1 << 15)) >> 16);
    }
  }
}

/* Clips "vtest_WxH.gray" in `dir` holding at least two whole frames. */
struct ClipFile {
  std::string path;
  int width, height;
};
inline std::vector<ClipFile> list_clips(const std::string& dir) {
  std::vector<ClipFile> v;
  DIR* d = opendir(dir.c_str());
  if (!d) return v;
  while (const dirent* e = readdir(d)) {
    int w = 0, h = 0;
    char tail[8] = "";
    if (std::sscanf(e->d_name, "vtest_%dx%d.%7s", &w, &h, tail) == 3 &&
        std::strcmp(tail, "gray") == 0 && w > 0 && h > 0) {
      const std::string p = dir + "/" + e->d_name;
      if (FILE* f = std::fopen(p.c_str(), "rb")) {
        std::fseek(f, 0, SEEK_END);
        const long size = std::ftell(f);
        std::fclose(f);
        if (size >= 2L * w * h) v.push_back(ClipFile{p, w, h});
      }
    }
  }
  closedir(d);
  return v;
}

/* Loads dir/vtest_WxH.gray (all whole frames in it). When it is missing:
 * with `allow_resample`, the smallest clip in `dir` at least as large in
 * both dimensions (else the largest) resampled bilinearly to w x h;
 * otherwise, or without any clip, `synthetic_frames` synthetic frames.
 * `force_synthetic` skips the files. */
inline Clip load_clip(const std::string& dir, int w, int h, int synthetic_frames,
                      bool allow_resample = false, bool force_synthetic = false) {
  Clip c;
  c.width = w;
  c.height = h;
  if (!force_synthetic) {
    std::vector<uint8_t> buf;
    const int frames = read_frames(clip_path(dir, w, h), w, h, &buf);
    if (frames >= 2) {
      c.pixels.swap(buf);
      c.count = frames;
      c.real = true;
      c.origin = clip_path(dir, w, h) + " (video frames)";
      return c;
    }
    if (allow_resample) {
      const std::vector<ClipFile> files = list_clips(dir);
      const ClipFile* best = nullptr;
      auto area = [](const ClipFile& f) {
        return static_cast<long long>(f.width) * f.height;
      };
      for (const ClipFile& f : files) /* smallest covering clip */
        if (f.width >= w && f.height >= h && (!best || area(f) < area(*best))) best = &f;
      if (!best)
        for (const ClipFile& f : files) /* else the largest */
          if (!best || area(f) > area(*best)) best = &f;
      if (best) {
        const int n = read_frames(best->path, best->width, best->height, &buf);
        if (n >= 2) {
          c.pixels.resize(static_cast<size_t>(w) * h * n);
          for (int i = 0; i < n; ++i)
            scale_bilinear(
                buf.data() + static_cast<size_t>(i) * best->width * best->height,
                best->width, best->height,
                c.pixels.data() + static_cast<size_t>(i) * w * h, w, h);
          c.count = n;
          c.real = true;
          c.scaled = true;
          c.origin = best->path + " (video frames) resampled bilinearly " +
                     std::to_string(best->width) + "x" + std::to_string(best->height) +
                     " -> " + std::to_string(w) + "x" + std::to_string(h);
          return c;
        }
      }
    }
  }
  make_synthetic(&c, synthetic_frames);
  return c;
}

/* ---- Benchmark cases ----------------------------------------------------- */

/* Which of our measurements a published figure or a target refers to. */
enum class Basis {
  kWall,    /* wall time per frame (1 / frames per second) */
  kKernel,  /* GPU device time per frame (stats().kernel_ms) */
  kElement, /* frames per second through the element (bench_element) */
};

enum class TargetKind { kNone, kMaxMs, kMinFps };

struct Case {
  std::string id;    /* "1", "3a", "4-1080-r16-int", ... */
  std::string title; /* "[A] HDTV" */
  int width = 0, height = 0;
  int block_w = 16, block_h = 16;
  int range_x = 16, range_y = 16;
  int subpel = 1;
  /* Search method and the hierarchical search's parameters (the matcher's
   * defaults unless a program sets them). */
  match::SearchMethod method = match::SearchMethod::kFull;
  int levels = 3;
  int predictors = 4;
  /* Published figure, ms per frame (0 = none), what it is and on what. */
  double paper_ms = 0;
  std::string paper_text;
  Basis paper_basis = Basis::kWall;
  long long paper_candidates = 0; /* per block in the paper; 0 = n/a */
  /* Target of the issue, on one H100. */
  TargetKind target = TargetKind::kNone;
  double target_value = 0; /* ms or fps */
  Basis target_basis = Basis::kWall;
  std::string target_text;
  /* The search the published figure and the target are for (with this
   * case's levels and predictors when it is kHierarchical): a program that
   * runs the case with another search drops both from its rows. */
  match::SearchMethod target_method = match::SearchMethod::kFull;

  match::BlockMatchConfig config() const {
    match::BlockMatchConfig c;
    c.width = width;
    c.height = height;
    c.block_width = block_w;
    c.block_height = block_h;
    c.range_x = range_x;
    c.range_y = range_y;
    c.subpel = subpel;
    c.direction = match::Direction::kBackward;
    c.method = method;
    c.levels = levels;
    c.predictors = predictors;
    return c;
  }
  /* Candidates of the full search over this range (a fast method visits
   * fewer). */
  long long candidates() const { return config().candidates(); }
  /* Pixel absolute differences per frame: candidates x (sum over blocks of
   * the block's pixels) = candidates x W x H (the blocks tile the frame). */
  double pixel_diffs() const {
    return static_cast<double>(candidates()) * width * height;
  }
};

/* The backends to time: `backends` as given (empty: CUDA when a device
 * opens, else the CPU), whether the CPU and CUDA rows run (*want_cpu,
 * *want_cuda: not without a device), and why in `notes`. */
inline void pick_backends(std::vector<match::Backend>* backends, int ndev,
                          std::vector<std::string>* notes, bool* want_cpu,
                          bool* want_cuda) {
  if (backends->empty()) {
    backends->push_back(ndev > 0 ? match::Backend::kCuda : match::Backend::kCpu);
    if (ndev == 0)
      notes->push_back("no --backend given and no CUDA device: timing the CPU only");
  }
  *want_cpu = std::find(backends->begin(), backends->end(), match::Backend::kCpu) !=
              backends->end();
  *want_cuda = std::find(backends->begin(), backends->end(), match::Backend::kCuda) !=
               backends->end();
  if (*want_cuda && ndev == 0) {
    notes->push_back(
        "CUDA rows SKIPPED: match::cuda_device_count() == 0 (no CUDA backend in this "
        "build, no driver or no GPU)");
    *want_cuda = false;
  }
}

inline const char* grid_name(int subpel) {
  return subpel == 1 ? "int" : subpel == 2 ? "half" : subpel == 4 ? "quarter" : "?";
}

/* The cases of the CUDA benchmark issue. Window -> range mapping (see
 * bench/README.md): a paper window of WxH pixels at step s is the total
 * displacement span, i.e. W/s x H/s positions from -W/2 to +W/2 - s; our
 * nearest grid is range (W/2, H/2) with both ends included, so we search
 * slightly more candidates than the paper. */
inline std::vector<Case> paper_cases() {
  std::vector<Case> v;
  Case c;
  c.id = "1";
  c.title = "[A] HDTV";
  c.width = 1920, c.height = 1080, c.block_w = 96, c.block_h = 54;
  c.range_x = 96, c.range_y = 54, c.subpel = 2;
  c.paper_ms = 7230, c.paper_basis = Basis::kWall, c.paper_candidates = 82944;
  c.paper_text = "7.23 s/frame pair, Tesla C1060";
  c.target = TargetKind::kMaxMs, c.target_value = 20, c.target_basis = Basis::kWall;
  c.target_text = "<20 ms";
  v.push_back(c);

  c = Case();
  c.id = "2";
  c.title = "[A] real-time";
  c.width = 720, c.height = 480, c.block_w = 36, c.block_h = 24;
  c.range_x = 36, c.range_y = 24, c.subpel = 2;
  c.paper_ms = 1000.0 / 30, c.paper_basis = Basis::kWall, c.paper_candidates = 13824;
  c.paper_text = "30 fps, two Tesla C1060";
  c.target = TargetKind::kMinFps, c.target_value = 3000, c.target_basis = Basis::kWall;
  c.target_text = ">3000 fps";
  v.push_back(c);

  for (int b : {8, 16}) {
    c = Case();
    c.id = b == 8 ? "3a" : "3b";
    c.title = std::string("[C] ") + (b == 8 ? "8x8" : "16x16");
    c.width = 1024, c.height = 768, c.block_w = c.block_h = b;
    c.range_x = c.range_y = 16, c.subpel = 1;
    c.paper_ms = b == 8 ? 14.23 : 40.63, c.paper_basis = Basis::kKernel;
    c.paper_candidates = 1024;
    c.paper_text =
        std::string(b == 8 ? "14.23" : "40.63") + " ms/frame (kernel), GTX 280";
    c.target = TargetKind::kMaxMs, c.target_value = 0.1, c.target_basis = Basis::kKernel;
    c.target_text = "<0.1 ms kernel";
    v.push_back(c);
  }

  for (int h : {1080, 2160})
    for (int r : {16, 32})
      for (int sp : {1, 2}) {
        c = Case();
        c.width = h == 1080 ? 1920 : 3840, c.height = h;
        c.id = "4-" + std::to_string(h) + "-r" + std::to_string(r) + "-" + grid_name(sp);
        c.title = std::string(h == 1080 ? "1080p" : "4K") + " +-" + std::to_string(r) +
                  " " + grid_name(sp);
        c.block_w = c.block_h = 16, c.range_x = c.range_y = r, c.subpel = sp;
        if (h == 1080 && r == 16 && sp == 1) {
          c.target = TargetKind::kMinFps, c.target_value = 2000;
          c.target_basis = Basis::kElement;
          c.target_text = ">2000 fps elem.";
        }
        v.push_back(c);
      }
  return v;
}

/* The fast-search cases (bench_fast, bench_element --fast-cases): paper
 * [B]'s 640x480 with 16x16 blocks and the quarter-resolution range
 * [-16, 16] x [-8, 8], i.e. +-64 x +-32 at full resolution, levels=3,
 * predictors=4; then 1080p and 4K with +-32. Method-independent: each
 * program runs them with the methods it is asked for (integer grid unless
 * it says otherwise). */
struct FastCase {
  std::string id;
  int w, h, block, rx, ry, levels, predictors;
};

inline std::vector<FastCase> fast_cases() {
  return {{"B-480", 640, 480, 16, 64, 32, 3, 4},
          {"1080-r32", 1920, 1080, 16, 32, 32, 3, 4},
          {"2160-r32", 3840, 2160, 16, 32, 32, 3, 4}};
}

/* A fast case as a Case (integer grid, the given method), with the issue's
 * target where there is one: paper [B]'s case, hierarchical with levels 3
 * and 4 predictors, over 10,000 fps through the element on one H100. */
inline Case fast_case(const FastCase& f, match::SearchMethod method) {
  Case c;
  c.id = f.id;
  c.width = f.w, c.height = f.h, c.block_w = c.block_h = f.block;
  c.range_x = f.rx, c.range_y = f.ry, c.subpel = 1;
  c.method = method, c.levels = f.levels, c.predictors = f.predictors;
  if (f.id == "B-480") {
    c.title = "[B] 640x480";
    c.target = TargetKind::kMinFps, c.target_value = 10000;
    c.target_basis = Basis::kElement;
    c.target_text = ">10000 fps elem.";
    c.target_method = match::SearchMethod::kHierarchical;
  } else {
    c.title = std::string(f.h == 1080   ? "1080p"
                          : f.h == 2160 ? "4K"
                                        : "fast") +
              " +-" + std::to_string(f.rx);
  }
  return c;
}

/* A case built from --size/--block/--range/--subpel. */
inline Case custom_case(int w, int h, int block, int range, int subpel) {
  Case c;
  c.width = w, c.height = h, c.block_w = c.block_h = block;
  c.range_x = c.range_y = range, c.subpel = subpel;
  c.id = std::to_string(w) + "x" + std::to_string(h) + "-b" + std::to_string(block) +
         "-r" + std::to_string(range) + "-" + grid_name(subpel);
  c.title = "custom";
  return c;
}

/* `id` selected by one of `sel` (exact id or prefix: "4" = all of case 4,
 * "4-1080" = its 1080p rows, "3" = 3a and 3b); empty = all. */
inline bool case_selected(const std::string& id, const std::vector<std::string>& sel) {
  if (sel.empty()) return true;
  for (const std::string& s : sel)
    if (id.compare(0, s.size(), s) == 0) return true;
  return false;
}

/* Compute floor, ms per frame: the frame's pixel differences at the GPU's
 * measured byte-SAD throughput (sad_peak, G pixel differences per second),
 * shared by `gpus_per_frame` GPUs (the parallel split). */
inline double floor_ms(const Case& c, double peak_gpx, int gpus_per_frame) {
  if (peak_gpx <= 0) return -1;
  return c.pixel_diffs() / (peak_gpx * 1e9) * 1e3 / std::max(1, gpus_per_frame);
}

/* Target verdict for a measurement in ms per frame; "-" when none. */
inline const char* target_met(const Case& c, double ms) {
  if (c.target == TargetKind::kNone || !(ms > 0)) return "-";
  if (c.target == TargetKind::kMaxMs) return ms < c.target_value ? "yes" : "NO";
  return 1e3 / ms > c.target_value ? "yes" : "NO";
}

/* ---- Timing through match::BlockMatcher ---------------------------------- */

using Clock = std::chrono::steady_clock;

/* The floor of the CUDA POC design for one frame (docs/cuda.md, pocme on
 * CUDA), against an H100's peaks: 67 TFLOPS FP32 (SXM, non-tensor) and
 * 3.35 TB/s HBM3.
 * - FFT flops: each POC pass of a block is one forward complex n x n
 *   transform (both windows as z = f + i g) and one inverse, at the nominal
 *   5 m log2 m flops of an m-point complex FFT (m = n^2): 20 n^2 log2 n per
 *   block and pass. Passes: layers + 1 (one per layer), plus at most one
 *   re-centring pass at layer 0 (blocks whose first peak was not at 0).
 * - Bytes: the fused path (n <= 64) keeps a POC in shared memory and reads
 *   its windows from the L2-resident layers: no DRAM round trip beyond the
 *   frame (about 5.3 bytes per pixel: layer 0 as floats, the coarser layers,
 *   the upload). The tiled path (n = 128, 256) moves each block's n x n
 *   complex buffer through global memory: about 32 n^2 bytes per block and
 *   pass (rows write 8, columns read 8 and write the low-pass box's, the
 *   inverse rows read them and write the 4-byte surface); in DRAM when the
 *   chunk's buffers (8 n^2 per block) do not fit the 50 MB L2. */
struct PocFloor {
  int blocks = 0, passes = 0;
  double gflop = 0, gflop_recentre = 0; /* per frame; with the re-centring */
  double gbytes = 0;                    /* per frame, DRAM, without it */
  double flop_ms = 0, byte_ms = 0, floor_ms = 0;
  bool tiled = false, z_in_dram = false;
};

constexpr double kH100Tflops = 67.0;
constexpr double kH100TBps = 3.35;

inline PocFloor poc_floor(int w, int h, int n, int spacing, int layers,
                          int chunk_blocks = 0) {
  PocFloor f;
  f.blocks = ((w + spacing - 1) / spacing) * ((h + spacing - 1) / spacing);
  f.passes = layers + 1;
  const double nn = double(n) * n;
  const double per_pass = 20.0 * nn * std::log2(double(n));
  f.gflop = f.blocks * f.passes * per_pass / 1e9;
  f.gflop_recentre = f.blocks * (f.passes + 1) * per_pass / 1e9;
  f.tiled = n >= 128;
  const int chunk = chunk_blocks > 0 ? chunk_blocks : f.blocks;
  const bool in_l2 = f.tiled && chunk * 8.0 * nn <= 50e6;
  f.z_in_dram = f.tiled && !in_l2;
  f.gbytes = 5.3 * w * h / 1e9;
  if (f.z_in_dram) f.gbytes += f.blocks * f.passes * 32.0 * nn / 1e9;
  f.flop_ms = f.gflop / (kH100Tflops * 1e3) * 1e3;
  f.byte_ms = f.gbytes / (kH100TBps * 1e3) * 1e3;
  f.floor_ms = std::max(f.flop_ms, f.byte_ms);
  return f;
}

/* One line per case: "floor: ..." (see PocFloor). */
inline void print_poc_floor(const char* id, int w, int h, int n, int spacing, int layers,
                            int chunk_blocks = 0) {
  const PocFloor f = poc_floor(w, h, n, spacing, layers, chunk_blocks);
  std::printf(
      "  floor %-10s %dx%d N=%d grid %d layers %d: %d blocks x %d "
      "passes; FFT %.1f GFLOP (%.1f with re-centring) = %.3f ms at "
      "%.0f TFLOPS; %s %.2f GB = %.3f ms at %.2f TB/s; floor %.3f ms "
      "(%.0f fps)\n",
      id, w, h, n, spacing, layers, f.blocks, f.passes, f.gflop, f.gflop_recentre,
      f.flop_ms, kH100Tflops,
      f.tiled
          ? (f.z_in_dram ? "tiled path, z in DRAM:" : "tiled path, z in L2, frame only:")
          : "fused path (windows from L2), frame only:",
      f.gbytes, f.byte_ms, kH100TBps, f.floor_ms, 1e3 / f.floor_ms);
}

inline double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
  if (v.empty()) return -1;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

inline double spread(const std::vector<double>& v) {
  if (v.empty()) return 0;
  const double m = median(v);
  return m > 0 ? (*std::max_element(v.begin(), v.end()) -
                  *std::min_element(v.begin(), v.end())) /
                     m
               : 0;
}

inline match::ImageView view_of(const Clip& clip, int i) {
  return match::ImageView{clip.walk(i), clip.width, clip.height, clip.width};
}

struct RunTiming {
  double sec_per_frame = -1;     /* wall time of the timed frames / their number */
  std::vector<double> kernel_ms; /* stats().kernel_ms of each timed frame (>= 0 only) */
};

/* One timed run: reset(), frame 0 fed and collected untimed (nothing to
 * search), then `frames` timed frames, each one frame preparation and one
 * full search against the frame before.
 *   depth 0:  process() per frame (synchronous; latency-bound);
 *   depth D:  pipelined like the element's pipeline-depth=D: D frames are
 *             held while the backend works, i.e. submit() with up to D + 1
 *             frames in flight, collect() the oldest before a submit() that
 *             would exceed that, drain at the end (throughput).
 * The clock stops when the last result is collected. `fields`, if given,
 * receives a copy of every timed frame's vectors in order (for checks, not
 * for timed runs). */
inline match::Status timed_run(
    match::BlockMatcher* m, const Clip& clip, int frames, int depth,
    const match::BlockMatchRuntime& rt, std::vector<match::BlockVector>* out,
    RunTiming* t, std::vector<std::vector<match::BlockVector>>* fields = nullptr) {
  using match::Status;
  bool estimated = false;
  t->kernel_ms.clear();
  t->sec_per_frame = -1;
  m->reset();
  Status st = m->process(view_of(clip, 0), rt, out->data(), &estimated);
  if (!st) return st;
  auto record = [&]() {
    const double k = m->stats().kernel_ms;
    if (k >= 0) t->kernel_ms.push_back(k);
    if (fields) fields->push_back(*out);
  };
  auto not_estimated = []() {
    return Status(match::StatusCode::kInternal,
                  "a timed frame came back without an estimate");
  };
  const Clock::time_point t0 = Clock::now();
  if (depth <= 0) {
    for (int i = 1; i <= frames; ++i) {
      st = m->process(view_of(clip, i), rt, out->data(), &estimated);
      if (!st) return st;
      if (!estimated) return not_estimated();
      record();
    }
  } else {
    for (int i = 1; i <= frames; ++i) {
      if (m->in_flight() > depth) {
        st = m->collect(out->data(), &estimated);
        if (!st) return st;
        if (!estimated) return not_estimated();
        record();
      }
      st = m->submit(view_of(clip, i), rt);
      if (!st) return st;
    }
    while (m->in_flight() > 0) {
      st = m->collect(out->data(), &estimated);
      if (!st) return st;
      if (!estimated) return not_estimated();
      record();
    }
  }
  t->sec_per_frame = seconds_since(t0) / frames;
  return Status::ok();
}

/* Estimated CPU time per frame for `c` with all cores: the same blocks and
 * search on a crop of the clip (at least 4 blocks or 256 pixels a side),
 * scaled by the pixel differences. < 0 on error. */
inline double estimate_cpu_seconds(const Case& c, const Clip& clip, int threads = 0) {
  match::BlockMatchConfig cfg = c.config();
  cfg.width = std::min(c.width, std::max(256, 4 * c.block_w));
  cfg.height = std::min(c.height, std::max(256, 4 * c.block_h));
  std::unique_ptr<match::BlockMatcher> m;
  if (!match::BlockMatcher::create(match::Backend::kCpu, cfg, &m)) return -1;
  std::vector<match::BlockVector> out(cfg.num_blocks());
  match::BlockMatchRuntime rt;
  rt.threads = threads;
  bool est = false;
  auto crop = [&](int i) {
    return match::ImageView{clip.walk(i), cfg.width, cfg.height, clip.width};
  };
  double best = 1e30;
  for (int rep = 0; rep < 2; ++rep) { /* first pass also warms up */
    m->reset();
    if (!m->process(crop(0), rt, out.data(), &est)) return -1;
    const Clock::time_point t0 = Clock::now();
    if (!m->process(crop(1), rt, out.data(), &est)) return -1;
    best = std::min(best, seconds_since(t0));
  }
  const double small = static_cast<double>(cfg.candidates()) * cfg.width * cfg.height;
  return best * c.pixel_diffs() / small;
}

/* ---- Formatting and parsing ---------------------------------------------- */

/* Milliseconds with about 4 significant digits; "-" when < 0. */
inline std::string fmt_ms(double ms) {
  if (!(ms >= 0)) return "-";
  char b[32];
  if (ms >= 1000)
    std::snprintf(b, sizeof b, "%.0f", ms);
  else if (ms >= 100)
    std::snprintf(b, sizeof b, "%.1f", ms);
  else if (ms >= 10)
    std::snprintf(b, sizeof b, "%.2f", ms);
  else if (ms >= 1)
    std::snprintf(b, sizeof b, "%.3f", ms);
  else
    std::snprintf(b, sizeof b, "%.4f", ms);
  return b;
}

inline std::string fmt_fps(double ms) {
  if (!(ms > 0)) return "-";
  char b[32];
  const double fps = 1e3 / ms;
  std::snprintf(b, sizeof b, fps >= 100 ? "%.0f" : fps >= 10 ? "%.1f" : "%.2f", fps);
  return b;
}

/* A ratio; "-" when either side is unknown. */
inline std::string fmt_ratio(double num, double den) {
  if (!(num > 0) || !(den > 0)) return "-";
  const double r = num / den;
  char b[32];
  std::snprintf(b, sizeof b, r >= 100 ? "%.0f" : r >= 10 ? "%.1f" : "%.2f", r);
  return b;
}

inline std::string fmt_double(double v, const char* f = "%.6g") {
  if (!(v >= 0)) return "";
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

/* CSV field, quoted when needed. */
inline std::string csv(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char ch : s) {
    if (ch == '"') q += '"';
    q += ch;
  }
  return q + "\"";
}

/* "0,1" -> {0, 1}; false on anything else. */
inline bool parse_devices(const char* s, std::vector<int>* out) {
  out->clear();
  std::string cur;
  for (const char* p = s;; ++p) {
    if (*p == ',' || *p == '\0') {
      if (cur.empty()) return false;
      char* end = nullptr;
      const long v = std::strtol(cur.c_str(), &end, 10);
      if (*end || v < 0 || v > 64) return false;
      out->push_back(static_cast<int>(v));
      cur.clear();
      if (!*p) break;
    } else {
      cur += *p;
    }
  }
  return !out->empty();
}

inline std::string devices_string(const std::vector<int>& d) {
  std::string s;
  for (size_t i = 0; i < d.size(); ++i) s += (i ? "," : "") + std::to_string(d[i]);
  return s;
}

inline bool parse_backend(const std::string& s, match::Backend* b) {
  if (s == "cpu")
    *b = match::Backend::kCpu;
  else if (s == "cuda")
    *b = match::Backend::kCuda;
  else
    return false;
  return true;
}

inline bool parse_mode(const std::string& s, match::MultiGpuMode* m) {
  if (s == "parallel")
    *m = match::MultiGpuMode::kParallel;
  else if (s == "serial")
    *m = match::MultiGpuMode::kSerial;
  else
    return false;
  return true;
}

/* Clips by size, loaded (and announced) when first needed. */
class ClipCache {
 public:
  ClipCache(std::string dir, bool synthetic)
      : dir_(std::move(dir)), synthetic_(synthetic) {}
  const Clip& get(int width, int height) {
    for (const auto& e : clips_)
      if (e.first == std::make_pair(width, height)) return e.second;
    clips_.emplace_back(std::make_pair(width, height),
                        load_clip(dir_, width, height, 12, true, synthetic_));
    const Clip& clip = clips_.back().second;
    std::printf("\nframes %dx%d: %s, %d frames\n", width, height, clip.origin.c_str(),
                clip.count);
    return clip;
  }
  /* One line per clip used: where its frames came from. */
  void print_origins() const {
    for (const auto& e : clips_)
      std::printf("frames %dx%d: %s\n", e.first.first, e.first.second,
                  e.second.origin.c_str());
  }

 private:
  std::string dir_;
  bool synthetic_;
  std::vector<std::pair<std::pair<int, int>, Clip>> clips_;
};

/* The options both programs share for choosing cases, backends and GPUs
 * (--case, --backend, --devices, --multi-gpu), for any Options with the
 * fields case_sel, paper, case_mode, backends, device_sets and modes.
 * Returns 1 when `a` was one of them (value `v` taken), 0 when it was not,
 * -1 on a bad value (after saying why). */
template <typename Options>
int parse_selection_option(const std::string& a, const char* v, Options* o) {
  if (a == "--case") {
    o->case_sel.push_back(v);
    o->paper = o->case_mode = true;
  } else if (a == "--backend") {
    match::Backend b;
    if (!parse_backend(v, &b)) {
      std::fprintf(stderr, "--backend wants cpu or cuda, got '%s'\n", v);
      return -1;
    }
    if (std::find(o->backends.begin(), o->backends.end(), b) == o->backends.end())
      o->backends.push_back(b);
    o->case_mode = true;
  } else if (a == "--devices") {
    std::vector<int> d;
    if (!parse_devices(v, &d)) {
      std::fprintf(stderr, "--devices wants ordinals like 0 or 0,1, got '%s'\n", v);
      return -1;
    }
    o->device_sets.push_back(d);
    o->case_mode = true;
  } else if (a == "--multi-gpu") {
    match::MultiGpuMode m;
    if (!parse_mode(v, &m)) {
      std::fprintf(stderr, "--multi-gpu wants parallel or serial, got '%s'\n", v);
      return -1;
    }
    if (std::find(o->modes.begin(), o->modes.end(), m) == o->modes.end())
      o->modes.push_back(m);
    o->case_mode = true;
  } else {
    return 0;
  }
  return 1;
}

inline const char* mode_name(match::MultiGpuMode m) {
  return m == match::MultiGpuMode::kSerial ? "serial" : "parallel";
}

/* "cpu", "cuda:0", "cuda:0,1 par", "cuda:0,1 ser". */
inline std::string backend_label(match::Backend b, const std::vector<int>& devices,
                                 match::MultiGpuMode mode) {
  if (b == match::Backend::kCpu) return "cpu";
  std::string s = "cuda:" + devices_string(devices);
  if (devices.size() > 1) s += mode == match::MultiGpuMode::kSerial ? " ser" : " par";
  return s;
}

/* One line per CUDA device, or why there is none. */
inline void print_cuda_devices(FILE* f) {
  const int n = match::cuda_device_count();
  if (n == 0) {
    std::fprintf(
        f,
        "CUDA devices: none (match::cuda_device_count() == 0: no CUDA backend in this "
        "build, no driver or no GPU); CUDA rows are skipped\n");
    return;
  }
  std::fprintf(f, "CUDA devices: %d\n", n);
  for (int i = 0; i < n; ++i)
    std::fprintf(f, "  cuda:%d  %s\n", i, match::cuda_device_name(i).c_str());
}

/* Prints the case legend (one line per case). */
inline void print_case_legend(const std::vector<Case>& cases) {
  std::printf("%-16s %-15s %-9s %-16s %-9s %-5s %-15s %8s  %-34s %s\n", "case", "title",
              "frame", "blocks", "range", "grid", "cands (paper)", "Gpxdiff",
              "paper figure", "target");
  for (const Case& c : cases) {
    const match::BlockMatchConfig cfg = c.config();
    char frame[24], blocks[40], range[24], cands[48];
    std::snprintf(frame, sizeof frame, "%dx%d", c.width, c.height);
    std::snprintf(blocks, sizeof blocks, "%dx%d of %dx%d", cfg.columns(), cfg.rows(),
                  c.block_w, c.block_h);
    std::snprintf(range, sizeof range, "+-%dx%d", c.range_x, c.range_y);
    if (c.paper_candidates > 0)
      std::snprintf(cands, sizeof cands, "%lld (%lld)", c.candidates(),
                    c.paper_candidates);
    else
      std::snprintf(cands, sizeof cands, "%lld", c.candidates());
    std::printf("%-16s %-15s %-9s %-16s %-9s %-5s %-15s %8.2f  %-34s %s\n", c.id.c_str(),
                c.title.c_str(), frame, blocks, range, grid_name(c.subpel), cands,
                c.pixel_diffs() / 1e9, c.paper_text.empty() ? "-" : c.paper_text.c_str(),
                c.target_text.empty() ? "-" : c.target_text.c_str());
  }
}

}  // namespace bench
