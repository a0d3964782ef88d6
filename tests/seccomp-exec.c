/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * seccomp-exec [--no-pidfd-open=ENOSYS|EPERM] [--no-pidfd-thread] [--no-pidfd-get-info]
 *              [--no-peer-pidfd] -- PROGRAM [ARGS...]
 *
 * Runs PROGRAM as on an older kernel, through a seccomp filter that PROGRAM
 * and its children inherit. --no-pidfd-open fails pidfd_open() with ENOSYS
 * (as a kernel older than 5.3 does) or EPERM (as container profiles do);
 * --no-pidfd-thread fails only pidfd_open() with the PIDFD_THREAD flag, with
 * EINVAL, as a kernel older than 6.9 fails a flag it does not know;
 * --no-pidfd-get-info fails the PIDFD_GET_INFO ioctl with ENOTTY, as a
 * kernel older than 6.13 does; --no-peer-pidfd fails getsockopt() of
 * SO_PEERPIDFD with ENOPROTOOPT, as a kernel older than 6.5 does.
 */

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "procwatch-linux-private.h"

/* The ioctl's direction, type and number; the size bits vary with the
 * version of the struct a caller passes. */
#define PIDFD_GET_INFO_MASK 0xC000FFFFu
#define PIDFD_GET_INFO_NR   (PROCWATCH_PIDFD_GET_INFO & PIDFD_GET_INFO_MASK)

/* The low 32 bits of a 64-bit argument, all a classic BPF load can see. */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
# define ARG_LOW(n) (offsetof (struct seccomp_data, args[n]) + 4)
#else
# define ARG_LOW(n) offsetof (struct seccomp_data, args[n])
#endif

/* The filter compares system call numbers, which are per architecture: it
 * acts only on calls made with the ABI this program was built for. */
#if defined(__x86_64__) && !defined(__ILP32__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__i386__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_I386
#elif defined(__aarch64__) && defined(__AARCH64EB__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64BE
#elif defined(__aarch64__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_AARCH64
#elif defined(__arm__) && defined(__ARMEB__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_ARMEB
#elif defined(__arm__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_ARM
#elif defined(__powerpc64__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_PPC64LE
#elif defined(__powerpc64__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_PPC64
#elif defined(__s390x__)
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_S390X
#elif defined(__riscv) && __riscv_xlen == 64
# define NATIVE_AUDIT_ARCH AUDIT_ARCH_RISCV64
#endif

int
main (int   argc,
      char *argv[])
{
  unsigned int open_action = SECCOMP_RET_ALLOW;
  unsigned int get_info_action = SECCOMP_RET_ALLOW;
  unsigned int peer_pidfd_action = SECCOMP_RET_ALLOW;
  unsigned int thread_action;
  int no_thread = 0;
  int i;

  for (i = 1; i < argc && strcmp (argv[i], "--") != 0; i++)
    {
      if (strcmp (argv[i], "--no-pidfd-open=ENOSYS") == 0)
        open_action = SECCOMP_RET_ERRNO | ENOSYS;
      else if (strcmp (argv[i], "--no-pidfd-open=EPERM") == 0)
        open_action = SECCOMP_RET_ERRNO | EPERM;
      else if (strcmp (argv[i], "--no-pidfd-thread") == 0)
        no_thread = 1;
      else if (strcmp (argv[i], "--no-pidfd-get-info") == 0)
        get_info_action = SECCOMP_RET_ERRNO | ENOTTY;
      else if (strcmp (argv[i], "--no-peer-pidfd") == 0)
        peer_pidfd_action = SECCOMP_RET_ERRNO | ENOPROTOOPT;
      else
        {
          fprintf (stderr, "usage: seccomp-exec [--no-pidfd-open=ENOSYS|EPERM] "
                   "[--no-pidfd-thread] [--no-pidfd-get-info] [--no-peer-pidfd] "
                   "-- PROGRAM [ARGS...]\n");
          return 2;
        }
    }

  /* A kernel without pidfd_open() has no thread pidfds either. */
  thread_action = no_thread ? SECCOMP_RET_ERRNO | EINVAL : open_action;

  if (i + 1 >= argc)
    {
      fprintf (stderr, "seccomp-exec: no program given\n");
      return 2;
    }

#ifndef NATIVE_AUDIT_ARCH
  /* The wrapped tests speak TAP: one line makes them a skip, not a failure. */
  printf ("1..0 # SKIP seccomp-exec does not know this architecture's audit value\n");
  return 0;
#else
  {
    struct sock_filter filter[] = {
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, arch)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, NATIVE_AUDIT_ARCH, 1, 0),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 4),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG_LOW (1)),
      BPF_JUMP (BPF_JMP | BPF_JSET | BPF_K, PIDFD_THREAD, 0, 1),
      BPF_STMT (BPF_RET | BPF_K, thread_action),
      BPF_STMT (BPF_RET | BPF_K, open_action),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_ioctl, 0, 4),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG_LOW (1)),
      BPF_STMT (BPF_ALU | BPF_AND | BPF_K, PIDFD_GET_INFO_MASK),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, PIDFD_GET_INFO_NR, 0, 1),
      BPF_STMT (BPF_RET | BPF_K, get_info_action),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, offsetof (struct seccomp_data, nr)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SYS_getsockopt, 0, 5),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG_LOW (1)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SOL_SOCKET, 0, 3),
      BPF_STMT (BPF_LD | BPF_W | BPF_ABS, ARG_LOW (2)),
      BPF_JUMP (BPF_JMP | BPF_JEQ | BPF_K, SO_PEERPIDFD, 0, 1),
      BPF_STMT (BPF_RET | BPF_K, peer_pidfd_action),
      BPF_STMT (BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = {
      .len = sizeof filter / sizeof filter[0],
      .filter = filter,
    };

    if (prctl (PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl (PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) != 0)
      {
        /* A kernel without CONFIG_SECCOMP_FILTER cannot pretend. */
        printf ("1..0 # SKIP seccomp-exec cannot install a filter: %s\n", strerror (errno));
        return 0;
      }
  }

  execvp (argv[i + 1], argv + i + 1);
  perror ("seccomp-exec: cannot run the program");
  return 127;
#endif
}
