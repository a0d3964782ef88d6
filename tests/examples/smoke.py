#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Runs an example on real processes and checks what it reports, and that
# the page showing its code shows it as it is.
#
#   smoke.py watch WATCH WATCH_C README_MD
#   smoke.py watch-vala WATCH_VALA
#   smoke.py launcher PYTHON LAUNCHER_PY PAGE_MD
#   smoke.py launch-app PAGE_MD SOURCE COMMAND...
#   smoke.py launch-desktop PAGE_MD SOURCE COMMAND...
#   smoke.py getting-started PAGE_MD SOURCE COMMAND...
#   smoke.py watch-pidfd PAGE_MD PYTHON WATCH_PIDFD_PY
#   smoke.py watch-app PAGE_MD SOURCE COMMAND...
#   smoke.py stop-app PAGE_MD SOURCE COMMAND...
#   smoke.py dbus-callers PAGE_MD SOURCE CLIENT COMMAND...
#   smoke.py excerpt PAGE_MD SOURCE MARKER

import ctypes
import os
import re
import select
import signal
import subprocess
import sys
import tempfile

# The cgroup2 mount and a private bus, as the Python tests find and make them.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'python'))
from system_testing import cgroup2_mount, private_bus  # noqa: E402

TIMEOUT_SECONDS = 60
PR_SET_CHILD_SUBREAPER = 36


def on_timeout(signum, frame):
    raise TimeoutError(f'the example did not finish within {TIMEOUT_SECONDS} s')


def expect_line(example, expected):
    line = example.stdout.readline().rstrip('\n')
    print(line)
    assert line == expected, f'expected "{expected}", got "{line}"'


def finish(example):
    rest = example.stdout.read()
    assert rest == '', f'unexpected output: {rest!r}'
    status = example.wait()
    assert status == 0, f'the example exited with {status}'


def assert_shown(source, page):
    """The page shows the program in a fenced block from its first #include
    or import on: what is left out is the licence header."""
    with open(source) as file:
        lines = file.read().splitlines(keepends=True)
    start = next(i for i, line in enumerate(lines) if line.startswith(('#include', 'import ')))
    code = ''.join(lines[start:])
    with open(page) as file:
        text = file.read()
    block = re.compile('^```[a-z]*\n' + re.escape(code) + '```$', re.MULTILINE)
    assert block.search(text), f'{os.path.basename(page)} shows another {os.path.basename(source)}'


def assert_excerpted(source, page, marker):
    """The page's fenced block that contains @marker shows parts of the
    program as they are: each run of lines between "..." lines is in it."""
    with open(source) as file:
        code = file.read()
    with open(page) as file:
        blocks = re.findall('^```[a-z]*\n(.*?)^```$', file.read(), re.MULTILINE | re.DOTALL)
    block = next(block for block in blocks if marker in block)
    for part in re.split('^ *\\.\\.\\.\n', block, flags=re.MULTILINE):
        assert part in code, f'{os.path.basename(page)} shows another {os.path.basename(source)}'


class Example(subprocess.Popen):
    """An example whose output is read line by line; killed if the check
    fails, so that it cannot hold the test runner's pipes."""

    def __init__(self, argv):
        super().__init__(argv, stdout=subprocess.PIPE, text=True)

    def __exit__(self, exc_type, value, traceback):
        if exc_type is not None:
            self.kill()
        super().__exit__(exc_type, value, traceback)


def smoke_watch(watch):
    """A process of ours that watch, not its parent, sees exit and get reaped."""
    target = subprocess.Popen(['sh', '-c', 'read line; exit 3'], stdin=subprocess.PIPE)
    pid = target.pid
    with target, Example([watch, str(pid)]) as example:
        expect_line(example, f'watching {pid}')

        target.stdin.close()
        expect_line(example, f'{pid} exited')
        assert target.wait() == 3
        expect_line(example, f'{pid} reaped, exit code 3')
        finish(example)


# What the launched program does, and how the launcher reports its end.
LAUNCHED = [('exit 3', 'exit code 3'),
            ('kill -TERM $$', f'killed by signal {int(signal.SIGTERM)}')]


def smoke_launcher(start):
    """The launched program is orphaned, and reparented to us: we act as the
    session's reaper, and reap it once the launcher watches it. start(script)
    gives the launcher's command line that runs `sh -c script`, and the name
    it reports."""
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0

    for script, report in LAUNCHED:
        argv, name = start(script)
        with Example(argv) as example:
            line = example.stdout.readline().rstrip('\n')
            print(line)
            assert line.startswith(f'{name} started as process '), f'unexpected "{line}"'
            pid = int(line.rsplit(' ', 1)[1])
            assert pid != example.pid

            expect_line(example, f'{name} (process {pid}) has quit')
            assert os.waitpid(pid, 0)[0] == pid
            expect_line(example, f'{name} (process {pid}) is gone: {report}')
            finish(example)


def smoke_launcher_interrupt(python, launcher):
    """Ctrl-C stops the app: the launcher sends it SIGTERM through its
    process object, then reports its end as any other."""
    libc = ctypes.CDLL(None, use_errno=True)
    assert libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0

    with Example([python, launcher, 'sh', '-c', 'exec sleep 1000']) as example:
        line = example.stdout.readline().rstrip('\n')
        print(line)
        assert line.startswith('sh started as process '), f'unexpected "{line}"'
        pid = int(line.rsplit(' ', 1)[1])

        example.send_signal(signal.SIGINT)
        expect_line(example, f'stopping sh (process {pid})')
        expect_line(example, f'sh (process {pid}) has quit')
        _, status = os.waitpid(pid, 0)
        assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM
        expect_line(example, f'sh (process {pid}) is gone: killed by signal {int(signal.SIGTERM)}')
        finish(example)


def desktop_file(directory, script):
    """A .desktop file whose app runs `sh -c script`. In Exec, `$` is escaped
    with a backslash, written doubled in the key file."""
    path = os.path.join(directory, 'smoke.desktop')
    exec_line = 'sh -c "{}"'.format(script.replace('$', '\\\\$'))
    with open(path, 'w') as file:
        file.write(f'[Desktop Entry]\nType=Application\nName=Smoke Test\nExec={exec_line}\n')
    return path


def smoke_getting_started(page, source, command):
    """The guide's first program, in any language: a process of ours exits,
    then we reap it; the program, not its parent, reports both."""
    assert_shown(source, page)

    target = subprocess.Popen(['sh', '-c', 'read line; exit 3'], stdin=subprocess.PIPE)
    pid = target.pid
    with target, Example(command + [str(pid)]) as example:
        line = example.stdout.readline().rstrip('\n')
        print(line)
        assert re.fullmatch(f'watching {pid} with the [a-z]+ backend', line), f'unexpected "{line}"'

        target.stdin.close()
        expect_line(example, f'{pid} exited')
        assert target.wait() == 3
        expect_line(example, f'{pid} reaped: exit code 3')
        finish(example)


def smoke_watch_pidfd(page, python, source):
    """The pid reuse page's program watches a process of ours by pidfd."""
    assert_shown(source, page)

    target = subprocess.Popen(['sh', '-c', 'read line; exit 3'], stdin=subprocess.PIPE)
    pid = target.pid
    with target, Example([python, source, str(pid)]) as example:
        expect_line(example, f'watching sh ({pid})')

        target.stdin.close()
        assert target.wait() == 3
        expect_line(example, f'sh ({pid}) is gone')
        finish(example)


SKIP = 77  # meson's exit status for a test that cannot run here


def move(cgroup, pid):
    with open(os.path.join(cgroup, 'cgroup.procs'), 'w') as procs:
        procs.write(str(pid))


def smoke_watch_app(command):
    """The example watches the cgroup of a process (the app's scope, here a
    cgroup of ours): the process quits first, the app is gone only once the
    other process of the cgroup has quit too. A process that shares the
    example's own cgroup is refused."""
    mount = cgroup2_mount()
    if mount is None:
        print('cgroup v2 is not mounted here')
        return SKIP
    absolute = os.path.join(mount[0], f'gio-procwatch-smoke-{os.getpid()}')
    relative = mount[1].rstrip('/') + '/' + os.path.basename(absolute)
    try:
        os.mkdir(absolute)
    except OSError as error:
        print(f'cannot make a cgroup under {mount[0]}: {error.strerror}')
        return SKIP

    first = subprocess.Popen(['sleep', '1000'])
    other = subprocess.Popen(['sleep', '1000'])
    try:
        for process in first, other:
            move(absolute, process.pid)
        with Example(command + [str(first.pid)]) as example:
            expect_line(example, f'process {first.pid} is in {relative}')
            first.kill()
            expect_line(example, f'process {first.pid} has quit')
            other.kill()
            expect_line(example, f'{relative} is empty: the app is gone')
            finish(example)

        # A process in the example's own cgroup (a cgroup that could be
        # watched): refused, since it cannot empty while the example runs.
        shared = absolute + '-shared'
        os.mkdir(shared)
        try:
            with subprocess.Popen(['sleep', '1000']) as same:
                move(shared, same.pid)
                refused = subprocess.run(command + [str(same.pid)], stdout=subprocess.PIPE,
                                         stderr=subprocess.PIPE, text=True,
                                         preexec_fn=lambda: move(shared, os.getpid()))
                same.kill()
        finally:
            os.rmdir(shared)
        print(refused.stderr, end='')
        assert refused.returncode == 1 and refused.stdout == '', refused
        assert 'shares our cgroup' in refused.stderr, refused
    finally:
        for process in first, other:
            process.kill()
            process.wait()
        os.rmdir(absolute)
    return 0


def smoke_dbus_callers(client, command):
    """On a private bus, a real caller says hello; its state is freed when
    it exits, and the example, without callers, quits."""
    with private_bus() as address, Example(command + [address]) as example:
        name = example.stdout.readline().strip()
        assert name.startswith(':'), f'unexpected "{name}"'
        with subprocess.Popen([client, address, name, 'call',
                               'org.gioprocwatch.Example.Callers.Hello'],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True) as caller:
            assert caller.stdout.readline() == 'called\n'
            expect_line(example, f'caller {caller.pid} said hello')
            caller.stdin.close()
            assert caller.wait() == 0
        expect_line(example, f'caller {caller.pid} has quit: its state is freed')
        finish(example)


def remove_tree(top):
    """Thaws, empties and removes a cgroup tree of ours."""
    for root, dirs, _ in os.walk(top):
        for name in dirs:
            with open(os.path.join(root, name, 'cgroup.freeze'), 'w') as freeze:
                freeze.write('0')
    with open(os.path.join(top, 'cgroup.kill'), 'w') as kill:
        kill.write('1')
    with open(os.path.join(top, 'cgroup.events')) as events:
        poll = select.poll()
        poll.register(events, select.POLLPRI)
        while 'populated 1' in os.pread(events.fileno(), 4096, 0).decode():
            assert poll.poll(TIMEOUT_SECONDS * 1000), f'{top} stays populated'
    for root, dirs, _ in os.walk(top, topdown=False):
        for name in dirs:
            os.rmdir(os.path.join(root, name))
    os.rmdir(top)


def smoke_stop_app(command):
    """The example stops an app of two instances in a fake user manager's
    tree, where it runs itself: one instance quits at TERM, the other
    ignores it and is killed after the grace period. An app that is not
    running is refused."""
    mount = cgroup2_mount()
    if mount is None:
        print('cgroup v2 is not mounted here')
        return SKIP
    top = os.path.join(mount[0], f'gio-procwatch-smoke-apps-{os.getpid()}')
    relative = mount[1].rstrip('/') + '/' + os.path.basename(top)
    manager = f'user@{os.getuid()}.service'
    units = ['app.slice/app-gnome-org.example.Smoke-4242.scope',
             'app.slice/app-flatpak-org.example.Smoke-12.scope',
             'session.slice/org.gnome.Shell@wayland.service']
    try:
        for unit in units:
            os.makedirs(os.path.join(top, manager, unit))
    except OSError as error:
        print(f'cannot make cgroups under {mount[0]}: {error.strerror}')
        return SKIP

    gnome, flatpak, session = (os.path.join(top, manager, unit) for unit in units)
    gnome_path, flatpak_path = (f'{relative}/{manager}/{unit}' for unit in units[:2])
    try:
        quitting = subprocess.Popen(['sleep', '1000'])
        stubborn = subprocess.Popen(['sh', '-c', "trap '' TERM; exec sleep 1000"])
        move(gnome, quitting.pid)
        move(flatpak, stubborn.pid)
        with quitting, stubborn, subprocess.Popen(command + ['org.example.Smoke'],
                                                  stdout=subprocess.PIPE, text=True,
                                                  preexec_fn=lambda: move(session, os.getpid())
                                                  ) as example:
            expect_line(example, f'stopping {flatpak_path}')
            expect_line(example, f'stopping {gnome_path}')
            expect_line(example, f'{gnome_path} is empty')
            expect_line(example, 'killing what is left of org.example.Smoke')
            expect_line(example, f'{flatpak_path} is empty')
            expect_line(example, 'org.example.Smoke is gone')
            finish(example)
            assert quitting.wait() == -signal.SIGTERM
            assert stubborn.wait() == -signal.SIGKILL

        # Their units are still there, empty: no instance runs.
        refused = subprocess.run(command + ['org.example.Smoke'], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True,
                                 preexec_fn=lambda: move(session, os.getpid()))
        print(refused.stderr, end='')
        assert refused.returncode == 1 and refused.stdout == '', refused
        assert 'org.example.Smoke is not running' in refused.stderr, refused
    finally:
        remove_tree(top)
    return 0


def main(argv):
    signal.signal(signal.SIGALRM, on_timeout)
    signal.alarm(TIMEOUT_SECONDS)

    if argv[1] == 'watch':
        assert_shown(argv[3], argv[4])
        smoke_watch(argv[2])
    elif argv[1] == 'watch-vala':
        smoke_watch(argv[2])
    elif argv[1] == 'launcher':
        assert_excerpted(argv[3], argv[4], 'def on_interrupt')
        smoke_launcher(lambda script: ([argv[2], argv[3], 'sh', '-c', script], 'sh'))
        smoke_launcher_interrupt(argv[2], argv[3])
    elif argv[1] == 'launch-app':
        assert_shown(argv[3], argv[2])
        smoke_launcher(lambda script: (argv[4:] + ['sh', '-c', script], 'sh'))
    elif argv[1] == 'launch-desktop':
        assert_shown(argv[3], argv[2])
        with tempfile.TemporaryDirectory() as directory:
            smoke_launcher(lambda script: (argv[4:] + [desktop_file(directory, script)],
                                           'Smoke Test'))
    elif argv[1] == 'getting-started':
        smoke_getting_started(argv[2], argv[3], argv[4:])
    elif argv[1] == 'watch-pidfd':
        smoke_watch_pidfd(argv[2], argv[3], argv[4])
    elif argv[1] == 'watch-app':
        assert_shown(argv[3], argv[2])
        return smoke_watch_app(argv[4:])
    elif argv[1] == 'stop-app':
        assert_shown(argv[3], argv[2])
        return smoke_stop_app(argv[4:])
    elif argv[1] == 'dbus-callers':
        assert_shown(argv[3], argv[2])
        smoke_dbus_callers(argv[4], argv[5:])
    elif argv[1] == 'excerpt':
        assert_excerpted(argv[3], argv[2], argv[4])
    else:
        raise SystemExit(f'unknown example {argv[1]}')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
