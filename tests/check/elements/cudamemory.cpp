/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * blockmatchme and pocme with video/x-raw(memory:CUDAMemory)
 * (docs/cuda-memory.md). Built only with gstcuda (meson: HAVE_GST_CUDA).
 *
 * Everywhere: the pad templates carry CUDA memory; system memory still
 * negotiates and is passed on unchanged; backend=cpu refuses CUDA-memory
 * caps (accept-caps, caps query, a caps event), and so does every backend
 * where gstcuda cannot load the driver or there is no CUDA device.
 *
 * With a GPU (skipped, not failed, without one or without the nvcodec
 * elements): CUDA caps accepted; the element offers the primary context
 * (HAVE_CONTEXT, context query) unless the application set another;
 * videotestsrc ! cudaupload ! blockmatchme ! cudadownload gives the vectors
 * and drawn frames of the system-memory path without ever reading a frame
 * through system memory (pocme: the same backend on system memory, bit for
 * bit); a foreign context still gives the same vectors
 * (through the download fallback); nvh264dec into the element (x264enc
 * input, or the file in $MATCH_TEST_H264) likewise.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <gst/check/gstcheck.h>
#include <gst/check/gstharness.h>
#include <gst/video/video.h>
#include <gst/cuda/gstcudacontext.h>
#include <gst/cuda/gstcudaloader.h>
#include <gst/cuda/gstcudautils.h>
#include <gst/motionvectors/motionvectors.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../common/checkutil.h"
#include "match/blockmatch.h"
#include "match/poc.h"

#define CUDA_CAPS(fmt)                                                         \
  "video/x-raw(memory:CUDAMemory),format=" fmt ",width=64,height=48,"          \
  "framerate=30/1"
#define SYSTEM_CAPS(fmt)                                                       \
  "video/x-raw,format=" fmt ",width=64,height=48,framerate=30/1"

static gboolean
caps_have_cuda (const GstCaps * caps)
{
  for (guint i = 0; caps && i < gst_caps_get_size (caps); i++) {
    GstCapsFeatures * f = gst_caps_get_features (caps, i);
    if (f && gst_caps_features_contains (f, "memory:CUDAMemory"))
      return TRUE;
  }
  return FALSE;
}

/* gstcuda loads the driver and a CUDA device exists: what the element
 * needs to take CUDA memory. */
static bool
cuda_usable (void)
{
  return gst_cuda_load_library () && match::cuda_device_count () > 0;
}

/* pocme's CUDA backend also needs cuFFT (opened at run time). */
static bool
poc_cuda_usable (void)
{
  match::PocConfig cfg;
  cfg.width = 64;
  cfg.height = 64;
  cfg.window_size = 32;
  cfg.spacing = 16;
  cfg.layers = 1;
  std::unique_ptr<match::PocMatcher> m;
  return match::PocMatcher::create (match::Backend::kCuda, cfg, &m).is_ok ();
}

static bool
require_cuda (const char * test)
{
  if (cuda_usable ())
    return true;
  g_print ("%s: SKIP (no CUDA driver or device)\n", test);
  return false;
}

static bool
require_elements (const char * test, const std::vector<const char *> & names)
{
  for (const char * n : names) {
    GstElementFactory * f = gst_element_factory_find (n);
    if (!f) {
      g_print ("%s: SKIP (no %s element: gstreamer1.0-plugins-bad's nvcodec "
               "needs the NVIDIA driver)\n",
          test, n);
      return false;
    }
    gst_object_unref (f);
  }
  return true;
}

/* The elements that take CUDA memory, with settings for small frames. */
struct ElementCase
{
  const char * name;
  const char * props;
};
static const ElementCase kElements[] = {
  { "blockmatchme", "" },
  { "pocme", "window-size=32 spacing=16" },
};

static GstElement *
make_element (const char * backend, const char * name = "blockmatchme")
{
  GstElement * e = gst_element_factory_make (name, NULL);
  fail_unless (e != NULL);
  gst_util_set_object_arg (G_OBJECT (e), "backend", backend);
  return e;
}

/* accept-caps and the caps query of the sink pad for CUDA memory. */
static void
check_cuda_caps (GstElement * e, gboolean expect, const char * what)
{
  GstPad * sink = gst_element_get_static_pad (e, "sink");
  const char * formats[] = { "NV12", "I420", "GRAY8" };
  for (const char * f : formats) {
    gchar * str = g_strdup_printf ("video/x-raw(memory:CUDAMemory),format=%s,"
                                   "width=64,height=48,framerate=30/1",
        f);
    GstCaps * caps = gst_caps_from_string (str);
    fail_unless_equals_int (gst_pad_query_accept_caps (sink, caps), expect);
    gst_caps_unref (caps);
    g_free (str);
  }
  GstCaps * q = gst_pad_query_caps (sink, NULL);
  fail_unless_equals_int (caps_have_cuda (q), expect);
  fail_if (gst_caps_is_empty (q), "%s: no caps at all", what);
  /* System memory is always there. */
  GstCaps * sys = gst_caps_from_string (SYSTEM_CAPS ("NV12"));
  fail_unless (gst_caps_can_intersect (q, sys), "%s", what);
  fail_unless (gst_pad_query_accept_caps (sink, sys), "%s", what);
  gst_caps_unref (sys);
  gst_caps_unref (q);
  gst_object_unref (sink);
}

/* Both pad templates: CUDA memory (with the luma-plane formats) and system
 * memory. */
static void
check_templates (const char * name)
{
  GstElementFactory * f = gst_element_factory_find (name);
  fail_unless (f != NULL);
  guint n = 0;
  for (const GList * l = gst_element_factory_get_static_pad_templates (f); l;
       l = l->next, n++) {
    GstStaticPadTemplate * t = (GstStaticPadTemplate *) l->data;
    GstCaps * caps = gst_static_pad_template_get_caps (t);
    fail_unless (caps_have_cuda (caps), "%s %s", name, t->name_template);
    for (const char * fmt : { "GRAY8", "NV12", "I420" }) {
      gchar * str =
          g_strdup_printf ("video/x-raw(memory:CUDAMemory),format=%s", fmt);
      GstCaps * want = gst_caps_from_string (str);
      fail_unless (gst_caps_can_intersect (caps, want), "%s %s: %s", name,
          t->name_template, str);
      gst_caps_unref (want);
      g_free (str);
    }
    GstCaps * sys = gst_caps_from_string ("video/x-raw,format=BGRx");
    fail_unless (gst_caps_can_intersect (caps, sys));
    gst_caps_unref (sys);
    gst_caps_unref (caps);
  }
  fail_unless_equals_int (n, 2);
  gst_object_unref (f);
}

GST_START_TEST (test_pad_templates)
{
  for (const ElementCase & el : kElements)
    check_templates (el.name);
}

GST_END_TEST;

/* System memory negotiates and leaves unchanged, caps and pixels, with the
 * meta attached. */
static void
check_system_memory (const ElementCase & el, const char * backend)
{
  GstHarness * h = gst_harness_new (el.name);
  test_set_props (h->element, el.props);
  gst_util_set_object_arg (G_OBJECT (h->element), "backend", backend);
  gst_harness_set_src_caps_str (h, SYSTEM_CAPS ("NV12"));
  GstVideoInfo info;
  GstCaps * in = gst_caps_from_string (SYSTEM_CAPS ("NV12"));
  fail_unless (gst_video_info_from_caps (&info, in));
  for (int i = 0; i < 2; i++) {
    GstBuffer * b = gst_buffer_new_and_alloc (GST_VIDEO_INFO_SIZE (&info));
    gst_buffer_memset (b, 0, (guint8) (40 + 7 * i), gst_buffer_get_size (b));
    GST_BUFFER_PTS (b) = i * GST_SECOND / 30;
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_OK);
    GstBuffer * o = gst_harness_pull (h);
    fail_unless (gst_buffer_get_motion_vectors_meta (o) != NULL);
    GstMapInfo m;
    fail_unless (gst_buffer_map (o, &m, GST_MAP_READ));
    fail_unless_equals_int (m.data[0], 40 + 7 * i);
    gst_buffer_unmap (o, &m);
    gst_buffer_unref (o);
  }
  GstCaps * out = gst_pad_get_current_caps (h->sinkpad);
  fail_unless (out != NULL);
  fail_unless (gst_caps_is_equal (out, in), "%s %s: %" GST_PTR_FORMAT, el.name,
      backend, out);
  fail_if (caps_have_cuda (out));
  gst_caps_unref (out);
  gst_caps_unref (in);
  gst_harness_teardown (h);
}

/* On every backend (cuda where it can run). */
GST_START_TEST (test_system_memory_negotiates)
{
  for (const ElementCase & el : kElements) {
    check_system_memory (el, "cpu");
    check_system_memory (el, "auto");
    if (match::cuda_device_count () > 0
        && (strcmp (el.name, "pocme") || poc_cuda_usable ()))
      check_system_memory (el, "cuda");
  }
}

GST_END_TEST;

/* backend=cpu takes no CUDA memory: negotiation must pick system memory
 * (with a decoder that offers both) or fail (cudaupload alone; put
 * cudadownload in front). Runs without a GPU. */
GST_START_TEST (test_cpu_refuses_cuda_memory)
{
  for (const ElementCase & el : kElements) {
    GstElement * e = make_element ("cpu", el.name);
    check_cuda_caps (e, FALSE, el.name);
    gst_object_unref (e);

    /* A caps event with CUDA memory is refused: the buffer after it is not
     * negotiated. */
    GstHarness * h = gst_harness_new (el.name);
    test_set_props (h->element, el.props);
    gst_util_set_object_arg (G_OBJECT (h->element), "backend", "cpu");
    gst_harness_set_src_caps_str (h, CUDA_CAPS ("NV12"));
    GstBuffer * b = gst_buffer_new_and_alloc (64 * 48 * 3 / 2);
    fail_unless_equals_int (gst_harness_push (h, b), GST_FLOW_NOT_NEGOTIATED);
    gst_harness_teardown (h);
  }
}

GST_END_TEST;

/* Without the driver (gst_cuda_load_library() fails) or a CUDA device,
 * auto and cuda refuse CUDA memory too; with them, they accept it. */
GST_START_TEST (test_cuda_caps_follow_the_device)
{
  const gboolean usable = cuda_usable ();
  for (const ElementCase & el : kElements) {
    for (const char * backend : { "auto", "cuda" }) {
      GstElement * e = make_element (backend, el.name);
      check_cuda_caps (e, usable, backend);
      gst_object_unref (e);
    }
  }
  if (!usable)
    g_print ("test_cuda_caps_follow_the_device: no CUDA driver or device: "
             "checked the refusal only\n");
}

GST_END_TEST;

/* ---- With a GPU --------------------------------------------------------- */

/* The GstCudaContext in `ctx` wraps `primary`. */
static void
check_wraps (const GstContext * ctx, void * primary)
{
  fail_unless_equals_string (gst_context_get_context_type (ctx),
      GST_CUDA_CONTEXT_TYPE);
  GstCudaContext * cuda = NULL;
  fail_unless (gst_structure_get (gst_context_get_structure (ctx),
      GST_CUDA_CONTEXT_TYPE, GST_TYPE_CUDA_CONTEXT, &cuda, NULL));
  fail_unless (gst_cuda_context_get_handle (cuda) == primary);
  gst_object_unref (cuda);
}

/* `name` with `backend` in a pipeline, set to READY: posts HAVE_CONTEXT
 * and answers the context query on both pads with the primary context's
 * wrapper, or (backend=cpu) does neither. */
static void
check_offer (const char * name, const char * backend, void * primary)
{
  const bool offers = strcmp (backend, "cpu") != 0;
  GstElement * pipe = gst_pipeline_new (NULL);
  GstElement * el = make_element (backend, name);
  GstElement * sink = gst_element_factory_make ("fakesink", NULL);
  gst_bin_add_many (GST_BIN (pipe), el, sink, NULL);
  fail_unless (gst_element_link (el, sink));
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  GstBus * bus = gst_element_get_bus (pipe);
  GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_HAVE_CONTEXT);
  fail_unless_equals_int (msg != NULL, offers);
  if (msg) {
    GstContext * ctx = NULL;
    gst_message_parse_have_context (msg, &ctx);
    check_wraps (ctx, primary);
    gst_context_unref (ctx);
    gst_message_unref (msg);
  }
  for (const char * pad_name : { "sink", "src" }) {
    GstPad * pad = gst_element_get_static_pad (el, pad_name);
    GstQuery * q = gst_query_new_context (GST_CUDA_CONTEXT_TYPE);
    const gboolean answered = gst_pad_query (pad, q);
    fail_unless_equals_int (answered, offers);
    if (answered) {
      GstContext * ctx = NULL;
      gst_query_parse_context (q, &ctx);
      check_wraps (ctx, primary);
    }
    gst_query_unref (q);
    gst_object_unref (pad);
  }
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
}

/* NULL->READY offers a GstCudaContext wrapping device 0's primary context;
 * backend=cpu offers none; an application context is respected. */
GST_START_TEST (test_context_offered)
{
  if (!require_cuda ("test_context_offered"))
    return;
  void * primary = match::cuda_primary_context (0);
  fail_unless (primary != NULL);

  for (const ElementCase & el : kElements) {
    check_offer (el.name, "cuda", primary);
    check_offer (el.name, "auto", primary);
    check_offer (el.name, "cpu", primary);
  }

  /* An application context (its own CUcontext) set before READY wins:
   * nothing offered. */
  GstCudaContext * own = gst_cuda_context_new (0);
  fail_unless (own != NULL);
  fail_if (gst_cuda_context_get_handle (own) == primary);
  GstElement * pipe = gst_pipeline_new (NULL);
  GstElement * bm = make_element ("cuda");
  gst_bin_add (GST_BIN (pipe), bm);
  GstContext * ctx = gst_context_new_cuda_context (own);
  gst_element_set_context (pipe, ctx);
  gst_context_unref (ctx);
  fail_unless_equals_int (gst_element_set_state (pipe, GST_STATE_READY),
      GST_STATE_CHANGE_SUCCESS);
  GstBus * bus = gst_element_get_bus (pipe);
  GstMessage * msg = gst_bus_pop_filtered (bus, GST_MESSAGE_HAVE_CONTEXT);
  fail_unless (msg == NULL, "the application's context was replaced");
  gst_element_set_state (pipe, GST_STATE_NULL);
  gst_object_unref (bus);
  gst_object_unref (pipe);
  gst_object_unref (own);
}

GST_END_TEST;

/* Counts the element's "read through system memory" logs: none may appear
 * when every frame takes the zero-copy path. */
static std::atomic<int> host_path_logs (0);

static void
count_host_path (GstDebugCategory * category, GstDebugLevel, const gchar *,
    const gchar *, gint, GObject *, GstDebugMessage * message, gpointer)
{
  const char * name = gst_debug_category_get_name (category);
  if (strcmp (name, "matchcuda") && strcmp (name, "blockmatchme")
      && strcmp (name, "pocme"))
    return;
  const gchar * text = gst_debug_message_get (message);
  if (text && strstr (text, "through system memory"))
    host_path_logs++;
}

struct Run
{
  std::vector<std::vector<GstMotionVector>> vectors;
  std::vector<std::vector<guint8>> frames; /* at the sink, if asked */
  bool cuda_caps = false;                  /* blockmatchme's src caps */
};

static GstPadProbeReturn
on_vectors (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Run * r = (Run *) data;
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstMotionVectorsMeta * mv = gst_buffer_get_motion_vectors_meta (buf);
  fail_unless (mv != NULL);
  r->vectors.emplace_back (mv->vectors, mv->vectors + mv->n_vectors);
  GstCaps * caps = gst_pad_get_current_caps (pad);
  r->cuda_caps = caps_have_cuda (caps);
  gst_caps_unref (caps);
  return GST_PAD_PROBE_OK;
}

/* The frame's planes, row by row (no padding), in system memory. */
static GstPadProbeReturn
on_frame (GstPad * pad, GstPadProbeInfo * info, gpointer data)
{
  Run * r = (Run *) data;
  GstBuffer * buf = GST_PAD_PROBE_INFO_BUFFER (info);
  GstCaps * caps = gst_pad_get_current_caps (pad);
  GstVideoInfo vi;
  fail_unless (gst_video_info_from_caps (&vi, caps));
  gst_caps_unref (caps);
  GstVideoFrame f;
  fail_unless (gst_video_frame_map (&f, &vi, buf, GST_MAP_READ));
  std::vector<guint8> bytes;
  for (guint p = 0; p < GST_VIDEO_FRAME_N_PLANES (&f); p++) {
    const guint8 * d = (const guint8 *) GST_VIDEO_FRAME_PLANE_DATA (&f, p);
    const gint stride = GST_VIDEO_FRAME_PLANE_STRIDE (&f, p);
    const gint w = GST_VIDEO_FRAME_COMP_WIDTH (&f, p)
        * GST_VIDEO_FRAME_COMP_PSTRIDE (&f, p);
    for (gint y = 0; y < GST_VIDEO_FRAME_COMP_HEIGHT (&f, p); y++)
      bytes.insert (bytes.end (), d + y * stride, d + y * stride + w);
  }
  gst_video_frame_unmap (&f);
  r->frames.push_back (std::move (bytes));
  return GST_PAD_PROBE_OK;
}

/* Runs `desc` (with blockmatchme name=bm and a sink name=out) to EOS,
 * collecting bm's vectors and, with `frames`, the output frames; with
 * `context` set on the pipeline first. */
static Run
run (const std::string & desc, bool frames, GstContext * context = NULL)
{
  Run r;
  GError * err = NULL;
  GstElement * pipe = gst_parse_launch (desc.c_str (), &err);
  fail_unless (pipe != NULL && err == NULL, "%s: %s", desc.c_str (),
      err ? err->message : "");
  if (context)
    gst_element_set_context (pipe, context);
  GstElement * bm = gst_bin_get_by_name (GST_BIN (pipe), "bm");
  GstPad * src = gst_element_get_static_pad (bm, "src");
  gst_pad_add_probe (src, GST_PAD_PROBE_TYPE_BUFFER, on_vectors, &r, NULL);
  gst_object_unref (src);
  gst_object_unref (bm);
  if (frames) {
    GstElement * out = gst_bin_get_by_name (GST_BIN (pipe), "out");
    GstPad * sink = gst_element_get_static_pad (out, "sink");
    gst_pad_add_probe (sink, GST_PAD_PROBE_TYPE_BUFFER, on_frame, &r, NULL);
    gst_object_unref (sink);
    gst_object_unref (out);
  }
  GstMessage * msg = test_run_to_end (pipe, 120 * GST_SECOND);
  if (GST_MESSAGE_TYPE (msg) == GST_MESSAGE_ERROR) {
    GError * e = NULL;
    gchar * dbg = NULL;
    gst_message_parse_error (msg, &e, &dbg);
    fail ("%s: %s (%s)", desc.c_str (), e->message, dbg);
  }
  gst_message_unref (msg);
  return r;
}

static void
check_same (const Run & want, const Run & got, const std::string & what)
{
  fail_unless (!want.vectors.empty ());
  fail_unless_equals_int (got.vectors.size (), want.vectors.size ());
  for (size_t f = 0; f < want.vectors.size (); f++) {
    fail_unless_equals_int (got.vectors[f].size (), want.vectors[f].size ());
    for (size_t i = 0; i < want.vectors[f].size (); i++) {
      const GstMotionVector &a = want.vectors[f][i], &b = got.vectors[f][i];
      fail_unless (a.dx == b.dx && a.dy == b.dy && a.cost == b.cost
              && a.flags == b.flags,
          "%s: frame %zu block %zu: (%g, %g, %u, %u) "
          "vs (%g, %g, %u, %u)",
          what.c_str (), f, i, a.dx, a.dy, a.cost, a.flags, b.dx, b.dy, b.cost,
          b.flags);
    }
  }
  fail_unless_equals_int (got.frames.size (), want.frames.size ());
  for (size_t f = 0; f < want.frames.size (); f++)
    fail_unless (got.frames[f] == want.frames[f], "%s: frame %zu differs",
        what.c_str (), f);
}

static const char * kSources[] = {
  "videotestsrc num-buffers=8 pattern=ball",
  "videotestsrc num-buffers=8 pattern=smpte horizontal-speed=3",
};

#define RAW "video/x-raw,format=NV12,width=320,height=240,framerate=30/1"

/* cudaupload ! blockmatchme ! cudadownload equals the system-memory path:
 * vectors, and with draw the frames; CUDA memory on blockmatchme's src pad;
 * no frame read through system memory (the zero-copy path ran). */
GST_START_TEST (test_cudaupload_equals_system)
{
  if (!require_cuda ("test_cudaupload_equals_system")
      || !require_elements ("test_cudaupload_equals_system",
          { "cudaupload", "cudadownload" }))
    return;
  gst_debug_set_threshold_for_name ("matchcuda", GST_LEVEL_INFO);
  gst_debug_set_threshold_for_name ("blockmatchme", GST_LEVEL_INFO);
  gst_debug_add_log_function (count_host_path, NULL, NULL);

  for (const char * src : kSources) {
    for (const char * props :
        { "search-range=8", "subpixel=half search-range=6 draw=arrows" }) {
      const bool frames = strstr (props, "draw") != NULL;
      const Run sys = run (std::string (src)
              + " ! " RAW " ! blockmatchme "
                "name=bm backend=cpu "
              + props + " ! fakesink name=out",
          frames);
      fail_if (sys.cuda_caps);
      for (const char * variant : { "backend=cuda", "backend=auto",
               "backend=cuda pipeline-depth=2", "backend=cuda devices=0,0" }) {
        const std::string desc = std::string (src)
            + " ! " RAW " ! cudaupload"
              " ! video/x-raw(memory:CUDAMemory) ! blockmatchme name=bm "
            + variant + " " + props
            + " ! cudadownload ! video/x-raw ! "
              "fakesink name=out";
        host_path_logs = 0;
        const Run gpu = run (desc, frames);
        fail_unless (gpu.cuda_caps, "%s: no CUDA memory", desc.c_str ());
        /* draw maps the frame in system memory by design; the search
         * never does. */
        if (!frames)
          fail_unless_equals_int (host_path_logs.load (), 0);
        check_same (sys, gpu, desc);
      }
    }
  }
  /* pocme: CUDA memory against the same CUDA backend on system memory,
   * bit for bit (the CPU backend differs from it by float rounding). */
  gst_debug_set_threshold_for_name ("pocme", GST_LEVEL_INFO);
  if (!poc_cuda_usable ())
    g_print ("test_cudaupload_equals_system: pocme part SKIP (no cuFFT)\n");
  for (const char * src : kSources) {
    if (!poc_cuda_usable ())
      break;
    const char * props = "window-size=32 spacing=16 layers=1";
    const Run sys = run (std::string (src)
            + " ! " RAW " ! pocme name=bm "
              "backend=cuda "
            + props + " ! fakesink name=out",
        false);
    /* (cudaupload ! x ! cudadownload settles on system memory unless the
     * CUDA memory is asked for, as with any in-place element) */
    const std::string desc = std::string (src)
        + " ! " RAW " ! cudaupload"
          " ! video/x-raw(memory:CUDAMemory) ! pocme name=bm backend=cuda "
        + props + " ! cudadownload ! fakesink name=out";
    host_path_logs = 0;
    const Run gpu = run (desc, false);
    fail_unless (gpu.cuda_caps, "%s: no CUDA memory", desc.c_str ());
    fail_unless_equals_int (host_path_logs.load (), 0);
    check_same (sys, gpu, desc);
  }
  gst_debug_remove_log_function (count_host_path);
}

GST_END_TEST;

/* A context the application set on the pipeline (its own CUcontext, not
 * the primary one) is respected: cudaupload allocates there, the element
 * reads the frames through system memory (logged) and still gives the
 * same vectors. */
GST_START_TEST (test_foreign_context_falls_back)
{
  if (!require_cuda ("test_foreign_context_falls_back")
      || !require_elements ("test_foreign_context_falls_back",
          { "cudaupload", "cudadownload" }))
    return;
  gst_debug_set_threshold_for_name ("matchcuda", GST_LEVEL_INFO);
  gst_debug_add_log_function (count_host_path, NULL, NULL);
  GstCudaContext * own = gst_cuda_context_new (0);
  fail_unless (own != NULL);
  GstContext * ctx = gst_context_new_cuda_context (own);

  const std::string src = std::string (kSources[0]) + " ! " RAW;
  const Run sys = run (src
          + " ! blockmatchme name=bm backend=cpu "
            "search-range=8 ! fakesink name=out",
      false);
  host_path_logs = 0;
  const Run gpu = run (src
          + " ! cudaupload ! video/x-raw(memory:CUDAMemory) "
            "! blockmatchme name=bm backend=cuda search-range=8 ! cudadownload "
            "! "
            "fakesink name=out",
      false, ctx);
  fail_unless (gpu.cuda_caps);
  fail_unless (host_path_logs.load () > 0,
      "the foreign context's frames "
      "were not read through system memory");
  check_same (sys, gpu, "foreign context");

  gst_context_unref (ctx);
  gst_object_unref (own);
  gst_debug_remove_log_function (count_host_path);
}

GST_END_TEST;

/* nvh264dec ! blockmatchme: decoded frames stay on the GPU (CUDA memory,
 * zero-copy path) and give the vectors of the same decoder's system-memory
 * output on the CPU backend. The stream is x264enc's (when present) and
 * the file in $MATCH_TEST_H264 (MP4 or raw H.264, through parsebin). */
GST_START_TEST (test_nvh264dec_zero_copy)
{
  if (!require_cuda ("test_nvh264dec_zero_copy")
      || !require_elements ("test_nvh264dec_zero_copy", { "nvh264dec" }))
    return;
  gst_debug_set_threshold_for_name ("matchcuda", GST_LEVEL_INFO);
  gst_debug_set_threshold_for_name ("blockmatchme", GST_LEVEL_INFO);
  gst_debug_add_log_function (count_host_path, NULL, NULL);

  std::vector<std::string> streams;
  GstElementFactory * x264 = gst_element_factory_find ("x264enc");
  if (x264) {
    streams.push_back (
        "videotestsrc num-buffers=20 pattern=ball ! "
        "video/x-raw,format=I420,width=320,height=240,framerate=30/1 ! "
        "x264enc tune=zerolatency ! h264parse");
    gst_object_unref (x264);
  }
  const gchar * file = g_getenv ("MATCH_TEST_H264");
  if (file && *file) {
    gchar * loc = g_strescape (file, NULL);
    streams.push_back (
        std::string ("filesrc location=\"") + loc + "\" ! parsebin");
    g_free (loc);
  }
  if (streams.empty ())
    g_print ("test_nvh264dec_zero_copy: SKIP (no x264enc and no "
             "$MATCH_TEST_H264)\n");
  for (const std::string & s : streams) {
    const Run sys = run (s
            + " ! nvh264dec ! video/x-raw ! blockmatchme "
              "name=bm backend=cpu search-range=8 ! fakesink name=out",
        false);
    host_path_logs = 0;
    const Run gpu = run (s
            + " ! nvh264dec ! blockmatchme name=bm "
              "backend=cuda search-range=8 ! fakesink name=out",
        false);
    fail_unless (gpu.cuda_caps, "%s: nvh264dec did not output CUDA memory",
        s.c_str ());
    fail_unless_equals_int (host_path_logs.load (), 0);
    check_same (sys, gpu, s);
  }
  gst_debug_remove_log_function (count_host_path);
}

GST_END_TEST;

static Suite *
cudamemory_suite (void)
{
  Suite * s = suite_create ("cudamemory");
  TCase * tc = tcase_create ("general");

  suite_add_tcase (s, tc);
  tcase_set_timeout (tc, 300);
  tcase_add_test (tc, test_pad_templates);
  tcase_add_test (tc, test_system_memory_negotiates);
  tcase_add_test (tc, test_cpu_refuses_cuda_memory);
  tcase_add_test (tc, test_cuda_caps_follow_the_device);
  tcase_add_test (tc, test_context_offered);
  tcase_add_test (tc, test_cudaupload_equals_system);
  tcase_add_test (tc, test_foreign_context_falls_back);
  tcase_add_test (tc, test_nvh264dec_zero_copy);
  return s;
}

GST_CHECK_MAIN (cudamemory);
