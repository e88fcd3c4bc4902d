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
 * With `pipeline-depth` > 0 the element holds that many frames while the
 * backend works on them, so each buffer leaves that many frames late (the
 * latency query reports it); the vectors are the same as with depth 0.
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
 * Everything but the POC settings and the meta's fields is GstMatchFilter's
 * (common/gstmatchfilter.h), as for blockmatchme: backend and device
 * properties, CUDA memory, pipelining (pipeline-depth, through
 * PocMatcher::submit()/collect()), regions and events, drawing. This file
 * fills its vfuncs around a match::PocMatcher.
 *
 * No `devices` or `multi-gpu`: PocMatcher runs on one GPU
 * (DeviceOptions::devices[0]), so a device list would promise a sharing of
 * the work that does not happen. device-id picks that GPU.
 *
 * window-size must be an FFT size the kernels handle, 2^a 3^b 5^c. As for
 * blockmatchme's `devices`, and as GStreamer elements usually do, a bad
 * value is accepted when set and reported as a RESOURCE/SETTINGS element
 * error where it is used: at start, at caps, or on the next frame when it
 * was set while playing (check_settings).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpocme.h"

#include <memory>
#include <vector>

#include "common/gstmatchsettings.h"
#include "match/poc.h"

GST_DEBUG_CATEGORY_STATIC (gst_poc_me_debug);
#define GST_CAT_DEFAULT gst_poc_me_debug

#define DEFAULT_PROP_WINDOW_SIZE 64
#define DEFAULT_PROP_SPACING 16
#define DEFAULT_PROP_LAYERS 3
#define DEFAULT_PROP_WINDOW GST_POC_WINDOW_HANN
/* 0.75, not 1 (off): measured in docs/pocme.md ("Choosing lowpass"): on
 * noisy shifts and in the worst blocks it is better at every window size,
 * on Middlebury/Sintel EPE within 0.02 px of the best. */
#define DEFAULT_PROP_LOWPASS 0.75
#define DEFAULT_PROP_MIN_CONFIDENCE 0.0
#define DEFAULT_PROP_DIRECTION GST_MOTION_VECTORS_DIRECTION_BACKWARD
#define DEFAULT_PROP_MAX_DISPLACEMENT 0
#define DEFAULT_PROP_ROBUST TRUE
#define DEFAULT_PROP_MEDIAN FALSE
/* shared-median with 3 layers: fewer outliers and half the GPU time of the
 * paper's 2 per-block layers (PocConfig::coarse; docs/pocme.md, "Shared
 * coarse layers"). */
#define DEFAULT_PROP_COARSE GST_POC_COARSE_SHARED_MEDIAN
/* Longer than any reach ((256 / 2 - 1) x 2^3 = 1016 px). */
#define MAX_MAX_DISPLACEMENT 4096

#define MIN_WINDOW_SIZE match::kMinPocWindowSize
#define MAX_WINDOW_SIZE match::kMaxPocWindowSize
#define MIN_SPACING match::kMinPocSpacing
#define MAX_SPACING match::kMaxPocSpacing
#define MAX_LAYERS match::kMaxPocLayers
/* Below this the low-pass keeps about one frequency bin per axis even for
 * the largest window (0.01 x 128 bins to Nyquist). */
#define MIN_LOWPASS 0.01

/* The ids below GST_MATCH_FILTER_N_PROPS are the base class's. */
enum
{
  PROP_0 = GST_MATCH_FILTER_N_PROPS,
  PROP_WINDOW_SIZE,
  PROP_SPACING,
  PROP_LAYERS,
  PROP_WINDOW,
  PROP_LOWPASS,
  PROP_MIN_CONFIDENCE,
  PROP_DIRECTION,
  PROP_MAX_DISPLACEMENT,
  PROP_ROBUST,
  PROP_MEDIAN,
  PROP_COARSE,
};

/* Plain copyable settings, read under the object lock and used unlocked.
 * Their properties are installed with their fields (gstmatchsettings.h). */
struct Settings
{
  guint window_size;
  guint spacing;
  guint layers;
  GstPocWindow window;
  gdouble lowpass;
  gdouble min_confidence;
  GstMotionVectorsDirection direction;
  guint max_displacement;
  gboolean robust;
  gboolean median;
  GstPocCoarse coarse;
};

/* Properties kept in Settings: the field. */
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

/* Streaming-thread state: the matcher, built at set_info (create_matcher). */
struct State
{
  std::unique_ptr < match::PocMatcher > matcher;
  std::vector < match::PocVector > vectors;
};

struct _GstPocMe
{
  GstMatchFilter parent;

  Settings settings;            /* protected by the object lock */
  State *state;                 /* streaming thread only */
};

#define gst_poc_me_parent_class parent_class
G_DEFINE_TYPE (GstPocMe, gst_poc_me, GST_TYPE_MATCH_FILTER);
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

GType
gst_poc_coarse_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_POC_COARSE_PER_BLOCK, "Each block searches its own coarser layers",
        "per-block"},
    {GST_POC_COARSE_SHARED, "Coarser layers searched once on their own grid",
        "shared"},
    {GST_POC_COARSE_SHARED_MEDIAN, "Shared coarser layers, prediction from "
          "the median of the 3x3 coarser blocks", "shared-median"},
    {0, NULL, NULL}
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstPocCoarse", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

static void gst_poc_me_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_poc_me_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_poc_me_finalize (GObject * object);
static gboolean gst_poc_me_check_settings (GstMatchFilter * filter);
static match::Status gst_poc_me_probe (GstMatchFilter * filter,
    const match::DeviceOptions & devices);
static match::Status gst_poc_me_create_matcher (GstMatchFilter * filter,
    const GstVideoInfo * info, match::Backend backend,
    const match::DeviceOptions & devices, GstMatchFilterMatcherInfo * out);
static void gst_poc_me_release_matcher (GstMatchFilter * filter);
static void gst_poc_me_reset_matcher (GstMatchFilter * filter);
static gboolean gst_poc_me_config_changed (GstMatchFilter * filter,
    const GstVideoInfo * info);
static match::Status gst_poc_me_reconfigure (GstMatchFilter * filter,
    const GstVideoInfo * info);
static match::Status gst_poc_me_submit (GstMatchFilter * filter,
    const match::ImageView * luma, const match::DeviceImageView * device_luma,
    guint n_threads);
static match::Status gst_poc_me_collect (GstMatchFilter * filter,
    GstBuffer * buf, GstClockTime reference_pts, GstMotionVectorsMeta ** meta);

static void
gst_poc_me_class_init (GstPocMeClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstMatchFilterClass *match_class = GST_MATCH_FILTER_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  GstMatchFilterProperties base_props = { };

  gobject_class->set_property = gst_poc_me_set_property;
  gobject_class->get_property = gst_poc_me_get_property;
  gobject_class->finalize = gst_poc_me_finalize;

  gst_match_settings_install (gobject_class, PROP_WINDOW_SIZE,
      SETTING (window_size),
      g_param_spec_uint ("window-size", "Window size",
          "Side N of the N x N POC window centred on each block, in pixels; "
          "must be of the form 2^a 3^b 5^c (32, 48, 64, 96, 128, 256...): "
          "other values fail with a settings error when used", MIN_WINDOW_SIZE,
          MAX_WINDOW_SIZE, DEFAULT_PROP_WINDOW_SIZE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_SPACING,
      SETTING (spacing),
      g_param_spec_uint ("spacing", "Spacing",
          "One vector per spacing x spacing block (the meta's block size), "
          "in pixels", MIN_SPACING, MAX_SPACING, DEFAULT_PROP_SPACING,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_LAYERS,
      SETTING (layers),
      g_param_spec_uint ("layers", "Layers",
          "Coarser layers of the hierarchical search (2x2 averaging each); "
          "0 = single-layer POC", 0, MAX_LAYERS, DEFAULT_PROP_LAYERS,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_WINDOW,
      SETTING (window),
      g_param_spec_enum ("window", "Window",
          "Weighting of each POC window before its FFT", GST_TYPE_POC_WINDOW,
          DEFAULT_PROP_WINDOW, rw_playing));
  gst_match_settings_install (gobject_class, PROP_LOWPASS,
      SETTING (lowpass),
      g_param_spec_double ("lowpass", "Low-pass",
          "Spectral weight: frequencies beyond lowpass x Nyquist (per axis) "
          "are ignored; 1 = off (default 0.75: see docs/pocme.md)", MIN_LOWPASS, 1.0, DEFAULT_PROP_LOWPASS,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_MIN_CONFIDENCE,
      SETTING (min_confidence),
      g_param_spec_double ("min-confidence", "Minimum confidence",
          "Vectors whose confidence (POC peak height) is below this are "
          "flagged unreliable (and kept); 0 = off", 0.0, 1.0,
          DEFAULT_PROP_MIN_CONFIDENCE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_DIRECTION,
      SETTING (direction),
      g_param_spec_enum ("direction", "Direction",
          "forward: blocks tile the previous frame, vectors say where they "
          "went; backward: blocks tile the current frame, vectors say where "
          "they came from", GST_TYPE_MOTION_VECTORS_DIRECTION,
          DEFAULT_PROP_DIRECTION, rw_playing));
  gst_match_settings_install (gobject_class, PROP_MAX_DISPLACEMENT,
      SETTING (max_displacement),
      g_param_spec_uint ("max-displacement", "Maximum displacement",
          "Longest vector returned, in pixels; 0 = the reach of window-size "
          "and layers, (window-size / 2 - 1) x 2^layers, which also caps "
          "larger values (docs/pocme.md)", 0, MAX_MAX_DISPLACEMENT,
          DEFAULT_PROP_MAX_DISPLACEMENT, rw_playing));
  gst_match_settings_install (gobject_class, PROP_ROBUST,
      SETTING (robust),
      g_param_spec_boolean ("robust", "Robust",
          "Check each block's POC vector against its 8 neighbours' by the "
          "block's pixels (zero-mean SAD) and keep the best (docs/pocme.md)",
          DEFAULT_PROP_ROBUST, rw_playing));
  gst_match_settings_install (gobject_class, PROP_MEDIAN,
      SETTING (median),
      g_param_spec_boolean ("median", "Median",
          "Replace outliers by the confidence-weighted vector median of the "
          "3x3 blocks around them (docs/pocme.md)", DEFAULT_PROP_MEDIAN,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_COARSE,
      SETTING (coarse),
      g_param_spec_enum ("coarse", "Coarse layers",
          "per-block: each block searches its own coarser layers; shared: "
          "the coarser layers are searched once on a grid of their own, "
          "about 1/4 as many POCs per layer; shared-median: shared, each "
          "prediction the median of 3x3 coarser blocks (docs/pocme.md)",
          GST_TYPE_POC_COARSE,
          DEFAULT_PROP_COARSE, rw_playing));
  base_props.backend = "Compute backend: auto picks CUDA when a device "
      "opens and a CUDA POC implementation exists, else CPU";
  base_props.device_id = "CUDA device ordinal used by backend=cuda/auto";
  base_props.pipeline_depth = "Frames held while the backend works on them "
      "(0 = synchronous): buffers leave this many frames late, with the same "
      "vectors. Added to the reported latency";
  base_props.active_backend = "The backend in use, e.g. \"cpu (...)\"; NULL "
      "until the first caps after start";
  /* One GPU (see the notes at the top): no devices / multi-gpu. */
  base_props.multi_gpu = FALSE;
  gst_match_filter_class_install_properties (match_class, &base_props);

  gst_element_class_set_static_metadata (element_class,
      "Phase-correlation motion estimation", "Filter/Analyzer/Video",
      "Estimates sub-pixel motion vectors with a confidence each by "
      "hierarchical phase-only correlation and attaches them as "
      "GstMotionVectorsMeta", "gst-motion authors");

  match_class->what = "phase correlation";
  match_class->check_settings = GST_DEBUG_FUNCPTR (gst_poc_me_check_settings);
  match_class->probe = GST_DEBUG_FUNCPTR (gst_poc_me_probe);
  match_class->create_matcher = GST_DEBUG_FUNCPTR (gst_poc_me_create_matcher);
  match_class->release_matcher =
      GST_DEBUG_FUNCPTR (gst_poc_me_release_matcher);
  match_class->reset_matcher = GST_DEBUG_FUNCPTR (gst_poc_me_reset_matcher);
  match_class->config_changed = GST_DEBUG_FUNCPTR (gst_poc_me_config_changed);
  match_class->reconfigure = GST_DEBUG_FUNCPTR (gst_poc_me_reconfigure);
  match_class->submit = GST_DEBUG_FUNCPTR (gst_poc_me_submit);
  match_class->collect = GST_DEBUG_FUNCPTR (gst_poc_me_collect);

  gst_type_mark_as_plugin_api (GST_TYPE_POC_WINDOW, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_POC_COARSE, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_poc_me_debug, "pocme", 0,
      "Phase-correlation motion estimation");
}

static void
gst_poc_me_init (GstPocMe * self)
{
  /* The ids up to GST_MATCH_FILTER_N_PROPS are the base class's. */
  gst_match_settings_init_ids (G_OBJECT_GET_CLASS (self), &self->settings,
      GST_MATCH_FILTER_N_PROPS + 1, G_MAXUINT);
  self->state = new State ();
}

static void
gst_poc_me_finalize (GObject * object)
{
  GstPocMe *self = GST_POC_ME (object);

  delete self->state;
  self->state = nullptr;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_poc_me_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstPocMe *self = GST_POC_ME (object);

  if (prop_id <= GST_MATCH_FILTER_N_PROPS) {
    G_OBJECT_CLASS (parent_class)->set_property (object, prop_id, value,
        pspec);
    return;
  }
  /* window-size is kept as given; checked where it is used (see
   * check_window_size). */
  GST_OBJECT_LOCK (self);
  if (!gst_match_settings_set (&self->settings, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_poc_me_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstPocMe *self = GST_POC_ME (object);

  if (prop_id <= GST_MATCH_FILTER_N_PROPS) {
    G_OBJECT_CLASS (parent_class)->get_property (object, prop_id, value,
        pspec);
    return;
  }
  GST_OBJECT_LOCK (self);
  if (!gst_match_settings_get (&self->settings, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
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
  c.max_displacement = (int) s.max_displacement;
  c.robust = s.robust ? true : false;
  c.median = s.median ? true : false;
  switch (s.coarse) {
    case GST_POC_COARSE_SHARED:
      c.coarse = match::PocCoarse::kShared;
      break;
    case GST_POC_COARSE_SHARED_MEDIAN:
      c.coarse = match::PocCoarse::kSharedMedian;
      break;
    default:
      c.coarse = match::PocCoarse::kPerBlock;
      break;
  }
  return c;
}

/* Posts a RESOURCE/SETTINGS error and returns FALSE when window-size is not
 * an FFT size. */
static gboolean
gst_poc_me_check_settings (GstMatchFilter * filter)
{
  GstPocMe *self = GST_POC_ME (filter);
  const Settings s = snapshot_settings (self);

  if (match::is_poc_fft_size ((int) s.window_size))
    return TRUE;
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("Invalid window-size %u: the POC window must be a size of the form "
          "2^a 3^b 5^c, e.g. 32, 48, 64, 96, 128, 256", s.window_size),
      ("window-size=%u has a prime factor above 5", s.window_size));
  return FALSE;
}

/* Where POC runs on CUDA: the frame size is not known at start; one
 * window's worth stands in for it. */
static match::Status
gst_poc_me_probe (GstMatchFilter * filter, const match::DeviceOptions & devices)
{
  const Settings s = snapshot_settings (GST_POC_ME (filter));
  std::unique_ptr < match::PocMatcher > probe;

  return match::PocMatcher::create (match::Backend::kCuda, make_config (s,
          (int) s.window_size, (int) s.window_size), &probe, devices);
}

static match::Status
gst_poc_me_create_matcher (GstMatchFilter * filter, const GstVideoInfo * info,
    match::Backend backend, const match::DeviceOptions & devices,
    GstMatchFilterMatcherInfo * out)
{
  GstPocMe *self = GST_POC_ME (filter);
  State *st = self->state;
  const match::PocConfig cfg = make_config (snapshot_settings (self),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));
  std::unique_ptr < match::PocMatcher > matcher;

  match::Status status = match::PocMatcher::create (backend, cfg, &matcher,
      devices);
  if (!status)
    return status;
  GST_INFO_OBJECT (self, "%dx%d grid, window %d, %d layer(s)",
      cfg.columns (), cfg.rows (), cfg.window_size, cfg.layers);
  out->backend = matcher->backend ();
  out->description = matcher->description ();
  out->max_in_flight = matcher->max_in_flight ();
  st->matcher = std::move (matcher);
  st->vectors.assign (cfg.num_blocks (), match::PocVector ());
  return status;
}

static void
gst_poc_me_release_matcher (GstMatchFilter * filter)
{
  GST_POC_ME (filter)->state->matcher.reset ();
}

static void
gst_poc_me_reset_matcher (GstMatchFilter * filter)
{
  GST_POC_ME (filter)->state->matcher->reset ();
}

static gboolean
gst_poc_me_config_changed (GstMatchFilter * filter, const GstVideoInfo * info)
{
  GstPocMe *self = GST_POC_ME (filter);

  return make_config (snapshot_settings (self), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info)) != self->state->matcher->config ();
}

static match::Status
gst_poc_me_reconfigure (GstMatchFilter * filter, const GstVideoInfo * info)
{
  GstPocMe *self = GST_POC_ME (filter);
  State *st = self->state;
  const match::PocConfig cfg = make_config (snapshot_settings (self),
      GST_VIDEO_INFO_WIDTH (info), GST_VIDEO_INFO_HEIGHT (info));

  GST_DEBUG_OBJECT (self, "reconfiguring: window %d spacing %d layers %d",
      cfg.window_size, cfg.spacing, cfg.layers);
  match::Status status = st->matcher->reconfigure (cfg);
  if (status)
    st->vectors.assign (cfg.num_blocks (), match::PocVector ());
  return status;
}

static match::Status
gst_poc_me_submit (GstMatchFilter * filter, const match::ImageView * luma,
    const match::DeviceImageView * device_luma, guint n_threads)
{
  GstPocMe *self = GST_POC_ME (filter);
  match::PocRuntime rt;

  /* 0 = off: confidences are >= 0, so nothing is flagged. */
  rt.min_confidence = snapshot_settings (self).min_confidence;
  rt.threads = (int) n_threads;
  if (device_luma)
    return self->state->matcher->submit_device (*device_luma, rt);
  return self->state->matcher->submit (*luma, rt);
}

static match::Status
gst_poc_me_collect (GstMatchFilter * filter, GstBuffer * buf,
    GstClockTime reference_pts, GstMotionVectorsMeta ** meta)
{
  State *st = GST_POC_ME (filter)->state;
  const match::PocConfig & cfg = st->matcher->config ();
  bool estimated = false;

  match::Status status = st->matcher->collect (st->vectors.data (),
      &estimated);
  if (!status)
    return status;
  *meta = gst_match_filter_attach_meta (filter, buf, cfg.width, cfg.height,
      cfg.spacing, cfg.spacing, cfg.direction);
  if (!*meta)
    return status;
  (*meta)->reference_timestamp = estimated ? reference_pts :
      GST_CLOCK_TIME_NONE;
  /* Continuous sub-pixel output: no candidate grid (see motionvectors.h). */
  (*meta)->precision = 0.0f;
  (*meta)->method = g_intern_static_string ("poc");
  gst_match_fill_meta_poc (*meta, st->vectors.data (), estimated);
  return status;
}
