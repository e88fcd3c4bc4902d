/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * libsgm_bench: times libSGM (https://github.com/fixstars/libSGM, Apache-2.0;
 * not part of this repository: bench/libsgm-compare.sh builds this file
 * against a copy given by path) on the cases of docs/stereodisparity.md's
 * speed table, for comparison with our stereo matcher on the same GPU.
 *
 * Per case: one sgm::StereoSGM (8-bit input, 16-bit output,
 * EXECUTE_INOUT_CUDA2CUDA, so both views and the map stay on the device),
 * --warmup untimed execute() calls, then --runs timed calls, each
 * execute() + cudaDeviceSynchronize() on the host clock; the median is
 * reported (min and 90th percentile as well). Parameters: libSGM's defaults
 * (P1 10, P2 120, uniqueness 0.95, LR check 1, symmetric 9x7 census unless
 * --census 9x7) with the case's paths and sub-pixel setting.
 *
 * Input: a synthetic textured pair (smooth value noise plus fine noise, the
 * right view = the left one shifted by a smooth disparity field over
 * 10-60 % of the range), so that the output can be checked roughly ("ok1" =
 * % of the pixels right of the search range within 1 px of the field); or
 * --left/--right 8-bit PGM views resampled bilinearly to each size (no
 * check then).
 *
 * Output, one line per case, fixed format (key=value, space separated):
 *   libsgm size=1024x440 disp=128 paths=4 subpixel=1 census=sym9x7
 *     median_ms=M fps=F min_ms=M0 p90_ms=M9 runs=200 valid=V ok1=K
 * (on one line; the numbers with 3 or 1 decimals), after "# " header
 * lines naming the GPU, libSGM's version and the settings.
 */
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include <libsgm.h>

namespace {

#define CK(call)                                                         \
  do {                                                                   \
    cudaError_t e_ = (call);                                             \
    if (e_ != cudaSuccess) {                                             \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
                   cudaGetErrorString(e_));                              \
      std::exit(1);                                                      \
    }                                                                    \
  } while (0)

struct Case {
  int w, h, disp, paths;
  bool subpixel;
};

struct Gray {
  int w = 0, h = 0;
  std::vector<uint8_t> px;
};

bool read_pgm(const char* path, Gray* g) {
  FILE* f = std::fopen(path, "rb");
  if (!f) return false;
  int maxval = 0;
  bool ok = std::fscanf(f, "P5 %d %d %d", &g->w, &g->h, &maxval) == 3 && maxval == 255 &&
            std::fgetc(f) != EOF && g->w > 0 && g->h > 0;
  if (ok) {
    g->px.resize(static_cast<size_t>(g->w) * g->h);
    ok = std::fread(g->px.data(), 1, g->px.size(), f) == g->px.size();
  }
  std::fclose(f);
  return ok;
}

/* Bilinear resample (pixel centres aligned), as OpenCV's INTER_LINEAR. */
std::vector<uint8_t> resample(const Gray& s, int w, int h) {
  std::vector<uint8_t> out(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y) {
    const double sy = std::clamp((y + 0.5) * s.h / h - 0.5, 0.0, s.h - 1.0);
    const int y0 = static_cast<int>(sy), y1 = std::min(y0 + 1, s.h - 1);
    const double ay = sy - y0;
    for (int x = 0; x < w; ++x) {
      const double sx = std::clamp((x + 0.5) * s.w / w - 0.5, 0.0, s.w - 1.0);
      const int x0 = static_cast<int>(sx), x1 = std::min(x0 + 1, s.w - 1);
      const double ax = sx - x0;
      auto p = [&](int xx, int yy) {
        return static_cast<double>(s.px[static_cast<size_t>(yy) * s.w + xx]);
      };
      const double v = (1 - ay) * ((1 - ax) * p(x0, y0) + ax * p(x1, y0)) +
                       ay * ((1 - ax) * p(x0, y1) + ax * p(x1, y1));
      out[static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(std::lround(v));
    }
  }
  return out;
}

/* Smooth disparity field in [0.1, 0.6] * disp. */
double field(double x, int y, int w, int h, int disp) {
  const double u = x / w, v = static_cast<double>(y) / h;
  return disp * (0.35 + 0.15 * std::sin(6.0 * u + 1.0) + 0.1 * std::cos(5.0 * v));
}

/* Left: value noise on an 8-pixel lattice (bilinear) plus per-pixel noise;
 * right(x) = left(x + D(x, y)) by linear interpolation, so left(x) ~
 * right(x - d) with d ~ D. */
void synthesise(int w, int h, int disp, std::vector<uint8_t>* L,
                std::vector<uint8_t>* R) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> uni(0.0, 1.0);
  const int gw = w / 8 + 2, gh = h / 8 + 2;
  std::vector<double> lattice(static_cast<size_t>(gw) * gh);
  for (double& v : lattice) v = uni(rng);
  std::vector<double> left(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const int gx = x / 8, gy = y / 8;
      const double ax = (x % 8) / 8.0, ay = (y % 8) / 8.0;
      auto g = [&](int i, int j) { return lattice[static_cast<size_t>(j) * gw + i]; };
      const double s = (1 - ay) * ((1 - ax) * g(gx, gy) + ax * g(gx + 1, gy)) +
                       ay * ((1 - ax) * g(gx, gy + 1) + ax * g(gx + 1, gy + 1));
      left[static_cast<size_t>(y) * w + x] =
          std::clamp(40.0 + 170.0 * s + 30.0 * (uni(rng) - 0.5), 0.0, 255.0);
    }
  L->resize(left.size());
  R->resize(left.size());
  for (size_t i = 0; i < left.size(); ++i)
    (*L)[i] = static_cast<uint8_t>(std::lround(left[i]));
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double sx = std::min<double>(x + field(x, y, w, h, disp), w - 1);
      const int x0 = static_cast<int>(sx), x1 = std::min(x0 + 1, w - 1);
      const double a = sx - x0;
      const double* row = &left[static_cast<size_t>(y) * w];
      (*R)[static_cast<size_t>(y) * w + x] =
          static_cast<uint8_t>(std::lround((1 - a) * row[x0] + a * row[x1]));
    }
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const size_t i =
      std::min(v.size() - 1, static_cast<size_t>(std::lround(q * (v.size() - 1))));
  return v[i];
}

void usage() {
  std::printf(
      "usage: libsgm_bench [options]\n"
      "  --case WxH:DISP:PATHS:SUBPIXEL   a case (repeatable; DISP 64|128|256, PATHS "
      "4|8,\n"
      "                                   SUBPIXEL 0|1); default: 1024x440:128:4:1,\n"
      "                                   1920x1080:128:8:1, 1920x1080:128:4:1, "
      "1280x720:128:8:1\n"
      "  --runs N        timed calls per case, median reported (default 200)\n"
      "  --warmup N      untimed calls first (default 20)\n"
      "  --census sym9x7|9x7   census (default sym9x7, libSGM's default)\n"
      "  --device N      CUDA device (default 0)\n"
      "  --left L.pgm --right R.pgm   input pair, resampled to each size (default: "
      "synthetic)\n");
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Case> cases;
  int runs = 200, warmup = 20, device = 0;
  bool full_census = false;
  const char *lpath = nullptr, *rpath = nullptr;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage();
      return 0;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", a.c_str());
      usage();
      return 2;
    }
    const char* v = argv[++i];
    if (a == "--case") {
      Case c;
      int sp = 0;
      if (std::sscanf(v, "%dx%d:%d:%d:%d", &c.w, &c.h, &c.disp, &c.paths, &sp) != 5 ||
          (c.paths != 4 && c.paths != 8) ||
          (c.disp != 64 && c.disp != 128 && c.disp != 256)) {
        std::fprintf(stderr, "bad --case %s\n", v);
        return 2;
      }
      c.subpixel = sp != 0;
      cases.push_back(c);
    } else if (a == "--runs") {
      runs = std::max(1, std::atoi(v));
    } else if (a == "--warmup") {
      warmup = std::max(0, std::atoi(v));
    } else if (a == "--device") {
      device = std::atoi(v);
    } else if (a == "--census") {
      if (std::strcmp(v, "9x7") == 0)
        full_census = true;
      else if (std::strcmp(v, "sym9x7") == 0)
        full_census = false;
      else {
        std::fprintf(stderr, "--census wants 9x7 or sym9x7\n");
        return 2;
      }
    } else if (a == "--left") {
      lpath = v;
    } else if (a == "--right") {
      rpath = v;
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      usage();
      return 2;
    }
  }
  if (cases.empty())
    cases = {{1024, 440, 128, 4, true},
             {1920, 1080, 128, 8, true},
             {1920, 1080, 128, 4, true},
             {1280, 720, 128, 8, true}};
  Gray gl, gr;
  if ((lpath != nullptr) != (rpath != nullptr) ||
      (lpath && (!read_pgm(lpath, &gl) || !read_pgm(rpath, &gr)))) {
    std::fprintf(stderr, "--left and --right: two readable 8-bit PGM files\n");
    return 2;
  }

  CK(cudaSetDevice(device));
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, device));
  int rt = 0, drv = 0;
  CK(cudaRuntimeGetVersion(&rt));
  CK(cudaDriverGetVersion(&drv));
  std::printf("# libSGM %d.%d.%d on %s (sm_%d%d), CUDA runtime %d, driver %d\n",
              LIBSGM_VERSION_MAJOR, LIBSGM_VERSION_MINOR, LIBSGM_VERSION_PATCH, prop.name,
              prop.major, prop.minor, rt, drv);
  std::printf(
      "# device-resident 8-bit views, 16-bit map (CUDA2CUDA); P1 10 P2 120 uniqueness "
      "0.95 "
      "LR 1; median of %d execute()+sync after %d warm-up calls; input %s\n",
      runs, warmup, lpath ? lpath : "synthetic");
  std::fflush(stdout);

  for (const Case& c : cases) {
    std::vector<uint8_t> L, R;
    if (lpath) {
      L = resample(gl, c.w, c.h);
      R = resample(gr, c.w, c.h);
    } else {
      synthesise(c.w, c.h, c.disp, &L, &R);
    }
    const size_t n = static_cast<size_t>(c.w) * c.h;
    uint8_t *dl = nullptr, *dr = nullptr;
    int16_t* dd = nullptr;
    CK(cudaMalloc(&dl, n));
    CK(cudaMalloc(&dr, n));
    CK(cudaMalloc(&dd, n * sizeof(int16_t)));
    CK(cudaMemcpy(dl, L.data(), n, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dr, R.data(), n, cudaMemcpyHostToDevice));

    const sgm::StereoSGM::Parameters param(
        10, 120, 0.95f, c.subpixel,
        c.paths == 8 ? sgm::PathType::SCAN_8PATH : sgm::PathType::SCAN_4PATH, 0, 1,
        full_census ? sgm::CensusType::CENSUS_9x7
                    : sgm::CensusType::SYMMETRIC_CENSUS_9x7);
    std::vector<double> ms;
    std::vector<int16_t> out(n);
    int invalid = 0;
    {
      sgm::StereoSGM sgm(c.w, c.h, c.disp, 8, 16, sgm::EXECUTE_INOUT_CUDA2CUDA, param);
      invalid = sgm.get_invalid_disparity();
      for (int i = 0; i < warmup; ++i) sgm.execute(dl, dr, dd);
      CK(cudaDeviceSynchronize());
      ms.reserve(runs);
      for (int i = 0; i < runs; ++i) {
        const auto t0 = std::chrono::steady_clock::now();
        sgm.execute(dl, dr, dd);
        CK(cudaDeviceSynchronize());
        ms.push_back(std::chrono::duration<double, std::milli>(
                         std::chrono::steady_clock::now() - t0)
                         .count());
      }
      CK(cudaGetLastError());
      CK(cudaMemcpy(out.data(), dd, n * sizeof(int16_t), cudaMemcpyDeviceToHost));
    }
    CK(cudaFree(dl));
    CK(cudaFree(dr));
    CK(cudaFree(dd));

    /* Sanity: valid share; on the synthetic pair, share within 1 px of the
     * field over the pixels right of the search range. */
    const double scale = c.subpixel ? sgm::StereoSGM::SUBPIXEL_SCALE : 1.0;
    size_t valid = 0, good = 0, judged = 0;
    for (int y = 0; y < c.h; ++y)
      for (int x = 0; x < c.w; ++x) {
        const int v = out[static_cast<size_t>(y) * c.w + x];
        const bool ok = v != invalid;
        valid += ok;
        if (!lpath && x >= c.disp) {
          ++judged;
          /* The left pixel x matches the right pixel xr with
           * xr + D(xr) = x: its true disparity is D(xr). */
          double xr = x - field(x, y, c.w, c.h, c.disp);
          for (int it = 0; it < 8; ++it) xr = x - field(xr, y, c.w, c.h, c.disp);
          good += ok && std::fabs(v / scale - (x - xr)) <= 1.0;
        }
      }
    const double med = percentile(ms, 0.5);
    char ok1[32] = "-";
    if (judged) std::snprintf(ok1, sizeof ok1, "%.1f", 100.0 * good / judged);
    std::printf(
        "libsgm size=%dx%d disp=%d paths=%d subpixel=%d census=%s median_ms=%.3f "
        "fps=%.1f "
        "min_ms=%.3f p90_ms=%.3f runs=%d valid=%.1f ok1=%s\n",
        c.w, c.h, c.disp, c.paths, c.subpixel ? 1 : 0, full_census ? "9x7" : "sym9x7",
        med, 1e3 / med, percentile(ms, 0.0), percentile(ms, 0.9), runs, 100.0 * valid / n,
        ok1);
    std::fflush(stdout);
  }
  return 0;
}
