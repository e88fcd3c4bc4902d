/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_element: frames per second through the blockmatchme element, next
 * to the bare kernel (match::BlockMatcher) on the same frames, so that the
 * element's overhead (meta, pool, mapping, pipeline threads) is visible.
 *
 *   appsrc (all frames queued before PLAYING, wrapped, no copies: buffers
 *           already in system memory)
 *     ! blockmatchme block-width=.. block-height=.. search-range-x/y=..
 *                    subpixel=.. backend=.. n-threads=0 [pipeline-depth=D]
 *                    [devices=0,1 multi-gpu=parallel|serial]
 *                    [method=.. levels=.. predictors=..]
 *     ! fakesink sync=false signal-handoffs=true
 *
 * A run pushes `frames` frames (a ping-pong walk over the clip, so every two
 * successive frames are neighbours in the video); the handoff times of the
 * buffers give the time per estimated frame in steady state, excluding
 * pipeline start-up and the first (unestimated) frame. The kernel column
 * times the same frames through the same backend the same way. Medians of
 * `runs`.
 *
 * Two modes, like bench_blockmatch: the CPU comparison of the README
 * (default: one size, threads 1 and all) and case mode (--paper-cases,
 * --case, --backend, --pipeline-depth, --devices, --multi-gpu, --csv): the
 * cases of the CUDA benchmark issue on the CPU and CUDA backends, one table.
 * Case mode also times the search methods (--method, repeatable; --levels,
 * --predictors) on the paper cases or on the fast-search cases that
 * bench_fast uses (--fast-cases: paper [B]'s 640x480 +-64 x +-32, 1080p and
 * 4K +-32).
 */
#include <gst/app/app.h>
#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "match/blockmatch.h"

namespace {

using bench::Clock;

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::string plugin = BENCH_PLUGIN_PATH;
  int width = 1280, height = 720;
  int block = 16, range = 16, subpel = 1;
  int frames = 31;
  int runs = 5;
  std::vector<int> threads;

  /* Case mode. */
  bool case_mode = false;
  bool size_set = false;
  bool paper = false;
  bool list_cases = false;
  bool synthetic = false;
  bool kernel = true;
  bool runs_set = false;
  std::vector<std::string> case_sel;
  std::vector<match::Backend> backends;
  std::vector<int> depths;
  std::vector<std::vector<int>> device_sets;
  std::vector<match::MultiGpuMode> modes;
  bool fast = false;           /* --fast-cases */
  bool paper_explicit = false; /* --paper-cases (--case alone sets `paper` too) */
  std::vector<match::SearchMethod> methods; /* --method; empty = full */
  int levels = 0, predictors = 0;           /* --levels / --predictors; 0 = the case's */
  double cpu_max_s = 2.0;
  double min_run_s = 0.5;
  int max_frames = 2000;
  std::string csv_file;
};

using bench::all_threads;

/* ---- One pipeline run ------------------------------------------------------ */

/* The element's optional properties, found at run time (the plugin in this
 * tree may predate some of them). */
struct ElementProps {
  bool pipeline_depth = false;
  guint depth_max = 0;
  bool devices = false;   /* "devices": string "0,1" */
  bool device_id = false; /* "device-id": one ordinal */
  bool multi_gpu = false; /* "multi-gpu": parallel | serial */
  bool active_backend = false;
  bool method = false; /* "method": enum, nicks below */
  std::vector<std::string> method_nicks;
  bool levels = false; /* "levels": uint, min..max */
  guint levels_min = 0, levels_max = 0;
  bool predictors = false; /* "predictors": uint, min..max */
  guint predictors_min = 0, predictors_max = 0;
};

/* A uint (or int) property's range; false when there is no such property. */
bool find_uint_prop(GObjectClass* k, const char* name, guint* min, guint* max) {
  GParamSpec* ps = g_object_class_find_property(k, name);
  if (!ps) return false;
  if (G_IS_PARAM_SPEC_UINT(ps)) {
    *min = G_PARAM_SPEC_UINT(ps)->minimum;
    *max = G_PARAM_SPEC_UINT(ps)->maximum;
    return true;
  }
  if (G_IS_PARAM_SPEC_INT(ps)) {
    *min = static_cast<guint>(std::max(0, G_PARAM_SPEC_INT(ps)->minimum));
    *max = static_cast<guint>(std::max(0, G_PARAM_SPEC_INT(ps)->maximum));
    return true;
  }
  return false;
}

ElementProps find_element_props() {
  ElementProps p;
  GstElement* e = gst_element_factory_make("blockmatchme", nullptr);
  if (!e) return p;
  GObjectClass* k = G_OBJECT_GET_CLASS(e);
  if (GParamSpec* ps = g_object_class_find_property(k, "pipeline-depth")) {
    p.pipeline_depth = true;
    if (G_IS_PARAM_SPEC_UINT(ps))
      p.depth_max = G_PARAM_SPEC_UINT(ps)->maximum;
    else if (G_IS_PARAM_SPEC_INT(ps))
      p.depth_max = static_cast<guint>(std::max(0, G_PARAM_SPEC_INT(ps)->maximum));
    else
      p.pipeline_depth = false;
  }
  GParamSpec* ds = g_object_class_find_property(k, "devices");
  p.devices = ds && G_PARAM_SPEC_VALUE_TYPE(ds) == G_TYPE_STRING;
  p.device_id = g_object_class_find_property(k, "device-id") != nullptr;
  p.multi_gpu = g_object_class_find_property(k, "multi-gpu") != nullptr;
  p.active_backend = g_object_class_find_property(k, "active-backend") != nullptr;
  if (GParamSpec* ms = g_object_class_find_property(k, "method")) {
    if (G_IS_PARAM_SPEC_ENUM(ms)) {
      p.method = true;
      const GEnumClass* ec = G_PARAM_SPEC_ENUM(ms)->enum_class;
      for (guint i = 0; i < ec->n_values; ++i)
        p.method_nicks.push_back(ec->values[i].value_nick);
    }
  }
  p.levels = find_uint_prop(k, "levels", &p.levels_min, &p.levels_max);
  p.predictors = find_uint_prop(k, "predictors", &p.predictors_min, &p.predictors_max);
  gst_object_unref(e);
  return p;
}

/* What one pipeline run sets on blockmatchme. */
struct ElementSettings {
  int width = 0, height = 0;
  int block_w = 16, block_h = 16, range_x = 16, range_y = 16, subpel = 1;
  const char* backend = "cpu";
  int threads = 0;
  int depth = -1;           /* pipeline-depth; < 0 = not set */
  std::vector<int> devices; /* empty = not set */
  match::MultiGpuMode mode = match::MultiGpuMode::kParallel;
  match::SearchMethod method =
      match::SearchMethod::kFull; /* set when the element has it */
  int levels = 3, predictors = 4; /* likewise */
};

/* Why the element cannot run `s`'s method, levels and predictors; empty
 * when it can (an older plugin has no 'method' property: only full search,
 * which is then left unset). */
std::string method_support(const ElementProps& props, const ElementSettings& s) {
  const char* name = match::search_method_name(s.method);
  const bool full = s.method == match::SearchMethod::kFull;
  if (!props.method)
    return full ? ""
                : std::string(
                      "the element has no 'method' property (plugin older than "
                      "the search methods): method=") +
                      name + " not timed";
  if (std::find(props.method_nicks.begin(), props.method_nicks.end(), name) ==
      props.method_nicks.end())
    return std::string("the element's 'method' property has no value '") + name + "'";
  if (s.method != match::SearchMethod::kHierarchical) return "";
  if (!props.levels || !props.predictors)
    return std::string("the element has no '") +
           (props.levels ? "predictors" : "levels") +
           "' property: method=hierarchical not timed";
  if (s.levels < static_cast<int>(props.levels_min) ||
      s.levels > static_cast<int>(props.levels_max))
    return "levels=" + std::to_string(s.levels) + " outside the element's " +
           std::to_string(props.levels_min) + ".." + std::to_string(props.levels_max);
  if (s.predictors < static_cast<int>(props.predictors_min) ||
      s.predictors > static_cast<int>(props.predictors_max))
    return "predictors=" + std::to_string(s.predictors) + " outside the element's " +
           std::to_string(props.predictors_min) + ".." +
           std::to_string(props.predictors_max);
  return "";
}

struct ElementRun {
  double sec_per_frame = -1;
  double total_s = -1; /* PLAYING to EOS, start-up included */
  std::string error;
  std::string debug; /* the error message's debug text */
  std::string active_backend;
};

struct HandoffLog {
  std::vector<Clock::time_point> times;
};

void on_handoff(GstElement*, GstBuffer*, GstPad*, gpointer user_data) {
  static_cast<HandoffLog*>(user_data)->times.push_back(Clock::now());
}

const char* subpel_nick(int subpel) {
  return subpel == 2 ? "half" : subpel == 4 ? "quarter" : "integer";
}

/* One pipeline run of `frames` buffers; the time per frame is measured from
 * the handoff of buffer `skip` to that of buffer frames - 1 - `tail`. With
 * pipeline-depth D the last D buffers leave in a burst at EOS (the element
 * drains what it holds), so tail = D keeps them out. */
/* --set NAME=VALUE: more properties of the element, for every run (e.g.
 * regions=true events=true, to time the surveillance decision). */
std::vector<std::pair<std::string, std::string>> g_extra_props;
/* --i420: I420 buffers (the clip's luma; chroma derived from it, so that
 * what moves differs in colour too) instead of GRAY8, for the decision's
 * colour (gst/common/mvcolour.h). */
bool g_i420 = false;

/* The clip's frames as I420: U = Y / 2 + 64, V = 191 - Y / 2, each the
 * mean of its 2 x 2 pixels. */
std::vector<uint8_t> i420_frames(const bench::Clip& clip) {
  const int w = clip.width, h = clip.height, cw = (w + 1) / 2, ch = (h + 1) / 2;
  const size_t luma = (size_t)w * h, size = luma + 2 * (size_t)cw * ch;
  std::vector<uint8_t> out(size * clip.count);
  for (int i = 0; i < clip.count; ++i) {
    const uint8_t* y = clip.frame(i);
    uint8_t* f = out.data() + size * i;
    std::copy(y, y + luma, f);
    uint8_t *u = f + luma, *v = u + (size_t)cw * ch;
    for (int cy = 0; cy < ch; ++cy)
      for (int cx = 0; cx < cw; ++cx) {
        const int x0 = 2 * cx, y0 = 2 * cy, x1 = std::min(x0 + 1, w - 1),
                  y1 = std::min(y0 + 1, h - 1);
        const int m = (y[(size_t)y0 * w + x0] + y[(size_t)y0 * w + x1] +
                       y[(size_t)y1 * w + x0] + y[(size_t)y1 * w + x1] + 2) /
                      4;
        u[(size_t)cy * cw + cx] = (uint8_t)(m / 2 + 64);
        v[(size_t)cy * cw + cx] = (uint8_t)(191 - m / 2);
      }
  }
  return out;
}

ElementRun element_run(const ElementProps& props, const ElementSettings& s,
                       const bench::Clip& clip, int frames, int skip, int tail = 0) {
  ElementRun res;
  res.error = method_support(props, s);
  if (!res.error.empty()) return res;
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(
      "appsrc name=src format=time ! blockmatchme name=me ! "
      "fakesink name=sink sync=false signal-handoffs=true",
      &err);
  if (!pipeline) {
    res.error = std::string("pipeline: ") + (err ? err->message : "?");
    g_clear_error(&err);
    return res;
  }
  GstElement* src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
  GstElement* me = gst_bin_get_by_name(GST_BIN(pipeline), "me");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  auto cleanup = [&]() {
    gst_element_set_state(pipeline, GST_STATE_NULL);
    gst_object_unref(src);
    gst_object_unref(me);
    gst_object_unref(sink);
    gst_object_unref(pipeline);
  };

  g_object_set(me, "block-width", static_cast<guint>(s.block_w), "block-height",
               static_cast<guint>(s.block_h), "search-range-x",
               static_cast<guint>(s.range_x), "search-range-y",
               static_cast<guint>(s.range_y), "n-threads", static_cast<guint>(s.threads),
               nullptr);
  gst_util_set_object_arg(G_OBJECT(me), "subpixel", subpel_nick(s.subpel));
  gst_util_set_object_arg(G_OBJECT(me), "backend", s.backend);
  if (s.depth >= 0 && props.pipeline_depth)
    g_object_set(me, "pipeline-depth", static_cast<guint>(s.depth), nullptr);
  /* Search method (checked by method_support() above); levels and
   * predictors within the element's ranges, else left at its defaults
   * (they matter to method=hierarchical only, where they were checked). */
  if (props.method)
    gst_util_set_object_arg(G_OBJECT(me), "method", match::search_method_name(s.method));
  for (const auto& kv : g_extra_props)
    gst_util_set_object_arg(G_OBJECT(me), kv.first.c_str(), kv.second.c_str());
  if (props.levels && s.levels >= static_cast<int>(props.levels_min) &&
      s.levels <= static_cast<int>(props.levels_max))
    g_object_set(me, "levels", static_cast<guint>(s.levels), nullptr);
  if (props.predictors && s.predictors >= static_cast<int>(props.predictors_min) &&
      s.predictors <= static_cast<int>(props.predictors_max))
    g_object_set(me, "predictors", static_cast<guint>(s.predictors), nullptr);
  if (!s.devices.empty()) {
    if (props.devices) {
      g_object_set(me, "devices", bench::devices_string(s.devices).c_str(), nullptr);
    } else if (props.device_id && s.devices.size() == 1) {
      g_object_set(me, "device-id", s.devices[0], nullptr);
    } else if (!(s.devices.size() == 1 && s.devices[0] == 0)) {
      res.error = "the element has no 'devices' property";
      cleanup();
      return res;
    }
    if (s.devices.size() > 1) {
      if (!props.multi_gpu) {
        res.error = "the element has no 'multi-gpu' property";
        cleanup();
        return res;
      }
      gst_util_set_object_arg(G_OBJECT(me), "multi-gpu", bench::mode_name(s.mode));
    }
  }

  HandoffLog handoffs;
  handoffs.times.reserve(frames);
  g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &handoffs);

  GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING,
                                      g_i420 ? "I420" : "GRAY8", "width", G_TYPE_INT,
                                      clip.width, "height", G_TYPE_INT, clip.height,
                                      "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
  g_object_set(src, "caps", caps, "max-bytes", static_cast<guint64>(0), nullptr);
  gst_caps_unref(caps);

  const gsize luma_bytes = static_cast<gsize>(clip.width) * clip.height;
  const gsize frame_bytes =
      g_i420 ? luma_bytes +
                   2 * static_cast<gsize>((clip.width + 1) / 2) * ((clip.height + 1) / 2)
             : luma_bytes;
  const std::vector<uint8_t> i420 = g_i420 ? i420_frames(clip) : std::vector<uint8_t>();
  for (int i = 0; i < frames; ++i) {
    /* walk ()'s frame index, for the I420 copy. */
    const size_t k = static_cast<size_t>(clip.walk(i) - clip.frame(0)) / luma_bytes;
    uint8_t* data = g_i420 ? const_cast<uint8_t*>(i420.data() + k * frame_bytes)
                           : const_cast<uint8_t*>(clip.walk(i));
    GstBuffer* buf = gst_buffer_new_wrapped_full(
        GST_MEMORY_FLAG_READONLY, data, frame_bytes, 0, frame_bytes, nullptr, nullptr);
    GST_BUFFER_PTS(buf) = gst_util_uint64_scale(i, GST_SECOND, 30);
    GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), buf) != GST_FLOW_OK) {
      res.error = "appsrc refused a buffer";
      cleanup();
      return res;
    }
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));

  const Clock::time_point t_start = Clock::now();
  gst_element_set_state(pipeline, GST_STATE_PLAYING);
  GstBus* bus = gst_element_get_bus(pipeline);
  GstMessage* msg = gst_bus_timed_pop_filtered(
      bus, GST_CLOCK_TIME_NONE,
      static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
  if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
    GError* e = nullptr;
    gchar* dbg = nullptr;
    gst_message_parse_error(msg, &e, &dbg);
    res.error = e ? e->message : "?";
    if (dbg) res.debug = dbg;
    for (std::string* t : {&res.error, &res.debug})
      std::replace(t->begin(), t->end(), '\n', ' ');
    g_clear_error(&e);
    g_free(dbg);
  } else if (static_cast<int>(handoffs.times.size()) == frames &&
             frames - 1 - tail > skip) {
    res.total_s = bench::seconds_since(t_start);
    const int last = frames - 1 - tail;
    res.sec_per_frame =
        std::chrono::duration<double>(handoffs.times[last] - handoffs.times[skip])
            .count() /
        (last - skip);
  } else {
    res.error = "got " + std::to_string(handoffs.times.size()) + " of " +
                std::to_string(frames) + " buffers";
  }
  if (props.active_backend) {
    gchar* ab = nullptr;
    g_object_get(me, "active-backend", &ab, nullptr);
    if (ab) res.active_backend = ab;
    g_free(ab);
  }
  if (msg) gst_message_unref(msg);
  gst_object_unref(bus);
  cleanup();
  return res;
}

/* ---- The README's CPU comparison (default mode) ------------------------------ */

/* The bare kernel on the same frames: frame 0 untimed, then frames-1. */
double kernel_run(match::BlockMatcher* m, const bench::Clip& clip, int frames,
                  int threads, std::vector<match::BlockVector>* out) {
  match::BlockMatchRuntime rt;
  rt.threads = threads;
  bench::RunTiming t;
  if (!bench::timed_run(m, clip, frames - 1, 0, rt, out, &t)) return -1;
  return t.sec_per_frame;
}

int run_cpu_comparison(const Options& o) {
  const bench::Clip clip = bench::load_clip(o.frames_dir, o.width, o.height, 12);
  std::printf(
      "bench_element: %dx%d %s, blocks %dx%d, +-%d, %s; %d frames per run "
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
  const ElementProps props = find_element_props();
  ElementSettings es;
  es.width = o.width, es.height = o.height;
  es.block_w = es.block_h = o.block;
  es.range_x = es.range_y = o.range;
  es.subpel = o.subpel;
  es.backend = "cpu";

  std::printf("%3s %12s %12s %14s %14s %10s\n", "thr", "kernel fps", "element fps",
              "kernel ms/fr", "element ms/fr", "overhead");
  for (int th : o.threads) {
    es.threads = th;
    /* Warm-up of both paths (OpenMP pool, page faults, plugin init). */
    if (kernel_run(m.get(), clip, 3, th, &out) < 0) return 1;
    ElementRun w = element_run(props, es, clip, o.frames, 0);
    if (w.sec_per_frame < 0) {
      std::fprintf(stderr, "element: %s (%s)\n", w.error.c_str(), w.debug.c_str());
      return 1;
    }
    std::vector<double> tk, te;
    for (int r = 0; r < o.runs; ++r) {
      const double k = kernel_run(m.get(), clip, o.frames, th, &out);
      const ElementRun e = element_run(props, es, clip, o.frames, 0);
      if (k < 0 || e.sec_per_frame < 0) {
        std::fprintf(stderr, "run failed: %s\n", e.error.c_str());
        return 1;
      }
      tk.push_back(k);
      te.push_back(e.sec_per_frame);
    }
    const double k = bench::median(tk), e = bench::median(te);
    std::printf("%3d %12.2f %12.2f %14.2f %14.2f %9.1f%%\n", th > 0 ? th : all_threads(),
                1.0 / k, 1.0 / e, 1e3 * k, 1e3 * e, 100.0 * (e - k) / k);
  }
  std::printf("\n  overhead: (element - kernel) / kernel time per frame\n");
  return 0;
}

/* ---- Case mode ------------------------------------------------------------- */

struct Row {
  size_t ci = 0;
  match::Backend backend = match::Backend::kCpu;
  std::vector<int> devices;
  match::MultiGpuMode mode = match::MultiGpuMode::kParallel;
  int depth = 0; /* pipeline-depth set on the element */
  std::string label, active;
  double elem_ms = -1, kern_ms = -1, spread = 0;
  int frames = 0, runs = 0;
  std::string status;    /* empty = measured */
  std::string kern_note; /* why the kernel column is empty, if it is */
};

void measure_row(const Options& o, const ElementProps& props, const bench::Case& c,
                 const bench::Clip& clip, double cpu_est, Row* r) {
  ElementSettings es;
  es.width = c.width, es.height = c.height;
  es.block_w = c.block_w, es.block_h = c.block_h;
  es.range_x = c.range_x, es.range_y = c.range_y, es.subpel = c.subpel;
  es.method = c.method, es.levels = c.levels, es.predictors = c.predictors;
  const bool cuda = r->backend == match::Backend::kCuda;
  es.backend = cuda ? "cuda" : "cpu";
  es.threads = 0;
  es.depth = props.pipeline_depth ? r->depth : -1;
  if (cuda) es.devices = r->devices;
  es.mode = r->mode;

  /* Buffers held by the element (pipeline-depth, raised for a serial split
   * as the element does): they leave in a burst at EOS, out of the timing. */
  int held = es.depth > 0 ? es.depth : 0;
  if (cuda && r->mode == match::MultiGpuMode::kSerial)
    held = std::max(held, static_cast<int>(r->devices.size()) - 1);

  /* Warm-up (CUDA context, allocations, OpenMP pool) that sizes the runs
   * from its whole duration (start-up included, so never too many frames). */
  const bool slow = !cuda && cpu_est > 0.05;
  const int warm = (slow ? 4 : 12) + held;
  ElementRun w = element_run(props, es, clip, warm, 1, held);
  if (w.sec_per_frame < 0) {
    r->status = "FAILED: " + w.error;
    if (!w.debug.empty()) std::printf("  (%s)\n", w.debug.c_str());
    return;
  }
  r->active = w.active_backend;
  const double probe = std::max(w.sec_per_frame, w.total_s / warm);
  const int timed = std::min(
      o.max_frames,
      std::max(4, static_cast<int>(std::ceil(o.min_run_s / std::max(probe, 1e-7)))));
  const int frames = timed + 2 + held;
  const int runs = (probe * frames > 3.0 && !o.runs_set) ? std::min(o.runs, 3) : o.runs;

  std::vector<double> te;
  for (int i = 0; i < runs; ++i) {
    const ElementRun e = element_run(props, es, clip, frames, 1, held);
    if (e.sec_per_frame < 0) {
      r->status = "FAILED: " + e.error;
      return;
    }
    te.push_back(e.sec_per_frame);
  }
  r->elem_ms = 1e3 * bench::median(te);
  r->spread = bench::spread(te);
  r->frames = timed; /* timed intervals per run */
  r->runs = runs;

  if (!o.kernel) return;
  /* The bare matcher, same backend, devices and depth, same frame count;
   * the same search (c.config(): method, levels, predictors). */
  match::DeviceOptions dopt;
  dopt.devices = r->devices;
  dopt.mode = r->mode;
  std::unique_ptr<match::BlockMatcher> m;
  const match::Status created =
      match::BlockMatcher::create(r->backend, c.config(), &m, dopt);
  if (!created) {
    r->kern_note = "kernel: " + created.message();
    return;
  }
  if (r->active.empty()) r->active = m->description();
  int depth = props.pipeline_depth ? r->depth : 0;
  if (cuda && r->mode == match::MultiGpuMode::kSerial)
    depth = std::max(depth, static_cast<int>(r->devices.size()) - 1);
  depth = std::min(depth, m->max_in_flight() - 1);
  match::BlockMatchRuntime rt;
  std::vector<match::BlockVector> out(c.config().num_blocks());
  bench::RunTiming t;
  if (!bench::timed_run(m.get(), clip, std::min(timed, 10), depth, rt, &out, &t)) return;
  std::vector<double> tk;
  for (int i = 0; i < runs; ++i) {
    if (!bench::timed_run(m.get(), clip, timed, depth, rt, &out, &t)) return;
    tk.push_back(t.sec_per_frame);
  }
  r->kern_ms = 1e3 * bench::median(tk);
}

const Row* find_row(const std::vector<Row>& rows, const Row& me, bool one_gpu) {
  for (const Row& r : rows) {
    if (&r == &me || r.ci != me.ci || !r.status.empty()) continue;
    if (!one_gpu && r.backend == match::Backend::kCpu) return &r;
    if (one_gpu && r.backend == match::Backend::kCuda && r.devices.size() == 1 &&
        r.devices[0] == me.devices[0] && r.depth == me.depth)
      return &r;
  }
  return nullptr;
}

/* Each base case once per method (--method; full by default), with
 * --levels / --predictors applied; the published figure and the target of
 * another search (Case::target_method, or other levels/predictors) are
 * dropped from the rows. */
std::vector<bench::Case> expand_methods(const Options& o,
                                        const std::vector<bench::Case>& base) {
  const std::vector<match::SearchMethod> methods =
      o.methods.empty() ? std::vector<match::SearchMethod>{match::SearchMethod::kFull}
                        : o.methods;
  std::vector<bench::Case> v;
  for (const bench::Case& b : base)
    for (match::SearchMethod m : methods) {
      bench::Case c = b;
      c.method = m;
      if (o.levels > 0) c.levels = o.levels;
      if (o.predictors > 0) c.predictors = o.predictors;
      const bool same_search = m == b.target_method &&
                               (m != match::SearchMethod::kHierarchical ||
                                (c.levels == b.levels && c.predictors == b.predictors));
      if (!same_search) { /* the paper's figure and the target are another search's */
        c.target = bench::TargetKind::kNone;
        c.target_text.clear();
        c.paper_ms = 0;
        c.paper_text.clear();
      }
      v.push_back(c);
    }
  return v;
}

/* "full", "hierarchical L3 P4" (levels and predictors matter to it only). */
std::string method_label(const bench::Case& c) {
  std::string s = match::search_method_name(c.method);
  if (c.method == match::SearchMethod::kHierarchical)
    s += " L" + std::to_string(c.levels) + " P" + std::to_string(c.predictors);
  return s;
}

int run_case_mode(Options& o) {
  std::vector<bench::Case> base; /* the selected cases (legend) */
  if (o.fast)
    for (const bench::FastCase& f : bench::fast_cases())
      if (bench::case_selected(f.id, o.case_sel))
        base.push_back(bench::fast_case(f, match::SearchMethod::kFull));
  if (o.fast ? o.paper_explicit : (o.paper || !o.size_set))
    for (const bench::Case& c : bench::paper_cases())
      if (bench::case_selected(c.id, o.case_sel)) base.push_back(c);
  if (o.size_set)
    base.push_back(bench::custom_case(o.width, o.height, o.block, o.range, o.subpel));
  if (base.empty()) {
    std::fprintf(stderr,
                 "no case selected (--case matches ids listed by --list-cases%s)\n",
                 o.fast ? " --fast-cases" : "");
    return 2;
  }
  auto print_legend = [&]() {
    bench::print_case_legend(base);
    if (o.fast ||
        std::any_of(o.methods.begin(), o.methods.end(), [](match::SearchMethod m) {
          return m != match::SearchMethod::kFull;
        }))
      std::printf(
          "(cands: the full search's candidates per block; fast methods visit fewer)\n");
    for (const bench::Case& c : base)
      if (c.target != bench::TargetKind::kNone &&
          c.target_method != match::SearchMethod::kFull)
        std::printf("(target of %s: method=%s levels=%d predictors=%d only)\n",
                    c.id.c_str(), match::search_method_name(c.target_method), c.levels,
                    c.predictors);
  };
  if (o.list_cases) {
    print_legend();
    return 0;
  }
  /* The rows' cases: each selected case with each method. */
  const std::vector<bench::Case> cases = expand_methods(o, base);

  const ElementProps props = find_element_props();
  const int ndev = match::cuda_device_count();
  std::vector<std::string> notes;
  bool want_cpu = false, want_cuda = false;
  bench::pick_backends(&o.backends, ndev, &notes, &want_cpu, &want_cuda);
  std::vector<int> cuda_depths = o.depths.empty() ? std::vector<int>{0, 3} : o.depths;
  /* The CPU backend computes inside submit(): CPU rows run at depth 0. */
  std::vector<int> cpu_depths = {0};
  if (!props.pipeline_depth) {
    const bool asked =
        std::any_of(o.depths.begin(), o.depths.end(), [](int d) { return d > 0; });
    notes.push_back(
        std::string("the element has NO 'pipeline-depth' property: every row runs at "
                    "depth 0") +
        (asked ? " (--pipeline-depth ignored)" : ""));
    cuda_depths = cpu_depths = {0};
  } else {
    for (std::vector<int>* v : {&cuda_depths, &cpu_depths})
      for (int& d : *v)
        if (d > static_cast<int>(props.depth_max)) {
          notes.push_back("pipeline-depth " + std::to_string(d) +
                          " > the element's maximum " + std::to_string(props.depth_max) +
                          ": using the maximum");
          d = static_cast<int>(props.depth_max);
        }
  }
  if (o.device_sets.empty()) o.device_sets = {{0}};
  if (o.modes.empty()) o.modes = {match::MultiGpuMode::kParallel};
  std::vector<std::vector<int>> device_sets;
  if (want_cuda)
    for (const std::vector<int>& set : o.device_sets) {
      std::string why;
      if (!std::all_of(set.begin(), set.end(), [ndev](int d) { return d < ndev; }))
        why = "this host has " + std::to_string(ndev) + " CUDA device(s)";
      else if (set.size() > 1 && !(props.devices && props.multi_gpu))
        why = "the element has no 'devices'/'multi-gpu' properties";
      else if (set.size() == 1 && set[0] != 0 && !props.devices && !props.device_id)
        why = "the element has no 'devices'/'device-id' property";
      if (why.empty())
        device_sets.push_back(set);
      else
        notes.push_back("devices " + bench::devices_string(set) + " SKIPPED: " + why);
    }
  if (!want_cpu && !(want_cuda && !device_sets.empty())) {
    for (const std::string& n : notes) std::printf("NOTE: %s\n", n.c_str());
    std::printf(
        "bench_element: nothing to time (no usable backend among those asked for)\n");
    return 0;
  }

  std::printf(
      "bench_element (case mode): appsrc (GRAY8 buffers wrapped in system memory, all "
      "queued before PLAYING) ! blockmatchme ! fakesink sync=false\n");
  std::printf("plugin: %s\n", o.plugin.c_str());
  std::printf(
      "element properties: pipeline-depth %s, devices %s, multi-gpu %s, active-backend "
      "%s\n",
      props.pipeline_depth ? ("yes (0.." + std::to_string(props.depth_max) + ")").c_str()
                           : "NO",
      props.devices ? "yes" : "NO", props.multi_gpu ? "yes" : "NO",
      props.active_backend ? "yes" : "NO");
  {
    std::string nicks;
    for (const std::string& n : props.method_nicks)
      nicks += (nicks.empty() ? "" : " ") + n;
    std::printf("element properties: method %s, levels %s, predictors %s\n",
                props.method ? ("yes (" + nicks + ")").c_str() : "NO",
                props.levels ? ("yes (" + std::to_string(props.levels_min) + ".." +
                                std::to_string(props.levels_max) + ")")
                                   .c_str()
                             : "NO",
                props.predictors ? ("yes (" + std::to_string(props.predictors_min) +
                                    ".." + std::to_string(props.predictors_max) + ")")
                                       .c_str()
                                 : "NO");
  }
  std::printf("CPU: %d threads (n-threads=0)\n", all_threads());
  bench::print_cuda_devices(stdout);
  std::printf(
      "timing: warm-up run, then %d runs (3 when a run would exceed 3 s) of N frames, N "
      "sized to last ~%.2g s (4..%d timed); handoff times from the 2nd buffer to the "
      "last "
      "one before the held ones; medians\n",
      o.runs, o.min_run_s, o.max_frames);
  for (const std::string& n : notes) std::printf("NOTE: %s\n", n.c_str());
  std::printf("\n");
  print_legend();
  std::fflush(stdout);

  /* Frames: one clip per size, loaded when first needed. */
  bench::ClipCache clip_cache(o.frames_dir, o.synthetic);
  auto clip_for = [&](const bench::Case& c) -> const bench::Clip& {
    return clip_cache.get(c.width, c.height);
  };

  std::vector<Row> rows;
  for (size_t ci = 0; ci < cases.size(); ++ci) {
    const bench::Case& c = cases[ci];
    const bench::Clip& clip = clip_for(c);
    std::printf(
        "\ncase %s (%s): %dx%d, blocks %dx%d, +-%dx%d, %s, method %s, %lld candidates "
        "per block%s\n",
        c.id.c_str(), c.title.c_str(), c.width, c.height, c.block_w, c.block_h, c.range_x,
        c.range_y, bench::grid_name(c.subpel), method_label(c).c_str(), c.candidates(),
        c.method == match::SearchMethod::kFull ? "" : " (full search)");
    std::fflush(stdout);
    double cpu_est = -1;
    if (want_cpu) {
      cpu_est = bench::estimate_cpu_seconds(c, clip);
      std::printf("  cpu estimate: %s s/frame with %d threads\n",
                  bench::fmt_double(cpu_est, "%.3g").c_str(), all_threads());
    }
    std::vector<Row> todo;
    for (match::Backend b : o.backends) {
      if (b == match::Backend::kCuda && want_cuda) {
        for (const std::vector<int>& set : device_sets) {
          const std::vector<match::MultiGpuMode> modes =
              set.size() > 1
                  ? o.modes
                  : std::vector<match::MultiGpuMode>{match::MultiGpuMode::kParallel};
          for (match::MultiGpuMode mode : modes)
            for (int d : cuda_depths) {
              Row r;
              r.ci = ci, r.backend = b, r.devices = set, r.mode = mode, r.depth = d;
              r.label = bench::backend_label(b, set, mode);
              todo.push_back(r);
            }
        }
      } else if (b == match::Backend::kCpu) {
        for (int d : cpu_depths) {
          Row r;
          r.ci = ci, r.backend = b, r.depth = d, r.label = "cpu";
          if (cpu_est > o.cpu_max_s) {
            char msg[160];
            std::snprintf(msg, sizeof msg,
                          "skipped: estimated %.3g s/frame on the CPU > --cpu-max-s %.3g",
                          cpu_est, o.cpu_max_s);
            r.status = msg;
          }
          todo.push_back(r);
        }
      }
    }
    for (Row& r : todo) {
      if (r.status.empty()) measure_row(o, props, c, clip, cpu_est, &r);
      if (r.status.empty())
        std::printf(
            "  %-13s D=%d  element %s ms (%s fps), kernel %s fps  (%d frames x %d runs, "
            "spread %.1f%%)  [%s]%s%s\n",
            r.label.c_str(), r.depth, bench::fmt_ms(r.elem_ms).c_str(),
            bench::fmt_fps(r.elem_ms).c_str(), bench::fmt_fps(r.kern_ms).c_str(),
            r.frames, r.runs, 100 * r.spread, r.active.c_str(),
            r.kern_note.empty() ? "" : "  ", r.kern_note.c_str());
      else
        std::printf("  %-13s D=%d  %s\n", r.label.c_str(), r.depth, r.status.c_str());
      std::fflush(stdout);
      rows.push_back(r);
    }
  }

  std::printf("\n==== Results: through the element ====\n\n");
  print_legend();
  std::printf("\n");
  clip_cache.print_origins();
  std::printf(
      "\n%-16s %-18s %-13s %2s %9s %8s %8s %8s %8s %7s %-15s %-4s %7s %6s %8s %6s\n",
      "case", "method", "backend", "D", "elem ms", "elem fps", "kern fps", "overhead",
      "paper ms", "x paper", "target", "met", "x cpu", "x 1gpu", "frames", "spread");
  FILE* csv = nullptr;
  if (!o.csv_file.empty()) {
    csv = std::fopen(o.csv_file.c_str(), "w");
    if (!csv)
      std::fprintf(stderr, "cannot write %s\n", o.csv_file.c_str());
    else
      std::fprintf(
          csv,
          "case,title,width,height,block_w,block_h,range_x,range_y,subpel,candidates,"
          "backend,active_backend,devices,multi_gpu,pipeline_depth,element_ms,"
          "element_fps,kernel_fps,overhead,paper_ms,x_paper,target,target_met,x_cpu,"
          "x_1gpu,frames,runs,spread,frames_source,status,method,levels,predictors\n");
  }
  size_t last_ci = static_cast<size_t>(-1);
  bool kernel_target = false;
  for (const Row& r : rows) {
    const bench::Case& c = cases[r.ci];
    if (last_ci != static_cast<size_t>(-1) && r.ci != last_ci) std::printf("\n");
    last_ci = r.ci;
    const bool cuda = r.backend == match::Backend::kCuda;
    std::string met = "-";
    if (cuda && r.status.empty()) {
      if (c.target_basis == bench::Basis::kKernel) {
        if (c.target != bench::TargetKind::kNone) {
          met = "k";
          kernel_target = true;
        }
      } else {
        met = bench::target_met(c, r.elem_ms);
      }
    }
    const Row* cpu_row = cuda ? find_row(rows, r, false) : nullptr;
    const Row* one_row =
        (cuda && r.devices.size() > 1) ? find_row(rows, r, true) : nullptr;
    const std::string x_paper = bench::fmt_ratio(c.paper_ms, r.elem_ms);
    const std::string x_cpu =
        cpu_row ? bench::fmt_ratio(cpu_row->elem_ms, r.elem_ms) : "-";
    const std::string x_1gpu =
        one_row ? bench::fmt_ratio(one_row->elem_ms, r.elem_ms) : "-";
    char overhead[32] = "-";
    if (r.kern_ms > 0 && r.elem_ms > 0)
      std::snprintf(overhead, sizeof overhead, "%+.1f%%",
                    100 * (r.elem_ms - r.kern_ms) / r.kern_ms);
    char frames[32] = "-";
    if (r.status.empty()) std::snprintf(frames, sizeof frames, "%dx%d", r.frames, r.runs);
    const std::string mlabel = method_label(c);
    if (r.status.empty())
      std::printf(
          "%-16s %-18s %-13s %2d %9s %8s %8s %8s %8s %7s %-15s %-4s %7s %6s %8s "
          "%5.1f%%\n",
          c.id.c_str(), mlabel.c_str(), r.label.c_str(), r.depth,
          bench::fmt_ms(r.elem_ms).c_str(), bench::fmt_fps(r.elem_ms).c_str(),
          bench::fmt_fps(r.kern_ms).c_str(), overhead,
          c.paper_ms > 0 ? bench::fmt_ms(c.paper_ms).c_str() : "-", x_paper.c_str(),
          c.target_text.empty() ? "-" : c.target_text.c_str(), met.c_str(), x_cpu.c_str(),
          x_1gpu.c_str(), frames, 100 * r.spread);
    else
      std::printf("%-16s %-18s %-13s %2d %s\n", c.id.c_str(), mlabel.c_str(),
                  r.label.c_str(), r.depth, r.status.c_str());
    if (csv)
      std::fprintf(
          csv,
          "%s,%s,%d,%d,%d,%d,%d,%d,%d,%lld,%s,%s,%s,%s,%d,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,%"
          "d,%d,"
          "%s,%s,%s,%s,%d,%d\n",
          bench::csv(c.id).c_str(), bench::csv(c.title).c_str(), c.width, c.height,
          c.block_w, c.block_h, c.range_x, c.range_y, c.subpel, c.candidates(),
          match::backend_name(r.backend), bench::csv(r.active).c_str(),
          cuda ? bench::csv(bench::devices_string(r.devices)).c_str() : "",
          cuda && r.devices.size() > 1 ? bench::mode_name(r.mode) : "", r.depth,
          bench::fmt_double(r.elem_ms).c_str(),
          r.elem_ms > 0 ? bench::fmt_double(1e3 / r.elem_ms).c_str() : "",
          r.kern_ms > 0 ? bench::fmt_double(1e3 / r.kern_ms).c_str() : "",
          std::strcmp(overhead, "-") ? overhead : "",
          c.paper_ms > 0 ? bench::fmt_double(c.paper_ms).c_str() : "",
          x_paper == "-" ? "" : x_paper.c_str(), bench::csv(c.target_text).c_str(),
          met == "-" ? "" : met.c_str(), x_cpu == "-" ? "" : x_cpu.c_str(),
          x_1gpu == "-" ? "" : x_1gpu.c_str(), r.frames, r.runs,
          r.status.empty() ? bench::fmt_double(r.spread, "%.4f").c_str() : "",
          bench::csv(clip_for(c).origin).c_str(),
          bench::csv(r.status.empty() ? "ok" : r.status).c_str(),
          match::search_method_name(c.method), c.levels, c.predictors);
  }
  if (csv) {
    std::fclose(csv);
    std::printf("\n(written to %s)\n", o.csv_file.c_str());
  }
  for (const std::string& n : notes) std::printf("NOTE: %s\n", n.c_str());
  std::printf(
      "\n"
      "  method     the element's method (and the kernel's); hierarchical: L levels, P "
      "predictors\n"
      "  D          the element's pipeline-depth (frames held while the backend works; 0 "
      "=\n"
      "             synchronous; a serial split holds at least GPUs - 1)\n"
      "  elem ms    median over runs of the time per buffer through the element, "
      "between\n"
      "             fakesink handoffs, from the 2nd buffer to the last before the D "
      "(held)\n"
      "             buffers that leave in a burst at EOS; elem fps = 1000 / elem ms\n"
      "  kern fps   the bare matcher (same backend, devices and depth, "
      "submit()/collect()) on the\n"
      "             same frames; overhead = (element - kernel) / kernel time per frame\n"
      "  paper ms   the paper's time per frame (case 2: 30 fps); x paper = paper ms / "
      "elem ms\n"
      "             (case 3's paper figures are kernel times: see bench_blockmatch for "
      "those)\n"
      "  target     the issue's target on one H100; met: yes / NO on elem ms (CUDA rows "
      "only)%s\n"
      "  x cpu      the CPU row's elem ms / this row's; x 1gpu: the one-GPU row's (same "
      "depth)\n"
      "  frames     timed buffers per run x runs; spread = (slowest - fastest run) / "
      "median\n",
      kernel_target
          ? ";\n             k: a kernel-time target, checked by bench_blockmatch"
          : "");
  bool failed = false;
  for (const Row& r : rows)
    if (r.status.compare(0, 6, "FAILED") == 0) failed = true;
  return failed ? 1 : 0;
}

/* ---- Options ----------------------------------------------------------------- */

void usage(const char* argv0) {
  std::printf(
      "Usage: %s [options]\n"
      "CPU comparison (default): the element and the bare CPU matcher at one size\n"
      "  --size WxH --block N --range R --subpel 1|2|4   (1280x720, 16, 16, 1)\n"
      "  --threads N (repeatable; default 1 and 0 = all)  --frames N (31)  --runs N (5)\n"
      "Case mode (any of these options selects it; one table at the end):\n"
      "  --paper-cases         the cases of the CUDA issue (bench_blockmatch "
      "--list-cases);\n"
      "                        the default in case mode unless --size is given\n"
      "  --fast-cases          the fast-search cases of bench_fast instead (B-480: paper "
      "[B],\n"
      "                        640x480 +-64x+-32 levels 3 predictors 4; 1080-r32; "
      "2160-r32)\n"
      "  --case ID             only cases whose id starts with ID (repeatable)\n"
      "  --list-cases          print the cases and exit\n"
      "  --method NAME         full hierarchical three-step diamond hexagon predictive\n"
      "                        (repeatable; every case with each; default full); the\n"
      "                        element's method= and the kernel column's config\n"
      "  --levels N            hierarchical levels (default: the case's, 3)\n"
      "  --predictors N        hierarchical predictors (default: the case's, 4)\n"
      "  --backend cpu|cuda    (repeatable; default cuda, cpu without a CUDA device)\n"
      "  --pipeline-depth N    the element's pipeline-depth for CUDA rows (repeatable;\n"
      "                        default 0 and 3; CPU rows run at 0); without that\n"
      "                        property: depth 0\n"
      "  --devices LIST        e.g. 0 or 0,1 (repeatable; default 0)\n"
      "  --multi-gpu MODE      parallel or serial (repeatable; default parallel)\n"
      "  --cpu-max-s S         skip CPU rows estimated slower than S s/frame (default "
      "2)\n"
      "  --min-run-time S      frames per run sized to last about S seconds (default "
      "0.5)\n"
      "  --max-frames N        most timed frames per run (default 2000)\n"
      "  --runs N              runs per row, median reported (default 5)\n"
      "  --no-kernel           skip the bare-matcher comparison\n"
      "  --i420                I420 buffers (chroma derived from the luma) instead of\n"
      "                        GRAY8: the decision then reads their colour\n"
      "  --synthetic           synthetic frames for every case\n"
      "  --csv FILE            also write every row to FILE\n"
      "Both: --frames-dir DIR (default $MATCH_BENCH_FRAMES or "
      "$TMPDIR/gst-motion-bench-frames)\n"
      "      --plugin PATH (default %s)\n"
      "      --set NAME=VALUE  another property of the element (repeatable), e.g.\n"
      "                        --set regions=true --set events=true\n",
      argv0, BENCH_PLUGIN_PATH);
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage(argv[0]);
      std::exit(0);
    } else if (a == "--paper-cases") {
      o->paper = o->paper_explicit = o->case_mode = true;
      continue;
    } else if (a == "--fast-cases") {
      o->fast = o->case_mode = true;
      continue;
    } else if (a == "--list-cases") {
      o->list_cases = o->case_mode = true;
      continue;
    } else if (a == "--no-kernel") {
      o->kernel = false;
      continue;
    } else if (a == "--i420") {
      g_i420 = true;
      continue;
    } else if (a == "--synthetic") {
      o->synthetic = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value (or is unknown)\n", a.c_str());
      return false;
    }
    const char* v = argv[++i];
    if (const int r = bench::parse_selection_option(a, v, o)) {
      if (r < 0) return false;
    } else if (a == "--size") {
      if (std::sscanf(v, "%dx%d", &o->width, &o->height) != 2) return false;
      o->size_set = true;
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
      o->runs_set = true;
    } else if (a == "--frames-dir") {
      o->frames_dir = v;
    } else if (a == "--set") {
      const char* eq = std::strchr(v, '=');
      if (!eq || eq == v) return false;
      g_extra_props.push_back({std::string(v, eq - v), std::string(eq + 1)});
    } else if (a == "--plugin") {
      o->plugin = v;
    } else if (a == "--pipeline-depth") {
      const int d = std::atoi(v);
      if (d < 0) return false;
      if (std::find(o->depths.begin(), o->depths.end(), d) == o->depths.end())
        o->depths.push_back(d);
      o->case_mode = true;
    } else if (a == "--method") {
      static const match::SearchMethod kAll[] = {
          match::SearchMethod::kFull,      match::SearchMethod::kHierarchical,
          match::SearchMethod::kThreeStep, match::SearchMethod::kDiamond,
          match::SearchMethod::kHexagon,   match::SearchMethod::kPredictive};
      bool found = false;
      for (match::SearchMethod m : kAll)
        if (std::strcmp(v, match::search_method_name(m)) == 0) {
          if (std::find(o->methods.begin(), o->methods.end(), m) == o->methods.end())
            o->methods.push_back(m);
          found = true;
        }
      if (!found) {
        std::fprintf(stderr,
                     "--method wants one of full hierarchical three-step diamond hexagon "
                     "predictive, got '%s'\n",
                     v);
        return false;
      }
      o->case_mode = true;
    } else if (a == "--levels") {
      o->levels = std::atoi(v);
      if (o->levels < 2 || o->levels > match::kMaxLevels) {
        std::fprintf(stderr, "--levels wants 2..%d, got '%s'\n", match::kMaxLevels, v);
        return false;
      }
      o->case_mode = true;
    } else if (a == "--predictors") {
      o->predictors = std::atoi(v);
      if (o->predictors < 1 || o->predictors > match::kMaxPredictors) {
        std::fprintf(stderr, "--predictors wants 1..%d, got '%s'\n",
                     match::kMaxPredictors, v);
        return false;
      }
      o->case_mode = true;
    } else if (a == "--cpu-max-s") {
      o->cpu_max_s = std::atof(v);
    } else if (a == "--min-run-time") {
      o->min_run_s = std::atof(v);
    } else if (a == "--max-frames") {
      o->max_frames = std::max(4, std::atoi(v));
    } else if (a == "--csv") {
      o->csv_file = v;
      o->case_mode = true;
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
  if (!parse_args(argc, argv, &o)) {
    usage(argv[0]);
    return 2;
  }
  if (o.threads.empty()) o.threads = {1, 0};

  if (!(o.case_mode && o.list_cases)) {
    GError* err = nullptr;
    GstPlugin* plugin = gst_plugin_load_file(o.plugin.c_str(), &err);
    if (!plugin) {
      std::fprintf(stderr, "cannot load %s: %s\n", o.plugin.c_str(),
                   err ? err->message : "?");
      g_clear_error(&err);
      return 1;
    }
    gst_object_unref(plugin);
  }
  return o.case_mode ? run_case_mode(o) : run_cpu_comparison(o);
}
