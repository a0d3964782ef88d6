/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#pragma once

#if !defined(PROCWATCH_INSIDE) && !defined(PROCWATCH_COMPILATION)
# error "Only <gio-procwatch/procwatch.h> can be included directly."
#endif

#include <gio/gio.h>

#include "procwatch-version.h"

G_BEGIN_DECLS

#define PROCWATCH_TYPE_CGROUP (procwatch_cgroup_get_type ())

PROCWATCH_AVAILABLE_IN_1_2
G_DECLARE_FINAL_TYPE (ProcwatchCgroup, procwatch_cgroup, PROCWATCH, CGROUP, GObject)

PROCWATCH_AVAILABLE_IN_1_2
const char *procwatch_cgroup_get_path          (ProcwatchCgroup      *self);
PROCWATCH_AVAILABLE_IN_1_2
gboolean    procwatch_cgroup_get_populated     (ProcwatchCgroup      *self);
PROCWATCH_AVAILABLE_IN_1_2
void        procwatch_cgroup_wait_empty_async  (ProcwatchCgroup      *self,
                                                GCancellable         *cancellable,
                                                GAsyncReadyCallback   callback,
                                                gpointer              user_data);
PROCWATCH_AVAILABLE_IN_1_2
gboolean    procwatch_cgroup_wait_empty_finish (ProcwatchCgroup      *self,
                                                GAsyncResult         *result,
                                                GError              **error);

PROCWATCH_AVAILABLE_IN_1_4
const char *procwatch_cgroup_get_app_id          (ProcwatchCgroup      *self);
PROCWATCH_AVAILABLE_IN_1_4
GStrv       procwatch_cgroup_find_app_instances  (const char           *app_id,
                                                  const char           *under,
                                                  GError              **error);
PROCWATCH_AVAILABLE_IN_1_4
void        procwatch_cgroup_send_signal_async   (ProcwatchCgroup      *self,
                                                  int                   signum,
                                                  GCancellable         *cancellable,
                                                  GAsyncReadyCallback   callback,
                                                  gpointer              user_data);
PROCWATCH_AVAILABLE_IN_1_4
gboolean    procwatch_cgroup_send_signal_finish  (ProcwatchCgroup      *self,
                                                  GAsyncResult         *result,
                                                  GError              **error);

G_END_DECLS
