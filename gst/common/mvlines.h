/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * Tripwires: lines across the picture that the decision's tracks cross,
 * counted in each direction (the `lines` property of the motion elements,
 * docs/motion-events.md). Plain C++ on the tracks' box centres; mvevents
 * posts the crossings.
 */
#ifndef __MV_LINES_H__
#define __MV_LINES_H__

#include <cstdint>
#include <string>
#include <vector>

/* A line from (x0, y0) to (x1, y1), in fractions of the frame's width and
 * height (0 .. 1, x right, y down). Its positive side is on the right of
 * someone walking from the first point to the second, as seen on screen:
 * a track that goes from the left side to the right side crosses it in the
 * positive direction. */
struct MvLine
{
  std::string name;
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;
};

/* Parses the property's syntax: lines separated by ';', each
 * "NAME=X0,Y0 X1,Y1" (NAME: letters, digits, '-', '_'; coordinates in
 * 0 .. 1; the two points apart; spaces around the separators allowed).
 * An empty text gives no line. FALSE (and a message in *error) on a
 * syntax error or a repeated name; *out is then untouched. */
bool mv_lines_parse (const char * text, std::vector<MvLine> * out,
    std::string * error);

/* The syntax shared with zones (mvzones.h): blanks, a name (letters,
 * digits, '-', '_'), a number (digits with at most one '.', a sign, no
 * exponent: the locale does not matter) and a point "X,Y"; each advances
 * `p` past what it read and returns false when there is none. */
void mv_skip_blanks (const char *& p);
bool mv_read_name (const char *& p, std::string * name);
bool mv_read_number (const char *& p, double * v);
bool mv_read_point (const char *& p, double * x, double * y);

/* The frame of both syntaxes: items separated by ';', each "NAME=" and
 * then what `body (p, &item, &why)` reads (false, with *why, on an
 * error); names unique. FALSE (and "KIND NAME: why" in *error) on an
 * error, *out then untouched. */
template <typename Item, typename Body>
bool
mv_parse_items (const char * text, const char * kind, std::vector<Item> * out,
    std::string * error, Body body)
{
  std::vector<Item> items;
  const char * p = text ? text : "";
  for (;;) {
    mv_skip_blanks (p);
    if (!*p)
      break;
    Item item;
    std::string why;
    if (!mv_read_name (p, &item.name)) {
      if (error)
        *error = std::string ("a ") + kind
            + " needs a name (letters, digits, '-', '_')";
      return false;
    }
    mv_skip_blanks (p);
    if (*p != '=')
      why = "'=' expected after the name";
    else if (!body (++p, &item, &why))
      ;
    else if (mv_skip_blanks (p), *p && *p != ';')
      why = std::string ("';' expected between ") + kind + "s";
    for (const Item & o : items)
      if (why.empty () && o.name == item.name)
        why = "given twice";
    if (!why.empty ()) {
      if (error)
        *error = std::string (kind) + " " + item.name + ": " + why;
      return false;
    }
    if (*p)
      p++;
    items.push_back (item);
  }
  *out = items;
  return true;
}

/* A tracked object on one frame: its track id, the centre of its box
 * (pixels) and its velocity (pixels a frame, x right, y down; zones'
 * direction filter, mvzones.h). */
struct MvTrackPoint
{
  uint32_t id = 0;
  double x = 0, y = 0;
  double vx = 0, vy = 0;
};

/* One crossing: which line, which track, +1 (positive) or -1, and the
 * line's counts after it. */
struct MvCrossing
{
  size_t line = 0;
  uint32_t track = 0;
  int direction = 0;
  uint64_t positive = 0, negative = 0;
};

/* Counts the tracks' crossings of a set of lines. A track crosses a line
 * when its centre, between two frames it was seen on, passes from one
 * side to the other within the line's extent. A side counts once the
 * centre is farther than kMvLineBand of the frame's diagonal from the line
 * (a track that wanders along the line, or whose box jitters on it, crosses
 * once); a track seen first inside the band takes the side it leaves it
 * on, without a crossing. */
constexpr double kMvLineBand = 0.01;

class MvLineCounter
{
public:
  /* New lines: counts and positions start again. */
  void set_lines (const std::vector<MvLine> & lines);
  const std::vector<MvLine> & lines () const
  {
    return lines_;
  }
  /* Forgets the tracks (a new stream: their ids start again); the counts
   * stay. */
  void forget_tracks ();
  /* One frame of a width x height picture: the points of the tracks seen
   * on it (each id once). Appends the crossings, in the points' order and
   * for each point in line order, to *out. */
  void process (const MvTrackPoint * points, size_t n, int width, int height,
      std::vector<MvCrossing> * out);
  uint64_t positive (size_t line) const
  {
    return counts_[line].positive;
  }
  uint64_t negative (size_t line) const
  {
    return counts_[line].negative;
  }

private:
  /* A track's last frame seen and its side of each line (+1, -1; 0
   * while inside the band since it was first seen). */
  struct Seen
  {
    uint32_t id;
    uint64_t frame;
    std::vector<int8_t> side;
  };
  struct Count
  {
    uint64_t positive = 0, negative = 0;
  };
  std::vector<MvLine> lines_;
  std::vector<Count> counts_;
  std::vector<Seen> seen_;
  uint64_t frame_ = 0;
};

#endif /* __MV_LINES_H__ */
