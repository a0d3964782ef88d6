/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "procwatch-bench-procs.h"
#include "procwatch-io.h"

extern char **environ;

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif

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
bench_raise_fd_limit (void)
{
  struct rlimit limit;

  if (getrlimit (RLIMIT_NOFILE, &limit) == 0 && limit.rlim_cur < limit.rlim_max)
    {
      limit.rlim_cur = limit.rlim_max;
      setrlimit (RLIMIT_NOFILE, &limit);
    }
}

static void
die_with_parent (void)
{
  prctl (PR_SET_PDEATHSIG, SIGKILL);
}

/* Processes are started with posix_spawn (vfork and exec of this program),
 * never by forking the benchmark: a fork write-protects every page of the
 * watcher, which then pays a page fault on each first write after it — more
 * for a peer that touches more memory, which is not what is measured. */
static GPid
spawn_self (const char *role,
            int         fd3,
            int         fd4,
            const char *argument)
{
  const char *argv[] = { "procwatch-bench", role, argument, NULL };
  posix_spawn_file_actions_t actions;
  pid_t pid = -1;
  int error;

  posix_spawn_file_actions_init (&actions);
  posix_spawn_file_actions_adddup2 (&actions, fd3, 3);
  posix_spawn_file_actions_adddup2 (&actions, fd4, 4);
  error = posix_spawn (&pid, "/proc/self/exe", &actions, NULL, (char **) argv, environ);
  posix_spawn_file_actions_destroy (&actions);

  if (error != 0)
    g_error ("procwatch-bench: cannot start a %s: %s", role, g_strerror (error));

  return pid;
}

/* "spawner": forks @n sleepers in one process group, reports their pids on
 * fd 4 and reaps each as soon as it dies. The sleepers wait on fd 3. */
G_GNUC_NORETURN static void
run_spawner (guint n)
{
  pid_t group = 0;
  guint i;

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
          close (4);
          while (read (3, &byte, 1) < 0 && errno == EINTR)
            ;
          _exit (0);
        }

      /* Both sides set the group: whichever runs first wins the race. */
      setpgid (pid, group != 0 ? group : pid);
      if (group == 0)
        group = pid;
      io_write_all (4, &pid, sizeof pid);
    }

  close (4);
  close (3);

  for (;;)
    {
      if (waitpid (-1, NULL, 0) < 0 && errno != EINTR)
        break;
    }

  _exit (0);
}

G_GNUC_NORETURN static void
run_target (void)
{
  pid_t pid = getpid ();
  gint64 stamp;
  char command;

  io_write_all (4, &pid, sizeof pid);
  if (!io_read_all (3, &command, 1))
    _exit (1);

  stamp = bench_now_ns ();
  io_write_all (4, &stamp, sizeof stamp);
  _exit (0);
}

/* "target": fd 3 brings the exit command; the pid and then the time just
 * before _exit() go out on fd 4. "target-parent": the same through a child
 * of its own, which it reaps as soon as it has exited. */
int
bench_run_role (const char *role,
                const char *argument)
{
  pid_t target;

  die_with_parent ();

  if (g_str_equal (role, "target"))
    run_target ();

  if (g_str_equal (role, "spawner"))
    run_spawner ((guint) g_ascii_strtoull (argument, NULL, 10));

  target = fork ();
  if (target < 0)
    _exit (102);
  if (target == 0)
    {
      die_with_parent ();
      run_target ();
    }

  close (3);
  close (4);
  while (waitpid (target, NULL, 0) < 0 && errno == EINTR)
    ;
  _exit (0);
}

void
bench_target_spawn (BenchTarget *target,
                    gboolean     child)
{
  int control[2];
  int report[2];

  g_assert (pipe2 (control, O_CLOEXEC) == 0);
  g_assert (pipe2 (report, O_CLOEXEC) == 0);

  target->reaped = FALSE;
  target->exit_ns = 0;
  target->parent = spawn_self (child ? "target" : "target-parent", control[0], report[1], NULL);
  close (control[0]);
  close (report[1]);

  g_assert (io_read_all (report[0], &target->pid, sizeof target->pid));
  if (child)
    target->parent = 0;

  target->control_fd = control[1];
  target->report_fd = report[0];
}

void
bench_target_trigger (BenchTarget *target)
{
  io_write_all (target->control_fd, "x", 1);
}

void
bench_target_finish (BenchTarget *target)
{
  GPid pid = target->parent != 0 ? target->parent : target->pid;

  if (!io_read_all (target->report_fd, &target->exit_ns, sizeof target->exit_ns))
    target->exit_ns = 0;

  close (target->control_fd);
  close (target->report_fd);
  target->control_fd = -1;
  target->report_fd = -1;

  if (target->parent == 0 && target->reaped)
    return;

  while (waitpid (pid, NULL, 0) < 0 && errno == EINTR)
    ;
}

/* Starts @program (NULL: the "spawner" role of this program) with the
 * count as its argument, the release pipe on fd 3 and the report pipe on
 * fd 4, and collects the pids it reports. */
static gboolean
sleepers_spawn (BenchSleepers *sleepers,
                guint          n,
                const char    *program)
{
  g_autofree char *count = g_strdup_printf ("%u", n);
  int release[2];
  int report[2];
  GPid sleeper;

  g_assert (pipe2 (release, O_CLOEXEC) == 0);
  g_assert (pipe2 (report, O_CLOEXEC) == 0);

  if (program == NULL)
    {
      sleepers->spawner = spawn_self ("spawner", release[0], report[1], count);
    }
  else
    {
      const char *argv[] = { program, count, NULL };
      posix_spawn_file_actions_t actions;
      int error;

      posix_spawn_file_actions_init (&actions);
      posix_spawn_file_actions_adddup2 (&actions, release[0], 3);
      posix_spawn_file_actions_adddup2 (&actions, report[1], 4);
      error = posix_spawn (&sleepers->spawner, program, &actions, NULL, (char **) argv, environ);
      posix_spawn_file_actions_destroy (&actions);
      if (error != 0)
        g_error ("procwatch-bench: cannot start %s: %s", program, g_strerror (error));
    }
  close (release[0]);
  close (report[1]);

  sleepers->release_fd = release[1];
  sleepers->pids = g_array_sized_new (FALSE, FALSE, sizeof (GPid), n);
  while (io_read_all (report[0], &sleeper, sizeof sleeper))
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

gboolean
bench_sleepers_spawn (BenchSleepers *sleepers,
                      guint          n)
{
  return sleepers_spawn (sleepers, n, NULL);
}

gboolean
bench_sleepers_spawn_program (BenchSleepers *sleepers,
                              guint          n,
                              const char    *program)
{
  return sleepers_spawn (sleepers, n, program);
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
