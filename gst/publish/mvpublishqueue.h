/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The bounded message queue of the publishing sinks (mvmqttsink,
 * mvkafkasink, mvnatssink; gstmvpublishsink.h): messages awaiting the
 * broker, either pending (not yet handed to the client library) or in
 * flight (handed over, awaiting the client's "published" for their
 * message id). No GStreamer and no client library here, so it is tested
 * alone (tests/check/elements/mvpublishqueue.cpp).
 *
 * Threads: every method may be called from any thread; one mutex guards
 * the queue. pump() calls the publish function with that mutex held, so
 * that a message and its id enter `inflight` before the client's
 * "published" for that id can look for it (the client must not call back
 * into the queue from inside publish).
 *
 * Nothing leaves the queue silently: a message is either published
 * (acknowledged) or counted as dropped with a reason (MvPublishDropReason).
 * take_report() hands out what was dropped since the last report, at once
 * for a reason never reported before and otherwise at most once per
 * interval; drain() waits without polling and wakes on shutdown() and
 * set_flushing().
 */
#ifndef __MV_PUBLISH_QUEUE_H__
#define __MV_PUBLISH_QUEUE_H__

#include <glib.h>

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <string>

struct MvPublishMessage
{
  std::string topic;
  std::string key; /* Kafka's message key; unused by the others */
  std::string payload;
  bool is_event = false;
  /* Set by push(): g_get_monotonic_time() (the publish latency), and
   * the message's place in the order of push() (retry()). */
  gint64 queued_us = 0;
  guint64 seq = 0;
};

/* Why a message was not delivered. */
enum MvPublishDropReason
{
  MV_PUBLISH_DROP_QUEUE_FULL,    /* overflow: the oldest frame made room */
  MV_PUBLISH_DROP_INVALID_TOPIC, /* its topic cannot be published to */
  MV_PUBLISH_DROP_REJECTED,      /* the client refused it (publish failed) */
  MV_PUBLISH_DROP_DRAIN_TIMEOUT, /* still queued at EOS after drain-timeout */
  MV_PUBLISH_DROP_STOPPED,       /* still queued at a stop (or an error) */
  MV_PUBLISH_DROP_N_REASONS
};

/* A short English phrase ("queue full"). */
const char * mv_publish_drop_reason_name (MvPublishDropReason reason);

/* What the publish function of pump() says about one message. */
enum class MvPublishResult
{
  OK,            /* handed over; *mid is its message id */
  NOT_CONNECTED, /* try again after the next connection */
  REJECTED,      /* never publishable: dropped (MV_PUBLISH_DROP_REJECTED) */
  DONE,          /* handed over for good, no "published" follows (NATS
                  * core: at most once); it leaves the queue now */
};

/* Counters and the publish latency (push() to "published"), for the
 * sinks' "stats" property. */
struct MvPublishStats
{
  guint64 published = 0;
  guint64 dropped = 0;
  guint64 dropped_frames = 0;
  guint64 dropped_events = 0;
  guint64 dropped_by_reason[MV_PUBLISH_DROP_N_REASONS] = {};
  guint64 retried = 0;
  guint queued = 0;
  guint inflight = 0;
  /* Microseconds, over every message published since reset(); 0 when
   * none. Percentiles from a histogram of 5 % wide bins. */
  gint64 latency_p50_us = 0;
  gint64 latency_p99_us = 0;
  gint64 latency_max_us = 0;
};

/* Drops since the previous report, and totals. */
struct MvPublishDropReport
{
  guint64 since = 0;
  guint64 total = 0;
  guint64 total_frames = 0;
  guint64 total_events = 0;
  guint64 since_by_reason[MV_PUBLISH_DROP_N_REASONS] = {};
  guint queued = 0;

  /* The reasons of the drops since the previous report, most frequent
   * first, with their counts when more than one: "queue full" or
   * "queue full: 3, invalid topic: 1". */
  std::string reasons () const;
};

class MvPublishQueue
{
public:
  using PublishFunc =
      std::function<MvPublishResult (const MvPublishMessage & msg, int * mid)>;

  /* Empties the queue and zeroes the counters (start). `max_queue` bounds
   * pending + in flight; at most `max_inflight` are in flight. */
  void reset (guint max_queue, guint max_inflight);

  /* Appends `msg`. When the queue is full, room is made by dropping the
   * oldest pending frame message; with only events pending, `msg` itself
   * if it is a frame, else the oldest event; with everything in flight,
   * `msg`. Then pumps. FALSE after shutdown() (nothing queued or
   * counted). */
  bool push (MvPublishMessage && msg, const PublishFunc & publish);

  /* Counts `msg`, never queued, as dropped for `reason`. */
  void drop (const MvPublishMessage & msg, MvPublishDropReason reason);

  /* While sending (connected), pump() hands pending messages to `publish`
   * in order, keeping at most max_inflight in flight. */
  void set_sending (bool sending, const PublishFunc & publish);
  void pump (const PublishFunc & publish);

  /* The client is done with message `mid` (written at QoS 0, acknowledged
   * at QoS 1 and 2): it leaves the queue, and the next ones are pumped. */
  void published (int mid, const PublishFunc & publish);

  /* The client gave message `mid` back (its delivery failed in a way a
   * resend may mend: a timed-out JetStream acknowledgement): it goes back
   * among the pending ones, before every message queued after it, and is
   * sent again when the client can. */
  void retry (int mid, const PublishFunc & publish);

  /* The client gave message `mid` up for good: counted as dropped
   * (MV_PUBLISH_DROP_REJECTED); the next ones are pumped. */
  void give_up (int mid, const PublishFunc & publish);

  /* Copies the counters and the latency percentiles. */
  void stats (MvPublishStats * out);

  /* Puts every message in flight back at the front of the pending ones,
   * in their order (QoS 0 after a disconnection: the client forgot them
   * without a callback). */
  void requeue_inflight ();

  /* Counts every queued message as dropped for `reason`; returns how
   * many. */
  guint drop_all (MvPublishDropReason reason);

  enum class DrainResult
  {
    EMPTY,       /* everything published */
    TIMED_OUT,   /* `timeout_us` passed first */
    INTERRUPTED, /* set_flushing (true) or shutdown () */
  };
  /* Waits until the queue is empty, at most `timeout_us` microseconds. */
  DrainResult drain (gint64 timeout_us);

  /* Flushing wakes and ends a drain() (until set_flushing (false)). */
  void set_flushing (bool flushing);

  /* For good (until reset()): stops pumping, refuses push() and wakes
   * drain(). The messages stay until drop_all(). */
  void shutdown ();

  /* TRUE and `report` filled when messages were dropped since the last
   * report and `force`, or a reason appears that was never reported
   * since reset(), or `interval_us` passed since the last report
   * (`now_us`: a monotonic clock). */
  bool take_report (bool force, gint64 now_us, gint64 interval_us,
      MvPublishDropReport * report);

  /* Readable without the lock. */
  guint64 dropped () const
  {
    return dropped_.load ();
  }
  guint queued () const
  {
    return queued_.load ();
  }

private:
  void drop_locked (bool is_event, MvPublishDropReason reason);
  void pump_locked (const PublishFunc & publish);
  void update_locked ();
  void published_locked (const MvPublishMessage & m);

  std::mutex lock_;
  std::condition_variable cond_; /* empty, flushing, shut down */

  std::deque<MvPublishMessage> pending_;
  std::map<int, MvPublishMessage> inflight_; /* by message id */
  guint max_queue_ = 1;
  guint max_inflight_ = 1;
  bool sending_ = false;
  bool shut_ = false;
  bool flushing_ = false;

  guint64 next_seq_ = 0;
  guint64 published_ = 0;
  guint64 retried_ = 0;
  /* Latency histogram: bin i holds latencies in [1.05^i, 1.05^(i+1)) us. */
  static const int N_LATENCY_BINS = 480;
  guint64 latency_bins_[N_LATENCY_BINS] = {};
  gint64 latency_max_us_ = 0;

  guint64 dropped_frames_ = 0;
  guint64 dropped_events_ = 0;
  guint64 by_reason_[MV_PUBLISH_DROP_N_REASONS] = {};
  guint64 reported_by_reason_[MV_PUBLISH_DROP_N_REASONS] = {};
  gint64 last_report_us_ = 0;
  bool reported_once_ = false;

  std::atomic<guint64> dropped_{ 0 };
  std::atomic<guint> queued_{ 0 };
};

#endif /* __MV_PUBLISH_QUEUE_H__ */
