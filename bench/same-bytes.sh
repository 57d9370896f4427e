#!/usr/bin/env bash
# Same bytes out: replays every fixture through touchbridgectl built from two commits and compares the
# output byte for byte, in each way the lines can be asked for (plain, --touches, --verbose --touches
# with its stderr, --actions with the built-in scene and with each of scenes/, and --mirror's evemu
# file with the built-in pass-through scene). For a
# change that must not change behaviour (a move between modules, a refactor).
#   bench/same-bytes.sh BASE [NEW]   BASE, NEW: commits (NEW default: the working tree)
set -euo pipefail
base=${1:?usage: bench/same-bytes.sh BASE [NEW]}
new=${2:-}
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /tmp/same-bytes.XXXXXX)
trap 'git -C "$root" worktree remove --force "$work/base" >/dev/null 2>&1 || true; [ -n "$new" ] && git -C "$root" worktree remove --force "$work/new" >/dev/null 2>&1; rm -rf "$work"' EXIT

build() {   # build DIR → prints the path of its touchbridgectl
    (cd "$1" && env -u RUN_ARGS -u MAKEFLAGS swift build --product touchbridgectl >&2 && echo "$(swift build --show-bin-path)/touchbridgectl")
}
git -C "$root" worktree add --detach "$work/base" "$base" >/dev/null 2>&1
old_ctl=$(build "$work/base")
if [ -n "$new" ]; then
    git -C "$root" worktree add --detach "$work/new" "$new" >/dev/null 2>&1
    new_ctl=$(build "$work/new")
else
    new_ctl=$(build "$root")
fi

fixtures=$root/Tests/Fixtures
passthrough=$work/passthrough.json
"$new_ctl" scene default --passthrough > "$passthrough"
compared=0; differ=0
run_both() {   # run_both LABEL ARGS... : the same arguments to both builds, stdout and stderr compared
    local label=$1; shift
    local a=$work/a b=$work/b
    mkdir -p "$a" "$b"
    (cd "$a" && "$old_ctl" "$@" >out 2>err; echo $? >rc) || true
    (cd "$b" && "$new_ctl" "$@" >out 2>err; echo $? >rc) || true
    for f in out err rc mirror.evemu; do
        if [ -e "$a/$f" ] || [ -e "$b/$f" ]; then
            if ! cmp -s "$a/$f" "$b/$f"; then
                echo "DIFFERS: $label ($f)"; diff <(head -c 2000 "$a/$f" 2>/dev/null) <(head -c 2000 "$b/$f" 2>/dev/null) | head -5 || true
                differ=$((differ + 1))
            fi
        fi
    done
    compared=$((compared + 1))
    rm -rf "$a" "$b"
}
for rec in "$fixtures"/*.evemu "$fixtures"/*.events "$fixtures"/*.yml "$fixtures"/*.evtest.txt; do
    name=$(basename "$rec")
    desc=()
    case "$rec" in
        *.events) d=${rec%__*}__DEVICE.desc; [ -e "$d" ] && desc=(--desc "$d") ;;
    esac
    run_both "$name" replay "$rec" "${desc[@]}"
    run_both "$name --touches" replay "$rec" "${desc[@]}" --touches
    run_both "$name --verbose --touches" replay "$rec" "${desc[@]}" --verbose --touches
    run_both "$name --actions" replay "$rec" "${desc[@]}" --actions
    for scene in "$root"/scenes/*.json; do   # the desktops' scenes, whose recognizers act
        run_both "$name --actions --scene $(basename "$scene")" replay "$rec" "${desc[@]}" --actions --scene "$scene"
    done
    run_both "$name --mirror" replay "$rec" "${desc[@]}" --scene "$passthrough" --mirror mirror.evemu
done
echo "same-bytes: $compared replays compared, $differ outputs differ (base $(git -C "$root" rev-parse --short "$base"), new ${new:-working tree})"
[ "$differ" -eq 0 ]
