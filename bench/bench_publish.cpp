/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Load bench of the publishing sinks (issue 36; not a test): N simulated
 * cameras, each a pipeline appsrc ! mvkafkasink (or mvnatssink) with its
 * own connection, as one pipeline per camera runs in the field, each
 * sending R messages a second of about S bytes (mvmetastream-shaped JSON
 * lines, every 50th an event) for T seconds, in one process. The
 * messages of all cameras are spread evenly over time (one every
 * 1/(N*R) s), pushed from one thread that sleeps between them.
 *
 *   kafka: librdkafka's in-process mock cluster (3 brokers, topic
 *          "motion" of 12 partitions, replication 3); the sinks use their
 *          defaults (acks=-1, idempotence, lz4).
 *   nats:  a nats-server -js that the bench starts on 127.0.0.1, a file
 *          stream MOTION on motion.>; the sinks publish with
 *          jetstream=true (each message acknowledged by the stream).
 *   nats-core: the same server, core NATS (no acknowledgements).
 *   mqtt:  a mosquitto that the bench starts on 127.0.0.1; mvmqttsink at
 *          QoS 1 (each message acknowledged by the broker, PUBACK; what
 *          the broker took in is not counted).
 *
 * Printed at the end: messages pushed, published (acknowledged), dropped
 * and what the server took in (Kafka: the sum of the partitions' high
 * watermarks, the offsets appended since 0, whatever the mock cluster's
 * retention keeps;
 * JetStream: the stream's message count); loss = pushed - held; bytes and
 * messages per camera and second; the publish latency (queue to
 * acknowledgement) of each camera's sink, p50/p99/max, given as the
 * median and the worst over the cameras; and the CPU time of this
 * process (and of nats-server).
 *
 * Usage: bench_publish kafka|nats|nats-core|mqtt [cameras=100] [rate=10]
 *            [seconds=600] [size=2048] [more sink properties]
 * e.g. "linger-ms=0" for Kafka.
 */
#include <gst/gst.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <nats/nats.h>

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "publishcheck.h"

#include <gst/app/gstappsrc.h>

static double cpu_seconds_self(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec +
         (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

/* utime + stime of process `pid` from /proc, in seconds. */
static double cpu_seconds_of(GPid pid) {
  gchar *path = g_strdup_printf("/proc/%d/stat", (int)pid);
  gchar *text = NULL;
  double s = 0;
  if (g_file_get_contents(path, &text, NULL, NULL)) {
    const char *p = strrchr(text, ')');
    unsigned long ut = 0, st = 0;
    if (p && sscanf(p + 2,
                    "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u "
                    "%lu %lu",
                    &ut, &st) == 2)
      s = (double)(ut + st) / sysconf(_SC_CLK_TCK);
  }
  g_free(text);
  g_free(path);
  return s;
}

static gint64 median(std::vector<gint64> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char **argv) {
  gst_init(&argc, &argv);
  if (argc < 2) {
    fprintf(stderr,
            "usage: %s kafka|nats|nats-core|mqtt [cameras] [rate] "
            "[seconds] [size] [more sink properties]\n",
            argv[0]);
    return 2;
  }
  const std::string transport = argv[1];
  const int cameras = argc > 2 ? atoi(argv[2]) : 100;
  const int rate = argc > 3 ? atoi(argv[3]) : 10;
  const int seconds = argc > 4 ? atoi(argv[4]) : 600;
  const int size = argc > 5 ? atoi(argv[5]) : 2048;
  const bool kafka = transport == "kafka";
  const bool jetstream = transport == "nats";
  std::string sink_desc, error;
  rd_kafka_t *mock_rk = NULL;
  rd_kafka_mock_cluster_t *mc = NULL;
  GPid server = 0;
  std::string url;
  gchar *dir = NULL;

  if (kafka) {
    char err[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "log_level", "0", err, sizeof err);
    mock_rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    mc = rd_kafka_mock_cluster_new(mock_rk, 3);
    rd_kafka_mock_topic_create(mc, "motion", 12, 3);
    sink_desc = std::string("mvkafkasink topic=motion brokers=") +
                rd_kafka_mock_cluster_bootstraps(mc);
  } else if (transport == "nats" || transport == "nats-core") {
    dir = g_dir_make_tmp("bench-publish-XXXXXX", NULL);
    const int port = pc_free_port();
    server = pc_nats_server_start(dir, port, {"-js"}, &error);
    if (!server) {
      fprintf(stderr, "nats-server: %s\n", error.c_str());
      return 1;
    }
    url = "nats://127.0.0.1:" + std::to_string(port);
    natsConnection *nc = NULL;
    jsCtx *js = NULL;
    jsStreamConfig cfg;
    jsErrCode code = (jsErrCode)0;
    const char *subjects[] = {"motion.>"};
    natsConnection_ConnectTo(&nc, url.c_str());
    natsConnection_JetStream(&js, nc, NULL);
    jsStreamConfig_Init(&cfg);
    cfg.Name = "MOTION";
    cfg.Subjects = subjects;
    cfg.SubjectsLen = 1;
    cfg.Storage = js_FileStorage;
    if (jetstream && js_AddStream(NULL, js, &cfg, NULL, &code) != NATS_OK) {
      fprintf(stderr, "js_AddStream failed (%d)\n", (int)code);
      return 1;
    }
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
    sink_desc = "mvnatssink subject=motion.{camera-id}.{type} servers=" + url +
                (jetstream ? " jetstream=true" : "");
  } else if (transport == "mqtt") {
    dir = g_dir_make_tmp("bench-publish-XXXXXX", NULL);
    const int port = pc_free_port();
    const std::string conf = std::string(dir) + "/mosquitto.conf";
    const std::string text = "listener " + std::to_string(port) +
                             " 127.0.0.1\nallow_anonymous true\n"
                             "max_queued_messages 100000\nlog_dest none\n";
    g_file_set_contents(conf.c_str(), text.c_str(), -1, NULL);
    server = pc_server_start({pc_find_server("mosquitto"), "-c", conf}, port, &error);
    if (!server) {
      fprintf(stderr, "mosquitto: %s\n", error.c_str());
      return 1;
    }
    sink_desc =
        "mvmqttsink host=127.0.0.1 mqtt-qos=1 "
        "topic=motion/{camera-id}/{type} port=" +
        std::to_string(port);
  } else {
    fprintf(stderr, "unknown transport %s\n", transport.c_str());
    return 2;
  }

  if (argc > 6) sink_desc += std::string(" ") + argv[6];
  std::vector<PcRun> runs(cameras);
  for (auto &r : runs)
    if (!pc_start(&r, sink_desc.c_str())) {
      fprintf(stderr, "start: %s\n", r.error.c_str());
      return 1;
    }
  g_usleep(G_USEC_PER_SEC); /* the connections */

  printf(
      "transport %s: %d cameras x %d msg/s, %d s, about %d B/message\n"
      "sink: %s\n",
      transport.c_str(), cameras, rate, seconds, size, sink_desc.c_str());
  fflush(stdout);
  const double cpu0 = cpu_seconds_self();
  const double server_cpu0 = server ? cpu_seconds_of(server) : 0;
  const gint64 t0 = g_get_monotonic_time();
  const guint64 total = (guint64)cameras * rate * seconds;
  const double interval_us = 1e6 / ((double)cameras * rate);
  guint64 bytes = 0, events = 0;
  std::vector<guint64> seq(cameras, 0);
  for (guint64 k = 0; k < total; k++) {
    const gint64 due = t0 + (gint64)(k * interval_us);
    const gint64 now = g_get_monotonic_time();
    if (due > now) g_usleep(due - now);
    const int cam = (int)(k % cameras);
    const bool event = seq[cam] % 50 == 0;
    GstBuffer *buf = pc_make_message(pc_camera(cam).c_str(), seq[cam]++, event, size);
    bytes += gst_buffer_get_size(buf);
    events += event;
    gst_app_src_push_buffer(GST_APP_SRC(runs[cam].src), buf);
    runs[cam].pushed++;
    if (k % (guint64)(cameras * rate * 60) == 0 && k) {
      printf("  %" G_GUINT64_FORMAT " s\n", k / (cameras * rate));
      fflush(stdout);
    }
    /* Once a second: the buses (errors, warnings). */
    if (k % (guint64)(cameras * rate) == 0)
      for (auto &r : runs) pc_run_for(&r, 0);
  }
  const double wall = (g_get_monotonic_time() - t0) / 1e6;
  for (auto &r : runs)
    if (!pc_finish(&r, 60000)) fprintf(stderr, "no EOS: %s\n", r.error.c_str());
  const double cpu = cpu_seconds_self() - cpu0;
  const double server_cpu = server ? cpu_seconds_of(server) - server_cpu0 : 0;

  guint64 published = 0, dropped = 0;
  guint warnings = 0;
  std::vector<gint64> p50, p99, pmax;
  for (auto &r : runs) {
    published += pc_stat(&r, "published");
    dropped += pc_dropped(&r);
    warnings += r.warnings_dropped + r.warnings_lost;
    p50.push_back((gint64)pc_stat(&r, "latency-p50-us"));
    p99.push_back((gint64)pc_stat(&r, "latency-p99-us"));
    pmax.push_back((gint64)pc_stat(&r, "latency-max-us"));
    if (!r.error.empty()) fprintf(stderr, "error: %s\n", r.error.c_str());
    pc_clear(&r);
  }

  /* What the server took in. */
  gint64 held = -1;
  if (kafka) {
    char err[256];
    rd_kafka_conf_t *conf = rd_kafka_conf_new();
    rd_kafka_conf_set(conf, "bootstrap.servers", rd_kafka_mock_cluster_bootstraps(mc),
                      err, sizeof err);
    rd_kafka_t *rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, err, sizeof err);
    held = 0;
    for (int p = 0; p < 12; p++) {
      int64_t lo = 0, hi = 0;
      if (rd_kafka_query_watermark_offsets(rk, "motion", p, &lo, &hi, 10000) ==
          RD_KAFKA_RESP_ERR_NO_ERROR)
        held += hi; /* offsets from 0: every message appended, including
                     * those the mock's retention has dropped since */
    }
    rd_kafka_destroy(rk);
  } else if (jetstream) {
    natsConnection *nc = NULL;
    jsCtx *js = NULL;
    jsStreamInfo *si = NULL;
    jsErrCode code = (jsErrCode)0;
    natsConnection_ConnectTo(&nc, url.c_str());
    natsConnection_JetStream(&js, nc, NULL);
    if (js_GetStreamInfo(&si, js, "MOTION", NULL, &code) == NATS_OK) {
      held = (gint64)si->State.Msgs;
      jsStreamInfo_Destroy(si);
    }
    jsCtx_Destroy(js);
    natsConnection_Destroy(nc);
  }

  const std::string held_text = held < 0 ? "not counted" : std::to_string(held);
  const std::string loss_text =
      held < 0 ? "not measured (core NATS, MQTT)" : std::to_string((gint64)total - held);
  printf("pushed %" G_GUINT64_FORMAT " (%" G_GUINT64_FORMAT
         " events) in %.1f s; published (acknowledged) %" G_GUINT64_FORMAT
         ", dropped %" G_GUINT64_FORMAT
         ", taken in by the server %s; loss %s; %u drop/loss warnings\n",
         total, events, wall, published, dropped, held_text.c_str(), loss_text.c_str(),
         warnings);
  printf("per camera: %.2f messages/s, %.0f payload B/s (%.0f B/message)\n",
         (double)total / cameras / wall, (double)bytes / cameras / wall,
         (double)bytes / total);
  printf(
      "publish latency, median over the cameras: p50 %.2f ms, p99 %.2f "
      "ms, max %.2f ms\n",
      median(p50) / 1e3, median(p99) / 1e3, median(pmax) / 1e3);
  printf(
      "publish latency, worst camera: p50 %.2f ms, p99 %.2f ms, max "
      "%.2f ms\n",
      *std::max_element(p50.begin(), p50.end()) / 1e3,
      *std::max_element(p99.begin(), p99.end()) / 1e3,
      *std::max_element(pmax.begin(), pmax.end()) / 1e3);
  printf("CPU: this process %.1f s (%.1f %% of one core)%s\n", cpu, 100 * cpu / wall,
         server
             ? (", server " + std::to_string(server_cpu).substr(0, 6) + " s (" +
                std::to_string(100 * server_cpu / wall).substr(0, 5) + " % of one core)")
                   .c_str()
             : " (the mock brokers run in it)");

  if (mc) {
    rd_kafka_mock_cluster_destroy(mc);
    rd_kafka_destroy(mock_rk);
  }
  if (server) {
    pc_server_stop(&server);
    gchar *cmd = g_strdup_printf("rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", dir);
    g_free(cmd);
  }
  g_free(dir);
  const bool ok =
      dropped == 0 && (held < 0 || (guint64)held == total) && published == total;
  printf("%s\n", ok ? "no loss" : "LOSS");
  return ok ? 0 : 1;
}
