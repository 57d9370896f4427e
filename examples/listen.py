#!/usr/bin/env python3
"""A TouchBridge client in plain Python (standard library only).

Connects to touchbridged's socket, subscribes, and prints each line it receives, decoded.

    python3 examples/listen.py                        # gestures, default socket
    python3 examples/listen.py --touches --devices    # everything
    python3 examples/listen.py --socket /tmp/tb.sock --count 5 --json

With --json it prints the raw JSON lines (one per line); --count N stops after N gesture lines.
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from touchbridge import Client, NotConnected, default_socket  # noqa: E402  (beside this file)


def describe(event):
    if event["event"] == "gesture":
        extra = ""
        if "translation" in event:
            extra = " translation=({x:.1f}, {y:.1f})".format(**event["translation"])
        elif "scale" in event:
            extra = " scale={:.3f}".format(event["scale"])
        elif "rotation" in event:
            extra = " rotation={:.3f} rad".format(event["rotation"])
        elif "direction" in event:
            extra = " direction=" + event["direction"]
        return "{time:.3f} {recognizer} ({type}) {state} at ({x:.0f}, {y:.0f}) with {touches} touch(es) on {view}{extra}".format(
            extra=extra, **event)
    if event["event"] == "touch":
        return "{time:.3f} touch #{id} {phase} at ({x:.0f}, {y:.0f}) tapCount {tapCount}".format(**event)
    if event["event"] == "hello":
        return "connected to touchbridged {version} (protocol {protocol})".format(**event)
    if event["event"] == "subscribed":
        return "subscribed to " + ", ".join(event["topics"])
    if event["event"] == "device":
        return "device {action}: {node} \"{name}\"".format(**event)
    return json.dumps(event)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--socket", default=default_socket())
    parser.add_argument("--touches", action="store_true")
    parser.add_argument("--devices", action="store_true")
    parser.add_argument("--json", action="store_true", help="print the raw JSON lines")
    parser.add_argument("--count", type=int, default=0, help="stop after this many gesture lines")
    args = parser.parse_args()

    topics = ["gestures"] + (["touches"] if args.touches else []) + (["devices"] if args.devices else [])
    try:
        client = Client(args.socket, read_hello=False)
    except NotConnected as e:
        sys.exit(str(e))
    client.subscribe(topics)
    seen = 0
    for event in client.lines():
        print(json.dumps(event, separators=(",", ":")) if args.json else describe(event), flush=True)
        if event["event"] == "gesture":
            seen += 1
            if args.count and seen >= args.count:
                break


if __name__ == "__main__":
    try:
        main()
    except BrokenPipeError:
        # The reader went away (`listen.py | head`): stop quietly, as cat does. Python would report the
        # failed flush of stdout at exit, so stdout is pointed at /dev/null first.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except KeyboardInterrupt:
        sys.exit(130)
