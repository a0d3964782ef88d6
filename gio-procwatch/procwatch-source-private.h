/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * One GSource around one epoll fd. Kernel handles are added to the epoll
 * set, not to the main context, so an iteration of the main loop costs the
 * same however many processes are watched, and a dispatch costs as much as
 * the handles that are ready. The source also carries the one timer the
 * owner may need for probing.
 */

#pragma once

#include <glib.h>
#include <sys/epoll.h>

G_BEGIN_DECLS

typedef enum
{
  PROCWATCH_SOURCE_ENTRY_PROCESS,
  PROCWATCH_SOURCE_ENTRY_CGROUP,
  PROCWATCH_SOURCE_ENTRY_SIGNAL,   /* a signal sent to a cgroup tree, under way */
} ProcwatchSourceEntryKind;

/* The first member of whatever the owner hands over as a handle's data
 * (and to the probe scheduler), so that it can tell what is ready. */
typedef struct
{
  ProcwatchSourceEntryKind kind;
} ProcwatchSourceEntry;

/* Called with the handles that are ready, in batches; @owner may drop its
 * last reference from inside. */
typedef void (*ProcwatchSourceReadyFunc) (gpointer                  owner,
                                          const struct epoll_event *events,
                                          guint                     n_events);
typedef void (*ProcwatchSourceTimerFunc) (gpointer                  owner);

GSource  *procwatch_source_new            (gboolean                   pollable,
                                           ProcwatchSourceReadyFunc   ready_func,
                                           ProcwatchSourceTimerFunc   timer_func,
                                           gpointer                   owner,
                                           GError                   **error);
void      procwatch_source_lock_owner     (GSource                   *source);
void      procwatch_source_unlock_owner   (GSource                   *source);
gboolean  procwatch_source_ensure_epoll   (GSource                   *source,
                                           GError                   **error);
void      procwatch_source_disown         (GSource                   *source);
gboolean  procwatch_source_add_handle     (GSource                   *source,
                                           int                        fd,
                                           guint32                    events,
                                           gpointer                   data);
gboolean  procwatch_source_modify_handle  (GSource                   *source,
                                           int                        fd,
                                           guint32                    events,
                                           gpointer                   data);
gboolean  procwatch_source_remove_handle  (GSource                   *source,
                                           int                        fd);
void      procwatch_source_set_timer      (GSource                   *source,
                                           gint64                     ready_time);

G_END_DECLS
