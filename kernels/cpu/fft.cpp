/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Float Stockham FFT, see fft.h for the algorithm and the data layout.
 */
#include "fft.h"

#include "cpu_isa.h"
#include "internal.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#if !defined(MATCH_FFT_VARIANT)
#define MATCH_FFT_VARIANT base
#define MATCH_FFT_BASE 1
#endif

namespace match {
namespace cpu {
namespace fft_impl {
namespace MATCH_FFT_VARIANT {

namespace {

/* The butterflies below run over `len` contiguous floats per operand
 * (s rows of n columns). Pointers never alias (Stockham is out of place). */
#if defined(__GNUC__)
#define MATCH_RESTRICT __restrict__
#else
#define MATCH_RESTRICT
#endif

inline void twiddle(float* MATCH_RESTRICT yr, float* MATCH_RESTRICT yi, float wr,
                    float wi, int len) {
  for (int i = 0; i < len; ++i) {
    const float a = yr[i], b = yi[i];
    yr[i] = a * wr - b * wi;
    yi[i] = a * wi + b * wr;
  }
}

void radix2(const float* MATCH_RESTRICT x0r, const float* MATCH_RESTRICT x0i,
            const float* MATCH_RESTRICT x1r, const float* MATCH_RESTRICT x1i,
            float* MATCH_RESTRICT y0r, float* MATCH_RESTRICT y0i,
            float* MATCH_RESTRICT y1r, float* MATCH_RESTRICT y1i, const float* w_re,
            const float* w_im, int len) {
  if (w_re[0] == 1.f && w_im[0] == 0.f) {
    for (int i = 0; i < len; ++i) {
      y0r[i] = x0r[i] + x1r[i];
      y0i[i] = x0i[i] + x1i[i];
      y1r[i] = x0r[i] - x1r[i];
      y1i[i] = x0i[i] - x1i[i];
    }
    return;
  }
  const float wr = w_re[0], wi = w_im[0];
  for (int i = 0; i < len; ++i) {
    y0r[i] = x0r[i] + x1r[i];
    y0i[i] = x0i[i] + x1i[i];
    const float dr = x0r[i] - x1r[i], di = x0i[i] - x1i[i];
    y1r[i] = dr * wr - di * wi;
    y1i[i] = dr * wi + di * wr;
  }
}

void radix4(const float* const* MATCH_RESTRICT xr, const float* const* MATCH_RESTRICT xi,
            float* const* yr, float* const* yi, const float* w_re, const float* w_im,
            int len) {
  const float* MATCH_RESTRICT a0r = xr[0];
  const float* MATCH_RESTRICT a0i = xi[0];
  const float* MATCH_RESTRICT a1r = xr[1];
  const float* MATCH_RESTRICT a1i = xi[1];
  const float* MATCH_RESTRICT a2r = xr[2];
  const float* MATCH_RESTRICT a2i = xi[2];
  const float* MATCH_RESTRICT a3r = xr[3];
  const float* MATCH_RESTRICT a3i = xi[3];
  float* MATCH_RESTRICT y0r = yr[0];
  float* MATCH_RESTRICT y0i = yi[0];
  float* MATCH_RESTRICT y1r = yr[1];
  float* MATCH_RESTRICT y1i = yi[1];
  float* MATCH_RESTRICT y2r = yr[2];
  float* MATCH_RESTRICT y2i = yi[2];
  float* MATCH_RESTRICT y3r = yr[3];
  float* MATCH_RESTRICT y3i = yi[3];
  const bool unit = w_re[0] == 1.f && w_im[0] == 0.f && w_re[1] == 1.f &&
                    w_im[1] == 0.f && w_re[2] == 1.f && w_im[2] == 0.f;
  if (unit) {
    for (int i = 0; i < len; ++i) {
      const float b0r = a0r[i] + a2r[i], b0i = a0i[i] + a2i[i];
      const float b1r = a0r[i] - a2r[i], b1i = a0i[i] - a2i[i];
      const float b2r = a1r[i] + a3r[i], b2i = a1i[i] + a3i[i];
      const float b3r = a1r[i] - a3r[i], b3i = a1i[i] - a3i[i];
      y0r[i] = b0r + b2r;
      y0i[i] = b0i + b2i;
      y1r[i] = b1r + b3i;
      y1i[i] = b1i - b3r;
      y2r[i] = b0r - b2r;
      y2i[i] = b0i - b2i;
      y3r[i] = b1r - b3i;
      y3i[i] = b1i + b3r;
    }
    return;
  }
  const float w1r = w_re[0], w1i = w_im[0];
  const float w2r = w_re[1], w2i = w_im[1];
  const float w3r = w_re[2], w3i = w_im[2];
  for (int i = 0; i < len; ++i) {
    const float b0r = a0r[i] + a2r[i], b0i = a0i[i] + a2i[i];
    const float b1r = a0r[i] - a2r[i], b1i = a0i[i] - a2i[i];
    const float b2r = a1r[i] + a3r[i], b2i = a1i[i] + a3i[i];
    const float b3r = a1r[i] - a3r[i], b3i = a1i[i] - a3i[i];
    y0r[i] = b0r + b2r;
    y0i[i] = b0i + b2i;
    const float c1r = b1r + b3i, c1i = b1i - b3r;
    const float c2r = b0r - b2r, c2i = b0i - b2i;
    const float c3r = b1r - b3i, c3i = b1i + b3r;
    y1r[i] = c1r * w1r - c1i * w1i;
    y1i[i] = c1r * w1i + c1i * w1r;
    y2r[i] = c2r * w2r - c2i * w2i;
    y2i[i] = c2r * w2i + c2i * w2r;
    y3r[i] = c3r * w3r - c3i * w3i;
    y3i[i] = c3r * w3i + c3i * w3r;
  }
}

void radix3(const float* const* xr, const float* const* xi, float* const* yr,
            float* const* yi, const float* w_re, const float* w_im, int len) {
  const float* MATCH_RESTRICT a0r = xr[0];
  const float* MATCH_RESTRICT a0i = xi[0];
  const float* MATCH_RESTRICT a1r = xr[1];
  const float* MATCH_RESTRICT a1i = xi[1];
  const float* MATCH_RESTRICT a2r = xr[2];
  const float* MATCH_RESTRICT a2i = xi[2];
  float* MATCH_RESTRICT y0r = yr[0];
  float* MATCH_RESTRICT y0i = yi[0];
  float* MATCH_RESTRICT y1r = yr[1];
  float* MATCH_RESTRICT y1i = yi[1];
  float* MATCH_RESTRICT y2r = yr[2];
  float* MATCH_RESTRICT y2i = yi[2];
  const float h = 0.86602540378443864676f; /* sqrt(3) / 2 */
  for (int i = 0; i < len; ++i) {
    const float sr = a1r[i] + a2r[i], si = a1i[i] + a2i[i];
    const float dr = a1r[i] - a2r[i], di = a1i[i] - a2i[i];
    const float mr = a0r[i] - 0.5f * sr, mi = a0i[i] - 0.5f * si;
    y0r[i] = a0r[i] + sr;
    y0i[i] = a0i[i] + si;
    /* y1 = m - i h d, y2 = m + i h d */
    y1r[i] = mr + h * di;
    y1i[i] = mi - h * dr;
    y2r[i] = mr - h * di;
    y2i[i] = mi + h * dr;
  }
  twiddle(y1r, y1i, w_re[0], w_im[0], len);
  twiddle(y2r, y2i, w_re[1], w_im[1], len);
}

/* Direct radix-5 (a fallback for the rarer sizes, not tuned). */
void radix5(const float* const* xr, const float* const* xi, float* const* yr,
            float* const* yi, const float* w_re, const float* w_im, int len) {
  float cr[5], ci[5];
  for (int t = 0; t < 5; ++t) {
    cr[t] = static_cast<float>(std::cos(-2.0 * M_PI * t / 5));
    ci[t] = static_cast<float>(std::sin(-2.0 * M_PI * t / 5));
  }
  for (int t = 0; t < 5; ++t) {
    float* MATCH_RESTRICT outr = yr[t];
    float* MATCH_RESTRICT outi = yi[t];
    for (int i = 0; i < len; ++i) {
      float ar = xr[0][i], ai = xi[0][i];
      for (int r = 1; r < 5; ++r) {
        const int e = (r * t) % 5;
        ar += xr[r][i] * cr[e] - xi[r][i] * ci[e];
        ai += xr[r][i] * ci[e] + xi[r][i] * cr[e];
      }
      outr[i] = ar;
      outi[i] = ai;
    }
    if (t > 0) twiddle(outr, outi, w_re[t - 1], w_im[t - 1], len);
  }
}

}  // namespace

bool run_stages(const FftStage* stages, int count, const float* tw_re, const float* tw_im,
                int n, float* xr, float* xi, float* yr, float* yi) {
  bool swapped = false;
  for (int si = 0; si < count; ++si) {
    const FftStage& st = stages[si];
    const int p = st.p, m = st.m, s = st.s;
    const int len = s * n; /* s rows of n columns */
    for (int j = 0; j < m; ++j) {
      const float* in_r[5] = {};
      const float* in_i[5] = {};
      float* out_r[5] = {};
      float* out_i[5] = {};
      for (int r = 0; r < p; ++r) {
        const size_t off = static_cast<size_t>(j + m * r) * s * n;
        in_r[r] = xr + off;
        in_i[r] = xi + off;
        const size_t o = static_cast<size_t>(p * j + r) * s * n;
        out_r[r] = yr + o;
        out_i[r] = yi + o;
      }
      const float* w_re = tw_re + st.tw + j * (p - 1);
      const float* w_im = tw_im + st.tw + j * (p - 1);
      switch (p) {
        case 4:
          radix4(in_r, in_i, out_r, out_i, w_re, w_im, len);
          break;
        case 2:
          radix2(in_r[0], in_i[0], in_r[1], in_i[1], out_r[0], out_i[0], out_r[1],
                 out_i[1], w_re, w_im, len);
          break;
        case 3:
          radix3(in_r, in_i, out_r, out_i, w_re, w_im, len);
          break;
        default:
          radix5(in_r, in_i, out_r, out_i, w_re, w_im, len);
          break;
      }
    }
    std::swap(xr, yr);
    std::swap(xi, yi);
    swapped = !swapped;
  }
  return swapped;
}

}  // namespace MATCH_FFT_VARIANT
}  // namespace fft_impl

#if defined(MATCH_FFT_BASE)

#if defined(MATCH_HAVE_AVX2_TU)
namespace fft_impl {
namespace avx2 {
bool run_stages(const FftStage* stages, int count, const float* tw_re, const float* tw_im,
                int n, float* xr, float* xi, float* yr, float* yi);
}  // namespace avx2
}  // namespace fft_impl
#endif

bool Fft2d::supported(int n) { return n <= 4096 && is_poc_fft_size(n); }

Fft2d::Fft2d(int n) : n_(n) {
  if (!supported(n))
    throw std::invalid_argument("FFT size " + std::to_string(n) + " is not 2^a 3^b 5^c");
  run_ = fft_impl::base::run_stages;
#if defined(MATCH_HAVE_AVX2_TU)
  if (isa_has_fma(detect_isa())) {
    run_ = fft_impl::avx2::run_stages;
    isa_ = "avx2";
  }
#endif
  int rest = n, l = n, s = 1;
  while (rest > 1) {
    int p = rest % 4 == 0 ? 4 : rest % 2 == 0 ? 2 : rest % 3 == 0 ? 3 : 5;
    const int m = l / p;
    FftStage st{p, m, s, static_cast<int>(tw_re_.size())};
    for (int j = 0; j < m; ++j)
      for (int t = 1; t < p; ++t) {
        const double a = -2.0 * M_PI * j * t / l;
        tw_re_.push_back(static_cast<float>(std::cos(a)));
        tw_im_.push_back(static_cast<float>(std::sin(a)));
      }
    stages_.push_back(st);
    rest /= p;
    l = m;
    s *= p;
  }
}

bool Fft2d::pass(float* xr, float* xi, float* yr, float* yi) const {
  return run_(stages_.data(), static_cast<int>(stages_.size()), tw_re_.data(),
              tw_im_.data(), n_, xr, xi, yr, yi);
}

void Fft2d::columns(float* re, float* im, float* work_re, float* work_im) const {
  if (pass(re, im, work_re, work_im)) {
    const size_t bytes = sizeof(float) * n_ * n_;
    std::memcpy(re, work_re, bytes);
    std::memcpy(im, work_im, bytes);
  }
}

void Fft2d::forward_transposed(float* re, float* im, float* work_re,
                               float* work_im) const {
  if (n_ >= kStripMinSize) {
    forward_transposed_strips(re, im, work_re, work_im);
    return;
  }
  float* ar = re;
  float* ai = im;
  float* br = work_re;
  float* bi = work_im;
  if (pass(ar, ai, br, bi)) {
    std::swap(ar, br);
    std::swap(ai, bi);
  }
  /* Now (ar, ai) holds the column-transformed array; transpose into b. */
  transpose(ar, br, n_);
  transpose(ai, bi, n_);
  std::swap(ar, br);
  std::swap(ai, bi);
  if (pass(ar, ai, br, bi)) {
    std::swap(ar, br);
    std::swap(ai, bi);
  }
  if (ar != re) {
    const size_t bytes = sizeof(float) * n_ * n_;
    std::memcpy(re, ar, bytes);
    std::memcpy(im, ai, bytes);
  }
}

/* The same two column passes and transpose, kStripWidth columns at a time
 * (see kStripMinSize in fft.h for why). A strip is gathered into a
 * contiguous n x kStripWidth buffer, transformed there by the same stage
 * code (a strip is an array of rows of kStripWidth columns) and scattered
 * back: transposed into the work arrays after the first pass, in place
 * after the second. The arithmetic per column is the same as in pass(). */
void Fft2d::forward_transposed_strips(float* re, float* im, float* work_re,
                                      float* work_im) const {
  constexpr int kW = kStripWidth;
  const int n = n_;
  const size_t strip = static_cast<size_t>(n) * kW;
  /* Per thread (POC threads share one Fft2d): 4 strips, 64 KB at n = 256. */
  thread_local std::vector<float> buf;
  if (buf.size() < 4 * strip) buf.assign(4 * strip, 0.f);
  float* sr = buf.data();
  float* si = sr + strip;
  float* tr = si + strip;
  float* ti = tr + strip;
  for (int round = 0; round < 2; ++round) {
    const float* in_r = round == 0 ? re : work_re;
    const float* in_i = round == 0 ? im : work_im;
    float* out_r = round == 0 ? work_re : re;
    float* out_i = round == 0 ? work_im : im;
    for (int c0 = 0; c0 < n; c0 += kW) {
      const int w = std::min(kW, n - c0);
      for (int y = 0; y < n; ++y) {
        std::memcpy(sr + static_cast<size_t>(y) * w,
                    in_r + static_cast<size_t>(y) * n + c0, sizeof(float) * w);
        std::memcpy(si + static_cast<size_t>(y) * w,
                    in_i + static_cast<size_t>(y) * n + c0, sizeof(float) * w);
      }
      const bool in_t = run_(stages_.data(), static_cast<int>(stages_.size()),
                             tw_re_.data(), tw_im_.data(), w, sr, si, tr, ti);
      const float* rr = in_t ? tr : sr;
      const float* ri = in_t ? ti : si;
      if (round == 0) {
        /* out[c0 + c][y] = strip[y][c]: the transpose, one column at a time. */
        for (int c = 0; c < w; ++c) {
          float* dr = out_r + static_cast<size_t>(c0 + c) * n;
          float* di = out_i + static_cast<size_t>(c0 + c) * n;
          for (int y = 0; y < n; ++y) {
            dr[y] = rr[static_cast<size_t>(y) * w + c];
            di[y] = ri[static_cast<size_t>(y) * w + c];
          }
        }
      } else {
        for (int y = 0; y < n; ++y) {
          std::memcpy(out_r + static_cast<size_t>(y) * n + c0,
                      rr + static_cast<size_t>(y) * w, sizeof(float) * w);
          std::memcpy(out_i + static_cast<size_t>(y) * n + c0,
                      ri + static_cast<size_t>(y) * w, sizeof(float) * w);
        }
      }
    }
  }
}

void transpose(const float* src, float* dst, int n) {
  constexpr int kTile = 16;
  for (int y0 = 0; y0 < n; y0 += kTile)
    for (int x0 = 0; x0 < n; x0 += kTile) {
      const int y1 = y0 + kTile < n ? y0 + kTile : n;
      const int x1 = x0 + kTile < n ? x0 + kTile : n;
      for (int y = y0; y < y1; ++y)
        for (int x = x0; x < x1; ++x)
          dst[static_cast<size_t>(x) * n + y] = src[static_cast<size_t>(y) * n + x];
    }
}

#endif  // MATCH_FFT_BASE

}  // namespace cpu
}  // namespace match
