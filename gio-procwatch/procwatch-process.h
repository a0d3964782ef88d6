/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#pragma once

#if !defined(PROCWATCH_INSIDE) && !defined(PROCWATCH_COMPILATION)
# error "Only <gio-procwatch/procwatch.h> can be included directly."
#endif

#include <gio/gio.h>

#include "procwatch-types.h"
#include "procwatch-version.h"

G_BEGIN_DECLS

#define PROCWATCH_TYPE_PROCESS (procwatch_process_get_type ())

PROCWATCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ProcwatchProcess, procwatch_process, PROCWATCH, PROCESS, GObject)

PROCWATCH_AVAILABLE_IN_1_0
GPid                  procwatch_process_get_pid         (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_0
ProcwatchProcessState procwatch_process_get_state       (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_0
gboolean              procwatch_process_has_status      (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_0
int                   procwatch_process_get_status      (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_0
gboolean              procwatch_process_get_if_exited   (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_0
int                   procwatch_process_get_exit_status (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_0
gboolean              procwatch_process_get_if_signaled (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_0
int                   procwatch_process_get_term_sig    (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_4
gboolean              procwatch_process_get_core_dumped (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_2
guint64               procwatch_process_get_inode       (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_2
const char           *procwatch_process_get_name        (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_2
const char           *procwatch_process_get_cgroup      (ProcwatchProcess *self);
PROCWATCH_AVAILABLE_IN_1_2
int                   procwatch_process_dup_pidfd       (ProcwatchProcess *self,
                                                         GError          **error);
PROCWATCH_AVAILABLE_IN_1_4
GBytes               *procwatch_process_dup_file_handle (ProcwatchProcess *self,
                                                         GError          **error);
PROCWATCH_AVAILABLE_IN_1_2
gboolean              procwatch_process_send_signal     (ProcwatchProcess *self,
                                                         int               signum,
                                                         GError          **error);
PROCWATCH_AVAILABLE_IN_1_2
void                  procwatch_process_wait_async      (ProcwatchProcess    *self,
                                                         GCancellable        *cancellable,
                                                         GAsyncReadyCallback  callback,
                                                         gpointer             user_data);
PROCWATCH_AVAILABLE_IN_1_2
gboolean              procwatch_process_wait_finish     (ProcwatchProcess    *self,
                                                         GAsyncResult        *result,
                                                         GError             **error);

G_END_DECLS
