#!/usr/bin/env python3
"""Actions (README "Actions") through the binaries: `replay --actions` on the fixtures, deterministic
and with the coasting after a lift; the ready-made desktop scenes; the daemon without /dev/uinput or
with --no-actions still serving gestures; `listen --actions`."""
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)

SWIPE_LEFT = os.path.join(FIXTURES, "synthetic__panel__3fg-swipe-left.evemu")
PINCH_OUT = os.path.join(FIXTURES, "synthetic__panel__2fg-pinch-out.evemu")
SCENES = os.path.join(ROOT, "scenes")


def replay_actions(scene, recording):
    out = subprocess.run([CTL, "replay", "--actions", "--scene", scene, recording], capture_output=True, text=True, timeout=60)
    if out.returncode != 0:
        raise AssertionError(out.stderr)
    return [json.loads(l) for l in out.stdout.splitlines()]


class ActionTests(TestCase):
    def scene(self, recognizers, **top):
        path = os.path.join(self.tempdir(), "actions.json")
        with open(path, "w") as f:
            json.dump(dict({"window": {"width": 1280, "height": 800},
                            "views": [{"name": "screen", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": True,
                                       "recognizers": recognizers}]}, **top), f)
        return path

    def test_desktop_scenes_play_a_three_finger_swipe_as_the_desktops_own(self):
        # GNOME and KDE animate touchpad swipes: three fingers on the panel are played on the touchpad,
        # as GNOME's three and KWin's four (docs/actions.md, "Touchpad"); sway animates none: keys.
        for desktop, fingers in (("gnome", 3), ("kde", 4)):
            lines = replay_actions(os.path.join(SCENES, desktop + ".json"), SWIPE_LEFT)
            pad = [l for l in lines if l["event"] == "action"]
            self.assertTrue(pad and all(l["action"] == "touchpad" and l["recognizer"] in ("workspaces", "desktops") for l in pad), desktop)
            self.assertEqual({len(l["fingers"]) for l in pad[:-1]}, {fingers}, desktop)
            self.assertEqual((pad[-1]["fingers"], pad[-1]["state"]), ([], "ended"), desktop)
            self.assertLess(pad[-2]["fingers"][0][0], pad[1]["fingers"][0][0], desktop)        # leftwards
        expected = {"sway": ("super+Right", ["KEY_LEFTMETA", "KEY_RIGHT"])}
        for desktop, (keys, codes) in expected.items():
            scene = os.path.join(SCENES, desktop + ".json")
            lines = replay_actions(scene, SWIPE_LEFT)
            actions = [l for l in lines if l["event"] == "action"]
            self.assertEqual(len(actions), 1, (desktop, lines))
            a = actions[0]
            self.assertEqual((a["action"], a["keys"], a["codes"], a["state"]), ("keys", keys, codes, "recognized"), desktop)
            # The action line follows its gesture line.
            g = [i for i, l in enumerate(lines) if l["event"] == "gesture" and l["recognizer"] == a["recognizer"]]
            self.assertEqual(g[0] + 1, lines.index(a))

    def test_desktop_scenes_edge_swipes_follow_the_focused_app(self):
        # A finger from the left edge inward (0.3 s): "back" in a browser, the previous tab in a terminal,
        # nothing in a drawing app (it gets every touch); the same with no focus known as in a browser.
        edge = os.path.join(self.tempdir(), "left-edge.evemu")
        tbsupport.evemu_frames(edge, [{0: (8 + 1500 * i / 72, 2048)} for i in range(72)])
        terminals = {"gnome": ("org.gnome.Console", "ctrl+Page_Up"), "kde": ("org.kde.konsole", "shift+Left"),
                     "sway": ("kitty", "ctrl+shift+Left")}
        for desktop, (terminal, tab) in terminals.items():
            scene = os.path.join(SCENES, desktop + ".json")
            for focus, expected in ((None, [("back", "alt+Left")]), ("firefox", [("back", "alt+Left")]),
                                    (terminal, [("previousTab", tab)]), ("org.kde.krita", [])):
                args = ["replay", "--actions", "--scene", scene] + (["--focus", focus] if focus else []) + [edge]
                out = subprocess.run([CTL] + args, capture_output=True, text=True, timeout=60)
                self.assertEqual(out.returncode, 0, out.stderr)
                actions = [(l["recognizer"], l["keys"]) for l in map(json.loads, out.stdout.splitlines()) if l["event"] == "action"]
                self.assertEqual(actions, expected, (desktop, focus))

    def test_scroll_follows_the_translation_and_coasts_deterministically(self):
        scene = self.scene([{"name": "scroll", "type": "pan", "minimumNumberOfTouches": 2,
                             "action": {"scroll": {"pointsPerNotch": 50}}}])
        lines = replay_actions(scene, SCROLL)
        self.assertEqual(lines, replay_actions(scene, SCROLL))                  # deterministic, coasting included
        gestures = [l for l in lines if l["event"] == "gesture"]
        scrolls = [l for l in lines if l["event"] == "action"]
        self.assertTrue(all(l["action"] == "scroll" for l in scrolls))
        following = [l for l in scrolls if l["state"] != "coasting"]
        coasting = [l for l in scrolls if l["state"] == "coasting"]
        # Natural scrolling: fingers moving down scroll up (positive dy, REL_WHEEL's up), fingers moving up
        # (this recording's) scroll down; the hi-res units written while the fingers were down are the
        # translation from began to the end, at 120 per 50 pt.
        began = next(l for l in gestures if l["state"] == "began")["translation"]["y"]
        end = [l for l in gestures if l["state"] in ("changed", "ended")][-1]["translation"]["y"]
        dy = sum(l["dy"] for l in following)
        self.assertLess(end - began, -100)
        self.assertLess(dy, 0)
        self.assertLessEqual(abs(dy - (end - began) * 120 / 50), 1)
        self.assertTrue(coasting, "no coasting after the lift")
        self.assertTrue(all(c["time"] > following[-1]["time"] for c in coasting))
        # Sideways, the content follows the finger too: a finger moving right scrolls left (negative dx).
        began_x = next(l for l in gestures if l["state"] == "began")["translation"]["x"]
        end_x = [l for l in gestures if l["state"] in ("changed", "ended")][-1]["translation"]["x"]
        self.assertLessEqual(abs(sum(l["dx"] for l in following) + (end_x - began_x) * 120 / 50), 1)
        # UIScrollView's normal deceleration: 499 ms of the lift velocity, in all.
        velocity = [l for l in gestures if l["state"] == "ended"][-1]["velocity"]["y"]
        self.assertLessEqual(abs(sum(l["dy"] for l in coasting) - velocity * 0.499 * 120 / 50), 2)

    def test_a_pinch_zooms_in_notches(self):
        scene = self.scene([{"name": "zoom", "type": "pinch", "action": {"zoom": {"step": 1.1}}}])
        lines = replay_actions(scene, PINCH_OUT)
        zooms = [l for l in lines if l["event"] == "action"]
        scale = [l for l in lines if l["event"] == "gesture"][-1]["scale"]
        import math
        self.assertEqual(sum(l["notches"] for l in zooms), int(math.log(scale) / math.log(1.1)))
        self.assertTrue(zooms and all(l["notches"] > 0 for l in zooms))

    def test_a_layout_decides_the_codes(self):
        scene = self.scene([{"name": "undo", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
                             "action": {"keys": ["ctrl+z", "at"]}}], keyboard={"layout": "de"})
        actions = [l for l in replay_actions(scene, SWIPE_LEFT) if l["event"] == "action"]
        self.assertEqual([a["codes"] for a in actions], [["KEY_LEFTCTRL", "KEY_Y"], ["KEY_RIGHTALT", "KEY_Q"]])

    def test_scene_check_names_a_bad_action(self):
        scene = self.scene([{"name": "t", "type": "tap", "action": {"keys": "ctrl+Lefft"}}])
        out = subprocess.run([CTL, "scene", "check", scene], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn('views[0].recognizers[0].action.keys: unknown key "Lefft" (did you mean "Left"?)', out.stderr)

    def test_the_daemon_serves_gestures_when_actions_cannot_or_may_not_run(self):
        scene = self.scene([{"name": "menu", "type": "longPress", "action": {"click": "right"}},
                            {"name": "swipe", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
                             "action": {"keys": "super+Page_Down"}}])
        for extra in ([], ["--no-actions"]):
            d = self.daemon("--no-devices", "--scene", scene, "--replay", SWIPE_LEFT, "--replay-delay", "0.3", *extra)
            c = Client(d.socket, ["gestures", "devices", "actions"])
            lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
            self.assertIn("swipe", [l.get("recognizer") for l in lines if l["event"] == "gesture"])
            text = d.text()
            if extra:
                self.assertIn("--no-actions: the scene's 2 actions are not performed", text)
                self.assertNotIn("action", [l["event"] for l in lines])
            elif not os.access("/dev/uinput", os.W_OK):
                self.assertIn("actions are off: /dev/uinput", text)
                self.assertNotIn("action", [l["event"] for l in lines])
            else:
                # Real action devices: the line says what was written, and the apps also saw the swipe.
                self.assertIn("actions without pass-through", text)
                self.assertIn("action", [l["event"] for l in lines])
            d.stop()

    def test_listen_and_replay_offer_actions(self):
        for cmd in (["listen", "--help"], ["replay", "--help"]):
            out = subprocess.run([CTL] + cmd, capture_output=True, text=True)
            self.assertIn("--actions", out.stdout + out.stderr)
        out = subprocess.run([DAEMON, "--help"], capture_output=True, text=True)
        self.assertIn("--no-actions", out.stdout)


if __name__ == "__main__":
    import unittest
    unittest.main()
