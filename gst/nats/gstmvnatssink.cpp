/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * This library is free software; you can redistribute it and/or modify it
 * under the terms of the GNU Lesser General Public License as published by
 * the Free Software Foundation; either version 2.1 of the License, or (at
 * your option) any later version.
 */
/**
 * SECTION:element-mvnatssink
 * @title: mvnatssink
 *
 * Publishes every buffer as one NATS message, through libnats (the NATS C
 * client), to core NATS or, with #GstMvNatsSink:jetstream, to a JetStream
 * stream with acknowledgements. Made for the JSON lines of
 * `mvmetastream`, it takes any buffer.
 *
 * The subject is #GstMvNatsSink:subject with `{camera-id}`, `{type}` and
 * `{event}` replaced as in `mvmqttsink`; `.`, `*`, `>`, spaces and control
 * bytes in the values become `_`, so a value is always one subject token.
 *
 * Delivery: with `jetstream=true` a message leaves the queue when the
 * stream acknowledges it; an acknowledgement that does not come within
 * #GstMvNatsSink:ack-timeout sends the message again (its `Nats-Msg-Id`
 * header lets the server drop the duplicate within the stream's
 * duplicate window). A stream must capture the subjects (`nats stream
 * add`); without one the server answers "no responders" and the message
 * is dropped and reported. Core NATS (the default) acknowledges nothing:
 * a message leaves the queue once libnats has it, so the few written
 * just before a server dies can be lost (at most once). While the
 * connection is down, messages wait in the base class's queue: its drop
 * policy, counters (`dropped`, `queued`, `stats`), the warnings and the
 * `mvnatssink-dropped` and `mvnatssink-connection` messages, and the
 * drain at EOS work as in `mvmqttsink`. libnats reconnects on the
 * base class's backoff (reconnect-delay doubling up to
 * reconnect-delay-max), without a limit on the attempts.
 *
 * TLS: #GstMvNatsSink:ca-file (and #GstMvNatsSink:cert-file,
 * #GstMvNatsSink:key-file for a client certificate). Credentials:
 * #GstMvNatsSink:creds-file (a `.creds` file: JWT and NKey seed), or
 * #GstMvNatsSink:username and #GstMvNatsSink:password, or
 * #GstMvNatsSink:token. Settings that libnats refuses, unreadable files
 * and a server that refuses the credentials or the TLS handshake at start
 * are errors; servers that cannot be reached at start are a warning (the
 * sink keeps trying, queueing meanwhile).
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 v4l2src ! videoconvert ! blockmatchme events=true ! \
 *     mvmetastream camera-id=door ! \
 *     mvnatssink servers=nats://nats1:4222 subject="motion.{camera-id}.{type}" \
 *     jetstream=true
 * ]|
 */
/* Implementation notes.
 *
 * libnats runs its own threads and reconnects by itself; its callbacks
 * (disconnected, reconnected, async errors, JetStream acknowledgements)
 * come on its threads and call the base class's Listener. The first
 * connection is made in open, at most `connect-timeout` (libnats'
 * timeout) on the state-change thread: a refusal (credentials, TLS) is
 * an error at start; where no server answers, a second attempt with
 * natsOptions_SetRetryOnFailedConnect lets libnats go on in the
 * background. Publishing buffers inside libnats
 * (natsConnection_Publish; js_PublishMsgAsync with MaxPending above our
 * in-flight limit, so it never stalls), and libnats' flusher thread
 * writes the buffer out: it is called with the queue's lock held. Only
 * when its buffer is full does libnats write from the publishing thread
 * itself; the buffer is 1 MiB (IO_BUF_SIZE), about 500 of mvmetastream's
 * 2 kB frames between two flushes, where a camera sends 10 to 25 a
 * second. A JetStream message's id in the queue is its push order
 * (MvPublishMessage::seq, below 2^31 apart while queued), carried back by
 * the Nats-Msg-Id header "<run id>-<seq>", which stays the same when it
 * is sent again.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmvnatssink.h"

#include <nats/nats.h>

#include <atomic>
#include <string>

#include "common/gstmatchsettings.h"

GST_DEBUG_CATEGORY_STATIC (gst_mv_nats_sink_debug);
#define GST_CAT_DEFAULT gst_mv_nats_sink_debug

#define DEFAULT_PROP_SERVERS "nats://localhost:4222"
#define DEFAULT_PROP_SUBJECT "gst-motion.{camera-id}.{type}"
#define DEFAULT_PROP_JETSTREAM FALSE
#define DEFAULT_PROP_ACK_TIMEOUT 5000
#define DEFAULT_PROP_CONNECT_TIMEOUT 2000

/* libnats' write buffer (32 kB by default). */
#define IO_BUF_SIZE (1 << 20)

/* Messages awaiting their JetStream acknowledgement at a time. */
#define MAX_INFLIGHT 256

enum
{
  PROP_0,
  PROP_SERVERS,
  PROP_SUBJECT,
  PROP_JETSTREAM,
  PROP_ACK_TIMEOUT,
  PROP_CONNECT_TIMEOUT,
  PROP_NAME,
  PROP_CA_FILE,
  PROP_CERT_FILE,
  PROP_KEY_FILE,
  PROP_CREDS_FILE,
  PROP_USERNAME,
  PROP_PASSWORD,
  PROP_TOKEN,
};

/* Protected by the object lock; copied at start (gstmatchsettings.h). */
struct Settings
{
  gchar * servers;
  gchar * subject;
  gboolean jetstream;
  guint ack_timeout;
  guint connect_timeout;
  gchar * name;
  gchar * ca_file;
  gchar * cert_file;
  gchar * key_file;
  gchar * creds_file;
  gchar * username;
  gchar * password;
  gchar * token;
};
#define SETTING(field) G_STRUCT_OFFSET (Settings, field)

struct _GstMvNatsSink
{
  GstMvPublishSink parent;

  Settings settings;
  Settings run; /* the copy in use, from start */
  GstMvPublishSettings base;

  natsConnection * nc;
  jsCtx * js;
  jsPubOptions pub_opts;
  gchar run_id[24]; /* Nats-Msg-Id prefix, new at each start */
  std::atomic<bool> * ever_connected;
  std::atomic<bool> * connected; /* one report per outage */
  GMutex closed_lock;
  GCond closed_cond;
  gboolean closed; /* libnats' last callback has run */
};

#define gst_mv_nats_sink_parent_class parent_class
G_DEFINE_TYPE (GstMvNatsSink, gst_mv_nats_sink, GST_TYPE_MV_PUBLISH_SINK);
GST_ELEMENT_REGISTER_DEFINE (mvnatssink, "mvnatssink", GST_RANK_NONE,
    GST_TYPE_MV_NATS_SINK);

static void gst_mv_nats_sink_finalize (GObject * object);
static gboolean gst_mv_nats_sink_open (GstMvPublishSink * sink,
    const GstMvPublishSettings * base);
static void gst_mv_nats_sink_close (GstMvPublishSink * sink);
static MvPublishResult gst_mv_nats_sink_publish (GstMvPublishSink * sink,
    const MvPublishMessage & msg, int * mid);

/* One subject token: no separator, wildcard, space or control byte. */
static gboolean
value_char_ok (guchar c)
{
  return c > ' ' && c != '.' && c != '*' && c != '>' && c != 0x7f;
}

/* Tokens not empty, no wildcards or spaces. */
static gboolean
topic_valid (const gchar * subject)
{
  if (!*subject || *subject == '.' || g_str_has_suffix (subject, ".")
      || strstr (subject, ".."))
    return FALSE;
  for (const gchar * c = subject; *c; c++)
    if (*c != '.' && !value_char_ok ((guchar) *c))
      return FALSE;
  return TRUE;
}

static void
gst_mv_nats_sink_class_init (GstMvNatsSinkClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstMvPublishSinkClass * publish_class = GST_MV_PUBLISH_SINK_CLASS (klass);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->finalize = gst_mv_nats_sink_finalize;
  gst_mv_publish_sink_class_set_settings (publish_class,
      G_STRUCT_OFFSET (GstMvNatsSink, settings),
      G_STRUCT_OFFSET (GstMvNatsSink, run), sizeof (Settings));

  gst_match_settings_install (gobject_class, PROP_SERVERS, SETTING (servers),
      g_param_spec_string ("servers", "Servers",
          "NATS server URLs, comma-separated (nats://host:4222, tls://...)",
          DEFAULT_PROP_SERVERS, rw_ready));
  gst_match_settings_install (gobject_class, PROP_SUBJECT, SETTING (subject),
      g_param_spec_string ("subject", "Subject",
          "Subject template; {camera-id}, {type} (frame/event) and {event} "
          "(motion-start/motion-stop, or the type) are replaced per "
          "message, '.', '*', '>' and spaces in them made '_'",
          DEFAULT_PROP_SUBJECT, rw_ready));
  gst_match_settings_install (gobject_class, PROP_JETSTREAM,
      SETTING (jetstream),
      g_param_spec_boolean ("jetstream", "JetStream",
          "Publish to JetStream and keep each message until the stream "
          "acknowledges it (a stream must capture the subjects); false: "
          "core NATS, at most once",
          DEFAULT_PROP_JETSTREAM, rw_ready));
  gst_match_settings_install (gobject_class, PROP_ACK_TIMEOUT,
      SETTING (ack_timeout),
      g_param_spec_uint ("ack-timeout", "Acknowledgement timeout",
          "Milliseconds to wait for a JetStream acknowledgement before the "
          "message is sent again",
          100, 600000, DEFAULT_PROP_ACK_TIMEOUT, rw_ready));
  gst_match_settings_install (gobject_class, PROP_CONNECT_TIMEOUT,
      SETTING (connect_timeout),
      g_param_spec_uint ("connect-timeout", "Connect timeout",
          "Milliseconds a connection attempt may take (the first one at "
          "start)",
          100, 60000, DEFAULT_PROP_CONNECT_TIMEOUT, rw_ready));
  gst_match_settings_install (gobject_class, PROP_NAME, SETTING (name),
      g_param_spec_string ("connection-name", "Connection name",
          "Connection name the server shows in its monitoring (NULL or "
          "empty: none)",
          NULL, rw_ready));
  gst_mv_publish_sink_class_install_tls_files (publish_class, PROP_CA_FILE,
      SETTING (ca_file), SETTING (cert_file), SETTING (key_file),
      "PEM file of the certificate authorities that sign the server's "
      "certificate; set (not empty), the connection uses TLS");
  gst_match_settings_install (gobject_class, PROP_CREDS_FILE,
      SETTING (creds_file),
      g_param_spec_string ("creds-file", "Credentials file",
          "NATS .creds file (user JWT and NKey seed; NULL or empty: none)",
          NULL, rw_ready));
  gst_match_settings_install (gobject_class, PROP_USERNAME, SETTING (username),
      g_param_spec_string ("username", "User name",
          "User name for the server (NULL or empty: none)", NULL, rw_ready));
  gst_match_settings_install (gobject_class, PROP_PASSWORD, SETTING (password),
      g_param_spec_string ("password", "Password",
          "Password for the server (with username)", NULL, rw_ready));
  gst_match_settings_install (gobject_class, PROP_TOKEN, SETTING (token),
      g_param_spec_string ("token", "Token",
          "Authentication token (NULL or empty: none)", NULL, rw_ready));

  gst_element_class_set_static_metadata (element_class,
      "NATS sink for motion metadata", "Sink/Network",
      "Publishes each buffer (mvmetastream's JSON lines) as a NATS message, "
      "optionally to JetStream with acknowledgements, with a bounded queue "
      "and reconnection",
      "gst-motion authors");

  publish_class->transport = "NATS";
  publish_class->max_inflight = MAX_INFLIGHT;
  publish_class->value_char_ok = value_char_ok;
  publish_class->topic_valid = topic_valid;
  publish_class->topic_rules =
      "tokens separated by '.', none empty, no '*', '>' or spaces";
  publish_class->open = GST_DEBUG_FUNCPTR (gst_mv_nats_sink_open);
  publish_class->close = GST_DEBUG_FUNCPTR (gst_mv_nats_sink_close);
  publish_class->publish = gst_mv_nats_sink_publish;

  GST_DEBUG_CATEGORY_INIT (gst_mv_nats_sink_debug, "mvnatssink", 0,
      "NATS sink");
}

static void
gst_mv_nats_sink_init (GstMvNatsSink * self)
{
  self->nc = NULL;
  self->js = NULL;
  self->ever_connected = new std::atomic<bool> (false);
  self->connected = new std::atomic<bool> (false);
  g_mutex_init (&self->closed_lock);
  g_cond_init (&self->closed_cond);
}

static void
gst_mv_nats_sink_finalize (GObject * object)
{
  GstMvNatsSink * self = GST_MV_NATS_SINK (object);

  gst_mv_nats_sink_close (GST_MV_PUBLISH_SINK (self));
  delete self->ever_connected;
  delete self->connected;
  g_mutex_clear (&self->closed_lock);
  g_cond_clear (&self->closed_cond);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

/* --------------------------------------------------- libnats callbacks */

static MvPublishListener *
listener (gpointer self)
{
  return gst_mv_publish_sink_listener (GST_MV_PUBLISH_SINK (self));
}

static void
on_connected (natsConnection *, void * self)
{
  GST_MV_NATS_SINK (self)->ever_connected->store (true);
  GST_MV_NATS_SINK (self)->connected->store (true);
  listener (self)->connected ();
}

static void
on_disconnected (natsConnection * nc, void * self)
{
  const char * why = NULL;

  if (natsConnection_IsClosed (nc))
    return; /* our own close */
  natsConnection_GetLastError (nc, &why);
  if (GST_MV_NATS_SINK (self)->connected->exchange (false))
    listener (self)->connection_lost (why && *why ? why : "disconnected");
  else if (!GST_MV_NATS_SINK (self)->ever_connected->load ())
    listener (self)->unreachable (why && *why ? why : "no server answered");
}

/* Asynchronous errors: a refusal of the credentials (at a reconnection)
 * cannot mend by retrying. */
static void
on_error (natsConnection *, natsSubscription *, natsStatus err, void * self)
{
  GST_WARNING_OBJECT (self, "libnats: %s", natsStatus_GetText (err));
  if (err == NATS_CONNECTION_AUTH_FAILED || err == NATS_NOT_PERMITTED) {
    gchar * text = g_strdup_printf ("The NATS server refused the client: "
                                    "%s.",
        natsStatus_GetText (err));
    listener (self)->fatal (MvPublishError::REFUSED, text,
        GST_MV_NATS_SINK (self)->run.servers);
    g_free (text);
  }
}

/* libnats calls back on its own thread, in order: the closed callback
 * is the last, after which the sink may go. */
static void
on_closed (natsConnection *, void * data)
{
  GstMvNatsSink * self = GST_MV_NATS_SINK (data);

  g_mutex_lock (&self->closed_lock);
  self->closed = TRUE;
  g_cond_broadcast (&self->closed_cond);
  g_mutex_unlock (&self->closed_lock);
}

static int64_t
reconnect_delay (natsConnection *, int attempts, void * self)
{
  const GstMvPublishSettings & b = GST_MV_NATS_SINK (self)->base;

  return 1000
      * (int64_t) mv_publish_backoff_s ((guint) MAX (attempts - 1, 0),
          b.reconnect_delay, b.reconnect_delay_max);
}

/* JetStream: the message's id in the queue from its Nats-Msg-Id. */
static void
on_ack (jsCtx *, natsMsg * msg, jsPubAck * pa, jsPubAckErr * pae, void * self)
{
  const char * id = NULL;

  if (natsMsgHeader_Get (msg, "Nats-Msg-Id", &id) == NATS_OK && id
      && strrchr (id, '-')) {
    const int mid =
        (int) (g_ascii_strtoull (strrchr (id, '-') + 1, NULL, 10) & G_MAXINT);
    if (pa)
      listener (self)->published (mid);
    else if (pae
        && (pae->Err == NATS_TIMEOUT || pae->Err == NATS_NO_SERVER
            || pae->Err == NATS_CONNECTION_CLOSED))
      listener (self)->retry (mid, natsStatus_GetText (pae->Err));
    else
      listener (self)->failed (mid,
          pae && pae->ErrText ? pae->ErrText
                              : natsStatus_GetText (pae ? pae->Err : NATS_ERR));
  }
  natsMsg_Destroy (msg);
}

/* ----------------------------------------------------------- open/close */

/* The last libnats error, as text. */
static std::string
last_error (natsStatus s)
{
  const char * text = nats_GetLastError (NULL);

  return text && *text ? text : natsStatus_GetText (s);
}

static gboolean
gst_mv_nats_sink_open (GstMvPublishSink * sink,
    const GstMvPublishSettings * base)
{
  GstMvNatsSink * self = GST_MV_NATS_SINK (sink);
  Settings & r = self->run;
  natsOptions * opts = NULL;
  natsStatus s = NATS_OK;
  gchar ** servers = NULL;
  const gchar * what = NULL;
  MvPublishError kind = MvPublishError::SETTINGS;
  std::string detail;

  self->base = *base;
  self->ever_connected->store (false);
  self->connected->store (false);
  self->closed = FALSE;
  g_snprintf (self->run_id, sizeof self->run_id, "%08x%08x", g_random_int (),
      g_random_int ());

  if (!gst_mv_publish_is_set (r.servers)) {
    gst_mv_publish_sink_error (sink, MvPublishError::SETTINGS,
        "No NATS server given (set the servers property).", NULL);
    return FALSE;
  }
  if (!gst_mv_publish_sink_set_template (sink, GST_MV_PUBLISH_TEMPLATE_TOPIC,
          r.subject, "subject"))
    return FALSE;
  if (gst_mv_publish_is_set (r.cert_file)
      != gst_mv_publish_is_set (r.key_file)) {
    gst_mv_publish_sink_error (sink, MvPublishError::SETTINGS,
        "A client certificate needs both cert-file and key-file.", NULL);
    return FALSE;
  }
  if (!gst_mv_publish_sink_check_file (sink, "ca-file", r.ca_file)
      || !gst_mv_publish_sink_check_file (sink, "cert-file", r.cert_file)
      || !gst_mv_publish_sink_check_file (sink, "key-file", r.key_file)
      || !gst_mv_publish_sink_check_file (sink, "creds-file", r.creds_file))
    return FALSE;

  servers = g_strsplit (r.servers, ",", -1);
  for (gchar ** p = servers; *p; p++)
    g_strstrip (*p);
#define TRY(call, name)                                                        \
  if (s == NATS_OK && (s = (call)) != NATS_OK)                                 \
    what = name;
  TRY (natsOptions_Create (&opts), "options");
  TRY (natsOptions_SetServers (opts, (const char **) servers,
           (int) g_strv_length (servers)),
      "servers");
  TRY (natsOptions_SetTimeout (opts, r.connect_timeout), "connect-timeout");
  TRY (natsOptions_SetMaxReconnect (opts, -1), "max reconnect");
  /* See the notes: a buffer that rarely fills, so publishing rarely
   * writes to the socket itself. */
  TRY (natsOptions_SetIOBufSize (opts, IO_BUF_SIZE), "io buffer");
  TRY (natsOptions_SetCustomReconnectDelay (opts, reconnect_delay, self),
      "reconnect-delay");
  TRY (natsOptions_SetDisconnectedCB (opts, on_disconnected, self),
      "callbacks");
  TRY (natsOptions_SetReconnectedCB (opts, on_connected, self), "callbacks");
  TRY (natsOptions_SetErrorHandler (opts, on_error, self), "callbacks");
  TRY (natsOptions_SetClosedCB (opts, on_closed, self), "callbacks");
  if (gst_mv_publish_is_set (r.name))
    TRY (natsOptions_SetName (opts, r.name), "connection-name");
  if (gst_mv_publish_is_set (r.ca_file)) {
    TRY (natsOptions_SetSecure (opts, true), "ca-file");
    TRY (natsOptions_LoadCATrustedCertificates (opts, r.ca_file), "ca-file");
  }
  if (gst_mv_publish_is_set (r.cert_file))
    TRY (natsOptions_LoadCertificatesChain (opts, r.cert_file, r.key_file),
        "cert-file, key-file");
  if (gst_mv_publish_is_set (r.creds_file))
    TRY (natsOptions_SetUserCredentialsFromFiles (opts, r.creds_file, NULL),
        "creds-file");
  if (gst_mv_publish_is_set (r.username))
    TRY (natsOptions_SetUserInfo (opts, r.username, r.password),
        "username, password");
  if (gst_mv_publish_is_set (r.token))
    TRY (natsOptions_SetToken (opts, r.token), "token");
#undef TRY
  g_strfreev (servers);
  if (s != NATS_OK)
    goto failed;

  {
    gchar * text = g_strdup_printf ("the NATS server %s", r.servers);
    gst_mv_publish_sink_set_endpoint (sink, text,
        gst_structure_new ("endpoint", "servers", G_TYPE_STRING, r.servers,
            NULL));
    g_free (text);
  }

  /* The first attempt runs here (connect-timeout at most); where no
   * server answers, libnats retries in the background and calls
   * on_connected. */
  s = natsConnection_Connect (&self->nc, opts);
  if (s == NATS_NO_SERVER) {
    /* No server answered: libnats goes on in the background. (With this
     * option from the start, libnats would also retry a server that
     * refuses the credentials or the TLS handshake, silently.) */
    s = natsOptions_SetRetryOnFailedConnect (opts, true, on_connected, self);
    if (s == NATS_OK)
      s = natsConnection_Connect (&self->nc, opts);
  }
  if (s == NATS_OK || s == NATS_NOT_YET_CONNECTED) {
    if (r.jetstream) {
      jsOptions jo;
      jsOptions_Init (&jo);
      jo.PublishAsync.AckHandler = on_ack;
      jo.PublishAsync.AckHandlerClosure = self;
      /* Above our in-flight limit: js_PublishMsgAsync never stalls. */
      jo.PublishAsync.MaxPending = 4 * MAX_INFLIGHT;
      natsStatus js = natsConnection_JetStream (&self->js, self->nc, &jo);
      if (js != NATS_OK) {
        s = js;
        what = "jetstream";
      }
      jsPubOptions_Init (&self->pub_opts);
      self->pub_opts.MaxWait = r.ack_timeout;
    }
  }
  natsOptions_Destroy (opts);
  opts = NULL;
  if (what || (s != NATS_OK && s != NATS_NOT_YET_CONNECTED))
    goto failed;
  if (s == NATS_OK)
    on_connected (self->nc, self);
  else
    listener (self)->unreachable ("no server answered; retrying");
  GST_INFO_OBJECT (self, "publishing to %s, subject \"%s\"%s", r.servers,
      r.subject, r.jetstream ? ", JetStream" : "");
  return TRUE;

  /* ERRORS */
failed : {
  detail = last_error (s);
  if (opts)
    natsOptions_Destroy (opts);
  gst_mv_nats_sink_close (sink);
  if (s == NATS_SSL_ERROR)
    kind = MvPublishError::TLS;
  else if (s == NATS_CONNECTION_AUTH_FAILED || s == NATS_NOT_PERMITTED)
    kind = MvPublishError::REFUSED;
  else if (s == NATS_NO_MEMORY)
    kind = MvPublishError::CLIENT;
  gchar * text = what ? g_strdup_printf ("Invalid NATS setting (%s): %s.", what,
                     natsStatus_GetText (s))
      : kind == MvPublishError::REFUSED
      ? g_strdup_printf ("The NATS server %s refused the client: %s.",
          r.servers, natsStatus_GetText (s))
      : g_strdup_printf ("Could not connect to the NATS server %s: %s.",
          r.servers, natsStatus_GetText (s));
  gst_mv_publish_sink_error (sink, kind, text, detail.c_str ());
  g_free (text);
  return FALSE;
}
}

static void
gst_mv_nats_sink_close (GstMvPublishSink * sink)
{
  GstMvNatsSink * self = GST_MV_NATS_SINK (sink);

  if (self->nc) {
    /* Waits for libnats' last callback (at most 5 s: it comes at once
     * after a close). */
    const gint64 end = g_get_monotonic_time () + 5 * G_USEC_PER_SEC;
    natsConnection_Close (self->nc);
    g_mutex_lock (&self->closed_lock);
    while (!self->closed)
      if (!g_cond_wait_until (&self->closed_cond, &self->closed_lock, end))
        break;
    g_mutex_unlock (&self->closed_lock);
  }
  if (self->js) {
    jsCtx_Destroy (self->js);
    self->js = NULL;
  }
  if (self->nc) {
    natsConnection_Destroy (self->nc);
    self->nc = NULL;
  }
}

/* With the queue's lock held: libnats only buffers. */
static MvPublishResult
gst_mv_nats_sink_publish (GstMvPublishSink * sink, const MvPublishMessage & msg,
    int * mid)
{
  GstMvNatsSink * self = GST_MV_NATS_SINK (sink);
  natsStatus s;

  if (natsConnection_Status (self->nc) != NATS_CONN_STATUS_CONNECTED)
    return MvPublishResult::NOT_CONNECTED;
  if (!self->js) {
    s = natsConnection_Publish (self->nc, msg.topic.c_str (),
        msg.payload.data (), (int) msg.payload.size ());
    if (s == NATS_OK)
      return MvPublishResult::DONE;
  } else {
    natsMsg * m = NULL;
    gchar id[48];
    *mid = (int) (msg.seq & G_MAXINT);
    g_snprintf (id, sizeof id, "%s-%" G_GUINT64_FORMAT, self->run_id, msg.seq);
    s = natsMsg_Create (&m, msg.topic.c_str (), NULL, msg.payload.data (),
        (int) msg.payload.size ());
    if (s == NATS_OK)
      s = natsMsgHeader_Set (m, "Nats-Msg-Id", id);
    if (s == NATS_OK)
      s = js_PublishMsgAsync (self->js, &m, &self->pub_opts);
    natsMsg_Destroy (m); /* NULL when libnats took it */
    if (s == NATS_OK)
      return MvPublishResult::OK;
  }
  if (s == NATS_CONNECTION_CLOSED || s == NATS_CONNECTION_DISCONNECTED
      || s == NATS_TIMEOUT)
    return MvPublishResult::NOT_CONNECTED;
  GST_WARNING_OBJECT (self, "publish on \"%s\" (%u bytes): %s",
      msg.topic.c_str (), (guint) msg.payload.size (), natsStatus_GetText (s));
  return MvPublishResult::REJECTED;
}
