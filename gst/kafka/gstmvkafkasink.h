/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MV_KAFKA_SINK_H__
#define __GST_MV_KAFKA_SINK_H__

#include <gst/gst.h>

#include "publish/gstmvpublishsink.h"

G_BEGIN_DECLS

#define GST_TYPE_MV_KAFKA_SINK (gst_mv_kafka_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstMvKafkaSink, gst_mv_kafka_sink, GST, MV_KAFKA_SINK,
    GstMvPublishSink)

GST_ELEMENT_REGISTER_DECLARE (mvkafkasink);

G_END_DECLS

#endif /* __GST_MV_KAFKA_SINK_H__ */
