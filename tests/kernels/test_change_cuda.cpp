/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The change stage's GPU version (kernels/cuda/change_cuda.cu) equal to the
 * reference, bit for bit, on random frames of odd sizes with padded
 * strides, still and moving cameras, boxes inside, across and outside the
 * frame; frames from host memory and, where the test links the CUDA
 * runtime, from device memory. Skips without a CUDA device.
 */
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <vector>

#ifdef MATCH_TEST_CUDART
#include <cuda_runtime_api.h>
#endif

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

void expect_equal(const ChangeResult& a, const ChangeResult& b, const char* what) {
  ASSERT_EQ(a.offset, b.offset) << what;
  ASSERT_EQ(a.noise, b.noise) << what;
  ASSERT_EQ(a.threshold, b.threshold) << what;
  ASSERT_EQ(a.counts, b.counts) << what;
  ASSERT_EQ(a.boxes.size(), b.boxes.size()) << what;
  for (size_t k = 0; k < a.boxes.size(); ++k) {
    ASSERT_EQ(a.boxes[k].x0, b.boxes[k].x0) << what;
    ASSERT_EQ(a.boxes[k].y0, b.boxes[k].y0) << what;
    ASSERT_EQ(a.boxes[k].cols, b.boxes[k].cols) << what;
    ASSERT_EQ(a.boxes[k].rows, b.boxes[k].rows) << what;
    ASSERT_EQ(a.boxes[k].offset, b.boxes[k].offset) << what;
  }
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
  const int sizes[][2] = {{1, 1}, {7, 5}, {33, 17}, {161, 97}, {320, 241}, {1921, 1081}};
  for (const auto& sz : sizes)
    for (int scale = 1; scale <= 4; ++scale) {
      ChangeConfig c;
      c.width = sz[0];
      c.height = sz[1];
      c.scale = scale;
      c.history = 3;
      auto ref = match::make_change_ref(c);
      std::unique_ptr<ChangeDetector> gpu;
      ASSERT_TRUE(ChangeDetector::create(match::Backend::kCuda, c, &gpu));
      for (int f = 0; f < 6; ++f) {
        const Frame fr = textured(c.width, c.height, (int)(rng() % 9), f, rng);
        ASSERT_TRUE(ref->push(fr.view(), 10 + f, 1));
#ifdef MATCH_TEST_CUDART
        if (f % 2) {
          DeviceCopy dev(fr);
          ASSERT_TRUE(gpu->push_device(dev.view(fr), 10 + f));
        } else
#endif
          ASSERT_TRUE(gpu->push(fr.view(), 10 + f, 0));
        if (f < 2) continue;
        ChangeRequest r;
        r.frame = 10 + f - 1; /* one frame pushed ahead */
        if (f % 2) {
          for (int k = 0; k < 6; ++k) r.motion[k] = (int64_t)(rng() % 400001) - 200000;
          for (int k : {1, 2, 4, 5}) r.motion[k] /= 64;
        }
        r.min_threshold = (int)(rng() % 20);
        std::vector<ChangeBox> boxes;
        for (int k = 0; k < 5; ++k)
          boxes.push_back(ChangeBox{
              (int)(rng() % (c.width + 8)) - 4, (int)(rng() % (c.height + 8)) - 4,
              (int)(rng() % (c.width + 1)), (int)(rng() % (c.height + 1))});
        r.boxes = boxes.data();
        r.n_boxes = f == 3 ? 0 : (int)boxes.size();
        ChangeResult a, b;
        ASSERT_TRUE(ref->analyse(r, &a, 1));
        ASSERT_TRUE(gpu->analyse(r, &b, 0));
        char what[96];
        std::snprintf(what, sizeof what, "%dx%d scale %d frame %d", c.width, c.height,
                      scale, f);
        expect_equal(a, b, what);
      }
      /* Frame 9 was never pushed. */
      ChangeRequest r;
      r.frame = 10;
      ChangeResult out;
      EXPECT_FALSE(gpu->analyse(r, &out, 0));
    }
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
