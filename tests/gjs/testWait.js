// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// wait_async()/wait_finish() with a callback and as a promise, their
// cancellation, and a Gio.Subprocess watched at the same time.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {
    Child, NonChild, assert, assertEqual, assertIOError, rejection, run, test, withTimeout,
} from './harness.js';

const State = Procwatch.ProcessState;
const SIGKILL = 9;

for (const kind of [Child, NonChild]) {
    test(`await wait_async on a ${kind.name}`, async ({monitor, recorder, make}) => {
        const target = await make(kind);
        const waits = [monitor.wait_async(target.pid, null), monitor.wait_async(target.pid, null)];

        target.exit(5);
        const processes = await withTimeout(Promise.all(waits), 'the waits');
        assert(processes[0] === processes[1], 'one Process');
        assertEqual(processes[0].get_pid(), target.pid, 'pid');
        assertEqual(processes[0].state, State.EXITED, 'state');
        // The wait watches the process, so the monitor signals it too.
        assert(recorder.find(target.pid, 'exited').process === processes[0], 'signalled');

        await target.reap();
        await recorder.waitFor(target.pid, 'reaped');
    });
}

test('wait_async with a callback', async ({monitor, make}) => {
    const child = await make(Child);
    const done = new Promise((resolve, reject) => {
        // The unpromisified form: a callback and wait_finish().
        Procwatch.ProcessMonitor.prototype.wait_async.call(monitor, child.pid, null,
            (source, result) => {
                try {
                    resolve(source.wait_finish(result));
                } catch (e) {
                    reject(e);
                }
            });
    });
    child.exit(0);
    const process = await withTimeout(done, 'the callback');
    assert(process.get_if_exited(), 'exited');
    assertEqual(process.get_exit_status(), 0, 'exit status');
});

test('wait_async on an exited process completes', async ({monitor, recorder, make}) => {
    const child = await make(Child);
    const process = monitor.watch_pid(child.pid);
    child.exit(0);
    await recorder.waitFor(child.pid, 'exited');
    assert(await withTimeout(monitor.wait_async(child.pid, null), 'the wait') === process,
        'the same Process');
});

test('wait_async cancelled', async ({monitor, make}) => {
    const child = await make(Child);
    const cancellable = new Gio.Cancellable();
    const cancelled = monitor.wait_async(child.pid, cancellable);
    const other = monitor.wait_async(child.pid, null);
    let otherDone = false;
    other.then(() => (otherDone = true));

    GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
        cancellable.cancel();
        return GLib.SOURCE_REMOVE;
    });
    assertIOError(await withTimeout(rejection(cancelled), 'the cancellation'),
        Gio.IOErrorEnum.CANCELLED);

    // Other waits on the same process go on.
    assert(!otherDone, 'the other wait goes on');
    child.exit(0);
    await withTimeout(other, 'the other wait');
});

test('wait_async cancelled before', async ({monitor, make}) => {
    const child = await make(Child);
    const cancellable = new Gio.Cancellable();
    cancellable.cancel();
    assertIOError(await withTimeout(rejection(monitor.wait_async(child.pid, cancellable)),
        'the cancellation'), Gio.IOErrorEnum.CANCELLED);
});

test('wait_async on an unwatched process fails', async ({monitor, make}) => {
    const child = await make(Child);
    const wait = monitor.wait_async(child.pid, null);
    GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
        monitor.unwatch(child.pid);
        return GLib.SOURCE_REMOVE;
    });
    assertIOError(await withTimeout(rejection(wait), 'the wait'), Gio.IOErrorEnum.CANCELLED);
});

test('wait_async on no process fails', async ({monitor}) => {
    assertIOError(await withTimeout(rejection(monitor.wait_async(GLib.MAXINT32, null)),
        'the wait'), Gio.IOErrorEnum.NOT_FOUND);
});

for (const how of ['exit', 'signal']) {
    test(`Gio.Subprocess watched at the same time, ${how}`, async ({monitor, recorder}) => {
        // Gio.Subprocess reaps its child itself; the monitor sees both events
        // and the status without disturbing it.
        const subprocess = Gio.Subprocess.new(['sh', '-c', 'read line; exit 4'],
            Gio.SubprocessFlags.STDIN_PIPE);
        const pid = parseInt(subprocess.get_identifier());
        const process = monitor.watch_pid(pid);
        const finished = subprocess.wait_async(null);

        if (how === 'exit')
            subprocess.get_stdin_pipe().write_all(new TextEncoder().encode('go\n'), null);
        else
            subprocess.send_signal(SIGKILL);

        await recorder.waitFor(pid, 'exited');
        await recorder.waitFor(pid, 'reaped');
        await withTimeout(finished, 'Gio.Subprocess to finish');

        assertEqual(recorder.names(pid), ['exited', 'reaped'], 'events');
        if (how === 'exit') {
            assertEqual(subprocess.get_exit_status(), 4, 'Gio.Subprocess exit status');
            assertEqual(process.get_exit_status(), 4, 'exit status');
        } else {
            assertEqual(subprocess.get_term_sig(), SIGKILL, 'Gio.Subprocess signal');
            assertEqual(process.get_term_sig(), SIGKILL, 'signal');
        }
        assertEqual(process.get_status(), subprocess.get_status(), 'raw status');
    });
}

await run();
