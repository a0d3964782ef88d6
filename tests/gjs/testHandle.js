// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The process object as the handle (API 1.2), from GJS: inode, name, the
// status properties (status_known beside the 1.0 method has_status(), which
// a property of that name would hide), dup_pidfd, send_signal, wait_async of a process (promisified on
// Procwatch.Process.prototype); the monitor's unwatch_process, lookup,
// watch_pid_inode and list model; on children and non-children. Pid reuse:
// testHandleReuse.js, run in a pid namespace of its own from here.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {
    Child, NonChild, assert, assertEqual, assertIOError, assertThrowsIOError, drain,
    receivePidfd, rejection, run, runInPidNamespace, test, withTimeout,
} from './harness.js';

const State = Procwatch.ProcessState;
const IOError = Gio.IOErrorEnum;
const SIGKILL = 9;
const SIGTERM = 15;

// The inode of what the file descriptor @fd refers to: stat() of
// /proc/self/fd/N follows the link to the pidfd's own file.
function inodeOf(fd) {
    return Gio.File.new_for_path(`/proc/self/fd/${fd}`)
        .query_info('unix::inode', Gio.FileQueryInfoFlags.NONE, null)
        .get_attribute_uint64('unix::inode');
}

async function pidfsInode(pid) {
    const pidfd = await receivePidfd(pid);
    try {
        return inodeOf(pidfd);
    } finally {
        GLib.close(pidfd);
    }
}

// GLib 2.80 moved the Unix fd sources to GLibUnix, and GJS warns (fatally
// here) when they are reached through GLib; GLib 2.74 has no GLibUnix.
const fdAddFull = await import('gi://GLibUnix')
    .then(module => module.default.fd_add_full)
    .catch(() => GLib.unix_fd_add_full);

// Resolves when @fd polls readable, as a GLib fd source sees it.
function readable(fd) {
    return new Promise(resolve => {
        fdAddFull(GLib.PRIORITY_DEFAULT, fd, GLib.IOCondition.IN, () => {
            resolve();
            return GLib.SOURCE_REMOVE;
        });
    });
}

function items(model) {
    const list = [];
    for (let i = 0; i < model.get_n_items(); i++)
        list.push(model.get_item(i));
    return list;
}

for (const kind of [Child, NonChild]) {
    test(`inode is the pidfs inode of a ${kind.name}`, async ({monitor, make}) => {
        const target = await make(kind);
        const process = monitor.watch_pid(target.pid);
        const inode = await pidfsInode(target.pid);
        assert(inode > 0, 'an inode');
        assertEqual(process.get_inode(), inode, 'get_inode()');
        assertEqual(process.inode, inode, 'inode');

        const other = monitor.watch_pid((await make(kind)).pid);
        assert(other.get_inode() !== inode, 'another process, another inode');
    });

    test(`name of a ${kind.name} survives its exit`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const process = monitor.watch_pid(target.pid);
        assertEqual(process.get_name(), 'procwatch-test-', 'get_name()');
        assertEqual(process.name, 'procwatch-test-', 'name');

        target.exit(0);
        await recorder.waitFor(target.pid, 'exited');
        await target.reap();
        await recorder.waitFor(target.pid, 'reaped');
        assert(!GLib.file_test(`/proc/${target.pid}`, GLib.FileTest.EXISTS), 'gone');
        assertEqual(process.name, 'procwatch-test-', 'name after the reap');
    });

    test(`status properties of a ${kind.name}`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const process = monitor.watch_pid(target.pid);
        const notified = [];
        for (const name of ['status-known', 'exit-status', 'term-sig', 'state'])
            process.connect(`notify::${name}`, (_p, pspec) => notified.push(pspec.name));

        // The 1.0 method is still a method in GJS: no property hides it
        // (docs/migrating.md); the property is status_known.
        assertEqual(typeof process.has_status, 'function', 'typeof has_status');
        assertEqual(typeof process.status_known, 'boolean', 'typeof status_known');
        assertEqual([process.status_known, process.has_status(), process.exit_status,
            process.term_sig], [false, false, -1, 0], 'while running');

        target.kill(SIGKILL);
        await recorder.waitFor(target.pid, 'exited');
        if (kind === NonChild) {
            // A non-child's status is known once it has been reaped.
            assertEqual(notified, ['state'], 'notified at the exit');
            notified.length = 0;
            await target.reap();
            await recorder.waitFor(target.pid, 'reaped');
        }
        // Notified together (in any order), before the state changes.
        assertEqual(notified.slice(0, -1).sort(), ['status-known', 'term-sig'], 'status notified');
        assertEqual(notified.at(-1), 'state', 'then the state');
        assertEqual([process.status_known, process.has_status(), process.exit_status,
            process.term_sig], [true, true, -1, SIGKILL], 'killed');
        assertEqual(process.get_term_sig(), SIGKILL, 'get_term_sig()');
    });

    test(`dup_pidfd of a ${kind.name} polls like the original`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const process = monitor.watch_pid(target.pid);
        const original = await receivePidfd(target.pid);
        const duplicate = process.dup_pidfd();
        try {
            assert(duplicate >= 0 && duplicate !== original, 'a new fd');
            assertEqual(inodeOf(duplicate), inodeOf(original), 'the same process');
            assertEqual(inodeOf(duplicate), process.inode, 'inode');
            const flags = Gio.File.new_for_path(`/proc/self/fdinfo/${duplicate}`)
                .load_contents(null)[1];
            const octal = /^flags:\s+([0-7]+)$/m.exec(new TextDecoder().decode(flags))[1];
            assert(parseInt(octal, 8) & 0o2000000, 'O_CLOEXEC');

            const both = [readable(duplicate), readable(original)];
            let done = 0;
            both.forEach(p => p.then(() => done++));
            await drain();
            assertEqual(done, 0, 'neither readable while it runs');

            target.exit(0);
            await withTimeout(Promise.all(both), 'both pidfds to poll readable');
            await recorder.waitFor(target.pid, 'exited');
            await target.reap();
            await recorder.waitFor(target.pid, 'reaped');
        } finally {
            GLib.close(original);
            GLib.close(duplicate);
        }
        assertThrowsIOError(() => process.dup_pidfd(), IOError.CLOSED);
    });

    test(`send_signal kills the ${kind.name}, not another`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const bystander = await make(Child);
        const process = monitor.watch_pid(target.pid);
        const bystanderProcess = monitor.watch_pid(bystander.pid);

        assert(process.send_signal(0), 'signal 0');
        assert(process.send_signal(SIGTERM), 'SIGTERM');
        if (kind === Child)
            target.ended();
        await recorder.waitFor(target.pid, 'exited');
        const status = await target.reap();
        await recorder.waitFor(target.pid, 'reaped');
        assertEqual(status & 0x7f, SIGTERM, 'killed by SIGTERM');
        assertEqual(process.term_sig, SIGTERM, 'term_sig');

        assertEqual(bystanderProcess.state, State.RUNNING, 'the other one runs');
        assert(bystanderProcess.send_signal(0), 'and can be signalled');
        for (const signum of [0, SIGKILL])
            assertThrowsIOError(() => process.send_signal(signum), IOError.NOT_FOUND);
    });

    test(`wait_async of a ${kind.name}`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const process = monitor.watch_pid(target.pid);
        const waits = [process.wait_async(null), process.wait_async(null)];
        let done = 0;
        waits.forEach(w => w.then(() => done++));
        await drain();
        assertEqual(done, 0, 'not before the exit');

        target.exit(4);
        assertEqual(await withTimeout(Promise.all(waits), 'the waits'), [true, true], 'finished');
        assertEqual(process.state, State.EXITED, 'state');
        assert(recorder.find(target.pid, 'exited') !== null, 'exited emitted');

        // Exited already: at once, from the main loop.
        assert(await withTimeout(process.wait_async(null), 'a late wait'), 'late wait');
        await target.reap();
        await recorder.waitFor(target.pid, 'reaped');
        assert(await withTimeout(process.wait_async(null), 'a wait after the reap'), 'after reap');
    });

    test(`watch_pid_inode of a ${kind.name}`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const other = await make(kind);
        const inode = await pidfsInode(target.pid);
        const otherInode = await pidfsInode(other.pid);

        // Wrong: another process's inode.
        assertThrowsIOError(() => monitor.watch_pid_inode(target.pid, otherInode),
            IOError.NOT_FOUND);
        assertEqual(monitor.get_n_items(), 0, 'a failed call watches nothing');

        const process = monitor.watch_pid_inode(target.pid, inode);
        assertEqual(process.get_pid(), target.pid, 'pid');
        assert(monitor.watch_pid(target.pid) === process, 'the same Process by pid');

        target.exit(0);
        await recorder.waitFor(target.pid, 'exited');
        await target.reap();
        await recorder.waitFor(target.pid, 'reaped');
        // Stale: the pid is free now.
        assertThrowsIOError(() => monitor.watch_pid_inode(target.pid, inode), IOError.NOT_FOUND);
    });
}

test('watch_pid_inode with bad arguments', async ({monitor, make}) => {
    const child = await make(Child);
    const inode = await pidfsInode(child.pid);
    assertThrowsIOError(() => monitor.watch_pid_inode(child.pid, 0), IOError.INVALID_ARGUMENT);
    assertThrowsIOError(() => monitor.watch_pid_inode(0, inode), IOError.INVALID_ARGUMENT);
    monitor.close();
    assertThrowsIOError(() => monitor.watch_pid_inode(child.pid, inode), IOError.CLOSED);
});

test('send_signal once not watched', async ({monitor, make}) => {
    for (const how of ['unwatch_process', 'unwatch', 'close']) {
        const child = await make(Child);
        const process = monitor.watch_pid(child.pid);
        if (how === 'unwatch_process')
            assert(monitor.unwatch_process(process), 'was watched');
        else if (how === 'unwatch')
            assert(monitor.unwatch(child.pid), 'was watched');
        else
            monitor.close();
        assertThrowsIOError(() => process.send_signal(SIGKILL), IOError.CLOSED);
        assertThrowsIOError(() => process.dup_pidfd(), IOError.CLOSED);
    }
    assertThrowsIOError(() => monitor.watch_pid(1), IOError.CLOSED);
});

test('send_signal with no such signal', async ({monitor, make}) => {
    const process = monitor.watch_pid((await make(Child)).pid);
    assertThrowsIOError(() => process.send_signal(1000), IOError.INVALID_ARGUMENT);
    assertEqual(process.state, State.RUNNING, 'still running');
});

test('wait_async of a process cancelled', async ({monitor, make}) => {
    const child = await make(Child);
    const process = monitor.watch_pid(child.pid);
    const cancellable = new Gio.Cancellable();
    const cancelled = process.wait_async(cancellable);
    const other = process.wait_async(null);
    cancellable.cancel();
    assertIOError(await withTimeout(rejection(cancelled), 'the cancellation'), IOError.CANCELLED);

    // Unwatched: the other wait ends too; a new one fails at once.
    assert(monitor.unwatch_process(process), 'was watched');
    assertIOError(await withTimeout(rejection(other), 'the other wait'), IOError.CANCELLED);
    assertIOError(await withTimeout(rejection(process.wait_async(null)), 'a new wait'),
        IOError.CLOSED);
    assertEqual(monitor.get_n_items(), 0, 'it watches nothing');
});

test('wait_async of a process with pid 0', async ({monitor, make}) => {
    const child = await make(Child);
    const pidfd = await receivePidfd(child.pid);
    child.exit(6);
    await child.reap();

    // A pidfd of a process reaped already: no pid, only the object.
    const process = monitor.watch_pidfd(pidfd);
    GLib.close(pidfd);
    assertEqual(process.get_pid(), 0, 'pid');
    assertEqual(process.name, null, 'no name');
    assert(await withTimeout(process.wait_async(null), 'the wait'), 'exited');
    assert(process.state >= State.EXITED, 'state');
});

test('unwatch_process and lookup', async ({monitor, recorder, make}) => {
    const child = await make(Child);
    assertEqual(monitor.lookup(child.pid), null, 'lookup watches nothing');
    const process = monitor.watch_pid(child.pid);
    assert(monitor.lookup(child.pid) === process, 'lookup');
    assertEqual(monitor.lookup(0), null, 'lookup(0)');

    const otherMonitor = Procwatch.ProcessMonitor.new();
    assert(!otherMonitor.unwatch_process(process), 'not watched by another monitor');
    otherMonitor.close();

    assert(monitor.unwatch_process(process), 'unwatched');
    assert(!monitor.unwatch_process(process), 'once');
    assertEqual(monitor.lookup(child.pid), null, 'lookup after unwatch');
    child.exit(0);
    await child.reap();
    await drain();
    assertEqual(recorder.events.length, 0, 'nothing emitted');
});

test('the monitor is a Gio.ListModel', async ({monitor, recorder, make}) => {
    assert(monitor instanceof Gio.ListModel, 'a Gio.ListModel');
    assertEqual(monitor.get_item_type(), Procwatch.Process.$gtype, 'item type');
    const changes = [];
    monitor.connect('items-changed', (_m, position, removed, added) =>
        changes.push([position, removed, added]));

    const children = [await make(Child), await make(NonChild), await make(Child)];
    const watched = children.map(c => monitor.watch_pid(c.pid));
    assertEqual(changes, [[0, 0, 1], [1, 0, 1], [2, 0, 1]], 'appended, inside the calls');
    assert(items(monitor).every((p, i) => p === watched[i]), 'in the order first watched');
    assertEqual(monitor.get_item(3), null, 'past the end');
    monitor.watch_pid(children[0].pid);
    assertEqual(changes.length, 3, 'nothing for a watched process');

    changes.length = 0;
    children[1].exit(0);
    await recorder.waitFor(children[1].pid, 'exited');
    assertEqual(changes, [], 'exited: still listed');
    let atReap = null;
    monitor.connect('reaped', () => (atReap = items(monitor).length));
    await children[1].reap();
    await recorder.waitFor(children[1].pid, 'reaped');
    assertEqual(changes, [[1, 1, 0]], 'removed at the reap');
    assertEqual(atReap, 2, 'before "reaped"');

    assert(monitor.unwatch_process(watched[2]), 'unwatched');
    assertEqual(changes, [[1, 1, 0], [1, 1, 0]], 'removed, inside the call');
    monitor.close();
    assertEqual(changes.at(-1), [0, 1, 0], 'all at once on close');
    assertEqual(monitor.get_n_items(), 0, 'empty');
});

const REUSE = GLib.build_filenamev([GLib.path_get_dirname(
    GLib.filename_from_uri(import.meta.url)[0]), 'testHandleReuse.js']);

for (const backend of ['pidfd', 'poll']) {
    test(`pid reuse (${backend}, in a pid namespace)`, async () => {
        await runInPidNamespace(REUSE, {PROCWATCH_BACKEND: backend});
    });
}

await run();
