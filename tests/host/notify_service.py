#!/usr/bin/python3
"""A test notification service on the session bus in
$DBUS_SESSION_BUS_ADDRESS: org.freedesktop.Notifications, writing each
summary to argv[1], and org.example.Secret (Ping -> pong), a name the
sandbox must not reach. Writes argv[2] once both names are owned."""
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
bus = dbus.SessionBus()
notes = open(sys.argv[1], "a")


class Notifications(dbus.service.Object):
    @dbus.service.method("org.freedesktop.Notifications", in_signature="susssasa{sv}i",
                         out_signature="u")
    def Notify(self, app, replaces, icon, summary, body, actions, hints, timeout):
        notes.write(summary + "\n")
        notes.flush()
        return 1

    @dbus.service.method("org.freedesktop.Notifications", out_signature="ssss")
    def GetServerInformation(self):
        return ("asb-test", "agentsandbox", "1", "1.2")

    @dbus.service.method("org.freedesktop.Notifications", out_signature="as")
    def GetCapabilities(self):
        return ["body"]


class Secret(dbus.service.Object):
    @dbus.service.method("org.example.Secret", out_signature="s")
    def Ping(self):
        return "pong"


names = [dbus.service.BusName("org.freedesktop.Notifications", bus),
         dbus.service.BusName("org.example.Secret", bus)]
Notifications(bus, "/org/freedesktop/Notifications")
Secret(bus, "/x")
open(sys.argv[2], "w").write("ready\n")
GLib.MainLoop().run()
