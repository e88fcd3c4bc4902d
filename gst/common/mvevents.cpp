/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
/* Motion state machine (docs/motion-events.md, "Events").
 *
 * Only frames whose field has at least one estimate count (the first frame
 * after start, a flush or a caps change has none) and only frames with a
 * valid running time (a PTS inside a TIME segment). With t the running time
 * of such a frame:
 *
 *   regions on the frame, motion idle   -> motion-start (t), active;
 *   regions on the frame, motion active -> stays active, quiet time ends;
 *   no regions, motion active           -> quiet_since = t on the first such
 *       frame; once t - quiet_since >= hold-off, motion-stop with timestamp
 *       quiet_since (when motion ended) and duration quiet_since - start.
 *
 * So hold-off is the time without any region before motion is declared
 * stopped, measured from the first frame seen without regions; hold-off = 0
 * declares it on that frame. When every track of the motion was taken back
 * by the decision (swaying in place, MvDecision::retracted ()), a frame
 * without regions posts motion-stop at once, timestamped quiet_since,
 * reason "swaying": the alarm was false, and an object that comes next
 * starts its own motion rather than one inside the hold-off of the
 * swaying. A forced end (EOS, flush, stream start, caps change) posts
 * motion-stop at once, timestamped quiet_since when quiet time had begun,
 * else at the end of the last frame with regions (its PTS + duration, or
 * its PTS when the duration is unknown).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvevents.h"

#include <gst/video/video.h>
#ifdef HAVE_GST_ANALYTICS
#include <gst/analytics/analytics.h>
#endif

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "match/change.h"
#include "mvdecision.h"
#include "mvlines.h"
#include "mvregions.h"
#include "mvrulesfile.h"
#include "mvrulesmeta.h"
#include "mvzones.h"

GST_DEBUG_CATEGORY_STATIC (mv_events_debug);
#define GST_CAT_DEFAULT mv_events_debug

#define DEFAULT_REGIONS FALSE
#define DEFAULT_MOTION_THRESHOLD 1.0
#define DEFAULT_MIN_AREA 1
#define DEFAULT_MASK ""
#define DEFAULT_LINES ""
#define DEFAULT_ZONES ""
#define DEFAULT_RULES_FILE NULL
#define DEFAULT_EVENTS FALSE
#define DEFAULT_HOLD_OFF GST_SECOND
#define DEFAULT_REGION_MESSAGES FALSE
#define DEFAULT_SENSITIVITY 50
#define DEFAULT_DECISION GST_MV_DECISION_TRACKS

/* What decides the regions (docs/motion-events.md). */
typedef enum
{
  GST_MV_DECISION_TRACKS,
  GST_MV_DECISION_BLOCKS,
} GstMvDecisionMode;

#define GST_TYPE_MV_DECISION_MODE (gst_mv_decision_mode_get_type ())
static GType
gst_mv_decision_mode_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_MV_DECISION_TRACKS,
        "Moving objects: residual motion after the "
        "camera's, grouped by agreeing vectors, confirmed as coherent "
        "tracks with stable ids",
        "tracks" },
    { GST_MV_DECISION_BLOCKS,
        "Every 8-connected group of moving blocks, "
        "frame by frame (no camera compensation, no tracks)",
        "blocks" },
    { 0, NULL, NULL },
  };
  /* Two plugins link this file (motion, motioncodec) and a process may
   * load both: the second takes the type the first registered (the same
   * values, from the same code). */
  if (g_once_init_enter (&type)) {
    GType t = g_type_from_name ("GstMvDecisionMode");
    if (!t)
      t = g_enum_register_static ("GstMvDecisionMode", values);
    g_once_init_leave (&type, t);
  }
  return type;
}

/* Property ids relative to first_id. */
enum
{
  EV_PROP_REGIONS,
  EV_PROP_MOTION_THRESHOLD,
  EV_PROP_MIN_AREA,
  EV_PROP_MASK,
  EV_PROP_EVENTS,
  EV_PROP_HOLD_OFF,
  EV_PROP_REGION_MESSAGES,
  EV_PROP_SENSITIVITY,
  EV_PROP_DECISION,
  EV_PROP_LINES,
  EV_PROP_ZONES,
  EV_PROP_RULES_FILE,
  EV_N_PROPS
};

G_STATIC_ASSERT (EV_N_PROPS == GST_MV_EVENTS_N_PROPS);

/* Plain copyable settings, read under the element's object lock. */
struct EvSettings
{
  gboolean regions = DEFAULT_REGIONS;
  gdouble threshold = DEFAULT_MOTION_THRESHOLD;
  gint min_area = DEFAULT_MIN_AREA;
  gboolean events = DEFAULT_EVENTS;
  guint64 hold_off = DEFAULT_HOLD_OFF;
  gboolean region_messages = DEFAULT_REGION_MESSAGES;
  gint sensitivity = DEFAULT_SENSITIVITY;
  GstMvDecisionMode decision = DEFAULT_DECISION;
};

/* One region as the outputs see it: the plain grouping's (track_id 0) or
 * a confirmed track's. */
struct EvRegion
{
  MvRegion r;
  guint track_id = 0;
  guint frames = 0;
  guint64 age = 0;
  gdouble vx = 0.0, vy = 0.0;
  std::string zones; /* the zones its box centre is in, comma separated */
};

struct _GstMvEvents
{
  /* Protected by the owning element's object lock. */
  EvSettings settings;
  gchar * mask = nullptr;         /* as set */
  std::vector<MvRect> mask_rects; /* parsed */
  guint mask_cookie = 0;          /* bumped on each mask change */
  gchar * lines = nullptr;        /* as set */
  std::vector<MvLine> line_defs;  /* parsed */
  guint lines_cookie = 0;         /* bumped on each change */
  gchar * zones = nullptr;        /* as set */
  std::vector<MvZone> zone_defs;  /* parsed */
  guint zones_cookie = 0;
  gchar * rules_file = nullptr; /* the file they were read from, or NULL */

  /* Streaming thread only. */
  std::vector<MvRect> st_mask;
  guint st_mask_cookie = 0;
  MvLineCounter counter;
  guint st_lines_cookie = 0;
  std::string st_lines, st_zones;   /* the properties' strings, for the meta */
  std::vector<MvTrackPoint> points; /* this frame's tracks (lines, zones) */
  std::vector<MvCrossing> crossings;
  MvZoneWatcher watcher;
  guint st_zones_cookie = 0;
  std::vector<MvZoneEvent> zone_events;
  MvRegionFinder finder;
  MvDecision decision;
  std::unique_ptr<match::ChangeDetector> change; /* the pixels */
  bool change_failed = false;                    /* logged once */
  match::Backend change_backend = match::Backend::kCpu;
  int change_device = 0;
  guint change_threads = 0; /* the estimator's, for the stage */
  MvChangeRefiner refiner;
  int reach_x = 0, reach_y = 0; /* the search's (set_reach) */
  guint64 beyond_frames = 0;    /* not judged for it, this stream */
  bool decided = false;         /* by the last process () */
  std::vector<MvBlock> blocks;
  std::vector<MvRegion> found;
  std::vector<EvRegion> regions;
  bool active = false;
  GstClockTime start = GST_CLOCK_TIME_NONE;
  GstClockTime quiet_since = GST_CLOCK_TIME_NONE;
  GstClockTime last_motion_end = GST_CLOCK_TIME_NONE;
  /* The active motion's tracks, and those of them the decision took back
   * (swaying in place); an untracked region (decision=blocks) is never
   * taken back. */
  std::vector<guint> episode;
  std::vector<guint> retracted;
  bool untracked = false;
  /* In-band events kept for the element to push (defer_inband), or null. */
  GPtrArray * deferred = nullptr;
};

GstMvEvents *
gst_mv_events_new (void)
{
  GstMvEvents * ev = new GstMvEvents ();
  ev->mask = g_strdup (DEFAULT_MASK);
  ev->lines = g_strdup (DEFAULT_LINES);
  ev->zones = g_strdup (DEFAULT_ZONES);
  return ev;
}

void
gst_mv_events_free (GstMvEvents * ev)
{
  if (!ev)
    return;
  g_free (ev->mask);
  g_free (ev->lines);
  g_free (ev->zones);
  g_free (ev->rules_file);
  delete ev;
}

void
gst_mv_events_install_properties (GObjectClass * klass, guint first_id)
{
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);

  GST_DEBUG_CATEGORY_INIT (mv_events_debug, "mvevents", 0,
      "Moving regions and motion events");

  g_object_class_install_property (klass, first_id + EV_PROP_REGIONS,
      g_param_spec_boolean ("regions", "Regions",
          "Group moving blocks into regions (8-connected) and attach each as "
          "a GstVideoRegionOfInterestMeta of type \"motion\" with a "
          "\"motion\" parameter (mean-dx, mean-dy, area, pixels)",
          DEFAULT_REGIONS, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_MOTION_THRESHOLD,
      g_param_spec_double ("motion-threshold", "Motion threshold",
          "A block moves when it has an estimate, is not suppressed and its "
          "vector is at least this long, in pixels (0 = every such block)",
          0.0, 100000.0, DEFAULT_MOTION_THRESHOLD, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_MIN_AREA,
      g_param_spec_int ("min-area", "Minimum area",
          "Regions of fewer moving blocks than this are dropped", 1, G_MAXINT,
          DEFAULT_MIN_AREA, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_MASK,
      g_param_spec_string ("mask", "Mask",
          "Ignored areas, \"x,y,w,h;x,y,w,h\" in pixels: blocks whose centre "
          "lies in one never move. An invalid string is refused with a "
          "warning and the mask stays as it was",
          DEFAULT_MASK, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_EVENTS,
      g_param_spec_boolean ("events", "Events",
          "Post motion-start and motion-stop element messages", DEFAULT_EVENTS,
          rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_HOLD_OFF,
      g_param_spec_uint64 ("hold-off", "Hold-off",
          "Nanoseconds of running time without any region before motion is "
          "declared stopped (motion-stop)",
          0, G_MAXUINT64, DEFAULT_HOLD_OFF, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_REGION_MESSAGES,
      g_param_spec_boolean ("region-messages", "Region messages",
          "Post a motion-regions element message for every frame that has "
          "regions",
          DEFAULT_REGION_MESSAGES, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_SENSITIVITY,
      g_param_spec_int ("sensitivity", "Sensitivity",
          "decision=tracks: how readily a moving object is confirmed. Higher "
          "finds objects sooner and with less travel (0: after 0.5 s and "
          "6 px, 50: 0.3 s and 3.5 px, 100: 0.1 s and 1 px; objects moving "
          "under a pixel a frame after 1.4, 1 and 0.6 s), at the price of "
          "more false alarms from leaves, rain and noise",
          0, 100, DEFAULT_SENSITIVITY, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_DECISION,
      g_param_spec_enum ("decision", "Decision",
          "What makes regions and events: tracked moving objects (camera "
          "motion removed, coherent motion only), or every group of moving "
          "blocks of each frame",
          GST_TYPE_MV_DECISION_MODE, DEFAULT_DECISION, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_LINES,
      g_param_spec_string ("lines", "Lines",
          "Tripwires counting the tracks that cross them (events=true, "
          "decision=tracks): \"NAME=X0,Y0 X1,Y1;...\" in fractions of the "
          "frame (0..1, y down); crossing from the left of X0,Y0 -> X1,Y1 "
          "(on screen) to its right is positive. Each crossing posts a "
          "line-crossed message. An invalid string is refused with a warning "
          "and the lines stay as they were",
          DEFAULT_LINES, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_ZONES,
      g_param_spec_string ("zones", "Zones",
          "Polygons with a motion state of their own (events=true, "
          "decision=tracks): \"NAME=X,Y X,Y X,Y [sensitivity=S] "
          "[direction=D/T];...\" in fractions of the frame (0..1, y down); "
          "motion-start and motion-stop with a \"zone\" field when tracks "
          "are inside (moving D +- T degrees, 0 = right, 90 = down, with a "
          "direction; after 1 s x (100 - S) / 100). An invalid string is "
          "refused with a warning and the zones stay as they were",
          DEFAULT_ZONES, rw_playing));
  g_object_class_install_property (klass, first_id + EV_PROP_RULES_FILE,
      g_param_spec_string ("rules-file", "Rules file",
          "A JSON file of zones and lines ({\"zones\": [{\"name\", "
          "\"points\": [[x, y], ...], \"sensitivity\", \"direction\", "
          "\"tolerance\"}], \"lines\": [{\"name\", \"points\"}]}), read "
          "when set: it replaces zones and lines. A file that cannot be read "
          "or is invalid is refused with a warning and nothing changes",
          DEFAULT_RULES_FILE, rw_playing));
}

static const gchar *
object_name (GObject * object)
{
  return GST_IS_OBJECT (object) ? GST_OBJECT_NAME (object)
                                : G_OBJECT_TYPE_NAME (object);
}

/* New zones and/or lines (NULL: unchanged), both checked before either is
 * taken. */
static bool
set_rules (GstMvEvents * ev, const gchar * zones, const gchar * lines,
    std::string * error)
{
  std::vector<MvZone> z;
  std::vector<MvLine> l;
  if ((zones && !mv_zones_parse (zones, &z, error))
      || (lines && !mv_lines_parse (lines, &l, error)))
    return false;
  if (zones) {
    g_free (ev->zones);
    ev->zones = g_strdup (zones);
    ev->zone_defs = std::move (z);
    ev->zones_cookie++;
  }
  if (lines) {
    g_free (ev->lines);
    ev->lines = g_strdup (lines);
    ev->line_defs = std::move (l);
    ev->lines_cookie++;
  }
  return true;
}

gboolean
gst_mv_events_set_property (GstMvEvents * ev, GObject * object, guint first_id,
    guint prop_id, const GValue * value)
{
  EvSettings & s = ev->settings;

  if (prop_id < first_id || prop_id >= first_id + EV_N_PROPS)
    return FALSE;
  switch (prop_id - first_id) {
    case EV_PROP_REGIONS:
      s.regions = g_value_get_boolean (value);
      break;
    case EV_PROP_MOTION_THRESHOLD:
      s.threshold = g_value_get_double (value);
      break;
    case EV_PROP_MIN_AREA:
      s.min_area = g_value_get_int (value);
      break;
    case EV_PROP_MASK: {
      const gchar * str = g_value_get_string (value);
      std::vector<MvRect> rects;
      std::string error;
      if (!mv_regions_parse_mask (str, &rects, &error)) {
        /* Called under the object lock: no element error (posting takes
         * the lock); GObject rejects out-of-range values the same way. */
        g_warning ("%s: invalid mask \"%s\": %s; the mask is unchanged "
                   "(\"%s\")",
            GST_IS_OBJECT (object) ? GST_OBJECT_NAME (object)
                                   : G_OBJECT_TYPE_NAME (object),
            str, error.c_str (), ev->mask);
        break;
      }
      g_free (ev->mask);
      ev->mask = g_strdup (str ? str : "");
      ev->mask_rects = std::move (rects);
      ev->mask_cookie++;
      break;
    }
    case EV_PROP_EVENTS:
      s.events = g_value_get_boolean (value);
      break;
    case EV_PROP_HOLD_OFF:
      s.hold_off = g_value_get_uint64 (value);
      break;
    case EV_PROP_REGION_MESSAGES:
      s.region_messages = g_value_get_boolean (value);
      break;
    case EV_PROP_SENSITIVITY:
      s.sensitivity = g_value_get_int (value);
      break;
    case EV_PROP_DECISION:
      s.decision = (GstMvDecisionMode) g_value_get_enum (value);
      break;
    case EV_PROP_LINES:
    case EV_PROP_ZONES: {
      const bool lines = prop_id - first_id == EV_PROP_LINES;
      const gchar * str = g_value_get_string (value);
      std::string error;
      if (!set_rules (ev, lines ? nullptr : str, lines ? str : nullptr, &error))
        g_warning ("%s: invalid %s \"%s\": %s; they are unchanged (\"%s\")",
            object_name (object), lines ? "lines" : "zones", str,
            error.c_str (), lines ? ev->lines : ev->zones);
      break;
    }
    case EV_PROP_RULES_FILE: {
      const gchar * path = g_value_get_string (value);
      std::string zones, lines, error;
      if (path && *path
          && (!mv_rules_file_load (path, &zones, &lines, &error)
              || !set_rules (ev, zones.c_str (), lines.c_str (), &error))) {
        g_warning ("%s: rules-file \"%s\": %s; zones and lines unchanged",
            object_name (object), path, error.c_str ());
        break;
      }
      g_free (ev->rules_file);
      ev->rules_file = g_strdup (path);
      break;
    }
  }
  return TRUE;
}

gboolean
gst_mv_events_get_property (GstMvEvents * ev, guint first_id, guint prop_id,
    GValue * value)
{
  const EvSettings & s = ev->settings;

  if (prop_id < first_id || prop_id >= first_id + EV_N_PROPS)
    return FALSE;
  switch (prop_id - first_id) {
    case EV_PROP_REGIONS:
      g_value_set_boolean (value, s.regions);
      break;
    case EV_PROP_MOTION_THRESHOLD:
      g_value_set_double (value, s.threshold);
      break;
    case EV_PROP_MIN_AREA:
      g_value_set_int (value, s.min_area);
      break;
    case EV_PROP_MASK:
      g_value_set_string (value, ev->mask);
      break;
    case EV_PROP_EVENTS:
      g_value_set_boolean (value, s.events);
      break;
    case EV_PROP_HOLD_OFF:
      g_value_set_uint64 (value, s.hold_off);
      break;
    case EV_PROP_REGION_MESSAGES:
      g_value_set_boolean (value, s.region_messages);
      break;
    case EV_PROP_SENSITIVITY:
      g_value_set_int (value, s.sensitivity);
      break;
    case EV_PROP_DECISION:
      g_value_set_enum (value, s.decision);
      break;
    case EV_PROP_LINES:
      g_value_set_string (value, ev->lines);
      break;
    case EV_PROP_ZONES:
      g_value_set_string (value, ev->zones);
      break;
    case EV_PROP_RULES_FILE:
      g_value_set_string (value, ev->rules_file);
      break;
  }
  return TRUE;
}

static gint
clamp_int (int64_t v)
{
  return (gint) CLAMP (v, (int64_t) 0, (int64_t) G_MAXINT);
}

/* Compass-like direction of motion in degrees, 0 = right, 90 = down (image
 * coordinates, clockwise), in [0, 360). */
static gdouble
direction_degrees (gdouble vx, gdouble vy)
{
  gdouble d = atan2 (vy, vx) * 180.0 / G_PI;
  return d < 0.0 ? d + 360.0 : d;
}

static void
post (GstElement * element, GstStructure * s)
{
  GST_DEBUG_OBJECT (element, "posting %" GST_PTR_FORMAT, s);
  gst_element_post_message (element,
      gst_message_new_element (GST_OBJECT (element), s));
}

/* motion-start / motion-stop also go downstream in-band, as a serialized
 * custom downstream event carrying the same structure, so that consumers
 * of the stream (mvmetastream) see them in order with the frames: the
 * event leaves before the buffer of the frame that triggered it. A pad that
 * is not linked, or flushing, just drops it. The message is posted first:
 * a serialized event can wait downstream (a sink prerolled in PAUSED),
 * and the bus must not wait with it. A decision on another thread than
 * the one pushing buffers keeps the event in `deferred` instead, for the
 * element to push before the frame's buffer (gst_mv_events_defer_inband). */
static void
post_and_push (GstMvEvents * ev, GstElement * element, GstStructure * s)
{
  GstEvent * event = gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
      gst_structure_copy (s));
  const gchar * name = gst_structure_get_name (s);

  post (element, s);
  if (ev->deferred) {
    g_ptr_array_add (ev->deferred, event);
    return;
  }
  GstPad * src = gst_element_get_static_pad (element, "src");
  if (!src) {
    gst_event_unref (event);
    return;
  }
  if (!gst_pad_push_event (src, event))
    GST_DEBUG_OBJECT (element, "in-band %s not taken downstream", name);
  gst_object_unref (src);
}

/* motion-start; `track_id` is the track that started it (0 with
 * decision=blocks, then the field is left out). */
static void
post_start (GstMvEvents * ev, GstElement * element, GstClockTime ts,
    guint n_regions, guint track_id)
{
  GstStructure * s = gst_structure_new (GST_MOTION_EVENT_START_NAME,
      "timestamp", G_TYPE_UINT64, (guint64) ts, "regions", G_TYPE_INT,
      (gint) n_regions, NULL);
  if (track_id)
    gst_structure_set (s, "track-id", G_TYPE_UINT, track_id, NULL);
  post_and_push (ev, element, s);
}

/* The statistics of a region, for the ROI parameter and the message's
 * list: the grouping's, and the track's when it has one. */
static GstStructure *
region_structure (const gchar * name, const EvRegion & e, gboolean box)
{
  const MvRegion & r = e.r;
  GstStructure * s = gst_structure_new_empty (name);
  if (box)
    gst_structure_set (s, "x", G_TYPE_INT, r.box.x, "y", G_TYPE_INT, r.box.y,
        "w", G_TYPE_INT, r.box.w, "h", G_TYPE_INT, r.box.h, NULL);
  gst_structure_set (s, "mean-dx", G_TYPE_DOUBLE, r.mean_dx, "mean-dy",
      G_TYPE_DOUBLE, r.mean_dy, "area", G_TYPE_INT, r.area, "pixels",
      G_TYPE_INT, clamp_int (r.pixels), NULL);
  if (e.track_id)
    gst_structure_set (s, "track-id", G_TYPE_UINT, e.track_id, "frames",
        G_TYPE_UINT, e.frames, "age", G_TYPE_UINT64, e.age, "vx", G_TYPE_DOUBLE,
        e.vx, "vy", G_TYPE_DOUBLE, e.vy, "direction", G_TYPE_DOUBLE,
        direction_degrees (e.vx, e.vy), NULL);
  if (!e.zones.empty ())
    gst_structure_set (s, "zones", G_TYPE_STRING, e.zones.c_str (), NULL);
  return s;
}

static void
post_stop (GstMvEvents * ev, GstElement * element, GstClockTime start,
    GstClockTime end, const gchar * reason)
{
  const GstClockTime duration = end >= start ? end - start : 0;

  post_and_push (ev, element,
      gst_structure_new (GST_MOTION_EVENT_STOP_NAME, "timestamp", G_TYPE_UINT64,
          (guint64) end, "duration", G_TYPE_UINT64, (guint64) duration,
          "reason", G_TYPE_STRING, reason, NULL));
}

static void
post_regions (GstElement * element, GstClockTime ts,
    const std::vector<EvRegion> & regions)
{
  GValue list = G_VALUE_INIT;

  g_value_init (&list, GST_TYPE_LIST);
  for (const EvRegion & e : regions) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&item,
        region_structure (GST_MOTION_REGION_STRUCTURE_NAME, e, TRUE));
    gst_value_list_append_and_take_value (&list, &item);
  }
  GstStructure * s = gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME,
      "timestamp", G_TYPE_UINT64, (guint64) ts, NULL);
  gst_structure_take_value (s, "regions", &list);
  post (element, s);
}

#ifdef HAVE_GST_ANALYTICS
/* A region as GstAnalytics entries, as DL Streamer's gvamotiondetect and
 * GStreamer's ioutracker make them: an object-detection entry of type
 * "motion" (confidence 1: a box is the decision's, not a score) related to
 * a tracking entry that carries the track id and when the track was first
 * and last seen (running times). Returns the detection entry's id, or -1
 * when `rmeta` is full. */
static gint
add_analytics_entries (GstAnalyticsRelationMeta * rmeta, const EvRegion & e,
    GstClockTime t)
{
  static GQuark motion_quark = 0;
  if (!motion_quark)
    motion_quark = g_quark_from_static_string (GST_MOTION_REGION_ROI_TYPE);
  const MvRect & b = e.r.box;
  GstAnalyticsODMtd od;
  if (!gst_analytics_relation_meta_add_od_mtd (rmeta, motion_quark, b.x, b.y,
          b.w, b.h, 1.0f, &od))
    return -1;
  if (e.track_id) {
    const GstClockTime first =
        GST_CLOCK_TIME_IS_VALID (t) && t >= e.age ? t - e.age : t;
    GstAnalyticsTrackingMtd track;
    if (gst_analytics_relation_meta_add_tracking_mtd (rmeta, e.track_id, first,
            &track)) {
      gst_analytics_tracking_mtd_update_last_seen (&track, t);
      gst_analytics_relation_meta_set_relation (rmeta,
          GST_ANALYTICS_REL_TYPE_RELATE_TO, od.id, track.id);
    }
  }
  return (gint) od.id;
}
#endif

/* ROI ids: the track id with decision=tracks (stable over frames), the
 * index on the frame with decision=blocks; in builds with GstAnalytics the
 * region's object-detection entry's id instead (DL Streamer's convention:
 * its tools look the entry up by the ROI's id), the track id then being in
 * the ROI's parameter and the tracking entry. `t`: the frame's running
 * time. */
static void
attach_rois (GstBuffer * buf, const std::vector<EvRegion> & regions,
    GstClockTime t)
{
  gint id = 0;
#ifdef HAVE_GST_ANALYTICS
  GstAnalyticsRelationMeta * rmeta =
      gst_buffer_get_analytics_relation_meta (buf);
  if (!rmeta)
    rmeta = gst_buffer_add_analytics_relation_meta (buf);
#endif

  for (const EvRegion & e : regions) {
    const MvRegion & r = e.r;
    GstVideoRegionOfInterestMeta * roi =
        gst_buffer_add_video_region_of_interest_meta (buf,
            GST_MOTION_REGION_ROI_TYPE, (guint) r.box.x, (guint) r.box.y,
            (guint) r.box.w, (guint) r.box.h);
    if (!roi)
      return;
    roi->id = e.track_id ? (gint) MIN (e.track_id, (guint) G_MAXINT) : id;
    id++;
#ifdef HAVE_GST_ANALYTICS
    const gint entry = rmeta ? add_analytics_entries (rmeta, e, t) : -1;
    if (entry >= 0)
      roi->id = entry;
#else
    (void) t;
#endif
    gst_video_region_of_interest_meta_add_param (roi,
        region_structure (GST_MOTION_REGION_PARAM_NAME, e, FALSE));
  }
}

/* No motion is active any more. */
static void
end_motion (GstMvEvents * ev)
{
  ev->active = false;
  ev->start = ev->quiet_since = ev->last_motion_end = GST_CLOCK_TIME_NONE;
  ev->episode.clear ();
  ev->retracted.clear ();
  ev->untracked = false;
}

static void post_zone_event (GstMvEvents * ev, GstElement * element,
    const MvZoneEvent & e);

/* Every active zone stops with `reason` (posted when `element`). */
static void
end_zones (GstMvEvents * ev, GstElement * element, const gchar * reason)
{
  ev->zone_events.clear ();
  ev->watcher.reset (reason ? reason : "reset", &ev->zone_events);
  if (element)
    for (const MvZoneEvent & e : ev->zone_events)
      post_zone_event (ev, element, e);
}

void
gst_mv_events_reset (GstMvEvents * ev, GstElement * element,
    const gchar * reason)
{
  if (ev->active && element) {
    const GstClockTime end = GST_CLOCK_TIME_IS_VALID (ev->quiet_since)
        ? ev->quiet_since
        : ev->last_motion_end;
    post_stop (ev, element, ev->start, end, reason);
  }
  end_zones (ev, element, reason);
  end_motion (ev);
  ev->decision.reset ();
  ev->beyond_frames = 0;
  ev->counter.forget_tracks (); /* the decision's ids start again */
  if (ev->change)
    ev->change->reset ();
  ev->change_failed = false; /* a new stream tries again */
}

void
gst_mv_events_set_reach (GstMvEvents * ev, int reach_x, int reach_y)
{
  ev->reach_x = reach_x;
  ev->reach_y = reach_y;
}

gboolean
gst_mv_events_camera (GstMvEvents * ev, gboolean * beyond, gdouble * dx,
    gdouble * dy)
{
  *beyond = ev->decided && ev->decision.beyond_reach ();
  *dx = *dy = 0.0;
  if (ev->decided && ev->decision.judged ())
    ev->decision.centre_motion (dx, dy);
  return ev->decided;
}

/* Whether the decision's pixels are wanted with these settings. */
static bool
wants_pixels (const EvSettings & s)
{
  return s.decision == GST_MV_DECISION_TRACKS
      && (s.regions || s.events || s.region_messages);
}

void
gst_mv_events_defer_inband (GstMvEvents * ev, GPtrArray * deferred)
{
  ev->deferred = deferred;
}

void
gst_mv_events_push_deferred (GstElement * element, GPtrArray * deferred)
{
  if (!deferred || deferred->len == 0)
    return;
  GstPad * src = gst_element_get_static_pad (element, "src");
  for (guint i = 0; i < deferred->len; i++) {
    GstEvent * event = (GstEvent *) g_ptr_array_index (deferred, i);
    if (!src)
      gst_event_unref (event);
    else if (!gst_pad_push_event (src, event))
      GST_DEBUG_OBJECT (element, "deferred in-band event not taken downstream");
  }
  g_ptr_array_set_size (deferred, 0);
  if (src)
    gst_object_unref (src);
}

gboolean
gst_mv_events_wants_pixels (GstMvEvents * ev, GstElement * element)
{
  GST_OBJECT_LOCK (element);
  const bool wants = wants_pixels (ev->settings);
  GST_OBJECT_UNLOCK (element);
  return wants && !ev->change_failed;
}

gboolean
gst_mv_events_push_luma (GstMvEvents * ev, GstElement * element,
    const match::ImageView * luma, const match::DeviceImageView * device_luma,
    guint64 pixels, guint n_threads, match::Backend backend, int device)
{
  if (!gst_mv_events_wants_pixels (ev, element))
    return FALSE;

  /* The frame is pushed just before it is analysed: the stage keeps it,
   * the one before, the slow movers' reference and the background image
   * (mvdecision.h). */
  match::ChangeConfig c;
  c.width = luma ? luma->width : device_luma->width;
  c.height = luma ? luma->height : device_luma->height;
  c.scale = match::change_scale_for (c.width, c.height);
  c.history = 2 + kMvSlowHistory;
  c.background_every = kMvBackgroundEvery;
  const match::Backend where = backend == match::Backend::kCuda
      ? match::Backend::kCuda
      : match::Backend::kCpu;
  if (!ev->change || !(ev->change->config () == c)
      || ev->change_backend != where || ev->change_device != device) {
    ev->change.reset ();
    const match::Status st =
        match::ChangeDetector::create (where, c, &ev->change, device);
    if (!st) {
      /* Then the decision reads the field alone. */
      GST_WARNING_OBJECT (element, "no box refinement: %s",
          st.message ().c_str ());
      ev->change_failed = true;
      return FALSE;
    }
    ev->change_backend = where;
    ev->change_device = device;
  }
  ev->change_threads = n_threads;
  const match::Status st = luma
      ? ev->change->push (*luma, pixels, (int) n_threads)
      : ev->change->push_device (*device_luma, pixels);
  if (!st) {
    GST_WARNING_OBJECT (element, "box refinement: %s", st.message ().c_str ());
    return FALSE;
  }
  return TRUE;
}

void
gst_mv_events_sink_event (GstMvEvents * ev, GstElement * element,
    GstEvent * event)
{
  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      gst_mv_events_reset (ev, element, "flush");
      break;
    case GST_EVENT_STREAM_START:
      gst_mv_events_reset (ev, element, "stream-start");
      break;
    case GST_EVENT_EOS:
      gst_mv_events_reset (ev, element, "eos");
      break;
    default:
      break;
  }
}

/* Whether `v` holds `id`. */
static bool
holds (const std::vector<guint> & v, guint id)
{
  return std::find (v.begin (), v.end (), id) != v.end ();
}

/* The motion's tracks: those on the frame, and those the decision took
 * back on it. */
static void
note_tracks (GstMvEvents * ev, const std::vector<uint32_t> & retracted)
{
  for (const EvRegion & e : ev->regions) {
    if (!e.track_id)
      ev->untracked = true;
    else if (!holds (ev->episode, e.track_id))
      ev->episode.push_back (e.track_id);
  }
  for (uint32_t id : retracted)
    if (holds (ev->episode, id) && !holds (ev->retracted, id))
      ev->retracted.push_back (id);
}

/* One frame of the motion state machine (see the notes at the top);
 * `retracted`: the tracks the decision took back on it. */
static void
update_motion (GstMvEvents * ev, GstElement * element, const EvSettings & s,
    GstClockTime t, GstClockTime duration,
    const std::vector<uint32_t> & retracted)
{
  const guint n_regions = (guint) ev->regions.size ();
  if (ev->active || n_regions > 0)
    note_tracks (ev, retracted);
  if (n_regions > 0) {
    if (!ev->active) {
      ev->active = true;
      ev->start = t;
      /* The track that started it: the oldest on the frame. */
      guint track = 0;
      guint64 age = 0;
      for (const EvRegion & e : ev->regions)
        if (e.track_id && (track == 0 || e.age > age)) {
          track = e.track_id;
          age = e.age;
        }
      post_start (ev, element, t, n_regions, track);
    }
    ev->quiet_since = GST_CLOCK_TIME_NONE;
    ev->last_motion_end = GST_CLOCK_TIME_IS_VALID (duration) ? t + duration : t;
    return;
  }
  if (!ev->active)
    return;
  if (!GST_CLOCK_TIME_IS_VALID (ev->quiet_since))
    ev->quiet_since = t;
  const GstClockTime quiet = t >= ev->quiet_since ? t - ev->quiet_since : 0;
  const bool swaying = !ev->untracked && !ev->episode.empty ()
      && ev->retracted.size () == ev->episode.size ();
  if (swaying || quiet >= s.hold_off) {
    post_stop (ev, element, ev->start, ev->quiet_since,
        swaying ? "swaying" : "hold-off");
    end_motion (ev);
  }
}

/* A zone's motion-start or motion-stop: the global ones' structures with
 * the zone's name. */
static void
post_zone_event (GstMvEvents * ev, GstElement * element, const MvZoneEvent & e)
{
  const gchar * zone = ev->watcher.zones ()[e.zone].name.c_str ();
  GstStructure * s = e.start
      ? gst_structure_new (GST_MOTION_EVENT_START_NAME, "timestamp",
          G_TYPE_UINT64, (guint64) e.time, "regions", G_TYPE_INT, e.tracks,
          "track-id", G_TYPE_UINT, (guint) e.track, "zone", G_TYPE_STRING, zone,
          NULL)
      : gst_structure_new (GST_MOTION_EVENT_STOP_NAME, "timestamp",
          G_TYPE_UINT64, (guint64) e.time, "duration", G_TYPE_UINT64,
          (guint64) e.duration, "reason", G_TYPE_STRING, e.reason, "zone",
          G_TYPE_STRING, zone, NULL);
  post_and_push (ev, element, s);
}

/* The zones' motion on this frame, from its tracks. */
static void
watch_zones (GstMvEvents * ev, GstElement * element, GstClockTime t,
    guint64 hold_off, int width, int height)
{
  if (ev->watcher.zones ().empty ())
    return;
  ev->zone_events.clear ();
  ev->watcher.process (ev->points.data (), ev->points.size (), width, height, t,
      hold_off, &ev->zone_events);
  for (const MvZoneEvent & e : ev->zone_events)
    post_zone_event (ev, element, e);
}

/* The tracks' crossings of the lines on this frame: a line-crossed message
 * each, in-band too. */
static void
count_crossings (GstMvEvents * ev, GstElement * element, GstClockTime t,
    int width, int height)
{
  if (ev->counter.lines ().empty ())
    return;
  ev->crossings.clear ();
  ev->counter.process (ev->points.data (), ev->points.size (), width, height,
      &ev->crossings);
  for (const MvCrossing & c : ev->crossings) {
    GstStructure * st = gst_structure_new (GST_MOTION_EVENT_LINE_CROSSED_NAME,
        "timestamp", G_TYPE_UINT64, (guint64) t, "line", G_TYPE_STRING,
        ev->counter.lines ()[c.line].name.c_str (), "track-id", G_TYPE_UINT,
        (guint) c.track, "direction", G_TYPE_STRING,
        c.direction > 0 ? "positive" : "negative", "positive", G_TYPE_UINT64,
        (guint64) c.positive, "negative", G_TYPE_UINT64, (guint64) c.negative,
        NULL);
    post_and_push (ev, element, st);
  }
}

void
gst_mv_events_process (GstMvEvents * ev, GstElement * element, GstBuffer * buf,
    GstMotionVectorsMeta * meta, const GstSegment * segment, guint64 pixels,
    const MvChromaView * chroma)
{
  ev->decided = false;
  GST_OBJECT_LOCK (element);
  const EvSettings s = ev->settings;
  if (ev->st_mask_cookie != ev->mask_cookie) {
    ev->st_mask = ev->mask_rects;
    ev->st_mask_cookie = ev->mask_cookie;
  }
  if (ev->st_lines_cookie != ev->lines_cookie) {
    ev->counter.set_lines (ev->line_defs);
    ev->st_lines = ev->lines;
    ev->st_lines_cookie = ev->lines_cookie;
  }
  /* New zones: the active ones stop first ("zones"). */
  const bool new_zones = ev->st_zones_cookie != ev->zones_cookie;
  std::vector<MvZone> zone_defs;
  if (new_zones) {
    zone_defs = ev->zone_defs;
    ev->st_zones = ev->zones;
    ev->st_zones_cookie = ev->zones_cookie;
  }
  GST_OBJECT_UNLOCK (element);

  if (new_zones) {
    end_zones (ev, element, "zones");
    ev->watcher.set_zones (zone_defs);
  }
  if (!s.events && ev->active) {
    GST_DEBUG_OBJECT (element, "events turned off: forgetting the motion");
    gst_mv_events_reset (ev, NULL, NULL);
  }
  if (!s.events)
    end_zones (ev, NULL, NULL); /* no stale zone when they come back */
  if (!s.regions && !s.events && !s.region_messages)
    return;
  if (!meta || !gst_motion_vectors_meta_is_valid (meta))
    return;

  bool estimated = false;
  ev->blocks.resize (meta->n_vectors);
  /* decision=tracks reads a suppressed block as what it reports, zero
   * motion (its change is within the noise): it is still, and counts for
   * the camera's motion and the scene-wide rule. decision=blocks keeps
   * it out (with motion-threshold=0 it would move). */
  const guint32 invalid = s.decision == GST_MV_DECISION_BLOCKS
      ? (GST_MOTION_VECTOR_FLAG_NO_ESTIMATE | GST_MOTION_VECTOR_FLAG_SUPPRESSED)
      : GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
  for (guint i = 0; i < meta->n_vectors; i++) {
    GstMotionVector & v = meta->vectors[i];
    MvBlock & b = ev->blocks[i];
    v.flags &= ~GST_MOTION_VECTOR_FLAG_MOVING;
    const bool suppressed = v.flags & GST_MOTION_VECTOR_FLAG_SUPPRESSED;
    b.dx = suppressed ? 0.0f : v.dx;
    b.dy = suppressed ? 0.0f : v.dy;
    b.valid = !(v.flags & invalid);
    if (!(v.flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE))
      estimated = true;
  }
  /* No estimate at all (first frame after a reset): neither motion nor
   * quiet. */
  if (!estimated)
    return;

  MvBlockGrid grid;
  grid.frame_width = (int) meta->frame_width;
  grid.frame_height = (int) meta->frame_height;
  grid.block_width = (int) meta->block_width;
  grid.block_height = (int) meta->block_height;
  grid.columns = (int) meta->columns;
  grid.rows = (int) meta->rows;

  GstClockTime t = GST_CLOCK_TIME_NONE;
  if (segment && segment->format == GST_FORMAT_TIME
      && GST_BUFFER_PTS_IS_VALID (buf))
    t = gst_segment_to_running_time (segment, GST_FORMAT_TIME,
        GST_BUFFER_PTS (buf));

  ev->regions.clear ();
  if (s.decision == GST_MV_DECISION_BLOCKS) {
    MvRegionParams params;
    params.threshold = s.threshold;
    params.min_area = s.min_area;
    params.mask = ev->st_mask.data ();
    params.n_mask = ev->st_mask.size ();
    if (!ev->finder.find (grid, ev->blocks.data (), params, &ev->found))
      return;
    for (const MvRegion & r : ev->found) {
      EvRegion e;
      e.r = r;
      ev->regions.push_back (e);
    }
  } else {
    MvDecisionParams params;
    params.threshold = s.threshold;
    params.min_area = s.min_area;
    params.mask = ev->st_mask.data ();
    params.n_mask = ev->st_mask.size ();
    params.sensitivity = s.sensitivity;
    params.step = meta->precision;
    params.forward = meta->direction == GST_MOTION_VECTORS_DIRECTION_FORWARD;
    params.reach_x = ev->reach_x;
    params.reach_y = ev->reach_y;
    const GstClockTime dur = GST_BUFFER_DURATION (buf);
    const bool have_pixels = ev->change && pixels != G_MAXUINT64 && pixels > 0;
    if (have_pixels)
      ev->refiner.set (ev->change.get (), pixels, params.forward,
          (int) ev->change_threads);
    ev->refiner.set_chroma (chroma);
    const bool decided = ev->decision.process (grid, ev->blocks.data (), params,
        GST_CLOCK_TIME_IS_VALID (t) ? (uint64_t) t : UINT64_MAX,
        GST_CLOCK_TIME_IS_VALID (dur) ? (uint64_t) dur : 0,
        have_pixels ? &ev->refiner : nullptr);
    ev->refiner.set_chroma (nullptr); /* unmapped after this call */
    if (!decided)
      return;
    ev->decided = true;
    if (ev->decision.beyond_reach () && ev->beyond_frames++ == 0)
      GST_ELEMENT_WARNING (element, LIBRARY, SETTINGS,
          ("The camera moves further between frames than the search "
           "reaches: raise search-range"),
          ("at %" GST_TIME_FORMAT " over a quarter of the vectors lie at the "
           "edge of the search (+-%d x +-%d px); such frames are not "
           "judged (no regions, motion neither starts nor stops), and "
           "blockmatchme doubles its search while they come "
           "(auto-search-range)",
              GST_TIME_ARGS (t), ev->reach_x, ev->reach_y));
    else if (ev->decision.beyond_reach ())
      GST_DEBUG_OBJECT (element,
          "%" G_GUINT64_FORMAT " frame(s) beyond the "
          "search's reach",
          ev->beyond_frames);
    const std::vector<uint8_t> & moving = ev->decision.moving ();
    for (guint i = 0; i < meta->n_vectors && i < moving.size (); i++)
      if (moving[i])
        meta->vectors[i].flags |= GST_MOTION_VECTOR_FLAG_MOVING;
    const MvGlobalMotion & gm = ev->decision.global ();
    gfloat affine[6];
    for (int k = 0; k < 6; k++)
      affine[k] = (gfloat) gm.a[k];
    gst_motion_vectors_meta_set_global_motion (meta, affine);
    for (const MvTrackedRegion & tr : ev->decision.regions ()) {
      EvRegion e;
      e.r = tr.region;
      e.track_id = tr.track_id;
      e.frames = tr.frames;
      e.age = tr.age;
      e.vx = tr.vx;
      e.vy = tr.vy;
      ev->regions.push_back (e);
    }
  }

  /* Which zones each region is in (its box centre), for its ROI parameter
   * and the regions message. */
  for (EvRegion & e : ev->regions)
    for (const MvZone & z : ev->watcher.zones ())
      if (mv_zone_contains (z, (e.r.box.x + e.r.box.w * 0.5) / grid.frame_width,
              (e.r.box.y + e.r.box.h * 0.5) / grid.frame_height)) {
        if (!e.zones.empty ())
          e.zones += ',';
        e.zones += z.name;
      }
  GST_LOG_OBJECT (element, "%" GST_TIME_FORMAT ": %u region(s)",
      GST_TIME_ARGS (t), (guint) ev->regions.size ());
  if (s.regions && !ev->regions.empty ()) {
    if (gst_buffer_is_writable (buf))
      attach_rois (buf, ev->regions, t);
    else
      GST_WARNING_OBJECT (element, "buffer not writable: no ROI metas");
  }
  /* The zones and lines, for mvoverlay downstream (mvrulesmeta.h). */
  if ((!ev->st_zones.empty () || !ev->st_lines.empty ())
      && gst_buffer_is_writable (buf) && gst_mv_rules_meta_get_info ()) {
    GstCustomMeta * rules =
        gst_buffer_add_custom_meta (buf, GST_MV_RULES_META_NAME);
    if (rules)
      gst_structure_set (gst_custom_meta_get_structure (rules), "zones",
          G_TYPE_STRING, ev->st_zones.c_str (), "lines", G_TYPE_STRING,
          ev->st_lines.c_str (), NULL);
  }
  /* motion-start comes before the regions of the frame that starts it. A
   * frame the decision did not judge (a scene-wide change: lights, an IR
   * switch; a camera shaking beyond the search) neither starts nor ends
   * motion, as it ages no track. */
  const bool judged =
      s.decision == GST_MV_DECISION_BLOCKS || ev->decision.judged ();
  /* With decision=blocks the list is stale, but such a motion's regions
   * have no track and it is never taken back (note_tracks ()). */
  if (s.events && GST_CLOCK_TIME_IS_VALID (t) && judged)
    update_motion (ev, element, s, t, GST_BUFFER_DURATION (buf),
        ev->decision.retracted ());
  if (s.events && judged && s.decision == GST_MV_DECISION_TRACKS
      && GST_CLOCK_TIME_IS_VALID (t)) {
    /* The tracks of this frame, once for the lines and the zones. */
    ev->points.clear ();
    for (const EvRegion & e : ev->regions)
      if (e.track_id)
        ev->points.push_back (
            MvTrackPoint{ e.track_id, e.r.box.x + e.r.box.w * 0.5,
                e.r.box.y + e.r.box.h * 0.5, e.vx, e.vy });
    count_crossings (ev, element, t, grid.frame_width, grid.frame_height);
    watch_zones (ev, element, t, s.hold_off, grid.frame_width,
        grid.frame_height);
  }
  if (s.region_messages && !ev->regions.empty ())
    post_regions (element, t, ev->regions);
}

void
gst_mv_events_process_host (GstMvEvents * ev, GstElement * element,
    GstBuffer * buf, GstMotionVectorsMeta * meta, const GstSegment * segment,
    const match::ImageView * luma, guint64 * next_pixels, guint n_threads)
{
  guint64 pixels = G_MAXUINT64;

  if (luma && gst_mv_events_wants_pixels (ev, element)) {
    const guint64 n = (*next_pixels)++;
    if (gst_mv_events_push_luma (ev, element, luma, NULL, n, n_threads,
            match::Backend::kCpu, 0))
      pixels = n;
  }
  gst_mv_events_process (ev, element, buf, meta, segment, pixels);
}
