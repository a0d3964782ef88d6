/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * timeout(1)'s part of procwatch: the timeout and the signals it sends
 * (-t, -s, -k), --send, and running a COMMAND, to which a supervisor's
 * TERM and HUP are passed on.
 */

#pragma once

#include "procwatch-tool.h"

G_BEGIN_DECLS

void tool_start_timeout (Tool   *tool,
                         guint   timeout_ms);
void tool_send_signal   (Tool   *tool,
                         int     sig);
int  tool_run_command   (Tool   *tool,
                         char  **command_argv);

G_END_DECLS
