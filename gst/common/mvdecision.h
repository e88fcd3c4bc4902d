/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The surveillance decision on a block motion field: which blocks are
 * moving objects, one region per object with a stable track id, and
 * whether the scene has motion at all. Plain C++ (no GLib or GStreamer),
 * the same for every estimator and backend: it reads the field, which the
 * meta carries in host memory on every backend, in O(blocks) per frame,
 * and, where the caller has them, asks the frame's pixels to tighten its
 * boxes (step 3b, MvBoxRefiner) and to find objects too slow for the field
 * (step 3c). gst/common/mvevents.* turns its output
 * into metas, messages and motion events; docs/motion-events.md says what
 * users see; bench/bench_decision measures its cost.
 *
 * Per frame, in order:
 *
 * 1. Global motion. A robust affine fit of the valid vectors (iteratively
 *    reweighted least squares with Tukey weights, started from the
 *    component-wise median; with a moving camera vectors up to 2 px off
 *    still weigh, so that an integer field's rounding gives a sub-pixel
 *    fit, as they do where kStepOffShare of the vectors are a step off
 *    zero): the camera's shake or pan. Blocks are judged
 *    on their RESIDUAL, vector minus global motion, so a shaking camera
 *    moves no block by itself. A fit that explains less than a third of
 *    the blocks, or moves nowhere by more than a tenth of a pixel, is taken
 *    as zero (a still camera).
 * 2. Candidate blocks: valid, not masked, residual at least `threshold`
 *    long (plus the field's grid step when the camera moves: the residual
 *    of an integer field under sub-pixel shake is off by up to a step;
 *    with the pixels, a residual under that is a candidate once step 3b
 *    finds its block changed, and counts for no scene-wide change).
 * 3. Candidate regions: candidates grouped by 8-connectivity, but only
 *    between neighbours whose vectors agree (difference at most
 *    max (kSplitMin, kSplitRel x the longer one)): two objects side by
 *    side that move differently stay apart. With the pixels (3b's first
 *    half), the grouping passes on only through blocks with 1/kCarryChanged
 *    of their pixels changed; a candidate with fewer is an edge of the
 *    region it touches (falling snow's flakes joined cars). Then fragments
 *    moving together (boxes touching or overlapping, mean vectors agreeing
 *    the same way) are merged, but for a lone block that carries nothing
 *    beside a region that carries.
 * 3b. The pixels, when the caller has them
 *    (MvBoxRefiner, the change stage of match/change.h): each region's
 *    box shrinks to its changed pixels against the camera-compensated
 *    previous frame, a region with no changed pixel is dropped (its
 *    vectors moved, its content did not: noise on a flat area, a
 *    brightness change), and regions whose shrunk boxes mostly overlap
 *    are merged (one object whose vectors disagreed). A block's or a
 *    region's changed pixels count only where its own vector explains
 *    them (MvBoxMotion, ChangeBox::explain): rain, flicker and noise do
 *    not move with it. A uniform object changes only along its edges, a
 *    band as wide as its motion: a block moving |v| px a frame also counts
 *    (and seeds) with that band changed (edge_band ()). A block whose
 *    content stayed where it was under a change of light (a lamp,
 *    headlights: mv_relit ()) does not count. A region whose
 *    explained changed pixels leave a gap of kMinGapPixels across it is
 *    two objects (side by side, moving alike, touching at the block
 *    size): cut in the gap's middle, each part's box shrunk again (one
 *    level). Before the cut, each box loses its trailing band: the
 *    background its object uncovered, as wide as the region's residual
 *    (trim_trailing_band ()). With a still camera, a box on the frame's
 *    edge keeps the rows (columns) out to it where each holds a changed
 *    pixel: an object coming in or going out continues beyond the frame,
 *    and a body of one colour changes there only along its sides.
 *    Once the change stage's background has seen
 *    a few frames of a still camera, the regions' changed pixels leave out
 *    those whose content departed (a rain streak of the previous frame,
 *    which the flat background beside an object explains as well as the
 *    object: ChangeRequest::departed); with a moving camera, they are the
 *    differences with the compensated frame itself, without the warp's
 *    tolerance of a pixel, which took the bands of objects moving a pixel
 *    or two a frame (ChangeRequest::sharp). With a moving camera, the
 *    candidate blocks are judged against the frame kMvCameraAge back,
 *    the camera's motions of the frames between composed: an object
 *    moving a pixel or two a frame over the scene hardly changes against
 *    the previous frame once the warp's tolerance is forgiven. With a
 *    still camera, a candidate block's explained change must also run
 *    kMvBlockExtent working cells in one 8-connected piece
 *    (ChangeRequest::extent_reach): falling snow changes spots a few
 *    cells across; kMvSnowExtent while many blocks change in such spots
 *    (heavy snow overlaps them). A body of one colour
 *    larger than a few blocks (a van's side) shows as two fragments, its
 *    leading and trailing edges, with blocks that neither match nor change
 *    between them: refined regions moving alike, side by side, whose gap
 *    differs from step 7's background image (or scene image) on three
 *    quarters of it or more are merged (bridge_fragments (): road between
 *    two cars moving alike differs where traffic darkened the background,
 *    rarely over so much of it).
 * 3c. Slow movers, with the pixels: an object moving well under a pixel
 *    a frame has a zero integer vector and hardly changes between two
 *    frames, but against a frame 16 to 31 frames back
 *    (MvBoxRefiner::refine_slow; the reference is refreshed every
 *    kMvSlowRefresh frames, restarted when the scene changes, and when the
 *    camera moves unless the refiner composes its motions since the
 *    reference: MvBoxRefiner::slow_follows_camera ()) its pixels did.
 *    Every block outside the vector regions of step 3 is asked against
 *    that reference; one with 1/kBlockChanged of its pixels changed (1/8
 *    with the camera moved since the reference, whose composed warp is
 *    off by up to a pixel) is a SLOW candidate, unless it was in a confirmed
 *    vector track's region since the reference's time (the ghost of an
 *    object that moved on, the trail of a faster one; a tentative track's
 *    blocks stay candidates: an object at 0.5 to 1 px a frame has vectors
 *    on some of its blocks and frames only).
 *    More than kSceneWide of the blocks changed: a scene-wide change since
 *    the reference, which restarts. Slow candidates are grouped by
 *    8-connectivity (no vector to agree on), need a seed as in 3b, are
 *    dropped when they touch a vector region (part of a faster object),
 *    and their boxes shrink to their changed pixels against the reference:
 *    a slow region spans the object now and where it was at the
 *    reference's time (the box shown leaves that trail out, step 7).
 *    Why a fixed reference rather than one always N frames back: an
 *    object's ghost then stays in place and lacks travel, instead of
 *    following it. Why not sub-pixel search: it costs on every
 *    block what a few slow objects need.
 * 4. A scene-wide change: when more than kSceneWide of the valid blocks
 *    are candidates (lights switching, an IR switch or auto-exposure
 *    scramble flat areas' vectors), the slow movers' reference and the
 *    background restart, and the tracks a region does not match on that
 *    frame wait instead of ageing. The frame is not judged (no region, no
 *    track update) when, with the pixels, more than kSceneWide of the
 *    blocks are still candidates after step 3b's first half (without
 *    them, always): a gain flickering from frame to frame scrambles the
 *    vectors of most frames, not their pixels. Nor is a frame whose
 *    camera moved beyond the search's reach (MvDecisionParams::reach_x,
 *    reach_y): more than kBeyondReach of the valid blocks lie within a
 *    pixel of one side of it, the fit's motion at the frame's centre
 *    there too (a camera shaking further than the search: the fit and
 *    every residual would be wrong); what follows the camera's motions
 *    (3c's reference, 7's scene image) takes the fit. A side so crowded
 *    with no motion fitted (a camera far beyond, or a light's step) is
 *    not judged either and restarts as a scene-wide change.
 * 5. Tracks. Each candidate region is matched to a track whose box,
 *    moved by its velocity and by the camera's motion there, overlaps it
 *    (intersection / smaller box >= kMatchOverlap), greedily, best
 *    intersection over union first (a track keeps its object rather than a
 *    sliver of its edge). A part of
 *    a region cut in two (3b) whose other part a confirmed track took is
 *    another object of that track: confirmed at once, with its age, under
 *    a new id. Another unmatched region starts a tentative track unless
 *    most of its blocks are clutter (below). A track is CONFIRMED once, at
 *    once:
 *    - it has lived `persistence` (nanoseconds of stream time) with at
 *      least kMinHits matched frames,
 *    - its net displacement (sum of its per-frame motion) is at least
 *      `min_displacement` pixels,
 *    - it is coherent: net displacement / path length >= kCoherence
 *      (swaying leaves, rain, flicker go back and forth),
 *    - and its box centre travelled as its vectors and the camera did
 *      (kBoxTravel: wrong vectors in the background an object uncovers
 *      travel with it).
 *    It stays confirmed while coherent over its whole path (net
 *    displacement at least kDemoteCoherence of the path summed by chunks
 *    of kPathChunk frames): swaying in place, confirmed in its first
 *    swing, goes back to tentative (its blocks become clutter and its
 *    area is remembered as swaying, step 6). A part cut off a region
 *    (3b) inherits a confirmed track only if it moves as that track does.
 *    A track that is not matched coasts along its velocity: a confirmed
 *    one for `coast` nanoseconds (a car lost for a few frames keeps its id
 *    and motion stays on), a tentative one for kTentativeMisses frames,
 *    not counting the frames where most vectors scrambled, nor, for a
 *    slow track, those where a slow region over its box was dropped
 *    beside vectors moving its way, or where a vector region about its box
 *    (kSlowWaitIou) moves its way (its object, at 0.5 to 1 px a frame,
 *    matched on some blocks).
 *    Slow regions (3c) continue slow tracks only, of about their size, and
 *    vector regions vector tracks only. A slow track has no vector to sum:
 *    its velocity is that of its box centre (smoothed), and it is
 *    CONFIRMED once it has lived `slow_persistence` (1 s at sensitivity
 *    50: longer than the half swing of most branches, which look the same
 *    until they turn back) and the least squares line of its box centres
 *    over time runs at least `min_displacement` pixels, with the centres
 *    within kSlowScatter of that travel from it and the box growing at
 *    most kSlowGrowth times as fast as the centre moves (a rigid object's
 *    box since the reference grows at twice the speed of its centre;
 *    a swaying tree's spreads every way), the centre moving at most
 *    kSlowSpeed pixels a frame (half the object's speed, under the
 *    field's pixel), or at most kSlowRigidSpeed where the box keeps its
 *    size (grows by at most kSlowRigid of the centre's travel: the object
 *    alone, or its boxes over the reference's refreshes); twice those
 *    speeds where the camera moves (kSlowCameraSpeedup: the residual of
 *    an integer field over the camera's motion is a pixel off now and
 *    then, so vectors see an object only from about 2 px a frame). A
 *    lone box far off the size of the track's last ones (kSlowOddSize:
 *    half its object lost, or the change beside it taken in, for a frame,
 *    as under a moving camera) is matched but left out of those lines. It
 *    stays confirmed while its centres over its whole life keep within
 *    kSlowDemoteScatter of their travel from that line: a tree swaying
 *    under a pixel a frame, confirmed in a half swing, stays where it is
 *    or comes back, and is taken back as a vector track swaying in place
 *    is (its area sways, step 6).
 * 6. Clutter: every block keeps a level in [0, 1] that rises while it is a
 *    candidate outside any confirmed track and falls otherwise (time
 *    constant kClutterFrames frames). A region mostly made of clutter
 *    blocks (leaves, water, a flag) starts no track: such areas are
 *    learnt as dynamic background. A confirmed track still crosses them.
 *    Slow candidates have their own level, slower (kSlowClutterFrames: a
 *    slow mover stays on its blocks for seconds before it is confirmed):
 *    a slow region mostly of slow clutter (branches swaying under a pixel
 *    a frame) starts no track, confirms none, and demotes a confirmed
 *    slow track back to tentative.
 *    Sway: a track demoted for swaying in place (step 5) was confirmed in
 *    one swing and would be again in the next, a second later, before
 *    the clutter level (which a confirmed track holds down) is learnt.
 *    So every block under the whole span of its boxes is remembered as
 *    swaying (a level set to 1, falling with time constant kSwayFrames)
 *    and counts as clutter; a block still a candidate outside confirmed
 *    tracks keeps the memory at 1 while it is above kClutterLevel. A
 *    branch in the wind then posts one false region, in its first swing,
 *    not one a swing; a new object that starts moving in such an area
 *    starts its track once it leaves it (or the area has been still for
 *    about 0.7 kSwayFrames frames), an object crossing it keeps its own.
 *    Brief runs: foliage whose branches swing at different phases, and
 *    water, show waves that run one way for a second at most and start
 *    again in the same place (their way back stays under the field's
 *    pixel): such a track is lost, not demoted. With a still camera, a
 *    confirmed vector track dropped within kBriefLife of its birth leaves
 *    its motion on the blocks under the span of its boxes (a level set to
 *    1, falling with time constant kBriefFrames). A track that would be
 *    confirmed where most of its box's blocks remember a motion that
 *    agrees with its own is the same run again: it is not confirmed, and
 *    its area is remembered as swaying.
 * 7. Held boxes, with the pixels. The inside of a body
 *    of one colour neither matches nor changes between frames: on some
 *    frames only its textured parts or its edges are boxed, on others all
 *    of it. A confirmed vector track whose motion is steady (no frame of
 *    its last kHoldFrames moved back against their net motion: a branch's
 *    swing turns) keeps the size it reached on a quarter of those frames;
 *    the held box (as near its last shown box, moved by its velocity, as
 *    containing this frame's box allows) is asked against the background
 *    image, the still scene without what moves through it (the change
 *    stage's approximate running median, restarted when the camera moves
 *    or the scene changes, used once it has seen kHoldWarmup frames), and
 *    shrunk to its trimmed change there as in 3b. Where at least half of
 *    that box differs from the background (a body does nearly everywhere,
 *    rain or leaves beside the object sparsely), the region's box is its
 *    own box joined with it. A box shown out to the frame's edge behind
 *    its motion (an object coming in, which continues beyond the frame
 *    and whose body of one colour changes there in thin bands at most)
 *    asks the strip from its measured box out to that edge as well (as
 *    wide as the box, and a block wider either side), with a still
 *    camera: where half of it differs and it runs on from the box
 *    (kEntryNear), the box shown takes it in. Tracking and the MOVING
 *    blocks are as measured; only the box shown grows. With a moving
 *    camera the held box is asked against the scene image instead: a
 *    background kept in the coordinates of the first moving frame, each
 *    frame sampled where the cameras' motions composed since then put it
 *    (kMvSceneReach and the others below). Against the frame kMvCameraAge
 *    back, a body of one colour moving a pixel or two a frame under shake
 *    changes only in bands at its edges; against the scene, all of it
 *    does. There a steady track whose box measured is thinner than a
 *    block (such a band) also asks it a block wider either side across
 *    that side. Last, with a still camera and frames with chroma, the boxes
 *    shown of confirmed tracks (kColourSpeed or faster, not slow ones)
 *    grow over the connected colour next to them that differs from a
 *    colour background kept beside the luma's (mvcolour.h): a body whose
 *    luma is the ground's differs there in colour. A confirmed slow
 *    track's box shown leaves out the trail its region spans since the
 *    slow movers' reference (its line's velocity times the reference's
 *    age, at most half the box), the camera still or moving since then;
 *    one unfound on a frame is shown where it coasts to as a steady
 *    vector track is (its confirmed line is its steadiness).
 *
 * Output: the regions of the confirmed tracks matched on this frame (box,
 * mean vector, blocks, track id, age, velocity) and a MOVING decision per
 * block (a candidate block of such a region). A region's `pixels` are its
 * changed pixels when step 3b ran, else the pixels of its blocks, at most
 * the area of its box, which is the one step 7 shows.
 * A slow region's mean vector is its track's velocity (in the field's
 * sign).
 *
 * Cost of 7: the background image's update on every kMvBackgroundEvery-th
 * frame pushed (one pass over the working image), and on the frames where
 * a track's box is held, one request more (its held boxes). With a moving
 * camera the scene image's update on every kMvBackgroundEvery-th frame (a
 * warp of the working image), and the held boxes' request warps it. The
 * colour: a pass over the chroma's cells every kMvBackgroundEvery-th
 * frame, and the cells the boxes' fills reach (host memory, host code).
 *
 * Cost of 3c: a second difference image a frame in the change stage (the
 * frame against the reference) and the trimmed change of every block, the
 * stage's tiles (MvBoxRefiner::slow_blocks: no box per block for the host
 * to build and read); the stage keeps kMvSlowHistory more working images
 * (at most about 150 KB each). bench/bench_decision prints it.
 */
#ifndef __MV_DECISION_H__
#define __MV_DECISION_H__

#include <cmath>
#include <cstdint>
#include <vector>

#include "match/change.h"
#include "mvcolour.h"
#include "mvregions.h"

/* The camera's motion over the field, in the field's sign convention: the
 * vector expected at pixel (x, y) is
 *   dx = a[0] + a[1] x + a[2] y,   dy = a[3] + a[4] x + a[5] y. */
struct MvGlobalMotion
{
  double a[6] = { 0, 0, 0, 0, 0, 0 };
  bool moving = false;  /* false: a still camera, a[] all zero */
  double inliers = 0.0; /* fraction of the valid blocks it explains */

  double dx_at (double x, double y) const
  {
    return a[0] + a[1] * x + a[2] * y;
  }
  double dy_at (double x, double y) const
  {
    return a[3] + a[4] * x + a[5] * y;
  }
};

/* Scratch of the fit, kept between frames (no per-frame allocation). */
struct MvGlobalScratch
{
  std::vector<double> x, y, dx, dy, r, w, tmp;
  /* Tests: the iterations even where the still camera's shortcut gives
   * their result at once. */
  bool full_fit = false;
};

/* Fits the global motion of one field (see the notes at the top).
 * `blocks` has grid.columns * grid.rows entries, `grid` must be valid. */
MvGlobalMotion mv_fit_global_motion (const MvBlockGrid & grid,
    const MvBlock * blocks, MvGlobalScratch * scratch);

/* What the user sets; the rest is derived from `sensitivity`. */
struct MvDecisionParams
{
  double threshold = 1.0; /* residual length, pixels */
  int min_area = 1;       /* blocks */
  const MvRect * mask = nullptr;
  size_t n_mask = 0;
  int sensitivity = 50; /* 0 .. 100 */
  double step = 1.0;    /* the field's grid spacing, 0 = continuous */
  bool forward = false; /* field direction (sign of object motion) */
  /* The search's range, whole pixels (0: not known): a frame whose
   * camera moved beyond it is not judged (step 4). */
  int reach_x = 0;
  int reach_y = 0;
};

/* A region of a confirmed track on this frame. */
struct MvTrackedRegion
{
  MvRegion region;       /* box, mean vector (field convention) ... */
  uint32_t track_id = 0; /* 1, 2, ...: stable while the track lives */
  uint64_t age = 0;      /* ns of stream time since the track began */
  uint32_t frames = 0;   /* frames the track was matched on */
  double vx = 0.0;       /* object velocity, pixels per frame, */
  double vy = 0.0;       /*   x right, y down (smoothed) */
  /* Not matched on this frame: its box where the track coasts to, where
   * the frame differs from the background (step 7). */
  bool coasting = false;
};

/* Whether a tile of cols x rows working cells whose light sums are `s`
 * stayed where it was under a change of light: a least-squares fit of
 * W = g P + o + a x + c y leaves it little change (`offset` and `noise`:
 * the stage's b and noise). */
bool mv_relit (const match::ChangeLightSums & s, int cols, int rows, int offset,
    int noise);

/* Derived constants (documented in docs/motion-events.md). */
struct MvDecisionTuning
{
  uint64_t persistence = 0;      /* ns */
  double min_displacement = 0;   /* pixels */
  uint64_t coast = 0;            /* ns */
  uint64_t slow_persistence = 0; /* ns, a track of slow regions (step 3c) */
};
MvDecisionTuning mv_decision_tuning (int sensitivity);

/* Slow movers (step 3c): the reference frame is refreshed every
 * kMvSlowRefresh frames and is between kMvSlowRefresh and twice that many
 * frames old (younger only after a start or a restart, never under
 * kMvSlowMinAge); the pixel stage keeps kMvSlowHistory frames more for it. */
constexpr int kMvSlowRefresh = 16;
constexpr int kMvSlowMinAge = 4;
constexpr int kMvSlowHistory = 2 * kMvSlowRefresh;
/* Step 7's background image moves one grey level towards every
 * kMvBackgroundEvery-th frame (match/change.h): an object that stops is
 * taken into it after about 4 x its contrast frames (4 s at 30 fps for a
 * contrast of 30), a shadow or a lamp's glow as slowly. */
constexpr int kMvBackgroundEvery = 4;
/* Step 3b's candidate blocks, with a still camera: a block's explained
 * change must run at least kMvBlockExtent working cells (of a working
 * image about 320 x 240: 10 px there, 40 px at 1080p) in one 8-connected
 * piece, looked for up to as far around the block (match/change.h,
 * ChangeRequest::extent_reach). Falling snow changes spots of a few cells,
 * one or several in a block, all moving alike; an object's change, even
 * the band one cell wide along a uniform body's edge, runs on. */
constexpr int kMvBlockExtent = 10;
/* Heavy snow overlaps its flakes into spots longer than kMvBlockExtent:
 * while the scene shows many compact spots (a share of kMvSpotShare of
 * the blocks a frame, smoothed over kMvSpotFrames frames, candidates whose
 * change runs under kMvBlockExtent), a candidate's change must run
 * kMvSnowExtent cells, a 16 px block's side at 320 x 240. Not always:
 * a van of one colour changes in bands that run less far within the
 * window (bench/README.md, "Heavy snow"). */
constexpr int kMvSnowExtent = 16;
constexpr double kMvSpotShare = 0.03;
constexpr double kMvSpotFrames = 30.0;

/* Step 3b's candidate blocks with a moving camera: against the frame
 * kMvCameraAge frames back, the camera's motions of those frames composed
 * (MvChangeRefiner). The stage forgives the warp a working cell either
 * way, and an object moving a pixel or two a frame over the scene moves
 * that little between two frames: its change vanished with it (the
 * composited pair under shake boxed on no frame). Over three frames it
 * has moved three to six, while the warp's error stays within the cell.
 * Measured (bench/README.md, "A moving camera's older frame"): four was
 * no better than three. */
constexpr int kMvCameraAge = 3;

/* Step 7 with a moving camera: the scene image (match/change.h) is set on
 * the first moving frame, in its coordinates, and moved towards every
 * kMvBackgroundEvery-th frame after it, each sampled where the cameras'
 * composed motions put the scene's cells. Set anew where that motion
 * reaches past kMvSceneReach of the frame's smaller side (a pan: the
 * scene would hold less and less of the frame, and errors of the fits add
 * up), and dropped after kMvSceneStill still frames in a row (the still
 * camera's background takes over). Used once it has seen kMvSceneWarmup
 * frames (the first frame's objects are ghosts in it until then). */
constexpr double kMvSceneReach = 0.25;
constexpr uint32_t kMvSceneStill = 30;
constexpr uint32_t kMvSceneWarmup = 30;

/* A box's own motion, a vector of the field (its convention, the camera's
 * motion included): where the box's content was in the previous frame
 * (backward field) or went to in this one (forward). */
struct MvBoxMotion
{
  double dx = 0.0, dy = 0.0;
};

/* What the decision asks of the pixels (steps 3b and 3c). */
class MvBoxRefiner
{
public:
  virtual ~MvBoxRefiner () = default;
  /* For each box (frame pixels): shrinks it in place to its changed
   * pixels (the camera's `global` motion taken out), sets moved[i] = 1 and
   * pixels[i] to the changed pixels inside it, or leaves it and sets
   * moved[i] = 0 when none changed. Returns false when it cannot tell (no
   * pixels for this frame): the boxes stay as they are. `departed` (a
   * still camera): changes whose content went nowhere the box's motion
   * says do not count (match/change.h, ChangeRequest::departed), where
   * the refiner keeps a background; `sharp` (a moving camera): a change is
   * the difference with the camera-compensated frame itself, without the
   * warp's tolerance (ChangeRequest::sharp). */
  virtual bool refine (const MvGlobalMotion & global,
      std::vector<MvRect> & boxes, std::vector<uint8_t> & moved,
      std::vector<int64_t> & pixels,
      const std::vector<MvBoxMotion> * motions = nullptr,
      std::vector<int> * cuts = nullptr, bool departed = false,
      bool sharp = false) = 0;
  /* As refine () against the slow movers' reference, an older frame (step
   * 3c), whose age in frames it sets in *age; with a still camera, or with
   * a moving one where slow_follows_camera (). Returns false when there
   * is none (the default: slow movers are not looked for). */
  virtual bool refine_slow (std::vector<MvRect> & boxes,
      std::vector<uint8_t> & moved, std::vector<int64_t> & pixels, int * age)
  {
    (void) boxes;
    (void) moved;
    (void) pixels;
    (void) age;
    return false;
  }
  /* Step 3b's blocks: for blocks `which` of `grid` (row-major indices),
   * the changed pixels refine () with `global` gives their rectangles,
   * each explained by its motions[k] (0 when not moved). The default asks
   * refine (); a refiner may do better in one pass. `extents`, when not
   * null: each block's extent, up to `extent_reach` (ChangeRequest::
   * extent_reach), where the refiner can tell, else left empty (the
   * default). `relit`, when not null: 1 for each
   * block whose content stayed where it was under a change of light
   * (mv_relit ()) where the refiner can tell, else left empty (the
   * default). */
  virtual bool block_changes (const MvBlockGrid & grid,
      const MvGlobalMotion & global, const std::vector<int> & which,
      const std::vector<MvBoxMotion> & motions, std::vector<int64_t> & pixels,
      std::vector<int64_t> * extents, int extent_reach,
      std::vector<uint8_t> * relit);
  /* Step 3c's blocks: for every block of `grid` (row-major), the changed
   * pixels refine_slow () gives its rectangle (0 when not moved). The
   * default asks refine_slow () for every block; a refiner may do better
   * in one pass. */
  virtual bool slow_blocks (const MvBlockGrid & grid,
      std::vector<int64_t> & pixels, int * age);
  /* This frame's camera motion (step 1), before any request: a refiner
   * may keep the last few to compare with an older frame (the default
   * does nothing). */
  virtual void camera (const MvGlobalMotion & global)
  {
    (void) global;
  }
  /* A hint at the start of a frame: slow_blocks () may follow for `grid`;
   * a refiner may start it now (the default does nothing). */
  virtual void slow_blocks_ahead (const MvBlockGrid & grid)
  {
    (void) grid;
  }
  /* As refine () with a still camera, against the background image: the
   * scene without what moves through it (step 7). Returns false when
   * there is none (the default: boxes are not held). */
  virtual bool refine_background (std::vector<MvRect> & boxes,
      std::vector<uint8_t> & moved, std::vector<int64_t> & pixels)
  {
    (void) boxes;
    (void) moved;
    (void) pixels;
    return false;
  }
  /* Step 7's colour (mvcolour.h), with a still camera's background warm:
   * grows `boxes` over the colour next to them that differs from the
   * background. Returns false when there is no colour (the default). */
  virtual bool grow_by_colour (std::vector<MvRect> & boxes)
  {
    (void) boxes;
    return false;
  }
  /* Every judged frame of a still camera, after the decision: the colour
   * background is set or moved outside `foreground` (the frame's boxes). */
  virtual void settle_colour (const std::vector<MvRect> & foreground)
  {
    (void) foreground;
  }
  /* The background so far is not the scene's (the camera moved, the
   * scene changed, a new stream): the next frame starts it anew. */
  virtual void restart_background ()
  {
  }
  /* The frames so far can no longer be the slow movers' reference (the
   * camera moved, the scene changed): the next one is this frame or a
   * later one. */
  virtual void restart_slow ()
  {
  }
  /* Whether refine_slow () and slow_blocks () take the camera's motions
   * since their reference out (given by camera ()); if not (the default)
   * a moving camera restarts the slow movers' reference on every frame. */
  virtual bool slow_follows_camera () const
  {
    return false;
  }
};

/* The change stage of match/change.h as the decision's pixels: the
 * analysed frame against the one before, with the camera's motion that
 * the decision found, each box shrunk to the trimmed range of its changed
 * pixels (the first and last working rows and columns holding at least a
 * quarter of the largest count: isolated noise pixels, a shadow's soft rim
 * and rain beside the object do not stretch it). */
class MvChangeRefiner : public MvBoxRefiner
{
public:
  /* For the next MvDecision::process (): `change` holds frame number
   * `frame` and the one before; `forward`, the field's direction;
   * `n_threads`, the stage's CPU threads (0 = the default share, as the
   * estimator's). */
  void set (match::ChangeDetector * change, uint64_t frame, bool forward,
      int n_threads = 0)
  {
    change_ = change;
    frame_ = frame;
    forward_ = forward;
    n_threads_ = n_threads;
  }
  bool refine (const MvGlobalMotion & global, std::vector<MvRect> & boxes,
      std::vector<uint8_t> & moved, std::vector<int64_t> & pixels,
      const std::vector<MvBoxMotion> * motions = nullptr,
      std::vector<int> * cuts = nullptr, bool departed = false,
      bool sharp = false) override;
  /* Against frame `reference` below: the schedule of kMvSlowRefresh,
   * counted from the first frame after a start or restart_slow (), with
   * the camera's motions since the reference composed (camera ()). The
   * stage must keep kMvSlowHistory frames more than refine () needs. */
  bool refine_slow (std::vector<MvRect> & boxes, std::vector<uint8_t> & moved,
      std::vector<int64_t> & pixels, int * age) override;
  /* The stage's tiles: no box for the host to build or read. With a
   * moving camera, against the frame kMvCameraAge back where camera ()
   * gave the frames between (fewer where it did not): each block's change
   * is then its motion over the scene times that age, the cameras'
   * composed motion on top (the default, a box per block through refine
   * (), compares with the previous frame). */
  void camera (const MvGlobalMotion & global) override;
  bool block_changes (const MvBlockGrid & grid, const MvGlobalMotion & global,
      const std::vector<int> & which, const std::vector<MvBoxMotion> & motions,
      std::vector<int64_t> & pixels, std::vector<int64_t> * extents,
      int extent_reach, std::vector<uint8_t> * relit) override;
  bool slow_blocks (const MvBlockGrid & grid, std::vector<int64_t> & pixels,
      int * age) override;
  /* The stage computes the tiles (on a GPU) while the field is judged. */
  void slow_blocks_ahead (const MvBlockGrid & grid) override;
  void restart_slow () override
  {
    anchored_ = false;
  }
  bool slow_follows_camera () const override
  {
    return true;
  }
  /* With a still camera against the background image; with a moving one
   * (camera () said so on this frame) against the scene image, once warm
   * (kMvSceneWarmup), the composed motion taking each box to it. */
  bool refine_background (std::vector<MvRect> & boxes,
      std::vector<uint8_t> & moved, std::vector<int64_t> & pixels) override;
  void restart_background () override
  {
    if (change_)
      change_->restart_background ();
    colour_.restart ();
  }
  /* The chroma of the frame of the next MvDecision::process () (null:
   * none, a GRAY8 or RGB frame, or one in CUDA memory); it must stay
   * mapped until then. */
  void set_chroma (const MvChromaView * chroma)
  {
    chroma_ = chroma;
  }
  bool grow_by_colour (std::vector<MvRect> & boxes) override
  {
    return chroma_ && colour_.grow (*chroma_, boxes);
  }
  void settle_colour (const std::vector<MvRect> & foreground) override
  {
    if (chroma_)
      colour_.settle (*chroma_, foreground);
  }

private:
  void follow_scene (const MvGlobalMotion & global);
  void follow_slow (const MvGlobalMotion & global);
  void anchor_slow ();
  const double * slow_map () const;
  void sample_motion (const MvGlobalMotion & global, double c[6]) const;
  void stage_motion (const double c[6], int64_t m[6]) const;
  bool slow_request (match::ChangeRequest * r);
  bool slow_reference (uint64_t anchor, match::ChangeRequest * r) const;
  match::ChangeRequest camera_request (const MvGlobalMotion & global) const;
  match::ChangeRequest aged_request (const MvGlobalMotion & global, int * age,
      MvGlobalMotion * composed) const;
  void shift_of (const MvBoxMotion & m, int * x, int * y) const;
  bool analyse (const match::ChangeRequest & r, std::vector<MvRect> & boxes,
      std::vector<uint8_t> & moved, std::vector<int64_t> & pixels,
      const std::vector<MvBoxMotion> * motions = nullptr,
      std::vector<int> * cuts = nullptr, bool edges = false);

  match::ChangeDetector * change_ = nullptr;
  const MvChromaView * chroma_ = nullptr;
  MvColourBackground colour_;
  uint64_t frame_ = 0;
  bool forward_ = false;
  int n_threads_ = 0;
  bool anchored_ = false;
  uint64_t anchor_ = 0; /* the first frame of the slow schedule */
  /* follow_slow ()'s: the last frame it followed, and where this frame's
   * pixels lie in the schedule's latest reference frame ([0]: anchor_ + j
   * kMvSlowRefresh, the latest such frame) and in the one before ([1]), as
   * the scene map below (all zero while the camera is still). */
  uint64_t slow_last_ = 0;
  double slow_maps_[2][6] = {};
  std::vector<match::ChangeBox> boxes_;
  std::vector<match::ChangeTile> tiles_;
  match::ChangeResult result_;
  /* camera ()'s motions of the last frames, by frame number modulo
   * kMvCameraAge, and each one's frame number plus one (0: none yet). */
  MvGlobalMotion cameras_[kMvCameraAge];
  uint64_t camera_frames_[kMvCameraAge] = {};
  /* follow_scene ()'s: whether the stage's scene image is this run's, the
   * frame that set it and the last one followed, the still frames in a
   * row, whether this frame moved, and where this frame's pixels lie in
   * the scene (a displacement, affine in frame pixels: c[0] + c[1] x +
   * c[2] y, then c[3..5] for y). */
  bool scene_on_ = false;
  uint64_t scene_set_ = 0, scene_last_ = 0;
  uint32_t scene_still_ = 0;
  bool scene_moving_ = false;
  double scene_map_[6] = {};
};

class MvDecision
{
public:
  /* One frame. `t` is its stream time in ns (or UINT64_MAX when unknown:
   * the frame then counts as `frame_duration` after the previous one),
   * `frame_duration` its duration (0 = unknown, 1/30 s is assumed).
   * Returns false, with no output, when the grid is inconsistent. */
  bool process (const MvBlockGrid & grid, const MvBlock * blocks,
      const MvDecisionParams & params, uint64_t t, uint64_t frame_duration,
      MvBoxRefiner * refiner = nullptr);

  /* Forgets tracks, clutter and ids (a flush, a new stream, new caps). */
  void reset ();

  /* Outputs of the last process (). */
  const MvGlobalMotion & global () const
  {
    return global_;
  }
  const std::vector<MvTrackedRegion> & regions () const
  {
    return out_;
  }
  /* One byte per block, 1 = MOVING. */
  const std::vector<uint8_t> & moving () const
  {
    return moving_out_;
  }
  /* Whether any confirmed track is alive (matched or coasting), and the
   * id of the oldest one (0 when none). */
  bool active () const
  {
    return active_id_ != 0;
  }
  uint32_t active_track () const
  {
    return active_id_;
  }
  /* The frame was a scene-wide change (not judged). */
  bool scene_change () const
  {
    return scene_change_;
  }
  /* The global motion at the frame's centre, pixels (step 4's test of a
   * camera beyond the search's reach, and what the element follows). */
  void centre_motion (double * dx, double * dy) const
  {
    *dx = global_.dx_at (grid_.frame_width * 0.5, grid_.frame_height * 0.5);
    *dy = global_.dy_at (grid_.frame_width * 0.5, grid_.frame_height * 0.5);
  }
  /* The frame's camera moved beyond the search's reach (not judged). */
  bool beyond_reach () const
  {
    return beyond_reach_;
  }
  /* Whether the last process () judged its frame: tracks aged, motion
   * may start or stop. */
  bool judged () const
  {
    return !scene_change_ && !beyond_reach_;
  }
  /* Ids of the confirmed tracks this frame took back (swaying in place:
   * step 6), in no particular order. */
  const std::vector<uint32_t> & retracted () const
  {
    return retracted_;
  }

private:
  /* Step 7: the matched frames whose sizes a track's shown box keeps
   * (half a second at 30 fps). */
  static constexpr int kHoldFrames = 16;

  struct Track
  {
    uint32_t id = 0;
    double x = 0, y = 0, w = 0, h = 0; /* box, pixels */
    double vx = 0, vy = 0;             /* object motion per frame */
    double net_x = 0, net_y = 0;       /* summed object motion */
    double camera_x = 0, camera_y = 0; /* summed camera motion at its box */
    double path = 0;                   /* summed |motion| */
    /* The same by chunks of kPathChunk frames (noise within a chunk
     * cancels, a swing's back and forth does not): the finished chunks'
     * and the motion of the chunk under way. */
    double chunk_path = 0;
    double chunk_x = 0, chunk_y = 0;
    uint32_t chunk_frames = 0;
    double chunk_path_now () const
    {
      return chunk_path + std::hypot (chunk_x, chunk_y);
    }
    uint64_t born = 0, last = 0; /* stream time */
    uint32_t hits = 0;
    uint32_t misses = 0;
    uint32_t excused = 0; /* of the misses, those on scrambled frames */
    bool confirmed = false;
    /* Slow movers (step 3c): a track of slow regions, and the least
     * squares lines of the box centre and size over time (seconds since
     * `born`) while tentative (a slow track's while it lives): sums of 1,
     * t, t^2, x, x t, x^2, y, y t, y^2, w, w t, h, h t, with x and y
     * relative to the first centre and the camera's motion (ox, oy) taken
     * out. */
    bool slow = false;
    double cx = 0, cy = 0; /* last matched box centre, moved by the camera */
    double x0 = 0, y0 = 0; /* first one */
    MvRect extent;         /* the union of its matched boxes */
    double s[13] = { 0 };
    double t_first = 0, t_last = 0; /* of the boxes summed */
    void add_box (double t, const MvRect & box, double ox, double oy);
    /* Over the boxes' time span (`span`, seconds), pixels: the net
     * displacement along the centre's line, the rms distance of the
     * centres from it, and the change of size along the size's line;
     * where asked, that line's slopes (`vx`, `vy`, pixels a second: the
     * centre's velocity). All 0 with fewer than two boxes. */
    void box_lines (double * net, double * rms, double * growth, double * span,
        double * vx = nullptr, double * vy = nullptr) const;
    /* Whether that line runs at least `min_displacement` pixels, the
     * centres close to it, the size growing and the centre moving slowly
     * enough (step 5's slow movers; faster where the camera moves); `dt`
     * is a frame's duration. */
    bool slow_travels (double min_displacement, uint64_t dt,
        bool camera_moves) const;
    /* Step 7: where the box shown on its last matched frame is now
     * (moved along with the prediction), and the sizes and motions of
     * its last kHoldFrames matched frames (rings). */
    double shown_x = 0, shown_y = 0;
    MvRect measured, shown;      /* this frame's box, and the one shown */
    bool coasting_shown = false; /* not matched, shown where it coasts */
    /* Step 7: the frame's edges (match::ChangeEdge bits) its box shown
     * on its last matched frame reached behind its motion: an object
     * coming in. */
    unsigned entering = 0;
    uint16_t sizes_w[kHoldFrames] = { 0 }, sizes_h[kHoldFrames] = { 0 };
    float moves_x[kHoldFrames] = { 0 }, moves_y[kHoldFrames] = { 0 };
    uint32_t n_sizes = 0;
    /* Records a matched frame's box and motion (object motion, pixels). */
    void record (const MvRect & box, double ox, double oy);
    /* The value of rank `k` (0: the smallest; with `largest`, the
     * largest) of the last min (n_sizes, kHoldFrames) sizes in `ring`
     * (sizes_w or sizes_h). */
    int size_rank (const uint16_t * ring, uint32_t k, bool largest) const;
    /* Whether `box` is a lone odd size: off the median size of the boxes
     * recorded (at least kSlowOddAfter of them) by more than kSlowOddSize
     * of it on either side, and the first such in kHoldFrames boxes (a
     * slow region that lost part of its object, or took in a neighbour's
     * change, for a frame; one that keeps growing or shrinking is the
     * trend, which its lines must show). Records it as such. */
    bool odd_size (const MvRect & box);
    uint32_t odd_at = 0; /* n_sizes after the last odd box; 0: none */
    /* Steady: none of its last kHoldFrames matched frames (at least
     * kHoldRank) moved back against their net motion (a branch's swing
     * turning, wrong vectors in a sway). */
    bool steady () const;
    /* Its box centre's travel since its first box, the camera's motion
     * taken out. */
    void box_travel (double * dx, double * dy) const;
    /* The box to hold in a frame of `width` x `height`; false when it is
     * not larger than the measured one or the motion is not steady. */
    bool held (int width, int height, MvRect * out) const;
  };

  void candidates (const MvBlockGrid & g, const MvBlock * blocks,
      const MvDecisionParams & p, bool pixels);
  bool block_pixels (const MvBlockGrid & g, MvBoxRefiner * refiner);
  bool slow_blocks (const MvBlockGrid & g, const MvBlock * blocks,
      MvBoxRefiner * refiner);
  bool beyond_reach (const MvBlockGrid & g, const MvBlock * blocks,
      const MvDecisionParams & p, bool * crowded) const;
  void wait_frame (uint64_t t, uint64_t dt);
  void group (const MvBlockGrid & g, bool slow);
  void bridge_fragments (const MvBlockGrid & g, MvBoxRefiner * refiner);
  void refine (const MvBlockGrid & g, const MvDecisionParams & p,
      MvBoxRefiner * refiner, size_t from, bool slow);
  void track (const MvBlockGrid & g, const MvDecisionParams & p, uint64_t t,
      uint64_t dt, MvBoxRefiner * background);
  void show (const MvBlockGrid & g, MvBoxRefiner * background, uint64_t dt);
  void remember_sway (const MvBlockGrid & g, const MvRect & area);
  void remember_brief (const MvBlockGrid & g, const Track & tr);
  bool repeats_brief (const MvBlockGrid & g, const MvRect & box, double vx,
      double vy) const;

  MvGlobalMotion global_;
  std::vector<MvTrackedRegion> out_;
  std::vector<uint8_t> moving_out_;
  uint32_t active_id_ = 0;
  bool scrambled_ = false; /* most vectors moved (step 4) */
  bool scene_change_ = false;
  bool beyond_reach_ = false;

  /* State across frames. */
  std::vector<Track> tracks_;
  std::vector<float> clutter_;
  std::vector<float> slow_clutter_;
  /* Per block, the memory of a track that swayed in place there (step 6). */
  std::vector<float> sway_;
  /* Per block, the memory of a brief run there, and its motion (pixels a
   * frame, step 6). */
  std::vector<float> brief_, brief_vx_, brief_vy_;
  uint32_t next_id_ = 1;
  /* Frames judged with a still camera since the background restarted
   * (saturating). */
  uint32_t still_frames_ = 0;
  /* Frames since the camera last moved (UINT32_MAX: not since a reset). */
  uint32_t since_moved_ = UINT32_MAX;
  /* bridge_fragments ()'s: the pairs (indices into cands_), their gaps,
   * the gaps as the refiner shrinks them, and its answers. */
  std::vector<std::pair<int, int>> gap_pairs_;
  std::vector<MvRect> gaps_, asked_;
  std::vector<uint8_t> gap_moved_;
  std::vector<int64_t> gap_pixels_;
  std::vector<uint32_t> retracted_;
  uint64_t now_ = 0;
  bool have_time_ = false;
  int grid_cols_ = 0, grid_rows_ = 0;

  /* Scratch, kept to avoid per-frame allocation. */
  MvGlobalScratch fit_;
  MvBlockGrid centre_grid_;                 /* the grid of: */
  std::vector<double> centre_x_, centre_y_; /* block centres, pixels */
  std::vector<float> rx_, ry_;              /* residuals */
  std::vector<uint8_t> cand_;  /* kVector, kSlow, kSlowTouching, kLoose, 0 */
  std::vector<int> cand_list_; /* blocks made kVector or kLoose, raster order */
  std::vector<int> slow_list_; /* blocks made kSlow, raster order */
  std::vector<uint8_t> masked_;
  /* Per block, bit k: in a confirmed vector track's region k + 1 frames
   * ago. */
  std::vector<uint64_t> vector_past_;
  size_t n_valid_ = 0, n_cand_ = 0, n_masked_ = 0;
  /* Per block, its region (index into cands_) or -1; labelled_ lists the
   * blocks given one this frame (the others are -1; some may be -1 again,
   * or listed twice), so that the passes over regions' blocks skip the
   * rest of the grid. */
  std::vector<int> label_, labelled_, stack_;
  std::vector<int> by_row_; /* group ()'s regions by first row */
  struct Cand
  {
    MvRegion region;
    int c0, r0, c1, r1; /* block bounds */
    int clutter = 0;    /* clutter blocks */
    int seeds = 0;     /* blocks with 1/seed_share () of their pixels changed */
    int touching = 0;  /* slow: blocks next to a vector region's */
    bool slow = false; /* made of slow blocks (step 3c) */
    bool split = false;   /* a part of a region cut in two (step 3b) */
    bool carries = false; /* has a block that carries (kCarryChanged) */
    int merged_into = -1;
    int track = -1;
  };
  std::vector<Cand> cands_;
  static void absorb (Cand & A, Cand & B, int a);
  int64_t seed_share () const;
  int split (int a, bool along_x, int pos);
  void add_block (Cand & cd, int i, double * sx, double * sy);
  void ask_regions (const std::vector<int> & which);
  void take_refined (const std::vector<int> & which, bool vector, bool forward);
  static void trim_trailing_band (MvRegion & rg, bool forward);
  void recount (Cand & cd, int id);
  MvBlockGrid grid_;
  std::vector<int> cuts_, parts_;
  std::vector<MvRect> predicted_; /* the tracks' predicted boxes */
  /* A slow region dropped beside vector regions (3b), and their mean
   * vector (the field's sign). */
  struct Touched
  {
    MvRect box;
    double vx, vy;
  };
  std::vector<Touched> touched_;
  std::vector<int> order_;
  struct Pair
  {
    double score;
    int track, cand;
  };
  std::vector<Pair> pairs_;
  void associate_pairs (const MvBlockGrid & g, const MvDecisionParams & p);
  std::vector<int> cell_start_, cell_fill_, cell_items_, seen_;
  std::vector<MvRect> boxes_;
  /* show ()'s boxes_: 0 for a held box, kCoastAsk for a coasting track's,
   * else a strip's edge (ChangeEdge) */
  std::vector<unsigned> strip_edges_;
  std::vector<MvBoxMotion> motions_;
  std::vector<uint8_t> moved_;
  std::vector<int64_t> pixels_;
  std::vector<int64_t> extents_; /* block_pixels ()'s, kMvBlockExtent */
  /* block_pixels ()'s smoothed share of compact spots (kMvSpotShare), and
   * whether it asks for kMvSnowExtent */
  double spots_ = 0.0;
  bool snowing_ = false;
  std::vector<uint8_t> relit_; /* block_pixels ()'s, mv_relit () */
  std::vector<int> which_;
  std::vector<int64_t> changed_; /* per block: changed pixels, -1 unknown */
  struct Level
  {
    int block;
    float clutter, slow_clutter, sway;
  };
  std::vector<Level> levels_; /* track ()'s new levels of labelled blocks */
  std::vector<int64_t> slow_changed_; /* per block, against the reference */
  int slow_age_ = 0; /* the frame's slow movers' reference, frames back */
};

#endif /* __MV_DECISION_H__ */
