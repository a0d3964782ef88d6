# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# The end of an object Python let go of while the monitor still holds it:
# PyGObject then keeps the wrapper by a toggle reference, and the monitor
# letting go of the object frees the wrapper and runs Python code (a
# weakref's callback), which may call back into the monitor as a handler
# may (docs/threads.md, "What a handler may do"). And a handler that
# forks: nothing more happens in the child.

import gc
import os
import signal
import weakref

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import Child, run_until  # noqa: E402


class Farewell:
    """A weakref to a process object nothing else in Python holds; its
    callback, run when the monitor lets go of the object, watches another
    process and reads the list model."""

    def __init__(self, monitor, process, other_pid):
        self.monitor = monitor
        self.other_pid = other_pid
        self.pid = process.get_pid()
        self.watched = []
        self.listed = None
        # An attribute of its own makes PyGObject hold the wrapper by a
        # toggle reference: it lives on while the object has others.
        process.tag = 'held by the monitor alone'
        self.ref = weakref.ref(process, self._on_gone)

    def _on_gone(self, ref):
        self.listed = [self.monitor.get_item(i).get_pid()
                       for i in range(self.monitor.get_n_items())]
        try:
            self.watched.append(self.monitor.watch_pid(self.other_pid))
        except GLib.Error as error:
            self.watched.append(error)

    def assert_watched_other(self):
        assert len(self.watched) == 1, 'the callback ran once'
        assert isinstance(self.watched[0], Procwatch.Process)
        assert self.watched[0].get_pid() == self.other_pid
        assert self.pid not in self.listed


def farewell(monitor, target, other):
    process = monitor.watch_pid(target.pid)
    held = Farewell(monitor, process, other.pid)
    del process
    gc.collect()
    assert held.ref() is not None, 'the monitor holds the object, and it the wrapper'
    assert held.watched == []
    return held


@pytest.fixture
def changes(monitor):
    """Every "items-changed": with a handler connected, the monitor emits
    it, and from inside the callback's watch_pid () too."""
    seen = []
    monitor.connect('items-changed',
                    lambda model, position, removed, added: seen.append((position, removed, added)))
    return seen


@pytest.mark.parametrize('by', ['pid', 'object'])
def test_unwatch_lets_go(monitor, processes, changes, by):
    target = processes(Child)
    other = processes(Child)
    held = farewell(monitor, target, other)

    if by == 'pid':
        assert monitor.unwatch(target.pid)
    else:
        assert monitor.unwatch_process(held.ref())

    held.assert_watched_other()
    assert held.ref() is None
    assert changes == [(0, 0, 1), (0, 1, 0), (0, 0, 1)]


def test_close_lets_go(monitor, processes, changes):
    target = processes(Child)
    other = processes(Child)
    held = farewell(monitor, target, other)

    monitor.close()

    assert len(held.watched) == 1
    assert isinstance(held.watched[0], GLib.Error)
    assert held.watched[0].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CLOSED)
    assert held.listed == [], 'the list is emptied before anything goes'


def test_reap_lets_go(monitor, processes, changes):
    target = processes(Child)
    other = processes(Child)
    held = farewell(monitor, target, other)

    target.exit(0)
    target.reap()
    run_until(lambda: held.watched, 'the object to go after its reap')

    held.assert_watched_other()


def test_handler_drops_last_reference(monitor, processes, changes):
    """An "exited" handler unwatches a process Python holds only weakly:
    the callback runs inside the handler's call, and may watch."""
    trigger = processes(Child)
    target = processes(Child)
    other = processes(Child)
    held = farewell(monitor, target, other)
    unwatched = []

    def on_exited(monitor, process):
        if process.get_pid() == trigger.pid:
            unwatched.append(monitor.unwatch(target.pid))

    monitor.connect('exited', on_exited)
    monitor.watch_pid(trigger.pid)
    trigger.exit(0)
    run_until(lambda: unwatched, 'the "exited" handler')

    assert unwatched == [True]
    held.assert_watched_other()


FORK_BATCH = 6


def test_fork_in_handler(monitor, processes):
    """os.fork () in an "exited" handler while six exits wait in one batch:
    the child writes a byte to the parent for every callout it sees, then
    'E' from the first idle of its main loop, and exits."""
    targets = [processes(Child) for _ in range(FORK_BATCH)]
    read_end, write_end = os.pipe()
    state = {'forked': None, 'in_child': False, 'exited': 0, 'waits': 0}

    def seen_in_child(byte):
        if state['in_child']:
            os.write(write_end, byte)
        return state['in_child']

    def on_child_idle():
        os.write(write_end, b'E')
        os._exit(0)

    def on_exited(monitor, process):
        if seen_in_child(b'x'):
            return
        state['exited'] += 1
        if state['forked'] is not None:
            return
        state['forked'] = os.fork()
        if state['forked'] == 0:
            state['in_child'] = True
            GLib.idle_add(on_child_idle)
            return
        os.close(write_end)

    def on_wait_done(process, result):
        if seen_in_child(b'w'):
            return
        assert process.wait_finish(result)
        state['waits'] += 1

    monitor.connect('exited', on_exited)
    for target in targets:
        monitor.watch_pid(target.pid).wait_async(None, on_wait_done)
    for target in targets:
        os.kill(target.pid, signal.SIGKILL)
    for target in targets:
        os.waitid(os.P_PID, target.pid, os.WEXITED | os.WNOWAIT)

    run_until(lambda: state['waits'] == FORK_BATCH, 'every wait')
    assert state['exited'] == FORK_BATCH

    seen = b''
    while chunk := os.read(read_end, 64):
        seen += chunk
    os.close(read_end)
    _, status = os.waitpid(state['forked'], 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert seen == b'E', "'x' an \"exited\", 'w' a wait's callback in the child"
