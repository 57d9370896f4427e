#!/usr/bin/env bash
# make bench: release-mode benchmarks. First the idle daemon (wakeups and memory over 10 s), then the
# TUIO bridge's CPU a frame (bench/tuio.py), the WebSocket bridge's with 20 clients (bench/websocket.py),
# the strokes' data (bench/strokes.py), then touchbridge-bench (pipeline per frame, fixtures,
# hit-testing, strokes' accuracy and match time, memory over ten million frames).
# The last line is one JSON object with every figure.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=.build/release
dir=$(mktemp -d)
trap 'kill $daemon 2>/dev/null || true; rm -rf "$dir"' EXIT
"$BIN/touchbridged" --no-devices --socket "$dir/tb.sock" 2>/dev/null &
daemon=$!
for _ in $(seq 100); do [ -S "$dir/tb.sock" ] && break; sleep 0.05; done
sleep 1
switches() { awk '/ctxt_switches/ { n += $2 } END { print n }' "/proc/$daemon/status"; }
before=$(switches)
sleep 10
after=$(switches)
rss=$(awk '/VmRSS/ { printf "%.2f", $2 / 1024 }' "/proc/$daemon/status")
kill "$daemon"; wait "$daemon" 2>/dev/null || true
wakeups=$((after - before))
echo "idle daemon: $wakeups wakeups (context switches) in 10 s, resident $rss MiB"
# The TUIO bridge's CPU a frame of ten fingers (bench/tuio.py: a replay through a real daemon and bridge).
tuio=$(python3 bench/tuio.py --bin "$BIN")
echo "$tuio" | head -2
tuio_us=$(echo "$tuio" | sed -n 's/^tuio_us_per_frame=//p')
tuio_p99=$(echo "$tuio" | sed -n 's/^tuio_added_p99_ms=//p')
# One WebSocket bridge serving 20 clients the same replay (bench/websocket.py).
ws=$(python3 bench/websocket.py --bin "$BIN")
echo "$ws" | head -1
ws_us=$(echo "$ws" | sed -n 's/^websocket_us_per_frame=//p')
# Drawn strokes: 4,800 made by bench/strokes.py and taken back through the pipeline, then tested in
# touchbridge-bench as the $1 paper tested its recognizer (about a minute).
python3 bench/strokes.py --bin "$BIN" --out "$dir/strokes"
"$BIN/touchbridge-bench" --root=. --stroke-data="$dir/strokes" --idle-wakeups="$wakeups" --idle-rss="$rss" --tuio-us-per-frame="$tuio_us" --tuio-added-p99-ms="$tuio_p99" --websocket-us-per-frame="$ws_us" "$@"
