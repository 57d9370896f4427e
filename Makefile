# TouchBridge — see README.md.
#   make test     install what is missing, build, run the tests
#   make run      build in release mode and run the daemon in the foreground (default scene)
#   make demo     replay a bundled real recording through the daemon's pipeline, print the gestures
#   make bench    release-mode benchmarks
#   make lab      the qemu hardware lab (real kernel evdev/uinput/udev)
#   make install / make uninstall

SWIFT      ?= swift
PREFIX     ?= /usr/local
DESTDIR    ?=
# Debian packages the build and the tests need (C libraries found through pkg-config, the
# command-line tools the integration tests drive).
DEPS       := pkg-config libevdev-dev libudev-dev socat python3 systemd
SWIFTFLAGS := -Xswiftc -warnings-as-errors

.PHONY: all deps build release test run demo bench lab install uninstall clean

all: build

# Installs the Debian packages that are missing (as root), or says which to install.
deps:
	@missing=""; for p in $(DEPS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing >/dev/null; \
	  else \
	    echo "missing Debian packages:$$missing — run: sudo apt-get install$$missing" >&2; exit 1; \
	  fi; \
	fi

build: deps
	$(SWIFT) build $(SWIFTFLAGS)

release: deps
	$(SWIFT) build -c release

test: deps
	$(SWIFT) build --build-tests $(SWIFTFLAGS)
	$(SWIFT) test --skip-build

clean:
	rm -rf .build
