/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * "Name:\tvalue" files: /proc/<pid>/status (Tgid) and
 * /proc/self/fdinfo/<pidfd> (Pid), read by the library.
 */

#include <stdint.h>
#include <string.h>

#include "procwatch-proc-files-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  static const char *const names[] = { "Pid", "Tgid", "NSpid", "State" };
  char *text = g_malloc (size + 1);
  gsize i;

  memcpy (text, data, size);
  text[size] = '\0';

  for (i = 0; i < G_N_ELEMENTS (names); i++)
    {
      gint64 value = 0;

      /* Only what the text holds, never past its length. */
      if (procwatch_proc_find_int_field (text, size, names[i], &value))
        g_assert_nonnull (memmem (text, size, names[i], strlen (names[i])));
    }

  g_free (text);
  return 0;
}
