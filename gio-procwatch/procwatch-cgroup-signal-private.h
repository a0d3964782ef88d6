/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * A signal sent to every process of a cgroup tree, none escaping by
 * forking: SIGKILL through cgroup.kill, any other signal with the tree
 * frozen meanwhile. The operation's kernel work, step by step; it waits on
 * two fds of its own in the monitor's epoll set (a timer, and the
 * cgroup's cgroup.events for `frozen 1`, after which every cgroup below
 * must say it too), and the dispatch drives it and hands its result
 * back. Nothing here calls the application.
 */

#pragma once

#include <gio/gio.h>

#include "procwatch-source-private.h"

G_BEGIN_DECLS

/* How long a freeze may take before the signal is given up. */
#define PROCWATCH_CGROUP_FREEZE_LIMIT_MS 5000

typedef struct _ProcwatchCgroupSignal ProcwatchCgroupSignal;

struct _ProcwatchCgroupSignal
{
  ProcwatchSourceEntry entry;   /* first: see procwatch-source-private.h */

  GTask *task;                  /* NULL once handed back */
  int signum;
  char *relative;               /* the cgroup, as /proc/<pid>/cgroup names it */
  guint64 id;

  int dir_fd;                   /* the cgroup's directory, checked by id */
  int events_fd;                /* its cgroup.events */
  int timer_fd;                 /* now, then the freeze limit, or a look
                                 * again at the cgroups below the top */
  gint64 deadline;              /* the freeze limit, monotonic */

  gulong cancelled_id;
  GError *error;                /* found before the first step */

  GHashTable *signalled;        /* "pid start-time" of each process signalled */
  GArray *blocking;             /* ProcwatchBlocker: signalled, the signal blocked */
  guint rounds;                 /* freezes after the first */

  guint stage : 2;
  guint froze : 1;              /* we wrote 1 to cgroup.freeze */
};

ProcwatchCgroupSignal *procwatch_cgroup_signal_new       (GTask                 *task,
                                                          int                    signum,
                                                          const char            *relative,
                                                          guint64                id);
ProcwatchCgroupSignal *procwatch_cgroup_signal_ref       (ProcwatchCgroupSignal *op);
void                   procwatch_cgroup_signal_unref     (ProcwatchCgroupSignal *op);
gboolean               procwatch_cgroup_signal_is_done   (ProcwatchCgroupSignal *op);
gboolean               procwatch_cgroup_signal_advance   (ProcwatchCgroupSignal *op,
                                                          GError               **error);
GTask                 *procwatch_cgroup_signal_end       (ProcwatchCgroupSignal *op);
void                   procwatch_cgroup_signal_settle_later (ProcwatchCgroupSignal *op,
                                                          const char            *reason);

G_END_DECLS
