// libevdev (Debian: libevdev-dev), found through pkg-config; its uinput half makes pass-through's mirrors.
#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <sys/ioctl.h>

/// UI_SET_PHYS on a /dev/uinput descriptor before the device is created (libevdev's uinput half does
/// not pass the phys on).
static inline int cevdev_uinput_set_phys(int fd, const char *phys) { return ioctl(fd, UI_SET_PHYS, phys); }
