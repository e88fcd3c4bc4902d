/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The per-pixel images A of match/stereo.h that the kSobel and kCensus
 * costs compare, for the CPU backend: the clipped x-Sobel (uint8, 0..62)
 * and the census bit strings (uint32 when the window has at most 32 bits
 * besides the centre, else uint64), each computed row by row from clamped
 * reads exactly as the definitions say. The block and SGM loops then read
 * them in place of the luma.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "match/stereo.h"

namespace match {
namespace cpu {

/* Both views' per-pixel images for one configuration, allocated once.
 * kSad needs none (the loops read the luma); view() then returns the luma
 * itself. */
class StereoPixelImages {
 public:
  void allocate(const StereoConfig& c);
  /* Bytes per pixel of A: 1 (luma, Sobel), 4 or 8 (census). */
  int pixel_bytes() const { return bytes_; }
  size_t memory_bytes() const {
    return sizeof(uint64_t) * (buf_[0].size() + buf_[1].size());
  }
  /* Computes both images with `threads` OpenMP threads (1: none). */
  void compute(const ImageView& ref, const ImageView& oth, int threads);
  /* The image of the reference (0) or other (1) view as rows of
   * pixel_bytes() each (census rows reinterpret as uint32_t/uint64_t). */
  ImageView view(int i) const { return view_[i]; }

 private:
  StereoConfig c_;
  int bytes_ = 1;
  std::vector<uint64_t> buf_[2]; /* uint64 storage: 8-byte aligned rows */
  ImageView view_[2];
};

/* One row y of each image, from clamped reads of `img`. */
void stereo_sobel_row(const ImageView& img, int y, uint8_t* dst);
void stereo_census_row(const ImageView& img, int y, int census_width, int census_height,
                       bool bits64, void* dst);

}  // namespace cpu
}  // namespace match
