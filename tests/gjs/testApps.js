// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// Applications from GJS: the instances of an app found below a cgroup the
// test makes as a fake user manager's tree, the app id of a watched
// cgroup, and send_signal_async() awaited through Gio._promisify, on real
// processes in real cgroups.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {
    assert, assertEqual, assertIOError, lacking, rejection, run, test, withTimeout, writeProcFile,
} from './harness.js';

Gio._promisify(Procwatch.Cgroup.prototype, 'send_signal_async', 'send_signal_finish');
Gio._promisify(Procwatch.Cgroup.prototype, 'wait_empty_async', 'wait_empty_finish');

const SIGTERM = 15;
const SIGKILL = 9;
const decoder = new TextDecoder();

// [mount point, root] of the first cgroup2 mount, or null.
function cgroup2Mount() {
    const [, bytes] = GLib.file_get_contents('/proc/self/mountinfo');
    for (const line of decoder.decode(bytes).split('\n')) {
        const fields = line.split(' ');
        const separator = fields.indexOf('-');
        if (separator > 0 && fields[separator + 1] === 'cgroup2')
            return [fields[4], fields[3]];
    }
    return null;
}

// A scratch cgroup tree for one test: cgroups made below it on demand,
// each with the processes put in it; all killed and removed at the end.
class Tree {
    constructor() {
        const mount = cgroup2Mount();
        if (mount === null)
            throw lacking('cgroup v2 is not mounted here');
        const name = `gio-procwatch-gjs-apps-${new Gio.Credentials().get_unix_pid()}`;
        this.absolute = `${mount[0]}/${name}`;
        this.relative = `${mount[1].replace(/\/$/, '')}/${name}`;
        this.made = [];
        this.processes = [];
        try {
            Gio.File.new_for_path(this.absolute).make_directory(null);
        } catch (e) {
            throw lacking(`cannot make a cgroup under ${mount[0]}: ${e.message}`);
        }
    }

    make(path) {
        let absolute = this.absolute;
        for (const part of path.split('/')) {
            absolute = `${absolute}/${part}`;
            if (!this.made.includes(absolute)) {
                Gio.File.new_for_path(absolute).make_directory(null);
                this.made.push(absolute);
            }
        }
        return {absolute, relative: `${this.relative}/${path}`};
    }

    // A process in @cgroup; with @ignoreTerm it ignores SIGTERM, from before
    // it says it is ready (the ignored signal stays ignored across exec).
    spawn(cgroup, ignoreTerm = false) {
        const argv = ignoreTerm ? ['sh', '-c', "trap '' TERM; echo ready; exec sleep infinity"]
            : ['sleep', 'infinity'];
        const process = Gio.Subprocess.new(argv,
            ignoreTerm ? Gio.SubprocessFlags.STDOUT_PIPE : Gio.SubprocessFlags.NONE);
        if (ignoreTerm) {
            const stdout = new Gio.DataInputStream({base_stream: process.get_stdout_pipe()});
            const [line] = stdout.read_line_utf8(null);
            assertEqual(line, 'ready', 'the TERM-ignoring process is ready');
        }
        this.processes.push(process);
        writeProcFile(`${cgroup.absolute}/cgroup.procs`, process.get_identifier());
        return process;
    }

    async remove() {
        writeProcFile(`${this.absolute}/cgroup.kill`, '1');
        for (const process of this.processes)
            await withTimeout(process.wait_async(null), 'a process of the tree');
        for (const path of this.made.reverse())
            Gio.File.new_for_path(path).delete(null);
        Gio.File.new_for_path(this.absolute).delete(null);
    }
}

// A test body run with a tree of its own.
function inTree(func) {
    return async context => {
        const tree = new Tree();
        try {
            await func({...context, tree});
        } finally {
            await tree.remove();
        }
    };
}

test('find_app_instances and app-id', inTree(({monitor, tree}) => {
    const manager = tree.make('user@1000.service');
    const gnome = tree.make('user@1000.service/app.slice/app-gnome-org.example.App-4242.scope');
    const flatpak = tree.make('user@1000.service/app.slice/app-flatpak-org.example.App-12.scope');
    const escaped = tree.make('user@1000.service/app.slice/app-gnome-org.example.My\\x2dApp-7.scope');
    for (const cgroup of [gnome, flatpak, escaped])
        tree.spawn(cgroup);

    assertEqual(Procwatch.Cgroup.find_app_instances('org.example.App', manager.relative),
        [flatpak.relative, gnome.relative], 'the two instances, sorted');
    assertEqual(Procwatch.Cgroup.find_app_instances('org.example.Missing', manager.relative),
        [], 'none');

    const cgroup = monitor.watch_cgroup(escaped.relative);
    assertEqual(cgroup.get_app_id(), 'org.example.My-App', 'get_app_id, unescaped');
    assertEqual(cgroup.app_id, 'org.example.My-App', 'property app-id');
    assertEqual(monitor.watch_cgroup(manager.relative).get_app_id(), null, 'no app id');

    let error = null;
    try {
        Procwatch.Cgroup.find_app_instances('not an id', manager.relative);
    } catch (e) {
        error = e;
    }
    assertIOError(error, Gio.IOErrorEnum.INVALID_ARGUMENT);
}));

test('await send_signal_async', inTree(async ({monitor, tree}) => {
    const app = tree.make('app-test-org.example.Stubborn-1.scope');
    const stubborn = tree.spawn(app, true);
    const obeying = tree.spawn(app);
    const cgroup = monitor.watch_cgroup(app.relative);

    assertEqual(await withTimeout(cgroup.send_signal_async(SIGTERM, null), 'TERM'), true, 'sent');
    await withTimeout(obeying.wait_async(null), 'the process that obeys TERM');
    assertEqual(obeying.get_term_sig(), SIGTERM, 'ended by TERM');
    assert(cgroup.populated, 'the TERM-ignoring process lives on');

    const empty = cgroup.wait_empty_async(null);
    assertEqual(await withTimeout(cgroup.send_signal_async(SIGKILL, null), 'KILL'), true, 'sent');
    assertEqual(await withTimeout(empty, 'empty'), true, 'empty');
    await withTimeout(stubborn.wait_async(null), 'the TERM-ignoring process');
    assertEqual(stubborn.get_term_sig(), SIGKILL, 'ended by KILL');

    monitor.unwatch_cgroup(cgroup);
    assertIOError(await rejection(cgroup.send_signal_async(SIGTERM, null)), Gio.IOErrorEnum.CLOSED);
}));

await run();
