/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench pollidle: the poll backend's idle cost, the watcher's
 * CPU per second with N processes watched, and the cost of one unwatch at 1
 * and at N (issue 17; bench/README.md, section 8).
 */

#include <fcntl.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

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

int
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
