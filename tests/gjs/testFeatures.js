// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// ProcessMonitor.get_features() and the features property: what this
// kernel can tell, as flags of Procwatch.Features.

import GLib from 'gi://GLib';
import Procwatch from 'gi://Procwatch?version=1.0';

import {Child, Skip, assert, assertEqual, run, test} from './harness.js';

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

// Flags from nicks separated by commas.
function parseFeatures(text) {
    return text.split(',').filter(nick => nick !== '')
        .reduce((features, nick) => features | Features[nick.replace(/-/g, '_').toUpperCase()], 0);
}

// As test-features and test_features.py: PROCWATCH_TEST_EXPECT_FEATURES (all,
// unset) on a kernel with everything, PROCWATCH_TEST_KERNEL_FEATURES where
// .ci/kernel-lane says what the pidfds of its kernel give.
test('features: this kernel', ({monitor}) => {
    const features = monitor.get_features();
    if (monitor.get_backend() !== 'pidfd') {
        assertEqual(features, Features.THREADS, 'the /proc backends: threads alone');
        return;
    }
    const expectedText = GLib.getenv('PROCWATCH_TEST_EXPECT_FEATURES');
    let expected = expectedText === null ? ALL : parseFeatures(expectedText);
    const kernelText = GLib.getenv('PROCWATCH_TEST_KERNEL_FEATURES');
    if (kernelText !== null)
        expected &= parseFeatures(kernelText);
    else if (!kernelAtLeast(6, 17))
        throw new Skip('PROCWATCH_TEST_KERNEL_FEATURES is not set: the expected features are those of Linux 6.17 and newer (.ci/kernel-lane sets it for older ones)');
    assertEqual(features, expected, 'the features');
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
