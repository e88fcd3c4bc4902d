/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchbackend.h"

#include <cstring>

#include "common/gstmatchheld.h"
#include "common/gstmatchsettings.h"
#include "match/log.h"

GST_DEBUG_CATEGORY_STATIC (match_debug);

#define DEFAULT_PROP_BACKEND GST_MATCH_BACKEND_AUTO
#define DEFAULT_PROP_DEVICE_ID 0
#define DEFAULT_PROP_N_THREADS 0
#define DEFAULT_PROP_PIPELINE_DEPTH 0
#define DEFAULT_PROP_DEVICES ""
#define DEFAULT_PROP_MULTI_GPU GST_MATCH_MULTI_GPU_PARALLEL

/* CUDA device ordinals accepted by device-id and devices. */
#define MAX_DEVICE_ORDINAL 63
#define MAX_N_THREADS 256
/* The set's fields in the element's settings. */
#define SETTING(field)                                                         \
  (offset + G_STRUCT_OFFSET (GstMatchBackendSettings, field))

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
gst_match_backend_install_properties (GObjectClass * klass, guint first_id,
    gsize offset, gboolean multi_gpu)
{
  const GParamFlags rw_playing = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_PLAYING);
  const GParamFlags rw_ready = (GParamFlags) (G_PARAM_READWRITE
      | G_PARAM_STATIC_STRINGS | GST_PARAM_MUTABLE_READY);

  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_BACKEND, (GstPluginAPIFlags) 0);
  gst_match_settings_install (klass, first_id + GST_MATCH_BACKEND_PROP_BACKEND,
      SETTING (backend),
      g_param_spec_enum ("backend", "Backend",
          "Compute backend: auto picks CUDA when a device opens and the "
          "element has a CUDA implementation, else CPU",
          GST_TYPE_MATCH_BACKEND, DEFAULT_PROP_BACKEND, rw_ready));
  gst_match_settings_install (klass,
      first_id + GST_MATCH_BACKEND_PROP_DEVICE_ID, SETTING (device_id),
      g_param_spec_int ("device-id", "CUDA device",
          multi_gpu ? "CUDA device ordinal used by backend=cuda/auto when "
                      "'devices' is "
                      "empty"
                    : "CUDA device ordinal used by backend=cuda/auto",
          0, MAX_DEVICE_ORDINAL, DEFAULT_PROP_DEVICE_ID, rw_ready));
  gst_match_settings_install (klass,
      first_id + GST_MATCH_BACKEND_PROP_N_THREADS, SETTING (n_threads),
      g_param_spec_uint ("n-threads", "Threads",
          "CPU worker threads (0 = automatic: the process's cores shared "
          "among its CPU matchers, fewer while other load holds them)",
          0, MAX_N_THREADS, DEFAULT_PROP_N_THREADS, rw_playing));
  gst_match_settings_install (klass,
      first_id + GST_MATCH_BACKEND_PROP_PIPELINE_DEPTH,
      SETTING (pipeline_depth),
      g_param_spec_uint ("pipeline-depth", "Pipeline depth",
          multi_gpu ? "Inputs held while the backend works on them (0 = "
                      "synchronous): "
                      "outputs leave this many inputs late, with the same "
                      "results, so "
                      "that the CUDA backend overlaps uploads with computing "
                      "(multi-gpu=serial on CUDA holds at least devices - 1). "
                      "Added to "
                      "the reported latency"
                    : "Inputs held while the backend works on them (0 = "
                      "synchronous): "
                      "outputs leave this many inputs late, with the same "
                      "results, so "
                      "that the CUDA backend overlaps uploads with computing. "
                      "Added to "
                      "the reported latency",
          0, GST_MATCH_MAX_PIPELINE_DEPTH, DEFAULT_PROP_PIPELINE_DEPTH,
          rw_playing));
  g_object_class_install_property (klass,
      first_id + GST_MATCH_BACKEND_PROP_ACTIVE_BACKEND,
      g_param_spec_string ("active-backend", "Active backend",
          "The backend and device(s) in use, e.g. \"cpu (avx2, 16 threads)\" "
          "or \"cuda:0 (...)\"; NULL until the first caps after start",
          NULL, (GParamFlags) (G_PARAM_READABLE | G_PARAM_STATIC_STRINGS)));
  if (!multi_gpu)
    return;
  gst_type_mark_as_plugin_api (GST_TYPE_MATCH_MULTI_GPU, (GstPluginAPIFlags) 0);
  g_object_class_install_property (klass,
      first_id + GST_MATCH_BACKEND_PROP_DEVICES,
      g_param_spec_string ("devices", "CUDA devices",
          "Comma-separated CUDA device ordinals (0..63) to share the work, "
          "e.g. \"0,1\"; empty = device-id only. A malformed list fails at "
          "start with a settings error",
          DEFAULT_PROP_DEVICES, rw_ready));
  gst_match_settings_install (klass,
      first_id + GST_MATCH_BACKEND_PROP_MULTI_GPU, SETTING (multi_gpu),
      g_param_spec_enum ("multi-gpu", "Multi-GPU mode",
          "How several devices share the work: parallel = the block rows "
          "of each frame pair spread over the devices; serial = successive "
          "frame pairs on successive devices (holds at least one frame per "
          "extra device, see pipeline-depth)",
          GST_TYPE_MATCH_MULTI_GPU, DEFAULT_PROP_MULTI_GPU, rw_ready));
}

gboolean
gst_match_backend_set_string (GstMatchBackendStrings * strings,
    GParamSpec * pspec, const GValue * value)
{
  /* Kept as given; checked at start (see parse_devices). */
  if (strcmp (pspec->name, "devices") != 0)
    return FALSE;
  g_free (strings->devices);
  strings->devices = g_value_dup_string (value);
  return TRUE;
}

gboolean
gst_match_backend_get_string (const GstMatchBackendStrings * strings,
    GParamSpec * pspec, GValue * value)
{
  if (strcmp (pspec->name, "devices") == 0)
    g_value_set_string (value, strings->devices);
  else if (strcmp (pspec->name, "active-backend") == 0)
    g_value_set_string (value, strings->active_backend);
  else
    return FALSE;
  return TRUE;
}

/* Parses `devices`: comma-separated decimal ordinals 0..MAX_DEVICE_ORDINAL,
 * blanks around them allowed; an empty (or all-blank) string gives an
 * empty list. A device may be listed twice (the backend then runs two
 * shares on it, which tests use to exercise the multi-GPU paths on one GPU).
 * On error returns FALSE with a message in *error. */
static gboolean
parse_devices (const gchar * str, std::vector<int> * out, std::string * error)
{
  out->clear ();
  if (!str)
    return TRUE;
  gchar * all = g_strstrip (g_strdup (str));
  gboolean ok = TRUE;

  if (*all) {
    gchar ** items = g_strsplit (all, ",", -1);
    for (gchar ** it = items; *it && ok; ++it) {
      const gchar * item = g_strstrip (*it);
      guint64 v = 0;
      GError * err = NULL;
      if (!g_ascii_string_to_unsigned (item, 10, 0, MAX_DEVICE_ORDINAL, &v,
              &err)) {
        *error = std::string ("\"") + item
            + "\" is not a device ordinal "
              "in 0.." G_STRINGIFY (MAX_DEVICE_ORDINAL) " ("
            + err->message + ")";
        g_error_free (err);
        ok = FALSE;
      } else {
        out->push_back ((int) v);
      }
    }
    g_strfreev (items);
  }
  g_free (all);
  return ok;
}

static gchar *
dup_devices (GstElement * element, const GstMatchBackendStrings * strings)
{
  GST_OBJECT_LOCK (element);
  gchar * devices = g_strdup (strings->devices);
  GST_OBJECT_UNLOCK (element);
  return devices;
}

gboolean
gst_match_backend_device_options (GstElement * element,
    const GstMatchBackendSettings & s, const GstMatchBackendStrings * strings,
    match::DeviceOptions * opts)
{
  gchar * devices = dup_devices (element, strings);
  std::string error;

  if (!parse_devices (devices, &opts->devices, &error)) {
    GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
        ("Invalid 'devices' list \"%s\": expected comma-separated CUDA "
         "device ordinals such as \"0,1\"",
            devices),
        ("%s", error.c_str ()));
    g_free (devices);
    return FALSE;
  }
  g_free (devices);
  if (opts->devices.empty ())
    opts->devices.push_back (s.device_id);
  opts->mode = s.multi_gpu == GST_MATCH_MULTI_GPU_SERIAL
      ? match::MultiGpuMode::kSerial
      : match::MultiGpuMode::kParallel;
  return TRUE;
}

gint
gst_match_backend_first_device (GstElement * element,
    const GstMatchBackendSettings & s, const GstMatchBackendStrings * strings)
{
  gchar * devices = dup_devices (element, strings);
  std::vector<int> list;
  std::string error;
  gint device = s.device_id;

  if (parse_devices (devices, &list, &error) && !list.empty ())
    device = list[0];
  g_free (devices);
  return device;
}

/* backend=cuda at start(): FALSE, with GST_ELEMENT_ERROR (RESOURCE,
 * NOT_FOUND) posted on `element`, when no CUDA device is usable here or one
 * of `devices` is not one of them. */
static gboolean
check_cuda_devices (GstElement * element, const std::vector<int> & devices)
{
  const gboolean have_list =
      g_object_class_find_property (G_OBJECT_GET_CLASS (element), "devices")
      != NULL;

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
              have_list ? "device-id or devices" : "device-id"));
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_match_backend_start (GstElement * element, const char * what,
    const GstMatchBackendSettings & s, GstMatchBackendStrings * strings,
    const match::DeviceOptions & devices,
    const std::function<match::Status ()> & probe)
{
  if (s.backend == GST_MATCH_BACKEND_CUDA) {
    if (!check_cuda_devices (element, devices.devices))
      return FALSE;
    /* CUDA may be there without this element's CUDA implementation: find
     * out now, at the state change, rather than at the first caps. */
    const match::Status status = probe ();
    if (!status) {
      gst_match_backend_post_setup_error (element, what, s.backend, 0, 0,
          status);
      return FALSE;
    }
  } else if (s.backend == GST_MATCH_BACKEND_AUTO
      && match::backend_available (match::Backend::kCuda)) {
    const int count = match::cuda_device_count ();
    for (int d : devices.devices)
      if (d >= count)
        GST_WARNING_OBJECT (element,
            "CUDA device %d does not exist (%d "
            "devices): backend=auto will use the CPU",
            d, count);
  }
  GST_OBJECT_LOCK (element);
  g_clear_pointer (&strings->active_backend, g_free);
  GST_OBJECT_UNLOCK (element);
  return TRUE;
}

void
gst_match_backend_set_active (GstElement * element,
    GstMatchBackendStrings * strings, const char * description)
{
  GST_OBJECT_LOCK (element);
  const gboolean changed =
      g_strcmp0 (strings->active_backend, description) != 0;
  if (changed) {
    g_free (strings->active_backend);
    strings->active_backend = g_strdup (description);
  }
  GST_OBJECT_UNLOCK (element);
  if (changed)
    g_object_notify (G_OBJECT (element), "active-backend");
}

/* The qdata of a pspec marked by gst_match_property_set_field(). */
static GQuark
field_quark (void)
{
  static GQuark quark = g_quark_from_static_string ("gst-match-field");
  return quark;
}

void
gst_match_property_set_field (GParamSpec * pspec, const char * field)
{
  g_param_spec_set_qdata (pspec, field_quark (), (gpointer) field);
}

/* The property of `element` that sets the kernels' field `field`: one
 * marked for it, else the one named after it ('-' for '_'); NULL when
 * none. */
static GParamSpec *
property_for_field (GstElement * element, const std::string & field)
{
  GObjectClass * klass = G_OBJECT_GET_CLASS (element);
  guint n = 0;
  GParamSpec ** pspecs = g_object_class_list_properties (klass, &n);
  GParamSpec * found = NULL;

  for (guint i = 0; i < n && !found; i++) {
    const char * marked =
        (const char *) g_param_spec_get_qdata (pspecs[i], field_quark ());
    if (marked && field == marked)
      found = pspecs[i];
  }
  g_free (pspecs);
  if (!found && !field.empty ()) {
    std::string name = field;
    for (char & c : name)
      if (c == '_')
        c = '-';
    found = g_object_class_find_property (klass, name.c_str ());
  }
  return found;
}

/* "cost-window=4": a readable property and its current value. */
static std::string
describe_setting (GstElement * element, GParamSpec * pspec)
{
  GValue v = G_VALUE_INIT;

  g_value_init (&v, G_PARAM_SPEC_VALUE_TYPE (pspec));
  g_object_get_property (G_OBJECT (element), pspec->name, &v);
  gchar * str = gst_value_serialize (&v);
  g_value_unset (&v);
  std::string ret = std::string (pspec->name) + "=" + (str ? str : "?");
  g_free (str);
  return ret;
}

void
gst_match_backend_post_setup_error (GstElement * element, const char * what,
    GstMatchBackend backend, int width, int height,
    const match::Status & status)
{
  const std::string size = width > 0 && height > 0
      ? gst_match_printf (" for %dx%d", width, height)
      : "";
  const char * debug = status.message ().c_str ();

  GST_DEBUG_OBJECT (element, "setting up %s failed: %s", what, debug);
  switch (status.code ()) {
    case match::StatusCode::kUnavailable:
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
          ("backend=%s: no usable %s backend (the CUDA device(s) could not "
           "be used)",
              match::backend_name (gst_match_backend_to_match (backend)), what),
          ("%s", debug));
      break;
    case match::StatusCode::kInvalidArgument: {
      /* The kernels name the setting; the user message names the
       * property that sets it. */
      GParamSpec * pspec = property_for_field (element, status.field ());
      if (pspec)
        GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
            ("Invalid %s%s: %s", describe_setting (element, pspec).c_str (),
                size.c_str (), debug),
            ("%s setting %s", what, status.field ().c_str ()));
      else
        GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
            ("Invalid %s settings%s", what, size.c_str ()), ("%s", debug));
      break;
    }
    case match::StatusCode::kOutOfMemory:
      GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
          ("Not enough memory for %s%s", what, size.c_str ()), ("%s", debug));
      break;
    default:
      GST_ELEMENT_ERROR (element, LIBRARY, INIT,
          ("Could not set up %s%s", what, size.c_str ()), ("%s", debug));
      break;
  }
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
