# TouchBridge — see README.md.
#   make test     install what is missing, build, run the tests
#   make run      build in release mode and run the daemon in the foreground (default scene)
#   make demo     replay a bundled real recording through the daemon's pipeline, print the gestures
#   make bench    release-mode benchmarks
#   make lab      the qemu hardware lab (real kernel evdev/uinput/udev)
#   make fuzz     libFuzzer on every parser and the frame pipeline (FUZZ_SECONDS each, default 60)
#   make test-sanitize   the tests under AddressSanitizer
#   make soak     a minute of a fast ten-finger stream and 50 unruly clients
#   make install / make uninstall

SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
# Debian packages: what the build needs (C libraries found through pkg-config), and what the tests
# add (the command-line tools and the browser the integration tests drive). scripts/deps.sh installs
# the missing ones; each target asks only for what it uses, so `make run` on a device installs no
# test tools.
BUILD_DEPS := pkg-config libevdev-dev libudev-dev libxkbcommon-dev xkb-data libsystemd-dev libmosquitto-dev liblo-dev libwslay-dev nettle-dev libwayland-dev
TEST_DEPS  := python3 socat systemd chromium nodejs dbus-daemon python3-dbus python3-gi mosquitto mosquitto-clients openssl liblo-tools python3-pyqt6 qt6-qpa-plugins python3-websockets sway foot fonts-dejavu-core libwayland-bin
DEPS       := $(BUILD_DEPS) $(TEST_DEPS)
SWIFTFLAGS := -Xswiftc -warnings-as-errors

.PHONY: wayland-protocols fleet all deps build-deps build release test check-page test-sanitize fuzz soak run demo bench lab install uninstall check-units deb test-deb clean

all: build

# Installs what the build and the tests need (deps), or what the build alone needs (build-deps).
deps:
	@scripts/deps.sh $(DEPS)

build-deps:
	@scripts/deps.sh $(BUILD_DEPS)

# The build sees none of the program's arguments: make exports command-line variables (RUN_ARGS)
# and MAKEFLAGS, and SwiftPM runs the page plugin again and recompiles when its environment changes.
SWIFTBUILD := env -u RUN_ARGS -u MAKEFLAGS -u MFLAGS -u MAKEOVERRIDES -u MAKELEVEL $(SWIFT) build

build: build-deps
	$(SWIFTBUILD) $(SWIFTFLAGS)

# Release binaries link the Swift runtime statically: they run on a device without a Swift
# toolchain, start faster, and call the runtime directly (BENCHMARKS.md).
RELEASEFLAGS := -c release --static-swift-stdlib

release: build-deps
	$(SWIFTBUILD) $(RELEASEFLAGS)

# Unit tests (Swift Testing), then the daemon's integration tests (real binaries, real socket, signals).
test: deps check-page
	$(SWIFTBUILD) --build-tests $(SWIFTFLAGS)
	$(SWIFT) test --skip-build
	TB_BIN=$$($(SWIFT) build --show-bin-path) python3 Tests/integration/run.py

# The visualizer's page (Sources/VisualizerPage/Page, which the EmbedPage build plugin carries
# into the binaries): its script must parse.
check-page:
	node --check Sources/VisualizerPage/Page/page.js
	node --check Sources/VisualizerPage/Page/editor.js
	node --input-type=module --check < gnome-shell/touchbridge-focus@touchbridge/extension.js

# The wlr foreign toplevel protocol's C (follow-focus wlr), made anew from the vendored XML by
# wayland-scanner (Debian libwayland-bin). SwiftPM compiles no C a build plugin makes, so the output is
# committed; test_layering checks it is still what the scanner makes.
WLR_TOPLEVEL := Sources/CWlrToplevel/wlr-foreign-toplevel-management-unstable-v1
wayland-protocols:
	@scripts/deps.sh libwayland-bin
	wayland-scanner client-header Sources/CWlrToplevel/protocol/wlr-foreign-toplevel-management-unstable-v1.xml $(WLR_TOPLEVEL)-client-protocol.h
	wayland-scanner private-code Sources/CWlrToplevel/protocol/wlr-foreign-toplevel-management-unstable-v1.xml $(WLR_TOPLEVEL)-protocol.c

# The daemon in the foreground with the built-in scene; it says which touchscreens it found.
run: release
	@echo "make run: touchbridgectl is $(CURDIR)/.build/release/touchbridgectl (make install puts both on the PATH)"
	.build/release/touchbridged $(RUN_ARGS)

# Gestures from bundled real recordings, served by the daemon and read by examples/listen.py.
demo: release
	@scripts/deps.sh python3
	@echo "make demo: touchbridgectl is $(CURDIR)/.build/release/touchbridgectl (make install puts both on the PATH)"
	BIN=.build/release scripts/demo.sh

# Benchmarks (release): figures and how to reproduce them are in BENCHMARKS.md.
bench: release
	@scripts/deps.sh python3
	bench/bench.sh

# A fleet on this machine (bench/fleet.py): FLEET=50 kiosks (daemons replaying, MQTT bridges), one
# Mosquitto broker restarted halfway, one subscriber; delivered against sent, latency, CPU per message
# next to socat | mosquitto_pub -l.
FLEET ?= 50
fleet: release
	@scripts/deps.sh python3 mosquitto mosquitto-clients socat
	python3 bench/fleet.py --bin .build/release --kiosks $(FLEET) --seconds 60

# The hardware lab: Debian's kernel under qemu with uinput, udev and libinput (docs/development.md, "Hardware lab").
lab: build-deps
	@scripts/deps.sh python3
	lab/run.sh

# The Swift tests, then the integration tests, with every module built with AddressSanitizer (swiftc
# offers no UndefinedBehaviorSanitizer on Linux). Its own build directory: the ordinary build stays.
# LeakSanitizer is on: a cycle of references that outlives its owner is a failure (XCTest's own are
# suppressed, Tests/lsan-suppressions.txt).
ASAN := --sanitize=address --build-path .build/asan
test-sanitize: deps
	$(SWIFTBUILD) --build-tests $(ASAN) $(SWIFTFLAGS)
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt SWIFT_BACKTRACE=enable=no $(SWIFT) test --skip-build $(ASAN)
	LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt TB_BIN=$$($(SWIFT) build $(ASAN) --show-bin-path) python3 Tests/integration/run.py

# libFuzzer with AddressSanitizer on the scene parser, client lines, the recording formats and the
# frame pipeline: scripts/fuzz.sh (FUZZ_SECONDS, FUZZ_TARGETS, FUZZ_RUNS).
fuzz: build-deps
	scripts/fuzz.sh

# A minute of a random ten-finger stream as fast as the daemon takes it, with 50 clients that connect,
# subscribe, read slowly or not at all and go away (Tests/soak/soak.py).
soak: release
	@scripts/deps.sh python3
	TB_BIN=.build/release python3 Tests/soak/soak.py

# systemd-analyze on the units (exposure must stay at most 2.0).
check-units: build
	python3 Tests/integration/run.py test_install.InstallTests.test_systemd_units_verify_and_are_hardened

# The units and the udev rule name the binaries' directory: installed with $(PREFIX) put in.
# (BIN: where the binaries are taken from; the tests install debug binaries with `make -o release`.)
BIN ?= .build/release
install: release
	install -D -m 0755 $(BIN)/touchbridged $(DESTDIR)$(PREFIX)/bin/touchbridged
	install -D -m 0755 $(BIN)/touchbridgectl $(DESTDIR)$(PREFIX)/bin/touchbridgectl
	install -d $(DESTDIR)/etc/systemd/system $(DESTDIR)/etc/systemd/user $(DESTDIR)/etc/udev/rules.d $(DESTDIR)/etc/sysusers.d $(DESTDIR)/etc/modules-load.d
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/touchbridged.service > $(DESTDIR)/etc/systemd/system/touchbridged.service
	install -m 0644 systemd/touchbridged.socket $(DESTDIR)/etc/systemd/system/touchbridged.socket
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/touchbridge-bind.service > $(DESTDIR)/etc/systemd/user/touchbridge-bind.service
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/touchbridge-follow-sway.service > $(DESTDIR)/etc/systemd/user/touchbridge-follow-sway.service
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/touchbridge-follow-focus.service > $(DESTDIR)/etc/systemd/user/touchbridge-follow-focus.service
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/touchbridge-follow-rotation.service > $(DESTDIR)/etc/systemd/system/touchbridge-follow-rotation.service
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g; s|/usr/local/share/|$(PREFIX)/share/|g' systemd/touchbridge-mqtt.service > $(DESTDIR)/etc/systemd/system/touchbridge-mqtt.service
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' systemd/touchbridge-tuio.service > $(DESTDIR)/etc/systemd/system/touchbridge-tuio.service
	sed 's|/usr/local/bin/|$(PREFIX)/bin/|g' udev/70-touchbridge.rules > $(DESTDIR)/etc/udev/rules.d/70-touchbridge.rules
	install -m 0644 udev/85-touchbridge-mirror-group.rules $(DESTDIR)/etc/udev/rules.d/85-touchbridge-mirror-group.rules
	install -m 0644 systemd/touchbridge.sysusers $(DESTDIR)/etc/sysusers.d/touchbridge.conf
	install -m 0644 systemd/touchbridge-modules.conf $(DESTDIR)/etc/modules-load.d/touchbridge.conf
	install -d $(DESTDIR)$(PREFIX)/share/doc/touchbridge/examples
	find examples -maxdepth 1 -type f -exec install -m 0644 {} $(DESTDIR)$(PREFIX)/share/doc/touchbridge/examples/ \;
	install -d $(DESTDIR)$(PREFIX)/share/touchbridge/scenes
	install -m 0644 scenes/*.json $(DESTDIR)$(PREFIX)/share/touchbridge/scenes/
	install -d $(DESTDIR)$(PREFIX)/share/touchbridge/gnome-shell/touchbridge-focus@touchbridge
	install -m 0644 gnome-shell/touchbridge-focus@touchbridge/* $(DESTDIR)$(PREFIX)/share/touchbridge/gnome-shell/touchbridge-focus@touchbridge/
	@if [ -e $(DESTDIR)/etc/touchbridge/scene.json ]; then \
	  echo "keeping the existing $(DESTDIR)/etc/touchbridge/scene.json"; \
	else install -D -m 0644 scenes/default.json $(DESTDIR)/etc/touchbridge/scene.json; fi
	@echo "installed. To start: systemd-sysusers && modprobe uinput && udevadm control --reload && systemctl daemon-reload && systemctl enable --now touchbridged.socket"

# The Debian package (docs/install.md, "Install from the package"): scripts/deb.sh stages the tree, runs dpkg-deb
# and lintian (an error fails it); test-deb builds it, installs, uses, removes and purges it
# (scripts/test-deb.sh).
DEBDEPS := dpkg-dev lintian binutils

deb: release
	@scripts/deps.sh $(DEBDEPS)
	scripts/deb.sh

test-deb: deb
	scripts/test-deb.sh

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/touchbridged $(DESTDIR)$(PREFIX)/bin/touchbridgectl
	rm -f $(DESTDIR)/etc/systemd/system/touchbridged.service $(DESTDIR)/etc/systemd/system/touchbridged.socket
	rm -f $(DESTDIR)/etc/systemd/user/touchbridge-bind.service $(DESTDIR)/etc/systemd/user/touchbridge-follow-sway.service
	rm -f $(DESTDIR)/etc/systemd/user/touchbridge-follow-focus.service
	rm -f $(DESTDIR)/etc/systemd/system/touchbridge-follow-rotation.service $(DESTDIR)/etc/systemd/system/touchbridge-mqtt.service
	rm -f $(DESTDIR)/etc/systemd/system/touchbridge-tuio.service
	rm -f $(DESTDIR)/etc/udev/rules.d/70-touchbridge.rules $(DESTDIR)/etc/udev/rules.d/85-touchbridge-mirror-group.rules
	rm -f $(DESTDIR)/etc/sysusers.d/touchbridge.conf
	rm -f $(DESTDIR)/etc/modules-load.d/touchbridge.conf
	rm -rf $(DESTDIR)$(PREFIX)/share/doc/touchbridge $(DESTDIR)$(PREFIX)/share/touchbridge
	@echo "left /etc/touchbridge/ (your scene) and the groups touchbridge and uinput in place; remove them by hand if you want"

clean:
	rm -rf .build
