/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The output conversion of disparity maps on the host
 * (match/disparity_output.h): a lookup table from every 16-bit value to its
 * output bytes, built once per params, then one gather per pixel. Host code
 * of both backends: the CPU backend converts with it, the CUDA backend
 * uploads the same table (cuda/disparity_output_cuda.cu), so both give the
 * same bytes, and converts with it after a host post-filter.
 */
#pragma once

#include <cstdint>
#include <vector>

#include "match/disparity_output.h"
#include "match/status.h"

namespace match {
namespace host {

/* Every 16-bit value has an entry. */
constexpr int kDisparityOutputLutEntries = 65536;

/* Fills table[v * bpp .. v * bpp + bpp) with the output bytes of map value
 * v for every v (bpp = disparity_output_bytes_per_pixel(params.mode);
 * 16-bit outputs little-endian). params must be valid; kDisparity gives the
 * value itself. `table` holds kDisparityOutputLutEntries x bpp bytes. */
void build_disparity_output_lut(const DisparityOutputParams& params, uint8_t* table);

/* A table kept across frames: rebuilt only when the params change. */
class DisparityOutputLut {
 public:
  /* Builds the table for params (valid) unless it holds it already. The
   * first call allocates (may throw std::bad_alloc); later ones never. */
  void update(const DisparityOutputParams& params);
  bool holds(const DisparityOutputParams& params) const {
    return valid_ && params_ == params;
  }
  const uint8_t* data() const { return table_.data(); }
  const DisparityOutputParams& params() const { return params_; }

  /* Converts `in` into `out` (the same size, checked by the caller) with
   * the table of the last update(); rows in parallel on `threads` OpenMP
   * threads (0: up to 4, and one for frames under 256 K pixels: the pass
   * is bound by memory). kDisparity copies the values (little-endian). */
  void convert(const ConstDisparityView& in, const DisparityOutputView& out,
               int threads) const;

 private:
  DisparityOutputParams params_;
  bool valid_ = false;
  std::vector<uint8_t> table_;
};

/* The checked conversion: params and views, then update() and convert().
 * Never throws. */
Status convert_disparity_output(const ConstDisparityView& in,
                                const DisparityOutputParams& params,
                                const DisparityOutputView& out, DisparityOutputLut* lut,
                                int threads = 0);

}  // namespace host
}  // namespace match
