/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The MQTT client of mvmqttsink (mvmqttclient.h).
 */
/* Implementation notes.
 *
 * The network thread runs mosquitto_loop() with a short timeout (a stop
 * is seen within 100 ms; a publish wakes the loop through libmosquitto's
 * socket pair) and, when it fails, waits reconnect-delay * 2^attempt
 * seconds (at most reconnect-delay-max) and calls
 * mosquitto_reconnect_async().
 *
 * A TLS attempt whose TCP connection fails (the broker is still down when
 * the attempt is made) is never failed by libmosquitto 2.0.11: its
 * net__socket_connect_tls() takes the SSL_ERROR_SYSCALL of the refused
 * socket for "handshake still in progress" and returns success, so
 * mosquitto_loop() keeps returning success (spinning, as the dead socket
 * is always readable) until the keepalive check closes the socket,
 * `keepalive` seconds later (60 s by default), while plain TCP fails at
 * once. So while an attempt awaits the broker's CONNACK, the thread looks
 * at the socket itself after each loop: a hung-up or failed socket ends
 * the attempt, which then follows the backoff like any other.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "mvmqttclient.h"

#include <gst/gst.h>
#include <mosquitto.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/socket.h>
#include <time.h>

GST_DEBUG_CATEGORY_EXTERN (gst_mv_mqtt_sink_debug);
#define GST_CAT_DEFAULT gst_mv_mqtt_sink_debug

/* libmosquitto writes TLS records through OpenSSL's write(), which raises
 * SIGPIPE on a connection the broker closed, and SIGPIPE's default action
 * ends the application (seen on Debian 13: a test process killed while a
 * TLS broker dropped it). So every call into libmosquitto that may write
 * runs with SIGPIPE blocked in its thread; a SIGPIPE it raised there is
 * taken before the thread's mask is restored (the write fails with EPIPE
 * instead, which libmosquitto reports as a lost connection). Nothing
 * process-wide changes (libcurl's way). */
class NoSigpipe
{
public:
  NoSigpipe ()
  {
    sigemptyset (&pipe_);
    sigaddset (&pipe_, SIGPIPE);
    pthread_sigmask (SIG_BLOCK, &pipe_, &old_);
  }
  ~NoSigpipe ()
  {
    if (!sigismember (&old_, SIGPIPE)) {
      sigset_t pending;
      const struct timespec now = { 0, 0 };
      if (sigpending (&pending) == 0 && sigismember (&pending, SIGPIPE))
        (void) sigtimedwait (&pipe_, NULL, &now);
      pthread_sigmask (SIG_SETMASK, &old_, NULL);
    }
  }
  NoSigpipe (const NoSigpipe &) = delete;
  NoSigpipe & operator= (const NoSigpipe &) = delete;

private:
  sigset_t pipe_, old_;
};

static const char *
opt (const std::string & s)
{
  return s.empty () ? NULL : s.c_str ();
}

void
MvMqttClient::init_library ()
{
  mosquitto_lib_init ();
}

MvMqttClient::MvMqttClient (Listener * listener, gpointer log_object)
    : listener_ (listener), log_object_ (log_object)
{
  g_mutex_init (&stop_lock_);
  g_cond_init (&stop_cond_);
  g_mutex_init (&log_lock_);
}

MvMqttClient::~MvMqttClient ()
{
  stop ();
  g_mutex_clear (&stop_lock_);
  g_cond_clear (&stop_cond_);
  g_mutex_clear (&log_lock_);
}

const char *
MvMqttClient::error_string (int rc)
{
  return mosquitto_strerror (rc);
}

bool
MvMqttClient::topic_valid (const char * topic)
{
  return topic && *topic
      && mosquitto_validate_utf8 (topic, (int) strlen (topic))
      == MOSQ_ERR_SUCCESS
      && mosquitto_pub_topic_check (topic) == MOSQ_ERR_SUCCESS;
}

MvMqttClient::Failure
MvMqttClient::start (const MvMqttClientConfig & config, std::string * detail)
{
  int rc;
  gchar * tls;

  stop ();
  config_ = config;
  connected_ = ever_connected_ = warned_ = fatal_ = false;
  attempt_ = 0;
  stop_ = false;
  g_free (take_tls_error ());

  mosq_ = mosquitto_new (opt (config_.client_id), true, this);
  if (!mosq_) {
    *detail = std::string ("mosquitto_new: ") + g_strerror (errno);
    return Failure::NO_CLIENT;
  }
  mosquitto_connect_callback_set (mosq_, on_connect);
  mosquitto_disconnect_callback_set (mosq_, on_disconnect);
  mosquitto_publish_callback_set (mosq_, on_publish);
  mosquitto_log_callback_set (mosq_, on_log);
  mosquitto_int_option (mosq_, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311);
  mosquitto_max_inflight_messages_set (mosq_, config_.max_inflight);
  /* Our own thread calls mosquitto_loop(): in this mode libmosquitto
   * only queues packets from other threads and wakes the loop. */
  mosquitto_threaded_set (mosq_, true);
  if (!config_.username.empty ()
      && (rc = mosquitto_username_pw_set (mosq_, opt (config_.username),
              opt (config_.password)))
          != MOSQ_ERR_SUCCESS)
    goto setup_failed;
  if (!config_.ca_file.empty ()) {
    if ((rc = mosquitto_tls_set (mosq_, opt (config_.ca_file), NULL,
             opt (config_.cert_file), opt (config_.key_file), NULL))
        != MOSQ_ERR_SUCCESS)
      goto setup_failed;
    if ((rc = mosquitto_tls_insecure_set (mosq_, config_.tls_insecure))
        != MOSQ_ERR_SUCCESS)
      goto setup_failed;
  }

  /* Resolves the host and starts the TCP connection, without waiting for
   * the broker's answer (on_connect, on the network thread). */
  {
    NoSigpipe guard;
    rc = mosquitto_connect_async (mosq_, config_.host.c_str (), config_.port,
        config_.keepalive);
  }
  if (rc == MOSQ_ERR_EAI) {
    *detail = "the host name does not resolve";
    stop ();
    return Failure::UNKNOWN_HOST;
  }
  /* The TLS handshake may already have run (and failed) in there. */
  tls = take_tls_error ();
  if (tls || rc == MOSQ_ERR_TLS) {
    *detail = tls ? tls : mosquitto_strerror (rc);
    g_free (tls);
    stop ();
    return Failure::TLS;
  }
  if (rc == MOSQ_ERR_ERRNO) {
    warned_ = true;
    listener_->unreachable (g_strerror (errno));
  } else if (rc != MOSQ_ERR_SUCCESS) {
    goto setup_failed;
  }
  thread_ = g_thread_new ("mvmqttsink-net", thread_func, this);
  return Failure::NONE;

  /* ERRORS */
setup_failed : {
  *detail = mosquitto_strerror (rc);
  stop ();
  return Failure::SETUP;
}
}

void
MvMqttClient::stop ()
{
  if (!mosq_)
    return;
  g_mutex_lock (&stop_lock_);
  stop_ = true;
  g_cond_broadcast (&stop_cond_);
  g_mutex_unlock (&stop_lock_);
  {
    NoSigpipe guard;
    mosquitto_disconnect (mosq_);
  }
  if (thread_)
    g_thread_join (thread_);
  thread_ = NULL;
  mosquitto_destroy (mosq_);
  mosq_ = NULL;
  g_free (take_tls_error ());
}

MvPublishResult
MvMqttClient::publish (const MvPublishMessage & msg, int qos, bool retain,
    int * mid)
{
  NoSigpipe guard;
  const int rc = mosquitto_publish (mosq_, mid, msg.topic.c_str (),
      (int) msg.payload.size (), msg.payload.data (), qos, retain);
  if (rc == MOSQ_ERR_SUCCESS)
    return MvPublishResult::OK;
  if (rc == MOSQ_ERR_NO_CONN) {
    /* Lost meanwhile: on_disconnect follows, the message stays. */
    GST_DEBUG_OBJECT (log_object_, "not connected: message kept");
    return MvPublishResult::NOT_CONNECTED;
  }
  GST_WARNING_OBJECT (log_object_,
      "mosquitto_publish on \"%s\" (%u bytes): "
      "%s",
      msg.topic.c_str (), (guint) msg.payload.size (), mosquitto_strerror (rc));
  return MvPublishResult::REJECTED;
}

/* ------------------------------------------------ libmosquitto callbacks */

void
MvMqttClient::on_connect (struct mosquitto *, void * data, int rc)
{
  MvMqttClient * self = (MvMqttClient *) data;

  if (rc != 0) {
    /* libmosquitto's sentence ends with a full stop; ours adds none. */
    std::string why = mosquitto_connack_string (rc);
    if (!why.empty () && why.back () == '.')
      why.pop_back ();
    gchar * text = g_strdup_printf ("The MQTT broker %s:%d refused the "
                                    "connection: %s.",
        self->config_.host.c_str (), self->config_.port, why.c_str ());
    gchar * debug = g_strdup_printf ("CONNACK return code %d (check "
                                     "username, password and client-id)",
        rc);
    self->set_fatal (MvPublishError::REFUSED, text, debug);
    g_free (text);
    g_free (debug);
    /* Stop the reconnection attempts: this answer will not change. */
    mosquitto_disconnect (self->mosq_);
    return;
  }
  self->connected_ = true;
  self->ever_connected_ = true;
  self->warned_ = false;
  self->attempt_ = 0;
  self->listener_->connected ();
}

void
MvMqttClient::on_disconnect (struct mosquitto *, void * data, int rc)
{
  MvMqttClient * self = (MvMqttClient *) data;

  if (rc == 0) {
    self->connected_ = false; /* our own disconnect (stop, refusal) */
    return;
  }
  self->connection_down (mosquitto_strerror (rc));
}

void
MvMqttClient::on_publish (struct mosquitto *, void * data, int mid)
{
  ((MvMqttClient *) data)->listener_->published (mid);
}

/* May run inside mosquitto_publish(), on any thread: takes only
 * log_lock_. */
void
MvMqttClient::on_log (struct mosquitto *, void * data, int level,
    const char * str)
{
  MvMqttClient * self = (MvMqttClient *) data;

  if (level & (MOSQ_LOG_ERR | MOSQ_LOG_WARNING))
    GST_WARNING_OBJECT (self->log_object_, "libmosquitto: %s", str);
  else
    GST_LOG_OBJECT (self->log_object_, "libmosquitto: %s", str);
  /* libmosquitto reports TLS failures only through its log. */
  if ((level & MOSQ_LOG_ERR) && g_str_has_prefix (str, "OpenSSL Error")) {
    g_mutex_lock (&self->log_lock_);
    if (!self->tls_error_)
      self->tls_error_ = g_strdup (str);
    g_mutex_unlock (&self->log_lock_);
  }
}

/* ------------------------------------------------------ network thread */

/* Takes the TLS error logged since the last call (NULL if none). */
gchar *
MvMqttClient::take_tls_error ()
{
  g_mutex_lock (&log_lock_);
  gchar * e = tls_error_;
  tls_error_ = NULL;
  g_mutex_unlock (&log_lock_);
  return e;
}

/* One report per outage: the loss of an established connection, or the
 * first attempt that fails; the later attempts stay quiet. A failed TLS
 * handshake before any connection is the fatal error instead (the sink
 * lets an EOS waiting for the first answer go on at once when told the
 * broker is unreachable, so the error must come first: libmosquitto 2.0.21
 * calls on_disconnect before run () sees the handshake's error). */
void
MvMqttClient::connection_down (const char * reason)
{
  const bool was_connected = connected_;
  connected_ = false;
  if (fatal_ || tls_refused ())
    return;
  if (was_connected) {
    warned_ = true;
    listener_->connection_lost (reason);
  } else if (!warned_) {
    warned_ = true;
    listener_->unreachable (reason);
  }
}

/* Never connected and the TLS handshake failed (libmosquitto logged why):
 * certificates or names that will not change by retrying, so the fatal
 * error. Returns true then. */
bool
MvMqttClient::tls_refused ()
{
  if (ever_connected_)
    return false;
  gchar * tls = take_tls_error ();
  if (!tls)
    return false;
  gchar * text = g_strdup_printf ("TLS connection to the MQTT broker %s:%d "
                                  "failed.",
      config_.host.c_str (), config_.port);
  gchar * debug = g_strdup_printf ("%s (check ca-file, cert-file, key-file "
                                   "and that the broker's certificate names "
                                   "the host)",
      tls);
  set_fatal (MvPublishError::TLS, text, debug);
  g_free (text);
  g_free (debug);
  g_free (tls);
  return true;
}

void
MvMqttClient::set_fatal (MvPublishError kind, const char * text,
    const char * debug)
{
  connected_ = false;
  if (fatal_)
    return;
  fatal_ = true;
  listener_->fatal (kind, text, debug);
}

/* An attempt awaiting its CONNACK: TRUE, with `reason`, when its socket
 * hung up or failed (see the notes at the top). POLLHUP and POLLERR are
 * reported whatever the events asked for. */
bool
MvMqttClient::attempt_failed (std::string * reason)
{
  const int fd = mosquitto_socket (mosq_);
  if (fd < 0)
    return false; /* the next mosquitto_loop() says MOSQ_ERR_NO_CONN */
  struct pollfd p = { fd, 0, 0 };
  if (poll (&p, 1, 0) != 1 || !(p.revents & (POLLHUP | POLLERR)))
    return false;
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt (fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
    err = errno;
  *reason = err ? g_strerror (err)
                : "the connection closed before the broker answered";
  return true;
}

/* Waits `seconds` or until stop(); TRUE when stopping. */
bool
MvMqttClient::wait (guint64 seconds)
{
  const gint64 end = g_get_monotonic_time ()
      + (gint64) MIN (seconds, (guint64) G_MAXUINT32) * G_USEC_PER_SEC;
  g_mutex_lock (&stop_lock_);
  while (!stop_)
    if (!g_cond_wait_until (&stop_cond_, &stop_lock_, end))
      break;
  const bool stop = stop_;
  g_mutex_unlock (&stop_lock_);
  return stop;
}

bool
MvMqttClient::stopping ()
{
  g_mutex_lock (&stop_lock_);
  const bool stop = stop_;
  g_mutex_unlock (&stop_lock_);
  return stop;
}

gpointer
MvMqttClient::thread_func (gpointer data)
{
  NoSigpipe guard; /* the network thread's loop, reconnects, disconnects */
  ((MvMqttClient *) data)->run ();
  return NULL;
}

void
MvMqttClient::run ()
{
  const MvMqttClientConfig & c = config_;

  while (!stopping ()) {
    std::string reason;
    int rc = mosquitto_loop (mosq_, 100, 1);
    if (fatal_) {
      wait (G_MAXUINT32); /* the listener has it: idle until stop */
      break;
    }
    if (rc == MOSQ_ERR_SUCCESS) {
      if (connected_ || !attempt_failed (&reason))
        continue;
    } else {
      reason = mosquitto_strerror (rc);
    }

    if (tls_refused ())
      continue;
    gchar * tls = take_tls_error ();
    if (tls) {
      GST_INFO_OBJECT (log_object_, "TLS connection lost: %s", tls);
      reason = tls;
      g_free (tls);
    }
    connection_down (reason.c_str ());

    /* Exponential backoff: reconnect-delay * 2^attempt, at most
     * reconnect-delay-max. */
    const guint64 delay = mv_publish_backoff_s (attempt_, c.reconnect_delay,
        c.reconnect_delay_max);
    attempt_++;
    GST_DEBUG_OBJECT (log_object_,
        "connection down (%s); attempt %u in %" G_GUINT64_FORMAT " s",
        reason.c_str (), attempt_, delay);
    if (wait (delay))
      break;
    rc = mosquitto_reconnect_async (mosq_);
    if (rc != MOSQ_ERR_SUCCESS)
      GST_DEBUG_OBJECT (log_object_, "reconnect: %s", mosquitto_strerror (rc));
  }

  /* Let a DISCONNECT queued by stop() reach the broker. */
  for (int i = 0; i < 3; i++)
    if (mosquitto_loop (mosq_, 20, 1) != MOSQ_ERR_SUCCESS)
      break;
}
