# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# The system the cgroup and D-Bus tests need, without GObject: the cgroup2
# mount, and a private message bus. Shared with tests/examples/smoke.py.

import contextlib
import os
import shutil
import subprocess
import tempfile


def skip_for_system(reason):
    """Skips the test saying what this system lacks; where every test must
    run (PROCWATCH_TEST_REQUIRE_ALL=1, CI), fails it instead."""
    import pytest
    if os.environ.get('PROCWATCH_TEST_REQUIRE_ALL'):
        pytest.fail(f'{reason}, and PROCWATCH_TEST_REQUIRE_ALL is set')
    pytest.skip(reason)


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
