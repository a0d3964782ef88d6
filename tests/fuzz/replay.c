/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Runs a fuzz target on every file of the given corpus directories (or on
 * the given files) without libFuzzer: the corpus as a normal test.
 */

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static guint
run_file (const char *path)
{
  g_autoptr(GError) error = NULL;
  g_autofree char *contents = NULL;
  gsize length;

  if (!g_file_get_contents (path, &contents, &length, &error))
    g_error ("%s", error->message);

  /* An exact-sized copy: ASan catches a read one byte past the input.
   * Never NULL, also when empty, as libFuzzer passes it. */
  {
    uint8_t *data = malloc (length > 0 ? length : 1);

    memcpy (data, contents, length);
    LLVMFuzzerTestOneInput (data, length);
    free (data);
  }
  return 1;
}

int
main (int   argc,
      char *argv[])
{
  guint count = 0;
  int i;

  for (i = 1; i < argc; i++)
    {
      g_autoptr(GDir) dir = NULL;
      const char *name;

      if (!g_file_test (argv[i], G_FILE_TEST_IS_DIR))
        {
          count += run_file (argv[i]);
          continue;
        }

      dir = g_dir_open (argv[i], 0, NULL);
      while ((name = g_dir_read_name (dir)) != NULL)
        {
          g_autofree char *path = g_build_filename (argv[i], name, NULL);

          count += run_file (path);
        }
    }

  if (count == 0)
    {
      fprintf (stderr, "no corpus files given\n");
      return 1;
    }

  printf ("1..1\nok 1 - %u corpus inputs\n", count);
  return 0;
}
