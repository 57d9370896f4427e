#!/usr/bin/env python3
"""The visualizer's screenshots in docs/ (README "Visualize"), made the way a user would see them:
reports written by `touchbridgectl replay --html` and the live page of `touchbridgectl visualize`
beside a daemon replaying a recording, photographed in headless Chromium.

usage: scripts/screenshots.py [BIN]     (BIN: where the binaries are, default .build/debug)
"""
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import headless  # noqa: E402
import tbsupport  # noqa: E402

BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, ".build", "debug")
CTL = os.path.join(BIN, "touchbridgectl")
DOCS = os.path.join(ROOT, "docs")
TAPS = os.path.join(ROOT, "Tests", "Fixtures", "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")
SCROLL = os.path.join(ROOT, "Tests", "Fixtures", "evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu")


def report(recording, out):
    subprocess.run([CTL, "replay", "--html", out, recording], check=True, stdout=subprocess.DEVNULL)


def main():
    tmp = tempfile.mkdtemp()
    with headless.Browser(width=1400, height=1250) as b:
        # Nine fast taps: four double taps, and the single tap that waits for the double tap to fail.
        path = os.path.join(tmp, "taps.html")
        report(TAPS, path)
        p = b.open("file://" + path)
        p.wait_for("document.body.dataset.lines > 0")
        time.sleep(0.5)
        p.screenshot(os.path.join(DOCS, "visualizer-report-double-tap.png"))
        # A pinch, shown in the middle, fingers down.
        pinch = os.path.join(ROOT, "Tests", "Fixtures", "synthetic__panel__2fg-pinch-out.evemu")
        path = os.path.join(tmp, "pinch.html")
        report(pinch, path)
        p = b.open("file://" + path)
        p.wait_for("document.body.dataset.lines > 0")
        p.evaluate("S.t = M.t0 + (M.t1 - M.t0) * 0.7; S.follow = false; S.dirty = true; draw()")
        time.sleep(0.5)
        p.screenshot(os.path.join(DOCS, "visualizer-report-pinch.png"))
        # The live page beside a daemon playing a two-finger scroll again and again.
        d = tbsupport.Daemon(os.path.join(BIN, "touchbridged"), ["--no-devices", "--replay", SCROLL, "--replay-loop",
                                                                  "--replay-delay", "0.3"])
        vis = subprocess.Popen([CTL, "visualize", "--touches", "--socket", d.socket, "--listen", "127.0.0.1:18391"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        try:
            url = vis.stdout.readline().split(" open ")[1].split(" ")[0]      # it carries the token
            p = b.open(url)
            p.wait_for("document.body.dataset.gestures > 0", 30)
            time.sleep(2.5)
            p.wait_for("document.querySelectorAll('g.touch[data-phase=moved]').length == 2", 30)
            p.screenshot(os.path.join(DOCS, "visualizer-live.png"))
        finally:
            vis.terminate()
            vis.wait(10)
            d.stop()
    print("wrote docs/visualizer-report-double-tap.png, docs/visualizer-report-pinch.png, docs/visualizer-live.png")


if __name__ == "__main__":
    main()
