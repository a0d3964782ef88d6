/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <glib-object.h>
#include <unistd.h>

#include "procwatch-cgroup-watch-private.h"

static void
cgroup_watch_clear (ProcwatchCgroupWatch *watch)
{
  procwatch_cgroup_watch_close (watch);
  g_clear_object (&watch->cgroup);
}

/* Takes @cgroup, the object handed out for it, and @fd, the cgroup's
 * cgroup.events. */
ProcwatchCgroupWatch *
procwatch_cgroup_watch_new (ProcwatchWatchOwner     *owner,
                            struct _ProcwatchCgroup *cgroup,
                            guint64                  id,
                            int                      fd)
{
  ProcwatchCgroupWatch *watch = g_rc_box_new0 (ProcwatchCgroupWatch);

  watch->entry.kind = PROCWATCH_SOURCE_ENTRY_CGROUP;
  watch->fd = fd;
  watch->id = id;
  watch->cgroup = cgroup;
  watch->owner = owner;
  watch->probe.data = watch;
  /* Only a removal is looked for, which ends the watch of a cgroup seen
   * empty already: no signal waits for it, so a thousand empty cgroups
   * may cost two hundred reads a second rather than thousands. */
  watch->probe.max_interval_ms = 5000;
  /* A removal follows no pattern of age: no young phase. */
  watch->probe.backoff_only = TRUE;
  watch->watched = TRUE;

  return watch;
}

ProcwatchCgroupWatch *
procwatch_cgroup_watch_ref (ProcwatchCgroupWatch *watch)
{
  return g_rc_box_acquire (watch);
}

void
procwatch_cgroup_watch_unref (ProcwatchCgroupWatch *watch)
{
  g_rc_box_release_full (watch, (GDestroyNotify) cgroup_watch_clear);
}

void
procwatch_cgroup_watch_close (ProcwatchCgroupWatch *watch)
{
  if (watch->fd >= 0)
    close (watch->fd);
  watch->fd = -1;
}
