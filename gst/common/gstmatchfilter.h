/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * GstMatchFilter: the abstract base class of the motion estimators
 * (blockmatchme, pocme), as GstCudaBaseTransform is of gst-plugins-bad's
 * CUDA filters. It owns what the two share:
 *
 * - the properties backend, draw, n-threads, device-id, pipeline-depth,
 *   active-backend, the region/event properties (common/mvevents.h) and,
 *   where the subclass asks for them, devices and multi-gpu; installed on
 *   the subclass by gst_match_filter_class_install_properties() with the
 *   subclass's blurbs;
 * - CUDA memory (common/gstmatchcuda.h): the offered primary context from
 *   NULL->READY on, set_context, the context query, transform_caps, and
 *   the zero-copy submission of frames in that context;
 * - start/stop with the device checks, set_info (a new matcher when the
 *   format changes, the same one for the same format; a failing setup
 *   posts its error once although GstBaseTransform retries set_info on
 *   every buffer) and the setup errors in the estimators' wording
 *   (gst_match_post_setup_error() maps the status);
 * - pipelining (generate_output and the held-frame ring of
 *   common/gstmatchheld.h: pipeline-depth, drains, flushes, the latency
 *   query);
 * - on output: the meta's storage, regions and motion events, drawing.
 *
 * A subclass adds its own properties (ids from GST_MATCH_FILTER_N_PROPS + 1,
 * chaining up set_property/get_property for the others) and implements the
 * vfuncs below around its own match:: matcher, which it keeps.
 *
 * The base class works in place: the output buffer is the input buffer,
 * made writable for its meta; pixels are mapped for reading to compute and
 * for writing only to draw.
 */
#ifndef __GST_MATCH_FILTER_H__
#define __GST_MATCH_FILTER_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>
#include <gst/motionvectors/motionvectors.h>

#include <string>

#include "common/gstmatchbackend.h"
#include "common/gstmatchmeta.h"
#include "match/common.h"
#include "match/image.h"
#include "match/status.h"

G_BEGIN_DECLS

#define GST_TYPE_MATCH_FILTER (gst_match_filter_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstMatchFilter, gst_match_filter, GST, MATCH_FILTER,
    GstVideoFilter)

G_END_DECLS

/* Property ids 1 .. GST_MATCH_FILTER_N_PROPS belong to the base class. */
#define GST_MATCH_FILTER_N_PROPS 32

/* What a subclass's matcher tells the base class when it is made. */
typedef struct
{
  match::Backend backend;       /* kCpu or kCuda: the one running */
  std::string description;      /* active-backend */
  int max_in_flight;            /* bounds pipeline-depth */
} GstMatchFilterMatcherInfo;

/* Per-subclass wording of the base class's properties. */
typedef struct
{
  const gchar *backend;         /* blurbs */
  const gchar *device_id;
  const gchar *pipeline_depth;
  const gchar *active_backend;
  /* Install `devices` and `multi-gpu` (a matcher that can share its work
   * over several GPUs); without them the device is device-id alone. */
  gboolean multi_gpu;
} GstMatchFilterProperties;

/**
 * GstMatchFilterClass:
 * @what: the computation, in messages ("block matching").
 * @check_settings: optional. At start, at caps and before a reconfigure:
 *   FALSE, with the element error posted, when the subclass's settings
 *   cannot work whatever the frame.
 * @probe: optional. At start with backend=cuda, once the devices are
 *   checked: can a matcher be made on them at all (a backend may be
 *   missing)? Its failure is posted as a setup error.
 * @create_matcher: set_info, new format: makes the matcher (replacing any)
 *   for frames of @info on @backend and @devices from the current settings
 *   and fills @out. Its failure is posted as a setup error.
 * @release_matcher: drops the matcher (stop, a new format).
 * @reset_matcher: forgets the reference frame and the frames in flight
 *   (flush, DISCONT, a failed push).
 * @config_changed: each frame: do the settings (changed while playing) ask
 *   for a reconfigure? The held frames then leave first.
 * @reconfigure: applies them; the matcher keeps its reference frame.
 * @submit: queues the frame's luma: @luma in host memory, or @device_luma
 *   (CUDA memory, the matcher's backend is CUDA) where a kUnsupported
 *   answer makes the base class map the frame in host memory and submit
 *   again.
 * @collect: collects the oldest submitted frame's vectors, attaches the
 *   meta to @buf with gst_match_filter_attach_meta() and fills it
 *   (@reference_pts is the PTS of the frame before it). A NULL *@meta with
 *   an OK status means the meta could not be attached.
 */
struct _GstMatchFilterClass
{
  GstVideoFilterClass parent_class;

  const gchar *what;

  gboolean (*check_settings) (GstMatchFilter * filter);
  match::Status (*probe) (GstMatchFilter * filter,
      const match::DeviceOptions & devices);
  match::Status (*create_matcher) (GstMatchFilter * filter,
      const GstVideoInfo * info, match::Backend backend,
      const match::DeviceOptions & devices, GstMatchFilterMatcherInfo * out);
  void (*release_matcher) (GstMatchFilter * filter);
  void (*reset_matcher) (GstMatchFilter * filter);
  gboolean (*config_changed) (GstMatchFilter * filter,
      const GstVideoInfo * info);
  match::Status (*reconfigure) (GstMatchFilter * filter,
      const GstVideoInfo * info);
  match::Status (*submit) (GstMatchFilter * filter,
      const match::ImageView * luma, const match::DeviceImageView * device_luma,
      guint n_threads);
  match::Status (*collect) (GstMatchFilter * filter, GstBuffer * buf,
      GstClockTime reference_pts, GstMotionVectorsMeta ** meta);
};

/* class_init of a subclass, after its own properties: installs the base
 * class's (ids 1 .. GST_MATCH_FILTER_N_PROPS) with `props`' blurbs. */
void gst_match_filter_class_install_properties (GstMatchFilterClass * klass,
    const GstMatchFilterProperties * props);

/* set_property / get_property of a subclass: chain up for any property
 * that is not its own (as G_OBJECT_CLASS (parent_class)->set_property). */

/* @collect: adds a GstMotionVectorsMeta for a frame_width x frame_height
 * frame in block_width x block_height blocks to `buf`, its storage from the
 * base class's pool. NULL when it cannot. */
GstMotionVectorsMeta *gst_match_filter_attach_meta (GstMatchFilter * filter,
    GstBuffer * buf, guint frame_width, guint frame_height, guint block_width,
    guint block_height, match::Direction direction);

/* Posts the element error of a failed matcher setup (create, probe,
 * reconfigure) through gst_match_post_setup_error(), in the wording of
 * the motion estimators. `info` may be NULL (no frame size yet). */
void gst_match_filter_post_setup_error (GstMatchFilter * filter,
    const GstVideoInfo * info, const match::Status & status);

#endif /* __GST_MATCH_FILTER_H__ */
