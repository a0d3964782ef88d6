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
/* The same, remembering @id (not 0) as the id @string is known by, such
 * as the cgroup id of a cgroup path, for as long as the string is held:
 * the caller has made sure that @id names @string. */
const char *procwatch_shared_string_acquire_with_id (const char *string,
                                                     guint64     id);
/* The string known by @id, counting one more holder; NULL if no string
 * held now is known by it. */
const char *procwatch_shared_string_acquire_by_id (guint64 id);
/* Gives up one hold of a string that procwatch_shared_string_acquire()
 * returned. */
void        procwatch_shared_string_release (const char *string);

G_END_DECLS
