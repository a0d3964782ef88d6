// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// What the extension does, shared by both of its variants: it watches the
// process behind every app window and tells the user, with a notification,
// when that process has gone and how: it quit (with which exit code) or was
// killed or crashed (by which signal).
//
// An ES module that imports nothing from gnome-shell: what it needs of the
// shell (the display, the window tracker, the notification function) comes
// in through the constructor, so GNOME 45 and later import it statically
// (gnome-45/extension.js) and GNOME 43 and 44 import it with `import()`
// (gnome-43/extension.js).

import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

Gio._promisify(Procwatch.Process.prototype, 'wait_async', 'wait_finish');

// The signals an app usually dies of. Those of a program error say
// "crashed"; the others say who ended it.
const SIGNALS = new Map([
    [1, 'SIGHUP'], [2, 'SIGINT'], [3, 'SIGQUIT'], [4, 'SIGILL'], [5, 'SIGTRAP'],
    [6, 'SIGABRT'], [7, 'SIGBUS'], [8, 'SIGFPE'], [9, 'SIGKILL'], [11, 'SIGSEGV'],
    [13, 'SIGPIPE'], [14, 'SIGALRM'], [15, 'SIGTERM'], [24, 'SIGXCPU'], [25, 'SIGXFSZ'],
    [31, 'SIGSYS'],
]);
const CRASH_SIGNALS = new Set([4, 5, 6, 7, 8, 11, 24, 25, 31]);

/**
 * Whether the status of a process is known.
 *
 * In C and Python this is procwatch_process_has_status(). In GJS a property
 * hides a method of the same name: while Procwatch.Process has a
 * `has-status` property, `process.has_status` is that property (a boolean)
 * and `process.has_status()` throws; once the property is `status-known`,
 * `has_status()` is the method again. This works with both.
 *
 * @param {Procwatch.Process} process a process
 * @returns {boolean} whether its status is known
 */
export function hasStatus(process) {
    return typeof process.has_status === 'function' ? process.has_status() : process.has_status;
}

/**
 * How a reaped process ended, in words.
 *
 * @param {Procwatch.Process} process a reaped process
 * @returns {string} "quit", "quit with exit code 3", "was killed by
 *   SIGKILL", "crashed (SIGSEGV)"
 */
export function describeEnd(process) {
    // The status of a process that is not our child is known only once
    // its parent has reaped it, and only on Linux 6.15 and newer.
    if (!hasStatus(process))
        return 'ended';
    if (process.get_if_signaled()) {
        const signal = process.get_term_sig();
        const name = SIGNALS.get(signal) ?? `signal ${signal}`;
        return CRASH_SIGNALS.has(signal) ? `crashed (${name})` : `was killed by ${name}`;
    }
    const code = process.get_exit_status();
    return code === 0 ? 'quit' : `quit with exit code ${code}`;
}

export class AppExitNotifier {
    /**
     * Starts watching the processes of the windows there are and will be.
     *
     * @param {object} shell what is needed of the running shell
     * @param {Meta.Display} shell.display `global.display`
     * @param {Meta.Window[]} shell.windows the windows there are already
     * @param {Shell.WindowTracker} shell.windowTracker
     *   `Shell.WindowTracker.get_default()`
     * @param {function(string, string)} shell.notify `Main.notify`
     */
    constructor({display, windows, windowTracker, notify}) {
        this._display = display;
        this._windowTracker = windowTracker;
        this._notify = notify;
        // The shell's own pid: its own windows (Xwayland's, for one) are
        // not an app the user started.
        this._shellPid = new Gio.Credentials().get_unix_pid();

        this._apps = new Map();          // Procwatch.Process → what we know of its app
        this._reapWaiters = new Map();   // Procwatch.Process → a promise's resolve
        this._cancellable = new Gio.Cancellable();

        this._monitor = Procwatch.ProcessMonitor.new();
        this._monitorIds = [
            // The monitor is a list of the processes it watches: each one
            // that joins is followed until it has gone.
            this._monitor.connect('items-changed', (model, position, _removed, added) => {
                for (let i = position; i < position + added; i++) {
                    this._follow(model.get_item(i))
                        .catch(error => logError(error, 'app-exits'));
                }
            }),
            this._monitor.connect('reaped', (_monitor, process) => {
                const resolve = this._reapWaiters.get(process);
                this._reapWaiters.delete(process);
                resolve?.();
            }),
        ];

        this._windowCreatedId = display.connect('window-created',
            (_display, window) => this._track(window));
        for (const window of windows)
            this._track(window);
        console.log('app-exits: watching the windows of apps');
    }

    _track(window) {
        // 0 when the window does not say (an X11 client without _NET_WM_PID).
        const pid = window.get_pid();
        if (pid <= 0 || pid === this._shellPid)
            return;

        let process;
        try {
            process = this._monitor.watch_pid(pid);
        } catch (error) {
            // Gone already: its window will go too.
            if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.NOT_FOUND))
                logError(error, `app-exits: cannot watch pid ${pid}`);
            return;
        }

        // The windows of one app share one Procwatch.Process.
        let app = this._apps.get(process);
        if (!app) {
            app = {title: null, name: null, windows: new Map()};
            this._apps.set(process, app);
        }
        if (app.windows.has(window))
            return;

        // On Wayland a window gets its title after 'window-created', and
        // its app once the tracker has seen it: read both whenever they
        // change, and keep the last ones for when the window has gone.
        const update = () => {
            app.title = window.get_title() ?? app.title;
            const shellApp = this._windowTracker.get_window_app(window);
            // An app with a .desktop file has a name of its own; any other
            // is named after its window.
            if (shellApp?.get_app_info())
                app.name = shellApp.get_name();
        };
        update();
        app.windows.set(window, [
            window.connect('notify::title', update),
            window.connect('notify::wm-class', update),
            window.connect('unmanaged', () => this._forget(app, window)),
        ]);
    }

    _forget(app, window) {
        for (const id of app.windows.get(window) ?? [])
            window.disconnect(id);
        app.windows.delete(window);
    }

    async _follow(process) {
        try {
            // Completes once the process has terminated; from the main
            // loop, so the shell never blocks on it.
            await process.wait_async(this._cancellable);
        } catch (error) {
            // Cancelled: the extension is being disabled.
            if (!error.matches(Gio.IOErrorEnum, Gio.IOErrorEnum.CANCELLED))
                logError(error, `app-exits: waiting for pid ${process.pid}`);
            return;
        }

        // A zombie now, until its parent reaps it; only then is its
        // status known.
        if (process.get_state() !== Procwatch.ProcessState.REAPED)
            await new Promise(resolve => this._reapWaiters.set(process, resolve));
        if (this._monitor === null)
            return;   // disabled meanwhile

        const app = this._apps.get(process);
        this._apps.delete(process);
        if (!app)
            return;
        for (const window of [...app.windows.keys()])
            this._forget(app, window);

        const title = app.title === null ? `pid ${process.pid}` : `"${app.title}"`;
        const who = app.name && app.name !== app.title ? `${app.name} (${title})` : title;
        const how = describeEnd(process);
        // The shell's journal (or stderr) gets it too.
        console.log(`app-exits: ${who} (pid ${process.pid}) ${how}`);
        this._notify(`${app.name ?? app.title ?? 'An app'} ${how}`,
            `${who}, process ${process.pid}`);
    }

    destroy() {
        this._display.disconnect(this._windowCreatedId);
        for (const app of this._apps.values()) {
            for (const window of [...app.windows.keys()])
                this._forget(app, window);
        }
        this._apps.clear();

        for (const id of this._monitorIds)
            this._monitor.disconnect(id);
        // Stops every watch and closes the monitor's file descriptors now;
        // dropping the last reference would leave that to the garbage
        // collector. Pending waits then fail with G_IO_ERROR_CANCELLED.
        this._monitor.close();
        this._monitor = null;
        this._cancellable.cancel();
        // Followers waiting for a reap end without a word.
        for (const resolve of this._reapWaiters.values())
            resolve();
        this._reapWaiters.clear();
    }
}
