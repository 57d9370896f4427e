#!/usr/bin/env python3
"""A stand-in for GNOME Shell with the TouchBridge focus extension enabled, on a private session bus,
for the follow-focus tests: it owns org.gnome.Shell and serves what the extension
(gnome-shell/touchbridge-focus@touchbridge/extension.js) exports on the shell's connection:
/org/touchbridge/Focus, org.touchbridge.Focus: Get() → (ss), and the signal FocusChanged(ss).

    DBUS_SESSION_BUS_ADDRESS=… mock_gnome_shell.py LOG APP TITLE [--no-extension]
    mock_gnome_shell.py --focus ADDRESS APP TITLE          (a window takes the focus: FocusChanged)
    mock_gnome_shell.py --forge ADDRESS APP TITLE          (another connection emits FocusChanged: an attacker)
"""
import sys

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME, PATH, IFACE = "org.gnome.Shell", "/org/touchbridge/Focus", "org.touchbridge.Focus"


class Extension(dbus.service.Object):
    def __init__(self, bus, app, title):
        super().__init__(bus, PATH)
        self.app, self.title = app, title

    @dbus.service.method(IFACE, out_signature="ss")
    def Get(self):
        return self.app, self.title

    @dbus.service.signal(IFACE, signature="ss")
    def FocusChanged(self, app, title):
        pass

    @dbus.service.method(IFACE + ".Mock", in_signature="ss")
    def Focus(self, app, title):
        self.app, self.title = app, title
        self.FocusChanged(app, title)


def main():
    if sys.argv[1] == "--focus":
        bus = dbus.bus.BusConnection(sys.argv[2])
        bus.get_object(NAME, PATH).Focus(sys.argv[3], sys.argv[4], dbus_interface=IFACE + ".Mock")
        bus.close()
        return
    if sys.argv[1] == "--forge":
        bus = dbus.bus.BusConnection(sys.argv[2])
        m = dbus.lowlevel.SignalMessage(PATH, IFACE, "FocusChanged")
        m.append(sys.argv[3], sys.argv[4], signature="ss")
        bus.send_message(m)
        bus.flush()
        print(bus.get_unique_name())
        bus.close()
        return
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    if "--no-extension" not in sys.argv:
        _extension = Extension(bus, sys.argv[2], sys.argv[3])    # noqa: F841
    _name = dbus.service.BusName(NAME, bus)    # noqa: F841  (owned while it lives)
    with open(sys.argv[1], "a") as f:
        f.write("ready\n")
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
