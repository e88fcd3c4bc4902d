/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * stereodisparity element tests (two GstHarness inputs on one element):
 * caps for every output mode and input formats, pairing by timestamp,
 * missing frames on either side, EOS on one side, live timeouts, size
 * mismatch, flush, property ranges and settings errors, exact equality
 * with match::ref::stereo_match, the fixed gray8/colour/depth conversions,
 * backend=cuda, property stress, a golden Tsukuba regression, and
 * pipelining (pipeline-depth: the outputs of the synchronous mode, N pairs
 * late; EOS and other serialized events drain, a flush drops, caps and
 * setting changes drain, latency), on the CPU and on CUDA where a device
 * opens.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

/* before gstcheck.h, whose fail() macro clashes with <ios> */
#include <fstream>
#include <sstream>

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/check/gsttestclock.h>
#include <gst/video/video.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../common/checkutil.h"
#include "../common/testutil.h"
#include "match/blockmatch.h"
#include "match/stereo.h"

#define W 67 /* odd sizes on purpose */
#define H 45
#define FRAME (GST_SECOND / 30)

/* One element, a harness per sink pad; `left` also owns the output. */
struct Pair
{
  GstElement * el;
  GstHarness * left;
  GstHarness * right;
};

static void
set_caps (GstHarness * h, const char * format, int w, int hgt,
    const char * framerate = "30/1")
{
  gchar * caps = g_strdup_printf ("video/x-raw,format=%s,width=%d,height=%d,"
                                  "framerate=%s",
      format, w, hgt, framerate);
  gst_harness_set_src_caps_str (h, caps);
  g_free (caps);
}

/* The harness is a live source with a test clock that never moves unless
 * a test moves it; a generous latency keeps GstAggregator from timing out
 * while a test pushes one view after the other. */
static Pair
make_pair_full (const char * props, const char * lformat, int lw, int lh,
    const char * rformat, int rw, int rh)
{
  Pair p;
  p.el = gst_element_factory_make ("stereodisparity", NULL);
  fail_unless (p.el != NULL);
  g_object_set (p.el, "latency", (guint64) (10 * GST_SECOND), NULL);
  test_set_props (p.el, props);
  p.left = gst_harness_new_with_element (p.el, "sink_left", "src");
  p.right = gst_harness_new_with_element (p.el, "sink_right", NULL);
  set_caps (p.left, lformat, lw, lh);
  set_caps (p.right, rformat, rw, rh);
  return p;
}

static Pair
make_pair (const char * props, const char * format = "GRAY8", int w = W,
    int h = H)
{
  return make_pair_full (props, format, w, h, format, w, h);
}

static void
free_pair (Pair & p)
{
  gst_harness_teardown (p.right);
  gst_harness_teardown (p.left);
  gst_object_unref (p.el);
}

static GstBuffer *
frame_buffer (const TestImage & img, GstVideoFormat format, GstClockTime pts)
{
  GstBuffer * buf = test_format_buffer (img, format, pts);
  GST_BUFFER_DURATION (buf) = FRAME;
  return buf;
}

static void
push (GstHarness * h, const TestImage & img, GstClockTime pts,
    GstVideoFormat format = GST_VIDEO_FORMAT_GRAY8)
{
  fail_unless_equals_int (gst_harness_push (h, frame_buffer (img, format, pts)),
      GST_FLOW_OK);
}

static guint64
dropped (GstElement * el)
{
  guint64 n = 0;
  g_object_get (el, "dropped-frames", &n, NULL);
  return n;
}

/* Waits for the EOS event on the output (caller checks buffers after). */
static void
wait_eos (GstHarness * h)
{
  for (;;) {
    GstEvent * ev = gst_harness_pull_event (h);
    fail_unless (ev != NULL, "no EOS on the output");
    const gboolean eos = GST_EVENT_TYPE (ev) == GST_EVENT_EOS;
    gst_event_unref (ev);
    if (eos)
      return;
  }
}

/* A stereo pair of the same random texture: right(x) = left(x + d), so the
 * left view's disparity is d everywhere away from the borders. */
static void
make_views (int w, int h, unsigned seed, int d, TestImage * left,
    TestImage * right)
{
  *left = test_texture (w, h, seed);
  *right = test_shift (*left, -d, 0);
}

static match::StereoConfig
config_from (GstElement * el, int w, int h)
{
  guint ww, wh, mind, numd, cw, ch, paths, cwin;
  gint ref, method, cost;
  g_object_get (el, "window-width", &ww, "window-height", &wh, "min-disparity",
      &mind, "num-disparities", &numd, "reference", &ref, "method", &method,
      "cost", &cost, "census-width", &cw, "census-height", &ch, "paths", &paths,
      "cost-window", &cwin, NULL);
  match::StereoConfig c;
  c.width = w;
  c.height = h;
  c.window_width = (int) ww;
  c.window_height = (int) wh;
  c.min_disparity = (int) mind;
  c.num_disparities = (int) numd;
  c.reference =
      ref ? match::StereoReference::kRight : match::StereoReference::kLeft;
  c.method = (match::StereoMethod) method;
  c.cost = (match::StereoCost) cost;
  c.census_width = (int) cw;
  c.census_height = (int) ch;
  c.paths = (int) paths;
  c.cost_window = (int) cwin;
  return c;
}

static match::StereoRuntime
runtime_from (GstElement * el)
{
  gboolean sub, median, fill;
  gint lr, cost;
  guint uniq, tex, p1, p2, p2_edge, speckle_size, speckle_range, jm, jm_range;
  g_object_get (el, "subpixel", &sub, "lr-max-diff", &lr, "uniqueness-ratio",
      &uniq, "texture-threshold", &tex, "cost", &cost, "p1", &p1, "p2", &p2,
      "p2-edge", &p2_edge, "median", &median, "speckle-size", &speckle_size,
      "speckle-range", &speckle_range, "fill-invalid", &fill, "joint-median",
      &jm, "joint-median-range", &jm_range, NULL);
  match::StereoRuntime rt;
  /* p1 = p2 = 0: the cost's documented defaults. */
  const match::SgmPenalties def =
      match::default_sgm_penalties ((match::StereoCost) cost);
  rt.p1 = p1 ? (int) p1 : def.p1;
  rt.p2 = p2 ? (int) p2 : def.p2;
  rt.p2_edge = (int) p2_edge;
  rt.median = median;
  rt.speckle_size = (int) speckle_size;
  rt.speckle_range = (int) speckle_range;
  rt.fill_invalid = fill;
  rt.joint_median_radius = (int) jm;
  rt.joint_median_range = (int) jm_range;
  rt.subpixel = sub;
  rt.lr_max_diff = lr;
  rt.uniqueness_ratio = (int) uniq;
  rt.texture_threshold = (int) tex;
  return rt;
}

/* match::ref::stereo_match on the element's current settings. */
static std::vector<uint16_t>
reference_map (GstElement * el, const TestImage & l, const TestImage & r)
{
  std::vector<uint16_t> out ((size_t) l.width * l.height, 0x1234);
  match::ImageView lv{ l.pixels.data (), l.width, l.height, l.width };
  match::ImageView rv{ r.pixels.data (), r.width, r.height, r.width };
  match::DisparityView dv;
  dv.data = out.data ();
  dv.width = l.width;
  dv.height = l.height;
  dv.stride_bytes = (std::ptrdiff_t) l.width * 2;
  match::Status st = match::ref::stereo_match (lv, rv,
      config_from (el, l.width, l.height), runtime_from (el), dv);
  fail_unless (st.is_ok (), "ref::stereo_match: %s", st.message ().c_str ());
  return out;
}

/* The output buffer's plane 0 as rows of `bpp` bytes (caps from the pad). */
struct OutFrame
{
  GstVideoInfo info;
  std::vector<uint8_t> data; /* tightly packed, width * bpp */
  int bpp;

  uint16_t u16 (int x, int y) const
  {
    const uint8_t * p = &data[((size_t) y * info.width + x) * 2];
    return (uint16_t) (p[0] | (p[1] << 8));
  }
  const uint8_t * px (int x, int y) const
  {
    return &data[((size_t) y * info.width + x) * bpp];
  }
};

static OutFrame
read_output (GstHarness * h, GstBuffer * buf)
{
  OutFrame f;
  GstCaps * caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (caps != NULL);
  fail_unless (gst_video_info_from_caps (&f.info, caps));
  gst_caps_unref (caps);
  GstVideoFrame frame;
  fail_unless (gst_video_frame_map (&frame, &f.info, buf, GST_MAP_READ));
  f.bpp = GST_VIDEO_FRAME_COMP_PSTRIDE (&frame, 0);
  const int w = f.info.width, hh = f.info.height;
  f.data.resize ((size_t) w * hh * f.bpp);
  for (int y = 0; y < hh; y++)
    memcpy (&f.data[(size_t) y * w * f.bpp],
        (uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
            + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0),
        (size_t) w * f.bpp);
  gst_video_frame_unmap (&frame);
  return f;
}

static void
check_equals_map (const OutFrame & f, const std::vector<uint16_t> & ref,
    const char * what)
{
  fail_unless_equals_string (gst_video_format_to_string (f.info.finfo->format),
      "GRAY16_LE");
  int valid = 0;
  for (int y = 0; y < f.info.height; y++)
    for (int x = 0; x < f.info.width; x++) {
      const uint16_t e = ref[(size_t) y * f.info.width + x];
      fail_unless (f.u16 (x, y) == e, "%s: (%d,%d) got %u expected %u", what, x,
          y, f.u16 (x, y), e);
      valid += e != match::kInvalidDisparity;
    }
  /* A map that is all invalid would prove little. */
  fail_unless (valid > f.info.width * f.info.height / 4,
      "%s: only %d valid pixels", what, valid);
}

/* Pushes one pair at `pts` and returns the output (caller unrefs). */
static GstBuffer *
push_pair (Pair & p, const TestImage & l, const TestImage & r, GstClockTime pts,
    GstVideoFormat lf = GST_VIDEO_FORMAT_GRAY8,
    GstVideoFormat rf = GST_VIDEO_FORMAT_GRAY8)
{
  push (p.left, l, pts, lf);
  push (p.right, r, pts, rf);
  GstBuffer * out = gst_harness_pull (p.left);
  fail_unless (out != NULL, "no output for the pair at %" GST_TIME_FORMAT,
      GST_TIME_ARGS (pts));
  return out;
}

static GstMessage *
pop_error (GstBus * bus)
{
  return gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_ERROR);
}

/* ---------------------------------------------------------------------- */

GST_START_TEST (test_caps_every_output)
{
  struct
  {
    const char * props;
    const char * format;
    int bpp;
  } modes[] = {
    { "output=disparity", "GRAY16_LE", 2 },
    { "output=gray8", "GRAY8", 1 },
    { "output=color", "RGB", 3 },
    { "output=depth focal-length=500 baseline=100", "GRAY16_LE", 2 },
  };
  TestImage l, r;
  make_views (W, H, 1, 5, &l, &r);

  for (auto & m : modes) {
    Pair p = make_pair (m.props);
    for (int i = 0; i < 2; i++) {
      GstBuffer * out = push_pair (p, l, r, i * FRAME);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME);
      fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), FRAME);
      GstCaps * caps = gst_pad_get_current_caps (p.left->sinkpad);
      GstStructure * s = gst_caps_get_structure (caps, 0);
      fail_unless_equals_string (gst_structure_get_string (s, "format"),
          m.format);
      gint w, h, fn, fd, pn, pd;
      fail_unless (gst_structure_get_int (s, "width", &w));
      fail_unless (gst_structure_get_int (s, "height", &h));
      fail_unless_equals_int (w, W);
      fail_unless_equals_int (h, H);
      fail_unless (gst_structure_get_fraction (s, "framerate", &fn, &fd));
      fail_unless (fn == 30 && fd == 1, "framerate %d/%d", fn, fd);
      fail_unless (
          gst_structure_get_fraction (s, "pixel-aspect-ratio", &pn, &pd));
      fail_unless (pn == 1 && pd == 1);
      GstVideoInfo info;
      fail_unless (gst_video_info_from_caps (&info, caps));
      fail_unless (gst_buffer_get_size (out) >= info.size);
      fail_unless_equals_int (GST_VIDEO_INFO_COMP_PSTRIDE (&info, 0), m.bpp);
      gst_caps_unref (caps);
      gst_buffer_unref (out);
    }
    free_pair (p);
  }
}

GST_END_TEST;

/* The output takes the reference pad's framerate and pixel-aspect-ratio. */
GST_START_TEST (test_caps_from_reference)
{
  TestImage l, r;
  make_views (W, H, 2, 4, &l, &r);
  for (int ref = 0; ref < 2; ref++) {
    Pair p;
    p.el = gst_element_factory_make ("stereodisparity", NULL);
    g_object_set (p.el, "latency", (guint64) (10 * GST_SECOND), "reference",
        ref, NULL);
    p.left = gst_harness_new_with_element (p.el, "sink_left", "src");
    p.right = gst_harness_new_with_element (p.el, "sink_right", NULL);
    gst_harness_set_src_caps_str (p.left,
        "video/x-raw,format=GRAY8,"
        "width=67,height=45,framerate=30/1,pixel-aspect-ratio=4/3");
    gst_harness_set_src_caps_str (p.right,
        "video/x-raw,format=GRAY8,"
        "width=67,height=45,framerate=30/1,pixel-aspect-ratio=16/15");
    GstBuffer * out = push_pair (p, l, r, 0);
    GstCaps * caps = gst_pad_get_current_caps (p.left->sinkpad);
    gint pn, pd;
    fail_unless (gst_structure_get_fraction (gst_caps_get_structure (caps, 0),
        "pixel-aspect-ratio", &pn, &pd));
    if (ref == 0)
      fail_unless (pn == 4 && pd == 3, "left reference: par %d/%d", pn, pd);
    else
      fail_unless (pn == 16 && pd == 15, "right reference: par %d/%d", pn, pd);
    gst_caps_unref (caps);
    gst_buffer_unref (out);
    free_pair (p);
  }
}

GST_END_TEST;

/* Every luma-carrying format, and different formats on the two pads, give
 * the map of the GRAY8 pair. */
GST_START_TEST (test_input_formats)
{
  const GstVideoFormat formats[] = {
    GST_VIDEO_FORMAT_I420,
    GST_VIDEO_FORMAT_NV12,
    GST_VIDEO_FORMAT_Y444,
    GST_VIDEO_FORMAT_RGB,
    GST_VIDEO_FORMAT_BGRx,
    GST_VIDEO_FORMAT_ARGB,
  };
  TestImage l, r;
  make_views (W + 1, H + 1, 3, 6, &l, &r); /* even: 4:2:0 chroma */
  Pair g = make_pair ("", "GRAY8", W + 1, H + 1);
  const std::vector<uint16_t> ref = reference_map (g.el, l, r);
  free_pair (g);

  for (guint i = 0; i < G_N_ELEMENTS (formats); i++) {
    const GstVideoFormat lf = formats[i];
    const GstVideoFormat rf = formats[(i + 3) % G_N_ELEMENTS (formats)];
    Pair p = make_pair_full ("", gst_video_format_to_string (lf), W + 1, H + 1,
        gst_video_format_to_string (rf), W + 1, H + 1);
    GstBuffer * out = push_pair (p, l, r, 0, lf, rf);
    check_equals_map (read_output (p.left, out), ref,
        gst_video_format_to_string (lf));
    gst_buffer_unref (out);
    free_pair (p);
  }
}

GST_END_TEST;

/* Left at 0, 1, 2 and right at 0, 2: exactly the pairs 0 and 2, each
 * computed from its own two frames. */
GST_START_TEST (test_pairing_by_timestamp)
{
  TestImage l[3], r[3];
  for (int i = 0; i < 3; i++)
    make_views (W, H, 10 + i, 2 + 3 * i, &l[i], &r[i]);
  Pair p = make_pair ("");

  GstBuffer * out = push_pair (p, l[0], r[0], 0);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 0);
  check_equals_map (read_output (p.left, out), reference_map (p.el, l[0], r[0]),
      "pair 0");
  gst_buffer_unref (out);

  push (p.left, l[1], 1 * FRAME);
  push (p.right, r[2], 2 * FRAME); /* left 1 has no partner */
  push (p.left, l[2], 2 * FRAME);
  out = gst_harness_pull (p.left);
  fail_unless (out != NULL);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 2 * FRAME);
  check_equals_map (read_output (p.left, out), reference_map (p.el, l[2], r[2]),
      "pair 2");
  gst_buffer_unref (out);

  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
  wait_eos (p.left);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 2);
  fail_unless (gst_harness_try_pull (p.left) == NULL);
  fail_unless_equals_uint64 (dropped (p.el), 1);
  free_pair (p);
}

GST_END_TEST;

/* A frame missing on either side: the lonely frame of the other side is
 * dropped, never paired with the next one. */
GST_START_TEST (test_missing_frame)
{
  TestImage l[4], r[4];
  for (int i = 0; i < 4; i++)
    make_views (W, H, 20 + i, 1 + 2 * i, &l[i], &r[i]);
  Pair p = make_pair ("");
  GstBus * bus = gst_bus_new ();
  gst_element_set_bus (p.el, bus);

  gst_buffer_unref (push_pair (p, l[0], r[0], 0));
  /* right 1 missing */
  push (p.left, l[1], 1 * FRAME);
  push (p.right, r[2], 2 * FRAME);
  push (p.left, l[2], 2 * FRAME);
  GstBuffer * out = gst_harness_pull (p.left);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 2 * FRAME);
  check_equals_map (read_output (p.left, out), reference_map (p.el, l[2], r[2]),
      "after a missing right frame");
  gst_buffer_unref (out);
  /* left 3 missing: right 3 waits, then left 4 comes */
  push (p.right, r[3], 3 * FRAME);
  push (p.left, l[0], 4 * FRAME);
  push (p.right, r[0], 4 * FRAME);
  out = gst_harness_pull (p.left);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 4 * FRAME);
  check_equals_map (read_output (p.left, out), reference_map (p.el, l[0], r[0]),
      "after a missing left frame");
  gst_buffer_unref (out);
  fail_unless_equals_uint64 (dropped (p.el), 2);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 3);

  /* Each drop posted a QoS message: the dropped frame's timestamps, and
   * the running totals (pairs output, frames dropped) in buffers. */
  const GstClockTime drop_pts[2] = { 1 * FRAME, 3 * FRAME };
  const guint64 drop_processed[2] = { 1, 2 };
  for (int i = 0; i < 2; i++) {
    GstMessage * m = gst_bus_pop_filtered (bus, GST_MESSAGE_QOS);
    fail_unless (m != NULL, "no QoS message for drop %d", i);
    gboolean live;
    guint64 running, stream, ts, dur, processed, drops;
    GstFormat fmt;
    gst_message_parse_qos (m, &live, &running, &stream, &ts, &dur);
    gst_message_parse_qos_stats (m, &fmt, &processed, &drops);
    fail_unless_equals_uint64 (ts, drop_pts[i]);
    fail_unless_equals_uint64 (running, drop_pts[i]);
    fail_unless_equals_uint64 (dur, FRAME);
    fail_unless_equals_int (fmt, GST_FORMAT_BUFFERS);
    fail_unless_equals_uint64 (processed, drop_processed[i]);
    fail_unless_equals_uint64 (drops, (guint64) i + 1);
    gst_message_unref (m);
  }
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_QOS) == NULL);
  gst_element_set_bus (p.el, NULL);
  gst_object_unref (bus);
  free_pair (p);
}

GST_END_TEST;

/* Timestamps within half a frame pair; the output takes the reference
 * view's timestamp. Half a frame apart or more does not pair. */
GST_START_TEST (test_pairing_tolerance)
{
  TestImage l, r;
  make_views (W, H, 30, 3, &l, &r);
  const GstClockTime jitter = 5 * GST_MSECOND;

  for (int ref = 0; ref < 2; ref++) {
    Pair p = make_pair (ref ? "reference=right" : "reference=left");
    push (p.left, l, FRAME);
    push (p.right, r, FRAME + jitter);
    GstBuffer * out = gst_harness_pull (p.left);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
        ref ? FRAME + jitter : FRAME);
    gst_buffer_unref (out);
    /* 0.6 frame apart: the earlier one (left) goes */
    push (p.left, l, 2 * FRAME);
    push (p.right, r, 2 * FRAME + FRAME * 6 / 10);
    push (p.left, l, 2 * FRAME + FRAME * 6 / 10);
    out = gst_harness_pull (p.left);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out),
        2 * FRAME + FRAME * 6 / 10);
    gst_buffer_unref (out);
    fail_unless_equals_uint64 (dropped (p.el), 1);
    free_pair (p);
  }
}

GST_END_TEST;

/* EOS on one pad: the other pad's frames are dropped and the element goes
 * EOS (further buffers are refused with EOS). */
GST_START_TEST (test_eos_one_side)
{
  TestImage l, r;
  make_views (W, H, 40, 3, &l, &r);
  Pair p = make_pair ("");

  gst_buffer_unref (push_pair (p, l, r, 0));
  push (p.left, l, FRAME);
  fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
  wait_eos (p.left);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 1);
  fail_unless_equals_uint64 (dropped (p.el), 1);
  /* The aggregator pushes EOS downstream just before it sets its pads to
   * EOS: allow for that window. */
  GstFlowReturn ret = GST_FLOW_OK;
  for (int i = 2; i < 50 && ret == GST_FLOW_OK; i++) {
    ret = gst_harness_push (p.left,
        frame_buffer (l, GST_VIDEO_FORMAT_GRAY8, i * FRAME));
    if (ret == GST_FLOW_OK)
      g_usleep (10 * 1000);
  }
  fail_unless_equals_int (ret, GST_FLOW_EOS);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 1);
  free_pair (p);
}

GST_END_TEST;

/* Frames without timestamps pair by arrival (documented), in any push
 * order, and none is dropped. */
GST_START_TEST (test_untimestamped_pairs_by_arrival)
{
  TestImage l[4], r[4];
  for (int i = 0; i < 4; i++)
    make_views (W, H, 60 + i, 1 + i, &l[i], &r[i]);
  Pair p = make_pair ("");

  for (int i = 0; i < 2; i++) {
    GstBuffer * out = push_pair (p, l[i], r[i], GST_CLOCK_TIME_NONE);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_CLOCK_TIME_NONE);
    check_equals_map (read_output (p.left, out),
        reference_map (p.el, l[i], r[i]), "untimestamped pair");
    gst_buffer_unref (out);
  }
  /* Both left frames first, then both right ones. */
  push (p.left, l[2], GST_CLOCK_TIME_NONE);
  push (p.left, l[3], GST_CLOCK_TIME_NONE);
  push (p.right, r[2], GST_CLOCK_TIME_NONE);
  push (p.right, r[3], GST_CLOCK_TIME_NONE);
  for (int i = 2; i < 4; i++) {
    GstBuffer * out = gst_harness_pull (p.left);
    fail_unless (out != NULL);
    check_equals_map (read_output (p.left, out),
        reference_map (p.el, l[i], r[i]),
        "untimestamped pair in arrival order");
    gst_buffer_unref (out);
  }
  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
  wait_eos (p.left);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 4);
  fail_unless_equals_uint64 (dropped (p.el), 0);
  free_pair (p);
}

GST_END_TEST;

/* Only one sink pad linked (non-live): an error naming the other pad after
 * missing-view-timeout, instead of waiting in PREROLLING forever. */
GST_START_TEST (test_unlinked_view_errors)
{
  const char * views[] = { "sink_left", "sink_right" };
  for (int v = 0; v < 2; v++) {
    gchar * desc = g_strdup_printf (
        "stereodisparity backend=cpu name=s "
        "missing-view-timeout=200000000 ! fakesink videotestsrc "
        "num-buffers=10 ! video/x-raw,width=64,height=48 ! s.%s",
        views[v]);
    test_check_error (test_run_launch (desc, 20 * GST_SECOND), GST_CORE_ERROR,
        GST_CORE_ERROR_PAD, desc, views[1 - v]);
    g_free (desc);
  }
}

GST_END_TEST;

/* Nothing linked to either sink pad (gst-launch-1.0 stereodisparity !
 * fakesink): an error naming the unlinked pads after missing-view-timeout,
 * instead of waiting in PREROLLING forever without a word. */
GST_START_TEST (test_no_view_linked_errors)
{
  const char * desc = "stereodisparity backend=cpu "
                      "missing-view-timeout=200000000 ! fakesink";
  GstMessage * msg = test_run_launch (desc, 20 * GST_SECOND);
  GError * err = NULL;
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_ERROR);
  gst_message_parse_error (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_CORE_ERROR, GST_CORE_ERROR_PAD), "%s",
      err->message);
  fail_unless (strstr (err->message, "sink_left") != NULL, "%s", err->message);
  fail_unless (strstr (err->message, "sink_right") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
}

GST_END_TEST;

/* A linked view with no frame while the other's wait: one warning naming
 * it, and pairing goes on when its frame comes. */
GST_START_TEST (test_stalled_view_warns)
{
  TestImage l, r;
  make_views (W, H, 70, 2, &l, &r);
  Pair p = make_pair ("missing-view-timeout=100000000");
  GstBus * bus = gst_bus_new ();
  gst_element_set_bus (p.el, bus);

  push (p.left, l, 0);
  GstMessage * msg =
      gst_bus_timed_pop_filtered (bus, 10 * GST_SECOND, GST_MESSAGE_WARNING);
  fail_unless (msg != NULL, "no warning for the missing right view");
  GError * err = NULL;
  gst_message_parse_warning (msg, &err, NULL);
  fail_unless (g_error_matches (err, GST_CORE_ERROR, GST_CORE_ERROR_PAD), "%s",
      err->message);
  fail_unless (strstr (err->message, "sink_right") != NULL, "%s", err->message);
  g_error_free (err);
  gst_message_unref (msg);
  /* Once per stall. */
  g_usleep (400 * 1000);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_WARNING) == NULL);

  push (p.right, r, 0);
  GstBuffer * out = gst_harness_pull (p.left);
  fail_unless (out != NULL);
  gst_buffer_unref (out);
  fail_unless (gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR) == NULL);
  gst_element_set_bus (p.el, NULL);
  gst_object_unref (bus);
  free_pair (p);
}

GST_END_TEST;

/* Live: a frame whose partner misses the deadline (running time + latency)
 * is dropped when the (test) clock reaches the deadline. */
GST_START_TEST (test_live_timeout)
{
  TestImage l, r;
  make_views (W, H, 45, 3, &l, &r);
  Pair p = make_pair ("");
  g_object_set (p.el, "latency", (guint64) (100 * GST_MSECOND), NULL);

  push (p.left, l, 0);
  /* The aggregator waits on the test clock for the deadline 0 + 100 ms. */
  fail_unless (gst_harness_crank_single_clock_wait (p.left));
  for (int i = 0; i < 500 && dropped (p.el) == 0; i++)
    g_usleep (10 * 1000);
  fail_unless_equals_uint64 (dropped (p.el), 1);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 0);

  /* The late right frame finds no partner either; the next pair works. */
  push (p.right, r, 0);
  push (p.left, l, FRAME);
  push (p.right, r, FRAME);
  GstBuffer * out = gst_harness_pull (p.left);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), FRAME);
  gst_buffer_unref (out);
  fail_unless_equals_uint64 (dropped (p.el), 2);
  free_pair (p);
}

GST_END_TEST;

/* Different sizes on the two pads: CORE/NEGOTIATION error. */
GST_START_TEST (test_size_mismatch)
{
  TestImage l = test_texture (64, 48, 50), r = test_texture (32, 24, 51);
  Pair p = make_pair_full ("", "GRAY8", 64, 48, "GRAY8", 32, 24);
  GstBus * bus = gst_bus_new ();
  gst_element_set_bus (p.el, bus);

  gst_harness_push (p.left, frame_buffer (l, GST_VIDEO_FORMAT_GRAY8, 0));
  gst_harness_push (p.right, frame_buffer (r, GST_VIDEO_FORMAT_GRAY8, 0));
  test_check_error (pop_error (bus), GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "size mismatch", "same size");
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 0);
  /* The pads refuse further data. */
  GstFlowReturn ret = GST_FLOW_OK;
  for (int i = 1; i < 50 && ret == GST_FLOW_OK; i++) {
    ret = gst_harness_push (p.left,
        frame_buffer (l, GST_VIDEO_FORMAT_GRAY8, i * FRAME));
    if (ret == GST_FLOW_OK)
      g_usleep (10 * 1000);
  }
  fail_unless_equals_int (ret, GST_FLOW_NOT_NEGOTIATED);
  gst_element_set_bus (p.el, NULL);
  gst_object_unref (bus);
  free_pair (p);
}

GST_END_TEST;

static void
flush_both (Pair & p)
{
  GstEvent * start = gst_event_new_flush_start ();
  GstEvent * stop = gst_event_new_flush_stop (TRUE);
  const guint32 s1 = gst_util_seqnum_next (), s2 = gst_util_seqnum_next ();
  gst_event_set_seqnum (start, s1);
  gst_event_set_seqnum (stop, s2);
  fail_unless (gst_harness_push_event (p.left, gst_event_ref (start)));
  fail_unless (gst_harness_push_event (p.right, start));
  fail_unless (gst_harness_push_event (p.left, gst_event_ref (stop)));
  fail_unless (gst_harness_push_event (p.right, stop));
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (p.left, gst_event_new_segment (&seg)));
  fail_unless (gst_harness_push_event (p.right, gst_event_new_segment (&seg)));
}

/* A flush forgets a queued frame: after it, the left frame of the same
 * timestamp pairs with the new right frame, not the old left one. */
GST_START_TEST (test_flush)
{
  TestImage a, b, br, unused;
  make_views (W, H, 60, 4, &a, &unused);
  make_views (W, H, 61, 9, &b, &br);
  Pair p = make_pair ("");

  gst_buffer_unref (push_pair (p, a, unused, 0));
  push (p.left, a, FRAME); /* waits for its partner */
  flush_both (p);
  GstBuffer * out = push_pair (p, b, br, FRAME);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), FRAME);
  check_equals_map (read_output (p.left, out), reference_map (p.el, b, br),
      "after flush");
  gst_buffer_unref (out);
  /* The flushed frame is not a pairing drop. */
  fail_unless_equals_uint64 (dropped (p.el), 0);
  /* A segment reached the output after the flush. */
  gboolean seg_after_flush = FALSE, flushed = FALSE;
  GstEvent * ev;
  while ((ev = gst_harness_try_pull_event (p.left))) {
    if (GST_EVENT_TYPE (ev) == GST_EVENT_FLUSH_STOP)
      flushed = TRUE;
    if (flushed && GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT)
      seg_after_flush = TRUE;
    gst_event_unref (ev);
  }
  fail_unless (flushed && seg_after_flush);
  free_pair (p);
}

GST_END_TEST;

/* A flush on one view only (a flushing seek of one camera's source:
 * FLUSH_START, FLUSH_STOP, a new SEGMENT) while a pair with its frame is
 * being matched: GstAggregator resets that pad's segment at FLUSH_STOP
 * (to GST_FORMAT_UNDEFINED until the new SEGMENT is taken), which the
 * output segment must not pick up (it did: CRITICALs from
 * gst_event_new_segment, gst_event_set_seqnum and
 * gst_segment_position_from_running_time, a broken output segment). The
 * flush comes from samples-selected, i.e. from the source pad's task
 * between selecting a pair and outputting its map. Either view; the
 * stream goes on, every output segment is in TIME, EOS arrives. */
struct OneViewFlush
{
  GstHarness * h;  /* the view to flush */
  GstClockTime at; /* during the pair of this PTS */
  gboolean done;
};

static void
flush_one_view (GstAggregator *, GstSegment *, GstClockTime pts, GstClockTime,
    GstClockTime, GstStructure *, gpointer data)
{
  OneViewFlush * f = (OneViewFlush *) data;
  GstSegment seg;

  if (f->done || pts != f->at)
    return;
  f->done = TRUE;
  fail_unless (gst_harness_push_event (f->h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (f->h, gst_event_new_flush_stop (TRUE)));
  gst_segment_init (&seg, GST_FORMAT_TIME);
  fail_unless (gst_harness_push_event (f->h, gst_event_new_segment (&seg)));
}

GST_START_TEST (test_flush_one_view)
{
  TestImage l, r;
  make_views (W, H, 62, 3, &l, &r);
  for (int view = 0; view < 2; view++) {
    Pair p = make_pair ("");
    OneViewFlush f = { view == 0 ? p.left : p.right, FRAME, FALSE };
    g_object_set (p.el, "emit-signals", TRUE, NULL);
    g_signal_connect (p.el, "samples-selected", G_CALLBACK (flush_one_view),
        &f);

    for (int i = 0; i < 4; i++) {
      GstBuffer * out = push_pair (p, l, r, i * FRAME);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME);
      gst_buffer_unref (out);
    }
    fail_unless (f.done);
    fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
    fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
    wait_eos (p.left);
    fail_unless_equals_int (gst_harness_buffers_received (p.left), 4);
    /* Every segment downstream saw is in TIME. */
    GstEvent * ev;
    while ((ev = gst_harness_try_pull_event (p.left))) {
      if (GST_EVENT_TYPE (ev) == GST_EVENT_SEGMENT) {
        const GstSegment * seg;
        gst_event_parse_segment (ev, &seg);
        fail_unless_equals_int (seg->format, GST_FORMAT_TIME);
      }
      gst_event_unref (ev);
    }
    free_pair (p);
  }
}

GST_END_TEST;

static GParamSpec *
pspec (GstElement * el, const char * name)
{
  GParamSpec * ps =
      g_object_class_find_property (G_OBJECT_GET_CLASS (el), name);
  fail_unless (ps != NULL, "no property %s", name);
  return ps;
}

static void
check_uint_range (GstElement * el, const char * name, guint lo, guint hi,
    guint def, GParamFlags mutability)
{
  GParamSpec * ps = pspec (el, name);
  fail_unless (G_IS_PARAM_SPEC_UINT (ps), "%s", name);
  GParamSpecUInt * u = G_PARAM_SPEC_UINT (ps);
  fail_unless (u->minimum == lo && u->maximum == hi && u->default_value == def,
      "%s: %u..%u default %u", name, u->minimum, u->maximum, u->default_value);
  fail_unless (ps->flags & mutability, "%s mutability", name);
}

static void
check_uint64_flags (GstElement * el, const char * name, GParamFlags mutability)
{
  GParamSpec * ps = pspec (el, name);
  fail_unless (G_IS_PARAM_SPEC_UINT64 (ps), "%s", name);
  fail_unless (ps->flags & mutability, "%s mutability", name);
}

GST_START_TEST (test_properties)
{
  GstElement * el = gst_element_factory_make ("stereodisparity", NULL);
  const GParamFlags ready = (GParamFlags) GST_PARAM_MUTABLE_READY;
  const GParamFlags playing = (GParamFlags) GST_PARAM_MUTABLE_PLAYING;

  /* A change while playing takes effect (a new matcher, or new output
   * caps) before the next pair: MUTABLE_PLAYING. */
  check_uint_range (el, "window-width", 1, 31, 7, playing);
  check_uint_range (el, "census-width", 1, 63, 9, playing);
  check_uint_range (el, "census-height", 1, 63, 7, playing);
  check_uint_range (el, "cost-window", 1, 7, 3, playing);
  check_uint_range (el, "p1", 0, 4095, 0, playing);
  check_uint_range (el, "p2", 0, 4095, 0, playing);
  check_uint_range (el, "p2-edge", 0, 255, 32, playing);
  check_uint_range (el, "speckle-size", 0, G_MAXINT, 0, playing);
  check_uint_range (el, "speckle-range", 0, 1024, 1, playing);
  check_uint_range (el, "joint-median", 0, 5, 3, playing);
  check_uint_range (el, "joint-median-range", 0, 255, 16, playing);
  GParamSpecBoolean * fill = G_PARAM_SPEC_BOOLEAN (pspec (el, "fill-invalid"));
  fail_unless (fill->default_value == TRUE);
  fail_unless (G_PARAM_SPEC (fill)->flags & playing);
  check_uint_range (el, "window-height", 1, 31, 7, playing);
  check_uint_range (el, "min-disparity", 0, 1024, 0, playing);
  check_uint_range (el, "num-disparities", 1, 256, 64, playing);
  check_uint_range (el, "uniqueness-ratio", 0, 100, 0, playing);
  check_uint_range (el, "texture-threshold", 0, G_MAXINT, 0, playing);
  check_uint_range (el, "n-threads", 0, 256, 0, playing);
  check_uint_range (el, "pipeline-depth", 0, 4, 0, playing);
  check_uint64_flags (el, "missing-view-timeout", ready);

  /* paths: an enum of 4 and 8, set as before by number (or nick). */
  GParamSpec * paths = pspec (el, "paths");
  fail_unless (G_IS_PARAM_SPEC_ENUM (paths));
  fail_unless (paths->flags & playing);
  GEnumClass * paths_class = G_PARAM_SPEC_ENUM (paths)->enum_class;
  fail_unless_equals_int (paths_class->n_values, 2);
  fail_unless (g_enum_get_value (paths_class, 4) != NULL);
  fail_unless (g_enum_get_value (paths_class, 8) != NULL);
  gint n_paths = 0;
  g_object_get (el, "paths", &n_paths, NULL);
  fail_unless_equals_int (n_paths, 8);
  gst_util_set_object_arg (G_OBJECT (el), "paths", "4");
  g_object_get (el, "paths", &n_paths, NULL);
  fail_unless_equals_int (n_paths, 4);
  g_object_set (el, "paths", 8, NULL);
  g_object_get (el, "paths", &n_paths, NULL);
  fail_unless_equals_int (n_paths, 8);

  GParamSpecInt * lr = G_PARAM_SPEC_INT (pspec (el, "lr-max-diff"));
  fail_unless (
      lr->minimum == -1 && lr->maximum == 256 && lr->default_value == 1);
  fail_unless (G_PARAM_SPEC (lr)->flags & playing);
  GParamSpecBoolean * sub = G_PARAM_SPEC_BOOLEAN (pspec (el, "subpixel"));
  fail_unless (sub->default_value == TRUE);
  fail_unless (G_PARAM_SPEC (sub)->flags & playing);
  GParamSpecDouble * g8 = G_PARAM_SPEC_DOUBLE (pspec (el, "gray8-scale"));
  fail_unless (g8->default_value == 1.0 && g8->minimum == 0.0);
  fail_unless (G_PARAM_SPEC (g8)->flags & playing);
  for (const char * name : { "focal-length", "baseline" }) {
    GParamSpecDouble * d = G_PARAM_SPEC_DOUBLE (pspec (el, name));
    fail_unless (d->default_value == 0.0 && d->minimum == 0.0, "%s", name);
  }

  gint ref, output, backend;
  g_object_get (el, "reference", &ref, "output", &output, "backend", &backend,
      NULL);
  fail_unless_equals_int (ref, 0);
  fail_unless_equals_int (output, 0);
  fail_unless_equals_int (backend, 0);
  fail_unless (pspec (el, "output")->flags & playing);
  fail_unless (pspec (el, "reference")->flags & playing);
  fail_unless (pspec (el, "backend")->flags & ready);
  fail_unless (pspec (el, "device-id")->flags & ready);
  fail_unless (!(pspec (el, "active-backend")->flags & G_PARAM_WRITABLE));
  fail_unless (!(pspec (el, "dropped-frames")->flags & G_PARAM_WRITABLE));

  /* The enums' nicks are the documented values. */
  gst_util_set_object_arg (G_OBJECT (el), "reference", "right");
  gst_util_set_object_arg (G_OBJECT (el), "output", "color");
  g_object_get (el, "reference", &ref, "output", &output, NULL);
  fail_unless_equals_int (ref, 1);
  fail_unless_equals_int (output, 2);
  gst_util_set_object_arg (G_OBJECT (el), "output", "depth");
  gst_util_set_object_arg (G_OBJECT (el), "output", "gray8");
  gst_util_set_object_arg (G_OBJECT (el), "backend", "cpu");
  g_object_get (el, "output", &output, "backend", &backend, NULL);
  fail_unless_equals_int (output, 1);
  fail_unless_equals_int (backend, 1);

  /* method=sgm cost=census by default; the nicks as documented. */
  gint method, cost;
  gboolean median;
  g_object_get (el, "method", &method, "cost", &cost, "median", &median, NULL);
  fail_unless_equals_int (method, 1);
  fail_unless_equals_int (cost, 2);
  fail_unless (median);
  fail_unless (pspec (el, "method")->flags & playing);
  fail_unless (pspec (el, "cost")->flags & playing);
  fail_unless (pspec (el, "median")->flags & playing);
  gst_util_set_object_arg (G_OBJECT (el), "method", "block");
  gst_util_set_object_arg (G_OBJECT (el), "cost", "sobel");
  g_object_get (el, "method", &method, "cost", &cost, NULL);
  fail_unless_equals_int (method, 0);
  fail_unless_equals_int (cost, 1);
  gst_util_set_object_arg (G_OBJECT (el), "cost", "sad");
  g_object_get (el, "cost", &cost, NULL);
  fail_unless_equals_int (cost, 0);
  gst_object_unref (el);
}

GST_END_TEST;

/* Settings that cannot work fail at start with RESOURCE/SETTINGS, the
 * kernels' check (no copy of it in the element) naming the property and
 * its value. */
GST_START_TEST (test_settings_errors)
{
  const char * cases[][2] = {
    { "window-width=6", "window-width=6" },
    { "window-height=8", "window-height=8" },
    { "output=depth", "focal-length=0" },
    { "output=depth focal-length=500", "baseline=0" },
    { "output=depth baseline=100", "focal-length=0" },
    { "census-width=8", "census-width=8" },
    { "census-width=11 census-height=7", "census-width=11" },
    { "cost-window=4", "cost-window=4" },
    { "cost=census-ad method=block", "cost=census-ad" },
  };
  for (auto & c : cases) {
    GstElement * el = gst_element_factory_make ("stereodisparity", NULL);
    test_set_props (el, c[0]);
    GstBus * bus = gst_bus_new ();
    gst_element_set_bus (el, bus);
    fail_unless_equals_int (gst_element_set_state (el, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    test_check_error (pop_error (bus), GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_SETTINGS, c[0], c[1]);
    gst_element_set_state (el, GST_STATE_NULL);
    gst_element_set_bus (el, NULL);
    gst_object_unref (bus);
    gst_object_unref (el);
  }
}

GST_END_TEST;

/* fill-invalid and joint-median (on by default) equal the reference, on
 * the CPU and on the backend auto picks (CUDA where there is a GPU), and
 * act: the fill leaves no invalid pixel in rows that have a valid one,
 * where the left-right check alone leaves many. */
GST_START_TEST (test_fill_and_joint_median)
{
  TestImage l, r;
  make_views (W, H, 70, 7, &l, &r);
  for (auto & v : r.pixels)
    v = (uint8_t) std::min (255, v + (int) (&v - r.pixels.data ()) % 3);
  int invalid[4] = { 0, 0, 0, 0 };
  const char * settings[] = {
    "backend=cpu lr-max-diff=0 uniqueness-ratio=15 fill-invalid=false "
    "joint-median=0",
    "backend=cpu lr-max-diff=0 uniqueness-ratio=15 joint-median=2 "
    "joint-median-range=8",
    "lr-max-diff=0 uniqueness-ratio=15 fill-invalid=false joint-median=0",
    "lr-max-diff=0 uniqueness-ratio=15 joint-median=2 joint-median-range=8",
  };
  for (int k = 0; k < 4; k++) {
    Pair p = make_pair (settings[k]);
    GstBuffer * out = push_pair (p, l, r, 0);
    const std::vector<uint16_t> ref = reference_map (p.el, l, r);
    check_equals_map (read_output (p.left, out), ref, settings[k]);
    for (uint16_t v : ref)
      invalid[k] += v == 0xFFFF;
    gst_buffer_unref (out);
    free_pair (p);
  }
  for (int k = 0; k < 4; k += 2)
    fail_unless (invalid[k] > 0 && invalid[k + 1] == 0,
        "%s: invalid pixels: %d without the fill, %d with it", settings[k],
        invalid[k], invalid[k + 1]);
}

GST_END_TEST;

/* The GRAY16 output equals the reference implementation bit for bit, for
 * every option that changes the result. */
GST_START_TEST (test_matches_reference)
{
  const char * settings[] = {
    "",
    "num-disparities=16 window-width=5 window-height=9",
    "reference=right",
    "subpixel=false",
    "lr-max-diff=-1",
    "lr-max-diff=0 uniqueness-ratio=15",
    "texture-threshold=300",
    "min-disparity=3 num-disparities=12",
    "window-width=1 window-height=1 num-disparities=20",
  };
  TestImage l, r;
  make_views (W, H, 70, 7, &l, &r);
  /* Some noise so that the views differ beyond the shift. */
  for (auto & v : r.pixels)
    v = (uint8_t) std::min (255, v + (int) (&v - r.pixels.data ()) % 3);

  /* On the CPU, and on what auto picks: CUDA where a device exists. */
  const bool gpu = match::cuda_device_count () > 0;
  for (const char * backend : { "cpu", "auto" })
    for (const char * settings_i : settings) {
      const std::string props =
          std::string (settings_i) + " backend=" + backend;
      Pair p = make_pair (props.c_str ());
      for (int i = 0; i < 2; i++) {
        GstBuffer * out = push_pair (p, l, r, i * FRAME);
        check_equals_map (read_output (p.left, out), reference_map (p.el, l, r),
            props.c_str ());
        gst_buffer_unref (out);
      }
      gchar * active = NULL;
      g_object_get (p.el, "active-backend", &active, NULL);
      const char * want = !strcmp (backend, "auto") && gpu ? "cuda:" : "cpu";
      fail_unless (active != NULL && g_str_has_prefix (active, want),
          "%s: active-backend %s", props.c_str (), GST_STR_NULL (active));
      g_free (active);
      free_pair (p);
    }
}

GST_END_TEST;

/* Changing a runtime property between frames applies to the next pair. */
GST_START_TEST (test_runtime_property_change)
{
  TestImage l, r;
  make_views (W, H, 75, 5, &l, &r);
  Pair p = make_pair ("");
  GstBuffer * out = push_pair (p, l, r, 0);
  check_equals_map (read_output (p.left, out), reference_map (p.el, l, r),
      "before");
  gst_buffer_unref (out);
  g_object_set (p.el, "subpixel", FALSE, "lr-max-diff", -1, NULL);
  out = push_pair (p, l, r, FRAME);
  const std::vector<uint16_t> ref = reference_map (p.el, l, r);
  check_equals_map (read_output (p.left, out), ref, "after");
  for (uint16_t v : ref)
    fail_unless (v % 16 == 0 || v == match::kInvalidDisparity);
  gst_buffer_unref (out);
  free_pair (p);
}

GST_END_TEST;

static uint16_t
expected_depth (uint16_t v, double focal, double baseline)
{
  if (v == 0 || v == match::kInvalidDisparity)
    return 0;
  const double mm = focal * baseline / (v / 16.0);
  return (
      uint16_t) std::clamp (std::llround (std::min (mm, 1e9)), 1LL, 65535LL);
}

GST_START_TEST (test_depth)
{
  TestImage l, r;
  make_views (W, H, 80, 6, &l, &r);
  Pair p = make_pair ("output=depth focal-length=700 baseline=160 "
                      "min-disparity=0 num-disparities=32");
  GstBuffer * out = push_pair (p, l, r, 0);
  const OutFrame f = read_output (p.left, out);
  const std::vector<uint16_t> disp = reference_map (p.el, l, r);
  int checked = 0;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const uint16_t v = disp[(size_t) y * W + x];
      fail_unless_equals_int (f.u16 (x, y), expected_depth (v, 700, 160));
      if (v == 16 * 6) {
        /* 700 px x 160 mm / 6 px = 18666.7 mm */
        fail_unless_equals_int (f.u16 (x, y), 18667);
        checked++;
      }
    }
  fail_unless (checked > W * H / 4);
  gst_buffer_unref (out);

  /* focal-length and baseline are runtime properties. */
  g_object_set (p.el, "baseline", 80.0, NULL);
  out = push_pair (p, l, r, FRAME);
  const OutFrame f2 = read_output (p.left, out);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++)
      fail_unless_equals_int (f2.u16 (x, y),
          expected_depth (disp[(size_t) y * W + x], 700, 80));
  gst_buffer_unref (out);
  free_pair (p);
}

GST_END_TEST;

/* The documented colour map. */
static void
expected_color (uint16_t v, int mind, int numd, uint8_t rgb[3])
{
  if (v == match::kInvalidDisparity) {
    rgb[0] = rgb[1] = rgb[2] = 0;
    return;
  }
  const double t = std::clamp ((v / 16.0 - mind) / numd, 0.0, 1.0);
  const double c[3] = { 1.5 - fabs (4 * t - 3), 1.5 - fabs (4 * t - 2),
    1.5 - fabs (4 * t - 1) };
  for (int i = 0; i < 3; i++)
    rgb[i] = (uint8_t) std::lround (std::clamp (c[i], 0.0, 1.0) * 255.0);
}

/* Two frames with different disparity ranges: a disparity has the same
 * grey / colour in both (fixed scale, no per-frame normalisation). */
GST_START_TEST (test_fixed_scaling)
{
  TestImage l1, r1, l2, r2;
  make_views (W, H, 90, 4, &l1, &r1);
  /* Frame 2: left half at disparity 4, right half at 12. */
  l2 = test_texture (W, H, 91);
  r2 = l2;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      const int d = x < W / 2 ? 4 : 12;
      r2.pixels[(size_t) y * W + x] = l2.at (std::min (x + d, W - 1), y);
    }
  const TestImage *ls[2] = { &l1, &l2 }, *rs[2] = { &r1, &r2 };

  /* gray8, scale 4 */
  {
    Pair p = make_pair ("output=gray8 gray8-scale=4 num-disparities=16");
    guint8 grey_of_4[2] = { 0, 0 };
    for (int i = 0; i < 2; i++) {
      GstBuffer * out = push_pair (p, *ls[i], *rs[i], i * FRAME);
      const OutFrame f = read_output (p.left, out);
      const std::vector<uint16_t> disp = reference_map (p.el, *ls[i], *rs[i]);
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
          const uint16_t v = disp[(size_t) y * W + x];
          const int e = v == match::kInvalidDisparity
              ? 0
              : std::min (255L, std::lround (v / 16.0 * 4));
          fail_unless_equals_int (f.px (x, y)[0], e);
          if (v == 64)
            grey_of_4[i] = f.px (x, y)[0];
        }
      gst_buffer_unref (out);
    }
    fail_unless_equals_int (grey_of_4[0], 16);
    fail_unless_equals_int (grey_of_4[1], 16);
    free_pair (p);
  }
  /* colour */
  {
    Pair p = make_pair ("output=color min-disparity=2 num-disparities=14 "
                        "fill-invalid=false");
    uint8_t rgb_of_4[2][3] = { { 0 }, { 0 } };
    for (int i = 0; i < 2; i++) {
      GstBuffer * out = push_pair (p, *ls[i], *rs[i], i * FRAME);
      const OutFrame f = read_output (p.left, out);
      const std::vector<uint16_t> disp = reference_map (p.el, *ls[i], *rs[i]);
      int invalid = 0;
      for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
          const uint16_t v = disp[(size_t) y * W + x];
          uint8_t e[3];
          expected_color (v, 2, 14, e);
          fail_unless (memcmp (f.px (x, y), e, 3) == 0,
              "(%d,%d) v %u: got %u,%u,%u expected %u,%u,%u", x, y, v,
              f.px (x, y)[0], f.px (x, y)[1], f.px (x, y)[2], e[0], e[1], e[2]);
          if (v == 64)
            memcpy (rgb_of_4[i], f.px (x, y), 3);
          invalid += v == match::kInvalidDisparity;
        }
      gst_buffer_unref (out);
      if (i == 0)
        fail_unless (invalid > 0, "no invalid pixel to check black on");
    }
    fail_unless (memcmp (rgb_of_4[0], rgb_of_4[1], 3) == 0);
    fail_unless (rgb_of_4[0][0] + rgb_of_4[0][1] + rgb_of_4[0][2] > 0);
    free_pair (p);
  }
}

GST_END_TEST;

/* backend=cuda: where there is no CUDA stereo (no GPU, a CPU-only build,
 * or no CUDA stereo backend yet) start fails with RESOURCE/NOT_FOUND; where
 * there is, its output equals the CPU's. */
GST_START_TEST (test_backend_cuda)
{
  std::unique_ptr<match::StereoMatcher> probe;
  match::StereoConfig cfg;
  cfg.width = W;
  cfg.height = H;
  const bool have_cuda = match::backend_available (match::Backend::kCuda)
      && match::StereoMatcher::create (match::Backend::kCuda, cfg, &probe)
             .is_ok ();
  probe.reset ();

  if (!have_cuda) {
    GstElement * el = gst_element_factory_make ("stereodisparity", NULL);
    gst_util_set_object_arg (G_OBJECT (el), "backend", "cuda");
    GstBus * bus = gst_bus_new ();
    gst_element_set_bus (el, bus);
    fail_unless_equals_int (gst_element_set_state (el, GST_STATE_PAUSED),
        GST_STATE_CHANGE_FAILURE);
    test_check_error (pop_error (bus), GST_RESOURCE_ERROR,
        GST_RESOURCE_ERROR_NOT_FOUND, "backend=cuda", "backend=cuda");
    gst_element_set_state (el, GST_STATE_NULL);
    gst_element_set_bus (el, NULL);
    gst_object_unref (bus);
    gst_object_unref (el);
    return;
  }

  TestImage l, r;
  make_views (W, H, 95, 8, &l, &r);
  Pair cpu = make_pair ("backend=cpu");
  Pair cuda = make_pair ("backend=cuda");
  GstBuffer * a = push_pair (cpu, l, r, 0);
  GstBuffer * b = push_pair (cuda, l, r, 0);
  const OutFrame fa = read_output (cpu.left, a),
                 fb = read_output (cuda.left, b);
  fail_unless (fa.data == fb.data, "cuda output differs from cpu");
  gchar * active = NULL;
  g_object_get (cuda.el, "active-backend", &active, NULL);
  fail_unless (active && g_str_has_prefix (active, "cuda"));
  g_free (active);
  gst_buffer_unref (a);
  gst_buffer_unref (b);
  free_pair (cpu);
  free_pair (cuda);
}

GST_END_TEST;

static void
stress (GstHarness * h, const char * name, const GValue * v,
    std::vector<GstHarnessThread *> & threads)
{
  threads.push_back (gst_harness_stress_property_start_full (h, name, v, 0));
}

/* Every MUTABLE_PLAYING property set in a loop while pairs stream. */
GST_START_TEST (test_property_stress)
{
  TestImage l, r;
  make_views (W, H, 99, 5, &l, &r);
  Pair p = make_pair ("output=depth focal-length=600 baseline=100 "
                      "num-disparities=16");
  std::vector<GstHarnessThread *> threads;
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_TYPE_BOOLEAN);
  g_value_set_boolean (&v, FALSE);
  stress (p.left, "subpixel", &v, threads);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_INT);
  g_value_set_int (&v, -1);
  stress (p.left, "lr-max-diff", &v, threads);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_UINT);
  g_value_set_uint (&v, 20);
  stress (p.left, "uniqueness-ratio", &v, threads);
  g_value_set_uint (&v, 50);
  stress (p.left, "texture-threshold", &v, threads);
  g_value_set_uint (&v, 1);
  stress (p.left, "n-threads", &v, threads);
  /* Settings of the matcher: a new one before the next pair. */
  g_value_set_uint (&v, 32);
  stress (p.left, "num-disparities", &v, threads);
  g_value_set_uint (&v, 5);
  stress (p.left, "cost-window", &v, threads);
  g_value_set_uint (&v, 0);
  stress (p.left, "pipeline-depth", &v, threads);
  g_value_unset (&v);
  g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (pspec (p.el, "paths")));
  g_value_set_enum (&v, 4);
  stress (p.left, "paths", &v, threads);
  g_value_unset (&v);
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 3.0);
  stress (p.left, "gray8-scale", &v, threads);
  g_value_set_double (&v, 900.0);
  stress (p.left, "focal-length", &v, threads);
  g_value_set_double (&v, 50.0);
  stress (p.left, "baseline", &v, threads);
  g_value_unset (&v);

  for (int i = 0; i < 40; i++) {
    GstBuffer * out = push_pair (p, l, r, i * FRAME);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (out), i * FRAME);
    gst_buffer_unref (out);
  }
  for (GstHarnessThread * t : threads)
    gst_harness_stress_thread_stop (t);
  fail_unless_equals_uint64 (dropped (p.el), 0);
  free_pair (p);
}

GST_END_TEST;

/* 16-bit binary PGM (big-endian samples, as the format defines). */
static bool
load_pgm16 (const std::string & path, int * w, int * h,
    std::vector<uint16_t> * out)
{
  std::ifstream f (path, std::ios::binary);
  std::string magic;
  int maxval = 0;
  if (!(f >> magic >> *w >> *h >> maxval) || magic != "P5" || maxval != 65535)
    return false;
  f.get ();
  std::vector<unsigned char> raw ((size_t) *w * *h * 2);
  if (!f.read ((char *) raw.data (), raw.size ()))
    return false;
  out->resize ((size_t) *w * *h);
  for (size_t i = 0; i < out->size (); i++)
    (*out)[i] = (uint16_t) ((raw[2 * i] << 8) | raw[2 * i + 1]);
  return true;
}

/* Golden regression on a crop of Middlebury Tsukuba: the element's map is
 * the stored one, and it is a sensible disparity map (checked against the
 * ground truth of the crop). */
GST_START_TEST (test_golden_tsukuba)
{
  TestImage l, r, gt;
  fail_unless (test_load_pgm (test_files_path ("tsukuba-crop-left.pgm"), &l));
  fail_unless (test_load_pgm (test_files_path ("tsukuba-crop-right.pgm"), &r));
  fail_unless (test_load_pgm (test_files_path ("tsukuba-crop-gt.pgm"), &gt));
  int ew, eh;
  std::vector<uint16_t> expected;
  fail_unless (load_pgm16 (test_files_path ("tsukuba-crop-disp.pgm"), &ew, &eh,
      &expected));
  fail_unless (ew == l.width && eh == l.height && r.width == l.width
      && gt.width == l.width && gt.height == l.height);

  /* The settings the golden map was made with (tests/files/README.md). */
  Pair p = make_pair ("method=block cost=sad num-disparities=16 "
                      "window-width=7 window-height=7 lr-max-diff=1 "
                      "uniqueness-ratio=10 "
                      "median=false fill-invalid=false joint-median=0",
      "GRAY8", l.width, l.height);
  GstBuffer * out = push_pair (p, l, r, 0);
  const OutFrame f = read_output (p.left, out);
  check_equals_map (f, expected, "tsukuba golden");

  /* Valid pixels within 1 pixel of the ground truth (gt = 16 x disparity,
   * 0 = unknown). */
  int valid = 0, good = 0, known = 0;
  for (int y = 0; y < l.height; y++)
    for (int x = 0; x < l.width; x++) {
      const int g = gt.at (x, y);
      const uint16_t v = f.u16 (x, y);
      if (g == 0)
        continue;
      known++;
      if (v == match::kInvalidDisparity)
        continue;
      valid++;
      good += std::abs ((int) v - g) <= 16;
    }
  GST_INFO ("tsukuba crop: %d/%d valid, %d good", valid, known, good);
  fail_unless (valid > known / 2, "only %d of %d pixels valid", valid, known);
  fail_unless (good > valid * 85 / 100,
      "only %d of %d valid pixels within "
      "1 px of the ground truth",
      good, valid);
  gst_buffer_unref (out);
  free_pair (p);
}

GST_END_TEST;

/* A real pipeline: two sources, stereodisparity, a sink; EOS at the end. */
GST_START_TEST (test_pipeline)
{
  GstMessage * msg = test_run_launch (
      "stereodisparity name=s "
      "num-disparities=16 output=color ! videoconvert ! fakesink "
      "videotestsrc num-buffers=5 pattern=ball ! "
      "video/x-raw,width=80,height=60,framerate=10/1 ! s.sink_left "
      "videotestsrc num-buffers=5 pattern=ball ! "
      "video/x-raw,format=I420,width=80,height=60,framerate=10/1 ! "
      "s.sink_right",
      60 * GST_SECOND);
  fail_unless_equals_int (GST_MESSAGE_TYPE (msg), GST_MESSAGE_EOS);
  gst_message_unref (msg);

  msg = test_run_launch ("stereodisparity name=s ! fakesink "
                         "videotestsrc num-buffers=5 ! "
                         "video/x-raw,width=80,height=60 ! "
                         "s.sink_left videotestsrc num-buffers=5 ! "
                         "video/x-raw,width=64,height=60 ! s.sink_right",
      60 * GST_SECOND);
  test_check_error (msg, GST_CORE_ERROR, GST_CORE_ERROR_NEGOTIATION,
      "pipeline size mismatch", "same size");
}

GST_END_TEST;

/* ---- Pipelining (pipeline-depth) ---------------------------------------- */

/* Returns once the element has handled everything pushed so far through
 * `h` (a serialized query waits until the pad's queue ahead of it is
 * consumed): every pair whose two frames were pushed has been submitted,
 * and its due maps pushed. */
static void
sync_pad (GstHarness * h)
{
  GstQuery * q = gst_query_new_drain ();
  gst_pad_peer_query (h->srcpad, q);
  gst_query_unref (q);
}

/* Pushes a pair without waiting for an output, then syncs. */
static void
push_pair_nowait (Pair & p, const TestImage & l, const TestImage & r,
    GstClockTime pts, gboolean discont = FALSE)
{
  GstBuffer * lb = frame_buffer (l, GST_VIDEO_FORMAT_GRAY8, pts);
  GstBuffer * rb = frame_buffer (r, GST_VIDEO_FORMAT_GRAY8, pts);
  if (discont) {
    GST_BUFFER_FLAG_SET (lb, GST_BUFFER_FLAG_DISCONT);
    GST_BUFFER_FLAG_SET (rb, GST_BUFFER_FLAG_DISCONT);
  }
  fail_unless_equals_int (gst_harness_push (p.left, lb), GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (p.right, rb), GST_FLOW_OK);
  sync_pad (p.left);
}

/* What a test compares of one output buffer. */
struct OutMap
{
  GstClockTime pts, dts, duration;
  guint flags;
  std::vector<uint8_t> data; /* plane 0, tight rows */
};

static OutMap
describe_map (GstHarness * h, GstBuffer * buf)
{
  OutMap o;
  o.pts = GST_BUFFER_PTS (buf);
  o.dts = GST_BUFFER_DTS (buf);
  o.duration = GST_BUFFER_DURATION (buf);
  o.flags = GST_BUFFER_FLAGS (buf)
      & (GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_GAP
          | GST_BUFFER_FLAG_DELTA_UNIT);
  o.data = read_output (h, buf).data;
  return o;
}

static void
pull_all (GstHarness * h, std::vector<OutMap> * out)
{
  GstBuffer * b;
  while ((b = gst_harness_try_pull (h))) {
    out->push_back (describe_map (h, b));
    gst_buffer_unref (b);
  }
}

struct SequenceRun
{
  std::vector<OutMap> maps;
  guint64 dropped = 0;
  std::string active_backend;
};

/* Eight frames per view, different disparities, through `props`: a left
 * frame without a partner (dropped), a DISCONT pair, and runtime settings
 * changed in the middle (the lookup-table ones too). After every complete
 * pair the element must have output exactly pairs - `lag` maps; EOS gives
 * the rest back. */
static SequenceRun
run_sequence (const char * props, int lag)
{
  SequenceRun run;
  TestImage l[8], r[8];
  for (int i = 0; i < 8; i++)
    make_views (W, H, 300 + i, 1 + 2 * i, &l[i], &r[i]);
  Pair p = make_pair (props);
  int pairs = 0;
  for (int i = 0; i < 8; i++) {
    if (i == 3) {
      /* alone: dropped when right 4 arrives */
      push (p.left, l[i], i * FRAME);
      continue;
    }
    if (i == 6)
      g_object_set (p.el, "subpixel", FALSE, "lr-max-diff", -1, "gray8-scale",
          2.5, "baseline", 90.0, NULL);
    push_pair_nowait (p, l[i], r[i], i * FRAME, i == 5);
    pairs++;
    fail_unless_equals_int (gst_harness_buffers_received (p.left),
        MAX (0, pairs - lag));
    pull_all (p.left, &run.maps);
  }
  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
  wait_eos (p.left);
  pull_all (p.left, &run.maps);
  fail_unless_equals_int (run.maps.size (), pairs);
  run.dropped = dropped (p.el);
  gchar * active = NULL;
  g_object_get (p.el, "active-backend", &active, NULL);
  run.active_backend = active ? active : "";
  g_free (active);
  free_pair (p);
  return run;
}

static void
check_same_maps (const SequenceRun & want, const SequenceRun & got,
    const char * what)
{
  fail_unless_equals_int (got.maps.size (), want.maps.size ());
  fail_unless_equals_uint64 (got.dropped, want.dropped);
  for (size_t i = 0; i < want.maps.size (); i++) {
    const OutMap &a = want.maps[i], &b = got.maps[i];
    fail_unless (a.pts == b.pts && a.dts == b.dts && a.duration == b.duration
            && a.flags == b.flags,
        "%s: buffer %zu: timestamps/flags differ "
        "(pts %" GST_TIME_FORMAT " vs %" GST_TIME_FORMAT ", flags %x vs %x)",
        what, i, GST_TIME_ARGS (a.pts), GST_TIME_ARGS (b.pts), a.flags,
        b.flags);
    fail_unless (a.data == b.data, "%s: buffer %zu: map differs", what, i);
  }
}

static const char * const kSequenceModes[] = {
  "",
  "output=gray8 gray8-scale=4 num-disparities=16",
  "output=color reference=right min-disparity=1 num-disparities=20",
  "output=depth focal-length=700 baseline=160 num-disparities=32",
};

/* pipeline-depth 1..4 on the CPU: every map leaves `depth` pairs late with
 * the timestamps, flags and content of the synchronous run, for every
 * output mode, across a dropped frame, a DISCONT and setting changes. */
GST_START_TEST (test_pipeline_depth_same_outputs)
{
  for (const char * mode : kSequenceModes) {
    gchar * props = g_strdup_printf ("backend=cpu %s", mode);
    const SequenceRun sync = run_sequence (props, 0);
    g_free (props);
    fail_unless_equals_int (sync.maps.size (), 7);
    fail_unless_equals_uint64 (sync.dropped, 1);
    fail_unless_equals_uint64 (sync.maps[4].pts, 5 * FRAME);
    fail_unless (sync.maps[4].flags & GST_BUFFER_FLAG_DISCONT);
    /* the pairs differ, so an order mistake would show */
    fail_unless (sync.maps[0].data != sync.maps[1].data);
    for (int depth = 1; depth <= 4; depth++) {
      props = g_strdup_printf ("backend=cpu %s pipeline-depth=%d", mode, depth);
      check_same_maps (sync, run_sequence (props, depth), props);
      g_free (props);
    }
  }
}

GST_END_TEST;

/* The same on CUDA (depth 0 and 2, equal to the CPU's synchronous run);
 * nothing to check where no CUDA stereo matcher opens. */
GST_START_TEST (test_pipeline_depth_cuda)
{
  std::unique_ptr<match::StereoMatcher> probe;
  match::StereoConfig cfg;
  cfg.width = W;
  cfg.height = H;
  if (!match::backend_available (match::Backend::kCuda)
      || !match::StereoMatcher::create (match::Backend::kCuda, cfg, &probe)
              .is_ok ()) {
    GST_INFO ("no CUDA stereo matcher here: pipelined CUDA test skipped");
    return;
  }
  const int max_depth = MIN (4, probe->max_in_flight () - 1);
  probe.reset ();
  for (const char * mode : kSequenceModes) {
    gchar * props = g_strdup_printf ("backend=cpu %s", mode);
    const SequenceRun cpu = run_sequence (props, 0);
    g_free (props);
    const int depths[] = { 0, 2, max_depth };
    for (int depth : depths) {
      props =
          g_strdup_printf ("backend=cuda %s pipeline-depth=%d", mode, depth);
      const SequenceRun cuda = run_sequence (props, depth);
      fail_unless (g_str_has_prefix (cuda.active_backend.c_str (), "cuda"),
          "%s: active-backend %s", props, cuda.active_backend.c_str ());
      check_same_maps (cpu, cuda, props);
      g_free (props);
    }
  }
}

GST_END_TEST;

static GstPadProbeReturn
record_flow (GstPad *, GstPadProbeInfo * info, gpointer user_data)
{
  std::string * log = static_cast<std::string *> (user_data);
  if (GST_PAD_PROBE_INFO_TYPE (info) & GST_PAD_PROBE_TYPE_BUFFER) {
    *log += 'B';
  } else {
    switch (GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info))) {
      case GST_EVENT_EOS:
        *log += 'E';
        break;
      case GST_EVENT_CAPS:
        *log += 'C';
        break;
      default:
        break;
    }
  }
  return GST_PAD_PROBE_OK;
}

static void
record_src (Pair & p, std::string * log)
{
  GstPad * src = gst_element_get_static_pad (p.el, "src");
  gst_pad_add_probe (src,
      (GstPadProbeType) (GST_PAD_PROBE_TYPE_BUFFER
          | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
      record_flow, log, NULL);
  gst_object_unref (src);
}

/* Held maps leave before a serialized event (a TAG here, which the
 * aggregator does not forward) and at EOS: N pairs in, N maps out, in
 * order, each the reference's, all before EOS. */
GST_START_TEST (test_pipeline_eos_drains)
{
  TestImage l[7], r[7];
  for (int i = 0; i < 7; i++)
    make_views (W, H, 400 + i, 2 + i, &l[i], &r[i]);
  Pair p = make_pair ("backend=cpu pipeline-depth=3");
  std::string log;
  record_src (p, &log);

  for (int i = 0; i < 2; i++)
    push_pair_nowait (p, l[i], r[i], i * FRAME);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 0);
  fail_unless (gst_harness_push_event (p.left,
      gst_event_new_tag (gst_tag_list_new_empty ())));
  sync_pad (p.left);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 2);
  for (int i = 2; i < 7; i++)
    push_pair_nowait (p, l[i], r[i], i * FRAME);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 4);
  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
  wait_eos (p.left);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 7);
  fail_unless_equals_string (log.c_str (), "CBBBBBBBE");
  for (int i = 0; i < 7; i++) {
    GstBuffer * o = gst_harness_pull (p.left);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (o), i * FRAME);
    check_equals_map (read_output (p.left, o), reference_map (p.el, l[i], r[i]),
        "drained");
    gst_buffer_unref (o);
  }
  fail_unless (gst_harness_try_pull (p.left) == NULL);
  free_pair (p);
}

GST_END_TEST;

/* A flush discards the held pairs; streaming then starts over. */
GST_START_TEST (test_pipeline_flush_drops)
{
  TestImage l[6], r[6];
  for (int i = 0; i < 6; i++)
    make_views (W, H, 500 + i, 3 + i, &l[i], &r[i]);
  Pair p = make_pair ("backend=cpu pipeline-depth=2");
  for (int i = 0; i < 3; i++)
    push_pair_nowait (p, l[i], r[i], i * FRAME);
  GstBuffer * o = gst_harness_pull (p.left);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (o), 0);
  gst_buffer_unref (o);

  flush_both (p);
  for (int i = 3; i < 6; i++)
    push_pair_nowait (p, l[i], r[i], (10 + i) * FRAME);
  /* only the first pair after the flush is due */
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 2);
  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
  wait_eos (p.left);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 4);
  for (int i = 3; i < 6; i++) {
    o = gst_harness_pull (p.left);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (o), (10 + i) * FRAME);
    check_equals_map (read_output (p.left, o), reference_map (p.el, l[i], r[i]),
        "after flush");
    gst_buffer_unref (o);
  }
  fail_unless (gst_harness_try_pull (p.left) == NULL);
  /* The flushed pairs are not pairing drops. */
  fail_unless_equals_uint64 (dropped (p.el), 0);
  free_pair (p);
}

GST_END_TEST;

/* Decodes a GRAY16_LE output of w x h (the harness's current caps may
 * already be newer than the buffer). */
static std::vector<uint16_t>
gray16_map (GstBuffer * buf, int w, int h)
{
  GstVideoInfo info;
  GstVideoFrame frame;
  gst_video_info_set_format (&info, GST_VIDEO_FORMAT_GRAY16_LE, w, h);
  fail_unless (gst_buffer_get_size (buf) >= info.size);
  fail_unless (gst_video_frame_map (&frame, &info, buf, GST_MAP_READ));
  std::vector<uint16_t> m ((size_t) w * h);
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const uint8_t * px =
          (const uint8_t *) GST_VIDEO_FRAME_PLANE_DATA (&frame, 0)
          + (size_t) y * GST_VIDEO_FRAME_PLANE_STRIDE (&frame, 0) + 2 * x;
      m[(size_t) y * w + x] = (uint16_t) (px[0] | (px[1] << 8));
    }
  gst_video_frame_unmap (&frame);
  return m;
}

/* While pairs are held, a caps change (a new size on both pads), a change
 * of a matcher setting (num-disparities, which rebuilds the matcher) and
 * one of the output (new source caps) first push the held maps, computed
 * with what they were submitted with; then the new ones follow. */
GST_START_TEST (test_pipeline_caps_and_settings_change)
{
  const int w2 = 80, h2 = 64;
  TestImage a[2], ar[2], b[4], br[4];
  for (int i = 0; i < 2; i++)
    make_views (W, H, 600 + i, 2 + 3 * i, &a[i], &ar[i]);
  for (int i = 0; i < 4; i++)
    make_views (w2, h2, 610 + i, 4 + i, &b[i], &br[i]);
  Pair p = make_pair ("backend=cpu pipeline-depth=2 num-disparities=16");
  std::string log;
  record_src (p, &log);

  std::vector<std::vector<uint16_t>> want;
  for (int i = 0; i < 2; i++) {
    want.push_back (reference_map (p.el, a[i], ar[i]));
    push_pair_nowait (p, a[i], ar[i], i * FRAME);
  }
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 0);

  /* New size: the two held maps leave at the caps event (before the new
   * caps go downstream). */
  set_caps (p.left, "GRAY8", w2, h2);
  set_caps (p.right, "GRAY8", w2, h2);
  sync_pad (p.left);
  sync_pad (p.right);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 2);
  for (int i = 0; i < 2; i++) {
    want.push_back (reference_map (p.el, b[i], br[i]));
    push_pair_nowait (p, b[i], br[i], (2 + i) * FRAME);
  }
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 2);

  /* A matcher setting while playing: the held maps (16 disparities) leave
   * before the next pair (32) is matched. */
  g_object_set (p.el, "num-disparities", 32, NULL);
  want.push_back (reference_map (p.el, b[2], br[2]));
  push_pair_nowait (p, b[2], br[2], 4 * FRAME);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 4);

  /* The output while playing: the held GRAY16 map leaves before the GRAY8
   * caps. */
  g_object_set (p.el, "output", 1 /* gray8 */, NULL);
  want.push_back (reference_map (p.el, b[3], br[3]));
  push_pair_nowait (p, b[3], br[3], 5 * FRAME);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 5);

  fail_unless (gst_harness_push_event (p.left, gst_event_new_eos ()));
  fail_unless (gst_harness_push_event (p.right, gst_event_new_eos ()));
  wait_eos (p.left);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 6);
  fail_unless_equals_string (log.c_str (), "CBBCBBBCBE");
  for (int i = 0; i < 5; i++) {
    GstBuffer * o = gst_harness_pull (p.left);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (o), i * FRAME);
    const int w = i < 2 ? W : w2, h = i < 2 ? H : h2;
    const std::vector<uint16_t> got = gray16_map (o, w, h);
    fail_unless (got == want[i], "map %d differs from the reference", i);
    gst_buffer_unref (o);
  }
  GstBuffer * o = gst_harness_pull (p.left);
  fail_unless_equals_uint64 (GST_BUFFER_PTS (o), 5 * FRAME);
  const OutFrame f = read_output (p.left, o);
  fail_unless_equals_string (gst_video_format_to_string (f.info.finfo->format),
      "GRAY8");
  for (int y = 0; y < h2; y++)
    for (int x = 0; x < w2; x++) {
      const uint16_t v = want[5][(size_t) y * w2 + x];
      const int e = v == match::kInvalidDisparity
          ? 0
          : (int) std::min (255L, std::lround (v / 16.0));
      fail_unless_equals_int (f.px (x, y)[0], e);
    }
  gst_buffer_unref (o);
  free_pair (p);
}

GST_END_TEST;

/* pipeline-depth lowered while playing: the extra held maps leave with the
 * next pair. */
GST_START_TEST (test_pipeline_depth_change)
{
  TestImage l, r;
  make_views (W, H, 700, 5, &l, &r);
  Pair p = make_pair ("backend=cpu pipeline-depth=3");
  for (int i = 0; i < 3; i++)
    push_pair_nowait (p, l, r, i * FRAME);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 0);
  g_object_set (p.el, "pipeline-depth", 0, NULL);
  push_pair_nowait (p, l, r, 3 * FRAME);
  fail_unless_equals_int (gst_harness_buffers_received (p.left), 4);
  for (int i = 0; i < 4; i++) {
    GstBuffer * o = gst_harness_pull (p.left);
    fail_unless_equals_uint64 (GST_BUFFER_PTS (o), i * FRAME);
    gst_buffer_unref (o);
  }
  free_pair (p);
}

GST_END_TEST;

/* The latency query: upstream's, plus `latency` (the tests' 10 s), plus
 * depth x frame duration (nothing extra at an unknown frame rate). */
static GstClockTime
latency_for (const char * props, const char * framerate)
{
  TestImage l, r;
  make_views (W, H, 800, 3, &l, &r);
  Pair p = make_pair (props);
  set_caps (p.left, "GRAY8", W, H, framerate);
  set_caps (p.right, "GRAY8", W, H, framerate);
  gst_harness_set_upstream_latency (p.left, 5 * GST_MSECOND);
  push_pair_nowait (p, l, r, 0);
  const GstClockTime latency = gst_harness_query_latency (p.left);
  free_pair (p);
  return latency;
}

GST_START_TEST (test_pipeline_latency)
{
  const GstClockTime base = 10 * GST_SECOND + 5 * GST_MSECOND;
  fail_unless_equals_uint64 (latency_for ("pipeline-depth=0", "30/1"), base);
  fail_unless_equals_uint64 (latency_for ("pipeline-depth=2", "30/1"),
      base + gst_util_uint64_scale_int (2 * GST_SECOND, 1, 30));
  fail_unless_equals_uint64 (latency_for ("backend=cpu pipeline-depth=4",
                                 "25/1"),
      base + 4 * GST_SECOND / 25);
  fail_unless_equals_uint64 (latency_for ("pipeline-depth=3", "0/1"), base);
}

GST_END_TEST;

/* The kernels' frame size limit is in the pad templates, so that a larger
 * frame fails at negotiation rather than after it: 16384 pixels a side
 * negotiate, 16385 do not. */
GST_START_TEST (test_frame_size_in_caps)
{
  static const char * const pads[] = { "sink_left", "sink_right", "src", NULL };
  test_check_frame_size_limit ("stereodisparity", pads);
}

GST_END_TEST;

static Suite *
stereodisparity_suite (void)
{
  Suite * s = suite_create ("stereodisparity");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_caps_every_output);
  tcase_add_test (tc, test_caps_from_reference);
  tcase_add_test (tc, test_frame_size_in_caps);
  tcase_add_test (tc, test_input_formats);
  tcase_add_test (tc, test_pairing_by_timestamp);
  tcase_add_test (tc, test_missing_frame);
  tcase_add_test (tc, test_pairing_tolerance);
  tcase_add_test (tc, test_eos_one_side);
  tcase_add_test (tc, test_live_timeout);
  tcase_add_test (tc, test_untimestamped_pairs_by_arrival);
  tcase_add_test (tc, test_unlinked_view_errors);
  tcase_add_test (tc, test_no_view_linked_errors);
  tcase_add_test (tc, test_stalled_view_warns);
  tcase_add_test (tc, test_size_mismatch);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_flush_one_view);
  tcase_add_test (tc, test_properties);
  tcase_add_test (tc, test_settings_errors);
  tcase_add_test (tc, test_matches_reference);
  tcase_add_test (tc, test_fill_and_joint_median);
  tcase_add_test (tc, test_runtime_property_change);
  tcase_add_test (tc, test_depth);
  tcase_add_test (tc, test_fixed_scaling);
  tcase_add_test (tc, test_backend_cuda);
  tcase_add_test (tc, test_property_stress);
  tcase_add_test (tc, test_golden_tsukuba);
  tcase_add_test (tc, test_pipeline);
  tcase_add_test (tc, test_pipeline_depth_same_outputs);
  tcase_add_test (tc, test_pipeline_depth_cuda);
  tcase_add_test (tc, test_pipeline_eos_drains);
  tcase_add_test (tc, test_pipeline_flush_drops);
  tcase_add_test (tc, test_pipeline_caps_and_settings_change);
  tcase_add_test (tc, test_pipeline_depth_change);
  tcase_add_test (tc, test_pipeline_latency);
  return s;
}

GST_CHECK_MAIN (stereodisparity);
