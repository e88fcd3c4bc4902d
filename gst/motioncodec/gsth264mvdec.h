/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_H264_MV_DEC_H__
#define __GST_H264_MV_DEC_H__

#include <gst/gst.h>
#include <gst/video/video.h>

G_BEGIN_DECLS

#define GST_TYPE_H264_MV_DEC (gst_h264_mv_dec_get_type ())
G_DECLARE_FINAL_TYPE (GstH264MvDec, gst_h264_mv_dec, GST, H264_MV_DEC,
    GstVideoDecoder)

GST_ELEMENT_REGISTER_DECLARE (h264mvdec);

G_END_DECLS

#endif /* __GST_H264_MV_DEC_H__ */
