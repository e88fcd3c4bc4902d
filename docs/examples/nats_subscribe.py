#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Subscribes to mvnatssink's subjects with nothing but the standard
library (the NATS protocol is text over TCP) and prints each event and a
frame count per camera.

    python3 nats_subscribe.py [HOST:PORT] [SUBJECT] [SECONDS]

SUBJECT defaults to gst-motion.> (every camera and type; `gst-motion.*.event`
gives only the events); it stops after SECONDS (default 30) without a
message. Core NATS: it gets what is published while it
runs. To replay what JetStream stored, use a JetStream consumer (the
`nats` CLI: `nats stream view MOTION`, or a client library).
"""
import json
import socket
import sys
from collections import Counter


def main():
    host, port = (sys.argv[1] if len(sys.argv) > 1
                  else "127.0.0.1:4222").rsplit(":", 1)
    subject = sys.argv[2] if len(sys.argv) > 2 else "gst-motion.>"
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 30.0
    sock = socket.create_connection((host, int(port)))
    sock.settimeout(seconds)
    stream = sock.makefile("rb")
    stream.readline()  # INFO {...}
    sock.sendall(b'CONNECT {"verbose":false,"headers":true}\r\n'
                 + f"SUB {subject} 1\r\n".encode())
    frames = Counter()
    while True:
        try:
            line = stream.readline()
        except socket.timeout:
            break
        if not line:
            break
        words = line.split()
        if words[0] == b"PING":
            sock.sendall(b"PONG\r\n")
            continue
        if words[0] not in (b"MSG", b"HMSG"):
            continue
        # MSG subject sid [reply] size / HMSG subject sid [reply] hsize size
        size = int(words[-1])
        data = stream.read(size + 2)[:size]
        if words[0] == b"HMSG":
            data = data[int(words[-2]):]  # headers first (Nats-Msg-Id)
        obj = json.loads(data)
        camera = obj.get("camera_id")
        if obj["type"] == "event":
            print(f"{camera}: {obj['event']} at {obj['pts']} ns "
                  f"({words[1].decode()}, seq {obj['seq']})")
        else:
            frames[camera] += 1
    for camera, n in sorted(frames.items()):
        print(f"{camera}: {n} frame objects")


if __name__ == "__main__":
    main()
