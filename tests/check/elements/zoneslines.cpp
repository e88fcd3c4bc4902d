/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Tripwires and zones (the `lines` and `zones` properties,
 * gst/common/mvlines.h, mvzones.h): the syntax; synthetic tracks crossing
 * lines (exact counts in each direction, once per crossing whatever the
 * jitter on the line, none beyond a line's ends, ids forgotten on a new
 * stream) and entering zones (dwell, direction filter, hold-off, reset);
 * and blockmatchme's tracks: a square crossing a line posts one
 * line-crossed message, also in-band, and moves from one zone to the next,
 * the zone against its way never starting; on the bundled real clip, zone
 * events in turn, the direction filters kept by the tracks that start
 * them, crossings counted one by one; mvmetastream writes them and
 * mvoverlay draws them.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <glib/gstdio.h>
#include <gst/motionvectors/motionvectors.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "common/checkutil.h"
#include "common/mvlines.h"
#include "common/mvzones.h"

GST_START_TEST (test_parse)
{
  std::vector<MvLine> lines;
  std::string error;
  fail_unless (mv_lines_parse ("gate=0.2,0.5 0.8,0.5; door-2 = 0.5,0 , 0.5,1",
                   &lines, &error)
      == false);
  fail_unless (mv_lines_parse (" gate=0.2,0.5 0.8,0.5; door-2 = 0.5, 0 0.5,1 ;",
                   &lines, &error),
      "%s", error.c_str ());
  fail_unless_equals_int ((gint) lines.size (), 2);
  fail_unless (lines[0].name == "gate" && lines[1].name == "door-2");
  fail_unless_equals_float (lines[0].x0, 0.2);
  fail_unless_equals_float (lines[0].y1, 0.5);
  fail_unless_equals_float (lines[1].y1, 1.0);
  fail_unless (mv_lines_parse ("", &lines, &error));
  fail_unless (lines.empty ());
  fail_unless (mv_lines_parse (NULL, &lines, &error));
  /* Refused, *out untouched. */
  lines.push_back (MvLine ());
  const char * bad[] = { "=0,0 1,1", "a 0,0 1,1", "a=0,0", "a=0,0 1",
    "a=0,0 1,1.5", "a=-0.1,0 1,1", "a=0.5,0.5 0.5,0.5", "a=0,0 1,1;a=0,1 1,0",
    "a=0,0 1,1 b=0,0 1,1", "a=0,0 1,1e0", "a=0,0 x,1" };
  for (const char * b : bad) {
    error.clear ();
    fail_if (mv_lines_parse (b, &lines, &error), "accepted \"%s\"", b);
    fail_if (error.empty ());
    fail_unless_equals_int ((gint) lines.size (), 1);
  }
}
GST_END_TEST;

/* A 200 x 100 frame; line "v" from (100, 100) up to (100, 0): positive is
 * rightwards. */
static std::vector<MvLine>
vertical_line (void)
{
  std::vector<MvLine> l;
  fail_unless (mv_lines_parse ("v=0.5,1 0.5,0", &l, NULL));
  return l;
}

GST_START_TEST (test_counts)
{
  MvLineCounter c;
  c.set_lines (vertical_line ());
  std::vector<MvCrossing> out;
  auto step = [&] (std::vector<MvTrackPoint> pts) {
    c.process (pts.data (), pts.size (), 200, 100, &out);
  };
  /* Track 1 goes right across, track 2 left across, on the same frames. */
  for (int f = 0; f <= 20; f++)
    step ({ { 1, 60.0 + 4 * f, 50 }, { 2, 150.0 - 4 * f, 30 } });
  fail_unless_equals_int ((gint) out.size (), 2);
  fail_unless_equals_uint64 (c.positive (0), 1);
  fail_unless_equals_uint64 (c.negative (0), 1);
  for (const MvCrossing & x : out)
    fail_unless_equals_int (x.direction, x.track == 1 ? 1 : -1);

  /* Track 3 jitters on the line (within the band: 1 % of the diagonal,
   * 2.2 px), then leaves to the right: one crossing, when it leaves. */
  out.clear ();
  step ({ { 3, 80, 60 } });
  const double jitter[] = { 98, 102, 99, 101.5, 98.5, 102, 100 };
  for (double x : jitter)
    step ({ { 3, x, 60 } });
  fail_unless (out.empty ());
  step ({ { 3, 110, 60 } });
  fail_unless_equals_int ((gint) out.size (), 1);
  fail_unless_equals_int (out[0].direction, 1);
  fail_unless_equals_uint64 (out[0].positive, 2);
  /* ... and back, and back again: two more. */
  step ({ { 3, 90, 60 } });
  step ({ { 3, 110, 60 } });
  fail_unless_equals_uint64 (c.positive (0), 3);
  fail_unless_equals_uint64 (c.negative (0), 2);

  /* Beyond a line's ends: "h" runs from (50, 50) to (150, 50); tracks
   * passing y = 50 at x = 40 or 160 do not cross it, one at x = 100 does. */
  MvLineCounter d;
  std::vector<MvLine> h;
  fail_unless (mv_lines_parse ("h=0.25,0.5 0.75,0.5", &h, NULL));
  d.set_lines (h);
  out.clear ();
  for (int f = 0; f <= 10; f++) {
    std::vector<MvTrackPoint> pts = { { 7, 40, 20.0 + 6 * f },
      { 8, 160, 80.0 - 6 * f }, { 9, 100, 20.0 + 6 * f } };
    d.process (pts.data (), pts.size (), 200, 100, &out);
  }
  fail_unless_equals_int ((gint) out.size (), 1);
  fail_unless_equals_int ((gint) out[0].track, 9);
  /* Going down across a line drawn left to right: from its left (above)
   * to its right (below), positive. */
  fail_unless_equals_int (out[0].direction, 1);

  /* A track first seen inside the band takes the side it leaves it on,
   * without a crossing; forget_tracks () keeps the counts, set_lines ()
   * clears them. */
  out.clear ();
  MvTrackPoint p = { 11, 100, 51 };
  d.process (&p, 1, 200, 100, &out);
  p.y = 70;
  d.process (&p, 1, 200, 100, &out);
  fail_unless (out.empty ());
  d.forget_tracks ();
  p.y = 20; /* as a new track: no crossing */
  d.process (&p, 1, 200, 100, &out);
  fail_unless (out.empty ());
  fail_unless_equals_uint64 (d.positive (0), 1);
  d.set_lines (h);
  fail_unless_equals_uint64 (d.positive (0), 0);
  /* Degenerate frames count nothing. */
  d.process (&p, 1, 0, 100, &out);
  fail_unless (out.empty ());
}
GST_END_TEST;

GST_START_TEST (test_zone_parse)
{
  std::vector<MvZone> z;
  std::string error;
  fail_unless (mv_zones_parse ("door=0.1,0.1 0.4,0.1 0.4,0.6 sensitivity=70 "
                               "direction=90/45; yard = 0,0 1,0 1,1 0,1",
                   &z, &error),
      "%s", error.c_str ());
  fail_unless_equals_int ((gint) z.size (), 2);
  fail_unless (z[0].name == "door" && z[0].x.size () == 3);
  fail_unless_equals_uint64 (z[0].dwell, 300 * GST_MSECOND);
  fail_unless (z[0].has_direction);
  fail_unless_equals_float (z[0].direction, 90.0);
  fail_unless_equals_float (z[0].tolerance, 45.0);
  fail_unless_equals_uint64 (z[1].dwell, 0);
  fail_if (z[1].has_direction);
  fail_unless_equals_uint64 (mv_zone_dwell (0), GST_SECOND);
  const char * bad[] = { "a=0,0 1,0", "a=0,0 1,0 1,1 sensitivity=101",
    "a=0,0 1,0 1,1 sensitivity=5.5", "a=0,0 1,0 1,1 direction=90",
    "a=0,0 1,0 1,1 direction=90/200", "a=0,0 1,0 1,1 colour=2",
    "a=0,0 1,0 1.2,1", "a=0,0 1,0 1,1;a=0,0 1,0 1,1", "=0,0 1,0 1,1",
    "a 0,0 1,0 1,1", "a=0,0 1,0 1,1 sensitivity" };
  for (const char * b : bad) {
    error.clear ();
    fail_if (mv_zones_parse (b, &z, &error), "accepted \"%s\"", b);
    fail_if (error.empty ());
    fail_unless_equals_int ((gint) z.size (), 2);
  }
  /* Inside: a concave polygon (an L). */
  MvZone l;
  fail_unless (mv_zones_parse ("l=0,0 0.5,0 0.5,0.5 1,0.5 1,1 0,1", &z, NULL));
  l = z[0];
  fail_unless (mv_zone_contains (l, 0.25, 0.25));
  fail_unless (mv_zone_contains (l, 0.75, 0.75));
  fail_if (mv_zone_contains (l, 0.75, 0.25));
  fail_if (mv_zone_contains (l, 1.5, 0.75));
}
GST_END_TEST;

GST_START_TEST (test_zone_watch)
{
  std::vector<MvZone> z;
  /* "left" half with a dwell of 0.2 s, "right" half for rightward motion
   * only; a 200 x 100 frame, frames 40 ms apart, hold-off 0.5 s. */
  fail_unless (mv_zones_parse ("left=0,0 0.5,0 0.5,1 0,1 sensitivity=80;"
                               "right=0.5,0 1,0 1,1 0.5,1 direction=0/45",
      &z, NULL));
  MvZoneWatcher w;
  w.set_zones (z);
  std::vector<MvZoneEvent> out;
  const uint64_t hold = 500 * GST_MSECOND, dt = 40 * GST_MSECOND;
  uint64_t t = 0;
  auto step = [&] (std::vector<MvTrackPoint> tr) {
    w.process (tr.data (), tr.size (), 200, 100, t, hold, &out);
    t += dt;
  };
  /* Track 4 stays in the left half: the zone starts after 0.2 s inside. */
  for (int f = 0; f < 5; f++)
    step ({ { 4, 50, 50, 0.5, 0 } });
  fail_unless (out.empty ());
  step ({ { 4, 50, 50, 0.5, 0 } });
  fail_unless_equals_int ((gint) out.size (), 1);
  fail_unless (out[0].start && out[0].zone == 0 && out[0].track == 4);
  fail_unless_equals_uint64 (out[0].time, 200 * GST_MSECOND);
  /* Track 5 moves left in the right half (against its filter) and track
   * 6 sits still there (no direction): the right zone stays idle. */
  out.clear ();
  for (int f = 0; f < 10; f++)
    step ({ { 4, 50, 50, 0, 0 }, { 5, 180.0 - 2 * f, 50, -2, 0 },
        { 6, 150, 20, 0, 0.1 } });
  fail_unless (out.empty ());
  fail_if (w.active (1));
  /* Track 5 turns right: the right zone starts at once (no dwell). */
  step ({ { 4, 50, 50, 0, 0 }, { 5, 162, 50, 2, 0 } });
  fail_unless_equals_int ((gint) out.size (), 1);
  fail_unless (out[0].start && out[0].zone == 1 && out[0].track == 5);
  /* Everyone leaves: each zone stops 0.5 s after its last track, dated
   * at its first frame without one. */
  out.clear ();
  const uint64_t quiet = t;
  for (int f = 0; f < 14; f++) /* 0.52 s */
    step ({});
  fail_unless_equals_int ((gint) out.size (), 2);
  for (const MvZoneEvent & e : out) {
    fail_if (e.start);
    fail_unless_equals_uint64 (e.time, quiet);
    fail_unless_equals_string (e.reason, "hold-off");
  }
  fail_unless_equals_uint64 (out[0].duration, quiet - 200 * GST_MSECOND);
  /* reset () stops an active zone with its reason. */
  out.clear ();
  for (int f = 0; f < 6; f++)
    step ({ { 9, 40, 40, 0, 0 } });
  fail_unless_equals_int ((gint) out.size (), 1);
  w.reset ("flush", &out);
  fail_unless_equals_int ((gint) out.size (), 2);
  fail_unless_equals_string (out[1].reason, "flush");
  fail_if (w.active (0));
}
GST_END_TEST;

/* The square of the tests (tests/common/checkutil.h). */
static GstBuffer *
moving_square (guint n)
{
  return test_moving_square (n, 28, 10, 46, 4, 0);
}

/* Plays `pipe` (tests/common/checkutil.h) on the first n squares (their
 * bytes appended to *text when given). */
static void
play_squares (GstElement * pipe, guint n, std::string * text = NULL)
{
  std::vector<GstBuffer *> out;
  test_play_frames (pipe, n, moving_square, &out);
  for (GstBuffer * b : out) {
    if (text)
      text->append (test_buffer_text (b));
    gst_buffer_unref (b);
  }
}

static GstPadProbeReturn
count_inband (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  GstEvent * e = GST_PAD_PROBE_INFO_EVENT (info);
  const GstStructure * s = gst_event_get_structure (e);
  if (GST_EVENT_TYPE (e) == GST_EVENT_CUSTOM_DOWNSTREAM && s
      && gst_structure_has_name (s, GST_MOTION_EVENT_LINE_CROSSED_NAME))
    (*(guint *) data)++;
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_element_lines)
{
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (
      "appsrc name=src format=time "
      "caps=video/x-raw,format=GRAY8,width=160,height=120,framerate=25/1 ! "
      "blockmatchme name=me backend=cpu regions=true events=true "
      "lines=\"up=0.5,1 0.5,0;aside=0.9,0.9 1,1\" ! "
      "appsink name=sink sync=false",
      &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  GstElement * me = gst_bin_get_by_name (GST_BIN (pipe), "me");
  gchar * lines = NULL;
  g_object_get (me, "lines", &lines, NULL);
  fail_unless_equals_string (lines, "up=0.5,1 0.5,0;aside=0.9,0.9 1,1");
  g_free (lines);
  guint inband = 0;
  GstPad * src_pad = gst_element_get_static_pad (me, "src");
  gst_pad_add_probe (src_pad, GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM, count_inband,
      &inband, NULL);
  gst_object_unref (src_pad);
  GstBus * bus = gst_element_get_bus (pipe);
  play_squares (pipe, 30);

  guint crossings = 0;
  GstMessage * m;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure * st = gst_message_get_structure (m);
    if (gst_structure_has_name (st, GST_MOTION_EVENT_LINE_CROSSED_NAME)) {
      crossings++;
      guint track = 0;
      guint64 pos = 0, neg = 0, ts = 0;
      fail_unless (gst_structure_get (st, "track-id", G_TYPE_UINT, &track,
          "positive", G_TYPE_UINT64, &pos, "negative", G_TYPE_UINT64, &neg,
          "timestamp", G_TYPE_UINT64, &ts, NULL));
      fail_unless_equals_string (gst_structure_get_string (st, "line"), "up");
      fail_unless_equals_string (gst_structure_get_string (st, "direction"),
          "positive");
      fail_unless (track > 0);
      fail_unless_equals_uint64 (pos, 1);
      fail_unless_equals_uint64 (neg, 0);
      /* The square's centre passes x = 80 at frame 14 or 15. */
      fail_unless (ts >= 13 * 40 * GST_MSECOND && ts <= 17 * 40 * GST_MSECOND,
          "at %" GST_TIME_FORMAT, GST_TIME_ARGS (ts));
    }
    gst_message_unref (m);
  }
  fail_unless_equals_int (crossings, 1);
  fail_unless_equals_int (inband, 1);

  /* An invalid value is refused with a warning; the lines stay. */
  ASSERT_WARNING (g_object_set (me, "lines", "up=0.5,1", NULL));
  g_object_get (me, "lines", &lines, NULL);
  fail_unless_equals_string (lines, "up=0.5,1 0.5,0;aside=0.9,0.9 1,1");
  g_free (lines);

  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (me);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* The square moves right from x = 10 to 126 (centre 24 .. 140): it
 * starts the left zone, then the right one; "back" (the right half,
 * leftward motion only) never starts. The zones' messages carry their
 * names, in-band too. */
GST_START_TEST (test_element_zones)
{
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (
      "appsrc name=src format=time "
      "caps=video/x-raw,format=GRAY8,width=160,height=120,framerate=25/1 ! "
      "blockmatchme name=me backend=cpu regions=true events=true "
      "zones=\"left=0,0 0.5,0 0.5,1 0,1;right=0.5,0 1,0 1,1 0.5,1;"
      "back=0.5,0 1,0 1,1 0.5,1 direction=180/60\" ! "
      "appsink name=sink sync=false",
      &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  GstBus * bus = gst_element_get_bus (pipe);
  play_squares (pipe, 30);

  std::vector<std::string> seen;
  GstMessage * m;
  while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
    const GstStructure * st = gst_message_get_structure (m);
    const gchar * zone = gst_structure_get_string (st, "zone");
    if (zone)
      seen.push_back (std::string (gst_structure_get_name (st)) + " " + zone);
    gst_message_unref (m);
  }
  /* left starts, right starts (the square's centre passes x = 80), and
   * at EOS whichever is still on stops. */
  fail_unless (seen.size () >= 2 && seen[0] == "motion-start left", "%s",
      seen.empty () ? "(none)" : seen[0].c_str ());
  gboolean right = FALSE;
  for (const std::string & e : seen) {
    fail_if (e.find ("back") != std::string::npos, "%s", e.c_str ());
    right |= e == "motion-start right";
  }
  fail_unless (right);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* The tracks' velocities on each frame (pts -> track id -> vx, vy), from
 * the ROI metas leaving the estimator. */
typedef std::map<guint64, std::map<guint, std::pair<double, double>>>
    Velocities;

static GstPadProbeReturn
keep_velocities (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  GstBuffer * b = GST_PAD_PROBE_INFO_BUFFER (info);
  for (GstVideoRegionOfInterestMeta * roi : test_motion_rois (b)) {
    GstMotionRegion r;
    if (gst_motion_region_from_roi_meta (roi, &r) && r.track_id)
      (*(Velocities *) data)[GST_BUFFER_PTS (b)][r.track_id] = { r.vx, r.vy };
  }
  return GST_PAD_PROBE_OK;
}

/* On the bundled real clip (pedestrians walking both ways): a zone over
 * the whole frame starts and stops in turn; two more over it, for
 * rightward and for leftward motion only, are started only by tracks
 * moving their way on that frame (within the 60 degrees); the line's
 * crossings count up by one each, in the direction they name. */
GST_START_TEST (test_real_clip)
{
  const gchar * files = g_getenv ("GST_TEST_FILES_PATH");
  gchar * clip = g_build_filename (files ? files : ".", "..", "..", "data",
      "vtest-pedestrians.ogv", NULL);
  if (!test_can_decode_ogg_theora ()
      || !g_file_test (clip, G_FILE_TEST_EXISTS)) {
    g_print ("test_real_clip: skipped (no clip or Theora decoder here)\n");
    g_free (clip);
    return;
  }
  gchar * desc = g_strdup_printf (
      "filesrc location=\"%s\" ! decodebin ! "
      "videoconvert ! blockmatchme name=me backend=cpu regions=true "
      "events=true lines=\"crossing=0.05,0.62 0.95,0.62\" "
      "zones=\"all=0,0 1,0 1,1 0,1;right=0,0 1,0 1,1 0,1 direction=0/60;"
      "left=0,0 1,0 1,1 0,1 direction=180/60\" ! fakesink",
      clip);
  g_free (clip);
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (desc, &err);
  g_free (desc);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  Velocities v;
  test_probe_buffers (pipe, "me", "src", keep_velocities, &v);
  GstBus * bus = gst_element_get_bus (pipe);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  /* The messages, read once the stream has ended (the estimator posts a
   * frame's events before the frame reaches the probe). */
  std::vector<GstMessage *> messages;
  GstMessage * m;
  while ((m = gst_bus_timed_pop_filtered (bus, 120 * GST_SECOND,
              (GstMessageType) (GST_MESSAGE_ELEMENT | GST_MESSAGE_EOS
                  | GST_MESSAGE_ERROR)))) {
    if (GST_MESSAGE_TYPE (m) == GST_MESSAGE_ELEMENT) {
      messages.push_back (m);
      continue;
    }
    fail_unless (GST_MESSAGE_TYPE (m) == GST_MESSAGE_EOS);
    gst_message_unref (m);
    break;
  }
  std::map<std::string, bool> active;
  std::map<std::string, guint> starts;
  guint64 crossings = 0;
  for (GstMessage * m : messages) {
    const GstStructure * st = gst_message_get_structure (m);
    const gchar * zone = gst_structure_get_string (st, "zone");
    guint64 ts = 0;
    gst_structure_get_uint64 (st, "timestamp", &ts);
    if (gst_structure_has_name (st, GST_MOTION_EVENT_LINE_CROSSED_NAME)) {
      guint64 pos = 0, neg = 0;
      fail_unless (gst_structure_get (st, "positive", G_TYPE_UINT64, &pos,
          "negative", G_TYPE_UINT64, &neg, NULL));
      crossings++;
      fail_unless_equals_uint64 (pos + neg, crossings);
    } else if (zone
        && gst_structure_has_name (st, GST_MOTION_EVENT_START_NAME)) {
      fail_if (active[zone], "%s started twice", zone);
      active[zone] = true;
      starts[zone]++;
      guint track = 0;
      fail_unless (gst_structure_get_uint (st, "track-id", &track));
      if (strcmp (zone, "all") != 0) {
        /* Running time = PTS here (one segment from 0). */
        fail_unless (v.count (ts) && v[ts].count (track),
            "%s: no region of track %u at %" GST_TIME_FORMAT, zone, track,
            GST_TIME_ARGS (ts));
        const auto vel = v[ts][track];
        const double a = std::atan2 (vel.second, vel.first) * 180.0 / M_PI;
        const double want = strcmp (zone, "right") == 0 ? 0.0 : 180.0;
        fail_unless (std::fabs (std::fmod (a - want + 540.0, 360.0) - 180.0)
                <= 60.0,
            "%s started by track %u moving at %.0f degrees", zone, track, a);
      }
    } else if (zone
        && gst_structure_has_name (st, GST_MOTION_EVENT_STOP_NAME)) {
      fail_unless (active[zone], "%s stopped while still", zone);
      active[zone] = false;
    }
    gst_message_unref (m);
  }
  g_print ("test_real_clip: zone starts: all %u, right %u, left %u; %u "
           "crossings\n",
      starts["all"], starts["right"], starts["left"], (guint) crossings);
  fail_unless (starts["all"] >= 1);
  fail_unless (starts["right"] >= 1 && starts["left"] >= 1, "right %u, left %u",
      starts["right"], starts["left"]);
  fail_unless (crossings >= 1);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* mvmetastream writes them: the zones' events with "zone", the regions
 * with the zones they are in, the crossings as "line-crossed" events. */
GST_START_TEST (test_json)
{
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (
      "appsrc name=src format=time "
      "caps=video/x-raw,format=GRAY8,width=160,height=120,framerate=25/1 ! "
      "blockmatchme backend=cpu regions=true events=true "
      "zones=\"left=0,0 0.5,0 0.5,1 0,1\" lines=\"up=0.5,1 0.5,0\" ! "
      "mvmetastream frames=moving vectors=none ! appsink name=sink sync=false",
      &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  std::string all;
  play_squares (pipe, 30, &all);
  fail_unless (all.find ("\"event\":\"motion-start\",") != std::string::npos);
  fail_unless (all.find ("\"zone\":\"left\"") != std::string::npos, "%s",
      all.c_str ());
  /* The regions name the zones they are in. */
  fail_unless (all.find ("\"zones\":[\"left\"]") != std::string::npos, "%s",
      all.c_str ());
  fail_unless (all.find ("\"event\":\"line-crossed\"") != std::string::npos
          && all.find ("\"line\":\"up\"") != std::string::npos
          && all.find ("\"direction\":\"positive\",\"positive\":1,"
                       "\"negative\":0")
              != std::string::npos,
      "%s", all.c_str ());
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* Frame n of a flat grey (100) 64 x 48 GRAY8 clip at 25 fps. */
static GstBuffer *
flat_frame (guint n)
{
  GstBuffer * b = gst_buffer_new_allocate (NULL, 64 * 48, NULL);
  gst_buffer_memset (b, 0, 100, 64 * 48);
  GST_BUFFER_PTS (b) = n * 40 * GST_MSECOND;
  GST_BUFFER_DURATION (b) = 40 * GST_MSECOND;
  return b;
}

/* mvoverlay draws the zones and lines the estimator attaches to each frame
 * (white over black on GRAY8): on a flat 64 x 48 frame, the line's pixels
 * and the zone's edge change, the rest does not; rules=false draws
 * nothing. */
GST_START_TEST (test_overlay)
{
  for (gboolean rules : { (gboolean) TRUE, (gboolean) FALSE }) {
    gchar * desc = g_strdup_printf (
        "appsrc name=src format=time "
        "caps=video/x-raw,format=GRAY8,width=64,height=48,framerate=25/1 ! "
        "blockmatchme backend=cpu regions=true events=true "
        "lines=\"l=0.25,0.5 0.75,0.5\" zones=\"z=0.1,0.1 0.9,0.1 0.9,0.9\" ! "
        "mvoverlay mode=none rules=%d ! appsink name=sink sync=false",
        rules);
    GstElement * pipe = gst_parse_launch (desc, NULL);
    g_free (desc);
    fail_unless (pipe != NULL);
    std::vector<GstBuffer *> out;
    test_play_frames (pipe, 3, flat_frame, &out);
    guint n = 0;
    for (GstBuffer * b : out) {
      GstMapInfo map;
      fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
      const guint8 * px = map.data;
      /* Frame 0 has no estimate: nothing judged, nothing drawn. */
      const gboolean drawn = rules && n > 0;
      fail_unless_equals_int (px[24 * 64 + 32], drawn ? 255 : 100);
      fail_unless_equals_int (px[25 * 64 + 32], drawn ? 0 : 100);
      fail_unless_equals_int (px[5 * 64 + 32], drawn ? 255 : 100); /* edge */
      fail_unless_equals_int (px[40 * 64 + 60], 100);              /* outside */
      fail_unless_equals_int (px[30 * 64 + 20], 100);              /* inside */
      gst_buffer_unmap (b, &map);
      gst_buffer_unref (b);
      n++;
    }
    fail_unless_equals_int (n, 3);
    gst_element_set_state (pipe, GST_STATE_NULL);
    gst_object_unref (pipe);
  }
}
GST_END_TEST;

/* rules-file: a JSON file of zones and lines becomes the two properties
 * (read back in their syntax); a missing, malformed or invalid file is
 * refused with a warning and changes nothing. */
GST_START_TEST (test_rules_file)
{
  GstElement * me = gst_element_factory_make ("blockmatchme", NULL);
  fail_unless (me != NULL);
  gchar * dir = g_dir_make_tmp ("zoneslines-XXXXXX", NULL);
  fail_unless (dir != NULL);
  auto write = [&] (const char * name, const char * text) {
    gchar * path = g_build_filename (dir, name, NULL);
    fail_unless (g_file_set_contents (path, text, -1, NULL));
    return path;
  };
  gchar * good = write ("good.json",
      "{\"zones\": [{\"name\": \"door\", \"points\": [[0.1, 0.2], [0.4, "
      "0.2], [0.4, 0.9]], \"sensitivity\": 70, \"direction\": 90, "
      "\"tolerance\": 45}, {\"name\": \"yard\", \"points\": [[0, 0], [1, 0], "
      "[1, 1]]}], \"lines\": [{\"name\": \"gate\", \"points\": [[0.2, "
      "0.5], [0.8, 0.5]]}]}");
  g_object_set (me, "rules-file", good, NULL);
  gchar *zones = NULL, *lines = NULL, *file = NULL;
  g_object_get (me, "zones", &zones, "lines", &lines, "rules-file", &file,
      NULL);
  fail_unless_equals_string (zones,
      "door=0.1,0.2 0.4,0.2 0.4,0.9 sensitivity=70 direction=90/45;"
      "yard=0,0 1,0 1,1");
  fail_unless_equals_string (lines, "gate=0.2,0.5 0.8,0.5");
  fail_unless_equals_string (file, good);
  g_free (zones);
  g_free (lines);
  g_free (file);
  const char * bad[] = { "{\"zones\": [{\"name\": \"a\", \"points\": "
                         "[[0, 0], [1, 0]]}]}",
    "{\"zones\": [{\"points\": [[0, 0], [1, 0], [1, 1]]}]}",
    "{\"lines\": [{\"name\": \"l\", \"points\": [[0, 0], [2, 1]]}]}",
    "{\"lines\": [{\"name\": \"l\", \"points\": [[0, \"x\"], [1, 1]]}]}",
    "[1, 2]", "{\"zones\": 3}", "{not json" };
  for (const char * b : bad) {
    gchar * path = write ("bad.json", b);
    ASSERT_WARNING (g_object_set (me, "rules-file", path, NULL));
    g_object_get (me, "lines", &lines, "rules-file", &file, NULL);
    fail_unless_equals_string (lines, "gate=0.2,0.5 0.8,0.5");
    fail_unless_equals_string (file, good);
    g_free (lines);
    g_free (file);
    g_unlink (path);
    g_free (path);
  }
  ASSERT_WARNING (g_object_set (me, "rules-file", "/nonexistent/r.json", NULL));
  g_unlink (good);
  g_free (good);
  g_rmdir (dir);
  g_free (dir);
  gst_object_unref (me);
}
GST_END_TEST;

static Suite *
zoneslines_suite (void)
{
  Suite * s = suite_create ("zoneslines");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_parse);
  tcase_add_test (tc, test_counts);
  tcase_add_test (tc, test_element_lines);
  tcase_add_test (tc, test_zone_parse);
  tcase_add_test (tc, test_zone_watch);
  tcase_add_test (tc, test_element_zones);
  tcase_add_test (tc, test_real_clip);
  tcase_add_test (tc, test_json);
  tcase_add_test (tc, test_overlay);
  tcase_add_test (tc, test_rules_file);
  return s;
}

GST_CHECK_MAIN (zoneslines);
