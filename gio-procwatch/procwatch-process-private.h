/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#pragma once

#include "procwatch-process.h"

G_BEGIN_DECLS

struct _ProcwatchWatch;

/* @cgroup: a hold on a shared string (procwatch-shared-string.c), taken
 * over; @name is copied. */
ProcwatchProcess *procwatch_process_new        (GPid                  pid,
                                                 guint64               inode,
                                                 const char           *name,
                                                 const char           *cgroup);
void              procwatch_process_set_watch  (ProcwatchProcess     *self,
                                                 struct _ProcwatchWatch *watch);
struct _ProcwatchWatch *procwatch_process_get_watch (ProcwatchProcess *self);
/* The properties a status sets: status-known, exit-status, term-sig and
 * core-dumped (at most three of them change at once). */
#define PROCWATCH_PROCESS_STATUS_PROPS 4

/* The getters without their type checks, for the dispatch path. */
ProcwatchProcessState procwatch_process_peek_state (ProcwatchProcess *self);
gboolean          procwatch_process_peek_status_known (ProcwatchProcess *self);

GParamSpec       *procwatch_process_set_state  (ProcwatchProcess     *self,
                                                 ProcwatchProcessState state);
guint             procwatch_process_set_status (ProcwatchProcess     *self,
                                                 int                   wait_status,
                                                 GParamSpec          **changed);

G_END_DECLS
