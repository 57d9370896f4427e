"""`touchbridgectl tuio` against a TUIO client no one here wrote: liblo's oscdump (Debian liblo-tools)
decodes the bundles, which must say what the daemon's touches topic says, frame by frame."""
import math
import signal
import subprocess
import time

from common import *  # noqa: F401,F403

FOUR_FINGERS = os.path.join(FIXTURES, "evemu-devices__atmel-maxtouch-ts__4fg-swipe-down.evemu")


class OSCDump:
    """oscdump on a UDP port: each bundle as a list of (path, args), in the order received."""

    def __init__(self, testcase, port):
        # Into a file, not a pipe: a pipe nobody reads until the end fills, oscdump then blocks on it,
        # and the datagrams that arrive meanwhile are lost in a full socket buffer.
        self.path = os.path.join(testcase.tempdir(), "oscdump.txt")
        self.out = open(self.path, "w")
        self.proc = subprocess.Popen(["oscdump", "-L", str(port)], stdout=self.out, stderr=subprocess.DEVNULL)
        testcase.addCleanup(self.stop)
        self.lines = []
        time.sleep(0.2)

    def stop(self):
        if self.proc.poll() is None:
            # The bridge's last datagram may still wait in oscdump's socket when the test stops it: its
            # output must first be quiet for a while (0.3 s; at most 3 s in all).
            size, since, end = -1, time.monotonic(), time.monotonic() + 3
            while time.monotonic() < end:
                now = os.path.getsize(self.path)
                if now != size:
                    size, since = now, time.monotonic()
                elif time.monotonic() - since >= 0.3:
                    break
                time.sleep(0.05)
            self.proc.terminate()
            self.proc.wait(timeout=10)
            self.out.close()
            with open(self.path) as f:
                self.lines = f.read().splitlines()
        return self.lines

    def bundles(self):
        """oscdump prints a bundle's messages one a line, each after a time tag; for an immediate
        bundle that is the time it was read, which two bundles read in one pass may share and one
        bundle's messages may not. So a 1.1 bundle is told by its first message, its source, a 2.0
        bundle by its frm; other messages (the gestures') by their time tag."""
        out, tag = [], None
        for line in self.lines:
            parts = line.split()
            if len(parts) < 2 or not parts[1].startswith("/"):
                continue
            cursor = parts[1] == "/tuio/2Dcur"
            frm = parts[1] == "/tuio2/frm"
            tuio2 = parts[1].startswith("/tuio2/")
            if (cursor and parts[3:4] == ['"source"']) or frm or (not cursor and not tuio2 and parts[0] != tag) or not out:
                out.append([])
            tag = parts[0]
            args = [a.strip('"') for a in parts[3:]]
            out[-1].append((parts[1], args))
        return out


def tuio11_frames(bundles):
    """The 2Dcur bundles as (fseq, alive ids, {id: (x, y)} of the set messages), re-sends included."""
    frames = []
    for b in bundles:
        cur = [args for path, args in b if path == "/tuio/2Dcur"]
        if not cur:
            continue
        alive = next(a[1:] for a in cur if a[0] == "alive")
        fseq = next(int(a[1]) for a in cur if a[0] == "fseq")
        sets = {int(a[1]): (float(a[2]), float(a[3])) for a in cur if a[0] == "set"}
        frames.append((fseq, [int(x) for x in alive], sets))
    return frames


def tuio20_frames(bundles):
    """The 2.0 bundles as (frame id, source, dimension, alive ids, {id: ptr args})."""
    frames = []
    for b in bundles:
        if not b or b[0][0] != "/tuio2/frm":
            continue
        frm = b[0][1]
        alive = next(a for p, a in b if p == "/tuio2/alv")
        ptrs = {int(a[0]): a for p, a in b if p == "/tuio2/ptr"}
        frames.append((int(frm[0]), frm[3], int(frm[2]), [int(x) for x in alive], ptrs))
    return frames


def expected_frames(lines, width, height):
    """What the touches topic says, frame by frame (one device, one time): the alive touch ids, and
    where each touch that began or moved is, normalized over the window."""
    frames, down, session, nxt = [], set(), {}, 1
    key = None
    for l in lines:
        if l["event"] != "touch":
            continue
        k = (l["time"], l["device"])
        if k != key:
            frames.append({"sets": {}})
            key = k
        tid = l["id"]
        if l["phase"] == "began":
            session[tid] = nxt
            nxt += 1
            down.add(tid)
        if l["phase"] in ("began", "moved"):
            frames[-1]["sets"][session[tid]] = (l["x"] / width, l["y"] / height)
        else:
            down.discard(tid)
            frames[-1]["sets"].pop(session[tid], None)
        frames[-1]["alive"] = sorted(session[t] for t in down)
    return [(f["alive"], f["sets"]) for f in frames]


class TUIOTests(TestCase):
    def run_bridge(self, *recordings, extra=(), topics=("touches", "scene")):
        """oscdump, a daemon replaying `recordings` (devices 0, 1, …), a socket client of `topics`, and a
        bridge (`extra` its options) to oscdump, all stopped after the test."""
        port = free_port()
        dump = OSCDump(self, port)
        replays = [a for r in recordings for a in ("--replay", r)]
        d = self.daemon("--no-devices", *replays, "--replay-delay", "1.5")
        watcher = Client(d.socket, topics=list(topics))
        bridge = subprocess.Popen([CTL, "tuio", "--udp", "127.0.0.1:%d" % port, "--socket", d.socket] + list(extra),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.addCleanup(lambda: bridge.poll() is None and bridge.kill())
        return dump, d, watcher, bridge

    def test_the_bundles_say_what_the_touches_topic_says(self):
        dump, d, watcher, bridge = self.run_bridge(FOUR_FINGERS)
        scene = watcher.until(lambda l: l["event"] == "scene")[-1]["scene"]["window"]
        watcher.pump(6)
        self.assertTrue(watcher.of("touch"), "the replay sent no touches")
        time.sleep(1.3)                                  # an idle re-send, at least
        bridge.send_signal(signal.SIGTERM)
        self.assertEqual(bridge.wait(timeout=10), 0, bridge.stderr.read())
        dump.stop()
        got = tuio11_frames(dump.bundles())
        self.assertTrue(got, "oscdump heard nothing")
        for b in dump.bundles():
            self.assertEqual(b[0], ("/tuio/2Dcur", ["source", "touchbridge@" + os.uname().nodename]))
        # New frames have increasing fseq; a re-send repeats the last one with the same alive set.
        fresh, last = [], 0
        for fseq, alive, sets in got:
            if fseq == last:
                self.assertEqual(sets, {}, "a re-send sets nothing")
                self.assertEqual(alive, fresh[-1][0] if fresh else [])
                continue
            self.assertGreater(fseq, last)
            last = fseq
            fresh.append((alive, sets))
        self.assertLess(len(fresh), len(got), "no idle re-send in 1.3 s of quiet")
        # The bridge's last word is an empty alive set, after the replay's frames.
        self.assertEqual(got[-1][1], [])
        want = expected_frames(watcher.lines_seen, scene["width"], scene["height"])
        # First an empty alive (for what an earlier run may have left), then a bundle a frame, then
        # the empty alive at SIGTERM.
        self.assertEqual(fresh[0], ([], {}))
        self.assertEqual(len(fresh), len(want) + 2)
        fresh = fresh[1:-1]
        sessions_seen = set()
        for i, ((alive, sets), (w_alive, w_sets)) in enumerate(zip(fresh, want)):
            self.assertEqual(alive, w_alive, "frame %d" % i)
            self.assertEqual(sorted(sets), sorted(w_sets), "frame %d" % i)
            for s, (x, y) in sets.items():
                self.assertAlmostEqual(x, w_sets[s][0], delta=1e-4)
                self.assertAlmostEqual(y, w_sets[s][1], delta=1e-4)
            sessions_seen |= set(alive)
        self.assertEqual(sorted(sessions_seen), list(range(1, 5)), "four touches, four sessions")

    def test_tuio2_frames_say_what_the_touches_topic_says_and_1_1_rides_along(self):
        dump, d, watcher, bridge = self.run_bridge(FOUR_FINGERS, extra=["--profile", "both"])
        window = watcher.until(lambda l: l["event"] == "scene")[-1]["scene"]["window"]
        watcher.pump(6)
        time.sleep(1.3)                                  # an idle re-send, at least
        bridge.send_signal(signal.SIGTERM)
        self.assertEqual(bridge.wait(timeout=10), 0, bridge.stderr.read())
        bundles = dump.stop() and dump.bundles()
        got = tuio20_frames(bundles)
        want = expected_frames(watcher.lines_seen, window["width"], window["height"])
        self.assertTrue(tuio11_frames(bundles), "--profile both sends 1.1 too")
        # Every 2.0 bundle has a newer frame id (re-sends too: 2.0 clients drop a frame not newer).
        ids = [f[0] for f in got]
        self.assertEqual(ids, sorted(set(ids)))
        host = os.uname().nodename
        # First the plain source's empty alive (no device heard of yet), then device 0's frames.
        self.assertEqual(got[0][1], "touchbridge@" + host)
        self.assertEqual(got[0][3], [])
        # While no device is there (before the replay, after its device went), re-sends are the plain
        # source's, with nothing alive; the rest are device 0's.
        plain = [f for f in got if f[1] == "touchbridge@" + host]
        self.assertEqual({tuple(f[3]) for f in plain}, {()})
        device0 = [f for f in got if f[1] != "touchbridge@" + host]
        self.assertEqual({f[1] for f in device0}, {"touchbridge:0@" + host})
        self.assertEqual({f[2] for f in device0}, {(int(window["width"]) << 16) | int(window["height"])})
        changed = [f for i, f in enumerate(device0) if f[4] or (i > 0 and f[3] != device0[i - 1][3])]
        self.assertEqual(len(changed), len(want), [f[3] for f in changed][:5])
        for i, (f, (w_alive, w_sets)) in enumerate(zip(changed, want)):
            self.assertEqual(f[3], w_alive, "frame %d" % i)
            self.assertEqual(sorted(f[4]), sorted(w_sets), "frame %d" % i)
            for s_id, a in f[4].items():
                self.assertEqual(int(a[1]), 0, "a finger is the spec's default pointer type, user 0")
                self.assertAlmostEqual(float(a[3]), w_sets[s_id][0], delta=1e-4)
                self.assertAlmostEqual(float(a[4]), w_sets[s_id][1], delta=1e-4)
                self.assertEqual(len(a), 14, "s_id tu_id c_id x y angle shear radius press X Y P m p")
        self.assertEqual(got[-1][3], [], "the last word: nothing alive")
        self.assertGreater(len(device0), len(changed), "idle re-sends")

    def test_tuio2_says_a_pencil_as_a_stylus_with_its_pressure(self):
        pen = os.path.join(FIXTURES, "evemu-devices__wacom-cintiq-13hd-pen__hover-strokes.evemu")
        dump, d, watcher, bridge = self.run_bridge(pen, extra=["--profile", "2.0"])
        seen = watcher.until(lambda l: l["event"] == "touch" and l["phase"] == "ended", timeout=30)
        time.sleep(0.3)
        bridge.send_signal(signal.SIGTERM)
        bridge.wait(timeout=10)
        got = tuio20_frames(dump.stop() and dump.bundles())
        self.assertFalse(tuio11_frames(dump.bundles()), "--profile 2.0 sends no 1.1")
        ptrs = [a for f in got for a in f[4].values()]
        self.assertTrue(ptrs, "the pen's strokes made no pointers")
        self.assertEqual({int(a[1]) for a in ptrs}, {41}, "a pencil is the spec's stylus")
        # The first stroke, line by line: its force on UIKit's pencil scale (25/6 its top, T11) as
        # pressure, its tilt from upright (π/2 − altitude) as shear.
        first = [l for l in seen if l["event"] == "touch" and l["phase"] in ("began", "moved")]
        self.assertTrue(first and all(l["type"] == "pencil" for l in first))
        said = [f[4][1] for f in got if 1 in f[4]]
        self.assertEqual(len(said), len(first))
        for a, l in zip(said, first):
            self.assertAlmostEqual(float(a[8]), min(1, l["force"] / (25 / 6)), delta=1e-4)
            self.assertAlmostEqual(float(a[6]), math.pi / 2 - l["altitude"], delta=1e-4)
            self.assertEqual(int(a[2]), l["id"], "the component id is the daemon's touch id")
        self.assertGreater(max(float(a[8]) for a in said), 0)

    def test_the_daemon_going_away_leaves_no_cursor_alive(self):
        dump, d, watcher, bridge = self.run_bridge(FOUR_FINGERS)
        watcher.until(lambda l: l["event"] == "touch" and l["phase"] == "moved")
        d.proc.kill()                                     # mid-swipe: the daemon cancels nothing
        time.sleep(0.5)
        bridge.send_signal(signal.SIGTERM)
        bridge.wait(timeout=10)
        err = bridge.stderr.read()
        self.assertIn("no cursors alive until it is back", err)
        frames = tuio11_frames(dump.stop() and dump.bundles())
        alive_before = [a for _, a, _ in frames if a]
        self.assertTrue(alive_before, "cursors were alive mid-swipe")
        kill_index = max(i for i, (_, a, _) in enumerate(frames) if a)
        self.assertEqual(frames[kill_index + 1][1], [], "the next bundle after the daemon went is an empty alive")

    def test_a_daemon_restart_ends_the_cursors_and_the_bridge_goes_on_with_new_sessions(self):
        dump, d, watcher, bridge = self.run_bridge(FOUR_FINGERS)
        watcher.until(lambda l: l["event"] == "touch" and l["phase"] == "moved")
        d.proc.kill()                                     # mid-swipe, as a crash or a restart by systemd
        d.proc.wait(timeout=10)
        os.unlink(d.socket)                               # the new daemon's socket is then the one that appears
        again = tbsupport.Daemon(DAEMON, ["--no-devices", "--replay", FOUR_FINGERS, "--replay-delay", "1.5"], workdir=d.dir)
        self.addCleanup(again.stop)
        replayed = Client(again.socket, topics=["touches"])
        ended = []
        replayed.until(lambda l: l["event"] == "touch" and l["phase"] == "ended" and ended.append(l) is None and len(ended) == 4,
                       timeout=20)                    # the four fingers of the second swipe lifted
        time.sleep(0.5)
        bridge.send_signal(signal.SIGTERM)
        bridge.wait(timeout=10)
        self.assertIn("no cursors alive until it is back", bridge.stderr.read())
        frames = tuio11_frames(dump.stop() and dump.bundles())
        start = next(i for i, (_, a, _) in enumerate(frames) if a)
        gone = next(i for i in range(start, len(frames)) if not frames[i][1])
        before = {i for _, a, _ in frames[start:gone] for i in a}
        later = {i for _, a, _ in frames[gone:] for i in a}
        self.assertTrue(before and later, "cursors alive before the kill, and the new daemon's after it")
        self.assertGreater(min(later), max(before), "the second swipe's touches are new sessions; ids are never reused")
        self.assertEqual(len(later), 4, "one session a finger of the second swipe")
        self.assertEqual(frames[-1][1], [], "and no cursor is left alive at the end")
        fseqs = [f for f, _, _ in frames]
        self.assertEqual(fseqs, sorted(fseqs), "fseq never goes back across the restart")

    def test_qt_tuiotouch_hears_the_touches_pressed_moved_and_released(self):
        # Qt's own TUIO client (Debian qt6-qpa-plugins) in examples/tuio-qt.py, run by Debian's Python,
        # which has PyQt6 (another python3 first on the PATH may not).
        port = free_port()
        env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_RUNTIME_DIR=self.tempdir())
        qt = subprocess.Popen(["/usr/bin/python3", os.path.join(ROOT, "examples", "tuio-qt.py"), "--port", str(port), "--print"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.addCleanup(lambda: qt.poll() is None and qt.kill())
        time.sleep(1.5)                                  # Qt up and listening
        self.assertIsNone(qt.poll(), qt.stderr.read() if qt.poll() is not None else "")
        d = self.daemon("--no-devices", "--replay", FOUR_FINGERS, "--replay-delay", "1.5")
        watcher = Client(d.socket, topics=["touches", "scene"])
        window = watcher.until(lambda l: l["event"] == "scene")[-1]["scene"]["window"]
        bridge = subprocess.Popen([CTL, "tuio", "--udp", "127.0.0.1:%d" % port, "--socket", d.socket],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.addCleanup(lambda: bridge.poll() is None and bridge.kill())
        watcher.pump(6)
        bridge.send_signal(signal.SIGTERM)
        bridge.wait(timeout=10)
        time.sleep(0.5)
        qt.terminate()
        out, err = qt.communicate(timeout=10)
        events = [l.split() for l in out.splitlines()]
        began = [t for t in watcher.of("touch") if t["phase"] == "began"]
        self.assertEqual(len(began), 4, "the recording has four touches")
        pressed = {int(e[1]): (float(e[2]), float(e[3])) for e in events if e[0] == "pressed"}
        released = [int(e[1]) for e in events if e[0] == "released"]
        self.assertEqual(sorted(pressed), [1, 2, 3, 4], err)
        self.assertEqual(sorted(released), [1, 2, 3, 4])
        self.assertGreater(sum(1 for e in events if e[0] == "moved"), 20)
        # Where Qt says each point was pressed is a place its touch was: Qt delivers a press queued
        # behind the touch's first moves (event compression) at the latest of them.
        for session, t in enumerate(began, start=1):
            path = [(l["x"] / window["width"], l["y"] / window["height"]) for l in watcher.of("touch") if l["id"] == t["id"]]
            x, y = pressed[session]
            self.assertTrue(any(abs(x - px) < 2e-3 and abs(y - py) < 2e-3 for px, py in path[:8]),
                            "touch %d pressed at (%.4f, %.4f), its path begins %s" % (session, x, y, path[:8]))

    def last_word_after(self, recording, seconds, sig=signal.SIGTERM):
        """The 1.1 frames a bridge sent for `recording`, replayed once, until `sig` `seconds` after."""
        dump, d, watcher, bridge = self.run_bridge(recording)
        watcher.pump(seconds)
        bridge.send_signal(sig)
        self.assertEqual(bridge.wait(timeout=10), 0)
        return tuio11_frames(dump.stop() and dump.bundles()), watcher

    def test_a_recording_that_ends_mid_touch_ends_with_an_empty_alive(self):
        # Two fingers down and moving when the recording stops: the daemon cancels them (the device is
        # gone), and so does the bridge, before SIGTERM's last word.
        path = os.path.join(self.tempdir(), "mid-touch.evemu")
        tbsupport.evemu_frames(path, [{0: (1000, 1000 + 10 * i), 1: (3000, 1000 + 10 * i)} for i in range(60)], lift_at_end=False)
        frames, watcher = self.last_word_after(path, 3.5, sig=signal.SIGHUP)   # SIGHUP ends it as SIGTERM does
        self.assertEqual([t["phase"] for t in watcher.of("touch")][-2:], ["cancelled", "cancelled"])
        fresh = [f for i, f in enumerate(frames) if i == 0 or f[0] != frames[i - 1][0]]
        self.assertEqual(frames[-1][1], [], "the last word: nothing alive")
        self.assertEqual(max(len(a) for _, a, _ in fresh), 2)
        self.assertEqual(fresh[-2][1], [], "the cancel's bundle: nothing alive: %s" % fresh[-4:])

    def test_syn_dropped_over_the_lift_ends_the_sessions(self):
        # The two fingers lift while the reader has fallen behind (SYN_DROPPED, then the lift's events):
        # the daemon resyncs to the kernel's state as libevdev does, finds them gone and cancels them,
        # and the bridge's bundle for it has nothing alive.
        path = os.path.join(self.tempdir(), "dropped.evemu")
        tbsupport.evemu_frames(path, [{0: (1000, 1000 + 10 * i), 1: (3000, 1000 + 10 * i)} for i in range(60)])
        with open(path) as f:
            lines = f.readlines()
        reports = [i for i, l in enumerate(lines) if l.startswith("E:") and l.split()[2:] == ["0000", "0000", "0"]]
        lift = reports[-2] + 1                             # the first event of the last frame, the lift
        lines[lift:lift] = ["E: {} 0000 0003 0\n".format(lines[lift].split()[1])]
        with open(path, "w") as f:
            f.writelines(lines)
        frames, watcher = self.last_word_after(path, 3.5)
        self.assertEqual([t["phase"] for t in watcher.of("touch")][-2:], ["cancelled", "cancelled"])
        fresh = [f for i, f in enumerate(frames) if i == 0 or f[0] != frames[i - 1][0]]
        self.assertEqual(fresh[-3][1], [1, 2])
        self.assertEqual(fresh[-2][1], [], "the cancel's bundle: nothing alive: %s" % fresh[-4:])

    def test_gestures_ride_along_one_message_a_gesture_line(self):
        dump, d, watcher, bridge = self.run_bridge(TAPS, extra=["--gestures"], topics=["gestures", "scene"])
        window = watcher.until(lambda l: l["event"] == "scene")[-1]["scene"]["window"]
        watcher.pump(6)
        bridge.send_signal(signal.SIGTERM)
        bridge.wait(timeout=10)
        said = [args for b in dump.stop() and dump.bundles() for path, args in b if path == "/touchbridge/gesture"]
        lines = watcher.of("gesture")
        self.assertTrue(lines, "the taps made no gesture")
        self.assertEqual([(a[0], a[1], a[2], int(a[5])) for a in said], [(l["recognizer"], l["type"], l["state"], l["touches"]) for l in lines])
        for a, l in zip(said, lines):
            self.assertAlmostEqual(float(a[3]), l["x"] / window["width"], delta=1e-4)
            self.assertAlmostEqual(float(a[4]), l["y"] / window["height"], delta=1e-4)

    def test_device_takes_one_device_by_index_or_name(self):
        # Two recordings, devices 0 and 1 (one after the other); --device keeps the second's touches.
        for choice in ("1", "*Optical*"):
            dump, d, watcher, bridge = self.run_bridge(TAPS, DRAGS, extra=["--device", choice], topics=["touches", "devices"])
            seen = watcher.until(lambda l: l["event"] == "device" and l["action"] == "removed" and l["device"] == 1, timeout=40)
            time.sleep(0.3)
            bridge.send_signal(signal.SIGTERM)
            bridge.wait(timeout=10)
            frames = tuio11_frames(dump.stop() and dump.bundles())
            sessions = {s for _, a, _ in frames for s in a}
            began = [t for t in seen if t["event"] == "touch" and t["phase"] == "began"]
            self.assertEqual({t["device"] for t in began}, {0, 1})
            self.assertEqual(len(sessions), sum(1 for t in began if t["device"] == 1), choice)
            self.assertGreater(len(sessions), 0, choice)

    def test_bad_targets_are_refused_with_the_remedy(self):
        out = ctl("tuio", "--udp", "localhost")
        self.assertEqual(out.returncode, 2, out.stderr)
        self.assertIn("give HOST:PORT", out.stderr)
        out = ctl("tuio", "--udp", "127.0.0.1:70000")
        self.assertIn("give HOST:PORT", out.stderr)
        # A name is resolved once at start (a lookup in the event loop could stop it): one that does
        # not resolve is refused, naming it.
        out = ctl("tuio", "--udp", "no-such-host.invalid:3333", "--socket", os.path.join(self.tempdir(), "none.sock"))
        self.assertEqual(out.returncode, 1)
        self.assertIn('cannot resolve "no-such-host.invalid"', out.stderr)
