// libudev (Debian: libudev-dev), found through pkg-config.
#include <libudev.h>
