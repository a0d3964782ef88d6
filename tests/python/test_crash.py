# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# Did it crash: Process.get_core_dumped() and the core-dumped property on
# real faults and aborts of an uninstrumented helper, with a dump written
# into the test's directory (RLIMIT_CORE raised in the helper) and without
# one (RLIMIT_CORE 0), for children and non-children.

import os
import signal
import subprocess

import pytest
from gi.repository import Procwatch

from procwatch_testing import TIMEOUT_SECONDS, has_feature, run_until

CRASH_HELPER = os.environ['PROCWATCH_TEST_CRASH_HELPER']
SIGNALS = {'segv': signal.SIGSEGV, 'abort': signal.SIGABRT}


def core_pattern_writes_here():
    with open('/proc/sys/kernel/core_pattern') as f:
        pattern = f.read().strip()
    # A pipe (|) or socket (@) pattern hands the dump to a program, which
    # RLIMIT_CORE does not stop; an absolute path writes elsewhere.
    if not pattern or pattern[0] in '|@' or '/' in pattern:
        pytest.skip(f'core_pattern is "{pattern}": a dump does not land in the '
                    'test\'s directory (untested here)')


class Crasher:
    """The helper, ready to crash on SIGUSR1; with non_child, its own child
    crashes and the helper reaps it when told."""

    def __init__(self, how, core, directory, non_child):
        args = [CRASH_HELPER, how, 'core' if core else 'no-core', str(directory)]
        if non_child:
            args.append('--non-child')
        self.popen = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.pid = int(self.popen.stdout.readline())
        assert (self.pid == self.popen.pid) != non_child

    def crash(self):
        os.kill(self.pid, signal.SIGUSR1)

    def reap_child(self):
        """The wait status the kernel gives us, the parent."""
        pid, status = os.waitpid(self.pid, 0)
        assert pid == self.pid
        self.popen.returncode = -os.WTERMSIG(status)
        return status

    def reap_non_child(self):
        self.popen.stdin.write(b'reap\n')
        self.popen.stdin.flush()

    def close(self):
        self.popen.stdin.close()
        self.popen.stdout.close()
        if self.popen.returncode is None:
            assert self.popen.wait(timeout=TIMEOUT_SECONDS) == 0


@pytest.mark.parametrize('non_child', [False, True], ids=['child', 'non-child'])
@pytest.mark.parametrize('core', [True, False], ids=['core', 'no-core'])
@pytest.mark.parametrize('how', ['segv', 'abort'])
def test_core_dumped(monitor, recorder, tmp_path, how, core, non_child):
    core_pattern_writes_here()
    crasher = Crasher(how, core, tmp_path, non_child)
    try:
        process = monitor.watch_pid(crasher.pid)
        notified = []
        process.connect('notify::core-dumped',
                        lambda p, pspec: notified.append((p.props.core_dumped,
                                                          recorder.names(crasher.pid))))
        assert process.get_core_dumped() is False
        assert process.props.core_dumped is False

        crasher.crash()
        exited = recorder.wait_for(crasher.pid, 'exited')
        if non_child:
            # Nobody tells a non-child's status before its reap.
            assert exited[4] is False
            assert process.get_core_dumped() is False
            crasher.reap_non_child()
        else:
            assert exited[4] is True
            assert process.get_core_dumped() is core
            status = crasher.reap_child()
            assert os.WIFSIGNALED(status)
            assert os.WCOREDUMP(status) is core
            assert process.get_status() == status
        recorder.wait_for(crasher.pid, 'reaped')

        # A reaped non-child's status, and with it the core flag: Linux
        # 6.15+ with pidfds (PIDFD_INFO_EXIT).
        if non_child and not has_feature(monitor, Procwatch.Features.NON_CHILD_STATUS):
            assert process.has_status() is False
            assert process.get_core_dumped() is False
            assert notified == []
        else:
            assert process.has_status()
            assert process.get_term_sig() == SIGNALS[how]
            assert process.get_core_dumped() is core
            assert process.props.core_dumped is core
            # Once, before the signal of the state it came with.
            before = ['exited'] if non_child else []
            assert notified == ([(True, before)] if core else [])
    finally:
        crasher.close()

    # The dump itself: written with RLIMIT_CORE raised, not with 0.
    assert len(os.listdir(tmp_path)) == (1 if core else 0)
