/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The monitor at the machine's limits, each scenario bounded in size and
 * time: ten thousand processes killed at once, monitors churning in eight
 * threads, a monitor destroyed in a worker thread with events pending,
 * 100,000 watch/unwatch cycles, and pids wrapping around a small pid
 * namespace while processes come and go. Nothing may be lost, doubled,
 * mixed up or leaked.
 */

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procwatch-linux-private.h"
#include "procwatch-test-util.h"

#if defined(__SANITIZE_ADDRESS__)
# define UNDER_ASAN 1
#elif defined(__has_feature)
# if __has_feature(address_sanitizer)
#  define UNDER_ASAN 1
# endif
#endif

/* Seconds each timed scenario runs: PROCWATCH_STRESS_SECONDS, else @fallback. */
static double
stress_seconds (double fallback)
{
  const char *text = g_getenv ("PROCWATCH_STRESS_SECONDS");

  return text != NULL ? g_ascii_strtod (text, NULL) : fallback;
}

/* Events per process object, to see that each comes exactly once. */
typedef struct
{
  GHashTable *exited;   /* ProcwatchProcess → count */
  GHashTable *reaped;
  guint n_exited;
  guint n_reaped;
  GThread *thread;
} Tally;

static void
count_event (GHashTable       *table,
             ProcwatchProcess *process)
{
  guint count = GPOINTER_TO_UINT (g_hash_table_lookup (table, process));

  g_hash_table_insert (table, g_object_ref (process), GUINT_TO_POINTER (count + 1));
}

static void
on_tally_exited (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 Tally                   *tally)
{
  g_assert_true (g_thread_self () == tally->thread);
  g_assert_false (g_hash_table_contains (tally->reaped, process));
  count_event (tally->exited, process);
  tally->n_exited++;
}

static void
on_tally_reaped (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 Tally                   *tally)
{
  g_assert_true (g_thread_self () == tally->thread);
  g_assert_true (g_hash_table_contains (tally->exited, process));
  count_event (tally->reaped, process);
  tally->n_reaped++;
}

static void
tally_init (Tally                   *tally,
            ProcwatchProcessMonitor *monitor)
{
  tally->exited = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  tally->reaped = g_hash_table_new_full (NULL, NULL, g_object_unref, NULL);
  tally->n_exited = tally->n_reaped = 0;
  tally->thread = g_thread_self ();
  g_signal_connect (monitor, "exited", G_CALLBACK (on_tally_exited), tally);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_tally_reaped), tally);
}

static void
tally_clear (Tally *tally)
{
  g_clear_pointer (&tally->exited, g_hash_table_unref);
  g_clear_pointer (&tally->reaped, g_hash_table_unref);
}

static guint
tally_get (GHashTable       *table,
           ProcwatchProcess *process)
{
  return GPOINTER_TO_UINT (g_hash_table_lookup (table, process));
}

static gsize
read_rss_kib (void)
{
  g_autofree char *status = NULL;
  const char *line;

  g_assert_true (g_file_get_contents ("/proc/self/status", &status, NULL, NULL));
  line = strstr (status, "\nVmRSS:");
  g_assert_nonnull (line);
  return (gsize) g_ascii_strtoull (line + strlen ("\nVmRSS:"), NULL, 10);
}

static void
raise_fd_limit (struct rlimit *saved)
{
  struct rlimit raised;

  g_assert_no_errno (getrlimit (RLIMIT_NOFILE, saved));
  raised = *saved;
  raised.rlim_cur = raised.rlim_max;
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &raised));
}

/* fork() that waits a while for pids freed by other processes on a busy
 * machine; -1 if none came. */
static pid_t
fork_patiently (void)
{
  gint64 deadline = g_get_monotonic_time () + 60 * G_USEC_PER_SEC;
  pid_t pid;

  while ((pid = fork ()) < 0 && errno == EAGAIN && g_get_monotonic_time () < deadline)
    g_usleep (10 * 1000);

  return pid;
}

/* 10,000 processes (pid_max is 32768 here, the fd hard limit 20000), blocked
 * on one pipe, all killed with one kill() of their process group. */
static void
test_ten_thousand (void)
{
  const guint n = 10000;
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(GPtrArray) processes = g_ptr_array_new_with_free_func (g_object_unref);
  g_autofree pid_t *pids = g_new0 (pid_t, n);
  struct rlimit saved;
  Tally tally = { 0 };
  gint64 start;
  guint fds_before;
  int block[2];
  guint i;

  raise_fd_limit (&saved);
  if (saved.rlim_max < n + 200)
    {
      g_test_skip ("the hard limit on open files is below 10,200");
      return;
    }

  tally_init (&tally, monitor);
  g_assert_no_errno (pipe2 (block, O_CLOEXEC));

  start = g_get_monotonic_time ();
  for (i = 0; i < n; i++)
    {
      pid_t pid = fork_patiently ();

      if (pid < 0)
        {
          /* Other processes on this machine took the pid space. */
          if (i > 0)
            kill (-pids[0], SIGKILL);
          while (waitpid (-1, NULL, 0) > 0)
            ;
          close (block[0]);
          close (block[1]);
          tally_clear (&tally);
          g_test_skip_printf ("fork failed after %u processes: %s", i, g_strerror (errno));
          return;
        }

      if (pid == 0)
        {
          char byte;

          setpgid (0, i == 0 ? 0 : pids[0]);
          close (block[1]);
          while (read (block[0], &byte, 1) < 0 && errno == EINTR)
            ;
          _exit (0);
        }

      /* Also from here, so the group exists before the kill whatever ran first. */
      setpgid (pid, i == 0 ? pid : pids[0]);
      pids[i] = pid;
    }
  g_test_message ("%u processes started in %.1f s", n,
                  (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC);

  fds_before = test_count_open_fds ();
  start = g_get_monotonic_time ();
  for (i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process = procwatch_process_monitor_watch_pid (monitor, pids[i], &error);

      g_assert_no_error (error);
      g_ptr_array_add (processes, process);
    }
  g_test_message ("%u processes watched in %.1f s", n,
                  (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC);

  start = g_get_monotonic_time ();
  g_assert_no_errno (kill (-pids[0], SIGKILL));
  test_run_until_count (NULL, &tally.n_exited, n);
  g_test_message ("%u exits seen in %.1f s", n,
                  (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC);
  g_assert_cmpuint (tally.n_reaped, ==, 0);

  for (i = 0; i < n; i++)
    g_assert_cmpint (waitpid (pids[i], NULL, 0), ==, pids[i]);
  test_run_until_count (NULL, &tally.n_reaped, n);
  test_drain_context (NULL);
  g_test_message ("%u reaps seen %.1f s after the kill", n,
                  (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC);

  for (i = 0; i < n; i++)
    {
      ProcwatchProcess *process = g_ptr_array_index (processes, i);

      g_assert_cmpint (procwatch_process_get_pid (process), ==, pids[i]);
      g_assert_cmpuint (tally_get (tally.exited, process), ==, 1);
      g_assert_cmpuint (tally_get (tally.reaped, process), ==, 1);
      g_assert_true (procwatch_process_get_if_signaled (process));
      g_assert_cmpint (procwatch_process_get_term_sig (process), ==, SIGKILL);
    }
  g_assert_cmpuint (tally.n_exited, ==, n);
  g_assert_cmpuint (tally.n_reaped, ==, n);

  /* Every handle is closed once its process is reaped; the monitor keeps
   * its epoll fd and /proc, opened at its first watch by pid. */
  g_assert_cmpuint (test_count_open_fds (), <=, fds_before + 2);

  close (block[0]);
  close (block[1]);
  tally_clear (&tally);
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &saved));
}

/* Eight threads, each with its own context and monitor, watching and
 * unwatching processes that come and go. */
typedef struct
{
  guint index;
  gint64 deadline;
  guint rounds;
  guint processes;
} ChurnThread;

static gpointer
churn_thread (gpointer user_data)
{
  ChurnThread *self = user_data;
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GRand) rand = g_rand_new_with_seed (self->index);

  g_main_context_push_thread_default (context);

  while (g_get_monotonic_time () < self->deadline)
    {
      g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
      Tally tally = { 0 };
      guint monitor_rounds = g_rand_int_range (rand, 1, 8);
      guint r;

      tally_init (&tally, monitor);

      for (r = 0; r < monitor_rounds && g_get_monotonic_time () < self->deadline; r++)
        {
          TestProcess *targets[6];
          ProcwatchProcess *processes[6] = { NULL };
          gboolean unwatched[6] = { FALSE };
          guint n = G_N_ELEMENTS (targets);
          guint expected = 0;
          guint exited_before = tally.n_exited;
          guint reaped_before = tally.n_reaped;
          guint i;

          for (i = 0; i < n; i++)
            {
              g_autoptr(GError) error = NULL;

              targets[i] = test_process_spawn (TEST_PROCESS_CHILD);
              processes[i] = procwatch_process_monitor_watch_pid (monitor,
                                                                  test_process_get_pid (targets[i]),
                                                                  &error);
              g_assert_no_error (error);

              if (g_rand_int_range (rand, 0, 3) == 0)
                {
                  g_assert_true (procwatch_process_monitor_unwatch (monitor,
                                                                    test_process_get_pid (targets[i])));
                  unwatched[i] = TRUE;
                }
              else
                expected++;

              if (g_rand_boolean (rand))
                g_main_context_iteration (context, FALSE);
            }

          for (i = 0; i < n; i++)
            {
              if (g_rand_boolean (rand))
                test_process_exit (targets[i], i);
              else
                test_process_kill (targets[i], SIGKILL);
            }

          test_run_until_count (context, &tally.n_exited, exited_before + expected);
          for (i = 0; i < n; i++)
            test_process_reap (targets[i]);
          test_run_until_count (context, &tally.n_reaped, reaped_before + expected);

          for (i = 0; i < n; i++)
            {
              guint once = unwatched[i] ? 0 : 1;

              g_assert_cmpuint (tally_get (tally.exited, processes[i]), ==, once);
              g_assert_cmpuint (tally_get (tally.reaped, processes[i]), ==, once);
              test_process_free (targets[i]);
              g_object_unref (processes[i]);
            }

          self->rounds++;
          self->processes += n;
        }

      /* Sometimes disposed with processes still watched. */
      if (g_rand_boolean (rand))
        {
          g_autoptr(TestProcess) left = test_process_spawn (TEST_PROCESS_CHILD);
          g_autoptr(ProcwatchProcess) process =
            procwatch_process_monitor_watch_pid (monitor, test_process_get_pid (left), NULL);

          g_assert_nonnull (process);
          test_process_exit (left, 0);
          test_process_await_exit (left);
          g_signal_handlers_disconnect_by_data (monitor, &tally);
          g_clear_object (&monitor);
          test_drain_context (context);
        }

      if (monitor != NULL)
        g_signal_handlers_disconnect_by_data (monitor, &tally);
      tally_clear (&tally);
    }

  test_drain_context (context);
  g_main_context_pop_thread_default (context);
  return NULL;
}

static void
test_threads_churn (void)
{
  ChurnThread threads[8];
  GThread *handles[8];
  gint64 deadline = g_get_monotonic_time () + stress_seconds (10.0) * G_USEC_PER_SEC;
  guint fds_before = test_count_open_fds ();
  guint rounds = 0;
  guint processes = 0;
  guint i;

  for (i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      threads[i] = (ChurnThread) { i + 1, deadline, 0, 0 };
      handles[i] = g_thread_new ("churn", churn_thread, &threads[i]);
    }

  for (i = 0; i < G_N_ELEMENTS (threads); i++)
    {
      g_thread_join (handles[i]);
      g_assert_cmpuint (threads[i].rounds, >, 0);
      rounds += threads[i].rounds;
      processes += threads[i].processes;
    }

  g_test_message ("%u rounds, %u processes in 8 threads", rounds, processes);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
}

/* A monitor in a worker thread, its processes all exited and their events
 * waiting in the epoll set: destroyed before the context dispatches them,
 * or by a handler in the middle of a batch. Nothing is delivered to a
 * disposed monitor, nothing leaks. */
typedef struct
{
  gboolean in_handler;
  guint n_events;
  ProcwatchProcessMonitor *monitor;
} DestroyState;

static void
on_exited_destroy (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   DestroyState            *state)
{
  state->n_events++;
  g_assert_true (state->monitor == monitor);
  if (state->in_handler)
    g_clear_object (&state->monitor);
}

static gpointer
destroy_thread (gpointer user_data)
{
  gboolean in_handler = GPOINTER_TO_INT (user_data);
  g_autoptr(GMainContext) context = g_main_context_new ();
  g_autoptr(GPtrArray) targets = g_ptr_array_new_with_free_func ((GDestroyNotify) test_process_free);
  DestroyState state = { in_handler, 0, NULL };
  const guint n = 64;
  guint i;

  g_main_context_push_thread_default (context);
  state.monitor = procwatch_process_monitor_new ();
  g_signal_connect (state.monitor, "exited", G_CALLBACK (on_exited_destroy), &state);
  g_signal_connect (state.monitor, "reaped", G_CALLBACK (on_exited_destroy), &state);

  for (i = 0; i < n; i++)
    {
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(GError) error = NULL;
      TestProcess *target = test_process_spawn (i % 2 ? TEST_PROCESS_CHILD : TEST_PROCESS_GRANDCHILD);

      process = procwatch_process_monitor_watch_pid (state.monitor, test_process_get_pid (target),
                                                     &error);
      g_assert_no_error (error);
      g_ptr_array_add (targets, target);
    }

  for (i = 0; i < n; i++)
    {
      test_process_kill (g_ptr_array_index (targets, i), SIGKILL);
      test_process_await_exit (g_ptr_array_index (targets, i));
      if (i % 2)
        test_process_reap (g_ptr_array_index (targets, i));
    }

  if (in_handler)
    {
      while (state.monitor != NULL)
        g_main_context_iteration (context, TRUE);
      g_assert_cmpuint (state.n_events, ==, 1);
    }
  else
    {
      g_clear_object (&state.monitor);
    }

  test_drain_context (context);
  g_assert_cmpuint (state.n_events, ==, in_handler ? 1 : 0);

  g_main_context_pop_thread_default (context);
  return NULL;
}

static void
test_destroy_in_worker (void)
{
  guint fds_before = test_count_open_fds ();
  guint round;

  for (round = 0; round < 20; round++)
    {
      GThread *thread = g_thread_new ("destroy", destroy_thread, GINT_TO_POINTER (round % 2));

      g_thread_join (thread);
    }

  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);
}

/* 100,000 watch/unwatch cycles on one process, by pid and by pidfd, with
 * waits started and cancelled: the fd count and the RSS end where they
 * were after warming up. */
static void
test_watch_unwatch_cycles (void)
{
  const guint n = 100000;
  const guint warmup = 10000;
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  g_autoptr(TestRecorder) recorder = test_recorder_new (monitor);
  g_autoptr(TestProcess) target = test_process_spawn (TEST_PROCESS_CHILD);
  GPid pid = test_process_get_pid (target);
  int pidfd = test_have_pidfd () ? procwatch_pidfd_open (pid, 0) : -1;
  gsize rss_warm = 0;
  guint fds_warm = 0;
  gsize rss_end;
  guint i;

  for (i = 0; i < n; i++)
    {
      g_autoptr(ProcwatchProcess) process = NULL;
      g_autoptr(GError) error = NULL;

      if (pidfd >= 0 && i % 4 == 1)
        process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
      else
        process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
      g_assert_no_error (error);

      if (i % 16 == 3)
        {
          g_autoptr(GCancellable) cancellable = g_cancellable_new ();

          procwatch_process_monitor_wait_async (monitor, pid, cancellable, NULL, NULL);
          if (i % 32 == 3)
            g_cancellable_cancel (cancellable);
        }

      g_assert_true (procwatch_process_monitor_unwatch (monitor, pid));

      if (i % 64 == 0)
        test_drain_context (NULL);

      if (i + 1 == warmup)
        {
          test_drain_context (NULL);
          rss_warm = read_rss_kib ();
          fds_warm = test_count_open_fds ();
        }
    }

  test_drain_context (NULL);
  rss_end = read_rss_kib ();
  g_test_message ("RSS %" G_GSIZE_FORMAT " KiB after %u cycles, %" G_GSIZE_FORMAT
                  " KiB after %u", rss_warm, warmup, rss_end, n);
  g_assert_cmpuint (test_count_open_fds (), ==, fds_warm);
  g_assert_cmpuint (recorder->events->len, ==, 0);

#ifndef UNDER_ASAN
  /* Flat: 90,000 more cycles may not cost 2 MiB. (ASan's quarantine holds
   * freed memory on purpose; LeakSanitizer checks that lane instead.) */
  g_assert_cmpuint (rss_end, <, rss_warm + 2048);
#endif

  if (pidfd >= 0)
    close (pidfd);
  test_process_exit (target, 0);
  test_process_reap (target);
}

/* Pids wrapping around a small pid namespace while the monitor runs:
 * children come and go, each watched by pid right after fork() (it cannot
 * be reaped before we reap it, so the pid is surely its), reaped at random
 * moments, their pids taken again at once by new children, with the main
 * loop running only now and then. Every process object must get its own
 * exit, with its own status, and its reap only after we reaped it. */

#define NS_PID_MAX 340   /* pids 300..339 once wrapped: 40 of them */
#define NS_LIVE 24
#define MIN_REUSES 1000   /* pid reuses the scenario goes through at least */

typedef struct
{
  pid_t pid;
  int code;
  gboolean reaped_by_us;
  gboolean exited_seen;
  gboolean reaped_seen;
} Child;

typedef struct
{
  GHashTable *children;   /* ProcwatchProcess → Child */
  guint n_exited;
  guint n_reaped;
} ReuseState;

static void
on_reuse_exited (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 ReuseState              *state)
{
  Child *child = g_hash_table_lookup (state->children, process);

  g_assert_nonnull (child);
  g_assert_false (child->exited_seen);
  g_assert_cmpint (procwatch_process_get_pid (process), ==, child->pid);
  if (procwatch_process_has_status (process))
    g_assert_cmpint (procwatch_process_get_exit_status (process), ==, child->code);
  child->exited_seen = TRUE;
  state->n_exited++;
}

static void
on_reuse_reaped (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 ReuseState              *state)
{
  Child *child = g_hash_table_lookup (state->children, process);

  g_assert_nonnull (child);
  g_assert_true (child->exited_seen);
  g_assert_false (child->reaped_seen);
  /* Never the reap of a later process with the same pid. */
  g_assert_true (child->reaped_by_us);
  if (procwatch_process_has_status (process))
    g_assert_cmpint (procwatch_process_get_exit_status (process), ==, child->code);
  child->reaped_seen = TRUE;
  state->n_reaped++;
}

/* As pid 1 of a new pid namespace: a /proc of its own and a small pid_max
 * (per namespace since Linux 6.14). */
static const char *
setup_pid_namespace (gconstpointer user_data)
{
  const char *failed = test_mount_private_proc (NULL);
  char text[32];

  if (failed != NULL)
    return failed;

  g_snprintf (text, sizeof text, "%d", NS_PID_MAX);
  if (!test_write_proc_file ("/proc/sys/kernel/pid_max", text))
    return "setting the namespace's pid_max (Linux 6.14+)";

  /* Start right where the pids wrap to. */
  if (!test_write_proc_file ("/proc/sys/kernel/ns_last_pid", "299"))
    return "setting ns_last_pid";

  return NULL;
}

static void
reap_one (GHashTable *children,
          Child      *child,
          gboolean    block)
{
  int status = 0;
  pid_t ret;

  do
    ret = waitpid (child->pid, &status, block ? 0 : WNOHANG);
  while (ret < 0 && errno == EINTR);

  g_assert_cmpint (ret, >=, 0);
  if (ret == 0)
    return;

  g_assert_true (WIFEXITED (status));
  g_assert_cmpint (WEXITSTATUS (status), ==, child->code);
  child->reaped_by_us = TRUE;
}

static void
run_pid_reuse_in_namespace (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GRand) rand = g_rand_new ();
  g_autoptr(GHashTable) pids_seen = g_hash_table_new (NULL, NULL);
  g_autoptr(GPtrArray) live = g_ptr_array_new ();   /* ProcwatchProcess, not yet reaped by us */
  ReuseState state = { 0 };
  gint64 deadline = g_get_monotonic_time () + stress_seconds (5.0) * G_USEC_PER_SEC;
  guint spawned = 0;
  guint reuses = 0;
  guint seq = 0;

  g_assert_null (setup_pid_namespace (NULL));
  g_assert_cmpint (getpid (), ==, 1);

  state.children = g_hash_table_new_full (NULL, NULL, g_object_unref, g_free);
  monitor = procwatch_process_monitor_new ();
  g_signal_connect (monitor, "exited", G_CALLBACK (on_reuse_exited), &state);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reuse_reaped), &state);

  /* The time bounds the run, not the outcome: on a slow or loaded machine
   * (sanitizers, valgrind) it goes on until enough pids have been reused. */
  while ((g_get_monotonic_time () < deadline || reuses <= MIN_REUSES) && spawned < 50000)
    {
      /* Fill up the live set. */
      while (live->len < NS_LIVE)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process;
          Child *child;
          int code = (int) (seq++ % 200);
          guint delay = g_rand_int_range (rand, 0, 3) == 0 ? g_rand_int_range (rand, 1, 500) : 0;
          pid_t pid = fork ();

          if (pid < 0 && errno == EAGAIN)
            break;   /* every pid taken: reaps below free some */
          g_assert_cmpint (pid, >=, 0);
          if (pid == 0)
            {
              if (delay > 0)
                {
                  struct timespec ts = { 0, delay * 1000L };

                  nanosleep (&ts, NULL);
                }
              _exit (code);
            }

          process = procwatch_process_monitor_watch_pid (monitor, pid, &error);
          g_assert_no_error (error);
          /* A fresh object: never that of an earlier process with this pid. */
          g_assert_false (g_hash_table_contains (state.children, process));
          g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_RUNNING);

          child = g_new0 (Child, 1);
          child->pid = pid;
          child->code = code;
          g_hash_table_insert (state.children, process, child);
          g_ptr_array_add (live, process);

          if (g_hash_table_contains (pids_seen, GINT_TO_POINTER (pid)))
            reuses++;
          g_hash_table_add (pids_seen, GINT_TO_POINTER (pid));
          spawned++;
        }

      /* Reap a random few, often before the monitor saw them exit. */
      {
        guint n_reap = g_rand_int_range (rand, 1, 8);
        guint k;

        for (k = 0; k < n_reap && live->len > 0; k++)
          {
            guint index = g_rand_int_range (rand, 0, live->len);
            ProcwatchProcess *process = g_ptr_array_index (live, index);
            Child *child = g_hash_table_lookup (state.children, process);

            reap_one (state.children, child, g_rand_int_range (rand, 0, 4) == 0);
            if (child->reaped_by_us)
              g_ptr_array_remove_index_fast (live, index);
          }
      }

      if (g_rand_int_range (rand, 0, 3) == 0)
        g_main_context_iteration (NULL, FALSE);
    }

  while (live->len > 0)
    {
      ProcwatchProcess *process = g_ptr_array_index (live, 0);

      reap_one (state.children, g_hash_table_lookup (state.children, process), TRUE);
      g_ptr_array_remove_index_fast (live, 0);
    }

  test_run_until_count (NULL, &state.n_reaped, spawned);
  test_drain_context (NULL);

  g_assert_cmpuint (state.n_exited, ==, spawned);
  g_assert_cmpuint (state.n_reaped, ==, spawned);
  g_printerr ("%s backend: %u processes on %u pids, %u pid reuses\n",
              procwatch_process_monitor_get_backend (monitor), spawned,
              g_hash_table_size (pids_seen), reuses);
  g_assert_cmpuint (g_hash_table_size (pids_seen), <=, NS_PID_MAX);
  g_assert_cmpuint (reuses, >, MIN_REUSES);

  g_signal_handlers_disconnect_by_data (monitor, &state);
  g_clear_object (&monitor);
  g_hash_table_unref (state.children);
}

static void
test_pid_reuse (void)
{
  g_autofree char *why = NULL;

  if (g_test_subprocess ())
    {
      pid_t init;
      int status = 0;

      /* Our children are born into the namespace; the first is its pid 1. */
      g_assert_no_errno (test_unshare (CLONE_NEWPID | CLONE_NEWNS));
      init = fork ();
      g_assert_cmpint (init, >=, 0);
      if (init == 0)
        {
          run_pid_reuse_in_namespace ();
          /* Not exit(): LeakSanitizer cannot stop the world of a pid
           * namespace's init (it dies with "does not work under ptrace");
           * the same code is leak-checked by the other scenarios. */
          _exit (0);
        }

      g_assert_cmpint (waitpid (init, &status, 0), ==, init);
      if (!WIFEXITED (status) || WEXITSTATUS (status) != 0)
        g_error ("the namespace's init failed (wait status 0x%x)", status);

      /* Not a return into exit(): LeakSanitizer would start its tracer as a
       * child, in the namespace whose init is gone, and fail. */
      _exit (0);
    }

  if (!test_can_unshare (CLONE_NEWPID | CLONE_NEWNS, setup_pid_namespace, NULL, &why))
    {
      g_test_skip_printf ("cannot have a pid namespace with its own /proc and pid_max here: %s",
                          why);
      return;
    }

  g_test_trap_subprocess (NULL, 0, G_TEST_SUBPROCESS_INHERIT_STDERR);
  g_test_trap_assert_passed ();
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  g_test_add_func ("/stress/ten-thousand-killed-at-once", test_ten_thousand);
  g_test_add_func ("/stress/threads-churn", test_threads_churn);
  g_test_add_func ("/stress/destroy-in-worker-with-events-pending", test_destroy_in_worker);
  g_test_add_func ("/stress/watch-unwatch-cycles", test_watch_unwatch_cycles);
  g_test_add_func ("/stress/pid-reuse-in-small-namespace", test_pid_reuse);

  return g_test_run ();
}
