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

/* The calling process's pid. Cached; a child made by fork () (anything that
 * runs pthread_atfork () handlers) asks the kernel again on first use. */
pid_t procwatch_self_pid (void);

G_END_DECLS
