/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 */
#include "mvzones.h"

#include <algorithm>
#include <cmath>

#include "mvlines.h"

uint64_t
mv_zone_dwell (int sensitivity)
{
  const int s = std::clamp (sensitivity, 0, 100);
  return (uint64_t) (100 - s) * 10000000ull; /* 10 ms a step: 1 s at 0 */
}

/* A zone's points and options, after its "NAME=". */
static bool
read_zone (const char *& p, MvZone * z, std::string * why)
{
  z->dwell = mv_zone_dwell (100);
  double x, y;
  while (mv_read_point (p, &x, &y)) {
    if (!(x >= 0.0 && x <= 1.0 && y >= 0.0 && y <= 1.0)) {
      *why = "coordinates are fractions of the frame, 0 to 1";
      return false;
    }
    z->x.push_back (x);
    z->y.push_back (y);
  }
  if (z->x.size () < 3) {
    *why = "at least 3 points \"X,Y X,Y X,Y\"";
    return false;
  }
  /* Options: key=value, blank separated. */
  for (;;) {
    mv_skip_blanks (p);
    if (!*p || *p == ';')
      return true;
    std::string key;
    double v, t = 0;
    if (!mv_read_name (p, &key) || *p != '=') {
      *why = "point or option expected";
      return false;
    }
    p++;
    if (!mv_read_number (p, &v)) {
      *why = key + " needs a number";
      return false;
    }
    if (key == "sensitivity") {
      if (!(v >= 0 && v <= 100) || v != std::floor (v)) {
        *why = "sensitivity is 0 .. 100";
        return false;
      }
      z->dwell = mv_zone_dwell ((int) v);
    } else if (key == "direction") {
      if (*p != '/' || (p++, !mv_read_number (p, &t))) {
        *why = "direction is DEGREES/TOLERANCE, e.g. 90/45";
        return false;
      }
      if (!(v >= 0 && v <= 360 && t >= 0 && t <= 180)) {
        *why = "direction 0 .. 360, tolerance 0 .. 180 degrees";
        return false;
      }
      z->has_direction = true;
      z->direction = v;
      z->tolerance = t;
    } else {
      *why = "unknown option " + key + " (sensitivity, direction)";
      return false;
    }
  }
}

bool
mv_zones_parse (const char * text, std::vector<MvZone> * out,
    std::string * error)
{
  return mv_parse_items (text, "zone", out, error, read_zone);
}

bool
mv_zone_contains (const MvZone & z, double x, double y)
{
  bool in = false;
  const size_t n = z.x.size ();
  for (size_t i = 0, j = n - 1; i < n; j = i++)
    if ((z.y[i] > y) != (z.y[j] > y)
        && x < (z.x[j] - z.x[i]) * (y - z.y[i]) / (z.y[j] - z.y[i]) + z.x[i])
      in = !in;
  return in;
}

/* Whether a track's motion counts in a zone with a direction filter. */
static bool
direction_ok (const MvZone & z, double vx, double vy)
{
  if (!z.has_direction)
    return true;
  if (std::hypot (vx, vy) < kMvZoneMinSpeed)
    return false;
  double a = std::atan2 (vy, vx) * 180.0 / M_PI;
  const double d =
      std::fabs (std::fmod (a - z.direction + 540.0, 360.0) - 180.0);
  return d <= z.tolerance;
}

void
MvZoneWatcher::set_zones (const std::vector<MvZone> & zones)
{
  zones_ = zones;
  state_.assign (zones.size (), State ());
  inside_.clear ();
}

void
MvZoneWatcher::process (const MvTrackPoint * tracks, size_t n, int width,
    int height, uint64_t t, uint64_t hold_off, std::vector<MvZoneEvent> * out)
{
  frame_++;
  if (zones_.empty () || width <= 0 || height <= 0)
    return;
  for (size_t z = 0; z < zones_.size (); z++) {
    const MvZone & zone = zones_[z];
    int counted = 0;
    uint32_t first = 0;
    uint64_t first_since = UINT64_MAX;
    for (size_t k = 0; k < n; k++) {
      const MvTrackPoint & tr = tracks[k];
      if (!mv_zone_contains (zone, tr.x / width, tr.y / height)
          || !direction_ok (zone, tr.vx, tr.vy))
        continue;
      auto it = std::find_if (inside_.begin (), inside_.end (),
          [&] (const Inside & i) { return i.zone == z && i.id == tr.id; });
      if (it == inside_.end ()) {
        inside_.push_back (Inside{ z, tr.id, t, frame_ });
        it = inside_.end () - 1;
      }
      it->seen = frame_;
      if (t - it->since < zone.dwell)
        continue;
      counted++;
      if (it->since < first_since) {
        first_since = it->since;
        first = tr.id;
      }
    }
    State & s = state_[z];
    if (counted) {
      s.last = t;
      s.quiet = false;
      if (!s.active) {
        s.active = true;
        s.start = t;
        MvZoneEvent e;
        e.zone = z;
        e.start = true;
        e.time = t;
        e.track = first;
        e.tracks = counted;
        out->push_back (e);
      }
    } else if (s.active) {
      if (!s.quiet) {
        s.quiet = true;
        s.quiet_since = t;
      }
      if (t - s.quiet_since >= hold_off) {
        MvZoneEvent e;
        e.zone = z;
        e.time = s.quiet_since;
        e.duration = s.quiet_since - s.start;
        e.reason = "hold-off";
        out->push_back (e);
        s = State ();
      }
    }
  }
  /* A track that left a zone (or stopped counting in it) dwells anew. */
  inside_.erase (std::remove_if (inside_.begin (), inside_.end (),
                     [&] (const Inside & i) { return i.seen != frame_; }),
      inside_.end ());
}

void
MvZoneWatcher::reset (const char * reason, std::vector<MvZoneEvent> * out)
{
  for (size_t z = 0; z < state_.size (); z++) {
    State & s = state_[z];
    if (s.active) {
      MvZoneEvent e;
      e.zone = z;
      e.time = s.quiet ? s.quiet_since : s.last;
      e.duration = e.time - s.start;
      e.reason = reason;
      out->push_back (e);
    }
    s = State ();
  }
  inside_.clear ();
}
