/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * ONVIF analytics metadata (tt:MetadataStream, ONVIF Streaming and
 * Analytics specifications; schema onvif.xsd, namespace
 * http://www.onvif.org/ver10/schema) written from a frame's moving blocks,
 * tracked regions and motion events: the document builder of mvonvifmeta
 * (docs/onvif.md), plain functions on a GString so that tests can check
 * each piece. Locale independent; no allocation beyond the GString's and
 * the caller's scratch.
 */
#ifndef __MV_ONVIF_H__
#define __MV_ONVIF_H__

#include <cstdint>
#include <vector>

#include <glib.h>

/* The namespace of our extensions (mv:Velocity, in tt:Appearance's
 * extension point, which ONVIF leaves open to any namespace). */
#define MV_ONVIF_NAMESPACE "urn:gst-motion:onvif:1"

/* PackBits (Apple's run-length code, as TIFF's compression 32773): each
 * run of 3 to 128 equal bytes (2 at the end) as (1 - n, byte), every other
 * stretch of up to 128 bytes as (n - 1, bytes): at most one byte more per
 * 128. Appends to *out. */
void mv_onvif_packbits (const uint8_t * data, size_t n,
    std::vector<uint8_t> * out);
/* The inverse; FALSE on a truncated stream. Appends to *out. */
gboolean mv_onvif_unpackbits (const uint8_t * data, size_t n,
    std::vector<uint8_t> * out);

/* One bit per cell, row by row from the top left, the first cell of each
 * byte in its most significant bit, the last byte padded with zeros:
 * MotionInCells' bitmap before PackBits. moving[i] != 0 sets cell i. */
void mv_onvif_cells_bitmap (const uint8_t * moving, guint columns, guint rows,
    std::vector<uint8_t> * bits);

/* A time as xs:dateTime in UTC with milliseconds
 * ("2026-11-30T05:59:59.123Z"), from nanoseconds since the Unix epoch. */
void mv_onvif_append_utc (GString * out, gint64 unix_ns);

/* A coordinate or a speed, as xs:float text with up to 6 decimals. */
void mv_onvif_append_number (GString * out, gdouble v);

/* What a frame's document holds. Coordinates are pixels of a frame of
 * width x height; the document gives them in ONVIF's normalised system
 * (x from -1 at the left edge to 1 at the right, y from 1 at the top to -1
 * at the bottom). */
struct MvOnvifObject
{
  guint id; /* the track id: stable while the object is followed */
  gint x, y, w, h;
  /* Velocity, pixels per second, x right, y down; has_velocity FALSE when
   * the frame rate is unknown. */
  gboolean has_velocity;
  gdouble vx, vy;
};

struct MvOnvifEvent
{
  gint64 unix_ns = 0;           /* when it happened */
  gboolean is_motion = FALSE;   /* motion: the state from then on */
  gboolean initialized = FALSE; /* its first report, "Initialized" */
  /* A line crossing (LineDetector's Crossed) of track `object`, else
   * motion (CellMotionDetector's Motion). */
  gboolean crossing = FALSE;
  guint object = 0;
  /* The rule: the line's or the zone's name, or NULL for the tokens'. */
  const gchar * rule = nullptr;
  /* Else, with `field`: the FieldDetector's ObjectsInside of track
   * `object` in the zone `rule`: IsInside `inside` ("Initialized" for the
   * object's first report, else "Changed"), or `deleted` (the object left
   * the scene: its key without data). */
  gboolean field = FALSE;
  gboolean inside = FALSE;
  gboolean deleted = FALSE;
};

struct MvOnvifTokens
{
  const gchar * source;    /* VideoSourceConfigurationToken */
  const gchar * analytics; /* VideoAnalyticsConfigurationToken */
  const gchar * rule;      /* the CellMotionDetector rule's name */
};

/* Begins a document (the XML declaration and tt:MetadataStream with its
 * namespaces); truncates `out` first. */
void mv_onvif_begin (GString * out);
/* One tt:VideoAnalytics/tt:Frame: its objects and, when `moving` is not
 * NULL, the frame's MotionInCells (columns x rows cells: PackBits of
 * mv_onvif_cells_bitmap (), base64). `scratch` and `packed` are the
 * caller's, kept between frames. */
void mv_onvif_append_frame (GString * out, gint64 unix_ns, gint width,
    gint height, const MvOnvifObject * objects, guint n_objects,
    const uint8_t * moving, guint columns, guint rows,
    std::vector<uint8_t> * scratch, std::vector<uint8_t> * packed);
/* One tt:Event: the CellMotionDetector's Motion message
 * (tns1:RuleEngine/CellMotionDetector/Motion, IsMotion), for a line
 * crossing the LineDetector's (tns1:RuleEngine/LineDetector/Crossed,
 * ObjectId), for a field the FieldDetector's
 * (tns1:RuleEngine/FieldDetector/ObjectsInside, key ObjectId, IsInside);
 * the event's rule or the tokens' as its Rule. */
void mv_onvif_append_event (GString * out, const MvOnvifEvent & event,
    const MvOnvifTokens & tokens);
/* Ends the document. */
void mv_onvif_end (GString * out);

#endif /* __MV_ONVIF_H__ */
