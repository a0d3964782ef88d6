// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// Process tokens: Process.dup_file_handle() gives a GLib.Bytes that
// ProcessMonitor.watch_file_handle() turns back into the process, and into
// nothing once it is reaped.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {Child, NonChild, Skip, assert, assertEqual, assertThrowsIOError, run, test} from './harness.js';

function requireFileHandles(monitor) {
    if (!(monitor.get_features() & Procwatch.Features.FILE_HANDLES))
        throw new Skip('no pidfs file handles here');
}

for (const [name, kind] of [['child', Child], ['non-child', NonChild]]) {
    test(`file handle: ${name}, round trip`, async ({monitor, recorder, make}) => {
        requireFileHandles(monitor);
        const target = await make(kind);
        const process = monitor.watch_pid(target.pid);
        const token = process.dup_file_handle();
        assertEqual(token.get_size(), 40, 'token size');

        // As D-Bus would carry it: plain bytes, into a new GLib.Bytes.
        const carried = new GLib.Bytes(token.toArray());
        assert(monitor.watch_file_handle(carried) === process, 'the same object');
        const other = Procwatch.ProcessMonitor.new();
        const elsewhere = other.watch_file_handle(carried);
        assert(elsewhere !== process, 'another object on another monitor');
        assertEqual(elsewhere.get_pid(), target.pid, 'pid');
        assertEqual(elsewhere.get_inode(), process.get_inode(), 'inode');
        other.close();

        target.exit(0);
        await recorder.waitFor(target.pid, 'exited');
        await target.reap();
        await recorder.waitFor(target.pid, 'reaped');
        assertThrowsIOError(() => monitor.watch_file_handle(carried), Gio.IOErrorEnum.NOT_FOUND);
    });
}

test('file handle: invalid bytes', ({monitor}) => {
    requireFileHandles(monitor);
    const token = monitor.watch_pid(new Gio.Credentials().get_unix_pid())
        .dup_file_handle().toArray();
    for (const bad of [new Uint8Array(0), token.slice(0, -1), new Uint8Array(token.length)]) {
        assertThrowsIOError(() => monitor.watch_file_handle(new GLib.Bytes(bad)),
            Gio.IOErrorEnum.INVALID_ARGUMENT);
    }
    const otherBoot = token.slice();
    otherBoot[12] ^= 1;
    assertThrowsIOError(() => monitor.watch_file_handle(new GLib.Bytes(otherBoot)),
        Gio.IOErrorEnum.NOT_FOUND);
});

await run();
