/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchheld.h"

GST_DEBUG_CATEGORY_STATIC (gst_match_held_debug);

GstDebugCategory *
gst_match_held_debug_category (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_match_held_debug, "matchheld", 0,
        "pipeline-depth: items held by the motion elements");
    g_once_init_leave (&done, 1);
  }
  return gst_match_held_debug;
}

void
gst_match_held_add_latency (GstElement * element, const GstClockTime * latency,
    GstQuery * query)
{
  gboolean live;
  GstClockTime min, max;

  gst_query_parse_latency (query, &live, &min, &max);
  GST_OBJECT_LOCK (element);
  const GstClockTime ours = *latency;
  GST_OBJECT_UNLOCK (element);
  GST_CAT_DEBUG_OBJECT (gst_match_held_debug_category (), element,
      "upstream latency min %" GST_TIME_FORMAT " max %" GST_TIME_FORMAT
      ", adding %" GST_TIME_FORMAT,
      GST_TIME_ARGS (min), GST_TIME_ARGS (max), GST_TIME_ARGS (ours));
  min += ours;
  if (GST_CLOCK_TIME_IS_VALID (max))
    max += ours;
  gst_query_set_latency (query, live, min, max);
}

void
gst_match_update_held_latency (GstElement * element, GstClockTime * latency,
    int depth, int fps_n, int fps_d)
{
  GstClockTime l = 0;

  if (depth > 0 && fps_n > 0 && fps_d > 0)
    l = gst_util_uint64_scale_int (depth * GST_SECOND, fps_d, fps_n);
  GST_OBJECT_LOCK (element);
  const gboolean changed = *latency != l;
  *latency = l;
  GST_OBJECT_UNLOCK (element);
  if (changed) {
    GST_INFO_OBJECT (element, "pipeline depth %d: latency %" GST_TIME_FORMAT,
        depth, GST_TIME_ARGS (l));
    gst_element_post_message (element,
        gst_message_new_latency (GST_OBJECT (element)));
  }
}
