/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The library's GError messages come from its own text domain. Run with
 * locale-redirect preloaded, so that the library binds its domain to the
 * catalogues meson built in this tree (PROCWATCH_TEST_LOCALEDIR), and read
 * in German (po/de.po): through LANGUAGE, which glibc honours in any locale
 * but "C" (C.UTF-8 included) -- the reason every other test runs under
 * LC_ALL=C.
 */

#include <locale.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio-procwatch/procwatch.h>

/* A message of procwatch-proc-handle.c, which the poll backend gives. */
#define NO_SUCH_PROCESS "Cannot watch process %d: no such process"

/* The pid of a child that has exited and been reaped. */
static GPid
gone_pid (void)
{
  pid_t pid = fork ();

  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    _exit (0);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  return pid;
}

/* What watching a process that is gone says, in the current locale. */
static char *
watch_gone_message (GPid *pid)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  g_assert_cmpstr (procwatch_process_monitor_get_backend (monitor), ==, "poll");
  *pid = gone_pid ();
  process = procwatch_process_monitor_watch_pid (monitor, *pid, &error);
  g_assert_null (process);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  return g_strdup (error->message);
}

static void
test_c_locale_untranslated (void)
{
  g_autofree char *message = NULL;
  g_autofree char *expected = NULL;
  GPid pid;

  g_assert_nonnull (setlocale (LC_ALL, "C"));
  message = watch_gone_message (&pid);
  expected = g_strdup_printf (NO_SUCH_PROCESS, (int) pid);
  g_assert_cmpstr (message, ==, expected);
}

static void
test_translated (void)
{
  g_autofree char *message = NULL;
  g_autofree char *expected = NULL;
  const char *translation;
  GPid pid;

  if (g_getenv ("PROCWATCH_TEST_LOCALEDIR") == NULL)
    {
      g_test_skip ("needs the build tree's catalogues: run it with meson test");
      return;
    }
  if (setlocale (LC_ALL, "C.UTF-8") == NULL)
    {
      g_test_skip ("no C.UTF-8 locale here");
      return;
    }

  message = watch_gone_message (&pid);

  /* The library has bound its domain by now; this reads the same
   * catalogue, so a reworded translation does not break the test. */
  translation = g_dgettext (GETTEXT_PACKAGE, NO_SUCH_PROCESS);
  g_assert_cmpstr (translation, !=, NO_SUCH_PROCESS);
  expected = g_strdup_printf (g_dgettext (GETTEXT_PACKAGE, NO_SUCH_PROCESS), (int) pid);
  g_assert_cmpstr (message, ==, expected);

  setlocale (LC_ALL, "C");
}

int
main (int   argc,
      char *argv[])
{
  /* Set before the library reads them: the message checked is the poll
   * backend's, and the language that of po/de.po. */
  g_setenv ("PROCWATCH_BACKEND", "poll", TRUE);
  g_setenv ("LANGUAGE", "de", TRUE);

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/i18n/c-locale-untranslated", test_c_locale_untranslated);
  g_test_add_func ("/i18n/translated", test_translated);

  return g_test_run ();
}
