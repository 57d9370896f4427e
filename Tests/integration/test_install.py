#!/usr/bin/env python3
"""Installing: --help and --version, make install, the systemd units' hardening."""
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)


class InstallTests(TestCase):
    def test_help_version_and_bad_options(self):
        for tool in (DAEMON, CTL):
            out = subprocess.run([tool, "--help"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0)
            self.assertIn("usage:", out.stdout)
            out = subprocess.run([tool, "--version"], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0)
            self.assertRegex(out.stdout, r"\d+\.\d+\.\d+")
        out = subprocess.run([DAEMON, "--sceen", "x"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        self.assertIn("unknown option --sceen", out.stderr)
        out = subprocess.run([CTL, "frobnicate"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 2)
        out = subprocess.run([CTL, "replay", "/nonexistent.evemu"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("/nonexistent.evemu", out.stderr)
        out = subprocess.run([CTL, "listen", "--socket", "/nonexistent/tb.sock"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("not running", out.stderr)

    def test_make_install_puts_the_prefix_into_the_units_and_the_rule(self):
        tmp = self.tempdir()
        out = subprocess.run(["make", "-s", "-o", "release", "install", "DESTDIR=" + tmp, "PREFIX=/usr", "BIN=" + BIN],
                             cwd=ROOT, capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        for f in ("usr/bin/touchbridged", "usr/bin/touchbridgectl", "etc/systemd/system/touchbridged.socket",
                  "etc/sysusers.d/touchbridge.conf", "etc/modules-load.d/touchbridge.conf", "etc/touchbridge/scene.json",
                  "usr/share/doc/touchbridge/examples/bindings.json", "usr/share/doc/touchbridge/examples/listen.py",
                  "usr/share/touchbridge/scenes/gnome.json", "usr/share/touchbridge/scenes/kde.json",
                  "usr/share/touchbridge/scenes/sway.json", "usr/share/touchbridge/scenes/kiosk.json",
                  "etc/systemd/system/touchbridge-follow-rotation.service",
                  "etc/systemd/user/touchbridge-follow-sway.service", "etc/systemd/system/touchbridge-mqtt.service",
                  "usr/share/doc/touchbridge/examples/mqtt.json"):
            self.assertTrue(os.path.exists(os.path.join(tmp, f)), f)
        with open(os.path.join(tmp, "etc/systemd/system/touchbridged.service")) as f:
            self.assertIn("ExecStart=/usr/bin/touchbridged --scene /etc/touchbridge/scene.json", f.read())
        with open(os.path.join(tmp, "etc/systemd/user/touchbridge-bind.service")) as f:
            self.assertIn("ExecStart=/usr/bin/touchbridgectl bind", f.read())
        with open(os.path.join(tmp, "etc/udev/rules.d/70-touchbridge.rules")) as f:
            rule = f.read()
        self.assertIn('IMPORT{program}="/usr/bin/touchbridgectl udev-mirror-properties %k"', rule)
        self.assertNotIn("/usr/local", rule)
        with open(os.path.join(tmp, "etc/udev/rules.d/85-touchbridge-mirror-group.rules")) as f:
            self.assertIn('ENV{LIBINPUT_DEVICE_GROUP}="$env{TOUCHBRIDGE_DEVICE_GROUP}"', f.read())
        with open(os.path.join(tmp, "etc/sysusers.d/touchbridge.conf")) as f:
            groups = f.read()
        self.assertIn("g touchbridge -", groups)
        self.assertIn("g uinput -", groups)
        # A second install keeps the scene the user edited.
        with open(os.path.join(tmp, "etc/touchbridge/scene.json"), "w") as f:
            f.write("mine")
        subprocess.run(["make", "-s", "-o", "release", "install", "DESTDIR=" + tmp, "PREFIX=/usr", "BIN=" + BIN],
                       cwd=ROOT, capture_output=True, timeout=60, check=True)
        with open(os.path.join(tmp, "etc/touchbridge/scene.json")) as f:
            self.assertEqual(f.read(), "mine")

    @unittest.skipUnless(shutil.which("systemd-analyze"), "systemd-analyze is not installed")
    def test_systemd_units_verify_and_are_hardened(self):
        tmp = self.tempdir()
        for unit in ("touchbridged.service", "touchbridged.socket"):
            with open(os.path.join(ROOT, "systemd", unit)) as f:
                text = f.read().replace("/usr/local/bin/touchbridged", DAEMON)
            with open(os.path.join(tmp, unit), "w") as f:
                f.write(text)
        out = subprocess.run(["systemd-analyze", "verify", os.path.join(tmp, "touchbridged.service"),
                              os.path.join(tmp, "touchbridged.socket")], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        out = subprocess.run(["systemd-analyze", "security", "--offline=true", os.path.join(tmp, "touchbridged.service")],
                             capture_output=True, text=True)
        exposure = float(out.stdout.split("Overall exposure level for touchbridged.service:")[1].split()[0])
        self.assertLessEqual(exposure, 2.0)
        # follow-rotation iio and the MQTT bridge: as hardened (the bridge with the network), with the
        # daemon's units beside them.
        for name in ("touchbridge-follow-rotation.service", "touchbridge-mqtt.service"):
            with open(os.path.join(ROOT, "systemd", name)) as f:
                text = f.read().replace("/usr/local/bin/touchbridgectl", CTL)
            unit = os.path.join(tmp, name)
            with open(unit, "w") as f:
                f.write(text)
            out = subprocess.run(["systemd-analyze", "verify", unit, os.path.join(tmp, "touchbridged.service"),
                                  os.path.join(tmp, "touchbridged.socket")], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, out.stderr)
            out = subprocess.run(["systemd-analyze", "security", "--offline=true", unit], capture_output=True, text=True)
            exposure = float(out.stdout.split("Overall exposure level for {}:".format(name))[1].split()[0])
            self.assertLessEqual(exposure, 2.0, name)


if __name__ == "__main__":
    from run import main
    main(["test_install"])
