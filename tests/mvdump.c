/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mvdump PIPELINE FRAMES OUT: runs PIPELINE (gst-launch syntax, with the
 * motion element named "me") and writes every vector of the first FRAMES
 * frames that carry a GstMotionVectorsMeta to OUT, read through the C API
 * (the struct's fields), in the text format of docs/examples/mv_numpy.py
 * --dump: per frame "# pts=P columns=C rows=R moving=M", then one line
 * "dx dy cost confidence flags" per block, row-major. tests/python_example.sh
 * compares the two files.
 */
#include <stdio.h>
#include <stdlib.h>

#include <gst/gst.h>
#include <gst/motionvectors/motionvectors.h>

typedef struct
{
  FILE *out;
  guint max_frames;
  guint frames;
  GstBus *bus;
} Dump;

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  Dump *d = user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMotionVectorsMeta *mv = gst_buffer_get_motion_vectors_meta (buf);
  guint i, moving = 0;

  (void) pad;
  if (!mv || d->frames >= d->max_frames)
    return GST_PAD_PROBE_OK;
  d->frames++;
  /* The rule of docs/examples/mvprobe.c, in float. */
  for (i = 0; i < mv->n_vectors; i++) {
    const GstMotionVector *v = &mv->vectors[i];
    if (!(v->flags & (GST_MOTION_VECTOR_FLAG_NO_ESTIMATE |
                GST_MOTION_VECTOR_FLAG_SUPPRESSED))
        && v->dx * v->dx + v->dy * v->dy >= 1.0f)
      moving++;
  }
  fprintf (d->out, "# pts=%" G_GUINT64_FORMAT " columns=%u rows=%u "
      "moving=%u\n", (guint64) GST_BUFFER_PTS (buf), mv->columns, mv->rows,
      moving);
  for (i = 0; i < mv->n_vectors; i++) {
    const GstMotionVector *v = &mv->vectors[i];
    fprintf (d->out, "%.9g %.9g %u %.9g %u\n", (double) v->dx,
        (double) v->dy, (unsigned) v->cost, (double) v->confidence,
        (unsigned) v->flags);
  }
  if (d->frames == d->max_frames)
    gst_bus_post (d->bus, gst_message_new_application (NULL,
            gst_structure_new_empty ("mvdump-done")));
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  GError *err = NULL;
  GstElement *pipe, *me;
  GstPad *src;
  Dump d = { 0 };
  int status = 0;

  gst_init (&argc, &argv);
  if (argc != 4) {
    g_printerr ("usage: mvdump PIPELINE FRAMES OUT\n");
    return 2;
  }
  pipe = gst_parse_launch (argv[1], &err);
  if (!pipe) {
    g_printerr ("mvdump: %s\n", err->message);
    g_clear_error (&err);
    return 1;
  }
  me = gst_bin_get_by_name (GST_BIN (pipe), "me");
  if (!me) {
    g_printerr ("mvdump: no element named \"me\"\n");
    return 1;
  }
  d.out = fopen (argv[3], "w");
  if (!d.out) {
    g_printerr ("mvdump: cannot write %s\n", argv[3]);
    return 1;
  }
  d.max_frames = (guint) strtoul (argv[2], NULL, 10);
  d.bus = gst_element_get_bus (pipe);
  src = gst_element_get_static_pad (me, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, &d, NULL);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  for (;;) {
    GstMessage *msg = gst_bus_timed_pop_filtered (d.bus, GST_CLOCK_TIME_NONE,
        GST_MESSAGE_EOS | GST_MESSAGE_ERROR | GST_MESSAGE_APPLICATION);
    GstMessageType type = GST_MESSAGE_TYPE (msg);

    if (type == GST_MESSAGE_APPLICATION) {
      /* As the Python example: stop the sources after the last frame. */
      gst_element_send_event (pipe, gst_event_new_eos ());
    } else if (type == GST_MESSAGE_ERROR) {
      gst_message_parse_error (msg, &err, NULL);
      g_printerr ("mvdump: %s\n", err->message);
      g_clear_error (&err);
      status = 1;
    }
    gst_message_unref (msg);
    if (type != GST_MESSAGE_APPLICATION)
      break;
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  if (fclose (d.out) != 0)
    status = 1;
  g_print ("mvdump: %u frames\n", d.frames);
  gst_object_unref (src);
  gst_object_unref (me);
  gst_object_unref (d.bus);
  gst_object_unref (pipe);
  return status;
}
