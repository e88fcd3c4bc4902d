/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>
#include <gst/video/video.h>

#include "motionvectors.h"

/* The packed layout of gst_motion_vectors_meta_get_vectors_bytes() is the
 * struct itself. */
G_STATIC_ASSERT (sizeof (GstMotionVector) == GST_MOTION_VECTOR_PACKED_SIZE);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstMotionVector, dy) == 4);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstMotionVector, cost) == 8);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstMotionVector, confidence) == 12);
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstMotionVector, flags) == 16);

/* The storage's capacity follows the global motion in the padding and
 * leaves the struct's size alone (64-bit). */
G_STATIC_ASSERT (G_STRUCT_OFFSET (GstMotionVectorsMeta, ABI.alloc.capacity)
    >= G_STRUCT_OFFSET (GstMotionVectorsMeta, ABI.global)
    + sizeof (((GstMotionVectorsMeta *) 0)->ABI.global));
#if GLIB_SIZEOF_VOID_P == 8
G_STATIC_ASSERT (sizeof (((GstMotionVectorsMeta *) 0)->ABI) ==
    GST_PADDING * sizeof (gpointer));
#endif

GType
gst_motion_vectors_direction_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_MOTION_VECTORS_DIRECTION_FORWARD,
          "Blocks tile the earlier frame; vectors say where each block went",
        "forward"},
    {GST_MOTION_VECTORS_DIRECTION_BACKWARD,
        "Blocks tile the current frame; vectors say where each block came "
          "from (codec convention)", "backward"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMotionVectorsDirection", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

GType
gst_motion_vectors_meta_api_get_type (void)
{
  static GType type = 0;
  static const gchar *tags[] = { GST_META_TAG_VIDEO_STR,
    GST_META_TAG_VIDEO_SIZE_STR, GST_META_TAG_VIDEO_ORIENTATION_STR, NULL
  };

  if (g_once_init_enter (&type)) {
    GType _type = gst_meta_api_type_register ("GstMotionVectorsMetaAPI", tags);
    g_once_init_leave (&type, _type);
  }
  return type;
}

static gboolean
gst_motion_vectors_meta_init (GstMeta * meta, gpointer params,
    GstBuffer * buffer)
{
  GstMotionVectorsMeta *mv = (GstMotionVectorsMeta *) meta;

  (void) params;
  (void) buffer;
  mv->frame_width = mv->frame_height = 0;
  mv->block_width = mv->block_height = 0;
  mv->columns = mv->rows = 0;
  mv->direction = GST_MOTION_VECTORS_DIRECTION_BACKWARD;
  mv->reference_timestamp = GST_CLOCK_TIME_NONE;
  mv->precision = 1.0f;
  mv->method = g_intern_static_string ("unknown");
  mv->n_vectors = 0;
  mv->vectors = NULL;
  mv->storage = NULL;
  memset (&mv->storage_map, 0, sizeof (mv->storage_map));
  memset (&mv->ABI, 0, sizeof (mv->ABI));
  return TRUE;
}

static void
gst_motion_vectors_meta_free (GstMeta * meta, GstBuffer * buffer)
{
  GstMotionVectorsMeta *mv = (GstMotionVectorsMeta *) meta;

  (void) buffer;
  if (mv->storage) {
    gst_buffer_unmap (mv->storage, &mv->storage_map);
    gst_buffer_unref (mv->storage);
    mv->storage = NULL;
  }
  mv->vectors = NULL;
}

/* Geometry is checked in one place for both add functions. */
static gboolean
grid_size (guint fw, guint fh, guint bw, guint bh, guint * cols, guint * rows)
{
  if (fw == 0 || fh == 0 || bw == 0 || bh == 0)
    return FALSE;
  *cols = (fw + bw - 1) / bw;
  *rows = (fh + bh - 1) / bh;
  /* Keep the byte size well inside G_MAXSIZE on 32-bit too. */
  return (guint64) (*cols) * (*rows) <= G_MAXUINT32 / sizeof (GstMotionVector);
}

static GstMotionVectorsMeta *
add_meta (GstBuffer * buffer, GstBuffer * storage, gboolean init_vectors,
    guint fw, guint fh, guint bw, guint bh, GstMotionVectorsDirection dir)
{
  GstMotionVectorsMeta *mv;
  guint cols, rows, i;
  gsize need;
  GstMapInfo map;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  g_return_val_if_fail (gst_buffer_is_writable (buffer), NULL);

  if (!grid_size (fw, fh, bw, bh, &cols, &rows))
    goto invalid;
  need = (gsize) cols *rows * sizeof (GstMotionVector);

  if (!storage)
    storage = gst_buffer_new_allocate (NULL, need, NULL);
  if (!storage || gst_buffer_get_size (storage) < need)
    goto invalid;
  if (!gst_buffer_map (storage, &map, GST_MAP_READWRITE))
    goto invalid;

  mv = (GstMotionVectorsMeta *) gst_buffer_add_meta (buffer,
      GST_MOTION_VECTORS_META_INFO, NULL);
  mv->frame_width = fw;
  mv->frame_height = fh;
  mv->block_width = bw;
  mv->block_height = bh;
  mv->columns = cols;
  mv->rows = rows;
  mv->direction = dir;
  mv->n_vectors = cols * rows;
  mv->storage = storage;
  mv->storage_map = map;
  mv->vectors = (GstMotionVector *) map.data;
  mv->ABI.alloc.capacity = (guint) MIN (map.size / sizeof (GstMotionVector),
      G_MAXUINT);
  if (init_vectors) {
    for (i = 0; i < mv->n_vectors; i++) {
      mv->vectors[i].dx = mv->vectors[i].dy = 0.0f;
      mv->vectors[i].cost = 0;
      mv->vectors[i].confidence = -1.0f;
      mv->vectors[i].flags = GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
    }
  }
  return mv;

  /* ERRORS */
invalid:
  {
    GST_WARNING ("invalid motion-vector field %ux%u blocks %ux%u", fw, fh, bw,
        bh);
    if (storage)
      gst_buffer_unref (storage);
    return NULL;
  }
}

GstMotionVectorsMeta *
gst_buffer_add_motion_vectors_meta (GstBuffer * buffer, guint frame_width,
    guint frame_height, guint block_width, guint block_height,
    GstMotionVectorsDirection direction)
{
  return add_meta (buffer, NULL, TRUE, frame_width, frame_height, block_width,
      block_height, direction);
}

GstMotionVectorsMeta *
gst_buffer_add_motion_vectors_meta_with_storage (GstBuffer * buffer,
    GstBuffer * storage, guint frame_width, guint frame_height,
    guint block_width, guint block_height, GstMotionVectorsDirection direction)
{
  g_return_val_if_fail (GST_IS_BUFFER (storage), NULL);
  return add_meta (buffer, storage, FALSE, frame_width, frame_height,
      block_width, block_height, direction);
}

static GstMotionVectorsMeta *
copy_to (GstBuffer * dest, const GstMotionVectorsMeta * src)
{
  GstMotionVectorsMeta *mv;

  /* The fields may have been rewritten (bindings): copy only what the
   * source's storage really holds, in the geometry the copy gets. */
  if (!gst_motion_vectors_meta_is_valid (src))
    return NULL;
  mv = add_meta (dest, NULL, FALSE, src->frame_width, src->frame_height,
      src->block_width, src->block_height, src->direction);
  if (!mv)
    return NULL;
  mv->reference_timestamp = src->reference_timestamp;
  mv->precision = src->precision;
  mv->method = src->method;
  mv->ABI.global = src->ABI.global;
  memcpy (mv->vectors, src->vectors, src->n_vectors * sizeof (GstMotionVector));
  return mv;
}

static gboolean
gst_motion_vectors_meta_transform (GstBuffer * dest, GstMeta * meta,
    GstBuffer * buffer, GQuark type, gpointer data)
{
  GstMotionVectorsMeta *src = (GstMotionVectorsMeta *) meta;

  (void) buffer;
  if (GST_META_TRANSFORM_IS_COPY (type)) {
    return copy_to (dest, src) != NULL;
  } else if (GST_VIDEO_META_TRANSFORM_IS_SCALE (type)) {
    /* Kept as it is through conversions and resizes: the field stays in
     * the analysed frame's coordinates (frame_width x frame_height), which
     * a consumer compares with its own frame size to map blocks and
     * vectors (mvoverlay does); the block grid itself cannot be resampled
     * without changing what the vectors measured. */
    (void) data;
    return copy_to (dest, src) != NULL;
  }
  return FALSE;
}

const GstMetaInfo *
gst_motion_vectors_meta_get_info (void)
{
  static const GstMetaInfo *info = NULL;

  if (g_once_init_enter ((GstMetaInfo **) & info)) {
    const GstMetaInfo *meta =
        gst_meta_register (GST_MOTION_VECTORS_META_API_TYPE,
        "GstMotionVectorsMeta", sizeof (GstMotionVectorsMeta),
        gst_motion_vectors_meta_init, gst_motion_vectors_meta_free,
        gst_motion_vectors_meta_transform);
    g_once_init_leave ((GstMetaInfo **) & info, (GstMetaInfo *) meta);
  }
  return info;
}

GstMotionVector *
gst_motion_vectors_meta_get_vector (GstMotionVectorsMeta * meta, guint column,
    guint row)
{
  g_return_val_if_fail (meta != NULL, NULL);
  if (!gst_motion_vectors_meta_is_valid (meta) || column >= meta->columns
      || row >= meta->rows)
    return NULL;
  return &meta->vectors[row * meta->columns + column];
}

gboolean
gst_motion_vectors_meta_get_block_rect (GstMotionVectorsMeta * meta,
    guint index, guint * x, guint * y, guint * width, guint * height)
{
  guint bx, by;

  g_return_val_if_fail (meta != NULL, FALSE);
  if (!gst_motion_vectors_meta_is_valid (meta) || index >= meta->n_vectors)
    return FALSE;
  bx = (index % meta->columns) * meta->block_width;
  by = (index / meta->columns) * meta->block_height;
  if (x)
    *x = bx;
  if (y)
    *y = by;
  if (width)
    *width = MIN (meta->block_width, meta->frame_width - bx);
  if (height)
    *height = MIN (meta->block_height, meta->frame_height - by);
  return TRUE;
}

gboolean
gst_motion_vectors_meta_is_valid (const GstMotionVectorsMeta * meta)
{
  guint cols, rows;

  if (!meta || !meta->vectors || meta->frame_width > G_MAXINT32
      || meta->frame_height > G_MAXINT32
      || !grid_size (meta->frame_width, meta->frame_height, meta->block_width,
          meta->block_height, &cols, &rows))
    return FALSE;
  /* n_vectors is writable through bindings: the storage's own record of
   * its size, and the pointer into it, are what bound the reads. */
  return cols == meta->columns && rows == meta->rows
      && meta->n_vectors == cols * rows && meta->storage
      && (gpointer) meta->vectors == (gpointer) meta->storage_map.data
      && meta->n_vectors <= meta->ABI.alloc.capacity;
}

GstMotionVector *
gst_motion_vectors_meta_lookup (GstMotionVectorsMeta * meta, guint x, guint y)
{
  g_return_val_if_fail (meta != NULL, NULL);
  if (!gst_motion_vectors_meta_is_valid (meta) || x >= meta->frame_width
      || y >= meta->frame_height)
    return NULL;
  return gst_motion_vectors_meta_get_vector (meta, x / meta->block_width,
      y / meta->block_height);
}

GstMotionVectorsMeta *
gst_buffer_get_motion_vectors_meta (GstBuffer * buffer)
{
  g_return_val_if_fail (GST_IS_BUFFER (buffer), NULL);
  return (GstMotionVectorsMeta *) gst_buffer_get_meta (buffer,
      GST_MOTION_VECTORS_META_API_TYPE);
}

void
gst_motion_vectors_meta_get_geometry (const GstMotionVectorsMeta * meta,
    guint * frame_width, guint * frame_height, guint * block_width,
    guint * block_height, guint * columns, guint * rows)
{
  g_return_if_fail (meta != NULL);
  if (frame_width)
    *frame_width = meta->frame_width;
  if (frame_height)
    *frame_height = meta->frame_height;
  if (block_width)
    *block_width = meta->block_width;
  if (block_height)
    *block_height = meta->block_height;
  if (columns)
    *columns = meta->columns;
  if (rows)
    *rows = meta->rows;
}

GstMotionVector *
gst_motion_vectors_meta_get_vector_at (GstMotionVectorsMeta * meta, guint index)
{
  g_return_val_if_fail (meta != NULL, NULL);
  if (!gst_motion_vectors_meta_is_valid (meta) || index >= meta->n_vectors)
    return NULL;
  return &meta->vectors[index];
}

gboolean
gst_motion_vectors_meta_get_vector_values (const GstMotionVectorsMeta * meta,
    guint index, gfloat * dx, gfloat * dy, guint32 * cost,
    gfloat * confidence, guint32 * flags)
{
  const GstMotionVector *v;

  g_return_val_if_fail (meta != NULL, FALSE);
  if (!gst_motion_vectors_meta_is_valid (meta) || index >= meta->n_vectors)
    return FALSE;
  v = &meta->vectors[index];
  if (dx)
    *dx = v->dx;
  if (dy)
    *dy = v->dy;
  if (cost)
    *cost = v->cost;
  if (confidence)
    *confidence = v->confidence;
  if (flags)
    *flags = v->flags;
  return TRUE;
}

GBytes *
gst_motion_vectors_meta_get_vectors_bytes (const GstMotionVectorsMeta * meta)
{
  g_return_val_if_fail (meta != NULL, NULL);
  if (!gst_motion_vectors_meta_is_valid (meta))
    return NULL;
  return g_bytes_new (meta->vectors,
      (gsize) meta->n_vectors * GST_MOTION_VECTOR_PACKED_SIZE);
}

void
gst_motion_vectors_meta_set_global_motion (GstMotionVectorsMeta * meta,
    const gfloat * affine)
{
  g_return_if_fail (meta != NULL);
  g_return_if_fail (affine != NULL);
  memcpy (meta->ABI.global.affine, affine, sizeof (meta->ABI.global.affine));
  meta->ABI.global.set = TRUE;
}

gboolean
gst_motion_vectors_meta_get_global_motion (const GstMotionVectorsMeta * meta,
    gdouble x, gdouble y, gdouble * dx, gdouble * dy)
{
  const gfloat *a;

  if (dx)
    *dx = 0.0;
  if (dy)
    *dy = 0.0;
  g_return_val_if_fail (meta != NULL, FALSE);
  if (!meta->ABI.global.set)
    return FALSE;
  a = meta->ABI.global.affine;
  if (dx)
    *dx = a[0] + a[1] * x + a[2] * y;
  if (dy)
    *dy = a[3] + a[4] * x + a[5] * y;
  return TRUE;
}

gboolean
gst_motion_vectors_meta_copy_vectors (const GstMotionVectorsMeta * meta,
    GstMotionVector * vectors, guint n_vectors)
{
  g_return_val_if_fail (meta != NULL, FALSE);
  if (!gst_motion_vectors_meta_is_valid (meta) || n_vectors < meta->n_vectors
      || (meta->n_vectors > 0 && !vectors))
    return FALSE;
  memcpy (vectors, meta->vectors,
      (gsize) meta->n_vectors * GST_MOTION_VECTOR_PACKED_SIZE);
  return TRUE;
}

/* A guint64 field into `t`: GST_CLOCK_TIME_NONE when absent, FALSE when
 * it has another type (a string or a gint is not converted). */
static gboolean
get_time (const GstStructure * s, const gchar * field, GstClockTime * t)
{
  const GValue *v = gst_structure_get_value (s, field);

  if (!v) {
    *t = GST_CLOCK_TIME_NONE;
    return TRUE;
  }
  if (!G_VALUE_HOLDS_UINT64 (v))
    return FALSE;
  *t = g_value_get_uint64 (v);
  return TRUE;
}

/* The "regions" of a regions message: a GstValueList of structures named
 * GST_MOTION_REGION_STRUCTURE_NAME, or NULL. */
static const GValue *
get_region_list (const GstStructure * s)
{
  const GValue *list = gst_structure_get_value (s, "regions");
  guint i, n;

  if (!list || !GST_VALUE_HOLDS_LIST (list))
    return NULL;
  n = gst_value_list_get_size (list);
  for (i = 0; i < n; i++) {
    const GValue *item = gst_value_list_get_value (list, i);

    if (!GST_VALUE_HOLDS_STRUCTURE (item)
        || !gst_structure_has_name (gst_value_get_structure (item),
            GST_MOTION_REGION_STRUCTURE_NAME))
      return NULL;
  }
  return list;
}

/* The motion structure of `msg`, or NULL when it is not one. */
static const GstStructure *
motion_structure (GstMessage * msg, GstMotionEventType * type)
{
  const GstStructure *s;

  if (!msg || GST_MESSAGE_TYPE (msg) != GST_MESSAGE_ELEMENT)
    return NULL;
  s = gst_message_get_structure (msg);
  if (!s)
    return NULL;
  if (gst_structure_has_name (s, GST_MOTION_EVENT_START_NAME))
    *type = GST_MOTION_EVENT_START;
  else if (gst_structure_has_name (s, GST_MOTION_EVENT_STOP_NAME))
    *type = GST_MOTION_EVENT_STOP;
  else if (gst_structure_has_name (s, GST_MOTION_EVENT_REGIONS_NAME))
    *type = GST_MOTION_EVENT_REGIONS;
  else
    return NULL;
  return s;
}

gboolean
gst_motion_event_parse (GstMessage * msg, GstMotionEventType * type,
    GstClockTime * timestamp, GstClockTime * duration, guint * n_regions)
{
  const GstStructure *s;
  const GValue *list;
  GstMotionEventType t;
  GstClockTime ts, dur = GST_CLOCK_TIME_NONE;
  gint count = 0;

  s = motion_structure (msg, &t);
  if (!s || !get_time (s, "timestamp", &ts))
    return FALSE;
  switch (t) {
    case GST_MOTION_EVENT_START:
      if (!gst_structure_get_int (s, "regions", &count) || count < 0)
        return FALSE;
      break;
    case GST_MOTION_EVENT_STOP:
      if (!get_time (s, "duration", &dur) || !GST_CLOCK_TIME_IS_VALID (dur))
        return FALSE;
      if (gst_structure_has_field (s, "reason")
          && !gst_structure_has_field_typed (s, "reason", G_TYPE_STRING))
        return FALSE;
      break;
    case GST_MOTION_EVENT_REGIONS:
      list = get_region_list (s);
      if (!list)
        return FALSE;
      count = (gint) MIN (gst_value_list_get_size (list), (guint) G_MAXINT);
      break;
  }
  if (type)
    *type = t;
  if (timestamp)
    *timestamp = ts;
  if (duration)
    *duration = dur;
  if (n_regions)
    *n_regions = (guint) count;
  return TRUE;
}

/* The fields shared by a message's region structures and a ROI's
 * parameter; the track's are optional (decision=blocks has none). */
static gboolean
get_region_stats (const GstStructure * s, GstMotionRegion * r)
{
  if (!gst_structure_get_double (s, "mean-dx", &r->mean_dx)
      || !gst_structure_get_double (s, "mean-dy", &r->mean_dy)
      || !gst_structure_get_int (s, "area", &r->area)
      || !gst_structure_get_int (s, "pixels", &r->pixels))
    return FALSE;
  if (!gst_structure_get_uint (s, "track-id", &r->track_id)
      || !gst_structure_get_uint (s, "frames", &r->frames)
      || !gst_structure_get_uint64 (s, "age", &r->age)
      || !gst_structure_get_double (s, "vx", &r->vx)
      || !gst_structure_get_double (s, "vy", &r->vy)) {
    r->track_id = r->frames = 0;
    r->age = 0;
    r->vx = r->vy = 0.0;
  }
  return TRUE;
}

gboolean
gst_motion_event_get_region (GstMessage * msg, guint index,
    GstMotionRegion * region)
{
  const GstStructure *rs;
  const GValue *list, *item;
  GstMotionEventType t;
  GstMotionRegion r;
  guint n;

  g_return_val_if_fail (region != NULL, FALSE);
  /* Only what gst_motion_event_parse() accepts. */
  if (!gst_motion_event_parse (msg, &t, NULL, NULL, &n)
      || t != GST_MOTION_EVENT_REGIONS || index >= n)
    return FALSE;
  list = gst_structure_get_value (gst_message_get_structure (msg), "regions");
  item = gst_value_list_get_value (list, index);
  rs = gst_value_get_structure (item);
  memset (&r, 0, sizeof (r));
  if (!gst_structure_get_int (rs, "x", &r.x)
      || !gst_structure_get_int (rs, "y", &r.y)
      || !gst_structure_get_int (rs, "w", &r.w)
      || !gst_structure_get_int (rs, "h", &r.h) || !get_region_stats (rs, &r))
    return FALSE;
  *region = r;
  return TRUE;
}

gboolean
gst_motion_region_from_roi_meta (GstVideoRegionOfInterestMeta * roi,
    GstMotionRegion * region)
{
  GstStructure *param;
  GstMotionRegion r;

  g_return_val_if_fail (roi != NULL, FALSE);
  g_return_val_if_fail (region != NULL, FALSE);
  if (roi->roi_type != g_quark_from_static_string (GST_MOTION_REGION_ROI_TYPE))
    return FALSE;
  param = gst_video_region_of_interest_meta_get_param (roi,
      GST_MOTION_REGION_PARAM_NAME);
  if (!param)
    return FALSE;
  memset (&r, 0, sizeof (r));
  if (!get_region_stats (param, &r))
    return FALSE;
  r.x = (gint) MIN (roi->x, (guint) G_MAXINT);
  r.y = (gint) MIN (roi->y, (guint) G_MAXINT);
  r.w = (gint) MIN (roi->w, (guint) G_MAXINT);
  r.h = (gint) MIN (roi->h, (guint) G_MAXINT);
  *region = r;
  return TRUE;
}

/* The "motion" ROI metas of `buffer` that read as a region, ordered by ROI
 * id and then by attachment (meta seqnum). */
static gint
compare_roi (gconstpointer a, gconstpointer b)
{
  const GstVideoRegionOfInterestMeta *ra =
      *(const GstVideoRegionOfInterestMeta * const *) a;
  const GstVideoRegionOfInterestMeta *rb =
      *(const GstVideoRegionOfInterestMeta * const *) b;

  if (ra->id != rb->id)
    return ra->id < rb->id ? -1 : 1;
  return gst_meta_compare_seqnum ((GstMeta *) ra, (GstMeta *) rb);
}

static GPtrArray *
motion_rois (GstBuffer * buffer)
{
  GPtrArray *rois = g_ptr_array_new ();
  GstMotionRegion r;
  gpointer state = NULL;
  GstMeta *m;

  while ((m = gst_buffer_iterate_meta_filtered (buffer, &state,
              GST_VIDEO_REGION_OF_INTEREST_META_API_TYPE))) {
    GstVideoRegionOfInterestMeta *roi = (GstVideoRegionOfInterestMeta *) m;

    if (gst_motion_region_from_roi_meta (roi, &r))
      g_ptr_array_add (rois, roi);
  }
  g_ptr_array_sort (rois, compare_roi);
  return rois;
}

guint
gst_buffer_get_n_motion_regions (GstBuffer * buffer)
{
  GPtrArray *rois;
  guint n;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), 0);
  rois = motion_rois (buffer);
  n = rois->len;
  g_ptr_array_unref (rois);
  return n;
}

gboolean
gst_buffer_get_motion_region (GstBuffer * buffer, guint index,
    GstMotionRegion * region)
{
  GPtrArray *rois;
  gboolean ok = FALSE;

  g_return_val_if_fail (GST_IS_BUFFER (buffer), FALSE);
  g_return_val_if_fail (region != NULL, FALSE);
  rois = motion_rois (buffer);
  if (index < rois->len)
    ok = gst_motion_region_from_roi_meta (g_ptr_array_index (rois, index),
        region);
  g_ptr_array_unref (rois);
  return ok;
}
