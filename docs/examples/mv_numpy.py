#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""blockmatchme's motion field as a numpy array, from Python.

    python3 docs/examples/mv_numpy.py [CLIP] [--frames N] [--dump FILE]

Runs CLIP (any file decodebin reads; without one, a moving ball from
videotestsrc) through `blockmatchme events=true regions=true` and, from a
pad probe on its src pad, reads each frame's GstMotionVectorsMeta through
the GstMotionVectors-1.0 typelib into a (rows, columns) numpy structured
array (fields dx, dy, cost, confidence, flags), prints how many blocks move
and the "motion" regions attached to the frame, and prints the
motion-start / motion-stop bus messages.

Needs PyGObject, numpy and the typelib (Debian: python3-gi, python3-numpy,
gir1.2-gst-plugins-base-1.0; the typelib and plugin come with `meson
install`). From a build tree instead of an install:

    GI_TYPELIB_PATH=build/gst/motionvectors \\
    LD_LIBRARY_PATH=build/gst/motionvectors GST_PLUGIN_PATH=build/gst \\
        python3 docs/examples/mv_numpy.py data/vtest-pedestrians.ogv

--frames N stops after N frames (N >= 1; default: the whole clip, or 100
frames of videotestsrc). --dump FILE writes every vector of those frames as text
(the format of tests/mvdump.c, which reads the same pipeline through the C
API; the test python_example compares the two).

On a GStreamer error (a CLIP that does not exist, a format decodebin
cannot read) it prints the error, as gst-launch-1.0 does, and exits with
1; a bad argument exits with 2.
"""
import argparse
import sys
import threading

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstMotionVectors", "1.0")
from gi.repository import GLib, Gst  # noqa: E402
from gi.repository import GstMotionVectors as MV  # noqa: E402
import numpy as np  # noqa: E402

_say_lock = threading.Lock()


def say(text):
    """Prints one whole line: the pad probe (streaming thread) and the bus
    watch (main loop) both print, and print() writes the text and its
    newline separately, so two threads could interleave within a line."""
    with _say_lock:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()

# The packed layout of gst_motion_vectors_meta_get_vectors_bytes(): one
# 20-byte record per block, row-major, host byte order.
VECTOR_DTYPE = np.dtype([("dx", "=f4"), ("dy", "=f4"), ("cost", "=u4"),
                         ("confidence", "=f4"), ("flags", "=u4")])
assert VECTOR_DTYPE.itemsize == MV.MOTION_VECTOR_PACKED_SIZE

NO_MOTION = int(MV.MotionVectorFlags.NO_ESTIMATE
                | MV.MotionVectorFlags.SUPPRESSED)


def field_array(meta):
    """The field as a (rows, columns) structured array (a copy)."""
    _, _, _, _, columns, rows = meta.get_geometry()
    data = meta.get_vectors_bytes().get_data()
    return np.frombuffer(data, dtype=VECTOR_DTYPE).reshape(rows, columns)


def moving_blocks(field):
    """Blocks with an estimate, not suppressed, moved at least 1 px (the
    rule of docs/examples/mvprobe.c), in float32 as C computes it."""
    length2 = field["dx"] * field["dx"] + field["dy"] * field["dy"]
    return ((field["flags"] & NO_MOTION) == 0) & (length2 >= np.float32(1))


def time_str(t):
    """A GstClockTime as GST_TIME_FORMAT prints it."""
    if t == Gst.CLOCK_TIME_NONE:
        return "none"
    return "%d:%02d:%02d.%09d" % (t // (3600 * Gst.SECOND),
                                  t // (60 * Gst.SECOND) % 60,
                                  t // Gst.SECOND % 60, t % Gst.SECOND)


def pipeline_description(clip, frames):
    if clip:
        quoted = clip.replace("\\", "\\\\").replace('"', '\\"')
        src = ('filesrc location="%s" ! decodebin ! videoconvert ! '
               'video/x-raw,format=I420' % quoted)
    else:
        src = ("videotestsrc num-buffers=%d pattern=ball ! "
               "video/x-raw,format=I420,width=320,height=240,"
               "framerate=30/1" % frames)
    return (src + " ! blockmatchme name=me events=true regions=true ! "
            "fakesink sync=false")


class App:
    def __init__(self, args):
        self.max_frames = args.frames
        self.frames = 0
        self.dump = open(args.dump, "w") if args.dump else None
        self.loop = GLib.MainLoop()
        self.description = pipeline_description(args.clip, args.frames)
        say("pipeline: " + self.description)
        self.pipeline = Gst.parse_launch(self.description)
        me = self.pipeline.get_by_name("me")
        me.get_static_pad("src").add_probe(Gst.PadProbeType.BUFFER,
                                           self.on_buffer)
        bus = self.pipeline.get_bus()
        bus.add_signal_watch()
        bus.connect("message", self.on_message)
        self.status = 0

    def on_buffer(self, pad, info):
        buf = info.get_buffer()
        meta = MV.buffer_get_motion_vectors_meta(buf)
        if meta is None or self.frames >= self.max_frames:
            return Gst.PadProbeReturn.OK
        self.frames += 1
        field = field_array(meta)
        moving = int(np.count_nonzero(moving_blocks(field)))

        line = "frame %d %s: %d of %d blocks moving" % (
            self.frames, time_str(buf.pts), moving, field.size)
        if meta.reference_timestamp == Gst.CLOCK_TIME_NONE:
            line += " (no reference yet)"
        n_regions = MV.buffer_get_n_motion_regions(buf)
        if n_regions:
            regions = [MV.buffer_get_motion_region(buf, i)[1]
                       for i in range(n_regions)]
            big = max(regions, key=lambda r: r.area)
            line += (", %d motion regions, largest %dx%d at (%d, %d), "
                     "%d blocks, mean motion (%.2f, %.2f)" % (
                         n_regions, big.w, big.h, big.x, big.y, big.area,
                         big.mean_dx, big.mean_dy))
        say(line)

        if self.dump:
            self.write_dump(buf, meta, field, moving)
        if self.frames == self.max_frames:
            GLib.idle_add(self.stop)
        return Gst.PadProbeReturn.OK

    def write_dump(self, buf, meta, field, moving):
        rows, columns = field.shape
        # The same vector once through the per-vector accessor: the packed
        # array and the typelib's view of the struct must agree.
        i = (rows // 2) * columns + columns // 2
        ok, dx, dy, cost, confidence, flags = meta.get_vector_values(i)
        v = field.reshape(-1)[i]
        if not ok or (dx, dy, cost, confidence, flags) != tuple(v.tolist()):
            say("MISMATCH at vector %d: get_vector_values %r, array %r"
                % (i, (dx, dy, cost, confidence, flags), v))
            self.status = 1
        self.dump.write("# pts=%d columns=%d rows=%d moving=%d\n"
                        % (buf.pts, columns, rows, moving))
        np.savetxt(self.dump, field.reshape(-1),
                   fmt="%.9g %.9g %u %.9g %u")

    def stop(self):
        self.pipeline.send_event(Gst.Event.new_eos())
        return GLib.SOURCE_REMOVE

    def on_message(self, bus, msg):
        if msg.type == Gst.MessageType.ELEMENT:
            ok, kind, ts, duration, n_regions = MV.motion_event_parse(msg)
            if not ok:
                return
            if kind == MV.MotionEventType.START:
                say("event motion-start at %s, %d regions"
                    % (time_str(ts), n_regions))
            elif kind == MV.MotionEventType.STOP:
                reason = msg.get_structure().get_string("reason")
                say("event motion-stop at %s after %s (%s)"
                    % (time_str(ts), time_str(duration), reason))
            else:
                say("event motion-regions at %s: %d regions"
                    % (time_str(ts), n_regions))
        elif msg.type == Gst.MessageType.EOS:
            self.loop.quit()
        elif msg.type == Gst.MessageType.ERROR:
            print_error(msg)
            self.status = 1
            self.loop.quit()

    def run(self):
        if self.pipeline.set_state(Gst.State.PLAYING) == \
                Gst.StateChangeReturn.FAILURE:
            # Why is on the bus, posted before set_state() returned (a
            # missing file: filesrc's "Could not open file"); the main
            # loop that would print it does not run.
            msg = self.pipeline.get_bus().timed_pop_filtered(
                0, Gst.MessageType.ERROR)
            if msg:
                print_error(msg)
            else:
                print("error: the pipeline does not start", file=sys.stderr)
            self.status = 1
        else:
            self.loop.run()
            say("%d frames" % self.frames)
        self.pipeline.set_state(Gst.State.NULL)
        if self.dump:
            self.dump.close()
        return self.status


def print_error(msg):
    """A GStreamer error message as gst-launch-1.0 prints it: the element,
    the message and the debug details."""
    err, debug = msg.parse_error()
    print("error: from %s: %s (%s)" % (msg.src.get_name() if msg.src else "?",
                                      err.message, debug), file=sys.stderr)


def positive_int(text):
    """argparse type of --frames: 1 or more."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError("%r is not a number" % text)
    if value <= 0:
        raise argparse.ArgumentTypeError("must be at least 1, not %d" % value)
    return value


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("clip", nargs="?",
                        help="video file (default: videotestsrc's ball)")
    parser.add_argument("--frames", type=positive_int,
                        help="frames to read (default: all of CLIP, or 100 "
                        "of videotestsrc)")
    parser.add_argument("--dump", metavar="FILE",
                        help="write every vector of those frames as text")
    args = parser.parse_args()
    if args.frames is None:
        args.frames = 1 << 62 if args.clip else 100
    Gst.init(None)
    return App(args).run()


if __name__ == "__main__":
    sys.exit(main())
