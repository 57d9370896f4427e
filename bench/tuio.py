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
    sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sink.bind(("127.0.0.1", 0))
    sink.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    port = sink.getsockname()[1]
    d = tbsupport.Daemon(os.path.join(args.bin, "touchbridged"), ["--no-devices", "--replay", recording, "--replay-delay", "1.5"], workdir=work)
    bridge = subprocess.Popen([os.path.join(args.bin, "touchbridgectl"), "tuio", "--udp", "127.0.0.1:%d" % port, "--socket", d.socket],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.0)                               # connected and idle before the replay begins
        before = tbsupport.cpu_seconds(bridge.pid)
        sink.settimeout(0.5)
        received = 0
        end = time.time() + 0.5 + args.seconds + 1.0
        while time.time() < end:
            try:
                sink.recv(65536)
                received += 1
            except socket.timeout:
                pass
        spent = tbsupport.cpu_seconds(bridge.pid) - before
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
        d.stop()
    # The frames said: one bundle each, less the idle re-sends (one a second at most).
    frames = max(1, received - int(args.seconds + 2))
    us = spent / frames * 1e6
    print("tuio: ten fingers at 240 Hz for {:.0f} s: the bridge spends {:.1f} µs a frame ({} bundles received, {:.1f} ms of CPU)".format(
        args.seconds, us, received, spent * 1000))
    print("tuio_us_per_frame={:.1f}".format(us))


if __name__ == "__main__":
    main()
