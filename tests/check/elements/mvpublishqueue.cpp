/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The publishing sinks' bounded queue alone (gst/publish/mvpublishqueue.h),
 * with a fake publish function in place of a client library: order, the in-flight limit,
 * overflow (oldest frame first, events kept), every drop counted with its
 * reason, the reports (new reason at once, then at most one per
 * interval), QoS 0 requeueing, and drain() woken by the last
 * acknowledgement, by shutdown() and by set_flushing().
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>

#include <string>
#include <thread>
#include <vector>

#include "publish/mvpublishqueue.h"

/* Publishes into `sent` (topics, in order), giving ids 1, 2, ...; or
 * answers `answer` without publishing. */
struct FakeClient
{
  std::vector<std::string> sent;
  MvPublishResult answer = MvPublishResult::OK;
  int next_mid = 1;
  MvPublishQueue::PublishFunc func = [this] (const MvPublishMessage & m,
                                         int * mid) {
    if (answer != MvPublishResult::OK)
      return answer;
    sent.push_back (m.topic);
    *mid = next_mid++;
    return MvPublishResult::OK;
  };
};

static MvPublishMessage
frame (const char * topic)
{
  MvPublishMessage m;
  m.topic = topic;
  m.payload = "{}";
  return m;
}

static MvPublishMessage
event (const char * topic)
{
  MvPublishMessage m = frame (topic);
  m.is_event = true;
  return m;
}

GST_START_TEST (test_order_and_inflight_limit)
{
  MvPublishQueue q;
  FakeClient c;
  q.reset (100, 3);
  for (int i = 0; i < 5; i++)
    fail_unless (q.push (frame (std::to_string (i).c_str ()), c.func));
  fail_unless (c.sent.empty (), "published while not sending");
  fail_unless_equals_int (q.queued (), 5);

  q.set_sending (true, c.func);
  fail_unless_equals_int (c.sent.size (), 3);
  q.published (1, c.func);
  q.published (2, c.func);
  fail_unless_equals_int (c.sent.size (), 5);
  const std::vector<std::string> want = { "0", "1", "2", "3", "4" };
  fail_unless (c.sent == want);
  fail_unless_equals_int (q.queued (), 3);
  for (int mid = 3; mid <= 5; mid++)
    q.published (mid, c.func);
  fail_unless_equals_int (q.queued (), 0);
  fail_unless_equals_uint64 (q.dropped (), 0);
}

GST_END_TEST;

/* Full: the oldest pending frame goes; with only events pending, a new
 * frame goes, a new event pushes out the oldest event. */
GST_START_TEST (test_overflow_frames_first)
{
  MvPublishQueue q;
  FakeClient c;
  MvPublishDropReport r;
  q.reset (3, 10);
  q.push (frame ("f1"), c.func);
  q.push (frame ("f2"), c.func);
  q.push (event ("e1"), c.func);
  q.push (event ("e2"), c.func); /* drops f1 */
  q.push (event ("e3"), c.func); /* drops f2 */
  q.push (frame ("f3"), c.func); /* only events: f3 itself */
  q.push (event ("e4"), c.func); /* drops e1 */
  fail_unless_equals_uint64 (q.dropped (), 4);
  fail_unless_equals_int (q.queued (), 3);

  fail_unless (q.take_report (false, 0, G_USEC_PER_SEC, &r));
  fail_unless_equals_uint64 (r.total_frames, 3);
  fail_unless_equals_uint64 (r.total_events, 1);
  fail_unless_equals_uint64 (r.since_by_reason[MV_PUBLISH_DROP_QUEUE_FULL], 4);
  fail_unless (r.reasons () == "queue full", "%s", r.reasons ().c_str ());

  q.set_sending (true, c.func);
  const std::vector<std::string> want = { "e2", "e3", "e4" };
  fail_unless (c.sent == want);
}

GST_END_TEST;

/* Everything in flight: the new message is the one dropped. */
GST_START_TEST (test_overflow_all_in_flight)
{
  MvPublishQueue q;
  FakeClient c;
  q.reset (2, 2);
  q.set_sending (true, c.func);
  q.push (event ("e1"), c.func);
  q.push (event ("e2"), c.func);
  q.push (event ("e3"), c.func);
  fail_unless_equals_int (c.sent.size (), 2);
  fail_unless_equals_uint64 (q.dropped (), 1);
  fail_unless_equals_int (q.queued (), 2);
}

GST_END_TEST;

/* Not connected: kept, in order; rejected: counted with its reason. */
GST_START_TEST (test_publish_answers)
{
  MvPublishQueue q;
  FakeClient c;
  MvPublishDropReport r;
  q.reset (10, 10);
  q.set_sending (true, c.func);
  c.answer = MvPublishResult::NOT_CONNECTED;
  q.push (frame ("a"), c.func);
  q.push (frame ("b"), c.func);
  fail_unless_equals_int (q.queued (), 2);
  fail_unless_equals_uint64 (q.dropped (), 0);

  c.answer = MvPublishResult::REJECTED;
  q.pump (c.func);
  fail_unless_equals_int (q.queued (), 0);
  fail_unless_equals_uint64 (q.dropped (), 2);
  fail_unless (q.take_report (false, 0, G_USEC_PER_SEC, &r));
  fail_unless_equals_uint64 (r.since_by_reason[MV_PUBLISH_DROP_REJECTED], 2);
  fail_unless (r.reasons () == "rejected by the client", "%s",
      r.reasons ().c_str ());
}

GST_END_TEST;

/* Each new reason is reported at once; more of a known one waits for the
 * interval; force reports whatever is new. */
GST_START_TEST (test_reports)
{
  MvPublishQueue q;
  MvPublishDropReport r;
  const gint64 s = G_USEC_PER_SEC;
  q.reset (10, 10);
  fail_if (q.take_report (true, 0, s, &r), "a report with no drop");

  q.drop (frame ("x"), MV_PUBLISH_DROP_QUEUE_FULL);
  fail_unless (q.take_report (false, 10 * s, s, &r));
  fail_unless_equals_uint64 (r.since, 1);
  q.drop (frame ("x"), MV_PUBLISH_DROP_QUEUE_FULL);
  fail_if (q.take_report (false, 10 * s + s / 2, s, &r));
  fail_unless (q.take_report (false, 11 * s + 1, s, &r));
  fail_unless_equals_uint64 (r.since, 1);
  fail_unless_equals_uint64 (r.total, 2);

  /* New reason, within the interval: at once. */
  q.drop (event ("x"), MV_PUBLISH_DROP_INVALID_TOPIC);
  q.drop (frame ("x"), MV_PUBLISH_DROP_QUEUE_FULL);
  q.drop (frame ("x"), MV_PUBLISH_DROP_QUEUE_FULL);
  fail_unless (q.take_report (false, 11 * s + 2, s, &r));
  fail_unless_equals_uint64 (r.since, 3);
  fail_unless_equals_uint64 (r.total_events, 1);
  fail_unless (r.reasons () == "queue full: 2, invalid topic: 1", "%s",
      r.reasons ().c_str ());

  q.drop (frame ("x"), MV_PUBLISH_DROP_INVALID_TOPIC);
  fail_if (q.take_report (false, 11 * s + 3, s, &r));
  fail_unless (q.take_report (true, 11 * s + 4, s, &r));
  fail_unless (r.reasons () == "invalid topic", "%s", r.reasons ().c_str ());
  fail_if (q.take_report (true, 11 * s + 5, s, &r), "reported twice");
}

GST_END_TEST;

/* QoS 0 after a disconnection: in-flight messages back at the front, in
 * order, and sent again first. */
GST_START_TEST (test_requeue_inflight)
{
  MvPublishQueue q;
  FakeClient c;
  q.reset (10, 2);
  q.set_sending (true, c.func);
  for (const char * t : { "a", "b", "c", "d" })
    q.push (frame (t), c.func);
  q.set_sending (false, c.func);
  q.requeue_inflight ();
  fail_unless_equals_int (q.queued (), 4);
  c.sent.clear ();
  q.set_sending (true, c.func);
  const std::vector<std::string> want = { "a", "b" };
  fail_unless (c.sent == want);
}

GST_END_TEST;

GST_START_TEST (test_drop_all)
{
  MvPublishQueue q;
  FakeClient c;
  MvPublishDropReport r;
  q.reset (10, 1);
  q.set_sending (true, c.func);
  q.push (frame ("a"), c.func);
  q.push (event ("b"), c.func);
  q.push (frame ("c"), c.func);
  fail_unless_equals_int (q.drop_all (MV_PUBLISH_DROP_DRAIN_TIMEOUT), 3);
  fail_unless_equals_int (q.queued (), 0);
  fail_unless (q.take_report (false, 0, G_USEC_PER_SEC, &r));
  fail_unless_equals_uint64 (r.total_frames, 2);
  fail_unless_equals_uint64 (r.total_events, 1);
  fail_unless_equals_uint64 (r.since_by_reason[MV_PUBLISH_DROP_DRAIN_TIMEOUT],
      3);
  /* A late acknowledgement of a dropped message changes nothing. */
  q.published (1, c.func);
  fail_unless_equals_uint64 (q.dropped (), 3);
}

GST_END_TEST;

static gint64
elapsed_ms (gint64 since_us)
{
  return (g_get_monotonic_time () - since_us) / 1000;
}

GST_START_TEST (test_drain)
{
  MvPublishQueue q;
  FakeClient c;
  q.reset (10, 10);
  fail_unless (q.drain (0) == MvPublishQueue::DrainResult::EMPTY);

  q.push (frame ("a"), c.func);
  gint64 t0 = g_get_monotonic_time ();
  fail_unless (q.drain (50000) == MvPublishQueue::DrainResult::TIMED_OUT);
  fail_unless (elapsed_ms (t0) >= 45);

  /* The last acknowledgement, from another thread, ends the wait. */
  q.set_sending (true, c.func);
  t0 = g_get_monotonic_time ();
  std::thread ack ([&q, &c] {
    g_usleep (50000);
    q.published (1, c.func);
  });
  fail_unless (
      q.drain (60 * G_USEC_PER_SEC) == MvPublishQueue::DrainResult::EMPTY);
  ack.join ();
  fail_unless (elapsed_ms (t0) < 10000);

  /* Flushing interrupts it, and a huge timeout is no overflow. */
  q.push (frame ("b"), c.func);
  t0 = g_get_monotonic_time ();
  std::thread flush ([&q] {
    g_usleep (50000);
    q.set_flushing (true);
  });
  fail_unless (
      q.drain (G_MAXINT64) == MvPublishQueue::DrainResult::INTERRUPTED);
  flush.join ();
  fail_unless (elapsed_ms (t0) < 10000);
  q.set_flushing (false);

  /* Shutdown (an error) interrupts it too, and refuses what comes next. */
  t0 = g_get_monotonic_time ();
  std::thread stop ([&q] {
    g_usleep (50000);
    q.shutdown ();
  });
  fail_unless (q.drain (60 * G_USEC_PER_SEC)
      == MvPublishQueue::DrainResult::INTERRUPTED);
  stop.join ();
  fail_unless (elapsed_ms (t0) < 10000);
  fail_if (q.push (frame ("c"), c.func));
  fail_unless_equals_int (q.queued (), 1);

  q.reset (10, 10);
  fail_unless (q.push (frame ("d"), c.func), "reset did not reopen");
}

GST_END_TEST;

/* retry() puts a message back before every later one; give_up() counts
 * it as rejected. */
GST_START_TEST (test_retry_and_give_up)
{
  MvPublishQueue q;
  FakeClient c;
  MvPublishStats st;
  q.reset (100, 3);
  q.set_sending (true, c.func);
  for (const char * t : { "a", "b", "c", "d", "e" })
    q.push (frame (t), c.func);
  /* a, b, c in flight (ids 1-3); d, e pending. */
  c.answer = MvPublishResult::NOT_CONNECTED;
  q.retry (2, c.func); /* b before d */
  q.retry (1, c.func); /* a before b */
  c.answer = MvPublishResult::OK;
  q.published (3, c.func); /* c done: pumps a, b, d */
  const std::vector<std::string> want = { "a", "b", "c", "a", "b", "d" };
  fail_unless (c.sent == want);
  q.give_up (4, c.func); /* a, for good: e pumped */
  q.published (5, c.func);
  q.published (6, c.func);
  q.published (7, c.func);
  fail_unless_equals_int (q.queued (), 0);
  q.stats (&st);
  fail_unless_equals_uint64 (st.published, 4);
  fail_unless_equals_uint64 (st.retried, 2);
  fail_unless_equals_uint64 (st.dropped_by_reason[MV_PUBLISH_DROP_REJECTED], 1);
}

GST_END_TEST;

/* DONE: handed over for good, no "published" follows. Latency counted. */
GST_START_TEST (test_done_and_latency)
{
  MvPublishQueue q;
  MvPublishStats st;
  int calls = 0;
  MvPublishQueue::PublishFunc done = [&calls] (const MvPublishMessage &,
                                         int *) {
    calls++;
    return MvPublishResult::DONE;
  };
  q.reset (10, 2);
  q.stats (&st);
  fail_unless_equals_int64 (st.latency_p99_us, 0);
  q.set_sending (true, done);
  for (int i = 0; i < 5; i++)
    q.push (frame ("x"), done);
  fail_unless_equals_int (calls, 5);
  fail_unless_equals_int (q.queued (), 0);
  q.stats (&st);
  fail_unless_equals_uint64 (st.published, 5);
  fail_unless (st.latency_p50_us >= 1 && st.latency_p50_us <= st.latency_p99_us
          && st.latency_p99_us <= st.latency_max_us,
      "%" G_GINT64_FORMAT " %" G_GINT64_FORMAT " %" G_GINT64_FORMAT,
      st.latency_p50_us, st.latency_p99_us, st.latency_max_us);
}

GST_END_TEST;

static Suite *
mvpublishqueue_suite (void)
{
  Suite * s = suite_create ("mvpublishqueue");
  TCase * tc = tcase_create ("queue");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_order_and_inflight_limit);
  tcase_add_test (tc, test_overflow_frames_first);
  tcase_add_test (tc, test_overflow_all_in_flight);
  tcase_add_test (tc, test_publish_answers);
  tcase_add_test (tc, test_reports);
  tcase_add_test (tc, test_requeue_inflight);
  tcase_add_test (tc, test_drop_all);
  tcase_add_test (tc, test_drain);
  tcase_add_test (tc, test_retry_and_give_up);
  tcase_add_test (tc, test_done_and_latency);
  return s;
}

GST_CHECK_MAIN (mvpublishqueue);
