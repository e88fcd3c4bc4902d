/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-blockmatchme
 * @title: blockmatchme
 *
 * Block-matching motion estimation. Each frame (up to 16384x16384) is cut
 * into blocks and every block is compared, by the sum of absolute
 * differences (SAD) of luma, with candidate displacements of the previous
 * frame inside the search range: all of them (`method=full`, the default)
 * or those a fast search visits (hierarchical, three-step, diamond,
 * hexagon, predictive), optionally on a 1/2 or 1/4 pixel grid
 * (`subpixel`). The result is attached to the buffer as a
 * #GstMotionVectorsMeta and can be drawn on the video (`draw`). Video
 * passes through unchanged when nothing is drawn.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     blockmatchme block-size=16 search-range=16 draw=arrows ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 v4l2src ! videoconvert ! blockmatchme subpixel=half \
 *     direction=forward ! mvexport location=field-%05d.flo ! fakesink
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     blockmatchme backend=cuda devices=0,1 multi-gpu=parallel \
 *     pipeline-depth=1 ! mvexport location=vectors.jsonl ! fakesink
 * ]|
 *
 * With `pipeline-depth` > 0 the element holds that many frames while the
 * backend works on them, so each buffer leaves that many frames late (the
 * latency query reports it); the vectors are the same as with depth 0.
 *
 * With NVIDIA decoders the frames can stay on the GPU: built with
 * GStreamer's CUDA library, the element takes
 * `video/x-raw(memory:CUDAMemory)` (GRAY8, I420, YV12, NV12, NV21, Y41B,
 * Y42B, Y444) with backend=cuda or auto and passes the buffers on unchanged
 * (docs/cuda-memory.md):
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! \
 *     nvh264dec ! blockmatchme ! fakesink
 * ]|
 *
 * With `regions=true` the moving blocks are grouped into regions attached as
 * #GstVideoRegionOfInterestMeta of type "motion"; `events=true` posts
 * motion-start / motion-stop element messages, `region-messages=true` one
 * motion-regions message per frame with regions (docs/motion-events.md,
 * gst_motion_event_parse()).
 */
/* Algorithm notes.
 *
 * Full search as in papers [A] (Massanes et al. 2011), [C] and [D]: see
 * docs/blockmatchme.md and kernels/include/match/blockmatch.h for the exact
 * definitions (candidate grid, bilinear sub-pel arithmetic, clamp-to-edge
 * borders, partial edge blocks, tie rule, noise threshold). The element only
 * marshals frames and settings; all computing is in kernels/.
 *
 * Everything but the block-matching settings and the meta's fields is
 * GstMatchFilter's (common/gstmatchfilter.h): backend and device
 * properties, CUDA memory, pipelining (pipeline-depth), regions and events,
 * drawing, and the match::BlockMatcher itself, which the base class drives
 * through the adapter this file's traits make (common/gstmatchadapter.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstblockmatchme.h"

#include "common/gstmatchadapter.h"
#include "common/gstmatchsettings.h"
#include "match/blockmatch.h"

GST_DEBUG_CATEGORY_STATIC (gst_block_match_me_debug);
#define GST_CAT_DEFAULT gst_block_match_me_debug

#define DEFAULT_PROP_BLOCK_SIZE 16
#define DEFAULT_PROP_SEARCH_RANGE 16
#define DEFAULT_PROP_SUBPIXEL GST_BLOCK_MATCH_ME_SUBPIXEL_INTEGER
#define DEFAULT_PROP_DIRECTION GST_MOTION_VECTORS_DIRECTION_BACKWARD
#define DEFAULT_PROP_METHOD GST_BLOCK_MATCH_ME_METHOD_FULL
#define DEFAULT_PROP_LEVELS 3
#define DEFAULT_PROP_PREDICTORS 4
#define DEFAULT_PROP_THRESHOLD 0.0
#define DEFAULT_PROP_PASSES 4
#define DEFAULT_PROP_EARLY_STOP 2.0
#define DEFAULT_PROP_RATE 1.0
#define DEFAULT_PROP_AUTO_SEARCH_RANGE TRUE

/* The ids below GST_MATCH_FILTER_N_PROPS are the base class's. */
enum
{
  PROP_0 = GST_MATCH_FILTER_N_PROPS,
  PROP_BLOCK_SIZE,
  PROP_BLOCK_WIDTH,
  PROP_BLOCK_HEIGHT,
  PROP_SEARCH_RANGE,
  PROP_SEARCH_RANGE_X,
  PROP_SEARCH_RANGE_Y,
  PROP_SUBPIXEL,
  PROP_DIRECTION,
  PROP_METHOD,
  PROP_LEVELS,
  PROP_PREDICTORS,
  PROP_THRESHOLD,
  PROP_PASSES,
  PROP_EARLY_STOP,
  PROP_RATE,
  PROP_AUTO_SEARCH_RANGE,
};

/* Plain copyable settings, read under the object lock and used unlocked
 * (they live in the base class's adapter). Their properties are installed
 * with their fields (gstmatchsettings.h); block-size and search-range set
 * two. */
struct GstBlockMatchMeSettings
{
  guint block_width;
  guint block_height;
  guint range_x;
  guint range_y;
  GstBlockMatchMeSubpixel subpixel;
  GstMotionVectorsDirection direction;
  GstBlockMatchMeMethod method;
  guint levels;
  guint predictors;
  gdouble threshold;
  guint passes;
  gdouble early_stop;
  gdouble rate;
  gboolean auto_range;
};

/* Properties kept in the settings: the field. */
#define SETTING(field) G_STRUCT_OFFSET (GstBlockMatchMeSettings, field)

struct _GstBlockMatchMe
{
  GstMatchFilter parent;
};

#define gst_block_match_me_parent_class parent_class
G_DEFINE_TYPE (GstBlockMatchMe, gst_block_match_me, GST_TYPE_MATCH_FILTER);
GST_ELEMENT_REGISTER_DEFINE (blockmatchme, "blockmatchme", GST_RANK_NONE,
    GST_TYPE_BLOCK_MATCH_ME);

#define GST_TYPE_BLOCK_MATCH_ME_SUBPIXEL                                       \
  (gst_block_match_me_subpixel_get_type ())
static GType
gst_block_match_me_subpixel_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = { { GST_BLOCK_MATCH_ME_SUBPIXEL_INTEGER,
                                           "Integer pixel grid", "integer" },
    { GST_BLOCK_MATCH_ME_SUBPIXEL_HALF, "Half-pixel grid (bilinear)", "half" },
    { GST_BLOCK_MATCH_ME_SUBPIXEL_QUARTER, "Quarter-pixel grid (bilinear)",
        "quarter" },
    { 0, NULL, NULL } };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstBlockMatchMeSubpixel", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

#define GST_TYPE_BLOCK_MATCH_ME_METHOD (gst_block_match_me_method_get_type ())
static GType
gst_block_match_me_method_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = { { GST_BLOCK_MATCH_ME_METHOD_FULL,
                                           "Full (exhaustive) search", "full" },
    { GST_BLOCK_MATCH_ME_METHOD_HIERARCHICAL,
        "Multiresolution multi-predictor search (paper [B]; levels, "
        "predictors)",
        "hierarchical" },
    { GST_BLOCK_MATCH_ME_METHOD_THREE_STEP, "Three-step (logarithmic) search",
        "three-step" },
    { GST_BLOCK_MATCH_ME_METHOD_DIAMOND, "Diamond search", "diamond" },
    { GST_BLOCK_MATCH_ME_METHOD_HEXAGON, "Hexagon search", "hexagon" },
    { GST_BLOCK_MATCH_ME_METHOD_PREDICTIVE,
        "Predictive search from the previous frame's and the neighbours' "
        "vectors (EPZS-like)",
        "predictive" },
    { 0, NULL, NULL } };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstBlockMatchMeMethod", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

/* What is block matching's own: the kernels' configuration and runtime
 * values from the settings, and the meta from the vectors (the base
 * class does the rest, gstmatchadapter.h). */
struct GstBlockMatchMeTraits
{
  typedef match::BlockMatcher Matcher;
  typedef match::BlockMatchConfig Config;
  typedef match::BlockVector Vector;
  typedef GstBlockMatchMeSettings Settings;

  static Config make_config (const Settings & s, int width, int height)
  {
    Config c;
    c.width = width;
    c.height = height;
    c.block_width = s.block_width;
    c.block_height = s.block_height;
    c.range_x = s.range_x;
    c.range_y = s.range_y;
    c.subpel = s.subpixel;
    c.direction = s.direction == GST_MOTION_VECTORS_DIRECTION_FORWARD
        ? match::Direction::kForward
        : match::Direction::kBackward;
    c.method = (match::SearchMethod) s.method;
    c.levels = (int) s.levels;
    c.predictors = (int) s.predictors;
    c.passes = (int) s.passes;
    return c;
  }

  static match::BlockMatchRuntime make_runtime (const Settings & s,
      guint n_threads)
  {
    match::BlockMatchRuntime rt;
    rt.threshold = s.threshold;
    rt.predictive_stop = s.early_stop;
    rt.predictive_rate = s.rate;
    rt.threads = n_threads;
    return rt;
  }

  static void reach (const Config & c, int * x, int * y)
  {
    *x = c.range_x;
    *y = c.range_y;
  }

  static bool widen (const Settings & s, int factor, Config * c)
  {
    if (!s.auto_range)
      return false;
    c->range_x = std::min (c->range_x * factor, (int) match::kMaxSearchRange);
    c->range_y = std::min (c->range_y * factor, (int) match::kMaxSearchRange);
    return true;
  }

  static GstMotionVectorsMeta * fill_meta (GstMatchFilter * filter,
      GstBuffer * buf, const Config & c, const Vector * vectors,
      gboolean estimated)
  {
    GstMotionVectorsMeta * meta = gst_match_filter_attach_meta (filter, buf,
        c.width, c.height, c.block_width, c.block_height, c.direction);
    if (!meta)
      return NULL;
    meta->precision = 1.0f / c.subpel;
    meta->method =
        g_intern_static_string (match::search_method_name (c.method));
    gst_match_fill_meta (meta, vectors, estimated);
    return meta;
  }
};

static GstMatchAdapter *
gst_block_match_me_create_adapter (GstMatchFilter * filter)
{
  return new GstMatchAdapterT<GstBlockMatchMeTraits> (filter);
}

static void
gst_block_match_me_class_init (GstBlockMatchMeClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstMatchFilterClass * match_class = GST_MATCH_FILTER_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  GParamSpec * pspec;

  /* The CUDA backend spreads block rows or frame pairs over several GPUs:
   * devices and multi-gpu. */
  gst_match_filter_class_install_properties (match_class, TRUE);

  gst_match_settings_install_pair (gobject_class, PROP_BLOCK_SIZE,
      SETTING (block_width), SETTING (block_height),
      g_param_spec_uint ("block-size", "Block size",
          "Width and height of the blocks in pixels (sets block-width and "
          "block-height; reads block-width)",
          1, match::kMaxBlockSize, DEFAULT_PROP_BLOCK_SIZE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_BLOCK_WIDTH,
      SETTING (block_width),
      g_param_spec_uint ("block-width", "Block width", "Block width in pixels",
          1, match::kMaxBlockSize, DEFAULT_PROP_BLOCK_SIZE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_BLOCK_HEIGHT,
      SETTING (block_height),
      g_param_spec_uint ("block-height", "Block height",
          "Block height in pixels", 1, match::kMaxBlockSize,
          DEFAULT_PROP_BLOCK_SIZE, rw_playing));
  gst_match_settings_install_pair (gobject_class, PROP_SEARCH_RANGE,
      SETTING (range_x), SETTING (range_y),
      g_param_spec_uint ("search-range", "Search range",
          "Largest displacement searched in x and y, in pixels: candidates "
          "cover [-range, +range] (a search window of 2*range+1) (sets "
          "search-range-x and search-range-y; reads search-range-x)",
          0, match::kMaxSearchRange, DEFAULT_PROP_SEARCH_RANGE, rw_playing));
  /* The kernels' fields named otherwise (errors name the property). */
  pspec = g_param_spec_uint ("search-range-x", "Horizontal search range",
      "Largest horizontal displacement searched, in pixels", 0,
      match::kMaxSearchRange, DEFAULT_PROP_SEARCH_RANGE, rw_playing);
  gst_match_property_set_field (pspec, "range_x");
  gst_match_settings_install (gobject_class, PROP_SEARCH_RANGE_X,
      SETTING (range_x), pspec);
  pspec = g_param_spec_uint ("search-range-y", "Vertical search range",
      "Largest vertical displacement searched, in pixels", 0,
      match::kMaxSearchRange, DEFAULT_PROP_SEARCH_RANGE, rw_playing);
  gst_match_property_set_field (pspec, "range_y");
  gst_match_settings_install (gobject_class, PROP_SEARCH_RANGE_Y,
      SETTING (range_y), pspec);
  pspec = g_param_spec_enum ("subpixel", "Sub-pixel grid",
      "Spacing of the candidate grid (bilinear interpolation below one "
      "pixel)",
      GST_TYPE_BLOCK_MATCH_ME_SUBPIXEL, DEFAULT_PROP_SUBPIXEL, rw_playing);
  gst_match_property_set_field (pspec, "subpel");
  gst_match_settings_install (gobject_class, PROP_SUBPIXEL, SETTING (subpixel),
      pspec);
  gst_match_settings_install (gobject_class, PROP_DIRECTION,
      SETTING (direction),
      g_param_spec_enum ("direction", "Direction",
          "forward: blocks tile the previous frame, vectors say where they "
          "went; backward: blocks tile the current frame, vectors say where "
          "they came from",
          GST_TYPE_MOTION_VECTORS_DIRECTION, DEFAULT_PROP_DIRECTION,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_METHOD, SETTING (method),
      g_param_spec_enum ("method", "Method",
          "Search method: full visits every candidate; the others visit a "
          "subset (definitions in docs/blockmatchme.md). Every method runs "
          "on both backends",
          GST_TYPE_BLOCK_MATCH_ME_METHOD, DEFAULT_PROP_METHOD, rw_playing));
  gst_match_settings_install (gobject_class, PROP_LEVELS, SETTING (levels),
      g_param_spec_uint ("levels", "Levels",
          "method=hierarchical: resolution levels (the frame, then each "
          "halved); the coarsest searches search-range / 2^(levels-1) "
          "exhaustively",
          2, match::kMaxLevels, DEFAULT_PROP_LEVELS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_PREDICTORS,
      SETTING (predictors),
      g_param_spec_uint ("predictors", "Predictors",
          "method=hierarchical: best vectors carried from each level to the "
          "next finer one",
          1, match::kMaxPredictors, DEFAULT_PROP_PREDICTORS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_THRESHOLD,
      SETTING (threshold),
      g_param_spec_double ("threshold", "Noise threshold",
          "Noise threshold C in grey levels per pixel (paper [A] eq. 4): a "
          "block whose zero-motion SAD is <= C * pixels is reported as zero "
          "motion, flagged suppressed; 0 = off",
          0.0, 255.0, DEFAULT_PROP_THRESHOLD, rw_playing));
  gst_match_settings_install (gobject_class, PROP_PASSES, SETTING (passes),
      g_param_spec_uint ("passes", "Passes",
          "method=predictive: passes over the field; pass 1 searches from "
          "(0, 0), the previous frame's vectors and a quarter-resolution "
          "search's vector, each later pass from "
          "the previous pass's vectors of the neighbours 2^(passes - k) "
          "blocks away (docs/blockmatchme.md)",
          2, match::kMaxPasses, DEFAULT_PROP_PASSES, rw_playing));
  gst_match_settings_install (gobject_class, PROP_EARLY_STOP,
      SETTING (early_stop),
      g_param_spec_double ("early-stop", "Early stop",
          "method=predictive: a pass takes no descent from a best predictor "
          "whose SAD is <= early-stop * pixels (grey levels per pixel); "
          "0 = never",
          0.0, 255.0, DEFAULT_PROP_EARLY_STOP, rw_playing));
  gst_match_settings_install (gobject_class, PROP_RATE, SETTING (rate),
      g_param_spec_double ("rate", "Rate",
          "method=predictive: the last pass chooses by SAD + rate * pixels "
          "* |v - p| (p the median of the block's and its eight neighbours' "
          "vectors; grey levels per pixel per pixel of distance, in steps "
          "of 1/64), EPZS's motion-vector rate term; 0 = SAD alone",
          0.0, 4.0, DEFAULT_PROP_RATE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_AUTO_SEARCH_RANGE,
      SETTING (auto_range),
      g_param_spec_boolean ("auto-search-range", "Automatic search range",
          "With the decision on (decision=tracks, regions or events): "
          "double search-range while the camera moves further than it "
          "between frames (a shaking camera; the full search then costs "
          "about 4x), back once the camera has kept 2 px inside it for 300 "
          "frames (10 s at 30 fps). The range read back stays the one set",
          DEFAULT_PROP_AUTO_SEARCH_RANGE, rw_playing));
  gst_element_class_set_static_metadata (element_class,
      "Block-matching motion estimation", "Filter/Analyzer/Video",
      "Estimates block motion vectors by SAD block matching (full or fast "
      "searches, optionally sub-pixel; CPU/OpenMP, CUDA) and attaches them "
      "as GstMotionVectorsMeta",
      "gst-motion authors");

  match_class->what = "block matching";
  match_class->create_adapter =
      GST_DEBUG_FUNCPTR (gst_block_match_me_create_adapter);

  gst_type_mark_as_plugin_api (GST_TYPE_BLOCK_MATCH_ME_SUBPIXEL,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BLOCK_MATCH_ME_METHOD,
      (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_block_match_me_debug, "blockmatchme", 0,
      "Block-matching motion estimation");
}

static void
gst_block_match_me_init (GstBlockMatchMe *)
{
  /* The settings are the base class's adapter's (create_adapter). */
}
