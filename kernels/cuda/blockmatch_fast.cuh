/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CUDA backend's fast block searches (every SearchMethod but kFull;
 * definitions in match/blockmatch.h, reference in ref/blockmatch_ref.cpp).
 * Host-side launch interface for blockmatch_cuda.cu; the design is in
 * blockmatch_fast.cu.
 */
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "blockmatch_kernels.cuh"
#include "match/blockmatch.h"

namespace match {
namespace cuda {

/* Padding the fast searches need around the planes of a prepared frame
 * (blockmatch_kernels.cuh's PlaneGeometry takes it through a SearchPlan). */
SearchPlan fast_plan(const BlockMatchConfig& cfg);

/* One reduced level of a frame (kHierarchical, kPredictive's coarse
 * predictor): a w x h image padded by
 * pad_x columns and pad_y rows on every side with its edge pixels, so a
 * read within the padding gives the clamp-to-edge value. */
struct LevelGeometry {
  int width = 0, height = 0, pad_x = 0, pad_y = 0, pitch = 0, rows = 0;
  size_t bytes() const { return static_cast<size_t>(pitch) * rows; }
  size_t origin() const { return static_cast<size_t>(pad_y) * pitch + pad_x; }
};

/* Levels 1 .. cfg.levels - 1 of kHierarchical, 1 .. kPredictiveCoarseLevel
 * of kPredictive (none for other methods); level[k - 1] is level k.
 * Returns the count. */
int level_geometry(const BlockMatchConfig& cfg, LevelGeometry* level);

/* Builds level k + 1 from level k of one frame. `src` points at pixel
 * (0, 0) of level k (the phase-0 plane's origin for k = 0, whose padding
 * holds the clamp-to-edge values), `dst` at the start of level k + 1's
 * padded allocation, which is written whole (padding included). */
cudaError_t launch_reduce(const uint8_t* src, int src_pitch, int src_w, int src_h,
                          const LevelGeometry& dst_geom, uint8_t* dst,
                          cudaStream_t stream);

/* What one fast-search launch reads and writes. */
struct FastArgs {
  /* Level 0: the phase planes of the prepared frames (blockmatch_kernels.cuh). */
  const uint8_t* tiled;    /* phase-0 plane of the tiled frame */
  const uint8_t* searched; /* phase planes of the searched frame */
  size_t plane_bytes;
  int pitch, pad_left, pad_top;
  /* kHierarchical: levels 1 .. levels-1 of both frames, at pixel (0, 0);
   * kPredictive: levels 1 .. kPredictiveCoarseLevel. */
  const uint8_t* level_tiled[kMaxLevels];
  const uint8_t* level_searched[kMaxLevels];
  int level_pitch[kMaxLevels];
  int width, height, bw, bh, cols, rows;
  int rx, ry, subpel;
  SearchMethod method;
  int levels, predictors;
  /* Blocks of this launch: [b_first, b_first + b_count) (frame indices). */
  int b_first, b_count;
  /* kPredictive: pass 1 .. passes (match/blockmatch.h); 0 for the other
   * methods. Pass 1 reads prev, the previous frame's output field (whole
   * frame, indexed by block; null at a first estimate); pass k > 1 reads
   * in, pass k - 1's field, at the neighbours `distance` (2^(passes - k))
   * blocks away. Passes before the last write their (integer) field to
   * pass_out[b]; the last writes out/field below. */
  int pass, passes, distance;
  double predictive_stop;
  /* r of the last pass's decision cost (predictive_rate_steps(); 0: SAD). */
  int rate_steps;
  const BlockVector* prev;
  const BlockVector* in;
  BlockVector* pass_out;
  /* The result of the final pass: out[b - out_first]; and, when non-null,
   * field[b] too (kPredictive keeps it as the next frame's prev). */
  BlockVector* out;
  int out_first;
  BlockVector* field;
  double threshold;
};

cudaError_t launch_fast_search(const FastArgs& args, cudaStream_t stream);

}  // namespace cuda
}  // namespace match
