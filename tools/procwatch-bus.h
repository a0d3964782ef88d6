/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * procwatch's D-Bus names (procwatch-bus.c). Leans on procwatch-run.c
 * alone.
 */

#pragma once

#include "procwatch-options.h"
#include "procwatch-tool.h"

G_BEGIN_DECLS

/* Watches the owner of every --dbus-name of @options, before any process
 * named by PID. Returns -1 to go on (*@unsupported set if -e let a missing
 * kernel feature pass), or the exit status to stop with. */
int tool_watch_bus_names (Tool        *tool,
                          ToolOptions *options,
                          gboolean    *unsupported);

G_END_DECLS
