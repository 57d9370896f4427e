#!/usr/bin/env python3
"""Writes the synthetic recordings of Tests/Fixtures (synthetic__*.evemu): gestures that no real
recording we may ship makes with the built-in scene — a pinch, a rotation and a three-finger swipe.
whot/evemu-devices (MIT) has none: its touchscreen and display-tablet finger recordings give taps,
long presses, pans and edge pans only (the two-finger "circle" recordings move both fingers the same
way, a pan). These are made here, by this script, on a made-up ten-slot panel of 256 × 256 mm
(tbsupport.evemu_panel); `make test` checks that the files are what this script writes.

    python3 scripts/synthetic_recordings.py [DIRECTORY]      # default Tests/Fixtures
"""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import tbsupport  # noqa: E402

RECORDINGS = {
    "synthetic__panel__2fg-pinch-out.evemu": tbsupport.pinch_frames,
    "synthetic__panel__2fg-rotate-clockwise.evemu": tbsupport.rotation_frames,
    "synthetic__panel__3fg-swipe-left.evemu": tbsupport.swipe_frames,
}


def write(directory):
    for name, frames in RECORDINGS.items():
        tbsupport.evemu_frames(os.path.join(directory, name), frames(), name="TouchBridge synthetic panel")
    return sorted(RECORDINGS)


if __name__ == "__main__":
    for name in write(sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "Tests", "Fixtures")):
        print(name)
