/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * h264mvdec and h264mvextract (docs/codec-vectors.md). The streams are made
 * at test time by libavcodec's libx264 encoder from small synthetic frames
 * (a textured square moving over a textured background), so nothing
 * binary is in the tree; without libx264 in libavcodec the cases skip.
 * The reference field is FFmpeg's own side data, decoded here on one
 * thread by a separate AVCodecContext and mapped onto the grid by this
 * file's own (per-pixel) code: equal to the elements' fields exactly, with
 * 8x8 blocks (FFmpeg's vectors unchanged) and 16x16 (area-weighted).
 * Also: H.265 refused at caps, avc through h264parse (when installed),
 * B frames and latency, pass-through bytes and order, corrupt and
 * truncated streams, a stream that starts on a P frame, a resolution
 * change, a flush, and the motion events of the shared decision.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <cmath>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/motion_vector.h>
#include <libavutil/opt.h>
}

#define FPS 30

struct Packet
{
  std::vector<guint8> data;
  gint64 pts; /* frame index, display order */
  gint64 dts;
  bool key;
};

struct Stream
{
  int width = 0, height = 0;
  std::vector<Packet> packets; /* decode order, byte-stream AUs */
};

/* Frame i of a width x height clip: a static random texture with a 32x32
 * textured square moving by (2, 1) px a frame. */
static void
synth_frame (AVFrame * f, int i)
{
  const int sx = 8 + 2 * i, sy = 8 + i;
  for (int y = 0; y < f->height; y++) {
    for (int x = 0; x < f->width; x++) {
      /* Smooth texture (encoders find good vectors on it). */
      int v = 128
          + (int) (40 * std::sin (x * 0.31 + y * 0.17)
              + 30 * std::cos (y * 0.23 - x * 0.11));
      if (x >= sx && x < sx + 32 && y >= sy && y < sy + 32)
        v = 60
            + (int) (50 * std::sin ((x - sx) * 0.5)
                * std::cos ((y - sy) * 0.4));
      f->data[0][y * f->linesize[0] + x] = (uint8_t) CLAMP (v, 0, 255);
    }
  }
  for (int p = 1; p < 3; p++)
    for (int y = 0; y < f->height / 2; y++)
      memset (f->data[p] + y * f->linesize[p], 128, f->width / 2);
}

/* Encodes `n` frames with libx264 (through libavcodec). FALSE when this
 * libavcodec has no libx264. */
static bool
encode (Stream * s, int width, int height, int n, int bframes, int keyint,
    int first_index = 0)
{
  const AVCodec * codec = avcodec_find_encoder_by_name ("libx264");
  if (!codec)
    return false;
  AVCodecContext * c = avcodec_alloc_context3 (codec);
  c->width = width;
  c->height = height;
  c->pix_fmt = AV_PIX_FMT_YUV420P;
  c->time_base = AVRational{ 1, FPS };
  c->framerate = AVRational{ FPS, 1 };
  c->gop_size = keyint;
  c->max_b_frames = bframes;
  c->thread_count = 1;
  av_opt_set (c->priv_data, "preset", "veryfast", 0);
  gchar * params = g_strdup_printf ("ref=1:keyint=%d:min-keyint=%d:"
                                    "scenecut=0:bframes=%d:b-pyramid=none",
      keyint, keyint, bframes);
  av_opt_set (c->priv_data, "x264-params", params, 0);
  g_free (params);
  fail_unless (avcodec_open2 (c, codec, NULL) == 0);
  s->width = width;
  s->height = height;
  AVFrame * f = av_frame_alloc ();
  f->format = AV_PIX_FMT_YUV420P;
  f->width = width;
  f->height = height;
  fail_unless (av_frame_get_buffer (f, 0) == 0);
  AVPacket * pkt = av_packet_alloc ();
  for (int i = 0; i <= n; i++) {
    if (i < n) {
      fail_unless (av_frame_make_writable (f) == 0);
      synth_frame (f, i);
      f->pts = first_index + i;
    }
    fail_unless (avcodec_send_frame (c, i < n ? f : NULL) == 0);
    while (avcodec_receive_packet (c, pkt) == 0) {
      Packet p;
      p.data.assign (pkt->data, pkt->data + pkt->size);
      p.pts = pkt->pts;
      p.dts = pkt->dts;
      p.key = pkt->flags & AV_PKT_FLAG_KEY;
      s->packets.push_back (p);
      av_packet_unref (pkt);
    }
  }
  av_packet_free (&pkt);
  av_frame_free (&f);
  avcodec_free_context (&c);
  return true;
}

/* One reference picture: its list-0 partitions as FFmpeg exports them. */
struct RefPicture
{
  int width, height;
  std::vector<AVMotionVector> mvs;
};

/* FFmpeg's side data of every picture, by pts (one thread). */
static std::map<gint64, RefPicture>
reference (const std::vector<Packet> & packets)
{
  std::map<gint64, RefPicture> out;
  const AVCodec * codec = avcodec_find_decoder (AV_CODEC_ID_H264);
  AVCodecContext * c = avcodec_alloc_context3 (codec);
  c->export_side_data |= AV_CODEC_EXPORT_DATA_MVS;
  c->thread_count = 1;
  fail_unless (avcodec_open2 (c, codec, NULL) == 0);
  AVPacket * pkt = av_packet_alloc ();
  AVFrame * f = av_frame_alloc ();
  for (size_t i = 0; i <= packets.size (); i++) {
    std::vector<guint8> padded;
    if (i < packets.size ()) {
      padded = packets[i].data;
      padded.resize (padded.size () + AV_INPUT_BUFFER_PADDING_SIZE, 0);
      pkt->data = padded.data ();
      pkt->size = (int) packets[i].data.size ();
      pkt->pts = packets[i].pts;
      avcodec_send_packet (c, pkt);
    } else {
      avcodec_send_packet (c, NULL);
    }
    while (avcodec_receive_frame (c, f) == 0) {
      RefPicture r;
      r.width = f->width;
      r.height = f->height;
      AVFrameSideData * sd =
          av_frame_get_side_data (f, AV_FRAME_DATA_MOTION_VECTORS);
      if (sd) {
        const AVMotionVector * m = (const AVMotionVector *) sd->data;
        for (size_t k = 0; k < sd->size / sizeof (AVMotionVector); k++)
          if (m[k].source < 0)
            r.mvs.push_back (m[k]);
      }
      out[f->pts] = r;
      av_frame_unref (f);
    }
  }
  av_frame_free (&f);
  av_packet_free (&pkt);
  avcodec_free_context (&c);
  return out;
}

/* The expected field of `r` on a `bs` grid, pixel by pixel: each pixel
 * takes the vector of the partition it is in; a block is the mean over
 * its pixels that have one (NO_ESTIMATE without any). */
static std::vector<GstMotionVector>
expected_field (const RefPicture & r, int bs)
{
  const int cols = (r.width + bs - 1) / bs, rows = (r.height + bs - 1) / bs;
  std::vector<double> n (cols * rows), sx (cols * rows), sy (cols * rows);
  for (const AVMotionVector & m : r.mvs) {
    for (int y = m.dst_y - m.h / 2; y < m.dst_y - m.h / 2 + m.h; y++) {
      for (int x = m.dst_x - m.w / 2; x < m.dst_x - m.w / 2 + m.w; x++) {
        if (x < 0 || y < 0 || x >= r.width || y >= r.height)
          continue;
        const int b = (y / bs) * cols + x / bs;
        n[b] += 1;
        sx[b] += (double) m.motion_x / m.motion_scale;
        sy[b] += (double) m.motion_y / m.motion_scale;
      }
    }
  }
  std::vector<GstMotionVector> f (cols * rows);
  for (int b = 0; b < cols * rows; b++) {
    f[b].flags = n[b] > 0 ? 0 : GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
    f[b].dx = n[b] > 0 ? (float) (sx[b] / n[b]) : 0.0f;
    f[b].dy = n[b] > 0 ? (float) (sy[b] / n[b]) : 0.0f;
  }
  return f;
}

static GstBuffer *
packet_buffer (const Packet & p)
{
  GstBuffer * b = gst_buffer_new_memdup (p.data.data (), p.data.size ());
  GST_BUFFER_PTS (b) = gst_util_uint64_scale (p.pts, GST_SECOND, FPS);
  GST_BUFFER_DTS (b) = gst_util_uint64_scale (p.dts + 2, GST_SECOND, FPS);
  GST_BUFFER_DURATION (b) = GST_SECOND / FPS;
  if (!p.key)
    GST_BUFFER_FLAG_SET (b, GST_BUFFER_FLAG_DELTA_UNIT);
  return b;
}

#define BYTESTREAM_CAPS                                                        \
  "video/x-h264, stream-format=byte-stream, alignment=au, "                    \
  "framerate=30/1"

/* A harness around `element` with a bus that keeps its messages. */
static GstHarness *
make_harness (const char * element, GstBus ** bus)
{
  GstHarness * h = gst_harness_new_parse (element);
  *bus = gst_bus_new ();
  gst_element_set_bus (h->element, *bus);
  gst_harness_set_src_caps_str (h, BYTESTREAM_CAPS);
  return h;
}

static guint
count_messages (GstBus * bus, GstMessageType type, const char * name = NULL)
{
  guint n = 0;
  GstMessage * m;
  while ((m = gst_bus_pop (bus))) {
    GST_INFO ("message %s from %s", GST_MESSAGE_TYPE_NAME (m),
        GST_MESSAGE_SRC_NAME (m));
    if (GST_MESSAGE_TYPE (m) == type
        && (!name
            || (gst_message_get_structure (m)
                && gst_structure_has_name (gst_message_get_structure (m),
                    name))))
      n++;
    gst_message_unref (m);
  }
  return n;
}

/* Pushes every packet then EOS; returns the buffers that came out. */
static std::vector<GstBuffer *>
run (GstHarness * h, const std::vector<Packet> & packets)
{
  std::vector<GstBuffer *> out;
  for (const Packet & p : packets)
    fail_unless_equals_int (gst_harness_push (h, packet_buffer (p)),
        GST_FLOW_OK);
  fail_unless (gst_harness_push_event (h, gst_event_new_eos ()));
  GstBuffer * b;
  while ((b = gst_harness_try_pull (h)))
    out.push_back (b);
  return out;
}

static void
free_buffers (std::vector<GstBuffer *> & v)
{
  for (GstBuffer * b : v)
    gst_buffer_unref (b);
  v.clear ();
}

/* Every output buffer's field equals the reference's (by PTS). */
static guint
check_fields (const std::vector<GstBuffer *> & out,
    const std::map<gint64, RefPicture> & ref, int bs)
{
  guint estimated = 0;
  for (GstBuffer * b : out) {
    const gint64 pts = (gint64) gst_util_uint64_scale_round (GST_BUFFER_PTS (b),
        FPS, GST_SECOND);
    GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (b);
    fail_unless (meta != NULL, "no meta on pts %" G_GINT64_FORMAT, pts);
    auto it = ref.find (pts);
    fail_unless (it != ref.end ());
    fail_unless_equals_int (meta->frame_width, it->second.width);
    fail_unless_equals_int (meta->frame_height, it->second.height);
    fail_unless_equals_int (meta->block_width, bs);
    fail_unless_equals_int (meta->direction,
        GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    fail_unless_equals_float (meta->precision, 0.25f);
    const std::vector<GstMotionVector> want = expected_field (it->second, bs);
    fail_unless_equals_int (meta->n_vectors, want.size ());
    for (guint i = 0; i < meta->n_vectors; i++) {
      const GstMotionVector & v = meta->vectors[i];
      fail_unless ((v.flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE)
              == want[i].flags,
          "pts %" G_GINT64_FORMAT " block %u: flags %u, "
          "FFmpeg's %u",
          pts, i, v.flags, want[i].flags);
      /* 8x8: one partition a block, exactly; 16x16: a mean, float sums. */
      if (bs == 8) {
        fail_unless (v.dx == want[i].dx && v.dy == want[i].dy,
            "pts %" G_GINT64_FORMAT " block %u: (%g, %g) != (%g, %g)", pts, i,
            v.dx, v.dy, want[i].dx, want[i].dy);
      } else {
        fail_unless (std::fabs (v.dx - want[i].dx) < 1e-4
                && std::fabs (v.dy - want[i].dy) < 1e-4,
            "pts %" G_GINT64_FORMAT " block %u: (%g, %g) != (%g, %g)", pts, i,
            v.dx, v.dy, want[i].dx, want[i].dy);
      }
      if (!(v.flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE))
        estimated++;
    }
    if (it->second.mvs.empty ())
      fail_unless (meta->reference_timestamp == GST_CLOCK_TIME_NONE);
  }
  return estimated;
}

#define NEED_X264(s, ...)                                                      \
  if (!encode (s, __VA_ARGS__)) {                                              \
    GST_INFO ("no libx264 in this libavcodec: skipped");                       \
    return;                                                                    \
  }

static void
decode_equals_ffmpeg (const char * element, int bframes, int bs)
{
  Stream s;
  NEED_X264 (&s, 160, 96, 24, bframes, 12);
  const auto ref = reference (s.packets);
  GstBus * bus;
  gchar * desc = g_strdup_printf ("%s block-size=%d", element, bs);
  GstHarness * h = make_harness (desc, &bus);
  g_free (desc);
  std::vector<GstBuffer *> out = run (h, s.packets);
  fail_unless_equals_int (out.size (), 24);
  /* The moving square's blocks have estimates; most blocks do. */
  const guint estimated = check_fields (out, ref, bs);
  fail_unless (estimated > 0);
  /* Display order out of the decoder, decode order through extract. */
  for (size_t i = 1; i < out.size (); i++) {
    if (strcmp (element, "h264mvdec") == 0)
      fail_unless (GST_BUFFER_PTS (out[i]) > GST_BUFFER_PTS (out[i - 1]));
  }
  if (strcmp (element, "h264mvextract") == 0) {
    for (size_t i = 0; i < out.size (); i++) {
      GstMapInfo map;
      fail_unless (gst_buffer_map (out[i], &map, GST_MAP_READ));
      fail_unless_equals_int (map.size, s.packets[i].data.size ());
      fail_unless (memcmp (map.data, s.packets[i].data.data (), map.size) == 0);
      gst_buffer_unmap (out[i], &map);
    }
  }
  fail_unless_equals_int (count_messages (bus, GST_MESSAGE_WARNING), 0);
  free_buffers (out);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_START_TEST (test_dec_p_equals_ffmpeg)
{
  decode_equals_ffmpeg ("h264mvdec", 0, 8);
  decode_equals_ffmpeg ("h264mvdec", 0, 16);
}

GST_END_TEST;

GST_START_TEST (test_dec_b_equals_ffmpeg)
{
  decode_equals_ffmpeg ("h264mvdec", 2, 8);
  decode_equals_ffmpeg ("h264mvdec", 2, 16);
}

GST_END_TEST;

GST_START_TEST (test_extract_equals_ffmpeg)
{
  decode_equals_ffmpeg ("h264mvextract", 0, 8);
  decode_equals_ffmpeg ("h264mvextract", 2, 8);
  decode_equals_ffmpeg ("h264mvextract", 2, 16);
}

GST_END_TEST;

/* The square moves right and down, so the backward vectors of its blocks
 * point left and up: dx = -2, dy = -1 on a P frame. */
GST_START_TEST (test_sign_convention)
{
  Stream s;
  NEED_X264 (&s, 160, 96, 12, 0, 12);
  GstBus * bus;
  GstHarness * h = make_harness ("h264mvdec block-size=8", &bus);
  std::vector<GstBuffer *> out = run (h, s.packets);
  GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (out[6]);
  /* Frame 6: the square covers x 20..51, y 14..45; block (4, 3) is inside
   * it (pixels 32..39, 24..31). */
  const GstMotionVector * v = gst_motion_vectors_meta_get_vector (meta, 4, 3);
  fail_unless_equals_float (v->dx, -2.0f);
  fail_unless_equals_float (v->dy, -1.0f);
  fail_unless_equals_uint64 (meta->reference_timestamp,
      gst_util_uint64_scale (5, GST_SECOND, FPS));
  /* The I frame: no estimate anywhere. */
  meta = gst_buffer_get_motion_vectors_meta (out[0]);
  for (guint i = 0; i < meta->n_vectors; i++)
    fail_unless (meta->vectors[i].flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
  free_buffers (out);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

GST_START_TEST (test_h265_refused)
{
  for (const char * el : { "h264mvdec", "h264mvextract" }) {
    GstElement * e = gst_element_factory_make (el, NULL);
    GstPad * sink = gst_element_get_static_pad (e, "sink");
    GstCaps * h265 =
        gst_caps_from_string ("video/x-h265, "
                              "stream-format=byte-stream, alignment=au");
    GstCaps * h264 = gst_caps_from_string (BYTESTREAM_CAPS);
    GstCaps * avc = gst_caps_from_string ("video/x-h264, stream-format=avc, "
                                          "alignment=au");
    GstCaps * nal =
        gst_caps_from_string ("video/x-h264, "
                              "stream-format=byte-stream, alignment=nal");
    fail_if (gst_pad_query_accept_caps (sink, h265));
    fail_if (gst_pad_query_accept_caps (sink, nal));
    fail_unless (gst_pad_query_accept_caps (sink, h264));
    fail_unless (gst_pad_query_accept_caps (sink, avc));
    gst_caps_unref (h265);
    gst_caps_unref (h264);
    gst_caps_unref (avc);
    gst_caps_unref (nal);
    gst_object_unref (sink);
    gst_object_unref (e);
  }
}

GST_END_TEST;

/* Broken data: bytes flipped inside slices, a truncated access unit,
 * garbage, an empty buffer. Never a crash; a warning per broken frame;
 * the stream goes on (the frames after the next I frame decode). */
static void
corrupt_stream (const char * element)
{
  Stream s;
  NEED_X264 (&s, 160, 96, 36, 0, 12);
  std::mt19937 rng (3);
  for (int i : { 3, 5, 14 }) {
    std::vector<guint8> & d = s.packets[i].data;
    for (size_t k = d.size () / 3; k < d.size (); k += 7)
      d[k] ^= (guint8) rng ();
  }
  s.packets[8].data.resize (s.packets[8].data.size () / 2);
  Packet garbage = s.packets[20];
  for (guint8 & b : garbage.data)
    b = (guint8) rng ();
  garbage.data[0] = garbage.data[1] = garbage.data[2] = 0;
  garbage.data[3] = 1;
  s.packets[20] = garbage;

  GstBus * bus;
  GstHarness * h = make_harness (element, &bus);
  std::vector<GstBuffer *> out = run (h, s.packets);
  /* The last I frame (24) and its P frames decode: at least those. */
  fail_unless (out.size () >= 12, "%u out", (guint) out.size ());
  GstBuffer * last = out.back ();
  GstMotionVectorsMeta * meta = gst_buffer_get_motion_vectors_meta (last);
  fail_unless (meta != NULL);
  fail_unless (gst_motion_vectors_meta_is_valid (meta));
  const guint warnings = count_messages (bus, GST_MESSAGE_WARNING);
  fail_unless (warnings >= 1, "no warning");
  fail_unless (warnings <= 36, "%u warnings", warnings);
  free_buffers (out);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_START_TEST (test_corrupt)
{
  corrupt_stream ("h264mvdec");
  corrupt_stream ("h264mvextract");
}

GST_END_TEST;

/* A stream cut short: its first 10 access units, the last cut in half. */
GST_START_TEST (test_truncated)
{
  for (const char * el : { "h264mvdec", "h264mvextract" }) {
    Stream s;
    NEED_X264 (&s, 160, 96, 24, 2, 12);
    s.packets.resize (10);
    s.packets[9].data.resize (s.packets[9].data.size () / 2);
    GstBus * bus;
    GstHarness * h = make_harness (el, &bus);
    std::vector<GstBuffer *> out = run (h, s.packets);
    fail_unless (out.size () >= 8, "%s: %u out", el, (guint) out.size ());
    if (strcmp (el, "h264mvextract") == 0)
      fail_unless_equals_int (out.size (), 10);
    free_buffers (out);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* A stream that starts on a P frame (joined mid-GOP): the frames before
 * the next I frame have no picture (a warning each, released); from the
 * I frame on, fields as FFmpeg's. The pass-through keeps every buffer. */
GST_START_TEST (test_starts_on_p_frame)
{
  for (const char * el : { "h264mvdec", "h264mvextract" }) {
    Stream s;
    NEED_X264 (&s, 160, 96, 30, 0, 10);
    /* Keep the parameter sets: x264 puts them before the IDR only, so
     * the P frames come first and the decoder has no SPS until frame 10. */
    std::vector<Packet> packets (s.packets.begin () + 4, s.packets.end ());
    GstBus * bus;
    GstHarness * h = make_harness (el, &bus);
    std::vector<GstBuffer *> out = run (h, packets);
    if (strcmp (el, "h264mvextract") == 0) {
      fail_unless_equals_int (out.size (), 26);
      fail_unless (gst_buffer_get_motion_vectors_meta (out[0]) == NULL);
      fail_unless (gst_buffer_get_motion_vectors_meta (out[25]) != NULL);
    } else {
      fail_unless_equals_int (out.size (), 20);
      fail_unless_equals_uint64 (GST_BUFFER_PTS (out[0]),
          gst_util_uint64_scale (10, GST_SECOND, FPS));
      const auto ref = reference (packets);
      check_fields (out, ref, 16);
    }
    fail_unless (count_messages (bus, GST_MESSAGE_WARNING) >= 1);
    free_buffers (out);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* A new SPS mid-stream (160x96, then 128x64): the output caps and the
 * grid follow. */
GST_START_TEST (test_resolution_change)
{
  for (const char * el : { "h264mvdec", "h264mvextract" }) {
    Stream a, b;
    NEED_X264 (&a, 160, 96, 12, 0, 12);
    NEED_X264 (&b, 128, 64, 12, 0, 12, 12);
    std::vector<Packet> packets = a.packets;
    packets.insert (packets.end (), b.packets.begin (), b.packets.end ());
    GstBus * bus;
    GstHarness * h = make_harness (el, &bus);
    std::vector<GstBuffer *> out = run (h, packets);
    fail_unless_equals_int (out.size (), 24);
    GstMotionVectorsMeta * m0 = gst_buffer_get_motion_vectors_meta (out[5]);
    GstMotionVectorsMeta * m1 = gst_buffer_get_motion_vectors_meta (out[20]);
    fail_unless_equals_int (m0->frame_width, 160);
    fail_unless_equals_int (m0->columns, 10);
    fail_unless_equals_int (m1->frame_width, 128);
    fail_unless_equals_int (m1->rows, 4);
    if (strcmp (el, "h264mvdec") == 0) {
      GstCaps * caps = gst_pad_get_current_caps (h->sinkpad);
      GstVideoInfo info;
      fail_unless (gst_video_info_from_caps (&info, caps));
      fail_unless_equals_int (GST_VIDEO_INFO_WIDTH (&info), 128);
      gst_caps_unref (caps);
    }
    const auto ref = reference (packets);
    check_fields (out, ref, 16);
    free_buffers (out);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* A flush (a seek) mid-stream: what was held is dropped; decoding
 * resumes at the next I frame with fields equal to FFmpeg's on that
 * part alone. */
GST_START_TEST (test_flush)
{
  for (const char * el : { "h264mvdec", "h264mvextract" }) {
    Stream s;
    NEED_X264 (&s, 160, 96, 24, 2, 12);
    GstBus * bus;
    GstHarness * h = make_harness (el, &bus);
    for (int i = 0; i < 7; i++)
      gst_harness_push (h, packet_buffer (s.packets[i]));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_start ()));
    fail_unless (gst_harness_push_event (h, gst_event_new_flush_stop (TRUE)));
    GstSegment seg;
    gst_segment_init (&seg, GST_FORMAT_TIME);
    fail_unless (gst_harness_push_event (h, gst_event_new_segment (&seg)));
    GstBuffer * b;
    while ((b = gst_harness_try_pull (h)))
      gst_buffer_unref (b);
    size_t idr = 1;
    while (!s.packets[idr].key)
      idr++;
    std::vector<Packet> rest (s.packets.begin () + idr, s.packets.end ());
    std::vector<GstBuffer *> out = run (h, rest);
    fail_unless_equals_int (out.size (), rest.size ());
    const auto ref = reference (rest);
    check_fields (out, ref, 16);
    free_buffers (out);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* B frames hold pictures in the decoder: the latency says so. */
GST_START_TEST (test_latency)
{
  Stream s;
  NEED_X264 (&s, 160, 96, 12, 2, 12);
  GstBus * bus;
  GstHarness * h = make_harness ("h264mvextract", &bus);
  for (int i = 0; i < 8; i++)
    gst_harness_push (h, packet_buffer (s.packets[i]));
  GstQuery * q = gst_query_new_latency ();
  fail_unless (gst_pad_peer_query (h->sinkpad, q));
  gboolean live;
  GstClockTime min, max;
  gst_query_parse_latency (q, &live, &min, &max);
  fail_unless (min >= GST_SECOND / FPS, "latency %" GST_TIME_FORMAT,
      GST_TIME_ARGS (min));
  gst_query_unref (q);
  gst_harness_teardown (h);
  gst_object_unref (bus);
}

GST_END_TEST;

/* The shared decision: the moving square starts motion (motion-start on
 * the bus, ROI metas on the buffers) and EOS stops it. */
GST_START_TEST (test_motion_events)
{
  for (const char * el : { "h264mvdec", "h264mvextract" }) {
    Stream s;
    NEED_X264 (&s, 160, 96, 40, 0, 40);
    GstBus * bus;
    gchar * desc = g_strdup_printf ("%s regions=true events=true", el);
    GstHarness * h = make_harness (desc, &bus);
    g_free (desc);
    std::vector<GstBuffer *> out = run (h, s.packets);
    guint with_roi = 0;
    for (GstBuffer * b : out)
      if (gst_buffer_get_video_region_of_interest_meta (b))
        with_roi++;
    GstMessage * m;
    guint starts = 0, stops = 0;
    while ((m = gst_bus_pop_filtered (bus, GST_MESSAGE_ELEMENT))) {
      const GstStructure * st = gst_message_get_structure (m);
      starts += gst_structure_has_name (st, "motion-start");
      stops += gst_structure_has_name (st, "motion-stop");
      gst_message_unref (m);
    }
    fail_unless_equals_int (starts, 1);
    fail_unless_equals_int (stops, 1);
    fail_unless (with_roi >= 10, "%s: %u buffers with regions", el, with_roi);
    free_buffers (out);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
}

GST_END_TEST;

/* Downstream elements take the codec field like any other: mvmetastream's
 * JSON lines carry the grid, the decision and tracked regions, and
 * mvoverlay draws on h264mvdec's frames (they differ from the undrawn
 * ones where the square moves). */
GST_START_TEST (test_downstream)
{
  Stream s;
  NEED_X264 (&s, 160, 96, 40, 0, 40);
  GstBus * bus;
  GstHarness * h =
      make_harness ("h264mvdec regions=true events=true ! mvmetastream", &bus);
  std::vector<GstBuffer *> out = run (h, s.packets);
  std::string text;
  for (GstBuffer * b : out) {
    GstMapInfo map;
    fail_unless (gst_buffer_map (b, &map, GST_MAP_READ));
    text.append ((const char *) map.data, map.size);
    gst_buffer_unmap (b, &map);
  }
  auto count = [&text] (const char * what) {
    guint n = 0;
    for (size_t at = text.find (what); at != std::string::npos;
         at = text.find (what, at + 1))
      n++;
    return n;
  };
  fail_unless (count ("\"type\":\"frame\"") >= 30, "%s", text.c_str ());
  fail_unless (count ("\"columns\":10,\"rows\":6") >= 30);
  fail_unless (count ("\"decision\":true") >= 10);
  fail_unless (count ("\"track\":{\"id\":") >= 10);
  fail_unless_equals_int (count ("\"event\":\"motion-start\""), 1);
  free_buffers (out);
  gst_harness_teardown (h);
  gst_object_unref (bus);

  /* The same frames with and without mvoverlay. */
  std::vector<GstBuffer *> plain, drawn;
  for (const char * desc : { "h264mvdec", "h264mvdec ! mvoverlay" }) {
    h = make_harness (desc, &bus);
    (desc[9] ? drawn : plain) = run (h, s.packets);
    gst_harness_teardown (h);
    gst_object_unref (bus);
  }
  fail_unless_equals_int (plain.size (), drawn.size ());
  guint differ = 0;
  for (size_t k = 0; k < plain.size (); k++) {
    GstMapInfo a, b;
    fail_unless (gst_buffer_map (plain[k], &a, GST_MAP_READ));
    fail_unless (gst_buffer_map (drawn[k], &b, GST_MAP_READ));
    differ += a.size != b.size || memcmp (a.data, b.data, a.size) != 0;
    gst_buffer_unmap (plain[k], &a);
    gst_buffer_unmap (drawn[k], &b);
  }
  fail_unless (differ >= 10, "%u of %zu frames drawn on", differ,
      plain.size ());
  free_buffers (plain);
  free_buffers (drawn);
}

GST_END_TEST;

/* stream-format=avc through h264parse (skipped without it): the same
 * fields, buffer by buffer, as from the byte-stream AUs (h264parse may
 * retime the buffers, so they are compared in order, not by PTS). */
GST_START_TEST (test_avc_through_h264parse)
{
  GstElementFactory * parse = gst_element_factory_find ("h264parse");
  if (!parse) {
    GST_INFO ("no h264parse (gst-plugins-bad): skipped");
    return;
  }
  gst_object_unref (parse);
  Stream s;
  NEED_X264 (&s, 160, 96, 24, 2, 12);
  for (const char * el : { "h264mvdec", "h264mvextract" }) {
    GstBus *bus, *bus2;
    gchar * desc =
        g_strdup_printf ("h264parse ! video/x-h264,"
                         "stream-format=avc,alignment=au ! %s block-size=8",
            el);
    GstHarness * h = make_harness (desc, &bus);
    g_free (desc);
    std::vector<GstBuffer *> out = run (h, s.packets);
    desc = g_strdup_printf ("%s block-size=8", el);
    GstHarness * h2 = make_harness (desc, &bus2);
    g_free (desc);
    std::vector<GstBuffer *> want = run (h2, s.packets);
    fail_unless_equals_int (out.size (), 24);
    fail_unless_equals_int (want.size (), 24);
    guint estimated = 0;
    for (size_t k = 0; k < out.size (); k++) {
      GstMotionVectorsMeta * a = gst_buffer_get_motion_vectors_meta (out[k]);
      GstMotionVectorsMeta * b = gst_buffer_get_motion_vectors_meta (want[k]);
      fail_unless (a && b);
      fail_unless_equals_int (a->n_vectors, b->n_vectors);
      for (guint i = 0; i < a->n_vectors; i++) {
        fail_unless (a->vectors[i].dx == b->vectors[i].dx
            && a->vectors[i].dy == b->vectors[i].dy
            && a->vectors[i].flags == b->vectors[i].flags);
        estimated +=
            !(a->vectors[i].flags & GST_MOTION_VECTOR_FLAG_NO_ESTIMATE);
      }
    }
    fail_unless (estimated > 0);
    fail_unless_equals_int (count_messages (bus, GST_MESSAGE_WARNING), 0);
    free_buffers (out);
    free_buffers (want);
    gst_harness_teardown (h);
    gst_harness_teardown (h2);
    gst_object_unref (bus);
    gst_object_unref (bus2);
  }
}

GST_END_TEST;

static Suite *
h264mv_suite (void)
{
  Suite * s = suite_create ("h264mv");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_add_test (tc, test_dec_p_equals_ffmpeg);
  tcase_add_test (tc, test_dec_b_equals_ffmpeg);
  tcase_add_test (tc, test_extract_equals_ffmpeg);
  tcase_add_test (tc, test_sign_convention);
  tcase_add_test (tc, test_h265_refused);
  tcase_add_test (tc, test_corrupt);
  tcase_add_test (tc, test_truncated);
  tcase_add_test (tc, test_starts_on_p_frame);
  tcase_add_test (tc, test_resolution_change);
  tcase_add_test (tc, test_flush);
  tcase_add_test (tc, test_latency);
  tcase_add_test (tc, test_motion_events);
  tcase_add_test (tc, test_downstream);
  tcase_add_test (tc, test_avc_through_h264parse);
  return s;
}

GST_CHECK_MAIN (h264mv);
