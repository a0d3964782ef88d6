# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Applications from Python: app ids of watched cgroups, the instances of an
# app found below a cgroup the test makes as a fake user manager's tree,
# and the cgroup signal, awaited with a callback, on real processes.

import os
import signal
import subprocess

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GLib, Procwatch  # noqa: E402

from procwatch_testing import run_until  # noqa: E402
from test_cgroup import make_cgroup  # noqa: E402,F401


def spawn_ignoring_term(directory):
    """A process in @directory that ignores SIGTERM (inherited SIG_IGN)."""
    process = subprocess.Popen(['sleep', 'infinity'],
                               preexec_fn=lambda: signal.signal(signal.SIGTERM, signal.SIG_IGN))
    directory.processes.append(process)
    with open(os.path.join(directory.absolute, 'cgroup.procs'), 'w') as procs:
        procs.write(str(process.pid))
    return process


def send(cgroup, signum):
    """Sends @signum into @cgroup; returns (ok, error) once it completed."""
    outcome = []

    def on_sent(cgroup, result):
        try:
            outcome.append((cgroup.send_signal_finish(result), None))
        except GLib.Error as error:
            outcome.append((False, error))

    cgroup.send_signal_async(signum, None, on_sent)
    assert outcome == [], 'never from inside the call'
    run_until(lambda: outcome, 'send_signal_async')
    return outcome[0]


def test_find_app_instances_and_app_id(monitor, make_cgroup):
    manager = make_cgroup('user@1000.service')
    first = make_cgroup('user@1000.service/app-gnome-org.example.App-4242.scope')
    second = make_cgroup('user@1000.service/app-flatpak-org.example.App-12.scope')
    other = make_cgroup('user@1000.service/app-org.example.Other@abc.service')
    for directory in (first, second, other):
        directory.spawn()

    paths = Procwatch.Cgroup.find_app_instances('org.example.App', manager.relative)
    assert paths == [second.relative, first.relative]
    assert Procwatch.Cgroup.find_app_instances('org.example.Missing', manager.relative) == []

    cgroup = monitor.watch_cgroup(paths[0])
    assert cgroup.get_app_id() == 'org.example.App'
    assert cgroup.props.app_id == 'org.example.App'
    assert monitor.watch_cgroup(manager.relative).get_app_id() is None

    with pytest.raises(GLib.Error) as excinfo:
        Procwatch.Cgroup.find_app_instances('not an id', manager.relative)
    assert excinfo.value.matches(Gio.io_error_quark(), Gio.IOErrorEnum.INVALID_ARGUMENT)


def test_send_signal(monitor, make_cgroup):
    directory = make_cgroup('app-test-org.example.Stubborn-1.scope')
    stubborn = spawn_ignoring_term(directory)
    obeying = directory.spawn()
    cgroup = monitor.watch_cgroup(directory.relative)

    assert send(cgroup, signal.SIGTERM) == (True, None)
    assert obeying.wait(timeout=30) == -signal.SIGTERM
    assert stubborn.poll() is None
    with open(os.path.join(directory.absolute, 'cgroup.freeze')) as freeze:
        assert freeze.read() == '0\n'

    assert send(cgroup, signal.SIGKILL) == (True, None)
    assert stubborn.wait(timeout=30) == -signal.SIGKILL

    monitor.unwatch_cgroup(cgroup)
    ok, error = send(cgroup, signal.SIGTERM)
    assert not ok and error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.CLOSED)
