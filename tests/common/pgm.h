/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Binary PGM (P5, maxval 255) reader with '#' comments in the header, for
 * tests that must not depend on GStreamer's decoders.
 */
#pragma once

#include <cctype>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

inline bool pgm_read(const std::string& path, int* width, int* height,
                     std::vector<uint8_t>* pixels) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) return false;
  auto next_int = [f](int* out) {
    int c = fgetc(f);
    for (;;) {
      while (c != EOF && isspace(c)) c = fgetc(f);
      if (c != '#') break;
      while (c != EOF && c != '\n') c = fgetc(f);
    }
    if (c == EOF || !isdigit(c)) return false;
    int v = 0;
    while (c != EOF && isdigit(c)) {
      v = v * 10 + (c - '0');
      c = fgetc(f);
    }
    *out = v; /* c is the single whitespace that ends the header field */
    return true;
  };
  int w = 0, h = 0, maxval = 0;
  bool ok = fgetc(f) == 'P' && fgetc(f) == '5' && next_int(&w) && next_int(&h) &&
            next_int(&maxval) && maxval == 255 && w > 0 && h > 0;
  if (ok) {
    pixels->resize(static_cast<size_t>(w) * h);
    ok = fread(pixels->data(), 1, pixels->size(), f) == pixels->size();
    *width = w;
    *height = h;
  }
  fclose(f);
  return ok;
}
