/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * A strict JSON (RFC 8259) syntax check for the tests of the elements that
 * write JSON (mvexport's lines, mvmetastream's stream): recursive descent,
 * enough to prove that each line parses with any JSON reader.
 */
#pragma once

#include <cstring>
#include <string>

#include <glib.h>

struct TestJsonCheck {
  const char *p;
  void ws() {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
  }
  bool lit(const char *w) {
    const size_t n = strlen(w);
    if (strncmp(p, w, n)) return false;
    p += n;
    return true;
  }
  bool str() {
    if (*p++ != '"') return false;
    while (*p && *p != '"') {
      if ((unsigned char)*p < 0x20) return false;
      if (*p == '\\') {
        p++;
        if (*p == 'u') {
          for (int i = 1; i <= 4; i++)
            if (!g_ascii_isxdigit(p[i])) return false;
          p += 4;
        } else if (!strchr("\"\\/bfnrt", *p) || !*p) {
          return false;
        }
      }
      p++;
    }
    return *p++ == '"';
  }
  bool num() {
    const char *s = p;
    if (*p == '-') p++;
    if (*p == '0')
      p++;
    else if (g_ascii_isdigit(*p))
      while (g_ascii_isdigit(*p)) p++;
    else
      return false;
    if (*p == '.') {
      p++;
      if (!g_ascii_isdigit(*p)) return false;
      while (g_ascii_isdigit(*p)) p++;
    }
    if (*p == 'e' || *p == 'E') {
      p++;
      if (*p == '+' || *p == '-') p++;
      if (!g_ascii_isdigit(*p)) return false;
      while (g_ascii_isdigit(*p)) p++;
    }
    return p > s;
  }
  bool value() {
    ws();
    bool ok;
    if (*p == '{') {
      p++;
      ws();
      if (*p == '}') {
        p++;
        return true;
      }
      do {
        ws();
        if (!str()) return false;
        ws();
        if (*p++ != ':' || !value()) return false;
        ws();
      } while (*p == ',' && p++);
      ok = *p++ == '}';
    } else if (*p == '[') {
      p++;
      ws();
      if (*p == ']') {
        p++;
        return true;
      }
      do {
        if (!value()) return false;
        ws();
      } while (*p == ',' && p++);
      ok = *p++ == ']';
    } else if (*p == '"') {
      ok = str();
    } else if (*p == 't') {
      ok = lit("true");
    } else if (*p == 'f') {
      ok = lit("false");
    } else if (*p == 'n') {
      ok = lit("null");
    } else {
      ok = num();
    }
    return ok;
  }
};

/* TRUE when `s` is exactly one JSON value (an object when `object`). */
inline bool test_json_valid(const std::string &s, bool object = false) {
  TestJsonCheck c{s.c_str()};
  if (object && *c.p != '{') return false;
  if (!c.value()) return false;
  c.ws();
  return *c.p == '\0';
}
