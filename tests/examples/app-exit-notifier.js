// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The shell extension's shared module (examples/shell-extension/
// app-exit-notifier.js) outside gnome-shell, on real processes: stand-ins
// for global.display, its windows and Shell.WindowTracker hand it windows
// of processes started here, which then end in each way an app can.
//
//   gjs -m app-exit-notifier.js PATH-TO-app-exit-notifier.js
//
// .ci/gnome-shell-lane runs the extension itself in a real gnome-shell.

import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Gio from 'gi://Gio';
import System from 'system';

const {AppExitNotifier} = await import(Gio.File.new_for_commandline_arg(ARGV[0]).get_uri());

// Stand-ins for Meta.Window, Meta.Display, Shell.App and Shell.WindowTracker,
// with only what the module uses.
const FakeWindow = GObject.registerClass({
    Properties: {
        'title': GObject.ParamSpec.string('title', null, null, GObject.ParamFlags.READWRITE, null),
        'wm-class': GObject.ParamSpec.string('wm-class', null, null,
            GObject.ParamFlags.READWRITE, null),
    },
    Signals: {'unmanaged': {}},
}, class FakeWindow extends GObject.Object {
    constructor(pid, app) {
        super();
        this._pid = pid;
        this.app = app;
    }

    get_pid() {
        return this._pid;
    }

    get_title() {
        return this.title;
    }
});

const FakeDisplay = GObject.registerClass({
    Signals: {'window-created': {param_types: [GObject.Object]}},
}, class FakeDisplay extends GObject.Object {});

const windowTracker = {get_window_app: window => window.app};
const desktopApp = name => ({get_app_info: () => ({}), get_name: () => name});
// An app with no .desktop file: the shell names it after its window.
const windowBackedApp = {get_app_info: () => null, get_name: () => 'whatever'};

// A process that runs until told how to end. Without the sanitizer runtime
// that ASan builds preload into gjs: it would turn the shell's own SIGSEGV
// into an exit with status 1.
function startProcess() {
    const launcher = new Gio.SubprocessLauncher({flags: Gio.SubprocessFlags.STDIN_PIPE});
    launcher.unsetenv('LD_PRELOAD');
    const subprocess = launcher.spawnv(['sh', '-c', 'read how; eval "$how"']);
    return {subprocess, pid: parseInt(subprocess.get_identifier())};
}

function end(process, how) {
    const stdin = process.subprocess.get_stdin_pipe();
    stdin.write_all(new TextEncoder().encode(`${how}\n`), null);
    stdin.close(null);
}

function timeout(ms, what) {
    return new Promise((_resolve, reject) => {
        GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => {
            reject(new Error(`timed out waiting for ${what}`));
            return GLib.SOURCE_REMOVE;
        });
    });
}

async function main() {
    const display = new FakeDisplay();
    const editor = startProcess();
    const terminal = startProcess();
    const viewer = startProcess();
    const crasher = startProcess();
    const running = startProcess();

    // A window there before the notifier starts; the others come after.
    const editorWindow = new FakeWindow(editor.pid, desktopApp('Text Editor'));
    const notes = [];
    let allNoted;
    const allNotedPromise = new Promise(resolve => (allNoted = resolve));
    const notifier = new AppExitNotifier({
        display,
        windows: [editorWindow],
        windowTracker,
        notify: (title, body) => {
            notes.push(`${title} | ${body}`);
            if (notes.length === 4)
                allNoted();
        },
    });
    // On Wayland the title comes after 'window-created'.
    editorWindow.title = 'notes.txt';

    for (const title of ['Terminal', 'Terminal 2']) {
        const window = new FakeWindow(terminal.pid, windowBackedApp);
        display.emit('window-created', window);
        window.title = title;
    }
    const viewerWindow = new FakeWindow(viewer.pid, windowBackedApp);
    viewerWindow.title = 'cat.png';
    display.emit('window-created', viewerWindow);
    const crasherWindow = new FakeWindow(crasher.pid, windowBackedApp);
    display.emit('window-created', crasherWindow);
    crasherWindow.title = 'Crasher';
    display.emit('window-created', new FakeWindow(running.pid, windowBackedApp));
    // Neither a window without a pid nor one of the shell itself is an app.
    display.emit('window-created', new FakeWindow(0, null));
    display.emit('window-created', new FakeWindow(new Gio.Credentials().get_unix_pid(), null));

    // The viewer's window goes first, as a compositor sees a client go.
    viewerWindow.emit('unmanaged');
    end(editor, 'exit 0');
    end(terminal, 'kill -KILL $$');
    end(viewer, 'exit 2');
    end(crasher, 'kill -SEGV $$');

    await Promise.race([allNotedPromise, timeout(30000, 'four notifications')]);
    notifier.destroy();
    // Ended after destroy(): nothing more is said.
    end(running, 'exit 5');
    for (const process of [editor, terminal, viewer, crasher, running])
        await new Promise(resolve => process.subprocess.wait_async(null, resolve));
    await new Promise(resolve => GLib.idle_add(GLib.PRIORITY_LOW, resolve));

    const expected = [
        `Crasher crashed (SIGSEGV) | "Crasher", process ${crasher.pid}`,
        `Terminal 2 was killed by SIGKILL | "Terminal 2", process ${terminal.pid}`,
        `cat.png quit with exit code 2 | "cat.png", process ${viewer.pid}`,
        `Text Editor quit | Text Editor ("notes.txt"), process ${editor.pid}`,
    ].sort();
    notes.sort();
    if (JSON.stringify(notes) !== JSON.stringify(expected))
        throw new Error(`expected ${JSON.stringify(expected)}, got ${JSON.stringify(notes)}`);
}

try {
    await main();
} catch (error) {
    logError(error);
    System.exit(1);
}
