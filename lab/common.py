"""What the hardware lab's checks share: results, the devices (evemu-device), the daemon, clients, a
libinput watcher, offline replays and recordings cut short. Imported by lab.py and passthrough.py."""
import json
import os
import re
import signal
import select
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import tbsupport  # noqa: E402
FIX = os.path.join(ROOT, "Tests", "Fixtures")
SHARED = os.path.normpath(os.path.join(ROOT, "..", "shared", "recordings"))

results = []


def report(name, ok, detail=""):
    results.append(ok)
    print("{} {}{}".format("PASS" if ok else "FAIL", name, (": " + detail) if detail else ""), flush=True)


def description_of(path):
    """The device description evemu-device takes: the file itself, or the DEVICE.desc beside it."""
    if path.endswith(".evemu"):
        return path
    return path.rsplit("__", 1)[0] + "__DEVICE.desc"


class Device:
    """A uinput device made by evemu-device from a description."""

    def __init__(self, desc):
        self.proc = subprocess.Popen(["evemu-device", desc], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        line = self.proc.stdout.readline()
        m = re.search(r"(/dev/input/event\d+)", line)
        if not m:
            raise RuntimeError("evemu-device {}: {}".format(desc, line.strip()))
        self.node = m.group(1)
        subprocess.run(["udevadm", "settle", "--timeout=10"])

    def play(self, recording, background=False):
        f = open(recording)
        p = subprocess.Popen(["evemu-play", self.node], stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if background:
            return p
        p.wait(120)
        f.close()

    def remove(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(10)
        subprocess.run(["udevadm", "settle", "--timeout=10"])


def Daemon(binaries, workdir, args=(), user=None, wrapper=(), start_timeout=10):
    """The daemon of `binaries` on a socket in `workdir` (Tests/support/tbsupport.py). `wrapper`: a
    command the daemon runs under (valgrind), which may need `start_timeout` seconds."""
    return tbsupport.Daemon(os.path.join(binaries, "touchbridged"), args, workdir=workdir, user=user,
                            wrapper=wrapper, start_timeout=start_timeout)


class Client:
    def __init__(self, path, topics=("gestures", "touches", "devices")):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.buffer = b""
        self.lines = []
        self.sock.sendall((json.dumps({"subscribe": list(topics)}) + "\n").encode())

    def pump(self, seconds):
        """Reads whatever arrives for `seconds`."""
        end = time.time() + seconds
        while True:
            left = end - time.time()
            if left <= 0:
                return
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                continue
            chunk = self.sock.recv(65536)
            if not chunk:
                return
            self.buffer += chunk
            while b"\n" in self.buffer:
                line, self.buffer = self.buffer.split(b"\n", 1)
                self.lines.append(json.loads(line))

    def of(self, event):
        return [l for l in self.lines if l.get("event") == event]

    def close(self):
        self.sock.close()


class LibinputWatcher:
    def __init__(self, node, workdir):
        self.path = os.path.join(workdir, "libinput.log")
        self.out = open(self.path, "w")
        self.proc = subprocess.Popen(["stdbuf", "-oL", "libinput", "debug-events", "--device", node],
                                     stdout=self.out, stderr=subprocess.STDOUT)
        end = time.time() + 10
        while "DEVICE_ADDED" not in open(self.path).read() and time.time() < end:
            time.sleep(0.05)

    def stop(self):
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        self.out.close()
        with open(self.path) as f:
            text = f.read()
        return {k: len(re.findall(r"\b" + k + r"\b", text)) for k in ("TOUCH_DOWN", "TOUCH_UP", "TOUCH_CANCEL")}


def offline(binaries, recording):
    out = subprocess.run([os.path.join(binaries, "touchbridgectl"), "replay", recording], capture_output=True, text=True, check=True)
    return [json.loads(l) for l in out.stdout.splitlines()]


def compare_gestures(live, expected):
    """None when equal (numbers within tolerance), else the first difference."""
    if [(g["recognizer"], g["state"]) for g in live] != [(g["recognizer"], g["state"]) for g in expected]:
        a = [(g["recognizer"], g["state"]) for g in live]
        b = [(g["recognizer"], g["state"]) for g in expected]
        i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
        return "{} live vs {} offline; first difference at {}: {} vs {}".format(len(a), len(b), i, a[i:i + 2], b[i:i + 2])
    for a, b in zip(live, expected):
        for key, tolerance in (("x", 0.5), ("y", 0.5), ("touches", 0), ("taps", 0), ("scale", 0.02), ("rotation", 0.02)):
            if key in b and abs(a[key] - b[key]) > tolerance:
                return "{} {}: {} = {} live, {} offline".format(b["recognizer"], b["state"], key, a[key], b[key])
        for key in ("translation",):
            if key in b and (abs(a[key]["x"] - b[key]["x"]) > 0.5 or abs(a[key]["y"] - b[key]["y"]) > 0.5):
                return "{} {}: {} {} live, {} offline".format(b["recognizer"], b["state"], key, a[key], b[key])
        if "direction" in b and a["direction"] != b["direction"]:
            return "swipe direction {} live, {} offline".format(a["direction"], b["direction"])
    return None


def partial(path, workdir, fraction):
    """The first `fraction` of a recording's E: lines, cut after a SYN_REPORT."""
    with open(path) as f:
        lines = [l for l in f if l.startswith("E:")]
    cut = int(len(lines) * fraction)
    while cut < len(lines) and not ends_frame(lines[cut - 1].split()):
        cut += 1
    out = os.path.join(workdir, "partial.events")
    with open(out, "w") as f:
        f.writelines(lines[:cut])
    return out


def device_header(workdir, name):
    """A touchscreen's description (an Atmel maXTouch from Tests/Fixtures, 800 x 480) for made-up streams."""
    desc = os.path.join(workdir, name + ".desc")
    with open(os.path.join(FIX, "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")) as f:
        header = [l for l in f if not l.startswith("E:")]
    with open(desc, "w") as f:
        f.writelines(header)
    return desc


def ends_frame(parts):
    """An evemu `E:` line's fields (split) are a SYN_REPORT: the end of a frame. Type and code are hex,
    the value decimal, written `0000` by evemu-record and `0` in Chromium OS's files: compared as numbers."""
    return len(parts) >= 5 and int(parts[2], 16) == 0 and int(parts[3], 16) == 0 and int(parts[4]) == 0


def wait_for_open(pid, node, timeout):
    """True once process `pid` holds `node` open (it found its device), False after `timeout` seconds."""
    end = time.time() + timeout
    while time.time() < end:
        try:
            fds = os.listdir("/proc/{}/fd".format(pid))
            if any(os.readlink("/proc/{}/fd/{}".format(pid, fd)) == node for fd in fds):
                return True
        except OSError:                                  # an fd closed while we looked
            pass
        time.sleep(0.2)
    return False


def device_index(daemon, node):
    m = daemon.wait_for_log(re.escape(node) + r"\b.*\[device (\d+)\]")
    return int(m.group(1)) if m else None


def summary():
    """"N passed, M failed" and the exit status."""
    failed = results.count(False)
    print("{} passed, {} failed".format(results.count(True), failed), flush=True)
    return 1 if failed else 0
