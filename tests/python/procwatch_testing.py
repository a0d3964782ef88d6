# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Real processes for the tests, and a main loop that cannot hang them.

import ctypes
import errno
import os
import select
import subprocess
import sys

import pytest
from gi.repository import Gio, GLib, Procwatch

HELPER = os.environ['PROCWATCH_TEST_HELPER']
TIMEOUT_SECONDS = 30
PIDFS_MAGIC = 0x50494446

_libc = ctypes.CDLL(None, use_errno=True)


def has_feature(monitor, feature):
    """Whether @monitor delivers @feature (a Procwatch.Features flag) on
    this kernel: what a test may promise where kernels differ."""
    return bool(monitor.get_features() & feature)


def on_pidfs(fd):
    """Whether the pidfd @fd lives on pidfs (Linux 6.9+, with the hang-up at
    the reap): before, every pidfd is the one anonymous inode, whose number
    fstat() gives for all of them."""
    # struct statfs starts with f_type (a long); the rest is left unread.
    buffer = ctypes.create_string_buffer(256)
    if _libc.fstatfs(fd, buffer) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))
    return ctypes.c_long.from_buffer(buffer).value == PIDFS_MAGIC


# What pidfd_open() fails with where it is refused: ENOSYS before Linux 5.3
# or under a seccomp filter (tests/seccomp-exec), EPERM under a container's
# seccomp profile. Any other error is the test's to see.
PIDFD_REFUSED = (errno.ENOSYS, errno.EPERM)


def open_pidfd(pid):
    """A pidfd of process @pid, or None where this process may not open
    pidfds (see PIDFD_REFUSED)."""
    try:
        return os.pidfd_open(pid)
    except OSError as error:
        if error.errno in PIDFD_REFUSED:
            return None
        raise


def pidfd_refused_errno():
    """The errno pidfd_open() fails with here (see PIDFD_REFUSED), or 0
    where this process can open pidfds."""
    try:
        os.close(os.pidfd_open(os.getpid()))
    except OSError as error:
        if error.errno in PIDFD_REFUSED:
            return error.errno
        raise
    return 0


def pidfd_open_or_skip(pid, needed_for):
    """A pidfd of process @pid; where this process may not open pidfds
    (the kernel's or a seccomp filter's doing, not the test machine's, so
    a plain skip), skips the rest of the test saying what it was
    @needed_for."""
    pidfd = open_pidfd(pid)
    if pidfd is None:
        refused = pidfd_refused_errno()
        pytest.skip(f'pidfd_open() fails here with {errno.errorcode[refused]} (Linux before 5.3, '
                    f'or a seccomp filter): the test needs a pidfd of its own {needed_for}')
    return pidfd


def pidfs_inode(pid):
    """The pidfs inode number of process @pid, the kernel's own (whatever
    the monitor was told to pretend); 0 without pidfs, and where this
    process may not open pidfds."""
    pidfd = open_pidfd(pid)
    if pidfd is None:
        return 0
    try:
        return os.fstat(pidfd).st_ino if on_pidfs(pidfd) else 0
    finally:
        os.close(pidfd)


def kernel_has_pollable_proc():
    """Whether /proc/<pid> directories poll (the seed's kernel patch,
    kernel/): there a live process's directory, /proc/self, shows nothing,
    where any other kernel shows a directory's default mask, POLLIN
    included. The library probes the same way."""
    fd = os.open('/proc/self', os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN)
        return not poller.poll(0)
    finally:
        os.close(fd)


def expected_backend():
    """The backend this run must get: PROCWATCH_TEST_EXPECT_BACKEND
    (tests/meson.build's variants; pidfd where unset, as in an installed
    run), except that where that says "poll" for a kernel refusing
    pidfd_open() and PROCWATCH_BACKEND does not force it, a kernel with
    pollable /proc directories gives "procfs", as
    tests/procwatch-test-util.c's test_expected_backend() decides."""
    expected = os.environ.get('PROCWATCH_TEST_EXPECT_BACKEND', 'pidfd')
    if expected == 'poll' and 'PROCWATCH_BACKEND' not in os.environ \
            and kernel_has_pollable_proc():
        return 'procfs'
    return expected


def run_until(predicate, what, timeout=TIMEOUT_SECONDS, context=None):
    """Iterates @context (the default main context unless given) until
    predicate() holds; fails the test after a deadline instead of hanging."""
    context = context or GLib.MainContext.default()
    timed_out = []

    def on_timeout():
        timed_out.append(True)
        return GLib.SOURCE_REMOVE

    deadline = GLib.timeout_source_new_seconds(timeout)
    deadline.set_callback(on_timeout)
    deadline.attach(context)
    try:
        while not predicate() and not timed_out:
            context.iteration(True)
    finally:
        deadline.destroy()

    assert predicate(), f'timed out after {timeout} s waiting for {what}'


def drain():
    """Dispatches whatever is ready now, without blocking."""
    context = GLib.MainContext.default()
    while context.iteration(False):
        pass


def assert_io_error(excinfo, code):
    """The GLib.Error that pytest.raises() caught is @code of Gio.IOErrorEnum."""
    error = excinfo.value
    assert isinstance(error, GLib.Error)
    assert error.matches(Gio.io_error_quark(), code), \
        f'expected {code.value_nick}, got {error.domain} {error.code}: {error.message}'


class Wait:
    """One wait_async() call and what its callback got: of a monitor
    (Wait(monitor, pid[, cancellable])) or of a process (Wait(process[,
    cancellable]))."""

    def __init__(self, source, *args):
        self.done = False
        self.process = None
        self.error = None
        if isinstance(source, Procwatch.ProcessMonitor) and len(args) == 1:
            args += (None,)
        elif isinstance(source, Procwatch.Process) and not args:
            args = (None,)
        source.wait_async(*args, self._on_done, 'user data')

    def _on_done(self, source, result, user_data):
        assert user_data == 'user data'
        try:
            returned = source.wait_finish(result)
            # A monitor's wait returns the process, a process's true.
            if isinstance(source, Procwatch.Process):
                assert returned is True
                returned = source
            self.process = returned
            self.state = self.process.props.state
        except GLib.Error as error:
            self.error = error
        self.done = True

    def finish(self):
        run_until(lambda: self.done, 'the wait to finish')
        return self


ISOLATED = 'PROCWATCH_TEST_ISOLATED'


def isolate(request, env=None, pid_namespace=False):
    """Runs the calling test again, alone, in a new Python process: with
    @env added to its environment (a backend is chosen once per process),
    and with @pid_namespace as pid 2 of a new pid namespace with its own
    /proc, where ns_last_pid can force pid reuse. Returns False in that new
    process, where the test goes on; True in this one once it has passed
    there (the caller returns). Skips where the namespace cannot be made."""
    nodeid = request.node.nodeid
    if os.environ.get(ISOLATED) == nodeid:
        return False

    # From /, by absolute paths: a test that drops to another user must not
    # leave pytest in a folder it may no longer enter (a clone under /root).
    rootpath = str(request.config.rootpath)
    command = [sys.executable, '-m', 'pytest', '-p', 'no:cacheprovider', '-q', '-rs',
               '--rootdir', rootpath, os.path.join(rootpath, nodeid)]
    if pid_namespace:
        command = [HELPER, 'pid-namespace'] + command
    result = subprocess.run(command, cwd='/', capture_output=True, text=True,
                            env=dict(os.environ, **(env or {}), **{ISOLATED: nodeid}),
                            timeout=TIMEOUT_SECONDS * 4)
    if result.returncode == 77 and pid_namespace:
        pytest.skip('cannot create a pid namespace with its own /proc here '
                    f'({result.stderr.strip()}): pid reuse cannot be forced')
    assert result.returncode == 0, \
        f'the isolated run failed ({result.returncode}):\n{result.stdout}\n{result.stderr}'
    if ' skipped' in result.stdout and ' passed' not in result.stdout:
        pytest.skip(f'skipped when isolated:\n{result.stdout}')
    return True


def write_proc_file(path, text):
    with open(path, 'w') as file:
        file.write(text)


class Shadow:
    """A copy of the model kept only from items-changed, and the changes
    seen since the last take()."""

    def __init__(self, model):
        self.model = model
        self.items = [model.get_item(i) for i in range(model.get_n_items())]
        self.changes = []
        model.connect('items-changed', self._on_items_changed)

    def _on_items_changed(self, model, position, removed, added):
        assert position + removed <= len(self.items), 'removes items that are not there'
        self.items[position:position + removed] = [model.get_item(i)
                                                   for i in range(position, position + added)]
        assert len(self.items) == model.get_n_items()
        self.changes.append((position, removed, added))

    def take(self):
        changes, self.changes = self.changes, []
        return changes


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
    """A child of the test, reaped when the test says so. Made once it runs
    the helper program: its exec is over, and its name is the helper's."""

    def __init__(self):
        super().__init__('child-ready', stdout=subprocess.PIPE)
        self.pid = self.popen.pid
        assert int(self.popen.stdout.readline()) == self.pid

    def reap(self):
        self.popen.stdin.close()
        return self.popen.wait(timeout=TIMEOUT_SECONDS)

    def close(self):
        if self.popen.returncode is None:
            self.popen.kill()
            self.popen.stdin.close()
            self.popen.wait()
        self.popen.stdout.close()


def child_with_pid(pid):
    """A new Child with exactly the pid @pid, which must be free (in a pid
    namespace of our own, as isolate() makes: ns_last_pid is writable)."""
    for _ in range(10):
        write_proc_file('/proc/sys/kernel/ns_last_pid', str(pid - 1))
        child = Child()
        if child.pid == pid:
            return child
        # Someone else forked in between: try again.
        child.close()
    raise AssertionError(f'could not make a process with pid {pid}')


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


