#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# stop-app.py: ask every running instance of the app APP_ID to quit (TERM),
# kill what is left of it after 5 seconds (KILL), and say when it is gone
# (docs/apps.md, docs/launching-apps.md).
#
#   python3 stop-app.py APP_ID

import signal
import sys

import gi

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402


def main(argv):
    if len(argv) != 2:
        print(f'Usage: {argv[0]} APP_ID', file=sys.stderr)
        return 2
    app_id = argv[1]
    status = 0

    try:
        # Its units in our systemd user manager: app-gnome-APP_ID-4242.scope,
        # app-flatpak-APP_ID-12.scope, app-APP_ID@1.service…
        paths = Procwatch.Cgroup.find_app_instances(app_id, None)
    except GLib.Error as error:
        print(f'Cannot find {app_id}: {error.message}', file=sys.stderr)
        return 1

    monitor = Procwatch.ProcessMonitor.new()
    instances = []
    for path in paths:
        try:
            instances.append(monitor.watch_cgroup(path))
        except GLib.Error as error:
            # Not found: that instance quit since it was found.
            if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND):
                print(f'Cannot watch {path}: {error.message}', file=sys.stderr)
                return 1
    if not instances:
        print(f'{app_id} is not running', file=sys.stderr)
        return 1

    loop = GLib.MainLoop()
    left = len(instances)

    def on_signalled(cgroup, result):
        nonlocal status
        try:
            cgroup.send_signal_finish(result)
        except GLib.Error as error:
            # Gone meanwhile is no failure: it is what we want.
            if not error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND):
                print(f'Cannot signal {cgroup.get_path()}: {error.message}', file=sys.stderr)
                status = 1

    def signal_all(signum):
        # Every process of every instance at once: none escapes by forking,
        # and no pid reused meanwhile is hit.
        for cgroup in instances:
            if cgroup.get_populated():
                cgroup.send_signal_async(signum, None, on_signalled)

    def on_grace_over():
        print(f'killing what is left of {app_id}', flush=True)
        signal_all(signal.SIGKILL)
        return GLib.SOURCE_REMOVE

    def on_empty(cgroup, result):
        nonlocal left, status
        try:
            cgroup.wait_empty_finish(result)
            print(f'{cgroup.get_path()} is empty', flush=True)
        except GLib.Error as error:
            print(f'Cannot wait for {cgroup.get_path()}: {error.message}', file=sys.stderr)
            status = 1
        left -= 1
        if left == 0:
            loop.quit()

    for cgroup in instances:
        print(f'stopping {cgroup.get_path()}', flush=True)
        cgroup.wait_empty_async(None, on_empty)
    signal_all(signal.SIGTERM)
    GLib.timeout_add_seconds(5, on_grace_over)

    loop.run()
    print(f'{app_id} is gone', flush=True)
    return status


if __name__ == '__main__':
    sys.exit(main(sys.argv))
