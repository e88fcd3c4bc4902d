/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Block field vs ground-truth flow metrics; definitions in flowmetrics.h.
 */
#include "flowmetrics.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "testutil.h"

bool flow_gt_known(float u, float v) {
  return std::isfinite(u) && std::isfinite(v) && std::fabs(u) <= 1e9f &&
         std::fabs(v) <= 1e9f;
}

bool flow_gt_load(const std::string &path, FlowGroundTruth *gt) {
  return test_read_flo(path, &gt->width, &gt->height, &gt->uv);
}

static bool fail_with(std::string *error, const char *msg) {
  if (error) *error = msg;
  return false;
}

static bool field_consistent(const BlockField &f) {
  if (f.frame_width <= 0 || f.frame_height <= 0 || f.block_width <= 0 ||
      f.block_height <= 0)
    return false;
  if (f.columns != (f.frame_width + f.block_width - 1) / f.block_width ||
      f.rows != (f.frame_height + f.block_height - 1) / f.block_height)
    return false;
  const size_t n = (size_t)f.columns * f.rows;
  return f.dx.size() == n && f.dy.size() == n && f.estimated.size() == n;
}

bool flow_field_from_meta(const GstMotionVectorsMeta *meta, BlockField *field,
                          std::string *error) {
  if (!meta) return fail_with(error, "no GstMotionVectorsMeta");
  if (meta->direction != GST_MOTION_VECTORS_DIRECTION_FORWARD)
    return fail_with(error,
                     "the field is not FORWARD: its blocks do not "
                     "tile the frame the ground truth starts from");
  if (meta->n_vectors != meta->columns * meta->rows || !meta->vectors)
    return fail_with(error, "n_vectors != columns * rows");

  field->frame_width = (int)meta->frame_width;
  field->frame_height = (int)meta->frame_height;
  field->block_width = (int)meta->block_width;
  field->block_height = (int)meta->block_height;
  field->columns = (int)meta->columns;
  field->rows = (int)meta->rows;
  field->dx.resize(meta->n_vectors);
  field->dy.resize(meta->n_vectors);
  field->estimated.resize(meta->n_vectors);
  for (guint i = 0; i < meta->n_vectors; i++) {
    const GstMotionVector &v = meta->vectors[i];
    const bool est = !(v.flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
    field->dx[i] = est ? v.dx : 0.0f;
    field->dy[i] = est ? v.dy : 0.0f;
    field->estimated[i] = est ? 1 : 0;
  }
  if (!field_consistent(*field))
    return fail_with(error, "the meta's grid does not tile its frame");
  return true;
}

BlockField flow_field_zero(int frame_width, int frame_height, int block_width,
                           int block_height) {
  BlockField f;
  f.frame_width = frame_width;
  f.frame_height = frame_height;
  f.block_width = block_width;
  f.block_height = block_height;
  if (block_width > 0 && block_height > 0) {
    f.columns = (frame_width + block_width - 1) / block_width;
    f.rows = (frame_height + block_height - 1) / block_height;
  }
  const size_t n = (size_t)f.columns * f.rows;
  f.dx.assign(n, 0.0f);
  f.dy.assign(n, 0.0f);
  f.estimated.assign(n, 1);
  return f;
}

bool flow_metrics_compute(const BlockField &field, const FlowGroundTruth &gt,
                          FlowMetrics *out, std::string *error) {
  if (!field_consistent(field)) return fail_with(error, "inconsistent block field");
  if (gt.width != field.frame_width || gt.height != field.frame_height ||
      gt.uv.size() != (size_t)gt.width * gt.height * 2)
    return fail_with(error, "ground truth and frame sizes differ");

  FlowMetrics m;
  double dense_sum = 0.0, block_sum = 0.0;
  m.blocks_total = field.columns * field.rows;

  for (int r = 0; r < field.rows; r++) {
    const int y0 = r * field.block_height;
    const int y1 = std::min(y0 + field.block_height, field.frame_height);
    for (int c = 0; c < field.columns; c++) {
      const int x0 = c * field.block_width;
      const int x1 = std::min(x0 + field.block_width, field.frame_width);
      const size_t bi = (size_t)r * field.columns + c;
      const bool est = field.estimated[bi] != 0;
      const double bx = field.dx[bi], by = field.dy[bi];
      long long known = 0;
      double su = 0.0, sv = 0.0;

      for (int y = y0; y < y1; y++)
        for (int x = x0; x < x1; x++) {
          const size_t p = ((size_t)y * gt.width + x) * 2;
          const float u = gt.uv[p], v = gt.uv[p + 1];
          if (!flow_gt_known(u, v)) {
            m.pixels_unknown++;
            continue;
          }
          known++;
          su += u;
          sv += v;
          if (!est) {
            m.pixels_no_estimate++;
            continue;
          }
          dense_sum += std::hypot(bx - u, by - v);
          m.dense_pixels++;
        }

      /* 50 % of the pixels the (possibly partial) block contains. */
      const long long area = (long long)(x1 - x0) * (y1 - y0);
      if (2 * known < area) {
        m.blocks_skipped++;
        continue;
      }
      m.blocks_evaluated++;
      if (!est) {
        m.blocks_no_estimate++;
        m.bad_blocks++;
        continue;
      }
      const double epe = std::hypot(bx - su / known, by - sv / known);
      block_sum += epe;
      if (epe > 1.0) m.bad_blocks++;
    }
  }

  const int blocks_measured = m.blocks_evaluated - m.blocks_no_estimate;
  m.dense_epe = m.dense_pixels ? dense_sum / m.dense_pixels : 0.0;
  m.block_epe = blocks_measured ? block_sum / blocks_measured : 0.0;
  m.bad_blocks_pct = m.blocks_evaluated ? 100.0 * m.bad_blocks / m.blocks_evaluated : 0.0;
  *out = m;
  return true;
}

bool flow_metrics_from_meta(const GstMotionVectorsMeta *meta, const FlowGroundTruth &gt,
                            FlowMetrics *out, std::string *error) {
  BlockField field;
  return flow_field_from_meta(meta, &field, error) &&
         flow_metrics_compute(field, gt, out, error);
}

std::string flow_metrics_table_header(void) {
  char line[256];
  snprintf(line, sizeof line, "%-22s %-14s %9s %9s %8s %7s %7s %9s", "sequence", "grid",
           "denseEPE", "blockEPE", "bad%", "blocks", "skipped", "pixels");
  return line;
}

std::string flow_metrics_table_row(const char *sequence, const char *grid,
                                   const FlowMetrics &m) {
  char line[256];
  snprintf(line, sizeof line, "%-22s %-14s %9.3f %9.3f %8.2f %7d %7d %9lld", sequence,
           grid, m.dense_epe, m.block_epe, m.bad_blocks_pct, m.blocks_evaluated,
           m.blocks_skipped, m.dense_pixels);
  return line;
}
