/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-thread code of the block method's kernel (stereo_block.cu, whose
 * top comment has the design): __host__ __device__, so that the host
 * emulation (kernels/testing) runs it CTA by CTA on the CPU, the phases
 * between barriers in order, which the tests compare with ref/ on machines
 * without a GPU.
 */
#pragma once

#include "stereo_stages.cuh"

namespace match {
namespace cuda {
namespace block_detail {

/* Bytes of the next row each thread loads into registers before the SAD
 * work of the current row (a row is 2 (SP + 2hw) + 2 (SP + 2hw + n - 1)
 * bytes: at most 4 per thread for n >= 64); the rest is loaded after it. */
constexpr int kPrefetch = 4;

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

__host__ __device__ __forceinline__ void atomic_min_u32(uint32_t* p, uint32_t v) {
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
  __host__ __device__ uint32_t* key_buf(int b) const { return keys + b * key_words; }
  __host__ __device__ uint8_t* row_buf(int b) const { return rows + b * row_bytes; }
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
                                                   const uint8_t** r, const uint8_t** o) {
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
__host__ __device__ __forceinline__ RowStep<Px> row_step(const StereoPlan& p,
                                                         const StereoFrameArgs& a, int y,
                                                         int y0) {
  const size_t in =
      static_cast<size_t>(stage_clampi(y + p.hh, 0, a.height - 1)) * a.img_pitch;
  const size_t out =
      static_cast<size_t>(stage_clampi(y - p.hh - 1, 0, a.height - 1)) * a.img_pitch;
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
                                                   const StereoFrameArgs& a, int xs,
                                                   const RowStep<Px>& r, int i) {
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
  return row[stage_clampi(col, 0, a.width - 1)];
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
                                                      const uint8_t* rows, int tid,
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
      t.cs[u] += popcount64(ref_in[u] ^ oth_in[u]) - popcount64(ref_out[u] ^ oth_out[u]);
    return;
  }
  const uint32_t* ref_in = reinterpret_cast<const uint32_t*>(rows + rb);
  const uint32_t* ref_out = reinterpret_cast<const uint32_t*>(rows + p.ref_bytes + rb);
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
        t.cs[u] += stage_absi(ri - oth_in[u]) - stage_absi(ro - oth_out[u]);
      }
    }
  }
}

/* Block sums of the thread's S pixels -> keys[k][s S + j]. */
template <int HW>
__host__ __device__ __forceinline__ void emit_keys(const StereoPlan& p,
                                                   const SadThread<HW>& t, int tid,
                                                   uint32_t* keys) {
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
                                                    const uint32_t* keys, int xs, int y,
                                                    int xl) {
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
    if (den > 0)
      frac = stage_clampi(stage_floor_div(16 * (cm - cp) + den, 2 * den), -8, 8);
  }
  uint32_t value = static_cast<uint32_t>(kDisparityScale * (p.dmin + kb) + frac);
  if (a.uniqueness > 0) {
    uint32_t mu = 0xFFFFFFFFu; /* no key reaches it (costs < 2^24) */
    for (int j = 0; j < kb - 1; ++j) mu = minu(mu, col[j * sx]);
    for (int j = kb + 2; j < n; ++j) mu = minu(mu, col[j * sx]);
    if (mu != 0xFFFFFFFFu && 100LL * static_cast<long long>(mu >> 8) <=
                                 (100LL + a.uniqueness) * static_cast<long long>(c0))
      value = kInvalidDisparity;
  }
  a.pre[static_cast<size_t>(y) * a.width + x] = value | (static_cast<uint32_t>(kb) << 16);
}

/* Diagonal q in [0, SP + n - 1) of the strip: the other view's pixel pp and
 * the keys (x, k) of this strip with x + sign (dmin + k) = pp.
 *   sign < 0: xl = q - (n - 1) + k,  pp = xs - dmin - (n - 1) + q
 *   sign > 0: xl = q - k,            pp = xs + dmin + q
 * with k limited to 0 <= xl < SP (never empty). */
__host__ __device__ __forceinline__ void scan_diagonal(const StereoPlan& p,
                                                       const StereoFrameArgs& a,
                                                       const uint32_t* keys, int xs,
                                                       int y, int q) {
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
                                                  const uint32_t* keys, int xs, int y,
                                                  int tid) {
  for (int xl = tid; xl < p.strip; xl += p.threads) scan_pixel(p, a, keys, xs, y, xl);
  if (a.lr_max_diff >= 0) {
    const int first = p.threads > p.strip ? p.strip : 0;
    const int count = p.threads - first;
    const int nd = p.strip + p.n - 1;
    if (tid >= first)
      for (int q = tid - first; q < nd; q += count) scan_diagonal(p, a, keys, xs, y, q);
  }
}

}  // namespace block_detail
}  // namespace cuda
}  // namespace match
