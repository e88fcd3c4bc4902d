/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CPU backends' team sizes (threads.h says why they are shared).
 */
#include "threads.h"

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

CpuUser::CpuUser() { g_cpu_users.fetch_add(1, std::memory_order_relaxed); }
CpuUser::~CpuUser() { g_cpu_users.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace match
