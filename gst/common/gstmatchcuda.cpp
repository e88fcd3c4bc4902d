/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * CUDA memory for the motion elements; the scheme is explained in
 * gstmatchcuda.h and docs/cuda-memory.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchcuda.h"

#include "match/blockmatch.h"

#ifdef HAVE_GST_CUDA
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudamemory.h>
#include <gst/cuda/gstcudautils.h>
#endif

GST_DEBUG_CATEGORY_STATIC (match_cuda_debug);
#define GST_CAT_DEFAULT match_cuda_debug

static void
init_debug (void)
{
  static gsize done = 0;

  if (g_once_init_enter (&done)) {
    GST_DEBUG_CATEGORY_INIT (match_cuda_debug, "matchcuda", 0,
        "gst-motion: CUDA memory and context sharing");
    g_once_init_leave (&done, 1);
  }
}

struct _GstMatchCuda
{
  GMutex lock;
#ifdef HAVE_GST_CUDA
  GstCudaContext * context; /* offered to neighbours; may be NULL */
#endif
  gpointer primary; /* CUcontext of `device`'s primary context */
  gint device;      /* -1: none */
  gboolean logged_host_path;
  gboolean logged_foreign;
};

GstMatchCuda *
gst_match_cuda_new (void)
{
  GstMatchCuda * cuda = g_new0 (GstMatchCuda, 1);

  init_debug ();
  g_mutex_init (&cuda->lock);
  cuda->device = -1;
  return cuda;
}

void
gst_match_cuda_free (GstMatchCuda * cuda)
{
  if (!cuda)
    return;
  gst_match_cuda_close (cuda);
  g_mutex_clear (&cuda->lock);
  g_free (cuda);
}

gboolean
gst_match_caps_have_cuda_memory (const GstCaps * caps)
{
  if (!caps || gst_caps_is_any (caps))
    return FALSE;
  for (guint i = 0; i < gst_caps_get_size (caps); ++i) {
    GstCapsFeatures * f = gst_caps_get_features (caps, i);
    if (f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, GST_MATCH_CAPS_FEATURE_CUDA_MEMORY))
      return TRUE;
  }
  return FALSE;
}

GstCaps *
gst_match_cuda_filter_caps (GstCaps * caps, gboolean keep_cuda_memory)
{
  if (keep_cuda_memory || !gst_match_caps_have_cuda_memory (caps))
    return caps;
  caps = gst_caps_make_writable (caps);
  for (gint i = (gint) gst_caps_get_size (caps) - 1; i >= 0; --i) {
    GstCapsFeatures * f = gst_caps_get_features (caps, i);
    if (f && !gst_caps_features_is_any (f)
        && gst_caps_features_contains (f, GST_MATCH_CAPS_FEATURE_CUDA_MEMORY))
      gst_caps_remove_structure (caps, i);
  }
  return caps;
}

gboolean
gst_match_cuda_memory_allowed (GstMatchBackend backend, gint device)
{
  return backend != GST_MATCH_BACKEND_CPU
      && gst_match_cuda_memory_usable (device);
}

GstStateChangeReturn
gst_match_cuda_change_state (GstMatchCuda * cuda, GstElement * element,
    GstStateChange transition, GstElementClass * parent_class,
    GstMatchCudaDeviceFunc device_func)
{
  if (transition == GST_STATE_CHANGE_NULL_TO_READY) {
    const gint device = device_func (element);
    if (device >= 0)
      gst_match_cuda_open (cuda, element, device);
  }
  const GstStateChangeReturn ret =
      parent_class->change_state (element, transition);
  if (transition == GST_STATE_CHANGE_READY_TO_NULL
      || (transition == GST_STATE_CHANGE_NULL_TO_READY
          && ret == GST_STATE_CHANGE_FAILURE))
    gst_match_cuda_close (cuda);
  return ret;
}

#ifdef HAVE_GST_CUDA

gboolean
gst_match_cuda_memory_usable (gint device)
{
  static gsize loaded = 0;

  /* gstcudaloader opens libcuda.so.1 with g_module_open(): FALSE on a
   * machine without the NVIDIA driver, and no gstcuda call that reaches
   * the driver may be made then (its Cu* wrappers assert). */
  if (g_once_init_enter (&loaded)) {
    init_debug ();
    gsize ok = gst_cuda_load_library () ? 2 : 1;
    if (ok == 1)
      GST_INFO ("gstcuda could not load the CUDA driver library: "
                "CUDA memory is not offered (system memory only)");
    g_once_init_leave (&loaded, ok);
  }
  return loaded == 2 && device >= 0 && device < match::cuda_device_count ();
}

void
gst_match_cuda_open (GstMatchCuda * cuda, GstElement * element, gint device)
{
  if (!gst_match_cuda_memory_usable (device))
    return;

  g_mutex_lock (&cuda->lock);
  const gboolean same = cuda->primary && cuda->device == device;
  g_mutex_unlock (&cuda->lock);
  if (same)
    return;

  /* The context the CUDA backend's runtime calls run in on `device`. */
  gpointer primary = match::cuda_primary_context (device);
  if (!primary) {
    GST_INFO_OBJECT (element,
        "no primary context on CUDA device %d: CUDA "
        "memory will be downloaded",
        device);
    gst_match_cuda_close (cuda);
    return;
  }

  GstCudaContext * offer = NULL;
  gboolean created = FALSE;
  /* A context set on us earlier (by the application on the pipeline, or a
   * bin) wins, as gst_cuda_handle_set_context() would have it; it is only
   * the zero-copy one when it wraps the same primary context. */
  GstContext * given = gst_element_get_context (element, GST_CUDA_CONTEXT_TYPE);
  if (given) {
    GstCudaContext * other = NULL;
    if (gst_structure_get (gst_context_get_structure (given),
            GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &other, NULL)
        && other) {
      if (gst_cuda_context_get_handle (other) == primary) {
        offer = other;
      } else {
        GST_INFO_OBJECT (element,
            "the pipeline's CUDA context %" GST_PTR_FORMAT
            " is not CUDA device %d's primary context: frames "
            "allocated in it are downloaded (docs/cuda-memory.md)",
            other, device);
        gst_object_unref (other);
      }
    }
    gst_context_unref (given);
  } else {
    CUdevice cudev = 0;
    /* cuInit() already ran (the runtime did it for the primary context);
     * calling it again is harmless and makes the order explicit. */
    if (CuInit (0) == CUDA_SUCCESS
        && CuDeviceGet (&cudev, device) == CUDA_SUCCESS)
      offer = gst_cuda_context_new_wrapped ((CUcontext) primary, cudev);
    if (!offer)
      GST_WARNING_OBJECT (element,
          "could not wrap CUDA device %d's primary "
          "context: CUDA memory will be downloaded",
          device);
    created = offer != NULL;
  }

  g_mutex_lock (&cuda->lock);
  gst_clear_object (&cuda->context);
  cuda->context = offer ? GST_CUDA_CONTEXT (gst_object_ref (offer)) : NULL;
  cuda->primary = primary;
  cuda->device = device;
  g_mutex_unlock (&cuda->lock);

  if (created) {
    GstContext * context = gst_context_new_cuda_context (offer);
    GST_INFO_OBJECT (element,
        "offering CUDA device %d's primary context %p "
        "(%" GST_PTR_FORMAT ")",
        device, primary, offer);
    gst_element_post_message (element,
        gst_message_new_have_context (GST_OBJECT (element), context));
  }
  gst_clear_object (&offer);
}

void
gst_match_cuda_close (GstMatchCuda * cuda)
{
  g_mutex_lock (&cuda->lock);
  gst_clear_object (&cuda->context);
  cuda->primary = NULL;
  cuda->device = -1;
  g_mutex_unlock (&cuda->lock);
}

gboolean
gst_match_cuda_handle_context_query (GstMatchCuda * cuda, GstElement * element,
    GstQuery * query)
{
  g_mutex_lock (&cuda->lock);
  GstCudaContext * context =
      cuda->context ? GST_CUDA_CONTEXT (gst_object_ref (cuda->context)) : NULL;
  g_mutex_unlock (&cuda->lock);

  if (!context)
    return FALSE;
  const gboolean ret = gst_cuda_handle_context_query (element, query, context);
  gst_object_unref (context);
  return ret;
}

void
gst_match_cuda_handle_set_context (GstMatchCuda * cuda, GstElement * element,
    GstContext * context)
{
  if (!context
      || g_strcmp0 (gst_context_get_context_type (context),
             GST_CUDA_CONTEXT_TYPE)
          != 0)
    return;

  GstCudaContext * other = NULL;
  if (!gst_structure_get (gst_context_get_structure (context),
          GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &other, NULL)
      || !other)
    return;
  g_mutex_lock (&cuda->lock);
  const gboolean ours =
      cuda->primary && gst_cuda_context_get_handle (other) == cuda->primary;
  g_mutex_unlock (&cuda->lock);
  /* Not adopted here: gst_match_cuda_open() reads it from the element's
   * stored contexts, and a foreign one only means downloads. */
  GST_DEBUG_OBJECT (element, "CUDA context set: %" GST_PTR_FORMAT " (%s)",
      other, ours ? "the primary context" : "not the primary context");
  gst_object_unref (other);
}

gboolean
gst_match_cuda_map_luma (GstMatchCuda * cuda, GstElement * element,
    const GstVideoInfo * info, GstBuffer * buf, GstVideoFrame * frame,
    match::DeviceImageView * view)
{
  const char * why = NULL;
  gpointer primary;
  gint device;

  g_mutex_lock (&cuda->lock);
  primary = cuda->primary;
  device = cuda->device;
  g_mutex_unlock (&cuda->lock);

  GstMemory * mem =
      gst_buffer_n_memory (buf) == 1 ? gst_buffer_peek_memory (buf, 0) : NULL;
  if (!mem || !gst_is_cuda_memory (mem)) {
    why = "not one CUDA memory";
  } else if (!GST_VIDEO_INFO_IS_YUV (info) && !GST_VIDEO_INFO_IS_GRAY (info)) {
    why = "no luma plane";
  } else if (!primary
      || gst_cuda_context_get_handle (GST_CUDA_MEMORY_CAST (mem)->context)
          != primary) {
    /* Another context (a decoder that opened before us, the application's):
     * its pointers are not valid in the context our kernels run in. */
    why = "in a CUDA context other than the device's primary context";
  } else {
#if GST_CHECK_VERSION(1, 24, 0)
    /* gstcuda >= 1.24 has stream-ordered memory: a producer's writes may
     * still be queued on its stream. 1.22 producers synchronise before the
     * buffer leaves them (nvdecoder: CuStreamSynchronize after the copy). */
    gst_cuda_memory_sync (GST_CUDA_MEMORY_CAST (mem));
#endif
    if (!gst_video_frame_map (frame, info, buf,
            (GstMapFlags) (GST_MAP_READ | GST_MAP_CUDA)))
      why = "cannot be mapped as CUDA memory";
  }

  if (why) {
    g_mutex_lock (&cuda->lock);
    const gboolean log = !cuda->logged_host_path;
    cuda->logged_host_path = TRUE;
    g_mutex_unlock (&cuda->lock);
    if (log)
      GST_INFO_OBJECT (element,
          "frame %s: read through system memory "
          "(gstcuda downloads it); logged once",
          why);
    return FALSE;
  }

  /* Component 0 is Y, in plane 0 with pixel stride 1, for every accepted
   * format; the stride is the allocation's pitch (from the video meta). */
  view->data =
      static_cast<const uint8_t *> (GST_VIDEO_FRAME_COMP_DATA (frame, 0));
  view->width = GST_VIDEO_INFO_WIDTH (info);
  view->height = GST_VIDEO_INFO_HEIGHT (info);
  view->pitch_bytes = GST_VIDEO_FRAME_COMP_STRIDE (frame, 0);
  view->device = device;
  return TRUE;
}

#else /* !HAVE_GST_CUDA: system memory only, nothing changes */

gboolean
gst_match_cuda_memory_usable (gint)
{
  return FALSE;
}

void
gst_match_cuda_open (GstMatchCuda *, GstElement *, gint)
{
}

void
gst_match_cuda_close (GstMatchCuda * cuda)
{
  g_mutex_lock (&cuda->lock);
  cuda->primary = NULL;
  cuda->device = -1;
  g_mutex_unlock (&cuda->lock);
}

gboolean
gst_match_cuda_handle_context_query (GstMatchCuda *, GstElement *, GstQuery *)
{
  return FALSE;
}

void
gst_match_cuda_handle_set_context (GstMatchCuda *, GstElement *, GstContext *)
{
}

gboolean
gst_match_cuda_map_luma (GstMatchCuda *, GstElement *, const GstVideoInfo *,
    GstBuffer *, GstVideoFrame *, match::DeviceImageView *)
{
  return FALSE;
}

#endif /* HAVE_GST_CUDA */
