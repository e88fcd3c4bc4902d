/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_streams: how many concurrent 1080p30 camera streams one machine
 * sustains in real time with blockmatchme (issue 7, "many streams per GPU").
 *
 * For each N of --streams, N independent pipelines in this one process,
 *
 *   appsrc format=time (GRAY8 1920x1080, frames of the bench clip wrapped,
 *                       no copies; a ping-pong walk, a different phase per
 *                       stream)
 *     ! blockmatchme backend=.. method=.. block-size=.. search-range=..
 *                    pipeline-depth=D n-threads=T
 *     ! fakesink sync=false signal-handoffs=true
 *
 * each with its own streaming thread (GStreamer's), are built, prerolled
 * (PAUSED: frame 0, and with depth D frames 0..D, go through every element,
 * so CUDA contexts, allocations and thread pools exist before the clock
 * starts) and then set to PLAYING one after the other, within milliseconds.
 *
 * Unpaced (default): every appsrc feeds its pipeline as fast as it consumes
 * (need-data: one frame each time appsrc's queue runs empty) for --frames F
 * frames or --seconds S (every stream stops at the same wall time). Each
 * buffer's fakesink handoff time is recorded. Steady state: from the handoff
 * of frame k0 (--skip) to that of the last frame before the D held ones that
 * leave in a burst at EOS. Per stream fps is measured in the window where
 * every stream is in its steady state (the latest start to the earliest end
 * of those windows; between the stream's first and last handoff inside it),
 * so no stream is credited with the speed it gets once others have finished;
 * when that common window holds fewer than 2 frame intervals of some stream
 * the stream's own window is used and the row says so. Aggregate fps = the
 * sum of the per-stream rates. Real-time: the slowest stream >= --fps (30).
 *
 * Paced (--paced): one pacer thread pushes frame k of stream i at
 * t0 + (k + i/N) / fps (the cameras' phases spread over a frame period),
 * after frames 0..D were pushed for the preroll. Frame k is late when its
 * handoff comes more than --budget (1) frame periods after the push of
 * frame k + D (with pipeline-depth D a buffer leaves when frame k + D is
 * processed: that hold is not counted as lateness). A stream keeps up when at most
 * --late-tolerance (1%) of its timed frames are late; N is real-time when
 * every stream keeps up.
 *
 * CPU threads: blockmatchme's CPU backend runs each frame on n-threads
 * OpenMP threads inside the stream's own streaming thread, so N streams run
 * N teams at once; by default n-threads = max(1, cores / N) (cores: OpenMP's
 * default team size here, i.e. the CPUs this process may use), --n-threads T
 * overrides. --n-threads 0 measures the element's own default: since issue
 * 32 the same share of the cores, found by the matchers themselves
 * (kernels/threads.h), tuned down further when other load holds the cores.
 * The CUDA backend ignores n-threads, but its host copy of each frame (1 MB
 * and more) is an OpenMP loop with the default team size in each streaming
 * thread: with many streams, OMP_NUM_THREADS bounds those teams.
 */
#include <gst/app/app.h>
#include <gst/gst.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "bench_common.h"
#include "match/blockmatch.h"

namespace {

using bench::Clock;

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::string plugin = BENCH_PLUGIN_PATH;
  std::vector<int> streams;          /* --streams; default 1,8,32,64 */
  std::vector<std::string> backends; /* cpu, cuda */
  std::vector<std::string> methods;  /* element nicks; default full */
  int width = 1920, height = 1080;
  int block = 16, range = 16, subpel = 1;
  int levels = 0, predictors = 0; /* 0 = the element's defaults */
  int depth = -1;                 /* pipeline-depth; < 0: 2 on CUDA, 0 on the CPU */
  int n_threads = -1;             /* < 0: max(1, cores / N) */
  int frames = 0;                 /* per stream; 0 = --seconds */
  double seconds = 0;             /* 0 and no --frames: 5 (unpaced), 10 (paced) */
  int skip = 5;                   /* k0 */
  bool paced = false;
  double fps = 30;
  double late_tolerance = 0.01;
  double budget = 1; /* paced: frame periods allowed after the push of frame k + D */
  double timeout_s = 600;
  double max_run_s = 120;
  bool keep_going = false;
  bool synthetic = false;
  std::string csv_file;
};

/* ---- One stream ----------------------------------------------------------- */

struct Shared {
  const bench::Clip* clip = nullptr;
  int frames = 0;     /* fixed count per stream, or 0 */
  int min_frames = 0; /* with --seconds: at least this many */
  /* With --seconds: steady_clock ns at which feeding stops; 0 until the
   * streams are set to PLAYING (preroll feeds freely). */
  std::atomic<long long> t_end_ns{0};
  double fps = 30;
};

struct Stream {
  int index = 0;
  int phase = 0; /* offset into the clip walk */
  Shared* shared = nullptr;
  GstElement* pipeline = nullptr;
  GstElement* src = nullptr;
  GstElement* me = nullptr;
  GstElement* sink = nullptr;
  GstBus* bus = nullptr;
  int pushed = 0; /* written by the feeding thread only */
  bool eos_sent = false;
  std::vector<Clock::time_point> handoffs; /* streaming thread only */
  std::vector<Clock::time_point> pushes;   /* paced: the pacer's actual push times */
  bool done = false;
  std::string error;
};

long long now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             Clock::now().time_since_epoch())
      .count();
}

GstFlowReturn push_frame(Stream* s, int k) {
  const bench::Clip& clip = *s->shared->clip;
  const gsize bytes = static_cast<gsize>(clip.width) * clip.height;
  GstBuffer* buf = gst_buffer_new_wrapped_full(
      GST_MEMORY_FLAG_READONLY, const_cast<uint8_t*>(clip.walk(k + s->phase)), bytes, 0,
      bytes, nullptr, nullptr);
  GST_BUFFER_PTS(buf) =
      static_cast<GstClockTime>(std::llround(k * (GST_SECOND / s->shared->fps)));
  GST_BUFFER_DURATION(buf) = static_cast<GstClockTime>(GST_SECOND / s->shared->fps);
  return gst_app_src_push_buffer(GST_APP_SRC(s->src), buf);
}

/* Unpaced feeding: called by appsrc (in the stream's streaming thread) each
 * time its queue runs empty. */
void on_need_data(GstAppSrc* src, guint, gpointer user_data) {
  Stream* s = static_cast<Stream*>(user_data);
  if (s->eos_sent) return;
  const Shared& sh = *s->shared;
  bool stop;
  if (sh.frames > 0) {
    stop = s->pushed >= sh.frames;
  } else {
    const long long end = sh.t_end_ns.load(std::memory_order_acquire);
    stop = end != 0 && s->pushed >= sh.min_frames && now_ns() >= end;
  }
  if (stop) {
    gst_app_src_end_of_stream(src);
    s->eos_sent = true;
    return;
  }
  push_frame(s, s->pushed++);
}

void on_handoff(GstElement*, GstBuffer*, GstPad*, gpointer user_data) {
  static_cast<Stream*>(user_data)->handoffs.push_back(Clock::now());
}

/* ---- The element's properties ------------------------------------------------ */

struct ElementProps {
  bool pipeline_depth = false;
  guint depth_max = 0;
  std::vector<std::string> method_nicks; /* empty: no 'method' property */
  bool levels = false, predictors = false;
};

ElementProps find_element_props() {
  ElementProps p;
  GstElement* e = gst_element_factory_make("blockmatchme", nullptr);
  if (!e) return p;
  GObjectClass* k = G_OBJECT_GET_CLASS(e);
  if (GParamSpec* ps = g_object_class_find_property(k, "pipeline-depth")) {
    if (G_IS_PARAM_SPEC_UINT(ps)) {
      p.pipeline_depth = true;
      p.depth_max = G_PARAM_SPEC_UINT(ps)->maximum;
    }
  }
  if (GParamSpec* ms = g_object_class_find_property(k, "method"))
    if (G_IS_PARAM_SPEC_ENUM(ms)) {
      const GEnumClass* ec = G_PARAM_SPEC_ENUM(ms)->enum_class;
      for (guint i = 0; i < ec->n_values; ++i)
        p.method_nicks.push_back(ec->values[i].value_nick);
    }
  p.levels = g_object_class_find_property(k, "levels") != nullptr;
  p.predictors = g_object_class_find_property(k, "predictors") != nullptr;
  gst_object_unref(e);
  return p;
}

/* ---- One measurement: N streams ---------------------------------------------- */

struct Setting {
  std::string backend, method;
  int streams = 1;
  int threads = 1; /* n-threads set on every element */
  int depth = 0;   /* pipeline-depth set (0 when the element lacks it) */
};

struct Result {
  Setting set;
  std::string status; /* empty = measured */
  std::string active; /* stream 0's active-backend (+ "and K others" when they differ) */
  int frames_min = 0, frames_max = 0; /* frames pushed per stream */
  double total_s = 0;                 /* PLAYING to the last handoff */
  /* Per-stream fps in the window used (common, or own when !common). */
  bool common = false;
  double window_s = 0;
  double agg = 0, fmin = 0, fmed = 0, fmax = 0;
  /* Own windows (frame k0 to the last), for reference. */
  double own_agg = 0, own_min = 0, own_med = 0;
  /* Paced. */
  long long timed = 0, late = 0;
  int kept = 0;
  double worst_late_frac = 0;
  double max_excess_ms = 0, med_excess_ms = 0;
  double pacer_lag_ms = 0; /* worst (actual - scheduled) push time */
  bool realtime = false;
};

std::string bus_error(GstMessage* msg) {
  GError* e = nullptr;
  gchar* dbg = nullptr;
  gst_message_parse_error(msg, &e, &dbg);
  std::string s = e ? e->message : "?";
  if (dbg) s += std::string(" (") + dbg + ")";
  std::replace(s.begin(), s.end(), '\n', ' ');
  g_clear_error(&e);
  g_free(dbg);
  return s;
}

double seconds_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

Result run_streams(const Options& o, const ElementProps& props, const Setting& set,
                   const bench::Clip& clip) {
  Result res;
  res.set = set;
  const int n = set.streams;
  const int d = set.depth;
  const double period = 1.0 / o.fps;

  Shared shared;
  shared.clip = &clip;
  shared.fps = o.fps;
  const int min_frames = o.skip + d + 4;
  int frames = o.frames;
  double seconds = o.seconds;
  if (frames <= 0 && seconds <= 0) seconds = o.paced ? 10 : 5;
  if (o.paced && frames <= 0) frames = static_cast<int>(std::lround(seconds * o.fps));
  if (frames > 0) frames = std::max(frames, min_frames);
  shared.frames = frames;
  shared.min_frames = min_frames;

  std::vector<std::unique_ptr<Stream>> streams;
  auto teardown = [&]() {
    for (auto& s : streams)
      if (s->pipeline) gst_element_set_state(s->pipeline, GST_STATE_NULL);
    for (auto& s : streams) {
      if (s->bus) gst_object_unref(s->bus);
      for (GstElement* e : {s->src, s->me, s->sink})
        if (e) gst_object_unref(e);
      if (s->pipeline) gst_object_unref(s->pipeline);
    }
    streams.clear();
  };
  auto fail = [&](const std::string& why) {
    res.status = "FAILED: " + why;
    teardown();
    return res;
  };

  GstCaps* caps = gst_caps_new_simple(
      "video/x-raw", "format", G_TYPE_STRING, "GRAY8", "width", G_TYPE_INT, clip.width,
      "height", G_TYPE_INT, clip.height, "framerate", GST_TYPE_FRACTION,
      static_cast<int>(std::lround(o.fps * 1000)), 1000, nullptr);
  const int walk_period = clip.count < 2 ? 1 : 2 * (clip.count - 1);
  for (int i = 0; i < n; ++i) {
    auto s = std::make_unique<Stream>();
    s->index = i;
    s->phase = static_cast<int>((static_cast<long long>(i) * 5) % walk_period);
    s->shared = &shared;
    s->handoffs.reserve(frames > 0 ? frames : static_cast<size_t>(seconds * 200 + 64));
    GError* err = nullptr;
    s->pipeline = gst_parse_launch(
        "appsrc name=src format=time ! blockmatchme name=me ! "
        "fakesink name=sink sync=false signal-handoffs=true enable-last-sample=false",
        &err);
    if (!s->pipeline) {
      const std::string why = std::string("pipeline: ") + (err ? err->message : "?");
      g_clear_error(&err);
      gst_caps_unref(caps);
      return fail(why);
    }
    s->src = gst_bin_get_by_name(GST_BIN(s->pipeline), "src");
    s->me = gst_bin_get_by_name(GST_BIN(s->pipeline), "me");
    s->sink = gst_bin_get_by_name(GST_BIN(s->pipeline), "sink");
    s->bus = gst_element_get_bus(s->pipeline);
    g_object_set(s->src, "caps", caps, "max-bytes", static_cast<guint64>(0), nullptr);
    g_object_set(s->me, "block-width", static_cast<guint>(o.block), "block-height",
                 static_cast<guint>(o.block), "search-range-x",
                 static_cast<guint>(o.range), "search-range-y",
                 static_cast<guint>(o.range), "n-threads",
                 static_cast<guint>(set.threads), nullptr);
    gst_util_set_object_arg(G_OBJECT(s->me), "subpixel",
                            o.subpel == 2   ? "half"
                            : o.subpel == 4 ? "quarter"
                                            : "integer");
    gst_util_set_object_arg(G_OBJECT(s->me), "backend", set.backend.c_str());
    if (!props.method_nicks.empty())
      gst_util_set_object_arg(G_OBJECT(s->me), "method", set.method.c_str());
    if (o.levels > 0 && props.levels)
      g_object_set(s->me, "levels", static_cast<guint>(o.levels), nullptr);
    if (o.predictors > 0 && props.predictors)
      g_object_set(s->me, "predictors", static_cast<guint>(o.predictors), nullptr);
    if (props.pipeline_depth)
      g_object_set(s->me, "pipeline-depth", static_cast<guint>(d), nullptr);
    g_signal_connect(s->sink, "handoff", G_CALLBACK(on_handoff), s.get());
    if (!o.paced) {
      GstAppSrcCallbacks cb = {};
      cb.need_data = on_need_data;
      gst_app_src_set_callbacks(GST_APP_SRC(s->src), &cb, s.get(), nullptr);
    } else {
      s->pushes.reserve(frames);
    }
    streams.push_back(std::move(s));
  }
  gst_caps_unref(caps);

  /* Preroll every pipeline (paced: frames 0..D pushed by hand first). */
  if (o.paced)
    for (auto& s : streams) {
      for (int k = 0; k <= d; ++k) {
        s->pushes.push_back(Clock::now());
        if (push_frame(s.get(), k) != GST_FLOW_OK) return fail("appsrc refused a buffer");
      }
      s->pushed = d + 1;
    }
  for (auto& s : streams)
    if (gst_element_set_state(s->pipeline, GST_STATE_PAUSED) == GST_STATE_CHANGE_FAILURE)
      return fail("stream " + std::to_string(s->index) + " cannot go to PAUSED");
  const Clock::time_point preroll_deadline =
      Clock::now() + std::chrono::milliseconds(
                         static_cast<long long>(1e3 * std::min(120.0, o.timeout_s)));
  for (auto& s : streams) {
    GstState state = GST_STATE_NULL;
    GstStateChangeReturn r = GST_STATE_CHANGE_ASYNC;
    while (r == GST_STATE_CHANGE_ASYNC && Clock::now() < preroll_deadline)
      r = gst_element_get_state(s->pipeline, &state, nullptr, 100 * GST_MSECOND);
    if (r == GST_STATE_CHANGE_FAILURE || r == GST_STATE_CHANGE_ASYNC) {
      std::string why = "stream " + std::to_string(s->index) +
                        (r == GST_STATE_CHANGE_ASYNC ? " did not preroll in time"
                                                     : " failed to preroll");
      if (GstMessage* m = gst_bus_pop_filtered(s->bus, GST_MESSAGE_ERROR)) {
        why += ": " + bus_error(m);
        gst_message_unref(m);
      }
      return fail(why);
    }
  }

  /* Start: all to PLAYING. */
  const Clock::time_point t_start = Clock::now();
  if (!o.paced && frames <= 0)
    shared.t_end_ns.store(now_ns() + static_cast<long long>(seconds * 1e9),
                          std::memory_order_release);
  for (auto& s : streams) gst_element_set_state(s->pipeline, GST_STATE_PLAYING);

  /* Paced: the pacer thread. Frame k >= D+1 of stream i at
   * t0 + (k - (D+1) + i/N) * period. */
  std::atomic<bool> abort_pacer{false};
  const Clock::time_point t0 = Clock::now() + std::chrono::milliseconds(20);
  auto sched = [&](int i, int k) {
    return t0 + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(
                    (k - (d + 1) + static_cast<double>(i) / n) * period));
  };
  std::thread pacer;
  if (o.paced) {
    pacer = std::thread([&]() {
      for (int k = d + 1; k < frames && !abort_pacer.load(); ++k)
        for (int i = 0; i < n; ++i) {
          std::this_thread::sleep_until(sched(i, k));
          Stream* s = streams[i].get();
          s->pushes.push_back(Clock::now());
          push_frame(s, k);
          s->pushed = k + 1;
          if (k == frames - 1) gst_app_src_end_of_stream(GST_APP_SRC(s->src));
        }
    });
  }

  /* Wait for every EOS (or an error, or the timeout). */
  const Clock::time_point deadline =
      t_start + std::chrono::milliseconds(static_cast<long long>(1e3 * o.timeout_s));
  std::string first_error;
  for (auto& s : streams) {
    while (!s->done) {
      const double left = seconds_between(Clock::now(), deadline);
      if (left <= 0) {
        s->error = "timeout (--timeout " + bench::fmt_double(o.timeout_s, "%.0f") + " s)";
        break;
      }
      GstMessage* m = gst_bus_timed_pop_filtered(
          s->bus, static_cast<GstClockTime>(std::min(left, 1.0) * GST_SECOND),
          static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
      if (!m) continue;
      if (GST_MESSAGE_TYPE(m) == GST_MESSAGE_ERROR) s->error = bus_error(m);
      s->done = true;
      gst_message_unref(m);
    }
    if (!s->error.empty()) {
      if (first_error.empty())
        first_error = "stream " + std::to_string(s->index) + ": " + s->error;
      abort_pacer = true;
      break; /* the measurement failed: stop waiting for the others */
    }
  }
  if (pacer.joinable()) {
    abort_pacer = abort_pacer.load() || !first_error.empty();
    pacer.join();
  }

  /* The backends in use. */
  {
    std::vector<std::string> actives;
    for (auto& s : streams) {
      gchar* ab = nullptr;
      if (g_object_class_find_property(G_OBJECT_GET_CLASS(s->me), "active-backend"))
        g_object_get(s->me, "active-backend", &ab, nullptr);
      actives.push_back(ab ? ab : "");
      g_free(ab);
    }
    res.active = actives.empty() ? "" : actives[0];
    const long differ =
        std::count_if(actives.begin(), actives.end(),
                      [&](const std::string& a) { return a != actives[0]; });
    if (differ > 0)
      res.active += " (" + std::to_string(differ) + " streams report another)";
  }
  if (!first_error.empty()) return fail(first_error);

  /* ---- Statistics ---- */
  res.frames_min = res.frames_max = streams[0]->pushed;
  for (auto& s : streams) {
    res.frames_min = std::min(res.frames_min, s->pushed);
    res.frames_max = std::max(res.frames_max, s->pushed);
    if (static_cast<int>(s->handoffs.size()) != s->pushed)
      return fail("stream " + std::to_string(s->index) + ": " +
                  std::to_string(s->handoffs.size()) + " buffers out of " +
                  std::to_string(s->pushed) + " pushed");
  }
  for (auto& s : streams)
    if (!s->handoffs.empty())
      res.total_s = std::max(res.total_s, seconds_between(t_start, s->handoffs.back()));
  /* Steady window of stream s: frames [k0, last]. */
  const int k0 = o.skip;
  auto last_of = [&](const Stream& s) {
    return static_cast<int>(s.handoffs.size()) - 1 - d;
  };
  for (auto& s : streams)
    if (last_of(*s) - k0 < 2)
      return fail("stream " + std::to_string(s->index) + ": too few frames (" +
                  std::to_string(s->pushed) + ") for --skip " + std::to_string(k0) +
                  " and depth " + std::to_string(d));

  std::vector<double> own(n), win(n);
  Clock::time_point T0 = streams[0]->handoffs[k0],
                    T1 = streams[0]->handoffs[last_of(*streams[0])];
  for (int i = 0; i < n; ++i) {
    const Stream& s = *streams[i];
    const int last = last_of(s);
    own[i] = (last - k0) / seconds_between(s.handoffs[k0], s.handoffs[last]);
    T0 = std::max(T0, s.handoffs[k0]);
    T1 = std::min(T1, s.handoffs[last]);
  }
  bool common = T1 > T0;
  for (int i = 0; i < n && common; ++i) {
    const Stream& s = *streams[i];
    const int last = last_of(s);
    int a = k0;
    while (a <= last && s.handoffs[a] < T0) ++a;
    int b = last;
    while (b >= k0 && s.handoffs[b] > T1) --b;
    if (b - a < 2) {
      common = false;
      break;
    }
    win[i] = (b - a) / seconds_between(s.handoffs[a], s.handoffs[b]);
  }
  const std::vector<double>& used = common ? win : own;
  res.common = common;
  res.window_s = common ? seconds_between(T0, T1) : 0;
  for (double f : used) res.agg += f;
  res.fmin = *std::min_element(used.begin(), used.end());
  res.fmax = *std::max_element(used.begin(), used.end());
  res.fmed = bench::median(used);
  for (double f : own) res.own_agg += f;
  res.own_min = *std::min_element(own.begin(), own.end());
  res.own_med = bench::median(own);

  if (!o.paced) {
    res.realtime = res.fmin >= o.fps;
  } else {
    std::vector<double> excess_all;
    for (int i = 0; i < n; ++i) {
      const Stream& s = *streams[i];
      const int last = last_of(s);
      long long late = 0, timed = 0;
      for (int k = k0; k <= last; ++k) {
        const double ex = seconds_between(sched(i, k + d), s.handoffs[k]);
        excess_all.push_back(ex);
        res.max_excess_ms = std::max(res.max_excess_ms, 1e3 * ex);
        ++timed;
        if (ex > o.budget * period) ++late;
      }
      for (int k = d + 1; k < static_cast<int>(s.pushes.size()); ++k)
        res.pacer_lag_ms =
            std::max(res.pacer_lag_ms, 1e3 * seconds_between(sched(i, k), s.pushes[k]));
      res.timed += timed;
      res.late += late;
      const double frac = timed > 0 ? static_cast<double>(late) / timed : 1;
      res.worst_late_frac = std::max(res.worst_late_frac, frac);
      if (frac <= o.late_tolerance) ++res.kept;
    }
    res.med_excess_ms = 1e3 * bench::median(excess_all);
    res.realtime = res.kept == n;
  }
  teardown();
  return res;
}

/* ---- Output ------------------------------------------------------------------- */

std::string f1(double v) {
  char b[32];
  std::snprintf(b, sizeof b, v >= 1000 ? "%.0f" : v >= 100 ? "%.1f" : "%.2f", v);
  return b;
}

void print_header(bool paced) {
  if (!paced)
    std::printf("%-7s %-13s %5s %5s %2s %10s %9s %9s %9s %8s %-9s %s\n", "backend",
                "method", "N", "thr", "D", "agg fps", "min fps", "med fps", "max fps",
                "window s", "real-time", "frames/stream");
  else
    std::printf("%-7s %-13s %5s %5s %2s %10s %9s %9s %9s %7s %9s %9s %-9s\n", "backend",
                "method", "N", "thr", "D", "agg fps", "min fps", "kept up", "late",
                "late%", "max delay", "pacer lag", "real-time");
}

void print_row(const Options& o, const Result& r) {
  const Setting& s = r.set;
  if (!r.status.empty()) {
    std::printf("%-7s %-13s %5d %5d %2d %s\n", s.backend.c_str(), s.method.c_str(),
                s.streams, s.threads, s.depth, r.status.c_str());
    return;
  }
  if (!o.paced) {
    char frames[40];
    if (r.frames_min == r.frames_max)
      std::snprintf(frames, sizeof frames, "%d", r.frames_min);
    else
      std::snprintf(frames, sizeof frames, "%d-%d", r.frames_min, r.frames_max);
    std::printf("%-7s %-13s %5d %5d %2d %10s %9s %9s %9s %8s %-9s %s%s\n",
                s.backend.c_str(), s.method.c_str(), s.streams, s.threads, s.depth,
                f1(r.agg).c_str(), f1(r.fmin).c_str(), f1(r.fmed).c_str(),
                f1(r.fmax).c_str(),
                r.common ? bench::fmt_double(r.window_s, "%.2f").c_str() : "own",
                r.realtime ? "yes" : "NO", frames, r.common ? "" : " (own windows)");
  } else {
    char kept[24], late[32], pct[16], maxl[24], lag[24];
    std::snprintf(kept, sizeof kept, "%d/%d", r.kept, s.streams);
    std::snprintf(late, sizeof late, "%lld", r.late);
    std::snprintf(pct, sizeof pct, "%.2f%%", r.timed ? 100.0 * r.late / r.timed : 0.0);
    std::snprintf(maxl, sizeof maxl, "%.1f ms", r.max_excess_ms);
    std::snprintf(lag, sizeof lag, "%.1f ms", r.pacer_lag_ms);
    std::printf("%-7s %-13s %5d %5d %2d %10s %9s %9s %9s %7s %9s %9s %-9s\n",
                s.backend.c_str(), s.method.c_str(), s.streams, s.threads, s.depth,
                f1(r.agg).c_str(), f1(r.fmin).c_str(), kept, late, pct, maxl, lag,
                r.realtime ? "yes" : "NO");
  }
}

void write_csv(FILE* f, const Options& o, const Result& r, const bench::Clip& clip) {
  const Setting& s = r.set;
  const bool ok = r.status.empty();
  auto num = [&](double v, const char* fmt = "%.6g") {
    return ok ? bench::fmt_double(v, fmt) : std::string();
  };
  std::fprintf(f,
               "%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%d,%s,%s,%s,%s,%s,%s,%s,%s,%"
               "s,%s,%lld,%lld,"
               "%s,%s,%s,%s,%s,%s,%s,%s\n",
               o.paced ? "paced" : "unpaced", s.backend.c_str(),
               bench::csv(s.method).c_str(), o.levels, o.predictors, clip.width,
               clip.height, o.block, o.range, o.subpel, s.streams, s.threads, s.depth,
               bench::fmt_double(o.fps, "%g").c_str(), r.frames_min, r.frames_max,
               ok ? (r.common ? "common" : "own") : "", num(r.window_s, "%.4f").c_str(),
               num(r.agg).c_str(), num(r.fmin).c_str(), num(r.fmed).c_str(),
               num(r.fmax).c_str(), num(r.own_agg).c_str(), num(r.own_min).c_str(),
               num(r.own_med).c_str(), ok ? (r.realtime ? "yes" : "no") : "", r.timed,
               r.late, o.paced && ok ? std::to_string(r.kept).c_str() : "",
               o.paced ? num(r.max_excess_ms, "%.3f").c_str() : "",
               o.paced ? num(r.med_excess_ms, "%.3f").c_str() : "",
               o.paced ? num(r.pacer_lag_ms, "%.3f").c_str() : "",
               num(r.total_s, "%.3f").c_str(), bench::csv(r.active).c_str(),
               bench::csv(clip.origin).c_str(), bench::csv(ok ? "ok" : r.status).c_str());
  std::fflush(f);
}

/* ---- Options ------------------------------------------------------------------ */

void usage(const char* argv0) {
  std::printf(
      "Usage: %s [options]\n"
      "How many concurrent camera streams (default 1080p GRAY8) blockmatchme sustains "
      "in\n"
      "real time: N pipelines appsrc ! blockmatchme ! fakesink sync=false in one "
      "process.\n"
      "  --streams LIST       N values, e.g. 1,8,16,32,64,96,128 (default 1,8,32,64)\n"
      "  --backend cpu|cuda   (repeatable; default cuda, cpu without a CUDA device)\n"
      "  --method NAME        full hierarchical three-step diamond hexagon predictive\n"
      "                       (repeatable; default full)\n"
      "  --levels N, --predictors N   method=hierarchical (default: the element's)\n"
      "  --block N            block size (16)     --range R   search range +-R (16)\n"
      "  --subpel 1|2|4       integer, half, quarter (1)\n"
      "  --size WxH           frame size (1920x1080)\n"
      "  --pipeline-depth D   the element's pipeline-depth (default 2 on CUDA, 0 on the "
      "CPU)\n"
      "  --n-threads T        n-threads of every element (default max(1, cores / N);\n"
      "                       0: the element's default, its own share of the cores)\n"
      "  --frames F           frames per stream (default: --seconds)\n"
      "  --seconds S          feed for S seconds (default 5; paced: 10 s = S x fps "
      "frames)\n"
      "  --skip K             frames before the timed window, k0 (default 5)\n"
      "  --paced              each stream pushed at --fps in real time; count late "
      "frames\n"
      "  --fps R              the camera rate (30): the real-time threshold and the "
      "pace\n"
      "  --late-tolerance P   paced: a stream keeps up with <= P late frames (0.01)\n"
      "  --budget B           paced: frame k is late after B periods past the push of\n"
      "                       frame k+D (1)\n"
      "  --keep-going         run every N, even those skipped as hopeless (see below)\n"
      "  --max-run-s S        see below (120)\n"
      "  --timeout S          give up on a measurement after S seconds (600)\n"
      "  --frames-dir DIR     bench clips (default $MATCH_BENCH_FRAMES or\n"
      "                       $TMPDIR/gst-motion-bench-frames; bench/prepare-frames.sh)\n"
      "  --synthetic          synthetic frames instead of the clip\n"
      "  --plugin PATH        the plugin to load (default %s)\n"
      "  --csv FILE           also write every row to FILE\n"
      "Unless --keep-going, once an N is not real-time, a larger N is skipped when its "
      "frames\n"
      "would take more than --max-run-s at the best aggregate fps so far (unpaced), or "
      "at\n"
      "all (paced).\n",
      argv0, BENCH_PLUGIN_PATH);
}

bool parse_int_list(const char* s, std::vector<int>* out) {
  out->clear();
  const char* p = s;
  while (*p) {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p || v < 1 || v > 4096) return false;
    out->push_back(static_cast<int>(v));
    p = end;
    if (*p == ',')
      ++p;
    else if (*p)
      return false;
  }
  return !out->empty();
}

bool parse_args(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      usage(argv[0]);
      std::exit(0);
    } else if (a == "--paced") {
      o->paced = true;
      continue;
    } else if (a == "--keep-going") {
      o->keep_going = true;
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
    if (a == "--streams") {
      if (!parse_int_list(v, &o->streams)) {
        std::fprintf(stderr, "--streams wants a list like 1,8,32, got '%s'\n", v);
        return false;
      }
    } else if (a == "--backend") {
      if (std::strcmp(v, "cpu") && std::strcmp(v, "cuda")) {
        std::fprintf(stderr, "--backend wants cpu or cuda, got '%s'\n", v);
        return false;
      }
      if (std::find(o->backends.begin(), o->backends.end(), v) == o->backends.end())
        o->backends.push_back(v);
    } else if (a == "--method") {
      if (std::find(o->methods.begin(), o->methods.end(), v) == o->methods.end())
        o->methods.push_back(v);
    } else if (a == "--levels") {
      o->levels = std::atoi(v);
    } else if (a == "--predictors") {
      o->predictors = std::atoi(v);
    } else if (a == "--block") {
      o->block = std::atoi(v);
    } else if (a == "--range") {
      o->range = std::atoi(v);
    } else if (a == "--subpel") {
      o->subpel = std::atoi(v);
      if (o->subpel != 1 && o->subpel != 2 && o->subpel != 4) return false;
    } else if (a == "--size") {
      if (std::sscanf(v, "%dx%d", &o->width, &o->height) != 2 || o->width < 1 ||
          o->height < 1)
        return false;
    } else if (a == "--pipeline-depth") {
      o->depth = std::atoi(v);
      if (o->depth < 0) return false;
    } else if (a == "--n-threads") {
      o->n_threads = std::atoi(v);
      if (o->n_threads < 0) return false;
    } else if (a == "--frames") {
      o->frames = std::max(1, std::atoi(v));
    } else if (a == "--seconds") {
      o->seconds = std::atof(v);
      if (!(o->seconds > 0)) return false;
    } else if (a == "--skip") {
      o->skip = std::max(1, std::atoi(v));
    } else if (a == "--fps") {
      o->fps = std::atof(v);
      if (!(o->fps > 0)) return false;
    } else if (a == "--late-tolerance") {
      o->late_tolerance = std::atof(v);
    } else if (a == "--budget") {
      o->budget = std::atof(v);
      if (!(o->budget > 0)) return false;
    } else if (a == "--timeout") {
      o->timeout_s = std::atof(v);
    } else if (a == "--max-run-s") {
      o->max_run_s = std::atof(v);
    } else if (a == "--frames-dir") {
      o->frames_dir = v;
    } else if (a == "--plugin") {
      o->plugin = v;
    } else if (a == "--csv") {
      o->csv_file = v;
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      return false;
    }
  }
  if (o->frames > 0 && o->seconds > 0) {
    std::fprintf(stderr, "--frames and --seconds are alternatives: give one\n");
    return false;
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
  if (o.streams.empty()) o.streams = {1, 8, 32, 64};
  if (o.methods.empty()) o.methods = {"full"};

  GError* err = nullptr;
  GstPlugin* plugin = gst_plugin_load_file(o.plugin.c_str(), &err);
  if (!plugin) {
    std::fprintf(stderr, "cannot load %s: %s\n", o.plugin.c_str(),
                 err ? err->message : "?");
    g_clear_error(&err);
    return 1;
  }
  gst_object_unref(plugin);
  const ElementProps props = find_element_props();

  std::vector<std::string> notes;
  const int ndev = match::cuda_device_count();
  if (o.backends.empty()) {
    o.backends.push_back(ndev > 0 ? "cuda" : "cpu");
    if (ndev == 0) notes.push_back("no --backend given and no CUDA device: the CPU only");
  }
  std::vector<std::string> backends;
  for (const std::string& b : o.backends) {
    if (b == "cuda" && ndev == 0)
      notes.push_back(
          "backend cuda SKIPPED: match::cuda_device_count() == 0 (no CUDA backend in "
          "this build, no driver or no GPU)");
    else
      backends.push_back(b);
  }
  std::vector<std::string> methods;
  for (const std::string& m : o.methods) {
    const bool has = props.method_nicks.empty()
                         ? m == "full"
                         : std::find(props.method_nicks.begin(), props.method_nicks.end(),
                                     m) != props.method_nicks.end();
    if (has)
      methods.push_back(m);
    else
      notes.push_back("method " + m + " SKIPPED: the element has no such 'method' value");
  }
  if (o.depth > 0 && !props.pipeline_depth)
    notes.push_back("the element has no 'pipeline-depth' property: every row at depth 0");

  const int cores = bench::all_threads();
  const char* omp_env = std::getenv("OMP_NUM_THREADS");
  bench::Clip clip =
      bench::load_clip(o.frames_dir, o.width, o.height, 12, true, o.synthetic);

  std::printf(
      "bench_streams: N pipelines in one process, each appsrc (GRAY8 %dx%d, wrapped, no "
      "copies) ! blockmatchme ! fakesink sync=false\n",
      o.width, o.height);
  std::printf("plugin: %s\n", o.plugin.c_str());
  std::printf("frames: %s, %d frames (%s)\n", clip.origin.c_str(), clip.count,
              clip.kind().c_str());
  std::printf("search: %dx%d blocks, +-%d, %s grid; methods:", o.block, o.block, o.range,
              bench::grid_name(o.subpel));
  for (const std::string& m : methods) std::printf(" %s", m.c_str());
  if (o.levels > 0 || o.predictors > 0)
    std::printf(" (levels %d, predictors %d; 0 = element default)", o.levels,
                o.predictors);
  std::printf(
      "\nCPU: %d threads available to OpenMP (OMP_NUM_THREADS=%s); n-threads per "
      "element: "
      "%s\n",
      cores, omp_env ? omp_env : "unset",
      o.n_threads >= 0 ? std::to_string(o.n_threads).c_str() : "max(1, cores / N)");
  bench::print_cuda_devices(stdout);
  if (!o.paced)
    std::printf(
        "mode: unpaced, every stream as fast as it goes, %s per stream; fps from the "
        "handoff of frame %d to the last before the D held ones, in the window where "
        "every stream runs\n",
        o.frames > 0
            ? (std::to_string(o.frames) + " frames").c_str()
            : (bench::fmt_double(o.seconds > 0 ? o.seconds : 5, "%g") + " s").c_str(),
        o.skip);
  else
    std::printf(
        "mode: paced at %g fps, %s per stream, phases spread over a period; late = "
        "handoff of frame k more than %.1f ms after the push of frame k+D; a stream "
        "keeps up with <= %.3g%% late (frames %d.. timed)\n",
        o.fps,
        o.frames > 0
            ? (std::to_string(o.frames) + " frames").c_str()
            : (bench::fmt_double(o.seconds > 0 ? o.seconds : 10, "%g") + " s").c_str(),
        1e3 * o.budget / o.fps, 100 * o.late_tolerance, o.skip);
  for (const std::string& n : notes) std::printf("NOTE: %s\n", n.c_str());
  if (backends.empty() || methods.empty()) {
    std::printf("bench_streams: nothing to run\n");
    return 0;
  }
  std::printf("\n");
  std::fflush(stdout);

  FILE* csv = nullptr;
  if (!o.csv_file.empty()) {
    csv = std::fopen(o.csv_file.c_str(), "w");
    if (!csv)
      std::fprintf(stderr, "cannot write %s\n", o.csv_file.c_str());
    else
      std::fprintf(
          csv,
          "mode,backend,method,levels,predictors,width,height,block,range,subpel,streams,"
          "n_threads,pipeline_depth,fps_target,frames_min,frames_max,window,window_s,"
          "aggregate_fps,min_fps,median_fps,max_fps,own_aggregate_fps,own_min_fps,"
          "own_median_fps,realtime,timed_frames,late_frames,streams_kept_up,"
          "max_late_ms,median_late_ms,pacer_lag_ms,total_s,active_backend,frames_source,"
          "status\n");
  }

  std::vector<Result> all;
  std::vector<std::string> answers;
  print_header(o.paced);
  std::fflush(stdout);
  bool failed = false;
  for (const std::string& b : backends)
    for (const std::string& m : methods) {
      const int depth = props.pipeline_depth
                            ? (o.depth >= 0 ? std::min<int>(o.depth, props.depth_max)
                                            : (b == "cuda" ? 2 : 0))
                            : 0;
      int best_n = 0;
      double best_agg = 0;
      bool any_fail = false;
      std::string active;
      for (int n : o.streams) {
        Setting s;
        s.backend = b, s.method = m, s.streams = n, s.depth = depth;
        s.threads = o.n_threads >= 0 ? o.n_threads : std::max(1, cores / n);
        /* A measurement that would clearly take too long: the aggregate
         * rate so far shared by N streams, each needing its frames. */
        if (!o.keep_going && best_agg > 0 && any_fail) {
          const double per_stream = best_agg / n;
          const int min_frames = o.skip + depth + 4;
          const double need =
              o.paced ? 0
                      : (o.frames > 0 ? std::max(o.frames, min_frames) / per_stream
                                      : std::max(o.seconds > 0 ? o.seconds : 5.0,
                                                 min_frames / per_stream));
          if (o.paced || need > o.max_run_s) {
            Result r;
            r.set = s;
            char why[200];
            if (o.paced)
              std::snprintf(
                  why, sizeof why,
                  "skipped: a smaller N did not keep up (--keep-going runs it)");
            else
              std::snprintf(why, sizeof why,
                            "skipped: ~%.0f s at the best aggregate so far (%.1f fps) > "
                            "--max-run-s %.0f (--keep-going runs it)",
                            need, best_agg, o.max_run_s);
            r.status = why;
            print_row(o, r);
            continue;
          }
        }
        Result r = run_streams(o, props, s, clip);
        print_row(o, r);
        std::fflush(stdout);
        if (csv) write_csv(csv, o, r, clip);
        if (!r.status.empty()) {
          if (r.status.compare(0, 6, "FAILED") == 0) failed = true;
          any_fail = true;
          all.push_back(r);
          continue;
        }
        if (active.empty()) active = r.active;
        best_agg = std::max(best_agg, r.agg);
        if (r.realtime)
          best_n = std::max(best_n, n);
        else
          any_fail = true;
        all.push_back(r);
      }
      char line[400];
      if (!o.paced)
        std::snprintf(
            line, sizeof line,
            "%s %s: max streams >= %g fps: %d (of N tried; aggregate up to %.0f fps, "
            "i.e. <= %d streams as an upper estimate)  [%s]",
            b.c_str(), m.c_str(), o.fps, best_n, best_agg,
            static_cast<int>(std::floor(best_agg / o.fps)), active.c_str());
      else
        std::snprintf(
            line, sizeof line,
            "%s %s: max streams >= %g fps: %d (paced: every stream kept up, of N "
            "tried)  [%s]",
            b.c_str(), m.c_str(), o.fps, best_n, active.c_str());
      answers.push_back(line);
    }
  if (csv) {
    std::fclose(csv);
    std::printf("\n(written to %s)\n", o.csv_file.c_str());
  }
  std::printf("\n");
  for (const std::string& a : answers) std::printf("%s\n", a.c_str());
  std::printf(
      "\n"
      "  N          concurrent pipelines; thr: n-threads of each element; D: "
      "pipeline-depth\n"
      "  agg fps    sum over the streams of their fps; min/med/max fps: per stream\n"
      "  window s   the common steady window (every stream between frame k0 and its "
      "last\n"
      "             timed frame); 'own': too short, each stream's own window instead\n");
  if (!o.paced)
    std::printf("  real-time  the slowest stream >= %g fps\n", o.fps);
  else
    std::printf(
        "  kept up    streams with <= %.3g%% late frames; late: frames whose handoff "
        "came more\n"
        "             than --budget periods after the push of frame k+D (D: the "
        "element's hold);\n"
        "             max delay: the worst handoff time after that push; pacer lag: the\n"
        "             pacer's own worst lateness (a busy host delays the pushes too)\n"
        "  real-time  every stream kept up\n",
        100 * o.late_tolerance);
  return failed ? 1 : 0;
}
