/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * gst_mv_overlay_draw() on every supported format: arrow paths and heads
 * for both field directions, nothing drawn for NO_ESTIMATE/zero vectors,
 * colour-wheel tints, no write outside the visible samples (padded strides,
 * guard bytes, alpha and x bytes), odd and tiny frames, wild vectors, the
 * same result whatever the memory layout, and the blockmatchme `draw`
 * property through a GstHarness.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "../common/mvoverlay_testutil.h"

/* GstVideoInfo's default layout. */
static Layout
default_layout (GstVideoFormat format, int w, int h)
{
  GstVideoInfo info;
  gst_video_info_set_format (&info, format, w, h);
  return layout_from_info (info);
}

/* Guard bytes before, between and after the planes, and rows wider than
 * needed by an odd amount, so that any stray write lands on a known byte. */
static Layout
padded_layout (GstVideoFormat format, int w, int h)
{
  const gsize guard = 61;
  Layout l = default_layout (format, w, h);
  gsize off = guard;
  for (guint p = 0; p < GST_VIDEO_INFO_N_PLANES (&l.info); ++p) {
    int comp = 0;
    for (int c = 0; c < l.n_comps (); ++c)
      if (GST_VIDEO_FORMAT_INFO_PLANE (l.finfo (), c) == p) {
        comp = c;
        break;
      }
    l.stride[p] = GST_VIDEO_INFO_PLANE_STRIDE (&l.info, p) + 19 + 2 * p;
    l.offset[p] = off;
    off += (gsize) l.stride[p] * l.comp_h (comp) + guard;
  }
  l.size = off;
  return l;
}

/* Byte pattern for everything that is not a sample. */
static inline guint8
pad_byte (gsize i)
{
  return (guint8) (0xA5 ^ (i * 7));
}

/* A buffer in layout l showing img: YUV with neutral chroma, RGB grey,
 * alpha opaque; other bytes hold pad_byte(). With a GstVideoMeta when
 * with_meta. */
static GstBuffer *
make_buffer (const Layout & l, const TestImage & img, bool with_meta)
{
  GstBuffer * buf = gst_buffer_new_allocate (NULL, l.size, NULL);
  GstMapInfo map;
  fail_unless (gst_buffer_map (buf, &map, GST_MAP_WRITE));
  for (gsize i = 0; i < l.size; ++i)
    map.data[i] = pad_byte (i);
  const bool rgb = GST_VIDEO_INFO_IS_RGB (&l.info);
  for (int c = 0; c < l.n_comps (); ++c)
    for (int y = 0; y < l.comp_h (c); ++y)
      for (int x = 0; x < l.comp_w (c); ++x) {
        guint8 v;
        if (c == 3)
          v = 255;
        else if (rgb || c == 0)
          v = img.at (x, y);
        else
          v = 128;
        map.data[l.sample (c, x, y)] = v;
      }
  gst_buffer_unmap (buf, &map);
  if (with_meta)
    gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
        GST_VIDEO_INFO_FORMAT (&l.info), GST_VIDEO_INFO_WIDTH (&l.info),
        GST_VIDEO_INFO_HEIGHT (&l.info), GST_VIDEO_INFO_N_PLANES (&l.info),
        (gsize *) l.offset, (gint *) l.stride);
  return buf;
}

/* Bytes that are no sample of R,G,B / Y,U,V (padding, guards, alpha, x)
 * are unchanged. */
static void
check_only_samples_written (const Layout & l,
    const std::vector<guint8> & before, const std::vector<guint8> & after)
{
  const std::vector<bool> drawable = drawable_mask (l, l.size);
  fail_unless_equals_int ((int) after.size (), (int) before.size ());
  for (gsize i = 0; i < l.size; ++i)
    if (!drawable[i] && before[i] != after[i])
      fail ("%s %dx%d: byte %" G_GSIZE_FORMAT " outside the drawable samples "
            "changed (%d -> %d)",
          fmt_name (GST_VIDEO_INFO_FORMAT (&l.info)),
          GST_VIDEO_INFO_WIDTH (&l.info), GST_VIDEO_INFO_HEIGHT (&l.info), i,
          before[i], after[i]);
}

/* One block (1, 1) of a 64x48 frame, 16x16 blocks, centre (24, 24), with a
 * 12-pixel horizontal vector; every other block without an estimate. */
static void
arrow_case (GstVideoFormat format, GstMotionVectorsDirection dir)
{
  const int w = 64, h = 48;
  const Layout l = padded_layout (format, w, h);
  const TestImage img = test_image (w, h, 3);
  GstBuffer * buf = make_buffer (l, img, true);
  GstMotionVectorsMeta * meta = add_field (buf, w, h, 16, dir);
  set_vector (meta, 1, 1, 12.0f, 0.0f);
  const std::vector<guint8> before = buffer_bytes (buf);
  draw (buf, l, GST_MV_DRAW_ARROWS, 0.0f);
  const std::vector<guint8> after = buffer_bytes (buf);
  const bool backward = dir == GST_MOTION_VECTORS_DIRECTION_BACKWARD;
  const char * what = backward ? "backward arrow" : "forward arrow";

  check_only_samples_written (l, before, after);
  /* The shaft: centre (24, 24) to centre + v (36, 24). */
  for (int x = 24; x <= 36; ++x)
    CHECK_CHANGED (l, before, after, x, 24, true, what);
  /* Barbs (4 px at 30 degrees) at the head only: the centre for backward
   * fields (content came from the right), centre + v for forward ones. */
  CHECK_CHANGED (l, before, after, 27, 22, backward, what);
  CHECK_CHANGED (l, before, after, 27, 26, backward, what);
  CHECK_CHANGED (l, before, after, 33, 22, !backward, what);
  CHECK_CHANGED (l, before, after, 33, 26, !backward, what);
  /* Nothing past the ends (further than any chroma sample reaches). */
  CHECK_CHANGED (l, before, after, 19, 24, false, what);
  CHECK_CHANGED (l, before, after, 41, 24, false, what);
  /* Everything else within the arrow's box, grown to the chroma grid. */
  check_changes_inside (l, before, after, Rect{ 20, 20, 39, 27 }, what);
  gst_buffer_unref (buf);
}

GST_START_TEST (test_arrows_backward)
{
  for (GstVideoFormat f : kFormats)
    arrow_case (f, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
}

GST_END_TEST;

GST_START_TEST (test_arrows_forward)
{
  for (GstVideoFormat f : kFormats)
    arrow_case (f, GST_MOTION_VECTORS_DIRECTION_FORWARD);
}

GST_END_TEST;

/* A vertical and a diagonal arrow, and a sub-pixel vector drawn as a dot. */
GST_START_TEST (test_arrows_other_directions)
{
  for (GstVideoFormat f : kFormats) {
    const int w = 96, h = 64;
    const Layout l = padded_layout (f, w, h);
    GstBuffer * buf = make_buffer (l, test_image (w, h, 5), true);
    GstMotionVectorsMeta * meta =
        add_field (buf, w, h, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    set_vector (meta, 1, 1, 0.0f, -10.0f); /* centre (24, 24) */
    set_vector (meta, 4, 2, -8.0f, -8.0f); /* centre (72, 40) */
    set_vector (meta, 1, 3, 0.25f, 0.0f);  /* centre (24, 56) */
    const std::vector<guint8> before = buffer_bytes (buf);
    draw (buf, l, GST_MV_DRAW_ARROWS, 0.0f);
    const std::vector<guint8> after = buffer_bytes (buf);

    check_only_samples_written (l, before, after);
    for (int y = 14; y <= 24; ++y)
      CHECK_CHANGED (l, before, after, 24, y, true, "vertical");
    for (int d = 0; d <= 8; ++d)
      CHECK_CHANGED (l, before, after, 64 + d, 32 + d, true, "diagonal");
    CHECK_CHANGED (l, before, after, 24, 56, true, "sub-pixel dot");
    CHECK_CHANGED (l, before, after, 24, 10, false, "vertical");
    CHECK_CHANGED (l, before, after, 76, 44, false, "diagonal");
    CHECK_CHANGED (l, before, after, 50, 10, false, "elsewhere");
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

/* NO_ESTIMATE, zero and suppressed vectors draw no arrow; NO_ESTIMATE
 * blocks are never tinted. */
GST_START_TEST (test_nothing_to_draw)
{
  for (GstVideoFormat f : kFormats) {
    const int w = 48, h = 32;
    const Layout l = padded_layout (f, w, h);
    for (int mode = GST_MV_DRAW_NONE; mode <= GST_MV_DRAW_COLOR; ++mode) {
      GstBuffer * buf = make_buffer (l, test_image (w, h, 7), true);
      GstMotionVectorsMeta * meta =
          add_field (buf, w, h, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
      /* Only NO_ESTIMATE vectors, one of them with a stray vector. */
      set_vector (meta, 1, 1, 9.0f, 3.0f, GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
      std::vector<guint8> before = buffer_bytes (buf);
      draw (buf, l, (GstMvDrawMode) mode, 0.0f);
      fail_unless (buffer_bytes (buf) == before,
          "%s mode %d: NO_ESTIMATE field drew something", fmt_name (f), mode);

      if (mode == GST_MV_DRAW_COLOR) {
        gst_buffer_unref (buf);
        continue;
      }
      /* Zero and suppressed-zero vectors: no arrow. */
      set_vector (meta, 0, 0, 0.0f, 0.0f);
      set_vector (meta, 1, 0, 0.0f, 0.0f, GST_MOTION_VECTOR_FLAG_SUPPRESSED);
      set_vector (meta, 2, 0, 0.0f, 0.0f, GST_MOTION_VECTOR_FLAG_UNRELIABLE);
      draw (buf, l, (GstMvDrawMode) mode, 0.0f);
      fail_unless (buffer_bytes (buf) == before,
          "%s mode %d: zero vectors drew something", fmt_name (f), mode);
      if (mode == GST_MV_DRAW_NONE) {
        set_vector (meta, 2, 1, 7.0f, -5.0f);
        draw (buf, l, GST_MV_DRAW_NONE, 0.0f);
        fail_unless (buffer_bytes (buf) == before, "%s: NONE drew something",
            fmt_name (f));
      }
      gst_buffer_unref (buf);
    }
  }
}

GST_END_TEST;

/* The RGB-ish hue of pixel (x, y): for YUV, V - 128 and U - 128 stand for
 * R - Y and B - Y. Returns red minus blue, roughly. */
static int
red_minus_blue (const Layout & l, const std::vector<guint8> & px, int x, int y)
{
  if (GST_VIDEO_INFO_IS_RGB (&l.info)) {
    const int r = px[l.at (GST_VIDEO_COMP_R, x, y)];
    const int b = px[l.at (GST_VIDEO_COMP_B, x, y)];
    return r - b;
  }
  return px[l.at (GST_VIDEO_COMP_V, x, y)] - px[l.at (GST_VIDEO_COMP_U, x, y)];
}

static int
luma_of (const Layout & l, const std::vector<guint8> & px, int x, int y)
{
  if (GST_VIDEO_INFO_IS_RGB (&l.info))
    return (77 * px[l.at (0, x, y)] + 150 * px[l.at (1, x, y)]
               + 29 * px[l.at (2, x, y)] + 128)
        >> 8;
  return px[l.at (0, x, y)];
}

/* Colour mode on a flat grey frame: blocks with opposite motion get
 * different tints (right = red, left = cyan-blue), NO_ESTIMATE blocks stay,
 * max_magnitude sets the saturation, and forward fields flip the sign. */
GST_START_TEST (test_color)
{
  for (GstVideoFormat f : kFormats) {
    const int w = 64, h = 48;
    const Layout l = padded_layout (f, w, h);
    const TestImage grey = grey_image (w, h);

    const float max_mags[] = { 0.0f, 80.0f };
    int saturation[2] = { 0, 0 };
    for (int m = 0; m < 2; ++m) {
      GstBuffer * buf = make_buffer (l, grey, true);
      GstMotionVectorsMeta * meta =
          add_field (buf, w, h, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
      /* Backward: v = (+8, 0) is content moving left, (-8, 0) right. */
      set_vector (meta, 0, 0, 8.0f, 0.0f);
      set_vector (meta, 2, 0, -8.0f, 0.0f);
      const std::vector<guint8> before = buffer_bytes (buf);
      draw (buf, l, GST_MV_DRAW_COLOR, max_mags[m]);
      const std::vector<guint8> after = buffer_bytes (buf);

      check_only_samples_written (l, before, after);
      /* Exactly the two blocks changed, every pixel of them. */
      for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
          const bool tinted = y < 16 && (x < 16 || (x >= 32 && x < 48));
          CHECK_CHANGED (l, before, after, x, y, tinted, "colour");
        }
      /* Uniform within a block, different between the two. */
      for (int c = 0; c < l.drawable (); ++c)
        fail_unless_equals_int (after[l.at (c, 3, 5)], after[l.at (c, 12, 13)]);
      bool differ = false;
      for (int c = 0; c < l.drawable (); ++c)
        differ |= after[l.at (c, 8, 8)] != after[l.at (c, 40, 8)];
      fail_unless (differ, "%s: opposite directions share a tint",
          fmt_name (f));
      if (GST_VIDEO_INFO_IS_GRAY (&l.info)) {
        /* Only brightness: red is darker than cyan-blue. */
        fail_unless (luma_of (l, after, 40, 8) < luma_of (l, after, 8, 8));
        gst_buffer_unref (buf);
        continue;
      }
      const int left = red_minus_blue (l, after, 8, 8);
      const int right = red_minus_blue (l, after, 40, 8);
      fail_unless (right > 0 && left < 0,
          "%s max %.0f: right-moving block not red (%d) or left-moving not "
          "blue (%d)",
          fmt_name (f), max_mags[m], right, left);
      saturation[m] = right - left;
      gst_buffer_unref (buf);
    }
    if (!GST_VIDEO_FORMAT_INFO_IS_GRAY (gst_video_format_get_info (f)))
      fail_unless (saturation[1] < saturation[0] / 2,
          "%s: max_magnitude 80 is not paler (%d vs %d)", fmt_name (f),
          saturation[1], saturation[0]);

    /* Forward: v = (+8, 0) is moving right: red. */
    GstBuffer * buf = make_buffer (l, grey, true);
    GstMotionVectorsMeta * meta =
        add_field (buf, w, h, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD);
    set_vector (meta, 1, 1, 8.0f, 0.0f);
    draw (buf, l, GST_MV_DRAW_COLOR, 0.0f);
    const std::vector<guint8> after = buffer_bytes (buf);
    if (!GST_VIDEO_INFO_IS_GRAY (&l.info))
      fail_unless (red_minus_blue (l, after, 24, 24) > 0,
          "%s: forward +x is not red", fmt_name (f));
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

/* A field of wild vectors (huge, non-finite, pointing out of the frame in
 * every direction) on odd and tiny frames, several block sizes. */
static void
wild_case (GstVideoFormat f, int w, int h, int bs, GstMvDrawMode mode,
    GstMotionVectorsDirection dir)
{
  const Layout l = padded_layout (f, w, h);
  GstBuffer * buf = make_buffer (l, test_image (w, h, 11), true);
  GstMotionVectorsMeta * meta = add_field (buf, w, h, bs, dir);
  const float inf = std::numeric_limits<float>::infinity ();
  const float special[][2] = {
    { 1e30f, -1e30f },
    { inf, 0.0f },
    { NAN, 1.0f },
    { -inf, inf },
    { 0.5f, -0.25f },
    { 2000.0f, 3.0f },
    { -5.0f, 700.0f },
    { -3.5f, -2.25f },
    { 40.0f, 40.0f },
  };
  const int n_special = G_N_ELEMENTS (special);
  for (guint i = 0; i < meta->n_vectors; ++i) {
    GstMotionVector * v = &meta->vectors[i];
    v->flags = (i % 7 == 6) ? GST_MOTION_VECTOR_FLAG_NO_ESTIMATE : 0;
    v->dx = special[i % n_special][0];
    v->dy = special[i % n_special][1];
  }
  const std::vector<guint8> before = buffer_bytes (buf);
  draw (buf, l, mode, 0.0f);
  const std::vector<guint8> after = buffer_bytes (buf);
  check_only_samples_written (l, before, after);
  if (w * h >= 64 * 64)
    fail_unless (before != after, "%s %dx%d: nothing drawn", fmt_name (f), w,
        h);
  gst_buffer_unref (buf);
}

GST_START_TEST (test_odd_sizes_no_overflow)
{
  const int sizes[][2] = { { 641, 479 }, { 7, 5 }, { 1, 1 }, { 3, 2 },
    { 33, 17 } };
  const int blocks[] = { 16, 3, 8 };
  for (GstVideoFormat f : kFormats)
    for (const auto & s : sizes)
      for (int bs : blocks) {
        if (s[0] >= 600 && bs != 16)
          continue; /* the large frame once is enough */
        for (int mode = GST_MV_DRAW_ARROWS; mode <= GST_MV_DRAW_COLOR; ++mode) {
          wild_case (f, s[0], s[1], bs, (GstMvDrawMode) mode,
              GST_MOTION_VECTORS_DIRECTION_BACKWARD);
          wild_case (f, s[0], s[1], bs, (GstMvDrawMode) mode,
              GST_MOTION_VECTORS_DIRECTION_FORWARD);
        }
      }
}

GST_END_TEST;

/* Arrows that start in the last partial block of 641x479 and point out of
 * the frame are still drawn up to the border. */
GST_START_TEST (test_partial_edge_block)
{
  for (GstVideoFormat f : kFormats) {
    const int w = 641, h = 479;
    const Layout l = padded_layout (f, w, h);
    GstBuffer * buf = make_buffer (l, test_image (w, h, 13), true);
    GstMotionVectorsMeta * meta =
        add_field (buf, w, h, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD);
    fail_unless_equals_int (meta->columns, 41);
    fail_unless_equals_int (meta->rows, 30);
    /* Last block: x 640, y [464, 479): centre (640, 471); pointing right. */
    set_vector (meta, 40, 29, 20.0f, 0.0f);
    /* Block (0, 0), centre (8, 8), pointing up-left out of the frame. */
    set_vector (meta, 0, 0, -30.0f, -30.0f);
    const std::vector<guint8> before = buffer_bytes (buf);
    draw (buf, l, GST_MV_DRAW_ARROWS, 0.0f);
    const std::vector<guint8> after = buffer_bytes (buf);
    check_only_samples_written (l, before, after);
    CHECK_CHANGED (l, before, after, 640, 471, true, "edge block");
    for (int d = 0; d <= 8; ++d)
      CHECK_CHANGED (l, before, after, d, d, true, "to the corner");
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

/* The same drawing whatever the strides and offsets: GstVideoInfo's
 * default layout (test_format_buffer, no GstVideoMeta) against the padded
 * one. */
GST_START_TEST (test_layout_independent)
{
  for (GstVideoFormat f : kFormats)
    for (int mode = GST_MV_DRAW_ARROWS; mode <= GST_MV_DRAW_COLOR; ++mode) {
      const int w = 75, h = 43;
      const TestImage img = test_image (w, h, 17);
      const Layout ld = default_layout (f, w, h);
      const Layout lp = padded_layout (f, w, h);
      GstBuffer * bd = test_format_buffer (img, f, 0);
      GstBuffer * bp = make_buffer (lp, img, true);
      GstBuffer * bufs[] = { bd, bp };
      for (GstBuffer * b : bufs)
        fill_field (
            add_field (b, w, h, 8, GST_MOTION_VECTORS_DIRECTION_BACKWARD));
      const std::vector<guint8> orig = buffer_bytes (bd);
      draw (bd, ld, (GstMvDrawMode) mode, 0.0f);
      draw (bp, lp, (GstMvDrawMode) mode, 0.0f);
      const std::vector<guint8> a = buffer_bytes (bd), b = buffer_bytes (bp);
      fail_unless (a != orig, "%s: nothing drawn", fmt_name (f));
      for (int c = 0; c < ld.n_comps (); ++c)
        for (int y = 0; y < ld.comp_h (c); ++y)
          for (int x = 0; x < ld.comp_w (c); ++x)
            fail_unless_equals_int (a[ld.sample (c, x, y)],
                b[lp.sample (c, x, y)]);
      gst_buffer_unref (bd);
      gst_buffer_unref (bp);
    }
}

GST_END_TEST;

/* ---- through blockmatchme ---------------------------------------------- */

static GstHarness *
make_harness (const char * draw, const char * format, int w, int h)
{
  GstHarness * hrn = gst_harness_new ("blockmatchme");
  gst_util_set_object_arg (G_OBJECT (hrn->element), "draw", draw);
  gst_util_set_object_arg (G_OBJECT (hrn->element), "block-size", "16");
  gst_util_set_object_arg (G_OBJECT (hrn->element), "search-range", "8");
  gchar * caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
                                  "framerate=30/1",
      format, w, h);
  gst_harness_set_src_caps_str (hrn, caps);
  g_free (caps);
  return hrn;
}

/* Pushes img as `format`; returns whether the output bytes equal the
 * input's, and checks that the meta is there. */
static bool
push_unchanged (GstHarness * hrn, const TestImage & img, GstVideoFormat format,
    GstClockTime pts)
{
  GstBuffer * in = test_format_buffer (img, format, pts);
  const std::vector<guint8> ref = buffer_bytes (in);
  fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  fail_unless (gst_buffer_get_motion_vectors_meta (out) != NULL);
  const bool same = buffer_bytes (out) == ref;
  gst_buffer_unref (out);
  return same;
}

GST_START_TEST (test_element_draw)
{
  const GstVideoFormat formats[] = { GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_BGRx, GST_VIDEO_FORMAT_NV12, GST_VIDEO_FORMAT_GRAY8 };
  const char * modes[] = { "none", "arrows", "color" };
  const int w = 128, h = 96;
  const TestImage a = test_texture (w, h, 21);
  const TestImage b = test_shift (a, 4, 2);

  for (GstVideoFormat f : formats)
    for (const char * mode : modes) {
      GstHarness * hrn = make_harness (mode, fmt_name (f), w, h);
      /* The first frame has no estimate: nothing to draw in any mode. */
      fail_unless (push_unchanged (hrn, a, f, 0),
          "%s draw=%s: first frame changed", fmt_name (f), mode);
      const bool same = push_unchanged (hrn, b, f, GST_SECOND / 30);
      if (g_str_equal (mode, "none"))
        fail_unless (same, "%s draw=none changed the frame", fmt_name (f));
      else
        fail_unless (!same, "%s draw=%s left the frame as it was", fmt_name (f),
            mode);
      gst_harness_teardown (hrn);
    }
}

GST_END_TEST;

static Suite *
mvoverlay_suite (void)
{
  Suite * s = suite_create ("mvoverlay");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_arrows_backward);
  tcase_add_test (tc, test_arrows_forward);
  tcase_add_test (tc, test_arrows_other_directions);
  tcase_add_test (tc, test_nothing_to_draw);
  tcase_add_test (tc, test_color);
  tcase_add_test (tc, test_odd_sizes_no_overflow);
  tcase_add_test (tc, test_partial_edge_block);
  tcase_add_test (tc, test_layout_independent);
  tcase_add_test (tc, test_element_draw);
  return s;
}

GST_CHECK_MAIN (mvoverlay);
