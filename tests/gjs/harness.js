// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// A TAP harness for the GJS tests, and real processes they control.
//
// gjs exits 0 on an exception inside a GLib callback or an unhandled
// rejection, so the tests are one sequence of awaits whose outcome run()
// turns into the exit status itself.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';
import System from 'system';

// GLib 2.80 moved the Unix-only classes to GioUnix, and GJS 1.80+ warns
// (fatally under G_DEBUG=fatal-warnings) when they are reached through Gio;
// GLib 2.74 has no GioUnix. Touching Gio.Unix*Stream only when
// GioUnix is missing keeps both quiet.
const [UnixInputStream, UnixOutputStream] = await import('gi://GioUnix')
    .then(module => [module.default.InputStream, module.default.OutputStream])
    .catch(() => [Gio.UnixInputStream, Gio.UnixOutputStream]);

Gio._promisify(Procwatch.ProcessMonitor.prototype, 'wait_async', 'wait_finish');
Gio._promisify(Procwatch.Process.prototype, 'wait_async', 'wait_finish');
Gio._promisify(Gio.Subprocess.prototype, 'wait_async', 'wait_finish');
Gio._promisify(Gio.Subprocess.prototype, 'communicate_utf8_async', 'communicate_utf8_finish');
Gio._promisify(Gio.DataInputStream.prototype, 'read_line_async', 'read_line_finish');
Gio._promisify(Gio.SocketListener.prototype, 'accept_async', 'accept_finish');

const HELPER = GLib.getenv('PROCWATCH_TEST_HELPER');
const TIMEOUT_MS = 30000;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class AssertionError extends Error {
    constructor(message) {
        super(message);
        this.name = 'AssertionError';
    }
}

// Thrown by a test that cannot run here; reported as a TAP skip.
export class Skip extends Error {
    constructor(reason) {
        super(reason);
        this.name = 'Skip';
    }
}

// What a test throws when this system lacks what it needs: a Skip saying
// so, or where every test must run (PROCWATCH_TEST_REQUIRE_ALL=1, CI) a
// failure.
export function lacking(reason) {
    if (GLib.getenv('PROCWATCH_TEST_REQUIRE_ALL'))
        return new Error(`${reason}, and PROCWATCH_TEST_REQUIRE_ALL is set`);
    return new Skip(reason);
}

export function assert(condition, message = 'assertion failed') {
    if (!condition)
        throw new AssertionError(message);
}

export function assertEqual(actual, expected, what = 'value') {
    const a = JSON.stringify(actual);
    const e = JSON.stringify(expected);
    if (a !== e)
        throw new AssertionError(`${what}: expected ${e}, got ${a}`);
}

export function assertIOError(error, code) {
    assert(error instanceof GLib.Error, `expected a GLib.Error, got ${error}`);
    assert(error.matches(Gio.io_error_quark(), code),
        `expected Gio.IOErrorEnum ${code}, got ${error.domain}:${error.code} ${error.message}`);
}

export function assertThrowsIOError(func, code) {
    let error = null;
    try {
        func();
    } catch (e) {
        error = e;
    }
    assert(error !== null, 'expected an error, got none');
    assertIOError(error, code);
}

export async function rejection(promise) {
    try {
        await promise;
    } catch (e) {
        return e;
    }
    throw new AssertionError('expected the promise to fail');
}

// Fails instead of hanging when @promise does not settle in time.
export function withTimeout(promise, what, ms = TIMEOUT_MS) {
    let id = 0;
    const timeout = new Promise((resolve, reject) => {
        id = GLib.timeout_add(GLib.PRIORITY_DEFAULT, ms, () => {
            id = 0;
            reject(new AssertionError(`timed out after ${ms} ms waiting for ${what}`));
            return GLib.SOURCE_REMOVE;
        });
    });
    return Promise.race([promise, timeout]).finally(() => {
        if (id !== 0)
            GLib.source_remove(id);
    });
}

// Resolves once everything that is ready now has been dispatched.
export function drain() {
    return new Promise(resolve => {
        GLib.idle_add(GLib.PRIORITY_LOW, () => {
            resolve();
            return GLib.SOURCE_REMOVE;
        });
    });
}

async function readLine(stream) {
    const [line] = await withTimeout(stream.read_line_async(GLib.PRIORITY_DEFAULT, null),
        'a line from the helper');
    assert(line !== null, 'the helper closed its output');
    return decoder.decode(line);
}

// A child of the test, spawned without GLib reaping it: the test decides
// when, through a child watch added only then. Made once it runs the helper
// program (it says so): its exec is over, its name is the helper's.
export class Child {
    constructor() {
        const [, pid, stdin, stdout, stderr] = GLib.spawn_async_with_pipes(null,
            [HELPER, 'child-ready'], null, GLib.SpawnFlags.DO_NOT_REAP_CHILD, null);
        GLib.close(stderr);
        const ready = new Gio.DataInputStream({
            baseStream: new UnixInputStream({fd: stdout, closeFd: true}),
        });
        const [line] = ready.read_line(null);
        ready.close(null);
        assert(line !== null && parseInt(decoder.decode(line)) === pid, 'the child started');
        this.pid = pid;
        this._stdin = new UnixOutputStream({fd: stdin, closeFd: true});
        this._ended = false;
        this._reaped = null;
    }

    send(command) {
        this._stdin.write_all(encoder.encode(`${command}\n`), null);
    }

    exit(code) {
        this.send(`exit ${code}`);
        this._ended = true;
    }

    kill(signal) {
        this.send(`kill ${signal}`);
        this._ended = true;
    }

    // Says that the test has ended it by other means (a signal): close()
    // must not write to a pipe nobody reads, which SIGPIPE would punish.
    ended() {
        this._ended = true;
    }

    // Reaps the child and resolves with its wait status.
    reap() {
        if (this._reaped === null) {
            this._reaped = new Promise(resolve => {
                GLib.child_watch_add(GLib.PRIORITY_DEFAULT, this.pid, (pid, status) => {
                    GLib.spawn_close_pid(pid);
                    resolve(status);
                });
            });
        }
        return withTimeout(this._reaped, `child ${this.pid} to be reaped`);
    }

    async close() {
        if (!this._ended)
            this.kill(9);
        this._stdin.close(null);
        await this.reap();
    }
}

// A grandchild of the test: its parent, a helper, exits it and reaps it
// when the test says so.
export class NonChild {
    static async spawn() {
        const self = new NonChild();
        self._parent = Gio.Subprocess.new([HELPER, 'parent'],
            Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE);
        self._stdout = new Gio.DataInputStream({baseStream: self._parent.get_stdout_pipe()});
        self.pid = parseInt(await readLine(self._stdout));
        return self;
    }

    send(command) {
        this._parent.get_stdin_pipe().write_all(encoder.encode(`${command}\n`), null);
    }

    exit(code) {
        this.send(`exit ${code}`);
    }

    kill(signal) {
        this.send(`kill ${signal}`);
    }

    // Has the parent reap the process; resolves with the status it got.
    async reap() {
        this.send('reap');
        return parseInt(await readLine(this._stdout));
    }

    async close() {
        this._parent.get_stdin_pipe().close(null);
        await withTimeout(this._parent.wait_async(null), 'the helper to exit');
    }
}

// A pidfd of @pid, received over a unix socket as a service would send it.
export async function receivePidfd(pid) {
    const name = `gio-procwatch-test-${GLib.uuid_string_random()}`;
    const listener = new Gio.SocketListener();
    listener.add_address(
        Gio.UnixSocketAddress.new_with_type(name, Gio.UnixSocketAddressType.ABSTRACT),
        Gio.SocketType.STREAM, Gio.SocketProtocol.DEFAULT, null);
    const sender = Gio.Subprocess.new([HELPER, 'send-pidfd', name, `${pid}`],
        Gio.SubprocessFlags.NONE);
    try {
        const [connection] = await withTimeout(listener.accept_async(null), 'the pidfd');
        const fd = connection.receive_fd(null);
        connection.close(null);
        return fd;
    } finally {
        listener.close();
        await withTimeout(sender.wait_async(null), 'the pidfd sender to exit');
    }
}

// Every signal of a monitor, with what the process said at the time.
export class Recorder {
    constructor(monitor) {
        this.events = [];
        this._waiters = [];
        for (const name of ['exited', 'reaped']) {
            monitor.connect(name, (_monitor, process) => {
                this.events.push({
                    name,
                    pid: process.get_pid(),
                    process,
                    state: process.state,
                    hadStatus: process.has_status(),
                });
                this._waiters = this._waiters.filter(waiter => !waiter());
            });
        }
    }

    names(pid) {
        return this.events.filter(e => e.pid === pid).map(e => e.name);
    }

    find(pid, name) {
        const matching = this.events.filter(e => e.pid === pid && e.name === name);
        assert(matching.length <= 1, `"${name}" emitted ${matching.length} times for ${pid}`);
        return matching[0] ?? null;
    }

    waitFor(pid, name) {
        const found = new Promise(resolve => {
            const check = () => {
                const event = this.find(pid, name);
                if (event !== null)
                    resolve(event);
                return event !== null;
            };
            if (!check())
                this._waiters.push(check);
        });
        return withTimeout(found, `"${name}" of process ${pid}`);
    }
}

// Runs the GJS test file @path (its own TAP) as pid 2 of a new pid
// namespace with its own /proc, where ns_last_pid forces pid reuse, with
// @env added. Fails with its output if it fails; skips where the namespace
// cannot be made.
export async function runInPidNamespace(path, env = {}) {
    const launcher = new Gio.SubprocessLauncher({
        flags: Gio.SubprocessFlags.STDOUT_PIPE | Gio.SubprocessFlags.STDERR_PIPE,
    });
    for (const [key, value] of Object.entries(env))
        launcher.setenv(key, value, true);
    const gjs = GLib.file_read_link('/proc/self/exe');
    const subprocess = launcher.spawnv([HELPER, 'pid-namespace', gjs, '-m', path]);
    const [stdout, stderr] = await withTimeout(subprocess.communicate_utf8_async(null, null),
        `${path} in a pid namespace`, TIMEOUT_MS * 4);
    if (subprocess.get_if_exited() && subprocess.get_exit_status() === 77) {
        throw new Skip(`cannot create a pid namespace with its own /proc here (${stderr.trim()}): ` +
            'pid reuse cannot be forced');
    }
    assert(subprocess.get_successful(), `${path} failed in a pid namespace:\n${stdout}\n${stderr}`);
    // Its own tests skipped, all of them: so is this.
    const lines = stdout.split('\n');
    if (!lines.some(line => line.startsWith('ok ') && !line.includes('# SKIP')))
        throw new Skip(`skipped in the pid namespace: ${stdout}`);
}

// Writes @text to a file of /proc (no temporary file, no rename).
export function writeProcFile(path, text) {
    const stream = Gio.File.new_for_path(path).open_readwrite(null);
    stream.get_output_stream().write_all(encoder.encode(text), null);
    stream.close(null);
}

// A new Child with exactly the pid @pid, which must be free (in a pid
// namespace of our own: ns_last_pid is writable).
export async function childWithPid(pid) {
    for (let attempt = 0; attempt < 10; attempt++) {
        writeProcFile('/proc/sys/kernel/ns_last_pid', `${pid - 1}`);
        const child = new Child();
        if (child.pid === pid)
            return child;
        // Someone else forked in between: try again.
        await child.close();
    }
    throw new AssertionError(`could not make a process with pid ${pid}`);
}

const tests = [];

// Registers a test: @func gets a context whose make() creates processes
// and a monitor that are cleaned up after the test.
export function test(name, func) {
    tests.push({name, func});
}

class Context {
    constructor() {
        this.monitor = Procwatch.ProcessMonitor.new();
        this.recorder = new Recorder(this.monitor);
        this._processes = [];
        // A function, so that tests can destructure it out of the context.
        this.make = async kind => {
            // Child, NonChild, or a function making one.
            let process;
            if (kind === Child)
                process = new Child();
            else if (kind === NonChild)
                process = await NonChild.spawn();
            else
                process = await kind();
            this._processes.push(process);
            return process;
        };
    }

    async cleanup() {
        for (const process of this._processes.reverse())
            await process.close();
        this.monitor.run_dispose();
    }
}

// Runs the tests in order, printing TAP; exits with the outcome.
export async function run() {
    let failed = 0;

    print(`1..${tests.length}`);
    for (const [index, {name, func}] of tests.entries()) {
        const context = new Context();
        let error = null;
        try {
            await func(context);
        } catch (e) {
            error = e;
        }
        try {
            await context.cleanup();
        } catch (e) {
            error ??= e;
        }

        if (error === null) {
            print(`ok ${index + 1} ${name}`);
        } else if (error instanceof Skip) {
            print(`ok ${index + 1} ${name} # SKIP ${error.message.replace(/\n/g, ' ')}`);
        } else {
            failed++;
            print(`not ok ${index + 1} ${name}`);
            for (const line of `${error}\n${error.stack ?? ''}`.trim().split('\n'))
                print(`# ${line}`);
        }
    }

    System.exit(failed > 0 ? 1 : 0);
}
