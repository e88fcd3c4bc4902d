/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-stereodisparity
 * @title: stereodisparity
 *
 * Stereo matching: a rectified pair on `sink_left` and `sink_right` (the
 * same size, up to 16384x16384; any format with luma that `blockmatchme`
 * accepts) in, one disparity map of the `reference` view per pair out:
 * semi-global matching
 * of census costs averaged over 3x3 (`cost-window`) with an edge-aware P2
 * (`p2-edge`) by default (`method`, `cost`: also block matching, SAD and
 * Sobel costs), refined to 1/16 pixel, checked for left-right consistency
 * (optionally uniqueness and texture), 3x3 median filtered, optionally
 * speckle filtered, then its invalid pixels filled from their row
 * (`fill-invalid`) and a joint median that follows the reference view's
 * edges applied (`joint-median`). `output` gives GRAY16_LE disparity x 16
 * (invalid = 65535), GRAY8, false colour or depth in millimetres, each
 * with a fixed scale. Frames pair by running time; one whose partner the
 * other view has moved past is dropped (`dropped-frames`, a QoS message).
 * Outputs carry the reference frame's timestamps. `pipeline-depth` lets
 * the CUDA backend overlap transfers and matching.
 *
 * docs/stereodisparity.md gives the pairing policy (live sources, EOS, a
 * missing view), the output formulas, pipelining and the design.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 stereodisparity name=s num-disparities=16 output=color ! \
 *     videoconvert ! autovideosink \
 *   multifilesrc location=imL.png caps=image/png,framerate=1/1 num-buffers=5 ! \
 *     pngdec ! videoconvert ! s.sink_left \
 *   multifilesrc location=imR.png caps=image/png,framerate=1/1 num-buffers=5 ! \
 *     pngdec ! videoconvert ! s.sink_right
 * gst-launch-1.0 stereodisparity name=s num-disparities=128 output=depth \
 *     focal-length=1400 baseline=120 ! fakesink \
 *   v4l2src device=/dev/video0 ! videoconvert ! s.sink_left \
 *   v4l2src device=/dev/video1 ! videoconvert ! s.sink_right
 * gst-launch-1.0 stereodisparity name=s backend=cuda num-disparities=128 \
 *     pipeline-depth=2 ! fakesink \
 *   filesrc location=left.mkv ! decodebin ! videoconvert ! s.sink_left \
 *   filesrc location=right.mkv ! decodebin ! videoconvert ! s.sink_right
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststereodisparity.h"
#include "gststereomatcher.h"

#include <memory>
#include <vector>

#include "common/gstinputwatch.h"
#include "common/gstmatchbackend.h"
#include "common/gstmatchframe.h"
#include "common/gstmatchheld.h"
#include "common/gstmatchsettings.h"
#include "gstviewpairing.h"
#include "match/stereo.h"

GST_DEBUG_CATEGORY (gst_stereo_disparity_debug);
#define GST_CAT_DEFAULT gst_stereo_disparity_debug

/* Live timeout with no frame on either pad and no known frame duration:
 * how far the next deadline moves (a frame at 25 fps). */
#define DEFAULT_TIMEOUT_STEP (40 * GST_MSECOND)

enum
{
  PROP_DROPPED_FRAMES = GST_STEREO_SETTINGS_N_PROPS,
};

/* The settings POD and its properties: gststereomatcher.h. */
typedef GstStereoSettings Settings;

enum
{
  VIEW_LEFT = 0,
  VIEW_RIGHT = 1
};

/* A pair whose map is still with the matcher: what its output needs. */
struct Held
{
  GstClockTime pts = GST_CLOCK_TIME_NONE; /* the reference frame's */
  GstClockTime duration = GST_CLOCK_TIME_NONE;
  gboolean discont = FALSE;
  Settings settings; /* snapshot at submit (output conversion) */
};

/* Streaming-thread state (the aggregator's source pad task), built in
 * start, dropped in stop. */
struct State
{
  GstVideoInfo in_info[2];
  gboolean have_info[2] = { FALSE, FALSE };
  std::vector<uint8_t> luma[2]; /* RGB inputs only */

  GstVideoInfo out_info;
  gboolean negotiated = FALSE;
  GstStereoOutput out_mode = GST_STEREO_OUTPUT_DISPARITY;

  std::unique_ptr<match::StereoMatcher> matcher;

  /* The reference pad's segment last forwarded downstream. */
  GstSegment out_segment;
  gboolean out_segment_valid = FALSE;

  GstMatchHeld<Held> held; /* pipeline-depth (common/gstmatchheld.h) */
  /* A drain's failure where no flow return could be given back (events,
   * negotiation): returned by the next aggregate(). */
  GstFlowReturn pending_ret = GST_FLOW_OK;
  gboolean logged_by_arrival = FALSE;
};

struct _GstStereoDisparity
{
  GstAggregator parent;

  GstAggregatorPad * sinkpad[2];
  Settings settings;                /* protected by the object lock */
  GstMatchBackendStrings * strings; /* protected by the object lock */
  guint64 dropped;                  /* protected by the object lock */
  guint64 paired;                   /* pairs output since start; object lock */
  GstClockTime latency;             /* pipelining's; object lock */
  State * state;                    /* streaming thread only */
  GstInputWatch * watch;            /* missing-view watchdog, start to stop */
  gint eos_sent; /* atomic: went EOS, no flush or new stream since */
};

#define gst_stereo_disparity_parent_class parent_class
G_DEFINE_TYPE (GstStereoDisparity, gst_stereo_disparity, GST_TYPE_AGGREGATOR);
GST_ELEMENT_REGISTER_DEFINE (stereodisparity, "stereodisparity", GST_RANK_NONE,
    GST_TYPE_STEREO_DISPARITY);

/* Frames up to the matchers' size (GST_MATCH_MAX_FRAME_SIZE), so that a
 * larger one fails at negotiation. */
static GstStaticPadTemplate sink_left_template =
    GST_STATIC_PAD_TEMPLATE ("sink_left", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (GST_MATCH_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)));
static GstStaticPadTemplate sink_right_template =
    GST_STATIC_PAD_TEMPLATE ("sink_right", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (GST_MATCH_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_MATCH_VIDEO_CAPS_MAKE ("{ GRAY16_LE, GRAY8, RGB }")));

static void gst_stereo_disparity_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_stereo_disparity_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_stereo_disparity_finalize (GObject * object);
static gboolean gst_stereo_disparity_start (GstAggregator * agg);
static gboolean gst_stereo_disparity_stop (GstAggregator * agg);
static GstFlowReturn gst_stereo_disparity_flush (GstAggregator * agg);
static gboolean gst_stereo_disparity_sink_event (GstAggregator * agg,
    GstAggregatorPad * pad, GstEvent * event);
static GstFlowReturn gst_stereo_disparity_update_src_caps (GstAggregator * agg,
    GstCaps * downstream, GstCaps ** ret);
static gboolean gst_stereo_disparity_negotiated_src_caps (GstAggregator * agg,
    GstCaps * caps);
static gboolean gst_stereo_disparity_decide_allocation (GstAggregator * agg,
    GstQuery * query);
static GstFlowReturn gst_stereo_disparity_aggregate (GstAggregator * agg,
    gboolean timeout);
static gboolean gst_stereo_disparity_negotiate (GstAggregator * agg);
static gboolean gst_stereo_disparity_src_query (GstAggregator * agg,
    GstQuery * query);

static void
gst_stereo_disparity_class_init (GstStereoDisparityClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstAggregatorClass * agg_class = GST_AGGREGATOR_CLASS (klass);

  gobject_class->set_property = gst_stereo_disparity_set_property;
  gobject_class->get_property = gst_stereo_disparity_get_property;
  gobject_class->finalize = gst_stereo_disparity_finalize;

  gst_stereo_settings_install (gobject_class);
  g_object_class_install_property (gobject_class, PROP_DROPPED_FRAMES,
      g_param_spec_uint64 ("dropped-frames", "Dropped frames",
          "Input frames (both pads) dropped since start because no frame "
          "of the other view had their timestamp",
          0, G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));

  gst_element_class_set_static_metadata (element_class,
      "Stereo disparity (semi-global or block matching)",
      "Filter/Analyzer/Video",
      "Computes the disparity map (or false colour or depth) of a rectified "
      "stereo pair paired by timestamp, by semi-global matching of census "
      "costs (default) or block matching (CPU/OpenMP, CUDA)",
      "gst-motion authors");
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_left_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &sink_right_template, GST_TYPE_AGGREGATOR_PAD);
  gst_element_class_add_static_pad_template_with_gtype (element_class,
      &src_template, GST_TYPE_AGGREGATOR_PAD);

  agg_class->start = GST_DEBUG_FUNCPTR (gst_stereo_disparity_start);
  agg_class->stop = GST_DEBUG_FUNCPTR (gst_stereo_disparity_stop);
  agg_class->flush = GST_DEBUG_FUNCPTR (gst_stereo_disparity_flush);
  agg_class->sink_event = GST_DEBUG_FUNCPTR (gst_stereo_disparity_sink_event);
  agg_class->update_src_caps =
      GST_DEBUG_FUNCPTR (gst_stereo_disparity_update_src_caps);
  agg_class->negotiated_src_caps =
      GST_DEBUG_FUNCPTR (gst_stereo_disparity_negotiated_src_caps);
  agg_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_stereo_disparity_decide_allocation);
  agg_class->aggregate = GST_DEBUG_FUNCPTR (gst_stereo_disparity_aggregate);
  agg_class->negotiate = GST_DEBUG_FUNCPTR (gst_stereo_disparity_negotiate);
  agg_class->src_query = GST_DEBUG_FUNCPTR (gst_stereo_disparity_src_query);
  /* Live deadlines follow the source segment's position, which aggregate()
   * moves to the end of each pair (or dropped frame). */
  agg_class->get_next_time = gst_aggregator_simple_get_next_time;

  GST_DEBUG_CATEGORY_INIT (gst_stereo_disparity_debug, "stereodisparity", 0,
      "Stereo disparity");
  gst_match_install_log_bridge ();
}

/* Once the element went EOS, its sink pads refuse buffers with EOS until a
 * flush or a new stream-start. GstAggregator 1.22 does this itself (it sets
 * its pads flushing with the EOS return); 1.26 (measured on 1.26.2) keeps
 * them open for a new stream-start, and buffers of the view still running
 * would queue unprocessed until that view's upstream blocks. */
static GstPadProbeReturn
refuse_after_eos (GstPad * pad, GstPadProbeInfo * info, gpointer user_data)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (user_data);

  if (info->type
      & (GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM
          | GST_PAD_PROBE_TYPE_EVENT_FLUSH)) {
    const GstEventType type = GST_EVENT_TYPE (GST_PAD_PROBE_INFO_EVENT (info));
    if (type == GST_EVENT_FLUSH_STOP || type == GST_EVENT_STREAM_START)
      g_atomic_int_set (&self->eos_sent, 0);
    return GST_PAD_PROBE_OK;
  }
  if (!g_atomic_int_get (&self->eos_sent))
    return GST_PAD_PROBE_OK;
  GST_LOG_OBJECT (pad, "EOS already: refusing data");
  gst_mini_object_unref (GST_MINI_OBJECT (GST_PAD_PROBE_INFO_DATA (info)));
  GST_PAD_PROBE_INFO_FLOW_RETURN (info) = GST_FLOW_EOS;
  return GST_PAD_PROBE_HANDLED;
}

static GstAggregatorPad *
add_sink_pad (GstStereoDisparity * self, const char * name)
{
  GstPadTemplate * templ =
      gst_element_class_get_pad_template (GST_ELEMENT_GET_CLASS (self), name);
  GstAggregatorPad * pad =
      GST_AGGREGATOR_PAD (g_object_new (GST_TYPE_AGGREGATOR_PAD, "name", name,
          "direction", GST_PAD_SINK, "template", templ, NULL));
  gst_element_add_pad (GST_ELEMENT (self), GST_PAD (pad));
  gst_pad_add_probe (GST_PAD (pad),
      (GstPadProbeType) (GST_PAD_PROBE_TYPE_BUFFER
          | GST_PAD_PROBE_TYPE_BUFFER_LIST | GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM
          | GST_PAD_PROBE_TYPE_EVENT_FLUSH),
      refuse_after_eos, self, NULL);
  return pad;
}

static void
gst_stereo_disparity_init (GstStereoDisparity * self)
{
  gst_match_settings_init (G_OBJECT_GET_CLASS (self), &self->settings);
  self->watch = NULL;
  self->strings = new GstMatchBackendStrings ();
  self->dropped = 0;
  self->paired = 0;
  self->latency = 0;
  self->state = nullptr;
  self->eos_sent = 0;

  self->sinkpad[VIEW_LEFT] = add_sink_pad (self, "sink_left");
  self->sinkpad[VIEW_RIGHT] = add_sink_pad (self, "sink_right");
}

static void
gst_stereo_disparity_finalize (GObject * object)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (object);

  delete self->state;
  self->state = nullptr;
  delete self->strings;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_stereo_disparity_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (object);

  GST_OBJECT_LOCK (self);
  const gboolean known = gst_match_settings_set (&self->settings, pspec, value)
      || gst_match_backend_set_string (self->strings, pspec, value);
  GST_OBJECT_UNLOCK (self);

  if (!known)
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  /* New output caps, or the output follows the other pad: documented as
   * MUTABLE_READY, but if they change while running the source caps are
   * renegotiated before the next pair. */
  else if (prop_id == PROP_OUTPUT || prop_id == PROP_REFERENCE)
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (self));
}

static void
gst_stereo_disparity_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (object);

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_DROPPED_FRAMES)
    g_value_set_uint64 (value, self->dropped);
  else if (!gst_match_backend_get_string (self->strings, pspec, value)
      && !gst_match_settings_get (&self->settings, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static Settings
snapshot_settings (GstStereoDisparity * self)
{
  GST_OBJECT_LOCK (self);
  Settings s = self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

static int
reference_view (const Settings & s)
{
  return s.reference == GST_STEREO_REFERENCE_RIGHT ? VIEW_RIGHT : VIEW_LEFT;
}

/* The configuration for the negotiated output size. */
static match::StereoConfig
output_config (const State * st, const Settings & s)
{
  return gst_stereo_settings_config (s, GST_VIDEO_INFO_WIDTH (&st->out_info),
      GST_VIDEO_INFO_HEIGHT (&st->out_info));
}

/* The effective depth from pipeline-depth `requested` (bounded by what
 * the matcher accepts in flight), and the latency. */
static void
update_depth (GstStereoDisparity * self, State * st, guint requested)
{
  st->held.update_depth (GST_ELEMENT (self), &self->latency, requested,
      st->matcher ? st->matcher->max_in_flight () : match::kMaxInFlight);
}

static gboolean
gst_stereo_disparity_start (GstAggregator * agg)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);
  const Settings s = snapshot_settings (self);

  /* Settings that no frame can work with fail the state change (the frame
   * size is not known yet: a small one stands in for it). */
  const match::Status valid = gst_stereo_settings_validate (s, 64, 64);
  if (!valid) {
    gst_stereo_settings_post_error (GST_ELEMENT (self), s, 0, 0, valid);
    return FALSE;
  }
  if (!gst_stereo_matcher_start (GST_ELEMENT (self), s, self->strings))
    return FALSE;

  GST_OBJECT_LOCK (self);
  self->dropped = 0;
  self->paired = 0;
  self->latency = 0;
  GST_OBJECT_UNLOCK (self);
  g_atomic_int_set (&self->eos_sent, 0);

  delete self->state;
  self->state = new State ();
  gst_input_watch_stop (self->watch);
  self->watch =
      gst_input_watch_start (agg, self->sinkpad, 2, s.missing_view_timeout);
  return TRUE;
}

static gboolean
gst_stereo_disparity_stop (GstAggregator * agg)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);

  gst_input_watch_stop (self->watch);
  self->watch = NULL;
  /* Held pairs are discarded with the state (the matcher waits for its
   * work in flight when destroyed). */
  delete self->state;
  self->state = nullptr;
  GST_OBJECT_LOCK (self);
  self->latency = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static State *
ensure_state (GstStereoDisparity * self)
{
  if (!self->state)
    self->state = new State ();
  return self->state;
}

/* Discards held pairs and the matcher's pairs in flight (flush, failed
 * push). */
static void
reset_stream (State * st)
{
  st->held.clear ();
  if (st->matcher)
    st->matcher->reset ();
}

/* Called from a sink pad's thread at FLUSH_STOP, while the source pad's
 * task (aggregate()) is stopped. */
static GstFlowReturn
gst_stereo_disparity_flush (GstAggregator * agg)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);

  GST_DEBUG_OBJECT (self, "flush: pairing restarts, held pairs dropped");
  if (self->state) {
    self->state->out_segment_valid = FALSE;
    reset_stream (self->state);
    self->state->pending_ret = GST_FLOW_OK;
  }
  /* The next live deadline starts again from the segment start, not from
   * the last pair before the flush. */
  gst_view_pairing_reset_position (agg);
  return GST_FLOW_OK;
}

static void drain_deferred (GstStereoDisparity * self, State * st);

static gboolean
gst_stereo_disparity_sink_event (GstAggregator * agg, GstAggregatorPad * pad,
    GstEvent * event)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);

  /* Serialized events (but FLUSH_STOP) reach us from the source pad's
   * task, in order with the buffers: the maps of pairs held from before
   * them (EOS, SEGMENT, CAPS, TAG, GAP...) leave first. */
  if (GST_EVENT_IS_SERIALIZED (event)
      && GST_EVENT_TYPE (event) != GST_EVENT_FLUSH_STOP && self->state)
    drain_deferred (self, self->state);

  if (GST_EVENT_TYPE (event) == GST_EVENT_CAPS) {
    State * st = ensure_state (self);
    const int view = pad == self->sinkpad[VIEW_RIGHT] ? VIEW_RIGHT : VIEW_LEFT;
    GstCaps * caps;
    GstVideoInfo info;

    gst_event_parse_caps (event, &caps);
    if (!gst_video_info_from_caps (&info, caps)) {
      GST_ERROR_OBJECT (pad, "invalid caps %" GST_PTR_FORMAT, caps);
      gst_event_unref (event);
      return FALSE;
    }
    GST_DEBUG_OBJECT (pad, "caps %" GST_PTR_FORMAT, caps);
    st->in_info[view] = info;
    st->have_info[view] = TRUE;
    st->luma[view].resize (gst_match_luma_scratch_size (&info));
    /* The sizes are compared when a pair is formed (a renegotiation may
     * reach one pad before the other). */
    gst_pad_mark_reconfigure (GST_AGGREGATOR_SRC_PAD (agg));
    gst_event_unref (event);
    return TRUE;
  }
  return GST_AGGREGATOR_CLASS (parent_class)->sink_event (agg, pad, event);
}

static GstFlowReturn
gst_stereo_disparity_update_src_caps (GstAggregator * agg, GstCaps * downstream,
    GstCaps ** ret)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);
  const Settings s = snapshot_settings (self);
  State * st = ensure_state (self);
  const int ref = reference_view (s);

  if (!st->have_info[ref])
    return GST_AGGREGATOR_FLOW_NEED_DATA;

  GstVideoInfo out;
  gst_stereo_output_info (&out, &st->in_info[ref], s.output);
  GstCaps * caps = gst_video_info_to_caps (&out);

  if (!gst_caps_can_intersect (caps, downstream)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
        ("Downstream does not accept the %s output (%s)",
            g_enum_get_value (G_ENUM_CLASS (
                                  g_type_class_peek (GST_TYPE_STEREO_OUTPUT)),
                s.output)
                ->value_nick,
            gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (&out))),
        ("offered %" GST_PTR_FORMAT ", downstream accepts %" GST_PTR_FORMAT,
            caps, downstream));
    gst_caps_unref (caps);
    return GST_FLOW_NOT_NEGOTIATED;
  }
  *ret = caps;
  return GST_FLOW_OK;
}

/* (Re)builds the matcher when it is missing or built for another
 * configuration. Posts the element error and returns FALSE on failure. */
static gboolean
ensure_matcher (GstStereoDisparity * self, State * st, const Settings & s)
{
  const match::StereoConfig cfg = output_config (st, s);

  if (st->matcher && st->matcher->config () == cfg)
    return TRUE;
  st->matcher.reset ();

  std::unique_ptr<match::StereoMatcher> matcher;
  if (!gst_stereo_matcher_create (GST_ELEMENT (self), s, cfg, &matcher))
    return FALSE;
  st->matcher = std::move (matcher);
  gst_match_backend_set_active (GST_ELEMENT (self), self->strings,
      st->matcher->description ().c_str ());
  /* Its own bound on the pairs in flight. */
  update_depth (self, st, s.backend.pipeline_depth);
  return TRUE;
}

static gboolean
gst_stereo_disparity_negotiated_src_caps (GstAggregator * agg, GstCaps * caps)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);
  const Settings s = snapshot_settings (self);
  State * st = ensure_state (self);
  GstVideoInfo info;

  if (!gst_video_info_from_caps (&info, caps)) {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("invalid output caps %" GST_PTR_FORMAT, caps));
    return FALSE;
  }
  st->negotiated = FALSE;
  st->out_info = info;
  st->out_mode = s.output;
  st->held.set_rate (GST_VIDEO_INFO_FPS_N (&info),
      GST_VIDEO_INFO_FPS_D (&info));
  if (!ensure_matcher (self, st, s))
    return FALSE;
  update_depth (self, st, s.backend.pipeline_depth);
  st->negotiated = TRUE;
  GST_DEBUG_OBJECT (self, "output %" GST_PTR_FORMAT, caps);
  return TRUE;
}

/* A GstVideoBufferPool for the output caps, at least 2 buffers. */
static gboolean
gst_stereo_disparity_decide_allocation (GstAggregator * agg, GstQuery * query)
{
  return gst_view_pairing_decide_video_pool (GST_ELEMENT (agg), query, 2);
}

/* Counts a dropped input frame, with its QoS message (processed = pairs
 * output so far, dropped = input frames dropped so far), and logs why. */
static void
count_drop (GstStereoDisparity * self, int view, GstBuffer * buf,
    const char * why)
{
  const guint64 total = gst_view_pairing_count_drop (GST_AGGREGATOR (self),
      self->sinkpad[view], buf, &self->dropped, &self->paired);

  GST_DEBUG_OBJECT (self,
      "dropping %s frame %" GST_TIME_FORMAT " (%s); "
      "%" G_GUINT64_FORMAT " dropped so far",
      view == VIEW_LEFT ? "left" : "right",
      GST_TIME_ARGS (GST_BUFFER_PTS (buf)), why, total);
}

/* A view's caps, NULL before its first CAPS event. */
static const GstVideoInfo *
view_info (const State * st, int view)
{
  return st->have_info[view] ? &st->in_info[view] : NULL;
}

/* Collects the map of `h` (the oldest held pair, popped) into an output
 * buffer and pushes it downstream. On failure the caller resets the stream
 * (the matcher may still hold the pair). */
static GstFlowReturn
finish_oldest (GstStereoDisparity * self, State * st, const Held & h)
{
  GstBuffer * outbuf = NULL;
  /* From the negotiated pool (a plain buffer without one). */
  GstFlowReturn ret = gst_view_pairing_acquire_output (GST_ELEMENT (self),
      gst_aggregator_get_buffer_pool (GST_AGGREGATOR (self)),
      GST_VIDEO_INFO_SIZE (&st->out_info), &outbuf);

  if (ret != GST_FLOW_OK)
    return ret;
  /* The format negotiated for this map, with the settings of the pair's
   * time, as in the synchronous mode. */
  ret = gst_stereo_matcher_collect (GST_ELEMENT (self), st->matcher.get (),
      &st->out_info, outbuf, st->out_mode, h.settings);
  if (ret != GST_FLOW_OK) {
    gst_buffer_unref (outbuf);
    return ret;
  }
  GST_BUFFER_PTS (outbuf) = h.pts;
  GST_BUFFER_DTS (outbuf) = GST_CLOCK_TIME_NONE;
  GST_BUFFER_DURATION (outbuf) = h.duration;
  if (h.discont)
    GST_BUFFER_FLAG_SET (outbuf, GST_BUFFER_FLAG_DISCONT);
  GST_OBJECT_LOCK (self);
  self->paired++;
  GST_OBJECT_UNLOCK (self);
  return gst_aggregator_finish_buffer (GST_AGGREGATOR (self), outbuf);
}

/* Pushes the maps of every held pair downstream, oldest first. On a flow
 * error the rest are discarded (with the matcher's pairs in flight). */
static GstFlowReturn
drain (GstStereoDisparity * self, State * st)
{
  if (!st)
    return GST_FLOW_OK;
  /* *INDENT-OFF* */
  return st->held.drain (
      GST_ELEMENT (self),
      [&] (Held && h) { return finish_oldest (self, st, h); },
      [&] () { reset_stream (st); });
  /* *INDENT-ON* */
}

/* drain() where no flow return can be given back (an event, a
 * negotiation): a failure is kept for the next aggregate() to return. */
static void
drain_deferred (GstStereoDisparity * self, State * st)
{
  const GstFlowReturn ret = drain (self, st);

  if (ret != GST_FLOW_OK && st->pending_ret == GST_FLOW_OK)
    st->pending_ret = ret;
}

/* Every negotiation, the base class's (reconfigure) or ours: the base class
 * pushes the new caps at once (gst_aggregator_set_src_caps), so the maps
 * held under the current ones leave first. */
static gboolean
gst_stereo_disparity_negotiate (GstAggregator * agg)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);

  if (self->state)
    drain_deferred (self, self->state);
  return GST_AGGREGATOR_CLASS (parent_class)->negotiate (agg);
}

/* The latency query: GstAggregator's answer (upstream + `latency`) plus
 * the pipelining delay, depth x frame duration. */
static gboolean
gst_stereo_disparity_src_query (GstAggregator * agg, GstQuery * query)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);

  if (!GST_AGGREGATOR_CLASS (parent_class)->src_query (agg, query))
    return FALSE;
  if (GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    gst_match_held_add_latency (GST_ELEMENT (self), &self->latency, query);
  return TRUE;
}

/* A drain that failed where no flow return could be given back (an event,
 * a negotiation), once. */
static GstFlowReturn
take_pending (State * st)
{
  const GstFlowReturn ret = st->pending_ret;

  st->pending_ret = GST_FLOW_OK;
  return ret;
}

/* `view` is EOS with nothing queued: the held maps leave, the other view's
 * queued frames can never pair and are dropped, and the element goes EOS. */
static GstFlowReturn
handle_eos (GstStereoDisparity * self, State * st, int view, gboolean other)
{
  GstBuffer * queued;

  GST_INFO_OBJECT (self, "%s pad is EOS: %s",
      view == VIEW_LEFT ? "left" : "right",
      other ? "dropping the other view's frames, EOS" : "EOS");
  /* (The EOS event drained them already, unless it came before the other
   * pad's last frames.) */
  const GstFlowReturn ret = drain (self, st);
  if (ret != GST_FLOW_OK)
    return ret;
  g_atomic_int_set (&self->eos_sent, 1);
  while ((queued = gst_aggregator_pad_pop_buffer (self->sinkpad[1 - view]))) {
    count_drop (self, 1 - view, queued, "the other view is EOS");
    gst_buffer_unref (queued);
  }
  return GST_FLOW_EOS;
}

/* Live, and the deadline passed with a view missing: the held maps leave
 * (they would only get later), a frame still alone has lost its partner,
 * and the next deadline moves past it (or by a frame when there is none). */
static GstFlowReturn
handle_timeout (GstStereoDisparity * self, State * st, int ref,
    GstBuffer * bufs[2])
{
  GstAggregator * agg = GST_AGGREGATOR (self);
  GstClockTime end = GST_CLOCK_TIME_NONE;
  const GstFlowReturn ret = drain (self, st);

  if (ret != GST_FLOW_OK)
    return ret;
  for (int v = 0; v < 2; v++) {
    if (!bufs[v])
      continue;
    const GstClockTime t =
        gst_view_pairing_running_time (self->sinkpad[v], bufs[v], NULL);
    const GstClockTime d =
        gst_view_pairing_frame_duration (bufs[v], view_info (st, v));
    if (GST_CLOCK_TIME_IS_VALID (t))
      end = t + (GST_CLOCK_TIME_IS_VALID (d) ? d : 0);
    count_drop (self, v, bufs[v], "timeout: the other view is late");
    gst_aggregator_pad_drop_buffer (self->sinkpad[v]);
  }
  if (!GST_CLOCK_TIME_IS_VALID (end)) {
    const GstClockTime next = gst_view_pairing_next_running_time (agg);
    GstClockTime step =
        gst_view_pairing_frame_duration (NULL, view_info (st, ref));
    if (!GST_CLOCK_TIME_IS_VALID (step))
      step = DEFAULT_TIMEOUT_STEP;
    if (GST_CLOCK_TIME_IS_VALID (next))
      end = next + step;
  }
  gst_view_pairing_advance_position (agg, end);
  return GST_FLOW_OK;
}

/* Do the heads of both pads pair (running times within half the reference
 * frame's duration, or either without a timestamp: by arrival)? If not,
 * the earlier one (or one outside its segment) is dropped. *ref_segment:
 * the reference pad's segment, read with its frame's running time (the
 * pad's may be reset by a flush of that view before the map is output). */
static gboolean
pair_heads (GstStereoDisparity * self, State * st, int ref, GstBuffer * bufs[2],
    GstClockTime rt[2], GstClockTime * dur, GstSegment * ref_segment)
{
  for (int v = 0; v < 2; v++) {
    rt[v] = gst_view_pairing_running_time (self->sinkpad[v], bufs[v],
        v == ref ? ref_segment : NULL);
    if (GST_BUFFER_PTS_IS_VALID (bufs[v]) && !GST_CLOCK_TIME_IS_VALID (rt[v])) {
      count_drop (self, v, bufs[v], "outside the segment");
      gst_aggregator_pad_drop_buffer (self->sinkpad[v]);
      return FALSE;
    }
  }
  *dur = gst_view_pairing_frame_duration (bufs[ref], view_info (st, ref));
  const gboolean by_arrival = !GST_CLOCK_TIME_IS_VALID (rt[VIEW_LEFT])
      || !GST_CLOCK_TIME_IS_VALID (rt[VIEW_RIGHT]);
  const GstClockTime diff = rt[0] > rt[1] ? rt[0] - rt[1] : rt[1] - rt[0];
  if (by_arrival && !st->logged_by_arrival) {
    GST_INFO_OBJECT (self,
        "a frame without timestamp: pairing by arrival "
        "(logged once)");
    st->logged_by_arrival = TRUE;
  }
  if (by_arrival
      || (GST_CLOCK_TIME_IS_VALID (*dur) && *dur > 0 ? 2 * diff < *dur
                                                     : diff == 0))
    return TRUE;
  const int early = rt[VIEW_LEFT] < rt[VIEW_RIGHT] ? VIEW_LEFT : VIEW_RIGHT;
  count_drop (self, early, bufs[early], "the other view's next frame is later");
  gst_aggregator_pad_drop_buffer (self->sinkpad[early]);
  return FALSE;
}

/* Before a pair is submitted: the output negotiated (again, if `output`
 * changed), both views of its size, the settings valid and the matcher
 * built for them, the depth current. The held maps leave before anything
 * that the synchronous mode would have output them before. */
static GstFlowReturn
prepare (GstStereoDisparity * self, State * st, const Settings & s)
{
  GstAggregator * agg = GST_AGGREGATOR (self);
  const GstVideoInfo * out = &st->out_info;
  match::Status valid;

  /* (A negotiation drains the held maps first.) */
  if (!st->negotiated && !gst_aggregator_negotiate (agg))
    return GST_FLOW_NOT_NEGOTIATED;
  for (int v = 0; v < 2; v++) {
    if (!st->have_info[v]
        || GST_VIDEO_INFO_WIDTH (&st->in_info[v]) != GST_VIDEO_INFO_WIDTH (out)
        || GST_VIDEO_INFO_HEIGHT (&st->in_info[v])
            != GST_VIDEO_INFO_HEIGHT (out))
      goto size_mismatch;
  }
  /* output changed while running and the renegotiation has not happened
   * yet: do it now. */
  if (s.output != st->out_mode && !gst_aggregator_negotiate (agg))
    return GST_FLOW_NOT_NEGOTIATED;
  if (st->pending_ret != GST_FLOW_OK)
    return take_pending (st);
  /* A setting of the matcher changed while playing (a new matcher) or
   * settings that fail: the held maps leave first, as the synchronous mode
   * had output them. */
  valid = gst_stereo_settings_validate (s, GST_VIDEO_INFO_WIDTH (out),
      GST_VIDEO_INFO_HEIGHT (out));
  if ((st->matcher && st->matcher->config () != output_config (st, s))
      || !valid) {
    const GstFlowReturn ret = drain (self, st);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  if (!valid) {
    gst_stereo_settings_post_error (GST_ELEMENT (self), s,
        GST_VIDEO_INFO_WIDTH (out), GST_VIDEO_INFO_HEIGHT (out), valid);
    return GST_FLOW_ERROR;
  }
  if (!ensure_matcher (self, st, s))
    return GST_FLOW_ERROR;
  if (s.backend.pipeline_depth != st->held.requested ())
    update_depth (self, st, s.backend.pipeline_depth);
  return GST_FLOW_OK;

  /* ERRORS */
size_mismatch : {
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION,
      ("The left and right views must have the same size: left %dx%d, "
       "right %dx%d",
          GST_VIDEO_INFO_WIDTH (&st->in_info[VIEW_LEFT]),
          GST_VIDEO_INFO_HEIGHT (&st->in_info[VIEW_LEFT]),
          GST_VIDEO_INFO_WIDTH (&st->in_info[VIEW_RIGHT]),
          GST_VIDEO_INFO_HEIGHT (&st->in_info[VIEW_RIGHT])),
      ("output negotiated for %dx%d", GST_VIDEO_INFO_WIDTH (out),
          GST_VIDEO_INFO_HEIGHT (out)));
  return GST_FLOW_NOT_NEGOTIATED;
}
}

/* Hands the pair to the matcher and holds what its map needs; the input
 * frames are done with, the segment and the live deadline move on. */
static GstFlowReturn
submit_and_hold (GstStereoDisparity * self, State * st, const Settings & s,
    GstBuffer * bufs[2], const GstClockTime rt[2], GstClockTime dur,
    const GstSegment * ref_segment)
{
  GstAggregator * agg = GST_AGGREGATOR (self);
  const int ref = reference_view (s);
  Held h;

  GST_LOG_OBJECT (self,
      "pair: left %" GST_TIME_FORMAT " right %" GST_TIME_FORMAT ", %d held",
      GST_TIME_ARGS (rt[VIEW_LEFT]), GST_TIME_ARGS (rt[VIEW_RIGHT]),
      st->held.count ());
  gst_aggregator_selected_samples (agg, GST_BUFFER_PTS (bufs[ref]),
      GST_BUFFER_DTS (bufs[ref]), GST_BUFFER_DURATION (bufs[ref]), NULL);

  const GstFlowReturn ret = gst_stereo_matcher_submit (GST_ELEMENT (self),
      st->matcher.get (), st->in_info, st->luma, bufs, s);
  if (ret != GST_FLOW_OK)
    return ret;
  h.pts = GST_BUFFER_PTS (bufs[ref]);
  h.duration = dur; /* the buffer's, else 1/framerate */
  h.discont = GST_BUFFER_IS_DISCONT (bufs[ref]);
  h.settings = s;
  st->held.push (std::move (h));

  gst_aggregator_pad_drop_buffer (self->sinkpad[VIEW_LEFT]);
  gst_aggregator_pad_drop_buffer (self->sinkpad[VIEW_RIGHT]);
  /* Every segment change comes after a drain (SEGMENT event, flush, a new
   * reference view), so the held maps all belong to this segment: the one
   * the pair was formed in (a flush of the reference view alone, maybe
   * during the matching above, resets the pad's). */
  gst_view_pairing_forward_segment (agg, ref_segment, &st->out_segment,
      &st->out_segment_valid);
  if (GST_CLOCK_TIME_IS_VALID (rt[ref]))
    gst_view_pairing_advance_position (agg,
        rt[ref] + (GST_CLOCK_TIME_IS_VALID (dur) ? dur : 0));
  return GST_FLOW_OK;
}

/* The oldest map(s) leave once more than `depth` pairs are held (more than
 * one after pipeline-depth was lowered). */
static GstFlowReturn
push_due (GstStereoDisparity * self, State * st)
{
  /* *INDENT-OFF* */
  const GstFlowReturn ret = st->held.finish_excess (
      [&] (Held && h) { return finish_oldest (self, st, h); });
  /* *INDENT-ON* */
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "push failed: %s", gst_flow_get_name (ret));
    reset_stream (st);
  }
  return ret;
}

static GstFlowReturn
gst_stereo_disparity_aggregate (GstAggregator * agg, gboolean timeout)
{
  GstStereoDisparity * self = GST_STEREO_DISPARITY (agg);
  State * st = ensure_state (self);
  const Settings s = snapshot_settings (self);
  const int ref = reference_view (s);
  GstBuffer * bufs[2];
  GstClockTime rt[2], dur;
  GstSegment ref_segment;
  GstFlowReturn ret = take_pending (st);

  if (ret != GST_FLOW_OK)
    return ret;
  for (int v = 0; v < 2; v++)
    bufs[v] = gst_view_pairing_peek (self->sinkpad[v]);

  if (!bufs[VIEW_LEFT] && gst_aggregator_pad_is_eos (self->sinkpad[VIEW_LEFT]))
    ret = handle_eos (self, st, VIEW_LEFT, bufs[VIEW_RIGHT] != NULL);
  else if (!bufs[VIEW_RIGHT]
      && gst_aggregator_pad_is_eos (self->sinkpad[VIEW_RIGHT]))
    ret = handle_eos (self, st, VIEW_RIGHT, bufs[VIEW_LEFT] != NULL);
  else if (!bufs[VIEW_LEFT] || !bufs[VIEW_RIGHT])
    ret = timeout ? handle_timeout (self, st, ref, bufs) : GST_FLOW_OK;
  else if (pair_heads (self, st, ref, bufs, rt, &dur, &ref_segment)) {
    ret = prepare (self, st, s);
    if (ret == GST_FLOW_OK)
      ret = submit_and_hold (self, st, s, bufs, rt, dur, &ref_segment);
    if (ret == GST_FLOW_OK)
      ret = push_due (self, st);
  }

  for (int v = 0; v < 2; v++)
    gst_clear_buffer (&bufs[v]);
  return ret;
}
