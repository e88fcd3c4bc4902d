/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Semi-global matching on the CPU in bounded memory (match/stereo.h,
 * method kSgm; Hirschmueller 2008), the same numbers as ref::stereo_match:
 * the paths are the definition's recurrences, in uint16 (stereo_sgm_cpu.h
 * says why they fit), summed in any order (integer), and WTA, sub-pixel,
 * uniqueness and the left-right check read the same S.
 *
 * Order of work, so that S is never held for the whole frame:
 * 1. Forward pass, top to bottom, over the rows above the last band: the
 *    top-down paths (T->B; with 8 paths also TL->BR and TR->BL), band by
 *    band, keeping only their state after the last row of each band (a
 *    checkpoint).
 * 2. Bands of B rows, from the bottom band up. For each: the top-down paths
 *    again from the band's checkpoint, their sum stored per row of the
 *    band, added to the two horizontal paths of each row (computed with
 *    the row's costs, which are kept for the band); the bottom-up paths
 *    (B->T, BL->TR, BR->TL), started from the state that the band below
 *    left, added; then WTA and the tests per row (D' of the left-right
 *    check needs only its row's S).
 *    The top-down paths thus run twice over most rows (11 path updates per
 *    pixel instead of 8 with 8 paths), the price of not storing S.
 * Threads: costs, horizontal paths and WTA take rows (schedule(static):
 * dynamic measured up to 5x slower with 2 threads on 2 busy cores); the
 * vertical and diagonal paths take columns [xa, xb) each and run all B
 * rows of a band without synchronising. A diagonal at (x, y) depends on (x -/+ 1, y - 1),
 * so each thread also computes a halo of B columns on each side (8 paths
 * only) from the band's exact start row: after i rows the values are exact
 * i + 1 columns less far out, so [xa, xb) is exact throughout. That costs
 * 2 B columns per thread and removes the per-row barriers (a few per band
 * instead), which matters on shared, busy cores.
 *
 * Memory (bytes; np = num_disparities rounded up to 16, ns = np + 16 the
 * slot of one pixel's path, V = 3 vertical paths each way with 8 paths, 1
 * with 4, B = band rows, T = threads, A = bytes of a per-pixel image: 1
 * for kSad (none kept) and kSobel, 4 or 8 for census):
 *   checkpoints  (ceil(H / B) - 1) V W ns 2
 *   bottom-up    2 V W ns 2         (the state carried between bands)
 *   band         B W np (2 + 1)     (S of the band, uint16; costs, uint8)
 *   per thread   2 V W ns 2 + about 18 W + 9 np + 4 dmin
 *                + (b + 2) W np with a cost window b > 1 (a ring of b rows
 *                of per-pixel costs, uint8, and the column sums, uint16)
 *   images       2 W H A            (kSobel, kCensus; StereoPixelImages)
 * with B = sqrt(2 H V ns / (3 np)) rounded, in [8, 128] (it minimises the
 * first and third terms). 1920x1080, 256 disparities, 8 paths, census
 * 9x7, T = 2: B = 48, 69 + 6 + 71 + 13 + 33 MB = 192 MB, and with the
 * cost window 3 another 5 MB; 1280x720, 128 disparities, 8 paths,
 * T = 2: 60 MB (bench_stereo prints the figure in the matcher's
 * description).
 */
#include "stereo_sgm_cpu.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "internal.h"
#include "stereo_sgm_cpu_impl.h"

namespace match {
namespace cpu {

SgmKernels sgm_kernels_sse2() { return sgm_kernel_table(); }
#if !defined(MATCH_HAVE_AVX2_TU)
SgmKernels sgm_kernels_avx2() { return sgm_kernels_sse2(); }
#endif
#if !defined(MATCH_HAVE_SGM_AVX512_TU)
SgmKernels sgm_kernels_avx512() { return sgm_kernels_avx2(); }
#endif

namespace {

/* `count` slots with their guards set once (the kernels never write
 * them). */
void sgm_slots(std::vector<uint16_t>* v, size_t count, int np, int ns) {
  v->assign(count * ns, 0);
  for (size_t s = 0; s < count; ++s) {
    (*v)[s * ns + kSgmHead - 1] = kSgmPad;
    (*v)[s * ns + kSgmHead + np] = kSgmPad;
  }
}

/* T(x) of match/stereo.h's texture test for row y: the window's column
 * sums (texture_rows of the block loop, primed for the row), then a
 * running sum along the row. */
void sgm_texture_row(const ImageView& ref, int y, int hw, int hh, uint32_t* col,
                     uint32_t* t) {
  StereoStrip s{};
  s.ref = &ref;
  s.width = ref.width;
  s.height = ref.height;
  s.hw = hw;
  s.hh = hh;
  texture_rows(s, y, true, col);
  uint32_t sum = 0;
  for (int c = 0; c < 2 * hw; ++c) sum += col[c];
  for (int x = 0; x < ref.width; ++x) {
    sum += col[x + 2 * hw];
    t[x] = sum;
    sum -= col[x];
  }
}

}  // namespace

void StereoSgm::allocate(const StereoConfig& c, int threads) {
  c_ = c;
  const int w = c.width, h = c.height;
  np_ = (c.num_disparities + 15) / 16 * 16;
  ns_ = np_ + 16;
  nv_ = c.paths == 8 ? 3 : 1;
  band_ = static_cast<int>(std::lround(std::sqrt(2.0 * h * nv_ * ns_ / (3.0 * np_))));
  band_ = std::min(h, std::max(8, std::min(128, band_)));
  nbands_ = (h + band_ - 1) / band_;
  row_slots_ = static_cast<size_t>(w) * ns_;
  auto slots = [&](std::vector<uint16_t>& v, size_t rows) {
    sgm_slots(&v, rows * w, np_, ns_);
  };
  slots(ckpt_, static_cast<size_t>(nbands_ - 1) * nv_);
  slots(up_, 2 * static_cast<size_t>(nv_));
  sband_.assign(static_cast<size_t>(band_) * w * np_, 0);
  cband_.assign(static_cast<size_t>(band_) * w * np_, 0);
  pad_.assign(np_, 0);
  smask_.assign(np_, 0);
  for (int k = c.num_disparities; k < np_; ++k) {
    pad_[k] = kSgmPad;
    smask_[k] = 0xFFFF;
  }
  zero_.assign(ns_, 0);
  p2tab_.assign(256, 0);
  threads_.clear();
  grow(threads);
}

void StereoSgm::grow(int threads) {
  const size_t old = threads_.size();
  if (static_cast<size_t>(threads) <= old) return;
  threads_.resize(threads);
  const int w = c_.width, hw = (c_.window_width - 1) / 2;
  for (size_t i = old; i < threads_.size(); ++i) {
    Thread& t = threads_[i];
    sgm_slots(&t.rows, 2 * static_cast<size_t>(nv_) * w, np_, ns_);
    t.ext.assign(w + np_, 0);
    t.ext_luma.assign(c_.cost == StereoCost::kCensusAd ? w + np_ : 0, 0);
    t.diag.assign(w + c_.min_disparity + np_, 0);
    t.tex.assign(w, 0);
    t.tex_col.assign(w + 2 * hw, 0);
    sgm_slots(&t.slots, 2, np_, ns_);
    t.kbest.assign(w, 0);
    t.box_col.assign(c_.cost_window > 1 ? static_cast<size_t>(w) * np_ : 0, 0);
    t.ring.assign(c_.cost_window > 1 ? static_cast<size_t>(c_.cost_window) * w * np_ : 0,
                  0);
    t.ring_row.assign(c_.cost_window, -1);
  }
}

size_t StereoSgm::memory_bytes() const {
  size_t b = 2 * (ckpt_.size() + up_.size() + sband_.size()) + cband_.size();
  for (const Thread& t : threads_)
    b += 2 * t.rows.size() + 8 * t.ext.size() + t.ext_luma.size() +
         4 * (t.diag.size() + t.tex.size() + t.tex_col.size()) + 2 * t.slots.size() +
         t.kbest.size() + 2 * t.box_col.size() + t.ring.size();
  return b;
}

void StereoSgm::run(const ImageView& ref, const ImageView& oth,
                    const StereoPixelImages& images, const StereoRuntime& rt,
                    const DisparityView& out, int threads, const SgmKernels& kern) {
  grow(threads);
  const int w = c_.width, h = c_.height, np = np_, ns = ns_, nv = nv_;
  const int band = band_, nbands = nbands_;
  const bool left_ref = c_.reference == StereoReference::kLeft;
  const int hw = (c_.window_width - 1) / 2, hh = (c_.window_height - 1) / 2;
  const int bytes = images.pixel_bytes();
  auto cost_fn = bytes == 1 ? kern.cost_u8 : (bytes == 4 ? kern.cost_u32 : kern.cost_u64);
  const uint16_t* p2tab = nullptr;
  if (rt.p2_edge > 0) {
    for (int g = 0; g < 256; ++g)
      p2tab_[g] =
          static_cast<uint16_t>(std::max(rt.p1, rt.p2 * rt.p2_edge / (rt.p2_edge + g)));
    p2tab = p2tab_.data();
  }
  const ImageView a_ref = images.view(0), a_oth = images.view(1);
  const size_t row_slots = row_slots_;
  const size_t band_row = static_cast<size_t>(w) * np;
  /* Halo columns of the diagonals (none with 4 paths). */
  const int halo = nv == 3 ? band : 0;
  auto ckpt = [&](int b) { return ckpt_.data() + b * nv * row_slots; };
  static const int kDx[3] = {0, 1, -1};

  MATCH_OMP(parallel num_threads(threads) if (threads > 1)) {
    int tid = 0, team = 1;
#if defined(_OPENMP)
    tid = omp_get_thread_num();
    team = omp_get_num_threads();
#endif
    Thread& th = threads_[tid];
    const int xa = static_cast<int>(static_cast<int64_t>(w) * tid / team);
    const int xb = static_cast<int>(static_cast<int64_t>(w) * (tid + 1) / team);
    const int lo = std::max(0, xa - halo), hi = std::min(w, xb + halo);

    /* The per-pixel costs c of row y into cr. */
    auto pixel_costs = [&](int y, uint8_t* cr) {
      SgmCostRow a{a_ref.row(y), a_oth.row(y),  w, c_.min_disparity, np,
                   left_ref,     th.ext.data(), cr};
      if (c_.cost == StereoCost::kCensusAd) {
        a.ref_luma = ref.row(y);
        a.oth_luma = oth.row(y);
        a.ext_luma = th.ext_luma.data();
      }
      cost_fn(a, 0, w);
    };
    /* The costs cb of rows [y0, y1) into the band buffer; with
     * `horizontal`, each row's two horizontal paths at once (while its
     * costs are in cache), their sum stored as the row's S. With a cost
     * window b > 1, the per-pixel costs of the rows [y0 - r, y1 + r)
     * (inside the image) first, then each row's mean over them. */
    const int bw = c_.cost_window, br = (bw - 1) / 2;
    auto costs = [&](int y0, int y1, bool horizontal) {
      /* The thread's ring of per-pixel cost rows: row yy in slot yy % b
       * (the rows of one window are at most b consecutive ones, so their
       * slots differ). A thread takes consecutive rows in order
       * (schedule(static)), so each row's costs are computed once, plus
       * b - 1 at the start of its share, and stay in cache for the mean. */
      std::fill(th.ring_row.begin(), th.ring_row.end(), -1);
      MATCH_OMP(for schedule(static))
      for (int y = y0; y < y1; ++y) {
        uint8_t* const cr = cband_.data() + (y - y0) * band_row;
        if (bw > 1) {
          SgmBoxRow bx{};
          for (int j = 0; j < bw; ++j) {
            const int yy = std::min(h - 1, std::max(0, y - br + j)), slot = yy % bw;
            uint8_t* const rr = th.ring.data() + slot * band_row;
            if (th.ring_row[slot] != yy) {
              pixel_costs(yy, rr);
              th.ring_row[slot] = yy;
            }
            bx.rows[j] = rr;
          }
          bx.b = bw;
          bx.width = w;
          bx.np = np;
          bx.col = th.box_col.data();
          bx.out = cr;
          kern.box(bx);
        } else {
          pixel_costs(y, cr);
        }
        if (!horizontal) continue;
        const SgmHorizontal hz{cr,
                               ref.row(y),
                               p2tab,
                               rt.p1,
                               rt.p2,
                               w,
                               c_.num_disparities,
                               np,
                               ns,
                               pad_.data(),
                               zero_.data(),
                               th.slots.data(),
                               sband_.data() + (y - y0) * band_row};
        kern.horizontal(hz);
      }
    };
    /* The paths going dy (+1 down, -1 up) over the band rows [y0, y1),
     * columns [lo, hi) in this thread's rows, from the exact full row
     * `start` (nullptr: the band touches the image border), adding their
     * L to the band's S at [xa, xb) when `sum` (acc: +=, else =). Returns
     * the last row (exact at [xa, xb)). */
    auto vertical = [&](int dy, int y0, int y1, const uint16_t* start, bool sum,
                        bool acc) -> const uint16_t* {
      const int rows = y1 - y0;
      const uint16_t* last = nullptr;
      for (int i = 0; i < rows; ++i) {
        const int y = dy > 0 ? y0 + i : y1 - 1 - i;
        uint16_t* cur = th.rows.data() + (i & 1) * nv * row_slots;
        SgmVertical a{};
        a.npaths = nv;
        for (int p = 0; p < nv; ++p) {
          a.dx[p] = kDx[p];
          a.prev[p] =
              i == 0 ? (start ? start + p * row_slots : nullptr) : last + p * row_slots;
          a.cur[p] = cur + p * row_slots;
        }
        a.prev_base = i == 0 ? 0 : lo;
        a.plo = i == 0 ? 0 : lo;
        a.phi = i == 0 ? w : hi;
        a.cur_base = lo;
        a.cost = cband_.data() + (y - y0) * band_row;
        a.ref_row = ref.row(y);
        a.ref_prev = a.prev[0] ? ref.row(y - dy) : nullptr;
        a.p2tab = p2tab;
        a.p1 = rt.p1;
        a.p2 = rt.p2;
        a.n = c_.num_disparities;
        a.np = np;
        a.ns = ns;
        a.pad = pad_.data();
        a.zero = zero_.data();
        a.accumulate = acc;
        kern.vertical(a, lo, xa);
        kern.vertical(a, xb, hi);
        a.sum = sum ? sband_.data() + (y - y0) * band_row : nullptr;
        kern.vertical(a, xa, xb);
        last = cur;
      }
      return last;
    };
    /* Columns [xa, xb) of this thread's last row into a shared row. */
    auto publish = [&](const uint16_t* last, uint16_t* dst) {
      for (int p = 0; p < nv; ++p)
        std::memcpy(dst + p * row_slots + static_cast<size_t>(xa) * ns,
                    last + p * row_slots + static_cast<size_t>(xa - lo) * ns,
                    sizeof(uint16_t) * (xb - xa) * ns);
    };

    /* 1. The forward pass: checkpoint b = the top-down state after band b. */
    for (int b = 0; b + 1 < nbands; ++b) {
      const int y0 = b * band, y1 = y0 + band;
      costs(y0, y1, false);
      if (xb > xa)
        publish(vertical(1, y0, y1, b > 0 ? ckpt(b - 1) : nullptr, false, false),
                ckpt(b));
      MATCH_OMP(barrier)
    }

    /* 2. The bands, bottom up; up_ holds the bottom-up state the band
     * below left (two rows: one read while the other is written). */
    for (int b = nbands - 1; b >= 0; --b) {
      const int y0 = b * band, y1 = std::min(h, y0 + band);
      uint16_t* const up_in = up_.data() + (b & 1) * nv * row_slots;
      uint16_t* const up_out = up_.data() + ((b & 1) ^ 1) * nv * row_slots;
      costs(y0, y1, true);
      if (xb > xa) vertical(1, y0, y1, b > 0 ? ckpt(b - 1) : nullptr, true, true);
      MATCH_OMP(barrier)
      if (xb > xa)
        publish(vertical(-1, y0, y1, b + 1 < nbands ? up_in : nullptr, true, true),
                up_out);
      MATCH_OMP(barrier)
      MATCH_OMP(for schedule(static))
      for (int y = y0; y < y1; ++y) {
        if (rt.texture_threshold > 0)
          sgm_texture_row(ref, y, hw, hh, th.tex_col.data(), th.tex.data());
        SgmWta a{};
        a.s = sband_.data() + (y - y0) * band_row;
        a.smask = smask_.data();
        a.width = w;
        a.n = c_.num_disparities;
        a.np = np;
        a.dmin = c_.min_disparity;
        a.left_ref = left_ref;
        a.subpixel = rt.subpixel;
        a.uniqueness_ratio = rt.uniqueness_ratio;
        a.lr_max_diff = rt.lr_max_diff;
        a.diag = th.diag.data();
        a.kbest = th.kbest.data();
        a.tex = rt.texture_threshold > 0 ? th.tex.data() : nullptr;
        a.texture_threshold = static_cast<uint32_t>(rt.texture_threshold);
        a.out = out.row(y);
        kern.wta(a);
      }
    }
  }
}

}  // namespace cpu
}  // namespace match
