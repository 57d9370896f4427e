#!/usr/bin/env python3
"""touchbridgectl and touchbridged as a user meets them: --help on every command, did-you-mean,
messages that escape what files contain, how replays choose and number devices, and the options
that --help, the man pages and docs/commands.md's tables list."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403

NTRIG_DRAG = os.path.join(FIXTURES, "evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events")
NTRIG_DESC = os.path.join(FIXTURES, "evemu-devices__ntrig-protocolA-ts__DEVICE.desc")


def run(*args, env=None, timeout=30):
    full = dict(os.environ)
    full.update(env or {})
    return subprocess.run(list(args), capture_output=True, text=True, timeout=timeout, env=full)


def ctl_commands():
    """The commands the overview lists ("listen", "scene check", …)."""
    out = run(CTL, "--help").stdout
    names = []
    for line in out.splitlines():
        m = re.match(r"^  ([a-z][a-z-]*(?: [a-z]+)?)(?: |$)", line)
        if m and not line.startswith("  --"):
            words = m.group(1).split()
            # A second word is a subcommand only if it is not an operand (operands are upper case).
            names.append(" ".join(words))
    return names


def help_options(text):
    """The options a --help text lists, --help itself left out."""
    section = text.split("\noptions:\n", 1)[1] if "\noptions:\n" in text else ""
    return {m for m in re.findall(r"^  (?:-[a-z], )?--([a-z][a-z-]*)", section, re.M)} - {"help"}


class HelpTests(unittest.TestCase):

    def test_every_command_and_subcommand_takes_help(self):
        commands = ctl_commands()
        for expected in ("listen", "replay", "scene check", "scene push", "scene default", "set rotation", "bind"):
            self.assertIn(expected, commands)
        for name in commands:
            out = run(CTL, *name.split(), "--help")
            self.assertEqual(out.returncode, 0, (name, out.stderr))
            self.assertTrue(out.stdout.startswith("usage: touchbridgectl " + name), (name, out.stdout))
            self.assertEqual(out.stderr, "", name)
        # scene check --help is help, not a file named --help.
        self.assertNotIn("cannot read", run(CTL, "scene", "check", "--help").stdout)
        groups = run(CTL, "scene", "--help")
        self.assertEqual(groups.returncode, 0)
        self.assertIn("touchbridgectl scene check", groups.stdout)
        out = run(DAEMON, "--help")
        self.assertEqual(out.returncode, 0)
        self.assertTrue(out.stdout.startswith("usage: touchbridged"))

    def test_messages_name_the_remedy(self):
        # A socket path in a directory that does not exist: a mistyped path, named as one.
        out = run(CTL, "listen", "--socket", "/tmp/tb-no-such-dir/x.sock")
        self.assertEqual(out.returncode, 1)
        self.assertIn("there is no directory /tmp/tb-no-such-dir: is the path right?", out.stderr)
        self.assertNotIn("not running", out.stderr)
        out = run(DAEMON, "--no-devices", "--socket", "/tmp/tb-no-such-dir/deeper/x.sock")
        self.assertEqual(out.returncode, 1)
        self.assertIn("create it with mkdir -p /tmp/tb-no-such-dir/deeper, or choose another place with --socket PATH", out.stderr)
        # No MQTT configuration: where one is, and the option.
        out = run(CTL, "mqtt", "--config", "/tmp/tb-no-such-mqtt.json")
        self.assertEqual(out.returncode, 1)
        self.assertIn("pass --config FILE; an example is /usr/share/doc/touchbridge/examples/mqtt.json", out.stderr)
        # Sub-arguments get a did-you-mean.
        out = run(CTL, "set", "rotate", "90")
        self.assertIn('did you mean "set rotation"?', out.stderr)
        out = run(CTL, "set", "display", "of")
        self.assertIn('did you mean "off"?', out.stderr)

    def test_scene_check_client_checks_what_scene_push_sends(self):
        out = run(CTL, "scene", "check", "--client", os.path.join(ROOT, "examples", "kiosk-overlay.json"))
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn('ok: client scene "overlay", 1 view, 2 recognizers', out.stdout)
        # A full scene file: every key to drop is named, and where the file belongs.
        kiosk = os.path.join(ROOT, "scenes", "kiosk.json")
        out = run(CTL, "scene", "check", "--client", kiosk)
        self.assertEqual(out.returncode, 1)
        self.assertIn('a client scene has only "views" (and a "name"): drop "window", "devices"', out.stderr)
        out = run(CTL, "scene", "push", kiosk, "--socket", "/tmp/tb-none.sock")
        self.assertEqual(out.returncode, 1)
        self.assertIn('drop "window", "devices"', out.stderr)
        # Errors inside the views name the file, the line and the path.
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            f.write('{"views": [\n {"name": "v", "frame": [0, 0, 10, 10],\n  "recognizers": [{"name": "t", "type": "tapp"}]}]}\n')
        out = run(CTL, "scene", "check", "--client", bad)
        self.assertEqual(out.returncode, 1)
        self.assertIn(bad + ":3: views[0].recognizers[0].type", out.stderr)
        self.assertIn('did you mean "tap"', out.stderr)

    def test_a_scene_with_two_mistakes_gets_both_at_once(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "two.json")
        with open(path, "w") as f:
            f.write('{"window": {"width": 100, "height": 100},\n "views": [\n'
                    '  {"name": "a", "frame": [0, 0, 10, 10], "recognizers": [{"name": "t", "type": "tapp"}]},\n'
                    '  {"name": "b", "frame": [0, 0, 10, 10], "recognizers": [{"name": "k", "type": "tap", "action": {"keys": "alt+Lft"}}]}\n]}\n')
        out = run(CTL, "scene", "check", path)
        self.assertEqual(out.returncode, 1)
        lines = out.stderr.splitlines()
        self.assertEqual(len(lines), 3, out.stderr)
        self.assertTrue(lines[0].startswith(path + ':3: views[0].recognizers[0].type: unknown recognizer type "tapp" (did you mean "tap"?)'))
        self.assertTrue(lines[1].startswith(path + ':4: views[1].recognizers[0].action.keys: unknown key "Lft" (did you mean "Left"?)'))
        self.assertEqual(lines[2], "2 errors in " + path)
        # The daemon says both too, each a line of its log.
        out = run(DAEMON, "--no-devices", "--socket", os.path.join(tmp, "s.sock"), "--scene", path)
        self.assertEqual(out.returncode, 1)
        self.assertEqual(len([l for l in out.stderr.splitlines() if path + ":" in l]), 2, out.stderr)

    def test_doctor_without_a_daemon_says_so_with_the_remedy_and_fails(self):
        out = run(CTL, "doctor", "--socket", "/tmp/tb-doctor-none.sock")
        self.assertEqual(out.returncode, 1)
        lines = out.stdout.splitlines()
        self.assertTrue(lines[0].startswith("✗ the daemon's socket: /tmp/tb-doctor-none.sock: touchbridged is not running there (start it"), lines)
        self.assertTrue(all(l[:2] in ("✓ ", "✗ ", "· ") for l in lines[:-1]), lines)
        self.assertTrue(any(l.startswith("✓ keyboard layout") or l.startswith("✗ keyboard layout") for l in lines), lines)
        self.assertTrue(any("/dev/uinput" in l for l in lines), lines)
        self.assertRegex(lines[-1], r"^\d+ problems? above, each with its remedy$")

    def test_unknown_commands_and_options_say_what_was_meant(self):
        out = run(CTL, "lisen")
        self.assertEqual(out.returncode, 2)
        self.assertIn('did you mean "listen"?', out.stderr)
        out = run(CTL, "scene", "chek", "x.json")
        self.assertEqual(out.returncode, 2)
        self.assertIn('did you mean "scene check"?', out.stderr)
        out = run(DAEMON, "-v")
        self.assertEqual(out.returncode, 2)
        self.assertIn("did you mean --verbose?", out.stderr)
        out = run(CTL, "replay", "--touch", TAPS)
        self.assertEqual(out.returncode, 2)
        self.assertIn("did you mean --touches?", out.stderr)

    def test_help_the_man_pages_and_the_readme_list_the_same_options(self):
        # The reference table lives in docs/commands.md (the README links it).
        with open(os.path.join(ROOT, "docs", "commands.md")) as f:
            readme = f.read()
        with open(os.path.join(ROOT, "docs", "man", "touchbridgectl.1")) as f:
            man_ctl = f.read()
        with open(os.path.join(ROOT, "docs", "man", "touchbridged.8")) as f:
            man_daemon = f.read()

        def readme_rows(command):
            """The options in the first cell of the README rows of the command (`| \\`listen …\\` |`)."""
            found = set()
            for cell in re.findall(r"^\| `([^`]*)`", readme, re.M):
                words = cell.split()
                if " ".join(words[:len(command.split())]) == command:
                    found |= set(re.findall(r"--([a-z][a-z-]*)", cell))
            return found

        def man_entries(command):
            """The options in the man page's .B headers of the command."""
            found = set()
            for header in re.findall(r"^\.B (.*)$", man_ctl, re.M):
                plain = header.replace("\\-", "-").replace("\\fB", "").replace("\\fR", "").replace("\\fI", "")
                words = plain.split()
                if " ".join(words[:len(command.split())]) == command:
                    found |= set(re.findall(r"--([a-z][a-z-]*)", plain))
            return found

        for name in ctl_commands():
            declared = help_options(run(CTL, *name.split(), "--help").stdout)
            self.assertEqual(readme_rows(name), declared, "docs/commands.md, " + name)
            self.assertEqual(man_entries(name), declared, "touchbridgectl(1), " + name)
        declared = help_options(run(DAEMON, "--help").stdout)
        daemon_table = readme.split("### touchbridged", 1)[1].split("\n\n", 2)[1]
        self.assertEqual(set(re.findall(r"^\| `--([a-z][a-z-]*)", daemon_table, re.M)), declared, "docs/commands.md, touchbridged")
        man_options = re.findall(r"^\.BI? \\-\\-([a-z\\-]+)", man_daemon, re.M)
        self.assertEqual({o.replace("\\-", "-") for o in man_options} - {"help"}, declared, "touchbridged(8)")


class MessageTests(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def test_what_a_file_contains_reaches_the_terminal_escaped(self):
        hostile = os.path.join(self.tmp, "hostile.evemu")
        with open(hostile, "wb") as f:
            f.write(b"\x1b]0;owned\x07\x1b[31mred\x1b[0m\n")
        out = subprocess.run([CTL, "replay", hostile], capture_output=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertNotIn(b"\x1b", out.stderr)
        self.assertNotIn(b"\x07", out.stderr)
        self.assertIn(b"\\x1b]0;owned\\x07\\x1b[31mred", out.stderr)
        binary = os.path.join(self.tmp, "binary.evemu")
        with open(binary, "wb") as f:
            f.write(bytes(range(256)) * 4)
        out = subprocess.run([CTL, "replay", binary], capture_output=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertNotIn(b"\x00", out.stderr)
        self.assertTrue(all(b >= 0x20 or b in (0x0a, 0x09) for b in out.stderr), out.stderr)
        # The daemon's log, too.
        out = subprocess.run([DAEMON, "--no-devices", "--socket", os.path.join(self.tmp, "s"), "--replay", hostile],
                             capture_output=True, timeout=30)
        self.assertEqual(out.returncode, 1)
        self.assertNotIn(b"\x1b", out.stderr)

    def test_verbose_says_why_a_recognizer_failed(self):
        out = run(CTL, "replay", "--verbose", TAPS)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stderr, r"ScreenEdgePanGestureRecognizer\(edge\w+\): possible → touchesBegan → failed: began [\d.]+ pt from the nearest edge")
        self.assertIn("→ failed: lifted before 0.5 s", out.stderr)

    def test_words(self):
        scene = os.path.join(self.tmp, "one.json")
        with open(scene, "w") as f:
            json.dump({"window": {"width": 100, "height": 100}, "devices": [{"name": "*"}],
                       "views": [{"name": "v", "frame": [0, 0, 100, 100],
                                  "recognizers": [{"type": "tap", "name": "t"}]}]}, f)
        out = run(CTL, "scene", "check", scene)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("1 view, 1 recognizer, 1 device entry", out.stdout)

    def test_devices_with_tablets_says_what_it_looked_for(self):
        out = run(CTL, "devices", "--tablets")
        self.assertEqual(out.returncode, 0, out.stderr)
        if out.stdout.startswith("no "):                       # a machine without panels (CI)
            self.assertTrue(out.stdout.startswith("no touchscreens or pen tablets found"), out.stdout)

    def test_scene_push_refuses_a_window_as_it_refuses_devices(self):
        for key, value in (("window", {"width": 10, "height": 10}), ("devices", [])):
            scene = os.path.join(self.tmp, key + ".json")
            with open(scene, "w") as f:
                json.dump({key: value, "views": []}, f)
            out = run(CTL, "scene", "push", scene, "--socket", os.path.join(self.tmp, "none"))
            self.assertEqual(out.returncode, 1)
            self.assertIn('a client scene has only "views" (and a "name"): drop "{}"'.format(key), out.stderr)


class ReplayChoiceTests(unittest.TestCase):
    """The daemon's --replay and touchbridgectl replay choose devices alike, and number them alike."""

    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, self.tmp, True)

    def scene(self, devices, passthrough=False):
        path = os.path.join(self.tmp, "scene.json")
        with open(path, "w") as f:
            json.dump({"window": {"width": 800, "height": 480}, "devices": devices,
                       "views": [{"name": "s", "frame": [0, 0, 800, 480],
                                  "recognizers": [{"type": "tap", "name": "tap"}]}]}, f)
        return path

    def test_a_recording_the_scene_does_not_select_is_refused_by_both(self):
        scene = self.scene([{"name": "N-Trig*"}])
        out = run(CTL, "replay", "--scene", scene, TAPS)
        self.assertEqual(out.returncode, 1)
        self.assertIn('selects "Atmel maXTouch Touchscreen"', out.stderr)
        sock = os.path.join(self.tmp, "tb.sock")
        out = run(DAEMON, "--no-devices", "--socket", sock, "--scene", scene, "--replay", TAPS)
        self.assertEqual(out.returncode, 1)
        self.assertIn('selects "Atmel maXTouch Touchscreen"', out.stderr)
        self.assertNotIn("listening on", out.stderr)
        self.assertFalse(os.path.exists(sock))
        # The N-Trig recording is selected by both.
        out = run(CTL, "replay", "--scene", scene, "--desc", NTRIG_DESC, NTRIG_DRAG)
        self.assertEqual(out.returncode, 0, out.stderr)

    def test_arguments_are_checked_before_the_daemon_listens(self):
        sock = os.path.join(self.tmp, "tb.sock")
        out = run(DAEMON, "--no-devices", "--socket", sock, "--replay", "/nonexistent.evemu")
        self.assertEqual(out.returncode, 1)
        self.assertIn("/nonexistent.evemu", out.stderr)
        self.assertNotIn("listening on", out.stderr)

    def test_a_replaying_daemon_does_not_suggest_replaying(self):
        d = Daemon("--replay", TAPS, "--replay-delay", "5")
        try:
            self.assertTrue(d.wait_for_log("listening on"))
            self.assertNotIn("--replay FILE", d.text())
        finally:
            d.stop()

    def test_each_recording_of_a_replay_is_a_device_of_its_own(self):
        out = run(CTL, "replay", "--touches", TAPS, SCROLL)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(l) for l in out.stdout.splitlines()]
        devices = [l["device"] for l in lines]
        self.assertEqual(sorted(set(devices)), [0, 1])
        self.assertEqual(devices, sorted(devices))            # TAPS's lines first, all device 0

    def test_a_mirror_of_a_device_the_scene_does_not_pass_through_is_said(self):
        out_path = os.path.join(self.tmp, "mirror.evemu")
        out = run(CTL, "replay", "--mirror", out_path, "--scene", self.scene([{"name": "Atmel*"}]), TAPS)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertIn("warning: the scene does not pass \"Atmel maXTouch Touchscreen\" through", out.stderr)
        out = run(CTL, "replay", "--mirror", out_path, "--scene", self.scene([{"name": "Atmel*", "passthrough": True}]), TAPS)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertNotIn("warning", out.stderr)
        out = run(CTL, "replay", "--mirror", out_path, TAPS)            # the built-in pass-through scene
        self.assertNotIn("warning", out.stderr)


class BundledRecordingTests(unittest.TestCase):
    """What ships makes every kind of gesture of the built-in scene."""

    def test_the_synthetic_recordings_are_what_their_script_writes_and_make_their_gestures(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        out = run(sys.executable, os.path.join(ROOT, "scripts", "synthetic_recordings.py"), tmp)
        self.assertEqual(out.returncode, 0, out.stderr)
        expected = {"synthetic__panel__2fg-pinch-out.evemu": "pinch",
                    "synthetic__panel__2fg-rotate-clockwise.evemu": "rotation",
                    "synthetic__panel__3fg-swipe-left.evemu": "swipeLeft"}
        self.assertEqual(sorted(out.stdout.split()), sorted(expected))
        for name, recognizer in expected.items():
            with open(os.path.join(tmp, name), "rb") as a, open(os.path.join(FIXTURES, name), "rb") as b:
                self.assertEqual(a.read(), b.read(), name + " differs from what scripts/synthetic_recordings.py writes")
            lines = offline(os.path.join(FIXTURES, name))
            self.assertIn(recognizer, {l["recognizer"] for l in lines}, name)

    def test_the_demo_plays_a_pinch_a_rotation_and_a_swipe(self):
        with open(os.path.join(ROOT, "scripts", "demo.sh")) as f:
            demo = f.read()
        for name in ("2fg-pinch-out", "2fg-rotate-clockwise", "3fg-swipe-left"):
            self.assertIn(name, demo)


class MakefileTests(unittest.TestCase):

    def test_make_run_installs_what_the_daemon_needs_and_no_test_tool(self):
        out = subprocess.run(["make", "-n", "run"], cwd=ROOT, capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        installs = [l for l in out.stdout.splitlines() if "deps.sh" in l]
        self.assertTrue(installs, out.stdout)
        for line in installs:
            self.assertIn("libevdev-dev", line)
            for tool in ("chromium", "socat", "systemd", "lintian", "dbus-daemon"):
                self.assertNotIn(tool, line.split())          # whole package names (libsystemd-dev is a library)
        # make test asks for the tests' tools too.
        out = subprocess.run(["make", "-n", "test"], cwd=ROOT, capture_output=True, text=True, timeout=30)
        self.assertIn("chromium", out.stdout)

    def test_make_deb_runs_the_lintian_it_installs(self):
        out = subprocess.run(["make", "-n", "-o", "release", "deb"], cwd=ROOT, capture_output=True, text=True, timeout=30)
        self.assertIn("lintian", out.stdout)
        with open(os.path.join(ROOT, "scripts", "deb.sh")) as f:
            self.assertIn('lintian --fail-on error "$deb"', f.read())


class SocketPathTests(unittest.TestCase):

    def test_touchbridge_socket_is_honoured_by_the_daemon_and_touchbridgectl(self):
        tmp = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, tmp, True)
        path = os.path.join(tmp, "env.sock")
        env = dict(os.environ, TOUCHBRIDGE_SOCKET=path)
        proc = subprocess.Popen([DAEMON, "--no-devices"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(proc.wait, 10)
        self.addCleanup(proc.terminate)
        end = time.time() + 10
        while not os.path.exists(path) and time.time() < end:
            time.sleep(0.02)
        self.assertTrue(os.path.exists(path))
        out = run(CTL, "disable", "tap", env={"TOUCHBRIDGE_SOCKET": path})
        self.assertEqual(out.returncode, 0, out.stderr)
        out = run(CTL, "disable", "tap", env={"TOUCHBRIDGE_SOCKET": os.path.join(tmp, "other.sock")})
        self.assertEqual(out.returncode, 1)
        self.assertIn("other.sock", out.stderr)


if __name__ == "__main__":
    from run import main
    main(["test_cli"])
