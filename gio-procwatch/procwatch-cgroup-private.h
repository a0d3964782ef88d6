/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The cgroup object's side for the monitor: made for a watch, told when
 * the watch stops, and its populated state and waits, for the dispatch.
 */

#pragma once

#include "procwatch-cgroup.h"

G_BEGIN_DECLS

struct _ProcwatchCgroupWatch;

ProcwatchCgroup              *procwatch_cgroup_new           (const char                   *path);
void                          procwatch_cgroup_set_watch     (ProcwatchCgroup              *self,
                                                              struct _ProcwatchCgroupWatch *watch);
struct _ProcwatchCgroupWatch *procwatch_cgroup_get_watch     (ProcwatchCgroup              *self);
void                          procwatch_cgroup_stopped       (ProcwatchCgroup              *self,
                                                              const char                   *reason);
GParamSpec                   *procwatch_cgroup_set_populated (ProcwatchCgroup              *self,
                                                              gboolean                      populated);
GTask                        *procwatch_cgroup_pop_wait      (ProcwatchCgroup              *self);

G_END_DECLS
