#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# gtk-watcher: a live view of the processes a Procwatch.ProcessMonitor
# watches, in GTK 4 and libadwaita.
#
#   gtk-watcher.py [NAME | PID...]
#
# The monitor is a Gio.ListModel of Procwatch.Process objects, so a
# Gtk.ColumnView shows it as it is: a row appears when a process is watched,
# its cells follow the process's properties (notify::state and the status
# ones) as it exits, and the row leaves when the process is reaped, since the
# monitor stops watching it then. Terminate sends SIGTERM through the
# process's own handle, so it cannot reach a process that got the pid since.

import os
import signal
import sys

import gi

gi.require_version('Adw', '1')
gi.require_version('Gtk', '4.0')
gi.require_version('Procwatch', '1.0')
from gi.repository import Adw, Gio, GLib, Gtk, Procwatch  # noqa: E402

APPLICATION_ID = 'org.gioprocwatch.Watcher'

STATE_LABELS = {
    Procwatch.ProcessState.RUNNING: 'Running',
    Procwatch.ProcessState.EXITED: 'Exited',
    Procwatch.ProcessState.REAPED: 'Reaped',
}


def status_text(process):
    if not process.props.status_known:
        # A child's status is known when it exits; another process's only
        # once reaped (Linux 6.15+), when its row leaves.
        return '' if process.props.state == Procwatch.ProcessState.RUNNING else '—'
    if process.props.term_sig:
        try:
            name = signal.Signals(process.props.term_sig).name
        except ValueError:
            name = f'signal {process.props.term_sig}'
        return f'Killed by {name}'
    return f'Exit code {process.props.exit_status}'


# (title, properties the text depends on, text, expands, numeric)
COLUMNS = [
    ('PID', ['pid'], lambda p: str(p.props.pid), False, True),
    ('Name', ['name'], lambda p: p.props.name or '—', True, False),
    # The pidfs inode: the process's identity, unknown (0) on old kernels.
    ('Inode', ['inode'], lambda p: str(p.props.inode) if p.props.inode else '—', False, True),
    ('State', ['state'], lambda p: STATE_LABELS[p.props.state], False, False),
    ('Status', ['status-known', 'exit-status', 'term-sig', 'state'], status_text, False, False),
]


class ProcessCell(Gtk.Label):
    """One cell: its text follows the bound process's properties."""

    def __init__(self, column, numeric):
        super().__init__(xalign=1.0 if numeric else 0.0, margin_start=6, margin_end=6)
        if numeric:
            self.add_css_class('numeric')
        self.column = column
        self.process = None
        self._handlers = []

    def bind(self, process):
        _title, properties, _text, _expand, _numeric = self.column
        self.process = process
        self._handlers = [process.connect(f'notify::{name}', self._update)
                          for name in properties]
        self._update()

    def unbind(self):
        for handler in self._handlers:
            self.process.disconnect(handler)
        self._handlers = []
        self.process = None

    def _update(self, *args):
        self.set_label(self.column[2](self.process))


def make_column(column):
    title, _properties, _text, expand, numeric = column
    factory = Gtk.SignalListItemFactory()
    factory.connect('setup', lambda f, item: item.set_child(ProcessCell(column, numeric)))
    factory.connect('bind', lambda f, item: item.get_child().bind(item.get_item()))
    factory.connect('unbind', lambda f, item: item.get_child().unbind())
    return Gtk.ColumnViewColumn(title=title, factory=factory, expand=expand)


def watch_name(monitor, name):
    """Watches every process whose /proc/PID/comm is name; returns them."""
    watched = []
    for entry in os.scandir('/proc'):
        if not entry.name.isdigit():
            continue
        try:
            with open(f'/proc/{entry.name}/comm') as file:
                comm = file.read().rstrip('\n')
        except OSError:
            continue  # gone meanwhile
        if comm != name:
            continue
        pid = int(entry.name)
        before = monitor.lookup(pid)
        try:
            process = monitor.watch_pid(pid)
        except GLib.Error as error:
            if error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND):
                continue  # exited and reaped meanwhile
            raise
        # The pid may have been reused between reading comm and watching;
        # the monitor's name was read through its handle on the process.
        if process.props.name != name and process is not before:
            monitor.unwatch_process(process)
            continue
        watched.append(process)
    return watched


class WatcherWindow(Adw.ApplicationWindow):
    def __init__(self, application):
        super().__init__(application=application, title='Process Watcher',
                         default_width=720, default_height=400)
        self.monitor = Procwatch.ProcessMonitor.new()
        self.last_toast = None
        self._selected = None
        self._selected_handler = 0

        self.terminate_action = Gio.SimpleAction.new('terminate', None)
        self.terminate_action.connect('activate', self.on_terminate)
        self.add_action(self.terminate_action)

        self.title = Adw.WindowTitle(title='Process Watcher')
        header = Adw.HeaderBar(title_widget=self.title)
        self.terminate_button = Gtk.Button(label='Terminate', action_name='win.terminate',
                                           tooltip_text='Send SIGTERM to the selected process')
        self.terminate_button.add_css_class('destructive-action')
        header.pack_end(self.terminate_button)

        self.entry = Gtk.Entry(placeholder_text='Process name or PID', hexpand=True)
        self.entry.connect('activate', self.on_watch)
        self.watch_button = Gtk.Button(label='Watch')
        self.watch_button.add_css_class('suggested-action')
        self.watch_button.connect('clicked', self.on_watch)
        entry_box = Gtk.Box(spacing=6, margin_top=12, margin_bottom=12,
                            margin_start=12, margin_end=12)
        entry_box.append(self.entry)
        entry_box.append(self.watch_button)

        self.selection = Gtk.SingleSelection(model=self.monitor, autoselect=False,
                                             can_unselect=True)
        self.selection.connect('notify::selected-item', self.on_selection_changed)
        self.column_view = Gtk.ColumnView(model=self.selection, show_row_separators=True,
                                          vexpand=True)
        self.column_view.add_css_class('data-table')
        for column in COLUMNS:
            self.column_view.append_column(make_column(column))
        scrolled = Gtk.ScrolledWindow(child=self.column_view, vexpand=True)

        empty = Adw.StatusPage(icon_name='system-run-symbolic', title='No Watched Processes',
                               description='Watch processes by their name or PID',
                               vexpand=True)
        self.stack = Gtk.Stack()
        self.stack.add_named(empty, 'empty')
        self.stack.add_named(scrolled, 'processes')

        body = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        body.append(entry_box)
        body.append(Gtk.Separator())
        body.append(self.stack)
        self.toasts = Adw.ToastOverlay(child=body, vexpand=True)

        content = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        content.append(header)
        content.append(self.toasts)
        self.set_content(content)

        self.monitor.connect('items-changed', self.on_items_changed)
        self.on_items_changed(self.monitor, 0, 0, 0)
        self.on_selection_changed()

    def show_error(self, message):
        # The newest error replaces the one shown, rather than queueing.
        if self.last_toast is not None:
            self.last_toast.dismiss()
        self.last_toast = Adw.Toast(title=GLib.markup_escape_text(message))
        self.toasts.add_toast(self.last_toast)

    def watch(self, text):
        """Watches the process with pid text, or every process named text."""
        if text.isdigit():
            try:
                self.monitor.watch_pid(int(text))
            except GLib.Error as error:
                self.show_error(error.message)
                return False
        else:
            try:
                watched = watch_name(self.monitor, text)
            except GLib.Error as error:
                self.show_error(error.message)
                return False
            if not watched:
                self.show_error(f'No process is named “{text}”')
                return False
        return True

    def on_watch(self, *args):
        text = self.entry.get_text().strip()
        if text and self.watch(text):
            self.entry.set_text('')

    def on_terminate(self, action, parameter):
        process = self.selection.get_selected_item()
        if process is None:
            return
        try:
            process.send_signal(signal.SIGTERM)
        except GLib.Error as error:
            self.show_error(error.message)

    def on_items_changed(self, model, position, removed, added):
        count = model.get_n_items()
        self.title.set_subtitle(f'{count} process' if count == 1 else f'{count} processes')
        self.stack.set_visible_child_name('processes' if count else 'empty')

    def on_selection_changed(self, *args):
        # Terminate follows the selected process's state, not only the
        # selection: an exited process takes no more signals.
        if self._selected is not None:
            self._selected.disconnect(self._selected_handler)
        self._selected = self.selection.get_selected_item()
        if self._selected is not None:
            self._selected_handler = self._selected.connect('notify::state',
                                                            self.update_terminate)
        self.update_terminate()

    def update_terminate(self, *args):
        self.terminate_action.set_enabled(
            self._selected is not None
            and self._selected.props.state == Procwatch.ProcessState.RUNNING)


class WatcherApplication(Adw.Application):
    def __init__(self, targets=()):
        super().__init__(application_id=APPLICATION_ID,
                         flags=Gio.ApplicationFlags.NON_UNIQUE)
        self.targets = list(targets)
        self.window = None

    def do_activate(self):
        if self.window is None:
            self.window = WatcherWindow(self)
            for target in self.targets:
                self.window.watch(target)
        self.window.present()


def main(argv):
    if any(arg.startswith('-') for arg in argv[1:]):
        print(f'Usage: {os.path.basename(argv[0])} [NAME | PID...]', file=sys.stderr)
        return 2
    return WatcherApplication(argv[1:]).run(argv[:1])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
