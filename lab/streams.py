"""Streams the lab makes up: the stand-in for Chromium OS's five-finger burst (when ../shared is not
there), the drumming stress stream, and recordings paced at a given rate. Imported by checks and
measurements."""
import os

from common import SHARED, device_header, ends_frame


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


