/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mvkafkasink end to end against librdkafka's in-process mock cluster
 * (rd_kafka_mock_cluster_new, 3 brokers on 127.0.0.1, a topic of 4
 * partitions replicated 3 times), read back by a librdkafka consumer:
 *   - 4 cameras, frames and events, all brokers down mid-stream: every
 *     message arrives, in order per camera (key = camera id, one
 *     partition each), none dropped, and the loss of the connection is
 *     reported;
 *   - the same with max-queue=40 and 200 messages during the outage:
 *     what arrives is in order, the rest is counted in "dropped" exactly
 *     and reported, the events are kept;
 *   - bad settings are errors at start, naming what is wrong.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>

#include <string>

#include "publishcheck.h"

#define TOPIC "motion"
#define PARTITIONS 4

struct Cluster
{
  rd_kafka_t * rk = nullptr;
  rd_kafka_mock_cluster_t * mc = nullptr;
  std::string bootstraps;
};

static void
cluster_start (Cluster * c)
{
  char err[256];
  rd_kafka_conf_t * conf = rd_kafka_conf_new ();
  rd_kafka_conf_set (conf, "log_level", "0", err, sizeof err);
  c->rk = rd_kafka_new (RD_KAFKA_PRODUCER, conf, err, sizeof err);
  fail_unless (c->rk != NULL, "%s", err);
  c->mc = rd_kafka_mock_cluster_new (c->rk, 3);
  fail_unless (c->mc != NULL);
  c->bootstraps = rd_kafka_mock_cluster_bootstraps (c->mc);
  fail_unless_equals_int (rd_kafka_mock_topic_create (c->mc, TOPIC, PARTITIONS,
                              3),
      RD_KAFKA_RESP_ERR_NO_ERROR);
}

static void
cluster_stop (Cluster * c)
{
  rd_kafka_mock_cluster_destroy (c->mc);
  rd_kafka_destroy (c->rk);
}

/* Reads every partition of TOPIC from the start until `want` messages
 * or `timeout_ms`. */
static void
consume (Cluster * c, PcReceived * got, guint64 want, gint64 timeout_ms)
{
  char err[256];
  rd_kafka_conf_t * conf = rd_kafka_conf_new ();
  rd_kafka_conf_set (conf, "bootstrap.servers", c->bootstraps.c_str (), err,
      sizeof err);
  rd_kafka_conf_set (conf, "group.id", "check", err, sizeof err);
  rd_kafka_conf_set (conf, "enable.auto.commit", "false", err, sizeof err);
  rd_kafka_t * rk = rd_kafka_new (RD_KAFKA_CONSUMER, conf, err, sizeof err);
  fail_unless (rk != NULL, "%s", err);
  rd_kafka_topic_partition_list_t * parts =
      rd_kafka_topic_partition_list_new (PARTITIONS);
  for (int p = 0; p < PARTITIONS; p++)
    rd_kafka_topic_partition_list_add (parts, TOPIC, p)->offset =
        RD_KAFKA_OFFSET_BEGINNING;
  fail_unless_equals_int (rd_kafka_assign (rk, parts), 0);
  rd_kafka_topic_partition_list_destroy (parts);

  const gint64 end = g_get_monotonic_time () + timeout_ms * 1000;
  while (got->total + got->foreign < want && g_get_monotonic_time () < end) {
    rd_kafka_message_t * m = rd_kafka_consumer_poll (rk, 100);
    if (!m)
      continue;
    if (!m->err) {
      /* The key is the camera id. */
      std::string camera;
      guint64 seq;
      bool event;
      if (pc_parse ((const char *) m->payload, m->len, &camera, &seq, &event))
        fail_unless (std::string ((const char *) m->key, m->key_len) == camera,
            "key %.*s for %s", (int) m->key_len, (const char *) m->key,
            camera.c_str ());
      got->add ((const char *) m->payload, m->len);
    }
    rd_kafka_message_destroy (m);
  }
  rd_kafka_consumer_close (rk);
  rd_kafka_destroy (rk);
}

/* Pushes 4 cameras' messages; all brokers down between `before` and
 * `after` for about 1.5 s while `during` more are pushed. */
static void
run_with_outage (Cluster * c, PcRun * r, int during)
{
  pc_push (r, 4, 100, 10, 2000);
  pc_run_for (r, 300);
  rd_kafka_mock_broker_set_down (c->mc, -1);
  pc_push (r, 4, during, 10, 5000);
  pc_run_for (r, 1500);
  rd_kafka_mock_broker_set_up (c->mc, -1);
  pc_push (r, 4, 100, 10, 2000);
  fail_unless (pc_finish (r, 30000), "no EOS: %s", r->error.c_str ());
}

GST_START_TEST (test_restart_nothing_lost)
{
  Cluster c;
  PcRun r;
  PcReceived got;

  cluster_start (&c);
  gchar * desc = g_strdup_printf ("mvkafkasink brokers=%s topic=" TOPIC
                                  " reconnect-delay=1 reconnect-delay-max=1 "
                                  "drain-timeout=20000000000",
      c.bootstraps.c_str ());
  fail_unless (pc_start (&r, desc), "%s", r.error.c_str ());
  g_free (desc);
  run_with_outage (&c, &r, 100);
  const guint64 dropped = pc_dropped (&r);
  fail_unless_equals_uint64 (dropped, 0);
  fail_unless_equals_uint64 (pc_stat (&r, "published"), r.pushed);
  fail_unless (r.connected_msgs >= 2, "connected %u times", r.connected_msgs);
  fail_unless (r.warnings_lost >= 1, "the outage was not reported");
  pc_clear (&r);
  consume (&c, &got, r.pushed, 20000);
  const std::string why = pc_check (&r, &got, dropped, true);
  fail_unless (why.empty (), "%s", why.c_str ());
  fail_unless_equals_int (got.seqs.size (), 4);
  cluster_stop (&c);
}

GST_END_TEST;

GST_START_TEST (test_restart_overflow_reported)
{
  Cluster c;
  PcRun r;
  PcReceived got;

  cluster_start (&c);
  gchar * desc =
      g_strdup_printf ("mvkafkasink brokers=%s topic=" TOPIC
                       " max-queue=40 reconnect-delay=1 reconnect-delay-max=1 "
                       "drain-timeout=20000000000",
          c.bootstraps.c_str ());
  fail_unless (pc_start (&r, desc), "%s", r.error.c_str ());
  g_free (desc);
  run_with_outage (&c, &r, 200);
  const guint64 dropped = pc_dropped (&r);
  fail_unless (dropped > 0, "nothing dropped");
  fail_unless_equals_uint64 (r.reported_dropped, dropped);
  fail_unless (r.warnings_dropped >= 1);
  fail_unless_equals_uint64 (pc_stat (&r, "dropped-queue-full"), dropped);
  /* Frames go first; an event is dropped only when the queue holds nothing
   * else, which depends on how many arrive before the brokers come back
   * (80 are pushed during the outage, the queue holds 40): every event is
   * received or counted as dropped. */
  fail_unless (pc_stat (&r, "dropped-frames") > 0, "no frame dropped");
  const guint64 dropped_events = pc_stat (&r, "dropped-events");
  pc_clear (&r);
  consume (&c, &got, r.pushed - dropped, 20000);
  const std::string why = pc_check (&r, &got, dropped, false);
  fail_unless (why.empty (), "%s", why.c_str ());
  fail_unless_equals_uint64 (got.events + dropped_events, r.pushed_events);
  cluster_stop (&c);
}

GST_END_TEST;

GST_START_TEST (test_bad_settings)
{
  const std::string sink =
      "mvkafkasink brokers=127.0.0.1:" + std::to_string (pc_free_port ());
  const std::string why = pc_check_bad_settings (sink,
      {
          { "brokers=\"\"", "No Kafka brokers" },
          { "topic=\"motion.{kind}\"", "{kind}" },
          { "topic=\"a/b\"", "not a valid Kafka topic" },
          { "key=\"{camera-id\"", "unclosed" },
          { "acks=1", "idempotence=true needs acks=-1" },
          { "security-protocol=bogus", "security.protocol" },
          { "ca-file=/etc/hostname", "need security-protocol=ssl" },
          { "security-protocol=ssl ca-file=/no/such/file",
              "not a readable file" },
          { "username=u", "username needs security-protocol" },
          { "config=\"linger.ms\"", "name=value" },
          { "config=\"no.such.setting=1\"", "no.such.setting" },
      });
  fail_unless (why.empty (), "%s", why.c_str ());
  /* Unreachable brokers are no error: the sink queues and retries. */
  fail_unless (pc_start_error (sink
      + " acks=1 idempotence=false "
        "compression=zstd")
                   .empty ());
}

GST_END_TEST;

static Suite *
mvkafkasink_suite (void)
{
  Suite * s = suite_create ("mvkafkasink");
  TCase * tc = tcase_create ("mock-cluster");

  tcase_set_timeout (tc, 90);
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_restart_nothing_lost);
  tcase_add_test (tc, test_restart_overflow_reported);
  tcase_add_test (tc, test_bad_settings);
  return s;
}

GST_CHECK_MAIN (mvkafkasink);
