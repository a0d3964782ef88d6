/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Kernel interfaces newer than the C library headers we build against
 * (Debian 12 ships headers from Linux 6.1). <linux/pidfd.h> cannot be
 * included next to glibc's <fcntl.h>, so the few definitions we need live
 * here, each guarded so that newer headers win.
 */

#pragma once

#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
# define SYS_pidfd_open 434
#endif

#ifndef SYS_pidfd_send_signal
# define SYS_pidfd_send_signal 424
#endif

#ifndef SYS_clone3
# define SYS_clone3 435
#endif

#ifndef P_PIDFD
# define P_PIDFD 3
#endif

#ifndef CLONE_PIDFD
# define CLONE_PIDFD 0x00001000
#endif

/* pidfd_open() flag for a pidfd that refers to one thread (Linux 6.9). */
#ifndef PIDFD_THREAD
# define PIDFD_THREAD O_EXCL
#endif

/* statfs() magic of pidfs, the filesystem of pidfds since Linux 6.9. */
#ifndef PIDFS_MAGIC
# define PIDFS_MAGIC 0x50494446
#endif

/* PIDFD_GET_INFO (Linux 6.13); PIDFD_INFO_EXIT (Linux 6.15) reports the wait
 * status of a reaped process. Only the first, 64-byte version of the struct
 * is used: the kernel accepts any size from that on. */
#ifndef PIDFD_INFO_PID
# define PIDFD_INFO_PID      (1ULL << 0)
#endif
#ifndef PIDFD_INFO_EXIT
# define PIDFD_INFO_EXIT     (1ULL << 3)
#endif

struct procwatch_pidfd_info
{
  uint64_t mask;
  uint64_t cgroupid;
  uint32_t pid;
  uint32_t tgid;
  uint32_t ppid;
  uint32_t ruid;
  uint32_t rgid;
  uint32_t euid;
  uint32_t egid;
  uint32_t suid;
  uint32_t sgid;
  uint32_t fsuid;
  uint32_t fsgid;
  int32_t exit_code;
};

_Static_assert (sizeof (struct procwatch_pidfd_info) == 64, "PIDFD_INFO_SIZE_VER0");

#define PROCWATCH_PIDFD_GET_INFO _IOWR (0xFF, 11, struct procwatch_pidfd_info)

/* The first version of struct clone_args (Linux 5.3). */
struct procwatch_clone_args
{
  uint64_t flags;
  uint64_t pidfd;
  uint64_t child_tid;
  uint64_t parent_tid;
  uint64_t exit_signal;
  uint64_t stack;
  uint64_t stack_size;
  uint64_t tls;
};

static inline int
procwatch_pidfd_open (pid_t        pid,
                      unsigned int flags)
{
  return (int) syscall (SYS_pidfd_open, pid, flags);
}

static inline int
procwatch_pidfd_send_signal (int          pidfd,
                             int          sig,
                             siginfo_t   *info,
                             unsigned int flags)
{
  return (int) syscall (SYS_pidfd_send_signal, pidfd, sig, info, flags);
}
