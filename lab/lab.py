#!/usr/bin/env python3
"""The hardware lab's checks, run as root inside a qemu guest booted on Debian's kernel (lab/run.sh).

The guest has a real kernel: uinput, evdev, udev. For each recording a uinput device is created from
its description (evemu-device); touchbridged finds it through udev hotplug; evemu-play replays it in
real time while a client collects the daemon's lines and libinput debug-events reads the same device.
Then fault checks: a device removed mid-gesture, SYN_DROPPED from a real buffer overflow, a device the
daemon may not open, two touchscreens at once; and a live `set device` on a real device.

Prints one line per check and ends with "N passed, M failed"; exits non-zero when a check fails.
"""
import argparse
import os
import subprocess
import sys
import tempfile

from common import report, summary
from checks import (RECORDINGS, check_devices_command, check_mirror_replay, check_recording, check_removal,
                    check_set_device, check_syn_dropped, check_two_screens, check_unopenable)
from measure import measure_cpu, measure_instructions, measure_wakeup
import passthrough
import actions
import screen
import pens
import tuio
import focus
import touchpad


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", required=True, help="directory with touchbridged and touchbridgectl")
    parser.add_argument("--only", help="run only the recordings whose name contains this")
    parser.add_argument("--check", help="run only this one of the other checks (devices command, removal, SYN_DROPPED, "
                                        "permission, two screens, set device, mirror replay, passthrough, actions or screen (all of them) or one of their checks, cpu, "
                                        "instructions; wakeup only when asked)")
    parser.add_argument("--keep", help="copy the recordings the pen checks make into this directory")
    parser.add_argument("--compare", help="with --check cpu: a directory with another touchbridged build, measured alongside")
    args = parser.parse_args()
    pens.KEEP = args.keep
    subprocess.run(["modprobe", "uinput"], check=True)
    print("lab: kernel {}, {}".format(os.uname().release, subprocess.run(["libinput", "--version"], capture_output=True, text=True).stdout.strip() and "libinput " + subprocess.run(["libinput", "--version"], capture_output=True, text=True).stdout.strip()), flush=True)
    checks = [("recording " + n, lambda w, n=n: check_recording(args.bin, w, n))
              for n in RECORDINGS if not args.check and (not args.only or args.only in n)]
    if not args.only:
        checks += [("devices command", lambda w: check_devices_command(args.bin, w)),
                   ("removal", lambda w: check_removal(args.bin, w)), ("SYN_DROPPED", lambda w: check_syn_dropped(args.bin, w)),
                   ("permission", lambda w: check_unopenable(args.bin, w)), ("two screens", lambda w: check_two_screens(args.bin, w)),
                   ("set device", lambda w: check_set_device(args.bin, w)),
                   ("mirror replay", lambda w: check_mirror_replay(args.bin, w))]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in passthrough.CHECKS]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in actions.CHECKS]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in screen.CHECKS]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in pens.CHECKS]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in tuio.CHECKS]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in focus.CHECKS]
        checks += [(name, lambda w, f=f: f(args.bin, w)) for name, f in touchpad.CHECKS]
        checks += [("cpu", lambda w: measure_cpu(args.bin, w, args.compare)),
                   ("instructions", lambda w: measure_instructions(args.bin, w))]
        if args.check == "wakeup":                      # only when asked
            checks.append(("wakeup", lambda w: measure_wakeup(args.bin, w)))
        if args.check == "touchpad-experiment":         # only when asked
            checks.append(("touchpad-experiment", lambda w: touchpad.experiment_start(args.bin, w)))
        # --check passthrough, --check actions: every check of that group.
        checks = [c for c in checks if not args.check or c[0] == args.check
                  or (args.check in ("passthrough", "actions", "screen", "pens", "tuio", "focus", "touchpad") and c[0].startswith(args.check))]
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
