// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// close() from GJS, as a shell extension's disable() calls it.

import Gio from 'gi://Gio';

import {
    Child, NonChild, assert, assertEqual, assertIOError, assertThrowsIOError, drain, rejection,
    run, test, withTimeout,
} from './harness.js';

for (const kind of [Child, NonChild]) {
    test(`close() with waits pending on a ${kind.name}`, async ({monitor, recorder, make}) => {
        const targets = [await make(kind), await make(kind)];
        const other = await make(kind);
        const waits = targets.map(target => rejection(monitor.wait_async(target.pid, null)));

        monitor.close();
        monitor.close();
        for (const error of await withTimeout(Promise.all(waits), 'the waits'))
            assertIOError(error, Gio.IOErrorEnum.CANCELLED);

        // Nothing is reported after close().
        for (const target of targets)
            target.exit(0);
        for (const target of targets)
            await target.reap();
        await drain();
        assertEqual(recorder.names(targets[0].pid), [], 'events');
        assertEqual(recorder.names(targets[1].pid), [], 'events');

        assertThrowsIOError(() => monitor.watch_pid(other.pid), Gio.IOErrorEnum.CLOSED);
        assert(!monitor.unwatch(other.pid), 'unwatch on a closed monitor');
        assertIOError(await withTimeout(rejection(monitor.wait_async(other.pid, null)), 'the wait'),
            Gio.IOErrorEnum.CLOSED);
    });
}

await run();
