# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# watch_dbus_sender_async() from Python: a D-Bus service in the test process,
# on a private message bus the test starts (dbus-daemon, and dbus-broker
# where it is installed), watches the process of a real caller
# (procwatch-dbus-test-client) until it exits.

import errno
import os
import shutil
import subprocess

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import pidfd_refused_errno, run_until  # noqa: E402
from system_testing import private_bus  # noqa: E402

CLIENT = os.environ.get('PROCWATCH_TEST_DBUS_CLIENT')

INTROSPECTION = Gio.DBusNodeInfo.new_for_xml("""<node>
  <interface name='org.gioprocwatch.Test'>
    <method name='Hello'>
      <arg type='u' name='pid' direction='in'/>
      <arg type='t' name='inode' direction='in'/>
    </method>
  </interface>
</node>""")

pytestmark = pytest.mark.skipif(CLIENT is None, reason='needs the test client')


@pytest.fixture(params=['dbus-daemon', 'dbus-broker'])
def implementation(request):
    """Each message bus implementation. dbus-broker is not required:
    without it, its cases skip, unless PROCWATCH_TEST_REQUIRE_DBUS_BROKER is
    set (CI)."""
    if shutil.which(request.param) is None:
        if request.param == 'dbus-broker' and os.environ.get('PROCWATCH_TEST_REQUIRE_DBUS_BROKER'):
            pytest.fail('no dbus-broker in PATH, and PROCWATCH_TEST_REQUIRE_DBUS_BROKER is set')
        pytest.skip(f'no {request.param} in PATH')
    return request.param


@pytest.fixture
def bus(implementation):
    """A private message bus, and this process's connection to it."""
    with private_bus(implementation) as address:
        connection = Gio.DBusConnection.new_for_address_sync(
            address,
            Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT
            | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION,
            None, None)
        yield address, connection
        connection.close_sync(None)


# From which version on each bus sends ProcessFD.
PROCESS_FD_SINCE = {'dbus-daemon': (1, 16), 'dbus-broker': (34, 0)}


def promised_way(implementation):
    """What the installed bus's version promises, asked of it now ("dbus-broker
    33": the version is the last word of the first line)."""
    first_line = subprocess.run([implementation, '--version'], capture_output=True, text=True,
                                check=True).stdout.splitlines()[0]
    version = tuple(int(part) for part in first_line.split()[-1].split('.')[:2])
    return 'process-fd' if version + (0,) * (2 - len(version)) >= PROCESS_FD_SINCE[implementation] \
        else 'process-id'


def offered_way(connection):
    """What the bus sends in GetConnectionCredentials for @connection's own
    name: 'process-fd' (a pidfd, ProcessFD) or 'process-id' (ProcessID
    alone), and the pid it tells."""
    reply, fds = connection.call_with_unix_fd_list_sync(
        'org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
        'GetConnectionCredentials', GLib.Variant('(s)', (connection.get_unique_name(),)),
        GLib.VariantType('(a{sv})'), Gio.DBusCallFlags.NONE, -1, None, None)
    if fds is not None:
        for fd in fds.steal_fds():
            os.close(fd)
    credentials = reply.unpack()[0]
    return 'process-fd' if 'ProcessFD' in credentials else 'process-id', credentials['ProcessID']


def test_bus_offers_the_expected_way(implementation, bus):
    """What the bus sends in GetConnectionCredentials is what its version
    promises: ProcessFD since dbus-daemon 1.16 and dbus-broker 34, else only
    ProcessID."""
    _address, connection = bus
    offered, pid = offered_way(connection)
    assert pid == os.getpid()
    assert offered == promised_way(implementation)


class Service:
    """org.gioprocwatch.Test on @connection: each Hello call is answered,
    and its sender and the pid the caller says it has are kept."""

    def __init__(self, connection):
        self.calls = []
        self.registration = connection.register_object(
            '/org/gioprocwatch/Test', INTROSPECTION.interfaces[0], self._on_call, None, None)
        self.connection = connection

    def _on_call(self, connection, sender, path, interface, method, parameters, invocation):
        pid, _inode = parameters.unpack()
        self.calls.append((invocation.get_sender(), pid))
        invocation.return_value(None)

    def close(self):
        self.connection.unregister_object(self.registration)


class Caller:
    """A real D-Bus caller: calls Hello, then lives until close()."""

    def __init__(self, address, destination, mode='call'):
        self.process = subprocess.Popen([CLIENT, address, destination, mode],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def called(self):
        assert self.process.stdout.readline().strip() == 'called'

    def close(self):
        self.process.stdin.close()
        return self.process.wait()


def watch_sender(monitor, connection, sender):
    """watch_dbus_sender_async() with a callback; returns what the finish
    gave (a process or a GLib.Error)."""
    results = []

    def on_watched(source, result, user_data):
        assert source is monitor and user_data == 'data'
        try:
            results.append(source.watch_dbus_sender_finish(result))
        except GLib.Error as error:
            results.append(error)

    monitor.watch_dbus_sender_async(connection, sender, None, on_watched, 'data')
    assert not results, 'completes from the main loop only'
    run_until(lambda: results, 'watch_dbus_sender_async')
    return results[0]


@pytest.fixture
def service(bus):
    service = Service(bus[1])
    yield service
    service.close()


def test_watch_caller_until_exit(monitor, recorder, bus, service):
    address, connection = bus
    # A bus that tells only the caller's pid leaves the monitor to open a
    # pidfd for it: where pidfd_open() is refused, the call fails as the
    # documentation says (NOT_SUPPORTED for ENOSYS, Linux before 5.3), and
    # nothing is watched.
    refused = pidfd_refused_errno() if offered_way(connection)[0] == 'process-id' else 0
    caller = Caller(address, connection.get_unique_name())
    try:
        run_until(lambda: service.calls, 'the Hello call')
        caller.called()
        sender, pid = service.calls[0]
        assert pid == caller.process.pid

        process = watch_sender(monitor, connection, sender)
        if refused:
            expected = Gio.IOErrorEnum.NOT_SUPPORTED if refused == errno.ENOSYS else \
                Gio.io_error_from_errno(refused)
            assert isinstance(process, GLib.Error)
            assert process.matches(Gio.io_error_quark(), expected), process.message
            assert monitor.get_n_items() == 0
        else:
            assert isinstance(process, Procwatch.Process)
            assert process.get_pid() == caller.process.pid
            assert process.props.state == Procwatch.ProcessState.RUNNING
            assert recorder.names(pid) == []
    finally:
        status = caller.close()
    assert status == 0
    if refused:
        return
    recorder.wait_for(pid, 'exited')
    assert recorder.find(pid, 'exited')[2] is process


def test_gone_caller(monitor, bus, service):
    address, connection = bus
    caller = Caller(address, connection.get_unique_name())
    run_until(lambda: service.calls, 'the Hello call')
    caller.called()
    sender = service.calls[0][0]

    # The bus, not only the test, has to know the caller is gone.
    vanished = []
    watch = Gio.bus_watch_name_on_connection(connection, sender, Gio.BusNameWatcherFlags.NONE,
                                             None, lambda *args: vanished.append(True))
    assert caller.close() == 0
    run_until(lambda: vanished, f'{sender} to leave the bus')
    Gio.bus_unwatch_name(watch)

    error = watch_sender(monitor, connection, sender)
    assert isinstance(error, GLib.Error)
    assert error.matches(Gio.dbus_error_quark(), Gio.DBusError.NAME_HAS_NO_OWNER), error.message
    assert monitor.get_n_items() == 0


@pytest.mark.skipif(gi.version_info < (3, 50),
                    reason=f'PyGObject {gi.__version__} has no awaitable async methods (3.50+)')
def test_await_watch_sender(run, monitor, bus, service):
    address, connection = bus
    if offered_way(connection)[0] == 'process-id' and pidfd_refused_errno():
        pytest.skip('the bus tells the caller\'s pid alone and pidfd_open() is refused here: '
                    'nothing can be watched (test_watch_caller_until_exit has the error)')
    caller = Caller(address, connection.get_unique_name())
    run_until(lambda: service.calls, 'the Hello call')
    sender, pid = service.calls[0]

    async def main():
        process = await monitor.watch_dbus_sender_async(connection, sender)
        assert process.get_pid() == pid
        caller.process.stdin.close()
        return await process.wait_async()

    try:
        assert run(main()) is True
    finally:
        caller.close()
