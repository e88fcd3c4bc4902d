/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * An RTSP server that serves a video file or camera with its motion as an
 * ONVIF metadata track, from one URL (docs/onvif.md):
 *
 *   onvif-rtsp-server [--port 8554] [--mount /motion] [--address 0.0.0.0]
 *       [--backend auto|cpu|cuda] [--estimator "PROP=VALUE ..."] URI
 *
 *   e.g. onvif-rtsp-server file:///path/clip.mp4    (any URI uridecodebin
 *        onvif-rtsp-server v4l2:///dev/video0       reads, or a V4L2 camera)
 *
 * Stream 0 is the video (H.264 when x264enc is installed, Debian's
 * gstreamer1.0-plugins-ugly; VP8 otherwise), stream 1 the metadata
 * (VND.ONVIF.METADATA): blockmatchme with regions and events, mvonvifmeta,
 * rtponvifmetapay (--estimator adds blockmatchme properties: on a CPU that
 * cannot keep up with the camera, "method=diamond" or "block-size=32";
 * frames the estimator cannot take meanwhile are skipped, not queued).
 * An NVR or `gst-launch-1.0 rtspsrc
 * location=rtsp://HOST:8554/motion` receives both. The media is shared by
 * the clients. Prints "serving rtsp://ADDRESS:PORT/MOUNT" once listening
 * (the port actually bound when --port 0 asks for any free one).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gst/gst.h>
#include <gst/rtsp-server/rtsp-server.h>

static gchar *
launch_line (const gchar * uri, const gchar * backend, const gchar * props)
{
  const gboolean v4l2 = g_str_has_prefix (uri, "v4l2://");
  GstElementFactory *x264 = gst_element_factory_find ("x264enc");
  const gchar *video = x264
      ? "x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! "
      "rtph264pay name=pay0 pt=96 config-interval=1"
      : "vp8enc deadline=1 keyframe-max-dist=30 ! rtpvp8pay name=pay0 pt=96";
  gchar *source, *line;

  if (x264)
    gst_object_unref (x264);
  if (v4l2)
    source = g_strdup_printf ("v4l2src device=%s", uri + strlen ("v4l2://"));
  else
    source = g_strdup_printf ("uridecodebin uri=\"%s\"", uri);
  /* Decoded frames as I420 for the encoder; the estimator reads their luma
   * on the other branch. */
  line = g_strdup_printf ("( %s ! videoconvert ! video/x-raw,format=I420 ! "
      "tee name=t  t. ! queue ! %s  t. ! queue leaky=downstream "
      "max-size-buffers=4 ! blockmatchme backend=%s regions=true "
      "events=true %s ! mvonvifmeta ! rtponvifmetapay name=pay1 pt=107 )",
      source, video, backend, props);
  g_free (source);
  return line;
}

int
main (int argc, char **argv)
{
  gint port = 8554;
  gchar *mount = NULL, *address = NULL, *backend = NULL, *estimator = NULL;
  GOptionEntry entries[] = {
    {"port", 'p', 0, G_OPTION_ARG_INT, &port,
        "TCP port (default 8554; 0: any free one)", "PORT"},
    {"mount", 'm', 0, G_OPTION_ARG_STRING, &mount,
        "Mount point (default /motion)", "PATH"},
    {"address", 'a', 0, G_OPTION_ARG_STRING, &address,
        "Address to listen on (default 0.0.0.0)", "ADDR"},
    {"backend", 'b', 0, G_OPTION_ARG_STRING, &backend,
        "blockmatchme's backend: auto, cpu or cuda (default auto)", "NAME"},
    {"estimator", 'e', 0, G_OPTION_ARG_STRING, &estimator,
        "More blockmatchme properties, e.g. \"method=diamond\"", "PROPS"},
    {NULL, 0, 0, G_OPTION_ARG_NONE, NULL, NULL, NULL}
  };
  GError *err = NULL;
  GOptionContext *ctx = g_option_context_new ("URI");
  int rc = 1;

  g_option_context_set_summary (ctx,
      "Serves a video and its motion (ONVIF metadata) over RTSP.");
  g_option_context_add_main_entries (ctx, entries, NULL);
  g_option_context_add_group (ctx, gst_init_get_option_group ());
  if (!g_option_context_parse (ctx, &argc, &argv, &err) || argc != 2) {
    gchar *help = g_option_context_get_help (ctx, TRUE, NULL);
    if (err)
      g_printerr ("%s\n", err->message);
    g_printerr ("%s", help);
    g_free (help);
    g_clear_error (&err);
    g_option_context_free (ctx);
    return 2;
  }
  g_option_context_free (ctx);
  if (port < 0 || port > 65535) {
    g_printerr ("--port must be 0..65535\n");
    return 2;
  }
  {
    GstElementFactory *f = gst_element_factory_find ("mvonvifmeta");
    if (!f) {
      g_printerr ("mvonvifmeta not found (is GST_PLUGIN_PATH set to the "
          "build's gst/ folder?)\n");
      return 1;
    }
    gst_object_unref (f);
  }

  {
    GMainLoop *main_loop = g_main_loop_new (NULL, FALSE);
    GstRTSPServer *server = gst_rtsp_server_new ();
    GstRTSPMediaFactory *factory = gst_rtsp_media_factory_new ();
    GstRTSPMountPoints *mounts = gst_rtsp_server_get_mount_points (server);
    gchar *line = launch_line (argv[1], backend ? backend : "auto",
        estimator ? estimator : "");
    gchar *service = g_strdup_printf ("%d", port);
    const gchar *path = mount ? mount : "/motion";

    gst_rtsp_server_set_address (server, address ? address : "0.0.0.0");
    gst_rtsp_server_set_service (server, service);
    gst_rtsp_media_factory_set_launch (factory, line);
    gst_rtsp_media_factory_set_shared (factory, TRUE);
    gst_rtsp_mount_points_add_factory (mounts, path, factory);
    g_object_unref (mounts);
    if (gst_rtsp_server_attach (server, NULL) == 0) {
      g_printerr ("cannot listen on %s:%d\n", address ? address : "0.0.0.0",
          port);
    } else {
      g_print ("serving rtsp://%s:%d%s\n", address ? address : "0.0.0.0",
          gst_rtsp_server_get_bound_port (server), path);
      fflush (stdout);
      g_main_loop_run (main_loop);
      rc = 0;
    }
    g_free (service);
    g_free (line);
    g_object_unref (server);
    g_main_loop_unref (main_loop);
  }
  g_free (mount);
  g_free (address);
  g_free (backend);
  g_free (estimator);
  return rc;
}
