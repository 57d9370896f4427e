"""`touchbridgectl websocket` against clients no one here wrote: Python's websockets (Debian
python3-websockets, run by Debian's /usr/bin/python3 in Tests/support/ws_client.py) receives the lines
and the TUIO frames; headless Chromium runs examples/kiosk.html and sees a double tap; the doors refuse
a wrong Origin, Host or token, a client's frames without --control, and a client that falls behind."""
import signal
import socket
import subprocess
import time

from common import *  # noqa: F401,F403
from test_tuio import FOUR_FINGERS, expected_frames

sys.path.insert(0, os.path.join(ROOT, "Tests", "support"))
import headless  # noqa: E402

WS_CLIENT = os.path.join(ROOT, "Tests", "support", "ws_client.py")


osc_bundle = tbsupport.osc_bundle


class Bridge:
    """A websocket bridge on a free port, following `daemon`; `url` is what it printed."""

    def __init__(self, testcase, daemon, *extra):
        self.port = free_port()
        self.proc = subprocess.Popen([CTL, "websocket", "--listen", "127.0.0.1:%d" % self.port, "--socket", daemon.socket] + list(extra),
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        testcase.addCleanup(lambda: self.proc.poll() is None and self.proc.kill())
        first = self.proc.stdout.readline()
        testcase.assertIn("ws://127.0.0.1:%d/lines" % self.port, first, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.url = first.split(": ", 1)[1].split()[0]
        self.token = self.url.split("token=")[1] if "token=" in self.url else None

    def ws(self, path):
        return "ws://127.0.0.1:%d%s%s" % (self.port, path, ("&" if "?" in path else "?") + "token=" + self.token if self.token else "")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=10)
        return code, self.proc.stderr.read()


class WSClient:
    """ws_client.py in the background, writing into a file (a pipe nobody reads until the end would
    fill and stop it reading its frames); `events()` once it ended."""

    def __init__(self, testcase, url, *args):
        self.path = os.path.join(testcase.tempdir(), "ws-%d.jsonl" % id(self))
        self.out = open(self.path, "w")
        self.proc = subprocess.Popen(["/usr/bin/python3", WS_CLIENT, url] + list(args), stdout=self.out, stderr=subprocess.PIPE, text=True)
        testcase.addCleanup(lambda: self.proc.poll() is None and self.proc.kill())

    def _lines(self):
        with open(self.path) as f:
            return [json.loads(l) for l in f.read().splitlines()]

    def wait_open(self, timeout=10):
        got = wait_for(lambda: self._lines() or self.proc.poll() is not None, timeout=timeout)
        lines = self._lines()
        return lines[0] if lines else {"error": self.proc.stderr.read() if got else "timed out"}

    def events(self, timeout=60):
        self.proc.wait(timeout=timeout)
        self.out.close()
        return self._lines()


def run_client(url, *args):
    out = subprocess.run(["/usr/bin/python3", WS_CLIENT, url] + list(args), capture_output=True, text=True, timeout=60)
    return [json.loads(l) for l in out.stdout.splitlines()]


class WebSocketTests(TestCase):
    def test_lines_are_the_sockets_lines_a_text_frame_each(self):
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-delay", "2")
        b = Bridge(self, d)
        watcher = Client(d.socket, topics=["gestures"])
        gestures = WSClient(self, b.ws("/lines"), "--seconds", "7")
        both = WSClient(self, b.ws("/lines?topics=gestures,touches,scene"), "--seconds", "7")
        self.assertEqual(gestures.wait_open(), {"open": True})
        self.assertEqual(both.wait_open(), {"open": True})
        watcher.pump(7)
        want = [l for l in watcher.of("gesture")]
        self.assertTrue(want, "the taps made no gesture")
        got = [json.loads(e["text"]) for e in gestures.events() if "text" in e]
        self.assertEqual(got, want, "the default topic is gestures, line for line")
        lines = [json.loads(e["text"]) for e in both.events() if "text" in e]
        self.assertEqual(lines[0]["event"], "scene", "a scene subscriber is told the scene first")
        self.assertEqual([l for l in lines if l["event"] == "gesture"], want)
        self.assertEqual(sum(1 for l in lines if l["event"] == "touch"), 18, "nine taps: a began and an ended each")
        code, err = b.stop()
        self.assertEqual(code, 0, err)

    def test_tuio_frames_are_the_bundles_of_the_touches_binary_frames(self):
        d = self.daemon("--no-devices", "--replay", FOUR_FINGERS, "--replay-delay", "2")
        b = Bridge(self, d)
        watcher = Client(d.socket, topics=["touches", "scene"])
        window = watcher.until(lambda l: l["event"] == "scene")[-1]["scene"]["window"]
        v11 = WSClient(self, b.ws("/tuio?profile=1.1"), "--seconds", "30")
        v20 = WSClient(self, b.ws("/tuio?profile=2.0"), "--seconds", "30")
        self.assertEqual(v11.wait_open(), {"open": True})
        self.assertEqual(v20.wait_open(), {"open": True})
        watcher.pump(6)
        code, err = b.stop()                               # the last word: an empty alive, then 1001
        self.assertEqual(code, 0, err)
        e11, e20 = v11.events(), v20.events()
        self.assertEqual(e11[-1]["closed"], 1001)
        bundles = [osc_bundle(bytes.fromhex(e["binary"])) for e in e11 if "binary" in e]
        self.assertTrue(all(m[0] == "/tuio/2Dcur" for bun in bundles for m in bun))
        frames = []
        for bun in bundles:
            args = {a[0]: a for _, a in bun if a[0] != "set"}
            sets = {a[1]: (a[2], a[3]) for _, a in bun if a[0] == "set"}
            frames.append((args["fseq"][1], args["alive"][1:], sets))
        fresh = [f for i, f in enumerate(frames) if i == 0 or f[0] != frames[i - 1][0]]
        want = expected_frames(watcher.lines_seen, window["width"], window["height"])
        changes = [f for f in fresh if f[2] or (fresh.index(f) > 0 and f[1] != fresh[fresh.index(f) - 1][1])]
        self.assertEqual(len(changes), len(want))
        for (fseq, alive, sets), (w_alive, w_sets) in zip(changes, want):
            self.assertEqual(alive, w_alive)
            self.assertEqual(sorted(sets), sorted(w_sets))
            for s, (x, y) in sets.items():
                self.assertAlmostEqual(x, w_sets[s][0], delta=1e-4)
                self.assertAlmostEqual(y, w_sets[s][1], delta=1e-4)
        self.assertEqual(frames[-1][1], [], "the last bundle has nothing alive")
        b20 = [osc_bundle(bytes.fromhex(e["binary"])) for e in e20 if "binary" in e]
        self.assertTrue(b20 and all(bun[0][0] == "/tuio2/frm" and bun[-1][0] == "/tuio2/alv" for bun in b20))
        self.assertEqual(max(len(bun[-1][1]) for bun in b20), 4, "four fingers alive at once")
        self.assertEqual(b20[-1][-1][1], [])
        self.assertEqual(e20[-1]["closed"], 1001)

    def test_the_doors_refuse_a_wrong_origin_host_or_token(self):
        d = self.daemon("--no-devices")
        b = Bridge(self, d, "--allow-origin", "https://kiosk.example")
        self.assertEqual(run_client(b.ws("/lines"), "--origin", "http://evil.example", "--seconds", "0.5")[0], {"refused": 403, "body": ""})
        self.assertEqual(run_client(b.ws("/lines"), "--origin", "https://kiosk.example", "--seconds", "0.5")[0], {"open": True})
        self.assertEqual(run_client(b.ws("/lines"), "--seconds", "0.5")[0], {"open": True}, "no Origin: not a page, allowed")
        self.assertEqual(run_client("ws://127.0.0.1:%d/lines" % b.port, "--seconds", "0.5")[0], {"refused": 403, "body": ""}, "no token")
        self.assertEqual(run_client(b.ws("/lines?topics=everything"), "--seconds", "0.5")[0], {"refused": 400, "body": ""})
        # A DNS-rebinding page names its own host: 421, as the visualizer answers it.
        s = socket.create_connection(("127.0.0.1", b.port), timeout=10)
        s.sendall(("GET /lines?token=%s HTTP/1.1\r\nHost: evil.example:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % (b.token, b.port)).encode())
        self.assertTrue(s.recv(4096).startswith(b"HTTP/1.1 421 "))
        s.close()
        # The RFC's own example key is answered with the RFC's accept value (SHA-1 and base64 by nettle).
        s = socket.create_connection(("127.0.0.1", b.port), timeout=10)
        s.sendall(("GET /lines?token=%s HTTP/1.1\r\nHost: 127.0.0.1:%d\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n" % (b.token, b.port)).encode())
        self.assertIn(b"Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n", s.recv(4096))
        s.close()
        # Connections that never finish their head take at most 128 places; one more is closed at once,
        # and when they go, clients are served again.
        idle = [socket.create_connection(("127.0.0.1", b.port), timeout=10) for _ in range(128)]
        time.sleep(0.3)
        self.assertIn("error", run_client(b.ws("/lines"), "--seconds", "0.5")[0])
        for s in idle:
            s.close()
        time.sleep(0.3)
        self.assertEqual(run_client(b.ws("/lines"), "--seconds", "0.5")[0], {"open": True})
        code, err = b.stop()
        self.assertIn("connections open: a new one was closed", err)
        self.assertIn("refused a WebSocket from the page of http://evil.example", err)
        self.assertIn('refused a request for host "evil.example', err)

    def test_frames_from_a_client_are_refused_unless_control(self):
        d = self.daemon("--no-devices")
        b = Bridge(self, d)
        ev = run_client(b.ws("/lines"), "--send", '{"set":{"recognizers":["tap"],"enabled":false}}', "--seconds", "3")
        self.assertEqual(ev[-1]["closed"], 1008)
        self.assertIn("--control", ev[-1]["reason"])
        b.stop()
        b = Bridge(self, d, "--control")
        ev = run_client(b.ws("/lines"), "--send", '{"set":{"recognizers":["tap"],"enabled":false}}',
                        "--send", '{"scene":{"views":[]}}', "--send", '{"set":{"recognizers":["nothing-like-it"],"enabled":true}}',
                        "--seconds", "3")
        answers = [json.loads(e["text"]) for e in ev if "text" in e and json.loads(e["text"])["event"] in ("ok", "error")]
        self.assertEqual(answers[0], {"event": "ok", "command": "set"})
        self.assertEqual(answers[1]["event"], "error")
        self.assertIn("only set commands", answers[1]["message"])
        self.assertEqual(answers[2]["event"], "error")
        self.assertIn("nothing-like-it", answers[2]["message"], "the daemon's own refusal, relayed")
        b.stop()

    def test_a_client_that_falls_behind_is_closed_with_the_reason(self):
        # Ten fingers for 4 s at 240 Hz: some 600 KiB a second of touch lines; a client that reads
        # nothing for 6 s, with 64 KiB allowed to wait for it, is closed; another that reads goes on.
        path = os.path.join(self.tempdir(), "ten.evemu")
        tbsupport.evemu_frames(path, [{s: (300 + 350 * s, 500 + 3 * i) for s in range(10)} for i in range(960)])
        d = self.daemon("--no-devices", "--replay", path, "--replay-delay", "2")
        b = Bridge(self, d, "--client-queue", "65536")
        slow = WSClient(self, b.ws("/lines?topics=touches"), "--stall", "6", "--seconds", "2")
        quick = WSClient(self, b.ws("/lines?topics=touches"), "--seconds", "8")
        self.assertEqual(slow.wait_open(), {"open": True})
        self.assertEqual(quick.wait_open(), {"open": True})
        ev = slow.events()
        self.assertEqual(ev[-1]["closed"], 1008, ev[-3:])
        self.assertIn("too far behind", ev[-1]["reason"])
        got = [e for e in quick.events() if "text" in e]
        self.assertEqual(len(got), 960 * 10 + 10, "the reader that keeps up gets every line")
        code, err = b.stop()
        self.assertEqual(code, 0, err)

    @unittest.skipUnless(headless.chromium(), "needs chromium (make deps installs it)")
    def test_chromium_runs_the_kiosk_page_and_sees_a_double_tap(self):
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-delay", "4")
        b = Bridge(self, d, "--serve", os.path.join(ROOT, "examples"))
        with headless.Browser() as browser:
            page = browser.open("http://127.0.0.1:%d/kiosk.html?token=%s" % (b.port, b.token))
            self.assertTrue(page.wait_for("document.body.dataset.state == 'open'", timeout=15), "the page did not connect")
            self.assertTrue(page.wait_for("document.body.dataset.doubleTaps > 0", timeout=20), "no double tap seen")
            self.assertEqual(page.evaluate("document.getElementById('card').classList.contains('flipped')"), True)
        b.stop()
