/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The library's GError messages come from its own text domain. Run with
 * locale-redirect preloaded, so that the library binds its domain to the
 * catalogues meson built in this tree (PROCWATCH_TEST_LOCALEDIR), and read
 * in German (po/de.po) in a locale named de_DE.UTF-8.
 *
 * No German locale need be installed: the locale is C.UTF-8's data under
 * that name, in a directory of the test's own (LOCPATH), and gettext takes
 * the language from the name. LANGUAGE=de would not do: glibc 2.36
 * (Debian 12) honours it in C.UTF-8, glibc 2.41 (Debian 13) ignores it
 * there as in C.
 */

#include <locale.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include <gio-procwatch/procwatch.h>

/* A message of procwatch-proc-entry.c, which the poll backend gives. */
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

/* A directory holding the locale de_DE.UTF-8, made of C.UTF-8, for
 * LOCPATH; NULL if this system has no C.UTF-8 to make it of. */
static char *
make_german_locale (char **link)
{
  const char *const c_utf8_dirs[] = { "/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8" };
  g_autoptr(GError) error = NULL;
  const char *c_utf8 = NULL;
  char *dir;

  for (gsize i = 0; i < G_N_ELEMENTS (c_utf8_dirs) && c_utf8 == NULL; i++)
    if (g_file_test (c_utf8_dirs[i], G_FILE_TEST_IS_DIR))
      c_utf8 = c_utf8_dirs[i];
  if (c_utf8 == NULL)
    return NULL;

  dir = g_dir_make_tmp ("procwatch-locale-XXXXXX", &error);
  g_assert_no_error (error);
  *link = g_build_filename (dir, "de_DE.UTF-8", NULL);
  g_assert_no_errno (symlink (c_utf8, *link));
  return dir;
}

static void
test_c_locale_untranslated (void)
{
  g_autofree char *message = NULL;
  g_autofree char *expected = NULL;
  GPid pid;

  /* The tests' locale, with a LANGUAGE someone may have set. */
  g_setenv ("LANGUAGE", "de", TRUE);
  g_assert_nonnull (setlocale (LC_ALL, "C"));
  message = watch_gone_message (&pid);
  expected = g_strdup_printf (NO_SUCH_PROCESS, (int) pid);
  g_assert_cmpstr (message, ==, expected);
  g_unsetenv ("LANGUAGE");
}

static void
test_translated (void)
{
  g_autofree char *locale_dir = NULL;
  g_autofree char *locale_link = NULL;
  g_autofree char *message = NULL;
  g_autofree char *expected = NULL;
  const char *translation;
  GPid pid;

  if (g_getenv ("PROCWATCH_TEST_LOCALEDIR") == NULL)
    {
      g_test_skip ("needs the build tree's catalogues: run it with meson test");
      return;
    }
  locale_dir = make_german_locale (&locale_link);
  if (locale_dir == NULL)
    {
      g_test_skip ("no C.UTF-8 locale directory in /usr/lib/locale to name de_DE.UTF-8");
      return;
    }

  g_setenv ("LOCPATH", locale_dir, TRUE);
  g_assert_nonnull (setlocale (LC_ALL, "de_DE.UTF-8"));
  message = watch_gone_message (&pid);

  /* The library has bound its domain by now; this reads the same
   * catalogue, so a reworded translation does not break the test. */
  translation = g_dgettext (GETTEXT_PACKAGE, NO_SUCH_PROCESS);
  g_assert_cmpstr (translation, !=, NO_SUCH_PROCESS);
  expected = g_strdup_printf (g_dgettext (GETTEXT_PACKAGE, NO_SUCH_PROCESS), (int) pid);
  g_assert_cmpstr (message, ==, expected);

  setlocale (LC_ALL, "C");
  g_unsetenv ("LOCPATH");
  g_assert_no_errno (g_unlink (locale_link));
  g_assert_no_errno (g_rmdir (locale_dir));
}

int
main (int   argc,
      char *argv[])
{
  /* Before the library chooses: the message checked is the poll backend's. */
  g_setenv ("PROCWATCH_BACKEND", "poll", TRUE);
  /* It would choose the language instead of the locale's name. */
  g_unsetenv ("LANGUAGE");

  g_test_init (&argc, &argv, NULL);

  g_test_add_func ("/i18n/c-locale-untranslated", test_c_locale_untranslated);
  g_test_add_func ("/i18n/translated", test_translated);

  return g_test_run ();
}
