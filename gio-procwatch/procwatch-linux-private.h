/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Kernel interfaces newer than the C library headers we build against
 * (Debian 12 ships headers from Linux 6.1). <linux/pidfd.h> cannot be
 * included next to glibc's <fcntl.h>, so the few definitions we need live
 * here, once, each guarded so that newer headers win. The library, tools/
 * and tests/ all include this header: it needs nothing but system headers.
 */

#pragma once

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

/* System call numbers: the C library's SYS_* first, the kernel headers'
 * __NR_* next, and only then our own. New system calls have had one number
 * on every architecture since Linux 5.1, except that alpha counts from 110
 * further on and that each ABI of mips and ia64 adds its own base (o32
 * 4000, n64 5000, n32 6000; ia64 1024; x32 its syscall bit). Checked
 * against the kernel's syscall.tbl files. */
#if defined(__alpha__)
# define PROCWATCH_NR_OFFSET 110
/* The compiler defines _MIPS_SIM as one of _ABIO32, _ABI64 and _ABIN32. */
#elif defined(__mips__) && _MIPS_SIM == _ABIO32
# define PROCWATCH_NR_OFFSET 4000
#elif defined(__mips__) && _MIPS_SIM == _ABI64
# define PROCWATCH_NR_OFFSET 5000
#elif defined(__mips__) && _MIPS_SIM == _ABIN32
# define PROCWATCH_NR_OFFSET 6000
#elif defined(__ia64__)
# define PROCWATCH_NR_OFFSET 1024
#elif defined(__x86_64__) && defined(__ILP32__)
# define PROCWATCH_NR_OFFSET 0x40000000
#elif defined(__mips__)
# error "unknown mips ABI: cannot tell the numbers of pidfd_open and pidfd_send_signal"
#else
# define PROCWATCH_NR_OFFSET 0
#endif

#ifndef SYS_pidfd_open
# ifdef __NR_pidfd_open
#  define SYS_pidfd_open __NR_pidfd_open
# else
#  define SYS_pidfd_open (PROCWATCH_NR_OFFSET + 434)
# endif
#endif

#ifndef SYS_pidfd_send_signal
# ifdef __NR_pidfd_send_signal
#  define SYS_pidfd_send_signal __NR_pidfd_send_signal
# else
#  define SYS_pidfd_send_signal (PROCWATCH_NR_OFFSET + 424)
# endif
#endif

/* getsockopt() option for a pidfd of a unix socket's peer (Linux 6.5).
 * Its number is 77 in asm-generic/socket.h and in alpha's and mips' own
 * socket.h; parisc and sparc number their socket options apart (checked
 * against the kernel's arch/{alpha,mips,parisc,sparc}/include/uapi/asm/
 * socket.h). */
#ifndef SO_PEERPIDFD
# if defined(__hppa__)
#  define SO_PEERPIDFD 0x404B
# elif defined(__sparc__)
#  define SO_PEERPIDFD 0x0056
# else
#  define SO_PEERPIDFD 77
# endif
#endif

#ifndef P_PIDFD
# define P_PIDFD 3
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
 * status of a reaped process; PIDFD_INFO_COREDUMP (Linux 6.16) how a core
 * dump went, in @coredump_mask; PIDFD_INFO_SUPPORTED_MASK (Linux 6.19)
 * which of these bits the kernel knows. The kernel takes any size from
 * the first, 64-byte version of the struct on, copies what both sides know
 * and zero-fills the rest of ours; what we hand in must be zero past the
 * mask. */
#ifndef PIDFD_INFO_PID
# define PIDFD_INFO_PID      (1ULL << 0)
#endif
/* The id of the process's cgroup v2 (Linux 6.13, with PIDFD_GET_INFO):
 * the inode number of its directory, never reused for the boot. */
#ifndef PIDFD_INFO_CGROUPID
# define PIDFD_INFO_CGROUPID (1ULL << 2)
#endif
#ifndef PIDFD_INFO_EXIT
# define PIDFD_INFO_EXIT     (1ULL << 3)
#endif
#ifndef PIDFD_INFO_COREDUMP
# define PIDFD_INFO_COREDUMP (1ULL << 4)
#endif
#ifndef PIDFD_INFO_SUPPORTED_MASK
# define PIDFD_INFO_SUPPORTED_MASK (1ULL << 5)
#endif

/* Bits of @coredump_mask (Linux 6.16), valid when the reply's mask has
 * PIDFD_INFO_COREDUMP. */
#ifndef PIDFD_COREDUMPED
# define PIDFD_COREDUMPED    (1U << 0)
#endif
#ifndef PIDFD_COREDUMP_SKIP
# define PIDFD_COREDUMP_SKIP (1U << 1)
#endif
#ifndef PIDFD_COREDUMP_USER
# define PIDFD_COREDUMP_USER (1U << 2)
#endif
#ifndef PIDFD_COREDUMP_ROOT
# define PIDFD_COREDUMP_ROOT (1U << 3)
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
  /* Linux 6.16 (PIDFD_INFO_SIZE_VER1). */
  uint32_t coredump_mask;
  uint32_t coredump_signal;
  /* Linux 6.19 (PIDFD_INFO_SIZE_VER2). */
  uint64_t supported_mask;
};

_Static_assert (sizeof (struct procwatch_pidfd_info) == 80, "PIDFD_INFO_SIZE_VER2");

#define PROCWATCH_PIDFD_GET_INFO _IOWR (0xFF, 11, struct procwatch_pidfd_info)

/* The mount fd that open_by_handle_at () takes for a pidfs file handle
 * without a pidfs mount at hand (Linux 6.17); before, a pidfd serves. */
#ifndef FD_PIDFS_ROOT
# define FD_PIDFS_ROOT (-10002)
#endif

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
