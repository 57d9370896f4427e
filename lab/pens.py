"""The hardware lab's pen checks (docs/pens.md): a real uinput pen made from the Wacom Cintiq 13HD's
description, read by touchbridged, by libinput and by recorders side by side; and a pen with its finger
panel, one device group, the panel passed through:
- the pen's recording, played live: the daemon's gestures, hover included, equal the offline replay's;
  its strokes are pencil touches as many as libinput's tip-downs; libinput record's and evtest's files
  of what the kernel delivered replay into the same gestures as evemu-record's;
- with the pen near, a finger already down on the panel is cancelled on the mirror (libinput
  TOUCH_CANCEL, no TOUCH_UP); the pen node is never grabbed and libinput reads its own events from it;
  no mirror is made of the pen; the mirror is in the panel's device group (udev and libinput agree);
- a worn pen that presses while it hovers: its idle pressure is the tip's zero for us as for libinput,
  the same tips down and up.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import time

from common import FIX, Client, Daemon, Device, LibinputWatcher, compare_gestures, report, tbsupport, wait_for_open
from passthrough import is_grabbed

PEN = os.path.join(FIX, "evemu-devices__wacom-cintiq-13hd-pen__hover-strokes.evemu")
FINGER = os.path.join(FIX, "evemu-devices__wacom-cintiq-13hd-finger__1fg-touch.evemu")
PEN_NAME, PANEL_NAME = "Lab Pen", "Lab Pen Panel"
GROUP = "lab-pen-pair"
# Where the recordings made here are copied to (lab.py --keep DIR), to be looked at or kept as fixtures.
KEEP = None

SCENE = {
    "window": {"width": 1280, "height": 720},
    "devices": [{"name": PANEL_NAME, "passthrough": True}, {"name": "Lab Pen*"}, {"name": "Wacom*"}],
    "views": [{"name": "canvas", "frame": [0, 0, 1280, 720],
               "recognizers": [{"name": "hover", "type": "hover"},
                               {"name": "ink", "type": "pan", "allowedTouchTypes": ["pencil"]},
                               {"name": "scroll", "type": "pan", "allowedTouchTypes": ["direct"], "minimumNumberOfTouches": 2}]}],
}


def offline(binaries, recording, *args):
    """The lines `touchbridgectl replay ARGS RECORDING` prints."""
    return tbsupport.offline(os.path.join(binaries, "touchbridgectl"), recording, *args)


def description(workdir, source, name):
    """`source`'s device description under another name (the lab's udev rules pick it out by name)."""
    path = os.path.join(workdir, name.replace(" ", "-") + ".desc")
    with open(source) as f, open(path, "w") as out:
        out.write("# EVEMU 1.3\n")
        for line in f:
            if line.startswith(("E:", "#")):
                continue
            out.write("N: {}\n".format(name) if line.startswith("N:") else line)
    return path


def write_scene(workdir):
    path = os.path.join(workdir, "pens.json")
    with open(path, "w") as f:
        json.dump(SCENE, f)
    return path


def events(workdir, name, lines):
    """An evemu recording of `lines` ("seconds type code value"), for evemu-play."""
    path = os.path.join(workdir, name + ".evemu")
    with open(path, "w") as f:
        f.write("# EVEMU 1.3\n")
        for l in lines:
            t, type_, code, value = l.split()
            f.write("E: {} {:04x} {:04x} {}\n".format(t, int(type_), int(code, 16), value))
    return path


def tablet_kinds(watcher):
    """libinput's tablet events in order: (kind, detail) with detail "down"/"up" for tips and
    "proximity-in"/"proximity-out" for proximity."""
    out = []
    for m in re.finditer(r"\b(TABLET_TOOL_\w+)\s+\+[0-9.]+s(.*)", watcher.text()):
        kind, rest = m.group(1), m.group(2)
        detail = ""
        if kind == "TABLET_TOOL_TIP":
            detail = "down" if re.search(r"\bdown\b", rest) else "up"
        elif kind == "TABLET_TOOL_PROXIMITY":
            detail = "out" if "proximity-out" in rest else "in"
        out.append((kind, detail))
    return out


def check_pen_recording(binaries, workdir):
    name = "the Cintiq 13HD pen"
    scene = write_scene(workdir)
    d = Daemon(binaries, workdir, ["--scene", scene])
    try:
        c = Client(d.socket)
        dev = Device(PEN)                       # under its own name: what it records is a fixture (--keep)
        if not d.wait_for_log(re.escape(dev.node) + r".*never grabbed or mirrored.*\[device \d+\]"):
            return report(name + ": opened as a pen by default, never grabbed", False, d.text()[-400:])
        li = LibinputWatcher(dev.node, workdir, tag="pen")
        delivered = os.path.join(workdir, "pen-delivered.evemu")
        rec = subprocess.Popen(["evemu-record", dev.node], stdout=open(delivered, "w"), stderr=subprocess.DEVNULL)
        as_yaml = os.path.join(workdir, "pen-delivered.yml")
        lrec = subprocess.Popen(["libinput", "record", "--output-file", as_yaml, dev.node], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        as_evtest = os.path.join(workdir, "pen-delivered.evtest.txt")
        etest = subprocess.Popen(["evtest", dev.node], stdout=open(as_evtest, "w"), stderr=subprocess.DEVNULL)
        recording = wait_for_open(lrec.pid, dev.node, 10) and wait_for_open(etest.pid, dev.node, 10)
        c.pump(0.3)
        grabbed = is_grabbed(dev.node)
        dev.play(PEN)
        c.pump(1.0)
        for p, sig in ((rec, signal.SIGTERM), (lrec, signal.SIGINT), (etest, signal.SIGINT)):
            p.send_signal(sig)
            p.wait(10)
        tablet = tablet_kinds(li)
        li.stop()
        dev.remove()
        c.pump(0.3)
        report(name + ": opened as a pen by default and never grabbed (libinput reads its {} tablet events too)".format(len(tablet)),
               not grabbed and len(tablet) > 0, "grabbed" if grabbed else "" if tablet else "libinput saw no tablet events")
        gestures = c.of("gesture")
        hovers = [g for g in gestures if g["recognizer"] == "hover"]
        diff = compare_gestures(gestures, offline(binaries, delivered, "--scene", scene))
        report(name + ": live gestures equal touchbridgectl replay of what the kernel delivered ({} lines, {} of them hover)".format(
            len(gestures), len(hovers)), diff is None and len(hovers) > 0, diff or "")
        touches = c.of("touch")
        began = [t for t in touches if t["phase"] == "began"]
        tips = [k for k in tablet if k == ("TABLET_TOOL_TIP", "down")]
        ok = len(began) == len(tips) > 0 and all(t["type"] == "pencil" and "altitude" in t for t in touches)
        report(name + ": {} strokes are pencil touches with tilt, as many as libinput's tip-downs".format(len(began)), ok,
               "" if ok else "libinput tips {}, ours {}".format(len(tips), len(began)))
        expected = offline(binaries, delivered, "--scene", scene)
        for label, path in (("libinput record", as_yaml), ("evtest", as_evtest)):
            got = offline(binaries, path, "--scene", scene) if recording else []
            differs = compare_gestures(got, expected) if recording else label + " did not open the device"
            report(name + ": {}'s file replays into the gestures of evemu-record's ({} lines)".format(label, len(got)),
                   differs is None and len(expected) > 0, differs or "")
        if KEEP:
            for path in (delivered, as_yaml, as_evtest):
                shutil.copy(path, KEEP)
    finally:
        d.stop()


def check_pen_and_panel(binaries, workdir):
    name = "a pen and its finger panel"
    with open("/run/udev/rules.d/81-lab-pen-group.rules", "w") as f:
        # libinput's own rule groups devices by their phys, which evemu-device leaves empty: the lab
        # puts its pen and panel in one group after it, as libwacom's pairing does for a real Cintiq.
        f.write('ACTION=="add|change", SUBSYSTEM=="input", KERNEL=="event*", ATTRS{name}=="%s|%s", '
                'ENV{LIBINPUT_DEVICE_GROUP}="%s"\n' % (PANEL_NAME, PEN_NAME, GROUP))
    subprocess.run(["udevadm", "control", "--reload"], check=True)
    scene = write_scene(workdir)
    d = Daemon(binaries, workdir, ["--scene", scene])
    panel = pen = None
    try:
        c = Client(d.socket)
        panel = Device(description(workdir, FINGER, PANEL_NAME))
        pen = Device(description(workdir, PEN, PEN_NAME))
        paired = d.wait_for_log(r"pen " + re.escape(pen.node) + r" shares a screen with touchscreen " + re.escape(panel.node))
        m = d.wait_for_log(r"pass-through: " + re.escape(panel.node) + r" .*→ mirror (/dev/input/event\d+)")
        if not (paired and m):
            return report(name + ": paired, and the panel passes through", False, d.text()[-600:])
        mirror = m.group(1)
        subprocess.run(["udevadm", "settle", "--timeout=10"])

        def group(node):
            out = subprocess.run(["udevadm", "info", "--query=property", "--name", node], capture_output=True, text=True).stdout
            g = re.search(r"^LIBINPUT_DEVICE_GROUP=(.*)$", out, re.M)
            return g.group(1) if g else None
        groups = (group(panel.node), group(mirror))
        listing = subprocess.run(["libinput", "list-devices"], capture_output=True, text=True).stdout
        li_groups = {}
        for block in listing.split("\n\n"):
            dn = re.search(r"^Device:\s+(.*)$", block, re.M)
            kn = re.search(r"^Kernel:\s+(\S+)", block, re.M)
            gn = re.search(r"^Group:\s+(\S+)", block, re.M)
            if dn and kn and gn:
                li_groups[kn.group(1)] = gn.group(1)
        same = groups[0] == GROUP and groups == (GROUP, GROUP) and li_groups.get(mirror) is not None \
            and li_groups.get(mirror) == li_groups.get(panel.node)
        report(name + ": the mirror is in the panel's device group (udev {}, libinput {})".format(
            groups[1], li_groups.get(mirror)), same, "" if same else "panel {} / libinput {}".format(groups[0], li_groups))
        # A mirror is named after its source, "NAME (TouchBridge)": the panel's is expected, the pen's must not be.
        mirrors = [l for l in listing.splitlines() if l.startswith("Device:") and l.split(":", 1)[1].strip().startswith(PEN_NAME + " (")]
        report(name + ": no mirror is made of the pen, and its node is never grabbed", not mirrors and not is_grabbed(pen.node),
               "; ".join(mirrors))

        on_mirror = LibinputWatcher(mirror, workdir, tag="mirror")
        on_pen = LibinputWatcher(pen.node, workdir, tag="pen")
        # A finger down in the middle of the panel (13HD finger units: 0…2937 × 0…1652), held.
        panel.play(events(workdir, "finger-down", [
            "0.000001 3 2f 0", "0.000001 3 39 77", "0.000001 3 35 1400", "0.000001 3 36 800",
            "0.000001 1 14a 1", "0.000001 3 0 1400", "0.000001 3 1 800", "0.000001 0 0 0"]))
        c.pump(0.4)
        # The pen comes near (13HD pen units: 400…59152 × 400…33448), hovers, and goes.
        pen.play(events(workdir, "pen-near", [
            "0.000001 3 0 20000", "0.000001 3 1 12000", "0.000001 3 19 30", "0.000001 3 1a 10", "0.000001 3 1b 20",
            "0.000001 1 140 1", "0.000001 0 0 0",
            "0.020000 3 0 20100", "0.020000 0 0 0",
            "0.040000 3 0 20200", "0.040000 3 19 40", "0.040000 0 0 0"]))
        c.pump(0.4)
        panel.play(events(workdir, "finger-moves-and-lifts", [
            "0.000001 3 35 1500", "0.000001 3 0 1500", "0.000001 0 0 0",
            "0.030000 3 39 -1", "0.030000 1 14a 0", "0.030000 0 0 0"]))
        pen.play(events(workdir, "pen-away", ["0.000001 1 140 0", "0.000001 0 0 0"]))
        c.pump(0.5)
        kinds = on_mirror.kinds()
        on_mirror.stop()
        tablet = tablet_kinds(on_pen)
        on_pen.stop()
        report(name + ": a finger down when the pen comes near is cancelled on the mirror (libinput {})".format(kinds),
               kinds == ["TOUCH_DOWN", "TOUCH_CANCEL"], on_mirror.text()[-400:] if kinds != ["TOUCH_DOWN", "TOUCH_CANCEL"] else "")
        touches = [(t["type"], t["phase"]) for t in c.of("touch")]
        report(name + ": the daemon's views heard the finger cancelled, then nothing of it", touches[:2] == [("direct", "began"), ("direct", "cancelled")]
               and all(t[0] != "direct" for t in touches[2:]), str(touches))
        prox = [k for k in tablet if k[0] == "TABLET_TOOL_PROXIMITY"]
        axes = [k for k in tablet if k[0] == "TABLET_TOOL_AXIS"]
        report(name + ": libinput reads the pen's own events from its node (proximity in, {} axis events, out)".format(len(axes)),
               prox == [("TABLET_TOOL_PROXIMITY", "in"), ("TABLET_TOOL_PROXIMITY", "out")] and len(axes) >= 1, str(tablet))
    finally:
        for dev in (pen, panel):
            if dev:
                dev.remove()
        d.stop()
        os.remove("/run/udev/rules.d/81-lab-pen-group.rules")
        subprocess.run(["udevadm", "control", "--reload"])


def worn_pen_stream():
    """One proximity of a pen whose worn tip presses 150 of 0…2047 while it hovers: it comes in range
    far above the surface (distance 50 of 0…63), hovers, makes two strokes (800) with a hover between,
    and leaves. The pressure steps straight between idle and stroke, away from every threshold, so
    that any libinput since the offset heuristic reads the same tips."""
    lines, t = [], 0.0

    def frame(*events):
        for e in events:
            lines.append("{:.6f} {}".format(t, e))
        lines.append("{:.6f} 0 0 0".format(t))
    frame("1 140 1", "3 0 20000", "3 1 12000", "3 19 50", "3 18 150")
    x = 20000
    for phase in ("hover", "stroke", "hover", "stroke", "hover"):
        for i in range(8):
            t += 0.01
            x += 100
            idle = 150 + (i % 2) * 3                                    # idle pressure wobbles a little
            if phase == "stroke":
                frame("3 0 {}".format(x), "3 19 0", "3 18 {}".format(800 + (i % 2) * 10), "1 14a 1" if i == 0 else "3 1 12000")
            else:
                frame("3 0 {}".format(x), "3 19 {}".format(10 + i), "3 18 {}".format(idle), "1 14a 0" if i == 0 else "3 1 12000")
    t += 0.01
    frame("1 140 0", "3 18 0", "3 19 0")
    return lines


def check_worn_pen(binaries, workdir):
    name = "a worn pen (pressure while hovering)"
    scene = write_scene(workdir)
    d = Daemon(binaries, workdir, ["--scene", scene, "--verbose"])
    pen = None
    try:
        c = Client(d.socket)
        pen = Device(description(workdir, PEN, "Lab Pen Worn"))
        if not d.wait_for_log(re.escape(pen.node) + r".*never grabbed or mirrored"):
            return report(name + ": opened", False, d.text()[-400:])
        li = LibinputWatcher(pen.node, workdir, tag="worn")
        c.pump(0.3)
        pen.play(events(workdir, "worn-pen", worn_pen_stream()))
        c.pump(0.6)
        tablet = tablet_kinds(li)
        li.stop()
        ours = [t["phase"] for t in c.of("touch") if t["type"] == "pencil" and t["phase"] in ("began", "ended", "cancelled")]
        theirs = [k[1] for k in tablet if k[0] == "TABLET_TOOL_TIP"]
        said = d.wait_for_log(r"pressure offset 150 of 0…2047", timeout=1)
        ok = ours == ["began", "ended"] * 2 and theirs == ["down", "up"] * 2 and said is not None
        report(name + ": its idle pressure is taken as the tip's zero, as libinput takes it: two strokes, tips {} (libinput {})".format(
            ours, theirs), ok, "" if ok else d.text()[-600:])
    finally:
        if pen:
            pen.remove()
        d.stop()


CHECKS = [
    ("pens recording", check_pen_recording),
    ("pens pair", check_pen_and_panel),
    ("pens worn", check_worn_pen),
]
