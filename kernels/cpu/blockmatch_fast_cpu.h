/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CPU backend's fast block-matching searches (every SearchMethod but
 * kFull; definitions in match/blockmatch.h, reference in
 * ref/blockmatch_ref.cpp). Internal to kernels/cpu: blockmatch_cpu.cpp owns
 * the prepared frames (FrameSlot) and calls FastSearch::estimate() instead
 * of its full search when config.method != kFull.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

#include "cpu_isa.h"
#include "internal.h"
#include "match/blockmatch.h"

namespace match {
namespace cpu {

/* An 8-bit plane whose border replicates its edge pixels: origin is pixel
 * (0, 0); reads up to the plane's padding past every edge are valid and
 * give the clamp-to-edge value. */
struct FastPlane {
  const uint8_t* origin = nullptr;
  std::ptrdiff_t stride = 0;
  int width = 0, height = 0;
};

/* The reduced levels 1 .. levels-1 of one frame for kHierarchical, 1 ..
 * kPredictiveCoarseLevel for kPredictive's coarse predictor (level
 * k + 1 = [1 3 3 1] / 8 separable, clamp-to-edge, (sum + 32) >> 6, size
 * ceil(size / 2), exactly ref's reduce()). Level k is padded by
 * ceil(range / 2^k) + 64 columns and ceil(range / 2^k) + 2 rows on every
 * side, so every candidate of level k (|d| <= ceil(range / 2^k)) plus the
 * SAD loops' 16-byte over-reads and the next reduction's 2-pixel reach
 * need no bounds checks. Empty for the other methods. */
class Pyramid {
 public:
  void allocate(const BlockMatchConfig& c);
  /* Writes frame row y (0 <= y < height) at `row`, its pixel 0, with the
   * level-0 plane's padding (pad0 bytes before it, up to the stride after). */
  using RowFill = std::function<void(int y, uint8_t* row)>;
  /* Builds every level from level 0 (the prepared frame, padded by pad0 >=
   * 64 pixels on each side, the rows above and below the frame not read).
   * With `fill`, level 0's rows are not written yet: the reduction writes
   * them through it as it goes (each row once). */
  void build(const FastPlane& level0, int pad0, int threads,
             const RowFill& fill = nullptr);
  /* Number of reduced levels (config.levels - 1, kPredictiveCoarseLevel,
   * or 0). */
  int reduced() const { return static_cast<int>(planes_.size()); }
  const FastPlane& level(int k) const { return planes_[k - 1]; } /* k >= 1 */

 private:
  std::vector<uint8_t> storage_;
  std::vector<FastPlane> planes_;
  std::vector<int> pad_x_, pad_y_;
  Isa isa_ = Isa::kScalar;       /* the reduction's loops (detect_isa()) */
  std::vector<uint16_t> ring_;   /* build(): each band's 4 rows of sums */
  std::vector<uint8_t> scratch_; /* build() with fill: a source row per band */
};

/* What the fast search reads of a prepared frame: the sub-pel phase
 * planes of blockmatch_cpu.cpp's FrameSlot (candidate (dxq, dyq) lives in
 * phases[((dyq & 3) / step) * subpel + (dxq & 3) / step] at row
 * y + floor(dyq / 4), column x + floor(dxq / 4)) and the pyramid. */
struct FastFrame {
  const uint8_t* const* phases = nullptr;
  std::ptrdiff_t stride = 0;
  const Pyramid* pyramid = nullptr;
};

/* The searches themselves, plus kPredictive's state: the vectors the
 * matcher output for the previous frame pair. */
class FastSearch {
 public:
  /* Sizes the per-block state for `c`. The previous vectors survive only
   * when the block grid, the direction and the method are unchanged (see
   * the .cpp). */
  void configure(const BlockMatchConfig& c, Isa isa);
  /* Forgets the previous frame's vectors (reset(), or a frame without an
   * estimate). */
  void forget() { have_prev_ = false; }
  /* out[c.num_blocks()] = the vectors of the pair (tiled, searched) as
   * ref::block_match gives them (with this matcher's previous output as
   * `previous` for kPredictive), then remembers them for the next pair. */
  void estimate(const FastFrame& tiled, const FastFrame& searched,
                const BlockMatchRuntime& rt, int threads, BlockVector* out);

 private:
  BlockMatchConfig cfg_;
  Isa isa_ = Isa::kScalar;
  bool have_prev_ = false;
  std::vector<BlockVector> prev_;  /* kPredictive: last output */
  std::vector<BlockVector> pass1_; /* kPredictive: the fields of passes */
  std::vector<BlockVector> pass2_; /* 1, 3 (pass1_) and 2 (pass2_) */
  std::vector<uint32_t> whole1_;   /* those fields' vectors as whole-pixel */
  std::vector<uint32_t> whole2_;   /* words (whole_key() of the .cpp) */
  std::vector<uint32_t> seen_;     /* per block: vectors it has costed */
  std::vector<uint8_t> nseen_;     /* (the .cpp's kSeen) */
};

}  // namespace cpu
}  // namespace match
