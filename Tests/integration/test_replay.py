#!/usr/bin/env python3
"""Recordings as devices and offline: choosing a device entry, several replays and loops, the demo,
the formats, scene checks, rotation of the built-in window."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)


class ReplayTests(TestCase):
    def test_replay_selects_the_device_entry_as_the_daemon_does(self):
        tmp = self.tempdir()
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
        tmp = self.tempdir()
        fake = os.path.join(tmp, "touchbridged")
        with open(fake, "w") as f:
            f.write("#!/bin/sh\necho 'touchbridged: error: something precise went wrong' >&2\nexit 1\n")
        os.chmod(fake, 0o755)
        out = subprocess.run(["scripts/demo.sh"], cwd=ROOT, env=dict(os.environ, BIN=tmp), capture_output=True,
                             text=True, timeout=60)
        self.assertNotEqual(out.returncode, 0)
        self.assertIn("touchbridged did not serve", out.stderr)
        self.assertIn("something precise went wrong", out.stderr)

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
        tmp = self.tempdir()
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

    def test_a_looped_replay_turned_and_turned_back_gives_the_window_and_the_gestures_back(self):
        plain = offline(TWO_FINGER_TAP)[0]
        d = self.daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-loop", "--replay-delay", "0.3")
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

    def test_rotation_for_every_device_turns_the_built_in_window(self):
        out = subprocess.run([DAEMON, "--rotation", "45"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--rotation takes 0, 90, 180 or 270", out.stderr)
        # The Wacom panel (no resolution: the built-in 1280 x 800 window) turned a quarter: 800 x 1280.
        d = self.daemon("--no-devices", "--rotation", "90", "--replay", TWO_FINGER_TAP, "--replay-delay", "0.3")
        c = Client(d.socket, ["gestures", "devices"])
        lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
        tap = [l for l in lines if l["event"] == "gesture"][0]
        plain = offline(TWO_FINGER_TAP)[0]
        # Turned clockwise: the panel's x runs down the window, its y from right to left.
        self.assertAlmostEqual(tap["y"] / 1280, plain["x"] / 1280, delta=0.01)
        self.assertAlmostEqual(tap["x"] / 800, 1 - plain["y"] / 800, delta=0.01)
        self.assertIn("built-in scene, 800×1280 pt", d.text())


class LoopLogTests(TestCase):
    def test_a_looping_replay_says_each_condition_once_not_once_a_pass(self):
        # The kiosk scene passes its device through; without /dev/uinput (or without the right to it)
        # the mirror cannot be made: said once, however many passes.
        d = self.daemon("--no-devices", "--scene", os.path.join(ROOT, "scenes", "kiosk.json"), "--replay", TAPS,
                        "--replay-loop", "--replay-delay", "0.1")
        c = Client(d.socket, ["devices"])
        for _ in range(3):                                     # three passes: each ends as an unplug
            c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=30)
        log = d.text()
        self.assertEqual(log.count("replaying " + TAPS), 1, log)
        self.assertLessEqual(log.count("pass-through for the replay"), 1, log)
        self.assertEqual(log.count("--replay-loop: playing the queue again"), 1, log)
        self.assertIn("scene {}: 1 view, 1 recognizer".format(os.path.join(ROOT, "scenes", "kiosk.json")), log)


YAML_SCROLL = os.path.join(FIXTURES, "libinput-record__ep0430m09-ts__2fg-scroll-down.yml")


class TruncatedRecordingTests(TestCase):
    """A recording cut short (a mail client, a full disk) is named as cut, with its line; one stopped by
    Ctrl-C between frames is a warning."""

    def cut(self, source, keep):
        """`source` cut by `keep(text)`, into a file of the test's."""
        with open(source) as f:
            text = f.read()
        path = os.path.join(self.tempdir(), "cut-" + os.path.basename(source))
        with open(path, "w") as f:
            f.write(keep(text))
        return path, text

    def mid_line(self, text, fraction=0.6):
        """Cut inside an event line, about `fraction` of the way through."""
        at = int(len(text) * fraction)
        while text[at - 1] == "\n" or text[at] == "\n":
            at += 1
        return text[:at]

    def test_a_cut_evemu_recording_is_refused_with_its_line_unless_allowed(self):
        path, text = self.cut(SCROLL, self.mid_line)
        line = text[:len(self.mid_line(text))].count("\n") + 1
        out = subprocess.run([CTL, "replay", path], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(out.stdout, "")
        self.assertIn("{}:{}: the recording is cut short: its last line has no end".format(path, line), out.stderr)
        self.assertIn("--allow-truncated", out.stderr)
        allowed = subprocess.run([CTL, "replay", "--allow-truncated", path], capture_output=True, text=True, timeout=60)
        self.assertEqual(allowed.returncode, 0, allowed.stderr)
        self.assertIn("replaying the", allowed.stderr)
        self.assertTrue(allowed.stdout.strip())

    def test_a_cut_libinput_record_file_is_refused_mid_line_and_mid_frame(self):
        path, text = self.cut(YAML_SCROLL, self.mid_line)
        out = subprocess.run([CTL, "replay", path], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 1)
        self.assertIn("the recording is cut short: its last line has no end", out.stderr)
        # Cut at a line's end, inside an evdev frame: libinput record writes whole frames.
        lines = text.splitlines(True)
        frame = max(i for i, l in enumerate(lines[: len(lines) * 2 // 3]) if l.strip() == "- evdev:")
        path, _ = self.cut(YAML_SCROLL, lambda t: "".join(lines[:frame + 3]))
        out = subprocess.run([CTL, "replay", path], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 1)
        self.assertIn("{}:{}: the recording is cut short: its last evdev frame has no SYN_REPORT".format(path, frame + 3), out.stderr)
        self.assertEqual(subprocess.run([CTL, "replay", "--allow-truncated", path], capture_output=True, timeout=60).returncode, 0)

    def test_an_evemu_recording_stopped_between_events_of_a_frame_is_a_warning(self):
        def ctrl_c(text):
            lines = text.splitlines(True)
            syns = [i for i, l in enumerate(lines) if l.startswith("E:") and l.split()[2:4] == ["0000", "0000"]]
            return "".join(lines[:syns[len(syns) // 2] + 3])           # two events of a frame never finished
        path, _ = self.cut(SCROLL, ctrl_c)
        out = subprocess.run([CTL, "replay", path], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("{}: the last 2 events came after the last SYN_REPORT".format(path), out.stderr)
        self.assertIn("dropped", out.stderr)

    def test_the_daemon_refuses_a_cut_recording_before_its_socket_exists(self):
        path, _ = self.cut(TAPS, self.mid_line)
        tmp = self.tempdir()
        sock = os.path.join(tmp, "tb.sock")
        out = subprocess.run([DAEMON, "--no-devices", "--socket", sock, "--replay", path], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertIn("the recording is cut short", out.stderr)
        self.assertIn("--allow-truncated", out.stderr)
        self.assertFalse(os.path.exists(sock))


if __name__ == "__main__":
    from run import main
    main(["test_replay"])
