/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Pid reuse, forced for real: in a private pid namespace, ns_last_pid makes
 * a new process take the pid of a watched process that has just been reaped.
 * Nothing about the new process may be reported as the old one's, and a new
 * watch on the pid must see the new process.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

/* A child that exits with the code written to its pipe. */
typedef struct
{
  GPid pid;
  int control;
} Child;

static Child
start_child (void)
{
  Child child;
  int control[2];

  g_assert_no_errno (pipe2 (control, O_CLOEXEC));
  child.pid = fork ();
  g_assert_cmpint (child.pid, >=, 0);
  if (child.pid == 0)
    {
      unsigned char code = 0;

      close (control[1]);
      if (read (control[0], &code, 1) != 1)
        _exit (0);
      _exit (code);
    }

  close (control[0]);
  child.control = control[1];
  return child;
}

static void
end_child (Child        *child,
           unsigned char code)
{
  g_assert_cmpint (write (child->control, &code, 1), ==, 1);
  close (child->control);
}

/* Ends @child and reaps it, with no status kept. */
static void
end_and_reap_child (Child        *child,
                    unsigned char code)
{
  GPid pid = child->pid;

  end_child (child, code);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
}

/* A new child with exactly the pid @pid, which must be free. */
static Child
start_child_with_pid (GPid pid)
{
  guint attempt;

  for (attempt = 0; attempt < 10; attempt++)
    {
      Child child;

      test_set_next_pid (pid);
      child = start_child ();
      if (child.pid == pid)
        return child;

      /* Someone else forked in between: try again. */
      end_child (&child, 0);
      g_assert_cmpint (waitpid (child.pid, NULL, 0), ==, child.pid);
    }

  g_error ("Could not make a process with pid %d", (int) pid);
}

static void
reuse_after_watch_by_pid (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) old_process = NULL;
  g_autoptr(ProcwatchProcess) new_process = NULL;
  g_autoptr(GError) error = NULL;
  Child old_child = start_child ();
  Child new_child;
  TestEvent *event;
  GPid pid = old_child.pid;
  int status;

  old_process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);

  /* Exit, reap and reuse, all before the monitor's source runs. */
  end_child (&old_child, 3);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  new_child = start_child_with_pid (pid);
  g_test_message ("pid %d now belongs to a new process", (int) pid);

  /* Its old watch's reap is still pending: the pid is another process's. */
  new_process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  g_assert_true (new_process != old_process);
  g_assert_cmpint (procwatch_process_get_state (new_process), ==, PROCWATCH_PROCESS_STATE_RUNNING);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
  g_assert_cmpuint (recorder->events->len, ==, 2);
  g_assert_true (g_array_index (recorder->events, TestEvent, 0).process == old_process);
  g_assert_true (g_array_index (recorder->events, TestEvent, 1).process == old_process);
  if (procwatch_process_has_status (old_process))
    g_assert_cmpint (procwatch_process_get_exit_status (old_process), ==, 3);
  g_assert_cmpint (procwatch_process_get_state (new_process), ==, PROCWATCH_PROCESS_STATE_RUNNING);

  /* The new process is watched on its own. */
  end_child (&new_child, 9);
  test_run_until_count (NULL, &recorder->n_exited, 2);
  event = &g_array_index (recorder->events, TestEvent, 2);
  g_assert_true (event->process == new_process);
  g_assert_true (event->had_status);
  g_assert_cmpint (event->status, ==, 9 << 8);

  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  test_run_until_count (NULL, &recorder->n_reaped, 2);

  /* The old process never took on the new one's status. */
  g_assert_true (!procwatch_process_has_status (old_process) ||
                 procwatch_process_get_exit_status (old_process) == 3);
}

static void
reuse_after_dispatch (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) old_process = NULL;
  g_autoptr(ProcwatchProcess) new_process = NULL;
  g_autoptr(GError) error = NULL;
  Child old_child = start_child ();
  Child new_child;
  GPid pid = old_child.pid;

  old_process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);

  /* The new process appears before the old one's reap is seen: the old
   * watch must report the old process only, and not hold on to the pid. */
  end_and_reap_child (&old_child, 0);
  new_child = start_child_with_pid (pid);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->events->len, ==, 2);

  /* Unwatching the pid now finds nothing: the old process is gone. */
  g_assert_false (procwatch_process_monitor_unwatch (monitor, pid));

  new_process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  g_assert_true (new_process != old_process);

  end_and_reap_child (&new_child, 0);
  test_run_until_count (NULL, &recorder->n_reaped, 2);
  g_assert_true (g_array_index (recorder->events, TestEvent, 3).process == new_process);
}

static void
reuse_after_watch_by_pidfd (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) old_process = NULL;
  g_autoptr(ProcwatchProcess) new_process = NULL;
  Child old_child = start_child ();
  Child new_child;
  GPid pid = old_child.pid;

  old_process = test_watch_by_pidfd (monitor, pid);

  end_and_reap_child (&old_child, 0);
  new_child = start_child_with_pid (pid);

  new_process = test_watch_by_pidfd (monitor, pid);
  g_assert_true (new_process != old_process);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->events->len, ==, 2);
  g_assert_true (g_array_index (recorder->events, TestEvent, 1).process == old_process);
  g_assert_cmpint (procwatch_process_get_state (new_process), ==, PROCWATCH_PROCESS_STATE_RUNNING);

  end_and_reap_child (&new_child, 0);
  test_run_until_count (NULL, &recorder->n_reaped, 2);
}

static void
test_in_namespace (gconstpointer data)
{
  if (!g_test_subprocess () && data == reuse_after_watch_by_pidfd && test_skip_without_pidfd ())
    return;

  test_in_pid_namespace (data);
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  g_test_add_data_func ("/pid-reuse/watch-by-pid", reuse_after_watch_by_pid, test_in_namespace);
  g_test_add_data_func ("/pid-reuse/after-dispatch", reuse_after_dispatch, test_in_namespace);
  g_test_add_data_func ("/pid-reuse/watch-by-pidfd", reuse_after_watch_by_pidfd, test_in_namespace);

  return g_test_run ();
}
