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
 * Block-matching motion estimation. Each frame is cut into blocks and every
 * block is compared, by the sum of absolute differences (SAD) of luma, with
 * every candidate displacement of the previous frame inside the search
 * range (full search, optionally on a 1/2 or 1/4 pixel grid). The result is
 * attached to the buffer as a #GstMotionVectorsMeta and can be drawn on the
 * video (`draw`). Video passes through unchanged when nothing is drawn.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     blockmatchme block-size=16 search-range=16 draw=arrows ! \
 *     videoconvert ! autovideosink
 * gst-launch-1.0 v4l2src ! videoconvert ! blockmatchme subpixel=half \
 *     direction=forward ! mvexport location=field-%05d.flo ! fakesink
 * ]|
 */
/* Algorithm notes.
 *
 * Full search as in papers [A] (Massanes et al. 2011), [C] and [D]: see
 * docs/blockmatchme.md and kernels/include/match/blockmatch.h for the exact
 * definitions (candidate grid, bilinear sub-pel arithmetic, clamp-to-edge
 * borders, partial edge blocks, tie rule, noise threshold). The element only
 * marshals frames and settings; all computing is in kernels/.
 *
 * Why transform_ip is overridden: GstVideoFilter maps every non-passthrough
 * frame for writing, which copies the image when its memory is shared (e.g.
 * after a tee) although attaching a meta needs no pixel access. Here the
 * frame is mapped read-only unless something is drawn.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstblockmatchme.h"

#include <memory>
#include <vector>

#include "common/gstmatchcommon.h"
#include "common/mvoverlay.h"
#include "match/blockmatch.h"

GST_DEBUG_CATEGORY_STATIC (gst_block_match_me_debug);
#define GST_CAT_DEFAULT gst_block_match_me_debug

#define DEFAULT_PROP_BLOCK_SIZE 16
#define DEFAULT_PROP_SEARCH_RANGE 16
#define DEFAULT_PROP_SUBPIXEL GST_BLOCK_MATCH_ME_SUBPIXEL_INTEGER
#define DEFAULT_PROP_DIRECTION GST_MOTION_VECTORS_DIRECTION_BACKWARD
#define DEFAULT_PROP_METHOD GST_BLOCK_MATCH_ME_METHOD_FULL
#define DEFAULT_PROP_THRESHOLD 0.0
#define DEFAULT_PROP_BACKEND GST_MATCH_BACKEND_AUTO
#define DEFAULT_PROP_DRAW GST_MV_DRAW_NONE
#define DEFAULT_PROP_N_THREADS 0

enum
{
  PROP_0,
  PROP_BLOCK_SIZE,
  PROP_BLOCK_WIDTH,
  PROP_BLOCK_HEIGHT,
  PROP_SEARCH_RANGE,
  PROP_SEARCH_RANGE_X,
  PROP_SEARCH_RANGE_Y,
  PROP_SUBPIXEL,
  PROP_DIRECTION,
  PROP_METHOD,
  PROP_THRESHOLD,
  PROP_BACKEND,
  PROP_DRAW,
  PROP_N_THREADS,
};

/* Plain copyable settings, read under the object lock and used unlocked. */
struct Settings
{
  guint block_width;
  guint block_height;
  guint range_x;
  guint range_y;
  GstBlockMatchMeSubpixel subpixel;
  GstMotionVectorsDirection direction;
  GstBlockMatchMeMethod method;
  gdouble threshold;
  GstMatchBackend backend;
  GstMvDrawMode draw;
  guint n_threads;
};

/* Streaming-thread state, built in set_info, dropped in stop. */
struct State
{
  std::unique_ptr < match::BlockMatcher > matcher;
  std::vector < match::BlockVector > vectors;
  std::vector < uint8_t > luma;
  GstBufferPool *pool = nullptr;        /* storage of the metas' vectors */
  guint pool_vectors = 0;
  GstClockTime prev_pts = GST_CLOCK_TIME_NONE;

  ~State ()
  {
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
  }
};

struct _GstBlockMatchMe
{
  GstVideoFilter parent;

  Settings settings;            /* protected by the object lock */
  State *state;                 /* streaming thread only */
  gint reset_pending;           /* atomic: drop the reference frame */
};

#define gst_block_match_me_parent_class parent_class
G_DEFINE_TYPE (GstBlockMatchMe, gst_block_match_me, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (blockmatchme, "blockmatchme", GST_RANK_NONE,
    GST_TYPE_BLOCK_MATCH_ME);

#define GST_TYPE_BLOCK_MATCH_ME_SUBPIXEL (gst_block_match_me_subpixel_get_type ())
static GType
gst_block_match_me_subpixel_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_BLOCK_MATCH_ME_SUBPIXEL_INTEGER, "Integer pixel grid", "integer"},
    {GST_BLOCK_MATCH_ME_SUBPIXEL_HALF, "Half-pixel grid (bilinear)", "half"},
    {GST_BLOCK_MATCH_ME_SUBPIXEL_QUARTER, "Quarter-pixel grid (bilinear)",
        "quarter"},
    {0, NULL, NULL}
  };
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
  static const GEnumValue values[] = {
    {GST_BLOCK_MATCH_ME_METHOD_FULL, "Full (exhaustive) search", "full"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstBlockMatchMeMethod", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS,
    GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)));

static void gst_block_match_me_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_block_match_me_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_block_match_me_finalize (GObject * object);
static gboolean gst_block_match_me_start (GstBaseTransform * trans);
static gboolean gst_block_match_me_stop (GstBaseTransform * trans);
static gboolean gst_block_match_me_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_block_match_me_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);
static gboolean gst_block_match_me_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);

static void
gst_block_match_me_class_init (GstBlockMatchMeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->set_property = gst_block_match_me_set_property;
  gobject_class->get_property = gst_block_match_me_get_property;
  gobject_class->finalize = gst_block_match_me_finalize;

  g_object_class_install_property (gobject_class, PROP_BLOCK_SIZE,
      g_param_spec_uint ("block-size", "Block size",
          "Width and height of the blocks in pixels (sets block-width and "
          "block-height; reads block-width)", 1, match::kMaxBlockSize,
          DEFAULT_PROP_BLOCK_SIZE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_BLOCK_WIDTH,
      g_param_spec_uint ("block-width", "Block width",
          "Block width in pixels", 1, match::kMaxBlockSize,
          DEFAULT_PROP_BLOCK_SIZE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_BLOCK_HEIGHT,
      g_param_spec_uint ("block-height", "Block height",
          "Block height in pixels", 1, match::kMaxBlockSize,
          DEFAULT_PROP_BLOCK_SIZE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_SEARCH_RANGE,
      g_param_spec_uint ("search-range", "Search range",
          "Largest displacement searched in x and y, in pixels: candidates "
          "cover [-range, +range] (a search window of 2*range+1) (sets "
          "search-range-x and search-range-y; reads search-range-x)", 0,
          match::kMaxSearchRange, DEFAULT_PROP_SEARCH_RANGE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_SEARCH_RANGE_X,
      g_param_spec_uint ("search-range-x", "Horizontal search range",
          "Largest horizontal displacement searched, in pixels", 0,
          match::kMaxSearchRange, DEFAULT_PROP_SEARCH_RANGE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_SEARCH_RANGE_Y,
      g_param_spec_uint ("search-range-y", "Vertical search range",
          "Largest vertical displacement searched, in pixels", 0,
          match::kMaxSearchRange, DEFAULT_PROP_SEARCH_RANGE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_SUBPIXEL,
      g_param_spec_enum ("subpixel", "Sub-pixel grid",
          "Spacing of the candidate grid (bilinear interpolation below one "
          "pixel)", GST_TYPE_BLOCK_MATCH_ME_SUBPIXEL, DEFAULT_PROP_SUBPIXEL,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_DIRECTION,
      g_param_spec_enum ("direction", "Direction",
          "forward: blocks tile the previous frame, vectors say where they "
          "went; backward: blocks tile the current frame, vectors say where "
          "they came from", GST_TYPE_MOTION_VECTORS_DIRECTION,
          DEFAULT_PROP_DIRECTION, rw_playing));
  g_object_class_install_property (gobject_class, PROP_METHOD,
      g_param_spec_enum ("method", "Method", "Search method",
          GST_TYPE_BLOCK_MATCH_ME_METHOD, DEFAULT_PROP_METHOD, rw_playing));
  g_object_class_install_property (gobject_class, PROP_THRESHOLD,
      g_param_spec_double ("threshold", "Noise threshold",
          "Noise threshold C in grey levels per pixel (paper [A] eq. 4): a "
          "block whose zero-motion SAD is <= C * pixels is reported as zero "
          "motion, flagged suppressed; 0 = off", 0.0, 255.0,
          DEFAULT_PROP_THRESHOLD, rw_playing));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Compute backend: auto picks CUDA when a device opens, else CPU",
          GST_TYPE_MATCH_BACKEND, DEFAULT_PROP_BACKEND, rw_ready));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_enum ("draw", "Draw",
          "Draw the motion field on the video", GST_TYPE_MV_DRAW_MODE,
          DEFAULT_PROP_DRAW, rw_playing));
  g_object_class_install_property (gobject_class, PROP_N_THREADS,
      g_param_spec_uint ("n-threads", "Threads",
          "CPU worker threads (0 = one per core)", 0, 256,
          DEFAULT_PROP_N_THREADS, rw_playing));

  gst_element_class_set_static_metadata (element_class,
      "Block-matching motion estimation", "Filter/Analyzer/Video",
      "Estimates block motion vectors by full-search SAD block matching "
      "(CPU/OpenMP, CUDA) and attaches them as GstMotionVectorsMeta",
      "gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  trans_class->start = GST_DEBUG_FUNCPTR (gst_block_match_me_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_block_match_me_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_block_match_me_sink_event);
  trans_class->transform_ip =
      GST_DEBUG_FUNCPTR (gst_block_match_me_transform_ip);
  trans_class->transform_ip_on_passthrough = FALSE;
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_block_match_me_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_BLOCK_MATCH_ME_SUBPIXEL,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BLOCK_MATCH_ME_METHOD,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_BACKEND, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MV_DRAW_MODE, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_block_match_me_debug, "blockmatchme", 0,
      "Block-matching motion estimation");
  gst_match_install_log_bridge ();
}

static void
gst_block_match_me_init (GstBlockMatchMe * self)
{
  Settings & s = self->settings;

  s.block_width = s.block_height = DEFAULT_PROP_BLOCK_SIZE;
  s.range_x = s.range_y = DEFAULT_PROP_SEARCH_RANGE;
  s.subpixel = DEFAULT_PROP_SUBPIXEL;
  s.direction = DEFAULT_PROP_DIRECTION;
  s.method = DEFAULT_PROP_METHOD;
  s.threshold = DEFAULT_PROP_THRESHOLD;
  s.backend = DEFAULT_PROP_BACKEND;
  s.draw = DEFAULT_PROP_DRAW;
  s.n_threads = DEFAULT_PROP_N_THREADS;
  self->state = nullptr;
  self->reset_pending = 0;

  /* Always in place: the meta is added to the (metadata-writable) input
   * buffer; pixels are only written when drawing. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_block_match_me_finalize (GObject * object)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (object);

  delete self->state;
  self->state = nullptr;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_block_match_me_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (object);
  Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
      s.block_width = s.block_height = g_value_get_uint (value);
      break;
    case PROP_BLOCK_WIDTH:
      s.block_width = g_value_get_uint (value);
      break;
    case PROP_BLOCK_HEIGHT:
      s.block_height = g_value_get_uint (value);
      break;
    case PROP_SEARCH_RANGE:
      s.range_x = s.range_y = g_value_get_uint (value);
      break;
    case PROP_SEARCH_RANGE_X:
      s.range_x = g_value_get_uint (value);
      break;
    case PROP_SEARCH_RANGE_Y:
      s.range_y = g_value_get_uint (value);
      break;
    case PROP_SUBPIXEL:
      s.subpixel = (GstBlockMatchMeSubpixel) g_value_get_enum (value);
      break;
    case PROP_DIRECTION:
      s.direction = (GstMotionVectorsDirection) g_value_get_enum (value);
      break;
    case PROP_METHOD:
      s.method = (GstBlockMatchMeMethod) g_value_get_enum (value);
      break;
    case PROP_THRESHOLD:
      s.threshold = g_value_get_double (value);
      break;
    case PROP_BACKEND:
      s.backend = (GstMatchBackend) g_value_get_enum (value);
      break;
    case PROP_DRAW:
      s.draw = (GstMvDrawMode) g_value_get_enum (value);
      break;
    case PROP_N_THREADS:
      s.n_threads = g_value_get_uint (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_block_match_me_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (object);
  const Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
    case PROP_BLOCK_WIDTH:
      g_value_set_uint (value, s.block_width);
      break;
    case PROP_BLOCK_HEIGHT:
      g_value_set_uint (value, s.block_height);
      break;
    case PROP_SEARCH_RANGE:
    case PROP_SEARCH_RANGE_X:
      g_value_set_uint (value, s.range_x);
      break;
    case PROP_SEARCH_RANGE_Y:
      g_value_set_uint (value, s.range_y);
      break;
    case PROP_SUBPIXEL:
      g_value_set_enum (value, s.subpixel);
      break;
    case PROP_DIRECTION:
      g_value_set_enum (value, s.direction);
      break;
    case PROP_METHOD:
      g_value_set_enum (value, s.method);
      break;
    case PROP_THRESHOLD:
      g_value_set_double (value, s.threshold);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, s.backend);
      break;
    case PROP_DRAW:
      g_value_set_enum (value, s.draw);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, s.n_threads);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static Settings
snapshot_settings (GstBlockMatchMe * self)
{
  GST_OBJECT_LOCK (self);
  Settings s = self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

static match::Backend
to_match_backend (GstMatchBackend b)
{
  switch (b) {
    case GST_MATCH_BACKEND_CPU:
      return match::Backend::kCpu;
    case GST_MATCH_BACKEND_CUDA:
      return match::Backend::kCuda;
    case GST_MATCH_BACKEND_AUTO:
    default:
      return match::Backend::kAuto;
  }
}

static match::BlockMatchConfig
make_config (const Settings & s, const GstVideoInfo * info)
{
  match::BlockMatchConfig c;
  c.width = GST_VIDEO_INFO_WIDTH (info);
  c.height = GST_VIDEO_INFO_HEIGHT (info);
  c.block_width = s.block_width;
  c.block_height = s.block_height;
  c.range_x = s.range_x;
  c.range_y = s.range_y;
  c.subpel = s.subpixel;
  c.direction = s.direction == GST_MOTION_VECTORS_DIRECTION_FORWARD ?
      match::Direction::kForward : match::Direction::kBackward;
  c.method = match::SearchMethod::kFull;
  return c;
}

static gboolean
gst_block_match_me_start (GstBaseTransform * trans)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);
  const Settings s = snapshot_settings (self);

  if (s.backend == GST_MATCH_BACKEND_CUDA
      && !match::backend_available (match::Backend::kCuda)) {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("backend=cuda was requested but no CUDA device is available"),
        ("this build has %s CUDA backend, or no CUDA device could be opened; "
            "use backend=auto or backend=cpu",
            match::backend_available (match::Backend::kCuda) ? "a" : "no"));
    return FALSE;
  }
  if (s.backend == GST_MATCH_BACKEND_AUTO)
    GST_INFO_OBJECT (self, "backend=auto: using %s",
        match::backend_available (match::Backend::kCuda) ? "CUDA" : "CPU");

  delete self->state;
  self->state = new State ();
  g_atomic_int_set (&self->reset_pending, 0);
  return TRUE;
}

static gboolean
gst_block_match_me_stop (GstBaseTransform * trans)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);

  delete self->state;
  self->state = nullptr;
  return TRUE;
}

static gboolean
gst_block_match_me_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    GST_DEBUG_OBJECT (self, "flush: dropping the reference frame");
    g_atomic_int_set (&self->reset_pending, 1);
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_block_match_me_set_info (GstVideoFilter * filter, GstCaps *,
    GstVideoInfo * in_info, GstCaps *, GstVideoInfo *)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (filter);
  const Settings s = snapshot_settings (self);
  State *st = self->state;

  if (!st)
    st = self->state = new State ();

  /* New caps: new matcher, the old reference is dropped. */
  const match::BlockMatchConfig cfg = make_config (s, in_info);
  std::unique_ptr < match::BlockMatcher > matcher;
  match::Status status =
      match::BlockMatcher::create (to_match_backend (s.backend), cfg,
      &matcher);
  if (!status) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("Could not set up block matching for %dx%d",
            cfg.width, cfg.height), ("%s", status.message ().c_str ()));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%dx%d %s, %s backend, %dx%d grid",
      cfg.width, cfg.height,
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      match::backend_name (matcher->backend ()), cfg.columns (), cfg.rows ());
  st->matcher = std::move (matcher);
  st->vectors.assign (cfg.num_blocks (), match::BlockVector ());
  st->luma.resize (gst_match_luma_scratch_size (in_info));
  st->prev_pts = GST_CLOCK_TIME_NONE;
  return TRUE;
}

/* Storage for the metas' vectors comes from a pool so that nothing is
 * allocated per frame; it is only rebuilt when the grid size changes. */
static gboolean
ensure_pool (GstBlockMatchMe * self, State * st, guint n_vectors)
{
  if (st->pool && st->pool_vectors == n_vectors)
    return TRUE;
  if (st->pool) {
    gst_buffer_pool_set_active (st->pool, FALSE);
    gst_object_unref (st->pool);
  }
  st->pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (st->pool);
  gst_buffer_pool_config_set_params (config, NULL,
      n_vectors * sizeof (GstMotionVector), 2, 0);
  if (!gst_buffer_pool_set_config (st->pool, config)
      || !gst_buffer_pool_set_active (st->pool, TRUE)) {
    /* the caller posts the element error */
    GST_WARNING_OBJECT (self, "could not set up the vector storage pool");
    gst_object_unref (st->pool);
    st->pool = nullptr;
    return FALSE;
  }
  st->pool_vectors = n_vectors;
  return TRUE;
}

static GstFlowReturn
gst_block_match_me_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  State *st = self->state;
  const Settings s = snapshot_settings (self);
  GstVideoFrame frame;
  GstBuffer *storage = NULL;
  GstMotionVectorsMeta *meta;
  match::Status status;
  bool estimated = false;

  if (G_UNLIKELY (!filter->negotiated || !st || !st->matcher))
    goto not_negotiated;

  if (g_atomic_int_compare_and_exchange (&self->reset_pending, 1, 0)
      || GST_BUFFER_IS_DISCONT (buf)) {
    st->matcher->reset ();
    st->prev_pts = GST_CLOCK_TIME_NONE;
  }

  {
    /* Property changes while playing: same frame size, new search. The
     * matcher keeps its reference frame across the change. */
    const match::BlockMatchConfig cfg = make_config (s, &filter->in_info);
    if (cfg != st->matcher->config ()) {
      GST_DEBUG_OBJECT (self, "reconfiguring: blocks %dx%d range %d/%d 1/%d",
          cfg.block_width, cfg.block_height, cfg.range_x, cfg.range_y,
          cfg.subpel);
      status = st->matcher->reconfigure (cfg);
      if (!status)
        goto kernel_error;
      st->vectors.assign (cfg.num_blocks (), match::BlockVector ());
    }
  }

  {
    /* The meta goes on before mapping: a mapped frame holds a reference to
     * the buffer, which makes it unwritable. */
    const match::BlockMatchConfig & cfg = st->matcher->config ();
    if (!ensure_pool (self, st, cfg.num_blocks ())
        || gst_buffer_pool_acquire_buffer (st->pool, &storage,
            NULL) != GST_FLOW_OK)
      goto no_storage;
    meta = gst_buffer_add_motion_vectors_meta_with_storage (buf, storage,
        cfg.width, cfg.height, cfg.block_width, cfg.block_height,
        s.direction);
    if (!meta)
      goto no_storage;
  }

  if (!gst_video_frame_map (&frame, &filter->in_info, buf,
          s.draw != GST_MV_DRAW_NONE ? GST_MAP_READWRITE : GST_MAP_READ))
    goto map_failed;

  {
    const match::BlockMatchConfig & cfg = st->matcher->config ();
    match::BlockMatchRuntime rt;
    rt.threshold = s.threshold;
    rt.threads = s.n_threads;

    status = st->matcher->process (gst_match_frame_luma (&frame, st->luma),
        rt, st->vectors.data (), &estimated);
    if (!status) {
      gst_video_frame_unmap (&frame);
      goto kernel_error;
    }
    meta->reference_timestamp = estimated ? st->prev_pts : GST_CLOCK_TIME_NONE;
    meta->precision = 1.0f / cfg.subpel;
    meta->method = g_intern_static_string ("full");
    gst_match_fill_meta (meta, st->vectors.data (), estimated);

    if (s.draw != GST_MV_DRAW_NONE)
      gst_mv_overlay_draw (&frame, meta, s.draw, 0.0f);
  }
  gst_video_frame_unmap (&frame);
  st->prev_pts = GST_BUFFER_PTS (buf);
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("unknown format or not started"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
map_failed:
  {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
kernel_error:
  {
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Block matching failed"),
        ("%s", status.message ().c_str ()));
    return GST_FLOW_ERROR;
  }
no_storage:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not attach the motion-vector meta"), (NULL));
    return GST_FLOW_ERROR;
  }
}
