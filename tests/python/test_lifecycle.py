# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# close() from Python: what a plugin's unload does.

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import Child, NonChild, Wait, drain  # noqa: E402


def is_io_error(error, code):
    return error is not None and error.matches(Gio.io_error_quark(), code)


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_close(monitor, recorder, processes, kind):
    targets = [processes(kind), processes(kind)]
    other = processes(kind)
    waits = [Wait(monitor, target.pid) for target in targets]

    monitor.close()
    assert not any(wait.done for wait in waits), 'completes from the main loop only'
    monitor.close()

    for wait in waits:
        wait.finish()
        assert is_io_error(wait.error, Gio.IOErrorEnum.CANCELLED)

    # Nothing is reported after close().
    for target in targets:
        target.exit(0)
    for target in targets:
        target.reap()
    drain()
    assert recorder.events == []

    with pytest.raises(GLib.Error) as info:
        monitor.watch_pid(other.pid)
    assert is_io_error(info.value, Gio.IOErrorEnum.CLOSED)
    assert not monitor.unwatch(other.pid)
    assert is_io_error(Wait(monitor, other.pid).finish().error, Gio.IOErrorEnum.CLOSED)


def test_unwatch_in_exited_handler_keeps_waits(monitor, processes):
    target = processes(Child)
    monitor.connect('exited', lambda monitor, process: monitor.unwatch(process.get_pid()))
    wait = Wait(monitor, target.pid)

    target.exit(3)
    wait.finish()
    assert wait.error is None
    assert wait.process.get_pid() == target.pid
    assert wait.process.get_exit_status() == 3
