/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mvexport element tests (GstHarness): JSON lines against an expected text
 * and parsed back, dense .flo read back pixel by pixel (partial edge blocks,
 * unknown flow), skip-empty and numbering, a real blockmatchme pipeline,
 * start errors (bad paths, bad patterns, no location), write errors,
 * buffers without meta, passthrough and a property stress run.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <glib/gstdio.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "../common/jsoncheck.h"
#include "../common/testutil.h"

/* ------------------------------------------------------------ helpers */

/* A fresh temporary directory, removed with its files by tmpdir_remove. */
static std::string
tmpdir_new (void)
{
  GError * err = NULL;
  gchar * d = g_dir_make_tmp ("mvexport-test-XXXXXX", &err);
  fail_unless (d != NULL, "g_dir_make_tmp: %s", err ? err->message : "?");
  std::string s (d);
  g_free (d);
  return s;
}

static std::vector<std::string>
tmpdir_list (const std::string & dir)
{
  std::vector<std::string> names;
  GDir * d = g_dir_open (dir.c_str (), 0, NULL);
  fail_unless (d != NULL);
  while (const gchar * n = g_dir_read_name (d))
    names.push_back (n);
  g_dir_close (d);
  return names;
}

static void
tmpdir_remove (const std::string & dir)
{
  for (const auto & n : tmpdir_list (dir))
    g_unlink ((dir + "/" + n).c_str ());
  g_rmdir (dir.c_str ());
}

static std::string
read_text (const std::string & path)
{
  gchar * text = NULL;
  gsize len = 0;
  fail_unless (g_file_get_contents (path.c_str (), &text, &len, NULL),
      "cannot read %s", path.c_str ());
  std::string s (text, len);
  g_free (text);
  return s;
}

static std::vector<std::string>
split_lines (const std::string & text)
{
  std::vector<std::string> lines;
  size_t pos = 0;
  while (pos < text.size ()) {
    size_t nl = text.find ('\n', pos);
    fail_unless (nl != std::string::npos, "last line not terminated");
    lines.push_back (text.substr (pos, nl - pos));
    pos = nl + 1;
  }
  return lines;
}

/* An mvexport configured before it starts (location etc. are READY-only;
 * the harness starts the element at once). `props` is "k=v k=v". */
static GstElement *
make_export (const std::string & location, const char * props)
{
  GstElement * e = gst_element_factory_make ("mvexport", NULL);
  fail_unless (e != NULL);
  if (!location.empty ())
    g_object_set (e, "location", location.c_str (), NULL);
  gchar ** kv = g_strsplit (props ? props : "", " ", -1);
  for (gchar ** p = kv; *p; p++) {
    gchar ** pair = g_strsplit (*p, "=", 2);
    if (pair[0] && pair[1])
      gst_util_set_object_arg (G_OBJECT (e), pair[0], pair[1]);
    g_strfreev (pair);
  }
  g_strfreev (kv);
  return e;
}

static GstHarness *
make_harness (const std::string & location, const char * props,
    GstBus * bus = NULL)
{
  GstElement * e = make_export (location, props);
  if (bus)
    gst_element_set_bus (e, bus);
  GstHarness * h = gst_harness_new_with_element (e, "sink", "src");
  gst_object_unref (e);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=37,height=23,framerate=30/1");
  return h;
}

static GstBuffer *
plain_buffer (GstClockTime pts, guint8 seed = 0)
{
  GstBuffer * buf = gst_buffer_new_allocate (NULL, 37 * 23, NULL);
  GstMapInfo map;
  gst_buffer_map (buf, &map, GST_MAP_WRITE);
  for (gsize i = 0; i < map.size; i++)
    map.data[i] = (guint8) (i * 7 + seed);
  gst_buffer_unmap (buf, &map);
  GST_BUFFER_PTS (buf) = pts;
  return buf;
}

struct Vec
{
  float dx, dy;
  guint32 cost, flags;
  float confidence;
};

static GstMotionVectorsMeta *
add_meta (GstBuffer * buf, guint w, guint h, guint bw, guint bh,
    GstMotionVectorsDirection dir, const std::vector<Vec> & v)
{
  GstMotionVectorsMeta * m =
      gst_buffer_add_motion_vectors_meta (buf, w, h, bw, bh, dir);
  fail_unless (m != NULL);
  fail_unless_equals_int (m->n_vectors, v.size ());
  for (guint i = 0; i < m->n_vectors; i++) {
    m->vectors[i].dx = v[i].dx;
    m->vectors[i].dy = v[i].dy;
    m->vectors[i].cost = v[i].cost;
    m->vectors[i].flags = v[i].flags;
    m->vectors[i].confidence = v[i].confidence;
  }
  return m;
}

static void
push_ok (GstHarness * h, GstBuffer * buf)
{
  fail_unless_equals_int (gst_harness_push (h, buf), GST_FLOW_OK);
  gst_buffer_unref (gst_harness_pull (h));
}

/* Pops the first ERROR from `bus` (NULL if none); caller frees. */
static GError *
pop_error (GstBus * bus)
{
  GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_ERROR);
  if (!msg)
    return NULL;
  GError * err = NULL;
  gst_message_parse_error (msg, &err, NULL);
  gst_message_unref (msg);
  return err;
}

/* The number after "key": in a line of our schema (keys are unique). */
static double
json_number_of (const std::string & line, const char * key)
{
  const std::string k = std::string ("\"") + key + "\":";
  const size_t pos = line.find (k);
  fail_unless (pos != std::string::npos, "no key %s", key);
  const char * start = line.c_str () + pos + k.size ();
  char * end = NULL;
  const double v = g_ascii_strtod (start, &end);
  fail_unless (end != start, "key %s is not a number", key);
  return v;
}

/* Parses "vectors":[[dx,dy,cost,flags],...] with g_ascii_strtod. */
static std::vector<Vec>
json_vectors (const std::string & line)
{
  std::vector<Vec> out;
  const size_t pos = line.find ("\"vectors\":[");
  fail_unless (pos != std::string::npos);
  const char * p = line.c_str () + pos + strlen ("\"vectors\":[");
  char * end;
  while (*p == '[') {
    Vec v;
    v.dx = (float) g_ascii_strtod (p + 1, &end);
    fail_unless (*end == ',');
    v.dy = (float) g_ascii_strtod (end + 1, &end);
    fail_unless (*end == ',');
    v.cost = (guint32) g_ascii_strtoull (end + 1, &end, 10);
    fail_unless (*end == ',');
    v.flags = (guint32) g_ascii_strtoull (end + 1, &end, 10);
    fail_unless (*end == ']');
    v.confidence = -1;
    out.push_back (v);
    p = end + 1;
    if (*p == ',')
      p++;
  }
  fail_unless (*p == ']');
  return out;
}

/* ------------------------------------------------------------ JSON */

/* Known vectors (negatives, quarter pels, every flag) against a line built
 * by hand; pts/ref_pts null; confidence array only when one is >= 0;
 * buffers without meta take no frame number. */
GST_START_TEST (test_json_known_values)
{
  const std::string dir = tmpdir_new ();
  const std::string path = dir + "/field.jsonl";
  GstHarness * h = make_harness (path, "index=12");

  /* 37x23 with 16x16 blocks: 3 x 2 grid, partial right column and row. */
  GstBuffer * b = plain_buffer (400000000);
  GstMotionVectorsMeta * m =
      add_meta (b, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD,
          { { -1.25f, 0.5f, 100, 0, -1 }, { 0.75f, -3.25f, 7, 0, -1 },
              { 0, 0, 0, GST_MOTION_VECTOR_FLAG_NO_ESTIMATE, -1 },
              { 0, 0, 12, GST_MOTION_VECTOR_FLAG_SUPPRESSED, -1 },
              { -16.75f, 15.5f, 4294967295u, GST_MOTION_VECTOR_FLAG_UNRELIABLE,
                  -1 },
              { 2.5f, -0.25f, 3, 0, -1 } });
  m->reference_timestamp = 366666666;
  m->precision = 0.25f;
  m->method = g_intern_static_string ("full");
  push_ok (h, b);

  push_ok (h, plain_buffer (433333333)); /* no meta: ignored */

  b = plain_buffer (GST_CLOCK_TIME_NONE);
  m = add_meta (b, 37, 23, 32, 32, GST_MOTION_VECTORS_DIRECTION_FORWARD,
      { { 0.1f, -7, 5, 0, 0.5f }, { 1e-7f, 3e9f, 6, 0, -1 } });
  m->precision = 0;
  m->method = g_intern_static_string ("p\"o\\c");
  push_ok (h, b);

  gst_harness_push_event (h, gst_event_new_eos ());
  /* Flushed at EOS (and per line): readable before stop. */
  const std::vector<std::string> lines = split_lines (read_text (path));
  gst_harness_teardown (h);

  fail_unless_equals_int (lines.size (), 2);
  fail_unless_equals_string (lines[0].c_str (),
      "{\"frame\":12,\"pts\":400000000,\"ref_pts\":366666666,\"width\":37,"
      "\"height\":23,\"block_width\":16,\"block_height\":16,\"columns\":3,"
      "\"rows\":2,\"direction\":\"backward\",\"precision\":0.25,"
      "\"method\":\"full\",\"vectors\":[[-1.25,0.5,100,0],[0.75,-3.25,7,0],"
      "[0,0,0,2],[0,0,12,1],[-16.75,15.5,4294967295,4],[2.5,-0.25,3,0]]}");
  /* 0.1f and 1e-7f print with 9 significant digits (%.9g); 3e9f is a
   * multiple of 1/4 and prints as an integer. */
  fail_unless_equals_string (lines[1].c_str (),
      "{\"frame\":13,\"pts\":null,\"ref_pts\":null,\"width\":37,"
      "\"height\":23,\"block_width\":32,\"block_height\":32,\"columns\":2,"
      "\"rows\":1,\"direction\":\"forward\",\"precision\":0,"
      "\"method\":\"p\\\"o\\\\c\",\"vectors\":[[0.100000001,-7,5,0],"
      "[1.00000001e-07,3000000000,6,0]],\"confidence\":[0.5,null]}");
  for (const auto & l : lines)
    fail_unless (test_json_valid (l, true), "invalid JSON: %s", l.c_str ());
  /* The non-quarter values parse back to the same floats. */
  const std::vector<Vec> v = json_vectors (lines[1]);
  fail_unless (v[0].dx == 0.1f && v[1].dx == 1e-7f && v[1].dy == 3e9f);
  tmpdir_remove (dir);
}

GST_END_TEST;

/* A large field with random quarter-pel and arbitrary float vectors:
 * every line is valid JSON, the header numbers and every vector parse back
 * exactly with g_ascii_strtod. */
GST_START_TEST (test_json_roundtrip)
{
  const std::string dir = tmpdir_new ();
  const std::string path = dir + "/field.jsonl";
  GstHarness * h = make_harness (path, NULL);
  std::mt19937 rng (7);
  std::uniform_real_distribution<float> any (-300.f, 300.f);
  std::vector<std::vector<Vec>> sent;

  for (int f = 0; f < 3; f++) {
    std::vector<Vec> v (40 * 60); /* 640x480 in 16x8 blocks */
    for (size_t i = 0; i < v.size (); i++) {
      const bool quarter = (i + f) % 3 != 0;
      v[i].dx = quarter ? (int) (rng () % 1025 - 512) / 4.0f : any (rng);
      v[i].dy = quarter ? (int) (rng () % 1025 - 512) / 4.0f : any (rng);
      v[i].cost = rng ();
      v[i].flags = rng () % 8;
      v[i].confidence = -1;
    }
    v[0].dx = -0.0f;
    v[1].dy = 1e-30f;
    GstBuffer * b = plain_buffer (f * GST_SECOND / 25);
    GstMotionVectorsMeta * m =
        add_meta (b, 640, 480, 16, 8, GST_MOTION_VECTORS_DIRECTION_BACKWARD, v);
    m->reference_timestamp =
        f ? (f - 1) * GST_SECOND / 25 : GST_CLOCK_TIME_NONE;
    m->precision = 0.5f;
    push_ok (h, b);
    sent.push_back (v);
  }
  gst_harness_teardown (h);

  const std::vector<std::string> lines = split_lines (read_text (path));
  fail_unless_equals_int (lines.size (), 3);
  for (int f = 0; f < 3; f++) {
    const std::string & l = lines[f];
    fail_unless (test_json_valid (l, true), "frame %d: invalid JSON", f);
    fail_unless_equals_int (json_number_of (l, "frame"), f);
    fail_unless_equals_uint64 ((guint64) json_number_of (l, "pts"),
        f * GST_SECOND / 25);
    fail_unless_equals_int (json_number_of (l, "width"), 640);
    fail_unless_equals_int (json_number_of (l, "height"), 480);
    fail_unless_equals_int (json_number_of (l, "block_width"), 16);
    fail_unless_equals_int (json_number_of (l, "block_height"), 8);
    fail_unless_equals_int (json_number_of (l, "columns"), 40);
    fail_unless_equals_int (json_number_of (l, "rows"), 60);
    fail_unless_equals_float (json_number_of (l, "precision"), 0.5);
    fail_unless (
        (l.find ("\"ref_pts\":null") != std::string::npos) == (f == 0));
    fail_unless (l.find ("confidence") == std::string::npos);
    const std::vector<Vec> got = json_vectors (l);
    fail_unless_equals_int (got.size (), sent[f].size ());
    for (size_t i = 0; i < got.size (); i++) {
      const Vec &a = got[i], &e = sent[f][i];
      fail_unless (a.dx == e.dx && a.dy == e.dy && a.cost == e.cost
              && a.flags == e.flags,
          "frame %d vector %zu: got (%.9g,%.9g,%u,%u) "
          "expected (%.9g,%.9g,%u,%u)",
          f, i, a.dx, a.dy, a.cost, a.flags, e.dx, e.dy, e.cost, e.flags);
    }
  }
  tmpdir_remove (dir);
}

GST_END_TEST;

/* ------------------------------------------------------------ .flo */

static void
check_flo_header_bytes (const std::string & path, int w, int h)
{
  const std::string raw = read_text (path);
  fail_unless_equals_int (raw.size (), 12 + (size_t) w * h * 8);
  /* 202021.25f in little-endian bytes, then LE int32 width and height. */
  fail_unless (raw.compare (0, 4, "PIEH") == 0);
  const guint8 * d = (const guint8 *) raw.data ();
  fail_unless_equals_int (d[4] | d[5] << 8 | d[6] << 16 | d[7] << 24, w);
  fail_unless_equals_int (d[8] | d[9] << 8 | d[10] << 16 | d[11] << 24, h);
}

/* Dense .flo at 37x23 with 16x16 blocks: every pixel, including the
 * partial right column and bottom row, has its block's vector; NO_ESTIMATE
 * blocks are unknown flow; the file is named with index. */
GST_START_TEST (test_flo_dense)
{
  const std::string dir = tmpdir_new ();
  GstHarness * h = make_harness (dir + "/f-%03d.flo", "format=flo index=5");
  const std::vector<Vec> v = { { -1.25f, 0.5f, 1, 0, -1 },
    { 3.75f, -2.25f, 2, 0, -1 },
    { 0, 0, 0, GST_MOTION_VECTOR_FLAG_NO_ESTIMATE, -1 },
    { 0, 0, 4, GST_MOTION_VECTOR_FLAG_SUPPRESSED, -1 },
    { -0.25f, -16, 5, GST_MOTION_VECTOR_FLAG_UNRELIABLE, -1 },
    { 7.5f, 0.75f, 6, 0, -1 } };
  GstBuffer * b = plain_buffer (0);
  add_meta (b, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD, v);
  push_ok (h, b);
  gst_harness_teardown (h);

  const std::vector<std::string> files = tmpdir_list (dir);
  fail_unless_equals_int (files.size (), 1);
  fail_unless_equals_string (files[0].c_str (), "f-005.flo");
  const std::string path = dir + "/f-005.flo";
  check_flo_header_bytes (path, 37, 23);

  int w = 0, hh = 0;
  std::vector<float> uv;
  fail_unless (test_read_flo (path, &w, &hh, &uv));
  fail_unless_equals_int (w, 37);
  fail_unless_equals_int (hh, 23);
  for (int y = 0; y < 23; y++)
    for (int x = 0; x < 37; x++) {
      /* Columns 0..15, 16..31, 32..36; rows 0..15, 16..22. */
      const int c = x < 16 ? 0 : x < 32 ? 1 : 2;
      const int r = y < 16 ? 0 : 1;
      const Vec & e = v[r * 3 + c];
      const float u = uv[2 * ((size_t) y * 37 + x)];
      const float vv = uv[2 * ((size_t) y * 37 + x) + 1];
      if (e.flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE)
        fail_unless (std::fabs (u) > 1e9f && std::fabs (vv) > 1e9f,
            "(%d,%d) should be unknown, got (%g,%g)", x, y, u, vv);
      else
        fail_unless (u == e.dx && vv == e.dy,
            "(%d,%d): got (%g,%g) expected (%g,%g)", x, y, u, vv, e.dx, e.dy);
    }
  tmpdir_remove (dir);
}

GST_END_TEST;

/* skip-empty: an all-NO_ESTIMATE frame writes no file but uses its number;
 * with skip-empty=false it is written as all unknown. */
GST_START_TEST (test_flo_skip_empty)
{
  const std::vector<Vec> none (6,
      { 0, 0, 0, GST_MOTION_VECTOR_FLAG_NO_ESTIMATE, -1 });
  std::vector<Vec> some = none;
  some[3] = { 1, 2, 3, 0, -1 }; /* block (0, 1) */

  for (int skip = 0; skip < 2; skip++) {
    const std::string dir = tmpdir_new ();
    GstHarness * h = make_harness (dir + "/flow-%05d.flo",
        skip ? "format=flo" : "format=flo skip-empty=false");
    gboolean prop;
    g_object_get (h->element, "skip-empty", &prop, NULL);
    fail_unless_equals_int (prop, skip);
    GstBuffer * b = plain_buffer (0);
    add_meta (b, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD, none);
    push_ok (h, b);
    b = plain_buffer (1);
    add_meta (b, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD, some);
    push_ok (h, b);
    gst_harness_teardown (h);

    const bool have_first =
        g_file_test ((dir + "/flow-00000.flo").c_str (), G_FILE_TEST_EXISTS);
    fail_unless_equals_int (have_first, !skip);
    fail_unless_equals_int (tmpdir_list (dir).size (), skip ? 1 : 2);
    int w, hh;
    std::vector<float> uv;
    fail_unless (test_read_flo (dir + "/flow-00001.flo", &w, &hh, &uv));
    /* pixel (5, 20) is in block (0, 1), the only one with an estimate */
    fail_unless (uv[2 * (20 * 37 + 5)] == 1 && uv[2 * (20 * 37 + 5) + 1] == 2);
    fail_unless (uv[0] > 1e9f);
    if (!skip) {
      fail_unless (test_read_flo (dir + "/flow-00000.flo", &w, &hh, &uv));
      for (float f : uv)
        fail_unless (f > 1e9f);
    }
    tmpdir_remove (dir);
  }
}

GST_END_TEST;

/* blockmatchme direction=forward ! mvexport format=flo on a texture moved
 * by (+3, -2): the .flo holds (3, -2) inside and equals the meta
 * everywhere; the first frame (no reference) writes no file. */
GST_START_TEST (test_pipeline_blockmatchme)
{
  const std::string dir = tmpdir_new ();
  gchar * launch = g_strdup_printf ("blockmatchme direction=forward "
                                    "search-range=8 ! mvexport format=flo "
                                    "location=\"%s/flow-%%05d.flo\"",
      dir.c_str ());
  GstHarness * h = gst_harness_new_parse (launch);
  g_free (launch);
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=96,height=64,framerate=30/1");
  const TestImage a = test_texture (96, 64, 11);
  const TestImage b = test_shift (a, 3, -2);

  push_ok (h, test_gray_buffer (a, 96, 0));
  fail_unless_equals_int (gst_harness_push (h,
                              test_gray_buffer (b, 100, GST_SECOND / 30)),
      GST_FLOW_OK);
  GstBuffer * out = gst_harness_pull (h);
  GstMotionVectorsMeta * m = gst_buffer_get_motion_vectors_meta (out);
  fail_unless (m != NULL);

  const std::vector<std::string> files = tmpdir_list (dir);
  fail_unless_equals_int (files.size (), 1);
  fail_unless_equals_string (files[0].c_str (), "flow-00001.flo");
  int w = 0, hh = 0;
  std::vector<float> uv;
  fail_unless (test_read_flo (dir + "/flow-00001.flo", &w, &hh, &uv));
  fail_unless_equals_int (w, 96);
  fail_unless_equals_int (hh, 64);

  const int margin = 8; /* the search range */
  int interior = 0;
  for (int y = 0; y < 64; y++)
    for (int x = 0; x < 96; x++) {
      const float u = uv[2 * (y * 96 + x)], v = uv[2 * (y * 96 + x) + 1];
      GstMotionVector * mv = gst_motion_vectors_meta_lookup (m, x, y);
      fail_unless (u == mv->dx && v == mv->dy);
      /* pixels of blocks lying entirely inside the margin */
      const int bx = x / 16 * 16, by = y / 16 * 16;
      if (bx >= margin && by >= margin && bx + 16 + margin <= 96
          && by + 16 + margin <= 64) {
        fail_unless (u == 3.0f && v == -2.0f,
            "(%d,%d): got (%g,%g) expected (3,-2)", x, y, u, v);
        interior++;
      }
    }
  fail_unless_equals_int (interior, 4 * 2 * 256);
  gst_buffer_unref (out);
  gst_harness_teardown (h);
  tmpdir_remove (dir);
}

GST_END_TEST;

/* ------------------------------------------------------------ errors */

/* Start fails with a RESOURCE error of `code` for these settings. */
static void
check_start_error (const std::string & location, const char * props, gint code)
{
  GstElement * e = make_export (location, props);
  GstBus * bus = gst_bus_new ();
  gst_element_set_bus (e, bus);
  fail_unless_equals_int (gst_element_set_state (e, GST_STATE_PAUSED),
      GST_STATE_CHANGE_FAILURE);
  GError * err = pop_error (bus);
  fail_unless (err != NULL, "no error for location=%s %s", location.c_str (),
      props);
  fail_unless (err->domain == GST_RESOURCE_ERROR);
  fail_unless_equals_int (err->code, code);
  g_error_free (err);
  gst_element_set_state (e, GST_STATE_NULL);
  gst_element_set_bus (e, NULL);
  gst_object_unref (bus);
  gst_object_unref (e);
}

GST_START_TEST (test_start_errors)
{
  const std::string dir = tmpdir_new ();
  const std::string missing = dir + "/no-such-dir";

  check_start_error (missing + "/field.jsonl", NULL,
      GST_RESOURCE_ERROR_OPEN_WRITE);
  check_start_error (missing + "/flow-%05d.flo", "format=flo",
      GST_RESOURCE_ERROR_OPEN_WRITE);
  check_start_error ("", NULL, GST_RESOURCE_ERROR_NOT_FOUND);
  check_start_error ("", "format=flo", GST_RESOURCE_ERROR_NOT_FOUND);
  /* .flo patterns need exactly one integer conversion */
  for (const char * bad : { "/flow.flo", "/flow-%s.flo", "/f-%d-%d.flo",
           "/f-%n.flo", "/f-%*d.flo", "/f-%1000d.flo", "/f-%" })
    check_start_error (dir + bad, "format=flo", GST_RESOURCE_ERROR_SETTINGS);
  check_start_error ("-", "format=flo", GST_RESOURCE_ERROR_SETTINGS);
  fail_unless_equals_int (tmpdir_list (dir).size (), 0);

  /* valid ones start; %% stays a literal % */
  GstHarness * h = make_harness (dir + "/100%%-%x.flo", "format=flo index=26");
  GstBuffer * b = plain_buffer (0);
  add_meta (b, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD,
      std::vector<Vec> (6, { 1, 1, 0, 0, -1 }));
  push_ok (h, b);
  gst_harness_teardown (h);
  fail_unless (
      g_file_test ((dir + "/100%-1a.flo").c_str (), G_FILE_TEST_EXISTS));
  tmpdir_remove (dir);
}

GST_END_TEST;

/* Write errors (ENOSPC from /dev/full) fail the flow with a RESOURCE WRITE
 * error, for JSON lines and for .flo (whose error shows at fwrite/fclose). */
GST_START_TEST (test_write_errors)
{
  if (!g_file_test ("/dev/full", G_FILE_TEST_EXISTS))
    return;
  /* For .flo, "%.0d" prints nothing for frame 0: the path is /dev/full. */
  const char * cases[][2] = {
    { "/dev/full", "" },
    { "/dev/ful%.0dl", "format=flo skip-empty=false" },
  };
  for (const auto & c : cases) {
    GstBus * bus = gst_bus_new ();
    GstHarness * h = make_harness (c[0], c[1], bus);
    GstBuffer * b = plain_buffer (0);
    add_meta (b, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD,
        std::vector<Vec> (6, { 1, 1, 0, 0, -1 }));
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_ERROR);
    GError * err = pop_error (bus);
    fail_unless (err != NULL, "no error for %s", c[0]);
    fail_unless (err->domain == GST_RESOURCE_ERROR);
    fail_unless_equals_int (err->code, GST_RESOURCE_ERROR_WRITE);
    g_error_free (err);
    /* drop the queued messages: they hold the element, which holds the bus */
    gst_bus_set_flushing (bus, TRUE);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* ------------------------------------------------------------ passthrough */

/* Buffers without meta: passed, nothing written, no frame number used.
 * All buffers come out as the very same, unchanged buffers. */
GST_START_TEST (test_no_meta_and_passthrough)
{
  for (int flo = 0; flo < 2; flo++) {
    const std::string dir = tmpdir_new ();
    const std::string loc = dir + (flo ? "/f-%d.flo" : "/field.jsonl");
    GstHarness * h = make_harness (loc, flo ? "format=flo" : NULL);

    for (int i = 0; i < 4; i++) {
      GstBuffer * in = plain_buffer (i * GST_SECOND / 30, (guint8) i);
      if (i == 3)
        add_meta (in, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD,
            std::vector<Vec> (6, { -2, 0.5f, 9, 0, -1 }));
      GstBuffer * ref = gst_buffer_copy_deep (in);
      gst_buffer_ref (in);
      fail_unless_equals_int (gst_harness_push (h, in), GST_FLOW_OK);
      GstBuffer * out = gst_harness_pull (h);
      fail_unless (out == in, "not passed through");
      GstMapInfo a, b;
      gst_buffer_map (out, &a, GST_MAP_READ);
      gst_buffer_map (ref, &b, GST_MAP_READ);
      fail_unless (a.size == b.size && memcmp (a.data, b.data, a.size) == 0);
      gst_buffer_unmap (out, &a);
      gst_buffer_unmap (ref, &b);
      fail_unless_equals_int (gst_buffer_get_motion_vectors_meta (out) != NULL,
          i == 3);
      gst_buffer_unref (out);
      gst_buffer_unref (in);
      gst_buffer_unref (ref);
      if (i == 2) {
        /* three buffers without meta: nothing written so far */
        if (flo) {
          fail_unless_equals_int (tmpdir_list (dir).size (), 0);
        } else {
          fail_unless_equals_int (read_text (loc).size (), 0);
        }
      }
    }
    gst_harness_teardown (h);

    /* the first buffer with a meta is frame 0 */
    if (flo) {
      const std::vector<std::string> files = tmpdir_list (dir);
      fail_unless_equals_int (files.size (), 1);
      fail_unless_equals_string (files[0].c_str (), "f-0.flo");
    } else {
      const std::vector<std::string> lines = split_lines (read_text (loc));
      fail_unless_equals_int (lines.size (), 1);
      fail_unless_equals_int (json_number_of (lines[0], "frame"), 0);
    }
    tmpdir_remove (dir);
  }
}

GST_END_TEST;

/* skip-empty (MUTABLE_PLAYING) toggled from another thread while frames
 * flow: every push succeeds and every written file is a complete .flo. */
GST_START_TEST (test_property_stress)
{
  const std::string dir = tmpdir_new ();
  GstHarness * h = make_harness (dir + "/f-%04d.flo", "format=flo");
  GValue v = G_VALUE_INIT;
  g_value_init (&v, G_TYPE_BOOLEAN);
  g_value_set_boolean (&v, FALSE);
  GstHarnessThread * t =
      gst_harness_stress_property_start_full (h, "skip-empty", &v, 0);
  g_value_unset (&v);

  for (int i = 0; i < 40; i++) {
    GstBuffer * b = plain_buffer (i);
    std::vector<Vec> vec (6,
        { 0, 0, 0, GST_MOTION_VECTOR_FLAG_NO_ESTIMATE, -1 });
    if (i % 2)
      vec[0] = { 0.25f, -0.5f, 1, 0, -1 };
    add_meta (b, 37, 23, 16, 16, GST_MOTION_VECTORS_DIRECTION_FORWARD, vec);
    push_ok (h, b);
  }
  gst_harness_stress_thread_stop (t);
  gst_harness_teardown (h);

  const std::vector<std::string> files = tmpdir_list (dir);
  /* odd frames always written, even ones depending on the property */
  fail_unless (files.size () >= 20 && files.size () <= 40);
  for (const auto & f : files) {
    int w, hh;
    std::vector<float> uv;
    fail_unless (test_read_flo (dir + "/" + f, &w, &hh, &uv));
    check_flo_header_bytes (dir + "/" + f, 37, 23);
  }
  tmpdir_remove (dir);
}

GST_END_TEST;

static Suite *
mvexport_suite (void)
{
  Suite * s = suite_create ("mvexport");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_json_known_values);
  tcase_add_test (tc, test_json_roundtrip);
  tcase_add_test (tc, test_flo_dense);
  tcase_add_test (tc, test_flo_skip_empty);
  tcase_add_test (tc, test_pipeline_blockmatchme);
  tcase_add_test (tc, test_start_errors);
  tcase_add_test (tc, test_write_errors);
  tcase_add_test (tc, test_no_meta_and_passthrough);
  tcase_add_test (tc, test_property_stress);
  return s;
}

GST_CHECK_MAIN (mvexport);
