#!/usr/bin/env python3
"""The visualizer's page in a real browser (headless Chromium): a replay report, and the live page."""
import json
import math
import os
import re
import socket
import subprocess
import sys
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)
import headless  # noqa: E402


@unittest.skipUnless(headless.chromium(), "needs chromium (make deps installs it)")
class VisualizerTests(TestCase):
    """The visualizer's page in a real browser (headless Chromium): a replay report, and the live page."""
    def test_a_report_shows_the_views_the_touches_and_the_recognizers_that_fired(self):
        tmp = self.tempdir()
        report = os.path.join(tmp, "taps.html")
        out = subprocess.run([CTL, "replay", "--html", report, TAPS], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual([json.loads(l)["recognizer"] for l in out.stdout.splitlines()], ["doubleTap"] * 4 + ["tap"])
        self.assertIn("wrote " + report, out.stderr)
        with open(report) as f:
            page = f.read()
        self.assertNotIn("http://", page.replace("http://www.w3.org/2000/svg", ""))   # nothing fetched
        with headless.Browser() as b:
            p = b.open("file://" + report)
            self.assertTrue(p.wait_for("document.body.dataset.lines > 0"))
            shown = p.evaluate("""({
                views: [...document.querySelectorAll('[data-view]')].filter(e => e.tagName == 'polygon').map(e => e.dataset.view),
                touches: [...document.querySelectorAll('g.touch')].map(e => e.dataset.phase),
                fired: Object.fromEntries([...document.querySelectorAll('.lane')].map(e => [e.dataset.recognizer, +e.dataset.fired])),
                reasons: Object.fromEntries([...document.querySelectorAll('.lane')].map(e => [e.dataset.recognizer, e.querySelector('.reason').textContent])),
                clock: document.getElementById('clock').textContent })""")
            self.assertEqual(shown["views"], ["screen"])
            self.assertEqual(shown["touches"], ["ended"] * 9)          # opens at the end: every finger lifted
            self.assertEqual(shown["fired"]["doubleTap"], 4)
            self.assertEqual(shown["fired"]["tap"], 1)
            self.assertEqual(shown["fired"]["pan"], 0)
            self.assertTrue(shown["reasons"]["longPress"].startswith("failed: lifted before 0.5 s"), shown["reasons"])
            self.assertTrue(shown["reasons"]["twoFingerTap"].startswith("failed: "), shown["reasons"])
            # Scrubbed back to the first tap's lift: the single tap waits for the double tap to fail.
            p.evaluate("""(() => { const lifts = [...M.touches.values()][0].pts.filter(q => q.phase == 'ended');
                                   S.t = lifts[0].time + 0.01; S.follow = false; S.dirty = true; draw(); })()""")
            self.assertEqual(p.evaluate("document.querySelector('.lane[data-recognizer=tap] .reason').textContent"),
                             "waits for doubleTap to fail")
            # Reasons are shown whole: no lane's "now" column is cut.
            p.evaluate("S.t = M.t1; S.dirty = true; draw()")
            self.assertEqual(p.evaluate("[...document.querySelectorAll('.lane .now')].filter(e => e.scrollWidth > e.clientWidth + 1).length"), 0)
            self.assertRegex(p.evaluate("document.querySelector('.lane[data-recognizer=edgeLeft] .reason').textContent"),
                             r"^failed: began [\d.]+ pt from the nearest edge \(within 24 pt of left\)$")

    def test_a_report_says_each_state_once(self):
        tmp = self.tempdir()
        report = os.path.join(tmp, "scroll.html")
        out = subprocess.run([CTL, "replay", "--html", report, SCROLL], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        with headless.Browser() as b:
            p = b.open("file://" + report)
            self.assertTrue(p.wait_for("document.body.dataset.lines > 0"))
            # In the middle of the pan: the lane says "changed" once, then the pan's values.
            p.evaluate("""(() => { const g = M.lanes.get('pan').gestures.filter(g => g.state == 'changed');
                                   S.t = g[Math.floor(g.length / 2)].time; S.follow = false; S.dirty = true; draw(); })()""")
            state = p.evaluate("document.querySelector('.lane[data-recognizer=pan] .state').textContent")
            value = p.evaluate("document.querySelector('.lane[data-recognizer=pan] .value').textContent")
            self.assertEqual(state, "changed")
            self.assertTrue(value.startswith("translation "), value)

    def test_a_report_draws_each_recognized_stroke_with_its_template(self):
        import random
        tmp = self.tempdir()
        shapes = tbsupport.builtin_shapes(CTL)
        rng = random.Random(3)
        rec = os.path.join(tmp, "strokes.evemu")
        tbsupport.stroke_recording(rec, [tbsupport.paced(tbsupport.drawn_stroke(shapes[n][0], rng, size=170, wobble=2), 0.9)
                                         for n in ("circle", "question")])
        scene = self.json_file(tmp, "draw.json", {"window": {"width": 800, "height": 800}, "views": [
            {"name": "canvas", "frame": [0, 0, 800, 800], "recognizers": [{"name": "draw", "type": "stroke"}]}]})
        report = os.path.join(tmp, "strokes.html")
        out = subprocess.run([CTL, "replay", "--scene", scene, "--html", report, rec], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        with headless.Browser() as b:
            p = b.open("file://" + report)
            self.assertTrue(p.wait_for("document.body.dataset.lines > 0"))
            p.evaluate("S.t = M.t1; S.follow = false; S.dirty = true; draw()")
            drawn = p.evaluate("[...document.querySelectorAll('.stroke-template')].map(g => g.dataset.shape + ' ' + g.querySelector('polyline').getAttribute('points').split(' ').length)")
            self.assertEqual(drawn, ["circle 16", "question 16"])
            self.assertRegex(p.evaluate("document.querySelector('.lane[data-recognizer=draw] .value').textContent"), r"question (0\.9\d|1\.00)")

    def test_a_report_marks_actions_on_their_recognizers_lanes(self):
        tmp = self.tempdir()
        report = os.path.join(tmp, "gnome.html")
        scene = os.path.join(ROOT, "scenes", "gnome.json")
        swipe = os.path.join(FIXTURES, "synthetic__panel__3fg-swipe-left.evemu")
        out = subprocess.run([CTL, "replay", "--scene", scene, "--actions", "--html", report, swipe],
                             capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        printed = [json.loads(l) for l in out.stdout.splitlines()]
        self.assertIn("action", [l["event"] for l in printed])            # --actions prints them too
        with headless.Browser() as b:
            p = b.open("file://" + report)
            self.assertTrue(p.wait_for("document.body.dataset.lines > 0"))
            # The three-finger pan plays on the touchpad: mid-swipe its lane draws the pad's three fingers,
            # where the last touchpad line put them; after the lift, none.
            touchpad = [l for l in printed if l["event"] == "action" and l["action"] == "touchpad"]
            mid = touchpad[len(touchpad) // 2]
            p.evaluate("S.t = {}; S.follow = false; S.dirty = true; draw()".format(mid["time"]))
            lane = "document.querySelector('.lane[data-recognizer=workspaces]')"
            self.assertEqual(p.evaluate(lane + ".dataset.actions"), str(len(touchpad) // 2 + 1))
            self.assertIn("touchpad 3 fingers", p.evaluate(lane + ".querySelector('.value').textContent"))
            self.assertEqual(p.evaluate(lane + ".querySelector('.pad').dataset.fingers"), "3")
            self.assertFalse(p.evaluate(lane + ".querySelector('.pad').hasAttribute('hidden')"))
            cx = p.evaluate("[..." + lane + ".querySelectorAll('.pad circle')].map(c => +c.getAttribute('cx'))")
            self.assertEqual(cx, [math.floor(f[0] * 10 + 0.5) / 10 for f in mid["fingers"]])      # as the page rounds
            p.evaluate("S.t = M.t1; S.dirty = true; draw()")
            self.assertTrue(p.evaluate(lane + ".querySelector('.pad').hasAttribute('hidden')"))
            self.assertIn("touchpad lifted", p.evaluate(lane + ".querySelector('.value').textContent"))
            self.assertEqual(p.evaluate("document.querySelector('.lane[data-recognizer=contextMenu]').dataset.actions"), "0")

    def test_a_report_draws_a_pencil_with_its_tilt(self):
        tmp = self.tempdir()
        report = os.path.join(tmp, "pen.html")
        pen = os.path.join(FIXTURES, "evemu-devices__wacom-cintiq-13hd-pen__hover-strokes.evemu")
        out = subprocess.run([CTL, "replay", "--touches", "--html", report, pen], capture_output=True, text=True, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        touches = [json.loads(l) for l in out.stdout.splitlines() if json.loads(l)["event"] == "touch"]
        strokes = sorted({t["id"] for t in touches if t["type"] == "pencil"})
        self.assertEqual(len(strokes), 2)                                  # two strokes of the pen's tip
        moved = next(t for t in touches if t["phase"] == "moved")
        with headless.Browser() as b:
            p = b.open("file://" + report)
            self.assertTrue(p.wait_for("document.body.dataset.lines > 0"))
            self.assertEqual(p.evaluate("[...document.querySelectorAll('g.touch')].map(e => e.dataset.type)"), ["pencil"] * 2)
            # Mid-stroke: a dot, its tilt along the azimuth (as long as the pen leans), the force in its label.
            p.evaluate("S.t = {}; S.follow = false; S.dirty = true; draw()".format(moved["time"]))
            g = "document.querySelector('g.touch[data-touch=\"{}\"]')".format(moved["id"])
            tilt = p.evaluate("(() => {{ const l = {}.querySelector('line.tilt'); return l && [+l.getAttribute('x1'), +l.getAttribute('y1'), +l.getAttribute('x2'), +l.getAttribute('y2')]; }})()".format(g))
            self.assertIsNotNone(tilt)
            self.assertAlmostEqual(tilt[0], moved["x"], delta=0.02)
            angle = math.atan2(tilt[3] - tilt[1], tilt[2] - tilt[0])
            self.assertAlmostEqual(math.remainder(angle - moved["azimuth"], 2 * math.pi), 0, delta=0.01)
            self.assertIn("pencil · force ", p.evaluate(g + ".querySelector('text').textContent"))

    def test_a_report_of_twenty_seconds_of_ten_fingers_stays_under_5_MB(self):
        tmp = self.tempdir()
        recording = os.path.join(tmp, "ten.evemu")
        tbsupport.evemu_frames(recording, tbsupport.ten_finger_frames(seconds=20))
        report = os.path.join(tmp, "ten.html")
        out = subprocess.run([CTL, "replay", "--html", report, recording], capture_output=True, text=True, timeout=120)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertLess(os.path.getsize(report), 5 * 1024 * 1024)

    def visualize(self, d, *args):
        """touchbridgectl visualize on a free loopback port: the process and the address it printed."""
        port = free_port()
        vis = subprocess.Popen([CTL, "visualize", "--socket", d.socket, "--listen", "127.0.0.1:{}".format(port)] + list(args),
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: vis.wait(10))
        self.addCleanup(vis.terminate)
        said = vis.stdout.readline().strip()
        m = re.match(r"touchbridgectl visualize: open (http://127\.0\.0\.1:{}/(\?token=([0-9a-f]{{32}}))?) in a browser "
                     r"\(the daemon: (.*)\)$".format(port), said)
        self.assertIsNotNone(m, said)
        self.assertEqual(m.group(4), d.socket)
        return vis, port, m.group(1), m.group(3)

    def test_the_live_page_gets_the_touches_and_gestures_of_a_replaying_daemon(self):
        d = self.daemon("--no-devices", "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.5")
        vis, port, url, token = self.visualize(d, "--touches")
        self.assertIsNotNone(token)
        with headless.Browser() as b:
            p = b.open(url)
            self.assertTrue(p.wait_for("document.body.dataset.gestures > 0 && document.body.dataset.touches > 0", 30))
            self.assertEqual(p.evaluate("document.getElementById('status').textContent"), "connected")
            self.assertEqual(p.evaluate("document.getElementById('mode').textContent"), "live")
            self.assertTrue(p.wait_for("+document.querySelector('.lane[data-recognizer=pan]').dataset.fired > 0", 15))
            self.assertTrue(p.evaluate("[...document.querySelectorAll('[data-device]')].length == 1"))
        # Anything but loopback is said to show the page to the network.
        exposed = subprocess.Popen([CTL, "visualize", "--socket", d.socket, "--listen", "0.0.0.0:{}".format(free_port())],
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertIn("not loopback: anyone who can reach it and has the token sees every gesture", exposed.stderr.readline())
        exposed.terminate()
        exposed.wait(10)
        other = subprocess.run([CTL, "visualize", "--socket", d.socket, "--listen", "nonsense"], capture_output=True, text=True, timeout=10)
        self.assertEqual(other.returncode, 1)
        self.assertIn("--listen takes ADDR:PORT", other.stderr)
        vis.terminate()
        _, err = vis.communicate(timeout=10)
        self.assertNotIn(token, err)                                  # the address is said once, on stdout

    def test_the_live_page_shows_the_focused_app_and_greys_what_it_turns_off(self):
        scene = self.json_file(self.tempdir(), "apps.json", {
            "window": {"width": 1280, "height": 800},
            "devices": [{"name": "*", "passthrough": True, "passthroughApps": ["krita"]}],
            "views": [{"name": "screen", "frame": [0, 0, 1280, 800], "recognizers": [
                {"name": "browserPan", "type": "pan", "apps": ["firefox"]},
                {"name": "otherPan", "type": "pan", "exceptApps": ["firefox"]}]}]})
        d = self.daemon("--no-devices", "--scene", scene, "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.5")
        self.assertEqual(ctl("set", "focus", "--app", "firefox", "--title", "Planet", "--socket", d.socket).returncode, 0)
        vis, port, url, token = self.visualize(d)
        lane = "document.querySelector('.lane[data-recognizer={}]').dataset.inScope"
        with headless.Browser() as b:
            p = b.open(url)                           # opened after the focus was set: told with the scene
            self.assertTrue(p.wait_for("document.querySelector('#focus [data-app]').dataset.app == 'firefox'", 30))
            self.assertIn("Planet", p.evaluate("document.getElementById('focus').textContent"))
            self.assertTrue(p.wait_for(lane.format("browserPan") + " == 'yes' && " + lane.format("otherPan") + " == 'no'", 15))
            # A drawing app of passthroughApps: no recognizer takes part, and the page says why.
            self.assertEqual(ctl("set", "focus", "--app", "krita", "--socket", d.socket).returncode, 0)
            self.assertTrue(p.wait_for(lane.format("browserPan") + " == 'no' && " + lane.format("otherPan") + " == 'no'", 15))
            self.assertIn("every touch to the app", p.evaluate("document.getElementById('focus').textContent"))
            self.assertEqual(ctl("set", "focus", "--none", "--socket", d.socket).returncode, 0)
            self.assertTrue(p.wait_for("document.getElementById('focus').textContent == 'none known'", 15))
            self.assertTrue(p.wait_for(lane.format("otherPan") + " == 'yes'", 15))

    def test_the_page_is_private_a_wrong_host_or_no_token_gets_nothing(self):
        d = self.daemon("--no-devices", "--replay", SCROLL, "--replay-loop", "--replay-delay", "0.5")
        vis, port, url, token = self.visualize(d)

        def get(path, host="127.0.0.1:{}".format(port), cookie=None, seconds=1.5):
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            head = "GET {} HTTP/1.1\r\nHost: {}\r\n".format(path, host) + ("Cookie: {}\r\n".format(cookie) if cookie else "")
            s.sendall((head + "\r\n").encode())
            s.settimeout(0.2)
            data = b""
            end = time.monotonic() + seconds
            try:
                while time.monotonic() < end:
                    try:
                        chunk = s.recv(65536)
                    except socket.timeout:
                        continue
                    if not chunk:
                        break
                    data += chunk
            except ConnectionResetError:
                pass
            s.close()
            return data.decode(errors="replace")

        # A DNS-rebinding page names its own host: refused, and no event reaches it.
        for path in ("/events?token=" + token, "/?token=" + token):
            answer = get(path, host="attacker.example")
            self.assertTrue(answer.startswith("HTTP/1.1 421"), answer[:200])
            self.assertNotIn("data:", answer)
        self.assertTrue(get("/events?token=" + token, host="attacker.example:{}".format(port)).startswith("HTTP/1.1 421"))
        # Without the token every path is forbidden, the page included.
        for path in ("/", "/events", "/nothing", "/?token=" + "0" * 32):
            answer = get(path)
            self.assertTrue(answer.startswith("HTTP/1.1 403"), (path, answer[:200]))
            self.assertNotIn("data:", answer)
        # With it: the page sets a cookie, which the page's own stream request carries.
        page = get("/?token=" + token)
        self.assertTrue(page.startswith("HTTP/1.1 200"))
        cookie = re.search(r"Set-Cookie: (touchbridge_token_{}=[0-9a-f]{{32}}); Path=/; HttpOnly; SameSite=Strict".format(port), page)
        self.assertIsNotNone(cookie, page[:400])
        stream = get("/events", cookie=cookie.group(1), seconds=3)
        self.assertTrue(stream.startswith("HTTP/1.1 200"), stream[:200])
        events = [json.loads(l[len("data: "):]) for l in stream.splitlines() if l.startswith("data: {")]
        self.assertIn("gesture", [e["event"] for e in events])
        self.assertNotIn("touch", [e["event"] for e in events])       # touches only with --touches
        self.assertTrue(get("/", host="localhost:{}".format(port), cookie=cookie.group(1)).startswith("HTTP/1.1 200"))
        self.assertTrue(get("/", host="[::1]:{}".format(port), cookie=cookie.group(1)).startswith("HTTP/1.1 200"))
        vis.terminate()
        _, err = vis.communicate(timeout=10)
        self.assertIn('refused a request for host "attacker.example"', err)

    def test_the_page_says_how_to_start_a_daemon_that_is_not_there(self):
        port = free_port()
        vis = subprocess.Popen([CTL, "visualize", "--no-token", "--socket", os.path.join(self.tempdir(), "none.sock"),
                                "--listen", "127.0.0.1:{}".format(port)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: (vis.terminate(), vis.wait(10)))
        vis.stdout.readline()
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall("GET /events HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n".format(port).encode())
            data = b""
            while b"data: the daemon" not in data or not data.endswith(b"\n\n"):
                data += s.recv(4096)
        self.assertIn(b"data: the daemon is not answering: start it (systemctl start touchbridged, or make run)", data)

    def test_no_token_serves_anyone_here_and_says_so(self):
        d = self.daemon("--no-devices")
        vis, port, url, token = self.visualize(d, "--no-token")
        self.assertIsNone(token)
        self.assertIn("--no-token: every local user", vis.stderr.readline())
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall("GET / HTTP/1.1\r\nHost: 127.0.0.1:{}\r\n\r\n".format(port).encode())
            self.assertTrue(s.recv(100).startswith(b"HTTP/1.1 200"))


if __name__ == "__main__":
    from run import main
    main(["test_visualizer"])
