/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_STEREO_DISPARITY_H__
#define __GST_STEREO_DISPARITY_H__

#include <gst/gst.h>
#include <gst/base/gstaggregator.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_STEREO_DISPARITY (gst_stereo_disparity_get_type ())
G_DECLARE_FINAL_TYPE (GstStereoDisparity, gst_stereo_disparity, GST,
    STEREO_DISPARITY, GstAggregator)

GST_ELEMENT_REGISTER_DECLARE (stereodisparity);

/**
 * GstStereoReference:
 * @GST_STEREO_REFERENCE_LEFT: the output is the left view's disparity
 *   (pixel x of the left view matches x - d of the right view).
 * @GST_STEREO_REFERENCE_RIGHT: the output is the right view's disparity
 *   (pixel x of the right view matches x + d of the left view).
 *
 * The view whose disparity map is produced (match::StereoReference).
 */
typedef enum
{
  GST_STEREO_REFERENCE_LEFT = 0,
  GST_STEREO_REFERENCE_RIGHT = 1,
} GstStereoReference;

GType gst_stereo_reference_get_type (void);
#define GST_TYPE_STEREO_REFERENCE (gst_stereo_reference_get_type ())

/**
 * GstStereoOutput:
 * @GST_STEREO_OUTPUT_DISPARITY: GRAY16_LE, disparity x 16 (4 fractional
 *   bits); invalid pixels are 65535.
 * @GST_STEREO_OUTPUT_GRAY8: GRAY8, disparity in pixels x `gray8-scale`,
 *   rounded and clamped to 255; invalid pixels are 0.
 * @GST_STEREO_OUTPUT_COLOR: RGB false colour (a fixed "jet" map over
 *   [min-disparity, min-disparity + num-disparities)); invalid pixels are
 *   black.
 * @GST_STEREO_OUTPUT_DEPTH: GRAY16_LE depth in millimetres,
 *   focal-length x baseline / disparity; invalid pixels (and disparity 0)
 *   are 0.
 *
 * What the source pad carries.
 */
typedef enum
{
  GST_STEREO_OUTPUT_DISPARITY = 0,
  GST_STEREO_OUTPUT_GRAY8 = 1,
  GST_STEREO_OUTPUT_COLOR = 2,
  GST_STEREO_OUTPUT_DEPTH = 3,
} GstStereoOutput;

GType gst_stereo_output_get_type (void);
#define GST_TYPE_STEREO_OUTPUT (gst_stereo_output_get_type ())

/**
 * GstStereoMethod:
 * @GST_STEREO_METHOD_BLOCK: winner-take-all over the sum of the cost in a
 *   window-width x window-height window (paper [D]).
 * @GST_STEREO_METHOD_SGM: semi-global matching: the per-pixel cost
 *   aggregated along 4 or 8 paths with penalties p1 and p2.
 *
 * How the per-pixel matching cost is aggregated (match::StereoMethod).
 */
typedef enum
{
  GST_STEREO_METHOD_BLOCK = 0,
  GST_STEREO_METHOD_SGM = 1,
} GstStereoMethod;

GType gst_stereo_method_get_type (void);
#define GST_TYPE_STEREO_METHOD (gst_stereo_method_get_type ())

/**
 * GstStereoPaths:
 * @GST_STEREO_PATHS_4: the horizontal and vertical paths.
 * @GST_STEREO_PATHS_8: and the diagonals.
 *
 * method=sgm's aggregation paths (match::StereoConfig::paths); the values
 * are the counts, so `paths=4` and `paths=8` read as before.
 */
typedef enum
{
  GST_STEREO_PATHS_4 = 4,
  GST_STEREO_PATHS_8 = 8,
} GstStereoPaths;

GType gst_stereo_paths_get_type (void);
#define GST_TYPE_STEREO_PATHS (gst_stereo_paths_get_type ())

/**
 * GstStereoCost:
 * @GST_STEREO_COST_SAD: absolute difference of the luma.
 * @GST_STEREO_COST_SOBEL: absolute difference of the x-Sobel of the luma
 *   clipped to [-31, 31] (OpenCV StereoBM's pre-filter): robust to
 *   brightness offsets between the cameras.
 * @GST_STEREO_COST_CENSUS: Hamming distance of the census transforms over
 *   census-width x census-height: robust to any monotonic brightness change.
 * @GST_STEREO_COST_CENSUS_AD: the census cost plus the absolute luma
 *   difference capped at 31 and halved (0..15), an AD-census mix for
 *   method=sgm only: fewer errors where the census alone is ambiguous.
 *
 * The per-pixel matching cost (match::StereoCost).
 */
typedef enum
{
  GST_STEREO_COST_SAD = 0,
  GST_STEREO_COST_SOBEL = 1,
  GST_STEREO_COST_CENSUS = 2,
  GST_STEREO_COST_CENSUS_AD = 3,
} GstStereoCost;

GType gst_stereo_cost_get_type (void);
#define GST_TYPE_STEREO_COST (gst_stereo_cost_get_type ())

G_END_DECLS

#endif /* __GST_STEREO_DISPARITY_H__ */
