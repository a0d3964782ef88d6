# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""Stop and wait: --send, -s/--signal and -k/--kill-after on real
processes, with timeout(1)'s meanings and exit statuses.

The subjects are sleep(1) processes or small Python programs that say
"ready" once their signal handlers are set; the tests act on those lines
and on procwatch's own output, never on time. Only -t and -k, the timers
under test, take time.
"""

import json
import os
import shutil
import signal
import subprocess
import sys

import pytest

# procs and tools are fixtures: imported to be used here.
from test_procwatch import (DEADLINE, JSON_KEYS, TOOL, Tool, assert_event, readable_copy_of_tool,  # noqa: F401
                            gone_pid, inodes_known, pidfs_inode, procs, run, tools)

SIGNAL_KEYS = JSON_KEYS[:-1] + ['signal', 'signal_name', 'why', 'error']
REUSE_HELPER = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'signal_reuse.py')

# Ignores SIGTERM; says so, then lives until its stdin closes.
IGNORE_TERM = ('import signal, sys\n'
               'signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
               'print("ready", flush=True); sys.stdin.read()')

# Writes the number of the first of the signals it gets, then lives until
# its stdin closes. The signals are blocked before "ready" and taken with
# sigwaitinfo(), not caught: CPython runs a handler only when its eval loop
# next looks, so a signal caught just before sys.stdin.read() blocks was
# caught, and reported never (seen under load, one run in a few hundred).
# A blocked signal stays pending until it is taken.
REPORT_SIGNAL = ('import signal, sys\n'
                 'signals = %r\n'
                 'signal.pthread_sigmask(signal.SIG_BLOCK, signals)\n'
                 'print("ready", flush=True)\n'
                 'print(signal.sigwaitinfo(signals).si_signo, flush=True)\n'
                 'sys.stdin.read()')

# Blocks TERM, says so, then lives until its stdin closes: a TERM stays
# pending in it and changes nothing.
BLOCK_TERM = ('import signal, sys\n'
              'signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])\n'
              'print("ready", flush=True); sys.stdin.read()')


def term_ignorer(procs):
    proc = procs([sys.executable, '-c', IGNORE_TERM], stdin=subprocess.PIPE,
                 stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b'ready\n'
    return proc


def grandchild(procs):
    """A sleep(1) that is not the test's child (a shell's, which reaps it),
    and its shell."""
    shell = procs(['sh', '-c', 'sleep 300 & echo $!; wait $!; echo $?'], stdout=subprocess.PIPE)
    return int(shell.stdout.readline()), shell


def signal_record(line, pid, why, signame, error=None):
    obj = json.loads(line)
    assert list(obj) == SIGNAL_KEYS, obj
    assert (obj['event'], obj['pid'], obj['why'], obj['signal_name']) == (
        'signal', pid, why, signame), obj
    assert obj['signal'] == getattr(signal, signame)
    assert obj['error'] == error
    return obj


def records_until_exited(tool, pids):
    """procwatch's JSON records until each of @pids has exited, by pid:
    their order across processes depends on the scheduler, not on us."""
    by_pid = {pid: [] for pid in pids}
    waiting = set(pids)
    while waiting:
        record = json.loads(tool.line())
        by_pid[record['pid']].append(record)
        if record['event'] == 'exited':
            waiting.discard(record['pid'])
    return by_pid


def sent(records):
    """(why, signal name) of each signal that was sent."""
    return [(r['why'], r['signal_name']) for r in records
            if r['event'] == 'signal' and r['error'] is None]


# --send ---------------------------------------------------------------------

def test_send_term_ends_children_and_non_children(procs):
    children = [procs(), procs()]
    other, shell = grandchild(procs)
    pids = [c.pid for c in children] + [other]
    status, out, err = run('--send', 'TERM', *pids)
    assert (status, err) == (0, '')
    assert sorted(int(line.split()[0]) for line in out.splitlines()) == sorted(pids)
    assert all(line.split()[1] == 'exited' for line in out.splitlines())
    for child in children:
        assert child.wait() == -signal.SIGTERM
    # The shell's wait ends once its sleep has ended, as TERM ended it.
    assert shell.stdout.readline() == b'%d\n' % (128 + signal.SIGTERM)


def test_send_json_records_each_signal(procs, tools):
    target = procs()
    tool = tools('--json', '--send', 'SIGTERM', target.pid)
    record = signal_record(tool.line(), target.pid, 'send', 'SIGTERM')
    assert record['name'] == 'sleep'
    assert record['inode'] == (pidfs_inode(target.pid) if inodes_known() else None)
    exited = json.loads(tool.line())
    assert (exited['event'], exited['pid']) == ('exited', target.pid)
    assert tool.finish() == (0, [], [])
    assert target.wait() == -signal.SIGTERM


def test_send_to_a_process_that_ignores_it_then_waits(procs, tools):
    """--send does not end the wait: the process does."""
    target = term_ignorer(procs)
    tool = tools('--json', '--send', 'TERM', target.pid)
    signal_record(tool.line(), target.pid, 'send', 'SIGTERM')
    assert tool.proc.poll() is None
    target.stdin.close()
    exited = json.loads(tool.line())
    assert (exited['event'], exited['pid']) == ('exited', target.pid)
    assert tool.finish() == (0, [], [])


@pytest.mark.parametrize('program', [IGNORE_TERM, BLOCK_TERM])
def test_send_then_timeout_ends_the_wait(procs, tools, program):
    """-t holds whatever the signal did: sent, and ignored or left
    pending, the timeout still ends the wait with its status."""
    target = procs([sys.executable, '-c', program], stdin=subprocess.PIPE,
                   stdout=subprocess.PIPE)
    assert target.stdout.readline() == b'ready\n'
    tool = tools('--json', '-t', '1', '--send', 'TERM', target.pid)
    signal_record(tool.line(), target.pid, 'send', 'SIGTERM')
    assert tool.finish() == (3, [], [])
    assert target.poll() is None


@pytest.mark.parametrize('options, why, expect', [
    # TERM now; KILL 0.2 s later to what still runs; every process exited: 0.
    (['--send', 'TERM', '-k', '0.2'], 'send', 0),
    # TERM at the timeout, KILL 0.2 s later; the timeout expired: 3.
    (['-t', '0.2', '-s', 'TERM', '-k', '0.2'], 'timeout', 3),
])
def test_kill_after_kills_what_ignores_term(procs, tools, options, why, expect):
    stubborn = term_ignorer(procs)
    plain = procs()
    tool = tools('--json', *options, stubborn.pid, plain.pid)
    signal_record(tool.line(), stubborn.pid, why, 'SIGTERM')
    signal_record(tool.line(), plain.pid, why, 'SIGTERM')
    records = records_until_exited(tool, [stubborn.pid, plain.pid])
    assert sent(records[stubborn.pid]) == [('kill-after', 'SIGKILL')]
    # Ended by TERM at once; a KILL would only be tried if the exit was not
    # seen within the 0.2 s, and then refused as gone.
    assert sent(records[plain.pid]) == []
    assert tool.finish() == (expect, [], [])
    assert (stubborn.wait(), plain.wait()) == (-signal.SIGKILL, -signal.SIGTERM)


def test_send_to_a_process_already_gone_is_no_error(procs):
    target = procs()
    target.kill()
    os.waitid(os.P_PID, target.pid, os.WEXITED | os.WNOWAIT)   # a zombie
    status, out, err = run('--json', '--send', 'TERM', target.pid)
    assert (status, err) == (0, '')
    lines = out.splitlines()
    assert json.loads(lines[-1])['event'] == 'exited'
    # Either the signal was not even tried (the exit was known), or it was
    # refused as gone: never sent.
    for line in lines[:-1]:
        assert json.loads(line)['error'] is not None


def test_send_that_fails_is_not_waited_for(procs):
    """A process procwatch may not signal (another user's) is reported and
    not waited for; the others are; the exit status says it: 1."""
    if os.geteuid() != 0 or not shutil.which('setpriv'):
        pytest.skip('needs root and setpriv(1) to run as another user')
    target = procs()
    with readable_copy_of_tool() as (tool, library_path):
        status, out, err = run('--json', '--send', 'TERM', target.pid, tool=tool,
                               wrapper=['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups',
                                        '--', 'env', 'LD_LIBRARY_PATH=' + library_path])
    assert status == 1
    assert err == 'procwatch: cannot send SIGTERM to PID %d: %s\n' % (
        target.pid, json.loads(out)['error'])
    signal_record(out, target.pid, 'send', 'SIGTERM', error=json.loads(out)['error'])
    assert target.poll() is None


# -s/--signal at the timeout, and -k ------------------------------------------

def test_timeout_without_signal_leaves_pids_alone(procs):
    target = procs()
    assert run('-t', '0.05', target.pid) == (3, '', '')
    assert target.poll() is None


def test_timeout_signal_only_to_those_still_running(procs, tools):
    done = procs()
    running = procs()
    tool = tools('--json', '-t', '2', '-s', 'KILL', done.pid, running.pid)
    done.kill()
    records = records_until_exited(tool, [done.pid, running.pid])
    assert sent(records[done.pid]) == []
    assert sent(records[running.pid]) == [('timeout', 'SIGKILL')]
    assert tool.finish() == (3, [], [])


# With a COMMAND: timeout(1)'s statuses ----------------------------------------

# Says so on its stdout (procwatch's) once it ignores TERM.
COMMAND_IGNORING_TERM = [sys.executable, '-c',
                         'import signal, time\n'
                         'signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
                         'print(flush=True); time.sleep(300)']
# Ignores TERM from its start: env(1) sets that up before it runs sleep(1).
SLEEP_IGNORING_TERM = ['env', '--ignore-signal=TERM', 'sleep', '300']
# Exits 0 on TERM.
# Taken with sigwait(), not a handler: one run before time.sleep() would
# miss a TERM that came just before the sleep began (see REPORT_SIGNAL).
COMMAND_HANDLING_TERM = [sys.executable, '-c',
                         'import signal, sys\n'
                         'signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGTERM])\n'
                         'signal.sigwait([signal.SIGTERM]); sys.exit(0)']


@pytest.mark.parametrize('options, command, expect', [
    # TERM by default; the command ends of it: 124, as timeout(1).
    (['-t', '0.1'], ['sleep', '300'], 124),
    # It exits 0 on TERM (or ends of it, if it gets it first): still 124.
    (['-t', '0.5'], COMMAND_HANDLING_TERM, 124),
    # KILL ends it: 137.
    (['-t', '0.1', '-s', 'KILL'], ['sleep', '300'], 137),
    (['-t', '0.5', '-s', 'TERM', '-k', '0.1'], SLEEP_IGNORING_TERM, 137),
    # It ends before the timeout: its own status.
    (['-t', '60', '-s', 'KILL', '-k', '1'], ['sh', '-c', 'exit 7'], 7),
])
def test_command_statuses_as_timeout(options, command, expect):
    status, out, err = run(*options, '--', *command)
    assert (status, err) == (expect, '')
    if shutil.which('timeout'):
        # What coreutils' timeout(1) says for the same; it KILLs itself
        # too, which a shell shows as 137.
        pairs = list(zip(options[::2], options[1::2]))
        args = [word for option, value in pairs if option != '-t' for word in (option, value)]
        proc = subprocess.run(['timeout', *args, dict(pairs)['-t'], *command],
                              capture_output=True, timeout=DEADLINE)
        assert proc.returncode in (expect, -signal.SIGKILL if expect == 137 else expect)


def test_command_json_records_the_timeout_signals():
    status, out, err = run('--json', '-t', '0.5', '-k', '0.1', '--', *SLEEP_IGNORING_TERM)
    assert (status, err) == (137, '')
    records = [json.loads(line) for line in out.splitlines()]
    assert [(r['event'], r.get('why'), r.get('signal_name')) for r in records] == [
        ('signal', 'timeout', 'SIGTERM'), ('signal', 'kill-after', 'SIGKILL'),
        ('exited', None, None)]


def test_sigterm_to_procwatch_arms_kill_after(tools):
    """As timeout(1): a signal passed on to the command starts -k."""
    tool = tools('--json', '-k', '0.2', '--', *COMMAND_IGNORING_TERM)
    assert tool.line() == ''   # the command's own empty line: it ignores TERM now
    tool.proc.send_signal(signal.SIGTERM)
    forward = tool.line()
    pid = json.loads(forward)['pid']
    signal_record(forward, pid, 'forward', 'SIGTERM')
    signal_record(tool.line(), pid, 'kill-after', 'SIGKILL')
    assert json.loads(tool.line())['event'] == 'exited'
    assert tool.finish() == (128 + signal.SIGKILL, [], [])


# Signal names and usage ---------------------------------------------------------

@pytest.mark.parametrize('name, signum', [
    ('TERM', signal.SIGTERM), ('term', signal.SIGTERM), ('SIGTERM', signal.SIGTERM),
    ('sigterm', signal.SIGTERM), ('15', signal.SIGTERM), ('143', signal.SIGTERM),
    ('HUP', signal.SIGHUP), ('USR1', signal.SIGUSR1), ('SIGUSR2', signal.SIGUSR2),
    ('IOT', signal.SIGABRT), ('CLD', signal.SIGCHLD), ('RTMIN', signal.SIGRTMIN),
    ('RTMIN+2', signal.SIGRTMIN + 2), ('SIGRTMAX-1', signal.SIGRTMAX - 1),
    ('rtmax', signal.SIGRTMAX),
])
def test_signal_names_as_kill_and_timeout_take_them(procs, tools, name, signum):
    catchable = [signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
                 signal.SIGABRT, signal.SIGCHLD, signal.SIGRTMIN, signal.SIGRTMIN + 2,
                 signal.SIGRTMAX - 1, signal.SIGRTMAX]
    target = procs([sys.executable, '-c', REPORT_SIGNAL % ([int(n) for n in catchable],)],
                   stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert target.stdout.readline() == b'ready\n'
    tool = tools('--send', name, target.pid)
    assert int(target.stdout.readline()) == signum
    target.stdin.close()
    assert_event(tool.line(), target.pid, 'exited')
    assert tool.finish() == (0, [], [])


@pytest.mark.parametrize('option', ['--send', '-s', '--signal'])
@pytest.mark.parametrize('name', ['FOO', 'SIGFOO', 'SIG', '', '-1', '65', '127', '1x',
                                  'RTMIN+99', 'RTMAX+1', 'RTMIN-1', 'TERM '])
def test_bad_signal_names(option, name):
    status, out, err = run('-t', '1', option, name, '1')
    assert (status, out) == (1, '')
    assert err == ("procwatch: '%s': invalid signal\n"
                   "Try 'procwatch --help' for more information.\n" % name)


@pytest.mark.parametrize('args, message', [
    (['-s', 'TERM', '1'], '--signal needs a --timeout'),
    (['-t', '0', '-s', 'TERM', '1'], '--signal needs a --timeout'),
    (['-k', '1', '1'], '--kill-after needs --send or --signal'),
    (['-t', '1', '-k', '1', '1'], '--kill-after needs --send or --signal'),
    (['--send', 'TERM', '--', 'true'], '--send cannot be combined with a COMMAND'),
])
def test_signal_option_usage_errors(args, message):
    status, out, err = run(*args)
    assert (status, out) == (1, '')
    assert err.splitlines()[0] == 'procwatch: ' + message
    assert err.endswith("Try 'procwatch --help' for more information.\n")


@pytest.mark.parametrize('value', ['x', '1x', '1ms', '-1', 'nan', ''])
def test_bad_durations(value):
    assert run('--send', 'TERM', '-k', value, '1') == (
        1, '', "procwatch: invalid duration: '%s'\n" % value)


@pytest.mark.parametrize('value', ['0.5', '2s', '1m', '1.5h', '1d', '0'])
def test_durations_as_timeout_takes_them(value):
    # Nothing is left to watch (-e): only the parsing is at stake.
    assert run('-e', '--send', 'TERM', '-k', value, '-t', value, gone_pid()) == (0, '', '')


def test_waitpid_has_no_signal_options():
    waitpid = os.environ['PROCWATCH_WAITPID']
    for args in (['--send', 'TERM', '1'], ['-s', 'TERM', '1'], ['-k', '1', '1']):
        proc = subprocess.run([waitpid, *args], capture_output=True, text=True)
        assert proc.returncode == 1 and proc.stdout == ''


# A pid reused between selection and signalling --------------------------------

def test_reused_pid_is_never_signalled():
    """In a private pid namespace (signal_reuse.py): a selected process
    exits and is reaped, its pid goes to a new process, then the signal of
    --send (by PID:INODE), -s at the timeout, or -k is due. The new owner
    must still run afterwards."""
    if not shutil.which('unshare'):
        pytest.skip('unshare(1) is missing')
    userns = [] if os.geteuid() == 0 else ['--user', '--map-root-user']
    # --kill-child: a run that times out takes its namespace with it.
    proc = subprocess.run(['unshare', *userns, '--pid', '--fork', '--kill-child', '--mount-proc',
                           '--propagation', 'unchanged',
                           sys.executable, REUSE_HELPER, TOOL, '1' if inodes_known() else '0'],
                          capture_output=True, text=True, timeout=60)
    if not proc.stdout.startswith('started\n'):
        pytest.skip('no private pid namespace here: %s' % proc.stderr.strip())
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[1:] == ['ok pinned', 'ok timeout', 'ok kill-after']


def test_help_and_man_page_document_the_signal_options():
    _, out, _ = run('--help')
    for option in ['--send=SIGNAL', '-s, --signal=SIGNAL', '-k, --kill-after=DURATION']:
        assert option in out, option
    assert '124' in out and '137' in out
    man_page = os.environ.get('PROCWATCH_MAN_PAGE')
    if not man_page or not os.path.exists(man_page):
        pytest.skip('man page path not given')
    with open(man_page, encoding='utf-8') as f:
        page = f.read().replace('\\-', '-')
    for key in SIGNAL_KEYS[len(JSON_KEYS) - 1:]:
        assert '.B %s\n' % key in page, key
    for status in ['124', '137', '125']:
        assert status in page, status
