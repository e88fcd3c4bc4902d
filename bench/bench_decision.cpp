/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * bench_decision: what the surveillance decision (regions=true /
 * events=true with decision=tracks) costs per frame next to the estimator
 * whose field it reads, on the same frames, the same backend and the same
 * threads (issue 32: at most 10 % of the estimator's time).
 *
 * For each size and search method, a ping-pong walk over the bench clip
 * (bench/prepare-frames.sh, else synthetic frames):
 *   estimator = match::BlockMatcher::process () per frame;
 *   decision  = what the element adds per frame: the change stage's push ()
 *               of the frame (match/change.h; on CUDA the matcher's own
 *               device copy, collected_frame ()) and MvDecision::process ()
 *               with its MvChangeRefiner (global motion, regions, box
 *               refinement, tracks).
 * Medians over --runs of the mean time per frame after an untimed first
 * frame, on the CPU (--backend cpu, the default) or a GPU (--backend cuda:
 * the estimator and the change stage both there, each call waited for, as
 * the element at pipeline-depth=0). Of the decision, "push" and
 * "analyse" are the pixel stage's two calls (the frame in; the boxes'
 * changed pixels out, timed inside MvDecision::process (): of it, the
 * candidate blocks' tiles, MvBoxRefiner::block_changes (), and the slow
 * movers' calls); the rest is the host's work on the field. The "field
 * only" column is the decision without pixels.
 */
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_common.h"
#include "common/mvdecision.h"
#include "match/blockmatch.h"
#include "match/change.h"

namespace {

using bench::Clock;

struct Options {
  std::string frames_dir = bench::default_frames_dir();
  std::vector<std::pair<int, int>> sizes;
  std::vector<match::SearchMethod> methods;
  int frames = 30;
  int runs = 3;
  int threads = 0;
  match::Backend backend = match::Backend::kCpu;
  std::string raw; /* --raw: a clip of raw_size GRAY8 frames instead */
  std::pair<int, int> raw_size;
  bool i420 = false; /* --raw-i420: I420 frames, their chroma for the colour */
};

void usage() {
  std::printf(
      "bench_decision [options]\n"
      "  --size WxH        (repeatable; default 320x240 1280x720 1920x1080)\n"
      "  --method NAME     full diamond hierarchical ... (repeatable; default\n"
      "                    full and diamond)\n"
      "  --frames N (30)  --runs N (3)  --threads N (0 = the default share)\n"
      "  --backend cpu|cuda (cpu)\n"
      "  --frames-dir DIR  the bench clip (bench/prepare-frames.sh)\n"
      "  --raw FILE WxH    instead, frames of a surveillance clip, GRAY8 back\n"
      "                    to back, in order (e.g. ffmpeg -i in%%06d.jpg -f\n"
      "                    rawvideo -pix_fmt gray FILE); --frames at most its\n"
      "                    frames - 1\n"
      "  --raw-i420 FILE WxH  as --raw, I420 frames (-pix_fmt yuv420p): the\n"
      "                    decision also reads their colour (mvcolour.h)\n");
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    if (a == "--size") {
      const char* v = next();
      int w, h;
      if (!v || std::sscanf(v, "%dx%d", &w, &h) != 2 || w < 16 || h < 16) return false;
      o->sizes.push_back({w, h});
    } else if (a == "--method") {
      const char* v = next();
      bool found = false;
      for (int m = 0; m <= 5 && v; ++m)
        if (std::strcmp(v, match::search_method_name((match::SearchMethod)m)) == 0) {
          o->methods.push_back((match::SearchMethod)m);
          found = true;
        }
      if (!found) return false;
    } else if (a == "--frames") {
      const char* v = next();
      if (!v || (o->frames = std::atoi(v)) < 2) return false;
    } else if (a == "--runs") {
      const char* v = next();
      if (!v || (o->runs = std::atoi(v)) < 1) return false;
    } else if (a == "--threads") {
      const char* v = next();
      if (!v || (o->threads = std::atoi(v)) < 0) return false;
    } else if (a == "--backend") {
      const char* v = next();
      if (!v) return false;
      if (std::strcmp(v, "cpu") == 0)
        o->backend = match::Backend::kCpu;
      else if (std::strcmp(v, "cuda") == 0)
        o->backend = match::Backend::kCuda;
      else
        return false;
    } else if (a == "--frames-dir") {
      const char* v = next();
      if (!v) return false;
      o->frames_dir = v;
    } else if (a == "--raw" || a == "--raw-i420") {
      o->i420 = a == "--raw-i420";
      const char* f = next();
      const char* v = next();
      int w, h;
      if (!f || !v || std::sscanf(v, "%dx%d", &w, &h) != 2 || w < 16 || h < 16)
        return false;
      o->raw = f;
      o->raw_size = {w, h};
    } else {
      return false;
    }
  }
  if (!o->raw.empty()) o->sizes = {o->raw_size};
  if (o->sizes.empty()) o->sizes = {{320, 240}, {1280, 720}, {1920, 1080}};
  if (o->methods.empty())
    o->methods = {match::SearchMethod::kFull, match::SearchMethod::kDiamond};
  return true;
}

/* --raw-i420's chroma: per frame, U then V, each cw x ch. */
struct Chroma {
  int cw = 0, ch = 0;
  std::vector<uint8_t> planes;
  MvChromaView view(const bench::Clip& c, int i) const {
    MvChromaView v;
    const size_t plane = (size_t)cw * ch;
    v.u = planes.data() + 2 * plane * i;
    v.v = v.u + plane;
    v.width = cw;
    v.height = ch;
    v.u_stride = v.v_stride = cw;
    v.sub_x = v.sub_y = 2;
    v.frame_width = c.width;
    v.frame_height = c.height;
    return v;
  }
};

/* --raw's clip, walked in order: --frames + 1 of its frames (with
 * --raw-i420, their luma, and their chroma into *chroma). */
bench::Clip raw_clip(const Options& o, Chroma* chroma) {
  bench::Clip c;
  c.width = o.raw_size.first;
  c.height = o.raw_size.second;
  if (o.i420) {
    /* An I420 frame as one "frame" of width x (height + chroma rows). */
    chroma->cw = (c.width + 1) / 2;
    chroma->ch = (c.height + 1) / 2;
    const size_t luma = (size_t)c.width * c.height,
                 plane = (size_t)chroma->cw * chroma->ch;
    std::vector<uint8_t> all;
    bench::read_frames(o.raw, 1, (int)(luma + 2 * plane), &all);
    c.count = (int)(all.size() / (luma + 2 * plane));
    c.pixels.resize(luma * c.count);
    chroma->planes.resize(2 * plane * c.count);
    for (int i = 0; i < c.count; ++i) {
      const uint8_t* f = all.data() + (luma + 2 * plane) * i;
      std::copy(f, f + luma, c.pixels.begin() + luma * i);
      std::copy(f + luma, f + luma + 2 * plane, chroma->planes.begin() + 2 * plane * i);
    }
  } else {
    c.count = bench::read_frames(o.raw, c.width, c.height, &c.pixels);
  }
  c.real = true;
  c.origin = o.raw;
  if (c.count < o.frames + 1) {
    std::fprintf(stderr, "%s: %d frames of %dx%d, --frames %d needs %d\n", o.raw.c_str(),
                 c.count, c.width, c.height, o.frames, o.frames + 1);
    c.count = 0;
  }
  return c;
}

/* The field of `v` as the decision reads it (valid = estimated and not
 * suppressed; quarter pixels to pixels). */
void to_blocks(const std::vector<match::BlockVector>& v, std::vector<MvBlock>* b) {
  b->resize(v.size());
  for (size_t i = 0; i < v.size(); ++i) {
    (*b)[i].dx = v[i].dx / 4.0f;
    (*b)[i].dy = v[i].dy / 4.0f;
    (*b)[i].valid = !(v[i].flags & (match::kFlagNoEstimate | match::kFlagSuppressed));
  }
}

struct Times {
  double estimator_ms = 0, decision_ms = 0, push_ms = 0, analyse_ms = 0, block_ms = 0,
         slow_ms = 0, held_ms = 0, colour_ms = 0, field_only_ms = 0;
  size_t regions = 0;
};

/* The element's refiner, its time summed. */
class TimedRefiner : public MvBoxRefiner {
 public:
  explicit TimedRefiner(MvChangeRefiner* inner) : inner_(inner) {}
  bool refine(const MvGlobalMotion& global, std::vector<MvRect>& boxes,
              std::vector<uint8_t>& moved, std::vector<int64_t>& pixels,
              const std::vector<MvBoxMotion>* motions, std::vector<int>* cuts,
              bool departed, bool sharp) override {
    return timed(nullptr, [&] {
      return inner_->refine(global, boxes, moved, pixels, motions, cuts, departed, sharp);
    });
  }
  bool block_changes(const MvBlockGrid& grid, const MvGlobalMotion& global,
                     const std::vector<int>& which,
                     const std::vector<MvBoxMotion>& motions,
                     std::vector<int64_t>& pixels, std::vector<int64_t>* extents,
                     int extent_reach, std::vector<uint8_t>* relit) override {
    return timed(&block_seconds, [&] {
      return inner_->block_changes(grid, global, which, motions, pixels, extents,
                                   extent_reach, relit);
    });
  }
  bool refine_slow(std::vector<MvRect>& boxes, std::vector<uint8_t>& moved,
                   std::vector<int64_t>& pixels, int* age) override {
    return timed(&slow_seconds,
                 [&] { return inner_->refine_slow(boxes, moved, pixels, age); });
  }
  bool slow_blocks(const MvBlockGrid& grid, std::vector<int64_t>& pixels,
                   int* age) override {
    return timed(&slow_seconds, [&] { return inner_->slow_blocks(grid, pixels, age); });
  }
  void slow_blocks_ahead(const MvBlockGrid& grid) override {
    timed(&slow_seconds, [&] {
      inner_->slow_blocks_ahead(grid);
      return true;
    });
  }
  void restart_slow() override { inner_->restart_slow(); }
  /* The cameras' motions (the older frame's requests) and the scene
   * image's updates: step 7's with a moving camera. */
  void camera(const MvGlobalMotion& global) override {
    timed(&held_seconds, [&] {
      inner_->camera(global);
      return true;
    });
  }
  bool refine_background(std::vector<MvRect>& boxes, std::vector<uint8_t>& moved,
                         std::vector<int64_t>& pixels) override {
    return timed(&held_seconds,
                 [&] { return inner_->refine_background(boxes, moved, pixels); });
  }
  void restart_background() override { inner_->restart_background(); }
  bool grow_by_colour(std::vector<MvRect>& boxes) override {
    return timed(&colour_seconds, [&] { return inner_->grow_by_colour(boxes); });
  }
  void settle_colour(const std::vector<MvRect>& foreground) override {
    timed(&colour_seconds, [&] {
      inner_->settle_colour(foreground);
      return true;
    });
  }
  double seconds = 0;        /* every call */
  double block_seconds = 0;  /* block_changes () */
  double slow_seconds = 0;   /* the slow movers' calls */
  double held_seconds = 0;   /* refine_background () and camera () (held boxes) */
  double colour_seconds = 0; /* grow_by_colour () and settle_colour () */

 private:
  /* Runs `call`, its time added to `seconds` and to *part (when given). */
  template <typename Call>
  bool timed(double* part, Call call) {
    const Clock::time_point t0 = Clock::now();
    const bool ok = call();
    const double s = bench::seconds_since(t0);
    seconds += s;
    if (part) *part += s;
    return ok;
  }

  MvChangeRefiner* inner_;
};

/* One run: the estimator, then the decision with pixels, then (on the same
 * fields) the decision without pixels. */
bool run_once(const bench::Clip& clip, const Chroma& chroma, match::SearchMethod method,
              const Options& o, Times* t) {
  match::BlockMatchConfig cfg;
  cfg.width = clip.width;
  cfg.height = clip.height;
  cfg.method = method;
  std::unique_ptr<match::BlockMatcher> m;
  match::Status st = match::BlockMatcher::create(o.backend, cfg, &m);
  if (!st) {
    std::fprintf(stderr, "matcher: %s\n", st.message().c_str());
    return false;
  }
  match::ChangeConfig cc;
  cc.width = clip.width;
  cc.height = clip.height;
  cc.scale = match::change_scale_for(clip.width, clip.height);
  cc.history = 3 + kMvSlowHistory; /* as the element keeps */
  cc.background_every = kMvBackgroundEvery;
  std::unique_ptr<match::ChangeDetector> change;
  st = match::ChangeDetector::create(o.backend, cc, &change);
  if (!st) {
    std::fprintf(stderr, "change: %s\n", st.message().c_str());
    return false;
  }
  match::BlockMatchRuntime rt;
  rt.threads = o.threads;
  std::vector<match::BlockVector> out(cfg.num_blocks());
  std::vector<std::vector<MvBlock>> fields;
  std::vector<MvBlock> blocks;
  MvBlockGrid grid;
  grid.frame_width = clip.width;
  grid.frame_height = clip.height;
  grid.block_width = cfg.block_width;
  grid.block_height = cfg.block_height;
  grid.columns = cfg.columns();
  grid.rows = cfg.rows();
  MvDecisionParams params; /* the element's defaults, its search's reach */
  params.reach_x = cfg.range_x;
  params.reach_y = cfg.range_y;
  bool estimated = false;

  m->process(bench::view_of(clip, 0), rt, out.data(), &estimated);
  double est = 0, dec = 0, push = 0, field = 0;
  MvDecision d;
  MvChangeRefiner refiner;
  TimedRefiner timed(&refiner);
  match::DeviceImageView first;
  if (o.backend == match::Backend::kCuda && m->collected_frame(0, &first))
    change->push_device(first, 0);
  else
    change->push(bench::view_of(clip, 0), 0, o.threads);
  for (int i = 1; i <= o.frames; ++i) {
    Clock::time_point t0 = Clock::now();
    m->process(bench::view_of(clip, i), rt, out.data(), &estimated);
    est += bench::seconds_since(t0);
    to_blocks(out, &blocks);
    fields.push_back(blocks);
    t0 = Clock::now();
    /* As the element does: on CUDA the stage reads the matcher's own
     * device copy of the frame. */
    match::DeviceImageView dev;
    if (o.backend == match::Backend::kCuda && m->collected_frame(0, &dev))
      change->push_device(dev, (uint64_t)i);
    else
      change->push(bench::view_of(clip, i), (uint64_t)i, o.threads);
    push += bench::seconds_since(t0);
    refiner.set(change.get(), (uint64_t)i, false, o.threads);
    const MvChromaView colour =
        chroma.planes.empty() ? MvChromaView() : chroma.view(clip, i);
    refiner.set_chroma(chroma.planes.empty() ? nullptr : &colour);
    d.process(grid, blocks.data(), params, (uint64_t)i * 33333333u, 33333333u, &timed);
    dec += bench::seconds_since(t0);
    t->regions += d.regions().size();
  }
  MvDecision plain;
  for (int i = 0; i < o.frames; ++i) {
    const Clock::time_point t0 = Clock::now();
    plain.process(grid, fields[i].data(), params, (uint64_t)(i + 1) * 33333333u,
                  33333333u);
    field += bench::seconds_since(t0);
  }
  t->estimator_ms = est * 1e3 / o.frames;
  t->decision_ms = dec * 1e3 / o.frames;
  t->push_ms = push * 1e3 / o.frames;
  t->analyse_ms = timed.seconds * 1e3 / o.frames;
  t->block_ms = timed.block_seconds * 1e3 / o.frames;
  t->slow_ms = timed.slow_seconds * 1e3 / o.frames;
  t->held_ms = timed.held_seconds * 1e3 / o.frames;
  t->colour_ms = timed.colour_seconds * 1e3 / o.frames;
  t->field_only_ms = field * 1e3 / o.frames;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) {
    usage();
    return 2;
  }
  std::printf("backend %s\n\n", match::backend_name(o.backend));
  std::printf(
      "| size | method | estimator ms/frame | decision ms/frame | decision / estimator | "
      "of it: push ms | analyse ms (blocks, slow movers, held boxes, colour) | field ms "
      "| "
      "field-only decision ms/frame | regions/frame | frames |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
  for (const auto& sz : o.sizes) {
    Chroma chroma;
    const bench::Clip clip =
        o.raw.empty()
            ? bench::load_clip(o.frames_dir, sz.first, sz.second, o.frames + 1, true)
            : raw_clip(o, &chroma);
    if (clip.count < 2) return 1;
    for (match::SearchMethod method : o.methods) {
      std::vector<double> e, d, pu, an, bl, sl, hb, co, f;
      size_t regions = 0;
      for (int r = 0; r < o.runs; ++r) {
        Times t;
        if (!run_once(clip, chroma, method, o, &t)) return 1;
        e.push_back(t.estimator_ms);
        d.push_back(t.decision_ms);
        pu.push_back(t.push_ms);
        an.push_back(t.analyse_ms);
        bl.push_back(t.block_ms);
        sl.push_back(t.slow_ms);
        hb.push_back(t.held_ms);
        co.push_back(t.colour_ms);
        f.push_back(t.field_only_ms);
        regions += t.regions;
      }
      const double em = bench::median(e), dm = bench::median(d);
      const double pm = bench::median(pu), am = bench::median(an);
      std::printf(
          "| %dx%d | %s | %.3f | %.3f | %.1f %% | %.3f | %.3f (%.3f, %.3f, %.3f, %.3f) | "
          "%.3f "
          "| %.4f "
          "| "
          "%.2f | "
          "%s |\n",
          sz.first, sz.second, match::search_method_name(method), em, dm, 100.0 * dm / em,
          pm, am, bench::median(bl), bench::median(sl), bench::median(hb),
          bench::median(co), std::max(0.0, dm - pm - am), bench::median(f),
          (double)regions / (o.runs * o.frames),
          o.raw.empty() ? clip.kind().c_str() : o.raw.c_str());
    }
  }
  return 0;
}
