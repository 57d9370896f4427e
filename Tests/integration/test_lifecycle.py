#!/usr/bin/env python3
"""The daemon's life: signals, the socket file, a broken scene at start, sd_notify and its watchdog,
socket activation."""
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)


class LifecycleTests(TestCase):
    def test_sigterm_exits_cleanly_and_removes_the_socket(self):
        d = Daemon("--no-devices")
        c = Client(d.socket)
        d.proc.send_signal(signal.SIGTERM)
        self.assertEqual(d.proc.wait(10), 0)
        self.assertFalse(os.path.exists(d.socket))
        self.assertIsNone(c.next(timeout=2))
        self.assertIn("SIGTERM", d.text())
        d.stop()

    def test_sighup_with_a_broken_scene_keeps_the_old_one(self):
        scene_dir = self.tempdir()
        scene = os.path.join(scene_dir, "scene.json")
        with open(scene, "w") as f:
            json.dump({"window": {"width": 1280, "height": 800},
                       "views": [{"name": "pad", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": True,
                                  "recognizers": [{"name": "twoTap", "type": "tap", "numberOfTouchesRequired": 2}]}]}, f)
        d = self.daemon("--no-devices", "--scene", scene, "--replay", TWO_FINGER_TAP, "--replay-delay", "2")
        c = Client(d.socket, ["gestures"])
        with open(scene, "w") as f:
            f.write('{"window": {"width": 1280, "height": 800}, "views": [{"name": "pad", "frame": [0, 0, 10]}]}')
        d.proc.send_signal(signal.SIGHUP)
        line = c.next(timeout=15)
        self.assertEqual(line["recognizer"], "twoTap")       # the old scene still recognizes
        self.assertEqual(line["view"], "pad")
        log = d.text()
        self.assertIn("keeping the old scene", log)
        self.assertIn("views[0].frame", log)
        # A good scene is taken.
        with open(scene, "w") as f:
            json.dump({"window": {"width": 1280, "height": 800}, "views": []}, f)
        d.proc.send_signal(signal.SIGHUP)
        self.assertTrue(d.wait_for_log("reloaded"), d.text())
        self.assertIsNone(d.proc.poll())

    def test_a_socket_path_that_is_not_a_socket_is_never_replaced(self):
        tmp = self.tempdir()
        precious = os.path.join(tmp, "myscene.json")
        with open(precious, "w") as f:
            f.write('{"keep": 1}')
        out = subprocess.run([DAEMON, "--no-devices", "--socket", precious], capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 1)
        self.assertIn(precious + " exists and is not a socket: refusing to replace it", out.stderr)
        with open(precious) as f:
            self.assertEqual(f.read(), '{"keep": 1}')

    def test_the_socket_appears_only_once_it_listens(self):
        # A client that waits for the file to appear and connects at once is never refused.
        for _ in range(5):
            d = self.daemon("--no-devices")
            Client(d.socket).close()

    def test_a_broken_scene_at_start_is_an_error_naming_its_path(self):
        scene_dir = self.tempdir()
        scene = os.path.join(scene_dir, "scene.json")
        with open(scene, "w") as f:
            f.write('{"window": {"width": 100, "height": 100},\n "views": [{"name": "a", "frame": [0, 0, 1, 1], "alpha": 3}]}')
        out = subprocess.run([DAEMON, "--no-devices", "--scene", scene, "--socket", os.path.join(scene_dir, "s.sock")],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 1)
        self.assertIn(scene + ":2: views[0].alpha: must be between 0 and 1, found 3.0", out.stderr)
        check = subprocess.run([CTL, "scene", "check", scene], capture_output=True, text=True)
        self.assertEqual(check.returncode, 1)
        self.assertIn("views[0].alpha", check.stderr)

    def test_sd_notify_ready_and_stopping(self):
        tmp = self.tempdir()
        notify_path = os.path.join(tmp, "notify")
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(notify_path)
        d = self.daemon("--no-devices", env={"NOTIFY_SOCKET": notify_path})
        self.addCleanup(ns.close)
        ns.settimeout(10)
        self.assertIn(b"READY=1", ns.recv(4096))
        d.proc.send_signal(signal.SIGTERM)
        self.assertIn(b"STOPPING=1", ns.recv(4096))

    def test_sd_notify_watchdog(self):
        tmp = self.tempdir()
        notify_path = os.path.join(tmp, "notify")
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(notify_path)
        d = self.daemon("--no-devices", env={"NOTIFY_SOCKET": notify_path, "WATCHDOG_USEC": "200000"})
        self.addCleanup(ns.close)
        ns.settimeout(5)
        messages = [ns.recv(4096) for _ in range(3)]
        self.assertIn(b"READY=1", messages[0])
        self.assertEqual(messages[1:], [b"WATCHDOG=1", b"WATCHDOG=1"])

    @unittest.skipUnless(shutil.which("systemd-socket-activate"), "systemd-socket-activate is not installed")
    def test_socket_activation(self):
        tmp = self.tempdir()
        path = os.path.join(tmp, "activated.sock")
        proc = subprocess.Popen(["systemd-socket-activate", "-l", path, DAEMON, "--no-devices"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        self.addCleanup(lambda: proc.wait(10))
        self.addCleanup(lambda: proc.send_signal(signal.SIGTERM))
        end = time.time() + 10
        while not os.path.exists(path) and time.time() < end:
            time.sleep(0.02)
        c = Client(path)
        self.assertEqual(c.hello["event"], "hello")


if __name__ == "__main__":
    from run import main
    main(["test_lifecycle"])
