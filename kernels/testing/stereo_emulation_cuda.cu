/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Test-only (linked by tests/kernels, never by the plugin): the CUDA
 * stereo stages' per-thread code (cuda/stereo_block.cuh,
 * cuda/stereo_cost.cuh, cuda/stereo_finish.cuh) run on the host, every
 * CTA of a launch in order and, within a CTA, every thread's phase between
 * two barriers before the next phase, on host buffers laid out as the
 * matcher's device buffers (pitched views, stale scratch). The GPU-free
 * tests compare the results with ref/. Compiled by nvcc for the kernels'
 * headers.
 */
#include "testing/stereo_emulation.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/stereo_block.cuh"
#include "cuda/stereo_cost.cuh"
#include "cuda/stereo_finish.cuh"
#include "host/stereo_postfilter.h"
#include "internal.h"

namespace match {
namespace cuda {
namespace {

int round_up(int v, int m) { return (v + m - 1) / m * m; }

/* A(x, y) of one view for kSobel (returns 0..62) or kCensus (the bit
 * string), reads clamped; `img` has `pitch` bytes per row: the definitions
 * that the per-pixel image kernel (cuda/stereo_census.cu) computes from
 * its shared-memory tiles. */
uint8_t sobel_at(const uint8_t* img, int pitch, int w, int h, int x, int y) {
  const int xl = stage_clampi(x - 1, 0, w - 1), xr = stage_clampi(x + 1, 0, w - 1);
  const uint8_t* r0 = img + static_cast<size_t>(stage_clampi(y - 1, 0, h - 1)) * pitch;
  const uint8_t* r1 = img + static_cast<size_t>(y) * pitch;
  const uint8_t* r2 = img + static_cast<size_t>(stage_clampi(y + 1, 0, h - 1)) * pitch;
  const int gx = (r0[xr] + 2 * r1[xr] + r2[xr]) - (r0[xl] + 2 * r1[xl] + r2[xl]);
  return static_cast<uint8_t>(stage_clampi(gx + 31, 0, 62));
}

uint64_t census_at(const uint8_t* img, int pitch, int w, int h, int x, int y, int hcw,
                   int hch) {
  const int c = img[static_cast<size_t>(y) * pitch + x];
  uint64_t v = 0;
  int k = 0;
  for (int j = -hch; j <= hch; ++j) {
    const uint8_t* row = img + static_cast<size_t>(stage_clampi(y + j, 0, h - 1)) * pitch;
    for (int i = -hcw; i <= hcw; ++i) {
      if (i == 0 && j == 0) continue;
      if (row[stage_clampi(x + i, 0, w - 1)] < c) v |= uint64_t{1} << k;
      ++k;
    }
  }
  return v;
}

/* The device's inputs, built on the host: both views with padded rows
 * (pitch elements, like the device's pitched images) and, for the costs
 * that have them, their per-pixel images A (feat: the left view's, then
 * the right's at half). */
struct HostStereoInputs {
  int pitch = 0;
  std::vector<uint8_t> l, r, feat;
  size_t half = 0;
  const void* a_of(bool left) const {
    return feat.empty() ? (left ? l.data() : r.data()) : feat.data() + (left ? 0 : half);
  }
};

HostStereoInputs host_stereo_inputs(const ImageView& left, const ImageView& right,
                                    const StereoConfig& config) {
  const int w = config.width, h = config.height;
  HostStereoInputs in;
  in.pitch = round_up(w, 128);
  const int pitch = in.pitch;
  in.l.assign(static_cast<size_t>(pitch) * h, 0);
  in.r.assign(static_cast<size_t>(pitch) * h, 0);
  for (int y = 0; y < h; ++y) {
    std::memcpy(&in.l[static_cast<size_t>(y) * pitch], left.row(y), w);
    std::memcpy(&in.r[static_cast<size_t>(y) * pitch], right.row(y), w);
  }
  const int fb = feature_bytes(config.cost);
  in.feat.resize(2 * static_cast<size_t>(pitch) * h * fb);
  in.half = in.feat.size() / 2;
  const int hcw = (config.census_width - 1) / 2;
  const int hch = (config.census_height - 1) / 2;
  for (int v = 0; v < 2 && fb; ++v)
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const uint8_t* img = v ? in.r.data() : in.l.data();
        const size_t o = static_cast<size_t>(y) * pitch + x;
        if (stereo_cost_uses_census(config.cost))
          reinterpret_cast<uint64_t*>(in.feat.data() + v * in.half)[o] =
              census_at(img, pitch, w, h, x, y, hcw, hch);
        else
          in.feat[v * in.half + o] = sobel_at(img, pitch, w, h, x, y);
      }
  return in;
}

/* ---- The block method (cuda/stereo_block.cu) ---- */

template <typename Px, int HW>
void emulate_block_hw(const StereoPlan& p, const StereoFrameArgs& a) {
  using namespace block_detail;
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
            reinterpret_cast<Px*>(s.row_buf(b ^ 1))[i] = stage_value(p, a, xs, next, i);
        /* __syncthreads() */
        if (y >= y0)
          for (int tid = 0; tid < T; ++tid) scan_row(p, a, s.key_buf(b), xs, y, tid);
      }
    }
  }
}

template <typename Px, int HW>
void emulate_block_for(const StereoPlan& p, const StereoFrameArgs& a) {
  if constexpr (HW <= kStereoMaxHalfWidth) {
    if (p.hw == HW)
      emulate_block_hw<Px, HW>(p, a);
    else
      emulate_block_for<Px, HW + 1>(p, a);
  }
}

void emulate_stereo_block(const StereoPlan& p, const StereoFrameArgs& a) {
  if (p.census)
    emulate_block_for<uint64_t, 0>(p, a);
  else
    emulate_block_for<uint8_t, 0>(p, a);
}

/* ---- Texture and finish (cuda/stereo_texture.cu, stereo_finish.cu) ---- */

void emulate_stereo_texture(const StereoPlan& p, const StereoFrameArgs& a) {
  for (int r = 0; r < a.height; ++r)
    for (int x = 0; x < a.width; ++x) finish_detail::texture_row_sum(p, a, x, r);
}

void emulate_stereo_finish(const StereoPlan& p, const StereoFrameArgs& a) {
  for (int y = 0; y < a.height; ++y)
    for (int x = 0; x < a.width; ++x) finish_detail::finish_pixel(p, a, x, y);
}

/* ---- SGM's fused cost and cost-window kernel (cuda/stereo_cost.cu) ---- */

template <typename F, int PER>
void emulate_box3(const SgmArgs& a) {
  using namespace sgm_detail;
  constexpr int kX = Box3Tile<PER>::kX;
  for (int y0 = 0; y0 < a.height; y0 += kBox3Band)
    for (int x0 = 0; x0 < a.width; x0 += kX)
      for (int lane = 0; lane < 32; ++lane) {
        if (a.sign < 0)
          box3_tile<F, PER, true>(a, x0, y0, lane);
        else
          box3_tile<F, PER, false>(a, x0, y0, lane);
      }
}

template <typename F>
void emulate_box3_per(int per, const SgmArgs& a) {
  switch (per) {
    case 2:
      emulate_box3<F, 2>(a);
      break;
    case 4:
      emulate_box3<F, 4>(a);
      break;
    default:
      emulate_box3<F, 8>(a);
      break;
  }
}

}  // namespace

Status emulate_stereo_match(const ImageView& left, const ImageView& right,
                            const StereoConfig& config, const StereoRuntime& rt,
                            const DisparityView& out, int band_rows) {
  Status st = config.validate();
  if (!st) return st;
  if (!(st = check_stereo_frame(config, left, right, rt, out))) return st;
  if (config.method != StereoMethod::kBlock)
    return Status(StatusCode::kUnsupported,
                  "the host emulation covers the block method only");
  const int w = config.width, h = config.height;
  const size_t px = static_cast<size_t>(w) * h;
  const HostStereoInputs in = host_stereo_inputs(left, right, config);
  /* Stale contents, as the device buffers have from earlier frames. */
  std::vector<uint32_t> pre(px, 0xDEADBEEFu), dkey(px, 0x12345678u);
  std::vector<uint16_t> tex(px, 0x5A5A), dst(px, 0x7777);
  const StereoPlan plan = plan_stereo(config);
  const bool left_ref = config.reference == StereoReference::kLeft;
  StereoFrameArgs a =
      stereo_frame_args(config, rt, in.l.data(), in.r.data(), in.pitch, pre.data(),
                        dkey.data(), tex.data(), dst.data(), w);
  /* An H100's grid (132 SMs, 2 waves of ~4 CTAs) unless forced. */
  plan_stereo_frame(plan, rt.lr_max_diff >= 0, w, h, 2 * 4 * 132, band_rows, &a);
  if (rt.lr_max_diff >= 0) std::fill(dkey.begin(), dkey.end(), 0xFFFFFFFFu);
  if (rt.texture_threshold > 0) emulate_stereo_texture(plan, a);
  if (!in.feat.empty())
    set_block_inputs(config.cost, in.a_of(left_ref), in.a_of(!left_ref), &a);
  emulate_stereo_block(plan, a);
  emulate_stereo_finish(plan, a);
  for (int y = 0; y < h; ++y)
    std::memcpy(out.row(y), &dst[static_cast<size_t>(y) * w],
                static_cast<size_t>(w) * sizeof(uint16_t));
  /* The post-filters as the matcher runs them (median on the device:
   * the same lower median). */
  host::StereoPostfilterScratch scratch;
  host::stereo_postfilter(out, left_ref ? left : right, rt, &scratch);
  return Status::ok();
}

Status emulate_sgm_costs(const ImageView& left, const ImageView& right,
                         const StereoConfig& config, std::vector<uint8_t>* cb, int* np) {
  Status st = config.validate();
  if (!st) return st;
  if (config.method != StereoMethod::kSgm || config.cost_window != 3)
    return Status(StatusCode::kUnsupported,
                  "the host emulation covers SGM's cost window 3 only");
  const HostStereoInputs in = host_stereo_inputs(left, right, config);
  const StereoRuntime rt;
  const SgmPlan plan = plan_sgm(config, rt);
  SgmArgs s = sgm_args(config, rt, plan, in.a_of(true), in.a_of(false), in.l.data(),
                       in.r.data(), in.pitch, nullptr, nullptr, nullptr);
  /* Stale contents, as the device's volume has from earlier frames. */
  cb->assign(static_cast<size_t>(config.width) * config.height * plan.np, 0xA5);
  s.cost = cb->data();
  if (stereo_cost_uses_census(config.cost))
    emulate_box3_per<uint64_t>(plan.per, s);
  else
    emulate_box3_per<uint8_t>(plan.per, s);
  *np = plan.np;
  return Status::ok();
}

}  // namespace cuda
}  // namespace match
