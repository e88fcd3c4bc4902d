/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_POC_ME_H__
#define __GST_POC_ME_H__

#include <gst/gst.h>
#include <gst/video/video.h>
#include "common/gstmatchfilter.h"

G_BEGIN_DECLS

#define GST_TYPE_POC_ME (gst_poc_me_get_type ())
G_DECLARE_FINAL_TYPE (GstPocMe, gst_poc_me, GST, POC_ME, GstMatchFilter)

GST_ELEMENT_REGISTER_DECLARE (pocme);

/**
 * GstPocWindow:
 * @GST_POC_WINDOW_HANN: separable Hann (Hanning) window (default).
 * @GST_POC_WINDOW_NONE: rectangular window (no weighting).
 *
 * Weighting applied to each POC window before its FFT (match::PocWindow).
 */
typedef enum
{
  GST_POC_WINDOW_HANN = 0,
  GST_POC_WINDOW_NONE = 1,
} GstPocWindow;

GType gst_poc_window_get_type (void);
#define GST_TYPE_POC_WINDOW (gst_poc_window_get_type ())

/**
 * GstPocCoarse:
 * @GST_POC_COARSE_PER_BLOCK: every block searches its own coarser layers
 *   (default; the only mode of the CUDA backend).
 * @GST_POC_COARSE_SHARED: the coarser layers are searched once on a block
 *   grid of their own (same spacing in their pixels); each finer block is
 *   predicted from the coarser block that contains it.
 * @GST_POC_COARSE_SHARED_MEDIAN: as shared, with the prediction the
 *   per-component median of the 3x3 coarser blocks around that one.
 *
 * Where the coarser layers' POCs run (match::PocCoarse).
 */
typedef enum
{
  GST_POC_COARSE_PER_BLOCK = 0,
  GST_POC_COARSE_SHARED = 1,
  GST_POC_COARSE_SHARED_MEDIAN = 2,
} GstPocCoarse;

GType gst_poc_coarse_get_type (void);
#define GST_TYPE_POC_COARSE (gst_poc_coarse_get_type ())

G_END_DECLS

#endif /* __GST_POC_ME_H__ */
