/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 *
 * Whole-buffer reads and writes for the tests' helpers and the benchmarks:
 * both fork or spawn processes that report over pipes, and a short read or
 * write there is never worth handling case by case.
 */

#include <errno.h>
#include <unistd.h>

#include "procwatch-io.h"

/* Writes all of @data, retrying after EINTR. A failed write means the
 * reader is gone, so the writer has no one left to report to: it ends at
 * once with _exit (101), which is also safe in a forked child (no atexit
 * handlers, no second flush of stdio buffers copied from its parent). */
void
io_write_all (int         fd,
              const void *data,
              gsize       size)
{
  const char *p = data;

  while (size > 0)
    {
      gssize n = write (fd, p, size);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        _exit (101);
      p += n;
      size -= n;
    }
}

/* Reads all of @data, retrying after EINTR. Returns FALSE on end of file
 * or an error: to the callers, the writer ending is an answer too (a
 * helper that exited, a worker told to stop). */
gboolean
io_read_all (int    fd,
             void  *data,
             gsize  size)
{
  char *p = data;

  while (size > 0)
    {
      gssize n = read (fd, p, size);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return FALSE;
      p += n;
      size -= n;
    }

  return TRUE;
}
