/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MV_EXPORT_H__
#define __GST_MV_EXPORT_H__

#include <gst/gst.h>
#include <gst/base/gstbasetransform.h>

G_BEGIN_DECLS

#define GST_TYPE_MV_EXPORT (gst_mv_export_get_type ())
G_DECLARE_FINAL_TYPE (GstMvExport, gst_mv_export, GST, MV_EXPORT,
    GstBaseTransform)

GST_ELEMENT_REGISTER_DECLARE (mvexport);

G_END_DECLS

#endif /* __GST_MV_EXPORT_H__ */
