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
#include <gst/video/gstvideometa.h>
#include <gst/motionvectors/motionvectors-prelude.h>

G_BEGIN_DECLS
/**
 * GstMotionVectorsDirection:
 * @GST_MOTION_VECTORS_DIRECTION_FORWARD: blocks tile the reference frame,
 *   vectors say where each block went.
 * @GST_MOTION_VECTORS_DIRECTION_BACKWARD: blocks tile the current frame,
 *   vectors say where each block came from.
 */
    typedef enum
{
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
 * @GST_MOTION_VECTOR_FLAG_MOVING: the element's final decision (with
 *   regions or events on): the block belongs to a moving object, a
 *   confirmed track of docs/motion-events.md. Since 0.3.0.
 */
typedef enum
{
  GST_MOTION_VECTOR_FLAG_NONE = 0,
  GST_MOTION_VECTOR_FLAG_SUPPRESSED = (1 << 0),
  GST_MOTION_VECTOR_FLAG_NO_ESTIMATE = (1 << 1),
  GST_MOTION_VECTOR_FLAG_UNRELIABLE = (1 << 2),
  GST_MOTION_VECTOR_FLAG_MOVING = (1 << 3),
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
typedef struct
{
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
struct _GstMotionVectorsMeta
{
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

  /*< private > */
  GstBuffer *storage;
  GstMapInfo storage_map;
  /* The global motion (gst_motion_vectors_meta_set_global_motion) lives in
   * the padding, so that the struct keeps its size. After it, alloc.capacity
   * is how many vectors the storage holds: the public fields are writable
   * through bindings (the typelib), the padding is out of their reach, and
   * every accessor checks n_vectors against it. */
  union
  {
    struct
    {
      gfloat affine[6];
      gboolean set;
    } global;
    struct
    {
      guint32 _global[7];
      guint capacity;
    } alloc;
    gpointer _gst_reserved[GST_PADDING];
  } ABI;
};

GST_MOTION_VECTORS_API GType gst_motion_vectors_meta_api_get_type (void);
#define GST_MOTION_VECTORS_META_API_TYPE (gst_motion_vectors_meta_api_get_type ())

GST_MOTION_VECTORS_API
    const GstMetaInfo *gst_motion_vectors_meta_get_info (void);
#define GST_MOTION_VECTORS_META_INFO (gst_motion_vectors_meta_get_info ())

/**
 * gst_buffer_get_motion_vectors_meta:
 * @buffer: a #GstBuffer
 *
 * A function since 0.2.0 (a macro before): C code that called it is
 * unchanged, and bindings (GObject introspection) can call it.
 *
 * Returns: (transfer none) (nullable): the buffer's #GstMotionVectorsMeta,
 * valid while @buffer is, or %NULL when it has none.
 */
GST_MOTION_VECTORS_API
    GstMotionVectorsMeta * gst_buffer_get_motion_vectors_meta (GstBuffer *
    buffer);

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
    GstMotionVectorsMeta * gst_buffer_add_motion_vectors_meta (GstBuffer *
    buffer, guint frame_width, guint frame_height, guint block_width,
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
    GstMotionVectorsMeta *
gst_buffer_add_motion_vectors_meta_with_storage (GstBuffer * buffer,
    GstBuffer * storage, guint frame_width, guint frame_height,
    guint block_width, guint block_height, GstMotionVectorsDirection direction);

/**
 * gst_motion_vectors_meta_get_vector:
 * @meta: a #GstMotionVectorsMeta
 * @column: block column, < columns
 * @row: block row, < rows
 *
 * Returns: (transfer none) (nullable): the vector of block (@column, @row),
 * or %NULL when it is out of range or the meta is not valid
 * (gst_motion_vectors_meta_is_valid()).
 */
GST_MOTION_VECTORS_API
    GstMotionVector * gst_motion_vectors_meta_get_vector (GstMotionVectorsMeta *
    meta, guint column, guint row);

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
 * Returns: %FALSE if @index is out of range or the meta is not valid
 * (gst_motion_vectors_meta_is_valid()).
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_vectors_meta_get_block_rect (GstMotionVectorsMeta *
    meta, guint index, guint * x, guint * y, guint * width, guint * height);

/**
 * gst_motion_vectors_meta_lookup:
 * @meta: a #GstMotionVectorsMeta
 * @x: pixel column, < frame_width
 * @y: pixel row, < frame_height
 *
 * Returns: (transfer none) (nullable): the vector of the block containing
 * pixel (@x, @y) of the tiled frame, or %NULL when it is outside the frame
 * or the meta is not valid (gst_motion_vectors_meta_is_valid()).
 */
GST_MOTION_VECTORS_API
    GstMotionVector * gst_motion_vectors_meta_lookup (GstMotionVectorsMeta *
    meta, guint x, guint y);

/**
 * gst_motion_vectors_meta_is_valid:
 * @meta: (nullable): a #GstMotionVectorsMeta
 *
 * Checks that the meta's fields agree: non-zero sizes, columns and rows
 * equal to the ceiling of frame size / block size, n_vectors = columns *
 * rows, and vectors present and pointing at the meta's storage, which holds
 * at least n_vectors vectors. Consumers of metas from other producers should
 * check this before indexing @vectors. The accessors below check it
 * themselves: the fields are writable through language bindings, and
 * whatever is written there, no accessor reads outside the storage.
 *
 * Returns: %TRUE when the field is consistent.
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_vectors_meta_is_valid (const GstMotionVectorsMeta *
    meta);

/**
 * SECTION:gstmotionvectorsaccess
 * @title: Reading a field from bindings
 * @short_description: functions for every accessor a language binding needs
 *
 * C code can read the #GstMotionVectorsMeta fields directly. Language
 * bindings built on GObject introspection (the `GstMotionVectors-1.0`
 * typelib; PyGObject, gjs, ...) use these functions instead: the meta
 * from a buffer, its geometry, one vector, or the whole field at once as
 * #GBytes in the packed layout below (a numpy structured array in
 * Python, docs/examples/mv_numpy.py).
 *
 * ## Packed layout
 *
 * gst_motion_vectors_meta_get_vectors_bytes() and
 * gst_motion_vectors_meta_copy_vectors() give n_vectors records of
 * %GST_MOTION_VECTOR_PACKED_SIZE (20) bytes, row-major (block (c, r) is
 * record r * columns + c), in the host's byte order, with no padding:
 *
 * | offset | type    | field      |
 * |--------|---------|------------|
 * | 0      | float32 | dx         |
 * | 4      | float32 | dy         |
 * | 8      | uint32  | cost       |
 * | 12     | float32 | confidence |
 * | 16     | uint32  | flags      |
 *
 * This is #GstMotionVector itself (its size is checked at build time), so
 * the copy is one memcpy. numpy: `np.dtype([("dx", "=f4"), ("dy", "=f4"),
 * ("cost", "=u4"), ("confidence", "=f4"), ("flags", "=u4")])`.
 */

/**
 * GST_MOTION_VECTOR_PACKED_SIZE:
 *
 * Bytes per vector in the packed layout: sizeof (#GstMotionVector).
 */
#define GST_MOTION_VECTOR_PACKED_SIZE 20

/**
 * gst_motion_vectors_meta_get_geometry:
 * @meta: a #GstMotionVectorsMeta
 * @frame_width: (out) (optional): width of the analysed frame in pixels
 * @frame_height: (out) (optional): height of the analysed frame
 * @block_width: (out) (optional): grid cell width
 * @block_height: (out) (optional): grid cell height
 * @columns: (out) (optional): blocks per row
 * @rows: (out) (optional): block rows
 *
 * The field's grid: the numpy shape of the field is (@rows, @columns).
 */
GST_MOTION_VECTORS_API
    void gst_motion_vectors_meta_get_geometry (const GstMotionVectorsMeta *
    meta, guint * frame_width, guint * frame_height, guint * block_width,
    guint * block_height, guint * columns, guint * rows);

/**
 * gst_motion_vectors_meta_get_vector_at:
 * @meta: a #GstMotionVectorsMeta
 * @index: block index, < n_vectors (row * columns + column)
 *
 * Returns: (transfer none) (nullable): the vector of block @index, valid
 * while the meta's buffer is, or %NULL when @index is out of range or the
 * meta is not valid (gst_motion_vectors_meta_is_valid()).
 */
GST_MOTION_VECTORS_API
    GstMotionVector *
gst_motion_vectors_meta_get_vector_at (GstMotionVectorsMeta * meta,
    guint index);

/**
 * gst_motion_vectors_meta_get_vector_values:
 * @meta: a #GstMotionVectorsMeta
 * @index: block index, < n_vectors (row * columns + column)
 * @dx: (out) (optional): horizontal displacement, pixels
 * @dy: (out) (optional): vertical displacement, pixels
 * @cost: (out) (optional): matching cost
 * @confidence: (out) (optional): confidence 0..1, or -1
 * @flags: (out) (optional): #GstMotionVectorFlags bits
 *
 * The fields of vector @index as plain values, which bindings return
 * without wrapping memory owned by the buffer.
 *
 * Returns: %FALSE when @index is out of range or the meta is not valid
 * (gst_motion_vectors_meta_is_valid()) (outputs untouched).
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_vectors_meta_get_vector_values (const
    GstMotionVectorsMeta * meta, guint index, gfloat * dx, gfloat * dy,
    guint32 * cost, gfloat * confidence, guint32 * flags);

/**
 * gst_motion_vectors_meta_get_vectors_bytes:
 * @meta: a #GstMotionVectorsMeta
 *
 * A copy of the whole field in the packed layout (see the section
 * description): n_vectors * %GST_MOTION_VECTOR_PACKED_SIZE bytes, which
 * stays valid after the buffer is gone.
 *
 * Returns: (transfer full) (nullable): the field, or %NULL when the meta is
 * not valid (gst_motion_vectors_meta_is_valid()).
 */
GST_MOTION_VECTORS_API
    GBytes *
gst_motion_vectors_meta_get_vectors_bytes (const GstMotionVectorsMeta * meta);

/**
 * gst_motion_vectors_meta_set_global_motion:
 * @meta: a #GstMotionVectorsMeta
 * @affine: (array fixed-size=6): the camera's motion over the field, in the
 *   field's sign convention: the vector expected at pixel (x, y) is
 *   dx = affine[0] + affine[1] x + affine[2] y,
 *   dy = affine[3] + affine[4] x + affine[5] y
 *
 * Records the global motion (camera shake or pan) that the producer found
 * in the field; the motion elements set it when their regions or events
 * are on (all zero for a still camera). Since 0.3.0.
 */
GST_MOTION_VECTORS_API
    void gst_motion_vectors_meta_set_global_motion (GstMotionVectorsMeta * meta,
    const gfloat * affine);

/**
 * gst_motion_vectors_meta_get_global_motion:
 * @meta: a #GstMotionVectorsMeta
 * @x: a pixel column of the analysed frame
 * @y: a pixel row
 * @dx: (out) (optional): the global motion's horizontal component at (x, y)
 * @dy: (out) (optional): its vertical component
 *
 * Evaluates the global motion recorded with
 * gst_motion_vectors_meta_set_global_motion() at a point (e.g. the frame's
 * centre for the camera's shake). Since 0.3.0.
 *
 * Returns: %FALSE (and 0, 0) when the producer recorded none.
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_vectors_meta_get_global_motion (const
    GstMotionVectorsMeta * meta, gdouble x, gdouble y, gdouble * dx,
    gdouble * dy);

/**
 * gst_motion_vectors_meta_copy_vectors: (skip)
 * @meta: a #GstMotionVectorsMeta
 * @vectors: (array length=n_vectors): where to copy the field (the packed
 *   layout)
 * @n_vectors: capacity of @vectors in vectors; must be at least the meta's
 *   n_vectors
 *
 * Copies the whole field into caller-owned memory, e.g. a buffer reused
 * for every frame. For C; bindings, which cannot hand in writable memory
 * this way, use gst_motion_vectors_meta_get_vectors_bytes().
 *
 * Returns: %FALSE when the meta is not valid or @n_vectors is too small
 * (then nothing is written).
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_vectors_meta_copy_vectors (const GstMotionVectorsMeta *
    meta, GstMotionVector * vectors, guint n_vectors);

/**
 * gst_motion_vectors_direction_get_type:
 *
 * Returns: the #GType of #GstMotionVectorsDirection (nicks "forward",
 * "backward").
 */
GST_MOTION_VECTORS_API GType gst_motion_vectors_direction_get_type (void);
#define GST_TYPE_MOTION_VECTORS_DIRECTION (gst_motion_vectors_direction_get_type ())

/**
 * SECTION:gstmotionevents
 * @title: Motion events
 * @short_description: moving regions and motion start/stop messages
 *
 * With `regions=true`, `blockmatchme` and `pocme` group the moving blocks
 * of each field into regions and attach each as a
 * #GstVideoRegionOfInterestMeta of type %GST_MOTION_REGION_ROI_TYPE
 * ("motion") carrying a #GstStructure parameter named
 * %GST_MOTION_REGION_PARAM_NAME ("motion") with the fields "mean-dx",
 * "mean-dy" (gdouble, pixels), "area" (gint, blocks) and "pixels" (gint).
 * With `events=true` they post element messages named
 * %GST_MOTION_EVENT_START_NAME and %GST_MOTION_EVENT_STOP_NAME, and with
 * `region-messages=true` one %GST_MOTION_EVENT_REGIONS_NAME message per
 * frame that has regions. The exact definitions are in
 * docs/motion-events.md; the functions below read all of these without
 * knowing the field names.
 */

/**
 * GST_MOTION_EVENT_START_NAME:
 *
 * Name of the structure of the element message posted when motion starts:
 * "timestamp" (guint64, running time of the first frame with regions),
 * "regions" (gint, its number of regions).
 */
#define GST_MOTION_EVENT_START_NAME "motion-start"

/**
 * GST_MOTION_EVENT_STOP_NAME:
 *
 * Name of the structure of the element message posted when motion has
 * stopped: "timestamp" (guint64, running time at which motion ended),
 * "duration" (guint64, timestamp minus the start's timestamp), "reason"
 * (string: "hold-off", "swaying" (every track of the motion was taken back
 * as swaying in place), "eos", "flush", "caps" or "stream-start").
 */
#define GST_MOTION_EVENT_STOP_NAME "motion-stop"

/**
 * GST_MOTION_EVENT_REGIONS_NAME:
 *
 * Name of the structure of the element message posted for each frame with
 * regions when `region-messages=true`: "timestamp" (guint64, the frame's
 * running time) and "regions", a #GstValueList of #GstStructure named
 * %GST_MOTION_REGION_STRUCTURE_NAME.
 */
#define GST_MOTION_EVENT_REGIONS_NAME "motion-regions"

/**
 * GST_MOTION_EVENT_LINE_CROSSED_NAME:
 *
 * Name of the structure of the element message posted (and of the in-band
 * custom downstream event sent) when a track crosses one of the `lines`
 * (decision=tracks, events=true): "timestamp" (guint64, the frame's
 * running time), "line" (string, its name), "track-id" (guint),
 * "direction" (string, "positive": from the left of the line's first
 * point -> second point, on screen, to its right; or "negative") and the
 * line's counts so far, "positive" and "negative" (guint64). Since 0.3.0.
 */
#define GST_MOTION_EVENT_LINE_CROSSED_NAME "line-crossed"

/**
 * GST_MOTION_REGION_STRUCTURE_NAME:
 *
 * Name of each structure in the "regions" list of a
 * %GST_MOTION_EVENT_REGIONS_NAME message: "x", "y", "w", "h", "area",
 * "pixels" (gint) and "mean-dx", "mean-dy" (gdouble).
 */
#define GST_MOTION_REGION_STRUCTURE_NAME "motion-region"

/**
 * GST_MOTION_REGION_ROI_TYPE:
 *
 * The roi_type of the #GstVideoRegionOfInterestMeta of a moving region.
 */
#define GST_MOTION_REGION_ROI_TYPE "motion"

/**
 * GST_MOTION_REGION_PARAM_NAME:
 *
 * Name of the #GstStructure parameter of a "motion" ROI meta
 * (gst_video_region_of_interest_meta_get_param()).
 */
#define GST_MOTION_REGION_PARAM_NAME "motion"

/**
 * GstMotionEventType:
 * @GST_MOTION_EVENT_START: a %GST_MOTION_EVENT_START_NAME message.
 * @GST_MOTION_EVENT_STOP: a %GST_MOTION_EVENT_STOP_NAME message.
 * @GST_MOTION_EVENT_REGIONS: a %GST_MOTION_EVENT_REGIONS_NAME message.
 */
typedef enum
{
  GST_MOTION_EVENT_START = 0,
  GST_MOTION_EVENT_STOP = 1,
  GST_MOTION_EVENT_REGIONS = 2,
} GstMotionEventType;

/**
 * GstMotionRegion:
 * @x: left column of the region's bounding box, pixels
 * @y: top row of the bounding box
 * @w: width of the bounding box
 * @h: height of the bounding box
 * @mean_dx: mean horizontal motion of its blocks, pixels, with the sign
 *   convention of the field's direction
 * @mean_dy: mean vertical motion of its blocks
 * @area: number of moving blocks in the region
 * @pixels: pixels covered by those blocks (partial edge blocks count their
 *   visible part)
 * @track_id: the id of the object's track, stable from frame to frame
 *   while the object is followed (1, 2, ...); 0 when the producer has no
 *   tracks (decision=blocks). Since 0.3.0.
 * @frames: frames the track was seen on (0 without tracks)
 * @age: nanoseconds since the track began (0 without tracks)
 * @vx: the object's velocity, pixels per frame, x right (smoothed over the
 *   track; 0 without tracks). Unlike @mean_dx it is the motion of the
 *   object, whatever the field's direction, and excludes the camera's.
 * @vy: the same, y down
 *
 * One moving region: a connected group of moving blocks (see
 * docs/motion-events.md). The box is the union of its blocks' rectangles,
 * in the coordinates of the frame the blocks tile.
 */
typedef struct
{
  gint x;
  gint y;
  gint w;
  gint h;
  gdouble mean_dx;
  gdouble mean_dy;
  gint area;
  gint pixels;
  guint track_id;
  guint frames;
  guint64 age;
  gdouble vx;
  gdouble vy;
} GstMotionRegion;

/**
 * gst_motion_event_parse:
 * @msg: a #GstMessage
 * @type: (out) (optional): the kind of motion message
 * @timestamp: (out) (optional): its "timestamp" (a running time), or
 *   %GST_CLOCK_TIME_NONE when absent
 * @duration: (out) (optional): %GST_MOTION_EVENT_STOP: how long the motion
 *   lasted; %GST_CLOCK_TIME_NONE for the other types
 * @n_regions: (out) (optional): %GST_MOTION_EVENT_START: regions in the
 *   first frame; %GST_MOTION_EVENT_REGIONS: length of the regions list
 *   (see gst_motion_event_get_region()); 0 for %GST_MOTION_EVENT_STOP
 *
 * Reads an element message posted by `blockmatchme` or `pocme` with
 * `events=true` or `region-messages=true`. Outputs are left untouched when
 * %FALSE is returned.
 *
 * Returns: %TRUE when @msg is a motion message with the fields expected
 * for its type, each of its documented type (a "timestamp" may be absent,
 * never of another type; "regions" of a %GST_MOTION_EVENT_REGIONS_NAME
 * message is a #GstValueList of %GST_MOTION_REGION_STRUCTURE_NAME
 * structures), %FALSE for any other message.
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_event_parse (GstMessage * msg,
    GstMotionEventType * type, GstClockTime * timestamp,
    GstClockTime * duration, guint * n_regions);

/**
 * gst_motion_event_get_region:
 * @msg: a %GST_MOTION_EVENT_REGIONS_NAME message
 * @index: region index, < the n_regions of gst_motion_event_parse()
 * @region: (out caller-allocates): the region
 *
 * Regions are listed in the order of the frame's ROI metas; with
 * `decision=blocks` (sorted by their first block in raster order) @index is
 * also the id of the matching ROI meta, unless GstAnalytics entries came
 * from upstream (docs/motion-events.md, *The ROI metas*).
 *
 * Returns: %FALSE when @msg is not a regions message that
 * gst_motion_event_parse() accepts, @index is out of range or the entry
 * lacks a field (then @region is untouched).
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_event_get_region (GstMessage * msg, guint index,
    GstMotionRegion * region);

/**
 * gst_motion_region_from_roi_meta:
 * @roi: a #GstVideoRegionOfInterestMeta
 * @region: (out caller-allocates): the region
 *
 * Fills @region from a "motion" ROI meta: x, y, w, h from the meta itself
 * (so they follow any rescaling of the meta downstream), the rest from its
 * %GST_MOTION_REGION_PARAM_NAME parameter.
 *
 * Returns: %FALSE when @roi's type is not %GST_MOTION_REGION_ROI_TYPE or
 * its parameter is missing or incomplete (then @region is untouched).
 */
GST_MOTION_VECTORS_API
    gboolean gst_motion_region_from_roi_meta (GstVideoRegionOfInterestMeta *
    roi, GstMotionRegion * region);

/**
 * gst_buffer_get_n_motion_regions:
 * @buffer: a #GstBuffer
 *
 * Counts the buffer's "motion" region metas (#GstVideoRegionOfInterestMeta
 * of type %GST_MOTION_REGION_ROI_TYPE with a complete
 * %GST_MOTION_REGION_PARAM_NAME parameter).
 *
 * Returns: the number of "motion" regions on @buffer.
 */
GST_MOTION_VECTORS_API
    guint gst_buffer_get_n_motion_regions (GstBuffer * buffer);

/**
 * gst_buffer_get_motion_region:
 * @buffer: a #GstBuffer
 * @index: region index, < gst_buffer_get_n_motion_regions()
 * @region: (out caller-allocates): the region
 *
 * Reads the "motion" region metas of @buffer in the order of their ROI
 * ids (docs/motion-events.md, *The ROI metas*), then of attachment, as
 * gst_motion_region_from_roi_meta() does. Bindings use this where they
 * cannot reach the ROI metas themselves.
 *
 * Returns: %FALSE when @index is out of range (then @region is untouched).
 */
GST_MOTION_VECTORS_API
    gboolean gst_buffer_get_motion_region (GstBuffer * buffer, guint index,
    GstMotionRegion * region);

G_END_DECLS
#endif /* __GST_MOTION_VECTORS_H__ */
