// sd-bus (Debian libsystemd-dev): the system D-Bus, for `touchbridgectl follow-rotation iio`, which
// follows iio-sensor-proxy's accelerometer (docs/screen-aware.md), and the session bus, for
// `touchbridgectl follow-focus kwin|gnome` (docs/focus.md).
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-bus.h>

// sd_bus_message_read with one string ("s"): Swift cannot call C variadic functions.
static inline int csystemd_read_string(sd_bus_message *m, const char **out) { return sd_bus_message_read(m, "s", out); }
// The PropertiesChanged arguments up to the changed properties' array: the interface name.
static inline int csystemd_enter_changed(sd_bus_message *m, const char **interface) {
    int r = sd_bus_message_read(m, "s", interface);
    if (r < 0) return r;
    return sd_bus_message_enter_container(m, 'a', "{sv}");
}
static inline int csystemd_enter_entry(sd_bus_message *m) { return sd_bus_message_enter_container(m, 'e', "sv"); }
static inline int csystemd_enter_variant(sd_bus_message *m, const char *contents) { return sd_bus_message_enter_container(m, 'v', contents); }
// A method call without arguments, answered in *reply.
static inline int csystemd_call(sd_bus *bus, const char *dest, const char *path, const char *iface, const char *member,
                                sd_bus_error *error, sd_bus_message **reply) {
    return sd_bus_call_method(bus, dest, path, iface, member, error, reply, "");
}
// org.freedesktop.DBus.NameOwnerChanged's three strings.
static inline int csystemd_read_owner_changed(sd_bus_message *m, const char **name, const char **old_owner, const char **new_owner) {
    return sd_bus_message_read(m, "sss", name, old_owner, new_owner);
}
// Method calls answered later, in `callback` (sd-bus owns the slot: it is freed after the answer).
static inline int csystemd_call_async(sd_bus *bus, const char *dest, const char *path, const char *iface, const char *member,
                                      sd_bus_message_handler_t callback, void *userdata) {
    return sd_bus_call_method_async(bus, NULL, dest, path, iface, member, callback, userdata, "");
}
static inline int csystemd_call_async_s(sd_bus *bus, const char *dest, const char *path, const char *iface, const char *member,
                                        const char *a, sd_bus_message_handler_t callback, void *userdata) {
    return sd_bus_call_method_async(bus, NULL, dest, path, iface, member, callback, userdata, "s", a);
}
static inline int csystemd_call_async_ss(sd_bus *bus, const char *dest, const char *path, const char *iface, const char *member,
                                         const char *a, const char *b, sd_bus_message_handler_t callback, void *userdata) {
    return sd_bus_call_method_async(bus, NULL, dest, path, iface, member, callback, userdata, "ss", a, b);
}
// A body of two strings ("ss"), of one 32-bit integer ("i").
static inline int csystemd_read_ss(sd_bus_message *m, const char **a, const char **b) { return sd_bus_message_read(m, "ss", a, b); }
static inline int csystemd_read_int(sd_bus_message *m, int32_t *v) { return sd_bus_message_read(m, "i", v); }
// Answers to a method call: nothing, or an error.
static inline int csystemd_reply_empty(sd_bus_message *call) { return sd_bus_reply_method_return(call, ""); }
static inline int csystemd_reply_error(sd_bus_message *call, const char *name, const char *message) {
    sd_bus_error e = SD_BUS_ERROR_MAKE_CONST(name, message);
    return sd_bus_reply_method_error(call, &e);
}
// A method call with one string argument, answered in *reply (waits: for a last word at exit only).
static inline int csystemd_call_s(sd_bus *bus, const char *dest, const char *path, const char *iface, const char *member,
                                  const char *a, sd_bus_error *error, sd_bus_message **reply) {
    return sd_bus_call_method(bus, dest, path, iface, member, error, reply, "s", a);
}
