/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include "gstmatchsettings.h"

#include <cstring>

/* The qdata of a settings property's pspec: its field's offset + 1. */
static GQuark
offset_quark (void)
{
  static GQuark quark = g_quark_from_static_string ("gst-match-settings");
  return quark;
}

/* The qdata of a pair property's pspec: its second field's offset + 1. */
static GQuark
second_offset_quark (void)
{
  static GQuark quark = g_quark_from_static_string ("gst-match-settings-2");
  return quark;
}

/* The field of `pspec` in `settings` (the second one of a pair with
 * `quark` second_offset_quark()); NULL when `pspec` is not kept there. */
static guint8 *
field (gconstpointer settings, GParamSpec * pspec,
    GQuark quark = offset_quark ())
{
  const gsize offset = GPOINTER_TO_SIZE (g_param_spec_get_qdata (pspec, quark));

  return offset ? (guint8 *) settings + offset - 1 : NULL;
}

/* Fields are copied bytewise: an enum field is read and written as the
 * gint GLib gives its values. */
/* *INDENT-OFF* */
template <typename T>
static void
put (guint8 * f, T v)
{
  memcpy (f, &v, sizeof v);
}

template <typename T>
static T
take (const guint8 * f)
{
  T v;
  memcpy (&v, f, sizeof v);
  return v;
}
/* *INDENT-ON* */

void
gst_match_settings_install (GObjectClass * klass, guint prop_id, gsize offset,
    GParamSpec * pspec)
{
  g_param_spec_set_qdata (pspec, offset_quark (),
      GSIZE_TO_POINTER (offset + 1));
  g_object_class_install_property (klass, prop_id, pspec);
}

void
gst_match_settings_install_pair (GObjectClass * klass, guint prop_id,
    gsize offset, gsize second_offset, GParamSpec * pspec)
{
  g_param_spec_set_qdata (pspec, second_offset_quark (),
      GSIZE_TO_POINTER (second_offset + 1));
  gst_match_settings_install (klass, prop_id, offset, pspec);
}

void
gst_match_settings_init (GObjectClass * klass, gpointer settings)
{
  gst_match_settings_init_ids (klass, settings, 1, G_MAXUINT);
}

void
gst_match_settings_init_ids (GObjectClass * klass, gpointer settings,
    guint first_id, guint last_id)
{
  guint n = 0;
  GParamSpec ** pspecs = g_object_class_list_properties (klass, &n);

  for (guint i = 0; i < n; i++) {
    if (pspecs[i]->param_id >= first_id && pspecs[i]->param_id <= last_id)
      gst_match_settings_set (settings, pspecs[i],
          g_param_spec_get_default_value (pspecs[i]));
  }
  g_free (pspecs);
}

static gboolean set_field (guint8 * f, GParamSpec * pspec,
    const GValue * value);

gboolean
gst_match_settings_set (gpointer settings, GParamSpec * pspec,
    const GValue * value)
{
  guint8 * f = field (settings, pspec);
  guint8 * second = field (settings, pspec, second_offset_quark ());

  if (!f)
    return FALSE;
  if (second)
    set_field (second, pspec, value);
  return set_field (f, pspec, value);
}

static gboolean
set_field (guint8 * f, GParamSpec * pspec, const GValue * value)
{
  switch (G_TYPE_FUNDAMENTAL (G_PARAM_SPEC_VALUE_TYPE (pspec))) {
    case G_TYPE_BOOLEAN:
      put<gboolean> (f, g_value_get_boolean (value));
      break;
    case G_TYPE_INT:
      put<gint> (f, g_value_get_int (value));
      break;
    case G_TYPE_UINT:
      put<guint> (f, g_value_get_uint (value));
      break;
    case G_TYPE_UINT64:
      put<guint64> (f, g_value_get_uint64 (value));
      break;
    case G_TYPE_DOUBLE:
      put<gdouble> (f, g_value_get_double (value));
      break;
    case G_TYPE_ENUM:
      put<gint> (f, g_value_get_enum (value));
      break;
    case G_TYPE_STRING:
      g_free (take<gchar *> (f));
      put<gchar *> (f, g_value_dup_string (value));
      break;
    default:
      g_return_val_if_reached (FALSE);
  }
  return TRUE;
}

gboolean
gst_match_settings_get (gconstpointer settings, GParamSpec * pspec,
    GValue * value)
{
  const guint8 * f = field (settings, pspec);

  if (!f)
    return FALSE;
  switch (G_TYPE_FUNDAMENTAL (G_PARAM_SPEC_VALUE_TYPE (pspec))) {
    case G_TYPE_BOOLEAN:
      g_value_set_boolean (value, take<gboolean> (f));
      break;
    case G_TYPE_INT:
      g_value_set_int (value, take<gint> (f));
      break;
    case G_TYPE_UINT:
      g_value_set_uint (value, take<guint> (f));
      break;
    case G_TYPE_UINT64:
      g_value_set_uint64 (value, take<guint64> (f));
      break;
    case G_TYPE_DOUBLE:
      g_value_set_double (value, take<gdouble> (f));
      break;
    case G_TYPE_ENUM:
      g_value_set_enum (value, take<gint> (f));
      break;
    case G_TYPE_STRING:
      g_value_set_string (value, take<gchar *> (f));
      break;
    default:
      g_return_val_if_reached (FALSE);
  }
  return TRUE;
}

/* Calls `fn` on the string field of every settings property of `klass`. */
static void
for_each_string (GObjectClass * klass, gconstpointer settings,
    void (*fn) (guint8 * f, gpointer data), gpointer data)
{
  guint n = 0;
  GParamSpec ** pspecs = g_object_class_list_properties (klass, &n);

  for (guint i = 0; i < n; i++) {
    guint8 * f = field (settings, pspecs[i]);
    if (f && G_PARAM_SPEC_VALUE_TYPE (pspecs[i]) == G_TYPE_STRING)
      fn (f, data);
  }
  g_free (pspecs);
}

static void
free_string (guint8 * f, gpointer)
{
  g_free (take<gchar *> (f));
  put<gchar *> (f, NULL);
}

static void
dup_string (guint8 * f, gpointer)
{
  put<gchar *> (f, g_strdup (take<gchar *> (f)));
}

void
gst_match_settings_clear (GObjectClass * klass, gpointer settings)
{
  for_each_string (klass, settings, free_string, NULL);
}

void
gst_match_settings_copy (GObjectClass * klass, gpointer dst, gconstpointer src,
    gsize size)
{
  gst_match_settings_clear (klass, dst);
  memcpy (dst, src, size);
  for_each_string (klass, dst, dup_string, NULL);
}
