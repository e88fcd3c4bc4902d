/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * OpenMP CPU backend for phase-only-correlation motion estimation (POC-HS).
 * The algorithm and every definition (geometry, layers, hierarchy, window,
 * low-pass box, tie rule, peak fit) are those of ref/poc_ref.cpp; this file
 * only makes them fast:
 *
 * - Each frame is prepared once: converted to float and reduced into its
 *   coarser layers, into one of two slots; the slot of the previous frame is
 *   reused for the next pair, so no frame is ever prepared twice.
 * - Blocks are independent and spread over OpenMP threads; each thread owns
 *   its scratch (four n x n float planes and two index tables), sized at
 *   create/reconfigure, so process() allocates nothing.
 * - Float32 and our own FFT (cpu/fft.h). The two real windows f and g of
 *   one POC go through ONE complex 2-D transform as z = f + i g and are
 *   separated with F(k) = (Z(k) + conj Z(-k)) / 2,
 *   G(k) = (Z(k) - conj Z(-k)) / 2i. The inverse needs only the real part
 *   of the (real) POC surface: r = Re DFT(conj R) / n^2, one more forward
 *   transform. So one POC costs two 2-D complex FFTs of size n.
 * - The sub-pixel fit runs in double on the nine float samples, with the
 *   reference's own fit function, so the float backend differs from the
 *   reference only by the rounding of the surface.
 * - Shared coarse layers (PocCoarse::kShared, kSharedMedian): each coarser
 *   layer's grid is one parallel loop, coarsest first, inside the same
 *   OpenMP region as layer 0 (the loops' barriers order the layers); the
 *   grids' motions live in buffers sized at configure.
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "fft.h"
#include "internal.h"
#include "match/log.h"
#include "match/poc.h"
#include "ref/poc_coarse.h"
#include "ref/poc_fit.h"
#include "threads.h"

namespace match {
namespace cpu {

namespace {

/* One prepared frame: layer 0 as float and its coarser layers. */
class PocSlot {
 public:
  void allocate(int width, int height, int layers) {
    layers_ = layers;
    for (int l = 0; l <= 3; ++l) {
      w_[l] = l == 0 ? width : w_[l - 1] / 2;
      h_[l] = l == 0 ? height : h_[l - 1] / 2;
      if (l <= layers)
        px_[l].assign(static_cast<size_t>(w_[l]) * h_[l], 0.f);
      else
        px_[l].clear();
    }
    valid_ = false;
  }

  void prepare(const ImageView& img, int threads) {
    (void)threads;
    float* d = px_[0].data();
    const int w = w_[0];
    MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads != 1))
    for (int y = 0; y < h_[0]; ++y) {
      const uint8_t* s = img.row(y);
      float* o = d + static_cast<size_t>(y) * w;
      for (int x = 0; x < w; ++x) o[x] = s[x];
    }
    build_coarser(threads);
    valid_ = true;
  }

  /* Rebuilds layers 1..layers from layer 0 (after a reconfigure). */
  void build_coarser(int threads) {
    (void)threads;
    for (int l = 1; l <= layers_; ++l) {
      const float* a = px_[l - 1].data();
      float* b = px_[l].data();
      const int aw = w_[l - 1], bw = w_[l], bh = h_[l];
      MATCH_OMP(parallel for schedule(static) num_threads(threads) if (threads != 1))
      for (int y = 0; y < bh; ++y) {
        const float* r0 = a + static_cast<size_t>(2 * y) * aw;
        const float* r1 = r0 + aw;
        float* o = b + static_cast<size_t>(y) * bw;
        for (int x = 0; x < bw; ++x)
          o[x] = (r0[2 * x] + r0[2 * x + 1] + r1[2 * x] + r1[2 * x + 1]) * 0.25f;
      }
    }
  }

  /* Layer 0 of `o` (same frame size), then this slot's coarser layers. */
  void take_frame(const PocSlot& o, int threads) {
    px_[0] = o.px_[0];
    build_coarser(threads);
    valid_ = true;
  }

  const float* layer(int l) const { return px_[l].data(); }
  int width(int l) const { return w_[l]; }
  int height(int l) const { return h_[l]; }
  bool valid() const { return valid_; }
  void invalidate() { valid_ = false; }

 private:
  std::vector<float> px_[4];
  int w_[4] = {0, 0, 0, 0}, h_[4] = {0, 0, 0, 0};
  int layers_ = 0;
  bool valid_ = false;
};

/* A coarse layer's block grid and its blocks' integer motions, (mx, my) at
 * m[2 b] (ref/poc_ref.cpp, "Coarse layers"). cols = 0: no grid. */
struct CoarseGrid {
  int cols = 0, rows = 0, w = 0, h = 0, s = 0;
  std::vector<int> m;

  void allocate(int width, int height, int spacing) {
    cols = (width + spacing - 1) / spacing;
    rows = (height + spacing - 1) / spacing;
    w = width;
    h = height;
    s = spacing;
    m.assign(static_cast<size_t>(2) * cols * rows, 0);
  }
  int blocks() const { return cols * rows; }
  void point(int b, int* px, int* py) const {
    const int x0 = (b % cols) * s, y0 = (b / cols) * s;
    *px = (x0 + std::min(x0 + s, w)) / 2;
    *py = (y0 + std::min(y0 + s, h)) / 2;
  }
  /* Search centre of the point (px, py) of the layer below
   * (ref/poc_coarse.h). */
  void predict(bool median, int px, int py, int* cx, int* cy) const {
    poc_detail::predict_centre(
        cols, rows, s, median, px, py,
        [this](int c, int r, int* mx, int* my) {
          const int* mv = &m[2 * (static_cast<size_t>(r) * cols + c)];
          *mx = mv[0];
          *my = mv[1];
        },
        cx, cy);
  }
};

/* Per-thread work space. */
struct Scratch {
  std::vector<float> re, im, wre, wim;
  std::vector<int> fx, fy, gx, gy; /* clamped pixel indices of the windows */

  void allocate(int n) {
    const size_t nn = static_cast<size_t>(n) * n;
    re.assign(nn, 0.f);
    im.assign(nn, 0.f);
    wre.assign(nn, 0.f);
    wim.assign(nn, 0.f);
    fx.assign(n, 0);
    fy.assign(n, 0);
    gx.assign(n, 0);
    gy.assign(n, 0);
  }
};

class CpuPocMatcher final : public PocMatcher {
 public:
  explicit CpuPocMatcher(const PocConfig& config) {
    configure(config);
    log(LogLevel::kInfo,
        "CPU POC matcher %dx%d, window %d, spacing %d, %d coarser layers%s", config.width,
        config.height, config.window_size, config.spacing, config.layers,
        config.coarse == PocCoarse::kPerBlock ? ""
        : config.coarse == PocCoarse::kShared ? " (shared)"
                                              : " (shared, median)");
  }

  Backend backend() const override { return Backend::kCpu; }
  int team() const override { return team_; }
  std::string description() const override {
    return "cpu (" + std::to_string(default_threads()) + " threads)";
  }

  Status process(const ImageView& luma, const PocRuntime& rt, PocVector* out,
                 bool* estimated) override {
    if (luma.width != config_.width || luma.height != config_.height || !luma.data ||
        !out)
      return Status(StatusCode::kInvalidArgument,
                    "frame does not match the configured size");
    const auto t0 = std::chrono::steady_clock::now();
    const int threads = tuner_.next(rt.threads, cpu_team(0));
    team_ = threads;
    if (static_cast<int>(scratch_.size()) < threads) {
      /* Only when a caller asks for more threads than the default, or the
       * default share grew (another CPU matcher went away): once, not per
       * frame. */
      const size_t old = scratch_.size();
      scratch_.resize(threads);
      for (size_t i = old; i < scratch_.size(); ++i)
        scratch_[i].allocate(config_.window_size);
    }
    PocSlot& cur = slots_[cur_];
    PocSlot& prev = slots_[cur_ ^ 1];
    cur.prepare(luma, threads);
    const bool have_prev = prev.valid();
    if (have_prev) {
      const bool fwd = config_.direction == Direction::kForward;
      estimate(fwd ? prev : cur, fwd ? cur : prev, rt, threads, out);
      tuner_.record_since(t0);
    } else {
      std::fill(out, out + config_.num_blocks(), PocVector{});
    }
    cur_ ^= 1;
    if (estimated) *estimated = have_prev;
    return Status::ok();
  }

  Status reconfigure(const PocConfig& config) override {
    Status st = config.validate();
    if (!st) return st;
    if (config.width != config_.width || config.height != config_.height)
      return Status(StatusCode::kInvalidArgument,
                    "reconfigure cannot change the frame size");
    PocSlot old = std::move(slots_[cur_ ^ 1]);
    configure(config);
    if (old.valid()) {
      /* Keep the previous frame: its layer 0 is the frame itself. */
      slots_[cur_ ^ 1].take_frame(old, default_threads());
    }
    return Status::ok();
  }

  void reset() override {
    for (auto& s : slots_) s.invalidate();
    drop_pending();
  }

 private:
  /* n-threads = 0: this process's cores shared among its CPU matchers
   * (threads.h). */
  static int default_threads() { return cpu_team(0); }

  void configure(const PocConfig& config) {
    config_ = config;
    const int n = config.window_size;
    fft_.reset(new Fft2d(n));
    k_ = ref::poc_detail::lowpass_k(n, config.lowpass);
    win_.assign(n, 1.f);
    if (config.window == PocWindow::kHann)
      for (int i = 0; i < n; ++i)
        win_[i] = static_cast<float>(0.5 - 0.5 * std::cos(2.0 * M_PI * i / n));
    alpha_unit_ = (2.0 * k_ + 1) * (2.0 * k_ + 1) / (double(n) * n);
    for (auto& s : slots_) {
      s = PocSlot();
      s.allocate(config.width, config.height, config.layers);
    }
    for (int l = 0; l <= 3; ++l) grids_[l] = CoarseGrid();
    if (config.coarse != PocCoarse::kPerBlock) {
      const PocSlot& sl = slots_[0];
      for (int l = 1; l <= config.layers; ++l)
        grids_[l].allocate(sl.width(l), sl.height(l), config.spacing);
    }
    scratch_.clear();
    scratch_.resize(std::max(1, default_threads()));
    for (auto& s : scratch_) s.allocate(n);
  }

  /* Gathers the window of `layer` centred on (cx, cy) into dst (clamped),
   * then removes its mean and applies the window function. */
  void take_window(const PocSlot& slot, int l, int cx, int cy, int* xs, int* ys,
                   float* dst) const {
    const int n = config_.window_size, h = n / 2;
    const int w = slot.width(l), hh = slot.height(l);
    const float* px = slot.layer(l);
    const int x0 = cx - h, y0 = cy - h;
    for (int i = 0; i < n; ++i) {
      xs[i] = std::clamp(x0 + i, 0, w - 1);
      ys[i] = std::clamp(y0 + i, 0, hh - 1);
    }
    const bool inside_x = x0 >= 0 && x0 + n <= w;
    /* Sum in double: the float backend must not drift from the reference
     * on large flat windows (the mean is subtracted before windowing). */
    double sum = 0.0;
    for (int j = 0; j < n; ++j) {
      const float* row = px + static_cast<size_t>(ys[j]) * w;
      float* o = dst + static_cast<size_t>(j) * n;
      if (inside_x) {
        std::memcpy(o, row + x0, sizeof(float) * n);
      } else {
        for (int i = 0; i < n; ++i) o[i] = row[xs[i]];
      }
      float rs = 0.f; /* exact: at most 256 values, multiples of 1/64 */
      for (int i = 0; i < n; ++i) rs += o[i];
      sum += rs;
    }
    const float mean = static_cast<float>(sum / (double(n) * n));
    const float* wv = win_.data();
    for (int j = 0; j < n; ++j) {
      float* o = dst + static_cast<size_t>(j) * n;
      const float wj = wv[j];
      for (int i = 0; i < n; ++i) o[i] = (o[i] - mean) * (wv[i] * wj);
    }
  }

  /* One POC: writes the integer peak (n1, n2) and, when s9 is given, the
   * 3x3 samples around it (scaled to the reference's r). */
  void poc(Scratch& sc, const PocSlot& I, const PocSlot& J, int l, int px, int py, int cx,
           int cy, int* pn1, int* pn2, double* s9) const {
    const int n = config_.window_size, k = k_;
    float* re = sc.re.data();
    float* im = sc.im.data();
    float* wre = sc.wre.data();
    float* wim = sc.wim.data();
    take_window(I, l, px, py, sc.fx.data(), sc.fy.data(), re);
    take_window(J, l, cx, cy, sc.gx.data(), sc.gy.data(), im);
    fft_->forward_transposed(re, im, wre, wim);
    /* conj(R) on the kept box, zero elsewhere, in the transposed layout
     * (the box is symmetric, so the transposition does not matter). */
    std::fill(wre, wre + static_cast<size_t>(n) * n, 0.f);
    std::fill(wim, wim + static_cast<size_t>(n) * n, 0.f);
    for (int a = 0; a < n; ++a) {
      const int sa = a <= n / 2 ? a : a - n;
      if (sa > k || sa < -k) continue;
      const int na = (n - a) % n;
      const float* zr = re + static_cast<size_t>(a) * n;
      const float* zi = im + static_cast<size_t>(a) * n;
      const float* mr = re + static_cast<size_t>(na) * n;
      const float* mi = im + static_cast<size_t>(na) * n;
      float* outr = wre + static_cast<size_t>(a) * n;
      float* outi = wim + static_cast<size_t>(a) * n;
      auto bin = [&](int b) {
        const int nb = b == 0 ? 0 : n - b;
        const float Zr = zr[b], Zi = zi[b], Mr = mr[nb], Mi = mi[nb];
        const float Fr = Zr + Mr, Fi = Zi - Mi;
        const float Gr = Zi + Mi, Gi = Mr - Zr;
        const float Pr = Fr * Gr + Fi * Gi;
        const float Pi = Fi * Gr - Fr * Gi;
        const float m2 = Pr * Pr + Pi * Pi;
        if (m2 > 1e-30f) {
          const float inv = 1.f / std::sqrt(m2);
          outr[b] = Pr * inv;
          outi[b] = -Pi * inv;
        }
      };
      for (int b = 0; b <= k; ++b) bin(b);
      for (int b = n - k; b < n; ++b) bin(b);
    }
    fft_->forward_transposed(wre, wim, re, im);
    /* wre[y * n + x] = n^2 r(x, y). Peak: fftshifted raster order from
     * n = 0, strictly larger replaces (ref/poc_ref.cpp). */
    const int lo = -(n / 2);
    float best = wre[0];
    int b1 = 0, b2 = 0;
    for (int v = lo; v < n + lo; ++v) {
      const float* row = wre + static_cast<size_t>(v < 0 ? v + n : v) * n;
      for (int u = lo; u < n + lo; ++u) {
        const float r = row[u < 0 ? u + n : u];
        if (r > best) {
          best = r;
          b1 = u;
          b2 = v;
        }
      }
    }
    *pn1 = b1;
    *pn2 = b2;
    if (s9) {
      const double scale = 1.0 / (double(n) * n);
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) {
          const int x = ((b1 + i) % n + n) % n, y = ((b2 + j) % n + n) % n;
          s9[(j + 1) * 3 + i + 1] = wre[static_cast<size_t>(y) * n + x] * scale;
        }
    }
  }

  void estimate(const PocSlot& I, const PocSlot& J, const PocRuntime& rt, int threads,
                PocVector* out) {
    (void)threads;
    const PocConfig& c = config_;
    const int cols = c.columns(), nb = c.num_blocks(), s = c.spacing;
    const int n = c.window_size, L = c.layers;
    const bool shared = c.coarse != PocCoarse::kPerBlock && L > 0;
    const bool median = c.coarse == PocCoarse::kSharedMedian;
    MATCH_OMP(parallel num_threads(threads) if (threads != 1)) {
#if defined(_OPENMP)
      Scratch& sc = scratch_[omp_get_thread_num()];
#else
      Scratch& sc = scratch_[0];
#endif
      /* Shared coarse layers, coarsest first; each loop's closing barrier
       * makes its motions visible to the next layer's. */
      for (int l = shared ? L : 0; l >= 1; --l) {
        CoarseGrid& g = grids_[l];
        const CoarseGrid* up = l < L ? &grids_[l + 1] : nullptr;
        MATCH_OMP(for schedule(dynamic, 4))
        for (int b = 0; b < g.blocks(); ++b) {
          int px, py, cx, cy, n1, n2;
          g.point(b, &px, &py);
          cx = px;
          cy = py;
          if (up) up->predict(median, px, py, &cx, &cy);
          poc(sc, I, J, l, px, py, cx, cy, &n1, &n2, nullptr);
          g.m[2 * b] = cx - n1 - px;
          g.m[2 * b + 1] = cy - n2 - py;
        }
      }
      MATCH_OMP(for schedule(dynamic, 4))
      for (int b = 0; b < nb; ++b) {
        const int x0 = (b % cols) * s, y0 = (b / cols) * s;
        const int x1 = std::min(x0 + s, c.width);
        const int y1 = std::min(y0 + s, c.height);
        int p[4][2];
        p[0][0] = (x0 + x1) / 2;
        p[0][1] = (y0 + y1) / 2;
        for (int l = 1; l <= L; ++l) {
          p[l][0] = p[l - 1][0] / 2;
          p[l][1] = p[l - 1][1] / 2;
        }
        int cx = p[L][0], cy = p[L][1];
        double s9[9] = {}, alpha = 0, t1 = 0, t2 = 0;
        int n1 = 0, n2 = 0;
        if (shared) {
          grids_[1].predict(median, p[0][0], p[0][1], &cx, &cy);
        } else {
          for (int l = L; l >= 1; --l) {
            poc(sc, I, J, l, p[l][0], p[l][1], cx, cy, &n1, &n2, nullptr);
            cx = 2 * (cx - n1);
            cy = 2 * (cy - n2);
          }
        }
        poc(sc, I, J, 0, p[0][0], p[0][1], cx, cy, &n1, &n2, s9);
        if (n1 != 0 || n2 != 0) {
          /* Re-centre once (ref/poc_ref.cpp, "Re-centring"). */
          cx -= n1;
          cy -= n2;
          poc(sc, I, J, 0, p[0][0], p[0][1], cx, cy, &n1, &n2, s9);
        }
        poc_detail::fit_peak(s9, n, k_, &alpha, &t1, &t2);
        PocVector& v = out[b];
        v.dx = static_cast<float>(cx + t1 - n1 - p[0][0]);
        v.dy = static_cast<float>(cy + t2 - n2 - p[0][1]);
        /* A fit on noise can give a slightly negative height: no similarity. */
        v.confidence = static_cast<float>(std::max(0.0, alpha / alpha_unit_));
        v.flags = v.confidence < rt.min_confidence ? kFlagUnreliable : kFlagNone;
      }
    }
  }

  CpuUser user_;    /* counts in cpu_team()'s share while this matcher lives */
  TeamTuner tuner_; /* the default team within that share */
  int team_ = 0;    /* the last frame's */
  PocSlot slots_[2];
  int cur_ = 0;
  std::unique_ptr<Fft2d> fft_;
  int k_ = 1;
  double alpha_unit_ = 1.0;
  std::vector<float> win_;
  std::vector<Scratch> scratch_;
  CoarseGrid grids_[4]; /* layers 1..L with shared coarse layers */
};

}  // namespace

Status create_poc_matcher(const PocConfig& config, std::unique_ptr<PocMatcher>* out) {
  Status st = config.validate();
  if (!st) return st;
  out->reset(new CpuPocMatcher(config));
  return Status::ok();
}

}  // namespace cpu
}  // namespace match
