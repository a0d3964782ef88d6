/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <string.h>

#include "procwatch-shared-string-private.h"

/* Not g_ref_string_new_intern(): GLib 2.74 drops its count outside the
 * table's lock, so a lookup racing with the last release may return a
 * freed string, and later GLib keeps interned strings forever, while every
 * app launch brings a new scope path. Here the count only changes under the
 * lock, and a string goes soon after its last holder: the one that emptied
 * last is kept (idle) until another empties, since the next process
 * watched is most often of the same cgroup (a process watched at a time,
 * a service restarted), which then costs no allocation, and its exit no
 * free. The table is kept once made, for the same reason. */
typedef struct
{
  gsize holders;
  char string[];
} SharedString;

G_LOCK_DEFINE_STATIC (shared_strings);
static GHashTable *shared_strings;   /* its string → SharedString */
static SharedString *idle;           /* no holders left, yet in the table */

static SharedString *
shared_string_from_string (const char *string)
{
  return (SharedString *) (string - G_STRUCT_OFFSET (SharedString, string));
}

const char *
procwatch_shared_string_acquire (const char *string)
{
  SharedString *shared;

  G_LOCK (shared_strings);

  if (shared_strings == NULL)
    shared_strings = g_hash_table_new (g_str_hash, g_str_equal);

  shared = g_hash_table_lookup (shared_strings, string);
  if (shared == NULL)
    {
      gsize size = strlen (string) + 1;

      shared = g_malloc (sizeof (SharedString) + size);
      shared->holders = 0;
      memcpy (shared->string, string, size);
      g_hash_table_insert (shared_strings, shared->string, shared);
    }
  shared->holders++;

  G_UNLOCK (shared_strings);

  return shared->string;
}

void
procwatch_shared_string_release (const char *string)
{
  SharedString *shared = shared_string_from_string (string);

  G_LOCK (shared_strings);

  g_assert (shared->holders > 0);
  if (--shared->holders == 0)
    {
      /* The idle one before may have found holders again since. */
      if (idle != NULL && idle != shared && idle->holders == 0)
        {
          g_hash_table_remove (shared_strings, idle->string);
          g_free (idle);
        }
      idle = shared;
    }

  G_UNLOCK (shared_strings);
}
