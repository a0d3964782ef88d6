# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# ProcessMonitor.get_features() and the features property: what this
# kernel can tell, as flags of Procwatch.Features.

import os
import re

from gi.repository import Procwatch

from procwatch_testing import Child, run_until

ALL = (Procwatch.Features.REAP_EVENT | Procwatch.Features.NON_CHILD_STATUS
       | Procwatch.Features.INODE | Procwatch.Features.THREADS
       | Procwatch.Features.CORE_DUMP | Procwatch.Features.FILE_HANDLES)


def kernel_at_least(major, minor):
    found = re.match(r'(\d+)\.(\d+)', os.uname().release).groups()
    return (int(found[0]), int(found[1])) >= (major, minor)


def test_features_flags(monitor):
    assert int(Procwatch.Features.NONE) == 0
    features = monitor.get_features()
    assert isinstance(features, Procwatch.Features)
    assert features == monitor.props.features
    assert features & ~ALL == 0


def test_features_on_this_kernel(monitor):
    features = monitor.get_features()
    if monitor.get_backend() != 'pidfd':
        assert features & ~Procwatch.Features.THREADS == 0
    elif kernel_at_least(6, 17) and 'no-pollhup' not in os.environ.get('PROCWATCH_DEBUG', ''):
        # Everything, on the kernels this was written on.
        assert features == ALL


def test_features_inode_holds(monitor, processes):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    if monitor.get_features() & Procwatch.Features.INODE:
        pidfd = os.pidfd_open(child.pid)
        try:
            assert process.get_inode() == os.fstat(pidfd).st_ino
        finally:
            os.close(pidfd)
    else:
        assert process.get_inode() == 0


def test_features_never_notified(monitor, recorder, processes):
    notified = []
    monitor.connect('notify::features', lambda *args: notified.append(args))
    before = monitor.get_features()
    child = processes(Child)
    monitor.watch_pid(child.pid)
    child.exit(0)
    recorder.wait_for(child.pid, 'exited')
    child.reap()
    run_until(lambda: recorder.find(child.pid, 'reaped') is not None, 'the reap')
    assert monitor.get_features() == before
    assert notified == []
