/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
/**
 * SECTION:element-h264mvextract
 * @title: h264mvextract
 *
 * The pass-through form of `h264mvdec`: H.264 in, the same H.264 buffers
 * out, unchanged and in their order, each with the #GstMotionVectorsMeta
 * of its picture (and, when asked, its moving regions and the motion
 * events), for pipelines that want the motion only (`mvmetastream !
 * mvmqttsink`) or that store or forward the stream as it came. libavcodec
 * still decodes every picture (the vectors come out of its decode), but
 * without the loop filter by default (`skip-loop-filter`), and nothing is
 * converted, copied or pushed as raw video. docs/codec-vectors.md gives
 * the cost.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 rtspsrc location=rtsp://camera/stream ! rtph264depay ! \
 *     h264parse ! h264mvextract events=true regions=true ! \
 *     mvmetastream camera-id=door ! mvmqttsink host=localhost
 * ]|
 */
/* How it works: a GstBaseTransform in place whose generate_output holds
 * each buffer (made writable for its meta) until libavcodec returns its
 * picture, which carries the buffer's number as pts; buffers leave in
 * their input (decode) order as soon as the oldest has its field, so a
 * stream with B frames is held by its reordering delay. A buffer whose
 * picture does not come (broken data, missing references) leaves without
 * a meta, with a warning, once the decoder is well past it. EOS and a
 * caps change drain the decoder; a flush drops what is held. Serialized
 * events other than EOS and caps are not held back: they may overtake the
 * few buffers held (at most the decoder's delay). */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsth264mvextract.h"

#include <deque>

#include "common/gstmatchmeta.h"
#include "common/mvevents.h"
#include "motioncodec/gsth264mvcore.h"

GST_DEBUG_CATEGORY_STATIC (gst_h264_mv_extract_debug);
#define GST_CAT_DEFAULT gst_h264_mv_extract_debug

#define DEFAULT_PROP_SKIP_LOOP_FILTER TRUE

/* Buffers held beyond the decoder's delay before the oldest one is given
 * up (H.264 reorders by at most 16 frames). */
#define STALE_MARGIN 16

enum
{
  PROP_0,
  PROP_BLOCK_SIZE,
  PROP_N_THREADS,
  PROP_SKIP_LOOP_FILTER,
  PROP_MV_EVENTS_FIRST,
};

namespace {

/* An input buffer waiting for its picture. */
struct Held
{
  GstBuffer * buf; /* owned, writable */
  gint64 id;
  bool ready;
};

}  // namespace

struct _GstH264MvExtract
{
  GstBaseTransform parent;

  /* Protected by the object lock. */
  guint block_size;
  guint n_threads;
  gboolean skip_loop_filter;
  GstClockTime latency;
  GstMvEvents * mvevents;

  /* Streaming thread. */
  GstH264MvCore * core;
  std::deque<Held> * held;
  gint64 next_id;
  GstCaps * open_caps; /* the caps the decoder was opened for */
  gint fps_n, fps_d;
  guint delay;
  GstBufferPool * vector_pool;
  guint pool_vectors;
  GstClockTime anchor_pts;
  guint64 next_pixels;
  gboolean warned_stale;
};

#define gst_h264_mv_extract_parent_class parent_class
G_DEFINE_TYPE (GstH264MvExtract, gst_h264_mv_extract, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (h264mvextract, "h264mvextract", GST_RANK_NONE,
    GST_TYPE_H264_MV_EXTRACT);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_H264_MV_SINK_CAPS));
static GstStaticPadTemplate src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_H264_MV_SINK_CAPS));

static void gst_h264_mv_extract_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_h264_mv_extract_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_h264_mv_extract_finalize (GObject * object);
static gboolean gst_h264_mv_extract_start (GstBaseTransform * trans);
static gboolean gst_h264_mv_extract_stop (GstBaseTransform * trans);
static gboolean gst_h264_mv_extract_set_caps (GstBaseTransform * trans,
    GstCaps * incaps, GstCaps * outcaps);
static gboolean gst_h264_mv_extract_sink_event (GstBaseTransform * trans,
    GstEvent * event);
static gboolean gst_h264_mv_extract_query (GstBaseTransform * trans,
    GstPadDirection direction, GstQuery * query);
static GstFlowReturn
gst_h264_mv_extract_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf);

static void
gst_h264_mv_extract_class_init (GstH264MvExtractClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstBaseTransformClass * trans_class = GST_BASE_TRANSFORM_CLASS (klass);
  const GParamFlags ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gobject_class->set_property = gst_h264_mv_extract_set_property;
  gobject_class->get_property = gst_h264_mv_extract_get_property;
  gobject_class->finalize = gst_h264_mv_extract_finalize;

  gst_h264_mv_install_properties (gobject_class, PROP_BLOCK_SIZE,
      PROP_N_THREADS);
  g_object_class_install_property (gobject_class, PROP_SKIP_LOOP_FILTER,
      g_param_spec_boolean ("skip-loop-filter", "Skip loop filter",
          "Decode without the deblocking filter: the same vectors, less "
          "work; the pixels the decision's pixel stage reads are then not "
          "deblocked",
          DEFAULT_PROP_SKIP_LOOP_FILTER, ready));
  gst_mv_events_install_properties (gobject_class, PROP_MV_EVENTS_FIRST);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "H.264 codec motion vectors (pass-through)", "Filter/Analyzer/Video",
      "Passes H.264 through unchanged with the encoder's motion vectors "
      "(libavcodec) as a GstMotionVectorsMeta on each buffer, with moving "
      "regions and motion events",
      "The gst-motion authors");

  trans_class->start = GST_DEBUG_FUNCPTR (gst_h264_mv_extract_start);
  trans_class->stop = GST_DEBUG_FUNCPTR (gst_h264_mv_extract_stop);
  trans_class->set_caps = GST_DEBUG_FUNCPTR (gst_h264_mv_extract_set_caps);
  trans_class->sink_event = GST_DEBUG_FUNCPTR (gst_h264_mv_extract_sink_event);
  trans_class->query = GST_DEBUG_FUNCPTR (gst_h264_mv_extract_query);
  trans_class->generate_output =
      GST_DEBUG_FUNCPTR (gst_h264_mv_extract_generate_output);
  trans_class->passthrough_on_same_caps = FALSE;

  GST_DEBUG_CATEGORY_INIT (gst_h264_mv_extract_debug, "h264mvextract", 0,
      "H.264 codec motion vectors, pass-through");
}

static void
gst_h264_mv_extract_init (GstH264MvExtract * self)
{
  self->block_size = GST_H264_MV_DEFAULT_BLOCK;
  self->n_threads = GST_H264_MV_DEFAULT_THREADS;
  self->skip_loop_filter = DEFAULT_PROP_SKIP_LOOP_FILTER;
  self->mvevents = gst_mv_events_new ();
  self->held = new std::deque<Held> ();
  self->anchor_pts = GST_CLOCK_TIME_NONE;
  gst_base_transform_set_in_place (GST_BASE_TRANSFORM (self), TRUE);
  gst_base_transform_set_passthrough (GST_BASE_TRANSFORM (self), FALSE);
}

static void
clear_held (GstH264MvExtract * self)
{
  for (Held & h : *self->held)
    gst_buffer_unref (h.buf);
  self->held->clear ();
}

static void
gst_h264_mv_extract_finalize (GObject * object)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (object);

  clear_held (self);
  delete self->held;
  delete self->core;
  gst_mv_events_free (self->mvevents);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_h264_mv_extract_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
      self->block_size = g_value_get_uint (value);
      break;
    case PROP_N_THREADS:
      self->n_threads = g_value_get_uint (value);
      break;
    case PROP_SKIP_LOOP_FILTER:
      self->skip_loop_filter = g_value_get_boolean (value);
      break;
    default:
      if (!gst_mv_events_set_property (self->mvevents, object,
              PROP_MV_EVENTS_FIRST, prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static void
gst_h264_mv_extract_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
      g_value_set_uint (value, self->block_size);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, self->n_threads);
      break;
    case PROP_SKIP_LOOP_FILTER:
      g_value_set_boolean (value, self->skip_loop_filter);
      break;
    default:
      if (!gst_mv_events_get_property (self->mvevents, PROP_MV_EVENTS_FIRST,
              prop_id, value))
        G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
      break;
  }
  GST_OBJECT_UNLOCK (self);
}

static gboolean
gst_h264_mv_extract_start (GstBaseTransform * trans)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (trans);

  delete self->core;
  self->core = new GstH264MvCore ();
  clear_held (self);
  self->next_id = 0;
  self->delay = 0;
  self->anchor_pts = GST_CLOCK_TIME_NONE;
  self->next_pixels = 0;
  self->warned_stale = FALSE;
  GST_OBJECT_LOCK (self);
  self->latency = 0;
  GST_OBJECT_UNLOCK (self);
  return TRUE;
}

static gboolean
gst_h264_mv_extract_stop (GstBaseTransform * trans)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (trans);

  clear_held (self);
  delete self->core;
  self->core = NULL;
  gst_clear_caps (&self->open_caps);
  if (self->vector_pool) {
    gst_buffer_pool_set_active (self->vector_pool, FALSE);
    gst_clear_object (&self->vector_pool);
  }
  self->pool_vectors = 0;
  gst_mv_events_reset (self->mvevents, NULL, NULL);
  return TRUE;
}

/* The held buffer of picture `id`, or NULL. */
static Held *
find_held (GstH264MvExtract * self, gint64 id)
{
  for (Held & h : *self->held)
    if (h.id == id)
      return &h;
  return NULL;
}

/* The latency: the buffers held for the decoder's delay. */
static void
update_latency (GstH264MvExtract * self)
{
  const guint delay = self->core->delay ();

  if (delay == self->delay)
    return;
  self->delay = delay;
  if (self->fps_n > 0 && self->fps_d > 0) {
    GST_OBJECT_LOCK (self);
    self->latency =
        gst_util_uint64_scale (delay * GST_SECOND, self->fps_d, self->fps_n);
    GST_OBJECT_UNLOCK (self);
    GST_INFO_OBJECT (self, "latency %u frames", delay);
    gst_element_post_message (GST_ELEMENT (self),
        gst_message_new_latency (GST_OBJECT (self)));
  }
}

/* Attaches each picture's field to its held buffer. */
static GstFlowReturn
receive_pictures (GstH264MvExtract * self)
{
  GstBaseTransform * trans = GST_BASE_TRANSFORM (self);
  AVFrame * f;
  int err;
  guint block, threads;

  GST_OBJECT_LOCK (self);
  block = self->block_size;
  threads = self->n_threads;
  GST_OBJECT_UNLOCK (self);

  while ((f = self->core->receive (&err))) {
    Held * h = find_held (self, f->pts);
    if (!h || h->ready)
      continue;
    update_latency (self);
    h->ready = true;
    if (f->decode_error_flags || (f->flags & AV_FRAME_FLAG_CORRUPT))
      GST_ELEMENT_WARNING (self, STREAM, DECODE, ("Corrupt H.264 frame"),
          ("buffer %" G_GINT64_FORMAT " (pts %" GST_TIME_FORMAT "): decoded "
           "with errors (concealed)",
              h->id, GST_TIME_ARGS (GST_BUFFER_PTS (h->buf))));
    GstMotionVectorsMeta * meta = gst_match_attach_meta (h->buf,
        &self->vector_pool, &self->pool_vectors, (guint) f->width,
        (guint) f->height, block, block, GST_MOTION_VECTORS_DIRECTION_BACKWARD);
    if (!meta) {
      GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
          ("Could not attach the motion-vector meta"), (NULL));
      return GST_FLOW_ERROR;
    }
    meta->precision = 0.25f;
    meta->method = g_intern_static_string ("h264");
    if (self->core->fill_meta (meta, f) > 0)
      meta->reference_timestamp = self->anchor_pts;
    if (f->pict_type != AV_PICTURE_TYPE_B)
      self->anchor_pts = GST_BUFFER_PTS (h->buf);
    const match::ImageView luma = { f->data[0], f->width, f->height,
      f->linesize[0] };
    gst_mv_events_process_host (self->mvevents, GST_ELEMENT (self), h->buf,
        meta, &trans->segment, &luma, &self->next_pixels, threads);
  }
  if (err != AVERROR (EAGAIN) && err != AVERROR_EOF)
    GST_ELEMENT_WARNING (self, STREAM, DECODE, ("Could not decode H.264"),
        ("%s", GstH264MvCore::error_string (err).c_str ()));
  return GST_FLOW_OK;
}

/* Every buffer held leaves, with its field where its picture came. */
static GstFlowReturn
drain (GstH264MvExtract * self)
{
  GstFlowReturn ret = GST_FLOW_OK;

  if (self->core && self->core->is_open ()) {
    self->core->send_eof ();
    ret = receive_pictures (self);
    self->core->flush ();
  }
  while (!self->held->empty ()) {
    Held h = self->held->front ();
    self->held->pop_front ();
    if (!h.ready)
      GST_ELEMENT_WARNING (self, STREAM, DECODE,
          ("No picture for an H.264 frame"),
          ("buffer %" G_GINT64_FORMAT " (pts %" GST_TIME_FORMAT ") leaves "
           "without motion vectors",
              h.id, GST_TIME_ARGS (GST_BUFFER_PTS (h.buf))));
    if (ret == GST_FLOW_OK)
      ret = gst_pad_push (GST_BASE_TRANSFORM_SRC_PAD (self), h.buf);
    else
      gst_buffer_unref (h.buf);
  }
  return ret;
}

static gboolean
gst_h264_mv_extract_set_caps (GstBaseTransform * trans, GstCaps * incaps,
    GstCaps *)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (trans);
  GstStructure * s = gst_caps_get_structure (incaps, 0);
  const gchar * format = gst_structure_get_string (s, "stream-format");
  GstBuffer * codec_data = NULL;
  std::string error;
  guint threads;
  gboolean skip;

  if (self->open_caps && gst_caps_is_equal (self->open_caps, incaps))
    return TRUE;
  /* Buffers of the previous caps leave first, with them. */
  drain (self);

  if (g_strcmp0 (format, "avc") == 0) {
    const GValue * v = gst_structure_get_value (s, "codec_data");
    if (!v || !GST_VALUE_HOLDS_BUFFER (v)) {
      GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("No codec_data in the caps"),
          ("stream-format=avc needs codec_data (the avcC record)"));
      return FALSE;
    }
    codec_data = gst_value_get_buffer (v);
  }
  if (!gst_structure_get_fraction (s, "framerate", &self->fps_n, &self->fps_d))
    self->fps_n = self->fps_d = 0;

  GST_OBJECT_LOCK (self);
  threads = self->n_threads;
  skip = self->skip_loop_filter;
  GST_OBJECT_UNLOCK (self);
  if (!self->core->open (codec_data, threads, skip, &error)) {
    GST_ELEMENT_ERROR (self, LIBRARY, INIT,
        ("Could not open libavcodec's H.264 decoder"), ("%s", error.c_str ()));
    return FALSE;
  }
  GST_INFO_OBJECT (self, "%s, %s", format ? format : "?",
      self->core->describe ().c_str ());
  gst_caps_replace (&self->open_caps, incaps);
  self->anchor_pts = GST_CLOCK_TIME_NONE;
  self->delay = 0;
  return TRUE;
}

static gboolean
gst_h264_mv_extract_sink_event (GstBaseTransform * trans, GstEvent * event)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (trans);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      drain (self);
      gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
      break;
    case GST_EVENT_STREAM_START:
      gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
      break;
    case GST_EVENT_FLUSH_STOP: {
      GST_DEBUG_OBJECT (self, "flush: dropping the held buffers");
      clear_held (self);
      if (self->core)
        self->core->flush ();
      self->anchor_pts = GST_CLOCK_TIME_NONE;
      gst_event_ref (event);
      const gboolean ret =
          GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
      gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
      gst_event_unref (event);
      return ret;
    }
    default:
      break;
  }
  return GST_BASE_TRANSFORM_CLASS (parent_class)->sink_event (trans, event);
}

static gboolean
gst_h264_mv_extract_query (GstBaseTransform * trans, GstPadDirection direction,
    GstQuery * query)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (trans);

  if (!GST_BASE_TRANSFORM_CLASS (parent_class)->query (trans, direction, query))
    return FALSE;
  if (direction == GST_PAD_SRC && GST_QUERY_TYPE (query) == GST_QUERY_LATENCY) {
    gboolean live;
    GstClockTime min, max;
    gst_query_parse_latency (query, &live, &min, &max);
    GST_OBJECT_LOCK (self);
    const GstClockTime ours = self->latency;
    GST_OBJECT_UNLOCK (self);
    min += ours;
    if (GST_CLOCK_TIME_IS_VALID (max))
      max += ours;
    gst_query_set_latency (query, live, min, max);
  }
  return TRUE;
}

static GstFlowReturn
gst_h264_mv_extract_generate_output (GstBaseTransform * trans,
    GstBuffer ** outbuf)
{
  GstH264MvExtract * self = GST_H264_MV_EXTRACT (trans);
  GstBuffer * inbuf = trans->queued_buf;
  GstFlowReturn ret;

  trans->queued_buf = NULL;
  *outbuf = NULL;
  if (inbuf) {
    GstMapInfo map;
    const gint64 id = self->next_id++;
    int err;

    if (!self->core || !self->core->is_open ()) {
      gst_buffer_unref (inbuf);
      GST_ELEMENT_ERROR (self, CORE, NEGOTIATION, (NULL), ("no caps"));
      return GST_FLOW_NOT_NEGOTIATED;
    }
    /* Ours alone (a shallow copy if upstream keeps it): the meta goes on
     * it when its picture comes. */
    inbuf = gst_buffer_make_writable (inbuf);
    if (!gst_buffer_map (inbuf, &map, GST_MAP_READ)) {
      gst_buffer_unref (inbuf);
      GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the input"),
          (NULL));
      return GST_FLOW_ERROR;
    }
    err = self->core->send (map.data, map.size, id);
    if (err == AVERROR (EAGAIN)) {
      ret = receive_pictures (self);
      if (ret != GST_FLOW_OK) {
        gst_buffer_unmap (inbuf, &map);
        gst_buffer_unref (inbuf);
        return ret;
      }
      err = self->core->send (map.data, map.size, id);
    }
    gst_buffer_unmap (inbuf, &map);
    self->held->push_back (Held{ inbuf, id, false });
    if (err < 0) {
      GST_ELEMENT_WARNING (self, STREAM, DECODE, ("Corrupt H.264 frame"),
          ("buffer %" G_GINT64_FORMAT " (pts %" GST_TIME_FORMAT "): %s; it "
           "leaves without motion vectors",
              id, GST_TIME_ARGS (GST_BUFFER_PTS (inbuf)),
              GstH264MvCore::error_string (err).c_str ()));
      self->held->back ().ready = true;
    }
    ret = receive_pictures (self);
    if (ret != GST_FLOW_OK)
      return ret;
    /* The oldest one's picture is not coming (dropped by the decoder). */
    if (self->held->size () > self->core->delay () + STALE_MARGIN
        && !self->held->front ().ready) {
      Held & h = self->held->front ();
      GST_ELEMENT_WARNING (self, STREAM, DECODE,
          ("No picture for an H.264 frame"),
          ("buffer %" G_GINT64_FORMAT " (pts %" GST_TIME_FORMAT "): the "
           "decoder returned none (missing references, e.g. a stream that "
           "starts on a P frame, or broken data); it leaves without motion "
           "vectors",
              h.id, GST_TIME_ARGS (GST_BUFFER_PTS (h.buf))));
      h.ready = true;
    }
  }
  /* One buffer per call: the base class calls again after pushing it. */
  if (!self->held->empty () && self->held->front ().ready) {
    *outbuf = self->held->front ().buf;
    self->held->pop_front ();
  }
  return GST_FLOW_OK;
}
