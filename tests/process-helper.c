/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch-test-helper: real processes that the Python and GJS tests
 * control through pipes, one line per command.
 *
 *   child          is itself the target: reads commands on stdin.
 *   child-ready    the same, once it has printed its pid: read that line,
 *                  and the exec is over (its name is the helper's).
 *   parent         forks a target and prints its pid; the test is then only
 *                  the grandparent. Commands on stdin go to the target, but
 *                  "reap" makes this parent reap it and print the wait status.
 *                  On EOF it kills and reaps the target, then exits.
 *   send-pidfd NAME PID
 *                  sends a pidfd of PID over the abstract unix socket NAME,
 *                  as a service would hand one to a client.
 *   pid-namespace COMMAND [ARG...]
 *                  runs COMMAND as pid 2 of a new pid namespace with a /proc
 *                  of its own (pid 1 reaps orphans), where a test can force
 *                  pid reuse through ns_last_pid; exits with its status.
 *                  Exits 77, saying why on stderr, where the namespace
 *                  cannot be made (a container, a chroot, no privilege).
 *
 * Target commands: "exit N" exits with code N; "kill N" raises signal N.
 */

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "procwatch-linux-private.h"

static int
usage (void)
{
  fprintf (stderr, "usage: procwatch-test-helper child | child-ready | parent | send-pidfd NAME PID | "
                   "pid-namespace COMMAND [ARG...]\n");
  return 2;
}

/* Obeys "exit N" and "kill N" from @in; exits 0 on EOF. */
static void
run_target (FILE *in)
{
  char line[64];
  int value;

  while (fgets (line, sizeof line, in) != NULL)
    {
      if (sscanf (line, "exit %d", &value) == 1)
        _exit (value);
      if (sscanf (line, "kill %d", &value) == 1)
        {
          signal (value, SIG_DFL);
          raise (value);
        }
    }

  _exit (0);
}

static int
run_parent (void)
{
  pid_t parent = getpid ();
  int control[2];
  FILE *to_target;
  char line[64];
  pid_t target;
  int status;

  if (pipe (control) < 0)
    return 1;

  target = fork ();
  if (target < 0)
    return 1;

  if (target == 0)
    {
      FILE *in;

      /* Never outlive the test, even if it is killed. */
      prctl (PR_SET_PDEATHSIG, SIGKILL);
      if (getppid () != parent)
        _exit (1);

      /* Off the test's pipes: only the control pipe leads here. */
      close (control[1]);
      dup2 (open ("/dev/null", O_RDWR), STDIN_FILENO);
      dup2 (STDIN_FILENO, STDOUT_FILENO);
      in = fdopen (control[0], "r");
      if (in == NULL)
        _exit (1);
      run_target (in);
    }

  close (control[0]);
  to_target = fdopen (control[1], "w");
  if (to_target == NULL)
    return 1;

  printf ("%d\n", (int) target);
  fflush (stdout);

  while (fgets (line, sizeof line, stdin) != NULL)
    {
      if (strcmp (line, "reap\n") == 0)
        {
          while (waitpid (target, &status, 0) < 0)
            if (errno != EINTR)
              return 1;

          printf ("%d\n", status);
          fflush (stdout);
          target = 0;
        }
      else if (target > 0)
        {
          fputs (line, to_target);
          fflush (to_target);
        }
    }

  if (target > 0)
    {
      kill (target, SIGKILL);
      waitpid (target, NULL, 0);
    }

  return 0;
}

static int
send_pidfd (const char *name,
            pid_t       pid)
{
  struct sockaddr_un address = { .sun_family = AF_UNIX };
  union {
    struct cmsghdr header;
    char buffer[CMSG_SPACE (sizeof (int))];
  } control;
  char byte = 0;
  struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
  struct msghdr message = {
    .msg_iov = &iov,
    .msg_iovlen = 1,
    .msg_control = control.buffer,
    .msg_controllen = sizeof control.buffer,
  };
  struct cmsghdr *cmsg;
  socklen_t length;
  int pidfd;
  int sock;

  pidfd = procwatch_pidfd_open (pid, 0);
  if (pidfd < 0)
    {
      perror ("pidfd_open");
      return 1;
    }

  /* Abstract address: a leading NUL, no terminating one. */
  if (strlen (name) + 1 > sizeof address.sun_path)
    return usage ();
  memcpy (address.sun_path + 1, name, strlen (name));
  length = offsetof (struct sockaddr_un, sun_path) + 1 + strlen (name);

  sock = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (sock < 0 || connect (sock, (struct sockaddr *) &address, length) < 0)
    {
      perror ("connect");
      return 1;
    }

  memset (&control, 0, sizeof control);
  cmsg = CMSG_FIRSTHDR (&message);
  cmsg->cmsg_level = SOL_SOCKET;
  cmsg->cmsg_type = SCM_RIGHTS;
  cmsg->cmsg_len = CMSG_LEN (sizeof (int));
  memcpy (CMSG_DATA (cmsg), &pidfd, sizeof (int));

  if (sendmsg (sock, &message, 0) != 1)
    {
      perror ("sendmsg");
      return 1;
    }

  close (sock);
  close (pidfd);
  return 0;
}

/* Exit status for "cannot be tested here", as automake's SKIP. */
#define EXIT_SKIP 77

static int
skip (const char *what)
{
  fprintf (stderr, "%s: %s\n", what, strerror (errno));
  return EXIT_SKIP;
}

static int
write_file (const char *path,
            const char *text)
{
  int fd = open (path, O_WRONLY | O_CLOEXEC);
  ssize_t written;

  if (fd < 0)
    return -1;
  written = write (fd, text, strlen (text));
  close (fd);
  return written == (ssize_t) strlen (text) ? 0 : -1;
}

/* Root, or the caller mapped to root in a new user namespace. */
static int
unshare_as_root (int flags)
{
  char map[64];

  if (geteuid () == 0)
    return unshare (flags);

  if (unshare (CLONE_NEWUSER | flags) != 0)
    return -1;

  snprintf (map, sizeof map, "0 %u 1", (unsigned int) geteuid ());
  if (write_file ("/proc/self/uid_map", map) != 0 ||
      write_file ("/proc/self/setgroups", "deny") != 0)
    return -1;
  snprintf (map, sizeof map, "0 %u 1", (unsigned int) getegid ());
  return write_file ("/proc/self/gid_map", map);
}

/* Waits for @pid, reaping any other process on the way; returns its exit
 * status as a shell reports it. */
static int
reap_until (pid_t pid)
{
  pid_t reaped;
  int status;

  do
    reaped = wait (&status);
  while (reaped != pid && (reaped >= 0 || errno == EINTR));

  if (reaped < 0)
    return 1;
  return WIFEXITED (status) ? WEXITSTATUS (status) : 128 + WTERMSIG (status);
}

static int
run_in_pid_namespace (char *argv[])
{
  pid_t init;
  pid_t runner;
  int status;

  if (unshare_as_root (CLONE_NEWPID | CLONE_NEWNS) != 0)
    return skip ("unshare");

  init = fork ();
  if (init < 0)
    return skip ("starting a process in the new pid namespace");

  if (init > 0)
    return reap_until (init);

  /* pid 1: killing it ends the whole namespace, so nothing outlives a
   * killed test. */
  prctl (PR_SET_PDEATHSIG, SIGKILL);

  /* A /proc of this namespace. Only /proc is made private: in a
   * plain chroot "/" is no mount point, which MS_PRIVATE refuses. */
  if (mount ("none", "/proc", "none", MS_REC | MS_PRIVATE, NULL) != 0)
    _exit (skip ("making /proc private"));
  if (mount ("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) != 0)
    _exit (skip ("mounting /proc"));

  runner = fork ();
  if (runner < 0)
    _exit (1);
  if (runner == 0)
    {
      execvp (argv[0], argv);
      perror (argv[0]);
      _exit (127);
    }

  status = reap_until (runner);
  _exit (status);
}

int
main (int   argc,
      char *argv[])
{
  if (argc == 2 && strcmp (argv[1], "child") == 0)
    run_target (stdin);

  if (argc == 2 && strcmp (argv[1], "child-ready") == 0)
    {
      printf ("%d\n", (int) getpid ());
      fflush (stdout);
      run_target (stdin);
    }

  if (argc == 2 && strcmp (argv[1], "parent") == 0)
    return run_parent ();

  if (argc == 4 && strcmp (argv[1], "send-pidfd") == 0)
    return send_pidfd (argv[2], (pid_t) atoi (argv[3]));

  if (argc >= 3 && strcmp (argv[1], "pid-namespace") == 0)
    return run_in_pid_namespace (argv + 2);

  return usage ();
}
