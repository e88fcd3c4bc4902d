/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_element: frames per second through the blockmatchme element, next
 * to the bare kernel (match::BlockMatcher) on the same frames, so that the
 * element's overhead (meta, pool, mapping, pipeline threads) is visible.
 *
 *   appsrc (all frames queued before PLAYING, wrapped, no copies)
 *     ! blockmatchme block-size=B search-range=R subpixel=G n-threads=T
 *     ! fakesink sync=false signal-handoffs=true
 *
 * A run pushes `frames` frames (a ping-pong walk over the clip, so every two
 * successive frames are neighbours in the video); the handoff times of the
 * first and last buffer give (frames - 1) estimated frames in steady
 * state, excluding pipeline start-up and the first (unestimated) frame.
 * The kernel row times the same frames the same way. Medians of `runs`.
 */
#include <gst/app/app.h>
#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "bench_common.h"
#include "match/blockmatch.h"

namespace {

using Clock = std::chrono::steady_clock;

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::string plugin = BENCH_PLUGIN_PATH;
  int width = 1280, height = 720;
  int block = 16, range = 16, subpel = 1;
  int frames = 31;
  int runs = 5;
  std::vector<int> threads;
};

int all_threads() {
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

struct HandoffLog {
  std::vector<Clock::time_point> times;
};

void on_handoff(GstElement*, GstBuffer*, GstPad*, gpointer user_data) {
  static_cast<HandoffLog*>(user_data)->times.push_back(Clock::now());
}

const char* subpel_nick(int subpel) {
  return subpel == 2 ? "half" : subpel == 4 ? "quarter" : "integer";
}

/* One pipeline run; returns seconds per estimated frame, < 0 on error. */
double element_run(const Options& o, const bench::Clip& clip, int threads) {
  char desc[512];
  std::snprintf(desc, sizeof desc,
                "appsrc name=src format=time ! blockmatchme block-size=%d search-range=%d "
                "subpixel=%s n-threads=%d ! fakesink name=sink sync=false signal-handoffs=true",
                o.block, o.range, subpel_nick(o.subpel), threads);
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(desc, &err);
  if (!pipeline) {
    std::fprintf(stderr, "pipeline: %s\n", err ? err->message : "?");
    g_clear_error(&err);
    return -1;
  }
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  HandoffLog handoffs;
  handoffs.times.reserve(o.frames);
  g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &handoffs);

  GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "GRAY8", "width",
                                      G_TYPE_INT, clip.width, "height", G_TYPE_INT, clip.height,
                                      "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
  g_object_set(src, "caps", caps, "max-bytes", static_cast<guint64>(0), nullptr);
  gst_caps_unref(caps);

  const gsize frame_bytes = static_cast<gsize>(clip.width) * clip.height;
  for (int i = 0; i < o.frames; ++i) {
    GstBuffer* buf = gst_buffer_new_wrapped_full(
        GST_MEMORY_FLAG_READONLY, const_cast<uint8_t*>(clip.walk(i)), frame_bytes, 0,
        frame_bytes, nullptr, nullptr);
    GST_BUFFER_PTS(buf) = gst_util_uint64_scale(i, GST_SECOND, 30);
    GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), buf) != GST_FLOW_OK) {
      std::fprintf(stderr, "push failed\n");
      return -1;
    }
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));

  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* msg = gst_bus_timed_pop_filtered(bus, GST_CLOCK_TIME_NONE,
                                               static_cast<GstMessageType>(GST_MESSAGE_EOS |
                                                                           GST_MESSAGE_ERROR));
  double result = -1;
  if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError* e = nullptr;
    gchar* dbg = nullptr;
    gst_message_parse_error(msg, &e, &dbg);
    std::fprintf(stderr, "error: %s (%s)\n", e->message, dbg ? dbg : "");
    g_clear_error(&e);
    g_free(dbg);
  } else if (static_cast<int>(handoffs.times.size()) == o.frames) {
    result = std::chrono::duration<double>(handoffs.times.back() - handoffs.times.front()).count() /
             (o.frames - 1);
  } else {
    std::fprintf(stderr, "got %zu of %d buffers\n", handoffs.times.size(), o.frames);
  }
  if (msg) gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  gst_object_unref(src);
  gst_object_unref(sink);
  gst_object_unref(pipeline);
  return result;
}

/* The bare kernel on the same frames: frame 0 untimed, then frames-1. */
double kernel_run(match::BlockMatcher* m, const bench::Clip& clip, int frames, int threads,
                  std::vector<match::BlockVector>* out) {
  match::BlockMatchRuntime rt;
  rt.threads = threads;
  bool estimated = false;
  m->reset();
  auto view = [&clip](int i) {
    return match::ImageView{clip.walk(i), clip.width, clip.height, clip.width};
  };
  if (!m->process(view(0), rt, out->data(), &estimated)) return -1;
  const Clock::time_point t0 = Clock::now();
  for (int i = 1; i < frames; ++i)
    if (!m->process(view(i), rt, out->data(), &estimated) || !estimated) return -1;
  return std::chrono::duration<double>(Clock::now() - t0).count() / (frames - 1);
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h" || i + 1 >= argc) {
      std::printf(
          "Usage: %s [--size WxH] [--block N] [--range R] [--subpel 1|2|4]\n"
          "          [--threads N]... [--frames N] [--runs N] [--frames-dir DIR]\n"
          "          [--plugin PATH]\n"
          "Defaults: 1280x720, 16x16, +-16, integer, threads 1 and 0 (= all),\n"
          "31 frames per run (30 timed), 5 runs, plugin %s\n",
          argv[0], BENCH_PLUGIN_PATH);
      return false;
    }
    const char* v = argv[++i];
    if (a == "--size") {
      if (std::sscanf(v, "%dx%d", &o->width, &o->height) != 2) return false;
    } else if (a == "--block") {
      o->block = std::atoi(v);
    } else if (a == "--range") {
      o->range = std::atoi(v);
    } else if (a == "--subpel") {
      o->subpel = std::atoi(v);
    } else if (a == "--threads") {
      o->threads.push_back(std::atoi(v));
    } else if (a == "--frames") {
      o->frames = std::max(3, std::atoi(v));
    } else if (a == "--runs") {
      o->runs = std::max(1, std::atoi(v));
    } else if (a == "--frames-dir") {
      o->frames_dir = v;
    } else if (a == "--plugin") {
      o->plugin = v;
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    }
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  gst_init(&argc, &argv);
  if (!parse_args(argc, argv, &o)) return 2;
  if (o.threads.empty()) o.threads = {1, 0};

  GError* err = nullptr;
  GstPlugin* plugin = gst_plugin_load_file(o.plugin.c_str(), &err);
  if (!plugin) {
    std::fprintf(stderr, "cannot load %s: %s\n", o.plugin.c_str(), err ? err->message : "?");
    g_clear_error(&err);
    return 1;
  }
  gst_object_unref(plugin);

  const bench::Clip clip = bench::load_clip(o.frames_dir, o.width, o.height, 12);
  std::printf("bench_element: %dx%d %s, blocks %dx%d, +-%d, %s; %d frames per run "
              "(%d timed), median of %d runs\n",
              o.width, o.height, clip.real ? "video frames" : "SYNTHETIC frames", o.block,
              o.block, o.range, subpel_nick(o.subpel), o.frames, o.frames - 1, o.runs);

  match::BlockMatchConfig cfg;
  cfg.width = o.width;
  cfg.height = o.height;
  cfg.block_width = cfg.block_height = o.block;
  cfg.range_x = cfg.range_y = o.range;
  cfg.subpel = o.subpel;
  std::unique_ptr<match::BlockMatcher> m;
  match::Status st = match::BlockMatcher::create(match::Backend::kCpu, cfg, &m);
  if (!st) {
    std::fprintf(stderr, "create: %s\n", st.message().c_str());
    return 1;
  }
  std::vector<match::BlockVector> out(cfg.num_blocks());

  std::printf("%3s %12s %12s %14s %14s %10s\n", "thr", "kernel fps", "element fps",
              "kernel ms/fr", "element ms/fr", "overhead");
  for (int th : o.threads) {
    /* Warm-up of both paths (OpenMP pool, page faults, plugin init). */
    if (kernel_run(m.get(), clip, 3, th, &out) < 0 || element_run(o, clip, th) < 0) return 1;
    std::vector<double> tk, te;
    for (int r = 0; r < o.runs; ++r) {
      const double k = kernel_run(m.get(), clip, o.frames, th, &out);
      const double e = element_run(o, clip, th);
      if (k < 0 || e < 0) return 1;
      tk.push_back(k);
      te.push_back(e);
    }
    const double k = median(tk), e = median(te);
    std::printf("%3d %12.2f %12.2f %14.2f %14.2f %9.1f%%\n", th > 0 ? th : all_threads(),
                1.0 / k, 1.0 / e, 1e3 * k, 1e3 * e, 100.0 * (e - k) / k);
  }
  std::printf("\n  overhead: (element - kernel) / kernel time per frame\n");
  return 0;
}
