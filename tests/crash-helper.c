/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-crash-helper segv|abort core|no-core DIR [--non-child]: a
 * process that crashes for real when told to, for the core dump tests.
 *
 * It sets its own RLIMIT_CORE (raised to the hard limit, or 0), moves into
 * DIR, where a `core_pattern` of `core` makes the kernel write the dump,
 * prints its pid on stdout once it is ready, and crashes when it gets
 * SIGUSR1. With --non-child the process the caller started forks the one
 * that crashes, so that the caller's monitor sees a non-child; it reaps
 * that one when its stdin ends (or a line arrives), then exits 0.
 *
 * It is built without sanitizers and linked with nothing of the library:
 * AddressSanitizer would turn its SIGSEGV into exit 1 and set RLIMIT_CORE
 * to 0, and valgrind would write a vgcore of its own. Where the runtime is
 * preloaded anyway, it takes back the default actions and its limit.
 */

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static void
die (const char *what)
{
  fprintf (stderr, "procwatch-crash-helper: %s: %s\n", what, strerror (errno));
  _exit (125);
}

static void
crash (const char *how)
{
  volatile char *page;

  if (strcmp (how, "abort") == 0)
    abort ();

  /* A store to a page that is mapped but not writable: a real fault, which
   * the compiler cannot turn into a trap instruction as it may a store
   * through NULL. */
  page = mmap (NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

  if (page == MAP_FAILED)
    die ("mmap");
  page[0] = 1;
  _exit (124);
}

/* Ready: SIGUSR1 is blocked and will be taken with sigwait (), so one sent
 * as soon as the pid is printed is not lost. */
static void
run_crasher (const char *how,
             int         core_limit_raised)
{
  struct rlimit limit;
  sigset_t set;
  int sig;

  /* The kernel's default action, whatever was preloaded: the sanitizer
   * runtime that the interpreter tests preload into everything they start
   * catches SIGSEGV and exits. */
  if (signal (SIGSEGV, SIG_DFL) == SIG_ERR || signal (SIGABRT, SIG_DFL) == SIG_ERR)
    die ("signal");

  if (getrlimit (RLIMIT_CORE, &limit) != 0)
    die ("getrlimit");
  limit.rlim_cur = core_limit_raised ? limit.rlim_max : 0;
  if (setrlimit (RLIMIT_CORE, &limit) != 0)
    die ("setrlimit");

  sigemptyset (&set);
  sigaddset (&set, SIGUSR1);
  if (sigprocmask (SIG_BLOCK, &set, NULL) != 0)
    die ("sigprocmask");

  printf ("%d\n", (int) getpid ());
  if (fflush (stdout) != 0)
    die ("stdout");

  if (sigwait (&set, &sig) != 0)
    die ("sigwait");

  crash (how);
}

int
main (int    argc,
      char **argv)
{
  int core_limit_raised;
  pid_t crasher;
  char line[16];

  if (argc < 4 || argc > 5 ||
      (strcmp (argv[1], "segv") != 0 && strcmp (argv[1], "abort") != 0) ||
      (strcmp (argv[2], "core") != 0 && strcmp (argv[2], "no-core") != 0) ||
      (argc == 5 && strcmp (argv[4], "--non-child") != 0))
    {
      fprintf (stderr, "usage: %s segv|abort core|no-core DIR [--non-child]\n", argv[0]);
      return 2;
    }

  core_limit_raised = strcmp (argv[2], "core") == 0;
  if (chdir (argv[3]) != 0)
    die ("chdir");

  if (argc == 4)
    {
      run_crasher (argv[1], core_limit_raised);
      return 124;
    }

  crasher = fork ();
  if (crasher < 0)
    die ("fork");
  if (crasher == 0)
    {
      run_crasher (argv[1], core_limit_raised);
      _exit (124);
    }

  /* The caller decides when the crashed process is reaped. */
  if (fgets (line, sizeof line, stdin) == NULL && ferror (stdin))
    die ("stdin");
  while (waitpid (crasher, NULL, 0) < 0)
    {
      if (errno != EINTR)
        die ("waitpid");
    }

  return 0;
}
