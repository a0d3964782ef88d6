/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * watch-vala: watch.c in Vala; says when processes exit and when they are
 * reaped.
 *
 *   watch-vala PID...
 *
 * The processes need not be children of watch-vala. Build it with
 *   valac --pkg gio-procwatch-1.0 watch.vala -o watch-vala
 */

void print_event (Procwatch.Process process, string event) {
    /* The status of a child is known when it exits; that of another process
     * once it has been reaped (Linux 6.15 and newer). */
    if (process.get_if_exited ()) {
        print ("%d %s, exit code %d\n", process.pid, event, process.get_exit_status ());
    } else if (process.get_if_signaled ()) {
        print ("%d %s, killed by signal %d\n", process.pid, event, process.get_term_sig ());
    } else {
        print ("%d %s\n", process.pid, event);
    }
}

/* wait_async is a Vala async method: it yields until the process exits.
 * It waits on the process object, not on its pid, which may belong to
 * another process by the time the wait starts. */
async void report_exit (Procwatch.Process process) {
    try {
        yield process.wait_async (null);
        print_event (process, "exited");
    } catch (Error error) {
        printerr ("%s\n", error.message);
    }
}

int main (string[] args) {
    if (args.length < 2) {
        printerr ("Usage: %s PID...\n", args[0]);
        return 2;
    }

    var monitor = new Procwatch.ProcessMonitor ();
    var watched = new GenericSet<Procwatch.Process> (direct_hash, direct_equal);

    monitor.reaped.connect ((process) => {
        print_event (process, "reaped");
        watched.remove (process);
    });

    foreach (unowned string arg in args[1:args.length]) {
        Procwatch.Process process;
        try {
            process = monitor.watch_pid (int.parse (arg));
        } catch (Error error) {
            printerr ("%s\n", error.message);
            return 1;
        }

        /* The same pid twice is the same process object. */
        print ("watching %d\n", process.pid);
        watched.add (process);
        report_exit.begin (process);
    }

    /* Signals and the waits arrive from the main context the monitor was
     * created in. */
    while (watched.length > 0) {
        MainContext.default ().iteration (true);
    }
    return 0;
}
