/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Fault injection: a library that interposes the system calls the monitor
 * depends on and fails chosen calls with a chosen errno, or runs a hook just
 * before a call. Linked into a test (API below) or preloaded into any program
 * (LD_PRELOAD) and driven by the environment:
 *
 *   PROCWATCH_FAULTS="epoll_ctl=ENOMEM%5,epoll_wait=EINTR%3,pidfd_open=ENOMEM@2"
 *
 * "%N" fails every Nth call, "@N" only the Nth one (counted from the start).
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  FAULT_EPOLL_CREATE,
  FAULT_EPOLL_CTL,
  FAULT_EPOLL_WAIT,
  FAULT_PIDFD_OPEN,
  FAULT_PIDFD_SEND_SIGNAL,
  FAULT_WAITID,
  FAULT_OPENAT,
  FAULT_N_CALLS
} FaultCall;

/* Runs before an armed call; @path is the path of an openat(), else NULL.
 * Returns true to stay armed for the next call. */
typedef gboolean (*FaultHook) (FaultCall   call,
                               const char *path,
                               gpointer    user_data);

void   fault_reset        (void);
/* Fails the @nth call of @call from now on (1: the next one), once. */
void   fault_fail_nth     (FaultCall  call,
                           guint      nth,
                           int        error_code);
/* Fails every @period-th call of @call from now on. */
void   fault_fail_every   (FaultCall  call,
                           guint      period,
                           int        error_code);
void   fault_set_hook     (FaultCall  call,
                           FaultHook  hook,
                           gpointer   user_data);
/* In a hook run before pidfd_send_signal(): the pidfd it targets; -1 in
 * any other hook. */
int    fault_get_pidfd    (void);
/* Calls made and calls failed since the last fault_reset(). */
guint  fault_get_calls    (FaultCall  call);
guint  fault_get_failures (FaultCall  call);

G_END_DECLS
