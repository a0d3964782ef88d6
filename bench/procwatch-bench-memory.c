/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench memory: the user-space memory N watched processes cost
 * each peer (bench/README.md, section 4), in a process of its own per peer.
 */

#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

/* Resident anonymous memory of this process, in bytes: what user space
 * allocated; the kernel's pidfds, epoll items and struct pids are not in it. */
static gint64
anonymous_bytes (void)
{
  return proc_kib_field ("/proc/self/smaps_rollup", "Anonymous");
}

/* In a process of its own, so that no earlier peer's freed memory is reused. */
int
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
