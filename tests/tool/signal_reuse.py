# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""Run as pid 1 of a private pid namespace (with its own /proc) by
test_signals.py: a process procwatch selected exits and is reaped, its pid
is given to a new process, and then procwatch signals. The new owner of the
pid must never get the signal.

Usage: signal_reuse.py TOOL INODES_KNOWN. Prints "started", then one
"ok SCENARIO" per scenario; an assertion error ends it with status 1.
"""

import json
import os
import select
import signal
import subprocess
import sys

TOOL = sys.argv[1]
INODES_KNOWN = sys.argv[2] == '1'
DEADLINE = 20.0
# Long enough that the reuse, which takes milliseconds, is done before the
# timer fires; the order is checked, not assumed.
SIGNAL_AFTER = '2'

IGNORE_TERM = ('import signal, sys\n'
               'signal.signal(signal.SIGTERM, signal.SIG_IGN)\n'
               'print("ready", flush=True); sys.stdin.read()')


def sleeper():
    return subprocess.Popen(['sleep', '300'])


def term_ignorer():
    proc = subprocess.Popen([sys.executable, '-c', IGNORE_TERM],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout.readline() == b'ready\n'
    return proc


def reuse(pid):
    """A new sleep(1) with @pid, which must be free: the next fork gets it."""
    with open('/proc/sys/kernel/ns_last_pid', 'w') as f:
        f.write(str(pid - 1))
    proc = sleeper()
    assert proc.pid == pid, 'pid %d was not reused: got %d' % (pid, proc.pid)
    return proc


def still_running(proc):
    """Alive, not even a zombie: nothing signalled it."""
    if proc.poll() is not None:
        return False
    with open('/proc/%d/stat' % proc.pid) as f:
        return f.read().rsplit(')', 1)[1].split()[0] != 'Z'


class Records:
    """procwatch's JSON lines, read from the pipe with a deadline; nothing
    is buffered where select() cannot see it."""

    def __init__(self, tool):
        self.tool = tool
        self.buffer = b''

    def _fill(self, timeout):
        ready, _, _ = select.select([self.tool.stdout], [], [], timeout)
        chunk = os.read(self.tool.stdout.fileno(), 65536) if ready else b''
        self.buffer += chunk
        return bool(chunk)

    def next(self):
        while b'\n' not in self.buffer:
            assert self._fill(DEADLINE), 'procwatch printed nothing more: %r' % self.buffer
        line, self.buffer = self.buffer.split(b'\n', 1)
        return json.loads(line)

    def nothing_yet(self):
        """Nothing printed, and still running."""
        self._fill(0)
        return self.buffer == b'' and self.tool.poll() is None

    def rest(self):
        while self._fill(DEADLINE):
            pass
        return [json.loads(line) for line in self.buffer.splitlines()]


def pinned_then_reused():
    """--send KILL PID:INODE after the process it names has gone and its
    pid was reused: refused, and the new owner lives."""
    a = sleeper()
    pidfd = os.pidfd_open(a.pid)
    inode = os.fstat(pidfd).st_ino
    os.close(pidfd)
    a.kill()
    a.wait()
    c = reuse(a.pid)
    proc = subprocess.run([TOOL, '--send', 'KILL', '%d:%d' % (a.pid, inode)],
                          capture_output=True, text=True, timeout=DEADLINE)
    assert still_running(c), 'the new owner of pid %d was signalled' % c.pid
    if INODES_KNOWN:
        assert (proc.returncode, proc.stdout, proc.stderr) == (
            1, '', 'procwatch: could not open PID %d: No such process\n' % c.pid), proc
    else:
        assert proc.returncode == 2 and proc.stdout == '', proc
    c.kill()
    c.wait()


def reused_while_selected(options, expect_status):
    """procwatch selects a and b by pid; a exits and is reaped and its pid
    goes to c; then the signal of @options is due: b gets it, c not."""
    a = sleeper()
    b = term_ignorer()
    tool = subprocess.Popen([TOOL, '--json', *options, str(a.pid), str(b.pid)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = Records(tool)
    records = []
    if '--send' in options:
        # TERM went to both now; a ends of it, b ignores it.
        records += [out.next(), out.next()]
        assert [(r['event'], r['pid'], r['why']) for r in records] == [
            ('signal', a.pid, 'send'), ('signal', b.pid, 'send')], records
    else:
        a.kill()
    records.append(out.next())
    assert (records[-1]['event'], records[-1]['pid']) == ('exited', a.pid), records
    a.wait()
    c = reuse(a.pid)
    assert out.nothing_yet(), ('procwatch went on before the pid was reused: %r, %r'
                               % (records, out.buffer))
    records += out.rest()
    status = tool.wait(DEADLINE)
    assert status == expect_status, (status, tool.stderr.read())
    assert still_running(c), 'the new owner of pid %d was signalled' % c.pid
    late = [(r['event'], r['pid'], r.get('signal_name')) for r in records[-2:]]
    assert late == [('signal', b.pid, 'SIGKILL'), ('exited', b.pid, None)], records
    assert b.wait() == -signal.SIGKILL
    c.kill()
    c.wait()


def main():
    print('started', flush=True)
    pinned_then_reused()
    print('ok pinned', flush=True)
    reused_while_selected(['-t', SIGNAL_AFTER, '-s', 'KILL'], 3)
    print('ok timeout', flush=True)
    reused_while_selected(['--send', 'TERM', '-k', SIGNAL_AFTER], 0)
    print('ok kill-after', flush=True)


if __name__ == '__main__':
    main()
