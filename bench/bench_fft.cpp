/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_fft: time per 2-D complex FFT of n x n floats, the transform the
 * POC backend runs twice per POC, for our Stockham FFT (kernels/cpu/fft.h)
 * and, when gst-plugins-base's libgstfft is found, for the same transform
 * built on GStreamer's KissFFT-based GstFFTF32. GstFFTF32 only transforms
 * real input, so a complex 1-D transform costs two real ones
 * (Z(k) = A(k) + i B(k) from the half spectra of the real and imaginary
 * parts), applied to the n rows and then the n columns. The two results are
 * compared so that the table times the same transform. One thread; both
 * timings include copying the input in (2 n^2 floats), as a POC does.
 *
 *   bench_fft [min_seconds_per_size]   (default 0.3)
 */
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "cpu/fft.h"

#if defined(HAVE_GSTFFT)
#include <gst/fft/gstfftf32.h>
#endif

namespace {

using Clock = std::chrono::steady_clock;

template <typename F>
double time_us(F&& f, double min_s) {
  f(); /* warm up */
  long iters = 0;
  const auto t0 = Clock::now();
  double el = 0;
  do {
    for (int i = 0; i < 8; ++i) f();
    iters += 8;
    el = std::chrono::duration<double>(Clock::now() - t0).count();
  } while (el < min_s);
  return el * 1e6 / iters;
}

#if defined(HAVE_GSTFFT)
/* 2-D complex forward FFT through GstFFTF32 (normal orientation). */
class GstFft2d {
 public:
  explicit GstFft2d(int n)
      : n_(n),
        fft_(gst_fft_f32_new(n, FALSE)),
        a_(n),
        b_(n),
        fa_(n / 2 + 1),
        fb_(n / 2 + 1) {}
  ~GstFft2d() { gst_fft_f32_free(fft_); }

  void forward(float* re, float* im) {
    for (int y = 0; y < n_; ++y) line(re + y * n_, im + y * n_, 1);
    for (int x = 0; x < n_; ++x) line(re + x, im + x, n_);
  }

 private:
  void line(float* re, float* im, int step) {
    const int n = n_;
    for (int i = 0; i < n; ++i) {
      a_[i] = re[i * step];
      b_[i] = im[i * step];
    }
    gst_fft_f32_fft(fft_, a_.data(), fa_.data());
    gst_fft_f32_fft(fft_, b_.data(), fb_.data());
    for (int k = 0; k < n; ++k) {
      float ar, ai, br, bi;
      if (k <= n / 2) {
        ar = fa_[k].r;
        ai = fa_[k].i;
        br = fb_[k].r;
        bi = fb_[k].i;
      } else {
        ar = fa_[n - k].r;
        ai = -fa_[n - k].i;
        br = fb_[n - k].r;
        bi = -fb_[n - k].i;
      }
      re[k * step] = ar - bi; /* A + i B */
      im[k * step] = ai + br;
    }
  }

  int n_;
  GstFFTF32* fft_;
  std::vector<float> a_, b_;
  std::vector<GstFFTF32Complex> fa_, fb_;
};
#endif

}  // namespace

int main(int argc, char** argv) {
  const double min_s = argc > 1 ? std::atof(argv[1]) : 0.3;
  std::printf("2-D complex forward FFT, n x n floats, one thread, us per transform\n");
  std::printf("%6s %12s %12s %10s %12s\n", "n", "ours", "gstfft", "ratio", "max|diff|");
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(-1.f, 1.f);
  for (int n : {32, 48, 64, 96, 128, 256}) {
    const size_t nn = static_cast<size_t>(n) * n;
    std::vector<float> re(nn), im(nn), wr(nn), wi(nn), r0(nn), i0(nn);
    for (size_t i = 0; i < nn; ++i) {
      r0[i] = u(rng);
      i0[i] = u(rng);
    }
    match::cpu::Fft2d fft(n);
    const double ours = time_us(
        [&] {
          std::copy(r0.begin(), r0.end(), re.begin());
          std::copy(i0.begin(), i0.end(), im.begin());
          fft.forward_transposed(re.data(), im.data(), wr.data(), wi.data());
        },
        min_s);
#if defined(HAVE_GSTFFT)
    std::vector<float> gr(nn), gi(nn);
    GstFft2d g(n);
    const double theirs = time_us(
        [&] {
          std::copy(r0.begin(), r0.end(), gr.begin());
          std::copy(i0.begin(), i0.end(), gi.begin());
          g.forward(gr.data(), gi.data());
        },
        min_s);
    /* ours is transposed: compare out[kx][ky] with gst's [ky][kx]. */
    double diff = 0, mag = 0;
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b) {
        diff = std::max({diff, (double)std::fabs(re[a * n + b] - gr[b * n + a]),
                         (double)std::fabs(im[a * n + b] - gi[b * n + a])});
        mag = std::max(mag, (double)std::fabs(gr[b * n + a]));
      }
    std::printf("%6d %12.2f %12.2f %9.2fx %12.2g\n", n, ours, theirs, theirs / ours,
                diff / mag);
#else
    std::printf("%6d %12.2f %12s %10s %12s\n", n, ours, "-", "-", "-");
#endif
  }
  return 0;
}
