/* SPDX-License-Identifier: LGPL-2.1-or-later
 * SPDX-FileCopyrightText: 2026 The gio-procwatch authors
 */

#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procwatch-proc.h"

/* Reads up to @size - 1 bytes of @path relative to @dirfd and terminates
 * them with a NUL. /proc files are generated on read, so one read() of a
 * large enough buffer sees one consistent snapshot. Returns the length, or
 * -1 with errno set. */
gssize
procwatch_proc_read_file_at (int         dirfd,
                             const char *path,
                             char       *buffer,
                             gsize       size)
{
  gssize length;
  int saved_errno;
  int fd;

  g_return_val_if_fail (size > 0, -1);

  fd = openat (dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
  if (fd < 0)
    return -1;

  do
    length = read (fd, buffer, size - 1);
  while (length < 0 && errno == EINTR);

  saved_errno = errno;
  close (fd);
  errno = saved_errno;

  if (length < 0)
    return -1;

  buffer[length] = '\0';
  return length;
}

/* Finds a "Name:\tvalue" line, as in /proc/<pid>/status and fdinfo. */
gboolean
procwatch_proc_find_int_field (const char *text,
                               gsize       length,
                               const char *name,
                               gint64     *value)
{
  gsize name_length = strlen (name);
  const char *end = text + length;
  const char *line = text;

  while (line < end)
    {
      const char *eol = memchr (line, '\n', end - line);

      if (eol == NULL)
        eol = end;

      if ((gsize) (eol - line) > name_length &&
          memcmp (line, name, name_length) == 0 &&
          line[name_length] == ':')
        {
          char digits[24];
          const char *p = line + name_length + 1;
          gsize n = 0;
          char *parse_end;
          gint64 parsed;

          while (p < eol && (*p == ' ' || *p == '\t'))
            p++;

          while (p < eol && n < sizeof digits - 1 && (g_ascii_isdigit (*p) || (n == 0 && *p == '-')))
            digits[n++] = *p++;
          digits[n] = '\0';

          if (n == 0 || (n == 1 && digits[0] == '-'))
            return FALSE;

          errno = 0;
          parsed = g_ascii_strtoll (digits, &parse_end, 10);
          if (errno != 0 || *parse_end != '\0')
            return FALSE;

          *value = parsed;
          return TRUE;
        }

      line = eol + 1;
    }

  return FALSE;
}

/* The "Pid:" of a pidfd: -1 once the process has been reaped (Linux 5.10+),
 * 0 when it is not visible from our pid namespace. */
gboolean
procwatch_proc_read_fdinfo_pid (int   fd,
                                GPid *pid)
{
  char path[64];
  char text[1024];
  gssize length;
  gint64 value;

  g_snprintf (path, sizeof path, "/proc/self/fdinfo/%d", fd);

  length = procwatch_proc_read_file_at (AT_FDCWD, path, text, sizeof text);
  if (length < 0)
    return FALSE;

  if (!procwatch_proc_find_int_field (text, length, "Pid", &value) ||
      value < -1 || value > G_MAXINT)
    return FALSE;

  *pid = (GPid) value;
  return TRUE;
}

gboolean
procwatch_proc_read_tgid (GPid  pid,
                          GPid *tgid)
{
  char path[64];
  char text[4096];
  gssize length;
  gint64 value;

  g_snprintf (path, sizeof path, "/proc/%d/status", (int) pid);

  length = procwatch_proc_read_file_at (AT_FDCWD, path, text, sizeof text);
  if (length < 0)
    return FALSE;

  if (!procwatch_proc_find_int_field (text, length, "Tgid", &value) ||
      value <= 0 || value > G_MAXINT)
    return FALSE;

  *tgid = (GPid) value;
  return TRUE;
}
