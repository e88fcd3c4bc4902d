/* SPDX-License-Identifier: LGPL-2.1-or-later
 * TEMPORARY placeholder, being replaced. */
#include "mvwriter.h"
gboolean gst_mv_write_flo (FILE *, const GstMotionVectorsMeta *) { return FALSE; }
gchar *gst_mv_meta_to_json (const GstMotionVectorsMeta *, guint64, GstClockTime) { return g_strdup ("{}"); }
