/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Phase-only-correlation (POC) motion estimation, backend-neutral API
 * (paper [E], README's References).
 *
 * Conventions (shared with match/blockmatch.h and GstMotionVectorsMeta):
 * - One vector per block of spacing x spacing pixels; blocks tile the frame
 *   from its top-left corner, the last column/row may be partial. The POC
 *   window (window_size x window_size) is centred on the block's centre
 *   ((x0 + x1) / 2, (y0 + y1) / 2 in continuous coordinates of its pixel
 *   range [x0, x1)), sampled with clamp-to-edge outside the frame.
 * - Vectors are float pixels with the same signs as blockmatchme:
 *   kForward: blocks tile the earlier frame, earlier(x) ~ later(x + v);
 *   kBackward (default): blocks tile the later frame, later(x) ~ earlier(x + v).
 * - confidence: the fitted POC peak height alpha (<= 1 up to fit error; 1 =
 *   identical, shifted windows), or -1 when there is no estimate.
 * - Hierarchical search (POC-HS): `layers` coarser layers by 2x2 averaging;
 *   the coarsest layer assumes zero motion, each finer layer's window in the
 *   searched frame is centred on twice the coarser estimate, and the
 *   sub-pixel fit is made at layer 0. layers = 0 is single-layer POC.
 *   `coarse` (PocCoarse) says whether each block searches its own coarser
 *   layers (the default) or the coarser layers are searched once on grids
 *   of their own and shared by the blocks below (every backend).
 * - Last stage (poc_finish(); the CPU backend runs it on the host, the CUDA
 *   backend the same per-block code on the device, with the same results):
 *   vectors longer than poc_max_displacement() are never returned;
 *   with `robust` each block's vector is checked against its 8 neighbours'
 *   by a pixel cost; a confidence below poc_confidence_floor() (or
 *   PocRuntime::min_confidence) is flagged kFlagUnreliable; `median` adds a
 *   confidence-weighted vector median post-filter.
 */
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>

#include "match/common.h"
#include "match/image.h"
#include "match/in_flight.h"
#include "match/status.h"

namespace match {

enum class PocWindow {
  kHann = 0, /* separable Hanning window (default) */
  kNone = 1, /* rectangular */
};

/* Where the coarser layers' POCs run (ref/poc_ref.cpp, "Coarse layers").
 * Layer 0 is the same in every mode: one POC (plus the re-centring) per
 * block, centred on the prediction of the coarser layers. */
enum class PocCoarse {
  /* Every block runs its own hierarchy: at each coarser layer l a window
   * centred on its own point p_l (the paper's). */
  kPerBlock = 0,
  /* Shared coarse layers: layer l >= 1 has its own block grid of the same
   * spacing in layer-l pixels (about 1 / 4^l as many blocks), and each
   * finer block takes its prediction from the layer-l block that contains
   * its point halved (its "parent"). */
  kShared = 1,
  /* kShared, but the prediction is the per-component median of the motions
   * of the 3 x 3 layer-l blocks around the parent (clamped to the grid);
   * the default. */
  kSharedMedian = 2,
};

/* Limits of PocConfig (validate() checks them; the pocme element's
 * properties use the same). */
constexpr int kMinPocWindowSize = 32;
constexpr int kMaxPocWindowSize = 256;
constexpr int kMinPocSpacing = 4;
constexpr int kMaxPocSpacing = 256;
constexpr int kMaxPocLayers = 3;

/* True when n = 2^a 3^b 5^c (n >= 1): the sizes the mixed-radix FFTs of
 * every backend handle, so the window sizes PocConfig accepts (within
 * kMinPocWindowSize..kMaxPocWindowSize). The one definition used by
 * validate(), the CPU FFT and the pocme element. */
constexpr bool is_poc_fft_size(int n) {
  if (n < 1) return false;
  for (int p : {2, 3, 5})
    while (n % p == 0) n /= p;
  return n == 1;
}

/* What a POC matcher is built for; changing it rebuilds scratch buffers. */
struct PocConfig {
  int width = 0;
  int height = 0;
  int window_size = 64; /* N: 32..256 and is_poc_fft_size() */
  int spacing = 16;     /* one vector per spacing x spacing block, 4..256 */
  int layers = 3;       /* coarser layers, 0..kMaxPocLayers (see coarse) */
  PocWindow window = PocWindow::kHann;
  /* Low-pass spectral weight: frequencies beyond `lowpass` x Nyquist (per
   * axis) get no weight; 1 = off. 0.75 by default: measured over 0.4..1 on
   * band-limited shifts of real textures (with and without noise) and on
   * Middlebury/Sintel EPE for N = 32, 64, 128 (docs/pocme.md), it has the
   * smaller worst-case and noisy sub-pixel errors and stays within 0.02 px
   * of the best dense EPE; lower values cost Middlebury accuracy. */
  double lowpass = 0.75;
  Direction direction = Direction::kBackward;
  /* Longest vector returned, px; 0 = poc_reach() (the most the window and
   * layers can explain), larger values are capped to it. */
  int max_displacement = 0;
  /* Candidate check (poc_finish()): each block keeps its POC vector unless
   * one of its 8 neighbours' vectors fits the block's pixels clearly better
   * (zero-mean SAD of the block, bilinear samples of the searched frame). */
  bool robust = true;
  /* Post-filter (poc_finish()): a confidence-weighted vector median over
   * each block's 3 x 3 neighbourhood replaces outliers (vectors more than
   * kPocCandidateMinDistance from it). Off by default: it costs a little on
   * the Middlebury pairs (docs/pocme.md). */
  bool median = false;
  /* Coarse-layer mode (PocCoarse). The default, 3 shared layers with
   * median predictions, against the paper's 2 per-block layers on the
   * shared flow pairs (docs/pocme.md, "Shared coarse layers"): small
   * motion 0.369 -> 0.362 px, 7.9 -> 7.6 % bad; large motion dense EPE
   * 21.2 -> 16.0 px, blocks > 30 px off 2,184 -> 1,699, bad blocks 53.7 ->
   * 54.1 %; and about half the GPU time (1080p N = 64: 1,174 -> over 2,000
   * fps on an H200). */
  PocCoarse coarse = PocCoarse::kSharedMedian;

  int columns() const { return (width + spacing - 1) / spacing; }
  int rows() const { return (height + spacing - 1) / spacing; }
  int num_blocks() const { return columns() * rows(); }

  Status validate() const;
  bool operator==(const PocConfig& o) const;
  bool operator!=(const PocConfig& o) const { return !(*this == o); }
};

/* Per-frame settings. */
struct PocRuntime {
  double min_confidence = 0.0; /* below it: kFlagUnreliable (vector kept) */
  /* CPU worker threads; 0 = OpenMP's default team divided among the CPU
   * matchers alive in this process, at least 1 (as BlockMatchRuntime). */
  int threads = 0;
};

struct PocVector {
  float dx = 0.f; /* pixels */
  float dy = 0.f;
  float confidence = -1.f;
  uint32_t flags = kFlagNoEstimate;
};

/* The reach of a setting: the longest displacement, in pixels, that the
 * coarsest layer's window can tell apart, (window_size / 2 - 1) 2^layers
 * (N = 64: 31 px with layers = 0, 62 with 1, 124 with 2, 248 with 3). Each
 * finer layer only refines the coarser estimate. */
int poc_reach(const PocConfig& config);

/* config.max_displacement, or poc_reach() when it is 0 or larger. */
int poc_max_displacement(const PocConfig& config);

/* Confidence floor: w sqrt(2 ln N^2) / (2K + 1) (K: the low-pass
 * half-width, ref/poc_ref.cpp; w = 1.5, the Hann window's equivalent noise
 * bandwidth in bins, or 1 without a window), the expected highest sample of
 * the POC surface of two unrelated windows (random phases) in confidence
 * units. N = 64, Hann, default lowpass: 0.125; N = 256: 0.036. A vector
 * whose confidence is not above it is always flagged kFlagUnreliable. */
double poc_confidence_floor(const PocConfig& config);

/* With config.robust, a neighbour's vector replaces the block's own only
 * when its cost is lower than (1 - kPocSwitchMargin) x the own vector's: the
 * own POC estimate is sub-pixel accurate over a larger window, a
 * neighbour's is only a candidate. */
constexpr double kPocSwitchMargin = 0.1;
/* Neighbours' vectors within this distance (px) of the block's own vector
 * are not candidates: the same motion, up to sub-pixel differences that the
 * POC peak fit measures better than a SAD of bilinear samples. */
constexpr double kPocCandidateMinDistance = 1.0;
/* Candidate check passes: one. The layer vote after it takes its results
 * as candidates, so a corrected vector can spread one more block (a second
 * check pass did that before the vote came; with the vote it moved the
 * means of bench/poc_accuracy.py by at most 0.007 px, but the large-motion
 * one by 0.12 px of 15.8, and cost as much GPU time as the vote:
 * docs/design/pocme.md, The layer vote). */
constexpr int kPocCandidatePasses = 1;
/* The layer vote, after the candidate check (with robust): a block that
 * two motions share (a boundary, branches before a backdrop) gets the
 * motion of most of its pixels, or their mean where none holds most (the
 * block's mean motion, which a block vector stands for). The candidates:
 * the block's vector, then its 3 x 3 neighbours' with a confidence of at
 * least kPocVoteMinConfidence (lower peaks are mostly wrong: docs/pocme.md's
 * table), then, while there is room for nine, those of the ring around
 * them (5 x 5) with at least kPocVoteRingConfidence (a thin branch's
 * motion is often held only by a block two away), each more than
 * kPocCandidateMinDistance from those before it.
 * Each pixel votes for the candidate whose sum of absolute differences
 * over the 3 x 3 pixels around it is lowest, and is sure when that beats
 * the runner-up's by kPocVoteClear grey levels a pixel. Under
 * kPocVoteMinSure of the pixels sure (flat texture, or candidates that
 * are all wrong; a third rather than half: blocks of uniform leaves and
 * branches are sure on few pixels, docs/design/pocme.md), the block takes
 * the confidence-weighted vector median of the 3 x 3 blocks around it (as
 * `median` would, poc_finish()); else a candidate with kPocVoteMajority
 * of the votes is the block's vector, and
 * without one the block takes the candidates' mean weighted by their sure
 * votes, the unsure pixels counting for the most voted candidate.
 * A forward field with the frame before the earlier one (a stream's third
 * frame on; poc_finish()'s `before`) takes a pixel's cost as the lower of
 * that sum and the one against the frame before, moved back by the
 * candidate: a pixel that the later frame hides behind another layer votes
 * for its own layer (docs/design/pocme.md, Three frames). */
constexpr double kPocVoteMinConfidence = 0.3;
constexpr double kPocVoteRingConfidence = 0.4;
constexpr double kPocVoteClear = 0.5;
constexpr double kPocVoteMinSure = 1.0 / 3.0;
constexpr double kPocVoteMajority = 0.85;

/* The last stage of every backend (kernels/ref/poc_robust.cpp; its
 * per-block code, ref/poc_finish_block.h, is what the CUDA backend runs on
 * the device after its POC, with bit-identical results): `v` holds the POC
 * vectors of all blocks on entry and the results on return (reach,
 * candidate check, median, flags). `earlier`/`later` as for
 * ref::poc_match. The candidate cost is integer arithmetic: candidates
 * rounded to 1/256 px, 8-bit bilinear weights, exact 64-bit sums.
 * `before`, or null: the frame before `earlier` (the layer vote's third
 * frame; used with direction kForward only). */
Status poc_finish(const ImageView& earlier, const ImageView& later,
                  const PocConfig& config, const PocRuntime& rt, PocVector* v,
                  const ImageView* before = nullptr);

/* A stateful POC matcher: keeps the previous frame (and its layers). Not
 * thread-safe; one per stream. Same life cycle as BlockMatcher. */
class PocMatcher {
 public:
  virtual ~PocMatcher() = default;

  /* kAuto: CUDA when a device opens and cuFFT loads, else the CPU
   * (logged). kCuda needs a device
   * and cuFFT (loaded at run time) and uses devices.devices[0] (default 0):
   * POC runs on one GPU. Never throws. The CUDA matcher queues each
   * submitted frame on its streams and returns (real pipelining: up to
   * max_in_flight() frames); the CPU one computes inside submit(). */
  static Status create(Backend backend, const PocConfig& config,
                       std::unique_ptr<PocMatcher>* out,
                       const DeviceOptions& devices = DeviceOptions());

  virtual Backend backend() const = 0;
  virtual std::string description() const = 0;
  const PocConfig& config() const { return config_; }

  /* Feeds the next frame (luma, config().width x height); with a previous
   * frame held fills out[num_blocks()] and sets *estimated, else every
   * entry gets kFlagNoEstimate and *estimated = false. */
  virtual Status process(const ImageView& luma, const PocRuntime& rt, PocVector* out,
                         bool* estimated) = 0;

  /* Pipelined use, as BlockMatcher's: submit() queues the next frame and
   * collect() hands back the results of the oldest submitted one, in
   * submission order; up to max_in_flight() frames may be submitted and not
   * yet collected. Results are the same as process()'s. The default (the
   * CPU backend) computes inside submit() and keeps the vectors in a ring
   * until collect(); the CUDA backend overrides both and only queues the
   * frame's work in submit(). */
  virtual Status submit(const ImageView& luma, const PocRuntime& rt);
  virtual Status collect(PocVector* out, bool* estimated);

  /* submit() for a frame already in CUDA device memory, in the primary
   * context of CUDA device luma.device (see BlockMatcher::submit_device()
   * and DeviceImageView; the producer's writes complete). The CUDA backend
   * copies it device to device (a peer copy from another GPU); the memory
   * may be reused when this returns. Results come from collect() and equal
   * submit()'s on the same pixels. Other backends, and a device this
   * process cannot use, return kUnsupported and leave the matcher
   * untouched: the caller then uses submit() or process() from host
   * memory. */
  virtual Status submit_device(const DeviceImageView& luma, const PocRuntime& rt);

  /* The matcher's device copy of the frame collect() returned last (see
   * BlockMatcher::collected_frame()). */
  virtual bool collected_frame(int device, DeviceImageView* out);
  /* The CPU team the last frame ran with (see BlockMatcher::team()). */
  virtual int team() const { return 0; }

  /* submit_device() then collect(): the synchronous form, as process() is
   * of submit(). Needs in_flight() == 0. */
  Status process_device(const DeviceImageView& luma, const PocRuntime& rt, PocVector* out,
                        bool* estimated);

  virtual int max_in_flight() const { return kMaxInFlight; }
  int in_flight() const { return pending_.count(); }

  /* Timing of the last frame computed (device time on CUDA; -1 on the
   * CPU). */
  virtual MatcherStats stats() const { return MatcherStats(); }

  /* New parameters for the same frame size; the previous frame is kept. */
  virtual Status reconfigure(const PocConfig& config) = 0;

  /* Forgets the previous frame and drops frames in flight (flush,
   * discontinuity). */
  virtual void reset() = 0;

 protected:
  PocConfig config_;
  /* Results of the default submit() until collect() (in_flight.h). */
  VectorRing<PocVector> pending_;
  void drop_pending() { pending_.clear(); }
};

namespace ref {
/* Plain reference: double precision, a straightforward FFT, no threads.
 * `before`: poc_finish()'s. */
Status poc_match(const ImageView& earlier, const ImageView& later,
                 const PocConfig& config, const PocRuntime& rt, PocVector* out,
                 const ImageView* before = nullptr);
}  // namespace ref

}  // namespace match
