/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The mvoverlay element through a GstHarness: its output equals
 * gst_mv_overlay_draw() applied directly on every supported format, "motion"
 * regions of interest outlined at exactly the expected samples (other ROI
 * types ignored, clipped at the frame), buffers without anything to draw
 * untouched, shared input buffers left intact, metas of another frame size
 * scaled to the frame, min-magnitude and scale, mode=none, unsupported caps
 * refused, every MUTABLE_PLAYING property stressed while frames flow, and a
 * parsed pipeline videotestsrc ! blockmatchme ! videoscale ! mvoverlay;
 * tracked regions labelled with their id (the built-in digits) and an
 * arrow along their direction (tracks=true), at exactly the expected
 * pixels.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <cstring>
#include <vector>

#include "../common/mvoverlay_testutil.h"

static gchar *
caps_string (GstVideoFormat f, int w, int h)
{
  return g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
                          "framerate=30/1",
      fmt_name (f), w, h);
}

/* The GstVideoInfo the element negotiates for these caps. */
static GstVideoInfo
caps_info (GstVideoFormat f, int w, int h)
{
  gchar * str = caps_string (f, w, h);
  GstCaps * caps = gst_caps_from_string (str);
  GstVideoInfo info;
  fail_unless (gst_video_info_from_caps (&info, caps));
  gst_caps_unref (caps);
  g_free (str);
  return info;
}

/* The layout of the frames the element negotiates for these caps (the
 * default GstVideoInfo layout, as test_format_buffer's). */
static Layout
layout_of (GstVideoFormat f, int w, int h)
{
  return layout_from_info (caps_info (f, w, h));
}

static GstHarness *
make_harness (GstVideoFormat f, int w, int h, const char * props = NULL)
{
  GstHarness * hrn = gst_harness_new ("mvoverlay");
  if (props) {
    gchar ** kv = g_strsplit (props, " ", -1);
    for (gchar ** p = kv; *p; ++p) {
      gchar ** pair = g_strsplit (*p, "=", 2);
      fail_unless (pair[0] && pair[1], "bad property %s", *p);
      gst_util_set_object_arg (G_OBJECT (hrn->element), pair[0], pair[1]);
      g_strfreev (pair);
    }
    g_strfreev (kv);
  }
  gchar * caps = caps_string (f, w, h);
  gst_harness_set_src_caps_str (hrn, caps);
  g_free (caps);
  return hrn;
}

/* The bytes of a deep copy of buf with its motion-vector meta drawn
 * directly, as the element should draw it; buf is left as it is. */
static std::vector<guint8>
draw_direct (GstBuffer * buf, GstVideoFormat f, int w, int h,
    GstMvDrawMode mode, const GstMvOverlayParams * params = NULL)
{
  GstBuffer * ref = gst_buffer_copy_deep (buf);
  draw (ref, layout_of (f, w, h), mode, 0.0f, params);
  std::vector<guint8> bytes = buffer_bytes (ref);
  gst_buffer_unref (ref);
  return bytes;
}

/* Pushes buf (ownership taken) and returns the output's bytes. */
static std::vector<guint8>
push_pull (GstHarness * hrn, GstBuffer * buf)
{
  fail_unless_equals_int (gst_harness_push (hrn, buf), GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (hrn);
  fail_unless (out != NULL);
  std::vector<guint8> bytes = buffer_bytes (out);
  gst_buffer_unref (out);
  return bytes;
}

/* ---- the element draws what gst_mv_overlay_draw() draws ---------------- */

GST_START_TEST (test_same_as_direct_draw)
{
  const int w = 75, h = 43;
  const char * modes[] = { "arrows", "color" };
  const GstMotionVectorsDirection dirs[] = {
    GST_MOTION_VECTORS_DIRECTION_BACKWARD, GST_MOTION_VECTORS_DIRECTION_FORWARD
  };

  for (GstVideoFormat f : kFormats)
    for (int m = 0; m < 2; ++m)
      for (GstMotionVectorsDirection dir : dirs) {
        const TestImage img = test_image (w, h, 17 + m);
        GstBuffer * in = test_format_buffer (img, f, 0);
        fill_field (add_field (in, w, h, 8, dir));
        const std::vector<guint8> orig = buffer_bytes (in);
        const std::vector<guint8> want =
            draw_direct (in, f, w, h, (GstMvDrawMode) (GST_MV_DRAW_ARROWS + m));
        fail_unless (want != orig, "%s: the reference drew nothing",
            fmt_name (f));

        gchar * props = g_strdup_printf ("mode=%s", modes[m]);
        GstHarness * hrn = make_harness (f, w, h, props);
        g_free (props);
        const std::vector<guint8> got = push_pull (hrn, in);
        fail_unless (got == want,
            "%s mode=%s %s: output differs from "
            "gst_mv_overlay_draw()",
            fmt_name (f), modes[m],
            dir == GST_MOTION_VECTORS_DIRECTION_BACKWARD ? "backward"
                                                         : "forward");
        gst_harness_teardown (hrn);
      }
}

GST_END_TEST;

/* min-magnitude and scale map to gst_mv_overlay_draw_full()'s parameters:
 * a 3-pixel vector under min-magnitude=5 is hidden, an 8-pixel one is not;
 * scale=2 doubles the arrow. */
GST_START_TEST (test_min_magnitude_and_scale)
{
  const int w = 96, h = 64;

  for (GstVideoFormat f : kFormats) {
    const Layout l = layout_of (f, w, h);
    const TestImage img = test_image (w, h, 23);
    GstBuffer * in = test_format_buffer (img, f, 0);
    GstMotionVectorsMeta * meta =
        add_field (in, w, h, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD);
    set_vector (meta, 1, 1, 3.0f, 0.0f); /* centre (24, 24) */
    set_vector (meta, 1, 3, 8.0f, 0.0f); /* centre (24, 56) */
    set_vector (meta, 4, 1, 0.0f, 5.0f); /* centre (72, 24) */
    const std::vector<guint8> orig = buffer_bytes (in);
    GstMvOverlayParams params;
    gst_mv_overlay_params_init (&params);
    params.min_magnitude = 4.0f;
    params.arrow_scale = 2.0f;
    const std::vector<guint8> want =
        draw_direct (in, f, w, h, GST_MV_DRAW_ARROWS, &params);

    GstHarness * hrn = make_harness (f, w, h, "min-magnitude=4 scale=2");
    const std::vector<guint8> got = push_pull (hrn, in);
    gst_harness_teardown (hrn);
    fail_unless (got == want,
        "%s: output differs from "
        "gst_mv_overlay_draw_full()",
        fmt_name (f));

    /* The short vector is not drawn at all. */
    for (int x = 0; x < 96; ++x)
      for (int y = 0; y < 40; ++y)
        if (!Rect{ 64, 20, 79, 43 }.contains (x, y))
          CHECK_CHANGED (l, orig, got, x, y, false, "short vector");
    /* 8 px x 2: the shaft reaches (40, 56), not (42, 56). */
    for (int x = 24; x <= 40; ++x)
      CHECK_CHANGED (l, orig, got, x, 56, true, "scaled shaft");
    CHECK_CHANGED (l, orig, got, 45, 56, false, "past the scaled head");
    /* 5 px x 2 down: (72, 24) to (72, 34). */
    for (int y = 24; y <= 34; ++y)
      CHECK_CHANGED (l, orig, got, 72, y, true, "scaled vertical");
    CHECK_CHANGED (l, orig, got, 72, 39, false, "past the vertical head");
  }
}

GST_END_TEST;

/* ---- regions ----------------------------------------------------------- */

struct Roi
{
  const char * type;
  int x, y, w, h;
};

static GstBuffer *
buffer_with_rois (GstVideoFormat f, int w, int h, const Roi * rois, int n_rois,
    unsigned seed)
{
  GstBuffer * buf = test_format_buffer (test_image (w, h, seed), f, 0);
  for (int i = 0; i < n_rois; ++i)
    fail_unless (gst_buffer_add_video_region_of_interest_meta (buf,
                     rois[i].type, rois[i].x, rois[i].y, rois[i].w, rois[i].h)
        != NULL);
  return buf;
}

/* Pixel (x, y) is on the 1-pixel outline of r (inside r). */
static bool
on_outline (const Roi & r, int x, int y)
{
  if (x < r.x || y < r.y || x >= r.x + r.w || y >= r.y + r.h)
    return false;
  return x == r.x || y == r.y || x == r.x + r.w - 1 || y == r.y + r.h - 1;
}

/* Checks every byte of `got` against `before` for the "motion" rois:
 * a sample of a drawable component covering an outline pixel holds that
 * rectangle's pen value, one per component and rectangle (red for RGB;
 * high V, low U for YUV; 0 or 255 on GRAY8); every other byte (interior,
 * outside, other ROI types, alpha, padding) is unchanged. */
static void
check_outlines (const Layout & l, const std::vector<guint8> & before,
    const std::vector<guint8> & got, const Roi * rois, int n_rois)
{
  const GstVideoFormat f = GST_VIDEO_INFO_FORMAT (&l.info);
  const int w = GST_VIDEO_INFO_WIDTH (&l.info);
  const int h = GST_VIDEO_INFO_HEIGHT (&l.info);
  std::vector<int> owner (got.size (), -1); /* roi drawing the byte */

  fail_unless_equals_int ((int) got.size (), (int) before.size ());
  for (int i = 0; i < n_rois; ++i) {
    if (strcmp (rois[i].type, "motion") != 0)
      continue;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        if (on_outline (rois[i], x, y))
          for (int c = 0; c < l.drawable (); ++c)
            owner[l.at (c, x, y)] = i;
  }
  for (int i = 0; i < n_rois; ++i) {
    int pen[3] = { -1, -1, -1 };
    for (int c = 0; c < l.drawable (); ++c)
      for (int cy = 0; cy < l.comp_h (c); ++cy)
        for (int cx = 0; cx < l.comp_w (c); ++cx) {
          const gsize b = l.sample (c, cx, cy);
          if (owner[b] != i)
            continue;
          if (pen[c] < 0)
            pen[c] = got[b];
          fail_unless_equals_int (got[b], pen[c]);
        }
    if (strcmp (rois[i].type, "motion") != 0)
      continue;
    fail_unless (pen[0] >= 0, "%s: rectangle %d has no visible outline",
        fmt_name (f), i);
    if (GST_VIDEO_INFO_IS_GRAY (&l.info)) {
      fail_unless (pen[0] == 0 || pen[0] == 255, "%s: grey pen %d",
          fmt_name (f), pen[0]);
    } else if (GST_VIDEO_INFO_IS_RGB (&l.info)) {
      fail_unless (pen[0] == 255 && pen[1] == 0 && pen[2] == 0,
          "%s: outline not red (%d, %d, %d)", fmt_name (f), pen[0], pen[1],
          pen[2]);
    } else {
      fail_unless (pen[2] > 200 && pen[1] < 128,
          "%s: outline not red (Y %d U %d V %d)", fmt_name (f), pen[0], pen[1],
          pen[2]);
    }
  }
  for (gsize b = 0; b < got.size (); ++b)
    if (owner[b] < 0 && got[b] != before[b])
      fail ("%s: byte %" G_GSIZE_FORMAT " changed (%d -> %d) but covers no "
            "outline pixel",
          fmt_name (f), b, before[b], got[b]);
}

GST_START_TEST (test_regions)
{
  const int w = 64, h = 48;
  const Roi rois[] = {
    { "motion", 10, 9, 20, 15 },  /* x 10..29, y 9..23 */
    { "face", 36, 4, 12, 10 },    /* not "motion": ignored */
    { "motion", 50, 38, 30, 30 }, /* clipped: only its left and top edges */
    { "motion", 41, 20, 2, 3 },   /* thinner than two outlines: filled */
  };
  const int n = G_N_ELEMENTS (rois);

  for (GstVideoFormat f : kFormats) {
    const Layout l = layout_of (f, w, h);
    GstBuffer * in = buffer_with_rois (f, w, h, rois, n, 29);
    const std::vector<guint8> before = buffer_bytes (in);
    GstHarness * hrn = make_harness (f, w, h);
    const std::vector<guint8> got = push_pull (hrn, in);
    gst_harness_teardown (hrn);
    check_outlines (l, before, got, rois, n);

    /* Spot checks in pixels: the corner, an edge, the interior next to
     * it, just outside, the ignored ROI's edge, the clipped ROI's edges. */
    CHECK_CHANGED (l, before, got, 10, 9, true, "corner");
    CHECK_CHANGED (l, before, got, 29, 15, true, "right edge");
    CHECK_CHANGED (l, before, got, 20, 23, true, "bottom edge");
    CHECK_CHANGED (l, before, got, 50, 45, true, "clipped left edge");
    CHECK_CHANGED (l, before, got, 60, 38, true, "clipped top edge");
    CHECK_CHANGED (l, before, got, 63, 45, false, "inside the clipped roi");
    CHECK_CHANGED (l, before, got, 42, 21, true, "filled thin roi");
    CHECK_CHANGED (l, before, got, 36, 4, false, "face roi");
    if (GST_VIDEO_INFO_IS_GRAY (&l.info) || GST_VIDEO_INFO_IS_RGB (&l.info)
        || f == GST_VIDEO_FORMAT_Y444) {
      /* Full-resolution colour: exact in pixels too. */
      CHECK_CHANGED (l, before, got, 11, 10, false, "interior");
      CHECK_CHANGED (l, before, got, 9, 9, false, "outside");
      CHECK_CHANGED (l, before, got, 30, 23, false, "outside");
    }
    CHECK_CHANGED (l, before, got, 20, 16, false, "deep interior");

    /* regions=false: nothing at all. */
    in = buffer_with_rois (f, w, h, rois, n, 29);
    hrn = make_harness (f, w, h, "regions=false");
    fail_unless (push_pull (hrn, in) == before,
        "%s: regions=false drew something", fmt_name (f));
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

/* The rectangle helper directly: thicker outlines, wholly or partly
 * outside the frame, huge sizes, empty sizes, odd frames. */
/* ---- track labels ------------------------------------------------------ */

/* A "motion" ROI with the parameter of a track (decision=tracks). */
static void
add_tracked_roi (GstBuffer * buf, int x, int y, int w, int h, guint id,
    double vx, double vy)
{
  GstVideoRegionOfInterestMeta * roi =
      gst_buffer_add_video_region_of_interest_meta (buf, "motion", x, y, w, h);
  fail_unless (roi != NULL);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new (GST_MOTION_REGION_PARAM_NAME, "mean-dx", G_TYPE_DOUBLE,
          -vx, "mean-dy", G_TYPE_DOUBLE, -vy, "area", G_TYPE_INT, 4, "pixels",
          G_TYPE_INT, w * h, "track-id", G_TYPE_UINT, id, "frames", G_TYPE_UINT,
          5u, "age", G_TYPE_UINT64, (guint64) GST_SECOND, "vx", G_TYPE_DOUBLE,
          vx, "vy", G_TYPE_DOUBLE, vy, NULL));
}

/* The RGB (or GRAY8: grey, grey, grey) of pixel (x, y). */
static guint32
pixel_rgb (const std::vector<guint8> & b, const Layout & l, int x, int y)
{
  const gsize bpp = GST_VIDEO_INFO_IS_GRAY (&l.info) ? 1 : 3;
  const guint8 * p = &b[l.offset[0] + (gsize) y * l.stride[0] + x * bpp];
  return bpp == 1 ? (guint32) p[0] * 0x010101u
                  : ((guint32) p[0] << 16) | ((guint32) p[1] << 8) | p[2];
}

#define CHECK_PIXEL(b, l, x, y, want, what)                                    \
  do {                                                                         \
    const guint32 got_ = pixel_rgb (b, l, x, y);                               \
    fail_unless (got_ == (guint32) (want), "%s: (%d, %d) is %06x, not %06x",   \
        what, x, y, got_, (guint32) (want));                                   \
  } while (0)

static const guint32 kGrey = 0x808080, kRed = 0xff0000, kWhite = 0xffffff,
                     kYellow = 0xffff00, kBlack = 0x000000;

/* 160x120 (font scale 2): A, box (40, 40) 40x30, track 12 moving right
 * (2, 0); B, box (100, 4) 30x30, track 7 at rest, too close to the top
 * for a tag above; C, box (10, 80) 20x20, no track. */
static GstBuffer *
tracked_buffer (GstVideoFormat f)
{
  GstBuffer * buf = test_format_buffer (grey_image (160, 120), f, 0);
  add_tracked_roi (buf, 40, 40, 40, 30, 12, 2.0, 0.0);
  add_tracked_roi (buf, 100, 4, 30, 30, 7, 0.0, 0.0);
  fail_unless (gst_buffer_add_video_region_of_interest_meta (buf, "motion", 10,
                   80, 20, 20)
      != NULL);
  return buf;
}

GST_START_TEST (test_track_labels)
{
  const Layout l = layout_of (GST_VIDEO_FORMAT_RGB, 160, 120);
  GstHarness * hrn = make_harness (GST_VIDEO_FORMAT_RGB, 160, 120, "mode=none");
  std::vector<guint8> got =
      push_pull (hrn, tracked_buffer (GST_VIDEO_FORMAT_RGB));

  /* A's tag: (4 * 2 + 1) * 2 x 7 * 2 = 18 x 14 at (40, 26), just above the
   * box; "1" at (42, 28) (its top row .X.), "2" at (50, 28) (XXX). */
  CHECK_PIXEL (got, l, 40, 26, kRed, "A's tag, corner");
  CHECK_PIXEL (got, l, 57, 39, kRed, "A's tag, opposite corner");
  CHECK_PIXEL (got, l, 58, 39, kGrey, "right of A's tag");
  CHECK_PIXEL (got, l, 40, 25, kGrey, "above A's tag");
  CHECK_PIXEL (got, l, 42, 28, kRed, "\"1\", top-left font pixel");
  CHECK_PIXEL (got, l, 44, 28, kWhite, "\"1\", top-middle font pixel");
  CHECK_PIXEL (got, l, 45, 29, kWhite, "\"1\", same font pixel, 2x2");
  CHECK_PIXEL (got, l, 42, 30, kWhite, "\"1\", second row .XX: left");
  CHECK_PIXEL (got, l, 42, 36, kWhite, "\"1\", bottom row XXX");
  CHECK_PIXEL (got, l, 50, 28, kWhite, "\"2\", top row XXX");
  CHECK_PIXEL (got, l, 50, 30, kRed, "\"2\", second row ..X: left");
  CHECK_PIXEL (got, l, 54, 30, kWhite, "\"2\", second row ..X: right");
  /* A's arrow: from the centre (60, 55) to the right, 15 px (half the
   * smaller side), 2 pixels thick from scale 2 on. */
  CHECK_PIXEL (got, l, 65, 55, kYellow, "A's arrow");
  CHECK_PIXEL (got, l, 65, 56, kYellow, "A's arrow, second line");
  CHECK_PIXEL (got, l, 74, 55, kYellow, "A's arrow, near its head");
  CHECK_PIXEL (got, l, 55, 55, kGrey, "behind A's centre");
  CHECK_PIXEL (got, l, 78, 55, kGrey, "beyond A's arrow head");
  CHECK_PIXEL (got, l, 40, 40, kRed, "A's outline");
  /* B: the tag inside the box's corner, "7" (XXX / ..X); no arrow. */
  CHECK_PIXEL (got, l, 100, 4, kRed, "B's tag, corner");
  CHECK_PIXEL (got, l, 109, 17, kRed, "B's tag, opposite corner");
  CHECK_PIXEL (got, l, 102, 6, kWhite, "\"7\", top row");
  CHECK_PIXEL (got, l, 102, 8, kRed, "\"7\", second row, left");
  CHECK_PIXEL (got, l, 106, 8, kWhite, "\"7\", second row, right");
  CHECK_PIXEL (got, l, 110, 4, kRed, "B's outline next to the tag");
  for (int x = 100; x < 130; x++)
    for (int y = 18; y < 34; y++)
      if (x > 100 && x < 129 && y < 33)
        CHECK_PIXEL (got, l, x, y, kGrey, "inside B: no arrow");
  /* C: no track, an outline only. */
  CHECK_PIXEL (got, l, 10, 80, kRed, "C's outline");
  for (int y = 66; y < 80; y++)
    CHECK_PIXEL (got, l, 12, y, kGrey, "above C: no tag");

  /* tracks=false: outlines only. */
  g_object_set (hrn->element, "tracks", FALSE, NULL);
  got = push_pull (hrn, tracked_buffer (GST_VIDEO_FORMAT_RGB));
  CHECK_PIXEL (got, l, 40, 26, kGrey, "tracks=false: A's tag");
  CHECK_PIXEL (got, l, 65, 55, kGrey, "tracks=false: A's arrow");
  CHECK_PIXEL (got, l, 40, 40, kRed, "tracks=false: A's outline");
  /* regions=false: no label either. */
  g_object_set (hrn->element, "tracks", TRUE, "regions", FALSE, NULL);
  got = push_pull (hrn, tracked_buffer (GST_VIDEO_FORMAT_RGB));
  CHECK_PIXEL (got, l, 44, 28, kGrey, "regions=false: A's digit");
  CHECK_PIXEL (got, l, 65, 55, kGrey, "regions=false: A's arrow");
  gst_harness_teardown (hrn);

  /* GRAY8: a black tag, white digits, the arrow black over this mid grey
   * (as the field's arrows: black over content >= 128). */
  const Layout lg = layout_of (GST_VIDEO_FORMAT_GRAY8, 160, 120);
  hrn = make_harness (GST_VIDEO_FORMAT_GRAY8, 160, 120, "mode=none");
  got = push_pull (hrn, tracked_buffer (GST_VIDEO_FORMAT_GRAY8));
  CHECK_PIXEL (got, lg, 40, 26, kBlack, "GRAY8: A's tag");
  CHECK_PIXEL (got, lg, 44, 28, kWhite, "GRAY8: \"1\"");
  CHECK_PIXEL (got, lg, 65, 55, kBlack, "GRAY8: A's arrow");
  CHECK_PIXEL (got, lg, 55, 55, kGrey, "GRAY8: behind A's centre");
  gst_harness_teardown (hrn);
}

GST_END_TEST;

GST_START_TEST (test_draw_rect_direct)
{
  struct Case
  {
    int x, y, w, h, t;
  };
  const Case cases[] = {
    { 3, 2, 9, 7, 2 },
    { -5, -4, 12, 9, 3 },
    { -100, -100, 50, 50, 1 },
    { 20, 10, 1000000, 2000000, 1 },
    { G_MININT / 2, 5, G_MAXINT, 4, 1 },
    { 4, 4, 0, 5, 1 },
    { 4, 4, 5, -3, 1 },
    { 1, 1, 4, 4, 0 },
  };
  const int sizes[][2] = { { 33, 17 }, { 7, 5 }, { 1, 1 } };

  for (GstVideoFormat f : kFormats)
    for (const auto & s : sizes)
      for (const Case & k : cases) {
        const int w = s[0], h = s[1];
        const Layout l = layout_of (f, w, h);
        GstBuffer * buf = test_format_buffer (test_image (w, h, 31), f, 0);
        const std::vector<guint8> before = buffer_bytes (buf);
        GstVideoInfo info = l.info;
        GstVideoFrame frame;
        fail_unless (
            gst_video_frame_map (&frame, &info, buf, GST_MAP_READWRITE));
        gst_mv_overlay_draw_rect (&frame, k.x, k.y, k.w, k.h, 0x00ff00,
            (guint) k.t);
        gst_video_frame_unmap (&frame);
        const std::vector<guint8> got = buffer_bytes (buf);
        gst_buffer_unref (buf);

        const long long t = MAX (k.t, 1);
        const long long x1 = (long long) k.x + k.w, y1 = (long long) k.y + k.h;
        for (int y = 0; y < h; ++y)
          for (int x = 0; x < w; ++x) {
            const bool in =
                k.w > 0 && k.h > 0 && x >= k.x && x < x1 && y >= k.y && y < y1;
            const bool edge = in
                && (x < k.x + t || x >= x1 - t || y < k.y + t || y >= y1 - t);
            if (edge)
              CHECK_CHANGED (l, before, got, x, y, true, "outline");
            else if (GST_VIDEO_INFO_IS_GRAY (&l.info)
                || GST_VIDEO_INFO_IS_RGB (&l.info))
              CHECK_CHANGED (l, before, got, x, y, false, "not outline");
            else
              /* Luma exact; chroma may bleed by the subsampling. */
              fail_unless_equals_int (got[l.at (0, x, y)],
                  before[l.at (0, x, y)]);
          }
        /* Alpha, x and padding bytes: never. */
        const std::vector<bool> drawable = drawable_mask (l, got.size ());
        for (gsize b = 0; b < got.size (); ++b)
          if (!drawable[b])
            fail_unless_equals_int (got[b], before[b]);
      }
}

GST_END_TEST;

/* ---- untouched buffers ------------------------------------------------- */

/* No meta at all, only a non-"motion" ROI, or a field with mode=none: the
 * bytes are unchanged (and, when nothing is to be drawn, the very same
 * memory goes out). */
GST_START_TEST (test_nothing_to_draw)
{
  const int w = 48, h = 32;
  const Roi face = { "face", 4, 4, 20, 20 };

  for (GstVideoFormat f : kFormats) {
    GstHarness * hrn = make_harness (f, w, h);
    GstBuffer * in = test_format_buffer (test_image (w, h, 37), f, 0);
    const std::vector<guint8> before = buffer_bytes (in);
    GstMemory * mem = gst_buffer_peek_memory (in, 0);
    fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
    GstBuffer * out = gst_harness_pull (hrn);
    fail_unless (buffer_bytes (out) == before, "%s: no meta, changed",
        fmt_name (f));
    fail_unless (gst_buffer_peek_memory (out, 0) == mem,
        "%s: memory replaced though nothing was drawn", fmt_name (f));
    gst_buffer_unref (out);

    in = buffer_with_rois (f, w, h, &face, 1, 37);
    fail_unless (push_pull (hrn, in) == before, "%s: face ROI drawn",
        fmt_name (f));
    gst_harness_teardown (hrn);

    hrn = make_harness (f, w, h, "mode=none");
    in = test_format_buffer (test_image (w, h, 37), f, 0);
    GstMotionVectorsMeta * meta =
        add_field (in, w, h, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    fill_field (meta);
    set_vector (meta, 1, 1, 9.0f, -4.0f);
    fail_unless (push_pull (hrn, in) == before, "%s: mode=none drew",
        fmt_name (f));
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

/* A buffer the sender still holds is not written: the element draws on
 * its own copy, and the input keeps its bytes. */
GST_START_TEST (test_shared_input_not_written)
{
  const int w = 64, h = 48;

  for (GstVideoFormat f : kFormats) {
    GstBuffer * in = test_format_buffer (test_image (w, h, 41), f, 0);
    fill_field (
        add_field (in, w, h, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD));
    const std::vector<guint8> before = buffer_bytes (in);
    const std::vector<guint8> want =
        draw_direct (in, f, w, h, GST_MV_DRAW_ARROWS);

    GstHarness * hrn = make_harness (f, w, h);
    gst_buffer_ref (in); /* not writable when it arrives */
    fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
    GstBuffer * out = gst_harness_pull (hrn);
    fail_unless (buffer_bytes (out) == want, "%s: copy not drawn",
        fmt_name (f));
    fail_unless (buffer_bytes (in) == before, "%s: shared input written",
        fmt_name (f));
    fail_unless (gst_buffer_get_motion_vectors_meta (out) != NULL);
    gst_buffer_unref (out);
    gst_buffer_unref (in);
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

/* ---- metas of another frame size --------------------------------------- */

/* A 128x96 field with 16x16 blocks on a 64x48 frame (halved). The forward
 * vector (12, 0) of block (2, 1) (field centre (40, 24)) becomes an arrow
 * from (19.75, 11.75) to (25.75, 11.75), i.e. pixels (20..26, 12); in
 * colour mode the block covers exactly [16, 24) x [8, 16). */
GST_START_TEST (test_scaled_meta)
{
  const int w = 64, h = 48, fw = 128, fh = 96;

  for (GstVideoFormat f : kFormats) {
    const Layout l = layout_of (f, w, h);

    GstBuffer * in = test_format_buffer (test_image (w, h, 43), f, 0);
    GstMotionVectorsMeta * meta =
        add_field (in, fw, fh, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD);
    set_vector (meta, 2, 1, 12.0f, 0.0f);
    const std::vector<guint8> before = buffer_bytes (in);
    const std::vector<guint8> want =
        draw_direct (in, f, w, h, GST_MV_DRAW_ARROWS);

    GstHarness * hrn = make_harness (f, w, h);
    const std::vector<guint8> got = push_pull (hrn, in);
    gst_harness_teardown (hrn);
    fail_unless (got == want, "%s: differs from gst_mv_overlay_draw()",
        fmt_name (f));
    for (int x = 20; x <= 26; ++x)
      CHECK_CHANGED (l, before, got, x, 12, true, "scaled shaft");
    CHECK_CHANGED (l, before, got, 17, 12, false, "before the tail");
    CHECK_CHANGED (l, before, got, 30, 12, false, "past the head");
    /* Where the unscaled arrow would be: (40..52, 24). */
    for (int x = 40; x <= 52; ++x)
      CHECK_CHANGED (l, before, got, x, 24, false, "unscaled position");
    check_changes_inside (l, before, got, Rect{ 16, 8, 31, 15 }, "scaled");

    /* Flat grey, so that every tinted pixel changes (a texture may
     * already hold the tint's grey level on GRAY8). */
    const TestImage grey = grey_image (w, h);
    in = test_format_buffer (grey, f, 0);
    const std::vector<guint8> flat = buffer_bytes (in);
    meta = add_field (in, fw, fh, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD);
    set_vector (meta, 2, 1, 12.0f, 0.0f);
    hrn = make_harness (f, w, h, "mode=color");
    const std::vector<guint8> tinted = push_pull (hrn, in);
    gst_harness_teardown (hrn);
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        CHECK_CHANGED (l, flat, tinted, x, y,
            x >= 16 && x < 24 && y >= 8 && y < 16, "scaled colour block");
  }
}

GST_END_TEST;

/* A smaller field drawn on a larger frame (x3 across, x2 down): odd sizes,
 * every block tinted exactly once, nothing outside the visible samples. */
GST_START_TEST (test_scaled_up_colour_tiles)
{
  const int fw = 25, fh = 14, w = 75, h = 28;

  for (GstVideoFormat f : kFormats) {
    const Layout l = layout_of (f, w, h);
    const TestImage grey = grey_image (w, h);
    GstBuffer * in = test_format_buffer (grey, f, 0);
    GstMotionVectorsMeta * meta =
        add_field (in, fw, fh, 8, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    for (guint i = 0; i < meta->n_vectors; ++i) {
      meta->vectors[i].dx = 4.0f;
      meta->vectors[i].dy = 0.0f;
      meta->vectors[i].flags = 0;
    }
    const std::vector<guint8> before = buffer_bytes (in);
    GstHarness * hrn = make_harness (f, w, h, "mode=color");
    const std::vector<guint8> got = push_pull (hrn, in);
    gst_harness_teardown (hrn);
    /* One motion everywhere: one tint, on every pixel of the frame. */
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x)
        for (int c = 0; c < l.drawable (); ++c)
          fail_unless_equals_int (got[l.at (c, x, y)], got[l.at (c, 0, 0)]);
    fail_unless (pixel_changed (l, before, got, w - 1, h - 1));
  }
}

GST_END_TEST;

/* ---- negotiation, properties, pipeline --------------------------------- */

GST_START_TEST (test_unsupported_caps)
{
  const char * caps[] = {
    "video/x-raw,format=UYVY,width=64,height=48,framerate=30/1",
    "video/x-raw,format=I420_10LE,width=64,height=48,framerate=30/1",
    "video/x-raw,format=RGB16,width=64,height=48,framerate=30/1",
    "video/x-raw(memory:GLMemory),format=RGBA,width=64,height=48,"
    "framerate=30/1",
  };

  for (const char * c : caps) {
    GstHarness * hrn = gst_harness_new ("mvoverlay");
    gst_harness_set_src_caps_str (hrn, c);
    GstBuffer * buf = gst_buffer_new_allocate (NULL, 64 * 48 * 4, NULL);
    fail_unless_equals_int (gst_harness_push (hrn, buf),
        GST_FLOW_NOT_NEGOTIATED);
    gst_harness_teardown (hrn);
  }
  /* And every supported format is accepted. */
  for (GstVideoFormat f : kFormats) {
    GstHarness * hrn = make_harness (f, 16, 16);
    GstBuffer * buf = test_format_buffer (test_image (16, 16, 1), f, 0);
    fail_unless_equals_int (gst_harness_push (hrn, buf), GST_FLOW_OK);
    gst_harness_teardown (hrn);
  }
}

GST_END_TEST;

GST_START_TEST (test_properties)
{
  GstElement * e = gst_element_factory_make ("mvoverlay", NULL);
  fail_unless (e != NULL);
  gint mode;
  gboolean regions, tracks;
  gdouble min_mag, scale;
  g_object_get (e, "mode", &mode, "regions", &regions, "min-magnitude",
      &min_mag, "scale", &scale, "tracks", &tracks, NULL);
  fail_unless_equals_int (mode, GST_MV_DRAW_ARROWS);
  fail_unless (regions);
  fail_unless (tracks);
  fail_unless_equals_float (min_mag, 0.0);
  fail_unless_equals_float (scale, 1.0);

  /* The matchers' draw enum type (registered by the plugin: this test
   * links its own copy of gstmatchcommon, so GST_TYPE_MV_DRAW_MODE is not
   * called here). */
  GParamSpec * ps =
      g_object_class_find_property (G_OBJECT_GET_CLASS (e), "mode");
  GstElement * bm = gst_element_factory_make ("blockmatchme", NULL);
  fail_unless (bm != NULL);
  GParamSpec * draw =
      g_object_class_find_property (G_OBJECT_GET_CLASS (bm), "draw");
  fail_unless (ps->value_type == draw->value_type);
  fail_unless_equals_string (g_type_name (ps->value_type), "GstMvDrawMode");
  gst_object_unref (bm);
  const char * names[] = { "mode", "regions", "min-magnitude", "scale",
    "tracks" };
  for (const char * n : names) {
    ps = g_object_class_find_property (G_OBJECT_GET_CLASS (e), n);
    fail_unless (ps != NULL);
    fail_unless (ps->flags & GST_PARAM_MUTABLE_PLAYING, "%s", n);
  }

  gst_util_set_object_arg (G_OBJECT (e), "mode", "color");
  g_object_set (e, "regions", FALSE, "min-magnitude", 2.5, "scale", 3.0, NULL);
  g_object_get (e, "mode", &mode, "regions", &regions, "min-magnitude",
      &min_mag, "scale", &scale, NULL);
  fail_unless_equals_int (mode, GST_MV_DRAW_COLOR);
  fail_unless (!regions);
  fail_unless_equals_float (min_mag, 2.5);
  fail_unless_equals_float (scale, 3.0);
  gst_object_unref (e);
}

GST_END_TEST;

/* Every MUTABLE_PLAYING property set from other threads while frames with
 * a field and a motion region flow: no crash, every frame comes out. */
GST_START_TEST (test_property_stress)
{
  const int w = 64, h = 48;
  const Roi roi = { "motion", 8, 8, 20, 12 };
  GstHarness * hrn = make_harness (GST_VIDEO_FORMAT_I420, w, h);
  GstHarnessThread * threads[4];
  GValue v = G_VALUE_INIT;

  g_value_init (&v,
      g_object_class_find_property (G_OBJECT_GET_CLASS (hrn->element), "mode")
          ->value_type);
  g_value_set_enum (&v, GST_MV_DRAW_COLOR);
  threads[0] = gst_harness_stress_property_start_full (hrn, "mode", &v, 0);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_BOOLEAN);
  g_value_set_boolean (&v, FALSE);
  threads[1] = gst_harness_stress_property_start_full (hrn, "regions", &v, 0);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 3.0);
  threads[2] =
      gst_harness_stress_property_start_full (hrn, "min-magnitude", &v, 0);
  g_value_set_double (&v, 2.0);
  threads[3] = gst_harness_stress_property_start_full (hrn, "scale", &v, 0);
  g_value_unset (&v);

  for (int i = 0; i < 50; ++i) {
    GstBuffer * in =
        buffer_with_rois (GST_VIDEO_FORMAT_I420, w, h, &roi, 1, (unsigned) i);
    fill_field (add_field (in, w, h, 8, GST_MOTION_VECTORS_DIRECTION_BACKWARD));
    fail_unless_equals_int (gst_harness_push (hrn, in), GST_FLOW_OK);
    gst_buffer_unref (gst_harness_pull (hrn));
  }
  for (GstHarnessThread * t : threads)
    gst_harness_stress_thread_stop (t);
  gst_harness_teardown (hrn);
}

GST_END_TEST;

struct Counts
{
  gint buffers;
  gint fields; /* buffers with a GstMotionVectorsMeta */
};

static GstPadProbeReturn
count_buffers (GstPad *, GstPadProbeInfo * info, gpointer user_data)
{
  Counts * n = (Counts *) user_data;
  g_atomic_int_inc (&n->buffers);
  if (gst_buffer_get_motion_vectors_meta (GST_PAD_PROBE_INFO_BUFFER (info)))
    g_atomic_int_inc (&n->fields);
  return GST_PAD_PROBE_OK;
}

/* Runs `desc` (one element named "ovl") to EOS; counts what reached ovl. */
static Counts
run_pipeline (const char * desc)
{
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc,
      err ? err->message : "?");
  GstElement * ovl = gst_bin_get_by_name (GST_BIN (pipe), "ovl");
  fail_unless (ovl != NULL);
  Counts n = { 0, 0 };
  GstPad * pad = gst_element_get_static_pad (ovl, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_buffers, &n, NULL);
  gst_object_unref (pad);
  gst_object_unref (ovl);

  fail_unless (gst_element_set_state (pipe, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  GstBus * bus = gst_element_get_bus (pipe);
  GstMessage * msg = gst_bus_timed_pop_filtered (bus, 60 * GST_SECOND,
      (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  fail_unless (msg != NULL, "%s: timed out", desc);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError * e = NULL;
    gchar * dbg = NULL;
    gst_message_parse_error (msg, &e, &dbg);
    fail ("%s: %s (%s)", desc, e->message, dbg ? dbg : "");
  }
  gst_message_unref (msg);
  gst_object_unref (bus);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return n;
}

GST_START_TEST (test_pipeline)
{
  /* videoscale negotiates no resize here: the field reaches mvoverlay on
   * every frame and is drawn. */
  Counts n = run_pipeline (
      "videotestsrc num-buffers=4 ! "
      "video/x-raw,width=160,height=120 ! blockmatchme backend=cpu ! "
      "videoscale ! mvoverlay name=ovl ! fakesink");
  fail_unless_equals_int (n.buffers, 4);
  fail_unless_equals_int (n.fields, 4);
  /* A real resize and the colour mode: the field survives the scaler (in
   * the analysed frame's coordinates) and is drawn on every frame. */
  n = run_pipeline (
      "videotestsrc num-buffers=4 pattern=ball ! "
      "video/x-raw,width=160,height=120 ! blockmatchme backend=cpu ! "
      "videoscale ! video/x-raw,width=80,height=60 ! "
      "mvoverlay name=ovl mode=color ! fakesink");
  fail_unless_equals_int (n.buffers, 4);
  fail_unless_equals_int (n.fields, 4);
}

GST_END_TEST;

static Suite *
mvoverlay_element_suite (void)
{
  Suite * s = suite_create ("mvoverlay_element");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_same_as_direct_draw);
  tcase_add_test (tc, test_min_magnitude_and_scale);
  tcase_add_test (tc, test_regions);
  tcase_add_test (tc, test_track_labels);
  tcase_add_test (tc, test_draw_rect_direct);
  tcase_add_test (tc, test_nothing_to_draw);
  tcase_add_test (tc, test_shared_input_not_written);
  tcase_add_test (tc, test_scaled_meta);
  tcase_add_test (tc, test_scaled_up_colour_tiles);
  tcase_add_test (tc, test_unsupported_caps);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_property_stress);
  tcase_add_test (tc, test_pipeline);
  return s;
}

GST_CHECK_MAIN (mvoverlay_element);
