#!/usr/bin/env python3
"""Screen-aware (docs/screen-aware.md) through the binaries: `set display off|on` and the wake lines,
`bind` on `wake`, the kiosk scene (one finger at a time for the app, an operator gesture)."""
import json
import os
import re
import shutil
import signal
import struct
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)
import tbsupport  # noqa: E402

KIOSK = os.path.join(ROOT, "scenes", "kiosk.json")


def max_down(evemu_path):
    """The most touches down at once in an evemu recording (multitouch protocol B)."""
    down, slot, most = {}, 0, 0
    with open(evemu_path) as f:
        for line in f:
            if not line.startswith("E:"):
                continue
            _, _, type_, code, value = line.split()[:5]
            type_, code, value = int(type_, 16), int(code, 16), int(value)
            if type_ == 3 and code == 0x2f:
                slot = value
            elif type_ == 3 and code == 0x39:
                if value >= 0:
                    down[slot] = value
                else:
                    down.pop(slot, None)
                most = max(most, len(down))
    return most


class ScreenTests(TestCase):
    def test_display_off_turns_each_touch_sequence_into_one_wake_line(self):
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-delay", "1.5")
        c = Client(d.socket, ["gestures", "devices"])
        out = ctl("set", "display", "off", "--socket", d.socket)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("warning", out.stderr)                 # a recording: nobody else reads it
        lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
        wakes = [l for l in lines if l["event"] == "wake"]
        self.assertEqual(len(wakes), 9)                          # nine taps, nine sequences
        self.assertEqual([l for l in lines if l["event"] == "gesture"], [])
        self.assertEqual(list(wakes[0]), ["event", "time", "device", "x", "y"])
        self.assertIn("display off: a touch only wakes it", d.text())

    def test_set_display_refuses_what_it_does_not_know_and_says_it_in_help(self):
        d = self.daemon("--no-devices")
        out = ctl("set", "display", "dim", "--socket", d.socket)
        self.assertEqual(out.returncode, 2)
        self.assertIn("takes off or on", out.stderr)
        c = Client(d.socket, [])
        c.send({"set": {"display": "dim"}})
        err = c.until(lambda l: l["event"] == "error")
        self.assertEqual(err[-1]["message"], 'set.display: must be "off" or "on"')
        self.assertIn("--wake-holdoff", subprocess.run([DAEMON, "--help"], capture_output=True, text=True).stdout)

    def test_bind_runs_the_wake_binding(self):
        tmp = self.tempdir()
        marker = os.path.join(tmp, "woke")
        bindings = self.json_file(tmp, "bind.json", {"wake": ["/bin/sh", "-c", 'printf "%s %s" "$TOUCHBRIDGE_X" "$TOUCHBRIDGE_STATE" > ' + marker]})
        d = self.daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "1.5")
        b = subprocess.Popen([CTL, "bind", bindings, "--socket", d.socket], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(ctl("set", "display", "off", "--socket", d.socket).returncode, 0)
            self.assertTrue(wait_for(lambda: os.path.exists(marker) and open(marker).read(), timeout=15))
            self.assertTrue(open(marker).read().endswith(" wake"))
        finally:
            b.terminate()
            b.wait(10)
        self.assertNotIn("has no recognizer", b.stderr.read())    # wake is the daemon's line, not a recognizer

    def test_the_kiosk_scene_gives_the_app_one_finger_and_fires_the_operator_gesture(self):
        tmp = self.tempdir()
        for fingers in (2, 5, 10):
            # Fingers land 50 ms apart, hold 3.5 s (the operator's long press needs five for 3 s), drift a little.
            rec = os.path.join(tmp, "{}fg.evemu".format(fingers))
            frames = []
            for i in range(60 * 4):
                frames.append({s: (400 + 300 * s, 1500 + (i % 10)) for s in range(fingers) if i >= 3 * s})
            tbsupport.evemu_frames(rec, frames, hz=60)
            mirror = os.path.join(tmp, "{}fg-mirror.evemu".format(fingers))
            out = subprocess.run([CTL, "replay", "--scene", KIOSK, "--mirror", mirror, rec], capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertLessEqual(max_down(mirror), 1, fingers)
            operator = [json.loads(l) for l in out.stdout.splitlines() if json.loads(l)["recognizer"] == "operator"]
            # Five fingers exactly, as UIKit's numberOfTouchesRequired: a sixth fails the long press.
            self.assertEqual([l["state"] for l in operator][:1], ["began"] if fingers == 5 else [], fingers)

    def test_the_kiosk_scene_gives_one_finger_of_every_real_multi_finger_recording(self):
        tmp = self.tempdir()
        played = 0
        for name in sorted(os.listdir(FIXTURES)):
            if not re.search(r"__[2-9]fg-", name) or name.startswith("synthetic__"):
                continue
            rec = os.path.join(FIXTURES, name)
            desc = []
            if name.endswith(".events"):
                desc = ["--desc", rec.rsplit("__", 1)[0] + "__DEVICE.desc"]
            mirror = os.path.join(tmp, name + ".mirror.evemu")
            out = subprocess.run([CTL, "replay", "--scene", KIOSK, "--mirror", mirror, rec] + desc, capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertGreaterEqual(max_down(rec) if name.endswith(".evemu") else 2, 2, name)
            self.assertEqual(max_down(mirror), 1, name)         # the first finger passes, no other
            played += 1
        self.assertGreaterEqual(played, 8)


MOCK_PROXY = os.path.join(ROOT, "Tests", "support", "mock_sensor_proxy.py")


def rotations(lines):
    return [l["mapping"]["rotation"] for l in lines if l.get("event") == "device" and l.get("action") == "changed"]


@unittest.skipUnless(have_dbus(), "needs dbus-daemon, python3-dbus and python3-gi (make test installs them)")
class FollowRotationTests(TestCase):
    def mock(self, address, log, orientation):
        env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address)
        m = subprocess.Popen([DEBIAN_PYTHON, MOCK_PROXY, log, orientation], env=env)
        self.addCleanup(lambda: (m.poll() is None and m.terminate(), m.wait(10)))
        self.assertTrue(wait_for(lambda: os.path.exists(log) and "ready" in open(log).read(), timeout=15), "the mock did not start")
        return m

    def set_orientation(self, address, orientation):
        out = subprocess.run([DEBIAN_PYTHON, MOCK_PROXY, "--set", address, orientation], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)

    def test_follow_rotation_iio_follows_the_accelerometer_and_the_service_coming_back(self):
        tmp = self.tempdir()
        address = private_bus(self)
        log = os.path.join(tmp, "proxy.log")
        mock = self.mock(address, log, "left-up")
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-loop", "--replay-delay", "0.2")
        c = Client(d.socket, ["devices"])
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
        err = open(os.path.join(tmp, "follow.err"), "w")
        f = subprocess.Popen([CTL, "follow-rotation", "iio", "--socket", d.socket], env=env, stdout=subprocess.DEVNULL, stderr=err)
        try:
            # Claimed, and the orientation at start applied: left-up is rotation 90.
            self.assertTrue(wait_for(lambda: "claim" in open(log).read(), timeout=15))
            c.until(lambda l: 90 in rotations([l]), timeout=20)
            self.set_orientation(address, "right-up")
            c.until(lambda l: 270 in rotations([l]), timeout=20)
            # iio-sensor-proxy restarts: followed, claimed again, its orientation applied.
            mock.terminate()
            mock.wait(10)
            self.mock(address, log, "bottom-up")
            c.until(lambda l: 180 in rotations([l]), timeout=20)
            self.assertEqual(open(log).read().count("claim "), 2)
            f.send_signal(signal.SIGTERM)
            self.assertEqual(f.wait(10), 0)
            # The claim is released on exit, by the same connection that made it.
            claims = [l.split()[1] for l in open(log) if l.startswith("claim ")]
            releases = [l.split()[1] for l in open(log) if l.startswith("release ")]
            self.assertEqual(releases, claims[-1:])
        finally:
            if f.poll() is None:
                f.kill()
                f.wait(10)
        said = open(os.path.join(tmp, "follow.err")).read()
        self.assertIn("iio-sensor-proxy went away", said)
        self.assertIn("right-up: rotation 270°", said)

    def test_follow_rotation_iio_believes_only_the_owner_of_the_sensor_proxy_name(self):
        tmp = self.tempdir()
        address = private_bus(self)
        log = os.path.join(tmp, "proxy.log")
        self.mock(address, log, "normal")
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-loop", "--replay-delay", "0.2")
        c = Client(d.socket, ["devices"])
        env = dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address)
        err_path = os.path.join(tmp, "follow.err")
        f = subprocess.Popen([CTL, "follow-rotation", "iio", "--verbose", "--socket", d.socket], env=env,
                             stdout=subprocess.DEVNULL, stderr=open(err_path, "w"))
        self.addCleanup(lambda: (f.poll() is None and f.kill(), f.wait(10)))
        self.assertTrue(wait_for(lambda: "claimed the accelerometer" in open(err_path).read(), timeout=15))
        c.until(lambda l: 0 in rotations([l]), timeout=20)                # the orientation at start
        # Another connection on the bus emits the proxy's PropertiesChanged: nothing turns.
        forged = subprocess.run([DEBIAN_PYTHON, MOCK_PROXY, "--forge", address, "left-up"], capture_output=True, text=True, timeout=30)
        self.assertEqual(forged.returncode, 0, forged.stderr)
        forger = forged.stdout.strip()
        self.assertTrue(wait_for(lambda: "ignored a PropertiesChanged" in open(err_path).read(), timeout=10), open(err_path).read())
        c.pump(1.0)
        self.assertEqual(rotations(c.lines_seen), [])
        self.assertIn("from " + forger + ", which does not own net.hadess.SensorProxy", open(err_path).read())
        # The owner's own change is followed.
        self.set_orientation(address, "bottom-up")
        self.assertEqual(rotations(c.until(lambda l: 180 in rotations([l]), timeout=20)), [180])

    def test_follow_rotation_map_overrides_and_refuses_what_it_does_not_know(self):
        out = ctl("follow-rotation", "iio", "--map", "left-up=45")
        self.assertEqual(out.returncode, 2)
        self.assertIn("--map takes NAME=DEG pairs", out.stderr)
        out = ctl("follow-rotation", "gyro")
        self.assertIn("the source is iio or sway", out.stderr)


class SwayIPC:
    """A stand-in for sway's IPC socket: subscribe, get_outputs, and output events on demand."""

    def __init__(self, path, transform="normal"):
        import socket
        import threading
        self.transform = transform
        self.subscribers = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(8)
        threading.Thread(target=self.serve, daemon=True).start()

    @staticmethod
    def frame(type_, payload):
        data = json.dumps(payload).encode()
        return b"i3-ipc" + struct.pack("=II", len(data), type_) + data

    def serve(self):
        import threading
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            threading.Thread(target=self.client, args=(conn,), daemon=True).start()

    def client(self, conn):
        while True:
            head = conn.recv(14, socket_flags())
            if len(head) < 14:
                return
            length, type_ = struct.unpack("=II", head[6:])
            if length:
                conn.recv(length, socket_flags())
            if type_ == 2:
                conn.sendall(self.frame(2, {"success": True}))
                self.subscribers.append(conn)
            elif type_ == 3:
                conn.sendall(self.frame(3, [{"name": "DSI-1", "active": True, "transform": self.transform}]))

    def turn(self, transform):
        self.transform = transform
        for s in self.subscribers:
            s.sendall(self.frame(0x80000001, {"change": "unspecified"}))

    def close(self):
        import socket
        for s in self.subscribers:
            s.shutdown(socket.SHUT_RDWR)            # wakes the thread reading it: the peer sees the end
            s.close()
        self.server.close()


def socket_flags():
    import socket
    return socket.MSG_WAITALL


class FollowSwayTests(TestCase):
    def test_follow_rotation_sway_follows_the_output_transform(self):
        tmp = self.tempdir()
        path = os.path.join(tmp, "sway-ipc.sock")
        sway = SwayIPC(path, transform="90")
        d = self.daemon("--no-devices", "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.2")
        c = Client(d.socket, ["devices", "scene"])
        self.assertEqual(c.next()["scene"]["window"], {"width": 1280, "height": 800})
        f = subprocess.Popen([CTL, "follow-rotation", "sway", "--swaysock", path, "--socket", d.socket],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            lines = c.until(lambda l: 90 in rotations([l]), timeout=20)
            # The built-in scene's window turns with it.
            scenes = [l for l in lines + c.until(lambda l: l["event"] == "scene", timeout=20) if l["event"] == "scene"]
            self.assertEqual(scenes[-1]["scene"]["window"], {"width": 800, "height": 1280})
            sway.turn("180")
            c.until(lambda l: 180 in rotations([l]), timeout=20)
            sway.close()                                       # sway exits: so does the follower, with 1
            self.assertEqual(f.wait(10), 1)
        finally:
            if f.poll() is None:
                f.kill()
                f.wait(10)
        self.assertIn("sway closed its IPC socket", f.stderr.read())

    def test_a_restarted_daemon_is_turned_again_without_waiting_for_the_next_turn(self):
        tmp = self.tempdir()
        path = os.path.join(tmp, "sway-ipc.sock")
        sway = SwayIPC(path, transform="270")
        self.addCleanup(sway.close)
        ddir = os.path.join(tmp, "daemon")
        os.makedirs(ddir)
        args = ["--no-devices", "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.2"]
        d = tbsupport.Daemon(DAEMON, args, workdir=ddir)
        c = Client(d.socket, ["devices"])
        err = os.path.join(tmp, "follow.err")
        f = subprocess.Popen([CTL, "follow-rotation", "sway", "--swaysock", path, "--socket", d.socket],
                             stdout=subprocess.DEVNULL, stderr=open(err, "w"))
        self.addCleanup(lambda: tbsupport.end_process(f, signal.SIGTERM, 10))
        c.until(lambda l: 270 in rotations([l]), timeout=20)
        d.stop()                                               # an upgrade restarts the daemon
        d2 = tbsupport.Daemon(DAEMON, args, workdir=ddir)
        self.addCleanup(d2.stop)
        c2 = Client(d2.socket, ["devices", "scene"])
        turned = {"width": 800, "height": 1280}                # the built-in scene's window, turned
        c2.until(lambda l: 270 in rotations([l]) or (l["event"] == "scene" and l["scene"]["window"] == turned), timeout=30)
        said = open(err).read()
        self.assertIn("the daemon went away", said)
        self.assertIn("again", said)
        self.assertIsNone(f.poll())


if __name__ == "__main__":
    unittest.main()
