#!/usr/bin/env python3
"""A stand-in for KWin's scripting on a private session bus, for the follow-focus tests: it owns
org.kde.KWin and serves /Scripting (org.kde.kwin.Scripting: loadScript(ss) → i, unloadScript(s) → b)
and /Scripting/Script<id> (org.kde.kwin.Script: run(), stop()), as KWin 6 does. Running a script runs
the file with node (kwin_script_host.js), which gives it KWin's `workspace` and `callDBus`; each callDBus
is made from this connection, the owner of org.kde.KWin, as KWin makes it. What happens is noted in LOG.

    DBUS_SESSION_BUS_ADDRESS=… mock_kwin.py LOG API APP TITLE     (API 6 or 5; the window active at start)
    mock_kwin.py --activate ADDRESS APP TITLE                      (a window takes the focus)
    mock_kwin.py --retitle ADDRESS TITLE                           (the active window's caption changes)
    mock_kwin.py --forge ADDRESS CALLEE APP TITLE                  (another connection calls the follower
                                                                    as the script does: an attacker)
"""
import json
import os
import subprocess
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.kde.KWin"
HOST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "kwin_script_host.js")


class Script(dbus.service.Object):
    def __init__(self, kwin, id_, path, plugin):
        super().__init__(kwin.bus, "/Scripting/Script%d" % id_)
        self.kwin, self.id, self.path, self.plugin, self.host = kwin, id_, path, plugin, None

    @dbus.service.method("org.kde.kwin.Script")
    def run(self):
        self.kwin.note("run %d %s" % (self.id, self.plugin))
        self.host = subprocess.Popen(["node", HOST, self.path, self.kwin.api, self.kwin.app, self.kwin.title],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        GLib.io_add_watch(self.host.stdout, GLib.IO_IN | GLib.IO_HUP, self.called)

    @dbus.service.method("org.kde.kwin.Script")
    def stop(self):
        self.end()

    def end(self):
        if self.host and self.host.poll() is None:
            self.host.terminate()
            self.host.wait(10)
        self.remove_from_connection()

    def called(self, source, condition):
        line = source.readline()
        if not line:
            return False
        c = json.loads(line)
        self.kwin.note("callDBus %s %s %s" % (c["service"], c["method"], json.dumps(c["args"])))
        try:
            self.kwin.bus.get_object(c["service"], c["path"], introspect=False).get_dbus_method(c["method"], c["iface"])(
                *c["args"], reply_handler=lambda *a: None, error_handler=lambda e: self.kwin.note("error " + e.get_dbus_name()))
        except dbus.DBusException as e:
            self.kwin.note("error " + e.get_dbus_name())
        return True

    def send(self, message):
        if self.host and self.host.poll() is None:
            self.host.stdin.write(json.dumps(message) + "\n")


class KWin(dbus.service.Object):
    def __init__(self, bus, log, api, app, title):
        super().__init__(bus, "/Scripting")
        self.bus, self.log, self.api, self.app, self.title = bus, log, api, app, title
        self.scripts, self.next = {}, 0
        self.test = Test(self)

    def note(self, what):
        with open(self.log, "a") as f:
            f.write(what + "\n")

    @dbus.service.method("org.kde.kwin.Scripting", in_signature="ss", out_signature="i")
    def loadScript(self, path, plugin):
        if plugin in self.scripts:
            return -1
        self.note("load %s %s" % (plugin, path))
        s = Script(self, self.next, path, plugin)
        self.next += 1
        self.scripts[plugin] = s
        return s.id

    @dbus.service.method("org.kde.kwin.Scripting", in_signature="s", out_signature="b")
    def unloadScript(self, plugin):
        s = self.scripts.pop(plugin, None)
        if s is None:
            return False
        self.note("unload " + plugin)
        s.end()
        return True


class Test(dbus.service.Object):
    """The tests' handle on the stand-in (not KWin's): the user clicking windows."""

    def __init__(self, kwin):
        super().__init__(kwin.bus, "/Mock")
        self.kwin = kwin

    @dbus.service.method("org.kde.KWin.Mock", in_signature="ss")
    def Activate(self, app, title):
        self.kwin.app, self.kwin.title = app, title
        for s in self.kwin.scripts.values():
            s.send({"activate": [app, title]})

    @dbus.service.method("org.kde.KWin.Mock", in_signature="s")
    def Retitle(self, title):
        self.kwin.title = title
        for s in self.kwin.scripts.values():
            s.send({"retitle": title})


def main():
    if sys.argv[1] in ("--activate", "--retitle"):
        bus = dbus.bus.BusConnection(sys.argv[2])
        mock = bus.get_object(NAME, "/Mock")
        if sys.argv[1] == "--activate":
            mock.Activate(sys.argv[3], sys.argv[4], dbus_interface="org.kde.KWin.Mock")
        else:
            mock.Retitle(sys.argv[3], dbus_interface="org.kde.KWin.Mock")
        bus.close()
        return
    if sys.argv[1] == "--forge":
        bus = dbus.bus.BusConnection(sys.argv[2])
        print(bus.get_unique_name())
        try:
            bus.get_object(sys.argv[3], "/org/touchbridge/FollowFocus", introspect=False).WindowActivated(
                sys.argv[4], sys.argv[5], dbus_interface="org.touchbridge.FollowFocus")
            print("accepted")
        except dbus.DBusException as e:
            print(e.get_dbus_name())
        bus.close()
        return
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    kwin = KWin(bus, *sys.argv[1:5])
    _name = dbus.service.BusName(NAME, bus)    # noqa: F841  (owned while it lives)
    kwin.note("ready")
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
