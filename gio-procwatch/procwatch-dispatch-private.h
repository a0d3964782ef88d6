/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * What happens when the kernel says something: a watched process or
 * cgroup moves on, and the application hears of it. The one room that
 * calls application code (signals, property notifications,
 * "items-changed", wait completions), each time through one helper that
 * then checks whether the monitor is still open and still watches what it
 * was about.
 */

#pragma once

#include "procwatch-watch-set-private.h"

G_BEGIN_DECLS

void procwatch_dispatch_set_signals   (guint                     exited,
                                       guint                     reaped,
                                       guint                     cgroup_emptied);

void procwatch_dispatch_handles_ready (gpointer                  owner,
                                       const struct epoll_event *events,
                                       guint                     n_events);
void procwatch_dispatch_probes_due    (gpointer                  owner);

void procwatch_dispatch_list_changed  (ProcwatchWatchSet        *set,
                                       guint                     position,
                                       guint                     removed,
                                       guint                     added);
void procwatch_dispatch_release_dropped (ProcwatchWatchSet      *set);

G_END_DECLS
