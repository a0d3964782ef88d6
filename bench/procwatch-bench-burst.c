/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench burst: N processes killed at once, the time to the last
 * "exited" and "reaped" and the watcher's CPU time over it (bench/README.md,
 * section 3).
 */

#include <sys/epoll.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

/* 3. Burst: N processes killed at once */

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

int
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
