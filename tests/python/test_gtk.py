# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# A Gtk.FilterListModel on top of the monitor, as a GTK 4 process list would
# have it: its contents follow exits, reaps and unwatches. GTK's list models
# need no display. Without GTK 4's typelib (Debian: gir1.2-gtk-4.0) these
# tests skip, unless PROCWATCH_TEST_REQUIRE_GTK is set (CI sets it).

import os
import subprocess

import gi
import pytest

try:
    gi.require_version('Gtk', '4.0')
    from gi.repository import Gtk
except (ValueError, ImportError) as error:
    if os.environ.get('PROCWATCH_TEST_REQUIRE_GTK'):
        raise
    pytest.skip(f'GTK 4 for Python is not installed (Debian: gir1.2-gtk-4.0): {error}',
                allow_module_level=True)

gi.require_version('Procwatch', '1.0')
from gi.repository import Procwatch  # noqa: E402

from procwatch_testing import TIMEOUT_SECONDS, Child, NonChild, Shadow  # noqa: E402

State = Procwatch.ProcessState


class Shell:
    """A process named "sh": a shell that waits for a line. Made once it runs
    the shell (it said so), so its name is "sh"."""

    def __init__(self):
        self.popen = subprocess.Popen(['sh', '-c', 'echo ready; read line; exit 0'],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self.popen.stdout.readline() == b'ready\n'
        self.pid = self.popen.pid

    def exit(self, code=0):
        self.popen.stdin.close()

    def reap(self):
        return self.popen.wait(timeout=TIMEOUT_SECONDS)

    def close(self):
        if self.popen.returncode is None:
            self.popen.kill()
            self.popen.wait()
        self.popen.stdin.close()
        self.popen.stdout.close()


def by_name(name):
    """Processes of that name. (A GtkStringFilter on a property expression
    would do, but PyGObject 3.42 cannot pass a GtkExpression.) The name does
    not change: nothing to tell the filter."""
    return Gtk.CustomFilter.new(lambda process: process.props.name == name)


def running_filter(monitor):
    """Processes still running. A GtkCustomFilter knows nothing of the items'
    properties: it is told when a state changes, as an application would."""
    running = Gtk.CustomFilter.new(lambda process: process.props.state == State.RUNNING)

    def on_items_changed(model, position, removed, added):
        for i in range(position, position + added):
            model.get_item(i).connect(
                'notify::state', lambda *_: running.changed(Gtk.FilterChange.MORE_STRICT))

    on_items_changed(monitor, 0, 0, monitor.get_n_items())
    monitor.connect('items-changed', on_items_changed)
    return running


def test_filter_by_name_follows_reaps(monitor, recorder, processes):
    filtered = Gtk.FilterListModel.new(monitor, by_name('sh'))
    shadow = Shadow(filtered)
    helpers = [processes(Child), processes(NonChild)]
    shells = [processes(Shell), processes(Shell)]

    watched = [monitor.watch_pid(target.pid) for target in (helpers[0], shells[0], helpers[1],
                                                               shells[1])]
    assert [p.get_name() for p in watched] == ['procwatch-test-', 'sh'] * 2
    assert list(filtered) == shadow.items == [watched[1], watched[3]]

    # An exited process is still watched, and listed, until it is reaped.
    shells[0].exit()
    recorder.wait_for(shells[0].pid, 'exited')
    assert list(filtered) == [watched[1], watched[3]]
    assert shells[0].reap() == 0
    recorder.wait_for(shells[0].pid, 'reaped')
    assert list(filtered) == shadow.items == [watched[3]]

    # Processes the filter leaves out come and go unseen.
    helpers[0].exit(0)
    helpers[0].reap()
    recorder.wait_for(helpers[0].pid, 'reaped')
    shadow.take()
    helpers[1].exit(0)
    helpers[1].reap()
    recorder.wait_for(helpers[1].pid, 'reaped')
    assert shadow.take() == []
    assert list(monitor) == [watched[3]]

    assert monitor.unwatch_process(watched[3])
    assert list(filtered) == shadow.items == []


@pytest.mark.parametrize('kind', [Child, NonChild])
def test_filter_by_state_follows_exits(monitor, recorder, processes, kind):
    filtered = Gtk.FilterListModel.new(monitor, running_filter(monitor))
    shadow = Shadow(filtered)
    targets = [processes(kind) for _ in range(3)]
    watched = [monitor.watch_pid(target.pid) for target in targets]
    assert list(filtered) == shadow.items == watched

    # Out of the running ones at the exit; out of the monitor at the reap.
    targets[1].exit(0)
    recorder.wait_for(targets[1].pid, 'exited')
    assert list(filtered) == shadow.items == [watched[0], watched[2]]
    assert list(monitor) == watched
    targets[1].reap()
    recorder.wait_for(targets[1].pid, 'reaped')
    assert list(monitor) == [watched[0], watched[2]]
    assert list(filtered) == shadow.items == [watched[0], watched[2]]

    # Both filters at once: what a process list's search field does.
    both = Gtk.EveryFilter()
    both.append(running_filter(monitor))
    both.append(by_name('procwatch-test-'))
    both_filtered = Gtk.FilterListModel.new(monitor, both)
    assert list(both_filtered) == [watched[0], watched[2]]
    new = monitor.watch_pid(processes(kind).pid)
    assert list(both_filtered) == [watched[0], watched[2], new]

    targets[0].exit(0)
    recorder.wait_for(targets[0].pid, 'exited')
    assert list(both_filtered) == list(filtered) == shadow.items == [watched[2], new]

    monitor.close()
    assert list(filtered) == list(both_filtered) == shadow.items == []
