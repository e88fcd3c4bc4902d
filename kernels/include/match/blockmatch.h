/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Backend-neutral block-matching motion estimation API.
 *
 * Conventions (the same as the public GstMotionVectorsMeta, see
 * gst/motionvectors/motionvectors.h):
 * - Vectors are in quarter-pixel units (kSubpelScale = 4) whatever the search
 *   grid, so integer, half- and quarter-pel results share one representation.
 * - Blocks tile a frame from its top-left corner; the last column/row of
 *   blocks is partial when the frame size is not a multiple of the block
 *   size. Block (c, r) covers x in [c*bw, min((c+1)*bw, W)), likewise y.
 * - kForward: blocks tile the EARLIER frame; v is where the block went:
 *     earlier(x, y) ~ later(x + dx, y + dy).
 *   kBackward: blocks tile the LATER (current) frame; v points to where the
 *   block came from, as codecs and FFmpeg's AVMotionVector (source = -1) do:
 *     later(x, y) ~ earlier(x + dx, y + dy).
 * - The searched frame is sampled with clamp-to-edge addressing, so
 *   candidates may reach past its border.
 * - Candidates: every v = (i, j) / subpel with |v_x| <= range_x and
 *   |v_y| <= range_y, i.e. (2 range_x subpel + 1) x (2 range_y subpel + 1).
 * - Sub-pel samples are bilinear in integer arithmetic, defined once for all
 *   backends: with a,b (row y) and c,d (row y+1) the clamped neighbours and
 *   fx, fy in quarter pixels (0..3),
 *     s = ((4-fx)(4-fy) a + fx(4-fy) b + (4-fx) fy c + fx fy d + 8) >> 4.
 * - Cost: SAD over the block's pixels. Ties: lowest cost, then the smallest
 *   |v|^2, then the first in raster order (smallest dy, then smallest dx).
 *   The result is therefore unique and identical on every backend.
 * - Noise threshold C (paper [A] eq. 4), in grey levels per pixel, 0 = off:
 *   a block whose zero-motion cost J(0) is <= C * (pixels in the block) is
 *   reported as v = 0 with kFlagSuppressed and cost J(0). See
 *   docs/blockmatchme.md for why the test is made at v = 0.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "match/common.h"
#include "match/image.h"
#include "match/in_flight.h"
#include "match/status.h"

namespace match {

/* Search methods. kFull visits every candidate (see the top comment); the
 * others visit a subset, integer vectors first, then refine to the
 * sub-pixel grid. Their definitions, shared by every backend:
 *
 * Order of candidates: "better" is lower cost, then smaller |v|^2, then
 * smaller dy, then smaller dx (quarter-pixel units): a total order, so every
 * choice below has one answer whatever the order of evaluation. Candidates
 * outside the search range (|dx| > range_x or |dy| > range_y pixels) are
 * never evaluated. The noise threshold applies first, as for kFull.
 *
 * Integer stage (whole pixels; c is the current centre, start (0, 0)):
 * - kHierarchical (paper [B]): `levels` images (level 0 = the frame, level
 *   k + 1 = level k low-passed by the separable [1 3 3 1] / 8 filter over
 *   (2x - 1 .. 2x + 2) -> x, clamp-to-edge, in integers rounded as
 *   (sum of the 64 weighted pixels + 32) >> 6; size ceil(size / 2)); block
 *   b at level k covers [x0 >> k, max((x0 + w) >> k, (x0 >> k) + 1)) x
 *   likewise. Level k's range is ceil(range / 2^k) (so a coarse vector may
 *   stand for up to 2^k - 1 pixels beyond the range; level 0's is the
 *   range). At the coarsest level L - 1 every vector in its range is tried
 *   and the `predictors` best (distinct) are kept; at each finer level k
 *   the candidates are 2p + {-1, 0, 1}^2 for the kept p (duplicates once,
 *   within the level's range), the `predictors` best kept; at level 0 the
 *   best of them is the integer vector.
 * - kThreeStep (logarithmic, paper [B]): step m = (max(range_x, range_y) +
 *   1) / 2, then m / 2, ... down to 1: c + {-m, 0, m}^2, the best becomes c.
 * - kDiamond: the large diamond c + {(0,0), (+-2,0), (0,+-2), (+-1,+-1)}
 *   until the best is c, then the small one c + {(0,0), (+-1,0), (0,+-1)}.
 * - kHexagon: the hexagon c + {(0,0), (+-2,0), (+-1,+-2)} until the best is
 *   c, then c + {(0,0), (+-1,0), (0,+-1)}.
 * - kPredictive (EPZS-like, Tourapis 2002, with spatial predictors that
 *   need no raster order): `passes` passes (2..kMaxPasses), each over
 *   every block at once: a block reads only the field of the previous pass
 *   or of the previous frame, never the one being written, so every block
 *   of a pass is in flight on a GPU and the CPU's threads need no order.
 *   Vectors of a field are used rounded to whole pixels, (v + 2) >> 2, and
 *   clamped to the range; "neighbours" are the blocks that exist; the
 *   median of three vectors is component-wise (of two, the smaller).
 *   A block is "good enough" when J(c) <= predictive_stop * (pixels in
 *   the block) (BlockMatchRuntime; 0 = never): as in EPZS, it takes no
 *   descent then.
 *   Pass 1 (integer): c = the best of (0, 0) and, when a previous field
 *   exists (the matcher's output for the previous pair; none at the first
 *   estimate or after reset()), its vectors of the block, of the left,
 *   right, upper and lower neighbours and the median of the left, upper
 *   and upper-right ones. Unless c is good enough, c = the better of c
 *   and the coarse predictor: at level K = kPredictiveCoarseLevel of both
 *   frames (kHierarchical's level K, block and range ceil(range / 2^K) as
 *   there), the large diamond descent from (0, 0), then the small diamond
 *   until the best is the centre (by the SAD of level K); that vector
 *   times 2^K, clamped to the range. It reaches large motion (and, for
 *   motion beyond the range, the range's edge in its direction) where the
 *   descents at full resolution stop in a local minimum. Unless c is then
 *   good enough, the large diamond descent from c as kDiamond's, then the
 *   small diamond until the best is c.
 *   Pass k > 1: with d = 2^(passes - k) (so the last pass has d = 1),
 *   c = the best of pass k - 1's vectors of the block, of its eight
 *   neighbours d blocks away ((+-d, 0), (0, +-d), (+-d, +-d): left, right,
 *   upper, lower, upper-left, upper-right, lower-left, lower-right) and,
 *   when d = 1, the median of its left, upper and upper-right ones; unless
 *   c is good enough, the small diamond until the best is c. Passes before
 *   the last are integer; the last goes on to the sub-pixel stage.
 *   The last pass (only) chooses by the encoder's decision cost instead of
 *   the SAD alone (EPZS's and H.264's motion-vector rate term):
 *     J(v) = SAD(v) + floor(r * w * h * (|v_x - p_x| + |v_y - p_y|) / 256)
 *   with v and p in quarter pixels, w x h the block, r = round(64 *
 *   predictive_rate) (BlockMatchRuntime; 0 = off) and p the component-wise
 *   median of the input field's vectors of the block and of its adjacent
 *   neighbours (up to nine; of an even count, the lower middle): its
 *   predictors and small diamond compare J, then |v|^2, dy, dx; the
 *   sub-pixel stage, the early termination and the reported cost stay
 *   with the SAD. (Earlier passes carry vectors far by SAD alone: a rate
 *   term there holds large motion back.) The
 *   halving steps (those of jump flooding) carry a vector found anywhere
 *   in pass 1 to every block up to 2^(passes - 1) - 1 away on every side,
 *   where a raster-order EPZS offers only the left and upper ones (from
 *   any distance); on a two-frame input pass 1 is a diamond search from
 *   the better of (0, 0) and the coarse predictor (none where (0, 0) is
 *   good enough).
 * Sub-pixel stage (subpel > 1): every grid point strictly within one pixel
 * of the integer vector v, v + (i, j) / subpel for |i|, |j| < subpel, the
 * best kept (kFull's candidates near v; the same sampling rule). */
enum class SearchMethod {
  kFull = 0,
  kHierarchical = 1,
  kThreeStep = 2,
  kDiamond = 3,
  kHexagon = 4,
  kPredictive = 5,
};

const char* search_method_name(SearchMethod m);

/* Limits of the hierarchical search's parameters. */
constexpr int kMaxLevels = 5;
constexpr int kMaxPredictors = 16;
/* Limit of the predictive search's passes. */
constexpr int kMaxPasses = 4;
/* The level (kHierarchical's levels: 2 = quarter resolution) of the
 * predictive search's coarse predictor. */
constexpr int kPredictiveCoarseLevel = 2;

/* Vectors are reported in units of 1/kSubpelScale pixel. */
constexpr int kSubpelScale = 4;

/* Largest accepted values; they bound the work and the padded planes. */
constexpr int kMaxBlockSize = 256;
constexpr int kMaxSearchRange = 256;

struct BlockVector {
  int32_t dx = 0;    /* quarter pixels */
  int32_t dy = 0;    /* quarter pixels */
  uint32_t cost = 0; /* SAD of the reported vector */
  uint32_t flags = kFlagNoEstimate;
};

/* What a matcher is built for; changing it rebuilds scratch buffers. */
struct BlockMatchConfig {
  int width = 0;
  int height = 0;
  int block_width = 16;
  int block_height = 16;
  int range_x = 16;
  int range_y = 16;
  int subpel = 1; /* candidate grid steps per pixel: 1, 2 or 4 */
  Direction direction = Direction::kBackward;
  SearchMethod method = SearchMethod::kFull;
  int levels = 3;     /* kHierarchical: images, 2..kMaxLevels */
  int predictors = 4; /* kHierarchical: vectors kept per level, 1..kMaxPredictors */
  int passes = 4;     /* kPredictive: passes over the field, 2..kMaxPasses */

  int columns() const { return (width + block_width - 1) / block_width; }
  int rows() const { return (height + block_height - 1) / block_height; }
  int num_blocks() const { return columns() * rows(); }
  /* Candidates per block. */
  long long candidates() const {
    return (2LL * range_x * subpel + 1) * (2LL * range_y * subpel + 1);
  }

  Status validate() const;
  bool operator==(const BlockMatchConfig& o) const;
  bool operator!=(const BlockMatchConfig& o) const { return !(*this == o); }
};

/* Per-frame settings: may change between any two frames. */
struct BlockMatchRuntime {
  double threshold = 0.0; /* C, grey levels per pixel; 0 = off */
  /* kPredictive's early termination, grey levels per pixel (0..255; 0 =
   * never): a pass takes no descent from a best predictor that costs at
   * most this times the block's pixels. */
  double predictive_stop = 2.0;
  /* kPredictive's motion-vector rate weight in its last pass (0..4; 0 =
   * off), grey levels per pixel of the block per pixel of distance from
   * the median predictor, taken in steps of 1/64 (see kPredictive). */
  double predictive_rate = 1.0;
  /* CPU worker threads; 0 = OpenMP's default team (OMP_NUM_THREADS, else
   * the CPUs this process may use) divided among the CPU matchers alive in
   * this process, at least 1 (docs/many-cameras.md). */
  int threads = 0;
};

/* r of kPredictive's decision cost: round(64 * predictive_rate), clamped to
 * 0..256 (so that J stays below 2^29 for any block and range). */
int predictive_rate_steps(const BlockMatchRuntime& rt);

/* A stateful matcher: it keeps the previous frame (prepared for searching)
 * so that each frame is converted once. Not thread-safe; one per stream. */
class BlockMatcher {
 public:
  virtual ~BlockMatcher() = default;

  /* Builds a matcher for `backend` (kAuto: CUDA when a device opens, else
   * CPU). Never throws. */
  static Status create(Backend backend, const BlockMatchConfig& config,
                       std::unique_ptr<BlockMatcher>* out,
                       const DeviceOptions& devices = DeviceOptions());

  virtual Backend backend() const = 0;
  const BlockMatchConfig& config() const { return config_; }
  /* Human-readable: "cpu (avx2)", "cuda:0 (NVIDIA H100 80GB HBM3)", ... */
  virtual std::string description() const = 0;

  /* Feeds the next frame (luma, config().width x height). When a previous
   * frame is held, fills out[config().num_blocks()] (row-major) with the
   * vectors between it and `luma` and sets *estimated = true; otherwise every
   * entry gets kFlagNoEstimate and *estimated = false. Needs in_flight() == 0
   * (it is submit() then collect()). */
  virtual Status process(const ImageView& luma, const BlockMatchRuntime& rt,
                         BlockVector* out, bool* estimated) = 0;

  /* Pipelined use. submit() queues the next frame and returns as soon as the
   * backend has taken its pixels (the CUDA backend copies them to pinned
   * staging and returns while the GPU works; the CPU backend computes at
   * once). collect() hands back the results of the oldest submitted frame,
   * in submission order, waiting for them. Up to max_in_flight() frames may
   * be submitted and not yet collected. Results are the same as process()'s. */
  virtual Status submit(const ImageView& luma, const BlockMatchRuntime& rt);
  virtual Status collect(BlockVector* out, bool* estimated);

  /* submit() for a frame already in CUDA device memory (zero copy from a
   * GPU decoder: no trip through host memory). `luma` lives in the primary
   * context of CUDA device luma.device (see DeviceImageView); the writes of
   * whoever produced it must be complete (GStreamer 1.22's CUDA memory is:
   * producers synchronise their stream before a buffer leaves them).
   * Each engine copies the frame into its own storage (one device-to-device
   * copy; a peer copy for an engine on another device), and the call
   * returns once those copies are done, so the caller may reuse or release
   * the memory at once, as after submit(). Results come from collect() and
   * equal submit()'s on the same pixels.
   * The CUDA backend only; the others return kUnsupported (and leave the
   * matcher untouched), and so does the CUDA backend for a device this
   * process cannot use: the caller then hands the frame over through
   * submit() from host memory. */
  virtual Status submit_device(const DeviceImageView& luma, const BlockMatchRuntime& rt);
  /* The matcher's own device copy of the frame that collect() returned
   * last, on CUDA device `device`: for a later stage on the GPU (the
   * motion decision's change stage) that would otherwise upload the frame
   * again. Its upload is complete when this returns, so it may be read on
   * any stream of that device; it stays valid until the next submit(),
   * submit_device(), process() or reset(). False, with *out untouched,
   * where there is none: the CPU backend, no engine on `device`, nothing
   * collected since the last of those calls. */
  virtual bool collected_frame(int device, DeviceImageView* out);
  /* The CPU team the last frame ran with (n-threads, or the size the
   * default's tuner chose against the load: kernels/threads.h), for a
   * later CPU stage on the same thread (the motion decision's change
   * stage); 0 on the other backends and before a frame. */
  virtual int team() const { return 0; }
  virtual int max_in_flight() const { return kMaxInFlight; }
  int in_flight() const { return pending_.count(); }

  virtual MatcherStats stats() const { return MatcherStats(); }

  /* New search parameters for the same frame size; the previous frame is
   * kept, so the next process() still estimates. Needs in_flight() == 0. */
  virtual Status reconfigure(const BlockMatchConfig& config) = 0;

  /* Forgets the previous frame and drops frames in flight (flush,
   * discontinuity). */
  virtual void reset() = 0;

 protected:
  BlockMatchConfig config_;
  /* Results of the default submit() (backends that compute at submit
   * time) until collect(); pipelined backends keep their own storage and
   * use only its count (in_flight.h). */
  VectorRing<BlockVector> pending_;
  void drop_pending() { pending_.clear(); }
};

namespace ref {
/* The plain scalar reference of every method: samples with clamping and
 * the bilinear rule above; kFull visits every candidate in raster order,
 * the other methods visit theirs one by one as defined above. Slow,
 * obviously right; the fast backends are tested against it. kPredictive
 * takes the previous frame's vectors in `previous` (config.num_blocks(),
 * or null at the first estimate). */
Status block_match(const ImageView& earlier, const ImageView& later,
                   const BlockMatchConfig& config, const BlockMatchRuntime& rt,
                   BlockVector* out, const BlockVector* previous = nullptr);
}  // namespace ref

}  // namespace match
