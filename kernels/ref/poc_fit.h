/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The POC sub-pixel peak model and its least-squares fit, defined once for
 * every backend (ref/, cpu/, and cuda/ where nvcc compiles the same code for
 * the device). ref/poc_ref.cpp documents the model and why the fit is a 3x3
 * Gauss-Newton least squares. Double precision throughout; plain C math so
 * that the same text compiles as host and device code.
 */
#pragma once

#include <math.h>

#if defined(__CUDACC__)
#define MATCH_HD __host__ __device__
#else
#define MATCH_HD
#endif

namespace match {
namespace poc_detail {

constexpr double kPi = 3.14159265358979323846;

MATCH_HD inline double clamp1(double v) { return v < -1.0 ? -1.0 : (v > 1.0 ? 1.0 : v); }

/* The peak model P(x) = sin(pi (2K+1) x / N) / ((2K+1) sin(pi x / N)),
 * P(0) = 1, and its derivative P' at x, from one sine and cosine of each of
 * its two angles u = a pi x, v = pi x / N (a = (2K+1) / N):
 * P = sin u / (a N sin v), P' = pi (a cos u sin v - sin u cos v / N) /
 * (a N sin^2 v); near 0 the Taylor form (P' = -2 c x). The Gauss-Newton
 * Jacobian takes P' (it once took central differences of P, three model
 * values per sample instead of one sine-cosine pair of each angle). */
MATCH_HD inline void peak_model_d(double x, int n, int k, double* p, double* dp) {
  const double a = static_cast<double>(2 * k + 1) / n;
  if (fabs(x) < 1e-6) {
    const double c = kPi * kPi * (a * a - 1.0 / (n * 1.0 * n)) / 6.0;
    *p = 1.0 - c * x * x;
    *dp = -2.0 * c * x;
    return;
  }
  double su, cu, sv, cv;
  sincos(a * kPi * x, &su, &cu);
  sincos(kPi * x / n, &sv, &cv);
  const double den = a * n * sv;
  *p = su / den;
  *dp = kPi * (a * cu * sv - su * cv / n) / (den * sv);
}

/* The 6 model samples one Gauss-Newton iteration needs at offsets t:
 * sample q = axis * 3 + i (axis 0: x, 1: y) is P and P' at i - 1 + t[axis]. */
constexpr int kFitSamples = 6;
MATCH_HD inline void fit_sample(int q, const double t[2], int n, int k, double* p,
                                double* dp) {
  peak_model_d(q % 3 - 1 + t[q / 3], n, k, p, dp);
}

/* The samples one after the other (CPU, reference, host emulation). */
struct SerialFitSamples {
  MATCH_HD void operator()(const double t[2], int n, int k, double p[kFitSamples],
                           double dp[kFitSamples]) const {
    for (int q = 0; q < kFitSamples; ++q) fit_sample(q, t, n, k, &p[q], &dp[q]);
  }
};

/* The fit of the 3x3 samples s[(j + 1) * 3 + (i + 1)] = r(n*_1 + i,
 * n*_2 + j): alpha (in units of r, not normalised) and the offsets t1 (x),
 * t2 (y), with the samples of each iteration from `samples` (the GPU
 * spreads them over lanes): every backend runs this same code, so the fits
 * agree to the bit given the same samples. */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <typename Samples>
MATCH_HD inline void fit_peak_with(const double s[9], int n, int k, double* alpha,
                                   double* t1, double* t2, const Samples& samples) {
  double t[2] = {0.0, 0.0};
  double a = s[4];
  if (!(s[4] > 0.0)) {
    *alpha = s[4] > 0.0 ? s[4] : 0.0;
    *t1 = 0.0;
    *t2 = 0.0;
    return;
  }
  /* Start: the sinc closed form per axis from the larger neighbour. */
  const double nb[2][2] = {{s[3], s[5]}, {s[1], s[7]}}; /* {-1, +1} */
  for (int ax = 0; ax < 2; ++ax) {
    const double lo = nb[ax][0], hi = nb[ax][1];
    if (hi >= lo && hi > 0.0) {
      const double rho = fmin(hi / s[4], 1.0);
      t[ax] = -rho / (1.0 + rho);
    } else if (lo > 0.0) {
      const double rho = fmin(lo / s[4], 1.0);
      t[ax] = rho / (1.0 + rho);
    }
  }
  for (int it = 0; it < 20; ++it) {
    double P[kFitSamples], dP[kFitSamples];
    samples(t, n, k, P, dP);
    const double *A = P, *B = P + 3, *dA = dP, *dB = dP + 3;
    /* Normal equations of the Gauss-Newton step for (alpha, t1, t2). */
    double M[3][3] = {{0, 0, 0}, {0, 0, 0}, {0, 0, 0}}, v[3] = {0, 0, 0};
    for (int j = 0; j < 3; ++j)
      for (int i = 0; i < 3; ++i) {
        const double m = A[i] * B[j];
        const double e = s[j * 3 + i] - a * m;
        const double J[3] = {m, a * dA[i] * B[j], a * A[i] * dB[j]};
        for (int u = 0; u < 3; ++u) {
          v[u] += J[u] * e;
          for (int w = 0; w < 3; ++w) M[u][w] += J[u] * J[w];
        }
      }
    /* Solve M x = v (Cramer; M is symmetric positive definite unless the
     * model is degenerate, then stop). */
    const double det = M[0][0] * (M[1][1] * M[2][2] - M[1][2] * M[2][1]) -
                       M[0][1] * (M[1][0] * M[2][2] - M[1][2] * M[2][0]) +
                       M[0][2] * (M[1][0] * M[2][1] - M[1][1] * M[2][0]);
    if (!(fabs(det) > 1e-300)) break;
    double x[3];
    for (int c = 0; c < 3; ++c) {
      double Mc[3][3];
      for (int r = 0; r < 3; ++r)
        for (int q = 0; q < 3; ++q) Mc[r][q] = q == c ? v[r] : M[r][q];
      x[c] = (Mc[0][0] * (Mc[1][1] * Mc[2][2] - Mc[1][2] * Mc[2][1]) -
              Mc[0][1] * (Mc[1][0] * Mc[2][2] - Mc[1][2] * Mc[2][0]) +
              Mc[0][2] * (Mc[1][0] * Mc[2][1] - Mc[1][1] * Mc[2][0])) /
             det;
    }
    a += x[0];
    t[0] = clamp1(t[0] + x[1]);
    t[1] = clamp1(t[1] + x[2]);
    if (fabs(x[1]) < 1e-9 && fabs(x[2]) < 1e-9) break;
  }
  *alpha = a;
  *t1 = t[0];
  *t2 = t[1];
}

MATCH_HD inline void fit_peak(const double s[9], int n, int k, double* alpha, double* t1,
                              double* t2) {
  fit_peak_with(s, n, k, alpha, t1, t2, SerialFitSamples());
}

}  // namespace poc_detail
}  // namespace match

namespace match {
namespace ref {
namespace poc_detail {
/* The low-pass box half-width K of an n-point window for PocConfig::lowpass
 * (ref/poc_ref.cpp, "One POC"): host code, shared by every backend. */
int lowpass_k(int n, double lowpass);
}  // namespace poc_detail
}  // namespace ref
}  // namespace match
