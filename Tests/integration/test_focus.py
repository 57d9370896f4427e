"""Per-app recognizers (docs/focus.md) through the real binaries: `touchbridgectl replay --focus` and
`--focus-at` make a per-app scene testable offline, and `scene check` reads the keys."""
import socket
import subprocess
import time

from common import *  # noqa: F401,F403

SCENE = {
    "window": {"width": 1280, "height": 800},
    "views": [{"name": "screen", "frame": [0, 0, 1280, 800], "recognizers": [
        {"name": "browserTap", "type": "tap", "apps": ["firefox", "org.mozilla.*"]},
        {"name": "terminalTap", "type": "tap", "apps": ["foot"]},
        {"name": "otherTap", "type": "tap", "exceptApps": ["firefox", "org.mozilla.*", "foot"]}]}],
}


class FocusTests(TestCase):
    def scene(self):
        path = os.path.join(self.tempdir(), "apps.json")
        with open(path, "w") as f:
            json.dump(SCENE, f)
        return path

    def replay(self, *args):
        out = subprocess.run([CTL, "replay", "--scene", self.scene()] + list(args) + [TAPS], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        return [(l["recognizer"], round(l["time"], 2)) for l in map(json.loads, out.stdout.splitlines())]

    def test_each_app_gets_its_own_recognizer(self):
        self.assertEqual({r for r, _ in self.replay()}, {"otherTap"}, "no focus known: only the exceptApps one")
        self.assertEqual({r for r, _ in self.replay("--focus", "Firefox")}, {"browserTap"}, "an X11 class, case folded")
        self.assertEqual({r for r, _ in self.replay("--focus", "org.mozilla.firefox")}, {"browserTap"})
        self.assertEqual({r for r, _ in self.replay("--focus", "foot")}, {"terminalTap"})

    def test_focus_at_changes_it_between_touches(self):
        taps = self.replay("--focus", "firefox", "--focus-at", "0.6=foot", "--focus-at", "1.3=")
        first = taps[0][1]
        self.assertEqual(len(taps), 9)
        for name, t in taps:
            want = "browserTap" if t - first < 0.5 else "terminalTap" if t - first < 1.2 else "otherTap"
            self.assertEqual(name, want, taps)
        out = ctl("replay", "--focus-at", "soon=foot", TAPS)
        self.assertEqual(out.returncode, 2)
        self.assertIn("give T=APP", out.stderr)

    def test_scene_check_names_an_empty_pattern(self):
        bad = dict(SCENE, views=[dict(SCENE["views"][0], recognizers=[{"name": "t", "type": "tap", "apps": ["firefox", ""]}])])
        path = os.path.join(self.tempdir(), "bad.json")
        with open(path, "w") as f:
            json.dump(bad, f)
        out = ctl("scene", "check", path)
        self.assertEqual(out.returncode, 1)
        self.assertIn("views[0].recognizers[0].apps[1]: must not be empty", out.stderr)


class PassthroughAppTests(TestCase):
    APPS = {"window": {"width": 1280, "height": 800},
            "devices": [{"name": "*", "passthrough": True, "passthroughApps": ["krita", "org.kde.krita"]}],
            "views": [{"name": "screen", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": True, "recognizers": [
                {"name": "back", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
                 "apps": ["firefox"], "action": {"keys": "alt+Left"}},
                {"name": "prevTab", "type": "swipe", "direction": ["left"], "numberOfTouchesRequired": 3,
                 "apps": ["foot"], "action": {"keys": "ctrl+Page_Up"}}]}]}

    def test_scene_check_lists_what_follows_the_focus(self):
        path = self.json_file(self.tempdir(), "apps.json", self.APPS)
        out = ctl("scene", "check", path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.splitlines()[1:], [
            "  recognizer back: only while firefox is focused",
            "  recognizer prevTab: only while foot is focused",
            "  devices[0]: every touch to the app, no recognizer, while krita, org.kde.krita is focused"])
        off = self.json_file(self.tempdir(), "off.json", dict(self.APPS, devices=[{"name": "*", "passthroughApps": ["krita"]}]))
        self.assertIn("warning: " + off + ": devices[0].passthroughApps: pass-through is off for this device, so there is nothing to pass through",
                      ctl("scene", "check", off).stderr)

    def test_three_swipes_fire_each_apps_action_then_none_and_the_mirror_hears_the_drawing_apps_touches(self):
        tmp = self.tempdir()
        recording = os.path.join(tmp, "three-swipes.evemu")
        swipe = tbsupport.swipe_frames()
        tbsupport.evemu_frames(recording, swipe + [{}] * 240 + swipe + [{}] * 240 + swipe)     # one a second
        scene = self.json_file(tmp, "apps.json", self.APPS)
        mirror = os.path.join(tmp, "mirror.evemu")
        out = subprocess.run([CTL, "replay", "--actions", "--touches", "--scene", scene, "--mirror", mirror, "--focus", "firefox",
                              "--focus-at", "0.6=foot", "--focus-at", "1.6=org.kde.krita", recording],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(l) for l in out.stdout.splitlines()]
        self.assertEqual([(l["recognizer"], l["keys"]) for l in lines if l["event"] == "action"],
                         [("back", "alt+Left"), ("prevTab", "ctrl+Page_Up")], "the firefox swipe, the foot swipe, none in krita")
        third = [l for l in lines if l["event"] == "touch" and l["time"] - lines[0]["time"] > 1.5]
        self.assertEqual({l["phase"] for l in third}, {"began", "moved", "ended"})
        # The mirror: the first two swipes' touches cancelled when the swipes claimed them; the third's
        # passed through whole, every move, and lifted.
        events = [l.split()[1:] for l in open(mirror) if l.startswith("E:")]
        begin = [float(e[0]) for e in events if e[1:3] == ["0003", "0039"] and int(e[3]) >= 0]
        self.assertEqual(len(begin), 9, "three fingers down three times")
        last = [e for e in events if float(e[0]) >= begin[6]]
        moves = [e for e in last if e[1:3] == ["0003", "0035"]]
        self.assertGreaterEqual(len(moves), len(swipe) - 1, "the drawing app got every move of the third swipe")
        self.assertEqual(sum(1 for e in last if e[1:3] == ["0003", "0039"] and int(e[3]) == -1), 3, "and every lift")
        self.assertNotIn((0x37, 2), [(int(e[2], 16), int(e[3])) for e in last if e[1] == "0003"], "no touch of it turned into a palm (cancelled)")


class LiveFocusTests(TestCase):
    def test_set_focus_picks_the_apps_recognizer_and_the_topic_says_it(self):
        path = os.path.join(self.tempdir(), "apps.json")
        with open(path, "w") as f:
            json.dump(SCENE, f)
        d = self.daemon("--no-devices", "--scene", path, "--replay", TAPS, "--replay-delay", "2.5")
        watcher = Client(d.socket, topics=["focus", "gestures"])
        first = watcher.until(lambda l: l["event"] == "focus")[-1]
        self.assertIsNone(first["app"], "a new subscriber is told the current focus: none yet")
        out = ctl("set", "focus", "--app", "foot", "--title", "~", "--socket", d.socket)
        self.assertEqual(out.returncode, 0, out.stderr)
        told = watcher.until(lambda l: l["event"] == "focus")[-1]
        self.assertEqual((told["app"], told["title"], told["source"]), ("foot", "~", "touchbridgectl"))
        watcher.pump(4)
        self.assertEqual({g["recognizer"] for g in watcher.of("gesture")}, {"terminalTap"})
        self.assertIn("focus: foot (touchbridgectl)", d.text())

    def test_a_followers_focus_goes_with_its_connection(self):
        d = self.daemon("--no-devices")
        watcher = Client(d.socket, topics=["focus"])
        watcher.until(lambda l: l["event"] == "focus")
        follower = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        follower.connect(d.socket)
        follower.sendall(b'{"set":{"focus":{"app":"firefox","source":"sway","whileConnected":true}}}\n')
        self.assertEqual(watcher.until(lambda l: l["event"] == "focus")[-1]["app"], "firefox")
        follower.close()
        cleared = watcher.until(lambda l: l["event"] == "focus")[-1]
        self.assertIsNone(cleared["app"])
        self.assertTrue(wait_for(lambda: "focus cleared: the sway follower went away" in d.text()))
        # A script's focus stays after its connection.
        self.assertEqual(ctl("set", "focus", "--app", "foot", "--socket", d.socket).returncode, 0)
        self.assertEqual(watcher.until(lambda l: l["event"] == "focus")[-1]["app"], "foot")
        time.sleep(0.3)
        self.assertEqual(ctl("set", "focus", "--none", "--socket", d.socket).returncode, 0)
        self.assertIsNone(watcher.until(lambda l: l["event"] == "focus")[-1]["app"])
        out = ctl("set", "focus", "--socket", d.socket)
        self.assertEqual(out.returncode, 2)
        self.assertIn("give --app APP", out.stderr)
