/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What the monitor keeps for one watched cgroup: its cgroup.events fd in
 * the monitor's epoll set, the object it hands out, and a probe that looks
 * for the cgroup's removal, which raises no event.
 */

#pragma once

#include "procwatch-cgroup.h"
#include "procwatch-probe-scheduler-private.h"
#include "procwatch-source-private.h"
#include "procwatch-waits-private.h"

G_BEGIN_DECLS

typedef struct _ProcwatchCgroupWatch ProcwatchCgroupWatch;

struct _ProcwatchCgroupWatch
{
  ProcwatchSourceEntry entry;   /* first: see procwatch-source-private.h */

  int fd;                       /* cgroup.events; -1 once closed */
  guint64 id;                   /* the hash table's key */
  ProcwatchCgroup *cgroup;

  /* The monitor that watches it; not a reference. */
  gpointer owner;

  ProcwatchProbe probe;

  gboolean watched;
};

ProcwatchCgroupWatch *procwatch_cgroup_watch_new     (gpointer              owner,
                                                      const char           *path,
                                                      guint64               id,
                                                      int                   fd);
ProcwatchCgroupWatch *procwatch_cgroup_watch_ref     (ProcwatchCgroupWatch *watch);
void                  procwatch_cgroup_watch_unref   (ProcwatchCgroupWatch *watch);
void                  procwatch_cgroup_watch_close   (ProcwatchCgroupWatch *watch);
void                  procwatch_cgroup_watch_stopped (ProcwatchCgroupWatch *watch,
                                                      const char           *reason);

ProcwatchCgroupWatch *procwatch_cgroup_get_watch     (ProcwatchCgroup      *self);
GParamSpec           *procwatch_cgroup_set_populated (ProcwatchCgroup      *self,
                                                      gboolean              populated);
GTask                *procwatch_cgroup_pop_wait      (ProcwatchCgroup      *self);

G_END_DECLS
