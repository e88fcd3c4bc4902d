/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage's GPU version (kernels/cuda/change_cuda.cu) equal to the
 * reference, bit for bit, on random frames of odd sizes with padded
 * strides, still and moving cameras, against the previous frame or an
 * older one, boxes inside, across and outside the frame; frames from host memory and, where the test links the CUDA
 * runtime, from device memory. Skips without a CUDA device.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#ifdef MATCH_TEST_CUDART
#include <cuda_runtime_api.h>
#endif

#include "../common/change_testutil.h"
#include "../common/frame.h"
#include "match/change.h"

namespace {

using match::ChangeBox;
using match::ChangeConfig;
using match::ChangeDetector;
using match::ChangeRequest;
using match::ChangeResult;

/* Smooth texture (frame k moves it by k, k / 2) with fine noise, so that
 * still and moved parts, medians and thresholds all vary. */
Frame textured(int w, int h, int pad, int k, std::mt19937& rng) {
  Frame f = make_noise_frame(w, h, w + pad, rng());
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      f.at(x, y) = (uint8_t)(((x + k) * 7 + (y + k / 2) * 3) % 160 + rng() % 24 +
                             (x > w / 2 && y > h / 2 ? 40 : 0));
  return f;
}

#ifdef MATCH_TEST_CUDART
/* A frame in pitched device memory, as a GPU decoder's pool holds it. */
struct DeviceCopy {
  void* p = nullptr;
  size_t pitch = 0;
  explicit DeviceCopy(const Frame& f) {
    EXPECT_EQ(cudaMallocPitch(&p, &pitch, f.w, f.h), cudaSuccess);
    EXPECT_EQ(
        cudaMemcpy2D(p, pitch, f.data.data(), f.stride, f.w, f.h, cudaMemcpyHostToDevice),
        cudaSuccess);
    /* From pageable memory cudaMemcpy2D may return before the copy lands
     * (CUDA runtime API, "API synchronization behavior"), and the stage's
     * streams do not wait for the default one: push_device () takes a
     * frame that is written (as the element's collected frames are). */
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  }
  ~DeviceCopy() { cudaFree(p); }
  match::DeviceImageView view(const Frame& f) const {
    match::DeviceImageView v;
    v.data = static_cast<const uint8_t*>(p);
    v.width = f.w;
    v.height = f.h;
    v.pitch_bytes = (std::ptrdiff_t)pitch;
    v.device = 0;
    return v;
  }
};
#endif

TEST(ChangeCuda, EqualsReference) {
  if (match::cuda_device_count() <= 0)
    GTEST_SKIP() << "no CUDA device: CUDA test skipped";
  std::mt19937 rng(5);
  int gained = 0; /* analyses that took a gain */
  /* 2111 x 23 at scale 1: boxes wider than the project kernel's shared
   * columns. */
  const int sizes[][2] = {{1, 1},     {7, 5},       {33, 17},  {161, 97},
                          {320, 241}, {1921, 1081}, {2111, 23}};
  for (const auto& sz : sizes)
    for (int scale = 1; scale <= 4; ++scale) {
      ChangeConfig c;
      c.width = sz[0];
      c.height = sz[1];
      c.scale = scale;
      c.history = 6;
      c.background_every = scale % 3; /* 0 (none) to 2 */
      auto ref = match::make_change_ref(c);
      std::unique_ptr<ChangeDetector> gpu;
      ASSERT_TRUE(ChangeDetector::create(match::Backend::kCuda, c, &gpu));
      for (int f = 0; f < 9; ++f) {
        Frame fr = textured(c.width, c.height, (int)(rng() % 9), f, rng);
        changetest::apply_gain(&fr.data, f);
        if (f == 5) { /* the camera moved */
          ref->restart_background();
          gpu->restart_background();
        }
        ASSERT_TRUE(ref->push(fr.view(), 10 + f, 1));
#ifdef MATCH_TEST_CUDART
        if (f % 2) {
          DeviceCopy dev(fr);
          ASSERT_TRUE(gpu->push_device(dev.view(fr), 10 + f));
        } else
#endif
          ASSERT_TRUE(gpu->push(fr.view(), 10 + f, 0));
        if (f < 2) continue;
        const changetest::SceneStep step = changetest::random_scene_step(rng, f == 2);
        ASSERT_TRUE(ref->scene(10 + f, step.motion, step.set, 1));
        ASSERT_TRUE(gpu->scene(10 + f, step.motion, step.set, 0));
        std::vector<ChangeBox> boxes;
        std::vector<match::ChangeTile> tiles;
        /* One frame pushed ahead, against the previous frame or one up to
         * 4 further back; frame 3 asks for no box. */
        const uint32_t age = 1 + (uint32_t)(rng() % std::min(f - 1, 4));
        const ChangeRequest r = changetest::using_scene(
            rng, changetest::using_background(
                     rng, c,
                     changetest::random_request(rng, c, 10 + f - 1, f % 2, f == 3 ? 0 : 5,
                                                &boxes, age, &tiles)));
        ChangeResult a, b;
        ASSERT_TRUE(ref->analyse(r, &a, 1));
        ASSERT_TRUE(gpu->analyse(r, &b, 0));
        gained += a.gain != 256;
        changetest::expect_same_result(
            a, b,
            std::to_string(c.width) + "x" + std::to_string(c.height) + " scale " +
                std::to_string(scale) + " frame " + std::to_string(f) + " age " +
                std::to_string(age));
        std::vector<ChangeBox> more_a, more_b;
        for (const ChangeRequest& again :
             changetest::repeat_requests(rng, c, r, &more_a, &more_b)) {
          ASSERT_TRUE(ref->analyse(again, &a, 1));
          ASSERT_TRUE(gpu->analyse(again, &b, 0));
          changetest::expect_same_result(a, b, "asked again");
        }
      }
      /* Frame 9 was never pushed; frame 12 is no longer kept. */
      ChangeRequest r;
      r.frame = 10;
      ChangeResult out;
      EXPECT_FALSE(gpu->analyse(r, &out, 0));
      r.frame = 18;
      r.age = 6;
      EXPECT_FALSE(gpu->analyse(r, &out, 0));
      r.age = 0;
      EXPECT_FALSE(gpu->analyse(r, &out, 0));
    }
  EXPECT_GT(gained, 10);
}

/* prefetch (): a tiles request started ahead, then other requests (boxes,
 * another age), then the prefetched one: equal to the reference; after a
 * push it is computed anew; boxes or a tile list cannot be prefetched. */
TEST(ChangeCuda, PrefetchEqualsReference) {
  if (match::cuda_device_count() <= 0)
    GTEST_SKIP() << "no CUDA device: CUDA test skipped";
  std::mt19937 rng(9);
  ChangeConfig c;
  c.width = 333;
  c.height = 251;
  c.scale = 2;
  c.history = 8;
  auto ref = match::make_change_ref(c);
  std::unique_ptr<ChangeDetector> gpu;
  ASSERT_TRUE(ChangeDetector::create(match::Backend::kCuda, c, &gpu));
  for (int f = 0; f < 8; ++f) {
    const Frame fr = textured(c.width, c.height, 3, f, rng);
    ASSERT_TRUE(ref->push(fr.view(), (uint64_t)f, 1));
    ASSERT_TRUE(gpu->push(fr.view(), (uint64_t)f, 0));
    if (f < 5) continue;
    ChangeRequest slow;
    slow.frame = (uint64_t)f;
    slow.age = 4;
    slow.tile_width = 16;
    slow.tile_height = 12;
    ASSERT_TRUE(gpu->prefetch(slow));
    std::vector<ChangeBox> boxes;
    const ChangeRequest other =
        changetest::random_request(rng, c, (uint64_t)f, f % 2, 6, &boxes);
    ChangeResult a, b;
    ASSERT_TRUE(ref->analyse(other, &a, 1));
    ASSERT_TRUE(gpu->analyse(other, &b, 0));
    changetest::expect_same_result(a, b, "between");
    ASSERT_TRUE(ref->analyse(slow, &a, 1));
    ASSERT_TRUE(gpu->analyse(slow, &b, 0));
    changetest::expect_same_result(a, b, "prefetched, frame " + std::to_string(f));
    ASSERT_TRUE(gpu->analyse(slow, &b, 0)); /* again: computed */
    changetest::expect_same_result(a, b, "asked again");
  }
  /* Prefetched, then a push: the frames it compared may be gone. */
  ChangeRequest slow;
  slow.frame = 7;
  slow.age = 6;
  slow.tile_width = slow.tile_height = 8;
  ASSERT_TRUE(gpu->prefetch(slow));
  const Frame fr = textured(c.width, c.height, 3, 8, rng);
  ASSERT_TRUE(ref->push(fr.view(), 8, 1));
  ASSERT_TRUE(gpu->push(fr.view(), 8, 0));
  ChangeResult a, b;
  ASSERT_TRUE(ref->analyse(slow, &a, 1));
  ASSERT_TRUE(gpu->analyse(slow, &b, 0));
  changetest::expect_same_result(a, b, "after a push");
  ChangeBox box;
  box.w = box.h = 4;
  slow.boxes = &box;
  slow.n_boxes = 1;
  EXPECT_EQ(gpu->prefetch(slow).code(), match::StatusCode::kUnsupported);
  slow.age = 20; /* not kept: the analysis says so */
  slow.boxes = nullptr;
  slow.n_boxes = 0;
  EXPECT_FALSE(gpu->prefetch(slow));
  EXPECT_FALSE(gpu->analyse(slow, &b, 0));
}

TEST(ChangeCuda, CreateWithoutDevice) {
  ChangeConfig c;
  c.width = 8;
  c.height = 8;
  std::unique_ptr<ChangeDetector> gpu;
  const match::Status st = ChangeDetector::create(match::Backend::kCuda, c, &gpu, 99);
  EXPECT_FALSE(st);
  EXPECT_EQ(st.code(), match::StatusCode::kUnavailable);
}

}  // namespace
