/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Output conversion of disparity maps on the host
 * (host/disparity_output_lut.h, definitions in match/disparity_output.h). The table's formulas are the
 * ones the stereodisparity element used to build its own tables with, kept
 * operation for operation so that its outputs stay the same bytes;
 * ref/disparity_output_ref.cpp evaluates the definitions directly and the
 * tests compare the two on every value.
 */
#include "host/disparity_output_lut.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <exception>
#include <new>

#include "disparity_output_internal.h"
#include "internal.h"
#include "threads.h"

namespace match {
namespace host {
namespace {

constexpr bool kLittleEndianHost = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;

/* Pixels below which the conversion stays on one thread. */
constexpr long long kParallelPixels = 1 << 18;

void put_le16(uint8_t* p, uint16_t v) {
  p[0] = static_cast<uint8_t>(v & 0xFF);
  p[1] = static_cast<uint8_t>(v >> 8);
}

template <int kBpp>
void gather_row(const uint16_t* src, uint8_t* dst, int w, const uint8_t* table) {
  for (int x = 0; x < w; ++x) {
    const uint8_t* e = table + static_cast<size_t>(src[x]) * kBpp;
    if (kBpp == 1)
      dst[x] = e[0];
    else
      std::memcpy(dst + static_cast<size_t>(x) * kBpp, e, kBpp);
  }
}

void copy_row(const uint16_t* src, uint8_t* dst, int w) {
  if (kLittleEndianHost) {
    std::memcpy(dst, src, static_cast<size_t>(w) * sizeof(uint16_t));
    return;
  }
  for (int x = 0; x < w; ++x) put_le16(dst + 2 * x, src[x]);
}

}  // namespace

void build_disparity_output_lut(const DisparityOutputParams& p, uint8_t* table) {
  const double inv_scale = 1.0 / kDisparityScale;
  const int n = kDisparityOutputLutEntries;
  switch (p.mode) {
    case DisparityOutputMode::kGray8:
      for (int v = 0; v < n; ++v) {
        const double g = v * inv_scale * p.gray8_scale;
        table[v] =
            v == kInvalidDisparity
                ? 0
                : static_cast<uint8_t>(std::min(std::max(std::lround(g), 0L), 255L));
      }
      break;
    case DisparityOutputMode::kDepth: {
      const double k = p.focal_length * p.baseline;
      for (int v = 0; v < n; ++v) {
        if (v == 0 || v == kInvalidDisparity) {
          put_le16(table + 2 * v, 0);
          continue;
        }
        const double mm = k / (v * inv_scale);
        /* Capped before rounding: llround of a huge value is undefined. */
        const long long r = std::llround(std::min(mm, 1e9));
        put_le16(table + 2 * v,
                 static_cast<uint16_t>(std::min(std::max(r, 1LL), 65535LL)));
      }
      break;
    }
    case DisparityOutputMode::kColor:
      for (int v = 0; v < n; ++v) {
        uint8_t* rgb = table + static_cast<size_t>(v) * 3;
        if (v == kInvalidDisparity) {
          rgb[0] = rgb[1] = rgb[2] = 0;
          continue;
        }
        double t = (v * inv_scale - p.min_disparity) / p.num_disparities;
        t = std::min(std::max(t, 0.0), 1.0);
        const double c[3] = {1.5 - std::fabs(4.0 * t - 3.0),
                             1.5 - std::fabs(4.0 * t - 2.0),
                             1.5 - std::fabs(4.0 * t - 1.0)};
        for (int i = 0; i < 3; ++i)
          rgb[i] = static_cast<uint8_t>(
              std::lround(std::min(std::max(c[i], 0.0), 1.0) * 255.0));
      }
      break;
    case DisparityOutputMode::kDisparity:
    default:
      for (int v = 0; v < n; ++v) put_le16(table + 2 * v, static_cast<uint16_t>(v));
      break;
  }
}

void DisparityOutputLut::update(const DisparityOutputParams& params) {
  if (holds(params)) return;
  valid_ = false;
  /* kDisparity is a copy: no table. */
  if (params.mode != DisparityOutputMode::kDisparity) {
    /* The largest entry (colour), so that a change of mode never
     * reallocates. */
    table_.resize(static_cast<size_t>(kDisparityOutputLutEntries) * 3);
    build_disparity_output_lut(params, table_.data());
  }
  params_ = params;
  valid_ = true;
}

void DisparityOutputLut::convert(const ConstDisparityView& in,
                                 const DisparityOutputView& out, int threads) const {
  const int w = in.width, h = in.height;
  /* The default: at most 4 (host_copy_threads), and no more than the
   * stream's share of the cores (threads.h). */
  const int team = threads > 0 ? threads : std::min(4, cpu_team(0));
  const bool parallel = team > 1 && static_cast<long long>(w) * h >= kParallelPixels;
  const DisparityOutputMode mode = params_.mode;
  const uint8_t* table = table_.data();
  MATCH_OMP(parallel for schedule(static) num_threads(team) if (parallel))
  for (int y = 0; y < h; ++y) {
    const uint16_t* src = in.row(y);
    uint8_t* dst = out.row(y);
    switch (mode) {
      case DisparityOutputMode::kGray8:
        gather_row<1>(src, dst, w, table);
        break;
      case DisparityOutputMode::kDepth:
        gather_row<2>(src, dst, w, table);
        break;
      case DisparityOutputMode::kColor:
        gather_row<3>(src, dst, w, table);
        break;
      case DisparityOutputMode::kDisparity:
      default:
        copy_row(src, dst, w);
        break;
    }
  }
  (void)parallel;
}

Status convert_disparity_output(const ConstDisparityView& in,
                                const DisparityOutputParams& params,
                                const DisparityOutputView& out, DisparityOutputLut* lut,
                                int threads) {
  if (!lut) return Status(StatusCode::kInvalidArgument, "no lookup table object");
  Status st = check_disparity_input(in);
  if (!st) return st;
  if (!(st = check_disparity_output(params, out, in.width, in.height))) return st;
  try {
    lut->update(params);
  } catch (const std::bad_alloc&) {
    return Status(StatusCode::kOutOfMemory,
                  "out of memory for the disparity output table");
  } catch (const std::exception& e) {
    return Status(StatusCode::kInternal, e.what());
  }
  lut->convert(in, out, threads);
  return Status::ok();
}

}  // namespace host
}  // namespace match
