// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The test extension's work, for both of its variants: it watches the pids
// that check.py wrote to $XDG_RUNTIME_DIR/procwatch-shell-check/pids (one
// "NAME PID" a line) and logs what becomes of each, for check.py to read in
// the shell's log:
//
//   procwatch-test: watching 4 processes
//   procwatch-test: NAME exited              (the monitor's "exited" signal)
//   procwatch-test: NAME wait completed      (process.wait_async)
//   procwatch-test: NAME reaped: exit 3 | signal 9 | no status
//   procwatch-test: NAME still running at disable
//   procwatch-test: closed

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

Gio._promisify(Procwatch.Process.prototype, 'wait_async', 'wait_finish');
Gio._promisify(Gio.File.prototype, 'load_contents_async', 'load_contents_finish');

function say(message) {
    console.log(`procwatch-test: ${message}`);
}

function statusOf(process) {
    // process.has_status is a property where Procwatch.Process has one
    // named has-status (see examples/shell-extension/app-exit-notifier.js).
    const known = typeof process.has_status === 'function'
        ? process.has_status() : process.has_status;
    if (!known)
        return 'no status';
    if (process.get_if_signaled())
        return `signal ${process.get_term_sig()}`;
    return `exit ${process.get_exit_status()}`;
}

export class PidWatcher {
    constructor() {
        this._names = new Map();   // Procwatch.Process → its name in the pid file
        this._cancellable = new Gio.Cancellable();
        this._monitor = Procwatch.ProcessMonitor.new();
        this._monitorIds = [
            this._monitor.connect('exited',
                (_monitor, process) => say(`${this._names.get(process)} exited`)),
            this._monitor.connect('reaped',
                (_monitor, process) => say(`${this._names.get(process)} reaped: ${statusOf(process)}`)),
        ];
        this._start().catch(error => say(`failed: ${error.message}`));
    }

    async _start() {
        const file = Gio.File.new_for_path(GLib.build_filenamev(
            [GLib.get_user_runtime_dir(), 'procwatch-shell-check', 'pids']));
        const [contents] = await file.load_contents_async(this._cancellable);
        if (this._monitor === null)
            return;
        for (const line of new TextDecoder().decode(contents).split('\n')) {
            const [name, pid] = line.trim().split(/\s+/);
            if (!pid)
                continue;
            const process = this._monitor.watch_pid(parseInt(pid));
            this._names.set(process, name);
            this._follow(process, name);
        }
        say(`watching ${this._names.size} processes`);
    }

    async _follow(process, name) {
        try {
            await process.wait_async(this._cancellable);
            say(`${name} wait completed`);
        } catch (error) {
            if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                say(`${name}: ${error.message}`);
        }
    }

    destroy() {
        for (const [process, name] of this._names) {
            if (process.get_state() === Procwatch.ProcessState.RUNNING)
                say(`${name} still running at disable`);
        }
        for (const id of this._monitorIds)
            this._monitor.disconnect(id);
        this._monitor.close();
        this._monitor = null;
        this._cancellable.cancel();
        this._names.clear();
        say('closed');
    }
}
