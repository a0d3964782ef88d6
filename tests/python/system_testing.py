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

BUS_CONFIG = """<busconfig>
  <type>session</type>
  <listen>unix:path={dir}/bus</listen>
  <auth>EXTERNAL</auth>
  <policy context='default'>
    <allow send_destination='*' eavesdrop='true'/>
    <allow eavesdrop='true'/>
    <allow own='*'/>
  </policy>
</busconfig>
"""



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
def private_bus():
    """A dbus-daemon of our own, for the block: yields its address."""
    directory = tempfile.mkdtemp(prefix='procwatch-bus-')
    config = os.path.join(directory, 'bus.conf')
    with open(config, 'w') as file:
        file.write(BUS_CONFIG.format(dir=directory))
    daemon = subprocess.Popen(['dbus-daemon', f'--config-file={config}', '--nofork',
                               '--print-address=1'], stdout=subprocess.PIPE, text=True)
    try:
        yield daemon.stdout.readline().strip()
    finally:
        daemon.kill()
        daemon.wait()
        daemon.stdout.close()
        shutil.rmtree(directory)
