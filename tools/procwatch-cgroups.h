/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch's cgroups (procwatch-cgroups.c): watching them, and the
 * signals they get at the timeout. Leans on procwatch-run.c alone.
 */

#pragma once

#include "procwatch-options.h"
#include "procwatch-tool.h"

G_BEGIN_DECLS

/* An --app, as Tool's apps holds it. */
typedef struct _ToolApp ToolApp;

void  tool_app_free        (ToolApp     *app);
/* Watches every --cgroup-of, --cgroup and --app of @options. Returns -1
 * to go on (*@unsupported set if -e let a missing kernel feature pass),
 * or the exit status to stop with. */
int   tool_watch_cgroups   (Tool        *tool,
                            ToolOptions *options,
                            gboolean    *unsupported);
/* Every app (and with --signal-cgroups every cgroup) still populated gets
 * @sig; with @stopping each is awaited after the timeout. Returns how
 * many were sent. */
guint tool_signal_cgroups  (Tool        *tool,
                            int          sig,
                            const char  *why,
                            gboolean     stopping);

G_END_DECLS
