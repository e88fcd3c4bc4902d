/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The "what is this buffer" tag of the metadata stream: mvmetastream
 * attaches a GstCustomMeta named GST_MV_STREAM_INFO_META_NAME to every
 * buffer it pushes, whose structure (GST_MV_STREAM_INFO_STRUCTURE) holds
 *
 *   "type"      (string) "frame" or "event"
 *   "event"     (string) events only: "motion-start" / "motion-stop"
 *   "camera-id" (string) the camera-id property, absent when unset
 *   "seq"       (guint64) the object's "seq" in the JSON
 *
 * so that a sink (mvmqttsink's topic template) can route a buffer without
 * parsing its JSON. Header only: the two elements live in different
 * plugins (libgstmotion, libgstmotionmqtt) and each registers the meta on
 * first use; whichever comes second finds it registered.
 */
#ifndef __GST_MV_STREAM_INFO_H__
#define __GST_MV_STREAM_INFO_H__

#include <gst/gst.h>

G_BEGIN_DECLS

#define GST_MV_STREAM_INFO_META_NAME "GstMvStreamInfoMeta"

/* A custom meta's info, registered on first use (whichever plugin comes
 * second finds it registered); shared by the metas of gst/common. */
static inline const GstMetaInfo *
gst_mv_custom_meta_get_info (const gchar * name)
{
  const GstMetaInfo * i = gst_meta_get_info (name);
  if (!i) {
    static const gchar * tags[] = { NULL };
    i = gst_meta_register_custom (name, tags, NULL, NULL, NULL);
  }
  return i;
}

static inline const GstMetaInfo *
gst_mv_stream_info_meta_get_info (void)
{
  static const GstMetaInfo * info = NULL;

  if (g_once_init_enter (&info))
    g_once_init_leave (&info,
        gst_mv_custom_meta_get_info (GST_MV_STREAM_INFO_META_NAME));
  return info;
}

/* The info structure of `buf`, or NULL: owned by the buffer. */
static inline const GstStructure *
gst_mv_stream_info_get (GstBuffer * buf)
{
  GstCustomMeta * meta;

  gst_mv_stream_info_meta_get_info ();
  meta = gst_buffer_get_custom_meta (buf, GST_MV_STREAM_INFO_META_NAME);
  return meta ? gst_custom_meta_get_structure (meta) : NULL;
}

G_END_DECLS

#endif /* __GST_MV_STREAM_INFO_H__ */
