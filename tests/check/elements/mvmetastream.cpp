/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mvmetastream element tests: exact JSON of hand-made metas (vectors=all,
 * moving, none; frames=moving, none; regions), schema version 2 (the
 * decision's MOVING blocks, the regions' tracks) and the version 1 layout
 * for a downstream that accepts only version 1, in-band motion events
 * through a GstHarness (timestamps, buffer PTS never going backward), a
 * real blockmatchme pipeline into filesink (every line valid JSON, seq
 * without gaps, the events of the bus in the file) and into appsink (caps,
 * timestamps preserved, stream-info meta), and a property stress run.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <glib/gstdio.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "common/mvstreaminfo.h"
#include "common/checkutil.h"
#include "common/jsoncheck.h"

static guint64
json_uint (const std::string & s, const char * key)
{
  const size_t p = s.find (key);
  if (p == std::string::npos)
    return G_MAXUINT64;
  if (s.compare (p + strlen (key), 4, "null") == 0)
    return G_MAXUINT64 - 1;
  return g_ascii_strtoull (s.c_str () + p + strlen (key), NULL, 10);
}

/* ----------------------------------------------------- hand-made input */

/* 40x20 frame, 16x16 blocks: a 3x2 grid with partial edge blocks. */
static GstBuffer *
make_input (GstClockTime pts)
{
  GstBuffer * buf = gst_buffer_new_allocate (NULL, 40 * 20, NULL);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = 40 * GST_MSECOND;
  GstMotionVectorsMeta * m = gst_buffer_add_motion_vectors_meta (buf, 40, 20,
      16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  fail_unless (m != NULL);
  m->reference_timestamp = pts - 40 * GST_MSECOND;
  m->precision = 0.25f;
  m->method = g_intern_static_string ("full");
  const GstMotionVector v[6] = {
    { 0.0f, 0.0f, 10, -1.0f, 0 },
    { -1.25f, 2.0f, 20, -1.0f, 0 },
    { 0.5f, 0.0f, 5, -1.0f, 0 }, /* below the threshold */
    { 3.0f, 0.0f, 0, -1.0f, GST_MOTION_VECTOR_FLAG_SUPPRESSED },
    { 0.0f, 0.0f, 0, -1.0f, GST_MOTION_VECTOR_FLAG_NO_ESTIMATE },
    { 0.0f, -4.0f, 30, -1.0f, GST_MOTION_VECTOR_FLAG_UNRELIABLE },
  };
  memcpy (m->vectors, v, sizeof v);
  GstVideoRegionOfInterestMeta * roi =
      gst_buffer_add_video_region_of_interest_meta (buf,
          GST_MOTION_REGION_ROI_TYPE, 16, 0, 16, 16);
  roi->id = 0;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new (GST_MOTION_REGION_PARAM_NAME, "mean-dx", G_TYPE_DOUBLE,
          -1.25, "mean-dy", G_TYPE_DOUBLE, 2.0, "area", G_TYPE_INT, 1, "pixels",
          G_TYPE_INT, 256, NULL));
  /* Not a motion region: not written. */
  gst_buffer_add_video_region_of_interest_meta (buf, "face", 0, 0, 4, 4);
  return buf;
}

/* make_input () with the estimator's decision: the camera's motion, MOVING
 * flags that disagree with the motion-threshold test (block 1 passes it
 * but is not MOVING, block 2 is MOVING below it) and a second region, with
 * a track (decision=tracks). */
static GstBuffer *
make_decided_input (GstClockTime pts)
{
  GstBuffer * buf = make_input (pts);
  GstMotionVectorsMeta * m = gst_buffer_get_motion_vectors_meta (buf);
  const gfloat affine[6] = { 0.5f, 0.0f, 0.0f, -0.25f, 0.0f, 0.0f };
  gst_motion_vectors_meta_set_global_motion (m, affine);
  m->vectors[2].flags |= GST_MOTION_VECTOR_FLAG_MOVING;
  m->vectors[5].flags |= GST_MOTION_VECTOR_FLAG_MOVING;
  GstVideoRegionOfInterestMeta * roi =
      gst_buffer_add_video_region_of_interest_meta (buf,
          GST_MOTION_REGION_ROI_TYPE, 32, 0, 8, 20);
  roi->id = 7;
  gst_video_region_of_interest_meta_add_param (roi,
      gst_structure_new (GST_MOTION_REGION_PARAM_NAME, "mean-dx", G_TYPE_DOUBLE,
          0.25, "mean-dy", G_TYPE_DOUBLE, -2.0, "area", G_TYPE_INT, 2, "pixels",
          G_TYPE_INT, 160, "track-id", G_TYPE_UINT, 7, "frames", G_TYPE_UINT,
          12, "age", G_TYPE_UINT64, (guint64) (440 * GST_MSECOND), "vx",
          G_TYPE_DOUBLE, 3.0, "vy", G_TYPE_DOUBLE, -4.0, "direction",
          G_TYPE_DOUBLE, atan2 (-4.0, 3.0) * 180.0 / G_PI + 360.0, NULL));
  return buf;
}

/* mvmetastream with `props` ("name=value name=value"); `sink_caps`, when
 * given, is what the harness's sink accepts. */
static GstHarness *
make_harness (const gchar * props, const gchar * sink_caps = NULL)
{
  GstHarness * h = gst_harness_new ("mvmetastream");
  test_set_props (h->element, props);
  if (sink_caps)
    gst_harness_set_sink_caps_str (h, sink_caps);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=40,height=20,framerate=25/1");
  return h;
}

/* The schema version of the harness's negotiated output caps. */
static gint
caps_version (GstHarness * h)
{
  GstCaps * caps = gst_pad_get_current_caps (h->sinkpad);
  gint v = -1;
  fail_unless (caps != NULL);
  fail_unless (
      gst_structure_get_int (gst_caps_get_structure (caps, 0), "version", &v));
  gst_caps_unref (caps);
  return v;
}

static std::string
pull_text (GstHarness * h, GstBuffer ** out = NULL)
{
  GstBuffer * b = gst_harness_pull (h);
  fail_unless (b != NULL);
  std::string s = test_buffer_text (b);
  if (out)
    *out = b;
  else
    gst_buffer_unref (b);
  return s;
}

static const char * GRID =
    "\"grid\":{\"width\":40,\"height\":20,\"block_width\":16,"
    "\"block_height\":16,\"columns\":3,\"rows\":2,\"direction\":\"backward\","
    "\"precision\":0.25,\"method\":\"full\"}";

GST_START_TEST (test_json_exact)
{
  GstHarness * h = make_harness ("camera-id=cam1 vectors=all");
  GstBuffer * out;

  fail_unless_equals_int (gst_harness_push (h, make_input (GST_SECOND)),
      GST_FLOW_OK);
  std::string s = pull_text (h, &out);
  std::string want =
      std::string ("{\"v\":2,\"type\":\"frame\",\"seq\":0,"
                   "\"camera_id\":\"cam1\",\"frame\":0,\"pts\":1000000000,"
                   "\"dts\":1000000000,\"duration\":40000000,\"running_time\":"
                   "1000000000,"
                   "\"ref_pts\":960000000,")
      + GRID
      + ",\"estimated\":true,\"decision\":false,\"moving\":2,"
        "\"global_motion\":null,"
        "\"vectors\":[[0,0,0],[-1.25,2,0],[0.5,0,0],[3,0,1],[0,0,2],[0,-4,4]],"
        "\"regions\":[{\"id\":0,\"x\":16,\"y\":0,\"w\":16,\"h\":16,"
        "\"mean_dx\":-1.25,\"mean_dy\":2,\"area\":1,\"pixels\":256,"
        "\"track\":null}]}\n";
  fail_unless_equals_string (s.c_str (), want.c_str ());
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DTS (out), GST_SECOND);
  fail_unless_equals_uint64 (GST_BUFFER_DURATION (out), 40 * GST_MSECOND);
  const GstStructure * info = gst_mv_stream_info_get (out);
  fail_unless (info != NULL);
  fail_unless_equals_string (gst_structure_get_string (info, "type"), "frame");
  fail_unless_equals_string (gst_structure_get_string (info, "camera-id"),
      "cam1");
  gst_buffer_unref (out);

  /* The default: only the moving blocks as [column, row, dx, dy] (no
   * decision on this meta: the motion-threshold test). */
  g_object_set (h->element, "vectors", 1, "camera-id", NULL, NULL);
  gst_harness_push (h, make_input (2 * GST_SECOND));
  s = pull_text (h);
  fail_unless (strstr (s.c_str (),
                   "\"seq\":1,\"camera_id\":null,"
                   "\"frame\":1,")
          != NULL,
      "%s", s.c_str ());
  fail_unless (strstr (s.c_str (),
                   "\"moving\":2,\"global_motion\":null,\"moving_vectors\":"
                   "[[1,0,-1.25,2],[2,1,0,-4]],\"regions\":")
          != NULL,
      "%s", s.c_str ());

  /* none, no regions; a higher threshold leaves one moving block. */
  g_object_set (h->element, "vectors", 2, "regions", FALSE, "motion-threshold",
      3.0, NULL);
  gst_harness_push (h, make_input (3 * GST_SECOND));
  s = pull_text (h);
  fail_unless (g_str_has_suffix (s.c_str (),
                   "\"estimated\":true,\"decision\":false,"
                   "\"moving\":1,\"global_motion\":null}\n"),
      "%s", s.c_str ());
  fail_unless (test_json_valid (s));
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The start of the frame line of schema `version` for
 * make_decided_input (GST_SECOND), without a camera id, up to "estimated". */
static std::string
decided_head (int version)
{
  return std::string ("{\"v\":") + std::to_string (version)
      + ",\"type\":\"frame\",\"seq\":0,"
        "\"camera_id\":null,\"frame\":0,\"pts\":1000000000,"
        "\"dts\":1000000000,\"duration\":40000000,\"running_time\":"
        "1000000000,\"ref_pts\":960000000,"
      + GRID + ",\"estimated\":true,";
}

/* A motion-start started by track 7, as the element posts it; returns the
 * line it gives. */
static std::string
push_track_start (GstHarness * h)
{
  GstStructure * st = gst_structure_new (GST_MOTION_EVENT_START_NAME,
      "timestamp", G_TYPE_UINT64, (guint64) GST_SECOND, "regions", G_TYPE_INT,
      1, "track-id", G_TYPE_UINT, 7, NULL);
  gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, st));
  return pull_text (h);
}

/* Version 2 with a decision: "moving" and "moving_vectors" are the MOVING
 * blocks (not the threshold's), the camera's motion is written and each
 * region carries its track (null without one). */
GST_START_TEST (test_v2_decision)
{
  GstHarness * h = make_harness ("vectors=all");

  gst_harness_push (h, make_decided_input (GST_SECOND));
  std::string s = pull_text (h);
  fail_unless_equals_int (caps_version (h), 2);
  std::string want = decided_head (2)
      + "\"decision\":true,\"moving\":2,"
        "\"global_motion\":[0.5,-0.25],"
        "\"vectors\":[[0,0,0],[-1.25,2,0],[0.5,0,8],[3,0,1],[0,0,2],"
        "[0,-4,12]],"
        "\"regions\":[{\"id\":0,\"x\":16,\"y\":0,\"w\":16,\"h\":16,"
        "\"mean_dx\":-1.25,\"mean_dy\":2,\"area\":1,\"pixels\":256,"
        "\"track\":null},"
        "{\"id\":7,\"x\":32,\"y\":0,\"w\":8,\"h\":20,"
        "\"mean_dx\":0.25,\"mean_dy\":-2,\"area\":2,\"pixels\":160,"
        "\"track\":{\"id\":7,\"age\":440000000,\"frames\":12,"
        "\"velocity\":[3,-4],\"speed\":5,\"direction\":306.87}}]}\n";
  fail_unless_equals_string (s.c_str (), want.c_str ());
  fail_unless (test_json_valid (s));

  /* The moving blocks are the MOVING ones: (2, 0) below the threshold is
   * in, (1, 0) above it is out. */
  g_object_set (h->element, "vectors", 1, NULL);
  gst_harness_push (h, make_decided_input (2 * GST_SECOND));
  s = pull_text (h);
  fail_unless (strstr (s.c_str (),
                   "\"moving\":2,\"global_motion\":[0.5,-0.25],"
                   "\"moving_vectors\":[[2,0,0.5,0],[2,1,0,-4]],")
          != NULL,
      "%s", s.c_str ());
  /* No MOVING block with a decision: nothing moves, whatever the
   * threshold says, so frames=moving (regions off) leaves the frame out. */
  GstBuffer * in = make_decided_input (3 * GST_SECOND);
  GstMotionVectorsMeta * m = gst_buffer_get_motion_vectors_meta (in);
  for (guint i = 0; i < m->n_vectors; i++)
    m->vectors[i].flags &= ~GST_MOTION_VECTOR_FLAG_MOVING;
  g_object_set (h->element, "regions", FALSE, "frames", 1, NULL);
  gst_harness_push (h, in);
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);

  /* The motion-start names the track that started it. */
  s = push_track_start (h);
  fail_unless (g_str_has_suffix (s.c_str (), "\"regions\":1,\"track_id\":7}\n"),
      "%s", s.c_str ());
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A downstream that accepts only version 1 gets version 1: the threshold's
 * moving blocks, "moving_objects", the track's fields flat in the region,
 * "track" in the event. One that accepts neither does not negotiate. */
GST_START_TEST (test_v1_for_v1_downstream)
{
  GstHarness * h =
      make_harness ("", "application/x-json,format=jsonl,version=(int)1");

  gst_harness_push (h, make_decided_input (GST_SECOND));
  std::string s = pull_text (h);
  fail_unless_equals_int (caps_version (h), 1);
  std::string want = decided_head (1)
      + "\"moving\":2,\"moving_objects\":2,"
        "\"global_motion\":[0.5,-0.25],"
        "\"moving_vectors\":[[1,0,-1.25,2],[2,1,0,-4]],"
        "\"regions\":[{\"id\":0,\"x\":16,\"y\":0,\"w\":16,\"h\":16,"
        "\"mean_dx\":-1.25,\"mean_dy\":2,\"area\":1,\"pixels\":256},"
        "{\"id\":7,\"x\":32,\"y\":0,\"w\":8,\"h\":20,"
        "\"mean_dx\":0.25,\"mean_dy\":-2,\"area\":2,\"pixels\":160,"
        "\"track\":7,\"frames\":12,\"age\":440000000,\"vx\":3,\"vy\":-4,"
        "\"direction\":306.87}]}\n";
  fail_unless_equals_string (s.c_str (), want.c_str ());

  s = push_track_start (h);
  fail_unless (g_str_has_prefix (s.c_str (), "{\"v\":1,"), "%s", s.c_str ());
  fail_unless (g_str_has_suffix (s.c_str (), "\"regions\":1,\"track\":7}\n"),
      "%s", s.c_str ());
  gst_harness_teardown (h);

  /* Either accepted: the latest. */
  h = make_harness ("", "application/x-json,version=(int){1,2}");
  gst_harness_push (h, make_input (GST_SECOND));
  s = pull_text (h);
  fail_unless_equals_int (caps_version (h), 2);
  fail_unless (g_str_has_prefix (s.c_str (), "{\"v\":2,"), "%s", s.c_str ());
  gst_harness_teardown (h);

  h = make_harness ("", "application/x-json,version=(int)3");
  fail_unless (gst_harness_push (h, make_input (GST_SECOND)) != GST_FLOW_OK);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_frames_filter_and_no_meta)
{
  GstHarness * h = make_harness ("frames=moving motion-threshold=100");

  /* No moving block, but a region: kept. */
  gst_harness_push (h, make_input (0));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 1);
  gst_buffer_unref (gst_harness_pull (h));
  /* Neither: left out, but counted in "frame". */
  g_object_set (h->element, "regions", FALSE, NULL);
  gst_harness_push (h, make_input (GST_SECOND));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  g_object_set (h->element, "motion-threshold", 1.0, NULL);
  gst_harness_push (h, make_input (2 * GST_SECOND));
  std::string s = pull_text (h);
  fail_unless (strstr (s.c_str (), "\"seq\":1,") != NULL, "%s", s.c_str ());
  fail_unless (strstr (s.c_str (), "\"frame\":2,") != NULL, "%s", s.c_str ());
  /* frames=none: nothing; a buffer without a meta: nothing. */
  g_object_set (h->element, "frames", 2, NULL);
  gst_harness_push (h, make_input (3 * GST_SECOND));
  gst_harness_push (h, gst_buffer_new_allocate (NULL, 40 * 20, NULL));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

static GstEvent *
motion_event (const gchar * name, GstClockTime t)
{
  GstStructure * s =
      gst_structure_new (name, "timestamp", G_TYPE_UINT64, (guint64) t, NULL);
  if (!strcmp (name, GST_MOTION_EVENT_START_NAME))
    gst_structure_set (s, "regions", G_TYPE_INT, 2, NULL);
  else
    gst_structure_set (s, "duration", G_TYPE_UINT64, (guint64) GST_SECOND,
        "reason", G_TYPE_STRING, "hold-off", NULL);
  return gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, s);
}

GST_START_TEST (test_inband_events)
{
  GstHarness * h = make_harness ("camera-id=door");
  GstSegment seg;
  GstBuffer * out;

  /* A segment starting at 10 s: PTS = running time + 10 s. */
  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.start = seg.time = 10 * GST_SECOND;
  gst_harness_push_event (h, gst_event_new_segment (&seg));

  gst_harness_push_event (h,
      motion_event (GST_MOTION_EVENT_START_NAME, GST_SECOND));
  std::string s = pull_text (h, &out);
  fail_unless_equals_string (s.c_str (),
      "{\"v\":2,\"type\":\"event\","
      "\"seq\":0,\"camera_id\":\"door\",\"event\":\"motion-start\","
      "\"pts\":11000000000,\"running_time\":1000000000,\"regions\":2,"
      "\"track_id\":null}\n");
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 11 * GST_SECOND);
  const GstStructure * info = gst_mv_stream_info_get (out);
  fail_unless_equals_string (gst_structure_get_string (info, "type"), "event");
  fail_unless_equals_string (gst_structure_get_string (info, "event"),
      "motion-start");
  gst_buffer_unref (out);

  /* A frame at 13 s, then a stop dated 12 s: the buffer keeps 13 s. */
  gst_harness_push (h, make_input (13 * GST_SECOND));
  gst_buffer_unref (gst_harness_pull (h));
  gst_harness_push_event (h,
      motion_event (GST_MOTION_EVENT_STOP_NAME, 2 * GST_SECOND));
  s = pull_text (h, &out);
  fail_unless_equals_string (s.c_str (),
      "{\"v\":2,\"type\":\"event\","
      "\"seq\":2,\"camera_id\":\"door\",\"event\":\"motion-stop\","
      "\"pts\":12000000000,\"running_time\":2000000000,"
      "\"duration\":1000000000,\"reason\":\"hold-off\"}\n");
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 13 * GST_SECOND);
  gst_buffer_unref (out);

  /* events=false: none; other custom events: none. */
  g_object_set (h->element, "events", FALSE, NULL);
  gst_harness_push_event (h,
      motion_event (GST_MOTION_EVENT_START_NAME, 4 * GST_SECOND));
  g_object_set (h->element, "events", TRUE, NULL);
  gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
          gst_structure_new_empty ("something-else")));
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* The motion-stop at EOS is dated at the segment's stop: its buffer takes
 * the last frame's PTS so that sinks do not drop it as out of segment. */
GST_START_TEST (test_eos_stop_inside_segment)
{
  GstHarness * h = make_harness ("");
  GstSegment seg;
  GstBuffer * out;

  gst_segment_init (&seg, GST_FORMAT_TIME);
  seg.stop = 2 * GST_SECOND;
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  gst_harness_push (h, make_input (1960 * GST_MSECOND));
  gst_buffer_unref (gst_harness_pull (h));
  GstStructure * st =
      gst_structure_new (GST_MOTION_EVENT_STOP_NAME, "timestamp", G_TYPE_UINT64,
          (guint64) 2 * GST_SECOND, "duration", G_TYPE_UINT64,
          (guint64) GST_SECOND, "reason", G_TYPE_STRING, "eos", NULL);
  gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, st));
  std::string s = pull_text (h, &out);
  fail_unless (strstr (s.c_str (), "\"pts\":2000000000,") != NULL, "%s",
      s.c_str ());
  fail_unless_equals_uint64 (GST_BUFFER_PTS (out), 1960 * GST_MSECOND);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* After a flush the segment is gone: a motion-stop (reason flush, sent
 * after the FLUSH_STOP) has no PTS and waits for the next segment. */
GST_START_TEST (test_stop_after_flush)
{
  GstHarness * h = make_harness ("");
  GstBuffer * out;

  gst_harness_push (h, make_input (GST_SECOND));
  gst_buffer_unref (gst_harness_pull (h));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
  fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
  GstStructure * st = gst_structure_new (GST_MOTION_EVENT_STOP_NAME,
      "timestamp", G_TYPE_UINT64, (guint64) GST_SECOND, "duration",
      G_TYPE_UINT64, (guint64) 0, "reason", G_TYPE_STRING, "flush", NULL);
  gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, st));
  /* Held until the next segment: no data flows before one. */
  fail_unless_equals_int (gst_harness_buffers_in_queue (h), 0);
  GstSegment seg;
  gst_segment_init (&seg, GST_FORMAT_TIME);
  gst_harness_push_event (h, gst_event_new_segment (&seg));
  std::string s = pull_text (h, &out);
  fail_unless (strstr (s.c_str (),
                   "\"pts\":null,\"running_time\":"
                   "1000000000,")
          != NULL,
      "%s", s.c_str ());
  fail_unless (strstr (s.c_str (), "\"reason\":\"flush\"") != NULL);
  fail_unless (!GST_BUFFER_PTS_IS_VALID (out));
  gst_buffer_unref (out);
  gst_harness_teardown (h);
}

GST_END_TEST;

/* A real estimator: the ball of videotestsrc starts moving on frame 1 and
 * stops at EOS. decision=blocks: events on the very frame the ball moves
 * (the stream's order is what is checked here, not the decision). */
#define PIPE                                                                   \
  "videotestsrc num-buffers=30 pattern=ball ! "                                \
  "video/x-raw,width=160,height=120,framerate=30/1 ! "                         \
  "blockmatchme events=true regions=true decision=blocks hold-off=0 ! "        \
  "mvmetastream camera-id=\"cam \\\"1\\\"\" vectors=all ! "

static guint
run_pipeline (GstElement * pipeline)
{
  GstBus * bus = gst_element_get_bus (pipeline);
  guint events = 0;

  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);
  for (;;) {
    GstMessage * msg = gst_bus_timed_pop (bus, 30 * GST_SECOND);
    fail_unless (msg != NULL, "timeout");
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR)
      fail ("error from %s", GST_OBJECT_NAME (GST_MESSAGE_SRC (msg)));
    if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ELEMENT) {
      const GstStructure * s = gst_message_get_structure (msg);
      if (gst_structure_has_name (s, GST_MOTION_EVENT_START_NAME)
          || gst_structure_has_name (s, GST_MOTION_EVENT_STOP_NAME))
        events++;
    }
    const bool eos = GST_MESSAGE_TYPE (msg) == GST_MESSAGE_EOS;
    gst_message_unref (msg);
    if (eos)
      break;
  }
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (bus);
  return events;
}

GST_START_TEST (test_pipeline_filesink)
{
  gchar * path =
      g_build_filename (g_get_tmp_dir (), "mvmetastream-XXXXXX", NULL);
  const int fd = g_mkstemp (path);
  fail_unless (fd >= 0);
  close (fd);
  gchar * desc = g_strdup_printf (PIPE "filesink location=%s", path);
  GstElement * pipeline = gst_parse_launch (desc, NULL);
  fail_unless (pipeline != NULL);
  const guint bus_events = run_pipeline (pipeline);
  gst_object_unref (pipeline);

  gchar * text = NULL;
  fail_unless (g_file_get_contents (path, &text, NULL, NULL));
  gchar ** lines = g_strsplit (text, "\n", -1);
  guint frames = 0, events = 0, n = 0;
  for (; lines[n] && *lines[n]; n++) {
    const std::string l = lines[n];
    fail_unless (test_json_valid (l), "line %u not JSON: %s", n, lines[n]);
    fail_unless_equals_uint64 (json_uint (l, "\"seq\":"), n);
    fail_unless (l.find ("\"camera_id\":\"cam \\\"1\\\"\"")
            != std::string::npos,
        "%s", lines[n]);
    if (l.find ("\"type\":\"frame\"") != std::string::npos) {
      fail_unless_equals_uint64 (json_uint (l, "\"frame\":"), frames);
      /* vectors=all: columns * rows = 10 * 8 entries. */
      const size_t v = l.find ("\"vectors\":[");
      fail_unless (v != std::string::npos);
      const size_t e = l.find ("]]", v);
      fail_unless (e != std::string::npos);
      guint entries = 0;
      for (size_t i = v + strlen ("\"vectors\":["); i < e; i++)
        entries += l[i] == '[';
      fail_unless_equals_int (entries, 80);
      frames++;
    } else {
      fail_unless (l.find ("\"type\":\"event\"") != std::string::npos);
      events++;
    }
  }
  fail_unless (lines[n] && !*lines[n] && !lines[n + 1], "no final newline");
  /* The ball moves from frame 1: its motion-start comes right before the
   * frame object of frame 1, at that frame's time; the EOS stop last. */
  fail_unless (n >= 3);
  fail_unless (strstr (lines[1], "\"event\":\"motion-start\"") != NULL, "%s",
      lines[1]);
  fail_unless (strstr (lines[2], "\"frame\":1,") != NULL, "%s", lines[2]);
  fail_unless_equals_uint64 (json_uint (lines[1], "\"running_time\":"),
      json_uint (lines[2], "\"running_time\":"));
  fail_unless (strstr (lines[n - 1], "\"reason\":\"eos\"") != NULL, "%s",
      lines[n - 1]);
  fail_unless_equals_int (frames, 30);
  fail_unless (bus_events >= 2);
  fail_unless_equals_int (events, bus_events);
  g_strfreev (lines);
  g_free (text);
  g_free (desc);
  g_unlink (path);
  g_free (path);
}

GST_END_TEST;

GST_START_TEST (test_pipeline_appsink)
{
  GstElement * pipeline =
      gst_parse_launch (PIPE "appsink name=sink sync=false max-buffers=0",
          NULL);
  fail_unless (pipeline != NULL);
  GstElement * sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);

  guint frames = 0, events = 0;
  GstClockTime last = 0;
  GstSample * sample;
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    GstCaps * caps = gst_sample_get_caps (sample);
    GstStructure * cs = gst_caps_get_structure (caps, 0);
    fail_unless (gst_structure_has_name (cs, "application/x-json"));
    fail_unless_equals_string (gst_structure_get_string (cs, "format"),
        "jsonl");
    GstBuffer * b = gst_sample_get_buffer (sample);
    const std::string l = test_buffer_text (b);
    const GstStructure * info = gst_mv_stream_info_get (b);
    fail_unless (info != NULL);
    fail_unless (GST_BUFFER_PTS_IS_VALID (b));
    fail_unless (GST_BUFFER_PTS (b) >= last, "PTS went backward");
    last = GST_BUFFER_PTS (b);
    if (!g_strcmp0 (gst_structure_get_string (info, "type"), "frame")) {
      /* The video frame's timestamps. */
      fail_unless_equals_uint64 (GST_BUFFER_PTS (b),
          gst_util_uint64_scale (frames, GST_SECOND, 30));
      fail_unless_equals_uint64 (json_uint (l, "\"pts\":"), GST_BUFFER_PTS (b));
      fail_unless (GST_BUFFER_DURATION_IS_VALID (b));
      frames++;
    } else {
      fail_unless (l.find ("\"event\":\"motion-") != std::string::npos);
      events++;
    }
    gst_sample_unref (sample);
  }
  fail_unless_equals_int (frames, 30);
  fail_unless (events >= 2);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* A flushing seek in a real pipeline: the estimator's motion-stop
 * (reason flush) reaches the stream after the flush, without a data-flow
 * warning, and the stream goes on. */
GST_START_TEST (test_pipeline_flushing_seek)
{
  GstElement * pipeline = gst_parse_launch (
      "videotestsrc pattern=ball "
      "num-buffers=40 ! video/x-raw,width=160,height=120,framerate=30/1 ! "
      "blockmatchme events=true regions=true decision=blocks hold-off=0 ! "
      "mvmetastream "
      "vectors=none ! appsink name=sink sync=false max-buffers=0",
      NULL);
  fail_unless (pipeline != NULL);
  GstElement * sink = gst_bin_get_by_name (GST_BIN (pipeline), "sink");
  fail_unless (gst_element_set_state (pipeline, GST_STATE_PLAYING)
      != GST_STATE_CHANGE_FAILURE);

  guint objects = 0, flush_stops = 0, starts = 0;
  GstSample * sample;
  while ((sample = gst_app_sink_pull_sample (GST_APP_SINK (sink)))) {
    const std::string l = test_buffer_text (gst_sample_get_buffer (sample));
    fail_unless (test_json_valid (l), "%s", l.c_str ());
    flush_stops += l.find ("\"reason\":\"flush\"") != std::string::npos;
    starts += l.find ("\"motion-start\"") != std::string::npos;
    gst_sample_unref (sample);
    if (++objects == 10)
      fail_unless (gst_element_seek_simple (pipeline, GST_FORMAT_TIME,
          (GstSeekFlags) (GST_SEEK_FLAG_FLUSH | GST_SEEK_FLAG_ACCURATE), 0));
  }
  fail_unless_equals_int (flush_stops, 1);
  fail_unless (starts >= 2, "%u motion-start", starts);
  gst_element_set_state (pipeline, GST_STATE_NULL);
  gst_object_unref (sink);
  gst_object_unref (pipeline);
}

GST_END_TEST;

/* ------------------------------------------- a tracked synthetic object */

/* 128x96 GRAY8 at 10 fps: a textured 32x32 object (dark left half, bright
 * right half) at (16 + 4 k, 32) on frame k over a still textured
 * background: 4 px a frame to the right (the scene of the motionevents
 * tests). */
static const int kObjW = 128, kObjH = 96;

static GstBuffer *
object_frame (int k)
{
  std::mt19937 bg (1), fg (2);
  GstBuffer * b = gst_buffer_new_allocate (NULL, kObjW * kObjH, NULL);
  GstMapInfo map;
  fail_unless (gst_buffer_map (b, &map, GST_MAP_WRITE));
  for (int i = 0; i < kObjW * kObjH; i++)
    map.data[i] = (guint8) (40 + bg () % 41);
  const int ox = 16 + 4 * k;
  for (int y = 0; y < 32; y++)
    for (int x = 0; x < 32; x++) {
      const unsigned v = fg ();
      map.data[(32 + y) * kObjW + ox + x] =
          (guint8) (x < 16 ? 40 + v % 41 : 180 + v % 41);
    }
  gst_buffer_unmap (b, &map);
  GST_BUFFER_PTS (b) = k * 100 * GST_MSECOND;
  GST_BUFFER_DURATION (b) = 100 * GST_MSECOND;
  return b;
}

/* The number after `key` at or after `from` (NaN when absent). */
static double
json_number (const std::string & s, const char * key, size_t from = 0)
{
  const size_t p = s.find (key, from);
  if (p == std::string::npos)
    return NAN;
  return g_ascii_strtod (s.c_str () + p + strlen (key), NULL);
}

/* The MOVING blocks of a vectors=all frame object: entries whose flags
 * have bit 8. */
static guint
flagged_blocks (const std::string & s)
{
  const size_t v = s.find ("\"vectors\":[");
  fail_unless (v != std::string::npos, "%s", s.c_str ());
  const char * p = s.c_str () + v + strlen ("\"vectors\":[");
  guint n = 0;
  while (*p == '[') {
    double dx, dy;
    unsigned flags;
    fail_unless (sscanf (p, "[%lf,%lf,%u]", &dx, &dy, &flags) == 3, "%s", p);
    n += (flags & GST_MOTION_VECTOR_FLAG_MOVING) ? 1 : 0;
    p = strchr (p, ']') + 1;
    if (*p == ',')
      p++;
  }
  return n;
}

/* blockmatchme's decision (decision=tracks, the default) on a real moving
 * object, through mvmetastream: version 2's track in the region (id 1,
 * velocity (4, 0) px a frame, direction 0, speed 4, age and frames
 * growing), "moving" equal to the MOVING flags of the field, and the
 * motion-start naming the track. */
GST_START_TEST (test_v2_tracked_object)
{
  GstHarness * h = gst_harness_new_parse (
      "blockmatchme backend=cpu block-size=16 search-range=16 threshold=8 "
      "regions=true events=true ! mvmetastream vectors=all");
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=128,height=96,framerate=10/1");

  guint tracked = 0, starts = 0, decided = 0;
  double last_age = -1.0, last_frames = 0.0;
  for (int k = 0; k < 20; k++) {
    fail_unless_equals_int (gst_harness_push (h, object_frame (k)),
        GST_FLOW_OK);
    GstBuffer * b;
    while ((b = gst_harness_try_pull (h))) {
      const std::string l = test_buffer_text (b);
      gst_buffer_unref (b);
      fail_unless (test_json_valid (l), "%s", l.c_str ());
      fail_unless (g_str_has_prefix (l.c_str (), "{\"v\":2,"), "%s",
          l.c_str ());
      if (l.find ("\"motion-start\"") != std::string::npos) {
        fail_unless (l.find ("\"track_id\":1}") != std::string::npos, "%s",
            l.c_str ());
        starts++;
        continue;
      }
      if (l.find ("\"type\":\"frame\"") == std::string::npos)
        continue;
      if (l.find ("\"decision\":true") == std::string::npos)
        continue; /* the first frame: no estimate, no decision */
      decided++;
      fail_unless_equals_int ((guint) json_number (l, "\"moving\":"),
          flagged_blocks (l));
      /* A still camera. */
      fail_unless (fabs (json_number (l, "\"global_motion\":[")) < 0.5, "%s",
          l.c_str ());
      const size_t t = l.find ("\"track\":{");
      if (t == std::string::npos)
        continue;
      tracked++;
      fail_unless_equals_int ((int) json_number (l, "\"id\":", t), 1);
      const double vx = json_number (l, "\"velocity\":[", t);
      const size_t comma = l.find (',', l.find ("\"velocity\":[", t));
      const double vy = g_ascii_strtod (l.c_str () + comma + 1, NULL);
      const double speed = json_number (l, "\"speed\":", t);
      const double dir = json_number (l, "\"direction\":", t);
      const double age = json_number (l, "\"age\":", t);
      const double frames = json_number (l, "\"frames\":", t);
      fail_unless (fabs (vx - 4.0) < 0.5 && fabs (vy) < 0.5,
          "velocity (%g, %g): %s", vx, vy, l.c_str ());
      fail_unless (fabs (speed - hypot (vx, vy)) < 1e-3 * speed, "%s",
          l.c_str ());
      /* 0 = right, 90 = down: right is 0 (or just under 360). */
      fail_unless (dir < 10.0 || dir > 350.0, "direction %g", dir);
      fail_unless (age > last_age && frames > last_frames, "%s", l.c_str ());
      fail_unless (age <= k * 100 * GST_MSECOND, "%s", l.c_str ());
      last_age = age;
      last_frames = frames;
    }
  }
  fail_unless (decided >= 18, "%u frames with a decision", decided);
  fail_unless (tracked >= 5, "%u frames with a track", tracked);
  fail_unless_equals_int (starts, 1);
  gst_harness_teardown (h);
}

GST_END_TEST;

GST_START_TEST (test_property_stress)
{
  GstHarness * h = make_harness ("");
  GValue id = G_VALUE_INIT;
  g_value_init (&id, G_TYPE_STRING);
  g_value_set_string (&id, "stress");
  GstHarnessThread * t[4];
  t[0] = gst_harness_stress_property_start_full (h, "camera-id", &id, 100);
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_DOUBLE);
  g_value_set_double (&v, 2.0);
  t[1] =
      gst_harness_stress_property_start_full (h, "motion-threshold", &v, 100);
  GValue b = G_VALUE_INIT;
  g_value_init (&b, G_TYPE_BOOLEAN);
  g_value_set_boolean (&b, FALSE);
  t[2] = gst_harness_stress_property_start_full (h, "regions", &b, 100);
  t[3] = gst_harness_stress_property_start_full (h, "events", &b, 100);
  for (int i = 0; i < 200; i++) {
    gst_harness_push (h, make_input ((i + 1) * 40 * GST_MSECOND));
    gst_buffer_unref (gst_harness_pull (h));
  }
  for (auto th : t)
    gst_harness_stress_thread_stop (th);
  g_value_unset (&id);
  gst_harness_teardown (h);
}

GST_END_TEST;

static Suite *
mvmetastream_suite (void)
{
  Suite * s = suite_create ("mvmetastream");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_json_exact);
  tcase_add_test (tc, test_v2_decision);
  tcase_add_test (tc, test_v1_for_v1_downstream);
  tcase_add_test (tc, test_v2_tracked_object);
  tcase_add_test (tc, test_frames_filter_and_no_meta);
  tcase_add_test (tc, test_inband_events);
  tcase_add_test (tc, test_eos_stop_inside_segment);
  tcase_add_test (tc, test_stop_after_flush);
  tcase_add_test (tc, test_pipeline_filesink);
  tcase_add_test (tc, test_pipeline_appsink);
  tcase_add_test (tc, test_pipeline_flushing_seek);
  tcase_add_test (tc, test_property_stress);
  return s;
}

GST_CHECK_MAIN (mvmetastream);
