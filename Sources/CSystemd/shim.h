// sd-bus (Debian libsystemd-dev): the system D-Bus, for `touchbridgectl follow-rotation iio`, which
// follows iio-sensor-proxy's accelerometer (README "Screen-aware").
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
// org.freedesktop.DBus.NameHasOwner(name): 1 when owned, 0 when not, negative on error.
static inline int csystemd_name_has_owner(sd_bus *bus, const char *name) {
    sd_bus_message *reply = NULL;
    int owned = 0;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
                               NULL, &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "b", &owned);
    sd_bus_message_unref(reply);
    return r < 0 ? r : owned;
}
// org.freedesktop.DBus.GetNameOwner(name): the unique name (":1.42") that owns `name`, in *out (free it);
// negative when nobody does.
static inline int csystemd_name_owner(sd_bus *bus, const char *name, char **out) {
    sd_bus_message *reply = NULL;
    const char *owner = NULL;
    *out = NULL;
    int r = sd_bus_call_method(bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner",
                               NULL, &reply, "s", name);
    if (r >= 0) r = sd_bus_message_read(reply, "s", &owner);
    if (r >= 0 && owner) *out = strdup(owner);
    sd_bus_message_unref(reply);
    return r < 0 ? r : (*out ? 0 : -ENOMEM);
}
