// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// Watching cgroups from GJS: cgroups the test makes under the cgroup2
// mount (found in /proc/self/mountinfo), real processes moved into them;
// wait_empty_async() awaited through Gio._promisify and with a callback.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {
    assert, assertEqual, assertIOError, drain, lacking, rejection, run, test, withTimeout,
    writeProcFile,
} from './harness.js';

Gio._promisify(Procwatch.Cgroup.prototype, 'wait_empty_async', 'wait_empty_finish');

const decoder = new TextDecoder();

// [mount point, root] of the first cgroup2 mount, or null.
function cgroup2Mount() {
    const [, bytes] = GLib.file_get_contents('/proc/self/mountinfo');
    const unescape = s => s.replace(/\\([0-7]{3})/g, (_, octal) => String.fromCharCode(parseInt(octal, 8)));
    for (const line of decoder.decode(bytes).split('\n')) {
        const fields = line.split(' ');
        const separator = fields.indexOf('-');
        if (separator > 0 && fields[separator + 1] === 'cgroup2')
            return [unescape(fields[4]), unescape(fields[3])];
    }
    return null;
}

// A cgroup made for one test, and the processes the test puts in it.
class TestCgroup {
    constructor(mountPoint, root, name) {
        this.absolute = `${mountPoint}/${name}`;
        this.relative = `${root.replace(/\/$/, '')}/${name}`;
        Gio.File.new_for_path(this.absolute).make_directory(null);
        this.processes = [];
    }

    // A process that sleeps until killed, moved into this cgroup.
    spawn() {
        const process = Gio.Subprocess.new(['sleep', 'infinity'], Gio.SubprocessFlags.NONE);
        this.processes.push(process);
        writeProcFile(`${this.absolute}/cgroup.procs`, process.get_identifier());
        return process;
    }

    // cgroup.kill (5.14+) ends whatever is left; then the empty cgroup goes.
    async remove() {
        try {
            writeProcFile(`${this.absolute}/cgroup.kill`, '1');
        } catch {
            this.processes.forEach(process => process.force_exit());
        }
        for (const process of this.processes)
            await withTimeout(process.wait_async(null), 'a process of the cgroup');
        Gio.File.new_for_path(this.absolute).delete(null);
    }
}

function processCgroup(pid) {
    const [, bytes] = GLib.file_get_contents(`/proc/${pid}/cgroup`);
    const line = decoder.decode(bytes).split('\n').find(l => l.startsWith('0::'));
    return line?.slice(3) ?? null;
}

// Runs @func with a cgroup of its own below one for this test, removed after.
function cgroupTest(name, func) {
    test(name, async context => {
        const mount = cgroup2Mount();
        if (mount === null)
            throw lacking('cgroup v2 is not mounted here');
        let base;
        try {
            base = new TestCgroup(mount[0], mount[1], `gio-procwatch-gjs-${new Gio.Credentials().get_unix_pid()}`);
        } catch (e) {
            throw lacking(`cannot make a cgroup under ${mount[0]}: ${e.message}`);
        }
        const directory = new TestCgroup(base.absolute, base.relative, 'app');
        try {
            await func({...context, directory});
        } finally {
            await directory.remove();
            await base.remove();
        }
    });
}

cgroupTest('watch_cgroup: populated, cgroup-emptied once, get_cgroup', async ({monitor, directory}) => {
    const first = directory.spawn();
    const cgroup = monitor.watch_cgroup(directory.relative);
    assert(cgroup instanceof Procwatch.Cgroup, 'a Procwatch.Cgroup');
    assertEqual(cgroup.get_path(), directory.relative, 'path');
    assert(cgroup.populated, 'populated');
    assert(monitor.watch_cgroup(directory.absolute) === cgroup, 'the same object by either path');

    const emptied = [];
    const notified = [];
    monitor.connect('cgroup-emptied', (_monitor, which) => {
        assert(!which.populated, 'empty when signalled');
        emptied.push(which);
    });
    cgroup.connect('notify::populated', () => notified.push(cgroup.populated));

    const pid = Number(first.get_identifier());
    const process = monitor.watch_pid(pid);
    assertEqual(processCgroup(pid), directory.relative, 'the kernel\'s view');
    assertEqual(process.get_cgroup(), directory.relative, 'get_cgroup');
    assertEqual(process.cgroup, directory.relative, 'property cgroup');

    const second = directory.spawn();
    first.force_exit();
    await withTimeout(first.wait_async(null), 'the first process');
    await drain();
    assertEqual(emptied.length, 0, 'not empty while one is left');

    const empty = new Promise(resolve => monitor.connect('cgroup-emptied', resolve));
    second.force_exit();
    await withTimeout(empty, 'cgroup-emptied');
    await withTimeout(second.wait_async(null), 'the second process');
    await drain();
    assert(emptied.length === 1 && emptied[0] === cgroup, 'cgroup-emptied once');
    assertEqual(notified, [false], 'notify::populated');

    assert(monitor.unwatch_cgroup(cgroup), 'unwatched');
    assert(!monitor.unwatch_cgroup(cgroup), 'unwatched once');
});

cgroupTest('await wait_empty_async', async ({monitor, directory}) => {
    const child = directory.spawn();
    const cgroup = monitor.watch_cgroup(directory.relative);
    const waiting = cgroup.wait_empty_async(null);
    child.force_exit();
    assertEqual(await withTimeout(waiting, 'wait_empty_async'), true, 'wait_empty_finish');
    assert(!cgroup.populated, 'empty');

    // Already empty: completes at once.
    assertEqual(await withTimeout(cgroup.wait_empty_async(null), 'an empty cgroup'), true, 'empty');

    // Cancelled.
    directory.spawn();
    const populated = new Promise(resolve => cgroup.connect('notify::populated', resolve));
    await withTimeout(populated, 'populated');
    const cancellable = new Gio.Cancellable();
    const cancelled = cgroup.wait_empty_async(cancellable);
    cancellable.cancel();
    assertIOError(await rejection(cancelled), Gio.IOErrorEnum.CANCELLED);
});

cgroupTest('wait_empty_async with a callback', async ({monitor, directory}) => {
    const child = directory.spawn();
    const cgroup = monitor.watch_cgroup(directory.relative);
    const done = new Promise((resolve, reject) => {
        // The unpromisified form: a callback and wait_empty_finish().
        Procwatch.Cgroup.prototype.wait_empty_async.call(cgroup, null, (source, result) => {
            try {
                resolve(source.wait_empty_finish(result));
            } catch (e) {
                reject(e);
            }
        });
    });
    child.force_exit();
    assertEqual(await withTimeout(done, 'the callback'), true, 'wait_empty_finish');
});

cgroupTest('watch_cgroup errors', ({monitor, directory}) => {
    let error = null;
    try {
        monitor.watch_cgroup(`${directory.relative}/not-there`);
    } catch (e) {
        error = e;
    }
    assertIOError(error, Gio.IOErrorEnum.NOT_FOUND);
});

await run();
