/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Semi-global matching on the CPU (match/stereo.h, method kSgm): the
 * per-row kernels, one set per instruction set (stereo_sgm_cpu_impl.h),
 * and the driver that runs them over the frame in bounded memory
 * (stereo_sgm_cpu.cpp says how and how much).
 *
 * Layout shared by the kernels:
 * - Disparities are the contiguous axis, padded to np (a multiple of 16:
 *   one AVX2 vector of uint16 per 16 disparities); lane k is d = dmin + k.
 * - A path's L of one pixel is a slot of ns = np + 16 uint16: slot[0] is
 *   min_k L (the m of the next step), slot[kSgmHead - 1] and
 *   slot[kSgmHead + np] are guards holding kSgmPad (so that L(d - 1) and
 *   L(d + 1) are plain loads at every lane), and the lanes sit at
 *   slot[kSgmHead + k]. Padding lanes k >= n hold kSgmPad or more: above
 *   every real L (<= 255 + kMaxSgmPenalty) and above m + P2, so they never
 *   win a minimum, and low enough that L + P1 stays in 16 bits.
 * - A slot of zeros stands for a predecessor outside the image: with L = 0
 *   and m = 0 the step gives L = c, as the definition asks there.
 * - Per-pixel costs c are uint8 (<= 255 for kSad, 62 Sobel, 63 census).
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "match/stereo.h"
#include "stereo_census_cpu.h"

namespace match {
namespace cpu {

constexpr int kSgmHead = 8;
constexpr uint16_t kSgmPad = 0x4000;

/* Per-pixel costs of one row for x in [x0, x1): out[x np + k] = rho(
 * A_Ref(x), A_Oth(cl(x + s (dmin + k)))) over all np lanes. */
struct SgmCostRow {
  const uint8_t* ref_row; /* A rows, uint8/uint32/uint64 per pixel */
  const uint8_t* oth_row;
  int width, dmin, np;
  bool left_ref;
  void* ext;    /* scratch: x1 - x0 + np pixels of A */
  uint8_t* out; /* the row, width x np */
  /* kCensusAd: both views' luma rows and a scratch like ext (bytes). */
  const uint8_t* ref_luma = nullptr;
  const uint8_t* oth_luma = nullptr;
  uint8_t* ext_luma = nullptr;
};

/* One row of up to three paths with dy != 0 (all dy the same), x in [x0,
 * x1): cur[p] slot x from prev[p] slot x - dx[p]. The rows hold slots for
 * a range of columns: column x at slot x - prev_base (prev, which has the
 * columns [plo, phi)) or x - cur_base (cur). A predecessor outside [plo,
 * phi) reads as the zero slot: exact outside the image, and elsewhere a
 * value the caller never uses (stereo_sgm_cpu.cpp, halos). */
struct SgmVertical {
  int npaths;
  int dx[3];
  const uint16_t* prev[3]; /* nullptr: the row y - dy is outside */
  uint16_t* cur[3];
  int prev_base, plo, phi, cur_base;
  const uint8_t* cost;    /* this row's c, width x np */
  const uint8_t* ref_row; /* Ref luma at y and y - dy (edge-aware P2) */
  const uint8_t* ref_prev;
  const uint16_t* p2tab; /* P2' by |Ref(p) - Ref(q)|; nullptr: P2 */
  int p1, p2, n, np, ns;
  const uint16_t* pad;  /* np lanes: 0 or kSgmPad */
  const uint16_t* zero; /* a slot of zeros */
  uint16_t* sum;        /* width x np: the paths' sum; nullptr: none */
  bool accumulate;      /* sum += (else sum =) */
};

/* The two horizontal paths of one row, their sum stored into sum. */
struct SgmHorizontal {
  const uint8_t* cost;
  const uint8_t* ref_row;
  const uint16_t* p2tab;
  int p1, p2, width, n, np, ns;
  const uint16_t* pad;
  const uint16_t* zero;
  uint16_t* slots; /* scratch: 2 slots */
  uint16_t* sum;
};

/* kSgm's cost_window (b > 1): one row of cb from the b rows of per-pixel
 * costs around it (rows[j], j = 0..b-1, the rows y - r + j clamped), each
 * width x np: out[x np + k] = (sum of rows[j][cl(x + i) np + k] + b b / 2)
 * / (b b). */
struct SgmBoxRow {
  const uint8_t* rows[kMaxCostWindow];
  int b, width, np;
  uint16_t* col; /* scratch: width x np, the column sums */
  uint8_t* out;
};

/* Winner-take-all, sub-pixel, uniqueness and left-right check of one row
 * of S; texture (already computed) marks pixels invalid too. */
struct SgmWta {
  const uint16_t* s;     /* width x np, padding lanes anything */
  const uint16_t* smask; /* np lanes: 0, or 0xFFFF for padding */
  int width, n, np, dmin;
  bool left_ref, subpixel;
  int uniqueness_ratio, lr_max_diff;
  uint32_t* diag;      /* scratch: width + dmin + np */
  uint8_t* kbest;      /* scratch: width (k of the winner) */
  const uint32_t* tex; /* T(x) of the row, or nullptr (off) */
  uint32_t texture_threshold;
  uint16_t* out;
};

struct SgmKernels {
  void (*cost_u8)(const SgmCostRow& a, int x0, int x1);
  void (*cost_u32)(const SgmCostRow& a, int x0, int x1);
  void (*cost_u64)(const SgmCostRow& a, int x0, int x1);
  void (*vertical)(const SgmVertical& a, int x0, int x1);
  void (*horizontal)(const SgmHorizontal& a);
  void (*wta)(const SgmWta& a);
  void (*box)(const SgmBoxRow& a);
};
SgmKernels sgm_kernels_scalar();
SgmKernels sgm_kernels_sse2();
SgmKernels sgm_kernels_avx2();
/* AVX-512BW with VPOPCNTDQ; the AVX2 kernels where that build is absent. */
SgmKernels sgm_kernels_avx512();

/* The SGM driver of one matcher: scratch sized at allocate() (grown once
 * for more threads), run() per pair. */
class StereoSgm {
 public:
  void allocate(const StereoConfig& c, int threads);
  /* Bytes of scratch for `threads` threads (the per-pixel images
   * excluded; StereoPixelImages counts those). */
  size_t memory_bytes() const;
  int band_rows() const { return band_; }
  /* ref, oth: the lumas (oth is read by kCensusAd only). */
  void run(const ImageView& ref, const ImageView& oth, const StereoPixelImages& images,
           const StereoRuntime& rt, const DisparityView& out, int threads,
           const SgmKernels& k);

 private:
  struct Thread {
    std::vector<uint16_t> rows; /* 2 x V rows of width slots: ping-pong */
    std::vector<uint64_t> ext;
    std::vector<uint8_t> ext_luma; /* kCensusAd */
    std::vector<uint32_t> diag, tex, tex_col;
    std::vector<uint16_t> slots;
    std::vector<uint8_t> kbest;
    std::vector<uint16_t> box_col; /* cost_window > 1: width x np */
    std::vector<uint8_t> ring;     /* cost_window b > 1: b rows of c */
    std::vector<int> ring_row;     /* the image row in each, -1: none */
  };
  void grow(int threads);

  StereoConfig c_;
  int np_ = 16, ns_ = 32, nv_ = 1, band_ = 16, nbands_ = 1;
  size_t row_slots_ = 0;        /* uint16 per state row: width x ns */
  std::vector<uint16_t> ckpt_;  /* (nbands - 1) x nv rows */
  std::vector<uint16_t> up_;    /* 2 x nv rows: the carried up paths */
  std::vector<uint16_t> sband_; /* band x width x np */
  std::vector<uint8_t> cband_;  /* band x width x np */
  std::vector<uint16_t> pad_, smask_, zero_, p2tab_;
  std::vector<Thread> threads_;
};

}  // namespace cpu
}  // namespace match
