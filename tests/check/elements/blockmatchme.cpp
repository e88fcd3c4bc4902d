/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * blockmatchme element tests (GstHarness): formats, known shifts, the
 * element against the kernel reference on real frames, odd sizes, strides,
 * caps changes, flushes, property changes while playing, thresholds, the
 * first frame, backend selection and meta survival downstream; pipelining
 * (pipeline-depth: same vectors, order and timestamps as synchronous, EOS
 * drains, flush drops, latency), the device properties, and the CUDA
 * backend against the CPU (skipped without a CUDA device).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "../common/checkutil.h"
#include "../common/heldcheck.h"
#include "../common/testutil.h"
#include "match/blockmatch.h"

static GstHarness *
make_harness (const char * props, const char * format, int w, int h)
{
  /* gst_harness_new (not _parse) so that hrn->element is blockmatchme
   * itself, as the property stress threads need. */
  GstHarness * hrn = gst_harness_new ("blockmatchme");
  test_set_props (hrn->element, props);
  gchar * caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
                                  "framerate=30/1",
      format, w, h);
  gst_harness_set_src_caps_str (hrn, caps);
  g_free (caps);
  return hrn;
}

/* Pushes a buffer and returns the output (caller unrefs). */
static GstBuffer *
push_pull (GstHarness * hrn, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  return out;
}

static GstMotionVectorsMeta *
get_meta (GstBuffer * buf)
{
  GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (buf);
  fail_unless (meta != NULL, "no GstMotionVectorsMeta on the output buffer");
  return meta;
}

static void
check_no_estimate (GstMotionVectorsMeta * meta)
{
  fail_unless_equals_uint64 (meta->reference_timestamp, GST_CLOCK_TIME_NONE);
  for (guint i = 0; i < meta->n_vectors; i++) {
    fail_unless_equals_int (meta->vectors[i].flags,
        GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
    fail_unless_equals_float (meta->vectors[i].dx, 0.0f);
  }
}

/* Interior blocks (away from borders by the search range) must equal v. */
static void
check_interior (GstMotionVectorsMeta * meta, float dx, float dy, guint margin)
{
  guint checked = 0;
  for (guint r = 0; r < meta->rows; r++)
    for (guint c = 0; c < meta->columns; c++) {
      guint x, y, w, h;
      gst_motion_vectors_meta_get_block_rect (meta, r * meta->columns + c, &x,
          &y, &w, &h);
      if (x < margin || y < margin || x + w + margin > meta->frame_width
          || y + h + margin > meta->frame_height)
        continue;
      GstMotionVector * v = gst_motion_vectors_meta_get_vector (meta, c, r);
      fail_unless (v->dx == dx && v->dy == dy,
          "block (%u,%u): got (%g,%g) expected (%g,%g)", c, r, v->dx, v->dy, dx,
          dy);
      fail_unless_equals_int (v->flags, 0);
      checked++;
    }
  fail_unless (checked > 0);
}

static const char * all_formats[] = { "GRAY8", "I420", "YV12", "NV12", "NV21",
  "Y41B", "Y42B", "Y444", "RGB", "BGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGBA",
  "BGRA", "ARGB", "ABGR" };

GST_START_TEST (test_every_format)
{
  const TestImage a = test_texture (96, 64, 5);
  const TestImage b = test_shift (a, 4, -2); /* moves right 4, up 2 */

  for (const char * fmt : all_formats) {
    GstVideoFormat vf = gst_video_format_from_string (fmt);
    GstHarness * hrn = make_harness ("search-range=6", fmt, 96, 64);
    GstBuffer * o1 = push_pull (hrn, test_format_buffer (a, vf, 0));
    GstMotionVectorsMeta * m1 = get_meta (o1);
    fail_unless_equals_int (m1->columns, 6);
    fail_unless_equals_int (m1->rows, 4);
    check_no_estimate (m1);
    GstBuffer * o2 =
        push_pull (hrn, test_format_buffer (b, vf, GST_SECOND / 30));
    GstMotionVectorsMeta * m2 = get_meta (o2);
    fail_unless_equals_uint64 (m2->reference_timestamp, 0);
    fail_unless_equals_int (m2->direction,
        GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    /* backward: the block came from 4 px left and 2 px below */
    check_interior (m2, -4.0f, 2.0f, 6);
    gst_buffer_unref (o1);
    gst_buffer_unref (o2);
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

/* Unsupported formats must fail negotiation. */
GST_START_TEST (test_unsupported_format)
{
  GstElement * el = gst_element_factory_make ("blockmatchme", NULL);
  GstPad * sink = gst_element_get_static_pad (el, "sink");
  GstCaps * caps = gst_caps_from_string ("video/x-raw,format=GRAY16_LE,"
                                         "width=64,height=64,framerate=30/1");
  fail_if (gst_pad_query_accept_caps (sink, caps));
  gst_caps_unref (caps);
  caps = gst_caps_from_string ("video/x-raw,format=I420,width=64,height=64,"
                               "framerate=30/1");
  fail_unless (gst_pad_query_accept_caps (sink, caps));
  gst_caps_unref (caps);
  gst_object_unref (sink);
  gst_object_unref (el);
}

GST_END_TEST;

static bool
load_taxi (TestImage * a, TestImage * b)
{
  return test_load_pgm (test_files_path ("taxi01.pgm"), a)
      && test_load_pgm (test_files_path ("taxi02.pgm"), b);
}

/* Exact integer and half-pel shifts of a real frame, both directions. */
GST_START_TEST (test_known_shifts_real)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b), "tests/files/taxi01.pgm missing");

  for (int dir = 0; dir < 2; dir++) {
    const TestImage moved = test_shift (a, 3, 1);
    GstHarness * hrn = make_harness (dir ? "direction=forward search-range=5"
                                         : "direction=backward search-range=5",
        "GRAY8", a.width, a.height);
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
    GstBuffer * o = push_pull (hrn, test_gray_buffer (moved, a.width, 1));
    GstMotionVectorsMeta * m = get_meta (o);
    if (dir)
      check_interior (m, 3.0f, 1.0f, 5);
    else
      check_interior (m, -3.0f, -1.0f, 5);
    gst_buffer_unref (o);
    gst_harness_teardown (hrn);
  }

  /* later(x, y) = bilinear sample of earlier at (x + 0.5, y): backward
   * vectors are exactly (+0.5, 0) with zero cost on the half-pel grid. */
  TestImage half = a;
  for (int y = 0; y < a.height; y++)
    for (int x = 0; x < a.width; x++)
      half.pixels[(size_t) y * a.width + x] =
          (a.at (x, y) + a.at (MIN (x + 1, a.width - 1), y) + 1) / 2;
  GstHarness * hrn =
      make_harness ("subpixel=half search-range=3", "GRAY8", a.width, a.height);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
  GstBuffer * o = push_pull (hrn, test_gray_buffer (half, a.width, 1));
  GstMotionVectorsMeta * m = get_meta (o);
  fail_unless_equals_float (m->precision, 0.5f);
  guint exact = 0, total = 0;
  for (guint i = 0; i < m->n_vectors; i++) {
    guint x, y, w, h;
    gst_motion_vectors_meta_get_block_rect (m, i, &x, &y, &w, &h);
    if (x + w >= (guint) a.width)
      continue; /* right edge column: clamping differs */
    total++;
    /* Flat blocks (sky) may tie elsewhere; textured ones must be exact. */
    if (m->vectors[i].cost == 0 && m->vectors[i].dx == 0.5f
        && m->vectors[i].dy == 0.0f)
      exact++;
    fail_unless_equals_int (m->vectors[i].cost, 0);
  }
  /* Ties with other zero-cost candidates are only possible in flat areas. */
  fail_unless (exact * 10 >= total * 9, "%u of %u blocks at (+0.5, 0)", exact,
      total);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* The element (OpenMP backend, any stride) returns the plain reference's
 * vectors exactly on a real pair: taxi 1 -> 2, integer and half-pel. */
GST_START_TEST (test_element_equals_reference)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b));
  const int subpels[] = { 1, 2 };
  for (int subpel : subpels) {
    match::BlockMatchConfig cfg;
    cfg.width = a.width;
    cfg.height = a.height;
    cfg.block_width = 16;
    cfg.block_height = 8;
    cfg.range_x = 7;
    cfg.range_y = 5;
    cfg.subpel = subpel;
    cfg.direction = match::Direction::kBackward;
    std::vector<match::BlockVector> want (cfg.num_blocks ());
    match::ImageView va{ a.pixels.data (), a.width, a.height, a.width };
    match::ImageView vb{ b.pixels.data (), b.width, b.height, b.width };
    fail_unless (match::ref::block_match (va, vb, cfg,
        match::BlockMatchRuntime (), want.data ())
                     .is_ok ());

    gchar * props = g_strdup_printf ("block-width=16 block-height=8 "
                                     "search-range-x=7 search-range-y=5 "
                                     "subpixel=%s backend=cpu",
        subpel == 1 ? "integer" : "half");
    GstHarness * hrn = make_harness (props, "GRAY8", a.width, a.height);
    g_free (props);
    /* padded stride: 256 + 37 */
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width + 37, 0)));
    GstBuffer * o = push_pull (hrn, test_gray_buffer (b, a.width + 37, 1));
    GstMotionVectorsMeta * m = get_meta (o);
    fail_unless_equals_int (m->n_vectors, cfg.num_blocks ());
    for (guint i = 0; i < m->n_vectors; i++) {
      fail_unless_equals_float (m->vectors[i].dx, want[i].dx / 4.0f);
      fail_unless_equals_float (m->vectors[i].dy, want[i].dy / 4.0f);
      fail_unless_equals_int (m->vectors[i].cost, want[i].cost);
    }
    gst_buffer_unref (o);
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

/* Odd sizes, partial edge blocks, frames smaller than a block, and padded
 * strides giving the same field as tight ones. */
GST_START_TEST (test_odd_sizes_and_strides)
{
  const int sizes[][2] = { { 641, 479 }, { 5, 3 }, { 17, 1 }, { 1, 1 } };
  for (auto & s : sizes) {
    const TestImage a = test_texture (s[0], s[1], 7);
    const TestImage b = test_shift (a, 1, 0);
    std::vector<GstMotionVector> tight;
    const int pads[] = { 0, 13 };
    for (int pad : pads) {
      GstHarness * hrn = make_harness ("search-range=4", "GRAY8", s[0], s[1]);
      gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, s[0] + pad, 0)));
      GstBuffer * o = push_pull (hrn, test_gray_buffer (b, s[0] + pad, 1));
      GstMotionVectorsMeta * m = get_meta (o);
      fail_unless_equals_int (m->columns, (s[0] + 15) / 16);
      fail_unless_equals_int (m->rows, (s[1] + 15) / 16);
      fail_unless_equals_int (m->frame_width, s[0]);
      std::vector<GstMotionVector> v (m->vectors, m->vectors + m->n_vectors);
      for (auto & mv : v)
        fail_unless_equals_int (mv.flags, 0);
      if (pad == 0)
        tight = v;
      else
        for (size_t i = 0; i < v.size (); i++) {
          fail_unless_equals_float (v[i].dx, tight[i].dx);
          fail_unless_equals_float (v[i].dy, tight[i].dy);
          fail_unless_equals_int (v[i].cost, tight[i].cost);
        }
      gst_buffer_unref (o);
      gst_harness_teardown (hrn);
    }
  }
}

GST_END_TEST;

/* A caps change drops the reference: the first frame in the new size has
 * no estimate and the new grid; the next one is estimated again. */
GST_START_TEST (test_resolution_change)
{
  GstHarness * hrn = make_harness ("search-range=4", "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1), a2 = test_shift (a, 2, 0);
  const TestImage b = test_texture (80, 64, 2), b2 = test_shift (b, -2, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
  GstBuffer * o = push_pull (hrn, test_gray_buffer (a2, 64, 1));
  fail_unless_equals_int (get_meta (o)->columns, 4);
  fail_unless (get_meta (o)->reference_timestamp == 0);
  gst_buffer_unref (o);

  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=80,height=64,framerate=30/1");
  o = push_pull (hrn, test_gray_buffer (b, 80, 2));
  GstMotionVectorsMeta * m = get_meta (o);
  fail_unless_equals_int (m->columns, 5);
  fail_unless_equals_int (m->rows, 4);
  check_no_estimate (m);
  gst_buffer_unref (o);
  o = push_pull (hrn, test_gray_buffer (b2, 80, 3));
  check_interior (get_meta (o), 2.0f, -1.0f, 4);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* A flush drops the reference frame. */
GST_START_TEST (test_flush_resets)
{
  GstHarness * hrn = make_harness (NULL, "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
  fail_unless (gst_harness_push_event (hrn, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hrn, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (hrn, gst_event_new_segment (&seg)));
  GstBuffer * o = push_pull (hrn, test_gray_buffer (a, 64, 1));
  check_no_estimate (get_meta (o));
  gst_buffer_unref (o);
  o = push_pull (hrn, test_gray_buffer (a, 64, 2));
  fail_unless (get_meta (o)->reference_timestamp == 1);
  fail_unless_equals_int (get_meta (o)->vectors[0].flags, 0);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* Search settings changed between two frames take effect on the next frame
 * and keep the reference (no frame without estimate). */
GST_START_TEST (test_property_change_keeps_reference)
{
  GstHarness * hrn =
      make_harness ("block-size=16 search-range=4", "GRAY8", 96, 64);
  const TestImage a = test_texture (96, 64, 3), b = test_shift (a, 6, 0);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 96, 0)));
  g_object_set (hrn->element, "block-size", 8, "search-range", 8, "subpixel", 2,
      "direction", GST_MOTION_VECTORS_DIRECTION_FORWARD, NULL);
  GstBuffer * o = push_pull (hrn, test_gray_buffer (b, 96, 1));
  GstMotionVectorsMeta * m = get_meta (o);
  fail_unless_equals_int (m->block_width, 8);
  fail_unless_equals_int (m->columns, 12);
  fail_unless_equals_int (m->direction, GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless_equals_float (m->precision, 0.5f);
  check_interior (m, 6.0f, 0.0f, 8);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* Every MUTABLE_PLAYING property changed from another thread while frames
 * flow: no crash, every output still carries a consistent meta. */
GST_START_TEST (test_property_stress)
{
  GstHarness * hrn = make_harness (NULL, "I420", 128, 96);
  const TestImage a = test_texture (128, 96, 4);
  GValue v = G_VALUE_INIT;
  GstHarnessThread * threads[7];

  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 8);
  threads[0] =
      gst_harness_stress_property_start_full (hrn, "block-size", &v, 0);
  g_value_set_uint (&v, 3);
  threads[1] =
      gst_harness_stress_property_start_full (hrn, "search-range", &v, 0);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 2.0);
  threads[2] = gst_harness_stress_property_start_full (hrn, "threshold", &v, 0);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 1);
  threads[3] = gst_harness_stress_property_start_full (hrn, "n-threads", &v, 0);
  g_value_unset (&v);
  GObjectClass * klass = G_OBJECT_GET_CLASS (hrn->element);
  g_value_init (&v, g_object_class_find_property (klass, "draw")->value_type);
  g_value_set_enum (&v, 1); /* arrows */
  threads[4] = gst_harness_stress_property_start_full (hrn, "draw", &v, 0);
  g_value_unset (&v);
  g_value_init (&v,
      g_object_class_find_property (klass, "subpixel")->value_type);
  g_value_set_enum (&v, 2); /* half */
  threads[5] = gst_harness_stress_property_start_full (hrn, "subpixel", &v, 0);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 1.0);
  threads[6] = gst_harness_stress_property_start_full (hrn, "rate", &v, 0);
  g_value_unset (&v);

  for (int i = 0; i < 30; i++) {
    GstBuffer * o =
        push_pull (hrn, test_format_buffer (a, GST_VIDEO_FORMAT_I420, i));
    GstMotionVectorsMeta * m = get_meta (o);
    fail_unless_equals_int (m->columns,
        (128 + m->block_width - 1) / m->block_width);
    gst_buffer_unref (o);
  }
  for (auto t : threads)
    gst_harness_stress_thread_stop (t);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* threshold > 0: static blocks with a little noise are suppressed, moving
 * blocks are not; threshold = 0 suppresses nothing. */
GST_START_TEST (test_threshold)
{
  TestImage a = test_texture (128, 64, 9);
  TestImage b = a;
  for (int y = 0; y < 64; y++)
    for (int x = 0; x < 128; x++) {
      uint8_t * p = &b.pixels[(size_t) y * 128 + x];
      if (x < 64)
        *p = (uint8_t) CLAMP (*p + ((x * 7 + y * 3) % 3) - 1, 0, 255);
      else
        *p = a.at (MAX (x - 3, 64), y);
    }
  for (int pass = 0; pass < 2; pass++) {
    GstHarness * hrn =
        make_harness (pass ? "threshold=0" : "threshold=2.0", "GRAY8", 128, 64);
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 128, 0)));
    GstBuffer * o = push_pull (hrn, test_gray_buffer (b, 128, 1));
    GstMotionVectorsMeta * m = get_meta (o);
    for (guint r = 0; r < m->rows; r++) {
      GstMotionVector * still = gst_motion_vectors_meta_get_vector (m, 1, r);
      GstMotionVector * moving = gst_motion_vectors_meta_get_vector (m, 6, r);
      fail_unless_equals_int (still->flags,
          pass ? 0 : GST_MOTION_VECTOR_FLAG_SUPPRESSED);
      fail_unless_equals_float (still->dx, 0.0f);
      fail_unless_equals_int (moving->flags, 0);
      fail_unless_equals_float (moving->dx, -3.0f);
    }
    gst_buffer_unref (o);
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

/* backend=cuda without a usable CUDA backend must fail at start with a
 * clear RESOURCE/NOT_FOUND error; backend=auto must run on the CPU. */
static GstMessage *
run_pipeline (const char * desc)
{
  return test_run_launch (desc, 10 * GST_SECOND);
}

GST_START_TEST (test_backend_cuda_unavailable)
{
  if (match::backend_available (match::Backend::kCuda))
    return; /* covered by the CUDA suite */
  GstMessage * msg = run_pipeline (
      "videotestsrc num-buffers=2 ! "
      "video/x-raw,width=64,height=48 ! blockmatchme backend=cuda ! fakesink");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  GError * err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (
      g_error_matches (err, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_NOT_FOUND));
  fail_unless (strstr (err->message, "cuda") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  msg = run_pipeline (
      "videotestsrc num-buffers=3 ! "
      "video/x-raw,width=64,height=48 ! blockmatchme backend=auto ! fakesink");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
}

GST_END_TEST;

/* The meta survives a format conversion downstream (same frame size). */
GST_START_TEST (test_meta_survives_videoconvert)
{
  GstElement * pipe = gst_parse_launch (
      "videotestsrc num-buffers=3 "
      "pattern=ball ! video/x-raw,format=I420,width=96,height=64 ! "
      "blockmatchme ! videoconvert ! video/x-raw,format=BGRx ! "
      "appsink name=sink sync=false",
      NULL);
  fail_unless (pipe != NULL);
  GstElement * sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  int with_meta = 0;
  for (int i = 0; i < 3; i++) {
    GstSample * s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL);
    GstMotionVectorsMeta * m =
        gst_buffer_get_motion_vectors_meta (gst_sample_get_buffer (s));
    if (m && m->columns == 6 && m->rows == 4)
      with_meta++;
    gst_sample_unref (s);
  }
  fail_unless_equals_int (with_meta, 3);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}

GST_END_TEST;

/* ---- Pipelining (pipeline-depth) ---------------------------------------- */

/* A real-frame sequence: the taxi pair, shifted copies, and a DISCONT on
 * frame `discont` (0 = none) which drains held frames and drops the
 * reference. */
static std::vector<TestImage>
taxi_sequence ()
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b), "tests/files/taxi01.pgm missing");
  return { a, b, test_shift (b, 2, 1), a, test_shift (a, -3, 2), b,
    test_shift (b, 1, -1), a };
}

static const guint kTaxiDiscont = 6;

static RunResult
run_sequence (const char * props, const std::vector<TestImage> & frames,
    guint discont)
{
  return test_run_sequence ("blockmatchme", props, frames, discont);
}

/* pipeline-depth 1..3 on the CPU: every buffer leaves `depth` frames late
 * with the vectors, timestamps and (drawn) pixels of the synchronous run,
 * across a DISCONT; integer and half-pel grids. */
GST_START_TEST (test_pipeline_depth_same_vectors)
{
  test_held_same_vectors ("blockmatchme",
      { "backend=cpu search-range=6 block-width=16 block-height=8",
          "backend=cpu subpixel=half search-range=3 draw=arrows" },
      taxi_sequence (), kTaxiDiscont);
}

GST_END_TEST;

/* The shared pipeline-depth tests (tests/common/heldcheck.h). */
static void
check_shift (GstMotionVectorsMeta * meta, float dx, float dy)
{
  check_interior (meta, dx, dy, 16);
}

static const HeldCase kHeld = { "blockmatchme", "", 64, 48, get_meta,
  check_no_estimate, check_shift };

GST_START_TEST (test_pipeline_eos_drains)
{
  test_held_eos_drains (kHeld);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_flush_drops)
{
  test_held_flush_drops (kHeld);
}

GST_END_TEST;

/* The same with the decision on: with the CUDA backend (backend=auto on a
 * GPU host), and on the CPU with GST_MATCH_DECIDE_BEHIND set,
 * pipeline-depth >= 1 decides behind the matcher (gstmatchfilter.cpp), and
 * buffers, events, drains and flushes must not notice. */
static const HeldCase kHeldDecided = { "blockmatchme",
  "regions=true events=true", 64, 48, get_meta, check_no_estimate,
  check_shift };

/* Runs `check` with the CPU backend deciding behind the matcher. */
template <class Check>
static void
deciding_behind (Check check)
{
  g_setenv ("GST_MATCH_DECIDE_BEHIND", "1", TRUE);
  check ();
  g_unsetenv ("GST_MATCH_DECIDE_BEHIND");
}

GST_START_TEST (test_pipeline_decided_same_vectors)
{
  deciding_behind ([] {
    test_held_same_vectors ("blockmatchme",
        { "search-range=6 regions=true events=true draw=boxes" },
        taxi_sequence (), kTaxiDiscont);
  });
}

GST_END_TEST;

GST_START_TEST (test_pipeline_decided_eos_drains)
{
  deciding_behind ([] { test_held_eos_drains (kHeldDecided); });
}

GST_END_TEST;

GST_START_TEST (test_pipeline_decided_flush_drops)
{
  deciding_behind ([] { test_held_flush_drops (kHeldDecided); });
}

GST_END_TEST;

GST_START_TEST (test_pipeline_decided_depth_change)
{
  deciding_behind ([] { test_held_depth_change (kHeldDecided); });
}

GST_END_TEST;

GST_START_TEST (test_pipeline_depth_change)
{
  test_held_depth_change (kHeld);
}

GST_END_TEST;

/* While frames are held, a caps change and a search-setting change first
 * push the held frames with the results they were computed with; the
 * setting change keeps the reference, the caps change drops it. */
GST_START_TEST (test_pipeline_caps_and_settings_change)
{
  GstHarness * hrn =
      make_harness ("pipeline-depth=2 search-range=4", "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1), a2 = test_shift (a, 2, 0);
  const TestImage b = test_texture (80, 64, 2), b2 = test_shift (b, -2, 1);
  const TestImage b3 = test_shift (b2, 0, 2);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (a, 64, 0)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (a2, 64, 1)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 0);

  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=80,height=64,framerate=30/1");
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 2);
  GstBuffer * o = gst_harness_pull (hrn);
  check_no_estimate (get_meta (o));
  gst_buffer_unref (o);
  o = gst_harness_pull (hrn);
  fail_unless_equals_int (get_meta (o)->columns, 4);
  check_interior (get_meta (o), -2.0f, 0.0f, 4);
  gst_buffer_unref (o);

  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (b, 80, 2)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (b2, 80, 3)),
      GST_FLOW_OK);
  g_object_set (hrn->element, "block-size", 8, NULL);
  fail_unless_equals_int (gst_harness_push (hrn, test_gray_buffer (b3, 80, 4)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 4);
  fail_unless (gst_harness_push_event (hrn, gst_event_new_eos ()));
  fail_unless_equals_int (gst_harness_buffers_received (hrn), 5);

  o = gst_harness_pull (hrn); /* b: first in the new size */
  fail_unless_equals_int (get_meta (o)->columns, 5);
  check_no_estimate (get_meta (o));
  gst_buffer_unref (o);
  o = gst_harness_pull (hrn); /* b2: 16x16, before the change */
  fail_unless_equals_int (get_meta (o)->columns, 5);
  check_interior (get_meta (o), 2.0f, -1.0f, 4);
  gst_buffer_unref (o);
  o = gst_harness_pull (hrn); /* b3: 8x8, reference kept */
  fail_unless_equals_int (get_meta (o)->columns, 10);
  fail_unless_equals_uint64 (get_meta (o)->reference_timestamp, 3);
  check_interior (get_meta (o), 0.0f, -2.0f, 4);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* The latency query adds depth x frame duration (0 at an unknown frame
 * rate) to upstream's. */
GST_START_TEST (test_pipeline_latency)
{
  test_held_latency (kHeld);
  /* serial mode raises the depth only on the CUDA backend */
  fail_unless_equals_uint64 (
      test_latency_for ("blockmatchme",
          "backend=cpu pipeline-depth=1 multi-gpu=serial devices=0,0,0",
          "video/x-raw,format=GRAY8,width=64,height=48,framerate=25/1", 0),
      GST_SECOND / 25);
}

GST_END_TEST;

/* ---- Device properties --------------------------------------------------- */

/* videotestsrc ! blockmatchme ! fakesink with `devices` set before start;
 * returns the ERROR or EOS message. */
static GstMessage *
run_with_devices (const char * backend, const char * devices, int device_id)
{
  GstElement * pipe = gst_parse_launch ("videotestsrc num-buffers=3 ! "
                                        "video/x-raw,width=64,height=48 ! "
                                        "blockmatchme name=me ! fakesink",
      NULL);
  fail_unless (pipe != NULL);
  GstElement * me = gst_bin_get_by_name (GST_BIN (pipe), "me");
  gst_util_set_object_arg (G_OBJECT (me), "backend", backend);
  g_object_set (me, "devices", devices, "device-id", device_id, NULL);
  gst_object_unref (me);
  return test_run_to_end (pipe, 10 * GST_SECOND);
}

/* A malformed devices list is a RESOURCE/SETTINGS error at start, whatever
 * the backend; well-formed lists are accepted (and ignored by the CPU). */
GST_START_TEST (test_devices_parsing)
{
  const char * bad[] = { "0,", ",", "a", "-1", "64", "0;1", "0,,1", "1 2",
    "0x1" };
  for (const char * d : bad) {
    GstMessage * msg = run_with_devices ("cpu", d, 0);
    test_check_error (msg, GST_RESOURCE_ERROR, GST_RESOURCE_ERROR_SETTINGS, d);
  }
  const char * good[] = { "", " ", "0", " 0 , 0 ", "1,0", "63" };
  for (const char * d : good) {
    GstMessage * msg = run_with_devices ("cpu", d, 0);
    fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
    gst_message_unref (msg);
  }
  GstElement * el = gst_element_factory_make ("blockmatchme", NULL);
  gchar * v = NULL;
  g_object_set (el, "devices", "0, 1", NULL);
  g_object_get (el, "devices", &v, NULL);
  fail_unless_equals_string (v, "0, 1"); /* kept as given */
  g_free (v);
  gst_object_unref (el);
}

GST_END_TEST;

/* backend=cuda with a device ordinal that does not exist fails at start
 * with RESOURCE/NOT_FOUND (with or without a CUDA build). */
GST_START_TEST (test_cuda_missing_device)
{
  test_check_error (run_with_devices ("cuda", "63", 0), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, "devices=63");
  test_check_error (run_with_devices ("cuda", "", 63), GST_RESOURCE_ERROR,
      GST_RESOURCE_ERROR_NOT_FOUND, "device-id=63");
  if (match::cuda_device_count () > 0)
    test_check_error (run_with_devices ("cuda", "0,63", 0), GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_NOT_FOUND, "devices=0,63");
}

GST_END_TEST;

/* active-backend names the backend in use once caps are set. */
GST_START_TEST (test_active_backend)
{
  const char * backends[] = { "cpu", "auto" };
  for (const char * b : backends) {
    GstHarness * hrn = gst_harness_new ("blockmatchme");
    gchar * v = NULL;
    g_object_get (hrn->element, "active-backend", &v, NULL);
    fail_unless (v == NULL);
    gst_util_set_object_arg (G_OBJECT (hrn->element), "backend", b);
    gst_harness_set_src_caps_str (hrn,
        "video/x-raw,format=GRAY8,"
        "width=64,height=48,framerate=30/1");
    const TestImage a = test_texture (64, 48, 1);
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
    g_object_get (hrn->element, "active-backend", &v, NULL);
    fail_unless (v != NULL);
    if (!strcmp (b, "cpu") || match::cuda_device_count () == 0)
      fail_unless (g_str_has_prefix (v, "cpu"), "%s", v);
    GST_INFO ("backend=%s: active-backend \"%s\"", b, v);
    g_free (v);
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

/* Every fast method through the element equals the reference (taxi
 * frames, padded stride, backend=cpu and auto: auto takes CUDA where a
 * device opens), the meta names the method, and `predictive` gets
 * the previous field from the element's own previous output. */
GST_START_TEST (test_fast_methods_equal_reference)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b));
  const struct
  {
    const char * nick;
    match::SearchMethod m;
  } methods[] = {
    { "hierarchical", match::SearchMethod::kHierarchical },
    { "three-step", match::SearchMethod::kThreeStep },
    { "diamond", match::SearchMethod::kDiamond },
    { "hexagon", match::SearchMethod::kHexagon },
    { "predictive", match::SearchMethod::kPredictive },
  };
  const char * backends[] = { "cpu", "auto" };
  for (const char * backend : backends)
    for (const auto & k : methods) {
      match::BlockMatchConfig cfg;
      cfg.width = a.width;
      cfg.height = a.height;
      cfg.block_width = 16;
      cfg.block_height = 8;
      cfg.range_x = 12;
      cfg.range_y = 8;
      cfg.subpel = 2;
      cfg.direction = match::Direction::kBackward;
      cfg.method = k.m;
      cfg.levels = 3;
      cfg.predictors = 2;
      match::ImageView va{ a.pixels.data (), a.width, a.height, a.width };
      match::ImageView vb{ b.pixels.data (), b.width, b.height, b.width };
      /* a -> b, then b -> a (the second estimate of predictive has a
       * previous field) */
      std::vector<match::BlockVector> want1 (cfg.num_blocks ()),
          want2 (cfg.num_blocks ());
      fail_unless (match::ref::block_match (va, vb, cfg,
          match::BlockMatchRuntime (), want1.data ())
                       .is_ok ());
      fail_unless (match::ref::block_match (vb, va, cfg,
          match::BlockMatchRuntime (), want2.data (),
          k.m == match::SearchMethod::kPredictive ? want1.data () : nullptr)
                       .is_ok ());

      gchar * props = g_strdup_printf ("block-width=16 block-height=8 "
                                       "search-range-x=12 search-range-y=8 "
                                       "subpixel=half method=%s "
                                       "levels=3 predictors=2 backend=%s",
          k.nick, backend);
      GstHarness * hrn = make_harness (props, "GRAY8", a.width, a.height);
      g_free (props);
      gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width + 37, 0)));
      for (int f = 0; f < 2; f++) {
        const std::vector<match::BlockVector> & want = f ? want2 : want1;
        GstBuffer * o =
            push_pull (hrn, test_gray_buffer (f ? a : b, a.width + 37, 1 + f));
        GstMotionVectorsMeta * m = get_meta (o);
        fail_unless_equals_string (m->method, k.nick);
        fail_unless_equals_int (m->n_vectors, cfg.num_blocks ());
        for (guint i = 0; i < m->n_vectors; i++) {
          fail_unless_equals_float (m->vectors[i].dx, want[i].dx / 4.0f);
          fail_unless_equals_float (m->vectors[i].dy, want[i].dy / 4.0f);
          fail_unless_equals_int (m->vectors[i].cost, want[i].cost);
        }
        gst_buffer_unref (o);
      }
      /* auto takes CUDA where a device opens, for every method */
      const char * want_backend =
          !strcmp (backend, "auto") && match::cuda_device_count () > 0 ? "cuda"
                                                                       : "cpu";
      gchar * active = NULL;
      g_object_get (hrn->element, "active-backend", &active, NULL);
      fail_unless (active && g_str_has_prefix (active, want_backend),
          "method=%s backend=%s: active-backend %s", k.nick, backend,
          GST_STR_NULL (active));
      g_free (active);
      gst_harness_teardown (hrn);
    }
}

GST_END_TEST;

/* method=predictive's `rate` (default 1): the element passes it to the
 * matcher as predictive_rate (off, the default and a large one equal the
 * reference with it; on the taxi pair they do not all agree, so the
 * property reaches the search). */
GST_START_TEST (test_predictive_rate)
{
  TestImage a, b;
  fail_unless (load_taxi (&a, &b));
  GstElement * e = gst_element_factory_make ("blockmatchme", NULL);
  gdouble def = -1.0;
  g_object_get (e, "rate", &def, NULL);
  fail_unless_equals_float (def, 1.0);
  gst_object_unref (e);
  match::BlockMatchConfig cfg;
  cfg.width = a.width;
  cfg.height = a.height;
  cfg.range_x = cfg.range_y = 16;
  cfg.direction = match::Direction::kBackward;
  cfg.method = match::SearchMethod::kPredictive;
  match::ImageView va{ a.pixels.data (), a.width, a.height, a.width };
  match::ImageView vb{ b.pixels.data (), b.width, b.height, b.width };
  std::vector<std::vector<match::BlockVector>> wants;
  for (double rate : { 0.0, 1.0, 4.0 }) {
    match::BlockMatchRuntime rt;
    rt.predictive_rate = rate;
    std::vector<match::BlockVector> want (cfg.num_blocks ());
    fail_unless (
        match::ref::block_match (va, vb, cfg, rt, want.data ()).is_ok ());
    gchar * props = g_strdup_printf ("block-size=16 search-range=16 "
                                     "method=predictive backend=cpu rate=%g",
        rate);
    GstHarness * hrn = make_harness (props, "GRAY8", a.width, a.height);
    g_free (props);
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
    GstBuffer * o = push_pull (hrn, test_gray_buffer (b, a.width, 1));
    GstMotionVectorsMeta * m = get_meta (o);
    fail_unless_equals_int (m->n_vectors, cfg.num_blocks ());
    for (guint i = 0; i < m->n_vectors; i++) {
      fail_unless_equals_float (m->vectors[i].dx, want[i].dx / 4.0f);
      fail_unless_equals_float (m->vectors[i].dy, want[i].dy / 4.0f);
      fail_unless_equals_int (m->vectors[i].cost, want[i].cost);
    }
    gst_buffer_unref (o);
    gst_harness_teardown (hrn);
    wants.push_back (want);
  }
  int differ = 0;
  for (size_t i = 0; i < wants[0].size (); i++)
    differ +=
        wants[0][i].dx != wants[2][i].dx || wants[0][i].dy != wants[2][i].dy;
  fail_unless (differ > 0);
}

GST_END_TEST;

/* Switching the method while playing: the reference frame is kept where
 * the backend can follow (CPU), the vectors follow the new method. */
GST_START_TEST (test_method_change_while_playing)
{
  GstHarness * hrn = make_harness ("block-size=16 search-range=8 backend=cpu",
      "GRAY8", 96, 64);
  const TestImage a = test_texture (96, 64, 3), b = test_shift (a, 2, 0),
                  c = test_shift (a, 4, 0);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 96, 0)));
  gst_util_set_object_arg (G_OBJECT (hrn->element), "method", "diamond");
  GstBuffer * o = push_pull (hrn, test_gray_buffer (b, 96, 1));
  GstMotionVectorsMeta * m = get_meta (o);
  fail_unless_equals_string (m->method, "diamond");
  fail_unless (GST_CLOCK_TIME_IS_VALID (m->reference_timestamp));
  gst_buffer_unref (o);
  gst_util_set_object_arg (G_OBJECT (hrn->element), "method", "full");
  o = push_pull (hrn, test_gray_buffer (c, 96, 2));
  m = get_meta (o);
  fail_unless_equals_string (m->method, "full");
  check_interior (m, -2.0f, 0.0f, 16);
  gst_buffer_unref (o);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* The method enum and the hierarchical parameters as users see them. */
GST_START_TEST (test_method_properties)
{
  GstElement * e = gst_element_factory_make ("blockmatchme", NULL);
  GParamSpec * ps =
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "method");
  fail_unless (ps && G_IS_PARAM_SPEC_ENUM (ps));
  GEnumClass * ec = G_PARAM_SPEC_ENUM (ps)->enum_class;
  const char * nicks[] = { "full", "hierarchical", "three-step", "diamond",
    "hexagon", "predictive" };
  for (const char * n : nicks)
    fail_unless (g_enum_get_value_by_nick (ec, n) != NULL, "%s", n);
  guint levels = 0, predictors = 0;
  g_object_get (e, "levels", &levels, "predictors", &predictors, NULL);
  fail_unless_equals_int (levels, 3);
  fail_unless_equals_int (predictors, 4);
  GParamSpecUInt * lv = G_PARAM_SPEC_UINT (
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "levels"));
  fail_unless_equals_int (lv->minimum, 2);
  fail_unless_equals_int (lv->maximum, match::kMaxLevels);
  gst_object_unref (e);
}

GST_END_TEST;

/* ---- CUDA backend (skipped without a device) ----------------------------- */

static bool
have_cuda (const char * test)
{
  if (match::cuda_device_count () > 0)
    return true;
  g_print ("%s: SKIP (no CUDA device)\n", test);
  return false;
}

/* backend=cuda gives the CPU's vectors bit for bit on integer and half-pel
 * grids, synchronous and pipelined; auto picks CUDA. */
GST_START_TEST (test_cuda_equals_cpu)
{
  if (!have_cuda ("test_cuda_equals_cpu"))
    return;
  const std::vector<TestImage> seq = taxi_sequence ();
  const char * grids[] = {
    "search-range=6 block-width=16 block-height=8",
    "subpixel=half search-range=4 draw=arrows",
  };
  for (const char * g : grids) {
    gchar * props = g_strdup_printf ("backend=cpu %s", g);
    const RunResult cpu = run_sequence (props, seq, kTaxiDiscont);
    g_free (props);
    const char * variants[] = {
      "backend=cuda",
      "backend=cuda pipeline-depth=2",
      "backend=auto",
      "backend=cuda devices=0",
    };
    for (const char * v : variants) {
      props = g_strdup_printf ("%s %s", v, g);
      const RunResult gpu = run_sequence (props, seq, kTaxiDiscont);
      fail_unless (g_str_has_prefix (gpu.active_backend.c_str (), "cuda"),
          "%s: active-backend \"%s\"", props, gpu.active_backend.c_str ());
      test_check_same_outputs (cpu, gpu, props);
      g_free (props);
    }
  }
}

GST_END_TEST;

/* Two engines: GPUs 0 and 1 where there are two, else GPU 0 twice. */
static const char *
two_devices (void)
{
  return match::cuda_device_count () > 1 ? "0,1" : "0,0";
}

/* Both multi-GPU modes on two engines give the CPU's vectors; serial
 * holds at least one frame per extra device and reports it as latency. */
GST_START_TEST (test_cuda_multi_gpu)
{
  if (!have_cuda ("test_cuda_multi_gpu"))
    return;
  const std::vector<TestImage> seq = taxi_sequence ();
  const char * g = "subpixel=half search-range=5";
  gchar * props = g_strdup_printf ("backend=cpu %s", g);
  const RunResult cpu = run_sequence (props, seq, kTaxiDiscont);
  g_free (props);
  const char * modes[] = { "parallel", "serial" };
  const int depths[] = { 0, 2 };
  for (const char * mode : modes)
    for (int depth : depths) {
      props = g_strdup_printf ("backend=cuda devices=%s multi-gpu=%s "
                               "pipeline-depth=%d %s",
          two_devices (), mode, depth, g);
      const RunResult gpu = run_sequence (props, seq, kTaxiDiscont);
      test_check_same_outputs (cpu, gpu, props);
      int want = depth;
      if (!strcmp (mode, "serial"))
        want = MAX (depth, 1);
      fail_unless_equals_int (gpu.lag, want);
      fail_unless_equals_uint64 (gpu.latency,
          gst_util_uint64_scale_int (want * GST_SECOND, 1, 30));
      g_free (props);
    }
}

GST_END_TEST;

/* Every fast method on backend=cuda (and auto) gives the CPU's fields
 * through the element, predictive's previous-field chain across the
 * sequence's discontinuity included, synchronous and pipelined; and a
 * method change while playing stays on CUDA and estimates every frame. */
GST_START_TEST (test_cuda_fast_methods)
{
  if (!have_cuda ("test_cuda_fast_methods"))
    return;
  const std::vector<TestImage> seq = taxi_sequence ();
  const char * methods[] = { "hierarchical", "three-step", "diamond", "hexagon",
    "predictive" };
  for (const char * m : methods) {
    gchar * props = g_strdup_printf ("backend=cpu method=%s subpixel=half "
                                     "search-range=10 block-size=8",
        m);
    const RunResult cpu = run_sequence (props, seq, kTaxiDiscont);
    g_free (props);
    gchar * two = g_strdup_printf ("backend=cuda devices=%s", two_devices ());
    const char * variants[] = { "backend=cuda", "backend=auto pipeline-depth=3",
      two };
    for (const char * v : variants) {
      props = g_strdup_printf ("%s method=%s subpixel=half search-range=10 "
                               "block-size=8",
          v, m);
      const RunResult gpu = run_sequence (props, seq, kTaxiDiscont);
      fail_unless (g_str_has_prefix (gpu.active_backend.c_str (), "cuda"),
          "%s: active-backend \"%s\"", props, gpu.active_backend.c_str ());
      test_check_same_outputs (cpu, gpu, props);
      g_free (props);
    }
    g_free (two);
  }

  GstHarness * hrn = make_harness ("block-size=16 search-range=8 backend=cuda",
      "GRAY8", 96, 64);
  const TestImage a = test_texture (96, 64, 3), b = test_shift (a, 2, 0);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 96, 0)));
  gst_util_set_object_arg (G_OBJECT (hrn->element), "method", "hierarchical");
  GstBuffer * o = push_pull (hrn, test_gray_buffer (b, 96, 1));
  GstMotionVectorsMeta * mv = get_meta (o);
  fail_unless_equals_string (mv->method, "hierarchical");
  check_interior (mv, -2.0f, 0.0f, 16);
  gst_buffer_unref (o);
  gchar * active = NULL;
  g_object_get (hrn->element, "active-backend", &active, NULL);
  fail_unless (active && g_str_has_prefix (active, "cuda"), "%s", active);
  g_free (active);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

/* The kernels' frame size limit is in the pad templates, so that a larger
 * frame fails at negotiation rather than after it: 16384 pixels a side
 * negotiate, 16385 do not. */
GST_START_TEST (test_frame_size_in_caps)
{
  static const char * const pads[] = { "sink", "src", NULL };
  test_check_frame_size_limit ("blockmatchme", pads);
}

GST_END_TEST;

static Suite *
blockmatchme_suite (void)
{
  Suite * s = suite_create ("blockmatchme");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_unsupported_format);
  tcase_add_test (tc, test_frame_size_in_caps);
  tcase_add_test (tc, test_known_shifts_real);
  tcase_add_test (tc, test_element_equals_reference);
  tcase_add_test (tc, test_odd_sizes_and_strides);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_flush_resets);
  tcase_add_test (tc, test_property_change_keeps_reference);
  tcase_add_test (tc, test_property_stress);
  tcase_add_test (tc, test_threshold);
  tcase_add_test (tc, test_predictive_rate);
  tcase_add_test (tc, test_backend_cuda_unavailable);
  tcase_add_test (tc, test_meta_survives_videoconvert);
  tcase_add_test (tc, test_pipeline_depth_same_vectors);
  tcase_add_test (tc, test_pipeline_eos_drains);
  tcase_add_test (tc, test_pipeline_flush_drops);
  tcase_add_test (tc, test_pipeline_depth_change);
  tcase_add_test (tc, test_pipeline_decided_same_vectors);
  tcase_add_test (tc, test_pipeline_decided_eos_drains);
  tcase_add_test (tc, test_pipeline_decided_flush_drops);
  tcase_add_test (tc, test_pipeline_decided_depth_change);
  tcase_add_test (tc, test_pipeline_caps_and_settings_change);
  tcase_add_test (tc, test_pipeline_latency);
  tcase_add_test (tc, test_devices_parsing);
  tcase_add_test (tc, test_cuda_missing_device);
  tcase_add_test (tc, test_active_backend);
  tcase_add_test (tc, test_fast_methods_equal_reference);
  tcase_add_test (tc, test_method_change_while_playing);
  tcase_add_test (tc, test_method_properties);
  tcase_add_test (tc, test_cuda_equals_cpu);
  tcase_add_test (tc, test_cuda_multi_gpu);
  tcase_add_test (tc, test_cuda_fast_methods);
  return s;
}

GST_CHECK_MAIN (blockmatchme);
