#!/usr/bin/env bash
# make demo: gestures from real touchscreen recordings, without hardware. Each recording is played by
# touchbridged as if it were a live device, and the Python example client prints what it serves.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$dir"' EXIT
show() {
    local recording=$1 count=$2 what=$3
    echo
    echo "== $what: $(basename "$recording")"
    "$BIN/touchbridged" --no-devices --socket "$dir/tb.sock" --replay "$recording" --replay-delay 0.5 2>"$dir/daemon.log" &
    daemon=$!
    for _ in $(seq 100); do [ -S "$dir/tb.sock" ] && break; sleep 0.05; done
    # A daemon that did not start or stopped early says why.
    if ! timeout 30 python3 examples/listen.py --socket "$dir/tb.sock" --count "$count" | sed 's/^/   /' \
            || ! kill -0 "$daemon" 2>/dev/null; then
        echo "demo: touchbridged did not serve $(basename "$recording"); it said:" >&2
        sed 's/^/   /' "$dir/daemon.log" >&2
        exit 1
    fi
    kill "$daemon"; wait "$daemon" 2>/dev/null || true
}
show Tests/Fixtures/evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu 5 "nine fast taps on an Atmel maXTouch panel"
show Tests/Fixtures/evemu-devices__wacom-isdv4-e6-finger-ts__2fg-tap.events 1 "a two-finger tap on a Wacom ISDv4 tablet PC"
show Tests/Fixtures/evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu 3 "two-finger scroll on an EP0430M09 panel (first lines)"
# No recording we may ship makes these three with the built-in scene: synthetic ones (Tests/Fixtures/NOTICE).
show Tests/Fixtures/synthetic__panel__2fg-pinch-out.evemu 3 "a pinch, two fingers spreading (synthetic; first lines)"
show Tests/Fixtures/synthetic__panel__2fg-rotate-clockwise.evemu 3 "a rotation, two fingers turning (synthetic; first lines)"
show Tests/Fixtures/synthetic__panel__3fg-swipe-left.evemu 1 "a three-finger swipe to the left (synthetic)"
echo
echo "Replay any recording offline: .build/release/touchbridgectl replay --touches FILE"
# A report to look at: the views, the fingers and every recognizer's decisions, in one HTML file.
report=${TMPDIR:-/tmp}/touchbridge-demo-report.html
"$BIN/touchbridgectl" replay --html "$report" Tests/Fixtures/evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu \
    >/dev/null 2>"$dir/report.log" || { cat "$dir/report.log" >&2; exit 1; }
echo
echo "A replay report of the nine taps (open it in a browser): $report"
echo "The live page, beside a running daemon:      $BIN/touchbridgectl visualize --touches   (then open the address it prints: it carries the page's token)"
echo "  e.g. with a demo daemon: $BIN/touchbridged --no-devices --replay-loop --replay Tests/Fixtures/evemu-devices__ep0430m09-ts__2fg-scroll-down.evemu &"
