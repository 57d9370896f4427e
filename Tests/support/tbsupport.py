"""What the Python test programs share: the integration tests (Tests/integration), the soak
(Tests/soak), the hardware lab (lab/) and the scaling replay (bench/scale_replay.py).

- `Client`: the socket client, examples/touchbridge.py (the one the examples use too).
- `Daemon`: a touchbridged process on a private socket, its log captured.
- `offline(ctl, recording, ...)`: `touchbridgectl replay`'s lines; `compare_lines`: live against offline.
- `LibinputWatcher`: `libinput debug-events` on one device, its touch events counted and timed.
- `evemu_panel`, `evemu_frames` and the streams: synthetic recordings of a ten-slot panel.

Standard library only: the lab runs it inside a bare guest.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "examples"))
from touchbridge import Client, NotConnected  # noqa: E402,F401  (the examples' client, shared)


class Daemon:
    """A touchbridged process on a private socket (`socket`), its output in `log_path`.

    `binary`: the touchbridged to run. `workdir`: where the socket and the log go (a temporary
    directory, removed at `stop`, when none is given). `user`: a uid to run as (setpriv). `wrapper`: a
    command the daemon runs under (valgrind), which may need `start_timeout` seconds to start."""

    def __init__(self, binary, args=(), workdir=None, env=None, user=None, wrapper=(), start_timeout=10):
        self.own_dir = workdir is None
        self.dir = workdir or tempfile.mkdtemp(prefix="tb-test-")
        self.socket = os.path.join(self.dir, "tb.sock")
        self.log_path = os.path.join(self.dir, "daemon.log")
        self.log_file = open(self.log_path, "w")
        cmd = list(wrapper) + [binary, "--socket", self.socket] + list(args)
        if user is not None:
            cmd = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups"] + cmd
        full_env = dict(os.environ)
        full_env.update(env or {})
        self.proc = subprocess.Popen(cmd, stdout=self.log_file, stderr=subprocess.STDOUT, env=full_env)
        end = time.time() + start_timeout
        while not os.path.exists(self.socket):
            if self.proc.poll() is not None or time.time() > end:
                raise RuntimeError("touchbridged did not start:\n" + self.text())
            time.sleep(0.02)

    def text(self):
        """Everything the daemon printed so far."""
        self.log_file.flush()
        with open(self.log_path) as f:
            return f.read()

    def wait_for_log(self, pattern, timeout=10):
        """The first match of `pattern` in the log, waiting up to `timeout` seconds; None if it never came."""
        end = time.time() + timeout
        while time.time() < end:
            m = re.search(pattern, self.text())
            if m:
                return m
            time.sleep(0.05)
        return None

    def stop(self):
        """SIGTERM, as systemd stops it (SIGKILL after 10 s)."""
        end_process(self.proc, signal.SIGTERM, 10)
        self.log_file.close()
        if self.own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


def cpu_seconds(pid):
    """The CPU time a process's threads have had so far, in seconds: the sum of /proc/PID/task/*/schedstat
    (nanoseconds; /proc/PID/stat counts 10 ms ticks, and /proc/PID/schedstat is the main thread's alone,
    which left out mosquitto_pub's network thread, the one that reads the broker's acknowledgements)."""
    total = 0
    try:
        tasks = os.listdir("/proc/{}/task".format(pid))
    except OSError:
        return 0.0
    for t in tasks:
        try:
            with open("/proc/{}/task/{}/schedstat".format(pid, t)) as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total / 1e9


def end_process(proc, sig, timeout):
    """Sends `sig` to a running `proc`, waits up to `timeout` seconds, then SIGKILLs and reaps it."""
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def evemu_panel(name, x_max=4095, y_max=4095, pressure=False):
    """The header of an evemu recording (evemu-record's format) of a direct-touch panel with ten
    protocol-B slots, positions 0…x_max and 0…y_max, and ABS_MT_PRESSURE 0…255 when `pressure`."""
    # ABS_MT_SLOT (0x2f), ABS_MT_POSITION_X/Y (0x35, 0x36), ABS_MT_TRACKING_ID (0x39), ABS_MT_PRESSURE (0x3a).
    codes = [0x2f, 0x35, 0x36, 0x39] + ([0x3a] if pressure else [])
    bits = [0] * 8
    for c in codes:
        bits[c // 8] |= 1 << (c % 8)
    abs_bits = " ".join("{:02x}".format(b) for b in bits)
    lines = ["# EVEMU 1.3", "N: " + name, "I: 0018 0000 0000 0000", "P: 02 00 00 00 00 00 00 00",
             "B: 00 0b 00 00 00 00 00 00 00"]
    lines += ["B: 01 00 00 00 00 00 00 00 00"] * 5
    lines += ["B: 01 00 04 00 00 00 00 00 00"]                  # BTN_TOUCH
    lines += ["B: 01 00 00 00 00 00 00 00 00"] * 6
    lines += ["B: 02 00 00 00 00 00 00 00 00", "B: 03 " + abs_bits,
              "A: 2f 0 9 0 0 0", "A: 35 0 {} 0 0 16".format(x_max), "A: 36 0 {} 0 0 16".format(y_max),
              "A: 39 0 65535 0 0 0"]
    if pressure:
        lines.append("A: 3a 0 255 0 0 0")
    return "\n".join(lines) + "\n"


def evemu_frames(path, frames, hz=240.0, name="Synthetic panel (TouchBridge tests)", header=None, t0=0.0,
                 first_id=1, only_changes=False, pointer_emulation=False, lift_at_end=True):
    """Writes an evemu recording: `frames` is a list, one entry per frame at `hz` from `t0` s, of
    {slot: (x, y)} for the fingers down in it. A slot that appears gets a new tracking id (from
    `first_id`); one that disappears lifts; with `lift_at_end`, a last frame lifts what is still down.
    The device is `header` (an evemu description's text) or else `evemu_panel(name)` (0…4095 on both
    axes, 16 units/mm).

    As a kernel driver sends them: with `only_changes`, a frame has only the values that changed (and
    none at all when nothing did), and with `pointer_emulation`, BTN_TOUCH and ABS_X/ABS_Y follow the
    oldest finger, as the legacy single-touch axes do."""
    out = [header if header is not None else evemu_panel(name)]
    down = {}                   # slot: (tracking id, landing frame, (x, y))
    next_id = first_id
    emulated = None
    for i, contacts in enumerate(list(frames) + ([{}] if lift_at_end else [])):
        t = "{:.6f}".format(t0 + i / hz)
        ev = []
        for slot in sorted(set(down) - set(contacts)):
            ev += [(3, 0x2f, slot), (3, 0x39, -1)]
            del down[slot]
        for slot, (x, y) in sorted(contacts.items()):
            x, y = int(x), int(y)
            if slot not in down:
                down[slot] = (next_id, i, (x, y))
                ev += [(3, 0x2f, slot), (3, 0x39, next_id), (3, 0x35, x), (3, 0x36, y)]
                next_id += 1
                continue
            tid, since, (px, py) = down[slot]
            down[slot] = (tid, since, (x, y))
            if not only_changes:
                ev += [(3, 0x2f, slot), (3, 0x35, x), (3, 0x36, y)]
            elif (x, y) != (px, py):
                ev += [(3, 0x2f, slot)] + ([(3, 0x35, x)] if x != px else []) + ([(3, 0x36, y)] if y != py else [])
        if pointer_emulation:
            touching = bool(down)
            if touching != (emulated is not None):
                ev.append((1, 0x14a, 1 if touching else 0))
            if touching:
                oldest = min(down, key=lambda s: (down[s][1], s))
                pos = down[oldest][2]
                if pos != emulated:
                    ev += [(3, 0x00, pos[0]), (3, 0x01, pos[1])]
                emulated = pos
            else:
                emulated = None
        if only_changes and not ev:
            continue
        out += ["E: {} {:04x} {:04x} {}\n".format(t, a, b, c) for (a, b, c) in ev]
        out.append("E: {} 0000 0000 0\n".format(t))
    with open(path, "w") as f:
        f.writelines(out)


def pinch_frames(hz=240.0, seconds=1.2):
    """Two fingers that spread apart about the panel's middle: a pinch (scale about 2.2)."""
    n = int(hz * seconds)
    return [{0: (2048 - 400 - 500 * i / n, 2048 - 300 - 380 * i / n), 1: (2048 + 400 + 500 * i / n, 2048 + 300 + 380 * i / n)}
            for i in range(n)]


def rotation_frames(hz=240.0, seconds=1.2, turn=1.2):
    """Two fingers 1200 units apart that turn `turn` radians clockwise about the panel's middle: a
    rotation (the centroid stays put, so no pan begins first)."""
    import math
    n = int(hz * seconds)
    frames = []
    for i in range(n):
        a = 0.3 + turn * i / n
        dx, dy = 600 * math.cos(a), 600 * math.sin(a)
        frames.append({0: (2048 - dx, 2048 - dy), 1: (2048 + dx, 2048 + dy)})
    return frames


def swipe_frames(hz=240.0, seconds=0.25, fingers=3, dx=-1800, dy=0):
    """`fingers` fingers side by side that move (dx, dy) units in `seconds`: a quick swipe (left by
    default)."""
    n = int(hz * seconds)
    return [{f: (2600 + dx * i / n + (f - 1) * 350 * (dy != 0), 2048 + dy * i / n + (f - 1) * 350 * (dy == 0))
             for f in range(fingers)} for i in range(n)]


def ten_finger_frames(hz=240.0, seconds=20.0):
    """Ten fingers drawing circles for `seconds`, each lifting and landing again every 2 s."""
    import math
    frames = []
    for i in range(int(hz * seconds)):
        t = i / hz
        contacts = {}
        for f in range(10):
            if (t + f * 0.2) % 2.0 > 1.9:
                continue                                    # lifted for 0.1 s of every 2
            a = t * 2 + f
            contacts[f] = (400 + f * 330 + 150 * math.cos(a), 2048 + 900 * math.sin(a))
        frames.append(contacts)
    return frames


def offline(ctl, recording, *args):
    """The lines `touchbridgectl replay ARGS RECORDING` prints, decoded."""
    out = subprocess.run([ctl, "replay"] + list(args) + [recording], capture_output=True, text=True, check=True)
    return [json.loads(l) for l in out.stdout.splitlines()]


# Live lines and offline ones are made by the same code from the same events, so their numbers agree up
# to floating-point rounding: a daemon stamps a replay's events on its own clock (times offset by a large
# number, so velocities and times differ in the last digits), and the kernel stamps events to the
# microsecond. One tolerance covers both: 1e-4 of the value, at least 1e-4. Times are compared as gaps
# (2 ms: a replay starts whenever the daemon's timer fires), and where the kernel timed the events
# itself (`timed=False`: evemu-play's pacing jitters), time-derived values (velocity) are left out.
TOLERANCE = 1e-4
TIME_DERIVED = ("time", "velocity")


def compare_lines(live, expected, timed=True, ignore=()):
    """None when the lines agree (same kinds, recognizers and states in the same order, numbers within
    TOLERANCE), else a sentence naming the first difference. `ignore`: fields left out (the lab's live
    daemon numbers its devices as they come, an offline replay's device is always 0)."""
    if len(live) != len(expected):
        a = [(l.get("recognizer"), l.get("state")) for l in live]
        b = [(l.get("recognizer"), l.get("state")) for l in expected]
        i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        return "{} lines live, {} offline; first difference at {}: {} vs {}".format(len(a), len(b), i, a[i:i + 2], b[i:i + 2])

    def differs(a, b, where):
        if isinstance(b, dict):
            if not isinstance(a, dict):
                return where
            for k in b:
                if k in ignore or (k in TIME_DERIVED and (k != "time" or not timed)):
                    continue
                if k == "time":
                    continue                              # compared as gaps below
                d = differs(a.get(k), b[k], where + "." + k)
                if d:
                    return d
            return None
        if isinstance(b, (int, float)) and not isinstance(b, bool):
            ok = isinstance(a, (int, float)) and abs(a - b) <= TOLERANCE * max(1.0, abs(b))
            return None if ok else "{}: {} live, {} offline".format(where, a, b)
        return None if a == b else "{}: {!r} live, {!r} offline".format(where, a, b)

    for i, (a, b) in enumerate(zip(live, expected)):
        d = differs(a, b, "line {} ({} {})".format(i, b.get("recognizer", b.get("event")), b.get("state", b.get("phase", ""))))
        if d:
            return d
    if timed and live and all("time" in l for l in live + expected):
        offset = live[0]["time"] - expected[0]["time"]
        for i, (a, b) in enumerate(zip(live, expected)):
            if abs(a["time"] - b["time"] - offset) > 2e-3:
                return "line {}: time gap {} s off".format(i, a["time"] - b["time"] - offset)
    return None


class LibinputWatcher:
    """`libinput debug-events` on one device node, as a compositor reads it: its touch events, with
    their times, in `events()`; `stop()` counts them."""

    KINDS = ("TOUCH_DOWN", "TOUCH_UP", "TOUCH_CANCEL")

    def __init__(self, node, workdir, tag="libinput", show_keycodes=False):
        """`show_keycodes`: key events name their keys (libinput hides them by default)."""
        self.path = os.path.join(workdir, "{}.log".format(tag))
        self.out = open(self.path, "w")
        self.proc = subprocess.Popen(["stdbuf", "-oL", "libinput", "debug-events"] + (["--show-keycodes"] if show_keycodes else [])
                                     + ["--device", node],
                                     stdout=self.out, stderr=subprocess.STDOUT)
        end = time.time() + 10
        while "DEVICE_ADDED" not in self.text() and time.time() < end:
            time.sleep(0.05)

    def text(self):
        if not self.out.closed:
            self.out.flush()
        with open(self.path) as f:
            return f.read()

    def events(self, since=0):
        """[(kind, seconds)] of the touch events after offset `since` of the log."""
        return [(m.group(1), float(m.group(2))) for m in
                re.finditer(r"\b(TOUCH_DOWN|TOUCH_UP|TOUCH_CANCEL)\s+\+([0-9.]+)s", self.text()[since:])]

    def kinds(self, since=0):
        return [k for k, _ in self.events(since)]

    def stop(self):
        """Ends it; the count of each kind of touch event it saw."""
        end_process(self.proc, signal.SIGINT, 5)
        self.out.close()
        kinds = self.kinds()
        return {k: kinds.count(k) for k in self.KINDS}


def osc_bundle(data):
    """An OSC bundle's messages as [(path, [args])] (i, f, s and t arguments; nested bundles flattened):
    what TUIO bundles carry, for tests and the lab that read them without liblo."""
    import struct

    def string(b, i):
        end = b.index(b"\0", i)
        return b[i:end].decode(), (end + 4) & ~3

    def message(b):
        path, i = string(b, 0)
        tags, i = string(b, i)
        args = []
        for t in tags[1:]:
            if t in "if":
                args.append(struct.unpack(">" + t, b[i:i + 4])[0])
                i += 4
            elif t == "s":
                v, i = string(b, i)
                args.append(v)
            elif t == "t":
                args.append(struct.unpack(">Q", b[i:i + 8])[0])
                i += 8
            else:
                raise AssertionError("an OSC type TouchBridge does not send: " + t)
        return path, args

    assert data[:8] == b"#bundle\0", data[:16]
    out, i = [], 16
    while i < len(data):
        (n,) = struct.unpack(">i", data[i:i + 4])
        part = data[i + 4:i + 4 + n]
        out += osc_bundle(part) if part.startswith(b"#bundle") else [message(part)]
        i += 4 + n
    return out


class TUIOLatency:
    """The TUIO bridge's latency next to the socket line's, for the lab (lab/tuio.py) and make bench
    (bench/tuio.py): a socket reader of the touches topic and a UDP socket the bridge sends to, read in
    one select loop. For each frame (the touch lines of one time): when its lines reached the reader,
    when its bundle reached the UDP socket (read the same way), and when the bundle was sent (the
    kernel's receive timestamp, SO_TIMESTAMPNS: on loopback the datagram arrives in the sender's own
    system call), each minus the frame's time (CLOCK_MONOTONIC, the lines' "time")."""

    def __init__(self, daemon_socket):
        import socket
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.udp.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.udp.setsockopt(socket.SOL_SOCKET, 35, 1)          # SO_TIMESTAMPNS
        self.port = self.udp.getsockname()[1]
        self.lines = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.lines.connect(daemon_socket)
        self.lines.sendall(b'{"subscribe":["touches"]}\n')
        self.buffer = b""
        # The last fseq read, kept across reset(): the bridge says the alive set again once a second
        # with the same fseq while nothing changes, and such a re-send read just after a reset is no
        # frame's bundle (counted as one, it paired every later frame with the bundle before its own).
        self.last_fseq = None
        self.reset()

    def reset(self):
        self.frames = {}                                 # frame time: the reader's arrival
        self.bundles = []                                # (fseq, arrival, sent)

    def collect(self, seconds):
        import select
        import struct
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            ready, _, _ = select.select([self.lines, self.udp], [], [], 0.05)
            now = time.monotonic()
            for s in ready:
                if s is self.udp:
                    data, anc, _, _ = self.udp.recvmsg(65536, 64)
                    sent = None
                    for level, kind, value in anc:
                        if kind == 35:
                            sec, nsec = struct.unpack("qq", value[:16])
                            # CLOCK_REALTIME → CLOCK_MONOTONIC, by the offset now.
                            sent = sec + nsec / 1e9 - (time.time() - time.monotonic())
                    fseq = next(a[1] for p, a in osc_bundle(data) if p == "/tuio/2Dcur" and a[0] == "fseq")
                    if fseq != self.last_fseq:
                        self.last_fseq = fseq
                        self.bundles.append((fseq, now, sent if sent is not None else now))
                else:
                    self.buffer += self.lines.recv(1 << 16)
                    *complete, self.buffer = self.buffer.split(b"\n")
                    for l in complete:
                        if b'"event":"touch"' in l:
                            self.frames.setdefault(float(l.split(b'"time":', 1)[1].split(b",", 1)[0]), now)

    def figures(self):
        """(frames, bundles, {name: (p50, p99)} in ms) for line, udp_received, udp_sent, added."""
        times = sorted(self.frames)
        n = min(len(times), len(self.bundles))

        def pct(v, p):
            v = sorted(v)
            return v[min(len(v) - 1, int(round((len(v) - 1) * p)))] if v else float("nan")
        line = [(self.frames[t] - t) * 1000 for t in times[:n]]
        received = [(self.bundles[k][1] - times[k]) * 1000 for k in range(n)]
        sent = [(self.bundles[k][2] - times[k]) * 1000 for k in range(n)]
        added = [r - l for r, l in zip(received, line)]
        return len(times), len(self.bundles), {name: (pct(v, 0.5), pct(v, 0.99)) for name, v in
                                               (("line", line), ("udp_received", received), ("udp_sent", sent), ("added", added))}

    @staticmethod
    def describe(frames, f):
        return ("{} frames: socket line read p50 {:.2f} ms, p99 {:.2f} ms; UDP bundle sent p50 {:.2f} ms, p99 {:.2f} ms, read "
                "p50 {:.2f} ms, p99 {:.2f} ms; added by the bridge (read to read) p50 {:.2f} ms, p99 {:.2f} ms").format(
                    frames, *f["line"], *f["udp_sent"], *f["udp_received"], *f["added"])


def builtin_shapes(ctl, sensitive=False):
    """The built-in shapes (`touchbridgectl stroke shapes`): {name: [[(x, y), …], …]}, 200 pt wide."""
    out = subprocess.run([ctl, "stroke", "shapes"] + (["--sensitive"] if sensitive else []), capture_output=True, text=True, check=True)
    return {name: [[tuple(p) for p in s] for s in strokes] for name, strokes in json.loads(out.stdout)["templates"].items()}


def drawn_stroke(points, rng, size=200.0, aspect=1.0, slant=0.0, turn=0.0, wobble=0.0, tremor=0.0, rounding=0.0):
    """`points` (a shape in any unit) as a person draws it: scaled to `size` wide, stretched by `aspect`,
    slanted by `slant` (a shear), turned by `turn` radians, corners cut by `rounding` (a moving average
    over that fraction of the path), a slow `wobble` (sinusoids of random phase, in points) and a fast
    `tremor` (points of noise a sample). Returns [(x, y)] points about (0, 0), densely sampled."""
    import math
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    w = max(max(xs) - min(xs), max(ys) - min(ys), 1e-9)
    cx, cy = (max(xs) + min(xs)) / 2, (max(ys) + min(ys)) / 2
    pts = [((x - cx) / w * size * aspect, (y - cy) / w * size / aspect) for x, y in points]
    # Dense and even along the path (1 pt), so that rounding and the pace act on the path.
    dense = [pts[0]]
    for (ax, ay), (bx, by) in zip(pts, pts[1:]):
        n = max(1, int(math.hypot(bx - ax, by - ay)))
        dense += [(ax + (bx - ax) * k / n, ay + (by - ay) * k / n) for k in range(1, n + 1)]
    if rounding > 0:
        half = max(1, int(len(dense) * rounding / 2))
        dense = [(sum(p[0] for p in dense[max(0, i - half):i + half + 1]) / len(dense[max(0, i - half):i + half + 1]),
                  sum(p[1] for p in dense[max(0, i - half):i + half + 1]) / len(dense[max(0, i - half):i + half + 1]))
                 for i in range(len(dense))]
    phases = [rng.uniform(0, 2 * math.pi) for _ in range(4)]
    n = len(dense)
    out = []
    for i, (x, y) in enumerate(dense):
        t = i / max(1, n - 1)
        x += slant * -y
        wx = wobble * (math.sin(2 * math.pi * (1.3 * t) + phases[0]) + 0.5 * math.sin(2 * math.pi * 3.1 * t + phases[1]))
        wy = wobble * (math.sin(2 * math.pi * (1.1 * t) + phases[2]) + 0.5 * math.sin(2 * math.pi * 2.7 * t + phases[3]))
        x, y = x + wx + rng.gauss(0, tremor), y + wy + rng.gauss(0, tremor)
        out.append((x * math.cos(turn) - y * math.sin(turn), x * math.sin(turn) + y * math.cos(turn)))
    return out


def paced(path, seconds, hz=120.0):
    """A dense path sampled at `hz` over `seconds`, slower where it turns (as a hand slows at a corner)."""
    import math
    # The time a piece of the path takes grows with how sharply the path turns there.
    weights = []
    for i in range(len(path)):
        a, b, c = path[max(0, i - 3)], path[i], path[min(len(path) - 1, i + 3)]
        v1, v2 = (b[0] - a[0], b[1] - a[1]), (c[0] - b[0], c[1] - b[1])
        turn = abs(math.atan2(v1[0] * v2[1] - v1[1] * v2[0], v1[0] * v2[0] + v1[1] * v2[1] + 1e-12))
        weights.append(1 + 2.5 * turn)
    total = sum(weights)
    frames = max(2, int(seconds * hz))
    out, acc, k = [], 0.0, 0
    for i in range(frames):
        target = total * i / (frames - 1)
        while k < len(path) - 1 and acc + weights[k] < target:
            acc += weights[k]
            k += 1
        out.append(path[k])
    return out


def stroke_recording(path, strokes, origin=(2048, 2048), units_per_point=6.0, gap=0.6, hz=120.0):
    """An evemu recording of one finger drawing each stroke ([(x, y)] points a frame, about (0, 0)) in
    turn, `gap` seconds apart, on the synthetic panel (evemu_panel), at `origin` in its units."""
    frames = []
    for s in strokes:
        frames += [{0: (origin[0] + x * units_per_point, origin[1] + y * units_per_point)} for x, y in s]
        frames += [{}] * int(gap * hz)
    evemu_frames(path, frames, hz=hz)
