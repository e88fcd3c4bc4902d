/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/* Implementation notes.
 *
 * Threads: the streaming thread (render) pushes into the queue; the
 * client's network thread calls the SinkListener below. Either pumps the
 * queue into the client (MvPublishQueue::pump calls the class's publish
 * with the queue's mutex held; the clients' libraries call back without
 * holding the locks their publish takes). Bus messages are posted with no
 * lock of ours held (posting takes the object lock, which get_property
 * holds). Nothing here waits on the network: render only queues.
 *
 * Fatal errors (SinkListener::fatal, network thread) are kept in
 * `fatal_text` and posted by whichever comes first once the sink is
 * PLAYING: the network thread itself if it already is, the change to
 * PLAYING, render or EOS (both then return GST_FLOW_ERROR), or at the
 * latest stop: an error posted during the state change to PAUSED can be
 * missed (gst-launch-1.0 1.22 then never ends). `fatal_lock` makes it one
 * post.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvpublishsink.h"

#include <atomic>
#include <string>
#include <vector>

#include "common/gstmatchsettings.h"
#include "common/mvstreaminfo.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_publish_sink_debug);
#define GST_CAT_DEFAULT gst_mv_publish_sink_debug

#define DEFAULT_PROP_MAX_QUEUE 1000
#define DEFAULT_PROP_DRAIN_TIMEOUT (5 * GST_SECOND)
#define DEFAULT_PROP_RECONNECT_DELAY 1
#define DEFAULT_PROP_RECONNECT_DELAY_MAX 30

/* Overflow warnings and messages: at most one per this interval. */
#define REPORT_INTERVAL_US G_USEC_PER_SEC

enum
{
  PROP_0,
  PROP_RECONNECT_DELAY,
  PROP_RECONNECT_DELAY_MAX,
  PROP_MAX_QUEUE,
  PROP_DRAIN_TIMEOUT,
  PROP_DROPPED,
  PROP_QUEUED,
  PROP_CONNECTED,
  PROP_STATS,
};

/* A parsed template: literal text and placeholders, in order. */
enum class Part
{
  TEXT,
  CAMERA_ID,
  TYPE,
  EVENT,
};
struct Template
{
  std::vector<std::pair<Part, std::string>> parts;
  bool set = false;
};

class SinkListener;

struct GstMvPublishSinkPrivate
{
  GstMvPublishSettings settings; /* object lock */
  GstMvPublishSettings run;      /* the copy in use, from start */
  gboolean started;

  Template templates[2]; /* GstMvPublishTemplate; set in open */
  gchar * endpoint;      /* "the MQTT broker host:port" */
  GstStructure * endpoint_fields;
  gchar * invalid_topic; /* the first, for the report (object lock) */

  GMutex fatal_lock;  /* the fatal error and its posting */
  GCond answer_cond;  /* answered, flushing, or the fatal error posted */
  gchar * fatal_text; /* set: the client gave up (see notes) */
  gchar * fatal_debug;
  MvPublishError fatal_kind;
  gboolean fatal_posted; /* a thread took the posting on */
  gboolean fatal_done;   /* and the message is on the bus */
  gboolean playing;
  gboolean answered; /* the first attempt has an outcome */
  gboolean flushing;

  /* C++ objects (the instance is allocated by GObject). */
  SinkListener * listener;
  MvPublishQueue * queue;
  MvPublishQueue::PublishFunc * publish; /* the class's */
  std::atomic<bool> * connected;         /* readable without any lock */
  std::atomic<guint64> * reconnects;
};

/* The client's Listener: network-thread events made queue work and bus
 * messages. */
class SinkListener : public MvPublishListener
{
public:
  explicit SinkListener (GstMvPublishSink * sink) : sink_ (sink)
  {
  }
  void connected () override;
  void connection_lost (const char * reason) override;
  void unreachable (const char * reason) override;
  void published (int mid) override;
  void retry (int mid, const char * reason) override;
  void failed (int mid, const char * reason) override;
  void fatal (MvPublishError kind, const char * text,
      const char * debug) override;

private:
  GstMvPublishSink * sink_;
};

static void gst_mv_publish_sink_class_init (GstMvPublishSinkClass * klass);
static void gst_mv_publish_sink_init (GTypeInstance * instance,
    gpointer g_class);

/* Each transport plugin links its own copy of this class, and several
 * may be loaded in one process: each registers it under its own name
 * (MV_PUBLISH_SINK_TYPE_NAME, from gst/meson.build), as G_DEFINE_TYPE
 * cannot. */
#ifndef MV_PUBLISH_SINK_TYPE_NAME
#error "MV_PUBLISH_SINK_TYPE_NAME: one GType name per plugin"
#endif
static gpointer parent_class = NULL;
static gint private_offset = 0;

static void
gst_mv_publish_sink_class_intern_init (gpointer klass, gpointer)
{
  parent_class = g_type_class_peek_parent (klass);
  g_type_class_adjust_private_offset (klass, &private_offset);
  gst_mv_publish_sink_class_init ((GstMvPublishSinkClass *) klass);
}

GType
gst_mv_publish_sink_get_type (void)
{
  static GType type = 0;

  if (g_once_init_enter (&type)) {
    GType t = g_type_register_static_simple (GST_TYPE_BASE_SINK,
        g_intern_static_string (MV_PUBLISH_SINK_TYPE_NAME),
        sizeof (GstMvPublishSinkClass), gst_mv_publish_sink_class_intern_init,
        sizeof (GstMvPublishSink), gst_mv_publish_sink_init,
        G_TYPE_FLAG_ABSTRACT);
    private_offset =
        g_type_add_instance_private (t, sizeof (GstMvPublishSinkPrivate));
    g_once_init_leave (&type, t);
  }
  return type;
}

#define PRIV(self)                                                             \
  ((GstMvPublishSinkPrivate *) G_STRUCT_MEMBER_P (self, private_offset))

static void gst_mv_publish_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_mv_publish_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_mv_publish_sink_finalize (GObject * object);
static gboolean gst_mv_publish_sink_start (GstBaseSink * sink);
static gboolean gst_mv_publish_sink_stop (GstBaseSink * sink);
static gboolean gst_mv_publish_sink_unlock (GstBaseSink * sink);
static gboolean gst_mv_publish_sink_unlock_stop (GstBaseSink * sink);
static gboolean gst_mv_publish_sink_event (GstBaseSink * sink,
    GstEvent * event);
static GstFlowReturn gst_mv_publish_sink_wait_event (GstBaseSink * sink,
    GstEvent * event);
static GstStateChangeReturn
gst_mv_publish_sink_change_state (GstElement * element,
    GstStateChange transition);
static GstFlowReturn gst_mv_publish_sink_render (GstBaseSink * sink,
    GstBuffer * buf);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void
gst_mv_publish_sink_class_init (GstMvPublishSinkClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass * sink_class = GST_BASE_SINK_CLASS (klass);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  const GParamFlags ro =
      (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_mv_publish_sink_set_property;
  gobject_class->get_property = gst_mv_publish_sink_get_property;
  gobject_class->finalize = gst_mv_publish_sink_finalize;

  /**
   * GstMvPublishSink:reconnect-delay:
   *
   * After a lost or failed connection, attempt n (n = 0, 1, ...) waits
   * reconnect-delay * 2^n seconds, at most reconnect-delay-max; a
   * successful connection starts again from n = 0.
   */
  g_object_class_install_property (gobject_class, PROP_RECONNECT_DELAY,
      g_param_spec_uint ("reconnect-delay", "Reconnect delay",
          "Seconds before the first reconnection attempt; each failed "
          "attempt doubles the wait, up to reconnect-delay-max",
          1, 3600, DEFAULT_PROP_RECONNECT_DELAY, rw_ready));
  g_object_class_install_property (gobject_class, PROP_RECONNECT_DELAY_MAX,
      g_param_spec_uint ("reconnect-delay-max", "Maximum reconnect delay",
          "Longest wait between reconnection attempts, in seconds", 1, 3600,
          DEFAULT_PROP_RECONNECT_DELAY_MAX, rw_ready));
  g_object_class_install_property (gobject_class, PROP_MAX_QUEUE,
      g_param_spec_uint ("max-queue", "Maximum queue",
          "Messages awaiting the broker (queued or unacknowledged) at most; "
          "beyond, the oldest frame message is dropped (counted in dropped "
          "and reported)",
          1, G_MAXINT, DEFAULT_PROP_MAX_QUEUE, rw_ready));
  g_object_class_install_property (gobject_class, PROP_DRAIN_TIMEOUT,
      g_param_spec_uint64 ("drain-timeout", "Drain timeout",
          "Nanoseconds to wait at EOS for the queue to reach the broker; "
          "what is left is counted as dropped",
          0, G_MAXUINT64, DEFAULT_PROP_DRAIN_TIMEOUT, rw_ready));
  g_object_class_install_property (gobject_class, PROP_DROPPED,
      g_param_spec_uint64 ("dropped", "Dropped",
          "Messages dropped since start (queue overflow, or still queued at "
          "EOS after drain-timeout or at stop)",
          0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_QUEUED,
      g_param_spec_uint ("queued", "Queued", "Messages now awaiting the broker",
          0, G_MAXUINT, 0, ro));
  g_object_class_install_property (gobject_class, PROP_CONNECTED,
      g_param_spec_boolean ("connected", "Connected",
          "Connected to the broker now", FALSE, ro));
  /**
   * GstMvPublishSink:stats:
   *
   * A `GstMvPublishStats` structure: published, dropped, dropped-frames,
   * dropped-events (guint64, since start), dropped-queue-full,
   * dropped-invalid-topic, dropped-rejected, dropped-drain-timeout,
   * dropped-stopped (guint64, by reason), retried (guint64: given back
   * by the client and sent again), reconnects (guint64), queued,
   * inflight, max-queue (guint), connected (boolean), and the publish
   * latency from the queue to the broker's acknowledgement in
   * microseconds: latency-p50-us, latency-p99-us, latency-max-us
   * (gint64, 0 before the first).
   */
  g_object_class_install_property (gobject_class, PROP_STATS,
      g_param_spec_boxed ("stats", "Statistics",
          "Counters since start (published, dropped by reason, retried, "
          "reconnects, queued, inflight) and the publish latency "
          "percentiles (latency-p50-us, latency-p99-us, latency-max-us)",
          GST_TYPE_STRUCTURE, ro));

  gst_element_class_add_static_pad_template (element_class, &sink_template);

  sink_class->start = GST_DEBUG_FUNCPTR (gst_mv_publish_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR (gst_mv_publish_sink_stop);
  sink_class->unlock = GST_DEBUG_FUNCPTR (gst_mv_publish_sink_unlock);
  sink_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_mv_publish_sink_unlock_stop);
  sink_class->event = GST_DEBUG_FUNCPTR (gst_mv_publish_sink_event);
  sink_class->wait_event = GST_DEBUG_FUNCPTR (gst_mv_publish_sink_wait_event);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_mv_publish_sink_change_state);
  sink_class->render = GST_DEBUG_FUNCPTR (gst_mv_publish_sink_render);

  klass->max_inflight = 20;
  gst_mv_stream_info_meta_get_info ();
  gst_type_mark_as_plugin_api (GST_TYPE_MV_PUBLISH_SINK, (GstPluginAPIFlags) 0);

  GST_DEBUG_CATEGORY_INIT (gst_mv_publish_sink_debug, "mvpublishsink", 0,
      "Publishing sinks' queue and delivery");
}

/* `g_class`: the class of the type being made (the subclass's). */
static void
gst_mv_publish_sink_init (GTypeInstance * instance, gpointer g_class)
{
  GstMvPublishSink * self = GST_MV_PUBLISH_SINK (instance);
  GstMvPublishSinkClass * klass = (GstMvPublishSinkClass *) g_class;
  GstMvPublishSinkPrivate * p = PRIV (self);

  if (klass->settings_size) {
    /* Zeroed first: the settings own their strings. */
    memset (G_STRUCT_MEMBER_P (self, klass->settings_offset), 0,
        klass->settings_size);
    memset (G_STRUCT_MEMBER_P (self, klass->run_offset), 0,
        klass->settings_size);
    gst_match_settings_init (G_OBJECT_CLASS (klass),
        G_STRUCT_MEMBER_P (self, klass->settings_offset));
  }

  p->settings.max_queue = DEFAULT_PROP_MAX_QUEUE;
  p->settings.drain_timeout = DEFAULT_PROP_DRAIN_TIMEOUT;
  p->settings.reconnect_delay = DEFAULT_PROP_RECONNECT_DELAY;
  p->settings.reconnect_delay_max = DEFAULT_PROP_RECONNECT_DELAY_MAX;
  p->run = p->settings;
  p->started = FALSE;
  new (&p->templates[0]) Template ();
  new (&p->templates[1]) Template ();
  p->endpoint = g_strdup ("the broker");
  p->endpoint_fields = NULL;
  p->invalid_topic = NULL;
  g_mutex_init (&p->fatal_lock);
  g_cond_init (&p->answer_cond);
  p->fatal_text = p->fatal_debug = NULL;
  p->fatal_kind = MvPublishError::CLIENT;
  p->fatal_posted = p->fatal_done = p->playing = FALSE;
  p->answered = p->flushing = FALSE;

  p->listener = new SinkListener (self);
  p->queue = new MvPublishQueue ();
  p->publish = new MvPublishQueue::PublishFunc (
      [self] (const MvPublishMessage & m, int * mid) {
        return GST_MV_PUBLISH_SINK_GET_CLASS (self)->publish (self, m, mid);
      });
  p->connected = new std::atomic<bool> (false);
  p->reconnects = new std::atomic<guint64> (0);
}

static void
gst_mv_publish_sink_finalize (GObject * object)
{
  GstMvPublishSinkPrivate * p = PRIV (object);
  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (object);

  if (klass->settings_size) {
    gst_match_settings_clear (G_OBJECT_CLASS (klass),
        G_STRUCT_MEMBER_P (object, klass->settings_offset));
    gst_match_settings_clear (G_OBJECT_CLASS (klass),
        G_STRUCT_MEMBER_P (object, klass->run_offset));
  }

  delete p->listener;
  delete p->publish;
  delete p->queue;
  delete p->connected;
  delete p->reconnects;
  p->templates[0].~Template ();
  p->templates[1].~Template ();
  g_free (p->endpoint);
  if (p->endpoint_fields)
    gst_structure_free (p->endpoint_fields);
  g_free (p->fatal_text);
  g_free (p->fatal_debug);
  g_free (p->invalid_topic);
  g_mutex_clear (&p->fatal_lock);
  g_cond_clear (&p->answer_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_publish_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvPublishSinkPrivate * p = PRIV (object);

  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_RECONNECT_DELAY:
      p->settings.reconnect_delay = g_value_get_uint (value);
      break;
    case PROP_RECONNECT_DELAY_MAX:
      p->settings.reconnect_delay_max = g_value_get_uint (value);
      break;
    case PROP_MAX_QUEUE:
      p->settings.max_queue = g_value_get_uint (value);
      break;
    case PROP_DRAIN_TIMEOUT:
      p->settings.drain_timeout = g_value_get_uint64 (value);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

static GstStructure *
make_stats (GstMvPublishSink * self)
{
  GstMvPublishSinkPrivate * p = PRIV (self);
  MvPublishStats s;

  p->queue->stats (&s);
  return gst_structure_new ("GstMvPublishStats", "published", G_TYPE_UINT64,
      s.published, "dropped", G_TYPE_UINT64, s.dropped, "dropped-frames",
      G_TYPE_UINT64, s.dropped_frames, "dropped-events", G_TYPE_UINT64,
      s.dropped_events, "dropped-queue-full", G_TYPE_UINT64,
      s.dropped_by_reason[MV_PUBLISH_DROP_QUEUE_FULL], "dropped-invalid-topic",
      G_TYPE_UINT64, s.dropped_by_reason[MV_PUBLISH_DROP_INVALID_TOPIC],
      "dropped-rejected", G_TYPE_UINT64,
      s.dropped_by_reason[MV_PUBLISH_DROP_REJECTED], "dropped-drain-timeout",
      G_TYPE_UINT64, s.dropped_by_reason[MV_PUBLISH_DROP_DRAIN_TIMEOUT],
      "dropped-stopped", G_TYPE_UINT64,
      s.dropped_by_reason[MV_PUBLISH_DROP_STOPPED], "retried", G_TYPE_UINT64,
      s.retried, "reconnects", G_TYPE_UINT64, p->reconnects->load (), "queued",
      G_TYPE_UINT, s.queued, "inflight", G_TYPE_UINT, s.inflight, "max-queue",
      G_TYPE_UINT, p->run.max_queue, "connected", G_TYPE_BOOLEAN,
      (gboolean) p->connected->load (), "latency-p50-us", G_TYPE_INT64,
      s.latency_p50_us, "latency-p99-us", G_TYPE_INT64, s.latency_p99_us,
      "latency-max-us", G_TYPE_INT64, s.latency_max_us, NULL);
}

static void
gst_mv_publish_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMvPublishSinkPrivate * p = PRIV (object);

  if (prop_id == PROP_STATS) {
    /* The queue's own lock: not under the object lock. */
    g_value_take_boxed (value, make_stats (GST_MV_PUBLISH_SINK (object)));
    return;
  }
  GST_OBJECT_LOCK (object);
  switch (prop_id) {
    case PROP_RECONNECT_DELAY:
      g_value_set_uint (value, p->settings.reconnect_delay);
      break;
    case PROP_RECONNECT_DELAY_MAX:
      g_value_set_uint (value, p->settings.reconnect_delay_max);
      break;
    case PROP_MAX_QUEUE:
      g_value_set_uint (value, p->settings.max_queue);
      break;
    case PROP_DRAIN_TIMEOUT:
      g_value_set_uint64 (value, p->settings.drain_timeout);
      break;
    case PROP_DROPPED:
      g_value_set_uint64 (value, p->queue->dropped ());
      break;
    case PROP_QUEUED:
      g_value_set_uint (value, p->queue->queued ());
      break;
    case PROP_CONNECTED:
      g_value_set_boolean (value, p->connected->load ());
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (object);
}

/* The subclass's properties (gst_mv_publish_sink_class_set_settings). */
static void
client_set_property (GObject * object, guint prop_id, const GValue * value,
    GParamSpec * pspec)
{
  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (object);

  GST_OBJECT_LOCK (object);
  if (!gst_match_settings_set (G_STRUCT_MEMBER_P (object,
                                   klass->settings_offset),
          pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (object);
}

static void
client_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (object);

  GST_OBJECT_LOCK (object);
  if (!gst_match_settings_get (G_STRUCT_MEMBER_P (object,
                                   klass->settings_offset),
          pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (object);
}

/* ------------------------------------------------------ public helpers */

void
gst_mv_publish_sink_class_set_settings (GstMvPublishSinkClass * klass,
    gsize settings_offset, gsize run_offset, gsize size)
{
  klass->settings_offset = settings_offset;
  klass->run_offset = run_offset;
  klass->settings_size = size;
  G_OBJECT_CLASS (klass)->set_property = client_set_property;
  G_OBJECT_CLASS (klass)->get_property = client_get_property;
}

MvPublishListener *
gst_mv_publish_sink_listener (GstMvPublishSink * sink)
{
  return PRIV (sink)->listener;
}

MvPublishQueue *
gst_mv_publish_sink_queue (GstMvPublishSink * sink)
{
  return PRIV (sink)->queue;
}

void
gst_mv_publish_sink_class_install_tls_files (GstMvPublishSinkClass * klass,
    guint first_id, gsize ca_offset, gsize cert_offset, gsize key_offset,
    const gchar * ca_blurb)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gst_match_settings_install (gobject_class, first_id, ca_offset,
      g_param_spec_string ("ca-file", "CA file", ca_blurb, NULL, rw_ready));
  gst_match_settings_install (gobject_class, first_id + 1, cert_offset,
      g_param_spec_string ("cert-file", "Certificate file",
          "PEM client certificate for TLS (with key-file)", NULL, rw_ready));
  gst_match_settings_install (gobject_class, first_id + 2, key_offset,
      g_param_spec_string ("key-file", "Key file",
          "PEM private key of cert-file (not encrypted)", NULL, rw_ready));
}

gboolean
gst_mv_publish_sink_check_file (GstMvPublishSink * sink, const gchar * property,
    const gchar * path)
{
  if (!gst_mv_publish_is_set (path)
      || g_file_test (path, G_FILE_TEST_IS_REGULAR))
    return TRUE;
  gchar * text =
      g_strdup_printf ("The %s \"%s\" is not a readable file.", property, path);
  gst_mv_publish_sink_error (sink, MvPublishError::NOT_FOUND, text, NULL);
  g_free (text);
  return FALSE;
}

void
gst_mv_publish_sink_set_endpoint (GstMvPublishSink * sink,
    const gchar * description, GstStructure * fields)
{
  GstMvPublishSinkPrivate * p = PRIV (sink);

  g_free (p->endpoint);
  p->endpoint = g_strdup (description);
  if (p->endpoint_fields)
    gst_structure_free (p->endpoint_fields);
  p->endpoint_fields = fields;
}

void
gst_mv_publish_sink_error (GstMvPublishSink * sink, MvPublishError kind,
    const gchar * text, const gchar * debug)
{
  gint code;

  switch (kind) {
    case MvPublishError::SETTINGS:
      code = GST_RESOURCE_ERROR_SETTINGS;
      break;
    case MvPublishError::NOT_FOUND:
      code = GST_RESOURCE_ERROR_NOT_FOUND;
      break;
    case MvPublishError::TLS:
    case MvPublishError::REFUSED:
      code = GST_RESOURCE_ERROR_OPEN_WRITE;
      break;
    case MvPublishError::CLIENT:
    default:
      code = GST_RESOURCE_ERROR_FAILED;
      break;
  }
  GST_WARNING_OBJECT (sink, "error: %s (%s)", text, GST_STR_NULL (debug));
  gst_element_message_full (GST_ELEMENT (sink), GST_MESSAGE_ERROR,
      GST_RESOURCE_ERROR, code, g_strdup (text), g_strdup (debug), __FILE__,
      GST_FUNCTION, __LINE__);
}

/* ----------------------------------------------------------- templates */

static const struct
{
  const gchar * name;
  Part part;
} placeholders[] = {
  { "{camera-id}", Part::CAMERA_ID },
  { "{type}", Part::TYPE },
  { "{event}", Part::EVENT },
};

/* Checked when the element starts, where it fails with an element error,
 * rather than in set_property: a setter can only g_warning and keep the
 * old value, which a service's log hides and which would publish to a
 * topic nobody chose; an element error fails the state change and reaches
 * the application's bus. Only the known placeholders; and, for a topic,
 * with each replaced by "x", a valid one. */
gboolean
gst_mv_publish_sink_set_template (GstMvPublishSink * sink,
    GstMvPublishTemplate which, const gchar * tmpl, const gchar * property)
{
  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (sink);
  Template & t = PRIV (sink)->templates[which];
  std::string sample, why;

  t = Template ();
  if (!tmpl || !*tmpl) {
    if (which == GST_MV_PUBLISH_TEMPLATE_KEY)
      return TRUE; /* no key */
    why = "it is empty";
    goto bad;
  }
  for (const gchar * c = tmpl; *c;) {
    gboolean found = FALSE;
    for (const auto & ph : placeholders) {
      if (g_str_has_prefix (c, ph.name)) {
        t.parts.emplace_back (ph.part, std::string ());
        sample += 'x';
        c += strlen (ph.name);
        found = TRUE;
        break;
      }
    }
    if (found)
      continue;
    if (*c == '{') {
      const gchar * close = strpbrk (c + 1, "{}");
      if (!close || *close == '{')
        why = std::string ("unclosed '{' at \"") + c + "\"";
      else
        why = "unknown placeholder " + std::string (c, close + 1 - c);
      why += " (placeholders: {camera-id}, {type}, {event})";
      goto bad;
    }
    if (*c == '}') {
      why = std::string ("'}' outside a placeholder at \"") + c + "\"";
      goto bad;
    }
    if (t.parts.empty () || t.parts.back ().first != Part::TEXT)
      t.parts.emplace_back (Part::TEXT, std::string ());
    t.parts.back ().second += *c;
    sample += *c++;
  }
  if (which == GST_MV_PUBLISH_TEMPLATE_TOPIC && klass->topic_valid
      && !klass->topic_valid (sample.c_str ())) {
    why = std::string ("not a valid ") + klass->transport + " " + property
        + " to publish to (\"" + sample
        + "\" with each placeholder "
          "replaced by x; "
        + GST_STR_NULL (klass->topic_rules) + ")";
    goto bad;
  }
  t.set = true;
  return TRUE;

  /* ERRORS */
bad : {
  gchar * text = g_strdup_printf ("Invalid %s %s template \"%s\": %s.",
      klass->transport, property, GST_STR_NULL (tmpl), why.c_str ());
  gst_mv_publish_sink_error (sink, MvPublishError::SETTINGS, text, NULL);
  g_free (text);
  return FALSE;
}
}

/* Appends `value`, each byte that value_char_ok refuses made '_' (so that
 * a value is always one topic level, or one subject token). */
static void
append_value (std::string & out, const gchar * value, gboolean (*ok) (guchar c))
{
  for (const gchar * c = value; *c; c++)
    out += (!ok || ok ((guchar) *c)) ? *c : '_';
}

static void
render (const Template & t, const gchar * camera, const gchar * type,
    const gchar * event, gboolean (*ok) (guchar c), std::string & out)
{
  out.clear ();
  for (const auto & part : t.parts) {
    switch (part.first) {
      case Part::TEXT:
        out += part.second;
        break;
      case Part::CAMERA_ID:
        append_value (out, camera, ok);
        break;
      case Part::TYPE:
        append_value (out, type, ok);
        break;
      case Part::EVENT:
        append_value (out, event, ok);
        break;
    }
  }
}

/* ------------------------------------------------------ bus messages */

/* "<factory name>-<what>": mvmqttsink-dropped, mvkafkasink-connection. */
static gchar *
message_name (GstMvPublishSink * self, const gchar * what)
{
  GstElementFactory * f = gst_element_get_factory (GST_ELEMENT (self));

  return g_strdup_printf ("%s-%s",
      f ? GST_OBJECT_NAME (f) : G_OBJECT_TYPE_NAME (self), what);
}

/* Posts the overflow warning and message when messages were dropped
 * since the last report and `force`, a new reason or REPORT_INTERVAL_US
 * says so (MvPublishQueue::take_report). Called with no lock of ours. */
static void
report_drops (GstMvPublishSink * self, gboolean force)
{
  GstMvPublishSinkPrivate * p = PRIV (self);
  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (self);
  MvPublishDropReport r;

  if (!p->queue->take_report (force, g_get_monotonic_time (),
          REPORT_INTERVAL_US, &r))
    return;
  const std::string why = r.reasons ();
  const gboolean connected = p->connected->load ();
  std::string example;
  if (r.since_by_reason[MV_PUBLISH_DROP_INVALID_TOPIC]) {
    GST_OBJECT_LOCK (self);
    example = std::string ("; first invalid topic: \"")
        + GST_STR_NULL (p->invalid_topic) + "\"";
    GST_OBJECT_UNLOCK (self);
  }

  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("%" G_GUINT64_FORMAT " %s message(s) dropped (%s), %" G_GUINT64_FORMAT
       " in all",
          r.since, klass->transport, why.c_str (), r.total),
      ("%" G_GUINT64_FORMAT " frame and %" G_GUINT64_FORMAT " event "
       "messages dropped since start; %u queued of max-queue=%u; %s "
       "%s%s",
          r.total_frames, r.total_events, r.queued, p->run.max_queue,
          p->endpoint, connected ? "connected" : "not connected",
          example.c_str ()));
  gchar * name = message_name (self, "dropped");
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new (name, "dropped", G_TYPE_UINT64, r.total,
              "dropped-frames", G_TYPE_UINT64, r.total_frames, "dropped-events",
              G_TYPE_UINT64, r.total_events, "queued", G_TYPE_UINT, r.queued,
              "max-queue", G_TYPE_UINT, p->run.max_queue, "reason",
              G_TYPE_STRING, why.c_str (), NULL)));
  g_free (name);
}

static void
post_connection (GstMvPublishSink * self, gboolean connected,
    const gchar * reason)
{
  GstMvPublishSinkPrivate * p = PRIV (self);
  gchar * name = message_name (self, "connection");
  GstStructure * s = p->endpoint_fields
      ? gst_structure_copy (p->endpoint_fields)
      : gst_structure_new_empty (name);

  gst_structure_set_name (s, name);
  gst_structure_set (s, "connected", G_TYPE_BOOLEAN, connected, "reason",
      G_TYPE_STRING, reason, NULL);
  g_free (name);
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self), s));
}

/* The first connection attempt has an outcome (connected, unreachable,
 * refused): an EOS waiting for it goes on (wait_event). */
static void
set_answered (GstMvPublishSink * self)
{
  GstMvPublishSinkPrivate * p = PRIV (self);

  g_mutex_lock (&p->fatal_lock);
  p->answered = TRUE;
  g_cond_broadcast (&p->answer_cond);
  g_mutex_unlock (&p->fatal_lock);
}

/* Posts the fatal error if there is one, not yet posted, and `now` (the
 * caller knows the sink is PLAYING, or stops). TRUE when there is one.
 * With `now`, it returns once the message is on the bus, also when another
 * thread posts it: a render that returned GST_FLOW_ERROR before would let
 * the source's generic "Internal data stream error." reach the bus first
 * (mvmqttsink's test_refused_is_error saw that order once, on a loaded
 * machine); unlock () (a flush, a state change down) ends the wait. The
 * message is posted outside the lock (a bus sync handler may call back). */
static gboolean
post_fatal (GstMvPublishSink * self, gboolean now)
{
  GstMvPublishSinkPrivate * p = PRIV (self);

  g_mutex_lock (&p->fatal_lock);
  const gboolean fatal = p->fatal_text != NULL;
  const gboolean post = fatal && now && !p->fatal_posted;
  if (post)
    p->fatal_posted = TRUE;
  else
    while (fatal && now && !p->fatal_done && !p->flushing)
      g_cond_wait (&p->answer_cond, &p->fatal_lock);
  g_mutex_unlock (&p->fatal_lock);
  if (post) {
    gst_mv_publish_sink_error (self, p->fatal_kind, p->fatal_text,
        p->fatal_debug);
    g_mutex_lock (&p->fatal_lock);
    p->fatal_done = TRUE;
    g_cond_broadcast (&p->answer_cond);
    g_mutex_unlock (&p->fatal_lock);
  }
  return fatal;
}

/* ------------------------------------------- network-thread events */

void
SinkListener::connected ()
{
  GstMvPublishSinkPrivate * p = PRIV (sink_);

  p->connected->store (true);
  const guint queued = p->queue->queued ();
  p->queue->set_sending (true, *p->publish);
  GST_INFO_OBJECT (sink_, "connected to %s, %u message(s) queued", p->endpoint,
      queued);
  set_answered (sink_);
  post_connection (sink_, TRUE, "connected");
}

void
SinkListener::connection_lost (const char * reason)
{
  GstMvPublishSinkPrivate * p = PRIV (sink_);

  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (sink_);

  p->connected->store (false);
  p->reconnects->fetch_add (1);
  if (klass->lost)
    klass->lost (sink_);
  p->queue->set_sending (false, *p->publish);
  GST_ELEMENT_WARNING (sink_, RESOURCE, WRITE,
      ("Lost the connection to %s; reconnecting.", p->endpoint),
      ("%s; messages are queued meanwhile (max-queue=%u)", reason,
          p->run.max_queue));
  post_connection (sink_, FALSE, reason);
}

void
SinkListener::unreachable (const char * reason)
{
  GstMvPublishSinkPrivate * p = PRIV (sink_);

  p->connected->store (false);
  p->queue->set_sending (false, *p->publish);
  GST_ELEMENT_WARNING (sink_, RESOURCE, OPEN_WRITE,
      ("Could not connect to %s; retrying in the background.", p->endpoint),
      ("%s; messages are queued (max-queue=%u) until the broker answers",
          reason, p->run.max_queue));
  set_answered (sink_);
}

void
SinkListener::published (int mid)
{
  GstMvPublishSinkPrivate * p = PRIV (sink_);

  p->queue->published (mid, *p->publish);
}

void
SinkListener::retry (int mid, const char * reason)
{
  GstMvPublishSinkPrivate * p = PRIV (sink_);

  GST_DEBUG_OBJECT (sink_, "message %d back in the queue: %s", mid, reason);
  p->queue->retry (mid, *p->publish);
}

void
SinkListener::failed (int mid, const char * reason)
{
  GstMvPublishSinkPrivate * p = PRIV (sink_);

  GST_WARNING_OBJECT (sink_, "message %d not delivered: %s", mid, reason);
  p->queue->give_up (mid, *p->publish);
  report_drops (sink_, FALSE);
}

/* Kept, and posted now only if the sink is PLAYING (see the notes). The
 * queue shuts down first: a drain at EOS waiting for the connection ends,
 * and the EOS is then refused (wait_event). */
void
SinkListener::fatal (MvPublishError kind, const char * text, const char * debug)
{
  GstMvPublishSinkPrivate * p = PRIV (sink_);

  p->connected->store (false);
  p->queue->shutdown ();
  g_mutex_lock (&p->fatal_lock);
  if (!p->fatal_text) {
    p->fatal_text = g_strdup (text);
    p->fatal_debug = g_strdup (debug);
    p->fatal_kind = kind;
  }
  p->answered = TRUE;
  g_cond_broadcast (&p->answer_cond);
  const gboolean playing = p->playing;
  g_mutex_unlock (&p->fatal_lock);
  GST_DEBUG_OBJECT (sink_, "fatal: %s (%s)%s", text, debug,
      playing ? "" : "; posted once PLAYING");
  post_fatal (sink_, playing);
}

/* ------------------------------------------------------------ start/stop */

static gboolean
gst_mv_publish_sink_start (GstBaseSink * sink)
{
  GstMvPublishSink * self = GST_MV_PUBLISH_SINK (sink);
  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (self);
  GstMvPublishSinkPrivate * p = PRIV (self);

  GST_OBJECT_LOCK (self);
  p->run = p->settings;
  g_clear_pointer (&p->invalid_topic, g_free);
  GST_OBJECT_UNLOCK (self);
  if (p->run.reconnect_delay_max < p->run.reconnect_delay)
    p->run.reconnect_delay_max = p->run.reconnect_delay;

  p->queue->reset (p->run.max_queue,
      klass->max_inflight ? MIN (klass->max_inflight, p->run.max_queue)
                          : MAX (p->run.max_queue / 2, 1u));
  p->connected->store (false);
  p->reconnects->store (0);
  g_mutex_lock (&p->fatal_lock);
  g_clear_pointer (&p->fatal_text, g_free);
  g_clear_pointer (&p->fatal_debug, g_free);
  p->fatal_posted = p->fatal_done = p->answered = FALSE;
  g_mutex_unlock (&p->fatal_lock);
  p->templates[GST_MV_PUBLISH_TEMPLATE_TOPIC] = Template ();
  p->templates[GST_MV_PUBLISH_TEMPLATE_KEY] = Template ();

  if (klass->settings_size) {
    GST_OBJECT_LOCK (self);
    gst_match_settings_copy (G_OBJECT_CLASS (klass),
        G_STRUCT_MEMBER_P (self, klass->run_offset),
        G_STRUCT_MEMBER_P (self, klass->settings_offset), klass->settings_size);
    GST_OBJECT_UNLOCK (self);
  }
  if (!klass->open (self, &p->run))
    return FALSE;
  g_return_val_if_fail (p->templates[GST_MV_PUBLISH_TEMPLATE_TOPIC].set, FALSE);
  p->started = TRUE;
  return TRUE;
}

static gboolean
gst_mv_publish_sink_stop (GstBaseSink * sink)
{
  GstMvPublishSink * self = GST_MV_PUBLISH_SINK (sink);
  GstMvPublishSinkPrivate * p = PRIV (self);

  GST_MV_PUBLISH_SINK_GET_CLASS (self)->close (self);
  p->started = FALSE;
  post_fatal (self, TRUE); /* never PLAYING: not lost either */
  const guint left = p->queue->drop_all (MV_PUBLISH_DROP_STOPPED);
  if (left)
    GST_INFO_OBJECT (self, "%u message(s) still queued at stop", left);
  report_drops (self, TRUE);
  p->connected->store (false);
  return TRUE;
}

static gboolean
gst_mv_publish_sink_unlock (GstBaseSink * sink)
{
  GstMvPublishSinkPrivate * p = PRIV (sink);

  p->queue->set_flushing (true);
  g_mutex_lock (&p->fatal_lock);
  p->flushing = TRUE;
  g_cond_broadcast (&p->answer_cond);
  g_mutex_unlock (&p->fatal_lock);
  return TRUE;
}

static gboolean
gst_mv_publish_sink_unlock_stop (GstBaseSink * sink)
{
  GstMvPublishSinkPrivate * p = PRIV (sink);

  p->queue->set_flushing (false);
  g_mutex_lock (&p->fatal_lock);
  p->flushing = FALSE;
  g_mutex_unlock (&p->fatal_lock);
  return TRUE;
}

/* EOS: waits for the queue to reach the broker, up to drain-timeout;
 * what is left then is counted as dropped. */
static void
drain (GstMvPublishSink * self)
{
  GstMvPublishSinkPrivate * p = PRIV (self);
  const gint64 timeout_us =
      (gint64) MIN (p->run.drain_timeout / GST_USECOND, (guint64) G_MAXINT64);

  if (p->queue->drain (timeout_us) == MvPublishQueue::DrainResult::TIMED_OUT) {
    const guint left = p->queue->drop_all (MV_PUBLISH_DROP_DRAIN_TIMEOUT);
    GST_DEBUG_OBJECT (self, "%u message(s) left at EOS", left);
  }
  report_drops (self, TRUE);
}

static gboolean
gst_mv_publish_sink_event (GstBaseSink * sink, GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && PRIV (sink)->started)
    drain (GST_MV_PUBLISH_SINK (sink));
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

/* EOS (and GAP), once prerolled and PLAYING. Before a first answer from
 * the broker (a stream with nothing to send can end within a millisecond
 * of the start), EOS waits for it, up to drain-timeout, so that a refusal
 * is reported; after a fatal error, the error rather than EOS. */
static GstFlowReturn
gst_mv_publish_sink_wait_event (GstBaseSink * sink, GstEvent * event)
{
  GstMvPublishSink * self = GST_MV_PUBLISH_SINK (sink);
  GstMvPublishSinkPrivate * p = PRIV (self);
  const GstFlowReturn ret =
      GST_BASE_SINK_CLASS (parent_class)->wait_event (sink, event);

  if (ret != GST_FLOW_OK || GST_EVENT_TYPE (event) != GST_EVENT_EOS
      || !p->started)
    return ret;
  const gint64 end = g_get_monotonic_time ()
      + (gint64) MIN (p->run.drain_timeout / GST_USECOND,
          (guint64) G_MAXINT64 / 2);
  g_mutex_lock (&p->fatal_lock);
  while (!p->answered && !p->flushing)
    if (!g_cond_wait_until (&p->answer_cond, &p->fatal_lock, end))
      break;
  g_mutex_unlock (&p->fatal_lock);
  if (post_fatal (self, TRUE))
    return GST_FLOW_ERROR;
  return ret;
}

static GstStateChangeReturn
gst_mv_publish_sink_change_state (GstElement * element,
    GstStateChange transition)
{
  GstMvPublishSink * self = GST_MV_PUBLISH_SINK (element);
  GstMvPublishSinkPrivate * p = PRIV (self);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING) {
    g_mutex_lock (&p->fatal_lock);
    p->playing = TRUE;
    g_mutex_unlock (&p->fatal_lock);
    post_fatal (self, TRUE);
  }
  const GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED) {
    g_mutex_lock (&p->fatal_lock);
    p->playing = FALSE;
    g_mutex_unlock (&p->fatal_lock);
  }
  return ret;
}

/* ---------------------------------------------------------------- render */

static GstFlowReturn
gst_mv_publish_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstMvPublishSink * self = GST_MV_PUBLISH_SINK (sink);
  GstMvPublishSinkClass * klass = GST_MV_PUBLISH_SINK_GET_CLASS (self);
  GstMvPublishSinkPrivate * p = PRIV (self);
  const GstStructure * info = gst_mv_stream_info_get (buf);
  const Template & key = p->templates[GST_MV_PUBLISH_TEMPLATE_KEY];
  MvPublishMessage msg;
  GstMapInfo map;

  if (G_UNLIKELY (!p->started))
    goto not_started;
  if (G_UNLIKELY (post_fatal (self, TRUE)))
    return GST_FLOW_ERROR; /* the error is posted */
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    goto map_failed;
  msg.payload.assign ((const char *) map.data, map.size);
  gst_buffer_unmap (buf, &map);
  {
    /* Buffers from other elements: type "data", camera id "unknown". */
    const gchar * camera =
        info ? gst_structure_get_string (info, "camera-id") : NULL;
    const gchar * type = info ? gst_structure_get_string (info, "type") : NULL;
    const gchar * event =
        info ? gst_structure_get_string (info, "event") : NULL;
    if (!camera || !*camera)
      camera = "unknown";
    if (!type || !*type)
      type = "data";
    if (!event || !*event)
      event = type;
    render (p->templates[GST_MV_PUBLISH_TEMPLATE_TOPIC], camera, type, event,
        klass->value_char_ok, msg.topic);
    if (key.set)
      render (key, camera, type, event, NULL, msg.key);
    msg.is_event = g_strcmp0 (type, "event") == 0;
  }

  if (G_UNLIKELY (
          klass->topic_valid && !klass->topic_valid (msg.topic.c_str ()))) {
    /* Counted and reported (at once the first time), never queued. */
    GST_OBJECT_LOCK (self);
    if (!p->invalid_topic)
      p->invalid_topic = g_strndup (msg.topic.c_str (), 200);
    GST_OBJECT_UNLOCK (self);
    p->queue->drop (msg, MV_PUBLISH_DROP_INVALID_TOPIC);
    report_drops (self, FALSE);
    return GST_FLOW_OK;
  }
  if (!p->queue->push (std::move (msg), *p->publish)) {
    post_fatal (self, TRUE); /* shut down by a fatal error just now */
    return GST_FLOW_ERROR;
  }
  report_drops (self, FALSE);
  return GST_FLOW_OK;

  /* ERRORS */
not_started : {
  GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL), ("not started"));
  return GST_FLOW_ERROR;
}
map_failed : {
  GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Could not map the buffer."),
      (NULL));
  return GST_FLOW_ERROR;
}
}
