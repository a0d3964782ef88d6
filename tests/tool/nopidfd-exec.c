/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * nopidfd-exec ENOSYS|EPERM COMMAND [ARG...]: runs COMMAND as on a kernel
 * (or in a container) without pidfd_open(): a seccomp filter makes the call
 * fail with the given error. The filter is inherited by COMMAND's children.
 */

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#define NR_PIDFD_OPEN 434   /* the same number on every architecture */

int
main (int   argc,
      char *argv[])
{
  struct sock_filter filter[] = {
#if defined(__x86_64__)
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
#endif
    BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
    BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NR_PIDFD_OPEN, 0, 1),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
  };
  struct sock_fprog program = { sizeof filter / sizeof filter[0], filter };
  struct sock_filter *errno_return = &filter[sizeof filter / sizeof filter[0] - 2];

  if (argc < 3 || (strcmp (argv[1], "ENOSYS") != 0 && strcmp (argv[1], "EPERM") != 0))
    {
      fprintf (stderr, "usage: nopidfd-exec ENOSYS|EPERM COMMAND [ARG...]\n");
      return 2;
    }

  if (strcmp (argv[1], "EPERM") == 0)
    errno_return->k = SECCOMP_RET_ERRNO | EPERM;

  if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
      prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
    {
      perror ("nopidfd-exec: seccomp");
      return 2;
    }

  execvp (argv[2], argv + 2);
  perror ("nopidfd-exec: exec");
  return 127;
}
