// See include/tb_wlr_toplevel.h.
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <wayland-client.h>

#include "tb_wlr_toplevel.h"
#include "wlr-foreign-toplevel-management-unstable-v1-client-protocol.h"

// One toplevel: what its events said since its last `done` (pending), applied at `done`.
struct toplevel {
    struct zwlr_foreign_toplevel_handle_v1 *handle;
    struct tb_wlr *owner;
    uint32_t id;
    char *app_id, *title;
    int activated;
    struct toplevel *next;
};

struct tb_wlr {
    struct wl_display *display;
    struct wl_registry *registry;
    struct zwlr_foreign_toplevel_manager_v1 *manager;
    uint32_t manager_name, manager_version;
    int finished;
    struct toplevel *toplevels;
    tb_wlr_done_fn done;
    tb_wlr_closed_fn closed;
    void *context;
};

static void replace(char **field, const char *value) {
    free(*field);
    *field = strdup(value ? value : "");
}

static void handle_title(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, const char *title) {
    (void)h;
    replace(&((struct toplevel *)data)->title, title);
}

static void handle_app_id(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, const char *app_id) {
    (void)h;
    replace(&((struct toplevel *)data)->app_id, app_id);
}

static void handle_output(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_output *o) {
    (void)data; (void)h; (void)o;
}

static void handle_state(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct wl_array *state) {
    (void)h;
    struct toplevel *t = data;
    t->activated = 0;
    uint32_t *s;
    wl_array_for_each(s, state) {
        if (*s == ZWLR_FOREIGN_TOPLEVEL_HANDLE_V1_STATE_ACTIVATED) t->activated = 1;
    }
}

static void handle_done(void *data, struct zwlr_foreign_toplevel_handle_v1 *h) {
    (void)h;
    struct toplevel *t = data;
    t->owner->done(t->owner->context, t->id, t->app_id ? t->app_id : "", t->title ? t->title : "", t->activated);
}

static void forget(struct tb_wlr *w, struct toplevel *t) {
    for (struct toplevel **p = &w->toplevels; *p; p = &(*p)->next) {
        if (*p == t) { *p = t->next; break; }
    }
    zwlr_foreign_toplevel_handle_v1_destroy(t->handle);
    free(t->app_id);
    free(t->title);
    free(t);
}

static void handle_closed(void *data, struct zwlr_foreign_toplevel_handle_v1 *h) {
    (void)h;
    struct toplevel *t = data;
    struct tb_wlr *w = t->owner;
    uint32_t id = t->id;
    forget(w, t);
    w->closed(w->context, id);
}

static void handle_parent(void *data, struct zwlr_foreign_toplevel_handle_v1 *h, struct zwlr_foreign_toplevel_handle_v1 *parent) {
    (void)data; (void)h; (void)parent;
}

static const struct zwlr_foreign_toplevel_handle_v1_listener toplevel_listener = {
    .title = handle_title,
    .app_id = handle_app_id,
    .output_enter = handle_output,
    .output_leave = handle_output,
    .state = handle_state,
    .done = handle_done,
    .closed = handle_closed,
    .parent = handle_parent,
};

static void manager_toplevel(void *data, struct zwlr_foreign_toplevel_manager_v1 *m, struct zwlr_foreign_toplevel_handle_v1 *handle) {
    (void)m;
    struct tb_wlr *w = data;
    struct toplevel *t = calloc(1, sizeof *t);
    if (!t) {
        zwlr_foreign_toplevel_handle_v1_destroy(handle);
        return;
    }
    t->handle = handle;
    t->owner = w;
    t->id = wl_proxy_get_id((struct wl_proxy *)handle);
    t->next = w->toplevels;
    w->toplevels = t;
    zwlr_foreign_toplevel_handle_v1_add_listener(handle, &toplevel_listener, t);
}

static void manager_finished(void *data, struct zwlr_foreign_toplevel_manager_v1 *m) {
    (void)m;
    ((struct tb_wlr *)data)->finished = 1;
}

static const struct zwlr_foreign_toplevel_manager_v1_listener manager_listener = {
    .toplevel = manager_toplevel,
    .finished = manager_finished,
};

static void registry_global(void *data, struct wl_registry *r, uint32_t name, const char *interface, uint32_t version) {
    (void)r;
    struct tb_wlr *w = data;
    if (strcmp(interface, zwlr_foreign_toplevel_manager_v1_interface.name) == 0 && !w->manager_name) {
        w->manager_name = name;
        w->manager_version = version;
    }
}

static void registry_global_remove(void *data, struct wl_registry *r, uint32_t name) {
    (void)data; (void)r; (void)name;
}

static const struct wl_registry_listener registry_listener = {
    .global = registry_global,
    .global_remove = registry_global_remove,
};

tb_wlr *tb_wlr_connect(const char *display, tb_wlr_done_fn done, tb_wlr_closed_fn closed, void *context, int *error) {
    struct tb_wlr *w = calloc(1, sizeof *w);
    if (!w) { *error = TB_WLR_FAILED; return NULL; }
    w->done = done;
    w->closed = closed;
    w->context = context;
    w->display = wl_display_connect(display);
    if (!w->display) { *error = TB_WLR_NO_DISPLAY; free(w); return NULL; }
    w->registry = wl_display_get_registry(w->display);
    wl_registry_add_listener(w->registry, &registry_listener, w);
    if (wl_display_roundtrip(w->display) < 0) { *error = TB_WLR_FAILED; tb_wlr_disconnect(w); return NULL; }
    if (!w->manager_name) { *error = TB_WLR_NO_MANAGER; tb_wlr_disconnect(w); return NULL; }
    uint32_t version = w->manager_version < 3 ? w->manager_version : 3;
    w->manager = wl_registry_bind(w->registry, w->manager_name, &zwlr_foreign_toplevel_manager_v1_interface, version);
    zwlr_foreign_toplevel_manager_v1_add_listener(w->manager, &manager_listener, w);
    // The toplevels open now, then their initial state (sent right after each toplevel event).
    if (wl_display_roundtrip(w->display) < 0 || wl_display_roundtrip(w->display) < 0) {
        *error = TB_WLR_FAILED;
        tb_wlr_disconnect(w);
        return NULL;
    }
    return w;
}

int tb_wlr_fd(tb_wlr *w) { return wl_display_get_fd(w->display); }

int tb_wlr_dispatch(tb_wlr *w) {
    // The read pattern of wayland-client(3): events already queued first, then what the socket has.
    while (wl_display_prepare_read(w->display) != 0) {
        if (wl_display_dispatch_pending(w->display) < 0) return -1;
    }
    if (wl_display_read_events(w->display) < 0) return -1;
    if (wl_display_dispatch_pending(w->display) < 0) return -1;
    if (tb_wlr_flush(w) < 0) return -1;
    return w->finished ? -1 : 0;
}

int tb_wlr_flush(tb_wlr *w) {
    return wl_display_flush(w->display) < 0 && errno != EAGAIN ? -1 : 0;
}

void tb_wlr_disconnect(tb_wlr *w) {
    if (!w) return;
    while (w->toplevels) forget(w, w->toplevels);
    if (w->manager) {
        if (!w->finished) zwlr_foreign_toplevel_manager_v1_stop(w->manager);
        zwlr_foreign_toplevel_manager_v1_destroy(w->manager);
    }
    if (w->registry) wl_registry_destroy(w->registry);
    if (w->display) {
        wl_display_flush(w->display);
        wl_display_disconnect(w->display);
    }
    free(w);
}
