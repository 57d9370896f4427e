#!/usr/bin/env python3
"""A stand-in for iio-sensor-proxy on a private bus, for the follow-rotation tests: it owns
net.hadess.SensorProxy, answers ClaimAccelerometer and ReleaseAccelerometer (noting who called, in the
file given), has the AccelerometerOrientation property, and emits PropertiesChanged when a test calls its
own net.hadess.SensorProxy.Mock.SetOrientation(s).

    DBUS_SESSION_BUS_ADDRESS=… mock_sensor_proxy.py LOG [ORIENTATION]
    mock_sensor_proxy.py --set ADDRESS ORIENTATION          (a test turning the device)
    mock_sensor_proxy.py --forge ADDRESS ORIENTATION        (another connection emitting the owner's
                                                             PropertiesChanged: an attacker on the bus)
"""
import sys

import dbus
import dbus.lowlevel
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME, PATH, IFACE = "net.hadess.SensorProxy", "/net/hadess/SensorProxy", "net.hadess.SensorProxy"
PROPS = "org.freedesktop.DBus.Properties"


class Proxy(dbus.service.Object):
    def __init__(self, bus, log, orientation):
        super().__init__(bus, PATH)
        self.log = log
        self.orientation = orientation

    def note(self, what):
        with open(self.log, "a") as f:
            f.write(what + "\n")

    @dbus.service.method(IFACE, sender_keyword="sender")
    def ClaimAccelerometer(self, sender=None):
        self.note("claim " + sender)

    @dbus.service.method(IFACE, sender_keyword="sender")
    def ReleaseAccelerometer(self, sender=None):
        self.note("release " + sender)

    @dbus.service.method(PROPS, in_signature="ss", out_signature="v")
    def Get(self, interface, name):
        return self.GetAll(interface)[name]

    @dbus.service.method(PROPS, in_signature="s", out_signature="a{sv}")
    def GetAll(self, interface):
        return {"HasAccelerometer": dbus.Boolean(True), "AccelerometerOrientation": dbus.String(self.orientation)}

    @dbus.service.signal(PROPS, signature="sa{sv}as")
    def PropertiesChanged(self, interface, changed, invalidated):
        pass

    @dbus.service.method(IFACE + ".Mock", in_signature="s")
    def SetOrientation(self, orientation):
        self.orientation = orientation
        self.PropertiesChanged(IFACE, {"AccelerometerOrientation": dbus.String(orientation)}, [])


def main():
    if sys.argv[1] == "--forge":
        # The proxy's signal, path, interface and all, sent by a connection that does not own its name.
        bus = dbus.bus.BusConnection(sys.argv[2])
        m = dbus.lowlevel.SignalMessage(PATH, PROPS, "PropertiesChanged")
        m.append(IFACE, {"AccelerometerOrientation": dbus.String(sys.argv[3])}, dbus.Array([], signature="s"), signature="sa{sv}as")
        bus.send_message(m)
        bus.flush()
        print(bus.get_unique_name())
        bus.close()
        return
    if sys.argv[1] == "--set":
        bus = dbus.bus.BusConnection(sys.argv[2])
        bus.get_object(NAME, PATH).SetOrientation(sys.argv[3], dbus_interface=IFACE + ".Mock")
        bus.close()
        return
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    proxy = Proxy(bus, sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "normal")
    _name = dbus.service.BusName(NAME, bus)    # noqa: F841  (owned while it lives)
    proxy.note("ready")
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
