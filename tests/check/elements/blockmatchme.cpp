/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * blockmatchme element tests (GstHarness): formats, known shifts, the
 * element against the kernel reference on real frames, odd sizes, strides,
 * caps changes, flushes, property changes while playing, thresholds, the
 * first frame, backend selection and meta survival downstream.
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
#include <vector>

#include "../common/testutil.h"
#include "match/blockmatch.h"

static GstHarness *
make_harness (const char *props, const char *format, int w, int h)
{
  /* gst_harness_new (not _parse) so that hrn->element is blockmatchme
   * itself, as the property stress threads need. */
  GstHarness *hrn = gst_harness_new ("blockmatchme");
  gchar **kv = g_strsplit (props ? props : "", " ", -1);
  for (gchar ** p = kv; *p; p++) {
    gchar **pair = g_strsplit (*p, "=", 2);
    if (pair[0] && pair[1])
      gst_util_set_object_arg (G_OBJECT (hrn->element), pair[0], pair[1]);
    g_strfreev (pair);
  }
  g_strfreev (kv);
  gchar *caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
      "framerate=30/1", format, w, h);
  gst_harness_set_src_caps_str (hrn, caps);
  g_free (caps);
  return hrn;
}

/* Pushes a buffer and returns the output (caller unrefs). */
static GstBuffer *
push_pull (GstHarness * hrn, GstBuffer * in)
{
  fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
  GstBuffer *out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  return out;
}

static GstMotionVectorsMeta *
get_meta (GstBuffer * buf)
{
  GstMotionVectorsMeta *meta = gst_buffer_get_motion_vectors_meta (buf);
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
      gst_motion_vectors_meta_get_block_rect (meta, r * meta->columns + c,
          &x, &y, &w, &h);
      if (x < margin || y < margin || x + w + margin > meta->frame_width
          || y + h + margin > meta->frame_height)
        continue;
      GstMotionVector *v = gst_motion_vectors_meta_get_vector (meta, c, r);
      fail_unless (v->dx == dx && v->dy == dy,
          "block (%u,%u): got (%g,%g) expected (%g,%g)", c, r, v->dx, v->dy,
          dx, dy);
      fail_unless_equals_int (v->flags, 0);
      checked++;
    }
  fail_unless (checked > 0);
}

static const char *all_formats[] = {
  "GRAY8", "I420", "YV12", "NV12", "NV21", "Y41B", "Y42B", "Y444",
  "RGB", "BGR", "RGBx", "BGRx", "xRGB", "xBGR", "RGBA", "BGRA", "ARGB", "ABGR"
};

GST_START_TEST (test_every_format)
{
  const TestImage a = test_texture (96, 64, 5);
  const TestImage b = test_shift (a, 4, -2);    /* moves right 4, up 2 */

  for (const char *fmt:all_formats) {
    GstVideoFormat vf = gst_video_format_from_string (fmt);
    GstHarness *hrn = make_harness ("search-range=6", fmt, 96, 64);
    GstBuffer *o1 = push_pull (hrn, test_format_buffer (a, vf, 0));
    GstMotionVectorsMeta *m1 = get_meta (o1);
    fail_unless_equals_int (m1->columns, 6);
    fail_unless_equals_int (m1->rows, 4);
    check_no_estimate (m1);
    GstBuffer *o2 = push_pull (hrn, test_format_buffer (b, vf, GST_SECOND / 30));
    GstMotionVectorsMeta *m2 = get_meta (o2);
    fail_unless_equals_uint64 (m2->reference_timestamp, 0);
    fail_unless_equals_int (m2->direction, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
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
  GstElement *el = gst_element_factory_make ("blockmatchme", NULL);
  GstPad *sink = gst_element_get_static_pad (el, "sink");
  GstCaps *caps = gst_caps_from_string ("video/x-raw,format=GRAY16_LE,"
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
    GstHarness *hrn = make_harness (dir ? "direction=forward search-range=5" :
        "direction=backward search-range=5", "GRAY8", a.width, a.height);
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
    GstBuffer *o = push_pull (hrn, test_gray_buffer (moved, a.width, 1));
    GstMotionVectorsMeta *m = get_meta (o);
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
  GstHarness *hrn = make_harness ("subpixel=half search-range=3", "GRAY8",
      a.width, a.height);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width, 0)));
  GstBuffer *o = push_pull (hrn, test_gray_buffer (half, a.width, 1));
  GstMotionVectorsMeta *m = get_meta (o);
  fail_unless_equals_float (m->precision, 0.5f);
  guint exact = 0, total = 0;
  for (guint i = 0; i < m->n_vectors; i++) {
    guint x, y, w, h;
    gst_motion_vectors_meta_get_block_rect (m, i, &x, &y, &w, &h);
    if (x + w >= (guint) a.width)
      continue;                 /* right edge column: clamping differs */
    total++;
    /* Flat blocks (sky) may tie elsewhere; textured ones must be exact. */
    if (m->vectors[i].cost == 0 && m->vectors[i].dx == 0.5f
        && m->vectors[i].dy == 0.0f)
      exact++;
    fail_unless_equals_int (m->vectors[i].cost, 0);
  }
  /* Ties with other zero-cost candidates are only possible in flat areas. */
  fail_unless (exact * 10 >= total * 9, "%u of %u blocks at (+0.5, 0)",
      exact, total);
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
  for (int subpel:subpels) {
    match::BlockMatchConfig cfg;
    cfg.width = a.width;
    cfg.height = a.height;
    cfg.block_width = 16;
    cfg.block_height = 8;
    cfg.range_x = 7;
    cfg.range_y = 5;
    cfg.subpel = subpel;
    cfg.direction = match::Direction::kBackward;
    std::vector < match::BlockVector > want (cfg.num_blocks ());
    match::ImageView va { a.pixels.data (), a.width, a.height, a.width };
    match::ImageView vb { b.pixels.data (), b.width, b.height, b.width };
    fail_unless (match::ref::block_match (va, vb, cfg, match::BlockMatchRuntime (),
            want.data ()).is_ok ());

    gchar *props = g_strdup_printf ("block-width=16 block-height=8 "
        "search-range-x=7 search-range-y=5 subpixel=%s backend=cpu",
        subpel == 1 ? "integer" : "half");
    GstHarness *hrn = make_harness (props, "GRAY8", a.width, a.height);
    g_free (props);
    /* padded stride: 256 + 37 */
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, a.width + 37, 0)));
    GstBuffer *o = push_pull (hrn, test_gray_buffer (b, a.width + 37, 1));
    GstMotionVectorsMeta *m = get_meta (o);
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
  const int sizes[][2] = { {641, 479}, {5, 3}, {17, 1}, {1, 1} };
  for (auto & s:sizes) {
    const TestImage a = test_texture (s[0], s[1], 7);
    const TestImage b = test_shift (a, 1, 0);
    std::vector < GstMotionVector > tight;
    const int pads[] = { 0, 13 };
    for (int pad:pads) {
      GstHarness *hrn = make_harness ("search-range=4", "GRAY8", s[0], s[1]);
      gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, s[0] + pad, 0)));
      GstBuffer *o = push_pull (hrn, test_gray_buffer (b, s[0] + pad, 1));
      GstMotionVectorsMeta *m = get_meta (o);
      fail_unless_equals_int (m->columns, (s[0] + 15) / 16);
      fail_unless_equals_int (m->rows, (s[1] + 15) / 16);
      fail_unless_equals_int (m->frame_width, s[0]);
      std::vector < GstMotionVector > v (m->vectors, m->vectors + m->n_vectors);
      for (auto & mv:v)
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
  GstHarness *hrn = make_harness ("search-range=4", "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1), a2 = test_shift (a, 2, 0);
  const TestImage b = test_texture (80, 64, 2), b2 = test_shift (b, -2, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
  GstBuffer *o = push_pull (hrn, test_gray_buffer (a2, 64, 1));
  fail_unless_equals_int (get_meta (o)->columns, 4);
  fail_unless (get_meta (o)->reference_timestamp == 0);
  gst_buffer_unref (o);

  gst_harness_set_src_caps_str (hrn,
      "video/x-raw,format=GRAY8,width=80,height=64,framerate=30/1");
  o = push_pull (hrn, test_gray_buffer (b, 80, 2));
  GstMotionVectorsMeta *m = get_meta (o);
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
  GstHarness *hrn = make_harness (NULL, "GRAY8", 64, 48);
  const TestImage a = test_texture (64, 48, 1);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 64, 0)));
  fail_unless (gst_harness_push_event (hrn, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (hrn, gst_event_new_flush_stop (TRUE)));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (hrn, gst_event_new_segment (&seg)));
  GstBuffer *o = push_pull (hrn, test_gray_buffer (a, 64, 1));
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
  GstHarness *hrn = make_harness ("block-size=16 search-range=4", "GRAY8",
      96, 64);
  const TestImage a = test_texture (96, 64, 3), b = test_shift (a, 6, 0);
  gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 96, 0)));
  g_object_set (hrn->element, "block-size", 8, "search-range", 8,
      "subpixel", 2, "direction", GST_MOTION_VECTORS_DIRECTION_FORWARD, NULL);
  GstBuffer *o = push_pull (hrn, test_gray_buffer (b, 96, 1));
  GstMotionVectorsMeta *m = get_meta (o);
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
  GstHarness *hrn = make_harness (NULL, "I420", 128, 96);
  const TestImage a = test_texture (128, 96, 4);
  GValue v = G_VALUE_INIT;
  GstHarnessThread *threads[6];

  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 8);
  threads[0] = gst_harness_stress_property_start_full (hrn, "block-size", &v, 0);
  g_value_set_uint (&v, 3);
  threads[1] = gst_harness_stress_property_start_full (hrn, "search-range", &v, 0);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 2.0);
  threads[2] = gst_harness_stress_property_start_full (hrn, "threshold", &v, 0);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 1);
  threads[3] = gst_harness_stress_property_start_full (hrn, "n-threads", &v, 0);
  g_value_unset (&v);
  GObjectClass *klass = G_OBJECT_GET_CLASS (hrn->element);
  g_value_init (&v, g_object_class_find_property (klass, "draw")->value_type);
  g_value_set_enum (&v, 1);     /* arrows */
  threads[4] = gst_harness_stress_property_start_full (hrn, "draw", &v, 0);
  g_value_unset (&v);
  g_value_init (&v,
      g_object_class_find_property (klass, "subpixel")->value_type);
  g_value_set_enum (&v, 2);     /* half */
  threads[5] = gst_harness_stress_property_start_full (hrn, "subpixel", &v, 0);
  g_value_unset (&v);

  for (int i = 0; i < 30; i++) {
    GstBuffer *o = push_pull (hrn,
        test_format_buffer (a, GST_VIDEO_FORMAT_I420, i));
    GstMotionVectorsMeta *m = get_meta (o);
    fail_unless_equals_int (m->columns,
        (128 + m->block_width - 1) / m->block_width);
    gst_buffer_unref (o);
  }
  for (auto t:threads)
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
      uint8_t *p = &b.pixels[(size_t) y * 128 + x];
      if (x < 64)
        *p = (uint8_t) CLAMP (*p + ((x * 7 + y * 3) % 3) - 1, 0, 255);
      else
        *p = a.at (MAX (x - 3, 64), y);
    }
  for (int pass = 0; pass < 2; pass++) {
    GstHarness *hrn = make_harness (pass ? "threshold=0" : "threshold=2.0",
        "GRAY8", 128, 64);
    gst_buffer_unref (push_pull (hrn, test_gray_buffer (a, 128, 0)));
    GstBuffer *o = push_pull (hrn, test_gray_buffer (b, 128, 1));
    GstMotionVectorsMeta *m = get_meta (o);
    for (guint r = 0; r < m->rows; r++) {
      GstMotionVector *still = gst_motion_vectors_meta_get_vector (m, 1, r);
      GstMotionVector *moving = gst_motion_vectors_meta_get_vector (m, 6, r);
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
/* Runs `desc` to EOS or the first error and returns that message. */
static GstMessage *
run_pipeline (const char *desc)
{
  GstElement *pipe = gst_parse_launch (desc, NULL);
  fail_unless (pipe != NULL);
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  fail_unless (msg != NULL);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  return msg;
}

GST_START_TEST (test_backend_cuda_unavailable)
{
  if (match::backend_available (match::Backend::kCuda))
    return;                     /* covered by the CUDA suite */
  GstMessage *msg = run_pipeline ("videotestsrc num-buffers=2 ! "
      "video/x-raw,width=64,height=48 ! blockmatchme backend=cuda ! fakesink");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  GError *err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_RESOURCE_ERROR,
          GST_RESOURCE_ERROR_NOT_FOUND));
  fail_unless (strstr (err->message, "cuda") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);

  msg = run_pipeline ("videotestsrc num-buffers=3 ! "
      "video/x-raw,width=64,height=48 ! blockmatchme backend=auto ! fakesink");
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);
}

GST_END_TEST;

/* The meta survives a format conversion downstream (same frame size). */
GST_START_TEST (test_meta_survives_videoconvert)
{
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=3 "
      "pattern=ball ! video/x-raw,format=I420,width=96,height=64 ! "
      "blockmatchme ! videoconvert ! video/x-raw,format=BGRx ! "
      "appsink name=sink sync=false", NULL);
  fail_unless (pipe != NULL);
  GstElement *sink = gst_bin_get_by_name (GST_BIN (pipe), "sink");
  gst_element_set_state (pipe, GST_STATE_PLAYING);
  int with_meta = 0;
  for (int i = 0; i < 3; i++) {
    GstSample *s = NULL;
    g_signal_emit_by_name (sink, "pull-sample", &s);
    fail_unless (s != NULL);
    GstMotionVectorsMeta *m =
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

static Suite *
blockmatchme_suite (void)
{
  Suite *s = suite_create ("blockmatchme");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_every_format);
  tcase_add_test (tc, test_unsupported_format);
  tcase_add_test (tc, test_known_shifts_real);
  tcase_add_test (tc, test_element_equals_reference);
  tcase_add_test (tc, test_odd_sizes_and_strides);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_flush_resets);
  tcase_add_test (tc, test_property_change_keeps_reference);
  tcase_add_test (tc, test_property_stress);
  tcase_add_test (tc, test_threshold);
  tcase_add_test (tc, test_backend_cuda_unavailable);
  tcase_add_test (tc, test_meta_survives_videoconvert);
  return s;
}

GST_CHECK_MAIN (blockmatchme);
