/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Glue shared by the elements: enum GTypes, the kernel -> GStreamer log
 * bridge, luma extraction from any supported frame, and the conversion of
 * kernel vectors to GstMotionVectorsMeta.
 */
#ifndef __GST_MATCH_COMMON_H__
#define __GST_MATCH_COMMON_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

G_BEGIN_DECLS

/* Every format whose luma the elements can read: planar/semi-planar YUV
 * (the Y plane is used in place) and packed RGB (luma computed). */
#define GST_MATCH_VIDEO_FORMATS \
  "{ GRAY8, I420, YV12, NV12, NV21, Y41B, Y42B, Y444, " \
  "RGB, BGR, RGBx, BGRx, xRGB, xBGR, RGBA, BGRA, ARGB, ABGR }"

typedef enum {
  GST_MATCH_BACKEND_AUTO = 0,
  GST_MATCH_BACKEND_CPU = 1,
  GST_MATCH_BACKEND_CUDA = 2,
} GstMatchBackend;

GType gst_match_backend_get_type (void);
#define GST_TYPE_MATCH_BACKEND (gst_match_backend_get_type ())

/* How several CUDA devices share the work (match::MultiGpuMode). */
typedef enum {
  GST_MATCH_MULTI_GPU_PARALLEL = 0,
  GST_MATCH_MULTI_GPU_SERIAL = 1,
} GstMatchMultiGpu;

GType gst_match_multi_gpu_get_type (void);
#define GST_TYPE_MATCH_MULTI_GPU (gst_match_multi_gpu_get_type ())

typedef enum {
  GST_MV_DRAW_NONE = 0,
  GST_MV_DRAW_ARROWS = 1,
  GST_MV_DRAW_COLOR = 2,
} GstMvDrawMode;

GType gst_mv_draw_mode_get_type (void);
#define GST_TYPE_MV_DRAW_MODE (gst_mv_draw_mode_get_type ())

/* Routes match::log() to the "match" debug category. Idempotent. */
void gst_match_install_log_bridge (void);

G_END_DECLS

#ifdef __cplusplus
#include <cstdint>
#include <string>
#include <vector>

#include "match/blockmatch.h"
#include "match/poc.h"
#include "match/status.h"

/* The frame's luma as a kernel view: the Y plane itself for YUV/GRAY
 * formats, else computed into `scratch` (full-range BT.601 weights,
 * Y = (77 R + 150 G + 29 B + 128) >> 8). `scratch` is sized by the caller
 * (gst_match_luma_scratch_size) so nothing is allocated per frame. */
match::ImageView gst_match_frame_luma (const GstVideoFrame * frame,
    std::vector<uint8_t> & scratch);
gsize gst_match_luma_scratch_size (const GstVideoInfo * info);

/* Copies kernel vectors into the meta's meta->n_vectors vectors. Without
 * `estimated` (or for vectors flagged kFlagNoEstimate) every vector becomes
 * NO_ESTIMATE: dx = dy = 0, cost 0, confidence -1. Kernel flags map to
 * SUPPRESSED / UNRELIABLE. */

/* Block matching: dx, dy from quarter pixels, cost = SAD, confidence -1. */
void gst_match_fill_meta (GstMotionVectorsMeta * meta,
    const match::BlockVector * vectors, gboolean estimated);

/* The backend property's value as the kernels' enum. */
match::Backend gst_match_backend_to_match (GstMatchBackend backend);

/* Sets an element's read-only `active-backend` string (`*field`, guarded
 * by the object lock) to `description` and notifies `pspec` when it
 * changed (outside the lock). */
void gst_match_set_active_backend (GstElement * element, gchar ** field,
    GParamSpec * pspec, const char *description);

/* For backend=cuda at start(): FALSE, with GST_ELEMENT_ERROR (RESOURCE,
 * NOT_FOUND) posted on `element`, when no CUDA device is usable here or
 * `device_id` is not one of them. */
gboolean gst_match_check_cuda_device (GstElement * element, gint device_id);
/* The same for every device of `devices`; the debug message says to set
 * `properties` ("device-id or devices"). */
gboolean gst_match_check_cuda_devices (GstElement * element,
    const std::vector<int> & devices, const char *properties);

/* Storage for the metas' vectors comes from a pool, so that nothing is
 * allocated per frame: (re)builds *pool when it is missing or sized for
 * another number of vectors. FALSE (with *pool NULL) when the pool cannot
 * be set up; the caller posts the element error. */
gboolean gst_match_vector_pool_ensure (GstBufferPool ** pool,
    guint * pool_vectors, guint n_vectors);

/* Adds a GstMotionVectorsMeta for a frame_width x frame_height frame in
 * block_width x block_height blocks to `buf` (writable, not mapped), its
 * storage taken from *pool (gst_match_vector_pool_ensure). NULL when the
 * storage or the meta cannot be had; the caller posts the element error. */
GstMotionVectorsMeta *gst_match_attach_meta (GstBuffer * buf,
    GstBufferPool ** pool, guint * pool_vectors, guint frame_width,
    guint frame_height, guint block_width, guint block_height,
    GstMotionVectorsDirection direction);

/* pipeline-depth's latency: `depth` held frames at fps_n/fps_d (0 when the
 * rate is unknown: 0/1 or variable). Stores it in *latency under the
 * element's object lock and posts a latency message when it changed. */
void gst_match_update_held_latency (GstElement * element,
    GstClockTime * latency, int depth, int fps_n, int fps_d);

/* decide_allocation of an element that writes its own output frames: a
 * GstVideoBufferPool (the first proposed pool when it is one, else a new
 * one) for the caps of `query`, with at least `min_buffers` buffers and
 * GstVideoMeta when downstream supports it, set as the query's first
 * pool. FALSE when the caps are not video or the pool cannot be
 * configured (logged on `element`). */
gboolean gst_match_decide_video_pool (GstElement * element, GstQuery * query,
    guint min_buffers);

/* An output buffer: from `pool` (transfer full, may be NULL; activated
 * first if need be) or, without a pool, a plain one of `size` bytes. When
 * the pool cannot be activated or the allocation fails, posts
 * RESOURCE/NO_SPACE_LEFT on `element` and returns GST_FLOW_ERROR; other
 * failures to acquire (flushing) are returned as they are. */
GstFlowReturn gst_match_acquire_output (GstElement * element,
    GstBufferPool * pool, gsize size, GstBuffer ** outbuf);

/* What a failed matcher setup (create, probe, reconfigure) says to the
 * user, one message for each kind of failure; each element words its own
 * (the computation, the frame size, the settings). */
struct GstMatchSetupMessages
{
  std::string unavailable;      /* no usable backend */
  std::string invalid;          /* settings the backend rejects */
  std::string no_memory;        /* out of (host or device) memory */
  std::string failed;           /* anything else */
};

/* Posts on `element` the error of a matcher setup of the computation
 * `what` ("block matching", "stereo matching") that failed with `status`:
 * kUnavailable -> RESOURCE/NOT_FOUND, kInvalidArgument ->
 * RESOURCE/SETTINGS, kOutOfMemory -> RESOURCE/NO_SPACE_LEFT, anything
 * else -> LIBRARY/INIT, with the matching user message of `messages` and
 * the status's message as the debug message. */
void gst_match_post_setup_error (GstElement * element, const char *what,
    const GstMatchSetupMessages & messages, const match::Status & status);

/* g_strdup_printf into a std::string. */
std::string gst_match_printf (const char *format, ...) G_GNUC_PRINTF (1, 2);

/* Phase-only correlation: dx, dy as computed (float pixels), cost 0 (POC
 * has no matching cost), confidence = POC peak height clamped to 0..1. */
void gst_match_fill_meta_poc (GstMotionVectorsMeta * meta,
    const match::PocVector * vectors, gboolean estimated);
#endif

#endif /* __GST_MATCH_COMMON_H__ */
