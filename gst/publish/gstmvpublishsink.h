/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * GstMvPublishSink: the base class of the sinks that publish each buffer
 * as one message to a broker (mvmqttsink, mvkafkasink, mvnatssink). It
 * owns what does not depend on the transport:
 *   - the bounded queue (MvPublishQueue) with its drop policy, counters
 *     and reports (warning + element message `<name>-dropped`);
 *   - the properties max-queue, drain-timeout, reconnect-delay,
 *     reconnect-delay-max, dropped, queued, connected and stats;
 *   - the topic (subject, key) templates with {camera-id}, {type} and
 *     {event};
 *   - the drain at EOS, flushing, and the errors: a client's failures are
 *     classified (MvPublishError) and posted as GStreamer errors, a fatal
 *     one from a network thread once the sink is PLAYING;
 *   - the Listener the client calls (connection messages
 *     `<name>-connection`).
 * A subclass keeps only its client: its properties, open (start the
 * client), close (stop it) and publish (hand one message over, never
 * blocking, with the queue's lock held).
 */
#ifndef __GST_MV_PUBLISH_SINK_H__
#define __GST_MV_PUBLISH_SINK_H__

#include <gst/gst.h>
#include <gst/base/gstbasesink.h>

#include "publish/mvpublishclient.h"
#include "publish/mvpublishqueue.h"

G_BEGIN_DECLS

#define GST_TYPE_MV_PUBLISH_SINK (gst_mv_publish_sink_get_type ())
G_DECLARE_DERIVABLE_TYPE (GstMvPublishSink, gst_mv_publish_sink, GST,
    MV_PUBLISH_SINK, GstBaseSink)

/* The base class's settings, copied at start (read them in open). */
typedef struct
{
  guint max_queue;
  guint64 drain_timeout;
  guint reconnect_delay;
  guint reconnect_delay_max; /* at least reconnect_delay */
} GstMvPublishSettings;

/* Which template gst_mv_publish_sink_set_template sets. */
typedef enum
{
  GST_MV_PUBLISH_TEMPLATE_TOPIC,
  GST_MV_PUBLISH_TEMPLATE_KEY,
} GstMvPublishTemplate;

struct _GstMvPublishSinkClass
{
  GstBaseSinkClass parent_class;

  /* Set in class_init. `transport` names it in messages ("MQTT");
   * `max_inflight` bounds the messages handed to the client at a time
   * (never more than max-queue); 0: half of max-queue, for a client that
   * batches by itself, so that an overflow still finds a queued frame to
   * drop rather than a new event. */
  const gchar * transport;
  guint max_inflight;

  /* Whether byte `c` may stay in a placeholder's value (else it becomes
   * '_'); NULL: any. */
  gboolean (*value_char_ok) (guchar c);
  /* Whether a rendered topic may be published to; NULL: any non-empty.
   * `topic_rules` says what topic_valid wants, for the error. */
  gboolean (*topic_valid) (const gchar * topic);
  const gchar * topic_rules;

  /* start: checks the subclass's settings, sets the topic template (and
   * the endpoint) and starts the client, without waiting for the server.
   * FALSE after posting an error (gst_mv_publish_sink_error). */
  gboolean (
      *open) (GstMvPublishSink * sink, const GstMvPublishSettings * settings);
  /* stop: stops the client (joins its threads). Not called with a lock
   * that the client's Listener calls take. */
  void (*close) (GstMvPublishSink * sink);
  /* Hands `msg` to the client, with the queue's lock held: it must not
   * block, and must not call the Listener. */
  MvPublishResult (*publish) (GstMvPublishSink * sink,
      const MvPublishMessage & msg, int * mid);
  /* Optional, on the client's thread: an established connection is lost
   * (before the queue stops sending), e.g. to give back messages the
   * client forgot (MvPublishQueue::requeue_inflight). */
  void (*lost) (GstMvPublishSink * sink);

  /* Where the subclass keeps its own properties, installed with
   * gst_match_settings_install (gst_mv_publish_sink_class_set_settings). */
  gsize settings_offset;
  gsize run_offset;
  gsize settings_size;

  gpointer _gst_reserved[GST_PADDING];
};

/* class_init: the subclass keeps its properties in a plain settings
 * struct at `settings_offset` of its instance (gstmatchsettings.h); the
 * base class then sets them to their defaults, gets and sets them under
 * the object lock, copies them to the struct at `run_offset` before open
 * (read them there) and frees their strings. */
void gst_mv_publish_sink_class_set_settings (GstMvPublishSinkClass * klass,
    gsize settings_offset, gsize run_offset, gsize size);

/* The Listener of `sink`'s client (valid for the sink's life). */
MvPublishListener * gst_mv_publish_sink_listener (GstMvPublishSink * sink);

/* In open: parses and checks template `tmpl` (placeholders {camera-id},
 * {type}, {event}; the topic must pass topic_valid with each replaced by
 * "x"). FALSE after posting an error naming property `property`. */
gboolean gst_mv_publish_sink_set_template (GstMvPublishSink * sink,
    GstMvPublishTemplate which, const gchar * tmpl, const gchar * property);

/* In open: how messages name the server ("the MQTT broker host:1883"),
 * and the fields the connection message carries besides `connected` and
 * `reason` (host, port; taken). */
void gst_mv_publish_sink_set_endpoint (GstMvPublishSink * sink,
    const gchar * description, GstStructure * fields);

/* Posts an error of class `kind` (RESOURCE SETTINGS, NOT_FOUND,
 * OPEN_WRITE, FAILED) with `text` for users and `debug`. */
void gst_mv_publish_sink_error (GstMvPublishSink * sink, MvPublishError kind,
    const gchar * text, const gchar * debug);

/* The client's queue, for requeue_inflight() after a disconnection. */
MvPublishQueue * gst_mv_publish_sink_queue (GstMvPublishSink * sink);

/* Whether an optional string setting is set (not NULL, not empty). */
static inline gboolean
gst_mv_publish_is_set (const gchar * s)
{
  return s && *s;
}

/* class_init: installs ca-file, cert-file and key-file (TLS, PEM) as
 * properties `first_id` to `first_id + 2`, kept at those offsets of the
 * subclass's settings; `ca_blurb` says what ca-file does there. */
void gst_mv_publish_sink_class_install_tls_files (GstMvPublishSinkClass * klass,
    guint first_id, gsize ca_offset, gsize cert_offset, gsize key_offset,
    const gchar * ca_blurb);

/* In open: TRUE when `path` is unset (NULL, empty) or a regular file;
 * else FALSE after posting an error naming `property`. */
gboolean gst_mv_publish_sink_check_file (GstMvPublishSink * sink,
    const gchar * property, const gchar * path);

G_END_DECLS

#endif /* __GST_MV_PUBLISH_SINK_H__ */
