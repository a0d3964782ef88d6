# SPDX-License-Identifier: LGPL-2.1-or-later
# SPDX-FileCopyrightText: 2026 The gio-procwatch authors
"""procwatch speaks the language of its locale: its own messages and the
library's errors that it prints come from the gio-procwatch-1.0 catalogues.

Run by meson with locale-redirect preloaded (LD_PRELOAD), which binds the
domain to the catalogues meson built in the build tree
(PROCWATCH_TEST_LOCALEDIR). German comes from the locale's name: C.UTF-8's
data named de_DE.UTF-8 in a directory of the test's (LOCPATH), as in
test-i18n.c, so that no German locale need be installed. The expected text
is read from the same catalogue, so a reworded translation does not break
the tests; that it differs from the English shows the catalogue is used.
"""

import gettext
import os
import subprocess

import pytest

TOOL = os.environ['PROCWATCH_TOOL']
SECCOMP_EXEC = os.environ['PROCWATCH_SECCOMP_EXEC']
LOCALEDIR = os.environ['PROCWATCH_TEST_LOCALEDIR']
DOMAIN = os.environ['PROCWATCH_GETTEXT_PACKAGE']
DEADLINE = 20.0

catalogue = gettext.translation(DOMAIN, localedir=LOCALEDIR, languages=['de'])


def _(message):
    translation = catalogue.gettext(message)
    assert translation != message, f'po/de.po does not translate {message!r}'
    return translation


@pytest.fixture(scope='module')
def german(tmp_path_factory):
    """The environment of a German locale: de_DE.UTF-8, made of C.UTF-8, in
    a LOCPATH directory of its own."""
    c_utf8 = next((path for path in ('/usr/lib/locale/C.utf8', '/usr/lib/locale/C.UTF-8')
                   if os.path.isdir(path)), None)
    if c_utf8 is None:
        pytest.skip('no C.UTF-8 locale directory in /usr/lib/locale to name de_DE.UTF-8')
    locpath = tmp_path_factory.mktemp('locale')
    (locpath / 'de_DE.UTF-8').symlink_to(c_utf8)
    return {'LC_ALL': 'de_DE.UTF-8', 'LOCPATH': str(locpath)}


def run(*args, locale_env, wrapper=()):
    # LANGUAGE from outside would choose the language instead.
    env = {key: value for key, value in os.environ.items() if key != 'LANGUAGE'}
    proc = subprocess.run([*wrapper, TOOL, *map(str, args)], stdin=subprocess.DEVNULL,
                          env={**env, **locale_env}, capture_output=True, timeout=DEADLINE)
    return proc.returncode, proc.stdout.decode('utf-8'), proc.stderr.decode('utf-8')


def test_usage_error_translated(german):
    code, out, err = run(locale_env=german)
    assert (code, out) == (1, '')
    usage = _('Usage: %s [OPTION…] PID[:INODE]…\n'
              '       %s [OPTION…] -n PATTERN…\n'
              '       %s [OPTION…] -- COMMAND [ARG…]\n') % (('procwatch',) * 3)
    assert err == ('procwatch: ' + _('no process given') + '\n' + usage +
                   _("Try '%s --help' for more information.\n") % 'procwatch')


def test_c_locale_ignores_language():
    # The tests' locale, with a LANGUAGE someone may have set.
    code, out, err = run(locale_env={'LC_ALL': 'C', 'LANGUAGE': 'de'})
    assert (code, out) == (1, '')
    assert err.splitlines()[0] == 'procwatch: no process given'
    assert err.splitlines()[-1] == "Try 'procwatch --help' for more information."


def test_library_error_translated(german):
    # Without pidfd_open the library's /proc backend knows no pidfs inodes
    # and says so for a PID:INODE (a process that is gone is reported in
    # waitpid(1)'s words, the C library's text for ESRCH, instead).
    target = subprocess.Popen(['sleep', '300'])
    try:
        code, out, err = run('%d:1' % target.pid, locale_env=german,
                             wrapper=[SECCOMP_EXEC, '--no-pidfd-open=ENOSYS', '--'])
    finally:
        target.kill()
        target.wait()
    library = _('Cannot watch process %d by inode: the %s backend knows no pidfs inodes here') % (
        target.pid, 'poll')
    assert (code, out) == (2, '')
    assert err == 'procwatch: ' + _('could not open PID %d: %s') % (target.pid, library) + '\n'


def test_event_lines_untranslated(german):
    # Scripts read them: the same words in every language.
    code, out, err = run('--reaped', '--', 'sh', '-c', 'exit 3', locale_env=german)
    lines = out.splitlines()
    assert (code, err, len(lines)) == (3, '', 2), (out, err)
    pid = lines[0].split(' ')[0]
    assert lines[0] in (f'{pid} exited sh', f'{pid} exited sh exit 3')
    assert lines[1] == f'{pid} reaped sh exit 3'
