# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
#
# examples/gtk-watcher.py on real processes, under Xvfb: the test imports the
# app, drives its own widgets (the entry, Watch, Terminate) and reads the
# rows back from the cells its column view shows; then saves a screenshot.
#
# Environment: PROCWATCH_GTK_WATCHER (the example), PROCWATCH_GTK_SCREENSHOT
# (where the PNG goes), and the bindings' GI_TYPELIB_PATH and LD_LIBRARY_PATH.

import ctypes
import importlib.util
import os
import shutil
import signal
import subprocess

import gi
import pytest

from procwatch_testing import run_until

PR_SET_PDEATHSIG = 1


def require(reason_missing):
    """Skips the test, but fails it in CI, where everything is installed."""
    if os.environ.get('CI'):
        pytest.fail(f'{reason_missing} (CI is set: the packages belong in the install lists)')
    pytest.skip(reason_missing)


def die_with_parent():
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


@pytest.fixture(scope='module')
def app_module():
    for namespace, version, package in [('Gtk', '4.0', 'gir1.2-gtk-4.0'),
                                        ('Adw', '1', 'gir1.2-adw-1')]:
        try:
            gi.require_version(namespace, version)
        except ValueError:
            require(f'no introspection data for {namespace} {version} (Debian: {package})')
    xvfb_path = shutil.which('Xvfb')
    if xvfb_path is None:
        require('no Xvfb to run GTK in (Debian: xvfb)')

    # -displayfd: Xvfb picks a free display and writes its number once it
    # accepts connections. It dies with this process, however that ends.
    read_end, write_end = os.pipe()
    xvfb = subprocess.Popen([xvfb_path, '-displayfd', str(write_end), '-nolisten', 'tcp',
                             '-screen', '0', '1024x768x24'],
                            pass_fds=[write_end], preexec_fn=die_with_parent,
                            stdout=subprocess.DEVNULL)
    os.close(write_end)
    with os.fdopen(read_end) as displayfd:
        display = displayfd.readline().strip()
    assert display, 'Xvfb did not start'

    os.environ['DISPLAY'] = ':' + display
    # GTK reads these when it starts: no accessibility bus and no settings
    # portal to find (there is no session bus), and the cairo renderer,
    # which needs no GL and draws the same everywhere.
    os.environ['GTK_A11Y'] = 'none'
    os.environ['ADW_DISABLE_PORTAL'] = '1'
    os.environ['GSK_RENDERER'] = 'cairo'

    spec = importlib.util.spec_from_file_location('gtk_watcher',
                                                  os.environ['PROCWATCH_GTK_WATCHER'])
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    yield module

    xvfb.terminate()
    xvfb.wait()


@pytest.fixture
def window(app_module):
    from gi.repository import Gtk

    app = app_module.WatcherApplication()
    app.register(None)
    app.activate()
    window = app.window
    # Toasts come and go at once, and the screenshot shows no transition.
    Gtk.Settings.get_default().props.gtk_enable_animations = False
    run_until(lambda: window.get_mapped() and window.get_width() > 0, 'the window to show')
    yield window
    window.destroy()
    window.monitor.close()
    app.quit()


class Worker:
    """A real process named name (its comm), ended by the test or by a signal."""

    def __init__(self, directory, name):
        path = os.path.join(directory, name)
        if not os.path.exists(path):
            # The kernel names a process after the file it executes.
            os.symlink('/bin/sh', path)
        self.name = name
        self.popen = subprocess.Popen([path, '-c', 'read code; exit "$code"'],
                                      stdin=subprocess.PIPE, text=True)
        self.pid = self.popen.pid

    def exit(self, code):
        self.popen.stdin.write(f'{code}\n')
        self.popen.stdin.close()

    def wait_until_exited(self):
        """Blocks until the kernel has it as a zombie; leaves it unreaped."""
        os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)

    def reap(self):
        return self.popen.wait()

    def close(self):
        if self.popen.returncode is None:
            self.popen.kill()
            self.popen.wait()
        if not self.popen.stdin.closed:
            self.popen.stdin.close()


def shown_rows(module, window):
    """The rows as the column view shows them, in the model's order: one dict
    of column title to cell text per process. Fails if a cell shows a process
    that is not in the model."""
    cells = {}
    widgets = [window.column_view]
    while widgets:
        widget = widgets.pop()
        if isinstance(widget, module.ProcessCell) and widget.process is not None:
            cells[(widget.process, widget.column[0])] = widget.get_label()
        child = widget.get_first_child()
        while child is not None:
            widgets.append(child)
            child = child.get_next_sibling()

    processes = list(window.monitor)
    stray = {process.props.pid for process, _title in cells if process not in processes}
    assert not stray, f'cells still show processes {stray}, which the model no longer has'
    titles = [column[0] for column in module.COLUMNS]
    return [{title: cells.get((process, title)) for title in titles} for process in processes]


def row_of(module, window, pid):
    rows = [row for row in shown_rows(module, window) if row['PID'] == str(pid)]
    return rows[0] if rows else None


def wait_for_row(module, window, pid, **expected):
    """Iterates the main loop until the row of pid shows expected cells."""
    def matches():
        row = row_of(module, window, pid)
        return row is not None and all(row[title] == text for title, text in expected.items())
    run_until(matches, f'the row of {pid} to show {expected}')


def select(window, pid):
    for position, process in enumerate(window.monitor):
        if process.props.pid == pid:
            window.selection.set_selected(position)
            return
    raise AssertionError(f'{pid} has no row')


def toast_title(window):
    return window.last_toast.props.title if window.last_toast is not None else None


def save_screenshot(widget, path):
    """Renders widget as it is now, through its own renderer, into a PNG."""
    from gi.repository import Gtk

    # A painted frame after the last change: the rows are laid out.
    clock = widget.get_frame_clock()
    painted = []
    handler = clock.connect('after-paint', lambda clock: painted.append(True))
    widget.queue_draw()
    run_until(lambda: painted, 'a frame to be painted')
    clock.disconnect(handler)

    snapshot = Gtk.Snapshot()
    Gtk.WidgetPaintable.new(widget).snapshot(snapshot, widget.get_width(), widget.get_height())
    renderer = widget.get_native().get_renderer()
    if gi.version_info >= (3, 46):
        texture = renderer.render_texture(snapshot.to_node(), None)
        assert texture.save_to_png(path)
    else:
        render_with_ctypes(snapshot, renderer, path)


def render_with_ctypes(snapshot, renderer, path):
    """The same calls in C: PyGObject before 3.46 cannot pass a GskRenderNode
    (a fundamental type, not a GObject)."""
    capsule_pointer = ctypes.pythonapi.PyCapsule_GetPointer
    capsule_pointer.restype = ctypes.c_void_p
    capsule_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    gtk = ctypes.CDLL('libgtk-4.so.1')
    gtk.gtk_snapshot_to_node.restype = ctypes.c_void_p
    gtk.gtk_snapshot_to_node.argtypes = [ctypes.c_void_p]
    gtk.gsk_renderer_render_texture.restype = ctypes.c_void_p
    gtk.gsk_renderer_render_texture.argtypes = [ctypes.c_void_p] * 3
    gtk.gdk_texture_save_to_png.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
    gtk.gsk_render_node_unref.argtypes = [ctypes.c_void_p]
    gtk.g_object_unref.argtypes = [ctypes.c_void_p]

    node = gtk.gtk_snapshot_to_node(capsule_pointer(snapshot.__gpointer__, None))
    assert node, 'the window drew nothing'
    texture = gtk.gsk_renderer_render_texture(capsule_pointer(renderer.__gpointer__, None),
                                              node, None)
    saved = gtk.gdk_texture_save_to_png(texture, os.fsencode(path))
    gtk.g_object_unref(texture)
    gtk.gsk_render_node_unref(node)
    assert saved, f'could not write {path}'


def test_watch_terminate_exit_reap(app_module, window, tmp_path):
    module = app_module
    renderers = [Worker(tmp_path, 'render-worker') for _ in range(3)]
    indexer = Worker(tmp_path, 'indexer')
    sync = Worker(tmp_path, 'sync-daemon')
    workers = renderers + [indexer, sync]
    try:
        assert window.stack.get_visible_child_name() == 'empty'

        # By name: every process whose comm matches, in one go.
        window.entry.set_text('render-worker')
        window.entry.emit('activate')
        assert window.entry.get_text() == '', toast_title(window)
        # By pid, through the button.
        for worker in (indexer, sync):
            window.entry.set_text(str(worker.pid))
            window.watch_button.emit('clicked')
        assert [p.props.pid for p in window.monitor] == [w.pid for w in workers]
        assert window.title.get_subtitle() == '5 processes'
        for worker in workers:
            # 0 where the kernel has no pidfs (before 6.9).
            inode = window.monitor.lookup(worker.pid).props.inode
            wait_for_row(module, window, worker.pid, Name=worker.name, State='Running',
                         Status='', Inode=str(inode) if inode else '—')

        # A name nothing has: said in a toast, the text stays to be corrected.
        window.entry.set_text('no-such-process')
        window.entry.emit('activate')
        assert toast_title(window) == 'No process is named “no-such-process”'
        assert window.entry.get_text() == 'no-such-process'

        # Terminate is for a selected, running process.
        assert not window.terminate_button.get_sensitive()
        for worker in (renderers[0], indexer):
            select(window, worker.pid)
            assert window.terminate_button.get_sensitive()
            window.terminate_button.emit('clicked')
            wait_for_row(module, window, worker.pid, State='Exited', Status='Killed by SIGTERM')
            assert not window.terminate_button.get_sensitive()

        # One ends by itself. Its exit happens before the app's main loop
        # has seen it: Terminate is still offered, and the library refuses
        # to signal a process that has exited (its pidfd says so), in a toast.
        sync.exit(3)
        sync.wait_until_exited()
        select(window, sync.pid)
        assert window.terminate_button.get_sensitive()
        window.terminate_button.emit('clicked')
        if window.monitor.props.backend == 'pidfd':
            assert toast_title(window) == f'Cannot signal process {sync.pid}: it has exited'
        wait_for_row(module, window, sync.pid, State='Exited', Status='Exit code 3')
        assert not window.terminate_button.get_sensitive()

        # The picture: two running, three exited, a running one selected.
        window.last_toast.dismiss()
        window.entry.set_text('')
        select(window, renderers[1].pid)
        window.column_view.grab_focus()
        assert [row['State'] for row in shown_rows(module, window)] == \
            ['Exited', 'Running', 'Running', 'Exited', 'Exited']
        save_screenshot(window, os.environ['PROCWATCH_GTK_SCREENSHOT'])

        # Reaped: the rows leave, the others stay as they were.
        assert renderers[0].reap() == -signal.SIGTERM
        assert indexer.reap() == -signal.SIGTERM
        assert sync.reap() == 3
        run_until(lambda: len(shown_rows(module, window)) == 2, 'the reaped rows to leave')
        assert [row['PID'] for row in shown_rows(module, window)] == \
            [str(renderers[1].pid), str(renderers[2].pid)]
        assert window.title.get_subtitle() == '2 processes'

        for worker in renderers[1:]:
            worker.exit(0)
            worker.reap()
        run_until(lambda: window.monitor.get_n_items() == 0, 'every row to leave')
        assert shown_rows(module, window) == []
        assert window.stack.get_visible_child_name() == 'empty'
        assert not window.terminate_button.get_sensitive()
    finally:
        for worker in workers:
            worker.close()
