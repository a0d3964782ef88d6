# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""procwatch --cgroup, --cgroup-of and --dbus-name on real cgroups, real
processes and a private dbus-daemon that the tests start.

The cgroups are made under the cgroup2 mount (found in /proc/self/mountinfo)
and removed again, also when a test fails: what is left in one is killed
through cgroup.kill first. No sleeps stand in for synchronisation: the tests
wait for the tool's --debug line that says the watch is set up.
"""

import contextlib
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid

import pytest

from test_procwatch import DEADLINE, Tool, assert_event, procs, run, tools, zombie  # noqa: F401


def cgroup2_mount():
    with open('/proc/self/mountinfo') as mountinfo:
        for line in mountinfo:
            fields = line.split()
            dash = fields.index('-')
            if fields[dash + 1] == 'cgroup2':
                return fields[4]
    return None


def populated(directory):
    with open(os.path.join(directory, 'cgroup.events')) as events:
        return 'populated 1' in events.read().split('\n')


def empty_cgroup(directory):
    """Kills every process in the cgroup and waits, on cgroup.events'
    notification, until it is empty."""
    with open(os.path.join(directory, 'cgroup.kill'), 'w') as kill:
        kill.write('1')
    poll = select.poll()
    events = open(os.path.join(directory, 'cgroup.events'))
    try:
        poll.register(events, select.POLLPRI)
        deadline = time.monotonic() + DEADLINE
        while populated(directory):
            if time.monotonic() > deadline:
                raise TimeoutError('cgroup %s still populated' % directory)
            poll.poll(1000)
    finally:
        events.close()


class Cgroups:
    """Makes cgroups under the cgroup2 mount; removes them all at the end."""

    def __init__(self, mount):
        self.mount = mount
        self.made = []

    def make(self):
        name = 'procwatch-test-' + uuid.uuid4().hex[:12]
        directory = os.path.join(self.mount, name)
        os.mkdir(directory)
        self.made.append(directory)
        return '/' + name, directory

    def cleanup(self):
        for directory in reversed(self.made):
            if os.path.isdir(directory):
                empty_cgroup(directory)
                os.rmdir(directory)


def skip_for_system(reason):
    """Skips saying what this system lacks; where every test must run
    (PROCWATCH_TEST_REQUIRE_ALL=1, CI), fails instead."""
    if os.environ.get('PROCWATCH_TEST_REQUIRE_ALL'):
        pytest.fail('%s, and PROCWATCH_TEST_REQUIRE_ALL is set' % reason)
    pytest.skip(reason)


def writable_cgroup2_mount():
    """The cgroup2 mount if this user may make cgroups there; else skips."""
    mount = cgroup2_mount()
    if mount is None:
        skip_for_system('no cgroup2 mount')
    if not os.access(mount, os.W_OK):
        skip_for_system('the cgroup2 mount %s is not writable by uid %d' % (mount, os.getuid()))
    return mount


@pytest.fixture
def cgroups():
    made = Cgroups(writable_cgroup2_mount())
    try:
        probe = made.make()[1]
    except OSError as error:
        skip_for_system('cannot make a cgroup under %s: %s' % (made.mount, error))
    if not os.path.exists(os.path.join(probe, 'cgroup.kill')):
        made.cleanup()
        pytest.skip('no cgroup.kill (Linux 5.14+) to clean up with')
    try:
        yield made
    finally:
        made.cleanup()


def joiner(directory):
    """A preexec_fn that moves the child into the cgroup before it runs."""
    def join():
        with open(os.path.join(directory, 'cgroup.procs'), 'w') as procs:
            procs.write(str(os.getpid()))
    return join


def launch_with_orphan(directory):
    """A shell in the cgroup that starts `sleep` in the background, prints
    its pid and exits when its stdin closes, leaving the sleep behind as an
    orphan in the cgroup."""
    launcher = subprocess.Popen(['sh', '-c', 'sleep 300 & echo $!; read x'],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                preexec_fn=joiner(directory))
    orphan = int(launcher.stdout.readline())
    return launcher, orphan


def wait_for_err(tool, prefix):
    """Reads the tool's stderr up to the line starting with @prefix."""
    lines = []
    while True:
        line = tool.err_line()
        assert line is not None, 'no %r line; stderr was %r' % (prefix, lines)
        lines.append(line)
        if line.startswith(prefix):
            return line


def test_cgroup_returns_when_the_orphan_is_gone(cgroups, tools):
    """The launched process exits first; its orphan keeps the cgroup
    populated, and only its death ends the wait."""
    path, directory = cgroups.make()
    launcher, orphan = launch_with_orphan(directory)
    tool = tools('--json', '--debug', '--cgroup', path, launcher.pid)
    wait_for_err(tool, 'procwatch: watching cgroup %s' % path)

    launcher.stdin.close()
    launcher.wait()
    record = json.loads(tool.line())
    assert record['event'] == 'exited' and record['pid'] == launcher.pid
    assert tool.proc.poll() is None and populated(directory)

    before_kill_us = time.monotonic_ns() // 1000
    os.kill(orphan, 9)
    record = json.loads(tool.line())
    assert record['event'] == 'cgroup-emptied' and record['cgroup'] == path
    assert list(record) == ['time', 'monotonic_us', 'event', 'cgroup']
    # Emptied only once the orphan was killed, not when the launcher left.
    assert record['monotonic_us'] >= before_kill_us
    status, out, _ = tool.finish()
    assert (status, out) == (0, [])


def test_cgroup_text_line_and_full_path(cgroups, tools):
    """By its path under the mount too; the event line keeps the event as
    the second field and names the cgroup by its path from the root."""
    path, directory = cgroups.make()
    proc = subprocess.Popen(['sh', '-c', 'read x'], stdin=subprocess.PIPE,
                            preexec_fn=joiner(directory))
    tool = tools('--debug', '--cgroup', directory)
    wait_for_err(tool, 'procwatch: watching cgroup')
    proc.stdin.close()
    proc.wait()
    assert tool.line() == '- cgroup-emptied %s' % path
    assert tool.finish()[0:2] == (0, [])


def test_empty_cgroup_is_reported_at_once(cgroups):
    path, _ = cgroups.make()
    status, out, err = run('--cgroup', path)
    assert (status, out, err) == (0, '- cgroup-emptied %s\n' % path, '')


def test_cgroups_count_like_processes(cgroups, tools):
    """-c 1 with two cgroups: the first to empty ends the wait; -t on a
    populated one expires with 3."""
    first, first_dir = cgroups.make()
    second, second_dir = cgroups.make()
    keep = subprocess.Popen(['sh', '-c', 'read x'], stdin=subprocess.PIPE,
                            preexec_fn=joiner(second_dir))
    try:
        status, out, _ = run('-c', '1', '--cgroup', second, '--cgroup', first)
        assert (status, out) == (0, '- cgroup-emptied %s\n' % first)

        status, out, _ = run('-t', '0.2', '--cgroup', second)
        assert (status, out) == (3, '')
    finally:
        keep.stdin.close()
        keep.wait()


def test_cgroup_of_pid(cgroups, tools):
    path, directory = cgroups.make()
    launcher, orphan = launch_with_orphan(directory)
    tool = tools('--debug', '--cgroup-of', launcher.pid)
    wait_for_err(tool, 'procwatch: watching cgroup %s' % path)
    launcher.stdin.close()
    launcher.wait()
    assert tool.proc.poll() is None
    os.kill(orphan, 9)
    assert tool.line() == '- cgroup-emptied %s' % path
    assert tool.finish()[0:2] == (0, [])


def test_no_such_cgroup(cgroups):
    """Not there: 1 with the library's message; skipped with -e."""
    status, out, err = run('--cgroup', '/procwatch-no-such-cgroup')
    assert (status, out) == (1, '')
    assert err.startswith('procwatch: ') and 'no such cgroup' in err, err

    status, out, err = run('-e', '--cgroup', '/procwatch-no-such-cgroup')
    assert (status, out, err) == (0, '', '')


def test_cgroup_of_a_gone_pid():
    proc = subprocess.Popen(['true'])
    proc.wait()
    status, out, err = run('--cgroup-of', proc.pid)
    assert (status, out) == (1, '')
    assert 'could not open PID %d' % proc.pid in err

    status, out, err = run('-e', '-v', '--cgroup-of', proc.pid)
    assert (status, out, err) == (0, '', 'procwatch: PID %d has exited, skipping\n' % proc.pid)


BUS_CONFIG = """<busconfig>
  <type>session</type>
  <listen>unix:path=%s/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context='default'>
    <allow send_destination='*' eavesdrop='true'/>
    <allow eavesdrop='true'/>
    <allow own='*'/>
  </policy>
</busconfig>
"""

# Owns a name on the bus, says so, and exits when its stdin closes.
CLIENT = """
import sys
from gi.repository import Gio, GLib
bus = Gio.DBusConnection.new_for_address_sync(
    sys.argv[1], Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
    Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, None, None)
reply = bus.call_sync('org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus',
                      'RequestName', GLib.Variant('(su)', (sys.argv[2], 4)),
                      GLib.VariantType('(u)'), Gio.DBusCallFlags.NONE, -1, None)
assert reply.unpack() == (1,), reply
print('owned', flush=True)
sys.stdin.read()
"""


@pytest.fixture
def bus_daemon():
    """A private dbus-daemon, as (address, process); its socket in a short
    directory of its own, as pytest's may pass the 107 bytes a socket path
    can have."""
    if shutil.which('dbus-daemon') is None:
        pytest.skip('no dbus-daemon')
    with tempfile.TemporaryDirectory(prefix='procwatch-bus-') as directory:
        config = os.path.join(directory, 'bus.conf')
        with open(config, 'w') as f:
            f.write(BUS_CONFIG % directory)
        daemon = subprocess.Popen(['dbus-daemon', '--config-file=%s' % config, '--nofork',
                                   '--print-address=1'], stdout=subprocess.PIPE)
        try:
            address = daemon.stdout.readline().decode().strip()
            assert address, 'dbus-daemon did not start'
            yield address, daemon
        finally:
            # A stopped daemon takes its TERM only once it runs again.
            daemon.send_signal(signal.SIGCONT)
            daemon.terminate()
            daemon.wait()
            daemon.stdout.close()


@pytest.fixture
def session_bus(bus_daemon):
    return bus_daemon[0]


@contextlib.contextmanager
def bus_owner(address, name, preexec_fn=None):
    """A client that owns @name on the bus until its stdin is closed."""
    client = subprocess.Popen(['/usr/bin/python3', '-c', CLIENT, address, name],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              preexec_fn=preexec_fn)
    try:
        assert client.stdout.readline() == b'owned\n'
        yield client
    finally:
        if client.poll() is None:
            client.kill()
        client.wait()
        client.stdout.close()


def test_dbus_name_owner_exits(session_bus, tools, monkeypatch):
    monkeypatch.setenv('DBUS_SESSION_BUS_ADDRESS', session_bus)
    with bus_owner(session_bus, 'org.example.Owner') as client:
        tool = tools('--debug', '--session', '--dbus-name', 'org.example.Owner')
        wait_for_err(tool, 'procwatch: watching %d' % client.pid)
        client.stdin.close()
        assert_event(tool.line(), client.pid, 'exited')
        assert tool.finish()[0:2] == (0, [])


def test_dbus_name_without_owner(session_bus, monkeypatch):
    monkeypatch.setenv('DBUS_SESSION_BUS_ADDRESS', session_bus)
    status, out, err = run('--dbus-name', 'org.example.Nobody')
    assert (status, out) == (1, '')
    assert err == "procwatch: no process owns the bus name 'org.example.Nobody'\n"

    status, out, err = run('-e', '--dbus-name', 'org.example.Nobody')
    assert (status, out, err) == (0, '', '')


def test_dbus_name_and_cgroup(session_bus, cgroups, tools, monkeypatch):
    """Both kinds at once: the run ends when the owner has exited and the
    cgroup it was in is empty, in whichever order they are reported."""
    monkeypatch.setenv('DBUS_SESSION_BUS_ADDRESS', session_bus)
    path, directory = cgroups.make()
    with bus_owner(session_bus, 'org.example.Both', joiner(directory)) as client:
        tool = tools('--json', '--debug', '--dbus-name', 'org.example.Both', '--cgroup', path)
        wait_for_err(tool, 'procwatch: watching cgroup')
        client.stdin.close()
        events = sorted(json.loads(tool.line())['event'] for _ in range(2))
        assert events == ['cgroup-emptied', 'exited']
        assert tool.finish()[0:2] == (0, [])


BUS_ITSELF = ("procwatch: cannot watch the owner of bus name 'org.freedesktop.DBus': "
              "it is owned by the bus itself, not by a connection\n")


def test_dbus_name_of_the_bus_itself(session_bus, procs, monkeypatch):
    """The bus owns org.freedesktop.DBus and answers GetNameOwner with that
    name, which is no connection's: an operand that cannot be watched, 1 at
    once; with -e reported, the others watched, and the status still 1 (or
    the timeout's)."""
    monkeypatch.setenv('DBUS_SESSION_BUS_ADDRESS', session_bus)
    assert run('--dbus-name', 'org.freedesktop.DBus') == (1, '', BUS_ITSELF)
    assert run('-t', '60', '--dbus-name', 'org.freedesktop.DBus') == (1, '', BUS_ITSELF)

    exited = zombie(procs)
    assert run('-e', '--dbus-name', 'org.freedesktop.DBus', exited.pid) == (
        1, '%d exited sleep\n' % exited.pid, BUS_ITSELF)

    running = procs()
    assert run('-e', '-t', '0.2', '--dbus-name', 'org.freedesktop.DBus', running.pid) == (
        3, '', BUS_ITSELF)
    assert running.poll() is None


@pytest.mark.parametrize('name', ['org.example.Owner', 'org.freedesktop.DBus'])
def test_timeout_holds_while_the_bus_does_not_answer(bus_daemon, monkeypatch, name):
    """-t bounds the whole run, the bus's answers included: with the bus
    stopped, the time runs out as it would for a process."""
    address, daemon = bus_daemon
    monkeypatch.setenv('DBUS_SESSION_BUS_ADDRESS', address)
    daemon.send_signal(signal.SIGSTOP)
    try:
        assert run('-t', '0.2', '--dbus-name', name) == (3, '', '')
    finally:
        daemon.send_signal(signal.SIGCONT)
