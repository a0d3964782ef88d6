/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <string.h>

#include "procwatch-shared-string-private.h"
#include "procwatch-test-seam-private.h"

#ifdef PROCWATCH_TEST_SEAM
guint procwatch_test_seam_cgroup_ids_known;
#endif

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
  /* The id the string is known by (a cgroup id for a cgroup path), 0 if
   * none: a key of ids_to_strings while the string has holders. */
  guint64 id;
  char string[];
} SharedString;

G_LOCK_DEFINE_STATIC (shared_strings);
static GHashTable *shared_strings;   /* its string → SharedString */
/* SharedString.id → SharedString: an id is forgotten with its string's
 * last holder, so the table never outgrows the strings held, however many
 * short-lived cgroups come and go. Kept once made, as the other. */
static GHashTable *ids_to_strings;
static SharedString *idle;           /* no holders left, yet in the table */

static SharedString *
shared_string_from_string (const char *string)
{
  return (SharedString *) (string - G_STRUCT_OFFSET (SharedString, string));
}

static void
forget_id (SharedString *shared)
{
  if (shared->id == 0)
    return;

  g_hash_table_remove (ids_to_strings, &shared->id);
  shared->id = 0;
#ifdef PROCWATCH_TEST_SEAM
  procwatch_test_seam_cgroup_ids_known--;
#endif
}

static const char *
acquire_locked (const char *string,
                guint64     id)
{
  SharedString *shared;

  if (shared_strings == NULL)
    shared_strings = g_hash_table_new (g_str_hash, g_str_equal);

  shared = g_hash_table_lookup (shared_strings, string);
  if (shared == NULL)
    {
      gsize size = strlen (string) + 1;

      shared = g_malloc (sizeof (SharedString) + size);
      shared->holders = 0;
      shared->id = 0;
      memcpy (shared->string, string, size);
      g_hash_table_insert (shared_strings, shared->string, shared);
    }
  shared->holders++;

  /* One id per string: a cgroup removed and made again at the same path
   * has a new id, and the old one names nothing any more. */
  if (id != 0 && shared->id != id)
    {
      SharedString *other;

      forget_id (shared);
      if (ids_to_strings == NULL)
        ids_to_strings = g_hash_table_new (g_int64_hash, g_int64_equal);

      /* Another string known by @id: not a path of that cgroup after all
       * (the caller checked this one). */
      other = g_hash_table_lookup (ids_to_strings, &id);
      if (other != NULL)
        forget_id (other);

      shared->id = id;
      g_hash_table_insert (ids_to_strings, &shared->id, shared);
#ifdef PROCWATCH_TEST_SEAM
      procwatch_test_seam_cgroup_ids_known++;
#endif
    }

  return shared->string;
}

const char *
procwatch_shared_string_acquire (const char *string)
{
  const char *held;

  G_LOCK (shared_strings);
  held = acquire_locked (string, 0);
  G_UNLOCK (shared_strings);

  return held;
}

const char *
procwatch_shared_string_acquire_with_id (const char *string,
                                         guint64     id)
{
  const char *held;

  G_LOCK (shared_strings);
  held = acquire_locked (string, id);
  G_UNLOCK (shared_strings);

  return held;
}

const char *
procwatch_shared_string_acquire_by_id (guint64 id)
{
  SharedString *shared = NULL;

  if (id == 0)
    return NULL;

  G_LOCK (shared_strings);

  if (ids_to_strings != NULL)
    shared = g_hash_table_lookup (ids_to_strings, &id);
  if (shared != NULL)
    shared->holders++;

  G_UNLOCK (shared_strings);

  return shared != NULL ? shared->string : NULL;
}

void
procwatch_shared_string_release (const char *string)
{
  SharedString *shared = shared_string_from_string (string);

  G_LOCK (shared_strings);

  g_assert (shared->holders > 0);
  if (--shared->holders == 0)
    {
      forget_id (shared);
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
