/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The publishing sinks' test helpers (publishcheck.h).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "publishcheck.h"

#include <gst/app/gstappsrc.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

#include "common/mvstreaminfo.h"

int pc_free_port(void) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;
  socklen_t len = sizeof a;
  int port = 0;

  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, (struct sockaddr *)&a, sizeof a) == 0 &&
      getsockname(fd, (struct sockaddr *)&a, &len) == 0)
    port = ntohs(a.sin_port);
  close(fd);
  return port;
}

bool pc_port_open(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  struct sockaddr_in a;

  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool ok = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
  close(fd);
  return ok;
}

bool pc_wait_port(int port, int ms) {
  for (int waited = 0; waited < ms; waited += 20) {
    if (pc_port_open(port)) return true;
    g_usleep(20000);
  }
  return pc_port_open(port);
}

std::string pc_find_server(const char *name) {
  gchar *p = g_find_program_in_path(name);
  gchar *sbin = g_build_filename("/usr/sbin", name, NULL);
  if (!p && g_file_test(sbin, G_FILE_TEST_IS_EXECUTABLE)) p = g_strdup(sbin);
  std::string out = p ? p : "";
  g_free(p);
  g_free(sbin);
  return out;
}

std::string pc_find_nats_server(void) { return pc_find_server("nats-server"); }

/* The server dies with this process, also when a check fails. */
static void die_with_parent(gpointer) { prctl(PR_SET_PDEATHSIG, SIGKILL); }

GPid pc_server_start(const std::vector<std::string> &args, int port, std::string *error) {
  std::vector<const gchar *> argv;
  for (const auto &a : args) argv.push_back(a.c_str());
  argv.push_back(NULL);
  GError *err = NULL;
  GPid pid = 0;

  if (args.empty() || args[0].empty()) {
    *error = "no server binary";
    return 0;
  }
  if (!g_spawn_async(NULL, (gchar **)argv.data(), NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                     die_with_parent, NULL, &pid, &err)) {
    *error = err->message;
    g_error_free(err);
    return 0;
  }
  if (!pc_wait_port(port, 10000)) {
    *error = args[0] + " did not listen on " + std::to_string(port);
    pc_server_stop(&pid);
    return 0;
  }
  return pid;
}

GPid pc_nats_server_start(const std::string &dir, int port,
                          const std::vector<std::string> &extra, std::string *error) {
  std::vector<std::string> argv = {pc_find_nats_server(), "-a",  "127.0.0.1", "-p",
                                   std::to_string(port),  "-sd", dir + "/js", "-l",
                                   dir + "/server.log"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  return pc_server_start(argv, port, error);
}

void pc_server_stop(GPid *pid) {
  if (!*pid) return;
  kill(*pid, SIGTERM);
  waitpid(*pid, NULL, 0);
  g_spawn_close_pid(*pid);
  *pid = 0;
}

std::string pc_camera(int i) { return "cam" + std::to_string(i); }

GstBuffer *pc_make_message(const char *camera, guint64 seq, bool event, gsize size) {
  std::string json = std::string("{\"camera_id\":\"") + camera +
                     "\",\"seq\":" + std::to_string(seq) + ",\"type\":\"" +
                     (event ? "event\",\"event\":\"motion-start\"" : "frame\"") +
                     ",\"pad\":\"";
  /* Numbers like a region list's, so that compression finds what it
   * would in mvmetastream's JSON (not a run of one byte). */
  guint32 r = (guint32)seq * 2654435761u + (guint32)strlen(camera);
  while (json.size() + 3 < size) {
    r = r * 1103515245u + 12345u;
    json += std::to_string((r >> 8) % 2000) + ',';
  }
  json += "\"}\n";
  GstBuffer *buf = gst_buffer_new_memdup(json.data(), json.size());

  gst_mv_stream_info_meta_get_info();
  GstCustomMeta *meta = gst_buffer_add_custom_meta(buf, GST_MV_STREAM_INFO_META_NAME);
  GstStructure *s = gst_custom_meta_get_structure(meta);
  gst_structure_set(s, "type", G_TYPE_STRING, event ? "event" : "frame", "camera-id",
                    G_TYPE_STRING, camera, "seq", G_TYPE_UINT64, seq, NULL);
  if (event) gst_structure_set(s, "event", G_TYPE_STRING, "motion-start", NULL);
  return buf;
}

bool pc_parse(const char *data, gsize size, std::string *camera, guint64 *seq,
              bool *event) {
  const std::string s(data, size);
  const size_t c = s.find("\"camera_id\":\"");
  const size_t q = s.find("\"seq\":");
  if (c == std::string::npos || q == std::string::npos) return false;
  const size_t c0 = c + strlen("\"camera_id\":\"");
  const size_t c1 = s.find('"', c0);
  if (c1 == std::string::npos) return false;
  *camera = s.substr(c0, c1 - c0);
  *seq = g_ascii_strtoull(s.c_str() + q + strlen("\"seq\":"), NULL, 10);
  *event = s.find("\"type\":\"event\"") != std::string::npos;
  return true;
}

void PcReceived::add(const char *data, gsize size) {
  std::string camera;
  guint64 seq;
  bool event;

  if (!pc_parse(data, size, &camera, &seq, &event)) {
    foreign++;
    return;
  }
  seqs[camera].push_back(seq);
  total++;
  if (event) events++;
}

static void handle_message(PcRun *run, GstMessage *msg) {
  switch (GST_MESSAGE_TYPE(msg)) {
    case GST_MESSAGE_WARNING: {
      GError *e = NULL;
      gst_message_parse_warning(msg, &e, NULL);
      GST_INFO("warning: %s", e->message);
      if (strstr(e->message, "Lost the connection"))
        run->warnings_lost++;
      else if (strstr(e->message, "dropped"))
        run->warnings_dropped++;
      g_error_free(e);
      break;
    }
    case GST_MESSAGE_ERROR: {
      GError *e = NULL;
      gchar *debug = NULL;
      gst_message_parse_error(msg, &e, &debug);
      if (run->error.empty())
        run->error = std::string(e->message) + " (" + GST_STR_NULL(debug) + ")";
      g_error_free(e);
      g_free(debug);
      break;
    }
    case GST_MESSAGE_ELEMENT: {
      const GstStructure *s = gst_message_get_structure(msg);
      const gchar *name = gst_structure_get_name(s);
      if (g_str_has_suffix(name, "sink-connection")) {
        gboolean c = FALSE;
        gst_structure_get_boolean(s, "connected", &c);
        (c ? run->connected_msgs : run->disconnected_msgs)++;
      } else if (g_str_has_suffix(name, "sink-dropped")) {
        gst_structure_get_uint64(s, "dropped", &run->reported_dropped);
        gst_structure_get_uint64(s, "dropped-events", &run->reported_dropped_events);
      }
      break;
    }
    default:
      break;
  }
}

/* Handles the bus until `end_us` or, when `until_eos`, EOS or an error. */
static bool handle_bus(PcRun *run, gint64 end_us, bool until_eos) {
  GstBus *bus = gst_element_get_bus(run->pipeline);
  bool eos = false;

  /* Once at least: what is already on the bus. */
  for (bool first = true; first || (g_get_monotonic_time() < end_us &&
                                    !(until_eos && (eos || !run->error.empty())));
       first = false) {
    const gint64 left = end_us - g_get_monotonic_time();
    GstMessage *msg = gst_bus_timed_pop(bus, MAX(left, (gint64)0) * GST_USECOND);
    if (!msg) continue;
    first = true; /* more may be waiting */
    if (GST_MESSAGE_TYPE(msg) == GST_MESSAGE_EOS) eos = true;
    handle_message(run, msg);
    gst_message_unref(msg);
  }
  gst_object_unref(bus);
  return eos;
}

bool pc_start(PcRun *run, const char *sink_desc) {
  gchar *desc = g_strdup_printf(
      "appsrc name=src format=time "
      "max-bytes=0 block=true ! %s name=sink sync=false",
      sink_desc);
  GError *err = NULL;

  run->pipeline = gst_parse_launch(desc, &err);
  g_free(desc);
  if (!run->pipeline) {
    run->error = err ? err->message : "no pipeline";
    g_clear_error(&err);
    return false;
  }
  run->src = gst_bin_get_by_name(GST_BIN(run->pipeline), "src");
  run->sink = gst_bin_get_by_name(GST_BIN(run->pipeline), "sink");
  g_object_set(run->src, "max-buffers", (guint64)100000, NULL);
  if (gst_element_set_state(run->pipeline, GST_STATE_PLAYING) ==
      GST_STATE_CHANGE_FAILURE) {
    handle_bus(run, g_get_monotonic_time(), false);
    if (run->error.empty()) run->error = "the pipeline did not start";
    return false;
  }
  return true;
}

void pc_push(PcRun *run, int cameras, int n, int event_every, gint64 interval_us) {
  gint64 next = g_get_monotonic_time();

  for (int i = 0; i < n; i++) {
    const int cam = (int)(run->pushed % (guint64)cameras);
    const guint64 seq = run->next_seq[cam]++;
    const bool event = event_every > 0 && seq % event_every == 0;
    gst_app_src_push_buffer(GST_APP_SRC(run->src),
                            pc_make_message(pc_camera(cam).c_str(), seq, event));
    run->pushed++;
    run->pushed_events += event;
    next += interval_us;
    handle_bus(run, next, false);
  }
}

void pc_run_for(PcRun *run, gint64 ms) {
  handle_bus(run, g_get_monotonic_time() + ms * 1000, false);
}

bool pc_finish(PcRun *run, gint64 timeout_ms) {
  gst_app_src_end_of_stream(GST_APP_SRC(run->src));
  return handle_bus(run, g_get_monotonic_time() + timeout_ms * 1000, true) &&
         run->error.empty();
}

void pc_clear(PcRun *run) {
  if (!run->pipeline) return;
  gst_element_set_state(run->pipeline, GST_STATE_NULL);
  /* The drops at stop are reported then. */
  handle_bus(run, g_get_monotonic_time(), false);
  gst_clear_object(&run->src);
  gst_clear_object(&run->sink);
  gst_clear_object(&run->pipeline);
}

std::string pc_start_error(const std::string &sink_desc) {
  PcRun r;
  const bool ok = pc_start(&r, sink_desc.c_str());
  pc_clear(&r);
  return ok ? "" : r.error;
}

std::string pc_check_bad_settings(const std::string &sink_desc,
                                  const std::vector<PcBadSetting> &bad) {
  for (const auto &b : bad) {
    const std::string e = pc_start_error(sink_desc + " " + b.props);
    if (e.empty()) return std::string(b.props) + " was accepted";
    if (e.find(b.why) == std::string::npos) return std::string(b.props) + ": " + e;
  }
  return "";
}

guint64 pc_dropped(PcRun *run) {
  guint64 d = 0;
  g_object_get(run->sink, "dropped", &d, NULL);
  return d;
}

guint64 pc_stat(PcRun *run, const char *field) {
  GstStructure *s = NULL;
  guint64 v = 0;
  gint64 i = 0;

  g_object_get(run->sink, "stats", &s, NULL);
  if (s && !gst_structure_get_uint64(s, field, &v) &&
      gst_structure_get_int64(s, field, &i))
    v = (guint64)i;
  if (s) gst_structure_free(s);
  return v;
}

std::string pc_check(const PcRun *run, const PcReceived *got, guint64 dropped,
                     bool events_kept) {
  if (got->foreign) return std::to_string(got->foreign) + " foreign message(s)";
  for (const auto &kv : got->seqs) {
    const auto &v = kv.second;
    for (size_t i = 1; i < v.size(); i++)
      if (v[i] <= v[i - 1])
        return kv.first + ": seq " + std::to_string(v[i]) + " after " +
               std::to_string(v[i - 1]) + " (out of order or duplicate)";
  }
  if (got->total + dropped != run->pushed)
    return "received " + std::to_string(got->total) + " + dropped " +
           std::to_string(dropped) + " != pushed " + std::to_string(run->pushed);
  if (events_kept && got->events != run->pushed_events)
    return "events: received " + std::to_string(got->events) + " of " +
           std::to_string(run->pushed_events);
  return "";
}
