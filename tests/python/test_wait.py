# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# wait_async()/wait_finish() with callbacks (PyGObject 3.42 has no
# awaitables), their cancellation, and a Gio.Subprocess watched at once.

import signal

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import Child, NonChild, Wait, has_feature, run_until  # noqa: E402

State = Procwatch.ProcessState


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_wait(monitor, recorder, processes, kind):
    target = processes(kind)
    waits = [Wait(monitor, target.pid), Wait(monitor, target.pid)]
    assert not any(wait.done for wait in waits), 'completes from the main loop only'

    target.exit(5)
    for wait in waits:
        wait.finish()
        assert wait.error is None
        assert wait.process.get_pid() == target.pid
        assert wait.state == State.EXITED
    assert waits[0].process is waits[1].process
    # The wait watches the process, so the monitor signals it too.
    assert recorder.find(target.pid, 'exited')[2] is waits[0].process

    target.reap()
    recorder.wait_for(target.pid, 'reaped')


def test_wait_on_exited_process_completes(monitor, recorder, processes):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    child.exit(0)
    recorder.wait_for(child.pid, 'exited')
    wait = Wait(monitor, child.pid).finish()
    assert wait.process is process


def test_wait_cancelled(monitor, processes):
    child = processes(Child)
    cancellable = Gio.Cancellable()
    wait = Wait(monitor, child.pid, cancellable)
    other = Wait(monitor, child.pid)
    GLib.idle_add(cancellable.cancel)
    wait.finish()
    assert wait.process is None
    assert wait.error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)

    # Other waits on the same process go on.
    assert not other.done
    child.exit(0)
    other.finish()
    assert other.error is None


def test_wait_cancelled_before(monitor, processes):
    child = processes(Child)
    cancellable = Gio.Cancellable()
    cancellable.cancel()
    wait = Wait(monitor, child.pid, cancellable).finish()
    assert wait.error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)


def test_wait_unwatched(monitor, processes):
    child = processes(Child)
    wait = Wait(monitor, child.pid)
    GLib.idle_add(lambda: monitor.unwatch(child.pid) and GLib.SOURCE_REMOVE)
    wait.finish()
    assert wait.error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)


def test_wait_not_found(monitor):
    wait = Wait(monitor, GLib.MAXINT32).finish()
    assert wait.error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND)


def start_subprocess(monitor):
    """A Gio.Subprocess that exits with 4 once told, watched by @monitor."""
    subprocess = Gio.Subprocess.new(['sh', '-c', 'read line; exit 4'],
                                    Gio.SubprocessFlags.STDIN_PIPE)
    pid = int(subprocess.get_identifier())
    return subprocess, pid, monitor.watch_pid(pid)


def end_subprocess(subprocess, how):
    if how == 'exit':
        subprocess.get_stdin_pipe().write_all(b'go\n', None)
    else:
        subprocess.send_signal(signal.SIGKILL)


def check_status_of_subprocess(process, subprocess, how):
    if how == 'exit':
        assert subprocess.get_if_exited() and subprocess.get_exit_status() == 4
        assert process.get_if_exited() and process.get_exit_status() == 4
    else:
        assert subprocess.get_if_signaled() and subprocess.get_term_sig() == signal.SIGKILL
        assert process.get_if_signaled() and process.get_term_sig() == signal.SIGKILL
    assert process.get_status() == subprocess.get_status()


@pytest.mark.parametrize('how', ['exit', 'signal'])
def test_gio_subprocess(monitor, recorder, how):
    """Gio.Subprocess reaps its child itself; the monitor, watching at the
    same time, sees both events and the status without disturbing it."""
    if not has_feature(monitor, Procwatch.Features.NON_CHILD_STATUS):
        pytest.skip('GLib reaps the child at once, from its worker thread: without the status '
                    'of a reaped process (NON_CHILD_STATUS, Linux 6.15+) the monitor has it '
                    'only when it looks first, which nothing here decides '
                    '(test_gio_subprocess_reaped_first has what this kernel gives)')
    subprocess, pid, process = start_subprocess(monitor)
    subprocess_done = []

    def on_subprocess_done(subprocess, result):
        subprocess.wait_finish(result)
        subprocess_done.append(True)

    subprocess.wait_async(None, on_subprocess_done)
    end_subprocess(subprocess, how)

    recorder.wait_for(pid, 'exited')
    recorder.wait_for(pid, 'reaped')
    run_until(lambda: subprocess_done, 'Gio.Subprocess to finish')

    assert recorder.names(pid) == ['exited', 'reaped']
    check_status_of_subprocess(process, subprocess, how)


@pytest.mark.parametrize('how', ['exit', 'signal'])
def test_gio_subprocess_reaped_first(monitor, recorder, how):
    """Gio.Subprocess reaps its child before the monitor looks: both events
    still come, with the status where the kernel keeps it for the pidfd
    (NON_CHILD_STATUS, Linux 6.15+); before, the status is not known."""
    subprocess, pid, process = start_subprocess(monitor)
    subprocess_done = []

    def on_subprocess_done(subprocess, result):
        subprocess.wait_finish(result)
        subprocess_done.append(True)

    # The wait completes in a context of its own once GLib's worker thread
    # has reaped the child; the monitor's, the default one, is not iterated
    # until then.
    context = GLib.MainContext.new()
    context.push_thread_default()
    try:
        subprocess.wait_async(None, on_subprocess_done)
    finally:
        context.pop_thread_default()
    end_subprocess(subprocess, how)
    run_until(lambda: subprocess_done, 'Gio.Subprocess to reap its child', context=context)
    assert recorder.events == []

    recorder.wait_for(pid, 'reaped')
    assert recorder.names(pid) == ['exited', 'reaped']
    if has_feature(monitor, Procwatch.Features.NON_CHILD_STATUS):
        check_status_of_subprocess(process, subprocess, how)
    else:
        assert not process.has_status()
        assert not process.get_if_exited() and not process.get_if_signaled()
