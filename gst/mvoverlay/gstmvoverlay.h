/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MV_OVERLAY_ELEMENT_H__
#define __GST_MV_OVERLAY_ELEMENT_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include <gst/video/gstvideofilter.h>

G_BEGIN_DECLS

#define GST_TYPE_MV_OVERLAY (gst_mv_overlay_get_type ())
G_DECLARE_FINAL_TYPE (GstMvOverlay, gst_mv_overlay, GST, MV_OVERLAY,
    GstVideoFilter)

GST_ELEMENT_REGISTER_DECLARE (mvoverlay);

G_END_DECLS

#endif /* __GST_MV_OVERLAY_ELEMENT_H__ */
