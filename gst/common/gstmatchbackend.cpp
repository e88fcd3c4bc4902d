/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchbackend.h"

#include "match/log.h"

GST_DEBUG_CATEGORY_STATIC (match_debug);

GType
gst_match_backend_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_MATCH_BACKEND_AUTO, "CUDA when a device opens, else CPU", "auto" },
    { GST_MATCH_BACKEND_CPU, "CPU (OpenMP, SIMD)", "cpu" },
    { GST_MATCH_BACKEND_CUDA, "CUDA (fails to start without a device)",
        "cuda" },
    { 0, NULL, NULL }
  };

  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMatchBackend", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

GType
gst_match_multi_gpu_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    { GST_MATCH_MULTI_GPU_PARALLEL,
        "The block rows of each frame pair spread over the devices",
        "parallel" },
    { GST_MATCH_MULTI_GPU_SERIAL,
        "Successive frame pairs on successive devices (needs frames in "
        "flight)",
        "serial" },
    { 0, NULL, NULL }
  };

  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMatchMultiGpu", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

static void
log_to_gst (match::LogLevel level, const char * message, void *)
{
  GstDebugLevel gl = GST_LEVEL_DEBUG;
  switch (level) {
    case match::LogLevel::kError:
      gl = GST_LEVEL_ERROR;
      break;
    case match::LogLevel::kWarning:
      gl = GST_LEVEL_WARNING;
      break;
    case match::LogLevel::kInfo:
      gl = GST_LEVEL_INFO;
      break;
    case match::LogLevel::kDebug:
      gl = GST_LEVEL_DEBUG;
      break;
  }
  GST_CAT_LEVEL_LOG (match_debug, gl, NULL, "%s", message);
}

void
gst_match_install_log_bridge (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (match_debug, "match", 0,
        "gst-motion compute kernels");
    match::set_log_handler (log_to_gst, nullptr);
    g_once_init_leave (&done, 1);
  }
}

match::Backend
gst_match_backend_to_match (GstMatchBackend b)
{
  switch (b) {
    case GST_MATCH_BACKEND_CPU:
      return match::Backend::kCpu;
    case GST_MATCH_BACKEND_CUDA:
      return match::Backend::kCuda;
    case GST_MATCH_BACKEND_AUTO:
    default:
      return match::Backend::kAuto;
  }
}

void
gst_match_set_active_backend (GstElement * element, gchar ** field,
    GParamSpec * pspec, const char * description)
{
  GST_OBJECT_LOCK (element);
  const gboolean changed = g_strcmp0 (*field, description) != 0;
  if (changed) {
    g_free (*field);
    *field = g_strdup (description);
  }
  GST_OBJECT_UNLOCK (element);
  if (changed)
    g_object_notify_by_pspec (G_OBJECT (element), pspec);
}

gboolean
gst_match_check_cuda_devices (GstElement * element,
    const std::vector<int> & devices, const char * properties)
{
  if (!match::backend_available (match::Backend::kCuda)) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("backend=cuda was requested but no CUDA device is available"),
        ("this build has no CUDA backend, or no CUDA device could be "
         "opened; use backend=auto or backend=cpu"));
    return FALSE;
  }
  const int count = match::cuda_device_count ();
  for (int d : devices) {
    if (d >= count) {
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
          ("backend=cuda: CUDA device %d does not exist", d),
          ("%d CUDA device(s) here (ordinals 0..%d); set %s", count, count - 1,
              properties));
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_match_check_cuda_device (GstElement * element, gint device_id)
{
  return gst_match_check_cuda_devices (element, { device_id }, "device-id");
}

std::string
gst_match_printf (const char * format, ...)
{
  va_list args;

  va_start (args, format);
  gchar * s = g_strdup_vprintf (format, args);
  va_end (args);
  std::string ret (s);
  g_free (s);
  return ret;
}

void
gst_match_post_setup_error (GstElement * element, const char * what,
    const GstMatchSetupMessages & messages, const match::Status & status)
{
  GST_DEBUG_OBJECT (element, "setting up %s failed: %s", what,
      status.message ().c_str ());
  switch (status.code ()) {
    case match::StatusCode::kUnavailable:
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
          ("%s", messages.unavailable.c_str ()),
          ("%s", status.message ().c_str ()));
      break;
    case match::StatusCode::kInvalidArgument:
      GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
          ("%s", messages.invalid.c_str ()),
          ("%s", status.message ().c_str ()));
      break;
    case match::StatusCode::kOutOfMemory:
      GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
          ("%s", messages.no_memory.c_str ()),
          ("%s", status.message ().c_str ()));
      break;
    default:
      GST_ELEMENT_ERROR (element, LIBRARY, INIT,
          ("%s", messages.failed.c_str ()), ("%s", status.message ().c_str ()));
      break;
  }
}
