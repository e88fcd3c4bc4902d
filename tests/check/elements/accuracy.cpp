/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Accuracy of blockmatchme against ground-truth flow, with the metrics of
 * docs/accuracy.md, Metrics (tests/common/flowmetrics.h): dense EPE,
 * block EPE and bad blocks (block EPE > 1 px), frame0 -> frame1 with
 * direction=forward, block-size=16, search-range=16, backend=cpu, on the
 * integer and half-pel grids. Every figure is printed as a table and bounded
 * a little above what was measured (measured * 1.1, rounded up to 0.01 px
 * or 0.1 %), so that a regression in the search, the sub-pel interpolation,
 * the sign convention or the block layout fails.
 *
 * - Middlebury RubberWhale, Dimetrodon, Venus and Sintel alley_1 (clean)
 *   come from $MATCH_TEST_DATA (../shared/data); a missing sequence is
 *   printed as "skipped" and its case passes.
 * - A 256x176 crop of Yosemite (the rigid part, no sky) lives in
 *   tests/files and always runs.
 * - The synthetic "mysine" pair (uniform flow (1, -1)) from
 *   $MATCH_TEST_DATA must be matched exactly with a range below the
 *   pattern's period.
 * Figures and the command that reproduces them: docs/accuracy.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <cmath>
#include <string>

#include "../common/flowmetrics.h"
#include "../common/testutil.h"

struct GridBound
{
  const char * subpixel; /* blockmatchme "subpixel" nick */
  double dense_epe;      /* px */
  double block_epe;      /* px */
  double bad_pct;        /* % */
};

struct SequenceCase
{
  const char * name;
  /* Relative to $MATCH_TEST_DATA, or to tests/files when `in_test_files`. */
  const char * frame0;
  const char * frame1;
  const char * flo;
  bool in_test_files;
  int search_range;
  GridBound bounds[2];
};

/* Bounds = measured * 1.1 rounded up (0.01 px, 0.1 %). Measured with this
 * test (GRAY8 through videoconvert, 16x16 blocks, range 16 unless stated),
 * as dense EPE / block EPE / bad %:
 *   RubberWhale  integer 0.447 / 0.441 /  6.83   half 0.380 / 0.376 /  5.74
 *   Dimetrodon   integer 0.530 / 0.505 /  3.82   half 0.302 / 0.279 /  3.01
 *   Venus        integer 0.919 / 0.873 / 13.43   half 0.936 / 0.903 / 12.35
 *   alley_1      integer 0.941 / 0.894 / 14.96   half 0.692 / 0.657 / 12.78
 *   Yosemite crop integer 0.609 / 0.595 / 14.77  half 0.414 / 0.390 /  8.52
 *   mysine (range 4)     0     / 0     /  0        half 0     / 0     /  0
 * For orientation (issue text): an independent implementation (full blocks
 * only) gives dense EPE 0.44 / 0.52 / 0.88 (integer) and 0.39 / 0.30 / 0.85
 * (half) on RubberWhale / Dimetrodon / Venus; see docs/accuracy.md for why
 * Venus differs by a few hundredths. */
static const SequenceCase sequences[] = {
  { "RubberWhale", "flow/middlebury/RubberWhale/frame10.png",
      "flow/middlebury/RubberWhale/frame11.png",
      "flow/middlebury/RubberWhale/flow10.flo", false, 16,
      { { "integer", 0.50, 0.49, 7.6 }, { "half", 0.42, 0.42, 6.4 } } },
  { "Dimetrodon", "flow/middlebury/Dimetrodon/frame10.png",
      "flow/middlebury/Dimetrodon/frame11.png",
      "flow/middlebury/Dimetrodon/flow10.flo", false, 16,
      { { "integer", 0.59, 0.56, 4.3 }, { "half", 0.34, 0.31, 3.4 } } },
  { "Venus", "flow/middlebury/Venus/frame10.png",
      "flow/middlebury/Venus/frame11.png", "flow/middlebury/Venus/flow10.flo",
      false, 16,
      { { "integer", 1.02, 0.97, 14.8 }, { "half", 1.03, 1.00, 13.6 } } },
  { "sintel-alley_1-clean", "flow/sintel/alley_1/clean/frame_0002.png",
      "flow/sintel/alley_1/clean/frame_0003.png",
      "flow/sintel/alley_1/clean/gt/frame_0002.flo", false, 16,
      { { "integer", 1.04, 0.99, 16.5 }, { "half", 0.77, 0.73, 14.1 } } },
  { "yosemite-crop", "yosemite-yos9-crop.pgm", "yosemite-yos10-crop.pgm",
      "yosemite-crop.flo", true, 16,
      { { "integer", 0.67, 0.66, 16.3 }, { "half", 0.46, 0.43, 9.4 } } },
  /* A periodic pattern (period ~11 px): with range 4 there is one true
   * match and every block, border ones included, must find it exactly. */
  { "mysine-range4", "video/synthetic/mysine9.png",
      "video/synthetic/mysine10.png", "video/synthetic/correct_mysine.flo",
      false, 4, { { "integer", 0.0, 0.0, 0.0 }, { "half", 0.0, 0.0, 0.0 } } },
};

static std::string
case_path (const SequenceCase & c, const char * rel)
{
  if (c.in_test_files) {
    const std::string p = test_files_path (rel);
    return g_file_test (p.c_str (), G_FILE_TEST_EXISTS) ? p : "";
  }
  return test_data_path (rel);
}

/* Runs blockmatchme on f0 -> f1 and returns the FORWARD field of the second
 * output buffer. */
static BlockField
run_blockmatchme (const TestImage & f0, const TestImage & f1,
    const char * subpixel, int search_range, const char * method = "full")
{
  GstHarness * hrn = gst_harness_new ("blockmatchme");
  gst_util_set_object_arg (G_OBJECT (hrn->element), "method", method);
  gst_util_set_object_arg (G_OBJECT (hrn->element), "direction", "forward");
  gst_util_set_object_arg (G_OBJECT (hrn->element), "backend", "cpu");
  gst_util_set_object_arg (G_OBJECT (hrn->element), "subpixel", subpixel);
  g_object_set (hrn->element, "block-size", 16, "search-range",
      (guint) search_range, NULL);
  gchar * caps = g_strdup_printf ("video/x-raw,format=GRAY8,width=%d,"
                                  "height=%d,framerate=30/1",
      f0.width, f0.height);
  gst_harness_set_src_caps_str (hrn, caps);
  g_free (caps);

  fail_unless_equals_int (gst_harness_push (hrn,
                              test_gray_buffer (f0, f0.width, 0)),
      GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (hrn));
  fail_unless_equals_int (gst_harness_push (hrn,
                              test_gray_buffer (f1, f1.width, GST_SECOND / 30)),
      GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (hrn);
  fail_unless (out != NULL);

  GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (out);
  fail_unless (meta != NULL, "no GstMotionVectorsMeta on the second buffer");
  fail_unless_equals_uint64 (meta->reference_timestamp, 0);
  BlockField field;
  std::string error;
  fail_unless (flow_field_from_meta (meta, &field, &error), "%s",
      error.c_str ());
  fail_unless_equals_int (field.block_width, 16);
  for (guint i = 0; i < meta->n_vectors; i++)
    fail_unless_equals_int (meta->vectors[i].flags, 0);

  gst_buffer_unref (out);
  gst_harness_teardown (hrn);
  return field;
}

static FlowMetrics
compute (const BlockField & field, const FlowGroundTruth & gt)
{
  FlowMetrics m;
  std::string error;
  fail_unless (flow_metrics_compute (field, gt, &m, &error), "%s",
      error.c_str ());
  return m;
}

/* The frames and ground truth of case c; false (printed as skipped) when
 * $MATCH_TEST_DATA lacks them. */
static bool
load_case (const SequenceCase & c, TestImage * f0, TestImage * f1,
    FlowGroundTruth * gt)
{
  const std::string p0 = case_path (c, c.frame0);
  const std::string p1 = case_path (c, c.frame1);
  const std::string pf = case_path (c, c.flo);

  if (p0.empty () || p1.empty () || pf.empty ()) {
    /* tests/files is part of the tree: its cases must always run. */
    fail_if (c.in_test_files, "%s: files missing from tests/files", c.name);
    g_print ("%-22s skipped (no %s under MATCH_TEST_DATA)\n", c.name,
        p0.empty ()       ? c.frame0
            : p1.empty () ? c.frame1
                          : c.flo);
    return false;
  }
  fail_unless (test_load_gray (p0, f0), "cannot decode %s", p0.c_str ());
  fail_unless (test_load_gray (p1, f1), "cannot decode %s", p1.c_str ());
  fail_unless (flow_gt_load (pf, gt), "cannot read %s", pf.c_str ());
  fail_unless (f0->width == f1->width && f0->height == f1->height);
  return true;
}

GST_START_TEST (test_sequence_accuracy)
{
  const SequenceCase & c = sequences[__i__];
  TestImage f0, f1;
  FlowGroundTruth gt;
  if (!load_case (c, &f0, &f1, &gt))
    return;

  FlowMetrics m[2];
  BlockField fields[2];
  for (int g = 0; g < 2; g++) {
    fields[g] = run_blockmatchme (f0, f1, c.bounds[g].subpixel, c.search_range);
    m[g] = compute (fields[g], gt);
  }
  const FlowMetrics zero =
      compute (flow_field_zero (f0.width, f0.height, 16, 16), gt);

  /* Print everything first, then assert. */
  g_print ("\n%s  (blockmatchme direction=forward block-size=16 "
           "search-range=%d backend=cpu)\n%s\n",
      c.name, c.search_range, flow_metrics_table_header ().c_str ());
  for (int g = 0; g < 2; g++) {
    const std::string grid = std::string ("16x16/") + c.bounds[g].subpixel;
    g_print ("%s   (bounds %.2f %.2f %.1f)\n",
        flow_metrics_table_row (c.name, grid.c_str (), m[g]).c_str (),
        c.bounds[g].dense_epe, c.bounds[g].block_epe, c.bounds[g].bad_pct);
  }
  g_print ("%s\n",
      flow_metrics_table_row (c.name, "zero-field", zero).c_str ());

  for (int g = 0; g < 2; g++) {
    const GridBound & b = c.bounds[g];
    fail_unless (m[g].dense_pixels > 0 && m[g].blocks_evaluated > 0);
    fail_unless_equals_int (m[g].blocks_no_estimate, 0);
    fail_unless (m[g].dense_epe <= b.dense_epe,
        "%s %s: dense EPE %.4f > bound %.2f", c.name, b.subpixel,
        m[g].dense_epe, b.dense_epe);
    fail_unless (m[g].block_epe <= b.block_epe,
        "%s %s: block EPE %.4f > bound %.2f", c.name, b.subpixel,
        m[g].block_epe, b.block_epe);
    fail_unless (m[g].bad_blocks_pct <= b.bad_pct,
        "%s %s: bad blocks %.2f %% > bound %.1f %%", c.name, b.subpixel,
        m[g].bad_blocks_pct, b.bad_pct);

    /* The bounds discriminate: a search that found nothing (zero field) or
     * a flipped sign convention (negated field) would exceed them. */
    BlockField flipped = fields[g];
    for (size_t i = 0; i < flipped.dx.size (); i++) {
      flipped.dx[i] = -flipped.dx[i];
      flipped.dy[i] = -flipped.dy[i];
    }
    const FlowMetrics mf = compute (flipped, gt);
    fail_unless (mf.dense_epe > b.dense_epe && zero.dense_epe > b.dense_epe,
        "%s %s: the bound %.2f does not separate a broken search "
        "(zero %.3f, flipped %.3f)",
        c.name, b.subpixel, b.dense_epe, zero.dense_epe, mf.dense_epe);
  }
}

GST_END_TEST;

/* The fast methods (docs/blockmatchme.md *Fast searches*) on the same
 * sequences, half-pel grid, next to full search: dense EPE and bad blocks
 * printed, dense EPE bounded per method and sequence (measured * 1.1,
 * rounded up to 0.01 px; measured 2026-11-23 with this test). */
struct MethodBound
{
  const char * method;
  double dense_epe[G_N_ELEMENTS (sequences)]; /* by sequences[] index */
};

static const MethodBound method_bounds[] = {
  /* RubberWhale, Dimetrodon, Venus, alley_1, Yosemite crop, mysine */
  /* measured dense EPE, 2026-11-23 (full search: 0.380 0.302 0.936 0.692
   * 0.414 0):
   *   hierarchical 0.622 0.461 1.233 1.026 0.503 0
   *   three-step   1.129 2.388 3.095 2.162 3.127 0
   *   diamond      0.372 0.604 1.252 1.536 0.502 0
   *   hexagon      0.490 0.834 1.266 1.575 0.599 0.001
   *   predictive   0.355 0.296 0.484 0.558 0.384 0 (2026-11-27: with
   *                the coarse predictor in pass 1; 2026-11-25, before it:
   *                0.351 0.296 0.483 0.556 0.399, issue
   *                19's definition with EPZS's early termination and the
   *                last pass's rate term, passes=4 early-stop=2 rate=1;
   *                without the rate term 0.355 0.332 0.576 0.666 0.469,
   *                before the early termination 0.355 0.335 0.586 0.667
   *                0.469, and before issue 19 0.345 0.442 0.750 1.154
   *                0.479) */
  { "hierarchical", { 0.69, 0.51, 1.36, 1.13, 0.56, 0.01 } },
  { "three-step", { 1.25, 2.63, 3.41, 2.38, 3.44, 0.01 } },
  { "diamond", { 0.41, 0.67, 1.38, 1.69, 0.56, 0.01 } },
  { "hexagon", { 0.54, 0.92, 1.40, 1.74, 0.66, 0.01 } },
  { "predictive", { 0.40, 0.33, 0.54, 0.62, 0.43, 0.01 } },
};

GST_START_TEST (test_fast_method_accuracy)
{
  const SequenceCase & c = sequences[__i__];
  TestImage f0, f1;
  FlowGroundTruth gt;
  if (!load_case (c, &f0, &f1, &gt))
    return;
  const FlowMetrics full =
      compute (run_blockmatchme (f0, f1, "half", c.search_range), gt);
  g_print ("\n%s  (fast methods, 16x16/half, search-range=%d)\n%s\n%s\n",
      c.name, c.search_range, flow_metrics_table_header ().c_str (),
      flow_metrics_table_row (c.name, "full", full).c_str ());
  for (const MethodBound & b : method_bounds) {
    const FlowMetrics m =
        compute (run_blockmatchme (f0, f1, "half", c.search_range, b.method),
            gt);
    g_print ("%s   (bound %.2f)\n",
        flow_metrics_table_row (c.name, b.method, m).c_str (),
        b.dense_epe[__i__]);
    fail_unless_equals_int (m.blocks_no_estimate, 0);
    fail_unless (m.dense_pixels > 0);
    fail_unless (m.dense_epe <= b.dense_epe[__i__],
        "%s %s: dense EPE %.4f > bound %.2f", c.name, b.method, m.dense_epe,
        b.dense_epe[__i__]);
  }
}

GST_END_TEST;

/* Hand-computed example of the metric definitions: 5x3 frame, 2x2 blocks,
 * so the last column (1 px wide) and row (1 px high) are partial. */
GST_START_TEST (test_metrics_definitions)
{
  FlowGroundTruth gt;
  gt.width = 5;
  gt.height = 3;
  gt.uv.assign (5 * 3 * 2, 0.0f);
  for (int i = 0; i < 15; i++)
    gt.uv[2 * i] = 1.0f; /* (1, 0) everywhere ... */
  auto set = [&gt] (int x, int y, float u, float v) {
    gt.uv[2 * (y * 5 + x)] = u;
    gt.uv[2 * (y * 5 + x) + 1] = v;
  };
  set (0, 0, 2e9f, 0.0f);   /* ... unknown by magnitude */
  set (1, 0, NAN, NAN);     /* ... unknown as NaN */
  set (4, 2, -1e10f, 0.0f); /* block (2,1), 1x1: no known GT, skipped */
  set (2, 2, 1e10f, 0.0f);  /* block (1,1), 2x1: half known, evaluated */
  set (3, 2, 3.0f, 4.0f);

  BlockField f = flow_field_zero (5, 3, 2, 2);
  fail_unless_equals_int (f.columns, 3);
  fail_unless_equals_int (f.rows, 2);
  for (size_t i = 0; i < f.dx.size (); i++)
    f.dx[i] = 1.0f;
  f.dy[1] = 1.0f;     /* block (1,0): EPE exactly 1, not bad */
  f.estimated[2] = 0; /* block (2,0): no estimate, counts as bad */
  f.dx[4] = 0.0f;     /* block (1,1): (0,0) vs GT (3,4): EPE 5 */

  FlowMetrics m = compute (f, gt);
  fail_unless_equals_int (m.pixels_unknown, 4);
  fail_unless_equals_int (m.pixels_no_estimate, 2);
  fail_unless_equals_int (m.dense_pixels, 9);
  /* errors: 4 pixels of block (1,0) at 1 px + pixel (3,2) at 5 px */
  fail_unless (std::fabs (m.dense_epe - 9.0 / 9.0) < 1e-9);
  fail_unless_equals_int (m.blocks_total, 6);
  fail_unless_equals_int (m.blocks_skipped, 1);
  fail_unless_equals_int (m.blocks_evaluated, 5);
  fail_unless_equals_int (m.blocks_no_estimate, 1);
  /* blocks (0,0) 0, (1,0) 1, (0,1) 0, (1,1) 5 */
  fail_unless (std::fabs (m.block_epe - 6.0 / 4.0) < 1e-9);
  fail_unless_equals_int (m.bad_blocks, 2);
  fail_unless (std::fabs (m.bad_blocks_pct - 40.0) < 1e-9);

  /* The same through a GstMotionVectorsMeta. */
  GstBuffer * buf = gst_buffer_new ();
  GstMotionVectorsMeta * meta = gst_buffer_add_motion_vectors_meta (buf, 5, 3,
      2, 2, GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless (meta != NULL);
  for (guint i = 0; i < meta->n_vectors; i++) {
    meta->vectors[i].dx = f.dx[i];
    meta->vectors[i].dy = f.dy[i];
    meta->vectors[i].flags =
        f.estimated[i] ? 0 : GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
  }
  FlowMetrics mm;
  std::string error;
  fail_unless (flow_metrics_from_meta (meta, gt, &mm, &error), "%s",
      error.c_str ());
  fail_unless (mm.dense_epe == m.dense_epe && mm.block_epe == m.block_epe
      && mm.bad_blocks == m.bad_blocks);
  /* A backward field does not tile frame0: refused. */
  meta->direction = GST_MOTION_VECTORS_DIRECTION_BACKWARD;
  fail_if (flow_metrics_from_meta (meta, gt, &mm, &error));
  gst_buffer_unref (buf);

  /* GT of another size: refused. */
  gt.width = 4;
  fail_if (flow_metrics_compute (f, gt, &mm, &error));
}

GST_END_TEST;

static Suite *
accuracy_suite (void)
{
  Suite * s = suite_create ("accuracy");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_metrics_definitions);
  tcase_add_loop_test (tc, test_sequence_accuracy, 0, G_N_ELEMENTS (sequences));
  tcase_add_loop_test (tc, test_fast_method_accuracy, 0,
      G_N_ELEMENTS (sequences));
  return s;
}

GST_CHECK_MAIN (accuracy);
