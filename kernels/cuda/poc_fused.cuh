/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-thread code of the fused POC kernel (poc_fused.cu, whose top
 * comment has the design): every phase a __host__ __device__ function of
 * the thread index, so that the host emulation (kernels/testing) runs them
 * for every thread of every CTA between the kernel's barriers.
 */
#pragma once

#include <math.h>

#include <cstdint>

#include "poc_fft.cuh"
#include "poc_kernels.cuh"
#include "poc_thread.cuh"
#include "unroll.cuh"

namespace match {
namespace cuda {
namespace fused_detail {

using namespace poc_thread;
using namespace poc_fft;

/* The 2-D transform's shape for window n (see the top comment). */
template <int N>
struct Shape {
  static constexpr int R1 = 8, R2 = N / 8; /* N = R1 R2; R2 = 4, 8 */
  static constexpr int P = N + 1;          /* row pitch, complex elements */
  static constexpr int T = 256;            /* threads per CTA */
  /* CTAs per SM: six at N = 64, as its shared memory allows (40 on
   * sm_90, no spill), five at 32 (48 registers); sm_75 holds four */
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  static constexpr int kMinBlocks = 4;
#else
  static constexpr int kMinBlocks = N == 64 ? 6 : 5;
#endif
  static constexpr int W = T / 32;
};

/* The spectrum position of frequency k along one axis after the forward
 * passes: p = (k mod R1) R2 + k div R1. */
template <int N>
MATCH_HD __forceinline__ int pos_of(int k) {
  return (k % Shape<N>::R1) * Shape<N>::R2 + k / Shape<N>::R1;
}

/* The tile offsets of row frequency f and of -f, packed (the cross
 * phase's table: pos_of twice per row is most of that phase's work). */
template <int N>
MATCH_HD __forceinline__ int pair_rows(int f) {
  return pos_of<N>(f) * Shape<N>::P | pos_of<N>((N - f) % N) * Shape<N>::P << 16;
}

/* One radix pass over all N lines of the tile: line `line` has its t-th
 * element at s[line ls + t es] (rows: ls = P, es = 1; columns: ls = 1,
 * es = P). Items are (line, j) with the line fastest, so that a warp's
 * lanes take 32 different lines (see the top comment on banks).
 *   STAGE 1: radix R1 over elements j + R2 q (span R2), twiddle W_N^(j q)
 *            after the butterflies (forward) or its conjugate before them
 *            (inverse);
 *   STAGE 2: radix R2 over the contiguous elements j R2 + q, no twiddle.
 * LINES < N: only lines 0..LINES-1. PACK (the inverse's last column pass,
 * STAGE 1): element t < N/2 of a line gets a_t + i a_(t + N/2), and the
 * elements from N/2 on are left alone (see fft2d_passes). WIN (the first
 * row pass): the raw samples are windowed as they are loaded, which saves
 * a pass over the tile. */
struct Windowing {
  const float* w1d;
  float mean_f, mean_g;
};
template <int N, int STAGE, bool INV, int LINES = N, bool PACK = false, bool WIN = false>
MATCH_HD __forceinline__ void fft_pass_thread(float2* s, int ls, int es, const float2* tw,
                                              int tid, Windowing win = {}) {
  using S = Shape<N>;
  constexpr int R = STAGE == 1 ? S::R1 : S::R2;
  constexpr int groups = STAGE == 1 ? S::R2 : S::R1;
  static_assert(!PACK || (STAGE == 1 && INV), "PACK: the inverse's stage 1");
  static_assert(!WIN || (STAGE == 1 && !INV), "WIN: the first forward pass");
  for (int item = tid; item < LINES * groups; item += S::T) {
    const int line = item % LINES, j = item / LINES;
    float2* base = s + line * ls;
    const int first = STAGE == 1 ? j : j * S::R2;
    const int step = STAGE == 1 ? S::R2 : 1;
    float2 a[R];
    MATCH_UNROLL
    for (int q = 0; q < R; ++q) a[q] = base[(first + q * step) * es];
    if (WIN) {
      /* z = (f - mean_f) w_x w_y + i (g - mean_g) w_x w_y (rows: the line
       * is y, the element x) */
      const float wy = win.w1d[line];
      MATCH_UNROLL
      for (int q = 0; q < R; ++q) {
        const float wx = win.w1d[first + q * step];
        a[q] = make_float2(window_value(a[q].x, win.mean_f, wx, wy),
                           window_value(a[q].y, win.mean_g, wx, wy));
      }
    }
    if (STAGE == 1 && INV) {
      MATCH_UNROLL
      for (int q = 1; q < R; ++q) a[q] = cmul(a[q], cconj(tw[j * q]));
    }
    dft<R, INV>(a);
    if (STAGE == 1 && !INV) {
      MATCH_UNROLL
      for (int q = 1; q < R; ++q) a[q] = cmul(a[q], tw[j * q]);
    }
    if (PACK) {
      /* Element j + R2 q + N/2 is a[q + R/2] (R2 R/2 = N/2). */
      MATCH_UNROLL
      for (int q = 0; q < R / 2; ++q)
        base[(first + q * step) * es] =
            make_float2(a[q].x - a[q + R / 2].y, a[q].y + a[q + R / 2].x);
    } else {
      MATCH_UNROLL
      for (int q = 0; q < R; ++q) base[(first + q * step) * es] = a[q];
    }
  }
}

/* The samples of thread tid in the element-wise phases: column
 * x = tid mod N (a warp's lanes run along a row: coalesced loads, no bank
 * conflicts) and rows y0 + i RS, y0 = tid div N, i < IT. Every per-column
 * quantity is then a per-thread constant. */
template <int N>
struct Lanes {
  static constexpr int RS = Shape<N>::T / N;     /* rows per sweep: 4, 8 */
  static constexpr int IT = N * N / Shape<N>::T; /* samples each: 16, 4 */
  static_assert(Shape<N>::T % N == 0 && IT % 2 == 0, "whole rows per sweep");
};

/* Both windows' exact integer sums fit an int: at most N^2 samples below
 * 256 x 4^3 (layer 3) each. */
static_assert(64 * 64 * 256 * 64 <= 0x7FFFFFFF, "window sums overflow an int");

/* Load: the raw samples (f, g) into the tile, and the thread's shares of
 * both exact integer sums (the gather kernel's). A layer-l sample is a
 * multiple of 4^-l below 256 (l <= 3), so a thread's IT samples add up
 * exactly in float (below 2^18 units of 1/64), which is then scaled and
 * converted once. Rows are clamped only where a window crosses the top or
 * bottom edge (the same test for the whole CTA). */
template <int N>
MATCH_HD __forceinline__ void load_thread(const PairJob& j, float2* s, int tid,
                                          int* sum_f, int* sum_g) {
  using S = Shape<N>;
  using Ln = Lanes<N>;
  static_assert(Ln::IT * 256 * 64 <= (1 << 24), "partial sums not exact");
  const int x = tid % N, y0 = tid / N;
  const int fx = clampi(j.fx + x, 0, j.I.w - 1);
  const int gx = clampi(j.gx + x, 0, j.J.w - 1);
  float tf = 0.f, tg = 0.f;
  auto take = [&](int y, float fv, float gv) {
    tf += fv;
    tg += gv;
    s[y * S::P + x] = make_float2(fv, gv);
  };
  if (j.fy >= 0 && j.fy + N <= j.I.h && j.gy >= 0 && j.gy + N <= j.J.h) {
    const float* fp = j.I.px + (j.fy + y0) * j.I.w + fx;
    const float* gp = j.J.px + (j.gy + y0) * j.J.w + gx;
#if defined(__CUDA_ARCH__)
#pragma unroll 8
#endif
    for (int i = 0; i < Ln::IT; ++i) {
      take(y0 + i * Ln::RS, *fp, *gp);
      fp += Ln::RS * j.I.w;
      gp += Ln::RS * j.J.w;
    }
  } else {
#if defined(__CUDA_ARCH__)
#pragma unroll 4
#endif
    for (int i = 0; i < Ln::IT; ++i) {
      const int y = y0 + i * Ln::RS;
      take(y, j.I.px[clampi(j.fy + y, 0, j.I.h - 1) * j.I.w + fx],
           j.J.px[clampi(j.gy + y, 0, j.J.h - 1) * j.J.w + gx]);
    }
  }
  *sum_f = to_int_rn(tf * j.scale);
  *sum_g = to_int_rn(tg * j.scale);
}

/* Signed frequency (N/2 never lies inside the box: k <= (n - 1) / 2). */
template <int N>
MATCH_HD __forceinline__ int signed_freq(int f) {
  return f <= N / 2 ? f : f - N;
}

/* Cross spectrum in the digit-reversed domain, each conjugate pair
 * {k, -k} by one thread: thread tid takes column frequency fx = tid mod N
 * and the row frequencies fy = y0 + i RS < N/2 with their partners
 * (-fy, -fx); row 0 pairs within itself (fx <= N/2 takes those), and the
 * Nyquist row N/2 is never in the box. (Which of the two positions a pair
 * is computed from does not change a bit: F(-k) = conj F(k) and
 * G(-k) = conj G(k) exactly, and so is R.) */
template <int N>
MATCH_HD __forceinline__ void cross_thread(float2* s, const int* pairs, int kbox,
                                           int tid) {
  using S = Shape<N>;
  using Ln = Lanes<N>;
  const int fx = tid % N, y0 = tid / N;
  const int px = pos_of<N>(fx), qx = pos_of<N>((N - fx) % N);
  const int su = signed_freq<N>(fx);
  const bool in_x = su <= kbox && su >= -kbox;
  s[pos_of<N>(N / 2) * S::P + px] = make_float2(0.f, 0.f);
  MATCH_UNROLL
  for (int i = 0; i < Ln::IT / 2; ++i) {
    const int fy = y0 + i * Ln::RS; /* 0 .. N/2 - 1 */
    if (i == 0 && y0 == 0 && fx > N / 2) continue;
    const int rows = pairs[fy];
    const int ia = (rows & 0xFFFF) + px, ib = (rows >> 16) + qx;
    float2 r = make_float2(0.f, 0.f);
    if (fy <= kbox) { /* the same for the whole warp */
      /* 2F and 2G: R = F conj G / |F conj G| is the same, bit for bit,
       * for any power-of-two scale of F and G (and the threshold 16 x). */
      const float2 A = s[ia], B = cconj(s[ib]);
      const float2 f = make_float2(A.x + B.x, A.y + B.y);
      const float2 q = make_float2(A.y - B.y, -(A.x - B.x));
      const float pr = f.x * q.x + f.y * q.y;
      const float pi = f.y * q.x - f.x * q.y;
      const float m2 = pr * pr + pi * pi;
#if defined(__CUDA_ARCH__)
      const float inv = rsqrtf(m2); /* 2 ulp: far below the FFT's rounding */
#else
      const float inv = 1.f / sqrtf(m2);
#endif
      if (in_x && m2 > 16.f * 1e-30f) r = make_float2(pr * inv, pi * inv);
    }
    s[ia] = r;
    if (ib != ia) s[ib] = cconj(r);
  }
}

/* The thread's maximum key over the surface (real parts, natural order).
 * With x fixed, the thread's samples in the reference's visiting order
 * (signed row -N/2 first) are its rows N/2.. then 0..: the first strictly
 * larger value wins, except that n = 0 (thread 0's first row) wins a tie,
 * so the key is formed once, for the winner. Float compares order the
 * samples as the key does (-0 = +0; the surface holds no NaN). */
template <int N>
MATCH_HD __forceinline__ unsigned long long peak_thread(float2* s, int tid) {
  using S = Shape<N>;
  using Ln = Lanes<N>;
  const int x = tid % N, y0 = tid / N;
  float best = 0.f;
  int best_y = 0;
  MATCH_UNROLL
  for (int t = 0; t < Ln::IT; ++t) {
    const int i = (t + Ln::IT / 2) % Ln::IT;
    const int y = y0 + i * Ln::RS;
    float v;
    if (i < Ln::IT / 2) {
      v = s[y * S::P + x].x;
    } else { /* packed into row y - N/2 (fft2d_passes); unpacked for the
                fit, which reads real parts */
      v = s[(y - N / 2) * S::P + x].y;
      s[y * S::P + x].x = v;
    }
    if (t == 0 || v > best || (i == 0 && tid == 0 && v == best)) {
      best = v;
      best_y = y;
    }
  }
  return peak_key_of(best, best_y * N + x, N);
}

/* The forward and inverse 2-D transforms as a sequence of passes, each
 * handed to `each`: the kernel runs it and then a barrier, the emulation
 * runs it for every thread before the next. (`each` is a host lambda in the
 * emulation: no device code calls that instantiation.) */
#if defined(__CUDACC__)
#pragma nv_exec_check_disable
#endif
template <int N, bool INV, typename Each>
MATCH_HD __forceinline__ void fft2d_passes(Each each, Windowing win = {}) {
  constexpr int P = Shape<N>::P;
  if (!INV) {
    each([win](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 1, false, N, false, true>(s, P, 1, tw, tid, win);
    });
    each([](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 2, false>(s, P, 1, tw, tid);
    });
    each([](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 1, false>(s, 1, P, tw, tid);
    });
    each([](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 2, false>(s, 1, P, tw, tid);
    });
  } else {
    each([](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 2, true>(s, 1, P, tw, tid);
    });
    /* The surface is real: after the column passes row y + N/2 rides in
     * the imaginary part of row y, so the row passes take N/2 rows
     * (peak_thread unpacks them). */
    each([](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 1, true, N, true>(s, 1, P, tw, tid);
    });
    each([](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 2, true, N / 2>(s, P, 1, tw, tid);
    });
    each([](float2* s, const float2* tw, int tid) {
      fft_pass_thread<N, 1, true, N / 2>(s, P, 1, tw, tid);
    });
  }
}

/* The arguments of one launch (passed by value). */
struct FusedArgs {
  LayerView I, J;
  PocGeometry g;
  int layer;
  PeakMode mode;
  bool from_point;
  int2* centre;
  uint8_t* done;
  PeakRecord* rec;
  const float* w1d;
  const float2* tw;
};

inline FusedArgs make_args(LayerView I, LayerView J, const PocGeometry& g, int layer,
                           PeakMode mode, bool from_point, int2* centre, uint8_t* done,
                           PeakRecord* rec, const float* w1d, const float2* tw) {
  FusedArgs a;
  a.I = I;
  a.J = J;
  a.g = g;
  a.layer = layer;
  a.mode = mode;
  a.from_point = from_point;
  a.centre = centre;
  a.done = done;
  a.rec = rec;
  a.w1d = w1d;
  a.tw = tw;
  return a;
}

}  // namespace fused_detail
}  // namespace cuda
}  // namespace match
