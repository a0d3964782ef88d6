/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Promises of the guide and the doc comments that no other test held (the
 * table in tests/README.md says which page makes each).
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-test-util.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD 0x80   /* O_EXCL: Linux 6.9 */
#endif

static TestProcessKind
kind_of (gconstpointer data)
{
  return GPOINTER_TO_INT (data);
}

typedef struct
{
  gboolean reaped;
  gboolean watched_inside_reaped;
} ReapedState;

static void
on_reaped_try_unwatch (ProcwatchProcessMonitor *monitor,
                       ProcwatchProcess        *process,
                       ReapedState             *state)
{
  state->watched_inside_reaped =
    procwatch_process_monitor_unwatch (monitor, procwatch_process_get_pid (process));
  state->reaped = TRUE;
}

/* "reaped": "The monitor stops watching the process before this signal." */
static void
test_reaped_stops_watching (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestProcess) target = test_process_spawn (kind_of (data));
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  ReapedState state = { FALSE, TRUE };

  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped_try_unwatch), &state);
  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);

  test_process_exit (target, 0);
  test_process_reap (target);
  test_run_until (NULL, &state.reaped);

  g_assert_false (state.watched_inside_reaped);
}

/* Overview: "get_if_exited() and get_if_signaled() return false while the
 * status is not known". */
static void
test_getters_false_while_unknown (gconstpointer data)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (kind_of (data));
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;

  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);

  /* Running: nothing is known. */
  g_assert_false (procwatch_process_has_status (process));
  g_assert_false (procwatch_process_get_if_exited (process));
  g_assert_false (procwatch_process_get_if_signaled (process));

  test_process_kill (target, SIGKILL);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  test_process_reap (target);
  test_run_until_count (NULL, &recorder->n_reaped, 1);

  /* A non-child where the kernel keeps no status: never known, never
   * guessed, and the getters say false. */
  if (kind_of (data) != TEST_PROCESS_CHILD && !test_status_known_after_reap (monitor))
    {
      g_assert_false (procwatch_process_has_status (process));
      g_assert_false (procwatch_process_get_if_exited (process));
      g_assert_false (procwatch_process_get_if_signaled (process));
    }
  else
    {
      g_assert_true (procwatch_process_get_if_signaled (process));
      g_assert_false (procwatch_process_get_if_exited (process));
      g_assert_cmpint (procwatch_process_get_term_sig (process), ==, SIGKILL);
    }
}

/* Process: "The object stays valid for as long as you hold a reference, also
 * after the monitor has stopped watching the process"; threads guide: "The
 * Process objects you hold stay valid", and nothing is emitted afterwards. */
static void
test_process_outlives_monitor (void)
{
  ProcwatchProcessMonitor *monitor = procwatch_process_monitor_new ();
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  GPid pid = test_process_get_pid (target);

  process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  g_object_unref (monitor);

  test_process_exit (target, 0);
  test_process_reap (target);
  test_drain_context (NULL);

  g_assert_cmpint (procwatch_process_get_pid (process), ==, pid);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);
  g_assert_false (procwatch_process_has_status (process));
}

/* Overview: "TOO_MANY_OPEN_FILES when out of file descriptors: each watched
 * process costs one." */
static void
test_one_fd_per_process (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  g_autoptr(GError) error = NULL;
  const guint n = 20;
  guint fds_before;
  guint i;

  /* Spawned first: their pipes are not the monitor's. */
  for (i = 0; i <= n; i++)
    g_ptr_array_add (targets, test_process_spawn (TEST_PROCESS_CHILD));

  /* The first watch may also create what the monitor shares. */
  g_ptr_array_add (processes,
                   procwatch_process_monitor_watch_pid (monitor,
                                                        test_process_get_pid (targets->pdata[0]),
                                                        &error));
  g_assert_no_error (error);
  fds_before = test_count_open_fds ();

  for (i = 1; i <= n; i++)
    {
      g_ptr_array_add (processes,
                       procwatch_process_monitor_watch_pid (monitor,
                                                            test_process_get_pid (targets->pdata[i]),
                                                            &error));
      g_assert_no_error (error);
    }
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before + n);

  for (i = 1; i <= n; i++)
    g_assert_true (procwatch_process_monitor_unwatch (monitor,
                                                      test_process_get_pid (targets->pdata[i])));
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
}

/* Threads guide: "A thread pidfd passed to watch_pidfd is watched the same
 * way": exited and reaped together once the thread ends, while its process
 * lives on. */
static void
test_thread_pidfd (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  TestParkedThread *thread;
  int pidfd;

  if (test_skip_without_pidfd ())
    return;

  thread = test_parked_thread_new ();
  pidfd = (int) syscall (SYS_pidfd_open, test_parked_thread_get_tid (thread), PIDFD_THREAD);
  if (pidfd < 0)
    {
      g_assert_cmpint (errno, ==, EINVAL);
      test_parked_thread_release (thread);
      g_test_skip ("No thread pidfds (PIDFD_THREAD, Linux 6.9) here");
      return;
    }

  process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  close (pidfd);
  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, test_parked_thread_get_tid (thread));

  test_parked_thread_release (thread);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->n_exited, ==, 1);
  g_assert_cmpint (g_array_index (recorder->events, TestEvent, 0).state, ==,
                   PROCWATCH_PROCESS_STATE_EXITED);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_REAPED);
}

/* Pid reuse page and the pid property: "A process watched through a pidfd
 * of an already reaped process has pid 0". */
static void
test_pidfd_of_reaped_has_pid_0 (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(GError) error = NULL;
  int pidfd;

  if (test_skip_without_pidfd ())
    return;

  pidfd = (int) syscall (SYS_pidfd_open, test_process_get_pid (target), 0);
  g_assert_cmpint (pidfd, >=, 0);
  test_process_exit (target, 0);
  test_process_reap (target);

  process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
  close (pidfd);
  g_assert_no_error (error);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, 0);

  test_run_until_count (NULL, &recorder->n_reaped, 1);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, 0);
}

/* Kernel support: "The first backend that works ... is chosen the first time
 * a monitor is created, and is then used by every monitor of the program";
 * the environment variables are "read once per program". */
static void
test_backend_chosen_once (void)
{
  g_autoptr(ProcwatchProcessMonitor) first = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcessMonitor) second = NULL;
  g_autofree char *backend = g_strdup (procwatch_process_monitor_get_backend (first));
  g_autofree char *saved = g_strdup (g_getenv ("PROCWATCH_BACKEND"));

  /* Asking for another one now changes nothing. */
  g_setenv ("PROCWATCH_BACKEND", g_str_equal (backend, "poll") ? "pidfd" : "poll", TRUE);
  second = procwatch_process_monitor_new ();
  if (saved != NULL)
    g_setenv ("PROCWATCH_BACKEND", saved, TRUE);
  else
    g_unsetenv ("PROCWATCH_BACKEND");

  g_assert_cmpstr (procwatch_process_monitor_get_backend (second), ==, backend);
}

/* A child with exactly the pid @pid (clone3 with set_tid: needs
 * CAP_SYS_ADMIN or CAP_CHECKPOINT_RESTORE), that exits when @control_fd
 * closes; -1 with errno if the pid cannot be had. */
static pid_t
spawn_with_pid (pid_t pid,
                int  *control_fd)
{
  struct
  {
    guint64 flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls;
    guint64 set_tid, set_tid_size, cgroup;
  } args;
  int control[2];
  long ret;

  g_assert_no_errno (pipe2 (control, O_CLOEXEC));
  memset (&args, 0, sizeof args);
  args.exit_signal = SIGCHLD;
  args.set_tid = GPOINTER_TO_SIZE (&pid);
  args.set_tid_size = 1;

  ret = syscall (SYS_clone3, &args, sizeof args);
  if (ret == 0)
    {
      char byte;

      /* Raw system calls only: a copy of a threaded process. */
      syscall (SYS_close, control[1]);
      syscall (SYS_read, control[0], &byte, 1);
      syscall (SYS_exit_group, 0);
    }

  close (control[0]);
  if (ret < 0)
    {
      int saved = errno;

      close (control[1]);
      errno = saved;
      return -1;
    }

  *control_fd = control[1];
  return (pid_t) ret;
}

/* Pid reuse page: unwatch (pid) "drops every watched process that had it":
 * a reaped process whose reap is not dispatched yet, and the new process
 * that got its pid. */
static void
test_unwatch_drops_every_process_with_the_pid (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) old_target = test_process_spawn (TEST_PROCESS_CHILD);
  g_autoptr(ProcwatchProcess) old_process = NULL;
  g_autoptr(ProcwatchProcess) new_process = NULL;
  g_autoptr(GError) error = NULL;
  GPid pid = test_process_get_pid (old_target);
  int control_fd = -1;
  pid_t new_pid;

  old_process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);

  /* Reaped, and the pid given again, before the main loop runs. */
  test_process_exit (old_target, 0);
  test_process_reap (old_target);
  new_pid = spawn_with_pid (pid, &control_fd);
  if (new_pid < 0)
    {
      g_test_skip_printf ("Cannot create a process with a chosen pid here: %s",
                          g_strerror (errno));
      return;
    }
  g_assert_cmpint (new_pid, ==, pid);

  new_process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
  g_assert_no_error (error);
  g_assert_true (new_process != old_process);

  g_assert_true (procwatch_process_monitor_unwatch (monitor, pid));
  g_assert_false (procwatch_process_monitor_unwatch (monitor, pid));

  close (control_fd);
  g_assert_cmpint (waitpid (new_pid, NULL, 0), ==, new_pid);
  test_drain_context (NULL);
  g_assert_cmpuint (recorder->events->len, ==, 0);
}

/* watch_pid: NOT_SUPPORTED "for a thread before Linux 6.9"; a failed call
 * changes nothing, and the monitor goes on watching. Run under seccomp-exec
 * --no-pidfd-thread (the pidfd-no-thread variant), which fails pidfd_open()
 * with PIDFD_THREAD as 6.8 does; elsewhere only where the kernel is older. */
static void
test_thread_before_6_9 (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = NULL;
  g_autoptr(ProcwatchProcess) process = NULL;
  g_autoptr(ProcwatchProcess) thread_process = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *tid_text = NULL;
  TestParkedThread *thread;
  guint fds_before;
  GPid tid;
  int pidfd;

  if (test_skip_without_pidfd ())
    return;
  if (g_strcmp0 (procwatch_process_monitor_get_backend (monitor), "pidfd") != 0)
    {
      g_test_skip ("Threads are refused by the pidfd backend only");
      return;
    }

  thread = test_parked_thread_new ();
  tid = test_parked_thread_get_tid (thread);
  pidfd = (int) syscall (SYS_pidfd_open, tid, PIDFD_THREAD);
  if (pidfd >= 0)
    {
      close (pidfd);
      test_parked_thread_release (thread);
      g_assert_null (g_getenv ("PROCWATCH_TEST_NO_THREAD_PIDFD"));
      g_test_skip ("This kernel has thread pidfds; the pidfd-no-thread variant pretends not");
      return;
    }
  g_assert_cmpint (errno, ==, EINVAL);

  /* Watched first: what the monitor shares is made, and it is watched
   * through the refusal. */
  target = test_process_spawn (TEST_PROCESS_CHILD);
  process = procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (target), &error);
  g_assert_no_error (error);
  fds_before = test_count_open_fds ();

  thread_process = procwatch_process_monitor_watch_pid (monitor, tid, &error);
  g_assert_error (error, G_IO_ERROR, G_IO_ERROR_NOT_SUPPORTED);
  g_assert_null (thread_process);
  tid_text = g_strdup_printf ("thread %d of process %d", (int) tid, (int) getpid ());
  g_assert_nonnull (strstr (error->message, tid_text));
  g_assert_nonnull (strstr (error->message, "Linux 6.9"));
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
  g_assert_false (procwatch_process_monitor_unwatch (monitor, tid));
  test_parked_thread_release (thread);

  test_process_exit (target, 0);
  test_run_until_count (NULL, &recorder->n_exited, 1);
  test_process_reap (target);
  test_run_until_count (NULL, &recorder->n_reaped, 1);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_REAPED);
  g_assert_true (procwatch_process_get_if_exited (process));
  g_assert_cmpint (procwatch_process_get_exit_status (process), ==, 0);
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  test_add_for_each_kind ("/promises", "reaped-stops-watching-first", test_reaped_stops_watching);
  test_add_for_each_kind ("/promises", "getters-false-while-status-unknown",
                          test_getters_false_while_unknown);
  g_test_add_func ("/promises/backend-chosen-once", test_backend_chosen_once);
  g_test_add_func ("/promises/process-outlives-monitor", test_process_outlives_monitor);
  g_test_add_func ("/promises/one-fd-per-process", test_one_fd_per_process);
  g_test_add_func ("/promises/thread-pidfd", test_thread_pidfd);
  g_test_add_func ("/promises/thread-before-6.9", test_thread_before_6_9);
  g_test_add_func ("/promises/unwatch-drops-every-process-with-the-pid",
                   test_unwatch_drops_every_process_with_the_pid);
  g_test_add_func ("/promises/pidfd-of-reaped-has-pid-0", test_pidfd_of_reaped_has_pid_0);

  return g_test_run ();
}
