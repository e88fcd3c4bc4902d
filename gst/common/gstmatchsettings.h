/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Properties kept in an element's plain Settings struct (house style: a
 * POD copied under the object lock and used unlocked). Each such property
 * is installed with the offset of its field, so that set_property,
 * get_property and init need no case per property: they copy between the
 * GValue and the field, whose C type follows the pspec's value type:
 *
 *   G_TYPE_BOOLEAN gboolean, G_TYPE_INT gint, G_TYPE_UINT guint,
 *   G_TYPE_UINT64 guint64, G_TYPE_DOUBLE gdouble, an enum its C enum
 *   (int-sized, as GLib's enum values are), G_TYPE_STRING gchar * (owned
 *   by the settings: zero the struct before init, and clear it).
 *
 * Other properties (read-only state, strings) keep their own cases.
 */
#ifndef __GST_MATCH_SETTINGS_H__
#define __GST_MATCH_SETTINGS_H__

#include <gst/gst.h>

G_BEGIN_DECLS

/* class_init: installs `pspec` as property `prop_id` of `klass`, its value
 * kept at byte `offset` of the settings struct (G_STRUCT_OFFSET). */
void gst_match_settings_install (GObjectClass * klass, guint prop_id,
    gsize offset, GParamSpec * pspec);

/* The same for a property that sets two fields of the same type at once
 * (block-size: block_width and block_height) and reads the first. */
void gst_match_settings_install_pair (GObjectClass * klass, guint prop_id,
    gsize offset, gsize second_offset, GParamSpec * pspec);

/* init: every property of `klass` kept in settings gets its default. */
void gst_match_settings_init (GObjectClass * klass, gpointer settings);

/* The same where a class keeps its properties in more than one settings
 * struct (a base class's and a subclass's, told apart by their ids): only
 * the properties with ids `first_id` .. `last_id` are set. */
void gst_match_settings_init_ids (GObjectClass * klass, gpointer settings,
    guint first_id, guint last_id);

/* set_property / get_property, under the object lock: copies `value` into
 * its field of `settings`, or the field into `value`. FALSE when `pspec`
 * is not kept in the settings (nothing copied). */
gboolean gst_match_settings_set (gpointer settings, GParamSpec * pspec,
    const GValue * value);
gboolean gst_match_settings_get (gconstpointer settings, GParamSpec * pspec,
    GValue * value);

/* Frees the string fields of `settings` (finalize) and sets them to NULL. */
void gst_match_settings_clear (GObjectClass * klass, gpointer settings);

/* Copies the `size` bytes of settings `src` over `dst` (whose strings are
 * freed first), duplicating the strings: a snapshot owned by its holder. */
void gst_match_settings_copy (GObjectClass * klass, gpointer dst,
    gconstpointer src, gsize size);

G_END_DECLS

#endif /* __GST_MATCH_SETTINGS_H__ */
