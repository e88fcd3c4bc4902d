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
 * x `spacing` block of luma (frames up to 16384x16384) is estimated, with
 * sub-pixel accuracy, from the phase of the cross spectrum of a
 * `window-size` x `window-size` window centred on the block in each of the
 * two frames, searched hierarchically over `layers` coarser layers. Each vector carries the height of its POC
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
 * PocMatcher::submit()/collect()), regions and events, drawing, and the
 * match::PocMatcher itself, which the base class drives through the
 * adapter this file's traits make (common/gstmatchadapter.h).
 *
 * No `devices` or `multi-gpu`: PocMatcher runs on one GPU
 * (DeviceOptions::devices[0]), so a device list would promise a sharing of
 * the work that does not happen. device-id picks that GPU.
 *
 * window-size must be an FFT size the kernels handle, 2^a 3^b 5^c. As for
 * blockmatchme's `devices`, and as GStreamer elements usually do, a bad
 * value is accepted when set and reported as a RESOURCE/SETTINGS element
 * error naming window-size where it is used: at start, at caps, or on the
 * next frame when it was set while playing (the kernels check it,
 * PocConfig::validate(), and name the setting).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstpocme.h"

#include "common/gstmatchadapter.h"
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

/* Plain copyable settings, read under the object lock and used unlocked
 * (they live in the base class's adapter). Their properties are installed
 * with their fields (gstmatchsettings.h). */
struct GstPocMeSettings
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

/* Properties kept in the settings: the field. */
#define SETTING(field) G_STRUCT_OFFSET (GstPocMeSettings, field)

struct _GstPocMe
{
  GstMatchFilter parent;
};

#define gst_poc_me_parent_class parent_class
G_DEFINE_TYPE (GstPocMe, gst_poc_me, GST_TYPE_MATCH_FILTER);
GST_ELEMENT_REGISTER_DEFINE (pocme, "pocme", GST_RANK_NONE, GST_TYPE_POC_ME);

GType
gst_poc_window_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = { { GST_POC_WINDOW_HANN,
                                           "Separable Hann window", "hann" },
    { GST_POC_WINDOW_NONE, "Rectangular (no weighting)", "none" },
    { 0, NULL, NULL } };
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
    { GST_POC_COARSE_PER_BLOCK, "Each block searches its own coarser layers",
        "per-block" },
    { GST_POC_COARSE_SHARED, "Coarser layers searched once on their own grid",
        "shared" },
    { GST_POC_COARSE_SHARED_MEDIAN,
        "Shared coarser layers, prediction from "
        "the median of the 3x3 coarser blocks",
        "shared-median" },
    { 0, NULL, NULL }
  };
  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstPocCoarse", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

/* What is POC's own: the kernels' configuration and runtime values from
 * the settings, and the meta from the vectors (the base class does the
 * rest, gstmatchadapter.h). */
struct GstPocMeTraits
{
  typedef match::PocMatcher Matcher;
  typedef match::PocConfig Config;
  typedef match::PocVector Vector;
  typedef GstPocMeSettings Settings;

  static Config make_config (const Settings & s, int width, int height)
  {
    Config c;
    c.width = width;
    c.height = height;
    c.window_size = (int) s.window_size;
    c.spacing = (int) s.spacing;
    c.layers = (int) s.layers;
    c.window = s.window == GST_POC_WINDOW_NONE ? match::PocWindow::kNone
                                               : match::PocWindow::kHann;
    c.lowpass = s.lowpass;
    c.direction = s.direction == GST_MOTION_VECTORS_DIRECTION_FORWARD
        ? match::Direction::kForward
        : match::Direction::kBackward;
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

  static match::PocRuntime make_runtime (const Settings & s, guint n_threads)
  {
    match::PocRuntime rt;
    /* 0 = off: confidences are >= 0, so nothing is flagged. */
    rt.min_confidence = s.min_confidence;
    rt.threads = (int) n_threads;
    return rt;
  }

  /* Not known: a vector longer than the reach is not returned (no
   * estimate) rather than held at its edge. */
  static void reach (const Config &, int * x, int * y)
  {
    *x = 0;
    *y = 0;
  }

  static bool widen (const Settings &, int, Config *)
  {
    return false;
  }

  static GstMotionVectorsMeta * fill_meta (GstMatchFilter * filter,
      GstBuffer * buf, const Config & c, const Vector * vectors,
      gboolean estimated)
  {
    GstMotionVectorsMeta * meta = gst_match_filter_attach_meta (filter, buf,
        c.width, c.height, c.spacing, c.spacing, c.direction);
    if (!meta)
      return NULL;
    /* Continuous sub-pixel output: no candidate grid (motionvectors.h). */
    meta->precision = 0.0f;
    meta->method = g_intern_static_string ("poc");
    gst_match_fill_meta_poc (meta, vectors, estimated);
    return meta;
  }
};

static GstMatchAdapter *
gst_poc_me_create_adapter (GstMatchFilter * filter)
{
  return new GstMatchAdapterT<GstPocMeTraits> (filter);
}

static void
gst_poc_me_class_init (GstPocMeClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstMatchFilterClass * match_class = GST_MATCH_FILTER_CLASS (klass);
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);

  /* One GPU (see the notes at the top): no devices / multi-gpu. */
  gst_match_filter_class_install_properties (match_class, FALSE);

  gst_match_settings_install (gobject_class, PROP_WINDOW_SIZE,
      SETTING (window_size),
      g_param_spec_uint ("window-size", "Window size",
          "Side N of the N x N POC window centred on each block, in pixels; "
          "must be of the form 2^a 3^b 5^c (32, 48, 64, 96, 128, 256...): "
          "other values fail with a settings error when used",
          MIN_WINDOW_SIZE, MAX_WINDOW_SIZE, DEFAULT_PROP_WINDOW_SIZE,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_SPACING, SETTING (spacing),
      g_param_spec_uint ("spacing", "Spacing",
          "One vector per spacing x spacing block (the meta's block size), "
          "in pixels",
          MIN_SPACING, MAX_SPACING, DEFAULT_PROP_SPACING, rw_playing));
  gst_match_settings_install (gobject_class, PROP_LAYERS, SETTING (layers),
      g_param_spec_uint ("layers", "Layers",
          "Coarser layers of the hierarchical search (2x2 averaging each); "
          "0 = single-layer POC",
          0, MAX_LAYERS, DEFAULT_PROP_LAYERS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_WINDOW, SETTING (window),
      g_param_spec_enum ("window", "Window",
          "Weighting of each POC window before its FFT", GST_TYPE_POC_WINDOW,
          DEFAULT_PROP_WINDOW, rw_playing));
  gst_match_settings_install (gobject_class, PROP_LOWPASS, SETTING (lowpass),
      g_param_spec_double ("lowpass", "Low-pass",
          "Spectral weight: frequencies beyond lowpass x Nyquist (per axis) "
          "are ignored; 1 = off (default 0.75: see docs/pocme.md)",
          MIN_LOWPASS, 1.0, DEFAULT_PROP_LOWPASS, rw_playing));
  gst_match_settings_install (gobject_class, PROP_MIN_CONFIDENCE,
      SETTING (min_confidence),
      g_param_spec_double ("min-confidence", "Minimum confidence",
          "Vectors whose confidence (POC peak height) is below this are "
          "flagged unreliable (and kept); 0 = off",
          0.0, 1.0, DEFAULT_PROP_MIN_CONFIDENCE, rw_playing));
  gst_match_settings_install (gobject_class, PROP_DIRECTION,
      SETTING (direction),
      g_param_spec_enum ("direction", "Direction",
          "forward: blocks tile the previous frame, vectors say where they "
          "went; backward: blocks tile the current frame, vectors say where "
          "they came from",
          GST_TYPE_MOTION_VECTORS_DIRECTION, DEFAULT_PROP_DIRECTION,
          rw_playing));
  gst_match_settings_install (gobject_class, PROP_MAX_DISPLACEMENT,
      SETTING (max_displacement),
      g_param_spec_uint ("max-displacement", "Maximum displacement",
          "Longest vector returned, in pixels; 0 = the reach of window-size "
          "and layers, (window-size / 2 - 1) x 2^layers, which also caps "
          "larger values (docs/pocme.md)",
          0, MAX_MAX_DISPLACEMENT, DEFAULT_PROP_MAX_DISPLACEMENT, rw_playing));
  gst_match_settings_install (gobject_class, PROP_ROBUST, SETTING (robust),
      g_param_spec_boolean ("robust", "Robust",
          "Check each block's POC vector against its 8 neighbours' by the "
          "block's pixels (zero-mean SAD) and keep the best (docs/pocme.md)",
          DEFAULT_PROP_ROBUST, rw_playing));
  gst_match_settings_install (gobject_class, PROP_MEDIAN, SETTING (median),
      g_param_spec_boolean ("median", "Median",
          "Replace outliers by the confidence-weighted vector median of the "
          "3x3 blocks around them (docs/pocme.md)",
          DEFAULT_PROP_MEDIAN, rw_playing));
  gst_match_settings_install (gobject_class, PROP_COARSE, SETTING (coarse),
      g_param_spec_enum ("coarse", "Coarse layers",
          "per-block: each block searches its own coarser layers; shared: "
          "the coarser layers are searched once on a grid of their own, "
          "about 1/4 as many POCs per layer; shared-median: shared, each "
          "prediction the median of 3x3 coarser blocks (docs/pocme.md)",
          GST_TYPE_POC_COARSE, DEFAULT_PROP_COARSE, rw_playing));
  gst_element_class_set_static_metadata (element_class,
      "Phase-correlation motion estimation", "Filter/Analyzer/Video",
      "Estimates sub-pixel motion vectors with a confidence each by "
      "hierarchical phase-only correlation and attaches them as "
      "GstMotionVectorsMeta",
      "gst-motion authors");

  match_class->what = "phase correlation";
  match_class->create_adapter = GST_DEBUG_FUNCPTR (gst_poc_me_create_adapter);

  gst_type_mark_as_plugin_api (GST_TYPE_POC_WINDOW, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_POC_COARSE, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_poc_me_debug, "pocme", 0,
      "Phase-correlation motion estimation");
}

static void
gst_poc_me_init (GstPocMe *)
{
  /* The settings are the base class's adapter's (create_adapter). */
}
