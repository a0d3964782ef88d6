// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// "exited" then "reaped", with statuses, on children and on non-children.

import Procwatch from 'gi://Procwatch?version=1.0';

import {Child, NonChild, assert, assertEqual, drain, run, test} from './harness.js';

const State = Procwatch.ProcessState;
const SIGTERM = 15;

function end(target, how) {
    if (how === 'exit')
        target.exit(3);
    else
        target.kill(SIGTERM);
}

function checkStatus(process, how) {
    assert(process.has_status(), 'status known');
    if (how === 'exit') {
        assert(process.get_if_exited(), 'exited normally');
        assert(!process.get_if_signaled(), 'not signaled');
        assertEqual(process.get_exit_status(), 3, 'exit status');
    } else {
        assert(process.get_if_signaled(), 'signaled');
        assert(!process.get_if_exited(), 'not exited normally');
        assertEqual(process.get_term_sig(), SIGTERM, 'signal');
    }
}

for (const how of ['exit', 'signal']) {
    test(`child, ${how}`, async ({monitor, recorder, make}) => {
        const child = await make(Child);
        const process = monitor.watch_pid(child.pid);
        assert(process instanceof Procwatch.Process, 'a Procwatch.Process');
        assertEqual(process.get_pid(), child.pid, 'pid');
        assertEqual(process.pid, child.pid, 'pid property');
        assertEqual(process.state, State.RUNNING, 'state');

        end(child, how);
        const exited = await recorder.waitFor(child.pid, 'exited');
        assert(exited.process === process, 'the signal hands the same Process');
        assertEqual(exited.state, State.EXITED, 'state at "exited"');
        assert(exited.hadStatus, 'a child\'s status is known at "exited"');
        checkStatus(process, how);

        await drain();
        assertEqual(recorder.names(child.pid), ['exited'], 'events before the reap');

        const status = await child.reap();
        const reaped = await recorder.waitFor(child.pid, 'reaped');
        assertEqual(reaped.state, State.REAPED, 'state at "reaped"');
        assertEqual(recorder.names(child.pid), ['exited', 'reaped'], 'events');
        assertEqual(process.get_status(), status, 'the status its parent got');
    });

    test(`non-child, ${how}`, async ({monitor, recorder, make}) => {
        const target = await make(NonChild);
        const process = monitor.watch_pid(target.pid);

        end(target, how);
        const exited = await recorder.waitFor(target.pid, 'exited');
        assert(exited.process === process, 'the signal hands the same Process');
        assertEqual(exited.state, State.EXITED, 'state at "exited"');
        assert(!exited.hadStatus, 'a non-child\'s status is unknown while it is a zombie');

        await drain();
        assertEqual(recorder.names(target.pid), ['exited'], 'events before the reap');

        const status = await target.reap();
        const reaped = await recorder.waitFor(target.pid, 'reaped');
        assertEqual(reaped.state, State.REAPED, 'state at "reaped"');
        assert(reaped.hadStatus, 'status known at "reaped"');
        checkStatus(process, how);
        assertEqual(process.get_status(), status, 'the status its parent got');
    });
}

test('many at once', async ({monitor, recorder, make}) => {
    const targets = [];
    for (let i = 0; i < 4; i++) {
        targets.push(await make(Child));
        targets.push(await make(NonChild));
    }
    const processes = targets.map(target => monitor.watch_pid(target.pid));

    targets.forEach((target, code) => target.exit(code));
    await Promise.all(targets.map(target => recorder.waitFor(target.pid, 'exited')));
    await Promise.all(targets.map(target => target.reap()));
    await Promise.all(targets.map(target => recorder.waitFor(target.pid, 'reaped')));

    processes.forEach((process, code) => {
        assertEqual(process.get_exit_status(), code, `exit status of ${process.get_pid()}`);
        assertEqual(recorder.names(process.get_pid()), ['exited', 'reaped'], 'events');
    });
});

test('watching twice gives the same Process', async ({monitor, make}) => {
    const child = await make(Child);
    assert(monitor.watch_pid(child.pid) === monitor.watch_pid(child.pid), 'same object');
});

test('unwatch', async ({monitor, recorder, make}) => {
    const child = await make(Child);
    monitor.watch_pid(child.pid);
    assert(monitor.unwatch(child.pid), 'was watched');
    assert(!monitor.unwatch(child.pid), 'no longer watched');
    child.exit(0);
    await child.reap();
    await drain();
    assertEqual(recorder.events.length, 0, 'number of signals');
});

await run();
