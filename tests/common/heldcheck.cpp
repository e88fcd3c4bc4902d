/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "heldcheck.h"
#include "checkutil.h"

#include <cstring>

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>

OutFrame test_describe_output(GstBuffer *buf, int w, int h) {
  OutFrame o;
  GstMotionVectorsMeta *m = gst_buffer_get_motion_vectors_meta(buf);
  fail_unless(m != NULL, "no GstMotionVectorsMeta on the output buffer");
  o.pts = GST_BUFFER_PTS(buf);
  o.dts = GST_BUFFER_DTS(buf);
  o.duration = GST_BUFFER_DURATION(buf);
  o.offset = GST_BUFFER_OFFSET(buf);
  o.flags =
      GST_BUFFER_FLAGS(buf) & (GST_BUFFER_FLAG_DISCONT | GST_BUFFER_FLAG_DELTA_UNIT);
  o.reference_timestamp = m->reference_timestamp;
  o.columns = m->columns;
  o.rows = m->rows;
  o.precision = m->precision;
  o.vectors.assign(m->vectors, m->vectors + m->n_vectors);
  GstVideoInfo info;
  GstVideoFrame frame;
  gst_video_info_set_format(&info, GST_VIDEO_FORMAT_GRAY8, w, h);
  fail_unless(gst_video_frame_map(&frame, &info, buf, GST_MAP_READ));
  o.pixels.resize((size_t)w * h);
  for (int y = 0; y < h; y++)
    memcpy(&o.pixels[(size_t)y * w],
           (const uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&frame, 0) +
               (size_t)y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0),
           w);
  gst_video_frame_unmap(&frame);
  return o;
}

void test_pull_all(GstHarness *hrn, int w, int h, std::vector<OutFrame> *out) {
  GstBuffer *b;
  while ((b = gst_harness_try_pull(hrn))) {
    out->push_back(test_describe_output(b, w, h));
    gst_buffer_unref(b);
  }
}

RunResult test_run_sequence(const char *element, const char *props,
                            const std::vector<TestImage> &frames, guint discont) {
  RunResult r;
  const int w = frames[0].width, h = frames[0].height;
  GstHarness *hrn = gst_harness_new(element);
  test_set_props(hrn->element, props);
  gchar *caps = g_strdup_printf(
      "video/x-raw,format=GRAY8,width=%d,"
      "height=%d,framerate=30/1",
      w, h);
  gst_harness_set_src_caps_str(hrn, caps);
  g_free(caps);

  for (guint i = 0; i < frames.size(); i++) {
    GstBuffer *in = test_gray_buffer(frames[i], w + 11, i * FRAME_DURATION);
    GST_BUFFER_DTS(in) = i * FRAME_DURATION;
    GST_BUFFER_DURATION(in) = FRAME_DURATION;
    GST_BUFFER_OFFSET(in) = i;
    if (discont && i == discont) GST_BUFFER_FLAG_SET(in, GST_BUFFER_FLAG_DISCONT);
    fail_unless_equals_int(gst_harness_push(hrn, in), GST_FLOW_OK);
    const guint got = gst_harness_buffers_received(hrn);
    if (r.lag < 0 && got > 0) r.lag = i + 1 - got;
    if (!discont || i < discont)
      fail_unless_equals_int(got, r.lag < 0 ? 0 : (int)i + 1 - r.lag);
    test_pull_all(hrn, w, h, &r.frames);
  }
  if (r.lag < 0) r.lag = frames.size();
  r.latency = gst_harness_query_latency(hrn);
  gchar *active = NULL;
  g_object_get(hrn->element, "active-backend", &active, NULL);
  r.active_backend = active ? active : "";
  g_free(active);

  fail_unless(gst_harness_push_event(hrn, gst_event_new_eos()));
  test_pull_all(hrn, w, h, &r.frames);
  fail_unless_equals_int(r.frames.size(), frames.size());
  gst_harness_teardown(hrn);
  return r;
}

void test_check_same_outputs(const RunResult &want, const RunResult &got,
                             const char *what) {
  fail_unless_equals_int(got.frames.size(), want.frames.size());
  for (size_t i = 0; i < want.frames.size(); i++) {
    const OutFrame &a = want.frames[i], &b = got.frames[i];
    fail_unless(a.pts == b.pts && a.dts == b.dts && a.duration == b.duration &&
                    a.offset == b.offset && a.flags == b.flags,
                "%s: buffer %zu: timestamps/flags differ "
                "(pts %" GST_TIME_FORMAT " vs %" GST_TIME_FORMAT ")",
                what, i, GST_TIME_ARGS(a.pts), GST_TIME_ARGS(b.pts));
    fail_unless(a.reference_timestamp == b.reference_timestamp,
                "%s: buffer %zu: reference timestamp differs", what, i);
    fail_unless(a.columns == b.columns && a.rows == b.rows && a.precision == b.precision,
                "%s: buffer %zu: grid differs", what, i);
    fail_unless(a.vectors.size() == b.vectors.size() &&
                    memcmp(a.vectors.data(), b.vectors.data(),
                           a.vectors.size() * sizeof(GstMotionVector)) == 0,
                "%s: buffer %zu: vectors differ", what, i);
    fail_unless(a.pixels == b.pixels, "%s: buffer %zu: pixels differ", what, i);
  }
}

GstPadProbeReturn test_record_flow(GstPad *, GstPadProbeInfo *info, gpointer user_data) {
  std::string *log = static_cast<std::string *>(user_data);
  if (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_BUFFER)
    *log += 'B';
  else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_EOS)
    *log += 'E';
  else if (GST_EVENT_TYPE(GST_PAD_PROBE_INFO_EVENT(info)) == GST_EVENT_TAG)
    *log += 'T';
  return GST_PAD_PROBE_OK;
}

GstClockTime test_latency_for(const char *element, const char *props, const char *caps,
                              GstClockTime upstream) {
  GstHarness *hrn = gst_harness_new(element);
  test_set_props(hrn->element, props);
  gst_harness_set_src_caps_str(hrn, caps);
  gst_harness_set_upstream_latency(hrn, upstream);
  const TestImage a = test_texture(64, 48, 1);
  fail_unless_equals_int(gst_harness_push(hrn, test_gray_buffer(a, 64, 0)), GST_FLOW_OK);
  const GstClockTime latency = gst_harness_query_latency(hrn);
  gst_harness_teardown(hrn);
  return latency;
}

GstHarness *test_held_harness(const HeldCase &c, const char *props) {
  GstHarness *hrn = gst_harness_new(c.element);
  test_set_props(hrn->element, c.props);
  test_set_props(hrn->element, props);
  gchar *caps = g_strdup_printf(
      "video/x-raw,format=GRAY8,width=%d,height=%d,"
      "framerate=30/1",
      c.width, c.height);
  gst_harness_set_src_caps_str(hrn, caps);
  g_free(caps);
  return hrn;
}

void test_held_eos_drains(const HeldCase &c) {
  GstHarness *hrn = test_held_harness(c, "pipeline-depth=3");
  const TestImage a = test_texture(c.width, c.height, 1), b = test_shift(a, 2, 0);
  std::string log;
  GstPad *src = gst_element_get_static_pad(hrn->element, "src");
  gst_pad_add_probe(
      src,
      (GstPadProbeType)(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM),
      test_record_flow, &log, NULL);
  gst_object_unref(src);

  for (int i = 0; i < 2; i++)
    fail_unless_equals_int(gst_harness_push(hrn, test_gray_buffer(i ? b : a, c.width, i)),
                           GST_FLOW_OK);
  fail_unless_equals_int(gst_harness_buffers_received(hrn), 0);
  fail_unless(gst_harness_push_event(hrn, gst_event_new_tag(gst_tag_list_new_empty())));
  fail_unless_equals_int(gst_harness_buffers_received(hrn), 2);
  for (int i = 2; i < 7; i++)
    fail_unless_equals_int(
        gst_harness_push(hrn, test_gray_buffer(i % 2 ? b : a, c.width, i)), GST_FLOW_OK);
  fail_unless_equals_int(gst_harness_buffers_received(hrn), 4);
  fail_unless(gst_harness_push_event(hrn, gst_event_new_eos()));
  fail_unless_equals_int(gst_harness_buffers_received(hrn), 7);
  fail_unless_equals_string(log.c_str(), "BBTBBBBBE");

  for (int i = 0; i < 7; i++) {
    GstBuffer *o = gst_harness_pull(hrn);
    fail_unless_equals_uint64(GST_BUFFER_PTS(o), i);
    GstMotionVectorsMeta *m = c.get_meta(o);
    if (i == 0)
      c.check_no_estimate(m);
    else {
      fail_unless_equals_uint64(m->reference_timestamp, i - 1);
      c.check_shift(m, i % 2 ? -2.0f : 2.0f, 0.0f);
    }
    gst_buffer_unref(o);
  }
  gst_harness_teardown(hrn);
}

void test_held_flush_drops(const HeldCase &c) {
  GstHarness *hrn = test_held_harness(c, "pipeline-depth=2");
  const TestImage a = test_texture(c.width, c.height, 1), b = test_shift(a, 0, 3);
  for (int i = 0; i < 3; i++)
    fail_unless_equals_int(gst_harness_push(hrn, test_gray_buffer(a, c.width, i)),
                           GST_FLOW_OK);
  GstBuffer *o = gst_harness_pull(hrn);
  fail_unless_equals_uint64(GST_BUFFER_PTS(o), 0);
  gst_buffer_unref(o);

  fail_unless(gst_harness_push_event(hrn, gst_event_new_flush_start()));
  fail_unless(gst_harness_push_event(hrn, gst_event_new_flush_stop(TRUE)));
  GstSegment seg;
  gst_segment_init(&seg, GST_FORMAT_TIME);
  fail_unless(gst_harness_push_event(hrn, gst_event_new_segment(&seg)));

  for (int i = 10; i < 13; i++)
    fail_unless_equals_int(
        gst_harness_push(hrn, test_gray_buffer(i % 2 ? b : a, c.width, i)), GST_FLOW_OK);
  fail_unless(gst_harness_push_event(hrn, gst_event_new_eos()));
  fail_unless_equals_int(gst_harness_buffers_received(hrn), 4);
  for (int i = 10; i < 13; i++) {
    o = gst_harness_pull(hrn);
    fail_unless_equals_uint64(GST_BUFFER_PTS(o), i);
    if (i == 10)
      c.check_no_estimate(c.get_meta(o));
    else {
      fail_unless_equals_uint64(c.get_meta(o)->reference_timestamp, i - 1);
      c.check_shift(c.get_meta(o), 0.0f, i % 2 ? -3.0f : 3.0f);
    }
    gst_buffer_unref(o);
  }
  fail_unless(gst_harness_try_pull(hrn) == NULL);
  gst_harness_teardown(hrn);
}

void test_held_depth_change(const HeldCase &c) {
  GstHarness *hrn = test_held_harness(c, "pipeline-depth=3");
  const TestImage a = test_texture(c.width, c.height, 1), b = test_shift(a, 1, 1);
  for (int i = 0; i < 3; i++)
    fail_unless_equals_int(
        gst_harness_push(hrn, test_gray_buffer(i % 2 ? b : a, c.width, i)), GST_FLOW_OK);
  fail_unless_equals_int(gst_harness_buffers_received(hrn), 0);
  g_object_set(hrn->element, "pipeline-depth", 0, NULL);
  fail_unless_equals_int(gst_harness_push(hrn, test_gray_buffer(b, c.width, 3)),
                         GST_FLOW_OK);
  fail_unless_equals_int(gst_harness_buffers_received(hrn), 4);
  for (int i = 0; i < 4; i++) {
    GstBuffer *o = gst_harness_pull(hrn);
    fail_unless_equals_uint64(GST_BUFFER_PTS(o), i);
    gst_buffer_unref(o);
  }
  fail_unless_equals_uint64(gst_harness_query_latency(hrn), 0);
  gst_harness_teardown(hrn);
}

void test_held_same_vectors(const char *element, const std::vector<const char *> &bases,
                            const std::vector<TestImage> &seq, guint discont) {
  for (const char *b : bases) {
    gchar *props = g_strdup_printf("%s pipeline-depth=0", b);
    const RunResult sync = test_run_sequence(element, props, seq, discont);
    g_free(props);
    fail_unless_equals_int(sync.lag, 0);
    fail_unless_equals_uint64(sync.latency, 0);
    /* sanity: the sequence does estimate something */
    fail_unless(sync.frames[2].reference_timestamp == FRAME_DURATION);
    fail_unless(sync.frames[discont].reference_timestamp == GST_CLOCK_TIME_NONE);
    for (int depth = 1; depth <= 3; depth++) {
      props = g_strdup_printf("%s pipeline-depth=%d", b, depth);
      const RunResult piped = test_run_sequence(element, props, seq, discont);
      fail_unless_equals_int(piped.lag, depth);
      test_check_same_outputs(sync, piped, props);
      g_free(props);
    }
  }
}

/* The latency c.element answers at `depth` after a frame of `caps`. */
static GstClockTime held_latency(const HeldCase &c, int depth, const char *caps,
                                 GstClockTime upstream) {
  gchar *props = g_strdup_printf("%s pipeline-depth=%d", c.props, depth);
  const GstClockTime l = test_latency_for(c.element, props, caps, upstream);
  g_free(props);
  return l;
}

void test_held_latency(const HeldCase &c) {
  const char *c30 =
      "video/x-raw,format=GRAY8,width=64,height=48,"
      "framerate=30/1";
  const char *c25 =
      "video/x-raw,format=GRAY8,width=64,height=48,"
      "framerate=25/1";
  const char *c0 =
      "video/x-raw,format=GRAY8,width=64,height=48,"
      "framerate=0/1";
  const GstClockTime up = 5 * GST_MSECOND;
  fail_unless_equals_uint64(held_latency(c, 0, c30, up), up);
  fail_unless_equals_uint64(held_latency(c, 2, c30, up),
                            up + gst_util_uint64_scale_int(2 * GST_SECOND, 1, 30));
  fail_unless_equals_uint64(held_latency(c, 4, c25, 0), 4 * GST_SECOND / 25);
  fail_unless_equals_uint64(held_latency(c, 3, c0, up), up);
}
