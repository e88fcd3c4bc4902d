/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MV_MQTT_SINK_H__
#define __GST_MV_MQTT_SINK_H__

#include <gst/gst.h>

#include "publish/gstmvpublishsink.h"

G_BEGIN_DECLS

#define GST_TYPE_MV_MQTT_SINK (gst_mv_mqtt_sink_get_type ())
G_DECLARE_FINAL_TYPE (GstMvMqttSink, gst_mv_mqtt_sink, GST, MV_MQTT_SINK,
    GstMvPublishSink)

GST_ELEMENT_REGISTER_DECLARE (mvmqttsink);

G_END_DECLS

#endif /* __GST_MV_MQTT_SINK_H__ */
