/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The monitor when the system calls it depends on fail (see fault-inject.h):
 * every watch either reports a GError or delivers "exited" and "reaped"
 * exactly once, and nothing leaks. Also a process that exits, or is reaped,
 * in the middle of watch_pid() itself.
 */

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fault-inject.h"
#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

static gboolean
uses_epoll_per_process (ProcwatchProcessMonitor *monitor)
{
  return !g_str_equal (procwatch_process_monitor_get_backend (monitor), "poll");
}

static gboolean
skip_without_epoll_handles (ProcwatchProcessMonitor *monitor)
{
  if (uses_epoll_per_process (monitor))
    return FALSE;

  g_test_skip ("this backend puts no process handle into epoll");
  return TRUE;
}

/* Watches, lets exit and reaps one process, and checks that each event came
 * exactly once, in order. */
static void
assert_events_once (TestRecorder *recorder,
                    GPid          pid)
{
  TestEvent *exited = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED);
  TestEvent *reaped = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_REAPED);

  g_assert_cmpuint (test_recorder_count (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED), ==, 1);
  g_assert_cmpuint (test_recorder_count (recorder, pid, PROCWATCH_PROCESS_STATE_REAPED), ==, 1);
  g_assert_true (exited < reaped);
}

static void
run_one_process (ProcwatchProcessMonitor *monitor,
                 TestRecorder            *recorder,
                 TestProcessKind          kind,
                 int                      code)
{
  g_autoptr(TestProcess) target = test_process_spawn (kind);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  guint exited = recorder->n_exited;
  guint reaped = recorder->n_reaped;

  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);
  test_process_exit (target, code);
  test_run_until_count (NULL, &recorder->n_exited, exited + 1);
  test_process_reap (target);
  test_run_until_count (NULL, &recorder->n_reaped, reaped + 1);
  test_drain_context (NULL);
  assert_events_once (recorder, test_process_get_pid (target));

  /* A status, if known, is the right one. */
  if (procwatch_process_has_status (process))
    g_assert_cmpint (procwatch_process_get_exit_status (process), ==, code);
}

static void
test_epoll_create_fails (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  guint fds_before = test_count_open_fds ();

  fault_reset ();
  fault_fail_nth (FAULT_EPOLL_CREATE, 1, ENOMEM);
  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);

  /* The poll backend only probes: it makes no epoll instance at all. */
  if (g_str_equal (procwatch_process_monitor_get_backend (monitor), "poll"))
    {
      g_assert_no_error (error);
      g_assert_nonnull (process);
      g_assert_cmpuint (fault_get_failures (FAULT_EPOLL_CREATE), ==, 0);
      g_clear_object (&process);
      test_process_free (g_steal_pointer (&target));
      test_run_until_count (NULL, &recorder->n_reaped, 1);
      run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 3);
      fault_reset ();
      return;
    }

  g_assert_nonnull (error);
  g_assert_true (error->domain == G_IO_ERROR);
  g_test_message ("watch without an epoll instance: %s", error->message);
  g_assert_null (process);
  g_assert_cmpuint (fault_get_failures (FAULT_EPOLL_CREATE), ==, 1);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
  g_clear_error (&error);

  /* The next watch creates the instance and works. */
  test_process_free (g_steal_pointer (&target));
  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 3);
  fault_reset ();
}

/* epoll refuses the handle at watch time: the process is probed for. */
static void
test_epoll_add_fails (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  int error_code = GPOINTER_TO_INT (data);

  if (skip_without_epoll_handles (monitor))
    return;

  /* The first watch creates the epoll instance; faults start after it. */
  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 0);

  fault_reset ();
  fault_fail_nth (FAULT_EPOLL_CTL, 1, error_code);
  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 4);
  g_assert_cmpuint (fault_get_failures (FAULT_EPOLL_CTL), ==, 1);

  fault_reset ();
  fault_fail_nth (FAULT_EPOLL_CTL, 1, error_code);
  run_one_process (monitor, recorder, TEST_PROCESS_GRANDCHILD, 5);
  g_assert_cmpuint (fault_get_failures (FAULT_EPOLL_CTL), ==, 1);
  fault_reset ();
}

/* Every epoll_ctl() fails from the exit on: the change of interest, and the
 * removal that falls back to probing. The handle then stays in the set,
 * readable, and keeps waking the monitor until a removal succeeds. */
static void
test_epoll_modify_fails (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  int error_code = GPOINTER_TO_INT (data);
  TestProcessKind kinds[] = { TEST_PROCESS_CHILD, TEST_PROCESS_GRANDCHILD };
  gsize i;

  if (skip_without_epoll_handles (monitor))
    return;

  for (i = 0; i < G_N_ELEMENTS (kinds); i++)
    {
      g_autoptr(TestProcess) target = test_process_spawn (kinds[i]);
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(GError) error = NULL;
      GPid pid = test_process_get_pid (target);

      process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
      g_assert_no_error (error);

      fault_reset ();
      fault_fail_every (FAULT_EPOLL_CTL, 1, error_code);
      test_process_exit (target, 6);
      test_run_until_count (NULL, &recorder->n_exited, i + 1);
      g_assert_cmpuint (fault_get_failures (FAULT_EPOLL_CTL), >=, 1);

      /* Reaped while removals still fail, then while they work again. */
      if (i == 0)
        {
          test_process_reap (target);
          test_run_until_count (NULL, &recorder->n_reaped, i + 1);
          fault_reset ();
        }
      else
        {
          fault_reset ();
          test_process_reap (target);
          test_run_until_count (NULL, &recorder->n_reaped, i + 1);
        }

      test_drain_context (NULL);
      assert_events_once (recorder, pid);
    }
}

static void
test_epoll_wait_fails (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  int error_code = GPOINTER_TO_INT (data);
  const guint n = 40;
  guint i;

  if (skip_without_epoll_handles (monitor))
    return;

  for (i = 0; i < n; i++)
    {
      TestProcess *target = test_process_spawn (TEST_PROCESS_CHILD);
      g_autoptr(GError) error = NULL;

      g_ptr_array_add (processes, procwatch_process_monitor_watch_pid (monitor,
                                                                       test_process_get_pid (target),
                                                                       &error));
      g_assert_no_error (error);
      g_ptr_array_add (targets, target);
    }

  /* Two of three waits fail: the epoll fd stays readable, so the next
   * iteration collects what the failed one did not. */
  fault_reset ();
  fault_fail_every (FAULT_EPOLL_WAIT, 3, error_code);
  fault_fail_nth (FAULT_EPOLL_WAIT, 2, error_code);

  for (i = 0; i < n; i++)
    {
      test_process_exit (g_ptr_array_index (targets, i), i);
      if (i % 4 == 0)
        g_main_context_iteration (NULL, FALSE);
    }
  test_run_until_count (NULL, &recorder->n_exited, n);

  for (i = 0; i < n; i++)
    test_process_reap (g_ptr_array_index (targets, i));
  test_run_until_count (NULL, &recorder->n_reaped, n);
  test_drain_context (NULL);

  g_assert_cmpuint (fault_get_failures (FAULT_EPOLL_WAIT), >=, 1);
  fault_reset ();

  for (i = 0; i < n; i++)
    assert_events_once (recorder, test_process_get_pid (g_ptr_array_index (targets, i)));
}

static void
test_pidfd_open_fails (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  int error_code = GPOINTER_TO_INT (data);
  guint fds_before;

  if (!g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd"))
    {
      g_test_skip ("not the pidfd backend");
      return;
    }

  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 0);
  fds_before = test_count_open_fds ();

  fault_reset ();
  fault_fail_nth (FAULT_PIDFD_OPEN, 1, error_code);
  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_nonnull (error);
  g_assert_true (error->domain == G_IO_ERROR);
  g_test_message ("pidfd_open failing with %s: %s", g_strerror (error_code), error->message);
  g_assert_null (process);
  g_assert_cmpuint (fault_get_failures (FAULT_PIDFD_OPEN), ==, 1);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
  g_clear_error (&error);
  fault_reset ();

  /* Nothing of the failed call stayed behind: the same pid is watchable. */
  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);
  test_process_exit (target, 2);
  test_process_reap (target);
  test_run_until_count (NULL, &recorder->n_reaped, 2);
  test_drain_context (NULL);
  assert_events_once (recorder, test_process_get_pid (target));
}

/* The reap probe of kernels without the hang-up, and the status readers:
 * a failure there may cost the status, never an event. */
static void
test_probe_calls_fail (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  int error_code = GPOINTER_TO_INT (data);

  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 0);

  fault_reset ();
  fault_fail_every (FAULT_PIDFD_SEND_SIGNAL, 1, error_code);
  fault_fail_every (FAULT_WAITID, 2, error_code);
  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 8);
  run_one_process (monitor, recorder, TEST_PROCESS_GRANDCHILD, 9);
  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 10);
  g_test_message ("%u pidfd_send_signal and %u waitid calls failed",
                  fault_get_failures (FAULT_PIDFD_SEND_SIGNAL), fault_get_failures (FAULT_WAITID));
  fault_reset ();
}

/* A child of ours whose reap another thread of ours begins between the
 * monitor's two looks at it: the first finds the zombie; the second finds
 * nothing, as a reap under way hides it from waitid() and the kernel
 * records the status only as the reap ends. "exited" still has the status
 * (it is promised for a child), the one the first look saw. The reap is
 * simulated: the second waitid() fails as it then does (ECHILD), while the
 * child stays a zombie, so nothing else can tell its status either. */
static void
test_reap_begins_between_looks (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  TestEvent *exited;
  TestEvent *reaped;
  guint looks;
  GPid pid;
  int status;

  if (!g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd"))
    {
      g_test_skip ("Only the pidfd backend looks at a child's exit before reading its status");
      return;
    }

  target = test_process_spawn (TEST_PROCESS_CHILD);
  pid = test_process_get_pid (target);
  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);

  fault_reset ();
  fault_fail_nth (FAULT_WAITID, 2, ECHILD);
  test_process_exit (target, 13);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  looks = fault_get_calls (FAULT_WAITID);
  fault_reset ();

  g_test_message ("%u waitid calls until \"exited\"", looks);
  g_assert_cmpuint (looks, >=, 1);

  status = test_process_reap (target);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  assert_events_once (recorder, pid);

  exited = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED);
  reaped = test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_REAPED);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 13);
  g_assert_true (exited->had_status);
  g_assert_cmpint (exited->status, ==, status);
  g_assert_true (reaped->had_status);
  g_assert_cmpint (reaped->status, ==, status);
}

/* A forked process that holds a copy of every fd of the test, as any fork()
 * does until it execs (pidfds are close-on-exec, not close-on-fork), until
 * release_fd_holder(). */
static GPid
fork_fd_holder (int *release_fd)
{
  pid_t parent = getpid ();
  int release[2];
  pid_t pid;
  char byte;

  g_assert_no_errno (pipe2 (release, O_CLOEXEC));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      if (getppid () != parent)
        _exit (0);
      close (release[1]);
      while (read (release[0], &byte, 1) < 0 && errno == EINTR)
        ;
      _exit (0);
    }

  close (release[0]);
  *release_fd = release[1];
  return pid;
}

static void
release_fd_holder (GPid pid,
                   int  release_fd)
{
  close (release_fd);
  g_assert_cmpint (waitpid (pid, NULL, 0), ==, pid);
}

/* epoll forgets a handle on EPOLL_CTL_DEL or once no fd anywhere refers to
 * its open file, and a fork holds copies: when the removal fails, closing
 * the monitor's fd leaves the registration, and its pointer, in the kernel.
 * Its events must not reach a freed watch (issue 12, item 11: the storm hit
 * this by chance, through the children it had just forked). */
static void
test_epoll_remove_fails_while_forked (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  const guint n = 10;
  guint fds_before;
  guint events_before;
  int release_fd;
  GPid holder;
  guint i;

  if (skip_without_epoll_handles (monitor))
    return;

  /* The first watch creates the epoll instance; faults start after it. */
  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 0);
  events_before = recorder->events->len;

  for (i = 0; i < n; i++)
    g_ptr_array_add (targets, test_process_spawn (TEST_PROCESS_CHILD));
  fds_before = test_count_open_fds ();

  for (i = 0; i < n; i++)
    {
      GPid pid = test_process_get_pid (g_ptr_array_index (targets, i));
      g_autoptr(GError) error = NULL;

      g_ptr_array_add (processes, procwatch_process_monitor_watch_pid (monitor, pid, &error));
      g_assert_no_error (error);
    }

  holder = fork_fd_holder (&release_fd);

  fault_reset ();
  fault_fail_every (FAULT_EPOLL_CTL, 1, ENOMEM);
  for (i = 0; i < n; i++)
    {
      GPid pid = test_process_get_pid (g_ptr_array_index (targets, i));

      g_assert_true (procwatch_process_monitor_unwatch (monitor, pid));
    }
  g_assert_cmpuint (fault_get_failures (FAULT_EPOLL_CTL), ==, n);

  /* Reaped, so the handles are ready for good: every iteration hands their
   * events over while removals keep failing. */
  for (i = 0; i < n; i++)
    {
      test_process_exit (g_ptr_array_index (targets, i), 1);
      test_process_reap (g_ptr_array_index (targets, i));
    }
  for (i = 0; i < 3; i++)
    g_main_context_iteration (NULL, FALSE);

  /* Removals work again: the handles go, without waiting for the fork
   * (whose release pipe is the one fd more). */
  fault_reset ();
  test_drain_context (NULL);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before + 1);
  release_fd_holder (holder, release_fd);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);

  /* Unwatched before they exited: nothing was reported. */
  g_assert_cmpuint (recorder->events->len, ==, events_before);
  for (i = 0; i < n; i++)
    g_assert_cmpint (procwatch_process_get_state (g_ptr_array_index (processes, i)), ==,
                     PROCWATCH_PROCESS_STATE_RUNNING);
}

static void
clear_process (gpointer process)
{
  if (process != NULL)
    g_object_unref (process);
}

/* Many processes, and failures everywhere at once. */
static void
test_storm (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (clear_process);
  g_autoptr(GRand) rand = g_rand_new_with_seed (g_test_rand_int ());
  const guint n = 200;
  gboolean reaped[200] = { FALSE };
  guint n_watched = 0;
  guint n_refused = 0;
  guint i;

  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 0);

  fault_reset ();
  fault_fail_every (FAULT_EPOLL_CTL, 3, ENOMEM);
  fault_fail_every (FAULT_EPOLL_WAIT, 2, EINTR);
  fault_fail_every (FAULT_PIDFD_OPEN, 7, ENOMEM);
  fault_fail_every (FAULT_PIDFD_SEND_SIGNAL, 2, ENOMEM);

  for (i = 0; i < n; i++)
    {
      TestProcess *target = test_process_spawn (TEST_PROCESS_CHILD);
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process;

      process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
      if (process == NULL)
        {
          /* Refused, and said so: never watched half-way. */
          g_assert_true (error->domain == G_IO_ERROR);
          n_refused++;
        }
      else
        {
          g_assert_no_error (error);
          n_watched++;
        }
      g_ptr_array_add (targets, target);
      g_ptr_array_add (processes, process);
    }

  for (i = 0; i < n; i++)
    {
      TestProcess *target = g_ptr_array_index (targets, i);

      if (g_rand_boolean (rand))
        test_process_exit (target, i % 100);
      else
        test_process_kill (target, SIGKILL);
      if (g_rand_int_range (rand, 0, 3) == 0)
        g_main_context_iteration (NULL, FALSE);
      if (g_rand_int_range (rand, 0, 3) == 0)
        {
          test_process_reap (target);
          reaped[i] = TRUE;
        }
    }

  for (i = 0; i < n; i++)
    {
      if (!reaped[i])
        test_process_reap (g_ptr_array_index (targets, i));
      if (g_rand_int_range (rand, 0, 4) == 0)
        g_main_context_iteration (NULL, FALSE);
    }

  test_run_until_count (NULL, &recorder->n_reaped, n_watched + 1);
  test_drain_context (NULL);
  g_test_message ("%u watched, %u refused; failed: %u epoll_ctl, %u epoll_wait, %u pidfd_open, "
                  "%u pidfd_send_signal", n_watched, n_refused,
                  fault_get_failures (FAULT_EPOLL_CTL), fault_get_failures (FAULT_EPOLL_WAIT),
                  fault_get_failures (FAULT_PIDFD_OPEN), fault_get_failures (FAULT_PIDFD_SEND_SIGNAL));
  fault_reset ();

  g_assert_cmpuint (recorder->n_exited, ==, n_watched + 1);
  for (i = 0; i < n; i++)
    {
      GPid pid = test_process_get_pid (g_ptr_array_index (targets, i));

      if (g_ptr_array_index (processes, i) != NULL)
        assert_events_once (recorder, pid);
      else
        g_assert_null (test_recorder_find (recorder, pid, PROCWATCH_PROCESS_STATE_EXITED));
    }
}

/* A process that exits, or is even reaped, while watch_pid() runs: just
 * before the handle is opened, or between that and adding it to epoll. */
typedef enum
{
  DURING_OPEN,
  DURING_EPOLL_ADD,
} WatchPhase;

typedef struct
{
  TestProcess *target;
  gboolean reap;
  gboolean done;
  WatchPhase phase;
} ExitDuringWatch;

static gboolean
exit_now (FaultCall   call,
          const char *path,
          gpointer    user_data)
{
  ExitDuringWatch *state = user_data;

  /* The poll backend opens the process's stat file last. */
  if (call == FAULT_OPENAT && g_strcmp0 (path, "stat") != 0)
    return TRUE;

  test_process_exit (state->target, 12);
  test_process_await_exit (state->target);
  if (state->reap)
    test_process_reap (state->target);
  state->done = TRUE;

  return FALSE;
}

static void
test_exit_during_watch (void)
{
  static const struct
  {
    WatchPhase phase;
    TestProcessKind kind;
    gboolean reap;
  } cases[] = {
    { DURING_OPEN, TEST_PROCESS_CHILD, FALSE },
    { DURING_OPEN, TEST_PROCESS_GRANDCHILD, FALSE },
    { DURING_OPEN, TEST_PROCESS_CHILD, TRUE },
    { DURING_OPEN, TEST_PROCESS_GRANDCHILD, TRUE },
    { DURING_EPOLL_ADD, TEST_PROCESS_CHILD, FALSE },
    { DURING_EPOLL_ADD, TEST_PROCESS_GRANDCHILD, FALSE },
    { DURING_EPOLL_ADD, TEST_PROCESS_CHILD, TRUE },
    { DURING_EPOLL_ADD, TEST_PROCESS_GRANDCHILD, TRUE },
  };
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  gboolean pidfd = g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd");
  gsize i;

  run_one_process (monitor, recorder, TEST_PROCESS_CHILD, 0);

  for (i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autoptr(TestProcess) target = test_process_spawn (cases[i].kind);
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(GError) error = NULL;
      ExitDuringWatch state = { target, cases[i].reap, FALSE, cases[i].phase };
      GPid pid = test_process_get_pid (target);
      guint reaped = recorder->n_reaped;

      if (cases[i].phase == DURING_EPOLL_ADD && !uses_epoll_per_process (monitor))
        continue;

      fault_reset ();
      if (cases[i].phase == DURING_OPEN)
        fault_set_hook (pidfd ? FAULT_PIDFD_OPEN : FAULT_OPENAT, exit_now, &state);
      else
        fault_set_hook (FAULT_EPOLL_CTL, exit_now, &state);

      process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
      fault_reset ();
      g_assert_true (state.done);

      if (process == NULL)
        {
          /* Gone before there was a handle: said so. */
          g_assert_true (cases[i].reap && cases[i].phase == DURING_OPEN);
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
          continue;
        }

      g_assert_no_error (error);
      g_assert_cmpuint (recorder->events->len, ==, 2 * reaped);
      if (!cases[i].reap)
        {
          test_run_until_count (NULL, &recorder->n_exited, reaped + 1);
          test_process_reap (target);
        }
      test_run_until_count (NULL, &recorder->n_reaped, reaped + 1);
      test_drain_context (NULL);
      assert_events_once (recorder, pid);
      if (procwatch_process_has_status (process))
        g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 12);
    }
}

/* /proc mounted with hidepid=invisible (hidepid=2) in a private mount
 * namespace, the test dropped to nobody: another user's process is not in
 * /proc, yet pidfds still work on it. A backend that needs /proc must say
 * so at watch time, never take the hidden process for a reaped one. */
static const char *
hide_processes_and_become_nobody (gconstpointer user_data)
{
  const char *failed = test_mount_private_proc ("hidepid=invisible");

  if (failed != NULL)
    return failed;

  /* In a user namespace, nobody may not be mapped. */
  if (setgroups (0, NULL) != 0 || setresgid (65534, 65534, 65534) != 0 ||
      setresuid (65534, 65534, 65534) != 0)
    return "becoming uid 65534";

  /* LeakSanitizer, at exit, must still be able to look at this process. */
  prctl (PR_SET_DUMPABLE, 1);
  return NULL;
}

static void
test_hidepid (void)
{
  g_autofree char *why = NULL;

  if (g_test_subprocess ())
    {
      g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
      g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
      g_autoptr(TestRecorder) recorder = NULL;
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *proc_dir = NULL;
      GPid pid = test_process_get_pid (target);

      g_assert_no_errno (unshare (CLONE_NEWNS));
      g_assert_null (hide_processes_and_become_nobody (NULL));
      proc_dir = g_strdup_printf ("/proc/%d", (int) pid);
      g_assert_false (g_file_test (proc_dir, G_FILE_TEST_EXISTS));

      monitor = procwatch_process_monitor_new ();
      recorder = test_recorder_new (monitor);
      process = procwatch_process_monitor_watch_pid (monitor, pid, &error);

      if (g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd"))
        {
          g_assert_no_error (error);
          test_process_exit (target, 3);
          test_run_until_count (NULL, &recorder->n_exited, 1);
          test_process_reap (target);
          test_run_until_count (NULL, &recorder->n_reaped, 1);
          assert_events_once (recorder, pid);
          g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 3);
        }
      else
        {
          /* A clear error, not "no such process". */
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
          g_assert_nonnull (strstr (error->message, "hidepid"));
          g_assert_null (process);
          g_clear_error (&error);

          if (test_have_pidfd ())
            {
              int pidfd = procwatch_pidfd_open (pid, 0);

              process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
              g_assert_error (error, G_IO_ERROR, G_IO_ERROR_PERMISSION_DENIED);
              g_assert_null (process);
              close (pidfd);
            }
          test_drain_context (NULL);
          g_assert_cmpuint (recorder->events->len, ==, 0);

          /* Root's process: nobody cannot kill it, only tell it to exit. */
          test_process_exit (target, 0);
          test_process_reap (target);
        }
      return;
    }

  if (getuid () != 0)
    {
      g_test_skip ("mounting /proc with hidepid needs root");
      return;
    }

  if (!test_can_unshare (CLONE_NEWNS, hide_processes_and_become_nobody, NULL, &why))
    {
      g_test_skip_printf ("cannot mount a /proc with hidepid in a private mount namespace "
                          "and drop to uid 65534 here: %s", why);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

/* /proc covered by an empty tmpfs in a private mount namespace, as in a
 * chroot without /proc or with /proc unmounted: covered, not unmounted,
 * since in a user namespace /proc is locked to the mount below it. */
static const char *
cover_proc (gconstpointer user_data)
{
  if (mount ("none", "/proc", "none", MS_REC | MS_PRIVATE, NULL) != 0)
    return "making /proc private";
  if (mount ("none", "/proc", "tmpfs", MS_RDONLY, NULL) != 0)
    return "covering /proc with a tmpfs";
  return NULL;
}

static char *
read_comm (GPid pid)
{
  g_autofree char *path = g_strdup_printf ("/proc/%d/comm", (int) pid);
  char *comm = NULL;

  g_assert_true (g_file_get_contents (path, &comm, NULL, NULL));
  return g_strchomp (comm);
}

/* Without /proc, a backend that reads it says that /proc is missing (not
 * that it is of another pid namespace), and a monitor made then reads
 * names once /proc is back: its /proc is opened again at the next watch. */
static void
test_no_proc (void)
{
  g_autofree char *why = NULL;

  if (g_test_subprocess ())
    {
      g_autoptr(ProcwatchProcessMonitor) before = procwatch_process_monitor_new ();
      g_autoptr(TestProcess) first = test_process_spawn (TEST_PROCESS_CHILD);
      g_autoptr(TestProcess) second = NULL;
      g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
      g_autoptr(TestRecorder) recorder = NULL;
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(ProcwatchProcess) later = NULL;
      g_autoptr(GError) error = NULL;
      g_autofree char *comm = NULL;
      gboolean reads_proc;

      reads_proc = !g_str_equal (procwatch_process_monitor_get_backend (before), "pidfd");
      g_assert_no_errno (test_unshare (CLONE_NEWNS));
      g_assert_null (cover_proc (NULL));
      g_assert_false (g_file_test ("/proc/self", G_FILE_TEST_EXISTS));

      monitor = procwatch_process_monitor_new ();
      process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (first), &error);
      if (reads_proc)
        {
          g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
          g_assert_nonnull (strstr (error->message, "/proc is not mounted"));
          g_assert_null (strstr (error->message, "pid namespace"));
          g_assert_null (process);
        }
      else
        {
          /* pidfds need no /proc; only the name cannot be read. */
          g_assert_no_error (error);
          g_assert_null (procwatch_process_get_name (process));
        }
      g_clear_error (&error);

      g_assert_no_errno (umount2 ("/proc", MNT_DETACH));
      second = test_process_spawn (TEST_PROCESS_CHILD);
      later = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (second), &error);
      g_assert_no_error (error);
      comm = read_comm (test_process_get_pid (second));
      g_assert_cmpstr (procwatch_process_get_name (later), ==, comm);

      /* And it watches. */
      recorder = test_recorder_new (monitor);
      test_process_exit (second, 0);
      test_process_reap (second);
      test_run_until_count (NULL, &recorder->n_reaped, 1);
      return;
    }

  if (!test_can_unshare (CLONE_NEWNS, cover_proc, NULL, &why))
    {
      g_test_skip_printf ("cannot cover /proc in a private mount namespace here: %s", why);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

static void
add_with_errors (const char    *name,
                 GTestDataFunc  func)
{
  g_autofree char *enomem = g_strdup_printf ("/faults/%s/ENOMEM", name);
  g_autofree char *eintr = g_strdup_printf ("/faults/%s/EINTR", name);

  g_test_add_data_func (enomem, GINT_TO_POINTER (ENOMEM), func);
  g_test_add_data_func (eintr, GINT_TO_POINTER (EINTR), func);
}

typedef struct
{
  GPid zombie;
  guint zombie_probes;
  guint other_probes;
  GPid other;
} ProbeTargets;

/* The pid a pidfd refers to, from its fdinfo; 0 if unknown. */
static GPid
pid_of_pidfd (int pidfd)
{
  g_autofree char *path = g_strdup_printf ("/proc/self/fdinfo/%d", pidfd);
  g_autofree char *text = NULL;
  const char *line;

  if (pidfd < 0 || !g_file_get_contents (path, &text, NULL, NULL))
    return 0;

  line = strstr (text, "\nPid:");
  return line != NULL ? (GPid) g_ascii_strtoll (line + 5, NULL, 10) : 0;
}

static gboolean
count_probe_target (FaultCall   call,
                    const char *path,
                    gpointer    user_data)
{
  ProbeTargets *targets = user_data;
  GPid pid = pid_of_pidfd (fault_get_pidfd ());

  /* Once reaped, fdinfo says -1: of the watched, only the zombie is. */
  if (pid == targets->zombie || pid == -1)
    {
      targets->zombie_probes++;
    }
  else
    {
      targets->other_probes++;
      targets->other = pid;
    }

  return TRUE;
}

/* Kernel support page, without the hang-up: "Running processes are never
 * probed: nothing runs for them until they exit"; a zombie is, on its
 * backoff. Running processes are watched alongside a zombie, and every
 * probe made while the zombie's backoff grows (past 100 ms of main loop)
 * must target the zombie. */
static void
test_running_never_probed (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(GPtrArray) running = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(TestProcess) zombie = NULL;
  g_autoptr(GError) error = NULL;
  const char *debug = g_getenv ("PROCWATCH_DEBUG");
  ProbeTargets targets = { 0, };
  guint i;

  if (g_strcmp0 (procwatch_process_monitor_get_backend (monitor), "pidfd") != 0 ||
      debug == NULL || strstr (debug, "no-pollhup") == NULL)
    {
      g_test_skip ("Only the pidfd backend without the hang-up probes zombies");
      return;
    }

  for (i = 0; i < 5; i++)
    {
      g_ptr_array_add (running, test_process_spawn (TEST_PROCESS_CHILD));
      g_ptr_array_add (processes,
                       procwatch_process_monitor_watch_pid (monitor,
                                                            test_process_get_pid (running->pdata[i]),
                                                            &error));
      g_assert_no_error (error);
    }
  zombie = test_process_spawn (TEST_PROCESS_CHILD);
  g_ptr_array_add (processes,
                   procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (zombie),
                                                        &error));
  g_assert_no_error (error);

  /* Watching reads each state once; what counts is what follows. */
  fault_reset ();
  targets.zombie = test_process_get_pid (zombie);
  fault_set_hook (FAULT_PIDFD_SEND_SIGNAL, count_probe_target, &targets);

  test_process_exit (zombie, 0);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  /* Probes 1, 2, 4, ..., 64 ms after the exit. */
  test_run_until_count (NULL, &targets.zombie_probes, 8);

  g_test_message ("%u probes of the zombie, %u of others (last: %d)",
                  targets.zombie_probes, targets.other_probes, (int) targets.other);
  g_assert_cmpuint (targets.other_probes, ==, 0);
  g_assert_cmpuint (recorder->n_exited, ==, 1);

  /* Reaped: its probes end with it, and still no running one is probed. */
  test_process_reap (zombie);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  fault_reset ();
  g_assert_cmpuint (targets.other_probes, ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  g_test_add_func ("/faults/epoll-create", test_epoll_create_fails);
  add_with_errors ("epoll-add", test_epoll_add_fails);
  add_with_errors ("epoll-modify", test_epoll_modify_fails);
  add_with_errors ("epoll-wait", test_epoll_wait_fails);
  add_with_errors ("pidfd-open", test_pidfd_open_fails);
  add_with_errors ("probe-and-status-calls", test_probe_calls_fail);
  g_test_add_func ("/faults/reap-begins-between-looks", test_reap_begins_between_looks);
  g_test_add_func ("/faults/running-never-probed", test_running_never_probed);
  g_test_add_func ("/faults/epoll-remove-while-forked", test_epoll_remove_fails_while_forked);
  g_test_add_func ("/faults/storm", test_storm);
  g_test_add_func ("/faults/exit-during-watch", test_exit_during_watch);
  g_test_add_func ("/faults/hidepid", test_hidepid);
  g_test_add_func ("/faults/no-proc", test_no_proc);

  return g_test_run ();
}
