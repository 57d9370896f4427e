#!/usr/bin/env python3
"""The scene editor (touchbridgectl edit, docs/scenes.md "The editor") in a real browser: headless
Chromium drives the page through its test hook (window.TB_EDITOR: what a person does, by name) and
reads what it shows; the file it saves goes through `scene check`; Try runs against a replaying daemon."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)
import headless  # noqa: E402
import tbsupport  # noqa: E402

DOCS = os.path.join(ROOT, "docs")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


# What the first test makes, as the editor saves it (SceneFileText: the schema's order, a view a line).
EXPECTED = """{
  "window": {"width": 800, "height": 480},
  "views": [
    {"name": "menu", "frame": [100, 60, 400, 300],
     "recognizers": [
       {"name": "longPress", "type": "longPress", "action": {"click": "right"}},
       {"name": "pan", "type": "pan", "requireToFail": ["longPress"]}
     ]}
  ]
}
"""


@unittest.skipUnless(headless.chromium(), "needs chromium (make deps installs it)")
class EditorTests(TestCase):
    def edit(self, d, path, *args):
        """touchbridgectl edit on a free port: the process and the address it printed."""
        port = free_port()
        ed = subprocess.Popen([CTL, "edit", path, "--socket", d.socket, "--listen", "127.0.0.1:{}".format(port)] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: ed.wait(10))
        self.addCleanup(ed.terminate)
        said = ed.stdout.readline().strip()
        m = re.match(r"touchbridgectl edit: open (http://127\.0\.0\.1:{}/\?token=[0-9a-f]{{32}}) in a browser to edit (.*) \(the daemon: (.*)\)$".format(port), said)
        self.assertIsNotNone(m, said + ed.stderr.read() if ed.poll() is not None else said)
        return ed, m.group(1)

    def open(self, b, url):
        p = b.open(url)
        self.assertTrue(p.wait_for("document.body.dataset.ready == '1'", timeout=20), "the editor did not start")
        return p

    def run_async(self, p, expression, name):
        """Runs a promise of the page's and waits for its value."""
        p.evaluate("window.{0} = undefined; ({1}).then(v => window.{0} = v)".format(name, expression))
        self.assertTrue(p.wait_for("window.{} !== undefined".format(name), timeout=20), expression)
        return p.evaluate("window." + name)

    def test_make_a_view_with_a_long_press_and_a_pan_that_requires_it_to_fail_then_save(self):
        tmp = self.tempdir()
        d = self.daemon("--no-devices")
        path = os.path.join(tmp, "kiosk.json")
        with open(path, "w") as f:
            f.write('{"window": {"width": 800, "height": 480}, "views": []}\n')
        ed, url = self.edit(d, path)
        with headless.Browser(width=1280, height=800) as b:
            p = self.open(b, url)
            view = p.evaluate("TB_EDITOR.addView(null, [100, 60, 400, 300])")
            self.assertEqual(view, "views[0]")
            p.evaluate("TB_EDITOR.set('views[0]', 'name', 'menu')")
            lp = p.evaluate("TB_EDITOR.addRecognizer('views[0]', 'longPress')")
            p.evaluate("TB_EDITOR.setAction('{}', {{click: 'right'}})".format(lp))
            pan = p.evaluate("TB_EDITOR.addRecognizer('views[0]', 'pan')")
            p.evaluate("TB_EDITOR.link('pan', 'longPress', 'requireToFail')")
            # The link is drawn as an arrow from the pan to the long press.
            self.assertEqual(p.evaluate("[...document.querySelectorAll('#link-lines path.require')].map(l => l.dataset.from + '>' + l.dataset.to)"), ["pan>longPress"])
            self.assertEqual(self.run_async(p, "TB_EDITOR.check()", "checked"), [])
            saved = self.run_async(p, "TB_EDITOR.save()", "saved")
            self.assertTrue(saved["ok"], saved)
            self.assertEqual(saved["kept"], path + "~")
            p.screenshot(os.path.join(tmp, "editor.png"))
            # Undo brings the last state back: the link goes, then the pan.
            p.evaluate("TB_EDITOR.undo()")
            self.assertNotIn("requireToFail", p.evaluate("TB_EDITOR.state().views[0].recognizers[1]"))
            p.evaluate("TB_EDITOR.undo()")
            self.assertEqual([r["name"] for r in p.evaluate("TB_EDITOR.state().views[0].recognizers")], ["longPress"])
            p.evaluate("TB_EDITOR.redo()")
            self.assertEqual(len(p.evaluate("TB_EDITOR.state().views[0].recognizers")), 2)
        with open(path) as f:
            self.assertEqual(f.read(), EXPECTED)
        out = ctl("scene", "check", path)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(ctl("scene", "format", "--check", path).returncode, 0)
        with open(path + "~") as f:
            self.assertEqual(json.load(f)["views"], [])                 # the old file, kept
        self.assertEqual(pan, "views[0].recognizers[1]")

    def test_a_typo_is_shown_at_its_field_with_the_did_you_mean_and_keys_say_what_they_type(self):
        tmp = self.tempdir()
        d = self.daemon("--no-devices")
        path = os.path.join(tmp, "new.json")                     # no file yet: a new scene, the panel's size
        ed, url = self.edit(d, path)
        with headless.Browser(width=1280, height=800) as b:
            p = self.open(b, url)
            self.assertEqual(p.evaluate("TB_EDITOR.state().window"), {"width": 1280, "height": 800})
            p.evaluate("TB_EDITOR.addView(null, [0, 0, 640, 800])")
            tap = p.evaluate("TB_EDITOR.addRecognizer('views[0]', 'tap')")
            p.evaluate("TB_EDITOR.select('{}')".format(tap))
            p.evaluate("TB_EDITOR.set('{}', 'numberOfTaps', 2)".format(tap))
            errors = self.run_async(p, "TB_EDITOR.check()", "checked")
            self.assertEqual([e["path"] for e in errors], [tap + ".numberOfTaps"])
            shown = p.evaluate("TB_EDITOR.errorsAt('{}')".format(tap))
            self.assertEqual(len(shown), 1)
            self.assertIn('did you mean "numberOfTapsRequired"?', shown[0])
            # A value out of range, at the option's own field.
            p.evaluate("TB_EDITOR.set('{}', 'numberOfTaps', undefined)".format(tap))
            p.evaluate("TB_EDITOR.set('{}', 'numberOfTouchesRequired', 0)".format(tap))
            self.run_async(p, "TB_EDITOR.check()", "checked2")
            self.assertTrue(p.evaluate("TB_EDITOR.errorsAt('{}.numberOfTouchesRequired')".format(tap)))
            # Saving a scene with errors writes nothing.
            saved = self.run_async(p, "TB_EDITOR.save()", "saved")
            self.assertFalse(saved["ok"])
            self.assertFalse(os.path.exists(path))
            # Keys by pressing them: ctrl+z in a German layout types KEY_Y.
            p.evaluate("TB_EDITOR.set('{}', 'numberOfTouchesRequired', undefined)".format(tap))
            p.evaluate("TB_EDITOR.setAction('{}', {{keys: ''}})".format(tap))
            p.evaluate("(() => { const s = TB_EDITOR.state(); TB_EDITOR.set('', 'keyboard', {layout: 'de'}); })()")
            p.evaluate("document.querySelector('input.chords').focus()")
            p.call("Input.dispatchKeyEvent", type="keyDown", modifiers=2, key="z", code="KeyZ", windowsVirtualKeyCode=90)
            self.assertTrue(p.wait_for("(document.querySelector('.codes') || {}).dataset && document.querySelector('.codes').dataset.codes"))
            self.assertEqual(p.evaluate("TB_EDITOR.state().views[0].recognizers[0].action.keys"), "ctrl+z")
            self.assertEqual(p.evaluate("document.querySelector('.codes').dataset.codes"), "ctrl+z → KEY_LEFTCTRL KEY_Y")

    def test_try_shows_the_long_press_recognized_on_its_lane_and_leaving_takes_it_away(self):
        tmp = self.tempdir()
        rec = os.path.join(tmp, "press.evemu")
        # A finger held 1 s at the middle of a 0…4095 panel, again and again.
        tbsupport.evemu_frames(rec, [{0: (2048, 2048)}] * 60 + [{}] * 30, hz=60)
        d = self.daemon("--no-devices", "--replay", rec, "--replay-loop", "--replay-delay", "1.0")
        path = os.path.join(tmp, "try.json")
        # The daemon's window is the synthetic panel's (1643 pt square, its 256 mm at 160 dpi): the view covers it.
        with open(path, "w") as f:
            f.write(EXPECTED.replace('"frame": [100, 60, 400, 300]', '"frame": [0, 0, 1643, 1643]').replace('"width": 800, "height": 480', '"width": 1643, "height": 1643'))
        c = Client(d.socket, ["scene"])
        ed, url = self.edit(d, path)
        with headless.Browser(width=1280, height=800) as b:
            p = self.open(b, url)
            tried = self.run_async(p, "TB_EDITOR.tryScene()", "tried")
            self.assertTrue(tried["ok"], tried)
            lines = c.until(lambda l: l["event"] == "scene" and any(v.get("clientScene") == "editor" for v in l["scene"]["views"]), timeout=15)
            live = "document.getElementById('live').contentDocument"
            # Beside the daemon's own scene (which has a longPress of its own), its names are try.NAME.
            lane = "{}.querySelector('.lane[data-recognizer=\"editor/try.longPress\"]')".format(live)
            self.assertTrue(p.wait_for("{0} && {1} && +{1}.dataset.fired > 0".format(live, lane), timeout=30),
                            "the long press never fired on its lane")
            p.evaluate("document.getElementById('trying').scrollIntoView()")
            p.screenshot(os.path.join(tmp, "try.png"))
            if os.environ.get("TB_DOCS_SCREENSHOTS"):
                shutil.copy(os.path.join(tmp, "try.png"), os.path.join(DOCS, "editor-try.png"))
            self.assertTrue(self.run_async(p, "TB_EDITOR.stopTrying()", "stopped")["ok"])
            c.until(lambda l: l["event"] == "scene" and not any(v.get("clientScene") == "editor" for v in l["scene"]["views"]), timeout=15)
            # Trying again, then closing the page: the scene goes with it.
            self.assertTrue(self.run_async(p, "TB_EDITOR.tryScene()", "tried2")["ok"])
            c.until(lambda l: l["event"] == "scene" and any(v.get("clientScene") == "editor" for v in l["scene"]["views"]), timeout=15)
            p.evaluate("location.href = 'about:blank'")
            c.until(lambda l: l["event"] == "scene" and not any(v.get("clientScene") == "editor" for v in l["scene"]["views"]), timeout=15)

    def test_a_file_that_cannot_be_written_keeps_the_old_one(self):
        tmp = self.tempdir()
        d = self.daemon("--no-devices")
        sub = os.path.join(tmp, "locked")
        os.makedirs(sub)
        path = os.path.join(sub, "scene.json")
        with open(path, "w") as f:
            f.write(EXPECTED)
        ed, url = self.edit(d, path)
        with headless.Browser(width=1280, height=800) as b:
            p = self.open(b, url)
            p.evaluate("TB_EDITOR.set('views[0]', 'name', 'renamed')")
            os.chmod(sub, 0o555)                    # the directory takes no new file (its temporary one)
            try:
                if os.geteuid() == 0:
                    # Root writes anyway: make the temporary file's name a directory instead.
                    os.chmod(sub, 0o755)
                    os.makedirs(os.path.join(sub, ".scene.json.tmp-{}".format(ed.pid)))
                saved = self.run_async(p, "TB_EDITOR.save()", "saved")
            finally:
                os.chmod(sub, 0o755)
            self.assertFalse(saved["ok"])
            self.assertIn("the file is as it was", saved["error"])
            self.assertIn("not saved", p.evaluate("document.getElementById('status').textContent"))
        with open(path) as f:
            self.assertEqual(f.read(), EXPECTED)

    def test_the_pages_types_and_options_are_the_schemas(self):
        tmp = self.tempdir()
        d = self.daemon("--no-devices")
        path = os.path.join(tmp, "s.json")
        ed, url = self.edit(d, path)
        schema = json.loads(subprocess.run([CTL, "scene", "schema"], capture_output=True, text=True, timeout=30).stdout)
        with headless.Browser(width=1280, height=800) as b:
            p = self.open(b, url)
            self.assertEqual(p.evaluate("TB_EDITOR.schema()"), schema)           # what the page was served
            p.evaluate("TB_EDITOR.addView(null, null)")
            self.assertEqual(p.evaluate("[...document.querySelectorAll('#new-type option')].map(o => o.value)"),
                             [t["type"] for t in schema["recognizerTypes"]])
            for t in schema["recognizerTypes"]:
                r = p.evaluate("TB_EDITOR.addRecognizer('views[0]', '{}')".format(t["type"]))
                p.evaluate("TB_EDITOR.select('{}')".format(r))
                shown = p.evaluate("TB_EDITOR.fields('{}')".format(r))
                for prop in t["properties"] + schema["commonProperties"]:
                    self.assertIn(prop["key"], shown, t["type"])
            # A schema with an option this build lacks (as a new key in the tables would be): the page
            # shows it with no change of its own.
            schema["recognizerTypes"][0]["properties"].append({"key": "maximumTapInterval", "form": "number", "min": 0, "default": 0.35})
            p.evaluate("TB_EDITOR.loadSchema({})".format(json.dumps(schema)))
            r = p.evaluate("TB_EDITOR.addRecognizer('views[0]', 'tap')")
            p.evaluate("TB_EDITOR.select('{}')".format(r))
            self.assertIn("maximumTapInterval", p.evaluate("TB_EDITOR.fields('{}')".format(r)))

    def test_saving_without_a_change_gives_the_same_bytes_for_the_projects_scenes(self):
        tmp = self.tempdir()
        d = self.daemon("--no-devices")
        with headless.Browser(width=1280, height=800) as b:
            for name in ("gnome", "default"):
                path = os.path.join(tmp, name + ".json")
                shutil.copy(os.path.join(ROOT, "scenes", name + ".json"), path)
                ed, url = self.edit(d, path)
                p = self.open(b, url)
                self.assertEqual(self.run_async(p, "TB_EDITOR.check()", "checked"), [], name)
                self.assertTrue(self.run_async(p, "TB_EDITOR.save()", "saved")["ok"], name)
                with open(path, "rb") as saved, open(os.path.join(ROOT, "scenes", name + ".json"), "rb") as original:
                    self.assertEqual(saved.read(), original.read(), name)
                ed.terminate()
                ed.wait(10)

    def test_views_are_drawn_and_dragged_through_their_transforms_as_the_daemon_places_them(self):
        """A turned and moved view with a subview: the page draws each box where the daemon's scene line
        puts its corners (windowFrame), and a drag, a drawn subview and a nest are measured in the spaces
        the frames live in (uikit-semantics G1-G4)."""
        tmp = self.tempdir()
        path = os.path.join(tmp, "dial.json")
        scene = {"window": {"width": 800, "height": 480}, "views": [
            {"name": "dial", "frame": [200, 100, 200, 100], "bounds": [0, 20, 200, 100], "transform": [0, 1, -1, 0, 50, 0],
             "subviews": [{"name": "knob", "frame": [20, 40, 60, 40], "transform": [2, 0, 0, 1, 0, 0]}]}]}
        with open(path, "w") as f:
            json.dump(scene, f)
        d = self.daemon("--no-devices", "--scene", path)
        daemon_view = Client(d.socket, ["scene"]).next()["scene"]["views"][0]
        ed, url = self.edit(d, path)
        corners = """(path => {{ const g = document.querySelector(`.view[data-path="${{path}}"]`), r = g.querySelector(':scope > rect.box');
            const m = document.getElementById('window').getScreenCTM().inverse().multiply(r.getScreenCTM());
            const x = +r.getAttribute('x'), y = +r.getAttribute('y'), w = +r.getAttribute('width'), h = +r.getAttribute('height');
            return [[x, y], [x + w, y], [x + w, y + h], [x, y + h]].map(([a, b]) => {{ const q = new DOMPoint(a, b).matrixTransform(m); return [q.x, q.y]; }}); }})('{}')"""
        with headless.Browser(width=1280, height=800) as b:
            p = self.open(b, url)
            for view_path, expected in (("views[0]", daemon_view["windowFrame"]), ("views[0].subviews[0]", daemon_view["subviews"][0]["windowFrame"])):
                drawn = p.evaluate(corners.format(view_path))
                for q, e in zip(drawn, expected):
                    self.assertAlmostEqual(q[0], e[0], delta=1e-3, msg=view_path)
                    self.assertAlmostEqual(q[1], e[1], delta=1e-3, msg=view_path)
            # The pointer in CSS pixels for a window point (the drawing is scaled to fit the page).
            def client(x, y):
                return p.evaluate("(() => {{ const q = new DOMPoint({}, {}).matrixTransform(document.getElementById('window').getScreenCTM()); return [q.x, q.y]; }})()".format(x, y))

            def drag(a, z, steps=6):
                (ax, ay), (zx, zy) = client(*a), client(*z)
                p.call("Input.dispatchMouseEvent", type="mousePressed", x=ax, y=ay, button="left", buttons=1, clickCount=1)
                for i in range(1, steps + 1):
                    p.call("Input.dispatchMouseEvent", type="mouseMoved", x=ax + (zx - ax) * i / steps, y=ay + (zy - ay) * i / steps, button="left", buttons=1)
                p.call("Input.dispatchMouseEvent", type="mouseReleased", x=zx, y=zy, button="left", buttons=0, clickCount=1)

            # The knob's middle on screen: the middle of its drawn corners. Dragged 40 to the right in
            # the window, it moves 40 up in the dial's turned space: its frame's y goes down by 40.
            knob = p.evaluate(corners.format("views[0].subviews[0]"))
            mid = (sum(q[0] for q in knob) / 4, sum(q[1] for q in knob) / 4)
            drag(mid, (mid[0] + 40, mid[1]))
            self.assertEqual(p.evaluate("TB_EDITOR.selected()"), "views[0].subviews[0]")
            frame = p.evaluate("TB_EDITOR.state().views[0].subviews[0].frame")
            self.assertAlmostEqual(frame[0], 20, delta=1)
            self.assertAlmostEqual(frame[1], 0, delta=1)
            moved = p.evaluate(corners.format("views[0].subviews[0]"))
            self.assertAlmostEqual(sum(q[0] for q in moved) / 4, mid[0] + 40, delta=1.5)
            self.assertAlmostEqual(sum(q[1] for q in moved) / 4, mid[1], delta=1.5)
            # Nested into the window, it keeps its middle on screen; its own transform goes with it.
            p.evaluate("TB_EDITOR.nest('views[0].subviews[0]', '')")
            knob = p.evaluate("TB_EDITOR.state().views[1]")
            self.assertEqual(knob["transform"], [2, 0, 0, 1, 0, 0])
            self.assertAlmostEqual(knob["frame"][0] + knob["frame"][2] / 2, mid[0] + 40, delta=1)
            self.assertAlmostEqual(knob["frame"][1] + knob["frame"][3] / 2, mid[1], delta=1)
            # A subview drawn across the dial lands in the dial's bounds space: a window point (X, Y) is
            # (Y − 50, 420 − X) there (G4 inverted: centre (300, 150), anchor (100, 70), turned, moved 50),
            # so window (320, 120)–(380, 200) is the dial's (70, 100)–(150, 40).
            p.evaluate("TB_EDITOR.select('views[0]')")
            p.evaluate("document.getElementById('draw').click()")
            drag((320, 120), (380, 200))
            made = p.evaluate("TB_EDITOR.state().views[0].subviews[0].frame")
            for got, want in zip(made, [70, 40, 80, 60]):
                self.assertAlmostEqual(got, want, delta=1)
            # The daemon reads what the page drew: the saved file's windowFrames are the page's boxes.
            self.assertTrue(self.run_async(p, "TB_EDITOR.save()", "saved")["ok"])
            check = subprocess.run([CTL, "scene", "check", path], capture_output=True, text=True)
            self.assertEqual(check.returncode, 0, check.stdout + check.stderr)

    def test_the_page_is_touch_sized_and_looks_right_on_a_1280_by_800_panel(self):
        """The screenshots of docs/ (made here, looked at by people): a kiosk scene being edited."""
        tmp = self.tempdir()
        d = self.daemon("--no-devices")
        path = os.path.join(tmp, "kiosk.json")
        shutil.copy(os.path.join(ROOT, "scenes", "gnome.json"), path)
        ed, url = self.edit(d, path)
        with headless.Browser(width=1280, height=800) as b:
            p = self.open(b, url)
            p.evaluate("TB_EDITOR.select('views[0].recognizers[2]')")
            small = p.evaluate("[...document.querySelectorAll('button, select, input:not([type=checkbox]), textarea')].filter(e => e.offsetParent && e.getBoundingClientRect().height < 44).map(e => e.id || e.className || e.tagName)")
            self.assertEqual(small, [])
            self.assertEqual(p.evaluate("document.documentElement.scrollWidth <= innerWidth"), True)   # nothing off the side
            shot = os.path.join(tmp, "editor-gnome.png")
            p.screenshot(shot)
            self.assertGreater(os.path.getsize(shot), 20000)
            if os.environ.get("TB_DOCS_SCREENSHOTS"):
                shutil.copy(shot, os.path.join(DOCS, "editor.png"))


if __name__ == "__main__":
    unittest.main()
