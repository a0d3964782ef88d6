# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# "exited" then "reaped", with statuses, on children and on non-children.

import os
import signal

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Procwatch  # noqa: E402

from procwatch_testing import Child, NonChild, drain, has_feature  # noqa: E402

State = Procwatch.ProcessState


def end(process, how):
    if how == 'exit':
        process.exit(3)
    else:
        process.kill(signal.SIGTERM)


def check_status(process, how):
    assert process.has_status()
    if how == 'exit':
        assert process.get_if_exited()
        assert not process.get_if_signaled()
        assert process.get_exit_status() == 3
        assert os.WEXITSTATUS(process.get_status()) == 3
    else:
        assert process.get_if_signaled()
        assert not process.get_if_exited()
        assert process.get_term_sig() == signal.SIGTERM
        assert os.WTERMSIG(process.get_status()) == signal.SIGTERM


@pytest.mark.parametrize('how', ['exit', 'signal'])
def test_child(monitor, recorder, processes, how):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    assert isinstance(process, Procwatch.Process)
    assert process.get_pid() == child.pid
    assert process.props.pid == child.pid
    assert process.props.state == State.RUNNING

    end(child, how)
    name, pid, emitted, state, had_status = recorder.wait_for(child.pid, 'exited')
    assert emitted is process
    assert state == State.EXITED
    # A child's status is read at exit, without reaping it.
    assert had_status
    check_status(process, how)

    drain()
    assert recorder.names(child.pid) == ['exited'], 'reaped before the parent reaped'

    wait_status = child.reap()
    recorder.wait_for(child.pid, 'reaped')
    assert process.props.state == State.REAPED
    assert recorder.names(child.pid) == ['exited', 'reaped']
    check_status(process, how)
    assert wait_status == (3 if how == 'exit' else -signal.SIGTERM)


@pytest.mark.parametrize('how', ['exit', 'signal'])
def test_non_child(monitor, recorder, processes, how):
    target = processes(NonChild)
    assert target.pid != os.getpid()
    process = monitor.watch_pid(target.pid)
    assert process.props.state == State.RUNNING

    end(target, how)
    _, _, emitted, state, had_status = recorder.wait_for(target.pid, 'exited')
    assert emitted is process
    assert state == State.EXITED
    # Only the parent can read a zombie's status; the kernel keeps it for
    # everyone else once the process has been reaped.
    assert not had_status
    assert not process.get_if_exited()
    assert not process.get_if_signaled()

    drain()
    assert recorder.names(target.pid) == ['exited']

    wait_status = target.reap()
    _, _, _, state, had_status = recorder.wait_for(target.pid, 'reaped')
    assert state == State.REAPED
    if not has_feature(monitor, Procwatch.Features.NON_CHILD_STATUS):
        # Before Linux 6.15 the kernel keeps no status after the reap.
        assert not had_status
        assert not process.has_status()
        assert not process.get_if_exited() and not process.get_if_signaled()
        return
    assert had_status
    check_status(process, how)
    assert process.get_status() == wait_status


def test_already_exited_child(monitor, recorder, processes):
    child = processes(Child)
    child.exit(0)
    os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT)

    process = monitor.watch_pid(child.pid)
    assert process.props.state == State.RUNNING, 'changes only from the main loop'
    recorder.wait_for(child.pid, 'exited')
    assert process.get_if_exited() and process.get_exit_status() == 0

    child.reap()
    recorder.wait_for(child.pid, 'reaped')


def test_many_at_once(monitor, recorder, processes):
    children = [processes(Child) for _ in range(5)]
    targets = [processes(NonChild) for _ in range(5)]
    watched = {p.pid: monitor.watch_pid(p.pid) for p in children + targets}

    for code, p in enumerate(children + targets):
        p.exit(code)
    for p in children + targets:
        recorder.wait_for(p.pid, 'exited')
    for p in children + targets:
        p.reap()
    # The non-children's statuses where the kernel keeps them (6.15+).
    with_status = children
    if has_feature(monitor, Procwatch.Features.NON_CHILD_STATUS):
        with_status = children + targets
    for code, p in enumerate(children + targets):
        recorder.wait_for(p.pid, 'reaped')
        assert watched[p.pid].has_status() == (p in with_status)
        if p in with_status:
            assert watched[p.pid].get_exit_status() == code
        assert recorder.names(p.pid) == ['exited', 'reaped']


def test_watch_twice_gives_same_object(monitor, processes):
    child = processes(Child)
    assert monitor.watch_pid(child.pid) is monitor.watch_pid(child.pid)


def test_unwatch(monitor, recorder, processes):
    child = processes(Child)
    monitor.watch_pid(child.pid)
    assert monitor.unwatch(child.pid)
    assert not monitor.unwatch(child.pid)

    child.exit(0)
    child.reap()
    drain()
    assert recorder.events == []
