/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchcommon.h"

#include "match/log.h"

GST_DEBUG_CATEGORY_STATIC (match_debug);

GType
gst_match_backend_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_MATCH_BACKEND_AUTO, "CUDA when a device opens, else CPU", "auto"},
    {GST_MATCH_BACKEND_CPU, "CPU (OpenMP, SIMD)", "cpu"},
    {GST_MATCH_BACKEND_CUDA, "CUDA (fails to start without a device)",
        "cuda"},
    {0, NULL, NULL}
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
    {GST_MATCH_MULTI_GPU_PARALLEL,
        "The block rows of each frame pair spread over the devices",
        "parallel"},
    {GST_MATCH_MULTI_GPU_SERIAL,
        "Successive frame pairs on successive devices (needs frames in "
          "flight)", "serial"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMatchMultiGpu", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

GType
gst_mv_draw_mode_get_type (void)
{
  static gsize id = 0;
  static const GEnumValue values[] = {
    {GST_MV_DRAW_NONE, "Draw nothing (video passes unchanged)", "none"},
    {GST_MV_DRAW_ARROWS, "One arrow per block", "arrows"},
    {GST_MV_DRAW_COLOR, "Blocks tinted by the flow colour wheel", "color"},
    {0, NULL, NULL}
  };

  if (g_once_init_enter (&id)) {
    GType tmp = g_enum_register_static ("GstMvDrawMode", values);
    g_once_init_leave (&id, tmp);
  }
  return (GType) id;
}

static void
log_to_gst (match::LogLevel level, const char *message, void *)
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

static gboolean
format_has_luma_plane (const GstVideoInfo * info)
{
  return GST_VIDEO_INFO_IS_YUV (info) || GST_VIDEO_INFO_IS_GRAY (info);
}

gsize
gst_match_luma_scratch_size (const GstVideoInfo * info)
{
  if (format_has_luma_plane (info))
    return 0;
  return (gsize) GST_VIDEO_INFO_WIDTH (info) * GST_VIDEO_INFO_HEIGHT (info);
}

match::ImageView
gst_match_frame_luma (const GstVideoFrame * frame,
    std::vector < uint8_t > &scratch)
{
  const GstVideoInfo *info = &frame->info;
  const int w = GST_VIDEO_INFO_WIDTH (info), h = GST_VIDEO_INFO_HEIGHT (info);

  if (format_has_luma_plane (info)) {
    /* Component 0 is Y for every YUV/GRAY format we accept, in plane 0 with
     * pixel stride 1. */
    return match::ImageView {
    static_cast < const uint8_t *>(GST_VIDEO_FRAME_COMP_DATA (frame, 0)), w,
          h, GST_VIDEO_FRAME_COMP_STRIDE (frame, 0)};
  }

  /* Packed RGB: R, G, B components share plane 0. */
  const int ps = GST_VIDEO_FRAME_COMP_PSTRIDE (frame, 0);
  const int stride = GST_VIDEO_FRAME_PLANE_STRIDE (frame, 0);
  const uint8_t *base =
      static_cast < const uint8_t *>(GST_VIDEO_FRAME_PLANE_DATA (frame, 0));
  const int ro = GST_VIDEO_FRAME_COMP_OFFSET (frame, GST_VIDEO_COMP_R);
  const int go = GST_VIDEO_FRAME_COMP_OFFSET (frame, GST_VIDEO_COMP_G);
  const int bo = GST_VIDEO_FRAME_COMP_OFFSET (frame, GST_VIDEO_COMP_B);
  uint8_t *dst = scratch.data ();

  for (int y = 0; y < h; ++y) {
    const uint8_t *row = base + (gsize) y * stride;
    uint8_t *out = dst + (gsize) y * w;
    for (int x = 0; x < w; ++x) {
      const uint8_t *p = row + x * ps;
      out[x] = (uint8_t) ((77 * p[ro] + 150 * p[go] + 29 * p[bo] + 128) >> 8);
    }
  }
  return match::ImageView {
  dst, w, h, w};
}

/* The parts of a meta fill shared by every kernel vector type: entries
 * without an estimate (no reference frame, or flagged by the kernel) become
 * NO_ESTIMATE with dx = dy = 0, cost 0, confidence -1; the others take the
 * kernel flags mapped to the meta's and their values from `set_values`
 * (dx, dy, cost, confidence). */
/* *INDENT-OFF* */
template <typename KernelVector, typename SetValues>
static void
fill_meta (GstMotionVectorsMeta * meta, const KernelVector * vectors,
    gboolean estimated, SetValues set_values)
{
  for (guint i = 0; i < meta->n_vectors; ++i) {
    GstMotionVector *mv = &meta->vectors[i];
    const KernelVector & v = vectors[i];
    guint32 flags = 0;

    if (!estimated || (v.flags & match::kFlagNoEstimate)) {
      mv->dx = mv->dy = 0.0f;
      mv->cost = 0;
      mv->confidence = -1.0f;
      mv->flags = GST_MOTION_VECTOR_FLAG_NO_ESTIMATE;
      continue;
    }
    if (v.flags & match::kFlagSuppressed)
      flags |= GST_MOTION_VECTOR_FLAG_SUPPRESSED;
    if (v.flags & match::kFlagUnreliable)
      flags |= GST_MOTION_VECTOR_FLAG_UNRELIABLE;
    set_values (mv, v);
    mv->flags = flags;
  }
}
/* *INDENT-ON* */

void
gst_match_fill_meta (GstMotionVectorsMeta * meta,
    const match::BlockVector * vectors, gboolean estimated)
{
  fill_meta (meta, vectors, estimated,
      [](GstMotionVector * mv, const match::BlockVector & v) {
        const float scale = 1.0f / match::kSubpelScale;
        mv->dx = v.dx * scale;
        mv->dy = v.dy * scale;
        mv->cost = v.cost;
        mv->confidence = -1.0f;
      });
}

void
gst_match_fill_meta_poc (GstMotionVectorsMeta * meta,
    const match::PocVector * vectors, gboolean estimated)
{
  fill_meta (meta, vectors, estimated,
      [](GstMotionVector * mv, const match::PocVector & v) {
        mv->dx = v.dx;
        mv->dy = v.dy;
        mv->cost = 0;           /* POC has no matching cost */
        /* The fitted peak height may leave 0..1 by the fit error; the meta
         * promises 0..1 (and -1 only for "none"). */
        mv->confidence = CLAMP (v.confidence, 0.0f, 1.0f);
      });
}

gboolean
gst_match_vector_pool_ensure (GstBufferPool ** pool, guint * pool_vectors,
    guint n_vectors)
{
  if (*pool && *pool_vectors == n_vectors)
    return TRUE;
  if (*pool) {
    gst_buffer_pool_set_active (*pool, FALSE);
    gst_object_unref (*pool);
  }
  *pool = gst_buffer_pool_new ();
  GstStructure *config = gst_buffer_pool_get_config (*pool);
  gst_buffer_pool_config_set_params (config, NULL,
      n_vectors * sizeof (GstMotionVector), 2, 0);
  if (!gst_buffer_pool_set_config (*pool, config)
      || !gst_buffer_pool_set_active (*pool, TRUE)) {
    GST_WARNING ("could not set up the vector storage pool");
    gst_object_unref (*pool);
    *pool = NULL;
    *pool_vectors = 0;
    return FALSE;
  }
  *pool_vectors = n_vectors;
  return TRUE;
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
    GParamSpec * pspec, const char *description)
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
    const std::vector < int >&devices, const char *properties)
{
  if (!match::backend_available (match::Backend::kCuda)) {
    GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
        ("backend=cuda was requested but no CUDA device is available"),
        ("this build has no CUDA backend, or no CUDA device could be "
            "opened; use backend=auto or backend=cpu"));
    return FALSE;
  }
  const int count = match::cuda_device_count ();
  for (int d:devices) {
    if (d >= count) {
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
          ("backend=cuda: CUDA device %d does not exist", d),
          ("%d CUDA device(s) here (ordinals 0..%d); set %s", count,
              count - 1, properties));
      return FALSE;
    }
  }
  return TRUE;
}

gboolean
gst_match_check_cuda_device (GstElement * element, gint device_id)
{
  return gst_match_check_cuda_devices (element, {
      device_id}, "device-id");
}

GstMotionVectorsMeta *
gst_match_attach_meta (GstBuffer * buf, GstBufferPool ** pool,
    guint * pool_vectors, guint frame_width, guint frame_height,
    guint block_width, guint block_height, GstMotionVectorsDirection direction)
{
  const guint n = ((frame_width + block_width - 1) / block_width) *
      ((frame_height + block_height - 1) / block_height);
  GstBuffer *storage = NULL;

  if (!gst_match_vector_pool_ensure (pool, pool_vectors, n)
      || gst_buffer_pool_acquire_buffer (*pool, &storage, NULL) != GST_FLOW_OK)
    return NULL;
  return gst_buffer_add_motion_vectors_meta_with_storage (buf, storage,
      frame_width, frame_height, block_width, block_height, direction);
}

void
gst_match_update_held_latency (GstElement * element, GstClockTime * latency,
    int depth, int fps_n, int fps_d)
{
  GstClockTime l = 0;

  if (depth > 0 && fps_n > 0 && fps_d > 0)
    l = gst_util_uint64_scale_int (depth * GST_SECOND, fps_d, fps_n);
  GST_OBJECT_LOCK (element);
  const gboolean changed = *latency != l;
  *latency = l;
  GST_OBJECT_UNLOCK (element);
  if (changed) {
    GST_INFO_OBJECT (element, "pipeline depth %d: latency %" GST_TIME_FORMAT,
        depth, GST_TIME_ARGS (l));
    gst_element_post_message (element,
        gst_message_new_latency (GST_OBJECT (element)));
  }
}

std::string
gst_match_printf (const char *format, ...)
{
  va_list args;

  va_start (args, format);
  gchar *s = g_strdup_vprintf (format, args);
  va_end (args);
  std::string ret (s);
  g_free (s);
  return ret;
}

void
gst_match_post_setup_error (GstElement * element, const char *what,
    const GstMatchSetupMessages & messages, const match::Status & status)
{
  GST_DEBUG_OBJECT (element, "setting up %s failed: %s", what,
      status.message ().c_str ());
  switch (status.code ()) {
    case match::StatusCode::kUnavailable:
      GST_ELEMENT_ERROR (element, RESOURCE, NOT_FOUND,
          ("%s", messages.unavailable.c_str ()), ("%s",
              status.message ().c_str ()));
      break;
    case match::StatusCode::kInvalidArgument:
      GST_ELEMENT_ERROR (element, RESOURCE, SETTINGS,
          ("%s", messages.invalid.c_str ()), ("%s",
              status.message ().c_str ()));
      break;
    case match::StatusCode::kOutOfMemory:
      GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
          ("%s", messages.no_memory.c_str ()), ("%s",
              status.message ().c_str ()));
      break;
    default:
      GST_ELEMENT_ERROR (element, LIBRARY, INIT,
          ("%s", messages.failed.c_str ()), ("%s",
              status.message ().c_str ()));
      break;
  }
}

gboolean
gst_match_decide_video_pool (GstElement * element, GstQuery * query,
    guint min_buffers)
{
  GstCaps *caps;
  GstVideoInfo info;
  GstBufferPool *pool = NULL;
  guint size = 0, min = 0, max = 0;
  gboolean update;

  gst_query_parse_allocation (query, &caps, NULL);
  if (!caps || !gst_video_info_from_caps (&info, caps))
    return FALSE;

  update = gst_query_get_n_allocation_pools (query) > 0;
  if (update)
    gst_query_parse_nth_allocation_pool (query, 0, &pool, &size, &min, &max);
  if (pool && !GST_IS_VIDEO_BUFFER_POOL (pool)) {
    gst_object_unref (pool);
    pool = NULL;
  }
  if (!pool)
    pool = gst_video_buffer_pool_new ();
  size = MAX (size, (guint) GST_VIDEO_INFO_SIZE (&info));
  min = MAX (min, min_buffers);

  GstStructure *config = gst_buffer_pool_get_config (pool);
  gst_buffer_pool_config_set_params (config, caps, size, min, max);
  if (gst_query_find_allocation_meta (query, GST_VIDEO_META_API_TYPE, NULL))
    gst_buffer_pool_config_add_option (config,
        GST_BUFFER_POOL_OPTION_VIDEO_META);
  if (!gst_buffer_pool_set_config (pool, config)) {
    /* The pool may have adjusted the parameters: take them. */
    config = gst_buffer_pool_get_config (pool);
    if (!gst_buffer_pool_config_validate_params (config, caps, size, min, max)
        || !gst_buffer_pool_set_config (pool, config)) {
      GST_WARNING_OBJECT (element, "could not configure the output pool");
      gst_object_unref (pool);
      return FALSE;
    }
  }
  if (update)
    gst_query_set_nth_allocation_pool (query, 0, pool, size, min, max);
  else
    gst_query_add_allocation_pool (query, pool, size, min, max);
  gst_object_unref (pool);
  return TRUE;
}

GstFlowReturn
gst_match_acquire_output (GstElement * element, GstBufferPool * pool,
    gsize size, GstBuffer ** outbuf)
{
  *outbuf = NULL;
  if (pool) {
    GstFlowReturn ret = GST_FLOW_ERROR;
    const gboolean active = gst_buffer_pool_is_active (pool)
        || gst_buffer_pool_set_active (pool, TRUE);
    if (active)
      ret = gst_buffer_pool_acquire_buffer (pool, outbuf, NULL);
    gst_object_unref (pool);
    if (!active)
      goto no_buffer;
    return ret;
  }
  *outbuf = gst_buffer_new_allocate (NULL, size, NULL);
  if (!*outbuf)
    goto no_buffer;
  return GST_FLOW_OK;

  /* ERRORS */
no_buffer:
  {
    GST_ELEMENT_ERROR (element, RESOURCE, NO_SPACE_LEFT,
        ("Could not allocate an output buffer"), (NULL));
    return GST_FLOW_ERROR;
  }
}
