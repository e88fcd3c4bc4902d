/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-mvmetastream
 * @title: mvmetastream
 *
 * Turns the motion data of a video stream into a metadata stream: one
 * JSON object per frame (its #GstMotionVectorsMeta, in a compact form, and
 * its "motion" region metas) and one per motion event (motion-start,
 * motion-stop), each in its own buffer with caps
 * `application/x-json, format=jsonl, schema=gst-motion, version=2`.
 * Every buffer is one line (the object and a "\n"), so the stream can go
 * to a file, a socket, an appsink or `mvmqttsink` as it is. The schema is
 * docs/metadata-stream.md. A downstream that accepts only `version=1`
 * (e.g. a capsfilter) gets the version 1 layout: the version is
 * negotiated, 2 when downstream takes either.
 *
 * Frame buffers keep the PTS, DTS and duration of the video frame they
 * describe. Video buffers without a #GstMotionVectorsMeta produce nothing.
 * The events come in-band from `blockmatchme` / `pocme` with `events=true`
 * (a serialized custom downstream event, sent along with their bus
 * message); an event buffer's PTS is the event's time, raised to the PTS of
 * the last buffer pushed when that is later (a motion-stop is decided only
 * after the hold-off), or when the event's time is at or after the
 * segment's stop (the motion-stop at EOS), so buffer timestamps never go
 * backward and stay inside the segment; the JSON has the exact time.
 *
 * #GstMvMetaStream:vectors chooses how much of the field goes out: `all`
 * (every block, row-major, as [dx, dy, flags]), `moving` (default: only
 * the moving blocks, as [column, row, dx, dy]) or `none`. The moving
 * blocks are the estimator's decision (its MOVING flags) when it made one
 * (regions or events on, decision=tracks), the
 * #GstMvMetaStream:motion-threshold test otherwise.
 * #GstMvMetaStream:frames can leave out the frames without any moving
 * block or region, or all frames (events only).
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     blockmatchme events=true regions=true ! \
 *     mvmetastream camera-id=door ! filesink location=door.jsonl
 * gst-launch-1.0 v4l2src ! videoconvert ! blockmatchme events=true \
 *     regions=true ! mvmetastream camera-id=cam1 vectors=none ! \
 *     tcpserversink host=0.0.0.0 port=5000
 * ]|
 */
/* Implementation notes.
 *
 * A GstBaseTransform whose output caps never depend on the input (any
 * video in, JSON lines out). generate_output() takes the queued input
 * buffer and makes a new output buffer of exactly the line's size (the
 * JSON is built in one GString kept from start to stop); the input buffer
 * is dropped. Event objects are pushed from sink_event(), on the streaming
 * thread, before the custom event itself goes on.
 *
 * Every pushed buffer also carries a GstCustomMeta "GstMvStreamInfoMeta"
 * (common/mvstreaminfo.h) with its type, camera id and sequence number, so
 * that mvmqttsink can fill its topic template without parsing the JSON.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvmetastream.h"

#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <cmath>

#include "common/gstmatchframe.h"
#include "common/gstmatchsettings.h"
#include "common/mvstreaminfo.h"
#include "common/mvwriter.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_meta_stream_debug);
#define GST_CAT_DEFAULT gst_mv_meta_stream_debug

/* Version of the JSON schema, the "v" of every object and the caps'
 * version field; bumped on any incompatible change. The previous one is
 * still served to a downstream that accepts only it (caps negotiation). */
#define SCHEMA_VERSION 2
#define SCHEMA_VERSION_V1 1

typedef enum
{
  GST_MV_META_STREAM_VECTORS_ALL = 0,
  GST_MV_META_STREAM_VECTORS_MOVING = 1,
  GST_MV_META_STREAM_VECTORS_NONE = 2,
} GstMvMetaStreamVectors;

typedef enum
{
  GST_MV_META_STREAM_FRAMES_ALL = 0,
  GST_MV_META_STREAM_FRAMES_MOVING = 1,
  GST_MV_META_STREAM_FRAMES_NONE = 2,
} GstMvMetaStreamFrames;

#define DEFAULT_PROP_CAMERA_ID NULL
#define DEFAULT_PROP_VECTORS GST_MV_META_STREAM_VECTORS_MOVING
#define DEFAULT_PROP_FRAMES GST_MV_META_STREAM_FRAMES_ALL
#define DEFAULT_PROP_MOTION_THRESHOLD 1.0
#define DEFAULT_PROP_REGIONS TRUE
#define DEFAULT_PROP_EVENTS TRUE

enum
{
  PROP_0,
  PROP_CAMERA_ID,
  PROP_VECTORS,
  PROP_FRAMES,
  PROP_MOTION_THRESHOLD,
  PROP_REGIONS,
  PROP_EVENTS,
};

/* Protected by the object lock; camera_id is copied to the streaming
 * state only when camera_id_cookie changes (no per-frame allocation). */
struct Settings
{
  GstMvMetaStreamVectors vectors;
  GstMvMetaStreamFrames frames;
  gdouble motion_threshold;
  gboolean regions;
  gboolean events;
};
/* Settings properties: the field (common/gstmatchsettings.h). */
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

struct _GstMvMetaStream
{
  GstBaseTransform parent;

  Settings settings;
  gchar * camera_id;
  guint camera_id_cookie;

  /* Streaming thread. */
  GString * json;
  gchar * st_camera_id;
  guint st_camera_id_cookie;
  gint version;          /* negotiated schema version */
  guint64 frame;         /* frames with a meta since start */
  guint64 seq;           /* objects pushed since start */
  GstClockTime last_pts; /* PTS of the last buffer pushed */
  gboolean logged_no_meta;
  gboolean need_segment; /* after a flush, until the next SEGMENT */
  GQueue held;           /* event objects waiting for that SEGMENT */
};

#define gst_mv_meta_stream_parent_class parent_class
G_DEFINE_TYPE (GstMvMetaStream, gst_mv_meta_stream, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (mvmetastream, "mvmetastream", GST_RANK_NONE,
    GST_TYPE_MV_META_STREAM);

#define GST_TYPE_MV_META_STREAM_VECTORS (gst_mv_meta_stream_vectors_get_type ())
static GType
gst_mv_meta_stream_vectors_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = { { GST_MV_META_STREAM_VECTORS_ALL,
                                           "Every block, row-major, as "
                                           "[dx, dy, flags] (\"vectors\")",
                                           "all" },
    { GST_MV_META_STREAM_VECTORS_MOVING,
        "Only the moving blocks, as "
        "[column, row, dx, dy] (\"moving_vectors\")",
        "moving" },
    { GST_MV_META_STREAM_VECTORS_NONE,
        "No vectors (counts and regions "
        "only)",
        "none" },
    { 0, NULL, NULL } };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMvMetaStreamVectors", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

#define GST_TYPE_MV_META_STREAM_FRAMES (gst_mv_meta_stream_frames_get_type ())
static GType
gst_mv_meta_stream_frames_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = { { GST_MV_META_STREAM_FRAMES_ALL,
                                           "One object per frame with a motion "
                                           "field",
                                           "all" },
    { GST_MV_META_STREAM_FRAMES_MOVING,
        "Only frames with at least one "
        "moving block or region",
        "moving" },
    { GST_MV_META_STREAM_FRAMES_NONE, "No frame objects (events only)",
        "none" },
    { 0, NULL, NULL } };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMvMetaStreamFrames", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

/* The preferred version first: fixation takes it unless downstream
 * accepts only the other. */
#define SRC_CAPS                                                               \
  "application/x-json, format=(string)jsonl, "                                 \
  "schema=(string)gst-motion, version=(int){ 2, 1 }"

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (SRC_CAPS));

static void gst_mv_meta_stream_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_mv_meta_stream_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_mv_meta_stream_finalize (GObject * object);
static gboolean gst_mv_meta_stream_start (GstBaseTransform * trans);
static gboolean gst_mv_meta_stream_stop (GstBaseTransform * trans);
static GstCaps * gst_mv_meta_stream_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_mv_meta_stream_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_mv_meta_stream_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn
gst_mv_meta_stream_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);

static void
gst_mv_meta_stream_class_init (GstMvMetaStreamClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_mv_meta_stream_set_property;
  gobject_class->get_property = gst_mv_meta_stream_get_property;
  gobject_class->finalize = gst_mv_meta_stream_finalize;

  /**
   * GstMvMetaStream:camera-id:
   *
   * Written as "camera_id" in every object (null when unset) and given to
   * mvmqttsink's {camera-id} placeholder.
   */
  g_object_class_install_property (gobject_class, PROP_CAMERA_ID,
      g_param_spec_string ("camera-id", "Camera id",
          "Identifies the camera: \"camera_id\" in every JSON object (null "
          "when unset) and mvmqttsink's {camera-id}",
          DEFAULT_PROP_CAMERA_ID, rw_playing));
  /**
   * GstMvMetaStream:vectors:
   *
   * How much of the field each frame object carries: `all` blocks
   * ("vectors": [[dx, dy, flags], ...], row-major), the `moving` ones
   * ("moving_vectors": [[column, row, dx, dy], ...]: the estimator's MOVING
   * blocks when it made a decision, else those passing
   * #GstMvMetaStream:motion-threshold) or `none`.
   */
  gst_match_settings_install (gobject_class, PROP_VECTORS, SETTING (vectors),
      g_param_spec_enum ("vectors", "Vectors",
          "Vectors in each frame object: all blocks, only the moving ones, or "
          "none",
          GST_TYPE_MV_META_STREAM_VECTORS, DEFAULT_PROP_VECTORS, rw_playing));
  /**
   * GstMvMetaStream:frames:
   *
   * Which frames give an object: `all` (with a motion field), `moving`
   * (at least one moving block or region) or `none` (events only). Frames
   * left out still count in "frame".
   */
  gst_match_settings_install (gobject_class, PROP_FRAMES, SETTING (frames),
      g_param_spec_enum ("frames", "Frames",
          "Frames that give an object: all, those with motion, or none "
          "(events only)",
          GST_TYPE_MV_META_STREAM_FRAMES, DEFAULT_PROP_FRAMES, rw_playing));
  /**
   * GstMvMetaStream:motion-threshold:
   *
   * Without the estimator's decision on a frame (schema version 1, or
   * regions and events off, or decision=blocks), a block is moving when it
   * has an estimate, is not suppressed and its vector is at least this
   * long (pixels): the definition of the estimators' property of the same
   * name (their mask is not applied here). With a decision, version 2
   * takes the estimator's MOVING flags instead.
   */
  gst_match_settings_install (gobject_class, PROP_MOTION_THRESHOLD,
      SETTING (motion_threshold),
      g_param_spec_double ("motion-threshold", "Motion threshold",
          "Without the estimator's decision (MOVING flags), a block is moving "
          "(\"moving\", vectors=moving, frames=moving) when it has an "
          "estimate, is not suppressed and its vector is at least this long, "
          "in pixels",
          0.0, 100000.0, DEFAULT_PROP_MOTION_THRESHOLD, rw_playing));
  gst_match_settings_install (gobject_class, PROP_REGIONS, SETTING (regions),
      g_param_spec_boolean ("regions", "Regions",
          "Write the frame's \"motion\" region metas (blockmatchme/pocme "
          "regions=true) as \"regions\"",
          DEFAULT_PROP_REGIONS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_EVENTS, SETTING (events),
      g_param_spec_boolean ("events", "Events",
          "Write an object for each motion-start / motion-stop coming from "
          "upstream (blockmatchme/pocme events=true)",
          DEFAULT_PROP_EVENTS, rw_playing));

  gst_element_class_set_static_metadata (element_class,
      "Motion metadata stream", "Formatter/Metadata",
      "Turns motion-vector fields, moving regions and motion events into "
      "JSON lines, one buffer per frame and per event",
      "gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_mv_meta_stream_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_mv_meta_stream_stop);
  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_mv_meta_stream_transform_caps);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_mv_meta_stream_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_mv_meta_stream_sink_event);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_mv_meta_stream_generate_output);
  trans_class->passthrough_on_same_caps = FALSE;

  gst_type_mark_as_plugin_api (GST_TYPE_MV_META_STREAM_VECTORS,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MV_META_STREAM_FRAMES,
      (GstPluginAPIFlags) 0);
  gst_mv_stream_info_meta_get_info ();

  GST_DEBUG_CATEGORY_INIT (gst_mv_meta_stream_debug, "mvmetastream", 0,
      "Motion metadata stream");
}

static void
gst_mv_meta_stream_init (GstMvMetaStream * self)
{
  gst_match_settings_init (G_OBJECT_GET_CLASS (self), &self->settings);
  self->camera_id = g_strdup (DEFAULT_PROP_CAMERA_ID);
  self->camera_id_cookie = 1;

  self->json = NULL;
  self->st_camera_id = NULL;
  self->st_camera_id_cookie = 0;
  self->version = SCHEMA_VERSION;
  self->frame = 0;
  self->seq = 0;
  self->last_pts = GST_CLOCK_TIME_NONE;
  self->logged_no_meta = FALSE;
  self->need_segment = FALSE;
  g_queue_init (&self->held);
}

static void
gst_mv_meta_stream_finalize (GObject * object)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (object);

  g_free (self->camera_id);
  g_free (self->st_camera_id);
  if (self->json)
    g_string_free (self->json, TRUE);
  g_queue_clear_full (&self->held, (GDestroyNotify) gst_buffer_unref);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_meta_stream_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (object);

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_CAMERA_ID) {
    g_free (self->camera_id);
    self->camera_id = g_value_dup_string (value);
    self->camera_id_cookie++;
  } else if (!gst_match_settings_set (&self->settings, pspec, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_meta_stream_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (object);

  GST_OBJECT_LOCK (self);
  if (prop_id == PROP_CAMERA_ID)
    g_value_set_string (value, self->camera_id);
  else if (!gst_match_settings_get (&self->settings, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

/* Settings and camera id for one object, from the streaming thread. */
static Settings
snapshot_settings (GstMvMetaStream * self)
{
  GST_OBJECT_LOCK (self);
  const Settings s = self->settings;
  if (self->st_camera_id_cookie != self->camera_id_cookie) {
    g_free (self->st_camera_id);
    self->st_camera_id = g_strdup (self->camera_id);
    self->st_camera_id_cookie = self->camera_id_cookie;
  }
  GST_OBJECT_UNLOCK (self);
  return s;
}

static gboolean
gst_mv_meta_stream_start (GstBaseTransform * trans)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (trans);

  if (!self->json)
    self->json = g_string_sized_new (4096);
  self->version = SCHEMA_VERSION;
  self->frame = 0;
  self->seq = 0;
  self->last_pts = GST_CLOCK_TIME_NONE;
  self->logged_no_meta = FALSE;
  self->need_segment = FALSE;
  g_queue_clear_full (&self->held, (GDestroyNotify) gst_buffer_unref);
  return TRUE;
}

static gboolean
gst_mv_meta_stream_stop (GstBaseTransform * trans)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (trans);

  if (self->json)
    g_string_free (self->json, TRUE);
  self->json = NULL;
  g_queue_clear_full (&self->held, (GDestroyNotify) gst_buffer_unref);
  return TRUE;
}

static GstCaps *
gst_mv_meta_stream_transform_caps (GstBaseTransform *,
    GstPadDirection direction, GstCaps *, GstCaps * filter)
{
  /* Any video in, the one JSON format out, whatever the input. */
  return gst_match_meta_reader_caps (direction, &src_template, filter);
}

/* The schema version downstream agreed to (the output caps'). */
static gboolean
gst_mv_meta_stream_set_caps (GstBaseTransform * trans, GstCaps *,
    GstCaps * outcaps)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (trans);
  gint version = SCHEMA_VERSION;

  if (!gst_structure_get_int (gst_caps_get_structure (outcaps, 0), "version",
          &version)
      || (version != SCHEMA_VERSION && version != SCHEMA_VERSION_V1)) {
    GST_ERROR_OBJECT (self, "no schema version 1 or 2 in %" GST_PTR_FORMAT,
        outcaps);
    return FALSE;
  }
  GST_DEBUG_OBJECT (self, "schema version %d", version);
  self->version = version;
  return TRUE;
}

/* {"v":2,"type":"<type>","seq":N,"camera_id":"..." (no closing brace). */
static void
begin_object (GstMvMetaStream * self, const gchar * type)
{
  GString * j = self->json;

  g_string_truncate (j, 0);
  g_string_append (j, "{\"v\":");
  gst_mv_json_append_int (j, self->version);
  g_string_append (j, ",\"type\":\"");
  g_string_append (j, type);
  g_string_append (j, "\",\"seq\":");
  gst_mv_json_append_uint (j, self->seq);
  g_string_append (j, ",\"camera_id\":");
  gst_mv_json_append_string (j, self->st_camera_id);
}

/* Ends the object and makes its buffer (the line and its stream info). */
static GstBuffer *
finish_object (GstMvMetaStream * self, const gchar * type,
    const gchar * event_name)
{
  g_string_append (self->json, "}\n");
  GstBuffer * buf = gst_buffer_new_memdup (self->json->str, self->json->len);

  GstCustomMeta * info =
      gst_buffer_add_custom_meta (buf, GST_MV_STREAM_INFO_META_NAME);
  if (info) {
    GstStructure * s = gst_custom_meta_get_structure (info);
    gst_structure_set (s, "type", G_TYPE_STRING, type, "seq", G_TYPE_UINT64,
        self->seq, NULL);
    if (self->st_camera_id)
      gst_structure_set (s, "camera-id", G_TYPE_STRING, self->st_camera_id,
          NULL);
    if (event_name)
      gst_structure_set (s, "event", G_TYPE_STRING, event_name, NULL);
  }
  GST_BUFFER_OFFSET (buf) = self->seq;
  self->seq++;
  return buf;
}

static inline gboolean
block_moves (const GstMotionVector & v, gdouble t2)
{
  if (v.flags
      & (GST_MOTION_VECTOR_FLAG_NO_ESTIMATE
          | GST_MOTION_VECTOR_FLAG_SUPPRESSED))
    return FALSE;
  const gdouble m2 = (gdouble) v.dx * v.dx + (gdouble) v.dy * v.dy;
  return m2 >= t2; /* also false for NaN */
}

static void
append_grid (GString * j, const GstMotionVectorsMeta * meta)
{
  g_string_append (j, ",\"grid\":{");
  gst_mv_json_append_geometry (j, meta);
  g_string_append_c (j, '}');
}

/* The track of a region (decision=tracks, docs/motion-events.md): version
 * 2 nests it, {"id","age","frames","velocity":[vx,vy],"speed",
 * "direction"} or null; version 1 had it flat ("track", "frames", "age",
 * "vx", "vy", "direction"), when there is one. */
static void
append_track (GString * j, const GstStructure * p, gint version)
{
  guint track, frames;
  guint64 age;
  gdouble vx, vy, dir;
  const gboolean have = p
      && gst_structure_get (p, "track-id", G_TYPE_UINT, &track, "frames",
          G_TYPE_UINT, &frames, "age", G_TYPE_UINT64, &age, "vx", G_TYPE_DOUBLE,
          &vx, "vy", G_TYPE_DOUBLE, &vy, "direction", G_TYPE_DOUBLE, &dir,
          NULL);

  if (version == SCHEMA_VERSION_V1) {
    if (!have)
      return;
    g_string_append (j, ",\"track\":");
    gst_mv_json_append_uint (j, track);
    g_string_append (j, ",\"frames\":");
    gst_mv_json_append_uint (j, frames);
    g_string_append (j, ",\"age\":");
    gst_mv_json_append_time (j, age);
    g_string_append (j, ",\"vx\":");
    gst_mv_json_append_double (j, vx);
    g_string_append (j, ",\"vy\":");
    gst_mv_json_append_double (j, vy);
    g_string_append (j, ",\"direction\":");
    gst_mv_json_append_double (j, dir);
    return;
  }
  if (!have) {
    g_string_append (j, ",\"track\":null");
    return;
  }
  g_string_append (j, ",\"track\":{\"id\":");
  gst_mv_json_append_uint (j, track);
  g_string_append (j, ",\"age\":");
  gst_mv_json_append_time (j, age);
  g_string_append (j, ",\"frames\":");
  gst_mv_json_append_uint (j, frames);
  g_string_append (j, ",\"velocity\":[");
  gst_mv_json_append_double (j, vx);
  g_string_append_c (j, ',');
  gst_mv_json_append_double (j, vy);
  g_string_append (j, "],\"speed\":");
  gst_mv_json_append_double (j, std::sqrt (vx * vx + vy * vy));
  g_string_append (j, ",\"direction\":");
  gst_mv_json_append_double (j, dir);
  g_string_append_c (j, '}');
}

/* Appends "regions":[...] from the buffer's "motion" ROI metas; returns
 * their number. */
static guint
append_regions (GString * j, GstBuffer * buf, gint version)
{
  static GQuark motion_quark = 0;
  gpointer state = NULL;
  GstMeta * m;
  guint n = 0;

  if (!motion_quark)
    motion_quark = g_quark_from_static_string (GST_MOTION_REGION_ROI_TYPE);

  g_string_append (j, ",\"regions\":[");
  while ((m = gst_buffer_iterate_meta_filtered (buf, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta * roi = (GstVideoRegionOfInterestMeta *) m;
    if (roi->roi_type != motion_quark)
      continue;
    GstStructure * p = gst_video_region_of_interest_meta_get_param (roi,
        GST_MOTION_REGION_PARAM_NAME);
    /* The track id whatever the build: with GstAnalytics the ROI's own id
     * is its detection entry's (docs/motion-events.md). */
    guint track_id;
    g_string_append (j, n ? ",{\"id\":" : "{\"id\":");
    if (p && gst_structure_get_uint (p, "track-id", &track_id))
      gst_mv_json_append_uint (j, track_id);
    else
      gst_mv_json_append_int (j, roi->id);
    g_string_append (j, ",\"x\":");
    gst_mv_json_append_uint (j, roi->x);
    g_string_append (j, ",\"y\":");
    gst_mv_json_append_uint (j, roi->y);
    g_string_append (j, ",\"w\":");
    gst_mv_json_append_uint (j, roi->w);
    g_string_append (j, ",\"h\":");
    gst_mv_json_append_uint (j, roi->h);
    gdouble mdx, mdy;
    gint area, pixels;
    if (p
        && gst_structure_get (p, "mean-dx", G_TYPE_DOUBLE, &mdx, "mean-dy",
            G_TYPE_DOUBLE, &mdy, "area", G_TYPE_INT, &area, "pixels",
            G_TYPE_INT, &pixels, NULL)) {
      g_string_append (j, ",\"mean_dx\":");
      gst_mv_json_append_double (j, mdx);
      g_string_append (j, ",\"mean_dy\":");
      gst_mv_json_append_double (j, mdy);
      g_string_append (j, ",\"area\":");
      gst_mv_json_append_int (j, area);
      g_string_append (j, ",\"pixels\":");
      gst_mv_json_append_int (j, pixels);
    }
    append_track (j, p, version);
    /* The zones it is in (the estimator's zones), when any. */
    const gchar * zones = p ? gst_structure_get_string (p, "zones") : NULL;
    if (zones) {
      g_string_append (j, ",\"zones\":[");
      gchar ** names = g_strsplit (zones, ",", -1);
      for (guint k = 0; names[k]; k++) {
        if (k)
          g_string_append_c (j, ',');
        gst_mv_json_append_string (j, names[k]);
      }
      g_strfreev (names);
      g_string_append_c (j, ']');
    }
    g_string_append_c (j, '}');
    n++;
  }
  g_string_append_c (j, ']');
  return n;
}

static GstFlowReturn
gst_mv_meta_stream_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (trans);
  GstBuffer * in = trans->queued_buf;

  trans->queued_buf = NULL;
  *outbuf = NULL;
  if (!in)
    return GST_FLOW_OK;
  if (G_UNLIKELY (!self->json))
    goto not_started;

  {
    const GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (in);
    if (!meta || !gst_motion_vectors_meta_is_valid (meta)) {
      if (!self->logged_no_meta) {
        GST_WARNING_OBJECT (self,
            "buffer %" GST_PTR_FORMAT " has no (valid) "
            "motion-vector meta: no frame object (logged once)",
            in);
        self->logged_no_meta = TRUE;
      }
      gst_buffer_unref (in);
      return GST_FLOW_OK;
    }

    const Settings s = snapshot_settings (self);
    const guint64 frame = self->frame++;
    if (s.frames == GST_MV_META_STREAM_FRAMES_NONE) {
      gst_buffer_unref (in);
      return GST_FLOW_OK;
    }

    /* The estimator's decision, when it made one (regions or events on,
     * decision=tracks): the camera's motion at the frame's centre and the
     * MOVING flags. Version 2 takes its moving blocks from it; version 1
     * (and frames without a decision) from the threshold test. */
    gdouble gdx = 0.0, gdy = 0.0;
    const gboolean decided = gst_motion_vectors_meta_get_global_motion (meta,
        meta->frame_width * 0.5, meta->frame_height * 0.5, &gdx, &gdy);
    const gboolean by_flags = decided && self->version >= SCHEMA_VERSION;
    const gdouble t2 = s.motion_threshold * s.motion_threshold;
    guint moving = 0, flagged = 0;
    gboolean estimated = FALSE;
    for (guint i = 0; i < meta->n_vectors; i++) {
      const GstMotionVector & v = meta->vectors[i];
      estimated |= !(v.flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
      flagged += (v.flags & GST_MOTION_VECTOR_FLAG_MOVING) ? 1 : 0;
      moving += block_moves (v, t2);
    }
    if (by_flags)
      moving = flagged;

    const GstClockTime pts = GST_BUFFER_PTS (in);
    GstClockTime rt = GST_CLOCK_TIME_NONE;
    if (trans->segment.format == GST_FORMAT_TIME
        && GST_CLOCK_TIME_IS_VALID (pts))
      rt = gst_segment_to_running_time (&trans->segment, GST_FORMAT_TIME, pts);

    GString * j = self->json;
    begin_object (self, "frame");
    g_string_append (j, ",\"frame\":");
    gst_mv_json_append_uint (j, frame);
    g_string_append (j, ",\"pts\":");
    gst_mv_json_append_time (j, pts);
    g_string_append (j, ",\"dts\":");
    gst_mv_json_append_time (j, GST_BUFFER_DTS (in));
    g_string_append (j, ",\"duration\":");
    gst_mv_json_append_time (j, GST_BUFFER_DURATION (in));
    g_string_append (j, ",\"running_time\":");
    gst_mv_json_append_time (j, rt);
    g_string_append (j, ",\"ref_pts\":");
    gst_mv_json_append_time (j, meta->reference_timestamp);
    append_grid (j, meta);
    g_string_append (j,
        estimated ? ",\"estimated\":true" : ",\"estimated\":false");
    if (self->version >= SCHEMA_VERSION)
      g_string_append (j,
          decided ? ",\"decision\":true" : ",\"decision\":false");
    g_string_append (j, ",\"moving\":");
    gst_mv_json_append_uint (j, moving);
    if (decided && self->version == SCHEMA_VERSION_V1) {
      g_string_append (j, ",\"moving_objects\":");
      gst_mv_json_append_uint (j, flagged);
    }
    if (decided) {
      g_string_append (j, ",\"global_motion\":[");
      gst_mv_json_append_double (j, gdx);
      g_string_append_c (j, ',');
      gst_mv_json_append_double (j, gdy);
      g_string_append_c (j, ']');
    } else if (self->version >= SCHEMA_VERSION) {
      g_string_append (j, ",\"global_motion\":null");
    }

    if (s.vectors == GST_MV_META_STREAM_VECTORS_ALL) {
      g_string_append (j, ",\"vectors\":[");
      for (guint i = 0; i < meta->n_vectors; i++) {
        const GstMotionVector & v = meta->vectors[i];
        g_string_append_len (j, i ? ",[" : "[", i ? 2 : 1);
        gst_mv_json_append_float (j, v.dx);
        g_string_append_c (j, ',');
        gst_mv_json_append_float (j, v.dy);
        g_string_append_c (j, ',');
        gst_mv_json_append_uint (j, v.flags);
        g_string_append_c (j, ']');
      }
      g_string_append_c (j, ']');
    } else if (s.vectors == GST_MV_META_STREAM_VECTORS_MOVING) {
      g_string_append (j, ",\"moving_vectors\":[");
      guint n = 0;
      for (guint i = 0; i < meta->n_vectors; i++) {
        const GstMotionVector & v = meta->vectors[i];
        if (by_flags ? !(v.flags & GST_MOTION_VECTOR_FLAG_MOVING)
                     : !block_moves (v, t2))
          continue;
        g_string_append (j, n++ ? ",[" : "[");
        gst_mv_json_append_uint (j, i % meta->columns);
        g_string_append_c (j, ',');
        gst_mv_json_append_uint (j, i / meta->columns);
        g_string_append_c (j, ',');
        gst_mv_json_append_float (j, v.dx);
        g_string_append_c (j, ',');
        gst_mv_json_append_float (j, v.dy);
        g_string_append_c (j, ']');
      }
      g_string_append_c (j, ']');
    }
    guint n_regions = 0;
    if (s.regions)
      n_regions = append_regions (j, in, self->version);

    if (s.frames == GST_MV_META_STREAM_FRAMES_MOVING && moving == 0
        && n_regions == 0) {
      GST_LOG_OBJECT (self,
          "frame %" G_GUINT64_FORMAT " has no motion: "
          "left out",
          frame);
      gst_buffer_unref (in);
      return GST_FLOW_OK;
    }

    GstBuffer * out = finish_object (self, "frame", NULL);
    GST_BUFFER_PTS (out) = pts;
    GST_BUFFER_DTS (out) = GST_BUFFER_DTS (in);
    GST_BUFFER_DURATION (out) = GST_BUFFER_DURATION (in);
    if (GST_BUFFER_IS_DISCONT (in))
      GST_BUFFER_FLAG_SET (out, GST_BUFFER_FLAG_DISCONT);
    if (GST_CLOCK_TIME_IS_VALID (pts))
      self->last_pts = pts;
    gst_buffer_unref (in);
    *outbuf = out;
    return GST_FLOW_OK;
  }

  /* ERRORS */
not_started : {
  gst_buffer_unref (in);
  GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL), ("not started"));
  return GST_FLOW_ERROR;
}
}

/* Pushes the object of an in-band motion-start / motion-stop. */
static void
push_event_object (GstMvMetaStream * self, const GstStructure * st)
{
  GstBaseTransform * trans = GST_BASE_TRANSFORM (self);
  const gboolean start =
      gst_structure_has_name (st, GST_MOTION_EVENT_START_NAME);
  const gchar * name = gst_structure_get_name (st);
  guint64 rt = GST_CLOCK_TIME_NONE;

  if (!self->json)
    return;
  const Settings s = snapshot_settings (self);
  if (!s.events)
    return;
  if (!gst_structure_get_uint64 (st, "timestamp", &rt))
    rt = GST_CLOCK_TIME_NONE;

  GstClockTime pts = GST_CLOCK_TIME_NONE;
  if (GST_CLOCK_TIME_IS_VALID (rt) && trans->segment.format == GST_FORMAT_TIME)
    pts = gst_segment_position_from_running_time (&trans->segment,
        GST_FORMAT_TIME, rt);

  GString * j = self->json;
  begin_object (self, "event");
  g_string_append (j, ",\"event\":");
  gst_mv_json_append_string (j, name);
  g_string_append (j, ",\"pts\":");
  gst_mv_json_append_time (j, pts);
  g_string_append (j, ",\"running_time\":");
  gst_mv_json_append_time (j, rt);
  if (gst_structure_has_name (st, GST_MOTION_EVENT_LINE_CROSSED_NAME)) {
    /* A tripwire's crossing (the estimator's lines). */
    guint track = 0;
    guint64 positive = 0, negative = 0;
    gst_structure_get (st, "track-id", G_TYPE_UINT, &track, "positive",
        G_TYPE_UINT64, &positive, "negative", G_TYPE_UINT64, &negative, NULL);
    g_string_append (j, ",\"line\":");
    gst_mv_json_append_string (j, gst_structure_get_string (st, "line"));
    g_string_append (j, ",\"track_id\":");
    gst_mv_json_append_uint (j, track);
    g_string_append (j, ",\"direction\":");
    gst_mv_json_append_string (j, gst_structure_get_string (st, "direction"));
    g_string_append (j, ",\"positive\":");
    gst_mv_json_append_uint (j, positive);
    g_string_append (j, ",\"negative\":");
    gst_mv_json_append_uint (j, negative);
  } else if (start) {
    gint regions = 0;
    if (gst_structure_get_int (st, "regions", &regions)) {
      g_string_append (j, ",\"regions\":");
      gst_mv_json_append_int (j, regions);
    }
    /* The track that started it (decision=tracks): "track_id", an id or
     * null, in version 2; "track" when there is one in version 1. */
    guint track;
    const gboolean have = gst_structure_get_uint (st, "track-id", &track);
    if (self->version == SCHEMA_VERSION_V1) {
      if (have) {
        g_string_append (j, ",\"track\":");
        gst_mv_json_append_uint (j, track);
      }
    } else if (have) {
      g_string_append (j, ",\"track_id\":");
      gst_mv_json_append_uint (j, track);
    } else {
      g_string_append (j, ",\"track_id\":null");
    }
  } else {
    guint64 duration;
    if (gst_structure_get_uint64 (st, "duration", &duration)) {
      g_string_append (j, ",\"duration\":");
      gst_mv_json_append_time (j, duration);
    }
    g_string_append (j, ",\"reason\":");
    gst_mv_json_append_string (j, gst_structure_get_string (st, "reason"));
  }
  /* A zone's own motion (the estimator's zones): its name. */
  const gchar * zone = gst_structure_get_string (st, "zone");
  if (zone) {
    g_string_append (j, ",\"zone\":");
    gst_mv_json_append_string (j, zone);
  }

  GstBuffer * out = finish_object (self, "event", name);
  GstClockTime buf_pts = pts;
  if (GST_CLOCK_TIME_IS_VALID (self->last_pts)
      && (!GST_CLOCK_TIME_IS_VALID (pts) || pts < self->last_pts))
    buf_pts = self->last_pts;
  /* An EOS motion-stop is dated at the end of the last frame, which is
   * often the segment's stop: sinks would drop a buffer there as outside
   * the segment. */
  if (GST_CLOCK_TIME_IS_VALID (buf_pts)
      && GST_CLOCK_TIME_IS_VALID (trans->segment.stop)
      && buf_pts >= trans->segment.stop)
    buf_pts = self->last_pts;
  GST_BUFFER_PTS (out) = buf_pts;

  GST_DEBUG_OBJECT (self,
      "%s at %" GST_TIME_FORMAT " (buffer PTS %" GST_TIME_FORMAT ")", name,
      GST_TIME_ARGS (rt), GST_TIME_ARGS (buf_pts));
  if (self->need_segment) {
    /* The motion-stop of a flush comes between FLUSH_STOP and the next
     * SEGMENT: data may not flow before a segment. */
    g_queue_push_tail (&self->held, out);
    return;
  }
  const GstFlowReturn ret =
      gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  if (ret != GST_FLOW_OK)
    GST_DEBUG_OBJECT (self, "pushing the %s object: %s", name,
        gst_flow_get_name (ret));
}

static gboolean
gst_mv_meta_stream_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstMvMetaStream * self = GST_MV_META_STREAM (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_CUSTOM_DOWNSTREAM: {
      const GstStructure * st = gst_event_get_structure (event);
      if (st
          && (gst_structure_has_name (st, GST_MOTION_EVENT_START_NAME)
              || gst_structure_has_name (st, GST_MOTION_EVENT_STOP_NAME)
              || gst_structure_has_name (st,
                  GST_MOTION_EVENT_LINE_CROSSED_NAME)))
        push_event_object (self, st);
      break;
    }
    case GST_EVENT_FLUSH_STOP:
      /* A new segment follows: earlier PTS no longer compare. */
      self->last_pts = GST_CLOCK_TIME_NONE;
      self->need_segment = TRUE;
      break;
    case GST_EVENT_SEGMENT: {
      /* The segment goes on first, then what waited for it. */
      const gboolean ret =
          GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
      self->need_segment = FALSE;
      GstBuffer * b;
      while ((b = (GstBuffer *) g_queue_pop_head (&self->held))) {
        const GstFlowReturn fret =
            gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), b);
        if (fret != GST_FLOW_OK)
          GST_DEBUG_OBJECT (self, "pushing a held event object: %s",
              gst_flow_get_name (fret));
      }
      return ret;
    }
    case GST_EVENT_EOS:
      if (!g_queue_is_empty (&self->held)) {
        GST_WARNING_OBJECT (self,
            "EOS without a segment after a flush: "
            "%u event object(s) dropped",
            g_queue_get_length (&self->held));
        g_queue_clear_full (&self->held, (GDestroyNotify) gst_buffer_unref);
      }
      break;
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}
