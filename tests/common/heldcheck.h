/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * pipeline-depth checks shared by the blockmatchme and pocme element tests
 * (GstMatchFilter's held frames): run a sequence at some depth and compare
 * every output with the synchronous run's.
 */
#pragma once

#include <gst/gst.h>
#include <gst/check/gstharness.h>
#include <gst/motionvectors/motionvectors.h>

#include <cstdint>
#include <string>
#include <vector>

#include "testutil.h"

#define FRAME_DURATION (GST_SECOND / 30)

/* What a test compares of one output buffer. */
struct OutFrame {
  GstClockTime pts, dts, duration;
  guint64 offset;
  guint flags;
  GstClockTime reference_timestamp;
  guint columns, rows;
  gfloat precision;
  std::vector<GstMotionVector> vectors;
  std::vector<uint8_t> pixels; /* luma rows, tight */
};

struct RunResult {
  std::vector<OutFrame> frames;
  int lag = -1; /* frames held before the first output */
  GstClockTime latency = GST_CLOCK_TIME_NONE;
  std::string active_backend;
};

/* The meta, timestamps and luma of `buf` (GRAY8, w x h). */
OutFrame test_describe_output(GstBuffer *buf, int w, int h);
/* Pulls everything the harness has received so far. */
void test_pull_all(GstHarness *hrn, int w, int h, std::vector<OutFrame> *out);
/* Pushes `frames` (GRAY8, padded stride, 30 fps timestamps) through
 * `element` with `props` (space-separated name=value), then EOS; checks
 * that buffers leave a constant number of frames late until the DISCONT
 * frame `discont` (0 = none) and that EOS gives every buffer back. */
RunResult test_run_sequence(const char *element, const char *props,
                            const std::vector<TestImage> &frames, guint discont);
/* Every output of `got` equals `want`'s: timestamps, flags, meta, pixels. */
void test_check_same_outputs(const RunResult &want, const RunResult &got,
                             const char *what);
/* Pad probe appending 'B' per buffer, 'E' for EOS and 'T' for TAG to the
 * std::string `user_data`. */
GstPadProbeReturn test_record_flow(GstPad *pad, GstPadProbeInfo *info,
                                   gpointer user_data);
/* The latency `element` with `props` answers after one 64x48 frame of
 * `caps` (GRAY8) with `upstream` latency upstream. */
GstClockTime test_latency_for(const char *element, const char *props, const char *caps,
                              GstClockTime upstream);

/* The pipeline-depth harness tests both estimators share: the element,
 * its extra properties, the frame size, and how to read and check its
 * meta (check_shift: every interior vector equals (dx, dy)). */
struct HeldCase {
  const char *element;
  const char *props;
  int width, height;
  GstMotionVectorsMeta *(*get_meta)(GstBuffer *buf);
  void (*check_no_estimate)(GstMotionVectorsMeta *meta);
  void (*check_shift)(GstMotionVectorsMeta *meta, float dx, float dy);
};
/* A harness around c.element with c.props and `props`, GRAY8 caps of c's
 * size at 30 fps. */
GstHarness *test_held_harness(const HeldCase &c, const char *props);
/* Held buffers leave before a serialized event (TAG, EOS): N in, N out, in
 * order, each before the event that followed it in. */
void test_held_eos_drains(const HeldCase &c);
/* A flush drops the held buffers and the reference frame. */
void test_held_flush_drops(const HeldCase &c);
/* Lowering pipeline-depth while playing lets the excess leave at once. */
void test_held_depth_change(const HeldCase &c);
/* pipeline-depth 1..3 against 0 for each of the `bases` settings (CPU):
 * every buffer leaves `depth` frames late with the vectors, timestamps and
 * pixels of the synchronous run, across the DISCONT on frame `discont`. */
void test_held_same_vectors(const char *element, const std::vector<const char *> &bases,
                            const std::vector<TestImage> &seq, guint discont);
/* The latency query adds depth x frame duration to upstream's (none
 * without a frame rate). */
void test_held_latency(const HeldCase &c);
