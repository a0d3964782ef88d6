/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Who we are, asked on every dispatch (the fork check) and on every exit
 * of a process that may be our child: without a syscall each time.
 */

#pragma once

#include <sys/types.h>

#include <glib.h>

G_BEGIN_DECLS

/* The cache: 0 until asked, and again in a child made by fork (). */
extern pid_t procwatch_self_pid_cache;

pid_t procwatch_self_pid_ask (void);

/* The calling process's pid. Cached; a child made by fork () (anything that
 * runs pthread_atfork () handlers) asks the kernel again on first use.
 * Inline: the dispatch asks after every callout, to stop in a child that a
 * handler forked. */
static inline pid_t
procwatch_self_pid (void)
{
  pid_t pid = g_atomic_int_get (&procwatch_self_pid_cache);

  return G_LIKELY (pid != 0) ? pid : procwatch_self_pid_ask ();
}

G_END_DECLS
