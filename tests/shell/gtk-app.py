#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""An app with one GTK 4 window titled by its argument, for check.py.

Prints "mapped" once the compositor shows the window (gnome-shell has seen
it by then) and quits with N when it reads "exit N" on stdin.
"""

import sys

import gi

gi.require_version('Gdk', '4.0')
gi.require_version('Gtk', '4.0')
from gi.repository import GLib, Gtk  # noqa: E402

status = 0
loop = GLib.MainLoop()


def on_mapped(surface, _pspec):
    if surface.get_mapped():
        print('mapped', flush=True)


def on_realize(window):
    window.get_surface().connect('notify::mapped', on_mapped)


def on_stdin(_fd, _condition):
    global status
    words = sys.stdin.readline().split()
    if words[:1] == ['exit']:
        status = int(words[1])
    loop.quit()
    return GLib.SOURCE_REMOVE


Gtk.init()
window = Gtk.Window(title=sys.argv[1])
window.connect('realize', on_realize)
window.present()
GLib.io_add_watch(sys.stdin.fileno(), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_stdin)
loop.run()
sys.exit(status)
