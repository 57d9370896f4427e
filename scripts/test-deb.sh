#!/usr/bin/env bash
# make test-deb: the package as a user gets it. Built (make deb, which runs lintian: no error; the
# warnings accepted are in the README's packaging note), installed with dpkg on this machine, used
# (touchbridged --version, touchbridgectl replay of a bundled recording), its units verified, removed
# (the scene, a conffile, stays) and purged (nothing of ours left in /usr or /etc).
# Needs root: it installs into this system. Run by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
[ "$(id -u)" = 0 ] || { echo "test-deb: needs root (it installs the package with dpkg)" >&2; exit 1; }
deb=$(ls -t .build/deb/touchbridge_*.deb | head -n 1)
version=$(.build/release/touchbridged --version | awk '{print $2}')
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }
step() { echo "test-deb: $*"; }

if dpkg -s touchbridge >/dev/null 2>&1; then dpkg -P touchbridge >/dev/null; fi
step "dpkg -i"
dpkg -i "$deb" >/dev/null || fail "dpkg -i"
files=$(dpkg -L touchbridge | while read -r f; do [ -f "$f" ] && echo "$f"; done)
[ "$(/usr/bin/touchbridged --version)" = "touchbridged $version (protocol 2)" ] || fail "installed touchbridged --version"
gestures=$(/usr/bin/touchbridgectl replay Tests/Fixtures/evemu-devices__atmel-maxtouch-ts__1fg-9-fast-taps.evemu | grep -c '"event":"gesture"')
[ "$gestures" = 5 ] || fail "the installed touchbridgectl replay gave $gestures gestures, not 5"
/usr/bin/touchbridgectl scene check /etc/touchbridge/scene.json >/dev/null || fail "the installed scene does not check"
man -w touchbridged >/dev/null 2>&1 || [ -e /usr/share/man/man8/touchbridged.8.gz ] || fail "no touchbridged(8)"
[ -e /usr/share/doc/touchbridge/examples/bindings.json ] || fail "no examples in /usr/share/doc/touchbridge/examples"
for s in gnome kde sway; do
    /usr/bin/touchbridgectl scene check /usr/share/touchbridge/scenes/$s.json >/dev/null || fail "the ready-made scene $s.json does not check"
done
getent group touchbridge >/dev/null || fail "no group touchbridge after installation"
getent group uinput >/dev/null || fail "no group uinput after installation"
[ -L /etc/systemd/system/sockets.target.wants/touchbridged.socket ] || fail "the socket unit is not enabled"
step "systemd-analyze verify"
SYSTEMD_LOG_LEVEL=err systemd-analyze verify /usr/lib/systemd/system/touchbridged.socket \
    /usr/lib/systemd/system/touchbridged.service || fail "systemd-analyze verify"

step "dpkg -r: the scene stays"
echo " " >> /etc/touchbridge/scene.json                     # the administrator's edit
dpkg -r touchbridge >/dev/null || fail "dpkg -r"
[ -e /etc/touchbridge/scene.json ] || fail "dpkg -r removed the scene"
[ ! -e /usr/bin/touchbridged ] || fail "dpkg -r left /usr/bin/touchbridged"

step "dpkg -P: nothing of ours left"
dpkg -P touchbridge >/dev/null || fail "dpkg -P"
for f in $files; do [ ! -e "$f" ] || fail "$f is left after purge"; done
[ ! -e /etc/touchbridge ] || fail "/etc/touchbridge is left after purge"
left=$(find /etc /usr -name '*touchbridge*' 2>/dev/null | grep -v "^$PWD" || true)
[ -z "$left" ] || fail "left after purge: $left"
step "ok: built, lintian-clean, installed, used, verified, removed and purged"
