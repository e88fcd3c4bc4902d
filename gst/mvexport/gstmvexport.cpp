/* SPDX-License-Identifier: LGPL-2.1-or-later
 * TEMPORARY placeholder, being replaced. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "gstmvexport.h"
struct _GstMvExport { GstBaseTransform parent; };
G_DEFINE_TYPE (GstMvExport, gst_mv_export, GST_TYPE_BASE_TRANSFORM);
GST_ELEMENT_REGISTER_DEFINE (mvexport, "mvexport", GST_RANK_NONE, GST_TYPE_MV_EXPORT);
static GstStaticPadTemplate t_sink = GST_STATIC_PAD_TEMPLATE ("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static GstStaticPadTemplate t_src = GST_STATIC_PAD_TEMPLATE ("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS_ANY);
static void gst_mv_export_class_init (GstMvExportClass * klass) {
  GstElementClass *e = GST_ELEMENT_CLASS (klass);
  gst_element_class_set_static_metadata (e, "mvexport", "Sink/Analyzer", "placeholder", "x");
  gst_element_class_add_static_pad_template (e, &t_sink);
  gst_element_class_add_static_pad_template (e, &t_src);
  GST_BASE_TRANSFORM_CLASS (klass)->passthrough_on_same_caps = TRUE;
}
static void gst_mv_export_init (GstMvExport *) {}
