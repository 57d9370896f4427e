"""The hardware lab's action checks (README "Actions", docs/actions.md): touchbridged passes the lab's
panel through and writes actions to its own uinput keyboard and pointer; `libinput debug-events` reads
the mirror, the keyboard and the pointer as a compositor would, and the devices' own events give the
kernel's timestamps. Each check is its own PASS line:
- libinput list-devices shows the keyboard and the pointer;
- a long press with `click` right: on the mirror TOUCH_CANCEL and no up, then on the pointer
  POINTER_MOTION_ABSOLUTE at the finger (within 1 % of the touch's position as libinput reports it), then
  BTN_RIGHT pressed and released, and no left button;
- an edge swipe with `keys`, in a German layout: ctrl+z arrives as KEY_Y with ctrl, then the next chord,
  every key released, in order;
- a two-finger pan with `scroll`: POINTER_SCROLL_WHEEL events whose sum matches the translation,
  continuing after the lift and stopping when a finger lands;
- SIGKILL mid-scroll and mid-chord: nothing stays pressed, the devices go;
- the added latency of an action: its events' kernel time minus the frame that fired it, p99 at most
  one frame of the stream (a MEASURE line).
"""
import json
import os
import re
import signal
import subprocess
import time

from common import Client, report, tbsupport
from passthrough import HZ, MirrorReader, Rig, gesture

# A pass-through scene: a long press that right-clicks, a left edge that types two chords in a German
# layout, and a two-finger pan that scrolls.
SCENE = {
    "window": {"width": 800, "height": 480},
    "keyboard": {"layout": "de"},
    "devices": [{"name": "Lab*", "passthrough": True}],
    "views": [
        {"name": "edge", "frame": [0, 0, 100, 480],
         "recognizers": [{"name": "undo", "type": "screenEdgePan", "edges": ["left"],
                          "action": {"keys": ["ctrl+z", "super+Page_Down"]}}]},
        {"name": "page", "frame": [100, 0, 300, 480],
         "recognizers": [{"name": "menu", "type": "longPress", "action": {"click": "right"}}]},
        {"name": "list", "frame": [400, 0, 400, 480], "multipleTouchEnabled": True,
         "recognizers": [{"name": "scroll", "type": "pan", "minimumNumberOfTouches": 2,
                          "action": {"scroll": {"pointsPerNotch": 50}}}]},
    ],
}


def write_scene(workdir, scene=SCENE):
    path = os.path.join(workdir, "actions-scene.json")
    with open(path, "w") as f:
        json.dump(scene, f)
    return path


def watch(node, workdir, tag):
    """`libinput debug-events --show-keycodes` on one device (the shared watcher)."""
    return tbsupport.LibinputWatcher(node, workdir, tag, show_keycodes=True)


def stopped(watcher):
    """Stops a watcher; its whole text."""
    watcher.stop()
    return watcher.text()


def keys(text):
    """[(KEY_X, pressed|released)] of a libinput log."""
    return re.findall(r"KEYBOARD_KEY\s+\+[0-9.]+s\s+(KEY_\w+) \(\d+\) (pressed|released)", text)


def buttons(text):
    return re.findall(r"POINTER_BUTTON\s+\+[0-9.]+s\s+(BTN_\w+) \(\d+\) (pressed|released)", text)


def motions(text):
    return [(float(x), float(y)) for x, y in re.findall(r"POINTER_MOTION_ABSOLUTE\s+\+[0-9.]+s\s+(-?[0-9.]+)/\s*(-?[0-9.]+)", text)]


def wheel_v120(text):
    """The vertical v120 values of POINTER_SCROLL_WHEEL events (libinput: positive scrolls down)."""
    return [float(v) for v in re.findall(r"POINTER_SCROLL_WHEEL\s+\+[0-9.]+s\s+vert\s+-?[0-9.]+/(-?[0-9.]+)", text)]


def touch_downs(text):
    return [(float(x), float(y)) for x, y in re.findall(r"TOUCH_DOWN\s+\+[0-9.]+s\s+\d+\s+\(\d+\)\s+([0-9.]+)/\s*([0-9.]+)", text)]


def balanced(events):
    """Whether every key or button pressed was released, in a [(name, state)] list."""
    down = set()
    for name, state in events:
        (down.add if state == "pressed" else down.discard)(name)
    return not down


class ActionRig(Rig):
    """A pass-through daemon on the lab's panel with its action devices."""

    def __init__(self, binaries, workdir, scene=SCENE, extra=(), topics=("gestures", "touches", "devices", "actions")):
        super().__init__(binaries, workdir, ["--scene", write_scene(workdir, scene)] + list(extra))
        self.client = Client(self.daemon.socket, topics=topics)
        m = self.daemon.wait_for_log(r'actions: .*\((/dev/input/event\d+), (/dev/input/event\d+)\)')
        self.keyboard, self.pointer = (m.group(1), m.group(2)) if m else (None, None)
        subprocess.run(["udevadm", "settle", "--timeout=10"])

    @property
    def ready(self):
        return bool(self.mirror and self.keyboard and self.pointer and self.wait_grabbed())

    def play(self, workdir, name, fingers, wait=1.0):
        start = len(self.client.lines_seen)
        self.panel.play(gesture(workdir, name, fingers, hz=HZ))
        self.client.pump(wait)
        return self.client.lines_seen[start:]


def not_ready(name, rig):
    return report(name, False, "mirror {}, keyboard {}, pointer {}: {}".format(
        rig.mirror, rig.keyboard, rig.pointer, rig.daemon.text()[-1200:]))


def libinput_devices():
    """`libinput list-devices` as {device name: its block of lines}, and the whole text."""
    out = subprocess.run(["libinput", "list-devices"], capture_output=True, text=True, timeout=60).stdout
    return {b.split("\n", 1)[0].strip(): b for b in re.split(r"\nDevice:\s+", "\n" + out) if b.strip()}, out


def device_field(block, name):
    """A field of a device's block ("Capabilities", "Size"); "" when it has none."""
    return (re.search(r"{}:\s+(.*)".format(name), block) or [None, ""])[1].strip()


def check_devices(binaries, workdir):
    rig = ActionRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("actions: the daemon makes its keyboard and pointer", rig)
        blocks, out = libinput_devices()
        kb, ptr = blocks.get("TouchBridge keyboard", ""), blocks.get("TouchBridge pointer", "")
        caps = lambda b: device_field(b, "Capabilities")
        ok = caps(kb) == "keyboard" and caps(ptr) == "pointer"
        report("actions: libinput list-devices shows the keyboard (capabilities: {}) and the pointer ({})".format(
            caps(kb) or "absent", caps(ptr) or "absent"), ok, "" if ok else out[-1500:])
    finally:
        rig.stop()


def check_long_press(binaries, workdir):
    rig = ActionRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("actions: a long press right-clicks", rig)
        mirror, pointer = watch(rig.mirror, workdir, "mirror"), watch(rig.pointer, workdir, "pointer")
        raw_mirror, raw_pointer = MirrorReader(rig.mirror), MirrorReader(rig.pointer)
        rig.client.pump(0.3)
        lines = rig.play(workdir, "long-press", [(250, 240, 0, 0, 60, 0)])
        m_frames, p_frames = raw_mirror.stop(), raw_pointer.stop()
        m_text, p_text = stopped(mirror), stopped(pointer)
        touch = [k for k in re.findall(r"\b(TOUCH_DOWN|TOUCH_UP|TOUCH_CANCEL)\b", m_text)]
        downs, moves, btns = touch_downs(m_text), motions(p_text), buttons(p_text)
        cancel_at = [t for t, ev in m_frames if any(c == 0x37 and v == 2 for (ty, c, v) in ev if ty == 3)]
        motion_at = [t for t, ev in p_frames if any(ty == 3 for (ty, c, v) in ev)]
        close = bool(downs and moves) and abs(downs[0][0] - moves[0][0]) <= 1 and abs(downs[0][1] - moves[0][1]) <= 1
        ordered = bool(cancel_at and motion_at) and cancel_at[0] <= motion_at[0]
        ok = (touch == ["TOUCH_DOWN", "TOUCH_CANCEL"] and close and ordered
              and btns == [("BTN_RIGHT", "pressed"), ("BTN_RIGHT", "released")])
        said = [l for l in lines if l.get("event") == "action"]
        report("actions: a long press: the mirror TOUCH_CANCEL (no up), then POINTER_MOTION_ABSOLUTE at {} (the touch at {}, "
               "within 1 %), then BTN_RIGHT pressed and released, no left button".format(
                   moves[0] if moves else None, downs[0] if downs else None), ok,
               "" if ok else "mirror {}; buttons {}; cancel before motion {}; action lines {}".format(touch, btns, ordered, said))
    finally:
        rig.stop()


def check_keys(binaries, workdir):
    rig = ActionRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("actions: an edge swipe types keys", rig)
        kb = watch(rig.keyboard, workdir, "keyboard")
        rig.client.pump(0.3)
        rig.play(workdir, "edge-swipe", [(4, 240, 12, 0, 20, 0)])
        got = keys(stopped(kb))
        expected = [("KEY_LEFTCTRL", "pressed"), ("KEY_Y", "pressed"), ("KEY_Y", "released"), ("KEY_LEFTCTRL", "released"),
                    ("KEY_LEFTMETA", "pressed"), ("KEY_PAGEDOWN", "pressed"), ("KEY_PAGEDOWN", "released"),
                    ("KEY_LEFTMETA", "released")]
        report("actions: an edge swipe with keys [\"ctrl+z\", \"super+Page_Down\"] in layout de: KEY_LEFTCTRL+KEY_Y, then "
               "KEY_LEFTMETA+KEY_PAGEDOWN, in order, all released", got == expected, "" if got == expected else "libinput: {}".format(got))
    finally:
        rig.stop()


def check_scroll(binaries, workdir):
    rig = ActionRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("actions: a two-finger pan scrolls", rig)
        pointer, raw = watch(rig.pointer, workdir, "pointer"), MirrorReader(rig.pointer)
        rig.client.pump(0.3)
        # Two fingers 8 px a frame down for half a second (480 pt/s), then a finger lands 0.4 s after the
        # lift: the coast (about 2 s at this speed) must stop there.
        fingers = [(500, 60, 0, 8, 30, 0), (620, 60, 0, 8, 30, 0), (450, 400, 0, 0, 4, 30 + 24)]
        lines = rig.play(workdir, "scroll", fingers, wait=2.5)
        frames = raw.stop()
        text = stopped(pointer)
        scrolls = [l for l in lines if l.get("event") == "action" and l["action"] == "scroll"]
        written = sum(l["dy"] for l in scrolls)
        v120 = wheel_v120(text)
        gestures = [l for l in lines if l.get("event") == "gesture" and l["recognizer"] == "scroll"]
        began = next((l["translation"]["y"] for l in gestures if l["state"] == "began"), 0)
        end = gestures[-1]["translation"]["y"] if gestures else 0
        following = sum(l["dy"] for l in scrolls if l["state"] != "coasting")
        lifted = max((l["time"] for l in gestures), default=0)
        landed = next((l["time"] for l in lines if l.get("event") == "touch" and l["phase"] == "began" and l["x"] < 460), None)
        wheel_times = [t for t, ev in frames if any(ty == 2 for (ty, c, v) in ev)]
        after_lift = [t for t in wheel_times if t > lifted]
        # The coast stops when the daemon reads the landing: a wheel frame its timer wrote while the
        # landing's events still waited in the panel's buffer (under emulation, a few ms) is within one
        # frame of the stream; none may come after that.
        after_landing = [t for t in wheel_times if landed is not None and t > landed + 1.0 / HZ]
        # libinput's vertical axis points down, the kernel's REL_WHEEL up: libinput's sum is minus ours.
        ok = (abs(following - (end - began) * 120 / 50) <= 1 and abs(sum(v120) + written) <= 1 and written > 0
              and after_lift and not after_landing)
        report("actions: a two-finger pan scrolls {} hi-res units ({} while the fingers moved {:.0f} pt; libinput's "
               "POINTER_SCROLL_WHEEL sum {:.0f}), coasts after the lift ({} wheel frames) and stops when a finger lands".format(
                   written, following, end - began, sum(v120), len(after_lift)), ok,
               "" if ok else "wheel frames after the landing at {}: {}; landed {}".format(landed, after_landing[:5], landed))
    finally:
        rig.stop()


def check_sigkill(binaries, workdir):
    """SIGKILL while a scroll coasts and while chords are typed: libinput sees every key and button it
    saw pressed released, and the devices removed."""
    base = workdir
    details = []
    ok = True
    for what, fingers, delay in [("mid-scroll", [(500, 60, 0, 8, 30, 0), (620, 60, 0, 8, 30, 0)], 0.7),
                                 ("mid-chord", [(4, 240, 12, 0, 20, 0)], 0.25)]:
        # A directory of its own: the killed daemon leaves its socket file behind.
        workdir = os.path.join(base, what)
        os.makedirs(workdir)
        rig = ActionRig(binaries, workdir)
        try:
            if not rig.ready:
                return not_ready("actions: SIGKILL", rig)
            kb, ptr = watch(rig.keyboard, workdir, "kb-" + what), watch(rig.pointer, workdir, "ptr-" + what)
            rig.client.pump(0.3)
            player = rig.panel.play(gesture(workdir, what, fingers, hz=HZ), background=True)
            time.sleep(delay)
            rig.daemon.proc.send_signal(signal.SIGKILL)
            rig.daemon.proc.wait(10)
            player.wait(30)
            time.sleep(1.0)
            gone = not os.path.exists(rig.keyboard) and not os.path.exists(rig.pointer)
            k_text, p_text = stopped(kb), stopped(ptr)
            fine = balanced(keys(k_text)) and balanced(buttons(p_text)) and gone
            fine = fine and "DEVICE_REMOVED" in k_text and "DEVICE_REMOVED" in p_text
            details.append("{}: {} keys, {} wheel events, devices gone {}".format(
                what, len(keys(k_text)), len(wheel_v120(p_text)), gone))
            ok = ok and fine
        finally:
            rig.stop()
    report("actions: SIGKILL mid-scroll and mid-chord leaves nothing pressed ({})".format("; ".join(details)), ok)


def percentile(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def measure_latency(binaries, workdir):
    """Each keys action's first key event, by the kernel's clock, minus the time of the panel frame that
    fired it (its action line's "time": the panel's kernel timestamp)."""
    scene = json.loads(json.dumps(SCENE))
    scene["views"][0]["recognizers"][0]["action"] = {"keys": "ctrl+z"}
    rig = ActionRig(binaries, workdir, scene)
    try:
        if not rig.ready:
            return not_ready("actions: latency", rig)
        rig.client.pump(0.3)
        rig.play(workdir, "warm-up", [(4, 240, 12, 0, 20, 0)])
        start = len(rig.client.lines_seen)
        raw = MirrorReader(rig.keyboard)
        for i in range(12):
            rig.panel.play(gesture(workdir, "swipe-{}".format(i), [(4, 100 + 20 * i, 12, 0, 16, 0)], hz=HZ))
            time.sleep(0.05)
        rig.client.pump(1.0)
        frames = raw.stop()
        fired = [l["time"] for l in rig.client.lines_seen[start:] if l.get("event") == "action"]
        presses = [t for t, ev in frames if any(ty == 1 and v == 1 and c == 29 for (ty, c, v) in ev)]
        n = min(len(fired), len(presses))
        delays = [(p - f) * 1000 for f, p in zip(fired[:n], presses[:n])]
        frame_ms = 1000 / HZ
        p50, p99 = (percentile(delays, 0.5), percentile(delays, 0.99)) if delays else (0, 0)
        print("MEASURE action latency: p50 {:.2f} ms, p99 {:.2f} ms over {} actions of a {} Hz stream (one frame: {:.1f} ms)".format(
            p50, p99, n, HZ, frame_ms), flush=True)
        ok = n >= 10 and len(fired) == len(presses) and min(delays) >= 0 and p99 <= frame_ms
        report("actions: added latency of an action p99 {:.2f} ms is at most one frame of the stream ({:.1f} ms)".format(p99, frame_ms),
               ok, "" if ok else "{} action lines, {} key presses; delays (ms) {}".format(len(fired), len(presses), [round(d, 1) for d in delays]))
    finally:
        rig.stop()


CHECKS = [
    ("actions devices", check_devices),
    ("actions long press", check_long_press),
    ("actions keys", check_keys),
    ("actions scroll", check_scroll),
    ("actions sigkill", check_sigkill),
    ("actions latency", measure_latency),
]
