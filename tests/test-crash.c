/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Did it crash: real processes that fault or abort, with and without a core
 * dump, as children and as non-children, on every backend (tests/meson.build
 * runs this program once per backend variant). The crashing process is
 * procwatch-crash-helper (crash-helper.c), an uninstrumented program of its
 * own, whose path comes in PROCWATCH_TEST_CRASH_HELPER.
 *
 * Nothing of the system is changed: the helper raises its own RLIMIT_CORE
 * and works in a scratch directory of the test, where a `core_pattern` of
 * `core` (or any other pattern naming a file relative to the working
 * directory) makes the kernel write the dump. A pipe or socket pattern
 * (systemd-coredump) is machine-wide and not tested here: the tests skip.
 */

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "procwatch-test-util.h"

typedef struct
{
  const char *how;         /* "segv" or "abort" */
  int signal;              /* what the kernel reports for it */
  gboolean core;           /* RLIMIT_CORE raised, or 0 */
  gboolean non_child;
} CrashCase;

/* What the test saw of one process, in order. */
typedef struct
{
  guint core_dumped_notifies;
  guint state_notifies;
  /* At the "core-dumped" notification: state notifications and signals
   * so far. */
  guint state_notifies_at_notify;
  gboolean exited_at_notify;
  gboolean reaped_at_notify;
  gboolean exited;
  gboolean reaped;
  gboolean had_status_at_exited;
  gboolean core_dumped_at_exited;
} Seen;

static gboolean
core_pattern_writes_here (char **why)
{
  g_autofree char *pattern = NULL;

  if (!g_file_get_contents ("/proc/sys/kernel/core_pattern", &pattern, NULL, NULL))
    {
      *why = g_strdup ("/proc/sys/kernel/core_pattern cannot be read");
      return FALSE;
    }
  g_strchomp (pattern);

  /* A pipe (|) or socket (@) pattern hands the dump to a program, which
   * RLIMIT_CORE does not stop; an absolute path writes elsewhere. */
  if (pattern[0] == '\0' || pattern[0] == '|' || pattern[0] == '@' || strchr (pattern, '/') != NULL)
    {
      *why = g_strdup_printf ("core_pattern is \"%s\": a dump does not land in the "
                              "test's directory (untested here)", pattern);
      return FALSE;
    }

  return TRUE;
}

static guint
count_core_files (const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;
  guint n = 0;

  g_assert_nonnull (listing);
  while ((name = g_dir_read_name (listing)) != NULL)
    n++;

  return n;
}

static void
remove_dir (const char *dir)
{
  g_autoptr(GDir) listing = g_dir_open (dir, 0, NULL);
  const char *name;

  while (listing != NULL && (name = g_dir_read_name (listing)) != NULL)
    {
      g_autofree char *path = g_build_filename (dir, name, NULL);

      g_assert_no_errno (g_unlink (path));
    }
  g_assert_no_errno (g_rmdir (dir));
}

static void
on_core_dumped_notify (ProcwatchProcess *process,
                       GParamSpec       *pspec,
                       Seen             *seen)
{
  seen->core_dumped_notifies++;
  seen->state_notifies_at_notify = seen->state_notifies;
  seen->exited_at_notify = seen->exited;
  seen->reaped_at_notify = seen->reaped;
  /* Every status property is in place before the first is notified. */
  g_assert_true (procwatch_process_has_status (process));
  g_assert_true (procwatch_process_get_if_signaled (process));
}

static void
on_state_notify (ProcwatchProcess *process,
                 GParamSpec       *pspec,
                 Seen             *seen)
{
  seen->state_notifies++;
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Seen                    *seen)
{
  seen->exited = TRUE;
  seen->had_status_at_exited = procwatch_process_has_status (process);
  seen->core_dumped_at_exited = procwatch_process_get_core_dumped (process);
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Seen                    *seen)
{
  seen->reaped = TRUE;
}

/* Starts the helper; returns the pid of the process that will crash, and
 * the helper's own pid and stdin in @helper and @helper_stdin. */
static GPid
spawn_crasher (const CrashCase *test_case,
               const char      *dir,
               GPid            *helper,
               int             *helper_stdin)
{
  const char *helper_path = g_getenv ("PROCWATCH_TEST_CRASH_HELPER");
  const char *argv[] = {
    helper_path, test_case->how, test_case->core ? "core" : "no-core", dir,
    test_case->non_child ? "--non-child" : NULL, NULL,
  };
  g_autoptr(GError) error = NULL;
  char line[32] = { 0 };
  gsize length = 0;
  int helper_stdout;
  gssize n;

  g_assert_nonnull (helper_path);
  g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                            NULL, NULL, helper, helper_stdin, &helper_stdout, NULL, &error);
  g_assert_no_error (error);

  while (length < sizeof line - 1 && strchr (line, '\n') == NULL)
    {
      n = read (helper_stdout, line + length, sizeof line - 1 - length);
      if (n < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (n, >, 0);
      length += n;
    }
  close (helper_stdout);

  return (GPid) g_ascii_strtoll (line, NULL, 10);
}

static void
test_crash (gconstpointer data)
{
  const CrashCase *test_case = data;
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *dir = NULL;
  g_autofree char *why = NULL;
  GMainContext *context = g_main_context_default ();
  Seen seen = { 0 };
  gboolean core_dumped_property;
  GPid helper, crasher;
  int helper_stdin;
  int status;
  guint fds_before;

  if (!core_pattern_writes_here (&why))
    {
      g_test_skip (why);
      return;
    }

  fds_before = test_count_open_fds ();
  dir = g_dir_make_tmp ("procwatch-crash-XXXXXX", &error);
  g_assert_no_error (error);

  crasher = spawn_crasher (test_case, dir, &helper, &helper_stdin);
  g_assert_cmpint (crasher == helper, ==, !test_case->non_child);

  process = procwatch_process_monitor_watch_pid (monitor, crasher, &error);
  g_assert_no_error (error);
  g_signal_connect (process, "notify::core-dumped", G_CALLBACK (on_core_dumped_notify), &seen);
  g_signal_connect (process, "notify::state", G_CALLBACK (on_state_notify), &seen);
  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), &seen);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), &seen);
  g_assert_false (procwatch_process_get_core_dumped (process));

  g_assert_no_errno (kill (crasher, SIGUSR1));
  test_run_until (context, &seen.exited);

  if (!test_case->non_child)
    {
      /* A child's status is known with "exited", on every kernel. */
      g_assert_true (seen.had_status_at_exited);
      g_assert_cmpint (seen.core_dumped_at_exited, ==, test_case->core);

      /* What the kernel tells the parent, apart from the library. */
      g_assert_cmpint (waitpid (crasher, &status, 0), ==, crasher);
      g_assert_true (WIFSIGNALED (status));
      g_assert_cmpint (!!WCOREDUMP (status), ==, test_case->core);
      g_assert_cmpint (procwatch_process_get_status (process), ==, status);
    }
  else
    {
      /* Nobody tells a non-child's status before its reap. */
      g_assert_false (seen.had_status_at_exited);
      g_assert_false (seen.core_dumped_at_exited);

      g_assert_cmpint (write (helper_stdin, "reap\n", 5), ==, 5);
    }

  test_run_until (context, &seen.reaped);

  if (!test_case->non_child || test_status_known_after_reap (monitor))
    {
      g_assert_true (procwatch_process_has_status (process));
      g_assert_true (procwatch_process_get_if_signaled (process));
      g_assert_cmpint (procwatch_process_get_term_sig (process), ==, test_case->signal);
      g_assert_cmpint (procwatch_process_get_core_dumped (process), ==, test_case->core);
      g_assert_cmpint (!!WCOREDUMP (procwatch_process_get_status (process)), ==, test_case->core);
      /* Notified once, with the status: before the state it came with
       * (exited for a child, reaped for others) and before the signal. */
      g_assert_cmpuint (seen.core_dumped_notifies, ==, test_case->core ? 1 : 0);
      if (test_case->core)
        {
          g_assert_cmpuint (seen.state_notifies_at_notify, ==, test_case->non_child ? 1 : 0);
          g_assert_cmpint (seen.exited_at_notify, ==, test_case->non_child);
          g_assert_false (seen.reaped_at_notify);
        }
    }
  else
    {
      /* Before Linux 6.15, without PIDFD_GET_INFO, or on a backend that
       * holds no pidfd for a process watched by pid: not known, and so not
       * claimed. */
      g_assert_false (procwatch_process_has_status (process));
      g_assert_false (procwatch_process_get_core_dumped (process));
      g_assert_cmpuint (seen.core_dumped_notifies, ==, 0);
    }

  g_object_get (process, "core-dumped", &core_dumped_property, NULL);
  g_assert_cmpint (core_dumped_property, ==, procwatch_process_get_core_dumped (process));

  /* The dump itself: written with RLIMIT_CORE raised, not with 0. */
  g_assert_cmpuint (count_core_files (dir), ==, test_case->core ? 1 : 0);

  if (test_case->non_child)
    {
      g_assert_cmpint (waitpid (helper, &status, 0), ==, helper);
      g_assert_true (WIFEXITED (status));
      g_assert_cmpint (WEXITSTATUS (status), ==, 0);
    }
  close (helper_stdin);
  remove_dir (dir);

  g_signal_handlers_disconnect_by_data (monitor, &seen);
  g_signal_handlers_disconnect_by_data (process, &seen);
  g_clear_object (&process);
  g_clear_object (&monitor);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
}

int
main (int    argc,
      char **argv)
{
  static const CrashCase cases[] = {
    { "segv", SIGSEGV, TRUE, FALSE },
    { "segv", SIGSEGV, FALSE, FALSE },
    { "abort", SIGABRT, TRUE, FALSE },
    { "abort", SIGABRT, FALSE, FALSE },
    { "segv", SIGSEGV, TRUE, TRUE },
    { "segv", SIGSEGV, FALSE, TRUE },
    { "abort", SIGABRT, TRUE, TRUE },
    { "abort", SIGABRT, FALSE, TRUE },
  };
  gsize i;

  test_init (&argc, &argv);

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *path = g_strdup_printf ("/crash/%s/%s/%s",
                                               cases[i].non_child ? "non-child" : "child",
                                               cases[i].how,
                                               cases[i].core ? "core" : "no-core");

      g_test_add_data_func (path, &cases[i], test_crash);
    }

  return g_test_run ();
}
