#!/usr/bin/env python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# Copyright (C) 2026 The gst-motion authors
"""Reads mvkafkasink's messages: one JSON object per Kafka message, keyed
by camera id (so each camera's objects arrive in order, from one
partition), and prints the events and a frame count per camera.

    python3 kafka_consume.py BROKERS [TOPIC]

Needs confluent-kafka (Debian: python3-confluent-kafka). Without a group
commit it reads each topic from the start (auto.offset.reset=earliest).
"""
import json
import sys
from collections import Counter

from confluent_kafka import Consumer


def main():
    brokers = sys.argv[1]
    topic = sys.argv[2] if len(sys.argv) > 2 else "gst-motion.frame"
    consumer = Consumer({
        "bootstrap.servers": brokers,
        "group.id": "gst-motion-example",
        "auto.offset.reset": "earliest",
    })
    consumer.subscribe([topic])
    frames = Counter()
    idle = 0
    try:
        while idle < 10:  # stop after 10 s without messages
            msg = consumer.poll(1.0)
            if msg is None:
                idle += 1
                continue
            idle = 0
            if msg.error():
                print("error:", msg.error(), file=sys.stderr)
                continue
            obj = json.loads(msg.value())
            camera = msg.key().decode() if msg.key() else None
            if obj["type"] == "event":
                print(f"{camera}: {obj['event']} at {obj['pts']} ns "
                      f"(partition {msg.partition()}, seq {obj['seq']})")
            else:
                frames[camera] += 1
    finally:
        consumer.close()
    for camera, n in sorted(frames.items()):
        print(f"{camera}: {n} frame objects")


if __name__ == "__main__":
    main()
