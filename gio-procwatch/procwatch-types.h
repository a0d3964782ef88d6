/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The public enumerations and flags, apart from the classes that use them:
 * the library's private headers need these and nothing else of the API.
 */

#pragma once

#if !defined(PROCWATCH_INSIDE) && !defined(PROCWATCH_COMPILATION)
# error "Only <gio-procwatch/procwatch.h> can be included directly."
#endif

#include <glib.h>

G_BEGIN_DECLS

/**
 * ProcwatchProcessState:
 * @PROCWATCH_PROCESS_STATE_RUNNING: the process has not terminated yet
 * @PROCWATCH_PROCESS_STATE_EXITED: the process has terminated and is a zombie
 *   waiting for its parent to collect it
 * @PROCWATCH_PROCESS_STATE_REAPED: the parent has collected the process; its
 *   pid is free and may already belong to another process
 *
 * The life stages of a watched process, in the order they happen.
 */
typedef enum /*< since=1_0 >*/
{
  PROCWATCH_PROCESS_STATE_RUNNING,
  PROCWATCH_PROCESS_STATE_EXITED,
  PROCWATCH_PROCESS_STATE_REAPED,
} ProcwatchProcessState;

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

G_END_DECLS
