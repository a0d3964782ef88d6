/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Thousands of real processes with random ends (exit codes, SIGKILL,
 * SIGTERM) and random reapers (the test in its "exited" handler, a thread
 * looping on waitpid (-1), g_child_watch_add(), GSubprocess, an intermediate
 * parent for non-children, a parent ignoring SIGCHLD): every process gets
 * "exited" then "reaped", each once, carrying its own object, and its status
 * wherever the documentation promises it.
 *
 * PROCWATCH_RANDOM_PROCESSES sets how many (5,000 by default),
 * PROCWATCH_RANDOM_SEED the seed (printed, to replay a run).
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gio/gio.h>

#include "procwatch-test-util.h"

/* Processes alive at once: far below pid_max (32768) and, at four fds a
 * process at most, the fd hard limit (20000), on a machine others share. */
#define WAVE_SIZE 250

typedef enum
{
  REAPER_HANDLER,        /* the test, with waitpid (pid) in its "exited" handler */
  REAPER_WAITPID_ANY,    /* a thread looping on waitpid (-1) */
  REAPER_CHILD_WATCH,    /* g_child_watch_add () */
  REAPER_SUBPROCESS,     /* GSubprocess */
  REAPER_PARENT,         /* a non-child: its parent reaps it when told */
  REAPER_PARENT_AT_ONCE, /* a non-child its parent reaps as soon as it exits */
  REAPER_AUTOREAP,       /* a non-child whose parent ignores SIGCHLD */
  N_REAPERS
} Reaper;

static const char *reaper_names[N_REAPERS] = {
  "exited handler", "waitpid(-1) thread", "g_child_watch_add", "GSubprocess",
  "intermediate parent", "intermediate parent at once", "SIGCHLD ignored",
};

typedef struct
{
  Reaper reaper;
  int code;              /* exit code, or -1 */
  int sig;               /* terminating signal, or 0 */
  gboolean exit_before_watch;

  GPid pid;
  int control_fd;        /* children of ours: a byte there is the exit code */
  TestProcess *grandchild;
  GSubprocess *subprocess;
  ProcwatchProcess *process;

  guint n_exited;
  guint n_reaped;
  guint64 exited_seq;
  guint64 reaped_seq;
  gboolean status_at_exited;
  gboolean status_at_reaped;
  gboolean reaper_done;
  int reaper_status;
} Proc;

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  GHashTable *by_process;    /* ProcwatchProcess → Proc */
  guint64 seq;
  guint n_reaped;
  guint n_reaper_done;
  gboolean status_after_reap;

  /* Over the whole run, per reaper. */
  guint total[N_REAPERS];
  guint with_status_at_exited[N_REAPERS];
  guint with_status_at_reaped[N_REAPERS];
} Run;

static gboolean
status_matches (const Proc *proc,
                int         status)
{
  if (proc->sig != 0)
    return WIFSIGNALED (status) && WTERMSIG (status) == proc->sig;
  return WIFEXITED (status) && WEXITSTATUS (status) == proc->code;
}

/* A status, once known, is the right one, and the getters agree with it. */
static void
check_known_status (const Proc       *proc,
                    ProcwatchProcess *process)
{
  int status = procwatch_process_get_status (process);

  if (!status_matches (proc, status))
    g_error ("pid %d (%s): status 0x%x, expected %s %d", proc->pid,
             reaper_names[proc->reaper], status, proc->sig ? "signal" : "exit code",
             proc->sig ? proc->sig : proc->code);

  if (proc->sig != 0)
    {
      g_assert_true (procwatch_process_get_if_signaled (process));
      g_assert_cmpint (procwatch_process_get_term_sig (process), ==, proc->sig);
    }
  else
    {
      g_assert_true (procwatch_process_get_if_exited (process));
      g_assert_cmpint (procwatch_process_get_exit_status (process), ==, proc->code);
    }
}

static gboolean
is_child (const Proc *proc)
{
  return proc->reaper <= REAPER_SUBPROCESS;
}

static Proc *
lookup (Run              *run,
        ProcwatchProcess *process)
{
  Proc *proc = g_hash_table_lookup (run->by_process, process);

  if (proc == NULL)
    g_error ("an event for a process this test never watched (pid %d)",
             procwatch_process_get_pid (process));
  g_assert_cmpint (procwatch_process_get_pid (process), ==, proc->pid);

  return proc;
}

static void
reap_in_handler (Run  *run,
                 Proc *proc)
{
  int status = 0;

  if (proc->reaper == REAPER_HANDLER)
    {
      g_assert_cmpint (waitpid (proc->pid, &status, 0), ==, proc->pid);
      close (proc->control_fd);
      proc->control_fd = -1;
    }
  else if (proc->reaper == REAPER_PARENT)
    {
      status = test_process_reap (proc->grandchild);
    }
  else
    {
      return;
    }

  proc->reaper_status = status;
  proc->reaper_done = TRUE;
  run->n_reaper_done++;
}

static void
on_exited (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Run                     *run)
{
  Proc *proc = lookup (run, process);

  g_assert_cmpuint (proc->n_reaped, ==, 0);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_EXITED);
  proc->n_exited++;
  proc->exited_seq = ++run->seq;
  proc->status_at_exited = procwatch_process_has_status (process);
  if (proc->status_at_exited)
    check_known_status (proc, process);

  reap_in_handler (run, proc);
}

static void
on_reaped (ProcwatchProcessMonitor *monitor,
           ProcwatchProcess        *process,
           Run                     *run)
{
  Proc *proc = lookup (run, process);

  g_assert_cmpuint (proc->n_exited, ==, 1);
  g_assert_cmpint (procwatch_process_get_state (process), ==, PROCWATCH_PROCESS_STATE_REAPED);
  proc->n_reaped++;
  proc->reaped_seq = ++run->seq;
  proc->status_at_reaped = procwatch_process_has_status (process);
  if (proc->status_at_reaped)
    check_known_status (proc, process);

  run->n_reaped++;
}

static void
on_child_watch (GPid     pid,
                int      status,
                gpointer user_data)
{
  Proc *proc = user_data;

  g_assert_cmpint (pid, ==, proc->pid);
  proc->reaper_status = status;
  proc->reaper_done = TRUE;
  close (proc->control_fd);
  proc->control_fd = -1;
}

static void
on_subprocess_done (GObject      *object,
                    GAsyncResult *result,
                    gpointer      user_data)
{
  Proc *proc = user_data;
  g_autoptr(GError) error = NULL;

  g_assert_true (g_subprocess_wait_finish (G_SUBPROCESS (object), result, &error));
  g_assert_no_error (error);
  proc->reaper_status = g_subprocess_get_status (G_SUBPROCESS (object));
  proc->reaper_done = TRUE;
}

/* A child that exits with the code it reads from its pipe. Only
 * async-signal-safe calls after fork(): GLib runs threads here. */
static GPid
fork_child (int *control_fd)
{
  pid_t parent = getpid ();
  int control[2];
  pid_t pid;

  g_assert_no_errno (pipe2 (control, O_CLOEXEC));
  pid = fork ();
  g_assert_cmpint (pid, >=, 0);
  if (pid == 0)
    {
      unsigned char code = 0;

      prctl (PR_SET_PDEATHSIG, SIGKILL);
      if (getppid () != parent)
        _exit (104);
      if (dup2 (control[0], 3) < 0)
        _exit (105);
      syscall (SYS_close_range, 4, ~0U, 0);
      while (read (3, &code, 1) < 0 && errno == EINTR)
        ;
      _exit (code);
    }

  close (control[0]);
  *control_fd = control[1];
  return pid;
}

static void
spawn (Proc *proc)
{
  switch (proc->reaper)
    {
    case REAPER_HANDLER:
    case REAPER_WAITPID_ANY:
    case REAPER_CHILD_WATCH:
      proc->pid = fork_child (&proc->control_fd);
      break;

    case REAPER_SUBPROCESS:
      {
        g_autofree char *script = g_strdup_printf ("read -r line; exit %d", MAX (proc->code, 0));
        g_autoptr(GError) error = NULL;

        proc->subprocess = g_subprocess_new (G_SUBPROCESS_FLAGS_STDIN_PIPE, &error,
                                             "/bin/sh", "-c", script, NULL);
        g_assert_no_error (error);
        proc->pid = atoi (g_subprocess_get_identifier (proc->subprocess));
      }
      break;

    case REAPER_PARENT:
    case REAPER_PARENT_AT_ONCE:
      proc->grandchild = test_process_spawn (TEST_PROCESS_GRANDCHILD);
      proc->pid = test_process_get_pid (proc->grandchild);
      break;

    case REAPER_AUTOREAP:
      proc->grandchild = test_process_spawn (TEST_PROCESS_GRANDCHILD_AUTOREAP);
      proc->pid = test_process_get_pid (proc->grandchild);
      break;

    case N_REAPERS:
    default:
      g_assert_not_reached ();
    }
}

/* Makes the process end as drawn, and for those reaped at once, reaps it. */
static void
trigger (Run  *run,
         Proc *proc)
{
  if (proc->subprocess != NULL)
    {
      if (proc->sig != 0)
        g_subprocess_send_signal (proc->subprocess, proc->sig);
      else
        g_assert_true (g_output_stream_close (g_subprocess_get_stdin_pipe (proc->subprocess),
                                              NULL, NULL));
    }
  else if (proc->grandchild != NULL)
    {
      if (proc->sig != 0)
        test_process_kill (proc->grandchild, proc->sig);
      else
        test_process_exit (proc->grandchild, proc->code);

      if (proc->reaper == REAPER_PARENT_AT_ONCE)
        {
          proc->reaper_status = test_process_reap (proc->grandchild);
          proc->reaper_done = TRUE;
          run->n_reaper_done++;
        }
    }
  else
    {
      unsigned char byte = proc->code;

      if (proc->sig != 0)
        g_assert_no_errno (kill (proc->pid, proc->sig));
      else
        g_assert_cmpint (write (proc->control_fd, &byte, 1), ==, 1);
    }
}

typedef struct
{
  Proc *procs;
  guint n;
} WaitAnyJob;

/* Reaps every child of the test, whoever's, as a careless library would. */
static gpointer
waitpid_any_thread (gpointer data)
{
  WaitAnyJob *job = data;
  guint reaped = 0;

  while (reaped < job->n)
    {
      int status = 0;
      pid_t pid = waitpid (-1, &status, 0);
      guint i;

      if (pid < 0 && errno == EINTR)
        continue;
      g_assert_cmpint (pid, >, 0);

      for (i = 0; i < job->n; i++)
        if (job->procs[i].pid == pid)
          break;
      g_assert_cmpuint (i, <, job->n);
      job->procs[i].reaper_status = status;
      g_atomic_int_set (&job->procs[i].reaper_done, TRUE);
      reaped++;
    }

  return NULL;
}

static void
draw (GRand  *rand,
      Proc   *proc,
      Reaper  reaper)
{
  guint32 end = g_rand_int_range (rand, 0, 10);

  proc->reaper = reaper;
  proc->control_fd = -1;
  proc->code = -1;
  if (end < 6)
    proc->code = g_rand_int_range (rand, 0, 256);
  else
    proc->sig = end < 8 ? SIGKILL : SIGTERM;

  /* A zombie (or a reaped process) before the watch: only where the test
   * decides when the process is reaped, so the pid cannot be reused meanwhile. */
  proc->exit_before_watch =
    (reaper == REAPER_HANDLER || reaper == REAPER_PARENT) && g_rand_int_range (rand, 0, 10) == 0;
}

static void
watch (Run  *run,
       Proc *proc)
{
  g_autoptr(GError) error = NULL;

  proc->process = procwatch_process_monitor_watch_pid (run->monitor, proc->pid, &error);
  g_assert_no_error (error);
  g_assert_null (g_hash_table_lookup (run->by_process, proc->process));
  g_hash_table_insert (run->by_process, proc->process, proc);
}

static void
run_wave (Run     *run,
          GRand   *rand,
          guint    n,
          gboolean wait_any)
{
  GMainContext *context = g_main_context_default ();
  g_autofree Proc *procs = g_new0 (Proc, n);
  g_autofree guint *order = g_new (guint, n);
  GThread *thread = NULL;
  WaitAnyJob job = { procs, n };
  guint reaped_before = run->n_reaped;
  guint i;

  run->n_reaper_done = 0;

  for (i = 0; i < n; i++)
    {
      Proc *proc = &procs[i];
      Reaper reaper;

      if (wait_any)
        reaper = REAPER_WAITPID_ANY;
      else
        do
          reaper = g_rand_int_range (rand, 0, N_REAPERS);
        while (reaper == REAPER_WAITPID_ANY);

      draw (rand, proc, reaper);
      spawn (proc);

      if (proc->exit_before_watch)
        {
          trigger (run, proc);
          if (proc->grandchild != NULL)
            test_process_await_exit (proc->grandchild);
          else
            {
              siginfo_t info;

              g_assert_no_errno (waitid (P_PID, proc->pid, &info, WEXITED | WNOWAIT));
            }
        }

      watch (run, proc);

      if (reaper == REAPER_CHILD_WATCH)
        g_child_watch_add (proc->pid, on_child_watch, proc);
      else if (reaper == REAPER_SUBPROCESS)
        g_subprocess_wait_async (proc->subprocess, NULL, on_subprocess_done, proc);

      order[i] = i;
    }

  if (wait_any)
    thread = g_thread_new ("waitpid-any", waitpid_any_thread, &job);

  /* Ends in random order, with the main loop dispatching now and then in
   * between, so that events arrive while others are still being caused. */
  for (i = n; i > 1; i--)
    {
      guint j = g_rand_int_range (rand, 0, i);
      guint tmp = order[i - 1];

      order[i - 1] = order[j];
      order[j] = tmp;
    }

  for (i = 0; i < n; i++)
    {
      Proc *proc = &procs[order[i]];

      if (!proc->exit_before_watch)
        trigger (run, proc);
      if (g_rand_int_range (rand, 0, 8) == 0)
        test_drain_context (context);
    }

  test_run_until_count (context, &run->n_reaped, reaped_before + n);
  if (thread != NULL)
    g_thread_join (thread);

  /* The reapers outside the test report from this context too. */
  for (i = 0; i < n; i++)
    while (!g_atomic_int_get (&procs[i].reaper_done) && procs[i].reaper != REAPER_AUTOREAP)
      g_main_context_iteration (context, TRUE);

  for (i = 0; i < n; i++)
    {
      Proc *proc = &procs[i];

      g_assert_cmpuint (proc->n_exited, ==, 1);
      g_assert_cmpuint (proc->n_reaped, ==, 1);
      g_assert_cmpuint (proc->exited_seq, <, proc->reaped_seq);
      if (proc->reaper != REAPER_AUTOREAP)
        g_assert_true (status_matches (proc, proc->reaper_status));

      /* Promised today: a child the test reaps itself in "exited" has its
       * status there; a non-child has it at "reaped" where the kernel keeps it. */
      if (proc->reaper == REAPER_HANDLER)
        g_assert_true (proc->status_at_exited);
      if (!is_child (proc) && run->status_after_reap)
        g_assert_true (proc->status_at_reaped);
      /* Once known, a status stays known. */
      if (proc->status_at_exited)
        g_assert_true (proc->status_at_reaped);

      run->total[proc->reaper]++;
      run->with_status_at_exited[proc->reaper] += proc->status_at_exited;
      run->with_status_at_reaped[proc->reaper] += proc->status_at_reaped;

      g_hash_table_remove (run->by_process, proc->process);
      g_clear_object (&proc->process);
      g_clear_object (&proc->subprocess);
      if (proc->control_fd >= 0)
        close (proc->control_fd);
      /* Lets its parent go; the target's pid is long free, never to be
       * signalled by test_process_free(). */
      if (proc->reaper == REAPER_AUTOREAP)
        test_process_reap (proc->grandchild);
      g_clear_pointer (&proc->grandchild, test_process_free);
    }

  /* Nothing left over: no event for a process of this wave is pending. */
  test_drain_context (context);
  g_assert_cmpuint (run->n_reaped, ==, reaped_before + n);
}

static guint
get_uint_env (const char *name,
              guint       fallback)
{
  const char *value = g_getenv (name);

  return value != NULL && *value != '\0' ? (guint) g_ascii_strtoull (value, NULL, 10) : fallback;
}

static void
test_random_exits (void)
{
  guint n = get_uint_env ("PROCWATCH_RANDOM_PROCESSES", 5000);
  guint32 seed = get_uint_env ("PROCWATCH_RANDOM_SEED", g_random_int ());
  g_autoptr(GRand) rand = g_rand_new_with_seed (seed);
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  gboolean expect_child_status =
    g_strcmp0 (g_getenv ("PROCWATCH_TEST_EXPECT_CHILD_STATUS_AT_EXIT"), "1") == 0;
  Run run = { 0 };
  struct rlimit saved, raised;
  guint done = 0;
  guint wave = 0;
  gint64 start = g_get_monotonic_time ();
  guint fds_before = 0;
  int r;

  g_assert_no_errno (getrlimit (RLIMIT_NOFILE, &saved));
  raised = saved;
  raised.rlim_cur = raised.rlim_max;
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &raised));

  run.monitor = monitor;
  run.by_process = g_hash_table_new (NULL, NULL);
  run.status_after_reap = test_status_known_after_reap (monitor);
  g_signal_connect (monitor, "exited", G_CALLBACK (on_exited), &run);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_reaped), &run);

  g_test_message ("%u processes, seed %u, backend %s%s", n, seed,
                  procwatch_process_monitor_get_backend (monitor),
                  g_getenv ("PROCWATCH_DEBUG") != NULL ? " (PROCWATCH_DEBUG set)" : "");

  /* Every fourth wave belongs to the waitpid (-1) thread alone: it would
   * take the children of every other reaper, and their intermediate parents. */
  while (done < n)
    {
      guint size = MIN (WAVE_SIZE, n - done);

      run_wave (&run, rand, size, wave % 4 == 1);
      done += size;
      wave++;

      /* Counted after the first wave: GLib opens the fds of its child watch
       * and subprocess machinery once, on first use. */
      if (wave == 1)
        fds_before = test_count_open_fds ();
    }

  g_assert_cmpuint (test_count_open_fds (), ==, fds_before);

  g_test_message ("%u processes in %u waves, %.1f s", n, wave,
                  (g_get_monotonic_time () - start) / (double) G_USEC_PER_SEC);
  for (r = 0; r < N_REAPERS; r++)
    g_test_message ("%-28s %5u processes, status at exited %5u, at reaped %5u",
                    reaper_names[r], run.total[r], run.with_status_at_exited[r],
                    run.with_status_at_reaped[r]);

  /* Issue 12, item 1: on the pidfd backend a child's status is known at
   * "exited" whoever reaps it. Switched on once that lands. */
  if (expect_child_status &&
      g_str_equal (procwatch_process_monitor_get_backend (monitor), "pidfd"))
    for (r = REAPER_WAITPID_ANY; r <= REAPER_SUBPROCESS; r++)
      g_assert_cmpuint (run.with_status_at_exited[r], ==, run.total[r]);

  g_signal_handlers_disconnect_by_data (monitor, &run);
  g_hash_table_unref (run.by_process);
  g_assert_no_errno (setrlimit (RLIMIT_NOFILE, &saved));
}

int
main (int   argc,
      char *argv[])
{
  test_init (&argc, &argv);

  g_test_add_func ("/random/exits-signals-and-reapers", test_random_exits);

  return g_test_run ();
}
