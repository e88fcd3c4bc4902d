/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-mvoverlay
 * @title: mvoverlay
 *
 * Draws the #GstMotionVectorsMeta of each buffer on the video, and an
 * outline for every #GstVideoRegionOfInterestMeta of type "motion", in
 * place. It draws exactly what the `draw` property of `blockmatchme` and
 * `pocme` draws (one shared implementation), but as a separate element, so
 * that the drawing can happen on one branch of a tee or after a format
 * conversion, while the other branches keep the clean video.
 *
 * #GstMvOverlay:mode selects arrows or the colour-coded field (the same
 * values as the matchers' `draw`), #GstMvOverlay:min-magnitude hides short
 * vectors and #GstMvOverlay:scale lengthens or shortens the arrows.
 * #GstMvOverlay:regions outlines every "motion" region of interest in red
 * (one pixel wide; white or black on GRAY8); other ROI types are ignored.
 * With #GstMvOverlay:tracks (the default) a region that has a track
 * (decision=tracks) also gets its track id on a red tag above its top-left
 * corner and a yellow arrow from its centre along the object's direction.
 *
 * When the meta describes a frame of another size than the video
 * (frame_width x frame_height of the meta differ from the caps), the block
 * positions and the vectors are scaled per axis to the video's size (see
 * gst_mv_overlay_draw_full() and docs/mvoverlay.md); ROI metas are already
 * in the video's pixels and are drawn as they are. (#GstMotionVectorsMeta
 * itself is dropped by elements that change the frame size, so after a
 * real resize there is no field left to draw.)
 *
 * Buffers with nothing to draw pass through untouched (not even mapped).
 * Otherwise the frame is drawn in place; a buffer that is not writable is
 * copied first, by the base class.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 videotestsrc pattern=ball ! blockmatchme ! \
 *     mvoverlay ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     blockmatchme ! tee name=t \
 *     t. ! queue ! mvexport location=vectors.jsonl ! fakesink \
 *     t. ! queue ! mvoverlay mode=color min-magnitude=1 ! \
 *         videoconvert ! autovideosink
 * ]|
 */
/* Implementation notes.
 *
 * A GstVideoFilter used in place (not passthrough), with transform_ip
 * overridden rather than transform_frame_ip: GstVideoFilter would map
 * every frame for writing, which copies the pixels of a shared buffer
 * (after a tee) even when there is nothing to draw. Here the frame is
 * mapped for writing only when a field or a motion region is to be drawn.
 * The base class hands transform_ip a writable buffer (a shallow copy when
 * the input is shared; mapping it for writing then copies the memory).
 *
 * The settings are plain values copied under the object lock at the start
 * of each frame and used unlocked; every property applies from the next
 * frame, so all are GST_PARAM_MUTABLE_PLAYING.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvoverlay.h"

#include <gst/motionvectors/motionvectors.h>

#include <cmath>
#include <string>
#include <vector>

#include "common/gstmatchcommon.h"
#include "common/mvlines.h"
#include "common/mvoverlay.h"
#include "common/mvrulesmeta.h"
#include "common/mvzones.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_overlay_debug);
#define GST_CAT_DEFAULT gst_mv_overlay_debug

#define DEFAULT_PROP_MODE GST_MV_DRAW_ARROWS
#define DEFAULT_PROP_REGIONS TRUE
#define DEFAULT_PROP_TRACKS TRUE
#define DEFAULT_PROP_RULES TRUE
/* Zones in amber, lines in cyan (the positive side ticked). */
#define ZONE_RGB 0xffc000u
#define LINE_RGB 0x00d0ffu
#define DEFAULT_PROP_MIN_MAGNITUDE 0.0
#define DEFAULT_PROP_SCALE 1.0

#define MAX_MIN_MAGNITUDE 100000.0
#define MIN_SCALE 0.01
#define MAX_SCALE 100.0

/* Outline of the "motion" regions: red, one pixel wide; a tracked
 * region's id on a tag of the same red, its direction in yellow. */
#define REGION_RGB 0xff0000
#define REGION_THICKNESS 1
#define DIRECTION_RGB 0xffff00

enum
{
  PROP_0,
  PROP_MODE,
  PROP_REGIONS,
  PROP_MIN_MAGNITUDE,
  PROP_SCALE,
  PROP_TRACKS,
  PROP_RULES,
};

/* Plain copyable settings, read under the object lock and used unlocked. */
struct Settings
{
  GstMvDrawMode mode;
  gboolean regions;
  gdouble min_magnitude;
  gdouble scale;
  gboolean tracks;
  gboolean rules;
};

/* The zones and lines of the last rules meta, parsed (streaming thread). */
struct Rules
{
  std::string zones_text, lines_text;
  std::vector<MvZone> zones;
  std::vector<MvLine> lines;
  std::vector<gdouble> x, y; /* scratch: a polygon's vertices, pixels */
};

struct _GstMvOverlay
{
  GstVideoFilter parent;

  Settings settings; /* protected by the object lock */
  Rules * rules;
};

static GQuark motion_quark;

#define gst_mv_overlay_parent_class parent_class
G_DEFINE_TYPE (GstMvOverlay, gst_mv_overlay, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (mvoverlay, "mvoverlay", GST_RANK_NONE,
    GST_TYPE_MV_OVERLAY);

static GstStaticPadTemplate sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)));

static void gst_mv_overlay_finalize (GObject * object);
static void gst_mv_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_mv_overlay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static GstFlowReturn gst_mv_overlay_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

static void
gst_mv_overlay_class_init (GstMvOverlayClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);

  gobject_class->set_property = gst_mv_overlay_set_property;
  gobject_class->finalize = gst_mv_overlay_finalize;
  gobject_class->get_property = gst_mv_overlay_get_property;

  /**
   * GstMvOverlay:mode:
   *
   * What to draw of the motion field: nothing, one arrow per block (from
   * where the content was to where it is now), or every block tinted with
   * the Middlebury flow colour of its motion. The same values as the
   * `draw` property of blockmatchme and pocme.
   */
  g_object_class_install_property (gobject_class, PROP_MODE,
      g_param_spec_enum ("mode", "Mode",
          "What to draw of the motion-vector meta: none, arrows (one per "
          "block) or color (blocks tinted by the flow colour wheel)",
          GST_TYPE_MV_DRAW_MODE, DEFAULT_PROP_MODE, rw_playing));
  /**
   * GstMvOverlay:regions:
   *
   * Outline every #GstVideoRegionOfInterestMeta whose roi_type is "motion"
   * (red, one pixel wide, inside the region; white or black on GRAY8).
   * Other region types are left alone.
   */
  g_object_class_install_property (gobject_class, PROP_REGIONS,
      g_param_spec_boolean ("regions", "Regions",
          "Outline the regions of interest of type \"motion\" "
          "(GstVideoRegionOfInterestMeta)",
          DEFAULT_PROP_REGIONS, rw_playing));
  /**
   * GstMvOverlay:min-magnitude:
   *
   * Vectors shorter than this, in pixels of the field as stored in the meta
   * (the analysed frame's pixels, before any scaling), are not drawn: no
   * arrow, no tint. 0 draws every vector.
   */
  g_object_class_install_property (gobject_class, PROP_MIN_MAGNITUDE,
      g_param_spec_double ("min-magnitude", "Minimum magnitude",
          "Vectors shorter than this many pixels (of the analysed frame) are "
          "not drawn; 0 = draw all",
          0.0, MAX_MIN_MAGNITUDE, DEFAULT_PROP_MIN_MAGNITUDE, rw_playing));
  /**
   * GstMvOverlay:scale:
   *
   * Arrow length as a multiple of the motion (mode=arrows): 1 draws each
   * arrow as long as the motion on the video, 4 four times longer (small
   * motions become visible). The colour mode is not affected.
   */
  g_object_class_install_property (gobject_class, PROP_SCALE,
      g_param_spec_double ("scale", "Scale",
          "Arrow length as a multiple of the motion (mode=arrows)", MIN_SCALE,
          MAX_SCALE, DEFAULT_PROP_SCALE, rw_playing));
  /**
   * GstMvOverlay:tracks:
   *
   * With #GstMvOverlay:regions, label each "motion" region that has a track
   * (its "motion" parameter has a track-id: blockmatchme / pocme with
   * decision=tracks): the track id in white digits on a red tag above the
   * box's top-left corner, and a yellow arrow from the box's centre along
   * the object's velocity (see gst_mv_overlay_draw_track() and
   * docs/mvoverlay.md).
   */
  g_object_class_install_property (gobject_class, PROP_TRACKS,
      g_param_spec_boolean ("tracks", "Tracks",
          "With regions, write each tracked region's id and draw an arrow "
          "along its direction",
          DEFAULT_PROP_TRACKS, rw_playing));
  /**
   * GstMvOverlay:rules:
   *
   * Draw the zones (amber outlines) and lines (cyan, with a tick on their
   * positive side) that blockmatchme / pocme judged the frame with (their
   * `zones` and `lines`, which they attach to every frame while set).
   */
  g_object_class_install_property (gobject_class, PROP_RULES,
      g_param_spec_boolean ("rules", "Rules",
          "Draw the estimator's zones and lines (its zones and lines "
          "properties), carried on each frame",
          DEFAULT_PROP_RULES, rw_playing));

  gst_element_class_set_static_metadata (element_class, "Motion vector overlay",
      "Filter/Effect/Video",
      "Draws the motion vectors (GstMotionVectorsMeta) and the motion "
      "regions of each frame on the video",
      "The gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_mv_overlay_transform_ip);

  gst_type_mark_as_plugin_api (GST_TYPE_MV_DRAW_MODE, (GstPluginAPIFlags) 0);

  motion_quark = g_quark_from_static_string ("motion");

  GST_DEBUG_CATEGORY_INIT (gst_mv_overlay_debug, "mvoverlay", 0,
      "Motion vector overlay");
}

static void
gst_mv_overlay_finalize (GObject * object)
{
  delete GST_MV_OVERLAY (object)->rules;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_overlay_init (GstMvOverlay * self)
{
  Settings & s = self->settings;

  s.mode = DEFAULT_PROP_MODE;
  s.regions = DEFAULT_PROP_REGIONS;
  s.min_magnitude = DEFAULT_PROP_MIN_MAGNITUDE;
  s.scale = DEFAULT_PROP_SCALE;
  s.tracks = DEFAULT_PROP_TRACKS;
  s.rules = DEFAULT_PROP_RULES;
  self->rules = new Rules ();

  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_mv_overlay_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvOverlay * self = GST_MV_OVERLAY (object);
  Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      s.mode = (GstMvDrawMode) g_value_get_enum (value);
      break;
    case PROP_REGIONS:
      s.regions = g_value_get_boolean (value);
      break;
    case PROP_MIN_MAGNITUDE:
      s.min_magnitude = g_value_get_double (value);
      break;
    case PROP_SCALE:
      s.scale = g_value_get_double (value);
      break;
    case PROP_TRACKS:
      s.tracks = g_value_get_boolean (value);
      break;
    case PROP_RULES:
      s.rules = g_value_get_boolean (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_overlay_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvOverlay * self = GST_MV_OVERLAY (object);
  const Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_MODE:
      g_value_set_enum (value, s.mode);
      break;
    case PROP_REGIONS:
      g_value_set_boolean (value, s.regions);
      break;
    case PROP_MIN_MAGNITUDE:
      g_value_set_double (value, s.min_magnitude);
      break;
    case PROP_SCALE:
      g_value_set_double (value, s.scale);
      break;
    case PROP_TRACKS:
      g_value_set_boolean (value, s.tracks);
      break;
    case PROP_RULES:
      g_value_set_boolean (value, s.rules);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static Settings
snapshot_settings (GstMvOverlay * self)
{
  GST_OBJECT_LOCK (self);
  Settings s = self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

static inline gboolean
is_motion_region (const GstVideoRegionOfInterestMeta * roi)
{
  return roi->roi_type == motion_quark;
}

/* Whether anything of the buffer's metas will be drawn with settings s. */
static gboolean
has_work (GstBuffer * buf, const Settings & s)
{
  gpointer iter = NULL;
  GstMeta * m;

  if (s.mode != GST_MV_DRAW_NONE && gst_buffer_get_motion_vectors_meta (buf))
    return TRUE;
  if (s.rules && gst_mv_rules_meta_get (buf))
    return TRUE;
  if (!s.regions)
    return FALSE;
  while ((m = gst_buffer_iterate_meta_filtered (buf, &iter,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    if (is_motion_region ((GstVideoRegionOfInterestMeta *) m))
      return TRUE;
  }
  return FALSE;
}

/* The zones and lines of the frame's rules meta (parsed again only when
 * they change): polygons, and lines with a tick on their positive side. */
static void
draw_rules (GstMvOverlay * self, GstBuffer * buf, GstVideoFrame * frame)
{
  const GstStructure * st = gst_mv_rules_meta_get (buf);
  if (!st)
    return;
  Rules & r = *self->rules;
  const gchar * zones = gst_structure_get_string (st, "zones");
  const gchar * lines = gst_structure_get_string (st, "lines");
  if (r.zones_text != (zones ? zones : "")) {
    r.zones_text = zones ? zones : "";
    if (!mv_zones_parse (zones, &r.zones, NULL))
      r.zones.clear ();
  }
  if (r.lines_text != (lines ? lines : "")) {
    r.lines_text = lines ? lines : "";
    if (!mv_lines_parse (lines, &r.lines, NULL))
      r.lines.clear ();
  }
  const gdouble w = GST_VIDEO_FRAME_WIDTH (frame);
  const gdouble h = GST_VIDEO_FRAME_HEIGHT (frame);
  for (const MvZone & z : r.zones) {
    r.x.resize (z.x.size ());
    r.y.resize (z.y.size ());
    for (size_t i = 0; i < z.x.size (); i++) {
      r.x[i] = z.x[i] * w;
      r.y[i] = z.y[i] * h;
    }
    gst_mv_overlay_draw_polyline (frame, r.x.data (), r.y.data (),
        (guint) r.x.size (), TRUE, ZONE_RGB);
  }
  const gdouble tick = MAX (8.0, 0.02 * std::hypot (w, h));
  for (const MvLine & l : r.lines) {
    const gdouble x[2] = { l.x0 * w, l.x1 * w }, y[2] = { l.y0 * h, l.y1 * h };
    gst_mv_overlay_draw_polyline (frame, x, y, 2, FALSE, LINE_RGB);
    /* From the middle towards the positive side (the right of first ->
     * second point, on screen: the direction turned by +90 degrees). */
    const gdouble ux = x[1] - x[0], uy = y[1] - y[0];
    const gdouble len = std::hypot (ux, uy);
    if (len <= 0.0)
      continue;
    const gdouble mx = (x[0] + x[1]) / 2, my = (y[0] + y[1]) / 2;
    const gdouble tx[2] = { mx, mx - uy / len * tick };
    const gdouble ty[2] = { my, my + ux / len * tick };
    gst_mv_overlay_draw_polyline (frame, tx, ty, 2, FALSE, LINE_RGB);
  }
}

static GstFlowReturn
gst_mv_overlay_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstMvOverlay * self = GST_MV_OVERLAY (trans);
  GstVideoFilter * filter = GST_VIDEO_FILTER (trans);
  const Settings s = snapshot_settings (self);
  GstVideoFrame frame;
  gpointer iter = NULL;
  GstMeta * m;

  if (G_UNLIKELY (!filter->negotiated))
    goto not_negotiated;
  if (!has_work (buf, s)) {
    GST_LOG_OBJECT (self, "nothing to draw on %" GST_PTR_FORMAT, buf);
    return GST_FLOW_OK;
  }

  if (!gst_video_frame_map (&frame, &filter->in_info, buf, GST_MAP_READWRITE))
    goto map_failed;

  if (s.mode != GST_MV_DRAW_NONE) {
    GstMvOverlayParams params;

    gst_mv_overlay_params_init (&params);
    params.min_magnitude = (gfloat) s.min_magnitude;
    params.arrow_scale = (gfloat) s.scale;
    while ((m = gst_buffer_iterate_meta_filtered (buf, &iter,
                GST_MOTION_VECTORS_META_API_TYPE))) {
      const GstMotionVectorsMeta * mv = (const GstMotionVectorsMeta *) m;

      if (!gst_motion_vectors_meta_is_valid (mv)) {
        GST_WARNING_OBJECT (self,
            "inconsistent motion-vector meta (%ux%u "
            "frame, %ux%u blocks, %ux%u grid, %u vectors), not drawn",
            mv->frame_width, mv->frame_height, mv->block_width,
            mv->block_height, mv->columns, mv->rows, mv->n_vectors);
        continue;
      }
      if (mv->frame_width != (guint) GST_VIDEO_FRAME_WIDTH (&frame)
          || mv->frame_height != (guint) GST_VIDEO_FRAME_HEIGHT (&frame))
        GST_LOG_OBJECT (self, "field of a %ux%u frame scaled to %dx%d",
            mv->frame_width, mv->frame_height, GST_VIDEO_FRAME_WIDTH (&frame),
            GST_VIDEO_FRAME_HEIGHT (&frame));
      gst_mv_overlay_draw_full (&frame, mv, s.mode, &params);
    }
  }

  if (s.regions) {
    iter = NULL;
    while ((m = gst_buffer_iterate_meta_filtered (buf, &iter,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      const GstVideoRegionOfInterestMeta * roi =
          (const GstVideoRegionOfInterestMeta *) m;

      if (!is_motion_region (roi))
        continue;
      /* guint fields: anything beyond G_MAXINT is off the frame anyway. */
      gst_mv_overlay_draw_rect (&frame, (gint) MIN (roi->x, (guint) G_MAXINT),
          (gint) MIN (roi->y, (guint) G_MAXINT),
          (gint) MIN (roi->w, (guint) G_MAXINT),
          (gint) MIN (roi->h, (guint) G_MAXINT), REGION_RGB, REGION_THICKNESS);
    }
  }
  /* The labels after every outline, so that no outline crosses a tag. */
  if (s.regions && s.tracks) {
    iter = NULL;
    while ((m = gst_buffer_iterate_meta_filtered (buf, &iter,
                GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
      GstVideoRegionOfInterestMeta * roi = (GstVideoRegionOfInterestMeta *) m;
      GstMotionRegion r;

      if (!is_motion_region (roi) || !gst_motion_region_from_roi_meta (roi, &r)
          || r.track_id == 0)
        continue;
      gst_mv_overlay_draw_track (&frame, (gint) MIN (roi->x, (guint) G_MAXINT),
          (gint) MIN (roi->y, (guint) G_MAXINT),
          (gint) MIN (roi->w, (guint) G_MAXINT),
          (gint) MIN (roi->h, (guint) G_MAXINT), r.track_id, r.vx, r.vy,
          REGION_RGB, DIRECTION_RGB);
    }
  }

  if (s.rules)
    draw_rules (self, buf, &frame);

  gst_video_frame_unmap (&frame);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated : {
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
      ("no caps set before the first buffer"));
  return GST_FLOW_NOT_NEGOTIATED;
}
map_failed : {
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"),
      ("%" GST_PTR_FORMAT, buf));
  return GST_FLOW_ERROR;
}
}
