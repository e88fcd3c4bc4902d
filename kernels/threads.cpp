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
    settled_n_ = 0;
    settled_sum_ = 0;
    wait_ = kMinWait;
    down_ = true;
  }
  tuned_ = share_ > 1;
  return probe_ > 0 ? probe_ : settled_;
}

void TeamTuner::record(double seconds) {
  if (!tuned_) return;
  tuned_ = false;
  if (probe_ == 0) {
    settled_sum_ += seconds;
    if (++settled_n_ < kWindow || settled_sum_ < wait_) return;
    const bool down = settled_ == share_ || (settled_ > 1 && down_);
    probe_ = down ? settled_ / 2 : std::min(share_, settled_ * 2);
    down_ = !down;
    probe_n_ = -1;
    probe_sum_ = 0;
    probe_cost_ = 0;
    return;
  }
  probe_cost_ += seconds;
  if (++probe_n_ == 0) return; /* the untimed first frame */
  probe_sum_ += seconds;
  const double base = settled_sum_ / settled_n_;
  const bool losing = probe_sum_ >= 0.9 * base * probe_n_;
  const bool lost = losing && probe_sum_ >= 0.9 * base * kWindow;
  const bool done = probe_n_ >= kWindow && probe_sum_ >= kProbeSeconds;
  if (!lost && !done) return;
  if (!losing) {
    settled_ = probe_;
    wait_ = kMinWait;
  } else {
    wait_ = std::min(kMaxWait, std::max(2 * wait_, 50 * probe_cost_));
  }
  probe_ = 0;
  settled_n_ = 0;
  settled_sum_ = 0;
}

CpuUser::CpuUser() { g_cpu_users.fetch_add(1, std::memory_order_relaxed); }
CpuUser::~CpuUser() { g_cpu_users.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace match
