#!/usr/bin/env python3
"""make bench's WebSocket figure: one `touchbridgectl websocket` serving a fleet of 20 clients.

A daemon replays a synthetic recording of ten fingers moving at 240 Hz for SECONDS; one bridge serves
it to CLIENTS WebSocket clients in this process (raw sockets, one select loop: the clients must not be
what is measured), half on /lines?topics=touches (ten text frames a frame), half on /tuio?profile=2.0
(a binary frame a frame). Reported: the bridge's CPU (every thread, /proc/PID/task/*/schedstat) over
the replay by the frames, its resident memory at the end, and the fewest frames any client got of
what it was sent (all of them, or a client fell behind). Prints one line, then
`websocket_us_per_frame=N` for bench.sh.

    python3 bench/websocket.py --bin .build/release [--seconds 5] [--clients 20]
"""
import argparse
import base64
import math
import os
import select
import socket
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import tbsupport  # noqa: E402


class Client:
    """A WebSocket client that only counts the server's frames (they are unmasked; no parsing but the headers)."""

    def __init__(self, port, path):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(("GET %s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                           "Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n" % (path, port, key)).encode())
        head = b""
        while b"\r\n\r\n" not in head:
            head += self.sock.recv(4096)
        assert b" 101 " in head.split(b"\r\n")[0], head[:200]
        self.buffer = head.split(b"\r\n\r\n", 1)[1]
        self.sock.setblocking(False)
        self.frames = {1: 0, 2: 0, 8: 0}

    def read(self):
        try:
            chunk = self.sock.recv(1 << 20)
        except BlockingIOError:
            return
        self.buffer += chunk
        b = self.buffer
        i = 0
        while len(b) - i >= 2:
            op, n = b[i] & 0x0F, b[i + 1] & 0x7F
            h = 2
            if n == 126:
                if len(b) - i < 4:
                    break
                n, h = int.from_bytes(b[i + 2:i + 4], "big"), 4
            elif n == 127:
                if len(b) - i < 10:
                    break
                n, h = int.from_bytes(b[i + 2:i + 10], "big"), 10
            if len(b) - i < h + n:
                break
            self.frames[op] = self.frames.get(op, 0) + 1
            i += h + n
        self.buffer = b[i:]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, ".build", "release"))
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=20)
    args = ap.parse_args()
    hz = 240.0
    n = int(args.seconds * hz)
    work = tempfile.mkdtemp(prefix="tb-bench-ws-")
    recording = os.path.join(work, "ten.evemu")
    tbsupport.evemu_frames(recording, [{s: (600 + 300 * s + 200 * math.cos(i / 40 + s), 2048 + 1200 * math.sin(i / 40 + s))
                                        for s in range(10)} for i in range(n)], hz=hz)
    d = tbsupport.Daemon(os.path.join(args.bin, "touchbridged"), ["--no-devices", "--replay", recording, "--replay-delay", "2"], workdir=work)
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    bridge = subprocess.Popen([os.path.join(args.bin, "touchbridgectl"), "websocket", "--no-token", "--listen", "127.0.0.1:%d" % port,
                               "--socket", d.socket], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        bridge.stdout.readline()                       # listening
        clients = [Client(port, "/lines?topics=touches" if i % 2 == 0 else "/tuio?profile=2.0") for i in range(args.clients)]
        time.sleep(0.5)
        before = tbsupport.cpu_seconds(bridge.pid)
        end = time.time() + 1.5 + args.seconds + 1.0
        socks = {c.sock: c for c in clients}
        while time.time() < end:
            ready, _, _ = select.select(list(socks), [], [], 0.2)
            for s in ready:
                socks[s].read()
        spent = tbsupport.cpu_seconds(bridge.pid) - before
        with open("/proc/%d/status" % bridge.pid) as f:
            rss = next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))
    finally:
        bridge.terminate()
        bridge.wait(timeout=10)
        d.stop()
    lines = [c.frames[1] for c in clients[0::2]]
    bundles = [c.frames[2] for c in clients[1::2]]
    closed = sum(c.frames.get(8, 0) for c in clients)
    us = spent / n * 1e6
    print("websocket: ten fingers at 240 Hz for {:.0f} s to {} clients: the bridge spends {:.0f} µs a frame ({:.0f} % of a core), "
          "{:.1f} MiB resident; each lines client got {}–{} lines of {}, each TUIO client {}–{} bundles; {} closed".format(
              args.seconds, args.clients, us, spent / (args.seconds + 2.5) * 100, rss / 1024, min(lines), max(lines), n * 10 + 10,
              min(bundles), max(bundles), closed))
    print("websocket_us_per_frame={:.1f}".format(us))


if __name__ == "__main__":
    main()
