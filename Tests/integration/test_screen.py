#!/usr/bin/env python3
"""Screen-aware (README "Screen-aware") through the binaries: `set display off|on` and the wake lines,
`bind` on `wake`, the kiosk scene (one finger at a time for the app, an operator gesture)."""
import json
import os
import subprocess
import sys

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
        bindings = os.path.join(tmp, "bind.json")
        with open(bindings, "w") as f:
            json.dump({"wake": ["/bin/sh", "-c", 'printf "%s %s" "$TOUCHBRIDGE_X" "$TOUCHBRIDGE_STATE" > ' + marker]}, f)
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


if __name__ == "__main__":
    import unittest
    unittest.main()
