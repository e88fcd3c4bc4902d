/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * How many OpenMP threads a CPU backend uses for a frame (issue 32: many
 * camera pipelines on one CPU box). Not installed.
 *
 * An explicit thread count (an element's n-threads = K > 0, a runtime's
 * threads = K) is used as given. The default (0) is found in two steps:
 * - the share: the cores divided among the CPU matchers alive in this
 *   process: with C cores (OpenMP's default team: OMP_NUM_THREADS, else the
 *   CPUs this process may run on) and N CPU matchers, max(1, C / N);
 * - within the share, each matcher's TeamTuner (below) keeps the team size
 *   whose frames take less wall time, against the load nobody counts here
 *   (other processes, other jobs).
 *
 * Why: every pipeline runs its frames in its own streaming thread, and each
 * such thread has its own OpenMP team. With "one thread per core" for each,
 * N pipelines ran N x C threads on C cores; idle team threads busy-wait
 * (libgomp, which the GCC build links, spins 300,000 times before it sleeps,
 * 100 once it counts more of its threads than CPUs; OMP_WAIT_POLICY and
 * GOMP_SPINCOUNT are read when the library loads, and libgomp has no call to
 * change them later, so the plugin cannot), and every fork, barrier and join
 * of a team waits for the member the scheduler has given the core to someone
 * else. Dividing the cores keeps the sum near C, and with C / N below 2 a
 * matcher runs its frames on its own streaming thread with no OpenMP team
 * at all (no waiting, nothing to spin). The count is of matchers alive
 * (created, not yet destroyed), not of those computing at the moment: the
 * team size then stays the same from frame to frame (libgomp ends and starts
 * pool threads whenever a thread's team size changes), and a matcher needs
 * one atomic load per frame, no lock. docs/many-cameras.md has the
 * measurements and what to set for one process per camera.
 */
#pragma once

#include <chrono>

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

/* Tunes the default team of one CPU matcher against load it cannot count:
 * other processes (one process per camera), other jobs. Between 1 and the
 * share (cpu_team(0)), it keeps the team size whose frames take less wall
 * time on average:
 * - settled: frames run at one size; after at least kWindow frames and
 *   `wait` seconds of them, a probe;
 * - probe: frames at the neighbouring size (half, or double up to the
 *   share; down from the share, up from 1, else alternately). Its first
 *   frame is not timed (a new team size starts or ends pool threads); then
 *   it takes at least kWindow frames and kProbeSeconds, and moves there
 *   when its mean is below 0.9 x the settled frames' mean. It ends lost as
 *   soon as it is losing and has cost 0.9 x kWindow settled frames, so a
 *   team that stalls costs two frames;
 * - `wait` is kMinWait after a move or a new share; a lost probe sets it to
 *   twice what it was and at least 50 x what the probe cost (kMaxWait at
 *   most): the probes then take about 2% of the time or less.
 * The means are over whole stretches of frames (tenths of a second at
 * least), not a few frames: a team that stalls does so in scheduler time
 * slices, a few frames in a hundred, and a short window would miss them.
 * Why: a team whose threads are descheduled waits at every fork, barrier
 * and join for a scheduler time slice (on the 2-core development machine
 * with other jobs running, 320x240 diamond search with the old default of
 * two threads ran at 40-400 frames/s and burnt 2.5-20 ms of CPU per frame,
 * where one thread takes ~0.1 ms), while one thread never waits for
 * another; when the cores are free again, the probes find the larger team.
 * Not thread-safe: one per matcher, used by the thread that runs its
 * frames. The results do not depend on the team size (every backend
 * guarantees that). */
class TeamTuner {
 public:
  static constexpr int kWindow = 8;
  static constexpr double kProbeSeconds = 0.05;
  static constexpr double kMinWait = 0.1;
  static constexpr double kMaxWait = 10.0;

  /* The team for the next frame: `requested` when > 0 (not tuned), else a
   * size between 1 and `share` (a new share starts again from it). */
  int next(int requested, int share);
  /* The wall time of the frame run with next()'s team, in seconds; frames
   * that do not represent the work (a first frame with nothing to match)
   * are not recorded. */
  void record(double seconds);
  /* record() for a frame that started at t0. */
  void record_since(std::chrono::steady_clock::time_point t0) {
    record(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  /* The size used between probes. */
  int settled() const { return settled_; }

 private:
  int share_ = 0;
  int settled_ = 1;
  int probe_ = 0;      /* > 0 while probing */
  int settled_n_ = 0;  /* frames at settled_ since the last probe */
  int probe_n_ = -1;   /* timed probe frames; -1 before the untimed one */
  bool tuned_ = false; /* the last next() was a default team above 1 */
  bool down_ = true;   /* the direction of the next probe */
  double settled_sum_ = 0;
  double probe_sum_ = 0;
  double probe_cost_ = 0; /* the probe's frames, the untimed one included */
  double wait_ = kMinWait;
};

}  // namespace match
