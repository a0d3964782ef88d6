# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""procwatch speaks the language of its locale: its own messages and the
library's errors that it prints come from the gio-procwatch-1.0 catalogues.

Run by meson with locale-redirect preloaded (LD_PRELOAD), which binds the
domain to the catalogues meson built in the build tree
(PROCWATCH_TEST_LOCALEDIR). German comes through LANGUAGE, which glibc
honours in C.UTF-8 but not in C. The expected text is read from the same
catalogue, so a reworded translation does not break the tests; that it
differs from the English shows the catalogue is used.
"""

import gettext
import os
import subprocess

TOOL = os.environ['PROCWATCH_TOOL']
SECCOMP_EXEC = os.environ['PROCWATCH_SECCOMP_EXEC']
LOCALEDIR = os.environ['PROCWATCH_TEST_LOCALEDIR']
DOMAIN = os.environ['PROCWATCH_GETTEXT_PACKAGE']
DEADLINE = 20.0

german = gettext.translation(DOMAIN, localedir=LOCALEDIR, languages=['de'])


def _(message):
    translation = german.gettext(message)
    assert translation != message, f'po/de.po does not translate {message!r}'
    return translation


def run(*args, locale, wrapper=()):
    proc = subprocess.run([*wrapper, TOOL, *map(str, args)], stdin=subprocess.DEVNULL,
                          env={**os.environ, 'LC_ALL': locale, 'LANGUAGE': 'de'},
                          capture_output=True, timeout=DEADLINE)
    return proc.returncode, proc.stdout.decode('utf-8'), proc.stderr.decode('utf-8')


def gone_pid():
    proc = subprocess.Popen(['true'])
    proc.wait()
    return proc.pid


def test_usage_error_translated():
    code, out, err = run(locale='C.UTF-8')
    assert (code, out) == (1, '')
    usage = _('Usage: %s [OPTION…] PID[:INODE]…\n'
              '       %s [OPTION…] -n PATTERN…\n'
              '       %s [OPTION…] -- COMMAND [ARG…]\n') % (('procwatch',) * 3)
    assert err == ('procwatch: ' + _('no process given') + '\n' + usage +
                   _("Try '%s --help' for more information.\n") % 'procwatch')


def test_c_locale_ignores_language():
    code, out, err = run(locale='C')
    assert (code, out) == (1, '')
    assert err.splitlines()[0] == 'procwatch: no process given'
    assert err.splitlines()[-1] == "Try 'procwatch --help' for more information."


def test_library_error_translated():
    # Without pidfd_open the tool leaves a plain PID to the library, whose
    # /proc backends say why it cannot be watched.
    pid = gone_pid()
    code, out, err = run(pid, locale='C.UTF-8',
                         wrapper=[SECCOMP_EXEC, '--no-pidfd-open=ENOSYS', '--'])
    library = _('Cannot watch process %d: no such process') % pid
    assert (code, out) == (1, '')
    assert err == 'procwatch: ' + _('could not open PID %d: %s') % (pid, library) + '\n'


def test_event_lines_untranslated():
    # Scripts read them: the same words in every language.
    code, out, err = run('--reaped', '--', 'sh', '-c', 'exit 3', locale='C.UTF-8')
    lines = out.splitlines()
    assert (code, err, len(lines)) == (3, '', 2), (out, err)
    pid = lines[0].split(' ')[0]
    assert lines[0] in (f'{pid} exited sh', f'{pid} exited sh exit 3')
    assert lines[1] == f'{pid} reaped sh exit 3'
