/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-mvmqttsink
 * @title: mvmqttsink
 *
 * Publishes every buffer as one MQTT message to a broker, through
 * libmosquitto. Made for the JSON lines of `mvmetastream` (one buffer per
 * frame and per event), it takes any buffer.
 *
 * The topic is #GstMvMqttSink:topic with its placeholders replaced:
 * `{camera-id}` by the buffer's camera id and `{type}` by `frame` or
 * `event` (`mvmetastream` tags each buffer with both), `{event}` by the
 * event's name (`motion-start`, `motion-stop`; empty for frames). Buffers
 * from other elements have type `data` and camera id `unknown`. `/`, `+`
 * and `#` in the values become `_`, so a value is always one topic level.
 *
 * Publishing never blocks the streaming thread: a buffer goes into a queue
 * of at most #GstMvMqttSink:max-queue messages awaiting the broker (not
 * yet sent, or sent and not yet acknowledged at QoS 1 and 2), and
 * libmosquitto's network thread sends them. When the connection is lost
 * (broker restart, network), the network thread reconnects after
 * #GstMvMqttSink:reconnect-delay seconds, doubling the delay after each
 * failed attempt up to #GstMvMqttSink:reconnect-delay-max, and the queue
 * keeps filling; after the reconnection it is sent in order.
 * When the queue is full, the oldest queued frame message is dropped to
 * make room (events are kept as long as the queue holds frames); each drop
 * is counted in #GstMvMqttSink:dropped and reported by an element warning
 * and an element message `mvmqttsink-dropped`, at most once a second. At
 * EOS the sink waits up to #GstMvMqttSink:drain-timeout for the queue to
 * empty; what is still queued then, or at a stop, is counted as dropped
 * and reported too. Nothing is lost silently.
 *
 * Errors: a broker that cannot be reached at start (connection refused,
 * timeout) is a warning, not an error: the sink keeps retrying and queues
 * meanwhile (a camera pipeline should not die because the broker restarts
 * or starts later). An unknown host name, invalid settings (topic, TLS
 * files), a broker that refuses the client (CONNACK: bad user name or
 * password, not authorised, client id rejected) and a TLS handshake that
 * fails before any connection succeeded (certificate not trusted, wrong
 * name) are errors. A connection lost later, TLS or not, is retried.
 *
 * Delivery follows #GstMvMqttSink:qos: at 1 (default) and 2 a message
 * leaves the queue only when the broker has acknowledged it, and
 * libmosquitto sends it again after a reconnection (a subscriber may then
 * get it twice at QoS 1); at 0 a message leaves the queue once written to
 * the socket, so the few written just before a broker dies can be lost
 * without notice (MQTT's "at most once"): use QoS 1 when every message
 * counts.
 *
 * With #GstMvMqttSink:ca-file set the connection uses TLS;
 * #GstMvMqttSink:cert-file and #GstMvMqttSink:key-file add a client
 * certificate.
 *
 * Element messages: `mvmqttsink-connection` (connected: boolean, host,
 * port, reason: string) on each connection and loss of it, and
 * `mvmqttsink-dropped` (dropped, dropped-frames, dropped-events: guint64
 * totals since start; queued, max-queue: guint).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! blockmatchme events=true \
 *     regions=true ! mvmetastream camera-id=door ! \
 *     mvmqttsink host=broker.lan topic="cameras/{camera-id}/{type}" qos=1
 * ]|
 */
/* Implementation notes.
 *
 * Threads: the streaming thread (render) appends to the queue; the
 * network thread (ours, "mvmqttsink-net") runs mosquitto_loop() and with
 * it the callbacks. Both take `lock`, and whichever holds it hands queued
 * messages to mosquitto_publish() while connected and fewer than
 * MAX_INFLIGHT are in flight (with mosquitto_threaded_set() libmosquitto
 * only queues the packet and wakes the loop through its socket pair: the
 * call does not touch the network). Calling mosquitto_publish() under
 * `lock` is safe: libmosquitto calls our callbacks without holding the
 * mutexes that mosquitto_publish() takes. Bus messages are posted only
 * after `lock` is released (posting takes the object lock, which
 * get_property holds). on_log may run inside mosquitto_publish(), so it
 * takes only `log_lock`.
 *
 * Why our own loop rather than mosquitto_loop_start(): the thread of
 * libmosquitto 2.0.11 ends for good on a TLS error, including the
 * "unexpected eof" of a broker that crashes under a TLS connection (no
 * reconnection, ever, and no callback says so), and a first connection
 * refused before that thread runs is never retried either. Owning the
 * loop, the sink retries both, with a true exponential backoff, and turns
 * a TLS failure before any connection (certificates, names: retrying
 * cannot help) into an error.
 *
 * Delivery: a message stays in `inflight` until libmosquitto's on_publish
 * for its mid (QoS 0: written to the socket; QoS 1/2: acknowledged). On a
 * disconnection, QoS 1/2 messages stay in flight (libmosquitto resends
 * them after reconnecting, DUP set), while QoS 0 messages not yet written
 * are dropped by libmosquitto without a callback, so they go back to the
 * front of the queue. At QoS 0, messages written to the socket shortly
 * before a broker dies can still be lost (at most once, as MQTT defines
 * it); QoS 1 is the default.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvmqttsink.h"

#include <mosquitto.h>

#include <atomic>
#include <deque>
#include <map>
#include <string>

#include "common/gstmatchsettings.h"
#include "common/mvstreaminfo.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_mqtt_sink_debug);
#define GST_CAT_DEFAULT gst_mv_mqtt_sink_debug

#define DEFAULT_PROP_HOST "localhost"
#define DEFAULT_PROP_PORT 1883
#define DEFAULT_PROP_TOPIC "gst-motion/{camera-id}/{type}"
#define DEFAULT_PROP_QOS 1
#define DEFAULT_PROP_RETAIN FALSE
#define DEFAULT_PROP_CLIENT_ID NULL
#define DEFAULT_PROP_USERNAME NULL
#define DEFAULT_PROP_PASSWORD NULL
#define DEFAULT_PROP_CA_FILE NULL
#define DEFAULT_PROP_CERT_FILE NULL
#define DEFAULT_PROP_KEY_FILE NULL
#define DEFAULT_PROP_TLS_INSECURE FALSE
#define DEFAULT_PROP_KEEPALIVE 60
#define DEFAULT_PROP_RECONNECT_DELAY 1
#define DEFAULT_PROP_RECONNECT_DELAY_MAX 30
#define DEFAULT_PROP_MAX_QUEUE 1000
#define DEFAULT_PROP_DRAIN_TIMEOUT (5 * GST_SECOND)

/* Messages handed to libmosquitto at a time (also its inflight limit). */
#define MAX_INFLIGHT 20
/* Overflow warnings and messages: at most one per this interval. */
#define REPORT_INTERVAL_US G_USEC_PER_SEC

enum
{
  PROP_0,
  PROP_HOST,
  PROP_PORT,
  PROP_TOPIC,
  PROP_QOS,
  PROP_RETAIN,
  PROP_CLIENT_ID,
  PROP_USERNAME,
  PROP_PASSWORD,
  PROP_CA_FILE,
  PROP_CERT_FILE,
  PROP_KEY_FILE,
  PROP_TLS_INSECURE,
  PROP_KEEPALIVE,
  PROP_RECONNECT_DELAY,
  PROP_RECONNECT_DELAY_MAX,
  PROP_MAX_QUEUE,
  PROP_DRAIN_TIMEOUT,
  PROP_DROPPED,
  PROP_QUEUED,
  PROP_CONNECTED,
};

/* Protected by the object lock; copied at start. Its properties are kept
 * through gst_match_settings (offsets, common/gstmatchsettings.h). */
struct Settings
{
  gchar *host;
  gint port;
  gchar *topic;
  gint qos;
  gboolean retain;
  gchar *client_id;
  gchar *username;
  gchar *password;
  gchar *ca_file;
  gchar *cert_file;
  gchar *key_file;
  gboolean tls_insecure;
  gint keepalive;
  guint reconnect_delay;
  guint reconnect_delay_max;
  guint max_queue;
  guint64 drain_timeout;
};
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)


/* *INDENT-OFF* */
struct Message
{
  std::string topic;
  std::string payload;
  bool is_event = false;
};

/* Everything the two threads share, under `lock`. */
struct Shared
{
  std::deque<Message> pending;          /* not yet handed to libmosquitto */
  std::map<int, Message> inflight;      /* by mid, awaiting on_publish */
  bool connected = false;
  bool fatal = false;                   /* an error was posted */
  bool warned_unreachable = false;      /* this outage is reported */
  bool flushing = false;
  guint64 dropped_frames = 0;
  guint64 dropped_events = 0;
  guint64 reported = 0;                 /* drops already reported */
  gint64 last_report_us = 0;
};
/* *INDENT-ON* */

struct _GstMvMqttSink
{
  GstBaseSink parent;

  Settings settings;

  /* From start to stop. */
  Settings run;                 /* the copy in use (strings owned) */
  struct mosquitto *mosq;
  GThread *net_thread;          /* runs mosquitto_loop(), see notes */
  guint attempt;                /* net thread: failed attempts in a row */
  gboolean ever_connected;      /* net thread */

  GMutex net_lock;              /* stop flag and the reconnection wait */
  GCond net_cond;
  gboolean net_stop;

  GMutex log_lock;              /* on_log may run on either thread */
  gchar *tls_error;             /* last OpenSSL error libmosquitto logged */

  GMutex lock;
  GCond cond;                   /* queue emptied, flushing, fatal */
  Shared *shared;

  std::atomic < guint64 > *dropped;     /* readable without any lock */
  std::atomic < guint > *queued;
  std::atomic < bool > *connected;
};

#define gst_mv_mqtt_sink_parent_class parent_class
G_DEFINE_TYPE (GstMvMqttSink, gst_mv_mqtt_sink, GST_TYPE_BASE_SINK);
GST_ELEMENT_REGISTER_DEFINE (mvmqttsink, "mvmqttsink", GST_RANK_NONE,
    GST_TYPE_MV_MQTT_SINK);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);

static void gst_mv_mqtt_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_mv_mqtt_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_mv_mqtt_sink_finalize (GObject * object);
static gboolean gst_mv_mqtt_sink_start (GstBaseSink * sink);
static gboolean gst_mv_mqtt_sink_stop (GstBaseSink * sink);
static gboolean gst_mv_mqtt_sink_unlock (GstBaseSink * sink);
static gboolean gst_mv_mqtt_sink_unlock_stop (GstBaseSink * sink);
static gboolean gst_mv_mqtt_sink_event (GstBaseSink * sink, GstEvent * event);
static GstFlowReturn gst_mv_mqtt_sink_render (GstBaseSink * sink,
    GstBuffer * buf);

static void
gst_mv_mqtt_sink_class_init (GstMvMqttSinkClass * klass)
{
  GObjectClass *gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass *element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass *sink_class = GST_BASE_SINK_CLASS (klass);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE |
      G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  const GParamFlags ro = (GParamFlags) (G_PARAM_READABLE |
      G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_mv_mqtt_sink_set_property;
  gobject_class->get_property = gst_mv_mqtt_sink_get_property;
  gobject_class->finalize = gst_mv_mqtt_sink_finalize;

  gst_match_settings_install (gobject_class, PROP_HOST,
      SETTING (host),
      g_param_spec_string ("host", "Host",
          "Host name or address of the MQTT broker", DEFAULT_PROP_HOST,
          rw_ready));
  gst_match_settings_install (gobject_class, PROP_PORT,
      SETTING (port),
      g_param_spec_int ("port", "Port",
          "TCP port of the MQTT broker (1883; 8883 is the usual TLS port)", 1,
          65535, DEFAULT_PROP_PORT, rw_ready));
  /**
   * GstMvMqttSink:topic:
   *
   * Topic template: `{camera-id}`, `{type}` (frame, event) and `{event}`
   * (motion-start, motion-stop) are replaced per buffer; the result must
   * be a valid topic to publish to (no `+` or `#`).
   */
  gst_match_settings_install (gobject_class, PROP_TOPIC,
      SETTING (topic),
      g_param_spec_string ("topic", "Topic",
          "Topic template; {camera-id}, {type} (frame/event) and {event} "
          "(motion-start/motion-stop) are replaced per message",
          DEFAULT_PROP_TOPIC, rw_ready));
  gst_match_settings_install (gobject_class, PROP_QOS,
      SETTING (qos),
      g_param_spec_int ("qos", "QoS",
          "MQTT quality of service: 0 at most once, 1 at least once, 2 "
          "exactly once", 0, 2, DEFAULT_PROP_QOS, rw_ready));
  gst_match_settings_install (gobject_class, PROP_RETAIN,
      SETTING (retain),
      g_param_spec_boolean ("retain", "Retain",
          "Publish retained messages: the broker keeps the latest message of "
          "each topic (latest frame, latest event) for new subscribers",
          DEFAULT_PROP_RETAIN, rw_ready));
  gst_match_settings_install (gobject_class, PROP_CLIENT_ID,
      SETTING (client_id),
      g_param_spec_string ("client-id", "Client id",
          "MQTT client id (NULL: a random one from libmosquitto); must be "
          "unique per broker", DEFAULT_PROP_CLIENT_ID, rw_ready));
  gst_match_settings_install (gobject_class, PROP_USERNAME,
      SETTING (username),
      g_param_spec_string ("username", "User name",
          "User name for the broker (NULL: none)", DEFAULT_PROP_USERNAME,
          rw_ready));
  gst_match_settings_install (gobject_class, PROP_PASSWORD,
      SETTING (password),
      g_param_spec_string ("password", "Password",
          "Password for the broker (with username)", DEFAULT_PROP_PASSWORD,
          rw_ready));
  gst_match_settings_install (gobject_class, PROP_CA_FILE,
      SETTING (ca_file),
      g_param_spec_string ("ca-file", "CA file",
          "PEM file of the certificate authorities that sign the broker's "
          "certificate; set, the connection uses TLS", DEFAULT_PROP_CA_FILE,
          rw_ready));
  gst_match_settings_install (gobject_class, PROP_CERT_FILE,
      SETTING (cert_file),
      g_param_spec_string ("cert-file", "Certificate file",
          "PEM client certificate for TLS (needs ca-file and key-file)",
          DEFAULT_PROP_CERT_FILE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_KEY_FILE,
      SETTING (key_file),
      g_param_spec_string ("key-file", "Key file",
          "PEM private key of cert-file (not encrypted)",
          DEFAULT_PROP_KEY_FILE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_TLS_INSECURE,
      SETTING (tls_insecure),
      g_param_spec_boolean ("tls-insecure", "TLS insecure",
          "Do not check that the broker's certificate matches its host name "
          "(testing only)", DEFAULT_PROP_TLS_INSECURE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_KEEPALIVE,
      SETTING (keepalive),
      g_param_spec_int ("keepalive", "Keepalive",
          "Seconds between MQTT pings when nothing else is sent", 5, 65535,
          DEFAULT_PROP_KEEPALIVE, rw_ready));
  /**
   * GstMvMqttSink:reconnect-delay:
   *
   * After a lost or failed connection, attempt n (n = 0, 1, ...) waits
   * reconnect-delay * 2^n seconds, at most reconnect-delay-max; a
   * successful connection starts again from n = 0.
   */
  gst_match_settings_install (gobject_class, PROP_RECONNECT_DELAY,
      SETTING (reconnect_delay),
      g_param_spec_uint ("reconnect-delay", "Reconnect delay",
          "Seconds before the first reconnection attempt; each failed "
          "attempt doubles the wait, up to reconnect-delay-max", 1, 3600,
          DEFAULT_PROP_RECONNECT_DELAY, rw_ready));
  gst_match_settings_install (gobject_class, PROP_RECONNECT_DELAY_MAX,
      SETTING (reconnect_delay_max),
      g_param_spec_uint ("reconnect-delay-max", "Maximum reconnect delay",
          "Longest wait between reconnection attempts, in seconds", 1, 3600,
          DEFAULT_PROP_RECONNECT_DELAY_MAX, rw_ready));
  gst_match_settings_install (gobject_class, PROP_MAX_QUEUE,
      SETTING (max_queue),
      g_param_spec_uint ("max-queue", "Maximum queue",
          "Messages awaiting the broker (queued or unacknowledged) at most; "
          "beyond, the oldest frame message is dropped (counted in dropped "
          "and reported)", 1, G_MAXINT, DEFAULT_PROP_MAX_QUEUE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_DRAIN_TIMEOUT,
      SETTING (drain_timeout),
      g_param_spec_uint64 ("drain-timeout", "Drain timeout",
          "Nanoseconds to wait at EOS for the queue to reach the broker; "
          "what is left is counted as dropped", 0, G_MAXUINT64,
          DEFAULT_PROP_DRAIN_TIMEOUT, rw_ready));
  g_object_class_install_property (gobject_class, PROP_DROPPED,
      g_param_spec_uint64 ("dropped", "Dropped",
          "Messages dropped since start (queue overflow, or still queued at "
          "EOS after drain-timeout or at stop)", 0, G_MAXUINT64, 0, ro));
  g_object_class_install_property (gobject_class, PROP_QUEUED,
      g_param_spec_uint ("queued", "Queued",
          "Messages now awaiting the broker", 0, G_MAXUINT, 0, ro));
  g_object_class_install_property (gobject_class, PROP_CONNECTED,
      g_param_spec_boolean ("connected", "Connected",
          "Connected to the broker now", FALSE, ro));

  gst_element_class_set_static_metadata (element_class,
      "MQTT sink for motion metadata", "Sink/Network",
      "Publishes each buffer (mvmetastream's JSON lines) as an MQTT message, "
      "with a bounded queue and reconnection", "gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);

  sink_class->start = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_stop);
  sink_class->unlock = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_unlock);
  sink_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_unlock_stop);
  sink_class->event = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_event);
  sink_class->render = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_render);

  gst_mv_stream_info_meta_get_info ();
  mosquitto_lib_init ();

  GST_DEBUG_CATEGORY_INIT (gst_mv_mqtt_sink_debug, "mvmqttsink", 0,
      "MQTT sink");
}

static void
gst_mv_mqtt_sink_init (GstMvMqttSink * self)
{
  /* Zeroed first: the settings own their strings (gstmatchsettings.h). */
  memset (&self->settings, 0, sizeof self->settings);
  gst_match_settings_init (G_OBJECT_GET_CLASS (self), &self->settings);
  memset (&self->run, 0, sizeof self->run);

  self->mosq = NULL;
  self->net_thread = NULL;
  self->attempt = 0;
  self->ever_connected = FALSE;
  g_mutex_init (&self->net_lock);
  g_cond_init (&self->net_cond);
  self->net_stop = FALSE;
  g_mutex_init (&self->log_lock);
  self->tls_error = NULL;
  g_mutex_init (&self->lock);
  g_cond_init (&self->cond);
  self->shared = new Shared ();
  self->dropped = new std::atomic < guint64 > (0);
  self->queued = new std::atomic < guint > (0);
  self->connected = new std::atomic < bool > (false);
}

static void
gst_mv_mqtt_sink_finalize (GObject * object)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (object);

  gst_match_settings_clear (G_OBJECT_GET_CLASS (self), &self->settings);
  gst_match_settings_clear (G_OBJECT_GET_CLASS (self), &self->run);
  g_mutex_clear (&self->lock);
  g_cond_clear (&self->cond);
  g_mutex_clear (&self->net_lock);
  g_cond_clear (&self->net_cond);
  g_mutex_clear (&self->log_lock);
  g_free (self->tls_error);
  delete self->shared;
  delete self->dropped;
  delete self->queued;
  delete self->connected;
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_mqtt_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (object);

  GST_OBJECT_LOCK (self);
  if (!gst_match_settings_set (&self->settings, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_mqtt_sink_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (object);

  GST_OBJECT_LOCK (self);
  if (!gst_match_settings_get (&self->settings, pspec, value)) {
    switch (prop_id) {
      case PROP_DROPPED:
        g_value_set_uint64 (value, self->dropped->load ());
        break;
      case PROP_QUEUED:
        g_value_set_uint (value, self->queued->load ());
        break;
      case PROP_CONNECTED:
        g_value_set_boolean (value, self->connected->load ());
        break;
      default:
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
        break;
    }
  }
  GST_OBJECT_UNLOCK (self);
}

/* ------------------------------------------------------------ the queue */

/* Called with `lock` held. */
static void
update_counters_locked (GstMvMqttSink * self)
{
  Shared & sh = *self->shared;

  self->queued->store ((guint) (sh.pending.size () + sh.inflight.size ()));
  self->dropped->store (sh.dropped_frames + sh.dropped_events);
  if (sh.pending.empty () && sh.inflight.empty ())
    g_cond_broadcast (&self->cond);
}

/* Hands queued messages to libmosquitto while connected and below
 * MAX_INFLIGHT. Called with `lock` held, from either thread. */
static void
pump_locked (GstMvMqttSink * self)
{
  Shared & sh = *self->shared;

  while (sh.connected && !sh.fatal && !sh.pending.empty ()
      && sh.inflight.size () < MAX_INFLIGHT) {
    Message & m = sh.pending.front ();
    int mid = 0;
    const int rc = mosquitto_publish (self->mosq, &mid, m.topic.c_str (),
        (int) m.payload.size (), m.payload.data (), self->run.qos,
        self->run.retain);
    if (rc == MOSQ_ERR_NO_CONN) {
      /* Lost meanwhile: on_disconnect follows, the message stays. */
      GST_DEBUG_OBJECT (self, "not connected: keeping %u queued",
          (guint) sh.pending.size ());
      break;
    }
    if (rc != MOSQ_ERR_SUCCESS) {
      /* Checked at start (topic, qos) so this is not expected; the message
       * is counted as dropped rather than retried forever. */
      GST_WARNING_OBJECT (self, "mosquitto_publish on \"%s\": %s",
          m.topic.c_str (), mosquitto_strerror (rc));
      (m.is_event ? sh.dropped_events : sh.dropped_frames)++;
      sh.pending.pop_front ();
      continue;
    }
    sh.inflight.emplace (mid, std::move (m));
    sh.pending.pop_front ();
  }
  update_counters_locked (self);
}

/* Posts the overflow warning and message when drops happened since the
 * last report and `force` or REPORT_INTERVAL_US has passed. Called
 * without `lock`. */
static void
report_drops (GstMvMqttSink * self, gboolean force, const gchar * why)
{
  g_mutex_lock (&self->lock);
  Shared & sh = *self->shared;
  const guint64 total = sh.dropped_frames + sh.dropped_events;
  const gint64 now = g_get_monotonic_time ();
  if (total == sh.reported || (!force
          && now - sh.last_report_us < REPORT_INTERVAL_US)) {
    g_mutex_unlock (&self->lock);
    return;
  }
  const guint64 since = total - sh.reported;
  const guint64 frames = sh.dropped_frames, events = sh.dropped_events;
  const guint queued = (guint) (sh.pending.size () + sh.inflight.size ());
  const gboolean connected = sh.connected;
  sh.reported = total;
  sh.last_report_us = now;
  g_mutex_unlock (&self->lock);

  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("%" G_GUINT64_FORMAT " MQTT message(s) dropped (%s), %"
          G_GUINT64_FORMAT " in all", since, why, total),
      ("%" G_GUINT64_FORMAT " frame and %" G_GUINT64_FORMAT " event "
          "messages dropped since start; %u queued of max-queue=%u; broker "
          "%s:%d %s", frames, events, queued, self->run.max_queue,
          self->run.host, self->run.port,
          connected ? "connected" : "not connected"));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("mvmqttsink-dropped",
              "dropped", G_TYPE_UINT64, total,
              "dropped-frames", G_TYPE_UINT64, frames,
              "dropped-events", G_TYPE_UINT64, events,
              "queued", G_TYPE_UINT, queued,
              "max-queue", G_TYPE_UINT, self->run.max_queue,
              "reason", G_TYPE_STRING, why, NULL)));
}

/* Counts everything still queued as dropped (EOS timeout, stop). */
static guint
drop_all (GstMvMqttSink * self)
{
  g_mutex_lock (&self->lock);
  Shared & sh = *self->shared;
  guint n = 0;
  for (const Message & m:sh.pending) {
    (m.is_event ? sh.dropped_events : sh.dropped_frames)++;
    n++;
  }
  for (const auto & kv:sh.inflight) {
    (kv.second.is_event ? sh.dropped_events : sh.dropped_frames)++;
    n++;
  }
  sh.pending.clear ();
  sh.inflight.clear ();
  update_counters_locked (self);
  g_mutex_unlock (&self->lock);
  return n;
}

/* ---------------------------------------------------- network callbacks */

static void
post_connection (GstMvMqttSink * self, gboolean connected,
    const gchar * reason)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("mvmqttsink-connection",
              "connected", G_TYPE_BOOLEAN, connected,
              "host", G_TYPE_STRING, self->run.host,
              "port", G_TYPE_INT, self->run.port,
              "reason", G_TYPE_STRING, reason, NULL)));
}

static void
on_connect (struct mosquitto *, void *userdata, int rc)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (userdata);

  if (rc != 0) {
    /* The error first: a drain at EOS waiting for the connection ends on
     * `fatal`, and the EOS must not reach the bus before the error. */
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("The MQTT broker %s:%d refused the connection: %s.",
            self->run.host, self->run.port, mosquitto_connack_string (rc)),
        ("CONNACK return code %d (check username, password and client-id)",
            rc));
    g_mutex_lock (&self->lock);
    self->shared->fatal = true;
    g_cond_broadcast (&self->cond);
    g_mutex_unlock (&self->lock);
    /* Stop the reconnection attempts: this answer will not change. */
    mosquitto_disconnect (self->mosq);
    return;
  }

  self->attempt = 0;            /* on_connect runs on the net thread */
  self->ever_connected = TRUE;
  g_mutex_lock (&self->lock);
  Shared & sh = *self->shared;
  sh.connected = true;
  sh.warned_unreachable = false;
  self->connected->store (true);
  const guint queued = (guint) (sh.pending.size () + sh.inflight.size ());
  pump_locked (self);
  g_mutex_unlock (&self->lock);

  GST_INFO_OBJECT (self, "connected to %s:%d, %u message(s) queued",
      self->run.host, self->run.port, queued);
  post_connection (self, TRUE, "connected");
}

static void
on_disconnect (struct mosquitto *, void *userdata, int rc)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (userdata);

  g_mutex_lock (&self->lock);
  Shared & sh = *self->shared;
  const bool was_connected = sh.connected;
  sh.connected = false;
  self->connected->store (false);
  /* QoS 0 packets not yet written are gone from libmosquitto without a
   * callback: back to the front of the queue, in their order. QoS 1/2
   * ones are resent by libmosquitto after the reconnection. */
  if (self->run.qos == 0 && !sh.inflight.empty ()) {
    for (auto it = sh.inflight.rbegin (); it != sh.inflight.rend (); ++it)
      sh.pending.push_front (std::move (it->second));
    sh.inflight.clear ();
  }
  const gboolean fatal = sh.fatal;
  /* One warning per outage: the first connection that fails, or the loss
   * of an established one; failed reconnection attempts stay quiet. */
  const gboolean warn = rc != 0 && !fatal && (was_connected
      || !sh.warned_unreachable);
  if (warn)
    sh.warned_unreachable = true;
  update_counters_locked (self);
  g_mutex_unlock (&self->lock);

  if (rc == 0 || fatal)
    return;                     /* our own disconnect (stop, refusal) */
  if (was_connected) {
    GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
        ("Lost the connection to the MQTT broker %s:%d; reconnecting.",
            self->run.host, self->run.port),
        ("%s (rc %d); messages are queued meanwhile (max-queue=%u)",
            mosquitto_strerror (rc), rc, self->run.max_queue));
    post_connection (self, FALSE, mosquitto_strerror (rc));
  } else if (warn) {
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
        ("Could not connect to the MQTT broker %s:%d; retrying in the "
            "background.", self->run.host, self->run.port),
        ("%s (rc %d); messages are queued (max-queue=%u) until the broker "
            "answers", mosquitto_strerror (rc), rc, self->run.max_queue));
  }
}

static void
on_publish (struct mosquitto *, void *userdata, int mid)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (userdata);

  g_mutex_lock (&self->lock);
  self->shared->inflight.erase (mid);
  pump_locked (self);
  g_mutex_unlock (&self->lock);
}

static void
on_log (struct mosquitto *, void *userdata, int level, const char *str)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (userdata);

  if (level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING))
    GST_WARNING_OBJECT (self, "libmosquitto: %s", str);
  else
    GST_LOG_OBJECT (self, "libmosquitto: %s", str);
  /* libmosquitto reports TLS failures only through its log. */
  if ((level & MOSQ_LOG_ERR) && g_str_has_prefix (str, "OpenSSL Error")) {
    g_mutex_lock (&self->log_lock);
    if (!self->tls_error)
      self->tls_error = g_strdup (str);
    g_mutex_unlock (&self->log_lock);
  }
}

/* Takes the TLS error logged since the last call (NULL if none). */
static gchar *
take_tls_error (GstMvMqttSink * self)
{
  g_mutex_lock (&self->log_lock);
  gchar *e = self->tls_error;
  self->tls_error = NULL;
  g_mutex_unlock (&self->log_lock);
  return e;
}

/* Waits `seconds` or until stop; TRUE when stopping. */
static gboolean
net_wait (GstMvMqttSink * self, guint64 seconds)
{
  const gint64 end = g_get_monotonic_time () + (gint64) seconds *
      G_USEC_PER_SEC;
  g_mutex_lock (&self->net_lock);
  while (!self->net_stop)
    if (!g_cond_wait_until (&self->net_cond, &self->net_lock, end))
      break;
  const gboolean stop = self->net_stop;
  g_mutex_unlock (&self->net_lock);
  return stop;
}

static gboolean
net_stopping (GstMvMqttSink * self)
{
  g_mutex_lock (&self->net_lock);
  const gboolean stop = self->net_stop;
  g_mutex_unlock (&self->net_lock);
  return stop;
}

/* The network thread: libmosquitto's loop, the reconnections and their
 * backoff (see the notes at the top for why not mosquitto_loop_start). */
static gpointer
net_thread_func (gpointer data)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (data);
  const Settings & r = self->run;

  while (!net_stopping (self)) {
    /* Short timeouts keep the stop responsive; publishing from the
     * streaming thread wakes the loop through libmosquitto's socket
     * pair. */
    int rc = mosquitto_loop (self->mosq, 100, 1);
    if (rc == MOSQ_ERR_SUCCESS)
      continue;

    g_mutex_lock (&self->lock);
    const bool fatal = self->shared->fatal;
    g_mutex_unlock (&self->lock);
    if (fatal) {
      net_wait (self, G_MAXUINT32);     /* an error is posted: until stop */
      break;
    }

    gchar *tls = take_tls_error (self);
    if (tls && !self->ever_connected) {
      /* Never connected and the TLS handshake fails: certificates or
       * names that will not change by retrying. */
      GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
          ("TLS connection to the MQTT broker %s:%d failed.", r.host,
              r.port),
          ("%s (check ca-file, cert-file, key-file and that the broker's "
              "certificate names the host)", tls));
      g_free (tls);
      g_mutex_lock (&self->lock);
      self->shared->fatal = true;
      g_cond_broadcast (&self->cond);
      g_mutex_unlock (&self->lock);
      continue;
    }
    if (tls)
      GST_INFO_OBJECT (self, "TLS connection lost: %s", tls);
    g_free (tls);

    /* Exponential backoff: reconnect-delay * 2^attempt, at most
     * reconnect-delay-max. */
    const guint shift = MIN (self->attempt, 16u);
    const guint64 delay = MIN ((guint64) r.reconnect_delay << shift,
        (guint64) r.reconnect_delay_max);
    self->attempt++;
    GST_DEBUG_OBJECT (self, "connection down (%s); attempt %u in %"
        G_GUINT64_FORMAT " s", mosquitto_strerror (rc), self->attempt, delay);
    if (net_wait (self, delay))
      break;
    rc = mosquitto_reconnect_async (self->mosq);
    if (rc != MOSQ_ERR_SUCCESS)
      GST_DEBUG_OBJECT (self, "reconnect: %s", mosquitto_strerror (rc));
  }

  /* Let a DISCONNECT queued by stop reach the broker. */
  for (int i = 0; i < 3; i++)
    if (mosquitto_loop (self->mosq, 20, 1) != MOSQ_ERR_SUCCESS)
      break;
  return NULL;
}

/* ------------------------------------------------------------ start/stop */

/* Disconnects, ends the network thread and frees the client. Not under
 * `lock`: the network thread may be waiting for it in a callback, and
 * this joins that thread (waking it from a reconnection delay). */
static void
release_client (GstMvMqttSink * self)
{
  if (!self->mosq)
    return;
  g_mutex_lock (&self->net_lock);
  self->net_stop = TRUE;
  g_cond_broadcast (&self->net_cond);
  g_mutex_unlock (&self->net_lock);
  mosquitto_disconnect (self->mosq);
  if (self->net_thread)
    g_thread_join (self->net_thread);
  self->net_thread = NULL;
  mosquitto_destroy (self->mosq);
  self->mosq = NULL;
  g_free (take_tls_error (self));
}

/* The template with placeholders replaced by "x" must be a valid topic. */
static gboolean
topic_template_ok (const gchar * tmpl)
{
  if (!tmpl || !*tmpl)
    return FALSE;
  GString *t = g_string_new (tmpl);
  g_string_replace (t, "{camera-id}", "x", 0);
  g_string_replace (t, "{type}", "x", 0);
  g_string_replace (t, "{event}", "x", 0);
  const gboolean ok = mosquitto_pub_topic_check (t->str) == MOSQ_ERR_SUCCESS;
  g_string_free (t, TRUE);
  return ok;
}

static gboolean
file_readable (const gchar * path)
{
  return !path || g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static gboolean
gst_mv_mqtt_sink_start (GstBaseSink * sink)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (sink);
  Settings & r = self->run;
  gchar *tls_error = NULL;
  int rc;

  GST_OBJECT_LOCK (self);
  gst_match_settings_copy (G_OBJECT_GET_CLASS (self), &r, &self->settings,
      sizeof r);
  GST_OBJECT_UNLOCK (self);

  g_mutex_lock (&self->lock);
  delete self->shared;
  self->shared = new Shared ();
  update_counters_locked (self);
  self->connected->store (false);
  g_mutex_unlock (&self->lock);

  if (!r.host || !*r.host)
    goto no_host;
  if (!topic_template_ok (r.topic))
    goto bad_topic;
  if (r.reconnect_delay_max < r.reconnect_delay)
    r.reconnect_delay_max = r.reconnect_delay;
  if (!file_readable (r.ca_file) || !file_readable (r.cert_file)
      || !file_readable (r.key_file))
    goto tls_file;
  if ((r.cert_file || r.key_file) && (!r.cert_file || !r.key_file
          || !r.ca_file))
    goto tls_settings;

  self->mosq = mosquitto_new (r.client_id, true, self);
  if (!self->mosq)
    goto no_client;
  mosquitto_connect_callback_set (self->mosq, on_connect);
  mosquitto_disconnect_callback_set (self->mosq, on_disconnect);
  mosquitto_publish_callback_set (self->mosq, on_publish);
  mosquitto_log_callback_set (self->mosq, on_log);
  mosquitto_int_option (self->mosq, MOSQ_OPT_PROTOCOL_VERSION,
      MQTT_PROTOCOL_V311);
  mosquitto_max_inflight_messages_set (self->mosq, MAX_INFLIGHT);
  /* Our own thread calls mosquitto_loop(): in this mode libmosquitto
   * only queues packets from other threads and wakes the loop. */
  mosquitto_threaded_set (self->mosq, true);
  if (r.username
      && (rc = mosquitto_username_pw_set (self->mosq, r.username,
              r.password)) != MOSQ_ERR_SUCCESS)
    goto setup_failed;
  if (r.ca_file) {
    if ((rc = mosquitto_tls_set (self->mosq, r.ca_file, NULL, r.cert_file,
                r.key_file, NULL)) != MOSQ_ERR_SUCCESS)
      goto setup_failed;
    if ((rc = mosquitto_tls_insecure_set (self->mosq, r.tls_insecure))
        != MOSQ_ERR_SUCCESS)
      goto setup_failed;
  }

  /* Resolves the host and starts the TCP connection, without waiting for
   * the broker's answer (on_connect, on the network thread). */
  rc = mosquitto_connect_async (self->mosq, r.host, r.port, r.keepalive);
  if (rc == MOSQ_ERR_EAI)
    goto unknown_host;
  /* The TLS handshake may already have run (and failed) in there. */
  tls_error = take_tls_error (self);
  if (tls_error || rc == MOSQ_ERR_TLS)
    goto tls_failed;
  if (rc == MOSQ_ERR_ERRNO) {
    const int err = errno;
    g_mutex_lock (&self->lock);
    self->shared->warned_unreachable = true;
    g_mutex_unlock (&self->lock);
    GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
        ("Could not connect to the MQTT broker %s:%d; retrying in the "
            "background.", r.host, r.port),
        ("%s; messages are queued (max-queue=%u) until the broker answers",
            g_strerror (err), r.max_queue));
  } else if (rc != MOSQ_ERR_SUCCESS) {
    goto setup_failed;
  }
  self->attempt = 0;
  self->ever_connected = FALSE;
  self->net_stop = FALSE;
  self->net_thread = g_thread_new ("mvmqttsink-net", net_thread_func, self);
  GST_INFO_OBJECT (self, "publishing to %s:%d, topic \"%s\", qos %d%s",
      r.host, r.port, r.topic, r.qos, r.retain ? ", retained" : "");
  return TRUE;

  /* ERRORS */
no_host:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("No MQTT broker host given."), ("set the host property"));
    return FALSE;
  }
bad_topic:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Invalid MQTT topic template \"%s\".", GST_STR_NULL (r.topic)),
        ("a topic to publish to: not empty, no '+' or '#', valid UTF-8"));
    return FALSE;
  }
tls_file:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("A TLS file (ca-file, cert-file or key-file) is not readable."),
        ("ca-file=%s cert-file=%s key-file=%s", GST_STR_NULL (r.ca_file),
            GST_STR_NULL (r.cert_file), GST_STR_NULL (r.key_file)));
    return FALSE;
  }
tls_settings:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Incomplete TLS settings."),
        ("a client certificate needs cert-file, key-file and ca-file"));
    return FALSE;
  }
no_client:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
        ("Could not create the MQTT client."),
        ("mosquitto_new: %s", g_strerror (errno)));
    return FALSE;
  }
unknown_host:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
        ("Unknown MQTT broker host \"%s\".", r.host),
        ("the host name does not resolve"));
    release_client (self);
    return FALSE;
  }
tls_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
        ("TLS connection to the MQTT broker %s:%d failed.", r.host, r.port),
        ("%s (check ca-file, cert-file, key-file and that the broker's "
            "certificate names the host)",
            tls_error ? tls_error : mosquitto_strerror (rc)));
    g_free (tls_error);
    release_client (self);
    return FALSE;
  }
setup_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
        ("Could not set up the MQTT client for %s:%d.", r.host, r.port),
        ("%s", mosquitto_strerror (rc)));
    release_client (self);
    return FALSE;
  }
}

static gboolean
gst_mv_mqtt_sink_stop (GstBaseSink * sink)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (sink);

  release_client (self);
  const guint left = drop_all (self);
  if (left)
    GST_INFO_OBJECT (self, "%u message(s) still queued at stop", left);
  report_drops (self, TRUE, "not delivered before stop");
  self->connected->store (false);
  return TRUE;
}

static gboolean
gst_mv_mqtt_sink_unlock (GstBaseSink * sink)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (sink);

  g_mutex_lock (&self->lock);
  self->shared->flushing = true;
  g_cond_broadcast (&self->cond);
  g_mutex_unlock (&self->lock);
  return TRUE;
}

static gboolean
gst_mv_mqtt_sink_unlock_stop (GstBaseSink * sink)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (sink);

  g_mutex_lock (&self->lock);
  self->shared->flushing = false;
  g_mutex_unlock (&self->lock);
  return TRUE;
}

/* EOS: waits for the queue to reach the broker, up to drain-timeout. */
static void
drain (GstMvMqttSink * self)
{
  const gint64 end = g_get_monotonic_time () +
      (gint64) MIN (self->run.drain_timeout / GST_USECOND,
      (guint64) G_MAXINT64 / 2);
  gboolean timed_out = FALSE;

  g_mutex_lock (&self->lock);
  Shared & sh = *self->shared;
  while (!sh.pending.empty () || !sh.inflight.empty ()) {
    if (sh.flushing || sh.fatal)
      break;
    if (!g_cond_wait_until (&self->cond, &self->lock, end)) {
      timed_out = TRUE;
      break;
    }
  }
  const guint left = (guint) (sh.pending.size () + sh.inflight.size ());
  g_mutex_unlock (&self->lock);

  if (timed_out && left > 0) {
    drop_all (self);
    GST_DEBUG_OBJECT (self, "%u message(s) left at EOS", left);
    report_drops (self, TRUE, "broker not reached before drain-timeout at "
        "EOS");
  } else {
    report_drops (self, TRUE, "queue full");
  }
}

static gboolean
gst_mv_mqtt_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->mosq)
    drain (self);
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

/* ---------------------------------------------------------------- render */

/* Appends `value` with '/', '+', '#' made '_' (one topic level). */
static void
append_level (std::string & out, const gchar * value)
{
  for (const gchar * p = value; *p; p++)
    out += (*p == '/' || *p == '+' || *p == '#') ? '_' : *p;
}

static std::string
make_topic (const gchar * tmpl, const GstStructure * info)
{
  const gchar *camera = info ? gst_structure_get_string (info, "camera-id")
      : NULL;
  const gchar *type = info ? gst_structure_get_string (info, "type") : NULL;
  const gchar *event = info ? gst_structure_get_string (info, "event") : NULL;
  std::string out;

  for (const gchar * p = tmpl; *p;) {
    if (g_str_has_prefix (p, "{camera-id}")) {
      append_level (out, camera && *camera ? camera : "unknown");
      p += strlen ("{camera-id}");
    } else if (g_str_has_prefix (p, "{type}")) {
      append_level (out, type ? type : "data");
      p += strlen ("{type}");
    } else if (g_str_has_prefix (p, "{event}")) {
      append_level (out, event ? event : "");
      p += strlen ("{event}");
    } else {
      out += *p++;
    }
  }
  return out;
}

static GstFlowReturn
gst_mv_mqtt_sink_render (GstBaseSink * sink, GstBuffer * buf)
{
  GstMvMqttSink *self = GST_MV_MQTT_SINK (sink);
  const GstStructure *info = gst_mv_stream_info_get (buf);
  Message msg;
  GstMapInfo map;

  if (G_UNLIKELY (!self->mosq))
    goto not_started;
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    goto map_failed;
  msg.payload.assign ((const char *) map.data, map.size);
  gst_buffer_unmap (buf, &map);
  msg.topic = make_topic (self->run.topic, info);
  {
    const gchar *type = info ? gst_structure_get_string (info, "type") : NULL;
    msg.is_event = g_strcmp0 (type, "event") == 0;
  }

  {
    g_mutex_lock (&self->lock);
    Shared & sh = *self->shared;
    if (sh.fatal) {
      g_mutex_unlock (&self->lock);
      return GST_FLOW_ERROR;    /* the error is posted already */
    }
    bool dropped = false;
    if (sh.pending.size () + sh.inflight.size () >= self->run.max_queue) {
      /* Make room: the oldest queued frame; with only events queued, the
       * new message if it is a frame, else the oldest event; with
       * everything in flight, the new message. */
      auto victim = sh.pending.begin ();
      while (victim != sh.pending.end () && victim->is_event)
        ++victim;
      if (victim == sh.pending.end () && msg.is_event)
        victim = sh.pending.begin ();
      if (victim != sh.pending.end ()) {
        (victim->is_event ? sh.dropped_events : sh.dropped_frames)++;
        sh.pending.erase (victim);
      } else {
        (msg.is_event ? sh.dropped_events : sh.dropped_frames)++;
        dropped = true;
      }
    }
    if (!dropped)
      sh.pending.push_back (std::move (msg));
    pump_locked (self);
    const bool any_new = sh.dropped_frames + sh.dropped_events != sh.reported;
    g_mutex_unlock (&self->lock);
    if (any_new)
      report_drops (self, FALSE, "queue full");
  }
  return GST_FLOW_OK;

  /* ERRORS */
not_started:
  {
    GST_ELEMENT_ERROR (self, CORE, FAILED, (NULL), ("not started"));
    return GST_FLOW_ERROR;
  }
map_failed:
  {
    GST_ELEMENT_ERROR (self, RESOURCE, READ, ("Could not map the buffer."),
        (NULL));
    return GST_FLOW_ERROR;
  }
}
