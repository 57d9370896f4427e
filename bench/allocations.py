#!/usr/bin/env python3
"""Heap allocations per frame, from a callgrind profile dumped once per frame: the figure behind the
target "no allocation on the steady-state path of a moving touch" (BENCHMARKS.md).

    valgrind --tool=callgrind --callgrind-out-file=cg.out \\
        --dump-before='$s9TouchCore11ApplicationC6handleyyAA14DigitizerFrameVF' \\
        .build/release/touchbridge-bench --quick --only=pipeline
    bench/allocations.py cg.out [--period 240]

Every dump after the first holds one frame (Application.handle to the next one). A frame allocates
when anything in it calls malloc, calloc, realloc or an aligned allocation (Swift's allocations all
end in malloc). The synthetic stream of the pipeline benchmark repeats every 240 frames (its fingers
land on frame 0 of each round and lift on frame 239), so `--period 240` says on which frames of a
touch's life the allocations fall: landing, the first frames in which recognizers fail or begin, or
the steady state after them.
"""
import argparse
import collections
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from callsites import demangle  # noqa: E402  (the same names, demangled the same way)

ALLOCATORS = {"malloc", "calloc", "realloc", "posix_memalign", "aligned_alloc", "memalign", "_mid_memalign"}
# What always allocates on someone's behalf: the Swift runtime's entry points and the standard
# library's new buffers. Allocations are charged to the first caller outside these (a growing array
# shows up as the standard library's append path, which allocates only when the array is full).
WRAPPERS = re.compile(r"^(swift_slowAlloc|swift_allocObject|swift_allocBox|swift_allocEmptyBox)$|consumeAndCreateNew|"
                      r"_createNewBuffer|_SetStorageC8allocate|_SetStorageC6resize|_DictionaryStorageC8allocate|"
                      r"_DictionaryStorageC6resize|allocateStringStorage|_allocateUninitialized|copyCollectionToContiguousArray|"
                      r"copySequenceToContiguousArray|_copyToContiguousArray")


def base_name(name):
    """A C function's name without the compiler's suffixes (`_mid_memalign.constprop.0`)."""
    return (name or "").split(".")[0] if not (name or "").startswith("$s") else name


def is_allocator(name):
    return base_name(name) in ALLOCATORS or bool(WRAPPERS.search(name or ""))


def frames(prefix):
    """Per dump (one frame each): (calls to malloc and its kin, allocations by the first caller
    outside the runtime's and the standard library's allocating wrappers)."""
    paths = sorted(glob.glob(prefix + ".*"), key=lambda p: int(p.rsplit(".", 1)[1]))
    header = re.compile(r"^(c?fn)=\((\d+)\)(?: (.*))?$")
    names = {}
    # The first dump is what ran before the first frame (set-up); the last one the exit.
    for path in paths[1:-1]:
        fn = cfn = None
        mallocs = 0
        calls = collections.Counter()
        with open(path, errors="replace") as f:
            for line in f:
                m = header.match(line)
                if m:
                    kind, idx, name = m.groups()
                    if name:
                        names[idx] = name.split("'")[0]
                    if kind == "fn":
                        fn = idx
                    else:
                        cfn = idx
                    continue
                if not line.startswith("calls="):
                    continue
                callee, caller = names.get(cfn), names.get(fn, fn)
                n = int(line.split("=")[1].split()[0])
                if base_name(callee) in ALLOCATORS and base_name(caller) not in ALLOCATORS:
                    mallocs += n
                if is_allocator(callee) and not is_allocator(caller):
                    calls[caller] += n
        yield mallocs, calls


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("profile", help="the --callgrind-out-file given (its per-frame dumps are PROFILE.N)")
    ap.add_argument("--period", type=int, help="the stream repeats every PERIOD frames: where in it allocations fall")
    ap.add_argument("--callers", type=int, default=12, help="how many allocating functions to list")
    args = ap.parse_args()
    per_frame = list(frames(args.profile))
    allocating = [i for i, (m, _) in enumerate(per_frame) if m]
    total = sum(m for m, _ in per_frame)
    print("frames: {}; frames that allocate: {} ({:.1%}); allocations: {}".format(
        len(per_frame), len(allocating), len(allocating) / max(len(per_frame), 1), total))
    if args.period:
        where = collections.Counter(i % args.period for i in allocating)
        rounds = len(per_frame) // args.period
        print("frames of each {}-frame round that allocate (frame: in how many of {} rounds):".format(args.period, rounds))
        print("  " + ", ".join("{}: {}".format(k, v) for k, v in sorted(where.items())))
        # The stream's first frame need not be a landing: the phase is given by the frames that
        # allocate in every round.
        if where:
            print("last frame of a round that allocates: {}".format(max(where)))
    by_caller = collections.Counter()
    for _, c in per_frame:
        by_caller.update(c)
    print("allocations by the first caller outside the runtime's and the standard library's wrappers:")
    for name, n in by_caller.most_common(args.callers):
        print("{:8d}  {}".format(n, demangle(name)[:120]))


if __name__ == "__main__":
    main()
