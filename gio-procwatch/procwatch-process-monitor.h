/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#pragma once

#if !defined(PROCWATCH_INSIDE) && !defined(PROCWATCH_COMPILATION)
# error "Only <gio-procwatch/procwatch.h> can be included directly."
#endif

#include <gio/gio.h>

#include "procwatch-version.h"
#include "procwatch-cgroup.h"
#include "procwatch-process.h"
#include "procwatch-types.h"

G_BEGIN_DECLS

#define PROCWATCH_TYPE_PROCESS_MONITOR (procwatch_process_monitor_get_type ())

PROCWATCH_AVAILABLE_IN_1_0
G_DECLARE_FINAL_TYPE (ProcwatchProcessMonitor, procwatch_process_monitor,
                      PROCWATCH, PROCESS_MONITOR, GObject)

PROCWATCH_AVAILABLE_IN_1_0
ProcwatchProcessMonitor *procwatch_process_monitor_new         (void);
PROCWATCH_AVAILABLE_IN_1_0
const char              *procwatch_process_monitor_get_backend (ProcwatchProcessMonitor  *self);
PROCWATCH_AVAILABLE_IN_1_4
ProcwatchFeatures        procwatch_process_monitor_get_features (ProcwatchProcessMonitor *self);
PROCWATCH_AVAILABLE_IN_1_0
ProcwatchProcess        *procwatch_process_monitor_watch_pid   (ProcwatchProcessMonitor  *self,
                                                                GPid                      pid,
                                                                GError                  **error);
PROCWATCH_AVAILABLE_IN_1_0
ProcwatchProcess        *procwatch_process_monitor_watch_pidfd (ProcwatchProcessMonitor  *self,
                                                                int                       pidfd,
                                                                GError                  **error);
PROCWATCH_AVAILABLE_IN_1_4
ProcwatchProcess        *procwatch_process_monitor_watch_file_handle (ProcwatchProcessMonitor  *self,
                                                                      GBytes                   *handle,
                                                                      GError                  **error);
PROCWATCH_AVAILABLE_IN_1_0
gboolean                 procwatch_process_monitor_unwatch     (ProcwatchProcessMonitor  *self,
                                                                GPid                      pid);
PROCWATCH_AVAILABLE_IN_1_2
gboolean                 procwatch_process_monitor_unwatch_process (ProcwatchProcessMonitor *self,
                                                                    ProcwatchProcess        *process);
PROCWATCH_AVAILABLE_IN_1_2
ProcwatchProcess        *procwatch_process_monitor_lookup      (ProcwatchProcessMonitor  *self,
                                                                GPid                      pid);
PROCWATCH_AVAILABLE_IN_1_2
ProcwatchProcess        *procwatch_process_monitor_watch_pid_inode (ProcwatchProcessMonitor  *self,
                                                                    GPid                      pid,
                                                                    guint64                   inode,
                                                                    GError                  **error);
PROCWATCH_AVAILABLE_IN_1_2
void                     procwatch_process_monitor_close       (ProcwatchProcessMonitor  *self);
PROCWATCH_AVAILABLE_IN_1_2
ProcwatchCgroup         *procwatch_process_monitor_watch_cgroup (ProcwatchProcessMonitor  *self,
                                                                 const char               *path,
                                                                 GError                  **error);
PROCWATCH_AVAILABLE_IN_1_2
gboolean                 procwatch_process_monitor_unwatch_cgroup (ProcwatchProcessMonitor *self,
                                                                   ProcwatchCgroup         *cgroup);
PROCWATCH_AVAILABLE_IN_1_0
void                     procwatch_process_monitor_wait_async  (ProcwatchProcessMonitor  *self,
                                                                GPid                      pid,
                                                                GCancellable             *cancellable,
                                                                GAsyncReadyCallback       callback,
                                                                gpointer                  user_data);
PROCWATCH_AVAILABLE_IN_1_0
ProcwatchProcess        *procwatch_process_monitor_wait_finish (ProcwatchProcessMonitor  *self,
                                                                GAsyncResult             *result,
                                                                GError                  **error);
PROCWATCH_AVAILABLE_IN_1_2
void                     procwatch_process_monitor_watch_dbus_sender_async  (ProcwatchProcessMonitor  *self,
                                                                             GDBusConnection          *connection,
                                                                             const char               *sender,
                                                                             GCancellable             *cancellable,
                                                                             GAsyncReadyCallback       callback,
                                                                             gpointer                  user_data);
PROCWATCH_AVAILABLE_IN_1_2
ProcwatchProcess        *procwatch_process_monitor_watch_dbus_sender_finish (ProcwatchProcessMonitor  *self,
                                                                             GAsyncResult             *result,
                                                                             GError                  **error);

G_END_DECLS
