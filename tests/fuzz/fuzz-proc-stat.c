/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * /proc/<pid>/stat as any process can shape it: its name (comm) is up to
 * 15 bytes of anything, parentheses and newlines included.
 */

#include <stdint.h>
#include <string.h>

#include "procwatch-proc-files-private.h"

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput (const uint8_t *data,
                        size_t         size)
{
  /* The library reads at most 1023 bytes into a NUL-terminated buffer;
   * the copy is exact-sized so that ASan sees any read past the text. */
  char *text = g_malloc (size + 1);
  gint64 num_threads = -1;
  char state = 0;
  int task_state;

  memcpy (text, data, size);
  text[size] = '\0';

  if (procwatch_proc_parse_stat (text, size, &state, &num_threads))
    {
      g_assert_true (g_ascii_isalpha (state));
      g_assert_cmpint (num_threads, >, 0);
      g_assert_cmpint (num_threads, <=, G_MAXINT);
    }

  task_state = procwatch_proc_task_state_from_stat (text, size);
  g_assert_true (task_state == -1 ||
                 task_state == PROCWATCH_PROCESS_STATE_RUNNING ||
                 task_state == PROCWATCH_PROCESS_STATE_EXITED);

  g_free (text);
  return 0;
}
