/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * What h264mvdec and h264mvextract share: an H.264 decoder of libavcodec
 * that exports the motion vectors it parses (AV_CODEC_EXPORT_DATA_MVS,
 * side data AV_FRAME_DATA_MOTION_VECTORS), and the mapping of those
 * per-partition vectors onto the GstMotionVectorsMeta block grid.
 *
 * This file's code is LGPL; the plugin it is built into links Debian's
 * libavcodec, which is GPL-2+, so that plugin (libgstmotioncodec) is
 * distributed under the GPL (docs/codec-vectors.md).
 *
 * The mapping (docs/codec-vectors.md, "The field"): FFmpeg 5.1 exports,
 * for each inter macroblock and each reference list it uses, one vector
 * per 16x16, 16x8, 8x16 or 8x8 partition (an 8x8 split into smaller
 * sub-partitions gives the vector of its top-left 4x4), with dst_x,
 * dst_y the partition's centre in this frame and src = dst +
 * motion / motion_scale in the reference: cur(dst) ~ ref(src), our
 * BACKWARD convention with (dx, dy) = motion / motion_scale (quarter
 * pixels for H.264, exact in a float). Each block of the grid takes the
 * area-weighted mean of the list-0 (source < 0) partitions that overlap
 * it; with 8x8 blocks every block lies in exactly one partition and gets
 * its vector unchanged. Blocks no list-0 partition covers (intra
 * macroblocks, list-1-only B partitions, every block of an I frame) are
 * NO_ESTIMATE.
 */
#ifndef __GST_H264_MV_CORE_H__
#define __GST_H264_MV_CORE_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/motionvectors/motionvectors.h>

#include <string>
#include <vector>

extern "C" {
#include <libavcodec/avcodec.h>
#include <libavutil/frame.h>
}

/* The block sizes the field can have (the `block-size` property). */
#define GST_H264_MV_MIN_BLOCK 8
#define GST_H264_MV_MAX_BLOCK 64
#define GST_H264_MV_DEFAULT_BLOCK 16

/* The sink caps of both elements: what libavcodec takes as packets. */
#define GST_H264_MV_SINK_CAPS                                                  \
  "video/x-h264, stream-format = (string) { avc, byte-stream }, "              \
  "alignment = (string) au"

class GstH264MvCore
{
public:
  GstH264MvCore ();
  ~GstH264MvCore ();
  GstH264MvCore (const GstH264MvCore &) = delete;
  GstH264MvCore & operator= (const GstH264MvCore &) = delete;

  /* Opens the decoder. `codec_data`: the avcC of stream-format=avc, or
   * NULL (byte-stream: parameter sets in-band). `threads`: slice threads,
   * 0 = FFmpeg's choice (one per core); never frame threads (open ()
   * says why). `skip_loop_filter`:
   * no deblocking (pass-through: the pixels are not shown). FALSE with
   * *error set when it cannot. */
  bool open (GstBuffer * codec_data, guint threads, bool skip_loop_filter,
      std::string * error);
  void close ();
  bool is_open () const
  {
    return ctx_ != nullptr;
  }

  /* Decodes one access unit; `id` comes back as the AVFrame's pts. 0, or
   * an AVERROR (the caller warns and goes on: the decoder is still
   * usable). */
  int send (const guint8 * data, gsize size, gint64 id);
  /* No more input: receive() then returns every frame still held, then
   * AVERROR_EOF; call flush() before sending again. */
  int send_eof ();
  /* The next decoded frame (the core's, valid until the next call) or NULL,
   * then *err = AVERROR(EAGAIN) (more input needed), AVERROR_EOF or a
   * decode error. */
  AVFrame * receive (int * err);
  /* Drops every frame held and the references (flush, seek). */
  void flush ();

  /* Frames the decoder holds before a frame comes out: its reordering
   * (has_b_frames; no frame threads). */
  guint delay () const;
  /* "N threads (slice)", for the logs. */
  std::string describe () const;

  /* Fills meta->vectors (a meta for the frame's size, any block grid) from
   * `frame`'s motion-vector side data as the header above says. Returns
   * the number of blocks with an estimate. */
  guint fill_meta (GstMotionVectorsMeta * meta, const AVFrame * frame);

  /* The error text of an AVERROR. */
  static std::string error_string (int err);

private:
  AVCodecContext * ctx_ = nullptr;
  AVPacket * packet_ = nullptr;
  AVFrame * frame_ = nullptr;
  std::vector<guint8> input_; /* the access unit with FFmpeg's padding */
  std::vector<float> sums_;   /* per block: area, area * dx, area * dy */
};

/* The properties both elements have, installed under ids `block_size`
 * and `n_threads` (the same ranges, defaults and blurbs). */
#define GST_H264_MV_DEFAULT_THREADS 1
void gst_h264_mv_install_properties (GObjectClass * klass, guint block_size,
    guint n_threads);

/* The GStreamer video format of a libavcodec output pixel format, or
 * GST_VIDEO_FORMAT_UNKNOWN for one the elements do not output. */
GstVideoFormat gst_h264_mv_video_format (int pix_fmt);

#endif /* __GST_H264_MV_CORE_H__ */
