/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* A missing-input watchdog for aggregators that need a frame on every sink
 * pad (stereodisparity). Without it a view that never comes (an unlinked
 * pad, a stalled source) leaves the pipeline waiting forever in silence:
 * GstAggregator waits for data on every pad when not live, and when live
 * drops the lonely frames one by one.
 *
 * Rule: when frames keep waiting (queued, or still arriving) on one pad
 * while no frame arrives on another pad, not EOS and with nothing queued,
 * for `timeout` (wall clock, checked every timeout / 4), the element posts
 *   - an ERROR (CORE, PAD) when that pad is not linked: nothing can ever
 *     arrive there (the timeout leaves room for pads linked on pad-added);
 *   - else a WARNING (CORE, PAD): the view is late or its source stalled;
 *     the element keeps waiting. Once per stall, and not again until the
 *     pad has gone a timeout's worth without stalling (a slow view gets
 *     one warning, not one per frame).
 * Both name the missing pad. And a pad that stays unlinked for `timeout`
 * with nothing queued, whatever the other pads do, is an ERROR (CORE, PAD)
 * naming every such pad: with no input linked at all (gst-launch-1.0
 * stereodisparity ! fakesink) nothing would ever be said. The watch runs
 * on GStreamer's system clock thread between start and stop and costs one
 * atomic increment per input buffer. */
#ifndef __GST_INPUT_WATCH_H__
#define __GST_INPUT_WATCH_H__

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>

G_BEGIN_DECLS

typedef struct _GstInputWatch GstInputWatch;

/* Starts watching the n_pads (2 or more) sink pads of agg; NULL when
 * timeout is 0 (off). */
GstInputWatch * gst_input_watch_start (GstAggregator * agg,
    GstAggregatorPad ** pads, guint n_pads, GstClockTime timeout);
/* Stops the watch (NULL is a no-op); no message is posted after it. */
void gst_input_watch_stop (GstInputWatch * watch);

G_END_DECLS

#endif /* __GST_INPUT_WATCH_H__ */
