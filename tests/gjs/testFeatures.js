// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// ProcessMonitor.get_features() and the features property: what this
// kernel can tell, as flags of Procwatch.Features.

import GLib from 'gi://GLib';
import Procwatch from 'gi://Procwatch?version=1.0';

import {Child, assert, assertEqual, run, test} from './harness.js';

const Features = Procwatch.Features;
const ALL = Features.REAP_EVENT | Features.NON_CHILD_STATUS | Features.INODE |
    Features.THREADS | Features.CORE_DUMP | Features.FILE_HANDLES;

function kernelAtLeast(major, minor) {
    const [, text] = GLib.file_get_contents('/proc/sys/kernel/osrelease');
    const [foundMajor, foundMinor] = new TextDecoder().decode(text).split('.').map(n => parseInt(n));
    return foundMajor > major || (foundMajor === major && foundMinor >= minor);
}

test('features: flags of Procwatch.Features', ({monitor}) => {
    assertEqual(Features.NONE, 0, 'NONE');
    const features = monitor.get_features();
    assertEqual(features, monitor.features, 'the property');
    assertEqual(features & ~ALL, 0, 'only known flags');
});

test('features: this kernel', ({monitor}) => {
    const features = monitor.get_features();
    if (monitor.get_backend() !== 'pidfd')
        assertEqual(features & ~Features.THREADS, 0, 'without pidfds');
    else if (kernelAtLeast(6, 17) && !(GLib.getenv('PROCWATCH_DEBUG') ?? '').includes('no-pollhup'))
        assertEqual(features, ALL, 'everything, on the kernels this was written on');
});

test('features: never notified', async ({monitor, recorder, make}) => {
    let notified = 0;
    monitor.connect('notify::features', () => notified++);
    const before = monitor.get_features();
    const child = await make(Child);
    monitor.watch_pid(child.pid);
    child.exit(0);
    await recorder.waitFor(child.pid, 'exited');
    await child.reap();
    await recorder.waitFor(child.pid, 'reaped');
    assertEqual(monitor.get_features(), before, 'features after an exit');
    assert(notified === 0, 'no notification');
});

await run();
