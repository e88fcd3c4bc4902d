/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The pixel side of the motion decision (gst/common/mvdecision.h): which
 * pixels of a frame changed against the previous frame once the camera's
 * motion and a scene-wide brightness offset are taken out. The decision
 * reads the field alone to find moving objects; it asks this stage for the
 * changed pixels inside each object's box to shrink the box from a union
 * of blocks to the object's own pixels.
 *
 * Definitions (exact integer arithmetic: every backend gives the
 * reference's output bit for bit):
 *
 * - Working image W: the frame's luma averaged over scale x scale cells
 *   (cells clipped to the frame; rounded mean, ties up), so that the cost
 *   stays a fraction of the estimator's at large sizes.
 * - Warped previous image P: the previous working image sampled at
 *   (x + dx, y + dy), where (dx, dy) is the caller's affine motion in
 *   working pixels given in 1/65536 units (ChangeRequest::motion):
 *   dx = (m[0] + m[1] x + m[2] y) / 65536, likewise dy with m[3..5]. The
 *   position is rounded to 1/16 pixel (round half up), clamped to the
 *   image, and interpolated bilinearly with 4-bit weights (round half up).
 * - Offset b: the lower median of W - P over the image (a scene-wide
 *   brightness step or auto-exposure change moves every pixel alike).
 * - Difference d = |W - P - b|; when the camera moves (a non-zero motion)
 *   the smallest such difference over P's 3 x 3 neighbourhood (the warp is
 *   only as good as the field's grid step).
 * - Threshold t = max (min_threshold, 4 x the lower median of d + 2): the
 *   frame's own noise, whatever the camera's gain.
 * - A pixel CHANGED when d > t.
 * - For each requested box (frame pixels), the projections of its changed
 *   pixels on its working rows and columns (the box's working cells:
 *   columns floor (x / scale) .. ceil ((x + w) / scale) - 1, likewise rows).
 *
 * Objects slower than the field sees (under its grid step per frame) do
 * not change much between two frames; they do against the scene without
 * them. So the stage also keeps a BACKGROUND, for a still camera:
 *
 * - B, per working pixel, in 1/256 grey levels: W x 256 on the first
 *   analysed frame after a reset and on every frame whose motion is not
 *   zero (a moving camera has no background here); otherwise, after each
 *   analysis, B += (W x 256 - B) / 2^learn_shift (rounded toward zero)
 *   at every pixel outside the request's `protect` boxes (the caller's
 *   objects), a pixel being inside a box when its cell's first frame pixel
 *   (x scale, y scale) is. With learn_shift 6, unprotected areas (leaves,
 *   ghosts of objects that left) fade into it in about 2 s at 30 fps.
 * - B' = (B + 128) / 256 rounded down; offset bB = lower median of
 *   W - B'; dB = |W - B' - bB|; a pixel DIFFERS from the background when
 *   dB > t (the same threshold), judged before the update. With a moving
 *   camera nothing differs.
 * - Per block of the caller's grid (block_width x block_height frame
 *   pixels from (0, 0)): the number of working pixels that differ, a
 *   working pixel belonging to the block of its cell's first frame pixel.
 * - For each requested box, the projections of its differing pixels too.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "match/common.h"
#include "match/image.h"
#include "match/status.h"

namespace match {

struct ChangeConfig {
  int width = 0; /* frame size, pixels */
  int height = 0;
  int scale = 1;   /* working cell side, 1..16 */
  int history = 2; /* frames kept (pushed ahead of the analysed one + 2) */

  int work_width() const { return (width + scale - 1) / scale; }
  int work_height() const { return (height + scale - 1) / scale; }
  Status validate() const;
  bool operator==(const ChangeConfig& o) const {
    return width == o.width && height == o.height && scale == o.scale &&
           history == o.history;
  }
};

/* The working scale for a frame: cells of s x s pixels so that the working
 * image has at most about 320 x 240 x 2 pixels (1 up to 480 x 320, 2 at
 * 640 x 480, 4 at 1920 x 1080). */
int change_scale_for(int width, int height);

/* A box in frame pixels. */
struct ChangeBox {
  int x = 0, y = 0, w = 0, h = 0;
};

struct ChangeRequest {
  uint64_t frame = 0; /* the analysed frame, pushed with this number; the
                         previous one must be frame - 1, also pushed;
                         frames are analysed in increasing order */
  int64_t motion[6] = {0, 0, 0, 0, 0, 0}; /* 1/65536 working pixels */
  int min_threshold = 10;                 /* grey levels */
  const ChangeBox* protect = nullptr; /* the background does not learn */
  int n_protect = 0;
  int block_width = 16; /* the grid of block_counts, frame pixels */
  int block_height = 16;
  int learn_shift = 6; /* the background's rate: 1 / 2^learn_shift, 1..8 */
};

/* Per box, in request order: its working cell range and, one after the
 * other in `counts`, the projections of its changed pixels (rows[0 .. rows)
 * then cols[0 .. cols)) and those of its pixels that differ from the
 * background (rows, then cols). */
struct ChangeBoxCells {
  int x0 = 0, y0 = 0, cols = 0, rows = 0; /* working cells */
  size_t offset = 0;                      /* into counts */
  size_t bg_offset = 0;                   /* into counts */
};

struct ChangeResult {
  int offset = 0;          /* b */
  int noise = 0;           /* lower median of d */
  int threshold = 0;       /* t */
  int bg_offset = 0;       /* bB */
  bool background = false; /* the background was compared (still camera,
                              not its first frame) */
  std::vector<uint32_t> block_counts; /* columns x rows of the grid */
  /* project (): */
  std::vector<ChangeBoxCells> boxes;
  std::vector<uint32_t> counts;
};

class ChangeDetector {
 public:
  /* kAuto and kCpu give the CPU (OpenMP) version; kCuda is not built yet
   * (kUnsupported). */
  static Status create(Backend backend, const ChangeConfig& config,
                       std::unique_ptr<ChangeDetector>* out);
  virtual ~ChangeDetector() = default;

  const ChangeConfig& config() const { return config_; }

  /* Keeps frame number `frame` (its working image). Frames must be pushed
   * in increasing order; the oldest beyond `history` are forgotten. */
  virtual Status push(const ImageView& luma, uint64_t frame, int n_threads) = 0;
  /* Analyses request.frame against request.frame - 1 (both still kept;
   * kInvalidArgument when either is missing) and steps the background:
   * fills out's offsets, noise, threshold and block_counts. */
  virtual Status analyse(const ChangeRequest& request, ChangeResult* out,
                         int n_threads) = 0;
  /* The projections of boxes (frame pixels) on the last analysed frame:
   * fills out->boxes and out->counts; nothing else changes.
   * kInvalidArgument before any analysis. */
  virtual Status project(const ChangeBox* boxes, int n_boxes,
                         ChangeResult* out) = 0;
  /* Forgets every frame and the background. */
  virtual void reset() = 0;

 protected:
  explicit ChangeDetector(const ChangeConfig& c) : config_(c) {}
  ChangeConfig config_;
};

/* The reference: plain loops, one thread (kernels/ref/change_ref.cpp). The
 * backends are tested against it. */
std::unique_ptr<ChangeDetector> make_change_ref(const ChangeConfig& config);

}  // namespace match
