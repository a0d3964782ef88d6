/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench latency: how long after a process's last instruction
 * each peer hears of its exit (bench/README.md, section 1), the monitor
 * against raw epoll, GLib sources, polling, psutil and pidwait, peer by peer
 * on fresh processes, child and non-child.
 */

#include <errno.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

extern char **environ;

/* 1. Exit → "exited" latency */

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

/* The monitor; with --reaped, also how soon "reaped" follows "exited" for a
 * non-child (into run->reaped_stamp). */
static gint64
measure_monitor (LatencyRun  *run,
                 BenchTarget *target,
                 gboolean     child,
                 gint64       delay_us)
{
  g_autoptr(ProcwatchProcess) process = NULL;
  gint64 stamp;

  run->counter.pid = target->pid;
  run->counter.n_exited = 0;
  run->counter.n_reaped = 0;
  process = procwatch_process_monitor_watch_pid (run->monitor, target->pid, NULL);
  if (process == NULL)
    return -1;

  /* With --delay-in-loop the monitor probes meanwhile, as it would
   * in an application: a probing backend's schedule moves on. */
  if (opt_delay_in_loop)
    run_loop_for (delay_us, NULL);
  else
    sleep_us (delay_us);
  bench_target_trigger (target);
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
  procwatch_process_monitor_unwatch (run->monitor, target->pid);
  return stamp;
}

/* A bare GSource on one epoll fd holding the pidfd. */
static gint64
measure_epollsource (LatencyRun  *run,
                     BenchTarget *target,
                     gint64       delay_us)
{
  struct epoll_event event = { .events = EPOLLIN };
  int epoll_fd = epoll_create1 (EPOLL_CLOEXEC);
  int pidfd = bench_pidfd_open (target->pid);

  if (pidfd < 0 || epoll_ctl (epoll_fd, EPOLL_CTL_ADD, pidfd, &event) < 0)
    {
      close (epoll_fd);
      return -1;
    }
  g_unix_fd_add (epoll_fd, G_IO_IN, on_fd_ready, run);
  sleep_us (delay_us);
  bench_target_trigger (target);
  run_until_done (run);
  close (epoll_fd);
  close (pidfd);
  return run->stamp;
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
      stamp = measure_monitor (run, &target, child, delay_us);
      break;

    case PEER_EPOLLSOURCE:
      stamp = measure_epollsource (run, &target, delay_us);
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

int
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
