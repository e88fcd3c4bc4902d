/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * In-register FFT pieces of the shared-memory POC paths (poc_fused.cu,
 * poc_tiled.cu): complex arithmetic and DFTs of 4, 8 and 16 points with
 * every index and twiddle a compile-time constant. __host__ __device__, so
 * the host emulations run the same code.
 */
#pragma once

#include <cuda_runtime.h>

#include "ref/poc_fit.h" /* MATCH_HD */

namespace match {
namespace cuda {
namespace poc_fft {

MATCH_HD __forceinline__ float2 cadd(float2 a, float2 b) {
  return make_float2(a.x + b.x, a.y + b.y);
}
MATCH_HD __forceinline__ float2 csub(float2 a, float2 b) {
  return make_float2(a.x - b.x, a.y - b.y);
}
MATCH_HD __forceinline__ float2 cmul(float2 a, float2 b) {
  return make_float2(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
MATCH_HD __forceinline__ float2 cconj(float2 a) { return make_float2(a.x, -a.y); }

/* d e^(-+2 pi i m / 8) (INV: +), m = 0..3: the twiddles of the in-register
 * DFTs, m always a constant there, so the branches fold and no general
 * complex product is left: 1, -+i and the diagonals. */
template <bool INV>
MATCH_HD __forceinline__ float2 twiddle8(float2 d, int m) {
  constexpr float c = 0.70710678118654752f;
  switch (m) {
    case 0:
      return d;
    case 2:
      return INV ? make_float2(-d.y, d.x) : make_float2(d.y, -d.x);
    case 1:
      return INV ? make_float2(c * (d.x - d.y), c * (d.x + d.y))
                 : make_float2(c * (d.x + d.y), c * (d.y - d.x));
    default:
      return INV ? make_float2(-c * (d.x + d.y), c * (d.x - d.y))
                 : make_float2(c * (d.y - d.x), -c * (d.x + d.y));
  }
}

/* In-register DFTs, natural order in and out, every index a constant:
 * a[k] <- sum_q a[q] e^(-+2 pi i q k / R) (INV: +). Written out rather than
 * as loops: a loop over a register array that nvcc does not fully unroll
 * becomes chains of predicated moves (measured: 79k instructions per CTA,
 * the integer pipe 78% busy, with a loop form of these). */
template <bool INV>
MATCH_HD __forceinline__ void fft4(float2* a) {
  const float2 t0 = cadd(a[0], a[2]), t1 = csub(a[0], a[2]);
  const float2 t2 = cadd(a[1], a[3]), t3 = twiddle8<INV>(csub(a[1], a[3]), 2);
  a[0] = cadd(t0, t2);
  a[2] = csub(t0, t2);
  a[1] = cadd(t1, t3);
  a[3] = csub(t1, t3);
}

/* Radix-2 decimation in frequency into two fft4: X[2k] from the sums,
 * X[2k + 1] from the twiddled differences. */
template <bool INV>
MATCH_HD __forceinline__ void fft8(float2* a) {
  float2 b[4] = {cadd(a[0], a[4]), cadd(a[1], a[5]), cadd(a[2], a[6]), cadd(a[3], a[7])};
  float2 c[4] = {csub(a[0], a[4]), twiddle8<INV>(csub(a[1], a[5]), 1),
                 twiddle8<INV>(csub(a[2], a[6]), 2), twiddle8<INV>(csub(a[3], a[7]), 3)};
  fft4<INV>(b);
  fft4<INV>(c);
  a[0] = b[0];
  a[1] = c[0];
  a[2] = b[1];
  a[3] = c[1];
  a[4] = b[2];
  a[5] = c[2];
  a[6] = b[3];
  a[7] = c[3];
}

/* d e^(-+2 pi i m / 16) (INV: +), m = 0..9 (the radix-4 x 4 twiddles of
 * fft16), constant at every call. */
template <bool INV>
MATCH_HD __forceinline__ float2 twiddle16(float2 d, int m) {
  constexpr float c1 = 0.92387953251128674f, s1 = 0.38268343236508978f;
  switch (m) {
    case 0:
      return d;
    case 2:
      return twiddle8<INV>(d, 1);
    case 4:
      return twiddle8<INV>(d, 2);
    case 6:
      return twiddle8<INV>(d, 3);
    case 8:
      return make_float2(-d.x, -d.y);
    default: {
      /* e^(-2 pi i m / 16) for m = 1, 3, 9 (the only odd products i k1). */
      const float2 w = m == 1   ? make_float2(c1, -s1)
                       : m == 3 ? make_float2(s1, -c1)
                                : make_float2(-c1, s1);
      return cmul(d, INV ? cconj(w) : w);
    }
  }
}

/* 16 points as 4 x 4: fft4 over each residue class i (elements i + 4 r),
 * twiddles W16^(i k1), then fft4 over i for each k1: X[k1 + 4 k2]. */
template <bool INV>
MATCH_HD __forceinline__ void fft16(float2* a) {
  float2 b[16];
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int i = 0; i < 4; ++i) {
    float2 t[4] = {a[i], a[i + 4], a[i + 8], a[i + 12]};
    fft4<INV>(t);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k1 = 0; k1 < 4; ++k1) b[k1 * 4 + i] = twiddle16<INV>(t[k1], i * k1);
  }
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int k1 = 0; k1 < 4; ++k1) {
    fft4<INV>(&b[k1 * 4]);
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int k2 = 0; k2 < 4; ++k2) a[k1 + 4 * k2] = b[k1 * 4 + k2];
  }
}

template <int R, bool INV>
MATCH_HD __forceinline__ void dft(float2* a) {
  static_assert(R == 4 || R == 8 || R == 16, "in-register DFT of 4, 8 or 16");
  if constexpr (R == 4)
    fft4<INV>(a);
  else if constexpr (R == 8)
    fft8<INV>(a);
  else
    fft16<INV>(a);
}

}  // namespace poc_fft
}  // namespace cuda
}  // namespace match
