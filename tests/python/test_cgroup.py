# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Watching cgroups from Python: cgroups the test makes under the cgroup2
# mount (found in /proc/self/mountinfo), real processes moved into them.

import os
import signal
import subprocess

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import drain, run_until  # noqa: E402
from system_testing import cgroup2_mount, skip_for_system  # noqa: E402


class CgroupDir:
    """A cgroup made for one test: its absolute path and the path as
    /proc/PID/cgroup writes it."""

    def __init__(self, mount_point, root, name):
        self.absolute = os.path.join(mount_point, name)
        self.relative = root.rstrip('/') + '/' + name
        os.mkdir(self.absolute)
        self.processes = []

    def spawn(self):
        """A process that sleeps until killed, moved into this cgroup."""
        process = subprocess.Popen(['sleep', 'infinity'])
        self.processes.append(process)
        with open(os.path.join(self.absolute, 'cgroup.procs'), 'w') as procs:
            procs.write(str(process.pid))
        return process

    def remove(self):
        # cgroup.kill (Linux 5.14+) ends what the test left inside; the
        # children are then reaped, and the empty cgroup can go.
        try:
            with open(os.path.join(self.absolute, 'cgroup.kill'), 'w') as kill:
                kill.write('1')
        except OSError:
            for process in self.processes:
                process.kill()
        for process in self.processes:
            process.wait()
        os.rmdir(self.absolute)


@pytest.fixture
def make_cgroup():
    mount = cgroup2_mount()
    if mount is None:
        skip_for_system('cgroup v2 is not mounted here')
    mount_point, root = mount
    name = f'gio-procwatch-pytest-{os.getpid()}'
    try:
        base = CgroupDir(mount_point, root, name)
    except OSError as error:
        skip_for_system(f'cannot make a cgroup under {mount_point} as uid {os.getuid()}: '
                        f'{error.strerror}')
    made = []

    def make(child_name):
        cgroup = CgroupDir(base.absolute, base.relative, child_name)
        made.append(cgroup)
        return cgroup

    yield make
    for cgroup in reversed(made):
        cgroup.remove()
    base.remove()


def read_cgroup_of(pid):
    with open(f'/proc/{pid}/cgroup') as file:
        for line in file:
            if line.startswith('0::'):
                return line[3:].rstrip('\n')
    return None


class CgroupRecorder:
    def __init__(self, monitor, cgroup):
        self.emptied = []
        self.notified = []
        monitor.connect('cgroup-emptied', self._on_emptied)
        cgroup.connect('notify::populated', self._on_notify)

    def _on_emptied(self, monitor, cgroup):
        assert not cgroup.props.populated
        self.emptied.append(cgroup)

    def _on_notify(self, cgroup, pspec):
        self.notified.append(cgroup.props.populated)


def test_watch_cgroup(monitor, make_cgroup):
    directory = make_cgroup('app')
    first = directory.spawn()
    cgroup = monitor.watch_cgroup(directory.relative)
    assert isinstance(cgroup, Procwatch.Cgroup)
    assert cgroup.get_path() == directory.relative
    assert cgroup.get_populated() and cgroup.props.populated
    # The same cgroup by its path under the mount: the same object.
    assert monitor.watch_cgroup(directory.absolute) is cgroup
    recorder = CgroupRecorder(monitor, cgroup)

    # The process knows the cgroup it was moved to, as the kernel says.
    process = monitor.watch_pid(first.pid)
    assert read_cgroup_of(first.pid) == directory.relative
    assert process.get_cgroup() == directory.relative
    assert process.props.cgroup == directory.relative

    # The launched process leaves first; the app is not gone yet.
    second = directory.spawn()
    first.kill()
    first.wait()
    drain()
    assert recorder.emptied == [] and recorder.notified == []
    assert cgroup.props.populated

    second.kill()
    run_until(lambda: recorder.emptied, 'cgroup-emptied')
    assert recorder.emptied == [cgroup]
    assert recorder.notified == [False]
    second.wait()
    drain()
    assert recorder.emptied == [cgroup], 'once per emptying'

    # Populated again, then empty again: once more each.
    third = directory.spawn()
    run_until(lambda: len(recorder.notified) == 2, 'notify::populated')
    assert recorder.notified == [False, True]
    third.kill()
    run_until(lambda: len(recorder.emptied) == 2, 'the second cgroup-emptied')
    assert recorder.notified == [False, True, False]

    assert monitor.unwatch_cgroup(cgroup)
    assert not monitor.unwatch_cgroup(cgroup)


def test_watch_cgroup_errors(monitor, make_cgroup):
    directory = make_cgroup('errors')
    with pytest.raises(GLib.Error) as error:
        monitor.watch_cgroup(directory.relative + '/not-there')
    assert error.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND)
    with pytest.raises(GLib.Error) as error:
        monitor.watch_cgroup(directory.relative + '/../x')
    assert error.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.INVALID_ARGUMENT)
    # A file of the cgroup exists but is no cgroup directory, by either spelling.
    for path in (os.path.join(directory.absolute, 'cgroup.procs'),
                 directory.relative + '/cgroup.procs'):
        with pytest.raises(GLib.Error) as error:
            monitor.watch_cgroup(path)
        assert error.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.INVALID_ARGUMENT), path
        assert 'is not a cgroup v2 directory' in error.value.message


def test_wait_empty_async(monitor, make_cgroup):
    directory = make_cgroup('wait')
    child = directory.spawn()
    cgroup = monitor.watch_cgroup(directory.relative)
    results = []

    def on_empty(source, result, user_data):
        assert source is cgroup and user_data == 'data'
        results.append(source.wait_empty_finish(result))

    cgroup.wait_empty_async(None, on_empty, 'data')
    drain()
    assert results == []
    child.kill()
    run_until(lambda: results, 'wait_empty_async')
    assert results == [True]
    assert not cgroup.props.populated

    # Already empty: completes, from the main loop.
    cgroup.wait_empty_async(None, on_empty, 'data')
    assert len(results) == 1
    run_until(lambda: len(results) == 2, 'wait_empty_async of an empty cgroup')

    # Cancelled.
    directory.spawn()
    run_until(lambda: cgroup.props.populated, 'populated')
    cancellable = Gio.Cancellable()
    errors = []

    def on_cancelled(source, result, user_data):
        try:
            source.wait_empty_finish(result)
        except GLib.Error as error:
            errors.append(error)

    cgroup.wait_empty_async(cancellable, on_cancelled, None)
    cancellable.cancel()
    run_until(lambda: errors, 'the cancelled wait')
    assert errors[0].matches(Gio.io_error_quark(), Gio.IOErrorEnum.CANCELLED)


@pytest.mark.skipif(gi.version_info < (3, 50),
                    reason=f'PyGObject {gi.__version__} has no awaitable async methods (3.50+)')
def test_await_wait_empty(run, monitor, make_cgroup):
    directory = make_cgroup('await')
    child = directory.spawn()
    cgroup = monitor.watch_cgroup(directory.relative)

    async def main():
        waiting = cgroup.wait_empty_async()
        assert not waiting.done()
        os.kill(child.pid, signal.SIGKILL)
        return await waiting

    assert run(main()) is True
    assert not cgroup.props.populated
