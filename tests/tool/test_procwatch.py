# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""The procwatch tool, run as a subprocess against real processes.

No sleeps stand in for synchronisation: the tests read the tool's output
line by line and act on each line; a target that must not exit yet waits on
its stdin. Every wait has a deadline, so a broken tool fails instead of
hanging.
"""

import base64
import contextlib
import ctypes
import datetime
import json
import os
import re
import resource
import select
import shutil
import signal
import struct
import subprocess
import tempfile
import sys
import time
import uuid

import pytest

TOOL = os.environ['PROCWATCH_TOOL']
SECCOMP_EXEC = os.environ['PROCWATCH_SECCOMP_EXEC']
MAN_PAGE = os.environ.get('PROCWATCH_MAN_PAGE')
DEADLINE = 20.0

JSON_KEYS = ['time', 'monotonic_us', 'event', 'pid', 'inode', 'name', 'status']
# An exited or reaped record: the keys above, then these.
EVENT_KEYS = JSON_KEYS + ['core_dumped', 'file_handle']
STATUS_KEYS = ['raw', 'exited', 'exit_code', 'signal', 'signal_name', 'core_dumped']


@contextlib.contextmanager
def readable_copy_of_tool():
    """(program, LD_LIBRARY_PATH) of a copy of the tool and of the library
    it runs with, in a folder every user may read: a test that runs the tool
    as another user must not depend on the clone's folder (root clones into
    /root, 0700)."""
    libraries = subprocess.run(['ldd', TOOL], capture_output=True, text=True, check=True).stdout
    library = next(line.split(' => ')[1].split(' (')[0] for line in libraries.splitlines()
                   if 'libgio-procwatch' in line)
    folder = tempfile.mkdtemp(prefix='procwatch-tool-')
    try:
        os.chmod(folder, 0o755)
        for path in (TOOL, library):
            shutil.copy(path, folder)
        yield os.path.join(folder, os.path.basename(TOOL)), folder
    finally:
        shutil.rmtree(folder)


def kernel_at_least(major, minor):
    release = re.match(r'(\d+)\.(\d+)', os.uname().release)
    return (int(release.group(1)), int(release.group(2))) >= (major, minor)


def status_known_after_reap():
    """Whether the library learns a non-child's status once it is reaped:
    through a pidfd (not the /proc fallbacks), on Linux 6.15 and newer."""
    return kernel_at_least(6, 15) and os.environ.get('PROCWATCH_BACKEND', 'pidfd') == 'pidfd'


def inodes_known():
    """Whether the tool knows pidfs inodes: the library knows them for a
    process watched by pid only through a pidfd (Linux 6.9 and newer); the
    /proc fallbacks, forced here with PROCWATCH_BACKEND, know none."""
    return kernel_at_least(6, 9) and os.environ.get('PROCWATCH_BACKEND', 'pidfd') == 'pidfd'


def pidfs_inode(pid):
    """The pidfs inode of a live process, or None without pidfs."""
    fd = os.pidfd_open(pid)
    try:
        inode = os.fstat(fd).st_ino
        # Before pidfs every pidfd shares one anonymous inode.
        other = os.pidfd_open(os.getpid())
        try:
            return inode if os.fstat(other).st_ino != inode else None
        finally:
            os.close(other)
    finally:
        os.close(fd)


class Lines:
    """Reads lines from a pipe with a deadline, without blocking on partial
    lines or losing what a buffered reader would hide from select()."""

    def __init__(self, stream):
        self.fd = stream.fileno()
        self.buffer = b''
        self.eof = False

    def readline(self, timeout=DEADLINE):
        deadline = time.monotonic() + timeout
        while b'\n' not in self.buffer:
            if self.eof:
                rest, self.buffer = self.buffer, b''
                return rest.decode('utf-8', 'surrogateescape') if rest else None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError('no complete line within %.0f s; have %r' % (timeout, self.buffer))
            ready, _, _ = select.select([self.fd], [], [], remaining)
            if ready:
                chunk = os.read(self.fd, 65536)
                self.eof = not chunk
                self.buffer += chunk
        line, self.buffer = self.buffer.split(b'\n', 1)
        return line.decode('utf-8', 'surrogateescape')

    def rest(self, timeout=DEADLINE):
        lines = []
        while (line := self.readline(timeout)) is not None:
            lines.append(line)
        return lines


class Tool:
    """A running procwatch."""

    def __init__(self, *args, preexec_fn=None, wrapper=()):
        self.proc = subprocess.Popen([*wrapper, TOOL, *map(str, args)],
                                     stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     preexec_fn=preexec_fn)
        self.out = Lines(self.proc.stdout)
        self.err = Lines(self.proc.stderr)

    def line(self, timeout=DEADLINE):
        return self.out.readline(timeout)

    def err_line(self, timeout=DEADLINE):
        return self.err.readline(timeout)

    def finish(self, timeout=DEADLINE):
        """Waits for the exit; returns (status, remaining stdout lines, stderr lines)."""
        out = self.out.rest(timeout)
        err = self.err.rest(timeout)
        status = self.proc.wait(timeout)
        self.proc.stdout.close()
        self.proc.stderr.close()
        return status, out, err

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self.proc.stdout.close()
        self.proc.stderr.close()


def run(*args, timeout=DEADLINE, wrapper=(), tool=TOOL):
    proc = subprocess.run([*wrapper, tool, *map(str, args)], stdin=subprocess.DEVNULL,
                          capture_output=True, timeout=timeout)
    return (proc.returncode, proc.stdout.decode('utf-8', 'surrogateescape'),
            proc.stderr.decode('utf-8', 'surrogateescape'))


def wait_for_exec_name(proc, program):
    """Returns once PROC's comm is PROGRAM's: Popen returns when exec(2) has closed the
    close-on-exec fds, and the kernel renames the task only after that, so a tool reading
    the name at once could still see Python's. The kernel gives no event for the rename;
    it follows within the same exec call, so yielding the CPU until it shows is enough."""
    expected = program[:15]
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        try:
            with open('/proc/%d/comm' % proc.pid) as comm:
                if comm.read().rstrip('\n') == expected:
                    return
        except FileNotFoundError:
            return
        if proc.poll() is not None:
            return
        os.sched_yield()
    raise AssertionError('%s (pid %d) never took its name' % (program, proc.pid))


@pytest.fixture
def procs():
    """Starts processes that wait on their stdin; kills and reaps leftovers."""
    started = []

    def spawn(argv=None, **kwargs):
        argv = argv or ['sleep', '300']
        proc = subprocess.Popen(argv, **kwargs)
        started.append(proc)
        if argv[0] != sys.executable:  # Python's name is the same before and after exec
            wait_for_exec_name(proc, os.path.basename(argv[0]))
        return proc

    yield spawn

    for proc in started:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream:
                stream.close()


@pytest.fixture
def tools():
    started = []

    def start(*args, **kwargs):
        tool = Tool(*args, **kwargs)
        started.append(tool)
        return tool

    yield start

    for tool in started:
        tool.kill()


def waiter(procs, code=0):
    """A child of the test that exits with @code once its stdin closes."""
    return procs([sys.executable, '-c', 'import sys; sys.stdin.read(); sys.exit(%d)' % code],
                 stdin=subprocess.PIPE)


def gone_pid():
    """The pid of a process that has exited and been reaped."""
    proc = subprocess.Popen(['true'])
    proc.wait()
    return proc.pid


def assert_backend_line(line):
    """The first line of --debug: any backend but "none" watches."""
    assert re.fullmatch(r'procwatch: backend \S+', line) and not line.endswith(' none'), line


def assert_event(line, pid, event, name=None, status=None):
    fields = line.split(' ', 3)
    assert fields[0] == str(pid), line
    assert fields[1] == event, line
    if name is not None:
        assert fields[2] == name, line
    if status is not None:
        assert len(fields) == 4 and fields[3] == status, line


# --help, --version, usage ---------------------------------------------------

def test_help_lists_every_option_and_exit_status():
    status, out, err = run('--help')
    assert status == 0 and err == ''
    assert out.startswith('Usage: procwatch [OPTION…] PID[:INODE]…\n')
    for option in ['-t, --timeout=SECONDS', '-c, --count=N', '-e, --exited', '--reaped',
                   '--json', '-q, --quiet', '-n, --name=PATTERN', '-f, --full', '-x, --exact',
                   '-i, --ignore-case', '-v, --verbose', '--debug', '-h, --help',
                   '-V, --version']:
        assert option in out, option
    assert 'Exit status:' in out
    for code in ['0', '1', '2', '3']:
        assert re.search(r'^  %s  \S' % code, out, re.M), code
    assert all(len(line) <= 80 for line in out.splitlines())


def test_man_page_documents_every_option():
    if not MAN_PAGE or not os.path.exists(MAN_PAGE):
        pytest.skip('man page path not given')
    with open(MAN_PAGE, encoding='utf-8') as f:
        page = f.read().replace('\\-', '-')
    _, help_text, _ = run('--help')
    for option in set(re.findall(r'--[a-z-]+', help_text)):
        assert option in page, option
    for key in EVENT_KEYS + STATUS_KEYS:
        assert '.B %s\n' % key in page, key
    if shutil.which('groff'):
        check = subprocess.run(['groff', '-man', '-Tutf8', '-ww', '-z', MAN_PAGE],
                               capture_output=True, text=True, timeout=DEADLINE)
        assert check.returncode == 0 and check.stderr == '', check.stderr


def test_version():
    status, out, err = run('--version')
    assert status == 0 and err == ''
    assert re.fullmatch(r'procwatch \(gio-procwatch\) \d+\.\d+\.\d+\n', out)
    assert run('-V')[1] == out


def test_man_page_header_names_the_tool_version():
    if not MAN_PAGE or not os.path.exists(MAN_PAGE):
        pytest.skip('man page path not given')
    version = re.fullmatch(r'procwatch \(gio-procwatch\) (\S+)\n', run('--version')[1]).group(1)
    with open(MAN_PAGE, encoding='utf-8') as f:
        headers = [line for line in f if line.startswith('.TH ')]
    assert len(headers) == 1, headers
    assert headers[0].split('"')[1] == f'gio-procwatch {version}', headers[0]


@pytest.mark.parametrize('args, message', [
    ([], 'no process given'),
    (['-n', '(unclosed'], 'invalid pattern'),
    (['--'], "no COMMAND after '--'"),
    (['-q', '--json', '1'], 'cannot be combined'),
    (['1', '--', 'true'], 'cannot be combined with a COMMAND'),
])
def test_bad_usage_exits_1_with_a_usage_line(args, message):
    """Mistakes only procwatch's own options allow: its message, its usage."""
    status, out, err = run(*args)
    assert status == 1
    assert out == ''
    assert err.startswith('procwatch: ') and message in err.splitlines()[0], err
    assert 'Usage: procwatch' in err
    assert err.endswith("Try 'procwatch --help' for more information.\n")


# What util-linux waitpid prints for the same mistakes (misc-utils/waitpid.c
# and lib/strutils.c, lib/pidutils.c at the commit the ported suite names).
WAITPID_USAGE_ERRORS = [
    (['abc'], "failed to parse PID argument 'abc': Invalid argument\n"),
    (['12:'], "failed to parse PID argument '12:': Invalid argument\n"),
    (['12x'], "failed to parse PID argument '12x': Invalid argument\n"),
    (['12:x'], "failed to parse PID argument '12:x': Invalid argument\n"),
    (['0'], "failed to parse PID argument '0': Numerical result out of range\n"),
    (['12:0'], "failed to parse PID argument '12:0': Numerical result out of range\n"),
    (['99999999999'],
     "failed to parse PID argument '99999999999': Numerical result out of range\n"),
    (['-c', '0', '1'], "invalid count: '0': Numerical result out of range\n"),
    (['-c', 'x', '1'], "invalid count: 'x'\n"),
    (['-c3', '1', '2'], "can't wait for 3 of 2 PIDs\n"),
    (['-t', 'soon', '1'], "invalid timeout: 'soon'\n"),
    (['-t', '-1', '1'], "invalid timeout: '-1'\n"),
    (['-t', 'nan', '1'], "invalid timeout: 'nan'\n"),
]


@pytest.mark.parametrize('args, message', WAITPID_USAGE_ERRORS)
def test_bad_values_worded_as_waitpid(args, message):
    assert run(*args) == (1, '', 'procwatch: ' + message)


@pytest.mark.parametrize('args, message', [
    (['--bogus', '1'], "unrecognized option '--bogus'"),
    (['-z', '1'], "invalid option -- 'z'"),
    (['1', '-t'], "option requires an argument -- 't'"),
    (['--count'], "option '--count' requires an argument"),
    (['--verbose=yes', '1'], "option '--verbose' doesn't allow an argument"),
])
def test_getopt_errors(args, message):
    """getopt_long's own message, with argv[0] as glibc prints it."""
    status, out, err = run(*args)
    assert (status, out) == (1, '')
    assert err == "%s: %s\nTry 'procwatch --help' for more information.\n" % (TOOL, message)


# Waiting for processes: text output and exit status 0 ---------------------

def test_waits_for_exit_and_prints_name(procs, tools):
    target = procs()
    tool = tools(target.pid)
    assert tool.proc.poll() is None
    target.send_signal(signal.SIGTERM)
    assert_event(tool.line(), target.pid, 'exited', 'sleep')
    assert tool.finish() == (0, [], [])


def test_quiet_prints_nothing(procs, tools):
    target = procs()
    tool = tools('--quiet', '--reaped', '--debug', target.pid)
    assert_backend_line(tool.err_line())
    assert tool.err_line().startswith('procwatch: watching %d' % target.pid)
    target.kill()
    target.wait()
    assert tool.finish() == (0, [], [])


def test_several_processes_each_reported(procs, tools):
    targets = [waiter(procs) for _ in range(3)]
    tool = tools(*(t.pid for t in targets))
    for target in targets:
        target.stdin.close()
        assert_event(tool.line(), target.pid, 'exited', 'python3')
    assert tool.finish() == (0, [], [])


def test_same_process_twice_is_watched_once(procs, tools):
    target = procs()
    tool = tools(target.pid, target.pid, '--debug')
    target.kill()
    assert_event(tool.line(), target.pid, 'exited')
    status, out, err = tool.finish()
    assert (status, out) == (0, [])
    assert sum('watching' in line for line in err) == 1


def test_zombie_before_start_is_reported_at_once(procs):
    target = procs()
    target.kill()
    os.waitid(os.P_PID, target.pid, os.WEXITED | os.WNOWAIT)   # a zombie now
    status, out, err = run(target.pid)
    assert status == 0, err
    assert_event(out.rstrip('\n'), target.pid, 'exited', 'sleep')


def test_reaped_waits_for_reaping_and_reports_status(procs, tools):
    target = waiter(procs, code=7)
    tool = tools('--reaped', target.pid)
    target.stdin.close()
    assert_event(tool.line(), target.pid, 'exited', 'python3')
    # A zombie of ours: the tool must keep waiting until we reap it.
    with pytest.raises(subprocess.TimeoutExpired):
        tool.proc.wait(0.3)
    assert target.wait() == 7
    reaped = tool.line()
    if status_known_after_reap():
        assert_event(reaped, target.pid, 'reaped', 'python3', 'exit 7')
    else:
        assert_event(reaped, target.pid, 'reaped', 'python3')
    assert tool.finish() == (0, [], [])


def test_killed_status_text(procs, tools):
    if not status_known_after_reap():
        pytest.skip('the status of a non-child needs a pidfd and PIDFD_INFO_EXIT (Linux 6.15)')
    target = procs()
    tool = tools('--reaped', target.pid)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited', 'sleep')
    target.wait()
    assert_event(tool.line(), target.pid, 'reaped', 'sleep', 'killed by SIGKILL')
    assert tool.finish()[0] == 0


def thread_of_child(procs):
    """A child with a second thread, and that thread's id: closing the
    child's stdin ends the thread, then the child."""
    owner = procs([sys.executable, '-c',
                   'import sys, threading\n'
                   'e = threading.Event()\n'
                   't = threading.Thread(target=e.wait); t.start()\n'
                   'print(t.native_id, flush=True); sys.stdin.read(); e.set()'],
                  stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    return owner, int(owner.stdout.readline())


def test_thread_is_watched(procs, tools):
    owner, tid = thread_of_child(procs)
    tool = tools('--debug', tid)
    assert tool.err_line().startswith('procwatch: backend ')
    assert tool.err_line().startswith('procwatch: watching %d' % tid)
    owner.stdin.close()
    assert_event(tool.line(), tid, 'exited')
    status, out, err = tool.finish()
    assert (status, out) == (0, [])


# --count -------------------------------------------------------------------

def test_count_returns_after_n_exits(procs, tools):
    targets = [waiter(procs) for _ in range(3)]
    tool = tools('-c', 2, *(t.pid for t in targets))
    targets[2].stdin.close()
    assert_event(tool.line(), targets[2].pid, 'exited')
    targets[0].stdin.close()
    assert_event(tool.line(), targets[0].pid, 'exited')
    assert tool.finish() == (0, [], [])
    assert targets[1].poll() is None


def test_count_with_reaped_counts_reaps(procs, tools):
    targets = [waiter(procs) for _ in range(2)]
    tool = tools('--count=1', '--reaped', *(t.pid for t in targets))
    targets[0].stdin.close()
    assert_event(tool.line(), targets[0].pid, 'exited')
    targets[0].wait()
    assert_event(tool.line(), targets[0].pid, 'reaped')
    assert tool.finish() == (0, [], [])


# --exited and processes that are gone --------------------------------------

def test_pid_gone_before_start_fails():
    pid = gone_pid()
    status, out, err = run(pid)
    assert (status, out) == (1, '')
    assert err == 'procwatch: could not open PID %d: No such process\n' % pid


def test_pid_gone_before_start_with_exited_succeeds():
    pid = gone_pid()
    assert run('-e', pid) == (0, '', '')
    status, out, err = run('--exited', '--verbose', pid)
    assert (status, out) == (0, '')
    assert err == 'procwatch: PID %d has exited, skipping\n' % pid


def test_one_gone_among_many_with_exited(procs, tools):
    target = procs()
    pid = gone_pid()
    tool = tools('-e', pid, target.pid)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited', 'sleep')
    assert tool.finish() == (0, [], [])


def test_one_gone_among_many_without_exited(procs):
    target = procs()
    pid = gone_pid()
    status, out, err = run(target.pid, pid)
    assert (status, out) == (1, '')
    assert err == 'procwatch: could not open PID %d: No such process\n' % pid


# --timeout -----------------------------------------------------------------

def test_timeout_expires_with_status_3(procs):
    target = procs()
    start = time.monotonic()
    status, out, err = run('-t', '0.3', target.pid)
    elapsed = time.monotonic() - start
    assert (status, out, err) == (3, '', '')
    assert 0.3 <= elapsed < DEADLINE
    assert target.poll() is None


def test_timeout_verbose_says_so(procs):
    target = procs()
    assert run('--timeout=0.05', '-v', target.pid) == (3, 'Timeout expired\n', '')
    # With --json, stdout stays JSON Lines: waitpid's lines go to stderr.
    assert run('--timeout=0.05', '-v', '--json', target.pid) == (3, '', 'Timeout expired\n')


def test_timeout_not_reached(procs, tools):
    target = procs()
    tool = tools('-t', '60', target.pid)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited')
    assert tool.finish() == (0, [], [])


# getopt_long forms ---------------------------------------------------------

@pytest.mark.parametrize('args, out', [
    (['-t0.05', 'P'], ''),
    (['-t', '0.05', 'P'], ''),
    (['--timeout=0.05', 'P'], ''),
    (['--timeout', '0.05', 'P'], ''),
    (['--time=0.05', 'P'], ''),            # a long option abbreviated
    (['P', '-t', '0.05'], ''),             # an option after the operand
    (['P', '--timeout=0.05', '-q'], ''),
    (['-vt0.05', 'P'], 'Timeout expired\n'),   # bundled, the value attached
    (['-qvt', '0.05', 'P'], 'Timeout expired\n'),
    (['-ve', '-t0.05', 'P'], 'Timeout expired\n'),
    (['-c1', '-t0.05', 'P'], ''),
    (['--count=1', '-t0.05', 'P'], ''),
    (['--count', '1', '--timeout', '0.05', 'P'], ''),
])
def test_getopt_forms(procs, args, out):
    target = procs()
    args = [target.pid if a == 'P' else a for a in args]
    assert run(*args) == (3, out, '')
    assert target.poll() is None


def zombie(procs):
    """A child of the test that has exited and is not reaped yet."""
    target = procs()
    target.kill()
    os.waitid(os.P_PID, target.pid, os.WEXITED | os.WNOWAIT)
    return target


@pytest.mark.parametrize('args', [
    ['-c1', 'Z', 'P'],
    ['-c', '1', 'Z', 'P'],
    ['Z', '-c1', 'P'],
    ['--count=1', 'Z', 'P'],
    ['-qc1', 'Z', 'P'],
])
def test_getopt_count_forms(procs, args):
    """-c 1 of a zombie and a live process returns at once."""
    z, p = zombie(procs), procs()
    quiet = any(a.startswith('-q') for a in args)
    args = [{'Z': z.pid, 'P': p.pid}.get(a, a) for a in args]
    status, out, err = run(*args)
    assert (status, err) == (0, '')
    assert out == ('' if quiet else '%d exited sleep\n' % z.pid)
    assert p.poll() is None


def test_getopt_bundled_flags_and_double_dash():
    gone = gone_pid()
    assert run('-qe', gone) == (0, '', '')
    assert run('-ev', gone) == (0, '', 'procwatch: PID %d has exited, skipping\n' % gone)
    assert run(gone, '-ve') == (0, '', 'procwatch: PID %d has exited, skipping\n' % gone)
    # "--" ends the options: what follows is the COMMAND, options and all.
    assert run('-t5', '--', 'sh', '-c', 'exit 4', '-t', '-q')[0] == 4
    # An option's value may be "--": a pattern then, not the end of options.
    status, out, err = run('-q', '-t0.01', '-n', '--')
    assert status in (1, 3) and (out, err) == ('', '')
    # Under POSIXLY_CORRECT getopt stops at the first operand.
    proc = subprocess.run([TOOL, str(gone), '-e'], env={**os.environ, 'POSIXLY_CORRECT': '1'},
                          capture_output=True, text=True, timeout=DEADLINE)
    assert (proc.returncode, proc.stdout, proc.stderr) == (
        1, '', "procwatch: failed to parse PID argument '-e': Invalid argument\n")


# -v as waitpid -v ------------------------------------------------------------

def test_verbose_finished_lines(procs, tools):
    targets = [waiter(procs) for _ in range(2)]
    tool = tools('-v', *(t.pid for t in targets))
    for target in targets:
        target.stdin.close()
        assert_event(tool.line(), target.pid, 'exited', 'python3')
        assert tool.line() == 'PID %d finished' % target.pid
    assert tool.finish() == (0, [], [])


def test_verbose_quiet_prints_only_waitpid_lines(procs, tools):
    target = procs()
    tool = tools('-q', '-v', '--reaped', '--debug', target.pid)
    assert_backend_line(tool.err_line())
    assert tool.err_line().startswith('procwatch: watching %d' % target.pid)
    target.kill()
    target.wait()
    # With --reaped a process is finished once reaped.
    assert tool.line() == 'PID %d finished' % target.pid
    assert tool.finish() == (0, [], [])


def test_verbose_with_json_keeps_stdout_json(procs, tools):
    target = procs()
    tool = tools('-v', '--json', target.pid)
    target.kill()
    check_json(tool.line(), target.pid, 'exited')
    assert tool.err_line() == 'PID %d finished' % target.pid
    assert tool.finish() == (0, [], [])


def test_verbose_command():
    status, out, err = run('-v', '--', 'sh', '-c', 'exit 6')
    assert (status, err) == (6, '')
    pid = out.split()[0]
    assert out == '%s exited sh exit 6\nPID %s finished\n' % (pid, pid)


# --json --------------------------------------------------------------------

def check_json(line, pid, event):
    obj = json.loads(line)
    assert list(obj) == EVENT_KEYS
    assert obj['event'] == event and obj['pid'] == pid
    stamp = datetime.datetime.fromisoformat(obj['time'].replace('Z', '+00:00'))
    assert re.fullmatch(r'\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z', obj['time'])
    now = datetime.datetime.now(datetime.timezone.utc)
    assert abs((now - stamp).total_seconds()) < 60
    assert isinstance(obj['monotonic_us'], int)
    assert abs(obj['monotonic_us'] - time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000) < 60e6
    if obj['status'] is not None:
        assert list(obj['status']) == STATUS_KEYS
    return obj


def test_json_events(procs, tools):
    target = procs()
    inode = pidfs_inode(target.pid)
    tool = tools('--json', '--reaped', target.pid)
    target.send_signal(signal.SIGKILL)
    exited = check_json(tool.line(), target.pid, 'exited')
    target.wait()
    reaped = check_json(tool.line(), target.pid, 'reaped')
    assert exited['name'] == reaped['name'] == 'sleep'
    assert exited['inode'] == reaped['inode'] == (inode if inodes_known() else None)
    assert exited['status'] is None   # not our child, not reaped yet
    assert exited['core_dumped'] is None
    assert reaped['monotonic_us'] >= exited['monotonic_us']
    if status_known_after_reap():
        assert reaped['status'] == {'raw': 9, 'exited': False, 'exit_code': None,
                                    'signal': 9, 'signal_name': 'SIGKILL',
                                    'core_dumped': False}
        assert reaped['core_dumped'] is False
    assert tool.finish() == (0, [], [])


def test_json_status_of_a_command():
    status, out, err = run('--json', '--reaped', '--', 'sh', '-c', 'exit 42')
    assert status == 42, err
    lines = out.splitlines()
    assert len(lines) == 2
    exited = json.loads(lines[0])
    reaped = json.loads(lines[1])
    assert [exited['event'], reaped['event']] == ['exited', 'reaped']
    assert exited['status'] == {'raw': 42 << 8, 'exited': True, 'exit_code': 42,
                                'signal': None, 'signal_name': None, 'core_dumped': False}
    assert exited['name'] == 'sh'


def skip_unless_core_lands_in_cwd():
    with open('/proc/sys/kernel/core_pattern') as f:
        pattern = f.read().strip()
    # A pipe (|) or socket (@) pattern hands the dump to a program, which
    # RLIMIT_CORE does not stop; an absolute path writes elsewhere.
    if not pattern or pattern[0] in '|@' or '/' in pattern:
        pytest.skip(f'core_pattern is "{pattern}": untested here')


@pytest.mark.parametrize('core', [True, False], ids=['core', 'no-core'])
def test_command_that_dumps_core(tmp_path, core):
    """A shell that kills itself with SIGSEGV, its RLIMIT_CORE raised to the
    hard limit or 0, in a directory of the test: the tool says what a shell
    says, and --json's core_dumped what the kernel reported."""
    skip_unless_core_lands_in_cwd()
    limit = '"$(ulimit -H -c)"' if core else '0'
    script = f'ulimit -c {limit} && cd "$1" && kill -SEGV $$'
    suffix = ' (core dumped)' if core else ''
    # A sanitizer runtime preloaded into the shell would catch its SIGSEGV.
    env = {key: value for key, value in os.environ.items() if key != 'LD_PRELOAD'}

    def run(*args):
        proc = subprocess.run([TOOL, *map(str, args)], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=DEADLINE, env=env, text=True)
        return proc.returncode, proc.stdout, proc.stderr

    status, out, err = run('-v', '--', 'sh', '-c', script, 'sh', tmp_path)
    assert (status, err) == (128 + signal.SIGSEGV, '')
    pid = out.split()[0]
    assert out.splitlines()[0] == f'{pid} exited sh killed by SIGSEGV{suffix}'

    status, out, err = run('--json', '--reaped', '--', 'sh', '-c', script, 'sh', tmp_path)
    assert (status, err) == (128 + signal.SIGSEGV, '')
    exited, reaped = [json.loads(line) for line in out.splitlines()]
    for record in exited, reaped:
        assert list(record) == EVENT_KEYS
        assert record['core_dumped'] is core
        assert record['status']['core_dumped'] is core
        assert record['status']['signal_name'] == 'SIGSEGV'
    # Both runs dumped to the same file name, or neither dumped.
    assert len(os.listdir(tmp_path)) == (1 if core else 0)


# comm may hold any bytes but NUL: quotes, backslashes, controls, bad UTF-8.
WEIRD_NAME = b'a"b\\c d\n\x01\xff\xc3\xa9'
NAME_PROGRAM = ('import sys\n'
                'open("/proc/self/comm", "wb").write(%r)\n'
                'print("ready", flush=True); sys.stdin.read()' % WEIRD_NAME)


def test_json_escapes_any_name(procs, tools):
    target = procs([sys.executable, '-c', NAME_PROGRAM],
                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert target.stdout.readline() == b'ready\n'
    tool = tools('--json', target.pid)
    target.stdin.close()
    line = tool.line()
    assert '\n' not in line
    obj = check_json(line, target.pid, 'exited')
    assert obj['name'] == 'a"b\\c d\n\x01\ufffd\u00e9'
    assert tool.finish() == (0, [], [])


def test_text_escapes_any_name(procs, tools):
    target = procs([sys.executable, '-c', NAME_PROGRAM],
                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert target.stdout.readline() == b'ready\n'
    tool = tools(target.pid)
    target.stdin.close()
    assert tool.line() == '%d exited a"b\\x5cc\\x20d\\x0a\\x01\\xffé' % target.pid
    assert tool.finish() == (0, [], [])


# --name, --full, --exact, --ignore-case ------------------------------------

def make_unique_sleep(directory):
    """A copy of sleep(1) with a name no other process has."""
    name = 'pwt-' + uuid.uuid4().hex[:8]
    path = directory / name
    shutil.copy(shutil.which('sleep'), path)
    return name, str(path)


@pytest.fixture
def unique_sleep(tmp_path):
    return make_unique_sleep(tmp_path)


def test_name_matches_several_processes(procs, tools, unique_sleep):
    name, path = unique_sleep
    targets = [procs([path, '300']) for _ in range(3)]
    bystander = procs()
    tool = tools('--json', '--debug', '-n', '^%s$' % name)
    # Killed only once selected: else the tool may find none of them.
    assert_backend_line(tool.err_line())
    for _ in targets:
        assert tool.err_line().startswith('procwatch: watching ')
    for target in targets:
        target.kill()
    events = [json.loads(tool.line()) for _ in targets]
    assert sorted(e['pid'] for e in events) == sorted(t.pid for t in targets)
    assert {e['name'] for e in events} == {name}
    assert tool.finish()[0:2] == (0, [])
    assert bystander.poll() is None


def test_name_repeatable_and_combined_with_pids(procs, tools, tmp_path):
    name1, path1 = make_unique_sleep(tmp_path)
    name2, path2 = make_unique_sleep(tmp_path)
    named = [procs([path1, '300']), procs([path2, '300']), procs([path2, '300'])]
    by_pid = procs()
    bystander = procs()
    # One process matched by both patterns and given by pid is watched once.
    tool = tools('--debug', '-n', name1, '--name', '^(%s|%s)$' % (name2, name1), by_pid.pid,
                 named[0].pid)
    assert_backend_line(tool.err_line())
    watched = {int(re.match(r'procwatch: watching (\d+)', tool.err_line()).group(1))
               for _ in range(4)}
    assert watched == {p.pid for p in named + [by_pid]}
    for proc in named + [by_pid]:
        proc.kill()
    assert {int(tool.line().split()[0]) for _ in range(4)} == watched
    assert tool.finish() == (0, [], [])
    assert bystander.poll() is None


def test_name_exact_and_ignore_case(procs, tools, unique_sleep):
    name, path = unique_sleep
    target = procs([path, '300'])
    # A prefix matches like pgrep, but not with --exact.
    assert run('-x', '-n', name[:-1])[0] == 1
    assert run('-n', name.upper(), '-t', '0.01')[0] == 1
    status, _, err = run('-i', '--debug', '-n', name.upper(), '-t', '0.01')
    assert status == 3 and 'watching %d' % target.pid in err
    tool = tools('--exact', '-n', name)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited', name)
    assert tool.finish()[0] == 0


def test_name_full_command_line(procs, tools):
    token = 'pwt-arg-' + uuid.uuid4().hex[:8]
    target = procs([sys.executable, '-c', 'import sys; sys.stdin.read()', token],
                   stdin=subprocess.PIPE)
    status, _, err = run('-n', token)
    # 16 characters: pgrep's warning says why.
    assert status == 1
    assert err == "procwatch: no process matches '%s'\n" % token + LONG_PATTERN_WARNING
    # procwatch's own command line holds the token too: it never watches itself.
    tool = tools('-f', '--debug', '-n', token)
    assert_backend_line(tool.err_line())
    # A zombie has no command line: the target must outlive the scan.
    assert re.fullmatch(r'procwatch: watching %d\S* python3' % target.pid, tool.err_line())
    target.stdin.close()
    assert_event(tool.line(), target.pid, 'exited', 'python3')
    assert tool.finish() == (0, [], [])


def test_name_without_match():
    pattern = 'pwn' + uuid.uuid4().hex[:8]   # 11 characters: a name could match
    assert run('-n', pattern) == (1, '', "procwatch: no process matches '%s'\n" % pattern)
    # As pidwait: with -q nothing is printed, the exit status tells.
    assert run('-q', '-n', pattern) == (1, '', '')
    assert run('-e', '-n', pattern) == (0, '', '')
    assert run('-qe', '-n', pattern) == (0, '', '')


# procps pgrep.c's warning, word for word (procps-ng commit bda5bc42).
LONG_PATTERN_WARNING = ('procwatch: pattern that searches for process name longer than 15 '
                        'characters will result in zero matches\n'
                        "Try `procwatch -f' option to match against the complete command line.\n")


def test_name_too_long_to_match_warns_as_pgrep():
    pattern = '^pwt-none-' + uuid.uuid4().hex[:6] + '$'   # 17 characters
    no_match = "procwatch: no process matches '%s'\n" % pattern
    assert run('-n', pattern) == (1, '', no_match + LONG_PATTERN_WARNING)
    assert run('-e', '-n', pattern) == (0, '', LONG_PATTERN_WARNING)
    assert run('-q', '-n', pattern) == (1, '', '')
    # Against the full command line it could match: no warning.
    assert run('-f', '-n', pattern) == (1, '', no_match)
    # pgrep takes '|' and '[' for a regex that may well be short.
    alternatives = '^(pwt-none-%s|x)$' % uuid.uuid4().hex[:6]
    assert run('-n', alternatives) == (1, '', "procwatch: no process matches '%s'\n"
                                       % alternatives)


def test_name_long_pattern_that_matches_does_not_warn(procs, tools, tmp_path):
    """A long pattern may still match (a prefix of it can be a name with
    -f, or an alternative): the warning is only for no match at all."""
    name, path = make_unique_sleep(tmp_path)
    target = procs([path, '300'])
    pattern = '^(%s|a-name-longer-than-15)$' % name
    tool = tools('-n', pattern)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited', name)
    assert tool.finish() == (0, [], [])


# PID:INODE -----------------------------------------------------------------

needs_pidfs = pytest.mark.skipif(not inodes_known(),
                                 reason='inodes need pidfs (Linux 6.9) and the pidfd backend')


@pytest.mark.skipif(inodes_known() or not kernel_at_least(6, 9),
                    reason='for the /proc fallbacks, which know no pidfs inodes')
def test_pid_inode_unsupported_without_the_pidfd_backend(procs):
    """PID:INODE cannot be checked there: exit status 2, as without pidfs."""
    target = procs()
    status, out, err = run('%d:%d' % (target.pid, pidfs_inode(target.pid)))
    assert (status, out) == (2, '')
    assert err.startswith('procwatch: could not open PID %d: ' % target.pid), err
    assert 'inode' in err
    assert target.poll() is None


@needs_pidfs
def test_pid_inode_match(procs, tools):
    target = procs()
    inode = pidfs_inode(target.pid)
    tool = tools('--debug', '%d:%d' % (target.pid, inode))
    assert_backend_line(tool.err_line())
    assert tool.err_line() == 'procwatch: watching %d:%d sleep' % (target.pid, inode)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited', 'sleep')
    assert tool.finish() == (0, [], [])


@needs_pidfs
def test_pid_inode_mismatch_is_refused(procs):
    target = procs()
    wrong = pidfs_inode(target.pid) + 1000003
    status, out, err = run('%d:%d' % (target.pid, wrong))
    assert (status, out) == (1, '')
    assert err == 'procwatch: could not open PID %d: No such process\n' % target.pid
    # As waitpid -v says it, then why, with --debug.
    status, out, err = run('-v', '--debug', '%d:%d' % (target.pid, wrong))
    assert (status, out) == (1, '')
    assert err.splitlines()[1:] == [
        'procwatch: process %d:%d is gone: pid %d now belongs to another process (%d:%d)'
        % (target.pid, wrong, target.pid, target.pid, wrong - 1000003),
        'procwatch: pidfd inode %d not found for PID %d' % (wrong, target.pid),
        'procwatch: could not open PID %d: No such process' % target.pid]
    assert run('-e', '%d:%d' % (target.pid, wrong)) == (0, '', '')


@needs_pidfs
def test_verbose_pid_inode_pins_the_process(procs, tools):
    target = procs()
    status, _, err = run('--debug', '-t', '0.001', target.pid)
    assert status == 3
    pinned = re.search(r'^procwatch: watching (\d+:\d+) sleep$', err, re.M).group(1)
    tool = tools(pinned)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited')
    assert tool.finish() == (0, [], [])
    target.wait()
    # The process it names is gone for good, even if its pid comes back.
    assert run(pinned)[0] == 1


REUSE_SCRIPT = r"""
sleep 300 & a=$!
pin=$("$TOOL" --debug -t 0.001 $a 2>&1 | sed -n 's/^procwatch: watching \([0-9:]*\) .*/\1/p')
{ kill $a; wait $a; } 2>/dev/null
echo $((a - 1)) > /proc/sys/kernel/ns_last_pid
sleep 300 & b=$!
[ "$a" = "$b" ] || { echo "pid $a was not reused: got $b"; kill $b; exit 99; }
echo "pin=$pin"
"$TOOL" --debug "$pin"; echo "rc=$?"
"$TOOL" -e "$pin"; echo "rc=$?"
kill $b
"""


@needs_pidfs
def test_pid_inode_refuses_a_really_reused_pid():
    """In a private pid namespace, a pid is freed and given to a new process."""
    if not shutil.which('unshare'):
        pytest.skip('unshare(1) is missing')
    userns = [] if os.geteuid() == 0 else ['--user', '--map-root-user']
    # --propagation unchanged: --mount-proc then makes only /proc private,
    # which works in a chroot too, whose / is no mount point.
    proc = subprocess.run(['unshare', *userns, '--pid', '--fork', '--mount-proc',
                           '--propagation', 'unchanged', 'sh', '-c', REUSE_SCRIPT],
                          env={**os.environ, 'TOOL': TOOL}, capture_output=True, text=True,
                          timeout=DEADLINE)
    if 'pin=' not in proc.stdout:
        pytest.skip('no private pid namespace here: %s' % (proc.stderr or proc.stdout).strip())
    pin = re.search(r'^pin=(\d+):(\d+)$', proc.stdout, re.M)
    assert pin, proc.stdout
    assert re.findall(r'^rc=(\d+)$', proc.stdout, re.M) == ['1', '0']
    assert re.fullmatch(r'procwatch: backend \S+\n'
                        r'procwatch: process %s:%s is gone: pid %s now belongs to another '
                        r'process \(%s:\d+\)\n'
                        r'procwatch: could not open PID %s: No such process\n'
                        % (pin[1], pin[2], pin[1], pin[1], pin[1]), proc.stderr), proc.stderr


# -- COMMAND -----------------------------------------------------------------

def test_command_exit_status():
    status, out, err = run('--', 'sh', '-c', 'exit 5')
    assert (status, err) == (5, '')
    assert re.fullmatch(r'\d+ exited sh exit 5\n', out)


def test_command_killed_by_signal():
    status, out, _ = run('--', 'sh', '-c', 'kill -TERM $$')
    assert status == 128 + signal.SIGTERM
    assert re.fullmatch(r'\d+ exited sh killed by SIGTERM\n', out)


def test_command_reaped():
    status, out, _ = run('--reaped', '--', 'true')
    assert status == 0
    lines = out.splitlines()
    pid = lines[0].split()[0]
    assert lines == ['%s exited true exit 0' % pid, '%s reaped true exit 0' % pid]


def test_command_keeps_its_arguments():
    # Options after "--" belong to the command, not to procwatch.
    status, out, _ = run('-t', '10', '--', 'sh', '-c', 'exit 3', '-t', '-c')
    assert status == 3


def test_command_not_found_or_not_executable(tmp_path):
    status, _, err = run('--', str(tmp_path / 'missing'))
    assert status == 127 and 'missing' in err
    script = tmp_path / 'script'
    script.write_text('#!/bin/sh\n')
    status, _, err = run('--', str(script))
    assert status == 126 and 'script' in err


def test_command_timeout_terminates_it():
    """As timeout(1): TERM when the time is up, the command waited for, and
    status 124 (test_signals.py has the other signals and statuses)."""
    tool = Tool('-t', '0.2', '--', 'sh', '-c', 'echo $$; exec sleep 300')
    pid = int(tool.line())
    assert_event(tool.line(), pid, 'exited', status='killed by SIGTERM')
    assert tool.finish() == (124, [], [])


def test_command_gets_sigterm_sent_to_procwatch():
    tool = Tool('--', 'sh', '-c', 'echo $$; exec sleep 300')
    pid = int(tool.line())
    tool.proc.send_signal(signal.SIGTERM)
    # The name is the one it had when watching started: before or after the exec.
    line = tool.line()
    assert_event(line, pid, 'exited', status='killed by SIGTERM')
    assert line.split()[2] in ('sh', 'sleep')
    assert tool.finish() == (128 + signal.SIGTERM, [], [])


# Many processes ------------------------------------------------------------

def test_thousand_pids_with_a_low_fd_limit(procs, tools):
    targets = [procs(['sleep', '300']) for _ in range(1000)]

    def low_fd_limit():
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))

    tool = tools('--json', *(t.pid for t in targets), preexec_fn=low_fd_limit)
    for target in targets:
        target.kill()
    pids = {json.loads(tool.line())['pid'] for _ in targets}
    assert pids == {t.pid for t in targets}
    assert tool.finish(timeout=60) == (0, [], [])


# Exit status 2: nothing to watch with ---------------------------------------

# A private mount namespace (in a user namespace of which we are root, when
# we are not root) whose /proc is covered by an empty tmpfs: covered, not
# unmounted, because in a user namespace /proc is a mount locked by the
# namespace that made it. Only /proc is made private: a chroot's / is no
# mount point.
HIDE_PROC = ['unshare', *([] if os.geteuid() == 0 else ['--user', '--map-root-user']),
             '--mount', '--propagation', 'unchanged', 'sh', '-c',
             'mount --make-rprivate /proc && mount -t tmpfs -o ro none /proc && exec "$@"', 'sh']


def no_backend_wrapper(error):
    """Runs the tool as on a kernel without pidfd_open() (a seccomp filter)
    and without /proc: no backend can work there."""
    return ['env', '-u', 'PROCWATCH_BACKEND', *HIDE_PROC,
            SECCOMP_EXEC, '--no-pidfd-open=' + error, '--']


def skip_without_proc_removal():
    """Skips unless /proc can be hidden in a private mount namespace."""
    proc = subprocess.run([*HIDE_PROC, 'true'], capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip('cannot hide /proc in a private mount namespace here: '
                    + proc.stderr.strip())


@pytest.mark.parametrize('error', ['ENOSYS', 'EPERM'])
def test_no_backend_exits_2(procs, error):
    if 'libasan' in os.environ.get('LD_PRELOAD', ''):
        pytest.skip('the ASan runtime cannot work without /proc')
    skip_without_proc_removal()
    target = procs()
    status, out, err = run('--debug', '-t', '5', target.pid, wrapper=no_backend_wrapper(error))
    assert err.splitlines()[0] == 'procwatch: backend none', err
    assert (status, out) == (2, '')
    assert 'no way to watch processes' in err.splitlines()[1]
    # A COMMAND is not even started.
    status, out, err = run('--', 'sh', '-c', 'echo started', wrapper=no_backend_wrapper(error))
    assert (status, out) == (2, '')


@pytest.mark.parametrize('error', ['ENOSYS', 'EPERM'])
def test_no_pidfd_still_watches(procs, tools, error):
    """Without pidfd_open() the library falls back to reading /proc."""
    target = procs()
    tool = tools('--debug', target.pid, wrapper=[SECCOMP_EXEC, '--no-pidfd-open=' + error, '--'])
    assert tool.err_line() == 'procwatch: backend poll'
    assert tool.err_line().startswith('procwatch: watching %d' % target.pid)
    target.kill()
    assert_event(tool.line(), target.pid, 'exited')
    status, out, err = tool.finish()
    assert (status, out) == (0, [])


def test_file_handle_of_a_record_names_the_process(procs, tools):
    """--json's file_handle, given back as @BASE64, watches that process
    while it is a zombie, and nothing once it is reaped."""
    target = procs()
    tool = tools('--json', '--reaped', target.pid)
    target.send_signal(signal.SIGKILL)
    exited = check_json(tool.line(), target.pid, 'exited')
    token = exited['file_handle']
    if os.environ.get('PROCWATCH_BACKEND', 'pidfd') != 'pidfd' or not kernel_at_least(6, 14):
        # The /proc backends hold no pidfd for a process watched by pid.
        assert token is None
        return
    assert token is not None and len(base64.b64decode(token)) == 40

    status, out, err = run('--json', '@' + token)
    assert (status, err) == (0, '')
    again = check_json(out.splitlines()[0], target.pid, 'exited')
    assert (again['inode'], again['file_handle']) == (exited['inode'], token)

    target.wait()
    reaped = check_json(tool.line(), target.pid, 'reaped')
    assert reaped['file_handle'] == token
    assert tool.finish() == (0, [], [])

    status, out, err = run('@' + token)
    assert status == 1 and out == ''
    assert 'gone or not visible from here' in err

    status, out, err = run('-e', '@' + token)
    assert status == 0, err


def token_of(pid):
    """The process token of the running process @pid, made here as the
    library makes it (the format at the top of
    gio-procwatch/procwatch-process-token.c), whatever backend the tool is
    run with; None where the kernel gives no pidfs file handles."""

    class FileHandle(ctypes.Structure):
        _fields_ = [('handle_bytes', ctypes.c_uint), ('handle_type', ctypes.c_int),
                    ('f_handle', ctypes.c_ubyte * 128)]

    libc = ctypes.CDLL(None, use_errno=True)
    handle = FileHandle(handle_bytes=128)
    mount_id = ctypes.c_int()
    pidfd = os.pidfd_open(pid)
    try:
        if libc.name_to_handle_at(pidfd, b'', ctypes.byref(handle), ctypes.byref(mount_id),
                                  0x1000) != 0:  # AT_EMPTY_PATH
            return None
    finally:
        os.close(pidfd)
    with open('/proc/sys/kernel/random/boot_id') as f:
        boot_id = bytes.fromhex(f.read().strip().replace('-', ''))
    token = (b'PWFH' + struct.pack('<II', 1, handle.handle_type) + boot_id
             + struct.pack('<I', handle.handle_bytes) + bytes(handle.f_handle[:handle.handle_bytes]))
    return base64.b64encode(token).decode()


@pytest.mark.parametrize('backend', ['pidfd', 'poll'])
def test_file_handle_argument_on_every_backend(procs, tools, backend):
    """@BASE64 is handed to the library, which opens the token into a pidfd
    and watches that on any backend (not turned into a PID:INODE, which the
    poll backend cannot check)."""
    target = procs()
    token = token_of(target.pid)
    if token is None:
        pytest.skip('no pidfs file handles here (Linux 6.14 and newer)')
    tool = tools('--json', '@' + token, wrapper=['env', 'PROCWATCH_BACKEND=' + backend])
    target.kill()
    record = check_json(tool.line(), target.pid, 'exited')
    assert record['file_handle'] == token
    assert tool.finish() == (0, [], [])


def test_file_handle_of_a_reaped_process_skipped_as_a_gone_pid(procs):
    """-e skips a token whose process is reaped as it skips a gone PID:
    silently, and said only with -v."""
    target = procs()
    token = token_of(target.pid)
    if token is None:
        pytest.skip('no pidfs file handles here (Linux 6.14 and newer)')
    target.kill()
    target.wait()
    assert run('-e', '@' + token) == (0, '', '')
    assert run('-e', '-v', '@' + token) == \
        (0, '', "procwatch: process '@%s' has exited, skipping\n" % token)
    # Alongside a gone PID, and without -e: the library says why.
    assert run('-e', gone_pid(), '@' + token) == (0, '', '')
    status, out, err = run('@' + token)
    assert (status, out) == (1, '')
    assert err.startswith("procwatch: could not open process '@%s': " % token), err


def test_file_handle_argument_that_is_no_token():
    status, out, err = run('@AAAA')
    assert (status, out) == (1, '')
    assert "could not open process '@AAAA'" in err
