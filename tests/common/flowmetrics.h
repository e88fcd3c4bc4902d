/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Accuracy of a block motion field against a dense ground-truth flow, with
 * the definitions of docs/accuracy.md (Metrics), so that
 * figures compare across the project:
 *
 * - The field is FORWARD: its blocks tile the earlier frame (frame10 of a
 *   Middlebury pair, frame_0002 of Sintel) and v says where the block went;
 *   the GT .flo maps the same frame forward: I0(x, y) ~ I1(x + u, y + v).
 * - Unknown GT: |u| > 1e9 or |v| > 1e9, or either is NaN/inf.
 * - dense EPE: mean over GT-known pixels x of |v_block(x) - v_gt(x)|, where
 *   v_block(x) is the vector of the block containing x.
 * - block EPE: mean over blocks of |v_block - mean GT over the block's known
 *   pixels|; a block whose known GT covers less than 50 % of its pixels is
 *   skipped (counted in blocks_skipped).
 * - bad blocks: % of the evaluated (not skipped) blocks with block EPE > 1 px.
 *
 * Partial edge blocks: when the frame size is not a multiple of the block
 * size the last column/row of blocks is clipped to the frame (the meta's
 * convention). Such blocks are ordinary blocks here: they are evaluated over
 * the pixels they contain, their 50 % rule uses that clipped area, and each
 * counts once in the block means like a full block.
 *
 * Blocks without an estimate (GST_MOTION_VECTOR_FLAG_NO_ESTIMATE): their
 * pixels are left out of dense EPE (counted in pixels_no_estimate) and, if
 * the block is not skipped, it is left out of block EPE but counted as a bad
 * block, so that a method cannot improve its bad-block rate by abstaining
 * (as a pixel without a valid estimate counts as bad in the stereo rules).
 * Suppressed and unreliable vectors are used as they are.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gst/motionvectors/motionvectors.h>

/* A dense ground-truth flow, u and v interleaved, row-major. */
struct FlowGroundTruth {
  int width = 0;
  int height = 0;
  std::vector<float> uv;
};

/* A block field in pixels (the form of GstMotionVectorsMeta, without GLib
 * ownership), so that synthetic fields (e.g. all zero) can be measured. */
struct BlockField {
  int frame_width = 0;
  int frame_height = 0;
  int block_width = 0;
  int block_height = 0;
  int columns = 0;
  int rows = 0;
  std::vector<float> dx; /* columns * rows, row-major */
  std::vector<float> dy;
  std::vector<uint8_t> estimated; /* 0 where NO_ESTIMATE */
};

struct FlowMetrics {
  double dense_epe = 0.0;           /* px */
  double block_epe = 0.0;           /* px */
  double bad_blocks_pct = 0.0;      /* % of evaluated blocks */
  long long dense_pixels = 0;       /* GT-known pixels with an estimate */
  long long pixels_unknown = 0;     /* pixels without GT */
  long long pixels_no_estimate = 0; /* GT-known pixels, no estimate */
  int blocks_total = 0;             /* columns * rows, partial ones included */
  int blocks_evaluated = 0;         /* blocks with >= 50 % known GT */
  int blocks_skipped = 0;           /* blocks with < 50 % known GT */
  int blocks_no_estimate = 0;       /* evaluated blocks without an estimate */
  int bad_blocks = 0;               /* evaluated blocks with EPE > 1 px, or
                                 * without an estimate */
};

/* True when (u, v) is a known GT vector. */
bool flow_gt_known(float u, float v);

/* Reads a Middlebury .flo file. */
bool flow_gt_load(const std::string &path, FlowGroundTruth *gt);

/* Copies a FORWARD meta into a BlockField. Fails (with *error set) for a
 * backward field or an inconsistent grid. */
bool flow_field_from_meta(const GstMotionVectorsMeta *meta, BlockField *field,
                          std::string *error);

/* The same grid with every vector zero and estimated: the "no motion"
 * baseline. */
BlockField flow_field_zero(int frame_width, int frame_height, int block_width,
                           int block_height);

/* Computes the metrics. Fails (with *error set) when the GT size differs
 * from the frame size or the field is inconsistent. Means over an empty set
 * are 0 (check the counts). */
bool flow_metrics_compute(const BlockField &field, const FlowGroundTruth &gt,
                          FlowMetrics *out, std::string *error);

/* Convenience: flow_field_from_meta + flow_metrics_compute. */
bool flow_metrics_from_meta(const GstMotionVectorsMeta *meta, const FlowGroundTruth &gt,
                            FlowMetrics *out, std::string *error);

/* Table helpers shared by the test and tools/mv-eval, so they print the
 * same layout. */
std::string flow_metrics_table_header(void);
std::string flow_metrics_table_row(const char *sequence, const char *grid,
                                   const FlowMetrics &m);
