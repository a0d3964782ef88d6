/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * How procwatch finds the processes to watch: PID[:INODE] arguments, names
 * matched like pgrep(1), and what /proc says about each.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

typedef enum
{
  TOOL_MATCH_FULL        = 1 << 0,   /* the whole command line, as pgrep -f */
  TOOL_MATCH_EXACT       = 1 << 1,   /* the whole name, as pgrep -x */
  TOOL_MATCH_IGNORE_CASE = 1 << 2,   /* as pgrep -i */
} ToolMatchFlags;

gboolean  tool_parse_pid_arg   (const char      *text,
                                GPid            *pid,
                                guint64         *inode);

char     *tool_read_comm       (GPid             pid);

GArray   *tool_find_by_name    (const char * const *patterns,
                                ToolMatchFlags   flags,
                                gboolean        *matched,
                                GError         **error);

G_END_DECLS
