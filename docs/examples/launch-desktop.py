#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# launch-desktop: start an app from its .desktop file as a launcher does,
# learning its pid from the launch itself, and say when it has quit and how
# (docs/launching-apps.md).
#
#   launch-desktop.py FILE.desktop

import sys

import gi

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

# GLib 2.80 moved DesktopAppInfo to GioUnix; Gio.DesktopAppInfo, all that
# GLib 2.74 has, is deprecated there.
try:
    gi.require_version('GioUnix', '2.0')
    from gi.repository import GioUnix  # noqa: E402
    DesktopAppInfo = GioUnix.DesktopAppInfo
except ValueError:
    DesktopAppInfo = Gio.DesktopAppInfo


def describe(process):
    if process.get_if_exited():
        return f'exit code {process.get_exit_status()}'
    if process.get_if_signaled():
        return f'killed by signal {process.get_term_sig()}'
    return 'status unknown'


def main(argv):
    if len(argv) != 2:
        print(f'Usage: {argv[0]} FILE.desktop', file=sys.stderr)
        return 2

    app = DesktopAppInfo.new_from_filename(argv[1])
    if app is None:
        print(f'{argv[1]} is no valid .desktop file', file=sys.stderr)
        return 1

    loop = GLib.MainLoop()
    monitor = Procwatch.ProcessMonitor.new()
    watched = []

    def on_exited(monitor, process):
        print(f'{app.get_name()} (process {process.get_pid()}) has quit', flush=True)

    def on_reaped(monitor, process):
        print(f'{app.get_name()} (process {process.get_pid()}) is gone: {describe(process)}',
              flush=True)
        watched.remove(process)
        if not watched:
            loop.quit()

    monitor.connect('exited', on_exited)
    monitor.connect('reaped', on_reaped)

    # Called once per process started, with its pid, before the launch
    # returns: watching it here cannot miss its exit.
    def on_pid(app, pid):
        try:
            watched.append(monitor.watch_pid(pid))
        except GLib.Error as error:
            # It quit, and its new parent collected it, before we could watch.
            if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND):
                print(f'{app.get_name()} (process {pid}) quit at once')
            else:
                print(f'Cannot watch {app.get_name()}: {error.message}', file=sys.stderr)
            return
        print(f'{app.get_name()} started as process {pid}', flush=True)

    # Called through the class: GioUnix (PyGObject 3.50) offers it as a
    # function taking the app first, not as a method of the app.
    try:
        DesktopAppInfo.launch_uris_as_manager(app, [], None, GLib.SpawnFlags.SEARCH_PATH,
                                              None, None, on_pid)
    except GLib.Error as error:
        print(f'Cannot start {app.get_name()}: {error.message}', file=sys.stderr)
        return 1

    if watched:
        loop.run()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
