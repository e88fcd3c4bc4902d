/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * pipeline-depth, once for every pipelined element (GstMatchFilter, so
 * blockmatchme and pocme; stereodisparity): the ring of items whose
 * results are still with the matcher, the effective depth, and the
 * latency that goes with it.
 *
 * The element submits an item to its matcher (submit()) and pushes what
 * its output needs into the ring; once more than depth() items are held,
 * finish_excess() hands the oldest ones back to be collected (collect())
 * and output, in submission order. With depth 0 that is at once: the
 * synchronous behaviour. drain() outputs every held item (before a
 * serialized event, a caps change, a DISCONT or a setting change), clear()
 * discards them (flush, stop).
 *
 * Latency: depth x frame duration, kept by the element in a GstClockTime
 * guarded by its object lock (the latency query runs on other threads) and
 * added to the parent class's answer by gst_match_held_add_latency(). It is
 * not declared with gst_aggregator_set_latency(), which would also move a
 * live aggregator's deadline.
 */
#ifndef __GST_MATCH_HELD_H__
#define __GST_MATCH_HELD_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* The largest pipeline-depth property value of every element. */
#define GST_MATCH_MAX_PIPELINE_DEPTH 4

/* Latency query (GST_QUERY_LATENCY) already answered by the parent class:
 * adds `*latency` (read under the object lock of `element`) to its minimum
 * and, when valid, maximum. */
void gst_match_held_add_latency (GstElement * element,
    const GstClockTime * latency, GstQuery * query);

/* pipeline-depth's latency: `depth` held frames at fps_n/fps_d (0 when the
 * rate is unknown: 0/1 or variable). Stores it in *latency under the
 * element's object lock and posts a latency message when it changed. */
void gst_match_update_held_latency (GstElement * element,
    GstClockTime * latency, int depth, int fps_n, int fps_d);

/* The "matchheld" debug category of the ring's messages (depth changes,
 * drains). */
GstDebugCategory * gst_match_held_debug_category (void);

G_END_DECLS

#ifdef __cplusplus
#include <algorithm>
#include <array>
#include <utility>

#include "match/common.h"

/* *INDENT-OFF* */
/* The held items, oldest first. An Item is what the element's output needs
 * of one submission (a buffer, timestamps, a settings snapshot); it is
 * moved in and out and reset to Item() when dropped, so an Item owning a
 * resource releases it in its destructor or move assignment. Streaming
 * thread only. */
template <typename Item> class GstMatchHeld
{
public:
  /* depth + 1 items at most: the newest is submitted before the oldest is
   * collected. */
  static constexpr int kSize = match::kMaxInFlight;

  int count () const
  {
    return count_;
  }
  /* The effective pipeline depth, and the pipeline-depth it came from. */
  int depth () const
  {
    return depth_;
  }
  guint requested () const
  {
    return requested_;
  }

  void push (Item && item)
  {
    g_assert (count_ < kSize);
    items_[(head_ + count_) % kSize] = std::move (item);
    count_++;
  }

  Item pop ()
  {
    g_assert (count_ > 0);
    Item item = std::move (items_[head_]);
    items_[head_] = Item ();
    head_ = (head_ + 1) % kSize;
    count_--;
    return item;
  }

  void clear ()
  {
    for (int i = 0; i < count_; i++)
      items_[(head_ + i) % kSize] = Item ();
    head_ = count_ = 0;
  }

  /* The output frame rate, for the latency (0/1: unknown). */
  void set_rate (gint fps_n, gint fps_d)
  {
    fps_n_ = fps_n;
    fps_d_ = fps_d;
  }

  /* Sets the effective depth from pipeline-depth `requested`: at least
   * `min_depth` (serial multi-GPU needs frames in flight), at most what
   * the matcher accepts in flight less one and what the ring holds less
   * one. Stores depth x frame duration in *latency (0 at an unknown rate;
   * a latency message is posted on `element` when it changes). */
  void update_depth (GstElement * element, GstClockTime * latency,
      guint requested, int max_in_flight, int min_depth = 0)
  {
    int depth = std::max ((int) requested, min_depth);

    depth = std::min (depth, max_in_flight - 1);
    depth = std::max (std::min (depth, kSize - 1), 0);
    requested_ = requested;
    if (depth != depth_)
      GST_CAT_DEBUG_OBJECT (gst_match_held_debug_category (), element,
          "pipeline depth %d -> %d", depth_, depth);
    depth_ = depth;
    gst_match_update_held_latency (element, latency, depth_, fps_n_, fps_d_);
  }

  /* While more than depth() items are held: finish (Item &&) ->
   * GstFlowReturn collects and outputs the oldest. More than one leaves
   * after the depth was lowered. */
  template <typename Finish> GstFlowReturn finish_excess (Finish && finish)
  {
    GstFlowReturn ret = GST_FLOW_OK;

    while (ret == GST_FLOW_OK && count_ > depth_)
      ret = finish (pop ());
    return ret;
  }

  /* Outputs every held item, oldest first, through finish (Item &&). On a
   * flow error the rest are discarded and reset () is called (the matcher
   * still has them in flight). */
  template <typename Finish, typename Reset>
  GstFlowReturn drain (GstElement * element, Finish && finish, Reset && reset)
  {
    GstFlowReturn ret = GST_FLOW_OK;

    if (count_ == 0)
      return GST_FLOW_OK;
    GST_CAT_DEBUG_OBJECT (gst_match_held_debug_category (), element,
        "draining %d held item(s)", count_);
    while (count_ > 0 && ret == GST_FLOW_OK)
      ret = finish (pop ());
    if (ret != GST_FLOW_OK) {
      GST_CAT_DEBUG_OBJECT (gst_match_held_debug_category (), element,
          "drain stopped: %s", gst_flow_get_name (ret));
      clear ();
      reset ();
    }
    return ret;
  }

private:
  std::array<Item, kSize> items_{};
  int head_ = 0;
  int count_ = 0;
  int depth_ = 0;
  guint requested_ = 0;
  gint fps_n_ = 0;
  gint fps_d_ = 1;
};
/* *INDENT-ON* */
#endif

#endif /* __GST_MATCH_HELD_H__ */
