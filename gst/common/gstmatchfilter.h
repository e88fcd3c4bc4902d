/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * GstMatchFilter: the abstract base class of the motion estimators
 * (blockmatchme, pocme), as GstCudaBaseTransform is of gst-plugins-bad's
 * CUDA filters. It owns what the two share:
 *
 * - the property draw, the backend property set (common/gstmatchbackend.h:
 *   backend, device-id, n-threads, pipeline-depth, active-backend and,
 *   where the subclass asks for them, devices and multi-gpu) and the
 *   region/event properties (common/mvevents.h); installed on the subclass
 *   by gst_match_filter_class_install_properties();
 * - CUDA memory (common/gstmatchcuda.h): the offered primary context from
 *   NULL->READY on, set_context, the context query, transform_caps, and
 *   the zero-copy submission of frames in that context;
 * - start/stop with the settings and device checks, set_info (a new
 *   matcher when the format changes, the same one for the same format; a
 *   failing setup posts its error once although GstBaseTransform retries
 *   set_info on every buffer) and the setup errors
 *   (gst_match_backend_post_setup_error() maps the status);
 * - pipelining (generate_output and the held-frame ring of
 *   common/gstmatchheld.h: pipeline-depth, drains, flushes, the latency
 *   query);
 * - on output: the meta's storage, regions and motion events, drawing;
 * - the matcher itself, through the adapter the subclass's one vfunc
 *   makes (common/gstmatchadapter.h), with the subclass's settings.
 *
 * A subclass is its properties (ids from GST_MATCH_FILTER_N_PROPS + 1,
 * installed with their fields in its settings struct) and its traits:
 * how the settings make the kernels' configuration and runtime values, and
 * how the vectors fill the meta.
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

class GstMatchAdapter;

/**
 * GstMatchFilterClass:
 * @what: the computation, in messages ("block matching").
 * @create_adapter: the factory (constructed): the subclass's adapter
 *   (common/gstmatchadapter.h: GstMatchAdapterT over its traits), which
 *   keeps its settings and its match:: matcher. The base class owns it and
 *   does everything with it: start checks, setup at caps, reset, release,
 *   reconfigure, submit and collect.
 */
struct _GstMatchFilterClass
{
  GstVideoFilterClass parent_class;

  const gchar * what;

  GstMatchAdapter * (*create_adapter) (GstMatchFilter * filter);
};

/* class_init of a subclass, before its own properties: installs the base
 * class's (ids 1 .. GST_MATCH_FILTER_N_PROPS) and the base class's
 * set_property/get_property (GObject does not inherit them), which also
 * set and read the subclass's own properties (ids from
 * GST_MATCH_FILTER_N_PROPS + 1, kept in its adapter's settings:
 * common/gstmatchsettings.h). `multi_gpu`: the matcher shares its work
 * over several GPUs, so `devices` and `multi-gpu` too. */
void gst_match_filter_class_install_properties (GstMatchFilterClass * klass,
    gboolean multi_gpu);

/* GstMatchAdapter::collect(): adds a GstMotionVectorsMeta for a
 * frame_width x frame_height frame in block_width x block_height blocks to
 * `buf`, its storage from the base class's pool. NULL when it cannot. */
GstMotionVectorsMeta * gst_match_filter_attach_meta (GstMatchFilter * filter,
    GstBuffer * buf, guint frame_width, guint frame_height, guint block_width,
    guint block_height, match::Direction direction);

#endif /* __GST_MATCH_FILTER_H__ */
