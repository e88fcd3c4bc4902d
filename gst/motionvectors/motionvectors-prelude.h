/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifndef __GST_MOTION_VECTORS_PRELUDE_H__
#define __GST_MOTION_VECTORS_PRELUDE_H__

#include <gst/gst.h>

#ifndef GST_MOTION_VECTORS_API
# ifdef BUILDING_GST_MOTION_VECTORS
#  define GST_MOTION_VECTORS_API GST_API_EXPORT
# else
#  define GST_MOTION_VECTORS_API GST_API_IMPORT
# endif
#endif

#endif /* __GST_MOTION_VECTORS_PRELUDE_H__ */
