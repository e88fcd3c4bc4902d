/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * mvonvifmeta, rtponvifmetapay and rtponvifmetadepay (issue 34's ONVIF
 * part): PackBits against the ONVIF specification's example and random
 * data; hand-made frames through a harness (normalised boxes, the track
 * ids, MotionInCells decoded back to the MOVING flags, the events'
 * Initialized / Changed messages, a reference timestamp as UtcTime);
 * blockmatchme's real decision into the element (every document valid
 * against ONVIF's metadatastream.xsd, tests/files/onvif, offline; the
 * cells equal the frame's MOVING flags; one id per object); the payloader
 * (the marker on a document's last packet only, one RTP timestamp a
 * document, 90 kHz timestamps following the buffers') and the
 * depayloader (documents back byte for byte, one with a lost packet
 * dropped and counted); and the example RTSP server
 * (docs/examples/onvif-rtsp-server.c) on 127.0.0.1 serving the bundled
 * clip, rtspsrc receiving its video and metadata from one URL.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/app/gstappsink.h>
#include <gst/rtp/gstrtpbuffer.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <libxml/catalog.h>
#include <libxml/parser.h>
#include <libxml/xmlschemas.h>
#include <libxml/xpath.h>
#include <libxml/xpathInternals.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/checkutil.h"
#include "common/mvonvif.h"
#include "common/mvrulesmeta.h"

/* ------------------------------------------------------- XML and schema */

static xmlSchemaPtr schema = NULL;

/* ONVIF's metadatastream.xsd with its imports, offline (catalog.xml maps
 * their remote locations to tests/files/onvif). */
static void
load_schema (void)
{
  if (schema)
    return;
  const gchar * files = g_getenv ("GST_TEST_FILES_PATH");
  fail_unless (files != NULL, "GST_TEST_FILES_PATH is not set");
  gchar * catalog = g_build_filename (files, "onvif", "catalog.xml", NULL);
  gchar * xsd = g_build_filename (files, "onvif", "onvif", "wsdl", "ver10",
      "schema", "metadatastream.xsd", NULL);
  xmlInitializeCatalog ();
  fail_unless (xmlLoadCatalog (catalog) == 0, "cannot load %s", catalog);
  xmlSchemaParserCtxtPtr pc = xmlSchemaNewParserCtxt (xsd);
  fail_unless (pc != NULL);
  schema = xmlSchemaParse (pc);
  xmlSchemaFreeParserCtxt (pc);
  fail_unless (schema != NULL, "cannot compile %s", xsd);
  g_free (catalog);
  g_free (xsd);
}

static void
no_network_loads (void)
{
  /* Any entity the catalog does not map fails instead of being fetched. */
  xmlSetExternalEntityLoader (xmlNoNetExternalEntityLoader);
}

/* Parses and validates one document; fails the test with the validator's
 * messages otherwise. The caller frees the document. */
static xmlDocPtr
parse_valid (const std::string & text)
{
  load_schema ();
  xmlDocPtr doc = xmlReadMemory (text.data (), (int) text.size (), "doc.xml",
      NULL, XML_PARSE_NONET);
  fail_unless (doc != NULL, "not well-formed XML:\n%s", text.c_str ());
  xmlSchemaValidCtxtPtr vc = xmlSchemaNewValidCtxt (schema);
  const int rc = xmlSchemaValidateDoc (vc, doc);
  xmlSchemaFreeValidCtxt (vc);
  fail_unless (rc == 0,
      "document not valid against metadatastream.xsd "
      "(%d):\n%s",
      rc, text.c_str ());
  return doc;
}

/* The nodes of an XPath expression (tt:, wsnt:, mv: bound). */
static std::vector<xmlNodePtr>
select (xmlDocPtr doc, const char * path, xmlNodePtr from = NULL)
{
  xmlXPathContextPtr ctx = xmlXPathNewContext (doc);
  xmlXPathRegisterNs (ctx, BAD_CAST "tt",
      BAD_CAST "http://www.onvif.org/ver10/schema");
  xmlXPathRegisterNs (ctx, BAD_CAST "wsnt",
      BAD_CAST "http://docs.oasis-open.org/wsn/b-2");
  xmlXPathRegisterNs (ctx, BAD_CAST "mv", BAD_CAST MV_ONVIF_NAMESPACE);
  if (from)
    ctx->node = from;
  xmlXPathObjectPtr r = xmlXPathEvalExpression (BAD_CAST path, ctx);
  std::vector<xmlNodePtr> out;
  if (r && r->nodesetval)
    for (int i = 0; i < r->nodesetval->nodeNr; i++)
      out.push_back (r->nodesetval->nodeTab[i]);
  xmlXPathFreeObject (r);
  xmlXPathFreeContext (ctx);
  return out;
}

static std::string
attr (xmlNodePtr n, const char * name)
{
  xmlChar * v = xmlGetProp (n, BAD_CAST name);
  std::string s = v ? (const char *) v : "";
  xmlFree (v);
  return s;
}

static double
attr_d (xmlNodePtr n, const char * name)
{
  return g_ascii_strtod (attr (n, name).c_str (), NULL);
}

/* The frame's MotionInCells decoded: one byte per cell (0 or 1). */
static std::vector<uint8_t>
decode_cells (xmlNodePtr cells)
{
  const guint columns = (guint) atoi (attr (cells, "Columns").c_str ());
  const guint rows = (guint) atoi (attr (cells, "Rows").c_str ());
  gsize len = 0;
  guchar * packed = g_base64_decode (attr (cells, "Cells").c_str (), &len);
  std::vector<uint8_t> bits;
  fail_unless (mv_onvif_unpackbits (packed, len, &bits));
  g_free (packed);
  fail_unless_equals_int ((gint) bits.size (),
      (gint) ((columns * rows + 7) / 8));
  std::vector<uint8_t> out (columns * rows);
  for (size_t i = 0; i < out.size (); i++)
    out[i] = (bits[i / 8] >> (7 - i % 8)) & 1;
  return out;
}

/* Every event message of a document: the motion ones as their
 * PropertyOperation and IsMotion, the line crossings as ("Crossed",
 * "LINE:OBJECTID"). The parts onvif.xsd declares (not validated here:
 * libxml2 cannot compile onvif.xsd, tests/files/onvif/README.md) are
 * checked by hand. */
static std::vector<std::pair<std::string, std::string>>
events_of (xmlDocPtr doc)
{
  std::vector<std::pair<std::string, std::string>> out;
  for (xmlNodePtr n : select (doc, "//tt:Event/wsnt:NotificationMessage")) {
    std::vector<xmlNodePtr> topic = select (doc, "wsnt:Topic", n);
    fail_unless_equals_int ((gint) topic.size (), 1);
    xmlChar * t = xmlNodeGetContent (topic[0]);
    const std::string name = (const char *) t;
    xmlFree (t);
    const bool line = name == "tns1:RuleEngine/LineDetector/Crossed";
    fail_unless (line || name == "tns1:RuleEngine/CellMotionDetector/Motion",
        "topic %s", name.c_str ());
    std::vector<xmlNodePtr> msg = select (doc, "wsnt:Message/tt:Message", n);
    fail_unless_equals_int ((gint) msg.size (), 1);
    const std::string utc = attr (msg[0], "UtcTime");
    fail_unless (g_regex_match_simple ("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:"
                                       "\\d\\d\\.\\d{3}Z$",
                     utc.c_str (), (GRegexCompileFlags) 0,
                     (GRegexMatchFlags) 0),
        "UtcTime %s", utc.c_str ());
    const char * source = "tt:Source/tt:SimpleItem[@Name="
                          "'VideoSourceConfigurationToken' or @Name="
                          "'VideoAnalyticsConfigurationToken' or @Name='Rule']";
    fail_unless_equals_int ((gint) select (doc, source, msg[0]).size (), 3);
    if (line) {
      fail_unless (attr (msg[0], "PropertyOperation").empty ());
      xmlNodePtr rule =
          select (doc, "tt:Source/tt:SimpleItem[@Name='Rule']", msg[0]).at (0);
      xmlNodePtr id =
          select (doc, "tt:Data/tt:SimpleItem[@Name='ObjectId']", msg[0])
              .at (0);
      out.emplace_back ("Crossed",
          attr (rule, "Value") + ":" + attr (id, "Value"));
      continue;
    }
    const std::string op = attr (msg[0], "PropertyOperation");
    fail_unless (op == "Initialized" || op == "Changed", "%s", op.c_str ());
    std::vector<xmlNodePtr> item =
        select (doc, "tt:Data/tt:SimpleItem[@Name='IsMotion']", msg[0]);
    fail_unless_equals_int ((gint) item.size (), 1);
    out.emplace_back (op, attr (item[0], "Value"));
  }
  return out;
}

/* ------------------------------------------------------------- PackBits */

GST_START_TEST (test_packbits)
{
  /* ONVIF Analytics, cell motion: ff ff ff f0 f0 f0 -> fe ff fe f0,
   * "/v/+8A==". */
  const uint8_t cells[] = { 0xff, 0xff, 0xff, 0xf0, 0xf0, 0xf0 };
  std::vector<uint8_t> packed;
  mv_onvif_packbits (cells, sizeof cells, &packed);
  const uint8_t want[] = { 0xfe, 0xff, 0xfe, 0xf0 };
  fail_unless_equals_int ((gint) packed.size (), 4);
  fail_unless (memcmp (packed.data (), want, 4) == 0);
  gchar * b64 = g_base64_encode (packed.data (), packed.size ());
  fail_unless_equals_string (b64, "/v/+8A==");
  g_free (b64);

  /* Round trips: random bytes, long runs and literals across the 128-byte
   * limits, mixtures. */
  std::mt19937 rng (34);
  for (int k = 0; k < 400; k++) {
    std::vector<uint8_t> d (rng () % 700);
    const int kind = k % 4;
    for (size_t i = 0; i < d.size (); i++)
      d[i] = kind == 0 ? (uint8_t) rng ()
          : kind == 1  ? (uint8_t) (i / (1 + rng () % 300))
          : kind == 2  ? (uint8_t) ((rng () % 8) == 0)
                       : (uint8_t) (i % 3 == 0 ? rng () % 2 : 0);
    std::vector<uint8_t> p, back;
    mv_onvif_packbits (d.data (), d.size (), &p);
    fail_unless (mv_onvif_unpackbits (p.data (), p.size (), &back));
    fail_unless (back == d, "round trip %d (%zu bytes)", k, d.size ());
    /* Never much longer than the data: a header byte per 128 bytes. */
    fail_unless (p.size () <= d.size () + (d.size () + 127) / 128);
  }
  /* Truncated streams are refused. */
  std::vector<uint8_t> back;
  const uint8_t lit[] = { 0x03, 1, 2 };
  fail_if (mv_onvif_unpackbits (lit, sizeof lit, &back));
  const uint8_t run[] = { 0xfe };
  fail_if (mv_onvif_unpackbits (run, sizeof run, &back));

  /* The bitmap: row by row, the first cell in the byte's top bit. */
  const uint8_t moving[10] = { 1, 0, 0, 0, 0, 0, 0, 1, 0, 1 };
  std::vector<uint8_t> bits;
  mv_onvif_cells_bitmap (moving, 5, 2, &bits);
  fail_unless_equals_int ((gint) bits.size (), 2);
  fail_unless_equals_int (bits[0], 0x81);
  fail_unless_equals_int (bits[1], 0x40);
}
GST_END_TEST;

/* ------------------------------------------------- hand-made frames */

/* 64x48 frame, 16x16 blocks (4x3), MOVING blocks `moving` (a bit per
 * block), a decision (global motion recorded) and one tracked region. */
static GstBuffer *
make_frame (GstClockTime pts, guint moving, guint track)
{
  GstBuffer * buf = gst_buffer_new_allocate (NULL, 64 * 48, NULL);
  GST_BUFFER_PTS (buf) = pts;
  GST_BUFFER_DURATION (buf) = 40 * GST_MSECOND;
  GstMotionVectorsMeta * m = gst_buffer_add_motion_vectors_meta (buf, 64, 48,
      16, 16, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  fail_unless (m != NULL);
  for (guint i = 0; i < m->n_vectors; i++) {
    m->vectors[i].dx = (moving >> i) & 1 ? -2.0f : 0.0f;
    m->vectors[i].flags = (moving >> i) & 1 ? GST_MOTION_VECTOR_FLAG_MOVING : 0;
  }
  const gfloat affine[6] = { 0, 0, 0, 0, 0, 0 };
  gst_motion_vectors_meta_set_global_motion (m, affine);
  if (track) {
    GstVideoRegionOfInterestMeta * roi =
        gst_buffer_add_video_region_of_interest_meta (buf,
            GST_MOTION_REGION_ROI_TYPE, 16, 12, 32, 24);
    gst_video_region_of_interest_meta_add_param (roi,
        gst_structure_new (GST_MOTION_REGION_PARAM_NAME, "mean-dx",
            G_TYPE_DOUBLE, -2.0, "mean-dy", G_TYPE_DOUBLE, 0.0, "area",
            G_TYPE_INT, 2, "pixels", G_TYPE_INT, 512, "track-id", G_TYPE_UINT,
            track, "frames", G_TYPE_UINT, 5, "age", G_TYPE_UINT64,
            (guint64) (200 * GST_MSECOND), "vx", G_TYPE_DOUBLE, 2.0, "vy",
            G_TYPE_DOUBLE, -1.0, "direction", G_TYPE_DOUBLE, 26.6, NULL));
  }
  return buf;
}

static GstHarness *
make_harness (void)
{
  GstHarness * h = gst_harness_new ("mvonvifmeta");
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=25/1");
  return h;
}

static void
push_motion_event (GstHarness * h, const gchar * name, GstClockTime ts)
{
  GstStructure * s =
      gst_structure_new (name, "timestamp", G_TYPE_UINT64, (guint64) ts, NULL);
  fail_unless (gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM, s)));
}

GST_START_TEST (test_frames_and_events)
{
  no_network_loads ();
  GstHarness * h = make_harness ();
  /* Frame 0: no motion (the initial state); an event, then frame 1 with
   * two moving blocks and track 9; frame 2 the same; a stop. */
  fail_unless_equals_int (gst_harness_push (h, make_frame (0, 0, 0)),
      GST_FLOW_OK);
  push_motion_event (h, GST_MOTION_EVENT_START_NAME, 40 * GST_MSECOND);
  fail_unless_equals_int (gst_harness_push (h,
                              make_frame (40 * GST_MSECOND,
                                  (1u << 5) | (1u << 6), 9)),
      GST_FLOW_OK);
  /* Track 9 crosses line "gate" (in-band, as the estimator sends it). */
  fail_unless (gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
          gst_structure_new (GST_MOTION_EVENT_LINE_CROSSED_NAME, "timestamp",
              G_TYPE_UINT64, (guint64) (80 * GST_MSECOND), "line",
              G_TYPE_STRING, "gate", "track-id", G_TYPE_UINT, 9, "direction",
              G_TYPE_STRING, "positive", NULL))));
  /* And zone "door" starts (a zone's motion-start). */
  fail_unless (gst_harness_push_event (h,
      gst_event_new_custom (GST_EVENT_CUSTOM_DOWNSTREAM,
          gst_structure_new (GST_MOTION_EVENT_START_NAME, "timestamp",
              G_TYPE_UINT64, (guint64) (80 * GST_MSECOND), "regions",
              G_TYPE_INT, 1, "track-id", G_TYPE_UINT, 9, "zone", G_TYPE_STRING,
              "door", NULL))));
  fail_unless_equals_int (gst_harness_push (h,
                              make_frame (80 * GST_MSECOND,
                                  (1u << 6) | (1u << 11), 9)),
      GST_FLOW_OK);
  push_motion_event (h, GST_MOTION_EVENT_STOP_NAME, 100 * GST_MSECOND);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));

  std::vector<std::string> docs;
  GstBuffer * b;
  std::vector<GstClockTime> pts;
  while ((b = gst_harness_try_pull (h))) {
    docs.push_back (test_buffer_text (b));
    pts.push_back (GST_BUFFER_PTS (b));
    gst_buffer_unref (b);
  }
  /* Three frames and the stop's own document at EOS. */
  fail_unless_equals_int ((gint) docs.size (), 4);
  fail_unless_equals_uint64 (pts[1], 40 * GST_MSECOND);
  GstCaps * caps = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (gst_structure_has_name (gst_caps_get_structure (caps, 0),
      "application/x-onvif-metadata"));
  gst_caps_unref (caps);

  xmlDocPtr d0 = parse_valid (docs[0]);
  auto e0 = events_of (d0);
  fail_unless_equals_int ((gint) e0.size (), 1);
  fail_unless (e0[0]
      == std::make_pair (std::string ("Initialized"), std::string ("false")));
  fail_unless (select (d0, "//tt:Object").empty ());
  xmlFreeDoc (d0);

  xmlDocPtr d1 = parse_valid (docs[1]);
  auto e1 = events_of (d1);
  fail_unless_equals_int ((gint) e1.size (), 1);
  fail_unless (e1[0].first == "Changed" && e1[0].second == "true");
  std::vector<xmlNodePtr> objs = select (d1, "//tt:Frame/tt:Object");
  fail_unless_equals_int ((gint) objs.size (), 1);
  const std::string id = attr (objs[0], "ObjectId");
  fail_unless (id == "9", "ObjectId %s", id.c_str ());
  /* (16, 12) + 32 x 24 of 64 x 48: x -0.5 .. 0.5, y 0.5 .. -0.5. */
  xmlNodePtr box = select (d1, ".//tt:BoundingBox", objs[0]).at (0);
  fail_unless_equals_float (attr_d (box, "left"), -0.5);
  fail_unless_equals_float (attr_d (box, "right"), 0.5);
  fail_unless_equals_float (attr_d (box, "top"), 0.5);
  fail_unless_equals_float (attr_d (box, "bottom"), -0.5);
  xmlNodePtr cog = select (d1, ".//tt:CenterOfGravity", objs[0]).at (0);
  fail_unless_equals_float (attr_d (cog, "x"), 0.0);
  fail_unless_equals_float (attr_d (cog, "y"), 0.0);
  /* 2 px right and 1 px up a frame at 25 fps: 50 and 25 px/s, 2/64 and
   * 2/48 normalised units a pixel, y up. */
  xmlNodePtr vel = select (d1, ".//mv:Velocity", objs[0]).at (0);
  fail_unless (std::fabs (attr_d (vel, "x") - 50.0 * 2 / 64) < 1e-5);
  fail_unless (std::fabs (attr_d (vel, "y") - 25.0 * 2 / 48) < 1e-5);
  std::vector<uint8_t> cells =
      decode_cells (select (d1, "//tt:MotionInCells").at (0));
  fail_unless_equals_int ((gint) cells.size (), 12);
  for (int i = 0; i < 12; i++)
    fail_unless_equals_int (cells[i], i == 5 || i == 6);
  xmlFreeDoc (d1);

  xmlDocPtr d2 = parse_valid (docs[2]);
  auto e2 = events_of (d2);
  fail_unless_equals_int ((gint) e2.size (), 2);
  fail_unless (e2[0].first == "Crossed" && e2[0].second == "gate:9");
  fail_unless (e2[1].first == "Changed" && e2[1].second == "true");
  /* The zone's message names it as its rule; the element's own ones the
   * `rule` property. */
  fail_unless_equals_int ((gint) select (d2,
                              "//tt:Message[tt:Data/tt:SimpleItem/@Name="
                              "'IsMotion']/tt:Source/tt:SimpleItem[@Name="
                              "'Rule' and @Value='door']")
                              .size (),
      1);
  cells = decode_cells (select (d2, "//tt:MotionInCells").at (0));
  for (int i = 0; i < 12; i++)
    fail_unless_equals_int (cells[i], i == 6 || i == 11);
  xmlFreeDoc (d2);

  xmlDocPtr d3 = parse_valid (docs[3]);
  auto e3 = events_of (d3);
  fail_unless_equals_int ((gint) e3.size (), 1);
  fail_unless (e3[0].first == "Changed" && e3[0].second == "false");
  fail_unless (select (d3, "//tt:Frame").empty ());
  xmlFreeDoc (d3);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* UtcTime: a Unix or NTP reference timestamp on the frame when there is
 * one; the properties choose what is written. */
/* `buf` judged with the estimator's zones `zones` (its rules meta). */
static GstBuffer *
with_zones (GstBuffer * buf, const gchar * zones)
{
  fail_unless (gst_mv_rules_meta_get_info () != NULL);
  GstCustomMeta * m = gst_buffer_add_custom_meta (buf, GST_MV_RULES_META_NAME);
  gst_structure_set (gst_custom_meta_get_structure (m), "zones", G_TYPE_STRING,
      zones, NULL);
  return buf;
}

/* The rules of the Initialized messages of `doc`, in order. */
static std::vector<std::string>
initialized_rules (xmlDocPtr doc)
{
  std::vector<std::string> out;
  for (xmlNodePtr n : select (doc,
           "//tt:Message[@PropertyOperation='Initialized']/tt:Source/"
           "tt:SimpleItem[@Name='Rule']"))
    out.push_back (attr (n, "Value"));
  return out;
}

/* Each zone reports its initial state (no motion) on the first document
 * that has it, after the element's own, and only then: a zone added later
 * reports its own on the first document with it. */
GST_START_TEST (test_zone_initial_states)
{
  no_network_loads ();
  GstHarness * h = make_harness ();
  const gchar * two = "door=0,0 0.5,0 0.5,1;yard=0.5,0 1,0 1,1";
  fail_unless_equals_int (gst_harness_push (h,
                              with_zones (make_frame (0, 0, 0), two)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h,
                              with_zones (make_frame (40 * GST_MSECOND, 0, 0),
                                  two)),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h,
                              with_zones (make_frame (80 * GST_MSECOND, 0, 0),
                                  "door=0,0 0.5,0 0.5,1;gate=0,0 1,0 1,0.2")),
      GST_FLOW_OK);
  fail_unless_equals_int (gst_harness_push (h,
                              make_frame (120 * GST_MSECOND, 0, 0)),
      GST_FLOW_OK);
  std::vector<std::vector<std::string>> rules;
  GstBuffer * b;
  while ((b = gst_harness_try_pull (h))) {
    xmlDocPtr d = parse_valid (test_buffer_text (b));
    rules.push_back (initialized_rules (d));
    for (const auto & e : events_of (d))
      fail_unless (e.first == "Initialized" && e.second == "false");
    xmlFreeDoc (d);
    gst_buffer_unref (b);
  }
  fail_unless_equals_int ((gint) rules.size (), 4);
  fail_unless (rules[0]
      == std::vector<std::string> ({ "MotionDetector", "door", "yard" }));
  fail_unless (rules[1].empty ());
  fail_unless (rules[2] == std::vector<std::string> ({ "gate" }));
  fail_unless (rules[3].empty ());
  gst_harness_teardown (h);
}
GST_END_TEST;

/* Track `track`'s region on `buf` (a 16 x 16 box), in the zones `zones`
 * (comma separated, or NULL). */
static GstBuffer *
with_object (GstBuffer * buf, guint track, const gchar * zones)
{
  GstVideoRegionOfInterestMeta * roi =
      gst_buffer_add_video_region_of_interest_meta (buf,
          GST_MOTION_REGION_ROI_TYPE, 8 * track % 48, 16, 16, 16);
  GstStructure * p = gst_structure_new (GST_MOTION_REGION_PARAM_NAME, "mean-dx",
      G_TYPE_DOUBLE, -2.0, "mean-dy", G_TYPE_DOUBLE, 0.0, "area", G_TYPE_INT, 1,
      "pixels", G_TYPE_INT, 256, "track-id", G_TYPE_UINT, track, "frames",
      G_TYPE_UINT, 5, "age", G_TYPE_UINT64, (guint64) (200 * GST_MSECOND), "vx",
      G_TYPE_DOUBLE, 2.0, "vy", G_TYPE_DOUBLE, 0.0, "direction", G_TYPE_DOUBLE,
      0.0, NULL);
  if (zones)
    gst_structure_set (p, "zones", G_TYPE_STRING, zones, NULL);
  gst_video_region_of_interest_meta_add_param (roi, p);
  return buf;
}

/* The FieldDetector's messages of `doc` as "operation rule:object[=inside]"
 * in order. */
static std::vector<std::string>
field_messages (xmlDocPtr doc)
{
  std::vector<std::string> out;
  for (xmlNodePtr n : select (doc,
           "//wsnt:NotificationMessage[wsnt:Topic="
           "'tns1:RuleEngine/FieldDetector/ObjectsInside']/wsnt:Message/"
           "tt:Message")) {
    std::string s = attr (n, "PropertyOperation") + " ";
    s += attr (select (doc, "tt:Source/tt:SimpleItem[@Name='Rule']", n).at (0),
        "Value");
    s += ":"
        + attr (select (doc, "tt:Key/tt:SimpleItem[@Name='ObjectId']", n)
                    .at (0),
            "Value");
    std::vector<xmlNodePtr> in =
        select (doc, "tt:Data/tt:SimpleItem[@Name='IsInside']", n);
    if (!in.empty ())
      s += "=" + attr (in[0], "Value");
    out.push_back (s);
  }
  return out;
}

/* The zones' ObjectsInside: each object's first report in each zone
 * (Initialized), its entering and leaving (Changed), and Deleted once it
 * is gone for a second or its zone is; nothing without zones. */
GST_START_TEST (test_fields)
{
  no_network_loads ();
  GstHarness * h = make_harness ();
  const gchar * two = "door=0,0 0.5,0 0.5,1;yard=0.5,0 1,0 1,1";
  const GstClockTime ms = GST_MSECOND;
  struct Frame
  {
    GstClockTime pts;
    const gchar * zones;
    std::vector<std::pair<guint, const gchar *>> objects;
  };
  const std::vector<Frame> frames = {
    { 0, two, { { 4, NULL } } }, { 40 * ms, two, { { 4, "door" } } },
    { 80 * ms, two, { { 4, "door" }, { 6, "yard" } } },
    { 120 * ms, two, { { 4, NULL } } }, /* 6 unseen: kept */
    { 160 * ms, "door=0,0 0.5,0 0.5,1", { { 4, "door" } } }, /* yard gone */
    { 1400 * ms, "door=0,0 0.5,0 0.5,1", {} }, /* 4 gone a second */
    { 1440 * ms, NULL, { { 9, NULL } } },      /* no zones */
  };
  for (const Frame & f : frames) {
    GstBuffer * b = make_frame (f.pts, 0, 0);
    if (f.zones)
      with_zones (b, f.zones);
    for (const auto & o : f.objects)
      with_object (b, o.first, o.second);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
  }
  std::vector<std::vector<std::string>> got;
  GstBuffer * b;
  while ((b = gst_harness_try_pull (h))) {
    xmlDocPtr d = parse_valid (test_buffer_text (b));
    got.push_back (field_messages (d));
    xmlFreeDoc (d);
    gst_buffer_unref (b);
  }
  typedef std::vector<std::string> V;
  fail_unless_equals_int ((gint) got.size (), 7);
  fail_unless (
      got[0] == V ({ "Initialized door:4=false", "Initialized yard:4=false" }));
  fail_unless (got[1] == V ({ "Changed door:4=true" }));
  fail_unless (
      got[2] == V ({ "Initialized door:6=false", "Initialized yard:6=true" }));
  fail_unless (got[3] == V ({ "Changed door:4=false" }));
  fail_unless (got[4]
      == V ({ "Changed door:4=true", "Deleted yard:4", "Deleted yard:6" }));
  fail_unless (got[5] == V ({ "Deleted door:4", "Deleted door:6" }));
  fail_unless (got[6].empty ());
  gst_harness_teardown (h);
}
GST_END_TEST;

GST_START_TEST (test_utc_and_properties)
{
  no_network_loads ();
  GstHarness * h = make_harness ();
  GstCaps * unix_caps = gst_caps_new_empty_simple ("timestamp/x-unix");
  GstCaps * ntp_caps = gst_caps_new_empty_simple ("timestamp/x-ntp");
  /* 2026-11-30T05:00:00.250Z */
  const guint64 t =
      G_GUINT64_CONSTANT (1796014800) * GST_SECOND + 250 * GST_MSECOND;
  GstBuffer * f = make_frame (0, 1, 3);
  gst_buffer_add_reference_timestamp_meta (f, unix_caps, t,
      GST_CLOCK_TIME_NONE);
  fail_unless_equals_int (gst_harness_push (h, f), GST_FLOW_OK);
  f = make_frame (40 * GST_MSECOND, 1, 3);
  gst_buffer_add_reference_timestamp_meta (f, ntp_caps,
      t + G_GUINT64_CONSTANT (2208988800) * GST_SECOND + 40 * GST_MSECOND,
      GST_CLOCK_TIME_NONE);
  fail_unless_equals_int (gst_harness_push (h, f), GST_FLOW_OK);
  g_object_set (h->element, "objects", FALSE, "cells", FALSE, "events", FALSE,
      NULL);
  fail_unless_equals_int (gst_harness_push (h,
                              make_frame (80 * GST_MSECOND, 1, 3)),
      GST_FLOW_OK);

  const char * want[2] = { "2026-11-30T05:00:00.250Z",
    "2026-11-30T05:00:00.290Z" };
  for (int k = 0; k < 3; k++) {
    GstBuffer * b = gst_harness_pull (h);
    xmlDocPtr d = parse_valid (test_buffer_text (b));
    gst_buffer_unref (b);
    xmlNodePtr frame = select (d, "//tt:Frame").at (0);
    if (k < 2) {
      const std::string utc = attr (frame, "UtcTime");
      fail_unless (utc == want[k], "UtcTime %s, want %s", utc.c_str (),
          want[k]);
      fail_unless_equals_int ((gint) select (d, "//tt:Object").size (), 1);
      fail_unless_equals_int ((gint) select (d, "//tt:MotionInCells").size (),
          1);
    } else {
      fail_unless (select (d, "//tt:Object").empty ());
      fail_unless (select (d, "//tt:MotionInCells").empty ());
      fail_unless (select (d, "//tt:Event").empty ());
    }
    xmlFreeDoc (d);
  }
  gst_caps_unref (unix_caps);
  gst_caps_unref (ntp_caps);
  gst_harness_teardown (h);
}
GST_END_TEST;

/* --------------------------------------------- blockmatchme's decision */

/* The square of the tests (tests/common/checkutil.h). */
static GstBuffer *
moving_square (guint n)
{
  return test_moving_square (n, 32, 20, 40, 3, 1);
}

/* The MOVING flags of each frame entering mvonvifmeta, by PTS. */
static GstPadProbeReturn
record_moving (GstPad *, GstPadProbeInfo * info, gpointer data)
{
  auto * moving = (std::map<GstClockTime, std::vector<uint8_t>> *) data;
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  const GstMotionVectorsMeta * m = gst_buffer_get_motion_vectors_meta (buf);
  if (m && gst_motion_vectors_meta_get_global_motion (m, 0, 0, NULL, NULL)) {
    std::vector<uint8_t> v (m->n_vectors);
    for (guint i = 0; i < m->n_vectors; i++)
      v[i] = (m->vectors[i].flags & GST_MOTION_VECTOR_FLAG_MOVING) ? 1 : 0;
    (*moving)[GST_BUFFER_PTS (buf)] = v;
  }
  return GST_PAD_PROBE_OK;
}

GST_START_TEST (test_decision_documents)
{
  no_network_loads ();
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (
      "appsrc name=src format=time "
      "caps=video/x-raw,format=GRAY8,width=160,height=120,framerate=25/1 ! "
      "blockmatchme backend=cpu regions=true events=true ! "
      "mvonvifmeta name=onvif ! appsink name=sink sync=false",
      &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  std::map<GstClockTime, std::vector<uint8_t>> moving;
  test_probe_buffers (pipe, "onvif", "sink", record_moving, &moving);
  const guint n = 40;
  /* Every document first, then read (the probe's map is complete). */
  std::vector<GstBuffer *> out;
  test_play_frames (pipe, n, moving_square, &out);

  guint docs = 0, with_cells = 0, starts = 0;
  std::map<std::string, guint> ids;
  for (GstBuffer * b : out) {
    xmlDocPtr d = parse_valid (test_buffer_text (b));
    docs++;
    std::vector<xmlNodePtr> c = select (d, "//tt:MotionInCells");
    if (!c.empty ()) {
      fail_unless (moving.count (GST_BUFFER_PTS (b)));
      fail_unless (decode_cells (c[0]) == moving[GST_BUFFER_PTS (b)],
          "frame at %" GST_TIME_FORMAT ": cells differ from MOVING",
          GST_TIME_ARGS (GST_BUFFER_PTS (b)));
      with_cells++;
    }
    for (xmlNodePtr o : select (d, "//tt:Object"))
      ids[attr (o, "ObjectId")]++;
    for (auto & e : events_of (d))
      starts += e.first == "Changed" && e.second == "true";
    xmlFreeDoc (d);
    gst_buffer_unref (b);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  fail_unless (docs >= n, "%u documents", docs);
  fail_unless (with_cells >= n - 2, "%u documents with cells", with_cells);
  /* The one square is one object, followed under one id. */
  fail_unless_equals_int ((gint) ids.size (), 1);
  fail_unless (ids.begin ()->second >= n / 2, "%u frames with the object",
      ids.begin ()->second);
  fail_unless_equals_int (starts, 1);
  gst_object_unref (pipe);
}
GST_END_TEST;

/* ------------------------------------------------------------ RTP */

/* Pushes `packets` (taken) through a new rtponvifmetadepay, dropping
 * those that `lost (document, packet in it, marker)` says, the packet
 * after each loss marked DISCONT (as the jitter buffer marks one);
 * returns the documents out and sets *incomplete to its count. */
template <typename Lost>
static std::vector<std::string>
depayload (std::vector<GstBuffer *> & packets, Lost lost, guint64 * incomplete)
{
  GstHarness * d = gst_harness_new ("rtponvifmetadepay");
  gst_harness_set_src_caps_str (d,
      "application/x-rtp,media=application,"
      "payload=107,clock-rate=90000,encoding-name=VND.ONVIF.METADATA");
  guint doc = 0, in_doc = 0;
  gboolean gap = FALSE;
  for (GstBuffer * in : packets) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    gst_rtp_buffer_map (in, GST_MAP_READ, &rtp);
    const gboolean marker = gst_rtp_buffer_get_marker (&rtp);
    gst_rtp_buffer_unmap (&rtp);
    const gboolean drop = lost (doc, in_doc, marker);
    in_doc = marker ? 0 : in_doc + 1;
    doc += marker;
    if (drop) {
      gap = TRUE;
      gst_buffer_unref (in);
      continue;
    }
    if (gap) {
      in = gst_buffer_make_writable (in);
      GST_BUFFER_FLAG_SET (in, GST_BUFFER_FLAG_DISCONT);
      gap = FALSE;
    }
    fail_unless_equals_int (gst_harness_push (d, in), GST_FLOW_OK);
  }
  packets.clear ();
  std::vector<std::string> back;
  GstBuffer * p;
  while ((p = gst_harness_try_pull (d))) {
    back.push_back (test_buffer_text (p));
    gst_buffer_unref (p);
  }
  g_object_get (d->element, "incomplete", incomplete, NULL);
  gst_harness_teardown (d);
  return back;
}

GST_START_TEST (test_rtp_pay_depay)
{
  /* Documents of the decision test's kind, through the payloader at a
   * small MTU: split, the marker on each one's last packet, one RTP
   * timestamp a document, 90 kHz steps following the PTS. */
  GstHarness * h = gst_harness_new_parse ("mvonvifmeta ! rtponvifmetapay "
                                          "mtu=300 pt=107");
  gst_harness_set_src_caps_str (h,
      "video/x-raw,format=GRAY8,width=64,height=48,framerate=25/1");
  std::vector<std::string> docs;
  std::vector<GstBuffer *> packets;
  for (guint i = 0; i < 6; i++)
    fail_unless_equals_int (gst_harness_push (h,
                                make_frame (i * 40 * GST_MSECOND, 0x3f, 4)),
        GST_FLOW_OK);
  GstBuffer * p;
  while ((p = gst_harness_try_pull (h)))
    packets.push_back (p);
  std::vector<GstBuffer *> again; /* for a second depayloader */
  for (GstBuffer * b : packets)
    again.push_back (gst_buffer_copy (b));
  GstCaps * caps = gst_pad_get_current_caps (h->sinkpad);
  const GstStructure * st = gst_caps_get_structure (caps, 0);
  fail_unless_equals_string (gst_structure_get_string (st, "encoding-name"),
      "VND.ONVIF.METADATA");
  gint rate = 0;
  fail_unless (gst_structure_get_int (st, "clock-rate", &rate));
  fail_unless_equals_int (rate, 90000);
  gst_caps_unref (caps);

  guint documents = 0;
  gint64 first_ts = -1;
  guint32 doc_ts = 0;
  gboolean open = FALSE;
  std::string text;
  for (GstBuffer * b : packets) {
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    fail_unless (gst_rtp_buffer_map (b, GST_MAP_READ, &rtp));
    fail_unless (gst_buffer_get_size (b) <= 300);
    fail_unless_equals_int (gst_rtp_buffer_get_payload_type (&rtp), 107);
    const guint32 ts = gst_rtp_buffer_get_timestamp (&rtp);
    if (!open) {
      doc_ts = ts;
      if (first_ts < 0)
        first_ts = ts;
      /* The n-th document is 40 ms (3600 ticks) after the one before. */
      fail_unless_equals_int64 ((gint64) (guint32) (ts - (guint32) first_ts),
          (gint64) documents * 3600);
      open = TRUE;
    }
    fail_unless_equals_int64 (ts, doc_ts);
    text.append ((const char *) gst_rtp_buffer_get_payload (&rtp),
        gst_rtp_buffer_get_payload_len (&rtp));
    if (gst_rtp_buffer_get_marker (&rtp)) {
      docs.push_back (text);
      text.clear ();
      documents++;
      open = FALSE;
    }
    gst_rtp_buffer_unmap (&rtp);
  }
  fail_unless_equals_int (documents, 6);
  fail_unless (packets.size () > 12, "%zu packets: not split", packets.size ());
  for (const std::string & d : docs)
    xmlFreeDoc (parse_valid (d));
  gst_harness_teardown (h);

  /* The depayloader gives the documents back. Lost: the second packet
   * of document 1 and the first of document 3 (the packet after each gap
   * marked DISCONT, as the jitter buffer marks one): both dropped up to
   * their marker, each counted once. */
  guint64 incomplete = 0;
  std::vector<std::string> back = depayload (
      packets,
      [] (guint doc, guint in_doc, gboolean marker) {
        const gboolean lost =
            (doc == 1 && in_doc == 1) || (doc == 3 && in_doc == 0);
        fail_if (lost && marker);
        return lost;
      },
      &incomplete);
  fail_unless_equals_uint64 (incomplete, 2);
  fail_unless_equals_int ((gint) back.size (), 4);
  for (size_t k = 0, j = 0; k < docs.size (); k++) {
    if (k == 1 || k == 3)
      continue;
    fail_unless (back[j++] == docs[k], "document %zu differs", k);
  }

  /* Document 1 loses its first and its last packet: it is skipped (once
   * counted), and document 2, with a new timestamp, comes whole although
   * document 1's marker never came. */
  back = depayload (
      again,
      [] (guint doc, guint in_doc, gboolean marker) {
        return doc == 1 && (in_doc == 0 || marker);
      },
      &incomplete);
  fail_unless_equals_uint64 (incomplete, 1);
  fail_unless_equals_int ((gint) back.size (), 5);
  for (size_t k = 0, j = 0; k < docs.size (); k++) {
    if (k == 1)
      continue;
    fail_unless (back[j++] == docs[k], "document %zu differs", k);
  }
}
GST_END_TEST;

/* ------------------------------------------------------------ RTSP */

/* The example server (its path in ONVIF_RTSP_SERVER) on 127.0.0.1 serving
 * the bundled clip; rtspsrc takes the video and the metadata from one URL.
 * Every document valid, ObjectIds followed from frame to frame (an id's
 * centre moves by at most a fifth of the frame between documents), the
 * documents' timestamps frame times, as the video's are. */
GST_START_TEST (test_rtsp_server)
{
  const gchar * server = g_getenv ("ONVIF_RTSP_SERVER");
  const gchar * clip = g_getenv ("ONVIF_TEST_CLIP");
  if (!server || !clip || !g_file_test (server, G_FILE_TEST_IS_EXECUTABLE)
      || !g_file_test (clip, G_FILE_TEST_EXISTS)) {
    GST_INFO ("no example server or clip: skipped");
    return;
  }
  /* The server decodes the Ogg/Theora clip and encodes H.264 or VP8. */
  const gchar * missing = !test_can_decode_ogg_theora () ? "Ogg/Theora decoder"
      : !test_have_element ("rtspsrc")                   ? "rtspsrc"
      : !test_have_element ("x264enc") && !test_have_element ("vp8enc")
      ? "H.264 or VP8 encoder"
      : NULL;
  if (missing) {
    g_print ("test_rtsp_server: skipped (no %s here; the README's packages "
             "install it)\n",
        missing);
    return;
  }
  no_network_loads ();
  gchar * uri = gst_filename_to_uri (clip, NULL);
  const gchar * argv[] = { server, "--port", "0", "--address", "127.0.0.1",
    "--backend", "cpu", "--estimator", "method=diamond", uri, NULL };
  GPid pid;
  gint out_fd = -1;
  GError * err = NULL;
  fail_unless (g_spawn_async_with_pipes (NULL, (gchar **) argv, NULL,
                   G_SPAWN_DO_NOT_REAP_CHILD, NULL, NULL, &pid, NULL, &out_fd,
                   NULL, &err),
      "%s", err ? err->message : "?");
  /* Its first line: "serving rtsp://127.0.0.1:PORT/motion". */
  GIOChannel * ch = g_io_channel_unix_new (out_fd);
  gchar * line = NULL;
  g_io_channel_read_line (ch, &line, NULL, NULL, NULL);
  fail_unless (line && g_str_has_prefix (line, "serving rtsp://"), "%s",
      line ? line : "(no line)");
  g_strstrip (line);
  gchar * desc = g_strdup_printf (
      "rtspsrc location=%s protocols=tcp "
      "latency=0 name=r  r. ! application/x-rtp,media=application ! "
      "rtponvifmetadepay name=depay ! appsink name=meta sync=false  "
      "r. ! application/x-rtp,media=video ! fakesink name=video",
      line + strlen ("serving "));
  GstElement * pipe = gst_parse_launch (desc, &err);
  fail_unless (pipe != NULL, "%s", err ? err->message : "?");
  GstElement * sink = gst_bin_get_by_name (GST_BIN (pipe), "meta");
  /* The RTP timestamp of each document's last packet, as it arrives. */
  std::vector<guint32> rtp_ts;
  GstElement * depay = gst_bin_get_by_name (GST_BIN (pipe), "depay");
  GstPad * depay_sink = gst_element_get_static_pad (depay, "sink");
  gst_pad_add_probe (
      depay_sink, GST_PAD_PROBE_TYPE_BUFFER,
      [] (GstPad *, GstPadProbeInfo * info, gpointer data) {
        GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
        if (gst_rtp_buffer_map (GST_PAD_PROBE_INFO_BUFFER (info), GST_MAP_READ,
                &rtp)) {
          if (gst_rtp_buffer_get_marker (&rtp))
            ((std::vector<guint32> *) data)
                ->push_back (gst_rtp_buffer_get_timestamp (&rtp));
          gst_rtp_buffer_unmap (&rtp);
        }
        return GST_PAD_PROBE_OK;
      },
      &rtp_ts, NULL);
  gst_object_unref (depay_sink);
  gst_object_unref (depay);
  gst_element_set_state (pipe, GST_STATE_PLAYING);

  guint docs = 0, objects = 0, followed = 0;
  std::map<std::string, std::pair<double, double>> last;
  GstSample * s;
  while (docs < 60
      && (s = gst_app_sink_try_pull_sample (GST_APP_SINK (sink),
              20 * GST_SECOND))) {
    GstBuffer * b = gst_sample_get_buffer (s);
    xmlDocPtr d = parse_valid (test_buffer_text (b));
    docs++;
    std::vector<xmlNodePtr> c = select (d, "//tt:MotionInCells");
    if (!c.empty ())
      fail_unless (!decode_cells (c[0]).empty ());
    std::map<std::string, std::pair<double, double>> now;
    for (xmlNodePtr o : select (d, "//tt:Object")) {
      xmlNodePtr cog = select (d, ".//tt:CenterOfGravity", o).at (0);
      const std::string id = attr (o, "ObjectId");
      now[id] = { attr_d (cog, "x"), attr_d (cog, "y") };
      objects++;
      auto it = last.find (id);
      if (it != last.end ()) {
        fail_unless (std::hypot (now[id].first - it->second.first,
                         now[id].second - it->second.second)
                < 0.4,
            "object %s jumped", id.c_str ());
        followed++;
      }
    }
    last = now;
    xmlFreeDoc (d);
    gst_sample_unref (s);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  kill (pid, SIGTERM);
  g_spawn_close_pid (pid);
  fail_unless (docs >= 30, "%u documents", docs);
  fail_unless (objects > 0 && followed > 0, "%u objects, %u followed", objects,
      followed);
  /* The clip runs at 10 fps (data/README.md): the documents' RTP
   * timestamps are frame times, 9000 ticks of 90 kHz apart (or a multiple,
   * where the server's leaky queue let the estimator skip a frame). */
  fail_unless (rtp_ts.size () >= docs);
  for (size_t i = 1; i < rtp_ts.size (); i++) {
    const guint32 step = rtp_ts[i] - rtp_ts[i - 1];
    fail_unless (step > 0 && step % 9000 <= 1,
        "document %zu: RTP timestamp %u after %u", i, rtp_ts[i], rtp_ts[i - 1]);
  }
  g_free (line);
  g_io_channel_unref (ch);
  g_free (desc);
  g_free (uri);
  gst_object_unref (sink);
  gst_object_unref (pipe);
}
GST_END_TEST;

static Suite *
mvonvifmeta_suite (void)
{
  Suite * s = suite_create ("mvonvifmeta");
  TCase * tc = tcase_create ("general");
  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_packbits);
  tcase_add_test (tc, test_frames_and_events);
  tcase_add_test (tc, test_zone_initial_states);
  tcase_add_test (tc, test_fields);
  tcase_add_test (tc, test_utc_and_properties);
  tcase_add_test (tc, test_decision_documents);
  tcase_add_test (tc, test_rtp_pay_depay);
  tcase_add_test (tc, test_rtsp_server);
  return s;
}

GST_CHECK_MAIN (mvonvifmeta);
