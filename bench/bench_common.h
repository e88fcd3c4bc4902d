/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Frame loading shared by the benchmarks: the raw GRAY8 files written by
 * bench/prepare-frames.sh, or synthetic textured frames when they are
 * missing. Header-only so each bench program stays one translation unit.
 */
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace bench {

/* A short clip of consecutive GRAY8 frames, packed (stride = width). */
struct Clip {
  int width = 0;
  int height = 0;
  int count = 0;
  bool real = false; /* decoded video (true) or synthetic texture */
  std::vector<uint8_t> pixels;

  const uint8_t* frame(int i) const {
    return pixels.data() + static_cast<size_t>(i) * width * height;
  }
  /* Frame i of an endless ping-pong walk 0, 1, .., n-1, n-2, .., 1, 0, 1..
   * so every two successive frames are neighbours in the video. */
  const uint8_t* walk(int i) const {
    if (count < 2) return frame(0);
    const int period = 2 * (count - 1);
    int k = i % period;
    if (k >= count) k = period - k;
    return frame(k);
  }
};

inline std::string default_frames_dir() {
  if (const char* d = std::getenv("MATCH_BENCH_FRAMES")) return d;
  const char* tmp = std::getenv("TMPDIR");
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/gst-motion-bench-frames";
}

inline std::string clip_path(const std::string& dir, int w, int h) {
  return dir + "/vtest_" + std::to_string(w) + "x" + std::to_string(h) + ".gray";
}

/* Synthetic fallback: a smooth random texture with fine noise, moving by
 * (+2, +1) pixels per frame, plus per-frame sensor noise. */
inline void make_synthetic(Clip* c, int frames) {
  const int w = c->width, h = c->height;
  const int margin = 2 * frames + 8;
  const int tw = w + margin, th = h + margin;
  std::vector<uint8_t> tex(static_cast<size_t>(tw) * th);
  uint32_t seed = 12345u;
  auto rnd = [&seed]() {
    seed = seed * 1664525u + 1013904223u;
    return seed >> 8;
  };
  for (int y = 0; y < th; ++y)
    for (int x = 0; x < tw; ++x) {
      const double v = 128 + 50 * std::sin(x * 0.07 + 0.5 * std::sin(y * 0.05)) *
                                 std::cos(y * 0.045 + 0.3 * std::sin(x * 0.02)) +
                       25 * std::sin((x + y) * 0.23) + (rnd() % 41) - 20.0;
      tex[static_cast<size_t>(y) * tw + x] =
          static_cast<uint8_t>(std::lround(std::fmin(255.0, std::fmax(0.0, v))));
    }
  c->count = frames;
  c->real = false;
  c->pixels.resize(static_cast<size_t>(w) * h * frames);
  for (int t = 0; t < frames; ++t) {
    uint8_t* dst = c->pixels.data() + static_cast<size_t>(t) * w * h;
    for (int y = 0; y < h; ++y)
      for (int x = 0; x < w; ++x) {
        const int v = tex[static_cast<size_t>(y + margin - t) * tw + x + margin - 2 * t] +
                      static_cast<int>(rnd() % 5) - 2;
        dst[static_cast<size_t>(y) * w + x] = static_cast<uint8_t>(v < 0 ? 0 : v > 255 ? 255 : v);
      }
  }
}

/* Loads dir/vtest_WxH.gray (all whole frames in it); falls back to
 * `synthetic_frames` synthetic frames when it is missing or too short. */
inline Clip load_clip(const std::string& dir, int w, int h, int synthetic_frames) {
  Clip c;
  c.width = w;
  c.height = h;
  const size_t frame_bytes = static_cast<size_t>(w) * h;
  if (FILE* f = std::fopen(clip_path(dir, w, h).c_str(), "rb")) {
    std::vector<uint8_t> buf;
    uint8_t tmp[1 << 16];
    size_t n;
    while ((n = std::fread(tmp, 1, sizeof tmp, f)) > 0) buf.insert(buf.end(), tmp, tmp + n);
    std::fclose(f);
    const int frames = static_cast<int>(buf.size() / frame_bytes);
    if (frames >= 2) {
      buf.resize(frames * frame_bytes);
      c.pixels.swap(buf);
      c.count = frames;
      c.real = true;
      return c;
    }
  }
  make_synthetic(&c, synthetic_frames);
  return c;
}

}  // namespace bench
