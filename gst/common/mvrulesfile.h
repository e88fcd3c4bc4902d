/* SPDX-License-Identifier: LGPL-2.1-or-later
 * Copyright (C) 2026 The gst-motion authors
 *
 * The JSON file form of the motion elements' zones and lines (their
 * `rules-file` property, docs/motion-events.md):
 *
 *   {"zones": [{"name": "door", "points": [[0.1, 0.2], [0.4, 0.2],
 *                [0.4, 0.9]], "sensitivity": 70, "direction": 90,
 *               "tolerance": 45}, ...],
 *    "lines": [{"name": "gate", "points": [[0.2, 0.5], [0.8, 0.5]]}, ...]}
 *
 * read into the two properties' own syntax (mvzones.h, mvlines.h), which
 * then checks it: one definition of what a zone and a line are. Read with
 * json-glib (Debian's libjson-glib-dev), a well-kept parser, rather than
 * one of our own.
 */
#ifndef __MV_RULES_FILE_H__
#define __MV_RULES_FILE_H__

#include <string>

/* Reads `path` into *zones and *lines (either may come out empty); FALSE
 * with a message in *error when the file cannot be read or is not of the
 * form above. */
bool mv_rules_file_load (const char * path, std::string * zones,
    std::string * lines, std::string * error);

#endif /* __MV_RULES_FILE_H__ */
