/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MV_NATS_SINK_H__
#define __GST_MV_NATS_SINK_H__

#include <gst/gst.h>

#include "publish/gstmvpublishsink.h"

G_BEGIN_DECLS

#define GST_TYPE_MV_NATS_SINK (gst_mv_nats_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstMvNatsSink, gst_mv_nats_sink, GST, MV_NATS_SINK,
    GstMvPublishSink)

GST_ELEMENT_REGISTER_DECLARE (mvnatssink);

G_END_DECLS

#endif /* __GST_MV_NATS_SINK_H__ */
