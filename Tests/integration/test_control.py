#!/usr/bin/env python3
"""Protocol 2's live control: the recognizers and scene topics, set, scene, who may send them, and
the examples built on them."""
import json
import os
import signal
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)


class LiveControlTests(TestCase):
    """Protocol 2: the recognizers and scene topics, set, scene, and who may send them."""
    def test_disabling_double_tap_lets_tap_fire_at_once_and_enabling_brings_it_back(self):
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay", TAPS, "--replay-delay", "1")
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

    def test_disabling_a_pan_mid_gesture_cancels_it(self):
        d = self.daemon("--no-devices", "--replay", DRAGS, "--replay-delay", "0.5")
        c = Client(d.socket, ["gestures", "recognizers"])
        c.until(lambda l: l["event"] == "gesture" and l["recognizer"] == "pan" and l["state"] == "changed")
        c.send({"set": {"recognizers": ["pan"], "enabled": False}})
        lines = c.until(lambda l: l["event"] == "ok")
        gestures = [l for l in lines if l["event"] == "gesture" and l["recognizer"] == "pan"]
        transitions = [l for l in lines if l["event"] == "recognizer" and l["recognizer"] == "pan"]
        self.assertEqual(gestures[-1]["state"], "cancelled")
        self.assertEqual((transitions[-1]["from"], transitions[-1]["to"], transitions[-1]["reason"]),
                         ("changed", "cancelled", "disabled"))
        # The recording's next touch sequence, from its first finger to its reset, makes no pan at all.
        between = c.until(lambda l: l["event"] == "recognizer" and l["cause"] == "touchesBegan", timeout=20)
        between += c.until(lambda l: l["event"] == "recognizer" and l.get("reason") == "touch sequence ended", timeout=20)
        c.send({"set": {"recognizers": ["pan"], "enabled": True}})
        later = c.until(lambda l: l["event"] == "ok")
        self.assertEqual([l for l in between + later if l["event"] == "gesture" and l["recognizer"] == "pan"], [])
        again = c.until(lambda l: l["event"] == "gesture" and l["recognizer"] == "pan", timeout=20)
        self.assertEqual(again[-1]["state"], "began")

    def test_rotation_changes_the_mapping_of_the_next_touch_sequence_only(self):
        expected = drags_by_touch(offline(DRAGS, "--touches"))
        d = self.daemon("--no-devices", "--replay", DRAGS, "--replay-delay", "0.5")
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

    def test_a_client_scene_fires_its_own_gestures_under_its_prefix_and_vanishes_on_disconnect(self):
        tmp = self.tempdir()
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay", TAPS, "--replay-delay", "1.5")
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

    def test_a_recognizers_subscriber_that_comes_mid_gesture_gets_every_state_first(self):
        hold = os.path.join(FIXTURES, "evemu-devices__atmel-maxtouch-ts__2fg-press-hold-release.evemu")
        d = self.daemon("--no-devices", "--replay", hold, "--replay-delay", "0.3")
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

    def test_the_locker_example_switches_edges_off_while_a_locker_runs(self):
        d = self.daemon("--no-devices", "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.2")
        c = Client(d.socket, ["scene", "devices"])
        c.next()
        # The locker runs with the edges off; they are on again once it exits.
        env = dict(os.environ, TOUCHBRIDGECTL=CTL, TOUCHBRIDGE_SOCKET=d.socket)
        locker = subprocess.Popen([os.path.join(ROOT, "examples", "lock-screen-edges.sh"), "sleep", "1"], env=env)
        edges = lambda l: [r["enabled"] for v in l["scene"]["views"] for r in v.get("recognizers", [])
                           if r["name"].startswith("edge")]
        self.assertEqual(edges(c.until(lambda l: l["event"] == "scene")[-1]), [False] * 4)
        self.assertEqual(locker.wait(10), 0)
        self.assertEqual(edges(c.until(lambda l: l["event"] == "scene")[-1]), [True] * 4)

    @unittest.skipUnless(os.geteuid() == 0, "needs root to run a client as another user")
    def test_another_user_who_may_connect_is_refused_control_unless_in_the_control_group(self):
        for args, permitted in (((), False), (("--control-group", "nogroup"), True)):
            d = self.daemon("--no-devices", "--socket-group", "nogroup", *args)
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
            self.assertIsNone(listen.poll(), "the other user may still subscribe")
            listen.kill()
            listen.wait()
        with self.assertRaises(RuntimeError):
            Daemon("--no-devices", "--control-group", "no-such-group-here")


if __name__ == "__main__":
    from run import main
    main(["test_control"])
