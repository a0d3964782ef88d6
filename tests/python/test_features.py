# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# ProcessMonitor.get_features() and the features property: what this
# kernel can tell, as flags of Procwatch.Features. Compared, as
# test-features does, with PROCWATCH_TEST_EXPECT_FEATURES (what the run's
# variant must show where the kernel has everything: tests/meson.build) and
# PROCWATCH_TEST_KERNEL_FEATURES (what the pidfds of the kernel .ci/kernel-lane
# boots give).

import os
import re

import pytest
from gi.repository import Procwatch

from procwatch_testing import (
    Child, expected_backend, on_pidfs, open_pidfd, pidfs_inode, run_until)

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


def parse_features(text):
    """Procwatch.Features from nicks separated by commas."""
    features = Procwatch.Features.NONE
    for nick in filter(None, text.split(',')):
        features |= getattr(Procwatch.Features, nick.replace('-', '_').upper())
    return features


# What the /proc backends deliver is theirs, not the kernel's pidfds': a
# thread held by its own /proc/<pid>/task/<tid> directory, and with procfs
# the reap as an event (POLLERR).
PROC_BACKEND_FEATURES = {
    'procfs': Procwatch.Features.REAP_EVENT | Procwatch.Features.THREADS,
    'poll': Procwatch.Features.THREADS,
}


def test_features_on_this_kernel(monitor):
    features = monitor.get_features()
    backend = monitor.get_backend()

    # Unset (an installed run): the plain run's, everything.
    expected_text = os.environ.get('PROCWATCH_TEST_EXPECT_FEATURES')
    if expected_text is None:
        expected = PROC_BACKEND_FEATURES.get(backend, ALL)
    else:
        expected = parse_features(expected_text)
    # Where a variant's /proc fallback is procfs (a kernel with pollable /proc
    # directories: tests/meson.build's expectations are poll's), the reap
    # is an event too, as test-features expects.
    if os.environ.get('PROCWATCH_TEST_EXPECT_BACKEND') == 'poll' and \
            expected_backend() == 'procfs':
        expected |= Procwatch.Features.REAP_EVENT
    if backend != 'pidfd':
        assert features == expected
        assert features == PROC_BACKEND_FEATURES.get(backend)
        return

    kernel_text = os.environ.get('PROCWATCH_TEST_KERNEL_FEATURES')
    if kernel_text is not None:
        expected &= parse_features(kernel_text)
    elif not kernel_at_least(6, 17):
        pytest.skip('PROCWATCH_TEST_KERNEL_FEATURES is not set: the expected features are '
                    'those of Linux 6.17 and newer (.ci/kernel-lane sets it for older ones)')
    assert features == expected


def test_features_inode_is_the_kernels(monitor):
    """INODE where the pidfds are on pidfs (unless PROCWATCH_DEBUG=no-pidfs
    hides it), and their hang-up at the reap with it; never with the /proc
    backends, which the kernel gives where this process may not open
    pidfds."""
    pidfd_backend = monitor.get_backend() == 'pidfd'
    pidfd = open_pidfd(os.getpid())
    if pidfd is None:
        assert not pidfd_backend
        assert not monitor.get_features() & Procwatch.Features.INODE
        assert bool(monitor.get_features() & Procwatch.Features.REAP_EVENT) == \
            (monitor.get_backend() == 'procfs')
        return
    try:
        kernel_has_pidfs = on_pidfs(pidfd)
    finally:
        os.close(pidfd)
    hidden = 'no-pidfs' in os.environ.get('PROCWATCH_DEBUG', '')
    assert bool(monitor.get_features() & Procwatch.Features.INODE) == \
        (pidfd_backend and kernel_has_pidfs and not hidden)
    assert (pidfs_inode(os.getpid()) != 0) == kernel_has_pidfs
    if pidfd_backend and monitor.get_features() & Procwatch.Features.REAP_EVENT:
        assert kernel_has_pidfs


def test_features_inode_holds(monitor, processes):
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    if monitor.get_features() & Procwatch.Features.INODE:
        assert process.get_inode() == pidfs_inode(child.pid) != 0
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
