/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* Plumbing for a GstAggregator that pairs the frames of its sink pads by
 * running time, one frame of each pad per output, never repeated
 * (stereodisparity). Which frames pair, and which are dropped, is the
 * element's policy; these are the pieces around it:
 *
 * - the running time of a frame on its pad, and its duration (the buffer's,
 *   else 1/framerate), which set the pairing tolerance;
 * - a dropped frame counted, with a QoS message, so that applications see
 *   the loss without polling a counter;
 * - live deadlines: with gst_aggregator_simple_get_next_time() as
 *   get_next_time, the next deadline is the source segment's position,
 *   which the element moves to the end of each pair or dropped frame
 *   (advance_position) and clears at a flush (reset_position);
 * - the output segment: the reference pad's as it was when its frame was
 *   paired, forwarded downstream when it changes, so that outputs keep
 *   that pad's timestamps. A flush of that pad alone (a flushing seek of
 *   one view's source) does not stop the aggregator's task: GstAggregator
 *   resets the pad's segment to GST_FORMAT_UNDEFINED at FLUSH_STOP, maybe
 *   while a pair is being matched, and the new SEGMENT follows; so the
 *   segment is taken with the frame's running time, and one not in TIME is
 *   never forwarded;
 * - output buffers: a video pool for the negotiated caps, a buffer from
 *   it.
 */
#ifndef __GST_VIEW_PAIRING_H__
#define __GST_VIEW_PAIRING_H__

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

/* The next queued buffer of `pad` (a reference) after discarding any GAP
 * buffers (they carry no frame); NULL when none is queued. */
GstBuffer * gst_view_pairing_peek (GstAggregatorPad * pad);

/* The running time of buf's PTS in pad's segment; GST_CLOCK_TIME_NONE
 * without a PTS, outside the segment or in a segment not in time (a pad
 * just flushed). `segment` (may be NULL) receives that segment, read with
 * the running time. */
GstClockTime gst_view_pairing_running_time (GstAggregatorPad * pad,
    GstBuffer * buf, GstSegment * segment);

/* A frame's duration: buf's (buf may be NULL), else 1/framerate of `info`
 * (NULL when the caps are not known yet), else GST_CLOCK_TIME_NONE. */
GstClockTime gst_view_pairing_frame_duration (GstBuffer * buf,
    const GstVideoInfo * info);

/* Counts buf, dropped from `pad`, in *dropped and posts a QoS message for
 * it (as GstVideoDecoder and the sinks do for the frames they drop; live
 * when the aggregator waits for late inputs): its running, stream and
 * buffer times, stats in buffers: *processed (outputs so far) and the new
 * *dropped. Both counters are guarded by agg's object lock. Returns the
 * new *dropped. */
guint64 gst_view_pairing_count_drop (GstAggregator * agg,
    GstAggregatorPad * pad, GstBuffer * buf, guint64 * dropped,
    const guint64 * processed);

/* Moves the source segment's position (the next live deadline) to running
 * time rt, never backwards; a no-op for GST_CLOCK_TIME_NONE (or before a
 * segment in time was forwarded). */
void gst_view_pairing_advance_position (GstAggregator * agg, GstClockTime rt);

/* The running time of the source segment's position (its start when
 * unset): where the next live deadline is counted from;
 * GST_CLOCK_TIME_NONE before a segment in time was forwarded. */
GstClockTime gst_view_pairing_next_running_time (GstAggregator * agg);

/* Unsets the source segment's position (flush): the next live deadline
 * starts again from the segment's start. */
void gst_view_pairing_reset_position (GstAggregator * agg);

/* Forwards `segment` (the reference pad's, from
 * gst_view_pairing_running_time()) downstream
 * (gst_aggregator_update_segment) unless it equals *last, the one
 * forwarded before (when *last_valid), or is not in time; updates both. */
void gst_view_pairing_forward_segment (GstAggregator * agg,
    const GstSegment * segment, GstSegment * last, gboolean * last_valid);

/* decide_allocation of an element that writes its own output frames: a
 * GstVideoBufferPool (the first proposed pool when it is one, else a new
 * one) for the caps of `query`, with at least `min_buffers` buffers and
 * GstVideoMeta when downstream supports it, set as the query's first
 * pool. FALSE when the caps are not video or the pool cannot be
 * configured (logged on `element`). */
gboolean gst_view_pairing_decide_video_pool (GstElement * element,
    GstQuery * query, guint min_buffers);

/* An output buffer: from `pool` (transfer full, may be NULL; activated
 * first if need be) or, without a pool, a plain one of `size` bytes. When
 * the pool cannot be activated or the allocation fails, posts
 * RESOURCE/NO_SPACE_LEFT on `element` and returns GST_FLOW_ERROR; other
 * failures to acquire (flushing) are returned as they are. */
GstFlowReturn gst_view_pairing_acquire_output (GstElement * element,
    GstBufferPool * pool, gsize size, GstBuffer ** outbuf);

G_END_DECLS

#endif /* __GST_VIEW_PAIRING_H__ */
