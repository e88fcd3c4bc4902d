/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "testutil.h"
#include "pgm.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

#include <gst/app/app.h>

std::string test_data_path(const char *rel) {
  const char *root = g_getenv("MATCH_TEST_DATA");
  if (!root || !*root) return "";
  std::string p = std::string(root) + "/" + rel;
  return g_file_test(p.c_str(), G_FILE_TEST_EXISTS) ? p : "";
}

std::string test_files_path(const char *name) {
  const char *root = g_getenv("GST_TEST_FILES_PATH");
  return std::string(root ? root : "tests/files") + "/" + name;
}

bool test_load_pgm(const std::string &path, TestImage *out) {
  return pgm_read(path, &out->width, &out->height, &out->pixels);
}

static bool load_gray_via_gst(const std::string &path, TestImage *out) {
  gchar *desc = g_strdup_printf(
      "filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! video/x-raw,format=GRAY8 ! appsink name=sink sync=false",
      path.c_str());
  GError *err = NULL;
  GstElement *pipe = gst_parse_launch(desc, &err);
  g_free(desc);
  if (!pipe) {
    g_clear_error(&err);
    return false;
  }
  GstElement *sink = gst_bin_get_by_name(GST_BIN(pipe), "sink");
  gst_element_set_state(pipe, GST_STATE_PLAYING);
  GstSample *sample = gst_app_sink_try_pull_sample(GST_APP_SINK(sink), 10 * GST_SECOND);
  bool ok = false;
  if (sample) {
    GstVideoInfo info;
    GstVideoFrame frame;
    if (gst_video_info_from_caps(&info, gst_sample_get_caps(sample)) &&
        gst_video_frame_map(&frame, &info, gst_sample_get_buffer(sample), GST_MAP_READ)) {
      out->width = GST_VIDEO_INFO_WIDTH(&info);
      out->height = GST_VIDEO_INFO_HEIGHT(&info);
      out->pixels.resize((size_t)out->width * out->height);
      for (int y = 0; y < out->height; ++y)
        memcpy(&out->pixels[(size_t)y * out->width],
               (const uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&frame, 0) +
                   (size_t)y * GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0),
               (size_t)out->width);
      gst_video_frame_unmap(&frame);
      ok = true;
    }
    gst_sample_unref(sample);
  }
  gst_element_set_state(pipe, GST_STATE_NULL);
  gst_object_unref(sink);
  gst_object_unref(pipe);
  return ok;
}

/* Binary PPM (P6, maxval 255; FlyingChairs' frames), no GStreamer decoder
 * being needed: Y = (77 R + 150 G + 29 B + 128) >> 8 (BT.601 weights, full
 * range). */
static bool load_ppm_gray(const std::string &path, TestImage *out) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f) return false;
  int w = 0, h = 0, maxval = 0;
  bool ok = fscanf(f, "P6 %d %d %d", &w, &h, &maxval) == 3 && w > 0 && h > 0 &&
            maxval == 255 && fgetc(f) != EOF;
  std::vector<uint8_t> rgb;
  if (ok) {
    rgb.resize((size_t)w * h * 3);
    ok = fread(rgb.data(), 1, rgb.size(), f) == rgb.size();
  }
  fclose(f);
  if (!ok) return false;
  out->width = w;
  out->height = h;
  out->pixels.resize((size_t)w * h);
  for (size_t i = 0; i < out->pixels.size(); ++i)
    out->pixels[i] =
        (uint8_t)((77 * rgb[3 * i] + 150 * rgb[3 * i + 1] + 29 * rgb[3 * i + 2] + 128) >>
                  8);
  return true;
}

bool test_load_gray(const std::string &path, TestImage *out) {
  if (g_str_has_suffix(path.c_str(), ".pgm")) return test_load_pgm(path, out);
  if (g_str_has_suffix(path.c_str(), ".ppm")) return load_ppm_gray(path, out);
  return load_gray_via_gst(path, out);
}

bool test_read_flo(const std::string &path, int *w, int *h, std::vector<float> *uv) {
  FILE *f = fopen(path.c_str(), "rb");
  if (!f) return false;
  float magic = 0;
  int32_t dims[2] = {0, 0};
  bool ok = fread(&magic, 4, 1, f) == 1 && magic == 202021.25f &&
            fread(dims, 4, 2, f) == 2 && dims[0] > 0 && dims[1] > 0;
  if (ok) {
    *w = dims[0];
    *h = dims[1];
    uv->resize((size_t)dims[0] * dims[1] * 2);
    ok = fread(uv->data(), 4, uv->size(), f) == uv->size();
  }
  fclose(f);
  return ok;
}

TestImage test_texture(int width, int height, unsigned seed) {
  /* Sum of three octaves of bilinearly upsampled noise: smooth enough for
   * sub-pixel matching to be meaningful, textured enough to be unique. */
  TestImage img;
  img.width = width;
  img.height = height;
  img.pixels.assign((size_t)width * height, 0);
  std::vector<float> acc((size_t)width * height, 0.f);
  std::mt19937 rng(seed);
  const int cells[] = {4, 8, 16};
  const float amp[] = {0.25f, 0.35f, 0.40f};
  for (int o = 0; o < 3; ++o) {
    const int c = cells[o];
    const int gw = width / c + 2, gh = height / c + 2;
    std::vector<float> g((size_t)gw * gh);
    for (auto &v : g) v = (float)(rng() & 0xff);
    for (int y = 0; y < height; ++y)
      for (int x = 0; x < width; ++x) {
        const float fx = (float)x / c, fy = (float)y / c;
        const int ix = (int)fx, iy = (int)fy;
        const float ax = fx - ix, ay = fy - iy;
        const float v =
            (1 - ax) * (1 - ay) * g[iy * gw + ix] + ax * (1 - ay) * g[iy * gw + ix + 1] +
            (1 - ax) * ay * g[(iy + 1) * gw + ix] + ax * ay * g[(iy + 1) * gw + ix + 1];
        acc[(size_t)y * width + x] += amp[o] * v;
      }
  }
  for (size_t i = 0; i < acc.size(); ++i)
    img.pixels[i] = (uint8_t)std::clamp((int)lrintf(acc[i]), 0, 255);
  return img;
}

TestImage test_shift(const TestImage &img, int sx, int sy) {
  TestImage out = img;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      out.pixels[(size_t)y * img.width + x] = img.at(
          std::clamp(x - sx, 0, img.width - 1), std::clamp(y - sy, 0, img.height - 1));
  return out;
}

GstBuffer *test_gray_buffer(const TestImage &img, int stride, GstClockTime pts) {
  const gsize size = (gsize)stride * img.height;
  GstBuffer *buf = gst_buffer_new_allocate(NULL, size, NULL);
  GstMapInfo map;
  gst_buffer_map(buf, &map, GST_MAP_WRITE);
  memset(map.data, 0xA5, size); /* garbage in the padding */
  for (int y = 0; y < img.height; ++y)
    memcpy(map.data + (gsize)y * stride, &img.pixels[(size_t)y * img.width], img.width);
  gst_buffer_unmap(buf, &map);
  gsize offset[GST_VIDEO_MAX_PLANES] = {0};
  gint strides[GST_VIDEO_MAX_PLANES] = {stride};
  gst_buffer_add_video_meta_full(buf, GST_VIDEO_FRAME_FLAG_NONE, GST_VIDEO_FORMAT_GRAY8,
                                 img.width, img.height, 1, offset, strides);
  GST_BUFFER_PTS(buf) = pts;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  return buf;
}

GstBuffer *test_format_buffer(const TestImage &img, GstVideoFormat format,
                              GstClockTime pts) {
  GstVideoInfo info;
  gst_video_info_set_format(&info, format, img.width, img.height);
  GstBuffer *buf = gst_buffer_new_allocate(NULL, info.size, NULL);
  GstVideoFrame frame;
  gst_video_frame_map(&frame, &info, buf, GST_MAP_WRITE);
  if (GST_VIDEO_INFO_IS_RGB(&info)) {
    const int ps = GST_VIDEO_FRAME_COMP_PSTRIDE(&frame, 0);
    uint8_t *base = (uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&frame, 0);
    const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, 0);
    for (int y = 0; y < img.height; ++y)
      for (int x = 0; x < img.width; ++x) {
        uint8_t *p = base + (gsize)y * stride + x * ps;
        for (int c = 0; c < ps; ++c) p[c] = img.at(x, y);
        if (GST_VIDEO_INFO_HAS_ALPHA(&info))
          p[GST_VIDEO_FRAME_COMP_OFFSET(&frame, GST_VIDEO_COMP_A)] = 255;
      }
  } else {
    for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES(&frame); ++p) {
      uint8_t *d = (uint8_t *)GST_VIDEO_FRAME_PLANE_DATA(&frame, p);
      const int stride = GST_VIDEO_FRAME_PLANE_STRIDE(&frame, p);
      const int rows = GST_VIDEO_FRAME_COMP_HEIGHT(
          &frame, p == 0 ? 0 : (GST_VIDEO_FRAME_N_PLANES(&frame) == 2 ? 1 : p));
      memset(d, 128, (gsize)stride * rows);
    }
    uint8_t *y0 = (uint8_t *)GST_VIDEO_FRAME_COMP_DATA(&frame, 0);
    const int ys = GST_VIDEO_FRAME_COMP_STRIDE(&frame, 0);
    for (int y = 0; y < img.height; ++y)
      memcpy(y0 + (gsize)y * ys, &img.pixels[(size_t)y * img.width], img.width);
  }
  gst_video_frame_unmap(&frame);
  GST_BUFFER_PTS(buf) = pts;
  GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
  return buf;
}
