/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The monitor on real processes: each scenario runs for a child of the test
 * and for a grandchild held by an intermediate parent, so the test decides
 * when the process exits and, separately, when it is reaped.
 */

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

typedef TestFixture Fixture;

/* What the status must be at each event, for this kind of process. */
static void
assert_status_at_events (Fixture *fixture,
                         int      expected)
{
  gboolean after_reap = test_status_known_after_reap (fixture->monitor);
  TestEvent *exited = test_recorder_find (fixture->recorder, fixture->pid,
                                          PROCWATCH_PROCESS_STATE_EXITED);
  TestEvent *reaped = test_recorder_find (fixture->recorder, fixture->pid,
                                          PROCWATCH_PROCESS_STATE_REAPED);

  g_assert_nonnull (exited);
  g_assert_nonnull (reaped);

  if (test_fixture_is_child (fixture))
    {
      g_assert_true (exited->had_status);
      g_assert_cmpint (exited->status, ==, expected);
    }

  if (test_fixture_is_child (fixture) || after_reap)
    {
      g_assert_true (reaped->had_status);
      g_assert_cmpint (reaped->status, ==, expected);
    }
  else
    {
      g_assert_false (reaped->had_status);
    }
}

static void
test_backend (Fixture       *fixture,
              gconstpointer  data)
{
  g_autofree char *backend = NULL;
  const char *expected = test_expected_backend ();

  g_object_get (fixture->monitor, "backend", &backend, NULL);
  g_assert_cmpstr (backend, ==, procwatch_process_monitor_get_backend (fixture->monitor));
  g_assert_cmpstr (backend, ==, expected != NULL ? expected : "pidfd");
}

static void
test_exit_code (Fixture       *fixture,
                gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, fixture->pid);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);
  g_assert_false (procwatch_process_has_status (process));

  test_process_exit (fixture->target, 3);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  g_assert_cmpuint (fixture->recorder->n_reaped, ==, 0);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_EXITED);

  status = test_process_reap (fixture->target);
  g_assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 3);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);

  assert_status_at_events (fixture, status);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_REAPED);
  if (procwatch_process_has_status (process))
    {
      g_assert_true (procwatch_process_get_if_exited (process));
      g_assert_false (procwatch_process_get_if_signaled (process));
      g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 3);
    }
}

static void
test_signal (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  int status;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);

  test_process_kill (fixture->target, SIGTERM);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  status = test_process_reap (fixture->target);
  g_assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGTERM);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);

  assert_status_at_events (fixture, status);
  if (procwatch_process_has_status (process))
    {
      g_assert_false (procwatch_process_get_if_exited (process));
      g_assert_true (procwatch_process_get_if_signaled (process));
      g_assert_cmpint (procwatch_process_get_term_sig (process), ==, SIGTERM);
    }
}

static void
test_already_zombie (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  test_process_exit (fixture->target, 7);
  test_process_await_exit (fixture->target);

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);

  /* Never synchronously from inside the call. */
  g_assert_cmpuint (fixture->recorder->events->len, ==, 0);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);

  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  g_assert_cmpuint (fixture->recorder->n_reaped, ==, 0);

  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  assert_status_at_events (fixture, 7 << 8);
}

static void
test_exit_and_reap_in_one_wakeup (Fixture       *fixture,
                                  gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  TestEvent *first;
  TestEvent *second;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);

  /* The main loop does not run between the exit and the reap. */
  test_process_exit (fixture->target, 9);
  test_process_reap (fixture->target);

  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  test_drain_context (NULL);

  g_assert_cmpuint (fixture->recorder->events->len, ==, 2);
  first = &g_array_index (fixture->recorder->events, TestEvent, 0);
  second = &g_array_index (fixture->recorder->events, TestEvent, 1);
  g_assert_cmpint (first->state, ==, PROCWATCH_PROCESS_STATE_EXITED);
  g_assert_cmpint (second->state, ==, PROCWATCH_PROCESS_STATE_REAPED);
  g_assert_true (first->process == process && second->process == process);

  /* It was never seen as a zombie: its status can only come after the reap. */
  if (test_status_known_after_reap (fixture->monitor))
    {
      g_assert_true (procwatch_process_has_status (process));
      g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 9);
    }
  else if (!test_fixture_is_child (fixture))
    {
      g_assert_false (procwatch_process_has_status (process));
    }
}

static void
test_autoreaped (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);

  /* Its parent ignores SIGCHLD: it is never a zombie, yet both signals come. */
  test_process_exit (fixture->target, 5);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  test_drain_context (NULL);

  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
  g_assert_cmpuint (fixture->recorder->n_reaped, ==, 1);
  g_assert_cmpint (g_array_index (fixture->recorder->events, TestEvent, 0).state, ==,
                   PROCWATCH_PROCESS_STATE_EXITED);
  if (test_status_known_after_reap (fixture->monitor))
    g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 5);

  test_process_reap (fixture->target);
}

static void
test_already_reaped (Fixture       *fixture,
                     gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *pid_text = NULL;

  test_process_exit (fixture->target, 0);
  test_process_reap (fixture->target);

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (process);
  pid_text = g_strdup_printf ("%d", (int) fixture->pid);
  g_assert_nonnull (strstr (error->message, pid_text));
}

static void
test_unwatch (Fixture       *fixture,
              gconstpointer  data)
{
  g_autoptr(ProcwatchProcessMonitor) sentinel = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) sentinel_recorder = test_recorder_new (sentinel);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) sentinel_process = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);
  sentinel_process = procwatch_process_monitor_watch_pid (sentinel, fixture->pid, &error);
  g_assert_no_error (error);

  g_assert_true (procwatch_process_monitor_unwatch (fixture->monitor, fixture->pid));
  g_assert_false (procwatch_process_monitor_unwatch (fixture->monitor, fixture->pid));
  g_assert_false (procwatch_process_monitor_unwatch (fixture->monitor, 0));

  test_fixture_assert_silent_to_the_end (fixture, sentinel_recorder);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);
}

static void
test_watch_twice (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) first = NULL;
  g_autoptr(ProcwatchProcess) second = NULL;
  g_autoptr(ProcwatchProcess) by_pidfd = NULL;
  g_autoptr(GError) error = NULL;

  first = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);
  second = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);
  g_assert_true (first == second);

  if (test_have_pidfd ())
    {
      by_pidfd = test_watch_by_pidfd (fixture->monitor, fixture->pid);
      g_assert_true (by_pidfd == first);
    }

  test_process_exit (fixture->target, 0);
  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
  g_assert_cmpuint (fixture->recorder->n_reaped, ==, 1);
}

/* A reaped process's pid taken by a new process: the new one is another
 * process with an object of its own, and the old watch reports only the old
 * process. Needs a private pid namespace to force the reuse: done in the
 * pid-reuse test; here the monitor is asked for a pid whose old process is
 * reaped while its watch is still pending. */
static void
test_watch_after_reap_before_dispatch (Fixture       *fixture,
                                       gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) again = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);

  test_process_exit (fixture->target, 0);
  test_process_reap (fixture->target);

  /* The pid is free: watching it again must not hand out the old process. */
  again = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  g_assert_null (again);

  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
}

static void
test_watch_pidfd (Fixture       *fixture,
                  gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  int pidfd;
  int status;

  if (test_skip_without_pidfd ())
    return;

  pidfd = procwatch_pidfd_open (fixture->pid, 0);
  g_assert_cmpint (pidfd, >=, 0);
  process = procwatch_process_monitor_watch_pidfd (fixture->monitor, pidfd, &error);
  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, fixture->pid);

  /* The monitor keeps its own duplicate. */
  g_assert_no_errno (close (pidfd));

  test_process_kill (fixture->target, SIGKILL);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  status = test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);

  /* Every backend holds the pidfd, so reads the status kept after the reap. */
  if (!test_fixture_is_child (fixture) && test_kernel_keeps_exit_status ())
    {
      TestEvent *reaped = test_recorder_find (fixture->recorder, fixture->pid,
                                              PROCWATCH_PROCESS_STATE_REAPED);

      g_assert_nonnull (test_recorder_find (fixture->recorder, fixture->pid,
                                            PROCWATCH_PROCESS_STATE_EXITED));
      g_assert_true (reaped->had_status);
      g_assert_cmpint (reaped->status, ==, status);
    }
  else
    {
      assert_status_at_events (fixture, status);
    }
}

static void
test_watch_pidfd_of_reaped (Fixture       *fixture,
                            gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  int pidfd;

  if (test_skip_without_pidfd ())
    return;

  pidfd = procwatch_pidfd_open (fixture->pid, 0);
  g_assert_cmpint (pidfd, >=, 0);
  test_process_exit (fixture->target, 4);
  test_process_reap (fixture->target);

  process = procwatch_process_monitor_watch_pidfd (fixture->monitor, pidfd, &error);
  g_assert_no_error (error);
  close (pidfd);
  g_assert_cmpuint (fixture->recorder->events->len, ==, 0);

  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
  g_assert_cmpint (g_array_index (fixture->recorder->events, TestEvent, 0).state, ==,
                   PROCWATCH_PROCESS_STATE_EXITED);
  if (test_status_known_after_reap (fixture->monitor))
    g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 4);
}

static void
test_many (Fixture       *fixture,
           gconstpointer  data)
{
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GRand) rand = g_rand_new ();
  const guint n = test_fixture_is_child (fixture) ? 400 : 250;
  guint i;

  for (i = 0; i < n; i++)
    {
      TestProcess *target = test_process_spawn (fixture->kind);
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process;

      process = procwatch_process_monitor_watch_pid (fixture->monitor,
                                                     test_process_get_pid (target), &error);
      g_assert_no_error (error);
      g_ptr_array_add (targets, target);
      g_ptr_array_add (processes, process);
    }

  /* Exits and reaps in random order, interleaved with main-loop iterations. */
  for (i = 0; i + 1 < n; i++)
    {
      guint j = g_rand_int_range (rand, i, n);
      gpointer swap = g_ptr_array_index (targets, i);

      g_ptr_array_index (targets, i) = g_ptr_array_index (targets, j);
      g_ptr_array_index (targets, j) = swap;
    }

  for (i = 0; i < n; i++)
    {
      TestProcess *target = g_ptr_array_index (targets, i);

      if (g_rand_boolean (rand))
        test_process_exit (target, i % 256);
      else
        test_process_kill (target, SIGKILL);

      if (g_rand_int_range (rand, 0, 4) == 0)
        g_main_context_iteration (NULL, FALSE);
    }

  for (i = 0; i < n; i++)
    {
      test_process_reap (g_ptr_array_index (targets, i));
      if (g_rand_int_range (rand, 0, 4) == 0)
        g_main_context_iteration (NULL, FALSE);
    }

  test_run_until_count (NULL, &fixture->recorder->n_reaped, n);
  test_drain_context (NULL);

  g_assert_cmpuint (fixture->recorder->n_exited, ==, n);
  g_assert_cmpuint (fixture->recorder->n_reaped, ==, n);
  for (i = 0; i < n; i++)
    {
      GPid pid = test_process_get_pid (g_ptr_array_index (targets, i));

      g_assert_cmpuint (test_recorder_count (fixture->recorder, pid,
                                             PROCWATCH_PROCESS_STATE_EXITED), ==, 1);
      g_assert_cmpuint (test_recorder_count (fixture->recorder, pid,
                                             PROCWATCH_PROCESS_STATE_REAPED), ==, 1);
    }
}

typedef struct
{
  ProcwatchProcess *process;
  GError *error;
  gboolean done;
} WaitResult;

static void
on_wait_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  WaitResult *wait = user_data;

  g_assert_false (wait->done);
  wait->process = procwatch_process_monitor_wait_finish (PROCWATCH_PROCESS_MONITOR (source),
                                                         result, &wait->error);
  wait->done = TRUE;
}

static void
wait_result_clear (WaitResult *wait)
{
  g_clear_object (&wait->process);
  g_clear_error (&wait->error);
}

static void
test_wait_async (Fixture       *fixture,
                 gconstpointer  data)
{
  WaitResult first = { 0 };
  WaitResult second = { 0 };
  WaitResult late = { 0 };

  /* Not watched before: the wait watches it. */
  procwatch_process_monitor_wait_async (fixture->monitor, fixture->pid, NULL, on_wait_done, &first);
  procwatch_process_monitor_wait_async (fixture->monitor, fixture->pid, NULL, on_wait_done,
                                        &second);
  g_assert_false (first.done);

  test_process_exit (fixture->target, 12);
  test_run_until (NULL, &first.done);
  test_run_until (NULL, &second.done);

  g_assert_no_error (first.error);
  g_assert_no_error (second.error);
  g_assert_true (first.process == second.process);
  g_assert_cmpint (procwatch_process_get_pid (first.process), ==, fixture->pid);
  g_assert_cmpint (procwatch_process_get_state (first.process), >=, PROCWATCH_PROCESS_STATE_EXITED);
  if (test_fixture_is_child (fixture))
    g_assert_cmpint (procwatch_process_get_exit_status (first.process), ==, 12);

  /* A process that has exited already: completes from the main loop. */
  procwatch_process_monitor_wait_async (fixture->monitor, fixture->pid, NULL, on_wait_done, &late);
  g_assert_false (late.done);
  test_run_until (NULL, &late.done);
  g_assert_no_error (late.error);
  g_assert_true (late.process == first.process);

  /* It stays watched until reaped, like any watch. */
  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);

  wait_result_clear (&first);
  wait_result_clear (&second);
  wait_result_clear (&late);
}

static void
test_wait_async_cancel (Fixture       *fixture,
                        gconstpointer  data)
{
  g_autoptr(GCancellable) cancellable = g_cancellable_new ();
  g_autoptr(GCancellable) precancelled = g_cancellable_new ();
  WaitResult cancelled = { 0 };
  WaitResult kept = { 0 };
  WaitResult early = { 0 };
  WaitResult unwatched = { 0 };

  procwatch_process_monitor_wait_async (fixture->monitor, fixture->pid, cancellable, on_wait_done,
                                        &cancelled);
  procwatch_process_monitor_wait_async (fixture->monitor, fixture->pid, NULL, on_wait_done, &kept);
  g_cancellable_cancel (precancelled);
  procwatch_process_monitor_wait_async (fixture->monitor, fixture->pid, precancelled, on_wait_done,
                                        &early);

  g_cancellable_cancel (cancellable);
  test_run_until (NULL, &cancelled.done);
  test_run_until (NULL, &early.done);
  g_assert_error (cancelled.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_error (early.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  g_assert_null (cancelled.process);
  g_assert_false (kept.done);

  /* The other wait is untouched by the cancellation. */
  test_process_exit (fixture->target, 0);
  test_run_until (NULL, &kept.done);
  g_assert_no_error (kept.error);

  /* Unwatching ends pending waits with CANCELLED. */
  {
    g_autoptr(TestProcess) other = test_process_spawn (fixture->kind);

    procwatch_process_monitor_wait_async (fixture->monitor, test_process_get_pid (other), NULL,
                                          on_wait_done, &unwatched);
    g_assert_true (procwatch_process_monitor_unwatch (fixture->monitor,
                                                      test_process_get_pid (other)));
    test_run_until (NULL, &unwatched.done);
    g_assert_error (unwatched.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
  }

  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);

  wait_result_clear (&cancelled);
  wait_result_clear (&kept);
  wait_result_clear (&early);
  wait_result_clear (&unwatched);
}

static void
test_wait_async_errors (Fixture       *fixture,
                        gconstpointer  data)
{
  WaitResult invalid = { 0 };
  WaitResult gone = { 0 };

  test_process_exit (fixture->target, 0);
  test_process_reap (fixture->target);

  procwatch_process_monitor_wait_async (fixture->monitor, -1, NULL, on_wait_done, &invalid);
  procwatch_process_monitor_wait_async (fixture->monitor, fixture->pid, NULL, on_wait_done, &gone);
  g_assert_false (invalid.done);
  test_run_until (NULL, &invalid.done);
  test_run_until (NULL, &gone.done);
  g_assert_error (invalid.error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_assert_error (gone.error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);

  wait_result_clear (&invalid);
  wait_result_clear (&gone);
}

typedef struct
{
  guint n_exited;
  guint n_reaped;
  ProcwatchProcessMonitor *monitor;
} UnrefInHandler;

static void
unref_on_exited (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 UnrefInHandler          *state)
{
  state->n_exited++;
  g_clear_object (&state->monitor);
}

static void
count_reaped (ProcwatchProcessMonitor *monitor,
              ProcwatchProcess        *process,
              UnrefInHandler          *state)
{
  state->n_reaped++;
}

static void
test_unref_in_handler (Fixture       *fixture,
                       gconstpointer  data)
{
  g_autoptr(TestProcess) a = test_process_spawn (fixture->kind);
  g_autoptr(TestProcess) b = test_process_spawn (fixture->kind);
  UnrefInHandler state = { 0 };
  g_autoptr(GError) error = NULL;
  ProcwatchProcess *process;
  GWeakRef weak;

  state.monitor = procwatch_process_monitor_new ();
  g_weak_ref_init (&weak, state.monitor);
  g_signal_connect (state.monitor, "exited", G_CALLBACK (unref_on_exited), &state);
  g_signal_connect (state.monitor, "reaped", G_CALLBACK (count_reaped), &state);

  process = procwatch_process_monitor_watch_pid (state.monitor, test_process_get_pid (a), &error);
  g_assert_no_error (error);
  g_object_unref (process);
  process = procwatch_process_monitor_watch_pid (state.monitor, test_process_get_pid (b), &error);
  g_assert_no_error (error);
  g_object_unref (process);
  /* The fixture's monitor watches both too: its "reaped" tells when every
   * event has come. */
  for (guint i = 0; i < 2; i++)
    {
      process = procwatch_process_monitor_watch_pid (fixture->monitor,
                                                     test_process_get_pid (i ? b : a), &error);
      g_assert_no_error (error);
      g_object_unref (process);
    }

  /* Both exit and are reaped before the loop runs: four events are ready at
   * once, and only the first may be emitted. */
  test_process_exit (a, 0);
  test_process_exit (b, 0);
  test_process_reap (a);
  test_process_reap (b);

  test_run_until_count (NULL, &fixture->recorder->n_reaped, 2);
  test_drain_context (NULL);

  g_assert_cmpuint (state.n_exited, ==, 1);
  g_assert_cmpuint (state.n_reaped, ==, 0);
  g_assert_null (g_weak_ref_get (&weak));
  g_weak_ref_clear (&weak);
}

typedef struct
{
  GPid pid;
  GThread *thread;
  GThread *exited_thread;
  GMainContext *context;
  gboolean ready;
  gboolean exited;
  GMutex lock;
  GCond cond;
} ThreadState;

static void
on_thread_exited (ProcwatchProcessMonitor *monitor,
                  ProcwatchProcess        *process,
                  ThreadState             *state)
{
  state->exited_thread = g_thread_self ();
  state->exited = TRUE;
}

static gpointer
monitor_thread (gpointer user_data)
{
  ThreadState *state = user_data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  g_main_context_push_thread_default (context);
  monitor = procwatch_process_monitor_new ();
  g_signal_connect (monitor, "exited", G_CALLBACK (on_thread_exited), state);
  process = procwatch_process_monitor_watch_pid (monitor, state->pid, &error);
  g_assert_no_error (error);

  g_mutex_lock (&state->lock);
  state->ready = TRUE;
  g_cond_signal (&state->cond);
  g_mutex_unlock (&state->lock);

  test_run_until (context, &state->exited);

  g_clear_object (&monitor);
  g_main_context_pop_thread_default (context);
  return NULL;
}

static void
test_worker_thread (Fixture       *fixture,
                    gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  ThreadState state = { 0 };
  TestEvent *event;

  g_mutex_init (&state.lock);
  g_cond_init (&state.cond);
  state.pid = fixture->pid;
  state.thread = g_thread_new ("monitor", monitor_thread, &state);

  g_mutex_lock (&state.lock);
  while (!state.ready)
    g_cond_wait (&state.cond, &state.lock);
  g_mutex_unlock (&state.lock);

  process = procwatch_process_monitor_watch_pid (fixture->monitor, state.pid, &error);
  g_assert_no_error (error);

  test_process_exit (fixture->target, 0);
  g_thread_join (state.thread);
  g_assert_true (state.exited_thread == state.thread);

  /* The main thread's monitor delivers in the main thread only. */
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);
  event = &g_array_index (fixture->recorder->events, TestEvent, 0);
  g_assert_true (event->thread == g_thread_self ());

  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  g_mutex_clear (&state.lock);
  g_cond_clear (&state.cond);
}

static void
test_no_fd_leak (Fixture       *fixture,
                 gconstpointer  data)
{
  guint fds_before;
  guint i;

  /* The first watch creates the monitor's epoll instance. */
  {
    g_autoptr(TestProcess) warmup = test_process_spawn (fixture->kind);
    g_autoptr(ProcwatchProcess) process =
      procwatch_process_monitor_watch_pid (fixture->monitor, test_process_get_pid (warmup), NULL);

    g_assert_nonnull (process);
    test_process_exit (warmup, 0);
    test_process_reap (warmup);
    test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  }

  fds_before = test_count_open_fds ();

  for (i = 0; i < 200; i++)
    {
      g_autoptr(TestProcess) target = test_process_spawn (fixture->kind);
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(GError) error = NULL;

      process = procwatch_process_monitor_watch_pid (fixture->monitor,
                                                     test_process_get_pid (target), &error);
      g_assert_no_error (error);

      if (i % 3 == 0 && test_have_pidfd ())
        {
          g_autoptr(ProcwatchProcess) again = NULL;

          again = test_watch_by_pidfd (fixture->monitor, test_process_get_pid (target));
        }

      if (i % 5 == 0)
        procwatch_process_monitor_unwatch (fixture->monitor, test_process_get_pid (target));

      test_process_exit (target, 0);
      test_process_reap (target);

      if (i % 5 != 0)
        test_run_until_count (NULL, &fixture->recorder->n_reaped, fixture->recorder->n_reaped + 1);
    }

  test_drain_context (NULL);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
}

typedef struct
{
  GMutex lock;
  GCond cond;
  pid_t tid;
  gboolean release;
} ThreadId;

static gpointer
report_thread_id (gpointer user_data)
{
  ThreadId *state = user_data;

  g_mutex_lock (&state->lock);
  state->tid = (pid_t) syscall (SYS_gettid);
  g_cond_broadcast (&state->cond);
  while (!state->release)
    g_cond_wait (&state->cond, &state->lock);
  g_mutex_unlock (&state->lock);

  return NULL;
}

/* A thread is watched as a task of its own: it exits and is reaped at once
 * (threads reap themselves), while its process lives on. */
static void
test_thread (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  ThreadId thread_id = { 0 };
  GThread *thread;

  g_mutex_init (&thread_id.lock);
  g_cond_init (&thread_id.cond);
  g_mutex_lock (&thread_id.lock);
  thread = g_thread_new ("watched", report_thread_id, &thread_id);
  while (thread_id.tid == 0)
    g_cond_wait (&thread_id.cond, &thread_id.lock);
  g_mutex_unlock (&thread_id.lock);

  process = procwatch_process_monitor_watch_pid (fixture->monitor, thread_id.tid, &error);
  if (g_error_matches (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED))
    g_test_skip (error->message);
  else
    g_assert_no_error (error);

  g_mutex_lock (&thread_id.lock);
  thread_id.release = TRUE;
  g_cond_broadcast (&thread_id.cond);
  g_mutex_unlock (&thread_id.lock);
  g_thread_join (thread);

  if (process != NULL)
    {
      g_assert_cmpint (procwatch_process_get_pid (process), ==, thread_id.tid);
      test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
      g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
      g_assert_cmpint (g_array_index (fixture->recorder->events, TestEvent, 0).state, ==,
                       PROCWATCH_PROCESS_STATE_EXITED);
    }

  g_mutex_clear (&thread_id.lock);
  g_cond_clear (&thread_id.cond);
}

static void
assert_error_names_pid (GError *error,
                        int     pid)
{
  g_autofree char *pid_text = g_strdup_printf ("%d", pid);

  g_assert_nonnull (error);
  g_assert_nonnull (strstr (error->message, pid_text));
}

static void
test_errors (Fixture       *fixture,
             gconstpointer  data)
{
  g_autoptr(TestProcess) gone = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) failed = NULL;
  g_autoptr(GError) error = NULL;
  guint fds_before;
  int fd;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);
  fds_before = test_count_open_fds ();

  failed = procwatch_process_monitor_watch_pid (fixture->monitor, 0, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  assert_error_names_pid (error, 0);
  g_clear_error (&error);

  failed = procwatch_process_monitor_watch_pid (fixture->monitor, -5, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  assert_error_names_pid (error, -5);
  g_clear_error (&error);

  test_process_exit (gone, 0);
  test_process_reap (gone);
  failed = procwatch_process_monitor_watch_pid (fixture->monitor, test_process_get_pid (gone),
                                                &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_FOUND);
  assert_error_names_pid (error, test_process_get_pid (gone));
  g_clear_error (&error);

  /* Bad pidfds: negative, closed, not a pidfd at all, a /proc directory. */
  failed = procwatch_process_monitor_watch_pidfd (fixture->monitor, -1, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  g_assert_no_errno (close (fd));
  failed = procwatch_process_monitor_watch_pidfd (fixture->monitor, fd, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);

  fd = open ("/dev/null", O_RDONLY | O_CLOEXEC);
  failed = procwatch_process_monitor_watch_pidfd (fixture->monitor, fd, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  close (fd);

  fd = open ("/proc/self", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  failed = procwatch_process_monitor_watch_pidfd (fixture->monitor, fd, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT);
  g_clear_error (&error);
  close (fd);

  g_assert_null (failed);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);

  /* None of that disturbed the watch that was there. */
  test_process_exit (fixture->target, 1);
  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);
}

static void
test_out_of_fds (Fixture       *fixture,
                 gconstpointer  data)
{
  g_autoptr(TestProcess) refused = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) failed = NULL;
  g_autoptr(ProcwatchProcess) later = NULL;
  g_autoptr(GArray) fillers = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GError) error = NULL;
  struct rlimit saved;
  struct rlimit lowered;
  guint fds_before;
  guint i;
  int fd;

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);

  /* Fill the table up to a lowered limit, so the next fd cannot be had. */
  g_assert_no_errno (getrlimit (RLIMIT_NOFILE, &saved));
  lowered = saved;
  fds_before = test_count_open_fds ();
  lowered.rlim_cur = fds_before + 16;
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &lowered));
  while ((fd = open ("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
    g_array_append_val (fillers, fd);
  g_assert_cmpint (errno, ==, EMFILE);
  fds_before += fillers->len;

  failed = procwatch_process_monitor_watch_pid (fixture->monitor, test_process_get_pid (refused),
                                                &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_TOO_MANY_OPEN_FILES);
  assert_error_names_pid (error, test_process_get_pid (refused));
  g_assert_null (failed);
  g_clear_error (&error);

  /* The watched process still reports while the table is full. */
  test_process_exit (fixture->target, 0);
  test_run_until_count (NULL, &fixture->recorder->n_exited, 1);

  /* Nothing leaked: one fd freed is one fd to count with. */
  close (g_array_index (fillers, int, 0));
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before - 1);

  for (i = 1; i < fillers->len; i++)
    close (g_array_index (fillers, int, i));
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &saved));

  /* Once fds are free again, watching works. */
  later = procwatch_process_monitor_watch_pid (fixture->monitor, test_process_get_pid (refused),
                                               &error);
  g_assert_no_error (error);
  test_process_exit (refused, 0);
  test_process_reap (refused);
  test_process_reap (fixture->target);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 2);
}

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  GPid next_pid;
  ProcwatchProcess *next;
  GError *error;
  gboolean done;
} WatchOnReaped;

static void
watch_next_on_reaped (ProcwatchProcessMonitor *monitor,
                      ProcwatchProcess        *process,
                      WatchOnReaped           *state)
{
  if (state->done)
    return;

  state->next = procwatch_process_monitor_watch_pid (monitor, state->next_pid, &state->error);
  state->done = TRUE;
}

/* A "reaped" handler that starts the next watch (a supervisor restarting a
 * service) has the fd of the process it was told about back, even when the
 * table was full: the monitor gives it up before the new watch opens one. */
static void
test_watch_in_reaped_handler_at_fd_limit (Fixture       *fixture,
                                          gconstpointer  data)
{
  g_autoptr(TestProcess) next = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GArray) fillers = g_array_new (FALSE, FALSE, sizeof (int));
  g_autoptr(GError) error = NULL;
  WatchOnReaped state = { 0 };
  struct rlimit saved;
  struct rlimit lowered;
  gulong handler;
  guint i;
  int fd;

  /* It opens the /proc directory, then the stat file in it: one fd more than
   * a reap gives back, for a moment. */
  if (g_strcmp0 (procwatch_process_monitor_get_backend (fixture->monitor), "poll") == 0)
    {
      g_test_skip ("the poll backend needs two fds at once to start a watch");
      return;
    }
  /* The fd comes back once it has left the epoll set: an EPOLL_CTL_DEL
   * failing leaves it open until it can leave. Whether the injected
   * failures hit that call depends on how many calls the kernel's path
   * makes before it (on 6.1, probing the reap, 1 time in 2). */
  if (g_strrstr (g_getenv ("PROCWATCH_FAULTS") ? g_getenv ("PROCWATCH_FAULTS") : "",
                 "epoll_ctl") != NULL)
    {
      g_test_skip ("epoll_ctl () fails on purpose here: the reaped process's fd may "
                   "stay open until it has left the epoll set");
      return;
    }

  process = procwatch_process_monitor_watch_pid (fixture->monitor, fixture->pid, &error);
  g_assert_no_error (error);
  state.next_pid = test_process_get_pid (next);
  handler = g_signal_connect (fixture->monitor, "reaped", G_CALLBACK (watch_next_on_reaped),
                              &state);

  /* Every fd below the lowered limit is taken. */
  g_assert_no_errno (getrlimit (RLIMIT_NOFILE, &saved));
  lowered = saved;
  lowered.rlim_cur = test_count_open_fds () + 16;
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &lowered));
  while ((fd = open ("/dev/null", O_RDONLY | O_CLOEXEC)) >= 0)
    g_array_append_val (fillers, fd);
  g_assert_cmpint (errno, ==, EMFILE);

  test_process_exit (fixture->target, 0);
  test_process_reap (fixture->target);
  test_run_until (NULL, &state.done);

  for (i = 0; i < fillers->len; i++)
    close (g_array_index (fillers, int, i));
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &saved));
  g_signal_handler_disconnect (fixture->monitor, handler);

  g_assert_no_error (state.error);
  g_assert_nonnull (state.next);
  g_assert_cmpint (procwatch_process_get_pid (state.next), ==, state.next_pid);

  /* The new watch works: its process is reported in turn. */
  test_process_exit (next, 0);
  test_process_reap (next);
  test_run_until_count (NULL, &fixture->recorder->n_reaped, 2);
  g_assert_cmpint (procwatch_process_get_state (state.next), ==, PROCWATCH_PROCESS_STATE_REAPED);
  g_object_unref (state.next);
}

static void
test_coexists_with_child_watch (Fixture       *fixture,
                                gconstpointer  data)
{
  g_autoptr(GSubprocess) subprocess = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  WaitResult wait = { 0 };
  GPid pid;

  subprocess = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE, &error, "sh", "-c",
                                 "read x; exit 17", NULL);
  g_assert_no_error (error);
  pid = (GPid) g_ascii_strtoll (g_subprocess_get_identifier (subprocess), NULL, 10);

  process = procwatch_process_monitor_watch_pid (fixture->monitor, pid, &error);
  g_assert_no_error (error);

  /* GSubprocess reaps it; the monitor only looks. */
  g_subprocess_wait_check_async (subprocess, NULL, (GAsyncReadyCallback) NULL, NULL);
  procwatch_process_monitor_wait_async (fixture->monitor, pid, NULL, on_wait_done, &wait);
  g_output_stream_close (g_subprocess_get_stdin_pipe (subprocess), NULL, NULL);

  test_run_until_count (NULL, &fixture->recorder->n_reaped, 1);
  test_run_until (NULL, &wait.done);
  g_assert_no_error (wait.error);
  g_assert_cmpuint (fixture->recorder->n_exited, ==, 1);

  /* Probing may miss the zombie that GLib reaped at once; then the status is
   * unknown, never wrong. */
  if (test_status_known_after_reap (fixture->monitor))
    g_assert_true (procwatch_process_has_status (process));
  if (procwatch_process_has_status (process))
    g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 17);

  /* GLib still got its status: the monitor did not steal the zombie. */
  while (g_subprocess_get_identifier (subprocess) != NULL)
    g_main_context_iteration (NULL, TRUE);
  g_assert_cmpint (g_subprocess_get_exit_status (subprocess), ==, 17);
  wait_result_clear (&wait);
}

typedef void (*FixtureFunc) (Fixture       *fixture,
                              gconstpointer  data);

static void
add_test (const char      *path,
          TestProcessKind  kind,
          FixtureFunc      set_up,
          FixtureFunc      func)
{
  g_test_add (path, Fixture, GINT_TO_POINTER (kind), set_up, func, test_fixture_tear_down);
}

/* The test once for a child of the test, once for a non-child. */
static void
add_for_each_kind (const char  *name,
                   FixtureFunc  set_up,
                   FixtureFunc  func)
{
  g_autofree char *child = g_strdup_printf ("/monitor/child/%s", name);
  g_autofree char *grandchild = g_strdup_printf ("/monitor/non-child/%s", name);

  add_test (child, TEST_PROCESS_CHILD, set_up, func);
  add_test (grandchild, TEST_PROCESS_GRANDCHILD, set_up, func);
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  add_test ("/monitor/backend", TEST_PROCESS_CHILD, test_fixture_set_up, test_backend);
  add_for_each_kind ("exit-code", test_fixture_set_up_target, test_exit_code);
  add_for_each_kind ("signal", test_fixture_set_up_target, test_signal);
  add_for_each_kind ("already-zombie", test_fixture_set_up_target, test_already_zombie);
  add_for_each_kind ("exit-and-reap-in-one-wakeup", test_fixture_set_up_target,
                     test_exit_and_reap_in_one_wakeup);
  add_test ("/monitor/non-child/autoreaped", TEST_PROCESS_GRANDCHILD_AUTOREAP,
            test_fixture_set_up_target, test_autoreaped);
  add_for_each_kind ("already-reaped", test_fixture_set_up_target, test_already_reaped);
  add_for_each_kind ("unwatch", test_fixture_set_up_target, test_unwatch);
  add_for_each_kind ("watch-twice", test_fixture_set_up_target, test_watch_twice);
  add_for_each_kind ("watch-after-reap-before-dispatch", test_fixture_set_up_target,
                     test_watch_after_reap_before_dispatch);
  add_for_each_kind ("watch-pidfd", test_fixture_set_up_target, test_watch_pidfd);
  add_for_each_kind ("watch-pidfd-of-reaped", test_fixture_set_up_target, test_watch_pidfd_of_reaped);
  add_for_each_kind ("many-random-order", test_fixture_set_up, test_many);
  add_for_each_kind ("wait-async", test_fixture_set_up_target, test_wait_async);
  add_for_each_kind ("wait-async-cancel", test_fixture_set_up_target, test_wait_async_cancel);
  add_test ("/monitor/wait-async-errors", TEST_PROCESS_CHILD, test_fixture_set_up_target,
            test_wait_async_errors);
  add_for_each_kind ("unref-in-handler", test_fixture_set_up, test_unref_in_handler);
  add_for_each_kind ("worker-thread", test_fixture_set_up_target, test_worker_thread);
  add_for_each_kind ("no-fd-leak", test_fixture_set_up, test_no_fd_leak);
  add_test ("/monitor/errors", TEST_PROCESS_CHILD, test_fixture_set_up_target, test_errors);
  add_test ("/monitor/thread", TEST_PROCESS_CHILD, test_fixture_set_up, test_thread);
  add_test ("/monitor/out-of-fds", TEST_PROCESS_GRANDCHILD, test_fixture_set_up_target, test_out_of_fds);
  add_test ("/monitor/child/watch-in-reaped-handler-at-fd-limit", TEST_PROCESS_CHILD,
            test_fixture_set_up_target, test_watch_in_reaped_handler_at_fd_limit);
  add_test ("/monitor/child/coexists-with-gsubprocess", TEST_PROCESS_CHILD, test_fixture_set_up,
            test_coexists_with_child_watch);

  return g_test_run ();
}
