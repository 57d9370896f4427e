#!/usr/bin/env python3
"""Pass-through without a kernel (the lab has the rest): replay --mirror, the built-in pass-through
scene, a mirror that cannot be made, a replay cut mid-gesture."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)


class PassthroughTests(TestCase):
    TRANSPARENT = {"window": {"width": 800, "height": 480}, "views": []}

    def test_replay_mirror_writes_a_recording_that_gives_back_the_touches_and_the_same_bytes_twice(self):
        tmp = self.tempdir()
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
        tmp = self.tempdir()
        path = os.path.join(tmp, "pt.json")
        with open(path, "w") as f:
            f.write(out)
        check = subprocess.run([CTL, "scene", "check", path], capture_output=True, text=True)
        self.assertEqual(check.returncode, 0, check.stderr)

    def test_pass_through_that_cannot_make_its_mirror_says_why_and_keeps_serving(self):
        d = self.daemon("--no-devices", "--passthrough", "--replay", TAPS, "--replay-delay", "0.3")
        c = Client(d.socket, ["gestures", "devices"])
        lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=20)
        self.assertEqual(len([l for l in lines if l["event"] == "gesture"]), 5)
        log = d.text()
        if os.access("/dev/uinput", os.W_OK):
            self.assertRegex(log, r"pass-through: replay .* → mirror /dev/input/event\d+")
        else:
            self.assertIn("pass-through for the replay of " + TAPS + " is off: /dev/uinput", log)
            self.assertTrue("modprobe uinput" in log or "usermod -aG uinput" in log, log)

    def test_a_replay_cut_mid_gesture_ends_like_an_unplug(self):
        tmp = self.tempdir()
        cut = cut_recording(SCROLL, tmp, 0.4)           # two fingers down, the pan running
        offline_lines = offline(cut, "--touches")
        self.assertEqual([l["state"] for l in offline_lines if l["event"] == "gesture"][-1], "cancelled")
        d = self.daemon("--no-devices", "--replay", cut, "--replay-delay", "0.3")
        c = Client(d.socket, ["gestures", "touches", "devices"])
        lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed", timeout=20)
        touches = [l for l in lines if l["event"] == "touch"]
        began = {l["id"] for l in touches if l["phase"] == "began"}
        done = {l["id"] for l in touches if l["phase"] in ("ended", "cancelled")}
        self.assertEqual(began, done)
        self.assertEqual([l["phase"] for l in touches][-2:], ["cancelled", "cancelled"])
        same_gestures(self, [l for l in lines if l["event"] != "device"], offline_lines)


if __name__ == "__main__":
    from run import main
    main(["test_passthrough"])
