#!/bin/sh
# Runs a screen locker with TouchBridge's edge gestures switched off, and switches them on again when
# the locker exits (unlocked, killed or crashed), so that a swipe from the edge cannot open a panel
# over the lock screen.
#
#     examples/lock-screen-edges.sh                      # swaylock
#     examples/lock-screen-edges.sh gtklock              # another locker (it must stay in the foreground:
#                                                        # not "swaylock -f")
#     TOUCHBRIDGE_LOCK_PATTERNS="edge* swipe* k/*" examples/lock-screen-edges.sh
#
# The patterns are recognizer names or shell patterns (default "edge*": the built-in scene's four edge
# pans). Needs control permission: root, the daemon's user, or touchbridged --control-group.
# touchbridgectl finds the socket in TOUCHBRIDGE_SOCKET when it is set.
set -u
patterns=${TOUCHBRIDGE_LOCK_PATTERNS:-"edge*"}
ctl=${TOUCHBRIDGECTL:-touchbridgectl}
[ $# -eq 0 ] && set -- swaylock

# shellcheck disable=SC2086  # the patterns are meant to split into words
$ctl disable $patterns || exit 1
# shellcheck disable=SC2086
restore() { $ctl enable $patterns; }
trap 'restore; exit 130' INT TERM
"$@"
status=$?
restore
exit $status
