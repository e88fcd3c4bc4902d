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
 * event's name (`motion-start`, `motion-stop`) and, for a buffer that is
 * no event, by its type (`frame`): so `{event}` alone gives the topics
 * `frame`, `motion-start` and `motion-stop`. Buffers from other elements
 * have type `data` and camera id `unknown`. `/`, `+` and `#` in the values
 * become `_`, so a value is always one topic level. `{` and `}` are
 * reserved: any other placeholder, or a brace outside one, is an error at
 * start. A message whose topic still comes out invalid (a camera id of
 * more than 65535 bytes, invalid UTF-8) is counted as dropped and
 * reported with the reason "invalid topic".
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
 * and an element message `mvmqttsink-dropped`, at once for a reason not
 * reported before, else at most once a second. At EOS the sink waits up
 * to #GstMvMqttSink:drain-timeout for the queue to empty (with nothing
 * queued, for the broker's first answer, so that a refusal is reported);
 * what is still queued then, or at a stop, is counted as dropped and
 * reported too. Nothing is lost silently.
 *
 * Errors: a broker that cannot be reached at start (connection refused,
 * timeout) is a warning, not an error: the sink keeps retrying and queues
 * meanwhile (a camera pipeline should not die because the broker restarts
 * or starts later). An unknown host name, invalid settings (topic, TLS
 * files), a broker that refuses the client (CONNACK: bad user name or
 * password, not authorised, client id rejected) and a TLS handshake that
 * fails before any connection succeeded (certificate not trusted, wrong
 * name) are errors. A connection lost later, TLS or not, is retried.
 * The broker's refusal and the TLS failure come from the network thread
 * while the application may still be setting the pipeline up, so they are
 * posted once the sink is PLAYING (or at the first buffer or EOS after,
 * which then fail): an error posted during the state change to PAUSED can
 * be missed (gst-launch-1.0 1.22 then never ends).
 *
 * Delivery follows #GstMvMqttSink:mqtt-qos: at 1 (default) and 2 a message
 * leaves the queue only when the broker has acknowledged it, and
 * libmosquitto sends it again after a reconnection (a subscriber may then
 * get it twice at QoS 1); at 0 a message leaves the queue once written to
 * the socket, so the few written just before a broker dies can be lost
 * without notice (MQTT's "at most once"): use QoS 1 when every message
 * counts.
 *
 * With #GstMvMqttSink:ca-file set the connection uses TLS;
 * #GstMvMqttSink:cert-file and #GstMvMqttSink:key-file add a client
 * certificate. These, #GstMvMqttSink:client-id, #GstMvMqttSink:username
 * and #GstMvMqttSink:password are unset when NULL or empty.
 *
 * Element messages: `mvmqttsink-connection` (connected: boolean, host,
 * port, reason: string) on each connection and loss of it, and
 * `mvmqttsink-dropped` (dropped, dropped-frames, dropped-events: guint64
 * totals since start; queued, max-queue: guint; reason: string, the
 * reasons of the drops since the previous report: "queue full", "invalid
 * topic", "rejected by the MQTT client", "broker not reached before
 * drain-timeout at EOS", "not delivered before stop", with counts when
 * more than one).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! blockmatchme events=true \
 *     regions=true ! mvmetastream camera-id=door ! \
 *     mvmqttsink host=broker.lan topic="cameras/{camera-id}/{type}" mqtt-qos=1
 * ]|
 */
/* Implementation notes.
 *
 * Three parts: this file is the element (properties, render, events, bus
 * messages); mvmqttqueue.h the bounded queue of messages awaiting the
 * broker, with the drop counting and reporting; mvmqttclient.h the
 * libmosquitto connection (TLS, reconnection and its backoff, publish)
 * and its network thread.
 *
 * Threads: the streaming thread (render) pushes into the queue; the
 * network thread ("mvmqttsink-net") runs libmosquitto's loop and calls the
 * SinkListener below. Either pumps the queue into the client
 * (MvMqttQueue::pump calls MvMqttClient::publish with the queue's mutex
 * held: libmosquitto calls our callbacks without holding the mutexes that
 * mosquitto_publish() takes). Bus messages are posted with no lock of
 * ours held (posting takes the object lock, which get_property holds).
 *
 * Fatal connection errors (SinkListener::fatal, network thread) are kept
 * in `fatal_text` and posted by whichever comes first once the sink is
 * PLAYING: the network thread itself if it already is, the change to
 * PLAYING, render or EOS (both then return GST_FLOW_ERROR), or at the
 * latest stop. `fatal_lock` makes it one post.
 *
 * Delivery: a message stays in the queue until libmosquitto's on_publish
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

#include <atomic>
#include <string>

#include "common/gstmatchsettings.h"
#include "common/mvstreaminfo.h"
#include "mqtt/mvmqttclient.h"
#include "mqtt/mvmqttqueue.h"

GST_DEBUG_CATEGORY (gst_mv_mqtt_sink_debug);
#define GST_CAT_DEFAULT gst_mv_mqtt_sink_debug

#define DEFAULT_PROP_HOST "localhost"
#define DEFAULT_PROP_PORT 1883
#define DEFAULT_PROP_TOPIC "gst-motion/{camera-id}/{type}"
#define DEFAULT_PROP_MQTT_QOS 1
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
  PROP_MQTT_QOS,
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
  gchar * host;
  gint port;
  gchar * topic;
  gint qos;
  gboolean retain;
  gchar * client_id;
  gchar * username;
  gchar * password;
  gchar * ca_file;
  gchar * cert_file;
  gchar * key_file;
  gboolean tls_insecure;
  gint keepalive;
  guint reconnect_delay;
  guint reconnect_delay_max;
  guint max_queue;
  guint64 drain_timeout;
};
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

/* The client's Listener: network-thread events made bus messages. */
class SinkListener : public MvMqttClient::Listener
{
public:
  explicit SinkListener (GstMvMqttSink * sink) : sink_ (sink)
  {
  }
  void connected () override;
  void connection_lost (const char * reason) override;
  void unreachable (const char * reason) override;
  void published (int mid) override;
  void fatal (const char * text, const char * debug) override;

private:
  GstMvMqttSink * sink_;
};

struct _GstMvMqttSink
{
  GstBaseSink parent;

  Settings settings;

  /* From start to stop. */
  Settings run; /* the copy in use (strings owned) */
  gboolean started;
  gchar * invalid_topic; /* the first, for the report (object lock) */

  GMutex fatal_lock;  /* the fatal error and its posting */
  GCond answer_cond;  /* answered or flushing */
  gchar * fatal_text; /* set: the client gave up (see notes) */
  gchar * fatal_debug;
  gboolean fatal_posted;
  gboolean playing;
  gboolean answered; /* the first attempt has an outcome */
  gboolean flushing;

  /* C++ objects (the instance is allocated by GObject). */
  SinkListener * listener;
  MvMqttClient * client;
  MvMqttQueue * queue;
  MvMqttQueue::PublishFunc * publish; /* the client's, with run's qos */
  std::atomic<bool> * connected;      /* readable without any lock */
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
static GstFlowReturn gst_mv_mqtt_sink_wait_event (GstBaseSink * sink,
    GstEvent * event);
static GstStateChangeReturn gst_mv_mqtt_sink_change_state (GstElement * element,
    GstStateChange transition);
static GstFlowReturn gst_mv_mqtt_sink_render (GstBaseSink * sink,
    GstBuffer * buf);

static void
gst_mv_mqtt_sink_class_init (GstMvMqttSinkClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseSinkClass * sink_class = GST_BASE_SINK_CLASS (klass);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  const GParamFlags ro =
      (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  gobject_class->set_property = gst_mv_mqtt_sink_set_property;
  gobject_class->get_property = gst_mv_mqtt_sink_get_property;
  gobject_class->finalize = gst_mv_mqtt_sink_finalize;

  gst_match_settings_install (gobject_class, PROP_HOST, SETTING (host),
      g_param_spec_string ("host", "Host",
          "Host name or address of the MQTT broker", DEFAULT_PROP_HOST,
          rw_ready));
  gst_match_settings_install (gobject_class, PROP_PORT, SETTING (port),
      g_param_spec_int ("port", "Port",
          "TCP port of the MQTT broker (1883; 8883 is the usual TLS port)", 1,
          65535, DEFAULT_PROP_PORT, rw_ready));
  /**
   * GstMvMqttSink:topic:
   *
   * Topic template: `{camera-id}`, `{type}` (frame, event) and `{event}`
   * (motion-start, motion-stop; the type for a message that is no event)
   * are replaced per buffer; the result must be a valid topic to publish
   * to (no `+` or `#`). Other placeholders and stray braces are an error
   * at start.
   */
  gst_match_settings_install (gobject_class, PROP_TOPIC, SETTING (topic),
      g_param_spec_string ("topic", "Topic",
          "Topic template; {camera-id}, {type} (frame/event) and {event} "
          "(motion-start/motion-stop, or the type when the message is no "
          "event) are replaced per message; other {placeholders} are an "
          "error",
          DEFAULT_PROP_TOPIC, rw_ready));
  /**
   * GstMvMqttSink:mqtt-qos:
   *
   * MQTT quality of service of the messages. Named so because "qos" is
   * GstBaseSink's (QoS events upstream, a boolean), which an int "qos"
   * used to shadow; `qos=1` now sets that boolean.
   */
  gst_match_settings_install (gobject_class, PROP_MQTT_QOS, SETTING (qos),
      g_param_spec_int ("mqtt-qos", "MQTT QoS",
          "MQTT quality of service: 0 at most once, 1 at least once, 2 "
          "exactly once (\"qos\" is GstBaseSink's QoS-events switch)",
          0, 2, DEFAULT_PROP_MQTT_QOS, rw_ready));
  gst_match_settings_install (gobject_class, PROP_RETAIN, SETTING (retain),
      g_param_spec_boolean ("retain", "Retain",
          "Publish retained messages: the broker keeps the latest message of "
          "each topic (latest frame, latest event) for new subscribers",
          DEFAULT_PROP_RETAIN, rw_ready));
  gst_match_settings_install (gobject_class, PROP_CLIENT_ID,
      SETTING (client_id),
      g_param_spec_string ("client-id", "Client id",
          "MQTT client id (NULL or empty: one from the broker); must be "
          "unique per broker",
          DEFAULT_PROP_CLIENT_ID, rw_ready));
  gst_match_settings_install (gobject_class, PROP_USERNAME, SETTING (username),
      g_param_spec_string ("username", "User name",
          "User name for the broker (NULL or empty: none)",
          DEFAULT_PROP_USERNAME, rw_ready));
  gst_match_settings_install (gobject_class, PROP_PASSWORD, SETTING (password),
      g_param_spec_string ("password", "Password",
          "Password for the broker (with username; NULL or empty: none)",
          DEFAULT_PROP_PASSWORD, rw_ready));
  gst_match_settings_install (gobject_class, PROP_CA_FILE, SETTING (ca_file),
      g_param_spec_string ("ca-file", "CA file",
          "PEM file of the certificate authorities that sign the broker's "
          "certificate; set (not empty), the connection uses TLS",
          DEFAULT_PROP_CA_FILE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_CERT_FILE,
      SETTING (cert_file),
      g_param_spec_string ("cert-file", "Certificate file",
          "PEM client certificate for TLS (needs ca-file and key-file)",
          DEFAULT_PROP_CERT_FILE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_KEY_FILE, SETTING (key_file),
      g_param_spec_string ("key-file", "Key file",
          "PEM private key of cert-file (not encrypted)", DEFAULT_PROP_KEY_FILE,
          rw_ready));
  gst_match_settings_install (gobject_class, PROP_TLS_INSECURE,
      SETTING (tls_insecure),
      g_param_spec_boolean ("tls-insecure", "TLS insecure",
          "Do not check that the broker's certificate matches its host name "
          "(testing only)",
          DEFAULT_PROP_TLS_INSECURE, rw_ready));
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
          "attempt doubles the wait, up to reconnect-delay-max",
          1, 3600, DEFAULT_PROP_RECONNECT_DELAY, rw_ready));
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
          "and reported)",
          1, G_MAXINT, DEFAULT_PROP_MAX_QUEUE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_DRAIN_TIMEOUT,
      SETTING (drain_timeout),
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

  gst_element_class_set_static_metadata (element_class,
      "MQTT sink for motion metadata", "Sink/Network",
      "Publishes each buffer (mvmetastream's JSON lines) as an MQTT message, "
      "with a bounded queue and reconnection",
      "gst-motion authors");
  gst_element_class_add_static_pad_template (element_class, &sink_template);

  sink_class->start = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_start);
  sink_class->stop = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_stop);
  sink_class->unlock = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_unlock);
  sink_class->unlock_stop = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_unlock_stop);
  sink_class->event = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_event);
  sink_class->wait_event = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_wait_event);
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_change_state);
  sink_class->render = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_render);

  gst_mv_stream_info_meta_get_info ();
  MvMqttClient::init_library ();

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
  self->started = FALSE;
  self->invalid_topic = NULL;
  g_mutex_init (&self->fatal_lock);
  g_cond_init (&self->answer_cond);
  self->fatal_text = self->fatal_debug = NULL;
  self->fatal_posted = self->playing = FALSE;
  self->answered = self->flushing = FALSE;

  self->listener = new SinkListener (self);
  self->client = new MvMqttClient (self->listener, self);
  self->queue = new MvMqttQueue ();
  self->publish = new MvMqttQueue::PublishFunc (
      [self] (const MvMqttMessage & m, int * mid) {
        return self->client->publish (m, self->run.qos, self->run.retain, mid);
      });
  self->connected = new std::atomic<bool> (false);
}

static void
gst_mv_mqtt_sink_finalize (GObject * object)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (object);

  delete self->client; /* stops it, if still running */
  delete self->listener;
  delete self->publish;
  delete self->queue;
  delete self->connected;
  gst_match_settings_clear (G_OBJECT_GET_CLASS (self), &self->settings);
  gst_match_settings_clear (G_OBJECT_GET_CLASS (self), &self->run);
  g_free (self->fatal_text);
  g_free (self->fatal_debug);
  g_free (self->invalid_topic);
  g_mutex_clear (&self->fatal_lock);
  g_cond_clear (&self->answer_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_mv_mqtt_sink_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (object);

  GST_OBJECT_LOCK (self);
  if (!gst_match_settings_set (&self->settings, pspec, value))
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  GST_OBJECT_UNLOCK (self);
}

static void
gst_mv_mqtt_sink_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (object);

  GST_OBJECT_LOCK (self);
  if (!gst_match_settings_get (&self->settings, pspec, value)) {
    switch (prop_id) {
      case PROP_DROPPED:
        g_value_set_uint64 (value, self->queue->dropped ());
        break;
      case PROP_QUEUED:
        g_value_set_uint (value, self->queue->queued ());
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

/* ------------------------------------------------------ bus messages */

/* Posts the overflow warning and message when messages were dropped
 * since the last report and `force`, a new reason or REPORT_INTERVAL_US
 * says so (MvMqttQueue::take_report). Called with no lock of ours. */
static void
report_drops (GstMvMqttSink * self, gboolean force)
{
  MvMqttDropReport r;
  if (!self->queue->take_report (force, g_get_monotonic_time (),
          REPORT_INTERVAL_US, &r))
    return;
  const std::string why = r.reasons ();
  const gboolean connected = self->connected->load ();
  std::string example;
  if (r.since_by_reason[MV_MQTT_DROP_INVALID_TOPIC]) {
    GST_OBJECT_LOCK (self);
    example = std::string ("; first invalid topic: \"")
        + GST_STR_NULL (self->invalid_topic) + "\"";
    GST_OBJECT_UNLOCK (self);
  }

  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("%" G_GUINT64_FORMAT " MQTT message(s) dropped (%s), %" G_GUINT64_FORMAT
       " in all",
          r.since, why.c_str (), r.total),
      ("%" G_GUINT64_FORMAT " frame and %" G_GUINT64_FORMAT " event "
       "messages dropped since start; %u queued of max-queue=%u; broker "
       "%s:%d %s%s",
          r.total_frames, r.total_events, r.queued, self->run.max_queue,
          self->run.host, self->run.port,
          connected ? "connected" : "not connected", example.c_str ()));
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("mvmqttsink-dropped", "dropped", G_TYPE_UINT64,
              r.total, "dropped-frames", G_TYPE_UINT64, r.total_frames,
              "dropped-events", G_TYPE_UINT64, r.total_events, "queued",
              G_TYPE_UINT, r.queued, "max-queue", G_TYPE_UINT,
              self->run.max_queue, "reason", G_TYPE_STRING, why.c_str (),
              NULL)));
}

static void
post_connection (GstMvMqttSink * self, gboolean connected, const gchar * reason)
{
  gst_element_post_message (GST_ELEMENT (self),
      gst_message_new_element (GST_OBJECT (self),
          gst_structure_new ("mvmqttsink-connection", "connected",
              G_TYPE_BOOLEAN, connected, "host", G_TYPE_STRING, self->run.host,
              "port", G_TYPE_INT, self->run.port, "reason", G_TYPE_STRING,
              reason, NULL)));
}

/* The first connection attempt has an outcome (connected, unreachable,
 * refused): an EOS waiting for it goes on (wait_event). */
static void
set_answered (GstMvMqttSink * self)
{
  g_mutex_lock (&self->fatal_lock);
  self->answered = TRUE;
  g_cond_broadcast (&self->answer_cond);
  g_mutex_unlock (&self->fatal_lock);
}

/* Posts the fatal error if there is one, not yet posted, and `now` (the
 * caller knows the sink is PLAYING, or stops). TRUE when there is one. */
static gboolean
post_fatal (GstMvMqttSink * self, gboolean now)
{
  g_mutex_lock (&self->fatal_lock);
  const gboolean fatal = self->fatal_text != NULL;
  const gboolean post = fatal && now && !self->fatal_posted;
  if (post)
    self->fatal_posted = TRUE;
  g_mutex_unlock (&self->fatal_lock);
  if (post)
    GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE, ("%s", self->fatal_text),
        ("%s", self->fatal_debug));
  return fatal;
}

/* ------------------------------------------- network-thread events */

void
SinkListener::connected ()
{
  GstMvMqttSink * self = sink_;

  self->connected->store (true);
  const guint queued = self->queue->queued ();
  self->queue->set_sending (true, *self->publish);
  GST_INFO_OBJECT (self, "connected to %s:%d, %u message(s) queued",
      self->run.host, self->run.port, queued);
  set_answered (self);
  post_connection (self, TRUE, "connected");
}

void
SinkListener::connection_lost (const char * reason)
{
  GstMvMqttSink * self = sink_;

  self->connected->store (false);
  self->queue->set_sending (false, *self->publish);
  /* QoS 0 packets not yet written are gone from libmosquitto without a
   * callback: back to the front of the queue, in their order. QoS 1/2
   * ones are resent by libmosquitto after the reconnection. */
  if (self->run.qos == 0)
    self->queue->requeue_inflight ();
  GST_ELEMENT_WARNING (self, RESOURCE, WRITE,
      ("Lost the connection to the MQTT broker %s:%d; reconnecting.",
          self->run.host, self->run.port),
      ("%s; messages are queued meanwhile (max-queue=%u)", reason,
          self->run.max_queue));
  post_connection (self, FALSE, reason);
}

void
SinkListener::unreachable (const char * reason)
{
  GstMvMqttSink * self = sink_;

  self->connected->store (false);
  self->queue->set_sending (false, *self->publish);
  GST_ELEMENT_WARNING (self, RESOURCE, OPEN_WRITE,
      ("Could not connect to the MQTT broker %s:%d; retrying in the "
       "background.",
          self->run.host, self->run.port),
      ("%s; messages are queued (max-queue=%u) until the broker answers",
          reason, self->run.max_queue));
  set_answered (self);
}

void
SinkListener::published (int mid)
{
  sink_->queue->published (mid, *sink_->publish);
}

/* Kept, and posted now only if the sink is PLAYING (see the notes). The
 * queue shuts down first: a drain at EOS waiting for the connection ends,
 * and the EOS is then refused (wait_event). */
void
SinkListener::fatal (const char * text, const char * debug)
{
  GstMvMqttSink * self = sink_;

  self->connected->store (false);
  self->queue->shutdown ();
  g_mutex_lock (&self->fatal_lock);
  if (!self->fatal_text) {
    self->fatal_text = g_strdup (text);
    self->fatal_debug = g_strdup (debug);
  }
  self->answered = TRUE;
  g_cond_broadcast (&self->answer_cond);
  const gboolean playing = self->playing;
  g_mutex_unlock (&self->fatal_lock);
  GST_DEBUG_OBJECT (self, "fatal: %s (%s)%s", text, debug,
      playing ? "" : "; posted once PLAYING");
  post_fatal (self, playing);
}

/* ------------------------------------------------------------ start/stop */

static const gchar * const placeholders[] = { "{camera-id}", "{type}",
  "{event}" };

/* Length of the placeholder `p` starts with, 0 if none. */
static gsize
placeholder_at (const gchar * p)
{
  for (const gchar * ph : placeholders)
    if (g_str_has_prefix (p, ph))
      return strlen (ph);
  return 0;
}

/* Checked when the element starts, where it fails with an element error,
 * rather than in set_property: a setter can only g_warning and keep the
 * old value, which a service's log hides and which would publish to a
 * topic nobody chose; an element error fails the state change and reaches
 * the application's bus (as this element's other settings do, and as
 * GStreamer sinks check their location at start). Only the known
 * placeholders; and with each replaced by "x", a valid topic. FALSE with
 * `why` said otherwise. */
static gboolean
topic_template_check (const gchar * tmpl, std::string * why)
{
  std::string t;

  if (!tmpl || !*tmpl) {
    *why = "the topic is empty";
    return FALSE;
  }
  for (const gchar * p = tmpl; *p;) {
    if (gsize n = placeholder_at (p)) {
      t += 'x';
      p += n;
    } else if (*p == '{') {
      const gchar * close = strpbrk (p + 1, "{}");
      if (!close || *close == '{') {
        *why = std::string ("unclosed '{' at \"") + p + "\"";
      } else {
        *why = "unknown placeholder " + std::string (p, close + 1 - p);
      }
      *why += " (placeholders: {camera-id}, {type}, {event})";
      return FALSE;
    } else if (*p == '}') {
      *why = std::string ("'}' outside a placeholder at \"") + p + "\"";
      return FALSE;
    } else {
      t += *p++;
    }
  }
  if (!MvMqttClient::topic_valid (t.c_str ())) {
    *why = "not a topic to publish to: no '+' or '#', valid UTF-8, at most "
           "65535 bytes";
    return FALSE;
  }
  return TRUE;
}

static gboolean
file_readable (const gchar * path)
{
  return !path || g_file_test (path, G_FILE_TEST_IS_REGULAR);
}

static gboolean
gst_mv_mqtt_sink_start (GstBaseSink * sink)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);
  Settings & r = self->run;
  MvMqttClientConfig c;
  std::string detail, why;

  GST_OBJECT_LOCK (self);
  gst_match_settings_copy (G_OBJECT_GET_CLASS (self), &r, &self->settings,
      sizeof r);
  GST_OBJECT_UNLOCK (self);
  /* An optional string set to "" is unset (gst-launch users write
   * client-id="" for "none"). */
  for (gchar ** str : { &r.client_id, &r.username, &r.password, &r.ca_file,
           &r.cert_file, &r.key_file })
    if (*str && !**str)
      g_clear_pointer (str, g_free);

  self->queue->reset (r.max_queue, MAX_INFLIGHT);
  GST_OBJECT_LOCK (self);
  g_clear_pointer (&self->invalid_topic, g_free);
  GST_OBJECT_UNLOCK (self);
  self->connected->store (false);
  g_mutex_lock (&self->fatal_lock);
  g_clear_pointer (&self->fatal_text, g_free);
  g_clear_pointer (&self->fatal_debug, g_free);
  self->fatal_posted = self->answered = FALSE;
  g_mutex_unlock (&self->fatal_lock);

  if (!r.host || !*r.host)
    goto no_host;
  if (!topic_template_check (r.topic, &why))
    goto bad_topic;
  if (r.reconnect_delay_max < r.reconnect_delay)
    r.reconnect_delay_max = r.reconnect_delay;
  if (!file_readable (r.ca_file) || !file_readable (r.cert_file)
      || !file_readable (r.key_file))
    goto tls_file;
  if ((r.cert_file || r.key_file)
      && (!r.cert_file || !r.key_file || !r.ca_file))
    goto tls_settings;

  c.host = r.host;
  c.port = r.port;
  c.client_id = r.client_id ? r.client_id : "";
  c.username = r.username ? r.username : "";
  c.password = r.password ? r.password : "";
  c.ca_file = r.ca_file ? r.ca_file : "";
  c.cert_file = r.cert_file ? r.cert_file : "";
  c.key_file = r.key_file ? r.key_file : "";
  c.tls_insecure = r.tls_insecure;
  c.keepalive = r.keepalive;
  c.reconnect_delay = r.reconnect_delay;
  c.reconnect_delay_max = r.reconnect_delay_max;
  c.max_inflight = MAX_INFLIGHT;
  switch (self->client->start (c, &detail)) {
    case MvMqttClient::Failure::NONE:
      break;
    case MvMqttClient::Failure::NO_CLIENT:
      goto no_client;
    case MvMqttClient::Failure::UNKNOWN_HOST:
      goto unknown_host;
    case MvMqttClient::Failure::TLS:
      goto tls_failed;
    case MvMqttClient::Failure::SETUP:
    default:
      goto setup_failed;
  }
  self->started = TRUE;
  GST_INFO_OBJECT (self, "publishing to %s:%d, topic \"%s\", qos %d%s", r.host,
      r.port, r.topic, r.qos, r.retain ? ", retained" : "");
  return TRUE;

  /* ERRORS */
no_host:
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("No MQTT broker host given."),
      ("set the host property"));
  return FALSE;
bad_topic:
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("Invalid MQTT topic template \"%s\": %s.", GST_STR_NULL (r.topic),
          why.c_str ()),
      (NULL));
  return FALSE;
tls_file:
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
      ("A TLS file (ca-file, cert-file or key-file) is not readable."),
      ("ca-file=%s cert-file=%s key-file=%s", GST_STR_NULL (r.ca_file),
          GST_STR_NULL (r.cert_file), GST_STR_NULL (r.key_file)));
  return FALSE;
tls_settings:
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("Incomplete TLS settings."),
      ("a client certificate needs cert-file, key-file and ca-file"));
  return FALSE;
no_client:
  GST_ELEMENT_ERROR (self, RESOURCE, FAILED,
      ("Could not create the MQTT client."), ("%s", detail.c_str ()));
  return FALSE;
unknown_host:
  GST_ELEMENT_ERROR (self, RESOURCE, NOT_FOUND,
      ("Unknown MQTT broker host \"%s\".", r.host), ("%s", detail.c_str ()));
  return FALSE;
tls_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, OPEN_WRITE,
      ("TLS connection to the MQTT broker %s:%d failed.", r.host, r.port),
      ("%s (check ca-file, cert-file, key-file and that the broker's "
       "certificate names the host)",
          detail.c_str ()));
  return FALSE;
setup_failed:
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS,
      ("Could not set up the MQTT client for %s:%d.", r.host, r.port),
      ("%s", detail.c_str ()));
  return FALSE;
}

static gboolean
gst_mv_mqtt_sink_stop (GstBaseSink * sink)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);

  self->client->stop ();
  self->started = FALSE;
  post_fatal (self, TRUE); /* never PLAYING: not lost either */
  const guint left = self->queue->drop_all (MV_MQTT_DROP_STOPPED);
  if (left)
    GST_INFO_OBJECT (self, "%u message(s) still queued at stop", left);
  report_drops (self, TRUE);
  self->connected->store (false);
  return TRUE;
}

static gboolean
gst_mv_mqtt_sink_unlock (GstBaseSink * sink)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);

  self->queue->set_flushing (true);
  g_mutex_lock (&self->fatal_lock);
  self->flushing = TRUE;
  g_cond_broadcast (&self->answer_cond);
  g_mutex_unlock (&self->fatal_lock);
  return TRUE;
}

static gboolean
gst_mv_mqtt_sink_unlock_stop (GstBaseSink * sink)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);

  self->queue->set_flushing (false);
  g_mutex_lock (&self->fatal_lock);
  self->flushing = FALSE;
  g_mutex_unlock (&self->fatal_lock);
  return TRUE;
}

/* EOS: waits for the queue to reach the broker, up to drain-timeout;
 * what is left then is counted as dropped. */
static void
drain (GstMvMqttSink * self)
{
  const gint64 timeout_us = (gint64) MIN (self->run.drain_timeout / GST_USECOND,
      (guint64) G_MAXINT64);

  if (self->queue->drain (timeout_us) == MvMqttQueue::DrainResult::TIMED_OUT) {
    const guint left = self->queue->drop_all (MV_MQTT_DROP_DRAIN_TIMEOUT);
    GST_DEBUG_OBJECT (self, "%u message(s) left at EOS", left);
  }
  report_drops (self, TRUE);
}

static gboolean
gst_mv_mqtt_sink_event (GstBaseSink * sink, GstEvent * event)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);

  if (GST_EVENT_TYPE (event) == GST_EVENT_EOS && self->started)
    drain (self);
  return GST_BASE_SINK_CLASS (parent_class)->event (sink, event);
}

/* EOS (and GAP), once prerolled and PLAYING. Before a first answer from
 * the broker (a stream with nothing to send can end within a millisecond
 * of the start), EOS waits for it, up to drain-timeout, so that a refusal
 * is reported; after a fatal error, the error rather than EOS. */
static GstFlowReturn
gst_mv_mqtt_sink_wait_event (GstBaseSink * sink, GstEvent * event)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);
  const GstFlowReturn ret =
      GST_BASE_SINK_CLASS (parent_class)->wait_event (sink, event);

  if (ret != GST_FLOW_OK || GST_EVENT_TYPE (event) != GST_EVENT_EOS
      || !self->started)
    return ret;
  const gint64 end = g_get_monotonic_time ()
      + (gint64) MIN (self->run.drain_timeout / GST_USECOND,
          (guint64) G_MAXINT64 / 2);
  g_mutex_lock (&self->fatal_lock);
  while (!self->answered && !self->flushing)
    if (!g_cond_wait_until (&self->answer_cond, &self->fatal_lock, end))
      break;
  g_mutex_unlock (&self->fatal_lock);
  if (post_fatal (self, TRUE))
    return GST_FLOW_ERROR;
  return ret;
}

static GstStateChangeReturn
gst_mv_mqtt_sink_change_state (GstElement * element, GstStateChange transition)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (element);

  if (transition == GST_STATE_CHANGE_PAUSED_TO_PLAYING) {
    g_mutex_lock (&self->fatal_lock);
    self->playing = TRUE;
    g_mutex_unlock (&self->fatal_lock);
    post_fatal (self, TRUE);
  }
  const GstStateChangeReturn ret =
      GST_ELEMENT_CLASS (parent_class)->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_PLAYING_TO_PAUSED) {
    g_mutex_lock (&self->fatal_lock);
    self->playing = FALSE;
    g_mutex_unlock (&self->fatal_lock);
  }
  return ret;
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
  const gchar * camera =
      info ? gst_structure_get_string (info, "camera-id") : NULL;
  const gchar * type = info ? gst_structure_get_string (info, "type") : NULL;
  const gchar * event = info ? gst_structure_get_string (info, "event") : NULL;
  std::string out;

  if (!type || !*type)
    type = "data";

  for (const gchar * p = tmpl; *p;) {
    if (g_str_has_prefix (p, "{camera-id}")) {
      append_level (out, camera && *camera ? camera : "unknown");
      p += strlen ("{camera-id}");
    } else if (g_str_has_prefix (p, "{type}")) {
      append_level (out, type);
      p += strlen ("{type}");
    } else if (g_str_has_prefix (p, "{event}")) {
      append_level (out, event && *event ? event : type);
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
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);
  const GstStructure * info = gst_mv_stream_info_get (buf);
  MvMqttMessage msg;
  GstMapInfo map;

  if (G_UNLIKELY (!self->started))
    goto not_started;
  if (G_UNLIKELY (post_fatal (self, TRUE)))
    return GST_FLOW_ERROR; /* the error is posted */
  if (!gst_buffer_map (buf, &map, GST_MAP_READ))
    goto map_failed;
  msg.payload.assign ((const char *) map.data, map.size);
  gst_buffer_unmap (buf, &map);
  msg.topic = make_topic (self->run.topic, info);
  {
    const gchar * type = info ? gst_structure_get_string (info, "type") : NULL;
    msg.is_event = g_strcmp0 (type, "event") == 0;
  }

  if (G_UNLIKELY (!MvMqttClient::topic_valid (msg.topic.c_str ()))) {
    /* Counted and reported (at once the first time), never queued. */
    GST_OBJECT_LOCK (self);
    if (!self->invalid_topic)
      self->invalid_topic = g_strndup (msg.topic.c_str (), 200);
    GST_OBJECT_UNLOCK (self);
    self->queue->drop (msg, MV_MQTT_DROP_INVALID_TOPIC);
    report_drops (self, FALSE);
    return GST_FLOW_OK;
  }
  if (!self->queue->push (std::move (msg), *self->publish)) {
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
