/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The surveillance decision: see mvdecision.h for what each step does and
 * why.
 */
#include "mvdecision.h"

#include <algorithm>
#include <cmath>
#include <functional>

namespace {

/* Grouping: neighbours join when their vectors differ by at most
 * max (kSplitMin, kSplitRel x the longer one). */
constexpr double kSplitMin = 1.5;
constexpr double kSplitRel = 0.5;
/* Whether vectors a and b agree: |a - b| <= max (kSplitMin, kSplitRel x
 * max (|a|, |b|)), squared. */
static bool
vectors_agree (double ax, double ay, double bx, double by)
{
  const double d2 = (ax - bx) * (ax - bx) + (ay - by) * (ay - by);
  const double l2 = std::max (ax * ax + ay * ay, bx * bx + by * by);
  return d2 <= std::max (kSplitMin * kSplitMin, kSplitRel * kSplitRel * l2);
}
/* Step 3b on blocks: a candidate block with under 1/kBlockChanged of its
 * pixels changed is not moving (sensor noise, compression noise and
 * flicker move vectors on flat areas; a brightness change moves no pixel
 * once the stage has taken its offset out), and a region needs a block with
 * at least 1/kSeedChanged of them. Measured on the highway and stress clips
 * (bench/README.md): box F on the IR switch 0.48 -> 0.73, under rain
 * 0.47 -> 0.60, on the highway 0.67 -> 0.72; a seed of 1/3 lost the
 * smooth composited objects (comp-windy, comp-pair) whose blocks change on
 * about a quarter of their pixels, hence 1/5. */
constexpr int64_t kBlockChanged = 16;
constexpr int64_t kSeedChanged = 5;
/* With a moving camera, 1/kSeedChangedMoving: the stage then takes the
 * smallest difference over a 3 x 3 neighbourhood of the warped previous
 * frame, which leaves an object moving 1 to 3 px a frame relative to the
 * scene (a car further away under shake or a pan) a fraction of its
 * changed pixels (measured on hw-shake: its blocks 10 to 50 of 256). Box
 * F hw-shake 0.709 -> 0.729, hw-pan 0.676 -> 0.699 (1/10: 0.736, 0.696). */
constexpr int64_t kSeedChangedMoving = 8;
/* Step 3's grouping passes on through a block with at least
 * 1/kCarryChanged of its pixels changed; a candidate with fewer joins the
 * region of a neighbour as its edge (a leaf), and one block of them alone
 * is no fragment of a region that has such a block. Falling snow: a flake
 * changes a spot of a block, and flakes moving down as the cars do joined
 * neighbouring cars into one box. Measured (box F, bench/README.md "Snow
 * that joins cars"): hw-snow 0.743 -> 0.779 (MOG2 0.770), with 600 flakes
 * 0.475 -> 0.572, hw-shake 0.785 -> 0.796, the highway 0.823 -> 0.829;
 * 1/2 or 1/4 gained less (the 57 stress clips 0.8428 -> 0.8447, 0.8440
 * against 0.8455), the leaves alone a third as much, and keeping
 * every region without such blocks apart split people under a flickering
 * gain (their middles change little: comp-flicker 0.841 -> 0.791). */
constexpr int64_t kCarryChanged = 3;
/* A uniform object (a dark coat, a white van's side) changes only along
 * its edges from one frame to the next: a band as wide as its motion. So
 * a block moving |v| px a frame also keeps its candidacy with half such a
 * band across it changed, |v| min (w, h) / 2 pixels, and seeds a region
 * with the whole band, where that is less than the shares above (under
 * about 3 px a frame at 16 x 16). */
static int64_t
edge_band (double vx, double vy, const MvRect & rect)
{
  return (int64_t) std::ceil (std::hypot (vx, vy) * std::min (rect.w, rect.h));
}
/* The smallest rectangle holding a and b. */
static MvRect
rect_union (const MvRect & a, const MvRect & b)
{
  const int x0 = std::min (a.x, b.x), y0 = std::min (a.y, b.y);
  const int x1 = std::max (a.x + a.w, b.x + b.w);
  const int y1 = std::max (a.y + a.h, b.y + b.h);
  return MvRect{ x0, y0, x1 - x0, y1 - y0 };
}
/* `r` clipped to a width x height frame (w or h <= 0 where outside). */
static MvRect
clip_rect (const MvRect & r, int width, int height)
{
  const int x0 = std::max (r.x, 0), y0 = std::max (r.y, 0);
  const int x1 = std::min (r.x + r.w, width), y1 = std::min (r.y + r.h, height);
  return MvRect{ x0, y0, x1 - x0, y1 - y0 };
}

/* Step 3b's split: a region whose changed pixels leave a gap of at least
 * kMinGapPixels across it (in the working image, at least two cells) is
 * two objects, cut in the middle of the gap (side by side cars that move
 * alike and touch at the field's block size). */
constexpr int kMinGapPixels = 8;
/* More than this fraction of the valid blocks moving: a scene-wide change. */
constexpr double kSceneWide = 0.5;
/* More than this fraction of the valid blocks within a pixel of one side
 * of the search's reach: the camera moved further than the field can
 * follow (the SAD's minimum lies at the range's edge it moved past); at
 * most a few per cent on frames the camera moved within it
 * (bench/README.md, "A camera that shakes beyond the search"). */
constexpr double kBeyondReach = 0.25;
/* Association: intersection / smaller box. */
constexpr double kMatchOverlap = 0.2;
constexpr uint32_t kMinHits = 3;
/* Association buckets, pixels. */
constexpr int kCell = 64;
constexpr double kCoherence = 0.5;
/* For the demotion, a track's path sums its motion over chunks of
 * kPathChunk frames: a walking person's mean vector swings with the legs
 * and the region's edges from frame to frame, a branch's with its swing,
 * over seconds. A confirmed track whose net displacement falls under
 * kDemoteCoherence of that path went back: demoted. Measured on
 * vtest.avi's walking people (the element's defaults): at a half of the
 * frame-to-frame path 49 tracks were demoted, at a half of the chunks'
 * 30, at a quarter 14; the stress clips' sways still are. */
constexpr uint32_t kPathChunk = 5;
constexpr double kDemoteCoherence = 0.25;
/* A vector track is confirmed only if its box centre's travel is within
 * kBoxTravel of its vectors' (net) plus kBoxTravelSlack pixels: an object
 * entering the frame moves its box centre at half its speed, a box
 * trimmed to changed pixels jitters by a few. */
constexpr double kBoxTravel = 0.75;
constexpr double kBoxTravelSlack = 8.0;
/* A confirmed vector track that has lived kFollowAge, whose vectors sum
 * to kFollowNet pixels or more and whose box centre went less than
 * kFollowAlong of that sum their way (the camera's motion taken out), is
 * judged again by the confirmation's test. An object's box follows its
 * vectors; one entering the frame at half their pace. Measured (box F,
 * bench/surveillance.py, the 57 + 19 clips of bench/README.md, "Boxes
 * shown where a track coasts; a box that does not follow its vectors"):
 * windy seed 105's travelling wave 0.634 -> 0.898, no clip lower.
 * Demoted for good instead (not judged again), a queue of far cars whose
 * box stays in place lost (stress5's rain 0.806 -> 0.723), and a shaking
 * camera's object leaving the frame (0.846 -> 0.727). Without the age:
 * at a net of 16 px the highway lost 0.008, at half the way a pan 0.03;
 * and young tracks were demoted (cars under a pan, walkers merging: 7 on
 * vtest.avi's 795 frames against 3). */
constexpr uint64_t kFollowAge = 1000000000u;
constexpr double kFollowNet = 32.0;
constexpr double kFollowAlong = 0.25;
constexpr uint32_t kTentativeMisses = 2;
/* Clutter level: rises by 1/kClutterFrames a frame towards 1 while the
 * block is a candidate outside confirmed tracks, falls as fast otherwise;
 * a region with more than half its blocks above kClutterLevel starts no
 * track. */
constexpr double kClutterFrames = 30.0;
constexpr double kClutterLevel = 0.5;
/* Slow clutter: the same for slow candidates (step 3c), on its own level
 * and slower, kSlowClutterFrames: a slow mover stays on its blocks for
 * seconds before it is confirmed (at 30 fps, 1 s takes a block to 0.39),
 * branches swaying under a pixel a frame stay there for good. A slow
 * region mostly of slow clutter neither starts a track nor confirms one. */
constexpr double kSlowClutterFrames = 60.0;
/* Sway memory (step 6): its time constant, frames (10 s at 30 fps: the
 * lulls between gusts of wind). */
constexpr double kSwayFrames = 300.0;
/* Brief runs (step 6): a confirmed vector track that lived under
 * kBriefLife nanoseconds of stream time before it was dropped leaves its
 * motion on the blocks under its boxes, a memory falling with time
 * constant kBriefFrames frames (above one half for 3.5 s at 30 fps: a
 * sway's period and the second its track coasted). Foliage whose
 * branches swing at different phases, and water, show a wave that runs
 * one way, a second at most, and starts again in the same place: the
 * vectors of its way back stay under the field's pixel, so the track is
 * lost, not demoted for going back. Measured with a tree in the wind
 * before an object came (bench/README.md, "Brief runs"): lives of 20
 * to 45 frames gave the same, the trees' runs being 14 to 17. */
constexpr uint64_t kBriefLife = 1000000000ull;
constexpr double kBriefFrames = 150.0;
/* Global motion: the still-camera tolerance (pixels anywhere in the
 * frame) and the minimum fraction of inliers. */
constexpr double kStillTolerance = 0.1;
constexpr double kMinInliers = 1.0 / 3.0;
/* The share of an integer field's vectors a step off zero that makes the
 * fit look for a sub-pixel camera motion (mv_fit_global_motion ()). A
 * still scene's noise, leaves and slow objects left the 76 stress clips
 * unchanged at 1/4; at 0.15 a noisy one lost 0.003 (bench/README.md). */
constexpr double kStepOffShare = 0.25;
constexpr int kFitIterations = 5;
/* At most about this many blocks fitted, on a regular sub-grid: six
 * parameters of a smooth motion need far fewer, and each pass costs a
 * median of them (1080p with 16 x 16 blocks: every third block, 621). */
constexpr int kFitSamples = 1024;
constexpr uint64_t kDefaultFrame = 33333333; /* ns, 30 fps */
/* cand_ values. */
constexpr uint8_t kVector = 1; /* residual vector >= threshold */
constexpr uint8_t kSlow = 2;   /* no vector, changed since the reference */
constexpr uint8_t kSlowTouching = 3; /* the same, next to a vector region */
/* A moving camera's residual >= threshold but under threshold + the
 * field's step: a candidate once its pixels changed (step 3b). The step
 * covers the error of an integer field's residual under sub-pixel shake,
 * which the pixels check better: measured (box F), hw-shake 0.693 ->
 * 0.708, hw-pan 0.652 -> 0.677, on its cars of 1 to 2 px a frame. */
constexpr uint8_t kLoose = 4;
/* Slow movers' confirmation: the rms distance of the box centres from
 * their line at most this share of the net displacement along it. */
constexpr double kSlowScatter = 0.35;
/* A confirmed slow track whose centres scatter by more than this share
 * of their travel along their line is demoted (twice the confirmation's
 * share: the box since the reference jumps when the reference is
 * refreshed). Measured: the slow objects of comp-slow and comp-slow-shake
 * (seven clips, bench/surveillance-stress.py) 0.11 to 0.51 over their
 * lives; a tree swaying 3 px under a pixel a frame 0.77 five frames after
 * it was confirmed, 1 to 2.7 from then on. */
constexpr double kSlowDemoteScatter = 2 * kSlowScatter;
/* ... and the centre moves at most this many pixels a frame: half the
 * object's speed (the box's trailing edge stays where the object was at
 * the reference's time), and an object faster than a pixel a frame has
 * vectors. A faster slow region is a tree or a shadow spreading. */
constexpr double kSlowSpeed = 0.5;
/* ... and its size grows at most this many times as fast as its centre
 * moves: a rigid object's box since the reference grows at twice the
 * speed of its centre (its trailing edge stays where the object was);
 * a swaying tree's or a shadow's spreads every way. */
constexpr double kSlowGrowth = 2.5;
/* ... or, where its size keeps (grows by at most kSlowRigid of the
 * centre's travel), at most kSlowRigidSpeed: the object alone, its trail
 * left out by the background, or summed over the reference's refreshes
 * (each takes the trailing edge to where the object was then: the centre
 * moves at the object's own speed in the long run, and the size's line
 * stays flat). An object between slow and fast, 0.5 to 1 px a frame, has
 * vectors on some blocks and frames only. Measured (box F, bench/README.md
 * "Objects between slow and fast, continued"): comp-slow at 0.65 and 1.0
 * px a frame 0.235 -> 0.754 (with the ghost rule of step 3c); at 1.2 and
 * 1.5 px a frame a cloud's soft shadow drifting 1.5 px a frame was
 * confirmed (comp-cloud 0.902 -> 0.861 and 0.502). */
constexpr double kSlowRigid = 0.5;
constexpr double kSlowRigidSpeed = 1.0;
/* Both speeds are this many times higher where the camera moves: the
 * residual of an integer field over a fitted camera motion is a pixel
 * off on some blocks and frames, so the vectors see an object only from
 * about 2 px a frame. Measured (box F, bench/README.md "Objects between
 * slow and fast under a moving camera"): a person walking in at 1 px a
 * frame under a shake of 1 to 8 px (comp-windy-shake seed 32) 0.059 ->
 * 0.309, at 1.5 times 0.294; the 76 clips otherwise unchanged. */
constexpr double kSlowCameraSpeedup = 2.0;
/* An unmatched slow track waits where a vector region moving its way
 * covers its predicted box with at least this intersection over union
 * (the object's own vectors): with the overlap that matches a track (of
 * the smaller box), falling snow's small regions inside a slow box kept
 * false slow tracks on (test_real_clip_invariance's snow: 0.256 -> 0.622
 * of the box pixels new). */
constexpr double kSlowWaitIou = 0.3;
/* A slow track's box off the median size of its last kHoldFrames boxes
 * (at least kSlowOddAfter) by more than this share of it plus
 * kSlowOddSlack pixels, on either side, does not enter its lines when it
 * is the first such in kHoldFrames boxes (Track::odd_size ()). Under a
 * moving camera the region against the composed warp loses half its
 * object, or takes in the background's change beside it, on a frame now
 * and then, and one such centre 7 px off the line outweighs dozens within
 * a pixel of it (comp-slow-shake's 0.15 px a frame object: rms 1.8 px from
 * its line with the two such boxes of 52, 1.2 without them, against 4.7
 * px of travel after 1.7 s, where confirmation asks kSlowScatter of it).
 * A lone one only: a region that keeps spreading (a cloud shadow's edge)
 * is its trend, which the growth test must see (leaving out every such
 * box confirmed comp-cloud's shadow). */
constexpr double kSlowOddSize = 0.3;
constexpr double kSlowOddSlack = 2.0;
constexpr uint32_t kSlowOddAfter = 3;
/* A slow track's box changes by at most this (pixels) or half its size
 * from one match to the next. */
constexpr double kSlowResize = 16.0;
/* With the camera moved since the slow movers' reference, a slow block
 * changed on at least 1/kSlowMovedChanged of its pixels: the warp by the
 * cameras' composed motions is off by up to a pixel after 16 to 31
 * frames (0.4 px rms under comp-slow-shake's shake), which the stage's
 * 3 x 3 tolerance does not take at sub-pixel offsets, so textured
 * background changes along its edges (16 to 55 pixels of a block there,
 * 40 to 170 on the objects). Measured on comp-slow-shake (box F, seeds
 * 32, 7, 41, 32 at 1-3 px): 1/16 0.39, 0.27, 0.22, 0.26; 1/8 0.53, 0.43,
 * 0.43, 0.45; 1/10 and 1/6 between. */
constexpr int64_t kSlowMovedChanged = 8;
/* A block in a vector region since this many frames before the slow
 * movers' reference is no slow candidate. */
constexpr int kGhostFrames = 2;
/* Step 7: a track's held size is the kHoldRank-th largest of its last
 * MvDecision::kHoldFrames (4 of 16: a body boxed whole on a quarter of
 * the frames); its motion is steady when no frame of those moved back
 * more than kHoldReverse pixels against their net motion; the held part
 * counts where at least kHoldDensity of its trimmed box differs from the
 * background, once the background has seen kHoldWarmup frames of a still
 * camera (what its first frame held are ghosts in it until then).
 * Measured (box F, bench/surveillance.py, bench/README.md): the largest
 * size held, without the background: the harsh comp-pair 0.768 -> 0.838
 * but the highway 0.795 -> 0.732 (cars merged for a frame or two); with
 * the background, 0.859 and 0.762; the 4th largest, 0.849 and 0.791; the
 * warm-up, highway 0.798. Without the steady motion, a swaying tree's
 * track was held (stress4 comp-windy 0.705 -> 0.680; 0.707 with it); the
 * density: 0.725 there, harsh hw-rain 0.735 -> 0.738 (0.744 before step
 * 7); 0.7 cut into the bodies (comp-pair 0.849 -> 0.838). */
constexpr uint32_t kHoldRank = 4;
constexpr double kHoldReverse = 0.5;
constexpr double kHoldDensity = 0.5;
/* A confirmed track not matched on a frame is shown where it coasts to
 * for up to kCoastShown frames, when it is steady, its box at least a
 * block and the frame differs from the background on kHoldDensity of it
 * there: a body of one colour whose edges went unfound on a frame, or on
 * a few (a van at 3 px a frame). Measured (box F, bench/surveillance.py,
 * the 57 + 19 clips of bench/README.md, "Boxes shown where a track
 * coasts"): the vans 0.785 -> 0.890 (seed 1) and 0.884 -> 0.957 (seed 3),
 * the windy clips with a shaking camera 0.667 -> 0.803 and 0.500 ->
 * 0.667, the pair on grass 0.863 -> 0.874, the cloud 0.758 -> 0.791, no
 * clip lower by more than 0.0015; slow tracks too, stress5's slow movers
 * 0.643 -> 0.659, no clip lower. With no limit on the frames, or on the
 * box's size, a swaying tree's small tracks coasted on for up to 26
 * frames and held motion on until an object came (its start lost:
 * stress4c's windy clip). A slow track whatever steady () says (its
 * confirmed line is its steadiness): comp-slow-shake's four clips +0.008
 * to +0.021, no clip of the 76 lower. */
constexpr uint32_t kCoastShown = 8;
/* strip_edges_'s mark of a coasting track's box (not an edge). */
constexpr unsigned kCoastAsk = 1u << 8;
/* Step 7, an object coming in: its box shown within kEntryNear pixels of
 * the frame's edge, moving away from it by more than kEntrySpeed pixels a
 * frame. */
constexpr int kEntryNear = 4;
constexpr double kEntrySpeed = 0.1;
constexpr uint32_t kHoldWarmup = 30;
/* Step 7's colour: a track grows over its colour from this speed (pixels
 * a frame) on. Measured (box F, bench/README.md "Colour that the luma
 * does not see"): without it the slow movers of comp-slow lost 0.05 to
 * 0.11 (their boxes grown over where they were in the first frames). */
constexpr double kColourSpeed = 0.75;
/* Step 3b's bridges (bridge_fragments ()): a gap of at most kBridgeReach
 * of the frame, differing from the background on at least kBridgeDensity
 * of it. Measured (box F, bench/README.md "Bodies of one colour"): a
 * density of 0.5 merged cars across road that the traffic had darkened in
 * the background (the highway's clips -0.003 to -0.026); 0.75 kept the
 * vans (0.37 -> 0.89, 0.41 -> 0.77, 0.34 -> 0.70); 0.9 lost one (0.74). A
 * reach of 64 px (a sixth of the clips' width) bridged no van. */
constexpr double kBridgeReach = 1.0 / 3.0;
constexpr double kBridgeDensity = 0.75;
/* Step 3b's regions leave out their departed changes (match/change.h:
 * ChangeRequest::departed, a rain streak of the previous frame) once the
 * background has seen kDepartedWarmup frames of a still camera. Measured
 * (box F, bench/README.md "Departed changes"): 8 frames, harsh hw-rain
 * 0.764 -> 0.811; 30, 0.800. */
constexpr uint32_t kDepartedWarmup = 8;
/* Step 3b's relit blocks (mv_relit ()): a fit whose gain lies within
 * kRelitGainMin .. kRelitGainMax (light, not a negative or a stranger),
 * whose residual's mean square is at most kRelitLevel (noise + 1)^2 (an
 * RMS of twice the stage's noise figure, which W's and P's sensor noise
 * together stay within) and under 1 / kRelitShare of the raw change's.
 * Measured (box F,
 * bench/README.md "Light that is not motion"): a level of 2 left false
 * starts under the headlights on two composites of three, 9 with a share
 * of 2 took the objects' blocks under a flickering gain (0.71 -> 0.68);
 * at 4 and 4 no clip but those with light moved. */
constexpr double kRelitGainMin = 0.5;
constexpr double kRelitGainMax = 2.0;
constexpr double kRelitLevel = 4.0;
constexpr double kRelitShare = 4.0;

double
median_of (std::vector<double> & v, size_t n)
{
  if (n == 0)
    return 0.0;
  const size_t mid = n / 2;
  std::nth_element (v.begin (), v.begin () + mid, v.begin () + n);
  return v[mid];
}

/* Weighted least squares of z ~ c0 + c1 x + c2 y (3x3 normal equations,
 * Cramer's rule); false when singular. */
bool
fit_plane (const std::vector<double> & x, const std::vector<double> & y,
    const std::vector<double> & z, const std::vector<double> & w, size_t n,
    double c[3])
{
  double s1 = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
  double sz = 0, sxz = 0, syz = 0;
  for (size_t i = 0; i < n; ++i) {
    const double wi = w[i];
    s1 += wi;
    sx += wi * x[i];
    sy += wi * y[i];
    sxx += wi * x[i] * x[i];
    sxy += wi * x[i] * y[i];
    syy += wi * y[i] * y[i];
    sz += wi * z[i];
    sxz += wi * x[i] * z[i];
    syz += wi * y[i] * z[i];
  }
  const double m[3][3] = { { s1, sx, sy }, { sx, sxx, sxy }, { sy, sxy, syy } };
  const double b[3] = { sz, sxz, syz };
  auto det3 = [] (const double a[3][3]) {
    return a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1])
        - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
        + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
  };
  const double d = det3 (m);
  if (!(std::fabs (d) > 1e-9 * std::max (1.0, s1 * s1 * s1)))
    return false;
  for (int k = 0; k < 3; ++k) {
    double mk[3][3];
    for (int r = 0; r < 3; ++r)
      for (int col = 0; col < 3; ++col)
        mk[r][col] = col == k ? b[r] : m[r][col];
    c[k] = det3 (mk) / d;
  }
  return true;
}

} /* namespace */

MvGlobalMotion
mv_fit_global_motion (const MvBlockGrid & g, const MvBlock * blocks,
    MvGlobalScratch * s)
{
  MvGlobalMotion gm;
  const size_t n_all = (size_t) g.columns * g.rows;

  /* Coordinates relative to the frame centre, in units of the larger frame
   * side: keeps the normal equations well conditioned. */
  const double cx = g.frame_width * 0.5, cy = g.frame_height * 0.5;
  const double scale = std::max (g.frame_width, g.frame_height);
  s->x.resize (n_all);
  s->y.resize (n_all);
  s->dx.resize (n_all);
  s->dy.resize (n_all);
  s->r.resize (n_all);
  s->w.resize (n_all);
  s->tmp.resize (n_all);
  size_t n = 0;
  /* For the still camera's shortcut below: the zero vectors, the vectors
   * at most a pixel long, and the shortest other one (squared); the
   * vectors a step off zero (each component within a pixel). */
  size_t zeros = 0, within_pixel = 0, step_off = 0;
  double shortest_other = INFINITY;
  const int stride =
      std::max (1, (int) std::ceil (std::sqrt ((double) n_all / kFitSamples)));
  for (int r = 0; r < g.rows; r += stride)
    for (int c = 0; c < g.columns; c += stride) {
      const MvBlock & b = blocks[(size_t) r * g.columns + c];
      if (!b.valid || !std::isfinite (b.dx) || !std::isfinite (b.dy))
        continue;
      const MvRect rect = mv_block_rect (g, c, r);
      s->x[n] = (rect.x + rect.w * 0.5 - cx) / scale;
      s->y[n] = (rect.y + rect.h * 0.5 - cy) / scale;
      s->dx[n] = b.dx;
      s->dy[n] = b.dy;
      const double r2 = s->dx[n] * s->dx[n] + s->dy[n] * s->dy[n];
      zeros += r2 == 0.0;
      within_pixel += r2 <= 1.0;
      step_off += r2 > 0.0 && r2 <= 2.0;
      if (r2 > 0.0)
        shortest_other = std::min (shortest_other, r2);
      ++n;
    }
  if (n < 6)
    return gm;

  /* A still camera's integer field, the common case, in this one pass:
   * with more than half the vectors exactly zero and every other one at
   * least a pixel long, the fit below starts from a zero median, finds a
   * zero median residual (its cut is then a pixel), weighs the zero
   * vectors 1 and the others 0, and stops at zero motion with the vectors
   * within a pixel as its inliers. But a camera moved by under a pixel (a
   * shake's small frame: 0.3 px and a rotation) rounds to zero on part of
   * an integer field and a pixel off on the rest: with kStepOffShare of
   * the vectors a step off zero, the fit weighs them as with a moving
   * camera (below: a cut of 2 px) and finds the sub-pixel motion; with a
   * cut of a pixel they weighed nothing, the camera was taken as still,
   * and the blocks rounded off became one region (bench/README.md, "A
   * shake's sub-pixel frames"). */
  const bool subpixel = step_off > kStepOffShare * n;
  if (!subpixel && !s->full_fit && 2 * zeros > n && shortest_other >= 1.0) {
    gm.inliers = (double) within_pixel / n;
    return gm;
  }

  /* Start: the component-wise median translation. */
  double cxm[3] = { 0, 0, 0 }, cym[3] = { 0, 0, 0 };
  std::copy (s->dx.begin (), s->dx.begin () + n, s->tmp.begin ());
  cxm[0] = median_of (s->tmp, n);
  std::copy (s->dy.begin (), s->dy.begin () + n, s->tmp.begin ());
  cym[0] = median_of (s->tmp, n);
  const bool moved = subpixel || cxm[0] != 0.0 || cym[0] != 0.0;

  for (int it = 0; it < kFitIterations; ++it) {
    for (size_t i = 0; i < n; ++i) {
      const double ex =
          s->dx[i] - (cxm[0] + cxm[1] * s->x[i] + cxm[2] * s->y[i]);
      const double ey =
          s->dy[i] - (cym[0] + cym[1] * s->x[i] + cym[2] * s->y[i]);
      s->r[i] = std::sqrt (ex * ex + ey * ey);
    }
    std::copy (s->r.begin (), s->r.begin () + n, s->tmp.begin ());
    /* Tukey's biweight with c = 4.685 sigma, sigma from the median
     * residual; at least a pixel, the spread of an integer field, and two
     * when the camera moves: an integer field rounds its sub-pixel motion
     * and rotation to two neighbouring values over the frame, and a cut
     * of one pixel kept only the commoner (the fit then an integer
     * translation, off by a pixel over a third of a shaken frame, which
     * made regions of the background there). */
    const double sigma = 1.4826 * median_of (s->tmp, n);
    const double cut = std::max (moved ? 2.0 : 1.0, 4.685 * sigma);
    for (size_t i = 0; i < n; ++i) {
      const double u = s->r[i] / cut;
      s->w[i] = u < 1.0 ? (1 - u * u) * (1 - u * u) : 0.0;
    }
    double nx[3], ny[3];
    if (!fit_plane (s->x, s->y, s->dx, s->w, n, nx)
        || !fit_plane (s->x, s->y, s->dy, s->w, n, ny))
      break;
    /* Converged (a still camera: after one pass) when no coefficient
     * changed by 1e-4: the field then moves by less than 2e-4 px anywhere
     * (coordinates are within [-0.5, 0.5]). */
    double change = 0.0;
    for (int k = 0; k < 3; ++k)
      change = std::max (
          { change, std::fabs (nx[k] - cxm[k]), std::fabs (ny[k] - cym[k]) });
    std::copy (nx, nx + 3, cxm);
    std::copy (ny, ny + 3, cym);
    if (change < 1e-4)
      break;
  }

  size_t inl = 0;
  for (size_t i = 0; i < n; ++i) {
    const double ex = s->dx[i] - (cxm[0] + cxm[1] * s->x[i] + cxm[2] * s->y[i]);
    const double ey = s->dy[i] - (cym[0] + cym[1] * s->x[i] + cym[2] * s->y[i]);
    if (ex * ex + ey * ey <= 1.0)
      ++inl;
  }
  gm.inliers = (double) inl / n;
  if (gm.inliers < kMinInliers)
    return gm;

  /* Back to pixels: d = c0 + c1 (x - cx) / scale + c2 (y - cy) / scale. */
  gm.a[1] = cxm[1] / scale;
  gm.a[2] = cxm[2] / scale;
  gm.a[0] = cxm[0] - gm.a[1] * cx - gm.a[2] * cy;
  gm.a[4] = cym[1] / scale;
  gm.a[5] = cym[2] / scale;
  gm.a[3] = cym[0] - gm.a[4] * cx - gm.a[5] * cy;

  double worst = 0.0;
  for (int k = 0; k < 4; ++k) {
    const double x = (k & 1) ? g.frame_width : 0.0;
    const double y = (k & 2) ? g.frame_height : 0.0;
    worst = std::max (worst, std::hypot (gm.dx_at (x, y), gm.dy_at (x, y)));
  }
  if (worst <= kStillTolerance) {
    std::fill (gm.a, gm.a + 6, 0.0);
    return gm;
  }
  gm.moving = true;
  return gm;
}

MvDecisionTuning
mv_decision_tuning (int sensitivity)
{
  const double s = std::clamp (sensitivity, 0, 100) / 100.0;
  MvDecisionTuning t;
  /* 0: 0.5 s and 6 px, 50: 0.3 s and 3.5 px, 100: 0.1 s and 1 px. */
  t.persistence = (uint64_t) llround ((0.5 - 0.4 * s) * 1e9);
  t.min_displacement = 6.0 - 5.0 * s;
  /* 0: 1.4 s, 50: 1 s, 100: 0.6 s: longer than the half swing of most
   * branches, which a slow mover's test cannot tell from one before it
   * turns back. */
  t.slow_persistence = 2 * t.persistence + 400000000ull;
  t.coast = 1000000000ull;
  return t;
}

void
MvDecision::reset ()
{
  tracks_.clear ();
  clutter_.clear ();
  slow_clutter_.clear ();
  sway_.clear ();
  brief_.clear ();
  vector_past_.clear ();
  out_.clear ();
  moving_out_.clear ();
  retracted_.clear ();
  next_id_ = 1;
  still_frames_ = 0;
  since_moved_ = UINT32_MAX;
  active_id_ = 0;
  have_time_ = false;
  now_ = 0;
  scene_change_ = false;
  touched_.clear ();
  global_ = MvGlobalMotion ();
  grid_cols_ = grid_rows_ = 0;
  label_.clear ();
  labelled_.clear ();
  spots_ = 0.0;
  snowing_ = false;
}

/* 1/seed_share () of a block's pixels changed makes it a seed. */
int64_t
MvDecision::seed_share () const
{
  return global_.moving ? kSeedChangedMoving : kSeedChanged;
}

/* A takes B in (B becomes merged into index `a`): area-weighted mean
 * vector, summed counts, the union of their block bounds. */
void
MvDecision::absorb (Cand & A, Cand & B, int a)
{
  const double wa = A.region.area, wb = B.region.area;
  A.region.mean_dx =
      (A.region.mean_dx * wa + B.region.mean_dx * wb) / (wa + wb);
  A.region.mean_dy =
      (A.region.mean_dy * wa + B.region.mean_dy * wb) / (wa + wb);
  A.region.area += B.region.area;
  A.region.pixels += B.region.pixels;
  A.region.first_block = std::min (A.region.first_block, B.region.first_block);
  A.clutter += B.clutter;
  A.seeds += B.seeds;
  A.c0 = std::min (A.c0, B.c0);
  A.c1 = std::max (A.c1, B.c1);
  A.r0 = std::min (A.r0, B.r0);
  A.r1 = std::max (A.r1, B.r1);
  A.carries = A.carries || B.carries;
  B.merged_into = a;
}

/* Adds block i to region cd: its bounds, area and pixels, its residual to
 * (*sx, *sy), and whether it is a seed, clutter (slow clutter for a slow
 * region) or a slow block next to a vector region. */
void
MvDecision::add_block (Cand & cd, int i, double * sx, double * sy)
{
  const int c = i % grid_.columns, r = i / grid_.columns;
  const MvRect rect = mv_block_rect (grid_, c, r);
  cd.c0 = std::min (cd.c0, c);
  cd.c1 = std::max (cd.c1, c);
  cd.r0 = std::min (cd.r0, r);
  cd.r1 = std::max (cd.r1, r);
  *sx += rx_[i];
  *sy += ry_[i];
  cd.region.area++;
  cd.region.pixels += (int64_t) rect.w * rect.h;
  if (!changed_.empty ()
      && (changed_[i] * seed_share () >= (int64_t) rect.w * rect.h
          || (!cd.slow && changed_[i] >= edge_band (rx_[i], ry_[i], rect))))
    cd.seeds++;
  if (std::max (cd.slow ? slow_clutter_[i] : clutter_[i], sway_[i])
      > kClutterLevel)
    cd.clutter++;
  if (cand_[i] == kSlowTouching)
    cd.touching++;
}

/* Recomputes a vector region from its blocks (label_ == id) within block
 * bounds [c0, c1] x [r0, r1]. */
void
MvDecision::recount (Cand & cd, int id)
{
  const MvBlockGrid & g = grid_;
  const int c0 = cd.c0, c1 = cd.c1, r0 = cd.r0, r1 = cd.r1;
  cd.c0 = g.columns;
  cd.r0 = g.rows;
  cd.c1 = cd.r1 = -1;
  cd.region.area = 0;
  cd.region.pixels = 0;
  cd.seeds = cd.clutter = cd.touching = 0;
  double sx = 0, sy = 0;
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c) {
      const int i = r * g.columns + c;
      if (label_[i] != id)
        continue;
      if (cd.region.area == 0)
        cd.region.first_block = i;
      add_block (cd, i, &sx, &sy);
    }
  cd.region.mean_dx = sx / std::max (1, cd.region.area);
  cd.region.mean_dy = sy / std::max (1, cd.region.area);
  const MvRect tl = mv_block_rect (g, cd.c0, cd.r0);
  const MvRect br = mv_block_rect (g, cd.c1, cd.r1);
  cd.region.box = MvRect{ tl.x, tl.y, br.x + br.w - tl.x, br.y + br.h - tl.y };
}

/* Splits vector region a where its changed pixels leave a gap: its blocks
 * whose centres lie at or beyond frame coordinate `pos` (x when along_x,
 * else y) become a new region. Returns its index, or -1 when the cut
 * leaves one side without a block. */
int
MvDecision::split (int a, bool along_x, int pos)
{
  const MvBlockGrid & g = grid_;
  const int b = (int) cands_.size ();
  const Cand whole = cands_[a];
  int n_a = 0, n_b = 0;
  for (int r = whole.r0; r <= whole.r1; ++r)
    for (int c = whole.c0; c <= whole.c1; ++c) {
      const int i = r * g.columns + c;
      if (label_[i] != a)
        continue;
      const MvRect rect = mv_block_rect (g, c, r);
      const int centre = along_x ? rect.x + rect.w / 2 : rect.y + rect.h / 2;
      if (centre >= pos) {
        label_[i] = b;
        n_b++;
      } else {
        n_a++;
      }
    }
  if (n_a == 0 || n_b == 0) {
    for (int r = whole.r0; r <= whole.r1; ++r)
      for (int c = whole.c0; c <= whole.c1; ++c)
        if (label_[r * g.columns + c] == b)
          label_[r * g.columns + c] = a;
    return -1;
  }
  cands_.push_back (whole);
  recount (cands_[a], a);
  recount (cands_[b], b);
  cands_[a].split = cands_[b].split = true;
  return b;
}

/* Step 2: candidate blocks. The block centres are the grid's (kept per
 * column and row); a still camera's residual is the vector itself. With a
 * moving camera a residual under the threshold plus the field's step
 * (kLoose) is a candidate only when the pixels judge it (`pixels`), and
 * does not count towards a scene-wide change. */
void
MvDecision::candidates (const MvBlockGrid & g, const MvBlock * blocks,
    const MvDecisionParams & p, bool pixels)
{
  const int n = g.columns * g.rows;
  const double step = global_.moving ? std::max (p.step, 0.0) : 0.0;
  const double t = std::max (p.threshold, 0.0) + step;
  const double t2 = t * t;
  const double tl = std::max (p.threshold, 0.0);
  const double tl2 = pixels ? tl * tl : t2;

  if (g.columns != centre_grid_.columns || g.rows != centre_grid_.rows
      || g.block_width != centre_grid_.block_width
      || g.block_height != centre_grid_.block_height
      || g.frame_width != centre_grid_.frame_width
      || g.frame_height != centre_grid_.frame_height) {
    centre_grid_ = g;
    centre_x_.resize (g.columns);
    centre_y_.resize (g.rows);
    for (int c = 0; c < g.columns; ++c) {
      const MvRect rect = mv_block_rect (g, c, 0);
      centre_x_[c] = rect.x + rect.w * 0.5;
    }
    for (int r = 0; r < g.rows; ++r) {
      const MvRect rect = mv_block_rect (g, 0, r);
      centre_y_[r] = rect.y + rect.h * 0.5;
    }
  }
  rx_.assign (n, 0.0f);
  ry_.assign (n, 0.0f);
  cand_.assign (n, 0);
  masked_.assign (n, 0);
  n_cand_ = n_masked_ = 0;
  cand_list_.clear ();
  /* Plain pointers and counts: the stores through them may not alias the
   * members, so the loop keeps everything in registers. */
  float *rx = rx_.data (), *ry = ry_.data ();
  uint8_t *cand = cand_.data (), *masked = masked_.data ();
  const bool moving = global_.moving;
  size_t n_valid = 0;
  for (int r = 0, i = 0; r < g.rows; ++r)
    for (int c = 0; c < g.columns; ++c, ++i) {
      const MvBlock & b = blocks[i];
      if (!b.valid)
        continue;
      n_valid++;
      if (p.n_mask > 0) {
        const MvRect rect = mv_block_rect (g, c, r);
        for (size_t k = 0; k < p.n_mask && !masked[i]; ++k)
          masked[i] = mv_block_masked (rect, p.mask[k]);
        n_masked_ += masked[i];
      }
      double ex = b.dx, ey = b.dy;
      if (moving) {
        ex -= global_.dx_at (centre_x_[c], centre_y_[r]);
        ey -= global_.dy_at (centre_x_[c], centre_y_[r]);
      }
      rx[i] = (float) ex;
      ry[i] = (float) ey;
      /* A zero residual never moves, whatever the threshold. */
      const double m2 = ex * ex + ey * ey;
      if (!(m2 >= tl2) || !(m2 > 0.0) || masked[i])
        continue;
      if (m2 >= t2) {
        cand[i] = kVector;
        n_cand_++;
      } else {
        cand[i] = kLoose;
      }
      cand_list_.push_back (i);
    }
  n_valid_ = n_valid;
}

/* Step 3b, first half: the changed pixels of every candidate block, asked
 * of the refiner in one call (the block rectangles as boxes); blocks with
 * too few stop being candidates. False when it cannot tell. */
bool
MvDecision::block_pixels (const MvBlockGrid & g, MvBoxRefiner * refiner)
{
  const int n = g.columns * g.rows;
  which_ = cand_list_;
  motions_.clear ();
  /* Each block's own vector explains its changed pixels (rain, flicker
   * and noise on a flat area do not move with it). */
  for (int i : which_) {
    const int c = i % g.columns, r = i / g.columns;
    motions_.push_back ({ rx_[i] + global_.dx_at (centre_x_[c], centre_y_[r]),
        ry_[i] + global_.dy_at (centre_x_[c], centre_y_[r]) });
  }
  changed_.assign (n, -1);
  if (which_.empty ())
    return true;
  /* The extents with a still camera (kMvBlockExtent); with a moving one
   * the shaking and panning clips lose (bench/README.md, "the extent of a
   * block's change"). */
  std::vector<int64_t> * extents = global_.moving ? nullptr : &extents_;
  const int extent = snowing_ ? kMvSnowExtent : kMvBlockExtent;
  if (!refiner->block_changes (g, global_, which_, motions_, pixels_, extents,
          extent, &relit_)
      || pixels_.size () != which_.size ())
    return false;
  const bool have_extents = extents && extents_.size () == which_.size ();
  const bool have_relit = relit_.size () == which_.size ();
  size_t spots = 0;
  for (size_t k = 0; k < which_.size (); ++k) {
    const int i = which_[k];
    const MvRect rect = mv_block_rect (g, i % g.columns, i / g.columns);
    changed_[i] = pixels_[k];
    if (changed_[i] * kBlockChanged < (int64_t) rect.w * rect.h
        && 2 * changed_[i] < edge_band (rx_[i], ry_[i], rect)) {
      cand_[i] = 0;
      continue;
    }
    spots += have_extents && extents_[k] < kMvBlockExtent;
    if ((have_extents && extents_[k] < extent) || (have_relit && relit_[k]))
      cand_[i] = 0;
  }
  /* Snow (kMvSnowExtent): the share of the unmasked blocks whose change
   * is a compact spot, smoothed; on above kMvSpotShare, off under half of
   * it (no flapping at the edge). */
  const size_t asked = n_valid_ - n_masked_;
  if (have_extents && asked > 0) {
    spots_ += ((double) spots / asked - spots_) / kMvSpotFrames;
    snowing_ = spots_ > (snowing_ ? 0.5 : 1.0) * kMvSpotShare;
  }
  return true;
}

/* Step 3c, first half: the slow blocks. Every valid, unmasked block
 * outside the kept vector regions is judged against the slow movers'
 * reference (the refiner answers for every block at once, as the stage's
 * tiles: on the H200 at 1080p 0.05 ms a frame, where a box per block cost
 * 0.38 ms); one with 1/kBlockChanged of its pixels changed is a slow
 * candidate (kSlowTouching when it touches a vector region)
 * unless it was in a confirmed vector track's region since the
 * reference's time (give or take kGhostFrames): then its change is the
 * ghost of an object that was there and moved on, or the trail of one that
 * moves fast enough for the field. False (no slow candidate)
 * when the refiner has no reference, or when most blocks changed (a
 * scene-wide change since the reference: it restarts). */
bool
MvDecision::slow_blocks (const MvBlockGrid & g, const MvBlock * blocks,
    MvBoxRefiner * refiner)
{
  const int n = g.columns * g.rows;
  /* The blocks asked: valid, unmasked and in no vector region (whose
   * blocks are valid and unmasked candidates). */
  size_t in_regions = 0;
  for (int i : labelled_)
    in_regions += label_[i] >= 0;
  const size_t valid = n_valid_, asked = n_valid_ - n_masked_ - in_regions;
  int age = 0;
  if (asked == 0 || !refiner->slow_blocks (g, slow_changed_, &age)
      || slow_changed_.size () != (size_t) n)
    return false;
  size_t changed = 0;
  slow_list_.clear ();
  /* vector_past_ bit k: k + 1 frames ago; the reference is `age` ago. */
  const int bits = std::clamp (age + kGhostFrames, 1, 64);
  const int64_t share =
      since_moved_ <= (uint32_t) age ? kSlowMovedChanged : kBlockChanged;
  const uint64_t window = bits == 64 ? ~0ull : (1ull << bits) - 1;
  /* Row by row, each block's area without a call or a division (a pass
   * over every block of the grid). */
  for (int r = 0, i = 0; r < g.rows; ++r) {
    const int64_t h =
        std::min (g.block_height, g.frame_height - r * g.block_height);
    for (int c = 0; c < g.columns; ++c, ++i) {
      if (!blocks[i].valid || masked_[i] || label_[i] >= 0)
        continue;
      const int64_t w =
          std::min (g.block_width, g.frame_width - c * g.block_width);
      const int64_t px = slow_changed_[i];
      if (px * share < w * h)
        continue;
      changed++;
      if (vector_past_[i] & window)
        continue;
      cand_[i] = kSlow;
      changed_[i] = px;
      slow_list_.push_back (i);
    }
  }
  if (changed > kSceneWide * valid) {
    refiner->restart_slow ();
    for (int i : slow_list_)
      cand_[i] = 0;
    slow_list_.clear ();
    return false;
  }
  for (int i : slow_list_) {
    const int c = i % g.columns, r = i / g.columns;
    for (int nr = std::max (r - 1, 0); nr <= std::min (r + 1, g.rows - 1); ++nr)
      for (int nc = std::max (c - 1, 0); nc <= std::min (c + 1, g.columns - 1);
           ++nc)
        if (label_[nr * g.columns + nc] >= 0)
          cand_[i] = kSlowTouching;
  }
  return true;
}

/* Step 3: velocity-coherent components, merged fragments; of the vector
 * candidates, or (step 3c) of the slow ones, which have no vector to
 * agree on. Appends to cands_ (the vector ones first: they clear it). */
void
MvDecision::group (const MvBlockGrid & g, bool slow)
{
  const int n = g.columns * g.rows;
  auto member = [&] (int i) {
    return slow ? cand_[i] >= kSlow : cand_[i] == kVector;
  };
  auto agree = [&] (double ax, double ay, double bx, double by) {
    return slow || vectors_agree (ax, ay, bx, by);
  };

  if (!slow) {
    /* Only the blocks labelled last frame are not -1. */
    if (label_.size () != (size_t) n) {
      label_.assign (n, -1);
      labelled_.clear ();
    }
    for (int i : labelled_)
      label_[i] = -1;
    labelled_.clear ();
    cands_.clear ();
  }
  /* Whether block i carries the grouping on (kCarryChanged). */
  auto carries = [&] (int i) {
    if (slow || changed_.empty ())
      return true;
    const MvRect rect = mv_block_rect (g, i % g.columns, i / g.columns);
    return changed_[i] * kCarryChanged >= (int64_t) rect.w * rect.h;
  };
  const size_t from = cands_.size ();
  /* The members are among these blocks, in raster order: first the
   * regions from the blocks that carry, then those of the blocks left. */
  const std::vector<int> & list = slow ? slow_list_ : cand_list_;
  for (int pass = 0; pass < 2; ++pass)
    for (int start : list) {
      if (!member (start) || label_[start] >= 0
          || (pass == 0 && !carries (start)))
        continue;
      Cand cd;
      cd.slow = slow;
      cd.carries = pass == 0;
      cd.c0 = g.columns;
      cd.r0 = g.rows;
      cd.c1 = cd.r1 = -1;
      cd.region.first_block = start;
      double sx = 0, sy = 0;
      const int id = (int) cands_.size ();
      stack_.clear ();
      stack_.push_back (start);
      label_[start] = id;
      labelled_.push_back (start);
      while (!stack_.empty ()) {
        const int i = stack_.back ();
        stack_.pop_back ();
        const int c = i % g.columns, r = i / g.columns;
        add_block (cd, i, &sx, &sy);
        if (pass == 0 && !carries (i))
          continue; /* a leaf */
        for (int nr = std::max (r - 1, 0); nr <= std::min (r + 1, g.rows - 1);
             ++nr)
          for (int nc = std::max (c - 1, 0);
               nc <= std::min (c + 1, g.columns - 1); ++nc) {
            const int j = nr * g.columns + nc;
            if (member (j) && label_[j] < 0
                && agree (rx_[i], ry_[i], rx_[j], ry_[j])) {
              label_[j] = id;
              labelled_.push_back (j);
              stack_.push_back (j);
            }
          }
      }
      /* Slow: no motion the field can see (the track gives one). */
      cd.region.mean_dx = slow ? 0.0 : sx / cd.region.area;
      cd.region.mean_dy = slow ? 0.0 : sy / cd.region.area;
      cands_.push_back (cd);
    }

  /* Fragments of one object (a uniform car body leaves some blocks still,
   * or splits on a vector that disagrees): boxes that touch or overlap,
   * with agreeing mean vectors. A gap of a block is not bridged: on a
   * noisy field it chains neighbouring objects and noise into one box
   * (measured on the highway clip: box precision 0.38 against 0.47). */
  by_row_.clear ();
  for (size_t c = from; c < cands_.size (); ++c)
    by_row_.push_back ((int) c);
  std::sort (by_row_.begin (), by_row_.end (), [this] (int x, int y) {
    return cands_[x].r0 < cands_[y].r0
        || (cands_[x].r0 == cands_[y].r0 && x < y);
  });
  bool merged = true, any_merged = false;
  while (merged) {
    merged = false;
    for (size_t oa = 0; oa < by_row_.size (); ++oa) {
      const int a = by_row_[oa];
      Cand & A = cands_[a];
      if (A.merged_into >= 0)
        continue;
      for (size_t ob = oa + 1; ob < by_row_.size (); ++ob) {
        Cand & B = cands_[by_row_[ob]];
        /* In the order of their first rows: none further down can touch
         * A. */
        if (B.r0 > A.r1 + 1)
          break;
        if (B.merged_into >= 0)
          continue;
        const int gap_c = std::max (A.c0, B.c0) - std::min (A.c1, B.c1) - 1;
        const int gap_r = std::max (A.r0, B.r0) - std::min (A.r1, B.r1) - 1;
        if (gap_c > 0 || gap_r > 0)
          continue;
        /* A lone block that carries nothing (a flake) is no fragment of
         * a region that carries (kCarryChanged). */
        if (A.carries != B.carries && (A.carries ? B : A).region.area < 2)
          continue;
        if (!agree (A.region.mean_dx, A.region.mean_dy, B.region.mean_dx,
                B.region.mean_dy))
          continue;
        absorb (A, B, a);
        merged = any_merged = true;
      }
    }
  }
  for (size_t k = 0; any_merged && k < labelled_.size (); ++k) {
    const int i = labelled_[k];
    while (label_[i] >= 0 && cands_[label_[i]].merged_into >= 0)
      label_[i] = cands_[label_[i]].merged_into;
  }

  for (size_t c = from; c < cands_.size (); ++c) {
    Cand & cd = cands_[c];
    if (cd.merged_into >= 0)
      continue;
    const MvRect tl = mv_block_rect (g, cd.c0, cd.r0);
    const MvRect br = mv_block_rect (g, cd.c1, cd.r1);
    cd.region.box.x = tl.x;
    cd.region.box.y = tl.y;
    cd.region.box.w = br.x + br.w - tl.x;
    cd.region.box.h = br.y + br.h - tl.y;
  }
}

/* The refiner's request for regions `which`: their boxes and (for the
 * explained changes) their mean vectors with the camera's motion. */
void
MvDecision::ask_regions (const std::vector<int> & which)
{
  boxes_.clear ();
  motions_.clear ();
  for (int c : which) {
    const MvRegion & rg = cands_[c].region;
    const double x = rg.box.x + rg.box.w * 0.5, y = rg.box.y + rg.box.h * 0.5;
    boxes_.push_back (rg.box);
    motions_.push_back ({ rg.mean_dx + global_.dx_at (x, y),
        rg.mean_dy + global_.dy_at (x, y) });
  }
  moved_.assign (boxes_.size (), 1);
  pixels_.assign (boxes_.size (), 0);
}

/* The refiner's answer for regions `which`: shrunk boxes and their changed
 * pixels; a region with none is dropped (merged_into = -2). A vector
 * region's (`forward`: the field's direction) loses its trailing band. */
void
MvDecision::take_refined (const std::vector<int> & which, bool vector,
    bool forward)
{
  for (size_t k = 0; k < which.size (); ++k) {
    Cand & cd = cands_[which[k]];
    if (!moved_[k]) {
      cd.merged_into = -2;
      continue;
    }
    cd.region.box = boxes_[k];
    cd.region.pixels = pixels_[k];
    if (vector)
      trim_trailing_band (cd.region, forward);
  }
}

/* The changed pixels between two frames span where an object was and where
 * it is: its trailing side holds the background it uncovered, a band as wide
 * as its motion relative to the scene (the residual). The explained test
 * keeps that band wherever the background a motion further back looks
 * alike (a road, a lawn), and for a body of one colour the band is what
 * reaches its far end, so the band is measured rather than left out: the
 * box's trailing sides move in by the residual, rounded, unless that would
 * leave less than the band itself. */
void
MvDecision::trim_trailing_band (MvRegion & rg, bool forward)
{
  const double sign = forward ? 1.0 : -1.0; /* object motion = sign x vector */
  const double ox = sign * rg.mean_dx, oy = sign * rg.mean_dy;
  const int sx = (int) std::lround (std::fabs (ox));
  const int sy = (int) std::lround (std::fabs (oy));
  MvRect & b = rg.box;
  if (sx > 0 && b.w > 2 * sx) {
    if (ox > 0)
      b.x += sx;
    b.w -= sx;
  }
  if (sy > 0 && b.h > 2 * sy) {
    if (oy > 0)
      b.y += sy;
    b.h -= sy;
  }
  rg.pixels = std::min (rg.pixels, (int64_t) b.w * b.h);
}

/* Step 3b's bridges: refined regions moving alike (vectors_agree ()),
 * side by side along one axis (overlapping on at least half the smaller
 * one's span) and apart along the other by at most kBridgeReach of the
 * frame, whose gap differs from the background image (or, with a moving
 * camera, the scene image) on at least kBridgeDensity of it: a body of one
 * colour between them, one object. Merged (no background: none). */
void
MvDecision::bridge_fragments (const MvBlockGrid & g, MvBoxRefiner * refiner)
{
  gap_pairs_.clear ();
  gaps_.clear ();
  for (size_t a = 0; a < which_.size (); ++a) {
    const Cand & A = cands_[which_[a]];
    if (A.merged_into != -1)
      continue;
    for (size_t b = a + 1; b < which_.size (); ++b) {
      const Cand & B = cands_[which_[b]];
      if (B.merged_into != -1
          || !vectors_agree (A.region.mean_dx, A.region.mean_dy,
              B.region.mean_dx, B.region.mean_dy))
        continue;
      const MvRect &ra = A.region.box, &rb = B.region.box;
      const int x0 = std::max (ra.x, rb.x);
      const int x1 = std::min (ra.x + ra.w, rb.x + rb.w);
      const int y0 = std::max (ra.y, rb.y);
      const int y1 = std::min (ra.y + ra.h, rb.y + rb.h);
      MvRect gap;
      if (x1 < x0 && 2 * (y1 - y0) >= std::min (ra.h, rb.h)
          && x0 - x1 <= kBridgeReach * g.frame_width)
        gap = MvRect{ x1, y0, x0 - x1, y1 - y0 };
      else if (y1 < y0 && 2 * (x1 - x0) >= std::min (ra.w, rb.w)
          && y0 - y1 <= kBridgeReach * g.frame_height)
        gap = MvRect{ x0, y1, x1 - x0, y0 - y1 };
      else
        continue;
      gap_pairs_.push_back ({ which_[a], which_[b] });
      gaps_.push_back (gap);
    }
  }
  if (gaps_.empty ())
    return;
  asked_ = gaps_;
  gap_moved_.assign (gaps_.size (), 1);
  gap_pixels_.assign (gaps_.size (), 0);
  if (!refiner->refine_background (asked_, gap_moved_, gap_pixels_))
    return;
  for (size_t k = 0; k < gaps_.size (); ++k) {
    const MvRect & gp = gaps_[k];
    Cand & A = cands_[gap_pairs_[k].first];
    Cand & B = cands_[gap_pairs_[k].second];
    if (!gap_moved_[k] || gap_pixels_[k] < kBridgeDensity * gp.w * gp.h
        || A.merged_into != -1 || B.merged_into != -1)
      continue;
    const MvRect box = rect_union (A.region.box, B.region.box);
    absorb (A, B, gap_pairs_[k].first);
    A.region.box = box;
  }
}

/* Whether a and b touch or overlap, give or take `near` pixels. */
static bool
rects_near (const MvRect & a, const MvRect & b, int near)
{
  return a.x <= b.x + b.w + near && b.x <= a.x + a.w + near
      && a.y <= b.y + b.h + near && b.y <= a.y + a.h + near;
}

/* Step 3b, second half (and 3c's): the regions' pixels, for cands_ from
 * `from` on, against the previous frame or (slow) the slow movers'
 * reference. Dropped regions become merged_into = -2 and their blocks
 * stop being candidates. A slow region next to a vector region is
 * dropped: a slow mover has no vector; that is part of a faster object
 * (its blocks whose vectors the field missed, or its trail). */
void
MvDecision::refine (const MvBlockGrid & g, const MvDecisionParams & p,
    MvBoxRefiner * refiner, size_t from, bool slow)
{
  /* No block changed enough to seed it (first half). */
  for (size_t c = from; c < cands_.size (); ++c) {
    Cand & cd = cands_[c];
    if (cd.merged_into == -1
        && ((!changed_.empty () && cd.seeds == 0) || cd.touching > 0)) {
      /* A seeded slow region dropped beside vectors, and their mean
       * motion: where a slow track missed on this frame, step 5 asks
       * whether its object matched on some blocks instead (one of 0.5
       * to 1 px a frame does now and then). */
      if (slow && cd.touching > 0 && (changed_.empty () || cd.seeds > 0)) {
        double sx = 0, sy = 0, sa = 0;
        for (size_t v = 0; v < from; ++v) {
          const Cand & vc = cands_[v];
          if (vc.slow || vc.merged_into != -1
              || !rects_near (vc.region.box, cd.region.box, g.block_width))
            continue;
          sx += vc.region.mean_dx * vc.region.area;
          sy += vc.region.mean_dy * vc.region.area;
          sa += vc.region.area;
        }
        touched_.push_back (Touched{ cd.region.box, sa > 0 ? sx / sa : 0.0,
            sa > 0 ? sy / sa : 0.0 });
      }
      cd.merged_into = -2;
    }
  }
  which_.clear ();
  for (size_t c = from; c < cands_.size (); ++c)
    if (cands_[c].merged_into == -1 && cands_[c].region.area >= p.min_area)
      which_.push_back ((int) c);
  ask_regions (which_);
  int age = 0;
  cuts_.clear ();
  const bool departed = !global_.moving && still_frames_ >= kDepartedWarmup;
  /* A moving camera's regions count |W - P| itself where their motion
   * explains it (match/change.h, ChangeRequest::sharp): an object moving a
   * pixel or two a frame keeps its bands, which the warp's tolerance took.
   * Measured (box F, bench/README.md "Sharp changes", the seed-32 clips):
   * shake 0.745 -> 0.763, pan 0.711 -> 0.729; on the blocks' tiles as
   * well, 0.666 and 0.679 (the scene's misaligned edges seed regions). */
  const bool sharp = true;
  if (boxes_.empty ()
      || !(slow ? refiner->refine_slow (boxes_, moved_, pixels_, &age)
                : refiner->refine (global_, boxes_, moved_, pixels_, &motions_,
                    &cuts_, departed, sharp)))
    which_.clear ();
  if (slow)
    slow_age_ = which_.empty () ? 0 : age;
  take_refined (which_, !slow, p.forward);
  /* A gap across a region's changed pixels: two objects. Both parts are
   * asked again (one level: a part is not cut again). */
  parts_.clear ();
  for (size_t k = 0; k < which_.size () && k < cuts_.size () / 2; ++k) {
    if (!moved_[k] || (cuts_[2 * k] < 0 && cuts_[2 * k + 1] < 0))
      continue;
    const bool along_x = cuts_[2 * k] >= 0;
    const int b = split (which_[k], along_x, cuts_[2 * k + (along_x ? 0 : 1)]);
    if (b < 0)
      continue;
    parts_.push_back (which_[k]);
    parts_.push_back (b);
  }
  if (!parts_.empty ()) {
    ask_regions (parts_);
    if (refiner->refine (global_, boxes_, moved_, pixels_, &motions_, nullptr,
            departed, sharp))
      take_refined (parts_, true, p.forward);
    for (size_t k = 1; k < parts_.size (); k += 2)
      which_.push_back (parts_[k]);
  }
  /* Shrunk boxes that mostly overlap: one object. */
  for (size_t a = 0; a < which_.size (); ++a) {
    Cand & A = cands_[which_[a]];
    if (A.merged_into != -1)
      continue;
    for (size_t b = a + 1; b < which_.size (); ++b) {
      Cand & B = cands_[which_[b]];
      if (B.merged_into != -1)
        continue;
      const MvRect &ra = A.region.box, &rb = B.region.box;
      const int ix =
          std::min (ra.x + ra.w, rb.x + rb.w) - std::max (ra.x, rb.x);
      const int iy =
          std::min (ra.y + ra.h, rb.y + rb.h) - std::max (ra.y, rb.y);
      if (ix <= 0 || iy <= 0)
        continue;
      const int64_t smaller =
          std::min ((int64_t) ra.w * ra.h, (int64_t) rb.w * rb.h);
      if (2 * (int64_t) ix * iy < smaller)
        continue;
      absorb (A, B, which_[a]);
      A.region.box = rect_union (ra, rb);
      A.region.pixels =
          std::min (A.region.pixels, (int64_t) A.region.box.w * A.region.box.h);
    }
  }
  /* Fragments of a body of one colour: its leading and trailing edges
   * move, its inside neither matches nor changes (bridge_fragments ()). */
  const bool image =
      !scrambled_ && (global_.moving || still_frames_ >= kHoldWarmup);
  if (!slow && image)
    bridge_fragments (g, refiner);
  for (int i : labelled_) {
    int c = label_[i];
    while (c >= 0 && cands_[c].merged_into >= 0)
      c = cands_[c].merged_into;
    if (c >= 0 && cands_[c].merged_into == -2)
      c = -1;
    label_[i] = c;
  }
}

/* The blocks meeting `area` (pixels), clipped to the grid: columns
 * [*c0, *c1], rows [*r0, *r1]. */
static void
blocks_meeting (const MvBlockGrid & g, const MvRect & area, int * c0, int * r0,
    int * c1, int * r1)
{
  *c0 = std::max (area.x / g.block_width, 0);
  *r0 = std::max (area.y / g.block_height, 0);
  *c1 = std::min ((area.x + area.w - 1) / g.block_width, g.columns - 1);
  *r1 = std::min ((area.y + area.h - 1) / g.block_height, g.rows - 1);
}

/* Step 6's sway memory: every block meeting `area` swayed. */
void
MvDecision::remember_sway (const MvBlockGrid & g, const MvRect & area)
{
  int c0, r0, c1, r1;
  blocks_meeting (g, area, &c0, &r0, &c1, &r1);
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c)
      sway_[r * g.columns + c] = 1.0f;
}

/* Step 6's brief runs: a dropped track's motion, a frame, on every
 * block meeting the span of its boxes. */
void
MvDecision::remember_brief (const MvBlockGrid & g, const Track & tr)
{
  int c0, r0, c1, r1;
  blocks_meeting (g, tr.extent, &c0, &r0, &c1, &r1);
  const float vx = (float) (tr.net_x / tr.hits);
  const float vy = (float) (tr.net_y / tr.hits);
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c) {
      const int i = r * g.columns + c;
      brief_[i] = 1.0f;
      brief_vx_[i] = vx;
      brief_vy_[i] = vy;
    }
}

/* Whether most blocks meeting `box` remember a brief motion that agrees
 * with (vx, vy) (pixels a frame): the same short run, again. */
bool
MvDecision::repeats_brief (const MvBlockGrid & g, const MvRect & box, double vx,
    double vy) const
{
  int c0, r0, c1, r1;
  blocks_meeting (g, box, &c0, &r0, &c1, &r1);
  int n = 0, again = 0;
  for (int r = r0; r <= r1; ++r)
    for (int c = c0; c <= c1; ++c) {
      const int i = r * g.columns + c;
      n++;
      again += brief_[i] > (float) kClutterLevel
          && vectors_agree (vx, vy, brief_vx_[i], brief_vy_[i]);
    }
  return 2 * again > n;
}

static double
overlap (double ax, double ay, double aw, double ah, const MvRect & b,
    double * iou = nullptr)
{
  const double ix =
      std::min (ax + aw, (double) b.x + b.w) - std::max (ax, (double) b.x);
  const double iy =
      std::min (ay + ah, (double) b.y + b.h) - std::max (ay, (double) b.y);
  if (iou)
    *iou = 0.0;
  if (ix <= 0 || iy <= 0)
    return 0.0;
  const double sa = aw * ah, sb = (double) b.w * b.h;
  const double smaller = std::min (sa, sb);
  if (iou && sa + sb - ix * iy > 0)
    *iou = ix * iy / (sa + sb - ix * iy);
  return smaller > 0 ? ix * iy / smaller : 0.0;
}

/* The (track, region) pairs that overlap enough to be matched. Only
 * boxes that intersect can, so the regions are bucketed into cells of
 * kCell x kCell pixels and each track visits the cells under its
 * predicted box: O(tracks + regions) on a noisy field of hundreds of
 * regions, where all pairs cost their product (measured: 1080p, 60 regions
 * a frame, the association was half the decision's time). */
void
MvDecision::associate_pairs (const MvBlockGrid & g, const MvDecisionParams & p)
{
  pairs_.clear ();
  if (tracks_.empty ())
    return;
  const int cw = (g.frame_width + kCell - 1) / kCell;
  const int ch = (g.frame_height + kCell - 1) / kCell;
  /* Cells [x0, x1] x [y0, y1] under a box, clamped to the frame (the end
   * cell taken at x + w, one cell too many at a cell's border: harmless). */
  auto cell_of = [] (double v, int n) {
    return (int) std::clamp (std::floor (v / kCell), 0.0, (double) (n - 1));
  };
  auto span = [&] (double x, double y, double w, double h, int c[4]) {
    c[0] = cell_of (x, cw);
    c[1] = cell_of (x + w, cw);
    c[2] = cell_of (y, ch);
    c[3] = cell_of (y + h, ch);
  };
  /* Counting sort of the regions into their cells. */
  cell_start_.assign ((size_t) cw * ch + 1, 0);
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t c = 0; c < cands_.size (); ++c) {
      const Cand & cd = cands_[c];
      if (cd.merged_into != -1 || cd.region.area < p.min_area)
        continue;
      const MvRect & b = cd.region.box;
      int s[4];
      span (b.x, b.y, b.w, b.h, s);
      for (int y = s[2]; y <= s[3]; ++y)
        for (int x = s[0]; x <= s[1]; ++x) {
          const size_t cell = (size_t) y * cw + x;
          if (pass == 0)
            cell_start_[cell + 1]++;
          else
            cell_items_[cell_fill_[cell]++] = (int) c;
        }
    }
    if (pass == 0) {
      for (size_t i = 1; i < cell_start_.size (); ++i)
        cell_start_[i] += cell_start_[i - 1];
      cell_items_.resize (cell_start_.back ());
      cell_fill_.assign (cell_start_.begin (), cell_start_.end () - 1);
    }
  }
  seen_.assign (cands_.size (), -1);
  for (size_t k = 0; k < tracks_.size (); ++k) {
    const Track & tr = tracks_[k];
    if (tr.w <= 0 || tr.h <= 0 || tr.x >= g.frame_width
        || tr.y >= g.frame_height || tr.x + tr.w <= 0 || tr.y + tr.h <= 0)
      continue;
    int s[4];
    span (tr.x, tr.y, tr.w, tr.h, s);
    for (int y = s[2]; y <= s[3]; ++y)
      for (int x = s[0]; x <= s[1]; ++x) {
        const size_t cell = (size_t) y * cw + x;
        for (int i = cell_start_[cell]; i < cell_start_[cell + 1]; ++i) {
          const int c = cell_items_[i];
          if (seen_[c] == (int) k)
            continue;
          seen_[c] = (int) k;
          /* Slow regions continue slow tracks only, and vector regions
           * vector ones: a slow region next to an object is its trail or
           * swaying background more often than the object itself. */
          if (cands_[c].slow != tr.slow)
            continue;
          /* A slow mover's box changes size slowly (by the reference's
           * refresh at most): not a track's box swallowed by a larger
           * region of swaying background. */
          const MvRect & b = cands_[c].region.box;
          if (tr.slow
              && (std::fabs (b.w - tr.w) > std::max (kSlowResize, 0.5 * tr.w)
                  || std::fabs (b.h - tr.h)
                      > std::max (kSlowResize, 0.5 * tr.h)))
            continue;
          /* Eligible by the overlap of the smaller box (a box that shrank
           * still matches), ranked by intersection over union (the
           * object's region before a sliver of its edge). */
          double iou;
          const double sc =
              overlap (tr.x, tr.y, tr.w, tr.h, cands_[c].region.box, &iou);
          if (sc >= kMatchOverlap)
            pairs_.push_back ({ iou + (tr.confirmed ? 1.0 : 0.0), (int) k, c });
        }
      }
  }
}

void
MvDecision::Track::add_box (double t, const MvRect & b, double ox, double oy)
{
  const double x = b.x + b.w * 0.5 - x0 - ox, y = b.y + b.h * 0.5 - y0 - oy;
  if (s[0] == 0)
    t_first = t;
  t_last = t;
  const double v[13] = { 1, t, t * t, x, x * t, x * x, y, y * t, y * y,
    (double) b.w, b.w * t, (double) b.h, b.h * t };
  for (int k = 0; k < 13; ++k)
    s[k] += v[k];
}

void
MvDecision::Track::box_lines (double * net, double * rms, double * growth,
    double * span, double * vx, double * vy) const
{
  *net = *rms = *growth = *span = 0.0;
  if (vx)
    *vx = *vy = 0.0;
  const double n = s[0];
  const double var_t = s[2] - s[1] * s[1] / n; /* n var (t) */
  if (n < 2 || !(var_t > 0))
    return;
  /* Slopes of the centre, its squared distances from its line, slopes of
   * the size. */
  const double cov_x = s[4] - s[1] * s[3] / n, cov_y = s[7] - s[1] * s[6] / n;
  const double bx = cov_x / var_t, by = cov_y / var_t;
  const double ss_x = s[5] - s[3] * s[3] / n - bx * cov_x;
  const double ss_y = s[8] - s[6] * s[6] / n - by * cov_y;
  *span = t_last - t_first;
  *net = std::hypot (bx, by) * *span;
  *rms = std::sqrt (std::max (0.0, ss_x + ss_y) / n);
  const double bw = (s[10] - s[1] * s[9] / n) / var_t;
  const double bh = (s[12] - s[1] * s[11] / n) / var_t;
  *growth = std::hypot (bw, bh) * *span;
  if (vx) {
    *vx = bx;
    *vy = by;
  }
}

bool
MvDecision::Track::slow_travels (double min_displacement, uint64_t dt,
    bool camera_moves) const
{
  double along, scatter, growth, span;
  box_lines (&along, &scatter, &growth, &span);
  /* Its speed along the line, pixels a frame. */
  const double speed = along * dt / (1e9 * std::max (span, 1e-9));
  const bool rigid = growth <= kSlowRigid * along;
  return along >= min_displacement && scatter <= kSlowScatter * along
      && growth <= kSlowGrowth * along
      && speed <= (rigid ? kSlowRigidSpeed : kSlowSpeed)
          * (camera_moves ? kSlowCameraSpeedup : 1.0);
}

/* One axis of step 7: the span of `held` pixels holding [m0, m0 + m),
 * as near `predicted` (its start) as that allows, clipped to [0, size).
 * Sets *start and *length. */
static void
hold_axis (int m0, int m, int held, double predicted, int size, int * start,
    int * length)
{
  int a = m0, b = m0 + m;
  if (held > m) {
    const double lo = b - held, hi = m0;
    a = (int) std::lround (std::clamp (predicted, lo, hi));
    b = a + held;
  }
  a = std::max (a, 0);
  b = std::min (b, size);
  *start = a;
  *length = std::max (b - a, 0);
}

void
MvDecision::Track::record (const MvRect & box, double ox, double oy)
{
  const uint32_t k = n_sizes++ % kHoldFrames;
  sizes_w[k] = (uint16_t) std::clamp (box.w, 0, 65535);
  sizes_h[k] = (uint16_t) std::clamp (box.h, 0, 65535);
  moves_x[k] = (float) ox;
  moves_y[k] = (float) oy;
  measured = shown = box;
}

void
MvDecision::Track::box_travel (double * dx, double * dy) const
{
  *dx = cx - x0 - camera_x;
  *dy = cy - y0 - camera_y;
}

int
MvDecision::Track::size_rank (const uint16_t * ring, uint32_t k,
    bool largest) const
{
  const uint32_t n = std::min<uint32_t> (n_sizes, kHoldFrames);
  int v[kHoldFrames];
  std::copy (ring, ring + n, v);
  if (largest)
    std::nth_element (v, v + k, v + n, std::greater<int> ());
  else
    std::nth_element (v, v + k, v + n);
  return v[k];
}

bool
MvDecision::Track::odd_size (const MvRect & box)
{
  const uint32_t n = std::min<uint32_t> (n_sizes, kHoldFrames);
  if (n < kSlowOddAfter || (odd_at > 0 && n_sizes - odd_at < kHoldFrames))
    return false;
  auto off = [] (int v, int median) {
    return std::abs (v - median) > kSlowOddSize * median + kSlowOddSlack;
  };
  if (!off (box.w, size_rank (sizes_w, n / 2, false))
      && !off (box.h, size_rank (sizes_h, n / 2, false)))
    return false;
  odd_at = n_sizes + 1; /* the box's record () follows */
  return true;
}

bool
MvDecision::Track::steady () const
{
  const uint32_t n = std::min<uint32_t> (n_sizes, kHoldFrames);
  if (n < kHoldRank)
    return false;
  double sx = 0, sy = 0;
  for (uint32_t i = 0; i < n; ++i) {
    sx += moves_x[i];
    sy += moves_y[i];
  }
  const double net = std::hypot (sx, sy);
  if (net == 0.0)
    return false;
  for (uint32_t i = 0; i < n; ++i)
    if ((moves_x[i] * sx + moves_y[i] * sy) / net < -kHoldReverse)
      return false;
  return true;
}

bool
MvDecision::Track::held (int width, int height, MvRect * out) const
{
  if (!steady ()) /* also: at least kHoldRank sizes */
    return false;
  /* The kHoldRank-th largest size of the window: a size reached once (two
   * objects merged for a frame) is not held. */
  const int w = size_rank (sizes_w, kHoldRank - 1, true);
  const int h = size_rank (sizes_h, kHoldRank - 1, true);
  if (w <= measured.w && h <= measured.h)
    return false;
  MvRect b;
  hold_axis (measured.x, measured.w, w, shown_x, width, &b.x, &b.w);
  hold_axis (measured.y, measured.h, h, shown_y, height, &b.y, &b.h);
  *out = b;
  return b.w > measured.w || b.h > measured.h;
}

/* Step 7, an object coming in: the frame's edges `box` reaches (within
 * kEntryNear pixels) behind the motion (vx, vy), as the change stage's
 * edge bits (match::ChangeEdge, frame pixels here). */
using match::kChangeEdgeBottom;
using match::kChangeEdgeLeft;
using match::kChangeEdgeRight;
using match::kChangeEdgeTop;
static unsigned
entering_edges (const MvRect & box, double vx, double vy, int width, int height)
{
  unsigned e = 0;
  if (box.x <= kEntryNear && vx > kEntrySpeed)
    e |= kChangeEdgeLeft;
  if (box.x + box.w >= width - kEntryNear && vx < -kEntrySpeed)
    e |= kChangeEdgeRight;
  if (box.y <= kEntryNear && vy > kEntrySpeed)
    e |= kChangeEdgeTop;
  if (box.y + box.h >= height - kEntryNear && vy < -kEntrySpeed)
    e |= kChangeEdgeBottom;
  return e;
}

/* The strip between `box` and the frame's edge `edge` (a ChangeEdge
 * bit), as wide as the box and `widen` pixels more either side (within
 * the frame); empty where the box reaches the edge. */
static MvRect
strip_to_edge (const MvRect & box, unsigned edge, int widen, int width,
    int height)
{
  MvRect s = box;
  if (edge == kChangeEdgeLeft || edge == kChangeEdgeRight) {
    s.y = std::max (box.y - widen, 0);
    s.h = std::min (box.y + box.h + widen, height) - s.y;
    s.x = edge == kChangeEdgeLeft ? 0 : box.x + box.w;
    s.w = edge == kChangeEdgeLeft ? box.x : width - s.x;
  } else {
    s.x = std::max (box.x - widen, 0);
    s.w = std::min (box.x + box.w + widen, width) - s.x;
    s.y = edge == kChangeEdgeTop ? 0 : box.y + box.h;
    s.h = edge == kChangeEdgeTop ? box.y : height - s.y;
  }
  return s;
}

/* `box` less the trail (dx, dy) that an object moving by it left behind:
 * the side it came from moves in by the trail, rounded, by at most half
 * the box. */
static MvRect
trim_trail (MvRect box, double dx, double dy)
{
  if (!std::isfinite (dx) || !std::isfinite (dy))
    return box;
  const int tx = (int) std::lround (std::min (std::fabs (dx), box.w * 0.5));
  const int ty = (int) std::lround (std::min (std::fabs (dy), box.h * 0.5));
  if (dx > 0)
    box.x += tx;
  box.w -= tx;
  if (dy > 0)
    box.y += ty;
  box.h -= ty;
  return box;
}

/* Step 7: the boxes of the confirmed vector tracks matched on this frame,
 * held where the background says so (`background`, null: none), and the
 * slow tracks' without their trail (`dt`: the frame's duration, ns). */
void
MvDecision::show (const MvBlockGrid & g, MvBoxRefiner * background, uint64_t dt)
{
  which_.clear ();
  boxes_.clear ();
  const int width = g.frame_width, height = g.frame_height;
  strip_edges_.clear ();
  for (size_t k = 0; k < tracks_.size (); ++k) {
    Track & tr = tracks_[k];
    tr.coasting_shown = false;
    if (!background || !tr.confirmed)
      continue;
    if (tr.misses != 0) {
      /* Not matched (a body of one colour whose edges went unfound on
       * this frame): a steady track's box where it coasts to, shown
       * where the frame differs from the background there (not where it
       * stopped or left; not a branch's, which turns back). A confirmed
       * slow track's line is its steadiness: its box centres' motion
       * from frame to frame carries a moving camera's warp error (a
       * pixel or two), which steady () took for turning back. */
      if ((!tr.slow && !tr.steady ()) || tr.misses > kCoastShown
          || tr.shown.w * tr.shown.h < g.block_width * g.block_height)
        continue;
      const MvRect c = clip_rect (MvRect{ (int) std::floor (tr.shown_x),
                                      (int) std::floor (tr.shown_y), tr.shown.w,
                                      tr.shown.h },
          width, height);
      if (c.w > 0 && c.h > 0) {
        which_.push_back ((int) k);
        boxes_.push_back (c);
        strip_edges_.push_back (kCoastAsk);
      }
      continue;
    }
    if (tr.slow) {
      /* A slow region spans the object now and where it was at the
       * reference's time (step 3c): the box shown leaves out that trail,
       * the object's velocity times the reference's age on the side it
       * comes from, at most half the box. The box centre moves at half
       * the object's speed while the reference stays, and jumps forward
       * as it is refreshed: the line through its centres over the track's
       * life runs at the object's speed. With a moving camera too: its
       * centres, the camera's motion taken out and lone odd boxes left
       * out, keep within a pixel or so of that line (a confirmed track's
       * pass kSlowScatter); comp-slow-shake's ten clips, six of them
       * made to check this, 0.39-0.66 box F -> 0.43-0.76, none lower by
       * more than 0.003. */
      if (slow_age_ > 0) {
        double net, rms, growth, span, vx, vy;
        tr.box_lines (&net, &rms, &growth, &span, &vx, &vy);
        const double frames = slow_age_ * (dt * 1e-9);
        if (span > 0)
          tr.shown = trim_trail (tr.shown, vx * frames, vy * frames);
      }
      continue;
    }
    MvRect b;
    if (tr.held (width, height, &b)) {
      which_.push_back ((int) k);
      boxes_.push_back (b);
      strip_edges_.push_back (0);
    }
    /* Under a moving camera a body of one colour moving a pixel or two a
     * frame matches on the blocks at its edges only, and its box measured
     * there can be a band thinner than a block: a steady track's box is
     * asked a block wider either side across that thin side, against the
     * scene image, where all of the body differs (bench/README.md,
     * "Objects between slow and fast under a moving camera"). */
    if (global_.moving && tr.steady ()) {
      const int wx = tr.measured.w < g.block_width ? g.block_width : 0;
      const int wy = tr.measured.h < g.block_height ? g.block_height : 0;
      const MvRect wide =
          clip_rect (MvRect{ tr.measured.x - wx, tr.measured.y - wy,
                         tr.measured.w + 2 * wx, tr.measured.h + 2 * wy },
              width, height);
      if ((wx || wy) && wide.w > 0 && wide.h > 0) {
        which_.push_back ((int) k);
        boxes_.push_back (wide);
        strip_edges_.push_back (0);
      }
    }
    /* An object coming in through the frame's edge continues beyond it,
     * and its body of one colour changes there in thin bands at most: a
     * box shown out to the edge on the frame before asks the strip from
     * its measured box out to the edge too, as wide as the box and, with
     * a still camera, a block wider either side (the box may hold only a
     * part of the object's width, the top of a head). With a moving
     * camera the strip is asked against the scene image, which is off by
     * a pixel or so along the textures beside the object: the wider strip
     * took them (bench/README.md, "Objects coming in under a shaking
     * camera"). */
    const int widest = global_.moving ? 0 : 1;
    for (unsigned e = kChangeEdgeLeft; e <= kChangeEdgeBottom; e <<= 1) {
      if (!(tr.entering & e))
        continue;
      const int block = e == kChangeEdgeLeft || e == kChangeEdgeRight
          ? g.block_height
          : g.block_width;
      for (int w = 0; w <= widest; w++) {
        const int widen = w * block;
        const MvRect s = strip_to_edge (tr.measured, e, widen, width, height);
        if (s.w <= 0 || s.h <= 0)
          continue;
        which_.push_back ((int) k);
        boxes_.push_back (s);
        strip_edges_.push_back (e);
      }
    }
  }
  /* One answer per box (ask_regions () sizes them the same way). */
  moved_.assign (boxes_.size (), 1);
  pixels_.assign (boxes_.size (), 0);
  if (!which_.empty ()
      && background->refine_background (boxes_, moved_, pixels_))
    for (size_t j = 0; j < which_.size (); ++j) {
      Track & tr = tracks_[which_[j]];
      const MvRect & b = boxes_[j];
      if (!moved_[j] || pixels_[j] < kHoldDensity * b.w * b.h)
        continue;
      if (strip_edges_[j] == kCoastAsk) {
        tr.shown = b;
        tr.coasting_shown = true;
        continue;
      }
      /* A strip is the object's body where what differs from the
       * background runs on from its box: a gap (the road between a car
       * and the next one coming in, with snow on it) is not. */
      if (strip_edges_[j] && !rects_near (b, tr.measured, kEntryNear))
        continue;
      tr.shown = rect_union (tr.shown, b);
    }
  /* The next frame's hold starts where this frame's box is shown. */
  for (Track & tr : tracks_)
    if (tr.misses == 0) {
      tr.shown_x = tr.shown.x;
      tr.shown_y = tr.shown.y;
      tr.entering = entering_edges (tr.shown, tr.vx, tr.vy, width, height);
    }
  /* A body whose luma is close to the scene's changes only at its rim and
   * matches no vector inside: its box grows over the colour next to it
   * that differs from a still camera's background (mvcolour.h). Not a
   * slow one's: its box already spans where it was at the slow movers'
   * reference, and the colour it uncovered there would grow it further. */
  if (!background || global_.moving)
    return;
  which_.clear ();
  boxes_.clear ();
  for (size_t k = 0; k < tracks_.size (); ++k) {
    const Track & tr = tracks_[k];
    if (tr.confirmed && (tr.misses == 0 || tr.coasting_shown) && !tr.slow
        && std::hypot (tr.vx, tr.vy) >= kColourSpeed) {
      which_.push_back ((int) k);
      boxes_.push_back (tr.shown);
    }
  }
  if (!which_.empty () && background->grow_by_colour (boxes_))
    for (size_t j = 0; j < which_.size (); ++j)
      tracks_[which_[j]].shown = boxes_[j];
}

/* Step 5 (and the clutter of step 6). */
void
MvDecision::track (const MvBlockGrid & g, const MvDecisionParams & p,
    uint64_t t, uint64_t dt, MvBoxRefiner * background)
{
  const MvDecisionTuning tune = mv_decision_tuning (p.sensitivity);
  const double sign = p.forward ? 1.0 : -1.0; /* field -> object motion */

  /* Predict (kept: a region split off a confirmed track's, below): the
   * object's own motion and the camera's at its box (boxes are in image
   * coordinates; under shake the whole image moves by pixels a frame, more
   * than a small object's size). */
  predicted_.clear ();
  for (Track & tr : tracks_) {
    const double bx = tr.x + tr.w * 0.5, by = tr.y + tr.h * 0.5;
    const double mx = sign * global_.dx_at (bx, by);
    const double my = sign * global_.dy_at (bx, by);
    tr.camera_x += mx;
    tr.camera_y += my;
    tr.cx += mx; /* a slow track's box motion leaves the camera's out */
    tr.cy += my;
    tr.x += tr.vx + mx;
    tr.y += tr.vy + my;
    tr.shown_x += tr.vx + mx;
    tr.shown_y += tr.vy + my;
    predicted_.push_back (
        MvRect{ (int) std::floor (tr.x), (int) std::floor (tr.y),
            (int) std::ceil (tr.w), (int) std::ceil (tr.h) });
  }
  const size_t n_old = tracks_.size ();

  /* Greedy association, best overlap first; ties by track, then region
   * (the order is total, so the result does not depend on how the pairs
   * were found). */
  associate_pairs (g, p);
  std::sort (pairs_.begin (), pairs_.end (),
      [] (const Pair & a, const Pair & b) {
        if (a.score != b.score)
          return a.score > b.score;
        return a.track != b.track ? a.track < b.track : a.cand < b.cand;
      });
  order_.assign (tracks_.size (), -1);
  for (Cand & cd : cands_)
    cd.track = -1;
  for (const Pair & pr : pairs_) {
    if (order_[pr.track] >= 0 || cands_[pr.cand].track >= 0)
      continue;
    order_[pr.track] = pr.cand;
    cands_[pr.cand].track = pr.track;
  }

  /* Update matched tracks, age the others. */
  for (size_t k = 0; k < tracks_.size (); ++k) {
    Track & tr = tracks_[k];
    if (order_[k] < 0) {
      tr.misses++;
      /* Missed where most vectors scrambled: as on a frame not judged, the
       * track waits (its object's blocks are often among the scrambled).
       * So does a slow track where a slow region was dropped beside
       * vectors moving its way (3b), or where a vector region about its
       * box (kSlowWaitIou) moves its way: its object, at 0.5 to 1 px a
       * frame, matched on some blocks, and its track, lost there, started
       * again with its persistence to live anew. Measured (box F, two
       * objects of comp-slow at 0.5 to 1.2 px a frame, bench/README.md
       * "Objects between slow and fast"): 0.511 -> 0.617, 0.702 -> 0.837,
       * 0.765 -> 0.774; without the direction, a tree's slow track kept on
       * by its swing's vectors was confirmed (stress4a's windy clip 0.886
       * -> 0.839). */
      bool excused = scrambled_;
      if (tr.slow) {
        const MvRect & pb = predicted_[k];
        for (const Touched & b : touched_)
          excused |= overlap (pb.x, pb.y, pb.w, pb.h, b.box) >= kMatchOverlap
              && sign * (b.vx * tr.vx + b.vy * tr.vy) > 0.0;
        for (const Cand & cd : cands_) {
          double iou = 0.0;
          if (!cd.slow && cd.merged_into == -1)
            overlap (pb.x, pb.y, pb.w, pb.h, cd.region.box, &iou);
          excused |= iou >= kSlowWaitIou
              && sign * (cd.region.mean_dx * tr.vx + cd.region.mean_dy * tr.vy)
                  > 0.0;
        }
      }
      if (excused) {
        tr.excused++;
        tr.last = std::max (tr.last, t - std::min (t, dt));
      }
      continue;
    }
    const Cand & cd = cands_[order_[k]];
    const MvRegion & r = cd.region;
    const double cx = r.box.x + r.box.w * 0.5, cy = r.box.y + r.box.h * 0.5;
    const bool odd = cd.slow && tr.odd_size (r.box);
    if (cd.slow) {
      /* No vector: the motion of the box centre, smoothed over several
       * frames (the box is the object's span since the reference: its
       * centre moves at half the speed, and jumps as the reference is
       * refreshed). It is not counted in net or path, which sum the
       * field's motion. */
      const double ox = (cx - tr.cx) / (tr.misses + 1);
      const double oy = (cy - tr.cy) / (tr.misses + 1);
      tr.vx += (ox - tr.vx) / 8.0;
      tr.vy += (oy - tr.vy) / 8.0;
      tr.record (r.box, ox, oy);
    } else {
      const double ox = sign * r.mean_dx, oy = sign * r.mean_dy;
      tr.record (r.box, ox, oy);
      tr.vx = tr.hits == 0 ? ox : 0.5 * (tr.vx + ox);
      tr.vy = tr.hits == 0 ? oy : 0.5 * (tr.vy + oy);
      tr.net_x += ox;
      tr.net_y += oy;
      tr.path += std::hypot (ox, oy);
      tr.chunk_x += ox;
      tr.chunk_y += oy;
      if (++tr.chunk_frames >= kPathChunk) {
        tr.chunk_path += std::hypot (tr.chunk_x, tr.chunk_y);
        tr.chunk_x = tr.chunk_y = 0.0;
        tr.chunk_frames = 0;
      }
      /* Confirmed while coherent: swaying in place (branches in a strong
       * wind, a flag, a sign on a pole) goes back and forth, and once its
       * net displacement falls under kDemoteCoherence of its path by
       * chunks the track is tentative again; its blocks, candidates
       * outside confirmed tracks, are then learnt as clutter, and its
       * area as swaying (step 6). A car that turns back after driving
       * keeps the coherence of its whole path. */
      if (tr.confirmed
          && std::hypot (tr.net_x, tr.net_y)
              < kDemoteCoherence * tr.chunk_path_now ()) {
        tr.confirmed = false;
        retracted_.push_back (tr.id);
        remember_sway (g, tr.extent);
      }
    }
    tr.x = r.box.x;
    tr.y = r.box.y;
    tr.w = r.box.w;
    tr.h = r.box.h;
    tr.cx = cx;
    tr.cy = cy;
    tr.extent = rect_union (tr.extent, r.box);
    tr.last = t;
    tr.hits++;
    tr.misses = 0;
    tr.excused = 0;
    /* In the scene's coordinates of its birth; a confirmed slow track's
     * boxes too, whose line must keep running (below). */
    if ((!tr.confirmed || tr.slow) && !odd)
      tr.add_box ((t - tr.born) * 1e-9, r.box, tr.camera_x, tr.camera_y);
    /* A slow track on learnt slow clutter is demoted (confirmed before its
     * area was learnt: branches swaying the same way for a second); so is
     * one whose centres over its whole life scatter from their line by
     * more than kSlowDemoteScatter of its travel along it (a tree swaying
     * under a pixel a frame, its box the whole swing, confirmed in a half
     * swing, then stays where it is), and its area sways (step 6), as a
     * vector track's swaying in place does. */
    if (tr.slow && tr.confirmed) {
      const bool clutter = 2 * cd.clutter > r.area;
      double along, scatter, growth, span;
      tr.box_lines (&along, &scatter, &growth, &span);
      if (clutter || scatter > kSlowDemoteScatter * along) {
        tr.confirmed = false;
        retracted_.push_back (tr.id);
        if (!clutter)
          remember_sway (g, tr.extent);
      }
    }
    /* A confirmed vector track whose box, over its life, has gone under a
     * quarter of the way its vectors say is judged again by the
     * confirmation's test below, over its whole life: a wave travelling
     * through foliage (each branch swings back and forth, the place that
     * swings one way moves on and takes the track with it: its vectors go
     * one way, its box stays on the tree) passes that test at the
     * persistence, not a second later. Not passing it, it is demoted as a
     * swaying one. */
    bool lagging = false;
    if (tr.confirmed && !tr.slow && t - tr.born >= kFollowAge) {
      const double net = std::hypot (tr.net_x, tr.net_y);
      double tx, ty;
      tr.box_travel (&tx, &ty);
      const double along =
          net > 0.0 ? (tx * tr.net_x + ty * tr.net_y) / net : 0.0;
      lagging = net >= kFollowNet && along < kFollowAlong * net;
      if (lagging)
        tr.confirmed = false;
    }
    if (tr.confirmed)
      continue;
    /* Lived `persistence`, within half a frame (9 frames of 1/30 s are
     * 0.3 s, though not in whole nanoseconds). */
    if (tr.hits >= kMinHits && t - tr.born + dt / 2 >= tune.persistence) {
      const double net = std::hypot (tr.net_x, tr.net_y);
      /* Its box went where its vectors say: a region of wrong vectors
       * beside an object (the background it uncovers) travels with the
       * object, not as its vectors do. */
      double tx, ty;
      tr.box_travel (&tx, &ty);
      const double off = std::hypot (tx - tr.net_x, ty - tr.net_y);
      if (net >= tune.min_displacement && net >= kCoherence * tr.path
          && off <= kBoxTravel * net + kBoxTravelSlack) {
        /* The same run as a brief one before, in the same place (a still
         * camera's): a wave in the foliage; its area sways. */
        if (!global_.moving
            && repeats_brief (g, r.box, tr.net_x / tr.hits, tr.net_y / tr.hits))
          remember_sway (g, tr.extent);
        else
          tr.confirmed = true;
      }
      /* Mostly slow: the same travel, along the line of its centres,
       * which they must keep close to (leaves, noise and ghosts stay in
       * place or go back and forth). */
      if (tr.slow && t - tr.born + dt / 2 >= tune.slow_persistence
          && 2 * cd.clutter < r.area
          && tr.slow_travels (tune.min_displacement, dt, global_.moving))
        tr.confirmed = true;
    }
    if (lagging && !tr.confirmed) {
      retracted_.push_back (tr.id);
      remember_sway (g, tr.extent);
    }
  }

  /* New tentative tracks from unmatched regions that are not clutter. */
  for (size_t c = 0; c < cands_.size (); ++c) {
    Cand & cd = cands_[c];
    if (cd.merged_into != -1 || cd.track >= 0 || cd.region.area < p.min_area)
      continue;
    if (2 * cd.clutter > cd.region.area)
      continue;
    /* A part of a region cut in two (step 3b) overlapping the predicted box
     * of a confirmed vector track that took the other part: one of the
     * objects that track followed together. Moving already, it inherits
     * the track's confirmation and age under an id of its own. */
    int parent = -1;
    double best = kMatchOverlap;
    for (size_t k = 0; k < n_old && !cd.slow && cd.split; ++k) {
      const Track & pt = tracks_[k];
      if (!pt.confirmed || pt.slow || order_[k] < 0)
        continue;
      /* Moving as that track does (a strip of wrong vectors cut off its
       * trailing edge does not). */
      if (!vectors_agree (sign * cd.region.mean_dx, sign * cd.region.mean_dy,
              pt.vx, pt.vy))
        continue;
      const MvRect & b = predicted_[k];
      const double o = overlap (b.x, b.y, b.w, b.h, cd.region.box);
      if (o >= best) {
        best = o;
        parent = (int) k;
      }
    }
    Track tr;
    tr.id = next_id_++;
    if (next_id_ == 0)
      next_id_ = 1;
    tr.x = cd.region.box.x;
    tr.y = cd.region.box.y;
    tr.w = cd.region.box.w;
    tr.h = cd.region.box.h;
    tr.vx = sign * cd.region.mean_dx;
    tr.vy = sign * cd.region.mean_dy;
    tr.net_x = tr.vx;
    tr.net_y = tr.vy;
    tr.path = std::hypot (tr.vx, tr.vy);
    tr.chunk_x = tr.vx;
    tr.chunk_y = tr.vy;
    tr.chunk_frames = 1;
    tr.born = t - std::min (t, dt); /* it moved during the last frame */
    tr.last = t;
    tr.hits = 1;
    tr.slow = cd.slow;
    tr.cx = tr.x0 = cd.region.box.x + cd.region.box.w * 0.5;
    tr.cy = tr.y0 = cd.region.box.y + cd.region.box.h * 0.5;
    tr.extent = cd.region.box;
    tr.record (cd.region.box, tr.vx, tr.vy);
    tr.add_box ((t - tr.born) * 1e-9, cd.region.box, 0.0, 0.0);
    if (parent >= 0) {
      const Track & pt = tracks_[parent];
      tr.confirmed = true;
      tr.born = pt.born;
      tr.hits = pt.hits;
    }
    cd.track = (int) tracks_.size ();
    tracks_.push_back (tr);
    order_.push_back ((int) c);
  }

  show (g, background, dt);

  /* Outputs: regions of confirmed tracks matched now, MOVING blocks. */
  out_.clear ();
  moving_out_.assign ((size_t) g.columns * g.rows, 0);
  for (size_t k = 0; k < tracks_.size (); ++k) {
    const Track & tr = tracks_[k];
    if (!tr.confirmed || (tr.misses > 0 && !tr.coasting_shown))
      continue;
    MvTrackedRegion o;
    if (tr.misses > 0) {
      /* Shown where it coasts: no blocks of its own this frame. */
      o.region.box = tr.shown;
      o.region.mean_dx = sign * tr.vx;
      o.region.mean_dy = sign * tr.vy;
      o.region.pixels = (int64_t) tr.shown.w * tr.shown.h;
      int c0, r0, c1, r1;
      blocks_meeting (g, tr.shown, &c0, &r0, &c1, &r1);
      o.region.area = (c1 - c0 + 1) * (r1 - r0 + 1);
      o.region.first_block = r0 * g.columns + c0;
      o.coasting = true;
    } else {
      o.region = cands_[order_[k]].region;
      o.region.box = tr.shown;
      /* A slow box shown without its trail holds fewer of them. */
      o.region.pixels =
          std::min (o.region.pixels, (int64_t) tr.shown.w * tr.shown.h);
    }
    if (tr.misses == 0 && cands_[order_[k]].slow) {
      /* The track's motion, in the field's convention. */
      o.region.mean_dx = sign * tr.vx;
      o.region.mean_dy = sign * tr.vy;
    }
    o.track_id = tr.id;
    o.age = t - tr.born;
    o.frames = tr.hits;
    o.vx = tr.vx;
    o.vy = tr.vy;
    out_.push_back (o);
  }
  std::sort (out_.begin (), out_.end (),
      [] (const MvTrackedRegion & a, const MvTrackedRegion & b) {
        return a.region.first_block < b.region.first_block;
      });
  /* The blocks labelled this frame (the only ones in a region, and every
   * slow candidate) take their levels' new values from their targets;
   * every other block's levels fall (target 0) in one pass the compiler
   * vectorises, then theirs are put back. */
  levels_.clear ();
  for (int i : labelled_) {
    const int c = label_[i];
    const bool in_confirmed =
        c >= 0 && cands_[c].track >= 0 && tracks_[cands_[c].track].confirmed;
    if (in_confirmed)
      moving_out_[i] = 1;
    /* A confirmed vector track's blocks: their change since the slow
     * movers' reference is its ghost or its trail (step 3c). Not a
     * tentative track's: an object at 0.5 to 1 px a frame has vectors on
     * some blocks and frames only, and its own blocks were no slow
     * candidates until the reference had moved past them (bench/README.md,
     * "Objects between slow and fast, continued"). */
    if (in_confirmed && !cands_[c].slow)
      vector_past_[i] |= 1u;
    /* Clutter: towards 1 while a candidate outside confirmed tracks. */
    const float target =
        c >= 0 && !in_confirmed && !cands_[c].slow ? 1.0f : 0.0f;
    /* Every slow candidate block, also those of regions dropped next to
     * vector regions (branches do that half the time). */
    const float slow_target = cand_[i] >= kSlow && !in_confirmed ? 1.0f : 0.0f;
    /* Sway: kept while it moves there and is remembered. */
    const bool swaying = (target > 0.0f || slow_target > 0.0f)
        && sway_[i] > (float) kClutterLevel;
    levels_.push_back ({ i,
        clutter_[i] + (float) ((target - clutter_[i]) / kClutterFrames),
        slow_clutter_[i]
            + (float) ((slow_target - slow_clutter_[i]) / kSlowClutterFrames),
        swaying ? 1.0f : sway_[i] - (float) (sway_[i] / kSwayFrames) });
  }
  for (float & level : clutter_)
    level += (float) ((0.0f - level) / kClutterFrames);
  for (float & level : slow_clutter_)
    level += (float) ((0.0f - level) / kSlowClutterFrames);
  for (float & level : sway_)
    level += (float) ((0.0f - level) / kSwayFrames);
  for (float & level : brief_)
    level += (float) ((0.0f - level) / kBriefFrames);
  for (const Level & l : levels_) {
    clutter_[l.block] = l.clutter;
    slow_clutter_[l.block] = l.slow_clutter;
    sway_[l.block] = l.sway;
  }

  /* Drop tracks that coasted too long; a confirmed vector track that
   * lived briefly leaves its motion behind (step 6). */
  auto coasted = [&] (const Track & tr) {
    if (tr.confirmed)
      return t - tr.last > tune.coast;
    return tr.misses - tr.excused > kTentativeMisses;
  };
  for (const Track & tr : tracks_)
    if (tr.confirmed && !tr.slow && coasted (tr)
        && tr.last - tr.born < kBriefLife && !global_.moving)
      remember_brief (g, tr);
  tracks_.erase (std::remove_if (tracks_.begin (), tracks_.end (), coasted),
      tracks_.end ());

  active_id_ = 0;
  uint64_t oldest = UINT64_MAX;
  for (const Track & tr : tracks_)
    if (tr.confirmed && tr.born < oldest) {
      oldest = tr.born;
      active_id_ = tr.id;
    }
}

/* Whether more than kBeyondReach of the valid blocks lie within a pixel
 * of one side of the search's reach (p.reach_x, p.reach_y; never when
 * unknown) and the fitted motion at the frame's centre within two pixels
 * of it: a camera beyond the reach holds the vectors at the side it moved
 * past, and the fit, made of them, there too. Vectors that light
 * scrambles scatter over the sides; a rotation within the reach holds
 * the frame's far rows at one side, its centre well inside. `crowded`:
 * a side so crowded with no motion fitted (a camera far beyond the
 * reach, or a light's step, not told apart). */
bool
MvDecision::beyond_reach (const MvBlockGrid & g, const MvBlock * blocks,
    const MvDecisionParams & p, bool * crowded) const
{
  *crowded = false;
  if (p.reach_x <= 0 && p.reach_y <= 0)
    return false;
  const double ex = p.reach_x > 0 ? p.reach_x - 1.0 : HUGE_VAL;
  const double ey = p.reach_y > 0 ? p.reach_y - 1.0 : HUGE_VAL;
  size_t valid = 0, side[4] = {};
  for (size_t i = 0; i < (size_t) g.columns * g.rows; ++i)
    if (blocks[i].valid) {
      valid++;
      side[0] += blocks[i].dx > ex;
      side[1] += blocks[i].dx < -ex;
      side[2] += blocks[i].dy > ey;
      side[3] += blocks[i].dy < -ey;
    }
  double mx, my;
  centre_motion (&mx, &my);
  const double toward[4] = { mx - ex, -mx - ex, my - ey, -my - ey };
  for (int k = 0; k < 4; k++)
    if (side[k] > kBeyondReach * valid) {
      if (global_.moving && toward[k] >= -1.0)
        return true;
      *crowded |= !global_.moving;
    }
  return false;
}

/* A frame not judged: no block moving, the tracks kept as they are, one
 * frame later. */
void
MvDecision::wait_frame (uint64_t t, uint64_t dt)
{
  moving_out_.assign ((size_t) grid_cols_ * grid_rows_, 0);
  for (Track & tr : tracks_)
    tr.last = std::max (tr.last, t - std::min (t, dt));
  for (uint64_t & past : vector_past_)
    past <<= 1;
}

bool
MvDecision::process (const MvBlockGrid & g, const MvBlock * blocks,
    const MvDecisionParams & p, uint64_t t, uint64_t frame_duration,
    MvBoxRefiner * refiner)
{
  out_.clear ();
  retracted_.clear ();
  scene_change_ = false;
  beyond_reach_ = false;
  slow_age_ = 0;
  if (!mv_grid_ok (g) || !blocks) {
    moving_out_.clear ();
    return false;
  }
  grid_ = g;
  if (g.columns != grid_cols_ || g.rows != grid_rows_) {
    reset ();
    grid_cols_ = g.columns;
    grid_rows_ = g.rows;
  }
  const size_t n = (size_t) g.columns * g.rows;
  if (clutter_.size () != n)
    clutter_.assign (n, 0.0f);
  if (slow_clutter_.size () != n)
    slow_clutter_.assign (n, 0.0f);
  if (sway_.size () != n)
    sway_.assign (n, 0.0f);
  if (brief_.size () != n) {
    brief_.assign (n, 0.0f);
    brief_vx_.assign (n, 0.0f);
    brief_vy_.assign (n, 0.0f);
  }
  if (vector_past_.size () != n)
    vector_past_.assign (n, 0);

  /* Stream time: the frame's, or one frame after the previous one. */
  const uint64_t dt = frame_duration ? frame_duration : kDefaultFrame;
  if (t == UINT64_MAX)
    t = have_time_ ? now_ + dt : 0;
  if (have_time_ && t < now_)
    t = now_; /* never backwards */
  now_ = t;
  have_time_ = true;
  if (refiner)
    refiner->slow_blocks_ahead (g);
  global_ = mv_fit_global_motion (g, blocks, &fit_);
  /* Beyond the search's reach the field holds no motion to judge by. What
   * follows the camera (3c's reference, 7's scene image) takes the fit,
   * made of vectors held at the reach's edge: near the camera's motion
   * when it went just past, and when it went further, a reference that
   * then differs scene-wide restarts (3c). */
  bool crowded;
  beyond_reach_ = beyond_reach (g, blocks, p, &crowded);
  if (beyond_reach_) {
    if (refiner)
      refiner->camera (global_);
    wait_frame (t, dt);
    return true;
  }
  if (global_.moving)
    since_moved_ = 0;
  else if (since_moved_ < UINT32_MAX)
    since_moved_++;
  /* Crowded at one side with no motion fitted: not judged, and restarted
   * as a scene-wide change is (what follows the camera starts again after
   * the gap: camera () is not called). Judged as step 4 does, taken for a
   * still camera, it left 8-16 px shakes at box F 0.14 (bench/README.md,
   * "A camera that shakes beyond the search"). */
  if (crowded) {
    if (refiner)
      refiner->restart_slow ();
    still_frames_ = 0;
    scene_change_ = true;
    wait_frame (t, dt);
    return true;
  }
  if (refiner)
    refiner->camera (global_);
  candidates (g, blocks, p, refiner != nullptr);

  /* Step 4. Most blocks' vectors moving (scrambled: a light switching,
   * an IR switch, the camera's gain hunting) restart what is compared
   * with older frames. The frame is not judged when the pixels, where
   * there are any to ask, say that most of them moved too: a gain that
   * flickers from frame to frame scrambles the vectors every few frames,
   * and not judging those frames lost the objects in them (bench/README.md,
   * "Light that is not motion"). */
  const bool judged = refiner && block_pixels (g, refiner);
  scrambled_ = n_valid_ > 0 && n_cand_ > kSceneWide * n_valid_;
  size_t n_moving = n_cand_;
  if (judged) {
    n_moving = 0;
    for (int i : cand_list_)
      n_moving += cand_[i] == kVector;
  }
  if (scrambled_) {
    if (refiner)
      refiner->restart_slow ();
    still_frames_ = 0;
  }
  if (n_valid_ > 0 && n_moving > kSceneWide * n_valid_) {
    scene_change_ = true;
    wait_frame (t, dt);
    return true;
  }
  /* Loose candidates are vector ones once the pixels judged them, and
   * none when they could not. */
  if (!judged)
    changed_.clear ();
  for (int i : cand_list_)
    if (cand_[i] == kLoose)
      cand_[i] = judged ? kVector : 0;
  group (g, false);
  if (refiner)
    refine (g, p, refiner, 0, false);
  /* Step 3c, slow movers: with a moving camera where the refiner sums
   * the camera's motions since the reference. */
  touched_.clear ();
  if (refiner && global_.moving && !refiner->slow_follows_camera ())
    refiner->restart_slow ();
  else if (refiner && !changed_.empty () && slow_blocks (g, blocks, refiner)) {
    const size_t from = cands_.size ();
    group (g, true);
    refine (g, p, refiner, from, true);
  }
  for (uint64_t & past : vector_past_)
    past <<= 1;
  /* Step 7's background: started anew on the first frame of a still
   * camera (after motion, a scene-wide change, a reset), used once warm;
   * with a moving camera, the refiner's scene image (refine_background ()
   * says when it is warm). */
  MvBoxRefiner * background = nullptr;
  if (!refiner || global_.moving || scrambled_) {
    still_frames_ = 0;
    if (refiner && global_.moving && !scrambled_)
      background = refiner;
  } else {
    if (still_frames_ == 0)
      refiner->restart_background ();
    if (still_frames_ >= kHoldWarmup)
      background = refiner;
    if (still_frames_ < UINT32_MAX)
      still_frames_++;
  }
  track (g, p, t, dt, background);
  /* The colour background follows a still camera from its first frame,
   * outside the objects the frame shows. */
  if (refiner && !global_.moving && !scrambled_) {
    boxes_.clear ();
    for (const MvTrackedRegion & o : out_)
      boxes_.push_back (o.region.box);
    refiner->settle_colour (boxes_);
  }
  return true;
}

/* The widest run of at least `min_run` cells inside [first, last] each
 * under a tenth of the largest count, with at least a tenth of the counts
 * and `min_run` cells on either side of it: two objects side by side (not
 * an object and a sliver of its edge). Returns its middle cell and sets
 * *width, or -1 (*width 0). */
static int
widest_gap (const uint32_t * counts, int first, int last, int min_run,
    int * width)
{
  uint32_t top = 0;
  uint64_t total = 0;
  for (int i = first; i <= last; i++) {
    top = std::max (top, counts[i]);
    total += counts[i];
  }
  const uint32_t keep = std::max (1u, (top + 9) / 10);
  int best = -1;
  *width = 0;
  uint64_t before = 0;
  for (int i = first; i <= last;) {
    if (counts[i] >= keep) {
      before += counts[i++];
      continue;
    }
    int j = i;
    uint64_t in_run = 0;
    while (j <= last && counts[j] < keep)
      in_run += counts[j++];
    const uint64_t after = total - before - in_run;
    if (j - i >= min_run && j - i > *width && 10 * before >= total
        && 10 * after >= total && i - first >= min_run
        && last + 1 - j >= min_run) {
      *width = j - i;
      best = (i + j - 1) / 2;
    }
    before += in_run;
    i = j;
  }
  return best;
}

bool
MvChangeRefiner::refine (const MvGlobalMotion & global,
    std::vector<MvRect> & boxes, std::vector<uint8_t> & moved,
    std::vector<int64_t> & changed, const std::vector<MvBoxMotion> * motions,
    std::vector<int> * cuts, bool departed, bool sharp)
{
  if (!change_)
    return false;
  match::ChangeRequest r = camera_request (global);
  r.departed =
      departed && !global.moving && change_->config ().background_every > 0;
  r.sharp = sharp;
  /* A still camera's boxes run on to the frame's edge where their change
   * does (analyse ()'s `edges`). With a moving camera the shaking and
   * panning clips lost 0.001 to 0.004 box F with it (the warp's border). */
  return analyse (r, boxes, moved, changed, motions, cuts, !global.moving);
}

/* This frame against the previous one with the camera's motion. */
match::ChangeRequest
MvChangeRefiner::camera_request (const MvGlobalMotion & global) const
{
  double c[6];
  sample_motion (global, c);
  match::ChangeRequest r;
  stage_motion (c, r.motion);
  r.frame = frame_;
  return r;
}

/* The field's motion as the previous frame's sample position, frame
 * pixels (c[0] + c[1] x + c[2] y, then y's): backward fields say where a
 * block came from (that is it), forward ones where it went (the
 * opposite). */
void
MvChangeRefiner::sample_motion (const MvGlobalMotion & global,
    double c[6]) const
{
  const double sign = forward_ ? -1.0 : 1.0;
  for (int k = 0; k < 6; k++)
    c[k] = sign * global.a[k];
}

/* A displacement in frame pixels (c[0] + c[1] x + c[2] y, then y's) as
 * the stage's motion: working pixels, 1/65536 units (a working pixel x
 * covers frame pixels x s .. x s + s - 1, centre x s + (s - 1) / 2). */
void
MvChangeRefiner::stage_motion (const double c[6], int64_t m[6]) const
{
  const double s = change_->config ().scale;
  for (int k = 0; k < 2; k++) {
    const double * a = c + 3 * k;
    const double a0 = (a[0] + (a[1] + a[2]) * (s - 1.0) * 0.5) / s;
    m[3 * k] = llround (a0 * 65536.0);
    m[3 * k + 1] = llround (a[1] * 65536.0);
    m[3 * k + 2] = llround (a[2] * 65536.0);
  }
}

/* Two affine displacements as sample positions (c[0] + c[1] x + c[2] y,
 * then y's), one after the other: where the content at x was after
 * `first`, x + first (x), and then after `then`: first (x) + then (x +
 * first (x)). */
static void
compose_displacements (const double first[6], const double then[6],
    double out[6])
{
  const double *c = first, *b = then;
  out[0] = c[0] + b[0] + b[1] * c[0] + b[2] * c[3];
  out[1] = c[1] + b[1] + b[1] * c[1] + b[2] * c[4];
  out[2] = c[2] + b[2] + b[1] * c[2] + b[2] * c[5];
  out[3] = c[3] + b[3] + b[4] * c[0] + b[5] * c[3];
  out[4] = c[4] + b[4] + b[4] * c[1] + b[5] * c[4];
  out[5] = c[5] + b[5] + b[4] * c[2] + b[5] * c[5];
}

void
MvChangeRefiner::camera (const MvGlobalMotion & global)
{
  const int slot = (int) (frame_ % kMvCameraAge);
  cameras_[slot] = global;
  camera_frames_[slot] = frame_ + 1;
  follow_slow (global);
  follow_scene (global);
}

/* This frame's motion composed into the slow movers' maps (slow_maps_),
 * the schedule restarted where a frame was not followed. */
void
MvChangeRefiner::follow_slow (const MvGlobalMotion & global)
{
  if (!anchored_ || frame_ <= anchor_)
    return;
  if (slow_last_ + 1 != frame_) {
    anchored_ = false;
    return;
  }
  slow_last_ = frame_;
  double c[6];
  sample_motion (global, c);
  if ((frame_ - anchor_) % kMvSlowRefresh == 0) {
    /* A new reference frame in the schedule: this one. */
    compose_displacements (c, slow_maps_[0], slow_maps_[1]);
    std::fill (slow_maps_[0], slow_maps_[0] + 6, 0.0);
    return;
  }
  for (double * map : slow_maps_) {
    double n[6];
    compose_displacements (c, map, n);
    std::copy (n, n + 6, map);
  }
}

static bool
map_moves (const double map[6])
{
  return std::any_of (map, map + 6, [] (double v) { return v != 0.0; });
}

/* The slow movers' schedule starts at this frame. */
void
MvChangeRefiner::anchor_slow ()
{
  anchored_ = true;
  anchor_ = slow_last_ = frame_;
  for (double * map : slow_maps_)
    std::fill (map, map + 6, 0.0);
}

/* Where this frame's pixels lie in the slow movers' reference frame (of
 * slow_reference (anchor_)). */
const double *
MvChangeRefiner::slow_map () const
{
  return frame_ - anchor_ < (uint64_t) kMvSlowRefresh ? slow_maps_[0]
                                                      : slow_maps_[1];
}

/* The scene image's run (kMvSceneReach and the others): this frame's
 * motion composed into the map, the image set or moved. */
void
MvChangeRefiner::follow_scene (const MvGlobalMotion & global)
{
  scene_moving_ = global.moving;
  if (!change_ || (!scene_on_ && !global.moving))
    return;
  const bool gap = scene_on_ && scene_last_ + 1 != frame_;
  if (scene_on_ && !gap && !global.moving && ++scene_still_ > kMvSceneStill) {
    scene_on_ = false;
    return;
  }
  if (global.moving)
    scene_still_ = 0;
  /* c (x), where this frame's content at x was in the previous frame;
   * the map after it. */
  double c[6], n[6];
  sample_motion (global, c);
  compose_displacements (c, scene_map_, n);
  const match::ChangeConfig & cfg = change_->config ();
  double reach = 0.0;
  for (int k = 0; k < 4; k++) {
    const double x = (k & 1) ? cfg.width : 0.0, y = (k & 2) ? cfg.height : 0.0;
    reach = std::max (reach,
        std::hypot (n[0] + n[1] * x + n[2] * y, n[3] + n[4] * x + n[5] * y));
  }
  const int every = std::max (cfg.background_every, 1);
  if (!scene_on_ || gap
      || reach > kMvSceneReach * std::min (cfg.width, cfg.height)) {
    const int64_t none[6] = {};
    scene_on_ = (bool) change_->scene (frame_, none, true, n_threads_);
    std::fill (scene_map_, scene_map_ + 6, 0.0);
    scene_set_ = frame_;
  } else {
    std::copy (n, n + 6, scene_map_);
    if ((frame_ - scene_set_) % every == 0) {
      /* Where the scene's cells lie in this frame: the map's inverse. A
       * scene cell s holds this frame's x where s = x + map (x) = (I + A)
       * x + t, so x - s = ((I + A)^-1 - I) s - (I + A)^-1 t. */
      const double a11 = 1.0 + n[1], a12 = n[2], a21 = n[4], a22 = 1.0 + n[5];
      const double det = a11 * a22 - a12 * a21;
      if (std::fabs (det) < 1e-6) {
        scene_on_ = false;
        return;
      }
      const double i11 = a22 / det, i12 = -a12 / det, i21 = -a21 / det,
                   i22 = a11 / det;
      const double inv[6] = { -(i11 * n[0] + i12 * n[3]), i11 - 1.0, i12,
        -(i21 * n[0] + i22 * n[3]), i21, i22 - 1.0 };
      int64_t m[6];
      stage_motion (inv, m);
      scene_on_ = (bool) change_->scene (frame_, m, false, n_threads_);
    }
  }
  scene_last_ = frame_;
}

/* This frame against the one *age frames back (at most kMvCameraAge, as
 * far as camera () gave the frames between), with the cameras' motions
 * composed: *composed, in the field's convention. */
match::ChangeRequest
MvChangeRefiner::aged_request (const MvGlobalMotion & global, int * age,
    MvGlobalMotion * composed) const
{
  /* As sample positions, c (x): where the content at x was; an older
   * frame's b after it, c (x) + b (x + c (x)). */
  double c[6];
  sample_motion (global, c);
  *age = 1;
  for (uint64_t j = 1; j < (uint64_t) kMvCameraAge && j <= frame_; j++) {
    const int slot = (int) ((frame_ - j) % kMvCameraAge);
    if (camera_frames_[slot] != frame_ - j + 1)
      break;
    double b[6], n[6];
    sample_motion (cameras_[slot], b);
    compose_displacements (c, b, n);
    std::copy (n, n + 6, c);
    ++*age;
  }
  /* Back in the field's convention (the sign is its own inverse). */
  *composed = global;
  const double sign = forward_ ? -1.0 : 1.0;
  for (int k = 0; k < 6; k++)
    composed->a[k] = sign * c[k];
  match::ChangeRequest r;
  stage_motion (c, r.motion);
  r.frame = frame_;
  r.age = (uint32_t) *age;
  return r;
}

/* A box's motion as the compared frame's position of its content, in
 * working pixels (as the camera's above). */
void
MvChangeRefiner::shift_of (const MvBoxMotion & m, int * x, int * y) const
{
  const double to_prev = (forward_ ? -1.0 : 1.0) / change_->config ().scale;
  *x = (int) llround (m.dx * to_prev);
  *y = (int) llround (m.dy * to_prev);
}

/* Step 3b's relit blocks: the least-squares fit of W = g P + o + a x + c y
 * (headlights over flat ground: no texture in P, and a gradient of light
 * that a plane takes) leaves little of the change, with a gain that light
 * gives (the constants above). */
bool
mv_relit (const match::ChangeLightSums & s, int cols, int rows, int offset,
    int noise)
{
  const double n = (double) cols * rows;
  if (n < 4)
    return false;
  /* Centred sums: of x, y over the cells (uncorrelated over a rectangle),
   * of P, W over the tile. */
  const double sx = rows * (cols - 1.0) * cols / 2.0;
  const double sy = cols * (rows - 1.0) * rows / 2.0;
  const double sxx = rows * (cols - 1.0) * cols * (2.0 * cols - 1.0) / 6.0;
  const double syy = cols * (rows - 1.0) * rows * (2.0 * rows - 1.0) / 6.0;
  const double p = (double) s.p, w = (double) s.w;
  const double cxx = sxx - sx * sx / n, cyy = syy - sy * sy / n;
  const double cpp = (double) s.pp - p * p / n;
  const double cpx = (double) s.xp - p * sx / n,
               cpy = (double) s.yp - p * sy / n;
  const double cwp = (double) s.pw - p * w / n;
  const double cwx = (double) s.xw - w * sx / n,
               cwy = (double) s.yw - w * sy / n;
  const double cww = (double) s.ww - w * w / n;
  /* The raw change, d's sum of squares. */
  const double raw = (double) s.ww - 2.0 * (double) s.pw + (double) s.pp
      - 2.0 * offset * (w - p) + n * offset * offset;
  /* Least squares of W on P, x and y: the plane taken out of W and P
   * first, then W on P's rest; on x and y alone where that rest is flat.
   * A tile one cell wide or high fits W's mean only. */
  double fit = cww;
  double gain = 1.0;
  if (cxx > 0 && cyy > 0) {
    const double vp = cpp - cpx * cpx / cxx - cpy * cpy / cyy;
    const double cv = cwp - cpx * cwx / cxx - cpy * cwy / cyy;
    fit = cww - cwx * cwx / cxx - cwy * cwy / cyy;
    if (cpp > n && vp > 1e-9 * cpp) {
      gain = cv / vp;
      fit -= gain * cv;
    }
  }
  const double level = noise + 1.0;
  return gain > kRelitGainMin && gain < kRelitGainMax
      && fit <= kRelitLevel * level * level * n && kRelitShare * fit < raw;
}

bool
MvChangeRefiner::block_changes (const MvBlockGrid & grid,
    const MvGlobalMotion & global, const std::vector<int> & which,
    const std::vector<MvBoxMotion> & motions, std::vector<int64_t> & pixels,
    std::vector<int64_t> * extents, int extent_reach,
    std::vector<uint8_t> * relit)
{
  if (!change_)
    return false;
  /* With a moving camera against an older frame (kMvCameraAge): each
   * block's content was where the cameras' composed motion and its own
   * motion over the scene, that many times, put it. Against the previous
   * frame where the stage no longer holds the older one. */
  int age = 1;
  MvGlobalMotion composed;
  match::ChangeRequest r = global.moving
      ? aged_request (global, &age, &composed)
      : camera_request (global);
  for (;;) {
    r.tile_width = grid.block_width;
    r.tile_height = grid.block_height;
    r.extent_reach = extents ? extent_reach : 0;
    r.light = relit != nullptr;
    tiles_.resize (which.size ());
    for (size_t k = 0; k < which.size (); k++) {
      tiles_[k].index = which[k];
      tiles_[k].explain = true;
      MvBoxMotion m = motions[k];
      if (age > 1) {
        const MvRect rect = mv_block_rect (grid, which[k] % grid.columns,
            which[k] / grid.columns);
        const double x = rect.x + rect.w * 0.5, y = rect.y + rect.h * 0.5;
        m.dx = composed.dx_at (x, y) + age * (m.dx - global.dx_at (x, y));
        m.dy = composed.dy_at (x, y) + age * (m.dy - global.dy_at (x, y));
      }
      shift_of (m, &tiles_[k].shift_x, &tiles_[k].shift_y);
    }
    r.tiles = tiles_.data ();
    r.n_tiles = (int) tiles_.size ();
    if (change_->analyse (r, &result_, n_threads_)
        && result_.tiles.size () == which.size ())
      break;
    if (age == 1)
      return false;
    age = 1;
    r = camera_request (global);
  }
  pixels.assign (result_.tiles.begin (), result_.tiles.end ());
  if (extents)
    extents->assign (result_.extents.begin (), result_.extents.end ());
  if (relit) {
    relit->clear ();
    if (result_.light.size () == which.size ()) {
      /* The block's working cells (match/change.h). */
      const int s = change_->config ().scale;
      for (size_t k = 0; k < which.size (); k++) {
        const MvRect rect = mv_block_rect (grid, which[k] % grid.columns,
            which[k] / grid.columns);
        const int cols = (rect.x + rect.w + s - 1) / s - rect.x / s;
        const int rows = (rect.y + rect.h + s - 1) / s - rect.y / s;
        relit->push_back (result_.tiles[k] > 0
            && mv_relit (result_.light[k], cols, rows, result_.offset,
                result_.noise));
      }
    }
  }
  return true;
}

/* The slow movers' reference: the first frame of the schedule (after a
 * start or a restart) until the frame 2 kMvSlowRefresh on, then every
 * kMvSlowRefresh frames the frame kMvSlowRefresh before: between 1 and 2
 * kMvSlowRefresh frames old. A reference is kept fixed rather than
 * sliding (always N frames back) so that the ghost an object leaves where
 * it was at the reference's time stays in place (and is not confirmed,
 * lacking travel) instead of following the object. */
bool
MvChangeRefiner::slow_request (match::ChangeRequest * r)
{
  if (!change_)
    return false;
  if (!anchored_ || frame_ < anchor_)
    anchor_slow ();
  return slow_reference (anchor_, r);
}

/* The request against the reference of the schedule started at `anchor`;
 * false when that is too young. */
bool
MvChangeRefiner::slow_reference (uint64_t anchor,
    match::ChangeRequest * r) const
{
  const uint64_t p = frame_ - anchor, k = kMvSlowRefresh;
  const uint64_t reference = anchor + (p >= 2 * k ? (p / k - 1) * k : 0);
  if (frame_ - reference < (uint64_t) kMvSlowMinAge)
    return false;
  r->frame = frame_;
  r->age = (uint32_t) (frame_ - reference);
  if (anchored_ && anchor == anchor_)
    stage_motion (slow_map (), r->motion);
  return true;
}

/* The request slow_blocks () will make, as it will make it (the schedule
 * is left as it is: the frame may yet restart it). */
void
MvChangeRefiner::slow_blocks_ahead (const MvBlockGrid & grid)
{
  match::ChangeRequest r;
  /* With the camera moving this frame's motion is not known yet. */
  if (!change_ || scene_moving_ || map_moves (slow_maps_[0])
      || map_moves (slow_maps_[1])
      || !slow_reference (anchored_ && frame_ >= anchor_ ? anchor_ : frame_,
          &r))
    return;
  r.tile_width = grid.block_width;
  r.tile_height = grid.block_height;
  /* A failure here is the analysis' to report, when it is asked. */
  (void) change_->prefetch (r);
}

bool
MvChangeRefiner::refine_background (std::vector<MvRect> & boxes,
    std::vector<uint8_t> & moved, std::vector<int64_t> & changed)
{
  if (!change_ || change_->config ().background_every == 0)
    return false;
  match::ChangeRequest r;
  if (scene_moving_) {
    if (!scene_on_ || frame_ - scene_set_ < kMvSceneWarmup)
      return false;
    r.scene = true;
    stage_motion (scene_map_, r.motion);
  } else {
    r.background = true;
  }
  r.frame = frame_;
  return analyse (r, boxes, moved, changed);
}

bool
MvChangeRefiner::refine_slow (std::vector<MvRect> & boxes,
    std::vector<uint8_t> & moved, std::vector<int64_t> & changed, int * age)
{
  match::ChangeRequest r;
  if (!slow_request (&r))
    return false;
  if (!analyse (r, boxes, moved, changed)) {
    /* Not kept (a reset, a gap in the numbers): start again from here. */
    anchor_slow ();
    return false;
  }
  *age = (int) r.age;
  return true;
}

bool
MvChangeRefiner::slow_blocks (const MvBlockGrid & grid,
    std::vector<int64_t> & pixels, int * age)
{
  match::ChangeRequest r;
  if (!slow_request (&r))
    return false;
  r.tile_width = grid.block_width;
  r.tile_height = grid.block_height;
  if (!change_->analyse (r, &result_, n_threads_)
      || result_.tiles.size () != (size_t) grid.columns * grid.rows) {
    anchor_slow ();
    return false;
  }
  pixels.assign (result_.tiles.begin (), result_.tiles.end ());
  *age = (int) r.age;
  /* With the camera moved since the reference, a block whose content lay
   * outside that frame was compared with its clamped border (a pan's
   * newly seen side): no answer (0). */
  const double * m = slow_map ();
  if (!map_moves (m))
    return true;
  const double w = grid.frame_width - 1.0, h = grid.frame_height - 1.0;
  for (int row = 0, i = 0; row < grid.rows; ++row)
    for (int col = 0; col < grid.columns; ++col, ++i) {
      const MvRect b = mv_block_rect (grid, col, row);
      for (int k = 0; k < 4; ++k) {
        const double x = b.x + ((k & 1) ? b.w - 1 : 0);
        const double y = b.y + ((k & 2) ? b.h - 1 : 0);
        const double sx = x + m[0] + m[1] * x + m[2] * y;
        const double sy = y + m[3] + m[4] * x + m[5] * y;
        if (sx < 0.0 || sy < 0.0 || sx > w || sy > h) {
          pixels[i] = 0;
          break;
        }
      }
    }
  return true;
}

/* The defaults of block_changes () and slow_blocks (): `ask` (refine ()
 * or refine_slow ()) for the rectangles of blocks `which` (every block
 * when null); a block not moved has 0 pixels. They allocate: they serve
 * refiners without a stage of their own (tests). */
template <typename Ask>
static bool
ask_block_rects (const MvBlockGrid & g, const std::vector<int> * which,
    std::vector<int64_t> & pixels, Ask ask)
{
  const int n = which ? (int) which->size () : g.columns * g.rows;
  std::vector<MvRect> boxes;
  for (int k = 0; k < n; ++k) {
    const int i = which ? (*which)[k] : k;
    boxes.push_back (mv_block_rect (g, i % g.columns, i / g.columns));
  }
  std::vector<uint8_t> moved (boxes.size (), 1);
  pixels.assign (boxes.size (), 0);
  if (!ask (boxes, moved, pixels))
    return false;
  for (size_t k = 0; k < boxes.size (); ++k)
    if (!moved[k])
      pixels[k] = 0;
  return true;
}

bool
MvBoxRefiner::block_changes (const MvBlockGrid & g,
    const MvGlobalMotion & global, const std::vector<int> & which,
    const std::vector<MvBoxMotion> & motions, std::vector<int64_t> & pixels,
    std::vector<int64_t> * extents, int extent_reach,
    std::vector<uint8_t> * relit)
{
  (void) extent_reach;
  if (extents)
    extents->clear ();
  if (relit)
    relit->clear ();
  return ask_block_rects (g, &which, pixels,
      [&] (std::vector<MvRect> & boxes, std::vector<uint8_t> & moved,
          std::vector<int64_t> & px) {
        return refine (global, boxes, moved, px, &motions);
      });
}

bool
MvBoxRefiner::slow_blocks (const MvBlockGrid & g, std::vector<int64_t> & pixels,
    int * age)
{
  return ask_block_rects (g, nullptr, pixels,
      [&] (std::vector<MvRect> & boxes, std::vector<uint8_t> & moved,
          std::vector<int64_t> & px) {
        return refine_slow (boxes, moved, px, age);
      });
}

bool
MvChangeRefiner::analyse (const match::ChangeRequest & request,
    std::vector<MvRect> & boxes, std::vector<uint8_t> & moved,
    std::vector<int64_t> & changed, const std::vector<MvBoxMotion> * motions,
    std::vector<int> * cuts, bool edges)
{
  const match::ChangeConfig & c = change_->config ();
  match::ChangeRequest r = request;
  boxes_.clear ();
  for (size_t k = 0; k < boxes.size (); k++) {
    const MvRect & b = boxes[k];
    match::ChangeBox cb;
    cb.x = b.x;
    cb.y = b.y;
    cb.w = b.w;
    cb.h = b.h;
    if (motions) {
      cb.explain = true;
      shift_of ((*motions)[k], &cb.shift_x, &cb.shift_y);
    }
    boxes_.push_back (cb);
  }
  r.boxes = boxes_.data ();
  r.n_boxes = (int) boxes_.size ();
  if (!change_->analyse (r, &result_, n_threads_))
    return false;
  /* An answer for every box, whatever the caller sized. */
  if (moved.size () < boxes.size ())
    moved.resize (boxes.size (), 0);
  if (changed.size () < boxes.size ())
    changed.resize (boxes.size (), 0);
  if (cuts)
    cuts->assign (2 * boxes.size (), -1);
  const int min_gap = std::max (2, (kMinGapPixels + c.scale - 1) / c.scale);
  for (size_t k = 0; k < boxes.size (); k++) {
    const match::ChangeBoxCells & cells = result_.boxes[k];
    const uint32_t * rows = result_.counts.data () + cells.offset;
    const uint32_t * cols = rows + cells.rows;
    /* Each box shrinks to its trimmed change (match/change.h): its rim
     * is where sparse changes sit that are not the object's body, a
     * shadow's soft edge, the road its trail uncovered where it is flat
     * (explained by the box's motion like the object), noise and rain
     * streaks next to it, a mirror. Measured (box F,
     * bench/surveillance.py), the share kept (kChangeTrimShare) a tenth
     * -> a quarter: highway 0.750 -> 0.795, hw-rain 0.711 -> 0.777,
     * hw-shake 0.688 -> 0.693, comp-pair 0.874 -> 0.880, every other clip
     * up too; a third gained more on the highway but cut into the
     * objects' own sparser rows and columns: recall on the composited
     * people (comp-windy) 0.95 -> 0.91, under sensor noise (hw-noise)
     * 0.84 -> 0.78.
     * With `edges`, a box on the frame's edge keeps the rows (columns)
     * out to it where each holds a changed pixel (change_trim ()): an
     * object coming in or going out continues beyond the frame, and where
     * it is of one colour its rows there change only in thin bands along
     * its sides, which the trim takes for a rim (an ellipse of one colour
     * rising from the bottom edge lost its lower 20 px). Measured (box F,
     * bench/README.md "Boxes at the frame's edge"): the composited pairs
     * 0.855 -> 0.875 and 0.852 -> 0.873, a windy composite 0.826 ->
     * 0.853, the 28 clips 0.815 -> 0.818. */
    match::ChangeTrim trim;
    const unsigned sides = edges
        ? match::change_box_edges (cells, c.work_width (), c.work_height ())
        : 0u;
    moved[k] = match::change_trim (boxes_[k], cells, rows, cols, c.scale, &trim,
        sides);
    if (!moved[k])
      continue;
    if (cuts) {
      /* The wider of the two axes' gaps, as a frame coordinate. */
      int gx, gy;
      const int cx = widest_gap (cols, trim.c0, trim.c1, min_gap, &gx);
      const int cy = widest_gap (rows, trim.r0, trim.r1, min_gap, &gy);
      if (cx >= 0 && gx >= gy)
        (*cuts)[2 * k] = (cells.x0 + cx) * c.scale + c.scale / 2;
      else if (cy >= 0)
        (*cuts)[2 * k + 1] = (cells.y0 + cy) * c.scale + c.scale / 2;
    }
    boxes[k] = MvRect{ trim.x, trim.y, trim.w, trim.h };
    changed[k] = trim.pixels;
  }
  return true;
}
