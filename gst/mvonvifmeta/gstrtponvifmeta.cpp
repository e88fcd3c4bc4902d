/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
/**
 * SECTION:element-rtponvifmetapay
 * @title: rtponvifmetapay
 * @short_description: ONVIF metadata documents into RTP packets
 *
 * Payloads each buffer of `application/x-onvif-metadata` (one XML document,
 * as `mvonvifmeta` writes it) as the ONVIF Streaming Specification's
 * metadata stream: encoding name `VND.ONVIF.METADATA`, a 90 kHz clock, the
 * document split over as many packets as the MTU needs, all with the
 * buffer's timestamp, the marker bit on the last one. An RTSP server
 * serves it beside the video from one mount (docs/onvif.md). The same
 * wire format and caps as gst-plugins-rs' `rtponvifmetadatapay`.
 *
 * ## Example launch line
 * |[
 * gst-launch-1.0 videotestsrc ! blockmatchme regions=true events=true ! \
 *     mvonvifmeta ! rtponvifmetapay ! udpsink host=127.0.0.1 port=5004
 * ]|
 */
/**
 * SECTION:element-rtponvifmetadepay
 * @title: rtponvifmetadepay
 * @short_description: ONVIF metadata documents out of RTP packets
 *
 * Joins the packets of each document of an ONVIF metadata stream
 * (`VND.ONVIF.METADATA`) up to the one with the marker bit and pushes the
 * document as one buffer of `application/x-onvif-metadata`. A document
 * whose packets did not all come (a gap, a new timestamp before the
 * marker, a first packet that does not begin a document: `<?xml` or a
 * `MetadataStream` root) is dropped up to its marker, counted in
 * #GstRtpOnvifMetaDepay:incomplete and logged.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstrtponvifmeta.h"

#include <cstring>

#include <gst/base/gstadapter.h>
#include <gst/rtp/gstrtpbuffer.h>

GST_DEBUG_CATEGORY_STATIC (gst_rtp_onvif_meta_debug);
#define GST_CAT_DEFAULT gst_rtp_onvif_meta_debug

#define META_CAPS "application/x-onvif-metadata, encoding = (string) utf8"
#define RTP_CAPS                                                               \
  "application/x-rtp, media = (string) application, payload = "                \
  "(int) " GST_RTP_PAYLOAD_DYNAMIC_STRING ", clock-rate = (int) 90000, "       \
  "encoding-name = (string) VND.ONVIF.METADATA"

static GstStaticPadTemplate meta_sink_template =
    GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS,
        GST_STATIC_CAPS (META_CAPS));
static GstStaticPadTemplate rtp_src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (RTP_CAPS));
static GstStaticPadTemplate rtp_sink_template = GST_STATIC_PAD_TEMPLATE ("sink",
    GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS (RTP_CAPS));
static GstStaticPadTemplate meta_src_template = GST_STATIC_PAD_TEMPLATE ("src",
    GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS (META_CAPS));

static void
debug_init (void)
{
  static gsize done = 0;
  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (gst_rtp_onvif_meta_debug, "rtponvifmeta", 0,
        "ONVIF metadata RTP payloader and depayloader");
    g_once_init_leave (&done, 1);
  }
}

/* ---- payloader ---------------------------------------------------------- */

struct _GstRtpOnvifMetaPay
{
  GstRTPBasePayload parent;
};

G_DEFINE_TYPE (GstRtpOnvifMetaPay, gst_rtp_onvif_meta_pay,
    GST_TYPE_RTP_BASE_PAYLOAD);
GST_ELEMENT_REGISTER_DEFINE (rtponvifmetapay, "rtponvifmetapay",
    GST_RANK_MARGINAL, GST_TYPE_RTP_ONVIF_META_PAY);

static gboolean
gst_rtp_onvif_meta_pay_set_caps (GstRTPBasePayload * pay, GstCaps *)
{
  gst_rtp_base_payload_set_options (pay, "application", TRUE,
      "VND.ONVIF.METADATA", 90000);
  return gst_rtp_base_payload_set_outcaps (pay, NULL);
}

static GstFlowReturn
gst_rtp_onvif_meta_pay_handle_buffer (GstRTPBasePayload * pay,
    GstBuffer * buffer)
{
  const gsize size = gst_buffer_get_size (buffer);
  if (size == 0) {
    gst_buffer_unref (buffer);
    return GST_FLOW_OK;
  }
  const guint max =
      gst_rtp_buffer_calc_payload_len (GST_RTP_BASE_PAYLOAD_MTU (pay), 0, 0);
  if (max == 0) {
    gst_buffer_unref (buffer);
    GST_ELEMENT_ERROR (pay, STREAM, ENCODE, (NULL),
        ("mtu %u leaves no room for a payload",
            GST_RTP_BASE_PAYLOAD_MTU (pay)));
    return GST_FLOW_ERROR;
  }
  GstBufferList * list = gst_buffer_list_new_sized ((size + max - 1) / max);
  for (gsize offset = 0; offset < size; offset += max) {
    const gsize len = MIN ((gsize) max, size - offset);
    GstBuffer * out =
        gst_rtp_base_payload_allocate_output_buffer (pay, 0, 0, 0);
    GstRTPBuffer rtp = GST_RTP_BUFFER_INIT;
    if (gst_rtp_buffer_map (out, GST_MAP_WRITE, &rtp)) {
      gst_rtp_buffer_set_marker (&rtp, offset + len == size);
      gst_rtp_buffer_unmap (&rtp);
    }
    out = gst_buffer_append (out,
        gst_buffer_copy_region (buffer, GST_BUFFER_COPY_MEMORY, offset, len));
    GST_BUFFER_PTS (out) = GST_BUFFER_PTS (buffer);
    GST_BUFFER_DTS (out) = GST_BUFFER_DTS (buffer);
    gst_buffer_list_add (list, out);
  }
  gst_buffer_unref (buffer);
  return gst_rtp_base_payload_push_list (pay, list);
}

static void
gst_rtp_onvif_meta_pay_class_init (GstRtpOnvifMetaPayClass * klass)
{
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstRTPBasePayloadClass * pay_class = GST_RTP_BASE_PAYLOAD_CLASS (klass);

  debug_init ();
  gst_element_class_add_static_pad_template (element_class,
      &meta_sink_template);
  gst_element_class_add_static_pad_template (element_class, &rtp_src_template);
  gst_element_class_set_static_metadata (element_class,
      "RTP ONVIF metadata payloader", "Codec/Payloader/Network/RTP",
      "Payloads ONVIF metadata documents in RTP packets (VND.ONVIF.METADATA, "
      "the marker on each document's last packet)",
      "The gst-motion authors");
  pay_class->set_caps = GST_DEBUG_FUNCPTR (gst_rtp_onvif_meta_pay_set_caps);
  pay_class->handle_buffer =
      GST_DEBUG_FUNCPTR (gst_rtp_onvif_meta_pay_handle_buffer);
}

static void
gst_rtp_onvif_meta_pay_init (GstRtpOnvifMetaPay *)
{
}

/* ---- depayloader -------------------------------------------------------- */

enum
{
  PROP_DEPAY_0,
  PROP_INCOMPLETE,
};

struct _GstRtpOnvifMetaDepay
{
  GstRTPBaseDepayload parent;

  GstAdapter * adapter; /* the packets of the document under way */
  guint32 timestamp;    /* their RTP timestamp */
  gboolean skipping;    /* dropping a document up to its marker */
  guint64 incomplete;   /* documents dropped (object lock) */
};

G_DEFINE_TYPE (GstRtpOnvifMetaDepay, gst_rtp_onvif_meta_depay,
    GST_TYPE_RTP_BASE_DEPAYLOAD);
GST_ELEMENT_REGISTER_DEFINE (rtponvifmetadepay, "rtponvifmetadepay",
    GST_RANK_MARGINAL, GST_TYPE_RTP_ONVIF_META_DEPAY);

static gboolean
gst_rtp_onvif_meta_depay_set_caps (GstRTPBaseDepayload * depay, GstCaps * caps)
{
  gint rate = 90000;
  gst_structure_get_int (gst_caps_get_structure (caps, 0), "clock-rate", &rate);
  depay->clock_rate = rate > 0 ? rate : 90000;
  GstCaps * out = gst_static_pad_template_get_caps (&meta_src_template);
  const gboolean ok =
      gst_pad_set_caps (GST_RTP_BASE_DEPAYLOAD_SRCPAD (depay), out);
  gst_caps_unref (out);
  return ok;
}

/* One document dropped: counted and logged. */
static void
count_dropped (GstRtpOnvifMetaDepay * self, gsize bytes, const gchar * why)
{
  GST_OBJECT_LOCK (self);
  const guint64 dropped = ++self->incomplete;
  GST_OBJECT_UNLOCK (self);
  GST_WARNING_OBJECT (self,
      "document dropped (%s; %" G_GSIZE_FORMAT " bytes "
      "had come); %" G_GUINT64_FORMAT " so far",
      why, bytes, dropped);
}

/* Whether a payload begins a document: its XML declaration or its root. */
static gboolean
begins_document (const guint8 * p, guint n)
{
  const gchar * starts[] = { "<?xml", "<tt:MetadataStream", "<MetadataStream" };
  for (const gchar * s : starts)
    if (n >= strlen (s) && memcmp (p, s, strlen (s)) == 0)
      return TRUE;
  return FALSE;
}

static GstBuffer *
gst_rtp_onvif_meta_depay_process (GstRTPBaseDepayload * depay,
    GstRTPBuffer * rtp)
{
  GstRtpOnvifMetaDepay * self = GST_RTP_ONVIF_META_DEPAY (depay);
  const guint32 ts = gst_rtp_buffer_get_timestamp (rtp);
  const gboolean marker = gst_rtp_buffer_get_marker (rtp);
  const gsize partial = gst_adapter_available (self->adapter);
  const gboolean gap = GST_BUFFER_IS_DISCONT (rtp->buffer);

  /* A new timestamp is a new document: one being skipped ended (its last
   * packet was lost too). */
  if (self->skipping && ts != self->timestamp)
    self->skipping = FALSE;
  /* A document under way that cannot be complete any more. */
  if (partial > 0 && (gap || ts != self->timestamp)) {
    gst_adapter_clear (self->adapter);
    count_dropped (self, partial,
        gap ? "a gap in its packets" : "a new timestamp before its end");
  }
  /* A packet that should begin a document and does not: the rest of a
   * document whose start was lost (counted once, with its start or here). */
  if (gst_adapter_available (self->adapter) == 0 && !self->skipping
      && !begins_document ((const guint8 *) gst_rtp_buffer_get_payload (rtp),
          gst_rtp_buffer_get_payload_len (rtp))) {
    if (partial == 0 || !gap)
      count_dropped (self, 0, "its first packet did not come");
    self->skipping = TRUE;
  }
  self->timestamp = ts;
  if (self->skipping) {
    self->skipping = !marker;
    return NULL;
  }
  gst_adapter_push (self->adapter, gst_rtp_buffer_get_payload_buffer (rtp));
  if (!marker)
    return NULL;
  return gst_adapter_take_buffer (self->adapter,
      gst_adapter_available (self->adapter));
}

static GstStateChangeReturn
gst_rtp_onvif_meta_depay_change_state (GstElement * element,
    GstStateChange transition)
{
  GstRtpOnvifMetaDepay * self = GST_RTP_ONVIF_META_DEPAY (element);
  if (transition == GST_STATE_CHANGE_READY_TO_PAUSED) {
    gst_adapter_clear (self->adapter);
    self->skipping = FALSE;
  }
  return GST_ELEMENT_CLASS (gst_rtp_onvif_meta_depay_parent_class)
      ->change_state (element, transition);
}

static gboolean
gst_rtp_onvif_meta_depay_handle_event (GstRTPBaseDepayload * depay,
    GstEvent * event)
{
  if (GST_EVENT_TYPE (event) == GST_EVENT_FLUSH_STOP) {
    gst_adapter_clear (GST_RTP_ONVIF_META_DEPAY (depay)->adapter);
    GST_RTP_ONVIF_META_DEPAY (depay)->skipping = FALSE;
  }
  return GST_RTP_BASE_DEPAYLOAD_CLASS (gst_rtp_onvif_meta_depay_parent_class)
      ->handle_event (depay, event);
}

static void
gst_rtp_onvif_meta_depay_get_property (GObject * object, guint prop_id,
    GValue * value, GParamSpec * pspec)
{
  GstRtpOnvifMetaDepay * self = GST_RTP_ONVIF_META_DEPAY (object);
  if (prop_id == PROP_INCOMPLETE) {
    GST_OBJECT_LOCK (self);
    g_value_set_uint64 (value, self->incomplete);
    GST_OBJECT_UNLOCK (self);
  } else {
    G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
  }
}

static void
gst_rtp_onvif_meta_depay_finalize (GObject * object)
{
  g_object_unref (GST_RTP_ONVIF_META_DEPAY (object)->adapter);
  G_OBJECT_CLASS (gst_rtp_onvif_meta_depay_parent_class)->finalize (object);
}

static void
gst_rtp_onvif_meta_depay_class_init (GstRtpOnvifMetaDepayClass * klass)
{
  GObjectClass * gobject_class = G_OBJECT_CLASS (klass);
  GstElementClass * element_class = GST_ELEMENT_CLASS (klass);
  GstRTPBaseDepayloadClass * depay_class = GST_RTP_BASE_DEPAYLOAD_CLASS (klass);

  debug_init ();
  gobject_class->get_property = gst_rtp_onvif_meta_depay_get_property;
  gobject_class->finalize = gst_rtp_onvif_meta_depay_finalize;
  g_object_class_install_property (gobject_class, PROP_INCOMPLETE,
      g_param_spec_uint64 ("incomplete", "Incomplete documents",
          "Documents dropped because some of their packets did not come", 0,
          G_MAXUINT64, 0,
          (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  gst_element_class_add_static_pad_template (element_class, &rtp_sink_template);
  gst_element_class_add_static_pad_template (element_class, &meta_src_template);
  gst_element_class_set_static_metadata (element_class,
      "RTP ONVIF metadata depayloader", "Codec/Depayloader/Network/RTP",
      "Joins the RTP packets of ONVIF metadata documents (VND.ONVIF.METADATA) "
      "into one buffer each",
      "The gst-motion authors");
  element_class->change_state =
      GST_DEBUG_FUNCPTR (gst_rtp_onvif_meta_depay_change_state);
  depay_class->set_caps = GST_DEBUG_FUNCPTR (gst_rtp_onvif_meta_depay_set_caps);
  depay_class->process_rtp_packet =
      GST_DEBUG_FUNCPTR (gst_rtp_onvif_meta_depay_process);
  depay_class->handle_event =
      GST_DEBUG_FUNCPTR (gst_rtp_onvif_meta_depay_handle_event);
}

static void
gst_rtp_onvif_meta_depay_init (GstRtpOnvifMetaDepay * self)
{
  self->adapter = gst_adapter_new ();
  self->timestamp = 0;
  self->skipping = FALSE;
  self->incomplete = 0;
}
