#!/usr/bin/env python3
"""Hot call sites in a callgrind profile: the figure that predicts the daemon's CPU under emulation.

Under qemu's software emulation (the lab) a frame's cost is set by what it runs for the first time
after each wakeup, and above all by its distinct jumps through a lookup: every call site's return, and
every call to another page or through a table -- far more than by the instructions between them
(BENCHMARKS.md, "What dominates under emulation"). This counts the call sites executed in at least a
given share of the frames, and which functions hold them.

    valgrind --tool=callgrind --dump-instr=yes \\
        --toggle-collect='*replayPlays*' --callgrind-out-file=cg.out \\
        .build/release/touchbridge-bench --only=replay --recording=FILE --desc=DESC --repeat=3
    bench/callsites.py cg.out FRAMES [--share 0.5] [--by-caller 20]

FRAMES is the number of frames played (the bench prints it).

With --dumps, PROFILE is the prefix of a profile dumped once per frame (`--dump-before=` at
`Application.handle`, files PROFILE.1, PROFILE.2, ...) and the figure is the distinct call sites of each
frame, median over the frames (the first two and the last are set-up and tear-down) -- what a wakeup
pays after a context switch -- and the lookups they make: returns, calls to another page and (with
--collect-jumps=yes) jumps taken to another page. The daemon itself, one frame a wakeup (the burst
paced at 60 Hz so that it keeps up under callgrind), with a client on every topic:

    valgrind --tool=callgrind --dump-instr=yes --collect-jumps=yes --callgrind-out-file=cg.out \\
        --dump-before='$s9TouchCore11ApplicationC6handleyyAA14DigitizerFrameVF' \\
        .build/release/touchbridged --no-devices --replay BURST-PACED-60HZ --replay-desc DESC --socket S
    bench/callsites.py --dumps cg.out
"""
import argparse
import collections
import re
import subprocess

# A callee that counts references (the runtime's retain and release entry points).
REFERENCE_COUNTING = re.compile(r"retain|release|unownedRetainStrong")


def demangle(name):
    try:
        out = subprocess.run(["swift", "demangle", "--simplified", "--compact", name], capture_output=True, text=True).stdout.strip()
        return out or name
    except OSError:
        return name


def call_sites(path, transfers=None):
    """Call count, callee and caller per call instruction address (callgrind --dump-instr=yes).

    With `transfers` (a set), also collects the control transfers that qemu cannot chain -- each one
    a jump-cache lookup in a cold frame: every call site's return (the call sites themselves), every
    call to a function on another 4 KiB page, and, when the profile has them (--collect-jumps=yes),
    every jump taken to another page. Each is added as (kind, source address)."""
    names, sites, target, caller = {}, collections.Counter(), {}, {}
    fn = cfn = pending = jump = None
    last = 0
    header = re.compile(r"^(c?fn)=\((\d+)\)(?: (.*))?$")

    def position(tok, base):
        if tok.startswith("0x"):
            return int(tok, 16)
        if tok[0] in "+-":
            return base + int(tok)
        return base if tok == "*" else None

    with open(path, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            m = header.match(line)
            if m:
                kind, idx, name = m.groups()
                if name:
                    names[idx] = name
                if kind == "cfn":
                    cfn = idx
                else:
                    fn = idx
                continue
            if line.startswith("calls="):
                count, to = line.split("=")[1].split()[:2]
                pending = (int(count), position(to, last))
                continue
            if line.startswith(("jump=", "jcnd=")):
                # jump=COUNT TARGET, jcnd=TAKEN/EXECUTED TARGET; the next line is the jump itself.
                fields = line.split("=")[1].split()
                taken = int(fields[0].split("/")[0])
                jump = position(fields[1], last) if taken else None
                continue
            if not line or line[0] not in "0123456789+-*":
                continue
            addr = position(line.split()[0], last)
            if addr is None:
                continue
            last = addr
            if pending is not None:                 # the cost line after calls= is the call's own address
                count, to = pending
                sites[addr] += count
                target[addr] = names.get(cfn, cfn)
                caller[addr] = names.get(fn, fn)
                if transfers is not None and to is not None and to >> 12 != addr >> 12:
                    transfers.add(("call", addr))
                pending = None
            elif jump is not None:
                if transfers is not None and jump >> 12 != addr >> 12:
                    transfers.add(("jump", addr))
                jump = None
    return sites, target, caller


def per_frame(prefix, callers):
    """Distinct call sites per frame from per-frame dumps: the median, and the mean per caller."""
    import glob
    files = sorted(glob.glob(prefix + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]) if p.rsplit(".", 1)[1].isdigit() else -1)
    files = [f for f in files if f.rsplit(".", 1)[1].isdigit()][2:-1]
    if not files:
        raise SystemExit("no per-frame dumps {}.N".format(prefix))
    counts, arcs, calls, jumps, by_caller = [], [], [], [], collections.Counter()
    for f in files:
        transfers = set()
        sites, target, caller = call_sites(f, transfers)
        counts.append(len(sites))
        arcs.append(sum(1 for a in sites if REFERENCE_COUNTING.search(target[a] or "")))
        calls.append(sum(1 for kind, _ in transfers if kind == "call"))
        jumps.append(sum(1 for kind, _ in transfers if kind == "jump"))
        by_caller.update(caller[a] for a in sites)
    for figures in (counts, arcs, calls, jumps):
        figures.sort()
    middle = len(files) // 2
    print("{} frames: distinct call sites a frame, median {} ({} of them reference counting)".format(
        len(files), counts[middle], arcs[middle]))
    print("lookups a frame (what qemu cannot chain), median {}: {} returns, {} calls to another page, {} jumps "
          "taken to another page{}".format(counts[middle] + calls[middle] + jumps[middle], counts[middle], calls[middle],
                                           jumps[middle], "" if any(jumps) else " (profile without --collect-jumps=yes)"))
    for name, n in by_caller.most_common(callers):
        print("{:6.1f}  {}".format(n / len(files), demangle(name)[:110]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile")
    ap.add_argument("frames", type=float, nargs="?")
    ap.add_argument("--share", type=float, default=0.5, help="executed in at least this share of the frames")
    ap.add_argument("--by-caller", type=int, default=15, help="how many calling functions to list")
    ap.add_argument("--dumps", action="store_true", help="PROFILE is the prefix of per-frame dumps")
    args = ap.parse_args()
    if args.dumps:
        per_frame(args.profile, args.by_caller)
        return
    if args.frames is None:
        ap.error("FRAMES is needed without --dumps")
    sites, target, caller = call_sites(args.profile)
    hot = {a: c for a, c in sites.items() if c >= args.share * args.frames}
    print("call sites: {} in all; {} executed in at least {:.0%} of the frames ({} of them reference counting)".format(
        len(sites), len(hot), args.share, sum(1 for a in hot if REFERENCE_COUNTING.search(target[a] or ""))))
    by_caller = collections.Counter(caller[a] for a in hot)
    for name, n in by_caller.most_common(args.by_caller):
        counting = sum(1 for a in hot if caller[a] == name and REFERENCE_COUNTING.search(target[a] or ""))
        print("{:5d} ({:2d} reference counting)  {}".format(n, counting, demangle(name)[:110]))


if __name__ == "__main__":
    main()
