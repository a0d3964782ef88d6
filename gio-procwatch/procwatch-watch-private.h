/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What the monitor keeps for one watched process: the backend's handle,
 * the process object it hands out, and the waits on that process. The
 * process object points back here for as long as it is watched, so that
 * it can be waited on, signalled and unwatched by itself.
 */

#pragma once

#include <gio/gio.h>
#include <sys/types.h>

#include "procwatch-backend-private.h"
#include "procwatch-probe-scheduler-private.h"
#include "procwatch-process.h"
#include "procwatch-source-private.h"
#include "procwatch-waits-private.h"

G_BEGIN_DECLS

typedef struct _ProcwatchWatch ProcwatchWatch;

struct _ProcwatchCgroupSignal;

typedef struct _ProcwatchWatchOwner ProcwatchWatchOwner;

/* The first member of the set that holds a watch (procwatch-watch-set.c):
 * what a watch, and the object it hands out, may ask of it. The objects
 * reach the set through here only: the set is above them. */
struct _ProcwatchWatchOwner
{
  /* The process that made the set: in any other (a child forked without
   * exec), its copy shares the epoll set and must leave it be. */
  pid_t creator_pid;

  /* Takes @op, a signal to a tree the set watches the cgroup of, for the
   * set's dispatch to carry out (procwatch_watch_set_add_signal ()). */
  void (*add_signal) (ProcwatchWatchOwner           *owner,
                      struct _ProcwatchCgroupSignal *op);
};

struct _ProcwatchWatch
{
  ProcwatchSourceEntry entry;   /* first: see procwatch-source-private.h */
  /* Not a GRcBox: its header would add a quarter to the record. */
  grefcount ref_count;
  ProcwatchHandle handle;
  const ProcwatchBackend *backend;
  ProcwatchProcess *process;

  /* The set that holds it; not a reference. */
  ProcwatchWatchOwner *owner;

  /* An earlier process with the same pid that has been reaped, but whose
   * reap we have not handled yet. */
  ProcwatchWatch *older;

  /* For changes of state that raise no event. */
  ProcwatchProbe probe;

  /* Its place in the monitor's list model (procwatch-item-list.c). */
  guint slot;

  guint watched : 1;

  ProcwatchWaits waits;
};

gboolean        procwatch_watch_owner_is_forked_copy (const ProcwatchWatchOwner *owner);
gboolean        procwatch_watch_owner_check        (const ProcwatchWatchOwner *owner,
                                                    GError                **error);

ProcwatchWatch *procwatch_watch_new                (const ProcwatchBackend *backend,
                                                    ProcwatchWatchOwner    *owner,
                                                    ProcwatchHandle        *handle,
                                                    ProcwatchProcess       *process);
ProcwatchWatch *procwatch_watch_ref                (ProcwatchWatch         *watch);
void            procwatch_watch_unref              (ProcwatchWatch         *watch);

/* Whether the reference held is the only one: dropping it would finalize
 * the process object if the application holds it no more. */
static inline gboolean
procwatch_watch_is_last_ref (ProcwatchWatch *watch)
{
  return g_ref_count_compare (&watch->ref_count, 1);
}

void            procwatch_watch_add_wait           (ProcwatchWatch         *watch,
                                                    GTask                  *task);
GTask          *procwatch_watch_pop_wait           (ProcwatchWatch         *watch);

/* Usually none: checked on every exit before anything is called. */
static inline gboolean
procwatch_watch_has_waits (const ProcwatchWatch *watch)
{
  return watch->waits.tasks != NULL;
}
gboolean        procwatch_watch_is_reachable       (ProcwatchWatch         *watch,
                                                    GError                **error);
void            procwatch_watch_settle_waits_later (ProcwatchWatch         *watch,
                                                    const char             *reason,
                                                    gboolean                exited);

int             procwatch_watch_dup_pidfd          (ProcwatchWatch         *watch,
                                                    GError                **error);
gboolean        procwatch_watch_send_signal        (ProcwatchWatch         *watch,
                                                    int                     signum,
                                                    GError                **error);

G_END_DECLS
