// The wlr foreign toplevel protocol (zwlr_foreign_toplevel_manager_v1, wlr-protocols), for
// `touchbridgectl follow-focus wlr` (docs/focus.md): which toplevel window has the `activated` state.
// libwayland-client does the protocol; the marshalling code is wayland-scanner's, made from the XML in
// protocol/ (make wayland-protocols makes it again; Tests/integration/test_focus_follow.py checks it is
// what the scanner makes). This shim wires the listeners, which Swift cannot fill with C function
// pointers of this shape, and double-buffers each toplevel's state until its `done`.
#ifndef TB_WLR_TOPLEVEL_H
#define TB_WLR_TOPLEVEL_H

#include <stdint.h>

typedef struct tb_wlr tb_wlr;

// A toplevel's state as of its `done` event: app id and title ("" when not sent), and whether it is
// activated (has the keyboard focus).
typedef void (*tb_wlr_done_fn)(void *context, uint32_t id, const char *app_id, const char *title, int activated);
// The toplevel is gone (closed).
typedef void (*tb_wlr_closed_fn)(void *context, uint32_t id);

enum tb_wlr_error {
    TB_WLR_NO_DISPLAY = 1,     // cannot connect to the Wayland display (errno says why)
    TB_WLR_NO_MANAGER = 2,     // the compositor offers no zwlr_foreign_toplevel_manager_v1
    TB_WLR_FAILED = 3,         // the connection failed during the first round trips
};

// Connects to `display` (NULL: $WAYLAND_DISPLAY), binds the manager and reads the toplevels open now
// (their `done` callbacks come before this returns). NULL and *error set when it cannot.
tb_wlr *tb_wlr_connect(const char *display, tb_wlr_done_fn done, tb_wlr_closed_fn closed, void *context, int *error);
// The connection's descriptor, to watch for input.
int tb_wlr_fd(tb_wlr *w);
// Reads and dispatches what arrived (call when the descriptor is readable); -1 when the connection is
// gone or the compositor stopped the manager (`finished`).
int tb_wlr_dispatch(tb_wlr *w);
// Sends what waits; -1 when the connection is gone.
int tb_wlr_flush(tb_wlr *w);
// Stops the manager, destroys every handle and disconnects.
void tb_wlr_disconnect(tb_wlr *w);

#endif
