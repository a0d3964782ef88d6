/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Preloaded into procwatch-bench under valgrind 3.19, which knows neither
 * pidfd_open nor clone3. The library's backend probe opens a pidfd of its
 * own process: that one was opened before valgrind started and is handed
 * over in PROCWATCH_BENCH_SELF_PIDFD; a child's, in callgrind's child mode,
 * in PROCWATCH_BENCH_CHILD_PIDFD. clone3 is refused as on kernels that
 * filter it, so that the probe falls back to asking pidfs.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif
#ifndef SYS_clone3
# define SYS_clone3 435
#endif

long syscall (long number, ...);

long
syscall (long number,
         ...)
{
  static long (*real_syscall) (long, ...);
  long args[6];
  va_list ap;
  int i;

  /* As glibc's own syscall() does: six arguments, whatever was passed. */
  va_start (ap, number);
  for (i = 0; i < 6; i++)
    args[i] = va_arg (ap, long);
  va_end (ap);

  if (number == SYS_clone3)
    {
      errno = ENOSYS;
      return -1;
    }

  if (number == SYS_pidfd_open && (pid_t) args[0] == getpid () && args[1] == 0)
    {
      const char *self_fd = getenv ("PROCWATCH_BENCH_SELF_PIDFD");

      if (self_fd != NULL)
        return fcntl (atoi (self_fd), F_DUPFD_CLOEXEC, 3);
    }

  /* "PID:FD": the pidfd of a child, opened by the process outside valgrind
   * (callgrind mode child), for g_child_watch_add's pidfd_open. */
  if (number == SYS_pidfd_open && args[1] == 0)
    {
      const char *child = getenv ("PROCWATCH_BENCH_CHILD_PIDFD");
      char *end = NULL;

      if (child != NULL && strtol (child, &end, 10) == args[0] && *end == ':')
        return fcntl (atoi (end + 1), F_DUPFD_CLOEXEC, 3);
    }

  if (real_syscall == NULL)
    real_syscall = (long (*) (long, ...)) dlsym (RTLD_NEXT, "syscall");

  return real_syscall (number, args[0], args[1], args[2], args[3], args[4], args[5]);
}
