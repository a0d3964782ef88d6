# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# The monitor as a Gio.ListModel from Python: its items, and every
# items-changed applied to a shadow list, through random watches, unwatches,
# exits and reaps of real processes.

import collections
import os
import random

import gi
import pytest

gi.require_version('Procwatch', '1.0')
from gi.repository import Gio, GObject, Procwatch  # noqa: E402

from procwatch_testing import (  # noqa: E402
    Child, Shadow, Wait, has_feature, pidfd_open_or_skip, pidfd_refused_errno, pidfs_inode)

State = Procwatch.ProcessState


def test_items(monitor, processes):
    assert monitor.get_item_type() == Procwatch.Process.__gtype__
    assert isinstance(monitor, Gio.ListModel)
    assert monitor.get_n_items() == 0
    assert monitor.get_item(0) is None

    children = [processes(Child) for _ in range(3)]
    watched = [monitor.watch_pid(child.pid) for child in children]
    assert monitor.get_n_items() == 3
    assert [monitor.get_item(i) for i in range(3)] == watched
    assert monitor.get_item(3) is None
    # PyGObject's Gio.ListModel override (3.42 and newer).
    assert len(monitor) == 3
    assert list(monitor) == watched
    assert monitor[1] is watched[1]
    assert monitor[-1] is watched[2]


def test_removed_before_reaped(monitor, recorder, processes):
    shadow = Shadow(monitor)
    children = [processes(Child) for _ in range(3)]
    watched = [monitor.watch_pid(child.pid) for child in children]
    seen = []

    def on_reaped(monitor, process):
        # No longer watched: out of the list, and reaped, already.
        seen.append((list(monitor), process.props.state))

    monitor.connect('reaped', on_reaped)
    children[1].exit(0)
    recorder.wait_for(children[1].pid, 'exited')
    assert list(monitor) == watched, 'an exited process stays until it is reaped'
    shadow.take()

    children[1].reap()
    recorder.wait_for(children[1].pid, 'reaped')
    assert shadow.take() == [(1, 1, 0)]
    assert seen == [([watched[0], watched[2]], State.REAPED)]
    assert shadow.items == list(monitor) == [watched[0], watched[2]]


def test_close_removes_all_at_once(monitor, processes):
    shadow = Shadow(monitor)
    for _ in range(3):
        monitor.watch_pid(processes(Child).pid)
    assert shadow.take() == [(0, 0, 1), (1, 0, 1), (2, 0, 1)]
    monitor.close()
    assert shadow.take() == [(0, 3, 0)]
    assert len(monitor) == 0
    monitor.close()
    assert shadow.take() == []


def test_nothing_on_dispose(processes):
    monitor = Procwatch.ProcessMonitor.new()
    shadow = Shadow(monitor)
    monitor.watch_pid(processes(Child).pid)
    shadow.take()
    monitor.run_dispose()
    assert shadow.take() == []


class Model:
    """What the list should hold, from the operations alone."""

    def __init__(self, rng, monitor, processes):
        self.rng = rng
        self.monitor = monitor
        self.processes = processes
        self.expected = []              # watched processes, in order
        self.children = {}              # process → its Child, still running
        self.spare = []                 # running Children not watched
        # Every way to watch; through a pidfd of the test's own only where
        # this process may open one (the list's changes are the same
        # whatever the backend).
        self.ways = ['watch_pid', 'watch_pidfd', 'watch_pid_inode', 'wait_async']
        if pidfd_refused_errno():
            self.ways.remove('watch_pidfd')

    def new_child(self):
        if self.spare and self.rng.random() < 0.5:
            return self.spare.pop(self.rng.randrange(len(self.spare)))
        return self.processes(Child)

    def watched_running(self):
        return [p for p in self.expected if p in self.children]

    # Each operation returns the items-changed it must have emitted inside
    # the call, or None when it ends in the main loop (exits).

    def watch(self):
        child = self.new_child()
        how = self.rng.choice(self.ways)
        if how == 'watch_pid':
            process = self.monitor.watch_pid(child.pid)
        elif how == 'watch_pidfd':
            pidfd = os.pidfd_open(child.pid)
            process = self.monitor.watch_pidfd(pidfd)
            os.close(pidfd)
        elif how == 'watch_pid_inode':
            # Without pidfs inodes (Linux 6.9+) by pid: test_handle.py has
            # the error.
            if has_feature(self.monitor, Procwatch.Features.INODE):
                process = self.monitor.watch_pid_inode(child.pid, pidfs_inode(child.pid))
            else:
                process = self.monitor.watch_pid(child.pid)
        else:
            Wait(self.monitor, child.pid)
            process = self.monitor.lookup(child.pid)
        self.expected.append(process)
        self.children[process] = child
        return [(len(self.expected) - 1, 0, 1)]

    def watch_again(self):
        running = self.watched_running()
        if not running:
            return self.watch()
        process = self.rng.choice(running)
        assert self.monitor.watch_pid(self.children[process].pid) is process
        return []

    def unwatch(self):
        running = self.watched_running()
        if not running:
            return self.watch()
        process = self.rng.choice(running)
        position = self.expected.index(process)
        if self.rng.random() < 0.5:
            assert self.monitor.unwatch_process(process)
        else:
            assert self.monitor.unwatch(process.get_pid())
        self.expected.remove(process)
        self.spare.append(self.children.pop(process))
        return [(position, 1, 0)]

    def exit_some(self, recorder):
        """Some watched processes (and perhaps an unwatched one) exit and are
        reaped at once: each leaves from wherever it is by then."""
        running = self.watched_running()
        if not running:
            return self.watch()
        ending = self.rng.sample(running, self.rng.randint(1, min(4, len(running))))
        ending_children = [self.children.pop(process) for process in ending]
        others = [self.spare.pop()] if self.spare and self.rng.random() < 0.3 else []
        for child in ending_children + others:
            child.exit(self.rng.randrange(256))
        for process in ending:
            recorder.wait_for(process.get_pid(), 'exited')
        # Reaped in random order: the positions of the others shift.
        self.rng.shuffle(ending_children)
        for child in ending_children + others:
            child.reap()
        for process in ending:
            recorder.wait_for(process.get_pid(), 'reaped')
            self.expected.remove(process)
        return None


@pytest.mark.parametrize('seed', [int(os.environ.get('PROCWATCH_RANDOM_SEED', '1')), 2])
def test_items_changed_against_a_shadow(monitor, recorder, processes, seed):
    """500 random operations per seed, 1,000 in all: each items-changed, applied
    to a shadow list, keeps it equal to what the operations make of it."""
    rng = random.Random(seed)
    shadow = Shadow(monitor)
    model = Model(rng, monitor, processes)
    operations = 500
    done = collections.Counter()

    for step in range(operations):
        if len(model.expected) < 3:
            name = 'watch'
        else:
            name = rng.choices(['watch', 'watch_again', 'unwatch', 'exit_some'],
                               weights=[4, 1, 2, 2] if len(model.children) < 16 else [0, 1, 2, 3])[0]
        before = len(model.expected)
        if name == 'exit_some':
            changes = model.exit_some(recorder)
        else:
            changes = getattr(model, name)()
        observed = shadow.take()
        done[name] += 1
        done['removed'] += sum(removed for _, removed, _ in observed)
        if changes is not None:
            assert observed == changes, f'step {step} ({name}), seed {seed}'
        else:
            # One removal each, none added.
            assert all(removed == 1 and added == 0 for _, removed, added in observed)
            assert len(observed) == before - len(model.expected)
        assert shadow.items == model.expected, f'step {step} ({name}), seed {seed}'
        assert list(monitor) == model.expected

    # Each kind of change happened, many times.
    assert min(done.values()) >= 20, done
    n = len(model.expected)
    monitor.close()
    assert shadow.take() == ([(0, n, 0)] if n else [])
    assert shadow.items == []


def test_items_changed_nothing_for_a_watched_process(monitor, processes):
    shadow = Shadow(monitor)
    child = processes(Child)
    process = monitor.watch_pid(child.pid)
    shadow.take()
    assert monitor.watch_pid(child.pid) is process
    assert shadow.take() == []
    assert GObject.type_is_a(monitor.get_item_type(), GObject.Object)
    pidfd = pidfd_open_or_skip(child.pid, 'to watch the process by again')
    assert monitor.watch_pidfd(pidfd) is process
    os.close(pidfd)
    assert shadow.take() == []
