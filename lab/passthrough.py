"""The hardware lab's pass-through checks (README "Pass-through"): touchbridged grabs a real uinput
touchscreen made by evemu-device and makes its mirror, and `libinput debug-events` reads the mirror as a
compositor would. Each check plays gestures made here to the panel and looks at what the mirror heard:
- a tap in a plain region: down/up at the panel's own device coordinates;
- a left-edge swipe on a view with a screenEdgePan: down, then TOUCH_CANCEL, never up;
- with delaysTouchesBegan: the same swipe never appears, and a tap there appears late (down and up);
- a three-finger swipe: all three cancelled;
- a "passthrough": false strip: nothing;
- SIGKILL mid-touch: the panel is the compositor's again within 1 s, the mirror gone;
- unplugged mid-touch: the mirror cancels the touch and goes away;
- a finger down as the daemon starts: the grab waits until it lifts;
- the mirror is never taken as input, and carries the panel's calibration (libinput list-devices);
- the added latency: the mirror's kernel timestamps minus the panel's, p50 and p99 (a MEASURE line,
  judged against one frame of the replayed stream).
"""
import errno
import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import time

from common import FIX, Client, Daemon, Device, report, tbsupport

EVIOCGRAB = 0x40044590
EVIOCSCLOCKID = 0x400445a0
PANEL = "Lab Pass-through Panel"
HZ = 60

# An Atmel maXTouch's description (800 x 480 device units, ten slots, tool type, BTN_TOUCH and the
# single-touch axes), under a name of its own: the lab's udev rules pick it out.
with open(os.path.join(FIX, "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")) as _f:
    _HEADER = [l for l in _f if not l.startswith(("E:", "#"))]


def panel_description(workdir, name=PANEL):
    path = os.path.join(workdir, name.replace(" ", "-") + ".desc")
    with open(path, "w") as f:
        f.write("# EVEMU 1.3\n")
        for line in _HEADER:
            f.write("N: {}\n".format(name) if line.startswith("N:") else line)
    return path


def gesture(workdir, name, fingers, hz=HZ, lift=True):
    """An evemu recording of fingers on the panel: each finger is (x, y, dx, dy, frames, start): it lands
    at frame `start` at (x, y), moves (dx, dy) a frame for `frames` frames, and lifts after (without
    `lift`, it stays down when the recording ends). Frames are 1/hz s apart, each with what changed,
    BTN_TOUCH and the oldest finger on ABS_X/ABS_Y, as a kernel driver sends them (tbsupport.evemu_frames)."""
    path = os.path.join(workdir, name + ".evemu")
    last = max(start + frames for (_, _, _, _, frames, start) in fingers) - (0 if lift else 1)
    frames = [{slot: (x + dx * (f - start), y + dy * (f - start))
               for slot, (x, y, dx, dy, n, start) in enumerate(fingers) if start <= f < start + n}
              for f in range(last + 1)]
    tbsupport.evemu_frames(path, frames, hz=hz, header="# EVEMU 1.3\n" + "".join(_HEADER), t0=1.0, first_id=501,
                           only_changes=True, pointer_emulation=True, lift_at_end=False)
    return path


SCENE = {
    "window": {"width": 800, "height": 480},
    "devices": [{"name": "Lab*", "passthrough": True}],
    "views": [
        {"name": "plain", "frame": [100, 0, 300, 480]},
        {"name": "content", "frame": [400, 0, 300, 480], "multipleTouchEnabled": True,
         "recognizers": [{"name": "swipeDown", "type": "swipe", "direction": ["down"], "numberOfTouchesRequired": 3}]},
        {"name": "edge", "frame": [0, 0, 100, 480],
         "recognizers": [{"name": "back", "type": "screenEdgePan", "edges": ["left"]}]},
        {"name": "reserved", "frame": [700, 0, 100, 480], "passthrough": False},
    ],
}


def write_scene(workdir, delays_began=False):
    scene = json.loads(json.dumps(SCENE))
    if delays_began:
        scene["views"][2]["recognizers"][0]["delaysTouchesBegan"] = True
    path = os.path.join(workdir, "passthrough-scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    return path


def install_udev_rules(binaries):
    """The project's udev rule (the mirror's properties) with the lab's binaries, and a calibration for
    the lab's calibrated panel, in the guest's /run/udev/rules.d."""
    os.makedirs("/run/udev/rules.d", exist_ok=True)
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "udev", "70-touchbridge.rules")) as f:
        rule = f.read().replace("/usr/local/bin/", binaries.rstrip("/") + "/")
    with open("/run/udev/rules.d/70-touchbridge.rules", "w") as f:
        f.write(rule)
    with open(os.path.join(root, "udev", "85-touchbridge-mirror-group.rules")) as src, \
            open("/run/udev/rules.d/85-touchbridge-mirror-group.rules", "w") as f:
        f.write(src.read())
    with open("/run/udev/rules.d/60-lab-calibration.rules", "w") as f:
        f.write('ACTION=="add|change", SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="Lab Calibrated Panel", '
                'ENV{LIBINPUT_CALIBRATION_MATRIX}="%s"\n' % CALIBRATION)
    subprocess.run(["udevadm", "control", "--reload"], check=True)


CALIBRATION = "1.02 0 -0.01 0 0.98 0.01"


# `libinput debug-events` on one device: the shared watcher (Tests/support/tbsupport.py).
Watcher = tbsupport.LibinputWatcher


class Recorder:
    """evemu-record on one device: its events with the kernel's timestamps."""

    def __init__(self, node, workdir, tag):
        self.path = os.path.join(workdir, "record-{}.evemu".format(tag))
        self.proc = subprocess.Popen(["evemu-record", node], stdout=open(self.path, "w"), stderr=subprocess.DEVNULL)
        time.sleep(0.3)

    def frames(self):
        """[(time, [(type, code, value)])], one per SYN_REPORT."""
        frames, current = [], []
        with open(self.path) as f:
            for line in f:
                if not line.startswith("E:"):
                    continue
                p = line.split()
                t, type_, code, value = float(p[1]), int(p[2], 16), int(p[3], 16), int(p[4])
                if type_ == 0 and code == 0:
                    frames.append((t, current))
                    current = []
                else:
                    current.append((type_, code, value))
        return frames

    def stop(self):
        self.proc.terminate()
        self.proc.wait(5)


class MirrorReader:
    """Reads a device's events directly, with the kernel's CLOCK_MONOTONIC timestamps (EVIOCSCLOCKID),
    which is what evemu-record and libinput record see, but absolute (they print times relative to
    the first event): comparable with the daemon's touch lines, which carry the panel's."""

    def __init__(self, node):
        import threading
        self.fd = os.open(node, os.O_RDONLY)
        fcntl.ioctl(self.fd, EVIOCSCLOCKID, struct.pack("i", time.CLOCK_MONOTONIC))
        self.events = []
        self.done = False
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        size = struct.calcsize("llHHi")
        while not self.done:
            r, _, _ = select.select([self.fd], [], [], 0.1)
            if not r:
                continue
            try:
                data = os.read(self.fd, size * 64)
            except OSError:
                return
            for i in range(0, len(data) - size + 1, size):
                sec, usec, type_, code, value = struct.unpack_from("llHHi", data, i)
                self.events.append((sec + usec / 1e6, type_, code, value))

    def stop(self):
        """[(time, [(type, code, value)])], one per SYN_REPORT."""
        time.sleep(0.2)
        self.done = True
        self.thread.join(2)
        os.close(self.fd)
        frames, current = [], []
        for t, type_, code, value in self.events:
            if type_ == 0 and code == 0:
                frames.append((t, current))
                current = []
            else:
                current.append((type_, code, value))
        return frames


def is_grabbed(node):
    """Whether some reader holds the device's grab: try to take it (and give it back at once)."""
    fd = os.open(node, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.ioctl(fd, EVIOCGRAB, 1)
        fcntl.ioctl(fd, EVIOCGRAB, 0)
        return False
    except OSError as e:
        if e.errno == errno.EBUSY:
            return True
        raise
    finally:
        os.close(fd)


class Rig:
    """A pass-through daemon on the lab's panel, with libinput reading the mirror (and the panel)."""

    def __init__(self, binaries, workdir, scene_args, desc=None):
        self.workdir = workdir
        self.panel = Device(desc or panel_description(workdir))
        self.daemon = None
        try:
            self.daemon = Daemon(binaries, workdir, args=list(scene_args))
            self.client = Client(self.daemon.socket)
        except Exception as e:
            # Nothing is left behind for the next check; the daemon's log says what happened.
            log = self.daemon.text()[-600:] if self.daemon else ""
            status = self.daemon.proc.poll() if self.daemon else None
            self.stop()
            raise RuntimeError("{} (daemon exit status {}): {}".format(e, status, log))
        m = self.daemon.wait_for_log(re.escape(self.panel.node) + r'.*→ mirror (/dev/input/event\d+)')
        self.mirror = m.group(1) if m else None
        if self.mirror:
            subprocess.run(["udevadm", "settle", "--timeout=10"])

    def wait_grabbed(self, timeout=10):
        return bool(self.daemon.wait_for_log(r"grabbed " + re.escape(self.panel.node), timeout))

    def stop(self):
        if self.daemon:
            self.daemon.stop()
        self.panel.remove()


def check_passthrough(binaries, workdir):
    """Taps, edge swipes, three-finger swipes and a reserved strip through one pass-through daemon."""
    rig = Rig(binaries, workdir, ["--scene", write_scene(workdir)])
    try:
        ok = bool(rig.mirror) and rig.wait_grabbed() and is_grabbed(rig.panel.node)
        report("pass-through: the daemon makes a mirror of the panel and grabs the panel", ok, "" if ok else rig.daemon.text()[-400:])
        if not rig.mirror:
            return
        seen = Watcher(rig.mirror, workdir, "mirror")
        panel = Watcher(rig.panel.node, workdir, "panel")
        rec = Recorder(rig.mirror, workdir, "mirror")
        rig.client.pump(0.3)

        def play(name, fingers):
            mark = len(seen.text())
            lines = len(rig.client.lines_seen)
            rig.panel.play(gesture(workdir, name, fingers))
            rig.client.pump(1.0)
            return seen.events(mark), rig.client.lines_seen[lines:]

        tap, _ = play("tap", [(250, 240, 0, 0, 6, 0)])
        frames = rec.frames()
        downs = [dict(((c, v) for (t, c, v) in ev if t == 3)) for (_, ev) in frames
                 if any(t == 3 and c == 0x39 and v >= 0 for (t, c, v) in ev)]
        at = (downs[0].get(0x35), downs[0].get(0x36)) if downs else None
        report("pass-through: a tap in a plain region reaches the mirror as down/up at the panel's device coordinates",
               [k for k, _ in tap] == ["TOUCH_DOWN", "TOUCH_UP"] and at == (250, 240),
               "libinput on the mirror: {}; first position {}".format([k for k, _ in tap], at))

        swipe, lines = play("edge-swipe", [(4, 240, 12, 0, 20, 0)])
        back = [l["state"] for l in lines if l.get("event") == "gesture" and l["recognizer"] == "back"]
        report("pass-through: a left-edge swipe on a screenEdgePan view shows as down, then TOUCH_CANCEL, no up",
               [k for k, _ in swipe] == ["TOUCH_DOWN", "TOUCH_CANCEL"] and "began" in back,
               "libinput on the mirror: {}; back: {}".format([k for k, _ in swipe], back))

        three, lines = play("three-finger-swipe", [(450, 100, 0, 18, 14, 0), (520, 100, 0, 18, 14, 0), (590, 100, 0, 18, 14, 0)])
        recognized = [l for l in lines if l.get("event") == "gesture" and l["recognizer"] == "swipeDown"]
        kinds = [k for k, _ in three]
        report("pass-through: a three-finger swipe cancels all three on the mirror",
               kinds.count("TOUCH_DOWN") == 3 and kinds.count("TOUCH_CANCEL") == 3 and "TOUCH_UP" not in kinds
               and len(recognized) == 1, "libinput on the mirror: {}; swipe lines {}".format(kinds, len(recognized)))

        reserved, lines = play("reserved", [(750, 200, 0, 5, 10, 0)])
        touched = [l for l in lines if l.get("event") == "touch" and l["view"] == "reserved"]
        report("pass-through: a \"passthrough\": false strip passes nothing",
               reserved == [] and len(touched) >= 2, "libinput on the mirror: {}; touch lines on it: {}".format(reserved, len(touched)))

        report("pass-through: the grabbed panel gives the compositor nothing itself", panel.kinds() == [],
               "libinput on the panel: {}".format(panel.kinds()))
        for w in (seen, panel):
            w.stop()
        rec.stop()
    finally:
        rig.stop()


def check_delays_began(binaries, workdir):
    rig = Rig(binaries, workdir, ["--scene", write_scene(workdir, delays_began=True)])
    try:
        if not (rig.mirror and rig.wait_grabbed()):
            return report("pass-through, delaysTouchesBegan: mirror and grab", False, rig.daemon.text()[-400:])
        seen = Watcher(rig.mirror, workdir, "mirror")
        rig.client.pump(0.3)
        rig.panel.play(gesture(workdir, "edge-swipe", [(4, 240, 12, 0, 20, 0)]))
        rig.client.pump(1.0)
        swipe = seen.kinds()
        mark = len(seen.text())
        reader = MirrorReader(rig.mirror)
        lines = len(rig.client.lines_seen)
        # Within the edge pan's 24 pt and still: it may yet begin, until the finger lifts.
        rig.panel.play(gesture(workdir, "edge-tap", [(10, 300, 0, 0, 9, 0)]))      # held 150 ms
        rig.client.pump(1.0)
        kinds = seen.kinds(mark)
        frames = reader.stop()
        down = next((t for t, ev in frames if (3, 0x39) in [(a, b) for a, b, v in ev if v >= 0]), None)
        up = next((t for t, ev in frames if (3, 0x39, -1) in ev), None)
        lifted = next((l["time"] for l in rig.client.lines_seen[lines:] if l.get("event") == "touch" and l["phase"] == "ended"), None)
        late = down is not None and up is not None and lifted is not None and down >= lifted and up - down < 0.02
        report("pass-through, delaysTouchesBegan: the edge swipe never appears on the mirror", swipe == [],
               "libinput on the mirror: {}".format(swipe))
        report("pass-through, delaysTouchesBegan: a tap there appears late, down and up together when it lifts (held {:.2f} s "
               "on the panel)".format(9 / HZ), kinds == ["TOUCH_DOWN", "TOUCH_UP"] and late,
               "libinput on the mirror: {}; mirror down at {}, up at {}, the panel's lift at {}".format(kinds, down, up, lifted))
        seen.stop()
    finally:
        rig.stop()


def check_sigkill(binaries, workdir):
    rig = Rig(binaries, workdir, ["--scene", write_scene(workdir)])
    try:
        if not (rig.mirror and rig.wait_grabbed()):
            return report("pass-through, SIGKILL: mirror and grab", False, rig.daemon.text()[-400:])
        panel = Watcher(rig.panel.node, workdir, "panel")
        drag = gesture(workdir, "drag", [(250, 100, 0, 4, 60, 0)])
        player = rig.panel.play(drag, background=True)
        time.sleep(0.5)                                          # the finger is down, moving
        rig.daemon.proc.kill()
        killed = time.time()
        back = None
        while time.time() - killed < 1.0:
            if not os.path.exists(rig.mirror) and not is_grabbed(rig.panel.node):
                back = time.time() - killed
                break
            time.sleep(0.02)
        player.wait(30)
        mark = len(panel.text())
        rig.panel.play(gesture(workdir, "tap-after", [(250, 240, 0, 0, 6, 0)]))
        time.sleep(0.5)
        after = panel.kinds(mark)
        report("pass-through: SIGKILL mid-touch gives the compositor the panel back within 1 s (ungrabbed, mirror gone"
               "{})".format(", in {:.3f} s".format(back) if back is not None else ""),
               back is not None and after == ["TOUCH_DOWN", "TOUCH_UP"],
               "mirror exists: {}, panel grabbed: {}; libinput on the panel afterwards: {}".format(
                   os.path.exists(rig.mirror), is_grabbed(rig.panel.node), after))
        panel.stop()
    finally:
        rig.stop()


def check_unplug(binaries, workdir):
    rig = Rig(binaries, workdir, ["--scene", write_scene(workdir)])
    try:
        if not (rig.mirror and rig.wait_grabbed()):
            return report("pass-through, unplug: mirror and grab", False, rig.daemon.text()[-400:])
        seen = Watcher(rig.mirror, workdir, "mirror")
        player = rig.panel.play(gesture(workdir, "drag", [(250, 100, 0, 4, 60, 0)]), background=True)
        time.sleep(0.5)
        rig.panel.remove()                                       # unplugged with the finger down
        player.wait(30)
        end = time.time() + 3
        while os.path.exists(rig.mirror) and time.time() < end:
            time.sleep(0.05)
        time.sleep(0.3)
        kinds = seen.kinds()
        report("pass-through: unplugged mid-touch, the mirror cancels the touch and goes away",
               kinds == ["TOUCH_DOWN", "TOUCH_CANCEL"] and not os.path.exists(rig.mirror) and "DEVICE_REMOVED" in seen.text(),
               "libinput on the mirror: {}; mirror exists: {}".format(kinds, os.path.exists(rig.mirror)))
        report("pass-through, unplug: the daemon keeps serving", rig.daemon.proc.poll() is None)
        seen.stop()
    finally:
        rig.stop()


def check_finger_at_start(binaries, workdir):
    desc = panel_description(workdir)
    panel = Device(desc)
    daemon = None
    try:
        watcher = Watcher(panel.node, workdir, "panel")
        # A finger lands and stays, then the daemon starts.
        panel.play(gesture(workdir, "held", [(250, 200, 1, 0, 10, 0)], lift=False))
        daemon = Daemon(binaries, workdir, args=["--scene", write_scene(workdir)])
        waits = daemon.wait_for_log(r"a finger is on " + re.escape(panel.node) + r".*the grab waits", 10)
        grabbed_early = is_grabbed(panel.node)
        lift = os.path.join(workdir, "lift.evemu")
        with open(lift, "w") as f:
            f.write("# EVEMU 1.3\n")
            f.writelines(_HEADER)
            f.write("E: 1.000000 0003 002f 0\nE: 1.000000 0003 0039 -1\nE: 1.000000 0001 014a 0\nE: 1.000000 0000 0000 0\n")
        panel.play(lift)
        grabbed = daemon.wait_for_log(r"grabbed " + re.escape(panel.node), 5)
        kinds = watcher.kinds()
        report("pass-through: a finger already down at start defers the grab until it lifts (the compositor sees its up)",
               bool(waits) and not grabbed_early and bool(grabbed) and kinds == ["TOUCH_DOWN", "TOUCH_UP"],
               "waits logged: {}, grabbed while down: {}, grabbed after: {}; libinput on the panel: {}".format(
                   bool(waits), grabbed_early, bool(grabbed), kinds))
        watcher.stop()
    finally:
        if daemon:
            daemon.stop()
        panel.remove()


def check_mirror_properties(binaries, workdir):
    rig = Rig(binaries, workdir, ["--scene", write_scene(workdir)], desc=panel_description(workdir, "Lab Calibrated Panel"))
    try:
        if not rig.mirror:
            return report("pass-through: mirror of the calibrated panel", False, rig.daemon.text()[-400:])
        ignored = rig.daemon.wait_for_log(r"ignoring " + re.escape(rig.mirror) + r" .*a pass-through mirror", 5)
        fresh = Client(rig.daemon.socket)
        fresh.pump(0.5)
        nodes = [l["node"] for l in fresh.of("device") if l["action"] == "added"]
        report("pass-through: the daemon never takes its mirror as input", bool(ignored) and nodes == [rig.panel.node],
               "ignored: {}; devices: {}".format(bool(ignored), nodes))
        info = subprocess.run(["udevadm", "info", "--query=property", "--name", rig.mirror], capture_output=True, text=True).stdout
        listing = subprocess.run(["libinput", "list-devices"], capture_output=True, text=True).stdout
        block = next((b for b in listing.split("\n\n") if "Lab Calibrated Panel (TouchBridge)" in b), "")
        calibration = re.search(r"Calibration:\s+(.*)", block)
        expected = " ".join("{:.2f}".format(float(v)) for v in CALIBRATION.split())
        ok = (calibration is not None and calibration.group(1).split() == expected.split()
              and "LIBINPUT_CALIBRATION_MATRIX=" + CALIBRATION in info and "TOUCHBRIDGE_MIRROR=1" in info)
        report("pass-through: libinput list-devices shows the panel's calibration on the mirror", ok,
               "" if ok else "list-devices: {}; udev: {}; helper: {}".format(
                   calibration.group(1) if calibration else block[-300:],
                   [l for l in info.splitlines() if "CALIBRATION" in l or "TOUCHBRIDGE" in l],
                   helper_output(binaries, rig.mirror)))
    finally:
        rig.stop()


def helper_output(binaries, node):
    """What the udev helper prints for a mirror, and its errors (for a failing check's detail)."""
    out = subprocess.run([os.path.join(binaries, "touchbridgectl"), "udev-mirror-properties", os.path.basename(node)],
                         capture_output=True, text=True)
    test = subprocess.run(["udevadm", "test", "/sys/class/input/" + os.path.basename(node)], capture_output=True, text=True)
    lines = [l for l in (test.stdout + test.stderr).splitlines() if "touchbridge" in l.lower() or "rules" in l.lower()]
    return (out.stdout + out.stderr).strip().replace("\n", "; ") + " | udevadm test: " + " / ".join(lines[-12:])


def percentile(values, p):
    s = sorted(values)
    return s[min(len(s) - 1, int(round((len(s) - 1) * p)))]


def measure_latency(binaries, workdir):
    """The mirror's kernel timestamps minus the panel's, frame for frame, through a transparent scene
    (every frame of the panel makes one frame of the mirror). The mirror's are read from it directly
    (MirrorReader); the panel's are the timestamps the daemon read from it (its touch lines' "time"),
    what evemu-record would see had the grab not kept them from it."""
    scene = os.path.join(workdir, "transparent.json")
    with open(scene, "w") as f:
        json.dump({"window": {"width": 800, "height": 480}, "devices": [{"name": "Lab*", "passthrough": True}]}, f)
    rig = Rig(binaries, workdir, ["--scene", scene])
    try:
        if not (rig.mirror and rig.wait_grabbed()):
            return report("pass-through latency: mirror and grab", False, "mirror {}; {}".format(rig.mirror, rig.daemon.text()[-1500:]))
        # A warm-up first: under emulation the first pass through a code path costs its translation.
        rig.client.pump(0.3)
        rig.panel.play(gesture(workdir, "warm-up", [(300, 200, 2, 2, 30, 0), (400, 200, -2, 2, 30, 5)], hz=HZ))
        rig.client.pump(0.5)
        lines = len(rig.client.lines_seen)
        reader = MirrorReader(rig.mirror)
        # Seven seconds of fingers moving, landing and lifting: three that sweep down, one that comes and goes.
        fingers = [(150 + 120 * i, 30, 0, 1, 400, 10 * i) for i in range(3)]
        fingers += [(600, 300 + 10 * k, 3, -1, 40, 60 + 90 * k) for k in range(4)]
        rig.panel.play(gesture(workdir, "latency", fingers, hz=HZ))
        rig.client.pump(1.0)
        source = sorted({round(l["time"], 6) for l in rig.client.lines_seen[lines:] if l.get("event") == "touch"})
        mirror = [t for t, _ in reader.stop()]
        n = min(len(source), len(mirror))
        delays = [(m - s) * 1000 for s, m in zip(source[:n], mirror[:n])]
        frame_ms = 1000 / HZ
        ok = len(source) == len(mirror) and n > 300 and min(delays) >= 0
        p50, p99 = (percentile(delays, 0.5), percentile(delays, 0.99)) if delays else (0, 0)
        print("MEASURE pass-through latency: p50 {:.2f} ms, p99 {:.2f} ms, max {:.2f} ms over {} frames of a {} Hz "
              "stream (one frame: {:.1f} ms)".format(p50, p99, max(delays or [0]), n, HZ, frame_ms), flush=True)
        ok = ok and p99 <= frame_ms
        report("pass-through: added latency p99 {:.2f} ms is at most one frame of the stream ({:.1f} ms)".format(p99, frame_ms),
               ok, "" if ok else "{} panel frames, {} mirror frames; the ten largest (ms): {}".format(
                   len(source), len(mirror), [round(d, 1) for d in sorted(delays)[-10:]]))
    finally:
        rig.stop()


CHECKS = [
    ("passthrough", check_passthrough),
    ("passthrough delays", check_delays_began),
    ("passthrough sigkill", check_sigkill),
    ("passthrough unplug", check_unplug),
    ("passthrough finger at start", check_finger_at_start),
    ("passthrough properties", check_mirror_properties),
    ("passthrough latency", measure_latency),
]
