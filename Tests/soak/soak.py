#!/usr/bin/env python3
"""The soak (`make soak`, about a minute): touchbridged replays a random ten-finger stream at 1 kHz,
four times a fast panel's rate, over and over (--replay-loop), while 50 clients come and go: three
stay from start to end and read everything (one on every topic, two on gestures and devices), the rest
connect, subscribe to whatever, send garbage, read slowly or never, and hang up at random. Beside them a
hostile reader sends as fast as it can, never reading: floods of newlines, then objects of 6,300 keys
(62 KB lines), again and again, connecting again when the daemon drops it for not reading.

It passes when nothing crashed, the floor of the daemon's resident memory (its minimum over 10 s:
the queues of clients that stopped reading come and go by megabytes, up to --client-queue each, and
are not a leak) grew by less than 3 MiB from the 10 s after a warm-up to the last 10 s (a leak of 5 KiB a
connection would pass it: about 640 connections come and go in between),
the client on every topic never waited over a second for a touch line (the hostile reader's work is
bounded per wakeup: a touch line's delay, its arrival less the frame's CLOCK_MONOTONIC time, is printed),
no touch is left down at the end (the daemon stops and the replay ends as an unplugged device does),
and every client that stayed got well-formed streams: every line JSON, every touch began once and
first, then moved, then ended or was cancelled once, last.

Standard library only; the binaries come from $TB_BIN (make soak: the release build).
"""
import json
import os
import random
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import tbsupport  # noqa: E402
from tbsupport import evemu_panel  # noqa: E402

BIN = os.environ.get("TB_BIN", ".build/release")
SECONDS = float(os.environ.get("SOAK_SECONDS", "60"))
WARM_UP = min(20.0, SECONDS / 3)
CLIENTS = 50
STAYING = 3

DEVICE = evemu_panel("Soak Panel", pressure=True)


def stream(path, seconds=4.0, hz=1000, seed=7):
    """Ten fingers wandering, landing and lifting at random, a frame every 1/hz s."""
    rnd = random.Random(seed)
    lines, tid = [], 1
    down = [None] * 10
    pos = [[rnd.randrange(200, 3900), rnd.randrange(200, 3900)] for _ in range(10)]
    for frame in range(int(seconds * hz)):
        t = frame / hz
        for s in range(10):
            r = rnd.random()
            if down[s] is None and r < 0.01:
                down[s] = tid
                tid += 1
                lines.append("E: {:.6f} 0003 002f {}\nE: {:.6f} 0003 0039 {}\n".format(t, s, t, down[s]))
                lines.append("E: {:.6f} 0003 0035 {}\nE: {:.6f} 0003 0036 {}\n".format(t, pos[s][0], t, pos[s][1]))
                lines.append("E: {:.6f} 0003 003a {}\n".format(t, rnd.randrange(20, 200)))
            elif down[s] is not None and r < 0.004:
                down[s] = None
                lines.append("E: {:.6f} 0003 002f {}\nE: {:.6f} 0003 0039 -1\n".format(t, s, t))
            elif down[s] is not None:
                pos[s][0] = min(4095, max(0, pos[s][0] + rnd.randrange(-9, 10)))
                pos[s][1] = min(4095, max(0, pos[s][1] + rnd.randrange(-9, 10)))
                lines.append("E: {:.6f} 0003 002f {}\nE: {:.6f} 0003 0035 {}\nE: {:.6f} 0003 0036 {}\n".format(
                    t, s, t, pos[s][0], t, pos[s][1]))
        lines.append("E: {:.6f} 0000 0000 0\n".format(t))
    with open(path, "w") as f:
        f.write(DEVICE)
        f.writelines(lines)


def rss_kib(pid):
    with open("/proc/{}/status".format(pid)) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


class Staying:
    """A client that stays and reads everything, checking every line as it comes."""

    def __init__(self, path, topics):
        self.client = tbsupport.Client(path, read_hello=False)
        self.client.subscribe(topics)
        self.sock = self.client.sock
        self.lines = 0
        self.phases = {}
        self.problems = []
        self.closed = False
        self.delays = []        # touch lines: arrival less the frame's time (s, CLOCK_MONOTONIC both)

    def take(self):
        complete = self.client.take()
        if complete is None:
            self.closed = True
            return
        for raw in complete:
            self.lines += 1
            try:
                line = json.loads(raw)
            except ValueError:
                self.problems.append("not JSON: {!r}".format(raw[:80]))
                continue
            if "event" not in line:
                self.problems.append("no event: {!r}".format(raw[:80]))
            if line.get("event") == "touch":
                self.delays.append(time.monotonic() - line["time"])
                last, phase = self.phases.get(line["id"]), line["phase"]
                ok = (last is None) if phase == "began" else (last in ("began", "moved", "stationary"))
                if not ok:
                    self.problems.append("touch {} {} after {}".format(line["id"], phase, last))
                self.phases[line["id"]] = phase

    def left_down(self):
        return sorted(i for i, p in self.phases.items() if p not in ("ended", "cancelled"))


class Unruly:
    """A client that does what it likes for a while, then hangs up."""

    def __init__(self, path, rnd):
        # The shared client connects; what follows is this client's own misbehaviour on its socket.
        self.sock = tbsupport.Client(path, read_hello=False).sock
        self.sock.setblocking(False)
        self.rnd = rnd
        self.until = time.time() + rnd.uniform(0.2, 6)
        self.reads = rnd.choice(["never", "slowly", "all"])
        topics = rnd.sample(["gestures", "touches", "devices"], rnd.randrange(0, 4))
        what = rnd.random()
        try:
            if what < 0.7:
                self.sock.send((json.dumps({"subscribe": topics}) + "\n").encode())
            elif what < 0.85:
                self.sock.send(rnd.choice([b"garbage\n", b"{\"subscribe\":\n", b"[]\n", b"\xff\xfe\n", b"{}\n"]))
            else:
                self.sock.send(b"x" * rnd.randrange(1, 70000))     # a line that may be too long
        except OSError:
            pass

    def step(self):
        if self.reads == "never":
            return
        try:
            self.sock.recv(1 << 20 if self.reads == "all" else 512)
        except OSError:
            pass


HOSTILE = r'''
import socket, sys, time
keys = ('{"subscribe":["gestures"],' + ",".join('"k%04x":1' % i for i in range(6300)) + "}\n").encode()
newlines = b"\n" * 65536
while True:
    # It never reads: once its answers fill its queue the daemon drops it, and it comes back.
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.connect(sys.argv[1])
        while True:
            for _ in range(16):
                s.sendall(newlines)
            for _ in range(5):
                s.sendall(keys)
    except OSError:
        s.close()
        time.sleep(0.05)
'''


def main():
    tmp = tempfile.mkdtemp(prefix="tb-soak-")
    rec = os.path.join(tmp, "soak.evemu")
    stream(rec)
    sock = os.path.join(tmp, "tb.sock")
    log = open(os.path.join(tmp, "daemon.log"), "w")
    daemon = subprocess.Popen([os.path.join(BIN, "touchbridged"), "--no-devices", "--socket", sock, "--replay", rec,
                               "--replay-loop", "--replay-delay", "0.2"], stdout=log, stderr=subprocess.STDOUT)
    end = time.time() + 10
    while not os.path.exists(sock) and time.time() < end and daemon.poll() is None:
        time.sleep(0.02)
    rnd = random.Random(11)
    staying = [Staying(sock, ["gestures", "touches", "devices"])] + [Staying(sock, ["gestures", "devices"]) for _ in range(STAYING - 1)]
    hostile = subprocess.Popen([sys.executable, "-c", HOSTILE, sock])
    unruly = []
    start = time.time()
    connections = 0
    samples = []            # (seconds since start, resident KiB), one a second
    while time.time() - start < SECONDS and daemon.poll() is None:
        now = time.time()
        if not samples or now - start >= samples[-1][0] + 0.5:
            samples.append((now - start, rss_kib(daemon.pid)))
        for u in [u for u in unruly if now > u.until]:
            u.sock.close()
            unruly.remove(u)
        while len(unruly) < CLIENTS - STAYING:
            try:
                unruly.append(Unruly(sock, rnd))
                connections += 1
            except OSError:
                break
        readable, _, _ = select.select([s.sock for s in staying if not s.closed], [], [], 0.01)
        for s in staying:
            if s.sock in readable:
                s.take()
        for u in unruly:
            u.step()
    if daemon.poll() is None:
        samples.append((time.time() - start, rss_kib(daemon.pid)))
    for u in unruly:
        u.sock.close()
    hostile_alive = hostile.poll() is None
    hostile.kill()
    hostile.wait(10)
    alive = daemon.poll() is None
    # The daemon stops: the replay ends as an unplugged device does, and the staying clients read to the end.
    daemon.send_signal(signal.SIGTERM)
    end = time.time() + 10
    while time.time() < end and not all(s.closed for s in staying):
        readable, _, _ = select.select([s.sock for s in staying if not s.closed], [], [], 0.2)
        for s in staying:
            if s.sock in readable:
                s.take()
    status = daemon.wait(10)
    log.close()
    early = [k for t, k in samples if WARM_UP <= t < WARM_UP + 10]
    late = [k for t, k in samples if t >= SECONDS - 10]
    warm, peak = (min(early), min(late)) if early and late else (0, 0)
    growth = (peak - warm) / 1024 if early and late else float("nan")
    print("soak: {:.0f} s, {} connections came and went, {} lines to the client on every topic; resident floor {:.2f} MiB "
          "in the 10 s after {:.0f} s, {:.2f} MiB in the last 10 s ({:+.2f} MiB)".format(
              SECONDS, connections, staying[0].lines, warm / 1024 if warm else 0, WARM_UP, peak / 1024, growth))
    delays = sorted(staying[0].delays)
    if delays:
        print("soak: beside a hostile reader, a touch line's delay: median {:.1f} ms, p99 {:.1f} ms, max {:.1f} ms".format(
            1000 * delays[len(delays) // 2], 1000 * delays[int(len(delays) * 0.99)], 1000 * delays[-1]))
    failures = []
    if not delays or delays[-1] > 1.0:
        failures.append("a touch line waited {:.2f} s (a reader froze the daemon?)".format(delays[-1] if delays else float("nan")))
    if not hostile_alive:
        failures.append("the hostile reader died")
    if not alive or status != 0:
        failures.append("the daemon {} (exit status {})".format("died" if not alive else "did not exit cleanly", status))
    if not growth < 3.0:
        failures.append("the floor of resident memory grew by {:.2f} MiB after the warm-up".format(growth))
    for i, s in enumerate(staying):
        if s.problems:
            failures.append("client {}: {}".format(i, s.problems[:3]))
        if s.left_down():
            failures.append("client {}: touches left down: {}".format(i, s.left_down()[:10]))
        if not s.closed:
            failures.append("client {}: its stream did not end".format(i))
    if staying[0].lines < 10000:
        failures.append("the client on every topic got only {} lines".format(staying[0].lines))
    if failures:
        with open(os.path.join(tmp, "daemon.log")) as f:
            tail = f.read()[-1500:]
        print("soak: FAIL\n  " + "\n  ".join(failures) + "\n--- daemon log ---\n" + tail)
        return 1
    print("soak: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
