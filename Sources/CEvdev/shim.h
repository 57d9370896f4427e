// libevdev (Debian: libevdev-dev), found through pkg-config; its uinput half makes pass-through's mirrors.
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
