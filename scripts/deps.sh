#!/usr/bin/env bash
# Installs the Debian packages named that are missing (as root), or says which to install. Each make
# target names only what it needs: `make run` on a device installs the build's libraries, not the
# tests' browser.
set -euo pipefail
missing=""
for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"; done
[ -n "$missing" ] || exit 0
if [ "$(id -u)" = 0 ]; then
    echo "installing:$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null
else
    echo "missing Debian packages:$missing — run: sudo apt-get install$missing" >&2
    exit 1
fi
