/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Full-search block matching on the GPU.
 *
 * Every frame is prepared once (prepare_kernel): one padded plane per
 * sub-pel phase holding the bilinear samples of match/blockmatch.h with
 * clamp-to-edge, the same integer arithmetic as the CPU backend, so sub-pel
 * results are identical, not merely close. A sub-pel search is then an
 * integer search in each phase plane.
 *
 * search_kernel: one CTA per (block, phase, candidate band). The CTA copies
 * its block and the part of the phase plane its candidates touch into shared
 * memory. Each thread owns 4 horizontally adjacent candidates x CY
 * vertically adjacent ones. The inner loop walks the rows of the search
 * area: a row's words are read once from shared memory, shifted to the 4
 * byte alignments with PRMT, and each shifted word meets CY block rows
 * (warp-uniform broadcast reads), each through one VABSDIFF4 (packed 4-byte
 * |a-b| summed into an accumulator: 4 pixel differences per instruction, the
 * H100's fastest SAD, measured by bench/sad_peak.cu). So per 4*CY candidate
 * words the thread spends 1 load and 3 PRMT on the search area, and the
 * arithmetic runs at close to the packed-SAD peak.
 *
 * Ties follow match/blockmatch.h exactly: each candidate gets a 64-bit key
 *   cost (24 bits) | |v|^2 (22) | v_y + range_y*subpel (12) | v_x > 0 (1)
 * (v in 1/subpel pixel units), whose minimum is the lowest cost, then the
 * smallest |v|^2, then the first in raster order: for equal |v|^2 and v_y the
 * two possible v_x are +-|v_x| and the negative comes first. Keys are reduced
 * per CTA and then by atomicMin per block: a minimum over a total order, so
 * the result does not depend on scheduling. finalize_kernel decodes the key, applies the threshold test on
 * J(0) and writes match::BlockVector.
 */
#include "blockmatch_kernels.cuh"
#include "blockmatch_device.cuh"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace match {
namespace cuda {
namespace {

constexpr int kMaxThreads = 256;
constexpr int kMaxTx = 64;

__global__ void prepare_kernel(const uint8_t* __restrict__ raw, int raw_pitch, int width,
                               int height, int pad_left, int pad_top, int pitch, int rows,
                               int subpel, size_t plane_bytes,
                               uint8_t* __restrict__ planes) {
  /* One thread writes 4 bytes of one plane row. */
  const int words = pitch / 4;
  const int wx = blockIdx.x * blockDim.x + threadIdx.x;
  const int Y = blockIdx.y;
  const int phase = blockIdx.z;
  if (wx >= words) return;
  const int step = 4 / subpel;
  const int fx = (phase % subpel) * step, fy = (phase / subpel) * step;
  const int y = Y - pad_top;
  const int y0 = min(max(y, 0), height - 1), y1 = min(max(y + 1, 0), height - 1);
  const uint8_t* r0 = raw + static_cast<size_t>(y0) * raw_pitch;
  const uint8_t* r1 = raw + static_cast<size_t>(y1) * raw_pitch;
  const int wa = (4 - fx) * (4 - fy), wb = fx * (4 - fy), wc = (4 - fx) * fy,
            wd = fx * fy;
  uint32_t word = 0;
#pragma unroll
  for (int b = 0; b < 4; ++b) {
    const int x = wx * 4 + b - pad_left;
    const int x0 = min(max(x, 0), width - 1), x1 = min(max(x + 1, 0), width - 1);
    const int v = (wa * r0[x0] + wb * r0[x1] + wc * r1[x0] + wd * r1[x1] + 8) >> 4;
    word |= static_cast<uint32_t>(v) << (8 * b);
  }
  reinterpret_cast<uint32_t*>(planes + phase * plane_bytes +
                              static_cast<size_t>(Y) * pitch)[wx] = word;
}

/* One search-area row against block rows ry - c, c in [c_lo, c_hi] (all
 * of them when !RANGED). The thread's candidates are MX groups of 4 byte
 * offsets; group i meets block word t through shifted word t + i, so the
 * shifts of a row are computed once for all groups. */
template <int CY, int MX, int CHUNK, bool RANGED>
__device__ __forceinline__ void row_step(const uint32_t* __restrict__ rrow,
                                         const uint32_t* __restrict__ blk,
                                         int block_pitch, int ry, int c_lo, int c_hi,
                                         int nch, bool masked,
                                         const uint32_t (&lastmask)[CHUNK],
                                         uint32_t (&acc)[CY][MX][4]) {
  constexpr int NW = CHUNK + MX - 1; /* shifted positions per chunk */
  for (int jc = 0; jc < nch; ++jc) {
    uint32_t wv[NW + 1];
#pragma unroll
    for (int t = 0; t <= NW; ++t) wv[t] = rrow[jc * CHUNK + t];
    uint32_t sh[NW][4];
#pragma unroll
    for (int t = 0; t < NW; ++t) {
      sh[t][0] = wv[t];
      sh[t][1] = __byte_perm(wv[t], wv[t + 1], 0x4321);
      sh[t][2] = __byte_perm(wv[t], wv[t + 1], 0x5432);
      sh[t][3] = __byte_perm(wv[t], wv[t + 1], 0x6543);
    }
    uint32_t bv[CHUNK];
#pragma unroll
    for (int c = 0; c < CY; ++c) {
      if (!RANGED || (c >= c_lo && c <= c_hi)) {
        const uint32_t* brow = blk + (ry - c) * block_pitch + jc * CHUNK;
        if (CHUNK == 4) {
          const uint4 q = *reinterpret_cast<const uint4*>(brow);
          bv[0] = q.x;
          bv[1 % CHUNK] = q.y;
          bv[2 % CHUNK] = q.z;
          bv[3 % CHUNK] = q.w;
        } else if (CHUNK == 2) {
          const uint2 q = *reinterpret_cast<const uint2*>(brow);
          bv[0] = q.x;
          bv[1 % CHUNK] = q.y;
        } else {
#pragma unroll
          for (int t = 0; t < CHUNK; ++t) bv[t] = brow[t];
        }
        if (masked && jc == nch - 1) {
          /* Past the block's width the block holds zeros; the search area
           * must too, per candidate group (the word meets block word t). */
#pragma unroll
          for (int t = 0; t < CHUNK; ++t)
#pragma unroll
            for (int i = 0; i < MX; ++i)
#pragma unroll
              for (int k = 0; k < 4; ++k)
                acc[c][i][k] = sad4(sh[t + i][k] & lastmask[t], bv[t], acc[c][i][k]);
        } else {
#pragma unroll
          for (int t = 0; t < CHUNK; ++t)
#pragma unroll
            for (int i = 0; i < MX; ++i)
#pragma unroll
              for (int k = 0; k < 4; ++k)
                acc[c][i][k] = sad4(sh[t + i][k], bv[t], acc[c][i][k]);
        }
      }
    }
  }
}

template <int CY, int MX, int CHUNK>
__global__ void __launch_bounds__(kMaxThreads)
    search_kernel(SearchArgs a, int tx_n, int ty_n, int xbands, int ybands, int nchunks,
                  int region_words, int block_pitch) {
  extern __shared__ __align__(16) uint32_t smem[];
  const int mb = a.mb_first + blockIdx.x;
  int band = blockIdx.y;
  const int yb = band % ybands;
  band /= ybands;
  const int xb = band % xbands;
  const int phase = band / xbands;
  const int s = a.subpel;
  const int pxi = phase % s, pyi = phase / s;
  const int nix = 2 * a.rx + (pxi ? 0 : 1);
  const int niy = 2 * a.ry + (pyi ? 0 : 1);

  const int bcol = mb % a.cols, brow = mb / a.cols;
  const int x0 = bcol * a.bw, y0 = brow * a.bh;
  const int w = min(a.bw, a.width - x0), h = min(a.bh, a.height - y0);

  /* Column (in the padded plane) of candidate ci = 0's first pixel. */
  const int base = x0 - a.rx + a.pad_left;
  const int al = base & 3;
  const int m_first = xb * tx_n * MX;
  const int yg_first = yb * ty_n;
  if (yg_first * CY >= niy) return; /* uniform: band beyond this phase */
  if (m_first * 4 >= al + nix) return;

  const int org_col = base - al + 4 * m_first; /* multiple of 4 */
  const int org16 = org_col & ~15;
  const int mo = (org_col - org16) >> 2;
  const int org_row = y0 - a.ry + a.pad_top + yg_first * CY;
  const int rrows = ty_n * CY + h - 1;

  uint32_t* region = smem;
  uint32_t* blk = smem + static_cast<size_t>(region_words) * (ty_n * CY + a.bh - 1);
  const int nthreads = blockDim.x * blockDim.y;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;

  /* Search area: 16-byte loads, coalesced along rows. */
  {
    const uint8_t* src = a.searched + phase * a.plane_bytes +
                         static_cast<size_t>(org_row) * a.pitch + org16;
    const int v4 = region_words / 4;
    for (int i = tid; i < rrows * v4; i += nthreads) {
      const int r = i / v4, c = i - r * v4;
      const uint4 v = *reinterpret_cast<const uint4*>(
          src + static_cast<size_t>(r) * a.pitch + 16 * c);
      *reinterpret_cast<uint4*>(region + r * region_words + 4 * c) = v;
    }
  }
  /* The block, zero beyond its width (masks below skip those bytes). */
  {
    const uint8_t* src =
        a.tiled + static_cast<size_t>(y0 + a.pad_top) * a.pitch + x0 + a.pad_left;
    for (int i = tid; i < h * block_pitch; i += nthreads) {
      const int r = i / block_pitch, c = i - r * block_pitch;
      const uint8_t* p = src + static_cast<size_t>(r) * a.pitch + 4 * c;
      uint32_t word = 0;
#pragma unroll
      for (int b = 0; b < 4; ++b)
        if (4 * c + b < w) word |= static_cast<uint32_t>(p[b]) << (8 * b);
      blk[r * block_pitch + c] = word;
    }
  }
  __syncthreads();

  const int m = m_first + threadIdx.x * MX; /* first of the MX groups */
  const int yg = yg_first + threadIdx.y;
  uint32_t acc[CY][MX][4];
#pragma unroll
  for (int c = 0; c < CY; ++c)
#pragma unroll
    for (int i = 0; i < MX; ++i)
#pragma unroll
      for (int k = 0; k < 4; ++k) acc[c][i][k] = 0;

  /* Chunks this block's width needs (a partial edge block needs fewer),
   * and the byte masks of the last one's words: the block holds zeros past
   * its width, the search area must too. */
  const int nch = min(nchunks, (w + 4 * CHUNK - 1) / (4 * CHUNK));
  uint32_t lastmask[CHUNK];
#pragma unroll
  for (int t = 0; t < CHUNK; ++t) {
    const int left = w - 4 * ((nch - 1) * CHUNK + t);
    lastmask[t] = left >= 4 ? 0xffffffffu : left <= 0 ? 0u : (1u << (8 * left)) - 1u;
  }
  const bool masked = w != 4 * CHUNK * nch;

  const uint32_t* rbase =
      region + threadIdx.y * CY * region_words + mo + threadIdx.x * MX;
  /* Search-area row ry meets block row ry - c for each of the thread's CY
   * candidate rows c. With h >= CY the first and last CY - 1 rows (where
   * some c have no block row) are unrolled so that the compiler drops the
   * idle c instead of predicating them; the middle rows use every c. */
  if (h >= CY) {
#pragma unroll
    for (int ry = 0; ry < CY - 1; ++ry)
      row_step<CY, MX, CHUNK, true>(rbase + ry * region_words, blk, block_pitch, ry, 0,
                                    ry, nch, masked, lastmask, acc);
    for (int ry = CY - 1; ry < h; ++ry)
      row_step<CY, MX, CHUNK, false>(rbase + ry * region_words, blk, block_pitch, ry, 0,
                                     CY - 1, nch, masked, lastmask, acc);
#pragma unroll
    for (int e = 0; e < CY - 1; ++e)
      row_step<CY, MX, CHUNK, true>(rbase + (h + e) * region_words, blk, block_pitch,
                                    h + e, e + 1, CY - 1, nch, masked, lastmask, acc);
  } else {
    for (int ry = 0; ry < CY + h - 1; ++ry)
      row_step<CY, MX, CHUNK, true>(rbase + ry * region_words, blk, block_pitch, ry,
                                    max(0, ry - h + 1), min(CY - 1, ry), nch, masked,
                                    lastmask, acc);
  }

  /* J(0), for the threshold test: the thread holding candidate (0, 0) of
   * phase 0 stores it. */
  if (phase == 0) {
    const int u0 = a.rx + al;
    const int i0 = (u0 >> 2) - m;
    if (i0 >= 0 && i0 < MX && yg == a.ry / CY) {
      const int k0 = u0 & 3, c0 = a.ry % CY;
#pragma unroll
      for (int c = 0; c < CY; ++c)
#pragma unroll
        for (int i = 0; i < MX; ++i)
#pragma unroll
          for (int k = 0; k < 4; ++k)
            if (c == c0 && i == i0 && k == k0) a.j0[mb - a.mb_first] = acc[c][i][k];
    }
  }
  /* Best of this thread's candidates: the lowest cost (costs fit in 24
   * bits, so ~0 marks candidates outside the search window), then the
   * tie-break key of the few candidates that reach it. */
  uint32_t mc = 0xffffffffu;
#pragma unroll
  for (int c = 0; c < CY; ++c) {
    const bool row_ok = yg * CY + c < niy;
#pragma unroll
    for (int i = 0; i < MX; ++i)
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        const int ci = 4 * (m + i) + k - al;
        if (!(row_ok && ci >= 0 && ci < nix)) acc[c][i][k] = 0xffffffffu;
        mc = min(mc, acc[c][i][k]);
      }
  }
  unsigned long long best = ~0ull;
  if (mc != 0xffffffffu) {
    unsigned long long eq = 0;
#pragma unroll
    for (int c = 0; c < CY; ++c)
#pragma unroll
      for (int i = 0; i < MX; ++i)
#pragma unroll
        for (int k = 0; k < 4; ++k)
          eq |= static_cast<unsigned long long>(acc[c][i][k] == mc)
                << ((c * MX + i) * 4 + k);
    const int ry_s = a.ry * s;
    while (eq) {
      const int b = __ffsll(static_cast<long long>(eq)) - 1;
      eq &= eq - 1;
      const int c = b / (4 * MX), i = (b / 4) % MX, k = b & 3;
      const int vxs = (4 * (m + i) + k - al - a.rx) * s + pxi;
      const int vys = (yg * CY + c - a.ry) * s + pyi;
      const unsigned long long key = make_key(mc, vxs, vys, ry_s);
      best = key < best ? key : best;
    }
  }
  /* CTA minimum in shared memory (a CTA need not be whole warps), then one
   * global atomic per CTA. */
  __shared__ unsigned long long cta_best;
  if (tid == 0) cta_best = ~0ull;
  __syncthreads();
  if (best != ~0ull) atomicMin(&cta_best, best);
  __syncthreads();
  if (tid == 0 && cta_best != ~0ull) atomicMin(a.best + (mb - a.mb_first), cta_best);
}

__global__ void finalize_kernel(FinalizeArgs a) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= a.mb_count) return;
  const int mb = a.mb_first + i;
  const unsigned long long key = a.best[i];
  a.best[i] = ~0ull;
  const int x0 = (mb % a.cols) * a.bw, y0 = (mb / a.cols) * a.bh;
  const int w = min(a.bw, a.width - x0), h = min(a.bh, a.height - y0);
  const uint32_t j0 = a.j0[i];
  BlockVector v;
  if (a.threshold > 0.0 && static_cast<double>(j0) <= a.threshold * w * h) {
    v.dx = 0;
    v.dy = 0;
    v.cost = j0;
    v.flags = kFlagSuppressed;
  } else {
    const int s = a.subpel, q = kSubpelScale / s;
    const int vys = static_cast<int>((key >> 1) & 0xfffu) - a.ry * s;
    const long long norm = static_cast<long long>((key >> 13) & 0x3fffffu);
    const long long rem = norm - static_cast<long long>(vys) * vys;
    long long ax = llrint(sqrt(static_cast<double>(rem)));
    while (ax * ax > rem) --ax;
    while ((ax + 1) * (ax + 1) <= rem) ++ax;
    const int vxs = (key & 1u) ? static_cast<int>(ax) : -static_cast<int>(ax);
    v.dx = vxs * q;
    v.dy = vys * q;
    v.cost = static_cast<uint32_t>(key >> 35);
    v.flags = kFlagNone;
  }
  a.out[i] = v;
}

__global__ void fill_kernel(unsigned long long* p, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) p[i] = ~0ull;
}

template <int CY, int MX, int CHUNK>
void* kernel_ptr() {
  return reinterpret_cast<void*>(&search_kernel<CY, MX, CHUNK>);
}

void* search_kernel_for(int cy, int mx, int chunk) {
  static void* const table[2][2][4] = {
      {{kernel_ptr<4, 1, 1>(), kernel_ptr<4, 1, 2>(), kernel_ptr<4, 1, 3>(),
        kernel_ptr<4, 1, 4>()},
       {kernel_ptr<4, 2, 1>(), kernel_ptr<4, 2, 2>(), kernel_ptr<4, 2, 3>(),
        kernel_ptr<4, 2, 4>()}},
      {{kernel_ptr<8, 1, 1>(), kernel_ptr<8, 1, 2>(), kernel_ptr<8, 1, 3>(),
        kernel_ptr<8, 1, 4>()},
       {kernel_ptr<8, 2, 1>(), kernel_ptr<8, 2, 2>(), kernel_ptr<8, 2, 3>(),
        kernel_ptr<8, 2, 4>()}},
  };
  return table[cy == 8 ? 1 : 0][mx == 2 ? 1 : 0][chunk - 1];
}

int round_up(int v, int m) { return (v + m - 1) / m * m; }

}  // namespace

bool plan_search(const BlockMatchConfig& cfg, size_t smem_limit, SearchPlan* out) {
  /* Candidates per phase are at most nix x niy (phase 0). */
  const int nix = 2 * cfg.range_x + 1, niy = 2 * cfg.range_y + 1;
  const int wj = (cfg.block_width + 3) / 4, h = cfg.block_height;
  const int m_max = (3 + nix + 3) / 4;
  bool found = false;
  double best_cost = 0;
  /* Estimated issue slots per block for each shape: every launched lane
   * (idle lanes of partial warps included) runs the whole row loop; per row
   * and chunk a thread issues CHUNK + 1 loads, 3 CHUNK PRMT and, per
   * candidate row, a block load and 4 CHUNK VABSDIFF4; a CTA also loads its
   * search area. Pick the cheapest shape that fits in shared memory. */
  /* MATCH_CUDA_SHAPE=cy,mx,chunk (e.g. 8,2,4) restricts the choice, for
   * benchmarking the shapes against the model; any part may be 0 = free. */
  int force_cy = 0, force_mx = 0, force_chunk = 0;
  if (const char* env = std::getenv("MATCH_CUDA_SHAPE"))
    std::sscanf(env, "%d,%d,%d", &force_cy, &force_mx, &force_chunk);
  for (int cy : {4, 8}) {
    for (int mx : {1, 2}) {
      for (int chunk = 1; chunk <= 4; ++chunk) {
        if ((force_cy && cy != force_cy) || (force_mx && mx != force_mx) ||
            (force_chunk && chunk != force_chunk))
          continue;
        SearchPlan p;
        p.cy = cy;
        p.mx = mx;
        p.chunk = chunk;
        p.nchunks = (wj + chunk - 1) / chunk;
        p.block_pitch = round_up(p.nchunks * chunk, 4);
        const int groups = (m_max + mx - 1) / mx;
        p.tx = std::min(groups, kMaxTx);
        p.xbands = (groups + p.tx - 1) / p.tx;
        p.region_words = round_up(3 + p.tx * mx + p.nchunks * chunk + 1, 4);
        const int nyg = (niy + cy - 1) / cy;
        const double rows = h >= cy ? h : h + cy - 1;
        const double nw = chunk + mx - 1;
        const double per_row =
            p.nchunks * (4.0 * cy * chunk * mx + 3.0 * nw + nw + 1 + cy);
        for (int ty = 1; ty <= std::min(nyg, kMaxThreads / p.tx); ++ty) {
          const int region_rows = ty * cy + h - 1;
          const size_t smem = static_cast<size_t>(4) *
                              (static_cast<size_t>(p.region_words) * region_rows +
                               static_cast<size_t>(p.block_pitch) * h);
          if (smem > smem_limit) break;
          const int ybands = (nyg + ty - 1) / ty;
          const double lanes = round_up(p.tx * ty, 32);
          const double ctas = static_cast<double>(p.xbands) * ybands;
          const double fill = 2.0 * region_rows * p.region_words / 4.0 / lanes + 40;
          const double cost = ctas * lanes * (rows * per_row + fill);
          if (!found || cost < best_cost * 0.999) {
            found = true;
            best_cost = cost;
            p.ty = ty;
            p.ybands = ybands;
            p.region_rows = region_rows;
            p.smem_bytes = smem;
            *out = p;
          }
        }
      }
    }
  }
  if (!found) return false;
  SearchPlan& p = *out;
  /* Right: the last band's region reaches 4 * (xbands * tx + words) bytes
   * past the first candidate's column; below: whole bands of cy rows. */
  p.right_pad = cfg.range_x + 4 * (p.xbands * p.tx * p.mx + p.region_words) + 64;
  p.bottom_pad = cfg.range_y + p.ybands * p.ty * p.cy + 8;
  return true;
}

PlaneGeometry plane_geometry(const BlockMatchConfig& cfg, const SearchPlan& plan) {
  PlaneGeometry g;
  g.width = cfg.width;
  g.height = cfg.height;
  g.subpel = cfg.subpel;
  g.pad_left = round_up(cfg.range_x + 4, 16);
  g.pad_top = cfg.range_y + 1;
  g.pitch = round_up(g.pad_left + cfg.width + plan.right_pad, 128);
  /* A pitch that is an odd multiple of 128 bytes spreads the rows of a
   * block over the L2 slices and smem banks. */
  if ((g.pitch / 128) % 2 == 0) g.pitch += 128;
  g.rows = g.pad_top + cfg.height + plan.bottom_pad;
  return g;
}

cudaError_t init_kernels_for_device(size_t smem_limit) {
  for (int cy : {4, 8})
    for (int mx : {1, 2})
      for (int chunk = 1; chunk <= 4; ++chunk) {
        cudaError_t e = cudaFuncSetAttribute(search_kernel_for(cy, mx, chunk),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(smem_limit));
        if (e != cudaSuccess) return e;
      }
  return cudaSuccess;
}

cudaError_t launch_prepare(const uint8_t* raw, int raw_pitch, const PlaneGeometry& g,
                           uint8_t* planes, cudaStream_t stream) {
  const int words = g.pitch / 4;
  dim3 block(128);
  dim3 grid((words + 127) / 128, g.rows, g.phases());
  prepare_kernel<<<grid, block, 0, stream>>>(raw, raw_pitch, g.width, g.height,
                                             g.pad_left, g.pad_top, g.pitch, g.rows,
                                             g.subpel, g.plane_bytes(), planes);
  return cudaGetLastError();
}

cudaError_t launch_search(const SearchPlan& p, const SearchArgs& a, int mb_count,
                          cudaStream_t stream) {
  if (mb_count <= 0) return cudaSuccess;
  dim3 block(p.tx, p.ty);
  dim3 grid(mb_count, a.subpel * a.subpel * p.xbands * p.ybands);
  void* fn = search_kernel_for(p.cy, p.mx, p.chunk);
  int tx = p.tx, ty = p.ty, xb = p.xbands, yb = p.ybands, nc = p.nchunks,
      rw = p.region_words, bp = p.block_pitch;
  SearchArgs args = a;
  void* params[] = {&args, &tx, &ty, &xb, &yb, &nc, &rw, &bp};
  return cudaLaunchKernel(fn, grid, block, params, p.smem_bytes, stream);
}

cudaError_t launch_finalize(const FinalizeArgs& a, cudaStream_t stream) {
  if (a.mb_count <= 0) return cudaSuccess;
  finalize_kernel<<<(a.mb_count + 127) / 128, 128, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t launch_fill_best(unsigned long long* best, int n, cudaStream_t stream) {
  if (n <= 0) return cudaSuccess;
  fill_kernel<<<(n + 255) / 256, 256, 0, stream>>>(best, n);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
