/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * RTP payloader and depayloader of ONVIF metadata documents (ONVIF
 * Streaming Specification, "RTP for metadata stream"): encoding name
 * VND.ONVIF.METADATA, 90 kHz clock, a document in one or more packets of
 * one timestamp, the marker bit on its last packet.
 */
#ifndef __GST_RTP_ONVIF_META_H__
#define __GST_RTP_ONVIF_META_H__

#include <gst/gst.h>
#include <gst/rtp/gstrtpbasedepayload.h>
#include <gst/rtp/gstrtpbasepayload.h>

G_BEGIN_DECLS

#define GST_TYPE_RTP_ONVIF_META_PAY (gst_rtp_onvif_meta_pay_get_type ())
G_DECLARE_FINAL_TYPE (GstRtpOnvifMetaPay, gst_rtp_onvif_meta_pay, GST,
    RTP_ONVIF_META_PAY, GstRTPBasePayload)

#define GST_TYPE_RTP_ONVIF_META_DEPAY (gst_rtp_onvif_meta_depay_get_type ())
G_DECLARE_FINAL_TYPE (GstRtpOnvifMetaDepay, gst_rtp_onvif_meta_depay, GST,
    RTP_ONVIF_META_DEPAY, GstRTPBaseDepayload)

GST_ELEMENT_REGISTER_DECLARE (rtponvifmetapay);
GST_ELEMENT_REGISTER_DECLARE (rtponvifmetadepay);

G_END_DECLS

#endif /* __GST_RTP_ONVIF_META_H__ */
