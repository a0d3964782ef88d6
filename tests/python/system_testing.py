# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# The system the cgroup and D-Bus tests need, without GObject: the cgroup2
# mount, and a private message bus. Shared with tests/examples/smoke.py.

import contextlib
import os
import shutil
import stat
import subprocess
import tempfile


def reachable_by_others(path):
    """Whether a user other than the owner can reach @path: every directory
    above it searchable by others. A checkout under /root (mode 700) is not,
    and a test that drops to another user cannot run its programs there."""
    path = os.path.realpath(path)
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return True
        path = parent
        if not os.stat(path).st_mode & stat.S_IXOTH:
            return False

def cgroup2_mount():
    """(mount point, root) of the first cgroup2 mount in
    /proc/self/mountinfo, or None."""
    def unescape(field):
        return (field.replace('\\040', ' ').replace('\\011', '\t')
                .replace('\\012', '\n').replace('\\134', '\\'))

    with open('/proc/self/mountinfo') as mountinfo:
        for line in mountinfo:
            fields = line.split()
            separator = fields.index('-')
            if fields[separator + 1] == 'cgroup2':
                return unescape(fields[4]), unescape(fields[3])
    return None


@contextlib.contextmanager
def private_bus(implementation='dbus-daemon'):
    """A message bus of our own, for the block: yields its address. It is
    started by procwatch-dbus-test-bus (PROCWATCH_TEST_DBUS_BUS), which runs
    either implementation, dbus-daemon or dbus-broker, and stops it at the
    end of the block, its processes waited for."""
    directory = tempfile.mkdtemp(prefix='procwatch-bus-')
    bus = subprocess.Popen([os.environ['PROCWATCH_TEST_DBUS_BUS'], implementation, directory],
                           stdout=subprocess.PIPE, text=True)
    try:
        address = bus.stdout.readline().strip()
        assert address, f'{implementation} did not start'
        yield address
    finally:
        bus.terminate()
        bus.wait()
        bus.stdout.close()
        shutil.rmtree(directory)
