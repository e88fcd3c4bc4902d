/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Stereo post-filters on the host (stereo_postfilter_cpu.h), equal to the
 * reference's (ref/stereo_ref.cpp) by construction: the medians select the
 * same rank of the same valid values, the speckle filter's regions do not
 * depend on the order they are found in, and the fill reads the row as it
 * was before.
 */
#include "stereo_postfilter_cpu.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>

#if defined(_OPENMP)
#include <omp.h>
#endif

namespace match {
namespace cpu {

namespace {
/* OpenMP threads for `threads` (0: the default). */
int team_of(int threads) {
#if defined(_OPENMP)
  return threads > 0 ? threads : omp_get_max_threads();
#else
  (void)threads;
  return 1;
#endif
}
/* The map's values, row after row, into scratch->copy: the filters that
 * read neighbours read this copy while they write the map. */
const uint16_t* copy_map(const DisparityView& map,
                         StereoPostfilterScratch* scratch) {
  const int w = map.width, h = map.height;
  std::vector<uint16_t>& in = scratch->copy;
  in.resize(static_cast<size_t>(w) * h);
  for (int y = 0; y < h; ++y)
    std::memcpy(&in[static_cast<size_t>(y) * w], map.row(y),
                sizeof(uint16_t) * w);
  return in.data();
}

/* This OpenMP thread's buffer of at least n values (scratch->values must
 * hold one per thread of the team: sized before the parallel region). */
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

void stereo_median3(const DisparityView& map, int threads,
                    StereoPostfilterScratch* scratch) {
  const int w = map.width, h = map.height;
  const uint16_t* in = copy_map(map, scratch);
  const int team = team_of(threads);
#pragma omp parallel for schedule(static) num_threads(team) if (team > 1)
  for (int y = 0; y < h; ++y) {
    uint16_t* out = map.row(y);
    const int y0 = std::max(y - 1, 0), y1 = std::min(y + 1, h - 1);
    for (int x = 0; x < w; ++x) {
      if (in[static_cast<size_t>(y) * w + x] == kInvalidDisparity) continue;
      const int x0 = std::max(x - 1, 0), x1 = std::min(x + 1, w - 1);
      uint16_t v[9];
      int n = 0;
      for (int yy = y0; yy <= y1; ++yy)
        for (int xx = x0; xx <= x1; ++xx) {
          const uint16_t d = in[static_cast<size_t>(yy) * w + xx];
          if (d == kInvalidDisparity) continue;
          int i = n++; /* insertion sort: at most 9 values */
          for (; i > 0 && v[i - 1] > d; --i) v[i] = v[i - 1];
          v[i] = d;
        }
      out[x] = v[(n - 1) / 2];
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
    if (seen[start] || map.row(start / w)[start % w] == kInvalidDisparity)
      continue;
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
  const int team = team_of(threads);
  if (static_cast<int>(scratch->values.size()) < team)
    scratch->values.resize(team);
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

namespace {
/* 8 lanes of int16: one SSE2 register (GCC/Clang vector extensions). */
typedef int16_t Lanes __attribute__((vector_size(16)));
typedef uint8_t Bytes __attribute__((vector_size(8)));
constexpr int kLanes = 8;

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
}  // namespace

/* kLanes pixels of a row at a time, in the GPU kernel's form
 * (cuda/stereo_joint_median.cu): each tap's admitted values (the others
 * kNone, above any valid value), then per lane a bisection on the value
 * for the one of rank (m - 1) / 2. Signed 16-bit lanes: every valid value
 * is below 2^15 and the invalid value reads as -1. Copies of the map and
 * the luma padded by the radius (invalid outside) make each tap's lanes
 * one contiguous load. The same loops written per lane (not vectorised)
 * took 82 ms per 720p map on 2 threads, these 13. */
void stereo_joint_median(const DisparityView& map, const ImageView& ref,
                         int radius, int range, int threads,
                         StereoPostfilterScratch* scratch) {
  constexpr int16_t kNone = INT16_MAX;
  static_assert(kDisparityScale * (kMaxMinDisparity + kMaxDisparities) <
                    kNone,
                "valid values must compare below kNone");
  const int w = map.width, h = map.height, r = radius;
  const int side = 2 * r + 1, taps = side * side;
  /* Padded copies: rows of pw, r on each side (and the last block's
   * lanes past the width), r rows above and below. */
  const int pw = w + 2 * r + kLanes;
  const size_t padded = static_cast<size_t>(pw) * (h + 2 * r);
  std::vector<uint16_t>& pd = scratch->copy;
  std::vector<uint8_t>& pl = scratch->luma;
  pd.assign(padded, kInvalidDisparity);
  pl.assign(padded, 0);
  for (int y = 0; y < h; ++y) {
    const size_t o = static_cast<size_t>(y + r) * pw + r;
    std::memcpy(&pd[o], map.row(y), sizeof(uint16_t) * w);
    std::memcpy(&pl[o], ref.row(y), w);
  }
  const int team = team_of(threads);
  if (static_cast<int>(scratch->values.size()) < team)
    scratch->values.resize(team);
#pragma omp parallel num_threads(team) if (team > 1)
  {
    /* The admitted values, kLanes per tap, aligned for the lanes (one
     * tap's worth of slack). */
    const uintptr_t buf = reinterpret_cast<uintptr_t>(
        thread_buffer(scratch, (taps + 1) * kLanes));
    Lanes* t = reinterpret_cast<Lanes*>((buf + sizeof(Lanes) - 1) &
                                        ~uintptr_t{sizeof(Lanes) - 1});
    const Lanes none = kNone - Lanes{}, zero = Lanes{},
                limit = static_cast<int16_t>(range) - Lanes{};
#pragma omp for schedule(static)
    for (int y = 0; y < h; ++y) {
      uint16_t* out = map.row(y);
      for (int x0 = 0; x0 < w; x0 += kLanes) {
        /* Window (i, j) of pixel x0 + l starts at column x0 + l + i of the
         * padded row y + j. */
        const size_t centre = static_cast<size_t>(y + r) * pw + x0 + r;
        const Lanes luma = load_lanes(&pl[centre]);
        Lanes lo = none, hi = zero, count = zero;
        for (int j = 0; j < side; ++j)
          for (int i = 0; i < side; ++i) {
            const size_t o = static_cast<size_t>(y + j) * pw + x0 + i;
            const Lanes v = load_lanes(&pd[o]);
            const Lanes diff = load_lanes(&pl[o]) - luma;
            const Lanes in = (v >= 0) & ((diff < 0 ? -diff : diff) <= limit);
            const Lanes a = in ? v : none;
            t[j * side + i] = a;
            count -= in; /* in: -1 or 0 */
            lo = lo < a ? lo : a;
            hi = hi > (in & v) ? hi : (in & v);
          }
        const Lanes rank = (count - 1) >> 1;
        /* Invalid centres (and lanes past the width) are left alone. */
        const Lanes valid = load_lanes(&pd[centre]) >= 0;
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
        int16_t res[kLanes], ok[kLanes];
        std::memcpy(res, &lo, sizeof res);
        std::memcpy(ok, &valid, sizeof ok);
        for (int l = 0; l < kLanes && x0 + l < w; ++l)
          if (ok[l]) out[x0 + l] = static_cast<uint16_t>(res[l]);
      }
    }
  }
}

void stereo_postfilter(const DisparityView& map, const ImageView& ref,
                       const StereoRuntime& rt,
                       StereoPostfilterScratch* scratch) {
  if (rt.median) stereo_median3(map, rt.threads, scratch);
  if (rt.speckle_size > 0)
    stereo_speckle(map, rt.speckle_size, rt.speckle_range, scratch);
  if (rt.fill_invalid) stereo_fill_invalid(map, rt.threads, scratch);
  if (rt.joint_median_radius > 0)
    stereo_joint_median(map, ref, rt.joint_median_radius,
                        rt.joint_median_range, rt.threads, scratch);
}

}  // namespace cpu
}  // namespace match
