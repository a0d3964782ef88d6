# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""procwatch --app and --signal-cgroups on real processes in a fake systemd
user manager's tree: a scratch cgroup holding `user@UID.service` (UID the
tests' own), with app units named as GNOME Shell and Flatpak name them. The
tool runs inside that user manager, as a desktop program would, so it finds
the apps on its own. Everything is thawed, killed and removed at the end,
also when a test fails.
"""

import json
import os
import select
import signal
import subprocess
import time
import uuid

import pytest

from test_cgroup_dbus import joiner, populated, wait_for_err, writable_cgroup2_mount
from test_procwatch import DEADLINE, run, tools  # noqa: F401


class UserManager:
    """A fake `user@UID.service` below a scratch cgroup of the tests."""

    def __init__(self, mount):
        self.name = 'procwatch-apps-' + uuid.uuid4().hex[:12]
        self.top = os.path.join(mount, self.name)
        self.manager = 'user@%d.service' % os.getuid()
        os.mkdir(self.top)
        self.session = self.make('session.slice/org.gnome.Shell@wayland.service')[1]

    def make(self, unit):
        """A cgroup at @unit below the user manager: (relative path, directory)."""
        directory = os.path.join(self.top, self.manager, unit)
        os.makedirs(directory, exist_ok=True)
        return '/%s/%s/%s' % (self.name, self.manager, unit), directory

    def cleanup(self):
        for root, dirs, _ in os.walk(self.top):
            for name in dirs:
                with open(os.path.join(root, name, 'cgroup.freeze'), 'w') as freeze:
                    freeze.write('0')
        with open(os.path.join(self.top, 'cgroup.kill'), 'w') as kill:
            kill.write('1')
        events = open(os.path.join(self.top, 'cgroup.events'))
        try:
            poll = select.poll()
            poll.register(events, select.POLLPRI)
            deadline = time.monotonic() + DEADLINE
            while populated(self.top) and time.monotonic() < deadline:
                poll.poll(1000)
        finally:
            events.close()
        for root, dirs, _ in os.walk(self.top, topdown=False):
            for name in dirs:
                os.rmdir(os.path.join(root, name))
        os.rmdir(self.top)


@pytest.fixture
def user_manager():
    mount = writable_cgroup2_mount()
    made = UserManager(mount)
    started = []

    def launch(unit, script='read x', setup=''):
        """A shell running @script in the app unit @unit, once it has run
        @setup (a trap, say) and said so."""
        path, directory = made.make('app.slice/' + unit)
        proc = subprocess.Popen(['sh', '-c', setup + 'echo ready; ' + script],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                preexec_fn=joiner(directory))
        assert proc.stdout.readline() == b'ready\n'
        started.append(proc)
        return path, proc

    made.launch = launch
    try:
        yield made
    finally:
        for proc in started:
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            proc.stdin.close()
            proc.stdout.close()
        made.cleanup()


def test_app_with_two_instances(user_manager, tools):
    """Both instances are watched; the app is done when both are empty;
    each JSON record names the app and the cgroup."""
    first, first_proc = user_manager.launch('app-gnome-org.example.App-4242.scope')
    second, second_proc = user_manager.launch('app-flatpak-org.example.App-12.scope')
    user_manager.launch('app-gnome-org.example.Other-5.scope')
    tool = tools('--json', '--debug', '--app', 'org.example.App',
                 preexec_fn=joiner(user_manager.session))
    wait_for_err(tool, 'procwatch: watching cgroup %s of app' % first)

    second_proc.stdin.close()
    second_proc.wait()
    record = json.loads(tool.line())
    assert record['event'] == 'cgroup-emptied'
    assert (record['cgroup'], record['app_id']) == (second, 'org.example.App')
    assert tool.proc.poll() is None

    first_proc.stdin.close()
    first_proc.wait()
    record = json.loads(tool.line())
    assert (record['cgroup'], record['app_id']) == (first, 'org.example.App')
    status, out, _ = tool.finish()
    assert (status, out) == (0, [])


def test_app_counts_as_one(user_manager):
    """-c 1 with an app of two instances and an empty cgroup: the cgroup
    ends it; the app alone with -t expires (3)."""
    user_manager.launch('app-gnome-org.example.App-1.scope')
    user_manager.launch('app-gnome-org.example.App-2.scope')
    empty, _ = user_manager.make('app.slice/app-org.example.Empty.service')
    status, out, _ = run('-c', '1', '--app', 'org.example.App', '--cgroup', empty,
                         wrapper=('sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"'
                                  % user_manager.session, 'sh'))
    assert (status, out) == (0, '- cgroup-emptied %s\n' % empty)

    status, out, _ = run('-t', '0.2', '--app', 'org.example.App',
                         wrapper=('sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"'
                                  % user_manager.session, 'sh'))
    assert (status, out) == (3, '')


def test_app_not_running(user_manager):
    """1 with a message; skipped with -e; an id that is none is bad usage
    of the library's kind (1, its message)."""
    inside = ('sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"' % user_manager.session, 'sh')
    status, out, err = run('--app', 'org.example.Missing', wrapper=inside)
    assert (status, out, err) == (1, '', 'procwatch: app org.example.Missing is not running\n')

    status, out, err = run('-e', '--app', 'org.example.Missing', wrapper=inside)
    assert (status, out, err) == (0, '', '')

    status, out, err = run('--app', 'not an id', wrapper=inside)
    assert status == 1 and 'not a valid application id' in err, err


def test_app_outside_a_user_manager(user_manager):
    """Run where no user manager is (the scratch cgroup itself): 1, saying so."""
    status, out, err = run('--app', 'org.example.App',
                           wrapper=('sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"'
                                    % user_manager.top, 'sh'))
    assert (status, out) == (1, '')
    assert 'user@%d.service' % os.getuid() in err, err


def test_send_term_then_kill_after(user_manager, tools):
    """An app whose processes ignore TERM: --send TERM reaches each (and
    they live on), -k sends KILL through cgroup.kill, and the app is gone."""
    path, proc = user_manager.launch('app-gnome-org.example.Stubborn-7.scope',
                                     'sleep 300 & read x', setup="trap '' TERM; ")
    tool = tools('--json', '--app', 'org.example.Stubborn', '--send', 'TERM', '-k', '0.5',
                 '-t', '20', preexec_fn=joiner(user_manager.session))

    record = json.loads(tool.line())
    assert record['event'] == 'signal' and record['signal_name'] == 'SIGTERM'
    assert (record['cgroup'], record['app_id'], record['why']) == \
        (path, 'org.example.Stubborn', 'send')
    assert record['error'] is None
    assert proc.poll() is None

    record = json.loads(tool.line())
    assert record['event'] == 'signal' and record['signal_name'] == 'SIGKILL'
    assert record['why'] == 'kill-after'
    record = json.loads(tool.line())
    assert (record['event'], record['cgroup']) == ('cgroup-emptied', path)
    status, out, _ = tool.finish()
    assert (status, out) == (0, [])
    assert proc.wait(DEADLINE) == -signal.SIGKILL


def test_cgroup_signalled_only_when_asked(user_manager):
    """--cgroup keeps 1.2's behaviour: --send reaches no process in it (the
    timeout expires, the process lives); --signal-cgroups sends it."""
    path, proc = user_manager.launch('app-org.example.Plain.service')
    inside = ('sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"' % user_manager.session, 'sh')

    status, out, _ = run('-t', '0.3', '--send', 'TERM', '--cgroup', path, wrapper=inside)
    assert (status, out) == (3, '')
    assert proc.poll() is None

    status, out, _ = run('-t', '20', '--send', 'TERM', '--signal-cgroups', '--cgroup', path,
                         wrapper=inside)
    assert (status, out) == (0, '- cgroup-emptied %s\n' % path)
    assert proc.wait(DEADLINE) == -signal.SIGTERM


def test_refuses_to_signal_its_own_tree(user_manager):
    """procwatch inside the app it would stop: refused (1), nothing frozen
    or signalled."""
    path, proc = user_manager.launch('app-gnome-org.example.Self-3.scope')
    directory = os.path.join(user_manager.top, path.split('/', 2)[2])
    status, out, err = run('--app', 'org.example.Self', '--send', 'TERM',
                           wrapper=('sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"'
                                    % directory, 'sh'))
    assert (status, out) == (1, '')
    assert 'this process is in it' in err, err
    assert proc.poll() is None
    with open(os.path.join(directory, 'cgroup.freeze')) as freeze:
        assert freeze.read() == '0\n'


def test_send_never_reaches_an_escaped_byte_lookalike(user_manager, tools):
    """A unit whose id unescapes to bytes no id has (`\\x00` here, which a C
    string would cut the id short at) is no instance of the app: --app
    --send KILL ends the app and leaves that unit's process alone."""
    path, proc = user_manager.launch('app-gnome-org.example.Calc-1.scope')
    _, evil = user_manager.launch('app-gnome-org.example.Calc\\x00.evil-2.scope')
    inside = ('sh', '-c', 'echo $$ > %s/cgroup.procs && exec "$@"' % user_manager.session, 'sh')
    status, out, err = run('--send', 'KILL', '--app', 'org.example.Calc', wrapper=inside)
    assert (status, out, err) == (0, '- cgroup-emptied %s\n' % path, '')
    assert proc.wait(DEADLINE) == -signal.SIGKILL
    assert evil.poll() is None
