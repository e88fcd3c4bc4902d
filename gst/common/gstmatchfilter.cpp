/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
/* How it works (the elements' docs say what users see: docs/blockmatchme.md
 * "Pipelining", docs/cuda-memory.md).
 *
 * Why generate_output is overridden instead of transform_ip: pipelining.
 * Each input buffer is made metadata-writable, its luma handed to the
 * adapter's submit() and the buffer kept in the held ring
 * (common/gstmatchheld.h); a buffer leaves (meta attached, drawn if asked)
 * once its results have been collected, i.e. when more than `depth`
 * frames are held. With depth 0 that is at once: the synchronous
 * behaviour. The CUDA backend uploads frame n + 1 while it searches frame
 * n; multi-gpu=serial needs one frame in flight per extra device. Results
 * are collected in submission order, so output order, timestamps and
 * vectors are those of the synchronous mode.
 *
 * The decision (regions, tracks, events: mvevents.h) runs on a worker
 * thread of the element's when the CUDA backend computes (so submit only
 * uploads and launches) and pipeline-depth >= 1: at 1080p its host work
 * outweighs the upload. It runs behind the matcher: the matcher holds
 * depth - 1 frames (at depth 1 none: the new frame is collected once
 * submitted), the worker decides the depth-th while the streaming thread
 * collects the next one, submits the new one and pushes the frame decided
 * before, and that frame leaves with the next input. The latency is
 * unchanged and buffers and in-band events keep their order (the decision
 * keeps its events until its frame leaves).
 *
 * The frame is mapped read-only to compute (GstVideoFilter would map every
 * frame for writing, which copies the image when its memory is shared,
 * e.g. after a tee); only drawing maps it for writing, at collect time, on
 * the buffer the vectors belong to.
 *
 * CUDA memory (zero copy; the context rules are in common/gstmatchcuda.h
 * and docs/cuda-memory.md): from NULL->READY on, the element offers a
 * GstCudaContext wrapping the primary context of its (first) device, the
 * one the CUDA backend runs in, so that decoders opening after it (state
 * changes go from sink to source) allocate their frames there. Such a frame
 * is mapped with GST_MAP_CUDA and handed to the adapter's submit() as a
 * device view (one device-to-device copy, no trip through host memory).
 * Any other frame in CUDA memory (another context, or the CPU backend after
 * auto fell back) is mapped for reading in system memory, which makes
 * gstcuda download it: correct, slower, logged once. backend=cpu, or no
 * driver or device, removes the CUDA-memory caps in transform_caps, so
 * negotiation picks system memory. draw= maps the frame for writing in
 * system memory, as for any buffer: gstcuda downloads it and uploads the
 * drawing again at the next CUDA map downstream (logged once). Output caps
 * = input caps, memory feature included.
 *
 * Held buffers and events: a serialized event (EOS, SEGMENT, TAG, GAP, ...)
 * first pushes every held buffer with its results, so buffers and events
 * keep their order; so do a caps change (set_info), a DISCONT buffer and a
 * setting change that reconfigures the matcher (reconfigure() needs nothing
 * in flight). A flush or stop() discards them and resets the matcher.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchfilter.h"

#include <cmath>
#include <vector>

#include "common/gstmatchadapter.h"
#include "common/gstmatchcuda.h"
#include "common/gstmatchframe.h"
#include "common/gstmatchheld.h"
#include "common/gstmatchsettings.h"
#include "common/gstmatchworker.h"
#include "common/mvevents.h"
#include "common/mvoverlay.h"

GST_DEBUG_CATEGORY_STATIC (gst_match_filter_debug);
#define GST_CAT_DEFAULT gst_match_filter_debug

#define DEFAULT_PROP_DRAW GST_MV_DRAW_NONE

/* Properties kept in Settings: the field. */
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

enum
{
  PROP_0,
  PROP_DRAW,
  /* GST_MATCH_BACKEND_N_PROPS ids from here: backend, device-id...
   * (gstmatchbackend.h) */
  PROP_BACKEND_FIRST,
  /* GST_MV_EVENTS_N_PROPS ids from here: regions, events... (mvevents.h) */
  PROP_MV_EVENTS_FIRST = PROP_BACKEND_FIRST + GST_MATCH_BACKEND_N_PROPS,
};

G_STATIC_ASSERT (PROP_MV_EVENTS_FIRST + GST_MV_EVENTS_N_PROPS - 1
    <= GST_MATCH_FILTER_N_PROPS);

namespace {

/* Plain copyable settings, read under the object lock and used unlocked.
 * Their properties are installed with their fields (gstmatchsettings.h).
 * (The backend set's strings live beside it: they are not copied per
 * frame.) */
struct Settings
{
  GstMvDrawMode draw;
  GstMatchBackendSettings backend;
};

/* What the matcher tells when it is made. */
struct MatcherInfo
{
  match::Backend backend = match::Backend::kCpu; /* the one running */
  int max_in_flight = match::kMaxInFlight;       /* bounds pipeline-depth */
};

/* A buffer whose results are still with the matcher (owned). */
struct Held
{
  GstBuffer * buf = nullptr;                  /* metadata-writable */
  GstClockTime ref_pts = GST_CLOCK_TIME_NONE; /* PTS of its reference */

  Held () = default;
  Held (GstBuffer * b, GstClockTime r) : buf (b), ref_pts (r)
  {
  }
  Held (Held && o) noexcept : buf (o.buf), ref_pts (o.ref_pts)
  {
    o.buf = nullptr;
  }
  Held & operator= (Held && o) noexcept
  {
    if (this != &o) {
      gst_clear_buffer (&buf);
      buf = o.buf;
      ref_pts = o.ref_pts;
      o.buf = nullptr;
    }
    return *this;
  }
  ~Held ()
  {
    gst_clear_buffer (&buf);
  }
};

/* A collected frame on its way out: its vectors are in, the decision
 * (regions, tracks, events) and the drawing are still to come. */
struct Finishing
{
  GstMatchFilter * self = nullptr;
  GstBuffer * buf = nullptr; /* owned */
  GstMotionVectorsMeta * meta = nullptr;
  guint64 pixels = G_MAXUINT64; /* its number in the decision's pixel stage */
  /* Where its decision keeps its in-band events (decided behind), or
   * null: they are pushed at once. */
  GPtrArray * deferred = nullptr;
  /* Its camera as the decision saw it (gst_mv_events_camera ()), for
   * follow_shake (). */
  gboolean decided = FALSE, beyond = FALSE;
  gdouble camera_x = 0.0, camera_y = 0.0;
};

/* Unrefs the events of `deferred` and empties it. */
static void
drop_deferred (GPtrArray * deferred)
{
  for (guint i = 0; i < deferred->len; i++)
    gst_event_unref ((GstEvent *) g_ptr_array_index (deferred, i));
  g_ptr_array_set_size (deferred, 0);
}

/* Streaming-thread state, built in start (or the first set_info), dropped
 * in stop. */
struct State
{
  GstMatchHeld<Held> held;
  /* Decides behind the matcher (decide_behind): `behind` is the frame it
   * decides, its in-band events go to `deferred`. */
  GstMatchWorker decider;
  Finishing behind;
  GPtrArray * deferred = g_ptr_array_new ();
  /* GST_MATCH_DECIDE_BEHIND set: the CPU backend decides behind too, so
   * that the tests exercise it on machines without a GPU. */
  bool behind_on_cpu = g_getenv ("GST_MATCH_DECIDE_BEHIND") != NULL;

  /* Once the worker is done: the frame decided behind is dropped, with its
   * in-band events (a flush, stop). */
  void drop_behind ()
  {
    decider.wait ();
    gst_clear_buffer (&behind.buf);
    behind = Finishing ();
    drop_deferred (deferred);
  }

  std::vector<uint8_t> luma;
  GstBufferPool * pool = nullptr; /* storage of the metas' vectors */
  guint pool_vectors = 0;
  GstClockTime prev_pts = GST_CLOCK_TIME_NONE; /* last submitted frame */
  guint64 next_pixels = 0; /* numbers the frames given to mvevents */

  bool have_matcher = false;
  MatcherInfo matcher;
  int device = 0;           /* the (first) CUDA device it uses */
  int min_depth = 0;        /* serial multi-GPU: devices - 1 */
  bool cuda_memory = false; /* negotiated memory:CUDAMemory */
  bool logged_cuda_draw = false;
  bool logged_device_refused = false;
  guint calm = 0; /* follow_shake ()'s frames calm, the search widened */

  /* The setup whose error was posted last: these caps with the settings
   * as they were at property change `failed_changes`. */
  bool failed = false;
  GstVideoInfo failed_info;
  guint failed_changes = 0;

  ~State ()
  {
    drop_behind ();
    g_ptr_array_unref (deferred);
    if (pool) {
      gst_buffer_pool_set_active (pool, FALSE);
      gst_object_unref (pool);
    }
  }
};

}  // namespace

typedef struct
{
  Settings settings;                /* protected by the object lock */
  GstMatchBackendStrings * strings; /* protected by the object lock */
  GstMatchAdapter * adapter;        /* the subclass's settings and matcher */
  GstClockTime latency;             /* protected by the object lock */
  guint changes;                    /* property changes; object lock */
  State * state;                    /* streaming thread only */
  GstMvEvents * mvevents;           /* regions and motion events */
  GstMatchCuda * cuda; /* CUDA memory: offered context (own lock) */
} GstMatchFilterPrivate;

#define gst_match_filter_parent_class parent_class
G_DEFINE_ABSTRACT_TYPE_WITH_PRIVATE (GstMatchFilter, gst_match_filter,
    GST_TYPE_VIDEO_FILTER);

#define PRIV(self)                                                             \
  ((GstMatchFilterPrivate *) gst_match_filter_get_instance_private (           \
      GST_MATCH_FILTER (self)))
#define CLASS(self) GST_MATCH_FILTER_GET_CLASS (self)

/* System memory, and video/x-raw(memory:CUDAMemory) when built with gstcuda
 * (GST_MATCH_CAPS); transform_caps drops the latter where it cannot be
 * used. */
static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MATCH_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_MATCH_CAPS));

static void gst_match_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_match_filter_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_match_filter_constructed (GObject * object);
static void gst_match_filter_dispatch_properties_changed (GObject * object,
    guint n_pspecs, GParamSpec ** pspecs);
static void gst_match_filter_finalize (GObject * object);
static GstStateChangeReturn gst_match_filter_change_state (GstElement * element,
    GstStateChange transition);
static void gst_match_filter_set_context (GstElement * element,
    GstContext * context);
static GstCaps * gst_match_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter);
static gboolean gst_match_filter_start (GstBaseTransform * trans);
static gboolean gst_match_filter_stop (GstBaseTransform * trans);
static gboolean gst_match_filter_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_match_filter_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn gst_match_filter_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);
static gboolean gst_match_filter_set_info (GstVideoFilter * filter,
    GstCaps * incaps, GstVideoInfo * in_info, GstCaps * outcaps,
    GstVideoInfo * out_info);

static void
gst_match_filter_class_init (GstMatchFilterClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  GstVideoFilterClass * filter_class = GST_VIDEO_FILTER_CLASS (klass);

  gobject_class->set_property = gst_match_filter_set_property;
  gobject_class->get_property = gst_match_filter_get_property;
  gobject_class->constructed = gst_match_filter_constructed;
  gobject_class->dispatch_properties_changed =
      gst_match_filter_dispatch_properties_changed;
  gobject_class->finalize = gst_match_filter_finalize;

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);

  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_match_filter_change_state);
  element_class->set_context = GST_DEBUG_FUNCPTR (gst_match_filter_set_context);

  trans_class->transform_caps =
      GST_DEBUG_FUNCPTR (gst_match_filter_transform_caps);
  trans_class->start = GST_DEBUG_FUNCPTR (gst_match_filter_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_match_filter_stop);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_match_filter_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_match_filter_query);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_match_filter_generate_output);
  filter_class->set_info = GST_DEBUG_FUNCPTR (gst_match_filter_set_info);

  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_FILTER, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_BACKEND, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_MULTI_GPU, (GstPluginAPIFlags) 0);
  gst_type_mark_as_plugin_api (GST_TYPE_MV_DRAW_MODE, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_match_filter_debug, "matchfilter", 0,
      "Motion estimators' base class");
  gst_match_install_log_bridge ();
}

void
gst_match_filter_class_install_properties (GstMatchFilterClass * klass,
    gboolean multi_gpu)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);

  gobject_class->set_property = gst_match_filter_set_property;
  gobject_class->get_property = gst_match_filter_get_property;
  gst_match_settings_install (gobject_class, PROP_DRAW, SETTING (draw),
      g_param_spec_enum ("draw", "Draw", "Draw the motion field on the video",
          GST_TYPE_MV_DRAW_MODE, DEFAULT_PROP_DRAW,
          (GParamFlags) (G_PARAM_READWRITE | G_PARAM_STATIC_STRINGS
              | GST_PARAM_MUTABLE_PLAYING)));
  gst_match_backend_install_properties (gobject_class, PROP_BACKEND_FIRST,
      SETTING (backend), multi_gpu);
  gst_mv_events_install_properties (gobject_class, PROP_MV_EVENTS_FIRST);
}

static void
gst_match_filter_init (GstMatchFilter * self)
{
  GstMatchFilterPrivate * priv = PRIV (self);

  /* The settings get their defaults in constructed; multi-gpu is not
   * installed on every subclass (pocme), its default stands alone. */
  priv->settings.backend.multi_gpu = GST_MATCH_MULTI_GPU_PARALLEL;
  priv->strings = new GstMatchBackendStrings ();
  priv->mvevents = gst_mv_events_new ();
  priv->cuda = gst_match_cuda_new ();

  /* In place: the meta is added to the (metadata-writable) input buffer;
   * pixels are only written when drawing. This also keeps the base class
   * from setting up an output pool. */
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

/* The properties are installed on the subclass (class_install_properties),
 * which the instance init above does not see (GObject runs it with this
 * class): the subclass's adapter is made and the defaults of the settings'
 * properties (the base class's and the subclass's) set here, before any
 * property is set. */
static void
gst_match_filter_constructed (GObject * object)
{
  GstMatchFilterPrivate * priv = PRIV (object);
  GObjectClass * klass = G_OBJECT_GET_CLASS (object);

  priv->adapter = CLASS (object)->create_adapter (GST_MATCH_FILTER (object));
  gst_match_settings_init_ids (klass, &priv->settings, 1,
      GST_MATCH_FILTER_N_PROPS);
  gst_match_settings_init_ids (klass, priv->adapter->settings (),
      GST_MATCH_FILTER_N_PROPS + 1, G_MAXUINT);
  G_OBJECT_CLASS (parent_class)->constructed (object);
}

static void
gst_match_filter_finalize (GObject * object)
{
  GstMatchFilterPrivate * priv = PRIV (object);

  delete priv->state;
  priv->state = nullptr;
  delete priv->adapter;
  delete priv->strings;
  gst_mv_events_free (priv->mvevents);
  gst_match_cuda_free (priv->cuda);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* Every property of the base class and the subclass: the base class's
 * settings and strings, the region/event properties, the subclass's
 * settings (in its adapter). */
static void
gst_match_filter_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMatchFilterPrivate * priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  if (prop_id > GST_MATCH_FILTER_N_PROPS) {
    if (!gst_match_settings_set (priv->adapter->settings (), pspec, value))
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  } else if (!gst_match_backend_set_string (priv->strings, pspec, value)
      && !gst_match_settings_set (&priv->settings, pspec, value)
      && !gst_mv_events_set_property (priv->mvevents, object,
          PROP_MV_EVENTS_FIRST, prop_id, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (object);
}

static void
gst_match_filter_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMatchFilterPrivate * priv = PRIV (object);

  GST_OBJECT_LOCK (object);
  if (prop_id > GST_MATCH_FILTER_N_PROPS) {
    if (!gst_match_settings_get (priv->adapter->settings (), pspec, value))
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  } else if (!gst_match_backend_get_string (priv->strings, pspec, value)
      && !gst_match_settings_get (&priv->settings, pspec, value)
      && !gst_mv_events_get_property (priv->mvevents, PROP_MV_EVENTS_FIRST,
          prop_id, value)) {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
  GST_OBJECT_UNLOCK (object);
}

/* Every property set, the subclass's included, notifies: counted, so that
 * set_info can tell a setup that failed before from one with new settings
 * (see State::failed). */
static void
gst_match_filter_dispatch_properties_changed (GObject * object, guint n_pspecs,
    GParamSpec ** pspecs)
{
  GstMatchFilterPrivate * priv = PRIV (object);

  for (guint i = 0; i < n_pspecs; i++) {
    if (pspecs[i]->flags & G_PARAM_WRITABLE) {
      GST_OBJECT_LOCK (object);
      priv->changes++;
      GST_OBJECT_UNLOCK (object);
      break;
    }
  }
  G_OBJECT_CLASS (parent_class)
      ->dispatch_properties_changed (object, n_pspecs, pspecs);
}

static Settings
snapshot_settings (GstMatchFilter * self, guint * changes = nullptr)
{
  GstMatchFilterPrivate * priv = PRIV (self);

  GST_OBJECT_LOCK (self);
  Settings s = priv->settings;
  if (changes)
    *changes = priv->changes;
  GST_OBJECT_UNLOCK (self);
  return s;
}

/* CUDA memory is negotiated only where the device path can run: backend
 * cuda or auto, gstcuda built in and able to load the driver, the device
 * present. Elsewhere (backend=cpu, no driver, no GPU) transform_caps drops
 * it, so that upstream falls back to system memory. */
static gboolean
cuda_memory_allowed (GstMatchFilter * self, const Settings & s)
{
  return gst_match_cuda_memory_allowed (s.backend.backend,
      gst_match_backend_first_device (GST_ELEMENT (self), s.backend,
          PRIV (self)->strings));
}

/* The device whose primary context is offered from NULL->READY on. */
static gint
cuda_memory_device (GstElement * element)
{
  GstMatchFilter * self = GST_MATCH_FILTER (element);
  const Settings s = snapshot_settings (self);

  return cuda_memory_allowed (self, s)
      ? gst_match_backend_first_device (element, s.backend,
          PRIV (self)->strings)
      : -1;
}

static GstStateChangeReturn
gst_match_filter_change_state (GstElement * element, GstStateChange transition)
{
  return gst_match_cuda_change_state (PRIV (element)->cuda, element, transition,
      GST_ELEMENT_CLASS (parent_class), cuda_memory_device);
}

static void
gst_match_filter_set_context (GstElement * element, GstContext * context)
{
  /* Not adopted as such (see gstmatchcuda.h): chaining up stores it, and
   * gst_match_cuda_open() respects a context set before it runs. */
  gst_match_cuda_handle_set_context (PRIV (element)->cuda, element, context);
  GST_ELEMENT_CLASS (parent_class)->set_context (element, context);
}

static GstCaps *
gst_match_filter_transform_caps (GstBaseTransform * trans,
    GstPadDirection direction, GstCaps * caps, GstCaps * filter)
{
  GstMatchFilter * self = GST_MATCH_FILTER (trans);
  GstCaps * ret = GST_BASE_TRANSFORM_CLASS (parent_class)
                      ->transform_caps (trans, direction, caps, filter);

  /* In place: the same caps on both pads, minus CUDA memory where it
   * cannot be used (accept-caps refuses it then, too). */
  return gst_match_cuda_filter_caps (ret,
      cuda_memory_allowed (self, snapshot_settings (self)));
}

/* Posts the element error of a failed matcher setup (start, create,
 * reconfigure); `info` may be NULL (no frame size yet). */
static void
post_setup_error (GstMatchFilter * self, const GstVideoInfo * info,
    const match::Status & status)
{
  gst_match_backend_post_setup_error (GST_ELEMENT (self), CLASS (self)->what,
      snapshot_settings (self).backend.backend,
      info ? GST_VIDEO_INFO_WIDTH (info) : 0,
      info ? GST_VIDEO_INFO_HEIGHT (info) : 0, status);
}

static gboolean
gst_match_filter_start (GstBaseTransform * trans)
{
  GstMatchFilter * self = GST_MATCH_FILTER (trans);
  GstMatchFilterPrivate * priv = PRIV (self);
  GstMatchAdapter * adapter = priv->adapter;
  const Settings s = snapshot_settings (self);
  match::DeviceOptions devices;

  if (!gst_match_backend_device_options (GST_ELEMENT (self), s.backend,
          priv->strings, &devices))
    return FALSE;
  /* Settings that no frame can work with fail the state change. */
  const match::Status valid =
      adapter->validate (GST_MATCH_ADAPTER_STAND_IN_SIZE,
          GST_MATCH_ADAPTER_STAND_IN_SIZE);
  if (!valid) {
    post_setup_error (self, NULL, valid);
    return FALSE;
  }
  /* *INDENT-OFF* */
  if (!gst_match_backend_start (GST_ELEMENT (self), CLASS (self)->what,
          s.backend, priv->strings, devices,
          [&] () { return adapter->probe (devices); }))
    return FALSE;
  /* *INDENT-ON* */

  /* The device may have changed in READY: offer its primary context (a
   * no-op when already offered). */
  if (cuda_memory_allowed (self, s))
    gst_match_cuda_open (priv->cuda, GST_ELEMENT (self), devices.devices[0]);

  GST_OBJECT_LOCK (self);
  priv->latency = 0;
  GST_OBJECT_UNLOCK (self);

  delete priv->state;
  priv->state = new State ();
  return TRUE;
}

static gboolean
gst_match_filter_stop (GstBaseTransform * trans)
{
  GstMatchFilter * self = GST_MATCH_FILTER (trans);
  GstMatchFilterPrivate * priv = PRIV (self);

  /* Held buffers are discarded with the state. */
  delete priv->state;
  priv->state = nullptr;
  priv->adapter->release ();
  gst_mv_events_reset (priv->mvevents, NULL, NULL);
  GST_OBJECT_LOCK (self);
  priv->latency = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

GstMotionVectorsMeta *
gst_match_filter_attach_meta (GstMatchFilter * self, GstBuffer * buf,
    guint frame_width, guint frame_height, guint block_width,
    guint block_height, match::Direction direction)
{
  State * st = PRIV (self)->state;

  return gst_match_attach_meta (buf, &st->pool, &st->pool_vectors, frame_width,
      frame_height, block_width, block_height,
      direction == match::Direction::kForward
          ? GST_MOTION_VECTORS_DIRECTION_FORWARD
          : GST_MOTION_VECTORS_DIRECTION_BACKWARD);
}

/* Hands the luma of the frame just collected (`buf`) to the decision's
 * pixel stage, which runs where the matcher does: on CUDA it reads the
 * matcher's own device copy of the frame (no second upload), else the
 * buffer's luma in system memory. Every collected frame takes a number, so
 * that frame n - 1 is always the previous one. Returns the number, or
 * G_MAXUINT64 when the stage did not take the frame (or is off). */
static guint64
push_pixels (GstMatchFilter * self, State * st, GstBuffer * buf,
    guint n_threads)
{
  GstMatchFilterPrivate * priv = PRIV (self);
  GstElement * element = GST_ELEMENT (self);
  if (!gst_mv_events_wants_pixels (priv->mvevents, element))
    return G_MAXUINT64;
  const guint64 n = st->next_pixels++;
  /* The stage runs after the matcher on the same thread: with the default
   * (n-threads=0), the team the matcher's tuner found for the load now,
   * not the whole share (two threads on a busy 2-core machine made the
   * stage wait for the scheduler: 3 to 5 times the frame time of one;
   * bench/README.md, "The change stage's team"). */
  const int team = priv->adapter->team ();
  if (n_threads == 0 && team > 0)
    n_threads = (guint) team;
  gboolean kept = FALSE;
  match::DeviceImageView device_luma;
  if (st->matcher.backend == match::Backend::kCuda
      && priv->adapter->collected_frame (st->device, &device_luma)) {
    kept = gst_mv_events_push_luma (priv->mvevents, element, NULL, &device_luma,
        n, n_threads, st->matcher.backend, st->device);
  } else {
    GstVideoFrame frame;
    if (!gst_video_frame_map (&frame, &GST_VIDEO_FILTER (self)->in_info, buf,
            GST_MAP_READ))
      return G_MAXUINT64;
    const match::ImageView luma = gst_match_frame_luma (&frame, st->luma);
    kept = gst_mv_events_push_luma (priv->mvevents, element, &luma, NULL, n,
        n_threads, st->matcher.backend, st->device);
    gst_video_frame_unmap (&frame);
  }
  return kept ? n : G_MAXUINT64;
}

/* Collects the oldest held frame's vectors (`h`) into *f and, with
 * `pixels`, hands its pixels to the decision's stage. */
static GstFlowReturn
collect_oldest (GstMatchFilter * self, State * st, Held && h,
    const Settings & s, Finishing * f, bool pixels = true)
{
  GstMatchFilterPrivate * priv = PRIV (self);
  GstBuffer * buf = h.buf;
  GstMotionVectorsMeta * meta = NULL;

  h.buf = nullptr;
  match::Status status = priv->adapter->collect (buf, h.ref_pts, &meta);
  if (!status)
    goto kernel_error;
  if (!meta)
    goto no_storage;
  f->self = self;
  f->buf = buf;
  f->meta = meta;
  if (pixels)
    f->pixels = push_pixels (self, st, buf, s.backend.n_threads);
  return GST_FLOW_OK;

  /* ERRORS */
kernel_error : {
  gst_buffer_unref (buf);
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
      ("Motion estimation (%s) failed", CLASS (self)->what),
      ("%s", status.message ().c_str ()));
  return GST_FLOW_ERROR;
}
no_storage : {
  gst_buffer_unref (buf);
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("Could not attach the motion-vector meta"), (NULL));
  return GST_FLOW_ERROR;
}
}

/* The decision on a collected frame (a job of GstMatchWorker's). */
static void
decide (void * data)
{
  Finishing * f = (Finishing *) data;
  GstMatchFilterPrivate * priv = PRIV (f->self);
  GstMvEvents * ev = priv->mvevents;
  if (f->deferred)
    gst_mv_events_defer_inband (ev, f->deferred);
  /* The decision's colour reads the chroma where it asks (a few boxes, a
   * quarter of the frames): the frame stays mapped for the call, without a
   * reference, which would leave the buffer unwritable for the metas the
   * call adds. Not from CUDA memory, which this map would download. */
  GstVideoFrame frame;
  MvChromaView chroma;
  const bool mapped = f->pixels != G_MAXUINT64 && !priv->state->cuda_memory
      && gst_video_frame_map (&frame, &GST_VIDEO_FILTER (f->self)->in_info,
          f->buf,
          (GstMapFlags) (GST_MAP_READ | GST_VIDEO_FRAME_MAP_FLAG_NO_REF));
  const bool coloured = mapped && gst_match_frame_chroma (&frame, &chroma);
  gst_mv_events_process (ev, GST_ELEMENT (f->self), f->buf, f->meta,
      &GST_BASE_TRANSFORM (f->self)->segment, f->pixels,
      coloured ? &chroma : NULL);
  if (mapped)
    gst_video_frame_unmap (&frame);
  if (f->deferred)
    gst_mv_events_defer_inband (ev, NULL);
  f->decided =
      gst_mv_events_camera (ev, &f->beyond, &f->camera_x, &f->camera_y);
}

/* A camera shaking beyond the search (auto-search-range): the search is
 * doubled from the next frame on when a decided frame went beyond its
 * reach, and back to the range set once the camera's motion at the
 * frame's centre has kept two pixels inside that range for kCalmFrames
 * frames. The first frame beyond is not judged (mvevents.h); one
 * doubling covers a shake twice the range set, and a wider search costs
 * the full search the square of its factor. */
static const guint kCalmFrames = 300; /* 10 s at 30 fps */

static void
follow_shake (GstMatchFilter * self, State * st, const Finishing & f)
{
  if (!f.decided)
    return;
  GstMatchAdapter * adapter = PRIV (self)->adapter;
  const bool widened = adapter->widening () > 1;
  if (!widened && !f.beyond)
    return; /* the common case: nothing to follow */
  const GstVideoInfo * info = &GST_VIDEO_FILTER (self)->in_info;
  const int width = GST_VIDEO_INFO_WIDTH (info);
  const int height = GST_VIDEO_INFO_HEIGHT (info);
  int rx = 0, ry = 0;
  adapter->reach_as_set (width, height, &rx, &ry);
  if (!widened) {
    if (adapter->widen (2, width, height)) {
      st->calm = 0;
      GST_INFO_OBJECT (self,
          "camera beyond the search (+-%d x +-%d): "
          "doubled",
          rx, ry);
    }
    return;
  }
  const bool calm = !f.beyond && std::fabs (f.camera_x) < rx - 2.0
      && std::fabs (f.camera_y) < ry - 2.0;
  st->calm = calm ? st->calm + 1 : 0;
  if (st->calm >= kCalmFrames && adapter->widen (1, width, height))
    GST_INFO_OBJECT (self,
        "camera within +-%d x +-%d for %u frames: "
        "the search as set",
        rx, ry, kCalmFrames);
}

/* Draws on a decided frame and returns it in *outbuf. */
static GstFlowReturn
draw_decided (GstMatchFilter * self, State * st, const Settings & s,
    Finishing * f, GstBuffer ** outbuf)
{
  GstVideoFilter * filter = GST_VIDEO_FILTER (self);
  GstBuffer * buf = f->buf;
  GstVideoFrame frame;

  follow_shake (self, st, *f);

  f->buf = nullptr;
  if (s.draw != GST_MV_DRAW_NONE) {
    if (st->cuda_memory && !st->logged_cuda_draw) {
      GST_INFO_OBJECT (self,
          "draw on CUDA memory: each frame is drawn in "
          "system memory (gstcuda downloads it, and uploads it again at the "
          "next CUDA map); logged once");
      st->logged_cuda_draw = true;
    }
    /* The held buffer is ours alone (made writable at submit); mapping it
     * for writing copies its memory only if that is shared. For CUDA
     * memory this map (no GST_MAP_CUDA) is in system memory. */
    if (!gst_video_frame_map (&frame, &filter->in_info, buf, GST_MAP_READWRITE))
      goto map_failed;
    gst_mv_overlay_draw (&frame, f->meta, s.draw, 0.0f);
    gst_video_frame_unmap (&frame);
  }
  *outbuf = buf;
  return GST_FLOW_OK;

  /* ERRORS */
map_failed : {
  gst_buffer_unref (buf);
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"), (NULL));
  return GST_FLOW_ERROR;
}
}

/* Collects the oldest held frame's vectors (`h`) and returns its buffer,
 * meta attached, decided on and drawn on, in *outbuf. */
static GstFlowReturn
finish_oldest (GstMatchFilter * self, State * st, Held && h, const Settings & s,
    GstBuffer ** outbuf)
{
  Finishing f;
  *outbuf = NULL;
  const GstFlowReturn ret = collect_oldest (self, st, std::move (h), s, &f);
  if (ret != GST_FLOW_OK)
    return ret;
  decide (&f);
  return draw_decided (self, st, s, &f, outbuf);
}

/* finish_oldest () for held frame `h`, its buffer pushed downstream at
 * once (a drain, frames beyond the depth). */
static GstFlowReturn
push_oldest (GstMatchFilter * self, State * st, Held && h, const Settings & s)
{
  GstBuffer * out = NULL;
  GstFlowReturn ret = finish_oldest (self, st, std::move (h), s, &out);
  if (ret == GST_FLOW_OK)
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  return ret;
}

/* The frame decided behind (none: f->buf null), once its decision is
 * done, into *f; its in-band events go downstream, before its buffer. */
static void
take_behind (GstMatchFilter * self, State * st, Finishing * f)
{
  *f = Finishing ();
  if (!st->behind.buf)
    return;
  st->decider.wait ();
  gst_mv_events_push_deferred (GST_ELEMENT (self), st->deferred);
  *f = st->behind;
  st->behind = Finishing ();
}

/* The frame decided behind, if any: its in-band events, then its buffer,
 * drawn, go downstream. */
static GstFlowReturn
push_behind (GstMatchFilter * self, State * st)
{
  Finishing f;
  take_behind (self, st, &f);
  if (!f.buf)
    return GST_FLOW_OK;
  const Settings s = snapshot_settings (self);
  GstBuffer * out = NULL;
  GstFlowReturn ret = draw_decided (self, st, s, &f, &out);
  if (ret == GST_FLOW_OK)
    ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), out);
  return ret;
}

/* Discards held buffers and forgets the reference frame (flush). */
static void
reset_stream (GstMatchFilter * self, State * st)
{
  st->drop_behind ();
  st->held.clear ();
  if (st->have_matcher)
    PRIV (self)->adapter->reset ();
  st->prev_pts = GST_CLOCK_TIME_NONE;
}

/* Pushes every held buffer downstream with its results, oldest first. On a
 * flow error the rest are discarded (the matcher is reset with them). */
static GstFlowReturn
drain (GstMatchFilter * self, State * st)
{
  if (!st)
    return GST_FLOW_OK;
  /* The frame decided behind is the oldest. */
  if (GstFlowReturn ret = push_behind (self, st); ret != GST_FLOW_OK) {
    reset_stream (self, st);
    return ret;
  }
  if (st->held.count () == 0)
    return GST_FLOW_OK;

  const Settings s = snapshot_settings (self);
  /* *INDENT-OFF* */
  return st->held.drain (
      GST_ELEMENT (self),
      [&] (Held && h) { return push_oldest (self, st, std::move (h), s); },
      [&] () { reset_stream (self, st); });
  /* *INDENT-ON* */
}

static gboolean
gst_match_filter_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstMatchFilter * self = GST_MATCH_FILTER (trans);
  State * st = PRIV (self)->state;

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_FLUSH_STOP:
      GST_DEBUG_OBJECT (self,
          "flush: dropping held buffers and the "
          "reference frame");
      if (st)
        reset_stream (self, st);
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
  /* After the held buffers: motion-stop on EOS, flush, stream start. A
   * flush's goes after the FLUSH_STOP itself, which unflushes the src pad
   * that carries the in-band copy (mvevents.h). */
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    gst_event_ref (event);
    const gboolean ret =
        GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
    gst_mv_events_sink_event (PRIV (self)->mvevents, GST_ELEMENT (self), event);
    gst_event_unref (event);
    return ret;
  }
  gst_mv_events_sink_event (PRIV (self)->mvevents, GST_ELEMENT (self), event);
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_match_filter_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstMatchFilterPrivate * priv = PRIV (trans);

  /* Neighbours looking for a CUDA context (on either pad) get the primary
   * context's wrapper; unanswered, the base class passes it on. */
  if (GST_QUERY_TYPE (query) == GST_QUERY_CONTEXT
      && gst_match_cuda_handle_context_query (priv->cuda, GST_ELEMENT (trans),
          query))
    return TRUE;

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY)
    gst_match_held_add_latency (GST_ELEMENT (trans), &priv->latency, query);
  return TRUE;
}

/* The decision's test of a camera beyond the search, from the matcher's
 * configuration (nothing is being decided: after a setup or a drain). */
static void
set_reach (GstMatchFilter * self)
{
  int x = 0, y = 0;
  PRIV (self)->adapter->reach (&x, &y);
  gst_mv_events_set_reach (PRIV (self)->mvevents, x, y);
}

/* The effective depth from pipeline-depth `requested`, and the latency. */
static void
update_depth (GstMatchFilter * self, State * st, guint requested)
{
  st->held.update_depth (GST_ELEMENT (self), &PRIV (self)->latency, requested,
      st->have_matcher ? st->matcher.max_in_flight : match::kMaxInFlight,
      st->min_depth);
}

static gboolean
gst_match_filter_set_info (GstVideoFilter * filter, GstCaps * incaps,
    GstVideoInfo * in_info, GstCaps *, GstVideoInfo *)
{
  GstMatchFilter * self = GST_MATCH_FILTER (filter);
  GstMatchFilterPrivate * priv = PRIV (self);
  GstMatchAdapter * adapter = priv->adapter;
  guint changes = 0;
  const Settings s = snapshot_settings (self, &changes);
  State * st = priv->state;
  match::DeviceOptions devices;

  if (!st)
    st = priv->state = new State ();
  st->cuda_memory = gst_match_caps_have_cuda_memory (incaps);

  /* The same format again (a renegotiation): keep the matcher, its
   * reference and the frames in flight. */
  if (st->have_matcher && filter->negotiated
      && gst_video_info_is_equal (in_info, &filter->in_info)) {
    GST_DEBUG_OBJECT (self, "same format: keeping the matcher");
    return TRUE;
  }

  /* New caps: frames held under the old ones leave first, with their
   * results (filter->in_info still describes them here); then a new
   * matcher, which drops the reference. */
  drain (self, st);
  st->have_matcher = false;
  adapter->release ();
  st->prev_pts = GST_CLOCK_TIME_NONE;
  gst_mv_events_reset (priv->mvevents, GST_ELEMENT (self), "caps");

  /* GstBaseTransform calls set_info again after a failed negotiation (on
   * every buffer and reconfigure): one failing setup posts its error once,
   * a different one (other caps, or any property set since) its own. */
  if (st->failed && st->failed_changes == changes
      && gst_video_info_is_equal (in_info, &st->failed_info)) {
    GST_DEBUG_OBJECT (self, "the same setup failed before (error posted)");
    return FALSE;
  }
  st->failed = true;
  st->failed_info = *in_info;
  st->failed_changes = changes;

  if (!gst_match_backend_device_options (GST_ELEMENT (self), s.backend,
          priv->strings, &devices))
    return FALSE;
  /* A new stream's search is as set. */
  adapter->widen (1, GST_VIDEO_INFO_WIDTH (in_info),
      GST_VIDEO_INFO_HEIGHT (in_info));
  const match::Status status = adapter->create (gst_match_backend_to_match (
                                                    s.backend.backend),
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info), devices);
  if (!status) {
    post_setup_error (self, in_info, status);
    return FALSE;
  }
  st->failed = false;
  set_reach (self);
  const std::string description = adapter->description ();
  GST_INFO_OBJECT (self, "%dx%d %s, backend=%s: using %s",
      GST_VIDEO_INFO_WIDTH (in_info), GST_VIDEO_INFO_HEIGHT (in_info),
      gst_video_format_to_string (GST_VIDEO_INFO_FORMAT (in_info)),
      match::backend_name (gst_match_backend_to_match (s.backend.backend)),
      description.c_str ());

  st->have_matcher = true;
  st->matcher.backend = adapter->backend ();
  st->matcher.max_in_flight = adapter->max_in_flight ();
  st->device = devices.devices.empty () ? 0 : devices.devices[0];
  st->luma.resize (gst_match_luma_scratch_size (in_info));
  /* Serial multi-GPU keeps one frame in flight per extra device. */
  st->min_depth = st->matcher.backend == match::Backend::kCuda
          && devices.mode == match::MultiGpuMode::kSerial
      ? (int) devices.devices.size () - 1
      : 0;
  st->held.set_rate (GST_VIDEO_INFO_FPS_N (in_info),
      GST_VIDEO_INFO_FPS_D (in_info));
  update_depth (self, st, s.backend.pipeline_depth);

  if (st->cuda_memory)
    GST_INFO_OBJECT (self, "CUDA memory in and out: %s",
        st->matcher.backend == match::Backend::kCuda
            ? "frames in the offered primary context go to the GPU without a "
              "download (one device-to-device copy)"
            : "on the CPU backend every frame is downloaded by gstcuda");

  gst_match_backend_set_active (GST_ELEMENT (self), priv->strings,
      description.c_str ());
  return TRUE;
}

/* Hands the luma of `buf` (a frame of `info`) to the matcher:
 * zero copy when it is CUDA memory in the offered context and the matcher
 * runs on CUDA, else mapped for reading in system memory. */
static match::Status
submit_luma (GstMatchFilter * self, State * st, const GstVideoInfo * info,
    GstBuffer * buf, guint n_threads, gboolean * mapped)
{
  GstMatchAdapter * adapter = PRIV (self)->adapter;
  GstVideoFrame frame;
  match::Status status;

  *mapped = TRUE;
  /* (The CPU backend with CUDA memory was logged at set_info.) */
  if (st->cuda_memory && st->matcher.backend == match::Backend::kCuda) {
    /* Zero copy: the frame's Y plane stays on the GPU. */
    match::DeviceImageView luma;
    if (gst_match_cuda_map_luma (PRIV (self)->cuda, GST_ELEMENT (self), info,
            buf, &frame, &luma)) {
      /* The copies from the buffer are done when submit returns. */
      status = adapter->submit (NULL, &luma, n_threads);
      gst_video_frame_unmap (&frame);
      if (status.code () != match::StatusCode::kUnsupported)
        return status;
      if (!st->logged_device_refused) {
        GST_INFO_OBJECT (self,
            "%s: frames go through system memory "
            "(logged once)",
            status.message ().c_str ());
        st->logged_device_refused = true;
      }
    }
  }
  /* System memory, or CUDA memory that gstcuda downloads for this map. */
  if (!gst_video_frame_map (&frame, info, buf, GST_MAP_READ)) {
    *mapped = FALSE;
    return status;
  }
  /* The backend has taken the pixels when submit returns. */
  const match::ImageView luma = gst_match_frame_luma (&frame, st->luma);
  status = adapter->submit (&luma, NULL, n_threads);
  gst_video_frame_unmap (&frame);
  return status;
}

/* What must happen before `inbuf` (owned; unreffed on an error) is
 * submitted: held frames leave first at a discontinuity (the new frame has
 * no reference) and before the matcher is reconfigured. */
static GstFlowReturn
prepare_submit (GstMatchFilter * self, State * st, GstBuffer * inbuf)
{
  GstMatchAdapter * adapter = PRIV (self)->adapter;
  GstVideoFilter * filter = GST_VIDEO_FILTER (self);
  const int width = GST_VIDEO_INFO_WIDTH (&filter->in_info);
  const int height = GST_VIDEO_INFO_HEIGHT (&filter->in_info);
  GstFlowReturn ret;
  match::Status status;

  if (GST_BUFFER_IS_DISCONT (inbuf)) {
    /* Held frames keep their estimates; the new one has no reference. */
    GST_DEBUG_OBJECT (self, "discontinuity: dropping the reference frame");
    ret = drain (self, st);
    if (ret != GST_FLOW_OK)
      goto flow_error;
    adapter->reset ();
    st->prev_pts = GST_CLOCK_TIME_NONE;
  }

  /* Settings changed while playing: same frame size, new parameters. The
   * matcher keeps its reference frame across the change, but
   * reconfigure() needs nothing in flight. */
  if (adapter->config_changed (width, height)) {
    ret = drain (self, st);
    if (ret != GST_FLOW_OK)
      goto flow_error;
    status = adapter->reconfigure (width, height);
    if (!status)
      goto setup_error;
    set_reach (self);
  }
  return GST_FLOW_OK;

  /* ERRORS */
flow_error : {
  gst_buffer_unref (inbuf);
  return ret;
}
setup_error : {
  gst_buffer_unref (inbuf);
  post_setup_error (self, &filter->in_info, status);
  return GST_FLOW_ERROR;
}
}

/* Hands `inbuf` (owned), prepared, to the matcher and holds it. */
static GstFlowReturn
submit_frame (GstMatchFilter * self, State * st, const Settings & s,
    GstBuffer * inbuf)
{
  GstVideoFilter * filter = GST_VIDEO_FILTER (self);
  match::Status status;
  gboolean mapped;

  /* Ours alone from here on, so that the meta can be added (and the frame
   * drawn on) when it leaves; a shallow copy only if upstream keeps it. */
  inbuf = gst_buffer_make_writable (inbuf);
  status = submit_luma (self, st, &filter->in_info, inbuf, s.backend.n_threads,
      &mapped);
  if (!mapped)
    goto map_failed;
  if (!status)
    goto kernel_error;

  st->held.push (Held (inbuf, st->prev_pts));
  st->prev_pts = GST_BUFFER_PTS (inbuf);
  return GST_FLOW_OK;

  /* ERRORS */
map_failed : {
  gst_buffer_unref (inbuf);
  GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"), (NULL));
  return GST_FLOW_ERROR;
}
kernel_error : {
  gst_buffer_unref (inbuf);
  GST_ELEMENT_ERROR (self, LIBRARY, FAILED,
      ("Motion estimation (%s) failed", CLASS (self)->what),
      ("%s", status.message ().c_str ()));
  return GST_FLOW_ERROR;
}
}

/* Whether the decision runs behind: on the worker, on the oldest frame
 * collected, while the streaming thread submits the new frame and pushes
 * the frame decided before it. With the CUDA backend, which computes while
 * submit returns, and pipeline-depth >= 1: the matcher then holds depth - 1
 * frames and the decision the depth-th, so that frames leave as late as
 * before (the latency is unchanged), and the decision's host work (which
 * outweighs the upload and the launches at 1080p) overlaps everything else
 * the streaming thread does (collect, submit, draw, the push downstream).
 * Its in-band events are kept until that frame's buffer leaves
 * (mvevents.h). On the CPU backend submit is the search itself, on
 * n-threads: a second thread would take cores the user gave the search. */
static bool
decide_behind (GstMatchFilter * self, State * st)
{
  return (st->matcher.backend == match::Backend::kCuda || st->behind_on_cpu)
      && st->held.depth () >= 1
      && gst_mv_events_wants_pixels (PRIV (self)->mvevents, GST_ELEMENT (self));
}

/* Submits `inbuf` (owned, prepared) while the worker decides the oldest
 * held frame, and returns the frame it decided before in *outbuf (none
 * while the pipeline fills). */
static GstFlowReturn
submit_deciding_behind (GstMatchFilter * self, State * st, const Settings & s,
    GstBuffer * inbuf, GstBuffer ** outbuf)
{
  const int keep = st->held.depth () - 1;
  GstFlowReturn ret = GST_FLOW_OK;

  /* More held than the matcher keeps (the depth was lowered, or the mode
   * just began): the oldest leave first, decided here. */
  while (ret == GST_FLOW_OK && st->held.count () > keep) {
    ret = push_behind (self, st);
    if (ret == GST_FLOW_OK)
      ret = push_oldest (self, st, st->held.pop (), s);
  }
  /* The matcher holds none (depth 1): the new frame, once submitted, is
   * the one decided. */
  const bool submit_first = keep == 0;
  if (ret == GST_FLOW_OK && submit_first) {
    ret = submit_frame (self, st, s, inbuf);
    inbuf = NULL;
  }
  Finishing next;
  if (ret == GST_FLOW_OK && st->held.count () == (submit_first ? 1 : keep))
    ret = collect_oldest (self, st, st->held.pop (), s, &next, false);
  if (ret != GST_FLOW_OK) {
    if (inbuf)
      gst_buffer_unref (inbuf);
    return ret;
  }
  /* The frame decided last time: its events go now, its buffer at the
   * end of this call. */
  Finishing done;
  take_behind (self, st, &done);
  /* The stage takes the frame's pixels once the worker is done with it. */
  if (next.buf) {
    next.pixels = push_pixels (self, st, next.buf, s.backend.n_threads);
    next.deferred = st->deferred;
    st->behind = next;
    if (!st->decider.start (decide, &st->behind))
      decide (&st->behind);
  }
  if (inbuf)
    ret = submit_frame (self, st, s, inbuf);
  if (ret != GST_FLOW_OK) {
    gst_clear_buffer (&done.buf);
    return ret;
  }
  if (!done.buf)
    return GST_FLOW_OK;
  return draw_decided (self, st, s, &done, outbuf);
}

/* Called by the base class after each input buffer (left in queued_buf by
 * the default submit_input_buffer) and again after each buffer it pushes,
 * until no buffer is returned. */
static GstFlowReturn
gst_match_filter_generate_output (GstBaseTransform * trans, GstBuffer ** outbuf)
{
  GstMatchFilter * self = GST_MATCH_FILTER (trans);
  GstVideoFilter * filter = GST_VIDEO_FILTER (trans);
  State * st = PRIV (self)->state;
  GstBuffer * inbuf = trans->queued_buf;
  GstFlowReturn ret;

  trans->queued_buf = NULL;
  *outbuf = NULL;

  if (G_UNLIKELY (!filter->negotiated || !st || !st->have_matcher)) {
    if (!inbuf)
      return GST_FLOW_OK;
    gst_buffer_unref (inbuf);
    goto not_negotiated;
  }

  {
    const Settings s = snapshot_settings (self);

    if (s.backend.pipeline_depth != st->held.requested ())
      update_depth (self, st, s.backend.pipeline_depth);
    if (inbuf) {
      ret = prepare_submit (self, st, inbuf);
      if (ret != GST_FLOW_OK)
        return ret;
      if (decide_behind (self, st))
        return submit_deciding_behind (self, st, s, inbuf, outbuf);
      /* Out of that mode (a setting changed): its frame leaves first. */
      ret = push_behind (self, st);
      if (ret != GST_FLOW_OK) {
        gst_buffer_unref (inbuf);
        return ret;
      }
      ret = submit_frame (self, st, s, inbuf);
      if (ret != GST_FLOW_OK)
        return ret;
    }
    /* One buffer per call: the base class calls again after pushing it. */
    if (st->held.count () > st->held.depth ())
      return finish_oldest (self, st, st->held.pop (), s, outbuf);
  }
  return GST_FLOW_OK;

  /* ERRORS */
not_negotiated : {
  GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL),
      ("unknown format or not started"));
  return GST_FLOW_NOT_NEGOTIATED;
}
}
