/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The monitor's lifecycle as applications meet it: waits ended by unwatch,
 * close and dispose (called from inside dispatches), the last reference
 * dropped in another thread, and a copy of the monitor in a forked child.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-test-util.h"

static TestProcessKind
kind_of (gconstpointer data)
{
  return GPOINTER_TO_INT (data);
}

/* True while the test is inside a call to the library: no callback of the
 * library may run then. */
static gboolean in_call;

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  ProcwatchProcess *process;
  GError *error;
  gboolean done;
  gboolean called_inside;
  /* Called back with the wait's result, if set. */
  void (*then) (gpointer);
  gpointer then_data;
} Wait;

static void
on_wait_done (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  Wait *wait = user_data;

  g_assert_false (wait->done);
  wait->called_inside = in_call;
  wait->process = procwatch_process_monitor_wait_finish (PROCWATCH_PROCESS_MONITOR (source),
                                                         result, &wait->error);
  wait->done = TRUE;

  if (wait->then != NULL)
    wait->then (wait->then_data);
}

static void
wait_start (Wait                    *wait,
            ProcwatchProcessMonitor *monitor,
            GPid                     pid)
{
  wait->monitor = monitor;
  procwatch_process_monitor_wait_async (monitor, pid, NULL, on_wait_done, wait);
}

static void
wait_clear (Wait *wait)
{
  g_clear_object (&wait->process);
  g_clear_error (&wait->error);
}

/* Runs @func from a dispatch of another source in the monitor's context,
 * where GTask would complete a task at once. */
typedef struct
{
  void (*func) (gpointer);
  gpointer data;
  gboolean done;
} InDispatch;

static gboolean
in_dispatch_cb (gpointer user_data)
{
  InDispatch *call = user_data;

  in_call = TRUE;
  call->func (call->data);
  in_call = FALSE;
  call->done = TRUE;

  return G_SOURCE_REMOVE;
}

static void
call_in_dispatch (void     (*func) (gpointer),
                  gpointer   data)
{
  InDispatch call = { func, data, FALSE };

  /* A later iteration than the one that started the waits. */
  test_drain_context (NULL);
  g_idle_add (in_dispatch_cb, &call);
  test_run_until (NULL, &call.done);
}

static void
on_finalized (gpointer data)
{
  g_atomic_int_set ((gint *) data, TRUE);
}

/* Weak references are notified at dispose; object data goes at finalize. */
static void
notify_finalize (gpointer  object,
                 gint     *finalized)
{
  g_object_set_data_full (object, "test-lifecycle-finalized", finalized, on_finalized);
}

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  GPid pid;
  gboolean result;
} Unwatch;

static void
do_unwatch (gpointer data)
{
  Unwatch *unwatch = data;

  unwatch->result = procwatch_process_monitor_unwatch (unwatch->monitor, unwatch->pid);
}

/* Item 2: a wait ended by unwatch() completes after unwatch() returns,
 * and a wait started again from its callback is left alone. */
typedef struct
{
  Wait *again;
  ProcwatchProcessMonitor *monitor;
  GPid pid;
} Rearm;

static void
re_arm_from_callback (gpointer data)
{
  Rearm *rearm = data;

  wait_start (rearm->again, rearm->monitor, rearm->pid);
}

static void
test_unwatch_completes_later (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (kind_of (data));
  GPid pid = test_process_get_pid (target);
  Wait first = { 0 };
  Wait again = { 0 };
  Rearm rearm = { &again, monitor, pid };
  Unwatch unwatch = { monitor, pid, FALSE };

  first.then = re_arm_from_callback;
  first.then_data = &rearm;
  wait_start (&first, monitor, pid);

  call_in_dispatch (do_unwatch, &unwatch);
  g_assert_true (unwatch.result);

  test_run_until (NULL, &first.done);
  g_assert_false (first.called_inside);
  g_assert_error (first.error, G_IO_ERROR, G_IO_ERROR_CANCELLED);

  /* The wait started again watches the process anew: the unwatch that
   * ended the first one is over, and does not end this one. */
  test_drain_context (NULL);
  g_assert_false (again.done);

  test_process_exit (target, 5);
  test_run_until (NULL, &again.done);
  g_assert_no_error (again.error);
  g_assert_false (again.called_inside);
  g_assert_cmpint (procwatch_process_get_pid (again.process), ==, pid);
  g_assert_cmpint (procwatch_process_get_state (again.process), >=, PROCWATCH_PROCESS_STATE_EXITED);

  test_process_reap (target);
  test_run_until_count (NULL, &recorder->n_reaped, 1);

  wait_clear (&first);
  wait_clear (&again);
}

/* Item 3: g_object_run_dispose() from a dispatch, with waits pending whose
 * callbacks call back into the monitor. */
#define N_DISPOSE_WAITS 4

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  GPid other_pid;
  guint n_refused;
} WatchAgain;

static void
watch_again (gpointer data)
{
  WatchAgain *again = data;
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;

  process = procwatch_process_monitor_watch_pid (again->monitor, again->other_pid, &error);
  g_assert_null (process);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  again->n_refused++;
}

static void
do_run_dispose (gpointer data)
{
  g_object_run_dispose (data);
}

static void
assert_calls_fail_closed (ProcwatchProcessMonitor *monitor,
                          GPid                     pid)
{
  g_autoptr(GError) error = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  Wait wait = { 0 };

  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_null (process);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  g_clear_error (&error);

  if (test_have_pidfd ())
    {
      int pidfd = (int) syscall (SYS_pidfd_open, pid, 0);

      g_assert_cmpint (pidfd, >=, 0);
      process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
      close (pidfd);
      g_assert_null (process);
      g_assert_error (error, G_IO_ERROR, G_IO_ERROR_CLOSED);
      g_clear_error (&error);
    }

  g_assert_false (procwatch_process_monitor_unwatch (monitor, pid));

  wait_start (&wait, monitor, pid);
  g_assert_false (wait.done);
  test_run_until (NULL, &wait.done);
  g_assert_null (wait.process);
  g_assert_error (wait.error, G_IO_ERROR, G_IO_ERROR_CLOSED);
  wait_clear (&wait);
}

/* Whatever GLib opens once per program (its worker context) is opened
 * before a test counts its fds. */
static guint
count_fds_after_warm_up (void)
{
  ProcwatchProcessMonitor *monitor = procwatch_process_monitor_new ();
  Wait wait = { 0 };

  wait_start (&wait, monitor, -1);
  test_run_until (NULL, &wait.done);
  wait_clear (&wait);
  g_object_unref (monitor);
  test_drain_context (NULL);

  return test_count_open_fds ();
}

static void
test_dispose_in_dispatch (void)
{
  TestProcess *targets[N_DISPOSE_WAITS];
  Wait waits[N_DISPOSE_WAITS] = { 0 };
  g_autoptr(TestProcess) other = test_process_spawn (TEST_PROCESS_CHILD);
  ProcwatchProcessMonitor *monitor;
  WatchAgain again = { NULL, test_process_get_pid (other), 0 };
  gint finalized = FALSE;
  guint fds_before;
  guint n_done = 0;
  guint i;

  for (i = 0; i < N_DISPOSE_WAITS; i++)
    targets[i] = test_process_spawn (TEST_PROCESS_CHILD);
  fds_before = count_fds_after_warm_up ();

  monitor = procwatch_process_monitor_new ();
  notify_finalize (monitor, &finalized);
  again.monitor = monitor;

  for (i = 0; i < N_DISPOSE_WAITS; i++)
    {
      waits[i].then = watch_again;
      waits[i].then_data = &again;
      wait_start (&waits[i], monitor, test_process_get_pid (targets[i]));
    }

  call_in_dispatch (do_run_dispose, monitor);

  for (i = 0; i < N_DISPOSE_WAITS; i++)
    {
      test_run_until (NULL, &waits[i].done);
      g_assert_false (waits[i].called_inside);
      g_assert_error (waits[i].error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
      n_done++;
    }
  g_assert_cmpuint (n_done, ==, N_DISPOSE_WAITS);
  g_assert_cmpuint (again.n_refused, ==, N_DISPOSE_WAITS);

  test_drain_context (NULL);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);

  /* Item 4: calls on a disposed monitor fail cleanly. */
  assert_calls_fail_closed (monitor, test_process_get_pid (other));

  test_drain_context (NULL);
  g_assert_false (finalized);
  g_object_unref (monitor);
  g_assert_true (finalized);

  for (i = 0; i < N_DISPOSE_WAITS; i++)
    {
      wait_clear (&waits[i]);
      test_process_free (targets[i]);
    }
}

/* Item 5: a wait on a process whose exit was seen completes with it, even
 * if an "exited" handler stops watching it. */
static void
unwatch_on_exited (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   gboolean                *unwatched)
{
  *unwatched = procwatch_process_monitor_unwatch (monitor, procwatch_process_get_pid (process));
}

static void
test_unwatch_in_exited_handler (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (kind_of (data));
  GPid pid = test_process_get_pid (target);
  gboolean unwatched = FALSE;
  Wait first = { 0 };
  Wait second = { 0 };

  g_signal_connect (monitor, "exited", G_CALLBACK (unwatch_on_exited), &unwatched);
  wait_start (&first, monitor, pid);
  wait_start (&second, monitor, pid);

  test_process_exit (target, 9);
  test_run_until (NULL, &first.done);
  test_run_until (NULL, &second.done);

  g_assert_true (unwatched);
  g_assert_no_error (first.error);
  g_assert_no_error (second.error);
  g_assert_nonnull (first.process);
  g_assert_true (first.process == second.process);
  g_assert_cmpint (procwatch_process_get_pid (first.process), ==, pid);
  g_assert_cmpint (procwatch_process_get_state (first.process), ==, PROCWATCH_PROCESS_STATE_EXITED);

  /* Unwatched: the reap goes unreported. */
  test_process_reap (target);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_reaped, ==, 0);

  wait_clear (&first);
  wait_clear (&second);
}

/* Item 6: close() ends everything at once, from inside a dispatch too. */
static void
do_close_twice (gpointer data)
{
  procwatch_process_monitor_close (data);
  procwatch_process_monitor_close (data);
}

static void
test_close (gconstpointer data)
{
  TestProcess *targets[3];
  Wait waits[3] = { 0 };
  g_autoptr(TestProcess) other = test_process_spawn (kind_of (data));
  ProcwatchProcessMonitor *monitor;
  TestRecorder *recorder;
  gint finalized = FALSE;
  guint fds_before;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    targets[i] = test_process_spawn (kind_of (data));
  fds_before = count_fds_after_warm_up ();

  monitor = procwatch_process_monitor_new ();
  recorder = test_recorder_new (monitor);
  notify_finalize (monitor, &finalized);

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    wait_start (&waits[i], monitor, test_process_get_pid (targets[i]));

  call_in_dispatch (do_close_twice, monitor);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      test_run_until (NULL, &waits[i].done);
      g_assert_false (waits[i].called_inside);
      g_assert_error (waits[i].error, G_IO_ERROR, G_IO_ERROR_CANCELLED);
    }

  /* Nothing is reported after close. */
  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      test_process_exit (targets[i], 0);
      test_process_await_exit (targets[i]);
    }
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_exited, ==, 0);

  assert_calls_fail_closed (monitor, test_process_get_pid (other));
  procwatch_process_monitor_close (monitor);

  test_drain_context (NULL);
  test_recorder_free (recorder);
  g_assert_false (finalized);
  g_object_unref (monitor);
  g_assert_true (finalized);

  for (i = 0; i < G_N_ELEMENTS (targets); i++)
    {
      wait_clear (&waits[i]);
      test_process_free (targets[i]);
    }
}

/* Item 6, the GIO norm: a pending wait keeps the monitor alive and working
 * after the application has dropped its reference. */
static void
test_pending_wait_keeps_monitor (gconstpointer data)
{
  g_autoptr(TestProcess) target = test_process_spawn (kind_of (data));
  ProcwatchProcessMonitor *monitor = procwatch_process_monitor_new ();
  gint finalized = FALSE;
  Wait wait = { 0 };

  notify_finalize (monitor, &finalized);
  wait_start (&wait, monitor, test_process_get_pid (target));
  g_object_unref (monitor);
  test_drain_context (NULL);
  g_assert_false (finalized);

  test_process_exit (target, 4);
  test_run_until (NULL, &wait.done);
  g_assert_no_error (wait.error);
  g_assert_cmpint (procwatch_process_get_pid (wait.process), ==, test_process_get_pid (target));

  /* Watched until reaped, as any wait's process; then nothing holds it. */
  test_process_reap (target);
  test_run_until (NULL, &finalized);
  wait_clear (&wait);
}

/* Item 7: the last reference dropped in another thread while the owner
 * iterates its context, with events arriving. */
#define N_UNREF_ROUNDS 400
#define N_UNREF_TARGETS 4

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  GMainContext *context;
  TestProcess **targets;
} DropInThread;

static gpointer
drop_in_thread (gpointer data)
{
  DropInThread *drop = data;
  guint i;

  /* Exits and reaps arrive while the reference goes. */
  for (i = 0; i < N_UNREF_TARGETS; i++)
    test_process_exit (drop->targets[i], 0);
  for (i = 0; i < N_UNREF_TARGETS / 2; i++)
    test_process_reap (drop->targets[i]);

  g_object_unref (drop->monitor);
  g_main_context_wakeup (drop->context);

  return NULL;
}

static void
count_signal (ProcwatchProcessMonitor *monitor,
              ProcwatchProcess        *process,
              guint                   *count)
{
  (*count)++;
}

static gboolean
wake_up (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

static void
test_last_unref_in_other_thread (void)
{
  g_autoptr(GMainContext) context = g_main_context_new ();
  guint round;

  g_main_context_push_thread_default (context);

  for (round = 0; round < N_UNREF_ROUNDS; round++)
    {
      TestProcess *targets[N_UNREF_TARGETS];
      DropInThread drop = { NULL, context, targets };
      g_autoptr(GSource) tick = g_timeout_source_new (50);
      gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
      GThread *thread;
      gint finalized = FALSE;
      guint n_signals = 0;
      guint i;

      drop.monitor = procwatch_process_monitor_new ();
      notify_finalize (drop.monitor, &finalized);
      g_signal_connect (drop.monitor, "exited", G_CALLBACK (count_signal), &n_signals);
      g_signal_connect (drop.monitor, "reaped", G_CALLBACK (count_signal), &n_signals);

      for (i = 0; i < N_UNREF_TARGETS; i++)
        {
          g_autoptr(ProcwatchProcess) process = NULL;

          targets[i] = test_process_spawn (TEST_PROCESS_CHILD);
          process = procwatch_process_monitor_watch_pid (drop.monitor,
                                                         test_process_get_pid (targets[i]), NULL);
          g_assert_nonnull (process);
        }

      g_source_set_callback (tick, wake_up, NULL, NULL);
      g_source_attach (tick, context);

      thread = g_thread_new ("drop-last-ref", drop_in_thread, &drop);
      while (!g_atomic_int_get (&finalized))
        {
          g_main_context_iteration (context, TRUE);
          g_assert_cmpint (g_get_monotonic_time (), <, deadline);
        }
      g_thread_join (thread);
      g_source_destroy (tick);

      for (i = 0; i < N_UNREF_TARGETS; i++)
        test_process_free (targets[i]);
    }

  g_main_context_pop_thread_default (context);
}

/* Item 8: a copy of the monitor in a child forked without exec changes
 * nothing the parent's monitor reports. */
enum {
  CHILD_SAW_SIGNAL = 1 << 0,
  CHILD_UNWATCHED = 1 << 1,
  CHILD_WATCHED = 1 << 2,
  CHILD_ERROR_NOT_CLOSED = 1 << 3,
};

static void
test_fork (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (kind_of (data));
  g_autoptr(TestProcess) other = test_process_spawn (kind_of (data));
  g_autoptr(ProcwatchProcess) process = NULL;
  GPid pid = test_process_get_pid (target);
  pid_t child;
  int status;

  process = procwatch_process_monitor_watch_pid (monitor, pid, NULL);
  g_assert_nonnull (process);

  /* Exited, not yet dispatched in the parent: the child's copy sees the
   * event in the shared epoll set when it iterates. */
  test_process_exit (target, 6);
  test_process_await_exit (target);

  child = fork ();
  g_assert_cmpint (child, >=, 0);
  if (child == 0)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *again;
      int result = 0;

      test_drain_context (NULL);
      if (recorder->n_exited != 0 || recorder->n_reaped != 0)
        result |= CHILD_SAW_SIGNAL;
      if (procwatch_process_monitor_unwatch (monitor, pid))
        result |= CHILD_UNWATCHED;
      again = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (other), &error);
      if (again != NULL)
        result |= CHILD_WATCHED;
      if (!g_error_matches (error, G_IO_ERROR, G_IO_ERROR_CLOSED))
        result |= CHILD_ERROR_NOT_CLOSED;

      procwatch_process_monitor_close (monitor);
      g_object_run_dispose (G_OBJECT (monitor));
      _exit (result);
    }

  g_assert_cmpint (waitpid (child, &status, 0), ==, child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);

  /* Still reported in the parent, at the exit and then at the reap. */
  test_run_until_count (NULL, &recorder->n_exited, 1);
  g_assert_cmpuint (recorder->n_reaped, ==, 0);
  test_process_reap (target);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
}

/* A handler that forks (a pre-forking server; Python's os.fork () in a
 * callback) while several exits wait in the batch under way: the rest of
 * the batch is the parent's. The child's copy of the dispatch stops as the
 * handler returns there, and nothing more is emitted or completed in the
 * child: it writes one byte to the parent for every callout it sees, then
 * 'E' from the first idle of its main loop, and exits. */
#define FORK_BATCH 6

typedef struct
{
  pid_t child;            /* the forked copy (0 in the child itself) */
  gboolean forked;
  gboolean in_child;
  int report_fd;          /* the write end; the child's only */
  guint n_exited;
  guint n_waits;
  /* In the parent: callouts of the dispatch that forked, after the fork. */
  guint n_after_fork;
  gboolean dispatch_over;
  /* The idle that says so: @fork_data lives on the test's stack. */
  guint dispatch_over_id;
} ForkInHandler;

/* Whether the callout counts for the parent; in the child, reported. */
static gboolean
fork_callout (ForkInHandler *fork_data,
              char           what)
{
  if (fork_data->in_child)
    {
      if (write (fork_data->report_fd, &what, 1) != 1)
        _exit (2);
      return FALSE;
    }

  if (fork_data->forked && !fork_data->dispatch_over)
    fork_data->n_after_fork++;
  return TRUE;
}

static gboolean
fork_child_done (gpointer user_data)
{
  ForkInHandler *fork_data = user_data;

  _exit (write (fork_data->report_fd, "E", 1) == 1 ? 0 : 2);
}

/* Runs once the dispatch that forked has returned, in the parent. */
static gboolean
fork_dispatch_over (gpointer user_data)
{
  ForkInHandler *fork_data = user_data;

  fork_data->dispatch_over = TRUE;
  fork_data->dispatch_over_id = 0;
  return G_SOURCE_REMOVE;
}

static void
on_exited_fork (ProcwatchProcessMonitor *monitor,
                ProcwatchProcess        *process,
                ForkInHandler           *fork_data)
{
  if (!fork_callout (fork_data, 'x'))
    return;

  fork_data->n_exited++;
  if (fork_data->forked)
    return;

  fork_data->forked = TRUE;
  fork_data->child = fork ();
  g_assert_cmpint (fork_data->child, >=, 0);
  if (fork_data->child == 0)
    {
      fork_data->in_child = TRUE;
      g_idle_add (fork_child_done, fork_data);
      return;
    }

  g_assert_no_errno (close (fork_data->report_fd));
  fork_data->report_fd = -1;
  fork_data->dispatch_over_id = g_idle_add (fork_dispatch_over, fork_data);
}

static void
on_reaped_fork (ProcwatchProcessMonitor *monitor,
                ProcwatchProcess        *process,
                ForkInHandler           *fork_data)
{
  fork_callout (fork_data, 'r');
}

static void
on_notify_fork (GObject       *object,
                GParamSpec    *pspec,
                ForkInHandler *fork_data)
{
  fork_callout (fork_data, 'n');
}

static void
on_wait_fork (GObject      *source,
              GAsyncResult *result,
              gpointer      user_data)
{
  ForkInHandler *fork_data = user_data;
  g_autoptr(GError) error = NULL;

  if (!fork_callout (fork_data, 'w'))
    return;

  g_assert_true (procwatch_process_wait_finish (PROCWATCH_PROCESS (source), result, &error));
  g_assert_no_error (error);
  fork_data->n_waits++;
}

static void
test_fork_in_handler (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(GString) seen = g_string_new (NULL);
  TestProcess *targets[FORK_BATCH];
  ProcwatchProcess *processes[FORK_BATCH];
  ForkInHandler fork_data = { 0, };
  int report[2];
  char byte;
  int status;
  guint i;

  g_assert_no_errno (pipe2 (report, O_CLOEXEC));
  fork_data.report_fd = report[1];
  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited_fork), &fork_data);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped_fork), &fork_data);

  for (i = 0; i < FORK_BATCH; i++)
    {
      g_autoptr(GError) error = NULL;

      targets[i] = test_process_spawn (TEST_PROCESS_CHILD);
      processes[i] = procwatch_process_monitor_watch_pid (monitor,
                                                          test_process_get_pid (targets[i]),
                                                          &error);
      g_assert_no_error (error);
      g_signal_connect (processes[i], "notify", G_CALLBACK (on_notify_fork), &fork_data);
      procwatch_process_wait_async (processes[i], NULL, on_wait_fork, &fork_data);
    }

  /* All of them zombies before the monitor's next dispatch. */
  for (i = 0; i < FORK_BATCH; i++)
    test_process_kill (targets[i], SIGKILL);
  for (i = 0; i < FORK_BATCH; i++)
    test_process_await_exit (targets[i]);

  test_run_until_count (NULL, &fork_data.n_waits, FORK_BATCH);
  g_assert_cmpuint (fork_data.n_exited, ==, FORK_BATCH);
  g_assert_true (fork_data.forked);

  while (read (report[0], &byte, 1) == 1)
    g_string_append_c (seen, byte);
  g_assert_cmpint (waitpid (fork_data.child, &status, 0), ==, fork_data.child);
  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, 0);
  /* 'x' "exited", 'r' "reaped", 'n' a notification, 'w' a wait's callback. */
  g_assert_cmpstr (seen->str, ==, "E");
  g_assert_no_errno (close (report[0]));
  g_clear_handle_id (&fork_data.dispatch_over_id, g_source_remove);

  /* Otherwise nothing was left in the batch for the child to be given. */
  if (fork_data.n_after_fork == 0)
    g_test_skip ("the backend reported the exits in separate dispatches: nothing was left "
                 "in the forking handler's batch");

  for (i = 0; i < FORK_BATCH; i++)
    {
      g_signal_handlers_disconnect_by_data (processes[i], &fork_data);
      g_object_unref (processes[i]);
      test_process_free (targets[i]);
    }
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  test_add_for_each_kind ("/lifecycle", "unwatch-completes-later",
                          test_unwatch_completes_later);
  g_test_add_func ("/lifecycle/dispose-in-dispatch", test_dispose_in_dispatch);
  test_add_for_each_kind ("/lifecycle", "unwatch-in-exited-handler",
                          test_unwatch_in_exited_handler);
  test_add_for_each_kind ("/lifecycle", "close", test_close);
  test_add_for_each_kind ("/lifecycle", "pending-wait-keeps-monitor",
                          test_pending_wait_keeps_monitor);
  g_test_add_func ("/lifecycle/last-unref-in-other-thread", test_last_unref_in_other_thread);
  test_add_for_each_kind ("/lifecycle", "fork", test_fork);
  g_test_add_func ("/lifecycle/fork-in-handler", test_fork_in_handler);

  return g_test_run ();
}
