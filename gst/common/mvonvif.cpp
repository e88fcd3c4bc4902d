/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "mvonvif.h"

#include <cmath>
#include <cstring>
#include <ctime>

/* Runs of 3 or more equal bytes are replicated; shorter ones stay in the
 * literal stretches around them (a run of 2 between literals costs as
 * much either way, and breaking the literal would cost a header more). */
void
mv_onvif_packbits (const uint8_t * d, size_t n, std::vector<uint8_t> * out)
{
  auto run_at = [d, n] (size_t i) {
    size_t run = 1;
    while (i + run < n && run < 128 && d[i + run] == d[i])
      run++;
    return run;
  };
  size_t i = 0;
  while (i < n) {
    const size_t run = run_at (i);
    if (run >= 3 || run == n - i) {
      if (run >= 2) {
        out->push_back ((uint8_t) (257 - run)); /* 1 - run, signed */
        out->push_back (d[i]);
        i += run;
        continue;
      }
    }
    /* A literal stretch, up to the next run of 3 or 128 bytes. */
    const size_t start = i;
    while (i < n && i - start < 128 && (i == start || run_at (i) < 3))
      i++;
    out->push_back ((uint8_t) (i - start - 1));
    out->insert (out->end (), d + start, d + i);
  }
}

gboolean
mv_onvif_unpackbits (const uint8_t * d, size_t n, std::vector<uint8_t> * out)
{
  size_t i = 0;
  while (i < n) {
    const int h = (int8_t) d[i++];
    if (h >= 0) {
      if (i + h + 1 > n)
        return FALSE;
      out->insert (out->end (), d + i, d + i + h + 1);
      i += h + 1;
    } else if (h != -128) {
      if (i >= n)
        return FALSE;
      out->insert (out->end (), (size_t) (1 - h), d[i++]);
    }
  }
  return TRUE;
}

void
mv_onvif_cells_bitmap (const uint8_t * moving, guint columns, guint rows,
    std::vector<uint8_t> * bits)
{
  const size_t n = (size_t) columns * rows;
  bits->assign ((n + 7) / 8, 0);
  for (size_t i = 0; i < n; i++)
    if (moving[i])
      (*bits)[i / 8] |= (uint8_t) (0x80u >> (i % 8));
}

void
mv_onvif_append_utc (GString * out, gint64 unix_ns)
{
  const gint64 ms = unix_ns >= 0 ? unix_ns / 1000000 : 0;
  const time_t secs = (time_t) (ms / 1000);
  struct tm tm;
  gmtime_r (&secs, &tm);
  g_string_append_printf (out, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
      tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min,
      tm.tm_sec, (int) (ms % 1000));
}

void
mv_onvif_append_number (GString * out, gdouble v)
{
  if (!std::isfinite (v))
    v = 0.0;
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.6f", v);
  /* Trailing zeros (and a bare point) off: "0.5", "-1", "0". */
  gchar * end = buf + strlen (buf);
  while (end > buf && end[-1] == '0')
    end--;
  if (end > buf && end[-1] == '.')
    end--;
  *end = '\0';
  g_string_append (out, strcmp (buf, "-0") == 0 ? "0" : buf);
}

/* An attribute value with XML's five escapes. */
static void
append_escaped (GString * out, const gchar * s)
{
  for (; s && *s; s++) {
    switch (*s) {
      case '&':
        g_string_append (out, "&amp;");
        break;
      case '<':
        g_string_append (out, "&lt;");
        break;
      case '>':
        g_string_append (out, "&gt;");
        break;
      case '"':
        g_string_append (out, "&quot;");
        break;
      case '\'':
        g_string_append (out, "&apos;");
        break;
      default:
        g_string_append_c (out, *s);
    }
  }
}

static void
append_attr (GString * out, const gchar * name, gdouble v)
{
  g_string_append_c (out, ' ');
  g_string_append (out, name);
  g_string_append (out, "=\"");
  mv_onvif_append_number (out, v);
  g_string_append_c (out, '"');
}

void
mv_onvif_begin (GString * out)
{
  g_string_truncate (out, 0);
  g_string_append (out,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<tt:MetadataStream xmlns:tt=\"http://www.onvif.org/ver10/schema\" "
      "xmlns:wsnt=\"http://docs.oasis-open.org/wsn/b-2\" "
      "xmlns:tns1=\"http://www.onvif.org/ver10/topics\" "
      "xmlns:mv=\"" MV_ONVIF_NAMESPACE "\">");
}

void
mv_onvif_append_frame (GString * out, gint64 unix_ns, gint width, gint height,
    const MvOnvifObject * objects, guint n_objects, const uint8_t * moving,
    guint columns, guint rows, std::vector<uint8_t> * scratch,
    std::vector<uint8_t> * packed)
{
  /* Pixels to the normalised system: x' = 2 x / width - 1,
   * y' = 1 - 2 y / height. */
  const gdouble sx = width > 0 ? 2.0 / width : 0.0;
  const gdouble sy = height > 0 ? 2.0 / height : 0.0;
  g_string_append (out, "<tt:VideoAnalytics><tt:Frame UtcTime=\"");
  mv_onvif_append_utc (out, unix_ns);
  g_string_append (out, "\">");
  for (guint k = 0; k < n_objects; k++) {
    const MvOnvifObject & o = objects[k];
    g_string_append_printf (out,
        "<tt:Object ObjectId=\"%u\"><tt:Appearance><tt:Shape>"
        "<tt:BoundingBox",
        o.id);
    append_attr (out, "left", o.x * sx - 1.0);
    append_attr (out, "top", 1.0 - o.y * sy);
    append_attr (out, "right", (o.x + o.w) * sx - 1.0);
    append_attr (out, "bottom", 1.0 - (o.y + o.h) * sy);
    g_string_append (out, "/><tt:CenterOfGravity");
    append_attr (out, "x", (o.x + o.w * 0.5) * sx - 1.0);
    append_attr (out, "y", 1.0 - (o.y + o.h * 0.5) * sy);
    g_string_append (out, "/></tt:Shape>");
    if (o.has_velocity) {
      /* Normalised units per second, y up, as the coordinates. */
      g_string_append (out, "<tt:Extension><mv:Velocity");
      append_attr (out, "x", o.vx * sx);
      append_attr (out, "y", -o.vy * sy);
      g_string_append (out, "/></tt:Extension>");
    }
    g_string_append (out, "</tt:Appearance></tt:Object>");
  }
  if (moving && columns > 0 && rows > 0) {
    mv_onvif_cells_bitmap (moving, columns, rows, scratch);
    packed->clear ();
    mv_onvif_packbits (scratch->data (), scratch->size (), packed);
    g_string_append_printf (out,
        "<tt:Extension><tt:MotionInCells Columns=\"%u\" Rows=\"%u\" "
        "Cells=\"",
        columns, rows);
    /* Base64 straight into the document (g_base64_encode_step's bound:
     * 4 characters per 3 bytes, 4 more, and a line break per 72 unused). */
    const gsize at = out->len;
    g_string_set_size (out, at + (packed->size () / 3 + 1) * 4 + 4);
    gint state = 0, save = 0;
    gsize n = g_base64_encode_step (packed->data (), packed->size (), FALSE,
        out->str + at, &state, &save);
    n += g_base64_encode_close (FALSE, out->str + at + n, &state, &save);
    g_string_truncate (out, at + n);
    g_string_append (out, "\"/></tt:Extension>");
  }
  g_string_append (out, "</tt:Frame></tt:VideoAnalytics>");
}

void
mv_onvif_append_event (GString * out, const MvOnvifEvent & e,
    const MvOnvifTokens & tokens)
{
  g_string_append (out,
      "<tt:Event><wsnt:NotificationMessage><wsnt:Topic Dialect=\""
      "http://www.onvif.org/ver10/tev/topicExpression/ConcreteSet\">");
  g_string_append (out,
      e.crossing    ? "tns1:RuleEngine/LineDetector/Crossed"
          : e.field ? "tns1:RuleEngine/FieldDetector/ObjectsInside"
                    : "tns1:RuleEngine/CellMotionDetector/Motion");
  g_string_append (out, "</wsnt:Topic><wsnt:Message><tt:Message UtcTime=\"");
  mv_onvif_append_utc (out, e.unix_ns);
  g_string_append_c (out, '"');
  /* Motion and an object's being inside are properties (states); a
   * crossing is an event. */
  if (!e.crossing) {
    g_string_append (out, " PropertyOperation=\"");
    g_string_append (out,
        e.field && e.deleted ? "Deleted"
            : e.initialized  ? "Initialized"
                             : "Changed");
    g_string_append_c (out, '"');
  }
  g_string_append (out,
      "><tt:Source><tt:SimpleItem "
      "Name=\"VideoSourceConfigurationToken\" Value=\"");
  append_escaped (out, tokens.source);
  g_string_append (out,
      "\"/><tt:SimpleItem "
      "Name=\"VideoAnalyticsConfigurationToken\" Value=\"");
  append_escaped (out, tokens.analytics);
  g_string_append (out, "\"/><tt:SimpleItem Name=\"Rule\" Value=\"");
  append_escaped (out, e.rule ? e.rule : tokens.rule);
  g_string_append (out, "\"/></tt:Source>");
  if (e.field) {
    /* Each object has its own ObjectsInside: the object is the key. */
    g_string_append_printf (out,
        "<tt:Key><tt:SimpleItem Name=\"ObjectId\" Value=\"%u\"/></tt:Key>",
        e.object);
    if (!e.deleted)
      g_string_append_printf (out,
          "<tt:Data><tt:SimpleItem Name=\"IsInside\" Value=\"%s\"/>"
          "</tt:Data>",
          e.inside ? "true" : "false");
    g_string_append (out,
        "</tt:Message></wsnt:Message></wsnt:NotificationMessage></tt:Event>");
    return;
  }
  g_string_append (out, "<tt:Data>");
  if (e.crossing)
    g_string_append_printf (out,
        "<tt:SimpleItem Name=\"ObjectId\" Value=\"%u\"/>", e.object);
  else
    g_string_append_printf (out,
        "<tt:SimpleItem Name=\"IsMotion\" Value=\"%s\"/>",
        e.is_motion ? "true" : "false");
  g_string_append (out,
      "</tt:Data></tt:Message></wsnt:Message>"
      "</wsnt:NotificationMessage></tt:Event>");
}

void
mv_onvif_end (GString * out)
{
  g_string_append (out, "</tt:MetadataStream>\n");
}
