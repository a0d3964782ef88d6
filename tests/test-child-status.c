/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The status of a child at "exited", whoever reaps it: GSubprocess, a child
 * watch, a thread looping on waitpid (-1). With the pidfd backend on a
 * kernel that keeps the status of reaped processes, every child has it;
 * elsewhere a status is never wrong, and where it cannot be known
 * has_status() says so. Also: pidfds on the poll backend, fd needs, and
 * pids seen from a pid namespace whose /proc is another's.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-test-util.h"

#define N_CHILDREN 200

/* Whether this backend, here, knows a child's status at "exited" whoever
 * reaps it: the pidfd backend, with the status the kernel keeps. */
static gboolean
status_promised_at_exited (ProcwatchProcessMonitor *monitor)
{
  return test_status_known_after_reap (monitor);
}

/* How child @i ends: mostly exit codes, every fifth and seventh a signal. */
static void
child_fate (guint  i,
            int   *code,
            int   *sig)
{
  *code = i % 256;
  *sig = 0;

  if (i % 5 == 1)
    *sig = SIGTERM;
  else if (i % 7 == 3)
    *sig = SIGKILL;
}

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  TestRecorder *recorder;
  GHashTable *truth;   /* pid → wait status + 1, from whoever reaped it */
  GMutex lock;         /* for the waitpid thread */
  guint n_truths;
} Scenario;

static void
scenario_init (Scenario *scenario)
{
  scenario->monitor = procwatch_process_monitor_new ();
  scenario->recorder = test_recorder_new (scenario->monitor);
  scenario->truth = g_hash_table_new (NULL, NULL);
  g_mutex_init (&scenario->lock);
  scenario->n_truths = 0;
}

static void
scenario_record_truth (Scenario *scenario,
                       GPid      pid,
                       int       status)
{
  g_mutex_lock (&scenario->lock);
  g_hash_table_insert (scenario->truth, GINT_TO_POINTER (pid), GINT_TO_POINTER (status + 1));
  scenario->n_truths++;
  g_mutex_unlock (&scenario->lock);
}

static guint
scenario_count_truths (Scenario *scenario)
{
  guint n;

  g_mutex_lock (&scenario->lock);
  n = scenario->n_truths;
  g_mutex_unlock (&scenario->lock);

  return n;
}

/* Checks every child's events against the status its reaper got. */
static void
scenario_check (Scenario   *scenario,
                GArray     *pids,
                const char *what)
{
  gboolean promised = status_promised_at_exited (scenario->monitor);
  guint with_status = 0;
  guint i;

  test_drain_context (NULL);

  for (i = 0; i < pids->len; i++)
    {
      GPid pid = g_array_index (pids, GPid, i);
      TestEvent *exited = test_recorder_find (scenario->recorder, pid, PROCWATCH_PROCESS_STATE_EXITED);
      TestEvent *reaped = test_recorder_find (scenario->recorder, pid, PROCWATCH_PROCESS_STATE_REAPED);
      int truth = GPOINTER_TO_INT (g_hash_table_lookup (scenario->truth, GINT_TO_POINTER (pid))) - 1;

      g_assert_cmpint (truth, >=, 0);
      g_assert_nonnull (exited);
      g_assert_nonnull (reaped);
      g_assert_true (exited < reaped);
      g_assert_cmpuint (test_recorder_count (scenario->recorder, pid, PROCWATCH_PROCESS_STATE_EXITED), ==, 1);
      g_assert_cmpuint (test_recorder_count (scenario->recorder, pid, PROCWATCH_PROCESS_STATE_REAPED), ==, 1);

      /* Never a wrong status, wherever it is known. */
      if (exited->had_status)
        {
          g_assert_cmpint (exited->status, ==, truth);
          with_status++;
        }
      if (reaped->had_status)
        g_assert_cmpint (reaped->status, ==, truth);

      if (promised)
        g_assert_true (exited->had_status);

      /* What is known at "exited" stays known. */
      if (exited->had_status)
        g_assert_true (reaped->had_status);
    }

  g_test_message ("%s (%s): %u/%u children had their status inside \"exited\"%s",
                  what, procwatch_process_monitor_get_backend (scenario->monitor),
                  with_status, pids->len, promised ? " (promised)" : " (not promised here)");
}

static void
scenario_clear (Scenario *scenario)
{
  test_recorder_free (scenario->recorder);
  g_object_unref (scenario->monitor);
  g_hash_table_unref (scenario->truth);
  g_mutex_clear (&scenario->lock);
}

/* A child that waits for a byte (or EOF) on @control, then meets its fate.
 * Only async-signal-safe calls after fork. */
static GPid
fork_blocked_child (int  code,
                    int  sig,
                    int *control_write)
{
  int control[2];
  GPid pid;

  g_assert_no_errno (pipe2 (control, O_CLOEXEC));

  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      char byte;

      close (control[1]);
      while (read (control[0], &byte, 1) < 0 && errno == EINTR)
        ;
      if (sig != 0)
        {
          signal (sig, SIG_DFL);
          kill (getpid (), sig);
        }
      _exit (code);
    }

  close (control[0]);
  *control_write = control[1];
  return pid;
}

static void
watch_or_fail (ProcwatchProcessMonitor *monitor,
               GPid                     pid)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  g_assert_nonnull (process);
}

/* Forks N_CHILDREN children of varied fates, each watched (and, with
 * @on_exit, child-watched) before it may exit; their control fds go to
 * @controls, to be closed all at once. */
static void
start_watched_children (Scenario        *scenario,
                        GArray          *pids,
                        GArray          *controls,
                        GChildWatchFunc  on_exit)
{
  guint i;

  for (i = 0; i < N_CHILDREN; i++)
    {
      int control;
      int code;
      int sig;
      GPid pid;

      child_fate (i, &code, &sig);
      pid = fork_blocked_child (code, sig, &control);
      watch_or_fail (scenario->monitor, pid);
      if (on_exit != NULL)
        g_child_watch_add (pid, on_exit, scenario);
      g_array_append_val (pids, pid);
      g_array_append_val (controls, control);
    }
}

static void
close_all (GArray *controls)
{
  guint i;

  for (i = 0; i < controls->len; i++)
    close (g_array_index (controls, int, i));
}

/* Children of GSubprocess, which reaps them in GLib's worker thread. */
static void
on_subprocess_done (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  GSubprocess *subprocess = G_SUBPROCESS (object);
  Scenario *scenario = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_wait_finish (subprocess, result, &error));
  g_assert_no_error (error);
  scenario_record_truth (scenario, GPOINTER_TO_INT (g_object_get_data (object, "pid")),
                         g_subprocess_get_status (subprocess));
  g_object_unref (subprocess);
}

static void
test_gsubprocess (void)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GPtrArray) subprocesses = g_ptr_array_new ();
  Scenario scenario;
  guint i;

  scenario_init (&scenario);

  for (i = 0; i < N_CHILDREN; i++)
    {
      g_autoptr(GError) error = NULL;
      g_autofree char *script = NULL;
      GSubprocess *subprocess;
      GPid pid;
      int code;
      int sig;

      child_fate (i, &code, &sig);
      script = sig != 0 ? g_strdup_printf ("read x; kill -%d $$", sig)
                        : g_strdup_printf ("read x; exit %d", code);

      subprocess = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE, &error,
                                     "/bin/sh", "-c", script, NULL);
      g_assert_no_error (error);

      pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (subprocess), NULL, 10);
      g_object_set_data (G_OBJECT (subprocess), "pid", GINT_TO_POINTER (pid));
      watch_or_fail (scenario.monitor, pid);
      g_array_append_val (pids, pid);
      g_ptr_array_add (subprocesses, subprocess);
    }

  /* All at once: their reaps race with the monitor. */
  for (i = 0; i < subprocesses->len; i++)
    {
      GSubprocess *subprocess = g_ptr_array_index (subprocesses, i);

      g_subprocess_wait_async (subprocess, NULL, on_subprocess_done, &scenario);
      g_assert_true (g_output_stream_close (g_subprocess_get_stdin_pipe (subprocess), NULL, NULL));
    }

  test_run_until_count (NULL, &scenario.recorder->n_reaped, N_CHILDREN);
  test_run_until_count (NULL, &scenario.n_truths, N_CHILDREN);
  scenario_check (&scenario, pids, "GSubprocess");
  scenario_clear (&scenario);
}

/* Children reaped by g_child_watch_add () in the same main context. */
static void
on_child_watch (GPid     pid,
                gint     status,
                gpointer user_data)
{
  scenario_record_truth (user_data, pid, status);
}

static void
test_child_watch (void)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GArray) controls = g_array_new (FALSE, FALSE, sizeof (int));
  Scenario scenario;

  scenario_init (&scenario);
  start_watched_children (&scenario, pids, controls, on_child_watch);
  close_all (controls);

  test_run_until_count (NULL, &scenario.recorder->n_reaped, N_CHILDREN);
  test_run_until_count (NULL, &scenario.n_truths, N_CHILDREN);
  scenario_check (&scenario, pids, "g_child_watch_add");
  scenario_clear (&scenario);
}

/* Children reaped by the application in its "exited" handler, the common
 * waitpid () pattern: each has "reaped" once, with the status the handler
 * got, and in the same dispatch as its "exited" (the monitor looks once
 * after the handler instead of waiting for a wake-up of its own). */
static void
on_exited_reap (ProcwatchProcessMonitor *monitor,
                ProcwatchProcess        *process,
                gpointer                 user_data)
{
  GPid pid = procwatch_process_get_pid (process);
  GPid reaped;
  int status;

  do
    reaped = waitpid (pid, &status, 0);
  while (reaped < 0 && errno == EINTR);

  g_assert_cmpint (reaped, ==, pid);
  scenario_record_truth (user_data, pid, status);
}

static void
test_reaped_in_exited (void)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GArray) controls = g_array_new (FALSE, FALSE, sizeof (int));
  Scenario scenario;

  scenario_init (&scenario);
  /* After the recorder's handler, which sees the process unreaped. */
  g_signal_connect (scenario.monitor, "exited", G_CALLBACK (on_exited_reap), &scenario);
  start_watched_children (&scenario, pids, controls, NULL);
  close_all (controls);

  while (scenario.recorder->n_reaped < N_CHILDREN)
    {
      test_run_until_count (NULL, &scenario.recorder->n_exited, scenario.recorder->n_exited + 1);
      g_assert_cmpuint (scenario.recorder->n_reaped, ==, scenario.recorder->n_exited);
    }

  g_assert_cmpuint (scenario_count_truths (&scenario), ==, N_CHILDREN);
  scenario_check (&scenario, pids, "waitpid () in \"exited\"");
  scenario_clear (&scenario);
}

/* Children reaped by a thread of the application looping on waitpid (-1). */
static gpointer
reap_all (gpointer data)
{
  Scenario *scenario = data;
  guint n;

  for (n = 0; n < N_CHILDREN; n++)
    {
      int status;
      GPid pid;

      do
        pid = waitpid (-1, &status, 0);
      while (pid < 0 && errno == EINTR);

      g_assert_cmpint (pid, >, 0);
      scenario_record_truth (scenario, pid, status);
    }

  return NULL;
}

static void
test_waitpid_thread (void)
{
  g_autoptr(GArray) pids = g_array_new (FALSE, FALSE, sizeof (GPid));
  g_autoptr(GArray) controls = g_array_new (FALSE, FALSE, sizeof (int));
  GThread *reaper;
  Scenario scenario;

  scenario_init (&scenario);
  start_watched_children (&scenario, pids, controls, NULL);
  reaper = g_thread_new ("reaper", reap_all, &scenario);
  close_all (controls);

  test_run_until_count (NULL, &scenario.recorder->n_reaped, N_CHILDREN);
  g_thread_join (reaper);
  g_assert_cmpuint (scenario_count_truths (&scenario), ==, N_CHILDREN);
  scenario_check (&scenario, pids, "waitpid (-1) thread");
  scenario_clear (&scenario);
}

/* The child is reaped before the monitor looks: deterministic. Where the
 * status is promised it is there inside "exited"; elsewhere has_status()
 * says it is not known, at "exited" and at "reaped" alike. @data: whether to
 * watch through a pidfd, which every backend then holds. */
static void
test_reaped_before_looked (gconstpointer data)
{
  gboolean by_pidfd = GPOINTER_TO_INT (data);
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  TestEvent *exited;
  TestEvent *reaped;
  gboolean known;
  int control;
  int status;
  GPid pid;

  if (by_pidfd && test_skip_without_pidfd ())
    return;

  pid = fork_blocked_child (9, 0, &control);

  if (by_pidfd)
    process = test_watch_by_pidfd (monitor, pid);
  else
    process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);

  close (control);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 9);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  exited = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED);
  reaped = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_REAPED);
  g_assert_nonnull (exited);
  g_assert_true (exited < reaped);

  /* The pidfd backend, or any backend holding a pidfd, on a kernel that
   * keeps the status. */
  known = test_kernel_keeps_exit_status () &&
          (by_pidfd || status_promised_at_exited (monitor));

  g_test_message ("backend %s, by %s: status %s",
                  procwatch_process_monitor_get_backend (monitor),
                  by_pidfd ? "pidfd" : "pid", known ? "known" : "not known");

  g_assert_cmpint (exited->had_status, ==, known);
  g_assert_cmpint (reaped->had_status, ==, known);
  if (known)
    {
      g_assert_cmpint (exited->status, ==, status);
      g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 9);
    }
  else
    {
      g_assert_false (procwatch_process_get_if_exited (process));
    }
}

/* A child of ours traced by another process: once it has exited, only the
 * tracer sees the zombie until it lets go. Its exit is reported all the
 * same, at once, without a status; the status follows where the kernel
 * keeps it once the child is reaped. */
static void
test_traced_child (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  int hold[2];
  int ready[2];
  char byte = 0;
  int control;
  int status;
  GPid tracer;
  GPid pid;

  pid = fork_blocked_child (4, 0, &control);
  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);

  g_assert_no_errno (pipe2 (hold, O_CLOEXEC));
  g_assert_no_errno (pipe2 (ready, O_CLOEXEC));
  tracer = fork ();
  g_assert_cmpint (tracer, >=, 0);
  if (tracer == 0)
    {
      char result = ptrace (PTRACE_SEIZE, pid, NULL, NULL) == 0 ? 'y' : 'n';

      close (control);
      close (hold[1]);
      if (write (ready[1], &result, 1) != 1)
        _exit (1);
      /* Holds the zombie until the test closes the pipe. */
      while (read (hold[0], &byte, 1) < 0 && errno == EINTR)
        ;
      _exit (0);
    }
  close (hold[0]);
  close (ready[1]);
  g_assert_cmpint (read (ready[0], &byte, 1), ==, 1);
  close (ready[0]);

  if (byte != 'y')
    {
      close (hold[1]);
      close (control);
      g_assert_cmpint (waitpid (tracer, NULL, 0), ==, tracer);
      g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
      g_test_skip ("Cannot ptrace a sibling process here");
      return;
    }

  close (control);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  g_assert_cmpuint (recorder->n_reaped, ==, 0);
  g_assert_false (g_array_index (recorder->events, TestEvent, 0).had_status);

  close (hold[1]);
  g_assert_cmpint (waitpid (tracer, NULL, 0), ==, tracer);
  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 4);
  test_run_until_count (NULL, &recorder->n_reaped, 1);

  if (status_promised_at_exited (monitor))
    g_assert_cmpint (procwatch_process_get_status (process), ==, status);
}

/* A grandchild that exits with @code on a byte (or EOF) on *@control_write;
 * its parent, our child, exits without reaping it on a byte (or EOF) on
 * *@release_write. The grandchild, or its zombie, is then given to us, the
 * subreaper (test_init ()). Only async-signal-safe calls after fork. */
static GPid
fork_orphan_to_be (int   code,
                   int  *control_write,
                   int  *release_write,
                   GPid *parent)
{
  int control[2];
  int release[2];
  int report[2];
  GPid pid = 0;

  g_assert_no_errno (pipe2 (control, O_CLOEXEC));
  g_assert_no_errno (pipe2 (release, O_CLOEXEC));
  g_assert_no_errno (pipe2 (report, O_CLOEXEC));

  *parent = fork ();
  g_assert_cmpint (*parent, >=, 0);
  if (*parent == 0)
    {
      GPid target;
      char byte;

      close (control[1]);
      close (release[1]);
      close (report[0]);

      target = fork ();
      if (target == 0)
        {
          close (release[0]);
          close (report[1]);
          while (read (control[0], &byte, 1) < 0 && errno == EINTR)
            ;
          _exit (code);
        }

      close (control[0]);
      if (target < 0 || write (report[1], &target, sizeof target) != sizeof target)
        _exit (1);
      while (read (release[0], &byte, 1) < 0 && errno == EINTR)
        ;
      _exit (0);
    }

  close (control[0]);
  close (release[0]);
  close (report[1]);
  g_assert_cmpint (read (report[0], &pid, sizeof pid), ==, sizeof pid);
  close (report[0]);

  *control_write = control[1];
  *release_write = release[1];
  return pid;
}

/* The parent pid /proc shows for @pid (a zombie too). */
static GPid
read_ppid (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pid);
  g_autofree char *text = NULL;
  const char *end;
  int ppid = 0;
  char state;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  end = strrchr (text, ')');
  g_assert_nonnull (end);
  g_assert_cmpint (sscanf (end + 1, " %c %d", &state, &ppid), ==, 2);

  return ppid;
}

/* A process watched as another's child, then given to us (a subreaper) when
 * its parent dies: its status is right wherever it is known. Given to us
 * while it runs (@data false), it is our child when it exits, so the status
 * comes with "exited" on every backend, as for any child that nobody else
 * can reap; given to us as a zombie (@data true), after its exit was
 * reported without a status, the status comes with "reaped" where the
 * kernel keeps it. */
static void
test_adopted_orphan (gconstpointer data)
{
  gboolean as_zombie = GPOINTER_TO_INT (data);
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  TestEvent *exited;
  TestEvent *reaped;
  int control;
  int release;
  int status;
  GPid parent;
  GPid pid;

  pid = fork_orphan_to_be (6, &control, &release, &parent);
  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  g_assert_cmpint (read_ppid (pid), ==, parent);

  if (as_zombie)
    {
      close (control);
      test_run_until_count (NULL, &recorder->n_exited, 1);
      /* Another's zombie: nobody could have told the status yet. */
      g_assert_false (test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED)->had_status);
    }

  close (release);
  g_assert_cmpint (waitpid (parent, NULL, 0), ==, parent);
  g_assert_cmpint (read_ppid (pid), ==, getpid ());

  if (!as_zombie)
    {
      close (control);
      test_run_until_count (NULL, &recorder->n_exited, 1);
    }

  g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 6);
  test_run_until_count (NULL, &recorder->n_reaped, 1);

  exited = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED);
  reaped = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_REAPED);
  g_assert_nonnull (exited);
  g_assert_true (exited < reaped);
  g_assert_cmpuint (recorder->n_exited, ==, 1);

  if (!as_zombie)
    g_assert_true (exited->had_status);
  if (!as_zombie || test_status_known_after_reap (monitor))
    g_assert_true (reaped->had_status);
  if (exited->had_status)
    g_assert_cmpint (exited->status, ==, status);
  if (reaped->had_status)
    g_assert_cmpint (reaped->status, ==, status);
}

/* The same reaped process watched twice through pidfds is one object, on
 * every backend, with its status where the kernel keeps it. */
static void
test_reaped_pidfd_twice (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) first = NULL;
  g_autoptr(ProcwatchProcess) second = NULL;
  g_autoptr(GError) error = NULL;
  int control;
  int pidfd;
  GPid pid;

  if (test_skip_without_pidfd ())
    return;

  pid = fork_blocked_child (5, 0, &control);
  pidfd = (int) syscall (SYS_pidfd_open, pid, 0);
  g_assert_cmpint (pidfd, >=, 0);
  close (control);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);

  first = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  g_assert_no_error (error);
  second = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  g_assert_no_error (error);
  close (pidfd);

  g_assert_true (first == second);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
  g_assert_cmpuint (recorder->n_reaped, ==, 1);

  if (test_kernel_keeps_exit_status ())
    {
      g_assert_true (g_array_index (recorder->events, TestEvent, 0).had_status);
      g_assert_cmpint (procwatch_process_get_exit_status (first), ==, 5);
    }
}

/* With two free fds the first watch works: a backend that only probes
 * makes no epoll instance, and no backend needs more than two at once. */
static void
test_two_free_fds (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GArray) fillers = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GError) error = NULL;
  struct rlimit saved;
  struct rlimit low;
  int control;
  guint i;
  GPid pid;
  int fd;

  pid = fork_blocked_child (3, 0, &control);

  g_assert_no_errno (getrlimit (RLIMIT_NOFILE, &saved));
  low = saved;
  low.rlim_cur = MIN (saved.rlim_cur, 512);
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &low));

  while ((fd = open ("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
    g_array_append_val (fillers, fd);
  g_assert_cmpint (errno, ==, EMFILE);
  g_assert_cmpuint (fillers->len, >=, 2);

  close (g_array_index (fillers, int, fillers->len - 1));
  close (g_array_index (fillers, int, fillers->len - 2));
  g_array_set_size (fillers, fillers->len - 2);

  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);

  for (i = 0; i < fillers->len; i++)
    close (g_array_index (fillers, int, i));
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &saved));

  g_test_message ("backend %s: %s", procwatch_process_monitor_get_backend (monitor),
                  error != NULL ? error->message : "watched");
  g_assert_no_error (error);

  close (control);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
}

/* Runs the test again in a subprocess, which makes pid namespaces, or
 * skips saying why none can be made here. */
static void
trap_with_pid_namespace (void)
{
  g_autofree char *why = NULL;

  if (!test_can_unshare (CLONE_NEWPID, NULL, NULL, &why))
    {
      g_test_skip_printf ("cannot create a pid namespace here (%s)", why);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* In a new pid namespace whose /proc is still the outer one, no pid of the
 * outer namespace is ever reported: a process we cannot see has pid 0, one
 * we can see has its pid in our namespace (or 0 where that cannot be
 * told). Runs as pid 1 of the new namespace. */
G_GNUC_NORETURN static void
check_pids_in_new_namespace (int outer_pidfd)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) outer = NULL;
  g_autoptr(ProcwatchProcess) inner = NULL;
  g_autoptr(GError) error = NULL;
  int control;
  GPid pid;

  g_assert_cmpint (getpid (), ==, 1);

  /* The backends that read /proc cannot use one that shows other pids:
   * they refuse, rather than watch whatever has our pid number there. */
  if (!g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd"))
    {
      outer = procwatch_process_monitor_watch_pidfd (monitor, outer_pidfd, &error);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_assert_null (outer);
      g_clear_error (&error);

      pid = fork_blocked_child (6, 0, &control);
      inner = procwatch_process_monitor_watch_pid (monitor, pid, &error);
      g_test_message ("%s backend: %s", procwatch_process_monitor_get_backend (monitor),
                      error != NULL ? error->message : "watched");
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_assert_null (inner);
      close (control);
      g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);

      g_clear_error (&error);
      g_clear_pointer (&recorder, test_recorder_free);
      g_clear_object (&monitor);
      exit (0);
    }

  outer = procwatch_process_monitor_watch_pidfd (monitor, outer_pidfd, &error);
  g_assert_no_error (error);
  g_test_message ("process outside the namespace: pid %d", procwatch_process_get_pid (outer));
  g_assert_cmpint (procwatch_process_get_pid (outer), ==, 0);

  /* It has no pid to be unwatched by; closing the monitor stops it. */
  g_assert_false (procwatch_process_monitor_unwatch (monitor, 0));

  pid = fork_blocked_child (6, 0, &control);
  inner = test_watch_by_pidfd (monitor, pid);
  g_test_message ("process inside the namespace, pid %d: pid %d",
                  pid, procwatch_process_get_pid (inner));
  g_assert_true (procwatch_process_get_pid (inner) == pid ||
                 procwatch_process_get_pid (inner) == 0);

  close (control);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  g_assert_true (test_recorder_find (recorder, procwatch_process_get_pid (inner),
                                     PROCWATCH_PROCESS_STATE_EXITED)->process == inner);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
  test_run_until_count (NULL, &recorder->n_reaped, 1);

  g_clear_object (&outer);
  g_clear_object (&inner);
  g_clear_pointer (&recorder, test_recorder_free);
  g_clear_object (&monitor);
  exit (0);
}

static void
test_pid_namespace (void)
{
  if (g_test_subprocess ())
    {
      int pidfd = (int) syscall (SYS_pidfd_open, getpid (), 0);
      int status;
      pid_t pid;

      g_assert_cmpint (pidfd, >=, 0);
      g_assert_no_errno (test_unshare (CLONE_NEWPID));

      pid = fork ();
      g_assert_cmpint (pid, >=, 0);
      if (pid == 0)
        check_pids_in_new_namespace (pidfd);

      g_assert_cmpint (waitpid (pid, &status, 0), ==, pid);

      /* Our new children would be in the namespace, now dead with its
       * first process: LeakSanitizer could not clone its checker at exit. */
      _exit (WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : 1);
    }

  if (test_skip_without_pidfd ())
    return;

  trap_with_pid_namespace ();
}

/* Runs as pid 1 of a child pid namespace: a process of the namespace
 * above, watched through a pidfd inherited from there, is seen to exit
 * and be reaped, but its status is never known here (PIDFD_GET_INFO
 * answers EREMOTE for a process outside the caller's pid namespace), even
 * where the kernel keeps the status of reaped processes. */
G_GNUC_NORETURN static void
check_outer_status_unknown (int outer_pidfd,
                            int watching)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) outer = NULL;
  g_autoptr(GError) error = NULL;
  int code = 0;

  outer = procwatch_process_monitor_watch_pidfd (monitor, outer_pidfd, &error);
  if (!g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd"))
    {
      /* The /proc backends refuse it (/child-status/pid-namespace). */
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
      g_assert_null (outer);
      g_assert_cmpint (write (watching, "n", 1), ==, 1);
      g_clear_error (&error);
      g_clear_pointer (&recorder, test_recorder_free);
      g_clear_object (&monitor);
      exit (0);
    }

  g_assert_no_error (error);
  g_assert_true (procwatch_process_monitor_get_features (monitor) &
                 PROCWATCH_FEATURES_NON_CHILD_STATUS);
  g_assert_cmpint (write (watching, "w", 1), ==, 1);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
  g_assert_false (procwatch_process_has_status (outer));
  g_object_get (outer, "exit-status", &code, NULL);
  g_assert_cmpint (code, ==, -1);

  g_clear_object (&outer);
  g_clear_pointer (&recorder, test_recorder_free);
  g_clear_object (&monitor);
  exit (0);
}

static void
test_outer_namespace_status (void)
{
  if (g_test_subprocess ())
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
      g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
      g_autoptr(ProcwatchProcess) here = NULL;
      int watching[2];
      int control;
      int status;
      int pidfd;
      char byte;
      pid_t inner;
      GPid target;

      target = fork_blocked_child (7, 0, &control);
      pidfd = (int) syscall (SYS_pidfd_open, target, 0);
      g_assert_cmpint (pidfd, >=, 0);
      here = test_watch_by_pidfd (monitor, target);

      g_assert_no_errno (pipe2 (watching, O_CLOEXEC));
      g_assert_no_errno (test_unshare (CLONE_NEWPID));
      inner = fork ();
      g_assert_cmpint (inner, >=, 0);
      if (inner == 0)
        {
          /* The target's end of its pipe is the test's alone. */
          close (control);
          check_outer_status_unknown (pidfd, watching[1]);
        }

      /* Exits and is reaped once the namespace's process watches it. */
      g_assert_cmpint (read (watching[0], &byte, 1), ==, 1);
      close (control);
      g_assert_cmpint (waitpid (target, NULL, 0), ==, target);
      g_assert_cmpint (waitpid (inner, &status, 0), ==, inner);

      /* In its own namespace, the same kernel tells it. */
      test_run_until_count (NULL, &recorder->n_reaped, 1);
      g_assert_true (procwatch_process_has_status (here));
      g_assert_cmpint (procwatch_process_get_exit_status (here), ==, 7);

      /* As in /child-status/pid-namespace: no LeakSanitizer at exit. */
      _exit (WIFEXITED (status) && WEXITSTATUS (status) == 0 ? 0 : 1);
    }

  if (test_skip_without_pidfd ())
    return;

  if (!test_kernel_keeps_exit_status ())
    {
      g_test_skip ("the kernel keeps no status of reaped processes here (PIDFD_INFO_EXIT, "
                   "Linux 6.15+, not filtered): nothing for a pid namespace to hide");
      return;
    }

  trap_with_pid_namespace ();
}

int
main (int    argc,
      char **argv)
{
  test_init (&argc, &argv);

  g_test_add_func ("/child-status/gsubprocess", test_gsubprocess);
  g_test_add_func ("/child-status/child-watch", test_child_watch);
  g_test_add_func ("/child-status/waitpid-thread", test_waitpid_thread);
  g_test_add_func ("/child-status/reaped-in-exited", test_reaped_in_exited);
  g_test_add_data_func ("/child-status/reaped-before-looked/by-pid",
                        GINT_TO_POINTER (FALSE), test_reaped_before_looked);
  g_test_add_data_func ("/child-status/reaped-before-looked/by-pidfd",
                        GINT_TO_POINTER (TRUE), test_reaped_before_looked);
  g_test_add_func ("/child-status/traced-child", test_traced_child);
  g_test_add_data_func ("/child-status/adopted-orphan/running",
                        GINT_TO_POINTER (FALSE), test_adopted_orphan);
  g_test_add_data_func ("/child-status/adopted-orphan/zombie",
                        GINT_TO_POINTER (TRUE), test_adopted_orphan);
  g_test_add_func ("/child-status/reaped-pidfd-twice", test_reaped_pidfd_twice);
  g_test_add_func ("/child-status/two-free-fds", test_two_free_fds);
  g_test_add_func ("/child-status/pid-namespace", test_pid_namespace);
  g_test_add_func ("/child-status/outer-namespace-status", test_outer_namespace_status);

  return g_test_run ();
}
