"""What the integration tests share: where the binaries and fixtures are, a daemon on a private
socket, a socket client, the offline replay, and the comparison of live and offline gestures.
Standard library only. Tests import it as `from common import *`."""
import json
import os
import select
import socket
import subprocess
import sys
import time
import warnings

warnings.simplefilter("ignore", ResourceWarning)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import tbsupport  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BIN = os.environ.get("TB_BIN", os.path.join(ROOT, ".build", "debug"))
DAEMON = os.path.join(BIN, "touchbridged")
CTL = os.path.join(BIN, "touchbridgectl")
FIXTURES = os.path.join(ROOT, "Tests", "Fixtures")
EXAMPLE = os.path.join(ROOT, "examples", "listen.py")

TAPS = os.path.join(FIXTURES, "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")
TWO_FINGER_TAP = os.path.join(FIXTURES, "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events")
DRAGS = os.path.join(FIXTURES, "evemu-devices__quanta-optical-ts__1fg-9-touches-drags.events")
SCROLL = os.path.join(FIXTURES, "evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu")


def Daemon(*args, env=None):
    """A touchbridged (the build under test) on a private socket, removed when it stops."""
    return tbsupport.Daemon(DAEMON, args, env=env)


class Client:
    def __init__(self, path, topics=None, rcvbuf=None):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        if rcvbuf:
            self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.sock.connect(path)
        self.buffer = b""
        self.hello = self.next()
        if topics is not None:
            self.send({"subscribe": topics})
            assert self.next()["event"] == "subscribed"

    def send(self, obj):
        self.sock.sendall((json.dumps(obj) + "\n").encode())

    def send_raw(self, data):
        self.sock.sendall(data)

    def next(self, timeout=10):
        """The next line, decoded; None at the end of the stream or after the timeout."""
        end = time.time() + timeout
        while b"\n" not in self.buffer:
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.sock], [], [], left)
            if not r:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def until(self, predicate, timeout=15):
        """Lines up to and including the first that satisfies predicate."""
        out = []
        end = time.time() + timeout
        while time.time() < end:
            line = self.next(timeout=end - time.time())
            if line is None:
                break
            out.append(line)
            if predicate(line):
                return out
        raise AssertionError("timed out; got {} lines, last {}".format(len(out), out[-1:] if out else None))

    def close(self):
        self.sock.close()


def offline(recording, *args):
    out = subprocess.run([CTL, "replay"] + list(args) + [recording], capture_output=True, text=True, check=True)
    return [json.loads(l) for l in out.stdout.splitlines()]


def same_gestures(testcase, live, offline_lines):
    """Equal but for time, which the daemon stamps on CLOCK_MONOTONIC: the gaps must match."""
    testcase.assertEqual(len(live), len(offline_lines))
    for a, b in zip(live, offline_lines):
        for key in b:
            if key == "time":
                continue
            testcase.assertIn(key, a)
            va, vb = a[key], b[key]
            if isinstance(vb, float) or isinstance(va, float):
                testcase.assertAlmostEqual(va, vb, delta=1e-4 * max(1, abs(vb)), msg=key)
            elif isinstance(vb, dict):
                for k in vb:
                    testcase.assertAlmostEqual(va[k], vb[k], delta=1e-4 * max(1, abs(vb[k])), msg=key + "." + k)
            else:
                testcase.assertEqual(va, vb, key)
    if live:
        offset = live[0]["time"] - offline_lines[0]["time"]
        for a, b in zip(live, offline_lines):
            testcase.assertAlmostEqual(a["time"] - b["time"], offset, delta=2e-3)


def cut_recording(path, directory, seconds):
    """The recording's header and its events up to `seconds` after the first (a recording cut by Ctrl-C)."""
    with open(path) as f:
        lines = f.readlines()
    events = [l for l in lines if l.startswith("E:")]
    start = float(events[0].split()[1])
    out = os.path.join(directory, "cut-" + os.path.basename(path))
    with open(out, "w") as f:
        f.writelines(l for l in lines if not l.startswith("E:") or float(l.split()[1]) <= start + seconds)
    return out


def ctl(*args, user=None):
    """touchbridgectl ARGS (as uid/gid `user` through setpriv when given)."""
    cmd = [CTL] + list(args)
    if user is not None:
        cmd = ["setpriv", "--reuid", str(user), "--regid", str(user), "--clear-groups"] + cmd
    return subprocess.run(cmd, capture_output=True, text=True, timeout=30)


def drags_by_touch(lines):
    """Touch lines grouped by touch id, in the order the touches began."""
    out = {}
    for l in lines:
        if l["event"] == "touch":
            out.setdefault(l["id"], []).append(l)
    return list(out.values())


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
