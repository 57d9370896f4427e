#!/usr/bin/env python3
"""Keeps TouchBridge's touchscreen mapping turned with a sway output (standard library only).

Sway turns an output with `output NAME transform 90`, or when a tablet's accelerometer daemon tells it
to; the touchscreen must turn with it, or a swipe up comes out as a swipe right. This follows sway's
output events (`swaymsg -t subscribe -m '["output"]'`) and, whenever the output's transform changes,
sends TouchBridge `{"set": {"device": ..., "rotation": ...}}`. The daemon applies it from the next
touch sequence on (never mid-touch), and with the built-in scene turns its window too.

    examples/sway-rotation.py                          # the first active output, every touchscreen
    examples/sway-rotation.py --output DSI-1 --device 0
    examples/sway-rotation.py --invert                 # a panel mounted so that it turns the other way

Needs control permission: root, the daemon's user, or a member of touchbridged --control-group.
Exits 1 when sway's event stream ends (sway exited), so that a user service restarts it with sway.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from touchbridge import Client, NotConnected, default_socket  # noqa: E402  (beside this file)


# sway's transform → (rotation in degrees clockwise, flipX)
TRANSFORMS = {
    "normal": (0, False), "90": (90, False), "180": (180, False), "270": (270, False),
    "flipped": (0, True), "flipped-90": (90, True), "flipped-180": (180, True), "flipped-270": (270, True),
}


def command(path, obj):
    """Sends one control command; returns the daemon's answer line (ok or error)."""
    try:
        with Client(path) as c:
            return c.command(obj)
    except (NotConnected, AssertionError) as e:
        return {"event": "error", "message": str(e) or "the daemon closed the connection"}


def transform_of(output_name, swaymsg):
    """The transform of the named output (or of the first active one)."""
    outputs = json.loads(subprocess.run([swaymsg, "-t", "get_outputs", "-r"], capture_output=True,
                                        text=True, check=True).stdout)
    for o in outputs:
        if (output_name is None and o.get("active")) or o.get("name") == output_name:
            return o.get("name"), o.get("transform", "normal")
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--output", help="the sway output to follow (default: the first active one)")
    ap.add_argument("--device", default="*", help='TouchBridge device index (default "*": every device)')
    ap.add_argument("--invert", action="store_true", help="turn the panel the other way (90 ↔ 270)")
    ap.add_argument("--socket", default=None, help="touchbridged's socket")
    ap.add_argument("--swaymsg", default="swaymsg", help="the swaymsg program")
    args = ap.parse_args()
    path = args.socket or default_socket()
    device = args.device if args.device == "*" else int(args.device)
    current = None

    def follow():
        nonlocal current
        name, transform = transform_of(args.output, args.swaymsg)
        if transform is None or transform == current:
            return
        rotation, flip = TRANSFORMS.get(transform, (0, False))
        if args.invert:
            rotation = (360 - rotation) % 360
        answer = command(path, {"set": {"device": device, "rotation": rotation, "flipX": flip}})
        if answer["event"] == "ok":
            current = transform
            print(f"sway-rotation: {name} is {transform}: touchscreen rotation {rotation}°"
                  + (", flipped" if flip else ""), flush=True)
        else:
            print(f"sway-rotation: touchbridged refused: {answer.get('message')}", file=sys.stderr, flush=True)

    follow()
    events = subprocess.Popen([args.swaymsg, "-r", "-t", "subscribe", "-m", '["output"]'], stdout=subprocess.PIPE, text=True)
    for _ in events.stdout:                            # one JSON object per output event
        follow()
    print("sway-rotation: sway's event stream ended", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
