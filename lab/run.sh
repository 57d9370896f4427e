#!/usr/bin/env bash
# make lab: boots Debian's kernel under qemu (virtme-ng) on this machine's root filesystem and runs
# lab/lab.py inside it, as root: real evdev, uinput and udev. See docs/development.md, "Hardware lab".
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

need=""
# busybox-static: virtme-ng builds the guest's initramfs around it (Debian's kernel loads virtio and 9p
# as modules, so the guest needs one). valgrind and strace: the per-frame counts next to libinput. sway,
# foot and a font: the per-app check's compositor and windows (lab/focus.py).
for p in linux-image-amd64 qemu-system-x86 busybox-static evemu-tools evtest libinput-tools udev kmod util-linux coreutils \
         valgrind strace sway foot fonts-dejavu-core; do
    dpkg -s "$p" >/dev/null 2>&1 || need="$need $p"
done
if [ -n "$need" ]; then
    echo "lab: installing$need"
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends $need >/dev/null
fi
# Pinned: the version the lab was last checked with (a new release may boot the guest differently).
VNG_VERSION=1.42
installed=$(python3 -m pip show virtme-ng 2>/dev/null || true)
grep -qx "Version: $VNG_VERSION" <<< "$installed" || {
    echo "lab: installing virtme-ng $VNG_VERSION"; python3 -m pip install -q "virtme-ng==$VNG_VERSION"; }
VNG=$(command -v vng || echo "$(python3 -m site --user-base)/bin/vng")

swift build -c release --static-swift-stdlib --product touchbridged >/dev/null
swift build -c release --static-swift-stdlib --product touchbridgectl >/dev/null
BIN=$(swift build -c release --static-swift-stdlib --show-bin-path)
# The CPU figure's floor: a reader that only waits and reads (lab/floor.c), built next to the binaries.
cc -O2 -o "$BIN/evdev-floor" lab/floor.c || echo "lab: no C compiler: the CPU figure goes without its floor"
# The guest runs on this root filesystem: sway's user (Tests/support/sway.py) is made here, before it boots.
if [ "$(id -u)" = 0 ]; then
    python3 -c "import sys; sys.path.insert(0, 'Tests/support'); import sway; sway.ensure_user()"
fi
KERNEL=$(ls /boot/vmlinuz-* | sort -V | tail -n 1)
OUT=$(mktemp -d)
echo "lab: booting $KERNEL under qemu (no KVM), results in $OUT"
# /dev/kvm here is PVM (kvm_pvm: KVM without hardware virtualization), which runs only kernels built
# as PVM guests, and Debian's is not one; software emulation boots in about 15 s.
# vng's own output goes to a file: it reopens its standard output, which would truncate a log file
# that the caller redirected this script into.
# LAB_KEEP=1: the pen checks copy the recordings they make into the results directory.
# LAB_KERNEL_ARGS: more of the guest kernel's command line, for experiments (BENCHMARKS.md: idle=poll).
# The checks take about 8 minutes here; the limit leaves room for a host several times slower.
timeout 2400 "$VNG" --disable-kvm --memory 2G --run "$KERNEL" --rwdir "$OUT" ${LAB_KERNEL_ARGS:+--append "$LAB_KERNEL_ARGS"} \
    --exec "python3 $PWD/lab/lab.py --bin $BIN ${LAB_KEEP:+--keep $OUT} ${LAB_ARGS:-} > $OUT/results.txt 2>&1" > "$OUT/vng.log" 2>&1 < /dev/null || {
    echo "lab: the guest did not finish; vng said:"; tail -n 20 "$OUT/vng.log"; }
cat "$OUT/results.txt" || true
tail -n 1 "$OUT/results.txt" 2>/dev/null | grep -Eq '^[0-9]+ passed, 0 failed$'
