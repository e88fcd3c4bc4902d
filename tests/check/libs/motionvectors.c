/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The public GstMotionVectorsMeta API (libgstmotionvectors), from C: adding
 * and getting, the grid geometry with partial edge blocks, accessors in and
 * out of range, initial values, invalid arguments, caller-provided storage,
 * copies, the scale transform and the direction enum; the motion-event
 * helpers (gst_motion_event_parse, gst_motion_event_get_region,
 * gst_motion_region_from_roi_meta) on hand-made messages and ROI metas;
 * the functions for bindings (buffer -> meta, geometry, vector i, the
 * packed GBytes and copy, the buffer's motion regions).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <gst/check/gstcheck.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

static GstMotionVectorsMeta *
add_meta (GstBuffer * buf, guint w, guint h, guint bw, guint bh)
{
  GstMotionVectorsMeta *meta = gst_buffer_add_motion_vectors_meta (buf, w, h,
      bw, bh, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  fail_unless (meta != NULL);
  return meta;
}

/* A recognisable, index-dependent field. */
static void
fill_field (GstMotionVectorsMeta * meta, guint seed)
{
  guint i;

  for (i = 0; i < meta->n_vectors; i++) {
    GstMotionVector *v = &meta->vectors[i];
    v->dx = (gfloat) ((gint) ((i * 7 + seed) % 33) - 16) * 0.25f;
    v->dy = (gfloat) ((gint) ((i * 3 + seed) % 17) - 8) * 0.5f;
    v->cost = i * 11 + seed;
    v->confidence = (gfloat) (i % 10) / 10.0f;
    v->flags = (i % 3 == 0) ? GST_MOTION_VECTOR_FLAG_SUPPRESSED : 0;
  }
}

static void
assert_same_meta (const GstMotionVectorsMeta * a,
    const GstMotionVectorsMeta * b)
{
  fail_unless_equals_int (a->frame_width, b->frame_width);
  fail_unless_equals_int (a->frame_height, b->frame_height);
  fail_unless_equals_int (a->block_width, b->block_width);
  fail_unless_equals_int (a->block_height, b->block_height);
  fail_unless_equals_int (a->columns, b->columns);
  fail_unless_equals_int (a->rows, b->rows);
  fail_unless_equals_int (a->direction, b->direction);
  fail_unless_equals_uint64 (a->reference_timestamp, b->reference_timestamp);
  fail_unless_equals_float (a->precision, b->precision);
  fail_unless (a->method == b->method);
  fail_unless_equals_int (a->n_vectors, b->n_vectors);
  fail_unless (memcmp (a->vectors, b->vectors,
          a->n_vectors * sizeof (GstMotionVector)) == 0);
}

GST_START_TEST (test_add_get)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorsMeta *meta;

  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == NULL);
  meta = gst_buffer_add_motion_vectors_meta (buf, 640, 480, 16, 8,
      GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless (meta != NULL);
  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == meta);
  fail_unless (meta->meta.info == GST_MOTION_VECTORS_META_INFO);
  fail_unless (meta->meta.info->api == GST_MOTION_VECTORS_META_API_TYPE);
  fail_unless_equals_int (meta->frame_width, 640);
  fail_unless_equals_int (meta->frame_height, 480);
  fail_unless_equals_int (meta->block_width, 16);
  fail_unless_equals_int (meta->block_height, 8);
  fail_unless_equals_int (meta->columns, 40);
  fail_unless_equals_int (meta->rows, 60);
  fail_unless_equals_int (meta->n_vectors, 40 * 60);
  fail_unless_equals_int (meta->direction,
      GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless (meta->vectors != NULL);
  /* The API carries the video tags, so size-changing elements consult the
   * transform function. */
  fail_unless (gst_meta_api_type_has_tag (GST_MOTION_VECTORS_META_API_TYPE,
          g_quark_from_string (GST_META_TAG_VIDEO_STR)));
  fail_unless (gst_meta_api_type_has_tag (GST_MOTION_VECTORS_META_API_TYPE,
          g_quark_from_string (GST_META_TAG_VIDEO_SIZE_STR)));
  fail_unless (gst_buffer_remove_meta (buf, (GstMeta *) meta));
  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == NULL);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_grid_size)
{
  /* { w, h, bw, bh, columns, rows } */
  static const guint cases[][6] = {
    {641, 479, 16, 16, 41, 30},
    {640, 480, 16, 16, 40, 30},
    {1920, 1080, 16, 16, 120, 68},
    {7, 5, 16, 16, 1, 1},
    {7, 5, 3, 2, 3, 3},
    {1, 1, 1, 1, 1, 1},
    {33, 17, 8, 4, 5, 5},
  };
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *buf = gst_buffer_new ();
    GstMotionVectorsMeta *meta = add_meta (buf, cases[i][0], cases[i][1],
        cases[i][2], cases[i][3]);

    fail_unless_equals_int (meta->columns, cases[i][4]);
    fail_unless_equals_int (meta->rows, cases[i][5]);
    fail_unless_equals_int (meta->n_vectors, cases[i][4] * cases[i][5]);
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

GST_START_TEST (test_initial_values)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorsMeta *meta = add_meta (buf, 641, 479, 16, 16);
  guint i;

  fail_unless_equals_int (meta->direction,
      GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  fail_unless_equals_uint64 (meta->reference_timestamp, GST_CLOCK_TIME_NONE);
  fail_unless_equals_float (meta->precision, 1.0f);
  fail_unless_equals_string (meta->method, "unknown");
  fail_unless (meta->method == g_intern_static_string ("unknown"));
  for (i = 0; i < meta->n_vectors; i++) {
    fail_unless_equals_int (meta->vectors[i].flags,
        GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
    fail_unless_equals_float (meta->vectors[i].dx, 0.0f);
    fail_unless_equals_float (meta->vectors[i].dy, 0.0f);
    fail_unless_equals_int (meta->vectors[i].cost, 0);
    fail_unless_equals_float (meta->vectors[i].confidence, -1.0f);
  }
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_get_vector)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorsMeta *meta = add_meta (buf, 641, 479, 16, 16);
  guint c, r;

  for (r = 0; r < meta->rows; r++)
    for (c = 0; c < meta->columns; c++)
      fail_unless (gst_motion_vectors_meta_get_vector (meta, c, r) ==
          &meta->vectors[r * meta->columns + c]);
  fail_unless (gst_motion_vectors_meta_get_vector (meta, 41, 0) == NULL);
  fail_unless (gst_motion_vectors_meta_get_vector (meta, 0, 30) == NULL);
  fail_unless (gst_motion_vectors_meta_get_vector (meta, 41, 30) == NULL);
  fail_unless (gst_motion_vectors_meta_get_vector (meta, G_MAXUINT, 0) == NULL);
  fail_unless (gst_motion_vectors_meta_get_vector (meta, 0, G_MAXUINT) == NULL);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_block_rect)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorsMeta *meta = add_meta (buf, 641, 479, 16, 16);
  guint x = 99, y = 99, w = 99, h = 99, i, covered = 0;

  fail_unless (gst_motion_vectors_meta_get_block_rect (meta, 0, &x, &y, &w,
          &h));
  fail_unless (x == 0 && y == 0 && w == 16 && h == 16);
  /* Second block of the second row. */
  fail_unless (gst_motion_vectors_meta_get_block_rect (meta, 41 + 1, &x, &y,
          &w, &h));
  fail_unless (x == 16 && y == 16 && w == 16 && h == 16);
  /* Partial last column: one pixel wide. */
  fail_unless (gst_motion_vectors_meta_get_block_rect (meta, 40, &x, &y, &w,
          &h));
  fail_unless (x == 640 && y == 0 && w == 1 && h == 16);
  /* Partial last row: 479 - 464 = 15 rows. */
  fail_unless (gst_motion_vectors_meta_get_block_rect (meta, 29 * 41, &x, &y,
          &w, &h));
  fail_unless (x == 0 && y == 464 && w == 16 && h == 15);
  /* The corner block is partial both ways. */
  fail_unless (gst_motion_vectors_meta_get_block_rect (meta,
          meta->n_vectors - 1, &x, &y, &w, &h));
  fail_unless (x == 640 && y == 464 && w == 1 && h == 15);
  /* Every out parameter is optional. */
  fail_unless (gst_motion_vectors_meta_get_block_rect (meta, 5, NULL, NULL,
          NULL, NULL));
  fail_unless (gst_motion_vectors_meta_get_block_rect (meta, 5, NULL, &y,
          NULL, &h));
  fail_unless (y == 0 && h == 16);

  /* Out of range: FALSE, outputs untouched. */
  x = y = w = h = 77;
  fail_if (gst_motion_vectors_meta_get_block_rect (meta, meta->n_vectors, &x,
          &y, &w, &h));
  fail_if (gst_motion_vectors_meta_get_block_rect (meta, G_MAXUINT, &x, &y,
          &w, &h));
  fail_unless (x == 77 && y == 77 && w == 77 && h == 77);

  /* The blocks tile the frame exactly. */
  for (i = 0; i < meta->n_vectors; i++) {
    fail_unless (gst_motion_vectors_meta_get_block_rect (meta, i, &x, &y, &w,
            &h));
    fail_unless (x + w <= 641 && y + h <= 479 && w > 0 && h > 0);
    covered += w * h;
  }
  fail_unless_equals_int (covered, 641 * 479);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_lookup)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorsMeta *meta = add_meta (buf, 641, 479, 16, 16);

  fail_unless (gst_motion_vectors_meta_lookup (meta, 0, 0) ==
      &meta->vectors[0]);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 15, 15) ==
      &meta->vectors[0]);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 16, 0) ==
      &meta->vectors[1]);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 0, 16) ==
      &meta->vectors[41]);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 640, 0) ==
      &meta->vectors[40]);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 640, 478) ==
      &meta->vectors[meta->n_vectors - 1]);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 639, 470) ==
      &meta->vectors[29 * 41 + 39]);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 641, 0) == NULL);
  fail_unless (gst_motion_vectors_meta_lookup (meta, 0, 479) == NULL);
  fail_unless (gst_motion_vectors_meta_lookup (meta, G_MAXUINT,
          G_MAXUINT) == NULL);
  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_invalid_args)
{
  static const guint cases[][4] = {
    {0, 480, 16, 16}, {640, 0, 16, 16}, {640, 480, 0, 16}, {640, 480, 16, 0},
    {0, 0, 0, 0},
  };
  GstBuffer *buf = gst_buffer_new ();
  GstBuffer *ro;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (cases); i++) {
    GstBuffer *storage = gst_buffer_new_allocate (NULL, 1024, NULL);

    fail_unless (gst_buffer_add_motion_vectors_meta (buf, cases[i][0],
            cases[i][1], cases[i][2], cases[i][3],
            GST_MOTION_VECTORS_DIRECTION_BACKWARD) == NULL);
    fail_unless (gst_buffer_add_motion_vectors_meta_with_storage (buf,
            storage, cases[i][0], cases[i][1], cases[i][2], cases[i][3],
            GST_MOTION_VECTORS_DIRECTION_BACKWARD) == NULL);
  }
  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == NULL);

  /* A buffer that is not writable: a critical, no meta. */
  ro = gst_buffer_ref (buf);
  ASSERT_CRITICAL (fail_unless (gst_buffer_add_motion_vectors_meta (ro, 64,
              64, 16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD) == NULL));
  gst_buffer_unref (ro);
  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == NULL);
  gst_buffer_unref (buf);
}

GST_END_TEST;

static void
set_flag (gpointer data, GstMiniObject * obj)
{
  (void) obj;
  *(gboolean *) data = TRUE;
}

GST_START_TEST (test_with_storage)
{
  const guint n = 41 * 30;
  const gsize need = n * sizeof (GstMotionVector);
  GstBuffer *buf = gst_buffer_new ();
  GstBuffer *storage = gst_buffer_new_allocate (NULL, need, NULL);
  GstMotionVectorsMeta *meta;
  GstMotionVector *src = g_new0 (GstMotionVector, n);
  gboolean freed = FALSE;
  guint i;

  /* The storage's content is used as is. */
  for (i = 0; i < n; i++) {
    src[i].dx = (gfloat) i;
    src[i].dy = -(gfloat) i;
    src[i].cost = i;
    src[i].confidence = 0.5f;
    src[i].flags = GST_MOTION_VECTOR_FLAG_UNRELIABLE;
  }
  gst_buffer_fill (storage, 0, src, need);
  gst_mini_object_weak_ref (GST_MINI_OBJECT (storage), set_flag, &freed);

  meta = gst_buffer_add_motion_vectors_meta_with_storage (buf, storage, 641,
      479, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless (meta != NULL);
  fail_unless_equals_int (meta->n_vectors, n);
  fail_unless_equals_int (meta->direction,
      GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless_equals_uint64 (meta->reference_timestamp, GST_CLOCK_TIME_NONE);
  fail_unless (memcmp (meta->vectors, src, need) == 0);

  /* Writes through the meta land in the storage. */
  meta->vectors[3].dx = 123.25f;
  {
    GstMotionVector v;
    gst_buffer_extract (storage, 3 * sizeof (GstMotionVector), &v, sizeof v);
    fail_unless_equals_float (v.dx, 123.25f);
  }

  /* The meta owns the storage and releases it with the buffer. */
  fail_if (freed);
  gst_buffer_unref (buf);
  fail_unless (freed);

  /* Larger storage is fine. */
  buf = gst_buffer_new ();
  storage = gst_buffer_new_allocate (NULL, need + 100, NULL);
  fail_unless (gst_buffer_add_motion_vectors_meta_with_storage (buf, storage,
          641, 479, 16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD) != NULL);
  gst_buffer_unref (buf);

  /* Too small: NULL, no meta, the storage is unreffed. */
  buf = gst_buffer_new ();
  storage = gst_buffer_new_allocate (NULL, need - 1, NULL);
  freed = FALSE;
  gst_mini_object_weak_ref (GST_MINI_OBJECT (storage), set_flag, &freed);
  fail_unless (gst_buffer_add_motion_vectors_meta_with_storage (buf, storage,
          641, 479, 16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD) == NULL);
  fail_unless (freed);
  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == NULL);

  /* Empty storage, and storage given with invalid geometry. */
  storage = gst_buffer_new ();
  fail_unless (gst_buffer_add_motion_vectors_meta_with_storage (buf, storage,
          16, 16, 16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD) == NULL);
  storage = gst_buffer_new_allocate (NULL, need, NULL);
  freed = FALSE;
  gst_mini_object_weak_ref (GST_MINI_OBJECT (storage), set_flag, &freed);
  fail_unless (gst_buffer_add_motion_vectors_meta_with_storage (buf, storage,
          641, 479, 0, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD) == NULL);
  fail_unless (freed);
  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == NULL);
  gst_buffer_unref (buf);
  g_free (src);
}

GST_END_TEST;

static GstBuffer *
buffer_with_field (gboolean with_storage)
{
  GstBuffer *buf = gst_buffer_new_allocate (NULL, 64, NULL);
  GstMotionVectorsMeta *meta;

  if (with_storage) {
    GstBuffer *storage = gst_buffer_new_allocate (NULL,
        41 * 30 * sizeof (GstMotionVector), NULL);
    meta = gst_buffer_add_motion_vectors_meta_with_storage (buf, storage, 641,
        479, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD);
  } else {
    meta = gst_buffer_add_motion_vectors_meta (buf, 641, 479, 16, 16,
        GST_MOTION_VECTORS_DIRECTION_FORWARD);
  }
  fail_unless (meta != NULL);
  fill_field (meta, 5);
  meta->reference_timestamp = 3 * GST_SECOND;
  meta->precision = 0.25f;
  meta->method = g_intern_static_string ("full");
  return buf;
}

GST_START_TEST (test_copy)
{
  gint k;

  for (k = 0; k < 2; k++) {
    GstBuffer *buf = buffer_with_field (k == 1);
    GstMotionVectorsMeta *orig = gst_buffer_get_motion_vectors_meta (buf);
    GstBuffer *copy = gst_buffer_copy (buf);
    GstMotionVectorsMeta *cm = gst_buffer_get_motion_vectors_meta (copy);
    GstMotionVector saved;

    fail_unless (cm != NULL);
    fail_unless (cm != orig);
    assert_same_meta (orig, cm);
    fail_unless_equals_string (cm->method, "full");
    /* Independent storage. */
    fail_unless (cm->vectors != orig->vectors);
    saved = orig->vectors[7];
    cm->vectors[7].dx += 10.0f;
    cm->vectors[7].flags = GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
    fail_unless (memcmp (&orig->vectors[7], &saved, sizeof saved) == 0);
    orig->vectors[8].dy = 99.0f;
    fail_if (cm->vectors[8].dy == 99.0f);
    gst_buffer_unref (copy);

    /* make_writable on a shared buffer copies, meta included. */
    {
      GstBuffer *shared = gst_buffer_ref (buf);
      GstBuffer *w = gst_buffer_make_writable (shared);
      GstMotionVectorsMeta *wm;

      fail_unless (w != buf);
      wm = gst_buffer_get_motion_vectors_meta (w);
      fail_unless (wm != NULL);
      assert_same_meta (orig, wm);
      fail_unless (wm->vectors != orig->vectors);
      wm->vectors[0].dx = -50.0f;
      fail_if (orig->vectors[0].dx == -50.0f);
      gst_buffer_unref (w);
    }
    /* The original outlives its copies intact. */
    fail_unless_equals_float (orig->vectors[8].dy, 99.0f);
    gst_buffer_unref (buf);
  }
}

GST_END_TEST;

static gboolean
scale_transform (GstBuffer * dest, GstBuffer * src, guint in_w, guint in_h,
    guint out_w, guint out_h)
{
  GstMotionVectorsMeta *meta = gst_buffer_get_motion_vectors_meta (src);
  const GstMetaInfo *info = meta->meta.info;
  GstVideoInfo in_info, out_info;
  GstVideoMetaTransform trans = { &in_info, &out_info };

  fail_unless (gst_video_info_set_format (&in_info, GST_VIDEO_FORMAT_I420,
          in_w, in_h));
  fail_unless (gst_video_info_set_format (&out_info, GST_VIDEO_FORMAT_BGRx,
          out_w, out_h));
  fail_unless (info->transform_func != NULL);
  return info->transform_func (dest, (GstMeta *) meta, src,
      gst_video_meta_transform_scale_get_quark (), &trans);
}

GST_START_TEST (test_scale_transform)
{
  GstBuffer *src = buffer_with_field (TRUE);
  GstMotionVectorsMeta *orig = gst_buffer_get_motion_vectors_meta (src);
  GstBuffer *dest;
  GstMotionVectorsMeta *dm;

  /* Same size (a format conversion): kept, identical, own storage. */
  dest = gst_buffer_new ();
  fail_unless (scale_transform (dest, src, 641, 479, 641, 479));
  dm = gst_buffer_get_motion_vectors_meta (dest);
  fail_unless (dm != NULL);
  assert_same_meta (orig, dm);
  fail_unless (dm->vectors != orig->vectors);
  gst_buffer_unref (dest);

  /* A resize: kept in the analysed frame's coordinates (its frame size
   * and grid unchanged), for consumers that map it to their frame. */
  dest = gst_buffer_new ();
  fail_unless (scale_transform (dest, src, 641, 479, 320, 240));
  dm = gst_buffer_get_motion_vectors_meta (dest);
  fail_unless (dm != NULL);
  assert_same_meta (orig, dm);
  fail_unless_equals_int (dm->frame_width, 641);
  fail_unless_equals_int (dm->frame_height, 479);
  gst_buffer_unref (dest);
  dest = gst_buffer_new ();

  /* A transform it does not know: dropped. */
  fail_if (orig->meta.info->transform_func (dest, (GstMeta *) orig, src,
          g_quark_from_static_string ("gst-motion-test-unknown"), NULL));
  fail_unless (gst_buffer_get_motion_vectors_meta (dest) == NULL);

  /* The copy transform, as gst_buffer_copy_into() calls it. */
  {
    GstMetaTransformCopy copy = { FALSE, 0, (gsize) - 1 };
    fail_unless (orig->meta.info->transform_func (dest, (GstMeta *) orig,
            src, _gst_meta_transform_copy, &copy));
    dm = gst_buffer_get_motion_vectors_meta (dest);
    fail_unless (dm != NULL);
    assert_same_meta (orig, dm);
  }
  gst_buffer_unref (dest);
  gst_buffer_unref (src);
}

GST_END_TEST;

GST_START_TEST (test_is_valid)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorsMeta *meta;
  GstMotionVectorsMeta copy;

  meta = gst_buffer_add_motion_vectors_meta (buf, 641, 479, 16, 16,
      GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless (gst_motion_vectors_meta_is_valid (meta));
  fail_if (gst_motion_vectors_meta_is_valid (NULL));

  /* Each inconsistency on its own makes the meta invalid. */
  copy = *meta;
  copy.columns = 40;
  fail_if (gst_motion_vectors_meta_is_valid (&copy));
  copy = *meta;
  copy.n_vectors = meta->n_vectors + 1;
  fail_if (gst_motion_vectors_meta_is_valid (&copy));
  copy = *meta;
  copy.block_height = 0;
  fail_if (gst_motion_vectors_meta_is_valid (&copy));
  copy = *meta;
  copy.frame_width = 640;       /* 40 columns, meta says 41 */
  fail_if (gst_motion_vectors_meta_is_valid (&copy));
  copy = *meta;
  copy.vectors = NULL;
  fail_if (gst_motion_vectors_meta_is_valid (&copy));

  /* A consistent grid larger than the storage (bindings can write the
   * fields): invalid, and no accessor reads past the 41 x 30 vectors. */
  copy = *meta;
  copy.frame_width = 41 * 16 * 16;
  copy.columns = 41 * 16;
  copy.n_vectors = copy.columns * copy.rows;
  fail_if (gst_motion_vectors_meta_is_valid (&copy));
  fail_unless (gst_motion_vectors_meta_get_vector_at (&copy, 41 * 30) == NULL);
  fail_unless (gst_motion_vectors_meta_get_vector (&copy, 41 * 16 - 1,
          29) == NULL);
  fail_unless (gst_motion_vectors_meta_lookup (&copy, 41 * 16 * 16 - 1,
          478) == NULL);
  fail_if (gst_motion_vectors_meta_get_vector_values (&copy, 41 * 30, NULL,
          NULL, NULL, NULL, NULL));
  fail_if (gst_motion_vectors_meta_get_block_rect (&copy, 41 * 30, NULL,
          NULL, NULL, NULL));
  fail_unless (gst_motion_vectors_meta_get_vectors_bytes (&copy) == NULL);
  /* Zero columns: FALSE, not a division by zero. */
  copy = *meta;
  copy.columns = 0;
  fail_if (gst_motion_vectors_meta_get_block_rect (&copy, 0, NULL, NULL, NULL,
          NULL));
  /* vectors no longer pointing at the storage. */
  copy = *meta;
  copy.vectors = meta->vectors + 1;
  fail_if (gst_motion_vectors_meta_is_valid (&copy));
  fail_unless (gst_motion_vectors_meta_get_vector_at (&copy, 0) == NULL);

  gst_buffer_unref (buf);
}

GST_END_TEST;

GST_START_TEST (test_direction_enum)
{
  GType type = GST_TYPE_MOTION_VECTORS_DIRECTION;
  GEnumClass *klass;
  GEnumValue *v;

  fail_unless (G_TYPE_IS_ENUM (type));
  fail_unless_equals_string (g_type_name (type), "GstMotionVectorsDirection");
  fail_unless (gst_motion_vectors_direction_get_type () == type);
  klass = (GEnumClass *) g_type_class_ref (type);
  fail_unless_equals_int (klass->n_values, 2);
  v = g_enum_get_value (klass, GST_MOTION_VECTORS_DIRECTION_FORWARD);
  fail_unless (v != NULL);
  fail_unless_equals_string (v->value_nick, "forward");
  v = g_enum_get_value (klass, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  fail_unless (v != NULL);
  fail_unless_equals_string (v->value_nick, "backward");
  v = g_enum_get_value_by_nick (klass, "backward");
  fail_unless (v != NULL);
  fail_unless_equals_int (v->value, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  v = g_enum_get_value_by_nick (klass, "forward");
  fail_unless (v != NULL);
  fail_unless_equals_int (v->value, GST_MOTION_VECTORS_DIRECTION_FORWARD);
  g_type_class_unref (klass);
}

GST_END_TEST;

/* ---- motion events and regions ---------------------------------------- */

static GstMessage *
element_message (GstStructure * s)
{
  return gst_message_new_element (NULL, s);
}

static GstStructure *
region_structure (gint x, gint area)
{
  return gst_structure_new (GST_MOTION_REGION_STRUCTURE_NAME,
      "x", G_TYPE_INT, x, "y", G_TYPE_INT, 32, "w", G_TYPE_INT, 48,
      "h", G_TYPE_INT, 16, "mean-dx", G_TYPE_DOUBLE, -2.5,
      "mean-dy", G_TYPE_DOUBLE, 0.25, "area", G_TYPE_INT, area,
      "pixels", G_TYPE_INT, area * 256, NULL);
}

/* A regions message as the elements post it, with `n` regions. */
static GstMessage *
regions_message (guint n, GstClockTime ts)
{
  GValue list = G_VALUE_INIT;
  GstStructure *s;
  guint i;

  g_value_init (&list, GST_TYPE_LIST);
  for (i = 0; i < n; i++) {
    GValue item = G_VALUE_INIT;
    g_value_init (&item, GST_TYPE_STRUCTURE);
    g_value_take_boxed (&item, region_structure (16 * i, i + 1));
    gst_value_list_append_and_take_value (&list, &item);
  }
  s = gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME,
      "timestamp", G_TYPE_UINT64, (guint64) ts, NULL);
  gst_structure_take_value (s, "regions", &list);
  return element_message (s);
}

GST_START_TEST (test_motion_event_parse)
{
  GstMotionEventType type;
  GstClockTime ts, dur;
  guint n;
  GstMessage *m;

  fail_unless_equals_string (GST_MOTION_EVENT_START_NAME, "motion-start");
  fail_unless_equals_string (GST_MOTION_EVENT_STOP_NAME, "motion-stop");
  fail_unless_equals_string (GST_MOTION_EVENT_REGIONS_NAME, "motion-regions");

  m = element_message (gst_structure_new (GST_MOTION_EVENT_START_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 5 * GST_SECOND,
          "regions", G_TYPE_INT, 3, NULL));
  fail_unless (gst_motion_event_parse (m, &type, &ts, &dur, &n));
  fail_unless_equals_int (type, GST_MOTION_EVENT_START);
  fail_unless_equals_uint64 (ts, 5 * GST_SECOND);
  fail_unless_equals_uint64 (dur, GST_CLOCK_TIME_NONE);
  fail_unless_equals_int (n, 3);
  /* Every output is optional. */
  fail_unless (gst_motion_event_parse (m, NULL, NULL, NULL, NULL));
  gst_message_unref (m);

  m = element_message (gst_structure_new (GST_MOTION_EVENT_STOP_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 7 * GST_SECOND,
          "duration", G_TYPE_UINT64, (guint64) 2 * GST_SECOND,
          "reason", G_TYPE_STRING, "hold-off", NULL));
  n = 99;
  fail_unless (gst_motion_event_parse (m, &type, &ts, &dur, &n));
  fail_unless_equals_int (type, GST_MOTION_EVENT_STOP);
  fail_unless_equals_uint64 (ts, 7 * GST_SECOND);
  fail_unless_equals_uint64 (dur, 2 * GST_SECOND);
  fail_unless_equals_int (n, 0);
  gst_message_unref (m);

  m = regions_message (2, GST_SECOND);
  fail_unless (gst_motion_event_parse (m, &type, &ts, &dur, &n));
  fail_unless_equals_int (type, GST_MOTION_EVENT_REGIONS);
  fail_unless_equals_uint64 (ts, GST_SECOND);
  fail_unless_equals_uint64 (dur, GST_CLOCK_TIME_NONE);
  fail_unless_equals_int (n, 2);
  gst_message_unref (m);

  /* Not motion messages: outputs untouched. */
  type = GST_MOTION_EVENT_STOP;
  ts = 1;
  m = element_message (gst_structure_new ("motion", "motion_begin",
          G_TYPE_UINT64, (guint64) 0, NULL));
  fail_if (gst_motion_event_parse (m, &type, &ts, NULL, NULL));
  gst_message_unref (m);
  m = gst_message_new_eos (NULL);
  fail_if (gst_motion_event_parse (m, &type, &ts, NULL, NULL));
  gst_message_unref (m);
  fail_if (gst_motion_event_parse (NULL, &type, &ts, NULL, NULL));
  /* Missing or mistyped fields. */
  m = element_message (gst_structure_new (GST_MOTION_EVENT_START_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 0,
          "regions", G_TYPE_UINT, 3, NULL));
  fail_if (gst_motion_event_parse (m, &type, &ts, NULL, NULL));
  gst_message_unref (m);
  m = element_message (gst_structure_new (GST_MOTION_EVENT_STOP_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 0, NULL));
  fail_if (gst_motion_event_parse (m, &type, &ts, NULL, NULL));
  gst_message_unref (m);
  m = element_message (gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 0, "regions", G_TYPE_INT, 1,
          NULL));
  fail_if (gst_motion_event_parse (m, &type, &ts, NULL, NULL));
  gst_message_unref (m);
  fail_unless_equals_int (type, GST_MOTION_EVENT_STOP);
  fail_unless_equals_uint64 (ts, 1);

  /* A missing timestamp reads as NONE. */
  m = element_message (gst_structure_new (GST_MOTION_EVENT_START_NAME,
          "regions", G_TYPE_INT, 1, NULL));
  fail_unless (gst_motion_event_parse (m, NULL, &ts, NULL, NULL));
  fail_unless_equals_uint64 (ts, GST_CLOCK_TIME_NONE);
  gst_message_unref (m);
}

GST_END_TEST;

/* parse() of `s` (taken) as an element message is FALSE and leaves its
 * outputs untouched. */
static void
assert_parse_rejects (GstStructure * s)
{
  gchar *str = gst_structure_to_string (s);
  GstMessage *m = element_message (s);
  GstMotionEventType type = (GstMotionEventType) 77;
  GstClockTime ts = 11, dur = 12;
  guint n = 13;
  GstMotionRegion r;

  fail_if (gst_motion_event_parse (m, &type, &ts, &dur, &n), "accepted %s",
      str);
  g_free (str);
  fail_unless_equals_int (type, 77);
  fail_unless_equals_uint64 (ts, 11);
  fail_unless_equals_uint64 (dur, 12);
  fail_unless_equals_int (n, 13);
  fail_if (gst_motion_event_get_region (m, 0, &r));
  gst_message_unref (m);
}

/* A "regions" list holding `a` and `b` (taken). */
static GstStructure *
regions_with (const GValue * a, const GValue * b)
{
  GValue list = G_VALUE_INIT;
  GValue item = G_VALUE_INIT;
  GstStructure *s;

  g_value_init (&list, GST_TYPE_LIST);
  g_value_init (&item, G_VALUE_TYPE (a));
  g_value_copy (a, &item);
  gst_value_list_append_and_take_value (&list, &item);
  if (b) {
    g_value_init (&item, G_VALUE_TYPE (b));
    g_value_copy (b, &item);
    gst_value_list_append_and_take_value (&list, &item);
  }
  s = gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME, "timestamp",
      G_TYPE_UINT64, (guint64) GST_SECOND, NULL);
  gst_structure_take_value (s, "regions", &list);
  return s;
}

/* Types are checked: a field of the documented name but another type is
 * not read as absent or converted; the message is rejected (issue 33). */
GST_START_TEST (test_motion_event_parse_strict)
{
  static const gchar *names[] = { GST_MOTION_EVENT_START_NAME,
    GST_MOTION_EVENT_STOP_NAME, GST_MOTION_EVENT_REGIONS_NAME
  };
  GValue region = G_VALUE_INIT, other = G_VALUE_INIT, number = G_VALUE_INIT;
  GValue array = G_VALUE_INIT;
  GstStructure *s;
  GstMessage *m;
  guint i, n;

  /* The timestamp: a guint64, or absent; never a string, gint, gint64 or
   * double, on each of the three messages. */
  for (i = 0; i < G_N_ELEMENTS (names); i++) {
    GstMessage *good = i == 2 ? regions_message (1, GST_SECOND) :
        element_message (gst_structure_new (names[i],
            "timestamp", G_TYPE_UINT64, (guint64) GST_SECOND,
            "regions", G_TYPE_INT, 1, "duration", G_TYPE_UINT64,
            (guint64) GST_SECOND, "reason", G_TYPE_STRING, "eos", NULL));

    fail_unless (gst_motion_event_parse (good, NULL, NULL, NULL, NULL));
    s = gst_structure_copy (gst_message_get_structure (good));
    gst_structure_set (s, "timestamp", G_TYPE_STRING, "1000000000", NULL);
    assert_parse_rejects (s);
    s = gst_structure_copy (gst_message_get_structure (good));
    gst_structure_set (s, "timestamp", G_TYPE_INT, 1, NULL);
    assert_parse_rejects (s);
    s = gst_structure_copy (gst_message_get_structure (good));
    gst_structure_set (s, "timestamp", G_TYPE_INT64, (gint64) 1, NULL);
    assert_parse_rejects (s);
    s = gst_structure_copy (gst_message_get_structure (good));
    gst_structure_set (s, "timestamp", G_TYPE_DOUBLE, 1.0, NULL);
    assert_parse_rejects (s);
    gst_message_unref (good);
  }

  /* motion-stop: a duration of another type, a reason not a string. */
  assert_parse_rejects (gst_structure_new (GST_MOTION_EVENT_STOP_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 0, "duration", G_TYPE_STRING,
          "1", "reason", G_TYPE_STRING, "eos", NULL));
  assert_parse_rejects (gst_structure_new (GST_MOTION_EVENT_STOP_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 0, "duration", G_TYPE_UINT64,
          (guint64) 1, "reason", G_TYPE_INT, 3, NULL));

  /* The regions: a list of "motion-region" structures, nothing else. */
  g_value_init (&region, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&region, region_structure (0, 1));
  g_value_init (&other, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&other, gst_structure_new ("not-a-region", "x",
          G_TYPE_INT, 0, NULL));
  g_value_init (&number, G_TYPE_INT);
  g_value_set_int (&number, 5);
  /* A list of ints; of another structure; a region then another
   * structure (GstValueList keeps its items of one type). */
  assert_parse_rejects (regions_with (&number, &number));
  assert_parse_rejects (regions_with (&other, NULL));
  assert_parse_rejects (regions_with (&region, &other));
  /* An array (GstValueArray), not a list, of regions. */
  g_value_init (&array, GST_TYPE_ARRAY);
  gst_value_array_append_value (&array, &region);
  s = gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME, "timestamp",
      G_TYPE_UINT64, (guint64) 0, NULL);
  gst_structure_take_value (s, "regions", &array);
  assert_parse_rejects (s);
  /* A string in place of the list. */
  assert_parse_rejects (gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 0, "regions", G_TYPE_STRING,
          "{ }", NULL));

  /* Not vacuous: the same builder with regions only is accepted, and so is
   * an empty list. */
  m = element_message (regions_with (&region, &region));
  fail_unless (gst_motion_event_parse (m, NULL, NULL, NULL, &n));
  fail_unless_equals_int (n, 2);
  gst_message_unref (m);
  s = gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME, "timestamp",
      G_TYPE_UINT64, (guint64) 0, NULL);
  g_value_init (&array, GST_TYPE_LIST);
  gst_structure_take_value (s, "regions", &array);
  m = element_message (s);
  fail_unless (gst_motion_event_parse (m, NULL, NULL, NULL, &n));
  fail_unless_equals_int (n, 0);
  gst_message_unref (m);

  g_value_unset (&region);
  g_value_unset (&other);
  g_value_unset (&number);
}

GST_END_TEST;

GST_START_TEST (test_motion_event_get_region)
{
  GstMotionRegion r;
  GstMessage *m;
  GValue list = G_VALUE_INIT, item = G_VALUE_INIT;
  GstStructure *s, *partial;

  m = regions_message (3, 0);
  fail_unless (gst_motion_event_get_region (m, 2, &r));
  fail_unless_equals_int (r.x, 32);
  fail_unless_equals_int (r.y, 32);
  fail_unless_equals_int (r.w, 48);
  fail_unless_equals_int (r.h, 16);
  fail_unless_equals_float (r.mean_dx, -2.5);
  fail_unless_equals_float (r.mean_dy, 0.25);
  fail_unless_equals_int (r.area, 3);
  fail_unless_equals_int (r.pixels, 768);
  fail_unless (gst_motion_event_get_region (m, 0, &r));
  fail_unless_equals_int (r.x, 0);
  fail_unless_equals_int (r.area, 1);
  r.x = -7;
  fail_if (gst_motion_event_get_region (m, 3, &r));
  fail_unless_equals_int (r.x, -7);
  gst_message_unref (m);

  /* Not a regions message. */
  m = element_message (gst_structure_new (GST_MOTION_EVENT_START_NAME,
          "timestamp", G_TYPE_UINT64, (guint64) 0,
          "regions", G_TYPE_INT, 1, NULL));
  fail_if (gst_motion_event_get_region (m, 0, &r));
  gst_message_unref (m);

  /* An entry without "pixels"; an entry that is not a structure. */
  partial = region_structure (0, 1);
  gst_structure_remove_field (partial, "pixels");
  g_value_init (&list, GST_TYPE_LIST);
  g_value_init (&item, GST_TYPE_STRUCTURE);
  g_value_take_boxed (&item, partial);
  gst_value_list_append_and_take_value (&list, &item);
  s = gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME,
      "timestamp", G_TYPE_UINT64, (guint64) 0, NULL);
  gst_structure_take_value (s, "regions", &list);
  m = element_message (s);
  fail_if (gst_motion_event_get_region (m, 0, &r));
  gst_message_unref (m);

  g_value_init (&list, GST_TYPE_LIST);
  g_value_init (&item, G_TYPE_INT);
  g_value_set_int (&item, 5);
  gst_value_list_append_and_take_value (&list, &item);
  s = gst_structure_new (GST_MOTION_EVENT_REGIONS_NAME,
      "timestamp", G_TYPE_UINT64, (guint64) 0, NULL);
  gst_structure_take_value (s, "regions", &list);
  m = element_message (s);
  fail_if (gst_motion_event_get_region (m, 0, &r));
  gst_message_unref (m);
}

GST_END_TEST;

GST_START_TEST (test_motion_region_from_roi_meta)
{
  GstBuffer *buf = gst_buffer_new ();
  GstVideoRegionOfInterestMeta *roi, *other, *bare, *partial;
  GstMotionRegion r;

  fail_unless_equals_string (GST_MOTION_REGION_ROI_TYPE, "motion");
  fail_unless_equals_string (GST_MOTION_REGION_PARAM_NAME, "motion");
  roi = gst_buffer_add_video_region_of_interest_meta (buf,
      GST_MOTION_REGION_ROI_TYPE, 16, 32, 48, 64);
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new (GST_MOTION_REGION_PARAM_NAME,
          "mean-dx", G_TYPE_DOUBLE, 3.5, "mean-dy", G_TYPE_DOUBLE, -1.0,
          "area", G_TYPE_INT, 12, "pixels", G_TYPE_INT, 3072, NULL));
  fail_unless (gst_motion_region_from_roi_meta (roi, &r));
  fail_unless_equals_int (r.x, 16);
  fail_unless_equals_int (r.y, 32);
  fail_unless_equals_int (r.w, 48);
  fail_unless_equals_int (r.h, 64);
  fail_unless_equals_float (r.mean_dx, 3.5);
  fail_unless_equals_float (r.mean_dy, -1.0);
  fail_unless_equals_int (r.area, 12);
  fail_unless_equals_int (r.pixels, 3072);

  /* The box is the meta's own: it follows a rescale downstream. */
  roi->x = 8;
  roi->w = 24;
  fail_unless (gst_motion_region_from_roi_meta (roi, &r));
  fail_unless_equals_int (r.x, 8);
  fail_unless_equals_int (r.w, 24);

  /* Another type with the same parameter, a motion ROI without it, and
   * one with an incomplete parameter: refused, output untouched. */
  other = gst_buffer_add_video_region_of_interest_meta (buf, "face", 0, 0, 4,
      4);
  gst_video_region_of_interest_meta_add_param (other,
      gst_structure_new (GST_MOTION_REGION_PARAM_NAME,
          "mean-dx", G_TYPE_DOUBLE, 3.5, "mean-dy", G_TYPE_DOUBLE, -1.0,
          "area", G_TYPE_INT, 12, "pixels", G_TYPE_INT, 3072, NULL));
  bare = gst_buffer_add_video_region_of_interest_meta (buf,
      GST_MOTION_REGION_ROI_TYPE, 0, 0, 4, 4);
  partial = gst_buffer_add_video_region_of_interest_meta (buf,
      GST_MOTION_REGION_ROI_TYPE, 0, 0, 4, 4);
  gst_video_region_of_interest_meta_add_param (partial,
      gst_structure_new (GST_MOTION_REGION_PARAM_NAME,
          "mean-dx", G_TYPE_DOUBLE, 3.5, "area", G_TYPE_INT, 12, NULL));
  r.x = -7;
  fail_if (gst_motion_region_from_roi_meta (other, &r));
  fail_if (gst_motion_region_from_roi_meta (bare, &r));
  fail_if (gst_motion_region_from_roi_meta (partial, &r));
  fail_unless_equals_int (r.x, -7);
  gst_buffer_unref (buf);
}

GST_END_TEST;

/* The binding accessors (functions, not field reads) agree with the
 * struct: buffer -> meta, geometry, vector i, the packed bytes and the
 * caller-allocated copy. */
GST_START_TEST (test_binding_accessors)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionVectorsMeta *meta;
  guint fw, fh, bw, bh, cols, rows, i;
  gfloat dx, dy, conf;
  guint32 cost, flags;
  GBytes *bytes;
  gsize size;
  const guint8 *data;
  GstMotionVector *copy;

  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == NULL);
  meta = add_meta (buf, 70, 33, 16, 8);
  fill_field (meta, 5);
  fail_unless (gst_buffer_get_motion_vectors_meta (buf) == meta);

  gst_motion_vectors_meta_get_geometry (meta, &fw, &fh, &bw, &bh, &cols, &rows);
  fail_unless_equals_int (fw, 70);
  fail_unless_equals_int (fh, 33);
  fail_unless_equals_int (bw, 16);
  fail_unless_equals_int (bh, 8);
  fail_unless_equals_int (cols, 5);
  fail_unless_equals_int (rows, 5);
  gst_motion_vectors_meta_get_geometry (meta, NULL, NULL, NULL, NULL, NULL,
      &rows);
  fail_unless_equals_int (rows, 5);

  for (i = 0; i < meta->n_vectors; i++) {
    fail_unless (gst_motion_vectors_meta_get_vector_at (meta, i) ==
        &meta->vectors[i]);
    fail_unless (gst_motion_vectors_meta_get_vector_values (meta, i, &dx, &dy,
            &cost, &conf, &flags));
    fail_unless (dx == meta->vectors[i].dx && dy == meta->vectors[i].dy);
    fail_unless_equals_int (cost, meta->vectors[i].cost);
    fail_unless (conf == meta->vectors[i].confidence);
    fail_unless_equals_int (flags, meta->vectors[i].flags);
  }
  fail_unless (gst_motion_vectors_meta_get_vector_at (meta, 25) == NULL);
  dx = 123.0f;
  fail_if (gst_motion_vectors_meta_get_vector_values (meta, 25, &dx, NULL,
          NULL, NULL, NULL));
  fail_unless (dx == 123.0f);
  fail_unless (gst_motion_vectors_meta_get_vector_values (meta, 24, NULL,
          NULL, NULL, NULL, NULL));

  /* The documented packed layout, field by field at its offsets. */
  fail_unless_equals_int (GST_MOTION_VECTOR_PACKED_SIZE, 20);
  bytes = gst_motion_vectors_meta_get_vectors_bytes (meta);
  fail_unless (bytes != NULL);
  data = g_bytes_get_data (bytes, &size);
  fail_unless_equals_int (size, 25 * 20);
  for (i = 0; i < meta->n_vectors; i++) {
    const guint8 *rec = data + i * 20;
    gfloat f;
    guint32 u;

    memcpy (&f, rec + 0, 4);
    fail_unless (f == meta->vectors[i].dx);
    memcpy (&f, rec + 4, 4);
    fail_unless (f == meta->vectors[i].dy);
    memcpy (&u, rec + 8, 4);
    fail_unless_equals_int (u, meta->vectors[i].cost);
    memcpy (&f, rec + 12, 4);
    fail_unless (f == meta->vectors[i].confidence);
    memcpy (&u, rec + 16, 4);
    fail_unless_equals_int (u, meta->vectors[i].flags);
  }
  /* A copy: it outlives the buffer and later writes. */
  meta->vectors[0].dx = 99.0f;
  fail_if (memcmp (data, meta->vectors, 4) == 0);

  copy = g_new0 (GstMotionVector, 26);
  copy[25].cost = 77;
  fail_if (gst_motion_vectors_meta_copy_vectors (meta, copy, 24));
  fail_unless_equals_int (copy[0].cost, 0);
  fail_unless (gst_motion_vectors_meta_copy_vectors (meta, copy, 26));
  fail_unless (memcmp (copy, meta->vectors, 25 * sizeof (GstMotionVector))
      == 0);
  fail_unless_equals_int (copy[25].cost, 77);

  /* An inconsistent meta gives no bytes and no copy. */
  meta->columns = 4;
  fail_unless (gst_motion_vectors_meta_get_vectors_bytes (meta) == NULL);
  fail_if (gst_motion_vectors_meta_copy_vectors (meta, copy, 26));
  meta->columns = 5;

  gst_buffer_unref (buf);
  fail_unless_equals_int (size, g_bytes_get_size (bytes));
  g_bytes_unref (bytes);
  g_free (copy);
}

GST_END_TEST;

static GstVideoRegionOfInterestMeta *
add_motion_roi (GstBuffer * buf, gint id, guint x, gint area)
{
  GstVideoRegionOfInterestMeta *roi =
      gst_buffer_add_video_region_of_interest_meta (buf,
      GST_MOTION_REGION_ROI_TYPE, x, 2, 16, 16);

  roi->id = id;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new (GST_MOTION_REGION_PARAM_NAME,
          "mean-dx", G_TYPE_DOUBLE, 1.0, "mean-dy", G_TYPE_DOUBLE, 0.5,
          "area", G_TYPE_INT, area, "pixels", G_TYPE_INT, area * 256, NULL));
  return roi;
}

/* gst_buffer_get_motion_region() lists the complete "motion" ROI metas in
 * id order, skipping other types and incomplete ones. */
GST_START_TEST (test_buffer_motion_regions)
{
  GstBuffer *buf = gst_buffer_new ();
  GstMotionRegion r;

  fail_unless_equals_int (gst_buffer_get_n_motion_regions (buf), 0);
  fail_if (gst_buffer_get_motion_region (buf, 0, &r));

  add_motion_roi (buf, 2, 40, 3);
  add_motion_roi (buf, 0, 0, 1);
  gst_buffer_add_video_region_of_interest_meta (buf, "face", 0, 0, 4, 4);
  gst_buffer_add_video_region_of_interest_meta (buf,
      GST_MOTION_REGION_ROI_TYPE, 0, 0, 4, 4);
  add_motion_roi (buf, 1, 20, 2);

  fail_unless_equals_int (gst_buffer_get_n_motion_regions (buf), 3);
  fail_unless (gst_buffer_get_motion_region (buf, 0, &r));
  fail_unless_equals_int (r.x, 0);
  fail_unless_equals_int (r.area, 1);
  fail_unless (gst_buffer_get_motion_region (buf, 1, &r));
  fail_unless_equals_int (r.x, 20);
  fail_unless_equals_int (r.area, 2);
  fail_unless (gst_buffer_get_motion_region (buf, 2, &r));
  fail_unless_equals_int (r.x, 40);
  fail_unless_equals_int (r.y, 2);
  fail_unless_equals_int (r.w, 16);
  fail_unless_equals_int (r.area, 3);
  fail_unless_equals_int (r.pixels, 768);
  fail_unless_equals_float (r.mean_dy, 0.5);
  r.x = -7;
  fail_if (gst_buffer_get_motion_region (buf, 3, &r));
  fail_unless_equals_int (r.x, -7);
  gst_buffer_unref (buf);
}

GST_END_TEST;

static Suite *
motionvectors_suite (void)
{
  Suite *s = suite_create ("motionvectors");
  TCase *tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_add_get);
  tcase_add_test (tc, test_grid_size);
  tcase_add_test (tc, test_initial_values);
  tcase_add_test (tc, test_get_vector);
  tcase_add_test (tc, test_block_rect);
  tcase_add_test (tc, test_lookup);
  tcase_add_test (tc, test_invalid_args);
  tcase_add_test (tc, test_with_storage);
  tcase_add_test (tc, test_copy);
  tcase_add_test (tc, test_scale_transform);
  tcase_add_test (tc, test_is_valid);
  tcase_add_test (tc, test_direction_enum);
  tcase_add_test (tc, test_motion_event_parse);
  tcase_add_test (tc, test_motion_event_parse_strict);
  tcase_add_test (tc, test_motion_event_get_region);
  tcase_add_test (tc, test_motion_region_from_roi_meta);
  tcase_add_test (tc, test_binding_accessors);
  tcase_add_test (tc, test_buffer_motion_regions);
  return s;
}

GST_CHECK_MAIN (motionvectors);
