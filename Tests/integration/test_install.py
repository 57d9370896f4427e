#!/usr/bin/env python3
"""Installing: --help and --version, make install, the systemd units' hardening."""
import json
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
        # A socket where no daemon runs, and one in a directory that is not there (a mistyped path).
        out = subprocess.run([CTL, "listen", "--socket", os.path.join(self.tempdir(), "tb.sock")], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("not running", out.stderr)
        out = subprocess.run([CTL, "listen", "--socket", "/nonexistent/tb.sock"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 1)
        self.assertIn("there is no directory /nonexistent: is the path right?", out.stderr)

    def test_make_run_passes_its_arguments_to_the_daemon_and_never_to_the_build(self):
        # make exports command-line variables, in them and in MAKEFLAGS; SwiftPM recompiles when its
        # environment changes, so every swift build runs without them (measured: none recompiled after
        # a plain build, where before each new RUN_ARGS recompiled TouchBridge).
        for target in ("run", "demo", "build", "test"):
            out = subprocess.run(["make", "-n", target, "RUN_ARGS=--scene /tmp/mine.json"], cwd=ROOT,
                                 capture_output=True, text=True, timeout=60)
            self.assertEqual(out.returncode, 0, out.stderr)
            builds = [l for l in out.stdout.splitlines() if " build " in l and "swift" in l and "--show-bin-path" not in l]
            self.assertTrue(builds, out.stdout)
            for line in builds:
                self.assertTrue(line.startswith("env -u RUN_ARGS -u MAKEFLAGS"), line)
                self.assertNotIn("mine.json", line)
            if target == "run":
                self.assertIn(".build/release/touchbridged --scene /tmp/mine.json", out.stdout)
                self.assertIn("touchbridgectl is " + ROOT + "/.build/release/touchbridgectl", out.stdout)

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
                  "etc/systemd/user/touchbridge-follow-focus.service",
                  "usr/share/touchbridge/gnome-shell/touchbridge-focus@touchbridge/extension.js",
                  "usr/share/touchbridge/gnome-shell/touchbridge-focus@touchbridge/metadata.json",
                  "etc/systemd/system/touchbridge-tuio.service",
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
        for name in ("touchbridge-follow-rotation.service", "touchbridge-mqtt.service", "touchbridge-tuio.service"):
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
        # The user units: they verify (a user manager's sandbox is its own, so no exposure figure).
        for name in ("touchbridge-bind.service", "touchbridge-follow-sway.service", "touchbridge-follow-focus.service"):
            with open(os.path.join(ROOT, "systemd", name)) as f:
                text = f.read().replace("/usr/local/bin/touchbridgectl", CTL)
            unit = os.path.join(tmp, name)
            with open(unit, "w") as f:
                f.write(text)
            out = subprocess.run(["systemd-analyze", "verify", unit], capture_output=True, text=True)
            self.assertEqual(out.returncode, 0, (name, out.stderr))


def unit_service(name):
    """A unit's [Service] settings: each key's values in order (User, Group, SupplementaryGroups, ...)."""
    settings = {}
    section = None
    with open(os.path.join(ROOT, "systemd", name)) as f:
        for line in f:
            line = line.strip()
            if line.startswith("["):
                section = line
            elif section == "[Service]" and "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                settings.setdefault(k, []).append(v)
    return settings


# Numeric ids standing in for the packaged users and groups (systemd-sysusers makes the real ones; a
# DynamicUser's uid is given by its name, so the daemon's unit and follow-rotation's share one; it is
# nobody's here, whom dbus-daemon can look up, as it looks up a dynamic user through nss-systemd).
IDS = {"touchbridged": 65534, "touchbridge-mqtt": 64991, "touchbridge": 64992, "touchbridge-tuio": 64990}
BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path={}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy>
</busconfig>"""


@unittest.skipUnless(os.geteuid() == 0, "needs root to run the units' users")
class UnitsAsTheirUsersTests(TestCase):
    """Each shipped system unit's ExecStart, run as the unit's User, Group and SupplementaryGroups
    against a daemon as its own (dynamic) user whose socket is root:touchbridge 0660, as
    touchbridged.socket makes it: the unit reaches the socket and does its work."""

    def daemon_as_its_user(self):
        tmp = self.tempdir()
        os.chmod(tmp, 0o755)
        ddir = os.path.join(tmp, "run")
        os.makedirs(ddir)
        os.chown(ddir, IDS["touchbridged"], IDS["touchbridged"])
        d = tbsupport.Daemon(DAEMON, ["--no-devices", "--replay", TAPS, "--replay-loop", "--replay-delay", "0.2"],
                             workdir=ddir, user=IDS["touchbridged"])
        self.addCleanup(d.stop)
        os.chown(d.socket, 0, IDS["touchbridge"])                  # touchbridged.socket: root:touchbridge 0660
        os.chmod(d.socket, 0o660)
        os.chmod(ddir, 0o755)
        return tmp, d

    def as_unit(self, unit, replacements, **popen):
        """The unit's ExecStart with paths replaced, run as its user and groups (setpriv)."""
        svc = unit_service(unit)
        import shlex
        argv = [replacements.get(a, a) for a in shlex.split(svc["ExecStart"][0])]
        user = svc["User"][0]
        group = (svc.get("Group") or [user])[0]
        groups = [g for v in svc.get("SupplementaryGroups", []) for g in v.split()]
        cmd = ["setpriv", "--reuid", str(IDS[user]), "--regid", str(IDS[group])]
        cmd += ["--groups", ",".join(str(IDS[g]) for g in groups)] if groups else ["--clear-groups"]
        p = subprocess.Popen(cmd + argv, **popen)
        self.addCleanup(lambda: (p.poll() is None and p.kill(), p.wait(10)))
        return p

    @unittest.skipUnless(shutil.which("dbus-daemon") and os.path.exists("/usr/bin/python3"), "needs dbus-daemon")
    def test_follow_rotation_service_reaches_the_socket_and_turns_the_panel(self):
        from test_screen import MOCK_PROXY, DEBIAN_PYTHON, have_dbus, rotations
        if not have_dbus():
            self.skipTest("needs python3-dbus and python3-gi")
        tmp, d = self.daemon_as_its_user()
        conf = os.path.join(tmp, "bus.conf")
        bus_path = os.path.join(tmp, "system_bus_socket")
        with open(conf, "w") as f:
            f.write(BUS_CONFIG.format(bus_path))
        bus = subprocess.Popen(["dbus-daemon", "--config-file=" + conf, "--nofork", "--print-address=1"], stdout=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (bus.terminate(), bus.wait(10)))
        address = bus.stdout.readline().strip()
        os.chmod(bus_path, 0o666)
        log = os.path.join(tmp, "proxy.log")
        mock = subprocess.Popen([DEBIAN_PYTHON, MOCK_PROXY, log, "left-up"], env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=address))
        self.addCleanup(lambda: (mock.terminate(), mock.wait(10)))
        self.assertTrue(wait_for(lambda: os.path.exists(log) and "ready" in open(log).read(), timeout=15))
        c = Client(d.socket, ["devices"])
        err = os.path.join(tmp, "follow.err")
        self.as_unit("touchbridge-follow-rotation.service", {CTL_INSTALLED: CTL, "/run/touchbridge/touchbridge.sock": d.socket},
                     env=dict(os.environ, DBUS_SYSTEM_BUS_ADDRESS=address), stdout=subprocess.DEVNULL, stderr=open(err, "w"))
        try:
            c.until(lambda l: 90 in rotations([l]), timeout=20)
        except AssertionError:
            self.fail(open(err).read())
        self.assertNotIn("not permitted", open(err).read())

    def test_mqtt_service_reaches_the_socket(self):
        from broker import Broker, have_mosquitto
        if not have_mosquitto():
            self.skipTest("needs mosquitto")
        tmp, d = self.daemon_as_its_user()
        broker = Broker(tmp, anonymous=True)
        self.addCleanup(broker.stop)
        config = os.path.join(tmp, "mqtt.json")
        with open(config, "w") as f:
            json.dump({"broker": "mqtt://127.0.0.1:{}".format(broker.port), "prefix": "tb/unit"}, f)
        os.chmod(config, 0o644)
        sub = os.path.join(tmp, "sub.log")
        s = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-v", "-t", "tb/unit/#"], stdout=open(sub, "w"))
        self.addCleanup(lambda: (s.kill(), s.wait(10)))
        err = os.path.join(tmp, "mqtt.err")
        self.as_unit("touchbridge-mqtt.service", {CTL_INSTALLED: CTL, "/run/touchbridge/touchbridge.sock": d.socket,
                                                  "/etc/touchbridge/mqtt.json": config},
                     stdout=subprocess.DEVNULL, stderr=open(err, "w"))
        self.assertTrue(wait_for(lambda: "tb/unit/gesture/" in open(sub).read(), timeout=20), open(err).read())
        self.assertIn("tb/unit/status online", open(sub).read())

    def test_tuio_service_reaches_the_socket_and_sends(self):
        import socket as sockets
        tmp, d = self.daemon_as_its_user()
        sink = sockets.socket(sockets.AF_INET, sockets.SOCK_DGRAM)
        sink.bind(("127.0.0.1", 0))
        sink.settimeout(10)
        self.addCleanup(sink.close)
        err = os.path.join(tmp, "tuio.err")
        self.as_unit("touchbridge-tuio.service", {CTL_INSTALLED: CTL, "/run/touchbridge/touchbridge.sock": d.socket,
                                                  "${TUIO_UDP}": "127.0.0.1:%d" % sink.getsockname()[1]},
                     stdout=subprocess.DEVNULL, stderr=open(err, "w"))
        self.assertIn(b"/tuio/2Dcur", sink.recv(65536))        # the first bundle: an empty alive set
        self.assertTrue(wait_for(lambda: "reading " + d.socket in open(err).read(), timeout=10), open(err).read())


CTL_INSTALLED = "/usr/local/bin/touchbridgectl"


if __name__ == "__main__":
    from run import main
    main(["test_install"])
