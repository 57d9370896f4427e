#!/usr/bin/env python3
"""The socket protocol: the example client, subscriptions, bad and oversized lines, slow clients, many
clients (docs/protocol.md)."""
import json
import os
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import *  # noqa: E402,F401,F403  (the binaries, fixtures, Client, Daemon, TestCase)


class ProtocolTests(TestCase):
    def test_replay_gives_exactly_the_offline_gestures_to_the_python_example_client(self):
        expected = offline(TAPS)
        self.assertEqual([g["recognizer"] for g in expected], ["doubleTap"] * 4 + ["tap"])
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-delay", "0.5")
        out = subprocess.run([sys.executable, EXAMPLE, "--socket", d.socket, "--json", "--count", str(len(expected))],
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = [json.loads(l) for l in out.stdout.splitlines()]
        self.assertEqual([l["event"] for l in lines[:2]], ["hello", "subscribed"])
        same_gestures(self, [l for l in lines if l["event"] == "gesture"], expected)

    def test_the_python_example_ends_quietly_when_its_reader_goes_away(self):
        # `listen.py | head -3`: head exits, the next print meets a closed pipe.
        d = self.daemon("--no-devices", "--replay", TAPS, "--replay-loop", "--replay-delay", "0.2")
        out = subprocess.run(["sh", "-c", '"$0" "$1" --socket "$2" --touches | head -n 3', sys.executable, EXAMPLE, d.socket],
                             capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0)
        self.assertEqual(len(out.stdout.splitlines()), 3)
        self.assertEqual(out.stderr, "")                               # no BrokenPipeError traceback

    def test_touches_and_devices_by_subscription(self):
        d = self.daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "0.5")
        c = Client(d.socket, ["gestures", "touches", "devices"])
        self.assertEqual(c.hello, {"event": "hello", "version": c.hello["version"], "protocol": 2})
        lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
        kinds = [l["event"] for l in lines]
        self.assertEqual(kinds, ["device", "touch", "touch", "gesture", "touch", "touch", "device"])
        touch = lines[1]
        self.assertEqual(set(touch), {"event", "time", "device", "id", "phase", "x", "y", "view", "tapCount", "majorRadius", "force", "type"})
        self.assertEqual(touch["phase"], "began")
        self.assertEqual(lines[3]["recognizer"], "twoFingerTap")
        self.assertEqual(lines[3]["touches"], 2)
        self.assertTrue(lines[0]["node"].startswith("replay:"))
        expected = offline(TWO_FINGER_TAP, "--touches")
        same_gestures(self, [l for l in lines if l["event"] != "device"], expected)

    def test_a_client_that_stops_sending_still_gets_its_lines(self):
        # As `echo '{"subscribe":["touches"]}' | socat -t 60 - UNIX-CONNECT:…` does: one line, then EOF.
        d = self.daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "0.5")
        c = Client(d.socket)
        c.send_raw(b'{"subscribe":["gestures","touches","devices"]}')      # the last line, without its newline
        c.sock.shutdown(socket.SHUT_WR)
        lines = c.until(lambda l: l["event"] == "device" and l["action"] == "removed")
        kinds = [l["event"] for l in lines]
        self.assertEqual(kinds[0], "subscribed")
        self.assertEqual(kinds.count("touch"), 4)
        self.assertEqual(kinds.count("gesture"), 1)
        c.close()
        self.assertTrue(d.wait_for_log("disconnected"), d.text())

    def test_bad_client_lines_get_errors_and_the_connection_stays_usable(self):
        d = self.daemon("--no-devices")
        c = Client(d.socket)
        for bad in [b"not json\n", b"[1,2]\n", b"{}\n", b'{"subscribe":"gestures"}\n', b'{"subscribe":["telepathy"]}\n',
                    b'{"dance":true}\n', b"\xff\xfe\n"]:
            c.send_raw(bad)
            line = c.next()
            self.assertEqual(line["event"], "error", bad)
            self.assertTrue(line["message"], bad)
        c.send({"subscribe": ["gestures", "devices"]})
        self.assertEqual(c.next(), {"event": "subscribed", "topics": ["gestures", "devices"]})
        self.assertIsNone(d.proc.poll())

    def test_a_line_over_64_KiB_is_an_error_and_closes_that_client_only(self):
        d = self.daemon("--no-devices")
        other = Client(d.socket)
        c = Client(d.socket)
        c.send_raw(b"{" + b" " * (70 * 1024))
        line = c.next()
        self.assertEqual(line["event"], "error")
        self.assertIn("64 KiB", line["message"])
        self.assertIsNone(c.next(timeout=5))          # closed
        other.send({"subscribe": ["gestures"]})
        self.assertEqual(other.next()["event"], "subscribed")
        self.assertIn("over 64 KiB", d.text())

    def test_a_slow_client_is_dropped_and_the_others_get_everything(self):
        expected = offline(DRAGS, "--touches")
        d = self.daemon("--no-devices", "--replay", DRAGS, "--replay-delay", "0.5", "--client-queue", "4096")
        slow = Client(d.socket, ["gestures", "touches"], rcvbuf=4096)
        fast = Client(d.socket, ["gestures", "touches"])
        got = []
        end = time.time() + 30
        while len(got) < len(expected) and time.time() < end:
            line = fast.next(timeout=end - time.time())
            if line is None:
                break
            got.append(line)
        same_gestures(self, got, expected)
        self.assertIn("stopped reading", d.text())
        # The slow client was cut off: what it can still read ends well before the end.
        slow.sock.settimeout(5)
        data = b""
        try:
            while True:
                chunk = slow.sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except socket.timeout:
            self.fail("the slow client was not disconnected")
        self.assertLess(data.count(b"\n"), len(expected))

    def test_100_clients_at_once_all_get_the_gesture(self):
        d = self.daemon("--no-devices", "--replay", TWO_FINGER_TAP, "--replay-delay", "1.5")
        clients = [Client(d.socket, ["gestures"]) for _ in range(100)]
        for c in clients:
            line = c.next(timeout=15)
            self.assertEqual(line["recognizer"], "twoFingerTap")
        self.assertIn("client connected", d.text())


if __name__ == "__main__":
    from run import main
    main(["test_protocol"])
