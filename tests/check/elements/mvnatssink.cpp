/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mvnatssink end to end against a real `nats-server -js` that the test
 * starts on 127.0.0.1 on a free port (its store in a temporary
 * directory), read back through libnats:
 *   - core NATS: 4 cameras' frames and events all reach a subscriber, in
 *     order per camera;
 *   - JetStream (a file stream that survives the restart): the server
 *     restarted mid-stream, every message is in the stream once, in
 *     order per camera, none dropped, the loss of the connection
 *     reported;
 *   - the same with max-queue=40 and 200 messages during the outage:
 *     what is stored is in order, the rest is counted in "dropped"
 *     exactly and reported, the events are kept;
 *   - bad settings are errors at start, naming what is wrong; so is a
 *     server that refuses the credentials;
 *   - no server at start: queued, then delivered when it comes up;
 *   - TLS: a server certificate signed by ca-file (messages delivered),
 *     and one that is not (an error at start).
 * The suite is skipped (exit 77) where nats-server is absent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <glib/gstdio.h>
#include <nats/nats.h>

#include <string>

#include "publishcheck.h"

struct Server
{
  std::string dir;
  int port = 0;
  GPid pid = 0;
};

/* A directory and a free port (once). */
static void
server_prepare (Server * s)
{
  if (s->dir.empty ()) {
    gchar * dir = g_dir_make_tmp ("mvnatssink-XXXXXX", NULL);
    s->dir = dir;
    g_free (dir);
    s->port = pc_free_port ();
  }
}

static void
server_start (Server * s, const std::vector<std::string> & extra = { "-js" })
{
  std::string error;

  server_prepare (s);
  s->pid = pc_nats_server_start (s->dir, s->port, extra, &error);
  fail_unless (s->pid != 0, "%s", error.c_str ());
}

static void
server_stop (Server * s)
{
  pc_server_stop (&s->pid);
}

static void
server_remove (Server * s)
{
  server_stop (s);
  gchar * cmd = g_strdup_printf ("rm -rf '%s'", s->dir.c_str ());
  fail_unless (system (cmd) == 0);
  g_free (cmd);
}

static std::string
url (const Server * s)
{
  return "nats://127.0.0.1:" + std::to_string (s->port);
}

static natsConnection *
client (const Server * s)
{
  natsConnection * nc = NULL;
  fail_unless_equals_int (natsConnection_ConnectTo (&nc, url (s).c_str ()),
      NATS_OK);
  return nc;
}

/* Takes messages from `sub` until `want` (or 5 s without one); each
 * subject starts with `prefix`. */
static void
receive (natsSubscription * sub, PcReceived * got, guint64 want,
    const char * prefix)
{
  while (got->total < want) {
    natsMsg * m = NULL;
    if (natsSubscription_NextMsg (&m, sub, 5000) != NATS_OK)
      break;
    fail_unless (g_str_has_prefix (natsMsg_GetSubject (m), prefix), "%s",
        natsMsg_GetSubject (m));
    got->add (natsMsg_GetData (m), natsMsg_GetDataLength (m));
    natsMsg_Destroy (m);
  }
}

/* A file stream MOTION on motion.> (duplicate window 2 min). */
static void
stream_create (const Server * s)
{
  natsConnection * nc = client (s);
  jsCtx * js = NULL;
  jsStreamConfig cfg;
  jsErrCode code = (jsErrCode) 0;
  const char * subjects[] = { "motion.>" };

  fail_unless_equals_int (natsConnection_JetStream (&js, nc, NULL), NATS_OK);
  jsStreamConfig_Init (&cfg);
  cfg.Name = "MOTION";
  cfg.Subjects = subjects;
  cfg.SubjectsLen = 1;
  cfg.Storage = js_FileStorage;
  fail_unless_equals_int (js_AddStream (NULL, js, &cfg, NULL, &code), NATS_OK);
  jsCtx_Destroy (js);
  natsConnection_Destroy (nc);
}

/* Every message of stream MOTION, in stream order. */
static void
stream_read (const Server * s, PcReceived * got)
{
  natsConnection * nc = client (s);
  jsCtx * js = NULL;
  jsStreamInfo * si = NULL;
  jsErrCode code = (jsErrCode) 0;

  fail_unless_equals_int (natsConnection_JetStream (&js, nc, NULL), NATS_OK);
  fail_unless_equals_int (js_GetStreamInfo (&si, js, "MOTION", NULL, &code),
      NATS_OK);
  for (uint64_t seq = si->State.FirstSeq; seq <= si->State.LastSeq; seq++) {
    natsMsg * m = NULL;
    if (js_GetMsg (&m, js, "MOTION", seq, NULL, &code) != NATS_OK)
      continue;
    got->add (natsMsg_GetData (m), natsMsg_GetDataLength (m));
    natsMsg_Destroy (m);
  }
  jsStreamInfo_Destroy (si);
  jsCtx_Destroy (js);
  natsConnection_Destroy (nc);
}

/* Waits for EOS (`timeout_ms`), then expects nothing dropped and every
 * pushed message received on `sub` (subjects starting with `prefix`), in
 * order per camera. */
static void
expect_all_received (PcRun * r, natsSubscription * sub, const char * prefix,
    int timeout_ms)
{
  PcReceived got;

  fail_unless (pc_finish (r, timeout_ms), "no EOS: %s", r->error.c_str ());
  fail_unless_equals_uint64 (pc_dropped (r), 0);
  pc_clear (r);
  receive (sub, &got, r->pushed, prefix);
  const std::string why = pc_check (r, &got, 0, true);
  fail_unless (why.empty (), "%s", why.c_str ());
}

GST_START_TEST (test_core_in_order)
{
  Server s;
  PcRun r;
  natsSubscription * sub = NULL;

  server_start (&s);
  natsConnection * nc = client (&s);
  fail_unless_equals_int (natsConnection_SubscribeSync (&sub, nc, "motion.>"),
      NATS_OK);
  natsConnection_Flush (nc);
  const std::string desc =
      "mvnatssink servers=" + url (&s) + " subject=motion.{camera-id}.{type}";
  fail_unless (pc_start (&r, desc.c_str ()), "%s", r.error.c_str ());
  pc_push (&r, 4, 400, 10, 500);
  expect_all_received (&r, sub, "motion.cam", 10000);
  natsSubscription_Destroy (sub);
  natsConnection_Destroy (nc);
  server_remove (&s);
}

GST_END_TEST;

/* JetStream, the server restarted mid-stream (down about 1 s). */
static void
run_restart (int max_queue, int during, PcRun * r, PcReceived * got)
{
  Server s;

  server_start (&s);
  stream_create (&s);
  const std::string desc = "mvnatssink servers=" + url (&s)
      + " subject=motion.{camera-id}.{type} jetstream=true ack-timeout=1000"
        " reconnect-delay=1 reconnect-delay-max=1 drain-timeout=20000000000"
        " max-queue="
      + std::to_string (max_queue);
  fail_unless (pc_start (r, desc.c_str ()), "%s", r->error.c_str ());
  pc_push (r, 4, 100, 10, 2000);
  pc_run_for (r, 300);
  server_stop (&s);
  pc_push (r, 4, during, 10, 5000);
  server_start (&s);
  pc_push (r, 4, 100, 10, 2000);
  fail_unless (pc_finish (r, 30000), "no EOS: %s", r->error.c_str ());
  fail_unless (r->warnings_lost >= 1, "the outage was not reported");
  stream_read (&s, got);
  server_remove (&s);
}

GST_START_TEST (test_jetstream_restart_nothing_lost)
{
  PcRun r;
  PcReceived got;

  run_restart (1000, 100, &r, &got);
  const guint64 dropped = pc_dropped (&r);
  fail_unless_equals_uint64 (dropped, 0);
  fail_unless_equals_uint64 (pc_stat (&r, "published"), r.pushed);
  pc_clear (&r);
  const std::string why = pc_check (&r, &got, dropped, true);
  fail_unless (why.empty (), "%s", why.c_str ());
}

GST_END_TEST;

GST_START_TEST (test_jetstream_restart_overflow_reported)
{
  PcRun r;
  PcReceived got;

  run_restart (40, 200, &r, &got);
  const guint64 dropped = pc_dropped (&r);
  fail_unless (dropped > 0, "nothing dropped");
  fail_unless_equals_uint64 (r.reported_dropped, dropped);
  fail_unless (r.warnings_dropped >= 1);
  pc_clear (&r);
  const std::string why = pc_check (&r, &got, dropped, true);
  fail_unless (why.empty (), "%s", why.c_str ());
}

GST_END_TEST;

GST_START_TEST (test_bad_settings)
{
  const std::string sink =
      "mvnatssink servers=nats://127.0.0.1:" + std::to_string (pc_free_port ());
  const std::string why = pc_check_bad_settings (sink,
      {
          { "servers=\"\"", "No NATS server" },
          { "subject=\"motion.{kind}\"", "{kind}" },
          { "subject=\"motion.*\"", "not a valid NATS subject" },
          { "subject=\"motion..x\"", "not a valid NATS subject" },
          { "cert-file=/etc/hostname", "both cert-file and key-file" },
          { "ca-file=/no/such/file", "not a readable file" },
          { "creds-file=/no/such/file", "not a readable file" },
          { "ca-file=/etc/hostname", "ca-file" },
      });
  fail_unless (why.empty (), "%s", why.c_str ());
  /* No server answering is no error: the sink queues and retries. */
  fail_unless (pc_start_error (sink + " jetstream=true").empty ());
}

GST_END_TEST;

/* A server that refuses the credentials: an error at start, not a
 * retry. */
GST_START_TEST (test_refused_is_error)
{
  Server s;

  server_start (&s, { "--user", "u", "--pass", "p" });
  const std::string sink = "mvnatssink servers=" + url (&s);
  for (const char * creds : { "", " username=u password=wrong" }) {
    const std::string e = pc_start_error (sink + creds);
    fail_unless (e.find ("refused the client") != std::string::npos, "%s: %s",
        creds, e.c_str ());
  }
  fail_unless (pc_start_error (sink + " username=u password=p").empty ());
  server_remove (&s);
}

GST_END_TEST;

/* No server at start: a warning, the queue, then everything delivered
 * once the server is up (core NATS). */
GST_START_TEST (test_server_starts_late)
{
  Server s;
  PcRun r;
  natsSubscription * sub = NULL;

  server_prepare (&s);
  const std::string desc = "mvnatssink servers=" + url (&s)
      + " reconnect-delay=1 reconnect-delay-max=1 drain-timeout=20000000000";
  fail_unless (pc_start (&r, desc.c_str ()), "%s", r.error.c_str ());
  pc_push (&r, 2, 40, 10, 1000);
  server_start (&s);
  natsConnection * nc = client (&s);
  fail_unless_equals_int (natsConnection_SubscribeSync (&sub, nc, ">"),
      NATS_OK);
  natsConnection_Flush (nc);
  expect_all_received (&r, sub, "", 30000);
  natsSubscription_Destroy (sub);
  natsConnection_Destroy (nc);
  server_remove (&s);
}

GST_END_TEST;

/* A CA, a server certificate for IP 127.0.0.1 and an unrelated CA
 * (other.pem) in `dir`, through the openssl command; FALSE without it. */
static gboolean
make_tls_files (const std::string & dir)
{
  const gchar * script =
      "set -e; k='-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes';"
      "openssl req -x509 $k -days 2 -subj /CN=ca -keyout ca.key -out ca.pem;"
      "openssl req -x509 $k -days 2 -subj /CN=other -keyout o.key "
      "-out other.pem;"
      "openssl req $k -subj /CN=server -keyout server.key -out server.csr;"
      "printf 'subjectAltName=IP:127.0.0.1\\n' > ext.cnf;"
      "openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key "
      "-CAcreateserial -days 2 -out server.pem -extfile ext.cnf";
  const gchar * argv[] = { "sh", "-c", script, NULL };
  gint status = -1;

  return g_spawn_sync (dir.c_str (), (gchar **) argv, NULL,
             (GSpawnFlags) (G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL
                 | G_SPAWN_STDERR_TO_DEV_NULL),
             NULL, NULL, NULL, NULL, &status, NULL)
      && g_spawn_check_wait_status (status, NULL);
}

/* TLS: a server certificate signed by ca-file is accepted and the
 * messages arrive; one signed by another CA is an error at start. */
GST_START_TEST (test_tls)
{
  Server s;
  PcRun r;
  natsConnection * nc = NULL;
  natsOptions * opts = NULL;
  natsSubscription * sub = NULL;

  server_prepare (&s);
  if (!make_tls_files (s.dir)) {
    g_print ("SKIP test_tls: no openssl command\n");
    server_remove (&s);
    return;
  }
  server_start (&s,
      { "--tls", "--tlscert", s.dir + "/server.pem", "--tlskey",
          s.dir + "/server.key" });
  const std::string tls = "tls://127.0.0.1:" + std::to_string (s.port);
  fail_unless_equals_int (natsOptions_Create (&opts), NATS_OK);
  natsOptions_SetURL (opts, tls.c_str ());
  natsOptions_SetSecure (opts, true);
  natsOptions_LoadCATrustedCertificates (opts, (s.dir + "/ca.pem").c_str ());
  fail_unless_equals_int (natsConnection_Connect (&nc, opts), NATS_OK);
  fail_unless_equals_int (natsConnection_SubscribeSync (&sub, nc, ">"),
      NATS_OK);
  natsConnection_Flush (nc);

  const std::string sink = "mvnatssink servers=" + tls;
  const std::string e =
      pc_start_error (sink + " ca-file=" + s.dir + "/other.pem");
  fail_unless (e.find ("SSL") != std::string::npos, "%s", e.c_str ());
  const std::string desc = sink + " ca-file=" + s.dir + "/ca.pem";
  fail_unless (pc_start (&r, desc.c_str ()), "%s", r.error.c_str ());
  pc_push (&r, 2, 40, 10, 500);
  expect_all_received (&r, sub, "", 10000);
  natsSubscription_Destroy (sub);
  natsConnection_Destroy (nc);
  natsOptions_Destroy (opts);
  server_remove (&s);
}

GST_END_TEST;

static Suite *
mvnatssink_suite (void)
{
  Suite * s = suite_create ("mvnatssink");
  TCase * tc = tcase_create ("server");

  tcase_set_timeout (tc, 90);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_core_in_order);
  tcase_add_test (tc, test_jetstream_restart_nothing_lost);
  tcase_add_test (tc, test_jetstream_restart_overflow_reported);
  tcase_add_test (tc, test_bad_settings);
  tcase_add_test (tc, test_refused_is_error);
  tcase_add_test (tc, test_server_starts_late);
  tcase_add_test (tc, test_tls);
  return s;
}

int
main (int argc, char ** argv)
{
  gst_check_init (&argc, &argv);
  if (pc_find_nats_server ().empty ()) {
    g_print ("SKIP: no nats-server binary (Debian package nats-server)\n");
    return 77;
  }
  Suite * s = mvnatssink_suite ();
  const int ret = gst_check_run_suite (s, "mvnatssink", __FILE__);
  nats_Close ();
  return ret;
}
