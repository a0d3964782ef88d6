// SPDX-License-Identifier: LGPL-2.1-or-later
// SPDX-FileCopyrightText: 2026 The gio-procwatch authors

import GLib from 'gi://GLib';
import Procwatch from 'gi://Procwatch?version=1.0';
import System from 'system';

if (ARGV.length !== 1) {
    printerr(`Usage: gjs -m ${System.programInvocationName} PID`);
    System.exit(2);
}

const loop = new GLib.MainLoop(null, false);
const monitor = Procwatch.ProcessMonitor.new();

monitor.connect('exited', (_monitor, process) => {
    print(`${process.pid} exited`);
});

monitor.connect('reaped', (_monitor, process) => {
    if (process.get_if_exited())
        print(`${process.pid} reaped: exit code ${process.get_exit_status()}`);
    else if (process.get_if_signaled())
        print(`${process.pid} reaped: killed by signal ${process.get_term_sig()}`);
    else
        print(`${process.pid} reaped: status unknown`);
    loop.quit();
});

let process;
try {
    process = monitor.watch_pid(Number(ARGV[0]));
} catch (error) {
    printerr(error.message);
    System.exit(1);
}

print(`watching ${process.pid} with the ${monitor.backend} backend`);
loop.run();
