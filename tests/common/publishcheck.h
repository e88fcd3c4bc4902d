/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * What the publishing sinks' end-to-end tests (mvkafkasink, mvnatssink)
 * and their load bench share: simulated cameras (buffers shaped as
 * mvmetastream's, with its stream-info tag), a pipeline appsrc ! sink
 * fed in phases (so that a test can take the server down between them),
 * the bus messages counted, and the per-camera order check of what a
 * consumer received. No check.h here: the bench uses it too.
 */
#ifndef __PUBLISH_CHECK_H__
#define __PUBLISH_CHECK_H__

#include <gst/gst.h>

#include <map>
#include <string>
#include <vector>

/* A free TCP port on 127.0.0.1 (bound, read, released). */
int pc_free_port(void);
/* Whether something listens on 127.0.0.1:`port`. */
bool pc_port_open(int port);
/* Waits until 127.0.0.1:`port` listens, at most `ms`. */
bool pc_wait_port(int port, int ms);

/* Runs `argv` (a server; it dies with this process) and waits until it
 * listens on 127.0.0.1:`port`, at most 10 s; 0 and `error` set when it
 * does not. */
GPid pc_server_start(const std::vector<std::string> &argv, int port, std::string *error);
/* SIGTERM, and waits for it. */
void pc_server_stop(GPid *pid);
/* Binary `name` on the PATH or in /usr/sbin, or "". */
std::string pc_find_server(const char *name);

/* nats-server on 127.0.0.1:`port`, its store (for -js) and log in `dir`,
 * with `extra` arguments (-js: JetStream). */
GPid pc_nats_server_start(const std::string &dir, int port,
                          const std::vector<std::string> &extra, std::string *error);
/* The nats-server binary, or "" (Debian package nats-server). */
std::string pc_find_nats_server(void);

/* Message `seq` of camera `camera`: the JSON of mvmetastream (camera_id,
 * seq, type) padded with numbers to about `size` bytes, tagged camera-id,
 * type and, for an event, event=motion-start. */
GstBuffer *pc_make_message(const char *camera, guint64 seq, bool event, gsize size = 0);

/* "cam<i>" */
std::string pc_camera(int i);

/* Parses what pc_make_message wrote: FALSE if it is not such a message. */
bool pc_parse(const char *data, gsize size, std::string *camera, guint64 *seq,
              bool *event);

/* appsrc name=src ! <sink description>, its bus counted. */
struct PcRun {
  GstElement *pipeline = nullptr;
  GstElement *src = nullptr;
  GstElement *sink = nullptr;
  std::string error;
  guint warnings_lost = 0;
  guint warnings_dropped = 0;
  guint connected_msgs = 0;
  guint disconnected_msgs = 0;
  guint64 reported_dropped = 0; /* the last <sink>-dropped's "dropped" */
  guint64 reported_dropped_events = 0;
  guint64 pushed = 0;
  guint64 pushed_events = 0;
  guint64 next_seq[64] = {};
};

/* Builds and starts (PLAYING) the pipeline; FALSE with run->error. */
bool pc_start(PcRun *run, const char *sink_desc);
/* Pushes `n` messages round-robin over `cameras` cameras (every
 * `event_every`-th of a camera an event; 0: none), `interval_us` apart,
 * handling the bus meanwhile. */
void pc_push(PcRun *run, int cameras, int n, int event_every, gint64 interval_us);
/* Handles the bus for `ms`. */
void pc_run_for(PcRun *run, gint64 ms);
/* Sends EOS and waits for it (or an error), at most `timeout_ms`. */
bool pc_finish(PcRun *run, gint64 timeout_ms);
/* Sets the pipeline to NULL and frees it. */
void pc_clear(PcRun *run);
/* The sink's "dropped" and its stats' "published". */
guint64 pc_dropped(PcRun *run);
guint64 pc_stat(PcRun *run, const char *field);

/* The error that starting appsrc ! `sink_desc` posts, or "" when it
 * starts. */
std::string pc_start_error(const std::string &sink_desc);

/* Settings that must fail at start with an error containing `why`. */
struct PcBadSetting {
  const char *props;
  const char *why;
};
/* Each of `bad` appended to `sink_desc`: "" when each fails as it must,
 * else what did not. */
std::string pc_check_bad_settings(const std::string &sink_desc,
                                  const std::vector<PcBadSetting> &bad);

/* What a consumer received, per camera, in order of arrival. */
struct PcReceived {
  std::map<std::string, std::vector<guint64>> seqs;
  guint64 total = 0;
  guint64 events = 0;
  guint64 foreign = 0; /* not pc_make_message's */
  void add(const char *data, gsize size);
};

/* Each camera's messages in push order without duplicates, every
 * message either received or dropped (received + `dropped` == pushed),
 * and every event received when `events_kept`. Empty if so, else what is
 * wrong. */
std::string pc_check(const PcRun *run, const PcReceived *got, guint64 dropped,
                     bool events_kept);

#endif /* __PUBLISH_CHECK_H__ */
