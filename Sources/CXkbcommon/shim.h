// libxkbcommon (Debian libxkbcommon-dev): keymaps compiled from RMLVO names, so that a keysym in a
// scene's "keys" action becomes the key codes the user's layout types it with (README "Actions").
#include <xkbcommon/xkbcommon.h>
