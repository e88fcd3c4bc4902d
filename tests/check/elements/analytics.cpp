/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The moving regions as GstAnalytics entries (built with GStreamer's
 * analytics library, >= 1.24): each "motion" ROI meta's id is the id of an
 * object-detection entry of type "motion" with the ROI's box, related to a
 * tracking entry with the region's track id, first seen when the track
 * began and last seen on this frame; with decision=blocks detection entries
 * alone, numbered as the regions. mvmetastream keeps writing the track id
 * as the region's id. GStreamer's objectdetectionoverlay draws the boxes:
 * its changed pixels are the boxes' outlines.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/analytics/analytics.h>
#include <gst/motionvectors/motionvectors.h>
#include <gst/video/video.h>

#include <cstdlib>
#include <set>
#include <string>
#include <vector>

#include "common/checkutil.h"

static const int kWidth = 160, kHeight = 120;

/* The square of the tests, 28 px, moving 4 px a frame to the right. */
static GstBuffer *
moving_square (guint n)
{
  return test_moving_square (n, 28, 10, 46, 4, 0);
}

/* Runs `launch` (appsrc "src", appsink "sink") on the first n squares and
 * returns every output buffer, in order (a frame each, or mvmetastream's
 * lines). */
static std::vector<GstBuffer *>
run_squares (const gchar * launch, guint n)
{
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (launch, &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  std::vector<GstBuffer *> out;
  test_play_frames (pipe, n, moving_square, &out);
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (pipe);
  return out;
}

static void
free_buffers (std::vector<GstBuffer *> & bufs)
{
  for (GstBuffer * b : bufs)
    gst_buffer_unref (b);
  bufs.clear ();
}

/* Checks the entries of every motion ROI of `bufs` (decision=tracks when
 * `tracks`); returns the number of ROIs and collects the track ids. */
static guint
check_entries (const std::vector<GstBuffer *> & bufs, bool tracks,
    std::set<guint> * track_ids)
{
  guint n_rois = 0;
  for (GstBuffer * buf : bufs) {
    const std::vector<GstVideoRegionOfInterestMeta *> rois =
        test_motion_rois (buf);
    GstAnalyticsRelationMeta * rmeta =
        gst_buffer_get_analytics_relation_meta (buf);
    if (rois.empty ())
      continue;
    fail_unless (rmeta != NULL);
    /* The squares' PTS from 0 in a segment from 0: running time = PTS. */
    const GstClockTime t = GST_BUFFER_PTS (buf);
    gint index = 0;
    for (GstVideoRegionOfInterestMeta * roi : rois) {
      n_rois++;
      GstAnalyticsODMtd od;
      fail_unless (gst_analytics_relation_meta_get_od_mtd (rmeta,
                       (guint) roi->id, &od),
          "no detection entry %d", roi->id);
      fail_unless_equals_int (gst_analytics_od_mtd_get_obj_type (&od),
          g_quark_from_static_string ("motion"));
      gint x = -1, y = -1, w = -1, h = -1;
      gfloat conf = 0.0f;
      fail_unless (
          gst_analytics_od_mtd_get_location (&od, &x, &y, &w, &h, &conf));
      fail_unless_equals_int (x, (gint) roi->x);
      fail_unless_equals_int (y, (gint) roi->y);
      fail_unless_equals_int (w, (gint) roi->w);
      fail_unless_equals_int (h, (gint) roi->h);
      fail_unless (conf == 1.0f);

      GstMotionRegion r;
      fail_unless (gst_motion_region_from_roi_meta (roi, &r));
      GstAnalyticsTrackingMtd trk;
      gpointer state = NULL;
      const gboolean related =
          gst_analytics_relation_meta_get_direct_related (rmeta, od.id,
              GST_ANALYTICS_REL_TYPE_RELATE_TO,
              gst_analytics_tracking_mtd_get_mtd_type (), &state, &trk);
      if (!tracks) {
        /* Detections alone, numbered as the regions on the frame. */
        fail_if (related);
        fail_unless_equals_int (r.track_id, 0);
        fail_unless_equals_int (roi->id, index);
        index++;
        continue;
      }
      fail_unless (related, "no tracking entry for %d", roi->id);
      guint64 tid = 0;
      /* Not `first`: gst-check's fail_unless_equals_* declare a `first`. */
      GstClockTime first_seen = GST_CLOCK_TIME_NONE;
      GstClockTime last_seen = GST_CLOCK_TIME_NONE;
      gboolean lost = TRUE;
      fail_unless (gst_analytics_tracking_mtd_get_info (&trk, &tid, &first_seen,
          &last_seen, &lost));
      fail_unless (r.track_id > 0);
      fail_unless_equals_uint64 (tid, r.track_id);
      fail_unless_equals_uint64 (last_seen, t);
      fail_unless_equals_uint64 (first_seen, t - r.age);
      fail_if (lost);
      track_ids->insert (r.track_id);
    }
  }
  return n_rois;
}

#define SQUARES_CAPS                                                           \
  "caps=video/x-raw,format=GRAY8,width=160,height=120,framerate=25/1 ! "

GST_START_TEST (test_entries)
{
  for (const gchar * element : { "blockmatchme", "pocme" }) {
    gchar * launch =
        g_strdup_printf ("appsrc name=src format=time " SQUARES_CAPS
                         "%s backend=cpu regions=true events=true ! "
                         "appsink name=sink sync=false",
            element);
    std::vector<GstBuffer *> bufs = run_squares (launch, 30);
    g_free (launch);
    std::set<guint> ids;
    const guint n = check_entries (bufs, true, &ids);
    /* The square is followed as one object over most of its frames. */
    fail_unless (n >= 15, "%s: %u boxes", element, n);
    fail_unless_equals_int ((gint) ids.size (), 1);
    free_buffers (bufs);
  }

  std::vector<GstBuffer *> bufs =
      run_squares ("appsrc name=src format=time " SQUARES_CAPS
                   "blockmatchme backend=cpu regions=true decision=blocks ! "
                   "appsink name=sink sync=false",
          30);
  std::set<guint> ids;
  fail_unless (check_entries (bufs, false, &ids) >= 15);
  free_buffers (bufs);
}
GST_END_TEST;

/* The JSON stream's region id stays the track id. */
GST_START_TEST (test_json_id)
{
  std::vector<GstBuffer *> bufs =
      run_squares ("appsrc name=src format=time " SQUARES_CAPS
                   "blockmatchme backend=cpu regions=true events=true ! "
                   "mvmetastream ! appsink name=sink sync=false",
          30);
  guint tracked = 0;
  for (GstBuffer * b : bufs) {
    const std::string line = test_buffer_text (b);
    const size_t at = line.find ("\"track\":{\"id\":");
    if (at == std::string::npos)
      continue;
    const guint track = (guint) strtoul (line.c_str () + at + 14, NULL, 10);
    const std::string id =
        "\"regions\":[{\"id\":" + std::to_string (track) + ",";
    fail_unless (line.find (id) != std::string::npos, "%s", line.c_str ());
    tracked++;
  }
  fail_unless (tracked >= 15, "%u tracked frames", tracked);
  free_buffers (bufs);
}
GST_END_TEST;

/* Whether pixel (x, y) is within `d` of the outline of `roi`. */
static bool
near_outline (const GstVideoRegionOfInterestMeta * roi, int x, int y, int d)
{
  const int x0 = (int) roi->x, y0 = (int) roi->y;
  const int x1 = x0 + (int) roi->w - 1, y1 = y0 + (int) roi->h - 1;
  if (x < x0 - d || x > x1 + d || y < y0 - d || y > y1 + d)
    return false;
  return x <= x0 + d || x >= x1 - d || y <= y0 + d || y >= y1 - d;
}

/* objectdetectionoverlay (gst-plugins-bad's analyticsoverlay) draws our
 * boxes: on each frame with boxes it changes pixels all along their
 * outlines and nowhere else (labels off); frames without boxes stay. */
GST_START_TEST (test_overlay)
{
  GstElement * probe =
      gst_element_factory_make ("objectdetectionoverlay", NULL);
  if (!probe) {
    GST_INFO ("objectdetectionoverlay not installed: skipped");
    return;
  }
  gst_object_unref (probe);

  std::vector<GstBuffer *> bufs =
      run_squares ("appsrc name=src format=time " SQUARES_CAPS
                   "blockmatchme backend=cpu regions=true events=true ! "
                   "objectdetectionoverlay draw-labels=false ! "
                   "appsink name=sink sync=false",
          30);
  guint drawn = 0;
  for (guint i = 0; i < bufs.size (); i++) {
    GstBuffer * in = moving_square (i);
    GstMapInfo a, b;
    fail_unless (gst_buffer_map (in, &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (bufs[i], &b, GST_MAP_READ));
    const std::vector<GstVideoRegionOfInterestMeta *> rois =
        test_motion_rois (bufs[i]);
    guint changed = 0, stray = 0;
    std::vector<guint> on_outline (rois.size (), 0);
    for (int y = 0; y < kHeight; y++)
      for (int x = 0; x < kWidth; x++) {
        if (a.data[y * kWidth + x] == b.data[y * kWidth + x])
          continue;
        changed++;
        bool near = false;
        for (size_t k = 0; k < rois.size (); k++)
          if (near_outline (rois[k], x, y, 2)) {
            on_outline[k]++;
            near = true;
          }
        stray += !near;
      }
    fail_unless_equals_int (stray, 0);
    if (rois.empty ())
      fail_unless_equals_int (changed, 0);
    for (size_t k = 0; k < rois.size (); k++) {
      /* Most of the perimeter's pixels. */
      const guint perimeter = 2 * (rois[k]->w + rois[k]->h);
      fail_unless (on_outline[k] >= perimeter / 2, "frame %u: %u of %u", i,
          on_outline[k], perimeter);
      drawn++;
    }
    gst_buffer_unmap (in, &a);
    gst_buffer_unmap (bufs[i], &b);
    gst_buffer_unref (in);
  }
  fail_unless (drawn >= 15, "%u boxes drawn", drawn);
  free_buffers (bufs);
}
GST_END_TEST;

static Suite *
analytics_suite (void)
{
  Suite * s = suite_create ("analytics");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_entries);
  tcase_add_test (tc, test_json_id);
  tcase_add_test (tc, test_overlay);
  return s;
}

GST_CHECK_MAIN (analytics);
