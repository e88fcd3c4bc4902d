/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:gstmotionvectorsmeta
 * @title: GstMotionVectorsMeta
 * @short_description: a block motion-vector field attached to a video buffer
 *
 * #GstMotionVectorsMeta carries one motion vector per block of a regular
 * grid over the frame. `blockmatchme` and `pocme` attach it; `mvexport`
 * writes it to files; applications read it from a pad probe.
 *
 * ## Coordinates and signs
 *
 * Pixel coordinates have x to the right and y down, origin at the top-left
 * pixel of the frame. The grid has @columns x @rows blocks of @block_width x
 * @block_height pixels tiling the frame from (0, 0); when the frame size is
 * not a multiple of the block size the last column/row is partial (clipped
 * to the frame). Block (c, r) is vectors[r * columns + c].
 *
 * - %GST_MOTION_VECTORS_DIRECTION_FORWARD: the blocks tile the REFERENCE
 *   (earlier) frame and (dx, dy) is where the block went in the frame this
 *   meta is attached to: ref(x, y) ~ cur(x + dx, y + dy).
 * - %GST_MOTION_VECTORS_DIRECTION_BACKWARD: the blocks tile THIS (current)
 *   frame and (dx, dy) points to where the block came from in the reference
 *   frame: cur(x, y) ~ ref(x + dx, y + dy). This is the codec convention and
 *   FFmpeg's AVMotionVector with source = -1 (src = dst + motion).
 *
 * A rightward-moving object therefore has dx > 0 in forward fields and
 * dx < 0 in backward fields.
 *
 * dx and dy are in pixels as floats; values produced on a 1/2 or 1/4 pixel
 * grid are exact in binary floating point. @reference_timestamp is the PTS
 * of the reference frame (%GST_CLOCK_TIME_NONE when there is none).
 *
 * ## Frames without a reference
 *
 * The first frame after start, a flush or a caps change has no reference:
 * the meta is still attached, with the full grid, @reference_timestamp =
 * %GST_CLOCK_TIME_NONE and every vector flagged
 * %GST_MOTION_VECTOR_FLAG_NO_ESTIMATE (dx = dy = 0, cost = 0).
 */
#ifndef __GST_MOTION_VECTORS_H__
#define __GST_MOTION_VECTORS_H__

#include <gst/gst.h>
#include <gst/motionvectors/motionvectors-prelude.h>

G_BEGIN_DECLS

/**
 * GstMotionVectorsDirection:
 * @GST_MOTION_VECTORS_DIRECTION_FORWARD: blocks tile the reference frame,
 *   vectors say where each block went.
 * @GST_MOTION_VECTORS_DIRECTION_BACKWARD: blocks tile the current frame,
 *   vectors say where each block came from.
 */
typedef enum {
  GST_MOTION_VECTORS_DIRECTION_FORWARD = 0,
  GST_MOTION_VECTORS_DIRECTION_BACKWARD = 1,
} GstMotionVectorsDirection;

/**
 * GstMotionVectorFlags:
 * @GST_MOTION_VECTOR_FLAG_NONE: a regular estimate.
 * @GST_MOTION_VECTOR_FLAG_SUPPRESSED: the block's change is within the noise
 *   threshold; the vector is reported as zero motion.
 * @GST_MOTION_VECTOR_FLAG_NO_ESTIMATE: no estimate exists (no reference
 *   frame, or the method could not produce one); dx, dy are 0.
 * @GST_MOTION_VECTOR_FLAG_UNRELIABLE: the method's confidence is below its
 *   threshold.
 */
typedef enum {
  GST_MOTION_VECTOR_FLAG_NONE = 0,
  GST_MOTION_VECTOR_FLAG_SUPPRESSED = (1 << 0),
  GST_MOTION_VECTOR_FLAG_NO_ESTIMATE = (1 << 1),
  GST_MOTION_VECTOR_FLAG_UNRELIABLE = (1 << 2),
} GstMotionVectorFlags;

/**
 * GstMotionVector:
 * @dx: horizontal displacement in pixels (see the sign conventions above).
 * @dy: vertical displacement in pixels.
 * @cost: the matching cost of the reported vector in the method's units
 *   (blockmatchme: SAD over the block's luma pixels).
 * @confidence: 0..1 where the method has one (pocme: POC peak height),
 *   else -1.
 * @flags: #GstMotionVectorFlags.
 */
typedef struct {
  gfloat dx;
  gfloat dy;
  guint32 cost;
  gfloat confidence;
  guint32 flags;
} GstMotionVector;

typedef struct _GstMotionVectorsMeta GstMotionVectorsMeta;

/**
 * GstMotionVectorsMeta:
 * @meta: parent #GstMeta.
 * @frame_width: width of the analysed frame in pixels.
 * @frame_height: height of the analysed frame in pixels.
 * @block_width: grid cell width in pixels.
 * @block_height: grid cell height in pixels.
 * @columns: blocks per row, ceil(frame_width / block_width).
 * @rows: block rows, ceil(frame_height / block_height).
 * @direction: #GstMotionVectorsDirection.
 * @reference_timestamp: PTS of the reference frame, or %GST_CLOCK_TIME_NONE.
 * @precision: spacing of the candidate grid in pixels (1, 0.5, 0.25), or 0
 *   for methods with continuous sub-pixel output.
 * @method: a short name of the producer's method, e.g. "full" (interned).
 * @n_vectors: columns * rows.
 * @vectors: the field, row-major, owned by the meta.
 */
struct _GstMotionVectorsMeta {
  GstMeta meta;

  guint frame_width;
  guint frame_height;
  guint block_width;
  guint block_height;
  guint columns;
  guint rows;
  GstMotionVectorsDirection direction;
  GstClockTime reference_timestamp;
  gfloat precision;
  const gchar *method;

  guint n_vectors;
  GstMotionVector *vectors;

  /*< private >*/
  GstBuffer *storage;
  GstMapInfo storage_map;
  gpointer _gst_reserved[GST_PADDING];
};

GST_MOTION_VECTORS_API
GType gst_motion_vectors_meta_api_get_type (void);
#define GST_MOTION_VECTORS_META_API_TYPE (gst_motion_vectors_meta_api_get_type ())

GST_MOTION_VECTORS_API
const GstMetaInfo *gst_motion_vectors_meta_get_info (void);
#define GST_MOTION_VECTORS_META_INFO (gst_motion_vectors_meta_get_info ())

/**
 * gst_buffer_get_motion_vectors_meta:
 * @b: a #GstBuffer
 *
 * Returns: (transfer none) (nullable): the buffer's #GstMotionVectorsMeta.
 */
#define gst_buffer_get_motion_vectors_meta(b) \
  ((GstMotionVectorsMeta *) gst_buffer_get_meta ((b), GST_MOTION_VECTORS_META_API_TYPE))

/**
 * gst_buffer_add_motion_vectors_meta:
 * @buffer: a writable #GstBuffer
 * @frame_width: frame width in pixels (> 0)
 * @frame_height: frame height in pixels (> 0)
 * @block_width: grid cell width (> 0)
 * @block_height: grid cell height (> 0)
 * @direction: the field's #GstMotionVectorsDirection
 *
 * Attaches a field of ceil(w/bw) x ceil(h/bh) vectors, every one
 * initialised to %GST_MOTION_VECTOR_FLAG_NO_ESTIMATE, confidence -1,
 * reference_timestamp %GST_CLOCK_TIME_NONE, precision 1, method "unknown".
 *
 * Returns: (transfer none) (nullable): the new meta, or %NULL on invalid
 * arguments.
 */
GST_MOTION_VECTORS_API
GstMotionVectorsMeta *gst_buffer_add_motion_vectors_meta (GstBuffer * buffer,
    guint frame_width, guint frame_height, guint block_width,
    guint block_height, GstMotionVectorsDirection direction);

/**
 * gst_buffer_add_motion_vectors_meta_with_storage:
 * @buffer: a writable #GstBuffer
 * @storage: (transfer full): a buffer of at least columns * rows *
 *   sizeof (#GstMotionVector) bytes holding the vectors, e.g. from a
 *   #GstBufferPool so that producers allocate nothing per frame. Its content
 *   is used as is.
 * @frame_width: see gst_buffer_add_motion_vectors_meta()
 * @frame_height: see gst_buffer_add_motion_vectors_meta()
 * @block_width: see gst_buffer_add_motion_vectors_meta()
 * @block_height: see gst_buffer_add_motion_vectors_meta()
 * @direction: see gst_buffer_add_motion_vectors_meta()
 *
 * Like gst_buffer_add_motion_vectors_meta() but with caller-provided
 * storage, which the meta keeps mapped and unrefs when it is freed.
 *
 * Returns: (transfer none) (nullable): the new meta, or %NULL on invalid
 * arguments or a too small @storage (which is then unreffed).
 */
GST_MOTION_VECTORS_API
GstMotionVectorsMeta *gst_buffer_add_motion_vectors_meta_with_storage (
    GstBuffer * buffer, GstBuffer * storage, guint frame_width,
    guint frame_height, guint block_width, guint block_height,
    GstMotionVectorsDirection direction);

/**
 * gst_motion_vectors_meta_get_vector:
 * @meta: a #GstMotionVectorsMeta
 * @column: block column, < columns
 * @row: block row, < rows
 *
 * Returns: (transfer none) (nullable): the vector of block (@column, @row).
 */
GST_MOTION_VECTORS_API
GstMotionVector *gst_motion_vectors_meta_get_vector (GstMotionVectorsMeta * meta,
    guint column, guint row);

/**
 * gst_motion_vectors_meta_get_block_rect:
 * @meta: a #GstMotionVectorsMeta
 * @index: block index, < n_vectors
 * @x: (out) (optional): left column of the block
 * @y: (out) (optional): top row of the block
 * @width: (out) (optional): width, clipped to the frame
 * @height: (out) (optional): height, clipped to the frame
 *
 * The pixels covered by block @index, in the coordinates of the frame the
 * blocks tile (reference for forward fields, current for backward).
 *
 * Returns: %FALSE if @index is out of range.
 */
GST_MOTION_VECTORS_API
gboolean gst_motion_vectors_meta_get_block_rect (GstMotionVectorsMeta * meta,
    guint index, guint * x, guint * y, guint * width, guint * height);

/**
 * gst_motion_vectors_meta_lookup:
 * @meta: a #GstMotionVectorsMeta
 * @x: pixel column, < frame_width
 * @y: pixel row, < frame_height
 *
 * Returns: (transfer none) (nullable): the vector of the block containing
 * pixel (@x, @y) of the tiled frame.
 */
GST_MOTION_VECTORS_API
GstMotionVector *gst_motion_vectors_meta_lookup (GstMotionVectorsMeta * meta,
    guint x, guint y);

/**
 * gst_motion_vectors_meta_is_valid:
 * @meta: (nullable): a #GstMotionVectorsMeta
 *
 * Checks that the meta's fields agree: non-zero sizes, columns and rows
 * equal to the ceiling of frame size / block size, n_vectors = columns *
 * rows and vectors present. Consumers of metas from other producers should
 * check this before indexing @vectors.
 *
 * Returns: %TRUE when the field is consistent.
 */
GST_MOTION_VECTORS_API
gboolean gst_motion_vectors_meta_is_valid (const GstMotionVectorsMeta * meta);

/**
 * gst_motion_vectors_direction_get_type:
 *
 * Returns: the #GType of #GstMotionVectorsDirection (nicks "forward",
 * "backward").
 */
GST_MOTION_VECTORS_API
GType gst_motion_vectors_direction_get_type (void);
#define GST_TYPE_MOTION_VECTORS_DIRECTION (gst_motion_vectors_direction_get_type ())

G_END_DECLS

#endif /* __GST_MOTION_VECTORS_H__ */
