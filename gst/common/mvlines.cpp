/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "mvlines.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace {

/* A track not seen for this many frames is forgotten (longer than any
 * coasting at the elements' frame rates). */
constexpr uint64_t kForgetFrames = 600;

}  // namespace

void
mv_skip_blanks (const char *& p)
{
  while (*p == ' ' || *p == '\t')
    p++;
}

bool
mv_read_name (const char *& p, std::string * name)
{
  mv_skip_blanks (p);
  name->clear ();
  while (isalnum ((unsigned char) *p) || *p == '-' || *p == '_')
    *name += *p++;
  return !name->empty ();
}

bool
mv_read_number (const char *& p, double * v)
{
  mv_skip_blanks (p);
  const char * s = p;
  if (*s == '+' || *s == '-')
    s++;
  bool digits = false;
  double int_part = 0, frac = 0, scale = 1;
  while (isdigit ((unsigned char) *s)) {
    int_part = int_part * 10 + (*s++ - '0');
    digits = true;
  }
  if (*s == '.') {
    s++;
    while (isdigit ((unsigned char) *s)) {
      scale /= 10;
      frac += (*s++ - '0') * scale;
      digits = true;
    }
  }
  if (!digits)
    return false;
  *v = (*p == '-' ? -1.0 : 1.0) * (int_part + frac);
  p = s;
  return true;
}

bool
mv_read_point (const char *& p, double * x, double * y)
{
  const char * s = p;
  if (!mv_read_number (s, x))
    return false;
  mv_skip_blanks (s);
  if (*s != ',')
    return false;
  s++;
  if (!mv_read_number (s, y))
    return false;
  p = s;
  return true;
}

bool
mv_lines_parse (const char * text, std::vector<MvLine> * out,
    std::string * error)
{
  return mv_parse_items (text, "line", out, error,
      [] (const char *& p, MvLine * l, std::string * why) {
        if (!mv_read_point (p, &l->x0, &l->y0)
            || !mv_read_point (p, &l->x1, &l->y1))
          *why = "two points \"X0,Y0 X1,Y1\" expected";
        else if (!(l->x0 >= 0.0 && l->x0 <= 1.0 && l->y0 >= 0.0 && l->y0 <= 1.0
                     && l->x1 >= 0.0 && l->x1 <= 1.0 && l->y1 >= 0.0
                     && l->y1 <= 1.0))
          *why = "coordinates are fractions of the frame, 0 to 1";
        else if (l->x0 == l->x1 && l->y0 == l->y1)
          *why = "its two points are the same";
        return why->empty ();
      });
}

void
MvLineCounter::set_lines (const std::vector<MvLine> & lines)
{
  lines_ = lines;
  counts_.assign (lines.size (), Count ());
  seen_.clear ();
}

void
MvLineCounter::forget_tracks ()
{
  seen_.clear ();
}

void
MvLineCounter::process (const MvTrackPoint * points, size_t n, int width,
    int height, std::vector<MvCrossing> * out)
{
  frame_++;
  if (lines_.empty () || width <= 0 || height <= 0)
    return;
  const double band = kMvLineBand * std::hypot ((double) width, height);
  for (size_t k = 0; k < n; k++) {
    const MvTrackPoint & pt = points[k];
    auto it = std::find_if (seen_.begin (), seen_.end (),
        [&] (const Seen & s) { return s.id == pt.id; });
    const bool known = it != seen_.end ();
    if (!known) {
      seen_.push_back (
          Seen{ pt.id, frame_, std::vector<int8_t> (lines_.size (), 0) });
      it = seen_.end () - 1;
    }
    for (size_t l = 0; l < lines_.size (); l++) {
      const MvLine & L = lines_[l];
      const double ax = L.x0 * width, ay = L.y0 * height;
      const double bx = L.x1 * width, by = L.y1 * height;
      const double ux = bx - ax, uy = by - ay;
      const double len = std::hypot (ux, uy);
      /* Signed distance, > 0 on the right of A -> B (y down). */
      const double d = (ux * (pt.y - ay) - uy * (pt.x - ax)) / len;
      const int side = d > band ? 1 : d < -band ? -1 : 0;
      int8_t & was = it->side[l];
      if (side == 0)
        continue;
      if (known && was != 0 && was != side) {
        /* Within the line's extent: the centre's projection on it. */
        const double t = ((pt.x - ax) * ux + (pt.y - ay) * uy) / (len * len);
        if (t >= 0.0 && t <= 1.0) {
          Count & c = counts_[l];
          (side > 0 ? c.positive : c.negative)++;
          out->push_back (MvCrossing{ l, pt.id, side, c.positive, c.negative });
        }
      }
      was = (int8_t) side;
    }
    it->frame = frame_;
  }
  seen_.erase (std::remove_if (seen_.begin (), seen_.end (),
                   [&] (const Seen & s) {
                     return frame_ - s.frame > kForgetFrames;
                   }),
      seen_.end ());
}
