/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
/**
 * SECTION:element-h264mvdec
 * @title: h264mvdec
 *
 * Decodes H.264 with libavcodec and attaches the motion vectors the
 * encoder chose, as FFmpeg exports them (AV_FRAME_DATA_MOTION_VECTORS), to
 * each decoded frame as a #GstMotionVectorsMeta on a block grid
 * (`block-size`), with the regions and motion events of `blockmatchme`
 * (the same nine properties and decision, docs/motion-events.md). Motion
 * at the cost of the decode alone; docs/codec-vectors.md says what the
 * field is and how it compares with `blockmatchme`'s.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 -m filesrc location=camera.mp4 ! qtdemux ! h264parse ! \
 *     h264mvdec regions=true events=true ! mvoverlay ! videoconvert ! \
 *     autovideosink
 * ]|
 */
/* How it works. A GstVideoDecoder: the base class keeps the frames in
 * decode order, handles timestamps, latency, flushes and seeks; each access
 * unit goes to libavcodec with its system_frame_number as pts, and each
 * picture that comes out (in display order) finds its frame by that number.
 * The output buffer wraps libavcodec's planes (one GstMemory per plane,
 * each holding a reference on the plane's AVBuffer, read-only: the decoder
 * may still predict from it; a writer gets a copy) when downstream takes a
 * GstVideoMeta, else the planes are copied into a buffer of the
 * negotiated pool. The field's storage comes from a pool (no allocation
 * per frame). A frame libavcodec never returns (missing references, broken
 * data) is released, with a warning, once the decoder is well past it. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsth264mvdec.h"

#include <cstring>

#include "common/gstmatchmeta.h"
#include "common/mvevents.h"
#include "motioncodec/gsth264mvcore.h"

extern "C" {
#include <libavutil/pixdesc.h>
}

GST_DEBUG_CATEGORY_STATIC (gst_h264_mv_dec_debug);
#define GST_CAT_DEFAULT gst_h264_mv_dec_debug

/* Frames the decoder may be past a pending one before it is given up:
 * H.264 reorders by at most 16 frames, plus the decoder's own delay. */
#define STALE_MARGIN 16

/* A broken frame: a warning message on the bus (GstVideoDecoder's own
 * GST_VIDEO_DECODER_ERROR only logs while max-errors is not exceeded,
 * -1 by default), then counted against max-errors, which may turn it into
 * an error (`ret`). */
#define FRAME_WARNING(self, text, debug, ret)                                  \
  G_STMT_START                                                                 \
  {                                                                            \
    GST_ELEMENT_WARNING (self, STREAM, DECODE, text, debug);                   \
    GST_VIDEO_DECODER_ERROR (self, 1, STREAM, DECODE, text, debug, ret);       \
  }                                                                            \
  G_STMT_END

enum
{
  PROP_0,
  PROP_BLOCK_SIZE,
  PROP_N_THREADS,
  PROP_MV_EVENTS_FIRST,
};

struct _GstH264MvDec
{
  GstVideoDecoder parent;

  /* Protected by the object lock. */
  guint block_size;
  guint n_threads;
  GstMvEvents * mvevents;

  /* Streaming thread. */
  GstH264MvCore * core;
  GstVideoCodecState * input_state;
  GstVideoInfo out_info;
  gboolean have_output;
  gboolean video_meta; /* downstream takes GstVideoMeta: no copy */
  guint delay;         /* frames, as last set as latency */
  GstBufferPool * vector_pool;
  guint pool_vectors;
  GstClockTime anchor_pts; /* the last I or P picture out */
  guint64 next_pixels;
};

#define gst_h264_mv_dec_parent_class parent_class
G_DEFINE_TYPE (GstH264MvDec, gst_h264_mv_dec, GST_TYPE_VIDEO_DECODER);
GST_ELEMENT_REGISTER_DEFINE (h264mvdec, "h264mvdec", GST_RANK_NONE,
    GST_TYPE_H264_MV_DEC);

static GstStaticPadTemplate sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (GST_H264_MV_SINK_CAPS));
static GstStaticPadTemplate src_template =
    GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (GST_VIDEO_CAPS_MAKE ("{ I420, Y42B, Y444, GRAY8 }")));

static void gst_h264_mv_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec);
static void gst_h264_mv_dec_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec);
static void gst_h264_mv_dec_finalize (GObject * object);
static gboolean gst_h264_mv_dec_start (GstVideoDecoder * dec);
static gboolean gst_h264_mv_dec_stop (GstVideoDecoder * dec);
static gboolean gst_h264_mv_dec_set_format (GstVideoDecoder * dec,
    GstVideoCodecState * state);
static GstFlowReturn gst_h264_mv_dec_handle_frame (GstVideoDecoder * dec,
    GstVideoCodecFrame * frame);
static GstFlowReturn gst_h264_mv_dec_drain (GstVideoDecoder * dec);
static gboolean gst_h264_mv_dec_flush (GstVideoDecoder * dec);
static gboolean gst_h264_mv_dec_decide_allocation (GstVideoDecoder * dec,
    GstQuery * query);
static gboolean gst_h264_mv_dec_sink_event (GstVideoDecoder * dec,
    GstEvent * event);

static void
gst_h264_mv_dec_class_init (GstH264MvDecClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstVideoDecoderClass * dec_class = GST_VIDEO_DECODER_CLASS (klass);

  gobject_class->set_property = gst_h264_mv_dec_set_property;
  gobject_class->get_property = gst_h264_mv_dec_get_property;
  gobject_class->finalize = gst_h264_mv_dec_finalize;

  gst_h264_mv_install_properties (gobject_class, PROP_BLOCK_SIZE,
      PROP_N_THREADS);
  gst_mv_events_install_properties (gobject_class, PROP_MV_EVENTS_FIRST);

  gst_element_class_add_static_pad_template (element_class, &sink_template);
  gst_element_class_add_static_pad_template (element_class, &src_template);
  gst_element_class_set_static_metadata (element_class,
      "H.264 decoder with codec motion vectors", "Codec/Decoder/Video",
      "Decodes H.264 (libavcodec) and attaches the encoder's motion vectors "
      "as a GstMotionVectorsMeta, with moving regions and motion events",
      "The gst-motion authors");

  dec_class->start = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_start);
  dec_class->stop = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_stop);
  dec_class->set_format = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_set_format);
  dec_class->handle_frame = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_handle_frame);
  dec_class->finish = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_drain);
  dec_class->drain = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_drain);
  dec_class->flush = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_flush);
  dec_class->decide_allocation =
      GST_DEBUG_FUNCPTR (gst_h264_mv_dec_decide_allocation);
  dec_class->sink_event = GST_DEBUG_FUNCPTR (gst_h264_mv_dec_sink_event);

  GST_DEBUG_CATEGORY_INIT (gst_h264_mv_dec_debug, "h264mvdec", 0,
      "H.264 decoder with codec motion vectors");
}

static void
gst_h264_mv_dec_init (GstH264MvDec * self)
{
  GstVideoDecoder * dec = GST_VIDEO_DECODER (self);

  self->block_size = GST_H264_MV_DEFAULT_BLOCK;
  self->n_threads = GST_H264_MV_DEFAULT_THREADS;
  self->mvevents = gst_mv_events_new ();
  self->anchor_pts = GST_CLOCK_TIME_NONE;
  /* Access units in (alignment=au), no parsing here. */
  gst_video_decoder_set_packetized (dec, TRUE);
  gst_video_decoder_set_needs_format (dec, TRUE);
  gst_video_decoder_set_use_default_pad_acceptcaps (dec, TRUE);
  GST_PAD_SET_ACCEPT_TEMPLATE (GST_VIDEO_DECODER_SINK_PAD (dec));
}

static void
gst_h264_mv_dec_finalize (GObject * object)
{
  GstH264MvDec * self = GST_H264_MV_DEC (object);

  gst_mv_events_free (self->mvevents);
  G_OBJECT_CLASS (parent_class)->finalize (object);
}

static void
gst_h264_mv_dec_set_property (GObject * object, guint prop_id,
    const GValue * value, GParamSpec * pspec)
{
  GstH264MvDec * self = GST_H264_MV_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
      self->block_size = g_value_get_uint (value);
      break;
    case PROP_N_THREADS:
      self->n_threads = g_value_get_uint (value);
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
gst_h264_mv_dec_get_property (GObject * object, guint prop_id, GValue * value,
    GParamSpec * pspec)
{
  GstH264MvDec * self = GST_H264_MV_DEC (object);

  GST_OBJECT_LOCK (self);
  switch (prop_id) {
    case PROP_BLOCK_SIZE:
      g_value_set_uint (value, self->block_size);
      break;
    case PROP_N_THREADS:
      g_value_set_uint (value, self->n_threads);
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
gst_h264_mv_dec_start (GstVideoDecoder * dec)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);

  delete self->core;
  self->core = new GstH264MvCore ();
  self->have_output = FALSE;
  self->delay = 0;
  self->anchor_pts = GST_CLOCK_TIME_NONE;
  self->next_pixels = 0;
  return TRUE;
}

static gboolean
gst_h264_mv_dec_stop (GstVideoDecoder * dec)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);

  delete self->core;
  self->core = NULL;
  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  if (self->vector_pool) {
    gst_buffer_pool_set_active (self->vector_pool, FALSE);
    gst_clear_object (&self->vector_pool);
  }
  self->pool_vectors = 0;
  self->have_output = FALSE;
  gst_mv_events_reset (self->mvevents, NULL, NULL);
  return TRUE;
}

static gboolean
gst_h264_mv_dec_set_format (GstVideoDecoder * dec, GstVideoCodecState * state)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);
  GstStructure * s = gst_caps_get_structure (state->caps, 0);
  const gchar * format = gst_structure_get_string (s, "stream-format");
  GstBuffer * codec_data = NULL;
  std::string error;
  guint threads;

  /* Pictures of the previous caps leave first. */
  if (self->core->is_open ())
    gst_h264_mv_dec_drain (dec);

  if (g_strcmp0 (format, "avc") == 0) {
    const GValue * v = gst_structure_get_value (s, "codec_data");
    if (!v || !GST_VALUE_HOLDS_BUFFER (v))
      goto no_codec_data;
    codec_data = gst_value_get_buffer (v);
  }

  GST_OBJECT_LOCK (self);
  threads = self->n_threads;
  GST_OBJECT_UNLOCK (self);
  if (!self->core->open (codec_data, threads, false, &error))
    goto open_failed;
  GST_INFO_OBJECT (self, "%s, %s", format ? format : "?",
      self->core->describe ().c_str ());

  g_clear_pointer (&self->input_state, gst_video_codec_state_unref);
  self->input_state = gst_video_codec_state_ref (state);
  self->anchor_pts = GST_CLOCK_TIME_NONE;
  return TRUE;

  /* ERRORS */
no_codec_data : {
  GST_ELEMENT_ERROR (self, STREAM, FORMAT, ("No codec_data in the caps"),
      ("stream-format=avc needs codec_data (the avcC record)"));
  return FALSE;
}
open_failed : {
  GST_ELEMENT_ERROR (self, LIBRARY, INIT,
      ("Could not open libavcodec's H.264 decoder"), ("%s", error.c_str ()));
  return FALSE;
}
}

/* Sets the output caps for `frame`'s format and size (a new SPS may change
 * them mid-stream). */
static gboolean
update_output (GstH264MvDec * self, const AVFrame * f, GstVideoFormat fmt)
{
  GstVideoDecoder * dec = GST_VIDEO_DECODER (self);

  if (self->have_output && GST_VIDEO_INFO_FORMAT (&self->out_info) == fmt
      && GST_VIDEO_INFO_WIDTH (&self->out_info) == f->width
      && GST_VIDEO_INFO_HEIGHT (&self->out_info) == f->height)
    return TRUE;

  if (self->have_output) {
    GST_INFO_OBJECT (self, "picture changed to %dx%d %s", f->width, f->height,
        gst_video_format_to_string (fmt));
    /* A new grid: the decision starts again. */
    gst_mv_events_reset (self->mvevents, GST_ELEMENT (self), "caps");
    self->anchor_pts = GST_CLOCK_TIME_NONE;
  }
  GstVideoCodecState * out = gst_video_decoder_set_output_state (dec, fmt,
      f->width, f->height, self->input_state);
  if (f->color_range == AVCOL_RANGE_JPEG)
    out->info.colorimetry.range = GST_VIDEO_COLOR_RANGE_0_255;
  self->out_info = out->info;
  gst_video_codec_state_unref (out);
  self->have_output = TRUE;
  return gst_video_decoder_negotiate (dec);
}

/* The latency: the frames libavcodec holds (its reordering). */
static void
update_latency (GstH264MvDec * self)
{
  const guint delay = self->core->delay ();
  const GstVideoInfo * info = &self->out_info;

  if (delay == self->delay)
    return;
  self->delay = delay;
  if (GST_VIDEO_INFO_FPS_N (info) > 0 && GST_VIDEO_INFO_FPS_D (info) > 0) {
    const GstClockTime latency = gst_util_uint64_scale (delay * GST_SECOND,
        GST_VIDEO_INFO_FPS_D (info), GST_VIDEO_INFO_FPS_N (info));
    GST_INFO_OBJECT (self, "latency %u frames, %" GST_TIME_FORMAT, delay,
        GST_TIME_ARGS (latency));
    gst_video_decoder_set_latency (GST_VIDEO_DECODER (self), latency, latency);
  }
}

static void
unref_plane (gpointer data)
{
  AVBufferRef * ref = (AVBufferRef *) data;
  av_buffer_unref (&ref);
}

/* A buffer over libavcodec's planes (no copy), or NULL when a plane is not
 * one AVBuffer of its own. */
static GstBuffer *
wrap_frame (const AVFrame * f, const GstVideoInfo * info)
{
  const guint n_planes = GST_VIDEO_INFO_N_PLANES (info);
  gsize offset[GST_VIDEO_MAX_PLANES] = { 0 };
  gint stride[GST_VIDEO_MAX_PLANES] = { 0 };
  GstBuffer * buf = gst_buffer_new ();
  gsize total = 0;

  for (guint p = 0; p < n_planes; p++) {
    AVBufferRef * ref = av_frame_get_plane_buffer ((AVFrame *) f, (int) p);
    const gsize rows = GST_VIDEO_INFO_COMP_HEIGHT (info, p);
    const gsize row_bytes = GST_VIDEO_INFO_COMP_WIDTH (info, p);
    if (!ref || f->linesize[p] <= 0 || rows == 0) {
      gst_buffer_unref (buf);
      return NULL;
    }
    const gsize avail = (gsize) (ref->data + ref->size - f->data[p]);
    const gsize size = MIN ((gsize) f->linesize[p] * rows, avail);
    if (size < (gsize) f->linesize[p] * (rows - 1) + row_bytes) {
      gst_buffer_unref (buf);
      return NULL;
    }
    AVBufferRef * hold = av_buffer_ref (ref);
    if (!hold) {
      gst_buffer_unref (buf);
      return NULL;
    }
    gst_buffer_append_memory (buf,
        gst_memory_new_wrapped (GST_MEMORY_FLAG_READONLY, f->data[p], size, 0,
            size, hold, unref_plane));
    offset[p] = total;
    stride[p] = f->linesize[p];
    total += size;
  }
  gst_buffer_add_video_meta_full (buf, GST_VIDEO_FRAME_FLAG_NONE,
      GST_VIDEO_INFO_FORMAT (info), GST_VIDEO_INFO_WIDTH (info),
      GST_VIDEO_INFO_HEIGHT (info), n_planes, offset, stride);
  return buf;
}

/* Copies the planes into frame->output_buffer (from the negotiated pool). */
static GstFlowReturn
copy_frame (GstH264MvDec * self, const AVFrame * f, GstVideoCodecFrame * frame)
{
  GstVideoDecoder * dec = GST_VIDEO_DECODER (self);
  GstVideoFrame vframe;
  GstFlowReturn ret = gst_video_decoder_allocate_output_frame (dec, frame);

  if (ret != GST_FLOW_OK)
    return ret;
  if (!gst_video_frame_map (&vframe, &self->out_info, frame->output_buffer,
          GST_MAP_WRITE)) {
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the frame"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&vframe); p++) {
    const guint rows = GST_VIDEO_FRAME_COMP_HEIGHT (&vframe, p);
    const guint row_bytes = GST_VIDEO_FRAME_COMP_WIDTH (&vframe, p);
    guint8 * dst = (guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&vframe, p);
    const gint dst_stride = GST_VIDEO_FRAME_PLANE_STRIDE (&vframe, p);
    for (guint y = 0; y < rows; y++)
      memcpy (dst + (gsize) y * dst_stride,
          f->data[p] + (gsize) y * f->linesize[p], row_bytes);
  }
  gst_video_frame_unmap (&vframe);
  return GST_FLOW_OK;
}

/* Gives up the frames libavcodec will not return (dropped for missing
 * references or broken data): those more than the decoder's delay and
 * H.264's reordering behind `newest`, or all (`all`, after a drain). */
static GstFlowReturn
release_stale (GstH264MvDec * self, guint32 newest, gboolean all)
{
  GstVideoDecoder * dec = GST_VIDEO_DECODER (self);
  GList * frames = gst_video_decoder_get_frames (dec);
  const guint32 limit = self->core->delay () + STALE_MARGIN;
  GstFlowReturn ret = GST_FLOW_OK;

  for (GList * l = frames; l; l = l->next) {
    GstVideoCodecFrame * frame = (GstVideoCodecFrame *) l->data;
    if (!all && (newest < limit || frame->system_frame_number > newest - limit))
      continue;
    FRAME_WARNING (self, ("No picture for an H.264 frame"),
        ("frame %u (pts %" GST_TIME_FORMAT "): the decoder returned none "
         "(missing references, e.g. a stream that starts on a P frame, or "
         "broken data)",
            frame->system_frame_number, GST_TIME_ARGS (frame->pts)),
        ret);
    gst_video_decoder_release_frame (dec, gst_video_codec_frame_ref (frame));
    if (ret != GST_FLOW_OK)
      break;
  }
  g_list_free_full (frames, (GDestroyNotify) gst_video_codec_frame_unref);
  return ret;
}

/* One picture out of libavcodec: its frame, buffer, field, decision. */
static GstFlowReturn
output_picture (GstH264MvDec * self, const AVFrame * f)
{
  GstVideoDecoder * dec = GST_VIDEO_DECODER (self);
  const GstVideoFormat fmt = gst_h264_mv_video_format (f->format);
  GstFlowReturn ret = GST_FLOW_OK;
  GstVideoCodecFrame * frame;
  GstMotionVectorsMeta * meta;
  guint block, threads;
  guint32 number;

  if (f->pts == AV_NOPTS_VALUE || f->pts < 0 || f->pts > G_MAXINT)
    return GST_FLOW_OK;
  frame = gst_video_decoder_get_frame (dec, (int) f->pts);
  if (!frame) {
    GST_DEBUG_OBJECT (self,
        "picture of frame %" G_GINT64_FORMAT " no longer pending",
        (gint64) f->pts);
    return GST_FLOW_OK;
  }
  if (fmt == GST_VIDEO_FORMAT_UNKNOWN)
    goto unsupported;
  if (!update_output (self, f, fmt))
    goto not_negotiated;
  update_latency (self);

  if (f->decode_error_flags || (f->flags & AV_FRAME_FLAG_CORRUPT)) {
    FRAME_WARNING (self, ("Corrupt H.264 frame"),
        ("frame %u (pts %" GST_TIME_FORMAT "): decoded with errors "
         "(concealed; flags 0x%x)",
            frame->system_frame_number, GST_TIME_ARGS (frame->pts),
            (guint) f->decode_error_flags),
        ret);
    if (ret != GST_FLOW_OK) {
      gst_video_decoder_release_frame (dec, frame);
      return ret;
    }
  }

  if (self->video_meta)
    frame->output_buffer = wrap_frame (f, &self->out_info);
  if (!frame->output_buffer) {
    ret = copy_frame (self, f, frame);
    if (ret != GST_FLOW_OK) {
      gst_video_decoder_release_frame (dec, frame);
      return ret;
    }
  }

  GST_OBJECT_LOCK (self);
  block = self->block_size;
  threads = self->n_threads;
  GST_OBJECT_UNLOCK (self);
  meta = gst_match_attach_meta (frame->output_buffer, &self->vector_pool,
      &self->pool_vectors, (guint) f->width, (guint) f->height, block, block,
      GST_MOTION_VECTORS_DIRECTION_BACKWARD);
  if (!meta)
    goto no_storage;
  meta->precision = 0.25f;
  meta->method = g_intern_static_string ("h264");
  if (self->core->fill_meta (meta, f) > 0)
    meta->reference_timestamp = self->anchor_pts;
  if (f->pict_type != AV_PICTURE_TYPE_B)
    self->anchor_pts = frame->pts;
  /* finish_frame stamps the buffer; the decision times by it before. */
  GST_BUFFER_PTS (frame->output_buffer) = frame->pts;
  GST_BUFFER_DURATION (frame->output_buffer) = frame->duration;
  {
    const match::ImageView luma = { f->data[0], f->width, f->height,
      f->linesize[0] };
    gst_mv_events_process_host (self->mvevents, GST_ELEMENT (self),
        frame->output_buffer, meta, &dec->input_segment, &luma,
        &self->next_pixels, threads);
  }
  number = frame->system_frame_number;
  ret = gst_video_decoder_finish_frame (dec, frame);
  if (ret == GST_FLOW_OK)
    ret = release_stale (self, number, FALSE);
  return ret;

  /* ERRORS */
unsupported : {
  gst_video_decoder_release_frame (dec, frame);
  GST_ELEMENT_ERROR (self, STREAM, FORMAT,
      ("Unsupported H.264 picture format %s",
          av_get_pix_fmt_name ((AVPixelFormat) f->format)),
      ("only 8-bit 4:2:0, 4:2:2, 4:4:4 and monochrome are output"));
  return GST_FLOW_NOT_NEGOTIATED;
}
not_negotiated : {
  gst_video_decoder_release_frame (dec, frame);
  GST_DEBUG_OBJECT (self, "could not negotiate the output");
  return GST_FLOW_NOT_NEGOTIATED;
}
no_storage : {
  gst_video_decoder_release_frame (dec, frame);
  GST_ELEMENT_ERROR (self, RESOURCE, NO_SPACE_LEFT,
      ("Could not attach the motion-vector meta"), (NULL));
  return GST_FLOW_ERROR;
}
}

/* Every picture libavcodec has ready. */
static GstFlowReturn
receive_pictures (GstH264MvDec * self)
{
  GstFlowReturn ret = GST_FLOW_OK;
  AVFrame * f;
  int err;

  while ((f = self->core->receive (&err))) {
    ret = output_picture (self, f);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  if (err != AVERROR (EAGAIN) && err != AVERROR_EOF)
    FRAME_WARNING (self, ("Could not decode H.264"),
        ("%s", GstH264MvCore::error_string (err).c_str ()), ret);
  return ret;
}

static GstFlowReturn
gst_h264_mv_dec_handle_frame (GstVideoDecoder * dec, GstVideoCodecFrame * frame)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);
  const guint32 number = frame->system_frame_number;
  GstFlowReturn ret = GST_FLOW_OK;
  GstMapInfo map;
  int err;

  if (!gst_buffer_map (frame->input_buffer, &map, GST_MAP_READ)) {
    gst_video_decoder_release_frame (dec, frame);
    GST_ELEMENT_ERROR (self, STREAM, FAILED, ("Could not map the input"),
        (NULL));
    return GST_FLOW_ERROR;
  }
  /* The frame stays in the base class's list; the picture finds it. */
  gst_video_codec_frame_unref (frame);
  err = self->core->send (map.data, map.size, number);
  if (err == AVERROR (EAGAIN)) {
    /* Output first (not with this API's H.264 decoder in practice). */
    ret = receive_pictures (self);
    if (ret == GST_FLOW_OK)
      err = self->core->send (map.data, map.size, number);
  }
  gst_buffer_unmap (frame->input_buffer, &map);
  if (ret != GST_FLOW_OK)
    return ret;
  if (err < 0) {
    GstVideoCodecFrame * lost = gst_video_decoder_get_frame (dec, number);
    FRAME_WARNING (self, ("Corrupt H.264 frame"),
        ("frame %u: %s", number, GstH264MvCore::error_string (err).c_str ()),
        ret);
    if (lost)
      gst_video_decoder_release_frame (dec, lost);
    if (ret != GST_FLOW_OK)
      return ret;
  }
  return receive_pictures (self);
}

/* Every picture still in libavcodec leaves; it is then ready for more. */
static GstFlowReturn
gst_h264_mv_dec_drain (GstVideoDecoder * dec)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);
  GstFlowReturn ret;

  if (!self->core || !self->core->is_open ())
    return GST_FLOW_OK;
  self->core->send_eof ();
  ret = receive_pictures (self);
  self->core->flush ();
  if (ret == GST_FLOW_OK)
    ret = release_stale (self, 0, TRUE);
  return ret;
}

static gboolean
gst_h264_mv_dec_flush (GstVideoDecoder * dec)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);

  GST_DEBUG_OBJECT (self, "flush: dropping the decoder's pictures");
  if (self->core)
    self->core->flush ();
  self->anchor_pts = GST_CLOCK_TIME_NONE;
  return TRUE;
}

static gboolean
gst_h264_mv_dec_decide_allocation (GstVideoDecoder * dec, GstQuery * query)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);

  if (!GST_VIDEO_DECODER_CLASS (parent_class)->decide_allocation (dec, query))
    return FALSE;
  self->video_meta =
      gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL);
  GST_DEBUG_OBJECT (self, "downstream %s GstVideoMeta: %s",
      self->video_meta ? "takes" : "does not take",
      self->video_meta ? "libavcodec's planes are passed on"
                       : "the planes are copied");
  return TRUE;
}

/* The motion state follows the stream (mvevents.h): motion-stop on EOS
 * after the last pictures, on a stream start, and after a flush has
 * passed (the src pad carries its in-band copy). */
static gboolean
gst_h264_mv_dec_sink_event (GstVideoDecoder * dec, GstEvent * event)
{
  GstH264MvDec * self = GST_H264_MV_DEC (dec);

  switch (GST_EVENT_TYPE (event)) {
    case GST_EVENT_EOS:
      GST_VIDEO_DECODER_STREAM_LOCK (dec);
      gst_h264_mv_dec_drain (dec);
      GST_VIDEO_DECODER_STREAM_UNLOCK (dec);
      gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
      break;
    case GST_EVENT_STREAM_START:
      gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
      break;
    case GST_EVENT_FLUSH_STOP: {
      gst_event_ref (event);
      const gboolean ret =
          GST_VIDEO_DECODER_CLASS (parent_class)->sink_event (dec, event);
      gst_mv_events_sink_event (self->mvevents, GST_ELEMENT (self), event);
      gst_event_unref (event);
      return ret;
    }
    default:
      break;
  }
  return GST_VIDEO_DECODER_CLASS (parent_class)->sink_event (dec, event);
}
