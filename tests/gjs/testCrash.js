// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// Did it crash: Process.get_core_dumped() and the core-dumped property on
// real faults and aborts of an uninstrumented helper, with a dump written
// into the test's directory (RLIMIT_CORE raised in the helper) and without
// one (RLIMIT_CORE 0), for children and non-children.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';

import {Skip, assert, assertEqual, run, test, withTimeout} from './harness.js';

Gio._promisify(Gio.Subprocess.prototype, 'wait_async', 'wait_finish');
Gio._promisify(Gio.DataInputStream.prototype, 'read_line_async', 'read_line_finish');

const CRASH_HELPER = GLib.getenv('PROCWATCH_TEST_CRASH_HELPER');
const SIGNALS = {segv: 11, abort: 6};
const SIGUSR1 = 10;

const decoder = new TextDecoder();
const encoder = new TextEncoder();

function readText(path) {
    const [, contents] = GLib.file_get_contents(path);
    return decoder.decode(contents).trim();
}

function checkCorePattern() {
    const pattern = readText('/proc/sys/kernel/core_pattern');
    // A pipe (|) or socket (@) pattern hands the dump to a program, which
    // RLIMIT_CORE does not stop; an absolute path writes elsewhere.
    if (pattern === '' || '|@'.includes(pattern[0]) || pattern.includes('/')) {
        throw new Skip(`core_pattern is "${pattern}": a dump does not land in the ` +
            'test\'s directory (untested here)');
    }
}

// PIDFD_INFO_EXIT: the status of a reaped non-child, Linux 6.15+.
function kernelKeepsExitStatus() {
    const [major, minor] = readText('/proc/sys/kernel/osrelease').split('.').map(n => parseInt(n));
    return major > 6 || (major === 6 && minor >= 15);
}

function listDir(path) {
    const names = [];
    const enumerator = Gio.File.new_for_path(path).enumerate_children('standard::name', 0, null);
    for (let info; (info = enumerator.next_file(null)) !== null;)
        names.push(info.get_name());
    return names;
}

// The helper, ready to crash on SIGUSR1; with nonChild, its own child
// crashes and the helper reaps it when told.
class Crasher {
    static async spawn(how, core, nonChild) {
        const self = new Crasher();
        self.dir = GLib.dir_make_tmp('procwatch-crash-XXXXXX');
        const argv = [CRASH_HELPER, how, core ? 'core' : 'no-core', self.dir];
        if (nonChild)
            argv.push('--non-child');
        self.subprocess = Gio.Subprocess.new(argv,
            Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE);
        const stdout = new Gio.DataInputStream({baseStream: self.subprocess.get_stdout_pipe()});
        const [line] = await withTimeout(stdout.read_line_async(GLib.PRIORITY_DEFAULT, null),
            'the pid of the crasher');
        self.pid = parseInt(decoder.decode(line));
        assertEqual(self.pid === parseInt(self.subprocess.get_identifier()), !nonChild,
            'the crasher is the child itself');
        return self;
    }

    reapNonChild() {
        this.subprocess.get_stdin_pipe().write_all(encoder.encode('reap\n'), null);
    }

    // The helper's wait status, as GLib got it reaping the helper.
    wait() {
        return withTimeout(this.subprocess.wait_async(null), 'the helper to end');
    }

    async close() {
        this.subprocess.get_stdin_pipe().close(null);
        await this.wait();
        for (const name of listDir(this.dir))
            GLib.unlink(GLib.build_filenamev([this.dir, name]));
        GLib.rmdir(this.dir);
    }
}

// A test of the helper crashing @how ('segv' or 'abort'), its RLIMIT_CORE
// raised (@core) or 0, as a child of the test or not (@nonChild).
function crashTest(how, core, nonChild) {
    return async ({monitor, recorder, make}) => {
        checkCorePattern();
        const crasher = await make(() => Crasher.spawn(how, core, nonChild));
        const process = monitor.watch_pid(crasher.pid);
        const notified = [];
        process.connect('notify::core-dumped', () => {
            notified.push([process.core_dumped, recorder.names(crasher.pid)]);
        });
        assertEqual(process.get_core_dumped(), false, 'core dumped while running');
        assertEqual(process.core_dumped, false, 'core-dumped while running');

        process.send_signal(SIGUSR1);
        const exited = await recorder.waitFor(crasher.pid, 'exited');
        if (nonChild) {
            assert(!exited.hadStatus, 'a non-child\'s status is unknown at "exited"');
            assertEqual(process.get_core_dumped(), false, 'core dumped at "exited"');
            crasher.reapNonChild();
        } else {
            assert(exited.hadStatus, 'a child\'s status is known at "exited"');
            assertEqual(process.get_core_dumped(), core, 'core dumped at "exited"');
        }
        await recorder.waitFor(crasher.pid, 'reaped');

        if (nonChild && !(kernelKeepsExitStatus() && monitor.get_backend() === 'pidfd')) {
            assert(!process.has_status(), 'no status after the reap');
            assertEqual(process.core_dumped, false, 'core-dumped without a status');
            assertEqual(notified.length, 0, 'core-dumped notifications');
        } else {
            assert(process.has_status(), 'status known');
            assertEqual(process.get_term_sig(), SIGNALS[how], 'signal');
            assertEqual(process.get_core_dumped(), core, 'core dumped');
            assertEqual(process.core_dumped, core, 'core-dumped property');
            const before = nonChild ? ['exited'] : [];
            assertEqual(JSON.stringify(notified),
                JSON.stringify(core ? [[true, before]] : []), 'core-dumped notifications');
        }

        if (!nonChild) {
            // What GLib got reaping its child: the same raw status.
            await crasher.wait();
            assertEqual(crasher.subprocess.get_status(), process.get_status(), 'raw status');
        }
        assertEqual(listDir(crasher.dir).length, core ? 1 : 0, 'core files written');
    };
}

test('child, segv, core', crashTest('segv', true, false));
test('child, segv, no core', crashTest('segv', false, false));
test('child, abort, core', crashTest('abort', true, false));
test('child, abort, no core', crashTest('abort', false, false));
test('non-child, segv, core', crashTest('segv', true, true));
test('non-child, segv, no core', crashTest('segv', false, true));
test('non-child, abort, core', crashTest('abort', true, true));
test('non-child, abort, no core', crashTest('abort', false, true));

await run();
