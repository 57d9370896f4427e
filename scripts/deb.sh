#!/usr/bin/env bash
# make deb: touchbridge_VERSION_ARCH.deb from the release binaries (Swift runtime linked statically, so
# the package depends on Debian libraries only, as dpkg-shlibdeps finds them), staged as the package's
# tree and built with dpkg-deb. The version is the binaries' own (`touchbridged --version`, from
# Version.string); packaging/debian/changelog must have an entry for it. The result is in .build/deb/.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${BIN:-.build/release}
version=$("$BIN/touchbridged" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)
top=$(sed -n '1s/^touchbridge (\([^)]*\)).*/\1/p' packaging/debian/changelog)
if [ "$top" != "$version" ]; then
    echo "deb: the binaries are version $version but packaging/debian/changelog's newest entry is $top;" \
         "add an entry for $version (dch -v $version, or by hand)" >&2
    exit 1
fi
out=.build/deb
root=$out/touchbridge_${version}_${arch}
rm -rf "$root"
mkdir -p "$root/DEBIAN"

# The files, where Debian puts them; the units and the rule name /usr/bin.
install -D -m 0755 "$BIN/touchbridged" "$root/usr/bin/touchbridged"
install -D -m 0755 "$BIN/touchbridgectl" "$root/usr/bin/touchbridgectl"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/touchbridged" "$root/usr/bin/touchbridgectl"
install -d "$root/usr/lib/systemd/system" "$root/usr/lib/systemd/user" "$root/usr/lib/udev/rules.d" \
           "$root/usr/lib/sysusers.d" "$root/usr/lib/modules-load.d"
sed 's|/usr/local/bin/|/usr/bin/|g' systemd/touchbridged.service > "$root/usr/lib/systemd/system/touchbridged.service"
install -m 0644 systemd/touchbridged.socket "$root/usr/lib/systemd/system/touchbridged.socket"
sed 's|/usr/local/bin/|/usr/bin/|g' systemd/touchbridge-bind.service > "$root/usr/lib/systemd/user/touchbridge-bind.service"
sed 's|/usr/local/bin/|/usr/bin/|g' systemd/touchbridge-follow-sway.service > "$root/usr/lib/systemd/user/touchbridge-follow-sway.service"
sed 's|/usr/local/bin/|/usr/bin/|g' systemd/touchbridge-follow-focus.service > "$root/usr/lib/systemd/user/touchbridge-follow-focus.service"
sed 's|/usr/local/bin/|/usr/bin/|g' systemd/touchbridge-follow-rotation.service > "$root/usr/lib/systemd/system/touchbridge-follow-rotation.service"
sed 's|/usr/local/bin/|/usr/bin/|g; s|/usr/local/share/|/usr/share/|g' systemd/touchbridge-mqtt.service > "$root/usr/lib/systemd/system/touchbridge-mqtt.service"
sed 's|/usr/local/bin/|/usr/bin/|g' systemd/touchbridge-tuio.service > "$root/usr/lib/systemd/system/touchbridge-tuio.service"
sed 's|/usr/local/bin/|/usr/bin/|g' udev/70-touchbridge.rules > "$root/usr/lib/udev/rules.d/70-touchbridge.rules"
install -m 0644 udev/85-touchbridge-mirror-group.rules "$root/usr/lib/udev/rules.d/85-touchbridge-mirror-group.rules"
install -m 0644 systemd/touchbridge.sysusers "$root/usr/lib/sysusers.d/touchbridge.conf"
install -m 0644 systemd/touchbridge-modules.conf "$root/usr/lib/modules-load.d/touchbridge.conf"
install -D -m 0644 scenes/default.json "$root/etc/touchbridge/scene.json"
install -d "$root/usr/share/touchbridge/scenes"
install -m 0644 scenes/*.json "$root/usr/share/touchbridge/scenes/"
# The GNOME Shell extension follow-focus gnome needs: shipped, never enabled by the package (docs/focus.md).
install -d "$root/usr/share/touchbridge/gnome-shell/touchbridge-focus@touchbridge"
install -m 0644 gnome-shell/touchbridge-focus@touchbridge/* "$root/usr/share/touchbridge/gnome-shell/touchbridge-focus@touchbridge/"
for page in touchbridged.8 touchbridgectl.1; do
    section=${page##*.}
    install -d "$root/usr/share/man/man$section"
    sed "s/@VERSION@/$version/" "docs/man/$page" | gzip -9n > "$root/usr/share/man/man$section/$page.gz"
done
doc=$root/usr/share/doc/touchbridge
install -D -m 0644 packaging/debian/copyright "$doc/copyright"
gzip -9n < packaging/debian/changelog > "$doc/changelog.gz"
# The examples the README points to (bindings, a client, scripts), as documents: not executable here.
install -d "$doc/examples"
find examples -maxdepth 1 -type f -exec install -m 0644 {} "$doc/examples/" \;
chmod 0644 "$doc/changelog.gz" "$root"/usr/share/man/man*/*.gz

# The control files.
install -m 0755 packaging/debian/postinst packaging/debian/prerm packaging/debian/postrm "$root/DEBIAN/"
install -m 0644 packaging/debian/conffiles "$root/DEBIAN/conffiles"
# dpkg-shlibdeps reads debian/control in the directory it runs in.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/debian"
printf 'Source: touchbridge\n\nPackage: touchbridge\nArchitecture: any\n' > "$work/debian/control"
depends=$(cd "$work" && dpkg-shlibdeps -O "$OLDPWD/$root/usr/bin/touchbridged" "$OLDPWD/$root/usr/bin/touchbridgectl" | sed -n 's/^shlibs:Depends=//p')
# xkbcommon compiles keymaps from xkb-data at run time (keys actions, README "Actions").
depends="$depends, xkb-data"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
    packaging/debian/control > "$root/DEBIAN/control"
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -print0 | sort -z | xargs -0 md5sum | sed 's|  \./|  |') > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums" "$root/DEBIAN/control"
find "$root" -type d -exec chmod 0755 {} +
deb=$out/touchbridge_${version}_${arch}.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >/dev/null
# lintian: an error fails the build; the warnings accepted are in the README's packaging note.
report=$(lintian --fail-on error "$deb" 2>&1) || { echo "deb: lintian found errors in $deb:" >&2; printf '%s\n' "$report" >&2; exit 1; }
printf '%s\n' "$report" | grep -v "running with root privileges" || true
echo "$deb"
