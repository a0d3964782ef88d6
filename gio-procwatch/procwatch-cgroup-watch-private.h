/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What the monitor keeps for one watched cgroup: its cgroup.events fd in
 * the monitor's epoll set, the object it hands out, and a probe that looks
 * for the cgroup's removal, which raises no event. The object is the
 * cgroup's face (procwatch-cgroup.c), as ProcwatchProcess is a process
 * watch's (procwatch-watch.c).
 */

#pragma once

#include <glib.h>

#include "procwatch-probe-scheduler-private.h"
#include "procwatch-source-private.h"
#include "procwatch-watch-private.h"

G_BEGIN_DECLS

typedef struct _ProcwatchCgroupWatch ProcwatchCgroupWatch;

struct _ProcwatchCgroupWatch
{
  ProcwatchSourceEntry entry;   /* first: see procwatch-source-private.h */

  int fd;                       /* cgroup.events; -1 once closed */
  guint64 id;                   /* the hash table's key */
  /* The object handed out: a reference. By its struct tag, as
   * procwatch-process-private.h names the process watch: this record
   * knows nothing of the object's class. */
  struct _ProcwatchCgroup *cgroup;

  /* The set that watches it; not a reference. */
  ProcwatchWatchOwner *owner;

  ProcwatchProbe probe;

  gboolean watched;
};

ProcwatchCgroupWatch *procwatch_cgroup_watch_new   (ProcwatchWatchOwner     *owner,
                                                    struct _ProcwatchCgroup *cgroup,
                                                    guint64                  id,
                                                    int                      fd);
ProcwatchCgroupWatch *procwatch_cgroup_watch_ref   (ProcwatchCgroupWatch    *watch);
void                  procwatch_cgroup_watch_unref (ProcwatchCgroupWatch    *watch);
void                  procwatch_cgroup_watch_close (ProcwatchCgroupWatch    *watch);

G_END_DECLS
