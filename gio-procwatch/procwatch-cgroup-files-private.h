/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Finding cgroups: where cgroup v2 is mounted (from /proc/self/mountinfo,
 * never assumed), what a path given by the application names, and what
 * cgroup.events says.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef struct
{
  char *mount_point;   /* where it is mounted here */
  char *root;          /* the cgroup mounted there, as /proc/<pid>/cgroup names it */
} ProcwatchCgroupMount;

void       procwatch_cgroup_mount_free          (ProcwatchCgroupMount *mount);
GPtrArray *procwatch_cgroup_read_mounts         (GError              **error);
GPtrArray *procwatch_cgroup_parse_mountinfo     (const char           *text,
                                                 gsize                 length);
gboolean   procwatch_cgroup_resolve             (GPtrArray            *mounts,
                                                 const char           *path,
                                                 char                **relative,
                                                 char                **absolute,
                                                 GError              **error);
int        procwatch_cgroup_open_events         (const char           *relative,
                                                 const char           *absolute,
                                                 guint64              *id,
                                                 GError              **error);
gboolean   procwatch_cgroup_path_has_id         (const char           *relative,
                                                 guint64               id);
int        procwatch_cgroup_parse_populated     (const char           *text,
                                                 gsize                 length);
int        procwatch_cgroup_read_populated      (int                   events_fd);

G_END_DECLS
