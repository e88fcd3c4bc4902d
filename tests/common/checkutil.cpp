/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "checkutil.h"

#include <cstring>

#include <gst/app/gstappsink.h>
#include <gst/app/gstappsrc.h>
#include <gst/check/gstcheck.h>
#include <gst/motionvectors/motionvectors.h>

GstMessage *test_run_to_end(GstElement *pipe, GstClockTime timeout) {
  fail_unless(pipe != NULL);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus(pipe);
  GstMessage *msg = gst_bus_timed_pop_filtered(
      bus, timeout, (GstMessageType)(GST_MESSAGE_ERROR | GST_MESSAGE_EOS));
  fail_unless(msg != NULL);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(bus);
  gst_object_unref(pipe);
  return msg;
}

GstMessage *test_run_launch(const char *desc, GstClockTime timeout) {
  return test_run_to_end(gst_parse_launch(desc, NULL), timeout);
}

void test_check_error(GstMessage *msg, GQuark domain, gint code, const char *what,
                      const char *in_message) {
  fail_unless_equals_int(GST_MESSAGE_TYPE(msg), GST_MESSAGE_ERROR);
  GError *err = NULL;
  gchar *dbg = NULL;
  gst_message_parse_error(msg, &err, &dbg);
  fail_unless(g_error_matches(err, domain, code), "%s: got %s (%s)", what, err->message,
              dbg);
  if (in_message)
    fail_unless(strstr(err->message, in_message) != NULL, "%s: %s", what, err->message);
  g_error_free(err);
  g_free(dbg);
  gst_message_unref(msg);
}

guint test_count_errors(GstBus *bus, GQuark domain, gint code) {
  guint n = 0;
  GstMessage *msg;
  while ((msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR))) {
    test_check_error(msg, domain, code, "error on the bus");
    n++;
  }
  return n;
}

void test_set_props(GstElement *el, const char *props) {
  gchar **kv = g_strsplit(props ? props : "", " ", -1);
  for (gchar **p = kv; *p; p++) {
    gchar **pair = g_strsplit(*p, "=", 2);
    if (pair[0] && pair[1]) gst_util_set_object_arg(G_OBJECT(el), pair[0], pair[1]);
    g_strfreev(pair);
  }
  g_strfreev(kv);
}

void test_check_frame_size_limit(const char *factory, const char *const *pads) {
  GstElement *el = gst_element_factory_make(factory, NULL);
  fail_unless(el != NULL, "%s", factory);
  GstCaps *ok = gst_caps_from_string(
      "video/x-raw,format=GRAY8,width=16384,height=16384,framerate=30/1");
  GstCaps *wide = gst_caps_from_string(
      "video/x-raw,format=GRAY8,width=16385,height=8,framerate=30/1");
  GstCaps *tall = gst_caps_from_string(
      "video/x-raw,format=GRAY8,width=8,height=16385,framerate=30/1");
  for (const char *const *name = pads; *name; name++) {
    GstPad *pad = gst_element_get_static_pad(el, *name);
    fail_unless(pad != NULL, "%s: no pad %s", factory, *name);
    GstCaps *templ = gst_pad_get_pad_template_caps(pad);
    fail_unless(gst_caps_can_intersect(templ, ok), "%s", *name);
    fail_if(gst_caps_can_intersect(templ, wide), "%s", *name);
    fail_if(gst_caps_can_intersect(templ, tall), "%s", *name);
    gst_caps_unref(templ);
    gst_object_unref(pad);
  }
  gst_caps_unref(ok);
  gst_caps_unref(wide);
  gst_caps_unref(tall);
  gst_object_unref(el);
}

GstBuffer *test_moving_square(guint n, int side, int x0, int y0, int dx, int dy) {
  const int w = 160, h = 120;
  GstBuffer *buf = gst_buffer_new_allocate(NULL, w * h, NULL);
  GstMapInfo map;
  fail_unless(gst_buffer_map(buf, &map, GST_MAP_WRITE));
  const int sx = x0 + dx * (int)n, sy = y0 + dy * (int)n;
  for (int y = 0; y < h; y++)
    for (int x = 0; x < w; x++) {
      const bool in = x >= sx && x < sx + side && y >= sy && y < sy + side;
      const guint u = in ? (guint)(x - sx) * 7919u + (guint)(y - sy) * 104729u
                         : (guint)x * 2654435761u + (guint)y * 40503u;
      map.data[y * w + x] = (guint8)(in ? 40 + (u >> 5) % 80 : 140 + ((u >> 13) % 90));
    }
  gst_buffer_unmap(buf, &map);
  GST_BUFFER_PTS(buf) = n * 40 * GST_MSECOND;
  GST_BUFFER_DURATION(buf) = 40 * GST_MSECOND;
  return buf;
}

std::string test_buffer_text(GstBuffer *buf) {
  GstMapInfo map;
  fail_unless(gst_buffer_map(buf, &map, GST_MAP_READ));
  std::string s((const char *)map.data, map.size);
  gst_buffer_unmap(buf, &map);
  return s;
}

void test_play_frames(GstElement *pipe, guint n, GstBuffer *(*make)(guint),
                      std::vector<GstBuffer *> *out) {
  GstElement *src = gst_bin_get_by_name(GST_BIN(pipe), "src");
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  fail_unless(src != NULL && sink != NULL);
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  for (guint i = 0; i < n; i++)
    fail_unless_equals_int(gst_app_src_push_buffer(GST_APP_SRC(src), make(i)),
                           GST_FLOW_OK);
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  GstSample *s;
  while ((s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 30 * GST_SECOND))) {
    if (out) out->push_back(gst_buffer_ref(gst_sample_get_buffer(s)));
    gst_sample_unref(s);
  }
  fail_unless(gst_app_sink_is_eos(GST_APP_SINK(sink)));
  gst_object_unref(src);
  gst_object_unref(sink);
}

std::vector<GstVideoRegionOfInterestMeta *> test_motion_rois(GstBuffer *buf) {
  const GQuark motion = g_quark_from_static_string(GST_MOTION_REGION_ROI_TYPE);
  std::vector<GstVideoRegionOfInterestMeta *> out;
  gpointer state = NULL;
  GstMeta *m;
  while ((m = gst_buffer_iterate_meta_filtered(
              buf, &state, GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *)m;
    if (roi->roi_type == motion) out.push_back(roi);
  }
  return out;
}

gboolean test_have_decoder(const char *caps_str) {
  GList *all = gst_element_factory_list_get_elements(GST_ELEMENT_FACTORY_TYPE_DECODER,
                                                     GST_RANK_MARGINAL);
  GstCaps *caps = gst_caps_from_string(caps_str);
  GList *ok = gst_element_factory_list_filter(all, caps, GST_PAD_SINK, FALSE);
  const gboolean found = ok != NULL;
  gst_plugin_feature_list_free(ok);
  gst_plugin_feature_list_free(all);
  gst_caps_unref(caps);
  return found;
}

gboolean test_have_element(const char *name) {
  GstElementFactory *f = gst_element_factory_find(name);
  if (f) gst_object_unref(f);
  return f != NULL;
}

gboolean test_can_decode_ogg_theora(void) {
  return test_have_element("oggdemux") && test_have_decoder("video/x-theora");
}

void test_probe_buffers(GstElement *pipe, const char *element, const char *pad,
                        GstPadProbeCallback cb, gpointer data) {
  GstElement *el = gst_bin_get_by_name(GST_BIN(pipe), element);
  fail_unless(el != NULL, "no element %s", element);
  GstPad *p = gst_element_get_static_pad(el, pad);
  fail_unless(p != NULL, "no pad %s:%s", element, pad);
  gst_pad_add_probe(p, GST_PAD_PROBE_TYPE_BUFFER, cb, data, NULL);
  gst_object_unref(p);
  gst_object_unref(el);
}
