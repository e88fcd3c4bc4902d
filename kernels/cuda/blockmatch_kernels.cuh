/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Full-search block-matching kernels (see blockmatch_kernels.cu for the design).
 * Host-side launch interface shared by the CUDA matcher.
 */
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

#include "match/blockmatch.h"

namespace match {
namespace cuda {

/* Geometry of one prepared frame: `phases` sub-pel planes (subpel^2), each
 * the frame resampled at (x + fx/4, y + fy/4) with clamp-to-edge and the
 * integer bilinear rule of match/blockmatch.h, padded by pad_left/pad_top
 * and enough on the right/bottom for the search kernel's over-reads. */
struct PlaneGeometry {
  int width = 0, height = 0;     /* frame */
  int pad_left = 0, pad_top = 0; /* pixels before x = 0 / y = 0 */
  int pitch = 0;                 /* bytes, multiple of 16 */
  int rows = 0;                  /* rows per plane */
  int subpel = 1;
  int phases() const { return subpel * subpel; }
  size_t plane_bytes() const { return static_cast<size_t>(pitch) * rows; }
  size_t bytes() const { return plane_bytes() * phases(); }
};

/* Launch shape of the search kernel, chosen once per configuration and
 * device (plan_search). */
struct SearchPlan {
  int cy = 8;      /* candidate rows per thread (template: 4 or 8) */
  int mx = 1;      /* groups of 4 candidate columns per thread (1 or 2) */
  int chunk = 4;   /* block words per inner step (template: 1..4) */
  int nchunks = 1; /* chunks per block row */
  int tx = 1;      /* threads along x (4 * mx candidate columns each) */
  int ty = 1;      /* threads along y (cy candidate rows each) */
  int xbands = 1, ybands = 1;
  int region_words = 0; /* shared-memory row pitch of the search area */
  int region_rows = 0;  /* for full-height blocks */
  int block_pitch = 0;  /* words per block row in shared memory */
  size_t smem_bytes = 0;
  int right_pad = 0, bottom_pad = 0; /* what the planes need */
};

/* Per-launch parameters (passed by value). */
struct SearchArgs {
  const uint8_t* tiled;    /* phase-0 plane of the tiled frame */
  const uint8_t* searched; /* phase planes of the searched frame */
  size_t plane_bytes;
  int pitch, pad_left, pad_top;
  int width, height;
  int bw, bh, cols;
  int rx, ry, subpel;
  int mb_first;             /* first block handled by this launch */
  unsigned long long* best; /* per block, indexed from mb_first */
  uint32_t* j0;             /* per block: zero-motion cost */
};

struct FinalizeArgs {
  unsigned long long* best; /* read, then reset for the next frame */
  const uint32_t* j0;
  BlockVector* out;
  int mb_first, mb_count, cols, width, height, bw, bh;
  int rx, ry, subpel;
  double threshold;
};

/* Chooses the launch shape for `cfg` on a device whose blocks may use up to
 * `smem_limit` bytes of shared memory. False when the configuration cannot
 * fit (huge blocks with huge ranges on small-smem GPUs). */
bool plan_search(const BlockMatchConfig& cfg, size_t smem_limit, SearchPlan* plan);

/* Geometry of the planes for `cfg` and `plan`. */
PlaneGeometry plane_geometry(const BlockMatchConfig& cfg, const SearchPlan& plan);

/* Raises the dynamic shared-memory limit of every search kernel on the
 * current device. */
cudaError_t init_kernels_for_device(size_t smem_limit);

cudaError_t launch_prepare(const uint8_t* raw, int raw_pitch, const PlaneGeometry& g,
                           uint8_t* planes, cudaStream_t stream);

cudaError_t launch_search(const SearchPlan& plan, const SearchArgs& args, int mb_count,
                          cudaStream_t stream);

cudaError_t launch_finalize(const FinalizeArgs& args, cudaStream_t stream);

cudaError_t launch_fill_best(unsigned long long* best, int n, cudaStream_t stream);

}  // namespace cuda
}  // namespace match
