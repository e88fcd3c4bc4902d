/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* mvsummary: runs a pipeline and summarises the motion fields that pass an
 * element named "probe" (for example `identity name=probe` right after
 * blockmatchme): frames, grid, mean and max |v|, share of moving blocks,
 * where in the picture the motion is, wall-clock speed.
 *
 *   mvsummary [-v] [--probe NAME] [PIPELINE-DESCRIPTION]
 *
 * The description is one argument ('a ! b') or its words as given to
 * gst-launch-1.0 (a ! b); without one a built-in
 * videotestsrc pipeline runs. -v also prints one line per frame. Ctrl+C
 * sends EOS so that muxers finish their files. Exit status: 0 on EOS with
 * motion fields seen, 1 on a pipeline error or when no field reached the
 * probe, 2 on a bad command line or pipeline description.
 *
 * Used by tools/demo.sh. The meta is read in on_buffer(), a pad probe on the
 * probe element's src pad; everything else is bookkeeping. */
#include <math.h>
#include <string.h>

#include <glib-unix.h>
#include <gst/gst.h>
#include <gst/motionvectors/motionvectors.h>

#define DEFAULT_PIPELINE \
  "videotestsrc num-buffers=60 pattern=ball ! video/x-raw,width=320,height=240 " \
  "! blockmatchme ! identity name=probe ! fakesink"

/* The picture is cut in 3 x 3 regions to say where the motion is. */
#define REGIONS 3
static const gchar *const row_names[REGIONS] = { "top", "middle", "bottom" };
static const gchar *const col_names[REGIONS] = { "left", "centre", "right" };

typedef struct
{
  gboolean verbose;

  guint64 frames;               /* buffers through the probe */
  guint64 frames_with_meta;
  guint64 frames_estimated;     /* with at least one estimated block */

  /* the latest grid; per_block is re-made when it changes */
  guint frame_width, frame_height, block_width, block_height;
  guint columns, rows;
  GstMotionVectorsDirection direction;
  const gchar *method;
  gfloat precision;
  guint64 *block_moving;        /* frames in which each block moved */

  guint64 estimated;            /* estimated blocks over all frames */
  guint64 moving;               /* of which |v| >= 1 px */
  gdouble sum_mag;
  gdouble max_mag;
  GstClockTime max_pts;
  guint max_block;

  guint64 region_blocks[REGIONS][REGIONS];
  guint64 region_moving[REGIONS][REGIONS];
  gdouble region_mag[REGIONS][REGIONS];
} Summary;

typedef struct
{
  GMainLoop *loop;
  GstElement *pipeline;
  gboolean error;
  gboolean eos_sent;
} App;

static void
summary_set_grid (Summary * s, const GstMotionVectorsMeta * mv)
{
  if (s->block_moving && s->frame_width == mv->frame_width &&
      s->frame_height == mv->frame_height &&
      s->block_width == mv->block_width && s->block_height == mv->block_height)
    return;
  g_free (s->block_moving);
  s->block_moving = g_new0 (guint64, mv->n_vectors);
  s->frame_width = mv->frame_width;
  s->frame_height = mv->frame_height;
  s->block_width = mv->block_width;
  s->block_height = mv->block_height;
  s->columns = mv->columns;
  s->rows = mv->rows;
}

static void
summary_add (Summary * s, const GstMotionVectorsMeta * mv, GstClockTime pts)
{
  guint frame_estimated = 0, frame_moving = 0;
  gdouble frame_max = 0.0;

  summary_set_grid (s, mv);
  s->direction = mv->direction;
  s->method = mv->method;
  s->precision = mv->precision;

  for (guint i = 0; i < mv->n_vectors; i++) {
    const GstMotionVector *v = &mv->vectors[i];
    guint x, y, w, h, rx, ry;
    gdouble mag;

    if (v->flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE)
      continue;
    mag = sqrt ((gdouble) v->dx * v->dx + (gdouble) v->dy * v->dy);
    gst_motion_vectors_meta_get_block_rect ((GstMotionVectorsMeta *) mv, i,
        &x, &y, &w, &h);
    rx = MIN (REGIONS - 1, (x + w / 2) * REGIONS / mv->frame_width);
    ry = MIN (REGIONS - 1, (y + h / 2) * REGIONS / mv->frame_height);

    frame_estimated++;
    s->sum_mag += mag;
    s->region_blocks[ry][rx]++;
    s->region_mag[ry][rx] += mag;
    frame_max = MAX (frame_max, mag);
    if (mag > s->max_mag) {
      s->max_mag = mag;
      s->max_pts = pts;
      s->max_block = i;
    }
    if (mag >= 1.0) {
      frame_moving++;
      s->block_moving[i]++;
      s->region_moving[ry][rx]++;
    }
  }
  s->estimated += frame_estimated;
  s->moving += frame_moving;
  if (frame_estimated > 0)
    s->frames_estimated++;

  if (s->verbose)
    g_print ("%" GST_TIME_FORMAT ": %u of %u blocks moving, max |v| %.1f px\n",
        GST_TIME_ARGS (pts), frame_moving, mv->n_vectors, frame_max);
}

/* The probe: every buffer leaving the probe element comes through here. */
static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Summary *s = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMotionVectorsMeta *mv = gst_buffer_get_motion_vectors_meta (buf);

  (void) pad;
  s->frames++;
  if (mv) {
    s->frames_with_meta++;
    summary_add (s, mv, GST_BUFFER_PTS (buf));
  }
  return GST_PAD_PROBE_OK;
}

static gdouble
percent (guint64 part, guint64 whole)
{
  return whole ? 100.0 * (gdouble) part / (gdouble) whole : 0.0;
}

static void
summary_print (const Summary * s, gdouble seconds)
{
  guint bx = 0, by = 0, bw = 0, bh = 0, busiest_block = 0;
  guint best_rx = 0, best_ry = 0;
  gdouble total_mag = 0.0;

  g_print ("\n== motion summary ==\n");
  g_print ("frames: %" G_GUINT64_FORMAT " in %.1f s (%.1f fps wall clock), "
      "%" G_GUINT64_FORMAT " with a motion field, %" G_GUINT64_FORMAT
      " with estimates\n", s->frames, seconds,
      seconds > 0 ? s->frames / seconds : 0.0, s->frames_with_meta,
      s->frames_estimated);
  if (s->frames_with_meta == 0)
    return;
  g_print ("grid: %u x %u blocks of %ux%u px over %ux%u, %s vectors, "
      "method %s, %g px steps\n", s->columns, s->rows, s->block_width,
      s->block_height, s->frame_width, s->frame_height,
      s->direction == GST_MOTION_VECTORS_DIRECTION_FORWARD ?
      "forward" : "backward", s->method, s->precision);
  if (s->estimated == 0)
    return;
  bx = (s->max_block % s->columns) * s->block_width;
  by = (s->max_block / s->columns) * s->block_height;
  g_print ("|v| over %" G_GUINT64_FORMAT " estimated blocks: mean %.2f px, "
      "max %.1f px (block at x=%u y=%u, t=%" GST_TIME_FORMAT ")\n",
      s->estimated, s->sum_mag / s->estimated, s->max_mag, bx, by,
      GST_TIME_ARGS (s->max_pts));
  g_print ("moving blocks (|v| >= 1 px): %.1f %%\n",
      percent (s->moving, s->estimated));

  for (guint r = 0; r < REGIONS; r++)
    for (guint c = 0; c < REGIONS; c++) {
      total_mag += s->region_mag[r][c];
      if (s->region_mag[r][c] > s->region_mag[best_ry][best_rx]) {
        best_ry = r;
        best_rx = c;
      }
    }
  g_print ("moving blocks by region (%% of the region's blocks):\n");
  g_print ("%10s", "");
  for (guint c = 0; c < REGIONS; c++)
    g_print ("%8s", col_names[c]);
  g_print ("\n");
  for (guint r = 0; r < REGIONS; r++) {
    g_print ("%10s", row_names[r]);
    for (guint c = 0; c < REGIONS; c++)
      g_print ("%7.1f%%", percent (s->region_moving[r][c],
              s->region_blocks[r][c]));
    g_print ("\n");
  }
  for (guint i = 1; i < s->columns * s->rows; i++)
    if (s->block_moving[i] > s->block_moving[busiest_block])
      busiest_block = i;
  bx = (busiest_block % s->columns) * s->block_width;
  by = (busiest_block / s->columns) * s->block_height;
  bw = MIN (s->block_width, s->frame_width - bx);
  bh = MIN (s->block_height, s->frame_height - by);
  g_print ("busiest region: %s-%s (%.0f %% of all motion); most often "
      "moving block: x=%u..%u y=%u..%u, in %.0f %% of the estimated frames\n",
      row_names[best_ry], col_names[best_rx],
      total_mag > 0 ? 100.0 * s->region_mag[best_ry][best_rx] / total_mag : 0,
      bx, bx + bw - 1, by, by + bh - 1,
      percent (s->block_moving[busiest_block], s->frames_estimated));
}

static gboolean
on_bus_message (GstBus * bus, GstMessage * msg, gpointer user_data)
{
  App *app = user_data;
  GError *err = NULL;
  gchar *dbg = NULL;

  (void) bus;
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_EOS:
      g_main_loop_quit (app->loop);
      break;
    case GST_MESSAGE_ERROR:
      if (app->error)
        break;                  /* the first error is the one that matters */
      gst_message_parse_error (msg, &err, &dbg);
      g_printerr ("mvsummary: error from %s: %s\n%s\n",
          GST_OBJECT_NAME (msg->src), err->message, dbg ? dbg : "");
      app->error = TRUE;
      g_main_loop_quit (app->loop);
      break;
    case GST_MESSAGE_WARNING:
      gst_message_parse_warning (msg, &err, &dbg);
      g_printerr ("mvsummary: warning from %s: %s\n",
          GST_OBJECT_NAME (msg->src), err->message);
      break;
    default:
      break;
  }
  g_clear_error (&err);
  g_free (dbg);
  return G_SOURCE_CONTINUE;
}

/* First Ctrl+C: EOS, so that files are finalised; second: stop at once. */
static gboolean
on_sigint (gpointer user_data)
{
  App *app = user_data;

  if (app->eos_sent) {
    app->error = TRUE;
    g_main_loop_quit (app->loop);
  } else {
    g_printerr ("mvsummary: interrupted, finishing (Ctrl+C again to "
        "abort)\n");
    gst_element_send_event (app->pipeline, gst_event_new_eos ());
    app->eos_sent = TRUE;
  }
  return G_SOURCE_CONTINUE;
}

int
main (int argc, char **argv)
{
  Summary s = { 0 };
  App app = { 0 };
  gchar *probe_name = NULL;
  gchar **desc = NULL;
  GOptionEntry entries[] = {
    {"verbose", 'v', 0, G_OPTION_ARG_NONE, &s.verbose,
        "Print one line per frame", NULL},
    {"probe", 0, 0, G_OPTION_ARG_STRING, &probe_name,
          "Name of the element whose src pad is probed (default: probe)",
        "NAME"},
    {G_OPTION_REMAINING, 0, 0, G_OPTION_ARG_STRING_ARRAY, &desc, NULL,
        "[PIPELINE-DESCRIPTION]"},
    {NULL, 0, 0, 0, NULL, NULL, NULL}
  };
  GOptionContext *ctx;
  GError *err = NULL;
  GstElement *probe_el;
  GstPad *pad;
  GstBus *bus;
  gint64 t0;
  gdouble seconds;
  int ret = 0;

  ctx = g_option_context_new (NULL);
  g_option_context_set_summary (ctx, "Runs a pipeline and summarises the "
      "motion vectors leaving the element named \"probe\".\nDefault "
      "pipeline: " DEFAULT_PIPELINE);
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err)) {
    g_printerr ("mvsummary: %s\n", err->message);
    return 2;
  }
  g_option_context_free (ctx);

  /* One argument is a whole description ('a ! b', as README shows);
   * several are its words, as gst-launch-1.0 takes them (a word with a
   * space in it stays one value). */
  if (desc && desc[0] && !desc[1])
    app.pipeline = gst_parse_launch (desc[0], &err);
  else if (desc && desc[0])
    app.pipeline = gst_parse_launchv ((const gchar **) desc, &err);
  else
    app.pipeline = gst_parse_launch (DEFAULT_PIPELINE, &err);
  if (!app.pipeline || err) {
    g_printerr ("mvsummary: bad pipeline: %s\n", err ? err->message : "?");
    if (err && g_error_matches (err, GST_PARSE_ERROR,
            GST_PARSE_ERROR_NO_SUCH_ELEMENT))
      g_printerr ("(is GST_PLUGIN_PATH set to the build's gst/ folder?)\n");
    return 2;
  }

  probe_el = gst_bin_get_by_name (GST_BIN (app.pipeline),
      probe_name ? probe_name : "probe");
  if (!probe_el || !(pad = gst_element_get_static_pad (probe_el, "src"))) {
    g_printerr ("mvsummary: the pipeline needs an element named \"%s\" "
        "with a src pad, e.g. \"identity name=%s\" after blockmatchme\n",
        probe_name ? probe_name : "probe", probe_name ? probe_name : "probe");
    return 2;
  }
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &s, NULL);
  gst_object_unref (pad);
  gst_object_unref (probe_el);

  app.loop = g_main_loop_new (NULL, FALSE);
  bus = gst_element_get_bus (app.pipeline);
  gst_bus_add_watch (bus, on_bus_message, &app);
  g_unix_signal_add (SIGINT, on_sigint, &app);

  t0 = g_get_monotonic_time ();
  if (gst_element_set_state (app.pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    /* the reason is usually an error message on the bus: print it */
    while (g_main_context_iteration (NULL, FALSE));
    if (!app.error)
      g_printerr ("mvsummary: the pipeline failed to start\n");
    app.error = TRUE;
  } else {
    g_main_loop_run (app.loop);
  }
  seconds = (g_get_monotonic_time () - t0) / 1e6;
  /* stops the streaming threads, so the summary can be read unlocked */
  gst_element_set_state (app.pipeline, GST_STATE_NULL);

  if (app.error) {
    ret = 1;
  } else {
    summary_print (&s, seconds);
    if (s.frames_with_meta == 0) {
      g_printerr ("mvsummary: no GstMotionVectorsMeta reached \"%s\"\n",
          probe_name ? probe_name : "probe");
      ret = 1;
    }
  }

  gst_bus_remove_watch (bus);
  gst_object_unref (bus);
  gst_object_unref (app.pipeline);
  g_main_loop_unref (app.loop);
  g_free (s.block_moving);
  g_free (probe_name);
  g_strfreev (desc);
  return ret;
}
