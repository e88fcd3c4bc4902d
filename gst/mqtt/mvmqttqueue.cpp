/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The bounded message queue of mvmqttsink (mvmqttqueue.h).
 */
#include "mvmqttqueue.h"

#include <algorithm>
#include <chrono>
#include <vector>

const char *
mv_mqtt_drop_reason_name (MvMqttDropReason reason)
{
  switch (reason) {
    case MV_MQTT_DROP_QUEUE_FULL:
      return "queue full";
    case MV_MQTT_DROP_INVALID_TOPIC:
      return "invalid topic";
    case MV_MQTT_DROP_REJECTED:
      return "rejected by the MQTT client";
    case MV_MQTT_DROP_DRAIN_TIMEOUT:
      return "broker not reached before drain-timeout at EOS";
    case MV_MQTT_DROP_STOPPED:
      return "not delivered before stop";
    default:
      return "unknown";
  }
}

std::string
MvMqttDropReport::reasons () const
{
  std::vector<int> order;
  for (int r = 0; r < MV_MQTT_DROP_N_REASONS; r++)
    if (since_by_reason[r])
      order.push_back (r);
  std::stable_sort (order.begin (), order.end (), [this] (int a, int b) {
    return since_by_reason[a] > since_by_reason[b];
  });
  std::string out;
  for (int r : order) {
    if (!out.empty ())
      out += ", ";
    out += mv_mqtt_drop_reason_name ((MvMqttDropReason) r);
    if (order.size () > 1)
      out += ": " + std::to_string (since_by_reason[r]);
  }
  return out;
}

void
MvMqttQueue::reset (guint max_queue, guint max_inflight)
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
  update_locked ();
}

/* With lock_ held: counters readable without it, and wakes drain(). */
void
MvMqttQueue::update_locked ()
{
  queued_.store ((guint) (pending_.size () + inflight_.size ()));
  dropped_.store (dropped_frames_ + dropped_events_);
  if (pending_.empty () && inflight_.empty ())
    cond_.notify_all ();
}

void
MvMqttQueue::drop_locked (bool is_event, MvMqttDropReason reason)
{
  (is_event ? dropped_events_ : dropped_frames_)++;
  by_reason_[reason]++;
}

bool
MvMqttQueue::push (MvMqttMessage && msg, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  if (shut_)
    return false;
  bool dropped = false;
  if (pending_.size () + inflight_.size () >= max_queue_) {
    auto victim = pending_.begin ();
    while (victim != pending_.end () && victim->is_event)
      ++victim;
    if (victim == pending_.end () && msg.is_event)
      victim = pending_.begin ();
    if (victim != pending_.end ()) {
      drop_locked (victim->is_event, MV_MQTT_DROP_QUEUE_FULL);
      pending_.erase (victim);
    } else {
      drop_locked (msg.is_event, MV_MQTT_DROP_QUEUE_FULL);
      dropped = true;
    }
  }
  if (!dropped)
    pending_.push_back (std::move (msg));
  pump_locked (publish);
  return true;
}

void
MvMqttQueue::drop (const MvMqttMessage & msg, MvMqttDropReason reason)
{
  std::lock_guard<std::mutex> g (lock_);
  drop_locked (msg.is_event, reason);
  update_locked ();
}

void
MvMqttQueue::pump_locked (const PublishFunc & publish)
{
  while (sending_ && !shut_ && !pending_.empty ()
      && inflight_.size () < max_inflight_) {
    MvMqttMessage & m = pending_.front ();
    int mid = 0;
    const MvMqttPublish r = publish (m, &mid);
    if (r == MvMqttPublish::NOT_CONNECTED)
      break; /* the message stays, for the next connection */
    if (r == MvMqttPublish::REJECTED)
      drop_locked (m.is_event, MV_MQTT_DROP_REJECTED);
    else
      inflight_.emplace (mid, std::move (m));
    pending_.pop_front ();
  }
  update_locked ();
}

void
MvMqttQueue::set_sending (bool sending, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  sending_ = sending;
  pump_locked (publish);
}

void
MvMqttQueue::pump (const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  pump_locked (publish);
}

void
MvMqttQueue::published (int mid, const PublishFunc & publish)
{
  std::lock_guard<std::mutex> g (lock_);
  inflight_.erase (mid);
  pump_locked (publish);
}

void
MvMqttQueue::requeue_inflight ()
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
MvMqttQueue::drop_all (MvMqttDropReason reason)
{
  std::lock_guard<std::mutex> g (lock_);
  const guint n = (guint) (pending_.size () + inflight_.size ());
  for (const MvMqttMessage & m : pending_)
    drop_locked (m.is_event, reason);
  for (const auto & kv : inflight_)
    drop_locked (kv.second.is_event, reason);
  pending_.clear ();
  inflight_.clear ();
  update_locked ();
  return n;
}

MvMqttQueue::DrainResult
MvMqttQueue::drain (gint64 timeout_us)
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
MvMqttQueue::set_flushing (bool flushing)
{
  std::lock_guard<std::mutex> g (lock_);
  flushing_ = flushing;
  cond_.notify_all ();
}

void
MvMqttQueue::shutdown ()
{
  std::lock_guard<std::mutex> g (lock_);
  shut_ = true;
  cond_.notify_all ();
}

bool
MvMqttQueue::take_report (bool force, gint64 now_us, gint64 interval_us,
    MvMqttDropReport * report)
{
  std::lock_guard<std::mutex> g (lock_);
  bool any = false, new_reason = false;
  for (int r = 0; r < MV_MQTT_DROP_N_REASONS; r++) {
    const guint64 since = by_reason_[r] - reported_by_reason_[r];
    any = any || since > 0;
    new_reason = new_reason || (since > 0 && reported_by_reason_[r] == 0);
  }
  if (!any)
    return false;
  if (!force && !new_reason && reported_once_
      && now_us - last_report_us_ < interval_us)
    return false;

  *report = MvMqttDropReport ();
  for (int r = 0; r < MV_MQTT_DROP_N_REASONS; r++) {
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
