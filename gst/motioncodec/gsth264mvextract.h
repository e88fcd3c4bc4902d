/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_H264_MV_EXTRACT_H__
#define __GST_H264_MV_EXTRACT_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_H264_MV_EXTRACT (gst_h264_mv_extract_get_type ())
G_DECLARE_FINAL_TYPE (GstH264MvExtract, gst_h264_mv_extract, GST,
    H264_MV_EXTRACT, GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (h264mvextract);

G_END_DECLS

#endif /* __GST_H264_MV_EXTRACT_H__ */
