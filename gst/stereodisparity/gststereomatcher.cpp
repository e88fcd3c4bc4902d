/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gststereomatcher.h"

#include "common/gstmatchframe.h"
#include "common/gstmatchheld.h"
#include "common/gstmatchsettings.h"
#include "match/disparity_output.h"

GST_DEBUG_CATEGORY_EXTERN (gst_stereo_disparity_debug);
#define GST_CAT_DEFAULT gst_stereo_disparity_debug

#define DEFAULT_PROP_METHOD GST_STEREO_METHOD_SGM
#define DEFAULT_PROP_COST GST_STEREO_COST_CENSUS
#define DEFAULT_PROP_WINDOW_WIDTH 7
#define DEFAULT_PROP_WINDOW_HEIGHT 7
#define DEFAULT_PROP_CENSUS_WIDTH 9
#define DEFAULT_PROP_CENSUS_HEIGHT 7
#define DEFAULT_PROP_PATHS GST_STEREO_PATHS_8
#define DEFAULT_PROP_COST_WINDOW 3
#define DEFAULT_PROP_P1 0
#define DEFAULT_PROP_P2 0
#define DEFAULT_PROP_P2_EDGE 32
#define DEFAULT_PROP_MEDIAN TRUE
#define DEFAULT_PROP_SPECKLE_SIZE 0
#define DEFAULT_PROP_SPECKLE_RANGE 1
#define DEFAULT_PROP_FILL_INVALID TRUE
#define DEFAULT_PROP_JOINT_MEDIAN 3
#define DEFAULT_PROP_JOINT_MEDIAN_RANGE 16
#define DEFAULT_PROP_MIN_DISPARITY 0
#define DEFAULT_PROP_NUM_DISPARITIES 64
#define DEFAULT_PROP_REFERENCE GST_STEREO_REFERENCE_LEFT
#define DEFAULT_PROP_SUBPIXEL TRUE
#define DEFAULT_PROP_LR_MAX_DIFF 1
#define DEFAULT_PROP_UNIQUENESS_RATIO 0
#define DEFAULT_PROP_TEXTURE_THRESHOLD 0
#define DEFAULT_PROP_OUTPUT GST_STEREO_OUTPUT_DISPARITY
#define DEFAULT_PROP_GRAY8_SCALE 1.0
#define DEFAULT_PROP_FOCAL_LENGTH 0.0
#define DEFAULT_PROP_BASELINE 0.0
#define DEFAULT_PROP_MISSING_VIEW_TIMEOUT (5 * GST_SECOND)

#define MAX_LR_MAX_DIFF 256
#define MAX_GRAY8_SCALE 255.0
#define MAX_FOCAL_LENGTH 1e6 /* pixels */
#define MAX_BASELINE 1e6     /* millimetres */
/* Properties kept in GstStereoSettings: the field. */
#define SETTING(field) G_STRUCT_OFFSET (GstStereoSettings, field)

GType
gst_stereo_reference_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_STEREO_REFERENCE_LEFT, "Disparity of the left view", "left" },
    { GST_STEREO_REFERENCE_RIGHT, "Disparity of the right view", "right" },
    { 0, NULL, NULL }
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstStereoReference", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

GType
gst_stereo_method_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_STEREO_METHOD_BLOCK,
        "Winner-take-all over the window sum of the "
        "cost (paper [D])",
        "block" },
    { GST_STEREO_METHOD_SGM, "Semi-global matching along 4 or 8 paths", "sgm" },
    { 0, NULL, NULL }
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstStereoMethod", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

GType
gst_stereo_paths_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_STEREO_PATHS_4, "4 paths: horizontal and vertical", "4" },
    { GST_STEREO_PATHS_8, "8 paths: horizontal, vertical and diagonal", "8" },
    { 0, NULL, NULL }
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstStereoPaths", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

GType
gst_stereo_cost_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_STEREO_COST_SAD, "Absolute difference of the luma", "sad" },
    { GST_STEREO_COST_SOBEL,
        "Absolute difference of the clipped x-Sobel "
        "(StereoBM's pre-filter)",
        "sobel" },
    { GST_STEREO_COST_CENSUS, "Hamming distance of census transforms",
        "census" },
    { GST_STEREO_COST_CENSUS_AD,
        "Census Hamming distance plus the capped "
        "absolute luma difference (method=sgm)",
        "census-ad" },
    { 0, NULL, NULL }
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstStereoCost", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

GType
gst_stereo_output_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_STEREO_OUTPUT_DISPARITY,
        "GRAY16_LE disparity x 16 (4 fractional bits), invalid = 65535",
        "disparity" },
    { GST_STEREO_OUTPUT_GRAY8,
        "GRAY8 disparity x gray8-scale (fixed, clamped to 255), invalid = 0",
        "gray8" },
    { GST_STEREO_OUTPUT_COLOR,
        "RGB false colour over [min-disparity, min-disparity + "
        "num-disparities), invalid = black",
        "color" },
    { GST_STEREO_OUTPUT_DEPTH,
        "GRAY16_LE depth in millimetres (needs focal-length and baseline), "
        "invalid = 0",
        "depth" },
    { 0, NULL, NULL }
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstStereoOutput", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

void
gst_stereo_settings_install (GObjectClass * gobject_class)
{
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gst_type_mark_as_plugin_api (GST_TYPE_STEREO_REFERENCE,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_STEREO_OUTPUT, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_STEREO_METHOD, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_STEREO_COST, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_STEREO_PATHS, (GstPluginAPIFlags) 0);
  gst_match_settings_install (gobject_class, PROP_METHOD, SETTING (method),
      g_param_spec_enum ("method", "Method",
          "How the cost is aggregated: sgm gives the best maps (at real-time "
          "speed on a GPU); block with cost=sad is paper [D]'s fast matcher",
          GST_TYPE_STEREO_METHOD, DEFAULT_PROP_METHOD, rw_playing));
  gst_match_settings_install (gobject_class, PROP_COST, SETTING (cost),
      g_param_spec_enum ("cost", "Cost",
          "Per-pixel matching cost (colour input uses the luma)",
          GST_TYPE_STEREO_COST, DEFAULT_PROP_COST, rw_playing));
  gst_match_settings_install (gobject_class, PROP_WINDOW_WIDTH,
      SETTING (window_width),
      g_param_spec_uint ("window-width", "Window width",
          "Width in pixels of the window method=block sums the cost over, "
          "and of the texture test's (odd; an even value fails with a "
          "settings error when used)",
          1, match::kMaxStereoWindow, DEFAULT_PROP_WINDOW_WIDTH, rw_playing));
  gst_match_settings_install (gobject_class, PROP_WINDOW_HEIGHT,
      SETTING (window_height),
      g_param_spec_uint ("window-height", "Window height",
          "Height in pixels of the window method=block sums the cost over, "
          "and of the texture test's (odd; an even value fails with a "
          "settings error when used)",
          1, match::kMaxStereoWindow, DEFAULT_PROP_WINDOW_HEIGHT, rw_playing));
  gst_match_settings_install (gobject_class, PROP_CENSUS_WIDTH,
      SETTING (census_width),
      g_param_spec_uint ("census-width", "Census width",
          "cost=census or census-ad: width of the census window (odd; at most "
          "64 pixels "
          "besides the centre, e.g. 5x5, 7x7, 9x7)",
          1, 63, DEFAULT_PROP_CENSUS_WIDTH, rw_playing));
  gst_match_settings_install (gobject_class, PROP_CENSUS_HEIGHT,
      SETTING (census_height),
      g_param_spec_uint ("census-height", "Census height",
          "cost=census or census-ad: height of the census window (odd)", 1, 63,
          DEFAULT_PROP_CENSUS_HEIGHT, rw_playing));
  gst_match_settings_install (gobject_class, PROP_PATHS, SETTING (paths),
      g_param_spec_enum ("paths", "Paths",
          "method=sgm: aggregation paths, 4 (horizontal and vertical) or 8 "
          "(and the diagonals)",
          GST_TYPE_STEREO_PATHS, DEFAULT_PROP_PATHS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_COST_WINDOW,
      SETTING (cost_window),
      g_param_spec_uint ("cost-window", "Cost window",
          "method=sgm: side of the square the per-pixel costs are averaged "
          "over (rounded mean) before the paths, as OpenCV StereoSGBM's "
          "blockSize (odd; 1 = the per-pixel cost itself; an even value "
          "fails with a settings error when used)",
          1, match::kMaxCostWindow, DEFAULT_PROP_COST_WINDOW, rw_playing));
  gst_match_settings_install (gobject_class, PROP_P1, SETTING (p1),
      g_param_spec_uint ("p1", "P1",
          "method=sgm: penalty for a disparity change of 1 between "
          "neighbours along a path; 0 = the cost's default (census, "
          "census-ad and sobel 10, sad 40)",
          0, match::kMaxSgmPenalty, DEFAULT_PROP_P1, rw_playing));
  gst_match_settings_install (gobject_class, PROP_P2, SETTING (p2),
      g_param_spec_uint ("p2", "P2",
          "method=sgm: penalty for a larger disparity jump; 0 = the cost's "
          "default (census, census-ad and sobel 120, sad 480)",
          0, match::kMaxSgmPenalty, DEFAULT_PROP_P2, rw_playing));
  gst_match_settings_install (gobject_class, PROP_P2_EDGE, SETTING (p2_edge),
      g_param_spec_uint ("p2-edge", "Edge-aware P2",
          "method=sgm: lower P2 across intensity edges, to max (p1, p2 x e / "
          "(e + |luma step along the path|)) with e = this; 0 = off",
          0, match::kMaxP2Edge, DEFAULT_PROP_P2_EDGE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_MIN_DISPARITY,
      SETTING (min_disparity),
      g_param_spec_uint ("min-disparity", "Minimum disparity",
          "Smallest disparity searched, in pixels", 0, match::kMaxMinDisparity,
          DEFAULT_PROP_MIN_DISPARITY, rw_playing));
  gst_match_settings_install (gobject_class, PROP_NUM_DISPARITIES,
      SETTING (num_disparities),
      g_param_spec_uint ("num-disparities", "Number of disparities",
          "Disparities searched: min-disparity .. min-disparity + "
          "num-disparities - 1",
          1, match::kMaxDisparities, DEFAULT_PROP_NUM_DISPARITIES, rw_playing));
  gst_match_settings_install (gobject_class, PROP_REFERENCE,
      SETTING (reference),
      g_param_spec_enum ("reference", "Reference view",
          "The view whose disparity map is output (and whose timestamps, "
          "framerate and pixel-aspect-ratio the output takes)",
          GST_TYPE_STEREO_REFERENCE, DEFAULT_PROP_REFERENCE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_SUBPIXEL, SETTING (subpixel),
      g_param_spec_boolean ("subpixel", "Sub-pixel",
          "Refine each disparity to 1/16 pixel by a parabola through the "
          "costs of d-1, d, d+1",
          DEFAULT_PROP_SUBPIXEL, rw_playing));
  gst_match_settings_install (gobject_class, PROP_LR_MAX_DIFF,
      SETTING (lr_max_diff),
      g_param_spec_int ("lr-max-diff", "Left-right max difference",
          "Left-right consistency check: a pixel is invalid when the other "
          "view's disparity at its match differs by more than this (whole "
          "pixels); -1 = no check",
          -1, MAX_LR_MAX_DIFF, DEFAULT_PROP_LR_MAX_DIFF, rw_playing));
  gst_match_settings_install (gobject_class, PROP_UNIQUENESS_RATIO,
      SETTING (uniqueness_ratio),
      g_param_spec_uint ("uniqueness-ratio", "Uniqueness ratio",
          "A pixel is invalid when a disparity more than 1 away from the "
          "best has a cost within this many percent of the best; 0 = off",
          0, 100, DEFAULT_PROP_UNIQUENESS_RATIO, rw_playing));
  gst_match_settings_install (gobject_class, PROP_TEXTURE_THRESHOLD,
      SETTING (texture_threshold),
      g_param_spec_uint ("texture-threshold", "Texture threshold",
          "A pixel is invalid when the sum over its window of the "
          "horizontal luma differences |I(x+1) - I(x-1)| is below this; "
          "0 = off",
          0, G_MAXINT, DEFAULT_PROP_TEXTURE_THRESHOLD, rw_playing));
  gst_match_settings_install (gobject_class, PROP_MEDIAN, SETTING (median),
      g_param_spec_boolean ("median", "Median",
          "3x3 median of the valid disparities after the checks (invalid "
          "pixels stay invalid)",
          DEFAULT_PROP_MEDIAN, rw_playing));
  gst_match_settings_install (gobject_class, PROP_SPECKLE_SIZE,
      SETTING (speckle_size),
      g_param_spec_uint ("speckle-size", "Speckle size",
          "Speckle filter: connected regions of similar disparity with fewer "
          "than this many pixels become invalid; 0 = off",
          0, G_MAXINT, DEFAULT_PROP_SPECKLE_SIZE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_SPECKLE_RANGE,
      SETTING (speckle_range),
      g_param_spec_uint ("speckle-range", "Speckle range",
          "Speckle filter: neighbours whose disparities differ by at most "
          "this many pixels belong to one region",
          0, match::kMaxSpeckleRange, DEFAULT_PROP_SPECKLE_RANGE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_FILL_INVALID,
      SETTING (fill_invalid),
      g_param_spec_boolean ("fill-invalid", "Fill invalid",
          "After the speckle filter, each invalid pixel takes the lower of "
          "the nearest valid disparities to its left and right in its row "
          "(the background's at an occlusion)",
          DEFAULT_PROP_FILL_INVALID, rw_playing));
  gst_match_settings_install (gobject_class, PROP_JOINT_MEDIAN,
      SETTING (joint_median),
      g_param_spec_uint ("joint-median", "Joint median",
          "Last, each valid pixel takes the median of the valid disparities "
          "in the (2r+1)x(2r+1) square around it whose reference luma is "
          "within joint-median-range of its own (an edge-preserving median "
          "that trims foreground fattening); r = this, 0 = off",
          0, match::kMaxJointMedianRadius, DEFAULT_PROP_JOINT_MEDIAN,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_JOINT_MEDIAN_RANGE,
      SETTING (joint_median_range),
      g_param_spec_uint ("joint-median-range", "Joint median range",
          "Joint median: neighbours whose reference luma differs from the "
          "pixel's by at most this count",
          0, 255, DEFAULT_PROP_JOINT_MEDIAN_RANGE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_OUTPUT, SETTING (output),
      g_param_spec_enum ("output", "Output",
          "What the source pad carries (see the element documentation for "
          "the fixed scale factors)",
          GST_TYPE_STEREO_OUTPUT, DEFAULT_PROP_OUTPUT, rw_playing));
  gst_match_settings_install (gobject_class, PROP_GRAY8_SCALE,
      SETTING (gray8_scale),
      g_param_spec_double ("gray8-scale", "GRAY8 scale",
          "output=gray8: grey level = round (disparity in pixels x this), "
          "clamped to 255; a fixed factor, never per frame",
          0.0, MAX_GRAY8_SCALE, DEFAULT_PROP_GRAY8_SCALE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_FOCAL_LENGTH,
      SETTING (focal_length),
      g_param_spec_double ("focal-length", "Focal length",
          "output=depth: focal length of the rectified views in pixels "
          "(must be > 0 for depth)",
          0.0, MAX_FOCAL_LENGTH, DEFAULT_PROP_FOCAL_LENGTH, rw_playing));
  gst_match_settings_install (gobject_class, PROP_BASELINE, SETTING (baseline),
      g_param_spec_double ("baseline", "Baseline",
          "output=depth: distance between the two camera centres in "
          "millimetres (must be > 0 for depth)",
          0.0, MAX_BASELINE, DEFAULT_PROP_BASELINE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_MISSING_VIEW_TIMEOUT,
      SETTING (missing_view_timeout),
      g_param_spec_uint64 ("missing-view-timeout", "Missing view timeout",
          "How long frames may wait on one view while no frame arrives on "
          "the other before the element says so (ns): an error when that "
          "sink pad is not linked, else a warning (once per stall; it keeps "
          "waiting); a sink pad still unlinked this long is an error too. "
          "0 = never",
          0, G_MAXUINT64, DEFAULT_PROP_MISSING_VIEW_TIMEOUT, rw_ready));
  /* One GPU: no devices / multi-gpu. */
  gst_match_backend_install_properties (gobject_class, PROP_BACKEND_FIRST,
      SETTING (backend), FALSE);
}

/* The element's enums are the kernels' values. */
static_assert ((int) GST_STEREO_COST_SAD == (int) match::StereoCost::kSad
        && (int) GST_STEREO_COST_SOBEL == (int) match::StereoCost::kSobel
        && (int) GST_STEREO_COST_CENSUS == (int) match::StereoCost::kCensus
        && (int) GST_STEREO_COST_CENSUS_AD == (int) match::StereoCost::kCensusAd
        && (int) GST_STEREO_METHOD_BLOCK == (int) match::StereoMethod::kBlock
        && (int) GST_STEREO_METHOD_SGM == (int) match::StereoMethod::kSgm,
    "GstStereoCost/GstStereoMethod follow match::StereoCost/StereoMethod");

match::StereoConfig
gst_stereo_settings_config (const GstStereoSettings & s, int width, int height)
{
  match::StereoConfig c;
  c.width = width;
  c.height = height;
  c.window_width = (int) s.window_width;
  c.window_height = (int) s.window_height;
  c.min_disparity = (int) s.min_disparity;
  c.num_disparities = (int) s.num_disparities;
  c.reference = s.reference == GST_STEREO_REFERENCE_RIGHT
      ? match::StereoReference::kRight
      : match::StereoReference::kLeft;
  c.cost = (match::StereoCost) s.cost;
  c.method = (match::StereoMethod) s.method;
  c.census_width = (int) s.census_width;
  c.census_height = (int) s.census_height;
  c.paths = (int) s.paths;
  c.cost_window = (int) s.cost_window;
  return c;
}

static match::StereoRuntime
make_runtime (const GstStereoSettings & s)
{
  match::StereoRuntime rt;
  rt.subpixel = s.subpixel ? true : false;
  rt.lr_max_diff = s.lr_max_diff;
  rt.uniqueness_ratio = (int) s.uniqueness_ratio;
  rt.texture_threshold = (int) MIN (s.texture_threshold, (guint) G_MAXINT);
  const match::SgmPenalties auto_p =
      match::default_sgm_penalties ((match::StereoCost) s.cost);
  rt.p1 = s.p1 ? (int) s.p1 : auto_p.p1;
  rt.p2 = s.p2 ? (int) s.p2 : auto_p.p2;
  rt.p2_edge = (int) s.p2_edge;
  rt.median = s.median ? true : false;
  rt.speckle_size = (int) MIN (s.speckle_size, (guint) G_MAXINT);
  rt.speckle_range = (int) s.speckle_range;
  rt.fill_invalid = s.fill_invalid ? true : false;
  rt.joint_median_radius = (int) s.joint_median;
  rt.joint_median_range = (int) s.joint_median_range;
  rt.threads = (int) s.backend.n_threads;
  return rt;
}

/* The conversion of the matcher's map into `mode`'s output. */
static match::DisparityOutputParams
make_output_params (GstStereoOutput mode, const GstStereoSettings & s)
{
  match::DisparityOutputParams p;
  switch (mode) {
    case GST_STEREO_OUTPUT_GRAY8:
      p.mode = match::DisparityOutputMode::kGray8;
      break;
    case GST_STEREO_OUTPUT_COLOR:
      p.mode = match::DisparityOutputMode::kColor;
      break;
    case GST_STEREO_OUTPUT_DEPTH:
      p.mode = match::DisparityOutputMode::kDepth;
      break;
    case GST_STEREO_OUTPUT_DISPARITY:
    default:
      p.mode = match::DisparityOutputMode::kDisparity;
      break;
  }
  p.min_disparity = (int) s.min_disparity;
  p.num_disparities = (int) s.num_disparities;
  p.gray8_scale = s.gray8_scale;
  p.focal_length = s.focal_length;
  p.baseline = s.baseline;
  return p;
}

match::Status
gst_stereo_settings_validate (const GstStereoSettings & s, int width,
    int height)
{
  const match::Status status =
      gst_stereo_settings_config (s, width, height).validate ();
  if (!status)
    return status;
  return make_output_params (s.output, s).validate ();
}

static GstVideoFormat
output_format (GstStereoOutput output)
{
  switch (output) {
    case GST_STEREO_OUTPUT_GRAY8:
      return GST_VIDEO_FORMAT_GRAY8;
    case GST_STEREO_OUTPUT_COLOR:
      return GST_VIDEO_FORMAT_RGB;
    case GST_STEREO_OUTPUT_DISPARITY:
    case GST_STEREO_OUTPUT_DEPTH:
    default:
      return GST_VIDEO_FORMAT_GRAY16_LE;
  }
}

void
gst_stereo_output_info (GstVideoInfo * out, const GstVideoInfo * in,
    GstStereoOutput output)
{
  gst_video_info_set_format (out, output_format (output),
      GST_VIDEO_INFO_WIDTH (in), GST_VIDEO_INFO_HEIGHT (in));
  GST_VIDEO_INFO_FPS_N (out) = GST_VIDEO_INFO_FPS_N (in);
  GST_VIDEO_INFO_FPS_D (out) = GST_VIDEO_INFO_FPS_D (in);
  GST_VIDEO_INFO_PAR_N (out) = GST_VIDEO_INFO_PAR_N (in);
  GST_VIDEO_INFO_PAR_D (out) = GST_VIDEO_INFO_PAR_D (in);
}

#define WHAT "stereo matching"

/* Where stereo matching runs: device-id alone (no devices list). */
static match::DeviceOptions
make_device_options (const GstStereoSettings & s)
{
  match::DeviceOptions d;
  d.devices.push_back (s.backend.device_id);
  return d;
}

void
gst_stereo_settings_post_error (GstElement * element,
    const GstStereoSettings & s, int width, int height,
    const match::Status & status)
{
  gst_match_backend_post_setup_error (element, WHAT, s.backend.backend, width,
      height, status);
}

gboolean
gst_stereo_matcher_start (GstElement * element, const GstStereoSettings & s,
    GstMatchBackendStrings * strings)
{
  const match::DeviceOptions devices = make_device_options (s);

  /* *INDENT-OFF* */
  return gst_match_backend_start (element, WHAT, s.backend, strings, devices,
      [&] () {
        /* The frame size is not known yet; a small one stands in for it. */
        std::unique_ptr<match::StereoMatcher> probe;
        return match::StereoMatcher::create (match::Backend::kCuda,
            gst_stereo_settings_config (s, 64, 64), &probe, devices);
      });
  /* *INDENT-ON* */
}

gboolean
gst_stereo_matcher_create (GstElement * element, const GstStereoSettings & s,
    const match::StereoConfig & cfg,
    std::unique_ptr<match::StereoMatcher> * matcher)
{
  const match::Backend backend = gst_match_backend_to_match (s.backend.backend);
  const match::Status status = match::StereoMatcher::create (backend, cfg,
      matcher, make_device_options (s));

  if (!status) {
    gst_stereo_settings_post_error (element, s, cfg.width, cfg.height, status);
    return FALSE;
  }
  GST_INFO_OBJECT (element,
      "%dx%d, method %s, cost %s, window %dx%d, "
      "disparities %d..%d, reference %s, backend=%s: using %s",
      cfg.width, cfg.height,
      cfg.method == match::StereoMethod::kSgm ? "sgm" : "block",
      cfg.cost == match::StereoCost::kCensusAd     ? "census-ad"
          : cfg.cost == match::StereoCost::kCensus ? "census"
          : cfg.cost == match::StereoCost::kSobel  ? "sobel"
                                                   : "sad",
      cfg.window_width, cfg.window_height, cfg.min_disparity,
      cfg.min_disparity + cfg.num_disparities - 1,
      cfg.reference == match::StereoReference::kRight ? "right" : "left",
      match::backend_name (backend), (*matcher)->description ().c_str ());
  return TRUE;
}

GstFlowReturn
gst_stereo_matcher_submit (GstElement * element, match::StereoMatcher * matcher,
    const GstVideoInfo info[2], std::vector<uint8_t> luma[2],
    GstBuffer * bufs[2], const GstStereoSettings & s)
{
  GstVideoFrame in[2];
  match::ImageView views[2];
  match::Status status;
  int mapped = 0;

  for (; mapped < 2; mapped++) {
    if (!gst_video_frame_map (&in[mapped], &info[mapped], bufs[mapped],
            GST_MAP_READ))
      break;
    views[mapped] = gst_match_frame_luma (&in[mapped], luma[mapped]);
  }
  if (mapped == 2)
    status = matcher->submit (views[0], views[1], make_runtime (s));
  for (int v = 0; v < mapped; v++)
    gst_video_frame_unmap (&in[v]);

  if (mapped < 2) {
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("Could not map a frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  if (!status) {
    GST_ELEMENT_ERROR (element, LIBRARY, FAILED, ("Stereo matching failed"),
        ("%s", status.message ().c_str ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}

GstFlowReturn
gst_stereo_matcher_collect (GstElement * element,
    match::StereoMatcher * matcher, const GstVideoInfo * info,
    GstBuffer * outbuf, GstStereoOutput mode, const GstStereoSettings & s)
{
  GstVideoFrame out;
  match::DisparityOutputView view;

  if (!gst_video_frame_map (&out, info, outbuf, GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (element, STREAM, FAILED, ("Could not map a frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  view.data = static_cast<uint8_t *> (GST_VIDEO_FRAME_PLANE_DATA (&out, 0));
  view.width = GST_VIDEO_FRAME_WIDTH (&out);
  view.height = GST_VIDEO_FRAME_HEIGHT (&out);
  view.stride_bytes = GST_VIDEO_FRAME_PLANE_STRIDE (&out, 0);
  const match::Status status =
      matcher->collect (view, make_output_params (mode, s));
  gst_video_frame_unmap (&out);
  if (!status) {
    GST_ELEMENT_ERROR (element, LIBRARY, FAILED, ("Stereo matching failed"),
        ("%s", status.message ().c_str ()));
    return GST_FLOW_ERROR;
  }
  return GST_FLOW_OK;
}
