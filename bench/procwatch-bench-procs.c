/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procwatch-bench-procs.h"

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif

/* Written by a target just before it exits; shared with every fork. */
static volatile gint64 *exit_stamp;

gint64
bench_now_ns (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * G_GINT64_CONSTANT (1000000000) + ts.tv_nsec;
}

int
bench_pidfd_open (GPid pid)
{
  return (int) syscall (SYS_pidfd_open, pid, 0);
}

void
bench_write_all (int         fd,
                 const void *data,
                 gsize       size)
{
  const char *p = data;

  while (size > 0)
    {
      gssize n = write (fd, p, size);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        _exit (101);
      p += n;
      size -= n;
    }
}

gboolean
bench_read_all (int    fd,
                void  *data,
                gsize  size)
{
  char *p = data;

  while (size > 0)
    {
      gssize n = read (fd, p, size);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      size -= n;
    }

  return TRUE;
}

void
bench_raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      setrlimit (RLIMIT_NOFILE, &limit);
    }
}

/* In forked processes: closes every descriptor above stderr except @keep_a
 * and @keep_b (-1 for none), so that no copy holds pipes of the others. */
static void
close_all_but (int keep_a,
               int keep_b)
{
  int low = MIN (keep_a, keep_b);
  int high = MAX (keep_a, keep_b);
  unsigned int next = 3;

  if (low >= 3)
    {
      if ((unsigned int) low > next)
        syscall (SYS_close_range, next, (unsigned int) low - 1, 0);
      next = low + 1;
    }
  if (high >= 3)
    {
      if ((unsigned int) high > next)
        syscall (SYS_close_range, next, (unsigned int) high - 1, 0);
      next = high + 1;
    }
  syscall (SYS_close_range, next, ~0U, 0);
}

static void
die_with_parent (void)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

static void
ensure_exit_stamp (void)
{
  if (exit_stamp == NULL)
    {
      void *map = mmap (NULL, sizeof (gint64), PROT_READ | PROT_WRITE,
                        MAP_SHARED | MAP_ANONYMOUS, -1, 0);

      g_assert (map != MAP_FAILED);
      exit_stamp = map;
    }
}

G_GNUC_NORETURN static void
run_target (int control_fd)
{
  char command;

  close_all_but (control_fd, -1);
  if (!bench_read_all (control_fd, &command, 1))
    _exit (1);

  *exit_stamp = bench_now_ns ();
  _exit (0);
}

void
bench_target_spawn (BenchTarget *target,
                    gboolean     child)
{
  int control[2];
  int report[2];
  pid_t pid;

  ensure_exit_stamp ();
  *exit_stamp = 0;

  target->reaped = FALSE;
  target->parent = 0;
  g_assert (pipe2 (control, O_CLOEXEC) == 0);

  if (child)
    {
      pid = fork ();
      g_assert (pid >= 0);
      if (pid == 0)
        {
          die_with_parent ();
          run_target (control[0]);
        }

      close (control[0]);
      target->pid = pid;
      target->control_fd = control[1];
      return;
    }

  g_assert (pipe2 (report, O_CLOEXEC) == 0);
  pid = fork ();
  g_assert (pid >= 0);
  if (pid == 0)
    {
      pid_t grandchild;

      die_with_parent ();
      close_all_but (control[0], report[1]);
      grandchild = fork ();
      if (grandchild < 0)
        _exit (102);
      if (grandchild == 0)
        run_target (control[0]);

      close (control[0]);
      bench_write_all (report[1], &grandchild, sizeof grandchild);
      close (report[1]);

      /* Reaps as soon as the target has exited, as most parents do. */
      while (waitpid (grandchild, NULL, 0) < 0 && errno == EINTR)
        ;
      _exit (0);
    }

  close (control[0]);
  close (report[1]);
  g_assert (bench_read_all (report[0], &target->pid, sizeof target->pid));
  close (report[0]);
  target->parent = pid;
  target->control_fd = control[1];
}

void
bench_target_trigger (BenchTarget *target)
{
  bench_write_all (target->control_fd, "x", 1);
}

gint64
bench_target_exit_ns (void)
{
  return exit_stamp != NULL ? *exit_stamp : 0;
}

void
bench_target_finish (BenchTarget *target)
{
  GPid pid = target->parent != 0 ? target->parent : target->pid;

  if (target->control_fd >= 0)
    close (target->control_fd);
  target->control_fd = -1;

  if (target->parent == 0 && target->reaped)
    return;

  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
}

G_GNUC_NORETURN static void
run_spawner (guint n,
             int   release_fd,
             int   report_fd)
{
  pid_t group = 0;
  guint i;

  die_with_parent ();
  close_all_but (release_fd, report_fd);

  for (i = 0; i < n; i++)
    {
      pid_t pid = fork ();

      if (pid < 0)
        break;

      if (pid == 0)
        {
          char byte;

          die_with_parent ();
          setpgid (0, group);
          close_all_but (release_fd, -1);
          while (read (release_fd, &byte, 1) < 0 && errno == EINTR)
            ;
          _exit (0);
        }

      /* Both sides set the group: whichever runs first wins the race. */
      setpgid (pid, group != 0 ? group : pid);
      if (group == 0)
        group = pid;
      bench_write_all (report_fd, &pid, sizeof pid);
    }

  close (report_fd);
  close (release_fd);

  for (;;)
    {
      if (waitpid (-1, NULL, 0) < 0 && errno != EINTR)
        break;
    }

  _exit (0);
}

gboolean
bench_sleepers_spawn (BenchSleepers *sleepers,
                      guint          n)
{
  int release[2];
  int report[2];
  pid_t pid;
  GPid sleeper;

  g_assert (pipe2 (release, O_CLOEXEC) == 0);
  g_assert (pipe2 (report, O_CLOEXEC) == 0);

  pid = fork ();
  g_assert (pid >= 0);
  if (pid == 0)
    run_spawner (n, release[0], report[1]);

  close (release[0]);
  close (report[1]);

  sleepers->spawner = pid;
  sleepers->release_fd = release[1];
  sleepers->pids = g_array_sized_new (FALSE, FALSE, sizeof (GPid), n);
  while (bench_read_all (report[0], &sleeper, sizeof sleeper))
    g_array_append_val (sleepers->pids, sleeper);
  close (report[0]);

  sleepers->group = sleepers->pids->len > 0 ? g_array_index (sleepers->pids, GPid, 0) : 0;

  if (sleepers->pids->len < n)
    {
      g_printerr ("procwatch-bench: only %u of %u sleeping processes could be started\n",
                  sleepers->pids->len, n);
      bench_sleepers_finish (sleepers);
      return FALSE;
    }

  return TRUE;
}

void
bench_sleepers_kill (BenchSleepers *sleepers)
{
  if (sleepers->group > 0)
    kill (-sleepers->group, SIGKILL);
}

void
bench_sleepers_finish (BenchSleepers *sleepers)
{
  /* Killed rather than released: a forked copy of the benchmark may still
   * hold the release pipe open. */
  bench_sleepers_kill (sleepers);
  if (sleepers->release_fd >= 0)
    close (sleepers->release_fd);
  sleepers->release_fd = -1;

  if (sleepers->spawner > 0)
    {
      while (waitpid (sleepers->spawner, NULL, 0) < 0 && errno == EINTR)
        ;
    }
  sleepers->spawner = 0;

  g_clear_pointer (&sleepers->pids, g_array_unref);
}
