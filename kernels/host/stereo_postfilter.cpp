/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Stereo post-filters on the host (host/stereo_postfilter.h), equal to the
 * reference's (ref/stereo_ref.cpp) by construction: the medians select the
 * same rank of the same valid values, the speckle filter's regions do not
 * depend on the order they are found in, and the fill reads the row as it
 * was before.
 */
#include "host/stereo_postfilter.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(_OPENMP)
#include <omp.h>
#endif

#include "threads.h"

namespace match {
namespace host {

namespace {
/* OpenMP threads for `threads` (0: the default, the matcher's share of the
 * cores: threads.h). */
int team_of(int threads) {
#if defined(_OPENMP)
  return cpu_team(threads);
#else
  (void)threads;
  return 1;
#endif
}
/* 8 lanes of int16: one SSE2 register (GCC/Clang vector extensions). The
 * map's values are below 2^15 and the invalid value reads as -1. */
typedef int16_t Lanes __attribute__((vector_size(16)));
typedef uint8_t Bytes __attribute__((vector_size(8)));
constexpr int kLanes = 8;
/* What the medians put in place of an invalid value: above every valid
 * one. */
constexpr int16_t kNone = INT16_MAX;
static_assert(kDisparityScale * (kMaxMinDisparity + kMaxDisparities) < kNone,
              "valid values must compare below kNone");

Lanes load_lanes(const uint16_t* p) {
  Lanes v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
Lanes load_lanes(const uint8_t* p) {
  Bytes b;
  std::memcpy(&b, p, sizeof b);
  return __builtin_convertvector(b, Lanes);
}
bool any_lane(Lanes mask) {
  uint64_t q[2];
  std::memcpy(q, &mask, sizeof q);
  return (q[0] | q[1]) != 0;
}
/* Stores the lanes of `v` whose `keep` lane is set, pixels x0.. of row
 * `out` below the width w. */
void store_lanes(Lanes v, Lanes keep, int x0, int w, uint16_t* out) {
  int16_t val[kLanes], ok[kLanes];
  std::memcpy(val, &v, sizeof val);
  std::memcpy(ok, &keep, sizeof ok);
  for (int l = 0; l < kLanes && x0 + l < w; ++l)
    if (ok[l]) out[x0 + l] = static_cast<uint16_t>(val[l]);
}

/* A copy of the map (or of the luma) with a border of r pixels all round
 * and kLanes more on the right (invalid in the map, 0 in the luma), rows
 * of pitch elements:
 * the filters that read neighbours read it while they write the map, a
 * window's lanes as one load, with no bounds tests. at(0, 0) is the map's
 * first pixel. */
template <typename T>
struct Padded {
  const T* base;
  int r, pitch;
  const T* at(int x, int y) const {
    return base + static_cast<std::ptrdiff_t>(y + r) * pitch + x + r;
  }
};
int padded_pitch(int w, int r) { return w + 2 * r + kLanes; }
Padded<uint16_t> pad_map(const DisparityView& map, int r,
                         StereoPostfilterScratch* scratch) {
  const int pitch = padded_pitch(map.width, r);
  std::vector<uint16_t>& pd = scratch->copy;
  pd.assign(static_cast<size_t>(pitch) * (map.height + 2 * r), kInvalidDisparity);
  for (int y = 0; y < map.height; ++y)
    std::memcpy(&pd[static_cast<size_t>(y + r) * pitch + r], map.row(y),
                sizeof(uint16_t) * map.width);
  return {pd.data(), r, pitch};
}
Padded<uint8_t> pad_luma(const ImageView& ref, int r, StereoPostfilterScratch* scratch) {
  const int pitch = padded_pitch(ref.width, r);
  std::vector<uint8_t>& pl = scratch->luma;
  pl.assign(static_cast<size_t>(pitch) * (ref.height + 2 * r), 0);
  for (int y = 0; y < ref.height; ++y)
    std::memcpy(&pl[static_cast<size_t>(y + r) * pitch + r], ref.row(y), ref.width);
  return {pl.data(), r, pitch};
}

/* The team for `threads` (team_of), with a buffer per thread in
 * scratch->values for thread_buffer(). */
int team_with_buffers(int threads, StereoPostfilterScratch* scratch) {
  const int team = team_of(threads);
  if (static_cast<int>(scratch->values.size()) < team) scratch->values.resize(team);
  return team;
}

/* This OpenMP thread's buffer of at least n values (the team from
 * team_with_buffers()). */
uint16_t* thread_buffer(StereoPostfilterScratch* scratch, size_t n) {
#if defined(_OPENMP)
  std::vector<uint16_t>& v = scratch->values[omp_get_thread_num()];
#else
  std::vector<uint16_t>& v = scratch->values[0];
#endif
  if (v.size() < n) v.resize(n);
  return v.data();
}
}  // namespace

/* kLanes pixels at a time: the nine values (invalid ones as kNone, above
 * every valid one) through Floyd's 25-comparator network, the CUDA
 * kernel's (cuda/stereo_median.cu), then place (c - 1) / 2 of the c valid
 * ones. The per-pixel insertion sort before took about 9 % of the
 * defaults' CPU time at 720p. */
void stereo_median3(const DisparityView& map, int threads,
                    StereoPostfilterScratch* scratch) {
  constexpr int kNet[25][2] = {{0, 3}, {1, 7}, {2, 5}, {4, 8}, {0, 7}, {2, 4}, {3, 8},
                               {5, 6}, {0, 2}, {1, 3}, {4, 5}, {7, 8}, {1, 4}, {3, 6},
                               {5, 7}, {0, 1}, {2, 4}, {3, 5}, {6, 8}, {2, 3}, {4, 5},
                               {6, 7}, {1, 2}, {3, 4}, {5, 6}};
  const int w = map.width, h = map.height;
  const Padded<uint16_t> in = pad_map(map, 1, scratch);
  const int team = team_of(threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int y = 0; y < h; ++y) {
    uint16_t* out = map.row(y);
    for (int x0 = 0; x0 < w; x0 += kLanes) {
      Lanes v[9], count = Lanes{};
      for (int j = 0; j < 3; ++j)
        for (int i = 0; i < 3; ++i) {
          const Lanes d = load_lanes(in.at(x0 + i - 1, y + j - 1));
          count -= d >= 0; /* -1 per valid lane */
          v[3 * j + i] = d >= 0 ? d : kNone - Lanes{};
        }
      for (const auto& c : kNet) {
        const Lanes a = v[c[0]], b = v[c[1]];
        v[c[0]] = a < b ? a : b;
        v[c[1]] = a < b ? b : a;
      }
      const Lanes m = (count - 1) >> 1;
      Lanes med = v[0];
      for (int16_t k = 1; k < 5; ++k) med = m == k ? v[k] : med;
      store_lanes(med, load_lanes(in.at(x0, y)) >= 0, x0, w, out);
    }
  }
}

void stereo_speckle(const DisparityView& map, int size, int range,
                    StereoPostfilterScratch* scratch) {
  const int w = map.width, h = map.height;
  const size_t area = static_cast<size_t>(w) * h;
  std::vector<int32_t>& seen = scratch->label;
  std::vector<int32_t>& queue = scratch->queue;
  seen.assign(area, 0);
  queue.resize(area);
  const int limit = 16 * range;
  for (int start = 0; start < static_cast<int>(area); ++start) {
    if (seen[start] || map.row(start / w)[start % w] == kInvalidDisparity) continue;
    /* Breadth-first over the region; the queue ends up holding it. */
    int head = 0, tail = 0;
    queue[tail++] = start;
    seen[start] = 1;
    while (head < tail) {
      const int p = queue[head++];
      const int x = p % w, y = p / w;
      const int v = map.row(y)[x];
      auto visit = [&](int q, int qx, int qy) {
        if (seen[q]) return;
        const int u = map.row(qy)[qx];
        if (u == kInvalidDisparity || std::abs(u - v) > limit) return;
        seen[q] = 1;
        queue[tail++] = q;
      };
      if (x > 0) visit(p - 1, x - 1, y);
      if (x < w - 1) visit(p + 1, x + 1, y);
      if (y > 0) visit(p - w, x, y - 1);
      if (y < h - 1) visit(p + w, x, y + 1);
    }
    if (tail < size)
      for (int i = 0; i < tail; ++i)
        map.row(queue[i] / w)[queue[i] % w] = kInvalidDisparity;
  }
}

/* Rows are independent: the nearest valid value to the left is carried
 * along a forward scan, the one to the right along a backward scan, both
 * over the row as it was before the fill. */
void stereo_fill_invalid(const DisparityView& map, int threads,
                         StereoPostfilterScratch* scratch) {
  const int w = map.width, h = map.height;
  const int team = team_with_buffers(threads, scratch);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    uint16_t* left = thread_buffer(scratch, w);
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      uint16_t* row = map.row(y);
      uint16_t last = kInvalidDisparity;
      for (int x = 0; x < w; ++x) {
        left[x] = last;
        if (row[x] != kInvalidDisparity) last = row[x];
      }
      last = kInvalidDisparity; /* the nearest valid to the right */
      for (int x = w - 1; x >= 0; --x) {
        const uint16_t v = row[x];
        if (v == kInvalidDisparity)
          row[x] = std::min(left[x], last); /* invalid only if both are */
        else
          last = v;
      }
    }
  }
}

/* kLanes pixels of a row at a time, in the GPU kernel's form
 * (cuda/stereo_joint_median.cu): each tap's admitted values (the others
 * kNone, above any valid value), then per lane a bisection on the value
 * for the one of rank (m - 1) / 2, on copies of the map and the luma
 * padded by the radius. The same loops written per lane (not vectorised)
 * took 82 ms per 720p map on 2 threads, these 13. */
void stereo_joint_median(const DisparityView& map, const ImageView& ref, int radius,
                         int range, int threads, StereoPostfilterScratch* scratch) {
  const int w = map.width, h = map.height, r = radius;
  const int side = 2 * r + 1, taps = side * side;
  const Padded<uint16_t> pd = pad_map(map, r, scratch);
  const Padded<uint8_t> pl = pad_luma(ref, r, scratch);
  const int team = team_with_buffers(threads, scratch);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    /* The admitted values, kLanes per tap, aligned for the lanes (one
     * tap's worth of slack). */
    const uintptr_t buf =
        reinterpret_cast<uintptr_t>(thread_buffer(scratch, (taps + 1) * kLanes));
    Lanes* t = reinterpret_cast<Lanes*>((buf + sizeof(Lanes) - 1) &
                                        ~uintptr_t{sizeof(Lanes) - 1});
    const Lanes none = kNone - Lanes{}, zero = Lanes{},
                limit = static_cast<int16_t>(range) - Lanes{};
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      uint16_t* out = map.row(y);
      for (int x0 = 0; x0 < w; x0 += kLanes) {
        const Lanes luma = load_lanes(pl.at(x0, y));
        Lanes lo = none, hi = zero, count = zero;
        for (int j = 0; j < side; ++j)
          for (int i = 0; i < side; ++i) {
            /* Tap (i, j) of pixels x0.. : the lanes from x0 + i - r. */
            const Lanes v = load_lanes(pd.at(x0 + i - r, y + j - r));
            const Lanes diff = load_lanes(pl.at(x0 + i - r, y + j - r)) - luma;
            const Lanes in = (v >= 0) & ((diff < 0 ? -diff : diff) <= limit);
            const Lanes a = in ? v : none;
            t[j * side + i] = a;
            count -= in; /* in: -1 or 0 */
            lo = lo < a ? lo : a;
            hi = hi > (in & v) ? hi : (in & v);
          }
        const Lanes rank = (count - 1) >> 1;
        /* Invalid centres (and lanes past the width) are left alone. */
        const Lanes valid = load_lanes(pd.at(x0, y)) >= 0;
        lo &= valid;
        hi &= valid;
        while (any_lane(lo < hi)) {
          const Lanes mid = lo + ((hi - lo) >> 1); /* no 16-bit overflow */
          Lanes below = zero;
          for (int q = 0; q < taps; ++q) below -= t[q] <= mid;
          const Lanes down = below > rank;
          hi = down ? mid : hi;
          lo = down ? lo : mid + 1;
        }
        store_lanes(lo, valid, x0, w, out);
      }
    }
  }
}

void stereo_postfilter(const DisparityView& map, const ImageView& ref,
                       const StereoRuntime& rt, StereoPostfilterScratch* scratch) {
  if (rt.median) stereo_median3(map, rt.threads, scratch);
  if (rt.speckle_size > 0)
    stereo_speckle(map, rt.speckle_size, rt.speckle_range, scratch);
  if (rt.fill_invalid) stereo_fill_invalid(map, rt.threads, scratch);
  if (rt.joint_median_radius > 0)
    stereo_joint_median(map, ref, rt.joint_median_radius, rt.joint_median_range,
                        rt.threads, scratch);
}

}  // namespace host
}  // namespace match
