# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# dbus-callers.py [ADDRESS]: a D-Bus service that keeps some state for each
# caller of its Hello method, and drops it when the caller's process exits
# (docs/dbus-callers.md). On the bus at ADDRESS, or the session bus; it
# quits once its callers have all quit.

import sys

import gi

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

INTERFACE = Gio.DBusNodeInfo.new_for_xml("""<node>
  <interface name='org.gioprocwatch.Example.Callers'>
    <method name='Hello'/>
  </interface>
</node>""").interfaces[0]


def main(argv):
    if len(argv) > 1:
        connection = Gio.DBusConnection.new_for_address_sync(
            argv[1],
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
    else:
        connection = Gio.bus_get_sync(Gio.BusType.SESSION, None)

    loop = GLib.MainLoop()
    monitor = Procwatch.ProcessMonitor.new()
    callers = {}  # Procwatch.Process -> what we keep for it

    def on_exited(monitor, process):
        if callers.pop(process, None) is None:
            return
        print(f'caller {process.get_pid()} has quit: its state is freed', flush=True)
        monitor.unwatch_process(process)
        if not callers:
            loop.quit()

    monitor.connect('exited', on_exited)

    def on_watched(monitor, result, invocation):
        try:
            process = monitor.watch_dbus_sender_finish(result)
        except GLib.Error as error:
            # Gone already (NameHasNoOwner), or the bus does not tell.
            invocation.return_gerror(error)
            return
        if process.props.state != Procwatch.ProcessState.RUNNING:
            invocation.return_dbus_error('org.freedesktop.DBus.Error.NameHasNoOwner',
                                         'The caller has exited')
            return
        callers[process] = {'sender': invocation.get_sender()}
        print(f'caller {process.get_pid()} said hello', flush=True)
        invocation.return_value(None)

    def on_method_call(connection, sender, path, interface, method, parameters, invocation):
        monitor.watch_dbus_sender_async(connection, sender, None, on_watched, invocation)

    connection.register_object('/', INTERFACE, on_method_call, None, None)
    print(connection.get_unique_name(), flush=True)
    loop.run()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
