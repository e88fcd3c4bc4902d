/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The CPU backends' team-size policy (kernels/threads.h, issue 32): the
 * default divides the cores among the CPU matchers alive in the process,
 * an explicit count passes through, and every CPU matcher (block matching,
 * POC, stereo) counts while it lives. No timings.
 */
#include <gtest/gtest.h>

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

}  // namespace
