/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The MQTT client of mvmqttsink: one libmosquitto connection (TCP or TLS)
 * run by a network thread of ours, with reconnection after an exponential
 * backoff, and publish(). It posts nothing on a bus: it tells its
 * Listener what happens, and the element turns that into messages.
 *
 * Why our own loop rather than mosquitto_loop_start(): the thread of
 * libmosquitto 2.0.11 ends for good on a TLS error, including the
 * "unexpected eof" of a broker that crashes under a TLS connection (no
 * reconnection, ever, and no callback says so), and a first connection
 * refused before that thread runs is never retried either. Owning the
 * loop, the client retries both, with a true exponential backoff, and
 * turns a TLS failure before any connection (certificates, names:
 * retrying cannot help) into a fatal error.
 *
 * Threads: start() and stop() run on the element's state-change thread,
 * publish() on any thread (the streaming thread, or the network thread
 * from a Listener call); the Listener is called on the network thread
 * ("mvmqttsink-net"), except unreachable() which start() may call. With
 * mosquitto_threaded_set(), mosquitto_publish() only queues the packet and
 * wakes the loop through libmosquitto's socket pair: it does not touch the
 * network, so it may be called with the caller's locks held.
 */
#ifndef __MV_MQTT_CLIENT_H__
#define __MV_MQTT_CLIENT_H__

#include <glib.h>

#include <string>

#include "publish/mvpublishclient.h"
#include "publish/mvpublishqueue.h"

struct mosquitto;

struct MvMqttClientConfig
{
  std::string host;
  int port = 1883;
  /* Empty strings are unset. */
  std::string client_id;
  std::string username;
  std::string password;
  std::string ca_file; /* set: TLS */
  std::string cert_file;
  std::string key_file;
  bool tls_insecure = false;
  int keepalive = 60;
  guint reconnect_delay = 1;
  guint reconnect_delay_max = 30;
  int max_inflight = 20;
};

class MvMqttClient
{
public:
  /* Calls what happens on the network thread: connected,
   * connection_lost, unreachable (the first failed attempt of an outage;
   * start() may call it too), published (QoS 0: written; 1, 2:
   * acknowledged) and fatal (the broker refused the client, or the TLS
   * handshake failed before any connection succeeded; once, then the
   * client idles until stop()). */
  using Listener = MvPublishListener;

  /* Why start() failed. */
  enum class Failure
  {
    NONE,
    NO_CLIENT,    /* mosquitto_new() */
    SETUP,        /* an option (credentials, TLS files) not accepted */
    UNKNOWN_HOST, /* the host name does not resolve */
    TLS,          /* the TLS handshake failed at once */
  };

  /* mosquitto_lib_init(), once per process (class_init). */
  static void init_library ();

  /* `log_object`: the GObject its debug lines name. */
  MvMqttClient (Listener * listener, gpointer log_object);
  ~MvMqttClient ();
  MvMqttClient (const MvMqttClient &) = delete;
  MvMqttClient & operator= (const MvMqttClient &) = delete;

  /* Creates the libmosquitto client, starts connecting (without waiting
   * for the broker's answer) and the network thread. A broker that does
   * not answer is no failure: Listener::unreachable(), then retries. On
   * failure, `detail` says why (libmosquitto's or OpenSSL's words) and
   * nothing is left running. */
  Failure start (const MvMqttClientConfig & config, std::string * detail);

  /* Disconnects, ends the network thread and frees the client. Not under
   * a lock that a Listener call takes: it joins the network thread. */
  void stop ();

  /* Hands `msg` to libmosquitto (mosquitto_publish()): OK with *mid set,
   * NOT_CONNECTED, or REJECTED (logged) when it can never be sent. A
   * MvPublishQueue::PublishFunc. */
  MvPublishResult publish (const MvPublishMessage & msg, int qos, bool retain,
      int * mid);

  /* mosquitto_strerror (rc). */
  static const char * error_string (int rc);
  /* Whether `topic` is one a client may publish to (not empty, no `+` or
   * `#`, valid UTF-8, at most 65535 bytes). */
  static bool topic_valid (const char * topic);

private:
  static void on_connect (struct mosquitto *, void * self, int rc);
  static void on_disconnect (struct mosquitto *, void * self, int rc);
  static void on_publish (struct mosquitto *, void * self, int mid);
  static void on_log (struct mosquitto *, void * self, int level,
      const char * str);
  static gpointer thread_func (gpointer self);

  void run ();
  void connection_down (const char * reason);
  bool tls_refused ();
  void set_fatal (MvPublishError kind, const char * text, const char * debug);
  bool attempt_failed (std::string * reason);
  bool wait (guint64 seconds);
  bool stopping ();
  gchar * take_tls_error ();

  Listener * listener_;
  gpointer log_object_;
  MvMqttClientConfig config_;
  struct mosquitto * mosq_ = nullptr;
  GThread * thread_ = nullptr;

  /* Network thread only (and start(), before it runs). */
  bool connected_ = false;
  bool ever_connected_ = false;
  bool warned_ = false; /* this outage was reported */
  bool fatal_ = false;
  guint attempt_ = 0; /* failed attempts in a row */

  GMutex stop_lock_; /* stop flag and the reconnection wait */
  GCond stop_cond_;
  bool stop_ = false;

  GMutex log_lock_;             /* on_log may run on any thread */
  gchar * tls_error_ = nullptr; /* last OpenSSL error libmosquitto logged */
};

#endif /* __MV_MQTT_CLIENT_H__ */
