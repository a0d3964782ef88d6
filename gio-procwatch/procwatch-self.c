/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <pthread.h>
#include <unistd.h>

#include "procwatch-self-private.h"

/* glibc stopped caching getpid () in 2.25, so the fork check that every
 * dispatch makes would be a syscall on the path to "exited". 0: not known
 * yet, or forgotten in a fork's child. */
pid_t procwatch_self_pid_cache;

static void
forget_self_pid (void)
{
  /* The child of a fork is single-threaded here: a plain store is enough. */
  procwatch_self_pid_cache = 0;
}

static void
register_fork_handler (void)
{
  static gsize registered;

  if (g_once_init_enter (&registered))
    {
      pthread_atfork (NULL, NULL, forget_self_pid);
      g_once_init_leave (&registered, 1);
    }
}

pid_t
procwatch_self_pid_ask (void)
{
  pid_t pid;

  /* Registered before the pid is read: a fork between the two then finds
   * the pid forgotten in its child, not the parent's one kept. */
  register_fork_handler ();
  pid = getpid ();
  g_atomic_int_set (&procwatch_self_pid_cache, pid);
  return pid;
}
