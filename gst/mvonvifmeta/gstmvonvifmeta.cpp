/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
/**
 * SECTION:element-mvonvifmeta
 * @title: mvonvifmeta
 * @short_description: motion as ONVIF analytics metadata (tt:MetadataStream)
 *
 * Turns each frame of `blockmatchme` or `pocme` (with `regions=true` and
 * `events=true`: the tracked decision) into an ONVIF metadata document,
 * the format cameras send in their RTSP metadata track and that NVRs read
 * (`application/x-onvif-metadata`, UTF-8 XML, one document per buffer):
 *
 * - a `tt:Frame` with the frame's time (`UtcTime`), one `tt:Object` per
 *   tracked region (`ObjectId` = the track's id, stable while the object
 *   is followed; its `BoundingBox` and `CenterOfGravity` in ONVIF's
 *   normalised coordinates; its velocity as `mv:Velocity` in the
 *   appearance's extension) and the moving blocks as `MotionInCells` (one
 *   cell per block of the field, the estimator's MOVING flags; PackBits,
 *   then base64);
 * - the motion events (in-band `motion-start` / `motion-stop`) as the
 *   CellMotionDetector's `tns1:RuleEngine/CellMotionDetector/Motion`
 *   messages (`IsMotion`), the first document of a stream carrying the
 *   initial state (`Initialized`, no motion); a zone's (the estimator's
 *   `zones`) the same with the zone's name as the rule; the crossings of
 *   the estimator's `lines` (in-band `line-crossed`) as the LineDetector's
 *   `tns1:RuleEngine/LineDetector/Crossed` (the line's name as the rule,
 *   the track's `ObjectId`); each tracked object's being in each zone as
 *   the FieldDetector's `tns1:RuleEngine/FieldDetector/ObjectsInside`
 *   (the zone as the rule, the track's `ObjectId` as the key,
 *   `IsInside`).
 *
 * `UtcTime` is the frame's reference timestamp when it has one
 * (#GstReferenceTimestampMeta of `timestamp/x-unix` or `timestamp/x-ntp`,
 * as `rtspsrc add-reference-timestamp-meta=true` gives), else the
 * pipeline clock's time of the frame (base time plus running time) in
 * UTC. Output buffers take the frame's timestamps; an event waits for the
 * next frame's document, or at EOS leaves in a document of its own,
 * timestamped at the end of the last frame.
 * docs/onvif.md gives the format, the RTP payloader and an RTSP server.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! decodebin ! videoconvert ! \
 *     blockmatchme regions=true events=true ! mvonvifmeta ! \
 *     filesink location=motion.xml
 * ]|
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvonvifmeta.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include <gst/motionvectors/motionvectors.h>
#include <gst/video/video.h>

#include "common/gstmatchframe.h"
#include "common/gstmatchsettings.h"
#include "common/mvonvif.h"
#include "common/mvrulesmeta.h"
#include "common/mvzones.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_onvif_meta_debug);
#define GST_CAT_DEFAULT gst_mv_onvif_meta_debug

#define SRC_CAPS "application/x-onvif-metadata, encoding = (string) utf8"

#define DEFAULT_PROP_OBJECTS TRUE
#define DEFAULT_PROP_CELLS TRUE
#define DEFAULT_PROP_EVENTS TRUE
#define DEFAULT_PROP_SOURCE_TOKEN "VideoSourceConfiguration"
#define DEFAULT_PROP_ANALYTICS_TOKEN "VideoAnalyticsConfiguration"
#define DEFAULT_PROP_RULE "MotionDetector"

/* NTP's epoch (1900) to Unix's (1970), seconds. */
#define NTP_TO_UNIX_SECONDS G_GUINT64_CONSTANT (2208988800)

enum
{
  PROP_0,
  PROP_OBJECTS,
  PROP_CELLS,
  PROP_EVENTS,
  PROP_SOURCE_TOKEN,
  PROP_ANALYTICS_TOKEN,
  PROP_RULE,
};

/* Protected by the object lock. */
struct Settings
{
  gboolean objects;
  gboolean cells;
  gboolean events;
};
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

/* The three tokens of the events' tt:Source. */
struct Tokens
{
  gchar * source;
  gchar * analytics;
  gchar * rule;
};

/* One object's ObjectsInside for one zone, as last reported. */
struct FieldState
{
  guint object;
  std::string zone;
  gboolean inside;
  gint64 last_seen; /* UTC, ns */
};

struct _GstMvOnvifMeta
{
  GstBaseTransform parent;

  Settings settings;
  Tokens tokens;       /* object lock */
  guint tokens_cookie; /* bumped on every change */

  /* Streaming thread. */
  GString * doc;
  Tokens st_tokens;
  guint st_tokens_cookie;
  gint fps_n, fps_d;     /* the input's frame rate, 0/1 when unknown */
  gboolean initialized;  /* the initial state was reported */
  GstClockTime last_end; /* PTS + duration of the last frame's document */
  /* Pending in-band events, in order, and their rules' names (a line's,
   * a zone's; an event's `rule` is non-NULL when it has one, pointed at
   * its name when it is written). */
  std::vector<MvOnvifEvent> * pending;
  std::vector<std::string> * pending_rules;
  /* The estimator's zones as last seen on a frame (its rules meta), their
   * names, and those not yet reported (their initial state is due). */
  std::string * zones_text;
  std::vector<std::string> *zone_names, *new_zones;
  std::vector<MvOnvifObject> * objects;
  /* Each object's zones (its region's "zones", NULL when none): the
   * frame's strings, valid while its document is written. */
  std::vector<const gchar *> * object_zones;
  /* Whether each object reported is inside each zone (the FieldDetector's
   * ObjectsInside), and when it was last seen. */
  std::vector<FieldState> * fields;
  std::vector<uint8_t> *moving, *scratch, *packed;
  /* UTC of running time 0, ns since the Unix epoch; valid until a flush. */
  gboolean have_epoch;
  gint64 epoch;
  gboolean logged_no_meta;
};

#define gst_mv_onvif_meta_parent_class parent_class
G_DEFINE_TYPE (GstMvOnvifMeta, gst_mv_onvif_meta, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (mvonvifmeta, "mvonvifmeta", GST_RANK_NONE,
    GST_TYPE_MV_ONVIF_META);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

static void gst_mv_onvif_meta_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_mv_onvif_meta_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_mv_onvif_meta_finalize (GObject * object);
static gboolean gst_mv_onvif_meta_start (GstBaseTransform * trans);
static gboolean gst_mv_onvif_meta_stop (GstBaseTransform * trans);
static GstCaps * gst_mv_onvif_meta_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_mv_onvif_meta_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_mv_onvif_meta_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn
gst_mv_onvif_meta_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);

static void
gst_mv_onvif_meta_class_init (GstMvOnvifMetaClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_mv_onvif_meta_set_property;
  gobject_class->get_property = gst_mv_onvif_meta_get_property;
  gobject_class->finalize = gst_mv_onvif_meta_finalize;

  gst_match_settings_install (gobject_class, PROP_OBJECTS, SETTING (objects),
      g_param_spec_boolean ("objects", "Objects",
          "Write each tracked region as a tt:Object (ObjectId = track id, "
          "box, centre, velocity)",
          DEFAULT_PROP_OBJECTS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_CELLS, SETTING (cells),
      g_param_spec_boolean ("cells", "Cells",
          "Write the moving blocks (the estimator's MOVING flags) as the "
          "frame's MotionInCells, one cell per block",
          DEFAULT_PROP_CELLS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_EVENTS, SETTING (events),
      g_param_spec_boolean ("events", "Events",
          "Write motion-start / motion-stop as the CellMotionDetector's "
          "Motion messages (IsMotion), line crossings as the LineDetector's "
          "Crossed and the objects in the zones as the FieldDetector's "
          "ObjectsInside",
          DEFAULT_PROP_EVENTS, rw_playing));
  g_object_class_install_property (gobject_class, PROP_SOURCE_TOKEN,
      g_param_spec_string ("source-token", "Video source token",
          "VideoSourceConfigurationToken of the events' source",
          DEFAULT_PROP_SOURCE_TOKEN, rw_playing));
  g_object_class_install_property (gobject_class, PROP_ANALYTICS_TOKEN,
      g_param_spec_string ("analytics-token", "Video analytics token",
          "VideoAnalyticsConfigurationToken of the events' source",
          DEFAULT_PROP_ANALYTICS_TOKEN, rw_playing));
  g_object_class_install_property (gobject_class, PROP_RULE,
      g_param_spec_string ("rule", "Rule",
          "Name of the motion rule in the events' source", DEFAULT_PROP_RULE,
          rw_playing));

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class, "ONVIF motion metadata",
      "Filter/Metadata/Video",
      "Turns moving blocks, tracked regions and motion events into ONVIF "
      "analytics metadata (tt:MetadataStream XML), one document per frame",
      "The gst-motion authors");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_mv_onvif_meta_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_mv_onvif_meta_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_mv_onvif_meta_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_mv_onvif_meta_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_mv_onvif_meta_sink_event);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_mv_onvif_meta_generate_output);
  trans_class->passthrough_on_same_caps = FALSE;

  GST_DEBUG_CATEGORY_INIT (gst_mv_onvif_meta_debug, "mvonvifmeta", 0,
      "ONVIF motion metadata");
}

static void
tokens_clear (Tokens * t)
{
  g_clear_pointer (&t->source, g_free);
  g_clear_pointer (&t->analytics, g_free);
  g_clear_pointer (&t->rule, g_free);
}

static void
gst_mv_onvif_meta_init (GstMvOnvifMeta * self)
{
  gst_match_settings_init (G_OBJECT_GET_CLASS (self), &self->settings);
  self->tokens.source = g_strdup (DEFAULT_PROP_SOURCE_TOKEN);
  self->tokens.analytics = g_strdup (DEFAULT_PROP_ANALYTICS_TOKEN);
  self->tokens.rule = g_strdup (DEFAULT_PROP_RULE);
  self->tokens_cookie = 1;
  self->st_tokens = Tokens{ NULL, NULL, NULL };
  self->st_tokens_cookie = 0;
  self->doc = NULL;
  self->pending = new std::vector<MvOnvifEvent> ();
  self->pending_rules = new std::vector<std::string> ();
  self->zones_text = new std::string ();
  self->zone_names = new std::vector<std::string> ();
  self->new_zones = new std::vector<std::string> ();
  self->objects = new std::vector<MvOnvifObject> ();
  self->object_zones = new std::vector<const gchar *> ();
  self->fields = new std::vector<FieldState> ();
  self->moving = new std::vector<uint8_t> ();
  self->scratch = new std::vector<uint8_t> ();
  self->packed = new std::vector<uint8_t> ();
}

static void
gst_mv_onvif_meta_finalize (GObject * object)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (object);

  tokens_clear (&self->tokens);
  tokens_clear (&self->st_tokens);
  if (self->doc)
    g_string_free (self->doc, TRUE);
  delete self->pending;
  delete self->pending_rules;
  delete self->zones_text;
  delete self->zone_names;
  delete self->new_zones;
  delete self->objects;
  delete self->object_zones;
  delete self->fields;
  delete self->moving;
  delete self->scratch;
  delete self->packed;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static gchar **
token_field (GstMvOnvifMeta * self, guint prop_id)
{
  return prop_id == PROP_SOURCE_TOKEN   ? &self->tokens.source
      : prop_id == PROP_ANALYTICS_TOKEN ? &self->tokens.analytics
      : prop_id == PROP_RULE            ? &self->tokens.rule
                                        : NULL;
}

static void
gst_mv_onvif_meta_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (object);

  GST_OBJECT_LOCK (self);
  gchar ** token = token_field (self, prop_id);
  if (token) {
    g_free (*token);
    *token = g_value_dup_string (value);
    self->tokens_cookie++;
  } else if (!gst_match_settings_set (&self->settings, pspec, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_onvif_meta_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (object);

  GST_OBJECT_LOCK (self);
  gchar ** token = token_field (self, prop_id);
  if (token)
    g_value_set_string (value, *token);
  else if (!gst_match_settings_get (&self->settings, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

/* The settings for one document, and the tokens when they changed (copied
 * then only: no allocation per frame). */
static Settings
snapshot_settings (GstMvOnvifMeta * self)
{
  GST_OBJECT_LOCK (self);
  const Settings s = self->settings;
  if (self->st_tokens_cookie != self->tokens_cookie) {
    tokens_clear (&self->st_tokens);
    self->st_tokens.source = g_strdup (self->tokens.source);
    self->st_tokens.analytics = g_strdup (self->tokens.analytics);
    self->st_tokens.rule = g_strdup (self->tokens.rule);
    self->st_tokens_cookie = self->tokens_cookie;
  }
  GST_OBJECT_UNLOCK (self);
  return s;
}

static void
clear_pending (GstMvOnvifMeta * self)
{
  self->pending->clear ();
  self->pending_rules->clear ();
}

static gboolean
gst_mv_onvif_meta_start (GstBaseTransform * trans)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (trans);

  if (!self->doc)
    self->doc = g_string_sized_new (4096);
  self->fps_n = 0;
  self->fps_d = 1;
  self->initialized = FALSE;
  self->zones_text->clear ();
  self->zone_names->clear ();
  self->new_zones->clear ();
  self->fields->clear ();
  self->last_end = GST_CLOCK_TIME_NONE;
  clear_pending (self);
  self->have_epoch = FALSE;
  self->epoch = 0;
  self->logged_no_meta = FALSE;
  return TRUE;
}

static gboolean
gst_mv_onvif_meta_stop (GstBaseTransform * trans)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (trans);

  if (self->doc)
    g_string_free (self->doc, TRUE);
  self->doc = NULL;
  clear_pending (self);
  return TRUE;
}

static GstCaps *
gst_mv_onvif_meta_transform_caps (GstBaseTransform *, GstPadDirection direction,
    GstCaps *, GstCaps * filter)
{
  /* Any video in (its metas are read), ONVIF metadata out. */
  return gst_match_meta_reader_caps (direction, &src_template, filter);
}

/* The input's frame rate, for the objects' velocities per second. */
static gboolean
gst_mv_onvif_meta_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps *)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (trans);
  gint n = 0, d = 1;

  if (!gst_structure_get_fraction (gst_caps_get_structure (incaps, 0),
          "framerate", &n, &d)
      || n <= 0 || d <= 0) {
    n = 0;
    d = 1;
  }
  self->fps_n = n;
  self->fps_d = d;
  return TRUE;
}

/* UTC of a running time, ns since the Unix epoch: the pipeline clock's
 * (base time plus running time) read as UTC, fixed at the first frame
 * after a start or a flush, so that the documents' times keep the
 * buffers' spacing. Without a clock yet (prerolling), the first frame is
 * "now". */
static gint64
utc_of_running_time (GstMvOnvifMeta * self, GstClockTime running_time)
{
  if (!self->have_epoch) {
    const gint64 now = g_get_real_time () * 1000;
    GstClock * clock = gst_element_get_clock (GST_ELEMENT (self));
    if (clock) {
      const GstClockTime clock_now = gst_clock_get_time (clock);
      const GstClockTime base = gst_element_get_base_time (GST_ELEMENT (self));
      self->epoch = now - (gint64) clock_now + (gint64) base;
      gst_object_unref (clock);
    } else {
      self->epoch = now
          - (GST_CLOCK_TIME_IS_VALID (running_time) ? (gint64) running_time
                                                    : 0);
    }
    self->have_epoch = TRUE;
  }
  return self->epoch
      + (GST_CLOCK_TIME_IS_VALID (running_time) ? (gint64) running_time : 0);
}

/* The frame's UTC: its reference timestamp (Unix or NTP epoch) when it
 * has one, else the clock's. */
static gint64
frame_utc (GstMvOnvifMeta * self, GstBuffer * buf, GstClockTime running_time)
{
  static GstCaps *unix_caps = NULL, *ntp_caps = NULL;
  if (g_once_init_enter (&unix_caps)) {
    ntp_caps = gst_caps_new_empty_simple ("timestamp/x-ntp");
    GST_MINI_OBJECT_FLAG_SET (ntp_caps, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    GstCaps * c = gst_caps_new_empty_simple ("timestamp/x-unix");
    GST_MINI_OBJECT_FLAG_SET (c, GST_MINI_OBJECT_FLAG_MAY_BE_LEAKED);
    g_once_init_leave (&unix_caps, c);
  }
  GstReferenceTimestampMeta * m =
      gst_buffer_get_reference_timestamp_meta (buf, unix_caps);
  if (m && GST_CLOCK_TIME_IS_VALID (m->timestamp))
    return (gint64) m->timestamp;
  m = gst_buffer_get_reference_timestamp_meta (buf, ntp_caps);
  if (m && GST_CLOCK_TIME_IS_VALID (m->timestamp)
      && m->timestamp >= NTP_TO_UNIX_SECONDS * GST_SECOND)
    return (gint64) (m->timestamp - NTP_TO_UNIX_SECONDS * GST_SECOND);
  return utc_of_running_time (self, running_time);
}

/* The tracked regions of `buf` as objects (those without a track, from
 * decision=blocks, have no stable id and are left out). */
static void
collect_objects (GstMvOnvifMeta * self, GstBuffer * buf)
{
  const gdouble fps =
      self->fps_n > 0 ? (gdouble) self->fps_n / self->fps_d : 0.0;
  self->objects->clear ();
  self->object_zones->clear ();
  gpointer state = NULL;
  GstMeta * m;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta * roi = (GstVideoRegionOfInterestMeta *) m;
    GstMotionRegion r;
    if (!gst_motion_region_from_roi_meta (roi, &r) || r.track_id == 0)
      continue;
    const GstStructure * p = gst_video_region_of_interest_meta_get_param (roi,
        GST_MOTION_REGION_PARAM_NAME);
    self->object_zones->push_back (gst_structure_get_string (p, "zones"));
    MvOnvifObject o;
    o.id = r.track_id;
    o.x = r.x;
    o.y = r.y;
    o.w = r.w;
    o.h = r.h;
    o.has_velocity = fps > 0.0;
    o.vx = r.vx * fps;
    o.vy = r.vy * fps;
    self->objects->push_back (o);
  }
}

/* The events' source: the streaming thread's copy of the tokens. */
static MvOnvifTokens
event_tokens (GstMvOnvifMeta * self)
{
  return { self->st_tokens.source, self->st_tokens.analytics,
    self->st_tokens.rule };
}

/* Whether `name` is one of the comma-separated `names`. */
static gboolean
names_hold (const gchar * names, const std::string & name)
{
  for (const gchar * at = names; at && *at;) {
    const gchar * end = strchr (at, ',');
    const size_t len = end ? (size_t) (end - at) : strlen (at);
    if (len == name.size () && name.compare (0, len, at, len) == 0)
      return TRUE;
    at = end ? end + 1 : NULL;
  }
  return FALSE;
}

/* The FieldDetector's ObjectsInside of the frame's objects in each zone,
 * as ONVIF's core specification describes it: an object's first report
 * in a zone "Initialized" (inside or not), "Changed" when it enters or
 * leaves, "Deleted" once it has not been seen for kFieldForget (a track
 * the estimator holds through a frame or two without a region does not
 * come and go) or its zone is gone. */
static const gint64 kFieldForget = GST_SECOND;

static void
append_fields (GstMvOnvifMeta * self, gint64 utc)
{
  const MvOnvifTokens tokens = event_tokens (self);
  std::vector<FieldState> & fields = *self->fields;
  MvOnvifEvent e;
  e.unix_ns = utc;
  e.field = TRUE;
  for (size_t k = 0; k < self->objects->size (); k++) {
    const guint object = (*self->objects)[k].id;
    for (const std::string & zone : *self->zone_names) {
      const gboolean inside = names_hold ((*self->object_zones)[k], zone);
      auto it = std::find_if (fields.begin (), fields.end (),
          [&] (const FieldState & f) {
            return f.object == object && f.zone == zone;
          });
      e.object = object;
      e.rule = zone.c_str ();
      e.inside = inside;
      e.initialized = it == fields.end ();
      if (e.initialized)
        fields.push_back (FieldState{ object, zone, inside, utc });
      else
        it->last_seen = utc;
      if (e.initialized || it->inside != inside)
        mv_onvif_append_event (self->doc, e, tokens);
      if (!e.initialized)
        it->inside = inside;
    }
  }
  e.initialized = FALSE;
  e.deleted = TRUE;
  for (size_t k = 0; k < fields.size ();) {
    const FieldState & f = fields[k];
    const gboolean zone_kept =
        std::find (self->zone_names->begin (), self->zone_names->end (), f.zone)
        != self->zone_names->end ();
    if (zone_kept && utc - f.last_seen < kFieldForget) {
      k++;
      continue;
    }
    e.object = f.object;
    e.rule = f.zone.c_str ();
    mv_onvif_append_event (self->doc, e, tokens);
    fields.erase (fields.begin () + k);
  }
}

/* The zones of `buf`'s rules meta: a zone not seen before (on the
 * stream's first frame with zones, or added since) is due its initial
 * state. Parsed only when the zones change. */
static void
watch_zones (GstMvOnvifMeta * self, GstBuffer * buf)
{
  const GstStructure * rules = gst_mv_rules_meta_get (buf);
  const gchar * text = rules ? gst_structure_get_string (rules, "zones") : NULL;
  if (!text)
    text = "";
  if (*self->zones_text == text)
    return;
  *self->zones_text = text;
  std::vector<MvZone> zones;
  std::string error;
  if (*text && !mv_zones_parse (text, &zones, &error))
    zones.clear (); /* the estimator refuses such zones: not expected */
  std::vector<std::string> names;
  for (const MvZone & z : zones) {
    if (std::find (self->zone_names->begin (), self->zone_names->end (), z.name)
        == self->zone_names->end ())
      self->new_zones->push_back (z.name);
    names.push_back (z.name);
  }
  self->zone_names->swap (names);
}

/* The events waiting (the initial states first: the stream's, then each
 * new zone's) into the document. */
static void
append_events (GstMvOnvifMeta * self, gint64 utc)
{
  const MvOnvifTokens tokens = event_tokens (self);
  MvOnvifEvent init;
  init.unix_ns = utc;
  init.initialized = TRUE;
  if (!self->pending->empty ())
    init.unix_ns = std::min (utc, self->pending->front ().unix_ns);
  if (!self->initialized) {
    mv_onvif_append_event (self->doc, init, tokens);
    self->initialized = TRUE;
  }
  for (const std::string & zone : *self->new_zones) {
    init.rule = zone.c_str ();
    mv_onvif_append_event (self->doc, init, tokens);
  }
  self->new_zones->clear ();
  size_t rule = 0;
  for (MvOnvifEvent e : *self->pending) {
    if (e.rule)
      e.rule = (*self->pending_rules)[rule++].c_str ();
    mv_onvif_append_event (self->doc, e, tokens);
  }
  clear_pending (self);
}

static GstBuffer *
document_buffer (GstMvOnvifMeta * self)
{
  mv_onvif_end (self->doc);
  return gst_buffer_new_memdup (self->doc->str, self->doc->len);
}

static GstFlowReturn
gst_mv_onvif_meta_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (trans);
  GstBuffer * in = trans->queued_buf;

  trans->queued_buf = NULL;
  *outbuf = NULL;
  if (!in)
    return GST_FLOW_OK;
  if (G_UNLIKELY (!self->doc)) {
    gst_buffer_unref (in);
    GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL), ("not started"));
    return GST_FLOW_ERROR;
  }
  const GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (in);
  if (!meta || !gst_motion_vectors_meta_is_valid (meta)) {
    if (!self->logged_no_meta) {
      GST_WARNING_OBJECT (self,
          "buffer %" GST_PTR_FORMAT " has no (valid) "
          "motion-vector meta: no document (logged once)",
          in);
      self->logged_no_meta = TRUE;
    }
    gst_buffer_unref (in);
    return GST_FLOW_OK;
  }

  const Settings s = snapshot_settings (self);
  const GstClockTime pts = GST_BUFFER_PTS (in);
  GstClockTime rt = GST_CLOCK_TIME_NONE;
  if (trans->segment.format == GST_FORMAT_TIME && GST_CLOCK_TIME_IS_VALID (pts))
    rt = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, pts);
  const gint64 utc = frame_utc (self, in, rt);

  /* The objects: for the frame, and for the zones' ObjectsInside. */
  collect_objects (self, in);
  /* The cells: the estimator's decision (MOVING flags), when it made one
   * (regions or events on, decision=tracks). */
  const gboolean decided =
      gst_motion_vectors_meta_get_global_motion (meta, 0.0, 0.0, NULL, NULL);
  const gboolean cells = s.cells && decided;
  if (cells) {
    self->moving->resize (meta->n_vectors);
    for (guint i = 0; i < meta->n_vectors; i++)
      (*self->moving)[i] =
          (meta->vectors[i].flags & GST_MOTION_VECTOR_FLAG_MOVING) ? 1 : 0;
  }

  mv_onvif_begin (self->doc);
  mv_onvif_append_frame (self->doc, utc, meta->frame_width, meta->frame_height,
      self->objects->data (), s.objects ? (guint) self->objects->size () : 0,
      cells ? self->moving->data () : NULL, meta->columns, meta->rows,
      self->scratch, self->packed);
  watch_zones (self, in);
  if (s.events) {
    append_events (self, utc);
    append_fields (self, utc);
  } else {
    clear_pending (self);
    self->fields->clear ();
  }

  GstBuffer * out = document_buffer (self);
  GST_BUFFER_PTS (out) = pts;
  GST_BUFFER_DTS (out) = GST_BUFFER_DTS (in);
  GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (in);
  if (GST_BUFFER_IS_DISCONT (in))
    GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_DISCONT);
  if (GST_CLOCK_TIME_IS_VALID (pts))
    self->last_end = pts
        + (GST_BUFFER_DURATION_IS_VALID (in) ? GST_BUFFER_DURATION (in) : 0);
  gst_buffer_unref (in);
  *outbuf = out;
  return GST_FLOW_OK;
}

/* An in-band motion-start / motion-stop (the element's, or a zone's) or
 * line-crossed: its time and what it says, for the next document (the
 * line's or zone's name beside, in pending_rules). */
static void
queue_event (GstMvOnvifMeta * self, const GstStructure * st)
{
  GstClockTime ts = GST_CLOCK_TIME_NONE;
  if (!gst_structure_get_uint64 (st, "timestamp", &ts))
    ts = GST_CLOCK_TIME_NONE;
  const gboolean start =
      gst_structure_has_name (st, GST_MOTION_EVENT_START_NAME);
  MvOnvifEvent e;
  e.unix_ns = utc_of_running_time (self, ts);
  e.is_motion = start;
  const gchar * rule = gst_structure_get_string (st, "zone");
  if (gst_structure_has_name (st, GST_MOTION_EVENT_LINE_CROSSED_NAME)) {
    rule = gst_structure_get_string (st, "line");
    if (!rule || !gst_structure_get_uint (st, "track-id", &e.object))
      return;
    e.crossing = TRUE;
  }
  if (rule) {
    self->pending_rules->emplace_back (rule);
    e.rule = ""; /* its name is pending_rules' */
  }
  GST_DEBUG_OBJECT (self, "%s at %" GST_TIME_FORMAT,
      gst_structure_get_name (st), GST_TIME_ARGS (ts));
  self->pending->push_back (e);
}

/* At EOS: the events no frame took, in a document of their own. */
static void
push_pending_events (GstMvOnvifMeta * self)
{
  GstBaseTransform * trans = GST_BASE_TRANSFORM (self);
  if (self->pending->empty () || !self->doc)
    return;
  const Settings s = snapshot_settings (self);
  if (!s.events) {
    clear_pending (self);
    return;
  }
  mv_onvif_begin (self->doc);
  append_events (self, self->pending->back ().unix_ns);
  GstBuffer * out = document_buffer (self);
  /* After the last frame's (its end): a payloader's timestamp moves on. */
  GST_BUFFER_PTS (out) = self->last_end;
  const GstFlowReturn ret =
      gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (trans), out);
  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "pushing the last events: %s",
        gst_flow_get_name (ret));
}

static gboolean
gst_mv_onvif_meta_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstMvOnvifMeta * self = GST_MV_ONVIF_META (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CUSTOM_DOWNSTREAM: {
      const GstStructure * st = gst_event_get_structure (event);
      if (st
          && (gst_structure_has_name (st, GST_MOTION_EVENT_START_NAME)
              || gst_structure_has_name (st, GST_MOTION_EVENT_STOP_NAME)
              || gst_structure_has_name (st,
                  GST_MOTION_EVENT_LINE_CROSSED_NAME)))
        queue_event (self, st);
      break;
    }
    case GST_EVENT_FLUSH_STOP:
      /* A new base time may follow: the clock's UTC is read again. */
      self->have_epoch = FALSE;
      break;
    case GST_EVENT_EOS:
      push_pending_events (self);
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}
