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
 * Why generate_output is overridden instead of transform_ip: pipelining.
 * Each input buffer is made metadata-writable, its luma handed to
 * BlockMatcher::submit() and the buffer kept in a fixed ring (`held`); a
 * buffer leaves (meta attached, drawn if asked) once its results have been
 * collected, i.e. when more than `depth` frames are held. With depth 0 that
 * is at once: the synchronous behaviour. The CUDA backend uploads frame
 * n + 1 while it searches frame n; multi-gpu=serial needs one frame in
 * flight per extra device. Results are collected in submission order, so
 * output order, timestamps and vectors are those of the synchronous mode.
 *
 * The frame is mapped read-only for the search (GstVideoFilter would map
 * every frame for writing, which copies the image when its memory is shared,
 * e.g. after a tee); only drawing maps it for writing, at collect time, on
 * the buffer the vectors belong to.
 *
 * CUDA memory (zero copy; the context rules are in common/gstmatchcuda.h
 * and docs/cuda-memory.md): from NULL->READY on, the element offers a
 * GstCudaContext wrapping the primary context of its (first) device, the
 * one the CUDA backend runs in, so that decoders opening after it (state
 * changes go from sink to source) allocate their frames there. Such a frame
 * is mapped with GST_MAP_CUDA and handed to BlockMatcher::submit_device()
 * (one device-to-device copy, no trip through host memory). Any other
 * frame in CUDA memory (another context, or the CPU backend after auto fell
 * back) is mapped for reading in system memory, which makes gstcuda
 * download it: correct, slower, logged once. backend=cpu, or no driver or
 * device, removes the CUDA-memory caps in transform_caps, so negotiation
 * picks system memory (a decoder then downloads itself; after cudaupload
 * put cudadownload before the element). draw= maps the frame for writing
 * in system memory, as for any buffer: gstcuda downloads it and uploads the
 * drawing again at the next CUDA map downstream (a round trip per frame;
 * logged once). Output caps = input caps, memory feature included.
 *
 * Held buffers and events: a serialized event (EOS, SEGMENT, TAG, GAP, ...)
 * first pushes every held buffer with its results, so buffers and events
 * keep their order; so do a caps change (set_info), a DISCONT buffer and a
 * search-setting change (BlockMatcher::reconfigure() needs nothing in
 * flight). A flush or stop() discards them and resets the matcher.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstblockmatchme.h"

#include <algorithm>
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "common/gstmatchcommon.h"
#include "common/gstmatchcuda.h"
#include "common/mvevents.h"
#include "common/mvoverlay.h"
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
#define DEFAULT_PROP_BACKEND GST_MATCH_BACKEND_AUTO
#define DEFAULT_PROP_DRAW GST_MV_DRAW_NONE
#define DEFAULT_PROP_N_THREADS 0
#define DEFAULT_PROP_DEVICE_ID 0
#define DEFAULT_PROP_DEVICES ""
#define DEFAULT_PROP_MULTI_GPU GST_MATCH_MULTI_GPU_PARALLEL
#define DEFAULT_PROP_PIPELINE_DEPTH 0

/* CUDA device ordinals accepted by device-id and devices. */
#define MAX_DEVICE_ORDINAL 63
#define MAX_PIPELINE_DEPTH 4

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
  PROP_LEVELS,
  PROP_PREDICTORS,
  PROP_THRESHOLD,
  PROP_BACKEND,
  PROP_DRAW,
  PROP_N_THREADS,
  PROP_DEVICE_ID,
  PROP_DEVICES,
  PROP_MULTI_GPU,
  PROP_PIPELINE_DEPTH,
  PROP_ACTIVE_BACKEND,
  /* GST_MV_EVENTS_N_PROPS ids from here: regions, events... (mvevents.h) */
  PROP_MV_EVENTS_FIRST,
};

static GParamSpec *active_backend_pspec;

/* Plain copyable settings, read under the object lock and used unlocked.
 * (The `devices` string lives beside it: it is not copied per frame.) */
struct Settings
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
  GstMatchBackend backend;
  GstMvDrawMode draw;
  guint n_threads;
  gint device_id;
  GstMatchMultiGpu multi_gpu;
  guint pipeline_depth;
};

/* A buffer whose results are still with the backend. */
struct Held
{
  GstBuffer *buf = nullptr;     /* metadata-writable, owned */
  GstClockTime ref_pts = GST_CLOCK_TIME_NONE;   /* PTS of its reference */
};

/* The ring holds at most depth + 1 <= kMaxInFlight buffers (the newest is
 * submitted before the oldest is collected). */
constexpr int kHeldMax = match::kMaxInFlight;

/* Streaming-thread state, built in set_info, dropped in stop. */
struct State
{
  std::unique_ptr < match::BlockMatcher > matcher;
  std::vector < match::BlockVector > vectors;
  std::vector < uint8_t > luma;
  GstBufferPool *pool = nullptr;        /* storage of the metas' vectors */
  guint pool_vectors = 0;
  GstClockTime prev_pts = GST_CLOCK_TIME_NONE;  /* last submitted frame */

  std::array < Held, kHeldMax > held;
  int held_head = 0;
  int held_count = 0;
  int depth = 0;                /* effective pipeline depth */
  guint requested_depth = 0;    /* pipeline-depth it was computed from */
  int n_devices = 1;
  bool serial = false;
  bool cuda_memory = false;     /* negotiated memory:CUDAMemory */
  bool logged_cuda_draw = false;
  bool logged_device_refused = false;
  gint fps_n = 0;
  gint fps_d = 1;

  void drop_held ()
  {
    for (int i = 0; i < held_count; ++i) {
      Held & h = held[(held_head + i) % kHeldMax];
      gst_buffer_replace (&h.buf, NULL);
    }
    held_head = held_count = 0;
  }

  ~State ()
  {
    drop_held ();
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
  gchar *devices;               /* protected by the object lock */
  gchar *active_backend;        /* protected by the object lock */
  GstClockTime latency;         /* protected by the object lock */
  State *state;                 /* streaming thread only */
  GstMvEvents *mvevents;        /* regions and motion events */
  GstMatchCuda *cuda;           /* CUDA memory: offered context (own lock) */
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
    {GST_BLOCK_MATCH_ME_METHOD_HIERARCHICAL,
        "Multiresolution multi-predictor search (paper [B]; levels, predictors)",
        "hierarchical"},
    {GST_BLOCK_MATCH_ME_METHOD_THREE_STEP,
        "Three-step (logarithmic) search", "three-step"},
    {GST_BLOCK_MATCH_ME_METHOD_DIAMOND, "Diamond search", "diamond"},
    {GST_BLOCK_MATCH_ME_METHOD_HEXAGON, "Hexagon search", "hexagon"},
    {GST_BLOCK_MATCH_ME_METHOD_PREDICTIVE,
        "Predictive search from the previous frame's and the neighbours' "
        "vectors (EPZS-like)", "predictive"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstBlockMatchMeMethod", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

/* System memory, and video/x-raw(memory:CUDAMemory) when built with gstcuda
 * (GST_MATCH_CAPS); transform_caps drops the latter where it cannot be
 * used. */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MATCH_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MATCH_CAPS));

static void gst_block_match_me_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_block_match_me_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_block_match_me_finalize (GObject * object);
static GstStateChangeReturn gst_block_match_me_change_state (GstElement *
    element, GstStateChange transition);
static void gst_block_match_me_set_context (GstElement * element,
    GstContext * context);
static GstCaps *gst_block_match_me_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_block_match_me_start (GstBaseTransform * trans);
static gboolean gst_block_match_me_stop (GstBaseTransform * trans);
static gboolean gst_block_match_me_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_block_match_me_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn gst_block_match_me_generate_output (GstBaseTransform *
    trans, GstBuffer ** outbuf);
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
      g_param_spec_enum ("method", "Method",
          "Search method: full visits every candidate; the others visit a "
          "subset (definitions in docs/blockmatchme.md). Only full runs on "
          "CUDA so far: backend=auto uses the CPU for the others",
          GST_TYPE_BLOCK_MATCH_ME_METHOD, DEFAULT_PROP_METHOD, rw_playing));
  g_object_class_install_property (gobject_class, PROP_LEVELS,
      g_param_spec_uint ("levels", "Levels",
          "method=hierarchical: resolution levels (the frame, then each "
          "halved); the coarsest searches search-range / 2^(levels-1) "
          "exhaustively", 2, match::kMaxLevels, DEFAULT_PROP_LEVELS,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_PREDICTORS,
      g_param_spec_uint ("predictors", "Predictors",
          "method=hierarchical: best vectors carried from each level to the "
          "next finer one", 1, match::kMaxPredictors, DEFAULT_PROP_PREDICTORS,
          rw_playing));
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
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "CUDA device",
          "CUDA device ordinal used by backend=cuda/auto when 'devices' is "
          "empty", 0, MAX_DEVICE_ORDINAL, DEFAULT_PROP_DEVICE_ID, rw_ready));
  g_object_class_install_property (gobject_class, PROP_DEVICES,
      g_param_spec_string ("devices", "CUDA devices",
          "Comma-separated CUDA device ordinals (0..63) to share the work, "
          "e.g. \"0,1\"; empty = device-id only. A malformed list fails at "
          "start with a settings error", DEFAULT_PROP_DEVICES, rw_ready));
  g_object_class_install_property (gobject_class, PROP_MULTI_GPU,
      g_param_spec_enum ("multi-gpu", "Multi-GPU mode",
          "How several devices share the work: parallel = the block rows of "
          "each frame pair spread over the devices; serial = successive "
          "frame pairs on successive devices (holds at least one frame per "
          "extra device, see pipeline-depth)", GST_TYPE_MATCH_MULTI_GPU,
          DEFAULT_PROP_MULTI_GPU, rw_ready));
  g_object_class_install_property (gobject_class, PROP_PIPELINE_DEPTH,
      g_param_spec_uint ("pipeline-depth", "Pipeline depth",
          "Frames held while the backend works on them (0 = synchronous): "
          "buffers leave this many frames late, with the same vectors, so "
          "that the CUDA backend overlaps uploads with searches "
          "(multi-gpu=serial on CUDA holds at least devices - 1). Added to "
          "the reported latency", 0, MAX_PIPELINE_DEPTH,
          DEFAULT_PROP_PIPELINE_DEPTH, rw_ready));
  active_backend_pspec = g_param_spec_string ("active-backend",
      "Active backend",
      "The backend and device(s) in use, e.g. \"cpu (avx2, 16 threads)\" or "
      "\"cuda:0 (...)\"; NULL until the first caps after start",
      NULL, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      active_backend_pspec);
  gst_mv_events_install_properties (gobject_class, PROP_MV_EVENTS_FIRST);

  gst_element_class_set_static_metadata (element_class,
      "Block-matching motion estimation", "Filter/Analyzer/Video",
      "Estimates block motion vectors by full-search SAD block matching "
      "(CPU/OpenMP, CUDA) and attaches them as GstMotionVectorsMeta",
      "gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_block_match_me_change_state);
  element_class->set_context =
      GST_DEBUG_FUNCPTR (gst_block_match_me_set_context);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_block_match_me_transform_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_block_match_me_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_block_match_me_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_block_match_me_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_block_match_me_query);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_block_match_me_generate_output);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_block_match_me_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_BLOCK_MATCH_ME_SUBPIXEL,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_BLOCK_MATCH_ME_METHOD,
      (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_BACKEND, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_MULTI_GPU,
      (GstPluginAPIFlags) 0);
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
  s.levels = DEFAULT_PROP_LEVELS;
  s.predictors = DEFAULT_PROP_PREDICTORS;
  s.threshold = DEFAULT_PROP_THRESHOLD;
  s.backend = DEFAULT_PROP_BACKEND;
  s.draw = DEFAULT_PROP_DRAW;
  s.n_threads = DEFAULT_PROP_N_THREADS;
  s.device_id = DEFAULT_PROP_DEVICE_ID;
  s.multi_gpu = DEFAULT_PROP_MULTI_GPU;
  s.pipeline_depth = DEFAULT_PROP_PIPELINE_DEPTH;
  self->devices = g_strdup (DEFAULT_PROP_DEVICES);
  self->active_backend = NULL;
  self->latency = 0;
  self->state = nullptr;
  self->mvevents = gst_mv_events_new ();
  self->cuda = gst_match_cuda_new ();

  /* In place: the meta is added to the (metadata-writable) input buffer;
   * pixels are only written when drawing. This also keeps the base class
   * from setting up an output pool. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
gst_block_match_me_finalize (GObject * object)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (object);

  delete self->state;
  self->state = nullptr;
  g_free (self->devices);
  g_free (self->active_backend);
  gst_mv_events_free (self->mvevents);
  gst_match_cuda_free (self->cuda);
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
    case PROP_LEVELS:
      s.levels = g_value_get_uint (value);
      break;
    case PROP_PREDICTORS:
      s.predictors = g_value_get_uint (value);
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
    case PROP_DEVICE_ID:
      s.device_id = g_value_get_int (value);
      break;
    case PROP_DEVICES:
      /* Kept as given; checked at start (see parse_devices). */
      g_free (self->devices);
      self->devices = g_value_dup_string (value);
      break;
    case PROP_MULTI_GPU:
      s.multi_gpu = (GstMatchMultiGpu) g_value_get_enum (value);
      break;
    case PROP_PIPELINE_DEPTH:
      s.pipeline_depth = g_value_get_uint (value);
      break;
    default:
      if (!gst_mv_events_set_property (self->mvevents, object,
              PROP_MV_EVENTS_FIRST, prop_id, value))
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
    case PROP_LEVELS:
      g_value_set_uint (value, s.levels);
      break;
    case PROP_PREDICTORS:
      g_value_set_uint (value, s.predictors);
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
    case PROP_DEVICE_ID:
      g_value_set_int (value, s.device_id);
      break;
    case PROP_DEVICES:
      g_value_set_string (value, self->devices);
      break;
    case PROP_MULTI_GPU:
      g_value_set_enum (value, s.multi_gpu);
      break;
    case PROP_PIPELINE_DEPTH:
      g_value_set_uint (value, s.pipeline_depth);
      break;
    case PROP_ACTIVE_BACKEND:
      g_value_set_string (value, self->active_backend);
      break;
    default:
      if (!gst_mv_events_get_property (self->mvevents, PROP_MV_EVENTS_FIRST,
              prop_id, value))
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
  c.method = (match::SearchMethod) s.method;
  c.levels = (int) s.levels;
  c.predictors = (int) s.predictors;
  return c;
}

/* Parses `devices`: comma-separated decimal ordinals 0..MAX_DEVICE_ORDINAL,
 * blanks around them allowed; an empty (or all-blank) string gives an
 * empty list. A device may be listed twice (the backend then runs two
 * shares on it, which tests use to exercise the multi-GPU paths on one GPU).
 * On error returns FALSE with a message in *error. */
static gboolean
parse_devices (const gchar * str, std::vector < int >*out, std::string * error)
{
  out->clear ();
  if (!str)
    return TRUE;
  gchar *all = g_strstrip (g_strdup (str));
  gboolean ok = TRUE;

  if (*all) {
    gchar **items = g_strsplit (all, ",", -1);
    for (gchar ** it = items; *it && ok; ++it) {
      const gchar *item = g_strstrip (*it);
      guint64 v = 0;
      GError *err = NULL;
      if (!g_ascii_string_to_unsigned (item, 10, 0, MAX_DEVICE_ORDINAL, &v,
              &err)) {
        *error = std::string ("\"") + item + "\" is not a device ordinal "
            "in 0.." G_STRINGIFY (MAX_DEVICE_ORDINAL) " (" + err->message +
            ")";
        g_error_free (err);
        ok = FALSE;
      } else {
        out->push_back ((int) v);
      }
    }
    g_strfreev (items);
  }
  g_free (all);
  return ok;
}

/* The devices to use from `devices` and `device-id`; posts a SETTINGS
 * error and returns FALSE when the list is malformed. */
static gboolean
get_device_options (GstBlockMatchMe * self, const Settings & s,
    match::DeviceOptions * opts)
{
  GST_OBJECT_LOCK (self);
  gchar *devices = g_strdup (self->devices);
  GST_OBJECT_UNLOCK (self);
  std::string error;

  if (!parse_devices (devices, &opts->devices, &error)) {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Invalid 'devices' list \"%s\": expected comma-separated CUDA "
            "device ordinals such as \"0,1\"", devices), ("%s",
            error.c_str ()));
    g_free (devices);
    return FALSE;
  }
  g_free (devices);
  if (opts->devices.empty ())
    opts->devices.push_back (s.device_id);
  opts->mode = s.multi_gpu == GST_MATCH_MULTI_GPU_SERIAL ?
      match::MultiGpuMode::kSerial : match::MultiGpuMode::kParallel;
  return TRUE;
}

/* The CUDA device whose primary context the element offers for CUDA
 * memory: the first of `devices`, else device-id (a malformed list falls
 * back to device-id here; start() reports it). */
static gint
first_cuda_device (GstBlockMatchMe * self, const Settings & s)
{
  GST_OBJECT_LOCK (self);
  gchar *devices = g_strdup (self->devices);
  GST_OBJECT_UNLOCK (self);
  std::vector < int >list;
  std::string error;
  gint device = s.device_id;

  if (parse_devices (devices, &list, &error) && !list.empty ())
    device = list[0];
  g_free (devices);
  return device;
}

/* CUDA memory is negotiated only where the device path can run: backend
 * cuda or auto, gstcuda built in and able to load the driver, the device
 * present. Elsewhere (backend=cpu, no driver, no GPU) transform_caps drops
 * it, so that upstream falls back to system memory. */
static gboolean
cuda_memory_allowed (GstBlockMatchMe * self, const Settings & s)
{
  return gst_match_cuda_memory_allowed (s.backend,
      first_cuda_device (self, s));
}

/* The device whose primary context is offered from NULL->READY on. */
static gint
cuda_memory_device (GstElement * element)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (element);
  const Settings s = snapshot_settings (self);

  return cuda_memory_allowed (self, s) ? first_cuda_device (self, s) : -1;
}

static GstStateChangeReturn
gst_block_match_me_change_state (GstElement * element,
    GstStateChange transition)
{
  return gst_match_cuda_change_state (GST_BLOCK_MATCH_ME (element)->cuda,
      element, transition, GST_ELEMENT_CLASS (parent_class),
      cuda_memory_device);
}

static void
gst_block_match_me_set_context (GstElement * element, GstContext * context)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (element);

  /* Not adopted as such (see gstmatchcuda.h): chaining up stores it, and
   * gst_match_cuda_open() respects a context set before it runs. */
  gst_match_cuda_handle_set_context (self->cuda, element, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static GstCaps *
gst_block_match_me_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);
  GstCaps *ret = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps (trans,
      direction, caps, filter);

  /* In place: the same caps on both pads, minus CUDA memory where it
   * cannot be used (accept-caps refuses it then, too). */
  return gst_match_cuda_filter_caps (ret, cuda_memory_allowed (self,
          snapshot_settings (self)));
}

/* How many buffers may be held: pipeline-depth, raised to one frame in
 * flight per extra device in serial mode, bounded by the backend and the
 * ring. */
static int
effective_depth (const State * st, guint requested)
{
  int depth = (int) requested;

  if (st->matcher && st->matcher->backend () == match::Backend::kCuda
      && st->serial)
    depth = std::max (depth, st->n_devices - 1);
  if (st->matcher)
    depth = std::min (depth, st->matcher->max_in_flight () - 1);
  depth = std::min (depth, kHeldMax - 1);
  return std::max (depth, 0);
}

/* Latency = depth x frame duration; 0 when the frame rate is unknown
 * (0/1, variable). Posts a latency message when it changes. */
static void
update_latency (GstBlockMatchMe * self, const State * st)
{
  gst_match_update_held_latency (GST_ELEMENT (self), &self->latency, st->depth,
      st->fps_n, st->fps_d);
}

static void
update_depth (GstBlockMatchMe * self, State * st, guint requested)
{
  const int depth = effective_depth (st, requested);

  st->requested_depth = requested;
  if (depth == st->depth)
    return;
  GST_DEBUG_OBJECT (self, "pipeline depth %d -> %d", st->depth, depth);
  st->depth = depth;
  update_latency (self, st);
}

static gboolean
gst_block_match_me_start (GstBaseTransform * trans)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);
  const Settings s = snapshot_settings (self);
  match::DeviceOptions devices;

  if (!get_device_options (self, s, &devices))
    return FALSE;

  if (s.backend == GST_MATCH_BACKEND_CUDA) {
    if (!match::backend_available (match::Backend::kCuda)) {
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("backend=cuda was requested but no CUDA device is available"),
          ("this build has no CUDA backend, or no CUDA device could be "
              "opened; use backend=auto or backend=cpu"));
      return FALSE;
    }
    const int count = match::cuda_device_count ();
    for (int d:devices.devices) {
      if (d >= count) {
        GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
            ("backend=cuda: CUDA device %d does not exist", d),
            ("%d CUDA device(s) here (ordinals 0..%d); set device-id or "
                "devices", count, count - 1));
        return FALSE;
      }
    }
  } else if (s.backend == GST_MATCH_BACKEND_AUTO
      && match::backend_available (match::Backend::kCuda)) {
    const int count = match::cuda_device_count ();
    for (int d:devices.devices)
      if (d >= count)
        GST_WARNING_OBJECT (self, "CUDA device %d does not exist (%d "
            "devices): backend=auto will use the CPU", d, count);
  }

  /* The device may have changed in READY: offer its primary context (a
   * no-op when already offered). */
  if (cuda_memory_allowed (self, s))
    gst_match_cuda_open (self->cuda, GST_ELEMENT (self), devices.devices[0]);

  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->active_backend, g_free);
  self->latency = 0;
  GST_OBJECT_UNLOCK (self);

  delete self->state;
  self->state = new State ();
  return TRUE;
}

static gboolean
gst_block_match_me_stop (GstBaseTransform * trans)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);

  /* Held buffers are discarded with the state. */
  delete self->state;
  self->state = nullptr;
  gst_mv_events_reset (self->mvevents, NULL, NULL);
  GST_OBJECT_LOCK (self);
  self->latency = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

/* Collects the oldest held frame's vectors and returns its buffer, meta
 * attached and drawn on, in *outbuf. */
static GstFlowReturn
finish_oldest (GstBlockMatchMe * self, State * st, GstMvDrawMode draw,
    GstBuffer ** outbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  Held & h = st->held[st->held_head];
  GstBuffer *buf = h.buf;
  const GstClockTime ref_pts = h.ref_pts;
  const match::BlockMatchConfig & cfg = st->matcher->config ();
  GstMotionVectorsMeta *meta;
  GstVideoFrame frame;
  bool estimated = false;

  h.buf = nullptr;
  st->held_head = (st->held_head + 1) % kHeldMax;
  st->held_count--;
  *outbuf = NULL;

  match::Status status = st->matcher->collect (st->vectors.data (),
      &estimated);
  if (!status)
    goto kernel_error;

  /* The meta goes on before mapping: a mapped frame holds a reference to
   * the buffer, which makes it unwritable. */
  meta = gst_match_attach_meta (buf, &st->pool, &st->pool_vectors,
      cfg.width, cfg.height, cfg.block_width, cfg.block_height,
      cfg.direction == match::Direction::kForward ?
      GST_MOTION_VECTORS_DIRECTION_FORWARD :
      GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  if (!meta)
    goto no_storage;
  meta->reference_timestamp = estimated ? ref_pts : GST_CLOCK_TIME_NONE;
  meta->precision = 1.0f / cfg.subpel;
  meta->method = g_intern_static_string (match::search_method_name (cfg.method));
  gst_match_fill_meta (meta, st->vectors.data (), estimated);
  gst_mv_events_process (self->mvevents, GST_ELEMENT (self), buf, meta,
      &GST_BASE_TRANSFORM (self)->segment);

  if (draw != GST_MV_DRAW_NONE) {
    if (st->cuda_memory && !st->logged_cuda_draw) {
      GST_INFO_OBJECT (self, "draw on CUDA memory: each frame is drawn in "
          "system memory (gstcuda downloads it, and uploads it again at the "
          "next CUDA map); logged once");
      st->logged_cuda_draw = true;
    }
    /* The held buffer is ours alone (made writable at submit); mapping it
     * for writing copies its memory only if that is shared. For CUDA
     * memory this map (no GST_MAP_CUDA) is in system memory. */
    if (!gst_video_frame_map (&frame, &filter->in_info, buf,
            GST_MAP_READWRITE))
      goto map_failed;
    gst_mv_overlay_draw (&frame, meta, draw, 0.0f);
    gst_video_frame_unmap (&frame);
  }
  *outbuf = buf;
  return GST_FLOW_OK;

  /* ERRORS */
kernel_error:
  {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Block matching failed"),
        ("%s", status.message ().c_str ()));
    return GST_FLOW_ERROR;
  }
no_storage:
  {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not attach the motion-vector meta"), (NULL));
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    gst_buffer_unref (buf);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
}

/* Discards held buffers and forgets the reference frame (flush). */
static void
reset_stream (State * st)
{
  st->drop_held ();
  if (st->matcher)
    st->matcher->reset ();
  st->prev_pts = GST_CLOCK_TIME_NONE;
}

/* Pushes every held buffer downstream with its results, oldest first. On a
 * flow error the rest are discarded (the matcher is reset with them). */
static GstFlowReturn
drain (GstBlockMatchMe * self, State * st)
{
  GstFlowReturn ret = GST_FLOW_OK;

  if (!st || st->held_count == 0)
    return GST_FLOW_OK;
  GST_DEBUG_OBJECT (self, "draining %d held buffer(s)", st->held_count);
  const GstMvDrawMode draw = snapshot_settings (self).draw;
  while (st->held_count > 0 && ret == GST_FLOW_OK) {
    GstBuffer *out = NULL;
    ret = finish_oldest (self, st, draw, &out);
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  }
  if (ret != GST_FLOW_OK) {
    GST_DEBUG_OBJECT (self, "drain stopped: %s", gst_flow_get_name (ret));
    reset_stream (st);
  }
  return ret;
}

static gboolean
gst_block_match_me_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);
  State *st = self->state;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      GST_DEBUG_OBJECT (self, "flush: dropping held buffers and the "
          "reference frame");
      if (st)
        reset_stream (st);
      break;
    case GST_EVENT_CAPS:
      /* set_info drains, and only when the format really changes. */
      break;
    default:
      /* Buffers held from before a serialized event (EOS, SEGMENT, TAG,
       * GAP...) leave before it. */
      if (GST_EVENT_IS_SERIALIZED (event))
        drain (self, st);
      break;
  }
  /* After the held buffers: motion-stop on EOS, flush, stream start. */
  gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_block_match_me_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);

  /* Neighbours looking for a CUDA context (on either pad) get the primary
   * context's wrapper; unanswered, the base class passes it on. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_match_cuda_handle_context_query (self->cuda, GST_ELEMENT (self),
          query))
    return TRUE;

  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max;

    if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
            query))
      return FALSE;
    gst_query_parse_latency (query, &live, &min, &max);
    GST_OBJECT_LOCK (self);
    const GstClockTime ours = self->latency;
    GST_OBJECT_UNLOCK (self);
    GST_DEBUG_OBJECT (self, "upstream latency min %" GST_TIME_FORMAT
        " max %" GST_TIME_FORMAT ", adding %" GST_TIME_FORMAT,
        GST_TIME_ARGS (min), GST_TIME_ARGS (max), GST_TIME_ARGS (ours));
    min += ours;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += ours;
    gst_query_set_latency (query, live, min, max);
    return TRUE;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_block_match_me_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps *, GstVideoInfo *)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (filter);
  const Settings s = snapshot_settings (self);
  State *st = self->state;
  match::DeviceOptions devices;

  if (!st)
    st = self->state = new State ();
  st->cuda_memory = gst_match_caps_have_cuda_memory (incaps);

  /* The same format again (a renegotiation): keep the matcher, its
   * reference and the frames in flight. */
  if (st->matcher && filter->negotiated
      && gst_video_info_is_equal (in_info, &filter->in_info)) {
    GST_DEBUG_OBJECT (self, "same format: keeping the matcher");
    return TRUE;
  }

  /* New caps: frames held under the old ones leave first, with their
   * results (filter->in_info still describes them here); then a new
   * matcher, which drops the reference. */
  drain (self, st);
  gst_mv_events_reset (self->mvevents, GST_ELEMENT (self), "caps");

  if (!get_device_options (self, s, &devices))
    return FALSE;

  const match::BlockMatchConfig cfg = make_config (s, in_info);
  std::unique_ptr < match::BlockMatcher > matcher;
  match::Status status =
      match::BlockMatcher::create (gst_match_backend_to_match (s.backend), cfg,
      &matcher, devices);
  if (!status) {
    st->matcher.reset ();
    if (s.backend == GST_MATCH_BACKEND_CUDA
        && status.code () == match::StatusCode::kUnavailable)
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("backend=cuda: the CUDA device(s) could not be used"),
          ("%s", status.message ().c_str ()));
    else if (status.code () == match::StatusCode::kOutOfMemory)
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory for block matching at %dx%d", cfg.width,
              cfg.height), ("%s", status.message ().c_str ()));
    else
      GST_ELEMENT_ERROR (self, LIBRARY, INIT,
          ("Could not set up block matching for %dx%d",
              cfg.width, cfg.height), ("%s", status.message ().c_str ()));
    return FALSE;
  }
  const std::string description = matcher->description ();
  GST_INFO_OBJECT (self, "%dx%d %s, backend=%s: using %s, %dx%d grid",
      cfg.width, cfg.height,
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      match::backend_name (gst_match_backend_to_match (s.backend)),
      description.c_str (), cfg.columns (), cfg.rows ());

  st->matcher = std::move (matcher);
  st->vectors.assign (cfg.num_blocks (), match::BlockVector ());
  st->luma.resize (gst_match_luma_scratch_size (in_info));
  st->prev_pts = GST_CLOCK_TIME_NONE;
  st->n_devices = (int) devices.devices.size ();
  st->serial = devices.mode == match::MultiGpuMode::kSerial;
  st->fps_n = GST_VIDEO_INFO_FPS_N (in_info);
  st->fps_d = GST_VIDEO_INFO_FPS_D (in_info);
  st->depth = effective_depth (st, s.pipeline_depth);
  st->requested_depth = s.pipeline_depth;
  update_latency (self, st);

  if (st->cuda_memory)
    GST_INFO_OBJECT (self, "CUDA memory in and out: %s",
        st->matcher->backend () == match::Backend::kCuda ?
        "frames in the offered primary context go to the GPU without a "
        "download (one device-to-device copy)" :
        "on the CPU backend every frame is downloaded by gstcuda");

  gst_match_set_active_backend (GST_ELEMENT (self), &self->active_backend,
      active_backend_pspec, description.c_str ());
  return TRUE;
}

/* Hands `inbuf` (owned) to the matcher and holds it. */
static GstFlowReturn
submit_frame (GstBlockMatchMe * self, State * st, const Settings & s,
    GstBuffer * inbuf)
{
  GstVideoFilter *filter = GST_VIDEO_FILTER (self);
  GstFlowReturn ret;
  GstVideoFrame frame;
  match::Status status;

  if (GST_BUFFER_IS_DISCONT (inbuf)) {
    /* Held frames keep their estimates; the new one has no reference. */
    ret = drain (self, st);
    if (ret != GST_FLOW_OK)
      goto flow_error;
    st->matcher->reset ();
    st->prev_pts = GST_CLOCK_TIME_NONE;
  }

  {
    /* Property changes while playing: same frame size, new search. The
     * matcher keeps its reference frame across the change, but
     * reconfigure() needs nothing in flight. */
    const match::BlockMatchConfig cfg = make_config (s, &filter->in_info);
    if (cfg != st->matcher->config ()) {
      ret = drain (self, st);
      if (ret != GST_FLOW_OK)
        goto flow_error;
      GST_DEBUG_OBJECT (self, "reconfiguring: %s, blocks %dx%d range %d/%d "
          "1/%d", match::search_method_name (cfg.method), cfg.block_width,
          cfg.block_height, cfg.range_x, cfg.range_y, cfg.subpel);
      /* Every backend has every method: the same matcher follows. */
      status = st->matcher->reconfigure (cfg);
      if (!status)
        goto kernel_error;
      st->vectors.assign (cfg.num_blocks (), match::BlockVector ());
    }
  }

  /* Ours alone from here on, so that the meta can be added (and the frame
   * drawn on) when it leaves; a shallow copy only if upstream keeps it. */
  inbuf = gst_buffer_make_writable (inbuf);

  {
    match::BlockMatchRuntime rt;
    rt.threshold = s.threshold;
    rt.threads = s.n_threads;
    bool submitted = false;

    /* (The CPU backend with CUDA memory was logged at set_info.) */
    if (st->cuda_memory && st->matcher->backend () == match::Backend::kCuda) {
      /* Zero copy: the frame's Y plane stays on the GPU. */
      match::DeviceImageView luma;
      if (gst_match_cuda_map_luma (self->cuda, GST_ELEMENT (self),
              &filter->in_info, inbuf, &frame, &luma)) {
        /* The copies from the buffer are done when submit_device()
         * returns, as submit() has taken the pixels. */
        status = st->matcher->submit_device (luma, rt);
        gst_video_frame_unmap (&frame);
        submitted = status.code () != match::StatusCode::kUnsupported;
        if (!submitted && !st->logged_device_refused) {
          GST_INFO_OBJECT (self, "%s: frames go through system memory "
              "(logged once)", status.message ().c_str ());
          st->logged_device_refused = true;
        }
      }
    }
    if (!submitted) {
      /* System memory, or CUDA memory that gstcuda downloads for this map. */
      if (!gst_video_frame_map (&frame, &filter->in_info, inbuf, GST_MAP_READ))
        goto map_failed;
      /* The backend has taken the pixels when submit() returns. */
      status = st->matcher->submit (gst_match_frame_luma (&frame, st->luma),
          rt);
      gst_video_frame_unmap (&frame);
    }
  }
  if (!status)
    goto kernel_error;

  {
    Held & h = st->held[(st->held_head + st->held_count) % kHeldMax];
    h.buf = inbuf;
    h.ref_pts = st->prev_pts;
    st->held_count++;
    st->prev_pts = GST_BUFFER_PTS (inbuf);
  }
  return GST_FLOW_OK;

  /* ERRORS */
flow_error:
  {
    gst_buffer_unref (inbuf);
    return ret;
  }
map_failed:
  {
    gst_buffer_unref (inbuf);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
kernel_error:
  {
    gst_buffer_unref (inbuf);
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED, ("Block matching failed"),
        ("%s", status.message ().c_str ()));
    return GST_FLOW_ERROR;
  }
}

/* Called by the base class after each input buffer (left in queued_buf by
 * the default submit_input_buffer) and again after each buffer it pushes,
 * until no buffer is returned. */
static GstFlowReturn
gst_block_match_me_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstBlockMatchMe *self = GST_BLOCK_MATCH_ME (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  State *st = self->state;
  GstBuffer *inbuf = trans->queued_buf;
  GstFlowReturn ret;

  trans->queued_buf = NULL;
  *outbuf = NULL;

  if (G_UNLIKELY (!filter->negotiated || !st || !st->matcher)) {
    if (!inbuf)
      return GST_FLOW_OK;
    gst_buffer_unref (inbuf);
    goto not_negotiated;
  }

  {
    const Settings s = snapshot_settings (self);

    if (s.pipeline_depth != st->requested_depth)
      update_depth (self, st, s.pipeline_depth);
    if (inbuf) {
      ret = submit_frame (self, st, s, inbuf);
      if (ret != GST_FLOW_OK)
        return ret;
    }
    if (st->held_count > st->depth)
      return finish_oldest (self, st, s.draw, outbuf);
  }
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated:
  {
    GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
        ("unknown format or not started"));
    return GST_FLOW_NOT_NEGOTIATED;
  }
}
