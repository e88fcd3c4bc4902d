/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Moving regions and motion events for the motion elements (blockmatchme,
 * pocme): the twelve shared properties (regions, motion-threshold,
 * min-area, mask, events, hold-off, region-messages, sensitivity, decision,
 * lines, zones, rules-file), the
 * MOVING flags and global motion on the field's meta, the
 * GstVideoRegionOfInterestMeta of each moving region and the motion-start /
 * motion-stop / motion-regions element messages. The decision itself is
 * mvdecision.h (decision=tracks, the default) or the plain grouping of
 * mvregions.h (decision=blocks); the definitions users see are in
 * docs/motion-events.md.
 *
 * With `lines`, the tracks' crossings of tripwires (mvlines.h) post
 * line-crossed messages; with `zones`, each zone (mvzones.h) posts its own
 * motion-start / motion-stop, with a "zone" field.
 *
 * motion-start, motion-stop and line-crossed are also pushed on the
 * element's "src" pad
 * as serialized GST_EVENT_CUSTOM_DOWNSTREAM events with the same structure
 * (before the buffer of the frame that caused them), so that downstream
 * elements get them in-band (mvmetastream turns them into JSON).
 *
 * Use from an element:
 *   - class_init: gst_mv_events_install_properties (gobject_class, FIRST)
 *     where FIRST is the first of GST_MV_EVENTS_N_PROPS free property ids;
 *   - init / finalize: gst_mv_events_new () / gst_mv_events_free ();
 *   - set_property / get_property, with the object lock held (as both
 *     elements do around their switch): gst_mv_events_set_property () /
 *     gst_mv_events_get_property () in the default branch;
 *   - output path, once the GstMotionVectorsMeta is filled, on the
 *     (writable) buffer: the frame's luma to gst_mv_events_push_luma ()
 *     when gst_mv_events_wants_pixels (), then gst_mv_events_process ();
 *   - sink_event, after the element's own handling (held buffers pushed):
 *     gst_mv_events_sink_event (); set_info when the format changes:
 *     gst_mv_events_reset (..., "caps"); stop: gst_mv_events_reset (ev,
 *     NULL, NULL).
 */
#ifndef __GST_MV_EVENTS_H__
#define __GST_MV_EVENTS_H__

#include <gst/gst.h>
#include <gst/motionvectors/motionvectors.h>

#include "match/common.h"
#include "match/image.h"
#include "mvcolour.h"

G_BEGIN_DECLS

typedef struct _GstMvEvents GstMvEvents;

/* Number of property ids the helper uses, from the `first_id` given. */
#define GST_MV_EVENTS_N_PROPS 12

GstMvEvents * gst_mv_events_new (void);
void gst_mv_events_free (GstMvEvents * ev);

/* Installs the properties with ids first_id .. first_id + N_PROPS - 1. */
void gst_mv_events_install_properties (GObjectClass * klass, guint first_id);

/* Return FALSE when prop_id is not one of ours. Call with the object lock
 * of `object` held: the settings are protected by it. An invalid `mask`
 * string is rejected with a g_warning and leaves the property unchanged. */
gboolean gst_mv_events_set_property (GstMvEvents * ev, GObject * object,
    guint first_id, guint prop_id, const GValue * value);
gboolean gst_mv_events_get_property (GstMvEvents * ev, guint first_id,
    guint prop_id, GValue * value);

/* Streaming thread. Finds the regions of `meta` (the field of `buf`), adds
 * their ROI metas to `buf` (must be writable) when regions=true, posts
 * motion-regions when region-messages=true and moves the motion state
 * (motion-start / motion-stop) when events=true, timing by the running time
 * of the buffer's PTS in `segment` (the element's sink segment). With any of
 * them on, it also sets the MOVING flags and the global motion of `meta`
 * (which belongs to `buf`). `chroma`: the frame's chroma, mapped until
 * this returns, for the decision's colour (mvcolour.h); NULL: none. Takes
 * the object lock of `element` to read the settings; call it without. */
void gst_mv_events_process (GstMvEvents * ev, GstElement * element,
    GstBuffer * buf, GstMotionVectorsMeta * meta, const GstSegment * segment,
    guint64 pixels, const MvChromaView * chroma = NULL);

/* Where gst_mv_events_process() puts its in-band events (motion-start,
 * motion-stop) instead of pushing them: appended to `deferred` (GstEvent
 * pointers, owned), NULL to push them again (the default). For an element
 * that decides on a frame on another thread while its streaming thread
 * still pushes the previous frames: it pushes them with
 * gst_mv_events_push_deferred() right before that frame's buffer, so that
 * buffers and events keep their order. Call it from the thread that then
 * runs gst_mv_events_process(); the messages are posted as before. */
void gst_mv_events_defer_inband (GstMvEvents * ev, GPtrArray * deferred);

/* Pushes the events of `deferred` on the "src" pad of `element`, in order,
 * and empties it. Streaming thread. */
void gst_mv_events_push_deferred (GstElement * element, GPtrArray * deferred);

/* Whether the decision reads the frames' pixels with the current settings
 * (decision=tracks and regions, events or region-messages on): when not,
 * gst_mv_events_push_luma() is not needed. */
gboolean gst_mv_events_wants_pixels (GstMvEvents * ev, GstElement * element);

/* Streaming thread, once a frame's field is collected and before
 * gst_mv_events_process() for it: keeps the luma of the frame numbered
 * `pixels` (consecutive numbers for consecutive frames) for the decision's
 * pixel stage (match/change.h), when gst_mv_events_wants_pixels(): `luma`
 * in host memory or `device_luma` in CUDA memory (which may be reused when
 * this returns), on `backend` (the matcher's; CUDA device `device`).
 * Returns TRUE when it kept it: then pass the same number to
 * gst_mv_events_process() for that frame, G_MAXUINT64 otherwise. */
gboolean gst_mv_events_push_luma (GstMvEvents * ev, GstElement * element,
    const match::ImageView * luma, const match::DeviceImageView * device_luma,
    guint64 pixels, guint n_threads, match::Backend backend, int device);

/* Streaming thread: the whole output step of an element whose frames'
 * luma is in host memory (or that has no pixels): when
 * gst_mv_events_wants_pixels(), numbers the frame (*next_pixels, the
 * element's counter, starting at 0) and keeps `luma` (NULL: none, the
 * decision runs on the vectors alone) with gst_mv_events_push_luma() on
 * the CPU, then gst_mv_events_process(). The entry point of the elements
 * that are not GstMatchFilter subclasses (h264mvdec, h264mvextract). */
void gst_mv_events_process_host (GstMvEvents * ev, GstElement * element,
    GstBuffer * buf, GstMotionVectorsMeta * meta, const GstSegment * segment,
    const match::ImageView * luma, guint64 * next_pixels, guint n_threads);

/* Ends an active motion with a motion-stop of reason "flush" (FLUSH_STOP),
 * "stream-start" (STREAM_START) or "eos" (EOS); other events do nothing.
 * Call it before passing EOS and STREAM_START on, and after passing
 * FLUSH_STOP on (the src pad is flushing until then and would drop the
 * in-band motion-stop). */
void gst_mv_events_sink_event (GstMvEvents * ev, GstElement * element,
    GstEvent * event);

/* The search's reach in whole pixels, x and y (0: not known), for the
 * decision: a frame whose camera moved beyond it is not judged, and the
 * first such frame of a stream posts a warning. Call it with no frame
 * being decided. */
void gst_mv_events_set_reach (GstMvEvents * ev, int reach_x, int reach_y);

/* The camera of the frame the last gst_mv_events_process() decided on:
 * whether it moved beyond the search's reach (gst_mv_events_set_reach())
 * and, when the frame was judged, its fitted motion at the frame's
 * centre in pixels (else 0). FALSE where that call decided nothing
 * (decision=blocks, the outputs off, no estimate). */
gboolean gst_mv_events_camera (GstMvEvents * ev, gboolean * beyond,
    gdouble * dx, gdouble * dy);

/* Forgets the motion state; an active motion first posts motion-stop with
 * `reason` when `element` is not NULL. */
void gst_mv_events_reset (GstMvEvents * ev, GstElement * element,
    const gchar * reason);

G_END_DECLS

#endif /* __GST_MV_EVENTS_H__ */
