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
typedef enum {
  GST_POC_WINDOW_HANN = 0,
  GST_POC_WINDOW_NONE = 1,
} GstPocWindow;

GType gst_poc_window_get_type (void);
#define GST_TYPE_POC_WINDOW (gst_poc_window_get_type ())

G_END_DECLS

#endif /* __GST_POC_ME_H__ */
