// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors
//
// watch_dbus_sender_async() from GJS: a D-Bus service in the test process,
// on a private message bus the test starts (dbus-daemon, and dbus-broker
// where it is installed; procwatch-dbus-test-bus starts either), watches a
// real caller (procwatch-dbus-test-client) until it exits.

import GLib from 'gi://GLib';
import Gio from 'gi://Gio';
import Procwatch from 'gi://Procwatch?version=1.0';

import {
    Skip, assert, assertEqual, rejection, run, test, withTimeout,
} from './harness.js';

Gio._promisify(Procwatch.ProcessMonitor.prototype, 'watch_dbus_sender_async',
    'watch_dbus_sender_finish');

const CLIENT = GLib.getenv('PROCWATCH_TEST_DBUS_CLIENT');
const BUS = GLib.getenv('PROCWATCH_TEST_DBUS_BUS');

const INTERFACE = `<node>
  <interface name='org.gioprocwatch.Test'>
    <method name='Hello'>
      <arg type='u' name='pid' direction='in'/>
      <arg type='t' name='inode' direction='in'/>
    </method>
  </interface>
</node>`;

async function readLine(subprocess) {
    const lines = new Gio.DataInputStream({
        base_stream: subprocess.get_stdout_pipe(),
        close_base_stream: false,
        buffer_size: 1,
    });
    const [line] = await withTimeout(lines.read_line_async(GLib.PRIORITY_DEFAULT, null), 'a line');
    assert(line !== null, 'no line');
    return new TextDecoder().decode(line);
}

// A private bus of @implementation, this process's connection to it, and a
// service on it that answers Hello and keeps each call's sender; stopped by
// close(). dbus-broker is not required: without it, its cases skip, unless
// PROCWATCH_TEST_REQUIRE_DBUS_BROKER is set (CI).
async function startBus(implementation) {
    if (CLIENT === null || BUS === null)
        throw new Skip('needs the test client and bus');
    if (GLib.find_program_in_path(implementation) === null) {
        if (implementation === 'dbus-broker' &&
            GLib.getenv('PROCWATCH_TEST_REQUIRE_DBUS_BROKER') !== null)
            throw new Error(
                'no dbus-broker in PATH, and PROCWATCH_TEST_REQUIRE_DBUS_BROKER is set');
        throw new Skip(`no ${implementation} in PATH`);
    }
    const dir = GLib.dir_make_tmp('procwatch-bus-XXXXXX');
    const daemon = Gio.Subprocess.new([BUS, implementation, dir], Gio.SubprocessFlags.STDOUT_PIPE);
    const address = (await readLine(daemon)).trim();
    const connection = Gio.DBusConnection.new_for_address_sync(address,
        Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT |
        Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION, null, null);

    const calls = [];
    let onCall = () => {};
    const service = Gio.DBusExportedObject.wrapJSObject(INTERFACE, {
        HelloAsync([pid], invocation) {
            calls.push({sender: invocation.get_sender(), pid});
            invocation.return_value(null);
            onCall();
        },
    });
    service.export(connection, '/org/gioprocwatch/Test');

    return {
        address,
        connection,
        calls,
        // Resolves with the first call.
        firstCall: () => withTimeout(new Promise(resolve => {
            onCall = () => resolve(calls[0]);
            if (calls.length > 0)
                resolve(calls[0]);
        }), 'the Hello call'),
        async close() {
            service.unexport();
            connection.close_sync(null);
            daemon.send_signal(15);
            await withTimeout(daemon.wait_async(null), 'the bus');
            // dbus-daemon's configuration; the broker has none.
            GLib.unlink(`${dir}/bus.conf`);
            GLib.unlink(`${dir}/bus`);
            GLib.rmdir(dir);
        },
    };
}

function spawnCaller(bus) {
    return Gio.Subprocess.new([CLIENT, bus.address, bus.connection.get_unique_name(), 'call'],
        Gio.SubprocessFlags.STDIN_PIPE | Gio.SubprocessFlags.STDOUT_PIPE);
}

for (const implementation of ['dbus-daemon', 'dbus-broker']) {
    test(`${implementation}: await watch_dbus_sender_async, then "exited"`,
        async ({monitor, recorder}) => {
        const bus = await startBus(implementation);
        try {
            const caller = spawnCaller(bus);
            const {sender, pid} = await bus.firstCall();
            assertEqual(await readLine(caller), 'called', 'the caller');
            assertEqual(String(pid), caller.get_identifier(), 'the caller\'s pid');

            const process = await withTimeout(
                monitor.watch_dbus_sender_async(bus.connection, sender, null), 'the watch');
            assertEqual(process.get_pid(), pid, 'pid');
            assertEqual(process.state, Procwatch.ProcessState.RUNNING, 'running');

            caller.get_stdin_pipe().close(null);
            const exited = await recorder.waitFor(pid, 'exited');
            assert(exited.process === process, 'the watched process');
            await withTimeout(caller.wait_async(null), 'the caller');
            assertEqual(caller.get_exit_status(), 0, 'the caller\'s status');
        } finally {
            await bus.close();
        }
    });

    test(`${implementation}: a caller gone from the bus: NAME_HAS_NO_OWNER`, async ({monitor}) => {
        const bus = await startBus(implementation);
        try {
            const caller = spawnCaller(bus);
            const {sender} = await bus.firstCall();
            assertEqual(await readLine(caller), 'called', 'the caller');

            // The bus, not only the test, has to know the caller is gone.
            const vanished = new Promise(resolve => {
                const watch = Gio.bus_watch_name_on_connection(bus.connection, sender,
                    Gio.BusNameWatcherFlags.NONE, null, () => {
                        Gio.bus_unwatch_name(watch);
                        resolve();
                    });
            });
            caller.get_stdin_pipe().close(null);
            await withTimeout(vanished, `${sender} to leave the bus`);

            const error = await rejection(
                monitor.watch_dbus_sender_async(bus.connection, sender, null));
            assert(error instanceof GLib.Error, `a GLib.Error, not ${error}`);
            assert(error.matches(Gio.DBusError, Gio.DBusError.NAME_HAS_NO_OWNER),
                `NAME_HAS_NO_OWNER, not ${error.message}`);
            assertEqual(monitor.get_n_items(), 0, 'nothing watched');
            await withTimeout(caller.wait_async(null), 'the caller');
        } finally {
            await bus.close();
        }
    });
}

await run();
