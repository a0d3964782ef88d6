// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The process handle across a forced pid reuse, from GJS. Run by
// testHandle.js as pid 2 of a pid namespace of its own (where ns_last_pid
// gives a new process the pid just freed), once per backend
// (PROCWATCH_BACKEND).

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {
    Child, Recorder, Skip, assert, assertEqual, assertThrowsIOError, childWithPid, receivePidfd,
    run, test,
} from './harness.js';

const IOError = Gio.IOErrorEnum;
const SIGKILL = 9;
const SIGTERM = 15;

// A monitor in a main context of its own, dispatched only by
// dispatchUntil(): reaping a child (which needs the default main context
// here) then does not let the monitor see the reap before the test says.
function monitorOfItsOwn() {
    const context = new GLib.MainContext();
    context.push_thread_default();
    const monitor = Procwatch.ProcessMonitor.new();
    context.pop_thread_default();
    return {monitor, context, recorder: new Recorder(monitor)};
}

function dispatchUntil(context, predicate, what) {
    let timedOut = false;
    const timeout = GLib.timeout_source_new(30000);
    timeout.set_callback(() => {
        timedOut = true;
        return GLib.SOURCE_REMOVE;
    });
    timeout.attach(context);
    try {
        while (!predicate() && !timedOut)
            context.iteration(true);
    } finally {
        timeout.destroy();
    }
    assert(predicate(), `timed out waiting for ${what}`);
}

// Exits and reaps @child before the monitor sees it, and gives its pid to
// a new Child.
async function reuse(child) {
    const pid = child.pid;
    child.exit(0);
    await child.reap();
    return childWithPid(pid);
}

async function pidfsInode(pid) {
    const pidfd = await receivePidfd(pid);
    try {
        return Gio.File.new_for_path(`/proc/self/fd/${pidfd}`)
            .query_info('unix::inode', Gio.FileQueryInfoFlags.NONE, null)
            .get_attribute_uint64('unix::inode');
    } finally {
        GLib.close(pidfd);
    }
}

test('lookup, send_signal and unwatch_process after reuse', async ({make}) => {
    const {monitor, context, recorder} = monitorOfItsOwn();
    const oldChild = await make(Child);
    const pid = oldChild.pid;
    const oldProcess = monitor.watch_pid(pid);
    const newChild = await make(() => reuse(oldChild));
    assertEqual(newChild.pid, pid, 'the same pid');

    const newProcess = monitor.watch_pid(pid);
    assert(newProcess !== oldProcess, 'another Process');
    // The old one's reap is not reported yet: the newest has the pid.
    assert(monitor.lookup(pid) === newProcess, 'lookup gives the new process');
    assertEqual(monitor.get_n_items(), 2, 'both listed');

    // Never reaches the new owner of the pid.
    assertThrowsIOError(() => oldProcess.send_signal(SIGKILL), IOError.NOT_FOUND);
    assert(newProcess.send_signal(0), 'the new one runs');

    assert(monitor.unwatch_process(oldProcess), 'the old one unwatched');
    assert(monitor.lookup(pid) === newProcess, 'the new one still watched');
    assert(monitor.get_item(0) === newProcess, 'and listed alone');

    assert(newProcess.send_signal(SIGTERM), 'SIGTERM');
    newChild.ended();
    dispatchUntil(context, () => recorder.find(pid, 'exited') !== null, 'the exit');
    assert(recorder.events[0].process === newProcess, 'the new one exited, the old one unseen');
    assertEqual(newProcess.term_sig, SIGTERM, 'by SIGTERM');
    monitor.close();
});

test('inode and watch_pid_inode after reuse', async ({make}) => {
    const {monitor, context, recorder} = monitorOfItsOwn();
    if (monitor.backend !== 'pidfd')
        throw new Skip(`the ${monitor.backend} backend knows no inodes of processes watched by pid`);
    const oldChild = await make(Child);
    const pid = oldChild.pid;
    const oldProcess = monitor.watch_pid(pid);
    const oldInode = oldProcess.inode;
    assertEqual(oldInode, await pidfsInode(pid), 'inode');

    const newChild = await make(() => reuse(oldChild));
    const newInode = await pidfsInode(newChild.pid);
    assert(newInode !== oldInode, 'a new inode for the new process');

    // Stale: the pid belongs to another process now.
    assertThrowsIOError(() => monitor.watch_pid_inode(pid, oldInode), IOError.NOT_FOUND);
    const newProcess = monitor.watch_pid_inode(pid, newInode);
    assert(newProcess !== oldProcess, 'another Process');
    assertEqual(newProcess.inode, newInode, 'its inode');

    dispatchUntil(context, () => recorder.find(pid, 'reaped') !== null, 'the old one\'s reap');
    assert(recorder.find(pid, 'reaped').process === oldProcess, 'the old one reaped');
    assert(monitor.lookup(pid) === newProcess, 'lookup gives the new one');
    assertEqual(newProcess.state, Procwatch.ProcessState.RUNNING, 'the new one runs');
    monitor.close();
});

await run();
