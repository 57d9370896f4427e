#!/usr/bin/env python3
"""The hardware lab's checks, run as root inside a qemu guest booted on Debian's kernel (lab/run.sh).

The guest has a real kernel: uinput, evdev, udev. For each recording a uinput device is created from
its description (evemu-device); touchbridged finds it through udev hotplug; evemu-play replays it in
real time while a client collects the daemon's lines and libinput debug-events reads the same device.
Then fault checks: a device removed mid-gesture, SYN_DROPPED from a real buffer overflow, a device the
daemon may not open, two touchscreens at once.

Prints one line per check and ends with "N passed, M failed"; exits non-zero when a check fails.
"""
import argparse
import glob
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import tempfile
import time

from common import (FIX, SHARED, Client, Daemon, Device, LibinputWatcher, compare_gestures, description_of,
                    device_header, device_index, ends_frame, offline, partial, report, summary, wait_for_open)
import passthrough

# Every recording in Tests/Fixtures (the descriptions and the NOTICE are not recordings).
RECORDINGS = sorted(f for f in os.listdir(FIX) if f.endswith((".evemu", ".events")))


class RawClient:
    """A client that keeps up: it counts what it reads instead of parsing every line (the lab's CPUs
    are emulated, and a client that falls behind is dropped)."""
    def __init__(self, path, topics=("gestures", "touches", "devices")):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.sock.sendall((json.dumps({"subscribe": list(topics)}) + "\n").encode())
        self.counts = {}
        self.tail = b""

    def count(self, needle):
        return self.counts.get(needle, 0)

    def take(self, flags=0):
        """Reads what is waiting (the socket is readable)."""
        chunk = self.sock.recv(1 << 20, flags)
        data = self.tail + chunk
        cut = data.rfind(b"\n") + 1
        self.tail = data[cut:]
        self.counts[b'"event":"touch"'] = self.counts.get(b'"event":"touch"', 0) + data[:cut].count(b'"event":"touch"')
        return bool(chunk)

    def drain(self):
        """Reads everything waiting without waiting for more: a client that polls."""
        try:
            while self.take(socket.MSG_DONTWAIT):
                pass
        except BlockingIOError:
            pass


class PipeReader:
    """Reads a program's output through a pipe as RawClient reads the daemon's socket (for pump_all),
    counting its lines."""
    def __init__(self, f):
        self.sock = f
        self.lines = 0

    def take(self):
        chunk = os.read(self.sock.fileno(), 1 << 20)
        self.lines += chunk.count(b"\n")
        return bool(chunk)


def pump_all(clients, seconds):
    """Keeps one or more RawClients reading for `seconds`."""
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([c.sock for c in clients], [], [], max(0, end - time.time()))
        for c in clients:
            if c.sock in r and not c.take():
                return


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
        report("removal mid-gesture: the daemon still serves", d.proc.poll() is None and bool(fresh.lines))
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


def burst_recording(workdir):
    """The lab's five-finger stream: Chromium OS's burst from ../shared when it is there, else a stand-in
    of the same shape made here."""
    shared = os.path.join(SHARED, "cros-autotest__unknown-ts__5fg-burst-same-timestamp-syn-dropped-stress.events")
    if os.path.exists(shared):
        return shared, os.path.join(SHARED, "cros-autotest__unknown-ts__DEVICE.desc")
    return standin_burst(workdir)


class Lcg:
    """The made-up streams' deterministic random numbers (a 64-bit linear congruential generator)."""

    def __init__(self, seed=42):
        self.state = seed

    def next(self):
        """The next 64-bit state."""
        self.state = (self.state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
        return self.state

    def below(self, n):
        return (self.next() >> 33) % n


def end_stream(lines, down, path):
    """Lifts the fingers still down (`down`: a tracking id or None per slot), ends the frame and
    writes the stream to `path`."""
    for s, tid in enumerate(down):
        if tid is not None:
            lines.append("E: 1.000000 0003 002f {}\nE: 1.000000 0003 0039 -1\n".format(s))
    lines.append("E: 1.000000 0000 0000 0\n")
    with open(path, "w") as f:
        f.writelines(lines)


BURST_DEVICE = """# EVEMU 1.3
# The lab's stand-in for the five-finger burst's touchscreen: positions, pressure and touch major per
# contact, and the single-touch axes the kernel keeps for the oldest contact (pointer emulation).
N: Touchscreen (lab stand-in for the five-finger burst)
I: 0018 0000 0000 0000
P: 02 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 04 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 01 00 00 00 00 00 00 00 00
B: 02 00 00 00 00 00 00 00 00
B: 03 03 00 00 01 00 80 61 06
B: 04 00 00 00 00 00 00 00 00
B: 05 00 00 00 00 00 00 00 00
B: 11 00 00 00 00 00 00 00 00
B: 12 00 00 00 00 00 00 00 00
B: 14 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
B: 15 00 00 00 00 00 00 00 00
A: 00 0 799 0 0 0
A: 01 0 479 0 0 0
A: 18 0 255 0 0 0
A: 2f 0 9 0 0 0
A: 30 0 255 0 0 0
A: 35 0 799 0 0 0
A: 36 0 479 0 0 0
A: 39 0 65535 0 0 0
A: 3a 0 255 0 0 0
"""


def reflect(value, low, high):
    """`value` kept within [low, high] by turning back at either end, so that it always changes."""
    return low + (low - value) if value < low else high - (value - high) if value > high else value


def standin_burst(workdir):
    """The shape of Chromium OS's burst (837 frames, every event at one timestamp, 33 touch sequences):
    five fingers land in the first frames and move together for most of the stream, both axes; then
    two of them tap quickly (5-8 frames down, 2-5 up) while the others lift. A frame carries only what
    changed, as the kernel sends it, and what that device sends: each contact's pressure (changing in
    about half the frames it moves) and touch major (a third), and the oldest contact again on the
    single-touch axes (ABS_X, ABS_Y, ABS_PRESSURE) -- 16.7 events a frame as readers get them, after
    the kernel drops values it already holds (the real burst: 17.8; each finger reports in 93 % of
    the frames it is down, and moves, presses and widens as often as there)."""
    desc = os.path.join(workdir, "burst.desc")
    with open(desc, "w") as f:
        f.write(BURST_DEVICE)
    events = os.path.join(workdir, "burst.events")
    rand = Lcg().below
    # Pressure and touch major come from a stream of their own, so the fingers' motion and taps do not
    # depend on them (the gestures: a pan, as on the real burst, then two-finger taps).
    wobble = Lcg(7).below
    lines, tid = [], 100
    pos = [[150 + 120 * s, 240 + 20 * (s % 2)] for s in range(5)]
    pressure = [40 + 5 * s for s in range(5)]
    major = [80] * 5
    down = [None] * 5
    landed = [0] * 5           # when each finger landed: the oldest one drives the single-touch axes
    plan = {}                  # frame -> list of (slot, "down" | "up")
    for s in range(5):
        plan.setdefault(s, []).append((s, "down"))
    for s in (2, 3, 4):
        plan.setdefault(676 + 2 * s, []).append((s, "up"))
    for s in (0, 1):           # the tappers: up at 680/683, then taps until the end
        f = 680 + 3 * s
        plan.setdefault(f, []).append((s, "up"))
        f += 2 + rand(4)
        while f + 8 < 836:
            plan.setdefault(f, []).append((s, "down"))
            f += 5 + rand(4)
            plan.setdefault(f, []).append((s, "up"))
            f += 2 + rand(4)
    emulated = [None, None, None]   # what ABS_X, ABS_Y, ABS_PRESSURE last said
    for frame in range(837):
        for s, what in plan.get(frame, []):
            lines.append("E: 1.000000 0003 002f {}\n".format(s))
            if what == "down":
                tid += 1
                down[s] = tid
                landed[s] = frame
                lines.append("E: 1.000000 0003 0039 {}\n".format(tid))
                lines.append("E: 1.000000 0003 0035 {}\n".format(pos[s][0]))
                lines.append("E: 1.000000 0003 0036 {}\n".format(pos[s][1]))
                lines.append("E: 1.000000 0003 003a {}\n".format(pressure[s]))
                lines.append("E: 1.000000 0003 0030 {}\n".format(major[s]))
            else:
                down[s] = None
                lines.append("E: 1.000000 0003 0039 -1\n")
        # The hand sweeps right and back (120 frames each way) while it wanders up and down, so no
        # finger reaches the panel's edge: a value the kernel already holds would be filtered out
        # (input_handle_abs_event) and readers would get fewer events than the file says.
        sweep = 1 if (frame // 120) % 2 == 0 else -1
        for s in range(5):
            if down[s] is None or any(p[0] == s for p in plan.get(frame, [])) or rand(14) == 0:
                continue       # a finger that did not move this frame sends nothing (7 %, as on the real burst)
            dx, dy = rand(5) - 2 + sweep, rand(5) - 2
            pos[s] = [min(799, max(0, pos[s][0] + dx)), min(479, max(0, pos[s][1] + dy))]
            lines.append("E: 1.000000 0003 002f {}\n".format(s))
            if dx:
                lines.append("E: 1.000000 0003 0035 {}\n".format(pos[s][0]))
            if dy:
                lines.append("E: 1.000000 0003 0036 {}\n".format(pos[s][1]))
            if wobble(9) < 5:          # pressure changes in 55 % of a finger's reports, touch major in a third
                pressure[s] = reflect(pressure[s] + 2 * wobble(2) - 1, 20, 120)
                lines.append("E: 1.000000 0003 003a {}\n".format(pressure[s]))
            if wobble(3) == 0:
                major[s] = reflect(major[s] + 8 * wobble(2) - 4, 40, 200)
                lines.append("E: 1.000000 0003 0030 {}\n".format(major[s]))
        live = [s for s in range(5) if down[s] is not None]
        if live:
            oldest = min(live, key=lambda s: (landed[s], s))
            for i, (code, value) in enumerate((("0000", pos[oldest][0]), ("0001", pos[oldest][1]), ("0018", pressure[oldest]))):
                if emulated[i] != value:
                    emulated[i] = value
                    lines.append("E: 1.000000 0003 {} {}\n".format(code, value))
        lines.append("E: 1.000000 0000 0000 0\n")
    end_stream(lines, down, events)
    return events, desc


def drumming_recording(workdir):
    """A stress stream, not a panel's: five fingers drumming, one landing or lifting in most of its
    3,000 frames (each lifted finger lands with chance 0.3 a frame, each down one lifts with chance
    0.1), so touch sequences begin and end all the time and views get every touch."""
    desc = device_header(workdir, "drumming")
    events = os.path.join(workdir, "drumming.events")
    lcg = Lcg()
    lines, tid = [], 100
    slots = [None] * 5
    for frame in range(3000):
        for s in range(5):
            seed = lcg.next()
            r = (seed >> 33) % 10
            lines.append("E: 1.000000 0003 002f {}\n".format(s))
            if slots[s] is None and r < 3:
                tid += 1
                slots[s] = tid
                lines.append("E: 1.000000 0003 0039 {}\n".format(tid))
                lines.append("E: 1.000000 0003 0035 {}\n".format(100 + (seed >> 40) % 600))
                lines.append("E: 1.000000 0003 0036 {}\n".format(50 + (seed >> 20) % 400))
            elif slots[s] is not None and r < 1:
                slots[s] = None
                lines.append("E: 1.000000 0003 0039 -1\n")
            elif slots[s] is not None:
                lines.append("E: 1.000000 0003 0035 {}\n".format(100 + (seed >> 40) % 600))
        lines.append("E: 1.000000 0000 0000 0\n")
    end_stream(lines, slots, events)
    return events, desc


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
        report("SYN_DROPPED: the daemon still serves", d.proc.poll() is None and bool(fresh.lines))
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
        report("a device the daemon may not open: the daemon keeps running", d.proc.poll() is None and bool(c.lines))
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


def cpu_times(pid):
    """User and system CPU seconds of a process so far."""
    with open("/proc/{}/stat".format(pid)) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return int(fields[11]) / tick, int(fields[12]) / tick


def runtime(pid):
    """Seconds the process has run on a CPU, from the scheduler's own clock (/proc/PID/schedstat, in
    nanoseconds): exact, where user and system times are sampled at timer ticks."""
    with open("/proc/{}/schedstat".format(pid)) as f:
        return int(f.read().split()[0]) / 1e9


def context_switches(pid):
    """Voluntary and involuntary context switches so far: how often the process went to sleep and was
    woken, and how often another task took its CPU while it could still run (a client it woke, say)."""
    counts = {}
    with open("/proc/{}/status".format(pid)) as f:
        for line in f:
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                counts[line.split(":")[0]] = int(line.split()[1])
    return counts.get("voluntary_ctxt_switches", 0), counts.get("nonvoluntary_ctxt_switches", 0)


def wakeups(pid):
    """Voluntary context switches so far: how often the process went to sleep and was woken."""
    return context_switches(pid)[0]


def frames_in(events):
    """How many frames a recording has."""
    with open(events) as f:
        return sum(1 for line in f if line.startswith("E:") and ends_frame(line.split()))


def paced_recording(events, workdir, hz):
    """The same events, one frame every 1/hz s (a panel's scan rate) instead of all at once."""
    out = os.path.join(workdir, "paced-{}-{}".format(hz, os.path.basename(events)))
    frame = 0
    with open(events) as f, open(out, "w") as o:
        for line in f:
            if not line.startswith("E:"):
                o.write(line)
                continue
            parts = line.split()
            o.write("E: {:.6f} {}\n".format(1.0 + frame / hz, " ".join(parts[2:])))
            if ends_frame(parts):
                frame += 1
    return out


def cpu_on(d, c, dev, li, events, plays, others=(), polling=False):
    """CPU seconds (user + system) of the daemon and of libinput over `plays` plays of `events`, with
    the client reading all along, as a real one would (one that stopped reading would be dropped,
    and the daemon would stop making its lines). `others`: clients of other daemons (--compare).
    `polling`: the clients read every 50 ms without waiting on their sockets, so that a send wakes
    no one (as libinput's writes to /dev/null wake no one); else they wait in select()."""
    def pump(seconds):
        if not polling:
            return pump_all([c] + list(others), seconds)
        end = time.time() + seconds
        while time.time() < end:
            time.sleep(0.05)
            for client in [c] + list(others):
                client.drain()
    before = cpu_times(d.proc.pid), cpu_times(li.pid), context_switches(d.proc.pid), context_switches(li.pid), runtime(d.proc.pid), runtime(li.pid)
    lines0 = c.count(b'"event":"touch"')
    for _ in range(plays):
        p = dev.play(events, background=True)
        while p.poll() is None:
            pump(0.2)
    pump(1.0)
    after = cpu_times(d.proc.pid), cpu_times(li.pid), context_switches(d.proc.pid), context_switches(li.pid), runtime(d.proc.pid), runtime(li.pid)
    ours = [after[0][i] - before[0][i] for i in (0, 1)]
    theirs = [after[1][i] - before[1][i] for i in (0, 1)]
    switches = [tuple(a - b for a, b in zip(after[i], before[i])) for i in (2, 3)]     # (woken, preempted)
    return (ours, theirs, switches[0], switches[1], c.count(b'"event":"touch"') - lines0,
            after[4] - before[4], after[5] - before[5])


def measure_cpu(binaries, workdir, compare=None):
    """Benchmark figure (README, BENCHMARKS.md): CPU seconds of touchbridged and of libinput debug-events
    (output to /dev/null) while both read the same replayed device: the five-finger burst paced at 240 Hz,
    as a panel delivers it, and as fast as evemu-play can write it, with a client on gestures, touches
    and devices (touch lines are what debug-events prints); paced with a client on gestures only; the
    drumming stress stream, paced; and the paced burst with a client that polls instead of waiting.
    Reported, not judged."""
    events, desc = burst_recording(workdir)
    paced = paced_recording(events, workdir, 240)
    # The stress stream plays on the same device: its coordinates and five slots fit either panel.
    drumming = paced_recording(drumming_recording(workdir)[0], workdir, 240)
    every = ("gestures", "touches", "devices")
    # Plays: the paced streams run for 21 s (six plays, 5,022 frames) and 14 s, so that a few seconds
    # of the shared host being busier do not decide the ratio.
    # The last: the same client reading every 50 ms instead of waiting in select(), so that the
    # daemon's sends wake no one, as libinput's writes to /dev/null wake no one (BENCHMARKS.md: what a
    # send costs under emulation is waking a client on the other CPU).
    streams = [("paced at 240 Hz", every, paced, 6, False), ("unpaced burst", every, events, 5, False),
               ("paced at 240 Hz, a client on gestures only", ("gestures",), paced, 4, False),
               ("five fingers drumming (stress: a touch lands or lifts in most frames), paced at 240 Hz", every, drumming, 1, False),
               ("paced at 240 Hz, the client reading every 50 ms (no wakeup a frame)", every, paced, 4, True)]
    d = Daemon(binaries, workdir)
    # --compare DIR: another build of the daemon on the same device at the same time, for an A/B
    # figure that emulation's run-to-run spread does not blur.
    other = None
    if compare:
        os.makedirs(os.path.join(workdir, "compare"), exist_ok=True)
        other = Daemon(compare, os.path.join(workdir, "compare"))
    try:
        dev = Device(desc)
        d.wait_for_log(re.escape(dev.node) + r".*\[device")
        if other:
            other.wait_for_log(re.escape(dev.node) + r".*\[device")
        li = subprocess.Popen(["libinput", "debug-events", "--device", dev.node], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        floor_bin = os.path.join(binaries, "evdev-floor")
        fl = subprocess.Popen([floor_bin, dev.node]) if os.path.exists(floor_bin) else None
        # The same reader handing 730 bytes a wakeup to a reading child: about what the daemon writes
        # a frame on this stream for a client on gestures and touches.
        fls = subprocess.Popen([floor_bin, dev.node, "730"]) if os.path.exists(floor_bin) else None
        time.sleep(1.0)
        for name, topics, path, plays, polling in streams:
            f0 = (runtime(fl.pid), wakeups(fl.pid)) if fl else None
            s0 = runtime(fls.pid) if fls else None
            c = RawClient(d.socket, topics)
            oc = RawClient(other.socket, topics) if other else None
            o0 = runtime(other.proc.pid) if other else None
            time.sleep(0.5)
            ours, theirs, our_wakeups, their_wakeups, touch_lines, our_run, their_run = cpu_on(d, c, dev, li, path, plays,
                                                                                               [oc] if oc else [], polling)
            c.sock.close()
            if other:
                oc.sock.close()
                print("lab: {}: the --compare build: {:.3f} s, this build {:.3f} s (ratio {:.2f})".format(
                    name, runtime(other.proc.pid) - o0, our_run, our_run / max(runtime(other.proc.pid) - o0, 1e-9)), flush=True)
            if fl:
                print("lab: {}: a reader that only waits and reads (lab/floor.c): {:.3f} s, {} wakeups".format(
                    name, runtime(fl.pid) - f0[0], wakeups(fl.pid) - f0[1]), flush=True)
            if fls:
                print("lab: {}: the same reader sending 730 bytes a wakeup over a Unix socket to a reader: {:.3f} s".format(
                    name, runtime(fls.pid) - s0), flush=True)
            if fl and fls:
                # What each does beyond the least a reader like it must: libinput beyond the reader,
                # the daemon beyond the reader that also hands a client its bytes (the delivery that
                # debug-events > /dev/null does not pay). Derived, for reading the ratio below.
                floor, delivering = runtime(fl.pid) - f0[0], runtime(fls.pid) - s0
                print("lab: {}: above the floors: touchbridged {:.3f} s (less the reader that also sends), libinput {:.3f} s "
                      "(less the reader), ratio {:.2f}".format(name, our_run - delivering, their_run - floor,
                                                               (our_run - delivering) / max(their_run - floor, 1e-9)), flush=True)
            print("lab: {}: sampled cpu seconds (user, system): touchbridged ({:.2f}, {:.2f}), libinput ({:.2f}, {:.2f}); "
                  "wakeups: touchbridged {}, libinput {}; preempted: touchbridged {}, libinput {}".format(
                      name, ours[0], ours[1], theirs[0], theirs[1], our_wakeups[0], their_wakeups[0], our_wakeups[1],
                      their_wakeups[1]), flush=True)
            print("MEASURE cpu seconds, {}: touchbridged {:.3f}, libinput debug-events {:.3f}, ratio {:.2f} "
                  "(scheduler run time; {} touch lines read by the client; client dropped: {})".format(
                      name, our_run, their_run, our_run / their_run if their_run else float("nan"),
                      touch_lines, "yes" if "stopped reading" in d.text() else "no"), flush=True)
        li.terminate()
        li.wait(5)
        # Like for like: the paced stream again with libinput's lines read by a client through a pipe,
        # as the daemon's are read through its socket. debug-events > /dev/null hands its lines to no
        # one; the daemon hands them to a reader, a send and a wakeup a frame. Reported, not judged.
        piped = subprocess.Popen(["libinput", "debug-events", "--device", dev.node], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        time.sleep(1.0)
        reader = PipeReader(piped.stdout)
        c = RawClient(d.socket, every)
        time.sleep(0.5)
        _, _, _, _, touch_lines, our_run, their_run = cpu_on(d, c, dev, piped, paced, 4, [reader])
        c.sock.close()
        print("MEASURE cpu seconds, paced at 240 Hz, libinput's lines read through a pipe (like for like): touchbridged {:.3f}, "
              "libinput debug-events {:.3f}, ratio {:.2f} (scheduler run time; {} touch lines read by the daemon's client, "
              "{} lines by libinput's reader; client dropped: {})".format(our_run, their_run, our_run / their_run if their_run else float("nan"),
                                                                                touch_lines, reader.lines, "yes" if "stopped reading" in d.text() else "no"), flush=True)
        piped.terminate()
        piped.wait(5)
        for f in (fl, fls):
            if f:
                f.terminate()
                f.wait(5)
        dev.remove()
    finally:
        d.stop()
        if other:
            other.stop()


# Both programs under callgrind, counting what runs in their own processes; a dump zeroes the counters.
CALLGRIND = ["valgrind", "--tool=callgrind", "--quiet", "--trace-children=yes"]


def callgrind_dump(pid, out):
    """Instructions a process under callgrind ran since its last dump (or since it started): the `totals:`
    line of the profile that `callgrind_control --dump` makes it write (to `out`.N, N counting dumps)."""
    before = set(glob.glob(out + ".*"))
    subprocess.run(["callgrind_control", "--dump", str(pid)], check=True, capture_output=True, timeout=300)
    end = time.time() + 60
    while time.time() < end:
        for path in sorted(set(glob.glob(out + ".*")) - before):
            with open(path) as f:
                m = re.search(r"^totals: (\d+)", f.read(), re.M)
            if m:
                return int(m.group(1))
        time.sleep(0.2)
    raise RuntimeError("callgrind_control --dump {}: no profile appeared as {}.N".format(pid, out))


def strace_counts(path):
    """System calls by name from `strace -c -o path`, and their total."""
    counts = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            # "% time  seconds  usecs/call  calls  [errors]  syscall": the calls column, then the name.
            if len(fields) >= 5 and re.match(r"^\d+\.\d+$", fields[0]) and fields[3].isdigit():
                counts[fields[-1]] = int(fields[3])
    total = counts.pop("total", sum(counts.values()))
    return counts, total


def per_frame(counts, frames, top=4):
    """The `top` most frequent system calls, each as calls a frame."""
    return ", ".join("{} {:.2f}".format(name, n / frames) for name, n in sorted(counts.items(), key=lambda kv: -kv[1])[:top])


def measure_instructions(binaries, workdir):
    """Benchmark figure (BENCHMARKS.md): what touchbridged (a client on gestures, touches and devices,
    waiting in select) and libinput debug-events (output to /dev/null) each do a frame on the same
    replayed device, in counts that emulation does not blur: the instructions each runs in its own
    process (callgrind), and the system calls each makes (strace -c), with the wakeups. What the kernel
    does in those calls, and a client's wakeup, are not in the instructions: the CPU figure has them.
    The five-finger burst and the drumming stress stream, paced at 60 Hz so that neither program falls
    behind under valgrind or strace (each wakes about once a frame, as at 240 Hz). Judged: fewer
    instructions and no more system calls a frame than libinput (the CPU figure is only reported)."""
    hz = 60
    burst, desc = burst_recording(workdir)
    # The stress stream plays on the same device: its coordinates and five slots fit either panel.
    streams = [("the burst", burst), ("five fingers drumming", drumming_recording(workdir)[0])]
    streams = [(name, paced_recording(events, workdir, hz), frames_in(events)) for name, events in streams]
    dev = Device(desc)
    try:
        for phase in ("callgrind", "strace"):
            grind = phase == "callgrind"
            dout, lout = os.path.join(workdir, "daemon.cg"), os.path.join(workdir, "libinput.cg")
            d = Daemon(binaries, workdir, wrapper=CALLGRIND + ["--callgrind-out-file=" + dout] if grind else (), start_timeout=300)
            li = subprocess.Popen((CALLGRIND + ["--callgrind-out-file=" + lout] if grind else []) +
                                  ["libinput", "debug-events", "--device", dev.node],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            tracers = []
            try:
                if not d.wait_for_log(re.escape(dev.node) + r".*\[device", timeout=300) or not wait_for_open(li.pid, dev.node, 300):
                    return report("instructions: touchbridged and libinput opened the device under " + phase, False,
                                  d.text()[-300:])
                c = RawClient(d.socket, ("gestures", "touches", "devices"))
                pump_all([c], 3.0)                      # start-up settles (libinput reads the device's state)
                if grind:
                    callgrind_dump(d.proc.pid, dout), callgrind_dump(li.pid, lout)      # zeroes both
                    pump_all([c], 2.0)
                    idle = callgrind_dump(d.proc.pid, dout), callgrind_dump(li.pid, lout)
                for name, paced, frames in streams:
                    if not grind:
                        tracers = [subprocess.Popen(["strace", "-c", "-f", "-o", os.path.join(workdir, who + ".strace"), "-p", str(pid)],
                                                    stderr=subprocess.DEVNULL) for pid, who in ((d.proc.pid, "daemon"), (li.pid, "libinput"))]
                        pump_all([c], 2.0)              # attached
                    lines0, w0 = c.count(b'"event":"touch"'), (wakeups(d.proc.pid), wakeups(li.pid))
                    p = dev.play(paced, background=True)
                    while p.poll() is None:
                        pump_all([c], 0.2)
                    pump_all([c], 2.0)
                    touch_lines, woke = c.count(b'"event":"touch"') - lines0, (wakeups(d.proc.pid) - w0[0], wakeups(li.pid) - w0[1])
                    # A reader that keeps up wakes once a frame; one that falls behind reads several frames a
                    # wakeup, and past the kernel's buffer loses some (the daemon logs SYN_DROPPED then).
                    # Under strace every system call stops the process twice: its wakeups say nothing there.
                    kept_up = "{}{} frames; SYN_DROPPED: {}".format(
                        "wakeups a frame: touchbridged {:.2f}, libinput {:.2f}; ".format(woke[0] / frames, woke[1] / frames) if grind else "",
                        frames, "yes" if "SYN_DROPPED" in d.text() else "no")
                    if grind:
                        ours, theirs = callgrind_dump(d.proc.pid, dout), callgrind_dump(li.pid, lout)
                        print("MEASURE instructions a frame (callgrind, in the process), {} paced at {} Hz: touchbridged {:,.0f}, "
                              "libinput debug-events {:,.0f}, ratio {:.2f} ({} touch lines read by the client; idle 2 s before "
                              "the first stream: {:,} and {:,}; {})".format(name, hz, ours / frames, theirs / frames, ours / max(theirs, 1),
                                                                            touch_lines, idle[0], idle[1], kept_up), flush=True)
                        # Counts repeat from run to run (within 1 %), unlike emulated seconds: judged, with the
                        # client's touch lines as the sign that the daemon did its whole work.
                        report("instructions a frame, {}: touchbridged runs fewer than libinput debug-events".format(name),
                               0 < ours < theirs and touch_lines > 0, "{:,.0f} against {:,.0f}".format(ours / frames, theirs / frames))
                        continue
                    for t in tracers:
                        t.send_signal(signal.SIGINT)
                        t.wait(60)
                    (oc, ot), (tc, tt) = (strace_counts(os.path.join(workdir, who + ".strace")) for who in ("daemon", "libinput"))
                    print("MEASURE system calls a frame (strace -c), {} paced at {} Hz: touchbridged {:.2f} ({}), "
                          "libinput debug-events {:.2f} ({}); {}".format(name, hz, ot / frames, per_frame(oc, frames), tt / frames,
                                                                          per_frame(tc, frames), kept_up), flush=True)
                    report("system calls a frame, {}: touchbridged makes no more than libinput debug-events".format(name),
                           0 < ot <= tt, "{:.2f} against {:.2f}".format(ot / frames, tt / frames))
                c.sock.close()
            finally:
                for t in tracers:
                    if t.poll() is None:
                        t.kill()
                li.terminate()
                li.wait(60)
                d.stop()
    finally:
        dev.remove()


def measure_wakeup(binaries, workdir):
    """What handing a client its lines costs, taken apart (BENCHMARKS.md; run only when asked:
    --check wakeup): the floor reader (lab/floor.c) on the paced burst, several side by side, sending
    730 bytes a wakeup to a child blocked in read(2), to a child that never waits on the socket (the
    write wakes no one), and pinned with the child on its own CPU or on the other one. Reported, not
    judged."""
    floor_bin = os.path.join(binaries, "evdev-floor")
    if not os.path.exists(floor_bin):
        return report("wakeup: the floor reader (lab/floor.c) was built", False, "no " + floor_bin)
    events, desc = burst_recording(workdir)
    paced = paced_recording(events, workdir, 240)
    dev = Device(desc)
    try:
        cpus = os.cpu_count() or 1
        groups = [[("no send", ["0"]), ("a reader that waits", ["730", "read"]), ("a reader that never waits", ["730", "lazy"])]]
        for cpu in range(min(cpus, 2)):
            other = str((cpu + 1) % cpus)
            groups.append([("no send, cpu {}".format(cpu), ["0", "read", str(cpu), str(cpu)]),
                           ("a reader that waits on the same cpu", ["730", "read", str(cpu), str(cpu)]),
                           ("a reader that waits on the other cpu", ["730", "read", str(cpu), other]),
                           ("a reader that never waits", ["730", "lazy", str(cpu), str(cpu)])])
        for group in groups:
            procs = [(name, subprocess.Popen([floor_bin, dev.node] + argv)) for name, argv in group]
            time.sleep(1.0)
            before = [(runtime(p.pid), wakeups(p.pid)) for _, p in procs]
            for _ in range(4):
                dev.play(paced)
            time.sleep(0.5)
            after = [(runtime(p.pid), wakeups(p.pid)) for _, p in procs]
            print("MEASURE wakeup, the floor reader on the paced burst: " + "; ".join(
                "{} {:.3f} s ({} wakeups)".format(name, b[0] - a[0], b[1] - a[1])
                for (name, _), a, b in zip(procs, before, after)), flush=True)
            for _, p in procs:
                p.terminate()
                p.wait(5)
            subprocess.run(["pkill", "-f", floor_bin])      # the children
    finally:
        dev.remove()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="directory with touchbridged and touchbridgectl")
    parser.add_argument("--only", help="run only the recordings whose name contains this")
    parser.add_argument("--check", help="run only this one of the other checks (devices command, removal, SYN_DROPPED, "
                                        "permission, two screens, passthrough (all of them) or one of its checks, cpu, "
                                        "instructions; wakeup only when asked)")
    parser.add_argument("--compare", help="with --check cpu: a directory with another touchbridged build, measured alongside")
    args = parser.parse_args()
    subprocess.run(["modprobe", "uinput"], check=True)
    print("lab: kernel {}, {}".format(os.uname().release, subprocess.run(["libinput", "--version"], capture_output=True, text=True).stdout.strip() and "libinput " + subprocess.run(["libinput", "--version"], capture_output=True, text=True).stdout.strip()), flush=True)
    checks = [("recording " + n, lambda w, n=n: check_recording(args.bin, w, n))
              for n in RECORDINGS if not args.check and (not args.only or args.only in n)]
    if not args.only:
        checks += [("devices command", lambda w: check_devices_command(args.bin, w)),
                   ("removal", lambda w: check_removal(args.bin, w)), ("SYN_DROPPED", lambda w: check_syn_dropped(args.bin, w)),
                   ("permission", lambda w: check_unopenable(args.bin, w)), ("two screens", lambda w: check_two_screens(args.bin, w))]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in passthrough.CHECKS]
        checks += [("cpu", lambda w: measure_cpu(args.bin, w, args.compare)),
                   ("instructions", lambda w: measure_instructions(args.bin, w))]
        if args.check == "wakeup":                      # only when asked
            checks.append(("wakeup", lambda w: measure_wakeup(args.bin, w)))
        # --check passthrough: every pass-through check.
        checks = [c for c in checks if not args.check or c[0] == args.check
                  or (args.check == "passthrough" and c[0].startswith("passthrough"))]
    passthrough.install_udev_rules(args.bin)
    for name, check in checks:
        # Unix sockets cannot live on the host's shared filesystem: use the guest's own tmpfs.
        with tempfile.TemporaryDirectory(prefix="tb-lab-", dir="/dev/shm" if os.path.isdir("/dev/shm") else "/run") as w:
            try:
                check(w)
            except Exception as e:                      # a check that breaks is a failed check
                report(name, False, "{}: {}".format(type(e).__name__, e))
    return summary()


if __name__ == "__main__":
    sys.exit(main())
