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
 * of at most #GstMvPublishSink:max-queue messages awaiting the broker (not
 * yet sent, or sent and not yet acknowledged at QoS 1 and 2), and
 * libmosquitto's network thread sends them. When the connection is lost
 * (broker restart, network), the network thread reconnects after
 * #GstMvPublishSink:reconnect-delay seconds, doubling the delay after each
 * failed attempt up to #GstMvPublishSink:reconnect-delay-max, and the queue
 * keeps filling; after the reconnection it is sent in order.
 * When the queue is full, the oldest queued frame message is dropped to
 * make room (events are kept as long as the queue holds frames); each drop
 * is counted in #GstMvPublishSink:dropped and reported by an element warning
 * and an element message `mvmqttsink-dropped`, at once for a reason not
 * reported before, else at most once a second. At EOS the sink waits up
 * to #GstMvPublishSink:drain-timeout for the queue to empty (with nothing
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
 * topic", "rejected by the client", "not delivered before drain-timeout
 * at EOS", "not delivered before stop", with counts when more than one).
 * #GstMvPublishSink:stats has the counters and the publish latency.
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
 * Two parts: this file is the element (its properties, open, close,
 * publish) on the publishing sinks' base class (publish/gstmvpublishsink.h:
 * the queue, drops and their reports, templates, drain at EOS, errors);
 * mvmqttclient.h the libmosquitto connection (TLS, reconnection and its
 * backoff, publish) and its network thread ("mvmqttsink-net"), which
 * calls the base class's Listener. MvPublishQueue::pump calls
 * MvMqttClient::publish with the queue's mutex held: libmosquitto calls
 * our callbacks without holding the mutexes that mosquitto_publish()
 * takes.
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

#include <string>

#include "common/gstmatchsettings.h"
#include "mqtt/mvmqttclient.h"

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
#define DEFAULT_PROP_TLS_INSECURE FALSE
#define DEFAULT_PROP_KEEPALIVE 60

/* Messages handed to libmosquitto at a time (also its inflight limit). */
#define MAX_INFLIGHT 20

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
};
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

struct _GstMvMqttSink
{
  GstMvPublishSink parent;

  Settings settings;
  Settings run; /* the copy in use, from start (strings owned) */
  MvMqttClient * client;
};

#define gst_mv_mqtt_sink_parent_class parent_class
G_DEFINE_TYPE (GstMvMqttSink, gst_mv_mqtt_sink, GST_TYPE_MV_PUBLISH_SINK);
GST_ELEMENT_REGISTER_DEFINE (mvmqttsink, "mvmqttsink", GST_RANK_NONE,
    GST_TYPE_MV_MQTT_SINK);

static void gst_mv_mqtt_sink_finalize (GObject * object);
static gboolean gst_mv_mqtt_sink_open (GstMvPublishSink * sink,
    const GstMvPublishSettings * base);
static void gst_mv_mqtt_sink_close (GstMvPublishSink * sink);
static MvPublishResult gst_mv_mqtt_sink_publish (GstMvPublishSink * sink,
    const MvPublishMessage & msg, int * mid);
static void gst_mv_mqtt_sink_lost (GstMvPublishSink * sink);

/* '/', '+' and '#' in a placeholder's value become '_': one topic level. */
static gboolean
value_char_ok (guchar c)
{
  return c != '/' && c != '+' && c != '#';
}

static gboolean
topic_valid (const gchar * topic)
{
  return MvMqttClient::topic_valid (topic);
}

static void
gst_mv_mqtt_sink_class_init (GstMvMqttSinkClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstMvPublishSinkClass * publish_class = GST_MV_PUBLISH_SINK_CLASS (klass);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->finalize = gst_mv_mqtt_sink_finalize;
  gst_mv_publish_sink_class_set_settings (publish_class,
      G_STRUCT_OFFSET (GstMvMqttSink, settings),
      G_STRUCT_OFFSET (GstMvMqttSink, run), sizeof (Settings));
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
  gst_mv_publish_sink_class_install_tls_files (publish_class, PROP_CA_FILE,
      SETTING (ca_file), SETTING (cert_file), SETTING (key_file),
      "PEM file of the certificate authorities that sign the broker's "
      "certificate; set (not empty), the connection uses TLS");
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

  gst_element_class_set_static_metadata (element_class,
      "MQTT sink for motion metadata", "Sink/Network",
      "Publishes each buffer (mvmetastream's JSON lines) as an MQTT message, "
      "with a bounded queue and reconnection",
      "gst-motion authors");

  publish_class->transport = "MQTT";
  publish_class->max_inflight = MAX_INFLIGHT;
  publish_class->value_char_ok = value_char_ok;
  publish_class->topic_valid = topic_valid;
  publish_class->topic_rules =
      "no '+' or '#', valid UTF-8, at most 65535 bytes";
  publish_class->open = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_open);
  publish_class->close = GST_DEBUG_FUNCPTR (gst_mv_mqtt_sink_close);
  publish_class->publish = gst_mv_mqtt_sink_publish;
  publish_class->lost = gst_mv_mqtt_sink_lost;

  MvMqttClient::init_library ();

  GST_DEBUG_CATEGORY_INIT (gst_mv_mqtt_sink_debug, "mvmqttsink", 0,
      "MQTT sink");
}

static void
gst_mv_mqtt_sink_init (GstMvMqttSink * self)
{
  self->client = new MvMqttClient (gst_mv_publish_sink_listener (
                                       GST_MV_PUBLISH_SINK (self)),
      self);
}

static void
gst_mv_mqtt_sink_finalize (GObject * object)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (object);

  delete self->client; /* stops it, if still running */
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static gboolean
gst_mv_mqtt_sink_open (GstMvPublishSink * sink,
    const GstMvPublishSettings * base)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);
  Settings & r = self->run;
  MvMqttClientConfig c;
  std::string detail;
  gchar * text;

  /* An optional string set to "" is unset (gst-launch users write
   * client-id="" for "none"). */
  for (gchar ** str : { &r.client_id, &r.username, &r.password, &r.ca_file,
           &r.cert_file, &r.key_file })
    if (*str && !**str)
      g_clear_pointer (str, g_free);

  if (!r.host || !*r.host)
    goto no_host;
  if (!gst_mv_publish_sink_set_template (sink, GST_MV_PUBLISH_TEMPLATE_TOPIC,
          r.topic, "topic"))
    return FALSE;
  if (!gst_mv_publish_sink_check_file (sink, "ca-file", r.ca_file)
      || !gst_mv_publish_sink_check_file (sink, "cert-file", r.cert_file)
      || !gst_mv_publish_sink_check_file (sink, "key-file", r.key_file))
    return FALSE;
  if ((r.cert_file || r.key_file)
      && (!r.cert_file || !r.key_file || !r.ca_file))
    goto tls_settings;

  text = g_strdup_printf ("the MQTT broker %s:%d", r.host, r.port);
  gst_mv_publish_sink_set_endpoint (sink, text,
      gst_structure_new ("endpoint", "host", G_TYPE_STRING, r.host, "port",
          G_TYPE_INT, r.port, NULL));
  g_free (text);

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
  c.reconnect_delay = base->reconnect_delay;
  c.reconnect_delay_max = base->reconnect_delay_max;
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
  GST_INFO_OBJECT (self, "publishing to %s:%d, topic \"%s\", qos %d%s", r.host,
      r.port, r.topic, r.qos, r.retain ? ", retained" : "");
  return TRUE;

  /* ERRORS */
no_host:
  GST_ELEMENT_ERROR (self, RESOURCE, SETTINGS, ("No MQTT broker host given."),
      ("set the host property"));
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

static void
gst_mv_mqtt_sink_close (GstMvPublishSink * sink)
{
  GST_MV_MQTT_SINK (sink)->client->stop ();
}

/* QoS 0 packets not yet written are gone from libmosquitto without a
 * callback: back to the front of the queue, in their order. QoS 1/2 ones
 * are resent by libmosquitto after the reconnection. */
static void
gst_mv_mqtt_sink_lost (GstMvPublishSink * sink)
{
  if (GST_MV_MQTT_SINK (sink)->run.qos == 0)
    gst_mv_publish_sink_queue (sink)->requeue_inflight ();
}

static MvPublishResult
gst_mv_mqtt_sink_publish (GstMvPublishSink * sink, const MvPublishMessage & msg,
    int * mid)
{
  GstMvMqttSink * self = GST_MV_MQTT_SINK (sink);

  return self->client->publish (msg, self->run.qos, self->run.retain, mid);
}
