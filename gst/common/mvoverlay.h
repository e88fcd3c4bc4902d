/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Drawing of a GstMotionVectorsMeta (and of region outlines) onto a mapped,
 * writable video frame of any format in GST_MATCH_VIDEO_FORMATS. Shared by
 * blockmatchme and pocme (`draw`) and the mvoverlay element.
 */
#ifndef __GST_MV_OVERLAY_H__
#define __GST_MV_OVERLAY_H__

#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include "gstmatchcommon.h"

G_BEGIN_DECLS

/* GstMvOverlayParams:
 * @max_magnitude: GST_MV_DRAW_COLOR only: the motion, in the field's
 *   pixels, shown at full saturation; <= 0 uses the largest vector of the
 *   field
 * @min_magnitude: vectors whose length, in the field's pixels, is below
 *   this draw nothing (no arrow, no tint), as if they had no estimate;
 *   <= 0 draws every vector
 * @arrow_scale: GST_MV_DRAW_ARROWS only: arrow length as a multiple of
 *   the motion (after mapping to the frame); 1 draws the motion as it is.
 *   Values <= 0 or non-finite are taken as 1.
 *
 * Options of gst_mv_overlay_draw_full(). "The field's pixels" are those of
 * the frame the meta describes (meta->frame_width x meta->frame_height),
 * i.e. the units of the vectors as stored, so that a threshold means the
 * same whatever scaler sits between the estimator and the overlay.
 * Initialise with gst_mv_overlay_params_init(). */
typedef struct
{
  gfloat max_magnitude;
  gfloat min_magnitude;
  gfloat arrow_scale;
} GstMvOverlayParams;

/* gst_mv_overlay_params_init:
 * @params: filled with max_magnitude 0 (auto), min_magnitude 0 (off) and
 *   arrow_scale 1: what gst_mv_overlay_draw() draws. */
void gst_mv_overlay_params_init (GstMvOverlayParams * params);

/* gst_mv_overlay_draw_full:
 * @frame: a frame mapped READWRITE, in any GST_MATCH_VIDEO_FORMATS format
 * @meta: the field to draw
 * @mode: what to draw
 * @params: (nullable): options; NULL is gst_mv_overlay_params_init()'s
 *
 * Mapping to the frame: when the meta's frame_width x frame_height equals
 * the frame's size the blocks are drawn where they are. When it differs
 * (the field was estimated before a scaler), positions are mapped per axis
 * with sx = frame width / meta frame_width, sy = frame height /
 * meta frame_height: block edges e go to round (e * s), so the mapped
 * blocks tile the frame exactly; a block centre c (pixel coordinates, as
 * below) goes to (c + 0.5) * s - 0.5, the position of the same point in
 * the other pixel grid; and a vector (dx, dy) to (dx * sx, dy * sy). The
 * colour coding, max_magnitude and min_magnitude use the vector as stored
 * (after an aspect-preserving scale the hue is the same either way).
 *
 * GST_MV_DRAW_ARROWS: one 1-pixel arrow per block showing the motion as seen
 * on this frame, from where the content was to where it is now, whatever
 * the field's direction: BACKWARD fields draw from (centre + v) to the
 * block centre, head at the centre; FORWARD fields draw from the centre to
 * (centre + v), head there (v mapped to the frame and multiplied by
 * arrow_scale). The block centre is (x0 + w / 2, y0 + h / 2) in integer
 * pixels of the field, w and h the block's size clipped to the field's
 * frame. Vectors shorter than a pixel on the frame are a single dot. Zero
 * (including SUPPRESSED) and NO_ESTIMATE vectors draw nothing. The colour
 * is bright green (R, G, B = 0, 255, 0, converted to the frame's YUV matrix
 * and range; for subsampled chroma the chroma sample covering each drawn
 * pixel is written, so the tint bleeds by up to the subsampling factor); on
 * GRAY8 an arrow is white over dark content and black over bright, judged
 * at its head.
 *
 * GST_MV_DRAW_COLOR: each block with an estimate is tinted with the
 * Middlebury flow colour coding (Baker et al., IJCV 2011, flowToColor) of
 * its motion on this frame (v for FORWARD fields, -v for BACKWARD ones):
 * the hue gives the direction, with x right and y down: right = red,
 * down = orange/yellow, down-left = green, left = cyan, up = blue,
 * up-right = magenta; the saturation grows from white (no motion) to the
 * full hue at max_magnitude; motion beyond it keeps the hue at 75%
 * brightness. RGB frames are mixed 50% with the colour; YUV frames keep
 * half of their luma contrast (Y mixed 50%) and take the colour's chroma;
 * GRAY8 mixes the colour's luma 50%, so only the brightness of the hue
 * shows. NO_ESTIMATE blocks are left untouched.
 *
 * GST_MV_DRAW_NONE: nothing.
 *
 * Alpha and padding bytes are never written and nothing is written outside
 * the frame's planes. Nothing is allocated. */
void gst_mv_overlay_draw_full (GstVideoFrame * frame,
    const GstMotionVectorsMeta * meta, GstMvDrawMode mode,
    const GstMvOverlayParams * params);

/* gst_mv_overlay_draw:
 * @frame: a frame mapped READWRITE, in any GST_MATCH_VIDEO_FORMATS format
 * @meta: the field to draw (mapped to the frame's size as described for
 *   gst_mv_overlay_draw_full(); the matchers' metas have the frame's size,
 *   so they are drawn where they are)
 * @mode: what to draw
 * @max_magnitude: GST_MV_DRAW_COLOR only: the motion, in pixels, shown at
 *   full saturation; <= 0 uses the largest vector of the field
 *
 * gst_mv_overlay_draw_full() with min_magnitude 0 and arrow_scale 1. */
void gst_mv_overlay_draw (GstVideoFrame * frame,
    const GstMotionVectorsMeta * meta, GstMvDrawMode mode,
    gfloat max_magnitude);

/* gst_mv_overlay_draw_rect:
 * @frame: a frame mapped READWRITE, in any GST_MATCH_VIDEO_FORMATS format
 * @x: left column of the rectangle, in frame pixels (may be negative)
 * @y: top row (may be negative)
 * @width: width in pixels (<= 0 draws nothing)
 * @height: height in pixels (<= 0 draws nothing)
 * @rgb: the colour as 0xRRGGBB, converted like the arrows' colour
 * @thickness: line width in pixels (0 is taken as 1)
 *
 * Draws the outline of the rectangle [x, x + width) x [y, y + height): the
 * pixels of the rectangle that are within @thickness of its edge (inside
 * it; a rectangle thinner than twice @thickness is filled). Only the part
 * inside the frame is drawn: an edge that lies outside the frame is not
 * moved onto it. For subsampled chroma the chroma sample covering each
 * drawn pixel is written, so the colour bleeds by up to the subsampling
 * factor; luma and full-resolution components change only on the outline.
 * On GRAY8 the outline is white or black, whichever contrasts with the
 * mean of the pixels it covers (one value per rectangle), and @rgb is not
 * used. Alpha and padding bytes are never written and nothing is written
 * outside the frame's visible samples. Nothing is allocated. */
void gst_mv_overlay_draw_rect (GstVideoFrame * frame, gint x, gint y,
    gint width, gint height, guint32 rgb, guint thickness);

/* Tracks slower than this (pixels per frame) get no direction arrow. */
#define GST_MV_OVERLAY_TRACK_MIN_SPEED 0.05

/* gst_mv_overlay_track_font_scale:
 * @frame_height: the frame's height in pixels
 *
 * Returns: the frame pixels per font pixel of the track labels,
 * MAX (2, frame_height / 240): 2 up to 719 rows, 3 at 720p, 4 at 1080p. */
guint gst_mv_overlay_track_font_scale (gint frame_height);

/* gst_mv_overlay_draw_track:
 * @frame: a frame mapped READWRITE, in any GST_MATCH_VIDEO_FORMATS format
 * @x: left column of the tracked region's box, frame pixels
 * @y: top row of the box
 * @width: width of the box (<= 0 draws nothing)
 * @height: height of the box (<= 0 draws nothing)
 * @track_id: the id written
 * @vx: the object's velocity, pixels per frame, x right
 * @vy: the same, y down
 * @tag_rgb: colour of the tag under the id, as 0xRRGGBB
 * @arrow_rgb: colour of the arrow
 *
 * Labels a tracked region (the box itself is gst_mv_overlay_draw_rect()'s):
 * - the tag: @track_id in decimal, white digits of a built-in 3x5 pixel
 *   font, each font pixel s x s frame pixels
 *   (s = gst_mv_overlay_track_font_scale()), on a rectangle filled with
 *   @tag_rgb with one font pixel of margin around and between the digits
 *   ((4 n + 1) s x 7 s for n digits), its bottom-left corner on the box's
 *   top-left corner (just above the box, sharing its left edge), or inside
 *   the box at its top-left corner when there are fewer than 7 s rows
 *   above it;
 * - the direction: when the speed sqrt (vx² + vy²) is at least
 *   GST_MV_OVERLAY_TRACK_MIN_SPEED, an arrow (draw_arrow's: 1-pixel shaft,
 *   two barbs) from the box's centre (x + width / 2, y + height / 2) along
 *   (vx, vy), MAX (MIN (width, height) / 2, 6 s) pixels long whatever the
 *   speed, in @arrow_rgb; from s = 2 on drawn a second time one pixel to
 *   the side (below a mostly horizontal arrow, right of a mostly vertical
 *   one).
 * On GRAY8 the tag is black, the digits white, and the arrow white or
 * black against what its head covers; colours are converted as for
 * gst_mv_overlay_draw_rect(). Only what lies inside the frame is drawn;
 * nothing is allocated. */
void gst_mv_overlay_draw_track (GstVideoFrame * frame, gint x, gint y,
    gint width, gint height, guint track_id, gdouble vx, gdouble vy,
    guint32 tag_rgb, guint32 arrow_rgb);

/* gst_mv_overlay_draw_polyline:
 * @frame: a frame mapped READWRITE, in any GST_MATCH_VIDEO_FORMATS format
 * @x: (array length=n): the vertices' columns, frame pixels
 * @y: (array length=n): their rows
 * @n: the number of vertices (fewer than 2 draws nothing)
 * @closed: also join the last vertex to the first (a polygon)
 * @rgb: the colour as 0xRRGGBB, converted like the arrows' colour
 *
 * Draws the segments between consecutive vertices, two pixels wide (each
 * a second time one pixel down); on GRAY8 white over black. Only what lies
 * inside the frame is drawn; nothing is allocated. The zones and lines of
 * the motion elements (mvoverlay's `rules`). */
void gst_mv_overlay_draw_polyline (GstVideoFrame * frame, const gdouble * x,
    const gdouble * y, guint n, gboolean closed, guint32 rgb);

G_END_DECLS

#endif /* __GST_MV_OVERLAY_H__ */
