"""What the integration tests share: where the binaries and fixtures are, a daemon on a private
socket, a socket client, the offline replay, and the comparison of live and offline gestures.
Standard library only. Tests import it as `from common import *`."""
import json
import os
import shutil
import select
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

warnings.simplefilter("ignore", ResourceWarning)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
import tbsupport  # noqa: E402
from broker import free_port  # noqa: E402,F401  (the tests' one free port)

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


# The one socket client (examples/touchbridge.py, through tbsupport).
Client = tbsupport.Client


def offline(recording, *args):
    return tbsupport.offline(CTL, recording, *args)


def same_gestures(testcase, live, offline_lines):
    """Equal but for time, which the daemon stamps on CLOCK_MONOTONIC: the gaps must match
    (tbsupport.compare_lines: one tolerance, and why)."""
    testcase.assertIsNone(tbsupport.compare_lines(live, offline_lines))


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


# Debian's Python, which has python3-dbus and python3-gi (another python3 on PATH may not): it runs the
# stand-ins of D-Bus services (Tests/support/mock_*.py).
DEBIAN_PYTHON = "/usr/bin/python3"


def have_dbus():
    """Whether dbus-daemon and Debian's python3-dbus and python3-gi are installed (make test installs them)."""
    if shutil.which("dbus-daemon") is None or not os.path.exists(DEBIAN_PYTHON):
        return False
    return subprocess.run([DEBIAN_PYTHON, "-c", "import dbus, gi"], capture_output=True).returncode == 0


def private_bus(testcase):
    """A bus of its own (dbus-daemon --session), stopped after the test: its address."""
    p = subprocess.Popen(["dbus-daemon", "--session", "--nofork", "--print-address=1"], stdout=subprocess.PIPE, text=True)
    testcase.addCleanup(lambda: (p.terminate(), p.wait(10)))
    return p.stdout.readline().strip()


class TestCase(unittest.TestCase):
    """The integration tests' base: what a test makes is removed by cleanups, not try/finally."""

    def tempdir(self):
        """A temporary directory, removed after the test."""
        d = tempfile.mkdtemp(prefix="tb-test-")
        self.addCleanup(shutil.rmtree, d, True)
        return d

    def json_file(self, directory, name, value):
        """`value` written as JSON to DIRECTORY/NAME (a bindings file, a configuration); its path."""
        path = os.path.join(directory, name)
        with open(path, "w") as f:
            json.dump(value, f)
        return path

    def daemon(self, *args, env=None):
        """A daemon on a private socket, stopped after the test."""
        d = Daemon(*args, env=env)
        self.addCleanup(d.stop)
        return d


def wait_for(predicate, timeout=10, step=0.02):
    """Waits until `predicate()` is true (the value it returned), or None after `timeout` seconds."""
    end = time.time() + timeout
    while True:
        value = predicate()
        if value or time.time() > end:
            return value or None
        time.sleep(step)
