/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What a monitor watches: the pid → watch chains, the cgroup table, the
 * list order, the source whose epoll set holds their handles, and the
 * release of those handles, down to the shutdown. Nothing here calls the
 * application: an operation that changes the list says where, and its
 * caller tells the list's observers (procwatch-dispatch.c).
 */

#pragma once

#include <gio/gio.h>

#include "procwatch-backend-private.h"
#include "procwatch-cgroup-watch-private.h"
#include "procwatch-cgroup-signal-private.h"
#include "procwatch-item-list-private.h"
#include "procwatch-probe-scheduler-private.h"
#include "procwatch-source-private.h"
#include "procwatch-watch-private.h"

G_BEGIN_DECLS

typedef struct _ProcwatchWatchSet ProcwatchWatchSet;

/* Whether the set is still open, for a dispatch under way, which holds a
 * reference: the set may be shut down and freed from inside any callout,
 * in any thread. Taken and given up at every dispatch, so inline atomics
 * rather than a GRcBox (two calls). */
typedef struct
{
  gint ref_count;
  gboolean alive;
} ProcwatchWatchSetLife;

static inline ProcwatchWatchSetLife *
procwatch_watch_set_life_acquire (ProcwatchWatchSetLife *life)
{
  g_atomic_int_inc (&life->ref_count);
  return life;
}

static inline void
procwatch_watch_set_life_release (ProcwatchWatchSetLife *life)
{
  if (g_atomic_int_dec_and_test (&life->ref_count))
    g_free (life);
}

struct _ProcwatchWatchSet
{
  /* First: what each watch may ask of the set that holds it. */
  ProcwatchWatchOwner owner;

  const ProcwatchBackend *backend;

  /* The monitor, for its signals; not a reference. */
  GObject *monitor;

  /* Where the source is attached: the thread-default main context of the
   * thread that made the monitor. */
  GMainContext *context;
  GSource *source;

  /* GPid → the newest ProcwatchWatch with that pid; each watch in a chain
   * holds a reference of its own, given up when watching it stops. */
  GHashTable *watches;

  /* The list model: every watched process in the order it was first
   * watched; finding the position of a watch that leaves costs O(log n). */
  ProcwatchItemList *items;

  /* With the source: both exist once something has been watched. */
  ProcwatchProbeScheduler *probes;

  /* cgroup id → its ProcwatchCgroupWatch, holding a reference given up
   * when watching it stops. */
  GHashTable *cgroups;

  /* Watches (processes and cgroups: ProcwatchSourceEntry) dropped while
   * epoll refused to let go of their handle. */
  GPtrArray *lingering;

  /* Watches of processes reaped in the dispatch under way, their handles
   * still open and in the epoll set until its emissions are done; each
   * holds the reference the table gave up. A plain array: one is added
   * and released at every reap. */
  ProcwatchWatch **reaped;
  guint n_reaped;
  guint reaped_size;

  /* Signals to cgroup trees under way (ProcwatchCgroupSignal), each
   * holding a reference until it is done. */
  GPtrArray *signals;

  /* References the set gave up inside its operations that may be the last
   * ones to watches (ProcwatchSourceEntry): the last one finalizes the
   * process or cgroup object, which runs the application's weak-ref,
   * qdata and toggle notifies. Released by the dispatch once the operation
   * is over (procwatch_dispatch_release_dropped ()); touched only when
   * such a reference goes, not at a reap in a dispatch. */
  GPtrArray *dropped;

  /* Shared with dispatches under way: false once the set is shut down. */
  ProcwatchWatchSetLife *life;

  /* /proc, opened at the first watch by pid to read names and cgroup paths
   * through (PROCWATCH_PROC_FD_UNKNOWN before; PROCWATCH_PROC_FD_NOT_OWN if
   * it shows another pid namespace); closed with the set. */
  int proc_fd;

  gboolean closed;

  /* Operations of the set under way: no callout may happen inside one,
   * and no object of the application may be finalized (see @dropped). */
  guint busy;
};

void                  procwatch_watch_set_init          (ProcwatchWatchSet         *set,
                                                         GObject                   *monitor);
void                  procwatch_watch_set_clear         (ProcwatchWatchSet         *set);

gboolean              procwatch_watch_set_is_forked_copy (ProcwatchWatchSet        *set);
gboolean              procwatch_watch_set_is_open       (ProcwatchWatchSet         *set);
gboolean              procwatch_watch_set_check_open    (ProcwatchWatchSet         *set,
                                                         GError                   **error);
gboolean              procwatch_watch_set_prepare       (ProcwatchWatchSet         *set,
                                                         ProcwatchSourceReadyFunc   ready_func,
                                                         ProcwatchSourceTimerFunc   timer_func,
                                                         GError                   **error);

ProcwatchWatch       *procwatch_watch_set_add           (ProcwatchWatchSet         *set,
                                                         ProcwatchHandle           *handle,
                                                         guint                     *added_at);
ProcwatchWatch       *procwatch_watch_set_lookup        (ProcwatchWatchSet         *set,
                                                         GPid                       pid);
guint                 procwatch_watch_set_remove        (ProcwatchWatchSet         *set,
                                                         ProcwatchWatch            *watch,
                                                         const char                *reason,
                                                         gboolean                   reaped);
void                  procwatch_watch_set_arm           (ProcwatchWatchSet         *set,
                                                         ProcwatchWatch            *watch,
                                                         ProcwatchProcessState      state);
void                  procwatch_watch_set_probe_instead (ProcwatchWatchSet         *set,
                                                         ProcwatchWatch            *watch);
void                  procwatch_watch_set_retry_lingering (ProcwatchWatchSet       *set,
                                                         ProcwatchSourceEntry      *entry);
void                  procwatch_watch_set_release_reaped (ProcwatchWatchSet        *set);

ProcwatchCgroupWatch *procwatch_watch_set_add_cgroup    (ProcwatchWatchSet         *set,
                                                         const char                *relative,
                                                         guint64                    id,
                                                         int                        fd,
                                                         GError                   **error);
ProcwatchCgroupWatch *procwatch_watch_set_lookup_cgroup (ProcwatchWatchSet         *set,
                                                         guint64                    id);
void                  procwatch_watch_set_remove_cgroup (ProcwatchWatchSet         *set,
                                                         ProcwatchCgroupWatch      *watch,
                                                         const char                *reason);

void                  procwatch_watch_set_add_signal    (ProcwatchWatchSet         *set,
                                                         ProcwatchCgroupSignal     *op);
GTask                *procwatch_watch_set_end_signal    (ProcwatchWatchSet         *set,
                                                         ProcwatchCgroupSignal     *op);

guint                 procwatch_watch_set_shut_down     (ProcwatchWatchSet         *set,
                                                         const char                *reason);

static inline gboolean
procwatch_watch_set_has_dropped (ProcwatchWatchSet *set)
{
  return set->dropped->len > 0;
}

ProcwatchSourceEntry *procwatch_source_entry_ref        (ProcwatchSourceEntry      *entry);
void                  procwatch_source_entry_unref      (ProcwatchSourceEntry      *entry);

static inline gboolean
procwatch_source_entry_is_watched (ProcwatchSourceEntry *entry)
{
  /* A signal under way, until it is done. */
  if (G_UNLIKELY (entry->kind == PROCWATCH_SOURCE_ENTRY_SIGNAL))
    return !procwatch_cgroup_signal_is_done ((ProcwatchCgroupSignal *) entry);
  if (entry->kind == PROCWATCH_SOURCE_ENTRY_CGROUP)
    return ((ProcwatchCgroupWatch *) entry)->watched;
  return ((ProcwatchWatch *) entry)->watched;
}

G_END_DECLS
