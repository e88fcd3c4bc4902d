/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * How many OpenMP threads a CPU backend uses for a frame (issue 32: many
 * camera pipelines on one CPU box). Not installed.
 *
 * An explicit thread count (an element's n-threads = K > 0, a runtime's
 * threads = K) is used as given. The default (0) divides the cores among
 * the CPU matchers alive in this process: with C cores (OpenMP's default
 * team: OMP_NUM_THREADS, else the CPUs this process may run on) and N CPU
 * matchers, each gets max(1, C / N) threads.
 *
 * Why: every pipeline runs its frames in its own streaming thread, and each
 * such thread has its own OpenMP team. With "one thread per core" for each,
 * N pipelines ran N x C threads on C cores; the idle ones busy-wait (libgomp
 * spins up to 300,000 times before it sleeps, and its OMP_WAIT_POLICY /
 * GOMP_SPINCOUNT are read only when the library loads, so the plugin cannot
 * change that), and the forks and joins of one team wait for threads the
 * scheduler has given to another. Dividing the cores keeps the sum near C,
 * and with C / N below 2 a matcher runs its frames on its own streaming
 * thread with no OpenMP team at all (nothing to spin). The count is of
 * matchers alive (created, not yet destroyed), not of those computing at the
 * moment: the team size then stays the same from frame to frame (libgomp
 * ends and starts pool threads whenever a thread's team size changes), and
 * a matcher needs one atomic load per frame, no lock. Matchers of other
 * processes are not seen: docs/many-cameras.md says what to set there.
 */
#pragma once

namespace match {

/* The policy itself: `requested` when > 0, else max(1, cores / users) (a
 * users of 0 counts as 1, cores below 1 as 1). */
int team_size(int requested, int cores, int users);

/* C: OpenMP's default team size for the calling thread
 * (omp_get_max_threads()); 1 in builds without OpenMP. */
int available_cores();

/* N: the CPU matchers (CpuUser objects) alive in this process. */
int cpu_users();

/* The team for a CPU backend's frame: team_size(requested,
 * available_cores(), cpu_users()). Without OpenMP, 1 for the default
 * (requested = 0) and `requested` otherwise, as before. */
int cpu_team(int requested);

/* Held by every CPU matcher (block matching, POC, stereo) for its life: it
 * counts in cpu_users(). Not copyable; constructing and destroying one is
 * an atomic increment and decrement. */
class CpuUser {
 public:
  CpuUser();
  ~CpuUser();
  CpuUser(const CpuUser&) = delete;
  CpuUser& operator=(const CpuUser&) = delete;
};

}  // namespace match
