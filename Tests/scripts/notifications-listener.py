#!/usr/bin/env python3
"""A desktop notification service for tests: owns org.freedesktop.Notifications on the
session bus named by DBUS_SESSION_BUS_ADDRESS (a private dbus-daemon of the test's own),
says "ready" once it does, and prints one JSON line per Notify call. dbus-next, from PyPI,
in the virtual environment Tests/scripts/test-deps.sh makes: the client side (notify-send,
libnotify) is Debian's, so the two ends are independent of each other and of nexusctl."""
import asyncio
import json
import sys

from dbus_next.aio import MessageBus
from dbus_next.service import ServiceInterface, method


class Notifications(ServiceInterface):
    def __init__(self):
        super().__init__("org.freedesktop.Notifications")
        self.count = 0

    @method()
    def Notify(self, app_name: "s", replaces_id: "u", app_icon: "s", summary: "s", body: "s",
               actions: "as", hints: "a{sv}", expire_timeout: "i") -> "u":
        self.count += 1
        print(json.dumps({"app": app_name, "summary": summary, "body": body}), flush=True)
        return self.count

    @method()
    def GetCapabilities(self) -> "as":
        return ["body"]

    @method()
    def GetServerInformation(self) -> "ssss":
        return ["nexus-test", "nexus", "1", "1.2"]

    @method()
    def CloseNotification(self, id: "u"):
        pass


async def main():
    bus = await MessageBus().connect()
    bus.export("/org/freedesktop/Notifications", Notifications())
    await bus.request_name("org.freedesktop.Notifications")
    print("ready", flush=True)
    await bus.wait_for_disconnect()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
