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

G_BEGIN_DECLS

/**
 * ProcwatchFeatures:
 * @PROCWATCH_FEATURES_NONE: none of the below
 * @PROCWATCH_FEATURES_REAP_EVENT: the reap of a watched process wakes the
 *   monitor at once (a pidfd hangs up, Linux 6.9+), instead of being found
 *   by probing on a timer
 * @PROCWATCH_FEATURES_NON_CHILD_STATUS: the wait status of a process that
 *   is not a child of the caller is known once it has been reaped (Linux
 *   6.15+, `PIDFD_INFO_EXIT`), for every process watched in the caller's
 *   pid namespace or one below it; the status of a process outside it (in
 *   an ancestor namespace, watched through a pidfd) is never known, as the
 *   kernel answers `EREMOTE` there
 * @PROCWATCH_FEATURES_INODE: [method@Procwatch.Process.get_inode] gives the
 *   pidfs inode of every process watched (Linux 6.9+), and
 *   [method@Procwatch.ProcessMonitor.watch_pid_inode] works
 * @PROCWATCH_FEATURES_THREADS: the id of a thread other than the main one
 *   watches that thread alone (with pidfds, Linux 6.9+: `PIDFD_THREAD`)
 * @PROCWATCH_FEATURES_CORE_DUMP: [method@Procwatch.Process.get_core_dumped]
 *   is known for non-children too, with their status (children have it on
 *   every kernel)
 * @PROCWATCH_FEATURES_FILE_HANDLES: the kernel gives pidfs file handles
 *   (`name_to_handle_at()` on a pidfd, Linux 6.14+) and opens them again
 *   (`open_by_handle_at()`): a name of one process that no other process
 *   can ever have
 *
 * What a [class@Procwatch.ProcessMonitor] can deliver on this kernel with
 * its backend: see [property@Procwatch.ProcessMonitor:features], which
 * says how each is decided.
 *
 * Since: 1.4
 */
typedef enum /*< flags,since=1_4 >*/
{
  PROCWATCH_FEATURES_NONE             = 0,
  PROCWATCH_FEATURES_REAP_EVENT       = 1 << 0,
  PROCWATCH_FEATURES_NON_CHILD_STATUS = 1 << 1,
  PROCWATCH_FEATURES_INODE            = 1 << 2,
  PROCWATCH_FEATURES_THREADS          = 1 << 3,
  PROCWATCH_FEATURES_CORE_DUMP        = 1 << 4,
  PROCWATCH_FEATURES_FILE_HANDLES     = 1 << 5,
} ProcwatchFeatures;

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
