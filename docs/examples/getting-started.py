#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors

import sys

import gi
gi.require_version('Procwatch', '1.0')
from gi.repository import GLib, Procwatch


def on_exited(monitor, process):
    print(f'{process.get_pid()} exited', flush=True)


def on_reaped(monitor, process):
    pid = process.get_pid()
    if process.get_if_exited():
        print(f'{pid} reaped: exit code {process.get_exit_status()}', flush=True)
    elif process.get_if_signaled():
        print(f'{pid} reaped: killed by signal {process.get_term_sig()}', flush=True)
    else:
        print(f'{pid} reaped: status unknown', flush=True)
    loop.quit()


if len(sys.argv) != 2:
    sys.exit(f'Usage: {sys.argv[0]} PID')

loop = GLib.MainLoop()
monitor = Procwatch.ProcessMonitor.new()
monitor.connect('exited', on_exited)
monitor.connect('reaped', on_reaped)

try:
    process = monitor.watch_pid(int(sys.argv[1]))
except GLib.Error as error:
    sys.exit(error.message)

print(f'watching {process.get_pid()} with the {monitor.get_backend()} backend', flush=True)
loop.run()
