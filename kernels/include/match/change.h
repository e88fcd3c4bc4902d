/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The pixel side of the motion decision (gst/common/mvdecision.h): which
 * pixels of a frame changed against the previous frame, or one further
 * back (ChangeRequest::age), once the camera's motion and a scene-wide
 * brightness offset are taken out. The decision reads the field alone to
 * find moving objects; it asks this stage for the changed pixels inside
 * each object's box to shrink the box from a union of blocks to the
 * object's own pixels, and, against a frame 16 to 31 frames back, for the
 * objects too slow for the field (under a pixel a frame).
 *
 * Definitions (exact integer arithmetic: every backend gives the
 * reference's output bit for bit):
 *
 * - Working image W: the frame's luma averaged over scale x scale cells
 *   (cells clipped to the frame; rounded mean, ties up), so that the cost
 *   stays a fraction of the estimator's at large sizes.
 * - Background B (ChangeConfig::background_every = k > 0): a working image
 *   set to W by the first frame pushed after create (), reset () or
 *   restart_background (), then moved one grey level towards W (B + 1
 *   where W > B, B - 1 where W < B) by every k-th frame pushed after that
 *   one: the approximate running median of McFarlane and Schofield
 *   (1995), a still camera's scene without what moves through it. An
 *   object covering a pixel for n frames pulls it n / k grey levels; one
 *   that stops is taken in after about its contrast x k frames.
 * - Scene image S (ChangeDetector::scene ()): a background for a moving
 *   camera, kept in the coordinates of the frame that set it. scene
 *   (f, m, true) sets it to frame f's working image sampled as P below
 *   (with the motion m: where each of S's cells lies in frame f); scene
 *   (f, m, false) moves each of its cells one grey level towards that
 *   sample, where m takes the cell inside the image (its position before
 *   the clamp within 0 .. 16 (n - 1) sixteenths on both axes; the cells
 *   it takes outside stay as they are).
 * - Warped previous image P: the working image of frame - age (the
 *   previous one by default), B (ChangeRequest::background, the motion
 *   then zero) or S (ChangeRequest::scene, the motion then where each
 *   cell lies in S), sampled at (x + dx, y + dy), where (dx, dy)
 *   is the caller's affine motion in working pixels given in 1/65536
 *   units (ChangeRequest::motion): dx = (m[0] + m[1] x + m[2] y) / 65536,
 *   likewise dy with m[3..5]. The
 *   position is rounded to 1/16 pixel (round half up), clamped to the
 *   image, and interpolated bilinearly with 4-bit weights (round half up).
 * - Gain g (ChangeResult::gain, x 256): the lower median of W / P over
 *   the cells of every fourth row and column where P >= 16, in 1/256 steps
 *   within 0.5 .. 2 (change_gain_bin ()); none (256) against the background
 *   or scene image, when under a quarter of those cells give a ratio, or when within
 *   3/256 of 1. Otherwise P gained, (g p + 128) / 256 (at most 255), is
 *   taken when it leaves less noise than P does (the lower median of
 *   |W - P - b| over b's cells below, each with its own b): then P and the
 *   compared image that the explanations read are the gained ones in
 *   everything below, else g is none. An exposure that hunts or a gain
 *   that flickers scales the scene, which b alone does not take out; a
 *   brightness step is an offset, which a gain fits worse.
 * - Offset b: the lower median of W - P over the image's cells on even
 *   rows and columns (a scene-wide brightness step or auto-exposure change
 *   moves every pixel alike; a quarter of the cells give the same median
 *   within a grey level or so, change_sampled ()).
 * - Difference d = |W - P - b|; when the camera moves (a non-zero motion)
 *   the smallest such difference over P's 3 x 3 neighbourhood (the warp is
 *   only as good as the field's grid step).
 * - Threshold t = max (min_threshold, 4 x the lower median of d + 2), the
 *   median over the same cells as b's: the frame's own noise, whatever the
 *   camera's gain.
 * - A pixel CHANGED when d > t.
 * - For each requested box (frame pixels), the projections of its changed
 *   pixels on its working rows and columns (the box's working cells:
 *   columns floor (x / scale) .. ceil ((x + w) / scale) - 1, likewise rows).
 * - Trimmed change of a box (change_trim ()): the first and last of its
 *   rows holding at least 1/kChangeTrimShare of its largest row count
 *   (none when that is under 2), likewise columns; the box clipped to
 *   those cells; its changed pixels, the counts of those rows times
 *   scale^2, at most the clipped box's area. Isolated noise, a shadow's
 *   soft rim and rain beside an object do not stretch it.
 * - Tiles (ChangeRequest::tile_width, tile_height): the trimmed changed
 *   pixels of the tiles of a regular grid over the frame (a block field's
 *   blocks), each as a box of its own: all of them (explain off), or those
 *   listed (ChangeRequest::tiles, each with its explain and shift), without
 *   the host building and reading a box each.
 * - Extent of a listed tile (ChangeRequest::extent_reach = r > 0): the
 *   cells that count for the tile (changed, and explained and not departed
 *   as it asks) over its cells grown by r on every side (clipped to the
 *   image); of their 8-connected components with a cell in the tile, the
 *   largest extent, max (width, height) of the component's bounding box in
 *   working cells, at most r (what reaches r may run on outside the
 *   window); 0 when no cell of the tile counts (change_extent ()).
 *   A falling snowflake changes a compact spot a few cells across; an
 *   object's change, even a band one cell wide along its edge, runs on.
 * - Light sums of a listed tile (ChangeRequest::light): sums over its
 *   cells of W, P, their squares and product, and each times x and y
 *   (ChangeLightSums), for the caller's fit of W on P and a plane; all
 *   zero for a tile whose trimmed change is none.
 */
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "match/common.h"
#include "match/image.h"
#include "match/status.h"

#ifdef __CUDACC__
#define CHANGE_HD __host__ __device__
#else
#define CHANGE_HD
#endif

namespace match {

struct ChangeConfig {
  int width = 0; /* frame size, pixels */
  int height = 0;
  int scale = 1;            /* working cell side, 1..16 */
  int history = 2;          /* frames kept: 2..128 (the frames pushed ahead of the
                      analysed one, plus the largest age asked, plus 1) */
  int background_every = 0; /* 0..64: 0 keeps no background image, k > 0
                               one moved by every k-th frame */

  int work_width() const { return (width + scale - 1) / scale; }
  int work_height() const { return (height + scale - 1) / scale; }
  Status validate() const;
  bool operator==(const ChangeConfig& o) const {
    return width == o.width && height == o.height && scale == o.scale &&
           history == o.history && background_every == o.background_every;
  }
};

/* The working scale for a frame: cells of s x s pixels so that the working
 * image has at most about 320 x 240 x 2 pixels (1 up to 480 x 320, 2 at
 * 640 x 480, 4 at 1920 x 1080). */
int change_scale_for(int width, int height);

/* A box in frame pixels. With `explain`, only its changed cells that its
 * own motion explains count: the cell's W within t (after b) of the
 * compared frame's working image, unwarped, at one of the 3 x 3 cells
 * around (x + shift_x, y + shift_y), clamped to the image. The shift is
 * where the box's content was in the compared frame, in working pixels
 * (a backward field's vector over the scale): an object's trail (the
 * background it uncovered) and changes that move otherwise (rain, flicker)
 * then do not count. */
struct ChangeBox {
  int x = 0, y = 0, w = 0, h = 0;
  bool explain = false;
  int shift_x = 0, shift_y = 0;
};

/* A listed tile: its index (row-major) and, as ChangeBox's, what its own
 * motion explains. */
struct ChangeTile {
  int index = 0;
  bool explain = false;
  int shift_x = 0, shift_y = 0;
};

struct ChangeRequest {
  uint64_t frame = 0; /* the analysed frame, pushed with this number; the
                         one compared, frame - age, must be kept too */
  uint32_t age = 1;   /* >= 1: frames between the two */
  /* Against the background image instead (age ignored, motion all zero;
   * the stage must keep one, and have been pushed a frame since it was
   * restarted). */
  bool background = false;
  /* Against the scene image S instead (age ignored; the motion is where
   * each cell lies in S; the stage must have been given a scene () since
   * create () or reset ()). Not with `background`. */
  bool scene = false;
  int64_t motion[6] = {0, 0, 0, 0, 0, 0}; /* 1/65536 working pixels */
  int min_threshold = 10;                 /* grey levels */
  const ChangeBox* boxes = nullptr;
  int n_boxes = 0;
  /* Both > 0: also the tiles' trimmed changed pixels (ChangeResult::tiles):
   * tile (c, r) covers frame pixels c tile_width .. (c + 1) tile_width - 1,
   * clipped to the frame, likewise rows; at most kChangeMaxTile a side.
   * Every tile (row-major) when `tiles` is null, else those n_tiles listed,
   * in their order. */
  int tile_width = 0, tile_height = 0;
  const ChangeTile* tiles = nullptr;
  int n_tiles = 0;
  /* With a still camera and the background image (set since the last
   * restart): an explained cell does not count where its content DEPARTED
   * (change_departed ()): W is back within t of the background B while the
   * compared image P was not, and P does not reappear, within t (after
   * b), at one of the 3 x 3 cells around (x - shift_x, y - shift_y) of W.
   * What left went nowhere the box's motion says: a rain streak or a
   * flash of the compared frame, which the background beside a moving
   * object explains as well as the object. The band an object uncovered
   * counts as before (its content moved on with it). */
  bool departed = false;
  /* With a moving camera: a cell changed where |W - P - b| itself is over
   * t, not the smallest over P's 3 x 3 neighbourhood (d, which forgives
   * the warp's misalignment of the scene's edges, and so also a pixel of
   * an object's own motion: one moving 2 px a frame keeps a band of one).
   * For boxes whose cells must also be explained by their motion, which
   * the scene's misaligned edges are not. t is d's as before. */
  bool sharp = false;
  /* 0..kChangeMaxReach, listed tiles only: > 0 also gives each tile's
   * extent (ChangeResult::extents) within this many cells around it. */
  int extent_reach = 0;
  /* Listed tiles only: also each tile's light sums (ChangeResult::light). */
  bool light = false;
};

/* A listed tile's light sums (ChangeRequest::light): over its working
 * cells, of W and of P (the compared image as d sees it: warped by the
 * motion, without b) at the same cell, x and y counted from the tile's
 * first cell. What a least-squares fit of W = g P + o + a x + c y needs:
 * whether the tile's content stayed where it was under a change of light
 * (a gain, an offset and a gradient over the tile: a lamp, headlights,
 * a cloud's shadow) rather than moved. */
struct ChangeLightSums {
  int64_t p = 0, w = 0, pp = 0, ww = 0, pw = 0, xp = 0, yp = 0, xw = 0, yw = 0;
  /* The definition a cell at a time: cell (x, y) of the tile, W = wv and
   * P = pv (the stages sum whole rows, change_light_sums ()). */
  void add(int64_t x, int64_t y, int64_t wv, int64_t pv) {
    p += pv;
    w += wv;
    pp += pv * pv;
    ww += wv * wv;
    pw += pv * wv;
    xp += x * pv;
    yp += y * pv;
    xw += x * wv;
    yw += y * wv;
  }
  bool operator==(const ChangeLightSums& o) const {
    return p == o.p && w == o.w && pp == o.pp && ww == o.ww && pw == o.pw && xp == o.xp &&
           yp == o.yp && xw == o.xw && yw == o.yw;
  }
};

constexpr int kChangeMaxReach = 32;

constexpr int kChangeMaxTile = 256;
constexpr uint32_t kChangeTrimShare = 4;

/* Per box, in request order: its working cell range and the projections
 * of its changed pixels, rows[0 .. rows) then cols[0 .. cols) of each box
 * one after the other in `counts`. */
struct ChangeBoxCells {
  int x0 = 0, y0 = 0, cols = 0, rows = 0; /* working cells */
  size_t offset = 0;                      /* into counts */
};

struct ChangeResult {
  int gain = 256;    /* the compared image's gain, x 256 (256: none) */
  int offset = 0;    /* b */
  int noise = 0;     /* lower median of d */
  int threshold = 0; /* t */
  std::vector<ChangeBoxCells> boxes;
  std::vector<uint32_t> counts;
  /* Per tile asked (every tile row-major, or those listed): its trimmed
   * changed pixels. */
  std::vector<uint32_t> tiles;
  /* With ChangeRequest::extent_reach: per listed tile, its extent. */
  std::vector<uint32_t> extents;
  /* With ChangeRequest::light: per listed tile, its light sums where its
   * trimmed changed pixels (tiles) are not zero, else all zero. */
  std::vector<ChangeLightSums> light;
};

/* A box's trimmed change (the definitions above): the trimmed cell ranges
 * r0..r1, c0..c1 (relative to the box's cells), the clipped box (frame
 * pixels) and its changed pixels. */
struct ChangeTrim {
  int r0 = 0, r1 = -1, c0 = 0, c1 = -1;
  int x = 0, y = 0, w = 0, h = 0;
  int64_t pixels = 0;
};

/* The first and last of counts[0 .. n) holding at least 1/kChangeTrimShare
 * of the largest; false when the largest is under 2. With `keep_first`
 * (`keep_last`), the first (last) moves to index 0 (n - 1) when every
 * count on the way is non-zero (change_trim ()'s `edges`). */
CHANGE_HD inline bool change_trimmed_range(const uint32_t* counts, int n, int* first,
                                           int* last, bool keep_first = false,
                                           bool keep_last = false) {
  uint32_t top = 0;
  for (int i = 0; i < n; ++i) top = counts[i] > top ? counts[i] : top;
  if (top < 2) return false;
  uint32_t keep = (top + kChangeTrimShare - 1) / kChangeTrimShare;
  keep = keep > 1 ? keep : 1;
  int f = 0, l = n - 1;
  while (counts[f] < keep) ++f;
  while (counts[l] < keep) --l;
  if (keep_first) {
    int e = f;
    while (e > 0 && counts[e - 1] > 0) --e;
    f = e == 0 ? 0 : f;
  }
  if (keep_last) {
    int e = l;
    while (e < n - 1 && counts[e + 1] > 0) ++e;
    l = e == n - 1 ? e : l;
  }
  *first = f;
  *last = l;
  return true;
}

/* Sides of a box on the working image's edge (change_trim ()'s `edges`). */
enum ChangeEdge : unsigned {
  kChangeEdgeLeft = 1,
  kChangeEdgeTop = 2,
  kChangeEdgeRight = 4,
  kChangeEdgeBottom = 8
};

/* The ChangeEdge bits of a box's cells in a ww x wh working image. */
CHANGE_HD inline unsigned change_box_edges(const ChangeBoxCells& cells, int ww, int wh) {
  return (cells.x0 == 0 ? kChangeEdgeLeft : 0u) | (cells.y0 == 0 ? kChangeEdgeTop : 0u) |
         (cells.x0 + cells.cols == ww ? kChangeEdgeRight : 0u) |
         (cells.y0 + cells.rows == wh ? kChangeEdgeBottom : 0u);
}

/* The trimmed change of `box`, whose cells and projections (rows, then
 * cols) a result gives; false (nothing kept) when none. `edges`
 * (ChangeEdge bits): the box's sides that lie on the image's edge; on
 * those the trimmed range runs on to the edge when every row (column)
 * from its end to the edge holds a changed cell (an object coming in or
 * going out continues beyond the frame). The stage's own tiles use none. */
CHANGE_HD inline bool change_trim(const ChangeBox& box, const ChangeBoxCells& cells,
                                  const uint32_t* rows, const uint32_t* cols, int scale,
                                  ChangeTrim* out, unsigned edges = 0) {
  ChangeTrim t;
  if (!change_trimmed_range(rows, cells.rows, &t.r0, &t.r1, edges & kChangeEdgeTop,
                            edges & kChangeEdgeBottom) ||
      !change_trimmed_range(cols, cells.cols, &t.c0, &t.c1, edges & kChangeEdgeLeft,
                            edges & kChangeEdgeRight))
    return false;
  const int x0 = (cells.x0 + t.c0) * scale, y0 = (cells.y0 + t.r0) * scale;
  const int x1 = (cells.x0 + t.c1 + 1) * scale, y1 = (cells.y0 + t.r1 + 1) * scale;
  t.x = x0 > box.x ? x0 : box.x;
  t.y = y0 > box.y ? y0 : box.y;
  t.w = (x1 < box.x + box.w ? x1 : box.x + box.w) - t.x;
  t.h = (y1 < box.y + box.h ? y1 : box.y + box.h) - t.y;
  if (t.w <= 0 || t.h <= 0) return false;
  int64_t n = 0;
  for (int j = t.r0; j <= t.r1; ++j) n += rows[j];
  n *= (int64_t)scale * scale;
  const int64_t area = (int64_t)t.w * t.h;
  t.pixels = n < area ? n : area;
  *out = t;
  return true;
}

class ChangeDetector {
 public:
  /* kAuto and kCpu give the CPU (OpenMP) version, kCuda the GPU one on
   * CUDA device `device` (kUnavailable without it). */
  static Status create(Backend backend, const ChangeConfig& config,
                       std::unique_ptr<ChangeDetector>* out, int device = 0);
  virtual ~ChangeDetector() = default;

  const ChangeConfig& config() const { return config_; }

  /* Keeps frame number `frame` (its working image). Frames must be pushed
   * in increasing order; the oldest beyond `history` are forgotten. */
  virtual Status push(const ImageView& luma, uint64_t frame, int n_threads) = 0;
  /* push () for a frame in CUDA device memory (zero copy from a GPU
   * decoder), done when it returns; the GPU version only, for a frame on
   * its device: the others return kUnsupported. The frame must be written
   * by then: the stage's streams do not wait for the caller's work (a
   * cudaMemcpy from pageable memory may return before its copy lands). */
  virtual Status push_device(const DeviceImageView& luma, uint64_t frame) {
    (void)luma;
    (void)frame;
    return Status(StatusCode::kUnsupported, "change: no device frames here");
  }
  /* Starts analyse (request) ahead, for a request without boxes or a tile
   * list (kUnsupported otherwise): an analyse () of an equal request (the
   * same frames, motion, floor and tiles) before the next push () or
   * reset () then returns its result without a wait of its own. The GPU
   * version computes it while the caller goes on; the others when it is
   * asked (this does nothing). */
  virtual Status prefetch(const ChangeRequest& request) {
    if (request.n_boxes > 0 || request.tiles)
      return Status(StatusCode::kUnsupported,
                    "change: prefetch takes no boxes or tile list");
    return Status::ok();
  }
  /* Analyses request.frame against request.frame - request.age (both
   * still kept), the background or the scene image; kInvalidArgument
   * when either is missing, age is 0, a background request has motion,
   * or a request asks for both images. */
  virtual Status analyse(const ChangeRequest& request, ChangeResult* out,
                         int n_threads) = 0;
  /* Sets (`set`) or moves the scene image S with kept frame `frame`
   * sampled where `motion` (1/65536 working pixels, as a request's) takes
   * each of S's cells (the definitions above); kInvalidArgument when the
   * frame is not kept, or when moving an S that was never set. A request
   * asked before it is computed anew. */
  virtual Status scene(uint64_t frame, const int64_t motion[6], bool set,
                       int n_threads) = 0;
  /* Forgets every frame, the background and the scene image. */
  virtual void reset() = 0;
  /* The next frame pushed sets the background anew (the camera moved). */
  virtual void restart_background() = 0;

 protected:
  explicit ChangeDetector(const ChangeConfig& c) : config_(c) {}
  ChangeConfig config_;
};

/* The reference: plain loops, one thread (kernels/ref/change_ref.cpp). The
 * backends are tested against it. */
std::unique_ptr<ChangeDetector> make_change_ref(const ChangeConfig& config);

}  // namespace match
