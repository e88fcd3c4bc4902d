/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Reading GstMotionVectorsMeta from a pad probe (the README example).
 * Built by tools/meson.build as build/tools/mvprobe. */
#include <gst/gst.h>
#include <gst/motionvectors/motionvectors.h>

static GstPadProbeReturn
on_buffer (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  (void) pad;
  (void) user_data;
  GstBuffer *buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMotionVectorsMeta *mv = gst_buffer_get_motion_vectors_meta (buf);
  guint moving = 0;

  if (!mv || mv->reference_timestamp == GST_CLOCK_TIME_NONE)
    return GST_PAD_PROBE_OK;    /* first frame: no estimate yet */
  for (guint i = 0; i < mv->n_vectors; i++) {
    const GstMotionVector *v = &mv->vectors[i];
    if (!(v->flags & (GST_MOTION_VECTOR_FLAG_NO_ESTIMATE |
                GST_MOTION_VECTOR_FLAG_SUPPRESSED))
        && v->dx * v->dx + v->dy * v->dy >= 1.0f)
      moving++;
  }
  g_print ("%" GST_TIME_FORMAT ": %u of %u blocks (%ux%u px) moving\n",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), moving, mv->n_vectors,
      mv->block_width, mv->block_height);
  return GST_PAD_PROBE_OK;
}

int
main (int argc, char **argv)
{
  gst_init (&argc, &argv);
  GstElement *pipe = gst_parse_launch ("videotestsrc num-buffers=30 "
      "pattern=ball ! blockmatchme name=me ! fakesink", NULL);
  GstElement *me = gst_bin_get_by_name (GST_BIN (pipe), "me");
  GstPad *src = gst_element_get_static_pad (me, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_buffer, NULL, NULL);

  gst_element_set_state (pipe, GST_STATE_PLAYING);
  GstBus *bus = gst_element_get_bus (pipe);
  gst_message_unref (gst_bus_timed_pop_filtered (bus, GST_CLOCK_TIME_NONE,
          (GstMessageType) (GST_MESSAGE_EOS | GST_MESSAGE_ERROR)));
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (src);
  gst_object_unref (me);
  gst_object_unref (pipe);
  return 0;
}
