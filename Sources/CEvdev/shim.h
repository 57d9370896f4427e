// libevdev (Debian: libevdev-dev), found through pkg-config.
#include <libevdev/libevdev.h>
#include <linux/input.h>
