/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Plain reference of phase-only-correlation motion estimation with
 * hierarchical search (POC-HS), paper [E] of README's References.
 * Double precision, a textbook recursive mixed-radix DFT, no threads, no
 * attempt at speed: the CPU backend (cpu/poc_cpu.cpp) is tested against it.
 *
 * The definitions every backend follows (poc.h gives the public part):
 *
 * Geometry. Block (c, r) covers x in [x0, x1) = [c s, min((c+1) s, W)),
 *   likewise y. Its point is p0 = (floor((x0 + x1) / 2), floor((y0 + y1) / 2)),
 *   the block centre (rounded down when the block has an odd size). A window
 *   "centred on" an integer point p covers the pixels
 *   [p - N/2, p - N/2 + N) (N/2 rounded down) on each axis, so for even N
 *   its continuous centre is exactly p. Pixels outside the layer are read
 *   with clamp-to-edge.
 *
 * Layers. I_0 = the frame; I_l(n) = mean of the 2x2 pixels of I_(l-1) at 2n,
 *   size floor(W_(l-1) / 2) x floor(H_(l-1) / 2) (an odd last row/column is
 *   dropped). Values are multiples of 1/64 below 256, exact in float too.
 *
 * Hierarchy (POC-HS). I is the frame that the blocks tile (kForward: the
 *   earlier frame; kBackward: the later one), J the searched frame.
 *   p_l = floor(p_(l-1) / 2). At the coarsest layer L = config.layers the
 *   search window in J is centred on c_L = p_L (zero motion assumed). At
 *   each layer l = L..0: f = window of I_l centred on p_l, g = window of J_l
 *   centred on c_l, delta_l = the POC displacement of g against f, and
 *   q_l = c_l + delta_l; c_(l-1) = 2 q_l. delta_l is an integer at l > 0 and
 *   sub-pixel at l = 0; v = q_0 - p_0. This is paper [E]'s POC-HS with
 *   l_max = L + 1, except that the estimate at layer L is centred on p_L
 *   rather than on 2 floor(p_L / 2) (the layer L + 1 would only round the
 *   point): `layers` counts the coarser layers that are searched, so that
 *   layers = 1 differs from layers = 0 (and layers = 0 is single-layer POC).
 *   This is config.coarse = PocCoarse::kPerBlock (the default).
 *
 * Coarse layers (config.coarse). With kPerBlock each block runs the
 *   hierarchy above on its own, so every coarser layer costs one POC per
 *   block, as layer 0 does, although the coarse windows of neighbouring
 *   blocks overlap almost entirely. With kShared the coarser layers are
 *   searched once on a grid of their own: layer l >= 1 is tiled by blocks
 *   of the same spacing s in layer-l pixels, block (C, R) covering
 *   [C s, min((C+1) s, W_l)) x [R s, min((R+1) s, H_l)), with its point
 *   P = (floor((x0 + x1) / 2), floor((y0 + y1) / 2)) as at layer 0 (so
 *   layer l has about 1 / 4^l as many blocks). The "parent" at layer l of a
 *   point p of layer l - 1 is the layer-l block containing floor(p / 2), its
 *   column and row clamped to layer l's grid (an odd last column of layer
 *   l - 1 halves to just outside layer l). Each block of a layer l - 1
 *   (l - 1 >= 0, its point p) takes the integer motion m = q_l - P_l of its
 *   parent (q_l: the parent's matched point) and centres its window in J
 *   on c_(l-1) = p + 2 m. At layer L, c_L = P_L (zero motion). At the
 *   coarser layers q_l = c_l + delta_l (integer) as above; layer 0 (the
 *   re-centring, the sub-pixel fit) is unchanged. kSharedMedian is kShared
 *   with m replaced by the per-component median of the motions of the 3 x 3
 *   layer-l blocks around the parent, columns and rows clamped to the grid
 *   (so always 9 values, border blocks repeated): a prediction that one
 *   wrong coarse block cannot make on its own. layers = 0: all modes are
 *   the same.
 *
 * One POC. Each window has its own mean removed BEFORE the window function
 *   is applied (otherwise the window's own shape correlates with itself and
 *   makes a peak at zero motion). Window: separable periodic Hann,
 *   w(n) = 0.5 - 0.5 cos(2 pi n / N), whose maximum sits on the window's
 *   centre pixel n = N/2, or none (w = 1). F, G = 2-D DFTs of f, g;
 *   R = F conj(G) / |F conj(G)| (0 where |F conj(G)| = 0); low-pass: R is
 *   kept only where |k1| <= K and |k2| <= K (signed frequencies, a box),
 *   K = min(floor(lowpass N / 2), floor((N - 1) / 2)), K >= 1. The Nyquist
 *   bin of an even N is always dropped: for real windows it is real, so its
 *   normalised value is +-1 and says nothing about a sub-pixel shift, it
 *   only adds a (-1)^n ripple. r = IDFT(R) (with 1 / N^2).
 *   If g(n) = f(n - d), R = exp(+2 pi i k.d / N) on the kept bins and
 *     r(n) = alpha P(n1 + d1) P(n2 + d2),
 *     P(x) = sin(pi (2K+1) x / N) / ((2K+1) sin(pi x / N)),
 *   with alpha = (2K+1)^2 / N^2 for that ideal case. For an odd N and no
 *   low-pass this is exactly the model of Takita et al. (2003); the box
 *   weight only narrows the band, so the peak keeps the same closed form.
 *   We report alpha normalised by (2K+1)^2 / N^2, so that identical windows
 *   give confidence 1 whatever N and lowpass.
 *
 * Peak. The integer peak n* is the largest r over the N x N surface, read in
 *   fftshifted raster order (n2 then n1, each from -floor(N/2) to
 *   N - 1 - floor(N/2)), starting from n = 0: a sample replaces the best one
 *   only when strictly larger, so ties go to zero displacement, then to the
 *   first in that order (an all-zero surface, from a flat window, gives
 *   delta = 0 with confidence 0). delta_l = -n* at the coarser layers.
 *
 * Re-centring (layer 0). When the layer-0 integer peak n* is not 0, the
 *   search window is moved by it (c_0 -= n*) and the POC made again, once;
 *   the fit uses that second surface. Why: a finite window holds content
 *   that the other window lacks in proportion to the displacement between
 *   them, which biases the sub-pixel peak (measured 0.01-0.05 px for
 *   integer shifts of 3-11 px); after re-centring the windows differ by
 *   less than a pixel, so an integer shift comes out exact and a sub-pixel
 *   one unbiased. Blocks whose coarser layers predicted the motion already
 *   pay nothing.
 *
 * Sub-pixel fit (layer 0). alpha, t1, t2 are fitted by least squares to the
 *   3x3 samples r(n* + (i, j)), i, j in {-1, 0, 1} (circular indices), with
 *   the model r ~ alpha P(i + t1) P(j + t2); delta = t - n*. Why a 3x3 least
 *   squares and not Takita's closed form from the peak and one neighbour:
 *   the closed form uses 2 samples per axis and ignores the noise on them;
 *   the 9 samples hold almost all of the main lobe's energy (the next ring
 *   is below 0.25 of the peak) and a joint fit uses both neighbours of each
 *   axis. It starts from the sinc closed form (ratio of the peak to its
 *   larger neighbour: t = -rho / (1 + rho)) and runs Gauss-Newton steps
 *   (3 unknowns, analytic model and derivative) until the step is below
 *   1e-9 px or 20 steps; t is kept within [-1, 1]. On band-limited shifts
 *   it recovers d to ~1e-3 px or better (tests/kernels/test_poc.cpp).
 *   confidence = the fitted alpha (normalised as above, clamped at 0).
 *
 * Last stage. poc_finish() (ref/poc_robust.cpp; every backend runs it on
 *   the host after its POC): reach limit, candidate check by a pixel cost,
 *   flags (kFlagUnreliable when the confidence is not above
 *   poc_confidence_floor() or below PocRuntime::min_confidence).
 */
#include <algorithm>
#include <cmath>
#include <complex>
#include <vector>

#include "match/poc.h"
#include "poc_fit.h"

namespace match {
namespace ref {

/* Declared in poc_fit.h, with the peak model and fit that every backend
 * shares. */
namespace poc_detail {

int lowpass_k(int n, double lowpass) {
  int k = static_cast<int>(std::floor(lowpass * n / 2.0 + 1e-9));
  k = std::min(k, (n - 1) / 2);
  return std::max(k, 1);
}

}  // namespace poc_detail

namespace {

using cd = std::complex<double>;

struct Plane {
  int w = 0, h = 0;
  std::vector<double> px;
  double at(int x, int y) const {
    x = std::clamp(x, 0, w - 1);
    y = std::clamp(y, 0, h - 1);
    return px[static_cast<size_t>(y) * w + x];
  }
};

std::vector<Plane> build_layers(const ImageView& img, int layers) {
  std::vector<Plane> out(layers + 1);
  out[0].w = img.width;
  out[0].h = img.height;
  out[0].px.resize(static_cast<size_t>(img.width) * img.height);
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      out[0].px[static_cast<size_t>(y) * img.width + x] = img.at(x, y);
  for (int l = 1; l <= layers; ++l) {
    const Plane& a = out[l - 1];
    Plane& b = out[l];
    b.w = a.w / 2;
    b.h = a.h / 2;
    b.px.resize(static_cast<size_t>(b.w) * b.h);
    for (int y = 0; y < b.h; ++y)
      for (int x = 0; x < b.w; ++x)
        b.px[static_cast<size_t>(y) * b.w + x] =
            (a.at(2 * x, 2 * y) + a.at(2 * x + 1, 2 * y) + a.at(2 * x, 2 * y + 1) +
             a.at(2 * x + 1, 2 * y + 1)) /
            4.0;
  }
  return out;
}

/* Recursive mixed-radix decimation-in-time DFT of x[0], x[stride], ...,
 * x[(n-1) stride], sign -1 forward, +1 inverse (unscaled). */
void dft(cd* x, int n, int stride, int sign) {
  if (n == 1) return;
  int p = 2;
  while (n % p) ++p;
  const int m = n / p;
  /* Split into p decimated subsequences, transform each. */
  std::vector<cd> sub(static_cast<size_t>(n));
  for (int r = 0; r < p; ++r)
    for (int j = 0; j < m; ++j) sub[r * m + j] = x[(j * p + r) * stride];
  for (int r = 0; r < p; ++r) dft(&sub[r * m], m, 1, sign);
  /* X[k] = sum_r W_n^(r k) S_r[k mod m]. */
  for (int k = 0; k < n; ++k) {
    cd acc = 0.0;
    for (int r = 0; r < p; ++r)
      acc += sub[r * m + k % m] *
             std::polar(1.0, sign * 2.0 * M_PI * ((long long)r * k % n) / n);
    x[k * stride] = acc;
  }
}

void dft2(std::vector<cd>& a, int n, int sign) {
  for (int y = 0; y < n; ++y) dft(&a[static_cast<size_t>(y) * n], n, 1, sign);
  for (int x = 0; x < n; ++x) dft(&a[x], n, n, sign);
}

/* Window of `p` (see the geometry rules), mean removed, then weighted. */
void take_window(const Plane& pl, int px, int py, int n, const std::vector<double>& w,
                 std::vector<cd>* out) {
  const int h = n / 2;
  double sum = 0.0;
  std::vector<double> v(static_cast<size_t>(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      v[j * n + i] = pl.at(px - h + i, py - h + j);
      sum += v[j * n + i];
    }
  const double mean = sum / (static_cast<double>(n) * n);
  out->resize(v.size());
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) (*out)[j * n + i] = (v[j * n + i] - mean) * w[i] * w[j];
}

struct PocResult {
  int n1 = 0, n2 = 0; /* integer peak (signed) */
  double s[9] = {0};  /* 3x3 samples around it */
};

/* One POC between f (centred on p in I) and g (centred on c in J). */
PocResult poc(const Plane& I, int px, int py, const Plane& J, int cx, int cy, int n,
              int k, const std::vector<double>& w) {
  std::vector<cd> f, g;
  take_window(I, px, py, n, w, &f);
  take_window(J, cx, cy, n, w, &g);
  dft2(f, n, -1);
  dft2(g, n, -1);
  std::vector<cd> R(f.size(), 0.0);
  for (int v = 0; v < n; ++v)
    for (int u = 0; u < n; ++u) {
      const int su = u <= n / 2 ? u : u - n; /* signed frequency */
      const int sv = v <= n / 2 ? v : v - n;
      if (std::abs(su) > k || std::abs(sv) > k) continue;
      const cd c = f[v * n + u] * std::conj(g[v * n + u]);
      const double m = std::abs(c);
      R[v * n + u] = m > 0.0 ? c / m : cd(0.0);
    }
  dft2(R, n, +1);
  const double scale = 1.0 / (static_cast<double>(n) * n);
  auto r = [&](int a, int b) {
    a = ((a % n) + n) % n;
    b = ((b % n) + n) % n;
    return R[b * n + a].real() * scale;
  };
  PocResult res;
  double best = r(0, 0);
  const int lo = -(n / 2);
  for (int b = lo; b < n + lo; ++b)
    for (int a = lo; a < n + lo; ++a)
      if (r(a, b) > best) {
        best = r(a, b);
        res.n1 = a;
        res.n2 = b;
      }
  for (int j = -1; j <= 1; ++j)
    for (int i = -1; i <= 1; ++i) res.s[(j + 1) * 3 + i + 1] = r(res.n1 + i, res.n2 + j);
  return res;
}

/* A coarse layer's block grid (see "Coarse layers" above) and the integer
 * motion of each of its blocks, (mx, my) at m[2 b]. cols = 0: no grid. */
struct Grid {
  int cols = 0, rows = 0, w = 0, h = 0, s = 0;
  std::vector<int> m;
  Grid() = default;
  Grid(int width, int height, int spacing)
      : cols((width + spacing - 1) / spacing),
        rows((height + spacing - 1) / spacing),
        w(width),
        h(height),
        s(spacing),
        m(static_cast<size_t>(2) * cols * rows, 0) {}
  void point(int b, int* P) const {
    const int x0 = (b % cols) * s, y0 = (b / cols) * s;
    P[0] = (x0 + std::min(x0 + s, w)) / 2;
    P[1] = (y0 + std::min(y0 + s, h)) / 2;
  }
};

/* The search centre of a point p of the layer below `g`: p + 2 m of its
 * parent (kShared) or of the 3 x 3 median around it (kSharedMedian); p when
 * there is no coarser grid (the coarsest layer). */
void predict(const Grid& g, PocCoarse mode, const int* p, int* c) {
  c[0] = p[0];
  c[1] = p[1];
  if (g.cols == 0) return;
  const int C = std::min(p[0] / 2 / g.s, g.cols - 1);
  const int R = std::min(p[1] / 2 / g.s, g.rows - 1);
  for (int a = 0; a < 2; ++a) {
    int m = g.m[2 * (R * g.cols + C) + a];
    if (mode == PocCoarse::kSharedMedian) {
      std::vector<int> v;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) {
          const int cc = std::clamp(C + i, 0, g.cols - 1);
          const int rr = std::clamp(R + j, 0, g.rows - 1);
          v.push_back(g.m[2 * (rr * g.cols + cc) + a]);
        }
      std::sort(v.begin(), v.end());
      m = v[4];
    }
    c[a] = p[a] + 2 * m;
  }
}

}  // namespace

Status poc_match(const ImageView& earlier, const ImageView& later,
                 const PocConfig& config, const PocRuntime& rt, PocVector* out,
                 const ImageView* before) {
  Status st = config.validate();
  if (!st) return st;
  if (before &&
      (!before->data || before->width != config.width || before->height != config.height))
    return Status(StatusCode::kInvalidArgument, "frame before: size");
  if (!out || !earlier.data || !later.data || earlier.width != config.width ||
      earlier.height != config.height || later.width != config.width ||
      later.height != config.height)
    return Status(StatusCode::kInvalidArgument,
                  "frames do not match the configured size");
  const bool fwd = config.direction == Direction::kForward;
  const std::vector<Plane> I = build_layers(fwd ? earlier : later, config.layers);
  const std::vector<Plane> J = build_layers(fwd ? later : earlier, config.layers);
  const int n = config.window_size;
  const int k = poc_detail::lowpass_k(n, config.lowpass);
  std::vector<double> w(n, 1.0);
  if (config.window == PocWindow::kHann)
    for (int i = 0; i < n; ++i) w[i] = 0.5 - 0.5 * std::cos(2.0 * M_PI * i / n);
  /* alpha of the ideal peak, to report confidence 1 for identical windows. */
  const double alpha_unit = (2.0 * k + 1) * (2.0 * k + 1) / (double(n) * n);

  const int cols = config.columns(), s = config.spacing;
  const bool shared = config.coarse != PocCoarse::kPerBlock;
  /* Shared coarse layers: the motions of the finest coarse layer searched
   * so far (layer `grid`'s blocks), from the coarsest down to layer 1. */
  Grid grid;
  for (int l = config.layers; shared && l >= 1; --l) {
    Grid g(I[l].w, I[l].h, s);
    for (int b = 0; b < g.cols * g.rows; ++b) {
      int P[2], c[2];
      g.point(b, P);
      predict(grid, config.coarse, P, c);
      const PocResult r = poc(I[l], P[0], P[1], J[l], c[0], c[1], n, k, w);
      g.m[2 * b] = c[0] - r.n1 - P[0];
      g.m[2 * b + 1] = c[1] - r.n2 - P[1];
    }
    grid = std::move(g);
  }
  for (int b = 0; b < config.num_blocks(); ++b) {
    const int x0 = (b % cols) * s, y0 = (b / cols) * s;
    const int x1 = std::min(x0 + s, config.width);
    const int y1 = std::min(y0 + s, config.height);
    int p[4][2];
    p[0][0] = (x0 + x1) / 2;
    p[0][1] = (y0 + y1) / 2;
    for (int l = 1; l <= config.layers; ++l) {
      p[l][0] = p[l - 1][0] / 2; /* p >= 0: floor */
      p[l][1] = p[l - 1][1] / 2;
    }
    int c[2] = {p[config.layers][0], p[config.layers][1]};
    if (shared) {
      predict(grid, config.coarse, p[0], c);
    } else {
      for (int l = config.layers; l >= 1; --l) {
        const PocResult r = poc(I[l], p[l][0], p[l][1], J[l], c[0], c[1], n, k, w);
        c[0] = 2 * (c[0] - r.n1);
        c[1] = 2 * (c[1] - r.n2);
      }
    }
    /* Layer 0. */
    PocResult r = poc(I[0], p[0][0], p[0][1], J[0], c[0], c[1], n, k, w);
    if (r.n1 != 0 || r.n2 != 0) {
      /* Re-centre once (see "Re-centring" above). */
      c[0] -= r.n1;
      c[1] -= r.n2;
      r = poc(I[0], p[0][0], p[0][1], J[0], c[0], c[1], n, k, w);
    }
    double q[2], alpha = 0, t1, t2;
    ::match::poc_detail::fit_peak(r.s, n, k, &alpha, &t1, &t2);
    q[0] = c[0] + t1 - r.n1;
    q[1] = c[1] + t2 - r.n2;
    PocVector& v = out[b];
    v.dx = static_cast<float>(q[0] - p[0][0]);
    v.dy = static_cast<float>(q[1] - p[0][1]);
    /* A fit on noise can give a slightly negative height: no similarity. */
    v.confidence = static_cast<float>(std::max(0.0, alpha / alpha_unit));
    v.flags = v.confidence < rt.min_confidence ? kFlagUnreliable : kFlagNone;
  }
  /* Reach, candidate check and flags: the last stage of every backend. */
  return poc_finish(earlier, later, config, rt, out, before);
}

}  // namespace ref
}  // namespace match
