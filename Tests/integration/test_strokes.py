"""Drawn gestures (docs/strokes.md) through the real binaries: strokes drawn by a script of ours as a
person would (Tests/support/tbsupport.py: drawn_stroke, paced) and played as one finger on a panel;
`stroke learn` from one person's recording, then `replay` with that templates file recognizes another
person's; `stroke record` from a live daemon; `bind` runs a command on one shape."""
import random
import subprocess
import time

from common import *  # noqa: F401,F403


def person(seed, shapes, names, size, turn, slant, seconds=0.9):
    """One person's drawings of `names`, each a little different (their own hand: size, slant, turn)."""
    rng = random.Random(seed)
    return [tbsupport.paced(tbsupport.drawn_stroke(shapes[n][0], rng, size=size * rng.uniform(0.9, 1.1), slant=slant,
                                                  turn=turn + rng.uniform(-0.08, 0.08), wobble=3, tremor=0.5, rounding=0.03),
                            seconds * rng.uniform(0.85, 1.15)) for n in names]


class StrokeTests(TestCase):
    @classmethod
    def setUpClass(cls):
        cls.shapes = tbsupport.builtin_shapes(CTL)

    def scene(self, directory, templates="strokes.json", **extra):
        # Square, as the synthetic panel is (256 mm each way): a panel's strokes keep their proportions.
        return self.json_file(directory, "draw.json", {"window": {"width": 800, "height": 800}, "views": [
            {"name": "canvas", "frame": [0, 0, 800, 800], "recognizers": [dict({"name": "draw", "type": "stroke", "templates": templates}, **extra)]}]})

    def test_learn_from_one_persons_recording_then_recognize_anothers(self):
        tmp = self.tempdir()
        learned = os.path.join(tmp, "strokes.json")
        for name in ("circle", "check"):
            rec = os.path.join(tmp, name + ".evemu")
            tbsupport.stroke_recording(rec, person(1, self.shapes, [name] * 3, size=160, turn=0.05, slant=0.1))
            out = ctl("stroke", "learn", name, rec, "--templates", learned)
            self.assertEqual(out.returncode, 0, out.stderr)
            self.assertIn("{}: 3 from {}.evemu".format(name, name), out.stdout)
        self.assertIn("strokes.json has circle 3, check 3", out.stdout)
        with open(learned) as f:
            self.assertEqual(sorted(json.load(f)["templates"]), ["check", "circle"])
        # Another person, another size and slant: the circle and the check are theirs; a Z is neither.
        other = os.path.join(tmp, "other.evemu")
        tbsupport.stroke_recording(other, person(2, self.shapes, ["circle", "check", "Z"], size=230, turn=-0.1, slant=-0.15))
        scene = self.scene(tmp)
        out = subprocess.run([CTL, "replay", "--scene", scene, "--verbose", other], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(l) for l in out.stdout.splitlines()]
        self.assertEqual([(l["shape"], l["state"]) for l in lines], [("circle", "recognized"), ("check", "recognized")])
        self.assertTrue(all(l["score"] >= 0.90 and len(l["template"]) == 16 for l in lines))
        self.assertRegex(out.stderr, r"\(draw\): possible → touchesEnded → failed: best (circle|check) 0\.\d\d, below 0\.90")
        # scene check says what the templates are.
        self.assertEqual(ctl("scene", "check", scene).returncode, 0)

    def test_learn_refuses_what_it_cannot_use_and_keeps_the_file_whole(self):
        tmp = self.tempdir()
        rec = os.path.join(tmp, "taps.evemu")
        tbsupport.stroke_recording(rec, [[(0, 0), (2, 1), (3, 3)]])                   # a tap, no stroke
        learned = os.path.join(tmp, "strokes.json")
        out = ctl("stroke", "learn", "dot", rec, "--templates", learned)
        self.assertEqual(out.returncode, 2)
        self.assertIn("no stroke of 60.0 pt or more", out.stderr)
        self.assertFalse(os.path.exists(learned), "nothing written")
        out = ctl("stroke", "learn", "two words", rec, "--templates", learned)
        self.assertIn("a shape's name has letters, digits and _ only", out.stderr)
        with open(learned, "w") as f:
            f.write('{"templates": {"hook": [[[0, 0], [0, 10]]]}')                 # cut short
        out = ctl("stroke", "learn", "circle", rec, "--templates", learned)
        self.assertEqual(out.returncode, 1)
        self.assertIn(learned + ":1:", out.stderr)
        with open(learned) as f:
            self.assertEqual(f.read(), '{"templates": {"hook": [[[0, 0], [0, 10]]]}', "a file it cannot read is left as it was")

    def test_record_takes_strokes_from_the_live_daemon(self):
        tmp = self.tempdir()
        rec = os.path.join(tmp, "zs.evemu")
        tbsupport.stroke_recording(rec, person(3, self.shapes, ["Z", "Z"], size=180, turn=0.0, slant=0.05))
        d = self.daemon("--no-devices", "--replay", rec, "--replay-delay", "1.0")
        learned = os.path.join(tmp, "mine.json")
        out = subprocess.run([CTL, "stroke", "record", "zed", "--templates", learned, "--count", "2", "--socket", d.socket],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("zed 1/2:", out.stdout)
        self.assertRegex(out.stdout, r"zed 1/2: \d+ pt, \d+ frames; nearest Z (0\.9\d|1\.00)")
        self.assertIn("2 strokes of zed added to " + learned, out.stdout)
        self.assertIn("o", out.stdout.split("zed 2/2:")[1], "the stroke is drawn, its start marked")
        with open(learned) as f:
            self.assertEqual(len(json.load(f)["templates"]["zed"]), 2)

    def test_bind_runs_a_command_on_one_shape(self):
        tmp = self.tempdir()
        rec = os.path.join(tmp, "mix.evemu")
        tbsupport.stroke_recording(rec, person(4, self.shapes, ["check", "circle", "check"], size=170, turn=0.0, slant=0.0))
        scene = self.scene(tmp, templates="builtin", shapes=["circle", "check"])
        d = self.daemon("--no-devices", "--scene", scene, "--replay", rec, "--replay-delay", "1.0")
        marks = os.path.join(tmp, "marks")
        bindings = self.json_file(tmp, "bind.json", {"draw:circle": ["sh", "-c", 'echo "$TOUCHBRIDGE_SHAPE $TOUCHBRIDGE_SCORE" >> ' + marks]})
        b = subprocess.Popen([CTL, "bind", bindings, "--scene", scene, "--socket", d.socket], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (b.poll() is None and b.terminate(), b.wait(10)))
        self.assertTrue(wait_for(lambda: os.path.exists(marks), timeout=20), "the circle's command ran")
        time.sleep(2.5)                                                          # the last check is drawn too
        with open(marks) as f:
            said = f.read().split()
        self.assertEqual(said[0], "circle")
        self.assertGreaterEqual(float(said[1]), 0.90)
        self.assertEqual(len(said), 2, "once: not for either check")
