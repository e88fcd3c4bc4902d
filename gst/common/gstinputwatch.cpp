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

#include "gstinputwatch.h"

#include <string>
#include <vector>

/* Shared by the pad probes (arrivals), the clock thread (ticks) and the
 * owner; freed with its last reference (g_atomic_rc_box). */
struct _GstInputWatch
{
  GstAggregator * agg;                  /* a reference */
  std::vector<GstAggregatorPad *> pads; /* references */
  std::vector<gulong> probes;
  gint * arrived; /* frames arrived per pad (atomic) */
  GstClockID tick;
  GstClockTime timeout;
  GstClockTime period;
  gboolean stopped; /* atomic: no message after stop */
  /* Clock thread only. */
  std::vector<gint> seen; /* `arrived` at the last tick */
  std::vector<guint> stalled_ticks;
  std::vector<guint> flowing_ticks; /* since the last stalled tick */
  std::vector<gboolean> reported;
  std::vector<guint> unlinked_ticks;
  std::vector<gboolean> unlinked_reported; /* once per pad */
};

static void
watch_clear (gpointer data)
{
  GstInputWatch * w = (GstInputWatch *) data;
  for (GstAggregatorPad * pad : w->pads)
    gst_object_unref (pad);
  gst_object_unref (w->agg);
  g_free (w->arrived);
  w->~_GstInputWatch ();
}

static GstInputWatch *
watch_ref (GstInputWatch * w)
{
  return (GstInputWatch *) g_atomic_rc_box_acquire (w);
}

static void
watch_unref (gpointer w)
{
  g_atomic_rc_box_release_full (w, watch_clear);
}

static GstPadProbeReturn
on_input (GstPad * pad, GstPadProbeInfo *, gpointer data)
{
  GstInputWatch * w = (GstInputWatch *) data;
  for (guint i = 0; i < w->pads.size (); i++)
    if (GST_PAD (w->pads[i]) == pad)
      g_atomic_int_inc (&w->arrived[i]);
  return GST_PAD_PROBE_OK;
}

/* The first pad other than `missing` with frames waiting, or -1. */
static gint
waiting_pad (GstInputWatch * w, guint missing, const gint * now)
{
  for (guint i = 0; i < w->pads.size (); i++)
    if (i != missing
        && (now[i] != w->seen[i] || gst_aggregator_pad_has_buffer (w->pads[i])))
      return (gint) i;
  return -1;
}

static void
report (GstInputWatch * w, guint missing, guint waiting, GstClockTime waited)
{
  GstElement * el = GST_ELEMENT (w->agg);
  const gchar * name = GST_PAD_NAME (w->pads[missing]);
  const gchar * other = GST_PAD_NAME (w->pads[waiting]);

  if (!gst_pad_is_linked (GST_PAD (w->pads[missing]))) {
    w->unlinked_reported[missing] = TRUE;
    GST_ELEMENT_ERROR (el, CORE, PAD,
        ("%s is not linked: the frames on %s can never be paired", name, other),
        ("no frame on %s for %" GST_TIME_FORMAT " while frames wait on %s",
            name, GST_TIME_ARGS (waited), other));
  } else {
    GST_ELEMENT_WARNING (el, CORE, PAD,
        ("No frame on %s for %.1f s while frames wait on %s: still waiting",
            name, waited / (double) GST_SECOND, other),
        ("is the source of %s stalled?", name));
  }
}

/* The pads that have stayed unlinked, with nothing queued, for a timeout:
 * one error naming them all (the rule above needs frames waiting on
 * another pad, so it says nothing when no input is linked at all). */
static void
report_unlinked (GstInputWatch * w)
{
  std::string names;
  guint n = 0;

  for (guint i = 0; i < w->pads.size (); i++) {
    GstAggregatorPad * pad = w->pads[i];
    if (gst_pad_is_linked (GST_PAD (pad)) || gst_aggregator_pad_has_buffer (pad)
        || gst_aggregator_pad_is_eos (pad)) {
      w->unlinked_ticks[i] = 0;
      continue;
    }
    if (++w->unlinked_ticks[i] * w->period < w->timeout
        || w->unlinked_reported[i])
      continue;
    w->unlinked_reported[i] = TRUE;
    names += std::string (n++ ? " and " : "") + GST_PAD_NAME (pad);
  }
  if (n)
    GST_ELEMENT_ERROR (w->agg, CORE, PAD,
        ("%s %s not linked: no input can arrive there", names.c_str (),
            n > 1 ? "are" : "is"),
        ("unlinked for %" GST_TIME_FORMAT, GST_TIME_ARGS (w->timeout)));
}

static gboolean
on_tick (GstClock *, GstClockTime, GstClockID, gpointer data)
{
  GstInputWatch * w = (GstInputWatch *) data;
  const guint n = w->pads.size ();
  std::vector<gint> now (n);

  if (g_atomic_int_get (&w->stopped))
    return TRUE;
  for (guint i = 0; i < n; i++)
    now[i] = g_atomic_int_get (&w->arrived[i]);
  for (guint m = 0; m < n; m++) {
    GstAggregatorPad * pad = w->pads[m];
    const gint waiting = waiting_pad (w, m, now.data ());
    if (now[m] != w->seen[m] || waiting < 0
        || gst_aggregator_pad_has_buffer (pad)
        || gst_aggregator_pad_is_eos (pad)) {
      w->stalled_ticks[m] = 0;
      /* Warned again only after a timeout's worth without a stall, so a
       * view that is merely slow gets one warning, not one per frame. */
      if (++w->flowing_ticks[m] * w->period >= w->timeout)
        w->reported[m] = FALSE;
      continue;
    }
    w->flowing_ticks[m] = 0;
    const GstClockTime waited = ++w->stalled_ticks[m] * w->period;
    if (waited >= w->timeout && !w->reported[m]) {
      w->reported[m] = TRUE;
      report (w, m, (guint) waiting, waited);
    }
  }
  w->seen = now;
  report_unlinked (w);
  return TRUE;
}

GstInputWatch *
gst_input_watch_start (GstAggregator * agg, GstAggregatorPad ** pads,
    guint n_pads, GstClockTime timeout)
{
  if (timeout == 0 || n_pads < 2)
    return NULL;
  GstInputWatch * w =
      new (g_atomic_rc_box_alloc0 (sizeof (GstInputWatch))) GstInputWatch ();
  w->agg = (GstAggregator *) gst_object_ref (agg);
  w->arrived = g_new0 (gint, n_pads);
  w->timeout = timeout;
  w->period = MAX (timeout / 4, 1);
  w->seen.assign (n_pads, 0);
  w->stalled_ticks.assign (n_pads, 0);
  w->flowing_ticks.assign (n_pads, 0);
  w->reported.assign (n_pads, FALSE);
  w->unlinked_ticks.assign (n_pads, 0);
  w->unlinked_reported.assign (n_pads, FALSE);
  for (guint i = 0; i < n_pads; i++) {
    w->pads.push_back ((GstAggregatorPad *) gst_object_ref (pads[i]));
    w->probes.push_back (gst_pad_add_probe (GST_PAD (pads[i]),
        (GstPadProbeType) (GST_PAD_PROBE_TYPE_BUFFER
            | GST_PAD_PROBE_TYPE_BUFFER_LIST),
        on_input, watch_ref (w), watch_unref));
  }

  GstClock * clock = gst_system_clock_obtain ();
  w->tick = gst_clock_new_periodic_id (clock,
      gst_clock_get_time (clock) + w->period, w->period);
  gst_clock_id_wait_async (w->tick, on_tick, watch_ref (w), watch_unref);
  gst_object_unref (clock);
  return w;
}

void
gst_input_watch_stop (GstInputWatch * w)
{
  if (!w)
    return;
  g_atomic_int_set (&w->stopped, TRUE);
  gst_clock_id_unschedule (w->tick);
  gst_clock_id_unref (w->tick);
  for (guint i = 0; i < w->pads.size (); i++)
    gst_pad_remove_probe (GST_PAD (w->pads[i]), w->probes[i]);
  watch_unref (w);
}
