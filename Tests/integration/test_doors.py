#!/usr/bin/env python3
"""Every door checks who knocks, tried as an attacker on the same machine would (docs/protocol.md,
"Limits"): a reader that floods the socket with newlines or with objects of thousands of keys delays no
one, 512 connections of one user leave root its own, and what a peer names cannot forge a log line."""
import json
import os
import socket
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)

NOBODY = ["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups"]


def drag_recording(path, seconds):
    """One finger dragging back and forth for `seconds` at 100 Hz: the built-in scene's pan changes on
    every frame, so gesture lines come every 10 ms for as long as it lasts."""
    n = int(100 * seconds)
    frames = [{0: (1000 + 2000 * abs(((i / 200.0) % 2) - 1), 2048)} for i in range(n)]
    tbsupport.evemu_frames(path, frames, hz=100.0)


HOSTILE = r'''
import os, socket, sys, time
kind, path, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(path)
if kind == "newlines":
    chunk = b"\n" * 65536
    end = time.time() + seconds
    while time.time() < end:
        s.sendall(chunk)
else:
    # Five objects of 6,300 keys each, 62 KB a line (under the 64 KiB line limit), led by a command
    # so that the whole object is parsed.
    line = ('{"subscribe":["gestures"],' + ",".join('"k%04x":1' % i for i in range(6300)) + "}\n").encode()
    assert 60000 < len(line) < 65536, len(line)
    for _ in range(5):
        s.sendall(line)
    time.sleep(seconds)
s.close()
'''


@unittest.skipUnless(os.geteuid() == 0, "needs root to run the attacker as another user")
class HostileReaderTests(TestCase):
    def notify_socket(self, tmp):
        """A datagram socket standing in for systemd's: the daemon's WATCHDOG=1 pings, with their times.
        Each time is the kernel's, taken as the daemon's datagram was queued (SO_TIMESTAMPNS, CLOCK_REALTIME;
        only differences are used): when the daemon sent it, not when this thread got to read it, which
        a busy machine can delay by more than a ping's interval."""
        import struct
        path = os.path.join(tmp, "notify")
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, 35, 1)                    # SO_TIMESTAMPNS
        sock.bind(path)
        pings = []
        offset = time.time() - time.monotonic()

        def read():
            while True:
                try:
                    data, anc, _, _ = sock.recvmsg(4096, 64)
                except OSError:
                    return
                if data == b"WATCHDOG=1":
                    sent = next((struct.unpack("qq", v[:16]) for _, kind, v in anc if kind == 35), None)
                    pings.append(sent[0] + sent[1] / 1e9 - offset if sent else time.monotonic())
        threading.Thread(target=read, daemon=True).start()
        self.addCleanup(sock.close)
        return path, pings

    def hostile_daemon(self, tmp):
        recording = os.path.join(tmp, "drag.evemu")
        drag_recording(recording, 12)
        notify, pings = self.notify_socket(tmp)
        d = self.daemon("--no-devices", "--socket-group", "nogroup", "--replay", recording, "--replay-loop",
                        "--replay-delay", "0.2", env={"NOTIFY_SOCKET": notify, "WATCHDOG_USEC": "400000"})
        os.chmod(d.dir, 0o755)
        return d, pings

    def gaps_while(self, d, attack):
        """The largest gap between gesture lines another client gets, and the longest a root `disable`
        takes, while `attack` (a process) runs."""
        c = Client(d.socket, ["gestures"])
        c.until(lambda l: l["event"] == "gesture" and l["state"] == "changed", timeout=20)
        proc = attack()
        self.addCleanup(lambda: (proc.poll() is None and proc.kill(), proc.wait(10)))
        arrivals, slowest = [], 0.0
        end = time.monotonic() + 5

        def read():                     # on a thread of its own: the timed disable below waits for ctl
            while time.monotonic() < end:
                line = c.next(timeout=1)
                if line is not None and line.get("event") == "gesture":
                    arrivals.append(time.monotonic())
        reader = threading.Thread(target=read)
        reader.start()
        while time.monotonic() < end - 0.5:
            time.sleep(0.5)
            t = time.monotonic()
            out = ctl("disable", "doubleTap", "--socket", d.socket)
            slowest = max(slowest, time.monotonic() - t)
            self.assertEqual(out.returncode, 0, out.stderr)
        reader.join()
        self.assertEqual(proc.wait(30), 0, "the attacker failed")
        gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
        self.assertTrue(gaps, "no gesture lines at all")
        return max(gaps), slowest, len(arrivals)

    def attacker(self, kind, path, seconds):
        return subprocess.Popen(NOBODY + [sys.executable, "-c", HOSTILE, kind, path, str(seconds)],
                                stdout=subprocess.DEVNULL)

    def check_watchdog(self, pings, since):
        late = [b - a for a, b in zip(pings, pings[1:]) if b > since]
        self.assertTrue(late, "no watchdog pings")
        self.assertLess(max(late), 0.4, "the watchdog went unfed for {:.3f} s".format(max(late)))

    def test_a_reader_flooding_newlines_delays_no_one(self):
        tmp = self.tempdir()
        d, pings = self.hostile_daemon(tmp)
        start = time.monotonic()
        gap, disable, n = self.gaps_while(d, lambda: self.attacker("newlines", d.socket, 5))
        self.assertGreater(n, 200)
        self.assertLess(gap, 0.1, "gesture lines stopped for {:.3f} s".format(gap))
        # ctl's own start (a process) is in the figure: the daemon's answer is a small part of it.
        self.assertLess(disable, 0.1 + ctl_start(self), "root's disable took {:.3f} s".format(disable))
        self.check_watchdog(pings, start)

    def test_a_reader_sending_objects_of_thousands_of_keys_delays_no_one(self):
        tmp = self.tempdir()
        d, pings = self.hostile_daemon(tmp)
        start = time.monotonic()
        gap, disable, n = self.gaps_while(d, lambda: self.attacker("keys", d.socket, 3))
        self.assertGreater(n, 200)
        self.assertLess(gap, 0.1, "gesture lines stopped for {:.3f} s".format(gap))
        self.assertLess(disable, 0.1 + ctl_start(self), "root's disable took {:.3f} s".format(disable))
        self.check_watchdog(pings, start)

    def test_512_connections_of_a_reader_leave_root_able_to_connect(self):
        d = self.daemon("--no-devices", "--socket-group", "nogroup")
        os.chmod(d.dir, 0o755)
        script = r'''
import socket, sys, time
held, refused = [], 0
for _ in range(512):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(sys.argv[1])
    held.append(s)
time.sleep(1.0)
for s in held:
    s.setblocking(False)
    try:
        data = s.recv(65536)
    except BlockingIOError:
        continue
    if b"too many connections from uid" in data:
        refused += 1
print(refused, flush=True)
sys.stdin.read()
'''
        holder = subprocess.Popen(NOBODY + [sys.executable, "-c", script, d.socket], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (holder.kill(), holder.wait(10)))
        refused = int(holder.stdout.readline())
        self.assertEqual(refused, 512 - 64)                  # the reader keeps its 64
        out = ctl("disable", "doubleTap", "--socket", d.socket)
        self.assertEqual(out.returncode, 0, out.stderr)
        c = Client(d.socket, ["gestures"])                   # and root may read as well
        self.assertIsNotNone(c.hello)
        # Said once, not 448 times.
        self.assertEqual(d.text().count("too many connections from uid 65534"), 1, d.text()[-2000:])
        self.assertIn("--max-clients-per-uid", d.text())

    def test_a_reader_may_not_control_and_is_told_before_its_line_is_parsed(self):
        d = self.daemon("--no-devices", "--socket-group", "nogroup")
        os.chmod(d.dir, 0o755)
        script = r'''
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
f = s.makefile("rb")
f.readline()
s.sendall(b'{"scene": {"name": "x", "views": [' + b'{"a": 1},' * 6000 + b'{}]}}\n')
print(f.readline().decode(), end="", flush=True)
'''
        out = subprocess.run(NOBODY + [sys.executable, "-c", script, d.socket], capture_output=True, text=True, timeout=30)
        said = json.loads(out.stdout)
        self.assertEqual(said["event"], "error")
        self.assertIn('not permitted: "scene" changes the daemon for everyone', said["message"])


def ctl_start(testcase):
    """How long `touchbridgectl --version` takes here: a process's start, which a timed ctl call pays too."""
    t = time.monotonic()
    subprocess.run([CTL, "--version"], capture_output=True, timeout=30)
    return time.monotonic() - t


class LogLineTests(TestCase):
    def test_a_scene_name_with_a_newline_gives_one_log_line(self):
        # The journal's form: each line starts with its priority, which a forged line would bring.
        d = self.daemon("--no-devices", env={"JOURNAL_STREAM": "8:1234"})
        c = Client(d.socket, [])
        name = "x\n<0>kernel: forged"
        answer = c.command({"scene": {"name": name, "views": [{"name": "pad", "frame": [0, 0, 10, 10]}]}})
        self.assertEqual(answer["event"], "ok", answer)
        self.assertTrue(d.wait_for_log(r"scene accepted"), d.text())
        lines = d.text().splitlines()
        self.assertEqual([l for l in lines if "forged" in l], [l for l in lines if "scene accepted" in l])
        self.assertFalse([l for l in lines if l.startswith("<0>")], lines)
        accepted = [l for l in lines if "scene accepted" in l]
        self.assertEqual(len(accepted), 1)
        self.assertIn(r'(scene "x\n<0>kernel: forged", 1 view)', accepted[0])
        self.assertTrue(accepted[0].startswith("<6>"))


if __name__ == "__main__":
    from run import main
    main(["test_doors"])
