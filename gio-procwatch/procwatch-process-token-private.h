/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Process tokens (procwatch-process-token.c): a pidfs file handle with the
 * boot it is good for, to name one process across processes and time.
 */

#pragma once

#include <gio/gio.h>

G_BEGIN_DECLS

/* The token of the process of @pidfd (whose pid, for messages, is @pid);
 * NULL with NOT_SUPPORTED where the kernel gives no file handle, or with
 * TOO_MANY_OPEN_FILES when the boot id, read once, cannot be read yet. */
GBytes *procwatch_process_token_encode (int       pidfd,
                                      GPid      pid,
                                      GError  **error);
/* A new pidfd of the process @token names; -1 with INVALID_ARGUMENT for
 * bytes that are no token, NOT_FOUND for a process gone, not visible here
 * or of another boot, PERMISSION_DENIED, TOO_MANY_OPEN_FILES or
 * NOT_SUPPORTED as the kernel says. */
int     procwatch_process_token_open   (GBytes   *token,
                                      GError  **error);

G_END_DECLS
