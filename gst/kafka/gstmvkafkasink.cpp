/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-mvkafkasink
 * @title: mvkafkasink
 *
 * Publishes every buffer as one Kafka message, through librdkafka. Made
 * for the JSON lines of `mvmetastream` (one buffer per frame and per
 * event), it takes any buffer.
 *
 * The topic is #GstMvKafkaSink:topic and the message key
 * #GstMvKafkaSink:key, with `{camera-id}`, `{type}` and `{event}` replaced
 * as in `mvmqttsink`. In a topic, bytes other than `A-Z a-z 0-9 . _ -`
 * in the values become `_`; the key is the values as they are. The key
 * defaults to the camera id: Kafka's partitioner hashes it, so each
 * camera's messages go to one partition, in order.
 *
 * Delivery: #GstMvKafkaSink:acks (default all in-sync replicas) and
 * #GstMvKafkaSink:idempotence (default on: no duplicates and no
 * reordering within a partition when librdkafka resends). A message
 * stays in the queue of the base class until its delivery report: the
 * queue, its drop policy (oldest frame first), the `dropped`, `queued`
 * and `stats` counters, the warnings and the `mvkafkasink-dropped` and
 * `mvkafkasink-connection` messages, and the drain at EOS work as in
 * `mvmqttsink`. librdkafka retries without a time limit
 * (message.timeout.ms=0) while the brokers are down; max-queue bounds
 * what is kept.
 *
 * TLS: #GstMvKafkaSink:security-protocol `ssl` or `sasl_ssl` with
 * #GstMvKafkaSink:ca-file (and #GstMvKafkaSink:cert-file and
 * #GstMvKafkaSink:key-file for a client certificate); SASL:
 * `sasl_plaintext` or `sasl_ssl` with #GstMvKafkaSink:sasl-mechanism,
 * #GstMvKafkaSink:username and #GstMvKafkaSink:password. Any other
 * librdkafka setting goes in #GstMvKafkaSink:config. A setting
 * librdkafka refuses, a topic or key template with an unknown
 * placeholder, and settings that contradict each other are errors at
 * start; brokers that cannot be reached are a warning (the sink keeps
 * trying, queueing meanwhile); a broker's refusal of the credentials, a
 * TLS failure before any connection and librdkafka's fatal errors are
 * errors once PLAYING.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! blockmatchme events=true ! \
 *     mvmetastream camera-id=door ! \
 *     mvkafkasink brokers=kafka1:9092,kafka2:9092 topic="motion.{type}"
 * ]|
 */
/* Implementation notes.
 *
 * librdkafka runs its own broker threads and reconnects by itself
 * (reconnect.backoff.ms and reconnect.backoff.max.ms from the base
 * class's reconnect-delay and reconnect-delay-max). Our thread
 * ("mvkafkasink-poll") serves the delivery reports and errors
 * (rd_kafka_poll) and tells the base class's Listener: a delivery report
 * is "published" (or "failed" for an error that a resend cannot mend);
 * ALL_BROKERS_DOWN is a lost connection; a metadata request that
 * succeeds, made on the backoff while the brokers are down, is the
 * connection back. rd_kafka_producev() only queues inside librdkafka
 * (RD_KAFKA_MSG_F_COPY), never blocking: it is called with the queue's
 * lock held, and the delivery reports come on our thread, outside it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvkafkasink.h"

#include <librdkafka/rdkafka.h>

#include <string>

#include "common/gstmatchsettings.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_kafka_sink_debug);
#define GST_CAT_DEFAULT gst_mv_kafka_sink_debug

#define DEFAULT_PROP_BROKERS "localhost:9092"
#define DEFAULT_PROP_TOPIC "gst-motion.{type}"
#define DEFAULT_PROP_KEY "{camera-id}"
#define DEFAULT_PROP_ACKS -1
#define DEFAULT_PROP_IDEMPOTENCE TRUE
#define DEFAULT_PROP_COMPRESSION GST_MV_KAFKA_COMPRESSION_LZ4
#define DEFAULT_PROP_LINGER_MS 5
#define DEFAULT_PROP_SECURITY_PROTOCOL "plaintext"

/* librdkafka batches: half the queue may be handed over (the base
 * class's 0). */
#define MAX_INFLIGHT 0

typedef enum
{
  GST_MV_KAFKA_COMPRESSION_NONE,
  GST_MV_KAFKA_COMPRESSION_GZIP,
  GST_MV_KAFKA_COMPRESSION_SNAPPY,
  GST_MV_KAFKA_COMPRESSION_LZ4,
  GST_MV_KAFKA_COMPRESSION_ZSTD,
} GstMvKafkaCompression;

#define GST_TYPE_MV_KAFKA_COMPRESSION (gst_mv_kafka_compression_get_type ())
static GType
gst_mv_kafka_compression_get_type (void)
{
  static GType type = 0;
  static const GEnumValue values[] = {
    { GST_MV_KAFKA_COMPRESSION_NONE, "Not compressed", "none" },
    { GST_MV_KAFKA_COMPRESSION_GZIP, "gzip", "gzip" },
    { GST_MV_KAFKA_COMPRESSION_SNAPPY, "Snappy", "snappy" },
    { GST_MV_KAFKA_COMPRESSION_LZ4, "LZ4", "lz4" },
    { GST_MV_KAFKA_COMPRESSION_ZSTD, "Zstandard", "zstd" },
    { 0, NULL, NULL },
  };
  if (g_once_init_enter (&type))
    g_once_init_leave (&type,
        g_enum_register_static ("GstMvKafkaCompression", values));
  return type;
}

enum
{
  PROP_0,
  PROP_BROKERS,
  PROP_TOPIC,
  PROP_KEY,
  PROP_ACKS,
  PROP_IDEMPOTENCE,
  PROP_COMPRESSION,
  PROP_LINGER_MS,
  PROP_CLIENT_ID,
  PROP_SECURITY_PROTOCOL,
  PROP_CA_FILE,
  PROP_CERT_FILE,
  PROP_KEY_FILE,
  PROP_SASL_MECHANISM,
  PROP_USERNAME,
  PROP_PASSWORD,
  PROP_CONFIG,
};

/* Protected by the object lock; copied at start (gstmatchsettings.h). */
struct Settings
{
  gchar * brokers;
  gchar * topic;
  gchar * key;
  gint acks;
  gboolean idempotence;
  gint compression;
  gint linger_ms;
  gchar * client_id;
  gchar * security_protocol;
  gchar * ca_file;
  gchar * cert_file;
  gchar * key_file;
  gchar * sasl_mechanism;
  gchar * username;
  gchar * password;
  gchar * config;
};
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

struct _GstMvKafkaSink
{
  GstMvPublishSink parent;

  Settings settings;
  Settings run; /* the copy in use, from start */
  GstMvPublishSettings base;

  rd_kafka_t * rk;
  GThread * thread;
  GMutex stop_lock;
  GCond stop_cond;
  gboolean stop;
  int next_mid; /* under the queue's lock (publish) */

  /* The poll thread only. */
  gboolean up;
  gboolean ever_up;
  gboolean warned;
  guint attempt;
};

#define gst_mv_kafka_sink_parent_class parent_class
G_DEFINE_TYPE (GstMvKafkaSink, gst_mv_kafka_sink, GST_TYPE_MV_PUBLISH_SINK);
GST_ELEMENT_REGISTER_DEFINE (mvkafkasink, "mvkafkasink", GST_RANK_NONE,
    GST_TYPE_MV_KAFKA_SINK);

static void gst_mv_kafka_sink_finalize (GObject * object);
static gboolean gst_mv_kafka_sink_open (GstMvPublishSink * sink,
    const GstMvPublishSettings * base);
static void gst_mv_kafka_sink_close (GstMvPublishSink * sink);
static MvPublishResult gst_mv_kafka_sink_publish (GstMvPublishSink * sink,
    const MvPublishMessage & msg, int * mid);

/* Kafka topic names: [A-Za-z0-9._-], at most 249 bytes. */
static gboolean
value_char_ok (guchar c)
{
  return g_ascii_isalnum (c) || c == '.' || c == '_' || c == '-';
}

static gboolean
topic_valid (const gchar * topic)
{
  const gsize n = strlen (topic);

  if (n == 0 || n > 249 || !strcmp (topic, ".") || !strcmp (topic, ".."))
    return FALSE;
  for (const gchar * c = topic; *c; c++)
    if (!value_char_ok ((guchar) *c))
      return FALSE;
  return TRUE;
}

static void
gst_mv_kafka_sink_class_init (GstMvKafkaSinkClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstMvPublishSinkClass * publish_class = GST_MV_PUBLISH_SINK_CLASS (klass);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->finalize = gst_mv_kafka_sink_finalize;
  gst_mv_publish_sink_class_set_settings (publish_class,
      G_STRUCT_OFFSET (GstMvKafkaSink, settings),
      G_STRUCT_OFFSET (GstMvKafkaSink, run), sizeof (Settings));

  gst_match_settings_install (gobject_class, PROP_BROKERS, SETTING (brokers),
      g_param_spec_string ("brokers", "Brokers",
          "Bootstrap brokers, host:port[,host:port...] (librdkafka's "
          "bootstrap.servers)",
          DEFAULT_PROP_BROKERS, rw_ready));
  gst_match_settings_install (gobject_class, PROP_TOPIC, SETTING (topic),
      g_param_spec_string ("topic", "Topic",
          "Topic template; {camera-id}, {type} (frame/event) and {event} "
          "(motion-start/motion-stop, or the type) are replaced per "
          "message, bytes outside [A-Za-z0-9._-] in them made '_'",
          DEFAULT_PROP_TOPIC, rw_ready));
  gst_match_settings_install (gobject_class, PROP_KEY, SETTING (key),
      g_param_spec_string ("key", "Key",
          "Message key template (same placeholders; NULL or empty: no key). "
          "The key picks the partition: the camera id keeps each camera's "
          "messages in order in one partition",
          DEFAULT_PROP_KEY, rw_ready));
  gst_match_settings_install (gobject_class, PROP_ACKS, SETTING (acks),
      g_param_spec_int ("acks", "Acks",
          "Acknowledgements the leader waits for: -1 all in-sync replicas, "
          "1 the leader only, 0 none (no delivery guarantee)",
          -1, 1, DEFAULT_PROP_ACKS, rw_ready));
  gst_match_settings_install (gobject_class, PROP_IDEMPOTENCE,
      SETTING (idempotence),
      g_param_spec_boolean ("idempotence", "Idempotence",
          "Idempotent producer: resends never duplicate or reorder a "
          "partition's messages (needs acks=-1)",
          DEFAULT_PROP_IDEMPOTENCE, rw_ready));
  gst_match_settings_install (gobject_class, PROP_COMPRESSION,
      SETTING (compression),
      g_param_spec_enum ("compression", "Compression",
          "Compression of the message batches", GST_TYPE_MV_KAFKA_COMPRESSION,
          DEFAULT_PROP_COMPRESSION, rw_ready));
  gst_match_settings_install (gobject_class, PROP_LINGER_MS,
      SETTING (linger_ms),
      g_param_spec_int ("linger-ms", "Linger",
          "Milliseconds a message may wait for others to share its batch "
          "(librdkafka's linger.ms)",
          0, 900000, DEFAULT_PROP_LINGER_MS, rw_ready));
  gst_match_settings_install (gobject_class, PROP_CLIENT_ID,
      SETTING (client_id),
      g_param_spec_string ("client-id", "Client id",
          "Client id the brokers log and quota (NULL or empty: librdkafka's "
          "default)",
          NULL, rw_ready));
  gst_match_settings_install (gobject_class, PROP_SECURITY_PROTOCOL,
      SETTING (security_protocol),
      g_param_spec_string ("security-protocol", "Security protocol",
          "plaintext, ssl, sasl_plaintext or sasl_ssl",
          DEFAULT_PROP_SECURITY_PROTOCOL, rw_ready));
  gst_mv_publish_sink_class_install_tls_files (publish_class, PROP_CA_FILE,
      SETTING (ca_file), SETTING (cert_file), SETTING (key_file),
      "PEM file of the certificate authorities that sign the brokers' "
      "certificates (ssl, sasl_ssl)");
  gst_match_settings_install (gobject_class, PROP_SASL_MECHANISM,
      SETTING (sasl_mechanism),
      g_param_spec_string ("sasl-mechanism", "SASL mechanism",
          "PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (sasl_plaintext, sasl_ssl)",
          "PLAIN", rw_ready));
  gst_match_settings_install (gobject_class, PROP_USERNAME, SETTING (username),
      g_param_spec_string ("username", "User name",
          "SASL user name (NULL or empty: none)", NULL, rw_ready));
  gst_match_settings_install (gobject_class, PROP_PASSWORD, SETTING (password),
      g_param_spec_string ("password", "Password", "SASL password", NULL,
          rw_ready));
  gst_match_settings_install (gobject_class, PROP_CONFIG, SETTING (config),
      g_param_spec_string ("config", "Configuration",
          "More librdkafka settings, name=value;name=value (after the "
          "others, so they win)",
          NULL, rw_ready));

  gst_element_class_set_static_metadata (element_class,
      "Kafka sink for motion metadata", "Sink/Network",
      "Publishes each buffer (mvmetastream's JSON lines) as a Kafka message "
      "keyed by camera, with a bounded queue and delivery reports",
      "gst-motion authors");

  publish_class->transport = "Kafka";
  publish_class->max_inflight = MAX_INFLIGHT;
  publish_class->value_char_ok = value_char_ok;
  publish_class->topic_valid = topic_valid;
  publish_class->topic_rules = "only A-Z a-z 0-9 . _ -, at most 249 bytes";
  publish_class->open = GST_DEBUG_FUNCPTR (gst_mv_kafka_sink_open);
  publish_class->close = GST_DEBUG_FUNCPTR (gst_mv_kafka_sink_close);
  publish_class->publish = gst_mv_kafka_sink_publish;

  gst_type_mark_as_plugin_api (GST_TYPE_MV_KAFKA_COMPRESSION,
      (GstPluginAPIFlags) 0);
  GST_DEBUG_CATEGORY_INIT (gst_mv_kafka_sink_debug, "mvkafkasink", 0,
      "Kafka sink");
}

static void
gst_mv_kafka_sink_init (GstMvKafkaSink * self)
{
  self->rk = NULL;
  self->thread = NULL;
  g_mutex_init (&self->stop_lock);
  g_cond_init (&self->stop_cond);
}

static void
gst_mv_kafka_sink_finalize (GObject * object)
{
  GstMvKafkaSink * self = GST_MV_KAFKA_SINK (object);

  gst_mv_kafka_sink_close (GST_MV_PUBLISH_SINK (self));
  g_mutex_clear (&self->stop_lock);
  g_cond_clear (&self->stop_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* ------------------------------------------------ librdkafka callbacks */

static MvPublishListener *
listener (GstMvKafkaSink * self)
{
  return gst_mv_publish_sink_listener (GST_MV_PUBLISH_SINK (self));
}

/* On the poll thread (rd_kafka_poll). */
static void
on_delivery (rd_kafka_t *, const rd_kafka_message_t * m, void * data)
{
  GstMvKafkaSink * self = (GstMvKafkaSink *) data;
  const int mid = GPOINTER_TO_INT (m->_private);

  if (m->err == RD_KAFKA_RESP_ERR_NO_ERROR)
    listener (self)->published (mid);
  else if (m->err == RD_KAFKA_RESP_ERR__MSG_TIMED_OUT)
    listener (self)->retry (mid, rd_kafka_err2str (m->err));
  else
    listener (self)->failed (mid, rd_kafka_err2str (m->err));
}

/* On the poll thread. librdkafka retries everything but fatal errors;
 * the classification tells the user what to mend. */
static void
on_error (rd_kafka_t * rk, int err, const char * reason, void * data)
{
  GstMvKafkaSink * self = (GstMvKafkaSink *) data;
  gchar * text;

  GST_DEBUG_OBJECT (self, "librdkafka: %s: %s",
      rd_kafka_err2name ((rd_kafka_resp_err_t) err), reason);
  if (err == RD_KAFKA_RESP_ERR__FATAL) {
    char why[512];
    rd_kafka_fatal_error (rk, why, sizeof why);
    text = g_strdup_printf ("Kafka producer failed for good: %s.", why);
    listener (self)->fatal (MvPublishError::CLIENT, text, reason);
    g_free (text);
  } else if (err == RD_KAFKA_RESP_ERR__AUTHENTICATION) {
    text = g_strdup_printf ("The Kafka brokers %s refused the credentials.",
        self->run.brokers);
    listener (self)->fatal (MvPublishError::REFUSED, text, reason);
    g_free (text);
  } else if (err == RD_KAFKA_RESP_ERR__SSL && !self->ever_up) {
    text = g_strdup_printf ("TLS connection to the Kafka brokers %s failed.",
        self->run.brokers);
    listener (self)->fatal (MvPublishError::TLS, text, reason);
    g_free (text);
  } else if (err == RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN) {
    if (self->up) {
      self->up = FALSE;
      self->warned = TRUE;
      self->attempt = 0;
      listener (self)->connection_lost (reason);
    } else if (!self->warned) {
      self->warned = TRUE;
      listener (self)->unreachable (reason);
    }
  }
}

static void
on_log (const rd_kafka_t * rk, int level, const char * fac, const char * buf)
{
  GstMvKafkaSink * self = (GstMvKafkaSink *) rd_kafka_opaque (rk);

  if (level <= 4)
    GST_WARNING_OBJECT (self, "librdkafka %s: %s", fac, buf);
  else
    GST_LOG_OBJECT (self, "librdkafka %s: %s", fac, buf);
}

/* Waits `us` or until close; TRUE when closing. */
static gboolean
wait_stop (GstMvKafkaSink * self, gint64 us)
{
  const gint64 end = g_get_monotonic_time () + us;

  g_mutex_lock (&self->stop_lock);
  while (!self->stop)
    if (!g_cond_wait_until (&self->stop_cond, &self->stop_lock, end))
      break;
  const gboolean stop = self->stop;
  g_mutex_unlock (&self->stop_lock);
  return stop;
}

/* The poll thread: delivery reports and errors; while the brokers are
 * down, a metadata request on the backoff finds them back (a request to
 * one broker, up to 1 s, on this thread only). */
static gpointer
poll_thread (gpointer data)
{
  GstMvKafkaSink * self = (GstMvKafkaSink *) data;
  gint64 next_probe = 0;

  while (!wait_stop (self, 0)) {
    rd_kafka_poll (self->rk, 100);
    if (self->up || g_get_monotonic_time () < next_probe)
      continue;
    const struct rd_kafka_metadata * md = NULL;
    const rd_kafka_resp_err_t err =
        rd_kafka_metadata (self->rk, 0, NULL, &md, 1000);
    if (md)
      rd_kafka_metadata_destroy (md);
    if (err == RD_KAFKA_RESP_ERR_NO_ERROR) {
      self->up = self->ever_up = TRUE;
      self->warned = FALSE;
      self->attempt = 0;
      listener (self)->connected ();
      continue;
    }
    if (!self->warned) {
      self->warned = TRUE;
      listener (self)->unreachable (rd_kafka_err2str (err));
    }
    next_probe = g_get_monotonic_time ()
        + G_USEC_PER_SEC
            * (gint64) mv_publish_backoff_s (self->attempt++,
                self->base.reconnect_delay, self->base.reconnect_delay_max);
  }
  return NULL;
}

/* ----------------------------------------------------------- open/close */

static const gchar * const compression_names[] = { "none", "gzip", "snappy",
  "lz4", "zstd" };

/* rd_kafka_conf_set, or an error naming the setting. */
static gboolean
conf_set (GstMvKafkaSink * self, rd_kafka_conf_t * conf, const gchar * name,
    const gchar * value, const gchar * property)
{
  char err[512];

  if (rd_kafka_conf_set (conf, name, value, err, sizeof err)
      == RD_KAFKA_CONF_OK)
    return TRUE;
  gchar * text = g_strdup_printf ("Invalid Kafka setting %s=\"%s\" (%s).", name,
      value, property);
  gst_mv_publish_sink_error (GST_MV_PUBLISH_SINK (self),
      MvPublishError::SETTINGS, text, err);
  g_free (text);
  return FALSE;
}

static gboolean
gst_mv_kafka_sink_open (GstMvPublishSink * sink,
    const GstMvPublishSettings * base)
{
  GstMvKafkaSink * self = GST_MV_KAFKA_SINK (sink);
  Settings & r = self->run;
  rd_kafka_conf_t * conf = NULL;
  char err[512];
  gchar * num;
  gboolean ok = TRUE;
  const gchar * why = NULL;

  self->base = *base;
  self->up = self->ever_up = self->warned = FALSE;
  self->attempt = 0;
  self->next_mid = 0;

  if (!gst_mv_publish_is_set (r.brokers)) {
    why = "No Kafka brokers given (set the brokers property).";
    goto bad_settings;
  }
  if (!gst_mv_publish_sink_set_template (sink, GST_MV_PUBLISH_TEMPLATE_TOPIC,
          r.topic, "topic")
      || !gst_mv_publish_sink_set_template (sink, GST_MV_PUBLISH_TEMPLATE_KEY,
          r.key, "key"))
    return FALSE;
  if (r.idempotence && r.acks != -1) {
    why = "idempotence=true needs acks=-1 (all in-sync replicas).";
    goto bad_settings;
  }
  if ((gst_mv_publish_is_set (r.ca_file) || gst_mv_publish_is_set (r.cert_file)
          || gst_mv_publish_is_set (r.key_file))
      && !g_str_has_suffix (GST_STR_NULL (r.security_protocol), "ssl")) {
    why = "ca-file, cert-file and key-file need security-protocol=ssl or "
          "sasl_ssl.";
    goto bad_settings;
  }
  if (gst_mv_publish_is_set (r.username)
      && !g_str_has_prefix (GST_STR_NULL (r.security_protocol), "sasl_")) {
    why = "username needs security-protocol=sasl_plaintext or sasl_ssl.";
    goto bad_settings;
  }
  if (gst_mv_publish_is_set (r.cert_file)
      != gst_mv_publish_is_set (r.key_file)) {
    why = "A client certificate needs both cert-file and key-file.";
    goto bad_settings;
  }
  if (!gst_mv_publish_sink_check_file (sink, "ca-file", r.ca_file)
      || !gst_mv_publish_sink_check_file (sink, "cert-file", r.cert_file)
      || !gst_mv_publish_sink_check_file (sink, "key-file", r.key_file))
    return FALSE;

  conf = rd_kafka_conf_new ();
  rd_kafka_conf_set_opaque (conf, self);
  rd_kafka_conf_set_dr_msg_cb (conf, on_delivery);
  rd_kafka_conf_set_error_cb (conf, on_error);
  rd_kafka_conf_set_log_cb (conf, on_log);
  ok = conf_set (self, conf, "bootstrap.servers", r.brokers, "brokers");
  num = g_strdup_printf ("%d", r.acks);
  ok = ok && conf_set (self, conf, "acks", num, "acks");
  g_free (num);
  ok = ok
      && conf_set (self, conf, "enable.idempotence",
          r.idempotence ? "true" : "false", "idempotence");
  ok = ok
      && conf_set (self, conf, "compression.codec",
          compression_names[CLAMP (r.compression, 0, 4)], "compression");
  num = g_strdup_printf ("%d", r.linger_ms);
  ok = ok && conf_set (self, conf, "linger.ms", num, "linger-ms");
  g_free (num);
  /* Retried without a time limit: our queue bounds what is kept. */
  ok = ok && conf_set (self, conf, "message.timeout.ms", "0", "-");
  num = g_strdup_printf ("%u", MIN (base->max_queue, 10000000u));
  ok = ok
      && conf_set (self, conf, "queue.buffering.max.messages", num,
          "max-queue");
  g_free (num);
  num = g_strdup_printf ("%u", base->reconnect_delay * 1000);
  ok = ok
      && conf_set (self, conf, "reconnect.backoff.ms", num, "reconnect-delay");
  g_free (num);
  num = g_strdup_printf ("%u", base->reconnect_delay_max * 1000);
  ok = ok
      && conf_set (self, conf, "reconnect.backoff.max.ms", num,
          "reconnect-delay-max");
  g_free (num);
  if (gst_mv_publish_is_set (r.client_id))
    ok = ok && conf_set (self, conf, "client.id", r.client_id, "client-id");
  ok = ok
      && conf_set (self, conf, "security.protocol",
          GST_STR_NULL (r.security_protocol), "security-protocol");
  if (gst_mv_publish_is_set (r.ca_file))
    ok = ok && conf_set (self, conf, "ssl.ca.location", r.ca_file, "ca-file");
  if (gst_mv_publish_is_set (r.cert_file))
    ok = ok
        && conf_set (self, conf, "ssl.certificate.location", r.cert_file,
            "cert-file");
  if (gst_mv_publish_is_set (r.key_file))
    ok =
        ok && conf_set (self, conf, "ssl.key.location", r.key_file, "key-file");
  if (g_str_has_prefix (GST_STR_NULL (r.security_protocol), "sasl_"))
    ok = ok
        && conf_set (self, conf, "sasl.mechanism",
            GST_STR_NULL (r.sasl_mechanism), "sasl-mechanism");
  if (gst_mv_publish_is_set (r.username))
    ok = ok && conf_set (self, conf, "sasl.username", r.username, "username")
        && conf_set (self, conf, "sasl.password", GST_STR_NULL (r.password),
            "password");
  if (ok && gst_mv_publish_is_set (r.config)) {
    gchar ** pairs = g_strsplit (r.config, ";", -1);
    for (gchar ** p = pairs; ok && *p; p++) {
      gchar * eq = strchr (g_strstrip (*p), '=');
      if (!**p)
        continue;
      if (!eq) {
        gchar * text = g_strdup_printf ("Invalid Kafka config entry \"%s\" "
                                        "(name=value expected).",
            *p);
        gst_mv_publish_sink_error (sink, MvPublishError::SETTINGS, text,
            r.config);
        g_free (text);
        ok = FALSE;
        break;
      }
      *eq = '\0';
      ok =
          conf_set (self, conf, g_strstrip (*p), g_strstrip (eq + 1), "config");
    }
    g_strfreev (pairs);
  }
  if (!ok) {
    rd_kafka_conf_destroy (conf);
    return FALSE;
  }

  {
    gchar * text = g_strdup_printf ("the Kafka brokers %s", r.brokers);
    gst_mv_publish_sink_set_endpoint (sink, text,
        gst_structure_new ("endpoint", "brokers", G_TYPE_STRING, r.brokers,
            NULL));
    g_free (text);
  }
  /* rd_kafka_new takes conf on success. */
  self->rk = rd_kafka_new (RD_KAFKA_PRODUCER, conf, err, sizeof err);
  if (!self->rk) {
    rd_kafka_conf_destroy (conf);
    gst_mv_publish_sink_error (sink, MvPublishError::SETTINGS,
        "Could not create the Kafka producer.", err);
    return FALSE;
  }
  self->stop = FALSE;
  self->thread = g_thread_new ("mvkafkasink-poll", poll_thread, self);
  GST_INFO_OBJECT (self, "publishing to %s, topic \"%s\", key \"%s\", acks %d",
      r.brokers, r.topic, GST_STR_NULL (r.key), r.acks);
  return TRUE;

  /* ERRORS */
bad_settings:
  gst_mv_publish_sink_error (sink, MvPublishError::SETTINGS, why, NULL);
  return FALSE;
}

/* Ends the poll thread, then drops what librdkafka still holds (the base
 * class counts it as not delivered before stop). */
static void
gst_mv_kafka_sink_close (GstMvPublishSink * sink)
{
  GstMvKafkaSink * self = GST_MV_KAFKA_SINK (sink);

  if (!self->rk)
    return;
  g_mutex_lock (&self->stop_lock);
  self->stop = TRUE;
  g_cond_broadcast (&self->stop_cond);
  g_mutex_unlock (&self->stop_lock);
  if (self->thread)
    g_thread_join (self->thread);
  self->thread = NULL;
  rd_kafka_purge (self->rk, RD_KAFKA_PURGE_F_QUEUE | RD_KAFKA_PURGE_F_INFLIGHT);
  rd_kafka_destroy (self->rk);
  self->rk = NULL;
}

/* With the queue's lock held: rd_kafka_producev only queues. */
static MvPublishResult
gst_mv_kafka_sink_publish (GstMvPublishSink * sink,
    const MvPublishMessage & msg, int * mid)
{
  GstMvKafkaSink * self = GST_MV_KAFKA_SINK (sink);

  *mid = self->next_mid;
  self->next_mid = (self->next_mid + 1) & G_MAXINT;
  const rd_kafka_resp_err_t err =
      rd_kafka_producev (self->rk, RD_KAFKA_V_TOPIC (msg.topic.c_str ()),
          RD_KAFKA_V_MSGFLAGS (RD_KAFKA_MSG_F_COPY),
          RD_KAFKA_V_KEY (msg.key.empty () ? NULL : msg.key.data (),
              msg.key.size ()),
          RD_KAFKA_V_VALUE ((void *) msg.payload.data (), msg.payload.size ()),
          RD_KAFKA_V_OPAQUE (GINT_TO_POINTER (*mid)), RD_KAFKA_V_END);

  if (err == RD_KAFKA_RESP_ERR_NO_ERROR)
    return MvPublishResult::OK;
  if (err == RD_KAFKA_RESP_ERR__QUEUE_FULL)
    return MvPublishResult::NOT_CONNECTED; /* pumped again at a report */
  GST_WARNING_OBJECT (self, "rd_kafka_producev on \"%s\" (%u bytes): %s",
      msg.topic.c_str (), (guint) msg.payload.size (), rd_kafka_err2str (err));
  return MvPublishResult::REJECTED;
}
