/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-pocme
 * @title: pocme
 *
 * Phase-only-correlation (POC) motion estimation. One vector per `spacing`
 * x `spacing` block of luma is estimated, with sub-pixel accuracy, from the
 * phase of the cross spectrum of a `window-size` x `window-size` window
 * centred on the block in each of the two frames, searched hierarchically
 * over `layers` coarser layers. Each vector carries the height of its POC
 * peak as a confidence. The field is attached to the buffer as a
 * #GstMotionVectorsMeta, the same meta as `blockmatchme` attaches, so the
 * two elements are interchangeable in a pipeline (overlay, `mvexport`).
 * Video passes through unchanged unless `draw` is set.
 *
 * ## Example launch lines
 * |[
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     pocme draw=arrows ! videoconvert ! autovideosink
 * gst-launch-1.0 filesrc location=clip.ogv ! decodebin ! videoconvert ! \
 *     pocme window-size=128 spacing=32 layers=3 min-confidence=0.3 ! \
 *     mvexport location=vectors.jsonl ! fakesink
 * ]|
 *
 * Built with GStreamer's CUDA library, it also takes
 * `video/x-raw(memory:CUDAMemory)` from NVIDIA decoders with backend=cuda or
 * auto, without a download, as `blockmatchme` does (docs/cuda-memory.md):
 * |[
 * gst-launch-1.0 filesrc location=clip.mp4 ! qtdemux ! h264parse ! \
 *     nvh264dec ! pocme ! fakesink
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
 * POC with hierarchical search (POC-HS) as in paper [E]; the exact
 * definitions (window placement, clamp-to-edge sampling, layers, the
 * sub-pixel peak fit, confidence) are in kernels/include/match/poc.h and
 * docs/pocme.md. The element only marshals frames and settings.
 *
 * Unlike blockmatchme there is no pipelining (PocMatcher::process() is
 * synchronous), so transform_ip is overridden directly rather than
 * transform_frame_ip: GstVideoFilter would map every frame for writing,
 * which copies the image when its memory is shared (e.g. after a tee). The
 * frame is mapped read-only for the estimate and for writing only when
 * drawing. The base class hands transform_ip a metadata-writable buffer
 * (in place, not passthrough), so the meta can be added.
 *
 * window-size must be an FFT size the kernels handle, 2^a 3^b 5^c. As for
 * blockmatchme's `devices`, and as GStreamer elements usually do, a bad
 * value is accepted when set and reported as a RESOURCE/SETTINGS element
 * error where it is used: at start, at caps, or on the next frame when it
 * was set while playing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpocme.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/gstmatchcommon.h"
#include "common/gstmatchcuda.h"
#include "common/mvevents.h"
#include "common/mvoverlay.h"
#include "match/poc.h"

GST_DEBUG_CATEGORY_STATIC (gst_poc_me_debug);
#define GST_CAT_DEFAULT gst_poc_me_debug

#define DEFAULT_PROP_WINDOW_SIZE 64
#define DEFAULT_PROP_SPACING 16
#define DEFAULT_PROP_LAYERS 2
#define DEFAULT_PROP_WINDOW GST_POC_WINDOW_HANN
/* 0.75, not 1 (off): measured in docs/pocme.md ("Choosing lowpass"): on
 * noisy shifts and in the worst blocks it is better at every window size,
 * on Middlebury/Sintel EPE within 0.02 px of the best. */
#define DEFAULT_PROP_LOWPASS 0.75
#define DEFAULT_PROP_MIN_CONFIDENCE 0.0
#define DEFAULT_PROP_DIRECTION GST_MOTION_VECTORS_DIRECTION_BACKWARD
#define DEFAULT_PROP_BACKEND GST_MATCH_BACKEND_AUTO
#define DEFAULT_PROP_DEVICE_ID 0
#define DEFAULT_PROP_DRAW GST_MV_DRAW_NONE
#define DEFAULT_PROP_N_THREADS 0

#define MIN_WINDOW_SIZE match::kMinPocWindowSize
#define MAX_WINDOW_SIZE match::kMaxPocWindowSize
#define MIN_SPACING match::kMinPocSpacing
#define MAX_SPACING match::kMaxPocSpacing
#define MAX_LAYERS match::kMaxPocLayers
/* Below this the low-pass keeps about one frequency bin per axis even for
 * the largest window (0.01 x 128 bins to Nyquist). */
#define MIN_LOWPASS 0.01
#define MAX_DEVICE_ORDINAL 63

enum
{
  PROP_0,
  PROP_WINDOW_SIZE,
  PROP_SPACING,
  PROP_LAYERS,
  PROP_WINDOW,
  PROP_LOWPASS,
  PROP_MIN_CONFIDENCE,
  PROP_DIRECTION,
  PROP_BACKEND,
  PROP_DEVICE_ID,
  PROP_DRAW,
  PROP_N_THREADS,
  PROP_ACTIVE_BACKEND,
  /* GST_MV_EVENTS_N_PROPS ids from here: regions, events... (mvevents.h) */
  PROP_MV_EVENTS_FIRST,
};

static GParamSpec *active_backend_pspec;

/* Plain copyable settings, read under the object lock and used unlocked. */
struct Settings
{
  guint window_size;
  guint spacing;
  guint layers;
  GstPocWindow window;
  gdouble lowpass;
  gdouble min_confidence;
  GstMotionVectorsDirection direction;
  GstMatchBackend backend;
  gint device_id;
  GstMvDrawMode draw;
  guint n_threads;
};

/* Streaming-thread state, built in set_info, dropped in stop. */
struct State
{
  std::unique_ptr < match::PocMatcher > matcher;
  std::vector < match::PocVector > vectors;
  std::vector < uint8_t > luma;
  GstBufferPool *pool = nullptr;        /* storage of the metas' vectors */
  guint pool_vectors = 0;
  GstClockTime prev_pts = GST_CLOCK_TIME_NONE;  /* the reference frame's */
  bool cuda_memory = false;     /* negotiated memory:CUDAMemory */
  bool logged_cuda_draw = false;
  bool logged_device_refused = false;
  /* The setup whose error was posted last (set_info failed for it). */
  std::optional < match::PocConfig > failed_cfg;
  GstMatchBackend failed_backend = GST_MATCH_BACKEND_AUTO;
  gint failed_device = 0;

  ~State ()
  {
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
  }
};

struct _GstPocMe
{
  GstVideoFilter parent;

  Settings settings;            /* protected by the object lock */
  gchar *active_backend;        /* protected by the object lock */
  State *state;                 /* streaming thread only */
  GstMvEvents *mvevents;        /* regions and motion events */
  GstMatchCuda *cuda;           /* CUDA memory: offered context (own lock) */
};

#define gst_poc_me_parent_class parent_class
G_DEFINE_TYPE (GstPocMe, gst_poc_me, GST_TYPE_VIDEO_FILTER);
GST_ELEMENT_REGISTER_DEFINE (pocme, "pocme", GST_RANK_NONE, GST_TYPE_POC_ME);

GType
gst_poc_window_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_POC_WINDOW_HANN, "Separable Hann window", "hann"},
    {GST_POC_WINDOW_NONE, "Rectangular (no weighting)", "none"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstPocWindow", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

/* System memory, and video/x-raw(memory:CUDAMemory) when built with gstcuda
 * (GST_MATCH_CAPS; the rules are blockmatchme's, see common/gstmatchcuda.h
 * and docs/cuda-memory.md); transform_caps drops the latter where it
 * cannot be used. */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MATCH_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MATCH_CAPS));

static void gst_poc_me_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_poc_me_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_poc_me_finalize (GObject * object);
static GstStateChangeReturn gst_poc_me_change_state (GstElement * element,
    GstStateChange transition);
static void gst_poc_me_set_context (GstElement * element,
    GstContext * context);
static GstCaps *gst_poc_me_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_poc_me_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static gboolean gst_poc_me_start (GstBaseTransform * trans);
static gboolean gst_poc_me_stop (GstBaseTransform * trans);
static gboolean gst_poc_me_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static GstFlowReturn gst_poc_me_transform_ip (GstBaseTransform * trans,
    GstBuffer * buf);
static gboolean gst_poc_me_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);

static void
gst_poc_me_class_init (GstPocMeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass *trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass *filter_class = GST_VIDEO_FILTER_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->set_property = gst_poc_me_set_property;
  gobject_class->get_property = gst_poc_me_get_property;
  gobject_class->finalize = gst_poc_me_finalize;

  g_object_class_install_property (gobject_class, PROP_WINDOW_SIZE,
      g_param_spec_uint ("window-size", "Window size",
          "Side N of the N x N POC window centred on each block, in pixels; "
          "must be of the form 2^a 3^b 5^c (32, 48, 64, 96, 128, 256...): "
          "other values fail with a settings error when used", MIN_WINDOW_SIZE,
          MAX_WINDOW_SIZE, DEFAULT_PROP_WINDOW_SIZE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_SPACING,
      g_param_spec_uint ("spacing", "Spacing",
          "One vector per spacing x spacing block (the meta's block size), "
          "in pixels", MIN_SPACING, MAX_SPACING, DEFAULT_PROP_SPACING,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_LAYERS,
      g_param_spec_uint ("layers", "Layers",
          "Coarser layers of the hierarchical search (2x2 averaging each); "
          "0 = single-layer POC", 0, MAX_LAYERS, DEFAULT_PROP_LAYERS,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_WINDOW,
      g_param_spec_enum ("window", "Window",
          "Weighting of each POC window before its FFT", GST_TYPE_POC_WINDOW,
          DEFAULT_PROP_WINDOW, rw_playing));
  g_object_class_install_property (gobject_class, PROP_LOWPASS,
      g_param_spec_double ("lowpass", "Low-pass",
          "Spectral weight: frequencies beyond lowpass x Nyquist (per axis) "
          "are ignored; 1 = off (default 0.75: see docs/pocme.md)", MIN_LOWPASS, 1.0, DEFAULT_PROP_LOWPASS,
          rw_playing));
  g_object_class_install_property (gobject_class, PROP_MIN_CONFIDENCE,
      g_param_spec_double ("min-confidence", "Minimum confidence",
          "Vectors whose confidence (POC peak height) is below this are "
          "flagged unreliable (and kept); 0 = off", 0.0, 1.0,
          DEFAULT_PROP_MIN_CONFIDENCE, rw_playing));
  g_object_class_install_property (gobject_class, PROP_DIRECTION,
      g_param_spec_enum ("direction", "Direction",
          "forward: blocks tile the previous frame, vectors say where they "
          "went; backward: blocks tile the current frame, vectors say where "
          "they came from", GST_TYPE_MOTION_VECTORS_DIRECTION,
          DEFAULT_PROP_DIRECTION, rw_playing));
  g_object_class_install_property (gobject_class, PROP_BACKEND,
      g_param_spec_enum ("backend", "Backend",
          "Compute backend: auto picks CUDA when a device opens and a CUDA "
          "POC implementation exists, else CPU", GST_TYPE_MATCH_BACKEND,
          DEFAULT_PROP_BACKEND, rw_ready));
  g_object_class_install_property (gobject_class, PROP_DEVICE_ID,
      g_param_spec_int ("device-id", "CUDA device",
          "CUDA device ordinal used by backend=cuda/auto", 0,
          MAX_DEVICE_ORDINAL, DEFAULT_PROP_DEVICE_ID, rw_ready));
  g_object_class_install_property (gobject_class, PROP_DRAW,
      g_param_spec_enum ("draw", "Draw",
          "Draw the motion field on the video", GST_TYPE_MV_DRAW_MODE,
          DEFAULT_PROP_DRAW, rw_playing));
  g_object_class_install_property (gobject_class, PROP_N_THREADS,
      g_param_spec_uint ("n-threads", "Threads",
          "CPU worker threads (0 = one per core)", 0, 256,
          DEFAULT_PROP_N_THREADS, rw_playing));
  active_backend_pspec = g_param_spec_string ("active-backend",
      "Active backend",
      "The backend in use, e.g. \"cpu (...)\"; NULL until the first caps "
      "after start", NULL,
      (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS));
  g_object_class_install_property (gobject_class, PROP_ACTIVE_BACKEND,
      active_backend_pspec);
  gst_mv_events_install_properties (gobject_class, PROP_MV_EVENTS_FIRST);

  gst_element_class_set_static_metadata (element_class,
      "Phase-correlation motion estimation", "Filter/Analyzer/Video",
      "Estimates sub-pixel motion vectors with a confidence each by "
      "hierarchical phase-only correlation and attaches them as "
      "GstMotionVectorsMeta", "gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  element_class->change_state = GST_DEBUG_FUNCPTR (gst_poc_me_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_poc_me_set_context);

  trans_class->transform_caps = GST_DEBUG_FUNCPTR (gst_poc_me_transform_caps);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_poc_me_query);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_poc_me_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_poc_me_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_poc_me_sink_event);
  trans_class->transform_ip = GST_DEBUG_FUNCPTR (gst_poc_me_transform_ip);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_poc_me_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_POC_WINDOW, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_BACKEND, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MV_DRAW_MODE, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_poc_me_debug, "pocme", 0,
      "Phase-correlation motion estimation");
  gst_match_install_log_bridge ();
}

static void
gst_poc_me_init (GstPocMe * self)
{
  Settings & s = self->settings;

  s.window_size = DEFAULT_PROP_WINDOW_SIZE;
  s.spacing = DEFAULT_PROP_SPACING;
  s.layers = DEFAULT_PROP_LAYERS;
  s.window = DEFAULT_PROP_WINDOW;
  s.lowpass = DEFAULT_PROP_LOWPASS;
  s.min_confidence = DEFAULT_PROP_MIN_CONFIDENCE;
  s.direction = DEFAULT_PROP_DIRECTION;
  s.backend = DEFAULT_PROP_BACKEND;
  s.device_id = DEFAULT_PROP_DEVICE_ID;
  s.draw = DEFAULT_PROP_DRAW;
  s.n_threads = DEFAULT_PROP_N_THREADS;
  self->active_backend = NULL;
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
gst_poc_me_finalize (GObject * object)
{
  GstPocMe *self = GST_POC_ME (object);

  delete self->state;
  self->state = nullptr;
  g_free (self->active_backend);
  gst_mv_events_free (self->mvevents);
  gst_match_cuda_free (self->cuda);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_poc_me_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPocMe *self = GST_POC_ME (object);
  Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_WINDOW_SIZE:
      /* Kept as given; checked where it is used (see check_window_size). */
      s.window_size = g_value_get_uint (value);
      break;
    case PROP_SPACING:
      s.spacing = g_value_get_uint (value);
      break;
    case PROP_LAYERS:
      s.layers = g_value_get_uint (value);
      break;
    case PROP_WINDOW:
      s.window = (GstPocWindow) g_value_get_enum (value);
      break;
    case PROP_LOWPASS:
      s.lowpass = g_value_get_double (value);
      break;
    case PROP_MIN_CONFIDENCE:
      s.min_confidence = g_value_get_double (value);
      break;
    case PROP_DIRECTION:
      s.direction = (GstMotionVectorsDirection) g_value_get_enum (value);
      break;
    case PROP_BACKEND:
      s.backend = (GstMatchBackend) g_value_get_enum (value);
      break;
    case PROP_DEVICE_ID:
      s.device_id = g_value_get_int (value);
      break;
    case PROP_DRAW:
      s.draw = (GstMvDrawMode) g_value_get_enum (value);
      break;
    case PROP_N_THREADS:
      s.n_threads = g_value_get_uint (value);
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
gst_poc_me_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstPocMe *self = GST_POC_ME (object);
  const Settings & s = self->settings;

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_WINDOW_SIZE:
      g_value_set_uint (value, s.window_size);
      break;
    case PROP_SPACING:
      g_value_set_uint (value, s.spacing);
      break;
    case PROP_LAYERS:
      g_value_set_uint (value, s.layers);
      break;
    case PROP_WINDOW:
      g_value_set_enum (value, s.window);
      break;
    case PROP_LOWPASS:
      g_value_set_double (value, s.lowpass);
      break;
    case PROP_MIN_CONFIDENCE:
      g_value_set_double (value, s.min_confidence);
      break;
    case PROP_DIRECTION:
      g_value_set_enum (value, s.direction);
      break;
    case PROP_BACKEND:
      g_value_set_enum (value, s.backend);
      break;
    case PROP_DEVICE_ID:
      g_value_set_int (value, s.device_id);
      break;
    case PROP_DRAW:
      g_value_set_enum (value, s.draw);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, s.n_threads);
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
snapshot_settings (GstPocMe * self)
{
  GST_OBJECT_LOCK (self);
  Settings s = self->settings;
  GST_OBJECT_UNLOCK (self);
  return s;
}

static match::PocConfig
make_config (const Settings & s, int width, int height)
{
  match::PocConfig c;
  c.width = width;
  c.height = height;
  c.window_size = (int) s.window_size;
  c.spacing = (int) s.spacing;
  c.layers = (int) s.layers;
  c.window = s.window == GST_POC_WINDOW_NONE ?
      match::PocWindow::kNone : match::PocWindow::kHann;
  c.lowpass = s.lowpass;
  c.direction = s.direction == GST_MOTION_VECTORS_DIRECTION_FORWARD ?
      match::Direction::kForward : match::Direction::kBackward;
  return c;
}

static match::DeviceOptions
make_device_options (const Settings & s)
{
  match::DeviceOptions d;
  d.devices.push_back (s.device_id);
  return d;
}

/* Posts a RESOURCE/SETTINGS error and returns FALSE when window-size is not
 * an FFT size. */
static gboolean
check_window_size (GstPocMe * self, const Settings & s)
{
  if (match::is_poc_fft_size ((int) s.window_size))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("Invalid window-size %u: the POC window must be a size of the form "
          "2^a 3^b 5^c, e.g. 32, 48, 64, 96, 128, 256", s.window_size),
      ("window-size=%u has a prime factor above 5", s.window_size));
  return FALSE;
}

/* Posts the element error matching a failed PocMatcher::create() or
 * reconfigure(). */
static void
post_setup_error (GstPocMe * self, const Settings & s,
    const match::PocConfig & cfg, const match::Status & status)
{
  switch (status.code ()) {
    case match::StatusCode::kUnavailable:
      GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
          ("backend=%s: no usable phase-correlation backend",
              match::backend_name (gst_match_backend_to_match (s.backend))),
          ("%s", status.message ().c_str ()));
      break;
    case match::StatusCode::kInvalidArgument:
      GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
          ("Invalid phase-correlation settings for %dx%d (window-size %d, "
              "spacing %d, layers %d, lowpass %g)", cfg.width, cfg.height,
              cfg.window_size, cfg.spacing, cfg.layers, cfg.lowpass),
          ("%s", status.message ().c_str ()));
      break;
    case match::StatusCode::kOutOfMemory:
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory for phase correlation at %dx%d", cfg.width,
              cfg.height), ("%s", status.message ().c_str ()));
      break;
    default:
      GST_ELEMENT_ERROR (self, LIBRARY, INIT,
          ("Could not set up phase correlation for %dx%d", cfg.width,
              cfg.height), ("%s", status.message ().c_str ()));
      break;
  }
}

/* CUDA memory is negotiated only where the device path can run (backend
 * cuda or auto, gstcuda able to load the driver, device-id present); the
 * context rules are blockmatchme's (common/gstmatchcuda.h). */
static gboolean
cuda_memory_allowed (const Settings & s)
{
  return gst_match_cuda_memory_allowed (s.backend, s.device_id);
}

/* The device whose primary context is offered from NULL->READY on. */
static gint
cuda_memory_device (GstElement * element)
{
  const Settings s = snapshot_settings (GST_POC_ME (element));

  return cuda_memory_allowed (s) ? s.device_id : -1;
}

static GstStateChangeReturn
gst_poc_me_change_state (GstElement * element, GstStateChange transition)
{
  return gst_match_cuda_change_state (GST_POC_ME (element)->cuda, element,
      transition, GST_ELEMENT_CLASS (parent_class), cuda_memory_device);
}

static void
gst_poc_me_set_context (GstElement * element, GstContext * context)
{
  GstPocMe *self = GST_POC_ME (element);

  gst_match_cuda_handle_set_context (self->cuda, element, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static GstCaps *
gst_poc_me_transform_caps (GstBaseTransform * trans, GstPadDirection direction,
    GstCaps * caps, GstCaps * filter)
{
  GstPocMe *self = GST_POC_ME (trans);
  GstCaps *ret = GST_BASE_TRANSFORM_CLASS (parent_class)->transform_caps (trans,
      direction, caps, filter);

  return gst_match_cuda_filter_caps (ret,
      cuda_memory_allowed (snapshot_settings (self)));
}

static gboolean
gst_poc_me_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstPocMe *self = GST_POC_ME (trans);

  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_match_cuda_handle_context_query (self->cuda, GST_ELEMENT (self),
          query))
    return TRUE;
  return GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction,
      query);
}

static gboolean
gst_poc_me_start (GstBaseTransform * trans)
{
  GstPocMe *self = GST_POC_ME (trans);
  const Settings s = snapshot_settings (self);

  if (!check_window_size (self, s))
    return FALSE;

  if (s.backend == GST_MATCH_BACKEND_CUDA) {
    if (!gst_match_check_cuda_device (GST_ELEMENT (self), s.device_id))
      return FALSE;
    /* CUDA may be there without a CUDA implementation of POC: find out now,
     * at the state change, rather than at the first caps. The frame size
     * is not known yet; one window's worth stands in for it. */
    std::unique_ptr < match::PocMatcher > probe;
    const match::PocConfig cfg = make_config (s, (int) s.window_size,
        (int) s.window_size);
    match::Status status = match::PocMatcher::create (match::Backend::kCuda,
        cfg, &probe, make_device_options (s));
    if (!status) {
      post_setup_error (self, s, cfg, status);
      return FALSE;
    }
  }

  /* device-id may have changed in READY (a no-op otherwise). */
  if (cuda_memory_allowed (s))
    gst_match_cuda_open (self->cuda, GST_ELEMENT (self), s.device_id);

  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->active_backend, g_free);
  GST_OBJECT_UNLOCK (self);

  delete self->state;
  self->state = new State ();
  return TRUE;
}

static gboolean
gst_poc_me_stop (GstBaseTransform * trans)
{
  GstPocMe *self = GST_POC_ME (trans);

  delete self->state;
  self->state = nullptr;
  gst_mv_events_reset (self->mvevents, NULL, NULL);
  return TRUE;
}

/* Forgets the reference frame (flush, discontinuity). */
static void
reset_stream (State * st)
{
  if (st->matcher)
    st->matcher->reset ();
  st->prev_pts = GST_CLOCK_TIME_NONE;
}

static gboolean
gst_poc_me_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstPocMe *self = GST_POC_ME (trans);

  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP && self->state) {
    GST_DEBUG_OBJECT (self, "flush: dropping the reference frame");
    reset_stream (self->state);
  }
  /* motion-stop on EOS, flush, stream start. */
  gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_poc_me_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps *, GstVideoInfo *)
{
  GstPocMe *self = GST_POC_ME (filter);
  const Settings s = snapshot_settings (self);
  State *st = self->state;

  if (!st)
    st = self->state = new State ();
  st->cuda_memory = gst_match_caps_have_cuda_memory (incaps);

  /* The same format again (a renegotiation): keep the matcher and its
   * reference. */
  if (st->matcher && filter->negotiated
      && gst_video_info_is_equal (in_info, &filter->in_info)) {
    GST_DEBUG_OBJECT (self, "same format: keeping the matcher");
    return TRUE;
  }

  /* New caps: a new matcher, without a reference. */
  st->matcher.reset ();
  st->prev_pts = GST_CLOCK_TIME_NONE;
  gst_mv_events_reset (self->mvevents, GST_ELEMENT (self), "caps");

  const match::PocConfig cfg = make_config (s, GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info));
  /* GstBaseTransform calls set_info again after a failed negotiation (on
   * every buffer and reconfigure): one failing setup posts its error once,
   * a different one (other caps or settings) posts its own. */
  if (st->failed_cfg && *st->failed_cfg == cfg
      && st->failed_backend == s.backend && st->failed_device == s.device_id) {
    GST_DEBUG_OBJECT (self, "the same setup failed before (error posted)");
    return FALSE;
  }
  st->failed_cfg = cfg;
  st->failed_backend = s.backend;
  st->failed_device = s.device_id;
  if (!check_window_size (self, s))
    return FALSE;
  std::unique_ptr < match::PocMatcher > matcher;
  match::Status status =
      match::PocMatcher::create (gst_match_backend_to_match (s.backend), cfg, &matcher,
      make_device_options (s));
  if (!status) {
    post_setup_error (self, s, cfg, status);
    return FALSE;
  }
  st->failed_cfg.reset ();
  const std::string description = matcher->description ();
  GST_INFO_OBJECT (self, "%dx%d %s, backend=%s: using %s, %dx%d grid, "
      "window %d, %d layer(s)", cfg.width, cfg.height,
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      match::backend_name (gst_match_backend_to_match (s.backend)),
      description.c_str (), cfg.columns (), cfg.rows (), cfg.window_size,
      cfg.layers);

  st->matcher = std::move (matcher);
  st->vectors.assign (cfg.num_blocks (), match::PocVector ());
  st->luma.resize (gst_match_luma_scratch_size (in_info));
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

static GstFlowReturn
gst_poc_me_transform_ip (GstBaseTransform * trans, GstBuffer * buf)
{
  GstPocMe *self = GST_POC_ME (trans);
  GstVideoFilter *filter = GST_VIDEO_FILTER (trans);
  State *st = self->state;
  GstMotionVectorsMeta *meta;
  GstVideoFrame frame;
  match::Status status;
  bool estimated = false;

  if (G_UNLIKELY (!filter->negotiated || !st || !st->matcher))
    goto not_negotiated;

  {
    const Settings s = snapshot_settings (self);

    if (GST_BUFFER_IS_DISCONT (buf)) {
      GST_DEBUG_OBJECT (self, "discontinuity: dropping the reference frame");
      reset_stream (st);
    }

    /* Property changes while playing: same frame size, new parameters;
     * the matcher keeps its reference frame. */
    const match::PocConfig cfg = make_config (s,
        GST_VIDEO_INFO_WIDTH (&filter->in_info),
        GST_VIDEO_INFO_HEIGHT (&filter->in_info));
    if (cfg != st->matcher->config ()) {
      if (!check_window_size (self, s))
        return GST_FLOW_ERROR;
      GST_DEBUG_OBJECT (self, "reconfiguring: window %d spacing %d layers %d",
          cfg.window_size, cfg.spacing, cfg.layers);
      status = st->matcher->reconfigure (cfg);
      if (!status) {
        post_setup_error (self, s, cfg, status);
        return GST_FLOW_ERROR;
      }
      st->vectors.assign (cfg.num_blocks (), match::PocVector ());
    }

    match::PocRuntime rt;
    /* 0 = off: confidences are >= 0, so nothing is flagged. */
    rt.min_confidence = s.min_confidence;
    rt.threads = (int) s.n_threads;
    bool done = false;
    /* Zero copy (CUDA memory in the offered primary context): the Y plane
     * stays on the GPU; process_device() has finished reading it when it
     * returns. Anything else goes through the system-memory map below. */
    if (st->cuda_memory && st->matcher->backend () == match::Backend::kCuda) {
      match::DeviceImageView luma;
      if (gst_match_cuda_map_luma (self->cuda, GST_ELEMENT (self),
              &filter->in_info, buf, &frame, &luma)) {
        status = st->matcher->process_device (luma, rt, st->vectors.data (),
            &estimated);
        gst_video_frame_unmap (&frame);
        done = status.code () != match::StatusCode::kUnsupported;
        if (!done && !st->logged_device_refused) {
          GST_INFO_OBJECT (self, "%s: frames go through system memory "
              "(logged once)", status.message ().c_str ());
          st->logged_device_refused = true;
        }
      }
    }
    if (!done) {
      /* Read-only: no pixel copy even if the memory is shared (CUDA
       * memory: gstcuda downloads it for this map). */
      if (!gst_video_frame_map (&frame, &filter->in_info, buf, GST_MAP_READ))
        goto map_failed;
      status = st->matcher->process (gst_match_frame_luma (&frame, st->luma),
          rt, st->vectors.data (), &estimated);
      gst_video_frame_unmap (&frame);
    }
    if (!status)
      goto kernel_error;

    /* The meta goes on after unmapping: a mapped frame holds a reference
     * to the buffer, which makes it unwritable. */
    meta = gst_match_attach_meta (buf, &st->pool, &st->pool_vectors,
        cfg.width, cfg.height, cfg.spacing, cfg.spacing,
        s.direction == GST_MOTION_VECTORS_DIRECTION_FORWARD ?
        GST_MOTION_VECTORS_DIRECTION_FORWARD :
        GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    if (!meta)
      goto no_storage;
    meta->reference_timestamp = estimated ? st->prev_pts : GST_CLOCK_TIME_NONE;
    /* Continuous sub-pixel output: no candidate grid (see motionvectors.h). */
    meta->precision = 0.0f;
    meta->method = g_intern_static_string ("poc");
    gst_match_fill_meta_poc (meta, st->vectors.data (), estimated);
    st->prev_pts = GST_BUFFER_PTS (buf);
    gst_mv_events_process (self->mvevents, GST_ELEMENT (self), buf, meta,
        &trans->segment);

    if (s.draw != GST_MV_DRAW_NONE) {
      if (st->cuda_memory && !st->logged_cuda_draw) {
        GST_INFO_OBJECT (self, "draw on CUDA memory: each frame is drawn in "
            "system memory (gstcuda downloads it, and uploads it again at "
            "the next CUDA map); logged once");
        st->logged_cuda_draw = true;
      }
      if (!gst_video_frame_map (&frame, &filter->in_info, buf,
              GST_MAP_READWRITE))
        goto map_failed;
      gst_mv_overlay_draw (&frame, meta, s.draw, 0.0f);
      gst_video_frame_unmap (&frame);
    }
  }
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
    GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
        ("Phase-correlation motion estimation failed"), ("%s",
            status.message ().c_str ()));
    return GST_FLOW_ERROR;
  }
no_storage:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
        ("Could not attach the motion-vector meta"), (NULL));
    return GST_FLOW_ERROR;
  }
}
