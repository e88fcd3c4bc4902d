/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The elements' side of the kernels' backends: the backend and multi-GPU
 * enums, the CUDA device checks, active-backend, the element errors of a
 * failed matcher setup, and the kernel -> GStreamer log bridge.
 */
#ifndef __GST_MATCH_BACKEND_H__
#define __GST_MATCH_BACKEND_H__

#include <gst/gst.h>

G_BEGIN_DECLS

typedef enum
{
  GST_MATCH_BACKEND_AUTO = 0,
  GST_MATCH_BACKEND_CPU = 1,
  GST_MATCH_BACKEND_CUDA = 2,
} GstMatchBackend;

GType gst_match_backend_get_type (void);
#define GST_TYPE_MATCH_BACKEND (gst_match_backend_get_type ())

/* How several CUDA devices share the work (match::MultiGpuMode). */
typedef enum
{
  GST_MATCH_MULTI_GPU_PARALLEL = 0,
  GST_MATCH_MULTI_GPU_SERIAL = 1,
} GstMatchMultiGpu;

GType gst_match_multi_gpu_get_type (void);
#define GST_TYPE_MATCH_MULTI_GPU (gst_match_multi_gpu_get_type ())

/* Routes match::log() to the "match" debug category. Idempotent. */
void gst_match_install_log_bridge (void);

G_END_DECLS

#ifdef __cplusplus
#include <string>
#include <vector>

#include "match/common.h"
#include "match/status.h"

/* The backend property's value as the kernels' enum. */
match::Backend gst_match_backend_to_match (GstMatchBackend backend);

/* Sets an element's read-only `active-backend` string (`*field`, guarded
 * by the object lock) to `description` and notifies `pspec` when it
 * changed (outside the lock). */
void gst_match_set_active_backend (GstElement * element, gchar ** field,
    GParamSpec * pspec, const char * description);

/* For backend=cuda at start(): FALSE, with GST_ELEMENT_ERROR (RESOURCE,
 * NOT_FOUND) posted on `element`, when no CUDA device is usable here or
 * `device_id` is not one of them. */
gboolean gst_match_check_cuda_device (GstElement * element, gint device_id);
/* The same for every device of `devices`; the debug message says to set
 * `properties` ("device-id or devices"). */
gboolean gst_match_check_cuda_devices (GstElement * element,
    const std::vector<int> & devices, const char * properties);

/* What a failed matcher setup (create, probe, reconfigure) says to the
 * user, one message for each kind of failure; each element words its own
 * (the computation, the frame size, the settings). */
struct GstMatchSetupMessages
{
  std::string unavailable; /* no usable backend */
  std::string invalid;     /* settings the backend rejects */
  std::string no_memory;   /* out of (host or device) memory */
  std::string failed;      /* anything else */
};

/* Posts on `element` the error of a matcher setup of the computation
 * `what` ("block matching", "stereo matching") that failed with `status`:
 * kUnavailable -> RESOURCE/NOT_FOUND, kInvalidArgument ->
 * RESOURCE/SETTINGS, kOutOfMemory -> RESOURCE/NO_SPACE_LEFT, anything
 * else -> LIBRARY/INIT, with the matching user message of `messages` and
 * the status's message as the debug message. */
void gst_match_post_setup_error (GstElement * element, const char * what,
    const GstMatchSetupMessages & messages, const match::Status & status);

/* g_strdup_printf into a std::string. */
std::string gst_match_printf (const char * format, ...) G_GNUC_PRINTF (1, 2);
#endif

#endif /* __GST_MATCH_BACKEND_H__ */
