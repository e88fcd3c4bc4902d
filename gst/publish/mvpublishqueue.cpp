/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The bounded message queue of the publishing sinks (mvpublishqueue.h).
 */
#include "mvpublishqueue.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

const char *
mv_publish_drop_reason_name (MvPublishDropReason reason)
{
  switch (reason) {
    case MV_PUBLISH_DROP_QUEUE_FULL:
      return "queue full";
    case MV_PUBLISH_DROP_INVALID_TOPIC:
      return "invalid topic";
    case MV_PUBLISH_DROP_REJECTED:
      return "rejected by the client";
    case MV_PUBLISH_DROP_DRAIN_TIMEOUT:
      return "not delivered before drain-timeout at EOS";
    case MV_PUBLISH_DROP_STOPPED:
      return "not delivered before stop";
    default:
      return "unknown";
  }
}

std::string
MvPublishDropReport::reasons () const
{
  std::vector<int> order;
  for (int r = 0; r < MV_PUBLISH_DROP_N_REASONS; r++)
    if (since_by_reason[r])
      order.push_back (r);
  std::stable_sort (order.begin (), order.end (), [this] (int a, int b) {
    return since_by_reason[a] > since_by_reason[b];
  });
  std::string out;
  for (int r : order) {
    if (!out.empty ())
      out += ", ";
    out += mv_publish_drop_reason_name ((MvPublishDropReason) r);
    if (order.size () > 1)
      out += ": " + std::to_string (since_by_reason[r]);
  }
  return out;
}

void
MvPublishQueue::reset (guint max_queue, guint max_inflight)
{
  std::lock_guard<std::mutex> g (lock_);
  pending_.clear ();
  inflight_.clear ();
  max_queue_ = MAX (max_queue, 1u);
  max_inflight_ = MAX (max_inflight, 1u);
  sending_ = shut_ = flushing_ = false;
  dropped_frames_ = dropped_events_ = 0;
  std::fill (std::begin (by_reason_), std::end (by_reason_), 0);
  std::fill (std::begin (reported_by_reason_), std::end (reported_by_reason_),
      0);
  last_report_us_ = 0;
  reported_once_ = false;
  next_seq_ = published_ = retried_ = 0;
  std::fill (std::begin (latency_bins_), std::end (latency_bins_), 0);
  latency_max_us_ = 0;
  update_locked ();
}

/* With lock_ held: counters readable without it, and wakes drain(). */
void
MvPublishQueue::update_locked ()
{
  queued_.store ((guint) (pending_.size () + inflight_.size ()));
  dropped_.store (dropped_frames_ + dropped_events_);
  if (pending_.empty () && inflight_.empty ())
    cond_.notify_all ();
}

void
MvPublishQueue::drop_locked (bool is_event, MvPublishDropReason reason)
{
  (is_event ? dropped_events_ : dropped_frames_)++;
  by_reason_[reason]++;
}

bool
MvPublishQueue::push (MvPublishMessage && msg, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  if (shut_)
    return false;
  msg.queued_us = g_get_monotonic_time ();
  msg.seq = next_seq_++;
  bool dropped = false;
  if (pending_.size () + inflight_.size () >= max_queue_) {
    auto victim = pending_.begin ();
    while (victim != pending_.end () && victim->is_event)
      ++victim;
    if (victim == pending_.end () && msg.is_event)
      victim = pending_.begin ();
    if (victim != pending_.end ()) {
      drop_locked (victim->is_event, MV_PUBLISH_DROP_QUEUE_FULL);
      pending_.erase (victim);
    } else {
      drop_locked (msg.is_event, MV_PUBLISH_DROP_QUEUE_FULL);
      dropped = true;
    }
  }
  if (!dropped)
    pending_.push_back (std::move (msg));
  pump_locked (publish);
  return true;
}

void
MvPublishQueue::drop (const MvPublishMessage & msg, MvPublishDropReason reason)
{
  std::lock_guard<std::mutex> g (lock_);
  drop_locked (msg.is_event, reason);
  update_locked ();
}

void
MvPublishQueue::pump_locked (const PublishFunc & publish)
{
  while (sending_ && !shut_ && !pending_.empty ()
      && inflight_.size () < max_inflight_) {
    MvPublishMessage & m = pending_.front ();
    int mid = 0;
    const MvPublishResult r = publish (m, &mid);
    if (r == MvPublishResult::NOT_CONNECTED)
      break; /* the message stays, for the next connection */
    if (r == MvPublishResult::REJECTED)
      drop_locked (m.is_event, MV_PUBLISH_DROP_REJECTED);
    else if (r == MvPublishResult::DONE)
      published_locked (m);
    else
      inflight_.emplace (mid, std::move (m));
    pending_.pop_front ();
  }
  update_locked ();
}

void
MvPublishQueue::set_sending (bool sending, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  sending_ = sending;
  pump_locked (publish);
}

void
MvPublishQueue::pump (const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  pump_locked (publish);
}

void
MvPublishQueue::published (int mid, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  auto it = inflight_.find (mid);
  if (it != inflight_.end ()) {
    published_locked (it->second);
    inflight_.erase (it);
  }
  pump_locked (publish);
}

/* With lock_ held: one more published message, and its latency. */
void
MvPublishQueue::published_locked (const MvPublishMessage & m)
{
  const gint64 us = MAX (g_get_monotonic_time () - m.queued_us, (gint64) 1);
  const int bin = (int) (std::log ((double) us) / std::log (1.05));
  latency_bins_[CLAMP (bin, 0, N_LATENCY_BINS - 1)]++;
  latency_max_us_ = MAX (latency_max_us_, us);
  published_++;
}

void
MvPublishQueue::retry (int mid, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  auto it = inflight_.find (mid);
  if (it == inflight_.end ())
    return;
  auto pos = pending_.begin ();
  while (pos != pending_.end () && pos->seq < it->second.seq)
    ++pos;
  pending_.insert (pos, std::move (it->second));
  inflight_.erase (it);
  retried_++;
  pump_locked (publish);
}

void
MvPublishQueue::give_up (int mid, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  auto it = inflight_.find (mid);
  if (it != inflight_.end ()) {
    drop_locked (it->second.is_event, MV_PUBLISH_DROP_REJECTED);
    inflight_.erase (it);
  }
  pump_locked (publish);
}

void
MvPublishQueue::stats (MvPublishStats * out)
{
  std::lock_guard<std::mutex> g (lock_);
  *out = MvPublishStats ();
  out->published = published_;
  out->dropped_frames = dropped_frames_;
  out->dropped_events = dropped_events_;
  out->dropped = dropped_frames_ + dropped_events_;
  std::copy (std::begin (by_reason_), std::end (by_reason_),
      out->dropped_by_reason);
  out->retried = retried_;
  out->queued = (guint) (pending_.size () + inflight_.size ());
  out->inflight = (guint) inflight_.size ();
  out->latency_max_us = latency_max_us_;
  /* The upper edge of the bin where the count reaches q of the total. */
  const double qs[2] = { 0.50, 0.99 };
  gint64 * outs[2] = { &out->latency_p50_us, &out->latency_p99_us };
  for (int k = 0; k < 2 && published_; k++) {
    const guint64 want = (guint64) std::ceil (qs[k] * (double) published_);
    guint64 sum = 0;
    for (int i = 0; i < N_LATENCY_BINS; i++) {
      sum += latency_bins_[i];
      if (sum >= want) {
        *outs[k] =
            MIN ((gint64) std::ceil (std::pow (1.05, i + 1)), latency_max_us_);
        break;
      }
    }
  }
}

void
MvPublishQueue::requeue_inflight ()
{
  std::lock_guard<std::mutex> g (lock_);
  /* Message ids grow with each publish, so the map's order is the order
   * they were sent in (a wrap past 65535 is not told apart; QoS 0 only). */
  for (auto it = inflight_.rbegin (); it != inflight_.rend (); ++it)
    pending_.push_front (std::move (it->second));
  inflight_.clear ();
  update_locked ();
}

guint
MvPublishQueue::drop_all (MvPublishDropReason reason)
{
  std::lock_guard<std::mutex> g (lock_);
  const guint n = (guint) (pending_.size () + inflight_.size ());
  for (const MvPublishMessage & m : pending_)
    drop_locked (m.is_event, reason);
  for (const auto & kv : inflight_)
    drop_locked (kv.second.is_event, reason);
  pending_.clear ();
  inflight_.clear ();
  update_locked ();
  return n;
}

MvPublishQueue::DrainResult
MvPublishQueue::drain (gint64 timeout_us)
{
  /* At most about 30 years: steady_clock counts nanoseconds in 64 bits. */
  const gint64 us =
      CLAMP (timeout_us, (gint64) 0, G_GINT64_CONSTANT (1000000000000000));
  const auto end =
      std::chrono::steady_clock::now () + std::chrono::microseconds (us);
  std::unique_lock<std::mutex> g (lock_);
  while (!pending_.empty () || !inflight_.empty ()) {
    if (flushing_ || shut_)
      return DrainResult::INTERRUPTED;
    if (cond_.wait_until (g, end) == std::cv_status::timeout
        && (!pending_.empty () || !inflight_.empty ()))
      return (flushing_ || shut_) ? DrainResult::INTERRUPTED
                                  : DrainResult::TIMED_OUT;
  }
  return DrainResult::EMPTY;
}

void
MvPublishQueue::set_flushing (bool flushing)
{
  std::lock_guard<std::mutex> g (lock_);
  flushing_ = flushing;
  cond_.notify_all ();
}

void
MvPublishQueue::shutdown ()
{
  std::lock_guard<std::mutex> g (lock_);
  shut_ = true;
  cond_.notify_all ();
}

bool
MvPublishQueue::take_report (bool force, gint64 now_us, gint64 interval_us,
    MvPublishDropReport * report)
{
  std::lock_guard<std::mutex> g (lock_);
  bool any = false, new_reason = false;
  for (int r = 0; r < MV_PUBLISH_DROP_N_REASONS; r++) {
    const guint64 since = by_reason_[r] - reported_by_reason_[r];
    any = any || since > 0;
    new_reason = new_reason || (since > 0 && reported_by_reason_[r] == 0);
  }
  if (!any)
    return false;
  if (!force && !new_reason && reported_once_
      && now_us - last_report_us_ < interval_us)
    return false;

  *report = MvPublishDropReport ();
  for (int r = 0; r < MV_PUBLISH_DROP_N_REASONS; r++) {
    report->since_by_reason[r] = by_reason_[r] - reported_by_reason_[r];
    report->since += report->since_by_reason[r];
    reported_by_reason_[r] = by_reason_[r];
  }
  report->total_frames = dropped_frames_;
  report->total_events = dropped_events_;
  report->total = dropped_frames_ + dropped_events_;
  report->queued = (guint) (pending_.size () + inflight_.size ());
  last_report_us_ = now_us;
  reported_once_ = true;
  return true;
}
