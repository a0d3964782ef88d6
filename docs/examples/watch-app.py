# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# watch-app.py PID: say when the process PID has quit, and when its app --
# every process of its cgroup, such as the systemd scope GNOME Shell starts
# each app in -- is gone (docs/apps.md).

import sys

import gi

gi.require_version('Procwatch', '1.0')
from gi.repository import GLib, Procwatch  # noqa: E402


def own_cgroup():
    with open('/proc/self/cgroup') as file:
        for line in file:
            if line.startswith('0::'):
                return line[3:].rstrip('\n')
    return None


def main(argv):
    if len(argv) != 2:
        print(f'Usage: {argv[0]} PID', file=sys.stderr)
        return 2

    loop = GLib.MainLoop()
    monitor = Procwatch.ProcessMonitor.new()
    monitor.connect('exited', lambda monitor, process:
                    print(f'process {process.get_pid()} has quit', flush=True))
    try:
        process = monitor.watch_pid(int(argv[1]))
        # The cgroup it was in when watching started.
        path = process.get_cgroup()
        # Not started in a scope of its own: its cgroup holds us too, and
        # would not be empty before we are gone.
        if path is None:
            print('No cgroup v2 here', file=sys.stderr)
            return 1
        if path == own_cgroup():
            print(f'The app of process {argv[1]} shares our cgroup {path}', file=sys.stderr)
            return 1
        cgroup = monitor.watch_cgroup(path)
    except GLib.Error as error:
        print(f'Cannot watch the app of process {argv[1]}: {error.message}', file=sys.stderr)
        return 1

    print(f'process {process.get_pid()} is in {cgroup.get_path()}', flush=True)

    def on_empty(cgroup, result):
        cgroup.wait_empty_finish(result)
        print(f'{cgroup.get_path()} is empty: the app is gone', flush=True)
        loop.quit()

    cgroup.wait_empty_async(None, on_empty)
    loop.run()
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
