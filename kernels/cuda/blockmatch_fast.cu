/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The fast block searches on the GPU (kHierarchical, kThreeStep, kDiamond,
 * hexagon(), kPredictive; match/blockmatch.h defines them, ref/ is the
 * source of truth).
 *
 * One warp per block, every block of a pass in flight at once (a 1080p
 * frame of 16x16 blocks is 8160 warps). A fast search is a short chain of
 * dependent steps (a diamond, the next diamond around its winner, ...), each
 * a handful of candidates, so the parallelism inside a block is across the
 * candidates of a step and across the rows of the block:
 * - the warp splits into 32 / G groups of G lanes (G a power of two, at
 *   most the block's rows, chosen per step by a small cost model of rows x
 *   rounds); a group takes one candidate and each of its lanes the rows
 *   sub, sub + G, ... of the block, four pixels per VABSDIFF4, the group's
 *   sum by shuffles;
 * - each candidate becomes the 64-bit key of blockmatch_device.cuh (cost, |v|^2,
 *   v_y, v_x: the total order of match/blockmatch.h) and the step's winner
 *   is the warp minimum of the keys, so every lane holds the same state and
 *   the result does not depend on the order of evaluation;
 * - the pixels are read from the prepared frames of the full search (the
 *   padded phase planes of blockmatch_kernels.cu, whose padding holds the
 *   clamp-to-edge values, so no bounds are tested), unaligned words by two
 *   aligned loads and a funnel shift, through the read-only cache;
 * - kHierarchical: its reduced levels are built per frame (reduce_kernel,
 *   [1 3 3 1] / 8 both ways, the reference's integer rounding) into planes
 *   padded the same way. The coarsest level's exhaustive search and each
 *   finer level keep the `predictors` best distinct vectors in a
 *   warp-distributed sorted list (lane i holds the i-th best): a candidate
 *   better than the list's last is inserted by one ballot (its rank) and a
 *   shuffle up; an equal key is a duplicate vector and is skipped;
 * - kPredictive's `passes` passes are as many launches (pass k reads pass
 *   k - 1's vectors of the blocks 2^(passes - k) away, so each launch has
 *   every block in flight); the previous frame's field is kept on the
 *   device by the matcher (blockmatch_cuda.cu). Its coarse predictor
 *   (pass 1) reads level kPredictiveCoarseLevel of the same reduced
 *   levels as kHierarchical, built per frame for it.
 * The noise threshold, the sub-pixel stage and the output are as in the
 * reference: the vectors equal the CPU backend's and the reference's bit
 * for bit (tests/kernels/test_blockmatch_cuda.cpp).
 */
#include "blockmatch_fast.cuh"

#include <algorithm>
#include <climits>

#include "blockmatch_device.cuh"

namespace match {
namespace cuda {
namespace {

constexpr unsigned kAll = 0xffffffffu;
constexpr int kWarpsPerCta = 4;
constexpr unsigned long long kNone = ~0ull;

int round_up(int v, int m) { return (v + m - 1) / m * m; }
int ceil_shift(int v, int k) { return (v + (1 << k) - 1) >> k; }

/* The 4 bytes at p, any alignment (reads the aligned word after too). */
__device__ __forceinline__ uint32_t load4(const uint8_t* p) {
  const size_t a = reinterpret_cast<size_t>(p);
  const uint32_t* q = reinterpret_cast<const uint32_t*>(a & ~static_cast<size_t>(3));
  return __funnelshift_r(__ldg(q), __ldg(q + 1), static_cast<unsigned>(a & 3) * 8u);
}

__device__ __forceinline__ unsigned long long warp_min(unsigned long long k) {
#if __CUDA_ARCH__ >= 800
  const uint32_t hi = __reduce_min_sync(kAll, static_cast<uint32_t>(k >> 32));
  const uint32_t lo = __reduce_min_sync(kAll, static_cast<uint32_t>(k >> 32) == hi
                                                  ? static_cast<uint32_t>(k)
                                                  : 0xffffffffu);
  return (static_cast<unsigned long long>(hi) << 32) | lo;
#else
  for (int o = 16; o; o >>= 1) {
    const unsigned long long x = __shfl_xor_sync(kAll, k, o);
    k = x < k ? x : k;
  }
  return k;
#endif
}

/* One block at one level: the tiled frame's block and the searched frame
 * at the same place (vector 0; phase 0 at level 0). */
struct View {
  const uint8_t* t;
  const uint8_t* s;
  int pitch;
  int h, wpr;        /* rows, 4-byte words per row */
  uint32_t lastmask; /* the bytes of the last word within the block */
};

__device__ View make_view(const uint8_t* t, const uint8_t* s, int pitch, int x, int y,
                          int w, int h) {
  View v;
  const size_t o = static_cast<size_t>(y) * pitch + x;
  v.t = t + o;
  v.s = s + o;
  v.pitch = pitch;
  v.h = h;
  v.wpr = (w + 3) >> 2;
  const int tail = w & 3;
  v.lastmask = tail ? (1u << (8 * tail)) - 1u : 0xffffffffu;
  return v;
}

/* Lanes per candidate for n candidates on a block of h rows x wpr words:
 * the fewest issue slots by rows per lane x rounds plus a per-round cost
 * (the group's shuffles, the key and the warp minimum). Uniform. */
__device__ int group_lanes(int n, int h, int wpr) {
  int best_g = 1, best_cost = INT_MAX;
  for (int lg = 0, g = 1; g <= 32; ++lg, g <<= 1) {
    if (g > 1 && g > h) break;
    const int groups = 32 / g;
    const int rounds = (n + groups - 1) / groups;
    const int cost = rounds * (((h + g - 1) / g) * (wpr * 9 + 4) + 3 * lg + 24);
    if (cost < best_cost) {
      best_cost = cost;
      best_g = g;
    }
  }
  return best_g;
}

/* This lane's part of the SAD of the candidate at byte offset `off` from
 * v.s: rows sub, sub + g, ... */
__device__ __forceinline__ uint32_t sad_part(const View& v, ptrdiff_t off, int sub,
                                             int g) {
  uint32_t acc = 0;
  const ptrdiff_t step = static_cast<ptrdiff_t>(g) * v.pitch;
  const uint8_t* t = v.t + static_cast<ptrdiff_t>(sub) * v.pitch;
  const uint8_t* c = v.s + off + static_cast<ptrdiff_t>(sub) * v.pitch;
  for (int r = sub; r < v.h; r += g, t += step, c += step) {
    int j = 0;
    for (; j + 1 < v.wpr; ++j) acc = sad4(load4(t + 4 * j), load4(c + 4 * j), acc);
    acc = sad4(load4(t + 4 * j) & v.lastmask, load4(c + 4 * j) & v.lastmask, acc);
  }
  return acc;
}

/* A candidate: key (kNone when outside the range or absent) and vector. */
struct Cand {
  unsigned long long key;
  int x, y; /* whole pixels of the level, or quarter pixels (sub-pel stage) */
};

/* kPredictive's rate term in its last pass (match/blockmatch.h): J = SAD +
 * floor(lam * |v - p|_1 / 256), lam = r * w * h, v and p in quarter
 * pixels; lam = 0: the SAD alone. J < 2^29, the key's cost field. */
struct Rate {
  long long lam;
  int pxq, pyq;
  __device__ uint32_t of(int xq, int yq) const {
    return lam ? static_cast<uint32_t>((lam * (abs(xq - pxq) + abs(yq - pyq))) >> 8) : 0u;
  }
};

/* Calls sink(group's candidate, sub) for every round of candidates
 * 0 .. n-1, each evaluated by a group of lanes: gen(i, &x, &y, &off)
 * gives candidate i (all lanes call it, with i < n) and whether it is
 * valid; (x, y) * unit is the vector in the key's units. */
template <class Gen, class Sink>
__device__ __forceinline__ void evaluate(const View& v, int n, int unit, int ry_key,
                                         const Gen& gen, const Sink& sink,
                                         const Rate& rate = Rate{0, 0, 0}) {
  const int lane = threadIdx.x & 31;
  const int g = group_lanes(n, v.h, v.wpr);
  const int groups = 32 / g, grp = lane / g, sub = lane & (g - 1);
  for (int base = 0; base < n; base += groups) {
    const int i = base + grp;
    int x = 0, y = 0;
    ptrdiff_t off = 0;
    const bool ok = gen(min(i, n - 1), &x, &y, &off) && i < n;
    uint32_t part = ok ? sad_part(v, off, sub, g) : 0u;
    for (int o = g >> 1; o; o >>= 1) part += __shfl_xor_sync(kAll, part, o);
    Cand c;
    c.key = ok ? make_key(part + rate.of(x * unit, y * unit), x * unit, y * unit, ry_key)
               : kNone;
    c.x = x;
    c.y = y;
    sink(c, sub);
  }
}

/* best = the better of best and candidates 0 .. n-1. */
template <class Gen>
__device__ void best_of(const View& v, int n, int unit, int ry_key, const Gen& gen,
                        Cand& best, const Rate& rate = Rate{0, 0, 0}) {
  evaluate(
      v, n, unit, ry_key, gen,
      [&](const Cand& c, int) {
        const unsigned long long m = warp_min(c.key);
        if (m < best.key) {
          const int src = __ffs(__ballot_sync(kAll, c.key == m)) - 1;
          best.key = m;
          best.x = __shfl_sync(kAll, c.x, src);
          best.y = __shfl_sync(kAll, c.y, src);
        }
      },
      rate);
}

/* The warp-distributed list of the p best distinct candidates: lane i < p
 * holds the i-th best (kNone where fewer), lanes >= p hold kNone. */
template <class Gen>
__device__ void best_list(const View& v, int n, int p, int ry_key, const Gen& gen,
                          Cand& list) {
  const int lane = threadIdx.x & 31;
  list.key = kNone;
  list.x = list.y = 0;
  evaluate(v, n, 4, ry_key, gen, [&](const Cand& c, int sub) {
    /* (every lane reads the list's last before any condition: a shuffle
     * under && would leave lanes out of it) */
    const unsigned long long last = __shfl_sync(kAll, list.key, p - 1);
    unsigned want = __ballot_sync(kAll, sub == 0 && c.key < last);
    while (want) {
      const int src = __ffs(want) - 1;
      want &= want - 1;
      const unsigned long long k = __shfl_sync(kAll, c.key, src);
      const int kx = __shfl_sync(kAll, c.x, src), ky = __shfl_sync(kAll, c.y, src);
      if (__any_sync(kAll, list.key == k)) continue; /* the same vector again */
      if (k >= __shfl_sync(kAll, list.key, p - 1)) continue;
      const int pos = __popc(__ballot_sync(kAll, list.key < k));
      const unsigned long long uk = __shfl_up_sync(kAll, list.key, 1);
      const int ux = __shfl_up_sync(kAll, list.x, 1),
                uy = __shfl_up_sync(kAll, list.y, 1);
      if (lane == pos) {
        list.key = k;
        list.x = kx;
        list.y = ky;
      } else if (lane > pos && lane < p) {
        list.key = uk;
        list.x = ux;
        list.y = uy;
      }
    }
  });
}

/* Offsets of a search pattern, 4 bits each (value + 4), up to 8. */
struct Pattern {
  uint32_t dx, dy;
  int n;
};
constexpr uint32_t pack(int a0, int a1, int a2, int a3, int a4 = 0, int a5 = 0,
                        int a6 = 0, int a7 = 0) {
  return static_cast<uint32_t>(a0 + 4) | static_cast<uint32_t>(a1 + 4) << 4 |
         static_cast<uint32_t>(a2 + 4) << 8 | static_cast<uint32_t>(a3 + 4) << 12 |
         static_cast<uint32_t>(a4 + 4) << 16 | static_cast<uint32_t>(a5 + 4) << 20 |
         static_cast<uint32_t>(a6 + 4) << 24 | static_cast<uint32_t>(a7 + 4) << 28;
}
/* The patterns of ref/blockmatch_ref.cpp (any order: the key decides). */
__device__ __forceinline__ Pattern small_diamond() {
  return Pattern{pack(1, -1, 0, 0), pack(0, 0, 1, -1), 4};
}
__device__ __forceinline__ Pattern large_diamond() {
  return Pattern{pack(2, -2, 0, 0, 1, 1, -1, -1), pack(0, 0, 2, -2, 1, -1, 1, -1), 8};
}
__device__ __forceinline__ Pattern hexagon() {
  return Pattern{pack(2, -2, 1, 1, -1, -1), pack(0, 0, 2, -2, 2, -2), 6};
}
__device__ __forceinline__ Pattern square() { /* three-step, times the step */
  return Pattern{pack(-1, 0, 1, -1, 1, -1, 0, 1), pack(-1, -1, -1, 0, 0, 1, 1, 1), 8};
}

__device__ __forceinline__ int nibble(uint32_t p, int i) {
  return static_cast<int>((p >> (4 * i)) & 15u) - 4;
}

/* The per-block search (one warp). */
struct Search {
  const FastArgs& a;
  View v0; /* level 0 */
  int x0, y0, w, h;
  int ry_key; /* the key's y offset: range_y in quarter pixels */
  /* kPredictive's last pass sets it (predictive()); the keys are then J. */
  mutable Rate rate = Rate{0, 0, 0};

  /* The SAD of a candidate whose key holds J, v in quarter pixels. */
  __device__ uint32_t sad_of(const Cand& c, int xq, int yq) const {
    return static_cast<uint32_t>(c.key >> 35) - rate.of(xq, yq);
  }

  /* The candidate at whole-pixel vector (x, y) of level 0, if in range. */
  __device__ bool at0(int x, int y, int* ox, int* oy, ptrdiff_t* off) const {
    *ox = x;
    *oy = y;
    *off = static_cast<ptrdiff_t>(y) * v0.pitch + x;
    return abs(x) <= a.rx && abs(y) <= a.ry;
  }

  __device__ Cand eval0(int x, int y) const {
    Cand c{kNone, 0, 0};
    best_of(
        v0, 1, 4, ry_key,
        [&](int, int* ox, int* oy, ptrdiff_t* off) { return at0(x, y, ox, oy, off); }, c);
    return c;
  }

  /* The better of c and c + mul * pattern (level 0, whole pixels). */
  __device__ Cand around(Cand c, Pattern p, int mul) const {
    const int cx = c.x, cy = c.y;
    best_of(
        v0, p.n, 4, ry_key,
        [&](int i, int* ox, int* oy, ptrdiff_t* off) {
          return at0(cx + mul * nibble(p.dx, i), cy + mul * nibble(p.dy, i), ox, oy, off);
        },
        c, rate);
    return c;
  }

  /* Moves c with the pattern until c stays the best. */
  __device__ Cand descend(Cand c, Pattern p) const {
    for (;;) {
      const Cand b = around(c, p, 1);
      if (b.x == c.x && b.y == c.y) return c;
      c = b;
    }
  }

  /* The block at level k (0: v0) as kHierarchical's level k
   * (match/blockmatch.h). */
  __device__ View level_view(int k) const {
    if (k == 0) return v0;
    const int bx = x0 >> k, by = y0 >> k;
    const int bw = max((x0 + w) >> k, bx + 1) - bx;
    const int bh = max((y0 + h) >> k, by + 1) - by;
    return make_view(a.level_tiled[k], a.level_searched[k], a.level_pitch[k], bx, by, bw,
                     bh);
  }

  __device__ Cand hierarchical() const {
    const int levels = a.levels, np = a.predictors;
    Cand list{kNone, 0, 0};
    for (int k = levels - 1; k >= 0; --k) {
      const View v = level_view(k);
      const int rx = (a.rx + (1 << k) - 1) >> k, ry = (a.ry + (1 << k) - 1) >> k;
      const int keep = k == 0 ? 1 : np;
      const int pitch = v.pitch;
      if (k == levels - 1) {
        const int nx = 2 * rx + 1;
        best_list(
            v, nx * (2 * ry + 1), keep, ry_key,
            [&](int i, int* ox, int* oy, ptrdiff_t* off) {
              const int y = i / nx - ry, x = i - (y + ry) * nx - rx;
              *ox = x;
              *oy = y;
              *off = static_cast<ptrdiff_t>(y) * pitch + x;
              return true;
            },
            list);
      } else {
        const int npred = __popc(__ballot_sync(kAll, list.key != kNone));
        const Cand prev = list;
        best_list(
            v, 9 * npred, keep, ry_key,
            [&](int i, int* ox, int* oy, ptrdiff_t* off) {
              const int q = i / 9, o = i - 9 * q;
              const int px = __shfl_sync(kAll, prev.x, q),
                        py = __shfl_sync(kAll, prev.y, q);
              const int x = 2 * px + o % 3 - 1, y = 2 * py + o / 3 - 1;
              *ox = x;
              *oy = y;
              *off = static_cast<ptrdiff_t>(y) * pitch + x;
              return abs(x) <= rx && abs(y) <= ry;
            },
            list);
      }
    }
    Cand c;
    c.key = __shfl_sync(kAll, list.key, 0);
    c.x = __shfl_sync(kAll, list.x, 0);
    c.y = __shfl_sync(kAll, list.y, 0);
    return c;
  }

  /* kPredictive's coarse predictor (match/blockmatch.h): kDiamond's
   * descents from (0, 0) at level K = kPredictiveCoarseLevel (block and
   * range as kHierarchical's level K), times 2^K, clamped to the range
   * (whole pixels of level 0). */
  __device__ Cand coarse_predictor() const {
    constexpr int k = kPredictiveCoarseLevel;
    const View v = level_view(k);
    const int rx = (a.rx + (1 << k) - 1) >> k, ry = (a.ry + (1 << k) - 1) >> k;
    const int pitch = v.pitch;
    auto at = [&](int x, int y, int* ox, int* oy, ptrdiff_t* off) {
      *ox = x;
      *oy = y;
      *off = static_cast<ptrdiff_t>(y) * pitch + x;
      return abs(x) <= rx && abs(y) <= ry;
    };
    /* (the key of a level-K vector in whole pixels x 4, as kHierarchical's:
     * |y| <= ceil(range_y / 2^K) <= range_y keeps it within ry_key) */
    Cand c{kNone, 0, 0};
    best_of(
        v, 1, 4, ry_key,
        [&](int, int* ox, int* oy, ptrdiff_t* off) { return at(0, 0, ox, oy, off); }, c);
    auto descend_k = [&](Cand c, Pattern p) {
      for (;;) {
        const int cx = c.x, cy = c.y;
        Cand b = c;
        best_of(
            v, p.n, 4, ry_key,
            [&](int i, int* ox, int* oy, ptrdiff_t* off) {
              return at(cx + nibble(p.dx, i), cy + nibble(p.dy, i), ox, oy, off);
            },
            b);
        if (b.x == c.x && b.y == c.y) return c;
        c = b;
      }
    };
    c = descend_k(descend_k(c, large_diamond()), small_diamond());
    c.x = min(max(c.x * (1 << k), -a.rx), a.rx);
    c.y = min(max(c.y * (1 << k), -a.ry), a.ry);
    return c;
  }

  /* kPredictive's pass a.pass (match/blockmatch.h): the best predictor,
   * then, unless it is good enough, pass 1's coarse predictor and diamond
   * descents (unless the coarse one is good enough) or a later pass's
   * small descent. The
   * predictors are whole pixels of a field (rounded), clamped to the range;
   * absent ones invalid. Pass 1: slot 0 (0, 0), slots 1..5 prev's block,
   * left, right, upper, lower, slot 6 the median of prev's left, upper and
   * upper-right. Pass k > 1: slot 0 the block, slots 1..8 the neighbours
   * d = a.distance away in the reference's order, slot 9 the median of the
   * adjacent left, upper and upper-right (d = 1 only). The winner does not
   * depend on the slot order (the key is a total order). */
  __device__ Cand predictive(int b) const {
    const int cols = a.cols, col = b % cols, row = b / cols;
    const bool first = a.pass == 1;
    const BlockVector* f = first ? a.prev : a.in;
    const int d = first ? 1 : a.distance;
    auto rnd = [](int q) { return (q + 2) >> 2; }; /* quarter -> whole, floor */
    int medx = 0, medy = 0;
    bool have_med = false;
    if (f && d == 1) {
      int mx[3], my[3], m = 0;
      const int nb[3][2] = {{col - 1, row}, {col, row - 1}, {col + 1, row - 1}};
      for (int t = 0; t < 3; ++t)
        if (nb[t][0] >= 0 && nb[t][0] < cols && nb[t][1] >= 0) {
          const BlockVector& q = f[nb[t][1] * cols + nb[t][0]];
          mx[m] = rnd(q.dx);
          my[m] = rnd(q.dy);
          ++m;
        }
      if (m > 0) {
        have_med = true;
        auto lower_median = [m](int* z) {
          if (m == 1) return z[0];
          const int lo = min(z[0], z[1]), hi = max(z[0], z[1]);
          if (m == 2) return lo;
          return max(lo, min(hi, z[2]));
        };
        medx = lower_median(mx);
        medy = lower_median(my);
      }
    }
    /* neighbour offsets of slots 1..8 (pass 1 uses 1..4) */
    const int ox[8] = {-1, 1, 0, 0, -1, 1, -1, 1};
    const int oy[8] = {0, 0, -1, 1, -1, -1, 1, 1};
    const int slots = first ? 7 : 10;
    /* The last pass decides by J against p, the component-wise median of
     * the block's and its adjacent neighbours' vectors (of an even count,
     * the lower middle; insertion sorts of up to 9, every lane alike). */
    if (a.pass == a.passes && !first && a.rate_steps > 0) {
      int px[9], py[9], m = 0;
      for (int j = -1; j <= 1; ++j)
        for (int i = -1; i <= 1; ++i) {
          const int nx = col + i, ny = row + j;
          if (nx >= 0 && nx < cols && ny >= 0 && ny < a.rows) {
            const BlockVector& q = f[ny * cols + nx];
            int x = rnd(q.dx), y = rnd(q.dy), t = m;
            for (; t > 0 && px[t - 1] > x; --t) px[t] = px[t - 1];
            px[t] = x;
            for (t = m; t > 0 && py[t - 1] > y; --t) py[t] = py[t - 1];
            py[t] = y;
            ++m;
          }
        }
      rate.lam = static_cast<long long>(a.rate_steps) * w * h;
      rate.pxq = 4 * px[(m - 1) / 2];
      rate.pyq = 4 * py[(m - 1) / 2];
    }
    Cand c{kNone, 0, 0};
    best_of(
        v0, slots, 4, ry_key,
        [&](int i, int* px, int* py, ptrdiff_t* off) {
          int x = 0, y = 0;
          bool ok = true;
          if (first && i == 0) {
            x = y = 0;
          } else if ((first && i == 1) || (!first && i == 0)) {
            ok = f != nullptr;
            if (ok) {
              x = rnd(f[b].dx);
              y = rnd(f[b].dy);
            }
          } else if ((first && i < 6) || (!first && i < 9)) {
            const int j = first ? i - 2 : i - 1;
            const int nx = col + d * ox[j], ny = row + d * oy[j];
            ok = f && nx >= 0 && nx < cols && ny >= 0 && ny < a.rows;
            if (ok) {
              x = rnd(f[ny * cols + nx].dx);
              y = rnd(f[ny * cols + nx].dy);
            }
          } else {
            ok = have_med;
            x = medx;
            y = medy;
          }
          x = min(max(x, -a.rx), a.rx);
          y = min(max(y, -a.ry), a.ry);
          return at0(x, y, px, py, off) && ok;
        },
        c, rate);
    /* Good enough (0 = never): no descent, as in EPZS. */
    auto good_enough = [&](const Cand& q) {
      const uint32_t cost = sad_of(q, 4 * q.x, 4 * q.y);
      return a.predictive_stop > 0.0 &&
             static_cast<double>(cost) <= a.predictive_stop * w * h;
    };
    if (good_enough(c)) return c;
    if (first) {
      const Cand q = coarse_predictor(); /* pass 1: no rate term, keys are SADs */
      const Cand e = eval0(q.x, q.y);
      if (e.key < c.key) c = e;
      if (good_enough(c)) return c;
      c = descend(c, large_diamond());
    }
    return descend(c, small_diamond());
  }

  /* The grid points strictly within one pixel of c (level 0, whole pixels);
   * the result in quarter pixels. */
  __device__ Cand subpel(Cand c) const {
    const int s = a.subpel, step = kSubpelScale / s, side = 2 * s - 1;
    const int centre = (side * side - 1) / 2;
    const int cxq = 4 * c.x, cyq = 4 * c.y;
    const int rxq = 4 * a.rx, ryq = 4 * a.ry;
    const int pitch = v0.pitch;
    const size_t plane = a.plane_bytes;
    /* SADs, kPredictive's last pass too: c's key again without the rate */
    Cand best{make_key(sad_of(c, cxq, cyq), cxq, cyq, ry_key), cxq, cyq};
    rate.lam = 0;
    best_of(
        v0, side * side - 1, 1, ry_key,
        [&](int i, int* ox, int* oy, ptrdiff_t* off) {
          const int idx = i < centre ? i : i + 1;
          const int jj = idx / side - (s - 1), ii = idx % side - (s - 1);
          const int xq = cxq + ii * step, yq = cyq + jj * step;
          *ox = xq;
          *oy = yq;
          const int phase = ((yq & 3) / step) * s + (xq & 3) / step;
          *off = static_cast<ptrdiff_t>(phase) * static_cast<ptrdiff_t>(plane) +
                 static_cast<ptrdiff_t>(yq >> 2) * pitch + (xq >> 2);
          return abs(xq) <= rxq && abs(yq) <= ryq;
        },
        best);
    return best;
  }
};

__global__ void __launch_bounds__(32 * kWarpsPerCta) fast_search_kernel(FastArgs a) {
  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  const int j = blockIdx.x * kWarpsPerCta + warp;
  if (j >= a.b_count) return; /* whole warps */
  const int b = a.b_first + j;
  const int x0 = (b % a.cols) * a.bw, y0 = (b / a.cols) * a.bh;
  const int w = min(a.bw, a.width - x0), h = min(a.bh, a.height - y0);
  const int org = a.pad_top * a.pitch + a.pad_left;
  Search S{a,       make_view(a.tiled + org, a.searched + org, a.pitch, x0, y0, w, h),
           x0,      y0,
           w,       h,
           4 * a.ry};

  /* kPredictive's passes before the last give integer vectors. */
  const bool intermediate = a.pass > 0 && a.pass < a.passes;
  /* The noise threshold, tested at v = 0 first, as every method does. */
  const Cand zero = S.eval0(0, 0);
  const uint32_t j0 = static_cast<uint32_t>(zero.key >> 35);
  BlockVector r;
  if (a.threshold > 0.0 && static_cast<double>(j0) <= a.threshold * w * h) {
    r.dx = 0;
    r.dy = 0;
    r.cost = j0;
    r.flags = kFlagSuppressed;
  } else {
    Cand c = zero;
    switch (a.method) {
      case SearchMethod::kHierarchical:
        c = S.hierarchical();
        break;
      case SearchMethod::kThreeStep:
        for (int m = (max(a.rx, a.ry) + 1) / 2; m >= 1; m /= 2)
          c = S.around(c, square(), m);
        break;
      case SearchMethod::kDiamond:
        c = S.around(S.descend(c, large_diamond()), small_diamond(), 1);
        break;
      case SearchMethod::kHexagon:
        c = S.around(S.descend(c, hexagon()), small_diamond(), 1);
        break;
      case SearchMethod::kPredictive:
        c = S.predictive(b);
        break;
      case SearchMethod::kFull:
        break;
    }
    if (intermediate) {
      r.dx = 4 * c.x;
      r.dy = 4 * c.y;
    } else if (a.subpel > 1) {
      c = S.subpel(c);
      r.dx = c.x;
      r.dy = c.y;
    } else {
      r.dx = 4 * c.x;
      r.dy = 4 * c.y;
    }
    r.cost = S.sad_of(c, r.dx, r.dy); /* the SAD, also where the key holds J */
    r.flags = kFlagNone;
  }
  if (lane == 0) {
    if (intermediate) {
      a.pass_out[b] = r;
    } else {
      a.out[b - a.out_first] = r;
      if (a.field) a.field[b] = r;
    }
  }
}

__global__ void reduce_kernel(const uint8_t* __restrict__ src, int sp, int sw, int sh,
                              int dw, int dh, int px, int py, int dp,
                              uint8_t* __restrict__ dst) {
  const int X = blockIdx.x * blockDim.x + threadIdx.x;
  const int Y = blockIdx.y;
  if (X >= dp) return;
  /* Padding replicates the edge: the pixel of the clamped position. */
  const int x = min(max(X - px, 0), dw - 1), y = min(max(Y - py, 0), dh - 1);
  const int wt[4] = {1, 3, 3, 1};
  int sum = 0;
#pragma unroll
  for (int jy = 0; jy < 4; ++jy) {
    const uint8_t* row =
        src + static_cast<ptrdiff_t>(min(max(2 * y - 1 + jy, 0), sh - 1)) * sp;
    int rs = 0;
#pragma unroll
    for (int ix = 0; ix < 4; ++ix)
      rs += wt[ix] * row[min(max(2 * x - 1 + ix, 0), sw - 1)];
    sum += wt[jy] * rs;
  }
  dst[static_cast<size_t>(Y) * dp + X] = static_cast<uint8_t>((sum + 32) >> 6);
}

}  // namespace

SearchPlan fast_plan(const BlockMatchConfig& cfg) {
  /* Candidates stay within the range (sub-pel ones too: floor(v / 4) >= -range);
   * the unaligned loads read up to 7 bytes past a row of the block. */
  SearchPlan p;
  p.right_pad = cfg.range_x + 64;
  p.bottom_pad = cfg.range_y + 8;
  return p;
}

int level_geometry(const BlockMatchConfig& cfg, LevelGeometry* level) {
  const int levels = cfg.method == SearchMethod::kHierarchical ? cfg.levels
                     : cfg.method == SearchMethod::kPredictive
                         ? kPredictiveCoarseLevel + 1
                         : 1;
  int w = cfg.width, h = cfg.height;
  for (int k = 1; k < levels; ++k) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    LevelGeometry& g = level[k - 1];
    g.width = w;
    g.height = h;
    /* Candidates reach ceil(range / 2^k) past the block, the loads 7
     * bytes past its row and 3 before. */
    g.pad_x = round_up(ceil_shift(cfg.range_x, k) + 8, 16);
    g.pad_y = ceil_shift(cfg.range_y, k) + 2;
    g.pitch = round_up(w + 2 * g.pad_x, 64);
    g.rows = h + 2 * g.pad_y;
  }
  return levels - 1;
}

cudaError_t launch_reduce(const uint8_t* src, int src_pitch, int src_w, int src_h,
                          const LevelGeometry& g, uint8_t* dst, cudaStream_t stream) {
  dim3 block(128);
  dim3 grid((g.pitch + 127) / 128, g.rows);
  reduce_kernel<<<grid, block, 0, stream>>>(src, src_pitch, src_w, src_h, g.width,
                                            g.height, g.pad_x, g.pad_y, g.pitch, dst);
  return cudaGetLastError();
}

cudaError_t launch_fast_search(const FastArgs& args, cudaStream_t stream) {
  if (args.b_count <= 0) return cudaSuccess;
  const int ctas = (args.b_count + kWarpsPerCta - 1) / kWarpsPerCta;
  fast_search_kernel<<<ctas, 32 * kWarpsPerCta, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace match
