/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Helpers shared by the gst-check suites: test data paths, image loading
 * (PGM directly, anything else through a GStreamer decode pipeline),
 * synthetic textures and buffers with chosen strides.
 */
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <gst/gst.h>
#include <gst/video/video.h>

struct TestImage {
  int width = 0;
  int height = 0;
  std::vector<uint8_t> pixels; /* row-major, stride = width */
  bool empty() const { return pixels.empty(); }
  uint8_t at(int x, int y) const { return pixels[(size_t)y * width + x]; }
};

/* $MATCH_TEST_DATA/rel when that file exists, else "" (tests then skip). */
std::string test_data_path(const char *rel);
/* $GST_TEST_FILES_PATH/name (tests/files, always present). */
std::string test_files_path(const char *name);

/* Binary PGM (P5, maxval 255). */
bool test_load_pgm(const std::string &path, TestImage *out);
/* Any image GStreamer decodes (PNG...), converted to GRAY8 luma. */
bool test_load_gray(const std::string &path, TestImage *out);

/* Middlebury .flo: u, v interleaved. Unknown flow has |u| > 1e9. */
bool test_read_flo(const std::string &path, int *w, int *h, std::vector<float> *uv);

/* Smooth random texture (sum of blurred noise), deterministic per seed. */
TestImage test_texture(int width, int height, unsigned seed);
/* img shifted by integer (sx, sy) with clamp-to-edge:
 * out(x, y) = img(clamp(x - sx), clamp(y - sy)), so content moves by +s. */
TestImage test_shift(const TestImage &img, int sx, int sy);

/* A GstBuffer holding `img` as GRAY8 with the given row stride (>= width),
 * with a GstVideoMeta so the stride is honoured, and PTS = pts. */
GstBuffer *test_gray_buffer(const TestImage &img, int stride, GstClockTime pts);
/* A buffer in any supported `format` whose luma (Y, or RGB grey) equals
 * img exactly: for YUV the Y plane is img and chroma is 128; for RGB
 * formats R = G = B = img. Default strides/offsets of GstVideoInfo. */
GstBuffer *test_format_buffer(const TestImage &img, GstVideoFormat format,
                              GstClockTime pts);
