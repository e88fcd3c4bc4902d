/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mv-eval: runs a motion-estimation element (blockmatchme by default) on one
 * image pair and prints the accuracy of its field against a ground-truth
 * .flo with the metrics of docs/accuracy.md (dense EPE, block
 * EPE, bad blocks; see tests/common/flowmetrics.h).
 *
 *   mv-eval [-p NAME=VALUE]... [--name LABEL] [--zero] [--no-header] \
 *       [--dump FILE] [--before FRAME] frame0 frame1 gt.flo
 *
 * --dump writes the raw field of the meta (for bench/poc_accuracy.py): a
 * first line "columns rows block_width block_height", then one line per
 * block in raster order "dx dy cost confidence flags".
 *
 * frame0 -> frame1 is the pair the GT maps (frame0(x) ~ frame1(x + gt(x))).
 * --before pushes the frame before frame0 first, as a stream would have it
 * (pocme's layer vote then has its third frame; the field scored is still
 * frame1's).
 * Images are read as GRAY8 (PGM directly, anything else through a GStreamer
 * decoder and videoconvert). The element gets direction=forward, then every
 * -p property in order (so -p direction=backward is refused by the metrics).
 * Example, from the build directory:
 *
 *   GST_PLUGIN_PATH_1_0=gst tools/mv-eval -p backend=cpu -p block-size=16 \
 *       -p search-range=16 -p subpixel=half \
 *       ../shared/data/flow/middlebury/Venus/frame10.png \
 *       ../shared/data/flow/middlebury/Venus/frame11.png \
 *       ../shared/data/flow/middlebury/Venus/flow10.flo
 */
#include <cstdio>
#include <string>
#include <vector>

#include <gst/gst.h>
#include <gst/app/app.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include "../tests/common/flowmetrics.h"
#include "../tests/common/testutil.h"

/* Pushes `frames` in order through `element`; on success *field holds the
 * FORWARD field attached to the last one. */
static bool run_element(const char *element, gchar **props,
                        const std::vector<const TestImage *> &frames, BlockField *field,
                        float *precision, const char *dump, std::string *error) {
  const TestImage &f0 = *frames.front();
  GstElement *pipe = gst_pipeline_new("mv-eval");
  GstElement *src = gst_element_factory_make("appsrc", NULL);
  GstElement *me = gst_element_factory_make(element, NULL);
  GstElement *sink = gst_element_factory_make("appsink", NULL);
  if (!pipe || !src || !me || !sink) {
    *error = std::string("could not create appsrc, appsink or ") + element +
             " (is GST_PLUGIN_PATH_1_0 set to the build's gst/ folder?)";
    GstElement *made[] = {pipe, src, me, sink};
    for (GstElement *e : made)
      if (e) gst_object_unref(e);
    return false;
  }

  GstCaps *caps = gst_caps_new_simple(
      "video/x-raw", "format", G_TYPE_STRING, "GRAY8", "width", G_TYPE_INT, f0.width,
      "height", G_TYPE_INT, f0.height, "framerate", GST_TYPE_FRACTION, 30, 1, NULL);
  g_object_set(src, "caps", caps, "format", GST_FORMAT_TIME, NULL);
  gst_caps_unref(caps);
  g_object_set(sink, "sync", FALSE, NULL);

  gst_util_set_object_arg(G_OBJECT(me), "direction", "forward");
  for (gchar **p = props; p && *p; p++) {
    /* Parsed and range-checked here, so that a typo is an error rather
     * than a GLib warning and a default value. */
    gchar **kv = g_strsplit(*p, "=", 2);
    GParamSpec *pspec = kv[0] && kv[1]
                            ? g_object_class_find_property(G_OBJECT_GET_CLASS(me), kv[0])
                            : NULL;
    GValue value = G_VALUE_INIT;
    bool ok = false;
    if (pspec && (pspec->flags & G_PARAM_WRITABLE)) {
      g_value_init(&value, pspec->value_type);
      ok = gst_value_deserialize(&value, kv[1]) && !g_param_value_validate(pspec, &value);
      if (ok) g_object_set_property(G_OBJECT(me), kv[0], &value);
      g_value_unset(&value);
    }
    g_strfreev(kv);
    if (!ok) {
      *error = std::string("bad property setting '") + *p + "' for " + element;
      gst_object_unref(src);
      gst_object_unref(me);
      gst_object_unref(sink);
      gst_object_unref(pipe);
      return false;
    }
  }

  gst_bin_add_many(GST_BIN(pipe), src, me, sink, NULL);
  gst_element_link_many(src, me, sink, NULL);
  gst_element_set_state(pipe, GST_STATE_PLAYING);

  for (size_t i = 0; i < frames.size(); i++)
    gst_app_src_push_buffer(
        GST_APP_SRC(src),
        test_gray_buffer(*frames[i], frames[i]->width, i * GST_SECOND / 30));
  gst_app_src_end_of_stream(GST_APP_SRC(src));

  bool ok = false;
  /* Every frame's sample; the last one carries the field scored. */
  GstSample *s1 = NULL;
  for (size_t i = 0; i < frames.size(); i++) {
    GstSample *s = gst_app_sink_try_pull_sample(GST_APP_SINK(sink),
                                                (i == 0 ? 60 : 600) * GST_SECOND);
    if (s1) gst_sample_unref(s1);
    s1 = s;
    if (!s) break;
  }
  if (s1) {
    GstMotionVectorsMeta *meta =
        gst_buffer_get_motion_vectors_meta(gst_sample_get_buffer(s1));
    ok = flow_field_from_meta(meta, field, error);
    if (ok) *precision = meta->precision;
    if (ok && dump) {
      FILE *f = fopen(dump, "w");
      ok = f != NULL;
      if (!ok) {
        *error = std::string("cannot write ") + dump;
      } else {
        fprintf(f, "%u %u %u %u\n", meta->columns, meta->rows, meta->block_width,
                meta->block_height);
        for (guint i = 0; i < meta->columns * meta->rows; i++) {
          const GstMotionVector *v = &meta->vectors[i];
          fprintf(f, "%.9g %.9g %u %.9g %u\n", v->dx, v->dy, v->cost, v->confidence,
                  v->flags);
        }
        fclose(f);
      }
    }
  } else {
    /* Report the element's own error if it posted one. */
    GstBus *bus = gst_element_get_bus(pipe);
    GstMessage *msg = gst_bus_pop_filtered(bus, GST_MESSAGE_ERROR);
    if (msg) {
      GError *err = NULL;
      gchar *dbg = NULL;
      gst_message_parse_error(msg, &err, &dbg);
      *error = std::string(err->message) + (dbg ? std::string(" (") + dbg + ")" : "");
      g_clear_error(&err);
      g_free(dbg);
      gst_message_unref(msg);
    } else {
      *error = "the element did not pass every frame";
    }
    gst_object_unref(bus);
  }
  if (s1) gst_sample_unref(s1);
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(pipe);
  return ok;
}

static std::string grid_label(const BlockField &f, float precision) {
  /* "16x16/half" style label from the meta's grid and precision. */
  char sub[32];
  if (precision == 1.0f)
    g_strlcpy(sub, "integer", sizeof sub);
  else if (precision == 0.5f)
    g_strlcpy(sub, "half", sizeof sub);
  else if (precision == 0.25f)
    g_strlcpy(sub, "quarter", sizeof sub);
  else
    g_snprintf(sub, sizeof sub, "p=%g", precision);
  return std::to_string(f.block_width) + "x" + std::to_string(f.block_height) + "/" + sub;
}

int main(int argc, char **argv) {
  gchar **props = NULL;
  gchar *element = NULL;
  gchar *label = NULL;
  gchar *dump = NULL;
  gchar *before = NULL;
  gboolean zero = FALSE, no_header = FALSE;
  GOptionEntry entries[] = {
      {"property", 'p', 0, G_OPTION_ARG_STRING_ARRAY, &props,
       "Element property (repeatable), e.g. -p subpixel=half", "NAME=VALUE"},
      {"element", 'e', 0, G_OPTION_ARG_STRING, &element,
       "Element to evaluate (default blockmatchme)", "NAME"},
      {"name", 'n', 0, G_OPTION_ARG_STRING, &label,
       "Sequence label in the table (default: frame0's folder)", "LABEL"},
      {"zero", 'z', 0, G_OPTION_ARG_NONE, &zero,
       "Also print the zero-motion baseline on the same grid", NULL},
      {"dump", 'd', 0, G_OPTION_ARG_FILENAME, &dump,
       "Write the field (dx dy cost confidence flags per block) to FILE", "FILE"},
      {"before", 'b', 0, G_OPTION_ARG_FILENAME, &before,
       "Push FRAME (the one before frame0) first, as a stream would", "FRAME"},
      {"no-header", 0, 0, G_OPTION_ARG_NONE, &no_header, "Do not print the table header",
       NULL},
      {NULL, 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL}};
  GError *err = NULL;
  GOptionContext *ctx = g_option_context_new("FRAME0 FRAME1 GT.flo");
  g_option_context_set_summary(
      ctx,
      "Accuracy of a motion-vector element "
      "against ground-truth flow (dense EPE, block EPE, bad blocks %).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  g_option_context_add_group(ctx, gst_init_get_option_group());
  if (!g_option_context_parse(ctx, &argc, &argv, &err) || argc != 4) {
    if (err) g_printerr("%s\n", err->message);
    gchar *help = g_option_context_get_help(ctx, TRUE, NULL);
    g_printerr("%s", help);
    g_free(help);
    g_clear_error(&err);
    g_option_context_free(ctx);
    return 2;
  }
  g_option_context_free(ctx);

  int rc = 1;
  TestImage f0, f1, fb;
  FlowGroundTruth gt;
  BlockField field;
  float precision = 0.0f;
  FlowMetrics m;
  std::string error;
  gchar *dir = g_path_get_dirname(argv[1]);
  gchar *base = g_path_get_basename(dir);
  const char *name = label ? label : base;

  std::vector<const TestImage *> frames;
  if (before) frames.push_back(&fb);
  frames.push_back(&f0);
  frames.push_back(&f1);
  if (!test_load_gray(argv[1], &f0) || !test_load_gray(argv[2], &f1)) {
    g_printerr("could not read %s or %s\n", argv[1], argv[2]);
  } else if (before && !test_load_gray(before, &fb)) {
    g_printerr("could not read %s\n", before);
  } else if (f0.width != f1.width || f0.height != f1.height ||
             (before && (fb.width != f0.width || fb.height != f0.height))) {
    g_printerr("the frames differ in size\n");
  } else if (!flow_gt_load(argv[3], &gt)) {
    g_printerr("could not read the .flo file %s\n", argv[3]);
  } else if (!run_element(element ? element : "blockmatchme", props, frames, &field,
                          &precision, dump, &error) ||
             !flow_metrics_compute(field, gt, &m, &error)) {
    g_printerr("%s\n", error.c_str());
  } else {
    const std::string grid = grid_label(field, precision);
    if (!no_header) g_print("%s\n", flow_metrics_table_header().c_str());
    g_print("%s\n", flow_metrics_table_row(name, grid.c_str(), m).c_str());
    if (zero) {
      FlowMetrics z;
      const BlockField zf = flow_field_zero(field.frame_width, field.frame_height,
                                            field.block_width, field.block_height);
      if (flow_metrics_compute(zf, gt, &z, &error))
        g_print("%s\n", flow_metrics_table_row(name, "zero", z).c_str());
    }
    if (m.blocks_no_estimate)
      g_print("(%d evaluated blocks had no estimate and count as bad)\n",
              m.blocks_no_estimate);
    rc = 0;
  }

  g_free(base);
  g_free(dir);
  g_free(label);
  g_free(element);
  g_free(dump);
  g_free(before);
  g_strfreev(props);
  return rc;
}
