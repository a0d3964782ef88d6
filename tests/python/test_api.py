# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Properties, notify::state, pidfds and the errors callers can match on.

import os
import threading

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import (  # noqa: E402
    Child, NonChild, assert_io_error, expected_backend, has_feature, pidfd_open_or_skip)

State = Procwatch.ProcessState
Features = Procwatch.Features


def test_backend_is_a_string(monitor):
    assert monitor.props.backend == expected_backend()
    assert monitor.get_backend() == monitor.props.backend


def test_state_is_an_enum(monitor, processes):
    process = monitor.watch_pid(processes(Child).pid)
    assert isinstance(process.props.state, Procwatch.ProcessState)
    assert process.get_state() == State.RUNNING
    assert State.RUNNING < State.EXITED < State.REAPED


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_notify_state(monitor, recorder, processes, kind):
    target = processes(kind)
    process = monitor.watch_pid(target.pid)
    seen = []
    process.connect('notify::state',
                    lambda p, pspec: seen.append((p.props.state, len(recorder.events))))

    target.exit(0)
    recorder.wait_for(target.pid, 'exited')
    target.reap()
    recorder.wait_for(target.pid, 'reaped')

    # Each change notifies once, just before the signal that announces it.
    assert seen == [(State.EXITED, 0), (State.REAPED, 1)]


def test_watch_pidfd(monitor, recorder, processes):
    target = processes(NonChild)
    pidfd = pidfd_open_or_skip(target.pid, 'to watch by')
    process = monitor.watch_pidfd(pidfd)
    # The monitor keeps its own duplicate.
    os.close(pidfd)
    assert process.get_pid() == target.pid
    assert monitor.watch_pid(target.pid) is process

    target.exit(7)
    recorder.wait_for(target.pid, 'exited')
    target.reap()
    recorder.wait_for(target.pid, 'reaped')
    # A non-child: its status is kept for the pidfd from Linux 6.15 on.
    if has_feature(monitor, Features.NON_CHILD_STATUS):
        assert process.get_exit_status() == 7
    else:
        assert not process.has_status()


@pytest.mark.parametrize('pid', [0, -1])
def test_watch_pid_not_positive(monitor, pid):
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid(pid)
    assert_io_error(excinfo, Gio.IOErrorEnum.INVALID_ARGUMENT)


def test_watch_pid_not_found(monitor):
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid(GLib.MAXINT32)
    assert_io_error(excinfo, Gio.IOErrorEnum.NOT_FOUND)


def test_watch_pid_reaped(monitor, processes):
    child = processes(Child)
    child.exit(0)
    child.reap()
    # The pid is free now; it cannot have been reused by a process the test
    # could see, unless 32768 others were started in between.
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid(child.pid)
    assert_io_error(excinfo, Gio.IOErrorEnum.NOT_FOUND)


def test_watch_pid_of_thread(monitor, recorder):
    """A thread is a task of its own: exited and reaped come when it ends."""
    started = threading.Event()
    stop = threading.Event()
    tids = []

    def run():
        tids.append(threading.get_native_id())
        started.set()
        stop.wait()

    thread = threading.Thread(target=run)
    thread.start()
    try:
        started.wait()
        if not has_feature(monitor, Features.THREADS):
            # pidfds of threads came with Linux 6.9 (PIDFD_THREAD).
            with pytest.raises(GLib.Error) as excinfo:
                monitor.watch_pid(tids[0])
            assert_io_error(excinfo, Gio.IOErrorEnum.NOT_SUPPORTED)
            assert len(monitor) == 0
            return
        process = monitor.watch_pid(tids[0])
        assert process.get_pid() == tids[0]
        assert process.props.state == State.RUNNING
    finally:
        stop.set()
        thread.join()

    recorder.wait_for(tids[0], 'reaped')
    assert recorder.names(tids[0]) == ['exited', 'reaped']


@pytest.mark.parametrize('fd', ['negative', 'closed', 'not-a-pidfd'])
def test_watch_pidfd_invalid(monitor, fd):
    if fd == 'negative':
        number = -1
    elif fd == 'closed':
        number = os.open('/dev/null', os.O_RDONLY)
        os.close(number)
    else:
        number = os.open('/dev/null', os.O_RDONLY)
    try:
        with pytest.raises(GLib.Error) as excinfo:
            monitor.watch_pidfd(number)
        assert_io_error(excinfo, Gio.IOErrorEnum.INVALID_ARGUMENT)
    finally:
        if fd == 'not-a-pidfd':
            os.close(number)


def test_failed_watch_changes_nothing(monitor, recorder, processes):
    with pytest.raises(GLib.Error):
        monitor.watch_pid(GLib.MAXINT32)
    child = processes(Child)
    monitor.watch_pid(child.pid)
    child.exit(0)
    recorder.wait_for(child.pid, 'exited')
    assert [event[0] for event in recorder.events] == ['exited']
