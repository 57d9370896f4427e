"""What the Python test programs share: the integration tests (Tests/integration), the soak
(Tests/soak), the hardware lab (lab/) and the scaling replay (bench/scale_replay.py).

- `Daemon`: a touchbridged process on a private socket, its log captured.
- `evemu_panel(name, ...)`: the header of an evemu recording of a ten-slot multitouch panel, for the
  streams the programs make up.

Standard library only: the lab runs it inside a bare guest.
"""
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time


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
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log_file.close()
        if self.own_dir:
            shutil.rmtree(self.dir, ignore_errors=True)


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


def evemu_frames(path, frames, hz=240.0, name="Synthetic panel (TouchBridge tests)"):
    """Writes an evemu recording of `evemu_panel(name)` (0…4095 on both axes, 16 units/mm): `frames` is
    a list, one entry per frame at `hz`, of {slot: (x, y)} for the fingers down in it. A slot that
    appears gets a new tracking id; one that disappears lifts. A last frame lifts what is still down."""
    out = [evemu_panel(name)]
    down = {}
    next_id = 1
    for i, contacts in enumerate(list(frames) + [{}]):
        t = "{:.6f}".format(i / hz)
        for slot in sorted(set(down) - set(contacts)):
            out.append("E: {} 0003 002f {}\nE: {} 0003 0039 -1\n".format(t, slot, t))
            del down[slot]
        for slot, (x, y) in sorted(contacts.items()):
            out.append("E: {} 0003 002f {}\n".format(t, slot))
            if slot not in down:
                down[slot] = next_id
                out.append("E: {} 0003 0039 {}\n".format(t, next_id))
                next_id += 1
            out.append("E: {} 0003 0035 {}\nE: {} 0003 0036 {}\n".format(t, int(x), t, int(y)))
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
