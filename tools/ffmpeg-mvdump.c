/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * ffmpeg-mvdump: runs FFmpeg's `mestimate` filter on a pair of images and
 * prints the AVMotionVector side data it attaches, one vector a line, so
 * that FFmpeg's fields can be measured with our metrics
 * (bench/ffmpeg-accuracy.sh, tools/ffmpeg-accuracy.cpp). An optional tool,
 * not part of the meson build; bench/ffmpeg-accuracy.sh builds it with
 *
 *   cc -O2 -o ffmpeg-mvdump tools/ffmpeg-mvdump.c \
 *      $(pkg-config --cflags --libs libavfilter libavformat libavcodec libavutil)
 *
 * Usage:
 *   ffmpeg-mvdump [-m METHOD] [-b MB_SIZE] [-r SEARCH_PARAM] [-p PIX_FMT]
 *                 [-o 1|2] FRAME1 FRAME2
 *     METHOD        esa tss tdls ntss fss ds hexbs epzs umh (default esa)
 *     MB_SIZE       mb_size (default 16)
 *     SEARCH_PARAM  search_param (default 16)
 *     PIX_FMT       format the filter gets, gray or yuv420p (default gray;
 *                   mestimate only reads the first plane, the luma)
 *     -o N          print the output frame of input N (default 2)
 *   FRAME1, FRAME2: image files FFmpeg decodes (PGM, PNG...), same size.
 *
 * Output (stdout): '#' comment lines, then one line per AVMotionVector:
 *   source w h src_x src_y dst_x dst_y motion_x motion_y motion_scale
 *
 * What mestimate exports (FFmpeg 5.1 libavfilter/vf_mestimate.c and
 * motion_estimation.c):
 * - It keeps three frames, prev, cur and next, and emits `cur` (with its
 *   pts) when `next` arrives, so output frame N appears only when input N+1
 *   has been pushed. The very first input is its own `prev`. Nothing is
 *   flushed at EOF: the last input never comes out.
 * - Each output carries 2 * b_count vectors, b_count = (w >> log2 mb) *
 *   (h >> log2 mb): only whole blocks (a partial last column/row gets no
 *   vector), blocks in raster order; first all with source = -1 (searched
 *   in `prev`), then all with source = +1 (searched in `next`).
 * - For the block whose top-left corner is (x, y) in `cur`: dst = (x + mb/2,
 *   y + mb/2), its centre in the CURRENT frame, and src = (x' + mb/2,
 *   y' + mb/2) where (x', y') is the top-left corner of the best match (SAD
 *   of the first plane) in the reference frame (prev for -1, next for +1).
 *   So cur(p) ~ ref(p + (src - dst)): src - dst is an integer vector from
 *   the current frame's block to where its content is in the reference.
 *   The search never leaves the frame: x' in [0, (b_width - 1) * mb],
 *   y' likewise, and |x' - x|, |y' - y| <= search_param.
 * - motion_x, motion_y and motion_scale are NOT set by mestimate (the side
 *   data buffer is not cleared, so they hold whatever the allocation held);
 *   flags is 0. Use src - dst. They are printed as found.
 *
 * This tool pushes FRAME1 (pts 0), FRAME2 (pts 1) and FRAME2 again (pts 2),
 * then EOF, and prints the output whose pts is 0 (-o 1) or 1 (-o 2):
 * - -o 2 (default), the output for FRAME2: source = -1 vectors tile FRAME2
 *   and src is in FRAME1: FRAME2(p) ~ FRAME1(p + src - dst). Its source = +1
 *   vectors are FRAME2 against its own copy (all zero; ignore them).
 * - -o 1, the output for FRAME1: source = +1 vectors tile FRAME1 and src is
 *   in FRAME2: FRAME1(p) ~ FRAME2(p + src - dst); the source = -1 ones are
 *   FRAME1 against itself (all zero).
 * In both cases the predictive methods (epzs, umh) start without temporal
 * predictors (their tables are zero, or hold the zero field of a frame
 * against itself), as on the first frames of a video.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libavcodec/avcodec.h>
#include <libavfilter/avfilter.h>
#include <libavfilter/buffersink.h>
#include <libavfilter/buffersrc.h>
#include <libavformat/avformat.h>
#include <libavutil/motion_vector.h>
#include <libavutil/pixdesc.h>

static void
die (const char *what, int err)
{
  char buf[AV_ERROR_MAX_STRING_SIZE] = "";
  if (err < 0)
    av_strerror (err, buf, sizeof buf);
  fprintf (stderr, "ffmpeg-mvdump: %s%s%s\n", what, err < 0 ? ": " : "", buf);
  exit (1);
}

/* Decodes the first video frame of an image file. */
static AVFrame *
decode_image (const char *path)
{
  AVFormatContext *fmt = NULL;
  int ret = avformat_open_input (&fmt, path, NULL, NULL);
  if (ret < 0)
    die (path, ret);
  if ((ret = avformat_find_stream_info (fmt, NULL)) < 0)
    die (path, ret);
  const AVCodec *codec = NULL;
  const int si = av_find_best_stream (fmt, AVMEDIA_TYPE_VIDEO, -1, -1, &codec,
      0);
  if (si < 0 || !codec)
    die (path, si < 0 ? si : AVERROR_DECODER_NOT_FOUND);
  AVCodecContext *dec = avcodec_alloc_context3 (codec);
  if (!dec)
    die ("out of memory", 0);
  if ((ret = avcodec_parameters_to_context (dec,
              fmt->streams[si]->codecpar)) < 0
      || (ret = avcodec_open2 (dec, codec, NULL)) < 0)
    die (path, ret);

  AVFrame *frame = av_frame_alloc ();
  AVPacket *pkt = av_packet_alloc ();
  if (!frame || !pkt)
    die ("out of memory", 0);
  int got = 0;
  while (!got && av_read_frame (fmt, pkt) >= 0) {
    if (pkt->stream_index == si && avcodec_send_packet (dec, pkt) >= 0)
      got = avcodec_receive_frame (dec, frame) >= 0;
    av_packet_unref (pkt);
  }
  if (!got && avcodec_send_packet (dec, NULL) >= 0)
    got = avcodec_receive_frame (dec, frame) >= 0;
  if (!got)
    die ("no frame decoded", 0);
  av_packet_free (&pkt);
  avcodec_free_context (&dec);
  avformat_close_input (&fmt);
  return frame;
}

static void
usage (void)
{
  fprintf (stderr, "usage: ffmpeg-mvdump [-m METHOD] [-b MB_SIZE] "
      "[-r SEARCH_PARAM] [-p gray|yuv420p] [-o 1|2] FRAME1 FRAME2\n");
  exit (2);
}

int
main (int argc, char **argv)
{
  const char *method = "esa", *pix = "gray";
  int mb = 16, range = 16, which = 2, opt;
  while ((opt = getopt (argc, argv, "m:b:r:p:o:h")) != -1) {
    switch (opt) {
      case 'm':
        method = optarg;
        break;
      case 'b':
        mb = atoi (optarg);
        break;
      case 'r':
        range = atoi (optarg);
        break;
      case 'p':
        pix = optarg;
        break;
      case 'o':
        which = atoi (optarg);
        break;
      default:
        usage ();
    }
  }
  if (argc - optind != 2 || (which != 1 && which != 2))
    usage ();
  av_log_set_level (AV_LOG_ERROR);

  AVFrame *in[2] = { decode_image (argv[optind]),
    decode_image (argv[optind + 1])
  };
  if (in[0]->width != in[1]->width || in[0]->height != in[1]->height
      || in[0]->format != in[1]->format)
    die ("the two images differ in size or pixel format", 0);

  /* buffer -> format -> mestimate -> buffersink */
  AVFilterGraph *graph = avfilter_graph_alloc ();
  AVFilterContext *src = NULL, *sink = NULL;
  char args[256], desc[256];
  snprintf (args, sizeof args,
      "video_size=%dx%d:pix_fmt=%d:time_base=1/25:pixel_aspect=1/1",
      in[0]->width, in[0]->height, in[0]->format);
  int ret = avfilter_graph_create_filter (&src,
      avfilter_get_by_name ("buffer"), "in", args, NULL, graph);
  if (ret < 0)
    die ("buffer source", ret);
  if ((ret = avfilter_graph_create_filter (&sink,
              avfilter_get_by_name ("buffersink"), "out", NULL, NULL,
              graph)) < 0)
    die ("buffer sink", ret);
  snprintf (desc, sizeof desc,
      "format=%s,mestimate=method=%s:mb_size=%d:search_param=%d", pix,
      method, mb, range);
  AVFilterInOut *outputs = avfilter_inout_alloc ();
  AVFilterInOut *inputs = avfilter_inout_alloc ();
  outputs->name = av_strdup ("in");
  outputs->filter_ctx = src;
  inputs->name = av_strdup ("out");
  inputs->filter_ctx = sink;
  if ((ret = avfilter_graph_parse_ptr (graph, desc, &inputs, &outputs,
              NULL)) < 0)
    die (desc, ret);
  if ((ret = avfilter_graph_config (graph, NULL)) < 0)
    die ("graph configuration", ret);
  avfilter_inout_free (&inputs);
  avfilter_inout_free (&outputs);

  /* FRAME1, FRAME2, FRAME2 again: the output for FRAME2 needs a next. */
  AVFrame *wanted = NULL, *out = av_frame_alloc ();
  const int64_t want_pts = which - 1;
  for (int i = 0; i <= 3; i++) {
    if (i < 3) {
      AVFrame *f = av_frame_clone (in[i == 0 ? 0 : 1]);
      f->pts = i;
      ret = av_buffersrc_add_frame_flags (src, f, AV_BUFFERSRC_FLAG_KEEP_REF);
      av_frame_free (&f);
    } else {
      ret = av_buffersrc_add_frame_flags (src, NULL, 0);
    }
    if (ret < 0)
      die ("pushing a frame", ret);
    while ((ret = av_buffersink_get_frame (sink, out)) >= 0) {
      if (out->pts == want_pts && !wanted)
        wanted = av_frame_clone (out);
      av_frame_unref (out);
    }
    if (ret != AVERROR (EAGAIN) && ret != AVERROR_EOF)
      die ("pulling a frame", ret);
  }
  if (!wanted)
    die ("mestimate gave no output frame for that input", 0);
  const AVFrameSideData *sd = av_frame_get_side_data (wanted,
      AV_FRAME_DATA_MOTION_VECTORS);
  if (!sd)
    die ("no AV_FRAME_DATA_MOTION_VECTORS on the output frame", 0);
  const AVMotionVector *mv = (const AVMotionVector *) sd->data;
  const size_t n = sd->size / sizeof *mv;

  const unsigned ver = avfilter_version ();
  printf ("# ffmpeg-mvdump, libavfilter %u.%u.%u, %s\n", ver >> 16,
      (ver >> 8) & 0xff, ver & 0xff, desc);
  printf ("# frame1 %s\n# frame2 %s\n", argv[optind], argv[optind + 1]);
  printf ("# %dx%d %s; output frame of input %d (pts %" PRId64 "), "
      "%zu vectors\n", in[0]->width, in[0]->height,
      av_get_pix_fmt_name (in[0]->format), which, want_pts, n);
  printf ("# source w h src_x src_y dst_x dst_y motion_x motion_y "
      "motion_scale\n");
  for (size_t i = 0; i < n; i++)
    printf ("%d %u %u %d %d %d %d %d %d %u\n", mv[i].source, mv[i].w,
        mv[i].h, mv[i].src_x, mv[i].src_y, mv[i].dst_x, mv[i].dst_y,
        mv[i].motion_x, mv[i].motion_y, mv[i].motion_scale);

  av_frame_free (&wanted);
  av_frame_free (&out);
  av_frame_free (&in[0]);
  av_frame_free (&in[1]);
  avfilter_graph_free (&graph);
  return 0;
}
