/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * SAD block-matching stereo on the GPU: the rolling-window scheme of paper
 * [D] (README's References) with every definition of
 * match/stereo.h reproduced in integers, so the output equals ref/ bit for
 * bit (sub-pixel and invalid values included).
 *
 * Notation: sign = -1 for the left reference (ref pixel x meets the other
 * view at x - d), +1 for the right one; k = d - min_disparity in [0, n).
 * Every read is clamped per pixel, as in the definition:
 *   C(x, y, k)  = sum_i cs(x + i, y, k),
 *   cs(u, y, k) = sum_j |Ref(cl(u), cl(y+j)) - Oth(cl(u + sign d), cl(y+j))|
 * (|i| <= hw, |j| <= hh), cs defined for any column u, also outside the
 * image.
 *
 * stereo_cost_kernel: one CTA per (strip of SP columns, band of rows);
 * T = n P threads, thread t owns disparity k = t % n and the segment
 * s = t / n of S = 32 output columns (P = 1 for n >= 32, else 32 / n
 * segments so that small ranges still fill a warp). The thread keeps the
 * S + 2 hw column sums cs(u, y, k) of its segment in registers (the kernel
 * is instantiated per hw, so every register index is static) and rolls them
 * down the band: per row, + |entering row difference| - |leaving row
 * difference|; the first 2 hh rows of a band only add (warm-up, no output).
 * The block sums of its S pixels slide along the registers: C(x+1) = C(x) +
 * cs(x+1+hw) - cs(x-hw). Both views' rows are staged in shared memory per
 * row (clamped columns, so the inner loop has no bounds logic).
 *
 * Each cost leaves the thread as a key (C << 8) | k; C <= 31 * 31 * 255 <
 * 2^24, so the key order is "lowest cost, then smallest d": a plain unsigned
 * minimum is the winner-take-all with ties to the smallest d, everywhere
 * (also across CTAs, where atomicMin combines partial minima). The keys of a
 * row go to shared memory as keys[k][x] (a transpose: the minimum over d is
 * across threads), then, after one barrier:
 *  - pixel scans (one thread per pixel): minimum key -> d*, C(d*); the
 *    sub-pixel neighbours are keys[k* -+ 1][x]; the uniqueness test needs
 *    min C over |k - k*| > 1, a second pass over [0, k*-2] and [k*+2, n)
 *    (the second-best cost is not enough: it is often a neighbour of d*).
 *    Result -> pre[y][x] = value | k* << 16 (k* for the left-right check).
 *  - diagonal scans (left-right check): the other view's cost is the
 *    reference's cost on a diagonal, exactly, clamping included:
 *      C_oth(p, d) = sum |Oth(cl(p+i)) - Ref(cl(p+i - sign d))|
 *                  = C_ref(p - sign d, d)
 *    (the same clamped pixel pairs), so D'(p) = argmin_k key(p - sign d, k)
 *    with the same tie rule. A CTA reduces the diagonals crossing its strip
 *    and atomicMin's them into dkey[y][p]. For every partner p that the check
 *    can ask for (p = x + sign d*, x in [0, W), d* >= dmin), the columns
 *    p - sign d all lie in [0, W + n - 1) (left) or [-(n - 1), W) (right),
 *    which is why the grid then covers n - 1 extra columns (cbeg).
 * stereo_finish_kernel then applies the texture and left-right tests per
 * pixel and writes the 16-bit map. The tests only ever turn a value into
 * kInvalidDisparity, so their order cannot change the output.
 *
 * Shared memory (dynamic, 4-byte words):
 *   keys[2][n][SP + 1]  double-buffered by row parity; the odd stride keeps
 *                       the transposing stores (32 consecutive k, same x)
 *                       and the diagonal reads (consecutive x) on distinct
 *                       banks; pixel scans read consecutive x.
 *   rows[2][ref_in RB | ref_out RB | oth_in OB | oth_out OB]  bytes,
 *                       double-buffered: row y+1 is loaded (into registers
 *                       first, so its global latency overlaps the SAD work)
 *                       while row y is used.
 * One __syncthreads per row (b = row parity): before it, the SAD step reads
 * rows[b], writes keys[b] and stages the next row into rows[b^1]; after it,
 * the scans read keys[b]. rows[b] is rewritten during the next row, after
 * this barrier, which ends all reads of it; keys[b] is rewritten two rows
 * later, after the next barrier, which every thread reaches only after
 * finishing its scans of keys[b]. (With n < 32 a warp holds several
 * segments, and the transposing stores meet P-way bank conflicts: small
 * ranges are cheap anyway.)
 *
 * The texture test uses the row sums
 *   tex[r][x] = sum_i |Ref(x+i+1, r) - Ref(x+i-1, r)|
 * (stereo_texture_kernel), summed over the window rows in the finish kernel.
 *
 * The Sobel cost runs this same code on the Sobel images (bytes, 0..62);
 * the census cost (plan.census) on rows of 64-bit census words, the
 * column sums rolling popcount(Ref ^ Oth) instead of |Ref - Oth| (C <= 31
 * * 31 * 63 < 2^24: the keys keep their order). The diagonal identity of
 * the left-right check holds for both (the per-pixel cost is symmetric).
 *
 * All per-thread code is __host__ __device__: emulate_* run it CTA by CTA
 * on the CPU (the phases between barriers in order), which the tests compare
 * with ref/ on machines without a GPU.
 */
#include <algorithm>
#include <cstring>
#include <vector>

#include "stereo_kernels.cuh"
#include "unroll.cuh"

namespace match {
namespace cuda {
namespace {

/* Bytes of the next row each thread loads into registers before the SAD
 * work of the current row (a row is 2 (SP + 2hw) + 2 (SP + 2hw + n - 1)
 * bytes: at most 4 per thread for n >= 64); the rest is loaded after it. */
constexpr int kPrefetch = 4;

__host__ __device__ __forceinline__ int clampi(int v, int lo, int hi) {
  return v < lo ? lo : (v > hi ? hi : v);
}
__host__ __device__ __forceinline__ int absi(int v) {
#if defined(__CUDA_ARCH__)
  return abs(v); /* one IABS */
#else
  return v < 0 ? -v : v;
#endif
}
__host__ __device__ __forceinline__ uint32_t minu(uint32_t a, uint32_t b) {
  return a < b ? a : b;
}
__host__ __device__ __forceinline__ int popcount64(uint64_t v) {
#if defined(__CUDA_ARCH__)
  return __popcll(v);
#else
  return __builtin_popcountll(v);
#endif
}

/* floor(a / b) for b > 0 (C++ division truncates). */
__host__ __device__ __forceinline__ int floor_div(int a, int b) {
  int q = a / b;
  if (a % b != 0 && a < 0) --q;
  return q;
}

__host__ __device__ __forceinline__ void atomic_min_u32(uint32_t* p,
                                                        uint32_t v) {
#if defined(__CUDA_ARCH__)
  atomicMin(p, v);
#else
  if (v < *p) *p = v;
#endif
}

/* Buffer b (row parity) is keys + b * key_words and rows + b * row_bytes
 * (arithmetic, not a pointer array: a run-time index into an array would
 * put it in local memory). */
struct Smem {
  uint32_t* keys;
  int key_words;
  uint8_t* rows;
  int row_bytes;
  __host__ __device__ uint32_t* key_buf(int b) const {
    return keys + b * key_words;
  }
  __host__ __device__ uint8_t* row_buf(int b) const {
    return rows + b * row_bytes;
  }
};

__host__ __device__ __forceinline__ Smem smem_layout(const StereoPlan& p,
                                                     uint32_t* base) {
  Smem s;
  s.keys = base;
  s.key_words = p.n * p.key_stride;
  s.rows = reinterpret_cast<uint8_t*>(base + 2 * s.key_words);
  s.row_bytes = p.stage_bytes() * (p.census ? 8 : 1);
  return s;
}

/* The two image rows of one step of the rolling sums: the window centred on
 * row y gains row y + hh and loses row y - hh - 1 (clamped). During the
 * warm-up (y <= y0, the band's first output row) nothing leaves: the
 * leaving rows are staged as zeros on both sides (|0 - 0| = 0). */
template <typename Px>
struct RowStep {
  const Px* ref_in;
  const Px* ref_out;
  const Px* oth_in;
  const Px* oth_out;
  bool sub;
};

/* The rows the window sums read: bytes, or census words (Px). */
__host__ __device__ __forceinline__ void view_rows(const StereoFrameArgs& a,
                                                   const uint8_t** r,
                                                   const uint8_t** o) {
  *r = a.ref;
  *o = a.oth;
}
__host__ __device__ __forceinline__ void view_rows(const StereoFrameArgs& a,
                                                   const uint64_t** r,
                                                   const uint64_t** o) {
  *r = a.cref;
  *o = a.coth;
}

template <typename Px>
__host__ __device__ __forceinline__ RowStep<Px> row_step(
    const StereoPlan& p, const StereoFrameArgs& a, int y, int y0) {
  const size_t in =
      static_cast<size_t>(clampi(y + p.hh, 0, a.height - 1)) * a.img_pitch;
  const size_t out =
      static_cast<size_t>(clampi(y - p.hh - 1, 0, a.height - 1)) * a.img_pitch;
  const Px *ref, *oth;
  view_rows(a, &ref, &oth);
  RowStep<Px> r;
  r.ref_in = ref + in;
  r.ref_out = ref + out;
  r.oth_in = oth + in;
  r.oth_out = oth + out;
  r.sub = y > y0;
  return r;
}

/* Byte i of the staged rows of step r for the strip starting at column xs:
 * [0, RB) Ref row in, [RB, 2RB) Ref row out, then Oth in, Oth out (OB
 * each). Ref byte b is column xs - hw + b; Oth byte b is column
 * xs - hw + sign dmin - (n - 1 if sign < 0) + b, so that thread (k, s) finds
 * column u of its segment (u in [0, S + 2hw)) at
 *   Ref: s S + u,   Oth: s S + u + (sign < 0 ? n - 1 - k : k).
 * Padding bytes (to the 4-byte multiples) are staged too (never used). */
template <typename Px>
__host__ __device__ __forceinline__ Px stage_value(const StereoPlan& p,
                                                   const StereoFrameArgs& a,
                                                   int xs, const RowStep<Px>& r,
                                                   int i) {
  const Px* row;
  int col;
  bool out;
  if (i < 2 * p.ref_bytes) {
    out = i >= p.ref_bytes;
    row = out ? r.ref_out : r.ref_in;
    col = xs - p.hw + (out ? i - p.ref_bytes : i);
  } else {
    i -= 2 * p.ref_bytes;
    out = i >= p.oth_bytes;
    row = out ? r.oth_out : r.oth_in;
    col = xs - p.hw + p.sign * p.dmin - (p.sign < 0 ? p.n - 1 : 0) +
          (out ? i - p.oth_bytes : i);
  }
  if (out && !r.sub) return 0;
  return row[clampi(col, 0, a.width - 1)];
}

/* The registers of one thread: column sums of its S + 2 HW columns. */
template <int HW>
struct SadThread {
  static constexpr int kCols = kStereoSegCols + 2 * HW;
  int cs[kCols];
};

/* One rolling step of the column sums from the staged rows. Ref words are
 * the same for every thread of a segment (shared-memory broadcast); Oth
 * bytes of consecutive k are consecutive (4 threads per bank word, no
 * conflict). Values stay in [0, 31 * 255]. */
template <typename Px, int HW>
__host__ __device__ __forceinline__ void roll_columns(const StereoPlan& p,
                                                      const uint8_t* rows,
                                                      int tid,
                                                      SadThread<HW>& t) {
  constexpr int kCols = SadThread<HW>::kCols;
  const int k = tid % p.n, seg = tid / p.n;
  const int rb = seg * kStereoSegCols; /* multiple of 4: word aligned */
  if constexpr (sizeof(Px) == 8) {
    /* Census: the Hamming distances of the words (values <= 31 * 63). */
    const uint64_t* words = reinterpret_cast<const uint64_t*>(rows);
    const uint64_t* ref_in = words + rb;
    const uint64_t* ref_out = words + p.ref_bytes + rb;
    const uint64_t* oth_in =
        words + 2 * p.ref_bytes + rb + (p.sign < 0 ? p.n - 1 - k : k);
    const uint64_t* oth_out = oth_in + p.oth_bytes;
    MATCH_UNROLL
    for (int u = 0; u < kCols; ++u)
      t.cs[u] += popcount64(ref_in[u] ^ oth_in[u]) -
                 popcount64(ref_out[u] ^ oth_out[u]);
    return;
  }
  const uint32_t* ref_in = reinterpret_cast<const uint32_t*>(rows + rb);
  const uint32_t* ref_out =
      reinterpret_cast<const uint32_t*>(rows + p.ref_bytes + rb);
  const int ob = rb + (p.sign < 0 ? p.n - 1 - k : k);
  const uint8_t* oth_in = rows + 2 * p.ref_bytes + ob;
  const uint8_t* oth_out = oth_in + p.oth_bytes;
  MATCH_UNROLL
  for (int w = 0; w < (kCols + 3) / 4; ++w) {
    const uint32_t wi = ref_in[w], wo = ref_out[w];
    MATCH_UNROLL
    for (int b = 0; b < 4; ++b) {
      const int u = 4 * w + b;
      if (u < kCols) {
        const int ri = static_cast<int>((wi >> (8 * b)) & 0xFFu);
        const int ro = static_cast<int>((wo >> (8 * b)) & 0xFFu);
        t.cs[u] += absi(ri - oth_in[u]) - absi(ro - oth_out[u]);
      }
    }
  }
}

/* Block sums of the thread's S pixels -> keys[k][s S + j]. */
template <int HW>
__host__ __device__ __forceinline__ void emit_keys(const StereoPlan& p,
                                                   const SadThread<HW>& t,
                                                   int tid, uint32_t* keys) {
  const int k = tid % p.n, seg = tid / p.n;
  uint32_t* dst = keys + k * p.key_stride + seg * kStereoSegCols;
  int c = 0;
  MATCH_UNROLL
  for (int u = 0; u <= 2 * HW; ++u) c += t.cs[u];
  dst[0] = (static_cast<uint32_t>(c) << 8) | static_cast<uint32_t>(k);
  MATCH_UNROLL
  for (int j = 1; j < kStereoSegCols; ++j) {
    c += t.cs[j + 2 * HW] - t.cs[j - 1];
    dst[j] = (static_cast<uint32_t>(c) << 8) | static_cast<uint32_t>(k);
  }
}

/* Winner-take-all, sub-pixel and uniqueness of pixel xl of the strip. */
__host__ __device__ __forceinline__ void scan_pixel(const StereoPlan& p,
                                                    const StereoFrameArgs& a,
                                                    const uint32_t* keys,
                                                    int xs, int y, int xl) {
  const int x = xs + xl;
  if (x < 0 || x >= a.width) return; /* extra columns of the LR check */
  const int n = p.n, sx = p.key_stride;
  const uint32_t* col = keys + xl;
  uint32_t m0 = 0xFFFFFFFFu, m1 = m0, m2 = m0, m3 = m0;
  int k = 0;
  for (; k + 4 <= n; k += 4) {
    m0 = minu(m0, col[(k + 0) * sx]);
    m1 = minu(m1, col[(k + 1) * sx]);
    m2 = minu(m2, col[(k + 2) * sx]);
    m3 = minu(m3, col[(k + 3) * sx]);
  }
  for (; k < n; ++k) m0 = minu(m0, col[k * sx]);
  const uint32_t best = minu(minu(m0, m1), minu(m2, m3));
  const int kb = static_cast<int>(best & 0xFFu);
  const int c0 = static_cast<int>(best >> 8);
  int frac = 0;
  if (a.subpixel && kb > 0 && kb < n - 1) {
    const int cm = static_cast<int>(col[(kb - 1) * sx] >> 8);
    const int cp = static_cast<int>(col[(kb + 1) * sx] >> 8);
    const int den = cm + cp - 2 * c0; /* <= 2 * 245055: no overflow */
    if (den > 0) frac = clampi(floor_div(16 * (cm - cp) + den, 2 * den), -8, 8);
  }
  uint32_t value =
      static_cast<uint32_t>(kDisparityScale * (p.dmin + kb) + frac);
  if (a.uniqueness > 0) {
    uint32_t mu = 0xFFFFFFFFu; /* no key reaches it (costs < 2^24) */
    for (int j = 0; j < kb - 1; ++j) mu = minu(mu, col[j * sx]);
    for (int j = kb + 2; j < n; ++j) mu = minu(mu, col[j * sx]);
    if (mu != 0xFFFFFFFFu &&
        100LL * static_cast<long long>(mu >> 8) <=
            (100LL + a.uniqueness) * static_cast<long long>(c0))
      value = kInvalidDisparity;
  }
  a.pre[static_cast<size_t>(y) * a.width + x] =
      value | (static_cast<uint32_t>(kb) << 16);
}

/* Diagonal q in [0, SP + n - 1) of the strip: the other view's pixel pp and
 * the keys (x, k) of this strip with x + sign (dmin + k) = pp.
 *   sign < 0: xl = q - (n - 1) + k,  pp = xs - dmin - (n - 1) + q
 *   sign > 0: xl = q - k,            pp = xs + dmin + q
 * with k limited to 0 <= xl < SP (never empty). */
__host__ __device__ __forceinline__ void scan_diagonal(const StereoPlan& p,
                                                       const StereoFrameArgs& a,
                                                       const uint32_t* keys,
                                                       int xs, int y, int q) {
  const int n = p.n, sp = p.strip, sx = p.key_stride;
  int pp, klo, khi, base, step;
  if (p.sign < 0) {
    pp = xs - p.dmin - (n - 1) + q;
    klo = n - 1 - q > 0 ? n - 1 - q : 0;
    khi = sp + n - 2 - q < n - 1 ? sp + n - 2 - q : n - 1;
    base = q - (n - 1); /* keys[k * sx + base + k] */
    step = sx + 1;
  } else {
    pp = xs + p.dmin + q;
    klo = q - sp + 1 > 0 ? q - sp + 1 : 0;
    khi = q < n - 1 ? q : n - 1;
    base = q; /* keys[k * sx + q - k] */
    step = sx - 1;
  }
  if (pp < 0 || pp >= a.width) return;
  uint32_t m = 0xFFFFFFFFu;
  const uint32_t* ptr = keys + base + klo * step;
  for (int k = klo; k <= khi; ++k, ptr += step) m = minu(m, *ptr);
  atomic_min_u32(a.dkey + static_cast<size_t>(y) * a.width + pp, m);
}

/* Everything after the barrier of output row y, for thread tid. A pixel
 * scan reads n keys, a diagonal at most min(n, SP): with more threads than
 * pixels (n > 32, one segment), threads [0, SP) (warp 0) scan the pixels
 * and the others the SP + n - 1 diagonals, so that no warp does both; with
 * T <= SP every thread takes its share of each. */
__host__ __device__ __forceinline__ void scan_row(const StereoPlan& p,
                                                  const StereoFrameArgs& a,
                                                  const uint32_t* keys, int xs,
                                                  int y, int tid) {
  for (int xl = tid; xl < p.strip; xl += p.threads)
    scan_pixel(p, a, keys, xs, y, xl);
  if (a.lr_max_diff >= 0) {
    const int first = p.threads > p.strip ? p.strip : 0;
    const int count = p.threads - first;
    const int nd = p.strip + p.n - 1;
    if (tid >= first)
      for (int q = tid - first; q < nd; q += count)
        scan_diagonal(p, a, keys, xs, y, q);
  }
}

template <typename Px, int HW>
__global__ void __launch_bounds__(kStereoMaxThreads)
    stereo_cost_kernel(const StereoPlan p, const StereoFrameArgs a) {
  extern __shared__ uint32_t smem[];
  const Smem s = smem_layout(p, smem);
  const int tid = threadIdx.x;
  const int T = p.threads; /* == blockDim.x */
  const int xs = a.cbeg + static_cast<int>(blockIdx.x) * p.strip;
  const int y0 = static_cast<int>(blockIdx.y) * a.band_rows;
  const int y1 = min(a.height, y0 + a.band_rows);
  const int ys = y0 - 2 * p.hh;
  const int nst = p.stage_bytes();

  SadThread<HW> t;
  MATCH_UNROLL
  for (int u = 0; u < SadThread<HW>::kCols; ++u) t.cs[u] = 0;

  {
    const RowStep<Px> r = row_step<Px>(p, a, ys, y0);
    Px* dst = reinterpret_cast<Px*>(s.row_buf(0));
    for (int i = tid; i < nst; i += T) dst[i] = stage_value(p, a, xs, r, i);
  }
  __syncthreads();

  int b = 0;
  for (int y = ys; y < y1; ++y, b ^= 1) {
    const bool more = y + 1 < y1; /* CTA-uniform */
    const RowStep<Px> next = row_step<Px>(p, a, y + 1, y0);
    Px pf[kPrefetch];
    MATCH_UNROLL
    for (int i = 0; i < kPrefetch; ++i) {
      const int idx = tid + i * T;
      pf[i] = (more && idx < nst) ? stage_value(p, a, xs, next, idx) : 0;
    }
    roll_columns<Px, HW>(p, s.row_buf(b), tid, t);
    if (y >= y0) emit_keys<HW>(p, t, tid, s.key_buf(b));
    /* rows[b ^ 1] was last read before the previous barrier. */
    Px* dst = reinterpret_cast<Px*>(s.row_buf(b ^ 1));
    MATCH_UNROLL
    for (int i = 0; i < kPrefetch; ++i) {
      const int idx = tid + i * T;
      if (more && idx < nst) dst[idx] = pf[i];
    }
    if (more)
      for (int idx = tid + kPrefetch * T; idx < nst; idx += T)
        dst[idx] = stage_value(p, a, xs, next, idx);
    __syncthreads();
    if (y >= y0) scan_row(p, a, s.key_buf(b), xs, y, tid);
  }
}

/* tex[r][x] = sum over |i| <= hw of |Ref(cl(x+i+1), r) - Ref(cl(x+i-1), r)|
 * (<= 31 * 255: fits 16 bits). */
__host__ __device__ __forceinline__ void texture_row_sum(
    const StereoPlan& p, const StereoFrameArgs& a, int x, int r) {
  const uint8_t* row = a.ref + static_cast<size_t>(r) * a.img_pitch;
  const int w1 = a.width - 1;
  int s = 0;
  for (int i = -p.hw; i <= p.hw; ++i)
    s += absi(row[clampi(x + i + 1, 0, w1)] - row[clampi(x + i - 1, 0, w1)]);
  a.tex[static_cast<size_t>(r) * a.width + x] = static_cast<uint16_t>(s);
}

__host__ __device__ __forceinline__ void finish_pixel(const StereoPlan& p,
                                                      const StereoFrameArgs& a,
                                                      int x, int y) {
  const size_t i = static_cast<size_t>(y) * a.width + x;
  const uint32_t pre = a.pre[i];
  uint32_t v = pre & 0xFFFFu;
  if (a.texture_threshold > 0) {
    int s = 0;
    for (int j = -p.hh; j <= p.hh; ++j)
      s += a.tex[static_cast<size_t>(clampi(y + j, 0, a.height - 1)) * a.width +
                 x];
    if (s < a.texture_threshold) v = kInvalidDisparity;
  }
  if (v != kInvalidDisparity && a.lr_max_diff >= 0) {
    const int d = p.dmin + static_cast<int>((pre >> 16) & 0xFFu);
    const int pp = x + p.sign * d;
    if (pp < 0 || pp >= a.width) {
      v = kInvalidDisparity;
    } else {
      const uint32_t key = a.dkey[static_cast<size_t>(y) * a.width + pp];
      const int dp = p.dmin + static_cast<int>(key & 0xFFu);
      if (absi(dp - d) > a.lr_max_diff) v = kInvalidDisparity;
    }
  }
  a.out[static_cast<size_t>(y) * a.out_pitch + x] = static_cast<uint16_t>(v);
}

__global__ void stereo_texture_kernel(const StereoPlan p,
                                      const StereoFrameArgs a) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < a.width) texture_row_sum(p, a, x, blockIdx.y);
}

__global__ void stereo_finish_kernel(const StereoPlan p,
                                     const StereoFrameArgs a) {
  const int x = blockIdx.x * blockDim.x + threadIdx.x;
  if (x < a.width) finish_pixel(p, a, x, blockIdx.y);
}

/* Instantiation for a run-time half width (kernels and emulation). */
template <typename Px, int HW>
const void* cost_kernel_for_px(int hw) {
  if constexpr (HW > kStereoMaxHalfWidth) {
    return nullptr;
  } else {
    return hw == HW
               ? reinterpret_cast<const void*>(&stereo_cost_kernel<Px, HW>)
               : cost_kernel_for_px<Px, HW + 1>(hw);
  }
}

const void* cost_kernel_for(const StereoPlan& p) {
  return p.census ? cost_kernel_for_px<uint64_t, 0>(p.hw)
                  : cost_kernel_for_px<uint8_t, 0>(p.hw);
}

template <typename Px, int HW>
void emulate_cost_hw(const StereoPlan& p, const StereoFrameArgs& a) {
  const size_t words = (p.smem_bytes + 3) / 4;
  std::vector<uint32_t> smem(words);
  std::vector<SadThread<HW>> th(p.threads);
  const int T = p.threads, nst = p.stage_bytes();
  for (int by = 0; by < a.bands; ++by) {
    for (int bx = 0; bx < a.strips; ++bx) {
      /* Garbage, as on the GPU: a read before a write shows as a mismatch. */
      std::memset(smem.data(), 0xA5, words * 4);
      const Smem s = smem_layout(p, smem.data());
      const int xs = a.cbeg + bx * p.strip;
      const int y0 = by * a.band_rows;
      const int y1 = std::min(a.height, y0 + a.band_rows);
      const int ys = y0 - 2 * p.hh;
      for (auto& t : th)
        for (int u = 0; u < SadThread<HW>::kCols; ++u) t.cs[u] = 0;
      const RowStep<Px> r0 = row_step<Px>(p, a, ys, y0);
      for (int i = 0; i < nst; ++i)
        reinterpret_cast<Px*>(s.row_buf(0))[i] = stage_value(p, a, xs, r0, i);
      int b = 0;
      for (int y = ys; y < y1; ++y, b ^= 1) {
        const bool more = y + 1 < y1;
        const RowStep<Px> next = row_step<Px>(p, a, y + 1, y0);
        for (int tid = 0; tid < T; ++tid) {
          roll_columns<Px, HW>(p, s.row_buf(b), tid, th[tid]);
          if (y >= y0) emit_keys<HW>(p, th[tid], tid, s.key_buf(b));
        }
        if (more)
          for (int i = 0; i < nst; ++i)
            reinterpret_cast<Px*>(s.row_buf(b ^ 1))[i] =
                stage_value(p, a, xs, next, i);
        /* __syncthreads() */
        if (y >= y0)
          for (int tid = 0; tid < T; ++tid)
            scan_row(p, a, s.key_buf(b), xs, y, tid);
      }
    }
  }
}

template <typename Px, int HW>
void emulate_cost_for(const StereoPlan& p, const StereoFrameArgs& a) {
  if constexpr (HW <= kStereoMaxHalfWidth) {
    if (p.hw == HW)
      emulate_cost_hw<Px, HW>(p, a);
    else
      emulate_cost_for<Px, HW + 1>(p, a);
  }
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

StereoPlan plan_stereo(const StereoConfig& c) {
  StereoPlan p;
  p.hw = (c.window_width - 1) / 2;
  p.hh = (c.window_height - 1) / 2;
  p.n = c.num_disparities;
  p.dmin = c.min_disparity;
  p.sign = c.reference == StereoReference::kLeft ? -1 : 1;
  p.segs = p.n >= 32 ? 1 : 32 / p.n;
  p.threads = p.n * p.segs; /* <= kStereoMaxThreads */
  p.strip = p.segs * kStereoSegCols;
  p.key_stride = p.strip + 1;
  p.ref_bytes = round_up(p.strip + 2 * p.hw, 4);
  p.oth_bytes = round_up(p.strip + 2 * p.hw + p.n - 1, 4);
  p.census = stereo_cost_uses_census(c.cost);
  p.smem_bytes =
      2 * sizeof(uint32_t) * static_cast<size_t>(p.n) * p.key_stride +
      2 * static_cast<size_t>(p.stage_bytes()) * (p.census ? 8 : 1);
  return p;
}

void plan_stereo_frame(const StereoPlan& p, bool lr_check, int width,
                       int height, int target_ctas, int band_rows,
                       StereoFrameArgs* a) {
  int cbeg = 0, cend = width;
  if (lr_check) {
    if (p.sign < 0)
      cend = width + p.n - 1;
    else
      cbeg = -(p.n - 1);
  }
  a->cbeg = cbeg;
  a->strips = (cend - cbeg + p.strip - 1) / p.strip;
  int rows = band_rows;
  if (rows <= 0) {
    const int bands = std::max(1, (target_ctas + a->strips - 1) / a->strips);
    rows = (height + bands - 1) / bands;
    /* Each band spends 2 hh warm-up rows: keep them a small share. */
    rows = std::max(rows, std::min(height, std::max(16, 8 * p.hh)));
  }
  rows = std::min(std::max(rows, 1), height);
  a->band_rows = rows;
  a->bands = (height + rows - 1) / rows;
}

cudaError_t stereo_prepare_device(const StereoPlan& p, int* ctas_per_sm) {
  const void* fn = cost_kernel_for(p);
  if (!fn) return cudaErrorInvalidValue;
  cudaError_t e =
      cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                           static_cast<int>(p.smem_bytes));
  if (e != cudaSuccess) return e;
  int n = 0;
  e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, fn, p.threads,
                                                    p.smem_bytes);
  if (e != cudaSuccess) return e;
  *ctas_per_sm = n;
  return cudaSuccess;
}

cudaError_t launch_stereo_texture(const StereoPlan& p, const StereoFrameArgs& a,
                                  cudaStream_t stream) {
  const dim3 grid((a.width + 127) / 128, a.height);
  stereo_texture_kernel<<<grid, 128, 0, stream>>>(p, a);
  return cudaGetLastError();
}

cudaError_t launch_stereo_cost(const StereoPlan& p, const StereoFrameArgs& a,
                               cudaStream_t stream) {
  const void* fn = cost_kernel_for(p);
  if (!fn) return cudaErrorInvalidValue;
  StereoPlan pc = p;
  StereoFrameArgs ac = a;
  void* args[] = {&pc, &ac};
  const dim3 grid(a.strips, a.bands);
  cudaError_t e =
      cudaLaunchKernel(fn, grid, dim3(p.threads), args, p.smem_bytes, stream);
  if (e != cudaSuccess) return e;
  return cudaGetLastError();
}

cudaError_t launch_stereo_finish(const StereoPlan& p, const StereoFrameArgs& a,
                                 cudaStream_t stream) {
  const dim3 grid((a.width + 127) / 128, a.height);
  stereo_finish_kernel<<<grid, 128, 0, stream>>>(p, a);
  return cudaGetLastError();
}

void emulate_stereo_texture(const StereoPlan& p, const StereoFrameArgs& a) {
  for (int r = 0; r < a.height; ++r)
    for (int x = 0; x < a.width; ++x) texture_row_sum(p, a, x, r);
}

void emulate_stereo_cost(const StereoPlan& p, const StereoFrameArgs& a) {
  if (p.census)
    emulate_cost_for<uint64_t, 0>(p, a);
  else
    emulate_cost_for<uint8_t, 0>(p, a);
}

void emulate_stereo_finish(const StereoPlan& p, const StereoFrameArgs& a) {
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) finish_pixel(p, a, x, y);
}

}  // namespace cuda
}  // namespace match
