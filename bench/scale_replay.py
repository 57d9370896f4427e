#!/usr/bin/env python3
"""The scaling table of BENCHMARKS.md: `touchbridgectl replay` of a ten-finger recording through one
full-window view carrying N copies of a seven-recognizer set (a double tap, a tap requiring it to fail,
a long press, a pan, a pinch and a rotation simultaneous with everything, a two-way swipe), all of which
take part in every touch sequence. Prints a Markdown table: recognizers, output lines, wall time, time
per frame, peak resident memory (/usr/bin/time's %M).

The recording is written here: 3,422 frames at 240 Hz (the size of the 3M MicroTouch recording the
scaling issue was measured on), the stream of `make bench`'s scale section: fingers land one after
another, circle, lift one after another, and one- and two-finger taps follow, every two seconds.

    python3 bench/scale_replay.py [--bin .build/release] [--frames 3422] [--sets 1,10,25,50,100]

Standard library only; needs the release build of touchbridgectl and /usr/bin/time.
"""
import argparse
import json
import math
import os
import subprocess
import tempfile
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "support"))
from tbsupport import evemu_panel  # noqa: E402

DEVICE = evemu_panel("Scale Panel")


def recording(path, frames):
    """The bench's ScalePanel stream (Sources/touchbridge-bench/main.swift), as an evemu recording."""
    ids = [None] * 10
    tracking = 1
    out = [DEVICE]
    for frame in range(frames):
        t = frame / 240
        phase = frame % 480
        for f in range(10):
            down = (12 * f <= phase < 300 + 8 * f) or (f < 2 and (380 <= phase < 392 or 420 <= phase < 432))
            if down and ids[f] is None:
                ids[f] = tracking
                tracking += 1
                out.append("E: {:.6f} 0003 002f {}\nE: {:.6f} 0003 0039 {}\n".format(t, f, t, ids[f]))
            elif not down and ids[f] is not None:
                ids[f] = None
                out.append("E: {:.6f} 0003 002f {}\nE: {:.6f} 0003 0039 -1\n".format(t, f, t))
                continue
            if not down:
                continue
            angle = frame * 0.02 + f * 0.6
            moving = phase < 380
            x = 2048 + (1500 * math.cos(angle) * (0.3 + 0.06 * f) if moving else 200 * f)
            y = 2048 + (1500 * math.sin(angle) * (0.3 + 0.06 * f) if moving else 0)
            out.append("E: {:.6f} 0003 002f {}\nE: {:.6f} 0003 0035 {}\nE: {:.6f} 0003 0036 {}\n".format(
                t, f, t, int(x), t, int(y)))
        out.append("E: {:.6f} 0000 0000 0\n".format(t))
    with open(path, "w") as f:
        f.writelines(out)


def scene(path, sets):
    recs = []
    for k in range(sets):
        recs += [
            {"name": "double%d" % k, "type": "tap", "numberOfTapsRequired": 2},
            {"name": "tap%d" % k, "type": "tap", "requireToFail": ["double%d" % k]},
            {"name": "press%d" % k, "type": "longPress"},
            {"name": "pan%d" % k, "type": "pan", "simultaneousWith": "*"},
            {"name": "pinch%d" % k, "type": "pinch", "simultaneousWith": "*"},
            {"name": "rotation%d" % k, "type": "rotation", "simultaneousWith": "*"},
            {"name": "swipe%d" % k, "type": "swipe", "direction": ["left", "right"]},
        ]
    with open(path, "w") as f:
        json.dump({"window": {"width": 1280, "height": 800},
                   "views": [{"name": "stage", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": True,
                              "recognizers": recs}]}, f)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", default=".build/release")
    ap.add_argument("--frames", type=int, default=3422)
    ap.add_argument("--sets", default="1,10,25,50,100")
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="tb-scale-")
    rec = os.path.join(tmp, "scale.evemu")
    recording(rec, args.frames)
    print("| recognizers | output lines | time | per frame | peak resident |")
    print("|---|---|---|---|---|")
    for sets in (int(s) for s in args.sets.split(",")):
        path = os.path.join(tmp, "scene%d.json" % sets)
        scene(path, sets)
        stats = os.path.join(tmp, "time")
        start = time.monotonic()
        p = subprocess.run(["/usr/bin/time", "-o", stats, "-f", "%M",
                            os.path.join(args.bin, "touchbridgectl"), "replay", "--scene", path, rec],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=True)
        wall = time.monotonic() - start
        lines = p.stdout.count(b"\n")
        with open(stats) as f:
            peak = int(f.read().split()[-1])
        print("| {} | {:,} | {:.2f} s | {:.3f} ms | {:.1f} MB |".format(
            sets * 7, lines, wall, wall / args.frames * 1000, peak / 1024))


if __name__ == "__main__":
    main()
