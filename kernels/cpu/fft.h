/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * A small float FFT for the POC backend: square 2-D complex transforms of
 * size N = 2^a 3^b 5^c, split (planar) real/imaginary arrays.
 *
 * Why our own and not a library: the kernels must stay free of GStreamer
 * (so not gstfft) and of extra dependencies, the sizes are few and known at
 * configuration time, and the 2-D transforms are always batched the same
 * way, so a plan of Stockham stages with precomputed twiddles is short.
 * bench/bench_fft.cpp measures it against GStreamer's KissFFT-based gstfft.
 *
 * How: row-column. A "column pass" runs the 1-D transform along the rows
 * index of the n x n array for all n columns at once: every butterfly reads
 * and writes whole contiguous rows, so the inner loops are long, unit-stride
 * and vectorised by the compiler (planar data, no complex shuffles). The
 * 2-D transform is column pass, transpose, column pass; it therefore
 * returns the spectrum TRANSPOSED (out[kx][ky] = X(kx, ky) for in[y][x]).
 * Applying it to a transposed spectrum gives a result in the normal
 * orientation again, which is how the POC backend gets its inverse:
 * IDFT(X) = conj(DFT(conj X)) / n^2, and DFT2(A^T) = DFT2(A)^T.
 *
 * The 1-D transform is a Stockham autosort (no bit reversal), decimation in
 * frequency, radix 4 then 2 then 3 and 5: a radix-p stage on subsequences
 * of length l = p m with stride s does
 *   y[(p j + t) s + q] = w_l^(j t) sum_r x[(j + m r) s + q] w_p^(r t)
 * for j < m, t < p, q < s, then l = m, s = p s.
 */
#pragma once

#include <vector>

namespace match {
namespace cpu {

/* One radix-p Stockham stage (see above); twiddles at tw .. tw + m (p-1). */
struct FftStage {
  int p, m, s;
  int tw;
};

/* Runs `count` stages over planar n x n data from (xr, xi), ping-ponging
 * with (yr, yi); returns true when the result is in (yr, yi). Built twice:
 * fft_impl::base (the compiler's baseline ISA) and, on x86-64,
 * fft_impl::avx2 (-mavx2 -mfma), picked at run time. */
namespace fft_impl {
using RunStagesFn = bool (*)(const FftStage* stages, int count, const float* tw_re,
                             const float* tw_im, int n, float* xr, float* xi, float* yr,
                             float* yi);
}  // namespace fft_impl

class Fft2d {
 public:
  /* n = 2^a 3^b 5^c, 1 <= n <= 4096; throws std::invalid_argument else. */
  explicit Fft2d(int n);

  static bool supported(int n);
  int size() const { return n_; }

  /* Forward 2-D DFT, exp(-2 pi i (kx x + ky y) / n), unscaled, of the n x n
   * planar array (re, im), row-major; the result, TRANSPOSED (see above),
   * replaces it. work_re, work_im: n x n floats of scratch. */
  void forward_transposed(float* re, float* im, float* work_re, float* work_im) const;

  /* One column pass (1-D transforms along rows for all columns), in place,
   * for tests and benchmarks. */
  void columns(float* re, float* im, float* work_re, float* work_im) const;

  /* "avx2" or "baseline": the stage loops in use. MATCH_CPU_ISA=scalar or
   * sse2 forces the baseline build (as for the SAD loops). */
  const char* isa() const { return isa_; }

 private:
  /* From this size on, forward_transposed() runs its column passes on
   * strips of kStripWidth columns gathered into a small contiguous buffer.
   * Why: a whole-array pass at n = 256 keeps 16 row streams (4 inputs and 4
   * outputs, real and imaginary) that lie multiples of 64 KB apart, so they
   * collide in the same cache sets, and the four n x n planes (1 MB) do not
   * stay in L2; bench_fft measured 3.2 ms per 256 x 256 transform, 25x the
   * 128 x 128 one for 4.6x the work. A strip and its ping-pong copy take
   * 4 n kStripWidth floats (64 KB at n = 256). */
  static constexpr int kStripMinSize = 128;
  static constexpr int kStripWidth = 16;
  void forward_transposed_strips(float* re, float* im, float* work_re,
                                 float* work_im) const;

  /* Runs every stage from (xr, xi); returns true when the result ended in
   * the work arrays (odd number of stages). */
  bool pass(float* xr, float* xi, float* yr, float* yi) const;

  int n_ = 0;
  fft_impl::RunStagesFn run_ = nullptr;
  const char* isa_ = "baseline";
  std::vector<FftStage> stages_;
  std::vector<float> tw_re_, tw_im_;
};

/* Out-of-place transpose of an n x n float array. */
void transpose(const float* src, float* dst, int n);

}  // namespace cpu
}  // namespace match
