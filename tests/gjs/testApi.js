// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// Properties, notify::state, pidfds and the errors callers can match on.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {
    Child, NonChild, assert, assertEqual, assertThrowsIOError, receivePidfd, run, test,
} from './harness.js';

const State = Procwatch.ProcessState;
const IOError = Gio.IOErrorEnum;

test('backend is a string', ({monitor}) => {
    assertEqual(monitor.backend, 'pidfd', 'backend');
    assertEqual(monitor.get_backend(), monitor.backend, 'get_backend()');
});

test('state is a Procwatch.ProcessState', async ({monitor, make}) => {
    const process = monitor.watch_pid((await make(Child)).pid);
    assertEqual(process.state, State.RUNNING, 'state');
    assertEqual(process.get_state(), State.RUNNING, 'get_state()');
    assert(State.RUNNING < State.EXITED && State.EXITED < State.REAPED, 'ordered');
});

for (const kind of [Child, NonChild]) {
    test(`notify::state on a ${kind.name}`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const process = monitor.watch_pid(target.pid);
        const seen = [];
        process.connect('notify::state', p => seen.push([p.state, recorder.events.length]));

        target.exit(0);
        await recorder.waitFor(target.pid, 'exited');
        await target.reap();
        await recorder.waitFor(target.pid, 'reaped');

        // Each change notifies once, just before the signal announcing it.
        assertEqual(seen, [[State.EXITED, 0], [State.REAPED, 1]], 'notifications');
    });
}

test('watch_pidfd', async ({monitor, recorder, make}) => {
    const target = await make(NonChild);
    const pidfd = await receivePidfd(target.pid);
    const process = monitor.watch_pidfd(pidfd);
    // The monitor keeps its own duplicate.
    GLib.close(pidfd);
    assert(process instanceof Procwatch.Process, 'a Procwatch.Process');
    assertEqual(process.get_pid(), target.pid, 'pid');
    assert(monitor.watch_pid(target.pid) === process, 'the same Process by pid');

    target.exit(7);
    await recorder.waitFor(target.pid, 'exited');
    await target.reap();
    await recorder.waitFor(target.pid, 'reaped');
    assertEqual(process.get_exit_status(), 7, 'exit status');
});

test('watch_pid errors', async ({monitor, make}) => {
    assertThrowsIOError(() => monitor.watch_pid(0), IOError.INVALID_ARGUMENT);
    assertThrowsIOError(() => monitor.watch_pid(-1), IOError.INVALID_ARGUMENT);
    assertThrowsIOError(() => monitor.watch_pid(GLib.MAXINT32), IOError.NOT_FOUND);

    const child = await make(Child);
    child.exit(0);
    await child.reap();
    assertThrowsIOError(() => monitor.watch_pid(child.pid), IOError.NOT_FOUND);
});

test('watch_pid of a thread', ({monitor}) => {
    // gjs runs helper threads; each is a task that can be watched on its own.
    const pid = new Gio.Credentials().get_unix_pid();
    const tasks = Gio.File.new_for_path('/proc/self/task')
        .enumerate_children('standard::name', Gio.FileQueryInfoFlags.NONE, null);
    let tid = 0;
    for (let info; (info = tasks.next_file(null)) !== null && tid === 0;) {
        if (parseInt(info.get_name()) !== pid)
            tid = parseInt(info.get_name());
    }
    assert(tid !== 0, 'gjs has a thread');
    const process = monitor.watch_pid(tid);
    assertEqual(process.get_pid(), tid, 'pid of the thread');
    assertEqual(process.state, Procwatch.ProcessState.RUNNING, 'state');
});

test('watch_pidfd errors', ({monitor}) => {
    assertThrowsIOError(() => monitor.watch_pidfd(-1), IOError.INVALID_ARGUMENT);

    const stream = Gio.File.new_for_path('/dev/null').read(null);
    const fd = stream.get_fd();
    assertThrowsIOError(() => monitor.watch_pidfd(fd), IOError.INVALID_ARGUMENT);
    stream.close(null);
    assertThrowsIOError(() => monitor.watch_pidfd(fd), IOError.INVALID_ARGUMENT);
});

await run();
