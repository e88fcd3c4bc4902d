/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CPU backends' team sizes (threads.h says why they are shared).
 */
#include "threads.h"

#include <algorithm>
#include <atomic>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace match {

namespace {
std::atomic<int> g_cpu_users{0};
}  // namespace

int team_size(int requested, int cores, int users) {
  if (requested > 0) return requested;
  if (cores < 1) cores = 1;
  if (users < 1) users = 1;
  const int share = cores / users;
  return share > 1 ? share : 1;
}

int available_cores() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

int cpu_users() { return g_cpu_users.load(std::memory_order_relaxed); }

int cpu_team(int requested) {
  if (requested > 0) return requested;
  return team_size(0, available_cores(), cpu_users());
}

int TeamTuner::next(int requested, int share) {
  if (requested > 0) {
    tuned_ = false;
    return requested;
  }
  if (share < 1) share = 1;
  if (share != share_) {
    share_ = share;
    settled_ = share;
    probe_ = 0;
    count_ = 0;
    interval_ = kMinInterval;
    down_ = true;
  }
  tuned_ = share_ > 1;
  return probe_ > 0 ? probe_ : settled_;
}

void TeamTuner::record(double seconds) {
  if (!tuned_) return;
  tuned_ = false;
  if (probe_ == 0) {
    ring_[count_ % kWindow] = seconds;
    if (++count_ < interval_ || count_ < kWindow) return;
    /* Probe the neighbouring size: down from the share, up from 1, else
     * alternately. */
    const bool down = settled_ == share_ || (settled_ > 1 && down_);
    probe_ = down ? settled_ / 2 : std::min(share_, settled_ * 2);
    down_ = !down;
    probe_done_ = 0;
    probe_sum_ = 0;
    probe_cost_ = 0;
    return;
  }
  probe_cost_ += seconds;
  if (++probe_done_ == 1) return; /* the untimed first frame */
  probe_sum_ += seconds;
  double base = 0;
  for (double t : ring_) base += t;
  /* Lost as soon as the sum reaches 0.9 x base (the times are positive):
   * a probe of a team that stalls ends after one timed frame. */
  const bool lost = probe_sum_ >= 0.9 * base;
  if (!lost && probe_done_ < kWindow + 1) return;
  if (!lost) {
    settled_ = probe_;
    interval_ = kMinInterval;
  } else {
    /* Twice the interval, and at least 50 x the probe's cost in frames at
     * the settled size (a probe costs <= 2% of the time). */
    const double frame = base / kWindow;
    const double cost_frames = frame > 0 ? 50.0 * probe_cost_ / frame : kMaxInterval;
    const double next =
        std::min<double>(kMaxInterval, std::max<double>(2.0 * interval_, cost_frames));
    interval_ = static_cast<int>(next);
  }
  probe_ = 0;
  count_ = 0;
}

CpuUser::CpuUser() { g_cpu_users.fetch_add(1, std::memory_order_relaxed); }
CpuUser::~CpuUser() { g_cpu_users.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace match
