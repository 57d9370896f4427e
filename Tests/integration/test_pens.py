#!/usr/bin/env python3
"""Pens through the real binaries (docs/pens.md): `touchbridgectl replay --together FINGERS PEN`,
`touchbridged --replay … --replay-together` giving the same lines live, a pen refused as a mirror, and
the scene keys of pens (hover, pencilButtons, palmRejection) with their errors."""
import json
import os
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)

PEN = os.path.join(FIXTURES, "evemu-devices__wacom-cintiq-13hd-pen__hover-strokes.evemu")
FINGER = os.path.join(FIXTURES, "evemu-devices__wacom-cintiq-13hd-finger__1fg-touch.evemu")
CANVAS = {
    "window": {"width": 1280, "height": 720},
    "devices": [{"name": "Wacom Cintiq 13HD touch Finger"}, {"name": "Wacom Cintiq 13HD touch Pen"}],
    "views": [{"name": "canvas", "frame": [0, 0, 1280, 720], "recognizers": [
        {"name": "near", "type": "hover"},
        {"name": "ink", "type": "pan", "allowedTouchTypes": ["pencil"]},
        {"name": "hold", "type": "longPress", "allowedTouchTypes": ["direct"], "minimumPressDuration": 0.1}]}],
}


def replay(*args):
    out = subprocess.run([CTL, "replay"] + list(args), capture_output=True, text=True, timeout=60)
    return out, [json.loads(l) for l in out.stdout.splitlines()]


class PenTests(TestCase):
    def scene(self, scene=CANVAS):
        path = os.path.join(self.tempdir(), "canvas.json")
        with open(path, "w") as f:
            json.dump(scene, f)
        return path

    def test_replay_together_cancels_the_finger_the_pen_came_near_and_draws(self):
        scene = self.scene()
        out, lines = replay("--together", "--touches", "--scene", scene, FINGER, PEN)
        self.assertEqual(out.returncode, 0, out.stderr)
        touches = [(l["device"], l["type"], l["phase"]) for l in lines if l["event"] == "touch"]
        # The finger (device 0) lands as the pen (device 1) comes in range: a palm, cancelled at once.
        self.assertEqual(touches[:2], [(0, "direct", "began"), (0, "direct", "cancelled")])
        self.assertFalse([t for t in touches[2:] if t[0] == 0])
        self.assertEqual([t for t in touches if t[0] == 1 and t[2] == "began"], [(1, "pencil", "began")] * 2)
        gestures = [(l["recognizer"], l["state"]) for l in lines if l["event"] == "gesture" and l["state"] != "changed"]
        self.assertNotIn(("hold", "began"), gestures)                 # the palm never long-presses
        self.assertEqual([g for g in gestures if g[0] == "ink"], [("ink", "began"), ("ink", "ended")] * 2)
        self.assertEqual(len([g for g in gestures if g == ("near", "began")]), 3)
        # Alone, the same finger long-presses.
        out, alone = replay("--scene", scene, FINGER)
        self.assertIn(("hold", "began"), [(l["recognizer"], l["state"]) for l in alone])

    def test_touchbridged_replay_together_gives_the_lines_of_the_offline_replay(self):
        scene = self.scene()
        _, expected = replay("--together", "--touches", "--scene", scene, FINGER, PEN)
        d = Daemon("--no-devices", "--scene", scene, "--replay", FINGER, "--replay", PEN, "--replay-together", "--replay-delay", "0.3")
        try:
            c = Client(d.socket, ["gestures", "touches", "devices"])
            seen = c.until(lambda l: l["event"] == "device" and l["action"] == "removed" and l["device"] == 1, timeout=20)
            live = [l for l in seen if l["event"] in ("gesture", "touch")]
            c.close()
        finally:
            d.stop()
        self.assertIsNone(tbsupport.compare_lines(live, [l for l in expected if l["event"] in ("gesture", "touch")]))
        out = subprocess.run([DAEMON, "--replay", PEN, "--replay-together"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--replay-together plays several recordings at once", out.stderr)

    def test_a_pen_is_never_mirrored_and_together_needs_two(self):
        out, _ = replay("--mirror", os.path.join(self.tempdir(), "m.evemu"), PEN)
        self.assertEqual(out.returncode, 1)
        self.assertIn('"Wacom Cintiq 13HD touch Pen" is a pen: pens are never mirrored', out.stderr)
        out, _ = replay("--together", PEN)
        self.assertEqual(out.returncode, 2)
        self.assertIn("--together plays several recordings at once: name two or more", out.stderr)
        # With the finger panel, the mirror is the panel's: the palm shows as MT_TOOL_PALM before its lift.
        scene = self.scene(dict(CANVAS, devices=[dict(d, passthrough=True) for d in CANVAS["devices"]]))
        mirror = os.path.join(self.tempdir(), "mirror.evemu")
        out, _ = replay("--together", "--scene", scene, "--mirror", mirror, FINGER, PEN)
        self.assertEqual(out.returncode, 0, out.stderr)
        with open(mirror) as f:
            text = f.read()
        self.assertIn('N: Wacom Cintiq 13HD touch Finger', text)
        events = [l.split()[2:5] for l in text.splitlines() if l.startswith("E:")]
        self.assertIn(["0003", "0037", "2"], [[t, c, str(int(v))] for t, c, v in events])     # ABS_MT_TOOL_TYPE = MT_TOOL_PALM

    def pen_with_buttons(self):
        """The 13HD pen hovering, its lower barrel button pressed and released, then its upper one."""
        path = os.path.join(self.tempdir(), "buttons.evemu")
        with open(PEN) as f:
            header = [l for l in f if not l.startswith("E:")]
        events = ["0.10 0003 0000 20000", "0.10 0003 0001 12000", "0.10 0003 0019 30", "0.10 0001 0140 1", "0.10 0000 0000 0",
                  "0.20 0001 014b 1", "0.20 0000 0000 0", "0.30 0001 014b 0", "0.30 0000 0000 0",
                  "0.40 0003 0000 20400", "0.40 0001 014c 1", "0.40 0000 0000 0", "0.50 0001 014c 0", "0.50 0000 0000 0",
                  "0.60 0001 0140 0", "0.60 0000 0000 0"]
        with open(path, "w") as f:
            f.writelines(header)
            f.writelines("E: {} {} {} {}\n".format(*e.split()[:3], int(e.split()[3])) for e in events)
        return path

    def test_barrel_buttons_are_pencil_lines_and_bind_runs_them(self):
        rec = self.pen_with_buttons()
        out, lines = replay(rec)
        self.assertEqual(out.returncode, 0, out.stderr)
        pencil = [(l["button"], l["state"], l["time"]) for l in lines if l["event"] == "pencil"]
        self.assertEqual(pencil, [(1, "pressed", 0.2), (1, "released", 0.3), (2, "pressed", 0.4), (2, "released", 0.5)])
        tmp = self.tempdir()
        marker = os.path.join(tmp, "pressed")
        bindings = self.json_file(tmp, "bind.json", {"pencil1": ["/bin/sh", "-c", 'printf "%s %s" "$TOUCHBRIDGE_RECOGNIZER" "$TOUCHBRIDGE_STATE" >> ' + marker],
                                                     "pencil2:released": ["/bin/sh", "-c", 'printf " %s %s" "$TOUCHBRIDGE_RECOGNIZER" "$TOUCHBRIDGE_STATE" >> ' + marker]})
        d = self.daemon("--no-devices", "--replay", rec, "--replay-delay", "2.5")   # bind connects first
        b = subprocess.Popen([CTL, "bind", bindings, "--socket", d.socket], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            ok = wait_for(lambda: os.path.exists(marker) and "pencil2" in open(marker).read(), timeout=15)
            if not ok:
                b.terminate()
                self.fail("bind: {!r}; marker: {!r}".format(b.stderr.read(), open(marker).read() if os.path.exists(marker) else None))
            time.sleep(0.3)
            self.assertEqual(open(marker).read(), "pencil1 pressed pencil2 released")
        finally:
            b.terminate()
            b.wait(10)
        self.assertNotIn("has no recognizer", b.stderr.read())    # pencil1 and pencil2 are the daemon's lines

    def test_scene_keys_of_pens_and_their_errors(self):
        ok = self.scene(dict(CANVAS, pencilButtons={"1": {"click": "right"}, "2": {"keys": "ctrl+z"}},
                             devices=[{"name": "*", "palmRejection": False}]))
        out = ctl("scene", "check", ok)
        self.assertEqual(out.returncode, 0, out.stderr)
        warned = self.scene(dict(CANVAS, views=[{"name": "v", "frame": [0, 0, 10, 10], "recognizers": [
            {"name": "near", "type": "hover"}, {"name": "tap", "type": "tap", "requireToFail": ["near"]}]}]))
        out = ctl("scene", "check", warned)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("requireToFail[0]: a hover follows the pencil outside touch sequences and never fails or waits", out.stderr)
        for bad, message in [
            (dict(CANVAS, pencilButtons={"3": {"click": "right"}}), 'pencilButtons.3: unknown key "3"'),
            (dict(CANVAS, pencilButtons={"1": {"scroll": {}}}), 'pencilButtons.1.scroll: unknown key "scroll"'),
            (dict(CANVAS, views=[{"name": "v", "frame": [0, 0, 10, 10], "recognizers": [
                {"name": "h", "type": "hover", "allowedTouchTypes": ["direct"]}]}]), 'leaves out "pencil": this hover never follows anything'),
            (dict(CANVAS, devices=[{"name": "*", "palmRejection": "no"}]), "devices[0].palmRejection: must be true or false"),
        ]:
            out = ctl("scene", "check", self.scene(bad))
            self.assertEqual(out.returncode, 1, bad)
            self.assertIn(message, out.stderr)


if __name__ == "__main__":
    unittest.main()
