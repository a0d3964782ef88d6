# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""procwatch as util-linux waitpid(1): run through a link named "waitpid",
and as "procwatch -q", against util-linux's own test cases for waitpid.

The cases and their expected output are util-linux's, taken from
https://github.com/util-linux/util-linux at commit
39465c780eed56034ed1440068a2722fc3331343 (tests/ts/waitpid/waitpid,
tests/ts/waitpid/pidfd-ino, tests/expected/waitpid/*; unchanged there since
cf514a2ea3173d15c1bd8f80a0b7f955a2fc229b). The harness is ours: each case
runs as a bash script with the same steps, TS_OUTPUT and TS_ERRLOG being two
files compared byte for byte with what upstream expects (the subjects' sleep
times scaled: see SLEEP_SCALE). Their subjects are
`sleep` processes that end on their own: what waitpid waits for.
"""

import os
import re
import subprocess
import sys

import pytest

# procs is a fixture: imported to be used here.
from test_procwatch import (WAITPID_USAGE_ERRORS, gone_pid, inodes_known,  # noqa: F401
                            kernel_at_least, procs, zombie)

TOOL = os.environ['PROCWATCH_TOOL']
WAITPID = os.environ['PROCWATCH_WAITPID']
DEADLINE = 20.0

# upstream's getino -p PID: "PID:INODE" of the process's pidfd on pidfs.
PREAMBLE = r'''
getino() {
    "$PYTHON" -c 'import os, sys; p = int(sys.argv[1])
print("%d:%d" % (p, os.fstat(os.pidfd_open(p)).st_ino))' "$2"
}
'''

CASES = {
    # tests/ts/waitpid/waitpid
    'waitpid-normal': (r'''
(sleep 0.5; echo 1 >> "$TS_OUTPUT") &
BG1="$!"

(sleep 0.1; echo 2 >> "$TS_OUTPUT") &
BG2="$!"

echo 3 >> "$TS_OUTPUT"
"${WAITPID[@]}" "$BG1" "$BG2" || echo "exit status $?" >&2

echo 4 >> "$TS_OUTPUT"
''', '3\n2\n1\n4\n', ''),
    'waitpid-timeout': (r'''
"${WAITPID[@]}" --verbose --timeout 0.1 1 >> "$TS_OUTPUT" 2>> "$TS_ERRLOG"
echo $? >> "$TS_OUTPUT"
''', 'Timeout expired\n3\n', ''),
    'waitpid-exited': (r'''
"${WAITPID[@]}" --verbose --exited 2147483647 >> "$TS_OUTPUT" 2>> "$TS_ERRLOG"
echo $? >> "$TS_ERRLOG"
''', '', 'waitpid: PID 2147483647 has exited, skipping\n0\n'),
    'waitpid-count': (r'''
(sleep 0.2; echo 1 >> "$TS_OUTPUT") &
BG1="$!"

"${WAITPID[@]}" --count 1 1 "$BG1" >> "$TS_OUTPUT" 2>> "$TS_ERRLOG"
echo $? >> "$TS_ERRLOG"
''', '1\n', '0\n'),
    # tests/ts/waitpid/pidfd-ino
    'pidfd-ino-one-pid-arg': (r'''
(sleep 0.5; echo 1 >> "$TS_OUTPUT") &
PID="$( getino -p $! 2>/dev/null )"

"${WAITPID[@]}" "$PID" >> "$TS_OUTPUT" 2>> "$TS_ERRLOG"
echo $? >> "$TS_ERRLOG"
''', '1\n', '0\n'),
    'pidfd-ino-mixed-pid-formats': (r'''
(sleep 0.6; echo 1 >> "$TS_OUTPUT") &
PID1="$( getino -p $! 2>/dev/null )"

(sleep 0.2; echo 2 >> "$TS_OUTPUT") &
PID2="$!"

"${WAITPID[@]}" "$PID1" "$PID2" >> "$TS_OUTPUT" 2>> "$TS_ERRLOG"
echo $? >> "$TS_ERRLOG"
''', '2\n1\n', '0\n'),
    'pidfd-ino-count': (r'''
(sleep 0.2; echo 1 >> "$TS_OUTPUT") &
BG1="$( getino -p $! 2>/dev/null )"

"${WAITPID[@]}" -c 1 1 "$BG1" >> "$TS_OUTPUT" 2>> "$TS_ERRLOG"
echo $? >> "$TS_ERRLOG"
''', '1\n', '0\n'),
}

# The same tool under both names; procwatch's name is put aside by writing
# waitpid's in its place.
NAMES = {
    'waitpid': [WAITPID],
    'procwatch-q': [TOOL, '-q'],
}


# Upstream's subjects sleep 0.1 to 0.6 s: the tool must have opened them by
# then. On a loaded machine starting it can take longer (seen here at a load
# average of 480), so their times are scaled; the order in which they end,
# and so every expected byte, stays upstream's.
SLEEP_SCALE = float(os.environ.get('PROCWATCH_TEST_SLEEP_SCALE', '3'))


def scale_sleeps(script):
    return re.sub(r'\bsleep ([0-9.]+)',
                  lambda m: 'sleep %g' % (float(m.group(1)) * SLEEP_SCALE), script)


def run_case(tmp_path, script, command):
    output, errlog = tmp_path / 'output', tmp_path / 'errlog'
    output.write_bytes(b'')
    errlog.write_bytes(b'')
    words = ' '.join("'%s'" % w for w in command)
    proc = subprocess.run(['bash', '-c', PREAMBLE + 'WAITPID=(%s)\n' % words + script],
                          env={**os.environ, 'TS_OUTPUT': str(output), 'TS_ERRLOG': str(errlog),
                               'PYTHON': sys.executable},
                          capture_output=True, text=True, timeout=DEADLINE)
    # Nothing escapes the redirections, and the script itself went well.
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, '', '')
    return output.read_text(), errlog.read_text()


@pytest.mark.parametrize('name', NAMES)
@pytest.mark.parametrize('case', CASES)
def test_upstream_waitpid_case(tmp_path, case, name):
    script, want_output, want_errlog = CASES[case]
    if case.startswith('pidfd-ino') and not kernel_at_least(6, 9):
        pytest.skip('PID:INODE needs pidfs (Linux 6.9); upstream expects this case to fail')
    if case.startswith('pidfd-ino') and not inodes_known():
        pytest.skip('PROCWATCH_BACKEND forces a /proc fallback, which knows no pidfs inodes '
                    '(exit status 2: test_pid_inode_unsupported_without_the_pidfd_backend)')
    output, errlog = run_case(tmp_path, scale_sleeps(script), NAMES[name])
    if name != 'waitpid':
        errlog = re.sub(r'^procwatch: ', 'waitpid: ', errlog, flags=re.M)
    assert (output, errlog) == (want_output, want_errlog)


# The rest of waitpid's behaviour, from misc-utils/waitpid.c at that commit.

def run(*args, env=None):
    proc = subprocess.run([WAITPID, *map(str, args)], stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=DEADLINE, env=env)
    return proc.returncode, proc.stdout, proc.stderr


WAITPID_HELP = '''
Usage:
 waitpid [options] PID[:inode]...

Options:
 -v, --verbose           be more verbose
 -t, --timeout=<timeout> wait at most timeout seconds
 -e, --exited            allow exited PIDs
 -c, --count=<count>     number of process exits to wait for

 -h, --help              display this help
 -V, --version           display version

For more details see waitpid(1).
'''


def test_help_and_version():
    assert run('--help') == (0, WAITPID_HELP, '')
    assert run('-h') == (0, WAITPID_HELP, '')
    status, out, err = run('--version')
    assert (status, err) == (0, '')
    assert re.fullmatch(r'waitpid from gio-procwatch \d+\.\d+\.\d+\n', out)


@pytest.mark.parametrize('args, message', [
    (['--json', '1'], "unrecognized option '--json'"),
    (['--reaped', '1'], "unrecognized option '--reaped'"),
    (['--debug', '1'], "unrecognized option '--debug'"),
    (['-q', '1'], "invalid option -- 'q'"),
    (['-n', 'sleep'], "invalid option -- 'n'"),
    (['-f', '1'], "invalid option -- 'f'"),
])
def test_procwatch_options_are_not_waitpid_options(args, message):
    assert run(*args) == (1, '', "%s: %s\nTry 'waitpid --help' for more information.\n"
                          % (WAITPID, message))


@pytest.mark.parametrize('args, message', [
    (['-c', '1', '-e', '1'], 'options --count and --exited cannot be combined'),
    (['-e', '-c1', '1'], 'options --exited and --count cannot be combined'),
    (['--exited', '--count=1', '1'], 'options --exited and --count cannot be combined'),
    # Refused before the count is read.
    (['-e', '-c', 'x', '1'], 'options --exited and --count cannot be combined'),
])
def test_count_with_exited_is_refused(args, message):
    assert run(*args) == (1, '', 'waitpid: %s\n' % message)


@pytest.mark.parametrize('args, message', WAITPID_USAGE_ERRORS + [([], 'no PIDs specified\n')])
def test_bad_usage_messages(args, message):
    assert run(*args) == (1, '', 'waitpid: ' + message)


def test_gone_pid_fails_with_waitpids_message():
    pid = gone_pid()
    assert run(pid) == (1, '', 'waitpid: could not open PID %d: No such process\n' % pid)
    assert run('-e', pid) == (0, '', '')


def test_no_event_lines_and_double_dash(procs):
    z = zombie(procs)
    assert run(z.pid) == (0, '', '')
    # "--" ends the options; PIDs follow, as for getopt.
    assert run('-v', '--', z.pid) == (0, 'PID %d finished\n' % z.pid, '')
    assert run('-e', '--', gone_pid()) == (0, '', '')


def test_same_pid_twice_finishes_twice(procs):
    """waitpid opens one pidfd per argument, and counts each."""
    z = zombie(procs)
    assert run('-v', z.pid, z.pid) == (0, 'PID %d finished\n' % z.pid * 2, '')
    assert run('-v', '-c1', z.pid, z.pid) == (0, 'PID %d finished\n' % z.pid, '')


@pytest.mark.skipif(not inodes_known(),
                    reason='inodes need pidfs (Linux 6.9) and the pidfd backend')
def test_pid_inode_mismatch(procs):
    target = procs()
    inode = os.fstat(fd := os.pidfd_open(target.pid)).st_ino
    os.close(fd)
    wrong = '%d:%d' % (target.pid, inode + 1)
    assert run(wrong) == (1, '', 'waitpid: could not open PID %d: No such process\n'
                          % target.pid)
    assert run('-v', '-e', wrong) == (0, '', 'waitpid: pidfd inode %d not found for PID %d\n'
                                      'waitpid: PID %d has exited, skipping\n'
                                      % (inode + 1, target.pid, target.pid))
    assert target.poll() is None


def test_options_after_operands_and_attached_values(procs):
    target = procs()
    assert run(target.pid, '-vt0.05') == (3, 'Timeout expired\n', '')
    assert run('--timeout=0.05', target.pid, '--verb') == (3, 'Timeout expired\n', '')
