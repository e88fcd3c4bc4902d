/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The elements' side of the kernels' backends, once for every matching
 * element (GstMatchFilter, so blockmatchme and pocme; stereodisparity):
 *
 * - the backend property set: backend, device-id, n-threads,
 *   pipeline-depth, active-backend and, for a matcher that shares its work
 *   over several GPUs, devices and multi-gpu; the same names, ranges,
 *   defaults and wording on every element;
 * - the `devices` list and the device options it gives the kernels;
 * - the start probe: with backend=cuda a missing device or a missing CUDA
 *   implementation fails the state change, not the first caps;
 * - the element errors of a failed matcher setup (match::Status to
 *   GstResourceError/GstLibraryError), naming the property behind the
 *   kernels' Status::field();
 * - the kernel -> GStreamer log bridge.
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

/* The values of the backend property set, a member of the element's plain
 * settings struct (common/gstmatchsettings.h): read under the object lock,
 * used unlocked. */
typedef struct
{
  GstMatchBackend backend;
  gint device_id;
  guint n_threads;
  guint pipeline_depth;
  GstMatchMultiGpu multi_gpu; /* PARALLEL where not installed */
} GstMatchBackendSettings;

/* The set's property ids, counted from the first id the element gives
 * gst_match_backend_install_properties(). */
enum
{
  GST_MATCH_BACKEND_PROP_BACKEND,
  GST_MATCH_BACKEND_PROP_DEVICE_ID,
  GST_MATCH_BACKEND_PROP_N_THREADS,
  GST_MATCH_BACKEND_PROP_PIPELINE_DEPTH,
  GST_MATCH_BACKEND_PROP_ACTIVE_BACKEND,
  GST_MATCH_BACKEND_PROP_DEVICES,
  GST_MATCH_BACKEND_PROP_MULTI_GPU,
  GST_MATCH_BACKEND_N_PROPS
};

/* class_init: installs the set as property ids first_id ..
 * first_id + GST_MATCH_BACKEND_N_PROPS - 1, its values kept in the
 * GstMatchBackendSettings at byte `offset` of the element's settings
 * struct. `multi_gpu`: the matcher can share its work over several GPUs,
 * so devices and multi-gpu are installed too (else the device is
 * device-id alone). */
void gst_match_backend_install_properties (GObjectClass * klass, guint first_id,
    gsize offset, gboolean multi_gpu);

/* Routes match::log() to the "match" debug category. Idempotent. */
void gst_match_install_log_bridge (void);

G_END_DECLS

#ifdef __cplusplus
#include <functional>
#include <string>
#include <vector>

#include "match/common.h"
#include "match/status.h"

/* The set's strings, beside the plain settings: guarded by the element's
 * object lock. */
struct GstMatchBackendStrings
{
  gchar * devices = g_strdup (""); /* as set; parsed at start, at caps */
  gchar * active_backend = nullptr;

  GstMatchBackendStrings () = default;
  GstMatchBackendStrings (const GstMatchBackendStrings &) = delete;
  GstMatchBackendStrings & operator= (const GstMatchBackendStrings &) = delete;
  ~GstMatchBackendStrings ()
  {
    g_free (devices);
    g_free (active_backend);
  }
};

/* set_property / get_property of the set's string properties (devices,
 * active-backend), object lock held: FALSE when `pspec` is not one. */
gboolean gst_match_backend_set_string (GstMatchBackendStrings * strings,
    GParamSpec * pspec, const GValue * value);
gboolean gst_match_backend_get_string (const GstMatchBackendStrings * strings,
    GParamSpec * pspec, GValue * value);

/* The backend property's value as the kernels' enum. */
match::Backend gst_match_backend_to_match (GstMatchBackend backend);

/* The devices for the kernels: the `devices` list (read under the object
 * lock of `element`), else device-id, and the multi-GPU mode. Posts
 * RESOURCE/SETTINGS on `element` and returns FALSE when the list is
 * malformed. */
gboolean gst_match_backend_device_options (GstElement * element,
    const GstMatchBackendSettings & s, const GstMatchBackendStrings * strings,
    match::DeviceOptions * opts);

/* The CUDA device whose primary context the element works in: the first of
 * `devices`, else device-id (a malformed list falls back to device-id here;
 * gst_match_backend_device_options() reports it). */
gint gst_match_backend_first_device (GstElement * element,
    const GstMatchBackendSettings & s, const GstMatchBackendStrings * strings);

/* start() of every matching element, once the devices are known: with
 * backend=cuda, FALSE (with the error posted on `element`) when a device
 * does not exist or `probe` (a matcher made on them) fails, so that a
 * missing CUDA implementation fails the state change rather than the first
 * caps; with backend=auto, devices that do not exist are logged (auto will
 * use the CPU). `what` names the computation ("block matching"). Clears
 * active-backend. */
gboolean gst_match_backend_start (GstElement * element, const char * what,
    const GstMatchBackendSettings & s, GstMatchBackendStrings * strings,
    const match::DeviceOptions & devices,
    const std::function<match::Status ()> & probe);

/* Sets active-backend (`strings`, the object lock of `element`) to
 * `description` and notifies it when it changed (outside the lock). */
void gst_match_backend_set_active (GstElement * element,
    GstMatchBackendStrings * strings, const char * description);

/* Marks `pspec` (before installing it) as the property that sets the
 * kernels' configuration field `field`, where its name is not `field` with
 * '-' for '_' (block-width sets block_width by that rule; search-range-x
 * sets range_x by this mark). */
void gst_match_property_set_field (GParamSpec * pspec, const char * field);

/* Posts on `element` the error of a matcher setup (start, create,
 * reconfigure) of the computation `what` ("block matching", "stereo
 * matching") that failed with `status`: kUnavailable ->
 * RESOURCE/NOT_FOUND, kInvalidArgument -> RESOURCE/SETTINGS (naming the
 * property behind status.field() and its value, when the element has
 * one), kOutOfMemory -> RESOURCE/NO_SPACE_LEFT, anything else ->
 * LIBRARY/INIT; the status's message as the debug message. `width` and
 * `height` (0 when there is no frame size yet) complete the messages. */
void gst_match_backend_post_setup_error (GstElement * element,
    const char * what, GstMatchBackend backend, int width, int height,
    const match::Status & status);

/* g_strdup_printf into a std::string. */
std::string gst_match_printf (const char * format, ...) G_GNUC_PRINTF (1, 2);
#endif

#endif /* __GST_MATCH_BACKEND_H__ */
