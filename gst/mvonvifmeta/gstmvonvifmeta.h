/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MV_ONVIF_META_H__
#define __GST_MV_ONVIF_META_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_MV_ONVIF_META (gst_mv_onvif_meta_get_type ())
G_DECLARE_FINAL_TYPE (GstMvOnvifMeta, gst_mv_onvif_meta, GST, MV_ONVIF_META,
    GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (mvonvifmeta);

G_END_DECLS

#endif /* __GST_MV_ONVIF_META_H__ */
