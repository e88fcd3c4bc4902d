/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Zero copy from NVIDIA decoders: frames in video/x-raw(memory:CUDAMemory)
 * through GStreamer's CUDA library (gstcuda, gst-plugins-bad >= 1.22,
 * unstable API). Built with it when meson finds gstreamer-cuda-1.0 and the
 * CUDA backend (HAVE_GST_CUDA in config.h; option cuda-memory); without it
 * every function here is a no-op and the elements take system memory only,
 * as before. Include config.h first.
 *
 * Why the elements wrap the PRIMARY context (the rules, the evidence from
 * gst-plugins-bad 1.22 and the limits: docs/cuda-memory.md):
 * - the kernels use the CUDA runtime API, which runs in each device's
 *   primary context; a device pointer belongs to the context that
 *   allocated it, and kernels of another context must not use it.
 * - gstcuda 1.22's gst_cuda_ensure_element_context() creates a context of
 *   its own (cuCtxCreate) when no neighbour has one, and GstCudaMemory
 *   allocates in the context of the element that made the pool (the
 *   decoder). So the element offers a GstCudaContext that wraps the primary
 *   context (gst_cuda_context_new_wrapped(), owns_context stays FALSE: never
 *   destroyed by gstcuda) from NULL->READY on, before the decoders upstream
 *   open (state changes run from sink to source), answers the
 *   "gst.cuda.context" query with it and posts it (HAVE_CONTEXT) for the
 *   bins, which hand it to decoders added later (decodebin). Decoders then
 *   decode into memory the kernels read with one device-to-device copy.
 * - a frame in any other context (the application's, or a decoder that
 *   opened first) is mapped for system memory instead: gstcuda downloads
 *   it, correct but slower; logged once at INFO.
 * - the library opens libcuda at run time (gstcudaloader), so the plugin
 *   still loads and runs on the CPU without a driver:
 *   gst_cuda_load_library() failing just disables CUDA memory.
 */
#ifndef __GST_MATCH_CUDA_H__
#define __GST_MATCH_CUDA_H__

#include <gst/gst.h>
#include <gst/video/video.h>

#include "common/gstmatchbackend.h"
#include "common/gstmatchframe.h"

G_BEGIN_DECLS

/* The caps feature of gstcuda's memory
 * (GST_CAPS_FEATURE_MEMORY_CUDA_MEMORY). */
#define GST_MATCH_CAPS_FEATURE_CUDA_MEMORY "memory:CUDAMemory"

/* Formats taken in CUDA memory: those whose Y plane the kernels read in
 * place (packed RGB would need a luma kernel; convert first). */
#define GST_MATCH_CUDA_MEMORY_FORMATS                                          \
  "{ GRAY8, I420, YV12, NV12, NV21, Y41B, Y42B, Y444 }"

/* Pad template caps of the motion elements: CUDA memory first (preferred
 * where negotiation allows it, see gst_match_cuda_filter_caps()) when built
 * with gstcuda, then system memory; frames up to
 * GST_MATCH_MAX_FRAME_SIZE. */
#ifdef HAVE_GST_CUDA
#define GST_MATCH_CAPS                                                         \
  GST_MATCH_VIDEO_CAPS_MAKE_WITH_FEATURES (GST_MATCH_CAPS_FEATURE_CUDA_MEMORY, \
      GST_MATCH_CUDA_MEMORY_FORMATS)                                           \
  "; " GST_MATCH_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)
#else
#define GST_MATCH_CAPS GST_MATCH_VIDEO_CAPS_MAKE (GST_MATCH_VIDEO_FORMATS)
#endif

/* An element's CUDA-memory state: the context it offers and the device
 * whose primary context that is. Thread-safe (own lock). */
typedef struct _GstMatchCuda GstMatchCuda;

GstMatchCuda * gst_match_cuda_new (void);
void gst_match_cuda_free (GstMatchCuda * cuda);

/* TRUE when CUDA memory can be taken here for CUDA device `device`: built
 * with gstcuda, libcuda loads (gst_cuda_load_library(), tried once per
 * process) and the device exists. Never fails otherwise. */
gboolean gst_match_cuda_memory_usable (gint device);

/* TRUE when an element running `backend` may take CUDA memory for CUDA
 * device `device`: not backend=cpu, and gst_match_cuda_memory_usable().
 * Elsewhere its transform_caps drops CUDA memory
 * (gst_match_cuda_filter_caps()), so that upstream falls back to system
 * memory. */
gboolean gst_match_cuda_memory_allowed (GstMatchBackend backend, gint device);

/* From NULL->READY (before upstream decoders open) and again at start (the
 * device may have changed in READY): makes `cuda` offer a GstCudaContext
 * wrapping `device`'s primary context, posting it on the bus
 * (HAVE_CONTEXT) when it creates it. When the application or a bin already
 * set a "gst.cuda.context" on `element` that is not that primary context,
 * it is respected: nothing is offered (its frames are downloaded). Nothing
 * happens when gst_match_cuda_memory_usable() is FALSE. */
void gst_match_cuda_open (GstMatchCuda * cuda, GstElement * element,
    gint device);
/* READY->NULL: drops the context. */
void gst_match_cuda_close (GstMatchCuda * cuda);

/* The CUDA device whose primary context `element` offers, read on
 * NULL->READY; -1 for none (CUDA memory not allowed). */
typedef gint (*GstMatchCudaDeviceFunc) (GstElement * element);

/* GstElement::change_state of an element offering CUDA memory: on
 * NULL->READY, before chaining up to `parent_class`, opens `cuda` for
 * device_func (element) (now, not at start(): elements change state from
 * sink to source, so the decoders upstream open, and look for a CUDA
 * context, after this; they find ours through the context query or the
 * bin and decode into the primary context the kernels read directly);
 * after chaining up, closes it on READY->NULL or when NULL->READY
 * failed. */
GstStateChangeReturn gst_match_cuda_change_state (GstMatchCuda * cuda,
    GstElement * element, GstStateChange transition,
    GstElementClass * parent_class, GstMatchCudaDeviceFunc device_func);

/* GST_QUERY_CONTEXT for "gst.cuda.context": TRUE when answered with the
 * offered context. */
gboolean gst_match_cuda_handle_context_query (GstMatchCuda * cuda,
    GstElement * element, GstQuery * query);
/* GstElement::set_context: notes (INFO) a CUDA context that is not the
 * offered one. The caller chains up, which stores the context where
 * gst_match_cuda_open() looks. */
void gst_match_cuda_handle_set_context (GstMatchCuda * cuda,
    GstElement * element, GstContext * context);

/* transform_caps: `caps` (transfer full) without its CUDA-memory
 * structures unless `keep_cuda_memory`, so that negotiation falls back to
 * system memory (backend=cpu, no driver, no device). */
GstCaps * gst_match_cuda_filter_caps (GstCaps * caps,
    gboolean keep_cuda_memory);
/* TRUE when (fixed) `caps` carry the CUDA-memory feature. */
gboolean gst_match_caps_have_cuda_memory (const GstCaps * caps);

G_END_DECLS

#ifdef __cplusplus
#include "match/image.h"

/* Maps `buf` (a frame of `info`, a luma-plane format) for the device path:
 * when its one memory is CUDA memory in the offered primary context, maps
 * it with GST_MAP_CUDA (gstcuda 1.22 gives the device pointer; producers
 * finished writing before the buffer left them) into `frame` (the caller
 * unmaps it) and describes its Y plane in `view` (pitched stride from the
 * buffer's video meta). FALSE, with the reason logged once at INFO on
 * `element`, when the frame must go through host memory instead (mapping
 * it for reading there makes gstcuda download it). */
gboolean gst_match_cuda_map_luma (GstMatchCuda * cuda, GstElement * element,
    const GstVideoInfo * info, GstBuffer * buf, GstVideoFrame * frame,
    match::DeviceImageView * view);
#endif

#endif /* __GST_MATCH_CUDA_H__ */
