#!/usr/bin/env python3
"""The kiosk that dims itself and the sliders (docs/display.md, docs/actions.md "Sliders") through the
binaries, on a fake sysfs tree the test makes (`--sysfs-root`, for tests only): the backlight file is
what the kernel's would be written."""
import json
import os
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)
import tbsupport  # noqa: E402

WINDOW = {"width": 800, "height": 480}


def sysfs(directory, lights):
    """A sysfs tree under `directory` with backlights {name: (type, max, brightness)}; its root."""
    root = os.path.join(directory, "sys")
    for name, (type_, maximum, now) in lights.items():
        d = os.path.join(root, "class", "backlight", name)
        os.makedirs(d)
        for f, v in (("type", type_), ("max_brightness", maximum), ("brightness", now), ("actual_brightness", now)):
            with open(os.path.join(d, f), "w") as out:
                out.write("{}\n".format(v))
    return root


def brightness(root, name="panel_bl"):
    with open(os.path.join(root, "class", "backlight", name, "brightness")) as f:
        return int(f.read())


def displays(lines):
    return [(l["state"], l.get("brightness"), l["cause"]) for l in lines if l["event"] == "display"]


def tap_recording(path, at=0.0):
    """One finger tapped in the middle of the 0…4095 panel, `at` seconds into the recording."""
    tbsupport.evemu_frames(path, [{}] * int(at * 60) + [{0: (2048, 2048)}] * 4, hz=60)


class DisplayTests(TestCase):
    def scene(self, tmp, display=None, recognizers=None):
        s = {"window": WINDOW, "views": [{"name": "screen", "frame": [0, 0, 800, 480],
                                          "recognizers": recognizers or [{"name": "tap", "type": "tap"}]}]}
        if display:
            s["display"] = display
        return self.json_file(tmp, "scene.json", s)

    def test_the_kiosk_dims_goes_off_and_a_touch_brings_back_its_brightness_and_is_swallowed(self):
        tmp = self.tempdir()
        root = sysfs(tmp, {"panel_bl": ("raw", 1000, 800)})
        rec = os.path.join(tmp, "tap.evemu")
        tap_recording(rec)
        scene = self.scene(tmp, {"dimAfter": 1.0, "dimTo": 0.1, "offAfter": 2.0})
        d = self.daemon("--no-devices", "--sysfs-root", root, "--scene", scene, "--replay", rec, "--replay-delay", "3.5")
        c = Client(d.socket, ["gestures", "devices"])
        lines = c.until(lambda l: l["event"] == "display" and l["cause"] == "touch", timeout=20)
        self.assertEqual(displays(lines), [("on", 0.8, "subscribed"), ("dimmed", 0.1, "idle"), ("off", 0, "idle"), ("on", 0.8, "touch")])
        self.assertEqual([l for l in lines if l["event"] == "gesture"], [])          # the waking tap is no tap
        self.assertEqual(len([l for l in lines if l["event"] == "wake"]), 1)
        self.assertEqual(brightness(root), 800)
        dimmed = next(l for l in lines if l["event"] == "display" and l["state"] == "dimmed")
        self.assertEqual(list(dimmed), ["event", "time", "state", "brightness", "cause"])
        # From the last lift (the daemon's start here): 1 s to dim, 2 s to go off, on its own clock.
        off = next(l for l in lines if l["event"] == "display" and l["state"] == "off")
        self.assertAlmostEqual(off["time"] - dimmed["time"], 1.0, delta=0.05)
        self.assertIn("display: backlight panel_bl (raw, 0…1000; a slide or a dim sets at least 10)", d.text())

    def test_set_brightness_sets_the_backlight_and_what_a_touch_gives_back(self):
        tmp = self.tempdir()
        root = sysfs(tmp, {"panel_bl": ("raw", 255, 255)})
        scene = self.scene(tmp, {"offAfter": 300})
        d = self.daemon("--no-devices", "--sysfs-root", root, "--scene", scene)
        c = Client(d.socket, ["devices"])
        out = ctl("set", "brightness", "40%", "--socket", d.socket)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(brightness(root), 102)
        self.assertEqual(ctl("set", "display", "off", "--socket", d.socket).returncode, 0)
        self.assertEqual(brightness(root), 0)
        self.assertEqual(ctl("set", "display", "on", "--socket", d.socket).returncode, 0)
        self.assertEqual(brightness(root), 102)
        seen = []
        lines = c.until(lambda l: seen.append(l) or len(displays(seen)) == 4)
        self.assertEqual(displays(lines)[1:], [("on", 0.4, "command"), ("off", 0, "command"), ("on", 0.4, "command")])
        bad = ctl("set", "brightness", "0", "--socket", d.socket)
        self.assertEqual(bad.returncode, 2)
        self.assertIn("set display off", bad.stderr)

    def test_a_backlight_slider_sets_the_brightness_from_where_it_was(self):
        tmp = self.tempdir()
        root = sysfs(tmp, {"acpi_video0": ("firmware", 100, 30), "panel_bl": ("raw", 1000, 900)})
        scene = self.scene(tmp, recognizers=[{"name": "brightness", "type": "pan",
                                              "action": {"value": {"target": "backlight", "along": "y"}}}])
        # One finger from the bottom half way up the 480 pt window: + 0.5 less the pan's 10 pt hysteresis.
        rec = os.path.join(tmp, "slide.evemu")
        tbsupport.evemu_frames(rec, [{0: (2048, 3500 - i * 35)} for i in range(42)], hz=60)
        d = self.daemon("--no-devices", "--sysfs-root", root, "--scene", scene, "--replay", rec, "--replay-delay", "0.5")
        c = Client(d.socket, ["actions", "devices"])
        lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=20)
        values = [l["value"] for l in lines if l["event"] == "action" and l["action"] == "value"]
        self.assertGreater(len(values), 10)
        self.assertEqual(values, sorted(values))
        # The firmware backlight, as systemd-backlight would choose: 30 % plus the travel.
        travel = (41 * 35) / 4095 * 480 - 10
        self.assertAlmostEqual(values[-1], 0.30 + travel / 480, delta=0.01)
        self.assertEqual(open(os.path.join(root, "class/backlight/acpi_video0/brightness")).read().strip(), str(round(values[-1] * 100)))
        self.assertEqual(brightness(root), 900)                                     # the other one untouched

    def test_bind_sets_a_volume_by_the_slider_with_the_last_value_always_run(self):
        tmp = self.tempdir()
        out = os.path.join(tmp, "volume")
        scene = self.scene(tmp, recognizers=[{"name": "volume", "type": "pan", "action": {"value": {"from": 0, "to": 1.5}}}])
        rec = os.path.join(tmp, "slide.evemu")
        tbsupport.evemu_frames(rec, [{0: (2048, 3500 - i * 35)} for i in range(42)], hz=120)
        d = self.daemon("--no-devices", "--scene", scene, "--replay", rec, "--replay-delay", "1.0")
        # A slow command (50 ms, slower than the frames): values that come while it runs wait, the last wins.
        b = subprocess.Popen([CTL, "bind", "--socket", d.socket, "-g",
                              "volume=/bin/sh -c 'sleep 0.05; echo $TOUCHBRIDGE_VALUE >> " + out + "'"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            c = Client(d.socket, ["actions", "devices"])
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=20)
            values = [l["value"] for l in lines if l["event"] == "action"]
            self.assertTrue(wait_for(lambda: os.path.exists(out) and open(out).read().split()[-1:] == [str(values[-1])], timeout=10),
                            open(out).read() if os.path.exists(out) else "nothing ran")
            ran = [float(v) for v in open(out).read().split()]
            self.assertLess(len(ran), len(values))                                  # coalesced
            self.assertEqual(ran, sorted(ran))                                       # never out of order
        finally:
            b.terminate()
            b.wait(10)

    def test_replay_prints_the_display_lines_and_the_values_at_their_times(self):
        tmp = self.tempdir()
        rec = os.path.join(tmp, "tap.evemu")
        tap_recording(rec, at=0.5)
        scene = self.scene(tmp, {"dimAfter": 60, "dimTo": 0.2, "offAfter": 90},
                           recognizers=[{"name": "tap", "type": "tap"}])
        out = subprocess.run([CTL, "replay", "--scene", scene, rec], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(l) for l in out.stdout.splitlines()]
        shown = displays(lines)
        self.assertEqual(shown, [("dimmed", 0.2, "idle"), ("off", 0, "idle")])
        lift = 0.5 + 4 / 60
        times = [l["time"] for l in lines if l["event"] == "display"]
        self.assertAlmostEqual(times[0] - lift, 60, delta=0.02)
        self.assertAlmostEqual(times[1] - lift, 90, delta=0.02)
        again = subprocess.run([CTL, "replay", "--scene", scene, rec], capture_output=True, text=True, timeout=60)
        self.assertEqual(again.stdout, out.stdout)


class TouchpadReplayTests(TestCase):
    def test_replay_prints_each_touchpad_frame_and_the_lift_the_same_every_time(self):
        scene = os.path.join(ROOT, "scenes", "gnome.json")
        swipe = os.path.join(FIXTURES, "synthetic__panel__3fg-swipe-left.evemu")
        runs = [subprocess.run([CTL, "replay", "--scene", scene, "--actions", swipe], capture_output=True, text=True, timeout=60)
                for _ in range(2)]
        self.assertEqual(runs[0].returncode, 0, runs[0].stderr)
        self.assertEqual(runs[0].stdout, runs[1].stdout)
        lines = [json.loads(l) for l in runs[0].stdout.splitlines()]
        pad = [l for l in lines if l["event"] == "action" and l["action"] == "touchpad"]
        self.assertEqual([len(l["fingers"]) for l in pad[:-1]], [3] * (len(pad) - 1))
        self.assertEqual(pad[-1]["fingers"], [])
        self.assertEqual((pad[0]["state"], pad[-1]["state"]), ("began", "ended"))
        # Leftwards by the pan's travel after it began (from the step after the landing), at GNOME's
        # default scale: 800 units of libinput's (10.52 a mm) across the 1280 pt window.
        pan = [l for l in lines if l["event"] == "gesture" and l["recognizer"] == "workspaces"]
        travel = pan[-1]["translation"]["x"] - pan[0]["translation"]["x"]
        moved = pad[-2]["fingers"][0][0] - pad[1]["fingers"][0][0]
        self.assertAlmostEqual(moved, travel * (800 / (1000 / 25.4 * 0.2968 * 0.9)) / 1280, delta=0.03)
        # The fingers lift no sooner than 250 ms after they landed.
        self.assertGreaterEqual(pad[-1]["time"] - pad[0]["time"], 0.25 - 1e-6)


if __name__ == "__main__":
    unittest.main()
