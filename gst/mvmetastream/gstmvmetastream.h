/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MV_META_STREAM_H__
#define __GST_MV_META_STREAM_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_MV_META_STREAM (gst_mv_meta_stream_get_type ())
G_DECLARE_FINAL_TYPE (GstMvMetaStream, gst_mv_meta_stream, GST, MV_META_STREAM,
    GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (mvmetastream);

G_END_DECLS

#endif /* __GST_MV_META_STREAM_H__ */
