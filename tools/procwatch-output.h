/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * How procwatch prints an event: one text line, or one JSON object per line.
 */

#pragma once

#include <stdio.h>

#include <gio-procwatch/procwatch.h>

G_BEGIN_DECLS

/* What the tool knew of a process when it started watching it. */
typedef struct
{
  GPid pid;
  char *name;         /* its comm, NULL where unknown */
  guint n_args;       /* how many arguments named it (waitpid counts each) */
  gboolean stopping;  /* signalled at the timeout: awaited still */
  char *file_handle;  /* with --json: base64 of its token, NULL where none */
} ToolTarget;

char *tool_signal_name     (int               sig);
char *tool_describe_status (int               wait_status);
void  tool_append_escaped  (GString          *out,
                            const char       *name);
void  tool_json_append_string (GString       *out,
                               const char    *bytes,
                               gssize         length);
void  tool_print_event     (FILE             *out,
                            gboolean          json,
                            const char       *event,
                            const ToolTarget *target,
                            ProcwatchProcess *process);
void  tool_print_signal    (FILE             *out,
                            const ToolTarget *target,
                            ProcwatchProcess *process,
                            int               sig,
                            const char       *why,
                            const char       *error);
void  tool_print_cgroup    (FILE             *out,
                            gboolean          json,
                            const char       *path,
                            const char       *app_id);
void  tool_print_cgroup_signal (FILE         *out,
                                const char   *path,
                                const char   *app_id,
                                int           sig,
                                const char   *why,
                                const char   *error);

G_END_DECLS
