/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench syscalls: the system calls of one exit, from the wake-up
 * to "exited" and everything settled (bench/README.md, section 1b), cut by
 * marks for bench/run's strace -f.
 */

#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-bench-harness.h"

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

int
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
