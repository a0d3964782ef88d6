#!/usr/bin/python3
# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""The checks run-checks makes inside a running gnome-shell, as its user.

(a) the example extension reports GTK 4 apps that are killed or quit, with
    their title and status; (b) the test extension reports processes that
    exit, are killed, stay zombies for a while, or still run at disable.
After each, disabling the extension gives back every pidfd and epoll fd
its monitor had, and the shell has no error for it. Prints one line per
check, then meson-style "Ok: N" and "Fail: N"; exits 1 on any failure.

Environment: SHELL_PID, SHELL_LOG (the shell's stderr), EXAMPLE_UUID,
TEST_UUID, plus the session's DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR
and WAYLAND_DISPLAY.
"""

import os
import select
import signal
import subprocess
import sys
import time

from gi.repository import Gio, GLib

SHELL_PID = int(os.environ['SHELL_PID'])
SHELL_LOG = os.environ['SHELL_LOG']
EXAMPLE_UUID = os.environ['EXAMPLE_UUID']
TEST_UUID = os.environ['TEST_UUID']
HERE = os.path.dirname(os.path.abspath(__file__))
DEADLINE = 30   # seconds for anything to happen in the shell

passed = []
failed = []


def check(name, ok, detail=''):
    (passed if ok else failed).append(name)
    print(f'{"ok" if ok else "FAIL"}: {name}{": " + detail if detail else ""}', flush=True)
    return ok


def shell_log():
    with open(SHELL_LOG, errors='replace') as log:
        return log.read()


def wait_for(condition, timeout=DEADLINE):
    """Polls condition() until true or the deadline (nothing to await here:
    the shell's log is a file, its extension state a D-Bus property)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def log_has(text):
    return text in shell_log()


def wait_for_log(text):
    return wait_for(lambda: log_has(text))


bus = Gio.bus_get_sync(Gio.BusType.SESSION)


def extensions_call(method, *args):
    signature = '(' + 's' * len(args) + ')'
    reply = bus.call_sync('org.gnome.Shell', '/org/gnome/Shell', 'org.gnome.Shell.Extensions',
                          method, GLib.Variant(signature, args), None,
                          Gio.DBusCallFlags.NONE, 10000, None)
    return reply.unpack()[0]


def extension_state(uuid):
    try:
        return extensions_call('GetExtensionInfo', uuid).get('state')
    except GLib.Error:
        return None


ENABLED = 1   # ExtensionState.ENABLED (43) and .ACTIVE (45 and later)


def set_enabled(uuid, enabled):
    subprocess.run(['gnome-extensions', 'enable' if enabled else 'disable', uuid], check=True)
    return wait_for(lambda: (extension_state(uuid) == ENABLED) == enabled)


def fd_table():
    """The shell's pidfds and epoll fds: fd → (kind, inode)."""
    table = {}
    for fd in os.listdir(f'/proc/{SHELL_PID}/fd'):
        path = f'/proc/{SHELL_PID}/fd/{fd}'
        try:
            target = os.readlink(path)
            inode = os.stat(path).st_ino
        except FileNotFoundError:
            continue
        for kind in ('pidfd', 'eventpoll'):
            if target == f'anon_inode:[{kind}]':
                table[int(fd)] = (kind, inode)
    return table


def counts(table):
    kinds = [kind for kind, _inode in table.values()]
    return {'pidfd': kinds.count('pidfd'), 'eventpoll': kinds.count('eventpoll')}


def monitors(table):
    """The fds of the monitors that watch processes: each epoll fd that
    polls pidfds (its fdinfo names them, with their inodes), and those
    pidfds. The shell opens pidfds and epoll fds of its own too (GNOME 48
    keeps a pidfd per Wayland client until the window is finalized), so a
    count alone cannot tell a monitor's from the shell's."""
    found = set()
    for fd, (kind, inode) in table.items():
        if kind != 'eventpoll':
            continue
        try:
            with open(f'/proc/{SHELL_PID}/fdinfo/{fd}') as fdinfo:
                lines = fdinfo.read().splitlines()
        except FileNotFoundError:
            continue
        targets = set()
        for line in lines:
            words = line.split()
            if words[:1] == ['tfd:'] and words[2:3] == ['events:']:
                target_inode = next(int(word[4:], 16) for word in words if word.startswith('ino:'))
                targets.add((int(words[1]), target_inode))
        pidfds = {(target, ino) for target, ino in targets
                  if table.get(target) == ('pidfd', ino)}
        if pidfds:
            found.add(('eventpoll', fd, inode))
            found.update(('pidfd', target, ino) for target, ino in pidfds)
    return found


def check_watching(what, table, before, watched):
    """While watching: one epoll fd polling one pidfd per watched process."""
    found = monitors(table)
    kinds = [kind for kind, _fd, _inode in found]
    check(f'{what}: one pidfd per watched process, one epoll fd',
          kinds.count('eventpoll') == 1 and kinds.count('pidfd') == watched,
          f'monitor fds {sorted(found)}; shell counts before enable {counts(before)}, '
          f'while watching {counts(table)}')
    return found


def check_extension_left_clean(uuid, before, monitor, exact, after=None):
    """After disable (the fd table then is after): none of the monitor's fds
    is open any more (an fd number taken again has another inode). Where the
    shell opens none of its own meanwhile (exact), its counts are those
    before enable."""
    after = after if after is not None else fd_table()
    still_open = {(kind, fd, inode) for kind, fd, inode in monitor
                  if after.get(fd) == (kind, inode)}
    check(f'{uuid}: disable gives back every pidfd and epoll fd of its monitor',
          monitor and not still_open,
          f'still open {sorted(still_open)}; shell counts before enable {counts(before)}, '
          f'after disable {counts(after)}')
    if exact:
        check(f'{uuid}: the shell has as many pidfds and epoll fds as before enable',
              counts(after) == counts(before), f'{counts(before)}, then {counts(after)}')
    errors = extensions_call('GetExtensionErrors', uuid)
    check(f'{uuid}: no extension errors', errors == [], repr(errors))


def shell_alive():
    try:
        with open(f'/proc/{SHELL_PID}/stat') as stat:
            state = stat.read().rsplit(')', 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != 'Z' and extension_state(TEST_UUID) is not None


def start_app(title):
    app = subprocess.Popen([sys.executable, os.path.join(HERE, 'gtk-app.py'), title],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    ready, _, _ = select.select([app.stdout], [], [], DEADLINE)
    line = app.stdout.readline() if ready else ''
    if line.strip() != 'mapped':
        app.kill()
        app.wait()
        raise RuntimeError(f'the window "{title}" was not shown ({line!r})')
    return app


def check_example():
    """(a) The example extension, on GTK 4 apps started outside the shell."""
    before = fd_table()
    if not check('example: enabled', set_enabled(EXAMPLE_UUID, True),
                 repr(extensions_call('GetExtensionErrors', EXAMPLE_UUID))):
        return
    # Its notifier starts once its module is loaded (GNOME 43: a moment after enable).
    check('example: started', wait_for_log('app-exits: watching the windows of apps'))

    killed = start_app('Procwatch Killed Window')
    quitting = start_app('Procwatch Quitting Window')
    # The windows are shown, so the shell has them, and the example watches
    # their processes.
    monitor = check_watching('example', fd_table(), before, 2)

    killed.kill()
    killed.wait()
    quitting.stdin.write('exit 3\n')
    quitting.stdin.flush()
    quitting.wait()
    for line in (f'app-exits: "Procwatch Killed Window" (pid {killed.pid}) was killed by SIGKILL',
                 f'app-exits: "Procwatch Quitting Window" (pid {quitting.pid}) '
                 'quit with exit code 3'):
        check(f'example reports {line!r}', wait_for_log(line))

    check('example: disabled', set_enabled(EXAMPLE_UUID, False))
    # The shell may keep pidfds of the apps' windows until its garbage
    # collector runs: no exact count here.
    check_extension_left_clean(EXAMPLE_UUID, before, monitor, exact=False)


def check_test_extension():
    """(b) The test extension, on processes of each kind of end."""
    before = fd_table()
    monitor = set()

    def start(*command):
        return subprocess.Popen(command, stdin=subprocess.PIPE, text=True)

    procs = {
        'exit-code': start('sh', '-c', 'read _; exit 3'),
        'killed': start('sleep', '600'),
        'zombie': start('sh', '-c', 'read _; exit 7'),
        'running': start('sleep', '600'),
    }
    try:
        pid_dir = os.path.join(os.environ['XDG_RUNTIME_DIR'], 'procwatch-shell-check')
        os.makedirs(pid_dir, exist_ok=True)
        with open(os.path.join(pid_dir, 'pids'), 'w') as pids:
            for name, proc in procs.items():
                pids.write(f'{name} {proc.pid}\n')

        if not check('test extension: enabled', set_enabled(TEST_UUID, True),
                     repr(extensions_call('GetExtensionErrors', TEST_UUID))):
            return
        if not check('test extension: watching 4 processes',
                     wait_for_log('procwatch-test: watching 4 processes')):
            return
        monitor = check_watching('test extension', fd_table(), before, 4)

        procs['exit-code'].communicate('\n')
        check('exit code 3 reported', wait_for_log('procwatch-test: exit-code reaped: exit 3'))
        # Reaped at once by its parent: "exited" still comes first.
        check('"exited" before "reaped"',
              0 <= shell_log().find('procwatch-test: exit-code exited')
              < shell_log().find('procwatch-test: exit-code reaped'))
        check('wait_async completes on exit',
              wait_for_log('procwatch-test: exit-code wait completed'))

        procs['killed'].send_signal(signal.SIGKILL)
        procs['killed'].wait()
        check('SIGKILL reported', wait_for_log('procwatch-test: killed reaped: signal 9'))
        check('wait_async completes on a kill',
              wait_for_log('procwatch-test: killed wait completed'))

        # A zombie: its parent (this script) reaps it only once the shell
        # has said it exited.
        zombie = procs['zombie']
        zombie.stdin.write('\n')
        zombie.stdin.close()
        exited = (wait_for_log('procwatch-test: zombie exited')
                  and wait_for_log('procwatch-test: zombie wait completed'))
        with open(f'/proc/{zombie.pid}/stat') as stat:
            state = stat.read().rsplit(')', 1)[1].split()[0]
        check('zombie: "exited" and wait_async while a zombie, no "reaped"',
              exited and state == 'Z' and not log_has('procwatch-test: zombie reaped'),
              f'state {state}')
        zombie.wait()
        check('zombie: exit code 7 reported once reaped',
              wait_for_log('procwatch-test: zombie reaped: exit 7'))
    finally:
        disabled = set_enabled(TEST_UUID, False) and wait_for_log('procwatch-test: closed')
        # Before "running" ends: the monitor must have let go of its pidfd.
        after = fd_table()
        for proc in procs.values():
            if proc.returncode is None:
                proc.kill()
                proc.wait()
    check('test extension: disabled', disabled)
    check('running process reported as running at disable',
          log_has('procwatch-test: running still running at disable'))
    check_extension_left_clean(TEST_UUID, before, monitor, exact=True, after=after)


def main():
    if not wait_for(lambda: extension_state(TEST_UUID) is not None
                    and extension_state(EXAMPLE_UUID) is not None):
        check('the shell found both extensions', False)
    else:
        for part in (check_example, check_test_extension):
            try:
                part()
            except Exception as error:  # noqa: BLE001 (one failed part, not the others)
                check(f'{part.__name__} ran to its end', False, repr(error))
        check('the shell is alive after both', shell_alive())
        # An exception in a handler or a promise of an extension (say, in
        # Main.notify) is only logged.
        errors = [line for line in shell_log().splitlines() if 'JS ERROR' in line]
        check('no JS errors in the shell log', not errors, '; '.join(errors[:3]))
    print('extension lines in the shell log:')
    for line in shell_log().splitlines():
        if 'app-exits' in line or 'procwatch-test' in line or 'JS ERROR' in line:
            print('  ' + line)
    if failed:
        print('the end of the shell log:')
        for line in shell_log().splitlines()[-40:]:
            print('  ' + line)
    print(f'Ok: {len(passed)}')
    print(f'Fail: {len(failed)}')
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
