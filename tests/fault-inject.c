/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The interposed calls find the real ones with dlsym (RTLD_NEXT). They run
 * on GLib's own paths too (syscall() carries its futexes), so they use no
 * GLib and take no lock: counters are atomics, settings plain words that a
 * test changes only while no other thread makes these calls.
 */

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "fault-inject.h"
#include "procwatch-linux-private.h"

typedef struct
{
  const char *name;
  guint calls;
  guint failures;
  guint fail_at;      /* absolute call number to fail once, or 0 */
  guint fail_every;   /* or fail each call whose number is a multiple, or 0 */
  guint every_base;
  int error_code;
  FaultHook hook;
  gpointer hook_data;
} Fault;

static Fault faults[FAULT_N_CALLS] = {
  [FAULT_EPOLL_CREATE] = { "epoll_create1" },
  [FAULT_EPOLL_CTL] = { "epoll_ctl" },
  [FAULT_EPOLL_WAIT] = { "epoll_wait" },
  [FAULT_PIDFD_OPEN] = { "pidfd_open" },
  [FAULT_PIDFD_SEND_SIGNAL] = { "pidfd_send_signal" },
  [FAULT_WAITID] = { "waitid" },
  [FAULT_OPENAT] = { "openat" },
};

static __thread gboolean in_hook;
static __thread int hook_pidfd = -1;

static int (*real_epoll_create1) (int);
static int (*real_epoll_ctl) (int, int, int, struct epoll_event *);
static int (*real_epoll_wait) (int, struct epoll_event *, int, int);
static int (*real_waitid) (idtype_t, id_t, siginfo_t *, int);
static int (*real_openat) (int, const char *, int, ...);
static long (*real_syscall) (long, ...);

static void *
find_real (const char *name)
{
  void *symbol = dlsym (RTLD_NEXT, name);

  if (symbol == NULL)
    abort ();

  return symbol;
}

/* Whether this call of @call fails: errno is set then. Runs the hook first. */
static gboolean
should_fail (FaultCall   call,
             const char *path)
{
  Fault *fault = &faults[call];
  guint number = __atomic_add_fetch (&fault->calls, 1, __ATOMIC_SEQ_CST);
  gboolean fail;

  if (fault->hook != NULL && !in_hook)
    {
      FaultHook hook = fault->hook;

      in_hook = TRUE;
      if (!hook (call, path, fault->hook_data))
        fault->hook = NULL;
      in_hook = FALSE;
    }

  fail = (fault->fail_at != 0 && number == fault->fail_at) ||
         (fault->fail_every != 0 && (number - fault->every_base) % fault->fail_every == 0);
  if (!fail)
    return FALSE;

  __atomic_add_fetch (&fault->failures, 1, __ATOMIC_SEQ_CST);
  errno = fault->error_code;
  return TRUE;
}

int
epoll_create1 (int flags)
{
  if (real_epoll_create1 == NULL)
    real_epoll_create1 = find_real ("epoll_create1");

  if (should_fail (FAULT_EPOLL_CREATE, NULL))
    return -1;

  return real_epoll_create1 (flags);
}

int
epoll_ctl (int                 epfd,
           int                 op,
           int                 fd,
           struct epoll_event *event)
{
  if (real_epoll_ctl == NULL)
    real_epoll_ctl = find_real ("epoll_ctl");

  if (should_fail (FAULT_EPOLL_CTL, NULL))
    return -1;

  return real_epoll_ctl (epfd, op, fd, event);
}

int
epoll_wait (int                 epfd,
            struct epoll_event *events,
            int                 maxevents,
            int                 timeout)
{
  if (real_epoll_wait == NULL)
    real_epoll_wait = find_real ("epoll_wait");

  if (should_fail (FAULT_EPOLL_WAIT, NULL))
    return -1;

  return real_epoll_wait (epfd, events, maxevents, timeout);
}

int
waitid (idtype_t   idtype,
        id_t       id,
        siginfo_t *info,
        int        options)
{
  if (real_waitid == NULL)
    real_waitid = find_real ("waitid");

  if (should_fail (FAULT_WAITID, NULL))
    return -1;

  return real_waitid (idtype, id, info, options);
}

int
openat (int         dirfd,
        const char *path,
        int         flags,
        ...)
{
  mode_t mode = 0;

  if (real_openat == NULL)
    real_openat = find_real ("openat");

  if (flags & (O_CREAT | O_TMPFILE))
    {
      va_list args;

      va_start (args, flags);
      mode = va_arg (args, mode_t);
      va_end (args);
    }

  if (should_fail (FAULT_OPENAT, path))
    return -1;

  return real_openat (dirfd, path, flags, mode);
}

/* The library makes its pidfd calls through syscall(). Six arguments are
 * passed on whatever the call takes, as glibc's own syscall() does: reading
 * the ones not passed reads the caller's stack, which ASan would report. */
__attribute__ ((no_sanitize_address)) long
syscall (long number,
         ...)
{
  long a[6];
  va_list args;
  int i;

  if (real_syscall == NULL)
    real_syscall = find_real ("syscall");

  va_start (args, number);
  for (i = 0; i < 6; i++)
    a[i] = va_arg (args, long);
  va_end (args);

  if (number == SYS_pidfd_open && should_fail (FAULT_PIDFD_OPEN, NULL))
    return -1;
  if (number == SYS_pidfd_send_signal)
    {
      gboolean fail;

      hook_pidfd = (int) a[0];
      fail = should_fail (FAULT_PIDFD_SEND_SIGNAL, NULL);
      hook_pidfd = -1;
      if (fail)
        return -1;
    }

  return real_syscall (number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

int
fault_get_pidfd (void)
{
  return hook_pidfd;
}

void
fault_reset (void)
{
  int i;

  for (i = 0; i < FAULT_N_CALLS; i++)
    {
      faults[i].calls = 0;
      faults[i].failures = 0;
      faults[i].fail_at = 0;
      faults[i].fail_every = 0;
      faults[i].every_base = 0;
      faults[i].hook = NULL;
      faults[i].hook_data = NULL;
    }
}

void
fault_fail_nth (FaultCall call,
                guint     nth,
                int       error_code)
{
  faults[call].error_code = error_code;
  faults[call].fail_at = __atomic_load_n (&faults[call].calls, __ATOMIC_SEQ_CST) + nth;
}

void
fault_fail_every (FaultCall call,
                  guint     period,
                  int       error_code)
{
  faults[call].error_code = error_code;
  faults[call].every_base = __atomic_load_n (&faults[call].calls, __ATOMIC_SEQ_CST);
  faults[call].fail_every = period;
}

void
fault_set_hook (FaultCall call,
                FaultHook hook,
                gpointer  user_data)
{
  faults[call].hook_data = user_data;
  faults[call].hook = hook;
}

guint
fault_get_calls (FaultCall call)
{
  return __atomic_load_n (&faults[call].calls, __ATOMIC_SEQ_CST);
}

guint
fault_get_failures (FaultCall call)
{
  return __atomic_load_n (&faults[call].failures, __ATOMIC_SEQ_CST);
}

static int
errno_from_name (const char *name)
{
  static const struct { const char *name; int code; } codes[] = {
    { "EINTR", EINTR }, { "ENOMEM", ENOMEM }, { "EAGAIN", EAGAIN },
    { "EMFILE", EMFILE }, { "ENOSPC", ENOSPC }, { "EPERM", EPERM },
    { "ENOSYS", ENOSYS }, { "EBADF", EBADF },
  };
  gsize i;

  for (i = 0; i < sizeof codes / sizeof codes[0]; i++)
    if (strcmp (codes[i].name, name) == 0)
      return codes[i].code;

  abort ();
}

/* PROCWATCH_FAULTS, read once at load: for preloading into any program. */
__attribute__ ((constructor)) static void
fault_init_from_environment (void)
{
  const char *spec = getenv ("PROCWATCH_FAULTS");
  char *copy;
  char *saveptr = NULL;
  char *item;

  if (spec == NULL || *spec == '\0')
    return;

  copy = strdup (spec);
  for (item = strtok_r (copy, ",", &saveptr); item != NULL; item = strtok_r (NULL, ",", &saveptr))
    {
      char *equals = strchr (item, '=');
      char *mark;
      char kind;
      guint n;
      int i;

      if (equals == NULL || (mark = strpbrk (equals, "%@")) == NULL)
        abort ();
      *equals = '\0';
      kind = *mark;
      *mark = '\0';
      n = (guint) strtoul (mark + 1, NULL, 10);
      if (n == 0)
        abort ();

      for (i = 0; i < FAULT_N_CALLS; i++)
        if (strcmp (faults[i].name, item) == 0)
          break;
      if (i == FAULT_N_CALLS)
        abort ();

      if (kind == '%')
        fault_fail_every (i, n, errno_from_name (equals + 1));
      else
        fault_fail_nth (i, n, errno_from_name (equals + 1));
    }
  free (copy);
}
