"""The lab's measurements, next to libinput on the same replayed device: CPU (scheduler run time),
instructions a frame (callgrind), system calls a frame (strace), and what waking a client costs.
Reported as MEASURE lines, not judged: emulated figures move with qemu's wakeup cost (BENCHMARKS.md)."""
import glob
import json
import os
import re
import select
import signal
import socket
import subprocess
import time

from common import Daemon, Device, report, tbsupport, wait_for_open
from streams import burst_recording, drumming_recording, frames_in, paced_recording


class RawClient:
    """A client that keeps up: it counts what it reads instead of parsing every line (the lab's CPUs
    are emulated, and a client that falls behind is dropped)."""
    def __init__(self, path, topics=("gestures", "touches", "devices")):
        self.client = tbsupport.Client(path, topics=list(topics))
        self.sock = self.client.sock
        self.counts = {}

    def count(self, needle):
        return self.counts.get(needle, 0)

    def take(self, flags=0):
        """Reads what is waiting (the socket is readable); false at the end of the stream."""
        lines = self.client.take(flags)
        if lines is None:
            return False
        touch = b'"event":"touch"'
        self.counts[touch] = self.counts.get(touch, 0) + sum(1 for l in lines if touch in l)
        return True

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


