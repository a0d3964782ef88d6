# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# The process object as the handle (API 1.2), from Python: inode, name, the
# status properties, dup_pidfd, send_signal, wait_async of a process; the
# monitor's unwatch_process, lookup, watch_pid_inode; on real processes,
# children and not, and across pid reuse forced in a pid namespace.

import os
import select
import signal

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import (  # noqa: E402
    Child, NonChild, Wait, assert_io_error, child_with_pid, drain, has_feature, isolate, on_pidfs,
    open_pidfd, pidfd_open_or_skip, pidfs_inode, run_until)

State = Procwatch.ProcessState
Features = Procwatch.Features
IOErrorEnum = Gio.IOErrorEnum
POLL_BACKEND = {'PROCWATCH_BACKEND': 'poll'}


def poll_events(fd):
    """What poll() reports on @fd now, without waiting."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    return sum(events for _, events in poller.poll(0))


def is_running(pid):
    """Whether our child @pid has not exited, without reaping it."""
    return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None


def watch_pid_0(monitor, child, code):
    """Watches @child, ended with @code and reaped, through a pidfd opened
    before: a process with pid 0, which only its object names."""
    pidfd = pidfd_open_or_skip(child.pid, 'opened before the reap: a process with pid 0 is '
                               'watched only through a pidfd')
    child.exit(code)
    child.reap()
    process = monitor.watch_pidfd(pidfd)
    os.close(pidfd)
    assert process.get_pid() == 0
    return process


def comm(pid):
    with open(f'/proc/{pid}/comm') as file:
        return file.read().rstrip('\n')


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_inode_is_the_pidfs_inode(monitor, processes, kind):
    target = processes(kind)
    process = monitor.watch_pid(target.pid)
    # Without the INODE feature (before Linux 6.9, where a pidfd has no
    # inode of its own) every process says 0.
    with_inodes = has_feature(monitor, Features.INODE)
    inode = pidfs_inode(target.pid) if with_inodes else 0
    assert (inode != 0) == with_inodes
    assert process.get_inode() == inode
    assert process.props.inode == inode

    other = processes(kind)
    other_inode = monitor.watch_pid(other.pid).get_inode()
    if with_inodes:
        assert other_inode == pidfs_inode(other.pid) != inode
    else:
        assert other_inode == 0

    # Watched by pidfd, the same process (found by its inode, or before
    # pidfs by its pidfd), the same number.
    pidfd = pidfd_open_or_skip(target.pid, 'to watch the process by again')
    assert monitor.watch_pidfd(pidfd) is process
    os.close(pidfd)


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_name_survives_exit(monitor, recorder, processes, kind):
    target = processes(kind)
    name = comm(target.pid)
    process = monitor.watch_pid(target.pid)
    assert process.get_name() == name == 'procwatch-test-'
    assert process.props.name == name

    target.exit(0)
    recorder.wait_for(target.pid, 'exited')
    target.reap()
    recorder.wait_for(target.pid, 'reaped')
    assert not os.path.exists(f'/proc/{target.pid}')
    assert process.get_name() == name
    assert process.props.name == name


def test_name_of_a_reaped_process_is_none(monitor, recorder, processes):
    process = watch_pid_0(monitor, processes(Child), 0)
    assert process.get_name() is None
    assert process.props.name is None


@pytest.mark.parametrize('kind,how', [(Child, 'exit'), (Child, 'signal'),
                                      (NonChild, 'exit'), (NonChild, 'signal')])
def test_status_properties(monitor, recorder, processes, kind, how):
    target = processes(kind)
    process = monitor.watch_pid(target.pid)
    notified = []
    for name in ('status-known', 'exit-status', 'term-sig', 'state'):
        process.connect(f'notify::{name}', lambda p, pspec: notified.append(pspec.name))
    assert (process.props.status_known, process.props.exit_status, process.props.term_sig) == \
        (False, -1, 0)

    if how == 'exit':
        target.exit(7)
        expected = (True, 7, 0)
        status_notify = ['status-known', 'exit-status']
    else:
        target.kill(signal.SIGKILL)
        expected = (True, -1, signal.SIGKILL)
        status_notify = ['status-known', 'term-sig']

    recorder.wait_for(target.pid, 'exited')
    if kind is NonChild:
        # A non-child's status is known once it has been reaped, where the
        # kernel keeps it (NON_CHILD_STATUS, Linux 6.15+); before, never.
        assert notified == ['state']
        target.reap()
        recorder.wait_for(target.pid, 'reaped')
        assert notified[0] == 'state'
        notified = notified[1:]
        if not has_feature(monitor, Features.NON_CHILD_STATUS):
            status_notify = []
            expected = (False, -1, 0)
    # Notified when the status becomes known (together: in any order),
    # before the state changes.
    assert sorted(notified[:-1]) == sorted(status_notify)
    assert notified[-1] == 'state'

    assert (process.props.status_known, process.props.exit_status, process.props.term_sig) == \
        expected
    # PyGObject keeps the 1.0 method; the property is under props.
    assert process.has_status() is expected[0]


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_dup_pidfd_polls_like_the_original(monitor, recorder, processes, kind):
    target = processes(kind)
    process = monitor.watch_pid(target.pid)
    by_pidfd = monitor.get_backend() != 'pidfd'
    if by_pidfd:
        # Watched by pid, the /proc backends hold no pidfd to give; watched
        # through one, they hold that.
        with pytest.raises(GLib.Error) as excinfo:
            process.dup_pidfd()
        assert_io_error(excinfo, IOErrorEnum.NOT_SUPPORTED)
        assert monitor.unwatch_process(process)
        original = pidfd_open_or_skip(target.pid, f'to watch by: the {monitor.get_backend()} '
                                      'backend holds a pidfd only for a process watched by one')
        process = monitor.watch_pidfd(original)
    else:
        original = os.pidfd_open(target.pid)
    duplicate = process.dup_pidfd()
    try:
        assert duplicate not in (original, -1)
        assert os.get_inheritable(duplicate) is False, 'O_CLOEXEC'
        # Before pidfs both are the one anonymous inode, and the process
        # has none (0); watched by pidfd, every backend knows it.
        assert os.fstat(duplicate).st_ino == os.fstat(original).st_ino
        if by_pidfd:
            assert process.get_inode() == pidfs_inode(target.pid)
        else:
            assert process.get_inode() == \
                (os.fstat(original).st_ino if has_feature(monitor, Features.INODE) else 0)

        assert poll_events(duplicate) == poll_events(original) == 0

        target.exit(0)
        recorder.wait_for(target.pid, 'exited')
        # Exited, not reaped: still watched, so a pidfd is still to be had.
        later = process.dup_pidfd()
        os.close(later)
        assert poll_events(duplicate) == poll_events(original) == select.POLLIN

        target.reap()
        recorder.wait_for(target.pid, 'reaped')
        # The kernel hangs a reaped process's pidfds up from Linux 6.9 (with
        # pidfs) on; before, they stay readable alone.
        hangup = select.POLLHUP if on_pidfs(original) else 0
        assert poll_events(duplicate) == poll_events(original) == select.POLLIN | hangup
    finally:
        os.close(original)
        os.close(duplicate)

    with pytest.raises(GLib.Error) as excinfo:
        process.dup_pidfd()
    assert_io_error(excinfo, IOErrorEnum.CLOSED)


@pytest.mark.parametrize('how', ['unwatch_process', 'close'])
def test_dup_pidfd_closed_once_not_watched(monitor, processes, how):
    process = monitor.watch_pid(processes(Child).pid)
    if how == 'close':
        monitor.close()
    else:
        assert monitor.unwatch_process(process)
    with pytest.raises(GLib.Error) as excinfo:
        process.dup_pidfd()
    assert_io_error(excinfo, IOErrorEnum.CLOSED)


def test_dup_pidfd_not_supported_by_pid_without_pidfds(request, monitor, processes):
    if isolate(request, env=POLL_BACKEND):
        return
    assert monitor.props.backend == 'poll'
    process = monitor.watch_pid(processes(Child).pid)
    with pytest.raises(GLib.Error) as excinfo:
        process.dup_pidfd()
    assert_io_error(excinfo, IOErrorEnum.NOT_SUPPORTED)
    assert process.get_inode() == 0


@pytest.mark.parametrize('backend', ['pidfd', 'poll'])
@pytest.mark.parametrize('kind', [Child, NonChild])
def test_send_signal_kills_the_right_process(request, monitor, recorder, processes, kind,
                                             backend):
    if backend == 'poll' and isolate(request, env=POLL_BACKEND):
        return
    target = processes(kind)
    bystander = processes(Child)
    process = monitor.watch_pid(target.pid)
    monitor.watch_pid(bystander.pid)

    assert process.send_signal(0)
    assert process.send_signal(signal.SIGTERM)
    recorder.wait_for(target.pid, 'exited')
    status = target.reap()
    recorder.wait_for(target.pid, 'reaped')
    assert (-status if kind is Child else os.WTERMSIG(status)) == signal.SIGTERM
    # Without pidfds the status of a non-child is not to be had.
    if process.props.status_known:
        assert process.props.term_sig == signal.SIGTERM

    assert is_running(bystander.pid)
    assert recorder.find(bystander.pid, 'exited') is None

    # Exited (and reaped): not found, whatever the signal.
    for signum in (0, signal.SIGKILL):
        with pytest.raises(GLib.Error) as excinfo:
            process.send_signal(signum)
        assert_io_error(excinfo, IOErrorEnum.NOT_FOUND)


def test_send_signal_to_an_unreported_zombie(monitor, recorder, processes):
    """The kernel accepts a signal for a zombie: the library says it has
    exited even before its source has reported the exit."""
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    child.exit(0)
    # A zombie now, its exit not dispatched yet.
    assert os.waitid(os.P_PID, child.pid, os.WEXITED | os.WNOWAIT) is not None
    assert process.props.state == State.RUNNING
    with pytest.raises(GLib.Error) as excinfo:
        process.send_signal(signal.SIGTERM)
    assert_io_error(excinfo, IOErrorEnum.NOT_FOUND)
    recorder.wait_for(child.pid, 'exited')
    assert process.props.exit_status == 0


@pytest.mark.parametrize('how', ['unwatch_process', 'unwatch', 'close'])
def test_send_signal_closed_once_not_watched(monitor, processes, how):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    if how == 'close':
        monitor.close()
    elif how == 'unwatch':
        assert monitor.unwatch(child.pid)
    else:
        assert monitor.unwatch_process(process)

    with pytest.raises(GLib.Error) as excinfo:
        process.send_signal(signal.SIGKILL)
    assert_io_error(excinfo, IOErrorEnum.CLOSED)
    assert is_running(child.pid)


def test_send_signal_invalid(monitor, processes):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    with pytest.raises(GLib.Error) as excinfo:
        process.send_signal(1000)
    assert_io_error(excinfo, IOErrorEnum.INVALID_ARGUMENT)
    assert is_running(child.pid)


@pytest.mark.skipif(os.geteuid() != 0, reason='needs root, to drop to another user')
def test_send_signal_permission_denied(request, monitor, processes):
    if isolate(request):
        return
    child = processes(Child)
    # For good, in this process alone (isolate() made it): the child stays
    # root's, and we may no longer signal it.
    os.setresgid(65534, 65534, 65534)
    os.setresuid(65534, 65534, 65534)
    process = monitor.watch_pid(child.pid)
    with pytest.raises(GLib.Error) as excinfo:
        process.send_signal(signal.SIGKILL)
    assert_io_error(excinfo, IOErrorEnum.PERMISSION_DENIED)
    assert is_running(child.pid)
    # Ended through its stdin, which we still hold.
    child.exit(0)
    child.reap()


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_process_wait(monitor, recorder, processes, kind):
    target = processes(kind)
    process = monitor.watch_pid(target.pid)
    waits = [Wait(process), Wait(process)]
    drain()
    assert not any(wait.done for wait in waits)

    target.exit(4)
    for wait in waits:
        wait.finish()
        assert wait.error is None
        assert wait.process is process
        assert wait.state == State.EXITED
    assert recorder.find(target.pid, 'exited') is not None

    # Exited already: at once, but from the main loop.
    late = Wait(process)
    assert not late.done
    assert late.finish().error is None

    target.reap()
    recorder.wait_for(target.pid, 'reaped')
    # Reaped, and so no longer watched: still "has exited".
    assert Wait(process).finish().error is None


def test_process_wait_starts_no_watch(monitor, processes):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    assert monitor.unwatch_process(process)

    wait = Wait(process)
    assert not wait.done
    assert_error(wait.finish(), IOErrorEnum.CLOSED)
    assert monitor.lookup(child.pid) is None
    assert len(monitor) == 0


def assert_error(wait, code):
    assert wait.error is not None, 'expected the wait to fail'
    assert wait.error.matches(Gio.io_error_quark(), code), wait.error.message


@pytest.mark.parametrize('how', ['cancellable', 'unwatch_process', 'close'])
def test_process_wait_cancelled(monitor, processes, how):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    cancellable = Gio.Cancellable()
    wait = Wait(process, cancellable)
    other = Wait(process)

    if how == 'cancellable':
        cancellable.cancel()
    elif how == 'close':
        monitor.close()
    else:
        assert monitor.unwatch_process(process)
    assert not wait.done, 'completes from the main loop only'
    assert_error(wait.finish(), IOErrorEnum.CANCELLED)

    if how == 'cancellable':
        # Other waits go on, and see the exit.
        assert not other.done
        child.exit(0)
        assert other.finish().error is None
    else:
        assert_error(other.finish(), IOErrorEnum.CANCELLED)


def test_process_wait_pid_0(monitor, recorder, processes):
    """A process watched through a pidfd of a process reaped already has pid
    0: only the object names it."""
    process = watch_pid_0(monitor, processes(Child), 6)
    assert process.props.state == State.RUNNING
    wait = Wait(process)
    assert wait.finish().error is None
    assert process.props.state >= State.EXITED
    run_until(lambda: process.props.state == State.REAPED, 'the reap of the pid-0 process')
    if has_feature(monitor, Features.NON_CHILD_STATUS):
        # PIDFD_INFO_EXIT (6.15+): the status of a reaped process.
        assert process.props.exit_status == 6
    else:
        # Reaped before it was watched: only its parent learnt the status.
        assert (process.props.status_known, process.props.exit_status) == (False, -1)


def test_unwatch_process_pid_0(monitor, recorder, processes):
    """A process with pid 0 cannot be named by pid: only by its object."""
    process = watch_pid_0(monitor, processes(Child), 0)
    assert not monitor.unwatch(0)
    assert list(monitor) == [process]
    assert monitor.unwatch_process(process)
    assert list(monitor) == []
    drain()
    assert recorder.events == []


@pytest.mark.skipif(gi.version_info < (3, 50),
                    reason=f'PyGObject {gi.__version__} has no awaitable async methods (3.50+)')
@pytest.mark.parametrize('kind', [Child, NonChild])
def test_await_process_wait(monitor, processes, kind):
    import asyncio

    from gi.events import GLibEventLoopPolicy

    target = processes(kind)
    process = monitor.watch_pid(target.pid)
    policy = GLibEventLoopPolicy()
    asyncio.set_event_loop_policy(policy)
    loop = policy.get_event_loop()

    async def main():
        waiting = process.wait_async()
        assert not waiting.done()
        target.exit(0)
        return await waiting

    deadline = loop.call_later(30, loop.stop)
    try:
        assert loop.run_until_complete(main()) is True
    finally:
        deadline.cancel()
        loop.close()
        asyncio.set_event_loop_policy(None)
    assert process.props.state == State.EXITED


def test_unwatch_process(monitor, recorder, processes):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    other_monitor = Procwatch.ProcessMonitor.new()
    try:
        assert not other_monitor.unwatch_process(process), 'not watched by that one'
    finally:
        other_monitor.close()

    assert monitor.unwatch_process(process)
    assert not monitor.unwatch_process(process)
    assert monitor.lookup(child.pid) is None
    child.exit(0)
    child.reap()
    drain()
    assert recorder.events == []


def test_lookup(monitor, processes):
    child = processes(Child)
    assert monitor.lookup(child.pid) is None, 'it watches nothing'
    assert len(monitor) == 0
    process = monitor.watch_pid(child.pid)
    assert monitor.lookup(child.pid) is process
    assert monitor.lookup(0) is None
    assert monitor.lookup(-1) is None
    monitor.close()
    assert monitor.lookup(child.pid) is None


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_watch_pid_inode(monitor, recorder, processes, kind):
    target = processes(kind)
    other = processes(kind)
    if not has_feature(monitor, Features.INODE):
        # Before pidfs (Linux 6.9), and with the /proc backends, no inode
        # names a process: asked with the number fstat() gives a pidfd (any
        # number but 0, INVALID_ARGUMENT, where this process may not open
        # one), it says it cannot.
        pidfd = open_pidfd(target.pid)
        try:
            with pytest.raises(GLib.Error) as excinfo:
                monitor.watch_pid_inode(target.pid, 1 if pidfd is None else os.fstat(pidfd).st_ino)
        finally:
            if pidfd is not None:
                os.close(pidfd)
        assert_io_error(excinfo, IOErrorEnum.NOT_SUPPORTED)
        assert len(monitor) == 0, 'a failed call watches nothing'
        return
    inode = pidfs_inode(target.pid)

    # Wrong: the inode of another process.
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid_inode(target.pid, pidfs_inode(other.pid))
    assert_io_error(excinfo, IOErrorEnum.NOT_FOUND)
    assert len(monitor) == 0, 'a failed call watches nothing'

    process = monitor.watch_pid_inode(target.pid, inode)
    assert process.get_pid() == target.pid
    assert process.get_inode() == inode
    assert monitor.watch_pid(target.pid) is process
    assert monitor.watch_pid_inode(target.pid, inode) is process

    target.exit(2)
    recorder.wait_for(target.pid, 'exited')
    target.reap()
    recorder.wait_for(target.pid, 'reaped')

    # Stale: the pid is free now.
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid_inode(target.pid, inode)
    assert_io_error(excinfo, IOErrorEnum.NOT_FOUND)


@pytest.mark.parametrize('pid,inode', [(0, 1), (-1, 1), ('target', 0)])
def test_watch_pid_inode_invalid(monitor, processes, pid, inode):
    if pid == 'target':
        pid = processes(Child).pid
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid_inode(pid, inode)
    assert_io_error(excinfo, IOErrorEnum.INVALID_ARGUMENT)


def test_watch_pid_inode_closed(monitor, processes):
    child = processes(Child)
    monitor.close()
    with pytest.raises(GLib.Error) as excinfo:
        # Any inode but 0 (no inode at all: INVALID_ARGUMENT), which is
        # what pidfs_inode() says before pidfs (Linux 6.9) and where this
        # process may not open pidfds.
        monitor.watch_pid_inode(child.pid, pidfs_inode(child.pid) or 1)
    assert_io_error(excinfo, IOErrorEnum.CLOSED)


def test_watch_pid_inode_not_supported_without_pidfds(request, monitor, processes):
    if isolate(request, env=POLL_BACKEND):
        return
    child = processes(Child)
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid_inode(child.pid, pidfs_inode(child.pid) or 1)
    assert_io_error(excinfo, IOErrorEnum.NOT_SUPPORTED)


# Pid reuse, forced: each test runs again as pid 2 of a pid namespace of
# its own, where ns_last_pid gives a new process the pid just freed.

def reuse(child):
    """Exits and reaps @child (before the monitor sees it), then gives its
    pid to a new Child."""
    pid = child.pid
    child.exit(0)
    child.reap()
    return child_with_pid(pid)


@pytest.mark.parametrize('backend', ['pidfd', 'poll'])
def test_reuse_lookup_and_unwatch_process(request, monitor, recorder, processes, backend):
    if isolate(request, env=POLL_BACKEND if backend == 'poll' else None, pid_namespace=True):
        return
    old_child = processes(Child)
    pid = old_child.pid
    old_process = monitor.watch_pid(pid)
    old_inode = old_process.get_inode()

    new_child = processes(lambda: reuse(old_child))
    assert new_child.pid == pid
    new_process = monitor.watch_pid(pid)
    assert new_process is not old_process
    if has_feature(monitor, Features.INODE):
        assert new_process.get_inode() == pidfs_inode(pid) != old_inode
    else:
        assert new_process.get_inode() == old_inode == 0

    # The old one's reap is not reported yet: the newest has the pid.
    assert monitor.lookup(pid) is new_process
    assert list(monitor) == [old_process, new_process]

    # The old process cannot be signalled; the new owner of the pid is
    # not touched.
    with pytest.raises(GLib.Error) as excinfo:
        old_process.send_signal(signal.SIGKILL)
    assert_io_error(excinfo, IOErrorEnum.NOT_FOUND)
    assert is_running(pid)

    # Stopping the old one by object leaves the new one watched.
    assert monitor.unwatch_process(old_process)
    assert monitor.lookup(pid) is new_process
    assert list(monitor) == [new_process]

    assert new_process.send_signal(signal.SIGTERM)
    recorder.wait_for(pid, 'exited')
    assert new_process.props.term_sig == signal.SIGTERM
    assert recorder.events[0][2] is new_process


def test_reuse_inode_and_watch_pid_inode(request, monitor, recorder, processes):
    if not has_feature(monitor, Features.INODE):
        pytest.skip('no pidfs inodes here (before Linux 6.9, or PROCWATCH_DEBUG=no-pidfs): '
                    'watch_pid_inode() fails with NOT_SUPPORTED (test_watch_pid_inode)')
    if isolate(request, pid_namespace=True):
        return
    old_child = processes(Child)
    pid = old_child.pid
    old_process = monitor.watch_pid(pid)
    old_inode = old_process.get_inode()
    assert old_inode == pidfs_inode(pid)

    new_child = processes(lambda: reuse(old_child))
    new_inode = pidfs_inode(pid)
    assert new_inode != old_inode

    # Stale: the pid is another process's now.
    with pytest.raises(GLib.Error) as excinfo:
        monitor.watch_pid_inode(pid, old_inode)
    assert_io_error(excinfo, IOErrorEnum.NOT_FOUND)

    new_process = monitor.watch_pid_inode(pid, new_inode)
    assert new_process is not old_process
    assert new_process.get_inode() == new_inode

    recorder.wait_for(pid, 'reaped')
    assert recorder.events[0][2] is old_process
    assert monitor.lookup(pid) is new_process
    assert new_process.props.state == State.RUNNING

    new_child.exit(0)
    assert Wait(new_process).finish().error is None
