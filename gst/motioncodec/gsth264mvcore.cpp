/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gsth264mvcore.h"

#include <algorithm>
#include <cstring>

extern "C" {
#include <libavutil/error.h>
#include <libavutil/motion_vector.h>
#include <libavutil/pixfmt.h>
}

GstH264MvCore::GstH264MvCore ()
{
}

GstH264MvCore::~GstH264MvCore ()
{
  close ();
}

std::string
GstH264MvCore::error_string (int err)
{
  char text[AV_ERROR_MAX_STRING_SIZE] = { 0 };
  av_strerror (err, text, sizeof (text));
  return text;
}

bool
GstH264MvCore::open (GstBuffer * codec_data, guint threads,
    bool skip_loop_filter, std::string * error)
{
  const AVCodec * codec = avcodec_find_decoder (AV_CODEC_ID_H264);
  int ret;

  close ();
  if (!codec) {
    *error = "this libavcodec has no H.264 decoder";
    return false;
  }
  ctx_ = avcodec_alloc_context3 (codec);
  packet_ = av_packet_alloc ();
  frame_ = av_frame_alloc ();
  if (!ctx_ || !packet_ || !frame_) {
    close ();
    *error = "out of memory";
    return false;
  }
  /* The vectors the decoder parses anyway, as frame side data. */
  ctx_->export_side_data |= AV_CODEC_EXPORT_DATA_MVS;
  /* Slice threads only: with frame threads FFmpeg 5.1 exports some
   * pictures' vectors from tables another thread is still writing (one
   * run in six, 4 threads, on an x264 clip with B frames: 5,444 of 691,200
   * 8x8 blocks differed from the single-threaded export; none with slice
   * threads). Slice threads add no latency; they help streams of several
   * slices a picture. */
  ctx_->thread_count = (int) threads;
  ctx_->thread_type = FF_THREAD_SLICE;
  if (skip_loop_filter) {
    /* Deblocking changes no vector. FFmpeg's H.264 decoder has no switch
     * for the inverse transform (skip_idct leaves its output unchanged,
     * docs/codec-vectors.md): residuals are still added. */
    ctx_->skip_loop_filter = AVDISCARD_ALL;
    ctx_->flags2 |= AV_CODEC_FLAG2_FAST;
  }
  if (codec_data) {
    GstMapInfo map;
    if (!gst_buffer_map (codec_data, &map, GST_MAP_READ)) {
      close ();
      *error = "cannot read codec_data";
      return false;
    }
    ctx_->extradata =
        (uint8_t *) av_mallocz (map.size + AV_INPUT_BUFFER_PADDING_SIZE);
    if (ctx_->extradata) {
      memcpy (ctx_->extradata, map.data, map.size);
      ctx_->extradata_size = (int) map.size;
    }
    gst_buffer_unmap (codec_data, &map);
    if (!ctx_->extradata) {
      close ();
      *error = "out of memory";
      return false;
    }
  }
  ret = avcodec_open2 (ctx_, codec, NULL);
  if (ret < 0) {
    *error = "avcodec_open2: " + error_string (ret);
    close ();
    return false;
  }
  return true;
}

void
GstH264MvCore::close ()
{
  avcodec_free_context (&ctx_);
  av_packet_free (&packet_);
  av_frame_free (&frame_);
}

int
GstH264MvCore::send (const guint8 * data, gsize size, gint64 id)
{
  if (!ctx_)
    return AVERROR (EINVAL);
  if (size == 0 || size > G_MAXINT - AV_INPUT_BUFFER_PADDING_SIZE)
    return AVERROR_INVALIDDATA;
  /* FFmpeg's bitstream readers read past the end: zeroed padding. The
   * vector only grows (no allocation per frame once the largest access
   * unit has been seen). */
  if (input_.size () < size + AV_INPUT_BUFFER_PADDING_SIZE)
    input_.resize (size + AV_INPUT_BUFFER_PADDING_SIZE);
  memcpy (input_.data (), data, size);
  memset (input_.data () + size, 0, AV_INPUT_BUFFER_PADDING_SIZE);
  av_packet_unref (packet_);
  packet_->data = input_.data ();
  packet_->size = (int) size;
  packet_->pts = id;
  packet_->dts = AV_NOPTS_VALUE;
  return avcodec_send_packet (ctx_, packet_);
}

int
GstH264MvCore::send_eof ()
{
  if (!ctx_)
    return AVERROR_EOF;
  return avcodec_send_packet (ctx_, NULL);
}

AVFrame *
GstH264MvCore::receive (int * err)
{
  if (!ctx_) {
    *err = AVERROR_EOF;
    return NULL;
  }
  av_frame_unref (frame_);
  *err = avcodec_receive_frame (ctx_, frame_);
  return *err < 0 ? NULL : frame_;
}

void
GstH264MvCore::flush ()
{
  if (ctx_)
    avcodec_flush_buffers (ctx_);
  if (frame_)
    av_frame_unref (frame_);
}

guint
GstH264MvCore::delay () const
{
  if (!ctx_)
    return 0;
  return (guint) MAX (ctx_->has_b_frames, 0); /* no frame threads */
}

std::string
GstH264MvCore::describe () const
{
  if (!ctx_)
    return "closed";
  std::string s = std::to_string (ctx_->thread_count) + " thread";
  if (ctx_->thread_count != 1)
    s += "s";
  if (ctx_->active_thread_type & FF_THREAD_SLICE)
    s += " (slice)";
  if (ctx_->skip_loop_filter == AVDISCARD_ALL)
    s += ", no loop filter";
  return s;
}

guint
GstH264MvCore::fill_meta (GstMotionVectorsMeta * meta, const AVFrame * frame)
{
  const guint n = meta->n_vectors;
  const AVFrameSideData * sd =
      av_frame_get_side_data (frame, AV_FRAME_DATA_MOTION_VECTORS);
  const int fw = (int) meta->frame_width, fh = (int) meta->frame_height;
  const int bw = (int) meta->block_width, bh = (int) meta->block_height;
  guint estimated = 0;

  /* area, area * dx, area * dy of each block; sized once per grid. */
  if (sums_.size () < 3 * (size_t) n)
    sums_.resize (3 * (size_t) n);
  std::fill (sums_.begin (), sums_.begin () + 3 * (size_t) n, 0.0f);

  if (sd) {
    const AVMotionVector * mvs = (const AVMotionVector *) sd->data;
    const size_t count = sd->size / sizeof (AVMotionVector);
    for (size_t k = 0; k < count; k++) {
      const AVMotionVector & mv = mvs[k];
      /* List 0 only: the reference the meta's convention can name. */
      if (mv.source >= 0 || mv.motion_scale == 0)
        continue;
      const float dx = (float) mv.motion_x / (float) mv.motion_scale;
      const float dy = (float) mv.motion_y / (float) mv.motion_scale;
      const int x0 = MAX (mv.dst_x - mv.w / 2, 0);
      const int y0 = MAX (mv.dst_y - mv.h / 2, 0);
      const int x1 = MIN (mv.dst_x - mv.w / 2 + mv.w, fw);
      const int y1 = MIN (mv.dst_y - mv.h / 2 + mv.h, fh);
      if (x0 >= x1 || y0 >= y1)
        continue;
      for (int r = y0 / bh; r <= (y1 - 1) / bh; r++) {
        const int oy = MIN (y1, (r + 1) * bh) - MAX (y0, r * bh);
        for (int c = x0 / bw; c <= (x1 - 1) / bw; c++) {
          const int ox = MIN (x1, (c + 1) * bw) - MAX (x0, c * bw);
          float * s = &sums_[3 * ((size_t) r * meta->columns + c)];
          const float area = (float) (ox * oy);
          s[0] += area;
          s[1] += area * dx;
          s[2] += area * dy;
        }
      }
    }
  }
  for (guint i = 0; i < n; i++) {
    GstMotionVector * v = &meta->vectors[i];
    const float * s = &sums_[3 * (size_t) i];
    v->cost = 0;
    v->confidence = -1.0f;
    if (s[0] > 0.0f) {
      v->dx = s[1] / s[0];
      v->dy = s[2] / s[0];
      v->flags = GST_MOTION_VECTOR_FLAG_NONE;
      estimated++;
    } else {
      v->dx = v->dy = 0.0f;
      v->flags = GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
    }
  }
  return estimated;
}

GstVideoFormat
gst_h264_mv_video_format (int pix_fmt)
{
  switch (pix_fmt) {
    case AV_PIX_FMT_YUV420P:
    case AV_PIX_FMT_YUVJ420P:
      return GST_VIDEO_FORMAT_I420;
    case AV_PIX_FMT_YUV422P:
    case AV_PIX_FMT_YUVJ422P:
      return GST_VIDEO_FORMAT_Y42B;
    case AV_PIX_FMT_YUV444P:
    case AV_PIX_FMT_YUVJ444P:
      return GST_VIDEO_FORMAT_Y444;
    case AV_PIX_FMT_GRAY8:
      return GST_VIDEO_FORMAT_GRAY8;
    default:
      return GST_VIDEO_FORMAT_UNKNOWN;
  }
}

void
gst_h264_mv_install_properties (GObjectClass * klass, guint block_size,
    guint n_threads)
{
  const GParamFlags ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);
  g_object_class_install_property (klass, block_size,
      g_param_spec_uint ("block-size", "Block size",
          "Side of the field's square blocks in pixels: each takes the "
          "area-weighted mean of the list-0 partition vectors over it (8: "
          "every block is one partition, its vector unchanged)",
          GST_H264_MV_MIN_BLOCK, GST_H264_MV_MAX_BLOCK,
          GST_H264_MV_DEFAULT_BLOCK, ready));
  g_object_class_install_property (klass, n_threads,
      g_param_spec_uint ("n-threads", "Threads",
          "libavcodec slice threads (they help streams coded in several "
          "slices a picture; no frame threads), 0 = one per core",
          0, 64, GST_H264_MV_DEFAULT_THREADS, ready));
}
