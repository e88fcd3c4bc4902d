/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mvmqttsink end to end against a real mosquitto broker started by the
 * test on 127.0.0.1 (a free port, its config in a temporary directory),
 * with a libmosquitto subscriber that checks every message by the "seq"
 * of mvmetastream's objects:
 *   - appsrc ! blockmatchme events=true regions=true ! mvmetastream !
 *     mvmqttsink, with the broker restarted mid-stream: every frame and
 *     event arrives (QoS 1; duplicates allowed), nothing dropped;
 *   - the same with max-queue=4: every message is either delivered or
 *     counted in "dropped" (exactly), drops are reported (warning and
 *     mvmqttsink-dropped message), events are kept;
 *   - no broker at start: a warning, the queue, then everything counted
 *     as dropped at EOS after drain-timeout;
 *   - a broker that starts after the pipeline: everything delivered;
 *   - a broker that refuses the client (CONNACK) and a bad topic: errors;
 *     the refusal reaches an application that runs its loop late, as
 *     gst-launch-1.0 does, with buffers and with EOS only;
 *   - TLS with a client certificate and a password through a broker
 *     crash; an untrusted broker certificate is an error; a TLS broker
 *     down at a reconnection attempt is reconnected on the backoff.
 * The suite is skipped (exit 77) where the mosquitto binary is absent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/app/gstappsrc.h>
#include <gst/base/gstbasesink.h>
#include <gst/motionvectors/motionvectors.h>

#include <glib/gstdio.h>
#include <mosquitto.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>
#include <map>
#include <string>
#include <vector>

/* -------------------------------------------------------------- broker */

static gchar *
find_mosquitto (void)
{
  gchar * p = g_find_program_in_path ("mosquitto");
  if (!p && g_file_test ("/usr/sbin/mosquitto", G_FILE_TEST_IS_EXECUTABLE))
    p = g_strdup ("/usr/sbin/mosquitto");
  return p;
}

static int
free_port (void)
{
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  socklen_t len = sizeof a;

  memset (&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  fail_unless (bind (fd, (struct sockaddr *) &a, sizeof a) == 0);
  fail_unless (getsockname (fd, (struct sockaddr *) &a, &len) == 0);
  close (fd);
  return ntohs (a.sin_port);
}

static gboolean
port_open (int port)
{
  int fd = socket (AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;

  memset (&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons (port);
  a.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  const gboolean ok = connect (fd, (struct sockaddr *) &a, sizeof a) == 0;
  close (fd);
  return ok;
}

struct Broker
{
  std::string dir;
  std::string conf;
  int port = 0;
  GPid pid = 0;
};

/* Persistence on, so that the subscriber's session (clean_session=false)
 * and its queued messages survive a restart. `extra`: more lines. */
static void
broker_write_conf (Broker * b, gboolean anonymous, const gchar * extra)
{
  gchar * text = g_strdup_printf ("listener %d 127.0.0.1\n"
                                  "allow_anonymous %s\n"
                                  "persistence true\n"
                                  "persistence_location %s/\n"
                                  "log_dest file %s/broker.log\n"
                                  "user %s\n%s",
      b->port, anonymous ? "true" : "false", b->dir.c_str (), b->dir.c_str (),
      g_get_user_name (), extra);
  fail_unless (g_file_set_contents (b->conf.c_str (), text, -1, NULL));
  g_free (text);
}

static void
broker_init (Broker * b, gboolean anonymous)
{
  gchar * d = g_dir_make_tmp ("mvmqtt-test-XXXXXX", NULL);
  fail_unless (d != NULL);
  b->dir = d;
  g_free (d);
  b->port = free_port ();
  b->conf = b->dir + "/mosquitto.conf";
  broker_write_conf (b, anonymous, "");
}

/* The broker dies with the test process, also when a failed check ends
 * it before broker_free(). */
static void
broker_child_setup (gpointer)
{
  prctl (PR_SET_PDEATHSIG, SIGTERM);
}

static void
broker_start (Broker * b)
{
  gchar * bin = find_mosquitto ();
  gchar * argv[] = { bin, (gchar *) "-c", (gchar *) b->conf.c_str (), NULL };
  GError * err = NULL;

  fail_unless (g_spawn_async (NULL, argv, NULL,
                   (GSpawnFlags) (G_SPAWN_DO_NOT_REAP_CHILD
                       | G_SPAWN_STDOUT_TO_DEV_NULL
                       | G_SPAWN_STDERR_TO_DEV_NULL),
                   broker_child_setup, NULL, &b->pid, &err),
      "mosquitto: %s", err ? err->message : "?");
  g_free (bin);
  for (int i = 0; i < 200 && !port_open (b->port); i++)
    g_usleep (25000);
  fail_unless (port_open (b->port), "mosquitto did not start on port %d",
      b->port);
}

static void
broker_stop (Broker * b)
{
  if (!b->pid)
    return;
  kill (b->pid, SIGTERM);
  waitpid (b->pid, NULL, 0);
  g_spawn_close_pid (b->pid);
  b->pid = 0;
}

static void
broker_free (Broker * b)
{
  broker_stop (b);
  GDir * d = g_dir_open (b->dir.c_str (), 0, NULL);
  if (d) {
    while (const gchar * n = g_dir_read_name (d))
      g_unlink ((b->dir + "/" + n).c_str ());
    g_dir_close (d);
  }
  g_rmdir (b->dir.c_str ());
}

/* ---------------------------------------------------------- subscriber */

struct Subscriber
{
  struct mosquitto * mosq = nullptr;
  GMutex lock;
  bool subscribed = false;
  std::map<guint64, int> seq_count; /* seq -> times received */
  std::map<guint64, std::string> seq_topic;
  guint64 messages = 0;
  guint64 events = 0;
  std::string filter = "test/#";
};

static guint64
json_uint (const std::string & s, const char * key)
{
  const size_t p = s.find (key);
  if (p == std::string::npos)
    return G_MAXUINT64;
  return g_ascii_strtoull (s.c_str () + p + strlen (key), NULL, 10);
}

static void
sub_on_connect (struct mosquitto * m, void * user, int rc)
{
  if (rc == 0)
    mosquitto_subscribe (m, NULL, ((Subscriber *) user)->filter.c_str (), 1);
}

static void
sub_on_subscribe (struct mosquitto *, void * user, int, int, const int *)
{
  Subscriber * s = (Subscriber *) user;
  g_mutex_lock (&s->lock);
  s->subscribed = true;
  g_mutex_unlock (&s->lock);
}

static void
sub_on_message (struct mosquitto *, void * user,
    const struct mosquitto_message * msg)
{
  Subscriber * s = (Subscriber *) user;
  std::string payload ((const char *) msg->payload, msg->payloadlen);
  const guint64 seq = json_uint (payload, "\"seq\":");

  g_mutex_lock (&s->lock);
  s->messages++;
  if (s->seq_count[seq]++ == 0) {
    s->seq_topic[seq] = msg->topic;
    if (payload.find ("\"type\":\"event\"") != std::string::npos)
      s->events++;
  }
  g_mutex_unlock (&s->lock);
}

static void
sub_start (Subscriber * s, int port, const char * user = NULL,
    const char * password = NULL)
{
  gchar * id = g_strdup_printf ("mvmqtt-check-%d", (int) getpid ());
  g_mutex_init (&s->lock);
  s->mosq = mosquitto_new (id, false, s);
  g_free (id);
  fail_unless (s->mosq != NULL);
  if (user)
    mosquitto_username_pw_set (s->mosq, user, password);
  mosquitto_connect_callback_set (s->mosq, sub_on_connect);
  mosquitto_subscribe_callback_set (s->mosq, sub_on_subscribe);
  mosquitto_message_callback_set (s->mosq, sub_on_message);
  mosquitto_reconnect_delay_set (s->mosq, 1, 1, false);
  fail_unless_equals_int (mosquitto_connect (s->mosq, "127.0.0.1", port, 10),
      MOSQ_ERR_SUCCESS);
  fail_unless_equals_int (mosquitto_loop_start (s->mosq), MOSQ_ERR_SUCCESS);
  for (int i = 0; i < 200; i++) {
    g_mutex_lock (&s->lock);
    const bool ok = s->subscribed;
    g_mutex_unlock (&s->lock);
    if (ok)
      return;
    g_usleep (25000);
  }
  fail ("the subscriber did not subscribe");
}

static void
sub_stop (Subscriber * s)
{
  mosquitto_disconnect (s->mosq);
  mosquitto_loop_stop (s->mosq, false);
  mosquitto_destroy (s->mosq);
  g_mutex_clear (&s->lock);
}

/* Waits until `n` distinct seq numbers arrived (or the timeout). */
static guint64
sub_wait_unique (Subscriber * s, guint64 n, gint64 timeout_ms)
{
  const gint64 end = g_get_monotonic_time () + timeout_ms * 1000;
  guint64 have = 0;
  do {
    g_mutex_lock (&s->lock);
    have = s->seq_count.size ();
    g_mutex_unlock (&s->lock);
    if (have >= n)
      break;
    g_usleep (20000);
  } while (g_get_monotonic_time () < end);
  return have;
}

/* ------------------------------------------------------------ pipeline */

#define W 64
#define H 48
#define FPS 30

/* A grey texture with a bright 16x16 square that moves 2 px per frame for
 * 6 frames, then stands still for 6, and so on: with hold-off=0 each
 * moving stretch gives a motion-start and each still one a motion-stop. */
static GstBuffer *
make_frame (int i)
{
  GstBuffer * buf = gst_buffer_new_allocate (NULL, W * H, NULL);
  GstMapInfo map;
  const int period = 12, moving = 6;
  const int steps = (i / period) * moving + MIN (i % period, moving);
  const int sx = 8 + (2 * steps) % (W - 32);
  const int sy = 16;

  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      guint32 h = (guint32) (x * 73856093u) ^ (guint32) (y * 19349663u);
      h ^= h >> 13;
      guint8 v = (guint8) (40 + (h * 2654435761u >> 26));
      if (x >= sx && x < sx + 16 && y >= sy && y < sy + 16)
        v = (guint8) (200 + ((x - sx) * 3 + (y - sy) * 5) % 50);
      map.data[y * W + x] = v;
    }
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = gst_util_uint64_scale (i, GST_SECOND, FPS);
  GST_BUFFER_DURATION (buf) = gst_util_uint64_scale (1, GST_SECOND, FPS);
  return buf;
}

struct Run
{
  GstElement * pipeline = nullptr;
  GstElement * sink = nullptr;
  guint64 objects = 0;    /* buffers that reached the sink */
  guint64 bus_events = 0; /* motion-start/-stop posted by blockmatchme */
  guint warnings_lost = 0;
  guint warnings_dropped = 0;
  guint warnings_connect = 0;
  guint connected_msgs = 0;
  guint disconnected_msgs = 0;
  guint64 last_dropped_msg = 0;
  guint64 last_dropped_events = 0;
  guint dropped_msgs = 0;
  std::string last_dropped_reason;
  gchar * error = nullptr;
};

static GstPadProbeReturn
count_probe (GstPad *, GstPadProbeInfo *, gpointer user)
{
  ((Run *) user)->objects++; /* read by the test after EOS */
  return GST_PAD_PROBE_OK;
}

static void
run_init (Run * r, int port, const gchar * sink_props, gboolean live,
    const gchar * camera_id = "testcam")
{
  gchar * desc = g_strdup_printf (
      "appsrc name=src format=time is-live=%s "
      "max-bytes=0 caps=video/x-raw,format=GRAY8,width=%d,height=%d,"
      "framerate=%d/1 ! blockmatchme block-size=8 search-range=4 "
      "events=true regions=true decision=blocks hold-off=0 ! mvmetastream "
      "camera-id=%s "
      "vectors=moving ! mvmqttsink name=sink host=127.0.0.1 port=%d "
      "topic=test/{camera-id}/{type} reconnect-delay=1 %s",
      live ? "true" : "false", W, H, FPS, camera_id, port, sink_props);
  GError * err = NULL;
  r->pipeline = gst_parse_launch (desc, &err);
  fail_unless (r->pipeline != NULL, "%s: %s", desc, err ? err->message : "");
  g_free (desc);
  r->sink = gst_bin_get_by_name (GST_BIN (r->pipeline), "sink");
  GstPad * pad = gst_element_get_static_pad (r->sink, "sink");
  gst_pad_add_probe (pad, GST_PAD_PROBE_TYPE_BUFFER, count_probe, r, NULL);
  gst_object_unref (pad);
}

static void
run_free (Run * r)
{
  gst_element_set_state (r->pipeline, GST_STATE_NULL);
  gst_object_unref (r->sink);
  gst_object_unref (r->pipeline);
  g_free (r->error);
}

static void
handle_message (Run * r, GstMessage * msg)
{
  switch (GST_MESSAGE_TYPE (msg)) {
    case GST_MESSAGE_WARNING: {
      GError * e = NULL;
      gst_message_parse_warning (msg, &e, NULL);
      GST_INFO ("warning: %s", e->message);
      if (strstr (e->message, "Lost the connection"))
        r->warnings_lost++;
      else if (strstr (e->message, "dropped"))
        r->warnings_dropped++;
      else if (strstr (e->message, "Could not connect"))
        r->warnings_connect++;
      g_error_free (e);
      break;
    }
    case GST_MESSAGE_ERROR: {
      GError * e = NULL;
      gst_message_parse_error (msg, &e, NULL);
      if (!r->error)
        r->error = g_strdup (e->message);
      g_error_free (e);
      break;
    }
    case GST_MESSAGE_ELEMENT: {
      const GstStructure * s = gst_message_get_structure (msg);
      if (gst_structure_has_name (s, GST_MOTION_EVENT_START_NAME)
          || gst_structure_has_name (s, GST_MOTION_EVENT_STOP_NAME))
        r->bus_events++;
      if (gst_structure_has_name (s, "mvmqttsink-connection")) {
        gboolean c = FALSE;
        gst_structure_get_boolean (s, "connected", &c);
        (c ? r->connected_msgs : r->disconnected_msgs)++;
      }
      if (gst_structure_has_name (s, "mvmqttsink-dropped")) {
        gst_structure_get_uint64 (s, "dropped", &r->last_dropped_msg);
        gst_structure_get_uint64 (s, "dropped-events", &r->last_dropped_events);
        r->dropped_msgs++;
        const gchar * why = gst_structure_get_string (s, "reason");
        r->last_dropped_reason = why ? why : "";
      }
      break;
    }
    default:
      break;
  }
}

/* Handles bus messages until EOS or an error, or `timeout_ms`. */
static gboolean
run_until_eos (Run * r, gint64 timeout_ms)
{
  GstBus * bus = gst_element_get_bus (r->pipeline);
  const gint64 end = g_get_monotonic_time () + timeout_ms * 1000;
  gboolean eos = FALSE;

  while (!eos && !r->error && g_get_monotonic_time () < end) {
    GstMessage * msg = gst_bus_timed_pop (bus, 50 * GST_MSECOND);
    if (!msg)
      continue;
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS)
      eos = TRUE;
    handle_message (r, msg);
    gst_message_unref (msg);
  }
  gst_object_unref (bus);
  return eos;
}

/* Drains the bus for `ms` (the pipeline keeps running). */
static void
run_for (Run * r, gint64 ms)
{
  GstBus * bus = gst_element_get_bus (r->pipeline);
  const gint64 end = g_get_monotonic_time () + ms * 1000;
  while (g_get_monotonic_time () < end) {
    GstMessage * msg = gst_bus_timed_pop (bus, 20 * GST_MSECOND);
    if (msg) {
      handle_message (r, msg);
      gst_message_unref (msg);
    }
  }
  gst_object_unref (bus);
}

static void
push_frames (Run * r, int n)
{
  GstElement * src = gst_bin_get_by_name (GST_BIN (r->pipeline), "src");
  for (int i = 0; i < n; i++)
    fail_unless_equals_int (gst_app_src_push_buffer (GST_APP_SRC (src),
                                make_frame (i)),
        GST_FLOW_OK);
  gst_app_src_end_of_stream (GST_APP_SRC (src));
  gst_object_unref (src);
}

static guint64
sink_dropped (Run * r)
{
  guint64 d = 0;
  g_object_get (r->sink, "dropped", &d, NULL);
  return d;
}

/* --------------------------------------------------------------- tests */

/* 90 frames at 30 fps (3 s, synced to the clock); the broker is down
 * from 1.0 s to about 1.5 s, libmosquitto reconnects after 1 s. */
GST_START_TEST (test_broker_restart_nothing_lost)
{
  Broker b;
  Subscriber sub;
  Run r;
  const int n = 90;

  broker_init (&b, TRUE);
  broker_start (&b);
  sub_start (&sub, b.port);
  run_init (&r, b.port, "mqtt-qos=1 max-queue=1000 drain-timeout=15000000000",
      TRUE);
  fail_unless (gst_element_set_state (r.pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  push_frames (&r, n);

  run_for (&r, 1000);
  broker_stop (&b);
  run_for (&r, 500);
  broker_start (&b);
  fail_unless (run_until_eos (&r, 30000), "no EOS (error: %s)",
      GST_STR_NULL (r.error));
  fail_unless (r.error == NULL, "%s", r.error);

  const guint64 total = r.objects;
  const guint64 have = sub_wait_unique (&sub, total, 15000);
  GST_INFO ("%" G_GUINT64_FORMAT " objects, %" G_GUINT64_FORMAT " received "
            "(%" G_GUINT64_FORMAT " messages), %" G_GUINT64_FORMAT
            " bus events",
      total, have, sub.messages, r.bus_events);
  fail_unless (total >= (guint64) n + 4, "only %" G_GUINT64_FORMAT " objects",
      total);
  fail_unless (r.bus_events >= 4, "only %" G_GUINT64_FORMAT " events",
      r.bus_events);
  fail_unless_equals_uint64 (sink_dropped (&r), 0);
  fail_unless_equals_uint64 (have, total);
  g_mutex_lock (&sub.lock);
  for (guint64 i = 0; i < total; i++)
    fail_unless (sub.seq_count.count (i), "seq %" G_GUINT64_FORMAT " missing",
        i);
  fail_unless_equals_uint64 (sub.events, r.bus_events);
  for (const auto & kv : sub.seq_topic)
    fail_unless (kv.second == "test/testcam/frame"
            || kv.second == "test/testcam/event",
        "topic %s", kv.second.c_str ());
  g_mutex_unlock (&sub.lock);
  fail_unless (r.warnings_lost >= 1, "no warning about the lost connection");
  fail_unless (r.disconnected_msgs >= 1 && r.connected_msgs >= 2,
      "connection messages: %u up, %u down", r.connected_msgs,
      r.disconnected_msgs);
  fail_unless_equals_int (r.dropped_msgs, 0);

  run_free (&r);
  sub_stop (&sub);
  broker_free (&b);
}

GST_END_TEST;

/* The same with room for 12 messages: the second the broker is away (30
 * frames, a few events) overflows the queue. Every object is delivered or
 * counted as dropped, frames go first so the events are all kept, drops
 * are reported. */
GST_START_TEST (test_broker_restart_overflow_reported)
{
  Broker b;
  Subscriber sub;
  Run r;
  const int n = 90;

  broker_init (&b, TRUE);
  broker_start (&b);
  sub_start (&sub, b.port);
  run_init (&r, b.port, "mqtt-qos=1 max-queue=12 drain-timeout=15000000000",
      TRUE);
  fail_unless (gst_element_set_state (r.pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  push_frames (&r, n);

  run_for (&r, 1000);
  broker_stop (&b);
  run_for (&r, 500);
  broker_start (&b);
  fail_unless (run_until_eos (&r, 30000), "no EOS (error: %s)",
      GST_STR_NULL (r.error));
  fail_unless (r.error == NULL, "%s", r.error);

  const guint64 total = r.objects;
  const guint64 dropped = sink_dropped (&r);
  const guint64 have = sub_wait_unique (&sub, total - dropped, 15000);
  g_usleep (300000); /* nothing more may come */
  GST_INFO ("%" G_GUINT64_FORMAT " objects, %" G_GUINT64_FORMAT
            " received, %" G_GUINT64_FORMAT " dropped",
      total, have, dropped);
  fail_unless (dropped > 0, "nothing dropped with max-queue=12");
  g_mutex_lock (&sub.lock);
  fail_unless_equals_uint64 (sub.seq_count.size () + dropped, total);
  fail_unless_equals_uint64 (sub.events, r.bus_events);
  g_mutex_unlock (&sub.lock);
  fail_unless (r.warnings_dropped >= 1, "no warning about drops");
  fail_unless (r.dropped_msgs >= 1, "no mvmqttsink-dropped message");
  fail_unless_equals_uint64 (r.last_dropped_msg, dropped);
  fail_unless_equals_uint64 (r.last_dropped_events, 0);

  run_free (&r);
  sub_stop (&sub);
  broker_free (&b);
}

GST_END_TEST;

/* Nothing listens: a warning at start, the stream goes on, and at EOS
 * (after drain-timeout) everything queued is counted and reported. */
GST_START_TEST (test_no_broker)
{
  Run r;
  const int port = free_port ();

  run_init (&r, port, "sync=false drain-timeout=300000000", FALSE);
  fail_unless (gst_element_set_state (r.pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  push_frames (&r, 10);
  fail_unless (run_until_eos (&r, 20000), "no EOS (error: %s)",
      GST_STR_NULL (r.error));
  fail_unless (r.error == NULL, "%s", r.error);
  fail_unless (r.warnings_connect >= 1, "no warning about the connection");
  fail_unless (r.objects >= 10);
  fail_unless_equals_uint64 (sink_dropped (&r), r.objects);
  fail_unless_equals_uint64 (r.last_dropped_msg, r.objects);
  run_free (&r);
}

GST_END_TEST;

/* The broker starts after the pipeline: a warning, then the first
 * reconnection (after reconnect-delay, 1 s) delivers the queue. (With
 * libmosquitto 2.0, a refused first connection made before its network
 * thread runs is never retried: the sink starts the thread first.) */
GST_START_TEST (test_broker_starts_late)
{
  Broker b;
  Subscriber sub;
  Run r;

  broker_init (&b, TRUE);
  run_init (&r, b.port, "mqtt-qos=1 drain-timeout=15000000000", TRUE);
  fail_unless (gst_element_set_state (r.pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  push_frames (&r, 45);
  run_for (&r, 400);
  broker_start (&b);
  sub_start (&sub, b.port);
  fail_unless (run_until_eos (&r, 30000), "no EOS (error: %s)",
      GST_STR_NULL (r.error));
  fail_unless (r.error == NULL, "%s", r.error);
  const guint64 have = sub_wait_unique (&sub, r.objects, 15000);
  fail_unless (r.objects >= 45);
  fail_unless_equals_uint64 (have, r.objects);
  fail_unless_equals_uint64 (sink_dropped (&r), 0);
  fail_unless (r.warnings_connect >= 1, "no warning about the connection");
  fail_unless (r.connected_msgs >= 1, "never connected");
  run_free (&r);
  sub_stop (&sub);
  broker_free (&b);
}

GST_END_TEST;

/* Runs `cmd` (a shell command line) in `dir`; FALSE when it fails. */
static gboolean
shell (const std::string & dir, const std::string & cmd)
{
  gchar * argv[] = { (gchar *) "/bin/sh", (gchar *) "-c",
    (gchar *) cmd.c_str (), NULL };
  gint status = -1;
  if (!g_spawn_sync (dir.c_str (), argv, NULL,
          (GSpawnFlags) (G_SPAWN_STDOUT_TO_DEV_NULL
              | G_SPAWN_STDERR_TO_DEV_NULL),
          NULL, NULL, NULL, NULL, &status, NULL))
    return FALSE;
  return g_spawn_check_wait_status (status, NULL);
}

/* A CA, a broker certificate for IP 127.0.0.1, a client certificate and
 * an unrelated CA (other.crt) in `dir`. */
static gboolean
make_tls_files (const std::string & dir)
{
  const char * ec = "-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes";
  return shell (dir,
             std::string ("openssl req -x509 ") + ec
                 + " -days 2 -subj /CN=test-ca -keyout ca.key -out ca.crt")
      && shell (dir,
          std::string ("openssl req -x509 ") + ec
              + " -days 2 -subj /CN=other-ca -keyout other.key -out other.crt")
      && shell (dir,
          std::string ("openssl req ") + ec
              + " -subj /CN=broker -keyout server.key -out server.csr")
      && shell (dir,
          "printf 'subjectAltName=IP:127.0.0.1\\n' > ext.cnf && "
          "openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key "
          "-CAcreateserial -days 2 -out server.crt -extfile ext.cnf")
      && shell (dir,
          std::string ("openssl req ") + ec
              + " -subj /CN=client -keyout client.key -out client.csr")
      && shell (dir,
          "openssl x509 -req -in client.csr -CA ca.crt -CAkey "
          "ca.key -CAcreateserial -days 2 -out client.crt");
}

/* A password file (user cam, password secret) in `dir`. */
static gboolean
make_passwd (const std::string & dir)
{
  return shell (dir, "mosquitto_passwd -b -c passwd cam secret");
}

/* Whether `name` is on the PATH; prints why the calling test skips when
 * not. */
static gboolean
have_program (const gchar * name, const gchar * test)
{
  gchar * p = g_find_program_in_path (name);
  const gboolean found = p != NULL;
  if (!found)
    g_print ("SKIP %s: no %s\n", test, name);
  g_free (p);
  return found;
}

/* Polls the sink's "connected" until it is `want`, at most `ms`. */
static gboolean
wait_connected (GstElement * sink, gboolean want, gint64 ms)
{
  const gint64 end = g_get_monotonic_time () + ms * 1000;
  gboolean c = !want;
  while (TRUE) {
    g_object_get (sink, "connected", &c, NULL);
    if (c == want || g_get_monotonic_time () >= end)
      return c == want;
    g_usleep (20000);
  }
}

/* CPU seconds used by this process (all threads; the broker is another
 * process). */
static double
cpu_seconds (void)
{
  struct rusage u;
  getrusage (RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec
      + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* A TLS broker that restarts: the first reconnection attempt finds it
 * down, and the next one, on the backoff (reconnect-delay=1, constant),
 * reconnects. With the default keepalive (60 s): libmosquitto 2.0.11
 * never fails a TLS attempt whose TCP connection is refused, so before
 * the sink checked the socket itself it reconnected only when the
 * keepalive ran out, spinning meanwhile (plain TCP was not affected). */
GST_START_TEST (test_tls_reconnects_on_backoff)
{
  if (!have_program ("openssl", "test_tls_reconnects_on_backoff"))
    return;

  Broker b;
  broker_init (&b, TRUE);
  fail_unless (make_tls_files (b.dir), "could not make the TLS files");
  const int tls_port = free_port ();
  const std::string d = b.dir;
  gchar * extra =
      g_strdup_printf ("listener %d 127.0.0.1\ncafile %s/ca.crt\n"
                       "certfile %s/server.crt\nkeyfile %s/server.key\n",
          tls_port, d.c_str (), d.c_str (), d.c_str ());
  broker_write_conf (&b, TRUE, extra);
  g_free (extra);
  broker_start (&b);

  gchar * desc = g_strdup_printf ("appsrc ! mvmqttsink name=sink "
                                  "host=127.0.0.1 port=%d ca-file=%s/ca.crt "
                                  "reconnect-delay=1 "
                                  "reconnect-delay-max=1",
      tls_port, d.c_str ());
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  g_free (desc);
  fail_unless (pipeline != NULL);
  GstElement * sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  gint keepalive = 0;
  g_object_get (sink, "keepalive", &keepalive, NULL);
  fail_unless_equals_int (keepalive, 60);
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED)
      != GST_STATE_CHANGE_FAILURE);
  fail_unless (wait_connected (sink, TRUE, 5000), "never connected");

  broker_stop (&b);
  fail_unless (wait_connected (sink, FALSE, 5000), "the loss went unseen");
  const double cpu0 = cpu_seconds ();
  g_usleep (1500000); /* the attempt at 1 s finds no broker */
  broker_start (&b);
  const gint64 t0 = g_get_monotonic_time ();
  const gboolean again = wait_connected (sink, TRUE, 4000);
  const double cpu = cpu_seconds () - cpu0;
  GST_INFO ("reconnected: %d after %" G_GINT64_FORMAT " ms; %.3f s CPU", again,
      (g_get_monotonic_time () - t0) / 1000, cpu);
  fail_unless (again,
      "no reconnection over TLS within 4 s of the broker's "
      "restart (reconnect-delay=1, keepalive=60); %.3f s of CPU meanwhile",
      cpu);
  fail_unless (cpu < 0.5, "%.3f s of CPU while waiting to reconnect", cpu);

  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
  broker_free (&b);
}

GST_END_TEST;

/* TLS with a client certificate and a password, and a broker that crashes
 * (SIGKILL: the TLS connection ends without a TLS close) mid-stream: the
 * sink reconnects and drains its queue. Then a CA that does not sign the
 * broker's certificate is an error. The subscriber uses a plain listener
 * of the same broker (with the password). */
GST_START_TEST (test_tls_client_cert_password)
{
  gchar * openssl = g_find_program_in_path ("openssl");
  gchar * passwd = g_find_program_in_path ("mosquitto_passwd");
  if (!openssl || !passwd) {
    g_print ("SKIP test_tls_client_cert_password: no openssl or "
             "mosquitto_passwd\n");
    g_free (openssl);
    g_free (passwd);
    return;
  }
  g_free (openssl);
  g_free (passwd);

  Broker b;
  Subscriber sub;
  Run r;
  broker_init (&b, FALSE);
  fail_unless (make_tls_files (b.dir) && make_passwd (b.dir),
      "could not make the TLS files");
  const int tls_port = free_port ();
  const std::string d = b.dir;
  gchar * extra =
      g_strdup_printf ("password_file %s/passwd\n"
                       "autosave_interval 1\nautosave_on_changes true\n"
                       "listener %d 127.0.0.1\ncafile %s/ca.crt\ncertfile "
                       "%s/server.crt\n"
                       "keyfile %s/server.key\nrequire_certificate true\n",
          d.c_str (), tls_port, d.c_str (), d.c_str (), d.c_str ());
  broker_write_conf (&b, FALSE, extra);
  g_free (extra);
  broker_start (&b);
  sub_start (&sub, b.port, "cam", "secret");

  gchar * props =
      g_strdup_printf ("port=%d ca-file=%s/ca.crt "
                       "cert-file=%s/client.crt key-file=%s/client.key "
                       "username=cam "
                       "password=secret mqtt-qos=1 drain-timeout=15000000000",
          tls_port, d.c_str (), d.c_str (), d.c_str ());
  /* run_init's port= comes first; the later one wins. */
  run_init (&r, b.port, props, TRUE);
  fail_unless (gst_element_set_state (r.pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  push_frames (&r, 75);
  run_for (&r, 1000);
  kill (b.pid, SIGKILL);
  waitpid (b.pid, NULL, 0);
  g_spawn_close_pid (b.pid);
  b.pid = 0;
  run_for (&r, 300);
  broker_start (&b);
  fail_unless (run_until_eos (&r, 30000), "no EOS (error: %s)",
      GST_STR_NULL (r.error));
  fail_unless (r.error == NULL, "%s", r.error);
  fail_unless_equals_uint64 (sink_dropped (&r), 0);
  fail_unless (r.connected_msgs >= 2, "no reconnection over TLS (%u)",
      r.connected_msgs);
  /* The last object (the EOS motion-stop) arrives: the sink reconnected
   * and drained its queue. Objects the broker had acknowledged when it
   * was killed may be gone with it (that is the broker's durability). */
  const guint64 last = r.objects - 1;
  const gint64 end = g_get_monotonic_time () + 15 * G_USEC_PER_SEC;
  gboolean have_last = FALSE;
  while (!have_last && g_get_monotonic_time () < end) {
    g_mutex_lock (&sub.lock);
    have_last = sub.seq_count.count (last) > 0;
    g_mutex_unlock (&sub.lock);
    g_usleep (20000);
  }
  fail_unless (have_last, "seq %" G_GUINT64_FORMAT " never arrived", last);
  run_free (&r);
  g_free (props);

  /* A CA that did not sign the broker's certificate. */
  Run bad;
  props = g_strdup_printf ("port=%d ca-file=%s/other.crt "
                           "cert-file=%s/client.crt key-file=%s/client.key "
                           "username=cam "
                           "password=secret sync=false",
      tls_port, d.c_str (), d.c_str (), d.c_str ());
  run_init (&bad, b.port, props, FALSE);
  g_free (props);
  gst_element_set_state (bad.pipeline, GST_STATE_PLAYING);
  push_frames (&bad, 5);
  run_until_eos (&bad, 10000);
  fail_unless (bad.error != NULL, "no error with an untrusted certificate");
  fail_unless (strstr (bad.error, "TLS") != NULL, "%s", bad.error);
  run_free (&bad);

  sub_stop (&sub);
  broker_free (&b);
}

GST_END_TEST;

/* CONNACK refusal (anonymous clients not allowed) is an error. */
GST_START_TEST (test_refused_is_error)
{
  Broker b;
  Run r;

  broker_init (&b, FALSE);
  broker_start (&b);
  run_init (&r, b.port, "sync=false", FALSE);
  gst_element_set_state (r.pipeline, GST_STATE_PLAYING);
  push_frames (&r, 10);
  run_until_eos (&r, 10000);
  fail_unless (r.error != NULL, "no error");
  fail_unless (strstr (r.error, "refused the connection") != NULL, "%s",
      r.error);
  fail_unless (g_str_has_suffix (r.error, ".") && !strstr (r.error, ".."),
      "one full stop: %s", r.error);
  run_free (&r);
  broker_free (&b);
}

GST_END_TEST;

/* gst-launch-1.0's way with the bus (1.22, tools/gst-launch.c): a sync
 * handler quits the main loop on an error, a watch sets PLAYING once
 * the pipeline is PAUSED and quits on EOS, and the loop runs only after
 * set_state (PAUSED) returned. A g_main_loop_quit() before
 * g_main_loop_run() is lost, so an error posted in between is missed, and
 * as the bin gives up the state change the loop never ends. */
struct Launch
{
  GMainLoop * loop = nullptr;
  GstElement * pipeline = nullptr;
  gchar * error = nullptr;
  gboolean eos_before_error = FALSE;
  gboolean timed_out = FALSE;
};

static GstBusSyncReply
launch_sync (GstBus *, GstMessage * msg, gpointer user)
{
  Launch * l = (Launch *) user;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError * e = NULL;
    gst_message_parse_error (msg, &e, NULL);
    if (!l->error)
      l->error = g_strdup (e->message);
    g_error_free (e);
    g_main_loop_quit (l->loop);
  }
  return GST_BUS_PASS;
}

static gboolean
launch_watch (GstBus *, GstMessage * msg, gpointer user)
{
  Launch * l = (Launch *) user;
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_STATE_CHANGED
      && GST_MESSAGE_SRC (msg) == GST_OBJECT (l->pipeline)) {
    GstState old_state, new_state;
    gst_message_parse_state_changed (msg, &old_state, &new_state, NULL);
    if (old_state == GST_STATE_READY && new_state == GST_STATE_PAUSED)
      gst_element_set_state (l->pipeline, GST_STATE_PLAYING);
  } else if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS) {
    l->eos_before_error = l->error == NULL;
    g_main_loop_quit (l->loop);
  }
  return G_SOURCE_CONTINUE;
}

static gboolean
launch_timeout (gpointer user)
{
  Launch * l = (Launch *) user;
  l->timed_out = TRUE;
  g_main_loop_quit (l->loop);
  return G_SOURCE_REMOVE;
}

/* Runs `desc` as gst-launch does, with 300 ms between set_state (PAUSED)
 * and the main loop (an application busy there, or just a slow machine):
 * returns the error it saw, NULL if none. Fails when the loop does not
 * end within 5 s or EOS came first. */
static gchar *
launch_error (const gchar * desc)
{
  Launch l;
  GError * err = NULL;
  l.pipeline = gst_parse_launch (desc, &err);
  fail_unless (l.pipeline != NULL, "%s: %s", desc, err ? err->message : "");
  l.loop = g_main_loop_new (NULL, FALSE);
  GstBus * bus = gst_element_get_bus (l.pipeline);
  gst_bus_set_sync_handler (bus, launch_sync, &l, NULL);
  const guint watch = gst_bus_add_watch (bus, launch_watch, &l);

  /* A failed state change ends gst-launch at once. */
  if (gst_element_set_state (l.pipeline, GST_STATE_PAUSED)
      != GST_STATE_CHANGE_FAILURE) {
    g_usleep (300000);
    const guint timeout = g_timeout_add (5000, launch_timeout, &l);
    g_main_loop_run (l.loop);
    if (!l.timed_out)
      g_source_remove (timeout);
  }

  gst_element_set_state (l.pipeline, GST_STATE_NULL);
  g_source_remove (watch);
  gst_bus_set_sync_handler (bus, NULL, NULL, NULL);
  gst_object_unref (bus);
  gst_object_unref (l.pipeline);
  g_main_loop_unref (l.loop);
  fail_if (l.timed_out, "%s: no end within 5 s (error: %s)", desc,
      GST_STR_NULL (l.error));
  fail_if (l.eos_before_error, "%s: EOS and no error", desc);
  return l.error;
}

/* A broker that refuses the client answers within a millisecond of the
 * start, while the application is still setting the pipeline up: the sink
 * reports it from PLAYING (or the first buffer or EOS after), where no
 * application can miss it; before, it posted it from its network thread
 * at once, and gst-launch-1.0 sometimes never ended. With buffers (a tee
 * before the sink, as reported) and with none (EOS only); refused for a
 * wrong password, for no user name, and over TLS for an untrusted CA. */
GST_START_TEST (test_refused_error_reaches_app)
{
  Broker b;
  broker_init (&b, FALSE);
  const std::string d = b.dir;
  gchar * passwd = g_find_program_in_path ("mosquitto_passwd");
  gchar * openssl = g_find_program_in_path ("openssl");
  const gboolean tls = openssl && make_tls_files (d);
  const int tls_port = free_port ();
  std::string extra;
  if (passwd) {
    fail_unless (make_passwd (d));
    extra += "password_file " + d + "/passwd\n";
  }
  if (tls)
    extra += "listener " + std::to_string (tls_port) + " 127.0.0.1\ncafile " + d
        + "/ca.crt\ncertfile " + d + "/server.crt\nkeyfile " + d
        + "/server.key\n";
  broker_write_conf (&b, FALSE, extra.c_str ());
  broker_start (&b);

  std::vector<std::string> sinks;
  const std::string at =
      "mvmqttsink host=127.0.0.1 port=" + std::to_string (b.port);
  sinks.push_back (at + (passwd ? " username=cam password=wrong" : ""));
  sinks.push_back (at);
  for (const std::string & sink : sinks) {
    for (const char * src : { "videotestsrc num-buffers=30 ! tee ! queue",
             "videotestsrc num-buffers=0" }) {
      const std::string desc = std::string (src) + " ! " + sink;
      gchar * e = launch_error (desc.c_str ());
      fail_unless (e != NULL, "%s: no error", desc.c_str ());
      fail_unless (strstr (e, "refused the connection") != NULL, "%s: %s",
          desc.c_str (), e);
      g_free (e);
    }
  }
  if (tls) {
    const std::string desc = "videotestsrc num-buffers=30 ! tee ! queue ! "
                             "mvmqttsink host=127.0.0.1 port="
        + std::to_string (tls_port) + " ca-file=" + d + "/other.crt";
    gchar * e = launch_error (desc.c_str ());
    fail_unless (e != NULL && strstr (e, "TLS") != NULL, "%s: %s",
        desc.c_str (), GST_STR_NULL (e));
    g_free (e);
  }
  g_free (passwd);
  g_free (openssl);
  broker_free (&b);
}

GST_END_TEST;

/* Sets `props` on a fresh mvmqttsink in a pipeline and starts it: the
 * error it posts, or NULL when it starts. */
static gchar *
start_error (const gchar * props)
{
  gchar * desc = g_strdup_printf ("appsrc ! mvmqttsink host=127.0.0.1 "
                                  "port=%d %s",
      free_port (), props);
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL, "%s", desc);
  g_free (desc);
  gchar * error = NULL;
  if (gst_element_set_state (pipeline, GST_STATE_READY)
      == GST_STATE_CHANGE_FAILURE) {
    GstBus * bus = gst_element_get_bus (pipeline);
    GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
    fail_unless (msg != NULL, "a failed start without an error message");
    GError * e = NULL;
    gchar * debug = NULL;
    gst_message_parse_error (msg, &e, &debug);
    error = g_strdup_printf ("%s (%s)", e->message, debug);
    g_error_free (e);
    g_free (debug);
    gst_message_unref (msg);
    gst_object_unref (bus);
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (pipeline);
  return error;
}

/* Unknown placeholders and unclosed braces are errors at start, naming
 * what is wrong; they were published literally. */
GST_START_TEST (test_topic_template_checked)
{
  const struct
  {
    const gchar * topic;
    const gchar * why;
  } bad[] = {
    { "cams/{camera_id}/{type}", "{camera_id}" },
    { "cams/{kind}", "{kind}" },
    { "cams/{camera-id", "unclosed" },
    { "cams/camera-id}/x", "'}'" },
    { "cams/{}", "{}" },
  };
  for (const auto & b : bad) {
    gchar * props = g_strdup_printf ("topic=\"%s\"", b.topic);
    gchar * e = start_error (props);
    fail_unless (e != NULL, "topic %s was accepted", b.topic);
    fail_unless (strstr (e, b.why) != NULL, "%s: %s", b.topic, e);
    g_free (e);
    g_free (props);
  }
  gchar * e = start_error ("topic=cams/{camera-id}/{type}/{event}");
  fail_unless (e == NULL, "%s", e);
}

GST_END_TEST;

/* `{event}` of a frame is its type ("frame"): with topic={event}, frames
 * and events are all delivered, on frame, motion-start and motion-stop
 * (frames were refused by libmosquitto for their empty topic and reported
 * as "queue full"). A topic that expands to no valid topic (a camera id
 * longer than MQTT allows) is counted and reported as "invalid topic". */
GST_START_TEST (test_topic_expansion)
{
  Broker b;
  Subscriber sub;
  broker_init (&b, TRUE);
  broker_start (&b);
  sub.filter = "#";
  sub_start (&sub, b.port);

  Run r;
  run_init (&r, b.port, "topic={event} sync=false drain-timeout=10000000000",
      FALSE);
  fail_unless (gst_element_set_state (r.pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  push_frames (&r, 30);
  fail_unless (run_until_eos (&r, 20000), "no EOS (error: %s)",
      GST_STR_NULL (r.error));
  fail_unless_equals_uint64 (sink_dropped (&r), 0);
  fail_unless_equals_uint64 (sub_wait_unique (&sub, r.objects, 10000),
      r.objects);
  guint frames = 0, starts = 0;
  g_mutex_lock (&sub.lock);
  for (const auto & kv : sub.seq_topic) {
    fail_unless (kv.second == "frame" || kv.second == "motion-start"
            || kv.second == "motion-stop",
        "topic %s", kv.second.c_str ());
    frames += kv.second == "frame";
    starts += kv.second == "motion-start";
  }
  g_mutex_unlock (&sub.lock);
  fail_unless (frames >= 30 && starts >= 1, "%u frames, %u motion-start",
      frames, starts);
  run_free (&r);

  Run bad;
  const std::string camera (70000, 'c');
  run_init (&bad, b.port, "topic=test/{camera-id} sync=false", FALSE,
      camera.c_str ());
  fail_unless (gst_element_set_state (bad.pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  push_frames (&bad, 10);
  fail_unless (run_until_eos (&bad, 20000), "no EOS (error: %s)",
      GST_STR_NULL (bad.error));
  fail_unless (bad.objects >= 10);
  fail_unless_equals_uint64 (sink_dropped (&bad), bad.objects);
  fail_unless_equals_uint64 (bad.last_dropped_msg, bad.objects);
  fail_unless (bad.warnings_dropped >= 1, "no warning");
  fail_unless (bad.last_dropped_reason == "invalid topic", "reason: %s",
      bad.last_dropped_reason.c_str ());
  run_free (&bad);

  sub_stop (&sub);
  broker_free (&b);
}

GST_END_TEST;

/* GstBaseSink's boolean "qos" (QoS events upstream) is not shadowed: the
 * MQTT quality of service is "mqtt-qos". */
GST_START_TEST (test_mqtt_qos_property)
{
  GstElement * sink = gst_element_factory_make ("mvmqttsink", NULL);
  GObjectClass * klass = G_OBJECT_GET_CLASS (sink);
  GParamSpec * qos = g_object_class_find_property (klass, "qos");
  fail_unless (qos != NULL && qos->value_type == G_TYPE_BOOLEAN
          && qos->owner_type == GST_TYPE_BASE_SINK,
      "qos is %s of %s", qos ? g_type_name (qos->value_type) : "none",
      qos ? g_type_name (qos->owner_type) : "none");
  g_object_set (sink, "qos", TRUE, NULL);
  fail_unless (gst_base_sink_is_qos_enabled (GST_BASE_SINK (sink)));

  GParamSpec * mqtt = g_object_class_find_property (klass, "mqtt-qos");
  fail_unless (mqtt != NULL && mqtt->value_type == G_TYPE_INT);
  const GParamSpecInt * range = G_PARAM_SPEC_INT (mqtt);
  fail_unless_equals_int (range->minimum, 0);
  fail_unless_equals_int (range->maximum, 2);
  fail_unless_equals_int (range->default_value, 1);
  gst_object_unref (sink);
}

GST_END_TEST;

/* An optional string set to "" is unset, as gst-launch users write it:
 * client-id="" made libmosquitto refuse to create the client, ca-file=""
 * was a TLS file that is not readable. */
GST_START_TEST (test_empty_strings_unset)
{
  Broker b;
  broker_init (&b, TRUE);
  broker_start (&b);
  const std::vector<std::vector<const gchar *>> sets = {
    { "client-id" },
    { "ca-file" },
    { "client-id", "username", "password", "ca-file", "cert-file", "key-file" },
  };
  for (const auto & names : sets) {
    gchar * desc = g_strdup_printf ("appsrc ! mvmqttsink name=sink "
                                    "host=127.0.0.1 port=%d",
        b.port);
    GstElement * pipeline = gst_parse_launch (desc, NULL);
    g_free (desc);
    GstElement * sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
    for (const gchar * name : names)
      g_object_set (sink, name, "", NULL);
    fail_unless (gst_element_set_state (pipeline, GST_STATE_PAUSED)
            != GST_STATE_CHANGE_FAILURE,
        "%s=\"\" failed the start", names[0]);
    fail_unless (wait_connected (sink, TRUE, 5000), "%s=\"\": not connected",
        names[0]);
    gst_element_set_state (pipeline, GST_STATE_NULL);
    gst_object_unref (sink);
    gst_object_unref (pipeline);
  }
  broker_free (&b);
}

GST_END_TEST;

GST_START_TEST (test_bad_settings)
{
  GstElement * sink = gst_element_factory_make ("mvmqttsink", NULL);
  fail_unless (sink != NULL);
  g_object_set (sink, "topic", "a/+/{type}", NULL);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (sink, GST_STATE_NULL);
  g_object_set (sink, "topic", "ok/{camera-id}", "ca-file",
      "/nonexistent/ca.pem", NULL);
  fail_unless_equals_int (gst_element_set_state (sink, GST_STATE_READY),
      GST_STATE_CHANGE_FAILURE);
  gst_element_set_state (sink, GST_STATE_NULL);
  gst_object_unref (sink);
}

GST_END_TEST;

static Suite *
mvmqttsink_suite (void)
{
  Suite * s = suite_create ("mvmqttsink");
  TCase * tc = tcase_create ("broker");

  tcase_set_timeout (tc, 120);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_broker_restart_nothing_lost);
  tcase_add_test (tc, test_broker_restart_overflow_reported);
  tcase_add_test (tc, test_no_broker);
  tcase_add_test (tc, test_broker_starts_late);
  tcase_add_test (tc, test_refused_is_error);
  tcase_add_test (tc, test_refused_error_reaches_app);
  tcase_add_test (tc, test_tls_client_cert_password);
  tcase_add_test (tc, test_tls_reconnects_on_backoff);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_test (tc, test_mqtt_qos_property);
  tcase_add_test (tc, test_topic_template_checked);
  tcase_add_test (tc, test_topic_expansion);
  tcase_add_test (tc, test_empty_strings_unset);
  return s;
}

int
main (int argc, char ** argv)
{
  gst_check_init (&argc, &argv);
  gchar * bin = find_mosquitto ();
  if (!bin) {
    g_print ("SKIP: no mosquitto broker binary (Debian package mosquitto)\n");
    return 77;
  }
  g_free (bin);
  mosquitto_lib_init ();
  Suite * s = mvmqttsink_suite ();
  const int ret = gst_check_run_suite (s, "mvmqttsink", __FILE__);
  mosquitto_lib_cleanup ();
  return ret;
}
