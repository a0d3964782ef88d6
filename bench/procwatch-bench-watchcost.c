/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench watchcost: the time of each watch and unwatch call, the
 * monitor against raw epoll and per-pidfd sources (bench/README.md,
 * section 4).
 */

#include <sys/epoll.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

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

int
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
