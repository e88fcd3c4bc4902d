/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CPU backends' team-size policy (kernels/threads.h, issue 32): the
 * default divides the cores among the CPU matchers alive in the process,
 * an explicit count passes through, and every CPU matcher (block matching,
 * POC, stereo) counts while it lives; TeamTuner on modelled frame times
 * (nothing is timed here).
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "match/blockmatch.h"
#include "match/poc.h"
#include "match/stereo.h"
#include "threads.h"

namespace {

TEST(TeamSize, DividesTheCoresAmongTheUsers) {
  /* 2 cores (the dev machine): 1 pipeline gets both, 4 or 16 get one each. */
  EXPECT_EQ(match::team_size(0, 2, 1), 2);
  EXPECT_EQ(match::team_size(0, 2, 2), 1);
  EXPECT_EQ(match::team_size(0, 2, 4), 1);
  EXPECT_EQ(match::team_size(0, 2, 16), 1);
  /* 16 cores: floor(C / N), never below 1. */
  EXPECT_EQ(match::team_size(0, 16, 1), 16);
  EXPECT_EQ(match::team_size(0, 16, 2), 8);
  EXPECT_EQ(match::team_size(0, 16, 3), 5);
  EXPECT_EQ(match::team_size(0, 16, 4), 4);
  EXPECT_EQ(match::team_size(0, 16, 15), 1);
  EXPECT_EQ(match::team_size(0, 16, 17), 1);
  EXPECT_EQ(match::team_size(0, 16, 1000), 1);
  /* No user yet (a caller outside a matcher): all the cores. */
  EXPECT_EQ(match::team_size(0, 16, 0), 16);
  /* Degenerate core counts. */
  EXPECT_EQ(match::team_size(0, 0, 3), 1);
  EXPECT_EQ(match::team_size(0, -4, 0), 1);
}

TEST(TeamSize, ExplicitCountsPassThrough) {
  EXPECT_EQ(match::team_size(1, 16, 1), 1);
  EXPECT_EQ(match::team_size(3, 2, 16), 3);
  EXPECT_EQ(match::team_size(7, 16, 1), 7);
  EXPECT_EQ(match::team_size(256, 2, 1000), 256);
  EXPECT_EQ(match::cpu_team(5), 5);
  EXPECT_EQ(match::cpu_team(1), 1);
}

TEST(TeamSize, CpuUsersAreCounted) {
  const int base = match::cpu_users();
  {
    match::CpuUser a, b, c;
    EXPECT_EQ(match::cpu_users(), base + 3);
    EXPECT_EQ(match::cpu_team(0),
              match::team_size(0, match::available_cores(), base + 3));
    {
      std::vector<std::unique_ptr<match::CpuUser>> more;
      for (int i = 0; i < 13; ++i) more.emplace_back(new match::CpuUser);
      EXPECT_EQ(match::cpu_users(), base + 16);
      EXPECT_EQ(match::cpu_team(0),
                match::team_size(0, match::available_cores(), base + 16));
    }
    EXPECT_EQ(match::cpu_users(), base + 3);
  }
  EXPECT_EQ(match::cpu_users(), base);
  EXPECT_GE(match::cpu_team(0), 1);
  EXPECT_GE(match::available_cores(), 1);
}

/* Every CPU matcher registers while it lives, so that N pipelines in one
 * process share the cores. */
TEST(TeamSize, CpuMatchersRegister) {
  const int base = match::cpu_users();
  std::unique_ptr<match::BlockMatcher> bm;
  match::BlockMatchConfig bc;
  bc.width = 64;
  bc.height = 48;
  ASSERT_TRUE(match::BlockMatcher::create(match::Backend::kCpu, bc, &bm).is_ok());
  EXPECT_EQ(match::cpu_users(), base + 1);

  std::unique_ptr<match::PocMatcher> pm;
  match::PocConfig pc;
  pc.width = 128;
  pc.height = 96;
  ASSERT_TRUE(match::PocMatcher::create(match::Backend::kCpu, pc, &pm).is_ok());
  EXPECT_EQ(match::cpu_users(), base + 2);

  std::unique_ptr<match::StereoMatcher> sm;
  match::StereoConfig sc;
  sc.width = 96;
  sc.height = 64;
  sc.num_disparities = 16;
  ASSERT_TRUE(match::StereoMatcher::create(match::Backend::kCpu, sc, &sm).is_ok());
  EXPECT_EQ(match::cpu_users(), base + 3);
  EXPECT_EQ(match::cpu_team(0), match::team_size(0, match::available_cores(), base + 3));

  bm.reset();
  EXPECT_EQ(match::cpu_users(), base + 2);
  pm.reset();
  sm.reset();
  EXPECT_EQ(match::cpu_users(), base);
}

/* A CPU matcher reports the team its last frame ran with (team()), for
 * the change stage that runs after it: 0 before a frame, an explicit
 * count as asked, the default's between 1 and the share. */
TEST(TeamSize, CpuMatchersReportTheirTeam) {
  std::unique_ptr<match::BlockMatcher> bm;
  match::BlockMatchConfig bc;
  bc.width = 64;
  bc.height = 48;
  ASSERT_TRUE(match::BlockMatcher::create(match::Backend::kCpu, bc, &bm).is_ok());
  std::unique_ptr<match::PocMatcher> pm;
  match::PocConfig pc;
  pc.width = 128;
  pc.height = 96;
  ASSERT_TRUE(match::PocMatcher::create(match::Backend::kCpu, pc, &pm).is_ok());
  EXPECT_EQ(bm->team(), 0);
  EXPECT_EQ(pm->team(), 0);
  std::vector<uint8_t> pixels(128 * 96, 100);
  const match::ImageView small{pixels.data(), 64, 48, 64};
  const match::ImageView large{pixels.data(), 128, 96, 128};
  std::vector<match::BlockVector> bv(bc.num_blocks());
  std::vector<match::PocVector> pv(pc.num_blocks());
  for (int threads : {3, 0}) {
    match::BlockMatchRuntime brt;
    brt.threads = threads;
    match::PocRuntime prt;
    prt.threads = threads;
    ASSERT_TRUE(bm->process(small, brt, bv.data(), nullptr).is_ok());
    ASSERT_TRUE(pm->process(large, prt, pv.data(), nullptr).is_ok());
    if (threads > 0) {
      EXPECT_EQ(bm->team(), threads);
      EXPECT_EQ(pm->team(), threads);
    } else {
      EXPECT_GE(bm->team(), 1);
      EXPECT_LE(bm->team(), match::cpu_team(0));
      EXPECT_GE(pm->team(), 1);
      EXPECT_LE(pm->team(), match::cpu_team(0));
    }
  }
}

/* TeamTuner against modelled frame times: seconds(team) per frame. Runs
 * `frames` frames and returns the teams used. */
template <typename Model>
std::vector<int> run_tuner(match::TeamTuner* t, int share, int frames, Model seconds) {
  std::vector<int> teams;
  for (int i = 0; i < frames; ++i) {
    const int team = t->next(0, share);
    teams.push_back(team);
    t->record(seconds(team));
  }
  return teams;
}

TEST(TeamTuner, ExplicitAndSingleTeamsAreNotTuned) {
  match::TeamTuner t;
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(t.next(3, 16), 3);
    t.record(i % 2 ? 1.0 : 0.001);
  }
  for (int i = 0; i < 2000; ++i) {
    EXPECT_EQ(t.next(0, 1), 1);
    t.record(1.0);
  }
}

TEST(TeamTuner, KeepsTheShareWhenItIsFastest) {
  match::TeamTuner t;
  /* 2 cores, free: two threads take 1 ms, one 1.6 ms. */
  const auto teams =
      run_tuner(&t, 2, 30000, [](int team) { return team == 2 ? 1e-3 : 1.6e-3; });
  EXPECT_EQ(t.settled(), 2);
  /* The first probe comes after kMinWait (0.1 s, ~100 frames); it ends
   * lost after 1 untimed + 5 timed frames (5 x 1.6 >= 0.9 x 8 x 1 ms);
   * the next after max(0.2, 50 x 9.6 ms) = 0.48 s, then 0.96 s, 1.92 s... */
  for (int i = 0; i < 99; ++i) EXPECT_EQ(teams[i], 2) << i;
  size_t first = std::find(teams.begin(), teams.end(), 1) - teams.begin();
  EXPECT_LE(first, 101u);
  for (size_t i = first; i < first + 6; ++i) EXPECT_EQ(teams[i], 1) << i;
  for (size_t i = first + 6; i < first + 6 + 470; ++i) EXPECT_EQ(teams[i], 2) << i;
  /* Few frames in all: 7 probes of 6 frames in 30 s (the waits 0.1, 0.48,
   * 0.96, 1.92, 3.84, 7.68 and 10 s). */
  const long ones = std::count(teams.begin(), teams.end(), 1);
  EXPECT_EQ(ones, 6 * 7);
}

TEST(TeamTuner, DropsToOneThreadUnderLoadAndComesBack) {
  match::TeamTuner t;
  /* Other jobs hold the cores: two threads wait for each other (20 ms),
   * one thread does not (3 ms). The probe down after kWindow frames takes
   * 1 + max(8 frames, 50 ms) = 18 frames and wins. */
  auto loaded = [](int team) { return team == 2 ? 20e-3 : 3e-3; };
  auto teams = run_tuner(&t, 2, 8 + 18, loaded);
  EXPECT_EQ(t.settled(), 1);
  EXPECT_EQ(std::count(teams.begin(), teams.end(), 1), 18);
  /* The probe up after 0.1 s: 20 ms < 0.9 x 8 x 3 ms, then 40 ms >= it:
   * lost after 3 frames; the next one max(0.2, 50 x 60 ms) = 3 s later. */
  teams = run_tuner(&t, 2, 900, loaded);
  EXPECT_EQ(t.settled(), 1);
  EXPECT_EQ(std::count(teams.begin(), teams.end(), 2), 3);
  /* The jobs end: the next probe up finds two threads faster again. */
  teams = run_tuner(&t, 2, 3000, [](int team) { return team == 2 ? 1e-3 : 1.6e-3; });
  EXPECT_EQ(t.settled(), 2);
}

/* A team that is fast most of the time but stalls now and then (a time
 * slice of another job) is judged by its mean over the whole stretch. */
TEST(TeamTuner, CountsRareStalls) {
  match::TeamTuner t;
  /* Two threads: 0.07 ms, but every 20th frame at two threads 20 ms (mean
   * 1.07 ms); one thread 0.11 ms. */
  long n2 = 0;
  auto model = [&n2](int team) {
    if (team == 1) return 0.11e-3;
    return ++n2 % 20 == 0 ? 20e-3 : 0.07e-3;
  };
  const auto teams = run_tuner(&t, 2, 200000, model);
  EXPECT_EQ(t.settled(), 1);
  /* Most frames at one thread. */
  EXPECT_LT(std::count(teams.begin(), teams.end(), 2), 200000 / 20);
}

TEST(TeamTuner, HalvesStepByStepWithinTheShare) {
  match::TeamTuner t;
  /* 16 cores, 4 of them free: 4 threads is best; more wait, fewer are
   * slower. */
  auto model = [](int team) { return team > 4 ? 0.01 * team / 4.0 : 0.01 * 4.0 / team; };
  const auto teams = run_tuner(&t, 16, 3000, model);
  for (int team : teams) EXPECT_TRUE(team == 16 || team == 8 || team == 4 || team == 2);
  EXPECT_EQ(t.settled(), 4);
  /* Differences under 10% do not move it. */
  match::TeamTuner u;
  run_tuner(&u, 8, 30000, [](int team) { return team == 8 ? 1.0e-3 : 0.95e-3; });
  EXPECT_EQ(u.settled(), 8);
  /* A new share starts from the share. */
  EXPECT_EQ(t.next(0, 6), 6);
  EXPECT_EQ(t.settled(), 6);
}

TEST(TeamTuner, AStallingProbeEndsAfterOneTimedFrame) {
  match::TeamTuner t;
  run_tuner(&t, 2, 400, [](int team) { return team == 2 ? 1e-3 : 0.5e-3; });
  ASSERT_EQ(t.settled(), 1);
  /* Two threads stall (100 ms a frame), one takes 1 ms: probes of 2 frames
   * (the untimed one and one timed), then max(0.2, 50 x 0.2 s) -> kMaxWait
   * (10 s) in between: 4 probes in 40 s. */
  const auto teams =
      run_tuner(&t, 2, 40000, [](int team) { return team == 2 ? 0.1 : 1e-3; });
  const long twos = std::count(teams.begin(), teams.end(), 2);
  EXPECT_GE(twos, 2 * 3);
  EXPECT_LE(twos, 2 * 5);
  for (size_t i = 0; i + 2 < teams.size(); ++i)
    EXPECT_FALSE(teams[i] == 2 && teams[i + 1] == 2 && teams[i + 2] == 2) << i;
  EXPECT_EQ(t.settled(), 1);
}

}  // namespace
