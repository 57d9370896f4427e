"""The hardware lab's touchpad and display checks (docs/actions.md "Touchpad", docs/display.md):
touchbridged passes the lab's panel through and plays its gestures' fingers on its own uinput
touchpad; `libinput debug-events` reads the touchpad as a compositor would. Each is its own PASS line:
- libinput list-devices takes `TouchBridge touchpad` for a touchpad with gestures;
- a three-finger pan at the default scale: GESTURE_SWIPE_BEGIN with 3 fingers, updates whose
  unaccelerated deltas sum to the pan's travel after it began times the scale, in libinput's units
  (10.52 a mm: TouchpadOptions.libinputUnitsPerMillimetre), within 5 %; GESTURE_SWIPE_END not
  cancelled; the mirror's cancel before the touchpad's first frame (kernel clocks);
- a two-finger pinch: GESTURE_PINCH_* whose last scale is within 5 % of the pinch's own;
- a swipe whose recognizer is disabled mid-way: libinput ends it cancelled (one finger lifts first);
- SIGKILL mid-swipe: the touchpad goes, libinput ends the gesture and has no finger down;
- the kernel's backlight class: whether the guest has a backlight device (a NOTE line; none can be made
  without a panel's driver).
"""
import json
import os
import re
import signal
import subprocess
import time

from common import report, tbsupport
from passthrough import HZ, MirrorReader, gesture
from actions import ActionRig, device_field, libinput_devices

# libinput's unaccelerated gesture units for 1 mm of finger travel on a touchpad: 1000 dpi normalized,
# times its touchpad slowdown 0.2968 and plateau 0.9 (docs/actions.md, "Touchpad").
UNITS_PER_MM = 1000 / 25.4 * 0.2968 * 0.9
# The default scale: the 800 pt window's width is GNOME's 800 units (76.1 mm).
SCALE = 800 / UNITS_PER_MM / 800

SCENE = {
    "window": {"width": 800, "height": 480},
    "devices": [{"name": "Lab*", "passthrough": True}],
    "views": [
        {"name": "desktop", "frame": [0, 0, 800, 480], "multipleTouchEnabled": True,
         "recognizers": [
             {"name": "workspaces", "type": "pan", "minimumNumberOfTouches": 3, "maximumNumberOfTouches": 3,
              "action": {"touchpad": {}}},
             {"name": "zoom", "type": "pinch", "action": {"touchpad": {}}},
         ]},
    ],
}

# Three fingers 100 pt apart, 2 pt a frame to the left for 120 frames (1 s): a swipe long enough to be
# cut off mid-way (a disabled recognizer, SIGKILL).
LONG_SWIPE = [(500 + 100 * i, 240, -2, 0, 120, 0) for i in range(3)]


class TouchpadRig(ActionRig):
    def __init__(self, binaries, workdir, scene=SCENE):
        super().__init__(binaries, workdir, scene, topics=("gestures", "actions", "devices"))
        m = self.daemon.wait_for_log(r'actions: "TouchBridge touchpad" \((/dev/input/event\d+)\)')
        self.touchpad = m.group(1) if m else None
        subprocess.run(["udevadm", "settle", "--timeout=10"])

    @property
    def ready(self):
        return bool(self.touchpad) and super().ready


def gestures(text, kind):
    """[(phase, fingers, rest of the line)] of libinput's GESTURE_<kind>_* events."""
    return [(m.group(1), int(m.group(2)), m.group(3)) for m in
            re.finditer(r"GESTURE_{}_(BEGIN|UPDATE|END)\s+\+[0-9.]+s\s+(\d+)(.*)".format(kind), text)]


def unaccelerated(rest):
    m = re.search(r"\(\s*(-?[0-9.]+)/\s*(-?[0-9.]+) unaccelerated\)", rest)
    return (float(m.group(1)), float(m.group(2))) if m else (0.0, 0.0)


def not_ready(name, rig):
    return report(name, False, "touchpad {}, mirror {}: {}".format(rig.touchpad, rig.mirror, rig.daemon.text()[-1200:]))


def check_device(binaries, workdir):
    rig = TouchpadRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("touchpad: libinput takes the touchpad", rig)
        blocks, out = libinput_devices()
        block = blocks.get("TouchBridge touchpad", "")
        caps, size = device_field(block, "Capabilities"), device_field(block, "Size")
        ok = "gesture" in caps and "pointer" in caps and size.startswith("160x110")
        report("touchpad: libinput list-devices takes \"TouchBridge touchpad\" for a touchpad (capabilities: {}; size {})".format(caps, size),
               ok, "" if ok else block or out[-1500:])
    finally:
        rig.stop()


def check_swipe(binaries, workdir):
    rig = TouchpadRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("touchpad: a three-finger swipe", rig)
        pad = tbsupport.LibinputWatcher(rig.touchpad, workdir, "touchpad")
        raw_mirror, raw_pad = MirrorReader(rig.mirror), MirrorReader(rig.touchpad)
        rig.client.pump(0.3)
        # Three fingers 100 pt apart, 8 pt a frame to the left for 50 frames (400 pt in 0.83 s).
        lines = rig.play(workdir, "swipe", [(500 + 100 * i, 240, -8, 0, 50, 0) for i in range(3)], wait=1.5)
        m_frames, p_frames = raw_mirror.stop(), raw_pad.stop()
        pad.stop()
        text = pad.text()
        swipe = gestures(text, "SWIPE")
        pan = [l for l in lines if l.get("event") == "gesture" and l["recognizer"] == "workspaces"]
        travel = (pan[-1]["translation"]["x"] - pan[0]["translation"]["x"]) if pan else 0
        expected = travel * SCALE * UNITS_PER_MM
        summed = sum(unaccelerated(r)[0] for p, _, r in swipe if p == "UPDATE")
        begin = [f for p, f, _ in swipe if p == "BEGIN"]
        end = [r for p, _, r in swipe if p == "END"]
        cancel_at = [t for t, ev in m_frames if any(c == 0x39 and v == -1 for (ty, c, v) in ev if ty == 3)
                     or any(c == 0x37 and v == 2 for (ty, c, v) in ev if ty == 3)]
        first_pad = p_frames[0][0] if p_frames else None
        ordered = bool(cancel_at) and first_pad is not None and cancel_at[0] <= first_pad
        close = expected != 0 and abs(summed - expected) <= 0.05 * abs(expected)
        # The pad's own travel, from its events: slot 0's x from the step after the landing to the last.
        xs = [v for _, ev in p_frames for (ty, c, v) in ev if ty == 3 and c == 0x00]
        pad_mm = (xs[-1] - xs[1]) / 40 if len(xs) > 2 else 0
        print("MEASURE touchpad swipe: libinput's unaccelerated dx sum {:.1f} units for {:.1f} expected ({:.1f} pt of travel at {:.4f} mm/pt; "
              "the pad's fingers moved {:.2f} mm, {:.1f} units); {} updates".format(
                  summed, expected, travel, SCALE, pad_mm, pad_mm * UNITS_PER_MM, len([1 for p, _, _ in swipe if p == "UPDATE"])), flush=True)
        ok = begin == [3] and len(end) == 1 and "cancelled" not in end[0] and close and ordered
        report("touchpad: a three-finger pan gives GESTURE_SWIPE_BEGIN (3 fingers), updates summing {:.0f} of {:.0f} units "
               "(within 5 %), GESTURE_SWIPE_END not cancelled; the mirror's cancel came first".format(summed, expected), ok,
               "" if ok else "begin {}, end {}, ordered {} (cancel {}, pad {}); libinput: {}".format(
                   begin, end, ordered, cancel_at[:1], first_pad, text[-1500:]))
    finally:
        rig.stop()


def check_pinch(binaries, workdir):
    rig = TouchpadRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("touchpad: a two-finger pinch", rig)
        pad = tbsupport.LibinputWatcher(rig.touchpad, workdir, "touchpad")
        rig.client.pump(0.3)
        # Two fingers 200 pt apart moving apart 3 pt a frame each for 40 frames: 200 → 440 pt.
        lines = rig.play(workdir, "pinch", [(300, 240, -3, 0, 40, 0), (500, 240, 3, 0, 40, 0)], wait=1.5)
        pad.stop()
        text = pad.text()
        pinch = gestures(text, "PINCH")
        scales = [float(m.group(1)) for p, _, r in pinch if p == "UPDATE" for m in [re.search(r"\s(-?[0-9.]+)\s*@", r)] if m]
        ours = [l["scale"] for l in lines if l.get("event") == "gesture" and l["recognizer"] == "zoom" and "scale" in l]
        theirs, own = (scales[-1] if scales else 0), (ours[-1] if ours else 0)
        print("MEASURE touchpad pinch: libinput's last scale {:.3f}, the pinch's own {:.3f}; {} updates".format(theirs, own, len(scales)), flush=True)
        begin = [f for p, f, _ in pinch if p == "BEGIN"]
        ok = begin == [2] and own > 1.5 and abs(theirs - own) <= 0.05 * own
        report("touchpad: a two-finger pinch gives GESTURE_PINCH_* with a last scale {:.3f}, within 5 % of the pinch's own {:.3f}".format(theirs, own),
               ok, "" if ok else "begin {}; libinput: {}".format(begin, text[-1500:]))
    finally:
        rig.stop()


def check_cancel(binaries, workdir):
    """A recognizer disabled mid-swipe: one finger lifts a frame before the others (AC11), and libinput
    ends the swipe as cancelled, so the compositor springs back."""
    rig = TouchpadRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("touchpad: a cancelled swipe", rig)
        pad = tbsupport.LibinputWatcher(rig.touchpad, workdir, "touchpad")
        rig.client.pump(0.3)
        player = rig.panel.play(gesture(workdir, "long-swipe", LONG_SWIPE), background=True)
        time.sleep(0.8)
        out = subprocess.run([os.path.join(binaries, "touchbridgectl"), "disable", "workspaces", "--socket", rig.daemon.socket],
                             capture_output=True, text=True, timeout=30)
        player.wait(30)
        time.sleep(0.5)
        pad.stop()
        text = pad.text()
        swipe = gestures(text, "SWIPE")
        ends = [r for p, _, r in swipe if p == "END"]
        ok = out.returncode == 0 and len(ends) == 1 and "cancelled" in ends[0] and [p for p, _, _ in swipe][:1] == ["BEGIN"]
        report("touchpad: a swipe whose recognizer is disabled mid-way ends in libinput as GESTURE_SWIPE_END cancelled", ok,
               "" if ok else "disable: {} {}; libinput: {}".format(out.returncode, out.stderr.strip(), text[-1500:]))
    finally:
        rig.stop()


def check_sigkill(binaries, workdir):
    rig = TouchpadRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("touchpad: SIGKILL mid-swipe", rig)
        pad = tbsupport.LibinputWatcher(rig.touchpad, workdir, "touchpad")
        rig.client.pump(0.3)
        player = rig.panel.play(gesture(workdir, "long-swipe", LONG_SWIPE), background=True)
        time.sleep(0.8)
        rig.daemon.proc.send_signal(signal.SIGKILL)
        rig.daemon.proc.wait(10)
        player.wait(30)
        time.sleep(1.0)
        pad.stop()
        text = pad.text()
        swipe = gestures(text, "SWIPE")
        gone = not os.path.exists(rig.touchpad)
        phases = [p for p, _, _ in swipe]
        ended = phases.count("BEGIN") == phases.count("END") and phases[:1] == ["BEGIN"]
        ok = gone and ended and "DEVICE_REMOVED" in text
        report("touchpad: SIGKILL mid-swipe: the touchpad goes ({}), libinput ends the swipe it began ({} begin, {} end) and "
               "has no finger down".format("gone" if gone else "still there", phases.count("BEGIN"), phases.count("END")), ok,
               "" if ok else text[-1500:])
    finally:
        rig.stop()


def note_backlight(binaries, workdir):
    """The kernel's own backlight class: only a panel's driver makes a backlight device, and this guest
    has none (no mainline module makes one without hardware), so sliders and dimming are tested on a
    fake sysfs tree (Tests/integration/test_display.py); this says what the guest has."""
    lights = sorted(os.listdir("/sys/class/backlight")) if os.path.isdir("/sys/class/backlight") else []
    print("NOTE display: the kernel's backlight class here: {}".format(
        ", ".join(lights) if lights else "no backlight device (no panel driver in this guest): tested on a fake sysfs tree instead"), flush=True)


CHECKS = [
    ("touchpad device", check_device),
    ("touchpad swipe", check_swipe),
    ("touchpad pinch", check_pinch),
    ("touchpad cancel", check_cancel),
    ("touchpad sigkill", check_sigkill),
    ("touchpad backlight", note_backlight),
]


def experiment_start(binaries, workdir):
    """How libinput starts and cancels a touchpad gesture, on copies of our touchpad (evemu-describe of
    the daemon's) written directly through their event nodes, a write(2) a frame or several as asked: a
    three-finger swipe of 47 frames of 0.76 mm at 60 Hz (GNOME's default scale, 8 pt a frame) after
    each way of landing, libinput's unaccelerated sum next to the travel; and each way of lifting after
    a cancel. Only with --check touchpad-experiment; MEASURE lines, no verdict."""
    import struct
    rig = TouchpadRig(binaries, workdir)
    try:
        if not rig.ready:
            return not_ready("touchpad experiment", rig)
        desc = os.path.join(workdir, "pad.desc")
        with open(desc, "w") as f:
            f.write(subprocess.run(["evemu-describe", rig.touchpad], capture_output=True, text=True, timeout=30).stdout)
    finally:
        rig.stop()
    res, step = 40, 0.76

    def ev(t, c, v):
        return struct.pack("llHHi", 0, 0, t, c, v)

    def frame(xs, y, land=False, ids=(1, 2, 3)):
        out = b""
        for i, x in enumerate(xs):
            out += ev(3, 0x2f, i) + (ev(3, 0x39, ids[i]) if land else b"") + ev(3, 0x35, int(round(x * res))) + ev(3, 0x36, int(round(y * res)))
        out += ev(3, 0, int(round(xs[0] * res))) + ev(3, 1, int(round(y * res)))
        if land:
            out += ev(1, 0x14a, 1) + ev(1, 0x14e, 1)
        return out + ev(0, 0, 0)

    def lift(slots, tool_from, tool_to=None, touch_up=True):
        out = b""
        for i in slots:
            out += ev(3, 0x2f, i) + ev(3, 0x39, -1)
        out += ev(1, tool_from, 0) + (ev(1, tool_to, 1) if tool_to else b"") + (ev(1, 0x14a, 0) if touch_up else b"")
        return out + ev(0, 0, 0)

    row = lambda cx: [cx - 18, cx, cx + 18]
    # Each: the writes before the swipe's frames, as (seconds to wait before, bytes).
    landings = {
        "plain": [(0, frame(row(120), 55, land=True))],
        "step in one write with the landing": [(0, frame(row(121.8), 55, land=True) + frame(row(120), 55))],
        "step in a write right after": [(0, frame(row(121.8), 55, land=True)), (0, frame(row(120), 55))],
        "step 8 ms after": [(0, frame(row(121.8), 55, land=True)), (0.008, frame(row(120), 55))],
        "step 16 ms after": [(0, frame(row(121.8), 55, land=True)), (0.0167, frame(row(120), 55))],
    }
    for rounds in (1, 2):
        for name, writes in landings.items():
            pad = tbsupport_device(desc)
            try:
                watcher = tbsupport.LibinputWatcher(pad.node, workdir, "exp")
                fd = os.open(pad.node, os.O_WRONLY)
                for r in range(rounds):
                    for wait, data in writes:
                        time.sleep(wait)
                        os.write(fd, data)
                    for k in range(1, 48):
                        time.sleep(1 / 60)
                        os.write(fd, frame(row(120 - step * k), 55))
                    time.sleep(1 / 60)
                    os.write(fd, lift([0, 1, 2], 0x14e))
                    time.sleep(0.4)
                os.close(fd)
                time.sleep(0.3)
                watcher.stop()
                swipe = gestures(watcher.text(), "SWIPE")
                ups = [unaccelerated(r)[0] for p, _, r in swipe if p == "UPDATE"]
                last = ups[len(ups) // rounds * (rounds - 1):] if rounds > 1 else ups
                print("MEASURE touchpad start, {} ({} gesture on the device): libinput's sum {:.1f} units for {:.1f} of travel ({:.1f} %), "
                      "first updates {}, {} updates".format(name, "first" if rounds == 1 else "second", sum(last), -47 * step * UNITS_PER_MM,
                                                           100 * sum(last) / (-47 * step * UNITS_PER_MM), [round(u, 2) for u in last[:3]], len(last)), flush=True)
            finally:
                pad.remove()
    # Cancelling: one finger lifts, the rest after a pause (libinput debounces a finger count change 100 ms).
    for name, pause in [("the rest in the same write", None), ("the rest 50 ms later", 0.05), ("the rest 120 ms later", 0.12), ("the rest 200 ms later", 0.2)]:
        pad = tbsupport_device(desc)
        try:
            watcher = tbsupport.LibinputWatcher(pad.node, workdir, "exp")
            fd = os.open(pad.node, os.O_WRONLY)
            os.write(fd, frame(row(120), 55, land=True))
            for k in range(1, 20):
                time.sleep(1 / 60)
                os.write(fd, frame(row(120 - step * k), 55))
            drop = lift([2], 0x14e, 0x14d, touch_up=False)
            rest = lift([0, 1], 0x14d)
            if pause is None:
                os.write(fd, drop + rest)
            else:
                os.write(fd, drop)
                time.sleep(pause)
                os.write(fd, rest)
            os.close(fd)
            time.sleep(0.4)
            watcher.stop()
            ends = [r.strip() for p, _, r in gestures(watcher.text(), "SWIPE") if p == "END"]
            print("MEASURE touchpad cancel, {}: libinput's ends {}".format(name, ends), flush=True)
        finally:
            pad.remove()


def tbsupport_device(desc):
    from common import Device
    return Device(desc)
