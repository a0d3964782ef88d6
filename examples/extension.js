// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// How a gnome-shell extension would watch the processes behind app windows,
// as a plain GJS script:
//
//   gjs -m extension.js
//
// In gnome-shell, AppProcessWatcher below would be created in the
// extension's enable() with `global.display` and destroyed in disable(),
// which closes its monitor.
// Here a stand-in display hands out windows of a few processes started for
// the purpose, then the script ends them and checks what was reported.
//
// The apps in a session are not children of gnome-shell: GLib.child_watch_add()
// cannot tell when they go; a Procwatch.ProcessMonitor can, and it also tells
// an app that quit from one killed by a signal.

import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';
import System from 'system';

Gio._promisify(Gio.Subprocess.prototype, 'wait_async', 'wait_finish');

// Watches the process of every window, and tells when one goes away.
export class AppProcessWatcher {
    constructor(display, onProcessGone) {
        this._display = display;
        this._onProcessGone = onProcessGone;
        this._titles = new Map();   // Procwatch.Process → window titles

        this._monitor = Procwatch.ProcessMonitor.new();
        this._monitorIds = [
            this._monitor.connect('exited', (_monitor, process) => this._exited(process)),
            this._monitor.connect('reaped', (_monitor, process) => this._reaped(process)),
        ];

        this._windowCreatedId = display.connect('window-created',
            (_display, window) => this._track(window));
        for (const window of display.list_all_windows())
            this._track(window);
    }

    _track(window) {
        // 0 or less when the window does not say (X11 without _NET_WM_PID).
        const pid = window.get_pid();
        if (pid <= 0)
            return;

        let process;
        try {
            process = this._monitor.watch_pid(pid);
        } catch (error) {
            // Gone already: its windows will go too.
            if (!error.matches(Gio.io_error_quark(), Gio.IOErrorEnum.NOT_FOUND))
                logError(error, `Cannot watch the process of "${window.get_title()}"`);
            return;
        }

        // Several windows of one app share the same Procwatch.Process.
        const titles = this._titles.get(process) ?? [];
        titles.push(window.get_title());
        this._titles.set(process, titles);
    }

    _exited(process) {
        // A zombie now; its windows may linger until the compositor notices.
        log(`${this._titles.get(process).join(', ')} (pid ${process.pid}) exited`);
    }

    _reaped(process) {
        const titles = this._titles.get(process);
        this._titles.delete(process);

        // The status of an app that is not our child is known once it has
        // been reaped (Linux 6.15 and newer).
        let how = 'quit';
        if (process.get_if_signaled())
            how = `was killed by signal ${process.get_term_sig()}`;
        else if (process.get_if_exited() && process.get_exit_status() !== 0)
            how = `failed with exit code ${process.get_exit_status()}`;

        this._onProcessGone(titles, how, process);
    }

    destroy() {
        this._display.disconnect(this._windowCreatedId);
        for (const id of this._monitorIds)
            this._monitor.disconnect(id);
        // Stops every watch and closes the monitor's file descriptors now:
        // dropping the reference would leave that to the garbage collector,
        // and pending waits would keep the monitor alive anyway.
        this._monitor.close();
        this._titles.clear();
        this._monitor = null;
    }
}

// Stand-ins for Meta.Display and Meta.Window, with only what is used above.
const FakeWindow = GObject.registerClass(class FakeWindow extends GObject.Object {
    constructor(title, pid) {
        super();
        this._title = title;
        this._pid = pid;
    }

    get_title() {
        return this._title;
    }

    get_pid() {
        return this._pid;
    }
});

const FakeDisplay = GObject.registerClass({
    Signals: {'window-created': {param_types: [GObject.Object]}},
}, class FakeDisplay extends GObject.Object {
    constructor() {
        super();
        this._windows = [];
    }

    list_all_windows() {
        return this._windows;
    }

    addWindow(title, pid) {
        const window = new FakeWindow(title, pid);
        this._windows.push(window);
        this.emit('window-created', window);
    }
});

// An "app": a process that runs until told how to end.
function startApp(title) {
    const subprocess = Gio.Subprocess.new(['sh', '-c', 'read how; eval "$how"'],
        Gio.SubprocessFlags.STDIN_PIPE);
    return {title, subprocess, pid: parseInt(subprocess.get_identifier())};
}

function endApp(app, how) {
    const stdin = app.subprocess.get_stdin_pipe();
    stdin.write_all(new TextEncoder().encode(`${how}\n`), null);
    stdin.close(null);
}

function timeout(ms, what) {
    return new Promise((resolve, reject) => {
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => {
            reject(new Error(`timed out waiting for ${what}`));
            return GLib.SOURCE_REMOVE;
        });
    });
}

async function main() {
    const display = new FakeDisplay();
    const editor = startApp('Text Editor');
    const terminal = startApp('Terminal');
    const viewer = startApp('Image Viewer');

    // One window before the watcher starts, the others after.
    display.addWindow(editor.title, editor.pid);

    const gone = [];
    let allGone;
    const allGonePromise = new Promise(resolve => (allGone = resolve));
    const watcher = new AppProcessWatcher(display, (titles, how) => {
        print(`${titles.join(', ')} ${how}`);
        gone.push(`${titles.join(', ')} ${how}`);
        if (gone.length === 3)
            allGone();
    });

    display.addWindow(terminal.title, terminal.pid);
    display.addWindow(`${terminal.title} (2)`, terminal.pid);
    display.addWindow(viewer.title, viewer.pid);
    display.addWindow('A window with no pid', 0);

    endApp(editor, 'exit 0');
    endApp(terminal, 'kill -KILL $$');
    endApp(viewer, 'exit 2');

    await Promise.race([allGonePromise, timeout(30000, 'the apps to go')]);
    watcher.destroy();
    for (const app of [editor, terminal, viewer])
        await app.subprocess.wait_async(null);

    const expected = [
        'Image Viewer failed with exit code 2',
        'Terminal, Terminal (2) was killed by signal 9',
        'Text Editor quit',
    ];
    if (JSON.stringify(gone.sort()) !== JSON.stringify(expected))
        throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(gone)}`);
}

try {
    await main();
} catch (error) {
    logError(error);
    System.exit(1);
}
