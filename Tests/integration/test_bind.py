#!/usr/bin/env python3
"""touchbridgectl bind and listen: commands per gesture, reconnection, names the scene lacks."""
import json
import os
import signal
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)


class BindTests(TestCase):
    def test_bind_runs_commands_without_a_shell_and_logs_failures_as_they_happen(self):
        tmp = self.tempdir()
        marker = os.path.join(tmp, "ran")
        bindings = self.json_file(tmp, "bind.json", {"twoFingerTap": ["/bin/sh", "-c", 'printf "%s %s" "$TOUCHBRIDGE_RECOGNIZER" "$TOUCHBRIDGE_STATE" > ' + marker],
                                                     "twoFingerTap:recognized": ["/bin/false"],
                                                     "pan:began": ["/nonexistent/program"]})
        d = Daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "1")
        err_path = os.path.join(tmp, "bind.err")
        # --allow-missing: the program that does not exist is said at start, and its failure as it happens.
        b = subprocess.Popen([CTL, "bind", bindings, "--allow-missing", "--socket", d.socket], stdout=subprocess.DEVNULL,
                             stderr=open(err_path, "w"))
        try:
            self.assertTrue(wait_for(lambda: os.path.exists(marker), timeout=15))
            self.assertIn('"/nonexistent/program" (for pan:began) is not on the PATH', open(err_path).read())
            # The failure is logged as the command exits.
            self.assertTrue(wait_for(lambda: "failed with exit status 1" in open(err_path).read()))
            self.assertTrue(wait_for(lambda: open(marker).read() == "twoFingerTap recognized"))
            with open(marker) as f:
                self.assertEqual(f.read(), "twoFingerTap recognized")
            # Logged when it failed, with no gesture after it; and no child is left a zombie.
            with open(err_path) as f:
                self.assertIn("\"/bin/false\" failed with exit status 1", f.read())
            children = subprocess.run(["ps", "--ppid", str(b.pid), "-o", "stat="], capture_output=True, text=True).stdout.split()
            self.assertFalse([c for c in children if c.startswith("Z")], children)
            b.send_signal(signal.SIGTERM)
            self.assertEqual(b.wait(10), 0)
        finally:
            if b.poll() is None:
                b.kill()
            d.stop()

    def test_bind_refuses_a_program_that_is_not_installed_before_any_gesture(self):
        tmp = self.tempdir()
        bindings = self.json_file(tmp, "bind.json", {"doubleTap": ["notify-send-not-installed", "x"], "tap": ["true"]})
        out = ctl("bind", bindings, "--socket", os.path.join(tmp, "none.sock"))
        self.assertEqual(out.returncode, 1)
        self.assertIn(bindings + ': not on the PATH: "notify-send-not-installed" (for doubleTap)', out.stderr)
        self.assertIn("--allow-missing", out.stderr)
        self.assertIn("libnotify-bin", out.stderr)                     # the examples' packages are named
        out = ctl("bind", "-g", "swipeLeft=playerctl-not-here next", "--socket", os.path.join(tmp, "none.sock"))
        self.assertEqual(out.returncode, 1)
        self.assertIn('-g: not on the PATH: "playerctl-not-here" (for swipeLeft)', out.stderr)

    def test_bind_g_binds_gestures_without_a_file_and_says_when_it_is_connected(self):
        tmp = self.tempdir()
        marker = os.path.join(tmp, "ran")
        d = self.daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "1")
        err_path = os.path.join(tmp, "bind.err")
        b = subprocess.Popen([CTL, "bind", "-g", "twoFingerTap=sh -c 'echo \"$TOUCHBRIDGE_RECOGNIZER two\" > {}'".format(marker),
                              "-g", "doubleTap=true", "--socket", d.socket], stdout=subprocess.DEVNULL, stderr=open(err_path, "w"))
        self.addCleanup(lambda: (b.poll() is None and b.kill(), b.wait(10)))
        self.assertTrue(wait_for(lambda: "bind: connected, 2 bindings" in open(err_path).read(), timeout=10), open(err_path).read())
        self.assertTrue(wait_for(lambda: os.path.exists(marker) and open(marker).read() == "twoFingerTap two\n", timeout=15))
        for bad, said in (("=x", "expected NAME=COMMAND"), ("tap", "expected NAME=COMMAND"), ("tap=", "no command"), ("tap=echo 'open", "never closes"),
                          ("tap:endd=true", 'unknown state "endd" (did you mean "ended"?)')):
            out = ctl("bind", "-g", bad, "--socket", d.socket)
            self.assertEqual(out.returncode, 1, bad)
            self.assertIn(said, out.stderr)

    def test_bind_connects_again_when_the_daemon_restarts(self):
        tmp = self.tempdir()
        marker = os.path.join(tmp, "taps")
        bindings = self.json_file(tmp, "bind.json", {"twoFingerTap": ["/bin/sh", "-c", "echo tap >> " + marker]})
        d = Daemon("--no-devices")
        sock = d.socket
        err_path = os.path.join(tmp, "bind.err")
        b = subprocess.Popen([CTL, "bind", bindings, "--socket", sock], stdout=subprocess.DEVNULL, stderr=open(err_path, "w"))
        second = None
        try:
            self.assertTrue(d.wait_for_log("client connected"))
            d.proc.send_signal(signal.SIGTERM)
            d.proc.wait(10)
            # bind tries, fails and waits meanwhile.
            self.assertTrue(wait_for(lambda: "(attempt 1)" in open(err_path).read()))
            self.assertIsNone(b.poll())
            second = subprocess.Popen([DAEMON, "--socket", sock, "--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "2"],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.assertTrue(wait_for(lambda: os.path.exists(marker), timeout=20))
            with open(marker) as f:
                self.assertEqual(f.read(), "tap\n")
            with open(err_path) as f:
                err = f.read()
            self.assertIn("the daemon closed the connection; connecting again", err)
            self.assertRegex(err, r"touchbridged is not running there .*; trying again in [0-9.]+ s \(attempt 1\)")
            self.assertIn("connected to " + sock + " again", err)
        finally:
            b.send_signal(signal.SIGTERM)
            b.wait(10)
            if second:
                second.terminate()
                second.wait(10)
            d.stop()

    def test_bind_with_the_scene_refuses_a_recognizer_it_does_not_have(self):
        tmp = self.tempdir()
        bindings = self.json_file(tmp, "bind.json", {"dubleTap": ["true"]})
        scene = os.path.join(tmp, "scene.json")
        with open(scene, "w") as f:
            f.write(subprocess.run([CTL, "scene", "default"], capture_output=True, text=True, check=True).stdout)
        out = subprocess.run([CTL, "bind", bindings, "--scene", scene, "--socket", os.path.join(tmp, "none.sock")],
                             capture_output=True, text=True, timeout=10)
        self.assertEqual(out.returncode, 1)
        self.assertIn('"dubleTap": ' + scene + ' has no recognizer of that name (did you mean "doubleTap"?)', out.stderr)

    def test_bind_logs_the_names_the_served_scene_lacks(self):
        tmp = self.tempdir()
        bindings = self.json_file(tmp, "bind.json", {"dubleTap": ["true"], "tap": ["true"]})
        d = self.daemon("--no-devices")
        log = open(os.path.join(tmp, "bind.log"), "w+")
        agent = subprocess.Popen([CTL, "bind", bindings, "--socket", d.socket], stdout=log, stderr=subprocess.STDOUT)
        self.addCleanup(log.close)
        self.addCleanup(lambda: agent.wait(10))
        self.addCleanup(agent.terminate)
        def said():
            log.seek(0)
            return log.read()
        self.assertTrue(wait_for(lambda: "dubleTap" in said()))
        said = said()
        self.assertIn('"dubleTap": the daemon\'s scene has no recognizer of that name (did you mean "doubleTap"?)', said)
        self.assertNotIn('"tap":', said)

    def test_listen_exits_with_a_failure_when_the_daemon_goes_away(self):
        d = self.daemon("--no-devices")
        l = subprocess.Popen([CTL, "listen", "--socket", d.socket], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertTrue(d.wait_for_log("client connected"))
        d.proc.send_signal(signal.SIGTERM)
        out, err = l.communicate(timeout=10)
        self.assertEqual(l.returncode, 1)
        self.assertIn('"event":"hello"', out)
        self.assertIn("the daemon closed the connection", err)


if __name__ == "__main__":
    from run import main
    main(["test_bind"])
