#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors

import os
import signal
import sys

import gi
gi.require_version('Procwatch', '1.0')
from gi.repository import GLib, Procwatch

pid = int(sys.argv[1])

# From here on the pidfd is this one process, whatever becomes of the number.
pidfd = os.pidfd_open(pid)

# Check that it is the process you mean, then that the pidfd's process is
# still there: if it is, the pid was still its, and so was what /proc said.
with open(f'/proc/{pid}/comm') as file:
    name = file.read().rstrip('\n')
signal.pidfd_send_signal(pidfd, 0)  # ProcessLookupError if reaped meanwhile

loop = GLib.MainLoop()
monitor = Procwatch.ProcessMonitor.new()
monitor.connect('reaped', lambda monitor, process: loop.quit())

process = monitor.watch_pidfd(pidfd)
os.close(pidfd)  # the monitor keeps a duplicate of its own

print(f'watching {name} ({process.get_pid()})', flush=True)
loop.run()
print(f'{name} ({process.get_pid()}) is gone', flush=True)
