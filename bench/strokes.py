#!/usr/bin/env python3
"""make bench's drawn strokes (docs/strokes.md, BENCHMARKS.md "Strokes"): data made as the $1 paper's was
collected, by a script of ours instead of people. 10 synthetic people draw each of the 16 built-in
shapes 10 times at each of 3 speeds (4,800 strokes, as many as the paper's). A person has a hand of
their own: a size, proportions, a slant, a habitual turn, how much they round corners, wobble and
tremble; each drawing varies about that; a fast drawing wobbles more and cuts corners, a slow one
trembles. Every stroke is played as one finger on a panel at 120 Hz and taken back through the
daemon's pipeline by `touchbridgectl stroke learn`, so the files hold what a stroke recognizer sees:
one file a person and speed (OUT/pNN-SPEED.json). touchbridge-bench --stroke-data=OUT then tests them
as the paper did (templates from the same person and speed; 1, 3 and 5 a shape).

    python3 bench/strokes.py --bin .build/release --out DIR [--people 10] [--samples 10]
"""
import argparse
import os
import random
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import tbsupport  # noqa: E402

# Speed: (seconds a stroke, spread), and how the hand changes: wobble, rounding and tremor factors.
SPEEDS = {"slow": (1.9, 0.3, 0.8, 0.7, 1.6), "medium": (1.0, 0.2, 1.0, 1.0, 1.0), "fast": (0.55, 0.1, 1.5, 1.8, 0.6)}


def hand(rng):
    """A person's habits."""
    return {"size": rng.gauss(190, 35), "aspect": rng.uniform(0.85, 1.2), "slant": rng.uniform(-0.25, 0.25),
            "turn": rng.uniform(-0.12, 0.12), "rounding": rng.uniform(0.01, 0.05), "wobble": rng.uniform(2, 6),
            "tremor": rng.uniform(0.3, 1.0)}


def drawing(shape, h, speed, rng):
    """One drawing of `shape` by the hand `h` at `speed`: a frame's finger positions, about (0, 0)."""
    seconds, spread, wobble, rounding, tremor = SPEEDS[speed]
    path = tbsupport.drawn_stroke(shape, rng, size=max(80, h["size"] * rng.uniform(0.88, 1.12)),
                                  aspect=h["aspect"] * rng.uniform(0.95, 1.05), slant=h["slant"] + rng.uniform(-0.05, 0.05),
                                  turn=h["turn"] + rng.uniform(-0.08, 0.08), wobble=h["wobble"] * wobble,
                                  tremor=h["tremor"] * tremor, rounding=min(0.12, h["rounding"] * rounding * rng.uniform(0.7, 1.3)))
    return tbsupport.paced(path, max(0.25, rng.gauss(seconds, spread)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    ap.add_argument("--out", required=True)
    ap.add_argument("--people", type=int, default=10)
    ap.add_argument("--samples", type=int, default=10)
    args = ap.parse_args()
    ctl = os.path.join(args.bin, "touchbridgectl")
    shapes = tbsupport.builtin_shapes(ctl)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tb-bench-strokes-")
    strokes = 0
    for p in range(args.people):
        rng = random.Random(1000 + p)
        h = hand(rng)
        # Which way round this person goes for shapes drawn either way (a circle, a triangle, a rectangle).
        ways = {name: rng.randrange(len(drawings)) for name, drawings in shapes.items()}
        for speed in SPEEDS:
            out = os.path.join(args.out, "p{:02d}-{}.json".format(p, speed))
            if os.path.exists(out):
                os.unlink(out)
            for name in sorted(shapes):
                rec = os.path.join(work, "{}.evemu".format(name))
                tbsupport.stroke_recording(rec, [drawing(shapes[name][ways[name]], h, speed, rng) for _ in range(args.samples)], gap=0.4)
                r = subprocess.run([ctl, "stroke", "learn", name, rec, "--templates", out], capture_output=True, text=True)
                if r.returncode != 0:
                    sys.exit("strokes: stroke learn {} for person {} {}: {}".format(name, p, speed, r.stderr.strip()))
                strokes += args.samples
    print("strokes: {} drawn by {} people at {} speeds, {} shapes, taken back through the pipeline into {}".format(
        strokes, args.people, len(SPEEDS), len(shapes), args.out))


if __name__ == "__main__":
    main()
