/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_BLOCK_MATCH_ME_H__
#define __GST_BLOCK_MATCH_ME_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include "common/gstmatchfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_BLOCK_MATCH_ME (gst_block_match_me_get_type ())
G_DECLARE_FINAL_TYPE (GstBlockMatchMe, gst_block_match_me, GST, BLOCK_MATCH_ME,
    GstMatchFilter)

GST_ELEMENT_REGISTER_DECLARE (blockmatchme);

/* Sub-pixel candidate grid. Values are steps per pixel. */
typedef enum
{
  GST_BLOCK_MATCH_ME_SUBPIXEL_INTEGER = 1,
  GST_BLOCK_MATCH_ME_SUBPIXEL_HALF = 2,
  GST_BLOCK_MATCH_ME_SUBPIXEL_QUARTER = 4,
} GstBlockMatchMeSubpixel;

typedef enum
{
  GST_BLOCK_MATCH_ME_METHOD_FULL = 0,
  GST_BLOCK_MATCH_ME_METHOD_HIERARCHICAL = 1,
  GST_BLOCK_MATCH_ME_METHOD_THREE_STEP = 2,
  GST_BLOCK_MATCH_ME_METHOD_DIAMOND = 3,
  GST_BLOCK_MATCH_ME_METHOD_HEXAGON = 4,
  GST_BLOCK_MATCH_ME_METHOD_PREDICTIVE = 5,
} GstBlockMatchMeMethod;

G_END_DECLS

#endif /* __GST_BLOCK_MATCH_ME_H__ */
