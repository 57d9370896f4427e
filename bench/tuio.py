#!/usr/bin/env python3
"""make bench's TUIO figure: what `touchbridgectl tuio` costs a frame of ten fingers.

A daemon replays a synthetic recording of ten fingers moving at 240 Hz for SECONDS; one bridge says
them as TUIO 1.1 to a UDP socket this script reads (every datagram counted). Reported: the bridge's
CPU time (every thread's, /proc/PID/task/*/schedstat) over the replay, divided by the frames it said,
and the bundles received. Prints one line, then `tuio_us_per_frame=N` for bench.sh to pass on.

    python3 bench/tuio.py --bin .build/release [--seconds 5]
"""
import argparse
import math
import os
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import tbsupport  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    ap.add_argument("--seconds", type=float, default=5.0)
    args = ap.parse_args()
    hz = 240.0
    n = int(args.seconds * hz)
    work = tempfile.mkdtemp(prefix="tb-bench-tuio-")
    recording = os.path.join(work, "ten.evemu")
    # Ten fingers on circles of their own, each moving every frame.
    tbsupport.evemu_frames(recording, [{s: (600 + 300 * s + 200 * math.cos(i / 40 + s), 2048 + 1200 * math.sin(i / 40 + s))
                                        for s in range(10)} for i in range(n)], hz=hz)
    d = tbsupport.Daemon(os.path.join(args.bin, "touchbridged"), ["--no-devices", "--replay", recording, "--replay-delay", "1.5"], workdir=work)
    # The latency next to the socket line's, with the same reader (tbsupport.TUIOLatency).
    m = tbsupport.TUIOLatency(d.socket)
    port = m.port
    bridge = subprocess.Popen([os.path.join(args.bin, "touchbridgectl"), "tuio", "--udp", "127.0.0.1:%d" % port, "--socket", d.socket],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)                               # connected and idle before the replay begins
        m.collect(0.2)
        m.reset()
        before = tbsupport.cpu_seconds(bridge.pid)
        m.collect(0.3 + args.seconds + 1.0)
        spent = tbsupport.cpu_seconds(bridge.pid) - before
        frames, received, f = m.figures()
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
        d.stop()
    us = spent / max(1, frames) * 1e6
    print("tuio: ten fingers at 240 Hz for {:.0f} s: the bridge spends {:.1f} µs a frame ({} bundles received, {:.1f} ms of CPU)".format(
        args.seconds, us, received, spent * 1000))
    print("tuio latency, ten fingers at 240 Hz: " + m.describe(frames, f))
    print("tuio_us_per_frame={:.1f}".format(us))
    print("tuio_added_p99_ms={:.3f}".format(f["added"][1]))


if __name__ == "__main__":
    main()
