/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstviewpairing.h"

GST_DEBUG_CATEGORY_STATIC (gst_view_pairing_debug);

static GstDebugCategory *
view_pairing_category (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_view_pairing_debug, "viewpairing", 0,
        "Pairing the frames of an aggregator's sink pads");
    g_once_init_leave (&done, 1);
  }
  return gst_view_pairing_debug;
}

GstBuffer *
gst_view_pairing_peek (GstAggregatorPad * pad)
{
  GstBuffer * buf = gst_aggregator_pad_peek_buffer (pad);

  while (buf && GST_BUFFER_FLAG_IS_SET (buf, GST_BUFFER_FLAG_GAP)) {
    gst_buffer_unref (buf);
    gst_aggregator_pad_drop_buffer (pad);
    buf = gst_aggregator_pad_peek_buffer (pad);
  }
  return buf;
}

GstClockTime
gst_view_pairing_running_time (GstAggregatorPad * pad, GstBuffer * buf,
    GstSegment * segment)
{
  GST_OBJECT_LOCK (pad);
  const GstClockTime rt =
      GST_BUFFER_PTS_IS_VALID (buf) && pad->segment.format == GST_FORMAT_TIME
      ? gst_segment_to_running_time (&pad->segment, GST_FORMAT_TIME,
          GST_BUFFER_PTS (buf))
      : GST_CLOCK_TIME_NONE;
  if (segment)
    gst_segment_copy_into (&pad->segment, segment);
  GST_OBJECT_UNLOCK (pad);
  return rt;
}

GstClockTime
gst_view_pairing_frame_duration (GstBuffer * buf, const GstVideoInfo * info)
{
  if (buf && GST_BUFFER_DURATION_IS_VALID (buf))
    return GST_BUFFER_DURATION (buf);
  if (info && GST_VIDEO_INFO_FPS_N (info) > 0)
    return gst_util_uint64_scale_int (GST_SECOND, GST_VIDEO_INFO_FPS_D (info),
        GST_VIDEO_INFO_FPS_N (info));
  return GST_CLOCK_TIME_NONE;
}

guint64
gst_view_pairing_count_drop (GstAggregator * agg, GstAggregatorPad * pad,
    GstBuffer * buf, guint64 * dropped, const guint64 * processed)
{
  GST_OBJECT_LOCK (agg);
  const guint64 total = ++*dropped;
  const guint64 done = *processed;
  GST_OBJECT_UNLOCK (agg);

  const GstClockTime rt = gst_view_pairing_running_time (pad, buf, NULL);
  GstClockTime stream_time = GST_CLOCK_TIME_NONE;
  if (GST_BUFFER_PTS_IS_VALID (buf)) {
    GST_OBJECT_LOCK (pad);
    if (pad->segment.format == GST_FORMAT_TIME)
      stream_time = gst_segment_to_stream_time (&pad->segment, GST_FORMAT_TIME,
          GST_BUFFER_PTS (buf));
    GST_OBJECT_UNLOCK (pad);
  }
  /* Live when the aggregator waits on the clock for late inputs. */
  const gboolean live = gst_aggregator_get_latency (agg) != GST_CLOCK_TIME_NONE;
  GstMessage * qos = gst_message_new_qos (GST_OBJECT (agg), live, rt,
      stream_time, GST_BUFFER_PTS (buf), GST_BUFFER_DURATION (buf));
  gst_message_set_qos_stats (qos, GST_FORMAT_BUFFERS, done, total);
  gst_element_post_message (GST_ELEMENT (agg), qos);
  return total;
}

void
gst_view_pairing_advance_position (GstAggregator * agg, GstClockTime rt)
{
  if (!GST_CLOCK_TIME_IS_VALID (rt))
    return;
  GstAggregatorPad * srcpad = GST_AGGREGATOR_PAD (agg->srcpad);
  GST_OBJECT_LOCK (agg);
  const GstClockTime pos = srcpad->segment.format == GST_FORMAT_TIME
      ? gst_segment_position_from_running_time (&srcpad->segment,
          GST_FORMAT_TIME, rt)
      : GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (pos)
      && (!GST_CLOCK_TIME_IS_VALID (srcpad->segment.position)
          || pos > srcpad->segment.position))
    srcpad->segment.position = pos;
  GST_OBJECT_UNLOCK (agg);
}

GstClockTime
gst_view_pairing_next_running_time (GstAggregator * agg)
{
  GstAggregatorPad * srcpad = GST_AGGREGATOR_PAD (agg->srcpad);
  GST_OBJECT_LOCK (agg);
  GstClockTime pos = srcpad->segment.position;
  if (!GST_CLOCK_TIME_IS_VALID (pos))
    pos = srcpad->segment.start;
  const GstClockTime rt = srcpad->segment.format == GST_FORMAT_TIME
      ? gst_segment_to_running_time (&srcpad->segment, GST_FORMAT_TIME, pos)
      : GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (agg);
  return rt;
}

void
gst_view_pairing_reset_position (GstAggregator * agg)
{
  GST_OBJECT_LOCK (agg);
  GST_AGGREGATOR_PAD (agg->srcpad)->segment.position = GST_CLOCK_TIME_NONE;
  GST_OBJECT_UNLOCK (agg);
}

static gboolean
same_segment (const GstSegment * a, const GstSegment * b)
{
  return a->format == b->format && a->flags == b->flags && a->rate == b->rate
      && a->applied_rate == b->applied_rate && a->base == b->base
      && a->offset == b->offset && a->start == b->start && a->stop == b->stop
      && a->time == b->time;
}

void
gst_view_pairing_forward_segment (GstAggregator * agg,
    const GstSegment * segment, GstSegment * last, gboolean * last_valid)
{
  if (segment->format != GST_FORMAT_TIME) {
    GST_CAT_DEBUG_OBJECT (view_pairing_category (), agg,
        "not forwarding a "
        "segment in %s (a flushed pad)",
        gst_format_get_name (segment->format));
    return;
  }
  if (*last_valid && same_segment (segment, last))
    return;
  GST_CAT_DEBUG_OBJECT (view_pairing_category (), agg,
      "output segment %" GST_SEGMENT_FORMAT, segment);
  gst_aggregator_update_segment (agg, segment);
  *last = *segment;
  *last_valid = TRUE;
}

gboolean
gst_view_pairing_decide_video_pool (GstElement * element, GstQuery * query,
    guint min_buffers)
{
  GstCaps * caps;
  GstVideoInfo info;
  GstBufferPool * pool = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean update;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  update = gst_query_get_n_allocation_pools (query) > 0;
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && !GST_IS_VIDEO_BUFFER_POOL (pool)) {
    gst_object_unref (pool);
    pool = NULL;
  }
  if (!pool)
    pool = gst_video_buffer_pool_new ();
  size = MAX (size, (guint) GST_VIDEO_INFO_SIZE (&info));
  min = MAX (min, min_buffers);

  GstStructure * config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    /* The pool may have adjusted the parameters: take them. */
    config = gst_buffer_pool_get_config (pool);
    if (!gst_buffer_pool_config_validate_params (config, caps, size, min, max)
        || !gst_buffer_pool_set_config (pool, config)) {
      GST_WARNING_OBJECT (element, "could not configure the output pool");
      gst_object_unref (pool);
      return FALSE;
    }
  }
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

GstFlowReturn
gst_view_pairing_acquire_output (GstElement * element, GstBufferPool * pool,
    gsize size, GstBuffer ** outbuf)
{
  *outbuf = NULL;
  if (pool) {
    GstFlowReturn ret = GST_FLOW_ERROR;
    const gboolean active = gst_buffer_pool_is_active (pool)
        || gst_buffer_pool_set_active (pool, TRUE);
    if (active)
      ret = gst_buffer_pool_acquire_buffer (pool, outbuf, NULL);
    gst_object_unref (pool);
    if (!active)
      goto no_buffer;
    return ret;
  }
  *outbuf = gst_buffer_new_allocate (NULL, size, NULL);
  if (!*outbuf)
    goto no_buffer;
  return GST_FLOW_OK;

  /* ERRORS */
no_buffer : {
  GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
      ("Could not allocate an output buffer"), (NULL));
  return GST_FLOW_ERROR;
}
}
