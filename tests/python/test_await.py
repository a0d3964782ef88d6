# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# asyncio awaits wait_async() natively on PyGObject 3.50+: called without a
# callback, an async method that takes a GCancellable and has a _finish
# partner returns an awaitable, completed from GLib's main context when the
# event loop is gi.events' GLibEventLoop. PyGObject 3.42 (Debian 12) has
# neither: test_wait.py tests the callbacks there and here.

import asyncio

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import Child, NonChild  # noqa: E402

pytestmark = pytest.mark.skipif(
    gi.version_info < (3, 50),
    reason=f'PyGObject {gi.__version__} has no awaitable async methods (3.50+)')

State = Procwatch.ProcessState


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_await_wait(run, monitor, recorder, processes, kind):
    target = processes(kind)

    async def main():
        waits = [monitor.wait_async(target.pid), monitor.wait_async(target.pid)]
        assert not any(wait.done() for wait in waits), 'completes from the main loop only'
        target.exit(5)
        # One by one: asyncio.gather() wants more of a future than
        # PyGObject's awaitable has (no cancelled()).
        return [await wait for wait in waits]

    processes_waited = run(main())
    assert processes_waited[0] is processes_waited[1]
    process = processes_waited[0]
    assert process.get_pid() == target.pid
    assert process.props.state == State.EXITED
    assert recorder.find(target.pid, 'exited')[2] is process

    target.reap()
    recorder.wait_for(target.pid, 'reaped')


def test_await_wait_cancelled(run, monitor, processes):
    child = processes(Child)
    cancellable = Gio.Cancellable()

    async def main():
        waiting = monitor.wait_async(child.pid, cancellable)
        other = monitor.wait_async(child.pid)
        asyncio.get_running_loop().call_soon(cancellable.cancel)
        with pytest.raises(GLib.Error) as error:
            await waiting
        assert error.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)

        # Other waits on the same process go on.
        assert not other.done()
        child.exit(0)
        return await other

    assert run(main()).get_pid() == child.pid


def test_await_cancel(run, monitor, processes):
    """The awaitable's cancel() cancels the GCancellable that PyGObject passed
    for it: the wait ends as cancelled, the process stays watched. (Its
    cancel() takes no message, so PyGObject 3.50 fails asyncio's own
    Task.cancel() of a task awaiting it: a TypeError, not ours to test.)"""
    child = processes(Child)

    async def main():
        waiting = monitor.wait_async(child.pid)
        waiting.cancel()
        with pytest.raises(GLib.Error) as error:
            await waiting
        assert error.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)
        child.exit(0)
        return await monitor.wait_async(child.pid)

    assert run(main()).props.state == State.EXITED


def test_await_wait_not_found(run, monitor):
    async def main():
        with pytest.raises(GLib.Error) as error:
            await monitor.wait_async(GLib.MAXINT32)
        return error.value

    assert run(main()).matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND)
