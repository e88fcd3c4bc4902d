/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-mvexport
 * @title: mvexport
 *
 * Writes the #GstMotionVectorsMeta of each buffer to files, so that motion
 * fields can be exported from a pipeline without writing code. Buffers pass
 * through untouched (the element never maps them); buffers without a meta
 * are ignored.
 *
 * Two formats (see docs/export.md for the details and sign conventions):
 *
 * - `format=json` (default): one file, one JSON object per line and per
 *   frame (JSON Lines), with the grid geometry, timestamps and every block's
 *   (dx, dy, cost, flags). `location=-` writes to standard output. Each
 *   line is flushed as soon as it is written.
 * - `format=flo`: one Middlebury .flo file per frame, dense at the frame
 *   size (each pixel takes its block's vector, blocks without an estimate
 *   are unknown flow). @location must hold one integer conversion such as
 *   `%05d`, replaced by the frame number as in multifilesink.
 *
 * Frame numbers start at #GstMvExport:index and count the buffers that
 * carry a meta, whether or not a file is written for them, so the JSON
 * `frame` field and the .flo file names agree. The number is that of the
 * frame the meta is attached to, i.e. the later frame of the pair: with
 * `index=0` the first .flo written is `...00001.flo`, the motion between
 * frames 0 and 1 (which is also Sintel's 1-based naming of that pair).
 *
 * #GstMvExport:skip-empty (default %TRUE) only applies to `format=flo`: a
 * frame whose vectors are all NO_ESTIMATE (the first frame, or the first
 * after a flush or caps change) writes no .flo. JSON always gets one line
 * per frame with a meta, the empty ones with every flag NO_ESTIMATE (2).
 *
 * For Middlebury-style evaluation use `blockmatchme direction=forward`: a
 * forward field's .flo follows the .flo convention I1(x, y) ~ I2(x + u,
 * y + v). A backward field is written as it is, on the current frame's
 * grid, with vectors pointing to the previous frame.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     blockmatchme ! mvexport location=field.jsonl ! fakesink
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     blockmatchme direction=forward subpixel=quarter ! \
 *     mvexport format=flo location=flow-%05d.flo ! fakesink
 * gst-launch-1.0 -q videotestsrc num-buffers=3 pattern=ball ! \
 *     blockmatchme ! mvexport location=- ! fakesink
 * ]|
 */
/* Implementation notes.
 *
 * A GstBaseTransform in passthrough mode with transform_ip still called
 * (transform_ip_on_passthrough), so the buffer is neither copied nor made
 * writable; the element only reads the meta. Caps are ANY.
 *
 * Nothing is allocated per frame in steady state: the JSON line is built in
 * one GString, the .flo row buffer and the path buffer are kept from start
 * to stop (apart from what fopen() itself allocates for each .flo).
 *
 * The user's location is never used as a format string as given: start()
 * accepts it only with exactly one integer conversion (flags, width and
 * precision allowed, %% escapes kept) and rewrites that conversion with an
 * "ll" length so the 64-bit frame number is passed with the right type.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvexport.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <gst/motionvectors/motionvectors.h>

#include "common/mvwriter.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_export_debug);
#define GST_CAT_DEFAULT gst_mv_export_debug

typedef enum
{
  GST_MV_EXPORT_FORMAT_JSON = 0,
  GST_MV_EXPORT_FORMAT_FLO = 1,
} GstMvExportFormat;

#define DEFAULT_PROP_LOCATION NULL
#define DEFAULT_PROP_FORMAT GST_MV_EXPORT_FORMAT_JSON
#define DEFAULT_PROP_SKIP_EMPTY TRUE
#define DEFAULT_PROP_INDEX 0

/* Widths/precisions above this in the location pattern are refused. */
#define MAX_PATTERN_WIDTH 64

enum
{
  PROP_0,
  PROP_LOCATION,
  PROP_FORMAT,
  PROP_SKIP_EMPTY,
  PROP_INDEX,
};

/* Protected by the object lock. */
struct Settings
{
  gchar * location;
  GstMvExportFormat format;
  gboolean skip_empty;
  gint index;
};

struct _GstMvExport
{
  GstBaseTransform parent;

  Settings settings;

  /* Streaming state, set up in start, released in stop. */
  GstMvExportFormat format;
  FILE * file; /* json: the output; NULL for flo */
  gboolean file_is_stdout;
  gchar * location; /* json: the path; flo: the rewritten pattern */
  GString * line;   /* json: the current line */
  gchar * path;     /* flo: the current file name */
  gsize path_size;
  gfloat * row; /* flo: one row of (u, v) */
  gsize row_floats;
  guint64 frame; /* number of the next frame with a meta */
};

#define gst_mv_export_parent_class parent_class
G_DEFINE_TYPE (GstMvExport, gst_mv_export, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (mvexport, "mvexport", GST_RANK_NONE,
    GST_TYPE_MV_EXPORT);

#define GST_TYPE_MV_EXPORT_FORMAT (gst_mv_export_format_get_type ())
static GType
gst_mv_export_format_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_MV_EXPORT_FORMAT_JSON,
        "One JSON object per frame and line (JSON "
        "Lines) in a single file",
        "json" },
    { GST_MV_EXPORT_FORMAT_FLO, "One dense Middlebury .flo file per frame",
        "flo" },
    { 0, NULL, NULL }
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMvExportFormat", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void gst_mv_export_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_mv_export_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_mv_export_finalize (GObject * object);
static gboolean gst_mv_export_start (GstBaseTransform * trans);
static gboolean gst_mv_export_stop (GstBaseTransform * trans);
static gboolean gst_mv_export_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_mv_export_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);

static void
gst_mv_export_class_init (GstMvExportClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->set_property = gst_mv_export_set_property;
  gobject_class->get_property = gst_mv_export_get_property;
  gobject_class->finalize = gst_mv_export_finalize;

  /**
   * GstMvExport:location:
   *
   * format=json: the output file ("-" = standard output).
   * format=flo: a file name pattern with exactly one integer conversion
   * (e.g. `flow-%05d.flo`) replaced by the frame number.
   */
  g_object_class_install_property (gobject_class, PROP_LOCATION,
      g_param_spec_string ("location", "File location",
          "Output file (format=json, \"-\" for stdout) or file name pattern "
          "with one integer conversion such as %05d replaced by the frame "
          "number (format=flo)",
          DEFAULT_PROP_LOCATION, rw_ready));
  g_object_class_install_property (gobject_class, PROP_FORMAT,
      g_param_spec_enum ("format", "Format",
          "Output format: json (one line per frame in one file) or flo (one "
          "dense Middlebury .flo per frame)",
          GST_TYPE_MV_EXPORT_FORMAT, DEFAULT_PROP_FORMAT, rw_ready));
  /**
   * GstMvExport:skip-empty:
   *
   * format=flo only: write no file for frames without any estimate (every
   * vector flagged NO_ESTIMATE, e.g. the first frame). Their frame number
   * is still used up. JSON always gets a line per frame.
   */
  g_object_class_install_property (gobject_class, PROP_SKIP_EMPTY,
      g_param_spec_boolean ("skip-empty", "Skip empty fields",
          "format=flo: write no file for frames where no block has an "
          "estimate (the first frame); json always writes every frame",
          DEFAULT_PROP_SKIP_EMPTY, rw_playing));
  /**
   * GstMvExport:index:
   *
   * Number given to the first frame that carries a meta after start; each
   * such frame adds one. Reads back the configured value.
   */
  g_object_class_install_property (gobject_class, PROP_INDEX,
      g_param_spec_int ("index", "Index",
          "Frame number of the first frame with a meta (JSON \"frame\" and "
          ".flo file names)",
          0, G_MAXINT, DEFAULT_PROP_INDEX, rw_ready));

  gst_element_class_set_static_metadata (element_class,
      "Motion vector exporter", "Filter/Analyzer/Video",
      "Writes GstMotionVectorsMeta fields to JSON Lines or Middlebury .flo "
      "files; buffers pass through unchanged",
      "gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_mv_export_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_mv_export_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_mv_export_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_mv_export_transform_ip);
  trans_class->transform_ip_on_passthrough = TRUE;

  gst_type_mark_as_plugin_api (GST_TYPE_MV_EXPORT_FORMAT,
      (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_mv_export_debug, "mvexport", 0,
      "Motion vector exporter");
}

static void
gst_mv_export_init (GstMvExport * self)
{
  Settings & s = self->settings;

  s.location = g_strdup (DEFAULT_PROP_LOCATION);
  s.format = DEFAULT_PROP_FORMAT;
  s.skip_empty = DEFAULT_PROP_SKIP_EMPTY;
  s.index = DEFAULT_PROP_INDEX;

  self->format = DEFAULT_PROP_FORMAT;
  self->file = NULL;
  self->file_is_stdout = FALSE;
  self->location = NULL;
  self->line = NULL;
  self->path = NULL;
  self->path_size = 0;
  self->row = NULL;
  self->row_floats = 0;
  self->frame = 0;

  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
}

static void
gst_mv_export_finalize (GObject * object)
{
  GstMvExport * self = GST_MV_EXPORT (object);

  g_free (self->settings.location);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_export_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvExport * self = GST_MV_EXPORT (object);
  Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_free (s.location);
      s.location = g_value_dup_string (value);
      break;
    case PROP_FORMAT:
      s.format = (GstMvExportFormat) g_value_get_enum (value);
      break;
    case PROP_SKIP_EMPTY:
      s.skip_empty = g_value_get_boolean (value);
      break;
    case PROP_INDEX:
      s.index = g_value_get_int (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_export_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvExport * self = GST_MV_EXPORT (object);
  const Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_LOCATION:
      g_value_set_string (value, s.location);
      break;
    case PROP_FORMAT:
      g_value_set_enum (value, s.format);
      break;
    case PROP_SKIP_EMPTY:
      g_value_set_boolean (value, s.skip_empty);
      break;
    case PROP_INDEX:
      g_value_set_int (value, s.index);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

/* Checks that `location` has exactly one integer conversion
 * (%[-+ 0#]*[0-9]*(.[0-9]*)?[diouxX]) besides %% escapes and returns it
 * rewritten with an "ll" length modifier, or NULL. */
static gchar *
make_flo_pattern (const gchar * location)
{
  GString * out = g_string_sized_new (strlen (location) + 4);
  guint conversions = 0;
  const gchar * p = location;

  while (*p) {
    if (*p != '%') {
      g_string_append_c (out, *p++);
      continue;
    }
    const gchar * start = p++;
    if (*p == '%') {
      g_string_append_len (out, "%%", 2);
      p++;
      continue;
    }
    while (*p && strchr ("-+ 0#", *p))
      p++;
    guint width = 0, precision = 0;
    while (g_ascii_isdigit (*p) && width <= MAX_PATTERN_WIDTH)
      width = width * 10 + (*p++ - '0');
    if (*p == '.') {
      p++;
      while (g_ascii_isdigit (*p) && precision <= MAX_PATTERN_WIDTH)
        precision = precision * 10 + (*p++ - '0');
    }
    if (!*p || !strchr ("diouxX", *p) || width > MAX_PATTERN_WIDTH
        || precision > MAX_PATTERN_WIDTH || ++conversions > 1)
      goto invalid;
    g_string_append_len (out, start, p - start);
    g_string_append_len (out, "ll", 2);
    g_string_append_c (out, *p++);
  }
  if (conversions != 1)
    goto invalid;
  return g_string_free (out, FALSE);

invalid:
  g_string_free (out, TRUE);
  return NULL;
}

static void
release_state (GstMvExport * self)
{
  if (self->file && !self->file_is_stdout)
    fclose (self->file);
  self->file = NULL;
  self->file_is_stdout = FALSE;
  g_clear_pointer (&self->location, g_free);
  if (self->line)
    g_string_free (self->line, TRUE);
  self->line = NULL;
  g_clear_pointer (&self->path, g_free);
  self->path_size = 0;
  g_clear_pointer (&self->row, g_free);
  self->row_floats = 0;
}

static gboolean
gst_mv_export_start (GstBaseTransform * trans)
{
  GstMvExport * self = GST_MV_EXPORT (trans);

  release_state (self);

  GST_OBJECT_LOCK (self);
  gchar * location = g_strdup (self->settings.location);
  self->format = self->settings.format;
  self->frame = (guint64) self->settings.index;
  GST_OBJECT_UNLOCK (self);

  if (!location || !*location)
    goto no_location;

  if (self->format == GST_MV_EXPORT_FORMAT_JSON) {
    if (strcmp (location, "-") == 0) {
      self->file = stdout;
      self->file_is_stdout = TRUE;
    } else {
      self->file = fopen (location, "wb");
      if (!self->file)
        goto open_failed;
    }
    self->line = g_string_sized_new (4096);
    GST_INFO_OBJECT (self, "writing JSON lines to %s", location);
    self->location = location;
  } else {
    self->location = make_flo_pattern (location);
    if (!self->location)
      goto bad_pattern;
    /* The directory is checked now so that a wrong path fails at start,
     * not at the second frame. Directories made of the pattern itself
     * can only be checked when their files are opened. */
    gchar * dir = g_path_get_dirname (location);
    const gboolean dir_ok =
        strchr (dir, '%') != NULL || g_file_test (dir, G_FILE_TEST_IS_DIR);
    g_free (dir);
    if (!dir_ok) {
      errno = ENOENT;
      goto open_failed;
    }
    self->path_size = strlen (self->location) + 2 * MAX_PATTERN_WIDTH + 24;
    self->path = (gchar *) g_malloc (self->path_size);
    GST_INFO_OBJECT (self,
        "writing .flo files to %s from frame %" G_GUINT64_FORMAT, location,
        self->frame);
    g_free (location);
  }
  return TRUE;

  /* ERRORS */
no_location : {
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
      ("No file name specified for writing."), ("set the location property"));
  g_free (location);
  return FALSE;
}
open_failed : {
  const int err = errno;
  GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
      ("Could not open file \"%s\" for writing.", location),
      ("%s", g_strerror (err)));
  g_free (location);
  release_state (self);
  return FALSE;
}
bad_pattern : {
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("Invalid location \"%s\" for format=flo.", location),
      ("the location must contain exactly one integer conversion such as "
       "%%05d (and %%%% for a literal %%), with width and precision "
       "up to %d",
          MAX_PATTERN_WIDTH));
  g_free (location);
  release_state (self);
  return FALSE;
}
}

static gboolean
gst_mv_export_stop (GstBaseTransform * trans)
{
  GstMvExport * self = GST_MV_EXPORT (trans);
  gboolean ok = TRUE;

  if (self->file) {
    const int res =
        self->file_is_stdout ? fflush (self->file) : fclose (self->file);
    self->file = NULL;
    if (res != 0) {
      const int err = errno;
      GST_ELEMENT_ERROR (self, RESOURCE, CLOSE,
          ("Error closing file \"%s\".", self->location),
          ("%s", g_strerror (err)));
      ok = FALSE;
    }
  }
  release_state (self);
  return ok;
}

static gboolean
gst_mv_export_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstMvExport * self = GST_MV_EXPORT (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->file
      && fflush (self->file) != 0) {
    const int err = errno;
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Error while writing to file \"%s\".", self->location),
        ("%s", g_strerror (err)));
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static GstFlowReturn
write_json (GstMvExport * self, const GstMotionVectorsMeta * meta,
    guint64 frame, GstClockTime pts)
{
  g_string_truncate (self->line, 0);
  gst_mv_meta_append_json (self->line, meta, frame, pts);
  g_string_append_c (self->line, '\n');
  /* Flushed per line: readers see whole frames as they come, and a write
   * error is reported for the frame that caused it. */
  if (fwrite (self->line->str, 1, self->line->len, self->file)
          != self->line->len
      || fflush (self->file) != 0) {
    const int err = errno;
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Error while writing to file \"%s\".", self->location),
        ("frame %" G_GUINT64_FORMAT ": %s", frame, g_strerror (err)));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

static GstFlowReturn
write_flo (GstMvExport * self, const GstMotionVectorsMeta * meta, guint64 frame)
{
  /* make_flo_pattern() vetted the pattern: one integer conversion with an
   * "ll" length, widths bounded so that path_size always suffices. */
  g_snprintf (self->path, self->path_size, self->location, (long long) frame);

  FILE * f = fopen (self->path, "wb");
  if (!f) {
    const int err = errno;
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("Could not open file \"%s\" for writing.", self->path),
        ("%s", g_strerror (err)));
    return GST_FLOW_ERROR;
  }
  gboolean ok =
      gst_mv_write_flo_with_scratch (f, meta, &self->row, &self->row_floats);
  int err = errno;
  if (fclose (f) != 0 && ok) {
    err = errno;
    ok = FALSE;
  }
  if (!ok) {
    GST_ELEMENT_ERROR (self, RESOURCE, WRITE,
        ("Error while writing to file \"%s\".", self->path),
        ("%s", g_strerror (err)));
    return GST_FLOW_ERROR;
  }
  GST_LOG_OBJECT (self, "wrote %s", self->path);
  return GST_FLOW_OK;
}

static GstFlowReturn
gst_mv_export_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstMvExport * self = GST_MV_EXPORT (trans);
  GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (buf);

  if (!meta) {
    GST_LOG_OBJECT (self, "buffer %" GST_PTR_FORMAT " has no motion vectors",
        buf);
    return GST_FLOW_OK;
  }
  if (G_UNLIKELY (!self->location))
    goto not_started;

  {
    const guint64 frame = self->frame++;

    if (!gst_motion_vectors_meta_is_valid (meta)) {
      GST_ELEMENT_WARNING (self, STREAM, FORMAT,
          ("Inconsistent motion-vector meta, frame %" G_GUINT64_FORMAT
           " not written",
              frame),
          ("%ux%u frame, %ux%u blocks, %ux%u grid, %u vectors",
              meta->frame_width, meta->frame_height, meta->block_width,
              meta->block_height, meta->columns, meta->rows, meta->n_vectors));
      return GST_FLOW_OK;
    }

    if (self->format == GST_MV_EXPORT_FORMAT_JSON)
      return write_json (self, meta, frame, GST_BUFFER_PTS (buf));

    GST_OBJECT_LOCK (self);
    const gboolean skip_empty = self->settings.skip_empty;
    GST_OBJECT_UNLOCK (self);
    if (skip_empty && !gst_mv_meta_has_estimate (meta)) {
      GST_DEBUG_OBJECT (self,
          "frame %" G_GUINT64_FORMAT " has no estimate, "
          "no .flo written",
          frame);
      return GST_FLOW_OK;
    }
    return write_flo (self, meta, frame);
  }

  /* ERRORS */
not_started : {
  GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL), ("not started"));
  return GST_FLOW_ERROR;
}
}
