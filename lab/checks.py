"""The lab's functional checks: every bundled recording through a real uinput device, udev and the
daemon, against libinput and the offline replay; then faults: a device removed mid-gesture, the
`devices` command, SYN_DROPPED from a real buffer overflow, a device the daemon may not open, two
touchscreens at once; and what a pass-through mirror writes, read by libinput and by us alike."""
import json
import os
import re
import signal
import subprocess
import time

from common import (FIX, Client, Daemon, Device, LibinputWatcher, compare_gestures, description_of,
                    device_index, offline, partial, report, wait_for_open)
from streams import burst_recording

# Every touchscreen recording in Tests/Fixtures (the descriptions and the NOTICE are not recordings;
# pens, which libinput reads as tablets, not touchscreens, have checks of their own in pens.py).
RECORDINGS = sorted(f for f in os.listdir(FIX) if f.endswith((".evemu", ".events")) and "-pen__" not in f)


def check_recording(binaries, workdir, name):
    path = os.path.join(FIX, name)
    d = Daemon(binaries, workdir)
    try:
        c = Client(d.socket)
        dev = Device(description_of(path))
        found = d.wait_for_log(re.escape(dev.node) + r".*\[device \d+\]")
        if not found:
            return report(name + ": discovered through udev hotplug", False, d.text()[-400:])
        li = LibinputWatcher(dev.node, workdir)
        # What the kernel really delivered, with its timestamps: evemu-play's timing jitters (more so
        # under emulation), and a gesture decided near a time limit may go the other way.
        delivered = os.path.join(workdir, "delivered.evemu")
        rec = subprocess.Popen(["evemu-record", dev.node], stdout=open(delivered, "w"), stderr=subprocess.DEVNULL)
        # The same events as `libinput record` writes them (YAML, the format libinput asks for in bug
        # reports), for touchbridgectl replay to read back.
        recorded = os.path.join(workdir, "delivered.yml")
        lrec = subprocess.Popen(["libinput", "record", "--output-file", recorded, dev.node],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        recording = wait_for_open(lrec.pid, dev.node, 10)
        c.pump(0.3)
        dev.play(path)
        c.pump(1.5)                                    # pending timers (a tap waits 0.35 s for a second tap)
        counts = li.stop()
        rec.terminate()
        rec.wait(5)
        lrec.send_signal(signal.SIGINT)                # it finishes the file and exits
        lrec.wait(10)
        dev.remove()
        c.pump(0.5)
        gestures = c.of("gesture")
        touches = c.of("touch")
        began = sum(1 for t in touches if t["phase"] == "began")
        ended = sum(1 for t in touches if t["phase"] == "ended")
        cancelled = sum(1 for t in touches if t["phase"] == "cancelled")
        diff = compare_gestures(gestures, offline(binaries, path))
        if diff is None:
            report(name + ": live gestures equal touchbridgectl replay of the file ({} lines)".format(len(gestures)), True)
        else:
            again = compare_gestures(gestures, offline(binaries, delivered))
            report(name + ": live gestures equal touchbridgectl replay of the events as the kernel timed them ({} lines; "
                   "the file's own timing gives: {})".format(len(gestures), diff), again is None, again or "")
        # Both files hold the events the kernel delivered, with its timestamps: replays must agree exactly.
        as_evemu = offline(binaries, delivered)
        as_libinput = offline(binaries, recorded) if recording else []
        differs = compare_gestures(as_libinput, as_evemu) if recording else "libinput record did not open the device"
        report(name + ": libinput record's file replays into the gestures of evemu-record's ({} lines)".format(len(as_libinput)),
               differs is None and len(as_evemu) > 0, differs or "")
        ours = (began, ended, cancelled)
        theirs = (counts["TOUCH_DOWN"], counts["TOUCH_UP"], counts["TOUCH_CANCEL"])
        report(name + ": touch down/up/cancel {} equal libinput's".format(ours), ours == theirs,
               "" if ours == theirs else "libinput {}".format(theirs))
    finally:
        d.stop()


def check_devices_command(binaries, workdir):
    dev = Device(description_of(os.path.join(FIX, "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events")))
    try:
        out = subprocess.run([os.path.join(binaries, "touchbridgectl"), "devices"], capture_output=True, text=True, timeout=30)
        text = out.stdout
        ok = (dev.node in text and "Wacom ISDv4 E6 Finger" in text and "056a:00e6" in text
              and "multitouch protocol B, 2 slots" in text and "0…2776" in text and "mapping:" in text)
        report("touchbridgectl devices lists the touchscreen with its ranges, slots and mapping", ok, "" if ok else text[-400:])
    finally:
        dev.remove()


def check_removal(binaries, workdir):
    path = os.path.join(FIX, "evemu-devices__atmel-maxtouch-ts__1fg-drag-up-down.evemu")
    d = Daemon(binaries, workdir)
    try:
        c = Client(d.socket)
        dev = Device(path)
        d.wait_for_log(re.escape(dev.node) + r".*\[device")
        c.pump(0.2)
        dev.play(partial(path, workdir, 0.4))
        c.pump(0.3)
        dev.remove()                                   # unplugged with the finger down
        c.pump(1.0)
        phases = [t["phase"] for t in c.of("touch")]
        states = [g["state"] for g in c.of("gesture")]
        removed = [l for l in c.of("device") if l["action"] == "removed"]
        report("removal mid-gesture: the touch is cancelled", phases.count("began") == 1 and phases[-1] == "cancelled",
               "touch phases {}".format(phases[-3:]))
        report("removal mid-gesture: the active pan is cancelled", "began" in states and states[-1] == "cancelled",
               "gesture states {}".format(states[-3:]))
        report("removal mid-gesture: a device-removed line", len(removed) == 1, str(removed))
        fresh = Client(d.socket)
        fresh.pump(0.3)
        report("removal mid-gesture: the daemon still serves", d.proc.poll() is None and fresh.hello is not None)
        tap = os.path.join(FIX, "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu")
        again = Device(tap)
        found = d.wait_for_log(re.escape(again.node) + r".*\[device 1\]")
        fresh.pump(0.2)
        again.play(tap)
        fresh.pump(1.5)
        again.remove()
        report("removal: re-adding a device works", bool(found) and len(fresh.of("gesture")) == 5,
               "{} gestures".format(len(fresh.of("gesture"))))
    finally:
        d.stop()



def check_syn_dropped(binaries, workdir):
    events, desc = burst_recording(workdir)
    first = partial(events, workdir, 0.3)              # fingers are down where it stops
    rest = os.path.join(workdir, "rest.events")
    with open(events) as f:
        lines = [l for l in f if l.startswith("E:")]
    with open(first) as f:
        done = sum(1 for _ in f)
    with open(rest, "w") as f:
        f.writelines(lines[done:])
    d = Daemon(binaries, workdir)
    try:
        c = Client(d.socket)
        dev = Device(desc)
        d.wait_for_log(re.escape(dev.node) + r".*\[device")
        c.pump(0.2)
        dev.play(first)
        c.pump(0.5)
        down = sum(1 for t in c.of("touch") if t["phase"] == "began") - sum(1 for t in c.of("touch") if t["phase"] in ("ended", "cancelled"))
        d.proc.send_signal(signal.SIGSTOP)             # the daemon stops reading …
        dev.play(rest)                                 # … while the burst goes on at full speed and floods the kernel's buffer
        for _ in range(5):
            dev.play(events)
        d.proc.send_signal(signal.SIGCONT)
        c.pump(3.0)
        dropped = d.wait_for_log(r"SYN_DROPPED", timeout=5)
        touches = c.of("touch")
        began = sum(1 for t in touches if t["phase"] == "began")
        ended = sum(1 for t in touches if t["phase"] == "ended")
        cancelled = sum(1 for t in touches if t["phase"] == "cancelled")
        report("SYN_DROPPED after SIGSTOP under a burst: the kernel dropped events and the daemon resynced", bool(dropped),
               "" if dropped else d.text()[-300:])
        report("SYN_DROPPED: no touch is left down ({} began, {} ended, {} cancelled; {} were down at SIGSTOP)".format(
               began, ended, cancelled, down), down > 0 and began == ended + cancelled)
        report("SYN_DROPPED: the touches lost meanwhile are cancelled, not ended", cancelled >= 1)
        fresh = Client(d.socket)
        fresh.pump(0.3)
        report("SYN_DROPPED: the daemon still serves", d.proc.poll() is None and fresh.hello is not None)
        dev.remove()
    finally:
        d.stop()


def check_unopenable(binaries, workdir):
    os.chmod(workdir, 0o777)
    d = Daemon(binaries, workdir, user=65534)           # nobody: not in group "input"
    try:
        dev = Device(os.path.join(FIX, "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu"))
        line = d.wait_for_log(r"cannot open " + re.escape(dev.node) + r": permission denied \(add the user to group \"input\"")
        report("a device the daemon may not open: a clear log line", bool(line), "" if line else d.text()[-300:])
        c = Client(d.socket)
        c.pump(0.3)
        report("a device the daemon may not open: the daemon keeps running", d.proc.poll() is None and c.hello is not None)
        dev.remove()
    finally:
        d.stop()


def check_two_screens(binaries, workdir):
    a_path = os.path.join(FIX, "evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events")
    b_path = os.path.join(FIX, "evemu-devices__atmel-maxtouch-ts__1fg-drag-up-down.evemu")
    # Two screens side by side: each device maps onto its half of the window, with its own view.
    scene = os.path.join(workdir, "two-screens.json")
    with open(scene, "w") as f:
        json.dump({"window": {"width": 2560, "height": 800},
                   "devices": [{"name": "Wacom*", "region": [0, 0, 1280, 800]},
                               {"name": "Atmel*", "region": [1280, 0, 1280, 800]}],
                   "views": [{"name": "left", "frame": [0, 0, 1280, 800], "multipleTouchEnabled": True,
                              "recognizers": [{"name": "leftTwoFingerTap", "type": "tap", "numberOfTouchesRequired": 2},
                                              {"name": "leftPan", "type": "pan"}]},
                             {"name": "right", "frame": [1280, 0, 1280, 800], "multipleTouchEnabled": True,
                              "recognizers": [{"name": "rightTwoFingerTap", "type": "tap", "numberOfTouchesRequired": 2},
                                              {"name": "rightPan", "type": "pan"}]}]}, f)
    d = Daemon(binaries, workdir, args=["--scene", scene])
    try:
        c = Client(d.socket)
        a = Device(description_of(a_path))
        b = Device(b_path)
        ia, ib = device_index(d, a.node), device_index(d, b.node)
        c.pump(0.5)
        pa = a.play(a_path, background=True)
        pb = b.play(b_path, background=True)
        pa.wait(60)
        pb.wait(60)
        c.pump(1.0)
        by_device = {}
        for g in c.of("gesture"):
            by_device.setdefault(g["device"], set()).add(g["recognizer"])
        report("two touchscreens at once: both found, each with its own gestures on its own view",
               ia is not None and ib is not None and ia != ib and by_device.get(ia) == {"leftTwoFingerTap"}
               and by_device.get(ib) == {"rightPan"}, "devices {} and {}: {}".format(ia, ib, by_device))
        a.remove()
        b.remove()
    finally:
        d.stop()




def check_set_device(binaries, workdir):
    """Protocol 2's `set device` on a real evdev device: set while a finger is down, the new mapping
    waits for the lift (a touch sequence never changes coordinates halfway); the next sequence is
    turned, and devices subscribers get a `changed` line between the two."""
    path = os.path.join(FIX, "evemu-devices__atmel-maxtouch-ts__1fg-drag-up-down.evemu")
    first = partial(path, workdir, 0.4)                # the finger is down where it stops
    rest = os.path.join(workdir, "rest.evemu")
    with open(path) as f:
        lines = [l for l in f if l.startswith("E:")]
    with open(first) as f:
        done = sum(1 for _ in f)
    with open(rest, "w") as f:
        f.writelines(lines[done:])
    d = Daemon(binaries, workdir)
    try:
        c = Client(d.socket)
        dev = Device(path)
        index = device_index(d, dev.node)
        size = d.wait_for_log(re.escape(dev.node) + r".*→ window (\d+)×(\d+) pt")
        width, height = float(size.group(1)), float(size.group(2))
        c.pump(0.3)
        dev.play(first)
        c.pump(0.2)
        out = subprocess.run([os.path.join(binaries, "touchbridgectl"), "set", "rotation", "180", "--device", str(index),
                              "--socket", d.socket], capture_output=True, text=True, timeout=30)
        c.pump(0.2)
        waited = not any(l.get("event") == "device" and l.get("action") == "changed" for l in c.lines_seen)
        dev.play(rest)
        c.pump(0.5)
        dev.play(path)                                 # the next touch sequence: turned
        c.pump(1.0)
        dev.remove()
        c.pump(0.5)
        changed = [i for i, l in enumerate(c.lines_seen) if l.get("event") == "device" and l.get("action") == "changed"]
        lifted = [i for i, l in enumerate(c.lines_seen) if l.get("event") == "touch" and l["phase"] == "ended"]
        report("set device on a live device: accepted", out.returncode == 0, out.stderr.strip())
        report("set device mid-touch: the change waits for the lift, then a changed line with the mapping",
               waited and len(changed) == 1 and len(lifted) == 2 and lifted[0] < changed[0] < lifted[1]
               and c.lines_seen[changed[0]]["mapping"]["rotation"] == 180 and c.lines_seen[changed[0]]["device"] == index,
               "changed lines at {}, lifts at {}".format(changed, lifted))
        expected = offline(binaries, path)
        turned = []
        for g in expected:
            g = dict(g)
            if "x" in g:
                g["x"], g["y"] = width - g["x"], height - g["y"]
            if "translation" in g:
                g["translation"] = {"x": -g["translation"]["x"], "y": -g["translation"]["y"]}
            turned.append(g)
        gestures = c.of("gesture")
        split = next((i for i, g in enumerate(gestures) if g["state"] in ("ended", "cancelled", "recognized")), len(gestures)) + 1
        before = compare_gestures(gestures[:split], expected)
        after = compare_gestures(gestures[split:], turned)
        report("set device: the touch sequence it began in keeps its mapping to the end", before is None, before or "")
        report("set device: the next touch sequence is turned by 180° on the {:.0f}×{:.0f} pt window".format(width, height),
               after is None, after or "")
    finally:
        d.stop()


def check_mirror_replay(binaries, workdir):
    """A pass-through mirror's recording (`touchbridgectl replay --mirror`) played into a uinput device:
    a touch a recognizer claimed is cancelled there as a palm, the palm and the lift in one frame, which
    libinput reports as TOUCH_CANCEL and no up. Our reading of what the kernel delivered must agree:
    the same downs, ups and cancels (evdev-fallback.c handles a slot's palm state before its end)."""
    ctl = os.path.join(binaries, "touchbridgectl")
    for source in ("evemu-devices__ntrig-protocolA-ts__1fg-drag-diagonal.events",   # an edge pan: claimed
                   "evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu"):      # taps: passed on
        path = os.path.join(FIX, source)
        mirror = os.path.join(workdir, "mirror.evemu")
        subprocess.run([ctl, "replay", "--mirror", mirror, "--desc", description_of(path), path],
                       check=True, capture_output=True, timeout=60)
        dev = Device(mirror)
        try:
            li = LibinputWatcher(dev.node, workdir)
            delivered = os.path.join(workdir, "delivered.evemu")
            rec = subprocess.Popen(["evemu-record", dev.node], stdout=open(delivered, "w"), stderr=subprocess.DEVNULL)
            wait_for_open(rec.pid, dev.node, 10)
            dev.play(mirror)
            time.sleep(0.5)
            counts = li.stop()
            rec.terminate()
            rec.wait(5)
        finally:
            dev.remove()
        out = subprocess.run([ctl, "replay", "--touches", delivered], capture_output=True, text=True, check=True)
        phases = [json.loads(l)["phase"] for l in out.stdout.splitlines() if '"event":"touch"' in l]
        ours = (phases.count("began"), phases.count("ended"), phases.count("cancelled"))
        theirs = (counts["TOUCH_DOWN"], counts["TOUCH_UP"], counts["TOUCH_CANCEL"])
        report("mirror replay {}: touch down/up/cancel {} equal libinput's".format(source, ours),
               ours == theirs and ours[0] > 0, "" if ours == theirs else "libinput {}".format(theirs))
