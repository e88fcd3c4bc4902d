/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* stereodisparity's side of the kernels (private to the element), apart
 * from its aggregator glue (gststereodisparity.cpp): the settings (the
 * POD, the properties that hold them, the checks of the settings as a
 * whole) and what the kernels take of them; making a matcher, with its
 * setup errors; a pair of frames in, a map out into an output frame. */
#ifndef __GST_STEREO_MATCHER_H__
#define __GST_STEREO_MATCHER_H__

#include <cstdint>
#include <memory>
#include <vector>

#include "gststereodisparity.h"
#include "common/gstmatchbackend.h"
#include "match/stereo.h"

/* The settings properties' ids; the element's own follow them. */
enum
{
  PROP_0,
  PROP_METHOD,
  PROP_COST,
  PROP_WINDOW_WIDTH,
  PROP_WINDOW_HEIGHT,
  PROP_CENSUS_WIDTH,
  PROP_CENSUS_HEIGHT,
  PROP_PATHS,
  PROP_COST_WINDOW,
  PROP_P1,
  PROP_P2,
  PROP_P2_EDGE,
  PROP_MIN_DISPARITY,
  PROP_NUM_DISPARITIES,
  PROP_REFERENCE,
  PROP_SUBPIXEL,
  PROP_LR_MAX_DIFF,
  PROP_UNIQUENESS_RATIO,
  PROP_TEXTURE_THRESHOLD,
  PROP_MEDIAN,
  PROP_SPECKLE_SIZE,
  PROP_SPECKLE_RANGE,
  PROP_FILL_INVALID,
  PROP_JOINT_MEDIAN,
  PROP_JOINT_MEDIAN_RANGE,
  PROP_OUTPUT,
  PROP_GRAY8_SCALE,
  PROP_FOCAL_LENGTH,
  PROP_BASELINE,
  PROP_MISSING_VIEW_TIMEOUT,
  /* GST_MATCH_BACKEND_N_PROPS ids from here: backend, device-id...
   * (gstmatchbackend.h) */
  PROP_BACKEND_FIRST,
  GST_STEREO_SETTINGS_N_PROPS = PROP_BACKEND_FIRST + GST_MATCH_BACKEND_N_PROPS
};

/* Plain copyable settings, read under the object lock and used unlocked
 * (their properties: common/gstmatchsettings.h). */
struct GstStereoSettings
{
  GstStereoMethod method;
  GstStereoCost cost;
  guint window_width;
  guint window_height;
  guint census_width;
  guint census_height;
  GstStereoPaths paths;
  guint cost_window; /* method=sgm: odd, 1..7 */
  guint p1;          /* 0 = the cost's default */
  guint p2;
  guint p2_edge;
  guint min_disparity;
  guint num_disparities;
  GstStereoReference reference;
  gboolean subpixel;
  gint lr_max_diff;
  guint uniqueness_ratio;
  guint texture_threshold;
  gboolean median;
  guint speckle_size;
  guint speckle_range;
  gboolean fill_invalid;
  guint joint_median; /* radius, 0 = off */
  guint joint_median_range;
  GstStereoOutput output;
  gdouble gray8_scale;
  gdouble focal_length;
  gdouble baseline;
  guint64 missing_view_timeout;
  GstMatchBackendSettings backend;
};

/* class_init: installs the settings properties and the backend property
 * set (ids 1 .. GST_STEREO_SETTINGS_N_PROPS - 1); init gets their defaults
 * with gst_match_settings_init(). */
void gst_stereo_settings_install (GObjectClass * klass);

/* The kernels' check of the settings (the configuration for width x
 * height frames, the output conversion); a failure names the setting
 * (gst_stereo_settings_post_error() names its property). */
match::Status gst_stereo_settings_validate (const GstStereoSettings & s,
    int width, int height);

/* Posts the element error of a failed matcher setup (start, a settings
 * check, create) for width x height frames (0 x 0: none yet). */
void gst_stereo_settings_post_error (GstElement * element,
    const GstStereoSettings & s, int width, int height,
    const match::Status & status);

/* The matcher's configuration for width x height frames. */
match::StereoConfig gst_stereo_settings_config (const GstStereoSettings & s,
    int width, int height);

/* The output's video info for the reference view's `in`: the format of
 * `output`, in's size, framerate and pixel-aspect-ratio. */
void gst_stereo_output_info (GstVideoInfo * out, const GstVideoInfo * in,
    GstStereoOutput output);

/* At start: the backend's checks (gst_match_backend_start(): with
 * backend=cuda, device-id a usable CUDA device and a CUDA stereo
 * implementation there). FALSE with the error posted on `element`. */
gboolean gst_stereo_matcher_start (GstElement * element,
    const GstStereoSettings & s, GstMatchBackendStrings * strings);

/* Makes a matcher for `cfg` on the settings' backend and device-id (logged
 * at INFO); on failure posts the setup error on `element` and returns
 * FALSE. */
gboolean gst_stereo_matcher_create (GstElement * element,
    const GstStereoSettings & s, const match::StereoConfig & cfg,
    std::unique_ptr<match::StereoMatcher> * matcher);

/* Hands the luma of a pair (bufs: frames of info[0], info[1]; `luma` the
 * scratch of RGB views) to the matcher with the runtime settings of `s`.
 * The matcher has taken the pixels when it returns. GST_FLOW_ERROR with
 * the element error posted on failure. */
GstFlowReturn gst_stereo_matcher_submit (GstElement * element,
    match::StereoMatcher * matcher, const GstVideoInfo info[2],
    std::vector<uint8_t> luma[2], GstBuffer * bufs[2],
    const GstStereoSettings & s);

/* Collects the oldest submitted pair's map into `outbuf` (a frame of
 * `info`) as `mode`'s output, converted with the settings `s` of the
 * pair's time. GST_FLOW_ERROR with the element error posted on failure
 * (outbuf is the caller's either way). */
GstFlowReturn gst_stereo_matcher_collect (GstElement * element,
    match::StereoMatcher * matcher, const GstVideoInfo * info,
    GstBuffer * outbuf, GstStereoOutput mode, const GstStereoSettings & s);

#endif /* __GST_STEREO_MATCHER_H__ */
