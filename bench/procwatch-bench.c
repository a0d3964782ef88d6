/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench: measures ProcwatchProcessMonitor against its peers, each
 * subcommand one measurement, printing one JSON object per line for
 * bench/run to gather. Peers are measured in the same process run,
 * interleaved, so that their ratios hold on a noisy machine.
 */

#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <gio-procwatch/procwatch.h>
#include <glib-unix.h>

#include "procwatch-bench-procs.h"
#include "procwatch-io.h"

extern char **environ;

#ifdef HAVE_VALGRIND_CALLGRIND_H
# include <valgrind/callgrind.h>
#else
# define CALLGRIND_TOGGLE_COLLECT do { } while (0)
#endif

#define EPOLL_BATCH 256

/* Options shared by the subcommands. */
static int opt_rounds = 20;
static int opt_n = 1000;
static int opt_iters = 200;
static int opt_blocks = 10;
static char *opt_peers;
static char *opt_layouts;
static char *opt_sizes;
static char *opt_label;
static char *opt_expect_backend;
static char *opt_psutil_script;
static char *opt_python;
static char *opt_mode;
static char *opt_out;
static char *opt_valgrind;
static char *opt_shim;
static int opt_fd_base = -1;
static int opt_ctl_fd = -1;
static int opt_max_delay_us = 20000;
static gboolean opt_delay_in_loop;
static gboolean opt_reaped;
static char *opt_sleepers;
static gboolean opt_drop_caches;

static GOptionEntry entries[] = {
  { "rounds", 0, 0, G_OPTION_ARG_INT, &opt_rounds, "Rounds (each measures every peer once)", "R" },
  { "n", 0, 0, G_OPTION_ARG_INT, &opt_n, "Number of processes", "N" },
  { "iters", 0, 0, G_OPTION_ARG_INT, &opt_iters, "Iterations per block", "K" },
  { "blocks", 0, 0, G_OPTION_ARG_INT, &opt_blocks, "Interleaved blocks", "B" },
  { "peers", 0, 0, G_OPTION_ARG_STRING, &opt_peers, "Comma-separated peers", "LIST" },
  { "layouts", 0, 0, G_OPTION_ARG_STRING, &opt_layouts, "child,nonchild", "LIST" },
  { "sizes", 0, 0, G_OPTION_ARG_STRING, &opt_sizes, "Comma-separated process counts", "LIST" },
  { "label", 0, 0, G_OPTION_ARG_STRING, &opt_label, "Label of this run in the output", "TEXT" },
  { "expect-backend", 0, 0, G_OPTION_ARG_STRING, &opt_expect_backend,
    "Drop the monitor unless it uses this backend", "NAME" },
  { "psutil-script", 0, 0, G_OPTION_ARG_FILENAME, &opt_psutil_script, "bench/peer-psutil.py", "PATH" },
  { "python", 0, 0, G_OPTION_ARG_FILENAME, &opt_python, "Python with psutil", "PATH" },
  { "mode", 0, 0, G_OPTION_ARG_STRING, &opt_mode,
    "callgrind: iter, exit, child, listexit, listunwatch or listwatch", "MODE" },
  { "out", 0, 0, G_OPTION_ARG_FILENAME, &opt_out, "callgrind output file", "PATH" },
  { "valgrind", 0, 0, G_OPTION_ARG_FILENAME, &opt_valgrind, "valgrind executable", "PATH" },
  { "shim", 0, 0, G_OPTION_ARG_FILENAME, &opt_shim, "procwatch-bench-vgshim.so", "PATH" },
  { "fd-base", 0, 0, G_OPTION_ARG_INT, &opt_fd_base, "(internal)", "FD" },
  { "ctl-fd", 0, 0, G_OPTION_ARG_INT, &opt_ctl_fd, "(internal)", "FD" },
  { "max-delay-us", 0, 0, G_OPTION_ARG_INT, &opt_max_delay_us,
    "Random wait before each exit, at most", "US" },
  { "reaped", 0, 0, G_OPTION_ARG_NONE, &opt_reaped,
    "latency: also exit → \"reaped\" of a non-child (its parent reaps at once)", NULL },
  { "delay-in-loop", 0, 0, G_OPTION_ARG_NONE, &opt_delay_in_loop,
    "Run the main loop during that wait (monitor)", NULL },
  { "sleepers", 0, 0, G_OPTION_ARG_FILENAME, &opt_sleepers,
    "scale, memory: procwatch-bench-sleepers", "PATH" },
  { "drop-caches", 0, 0, G_OPTION_ARG_NONE, &opt_drop_caches,
    "scale: drop the kernel's reclaimable caches around its memory readings (root, in a "
    "machine of the benchmark's own: a guest)", NULL },
  { NULL }
};

static gboolean raise_fd_limit_to (rlim_t needed);

/* Output */

static void
print_samples (const char   *bench,
               const char   *fields,
               const gint64 *values,
               guint         n_values)
{
  g_autoptr(GString) line = g_string_new (NULL);
  guint i;

  g_string_append_printf (line, "{\"bench\": \"%s\", \"label\": \"%s\", %s, \"ns\": [",
                          bench, opt_label != NULL ? opt_label : "", fields);
  for (i = 0; i < n_values; i++)
    g_string_append_printf (line, "%s%" G_GINT64_FORMAT, i > 0 ? ", " : "", values[i]);
  g_string_append (line, "]}\n");

  fputs (line->str, stdout);
  fflush (stdout);
}

static void
print_line (const char *format,
            ...) G_GNUC_PRINTF (1, 2);

static void
print_line (const char *format,
            ...)
{
  va_list args;

  va_start (args, format);
  vprintf (format, args);
  va_end (args);
  putchar ('\n');
  fflush (stdout);
}

static gboolean
list_has (const char *list,
          const char *item)
{
  g_auto(GStrv) items = NULL;

  if (list == NULL)
    return TRUE;

  items = g_strsplit (list, ",", -1);
  return g_strv_contains ((const char * const *) items, item);
}

static gint64
cpu_ns (void)
{
  struct rusage usage;

  getrusage (RUSAGE_SELF, &usage);
  return (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * G_GINT64_CONSTANT (1000000000) +
         (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * G_GINT64_CONSTANT (1000);
}

/* Whether the monitor uses the backend the run asked for; says so if not. */
static gboolean
monitor_backend_ok (ProcwatchProcessMonitor *monitor)
{
  const char *backend = procwatch_process_monitor_get_backend (monitor);
  gboolean ok = opt_expect_backend == NULL || g_strcmp0 (backend, opt_expect_backend) == 0;
  g_autofree char *features = g_flags_to_string (PROCWATCH_TYPE_FEATURES,
                                                 procwatch_process_monitor_get_features (monitor));

  /* The features say what the kernel gives (bench/run --guest-kernels). */
  print_line ("{\"bench\": \"backend\", \"label\": \"%s\", \"requested\": \"%s\", "
              "\"got\": \"%s\", \"available\": %s, \"features\": \"%s\"}",
              opt_label != NULL ? opt_label : "",
              opt_expect_backend != NULL ? opt_expect_backend : "",
              backend, ok ? "true" : "false", features);
  return ok;
}

/* Counts signals of a monitor and stamps the last of each. */
typedef struct
{
  GPid pid;           /* the one process a latency round waits for, or 0 */
  guint n_exited;
  guint n_reaped;
  gint64 exited_ns;
  gint64 reaped_ns;
} Counter;

static void
on_counter_exited (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   Counter                 *counter)
{
  gint64 now = bench_now_ns ();

  if (counter->pid != 0 && procwatch_process_get_pid (process) != counter->pid)
    return;

  counter->exited_ns = now;
  counter->n_exited++;
}

static void
on_counter_reaped (ProcwatchProcessMonitor *monitor,
                   ProcwatchProcess        *process,
                   Counter                 *counter)
{
  counter->reaped_ns = bench_now_ns ();
  counter->n_reaped++;
}

static ProcwatchProcessMonitor *
counting_monitor_new (Counter *counter)
{
  ProcwatchProcessMonitor *monitor = procwatch_process_monitor_new ();

  g_signal_connect (monitor, "exited", G_CALLBACK (on_counter_exited), counter);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_counter_reaped), counter);
  return monitor;
}

/* 1. Exit → "exited" latency */

typedef enum
{
  PEER_EPOLL,
  PEER_EPOLLSOURCE,
  PEER_MONITOR,
  PEER_FDSOURCE,
  PEER_CHILDWATCH,
  PEER_POLL10,
  PEER_PSUTIL,
  PEER_PIDWAIT,
  N_PEERS
} Peer;

static const char *peer_names[N_PEERS] = {
  "epoll", "epollsource", "monitor", "fdsource", "childwatch", "poll10ms", "psutil", "pidwait",
};

typedef struct
{
  ProcwatchProcessMonitor *monitor;
  Counter counter;
  gint64 stamp;
  gint64 reaped_stamp;
  gboolean done;

  GPid psutil_pid;
  FILE *psutil_in;
  FILE *psutil_out;
  char *pidfile;
} LatencyRun;

static void
latency_done (LatencyRun *run)
{
  run->stamp = bench_now_ns ();
  run->done = TRUE;
}

static gboolean
on_fd_ready (int           fd,
             GIOCondition  condition,
             gpointer      user_data)
{
  latency_done (user_data);
  return G_SOURCE_REMOVE;
}

static void
on_child_exited (GPid     pid,
                 int      status,
                 gpointer user_data)
{
  latency_done (user_data);
}

static void
sleep_us (gint64 us)
{
  if (us > 0)
    g_usleep (us);
}

static gboolean
on_loop_deadline (gpointer user_data)
{
  *(gboolean *) user_data = TRUE;
  return G_SOURCE_REMOVE;
}

/* Runs the main loop for @us, as an application does while it waits, and
 * counts its iterations into @iterations (if not NULL). */
static void
run_loop_for (gint64  us,
              guint  *iterations)
{
  gboolean done = FALSE;
  GSource *deadline = g_timeout_source_new (us / 1000);

  g_source_set_callback (deadline, on_loop_deadline, &done, NULL);
  g_source_attach (deadline, NULL);
  while (!done)
    {
      g_main_context_iteration (NULL, TRUE);
      if (iterations != NULL)
        (*iterations)++;
    }
  g_source_destroy (deadline);
  g_source_unref (deadline);
}

static void
run_until_done (LatencyRun *run)
{
  while (!run->done)
    g_main_context_iteration (NULL, TRUE);
}

/* Polls every 10 ms, the first time at a random phase after the exit was
 * triggered: kill (pid, 0) for a process whose parent reaps it, waitpid
 * (WNOHANG) for our own child (someone has to reap it). */
static gint64
poll_every_10ms (BenchTarget *target)
{
  const gint64 period = 10 * G_TIME_SPAN_MILLISECOND * 1000;
  gint64 next = bench_now_ns () + g_random_int_range (0, 10000) * G_GINT64_CONSTANT (1000);

  for (;;)
    {
      struct timespec ts = { next / 1000000000, next % 1000000000 };

      while (clock_nanosleep (CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;

      if (target->parent == 0)
        {
          if (waitpid (target->pid, NULL, WNOHANG) == target->pid)
            {
              target->reaped = TRUE;
              return bench_now_ns ();
            }
        }
      else if (kill (target->pid, 0) < 0 && errno == ESRCH)
        {
          return bench_now_ns ();
        }

      next += period;
    }
}

static gboolean
psutil_start (LatencyRun *run)
{
  const char *argv[] = { opt_python, opt_psutil_script, NULL };
  g_autoptr(GError) error = NULL;
  int in_fd, out_fd;

  if (opt_python == NULL || opt_psutil_script == NULL)
    return FALSE;

  if (!g_spawn_async_with_pipes (NULL, (char **) argv, NULL, G_SPAWN_DO_NOT_REAP_CHILD,
                                 NULL, NULL, &run->psutil_pid, &in_fd, &out_fd, NULL, &error))
    {
      g_printerr ("procwatch-bench: cannot start the psutil peer: %s\n", error->message);
      return FALSE;
    }

  run->psutil_in = fdopen (in_fd, "w");
  run->psutil_out = fdopen (out_fd, "r");
  return TRUE;
}

static void
psutil_stop (LatencyRun *run)
{
  if (run->psutil_in == NULL)
    return;

  fclose (run->psutil_in);
  fclose (run->psutil_out);
  waitpid (run->psutil_pid, NULL, 0);
  run->psutil_in = NULL;
}

static gint64
measure_psutil (LatencyRun  *run,
                BenchTarget *target,
                gint64       delay_us)
{
  char line[128];

  fprintf (run->psutil_in, "%d\n", (int) target->pid);
  fflush (run->psutil_in);
  if (fgets (line, sizeof line, run->psutil_out) == NULL)
    return -1;

  sleep_us (delay_us);
  bench_target_trigger (target);

  if (fgets (line, sizeof line, run->psutil_out) == NULL)
    return -1;

  return g_ascii_strtoll (line, NULL, 10);
}

/* pidwait cannot tell when it saw the exit: its own exit is the report, so
 * this includes pidwait's exit and our wake-up on it. */
static gint64
measure_pidwait (LatencyRun  *run,
                 BenchTarget *target,
                 gint64       delay_us)
{
  g_autofree char *syscall_path = NULL;
  g_autofree char *content = g_strdup_printf ("%d\n", (int) target->pid);
  gint64 deadline = bench_now_ns () + G_GINT64_CONSTANT (5000000000);
  pid_t pid;

  if (!g_file_set_contents (run->pidfile, content, -1, NULL))
    return -1;

  {
    const char *argv[] = { "pidwait", "-F", run->pidfile, NULL };

    if (posix_spawn (&pid, "/usr/bin/pidwait", NULL, NULL, (char **) argv, environ) != 0)
      return -1;
  }

  /* Ready once it sleeps in epoll_wait (232) or poll (7). */
  syscall_path = g_strdup_printf ("/proc/%d/syscall", (int) pid);
  for (;;)
    {
      g_autofree char *state = NULL;

      if (g_file_get_contents (syscall_path, &state, NULL, NULL) &&
          (g_str_has_prefix (state, "232 ") || g_str_has_prefix (state, "7 ")))
        break;
      if (bench_now_ns () > deadline)
        {
          kill (pid, SIGKILL);
          waitpid (pid, NULL, 0);
          return -1;
        }
      g_usleep (100);
    }

  sleep_us (delay_us);
  bench_target_trigger (target);
  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;

  return bench_now_ns ();
}

/* When the main loop's poll() last returned: splits a GLib peer's latency
 * into the kernel's part (up to the wake-up) and user space's (after it). */
static gint64 last_poll_return_ns;

static int
timed_poll (GPollFD *fds,
            guint    n_fds,
            int      timeout)
{
  int ret = g_poll (fds, n_fds, timeout);

  last_poll_return_ns = bench_now_ns ();
  return ret;
}

static gint64
measure_epoll (BenchTarget *target,
               gint64       delay_us)
{
  struct epoll_event event = { .events = EPOLLIN };
  int pidfd = bench_pidfd_open (target->pid);
  int epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
  gint64 stamp = -1;
  int n;

  if (pidfd < 0 || epoll_fd < 0 ||
      epoll_ctl (epoll_fd, EPOLL_CTL_ADD, pidfd, &event) < 0)
    goto out;

  sleep_us (delay_us);
  bench_target_trigger (target);

  do
    n = epoll_wait (epoll_fd, &event, 1, 30000);
  while (n < 0 && errno == EINTR);

  if (n == 1)
    stamp = bench_now_ns ();

out:
  if (pidfd >= 0)
    close (pidfd);
  if (epoll_fd >= 0)
    close (epoll_fd);
  return stamp;
}

/* One peer on one fresh process: nanoseconds from the target's stamp just
 * before _exit() to the peer's report, or -1. */
static gint64
measure_latency (LatencyRun *run,
                 Peer        peer,
                 gboolean    child,
                 gint64     *after_poll_ns,
                 gint64     *reaped_ns)
{
  BenchTarget target;
  gint64 delay_us = g_random_int_range (0, MAX (opt_max_delay_us, 1));
  gint64 stamp = -1;
  gint64 exit_ns;
  int pidfd = -1;

  bench_target_spawn (&target, child);
  run->done = FALSE;
  run->stamp = -1;
  run->reaped_stamp = -1;

  switch (peer)
    {
    case PEER_EPOLL:
      stamp = measure_epoll (&target, delay_us);
      break;

    case PEER_MONITOR:
      {
        g_autoptr(ProcwatchProcess) process = NULL;

        run->counter.pid = target.pid;
        run->counter.n_exited = 0;
        run->counter.n_reaped = 0;
        process = procwatch_process_monitor_watch_pid (run->monitor, target.pid, NULL);
        if (process == NULL)
          break;

        /* With --delay-in-loop the monitor probes meanwhile, as it would
         * in an application: a probing backend's schedule moves on. */
        if (opt_delay_in_loop)
          run_loop_for (delay_us, NULL);
        else
          sleep_us (delay_us);
        bench_target_trigger (&target);
        while (run->counter.n_exited == 0)
          g_main_context_iteration (NULL, TRUE);
        stamp = run->counter.exited_ns;
        /* A non-child's parent reaps it at once: how soon "reaped" follows. */
        if (opt_reaped && !child)
          {
            while (run->counter.n_reaped == 0)
              g_main_context_iteration (NULL, TRUE);
            run->reaped_stamp = run->counter.reaped_ns;
          }
        procwatch_process_monitor_unwatch (run->monitor, target.pid);
      }
      break;

    case PEER_EPOLLSOURCE:
      {
        struct epoll_event event = { .events = EPOLLIN };
        int epoll_fd = epoll_create1 (EPOLL_CLOEXEC);

        pidfd = bench_pidfd_open (target.pid);
        if (pidfd < 0 || epoll_ctl (epoll_fd, EPOLL_CTL_ADD, pidfd, &event) < 0)
          {
            close (epoll_fd);
            break;
          }
        g_unix_fd_add (epoll_fd, G_IO_IN, on_fd_ready, run);
        sleep_us (delay_us);
        bench_target_trigger (&target);
        run_until_done (run);
        stamp = run->stamp;
        close (epoll_fd);
        close (pidfd);
      }
      break;

    case PEER_FDSOURCE:
      pidfd = bench_pidfd_open (target.pid);
      if (pidfd < 0)
        break;
      g_unix_fd_add (pidfd, G_IO_IN, on_fd_ready, run);
      sleep_us (delay_us);
      bench_target_trigger (&target);
      run_until_done (run);
      stamp = run->stamp;
      close (pidfd);
      break;

    case PEER_CHILDWATCH:
      g_child_watch_add (target.pid, on_child_exited, run);
      sleep_us (delay_us);
      bench_target_trigger (&target);
      run_until_done (run);
      stamp = run->stamp;
      target.reaped = TRUE;
      break;

    case PEER_POLL10:
      sleep_us (delay_us);
      bench_target_trigger (&target);
      stamp = poll_every_10ms (&target);
      break;

    case PEER_PSUTIL:
      stamp = measure_psutil (run, &target, delay_us);
      break;

    case PEER_PIDWAIT:
      stamp = measure_pidwait (run, &target, delay_us);
      break;

    case N_PEERS:
    default:
      g_assert_not_reached ();
    }

  if (stamp < 0)
    {
      /* The target still waits for its command: let it go. */
      bench_target_trigger (&target);
    }

  bench_target_finish (&target);
  exit_ns = target.exit_ns;

  if (stamp < 0 || exit_ns <= 0)
    return -1;

  *reaped_ns = run->reaped_stamp > 0 ? run->reaped_stamp - exit_ns : -1;
  *after_poll_ns = -1;
  if (peer == PEER_MONITOR || peer == PEER_EPOLLSOURCE || peer == PEER_FDSOURCE ||
      peer == PEER_CHILDWATCH)
    *after_poll_ns = stamp - last_poll_return_ns;

  return stamp - exit_ns;
}

static gboolean
peer_applies (Peer     peer,
              gboolean child)
{
  switch (peer)
    {
    case PEER_CHILDWATCH:
      return child;

    /* Processes of their own: to them the target is never a child. */
    case PEER_PSUTIL:
    case PEER_PIDWAIT:
      return !child;

    default:
      return TRUE;
    }
}

static int
cmd_latency (void)
{
  LatencyRun run = { 0 };
  gboolean enabled[N_PEERS];
  GArray *samples[2][N_PEERS];
  GArray *after_poll[2][N_PEERS];
  GArray *reaped = g_array_new (FALSE, FALSE, sizeof (gint64));
  int layout;
  int round;
  int peer;

  run.monitor = counting_monitor_new (&run.counter);
  run.pidfile = g_build_filename (g_get_tmp_dir (), "procwatch-bench-XXXXXX", NULL);
  close (g_mkstemp (run.pidfile));

  for (peer = 0; peer < N_PEERS; peer++)
    enabled[peer] = list_has (opt_peers, peer_names[peer]);

  if (!monitor_backend_ok (run.monitor))
    enabled[PEER_MONITOR] = FALSE;
  if (enabled[PEER_PSUTIL] && !psutil_start (&run))
    enabled[PEER_PSUTIL] = FALSE;
  if (enabled[PEER_PIDWAIT] && !g_file_test ("/usr/bin/pidwait", G_FILE_TEST_IS_EXECUTABLE))
    enabled[PEER_PIDWAIT] = FALSE;

  for (layout = 0; layout < 2; layout++)
    for (peer = 0; peer < N_PEERS; peer++)
      {
        samples[layout][peer] = g_array_new (FALSE, FALSE, sizeof (gint64));
        after_poll[layout][peer] = g_array_new (FALSE, FALSE, sizeof (gint64));
      }

  g_main_context_set_poll_func (NULL, timed_poll);

  for (round = 0; round < opt_rounds; round++)
    {
      for (layout = 0; layout < 2; layout++)
        {
          gboolean child = layout == 0;

          if (!list_has (opt_layouts, child ? "child" : "nonchild"))
            continue;

          /* A different peer goes first in every round. */
          for (peer = 0; peer < N_PEERS; peer++)
            {
              Peer p = (peer + round) % N_PEERS;
              gint64 value, after, reaped_after_exit;

              if (!enabled[p] || !peer_applies (p, child))
                continue;

              value = measure_latency (&run, p, child, &after, &reaped_after_exit);
              g_array_append_val (samples[layout][p], value);
              g_array_append_val (after_poll[layout][p], after);
              if (reaped_after_exit > 0)
                g_array_append_val (reaped, reaped_after_exit);
            }
        }
    }

  for (layout = 0; layout < 2; layout++)
    for (peer = 0; peer < N_PEERS; peer++)
      {
        g_autofree char *fields = NULL;

        if (samples[layout][peer]->len > 0)
          {
            fields = g_strdup_printf ("\"layout\": \"%s\", \"peer\": \"%s\", \"backend\": \"%s\"",
                                      layout == 0 ? "child" : "nonchild", peer_names[peer],
                                      procwatch_process_monitor_get_backend (run.monitor));
            print_samples ("latency", fields, (gint64 *) samples[layout][peer]->data,
                           samples[layout][peer]->len);
            print_samples ("latency-after-poll", fields, (gint64 *) after_poll[layout][peer]->data,
                           after_poll[layout][peer]->len);
          }
        g_array_unref (samples[layout][peer]);
        g_array_unref (after_poll[layout][peer]);
      }

  if (reaped->len > 0)
    {
      g_autofree char *fields = g_strdup_printf ("\"layout\": \"nonchild\", \"peer\": \"monitor\", "
                                                 "\"backend\": \"%s\"",
                                                 procwatch_process_monitor_get_backend (run.monitor));

      print_samples ("latency-reaped", fields, (gint64 *) reaped->data, reaped->len);
    }
  g_array_unref (reaped);

  psutil_stop (&run);
  unlink (run.pidfile);
  g_free (run.pidfile);
  g_object_unref (run.monitor);
  return 0;
}

/* The exit's full cost (issue 27, target 1): GLib 2.74 dispatches a
 * non-recursive source between block_source () and unblock_source (), and
 * the re-added poll record writes the context's wakeup eventfd, so every
 * such dispatch is followed by one more, empty, main-loop iteration. Left
 * alone, that iteration ran at the start of the next exit's loop, merged
 * into the iteration that dispatched it (only its eventfd read counted),
 * and after the last exit not at all. Now each exit is followed by
 * settle_context (): it iterates without blocking as long as anything is
 * pending on the context, inside the counted span, for every peer alike.
 * Whether something is pending is asked with collection off (a poll () of
 * the fds the context polled last, its wakeup eventfd among them: GLib
 * signals that for every change that needs an iteration), so that a context
 * with nothing pending, a recursive source's, pays for no probing
 * iteration. The iterations run in settle_iteration (), whose inclusive
 * cost callgrind's output gives on its own: the trailing part. */

static GPollFD *settle_fds;
static guint settle_n_fds;

static int
recording_poll (GPollFD *fds,
                guint    n_fds,
                int      timeout)
{
  settle_fds = fds;
  settle_n_fds = n_fds;
  return g_poll (fds, n_fds, timeout);
}

static gboolean
context_has_pending (void)
{
  struct pollfd fds[64];
  guint n = MIN (settle_n_fds, G_N_ELEMENTS (fds));
  guint i;

  for (i = 0; i < n; i++)
    fds[i] = (struct pollfd) { settle_fds[i].fd, settle_fds[i].events, 0 };

  if (n == 0 || poll (fds, n, 0) <= 0)
    return FALSE;

  /* Not a source's fd closed since (POLLNVAL): nothing waits on it. */
  for (i = 0; i < n; i++)
    if (fds[i].revents != 0 && !(fds[i].revents & POLLNVAL))
      return TRUE;

  return FALSE;
}

__attribute__ ((noinline)) static gboolean
settle_iteration (GMainContext *context)
{
  return g_main_context_iteration (context, FALSE);
}

/* Returns the number of iterations it ran; called with collection on. */
static guint
settle_context (GMainContext *context)
{
  guint n = 0;

  for (;;)
    {
      gboolean pending;

      CALLGRIND_TOGGLE_COLLECT;
      pending = context_has_pending ();
      CALLGRIND_TOGGLE_COLLECT;
      if (!pending || n >= 100)
        break;
      settle_iteration (context);
      n++;
    }

  return n;
}

/* Whether a callgrind function name is @function or a clone the compiler
 * made of it ("settle_iteration.isra.0"). */
static gboolean
callgrind_name_is (const char *name,
                   const char *function)
{
  gsize length = strlen (function);

  return strncmp (name, function, length) == 0 && (name[length] == '\0' || name[length] == '.');
}

/* The inclusive instructions of every call to @function in a callgrind
 * output (the cost line after each "calls=" line of a "cfn=" naming it),
 * or -1 if it was never called. */
static gint64
callgrind_inclusive (const char *output,
                     const char *function)
{
  g_auto(GStrv) lines = g_strsplit (output, "\n", -1);
  g_autofree char *id = NULL;
  gboolean in_call = FALSE;
  gboolean after_calls = FALSE;
  gint64 total = -1;
  guint i;

  for (i = 0; lines[i] != NULL; i++)
    {
      const char *line = lines[i];

      if (after_calls)
        {
          const char *cost = strchr (line, ' ');

          if (in_call && cost != NULL)
            total = MAX (total, 0) + g_ascii_strtoll (cost + 1, NULL, 10);
          after_calls = FALSE;
          in_call = FALSE;
          continue;
        }

      if (g_str_has_prefix (line, "fn=") || g_str_has_prefix (line, "cfn="))
        {
          const char *name = strchr (line, '=') + 1;
          const char *space = strchr (name, ' ');

          /* "(id) name" defines an id, "(id)" refers to one. */
          if (id == NULL && space != NULL && callgrind_name_is (space + 1, function))
            id = g_strndup (name, space - name);
          if (line[0] == 'c')
            in_call = (id != NULL && (g_str_equal (name, id) ||
                                      (g_str_has_prefix (name, id) && name[strlen (id)] == ' '))) ||
                      (space != NULL && callgrind_name_is (space + 1, function));
        }
      else if (g_str_has_prefix (line, "calls="))
        {
          after_calls = TRUE;
        }
    }

  return total;
}

/* The inner process's tally, sent to the outer after its last request. */
#define CTL_TALLY (-2)

typedef struct
{
  guint exit_iterations;    /* up to the callbacks, all exits */
  guint settle_iterations;  /* after them (settle_context) */
} InnerTally;

static void
inner_send_tally (const InnerTally *tally)
{
  int marker = CTL_TALLY;

  io_write_all (opt_ctl_fd, &marker, sizeof marker);
  io_write_all (opt_ctl_fd, tally, sizeof *tally);
}

/* The pidfd of a child of the inner process, opened by the outer one (no
 * pidfd_open under valgrind 3.19), goes back with SCM_RIGHTS. */
static void
send_fd (int socket_fd,
         int fd)
{
  char byte = 'f';
  struct iovec iov = { &byte, 1 };
  union { struct cmsghdr header; char space[CMSG_SPACE (sizeof (int))]; } control;
  struct msghdr message = { 0 };
  struct cmsghdr *header;

  memset (&control, 0, sizeof control);
  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = sizeof control.space;
  header = CMSG_FIRSTHDR (&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (header), &fd, sizeof (int));

  while (sendmsg (socket_fd, &message, 0) < 0)
    if (errno != EINTR)
      g_error ("procwatch-bench: sendmsg: %s", g_strerror (errno));
}

static int
receive_fd (int socket_fd)
{
  char byte;
  struct iovec iov = { &byte, 1 };
  union { struct cmsghdr header; char space[CMSG_SPACE (sizeof (int))]; } control;
  struct msghdr message = { 0 };
  struct cmsghdr *header;
  int fd = -1;

  message.msg_iov = &iov;
  message.msg_iovlen = 1;
  message.msg_control = control.space;
  message.msg_controllen = sizeof control.space;
  while (recvmsg (socket_fd, &message, MSG_CMSG_CLOEXEC) < 0)
    if (errno != EINTR)
      return -1;

  header = CMSG_FIRSTHDR (&message);
  if (header != NULL && header->cmsg_type == SCM_RIGHTS)
    memcpy (&fd, CMSG_DATA (header), sizeof (int));
  return fd;
}

/* 1b. Syscalls from the wake-up to "exited" (issue 27, target 3)
 *
 * Run under strace -f by bench/run: the harness marks the moments with
 * writes to fd -1 (EBADF, nothing else happens), "pw:poll" each time the
 * main loop's poll () returns, "pw:handler" and "pw:handler-end" around the
 * peer's handler (its own work, such as the bare GSource's epoll_wait or
 * the "exited" handler's waitpid, lies between those two), "pw:start" and
 * "pw:end" around one exit (from the trigger to everything settled, as in
 * callgrind's exit mode: pending iterations run, asked between "pw:probe"
 * and "pw:probe-end"). bench/run lists, per peer, the syscalls between the
 * last poll before the handler and the handler, and those after it. */

static gboolean syscall_marks;

static void
mark (const char *tag)
{
  gssize ignored;

  if (!syscall_marks)
    return;
  ignored = write (-1, tag, strlen (tag));
  (void) ignored;
}

static int
marking_poll (GPollFD *fds,
              guint    n_fds,
              int      timeout)
{
  int ret = recording_poll (fds, n_fds, timeout);

  mark ("pw:poll");
  return ret;
}

typedef struct
{
  int epoll_fd;
  GPid pid;
  gboolean reap;
  gboolean done;
} SyscallRound;

static gboolean
on_syscalls_epoll (int           fd,
                   GIOCondition  condition,
                   gpointer      user_data)
{
  SyscallRound *round = user_data;
  struct epoll_event event;

  mark ("pw:handler");
  /* What a bare GSource does to learn which process: its own work. */
  if (epoll_wait (round->epoll_fd, &event, 1, 0) == 1)
    epoll_ctl (round->epoll_fd, EPOLL_CTL_DEL, event.data.fd, NULL);
  mark ("pw:handler-end");
  round->done = TRUE;
  return G_SOURCE_CONTINUE;
}

static void
on_syscalls_exited (ProcwatchProcessMonitor *monitor,
                    ProcwatchProcess        *process,
                    SyscallRound            *round)
{
  if (procwatch_process_get_pid (process) != round->pid)
    return;

  mark ("pw:handler");
  if (round->reap)
    while (waitpid (round->pid, NULL, 0) < 0 && errno == EINTR)
      ;
  mark ("pw:handler-end");
  round->done = TRUE;
}

static void
on_syscalls_child (GPid     pid,
                   int      status,
                   gpointer user_data)
{
  SyscallRound *round = user_data;

  mark ("pw:handler");
  mark ("pw:handler-end");
  round->done = TRUE;
}

static void
syscalls_settle (void)
{
  for (;;)
    {
      gboolean pending;

      mark ("pw:probe");
      pending = context_has_pending ();
      mark ("pw:probe-end");
      if (!pending)
        break;
      g_main_context_iteration (NULL, FALSE);
    }
}

static void
syscalls_round (ProcwatchProcessMonitor *monitor,
                SyscallRound            *round,
                Peer                     peer,
                gboolean                 child)
{
  g_autofree char *start = g_strdup_printf ("pw:start:%s:%s", peer_names[peer],
                                            child ? "child" : "nonchild");
  g_autoptr(ProcwatchProcess) process = NULL;
  BenchTarget target;
  guint source_id = 0;
  int pidfd = -1;

  bench_target_spawn (&target, child);
  round->pid = target.pid;
  round->done = FALSE;
  round->reap = child;
  round->epoll_fd = -1;

  if (peer == PEER_EPOLLSOURCE)
    {
      struct epoll_event event = { .events = EPOLLIN };

      round->epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
      pidfd = bench_pidfd_open (target.pid);
      event.data.fd = pidfd;
      epoll_ctl (round->epoll_fd, EPOLL_CTL_ADD, pidfd, &event);
      source_id = g_unix_fd_add (round->epoll_fd, G_IO_IN, on_syscalls_epoll, round);
    }
  else if (peer == PEER_MONITOR)
    {
      process = procwatch_process_monitor_watch_pid (monitor, target.pid, NULL);
    }
  else
    {
      g_child_watch_add (target.pid, on_syscalls_child, round);
      target.reaped = TRUE;
    }

  while (g_main_context_iteration (NULL, FALSE))
    ;

  mark (start);
  bench_target_trigger (&target);
  while (!round->done)
    g_main_context_iteration (NULL, TRUE);
  /* The monitor's "reaped" of a non-child may come in a wake-up of its own. */
  if (peer == PEER_MONITOR && !child)
    while (procwatch_process_get_state (process) != PROCWATCH_PROCESS_STATE_REAPED)
      g_main_context_iteration (NULL, TRUE);
  syscalls_settle ();
  mark ("pw:end");

  if (source_id != 0)
    g_source_remove (source_id);
  if (round->epoll_fd >= 0)
    close (round->epoll_fd);
  if (pidfd >= 0)
    close (pidfd);
  if (peer == PEER_MONITOR)
    procwatch_process_monitor_unwatch (monitor, target.pid);
  if (child && peer == PEER_MONITOR)
    target.reaped = TRUE;
  bench_target_finish (&target);
}

static int
cmd_syscalls (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = procwatch_process_monitor_new ();
  const struct { Peer peer; gboolean child; } cases[] = {
    { PEER_EPOLLSOURCE, TRUE }, { PEER_EPOLLSOURCE, FALSE },
    { PEER_MONITOR, TRUE }, { PEER_MONITOR, FALSE },
    { PEER_CHILDWATCH, TRUE },
  };
  SyscallRound round = { 0 };
  g_autoptr(GString) tids = g_string_new (NULL);
  g_autoptr(GDir) tasks = NULL;
  const char *entry;
  int r;
  guint c;

  g_signal_connect (monitor, "exited", G_CALLBACK (on_syscalls_exited), &round);
  if (!monitor_backend_ok (monitor))
    return 0;
  g_main_context_set_poll_func (NULL, marking_poll);
  syscall_marks = TRUE;

  for (r = 0; r < opt_rounds; r++)
    for (c = 0; c < G_N_ELEMENTS (cases); c++)
      if (list_has (opt_peers, peer_names[cases[c].peer]))
        syscalls_round (monitor, &round, cases[c].peer, cases[c].child);

  syscall_marks = FALSE;
  /* Which strace -f pids are this process's threads (the others are
   * processes it started). */
  tasks = g_dir_open ("/proc/self/task", 0, NULL);
  while (tasks != NULL && (entry = g_dir_read_name (tasks)) != NULL)
    g_string_append_printf (tids, "%s%s", tids->len > 0 ? ", " : "", entry);
  print_line ("{\"bench\": \"syscalls-tids\", \"label\": \"%s\", \"pid\": %d, \"tids\": [%s]}",
              opt_label != NULL ? opt_label : "", (int) getpid (), tids->str);
  return 0;
}

/* 2. Main-loop iteration cost with N idle watched processes */

static gboolean
keep_idle (gpointer user_data)
{
  return G_SOURCE_CONTINUE;
}

static GMainContext *
context_with_idle (void)
{
  GMainContext *context = g_main_context_new ();
  g_autoptr(GSource) idle = g_idle_source_new ();

  g_source_set_callback (idle, keep_idle, NULL, NULL);
  g_source_attach (idle, context);
  return context;
}

static gboolean
on_idle_fd (int           fd,
            GIOCondition  condition,
            gpointer      user_data)
{
  return G_SOURCE_CONTINUE;
}

/* Puts @n watched processes on @context the way @peer does. */
static gpointer
watch_idle (const char   *peer,
            GMainContext *context,
            const GPid   *pids,
            guint         n)
{
  guint i;

  if (g_str_equal (peer, "monitor"))
    {
      ProcwatchProcessMonitor *monitor;

      g_main_context_push_thread_default (context);
      monitor = procwatch_process_monitor_new ();
      g_main_context_pop_thread_default (context);

      /* Also with no process the monitor has its source, as in use. */
      g_object_unref (procwatch_process_monitor_watch_pid (monitor, getpid (), NULL));
      procwatch_process_monitor_unwatch (monitor, getpid ());

      for (i = 0; i < n; i++)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process = procwatch_process_monitor_watch_pid (monitor, pids[i], &error);

          if (process == NULL)
            g_error ("procwatch-bench: %s", error->message);
          g_object_unref (process);
        }
      return monitor;
    }

  for (i = 0; i < n; i++)
    {
      int pidfd = bench_pidfd_open (pids[i]);
      g_autoptr(GSource) source = NULL;

      if (pidfd < 0)
        g_error ("procwatch-bench: pidfd_open: %s", g_strerror (errno));
      source = g_unix_fd_source_new (pidfd, G_IO_IN);
      g_source_set_callback (source, G_SOURCE_FUNC (on_idle_fd), NULL, NULL);
      g_source_attach (source, context);
    }
  return NULL;
}

/* Times single iterations; stops early after 200 ms (slow peers at scale). */
static void
time_iterations (GMainContext *context,
                 GArray       *samples)
{
  gint64 start = bench_now_ns ();
  int i;

  g_array_set_size (samples, 0);
  for (i = 0; i < opt_iters; i++)
    {
      gint64 t0 = bench_now_ns ();
      gint64 t1;

      g_main_context_iteration (context, FALSE);
      t1 = bench_now_ns ();
      g_array_append_val (samples, (gint64) { t1 - t0 });

      if (i >= 5 && t1 - start > 200 * G_GINT64_CONSTANT (1000000))
        break;
    }
}

G_GNUC_NORETURN static void
iter_worker (const char *peer,
             const GPid *pids,
             guint       n,
             int         command_fd,
             int         ack_fd)
{
  GMainContext *none = context_with_idle ();
  GMainContext *context = context_with_idle ();
  g_autoptr(GArray) samples = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *fields = g_strdup_printf ("\"n\": %u, \"peer\": \"%s\"", n, peer);
  g_autofree char *none_fields = g_strdup_printf ("\"n\": %u, \"peer\": \"none\", \"beside\": \"%s\"",
                                                  n, peer);
  gpointer owner = watch_idle (peer, context, pids, n);
  char command;
  int block = 0;

  io_write_all (ack_fd, "r", 1);

  while (io_read_all (command_fd, &command, 1) && command == 'b')
    {
      /* Alternating which one goes first. */
      int k;

      for (k = 0; k < 2; k++)
        {
          gboolean own = (k + block) % 2 == 0;

          time_iterations (own ? context : none, samples);
          print_samples ("iter", own ? fields : none_fields,
                         (gint64 *) samples->data, samples->len);
        }
      block++;
      io_write_all (ack_fd, "d", 1);
    }

  g_clear_object (&owner);
  _exit (0);
}

static GArray *
parse_sizes (const char *text,
             const char *fallback)
{
  g_auto(GStrv) items = g_strsplit (text != NULL ? text : fallback, ",", -1);
  GArray *sizes = g_array_new (FALSE, FALSE, sizeof (guint));
  guint i;

  for (i = 0; items[i] != NULL; i++)
    {
      guint size = (guint) g_ascii_strtoull (items[i], NULL, 10);

      g_array_append_val (sizes, size);
    }
  return sizes;
}

typedef struct
{
  pid_t pid;
  int command_fd;
  int ack_fd;
} Worker;

/* Forks a worker: returns TRUE in the worker, with its ends of the pipes. */
static gboolean
worker_fork (Worker *worker,
             int    *command_fd,
             int    *ack_fd)
{
  int command[2];
  int ack[2];

  g_assert (pipe2 (command, O_CLOEXEC) == 0);
  g_assert (pipe2 (ack, O_CLOEXEC) == 0);

  fflush (stdout);
  worker->pid = fork ();
  g_assert (worker->pid >= 0);
  if (worker->pid == 0)
    {
      close (command[1]);
      close (ack[0]);
      *command_fd = command[0];
      *ack_fd = ack[1];
      return TRUE;
    }

  close (command[0]);
  close (ack[1]);
  worker->command_fd = command[1];
  worker->ack_fd = ack[0];
  return FALSE;
}

static void
worker_start (Worker     *worker,
              const char *peer,
              const GPid *pids,
              guint       n)
{
  int command_fd, ack_fd;

  if (worker_fork (worker, &command_fd, &ack_fd))
    iter_worker (peer, pids, n, command_fd, ack_fd);
}

static gboolean
worker_ask (Worker *worker,
            char    expected)
{
  char reply = 0;

  if (expected == 'd')
    io_write_all (worker->command_fd, "b", 1);

  return io_read_all (worker->ack_fd, &reply, 1) && reply == expected;
}

/* Told in words: a later worker may hold a copy of this one's pipe. */
static void
worker_stop (Worker *worker)
{
  io_write_all (worker->command_fd, "q", 1);
  close (worker->command_fd);
  close (worker->ack_fd);
  waitpid (worker->pid, NULL, 0);
}

/* Each peer lives in a worker process of its own: 10,000 pidfds for each
 * would not fit under one RLIMIT_NOFILE of 20,000. The workers take turns,
 * block by block. */
static int
cmd_iter (void)
{
  g_autoptr(GArray) sizes = parse_sizes (opt_sizes, "0,1000,5000,10000");
  const char *peers[] = { "monitor", "fdsource" };
  BenchSleepers sleepers = { 0 };
  guint max_size = 0;
  guint s;

  bench_raise_fd_limit ();

  for (s = 0; s < sizes->len; s++)
    max_size = MAX (max_size, g_array_index (sizes, guint, s));

  if (!bench_sleepers_spawn (&sleepers, max_size))
    return 1;

  for (s = 0; s < sizes->len; s++)
    {
      guint n = g_array_index (sizes, guint, s);
      Worker workers[G_N_ELEMENTS (peers)];
      guint w;
      int block;

      for (w = 0; w < G_N_ELEMENTS (peers); w++)
        {
          worker_start (&workers[w], peers[w], (GPid *) sleepers.pids->data, n);
          if (!worker_ask (&workers[w], 'r'))
            g_error ("procwatch-bench: iteration worker %s failed", peers[w]);
        }

      for (block = 0; block < opt_blocks; block++)
        for (w = 0; w < G_N_ELEMENTS (peers); w++)
          worker_ask (&workers[(w + block) % G_N_ELEMENTS (peers)], 'd');

      for (w = 0; w < G_N_ELEMENTS (peers); w++)
        worker_stop (&workers[w]);
    }

  bench_sleepers_finish (&sleepers);
  return 0;
}

/* 3. Burst: N processes killed at once */

typedef struct
{
  int fd;
  gboolean exited;
  Counter *counter;
} FdWatch;

static void
fd_watch_exited (FdWatch *watch)
{
  if (!watch->exited)
    {
      watch->exited = TRUE;
      watch->counter->n_exited++;
      watch->counter->exited_ns = bench_now_ns ();
    }
}

/* With g_unix_fd_add, once readable a pidfd stays so: after the exit the
 * source is replaced by one that only hears the hang-up of the reap. */
static gboolean
on_burst_fd (int           fd,
             GIOCondition  condition,
             gpointer      user_data)
{
  FdWatch *watch = user_data;

  fd_watch_exited (watch);

  if (condition & (G_IO_HUP | G_IO_ERR))
    {
      watch->counter->n_reaped++;
      watch->counter->reaped_ns = bench_now_ns ();
      close (watch->fd);
      watch->fd = -1;
      return G_SOURCE_REMOVE;
    }

  g_unix_fd_add (fd, 0, on_burst_fd, watch);
  return G_SOURCE_REMOVE;
}

/* The floor: what a program does with one epoll fd and nothing else. */
static void
epoll_handle (int                 epoll_fd,
              FdWatch            *watches,
              struct epoll_event *event)
{
  FdWatch *watch = &watches[event->data.u32];

  if (event->events & EPOLLIN)
    fd_watch_exited (watch);

  if (event->events & (EPOLLHUP | EPOLLERR))
    {
      fd_watch_exited (watch);
      watch->counter->n_reaped++;
      watch->counter->reaped_ns = bench_now_ns ();
      epoll_ctl (epoll_fd, EPOLL_CTL_DEL, watch->fd, NULL);
      close (watch->fd);
      watch->fd = -1;
    }
  else
    {
      struct epoll_event only_hup = { .events = 0, .data.u32 = event->data.u32 };

      epoll_ctl (epoll_fd, EPOLL_CTL_MOD, watch->fd, &only_hup);
    }
}

static int
epoll_watch_all (FdWatch    *watches,
                 const GPid *pids,
                 guint       n,
                 Counter    *counter)
{
  int epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
  guint i;

  for (i = 0; i < n; i++)
    {
      struct epoll_event event = { .events = EPOLLIN, .data.u32 = i };

      watches[i].fd = bench_pidfd_open (pids[i]);
      watches[i].counter = counter;
      if (watches[i].fd < 0 || epoll_ctl (epoll_fd, EPOLL_CTL_ADD, watches[i].fd, &event) < 0)
        g_error ("procwatch-bench: cannot watch %d: %s", (int) pids[i], g_strerror (errno));
    }
  return epoll_fd;
}

typedef struct
{
  int epoll_fd;
  FdWatch *watches;
} EpollSource;

/* "One epoll source": the epoll fd on the main loop, as the library does,
 * but with nothing else. */
static gboolean
on_epoll_ready (int           fd,
                GIOCondition  condition,
                gpointer      user_data)
{
  EpollSource *source = user_data;
  struct epoll_event events[EPOLL_BATCH];
  int n = epoll_wait (source->epoll_fd, events, EPOLL_BATCH, 0);
  int i;

  for (i = 0; i < n; i++)
    epoll_handle (source->epoll_fd, source->watches, &events[i]);

  return G_SOURCE_CONTINUE;
}

static void
epoll_run_until (int      epoll_fd,
                 FdWatch *watches,
                 Counter *counter,
                 guint    n_reaped)
{
  struct epoll_event events[EPOLL_BATCH];

  while (counter->n_reaped < n_reaped)
    {
      int n = epoll_wait (epoll_fd, events, EPOLL_BATCH, -1);
      int i;

      for (i = 0; i < n; i++)
        epoll_handle (epoll_fd, watches, &events[i]);
    }
}

static void
measure_burst (const char *peer,
               guint       n,
               int         round)
{
  BenchSleepers sleepers = { 0 };
  Counter counter = { 0 };
  g_autofree FdWatch *watches = g_new0 (FdWatch, n);
  ProcwatchProcessMonitor *monitor = NULL;
  EpollSource epoll_source = { -1, NULL };
  guint epoll_source_id = 0;
  int epoll_fd = -1;
  gint64 start, cpu_start, cpu;
  guint i;

  if (!bench_sleepers_spawn (&sleepers, n))
    return;

  if (g_str_equal (peer, "monitor"))
    {
      monitor = counting_monitor_new (&counter);
      for (i = 0; i < n; i++)
        g_object_unref (procwatch_process_monitor_watch_pid (monitor,
                                                             g_array_index (sleepers.pids, GPid, i),
                                                             NULL));
    }
  else if (g_str_equal (peer, "epoll"))
    {
      epoll_fd = epoll_watch_all (watches, (GPid *) sleepers.pids->data, n, &counter);
    }
  else if (g_str_equal (peer, "epollsource"))
    {
      epoll_source.epoll_fd = epoll_watch_all (watches, (GPid *) sleepers.pids->data, n, &counter);
      epoll_source.watches = watches;
      epoll_source_id = g_unix_fd_add (epoll_source.epoll_fd, G_IO_IN, on_epoll_ready, &epoll_source);
    }
  else
    {
      for (i = 0; i < n; i++)
        {
          watches[i].fd = bench_pidfd_open (g_array_index (sleepers.pids, GPid, i));
          watches[i].counter = &counter;
          g_unix_fd_add (watches[i].fd, G_IO_IN, on_burst_fd, &watches[i]);
        }
    }

  /* Whatever setup left pending first. */
  while (g_main_context_iteration (NULL, FALSE))
    ;

  cpu_start = cpu_ns ();
  start = bench_now_ns ();
  bench_sleepers_kill (&sleepers);

  if (epoll_fd >= 0)
    epoll_run_until (epoll_fd, watches, &counter, n);
  else
    while (counter.n_reaped < n)
      g_main_context_iteration (NULL, TRUE);

  cpu = cpu_ns () - cpu_start;

  print_line ("{\"bench\": \"burst\", \"label\": \"%s\", \"n\": %u, \"peer\": \"%s\", "
              "\"round\": %d, \"exited_ns\": %" G_GINT64_FORMAT ", \"reaped_ns\": %"
              G_GINT64_FORMAT ", \"cpu_ns\": %" G_GINT64_FORMAT "}",
              opt_label != NULL ? opt_label : "", n, peer, round,
              counter.exited_ns - start, counter.reaped_ns - start, cpu);

  g_clear_object (&monitor);
  if (epoll_fd >= 0)
    close (epoll_fd);
  if (epoll_source_id != 0)
    {
      g_source_remove (epoll_source_id);
      close (epoll_source.epoll_fd);
    }
  bench_sleepers_finish (&sleepers);
}

static int
cmd_burst (void)
{
  g_autoptr(GArray) sizes = parse_sizes (opt_sizes, "1000,5000,10000");
  const char *peers[] = { "epoll", "epollsource", "monitor", "fdsource" };
  g_autoptr(ProcwatchProcessMonitor) probe = procwatch_process_monitor_new ();
  guint s;
  int round;

  bench_raise_fd_limit ();
  if (!monitor_backend_ok (probe))
    return 0;

  for (s = 0; s < sizes->len; s++)
    for (round = 0; round < opt_rounds; round++)
      {
        guint p;

        for (p = 0; p < G_N_ELEMENTS (peers); p++)
          {
            const char *peer = peers[(p + round) % G_N_ELEMENTS (peers)];

            if (list_has (opt_peers, peer))
              measure_burst (peer, g_array_index (sizes, guint, s), round);
          }
      }

  return 0;
}

/* 4. Cost per watch: time of watch + unwatch, memory */

static void
time_watch_cycle (const char *peer,
                  const GPid *pids,
                  guint       n,
                  GArray     *watch_ns,
                  GArray     *unwatch_ns)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autofree int *fds = g_new (int, n);
  g_autofree guint *ids = g_new (guint, n);
  int epoll_fd = -1;
  guint i;

  g_array_set_size (watch_ns, n);
  g_array_set_size (unwatch_ns, n);

  if (g_str_equal (peer, "monitor"))
    monitor = procwatch_process_monitor_new ();
  else if (g_str_equal (peer, "epoll"))
    epoll_fd = epoll_create1 (EPOLL_CLOEXEC);

  for (i = 0; i < n; i++)
    {
      gint64 t0 = bench_now_ns ();

      if (monitor != NULL)
        {
          g_object_unref (procwatch_process_monitor_watch_pid (monitor, pids[i], NULL));
        }
      else if (epoll_fd >= 0)
        {
          struct epoll_event event = { .events = EPOLLIN, .data.u32 = i };

          fds[i] = bench_pidfd_open (pids[i]);
          epoll_ctl (epoll_fd, EPOLL_CTL_ADD, fds[i], &event);
        }
      else
        {
          fds[i] = bench_pidfd_open (pids[i]);
          ids[i] = g_unix_fd_add (fds[i], G_IO_IN, on_idle_fd, NULL);
        }

      g_array_index (watch_ns, gint64, i) = bench_now_ns () - t0;
    }

  for (i = 0; i < n; i++)
    {
      gint64 t0 = bench_now_ns ();

      if (monitor != NULL)
        {
          procwatch_process_monitor_unwatch (monitor, pids[i]);
        }
      else if (epoll_fd >= 0)
        {
          epoll_ctl (epoll_fd, EPOLL_CTL_DEL, fds[i], NULL);
          close (fds[i]);
        }
      else
        {
          g_source_remove (ids[i]);
          close (fds[i]);
        }

      g_array_index (unwatch_ns, gint64, i) = bench_now_ns () - t0;
    }

  if (epoll_fd >= 0)
    close (epoll_fd);
}

static int
cmd_watchcost (void)
{
  const char *peers[] = { "monitor", "epoll", "fdsource" };
  BenchSleepers sleepers = { 0 };
  g_autoptr(GArray) watch_ns = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) unwatch_ns = g_array_new (FALSE, FALSE, sizeof (gint64));
  GArray *all_watch[G_N_ELEMENTS (peers)];
  GArray *all_unwatch[G_N_ELEMENTS (peers)];
  guint p;
  int round;

  bench_raise_fd_limit ();
  if (!bench_sleepers_spawn (&sleepers, opt_n))
    return 1;

  for (p = 0; p < G_N_ELEMENTS (peers); p++)
    {
      all_watch[p] = g_array_new (FALSE, FALSE, sizeof (gint64));
      all_unwatch[p] = g_array_new (FALSE, FALSE, sizeof (gint64));
    }

  for (round = 0; round < opt_rounds; round++)
    for (p = 0; p < G_N_ELEMENTS (peers); p++)
      {
        guint q = (p + round) % G_N_ELEMENTS (peers);

        time_watch_cycle (peers[q], (GPid *) sleepers.pids->data, opt_n, watch_ns, unwatch_ns);
        /* The first round warms the allocators and the kernel's caches. */
        if (round > 0 || opt_rounds == 1)
          {
            g_array_append_vals (all_watch[q], watch_ns->data, watch_ns->len);
            g_array_append_vals (all_unwatch[q], unwatch_ns->data, unwatch_ns->len);
          }
      }

  for (p = 0; p < G_N_ELEMENTS (peers); p++)
    {
      g_autofree char *watch_fields = g_strdup_printf ("\"op\": \"watch\", \"peer\": \"%s\"", peers[p]);
      g_autofree char *unwatch_fields = g_strdup_printf ("\"op\": \"unwatch\", \"peer\": \"%s\"", peers[p]);

      print_samples ("watchcost", watch_fields, (gint64 *) all_watch[p]->data, all_watch[p]->len);
      print_samples ("watchcost", unwatch_fields, (gint64 *) all_unwatch[p]->data, all_unwatch[p]->len);
      g_array_unref (all_watch[p]);
      g_array_unref (all_unwatch[p]);
    }

  bench_sleepers_finish (&sleepers);
  return 0;
}

/* 4b. Watch cost at N watched, with name and cgroup (issue 27, target 4)
 *
 * N (--n, 10,000) processes are watched by the monitor and, beside it, by
 * raw pidfd_open + epoll_ctl (the floor); then, round by round, --iters more
 * processes are watched and unwatched again, each call timed: per process,
 * the monitor's watch_pid, the floor's pidfd_open + EPOLL_CTL_ADD, and the
 * name read on its own (open, read, close of /proc/PID/comm, as a watch
 * reads the name), the three in turns (a different one first for each
 * process), so that sample i of every series is the same process at nearly
 * the same moment: bench/run pairs them. With --sleepers the processes are
 * procwatch-bench-sleepers' (comm "procwatch-bench", 15 bytes), born in
 * PROCWATCH_BENCH_CGROUP (bench/run makes it as long as an app scope's).
 * The first round warms the caches and is not recorded. The floor watches
 * all N if RLIMIT_NOFILE can be raised above 2 (N + iters), else as many as
 * fit ("watched" in its record). */

enum { WATCHAT_MONITOR, WATCHAT_EPOLL, WATCHAT_NAME, N_WATCHAT };

static const char *watchat_names[N_WATCHAT] = { "monitor", "epoll", "name" };

static gint64
watchat_one (int                      kind,
             ProcwatchProcessMonitor *monitor,
             int                      epoll_fd,
             GPid                     pid,
             int                     *pidfd)
{
  gint64 t0 = bench_now_ns ();

  if (kind == WATCHAT_MONITOR)
    {
      ProcwatchProcess *process = procwatch_process_monitor_watch_pid (monitor, pid, NULL);

      if (process == NULL)
        g_error ("procwatch-bench: cannot watch %d", (int) pid);
      g_object_unref (process);
    }
  else if (kind == WATCHAT_EPOLL)
    {
      struct epoll_event event = { .events = EPOLLIN, .data.u32 = (guint32) pid };

      *pidfd = bench_pidfd_open (pid);
      if (*pidfd < 0 || epoll_ctl (epoll_fd, EPOLL_CTL_ADD, *pidfd, &event) < 0)
        g_error ("procwatch-bench: cannot watch %d: %s", (int) pid, g_strerror (errno));
    }
  else
    {
      char path[64];
      char name[64];
      int fd;

      g_snprintf (path, sizeof path, "/proc/%d/comm", (int) pid);
      fd = open (path, O_RDONLY | O_CLOEXEC);
      if (fd < 0 || read (fd, name, sizeof name) <= 0)
        g_error ("procwatch-bench: cannot read %s", path);
      close (fd);
    }

  return bench_now_ns () - t0;
}

static int
cmd_watchat (void)
{
  guint n = (guint) opt_n;
  guint extra = (guint) opt_iters;
  guint floor_n = n;
  BenchSleepers sleepers = { 0 };
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autofree int *fds = g_new (int, n + extra);
  GArray *watch_ns[N_WATCHAT];
  GArray *unwatch_ns[2];
  g_autoptr(ProcwatchProcess) sample = NULL;
  const GPid *pids;
  int epoll_fd;
  int round;
  guint i;
  int k;

  /* The floor watches as many of the N as the fd limit leaves room for,
   * all N where RLIMIT_NOFILE can be raised (CAP_SYS_RESOURCE): its costs
   * (the fd table's lowest free slot, the epoll tree's depth) hardly change
   * between 9,000 and 10,000. */
  if (!raise_fd_limit_to (2 * (rlim_t) (n + extra) + 256))
    {
      struct rlimit limit;

      bench_raise_fd_limit ();
      getrlimit (RLIMIT_NOFILE, &limit);
      if (limit.rlim_cur < (rlim_t) (n + 2 * extra) + 512)
        {
          g_printerr ("procwatch-bench: RLIMIT_NOFILE %lu is too low for %u watched\n",
                      (unsigned long) limit.rlim_cur, n);
          return 1;
        }
      floor_n = MIN (n, (guint) (limit.rlim_cur - (n + 2 * extra) - 256));
    }
  if (!(opt_sleepers != NULL ? bench_sleepers_spawn_program (&sleepers, n + extra, opt_sleepers)
                             : bench_sleepers_spawn (&sleepers, n + extra)))
    return 1;
  pids = (const GPid *) sleepers.pids->data;

  monitor = procwatch_process_monitor_new ();
  if (!monitor_backend_ok (monitor))
    {
      bench_sleepers_finish (&sleepers);
      return 0;
    }
  epoll_fd = epoll_create1 (EPOLL_CLOEXEC);

  for (k = 0; k < N_WATCHAT; k++)
    watch_ns[k] = g_array_new (FALSE, FALSE, sizeof (gint64));
  for (k = 0; k < 2; k++)
    unwatch_ns[k] = g_array_new (FALSE, FALSE, sizeof (gint64));

  for (i = 0; i < n; i++)
    {
      watchat_one (WATCHAT_MONITOR, monitor, epoll_fd, pids[i], &fds[i]);
      fds[i] = -1;
      if (i < floor_n)
        watchat_one (WATCHAT_EPOLL, monitor, epoll_fd, pids[i], &fds[i]);
    }
  sample = procwatch_process_monitor_watch_pid (monitor, pids[0], NULL);

  for (round = 0; round < opt_rounds + 1; round++)
    {
      for (i = n; i < n + extra; i++)
        for (k = 0; k < N_WATCHAT; k++)
          {
            int kind = (k + i + round) % N_WATCHAT;
            gint64 ns = watchat_one (kind, monitor, epoll_fd, pids[i], &fds[i]);

            if (round > 0)
              g_array_append_val (watch_ns[kind], ns);
          }

      for (i = n; i < n + extra; i++)
        {
          gint64 t0 = bench_now_ns ();
          gint64 t1, t2;

          procwatch_process_monitor_unwatch (monitor, pids[i]);
          t1 = bench_now_ns ();
          epoll_ctl (epoll_fd, EPOLL_CTL_DEL, fds[i], NULL);
          close (fds[i]);
          t2 = bench_now_ns ();
          if (round > 0)
            {
              g_array_append_val (unwatch_ns[0], (gint64) { t1 - t0 });
              g_array_append_val (unwatch_ns[1], (gint64) { t2 - t1 });
            }
        }
    }

  for (k = 0; k < N_WATCHAT; k++)
    {
      g_autofree char *fields = NULL;

      fields = g_strdup_printf ("\"op\": \"watch\", \"peer\": \"%s\", \"n\": %u, "
                                "\"watched\": %u, \"name_length\": %d, \"cgroup_length\": %d",
                                watchat_names[k], n, k == WATCHAT_EPOLL ? floor_n : n,
                                procwatch_process_get_name (sample) != NULL ?
                                  (int) strlen (procwatch_process_get_name (sample)) : -1,
                                procwatch_process_get_cgroup (sample) != NULL ?
                                  (int) strlen (procwatch_process_get_cgroup (sample)) : -1);
      print_samples ("watchat", fields, (gint64 *) watch_ns[k]->data, watch_ns[k]->len);
      g_array_unref (watch_ns[k]);
    }
  for (k = 0; k < 2; k++)
    {
      g_autofree char *fields = g_strdup_printf ("\"op\": \"unwatch\", \"peer\": \"%s\", "
                                                 "\"n\": %u", watchat_names[k], n);

      print_samples ("watchat", fields, (gint64 *) unwatch_ns[k]->data, unwatch_ns[k]->len);
      g_array_unref (unwatch_ns[k]);
    }

  g_clear_object (&sample);
  g_clear_object (&monitor);
  for (i = 0; i < floor_n; i++)
    close (fds[i]);
  close (epoll_fd);
  bench_sleepers_finish (&sleepers);
  return 0;
}

/* A "Name:   N kB" line of @text, a /proc file's, in bytes; -1 if there
 * is none. */
static gint64
kib_field_of (const char *text,
              const char *name)
{
  g_autofree char *key = g_strdup_printf ("\n%s:", name);
  const char *line = strstr (text, key);

  if (line == NULL)
    return -1;

  return g_ascii_strtoll (line + strlen (key), NULL, 10) * 1024;
}

/* The same of the file at @path. */
static gint64
proc_kib_field (const char *path,
                const char *name)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents (path, &text, NULL, NULL))
    return -1;

  return kib_field_of (text, name);
}

/* Resident anonymous memory of this process, in bytes: what user space
 * allocated; the kernel's pidfds, epoll items and struct pids are not in it. */
static gint64
anonymous_bytes (void)
{
  return proc_kib_field ("/proc/self/smaps_rollup", "Anonymous");
}

static gint64
heap_bytes (void)
{
  struct mallinfo2 info = mallinfo2 ();

  return (gint64) (info.uordblks + info.hblkhd);
}

/* In a process of its own, so that no earlier peer's freed memory is reused. */
static int
cmd_memory (void)
{
  const char *peer = opt_peers != NULL ? opt_peers : "monitor";
  BenchSleepers sleepers = { 0 };
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GArray) fds = g_array_new (FALSE, FALSE, sizeof (int));
  GMainContext *context = g_main_context_default ();
  g_autoptr(ProcwatchProcess) last = NULL;
  gint64 anon_before, heap_before;
  int epoll_fd = -1;
  guint i;

  bench_raise_fd_limit ();
  /* With --sleepers, the processes of the scale row: named procwatch-bench
   * (15 bytes) and born in PROCWATCH_BENCH_CGROUP, as an app's are. */
  if (!(opt_sleepers != NULL ? bench_sleepers_spawn_program (&sleepers, opt_n, opt_sleepers)
                             : bench_sleepers_spawn (&sleepers, opt_n)))
    return 1;

  /* Everything that exists once, whatever the number of processes. */
  if (g_str_equal (peer, "monitor"))
    {
      monitor = procwatch_process_monitor_new ();
      g_object_unref (procwatch_process_monitor_watch_pid (monitor, getpid (), NULL));
      procwatch_process_monitor_unwatch (monitor, getpid ());
    }
  else if (g_str_equal (peer, "epoll"))
    {
      epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
    }
  else
    {
      g_source_remove (g_unix_fd_add (0, G_IO_IN, on_idle_fd, NULL));
    }
  g_main_context_iteration (context, FALSE);

  anon_before = anonymous_bytes ();
  heap_before = heap_bytes ();

  for (i = 0; i < (guint) opt_n; i++)
    {
      GPid pid = g_array_index (sleepers.pids, GPid, i);

      if (monitor != NULL)
        {
          ProcwatchProcess *process = procwatch_process_monitor_watch_pid (monitor, pid, NULL);

          /* One kept, to say what each process carries. */
          if (i + 1 == (guint) opt_n)
            last = process;
          else
            g_object_unref (process);
        }
      else
        {
          int fd = bench_pidfd_open (pid);

          g_array_append_val (fds, fd);
          if (epoll_fd >= 0)
            {
              struct epoll_event event = { .events = EPOLLIN, .data.u32 = i };

              epoll_ctl (epoll_fd, EPOLL_CTL_ADD, fd, &event);
            }
          else
            {
              g_unix_fd_add (fd, G_IO_IN, on_idle_fd, NULL);
            }
        }
    }
  g_main_context_iteration (context, FALSE);

  print_line ("{\"bench\": \"memory\", \"label\": \"%s\", \"peer\": \"%s\", \"n\": %d, "
              "\"anon_bytes\": %" G_GINT64_FORMAT ", \"heap_bytes\": %" G_GINT64_FORMAT ", "
              "\"name_length\": %d, \"cgroup_length\": %d}",
              opt_label != NULL ? opt_label : "", peer, opt_n,
              anonymous_bytes () - anon_before, heap_bytes () - heap_before,
              last != NULL && procwatch_process_get_name (last) != NULL ?
                (int) strlen (procwatch_process_get_name (last)) : -1,
              last != NULL && procwatch_process_get_cgroup (last) != NULL ?
                (int) strlen (procwatch_process_get_cgroup (last)) : -1);

  bench_sleepers_finish (&sleepers);
  return 0;
}

/* 7. Scale: N (100,000) watched processes in one monitor (bench/run --scale)
 *
 * Each round watches one crowd with the monitor and another with raw epoll,
 * in turns (a different one first each round): the time to watch them all,
 * for the monitor the idle iteration cost against a monitor with 1 watched
 * (in a context of its own, block by block), and one kill (-group, SIGKILL)
 * of the crowd, counted to the last "reaped". The crowds come from
 * procwatch-bench-sleepers (--sleepers); their memory is MemAvailable
 * before and after they are started. Needs RLIMIT_NOFILE above N (raised
 * here, as root) and a kernel.pid_max that leaves room for N more pids
 * (bench/run raises it and puts it back). Peer "none" watches nothing: the
 * crowd's memory, what a watch's reads of /proc cost on their own (the
 * name of every process, then its cgroup: time and kernel memory), and the
 * kill with its parent alone reaping (to the exit of the parent, which
 * waits for its last child). The kernel's memory (/proc/meminfo: slab,
 * its reclaimable and unreclaimable parts, free memory) is read before
 * and after the watches and, with --drop-caches (a guest of the
 * benchmark's own), once more after the kernel has dropped what it can:
 * the dentries and inodes that reads of /proc leave behind are kept while
 * their process lives, but only as a cache. */

typedef struct
{
  guint8 *seen;        /* by pid: SEEN_EXITED | SEEN_REAPED */
  guint n_exited;
  guint n_reaped;
  guint duplicates;    /* a second "exited" or "reaped", or "reaped" first */
  gint64 exited_ns;
  gint64 reaped_ns;
} ScaleCount;

enum { SEEN_EXITED = 1, SEEN_REAPED = 2 };

static void
scale_seen (ScaleCount       *count,
            ProcwatchProcess *process,
            guint8            what)
{
  GPid pid = procwatch_process_get_pid (process);
  guint8 *seen = &count->seen[pid];

  if ((*seen & what) || (what == SEEN_REAPED && !(*seen & SEEN_EXITED)))
    count->duplicates++;
  *seen |= what;

  if (what == SEEN_EXITED)
    {
      count->n_exited++;
      count->exited_ns = bench_now_ns ();
    }
  else
    {
      count->n_reaped++;
      count->reaped_ns = bench_now_ns ();
    }
}

static void
on_scale_exited (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 ScaleCount              *count)
{
  scale_seen (count, process, SEEN_EXITED);
}

static void
on_scale_reaped (ProcwatchProcessMonitor *monitor,
                 ProcwatchProcess        *process,
                 ScaleCount              *count)
{
  scale_seen (count, process, SEEN_REAPED);
}

/* The kernel's memory as /proc/meminfo tells it at one moment: its slab
 * (dentries, inodes, files, epoll items, pids), the part of it the kernel
 * frees under memory pressure, the rest, and the free memory. */
typedef struct
{
  gint64 slab;
  gint64 reclaimable;
  gint64 unreclaimable;
  gint64 free;
} KernelMemory;

static void
kernel_memory (KernelMemory *memory)
{
  g_autofree char *text = NULL;

  if (!g_file_get_contents ("/proc/meminfo", &text, NULL, NULL))
    g_error ("procwatch-bench: cannot read /proc/meminfo");

  memory->slab = kib_field_of (text, "Slab");
  memory->reclaimable = kib_field_of (text, "SReclaimable");
  memory->unreclaimable = kib_field_of (text, "SUnreclaim");
  memory->free = kib_field_of (text, "MemFree");
}

static char *
kernel_memory_json (const KernelMemory *memory)
{
  return g_strdup_printf ("{\"slab\": %" G_GINT64_FORMAT ", \"reclaimable\": %" G_GINT64_FORMAT
                          ", \"unreclaimable\": %" G_GINT64_FORMAT ", \"free\": %"
                          G_GINT64_FORMAT "}", memory->slab, memory->reclaimable,
                          memory->unreclaimable, memory->free);
}

/* With --drop-caches: the kernel frees what it can of its caches (dentries
 * and inodes, /proc's among them, and the page cache), so that a reading
 * after it is what is held, not what was left behind. Machine-wide: only
 * in a machine of the benchmark's own. */
static void
drop_kernel_caches (void)
{
  int fd;

  if (!opt_drop_caches)
    return;

  /* Write-only, also for root: no g_file_set_contents (). */
  fd = open ("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, "2\n", 2) != 2)
    g_error ("procwatch-bench: cannot drop the kernel's caches: %s", g_strerror (errno));
  close (fd);
}

/* What a watch reads of each process besides its pidfd, on its own: the
 * name (/proc/PID/comm) of every one of @n, then its cgroup, each pass
 * timed and the kernel's memory read around it, as the library reads them
 * (openat of "PID/FILE" below one /proc fd, read, close). The JSON of the
 * two, for the crowd's record. */
static char *
scale_reads (const GPid *pids,
             guint       n)
{
  const char *files[] = { "comm", "cgroup" };
  g_autoptr(GString) json = g_string_new ("{");
  int proc_fd = open ("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  guint f, i;

  if (proc_fd < 0)
    g_error ("procwatch-bench: cannot open /proc: %s", g_strerror (errno));

  for (f = 0; f < G_N_ELEMENTS (files); f++)
    {
      g_autofree char *before_json = NULL;
      g_autofree char *after_json = NULL;
      KernelMemory before, after;
      gint64 start, ns;

      drop_kernel_caches ();
      kernel_memory (&before);
      start = bench_now_ns ();
      for (i = 0; i < n; i++)
        {
          char path[64];
          char text[4096];
          int fd;

          g_snprintf (path, sizeof path, "%d/%s", (int) pids[i], files[f]);
          fd = openat (proc_fd, path, O_RDONLY | O_NOCTTY | O_CLOEXEC);
          if (fd < 0 || read (fd, text, sizeof text) <= 0)
            g_error ("procwatch-bench: cannot read /proc/%s: %s", path, g_strerror (errno));
          close (fd);
        }
      ns = bench_now_ns () - start;
      kernel_memory (&after);

      before_json = kernel_memory_json (&before);
      after_json = kernel_memory_json (&after);
      g_string_append_printf (json, "%s\"%s\": {\"ns\": %" G_GINT64_FORMAT ", \"before\": %s, "
                              "\"after\": %s}", f > 0 ? ", " : "", files[f], ns, before_json,
                              after_json);
    }

  close (proc_fd);
  g_string_append (json, "}");
  return g_string_free (g_steal_pointer (&json), FALSE);
}

static gint64
mem_available_bytes (void)
{
  return proc_kib_field ("/proc/meminfo", "MemAvailable");
}

static gboolean
raise_fd_limit_to (rlim_t needed)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) != 0)
    return FALSE;
  if (limit.rlim_max < needed)
    limit.rlim_max = needed;
  limit.rlim_cur = limit.rlim_max;

  return setrlimit (RLIMIT_NOFILE, &limit) == 0;
}

/* Idle iterations of @big (N watched) and @small (1 watched), one by one,
 * in alternating blocks; each context has an always-ready idle source. */
static void
scale_iterations (GMainContext *big,
                  GMainContext *small,
                  int           round)
{
  GMainContext *contexts[] = { big, small };
  GArray *samples[G_N_ELEMENTS (contexts)];
  GSource *idles[G_N_ELEMENTS (contexts)];
  guint c;
  int block, k;

  for (c = 0; c < G_N_ELEMENTS (contexts); c++)
    {
      samples[c] = g_array_new (FALSE, FALSE, sizeof (gint64));
      idles[c] = g_idle_source_new ();
      g_source_set_callback (idles[c], keep_idle, NULL, NULL);
      g_source_attach (idles[c], contexts[c]);
    }

  for (block = 0; block < opt_blocks; block++)
    for (c = 0; c < G_N_ELEMENTS (contexts); c++)
      {
        GMainContext *context = contexts[(c + block) % G_N_ELEMENTS (contexts)];
        GArray *into = samples[(c + block) % G_N_ELEMENTS (contexts)];

        for (k = 0; k < opt_iters; k++)
          {
            gint64 t0 = bench_now_ns ();
            gint64 dt;

            g_main_context_iteration (context, FALSE);
            dt = bench_now_ns () - t0;
            /* The first block warms the caches. */
            if (block > 0)
              g_array_append_val (into, dt);
          }
      }

  for (c = 0; c < G_N_ELEMENTS (contexts); c++)
    {
      g_autofree char *fields = g_strdup_printf ("\"round\": %d, \"watched\": %u", round,
                                                 c == 0 ? (guint) opt_n : 1);

      print_samples ("scale-iter", fields, (gint64 *) samples[c]->data, samples[c]->len);
      g_array_unref (samples[c]);
      g_source_destroy (idles[c]);
      g_source_unref (idles[c]);
    }
}

static gboolean
measure_scale (const char *peer,
               guint       n,
               int         round,
               guint8     *seen)
{
  BenchSleepers sleepers = { 0 };
  ScaleCount count = { seen, 0, 0, 0, 0, 0 };
  Counter counter = { 0 };
  g_autofree FdWatch *watches = NULL;
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(ProcwatchProcessMonitor) small_monitor = NULL;
  g_autoptr(GMainContext) small_context = NULL;
  gint64 mem_before, mem_after, spawn_start, spawn_ns, watch_start, watch_ns;
  gint64 heap_before, heap_grown = 0, start, cpu_start, cpu, deadline;
  KernelMemory kernel_before, kernel_after, kernel_held;
  g_autofree char *kernel_before_json = NULL;
  g_autofree char *kernel_after_json = NULL;
  g_autofree char *kernel_held_json = NULL;
  g_autofree char *reads_json = NULL;
  int epoll_fd = -1;
  guint i;

  mem_before = mem_available_bytes ();
  spawn_start = bench_now_ns ();
  if (!bench_sleepers_spawn_program (&sleepers, n, opt_sleepers))
    return FALSE;
  spawn_ns = bench_now_ns () - spawn_start;
  mem_after = mem_available_bytes ();

  drop_kernel_caches ();
  kernel_memory (&kernel_before);
  heap_before = heap_bytes ();
  watch_start = bench_now_ns ();
  if (g_str_equal (peer, "monitor"))
    {
      monitor = procwatch_process_monitor_new ();
      g_signal_connect (monitor, "exited", G_CALLBACK (on_scale_exited), &count);
      g_signal_connect (monitor, "reaped", G_CALLBACK (on_scale_reaped), &count);
      for (i = 0; i < n; i++)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process;

          process = procwatch_process_monitor_watch_pid (monitor,
                                                         g_array_index (sleepers.pids, GPid, i),
                                                         &error);
          if (process == NULL)
            g_error ("procwatch-bench: cannot watch process %u of %u: %s", i, n, error->message);
          g_object_unref (process);
        }
    }
  else if (g_str_equal (peer, "epoll"))
    {
      watches = g_new0 (FdWatch, n);
      epoll_fd = epoll_watch_all (watches, (GPid *) sleepers.pids->data, n, &counter);
    }
  watch_ns = bench_now_ns () - watch_start;
  kernel_memory (&kernel_after);
  /* What the watches hold of the kernel's memory, once what they left
   * behind is freed (with --drop-caches; else the same reading again). */
  drop_kernel_caches ();
  kernel_memory (&kernel_held);
  kernel_before_json = kernel_memory_json (&kernel_before);
  kernel_after_json = kernel_memory_json (&kernel_after);
  kernel_held_json = kernel_memory_json (&kernel_held);

  /* The crowd alone: what the reads of a watch cost, each on its own. */
  if (monitor == NULL && epoll_fd < 0)
    reads_json = scale_reads ((const GPid *) sleepers.pids->data, n);

  if (monitor != NULL)
    {
      heap_grown = heap_bytes () - heap_before;

      /* Whatever setup left pending first. */
      while (g_main_context_iteration (NULL, FALSE))
        ;

      small_context = g_main_context_new ();
      g_main_context_push_thread_default (small_context);
      small_monitor = procwatch_process_monitor_new ();
      g_object_unref (procwatch_process_monitor_watch_pid (small_monitor,
                                                           g_array_index (sleepers.pids, GPid, 0),
                                                           NULL));
      g_main_context_pop_thread_default (small_context);
      while (g_main_context_iteration (small_context, FALSE))
        ;

      scale_iterations (g_main_context_default (), small_context, round);
      procwatch_process_monitor_close (small_monitor);
      while (g_main_context_iteration (small_context, FALSE))
        ;
    }

  cpu_start = cpu_ns ();
  start = bench_now_ns ();
  bench_sleepers_kill (&sleepers);

  /* Bounded, so that a lost event ends the run with the count short
   * instead of hanging it. */
  deadline = start + G_GINT64_CONSTANT (900) * 1000000000;
  if (epoll_fd >= 0)
    {
      struct epoll_event events[EPOLL_BATCH];

      while (counter.n_reaped < n && bench_now_ns () < deadline)
        {
          int ready = epoll_wait (epoll_fd, events, EPOLL_BATCH, 1000);
          int e;

          for (e = 0; e < ready; e++)
            epoll_handle (epoll_fd, watches, &events[e]);
        }
      count.n_exited = counter.n_exited;
      count.n_reaped = counter.n_reaped;
      count.exited_ns = counter.exited_ns;
      count.reaped_ns = counter.reaped_ns;
    }
  else if (monitor == NULL)
    {
      GPid spawner = sleepers.spawner;

      while (waitpid (spawner, NULL, 0) < 0 && errno == EINTR)
        ;
      sleepers.spawner = 0;
      count.n_reaped = count.n_exited = n;
      count.reaped_ns = count.exited_ns = bench_now_ns ();
    }
  else
    {
      while (count.n_reaped < n && bench_now_ns () < deadline)
        g_main_context_iteration (NULL, TRUE);
    }
  cpu = cpu_ns () - cpu_start;

  print_line ("{\"bench\": \"scale\", \"peer\": \"%s\", \"round\": %d, \"n\": %u, "
              "\"spawn_ns\": %" G_GINT64_FORMAT ", \"mem_before\": %" G_GINT64_FORMAT ", "
              "\"mem_after\": %" G_GINT64_FORMAT ", \"watch_ns\": %" G_GINT64_FORMAT ", "
              "\"heap_bytes\": %" G_GINT64_FORMAT ", \"n_exited\": %u, \"n_reaped\": %u, "
              "\"duplicates\": %u, \"exited_ns\": %" G_GINT64_FORMAT ", \"reaped_ns\": %"
              G_GINT64_FORMAT ", \"cpu_ns\": %" G_GINT64_FORMAT ", \"caches_dropped\": %s, "
              "\"kernel\": {\"before\": %s, \"after\": %s, \"held\": %s}, \"reads\": %s}",
              peer, round, n, spawn_ns, mem_before, mem_after, watch_ns, heap_grown,
              count.n_exited, count.n_reaped, count.duplicates,
              count.exited_ns - start, count.reaped_ns - start, cpu,
              opt_drop_caches ? "true" : "false", kernel_before_json, kernel_after_json,
              kernel_held_json, reads_json != NULL ? reads_json : "null");

  if (monitor != NULL)
    procwatch_process_monitor_close (monitor);
  if (epoll_fd >= 0)
    {
      for (i = 0; i < n; i++)
        if (watches[i].fd >= 0)
          close (watches[i].fd);
      close (epoll_fd);
    }
  bench_sleepers_finish (&sleepers);
  return count.n_reaped == n;
}

static int
cmd_scale (void)
{
  g_auto(GStrv) peers = g_strsplit (opt_peers != NULL ? opt_peers : "monitor,epoll", ",", -1);
  guint n_peers = g_strv_length (peers);
  g_autofree guint8 *seen = NULL;
  int pid_max;
  g_autofree char *text = NULL;
  int round;
  guint p;

  if (opt_sleepers == NULL)
    {
      g_printerr ("procwatch-bench: scale needs --sleepers=PATH\n");
      return 2;
    }

  if (!g_strv_equal ((const char * const *) peers, (const char *[]) { "none", NULL }) &&
      !raise_fd_limit_to ((rlim_t) opt_n + 4096))
    {
      g_printerr ("procwatch-bench: cannot raise RLIMIT_NOFILE to %d: %s\n",
                  opt_n + 4096, g_strerror (errno));
      return 1;
    }

  /* Pids index the tally: one byte per possible pid. */
  if (!g_file_get_contents ("/proc/sys/kernel/pid_max", &text, NULL, NULL))
    return 1;
  pid_max = atoi (text);
  seen = g_malloc (pid_max + 1);

  for (round = 0; round < opt_rounds; round++)
    for (p = 0; p < n_peers; p++)
      {
        memset (seen, 0, pid_max + 1);
        if (!measure_scale (peers[(p + round) % n_peers], opt_n, round, seen))
          return 1;
      }

  return 0;
}

/* 6. The list model: one removal with 1 or N processes watched
 *
 * What issue 13 bounds: the library's part of an exit, from the main loop's
 * wake-up with the event pending to the end of "items-changed" (seen by the
 * "reaped" handler, which runs right after it), with N = 10,000 watched
 * against N = 1. Each repetition kills a random watched process and waits,
 * outside the timed span, until its parent has reaped it: exit and reap
 * then arrive in one wake-up, and neither the kernel's exit work nor the
 * scheduling of the dying process is in the figure. A new process is then
 * watched in its place (the append, timed too), so N stays constant. The
 * other removal, unwatch_process(), is timed around the call. Every span is
 * taken twice: wall time, and this thread's CPU time (which leaves out time
 * the scheduler gave to other work on this shared machine).
 *
 * Peers, each at every N:
 * - "monitor": ProcwatchProcessMonitor, a do-nothing items-changed handler.
 * - "liststore": the same monitor, its "reaped" handler (or, for unwatch,
 *   the caller) also removing the process from a GListStore kept beside
 *   it, as a design keeping its list in a GListStore must: it has the
 *   process, not its position, so it finds it (g_list_store_find, O(N)).
 * - "epoll": the floor, raw epoll_wait on the pidfds; a removal is
 *   EPOLL_CTL_DEL and close(), an append pidfd_open() and EPOLL_CTL_ADD.
 *   The kernel's share of the monitor's path, under the same conditions.
 * - "epoll-gsequence": the floor plus the list operations the monitor does
 *   (g_sequence_iter_get_position, g_sequence_remove; g_sequence_append,
 *   g_sequence_get_length): what its list costs when caches are cold.
 *
 * A monitor and an epoll set of 10,000 pidfds each would not fit under one
 * RLIMIT_NOFILE of 20,000: each (kind, N) lives in a worker process of its
 * own with its own sleeping processes, and the workers take turns block by
 * block, a different configuration first in every block. */

#define LIST_BATCH 500

typedef enum
{
  LIST_PEER_MONITOR,
  LIST_PEER_LISTSTORE,
  LIST_PEER_EPOLL,
  LIST_PEER_EPOLL_GSEQUENCE,
  N_LIST_PEERS
} ListPeer;

static const char *list_peer_names[N_LIST_PEERS] = {
  "monitor", "liststore", "epoll", "epoll-gsequence",
};

enum
{
  LIST_EXIT_WALL,
  LIST_EXIT_CPU,
  LIST_UNWATCH_WALL,
  LIST_UNWATCH_CPU,
  LIST_WATCH_WALL,
  LIST_WATCH_CPU,
  N_LIST_SERIES
};

static const char *list_series[N_LIST_SERIES][2] = {
  { "exit", "wall" }, { "exit", "cpu" },
  { "unwatch", "wall" }, { "unwatch", "cpu" },
  { "watch", "wall" }, { "watch", "cpu" },
};

/* A process watched by the floor peers. */
typedef struct
{
  GPid pid;
  int fd;
  GSequenceIter *item;
} ListEntry;

typedef struct
{
  guint n;
  gboolean is_monitor;
  GArray *fillers;  /* GPid: the N watched at the start */

  /* The sleeping processes, fillers first, then those watched in place of
   * the removed ones, a batch at a time; batches end only with the worker,
   * as some of each may still be watched. */
  GArray *spares;   /* BenchSleepers */
  guint next_spare; /* in the last batch */

  /* "monitor" and "liststore" */
  GMainContext *context;
  ProcwatchProcessMonitor *monitor;
  GPtrArray *held;     /* the watched processes, in no order */
  GListStore *store;   /* while "liststore" runs */
  gboolean reaped;
  gint64 reaped_ns;

  /* "epoll" and "epoll-gsequence" */
  int epoll_fd;
  GPtrArray *entries;  /* ListEntry, in no order */
  GSequence *sequence; /* while "epoll-gsequence" runs */

  GArray *samples[N_LIST_SERIES];
} ListRun;

static gint64
thread_cpu_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

static GPid
list_take_spare (ListRun *run)
{
  BenchSleepers *batch = NULL;

  if (run->spares->len > 0)
    batch = &g_array_index (run->spares, BenchSleepers, run->spares->len - 1);

  if (batch == NULL || run->next_spare >= batch->pids->len)
    {
      BenchSleepers fresh = { 0 };

      if (!bench_sleepers_spawn (&fresh, LIST_BATCH))
        g_error ("procwatch-bench: cannot start more sleeping processes");
      g_array_append_val (run->spares, fresh);
      batch = &g_array_index (run->spares, BenchSleepers, run->spares->len - 1);
      run->next_spare = 0;
    }

  return g_array_index (batch->pids, GPid, run->next_spare++);
}

static void
on_list_items_changed (GListModel *model,
                       guint       position,
                       guint       removed,
                       guint       added,
                       gpointer    user_data)
{
}

static void
list_store_drop (GListStore *store,
                 gpointer    item)
{
  guint position;

  if (g_list_store_find (store, item, &position))
    g_list_store_remove (store, position);
}

static void
on_list_reaped (ProcwatchProcessMonitor *monitor,
                ProcwatchProcess        *process,
                ListRun                 *run)
{
  if (run->store != NULL)
    list_store_drop (run->store, process);

  run->reaped_ns = bench_now_ns ();
  run->reaped = TRUE;
}

/* Keeps the compiler from dropping a position nobody reads. */
static volatile guint list_sink;

static void
list_sample (ListRun *run,
             gboolean record,
             int      series,
             gint64   value)
{
  if (record)
    g_array_append_val (run->samples[series], value);
}

static GPid
list_victim (ListRun *run,
             guint   *index)
{
  if (run->is_monitor)
    {
      *index = g_random_int_range (0, run->held->len);
      return procwatch_process_get_pid (g_ptr_array_index (run->held, *index));
    }

  *index = g_random_int_range (0, run->entries->len);
  return ((ListEntry *) g_ptr_array_index (run->entries, *index))->pid;
}

/* The floor's removal: what any watcher of pidfds does; with a sequence,
 * what the monitor's list does besides. */
static void
list_entry_drop (ListRun   *run,
                 ListEntry *entry)
{
  epoll_ctl (run->epoll_fd, EPOLL_CTL_DEL, entry->fd, NULL);
  close (entry->fd);
  entry->fd = -1;

  if (entry->item != NULL)
    {
      list_sink = g_sequence_iter_get_position (entry->item);
      g_sequence_remove (g_steal_pointer (&entry->item));
    }
}

static void
list_watch_spare (ListRun  *run,
                  gboolean  record)
{
  GPid pid = list_take_spare (run);
  gint64 t0, c0;

  if (run->is_monitor)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process;

      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      process = procwatch_process_monitor_watch_pid (run->monitor, pid, &error);
      if (process != NULL && run->store != NULL)
        g_list_store_append (run->store, process);
      list_sample (run, record, LIST_WATCH_WALL, bench_now_ns () - t0);
      list_sample (run, record, LIST_WATCH_CPU, thread_cpu_ns () - c0);

      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_ptr_array_add (run->held, process);
    }
  else
    {
      ListEntry *entry = g_new0 (ListEntry, 1);
      struct epoll_event event = { .events = EPOLLIN, .data.ptr = entry };

      entry->pid = pid;
      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      entry->fd = bench_pidfd_open (pid);
      if (entry->fd < 0 || epoll_ctl (run->epoll_fd, EPOLL_CTL_ADD, entry->fd, &event) < 0)
        g_error ("procwatch-bench: cannot watch %d: %s", (int) pid, g_strerror (errno));
      if (run->sequence != NULL)
        {
          entry->item = g_sequence_append (run->sequence, entry);
          list_sink = g_sequence_get_length (run->sequence);
        }
      list_sample (run, record, LIST_WATCH_WALL, bench_now_ns () - t0);
      list_sample (run, record, LIST_WATCH_CPU, thread_cpu_ns () - c0);

      g_ptr_array_add (run->entries, entry);
    }
}

/* Kills a random watched process and times its removal; a spare takes its
 * place. */
static void
list_exit_one (ListRun  *run,
               gboolean  record)
{
  guint index;
  GPid pid = list_victim (run, &index);
  int pidfd = bench_pidfd_open (pid);
  struct pollfd hangup = { pidfd, 0, 0 };
  gint64 c0, c1;

  if (pidfd < 0)
    g_error ("procwatch-bench: pidfd_open: %s", g_strerror (errno));

  if (run->is_monitor)
    while (g_main_context_iteration (run->context, FALSE))
      ;

  run->reaped = FALSE;
  kill (pid, SIGKILL);
  /* Reaped by its parent: the hang-up (kernel 6.9+). */
  while (poll (&hangup, 1, -1) < 0 && errno == EINTR)
    ;
  close (pidfd);

  if (run->is_monitor)
    {
      /* One iteration with the pidfd backend; the poll backend waits for
       * its probe. Only the iteration that delivers counts. */
      do
        {
          c0 = thread_cpu_ns ();
          g_main_context_iteration (run->context, TRUE);
          c1 = thread_cpu_ns ();
        }
      while (!run->reaped);

      list_sample (run, record, LIST_EXIT_WALL, run->reaped_ns - last_poll_return_ns);
      list_sample (run, record, LIST_EXIT_CPU, c1 - c0);
      g_ptr_array_remove_index_fast (run->held, index);
    }
  else
    {
      struct epoll_event event;
      gint64 t0;
      int n;

      c0 = thread_cpu_ns ();
      do
        n = epoll_wait (run->epoll_fd, &event, 1, -1);
      while (n < 0 && errno == EINTR);
      t0 = bench_now_ns ();
      g_assert (n == 1 && event.data.ptr == g_ptr_array_index (run->entries, index));
      list_entry_drop (run, event.data.ptr);
      list_sample (run, record, LIST_EXIT_WALL, bench_now_ns () - t0);
      list_sample (run, record, LIST_EXIT_CPU, thread_cpu_ns () - c0);
      g_ptr_array_remove_index_fast (run->entries, index);
    }

  list_watch_spare (run, record);
}

static void
list_unwatch_one (ListRun  *run,
                  gboolean  record)
{
  guint index;
  GPid pid = list_victim (run, &index);
  gint64 t0, c0;

  if (run->is_monitor)
    {
      ProcwatchProcess *process = g_ptr_array_index (run->held, index);

      while (g_main_context_iteration (run->context, FALSE))
        ;

      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      procwatch_process_monitor_unwatch_process (run->monitor, process);
      if (run->store != NULL)
        list_store_drop (run->store, process);
    }
  else
    {
      c0 = thread_cpu_ns ();
      t0 = bench_now_ns ();
      list_entry_drop (run, g_ptr_array_index (run->entries, index));
    }
  list_sample (run, record, LIST_UNWATCH_WALL, bench_now_ns () - t0);
  list_sample (run, record, LIST_UNWATCH_CPU, thread_cpu_ns () - c0);

  /* No longer watched: its parent reaps it, and no watcher hears of it. */
  kill (pid, SIGKILL);
  g_ptr_array_remove_index_fast (run->is_monitor ? run->held : run->entries, index);
  list_watch_spare (run, record);
}

static void
list_run_init (ListRun  *run,
               guint     n,
               gboolean  is_monitor)
{
  guint i;

  run->n = n;
  run->is_monitor = is_monitor;
  run->spares = g_array_new (FALSE, FALSE, sizeof (BenchSleepers));
  run->epoll_fd = -1;
  for (i = 0; i < N_LIST_SERIES; i++)
    run->samples[i] = g_array_new (FALSE, FALSE, sizeof (gint64));

  /* In batches of the spares' size: the parent of a killed process walks
   * all its children to reap it, which flushes caches in proportion; with
   * one parent of 10,000, N = 10,000 would pay for that and N = 1 not. */
  run->fillers = g_array_new (FALSE, FALSE, sizeof (GPid));
  while (run->fillers->len < n)
    {
      BenchSleepers *batch;
      guint size = MIN (n - run->fillers->len, LIST_BATCH);

      g_array_set_size (run->spares, run->spares->len + 1);
      batch = &g_array_index (run->spares, BenchSleepers, run->spares->len - 1);
      if (!bench_sleepers_spawn (batch, size))
        _exit (1);
      g_array_append_vals (run->fillers, batch->pids->data, size);
      run->next_spare = size;
    }

  if (!is_monitor)
    {
      run->epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
      run->entries = g_ptr_array_new_with_free_func (g_free);
      for (i = 0; i < n; i++)
        {
          ListEntry *entry = g_new0 (ListEntry, 1);
          struct epoll_event event = { .events = EPOLLIN, .data.ptr = entry };

          entry->pid = g_array_index (run->fillers, GPid, i);
          entry->fd = bench_pidfd_open (entry->pid);
          if (entry->fd < 0 || epoll_ctl (run->epoll_fd, EPOLL_CTL_ADD, entry->fd, &event) < 0)
            g_error ("procwatch-bench: cannot watch %d: %s", (int) entry->pid, g_strerror (errno));
          g_ptr_array_add (run->entries, entry);
        }
      return;
    }

  run->context = g_main_context_new ();
  g_main_context_set_poll_func (run->context, timed_poll);
  g_main_context_push_thread_default (run->context);
  run->monitor = procwatch_process_monitor_new ();
  g_main_context_pop_thread_default (run->context);
  run->held = g_ptr_array_new_with_free_func (g_object_unref);

  g_signal_connect (run->monitor, "items-changed", G_CALLBACK (on_list_items_changed), NULL);
  g_signal_connect (run->monitor, "reaped", G_CALLBACK (on_list_reaped), run);

  for (i = 0; i < n; i++)
    {
      g_autoptr(GError) error = NULL;
      GPid pid = g_array_index (run->fillers, GPid, i);
      ProcwatchProcess *process = procwatch_process_monitor_watch_pid (run->monitor, pid, &error);

      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_ptr_array_add (run->held, process);
    }
}

/* The list a peer keeps besides, built before its block, outside any span:
 * the GListStore in the monitor's order, the sequence in the entries'. */
static void
list_peer_start (ListRun  *run,
                 ListPeer  peer)
{
  guint i;

  if (peer == LIST_PEER_LISTSTORE)
    {
      GListModel *model = G_LIST_MODEL (run->monitor);
      guint n = g_list_model_get_n_items (model);

      run->store = g_list_store_new (PROCWATCH_TYPE_PROCESS);
      g_signal_connect (run->store, "items-changed", G_CALLBACK (on_list_items_changed), NULL);
      for (i = 0; i < n; i++)
        {
          g_autoptr(GObject) item = g_list_model_get_item (model, i);

          g_list_store_append (run->store, item);
        }
    }
  else if (peer == LIST_PEER_EPOLL_GSEQUENCE)
    {
      run->sequence = g_sequence_new (NULL);
      for (i = 0; i < run->entries->len; i++)
        {
          ListEntry *entry = g_ptr_array_index (run->entries, i);

          entry->item = g_sequence_append (run->sequence, entry);
        }
    }
}

static void
list_peer_stop (ListRun *run)
{
  guint i;

  g_clear_object (&run->store);
  if (run->sequence != NULL)
    {
      for (i = 0; i < run->entries->len; i++)
        ((ListEntry *) g_ptr_array_index (run->entries, i))->item = NULL;
      g_clear_pointer (&run->sequence, g_sequence_free);
    }
}

static void
list_print_block (ListRun  *run,
                  ListPeer  peer)
{
  guint k;

  for (k = 0; k < N_LIST_SERIES; k++)
    {
      g_autofree char *fields = g_strdup_printf ("\"peer\": \"%s\", \"n\": %u, \"op\": \"%s\", "
                                                 "\"clock\": \"%s\"",
                                                 list_peer_names[peer], run->n,
                                                 list_series[k][0], list_series[k][1]);

      if (run->samples[k]->len > 0)
        print_samples ("listmodel", fields, (gint64 *) run->samples[k]->data,
                       run->samples[k]->len);
      g_array_set_size (run->samples[k], 0);
    }
}

/* Commands: 'w' or 'b' and a peer (a warm-up block, or a recorded one),
 * 'q' to end. Answers 'r' once set up, 'd' after each block. */
G_GNUC_NORETURN static void
list_worker (guint     n,
             gboolean  is_monitor,
             int       command_fd,
             int       ack_fd)
{
  ListRun run = { 0 };
  char command[2];
  guint i;

  list_run_init (&run, n, is_monitor);
  if (is_monitor && !monitor_backend_ok (run.monitor))
    _exit (3);
  io_write_all (ack_fd, "r", 1);

  while (io_read_all (command_fd, command, 1) && command[0] != 'q' &&
         io_read_all (command_fd, command + 1, 1))
    {
      ListPeer peer = command[1];
      gboolean record = command[0] == 'b';

      list_peer_start (&run, peer);
      /* The two removals alternate, each followed by an append. */
      for (i = 0; i < (guint) opt_rounds; i++)
        {
          list_exit_one (&run, record);
          list_unwatch_one (&run, record);
        }
      list_peer_stop (&run);

      if (record)
        list_print_block (&run, peer);
      io_write_all (ack_fd, "d", 1);
    }

  if (run.monitor != NULL)
    {
      g_ptr_array_unref (run.held);
      g_object_unref (run.monitor);
    }
  if (run.entries != NULL)
    {
      for (i = 0; i < run.entries->len; i++)
        close (((ListEntry *) g_ptr_array_index (run.entries, i))->fd);
      g_ptr_array_unref (run.entries);
      close (run.epoll_fd);
    }
  for (i = 0; i < run.spares->len; i++)
    bench_sleepers_finish (&g_array_index (run.spares, BenchSleepers, i));
  _exit (0);
}

static void
list_worker_start (Worker   *worker,
                   guint     n,
                   gboolean  is_monitor)
{
  int command_fd, ack_fd;

  if (worker_fork (worker, &command_fd, &ack_fd))
    list_worker (n, is_monitor, command_fd, ack_fd);
}

static int
cmd_listmodel (void)
{
  g_autoptr(GArray) sizes = parse_sizes (opt_sizes, "1,10000");
  typedef struct { guint size; ListPeer peer; } Config;
  g_autoptr(GArray) configs = g_array_new (FALSE, FALSE, sizeof (Config));
  Worker *workers;
  int *started;   /* 1: running; -1: could not be set up */
  guint s, c;
  int block;

  bench_raise_fd_limit ();

  /* Worker 2 s is the monitor's at sizes[s], 2 s + 1 the floor's. */
  workers = g_new0 (Worker, 2 * sizes->len);
  started = g_new0 (int, 2 * sizes->len);
  for (s = 0; s < sizes->len; s++)
    {
      ListPeer peer;

      for (peer = 0; peer < N_LIST_PEERS; peer++)
        {
          guint w = 2 * s + (peer >= LIST_PEER_EPOLL);
          Config config = { s, peer };

          if (!list_has (opt_peers, list_peer_names[peer]) || started[w] < 0)
            continue;

          if (started[w] == 0)
            {
              list_worker_start (&workers[w], g_array_index (sizes, guint, s), w % 2 == 0);
              if (!worker_ask (&workers[w], 'r'))
                {
                  /* The monitor is not on the backend asked for: said so. */
                  waitpid (workers[w].pid, NULL, 0);
                  close (workers[w].command_fd);
                  close (workers[w].ack_fd);
                  started[w] = -1;
                  continue;
                }
              started[w] = 1;
            }
          g_array_append_val (configs, config);
        }
    }

  /* Block -1 warms every configuration up and is not recorded. */
  for (block = -1; block < opt_blocks; block++)
    for (c = 0; c < configs->len; c++)
      {
        Config *config = &g_array_index (configs, Config, (c + MAX (block, 0)) % configs->len);
        Worker *worker = &workers[2 * config->size + (config->peer >= LIST_PEER_EPOLL)];
        char command[2] = { block < 0 ? 'w' : 'b', config->peer };
        char reply = 0;

        io_write_all (worker->command_fd, command, 2);
        if (!io_read_all (worker->ack_fd, &reply, 1) || reply != 'd')
          g_error ("procwatch-bench: list-model worker failed");
      }

  for (s = 0; s < 2 * sizes->len; s++)
    if (started[s] > 0)
      worker_stop (&workers[s]);

  g_free (workers);
  g_free (started);
  return 0;
}

/* 5. Instructions, counted by callgrind
 *
 * valgrind 3.19 does not know pidfd_open, so the pidfds are opened before
 * valgrind starts and inherited; the preloaded shim answers the backend's
 * one probe, pidfd_open (getpid ()), with a pidfd also opened beforehand. */

static int
cmd_callgrind (char *self_path)
{
  BenchSleepers sleepers = { 0 };
  const char *peer = opt_peers != NULL ? opt_peers : "monitor";
  int ctl[2] = { -1, -1 };
  int base = -1;
  int index;
  int status;
  pid_t pid;
  guint i;
  g_autofree char *output = NULL;
  g_autofree char *extra = NULL;
  const char *summary;
  gboolean child_mode = g_strcmp0 (opt_mode, "child") == 0;
  InnerTally tally = { 0 };
  gboolean have_tally = FALSE;

  if (opt_valgrind == NULL || opt_shim == NULL || opt_out == NULL || opt_mode == NULL)
    {
      g_printerr ("procwatch-bench callgrind: --valgrind, --shim, --out and --mode are needed\n");
      return 2;
    }

  bench_raise_fd_limit ();
  if (!child_mode && !bench_sleepers_spawn (&sleepers, opt_n))
    return 1;

  /* Handed over as one consecutive range, above the few fds of our own. */
  base = 64;
  for (i = 0; i < (guint) (child_mode ? 0 : opt_n); i++)
    {
      int fd = bench_pidfd_open (g_array_index (sleepers.pids, GPid, i));

      if (fd < 0 || (fd != base + (int) i && dup2 (fd, base + i) < 0))
        g_error ("procwatch-bench: cannot hand over pidfd %u: %s", i, g_strerror (errno));
      if (fd != base + (int) i)
        close (fd);
      fcntl (base + i, F_SETFD, 0);
    }

  g_assert (socketpair (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ctl) == 0);

  fflush (stdout);
  pid = fork ();
  g_assert (pid >= 0);
  if (pid == 0)
    {
      int self_fd = bench_pidfd_open (getpid ());
      g_autofree char *self_arg = g_strdup_printf ("%d", self_fd);
      g_autofree char *out_arg = g_strdup_printf ("--callgrind-out-file=%s", opt_out);
      g_autofree char *n_arg = g_strdup_printf ("--n=%d", opt_n);
      g_autofree char *iters_arg = g_strdup_printf ("--iters=%d", opt_iters);
      g_autofree char *base_arg = g_strdup_printf ("--fd-base=%d", base);
      g_autofree char *ctl_arg = g_strdup_printf ("--ctl-fd=%d", ctl[1]);
      g_autofree char *mode_arg = g_strdup_printf ("--mode=%s", opt_mode);
      g_autofree char *peer_arg = g_strdup_printf ("--peers=%s", peer);

      fcntl (self_fd, F_SETFD, 0);
      fcntl (ctl[1], F_SETFD, 0);
      close (ctl[0]);
      g_setenv ("PROCWATCH_BENCH_SELF_PIDFD", self_arg, TRUE);
      g_setenv ("LD_PRELOAD", opt_shim, TRUE);
      execl (opt_valgrind, opt_valgrind, "--tool=callgrind", "--collect-atstart=no", "-q",
             out_arg, self_path, "callgrind-inner", mode_arg, peer_arg, n_arg, iters_arg,
             base_arg, ctl_arg, (char *) NULL);
      _exit (127);
    }

  close (ctl[1]);

  /* In exit mode the inner process asks for one death at a time, and hears
   * back once the process has been reaped: it then finds exit and reap
   * together, one wake-up per process for every peer, whatever the timing. */
  while (io_read_all (ctl[0], &index, sizeof index))
    if (index == CTL_TALLY)
      {
        if (!io_read_all (ctl[0], &tally, sizeof tally))
          break;
        have_tally = TRUE;
      }
    else if (child_mode)
      {
        /* The inner process's child, index its pid: its pidfd goes back. */
        int pidfd = bench_pidfd_open (index);

        if (pidfd < 0)
          g_error ("procwatch-bench: pidfd_open (%d): %s", index, g_strerror (errno));
        send_fd (ctl[0], pidfd);
        close (pidfd);
      }
    else if (index >= 0 && index < opt_n)
      {
        struct pollfd hangup = { base + index, 0, 0 };

        kill (g_array_index (sleepers.pids, GPid, index), SIGKILL);
        /* Until the reap: the pidfd hangs up (Linux 6.9+); before 6.9
         * nothing wakes us, and signal 0 is asked every millisecond. */
        while (!(poll (&hangup, 1, 1) == 1 && (hangup.revents & POLLHUP)) &&
               !(syscall (SYS_pidfd_send_signal, base + index, 0, NULL, 0) < 0 &&
                 errno == ESRCH))
          ;
        io_write_all (ctl[0], "r", 1);
      }
  close (ctl[0]);
  for (i = 0; i < (guint) (child_mode ? 0 : opt_n); i++)
    close (base + i);

  waitpid (pid, &status, 0);
  if (!child_mode)
    bench_sleepers_finish (&sleepers);

  if (!WIFEXITED (status) || WEXITSTATUS (status) != 0 ||
      !g_file_get_contents (opt_out, &output, NULL, NULL))
    {
      g_printerr ("procwatch-bench: callgrind run failed\n");
      return 1;
    }

  summary = strstr (output, "\nsummary:");
  if (summary == NULL)
    summary = strstr (output, "\ntotals:");
  if (summary == NULL)
    return 1;

  /* exit and child modes: the part after the callbacks on its own. */
  if (have_tally)
    {
      gint64 trailing = callgrind_inclusive (output, "settle_iteration");

      extra = g_strdup_printf (", \"trailing_instructions\": %" G_GINT64_FORMAT ", "
                               "\"exit_iterations\": %u, \"settle_iterations\": %u",
                               MAX (trailing, 0), tally.exit_iterations,
                               tally.settle_iterations);
    }

  print_line ("{\"bench\": \"callgrind\", \"label\": \"%s\", \"mode\": \"%s\", \"peer\": \"%s\", "
              "\"n\": %d, \"iters\": %d, \"instructions\": %s%s}",
              opt_label != NULL ? opt_label : "", opt_mode, peer, opt_n,
              opt_iters, g_strstrip (g_strndup (strchr (summary, ':') + 1,
                                                strcspn (strchr (summary, ':') + 1, "\n"))),
              extra != NULL ? extra : "");
  return 0;
}

/* Returns the main-loop iterations it ran. */
static guint
inner_reaped (int       epoll_fd,
              FdWatch  *watches,
              Counter  *counter,
              guint     n_reaped)
{
  guint n = 0;

  if (epoll_fd >= 0)
    epoll_run_until (epoll_fd, watches, counter, n_reaped);
  else
    for (; counter->n_reaped < n_reaped; n++)
      g_main_context_iteration (NULL, TRUE);

  return n;
}


/* The list model's operations one by one, N watched processes throughout:
 * the pidfds of opt_n processes are handed over; the first opt_n - opt_iters
 * are watched, and each of opt_iters repetitions removes a random one (mode
 * "listexit": its death, asked of the outer process, which returns once it
 * has been reaped; "listunwatch": unwatch_process) and watches the next
 * pidfd in its place ("listwatch"). Only the operation the mode names is
 * counted: instructions do not depend on caches or on other work, so they
 * show how the library's own work grows with N. */
static int
callgrind_list_inner (void)
{
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func (g_object_unref);
  GMainContext *context = g_main_context_default ();
  const char *self_fd = g_getenv ("PROCWATCH_BENCH_SELF_PIDFD");
  gboolean count_exit = g_str_equal (opt_mode, "listexit");
  gboolean count_unwatch = g_str_equal (opt_mode, "listunwatch");
  gboolean count_watch = g_str_equal (opt_mode, "listwatch");
  int watched = opt_n - opt_iters;
  Counter counter = { 0 };
  int next = 0;
  int i;

  g_assert (watched >= 1);

  monitor = procwatch_process_monitor_new ();
  g_signal_connect (monitor, "items-changed", G_CALLBACK (on_list_items_changed), NULL);
  g_signal_connect (monitor, "reaped", G_CALLBACK (on_counter_reaped), &counter);
  if (self_fd != NULL)
    {
      g_object_unref (procwatch_process_monitor_watch_pidfd (monitor, atoi (self_fd), NULL));
      procwatch_process_monitor_unwatch (monitor, getpid ());
    }

  for (next = 0; next < watched; next++)
    {
      g_autoptr(GError) error = NULL;
      ProcwatchProcess *process = procwatch_process_monitor_watch_pidfd (monitor, opt_fd_base + next,
                                                                         &error);

      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_object_set_data (G_OBJECT (process), "bench-index", GINT_TO_POINTER (next + 1));
      g_ptr_array_add (held, process);
      close (opt_fd_base + next);
    }

  while (g_main_context_iteration (context, FALSE))
    ;

  for (i = 0; i < opt_iters; i++)
    {
      guint index = g_random_int_range (0, held->len);
      ProcwatchProcess *process = g_ptr_array_index (held, index);
      g_autoptr(GError) error = NULL;

      if (count_exit || !count_unwatch)
        {
          /* Told by the index of its pidfd, which is what the outer holds. */
          int victim = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (process), "bench-index")) - 1;
          char reaped;

          io_write_all (opt_ctl_fd, &victim, sizeof victim);
          io_read_all (opt_ctl_fd, &reaped, 1);
          if (count_exit)
            CALLGRIND_TOGGLE_COLLECT;
          while (counter.n_reaped < (guint) i + 1)
            g_main_context_iteration (context, TRUE);
          if (count_exit)
            CALLGRIND_TOGGLE_COLLECT;
        }
      else
        {
          CALLGRIND_TOGGLE_COLLECT;
          procwatch_process_monitor_unwatch_process (monitor, process);
          CALLGRIND_TOGGLE_COLLECT;
        }
      g_ptr_array_remove_index_fast (held, index);

      if (count_watch)
        CALLGRIND_TOGGLE_COLLECT;
      process = procwatch_process_monitor_watch_pidfd (monitor, opt_fd_base + next, &error);
      if (count_watch)
        CALLGRIND_TOGGLE_COLLECT;
      if (process == NULL)
        g_error ("procwatch-bench: %s", error->message);
      g_object_set_data (G_OBJECT (process), "bench-index", GINT_TO_POINTER (next + 1));
      g_ptr_array_add (held, process);
      close (opt_fd_base + next);
      next++;
    }

  close (opt_ctl_fd);
  return 0;
}

/* Mode "child" (issue 27, target 2): one child of the process under
 * valgrind at a time, killed inside the counted span, which ends once
 * everything has settled. "monitor": watched with watch_pidfd (its pidfd
 * opened by the outer process), reaped by the "exited" handler
 * (waitpid ()), counted to "reaped"; "childwatch": g_child_watch_add (),
 * which reaps it itself (on its pidfd, as natively: the shim hands GLib's
 * pidfd_open the one the outer process opened), counted to its callback.
 * One child at a time: without pidfds GLib would call waitpid () on every
 * watched child at each SIGCHLD. */

typedef struct
{
  guint n_exited;
  guint n_reaped;
} ChildTally;

static void
on_child_mode_exited (ProcwatchProcessMonitor *monitor,
                      ProcwatchProcess        *process,
                      ChildTally              *tally)
{
  int status;

  while (waitpid (procwatch_process_get_pid (process), &status, 0) < 0 && errno == EINTR)
    ;
  tally->n_exited++;
}

static void
on_child_mode_reaped (ProcwatchProcessMonitor *monitor,
                      ProcwatchProcess        *process,
                      ChildTally              *tally)
{
  tally->n_reaped++;
}

static void
on_child_mode_watch (GPid     pid,
                     int      status,
                     gpointer user_data)
{
  ChildTally *tally = user_data;

  tally->n_exited++;
  tally->n_reaped++;
}

static GPid
spawn_sleeping_child (void)
{
  const char *argv[] = { "sleep", "3600", NULL };
  pid_t pid;
  int error = posix_spawn (&pid, "/bin/sleep", NULL, NULL, (char **) argv, environ);

  if (error != 0)
    g_error ("procwatch-bench: cannot start /bin/sleep: %s", g_strerror (error));
  return pid;
}

static int
callgrind_child_inner (void)
{
  const char *peer = opt_peers != NULL ? opt_peers : "monitor";
  gboolean is_monitor = g_str_equal (peer, "monitor");
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  GMainContext *context = g_main_context_default ();
  const char *self_fd = g_getenv ("PROCWATCH_BENCH_SELF_PIDFD");
  ChildTally children = { 0 };
  InnerTally tally = { 0 };
  int i;

  if (!is_monitor && !g_str_equal (peer, "childwatch"))
    g_error ("procwatch-bench: mode child knows the peers monitor and childwatch");

  /* valgrind handles every signal itself, so a SIGCHLD (ignored by
   * default, which never interrupts a syscall natively) would end the main
   * loop's poll () early with EINTR, an iteration more at random. Neither
   * peer needs it: both wait on the child's pidfd (GLib 2.74 too). */
  {
    sigset_t chld;

    sigemptyset (&chld);
    sigaddset (&chld, SIGCHLD);
    pthread_sigmask (SIG_BLOCK, &chld, NULL);
  }

  g_main_context_set_poll_func (context, recording_poll);

  if (is_monitor)
    {
      monitor = procwatch_process_monitor_new ();
      g_signal_connect (monitor, "exited", G_CALLBACK (on_child_mode_exited), &children);
      g_signal_connect (monitor, "reaped", G_CALLBACK (on_child_mode_reaped), &children);
      if (self_fd != NULL)
        {
          g_object_unref (procwatch_process_monitor_watch_pidfd (monitor, atoi (self_fd), NULL));
          procwatch_process_monitor_unwatch (monitor, getpid ());
        }
    }

  for (i = 0; i < opt_n; i++)
    {
      GPid pid = spawn_sleeping_child ();
      int pidfd;

      io_write_all (opt_ctl_fd, &pid, sizeof pid);
      pidfd = receive_fd (opt_ctl_fd);
      if (pidfd < 0)
        g_error ("procwatch-bench: no pidfd for child %d", (int) pid);

      if (is_monitor)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process;

          process = procwatch_process_monitor_watch_pidfd (monitor, pidfd, &error);
          if (process == NULL)
            g_error ("procwatch-bench: %s", error->message);
          g_object_unref (process);
        }
      else
        {
          /* GLib's own pidfd_open, answered by the shim: without it GLib
           * would fall back to SIGCHLD and its worker thread, which it
           * does not use natively (2.74 and later). */
          g_autofree char *pair = g_strdup_printf ("%d:%d", (int) pid, pidfd);

          g_setenv ("PROCWATCH_BENCH_CHILD_PIDFD", pair, TRUE);
          g_child_watch_add (pid, on_child_mode_watch, &children);
          g_unsetenv ("PROCWATCH_BENCH_CHILD_PIDFD");
        }
      close (pidfd);

      while (g_main_context_iteration (context, FALSE))
        ;

      CALLGRIND_TOGGLE_COLLECT;
      kill (pid, SIGKILL);
      for (; children.n_reaped < (guint) i + 1; tally.exit_iterations++)
        g_main_context_iteration (context, TRUE);
      tally.settle_iterations += settle_context (context);
      CALLGRIND_TOGGLE_COLLECT;

      g_assert (children.n_exited == (guint) i + 1);
    }

  inner_send_tally (&tally);
  close (opt_ctl_fd);
  return 0;
}

static int
cmd_callgrind_inner (void)
{
  const char *peer = opt_peers != NULL ? opt_peers : "monitor";
  g_autoptr(ProcwatchProcessMonitor) monitor = NULL;
  g_autofree FdWatch *watches = g_new0 (FdWatch, MAX (opt_n, 1));
  GMainContext *context = g_main_context_default ();
  Counter counter = { 0 };
  EpollSource epoll_source = { -1, NULL };
  /* "monitor-held": the caller keeps its ProcwatchProcess objects, so that
   * their finalization falls outside the measured span. */
  g_autoptr(GPtrArray) held = g_ptr_array_new_with_free_func (g_object_unref);
  int epoll_fd = -1;
  int i;

  if (g_str_has_prefix (opt_mode, "list"))
    return callgrind_list_inner ();
  if (g_str_equal (opt_mode, "child"))
    return callgrind_child_inner ();

  /* Exit mode asks it whether anything is pending (settle_context). */
  if (g_str_equal (opt_mode, "exit"))
    g_main_context_set_poll_func (context, recording_poll);

  if (g_str_has_prefix (peer, "monitor"))
    {
      const char *self_fd = g_getenv ("PROCWATCH_BENCH_SELF_PIDFD");

      monitor = counting_monitor_new (&counter);
      if (self_fd != NULL)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process;

          process = procwatch_process_monitor_watch_pidfd (monitor, atoi (self_fd), &error);
          if (process == NULL)
            g_error ("procwatch-bench: %s", error->message);
          g_object_unref (process);
          procwatch_process_monitor_unwatch (monitor, getpid ());
        }

      for (i = 0; i < opt_n; i++)
        {
          g_autoptr(GError) error = NULL;
          ProcwatchProcess *process;

          process = procwatch_process_monitor_watch_pidfd (monitor, opt_fd_base + i, &error);
          if (process == NULL)
            g_error ("procwatch-bench: %s", error->message);
          if (g_str_equal (peer, "monitor-held"))
            g_ptr_array_add (held, process);
          else
            g_object_unref (process);
          close (opt_fd_base + i);
        }
    }
  else if (g_str_has_prefix (peer, "epoll") && g_str_equal (opt_mode, "exit"))
    {
      epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
      for (i = 0; i < opt_n; i++)
        {
          struct epoll_event event = { .events = EPOLLIN, .data.u32 = i };

          watches[i].fd = opt_fd_base + i;
          watches[i].counter = &counter;
          epoll_ctl (epoll_fd, EPOLL_CTL_ADD, watches[i].fd, &event);
        }

      if (g_str_equal (peer, "epollsource"))
        {
          epoll_source.epoll_fd = epoll_fd;
          epoll_source.watches = watches;
          g_unix_fd_add (epoll_fd, G_IO_IN, on_epoll_ready, &epoll_source);
          epoll_fd = -1;
        }
    }
  else if (g_str_equal (peer, "fdsource"))
    {
      for (i = 0; i < opt_n; i++)
        g_unix_fd_add (opt_fd_base + i, G_IO_IN, on_idle_fd, NULL);
    }

  if (g_str_equal (opt_mode, "iter"))
    {
      g_autoptr(GSource) idle = g_idle_source_new ();

      g_source_set_callback (idle, keep_idle, NULL, NULL);
      g_source_attach (idle, context);

      for (i = 0; i < 5; i++)
        g_main_context_iteration (context, FALSE);

      CALLGRIND_TOGGLE_COLLECT;
      for (i = 0; i < opt_iters; i++)
        g_main_context_iteration (context, FALSE);
      CALLGRIND_TOGGLE_COLLECT;
    }
  else
    {
      InnerTally tally = { 0 };

      while (g_main_context_iteration (context, FALSE))
        ;

      /* Counted: from the wake-up on the exit to everything settled; not
       * the request to the outer process and its answer. */
      for (i = 0; i < opt_n; i++)
        {
          char reaped;

          io_write_all (opt_ctl_fd, &i, sizeof i);
          io_read_all (opt_ctl_fd, &reaped, 1);
          CALLGRIND_TOGGLE_COLLECT;
          tally.exit_iterations += inner_reaped (epoll_fd, watches, &counter, i + 1);
          tally.settle_iterations += settle_context (context);
          CALLGRIND_TOGGLE_COLLECT;
        }
      inner_send_tally (&tally);
    }

  close (opt_ctl_fd);
  return 0;
}

/* 8. The poll backend (issue 17): the watcher's CPU per second of wall time
 * with N sleeping processes watched, once their probes have settled, and the
 * cost of one unwatch_process at 1 and at N watched, paired sample by
 * sample (a second monitor watches one of the same processes). bench/run
 * runs it against this library and against an older build of it
 * (LD_LIBRARY_PATH), the peer. */

static void
poll_time_unwatch (ProcwatchProcessMonitor  *monitor,
                   ProcwatchProcess        **processes,
                   guint                     index,
                   GArray                   *samples)
{
  GPid pid = procwatch_process_get_pid (processes[index]);
  gint64 t0 = bench_now_ns ();
  gint64 ns;

  procwatch_process_monitor_unwatch_process (monitor, processes[index]);
  ns = bench_now_ns () - t0;
  g_array_append_val (samples, ns);

  /* Watched again, so that N stays. */
  g_object_unref (processes[index]);
  processes[index] = procwatch_process_monitor_watch_pid (monitor, pid, NULL);
}

/* The kernel's part of an unwatch for this backend: closing a process's
 * /proc/<pid>/stat file, that of a random one of @n processes (cold in the
 * caches, as an unwatch at N finds it) against the same file closed and
 * reopened each time (hot, as at N = 1), paired sample by sample. */
static void
poll_time_close (const GPid *pids,
                 guint       n)
{
  g_autofree int *fds = g_new (int, n);
  g_autoptr(GArray) close_big = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) close_one = g_array_new (FALSE, FALSE, sizeof (gint64));
  int single;
  guint i;

  for (i = 0; i < n; i++)
    {
      g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pids[i]);

      fds[i] = open (path, O_RDONLY | O_CLOEXEC);
    }
  single = dup (fds[0]);

  for (i = 0; i < (guint) opt_iters * 2; i++)
    {
      guint index = g_random_int_range (0, n);
      g_autofree char *path = g_strdup_printf ("/proc/%d/stat", (int) pids[index]);
      int *fd = i % 2 == 0 ? &fds[index] : &single;
      gint64 t0 = bench_now_ns ();
      gint64 ns;

      close (*fd);
      ns = bench_now_ns () - t0;
      g_array_append_val (i % 2 == 0 ? close_big : close_one, ns);
      *fd = open (i % 2 == 0 ? path : "/proc/self/stat", O_RDONLY | O_CLOEXEC);
    }

  {
    g_autofree char *fields = g_strdup_printf ("\"n\": %u", n);

    print_samples ("pollidle-close-n", fields, (gint64 *) close_big->data, close_big->len);
    print_samples ("pollidle-close-1", "\"n\": 1", (gint64 *) close_one->data, close_one->len);
  }

  for (i = 0; i < n; i++)
    close (fds[i]);
  close (single);
}

static int
cmd_pollidle (void)
{
  guint n = (guint) opt_n;
  BenchSleepers sleepers = { 0 };
  g_autoptr(ProcwatchProcessMonitor) big = procwatch_process_monitor_new ();
  g_autoptr(ProcwatchProcessMonitor) one = procwatch_process_monitor_new ();
  g_autofree ProcwatchProcess **processes = g_new0 (ProcwatchProcess *, n);
  ProcwatchProcess *single[1];
  g_autoptr(GArray) cpu = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) wakeups = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) unwatch_big = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autoptr(GArray) unwatch_one = g_array_new (FALSE, FALSE, sizeof (gint64));
  g_autofree char *fields = NULL;
  int round;
  guint i;

  bench_raise_fd_limit ();
  if (opt_peers != NULL && list_has (opt_peers, "raw"))
    {
      if (bench_sleepers_spawn (&sleepers, n))
        {
          poll_time_close ((GPid *) sleepers.pids->data, n);
          bench_sleepers_finish (&sleepers);
        }
      return 0;
    }

  if (!monitor_backend_ok (big) || !bench_sleepers_spawn (&sleepers, n))
    return 0;

  for (i = 0; i < n; i++)
    processes[i] = procwatch_process_monitor_watch_pid (big, g_array_index (sleepers.pids, GPid, i),
                                                        NULL);
  single[0] = procwatch_process_monitor_watch_pid (one, g_array_index (sleepers.pids, GPid, 0),
                                                   NULL);

  /* Past every young phase and backoff: long-lived processes. */
  run_loop_for (4 * G_USEC_PER_SEC, NULL);

  for (round = 0; round < opt_rounds; round++)
    {
      gint64 cpu_start = cpu_ns ();
      gint64 wall_start = bench_now_ns ();
      guint iterations = 0;
      gint64 value;

      run_loop_for (G_USEC_PER_SEC, &iterations);
      value = (cpu_ns () - cpu_start) * G_GINT64_CONSTANT (1000000000) /
              (bench_now_ns () - wall_start);
      g_array_append_val (cpu, value);
      value = iterations;
      g_array_append_val (wakeups, value);
    }

  /* Outside the idle windows: a re-watched process is young again. */
  for (i = 0; i < (guint) opt_iters; i++)
    {
      if (i % 2 == 0)
        {
          poll_time_unwatch (big, processes, g_random_int_range (0, n), unwatch_big);
          poll_time_unwatch (one, single, 0, unwatch_one);
        }
      else
        {
          poll_time_unwatch (one, single, 0, unwatch_one);
          poll_time_unwatch (big, processes, g_random_int_range (0, n), unwatch_big);
        }
    }

  fields = g_strdup_printf ("\"n\": %u", n);
  print_samples ("pollidle-cpu", fields, (gint64 *) cpu->data, cpu->len);
  print_samples ("pollidle-wakeups", fields, (gint64 *) wakeups->data, wakeups->len);
  print_samples ("pollidle-unwatch-n", fields, (gint64 *) unwatch_big->data, unwatch_big->len);
  g_free (fields);
  fields = g_strdup ("\"n\": 1");
  print_samples ("pollidle-unwatch-1", fields, (gint64 *) unwatch_one->data, unwatch_one->len);

  for (i = 0; i < n; i++)
    g_clear_object (&processes[i]);
  g_clear_object (&single[0]);
  g_clear_object (&big);
  g_clear_object (&one);
  bench_sleepers_finish (&sleepers);
  return 0;
}

/* A small run of every measurement, for the test suite: checks that the
 * harness works, not how fast anything is. */
static int
cmd_smoke (void)
{
  int status = 0;

  opt_rounds = 2;
  opt_max_delay_us = 1000;
  opt_peers = (char *) "epoll,monitor,fdsource,childwatch";
  status |= cmd_latency ();

  opt_sizes = (char *) "0,20";
  opt_iters = 20;
  opt_blocks = 2;
  status |= cmd_iter ();

  opt_sizes = (char *) "20";
  opt_rounds = 1;
  opt_peers = NULL;
  status |= cmd_burst ();

  opt_n = 20;
  status |= cmd_watchcost ();

  opt_iters = 5;
  status |= cmd_watchat ();

  opt_rounds = 1;
  status |= cmd_syscalls ();

  return status;
}

int
main (int   argc,
      char *argv[])
{
  g_autoptr(GOptionContext) context = NULL;
  g_autoptr(GError) error = NULL;
  g_autofree char *self_path = g_file_read_link ("/proc/self/exe", NULL);
  const char *command;

  /* Helpers started by the benchmark itself, before anything else. */
  if (argc >= 2 && (g_str_equal (argv[1], "target") || g_str_equal (argv[1], "target-parent") ||
                    g_str_equal (argv[1], "spawner")))
    return bench_run_role (argv[1], argv[2]);

  context = g_option_context_new ("latency|syscalls|iter|burst|watchcost|watchat|memory|listmodel|pollidle|callgrind|smoke|scale");
  g_option_context_add_main_entries (context, entries, NULL);
  if (!g_option_context_parse (context, &argc, &argv, &error) || argc < 2)
    {
      g_printerr ("procwatch-bench: %s\n",
                  error != NULL ? error->message : "which measurement? (see --help)");
      return 2;
    }

  /* A peer that died early must not take the benchmark with it. */
  signal (SIGPIPE, SIG_IGN);

  command = argv[1];
  if (g_str_equal (command, "latency"))
    return cmd_latency ();
  if (g_str_equal (command, "iter"))
    return cmd_iter ();
  if (g_str_equal (command, "burst"))
    return cmd_burst ();
  if (g_str_equal (command, "watchcost"))
    return cmd_watchcost ();
  if (g_str_equal (command, "syscalls"))
    return cmd_syscalls ();
  if (g_str_equal (command, "watchat"))
    return cmd_watchat ();
  if (g_str_equal (command, "memory"))
    return cmd_memory ();
  if (g_str_equal (command, "listmodel"))
    return cmd_listmodel ();
  if (g_str_equal (command, "callgrind"))
    return cmd_callgrind (self_path);
  if (g_str_equal (command, "callgrind-inner"))
    return cmd_callgrind_inner ();
  if (g_str_equal (command, "pollidle"))
    return cmd_pollidle ();
  if (g_str_equal (command, "smoke"))
    return cmd_smoke ();
  if (g_str_equal (command, "scale"))
    return cmd_scale ();

  g_printerr ("procwatch-bench: unknown measurement %s\n", command);
  return 2;
}
