#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# launcher: start a program the way a desktop launcher does, say when it
# has quit and how, and stop it on Ctrl-C.
#
#   launcher.py COMMAND [ARGUMENT...]
#
# Gio.AppInfo.launch() does not leave the program as our child: GLib forks
# twice, so it is reparented to the session's reaper (systemd --user, init).
# GLib.child_watch_add() cannot serve that case; a Procwatch.ProcessMonitor
# can, and it learns the exit status once the process has been reaped
# (Linux 6.15 and newer).
#
# The launcher holds each app by its Procwatch.Process, never by its pid: it
# waits for it and signals it through the object, so that neither can reach
# another process that got the pid after the app was reaped.

import signal
import sys

import gi

gi.require_version('Gio', '2.0')
gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402


def describe(process):
    if process.get_if_exited():
        return f'exit code {process.get_exit_status()}'
    if process.get_if_signaled():
        return f'killed by signal {process.get_term_sig()}'
    return 'status unknown'


class Launcher:
    def __init__(self):
        self.loop = GLib.MainLoop()
        self.names = {}    # Procwatch.Process → the name of its app, until reaped
        self.failed = False

        self.monitor = Procwatch.ProcessMonitor.new()
        self.monitor.connect('reaped', self.on_reaped)

        # Ctrl-C (or SIGTERM) stops the apps rather than the launcher alone.
        for signum in (signal.SIGINT, signal.SIGTERM):
            GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signum, self.on_interrupt)

        # Apps launched through this context report their pid in "launched"
        # (apps started over D-Bus activation have none to report).
        self.context = Gio.AppLaunchContext()
        self.context.connect('launched', self.on_launched)

    def launch(self, argv):
        commandline = ' '.join(GLib.shell_quote(arg) for arg in argv)
        app = Gio.AppInfo.create_from_commandline(commandline, GLib.path_get_basename(argv[0]),
                                                  Gio.AppInfoCreateFlags.NONE)
        try:
            app.launch([], self.context)
        except GLib.Error as error:
            print(f'Cannot start {argv[0]}: {error.message}', file=sys.stderr)
            self.failed = True

    def on_launched(self, context, app, platform_data):
        pid = platform_data.unpack().get('pid', 0)
        if pid <= 0:
            return

        try:
            process = self.monitor.watch_pid(pid)
        except GLib.Error as error:
            # It quit, and its new parent collected it, before we could watch.
            if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND):
                print(f'{app.get_name()} (process {pid}) quit at once')
            else:
                print(f'Cannot watch {app.get_name()}: {error.message}', file=sys.stderr)
                self.failed = True
            return

        self.names[process] = app.get_name()
        print(f'{app.get_name()} started as process {pid}', flush=True)
        process.wait_async(None, self.on_quit)

    def on_quit(self, process, result):
        try:
            process.wait_finish(result)
        except GLib.Error as error:
            # Cancelled: the process stopped being watched before it quit.
            print(f'Cannot wait for {self.names[process]}: {error.message}', file=sys.stderr)
            self.failed = True
            return
        print(f'{self.names[process]} (process {process.get_pid()}) has quit', flush=True)

    def on_interrupt(self):
        for process, name in self.names.items():
            try:
                process.send_signal(signal.SIGTERM)
            except GLib.Error as error:
                # It has quit already: "has quit" is printed, or on its way.
                if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND):
                    print(f'Cannot stop {name}: {error.message}', file=sys.stderr)
                    self.failed = True
                continue
            print(f'stopping {name} (process {process.get_pid()})', flush=True)
        return GLib.SOURCE_CONTINUE

    def on_reaped(self, monitor, process):
        name = self.names.pop(process)
        print(f'{name} (process {process.get_pid()}) is gone: {describe(process)}', flush=True)
        if not self.names:
            self.loop.quit()

    def run(self):
        if self.names:
            self.loop.run()
        return 1 if self.failed else 0


def main(argv):
    if len(argv) < 2:
        print(f'Usage: {argv[0]} COMMAND [ARGUMENT...]', file=sys.stderr)
        return 2

    launcher = Launcher()
    launcher.launch(argv[1:])
    return launcher.run()


if __name__ == '__main__':
    sys.exit(main(sys.argv))
