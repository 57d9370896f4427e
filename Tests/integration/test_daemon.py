#!/usr/bin/env python3
"""Integration tests: the real touchbridged and touchbridgectl binaries, a real Unix socket, real
signals. Standard library only. Run by `make test` (binaries from $TB_BIN, default .build/debug).

Each test starts its own daemon on its own socket with --no-devices (no hardware needed) and, where
it needs gestures, --replay of a bundled recording.
"""
import json
import os
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import warnings

warnings.simplefilter("ignore", ResourceWarning)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403
import headless  # noqa: E402


class ProtocolTests(unittest.TestCase):
    def test_replay_gives_exactly_the_offline_gestures_to_the_python_example_client(self):
        expected = offline(TAPS)
        self.assertEqual([g["recognizer"] for g in expected], ["doubleTap"] * 4 + ["tap"])
        d = Daemon("--no-devices", "--replay", TAPS, "--replay-delay", "0.5")
        try:
            out = subprocess.run([sys.executable, EXAMPLE, "--socket", d.socket, "--json", "--count", str(len(expected))],
                                 capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = [json.loads(l) for l in out.stdout.splitlines()]
            self.assertEqual([l["event"] for l in lines[:2]], ["hello", "subscribed"])
            same_gestures(self, [l for l in lines if l["event"] == "gesture"], expected)
        finally:
            d.stop()

    def test_touches_and_devices_by_subscription(self):
        d = Daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "0.5")
        try:
            c = Client(d.socket, ["gestures", "touches", "devices"])
            self.assertEqual(c.hello, {"event": "hello", "version": c.hello["version"], "protocol": 2})
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
            kinds = [l["event"] for l in lines]
            self.assertEqual(kinds, ["device", "touch", "touch", "gesture", "touch", "touch", "device"])
            touch = lines[1]
            self.assertEqual(set(touch), {"event", "time", "device", "id", "phase", "x", "y", "view", "tapCount", "majorRadius", "force"})
            self.assertEqual(touch["phase"], "began")
            self.assertEqual(lines[3]["recognizer"], "twoFingerTap")
            self.assertEqual(lines[3]["touches"], 2)
            self.assertTrue(lines[0]["node"].startswith("replay:"))
            expected = offline(TWO_FINGER_TAP, "--touches")
            same_gestures(self, [l for l in lines if l["event"] != "device"], expected)
        finally:
            d.stop()

    def test_a_client_that_stops_sending_still_gets_its_lines(self):
        # As `echo '{"subscribe":["touches"]}' | socat -t 60 - UNIX-CONNECT:…` does: one line, then EOF.
        d = Daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "0.5")
        try:
            c = Client(d.socket)
            c.send_raw(b'{"subscribe":["gestures","touches","devices"]}')      # the last line, without its newline
            c.sock.shutdown(socket.SHUT_WR)
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
            kinds = [l["event"] for l in lines]
            self.assertEqual(kinds[0], "subscribed")
            self.assertEqual(kinds.count("touch"), 4)
            self.assertEqual(kinds.count("gesture"), 1)
            c.close()
            time.sleep(0.3)
            self.assertIn("disconnected", d.text())
        finally:
            d.stop()

    def test_bad_client_lines_get_errors_and_the_connection_stays_usable(self):
        d = Daemon("--no-devices")
        try:
            c = Client(d.socket)
            for bad in [b"not json\n", b"[1,2]\n", b"{}\n", b'{"subscribe":"gestures"}\n', b'{"subscribe":["telepathy"]}\n',
                        b'{"dance":true}\n', b"\xff\xfe\n"]:
                c.send_raw(bad)
                line = c.next()
                self.assertEqual(line["event"], "error", bad)
                self.assertTrue(line["message"], bad)
            c.send({"subscribe": ["gestures", "devices"]})
            self.assertEqual(c.next(), {"event": "subscribed", "topics": ["gestures", "devices"]})
            self.assertIsNone(d.proc.poll())
        finally:
            d.stop()

    def test_a_line_over_64_KiB_is_an_error_and_closes_that_client_only(self):
        d = Daemon("--no-devices")
        try:
            other = Client(d.socket)
            c = Client(d.socket)
            c.send_raw(b"{" + b" " * (70 * 1024))
            line = c.next()
            self.assertEqual(line["event"], "error")
            self.assertIn("64 KiB", line["message"])
            self.assertIsNone(c.next(timeout=5))          # closed
            other.send({"subscribe": ["gestures"]})
            self.assertEqual(other.next()["event"], "subscribed")
            self.assertIn("over 64 KiB", d.text())
        finally:
            d.stop()

    def test_a_slow_client_is_dropped_and_the_others_get_everything(self):
        expected = offline(DRAGS, "--touches")
        d = Daemon("--no-devices", "--replay", DRAGS, "--replay-delay", "0.5", "--client-queue", "4096")
        try:
            slow = Client(d.socket, ["gestures", "touches"], rcvbuf=4096)
            fast = Client(d.socket, ["gestures", "touches"])
            got = []
            end = time.time() + 30
            while len(got) < len(expected) and time.time() < end:
                line = fast.next(timeout=end - time.time())
                if line is None:
                    break
                got.append(line)
            same_gestures(self, got, expected)
            self.assertIn("stopped reading", d.text())
            # The slow client was cut off: what it can still read ends well before the end.
            slow.sock.settimeout(5)
            data = b""
            try:
                while True:
                    chunk = slow.sock.recv(65536)
                    if not chunk:
                        break
                    data += chunk
            except socket.timeout:
                self.fail("the slow client was not disconnected")
            self.assertLess(data.count(b"\n"), len(expected))
        finally:
            d.stop()

    def test_100_clients_at_once_all_get_the_gesture(self):
        d = Daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "1.5")
        try:
            clients = [Client(d.socket, ["gestures"]) for _ in range(100)]
            for c in clients:
                line = c.next(timeout=15)
                self.assertEqual(line["recognizer"], "twoFingerTap")
            self.assertIn("client connected", d.text())
        finally:
            d.stop()


class LifecycleTests(unittest.TestCase):
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
        scene_dir = tempfile.mkdtemp()
        scene = os.path.join(scene_dir, "scene.json")
        with open(scene, "w") as f:
            json.dump({"window": {"width": 1280, "height": 800},
                       "views": [{"name": "pad", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": True,
                                  "recognizers": [{"name": "twoTap", "type": "tap", "numberOfTouchesRequired": 2}]}]}, f)
        d = Daemon("--no-devices", "--scene", scene, "--replay", TWO_FINGER_TAP, "--replay-delay", "2")
        try:
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
            time.sleep(0.5)
            self.assertIn("reloaded", d.text())
            self.assertIsNone(d.proc.poll())
        finally:
            d.stop()
            shutil.rmtree(scene_dir, ignore_errors=True)

    def test_a_socket_path_that_is_not_a_socket_is_never_replaced(self):
        tmp = tempfile.mkdtemp()
        try:
            precious = os.path.join(tmp, "myscene.json")
            with open(precious, "w") as f:
                f.write('{"keep": 1}')
            out = subprocess.run([DAEMON, "--no-devices", "--socket", precious], capture_output=True, text=True, timeout=10)
            self.assertEqual(out.returncode, 1)
            self.assertIn(precious + " exists and is not a socket: refusing to replace it", out.stderr)
            with open(precious) as f:
                self.assertEqual(f.read(), '{"keep": 1}')
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_the_socket_appears_only_once_it_listens(self):
        # A client that waits for the file to appear and connects at once is never refused.
        for _ in range(5):
            d = Daemon("--no-devices")
            try:
                Client(d.socket).close()
            finally:
                d.stop()

    def test_a_broken_scene_at_start_is_an_error_naming_its_path(self):
        scene_dir = tempfile.mkdtemp()
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
        shutil.rmtree(scene_dir, ignore_errors=True)

    def test_sd_notify_ready_and_stopping(self):
        tmp = tempfile.mkdtemp()
        notify_path = os.path.join(tmp, "notify")
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(notify_path)
        d = Daemon("--no-devices", env={"NOTIFY_SOCKET": notify_path})
        try:
            ns.settimeout(10)
            self.assertIn(b"READY=1", ns.recv(4096))
            d.proc.send_signal(signal.SIGTERM)
            self.assertIn(b"STOPPING=1", ns.recv(4096))
        finally:
            d.stop()
            ns.close()
            shutil.rmtree(tmp, ignore_errors=True)

    def test_sd_notify_watchdog(self):
        tmp = tempfile.mkdtemp()
        notify_path = os.path.join(tmp, "notify")
        ns = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        ns.bind(notify_path)
        d = Daemon("--no-devices", env={"NOTIFY_SOCKET": notify_path, "WATCHDOG_USEC": "200000"})
        try:
            ns.settimeout(5)
            messages = [ns.recv(4096) for _ in range(3)]
            self.assertIn(b"READY=1", messages[0])
            self.assertEqual(messages[1:], [b"WATCHDOG=1", b"WATCHDOG=1"])
        finally:
            d.stop()
            ns.close()
            shutil.rmtree(tmp, ignore_errors=True)

    @unittest.skipUnless(shutil.which("systemd-socket-activate"), "systemd-socket-activate is not installed")
    def test_socket_activation(self):
        tmp = tempfile.mkdtemp()
        path = os.path.join(tmp, "activated.sock")
        proc = subprocess.Popen(["systemd-socket-activate", "-l", path, DAEMON, "--no-devices"],
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            end = time.time() + 10
            while not os.path.exists(path) and time.time() < end:
                time.sleep(0.02)
            c = Client(path)
            self.assertEqual(c.hello["event"], "hello")
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)
            shutil.rmtree(tmp, ignore_errors=True)


class PassthroughTests(unittest.TestCase):
    TRANSPARENT = {"window": {"width": 800, "height": 480}, "views": []}

    def test_replay_mirror_writes_a_recording_that_gives_back_the_touches_and_the_same_bytes_twice(self):
        tmp = tempfile.mkdtemp()
        try:
            scene = os.path.join(tmp, "transparent.json")
            with open(scene, "w") as f:
                json.dump(self.TRANSPARENT, f)
            a, b = os.path.join(tmp, "a.evemu"), os.path.join(tmp, "b.evemu")
            source = subprocess.run([CTL, "replay", "--touches", "--scene", scene, "--mirror", a, SCROLL],
                                    capture_output=True, text=True, check=True).stdout
            subprocess.run([CTL, "replay", "--scene", scene, "--mirror", b, SCROLL], capture_output=True, check=True)
            with open(a) as fa, open(b) as fb:
                text = fa.read()
                self.assertEqual(text, fb.read())
            self.assertIn("N: EP0430M09 (TouchBridge)", text)
            mirrored = subprocess.run([CTL, "replay", "--touches", "--scene", scene, a], capture_output=True, text=True, check=True).stdout
            touches = [l for l in source.splitlines() if '"touch"' in l]
            self.assertGreater(len(touches), 100)
            self.assertEqual([l for l in mirrored.splitlines() if '"touch"' in l], touches)
            # One recording only, and the scene is checked first.
            out = subprocess.run([CTL, "replay", "--mirror", a, SCROLL, TAPS], capture_output=True, text=True)
            self.assertEqual(out.returncode, 2)
            self.assertIn("--mirror writes one recording's mirror", out.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_the_built_in_pass_through_scene_claims_only_the_system_gestures(self):
        out = subprocess.run([CTL, "scene", "default", "--passthrough"], capture_output=True, text=True, check=True).stdout
        scene = json.loads(out)
        self.assertEqual(scene["devices"], [{"passthrough": True}])
        recognizers = {r["name"]: r for r in scene["views"][0]["recognizers"]}
        for name in ("tap", "doubleTap", "twoFingerTap", "longPress", "pan", "pinch", "rotation"):
            self.assertIs(recognizers[name]["cancelsTouchesInView"], False, name)
            self.assertIs(recognizers[name]["delaysTouchesEnded"], False, name)
        for name in ("edgeLeft", "edgeRight", "edgeTop", "edgeBottom", "swipeLeft", "swipeRight", "swipeUp", "swipeDown"):
            self.assertNotIn("cancelsTouchesInView", recognizers[name], name)
            self.assertNotIn("delaysTouchesBegan", recognizers[name], name)
        tmp = tempfile.mkdtemp()
        try:
            path = os.path.join(tmp, "pt.json")
            with open(path, "w") as f:
                f.write(out)
            check = subprocess.run([CTL, "scene", "check", path], capture_output=True, text=True)
            self.assertEqual(check.returncode, 0, check.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_pass_through_that_cannot_make_its_mirror_says_why_and_keeps_serving(self):
        d = Daemon("--no-devices", "--passthrough", "--replay", TAPS, "--replay-delay", "0.3")
        try:
            c = Client(d.socket, ["gestures", "devices"])
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=20)
            self.assertEqual(len([l for l in lines if l["event"] == "gesture"]), 5)
            log = d.text()
            if os.access("/dev/uinput", os.W_OK):
                self.assertRegex(log, r"pass-through: replay .* → mirror /dev/input/event\d+")
            else:
                self.assertIn("pass-through for the replay of " + TAPS + " is off: /dev/uinput", log)
                self.assertTrue("modprobe uinput" in log or "usermod -aG uinput" in log, log)
        finally:
            d.stop()

    def test_a_replay_cut_mid_gesture_ends_like_an_unplug(self):
        tmp = tempfile.mkdtemp()
        try:
            cut = cut_recording(SCROLL, tmp, 0.4)           # two fingers down, the pan running
            offline_lines = offline(cut, "--touches")
            self.assertEqual([l["state"] for l in offline_lines if l["event"] == "gesture"][-1], "cancelled")
            d = Daemon("--no-devices", "--replay", cut, "--replay-delay", "0.3")
            try:
                c = Client(d.socket, ["gestures", "touches", "devices"])
                lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=20)
                touches = [l for l in lines if l["event"] == "touch"]
                began = {l["id"] for l in touches if l["phase"] == "began"}
                done = {l["id"] for l in touches if l["phase"] in ("ended", "cancelled")}
                self.assertEqual(began, done)
                self.assertEqual([l["phase"] for l in touches][-2:], ["cancelled", "cancelled"])
                same_gestures(self, [l for l in lines if l["event"] != "device"], offline_lines)
            finally:
                d.stop()
        finally:
            shutil.rmtree(tmp, ignore_errors=True)


class LiveControlTests(unittest.TestCase):
    """Protocol 2: the recognizers and scene topics, set, scene, and who may send them."""

    def test_disabling_double_tap_lets_tap_fire_at_once_and_enabling_brings_it_back(self):
        d = Daemon("--no-devices", "--replay", TAPS, "--replay", TAPS, "--replay-delay", "1")
        try:
            out = ctl("disable", "doubleTap", "--socket", d.socket)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertTrue(d.wait_for_log(r"pid \d+, uid 0: set accepted"), d.text())
            c = Client(d.socket, ["gestures", "touches", "devices"])
            first = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
            taps = [l for l in first if l["event"] == "gesture"]
            self.assertEqual([l["recognizer"] for l in taps], ["tap"] * 9)
            # At once: each tap comes with its finger's lift, not a double-tap interval later.
            lifts = [l["time"] for l in first if l["event"] == "touch" and l["phase"] == "ended"]
            self.assertEqual([l["time"] for l in taps], lifts)
            self.assertEqual(ctl("enable", "double*", "--socket", d.socket).returncode, 0)
            second = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
            self.assertEqual([l["recognizer"] for l in second if l["event"] == "gesture"], ["doubleTap"] * 4 + ["tap"])
            refused = ctl("disable", "nosuch*", "--socket", d.socket)
            self.assertEqual(refused.returncode, 1)
            self.assertIn('"nosuch*" matches no recognizer', refused.stderr)
        finally:
            d.stop()

    def test_disabling_a_pan_mid_gesture_cancels_it(self):
        d = Daemon("--no-devices", "--replay", DRAGS, "--replay-delay", "0.5")
        try:
            c = Client(d.socket, ["gestures", "recognizers"])
            c.until(lambda l: l["event"] == "gesture" and l["recognizer"] == "pan" and l["state"] == "changed")
            c.send({"set": {"recognizers": ["pan"], "enabled": False}})
            lines = c.until(lambda l: l["event"] == "ok")
            gestures = [l for l in lines if l["event"] == "gesture" and l["recognizer"] == "pan"]
            transitions = [l for l in lines if l["event"] == "recognizer" and l["recognizer"] == "pan"]
            self.assertEqual(gestures[-1]["state"], "cancelled")
            self.assertEqual((transitions[-1]["from"], transitions[-1]["to"], transitions[-1]["reason"]),
                             ("changed", "cancelled", "disabled"))
            time.sleep(1.5)                             # the next drags: no pan at all
            c.send({"set": {"recognizers": ["pan"], "enabled": True}})
            later = c.until(lambda l: l["event"] == "ok")
            self.assertEqual([l for l in later if l["event"] == "gesture" and l["recognizer"] == "pan"], [])
            again = c.until(lambda l: l["event"] == "gesture" and l["recognizer"] == "pan", timeout=20)
            self.assertEqual(again[-1]["state"], "began")
        finally:
            d.stop()

    def test_rotation_changes_the_mapping_of_the_next_touch_sequence_only(self):
        expected = drags_by_touch(offline(DRAGS, "--touches"))
        d = Daemon("--no-devices", "--replay", DRAGS, "--replay-delay", "0.5")
        try:
            c = Client(d.socket, ["touches", "devices", "scene"])
            window = c.until(lambda l: l["event"] == "scene")[-1]["scene"]["window"]
            c.until(lambda l: l["event"] == "touch" and l["phase"] == "moved")
            out = ctl("set", "rotation", "180", "--device", "0", "--socket", d.socket)
            self.assertEqual(out.returncode, 0, out.stderr)
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
            changed = [i for i, l in enumerate(lines) if l["event"] == "device" and l["action"] == "changed"]
            self.assertEqual(len(changed), 1)
            self.assertEqual(lines[changed[0]]["mapping"]["rotation"], 180)
            live = drags_by_touch(lines)
            # The touch that was down when the command came stays as it was to its end, and the device
            # line comes once it has lifted; every later touch is turned half a turn.
            self.assertEqual(live[0][-1]["phase"], "ended")
            self.assertLess(lines.index(live[0][-1]), changed[0])
            for l, e in zip(live[0], expected[0][-len(live[0]):]):
                self.assertAlmostEqual(l["x"], e["x"], places=3)
            self.assertEqual(len(live), len(expected))
            for touch, e_touch in zip(live[1:], expected[1:]):
                for l, e in zip(touch, e_touch):
                    self.assertAlmostEqual(l["x"], window["width"] - e["x"], places=3)
                    self.assertAlmostEqual(l["y"], window["height"] - e["y"], places=3)
            self.assertEqual(ctl("set", "rotation", "45", "--socket", d.socket).returncode, 2)
            refused = ctl("set", "rotation", "90", "--device", "7", "--socket", d.socket)
            self.assertEqual(refused.returncode, 1)
            self.assertIn("there is no device 7", refused.stderr)
        finally:
            d.stop()

    def test_a_client_scene_fires_its_own_gestures_under_its_prefix_and_vanishes_on_disconnect(self):
        tmp = tempfile.mkdtemp()
        d = Daemon("--no-devices", "--replay", TAPS, "--replay", TAPS, "--replay-delay", "1.5")
        try:
            path = os.path.join(tmp, "kiosk.json")
            with open(path, "w") as f:
                json.dump({"views": [{"name": "button", "frame": [0, 0, 5000, 5000],
                                      "recognizers": [{"name": "press", "type": "tap"}]}]}, f)
            watcher = Client(d.socket, ["gestures", "scene", "devices"])
            self.assertEqual([v["name"] for v in watcher.next()["scene"]["views"]], ["screen"])
            # SIGINT at its default in the child: a shell that runs the tests in the background has it
            # ignored, and an ignored signal stays ignored across exec.
            push = subprocess.Popen([CTL, "scene", "push", path, "--socket", d.socket],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                    preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            scene = watcher.until(lambda l: l["event"] == "scene")[-1]["scene"]
            self.assertEqual([(v["name"], v.get("clientScene")) for v in scene["views"]], [("screen", None), ("kiosk/button", "kiosk")])
            self.assertEqual(scene["views"][1]["recognizers"][0]["name"], "kiosk/press")
            self.assertEqual(scene["views"][1]["windowFrame"], [[0, 0], [5000, 0], [5000, 5000], [0, 5000]])
            first = watcher.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
            self.assertEqual([l["recognizer"] for l in first if l["event"] == "gesture"], ["kiosk/press"] * 9)
            self.assertTrue(all(l["view"] == "kiosk/button" for l in first if l["event"] == "gesture"))
            printed = [json.loads(push.stdout.readline()) for _ in range(9)]
            self.assertEqual([l["recognizer"] for l in printed], ["kiosk/press"] * 9)
            push.send_signal(signal.SIGINT)
            try:
                push.communicate(timeout=10)
            except subprocess.TimeoutExpired:
                # Diagnostics for a hang seen once under load: the process's signal masks and state.
                with open("/proc/{}/status".format(push.pid)) as f:
                    status = "".join(l for l in f if l.startswith(("State", "SigBlk", "SigIgn", "SigPnd", "ShdPnd")))
                with open("/proc/{}/wchan".format(push.pid)) as f:
                    status += "wchan " + f.read()
                push.kill()
                self.fail("scene push did not exit on SIGINT:\n" + status)
            self.assertEqual([v["name"] for v in watcher.until(lambda l: l["event"] == "scene")[-1]["scene"]["views"]], ["screen"])
            second = watcher.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
            self.assertEqual([l["recognizer"] for l in second if l["event"] == "gesture"], ["doubleTap"] * 4 + ["tap"])
            # A broken client scene: an error naming the place, and nothing changed.
            watcher.send({"scene": {"name": "k", "views": [{"name": "b", "frame": [0, 0, "x", 1]}]}})
            error = watcher.until(lambda l: l["event"] in ("error", "ok"))[-1]
            self.assertEqual(error["event"], "error")
            self.assertTrue(error["message"].startswith("scene.views[0].frame[2]: "), error["message"])
            with open(path, "w") as f:
                json.dump({"views": [{"name": "b", "frame": [0, 0, -1, 1]}]}, f)
            bad = ctl("scene", "push", path, "--socket", d.socket)
            self.assertEqual(bad.returncode, 1)
            self.assertIn(path + ": views[0].frame: width and height must not be negative", bad.stderr)
        finally:
            d.stop()
            shutil.rmtree(tmp, ignore_errors=True)

    def test_a_recognizers_subscriber_that_comes_mid_gesture_gets_every_state_first(self):
        hold = os.path.join(FIXTURES, "evemu-devices__atmel-maxtouch-ts__2fg-press-hold-release.evemu")
        d = Daemon("--no-devices", "--replay", hold, "--replay-delay", "0.3")
        self.addCleanup(d.stop)
        first = Client(d.socket, ["touches"])
        first.until(lambda l: l["event"] == "touch" and l["phase"] == "moved")
        late = Client(d.socket, ["recognizers", "devices"])
        lines = late.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
        current = {l["recognizer"]: l["to"] for l in lines if l["event"] == "recognizer" and l["cause"] == "subscribed"}
        self.assertEqual(len(current), 15)
        self.assertIn("failed", current.values())          # the edge pans failed as the fingers landed mid-screen
        # Every later transition starts from the state the subscriber was told.
        for l in lines:
            if l["event"] == "recognizer" and l["cause"] != "subscribed":
                self.assertEqual(l["from"], current[l["recognizer"]], l)
                current[l["recognizer"]] = l["to"]

    def test_recognizer_lines_show_every_transition_consistent_with_the_gesture_lines(self):
        verbose = subprocess.run([CTL, "replay", "--verbose", SCROLL], capture_output=True, text=True, check=True)
        logged = [l for l in verbose.stderr.splitlines() if "GestureRecognizer(" in l and " → " in l]
        d = Daemon("--no-devices", "--replay", SCROLL, "--replay-delay", "0.5")
        try:
            c = Client(d.socket, ["gestures", "recognizers", "devices"])
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
        finally:
            d.stop()
        # First, every recognizer's state as the client subscribed: all possible before the replay.
        current = [l for l in lines if l["event"] == "recognizer" and l["cause"] == "subscribed"]
        self.assertEqual(len(current), 15)
        self.assertTrue(all(l["from"] == l["to"] == "possible" for l in current), current)
        self.assertEqual(lines[:15], current)
        transitions = [l for l in lines if l["event"] == "recognizer" and l["cause"] != "subscribed"]
        gestures = [l for l in lines if l["event"] == "gesture"]
        self.assertGreater(len(gestures), 10)
        # Every transition the offline replay logs, one line each (the replay ends with an unplug in
        # both, so the counts agree).
        self.assertEqual(len(transitions), len(logged), "\n".join(logged[:20]))
        state = {}
        for t in transitions:
            self.assertEqual(t["from"], state.get(t["recognizer"], "possible"), t)
            state[t["recognizer"]] = t["to"]
        self.assertTrue(all(s == "possible" for s in state.values()), state)
        # Each recognizer's gesture lines follow its transitions: one line for every state it enters
        # (began, recognized, ended, cancelled), and "changed" lines once it has entered changed.
        for name in {g["recognizer"] for g in gestures}:
            entered = [t["to"] for t in transitions if t["recognizer"] == name and t["from"] != t["to"]
                       and t["to"] not in ("possible", "failed")]
            states = [g["state"] for g in gestures if g["recognizer"] == name]
            collapsed = [s for i, s in enumerate(states) if i == 0 or s != states[i - 1]]
            self.assertEqual(entered, collapsed, name)
        self.assertTrue(any(t.get("reason") for t in transitions))

    def test_the_examples_follow_sway_rotation_and_switch_edges_off_while_a_locker_runs(self):
        tmp = tempfile.mkdtemp()
        d = Daemon("--no-devices", "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.2")
        try:
            # A stand-in for swaymsg: one output turned 90°, one output event, then sway "exits".
            fake = os.path.join(tmp, "swaymsg")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\n"
                        "case \"$*\" in\n"
                        "*get_outputs*) echo '[{\"name\": \"DSI-1\", \"active\": true, \"transform\": \"90\"}]' ;;\n"
                        "*subscribe*) echo '{\"change\": \"unspecified\"}' ;;\n"
                        "esac\n")
            os.chmod(fake, 0o755)
            c = Client(d.socket, ["scene", "devices"])
            self.assertEqual(c.next()["scene"]["window"], {"width": 1280, "height": 800})
            out = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "sway-rotation.py"), "--socket", d.socket,
                                  "--swaymsg", fake], capture_output=True, text=True, timeout=30)
            self.assertEqual(out.returncode, 1, out.stderr)        # sway's stream ended
            self.assertIn("DSI-1 is 90: touchscreen rotation 90°", out.stdout)
            lines = c.until(lambda l: l["event"] == "scene", timeout=20)
            self.assertEqual(lines[-1]["scene"]["window"], {"width": 800, "height": 1280})
            self.assertEqual([l["mapping"]["rotation"] for l in lines if l.get("action") == "changed"], [90])
            # The locker runs with the edges off; they are on again once it exits.
            env = dict(os.environ, TOUCHBRIDGECTL=CTL, TOUCHBRIDGE_SOCKET=d.socket)
            locker = subprocess.Popen([os.path.join(ROOT, "examples", "lock-screen-edges.sh"), "sleep", "1"], env=env)
            edges = lambda l: [r["enabled"] for v in l["scene"]["views"] for r in v.get("recognizers", [])
                               if r["name"].startswith("edge")]
            self.assertEqual(edges(c.until(lambda l: l["event"] == "scene")[-1]), [False] * 4)
            self.assertEqual(locker.wait(10), 0)
            self.assertEqual(edges(c.until(lambda l: l["event"] == "scene")[-1]), [True] * 4)
        finally:
            d.stop()
            shutil.rmtree(tmp, ignore_errors=True)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to run a client as another user")
    def test_another_user_who_may_connect_is_refused_control_unless_in_the_control_group(self):
        for args, permitted in (((), False), (("--control-group", "nogroup"), True)):
            d = Daemon("--no-devices", "--socket-group", "nogroup", *args)
            try:
                os.chmod(d.dir, 0o755)
                listen = subprocess.Popen(["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups",
                                           CTL, "listen", "--socket", d.socket],
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                out = subprocess.run(["setpriv", "--reuid", "nobody", "--regid", "nogroup", "--clear-groups",
                                      CTL, "disable", "pan", "--socket", d.socket], capture_output=True, text=True, timeout=30)
                if permitted:
                    self.assertEqual(out.returncode, 0, out.stderr)
                    self.assertTrue(d.wait_for_log(r"uid 65534: set accepted"), d.text())
                else:
                    self.assertEqual(out.returncode, 1)
                    self.assertIn("not permitted", out.stderr)
                    self.assertIn("this connection is uid 65534", out.stderr)
                    self.assertIn("--control-group", out.stderr)
                time.sleep(0.3)
                self.assertIsNone(listen.poll(), "the other user may still subscribe")
                listen.kill()
                listen.wait()
            finally:
                d.stop()
        with self.assertRaises(RuntimeError):
            Daemon("--no-devices", "--control-group", "no-such-group-here")


@unittest.skipUnless(headless.chromium(), "needs chromium (make deps installs it)")
class VisualizerTests(unittest.TestCase):
    """The visualizer's page in a real browser (headless Chromium): a replay report, and the live page."""

    def test_a_report_shows_the_views_the_touches_and_the_recognizers_that_fired(self):
        tmp = tempfile.mkdtemp()
        try:
            report = os.path.join(tmp, "taps.html")
            out = subprocess.run([CTL, "replay", "--html", report, TAPS], capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertEqual([json.loads(l)["recognizer"] for l in out.stdout.splitlines()], ["doubleTap"] * 4 + ["tap"])
            self.assertIn("wrote " + report, out.stderr)
            with open(report) as f:
                page = f.read()
            self.assertNotIn("http://", page.replace("http://www.w3.org/2000/svg", ""))   # nothing fetched
            with headless.Browser() as b:
                p = b.open("file://" + report)
                self.assertTrue(p.wait_for("document.body.dataset.lines > 0"))
                shown = p.evaluate("""({
                    views: [...document.querySelectorAll('[data-view]')].filter(e => e.tagName == 'polygon').map(e => e.dataset.view),
                    touches: [...document.querySelectorAll('g.touch')].map(e => e.dataset.phase),
                    fired: Object.fromEntries([...document.querySelectorAll('.lane')].map(e => [e.dataset.recognizer, +e.dataset.fired])),
                    reasons: Object.fromEntries([...document.querySelectorAll('.lane')].map(e => [e.dataset.recognizer, e.querySelector('.reason').textContent])),
                    clock: document.getElementById('clock').textContent })""")
                self.assertEqual(shown["views"], ["screen"])
                self.assertEqual(shown["touches"], ["ended"] * 9)          # opens at the end: every finger lifted
                self.assertEqual(shown["fired"]["doubleTap"], 4)
                self.assertEqual(shown["fired"]["tap"], 1)
                self.assertEqual(shown["fired"]["pan"], 0)
                self.assertTrue(shown["reasons"]["longPress"].startswith("failed: lifted before 0.5 s"), shown["reasons"])
                self.assertTrue(shown["reasons"]["twoFingerTap"].startswith("failed: "), shown["reasons"])
                # Scrubbed back to the first tap's lift: the single tap waits for the double tap to fail.
                p.evaluate("""(() => { const lifts = [...M.touches.values()][0].pts.filter(q => q.phase == 'ended');
                                       S.t = lifts[0].time + 0.01; S.follow = false; S.dirty = true; draw(); })()""")
                self.assertEqual(p.evaluate("document.querySelector('.lane[data-recognizer=tap] .reason').textContent"),
                                 "waits for doubleTap to fail")
                # Reasons are shown whole: no lane's "now" column is cut.
                p.evaluate("S.t = M.t1; S.dirty = true; draw()")
                self.assertEqual(p.evaluate("[...document.querySelectorAll('.lane .now')].filter(e => e.scrollWidth > e.clientWidth + 1).length"), 0)
                self.assertRegex(p.evaluate("document.querySelector('.lane[data-recognizer=edgeLeft] .reason').textContent"),
                                 r"^failed: began [\d.]+ pt from the nearest edge \(within 24 pt of left\)$")

        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_a_report_says_each_state_once(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        report = os.path.join(tmp, "scroll.html")
        out = subprocess.run([CTL, "replay", "--html", report, SCROLL], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        with headless.Browser() as b:
            p = b.open("file://" + report)
            self.assertTrue(p.wait_for("document.body.dataset.lines > 0"))
            # In the middle of the pan: the lane says "changed" once, then the pan's values.
            p.evaluate("""(() => { const g = M.lanes.get('pan').gestures.filter(g => g.state == 'changed');
                                   S.t = g[Math.floor(g.length / 2)].time; S.follow = false; S.dirty = true; draw(); })()""")
            state = p.evaluate("document.querySelector('.lane[data-recognizer=pan] .state').textContent")
            value = p.evaluate("document.querySelector('.lane[data-recognizer=pan] .value').textContent")
            self.assertEqual(state, "changed")
            self.assertTrue(value.startswith("translation "), value)

    def test_a_report_of_twenty_seconds_of_ten_fingers_stays_under_5_MB(self):
        tmp = tempfile.mkdtemp()
        try:
            recording = os.path.join(tmp, "ten.evemu")
            tbsupport.evemu_frames(recording, tbsupport.ten_finger_frames(seconds=20))
            report = os.path.join(tmp, "ten.html")
            out = subprocess.run([CTL, "replay", "--html", report, recording], capture_output=True, text=True, timeout=120)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertLess(os.path.getsize(report), 5 * 1024 * 1024)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_the_live_page_gets_the_touches_and_gestures_of_a_replaying_daemon(self):
        d = Daemon("--no-devices", "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.5")
        port = free_port()
        vis = subprocess.Popen([CTL, "visualize", "--socket", d.socket, "--listen", "127.0.0.1:{}".format(port)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            self.assertEqual(vis.stdout.readline().strip(), "touchbridgectl visualize: open http://127.0.0.1:{}/ in a browser "
                             "(the daemon: {})".format(port, d.socket))
            with headless.Browser() as b:
                p = b.open("http://127.0.0.1:{}/".format(port))
                self.assertTrue(p.wait_for("document.body.dataset.gestures > 0 && document.body.dataset.touches > 0", 30))
                self.assertEqual(p.evaluate("document.getElementById('status').textContent"), "connected")
                self.assertEqual(p.evaluate("document.getElementById('mode').textContent"), "live")
                self.assertTrue(p.wait_for("+document.querySelector('.lane[data-recognizer=pan]').dataset.fired > 0", 15))
                self.assertTrue(p.evaluate("[...document.querySelectorAll('[data-device]')].length == 1"))
            # Anything but loopback is said to show touches to the network.
            exposed = subprocess.Popen([CTL, "visualize", "--socket", d.socket, "--listen", "0.0.0.0:{}".format(free_port())],
                                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            self.assertIn("not loopback: anyone who can reach it sees every touch", exposed.stderr.readline())
            exposed.terminate()
            exposed.wait(10)
            other = subprocess.run([CTL, "visualize", "--socket", d.socket, "--listen", "nonsense"], capture_output=True, text=True, timeout=10)
            self.assertEqual(other.returncode, 1)
            self.assertIn("--listen takes ADDR:PORT", other.stderr)
            vis.terminate()
            _, err = vis.communicate(timeout=10)
            self.assertNotIn("127.0.0.1:{}".format(port), err)            # the address is said once, on stdout
        finally:
            vis.terminate()
            vis.wait(10)
            d.stop()


class CommandLineTests(unittest.TestCase):
    def test_help_version_and_bad_options(self):
        for tool in (DAEMON, CTL):
            out = subprocess.run([tool, "--help"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0)
            self.assertIn("usage:", out.stdout)
            out = subprocess.run([tool, "--version"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0)
            self.assertRegex(out.stdout, r"\d+\.\d+\.\d+")
        out = subprocess.run([DAEMON, "--sceen", "x"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("unknown option --sceen", out.stderr)
        out = subprocess.run([CTL, "frobnicate"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        out = subprocess.run([CTL, "replay", "/nonexistent.evemu"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("/nonexistent.evemu", out.stderr)
        out = subprocess.run([CTL, "listen", "--socket", "/nonexistent/tb.sock"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("not running", out.stderr)

    def test_bind_runs_commands_without_a_shell_and_logs_failures_as_they_happen(self):
        tmp = tempfile.mkdtemp()
        marker = os.path.join(tmp, "ran")
        bindings = os.path.join(tmp, "bind.json")
        with open(bindings, "w") as f:
            json.dump({"twoFingerTap": ["/bin/sh", "-c", 'printf "%s %s" "$TOUCHBRIDGE_RECOGNIZER" "$TOUCHBRIDGE_STATE" > ' + marker],
                       "twoFingerTap:recognized": ["/bin/false"],
                       "pan:began": ["/nonexistent/program"]}, f)
        d = Daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "1")
        err_path = os.path.join(tmp, "bind.err")
        b = subprocess.Popen([CTL, "bind", bindings, "--socket", d.socket], stdout=subprocess.DEVNULL, stderr=open(err_path, "w"))
        try:
            end = time.time() + 15
            while not os.path.exists(marker) and time.time() < end:
                time.sleep(0.05)
            time.sleep(0.5)
            with open(marker) as f:
                self.assertEqual(f.read(), "twoFingerTap recognized")
            # Logged when it failed, with no gesture after it; and no child is left a zombie.
            with open(err_path) as f:
                self.assertIn("\"/bin/false\" failed with exit status 1", f.read())
            children = subprocess.run(["ps", "--ppid", str(b.pid), "-o", "stat="], capture_output=True, text=True).stdout.split()
            self.assertFalse([c for c in children if c.startswith("Z")], children)
            b.send_signal(signal.SIGTERM)
            self.assertEqual(b.wait(10), 0)
        finally:
            if b.poll() is None:
                b.kill()
            d.stop()
            shutil.rmtree(tmp, ignore_errors=True)

    def test_bind_connects_again_when_the_daemon_restarts(self):
        tmp = tempfile.mkdtemp()
        marker = os.path.join(tmp, "taps")
        bindings = os.path.join(tmp, "bind.json")
        with open(bindings, "w") as f:
            json.dump({"twoFingerTap": ["/bin/sh", "-c", "echo tap >> " + marker]}, f)
        d = Daemon("--no-devices")
        sock = d.socket
        err_path = os.path.join(tmp, "bind.err")
        b = subprocess.Popen([CTL, "bind", bindings, "--socket", sock], stdout=subprocess.DEVNULL, stderr=open(err_path, "w"))
        second = None
        try:
            time.sleep(0.5)
            d.proc.send_signal(signal.SIGTERM)
            d.proc.wait(10)
            time.sleep(1.5)                                  # bind tries, fails and waits meanwhile
            self.assertIsNone(b.poll())
            second = subprocess.Popen([DAEMON, "--socket", sock, "--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "2"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            end = time.time() + 20
            while not os.path.exists(marker) and time.time() < end:
                time.sleep(0.05)
            with open(marker) as f:
                self.assertEqual(f.read(), "tap\n")
            with open(err_path) as f:
                err = f.read()
            self.assertIn("the daemon closed the connection; connecting again", err)
            self.assertRegex(err, r"touchbridged is not running there .*; trying again in [0-9.]+ s \(attempt 1\)")
            self.assertIn("connected to " + sock + " again", err)
        finally:
            b.send_signal(signal.SIGTERM)
            b.wait(10)
            if second:
                second.terminate()
                second.wait(10)
            d.stop()
            shutil.rmtree(tmp, ignore_errors=True)

    def test_bind_with_the_scene_refuses_a_recognizer_it_does_not_have(self):
        tmp = tempfile.mkdtemp()
        try:
            bindings = os.path.join(tmp, "bind.json")
            with open(bindings, "w") as f:
                json.dump({"dubleTap": ["true"]}, f)
            scene = os.path.join(tmp, "scene.json")
            with open(scene, "w") as f:
                f.write(subprocess.run([CTL, "scene", "default"], capture_output=True, text=True, check=True).stdout)
            out = subprocess.run([CTL, "bind", bindings, "--scene", scene, "--socket", os.path.join(tmp, "none.sock")],
                                 capture_output=True, text=True, timeout=10)
            self.assertEqual(out.returncode, 1)
            self.assertIn('"dubleTap": ' + scene + ' has no recognizer of that name (did you mean "doubleTap"?)', out.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_bind_logs_the_names_the_served_scene_lacks(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        bindings = os.path.join(tmp, "bind.json")
        with open(bindings, "w") as f:
            json.dump({"dubleTap": ["true"], "tap": ["true"]}, f)
        d = Daemon("--no-devices")
        self.addCleanup(d.stop)
        log = open(os.path.join(tmp, "bind.log"), "w+")
        agent = subprocess.Popen([CTL, "bind", bindings, "--socket", d.socket], stdout=log, stderr=subprocess.STDOUT)
        try:
            said = ""
            end = time.time() + 10
            while "dubleTap" not in said and time.time() < end:
                time.sleep(0.05)
                log.seek(0)
                said = log.read()
            self.assertIn('"dubleTap": the daemon\'s scene has no recognizer of that name (did you mean "doubleTap"?)', said)
            self.assertNotIn('"tap":', said)
        finally:
            agent.terminate()
            agent.wait(10)
            log.close()

    def test_listen_exits_with_a_failure_when_the_daemon_goes_away(self):
        d = Daemon("--no-devices")
        try:
            l = subprocess.Popen([CTL, "listen", "--socket", d.socket], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            time.sleep(0.5)
            d.proc.send_signal(signal.SIGTERM)
            out, err = l.communicate(timeout=10)
            self.assertEqual(l.returncode, 1)
            self.assertIn('"event":"hello"', out)
            self.assertIn("the daemon closed the connection", err)
        finally:
            d.stop()

    def test_make_install_puts_the_prefix_into_the_units_and_the_rule(self):
        tmp = tempfile.mkdtemp()
        try:
            out = subprocess.run(["make", "-s", "-o", "release", "install", "DESTDIR=" + tmp, "PREFIX=/usr", "BIN=" + BIN],
                                 cwd=ROOT, capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            for f in ("usr/bin/touchbridged", "usr/bin/touchbridgectl", "etc/systemd/system/touchbridged.socket",
                      "etc/sysusers.d/touchbridge.conf", "etc/modules-load.d/touchbridge.conf", "etc/touchbridge/scene.json",
                      "usr/share/doc/touchbridge/examples/bindings.json", "usr/share/doc/touchbridge/examples/listen.py"):
                self.assertTrue(os.path.exists(os.path.join(tmp, f)), f)
            with open(os.path.join(tmp, "etc/systemd/system/touchbridged.service")) as f:
                self.assertIn("ExecStart=/usr/bin/touchbridged --scene /etc/touchbridge/scene.json", f.read())
            with open(os.path.join(tmp, "etc/systemd/user/touchbridge-bind.service")) as f:
                self.assertIn("ExecStart=/usr/bin/touchbridgectl bind", f.read())
            with open(os.path.join(tmp, "etc/udev/rules.d/70-touchbridge.rules")) as f:
                rule = f.read()
            self.assertIn('IMPORT{program}="/usr/bin/touchbridgectl udev-mirror-properties %k"', rule)
            self.assertNotIn("/usr/local", rule)
            with open(os.path.join(tmp, "etc/sysusers.d/touchbridge.conf")) as f:
                groups = f.read()
            self.assertIn("g touchbridge -", groups)
            self.assertIn("g uinput -", groups)
            # A second install keeps the scene the user edited.
            with open(os.path.join(tmp, "etc/touchbridge/scene.json"), "w") as f:
                f.write("mine")
            subprocess.run(["make", "-s", "-o", "release", "install", "DESTDIR=" + tmp, "PREFIX=/usr", "BIN=" + BIN],
                           cwd=ROOT, capture_output=True, timeout=60, check=True)
            with open(os.path.join(tmp, "etc/touchbridge/scene.json")) as f:
                self.assertEqual(f.read(), "mine")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_replay_selects_the_device_entry_as_the_daemon_does(self):
        tmp = tempfile.mkdtemp()
        try:
            scene = os.path.join(tmp, "two-panels.json")
            with open(scene, "w") as f:
                json.dump({"window": {"width": 2560, "height": 800},
                           "devices": [{"name": "Atmel*", "region": [0, 0, 1280, 800], "rotation": 90},
                                       {"name": "Wacom*", "region": [1280, 0, 1280, 800]}],
                           "views": [{"name": "left", "frame": [0, 0, 1280, 800],
                                      "recognizers": [{"name": "leftTap", "type": "tap", "numberOfTouchesRequired": 2}]},
                                     {"name": "right", "frame": [1280, 0, 1280, 800],
                                      "recognizers": [{"name": "rightTap", "type": "tap", "numberOfTouchesRequired": 2}]}]}, f)
            out = subprocess.run([CTL, "replay", "--scene", scene, TWO_FINGER_TAP], capture_output=True, text=True, check=True)
            lines = [json.loads(l) for l in out.stdout.splitlines()]
            self.assertEqual([l["recognizer"] for l in lines], ["rightTap"])
            self.assertGreater(lines[0]["x"], 1280)
            self.assertIn('"Wacom ISDv4 E6 Finger" maps through the devices entry name "Wacom*"', out.stderr)
            # The same file through the daemon: the same entry.
            d = Daemon("--no-devices", "--scene", scene, "--replay", TWO_FINGER_TAP, "--replay-delay", "0.3")
            try:
                c = Client(d.socket, ["gestures", "devices"])
                live = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
                same_gestures(self, [l for l in live if l["event"] == "gesture"], lines)
            finally:
                d.stop()
            # A recording no entry selects: said so, as the daemon would not open it.
            out = subprocess.run([CTL, "replay", "--scene", scene, SCROLL], capture_output=True, text=True)
            self.assertEqual(out.returncode, 1)
            self.assertIn('no "devices" entry of ' + scene + ' selects "EP0430M09"', out.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_several_replays_play_one_after_another_and_loop(self):
        d = Daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay", TAPS, "--replay-delay", "0.3", "--replay-loop")
        try:
            c = Client(d.socket, ["gestures", "devices"])
            seen = []
            end = time.time() + 30
            while time.time() < end and len([l for l in seen if l["event"] == "device" and l["action"] == "added"]) < 3:
                line = c.next(timeout=end - time.time())
                if line is None:
                    break
                seen.append(line)
            added = [(l["device"], l["node"]) for l in seen if l["event"] == "device" and l["action"] == "added"]
            # Each recording is one device, with the same index on every pass of the loop.
            self.assertEqual(added, [(0, "replay:" + TWO_FINGER_TAP), (1, "replay:" + TAPS), (0, "replay:" + TWO_FINGER_TAP)])
            gestures = [(l["device"], l["recognizer"]) for l in seen if l["event"] == "gesture"]
            self.assertEqual(gestures[0], (0, "twoFingerTap"))
            self.assertEqual(len([g for g in gestures if g[0] == 1]), 5)
        finally:
            d.stop()
        out = subprocess.run([DAEMON, "--replay-loop"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--replay-loop needs a recording", out.stderr)

    def test_the_demo_shows_why_the_daemon_failed(self):
        tmp = tempfile.mkdtemp()
        try:
            fake = os.path.join(tmp, "touchbridged")
            with open(fake, "w") as f:
                f.write("#!/bin/sh\necho 'touchbridged: error: something precise went wrong' >&2\nexit 1\n")
            os.chmod(fake, 0o755)
            out = subprocess.run(["scripts/demo.sh"], cwd=ROOT, env=dict(os.environ, BIN=tmp), capture_output=True,
                                 text=True, timeout=60)
            self.assertNotEqual(out.returncode, 0)
            self.assertIn("touchbridged did not serve", out.stderr)
            self.assertIn("something precise went wrong", out.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_help_names_the_three_recording_formats(self):
        out = subprocess.run([DAEMON, "--help"], capture_output=True, text=True, check=True).stdout
        for name in ("evemu-record", "libinput record", "evtest"):
            self.assertIn(name, out)

    def test_a_description_alone_is_not_a_recording(self):
        desc = os.path.join(FIXTURES, "evemu-devices__wacom-isdv4-e6-finger-ts__DEVICE.desc")
        out = subprocess.run([CTL, "replay", desc], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("without events; replay the recording of its events, with this file as its description: --desc " + desc, out.stderr)

    def test_scene_check_warns_of_what_cannot_be_meant_and_refuses_an_empty_name(self):
        tmp = tempfile.mkdtemp()
        try:
            scene = os.path.join(tmp, "s.json")
            with open(scene, "w") as f:
                json.dump({"window": {"width": 800, "height": 480},
                           "views": [{"name": "lost", "frame": [900, 0, 100, 100]},
                                     {"name": "edge", "frame": [0, 0, 100, 480],
                                      "recognizers": [{"name": "back", "type": "screenEdgePan", "edges": []}]}]}, f)
            out = subprocess.run([CTL, "scene", "check", scene], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn('views[0] "lost": entirely outside the window: no touch can reach it', out.stderr)
            self.assertIn("views[1].recognizers[0].edges: no edges: this screenEdgePan never fires", out.stderr)
            with open(scene, "w") as f:
                json.dump({"window": {"width": 800, "height": 480}, "views": [{"name": "", "frame": [0, 0, 1, 1]}]}, f)
            out = subprocess.run([CTL, "scene", "check", scene], capture_output=True, text=True)
            self.assertEqual(out.returncode, 1)
            self.assertIn("views[0].name: must not be empty", out.stderr)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_a_looped_replay_turned_and_turned_back_gives_the_window_and_the_gestures_back(self):
        plain = offline(TWO_FINGER_TAP)[0]
        d = Daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-loop", "--replay-delay", "0.3")
        try:
            c = Client(d.socket, ["gestures", "devices", "scene"])

            def window():
                w = c.until(lambda l: l["event"] == "scene")[-1]["scene"]["window"]
                return (w["width"], w["height"])
            self.assertEqual(window(), (1280, 800))
            c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
            self.assertEqual(ctl("set", "rotation", "90", "--socket", d.socket).returncode, 0)
            self.assertEqual(window(), (800, 1280))
            # Passes later (each the same device 0), turned back: the window and the taps are as at first.
            again = c.until(lambda l: l["event"] == "device" and l["action"] == "added")[-1]
            self.assertEqual(again["device"], 0)
            c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
            self.assertEqual(ctl("set", "rotation", "0", "--socket", d.socket).returncode, 0)
            self.assertEqual(window(), (1280, 800))
            tap = c.until(lambda l: l["event"] == "gesture")[-1]
            self.assertEqual(tap["device"], 0)
            self.assertAlmostEqual(tap["x"], plain["x"], delta=0.5)
            self.assertAlmostEqual(tap["y"], plain["y"], delta=0.5)
            self.assertEqual(ctl("set", "rotation", "0", "--device", "Wacom*", "--socket", d.socket).returncode, 0)
            refused = ctl("set", "rotation", "90", "--device", "Atmel*", "--socket", d.socket)
            self.assertEqual(refused.returncode, 1)
            self.assertIn('no device\'s name or node matches "Atmel*"', refused.stderr)
            self.assertIn('0 "Wacom ISDv4 E6 Finger"', refused.stderr)
        finally:
            d.stop()

    def test_rotation_for_every_device_turns_the_built_in_window(self):
        out = subprocess.run([DAEMON, "--rotation", "45"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--rotation takes 0, 90, 180 or 270", out.stderr)
        # The Wacom panel (no resolution: the built-in 1280 x 800 window) turned a quarter: 800 x 1280.
        d = Daemon("--no-devices", "--rotation", "90", "--replay", TWO_FINGER_TAP, "--replay-delay", "0.3")
        try:
            c = Client(d.socket, ["gestures", "devices"])
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
            tap = [l for l in lines if l["event"] == "gesture"][0]
            plain = offline(TWO_FINGER_TAP)[0]
            # Turned clockwise: the panel's x runs down the window, its y from right to left.
            self.assertAlmostEqual(tap["y"] / 1280, plain["x"] / 1280, delta=0.01)
            self.assertAlmostEqual(tap["x"] / 800, 1 - plain["y"] / 800, delta=0.01)
            self.assertIn("built-in scene, 800×1280 pt", d.text())
        finally:
            d.stop()

    @unittest.skipUnless(shutil.which("systemd-analyze"), "systemd-analyze is not installed")
    def test_systemd_units_verify_and_are_hardened(self):
        tmp = tempfile.mkdtemp()
        for unit in ("touchbridged.service", "touchbridged.socket"):
            with open(os.path.join(ROOT, "systemd", unit)) as f:
                text = f.read().replace("/usr/local/bin/touchbridged", DAEMON)
            with open(os.path.join(tmp, unit), "w") as f:
                f.write(text)
        out = subprocess.run(["systemd-analyze", "verify", os.path.join(tmp, "touchbridged.service"),
                              os.path.join(tmp, "touchbridged.socket")], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        out = subprocess.run(["systemd-analyze", "security", "--offline=true", os.path.join(tmp, "touchbridged.service")],
                             capture_output=True, text=True)
        exposure = float(out.stdout.split("Overall exposure level for touchbridged.service:")[1].split()[0])
        self.assertLessEqual(exposure, 2.0)
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    from run import main
    main(["test_daemon"])
