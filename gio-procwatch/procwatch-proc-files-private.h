/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Reading /proc files robustly: whole files read at once, fields found by
 * name, no assumption about what a process may put in its name.
 */

#pragma once

#include <glib.h>

#include "procwatch-types.h"

G_BEGIN_DECLS

gssize   procwatch_proc_read_file        (const char  *path,
                                          char        *buffer,
                                          gsize        size);
gssize   procwatch_proc_read_file_at     (int          dirfd,
                                          const char  *path,
                                          char        *buffer,
                                          gsize        size);
gboolean procwatch_proc_find_int_field   (const char  *text,
                                          gsize        length,
                                          const char  *name,
                                          gint64      *value);
gboolean procwatch_proc_read_fdinfo_pid  (int          fd,
                                          GPid        *pid);
gboolean procwatch_proc_read_tgid        (GPid         pid,
                                          GPid        *tgid);
gboolean procwatch_proc_read_ppid        (GPid         pid,
                                          GPid        *ppid);
gboolean procwatch_proc_is_own_pid_ns    (gboolean    *own);
gboolean procwatch_proc_open_own         (int         *fd);
gssize   procwatch_proc_read_comm_at     (int          proc_fd,
                                          GPid         pid,
                                          char        *buffer,
                                          gsize        size);
char    *procwatch_proc_read_comm        (GPid         pid);
char    *procwatch_proc_read_cgroup_at   (int          proc_fd,
                                          GPid         pid);
char    *procwatch_proc_read_cgroup      (GPid         pid);
gboolean procwatch_proc_find_line        (const char  *text,
                                          gsize        length,
                                          const char  *prefix,
                                          const char **rest,
                                          gsize       *rest_length);
char    *procwatch_proc_find_cgroup_v2   (const char  *text,
                                          gsize        length);
gboolean procwatch_proc_parse_stat       (const char  *text,
                                          gsize        length,
                                          char        *state,
                                          gint64      *num_threads);
int      procwatch_proc_task_state_from_stat (const char *text,
                                          gsize        length);
int      procwatch_proc_read_task_state  (int          stat_fd);
int      procwatch_proc_read_task_state_at (int        dirfd);

G_END_DECLS
