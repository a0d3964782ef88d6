/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Handles on a task's /proc entry, shared by the backends that have no
 * pidfds: the procfs backend keeps the /proc/<pid> directory open, the poll
 * backend swaps it for the stat file inside. Either pins the task.
 */

#pragma once

#include <glib.h>

#include "procwatch-backend-private.h"

G_BEGIN_DECLS

gboolean procwatch_proc_entry_open_pid    (const ProcwatchBackend  *backend,
                                            GPid                     pid,
                                            ProcwatchHandle         *handle,
                                            GError                 **error);
gboolean procwatch_proc_entry_open_pidfd  (const ProcwatchBackend  *backend,
                                            int                      pidfd,
                                            ProcwatchHandle         *handle,
                                            GError                 **error);
gboolean procwatch_proc_entry_read_status (const ProcwatchBackend  *backend,
                                            const ProcwatchHandle   *handle,
                                            ProcwatchProcessState    state,
                                            int                     *wait_status);

G_END_DECLS
