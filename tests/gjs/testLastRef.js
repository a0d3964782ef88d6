// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// The end of a process object JavaScript let go of while the monitor still
// held it. A wrapper with state of its own is held by a toggle reference:
// when the monitor lets go of the object, GJS's toggle notify runs (the
// wrapper becomes collectable), and the object is finalized at the next
// garbage collection, its weak-ref notifies running then (here a
// GBinding's, which is how the test sees the end). GJS 1.74 runs no
// FinalizationRegistry callback, so no JavaScript runs at the end itself;
// what runs inside the monitor's call is the toggle notify. The monitor
// must go on working, and list only what it watches.

import Gio from 'gi://Gio';
import GLib from 'gi://GLib';
import GObject from 'gi://GObject';
import Procwatch from 'gi://Procwatch?version=1.0';
import System from 'system';

import {
    AssertionError, Child, assert, assertEqual, assertThrowsIOError, drain, run, test,
} from './harness.js';

// What a process's pid is bound to: the binding ends with the process.
const Sink = GObject.registerClass({
    Properties: {
        pid: GObject.ParamSpec.int('pid', '', '', GObject.ParamFlags.READWRITE, -1, GLib.MAXINT32, -1),
    },
}, class Sink extends GObject.Object {});

// Watches @target and keeps nothing of its process object in JavaScript
// but state on its wrapper and a binding from its pid.
function farewell(monitor, target) {
    const held = {sink: new Sink()};
    // In a function of its own: no variable of the test keeps the wrapper.
    (() => {
        const process = monitor.watch_pid(target.pid);
        // State of its own: GJS keeps the wrapper by a toggle reference.
        process.tag = 'held by the monitor alone';
        held.binding = process.bind_property('pid', held.sink, 'pid',
            GObject.BindingFlags.SYNC_CREATE);
    })();
    assertEqual(held.sink.pid, target.pid, 'the bound pid');
    return held;
}

function isGone(held) {
    return held.binding.dup_source() === null;
}

// Collects garbage until the process object has been finalized.
async function collected(held) {
    const deadline = GLib.get_monotonic_time() + 10 * 1000 * 1000;
    while (!isGone(held)) {
        if (GLib.get_monotonic_time() > deadline)
            throw new AssertionError('the process object was never finalized');
        System.gc();
        // eslint-disable-next-line no-await-in-loop
        await drain();
    }
}

// While the monitor holds it, the object lives on.
async function stillHeld(held) {
    System.gc();
    await drain();
    System.gc();
    assert(!isGone(held), 'the monitor holds the object');
}

// The monitor goes on: it lists what it watches, and watches more.
function assertWorking(monitor, target, other) {
    const listed = [];
    for (let i = 0; i < monitor.get_n_items(); i++)
        listed.push(monitor.get_item(i).get_pid());
    assert(!listed.includes(target.pid), `the list model no longer lists ${target.pid}: ${listed}`);
    assertEqual(monitor.watch_pid(other.pid).get_pid(), other.pid, 'the pid watched next');
}

for (const by of ['pid', 'object']) {
    test(`unwatch by ${by} lets go of a process JavaScript holds only weakly`,
        async ({monitor, make}) => {
            const target = await make(Child);
            const other = await make(Child);
            const held = farewell(monitor, target);
            await stillHeld(held);

            if (by === 'pid') {
                assert(monitor.unwatch(target.pid), 'unwatch () found it');
            } else {
                // The only JavaScript reference, dropped right after.
                assert(monitor.unwatch_process(held.binding.dup_source()),
                    'unwatch_process () found it');
            }

            await collected(held);
            assertWorking(monitor, target, other);
        });
}

test('close () lets go of every process', async ({monitor, make}) => {
    const target = await make(Child);
    const other = await make(Child);
    const held = farewell(monitor, target);
    await stillHeld(held);

    monitor.close();

    assertEqual(monitor.get_n_items(), 0, 'items after close ()');
    await collected(held);
    assertThrowsIOError(() => monitor.watch_pid(other.pid), Gio.IOErrorEnum.CLOSED);
});

test('an "exited" handler unwatches a process JavaScript holds only weakly',
    async ({monitor, recorder, make}) => {
        const trigger = await make(Child);
        const target = await make(Child);
        const other = await make(Child);
        const held = farewell(monitor, target);
        const unwatched = [];
        await stillHeld(held);

        monitor.connect('exited', (_monitor, process) => {
            if (process.get_pid() === trigger.pid)
                unwatched.push(monitor.unwatch(target.pid));
        });
        monitor.watch_pid(trigger.pid);
        trigger.exit(0);
        await recorder.waitFor(trigger.pid, 'exited');
        assertEqual(unwatched, [true], 'what unwatch () in the handler returned');

        await collected(held);
        assertWorking(monitor, target, other);
    });

test('the reap lets go of a process JavaScript holds only weakly',
    async ({monitor, recorder, make}) => {
        const target = await make(Child);
        const other = await make(Child);
        const held = farewell(monitor, target);
        await stillHeld(held);

        target.exit(0);
        await target.reap();
        await recorder.waitFor(target.pid, 'reaped');
        // The recorder holds what its handlers were given.
        recorder.events.length = 0;

        await collected(held);
        assertWorking(monitor, target, other);
    });

await run();
