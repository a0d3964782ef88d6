/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench watchat: the cost of one more watch with N already
 * watched, with the name and cgroup a watch reads, paired process by process
 * with the raw floor and the name read on its own (issue 27, target 4).
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

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

/* The floor watches as many of the N as the fd limit leaves room for,
 * all N where RLIMIT_NOFILE can be raised (CAP_SYS_RESOURCE): its costs
 * (the fd table's lowest free slot, the epoll tree's depth) hardly change
 * between 9,000 and 10,000. FALSE if not even the N + --iters of the
 * monitor fit. */
static gboolean
watchat_floor_size (guint  n,
                    guint  extra,
                    guint *floor_n)
{
  if (!raise_fd_limit_to (2 * (rlim_t) (n + extra) + 256))
    {
      struct rlimit limit;

      bench_raise_fd_limit ();
      getrlimit (RLIMIT_NOFILE, &limit);
      if (limit.rlim_cur < (rlim_t) (n + 2 * extra) + 512)
        {
          g_printerr ("procwatch-bench: RLIMIT_NOFILE %lu is too low for %u watched\n",
                      (unsigned long) limit.rlim_cur, n);
          return FALSE;
        }
      *floor_n = MIN (n, (guint) (limit.rlim_cur - (n + 2 * extra) - 256));
    }

  return TRUE;
}

/* One round: processes N to N + @extra watched by each kind in turns, then
 * unwatched (the monitor, then the floor); round 0 is not recorded. */
static void
watchat_round (ProcwatchProcessMonitor *monitor,
               int                      epoll_fd,
               const GPid              *pids,
               int                     *fds,
               guint                    n,
               guint                    extra,
               int                      round,
               GArray                 **watch_ns,
               GArray                 **unwatch_ns)
{
  guint i;
  int k;

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

/* The records, and the arrays freed; @sample says how long the name and
 * the cgroup of the watched processes are. */
static void
watchat_print (ProcwatchProcess  *sample,
               guint              n,
               guint              floor_n,
               GArray           **watch_ns,
               GArray           **unwatch_ns)
{
  int k;

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
}

int
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

  if (!watchat_floor_size (n, extra, &floor_n))
    return 1;
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
    watchat_round (monitor, epoll_fd, pids, fds, n, extra, round, watch_ns, unwatch_ns);

  watchat_print (sample, n, floor_n, watch_ns, unwatch_ns);

  g_clear_object (&sample);
  g_clear_object (&monitor);
  for (i = 0; i < floor_n; i++)
    close (fds[i]);
  close (epoll_fd);
  bench_sleepers_finish (&sleepers);
  return 0;
}
