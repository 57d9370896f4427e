#!/usr/bin/env python3
"""touchbridgectl mqtt against a real Mosquitto broker the tests start on 127.0.0.1 (password file,
ACL): gestures in order at QoS 1, Home Assistant discovery, the last will, the broker restarted mid-replay,
TLS with a CA made here, refused passwords and password files, commands from Home Assistant's switch."""
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)
from broker import Broker, have_mosquitto, port_open  # noqa: E402,F401

PREFIX = "touchbridge/kiosk-1"


class Subscriber:
    """mosquitto_sub as Home Assistant's user: every message, as (topic, payload), in order."""

    def __init__(self, broker, topics=("#",), tls_ca=None, session=None):
        self.path = os.path.join(broker.tmp, "sub-{}.log".format(time.monotonic_ns()))
        cmd = ["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "ha", "-P", "ha-secret", "-q", "1", "-v"]
        if session:
            cmd += ["-c", "-i", session]
        for t in topics:
            cmd += ["-t", t]
        self.proc = subprocess.Popen(cmd, stdout=open(self.path, "w"), stderr=subprocess.STDOUT)
        time.sleep(0.3)

    def messages(self):
        out = []
        with open(self.path) as f:
            for line in f:
                topic, _, payload = line.rstrip("\n").partition(" ")
                out.append((topic, payload))
        return out

    def stop(self):
        # mosquitto_sub disconnects from inside its SIGTERM handler, which takes libmosquitto's packet
        # locks: a signal landing while it acknowledges a QoS 1 message can leave it stuck for good.
        # Its log is already on disk, so a stuck reader is killed.
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)


@unittest.skipUnless(have_mosquitto(), "needs mosquitto, mosquitto-clients and openssl (make test installs them)")
class MQTTTests(TestCase):
    def config(self, server, **extra):
        broker = server
        tmp = broker.tmp
        pw = os.path.join(tmp, "kiosk.pw")
        with open(pw, "w") as f:
            f.write("kiosk-secret\n")
        os.chmod(pw, 0o600)
        c = {"broker": "mqtt://127.0.0.1:{}".format(broker.port), "username": "kiosk", "passwordFile": pw, "prefix": PREFIX}
        c.update(extra)
        path = os.path.join(tmp, "mqtt.json")
        with open(path, "w") as f:
            json.dump(c, f)
        return path

    def bridge(self, config, socket):
        err = open(os.path.join(os.path.dirname(config), "bridge.err"), "a")
        b = subprocess.Popen([CTL, "mqtt", "--config", config, "--socket", socket], stdout=subprocess.DEVNULL, stderr=err)
        self.addCleanup(lambda: (b.poll() is None and b.kill(), b.wait(10)))
        return b

    def bridge_log(self, config):
        with open(os.path.join(os.path.dirname(config), "bridge.err")) as f:
            return f.read()

    def test_every_gesture_arrives_in_order_and_discovery_is_complete(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        sub = Subscriber(broker)
        self.addCleanup(sub.stop)
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-delay", "1.5")
        config = self.config(broker, homeassistant=True, control=True)
        self.bridge(config, d.socket)
        expected = offline(TAPS)
        self.assertTrue(wait_for(lambda: len([m for m in sub.messages() if "/gesture/" in m[0]]) >= len(expected), timeout=30),
                        sub.messages()[-5:])
        time.sleep(0.5)
        msgs = sub.messages()
        gestures = [json.loads(p) for t, p in msgs if t.startswith(PREFIX + "/gesture/")]
        self.assertEqual([(g["recognizer"], g["state"]) for g in gestures], [(e["recognizer"], e["state"]) for e in expected])
        self.assertTrue(all(t == PREFIX + "/gesture/" + json.loads(p)["recognizer"] for t, p in msgs if "/gesture/" in t))
        self.assertIn((PREFIX + "/status", "online"), msgs)
        activity = [json.loads(p) for t, p in msgs if t == PREFIX + "/activity"]
        self.assertEqual([a["touching"] for a in activity][:2], [True, False])
        # Discovery: a trigger per recognizer of the built-in scene, the two sensors, a switch each.
        configs = {t: json.loads(p) for t, p in msgs if t.startswith("homeassistant/") and p}
        triggers = [c for t, c in configs.items() if "/device_automation/" in t]
        scene = json.loads(subprocess.run([CTL, "scene", "default"], capture_output=True, text=True).stdout)
        types = {r["name"]: r["type"] for v in scene["views"] for r in v.get("recognizers", [])}
        names = list(types)
        continuous = [n for n, t in types.items() if t not in ("tap", "swipe")]
        self.assertTrue(continuous)
        self.assertEqual(sorted(c["subtype"] for c in triggers if c["type"] == "gesture"), sorted(names))
        self.assertEqual(sorted(c["subtype"] for c in triggers if c["type"] == "gesture_ended"), sorted(continuous))
        for c in triggers:
            if c["type"] == "wake":
                self.assertEqual((c["automation_type"], c["topic"]), ("trigger", PREFIX + "/wake"))
                continue
            self.assertEqual((c["automation_type"], c["topic"]), ("trigger", PREFIX + "/gesture/" + c["subtype"]))
            # Home Assistant renders value_template on each message and fires when it equals payload:
            # once a gesture, at recognized for a tap or a swipe, at began (or ended) for the others.
            self.assertEqual(c["value_template"], "{{ value_json.state }}")
            want = "ended" if c["type"] == "gesture_ended" else ("recognized" if c["subtype"] not in continuous else "began")
            self.assertEqual(c["payload"], want, c["subtype"])
        self.assertEqual(len([c for c in triggers if c["type"] == "wake"]), 1)
        fired = [g["recognizer"] for g in gestures for c in triggers
                 if c["type"] == "gesture" and c["subtype"] == g["recognizer"] and g["state"] == c["payload"]]
        self.assertEqual(fired, [e["recognizer"] for e in expected if e["state"] in ("recognized", "began")])
        devices = {json.dumps(c["device"], sort_keys=True) for c in configs.values()}
        self.assertEqual(len(devices), 1)                          # one device block for all
        entities = [c for t, c in configs.items() if "/device_automation/" not in t]
        self.assertEqual(len(entities), 2 + len(names))
        for c in entities:
            self.assertEqual(c["availability"], [{"topic": PREFIX + "/status", "payload_available": "online", "payload_not_available": "offline"}])
            self.assertTrue(c["unique_id"].startswith("touchbridge_"))
        sensor = next(c for t, c in configs.items() if "/sensor/" in t)
        self.assertEqual((sensor["device_class"], sensor["state_topic"]), ("timestamp", PREFIX + "/activity"))

    def test_a_touch_on_a_dark_screen_is_published_on_the_wake_topic(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        sub = Subscriber(broker, topics=(PREFIX + "/#",))
        self.addCleanup(sub.stop)
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-delay", "3")
        self.assertEqual(ctl("set", "display", "off", "--socket", d.socket).returncode, 0)
        self.bridge(self.config(broker), d.socket)
        self.assertTrue(wait_for(lambda: len([m for m in sub.messages() if m[0] == PREFIX + "/wake"]) >= 9, timeout=30),
                        sub.messages()[-5:])
        wakes = [json.loads(p) for t, p in sub.messages() if t == PREFIX + "/wake"]
        self.assertEqual(len(wakes), 9)                          # nine taps, each one sequence, each one wake
        self.assertEqual({w["event"] for w in wakes}, {"wake"})
        self.assertEqual([m for m in sub.messages() if "/gesture/" in m[0]], [])

    def test_kill_9_makes_the_broker_publish_offline_and_a_clean_exit_does_too(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        d = self.daemon("--no-devices")
        config = self.config(broker)
        for sig in (signal.SIGKILL, signal.SIGTERM):
            sub = Subscriber(broker, topics=(PREFIX + "/status",))
            b = self.bridge(config, d.socket)
            self.assertTrue(wait_for(lambda: (PREFIX + "/status", "online") in sub.messages(), timeout=15))
            b.send_signal(sig)
            b.wait(10)
            self.assertTrue(wait_for(lambda: sub.messages()[-1:] == [(PREFIX + "/status", "offline")], timeout=15), sub.messages())
            sub.stop()
        self.assertNotIn("kiosk-secret", self.bridge_log(config))    # never logged

    def test_the_broker_restarted_mid_replay_loses_nothing(self):
        tmp = self.tempdir()
        broker = Broker(tmp, persistence=True)
        self.addCleanup(broker.stop)
        sub = Subscriber(broker, topics=(PREFIX + "/gesture/#",), session="ha-fleet")
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-delay", "1.0")
        config = self.config(broker)
        self.bridge(config, d.socket)
        expected = offline(TAPS)
        self.assertTrue(wait_for(lambda: len(sub.messages()) >= 2, timeout=20))
        broker.stop()                                              # mid-replay
        sub.stop()
        time.sleep(1.5)                                            # gestures go on meanwhile
        broker.start()
        sub2 = Subscriber(broker, topics=(PREFIX + "/gesture/#",), session="ha-fleet")
        self.addCleanup(sub2.stop)
        self.assertTrue(wait_for(lambda: len(sub.messages()) + len(sub2.messages()) >= len(expected), timeout=30),
                        (len(sub.messages()), len(sub2.messages()), self.bridge_log(config)[-800:]))
        time.sleep(0.5)
        got = [json.loads(p) for _, p in sub.messages() + sub2.messages()]
        # QoS 1: at least once; nothing lost, in order once duplicates are set aside.
        seen, unique = set(), []
        for g in got:
            if g["time"] not in seen:
                seen.add(g["time"])
                unique.append(g)
        self.assertEqual([g["recognizer"] for g in unique], [e["recognizer"] for e in expected])
        self.assertEqual([g["time"] for g in unique], sorted(g["time"] for g in unique))
        self.assertIn("trying again", self.bridge_log(config))

    def test_tls_with_the_right_ca_is_accepted_and_a_wrong_ca_refused(self):
        tmp = self.tempdir()

        def ca(name):
            key, crt = os.path.join(tmp, name + ".key"), os.path.join(tmp, name + ".crt")
            subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=" + name,
                            "-keyout", key, "-out", crt], check=True, capture_output=True)
            return key, crt
        ca_key, ca_crt = ca("test-ca")
        _, other_crt = ca("other-ca")
        key, csr, crt = (os.path.join(tmp, "server." + e) for e in ("key", "csr", "crt"))
        ext = os.path.join(tmp, "san.ext")
        with open(ext, "w") as f:
            f.write("subjectAltName=IP:127.0.0.1,DNS:localhost\n")
        subprocess.run(["openssl", "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-keyout", key, "-out", csr],
                       check=True, capture_output=True)
        subprocess.run(["openssl", "x509", "-req", "-in", csr, "-CA", ca_crt, "-CAkey", ca_key, "-CAcreateserial", "-days", "2",
                        "-extfile", ext, "-out", crt], check=True, capture_output=True)
        broker = Broker(tmp, tls=(ca_crt, crt, key))
        self.addCleanup(broker.stop)
        d = self.daemon("--no-devices")
        for cafile, ok in ((ca_crt, True), (other_crt, False)):
            config = self.config(broker, broker="mqtts://127.0.0.1:{}".format(broker.port), cafile=cafile)
            b = self.bridge(config, d.socket)
            if ok:
                self.assertTrue(wait_for(lambda: "connected to mqtts://" in self.bridge_log(config), timeout=15), self.bridge_log(config))
            else:
                self.assertTrue(wait_for(lambda: self.bridge_log(config).count("trying again") >= 2, timeout=15), self.bridge_log(config))
                self.assertEqual(self.bridge_log(config).count("connected to mqtts://"), 1)   # the first bridge's only
            b.terminate()
            b.wait(10)

    def test_bad_passwords_and_readable_password_files_are_refused(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        d = self.daemon("--no-devices")
        config = self.config(broker)
        pw = os.path.join(tmp, "kiosk.pw")
        os.chmod(pw, 0o644)
        out = subprocess.run([CTL, "mqtt", "--config", config, "--socket", d.socket], capture_output=True, text=True, timeout=20)
        self.assertEqual(out.returncode, 1)
        self.assertIn("passwordFile: " + pw + " is readable by group or others (mode 0644)", out.stderr)
        self.assertIn("chmod 600 " + pw, out.stderr)
        config = self.config(broker)
        with open(pw, "w") as f:
            f.write("not-the-password\n")
        b = self.bridge(config, d.socket)
        self.assertTrue(wait_for(lambda: "the broker refused the connection" in self.bridge_log(config), timeout=15), self.bridge_log(config))
        self.assertIn("check username and passwordFile", self.bridge_log(config))
        self.assertNotIn("not-the-password", self.bridge_log(config))      # a refused password is never logged either
        b.terminate()

    def test_home_assistants_switch_disables_a_recognizer_and_control_off_ignores_commands(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        d = self.daemon("--no-devices")
        c = Client(d.socket, ["scene"])
        c.next()
        for control in (False, True):
            config = self.config(broker, homeassistant=True, control=control)
            results = Subscriber(broker, topics=(PREFIX + "/command/result",))
            b = self.bridge(config, d.socket)
            self.assertTrue(wait_for(lambda: "connected to mqtt://" in self.bridge_log(config), timeout=15))
            time.sleep(0.5)
            switch = {}
            if control:
                configs = Subscriber(broker, topics=("homeassistant/switch/+/+/config",))
                self.assertTrue(wait_for(lambda: any("doubleTap" in t for t, _ in configs.messages()), timeout=10))
                switch = next(json.loads(p) for t, p in configs.messages() if "/doubleTap/" in t)
                configs.stop()
            payload = switch.get("payload_off", '{"set":{"recognizers":["doubleTap"],"enabled":false}}')
            topic = switch.get("command_topic", PREFIX + "/command")
            subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "ha", "-P", "ha-secret", "-q", "1",
                            "-t", topic, "-m", payload], check=True)
            if control:
                lines = c.until(lambda l: l["event"] == "scene", timeout=15)
                enabled = {r["name"]: r["enabled"] for v in lines[-1]["scene"]["views"] for r in v.get("recognizers", [])}
                self.assertFalse(enabled["doubleTap"])
                self.assertTrue(wait_for(lambda: results.messages(), timeout=10))
                self.assertEqual(json.loads(results.messages()[0][1])["event"], "ok")
            else:
                c.pump(1.5)
                self.assertEqual([l for l in c.lines_seen if l["event"] == "scene"][1:], [])   # nothing changed
                self.assertEqual(results.messages(), [])
            results.stop()
            b.terminate()
            b.wait(10)

    def test_home_assistants_light_sets_the_brightness_and_a_touch_after_dimming_restores_it_and_is_swallowed(self):
        # The panel's backlight, a fake sysfs tree (docs/display.md): dims 1.5 s after the last lift.
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        light = os.path.join(tmp, "sys", "class", "backlight", "panel_bl")
        os.makedirs(light)
        for f, v in (("type", "raw"), ("max_brightness", 200), ("brightness", 200)):
            with open(os.path.join(light, f), "w") as out:
                out.write("{}\n".format(v))
        scene = self.json_file(tmp, "scene.json", {
            "window": {"width": 800, "height": 480}, "display": {"dimAfter": 1.5, "dimTo": 0.1},
            "views": [{"name": "screen", "frame": [0, 0, 800, 480], "recognizers": [{"name": "tap", "type": "tap"}]}]})
        rec = os.path.join(tmp, "tap.evemu")
        tbsupport.evemu_frames(rec, [{0: (2048, 2048)}] * 4, hz=60)
        d = self.daemon("--no-devices", "--sysfs-root", os.path.join(tmp, "sys"), "--scene", scene, "--replay", rec, "--replay-delay", "6")
        c = Client(d.socket, ["gestures", "devices"])
        config = self.config(broker, homeassistant=True, control=True)
        configs = Subscriber(broker, topics=("homeassistant/light/+/+/config", PREFIX + "/display", PREFIX + "/command/result"))
        self.bridge(config, d.socket)
        self.assertTrue(wait_for(lambda: any("/light/" in t for t, _ in configs.messages()), timeout=15), self.bridge_log(config))
        entity = next(json.loads(p) for t, p in configs.messages() if "/light/" in t)
        self.assertEqual((entity["schema"], entity["brightness_scale"], entity["state_topic"]), ("json", 100, PREFIX + "/display"))
        self.assertEqual(entity["supported_color_modes"], ["brightness"])
        # Home Assistant sets 40 %: the backlight is 80 of 200, and the state says so.
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "ha", "-P", "ha-secret", "-q", "1",
                        "-t", entity["command_topic"], "-m", '{"state":"ON","brightness":40}'], check=True)
        self.assertTrue(wait_for(lambda: open(os.path.join(light, "brightness")).read().strip() == "80", timeout=10))
        states = lambda: [json.loads(p) for t, p in configs.messages() if t == PREFIX + "/display"]
        self.assertTrue(wait_for(lambda: {"state": "ON", "brightness": 40, "display": "on", "cause": "command"} in states(), timeout=10))
        # 1.5 s later it dims to 10 %; the replayed tap (6 s in) gives the 40 % back and is no tap.
        lines = c.until(lambda l: l["event"] == "display" and l["cause"] == "touch", timeout=20)
        self.assertEqual([(l["state"], l["cause"]) for l in lines if l["event"] == "display"][-2:], [("dimmed", "idle"), ("on", "touch")])
        self.assertEqual(open(os.path.join(light, "brightness")).read().strip(), "80")
        c.pump(0.5)
        self.assertEqual([l for l in c.lines_seen if l["event"] == "gesture"], [])
        self.assertTrue(wait_for(lambda: states()[-1:] == [{"state": "ON", "brightness": 40, "display": "on", "cause": "touch"}], timeout=10))
        self.assertIn({"state": "ON", "brightness": 10, "display": "dimmed", "cause": "idle"}, states())
        # What Home Assistant must not send is refused with the reason, and changes nothing.
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "ha", "-P", "ha-secret", "-q", "1",
                        "-t", entity["command_topic"], "-m", '{"state":"ON","color":"red"}'], check=True)
        self.assertTrue(wait_for(lambda: any('\\"color\\"' in p or '"color"' in p for t, p in configs.messages() if t.endswith("/result")), timeout=10))
        configs.stop()

    def test_mqtt_3_1_1_works_as_5_does(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        sub = Subscriber(broker)
        self.addCleanup(sub.stop)
        d = self.daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "1")
        config = self.config(broker, protocol="3.1.1")
        self.bridge(config, d.socket)
        self.assertTrue(wait_for(lambda: any(t == PREFIX + "/gesture/twoFingerTap" for t, _ in sub.messages()), timeout=20), sub.messages())
        self.assertIn("MQTT 3.1.1", self.bridge_log(config))
        self.assertIn("mosquitto version", open(os.path.join(tmp, "broker.log")).read())

    def test_a_daemon_restart_is_followed_offline_meanwhile(self):
        import tbsupport
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        ddir = os.path.join(tmp, "daemon")
        os.makedirs(ddir)
        d = tbsupport.Daemon(DAEMON, ["--no-devices"], workdir=ddir)
        sub = Subscriber(broker, topics=(PREFIX + "/status",))
        self.addCleanup(sub.stop)
        config = self.config(broker)
        self.bridge(config, d.socket)
        self.assertTrue(wait_for(lambda: sub.messages()[-1:] == [(PREFIX + "/status", "online")], timeout=15))
        d.stop()
        self.assertTrue(wait_for(lambda: sub.messages()[-1:] == [(PREFIX + "/status", "offline")], timeout=15), sub.messages())
        d2 = tbsupport.Daemon(DAEMON, ["--no-devices"], workdir=ddir)
        self.addCleanup(d2.stop)
        self.assertTrue(wait_for(lambda: sub.messages()[-1:] == [(PREFIX + "/status", "online")], timeout=20), sub.messages())
        self.assertIn("the daemon closed the connection", self.bridge_log(config))

    def test_a_fleet_of_five_loses_nothing_across_a_broker_restart(self):
        out = subprocess.run([sys.executable, os.path.join(ROOT, "bench", "fleet.py"), "--bin", BIN, "--kiosks", "5", "--seconds", "8"],
                             capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stdout[-800:] + out.stderr[-800:])
        figures = json.loads(out.stdout.strip().splitlines()[-1])
        self.assertGreater(figures["sent"], 20)
        self.assertEqual((figures["delivered"], figures["lost"]), (figures["sent"], 0))

    # The command topic as an attacker who reaches the broker sees it (docs/mqtt.md, "What the command
    # topic lets through").

    def anonymous_setup(self, **extra):
        tmp = self.tempdir()
        broker = Broker(tmp, anonymous=True)
        self.addCleanup(broker.stop)
        d = self.daemon("--no-devices")
        path = os.path.join(tmp, "mqtt.json")
        with open(path, "w") as f:
            json.dump(dict({"broker": "mqtt://127.0.0.1:{}".format(broker.port), "prefix": PREFIX, "control": True}, **extra), f)
        results = self.anonymous_sub(broker, PREFIX + "/command/result")
        self.bridge(path, d.socket)
        self.assertTrue(wait_for(lambda: "connected to mqtt://" in self.bridge_log(path), timeout=15))
        time.sleep(0.5)                                          # subscribed to the command topic
        return broker, d, path, results

    def anonymous_sub(self, broker, topic):
        log = os.path.join(broker.tmp, "anon-sub-{}.log".format(time.monotonic_ns()))
        p = subprocess.Popen(["mosquitto_sub", "-h", "127.0.0.1", "-p", str(broker.port), "-q", "1", "-t", topic],
                             stdout=open(log, "w"), stderr=subprocess.STDOUT)
        self.addCleanup(lambda: (p.kill(), p.wait(10)))
        time.sleep(0.3)
        return lambda: [json.loads(l) for l in open(log) if l.strip()]

    def anonymous_pub(self, broker, payload, topic=PREFIX + "/command", retain=False):
        cmd = ["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-q", "1", "-t", topic]
        if retain:
            cmd.append("-r")
        subprocess.run(cmd + ["-s"], input=payload, text=True, check=True, timeout=15)

    KEYS_SCENE = {"scene": {"name": "pwn", "views": [{"name": "pad", "frame": [0, 0, 100, 100], "recognizers": [
        {"name": "tap", "type": "tap", "action": {"keys": "KEY_POWER"}}]}]}}
    PLAIN_SCENE = {"scene": {"name": "pad", "views": [{"name": "pad", "frame": [0, 0, 100, 100], "recognizers": [
        {"name": "tap", "type": "tap"}]}]}}

    def test_an_anonymous_client_of_the_broker_cannot_push_keystrokes(self):
        broker, d, config, results = self.anonymous_setup()
        self.anonymous_pub(broker, json.dumps(self.KEYS_SCENE))
        self.assertTrue(wait_for(lambda: results(), timeout=10))
        self.assertEqual(results()[0]["event"], "error")
        self.assertIn('unless the configuration says "allowScenes": true', results()[0]["message"])
        time.sleep(0.5)
        self.assertNotIn("scene accepted", d.text())
        self.assertRegex(self.bridge_log(config), r"command on touchbridge/kiosk-1/command \(\d+ bytes\) refused: scene: scenes from the broker are refused")
        self.assertNotIn("KEY_POWER", self.bridge_log(config))          # the log says topic and size, not the payload

    def test_with_allow_scenes_a_scene_without_actions_is_taken_and_one_with_actions_refused(self):
        broker, d, config, results = self.anonymous_setup(allowScenes=True)
        self.anonymous_pub(broker, json.dumps(self.KEYS_SCENE))
        self.assertTrue(wait_for(lambda: results(), timeout=10))
        self.assertEqual(results()[0]["message"], 'scene "pwn": view "pad", recognizer "tap" has an "action": actions come only from '
                         'scene files and local control peers, never from the broker; the scene is refused whole')
        self.assertNotIn("scene accepted", d.text())
        self.anonymous_pub(broker, json.dumps(self.PLAIN_SCENE))
        self.assertTrue(wait_for(lambda: len(results()) == 2, timeout=10))
        self.assertEqual(results()[1]["event"], "ok")
        self.assertTrue(d.wait_for_log(r'scene accepted \(scene "pad", 1 view\)'), d.text())
        self.assertIn("carried out", self.bridge_log(config))
        # A command of 70 KB is refused by the bridge: the daemon never sees it, and the bridge's scene stays.
        self.anonymous_pub(broker, json.dumps({"set": {"recognizers": ["x" * 70000], "enabled": False}}))
        self.assertTrue(wait_for(lambda: len(results()) == 3, timeout=10))
        self.assertIn("bytes is refused: at most 16384 bytes", results()[2]["message"])
        c = Client(d.socket, ["scene"])
        names = [r["name"] for v in c.until(lambda l: l["event"] == "scene")[-1]["scene"]["views"] for r in v.get("recognizers", [])]
        self.assertIn("pad/tap", names)
        self.assertNotIn("disconnected", d.text().split("scene accepted")[-1])

    def test_a_retained_command_is_not_carried_out_when_the_bridge_reconnects(self):
        broker, d, config, results = self.anonymous_setup()
        c = Client(d.socket, ["scene"])
        c.next()
        # Published with the retain flag while the bridge listens: a live command, carried out once.
        off = json.dumps({"set": {"recognizers": ["doubleTap"], "enabled": False}})
        self.anonymous_pub(broker, off, retain=True)
        self.assertTrue(wait_for(lambda: results(), timeout=10))
        self.assertEqual(results()[0]["event"], "ok")
        ctl("enable", "doubleTap", "--socket", d.socket)
        # The bridge connects again: the broker replays the retained command, which is refused.
        subprocess.run(["pkill", "-f", "mqtt --config " + config])
        time.sleep(0.5)
        self.bridge(config, d.socket)
        self.assertTrue(wait_for(lambda: len(results()) == 2, timeout=15), results())
        self.assertEqual(results()[1]["message"], "retained commands are not carried out: clear it with "
                         "`mosquitto_pub -r -n -t touchbridge/kiosk-1/command`")
        scene = c.until(lambda l: l["event"] == "scene" and all(
            r["enabled"] for v in l["scene"]["views"] for r in v.get("recognizers", []) if r["name"] == "doubleTap"), timeout=10)[-1]
        c.pump(1.0)
        self.assertEqual([l for l in c.lines_seen if l["event"] == "scene"], [])      # nothing changed after the replay
        self.assertIsNotNone(scene)

    def test_bad_json_on_the_command_topic_gets_the_topics_own_syntax(self):
        broker, d, config, results = self.anonymous_setup()
        self.anonymous_pub(broker, "not json at all")
        self.assertTrue(wait_for(lambda: results(), timeout=10))
        said = results()[0]["message"]
        self.assertIn("the command topic takes one set command a message, such as", said)
        self.assertNotIn("subscribe", said)                            # the socket's advice is not this topic's

    def test_a_broker_that_is_down_is_named_at_every_attempt_with_the_remedy(self):
        tmp = self.tempdir()
        d = self.daemon("--no-devices")
        path = os.path.join(tmp, "mqtt.json")
        with open(path, "w") as f:
            json.dump({"broker": "mqtt://127.0.0.1:{}".format(free_port()), "prefix": PREFIX}, f)
        b = self.bridge(path, d.socket)
        self.assertTrue(wait_for(lambda: self.bridge_log(path).count("systemctl status mosquitto") >= 2, timeout=15), self.bridge_log(path))
        self.assertIn("Connection refused (is the broker running there? systemctl status mosquitto; or correct \"broker\" in " + path,
                      self.bridge_log(path))
        b.terminate()

    def test_doctor_with_a_daemon_and_a_broker(self):
        tmp = self.tempdir()
        broker = Broker(tmp, anonymous=True)
        self.addCleanup(broker.stop)
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-loop", "--replay-delay", "0.1")
        up = os.path.join(tmp, "up.json")
        down = os.path.join(tmp, "down.json")
        with open(up, "w") as f:
            json.dump({"broker": "mqtt://127.0.0.1:{}".format(broker.port), "prefix": PREFIX}, f)
        with open(down, "w") as f:
            json.dump({"broker": "mqtt://127.0.0.1:{}".format(free_port()), "prefix": PREFIX}, f)
        time.sleep(0.5)
        out = ctl("doctor", "--socket", d.socket, "--mqtt", up)
        lines = out.stdout.splitlines()
        self.assertIn("✓ the daemon's socket {}: touchbridged ".format(d.socket), out.stdout)
        self.assertRegex(out.stdout, r"answers \(pid \d+, user root\), protocol 2")
        self.assertIn('✓ device 0 of the daemon: "Atmel maXTouch Touchscreen", played from ' + TAPS, lines)
        self.assertRegex(out.stdout, r"✓ the scene in use: window \d+×\d+ pt, 1 view, \d+ recognizers")
        self.assertIn("✓ MQTT broker mqtt://127.0.0.1:{} accepts connections".format(broker.port), lines)
        # Exit 0 only when everything needed is there: here /dev/uinput decides.
        self.assertEqual(out.returncode, 1 if any(l.startswith("✗") for l in lines) else 0, out.stdout)
        out = ctl("doctor", "--socket", d.socket, "--mqtt", down)
        self.assertEqual(out.returncode, 1)
        self.assertIn("Connection refused (is it running? systemctl status mosquitto)", out.stdout)

    def test_a_recognizer_named_like_json_gets_discovery_that_names_exactly_it(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        name, other = 't","*', 't","x'
        scene = os.path.join(tmp, "scene.json")
        with open(scene, "w") as f:
            json.dump({"window": {"width": 100, "height": 100}, "views": [{"name": "v", "frame": [0, 0, 100, 100], "recognizers": [
                {"name": name, "type": "tap"}, {"name": other, "type": "tap", "numberOfTapsRequired": 2}]}]}, f)
        d = self.daemon("--no-devices", "--scene", scene)
        configs = Subscriber(broker, topics=("homeassistant/switch/+/+/config",))
        self.addCleanup(configs.stop)
        self.bridge(self.config(broker, homeassistant=True, control=True), d.socket)
        self.assertTrue(wait_for(lambda: len(configs.messages()) >= 2, timeout=15), configs.messages())
        switches = [json.loads(p) for _, p in configs.messages()]          # every payload parses
        mine = next(s for s in switches if s["name"] == name)
        for key, enabled in (("payload_on", True), ("payload_off", False)):
            self.assertEqual(json.loads(mine[key]), {"set": {"recognizers": [name], "enabled": enabled}})
        c = Client(d.socket, ["scene"])
        c.next()
        subprocess.run(["mosquitto_pub", "-h", "127.0.0.1", "-p", str(broker.port), "-u", "ha", "-P", "ha-secret", "-q", "1",
                        "-t", mine["command_topic"], "-m", mine["payload_off"]], check=True)
        enabled = {r["name"]: r["enabled"] for v in c.until(lambda l: l["event"] == "scene", timeout=15)[-1]["scene"]["views"]
                   for r in v.get("recognizers", [])}
        self.assertEqual(enabled, {name: False, other: True})            # exactly it: the * names no other

    def test_a_stroke_gets_a_trigger_a_shape_that_fires_on_its_shape(self):
        tmp = self.tempdir()
        broker = Broker(tmp)
        self.addCleanup(broker.stop)
        scene = self.json_file(tmp, "scene.json", {"window": {"width": 800, "height": 800}, "views": [{"name": "v", "frame": [0, 0, 800, 800],
                                                  "recognizers": [{"name": "draw", "type": "stroke", "shapes": ["circle", "Z"]}]}]})
        shapes = tbsupport.builtin_shapes(CTL)
        import random
        rng = random.Random(7)
        rec = os.path.join(tmp, "circle.evemu")
        tbsupport.stroke_recording(rec, [tbsupport.paced(tbsupport.drawn_stroke(shapes["circle"][0], rng, size=180, wobble=2), 0.9)])
        d = self.daemon("--no-devices", "--scene", scene, "--replay", rec, "--replay-delay", "2")
        configs = Subscriber(broker, topics=("homeassistant/device_automation/+/+/config",))
        self.addCleanup(configs.stop)
        gestures = Subscriber(broker, topics=("touchbridge/+/gesture/#",))
        self.addCleanup(gestures.stop)
        self.bridge(self.config(broker, homeassistant=True), d.socket)
        self.assertTrue(wait_for(lambda: len([t for t, _ in configs.messages() if "_shape_" in t]) >= 2, timeout=15), configs.messages())
        triggers = {json.loads(p)["subtype"]: json.loads(p) for t, p in configs.messages() if "_shape_" in t}
        self.assertEqual(sorted(triggers), ["draw Z", "draw circle"])
        circle = triggers["draw circle"]
        self.assertEqual((circle["type"], circle["value_template"], circle["payload"]), ("gesture_shape", "{{ value_json.shape }}", "circle"))
        # The drawn circle's line, on the trigger's topic, has the payload the trigger compares.
        self.assertTrue(wait_for(lambda: any(t == circle["topic"] for t, _ in gestures.messages()), timeout=20), gestures.messages())
        line = json.loads(next(p for t, p in gestures.messages() if t == circle["topic"]))
        self.assertEqual(line["shape"], circle["payload"])

    def test_configuration_errors_name_the_file_the_line_and_the_path(self):
        tmp = self.tempdir()
        path = os.path.join(tmp, "mqtt.json")
        with open(path, "w") as f:
            f.write('{\n  "broker": "mqtt://127.0.0.1:1883",\n  "qso": 1\n}\n')
        out = ctl("mqtt", "--config", path)
        self.assertEqual(out.returncode, 1)
        self.assertIn(path + ':3: qso: unknown key "qso" (did you mean "qos"?)', out.stderr)


if __name__ == "__main__":
    unittest.main()
