/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "mvrulesfile.h"

#include <json-glib/json-glib.h>

namespace {

/* A number as the syntax takes it (no exponent, '.' whatever the locale). */
void
append_number (std::string * out, double v)
{
  gchar buf[G_ASCII_DTOSTR_BUF_SIZE];
  g_ascii_formatd (buf, sizeof buf, "%.9f", v);
  std::string t = buf;
  /* Trailing zeros off: "0.1", "90", "1". */
  if (t.find ('.') != std::string::npos) {
    t.erase (t.find_last_not_of ('0') + 1);
    if (t.back () == '.')
      t.pop_back ();
  }
  out->append (t);
}

bool
is_number (JsonNode * n)
{
  if (!n || !JSON_NODE_HOLDS_VALUE (n))
    return false;
  const GType t = json_node_get_value_type (n);
  return t == G_TYPE_DOUBLE || t == G_TYPE_INT64;
}

/* "X,Y X,Y ..." of a "points" array of [x, y] pairs. */
bool
append_points (JsonObject * item, std::string * out, std::string * why)
{
  JsonNode * node = json_object_get_member (item, "points");
  if (!node || !JSON_NODE_HOLDS_ARRAY (node)) {
    *why = "\"points\": an array of [x, y] expected";
    return false;
  }
  JsonArray * points = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (points); i++) {
    JsonNode * p = json_array_get_element (points, i);
    JsonArray * xy = JSON_NODE_HOLDS_ARRAY (p) ? json_node_get_array (p) : NULL;
    if (!xy || json_array_get_length (xy) != 2
        || !is_number (json_array_get_element (xy, 0))
        || !is_number (json_array_get_element (xy, 1))) {
      *why = "each point is [x, y], two numbers";
      return false;
    }
    out->append (i ? " " : "");
    append_number (out, json_array_get_double_element (xy, 0));
    out->append (",");
    append_number (out, json_array_get_double_element (xy, 1));
  }
  return true;
}

/* One array of items into the syntax: "NAME=POINTS[ options];...". */
bool
append_items (JsonObject * root, const char * key, bool zones,
    std::string * out, std::string * error)
{
  JsonNode * node = json_object_get_member (root, key);
  if (!node)
    return true;
  if (!JSON_NODE_HOLDS_ARRAY (node)) {
    *error = std::string ("\"") + key + "\": an array expected";
    return false;
  }
  JsonArray * items = json_node_get_array (node);
  for (guint i = 0; i < json_array_get_length (items); i++) {
    JsonNode * n = json_array_get_element (items, i);
    JsonObject * item =
        JSON_NODE_HOLDS_OBJECT (n) ? json_node_get_object (n) : NULL;
    const char * name = item && json_object_has_member (item, "name")
        ? json_object_get_string_member (item, "name")
        : NULL;
    std::string why;
    if (!name) {
      *error = std::string (key) + "[" + std::to_string (i)
          + "]: an object with a \"name\" expected";
      return false;
    }
    out->append (i ? ";" : "");
    out->append (name);
    out->append ("=");
    if (!append_points (item, out, &why)) {
      *error = std::string (key) + " " + name + ": " + why;
      return false;
    }
    if (zones && json_object_has_member (item, "sensitivity")) {
      out->append (" sensitivity=");
      out->append (
          std::to_string (json_object_get_int_member (item, "sensitivity")));
    }
    if (zones && json_object_has_member (item, "direction")) {
      out->append (" direction=");
      append_number (out, json_object_get_double_member (item, "direction"));
      out->append ("/");
      append_number (out,
          json_object_has_member (item, "tolerance")
              ? json_object_get_double_member (item, "tolerance")
              : 45.0);
    }
  }
  return true;
}

}  // namespace

bool
mv_rules_file_load (const char * path, std::string * zones, std::string * lines,
    std::string * error)
{
  JsonParser * parser = json_parser_new ();
  GError * err = NULL;
  bool ok = false;
  zones->clear ();
  lines->clear ();
  if (!json_parser_load_from_file (parser, path, &err)) {
    *error = err ? err->message : "cannot read it";
  } else {
    JsonNode * root = json_parser_get_root (parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT (root))
      *error = "a JSON object {\"zones\": [...], \"lines\": [...]} expected";
    else
      ok = append_items (json_node_get_object (root), "zones", true, zones,
               error)
          && append_items (json_node_get_object (root), "lines", false, lines,
              error);
  }
  g_clear_error (&err);
  g_object_unref (parser);
  return ok;
}
