#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Hostile writes to GstMotionVectorsMeta's fields from Python (issue 33).

    python3 tests/python_meta_fields.py

The GstMotionVectors-1.0 typelib lets a script assign every field that the
GIR marks writable (meta.n_vectors = 10**9 is legal Python). Whatever is
written, the library's functions must stay inside the vectors the meta
really holds: each getter either raises a Python exception, returns an
empty result (None, False, a smaller field) or reads one of the real
vectors; none may crash.

The writable fields are taken from the typelib itself, so a field added
later is covered too. Each field (all its hostile values) and each
combination of fields runs in a child process: a crash (SIGSEGV, SIGFPE)
is then a failure of that case, reported with the signal, and the other
cases still run. Exit 77 (skip) without PyGObject or the typelib.
"""
import os
import signal
import subprocess
import sys

try:
    import gi
    gi.require_version("Gst", "1.0")
    gi.require_version("GstMotionVectors", "1.0")
    from gi.repository import Gst, GstMotionVectors as MV
except (ImportError, ValueError) as e:
    print("SKIP: no PyGObject or no GstMotionVectors-1.0 typelib (%s)" % e)
    sys.exit(77)

# The meta under attack: 64x48 in 16x16 blocks, 4 x 3 = 12 vectors.
FW, FH, BW, BH = 64, 48, 16, 16
REAL_N = 12
PACKED = MV.MOTION_VECTOR_PACKED_SIZE

U32 = [0, 1, 3, 5, 13, 2**31 - 1, 2**31, 2**32 - 1, 10**9, -1, 2**32]
VALUES = {
    "guint32": U32,
    "guint64": [0, 2**64 - 1, -1, 2**64],
    "gfloat": [float("nan"), float("inf"), -float("inf"), -1.0, 3e38],
    "utf8": ["", "x" * 4096, None],
    "enum": [7, -1, 2**31 - 1],
    "struct": [None, "struct"],
}

# Consistent and inconsistent geometries written together: a larger
# consistent grid passes the old geometry check (is_valid) and reads past
# the 12 real vectors; zero columns or block sizes divide by zero.
COMBOS = {
    "bigger-consistent": dict(frame_width=2**20, columns=2**16,
                              n_vectors=2**16 * 3),
    "bigger-rows-consistent": dict(frame_height=64 * 16, rows=64,
                                   n_vectors=4 * 64),
    "one-more-row": dict(frame_height=64, rows=4, n_vectors=16),
    "smaller-consistent": dict(frame_width=16, frame_height=16, columns=1,
                               rows=1, n_vectors=1),
    "n_vectors-huge": dict(n_vectors=10**9),
    "columns-zero": dict(columns=0),
    "block-zero": dict(block_width=0, block_height=0),
    "grid-overflow": dict(frame_width=2**20, frame_height=2**20,
                          columns=2**16, rows=2**16, n_vectors=0),
    "columns-wrap": dict(columns=2**31, rows=2, n_vectors=0),
}


def writable_fields():
    """(name, kind) of every field the typelib lets Python assign."""
    fields = []
    for f in MV.MotionVectorsMeta.__info__.get_fields():
        if not f.get_flags() & 2:          # GI_FIELD_IS_WRITABLE
            continue
        tag = f.get_type().get_tag_as_string()
        if tag == "interface":
            iface = f.get_type().get_interface()
            tag = "enum" if type(iface).__name__ in ("EnumInfo", "FlagsInfo") \
                else "struct"
        fields.append((f.get_name(), tag))
    return fields


def new_meta():
    buf = Gst.Buffer.new()
    meta = MV.buffer_add_motion_vectors_meta(
        buf, FW, FH, BW, BH, MV.MotionVectorsDirection.FORWARD)
    assert meta is not None and meta.is_valid()
    for i in range(REAL_N):
        v = meta.get_vector_at(i)
        v.dx, v.dy, v.cost, v.flags = float(i), -float(i), 100 + i, 0
    return buf, meta


def check(cond, what):
    if not cond:
        raise AssertionError(what)


def vector_index(v):
    """Which of the 12 real vectors `v` is (their cost is 100 + index);
    reading the fields dereferences the pointer the library returned."""
    fields = (v.dx, v.dy, v.cost, v.confidence, v.flags)
    check(100 <= fields[2] < 100 + REAL_N and fields[0] == fields[2] - 100,
          "a vector outside the real field: %r" % (fields,))
    return fields[2] - 100


def call(name, fn, *args):
    """fn(*args), or None when it raises (a rejected call is safe)."""
    try:
        return fn(*args)
    except Exception as e:                  # noqa: BLE001
        print("  %s%r raised %s: %s" % (name, args, type(e).__name__, e))
        return None


def exercise(buf, meta):
    """Every getter, on indices in and beyond the real 12 vectors."""
    geo = call("get_geometry", meta.get_geometry)
    valid = call("is_valid", meta.is_valid)
    cols = meta.columns
    rows = meta.rows
    # The largest first: an unchecked read that far away crashes.
    indices = sorted({0, REAL_N - 1, REAL_N, REAL_N + 1, 2**16, 10**9,
                      2**32 - 1, max(meta.n_vectors - 1, 0)}, reverse=True)
    for i in indices:
        r = call("get_vector_values", meta.get_vector_values, i)
        if r is not None and r[0]:
            check(i < REAL_N, "get_vector_values(%d) beyond the field" % i)
            check(r[3] == 100 + i, "get_vector_values(%d)" % i)
        v = call("get_vector_at", meta.get_vector_at, i)
        if v is not None:
            check(vector_index(v) == i, "get_vector_at(%d)" % i)
        r = call("get_block_rect", meta.get_block_rect, i)
        if r is not None and r[0]:
            check(i < REAL_N, "get_block_rect(%d) beyond the field" % i)
    cells = {(0, 0), (3, 2), (4, 0), (0, 3), (cols - 1 if cols else 0,
             rows - 1 if rows else 0), (2**16 - 1, 2), (2**31, 1),
             (2**32 - 1, 0)}
    for c, r in sorted(cells):
        v = call("get_vector", meta.get_vector, c, r)
        if v is not None:
            check(r * cols + c < REAL_N, "get_vector(%d, %d) beyond" % (c, r))
            vector_index(v)
    fw = meta.frame_width
    fh = meta.frame_height
    for x, y in sorted({(0, 0), (FW - 1, FH - 1), (FW, 0), (0, FH),
                        (max(fw - 1, 0), max(fh - 1, 0)), (2**32 - 1, 0)}):
        v = call("lookup", meta.lookup, x, y)
        if v is not None:
            vector_index(v)
    b = call("get_vectors_bytes", meta.get_vectors_bytes)
    if b is not None:
        data = b.get_data()
        check(len(data) <= REAL_N * PACKED,
              "get_vectors_bytes gave %d bytes" % len(data))
    call("get_global_motion", meta.get_global_motion, 1.0, 1.0)
    # A buffer copy copies the meta (its transform function); copy() of
    # PyGObject only takes a reference.
    copy = call("Buffer.copy_deep", buf.copy_deep)
    if copy is not None:
        cm = MV.buffer_get_motion_vectors_meta(copy)
        if cm is not None:
            check(cm.n_vectors <= REAL_N, "the copy has %d vectors"
                  % cm.n_vectors)
            cb = cm.get_vectors_bytes()
            check(cb is None or len(cb.get_data()) <= REAL_N * PACKED,
                  "the copy's field is larger than the original's")
    return geo, valid


def assign(meta, name, value):
    if value == "struct":
        value = MV.MotionVector()
    try:
        setattr(meta, name, value)
        return True
    except Exception as e:                  # noqa: BLE001
        print("  %s = %.40r rejected: %s: %s" % (name, value,
                                                  type(e).__name__, e))
        return False


def child_field(name, kind):
    for value in VALUES[kind]:
        buf, meta = new_meta()
        print("%s = %.40r" % (name, value))
        sys.stdout.flush()
        if assign(meta, name, value):
            exercise(buf, meta)


def child_combo(combo):
    buf, meta = new_meta()
    for name, value in COMBOS[combo].items():
        print("%s = %r" % (name, value))
        assign(meta, name, value)
    sys.stdout.flush()
    exercise(buf, meta)


def child_pristine():
    """Not vacuous: on the untouched meta every getter reads the field."""
    buf, meta = new_meta()
    exercise(buf, meta)
    check(meta.is_valid(), "is_valid")
    check([vector_index(meta.get_vector_at(i)) for i in range(REAL_N)]
          == list(range(REAL_N)), "get_vector_at")
    check(meta.get_vector_values(5)[3] == 105, "get_vector_values")
    check(vector_index(meta.get_vector(3, 2)) == 11, "get_vector")
    check(vector_index(meta.lookup(FW - 1, FH - 1)) == 11, "lookup")
    check(meta.get_block_rect(11)[1:] == (48, 32, 16, 16), "get_block_rect")
    check(len(meta.get_vectors_bytes().get_data()) == REAL_N * PACKED,
          "get_vectors_bytes")
    cm = MV.buffer_get_motion_vectors_meta(buf.copy_deep())
    check(cm is not None and cm.n_vectors == REAL_N, "copy")


def main():
    if len(sys.argv) == 3:
        Gst.init(None)
        what, arg = sys.argv[1], sys.argv[2]
        if what == "field":
            child_field(arg, dict(writable_fields())[arg])
        elif what == "combo":
            child_combo(arg)
        else:
            child_pristine()
        return 0

    fields = writable_fields()
    print("writable fields: %s" % ", ".join(n for n, _ in fields))
    # Not vacuous: the fields the issue names are among them.
    for must in ("n_vectors", "columns", "rows", "frame_width",
                 "block_width"):
        if must not in dict(fields):
            print("FAIL: the typelib no longer lists %s as writable: "
                  "update this test" % must)
            return 1
    cases = [("pristine", "-")] + [("field", n) for n, _ in fields] + \
        [("combo", c) for c in COMBOS]
    failed = []
    for what, arg in cases:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), what,
                            arg], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, universal_newlines=True,
                           timeout=120)
        if p.returncode == 0:
            print("ok   %s %s" % (what, arg))
            continue
        if p.returncode < 0:
            why = "killed by %s" % signal.Signals(-p.returncode).name
        else:
            why = "exit %d" % p.returncode
        print("FAIL %s %s: %s" % (what, arg, why))
        print("\n".join("     | " + line
                        for line in p.stdout.splitlines()[-15:]))
        failed.append("%s %s" % (what, arg))
    if failed:
        print("%d of %d cases failed: %s" % (len(failed), len(cases),
                                             ", ".join(failed)))
        return 1
    print("all %d cases passed" % len(cases))
    return 0


if __name__ == "__main__":
    sys.exit(main())
