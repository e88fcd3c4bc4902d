/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Pipeline helpers for the gst-check element tests (they use gst-check's
 * assertions, so they live apart from testutil, which tools/ also links).
 */
#pragma once

#include <gst/gst.h>
#include <gst/video/video.h>

#include <string>
#include <vector>

/* Sets `pipeline` (owned, unreffed here) PLAYING until EOS or the first
 * ERROR (a check failure after `timeout`) and returns that message. */
GstMessage *test_run_to_end(GstElement *pipeline, GstClockTime timeout);
/* The same for a gst-launch description. */
GstMessage *test_run_launch(const char *desc, GstClockTime timeout);
/* Checks that `msg` (owned, unreffed here) is an ERROR in domain/code and,
 * when `in_message` is set, that the message text contains it. */
void test_check_error(GstMessage *msg, GQuark domain, gint code, const char *what,
                      const char *in_message = nullptr);
/* Pops every message on `bus` and returns how many are ERRORs in
 * domain/code (an ERROR of another domain or code fails the check). */
guint test_count_errors(GstBus *bus, GQuark domain, gint code);
/* Sets space-separated name=value pairs on `el` (gst_util_set_object_arg
 * syntax: enums by nick, booleans as true/false). */
void test_set_props(GstElement *el, const char *props);
/* Checks that every pad of `factory` named in `pads` (NULL-terminated)
 * has the kernels' frame size limit in its template caps: 16384 pixels a
 * side intersect, 16385 (wide or tall) do not. */
void test_check_frame_size_limit(const char *factory, const char *const *pads);
/* Frame n of a 160 x 120 GRAY8 clip at 25 fps (PTS n x 40 ms): a textured
 * square of `side` pixels with its top-left corner at (x0 + n dx,
 * y0 + n dy), over a textured still background. */
GstBuffer *test_moving_square(guint n, int side, int x0, int y0, int dx, int dy);
/* The bytes of `buf` as a string (a document, a JSON line). */
std::string test_buffer_text(GstBuffer *buf);
/* Sets `pipe` (its appsrc "src" and appsink "sink") PLAYING, pushes
 * make (0) .. make (n - 1) and EOS, and drains every sample: their buffers
 * appended to *out (reffed) when given. The caller reads the bus and stops
 * the pipeline. */
void test_play_frames(GstElement *pipe, guint n, GstBuffer *(*make)(guint),
                      std::vector<GstBuffer *> *out);
/* Whether a decoder for `caps` is installed (the README's Debian
 * packages have Theora and gst-libav; the GPU host's minimal runtime
 * bundle may not). */
gboolean test_have_decoder(const char *caps);
/* Whether element factory `name` is installed. */
gboolean test_have_element(const char *name);
/* Whether the bundled clip (data/vtest-pedestrians.ogv, Ogg/Theora) can
 * be decoded here. */
gboolean test_can_decode_ogg_theora(void);
/* Adds a buffer probe `cb` (with `data`) on pad `pad` of the element
 * named `element` in `pipe`. */
void test_probe_buffers(GstElement *pipe, const char *element, const char *pad,
                        GstPadProbeCallback cb, gpointer data);
/* The "motion" ROI metas of `buf` (GST_MOTION_REGION_ROI_TYPE), in meta
 * order. */
std::vector<GstVideoRegionOfInterestMeta *> test_motion_rois(GstBuffer *buf);
