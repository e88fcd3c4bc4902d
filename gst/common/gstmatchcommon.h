/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The elements' shared glue, one header per concern; this one includes
 * them all for the files that still include it (mvoverlay):
 * - gstmatchbackend.h: backend enums, CUDA device checks, setup errors,
 *   the kernel log bridge;
 * - gstmatchframe.h: the video formats, a frame's luma as a kernel view;
 * - gstmatchmeta.h: GstMotionVectorsMeta from kernel vectors, draw modes.
 * New code includes the header of its concern.
 */
#ifndef __GST_MATCH_COMMON_H__
#define __GST_MATCH_COMMON_H__

#include "common/gstmatchbackend.h"
#include "common/gstmatchframe.h"
#include "common/gstmatchmeta.h"

#endif /* __GST_MATCH_COMMON_H__ */
