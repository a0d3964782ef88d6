/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * seccomp-exec [--no-pidfd-open=ENOSYS|EPERM] [--no-pidfd-get-info] -- PROGRAM [ARGS...]
 *
 * Runs PROGRAM as on an older kernel, through a seccomp filter that PROGRAM
 * and its children inherit. --no-pidfd-open fails pidfd_open() with ENOSYS
 * (as a kernel older than 5.3 does) or EPERM (as container profiles do);
 * --no-pidfd-get-info fails the PIDFD_GET_INFO ioctl with ENOTTY, as a
 * kernel older than 6.13 does.
 */

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif

#define PIDFD_GET_INFO_MASK 0xC000FFFFu
#define PIDFD_GET_INFO_NR   0xC000FF0Bu

int
main (int   argc,
      char *argv[])
{
  unsigned int open_action = SECCOMP_RET_ALLOW;
  unsigned int get_info_action = SECCOMP_RET_ALLOW;
  int i;

  for (i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    {
      if (strcmp (argv[i], "--no-pidfd-open=ENOSYS") == 0)
        open_action = SECCOMP_RET_ERRNO | ENOSYS;
      else if (strcmp (argv[i], "--no-pidfd-open=EPERM") == 0)
        open_action = SECCOMP_RET_ERRNO | EPERM;
      else if (strcmp (argv[i], "--no-pidfd-get-info") == 0)
        get_info_action = SECCOMP_RET_ERRNO | ENOTTY;
      else
        {
          fprintf (stderr, "usage: seccomp-exec [--no-pidfd-open=ENOSYS|EPERM] "
                   "[--no-pidfd-get-info] -- PROGRAM [ARGS...]\n");
          return 2;
        }
    }

  if (i + 1 >= argc)
    {
      fprintf (stderr, "seccomp-exec: no program given\n");
      return 2;
    }

  {
    struct sock_filter filter[] = {
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 1),
      BPF_STMT (BPF_RET | BPF_K, open_action),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 4),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, args[1])),
      BPF_STMT (BPF_ALU | BPF_AND | BPF_K, PIDFD_GET_INFO_MASK),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, PIDFD_GET_INFO_NR, 0, 1),
      BPF_STMT (BPF_RET | BPF_K, get_info_action),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {
      .len = sizeof filter / sizeof filter[0],
      .filter = filter,
    };

    if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
      {
        perror ("seccomp-exec: cannot install the filter");
        return 2;
      }
  }

  execvp (argv[i + 1], argv + i + 1);
  perror ("seccomp-exec: cannot run the program");
  return 127;
}
