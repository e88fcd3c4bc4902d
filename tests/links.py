#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Checks the relative links of the project's Markdown documents.

Usage: tests/links.py SOURCE_ROOT [FILE.md ...]

Without files it checks README.md, docs/**/*.md and bench/README.md. Every
inline link or image ([text](target), ![alt](target)) and every reference
definition ([id]: target) outside code blocks and code spans must name a
file or folder that exists inside SOURCE_ROOT; a #fragment must name a
heading of the target document (GitHub's heading anchors). Links with a
scheme (https:, mailto:, ...) are not followed. Prints each broken link as
FILE:LINE: TARGET: WHY and exits 1 when there is one.
"""

import os
import re
import sys

INLINE = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^()\s>]*(?:\([^()\s]*\)[^()\s>]*)*)>?(?:\s+[\"'(][^)]*)?\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
FENCE = re.compile(r"^\s{0,3}(`{3,}|~{3,})")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")


def strip_code_spans(line):
    """The line with its `code spans` blanked (same length)."""
    return re.sub(r"(`+)(.+?)\1", lambda m: " " * len(m.group(0)), line)


def text_lines(path):
    """(line number, text) of the lines outside fenced and indented code."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    fence = None
    prev_blank = True
    in_indented = False
    for n, line in enumerate(lines, 1):
        m = FENCE.match(line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            continue
        if m:
            fence = m.group(1)
            continue
        blank = not line.strip()
        indented = line.startswith("    ") or line.startswith("\t")
        # An indented code block starts after a blank line (not inside a
        # list item's continuation, which this simple reader treats the
        # same: such lines hold no links in these documents).
        if indented and (prev_blank or in_indented):
            in_indented = True
            prev_blank = blank
            continue
        if not blank:
            in_indented = False
        prev_blank = blank
        yield n, line


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links -> their text
    text = text.replace("`", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


_anchors = {}


def anchors(path):
    if path not in _anchors:
        seen = {}
        result = set()
        for _, line in text_lines(path):
            m = HEADING.match(line)
            if not m:
                continue
            s = slug(m.group(2))
            k = seen.get(s, 0)
            seen[s] = k + 1
            result.add(s if k == 0 else "%s-%d" % (s, k))
        _anchors[path] = result
    return _anchors[path]


def targets(path):
    for n, line in text_lines(path):
        m = REFDEF.match(line)
        if m:
            yield n, m.group(1)
            continue
        for m in INLINE.finditer(strip_code_spans(line)):
            yield n, m.group(1)


def check(root, path):
    errors = []
    rel = os.path.relpath(path, root)
    for n, target in targets(path):
        if not target or SCHEME.match(target):
            continue
        where, _, fragment = target.partition("#")
        if where:
            dest = os.path.normpath(os.path.join(os.path.dirname(path), where))
            if os.path.relpath(dest, root).startswith(os.pardir):
                errors.append("%s:%d: %s: outside the repository" % (rel, n, target))
                continue
            if not os.path.exists(dest):
                errors.append("%s:%d: %s: no such file" % (rel, n, target))
                continue
        else:
            dest = path
        if fragment and dest.endswith(".md") and os.path.isfile(dest):
            if fragment not in anchors(dest):
                errors.append("%s:%d: %s: no heading with that anchor in %s"
                              % (rel, n, target, os.path.relpath(dest, root)))
    return errors


def default_files(root):
    files = [os.path.join(root, "README.md"), os.path.join(root, "bench", "README.md")]
    for d, _, names in os.walk(os.path.join(root, "docs")):
        files += [os.path.join(d, f) for f in sorted(names) if f.endswith(".md")]
    return files


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().split("\n\n")[1], file=sys.stderr)
        return 2
    root = os.path.abspath(argv[1])
    files = [os.path.abspath(f) for f in argv[2:]] or default_files(root)
    errors, links = [], 0
    for f in files:
        links += sum(1 for _ in targets(f))
        errors += check(root, f)
    for e in errors:
        print(e)
    print("links.py: %d files, %d links, %d broken" % (len(files), links, len(errors)))
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
