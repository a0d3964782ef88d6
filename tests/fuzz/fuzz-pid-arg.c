/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * The procwatch tool's PID[:INODE] arguments, the one part of its command
 * line it parses by hand (options are GOption's, names regcomp()'s).
 */

#include <stdint.h>
#include <string.h>

#include "procwatch-select.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* An argv string: NUL-terminated, and ends at its first NUL. */
  char *text = g_strndup ((const char *) data, size);
  guint64 inode = 12345;
  GPid pid = 0;

  if (tool_parse_pid_arg (text, &pid, &inode))
    {
      /* What was accepted means what it says. */
      g_assert_cmpint (pid, >, 0);
      g_assert_cmpuint (g_ascii_strtoull (text, NULL, 10), ==, (guint64) pid);
      g_assert_true ((inode != 0) == (strchr (text, ':') != NULL));
    }

  g_free (text);
  return 0;
}
