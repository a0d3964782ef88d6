/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-bench-sleepers N: the crowd of the scale row (bench/run
 * --scale). Forks N processes that sleep in pause(), all in the process
 * group of the first, writes their pids on fd 4 and then reaps each as soon
 * as it dies, so that one kill (-group, SIGKILL) ends them all while the
 * parent lives on to reap. No GLib and, where the toolchain allows, linked
 * statically: a sleeper forked from here copies a handful of page tables and
 * dirties one stack page, where one forked from procwatch-bench copies
 * those of every mapped library. With PROCWATCH_BENCH_CGROUP set, the
 * parent first moves into that cgroup v2 directory, and every sleeper is
 * born there, as the processes of one app scope are.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* At most PIPE_BUF bytes (a batch of 1,024 pids is 4,096) to a blocking
 * pipe, with no signal handler to interrupt it: written whole, or not. */
static void
report (const pid_t *pids,
        size_t       n_pids)
{
  if (write (4, pids, n_pids * sizeof *pids) != (ssize_t) (n_pids * sizeof *pids))
    _exit (101);
}

static void
enter_cgroup (const char *dir)
{
  char path[4096];
  int fd;

  snprintf (path, sizeof path, "%s/cgroup.procs", dir);
  fd = open (path, O_WRONLY | O_CLOEXEC);
  if (fd < 0 || write (fd, "0", 1) != 1)
    _exit (103);
  close (fd);
}

int
main (int    argc,
      char **argv)
{
  long n = argc > 1 ? strtol (argv[1], NULL, 10) : 0;
  const char *cgroup = getenv ("PROCWATCH_BENCH_CGROUP");
  struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
  pid_t batch[1024];
  size_t batched = 0;
  pid_t group = 0;
  long i;

  prctl (PR_SET_PDEATHSIG, SIGKILL);
  /* As root: RLIMIT_NPROC (96,362 here) would stop the crowd short. */
  setrlimit (RLIMIT_NPROC, &unlimited);
  if (cgroup != NULL)
    enter_cgroup (cgroup);

  for (i = 0; i < n; i++)
    {
      pid_t pid = fork ();

      if (pid < 0)
        break;

      if (pid == 0)
        {
          prctl (PR_SET_PDEATHSIG, SIGKILL);
          setpgid (0, group);
          close (4);
          for (;;)
            pause ();
        }

      /* Both sides set the group: whichever runs first wins the race. */
      setpgid (pid, group != 0 ? group : pid);
      if (group == 0)
        group = pid;

      batch[batched++] = pid;
      if (batched == sizeof batch / sizeof batch[0])
        {
          report (batch, batched);
          batched = 0;
        }
    }

  report (batch, batched);
  close (4);
  close (3);

  for (;;)
    {
      if (waitpid (-1, NULL, 0) < 0 && errno != EINTR)
        break;
    }

  return 0;
}
