/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_pipeline: frames per second through the pocme and stereodisparity
 * elements, the "through the element" figures of their issues (bench_poc
 * and bench_stereo time the matchers alone; bench_element does this for
 * blockmatchme).
 *
 *   pocme:  appsrc ! pocme window-size=N spacing=S layers=L backend=B
 *           ! fakesink sync=false signal-handoffs=true
 *   stereo: appsrc (left) ! s.sink_left   appsrc (right) ! s.sink_right
 *           stereodisparity name=s num-disparities=D backend=B [plain]
 *           [pipeline-depth=P] ! fakesink sync=false signal-handoffs=true
 *   (pocme takes pipeline-depth=P too, where it has the property)
 *
 * All buffers are queued before PLAYING, wrapped (no copies: frames already
 * in system memory), with timestamps 1/30 s apart; the stereo pads pair them
 * by timestamp. The time per frame is taken from the sink's handoffs, from
 * buffer `skip` to the last (start-up and the first, unestimated frame of
 * pocme excluded); with pipeline-depth P the last P maps leave in a burst at
 * EOS (the element drains what it holds), so the interval ends P buffers
 * before the last. Median of `runs`. Frames: the clips of
 * bench/prepare-frames.sh (ping-pong walk, so successive frames are
 * neighbours), resampled when the size is missing, else synthetic; the right
 * view is synthesised from each left frame as bench_stereo does.
 */
#include <gst/app/app.h>
#include <gst/gst.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.h"

namespace {

using bench::Clock;

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::string plugin = BENCH_PLUGIN_PATH;
  std::vector<std::string> elements; /* pocme, stereodisparity */
  std::vector<std::string> backends; /* cpu, cuda, auto */
  std::vector<std::string> case_sel;
  int frames = 60;
  int runs = 3;
  int layers = -1; /* pocme: the case's when < 0 */
  bool plain = false;
  std::vector<std::string> sets; /* --set PROP=VALUE, in order */
  std::vector<int> depths;       /* stereodisparity pipeline-depth, CUDA/auto rows */
  std::string csv_file;
};

/* One benchmark case: an element at a size with its settings. */
struct Case {
  std::string id, element;
  int w, h;
  int a, b, c; /* pocme: window, spacing, layers; stereo: disparities, window */
};

std::vector<Case> all_cases() {
  return {
      /* pocme: paper [E]'s case and the issue's 1080p target case. */
      {"E-720-256", "pocme", 1280, 720, 256, 32, 1},
      {"1080-64", "pocme", 1920, 1080, 64, 16, 1},
      /* stereodisparity: the issue's four, 7x7 window. */
      {"720p-128", "stereodisparity", 1280, 720, 128, 7, 0},
      {"720p-256", "stereodisparity", 1280, 720, 256, 7, 0},
      {"1080p-128", "stereodisparity", 1920, 1080, 128, 7, 0},
      {"1080p-256", "stereodisparity", 1920, 1080, 256, 7, 0},
  };
}

/* The right view of a rectified pair from the left one: R(x) = L(x + d)
 * with a smooth field d in [0, 0.6 num] (bench_stereo's). */
void synthesise_right(const uint8_t* l, uint8_t* r, int w, int h, int num) {
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const double d =
          0.6 * num *
          (0.5 + 0.25 * std::sin(x * 0.004 + y * 0.002) + 0.25 * std::cos(y * 0.006));
      const double sx = std::min<double>(x + d, w - 1);
      const int x0 = static_cast<int>(sx);
      const int x1 = std::min(x0 + 1, w - 1);
      const double a = sx - x0;
      r[static_cast<size_t>(y) * w + x] =
          static_cast<uint8_t>(std::lround((1 - a) * l[static_cast<size_t>(y) * w + x0] +
                                           a * l[static_cast<size_t>(y) * w + x1]));
    }
}

struct HandoffLog {
  std::vector<Clock::time_point> times;
};

void on_handoff(GstElement*, GstBuffer*, GstPad*, gpointer user_data) {
  static_cast<HandoffLog*>(user_data)->times.push_back(Clock::now());
}

struct Run {
  double sec_per_frame = -1;
  std::string error, active_backend;
};

/* The element's pipeline-depth maximum, or -1 without the property. */
int max_pipeline_depth(const char* element) {
  GstElement* el = gst_element_factory_make(element, nullptr);
  if (!el) return -1;
  int max = -1;
  if (GParamSpec* ps =
          g_object_class_find_property(G_OBJECT_GET_CLASS(el), "pipeline-depth"))
    if (G_IS_PARAM_SPEC_UINT(ps)) max = static_cast<int>(G_PARAM_SPEC_UINT(ps)->maximum);
  gst_object_unref(el);
  return max;
}

bool push_all(GstElement* src, const bench::Clip& clip, const std::vector<uint8_t>* right,
              int frames) {
  const gsize bytes = static_cast<gsize>(clip.width) * clip.height;
  for (int i = 0; i < frames; ++i) {
    const uint8_t* px = clip.walk(i);
    if (right) {
      /* the right view of the same clip frame */
      const size_t k = static_cast<size_t>(px - clip.frame(0)) / bytes;
      px = right->data() + k * bytes;
    }
    GstBuffer* buf =
        gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, const_cast<uint8_t*>(px),
                                    bytes, 0, bytes, nullptr, nullptr);
    GST_BUFFER_PTS(buf) = gst_util_uint64_scale(i, GST_SECOND, 30);
    GST_BUFFER_DURATION(buf) = GST_SECOND / 30;
    if (gst_app_src_push_buffer(GST_APP_SRC(src), buf) != GST_FLOW_OK) return false;
  }
  gst_app_src_end_of_stream(GST_APP_SRC(src));
  return true;
}

void set_caps(GstElement* src, int w, int h) {
  GstCaps* caps = gst_caps_new_simple("video/x-raw", "format", G_TYPE_STRING, "GRAY8",
                                      "width", G_TYPE_INT, w, "height", G_TYPE_INT, h,
                                      "framerate", GST_TYPE_FRACTION, 30, 1, nullptr);
  g_object_set(src, "caps", caps, "max-bytes", static_cast<guint64>(0), "format",
               GST_FORMAT_TIME, nullptr);
  gst_caps_unref(caps);
}

/* depth < 0: pipeline-depth left alone (an element without it). */
Run run_once(const Options& o, const Case& c, const char* backend, int depth,
             const bench::Clip& clip, const std::vector<uint8_t>& right) {
  Run res;
  const bool stereo = c.element == "stereodisparity";
  const std::string desc =
      stereo ? "appsrc name=l ! s.sink_left appsrc name=r ! s.sink_right "
               "stereodisparity name=s ! fakesink name=sink sync=false "
               "signal-handoffs=true"
             : "appsrc name=l ! pocme name=s ! fakesink name=sink sync=false "
               "signal-handoffs=true";
  GError* err = nullptr;
  GstElement* pipeline = gst_parse_launch(desc.c_str(), &err);
  if (!pipeline) {
    res.error = std::string("pipeline: ") + (err ? err->message : "?");
    g_clear_error(&err);
    return res;
  }
  GstElement* l = gst_bin_get_by_name(GST_BIN(pipeline), "l");
  GstElement* r = stereo ? gst_bin_get_by_name(GST_BIN(pipeline), "r") : nullptr;
  GstElement* el = gst_bin_get_by_name(GST_BIN(pipeline), "s");
  GstElement* sink = gst_bin_get_by_name(GST_BIN(pipeline), "sink");
  gst_util_set_object_arg(G_OBJECT(el), "backend", backend);
  if (stereo) {
    g_object_set(el, "num-disparities", static_cast<guint>(c.a), "window-width",
                 static_cast<guint>(c.b), "window-height", static_cast<guint>(c.b),
                 nullptr);
    if (o.plain) g_object_set(el, "subpixel", FALSE, "lr-max-diff", -1, nullptr);
  } else {
    g_object_set(el, "window-size", static_cast<guint>(c.a), "spacing",
                 static_cast<guint>(c.b), "layers",
                 static_cast<guint>(o.layers >= 0 ? o.layers : c.c), nullptr);
  }
  if (depth > 0) g_object_set(el, "pipeline-depth", static_cast<guint>(depth), nullptr);
  for (const std::string& s : o.sets) {
    const size_t eq = s.find('=');
    gst_util_set_object_arg(G_OBJECT(el), s.substr(0, eq).c_str(),
                            s.substr(eq + 1).c_str());
  }
  set_caps(l, c.w, c.h);
  if (r) set_caps(r, c.w, c.h);
  HandoffLog log;
  log.times.reserve(o.frames);
  g_signal_connect(sink, "handoff", G_CALLBACK(on_handoff), &log);
  bool pushed = push_all(l, clip, nullptr, o.frames);
  if (r) pushed = pushed && push_all(r, clip, &right, o.frames);
  GstMessage* msg = nullptr;
  GstBus* bus = gst_element_get_bus(pipeline);
  if (!pushed) {
    res.error = "appsrc refused a buffer";
  } else {
    gst_element_set_state(pipeline, GST_STATE_PLAYING);
    msg = gst_bus_timed_pop_filtered(
        bus, GST_CLOCK_TIME_NONE,
        static_cast<GstMessageType>(GST_MESSAGE_EOS | GST_MESSAGE_ERROR));
    const int skip = std::min(3, o.frames / 4);
    const int last = o.frames - 1 - std::max(depth, 0);
    if (msg && GST_MESSAGE_TYPE(msg) == GST_MESSAGE_ERROR) {
      GError* e = nullptr;
      gst_message_parse_error(msg, &e, nullptr);
      res.error = e ? e->message : "?";
      g_clear_error(&e);
    } else if (static_cast<int>(log.times.size()) == o.frames && last > skip) {
      res.sec_per_frame =
          std::chrono::duration<double>(log.times[last] - log.times[skip]).count() /
          (last - skip);
    } else if (static_cast<int>(log.times.size()) == o.frames) {
      res.error = "too few buffers for pipeline-depth " + std::to_string(depth);
    } else {
      res.error = "got " + std::to_string(log.times.size()) + " of " +
                  std::to_string(o.frames) + " buffers";
    }
  }
  gchar* ab = nullptr;
  g_object_get(el, "active-backend", &ab, nullptr);
  if (ab) res.active_backend = ab;
  g_free(ab);
  if (msg) gst_message_unref(msg);
  gst_object_unref(bus);
  gst_element_set_state(pipeline, GST_STATE_NULL);
  for (GstElement* e : {l, r, el, sink})
    if (e) gst_object_unref(e);
  gst_object_unref(pipeline);
  return res;
}

void usage() {
  std::printf(
      "usage: bench_pipeline [options]\n"
      "  --element pocme|stereodisparity   (repeatable; default both)\n"
      "  --backend cpu|cuda|auto           (repeatable; default cpu)\n"
      "  --case ID       only cases whose id starts with ID (repeatable):\n"
      "                  E-720-256 1080-64 (pocme), 720p-128 720p-256\n"
      "                  1080p-128 1080p-256 (stereodisparity)\n"
      "  --layers L      pocme layers for every case (default: the case's, 1)\n"
      "  --plain         stereodisparity without sub-pixel and LR check\n"
      "  --set P=V       one more element property (repeatable), e.g.\n"
      "                  --set method=block --set cost=sad\n"
      "  --pipeline-depth D  the elements' pipeline-depth for the cuda and auto\n"
      "                  rows (repeatable: a row per depth; default 0); cpu rows\n"
      "                  run at 0; '-' where the element has none (an older pocme)\n"
      "  --frames N      buffers per run (default 60)\n"
      "  --runs N        runs, median kept (default 3)\n"
      "  --frames-dir D  clips of bench/prepare-frames.sh\n"
      "  --plugin PATH   the plugin to load (default: this build's)\n"
      "  --csv FILE      also write every row to FILE\n");
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    auto need = [&]() {
      if (!v) std::fprintf(stderr, "%s needs a value\n", a.c_str());
      return v != nullptr;
    };
    if (a == "--help" || a == "-h") {
      usage();
      std::exit(0);
    } else if (a == "--element") {
      if (!need()) return false;
      if (std::strcmp(v, "pocme") && std::strcmp(v, "stereodisparity")) {
        std::fprintf(stderr, "unknown element %s\n", v);
        return false;
      }
      o->elements.push_back(argv[++i]);
    } else if (a == "--backend") {
      if (!need()) return false;
      if (std::strcmp(v, "cpu") && std::strcmp(v, "cuda") && std::strcmp(v, "auto")) {
        std::fprintf(stderr, "unknown backend %s\n", v);
        return false;
      }
      o->backends.push_back(argv[++i]);
    } else if (a == "--case") {
      if (!need()) return false;
      o->case_sel.push_back(argv[++i]);
    } else if (a == "--layers" || a == "--frames" || a == "--runs") {
      if (!need()) return false;
      const int n = std::atoi(argv[++i]);
      const int lo = a == "--layers" ? 0 : a == "--frames" ? 8 : 1;
      const int hi = a == "--layers" ? 3 : 100000;
      if (n < lo || n > hi) {
        std::fprintf(stderr, "%s must be %d..%d\n", a.c_str(), lo, hi);
        return false;
      }
      (a == "--layers" ? o->layers : a == "--frames" ? o->frames : o->runs) = n;
    } else if (a == "--plain") {
      o->plain = true;
    } else if (a == "--set") {
      if (!need()) return false;
      const std::string s = argv[++i];
      if (s.find('=') == std::string::npos || s.front() == '=') {
        std::fprintf(stderr, "--set takes PROP=VALUE\n");
        return false;
      }
      o->sets.push_back(s);
    } else if (a == "--pipeline-depth") {
      if (!need()) return false;
      char* end = nullptr;
      const long d = std::strtol(argv[++i], &end, 10);
      if (!end || *end || d < 0 || d > 64) {
        std::fprintf(stderr, "--pipeline-depth must be 0..64\n");
        return false;
      }
      if (std::find(o->depths.begin(), o->depths.end(), static_cast<int>(d)) ==
          o->depths.end())
        o->depths.push_back(static_cast<int>(d));
    } else if (a == "--frames-dir" || a == "--plugin" || a == "--csv") {
      if (!need()) return false;
      (a == "--frames-dir" ? o->frames_dir
       : a == "--plugin"   ? o->plugin
                           : o->csv_file) = argv[++i];
    } else {
      std::fprintf(stderr, "unknown option %s\n", a.c_str());
      usage();
      return false;
    }
  }
  if (o->elements.empty()) o->elements = {"pocme", "stereodisparity"};
  if (o->backends.empty()) o->backends = {"cpu"};
  if (o->depths.empty()) o->depths = {0};
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  Options o;
  if (!parse(argc, argv, &o)) return 2;
  GError* err = nullptr;
  GstPlugin* plugin = gst_plugin_load_file(o.plugin.c_str(), &err);
  if (!plugin) {
    std::fprintf(stderr, "cannot load %s: %s\n", o.plugin.c_str(),
                 err ? err->message : "?");
    g_clear_error(&err);
    return 1;
  }
  gst_object_unref(plugin);

  FILE* csv = nullptr;
  if (!o.csv_file.empty()) {
    csv = std::fopen(o.csv_file.c_str(), "w");
    if (!csv) {
      std::fprintf(stderr, "cannot write %s\n", o.csv_file.c_str());
      return 1;
    }
    std::fprintf(csv,
                 "case,element,width,height,settings,backend,active_backend,"
                 "pipeline_depth,ms_per_frame,fps,spread,frames,runs,clip\n");
  }
  std::printf(
      "bench_pipeline: %d buffers per run, median of %d runs; "
      "appsrc (queued, wrapped) ! element ! fakesink\n",
      o.frames, o.runs);
  std::printf("%-10s %-16s %-30s %-7s %2s %-34s %9s %8s %6s\n", "case", "element",
              "settings", "backend", "D", "active backend", "ms/frame", "fps", "spread");
  /* D: the element's pipeline-depth ("-" for a plugin whose element has
   * none, as pocme before it had one); depths beyond the element's maximum
   * run at the maximum. */
  auto depths_for = [&](const char* element) {
    const int max = max_pipeline_depth(element);
    std::vector<int> depths;
    for (int d : o.depths) {
      if (max >= 0 && d > max)
        std::printf("  note: %s pipeline-depth %d > the element's maximum %d: using %d\n",
                    element, d, max, max);
      d = max < 0 ? -1 : std::min(d, max);
      if (std::find(depths.begin(), depths.end(), d) == depths.end()) depths.push_back(d);
    }
    return depths;
  };
  const std::vector<int> stereo_depths = depths_for("stereodisparity");
  const std::vector<int> poc_depths = depths_for("pocme");
  int failures = 0;
  std::string last_clip;
  for (const Case& c : all_cases()) {
    if (std::find(o.elements.begin(), o.elements.end(), c.element) == o.elements.end() ||
        !bench::case_selected(c.id, o.case_sel))
      continue;
    const bool stereo = c.element == "stereodisparity";
    const bench::Clip clip = bench::load_clip(o.frames_dir, c.w, c.h, 8, true);
    if (clip.origin != last_clip) {
      std::printf("  frames %dx%d: %s, %d frames\n", c.w, c.h, clip.origin.c_str(),
                  clip.count);
      last_clip = clip.origin;
    }
    std::vector<uint8_t> right;
    if (stereo) {
      const size_t bytes = static_cast<size_t>(c.w) * c.h;
      right.resize(bytes * clip.count);
      for (int k = 0; k < clip.count; ++k)
        synthesise_right(clip.frame(k), right.data() + k * bytes, c.w, c.h, c.a);
    }
    std::string extra;
    for (const std::string& s : o.sets) extra += ", " + s;
    char settings[256];
    if (stereo)
      std::snprintf(settings, sizeof settings, "%d disp, %dx%d%s%s", c.a, c.b, c.b,
                    o.plain ? ", plain" : ", subpix+LR", extra.c_str());
    else
      std::snprintf(settings, sizeof settings, "N %d, grid %d, layers %d%s", c.a, c.b,
                    o.layers >= 0 ? o.layers : c.c, extra.c_str());
    if (!stereo) {
      const char* chunk = std::getenv("MATCH_POC_CHUNK");
      bench::print_poc_floor(c.id.c_str(), c.w, c.h, c.a, c.b,
                             o.layers >= 0 ? o.layers : c.c,
                             chunk ? std::atoi(chunk) : 0);
    }
    for (const std::string& be : o.backends) {
      /* The CPU backend computes inside submit(): depth only delays it, so
       * its rows run at 0 (as bench_element's). */
      const std::vector<int>& element_depths = stereo ? stereo_depths : poc_depths;
      const std::vector<int> depths =
          be == "cpu" ? std::vector<int>{element_depths[0] < 0 ? -1 : 0} : element_depths;
      for (int depth : depths) {
        const std::string d = depth < 0 ? "-" : std::to_string(depth);
        std::vector<double> t;
        Run last;
        for (int k = 0; k < o.runs; ++k) {
          last = run_once(o, c, be.c_str(), depth, clip, right);
          if (last.sec_per_frame <= 0) break;
          t.push_back(last.sec_per_frame);
        }
        if (t.size() != static_cast<size_t>(o.runs)) {
          std::printf("%-10s %-16s %-30s %-7s %2s error: %s\n", c.id.c_str(),
                      c.element.c_str(), settings, be.c_str(), d.c_str(),
                      last.error.c_str());
          ++failures;
          continue;
        }
        const double ms = 1e3 * bench::median(t);
        std::printf("%-10s %-16s %-30s %-7s %2s %-34s %9s %8s %5.0f%%\n", c.id.c_str(),
                    c.element.c_str(), settings, be.c_str(), d.c_str(),
                    last.active_backend.c_str(), bench::fmt_ms(ms).c_str(),
                    bench::fmt_fps(ms).c_str(), 100 * bench::spread(t));
        if (csv)
          std::fprintf(
              csv, "%s,%s,%d,%d,%s,%s,%s,%s,%.6g,%.6g,%.4f,%d,%d,%s\n", c.id.c_str(),
              c.element.c_str(), c.w, c.h, bench::csv(settings).c_str(), be.c_str(),
              bench::csv(last.active_backend).c_str(), d.c_str(), ms, 1e3 / ms,
              bench::spread(t), o.frames, o.runs, bench::csv(clip.origin).c_str());
      }
    }
  }
  if (csv) std::fclose(csv);
  return failures ? 1 : 0;
}
