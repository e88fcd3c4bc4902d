/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Zones: polygons of the picture with a motion state of their own, started
 * and stopped by the decision's tracks inside them (the `zones` property of
 * the motion elements, docs/motion-events.md). Plain C++ on the tracks'
 * box centres and velocities; mvevents posts the zones' motion-start and
 * motion-stop.
 */
#ifndef __MV_ZONES_H__
#define __MV_ZONES_H__

#include <cstdint>
#include <string>
#include <vector>

#include "mvlines.h" /* MvTrackPoint */

/* A zone: a polygon in fractions of the frame (0 .. 1, x right, y down),
 * a dwell (how long a track must have been inside before it counts, ns)
 * and, optionally, the one direction of motion that counts (degrees, 0 =
 * right, 90 = down, as the regions' "direction", within +- tolerance). */
struct MvZone
{
  std::string name;
  std::vector<double> x, y; /* vertices, at least 3 */
  uint64_t dwell = 0;
  bool has_direction = false;
  double direction = 0, tolerance = 0;
};

/* The dwell of a zone's sensitivity (0 .. 100): 1 s at 0, none at 100
 * (the default: a confirmed track counts at once). */
uint64_t mv_zone_dwell (int sensitivity);

/* Parses the property's syntax: zones separated by ';', each
 * "NAME=X,Y X,Y X,Y ... [sensitivity=S] [direction=D/T]" (NAME as a
 * line's; at least 3 points in 0 .. 1; S in 0 .. 100; D in 0 .. 360, T in
 * 0 .. 180 degrees). FALSE (and *error) on a syntax error or a repeated
 * name, *out then untouched. */
bool mv_zones_parse (const char * text, std::vector<MvZone> * out,
    std::string * error);

/* Whether (x, y), fractions of the frame, is inside the polygon (even-odd
 * rule; a point on an edge may go either way). */
bool mv_zone_contains (const MvZone & zone, double x, double y);

/* A zone's motion-start or motion-stop. */
struct MvZoneEvent
{
  size_t zone = 0;
  bool start = false;
  uint64_t time = 0;     /* start: the frame's; stop: when motion ended */
  uint64_t duration = 0; /* stop: time - the start's time */
  uint32_t track = 0;    /* start: the track that started it */
  int tracks = 0;        /* start: tracks that count in the zone then */
  const char * reason = nullptr; /* stop: "hold-off", or reset ()'s */
};

/* Below this speed (pixels a frame) a track's direction is not known, and
 * a zone with a direction filter does not count it. */
constexpr double kMvZoneMinSpeed = 0.25;

class MvZoneWatcher
{
public:
  /* New zones: every zone idle, tracks forgotten. */
  void set_zones (const std::vector<MvZone> & zones);
  const std::vector<MvZone> & zones () const
  {
    return zones_;
  }
  /* One judged frame at running time `t` (ns) of a width x height
   * picture: the tracks seen on it. A zone starts when a track has been
   * in it (moving its way, with a filter) for its dwell, and stops once
   * `hold_off` ns have passed without one. Appends to *out. */
  void process (const MvTrackPoint * tracks, size_t n, int width, int height,
      uint64_t t, uint64_t hold_off, std::vector<MvZoneEvent> * out);
  /* Ends every active zone with `reason` (a flush, EOS, a new stream:
   * stopped when last counted), forgets the tracks; appends the stops. */
  void reset (const char * reason, std::vector<MvZoneEvent> * out);
  bool active (size_t zone) const
  {
    return state_[zone].active;
  }

private:
  struct State
  {
    bool active = false;
    uint64_t start = 0;
    uint64_t last = 0;  /* the last frame a track counted */
    bool quiet = false; /* no track counted since quiet_since */
    uint64_t quiet_since = 0;
  };
  /* When a track entered a zone (per zone, while it stays in). */
  struct Inside
  {
    size_t zone;
    uint32_t id;
    uint64_t since;
    uint64_t seen; /* frame */
  };
  std::vector<MvZone> zones_;
  std::vector<State> state_;
  std::vector<Inside> inside_;
  uint64_t frame_ = 0;
};

#endif /* __MV_ZONES_H__ */
