#!/usr/bin/env bash
# make fuzz: builds the fuzz targets (fuzz/Package.swift) with libFuzzer and AddressSanitizer, optimized
# but with assertions on, and runs each for FUZZ_SECONDS (default 60) from a seed corpus made of the
# fixtures, the scenes and the tests' inputs. One line per target: "fuzz TARGET: N execs, M crashes".
# A crashing input is kept in fuzz/crashes/ (make it a regression test: Tests/FuzzRegressions/TARGET/);
# the exit status is non-zero when any target crashed.
#   FUZZ_SECONDS=600 make fuzz          longer runs
#   FUZZ_TARGETS="frames scene" make fuzz
#   FUZZ_RUNS=10000000 make fuzz        a number of executions instead of a time
set -uo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-60}
TARGETS=${FUZZ_TARGETS:-scene client-line recording frames mqtt websocket}
ROOT=$PWD
FLAGS=(-c release -Xswiftc -sanitize=fuzzer,address -Xswiftc -assert-config -Xswiftc Debug -Xswiftc -use-ld=lld
       --package-path fuzz --build-path "$ROOT/.build/fuzz")
swift build "${FLAGS[@]}" >/tmp/touchbridge-fuzz-build.log 2>&1 || {
    echo "fuzz: the build failed:"; tail -n 30 /tmp/touchbridge-fuzz-build.log; exit 1; }
BIN=$(swift build "${FLAGS[@]}" --show-bin-path)
WORK=$ROOT/.build/fuzz/corpus
mkdir -p fuzz/crashes "$WORK"

seed() {    # seed TARGET DIR: the seed corpus of a target
    local t=$1 dir=$2
    rm -rf "$dir"; mkdir -p "$dir"
    case $t in
    scene)
        cp scenes/*.json "$dir/"
        python3 scripts/fuzz_seeds.py scenes "$dir" ;;
    client-line)
        python3 scripts/fuzz_seeds.py client-lines "$dir" ;;
    recording)
        for f in Tests/Fixtures/*.evemu Tests/Fixtures/*.events Tests/Fixtures/*.yml Tests/Fixtures/*.evtest.txt Tests/Fixtures/*.desc; do
            # libFuzzer's inputs stay small; a header's comments would take all of it.
            grep -v '^#' "$f" | head -c 2000 > "$dir/$(basename "$f")"
        done ;;
    frames)
        python3 scripts/fuzz_seeds.py frames "$dir" ;;
    websocket)
        python3 scripts/fuzz_seeds.py websocket "$dir" ;;
    mqtt)
        cp examples/mqtt.json "$dir/"
        python3 scripts/fuzz_seeds.py client-lines "$dir" ;;
    esac
    if [ -d "Tests/FuzzRegressions/$t" ]; then cp Tests/FuzzRegressions/"$t"/* "$dir/" 2>/dev/null || true; fi
}

failed=0
for t in $TARGETS; do
    corpus=$WORK/$t
    seeds=$WORK/$t.seeds
    mkdir -p "$corpus"
    seed "$t" "$seeds"
    if [ -n "${FUZZ_RUNS:-}" ]; then limit=(-runs="$FUZZ_RUNS"); else limit=(-max_total_time="$SECONDS_EACH"); fi
    log=$WORK/$t.log
    before=$(ls fuzz/crashes | grep -c "^$t-" || true)
    # Inputs of up to 2 KiB: a few hundred kernel events, a scene, a recording's first lines.
    "$BIN/fuzz-$t" "$corpus" "$seeds" "${limit[@]}" -max_len=2048 -print_final_stats=1 \
        -artifact_prefix="fuzz/crashes/$t-" >"$log" 2>&1
    status=$?
    after=$(ls fuzz/crashes | grep -c "^$t-" || true)
    execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*$')
    crashes=$((after - before))
    echo "fuzz $t: ${execs:-0} execs, $crashes crashes"
    if [ "$status" -ne 0 ] || [ "$crashes" -ne 0 ]; then
        failed=1
        grep -E "fuzz: |Fatal error|ERROR: AddressSanitizer|SUMMARY" "$log" | head -n 5
        ls -1 fuzz/crashes | grep "^$t-" | sed 's|^|  kept: fuzz/crashes/|'
    fi
done
exit $failed
