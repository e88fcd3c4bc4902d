/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The zones and lines a frame was judged with: the motion elements attach
 * a GstCustomMeta named GST_MV_RULES_META_NAME to every frame while their
 * `zones` or `lines` is set, whose structure holds the two properties'
 * strings ("zones", "lines"; mvzones.h and mvlines.h parse them), so that
 * mvoverlay draws them wherever it sits downstream without being told
 * them again.
 */
#ifndef __GST_MV_RULES_META_H__
#define __GST_MV_RULES_META_H__

#include <gst/gst.h>

#include "mvstreaminfo.h"

G_BEGIN_DECLS

#define GST_MV_RULES_META_NAME "GstMvRulesMeta"

static inline const GstMetaInfo *
gst_mv_rules_meta_get_info (void)
{
  static const GstMetaInfo * info = NULL;

  if (g_once_init_enter (&info))
    g_once_init_leave (&info,
        gst_mv_custom_meta_get_info (GST_MV_RULES_META_NAME));
  return info;
}

/* The rules' structure of `buf`, or NULL: owned by the buffer. */
static inline const GstStructure *
gst_mv_rules_meta_get (GstBuffer * buf)
{
  GstCustomMeta * meta;

  gst_mv_rules_meta_get_info ();
  meta = gst_buffer_get_custom_meta (buf, GST_MV_RULES_META_NAME);
  return meta ? gst_custom_meta_get_structure (meta) : NULL;
}

G_END_DECLS

#endif /* __GST_MV_RULES_META_H__ */
