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


def Client(path, topics=("gestures", "touches", "devices")):
    """The shared socket client (examples/touchbridge.py), subscribed to `topics`; `pump` collects."""
    return tbsupport.Client(path, topics=list(topics))


LibinputWatcher = tbsupport.LibinputWatcher


def offline(binaries, recording):
    return tbsupport.offline(os.path.join(binaries, "touchbridgectl"), recording)


def compare_gestures(live, expected):
    """None when equal, else the first difference (tbsupport.compare_lines: one tolerance; the kernel
    timed the live events, so time-derived values are left out, and the live daemon's device index is
    its own)."""
    return tbsupport.compare_lines(live, expected, timed=False, ignore=("device",))


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
