/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * What a client of a publishing sink (libmosquitto, librdkafka, libnats;
 * gstmvpublishsink.h) tells the sink, and the reconnection backoff they
 * share. No GStreamer here: the clients' network threads call the
 * Listener, and the sink turns each call into queue work and bus
 * messages.
 */
#ifndef __MV_PUBLISH_CLIENT_H__
#define __MV_PUBLISH_CLIENT_H__

#include <glib.h>

/* The classes of errors a client reports; each has its GStreamer error
 * code (gst_mv_publish_sink_error). */
enum class MvPublishError
{
  SETTINGS,  /* an option the client or its library does not accept */
  NOT_FOUND, /* a host name that does not resolve, a file not readable */
  TLS,       /* the TLS handshake failed before any connection */
  REFUSED,   /* the server refused the client (credentials, rights) */
  CLIENT,    /* the client library failed (out of memory, threads) */
};

class MvPublishListener
{
public:
  virtual ~MvPublishListener () = default;
  /* The server accepted the connection: pending messages are sent. */
  virtual void connected () = 0;
  /* An established connection is lost; reconnection follows. */
  virtual void connection_lost (const char * reason) = 0;
  /* The first failed attempt of an outage (at start, or after the
   * connection was lost); the later ones of the same outage are quiet.
   * Reconnection follows. */
  virtual void unreachable (const char * reason) = 0;
  /* Message `mid` (of MvPublishQueue's publish function) is delivered:
   * acknowledged, or written where the transport acknowledges nothing. */
  virtual void published (int mid) = 0;
  /* Message `mid` was not delivered but a resend may be (an
   * acknowledgement timed out): it goes back into the queue, in order. */
  virtual void retry (int mid, const char * reason) = 0;
  /* Message `mid` can never be delivered: counted as dropped
   * (MV_PUBLISH_DROP_REJECTED) and reported. */
  virtual void failed (int mid, const char * reason) = 0;
  /* A failure that retrying cannot mend. `text` is a sentence for users,
   * `debug` the details. The sink posts it as an error once PLAYING. */
  virtual void fatal (MvPublishError kind, const char * text,
      const char * debug) = 0;
};

/* Seconds before reconnection attempt `attempt` (0, 1, ...): `delay` *
 * 2^attempt, at most `delay_max`. */
static inline guint64
mv_publish_backoff_s (guint attempt, guint delay, guint delay_max)
{
  const guint shift = MIN (attempt, 16u);
  return MIN ((guint64) delay << shift, (guint64) MAX (delay_max, delay));
}

#endif /* __MV_PUBLISH_CLIENT_H__ */
