/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The matchers' collected_frame() (match/blockmatch.h, match/poc.h) on the
 * GPU, for any matcher class: after each collect() it is the frame just
 * collected, pixel for pixel, at every pipeline depth; it is gone once a
 * submit() reuses its slot, after reset() and on a device the matcher does
 * not use. Needs the CUDA runtime (MATCH_TEST_CUDART) and device 0.
 */
#pragma once

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "frame.h"
#include "match/image.h"

namespace collectedtest {

/* The device view's pixels equal `f`'s. */
inline void expect_frame(const match::DeviceImageView& v, const Frame& f,
                         const std::string& what) {
  ASSERT_EQ(v.device, 0) << what;
  ASSERT_EQ(v.width, f.w) << what;
  ASSERT_EQ(v.height, f.h) << what;
  ASSERT_GE(v.pitch_bytes, f.w) << what;
  std::vector<uint8_t> got((size_t)f.w * f.h);
  ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
  ASSERT_EQ(cudaMemcpy2D(got.data(), f.w, v.data, v.pitch_bytes, f.w, f.h,
                         cudaMemcpyDeviceToHost),
            cudaSuccess)
      << what;
  int wrong = 0;
  for (int y = 0; y < f.h; ++y)
    for (int x = 0; x < f.w; ++x) wrong += got[(size_t)y * f.w + x] != f.at(x, y);
  EXPECT_EQ(wrong, 0) << what;
}

/* `m` (CUDA, device 0) over `seq` (at least 3 frames) with `n_vectors`
 * vectors of type Vector per frame and runtime `rt`. */
template <typename Vector, typename Matcher, typename Runtime>
void check(Matcher* m, const std::vector<Frame>& seq, int n_vectors, const Runtime& rt) {
  std::vector<Vector> out(n_vectors);
  match::DeviceImageView v;
  const int max = m->max_in_flight();
  for (int depth : {0, 2, max - 1}) {
    m->reset();
    EXPECT_FALSE(m->collected_frame(0, &v)) << "after reset";
    size_t collected = 0;
    auto collect_one = [&]() {
      bool est = false;
      ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
      const std::string what =
          "depth " + std::to_string(depth) + " frame " + std::to_string(collected);
      ASSERT_TRUE(m->collected_frame(0, &v)) << what;
      expect_frame(v, seq[collected], what);
      EXPECT_FALSE(m->collected_frame(1000, &v)) << what << ": another device";
      ++collected;
    };
    for (size_t i = 0; i < seq.size(); ++i) {
      ASSERT_TRUE(m->submit(seq[i].view(), rt).is_ok());
      while (m->in_flight() > depth) collect_one();
    }
    while (m->in_flight() > 0) collect_one();
    EXPECT_EQ(collected, seq.size());
  }
  /* A full ring: the frame collected first stays until the next submit()
   * takes its slot. */
  m->reset();
  for (int i = 0; i < max; ++i)
    ASSERT_TRUE(m->submit(seq[i % seq.size()].view(), rt).is_ok());
  bool est = false;
  ASSERT_TRUE(m->collect(out.data(), &est).is_ok());
  ASSERT_TRUE(m->collected_frame(0, &v));
  expect_frame(v, seq[0], "full ring");
  ASSERT_TRUE(m->submit(seq[1].view(), rt).is_ok());
  EXPECT_FALSE(m->collected_frame(0, &v)) << "its slot reused";
  m->reset();
  EXPECT_FALSE(m->collected_frame(0, &v)) << "after reset";
}

}  // namespace collectedtest
