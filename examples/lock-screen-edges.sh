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
# touchbridgectl's --socket comes from TOUCHBRIDGE_SOCKET when set.
set -u
patterns=${TOUCHBRIDGE_LOCK_PATTERNS:-"edge*"}
ctl=${TOUCHBRIDGECTL:-touchbridgectl}
socket=${TOUCHBRIDGE_SOCKET:+--socket $TOUCHBRIDGE_SOCKET}
[ $# -eq 0 ] && set -- swaylock

# shellcheck disable=SC2086  # the patterns and the socket option are meant to split into words
$ctl disable $patterns $socket || exit 1
# shellcheck disable=SC2086
restore() { $ctl enable $patterns $socket; }
trap 'restore; exit 130' INT TERM
"$@"
status=$?
restore
exit $status
