# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Real processes for the tests, and a main loop that cannot hang them.

import os
import subprocess

from gi.repository import GLib

HELPER = os.environ['PROCWATCH_TEST_HELPER']
TIMEOUT_SECONDS = 30


def run_until(predicate, what, timeout=TIMEOUT_SECONDS):
    """Iterates the default main context until predicate() holds; fails the
    test after a deadline instead of hanging."""
    context = GLib.MainContext.default()
    timed_out = []

    def on_timeout():
        timed_out.append(True)
        return GLib.SOURCE_REMOVE

    source_id = GLib.timeout_add_seconds(timeout, on_timeout)
    try:
        while not predicate() and not timed_out:
            context.iteration(True)
    finally:
        if not timed_out:
            GLib.source_remove(source_id)

    assert predicate(), f'timed out after {timeout} s waiting for {what}'


def drain():
    """Dispatches whatever is ready now, without blocking."""
    context = GLib.MainContext.default()
    while context.iteration(False):
        pass


class Helper:
    """A process of the helper program, which obeys commands on its stdin."""

    def __init__(self, mode, **kwargs):
        self.popen = subprocess.Popen([HELPER, mode], stdin=subprocess.PIPE, text=True,
                                      **kwargs)

    def send(self, command):
        self.popen.stdin.write(command + '\n')
        self.popen.stdin.flush()

    def exit(self, code):
        self.send(f'exit {code}')

    def kill(self, sig):
        self.send(f'kill {int(sig)}')


class Child(Helper):
    """A child of the test, reaped when the test says so."""

    def __init__(self):
        super().__init__('child')
        self.pid = self.popen.pid

    def reap(self):
        self.popen.stdin.close()
        return self.popen.wait(timeout=TIMEOUT_SECONDS)

    def close(self):
        if self.popen.returncode is None:
            self.popen.kill()
            self.popen.stdin.close()
            self.popen.wait()


class NonChild(Helper):
    """A grandchild of the test: its parent is a helper process that exits it
    and, separately, reaps it when the test says so."""

    def __init__(self):
        super().__init__('parent', stdout=subprocess.PIPE)
        self.pid = int(self.popen.stdout.readline())

    def reap(self):
        """Makes the parent reap the process; returns the wait status it got."""
        self.send('reap')
        return int(self.popen.stdout.readline())

    def close(self):
        self.popen.stdin.close()
        self.popen.wait(timeout=TIMEOUT_SECONDS)
        self.popen.stdout.close()


class Recorder:
    """Every signal of a monitor, with what the process said at the time."""

    def __init__(self, monitor):
        self.events = []
        monitor.connect('exited', self._on_event, 'exited')
        monitor.connect('reaped', self._on_event, 'reaped')

    def _on_event(self, monitor, process, name):
        self.events.append((name, process.get_pid(), process, process.props.state,
                            process.has_status()))

    def names(self, pid):
        return [event[0] for event in self.events if event[1] == pid]

    def find(self, pid, name):
        matching = [event for event in self.events if event[1] == pid and event[0] == name]
        assert len(matching) <= 1, f'"{name}" emitted {len(matching)} times for {pid}'
        return matching[0] if matching else None

    def wait_for(self, pid, name):
        run_until(lambda: self.find(pid, name) is not None, f'"{name}" of process {pid}')
        return self.find(pid, name)


