/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * One copy of each string that many processes hold, such as the cgroup path
 * that every process of an app scope has: counted, shared by all monitors
 * and threads, and freed with its last holder.
 */

#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Returns the shared copy of @string, counting one more holder. */
const char *procwatch_shared_string_acquire (const char *string);
/* Gives up one hold of a string that procwatch_shared_string_acquire()
 * returned. */
void        procwatch_shared_string_release (const char *string);

G_END_DECLS
