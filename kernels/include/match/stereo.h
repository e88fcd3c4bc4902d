/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Stereo matching (block WTA and semi-global matching), backend-neutral API
 * (README's References: paper [D] and Hirschmueller
 * 2008).
 *
 * Definitions every backend follows exactly (all arithmetic is integer, so
 * the CPU and CUDA backends give the reference's output bit for bit,
 * sub-pixel values included):
 *
 * - Views. L, R: rectified 8-bit luma of the same size W x H. Reference
 *   view kLeft (default): the output is the left view's disparity, pixel
 *   (x, y) of L matched with (x - d, y) of R. kRight: the right view's
 *   disparity, R(x, y) matched with L(x + d, y). Below, Ref is the reference
 *   view, Oth the other, s = -1 for kLeft and +1 for kRight; d runs over
 *   [min_disparity, min_disparity + num_disparities). clamp(x) clamps to
 *   [0, W - 1] and clamp(y) to [0, H - 1].
 * - Per-pixel images A (one per view, from that view alone):
 *   kSad: A = the luma.
 *   kSobel: A(x, y) = min(62, max(0, Gx + 31)) with Gx = (I(x+1, y-1) +
 *     2 I(x+1, y) + I(x+1, y+1)) - (I(x-1, y-1) + 2 I(x-1, y) + I(x-1, y+1)),
 *     I read clamped: OpenCV StereoBM's x-Sobel pre-filter (cap 31).
 *   kCensus: A(x, y) = a census_width x census_height bit string: for each
 *     (i, j) of the window other than the centre, row by row (j, then i,
 *     ascending), bit k = 1 when I(x + i, y + j) < I(x, y) (read clamped);
 *     bit k is bit k of a uint64_t, bit 0 the first.
 * - Per-pixel cost, for any integers x', y' (coordinates clamped):
 *   c(x', y', d) = rho(A_Ref(clamp(x'), clamp(y')),
 *                      A_Oth(clamp(x' + s d), clamp(y')))
 *   with rho(a, b) = |a - b| (kSad, kSobel; <= 255 and <= 62) or
 *   popcount(a XOR b) (kCensus; <= census area - 1 <= 63). kCensusAd
 *   (kSgm only) adds the truncated absolute difference of the lumas to
 *   the census cost: c = popcount(A_Ref XOR A_Oth) + (min(|I_Ref - I_Oth|,
 *   kCensusAdCap) >> 1), I read at the same two pixels (<= area - 1 + 15;
 *   an AD-census mix after Mei et al. 2011, in integers). Every candidate
 *   is evaluated for every pixel, also where x + s d falls outside the
 *   other view.
 * - Method kBlock (paper [D]): C(x, y, d) = sum over |i| <= hw, |j| <= hh of
 *   c(x + i, y + j, d), hw = (window_width - 1) / 2, hh = (window_height -
 *   1) / 2. With kSad this is the SAD of the window, read clamped.
 * - kSgm's matching cost (cost_window = b, odd, 1..kMaxCostWindow, r =
 *   (b - 1) / 2): the rounded mean of the per-pixel costs over the b x b
 *   square, each read at clamped coordinates,
 *   cb(x, y, d) = floor((sum over |i| <= r, |j| <= r of
 *                        c(clamp(x + i), clamp(y + j), d) + b b / 2) / (b b))
 *   (b b / 2 in integers; b = 1: cb = c). OpenCV StereoSGBM's blockSize
 *   does the same with a sum; a mean keeps cb within c's range, so every
 *   bound below holds as it is.
 * - Method kSgm (Hirschmueller): C(x, y, d) = S(x, y, d) = sum over the
 *   paths r of L_r(x, y, d), each path's recurrence on cb (written c
 *   below). Paths (dx, dy): 4 paths (1, 0), (-1, 0),
 *   (0, 1), (0, -1); 8 paths add (1, 1), (-1, 1), (1, -1), (-1, -1). With
 *   p = (x, y) and q = p - r: where q is outside the image,
 *   L_r(p, d) = c(p, d); else, with m = min over k of L_r(q, k),
 *   L_r(p, d) = c(p, d) + min(L_r(q, d), L_r(q, d - 1) + P1,
 *                             L_r(q, d + 1) + P1, m + P2') - m
 *   (d - 1, d + 1 only inside the range), P2' = P2 when p2_edge = 0, else
 *   max(P1, floor(P2 p2_edge / (p2_edge + |Ref(p) - Ref(q)|))) (the
 *   penalty for a jump falls where the reference view has an edge). The
 *   window is not used by kSgm's cost (the paths aggregate); it still
 *   defines the texture test. Every min_k L_r(q, k) <= 255 (at the
 *   previous minimum the step adds nothing), so every L_r <= 255 + P2' <=
 *   255 + max(P1, P2) (P2' = P1 > P2 is possible with p2_edge > 0), and S
 *   fits in 16 bits (P1, P2 <= kMaxSgmPenalty).
 * - Winner-take-all. d* = the d of the lowest C; ties go to the smallest d.
 * - Sub-pixel (subpixel = true). With c0 = C(d*), cm = C(d* - 1),
 *   cp = C(d* + 1), only when d* has both neighbours inside the range and
 *   den = cm + cp - 2 c0 > 0: frac = round(16 (cm - cp) / (2 den)) in
 *   sixteenths, computed as num = 16 (cm - cp), q = floor((num + den) /
 *   (2 den)) (integer floor division), clamped to [-8, 8]. Otherwise frac = 0.
 *   Output value = 16 d* + frac. With subpixel = false the value is 16 d*.
 * - Texture threshold (runtime, 0 = off): T(x, y) = sum over the window of
 *   |Ref(x + i + 1, y + j) - Ref(x + i - 1, y + j)| (luma, clamped). A pixel
 *   with T < texture_threshold is invalid.
 * - Uniqueness (runtime, percent, 0 = off): the pixel is invalid when some d
 *   with |d - d*| > 1 has 100 C(d) <= (100 + uniqueness_ratio) C(d*).
 * - Left-right check (runtime, lr_max_diff >= 0, -1 = off). kBlock: the
 *   other view's integer WTA disparity map D' is computed with the same
 *   rules from its own costs (the other view as reference; ties to the
 *   smallest d, no texture/uniqueness test). kSgm: D' comes from the same
 *   volume: for kLeft, D'(x') = the d with x' + d in [0, W) of the lowest
 *   S(x' + d, y, d) (ties to the smallest d); for kRight the same with
 *   x' - d; a pixel x' with no such d has no D' (its partners fail). Then
 *   pixel x with d* keeps its value only when x' = x + s d* lies in [0, W)
 *   and |D'(x') - d*| <= lr_max_diff.
 * - Invalid pixels get kInvalidDisparity. Tests are applied in the order
 *   texture, uniqueness, left-right; the first that fails decides.
 * - Median (runtime, median = true), on the map after those tests: a valid
 *   pixel takes the lower median (rank (n - 1) / 2 ascending) of the n
 *   valid values among its 3x3 neighbours inside the image (itself
 *   included); invalid pixels stay invalid.
 * - Speckle filter (runtime, speckle_size > 0), after the median: valid
 *   pixels are joined to their 4-neighbours whose value differs by at most
 *   16 speckle_range; every connected region of fewer than speckle_size
 *   pixels becomes invalid.
 * - Fill (runtime, fill_invalid = true), after the speckle filter: each
 *   invalid pixel takes the lower of the nearest valid values to its left
 *   and to its right in its row (read from the map before the fill: fills
 *   do not spread), or the one that exists; with neither it stays invalid.
 *   The lower value is the background's at an occlusion (Hirschmueller
 *   2008's interpolation along the row).
 * - Joint median (runtime, joint_median_radius = r > 0), last: each valid
 *   pixel p takes the lower median (rank (m - 1) / 2 ascending) of the m
 *   valid values (read from the map before this step) of the pixels q of
 *   the (2r + 1) x (2r + 1) square around p, inside the image, whose
 *   reference luma is within joint_median_range of p's, |Ref(q) - Ref(p)|
 *   <= joint_median_range (p itself always counts): a median that does not
 *   cross intensity edges, which pulls a foreground's fattened border back
 *   to the background's values.
 */
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "match/common.h"
#include "match/image.h"
#include "match/in_flight.h"
#include "match/status.h"

namespace match {

enum class StereoReference { kLeft = 0, kRight = 1 };
/* The matching cost and the aggregation (definitions above). */
enum class StereoCost { kSad = 0, kSobel = 1, kCensus = 2, kCensusAd = 3 };
/* The costs whose per-pixel images A are census bit strings. */
constexpr bool stereo_cost_uses_census(StereoCost c) {
  return c == StereoCost::kCensus || c == StereoCost::kCensusAd;
}
/* kCensusAd's cap of the luma difference (halved: adds 0..15). */
constexpr int kCensusAdCap = 31;
enum class StereoMethod { kBlock = 0, kSgm = 1 };

/* Fixed-point output: disparity x 16 (4 fractional bits, as OpenCV and
 * libSGM), in an unsigned 16-bit value. */
constexpr int kDisparityFracBits = 4;
constexpr int kDisparityScale = 1 << kDisparityFracBits;
/* The explicit invalid value of the 16-bit output (above any valid value:
 * the largest is 16 (kMaxMinDisparity + kMaxDisparities - 1) + 8). */
constexpr uint16_t kInvalidDisparity = 0xFFFF;

constexpr int kMaxDisparities = 256;   /* num_disparities: 1..256 */
constexpr int kMaxMinDisparity = 1024; /* min_disparity: 0..1024 */
constexpr int kMaxStereoWindow = 31;   /* window sides: odd, 1..31 */
/* Census window: odd sides, at most 64 bits besides the centre. */
constexpr int kMaxCensusBits = 64;
constexpr int kMaxSgmPenalty = 4095; /* P1, P2: 0..4095 */
constexpr int kMaxSpeckleRange = 1024;
constexpr int kMaxP2Edge = 255;          /* p2_edge: 0 (off) .. 255 */
constexpr int kMaxCostWindow = 7;        /* kSgm's cost_window: odd, 1..7 */
constexpr int kMaxJointMedianRadius = 5; /* joint_median_radius: 0..5 */

/* The penalties the element uses when none are given: libSGM's for census
 * (a 9x7 census spans 0..62, like the Sobel cost's 0..62); four times
 * those for kSad's 0..255. */
struct SgmPenalties {
  int p1, p2;
};
constexpr SgmPenalties default_sgm_penalties(StereoCost cost) {
  return cost == StereoCost::kSad ? SgmPenalties{40, 480} : SgmPenalties{10, 120};
}

/* The output conversions (match/disparity_output.h). */
struct DisparityOutputParams;
struct DisparityOutputView;
struct DisparityOutputScratch; /* private to kernels/ */

/* A writable view of 16-bit pixels (disparity maps); stride in bytes, rows
 * may be padded. */
struct DisparityView {
  uint16_t* data = nullptr;
  int width = 0;
  int height = 0;
  std::ptrdiff_t stride_bytes = 0;

  uint16_t* row(int y) const {
    return reinterpret_cast<uint16_t*>(reinterpret_cast<uint8_t*>(data) +
                                       y * stride_bytes);
  }
};

/* What a stereo matcher is built for; changing it rebuilds buffers. */
struct StereoConfig {
  int width = 0;
  int height = 0;
  int window_width = 7;  /* odd, 1..kMaxStereoWindow */
  int window_height = 7; /* odd, 1..kMaxStereoWindow */
  int min_disparity = 0;
  int num_disparities = 64;
  StereoReference reference = StereoReference::kLeft;
  StereoCost cost = StereoCost::kSad;
  StereoMethod method = StereoMethod::kBlock;
  int census_width = 9; /* census costs: odd, area - 1 <= kMaxCensusBits */
  int census_height = 7;
  int paths = 8; /* kSgm: 4 or 8 */
  /* kSgm: side of the square the per-pixel costs are averaged over before
   * the paths (odd, 1..kMaxCostWindow; 1 = the per-pixel cost itself). */
  int cost_window = 1;

  Status validate() const;
  bool operator==(const StereoConfig& o) const;
  bool operator!=(const StereoConfig& o) const { return !(*this == o); }
};

/* Per-frame settings (may change between frames without a rebuild). */
struct StereoRuntime {
  bool subpixel = true;
  int lr_max_diff = 1;       /* -1 = no left-right check */
  int uniqueness_ratio = 0;  /* percent, 0 = off */
  int texture_threshold = 0; /* 0 = off */
  /* kSgm's penalties (0..kMaxSgmPenalty) and edge-aware P2 (0 = off). */
  int p1 = 10;
  int p2 = 120;
  int p2_edge = 0;             /* 0..kMaxP2Edge */
  bool median = false;         /* 3x3 median of the valid values */
  int speckle_size = 0;        /* regions below this many pixels: invalid */
  int speckle_range = 1;       /* whole pixels, 0..kMaxSpeckleRange */
  bool fill_invalid = false;   /* invalid pixels from their row (above) */
  int joint_median_radius = 0; /* 0 = off, 1..kMaxJointMedianRadius */
  int joint_median_range = 16; /* luma levels, 0..255 */
  /* CPU worker threads; 0 = OpenMP's default team divided among the CPU
   * matchers alive in this process, at least 1 (as BlockMatchRuntime). */
  int threads = 0;
};

class StereoMatcher {
 public:
  virtual ~StereoMatcher() = default;

  /* kAuto: CUDA when a device opens and the CUDA backend is built, else
   * CPU. Never throws. */
  static Status create(Backend backend, const StereoConfig& config,
                       std::unique_ptr<StereoMatcher>* out,
                       const DeviceOptions& devices = DeviceOptions());

  virtual Backend backend() const = 0;
  virtual std::string description() const = 0;
  const StereoConfig& config() const { return config_; }

  /* Computes the disparity map of one rectified pair (both views
   * config().width x height) into out (same size). Stateless between
   * calls apart from scratch buffers. Needs in_flight() == 0 (the CUDA
   * backend's is submit() then collect(); it refuses with pairs in flight). */
  virtual Status process(const ImageView& left, const ImageView& right,
                         const StereoRuntime& rt, const DisparityView& out) = 0;

  /* Pipelined use. submit() queues the next pair and returns as soon as the
   * backend has taken its pixels (the CUDA backend copies both views to
   * pinned staging and returns while the GPU works; the default, used by
   * the CPU backend, computes at once and keeps the map). collect() writes
   * the map of the oldest submitted pair into `out` (any stride), in
   * submission order, waiting for it. Up to max_in_flight() pairs may be
   * submitted and not yet collected. Each map equals process()'s on the
   * same pair and runtime settings (those given to its submit()). A failed
   * submit() queues nothing; after a failed collect() call reset(). */
  virtual Status submit(const ImageView& left, const ImageView& right,
                        const StereoRuntime& rt);
  virtual Status collect(const DisparityView& out);
  /* collect() with the map converted as `params` says
   * (match/disparity_output.h: the 16-bit map, grey, colour or depth) into
   * `out`, the same size; `params` are given per pair, so each pair can
   * take the settings of its own time. Nothing is collected when params or
   * out are invalid. The default collects into the matcher's own map
   * (allocated once) and converts on the CPU through a lookup table built
   * when the params change; the CUDA backend converts on the GPU and
   * downloads only the converted bytes. */
  virtual Status collect(const DisparityOutputView& out,
                         const DisparityOutputParams& params);
  virtual int max_in_flight() const { return kMaxInFlight; }
  int in_flight() const { return pending_.count(); }

  /* Drops the pairs in flight without collecting them (flush). */
  virtual void reset() { drop_pending(); }

  /* Timing of the last collected pair (process() included). */
  virtual MatcherStats stats() const { return MatcherStats(); }

 protected:
  StereoConfig config_;
  /* Maps of the default submit() (backends that compute inside submit())
   * until collect(), each allocated the first time its slot is used and
   * kept; pipelined backends keep their own storage and use only its count
   * (in_flight.h). */
  InFlightRing<std::vector<uint16_t>> pending_;
  void drop_pending() { pending_.clear(); }
  /* The default collect(DisparityOutputView, ...)'s map and lookup table,
   * made on first use (shared_ptr: the type is incomplete here). */
  std::shared_ptr<DisparityOutputScratch> output_scratch_;
};

namespace ref {
/* The plain reference: evaluates every cost directly from the definitions
 * above (no rolling sums, a full cost volume for kSgm), scalar, no
 * threads. */
Status stereo_match(const ImageView& left, const ImageView& right,
                    const StereoConfig& config, const StereoRuntime& rt,
                    const DisparityView& out);
}  // namespace ref

}  // namespace match
